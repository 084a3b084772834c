//! Small text helpers shared by the parser: byte offset → line, inline-text cleanup.
//! Pure; imports nothing of the crate but `swar` (std, and memchr for the line starts).

/// Maps byte offsets to 1-based line numbers.
#[derive(Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(src: &str) -> Self {
        let mut starts = Vec::with_capacity(src.len() / 32 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', src.as_bytes()).map(|i| i + 1));
        LineIndex { starts }
    }

    /// How many lines there are: one more than the newlines (the line of the last byte).
    pub fn count(&self) -> usize {
        self.starts.len()
    }

    /// 1-based line holding byte `offset`.
    pub fn line(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    /// [`LineIndex::line`] for offsets that mostly stay on or near the line of the one
    /// before: `near` is that line's index, checked first (and updated).
    pub fn line_near(&self, offset: usize, near: &mut usize) -> usize {
        let holds = |i: usize| {
            self.starts.get(i).is_some_and(|s| *s <= offset)
                && self.starts.get(i + 1).is_none_or(|s| offset < *s)
        };
        // The same line, else the next one (a block that starts on the following line).
        if !holds(*near) {
            *near = if holds(*near + 1) {
                *near + 1
            } else {
                self.line(offset).saturating_sub(1)
            };
        }
        *near + 1
    }

    /// Byte offset where 1-based `line` starts (or the end for lines past the end).
    pub fn start(&self, line: usize) -> Option<usize> {
        self.starts.get(line.saturating_sub(1)).copied()
    }
}

/// 1-based line numbers of byte offsets met in (mostly) increasing order, counted as they
/// come: only the bytes between one offset and the next are read, and no table of line
/// starts is built. Gives what [`LineIndex::line`] gives.
#[derive(Debug)]
pub struct LineCounter<'a> {
    src: &'a [u8],
    at: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    pub fn new(src: &'a str) -> Self {
        LineCounter {
            src: src.as_bytes(),
            at: 0,
            line: 1,
        }
    }

    /// 1-based line holding byte `offset` (the last line for offsets past the end).
    pub fn line(&mut self, offset: usize) -> usize {
        let offset = offset.min(self.src.len());
        if offset >= self.at {
            self.line +=
                super::swar::count_byte(self.src.get(self.at..offset).unwrap_or_default(), b'\n');
        } else {
            self.line -=
                super::swar::count_byte(self.src.get(offset..self.at).unwrap_or_default(), b'\n');
        }
        self.at = offset;
        self.line
    }
}

/// Bytes that may start a whitespace character: ASCII controls and the space (not all of
/// them whitespace), and the four lead bytes every other whitespace character starts with.
const MAY_BE_SPACE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i <= b' ' as usize {
        t[i] = true;
        i += 1;
    }
    t[0xC2] = true;
    t[0xE1] = true;
    t[0xE2] = true;
    t[0xE3] = true;
    t
};

/// Whether `t` is only whitespace (what `str::trim` leaves empty): a text whose first byte
/// cannot start a whitespace character (`MAY_BE_SPACE`), most of them, is answered there.
pub fn is_blank(t: &str) -> bool {
    match t.as_bytes().first() {
        None => true,
        Some(&b) => MAY_BE_SPACE[usize::from(b)] && t.chars().all(char::is_whitespace),
    }
}

/// The length of the whitespace character (as `char::is_whitespace` counts it) at byte `i`
/// of `s`, or 0 when none starts there.
fn space_len(s: &str, i: usize) -> usize {
    match s.as_bytes().get(i) {
        Some(b'\t'..=b'\r' | b' ') => 1,
        Some(0xC2 | 0xE1 | 0xE2 | 0xE3) => s
            .get(i..)
            .and_then(|r| r.chars().next())
            .filter(|ch| ch.is_whitespace())
            .map_or(0, char::len_utf8),
        _ => 0,
    }
}

