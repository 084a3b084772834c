//! Tokenizer for the shell parser: turns script text into words and operators.
//!
//! Pure; must not import IO nor any tsgnav module outside `tsg::shell`. Substitutions
//! (`$(…)`, backticks, `<(…)`) are parsed through `super::parse_at` with a depth bound,
//! and their matching close is found by an iterative scan, so no input can exhaust the stack.

use super::quoting::{QuoteMap, Quoting};
use super::subst::{find_close, placeholder_len};
use super::{Problem, SimpleCommand};

/// A word after quote removal; `$VAR` and `$(…)` stay as written.
pub(super) struct Word {
    pub text: String,
    pub quoted: bool,
    /// Bytes of `text` before the first quoted or escaped character.
    pub bare: usize,
    pub line: usize,
}

pub(super) enum Tok {
    Word(Word),
    /// An operator (`|`, `&&`, `;`, `\n`, `(`, `>` …) and its line.
    Op(&'static str, usize),
    /// The file descriptor written right before a redirection (`2` of `2>`).
    Fd(u32),
    /// Commands found inside a substitution or a heredoc body.
    Nested(Vec<SimpleCommand>),
}

pub(super) struct Lexer<'a> {
    pub(super) src: &'a str,
    pub(super) s: &'a [u8],
    pub(super) pos: usize,
    pub(super) line: usize,
    pub(super) depth: usize,
    pub(super) toks: Vec<Tok>,
    pub(super) problems: Vec<Problem>,
    pub(super) heredoc_next: bool,
    pub(super) heredocs: Vec<(String, bool)>,
    /// Every heredoc delimiter seen, in order, with whether it was `<<-` (tabs stripped).
    pub(super) opened: Vec<(String, bool)>,
    heredoc_strip: bool,
    /// Quoting by byte position, and the expansions bash performs.
    pub(super) map: QuoteMap,
    /// The quoting in force where the lexer is.
    pub(super) quoting: Quoting,
}

