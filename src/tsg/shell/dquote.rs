//! The lexer's double-quoted strings (`"…"`: escapes, expansions and substitutions inside)
//! and its step over one UTF-8 character. Pure; must not import IO nor any tsgnav module
//! outside `tsg::shell`.

use super::lex::Lexer;
use super::quoting::Quoting;
use super::Problem;

impl Lexer<'_> {
    pub(super) fn char_len(&self, i: usize) -> usize {
        (i + 1..=self.s.len())
            .find(|&e| self.src.is_char_boundary(e))
            .map_or(1, |e| e - i)
    }

    /// Body of a double-quoted string; `self.pos` is just after the opening quote.
    pub(super) fn dquote(&mut self, buf: &mut Vec<u8>) {
        while self.pos < self.s.len() {
            match self.s[self.pos] {
                b'"' => {
                    self.mark(self.pos, self.pos + 1);
                    self.pos += 1;
                    return;
                }
                b'\\' => match self.peek(1) {
                    Some(b'\n') => self.skip_to(self.pos + 2),
                    Some(c @ (b'"' | b'\\' | b'$' | b'`')) => {
                        buf.push(c);
                        self.map.mark(self.pos, self.pos + 2, Quoting::Escaped);
                        self.pos += 2;
                    }
                    _ => {
                        buf.push(b'\\');
                        self.mark(self.pos, self.pos + 1);
                        self.pos += 1;
                    }
                },
                b'$' => self.dollar(buf),
                b'`' => self.backtick(buf),
                b'\n' => {
                    buf.push(b'\n');
                    self.mark(self.pos, self.pos + 1);
                    self.skip_to(self.pos + 1);
                }
                c => {
                    buf.push(c);
                    self.mark(self.pos, self.pos + 1);
                    self.pos += 1;
                }
            }
        }
        self.problems.push(Problem::Unterminated {
            line: self.line,
            what: "\"",
        });
    }
}
