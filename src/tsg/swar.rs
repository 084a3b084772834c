//! Byte classes read eight bytes at a time (SWAR: one `u64` holds eight bytes), or 32 where
//! the compiler turns a count into vector compares, for the scans the parser makes over every
//! paragraph and the JSON writer over every string, and the lines of a block found with
//! `memchr`. Pure; imports nothing of the crate.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Eight bytes from `chunk` (which must hold at least eight), little-endian.
fn word(chunk: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&chunk[..8]);
    u64::from_le_bytes(w)
}

/// The bytes of `w` that JSON escapes: control characters, `"` and `\`, as a mask with the
/// high bit of each such byte set. Only the lowest set byte is exact (a borrow can mark a
/// byte above it too). A byte with its high bit set is not ASCII and is never escaped.
fn json_escapes(w: u64) -> u64 {
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    below_space | zero(w ^ (ONES * b'"' as u64)) | zero(w ^ (ONES * b'\\' as u64))
}

/// The index of the first byte of `bytes` at or after `from` that JSON escapes (or the end).
pub fn next_json_escape(bytes: &[u8], mut from: usize) -> usize {
    let escaped = |c: u8| c < 0x20 || c == b'"' || c == b'\\';
    while let Some(chunk) = bytes.get(from..from + 8) {
        let mask = json_escapes(word(chunk));
        if mask != 0 {
            return from + (mask.trailing_zeros() / 8) as usize;
        }
        from += 8;
    }
    from + bytes
        .get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|&&c| !escaped(c))
        .count()
}

/// The ASCII digits of `w`, as a mask with the high bit of each digit byte set (exact).
fn digits(w: u64) -> u64 {
    // Each byte with its high bit cleared, so no sum below carries into the next byte;
    // a byte that had it set is not ASCII and is masked out at the end.
    let low = w & !HIGH;
    let at_least_0 = low.wrapping_add(ONES * (0x80 - 0x30));
    let above_9 = low.wrapping_add(ONES * (0x80 - 0x3a));
    at_least_0 & !above_9 & !w & HIGH
}

/// The bytes of `w` that are the ASCII letter `lower` in either case, as a mask with the high
/// bit of each such byte set (exact). `| 0x20` lower-cases an ASCII letter, and only the
/// letter's two cases become `lower`.
fn letters(w: u64, lower: u8) -> u64 {
    let x = (w | (ONES * 0x20)) ^ (ONES * u64::from(lower));
    // The high bit of each byte that is zero (no borrow crosses bytes).
    !(((x & !HIGH) + !HIGH) | x) & HIGH
}

/// Whether `at` holds for the index of some ASCII digit of `b` (tried in order).
pub fn any_digit(b: &[u8], at: impl FnMut(usize) -> bool) -> bool {
    any_byte(b, digits, |c| c.is_ascii_digit(), at)
}

/// Whether `at` holds for the index of some byte of `b` that is the ASCII letter `lower` in
/// either case (tried in order).
pub fn any_letter(b: &[u8], lower: u8, at: impl FnMut(usize) -> bool) -> bool {
    debug_assert!(lower.is_ascii_lowercase());
    any_byte(b, |w| letters(w, lower), |c| c | 0x20 == lower, at)
}

/// Whether `at` holds for the index of some byte of `b` that `is` accepts (tried in order):
/// eight bytes at a time through `mask` (the same class as `is`, one flag per byte), so the
/// bytes around a match are read only where there is one, and a common byte costs no call
/// per match as a byte search does.
fn any_byte(
    b: &[u8],
    mask: impl Fn(u64) -> u64,
    is: impl Fn(u8) -> bool,
    mut at: impl FnMut(usize) -> bool,
) -> bool {
    let mut i = 0;
    while let Some(chunk) = b.get(i..i + 8) {
        let mut found = mask(word(chunk));
        while found != 0 {
            if at(i + (found.trailing_zeros() / 8) as usize) {
                return true;
            }
            found &= found - 1;
        }
        i += 8;
    }
    (i..b.len()).any(|k| is(b[k]) && at(k))
}

/// How many bytes of `bytes` are `b`: 32 bytes at a time in one byte per lane (a loop of
/// fixed length the compiler turns into two vector compares and a sum), then eight bytes
/// a word, then byte by byte. Line numbers count the newlines between two nearby offsets,
/// so most calls read a few dozen bytes: the tail matters as much as the blocks.
pub fn count_byte(bytes: &[u8], b: u8) -> usize {
    let mut blocks = bytes.chunks_exact(32);
    let mut n = 0;
    for block in &mut blocks {
        // At most 32 matches: a byte holds the sum.
        n += usize::from(
            block
                .iter()
                .fold(0u8, |k, &c| k.wrapping_add(u8::from(c == b))),
        );
    }
    let pattern = ONES * u64::from(b);
    let seven = !HIGH;
    let mut words = blocks.remainder().chunks_exact(8);
    for chunk in &mut words {
        let x = word(chunk) ^ pattern;
        // The high bit of each byte that is zero (exact: no borrow crosses bytes).
        n += ((!(((x & seven) + seven) | x) & HIGH) >> 7)
            .wrapping_mul(ONES)
            .wrapping_shr(56) as usize;
    }
    n + words.remainder().iter().filter(|&&c| c == b).count()
}

/// The lines of `text`, as `str::lines` gives them (split at `\n`, a `\r` just before it
/// dropped, no empty line after a last `\n`), found with `memchr` instead of the generic character
/// search, which costs several times more on the short lines of a code block.
pub fn lines(text: &str) -> Lines<'_> {
    Lines { rest: text }
}

