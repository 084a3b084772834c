//! What the shell lexer learns about quoting, by byte position: which parts of a script are
//! bare, single-quoted, double-quoted, escaped, comments or heredoc bodies, and every
//! parameter expansion (`$NAME`, `${NAME…}`) bash would really perform, with its place.
//!
//! Pure; must not import IO nor any tsgnav module outside `tsg::shell`. This is the one place
//! quoting is worked out: variable extraction and value substitution ask this map instead of
//! scanning quotes themselves.

use super::lex::Lexer;

/// How the shell reads the text at a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Quoting {
    /// Outside any quotes (also whitespace and operators).
    #[default]
    Bare,
    /// Inside `'…'` or `$'…'` (quotes included): nothing expands.
    Single,
    /// Inside `"…"` (quotes included).
    Double,
    /// A backslash and the character it escapes.
    Escaped,
    /// A `#` comment.
    Comment,
    /// A heredoc body; `quoted` when its delimiter was quoted (`<<'EOF'`), so nothing in it
    /// expands.
    Heredoc { quoted: bool },
}

/// A run of bytes `start..end` read with one quoting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub start: usize,
    pub end: usize,
    pub quoting: Quoting,
}

/// A parameter expansion bash performs: `name` at bytes `start..end` (the `$` included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    pub name: String,
    pub start: usize,
    pub end: usize,
    pub quoting: Quoting,
}

/// The quoting of a whole script.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QuoteMap {
    /// Non-overlapping, sorted by `start` once the script is lexed.
    pub pieces: Vec<Piece>,
    /// In source order.
    pub expansions: Vec<Expansion>,
}

impl QuoteMap {
    /// How the byte at `pos` is read; positions no piece covers are bare.
    pub fn at(&self, pos: usize) -> Quoting {
        let i = self.pieces.partition_point(|p| p.start <= pos);
        match i.checked_sub(1).map(|k| self.pieces[k]) {
            Some(p) if pos < p.end => p.quoting,
            _ => Quoting::Bare,
        }
    }

    /// The piece holding `pos`, if a quoted, escaped or bare word byte is there.
    pub fn piece_at(&self, pos: usize) -> Option<Piece> {
        let i = self.pieces.partition_point(|p| p.start <= pos);
        i.checked_sub(1)
            .map(|k| self.pieces[k])
            .filter(|p| pos < p.end)
    }

    pub(super) fn mark(&mut self, start: usize, end: usize, quoting: Quoting) {
        if start >= end {
            return;
        }
        match self.pieces.last_mut() {
            Some(last) if last.end == start && last.quoting == quoting => last.end = end,
            _ => self.pieces.push(Piece {
                start,
                end,
                quoting,
            }),
        }
    }

    /// Adds a nested script's map, whose byte 0 is `offset` here.
    pub(super) fn nest(&mut self, inner: QuoteMap, offset: usize) {
        self.pieces.extend(inner.pieces.into_iter().map(|p| Piece {
            start: p.start + offset,
            end: p.end + offset,
            ..p
        }));
        self.expansions
            .extend(inner.expansions.into_iter().map(|e| Expansion {
                start: e.start + offset,
                end: e.end + offset,
                ..e
            }));
    }

    pub(super) fn finish(mut self) -> Self {
        self.pieces.sort_by_key(|p| p.start);
        self.expansions.sort_by_key(|e| e.start);
        self
    }
}

/// The quoting of `script` as bash reads it.
pub fn quoting(script: &str) -> QuoteMap {
    Lexer::new(script, 1, 0).run().map.finish()
}

/// The names bash expands in `script`, in first-use order, each once.
pub fn expanded_names(script: &str) -> Vec<String> {
    names_in(quoting(script))
}

/// [`expanded_names`] of a script already lexed: its quoting (`Parsed::quoting`).
pub fn names_in(map: QuoteMap) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in map.expansions {
        if !out.contains(&e.name) {
            out.push(e.name);
        }
    }
    out
}

/// How one console line leaves its command: inside a quote, continued (`\`, `|`, `&&`, `||`
/// at its end, outside quotes and comments), and the heredocs it opened (delimiter, `<<-`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineEnd {
    pub quote: Option<char>,
    pub more: bool,
    pub heredocs: Vec<(String, bool)>,
}

