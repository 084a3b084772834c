//! Substitutions for the shell tokenizer: `$(…)`, backticks, `<(…)`, `${…}`, `$((…))` and
//! heredoc bodies. Inner scripts go back through `super::parse_at` with `depth + 1`.
//!
//! Pure; must not import IO nor any tsgnav module outside `tsg::shell`.

use super::lex::{Lexer, Tok};
use super::quoting::Quoting;
use super::{basename, Problem, SimpleCommand, MAX_DEPTH};

const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "ash"];

/// Length of a `<placeholder>` (as TSGs write `<pod-name>`) starting at `i`, if there is one.
pub(super) fn placeholder_len(s: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    let mut last_space = true;
    while j < s.len() && j - i <= 64 {
        let c = s[j];
        if c == b'>' && !last_space && j > i + 1 {
            return Some(j + 1 - i);
        }
        if c == b' ' && !last_space {
            last_space = true;
        } else if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'*' | b':') {
            last_space = false;
        } else {
            return None;
        }
        j += 1;
    }
    None
}

/// Index of the `)` closing the `(` at `open`, skipping quotes and nested parentheses.
pub(super) fn find_close(s: &[u8], open: usize) -> Option<usize> {
    let mut stack: Vec<u8> = vec![b'('];
    let mut i = open + 1;
    while i < s.len() {
        let c = s[i];
        match stack.last().copied().unwrap_or(b'(') {
            b'"' => match c {
                b'\\' => i += 1,
                b'"' => drop(stack.pop()),
                b'$' if s.get(i + 1) == Some(&b'(') => {
                    stack.push(b'(');
                    i += 1;
                }
                b'`' => stack.push(b'`'),
                _ => {}
            },
            b'`' => match c {
                b'\\' => i += 1,
                b'`' => drop(stack.pop()),
                _ => {}
            },
            _ => match c {
                b'\\' => i += 1,
                b'\'' => i += s[i + 1..].iter().position(|&b| b == b'\'')? + 1,
                b'"' | b'`' | b'(' => stack.push(c),
                b')' => {
                    stack.pop();
                    if stack.is_empty() {
                        return Some(i);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

impl Lexer<'_> {
    /// Parse `inner` (a byte range of the source) as a nested script.
    pub(super) fn nested(&mut self, start: usize, end: usize, ctx: &str) -> Vec<SimpleCommand> {
        if self.depth + 1 >= MAX_DEPTH {
            self.problems.push(Problem::TooDeep { line: self.line });
            return Vec::new();
        }
        let text = self.src.get(start..end).unwrap_or("");
        let parsed = super::parse_at(text, self.line, self.depth + 1, Some(ctx));
        self.problems.extend(parsed.problems);
        self.map.nest(parsed.quoting, start);
        parsed.commands
    }

    /// `$(…)`, `<(…)` or `>(…)` whose `(` is at `open`; appends the raw text to `buf`.
    pub(super) fn paren_subst(&mut self, open: usize, buf: &mut Vec<u8>, ctx: &str) {
        let start = self.pos;
        let (close, end) = match find_close(self.s, open) {
            Some(c) => (c, c + 1),
            None => {
                self.problems.push(Problem::Unterminated {
                    line: self.line,
                    what: "$(",
                });
                (self.s.len(), self.s.len())
            }
        };
        self.mark(start, open + 1);
        self.mark(close, end);
        let cmds = self.nested(open + 1, close, ctx);
        if !cmds.is_empty() {
            self.toks.push(Tok::Nested(cmds));
        }
        buf.extend_from_slice(&self.s[start..end]);
        self.skip_to(end);
    }

    /// A backtick substitution starting at `self.pos`.
    pub(super) fn backtick(&mut self, buf: &mut Vec<u8>) {
        let start = self.pos;
        let mut i = start + 1;
        let mut inner = String::new();
        let mut closed = false;
        while i < self.s.len() {
            match self.s[i] {
                b'\\' if matches!(self.s.get(i + 1), Some(b'`' | b'\\' | b'$')) => {
                    inner.push(char::from(self.s[i + 1]));
                    i += 2;
                    continue;
                }
                b'`' => {
                    closed = true;
                    break;
                }
                _ => {}
            }
            let ch_end = (i + 1..=self.s.len()).find(|&e| self.src.is_char_boundary(e));
            let ch_end = ch_end.unwrap_or(self.s.len());
            inner.push_str(self.src.get(i..ch_end).unwrap_or(""));
            i = ch_end;
        }
        if !closed {
            self.problems.push(Problem::Unterminated {
                line: self.line,
                what: "`",
            });
        }
        let end = if closed { i + 1 } else { i };
        self.mark(start, start + 1);
        if closed {
            self.mark(i, end);
        }
        if self.depth + 1 >= MAX_DEPTH {
            self.problems.push(Problem::TooDeep { line: self.line });
        } else {
            let parsed = super::parse_at(&inner, self.line, self.depth + 1, Some("`…`"));
            self.problems.extend(parsed.problems);
            // Positions inside carry over only when no escape changed the text.
            if inner.len() + 1 + usize::from(closed) == end - start {
                self.map.nest(parsed.quoting, start + 1);
            }
            if !parsed.commands.is_empty() {
                self.toks.push(Tok::Nested(parsed.commands));
            }
        }
        buf.extend_from_slice(&self.s[start..end]);
        self.skip_to(end);
    }

    /// `$…` at `self.pos` outside single quotes.
    pub(super) fn dollar(&mut self, buf: &mut Vec<u8>) {
        match (self.peek(1), self.peek(2)) {
            (Some(b'('), Some(b'(')) => {
                let start = self.pos;
                let end = find_close(self.s, self.pos + 1).map_or(self.s.len(), |c| c + 1);
                buf.extend_from_slice(&self.s[start..end]);
                self.mark(start, end);
                self.scan_dollars(start + 3, end);
                self.skip_to(end);
            }
            (Some(b'('), _) => self.paren_subst(self.pos + 1, buf, "$(…)"),
            (Some(b'{'), _) => {
                let rest = &self.s[self.pos..];
                let len = rest
                    .iter()
                    .position(|&b| b == b'}')
                    .map_or(rest.len(), |p| p + 1);
                buf.extend_from_slice(&rest[..len]);
                self.record_expansion(self.pos + len);
                self.mark(self.pos, self.pos + len);
                self.skip_to(self.pos + len);
            }
            _ => {
                buf.push(b'$');
                self.record_expansion(self.s.len());
                self.mark(self.pos, self.pos + 1);
                self.pos += 1;
            }
        }
    }

    /// Skip the bodies of the heredocs opened on the line just ended; an unquoted body
    /// still runs its substitutions, so those are parsed.
    pub(super) fn heredoc_bodies(&mut self) {
        for (delim, quoted) in std::mem::take(&mut self.heredocs) {
            let body_start = self.pos;
            let mut body_end = self.s.len();
            let mut i = self.pos;
            while i < self.s.len() {
                let eol = self.s[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(self.s.len(), |p| i + p);
                if self.src.get(i..eol).map(str::trim) == Some(delim.as_str()) {
                    body_end = i;
                    i = (eol + 1).min(self.s.len());
                    break;
                }
                i = (eol + 1).min(self.s.len());
            }
            let line = self.line;
            if quoted {
                let q = Quoting::Heredoc { quoted: true };
                self.map.mark(body_start, body_end, q);
            } else {
                self.quoting = Quoting::Heredoc { quoted: false };
                self.body_substitutions(body_start, body_end);
                self.quoting = Quoting::Bare;
            }
            self.pos = body_start;
            self.line = line;
            self.skip_to(i);
        }
    }

    fn body_substitutions(&mut self, start: usize, end: usize) {
        self.pos = start;
        let mut sink = Vec::new();
        while self.pos < end {
            match self.s[self.pos] {
                b'\\' => {
                    let end = (self.pos + 2).min(end);
                    self.map.mark(self.pos, end, Quoting::Escaped);
                    self.skip_to(end);
                }
                b'$' => self.dollar(&mut sink),
                b'`' => self.backtick(&mut sink),
                _ => {
                    self.mark(self.pos, self.pos + 1);
                    self.skip_to(self.pos + 1);
                }
            }
            sink.clear();
        }
    }
}

pub(super) enum Inner {
    Script(String, String),
    Words(Vec<String>, Vec<bool>, String),
}

/// The script of `sh -c SCRIPT` or `watch 'SCRIPT'`, or the command after `--` of
/// `kubectl exec`, if any.
pub(super) fn inner_of(cmd: &SimpleCommand) -> Option<Inner> {
    let w = &cmd.words;
    for (i, word) in w.iter().enumerate() {
        let base = basename(word);
        if SHELLS.contains(&base) {
            let mut j = i + 1;
            while let Some(flag) = w
                .get(j)
                .filter(|f| f.starts_with('-') || f.starts_with('+'))
            {
                if flag == "-o" || flag == "+o" {
                    j += 2;
                    continue;
                }
                if !flag.starts_with("--") && flag[1..].contains('c') {
                    let script = w.get(j + 1)?;
                    return Some(Inner::Script(script.clone(), format!("{base} -c")));
                }
                j += 1;
            }
        }
        if base == "watch" {
            let mut j = i + 1;
            while let Some(flag) = w.get(j).filter(|f| f.starts_with('-')) {
                j += if flag == "-n" || flag == "--interval" {
                    2
                } else {
                    1
                };
            }
            if j + 1 == w.len() && w[j].contains(' ') {
                return Some(Inner::Script(w[j].clone(), "watch".into()));
            }
        }
        if base == "kubectl" || base == "oc" {
            let rest = &w[i + 1..];
            let Some(exec) = rest.iter().position(|x| x == "exec") else {
                continue;
            };
            let Some(dash) = rest[exec..].iter().position(|x| x == "--") else {
                continue;
            };
            let from = i + 1 + exec + dash + 1;
            if from < w.len() {
                let quoted = cmd
                    .quoted
                    .get(from..)
                    .map(<[bool]>::to_vec)
                    .unwrap_or_default();
                return Some(Inner::Words(
                    w[from..].to_vec(),
                    quoted,
                    format!("{base} exec"),
                ));
            }
        }
    }
    None
}