/// Collapses runs of whitespace (as `char::is_whitespace` counts it) into one space and trims.
pub fn squash(s: &str) -> String {
    // Byte by byte, through a table: only a byte that may start whitespace is looked at
    // closer (a character decoded only for the four non-ASCII lead bytes); the words between
    // are copied whole.
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut word = 0;
    let mut i = 0;
    while i < b.len() {
        let w = if MAY_BE_SPACE[usize::from(b[i])] {
            space_len(s, i)
        } else {
            0
        };
        if w == 0 {
            i += 1;
            continue;
        }
        if word < i {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(s.get(word..i).unwrap_or_default());
        }
        i += w;
        word = i;
    }
    if word < b.len() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(s.get(word..).unwrap_or_default());
    }
    out
}

/// Whether `s` is already as [`squash`] leaves it: no whitespace but single spaces between
/// words.
pub fn is_squashed(s: &str) -> bool {
    const LOW: u64 = u64::from_le_bytes([0x20; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    const SEVEN: u64 = u64::from_le_bytes([0x7f; 8]);
    let b = s.as_bytes();
    // Eight ASCII bytes at a time wherever none is a control or a non-ASCII byte (such a
    // byte is read alone, and the next eight after it go as a word again: an em dash or a
    // curly quote early in a paragraph does not leave the rest to the byte loop). A flag per
    // space, and two flags side by side (in the word or across the last one) are a double
    // space. At the start a space would be a leading one.
    let mut after_space = true;
    let mut i = 0;
    while i < b.len() {
        if let Some(chunk) = b.get(i..i + 8) {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            let x = u64::from_le_bytes(word);
            if (x.wrapping_sub(LOW) | x) & HIGH == 0 {
                let t = x ^ LOW;
                let spaces = !(((t & SEVEN).wrapping_add(SEVEN)) | t) & HIGH;
                if spaces & (spaces << 8) != 0 || (after_space && spaces & 0x80 != 0) {
                    return false;
                }
                after_space = spaces >> 63 != 0;
                i += 8;
                continue;
            }
        }
        let c = b[i];
        if !MAY_BE_SPACE[usize::from(c)] {
            after_space = false;
        } else if c == b' ' {
            if after_space {
                return false;
            }
            after_space = true;
        } else if space_len(s, i) > 0 {
            return false;
        } else {
            after_space = false;
        }
        i += 1;
    }
    !after_space || b.is_empty()
}

/// [`squash`] of a string the caller owns: handed back as it is when nothing changes, which
/// is most paragraphs, so they are not copied.
pub fn squash_owned(s: String) -> String {
    if is_squashed(&s) {
        s
    } else {
        squash(&s)
    }
}

/// [`squash`] character by character (the reference reading the tests hold it to).
#[cfg(test)]
fn squash_chars(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Lower-cases and turns a bold label into a field key: `If/then outcome` → `if-then`,
/// `Expected result` → `expected-result`.
pub fn field_key(label: &str) -> String {
    let label = label.trim().trim_end_matches(':');
    let mut key = String::with_capacity(label.len());
    for c in label.chars() {
        if c.is_ascii_alphanumeric() {
            key.push(c.to_ascii_lowercase());
        } else if c.is_alphanumeric() {
            key.extend(c.to_lowercase());
        } else if !key.ends_with('-') && !key.is_empty() {
            key.push('-');
        }
    }
    key.truncate(key.trim_end_matches('-').len());
    canonical_key(key)
}

/// The one key of a field that several labels name (`Risks`, `Pre-conditions` …).
fn canonical_key(key: String) -> String {
    match key.as_str() {
        "if-then-outcome" | "if-then-outcomes" | "if-then" => "if-then".into(),
        "precondition" | "pre-conditions" => "preconditions".into(),
        "risks" => "risk".into(),
        "goals" => "goal".into(),
        "actions" => "action".into(),
        "expected-results" | "expected-outcome" | "expected" => "expected-result".into(),
        _ => key,
    }
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