fn is_meta(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t' | b'\r' | b'\n' | b'|' | b'&' | b';' | b'(' | b')' | b'<' | b'>'
    )
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str, line: usize, depth: usize) -> Self {
        Lexer {
            src,
            s: src.as_bytes(),
            pos: 0,
            line,
            depth,
            toks: Vec::new(),
            problems: Vec::new(),
            heredoc_next: false,
            heredocs: Vec::new(),
            opened: Vec::new(),
            heredoc_strip: false,
            map: QuoteMap::default(),
            quoting: Quoting::Bare,
        }
    }

    pub(super) fn peek(&self, k: usize) -> Option<u8> {
        self.s.get(self.pos + k).copied()
    }

    fn op(&mut self, op: &'static str) {
        self.pos += op.len();
        self.toks.push(Tok::Op(op, self.line));
    }

    pub fn run(mut self) -> Self {
        while self.pos < self.s.len() {
            let c = self.s[self.pos];
            match c {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\\' if self.peek(1) == Some(b'\n') => {
                    self.pos += 2;
                    self.line += 1;
                }
                b'\n' => {
                    self.op("\n");
                    self.line += 1;
                    self.heredoc_bodies();
                }
                b'#' => {
                    let rest = &self.s[self.pos..];
                    let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                    self.map.mark(self.pos, self.pos + len, Quoting::Comment);
                    self.pos += len;
                }
                b'|' => match self.peek(1) {
                    Some(b'|') => self.op("||"),
                    Some(b'&') => self.op("|&"),
                    _ => self.op("|"),
                },
                b'&' => match (self.peek(1), self.peek(2)) {
                    (Some(b'&'), _) => self.op("&&"),
                    (Some(b'>'), Some(b'>')) => self.op("&>>"),
                    (Some(b'>'), _) => self.op("&>"),
                    _ => self.op("&"),
                },
                b';' => match (self.peek(1), self.peek(2)) {
                    (Some(b';'), Some(b'&')) => self.op(";;&"),
                    (Some(b';'), _) => self.op(";;"),
                    (Some(b'&'), _) => self.op(";&"),
                    _ => self.op(";"),
                },
                b'(' if self.peek(1) == Some(b'(') => {
                    // `(( … ))` is an arithmetic command when its two parentheses close
                    // together; otherwise bash reads two nested subshells (`((cmd) )`).
                    let outer = find_close(self.s, self.pos);
                    let inner = find_close(self.s, self.pos + 1);
                    match (outer, inner) {
                        (Some(o), Some(i)) if i + 1 == o => self.arithmetic(o),
                        _ => self.op("("),
                    }
                }
                b'(' => self.op("("),
                b')' => self.op(")"),
                b'<' if placeholder_len(self.s, self.pos).is_some() => self.word(),
                b'<' | b'>' if self.peek(1) == Some(b'(') => self.word(),
                b'<' => self.redirect_in(),
                b'>' => match self.peek(1) {
                    Some(b'>') => self.op(">>"),
                    Some(b'|') => self.op(">|"),
                    Some(b'&') => self.op(">&"),
                    _ => self.op(">"),
                },
                _ => self.word(),
            }
        }
        self
    }

    /// The arithmetic command `(( EXPR ))` ending at `close`: emitted as the words `((` and
    /// `EXPR`, so a classifier can judge the expression (bash evaluates variables in it).
    fn arithmetic(&mut self, close: usize) {
        let line = self.line;
        let expr = String::from_utf8_lossy(&self.s[self.pos + 2..close - 1]).into_owned();
        self.mark(self.pos, close + 1);
        self.scan_dollars(self.pos + 2, close);
        for text in ["((".to_string(), expr] {
            let bare = text.len();
            self.toks.push(Tok::Word(Word {
                text,
                quoted: false,
                bare,
                line,
            }));
        }
        self.skip_to(close + 1);
        self.toks.push(Tok::Op(";", self.line));
    }

    fn redirect_in(&mut self) {
        match (self.peek(1), self.peek(2)) {
            (Some(b'<'), Some(b'<')) => self.op("<<<"),
            (Some(b'<'), Some(b'-')) => {
                self.op("<<-");
                self.heredoc_next = true;
                self.heredoc_strip = true;
            }
            (Some(b'<'), _) => {
                self.op("<<");
                self.heredoc_next = true;
                self.heredoc_strip = false;
            }
            (Some(b'&'), _) => self.op("<&"),
            (Some(b'>'), _) => self.op("<>"),
            _ => self.op("<"),
        }
    }

    /// Advance to `end`, counting the newlines passed.
    pub(super) fn skip_to(&mut self, end: usize) {
        let end = end.min(self.s.len());
        self.line += self.s[self.pos..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.pos = end;
    }

    fn word(&mut self) {
        let mut buf: Vec<u8> = Vec::new();
        let mut bare: Option<usize> = None;
        let line = self.line;
        while self.pos < self.s.len() {
            let c = self.s[self.pos];
            match c {
                b'<' | b'>' if buf.is_empty() && self.peek(1) == Some(b'(') => {
                    self.paren_subst(self.pos + 1, &mut buf, "<(…)");
                }
                b'<' => match placeholder_len(self.s, self.pos) {
                    Some(n) => {
                        buf.extend_from_slice(&self.s[self.pos..self.pos + n]);
                        self.mark(self.pos, self.pos + n);
                        self.pos += n;
                    }
                    None => break,
                },
                _ if is_meta(c) => break,
                b'\\' => {
                    bare.get_or_insert(buf.len());
                    match self.peek(1) {
                        Some(b'\n') => self.skip_to(self.pos + 2),
                        Some(_) => {
                            let n = self.char_len(self.pos + 1);
                            self.map.mark(self.pos, self.pos + 1 + n, Quoting::Escaped);
                            buf.extend_from_slice(&self.s[self.pos + 1..self.pos + 1 + n]);
                            self.pos += 1 + n;
                        }
                        None => {
                            buf.push(b'\\');
                            self.pos += 1;
                        }
                    }
                }
                b'\'' => {
                    bare.get_or_insert(buf.len());
                    let rest = &self.s[self.pos + 1..];
                    let len = rest.iter().position(|&b| b == b'\'').unwrap_or_else(|| {
                        self.problems.push(Problem::Unterminated {
                            line: self.line,
                            what: "'",
                        });
                        rest.len()
                    });
                    buf.extend_from_slice(&rest[..len]);
                    let end = (self.pos + 2 + len).min(self.s.len());
                    self.map.mark(self.pos, end, Quoting::Single);
                    self.skip_to(end);
                }
                b'"' => {
                    bare.get_or_insert(buf.len());
                    self.quoting = Quoting::Double;
                    self.mark(self.pos, self.pos + 1);
                    self.pos += 1;
                    self.dquote(&mut buf);
                    self.quoting = Quoting::Bare;
                }
                b'$' if self.peek(1) == Some(b'\'') => {
                    bare.get_or_insert(buf.len());
                    self.map.mark(self.pos, self.pos + 1, Quoting::Single);
                    self.pos += 1;
                }
                b'$' => self.dollar(&mut buf),
                b'`' => self.backtick(&mut buf),
                _ => {
                    // The run of plain bytes from here, taken at once (each would come to this
                    // arm): most of a word is letters, digits and punctuation no arm reads.
                    let run = self.s[self.pos..]
                        .iter()
                        .take_while(|&&b| {
                            !is_meta(b) && !matches!(b, b'\\' | b'\'' | b'"' | b'$' | b'`')
                        })
                        .count()
                        .max(1);
                    buf.extend_from_slice(&self.s[self.pos..self.pos + run]);
                    self.mark(self.pos, self.pos + run);
                    self.pos += run;
                }
            }
        }
        // The word's bytes are the script's, cut at ASCII bytes: whole UTF-8, kept as they are.
        let text = String::from_utf8(buf)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        let quoted = bare.is_some();
        // A bare number right before `<` or `>` is a file descriptor, not a word.
        if !quoted && !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            if let (Some(b'<' | b'>'), Ok(fd)) = (self.peek(0), text.parse()) {
                self.toks.push(Tok::Fd(fd));
                return;
            }
        }
        if std::mem::take(&mut self.heredoc_next) {
            self.heredocs.push((text.clone(), quoted));
            self.opened.push((text.clone(), self.heredoc_strip));
        }
        let bare = bare.unwrap_or(text.len());
        self.toks.push(Tok::Word(Word {
            text,
            quoted,
            bare,
            line,
        }));
    }
}