/// Reads `line` as the shell does, starting inside `quote` when an earlier line left one open.
pub fn line_end(line: &str, quote: Option<char>) -> LineEnd {
    // Most command lines are read without the lexer (which every block's lines would
    // otherwise be, once more than the block): a whole-line comment ends nothing, and a line
    // with nothing that quotes, escapes, comments or opens a heredoc is bare from end to end,
    // so only its last operator (or one backslash as its last byte) continues it.
    if quote.is_none() {
        let b = line.as_bytes();
        let lead = b
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t' | b'\r'))
            .count();
        if b.get(lead) == Some(&b'#') {
            return LineEnd::default();
        }
        let (body, escaped_end) = match b.split_last() {
            Some((b'\\', body)) => (body, true),
            _ => (b, false),
        };
        if !body
            .iter()
            .any(|c| matches!(c, b'\'' | b'"' | b'\\' | b'#' | b'<'))
        {
            let t = line.trim_end();
            return LineEnd {
                quote: None,
                more: escaped_end || t.ends_with('|') || t.ends_with("&&"),
                heredocs: Vec::new(),
            };
        }
    }
    line_end_lexed(line, quote)
}

/// [`line_end`] read by the lexer.
pub(super) fn line_end_lexed(line: &str, quote: Option<char>) -> LineEnd {
    let text: String = quote.into_iter().chain(line.chars()).collect();
    let lx = Lexer::new(&text, 1, 0).run();
    let quote = lx.problems.iter().find_map(|p| match p {
        super::Problem::Unterminated { what: "'", .. } => Some('\''),
        super::Problem::Unterminated { what: "\"", .. } => Some('"'),
        _ => None,
    });
    let map = lx.map.finish();
    let t = text.trim_end();
    let last = t.len().saturating_sub(1);
    let more = quote.is_none()
        && !t.is_empty()
        && match map.at(last) {
            Quoting::Bare => {
                t.ends_with('\\') || t.ends_with('|') || t.ends_with("&&") || t.ends_with("||")
            }
            _ => false,
        };
    LineEnd {
        quote,
        more,
        heredocs: lx.opened,
    }
}

/// Lower-case words joined by dashes (`top-user-from-last-command`): a prose placeholder
/// written in `${…}`, not `${NAME-default}`.
fn prose_placeholder(inner: &[u8]) -> bool {
    inner.first().is_some_and(u8::is_ascii_lowercase)
        && inner.iter().filter(|c| **c == b'-').count() >= 2
        && inner
            .iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_name(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

impl Lexer<'_> {
    /// Records the parameter expansion at `self.pos` (a `$`), if it names a variable:
    /// `$NAME`, or `${NAME…}` and the `$NAME`s in its default/alternative word.
    pub(super) fn record_expansion(&mut self, end: usize) {
        let s = self.s;
        let start = self.pos;
        let q = self.quoting;
        let braced = s.get(start + 1) == Some(&b'{');
        let mut i = start + 1 + usize::from(braced);
        let from = i;
        while i < end.min(s.len()) && is_name(s[i]) {
            i += 1;
        }
        if braced && prose_placeholder(s.get(from..end.saturating_sub(1)).unwrap_or_default()) {
            // `${top-user-from-last-command}`: words for the reader, not a variable.
            return;
        }
        if i > from && is_name_start(s[from]) {
            self.push_expansion(from, i, start, if braced { end } else { i }, q);
        }
        if braced {
            // `${A:-$B}`: the inner `$B` is expanded too.
            self.scan_dollars(i, end);
        }
    }

    /// Records every `$NAME` / `${NAME` between `from` and `to` (inside `${…}` or `$((…))`).
    pub(super) fn scan_dollars(&mut self, from: usize, to: usize) {
        let s = self.s;
        let to = to.min(s.len());
        let q = self.quoting;
        let mut k = from;
        while k < to {
            let f = k + 1 + usize::from(s.get(k + 1) == Some(&b'{'));
            if s[k] == b'$' && s.get(f).copied().is_some_and(is_name_start) {
                let mut e = f;
                while e < to && is_name(s[e]) {
                    e += 1;
                }
                self.push_expansion(f, e, k, e, q);
                k = e;
            } else {
                k += 1;
            }
        }
    }

    fn push_expansion(&mut self, from: usize, to: usize, start: usize, end: usize, q: Quoting) {
        let name = String::from_utf8_lossy(&self.s[from..to]).into_owned();
        self.map.expansions.push(Expansion {
            name,
            start,
            end,
            quoting: q,
        });
    }

    /// Marks `start..end` with the quoting in force.
    pub(super) fn mark(&mut self, start: usize, end: usize) {
        let q = self.quoting;
        self.map.mark(start, end, q);
    }
}