/// See [`lines`].
#[derive(Clone)]
pub struct Lines<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        match memchr::memchr(b'\n', self.rest.as_bytes()) {
            // `\n` is one byte of ASCII: both sides are on character boundaries.
            Some(i) => {
                let line = self.rest.get(..i).unwrap_or_default();
                self.rest = self.rest.get(i + 1..).unwrap_or_default();
                Some(line.strip_suffix('\r').unwrap_or(line))
            }
            // A last line without `\n` keeps a `\r` it ends with, as `str::lines` does.
            None => Some(std::mem::take(&mut self.rest)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has_ascii_digit(s: &str) -> bool {
        any_digit(s.as_bytes(), |_| true)
    }

    #[test]
    fn digits_are_found_at_every_offset_and_only_digits() {
        for b in 0u8..=255 {
            for pad in 0..40 {
                let mut bytes = vec![b'x'; pad];
                bytes.push(b);
                bytes.extend(std::iter::repeat_n(b'y', 9));
                let text = String::from_utf8_lossy(&bytes).into_owned();
                assert_eq!(
                    has_ascii_digit(&text),
                    text.bytes().any(|c| c.is_ascii_digit()),
                    "byte {b:#x} at {pad}"
                );
            }
        }
        assert!(!has_ascii_digit("") && !has_ascii_digit("Straße ÿ/:@`"));
        assert!(has_ascii_digit("step 3") && has_ascii_digit("é9"));
        let text = "a1b22 é3 xxxxxxxx4yyyyyyyy 5 66";
        let mut seen = Vec::new();
        assert!(!any_digit(text.as_bytes(), |i| {
            seen.push(i);
            false
        }));
        let slow: Vec<usize> = (0..text.len())
            .filter(|&i| text.as_bytes()[i].is_ascii_digit())
            .collect();
        assert_eq!(seen, slow);
    }

    #[test]
    fn bytes_are_counted_at_every_offset_and_length() {
        let text: Vec<u8> = (0..700u32)
            .map(|i| [b'\n', b'a', 0x8a, b'\n', 0x0a ^ 0x80][(i * i % 7 % 5) as usize])
            .collect();
        for from in 0..80 {
            for len in [0, 1, 7, 8, 9, 63, 64, 65, 130, 200, 254, 255, 256, 511, 600] {
                let b = &text[from..(from + len).min(text.len())];
                for c in [b'\n', b'a', 0x8a, 0] {
                    assert_eq!(count_byte(b, c), b.iter().filter(|&&x| x == c).count());
                }
            }
        }
    }

    #[test]
    fn a_letter_is_found_in_either_case_at_every_offset_in_order() {
        let text: Vec<u8> = (0..200u32)
            .map(|i| [b'r', b'a', b'R', 0x72 ^ 0x80, b' ', 0x52 ^ 0x80][(i * i % 11 % 6) as usize])
            .collect();
        for from in 0..70 {
            for len in [0, 1, 7, 8, 9, 15, 16, 17, 64, 65, 100] {
                let b = &text[from..(from + len).min(text.len())];
                let mut seen = Vec::new();
                assert!(!any_letter(b, b'r', |i| {
                    seen.push(i);
                    false
                }));
                let slow: Vec<usize> = (0..b.len())
                    .filter(|&i| b[i].eq_ignore_ascii_case(&b'r'))
                    .collect();
                assert_eq!(seen, slow);
                // It stops at the first index `at` accepts.
                let mut asked = 0;
                let first = slow.get(1).copied();
                let hit = any_letter(b, b'r', |i| {
                    asked += 1;
                    Some(i) == first
                });
                assert_eq!(hit, first.is_some());
                assert_eq!(asked, slow.len().min(2));
            }
        }
    }

    #[test]
    fn a_block_of_nothing_but_the_byte_is_counted_whole() {
        // A block's matches are summed in one byte: a block of matches only must not wrap.
        for len in [31, 32, 33, 64, 255, 256, 257, 765, 1000] {
            assert_eq!(count_byte(&vec![b'\n'; len], b'\n'), len);
            assert_eq!(count_byte(&vec![b'\n'; len], b'a'), 0);
        }
    }

    #[test]
    fn the_next_escape_is_the_first_byte_json_escapes() {
        let slow = |b: &[u8], from: usize| {
            from + b[from..]
                .iter()
                .take_while(|&&c| !(c < 0x20 || c == b'"' || c == b'\\'))
                .count()
        };
        for b in 0u8..=255 {
            for pad in (0..17).chain([31, 32, 33, 40, 63, 64, 70]) {
                // A borrow from an escaped byte must not hide it behind a marked byte above.
                let mut bytes = vec![b'a'; pad];
                bytes.extend([b, 0x01, b'"', 0x21, 0x5c, 0x00]);
                for from in 0..bytes.len() {
                    assert_eq!(
                        next_json_escape(&bytes, from),
                        slow(&bytes, from),
                        "{b:#x} {pad} {from}"
                    );
                }
            }
        }
    }

    #[test]
    fn lines_are_those_of_str_lines() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "\r\n\r\n",
            "a\rb\n\n",
            "ü\nß\r",
            "\r",
            "x\r\r\ny",
            "\n\nz",
        ] {
            let ours: Vec<&str> = lines(text).collect();
            let std: Vec<&str> = text.lines().collect();
            assert_eq!(ours, std, "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn lines_match_str_lines(s in "[a\r\n\u{e9}\u{3042} ]{0,40}") {
            proptest::prop_assert_eq!(lines(&s).collect::<Vec<_>>(), s.lines().collect::<Vec<_>>());
        }
    }
}
