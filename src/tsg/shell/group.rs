//! Grouping for the shell parser: tokens → simple commands, skipping the words of
//! compound commands (`for … in`, `case … in`, `if`, `do`, `done` …) and re-parsing the
//! script of `sh -c` and the command after `--` of `kubectl exec`.
//!
//! Pure; must not import IO nor any tsgnav module outside `tsg::shell`.

use super::lex::{Lexer, Tok, Word};
use super::subst::{inner_of, Inner};
use super::{parse_at, Parsed, Problem, Redirect, SimpleCommand, MAX_DEPTH};

/// Group the tokens of one (possibly nested) script into simple commands.
pub(super) fn group(lexer: Lexer<'_>, depth: usize, ctx: Option<&str>) -> Parsed {
    let quoting = lexer.map.finish();
    let mut g = Grouper {
        depth,
        ctx,
        out: Vec::new(),
        problems: lexer.problems,
        cur: SimpleCommand::default(),
        mode: Mode::Normal,
        cases: Vec::new(),
        redir: None,
        fd: None,
        piped_next: false,
        func: false,
    };
    for tok in lexer.toks {
        match tok {
            Tok::Nested(cmds) => g.out.extend(cmds),
            Tok::Word(w) => g.word(w),
            Tok::Op(op, line) => g.op(op, line),
            Tok::Fd(fd) => g.fd = Some(fd),
        }
    }
    g.finish(false);
    Parsed {
        commands: g.out,
        problems: g.problems,
        quoting,
    }
}

#[derive(PartialEq)]
enum Mode {
    Normal,
    /// After `for`/`select`, until `do`.
    ForHeader,
    /// After `case`, until `in`.
    CaseHeader,
    /// After `function`: the name.
    FuncName,
    /// Inside `NAME=( … )`.
    Array,
}

#[derive(PartialEq)]
enum Case {
    Pattern,
    Body,
}

struct Grouper<'c> {
    depth: usize,
    ctx: Option<&'c str>,
    out: Vec<SimpleCommand>,
    problems: Vec<Problem>,
    cur: SimpleCommand,
    mode: Mode,
    cases: Vec<Case>,
    redir: Option<(&'static str, Option<u32>)>,
    fd: Option<u32>,
    piped_next: bool,
    func: bool,
}

fn is_assignment(w: &Word) -> bool {
    let Some(eq) = w.text.find('=') else {
        return false;
    };
    let name = w.text[..eq].trim_end_matches('+');
    let mut chars = name.chars();
    eq < w.bare
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Grouper<'_> {
    fn is_empty(&self) -> bool {
        self.cur.words.is_empty() && self.cur.assigns.is_empty() && self.cur.redirects.is_empty()
    }

    fn start(&mut self, line: usize) {
        if self.is_empty() {
            self.cur.line = line;
            self.cur.piped = self.piped_next;
            self.cur.nested_in = self.ctx.map(str::to_string);
        }
    }

    fn word(&mut self, w: Word) {
        self.fd = None;
        if let Some((op, fd)) = self.redir.take() {
            self.start(w.line);
            self.cur.redirects.push(Redirect {
                op,
                fd,
                target: w.text,
            });
            return;
        }
        let kw = |k: &str| !w.quoted && w.text == k;
        match self.mode {
            Mode::ForHeader => {
                if kw("do") {
                    self.mode = Mode::Normal;
                }
                return;
            }
            Mode::CaseHeader => {
                if kw("in") {
                    self.mode = Mode::Normal;
                    self.cases.push(Case::Pattern);
                }
                return;
            }
            Mode::FuncName => {
                self.mode = Mode::Normal;
                return;
            }
            Mode::Array => return,
            Mode::Normal => {}
        }
        if self.cases.last() == Some(&Case::Pattern) {
            if kw("esac") {
                self.cases.pop();
            }
            return;
        }
        if self.cur.words.is_empty() && !w.quoted {
            match w.text.as_str() {
                "if" | "then" | "else" | "elif" | "do" | "while" | "until" | "{" | "}" | "!"
                | "time" | "fi" | "done" => return,
                "esac" => {
                    self.cases.pop();
                    return;
                }
                "for" | "select" => {
                    self.mode = Mode::ForHeader;
                    return;
                }
                "case" => {
                    self.mode = Mode::CaseHeader;
                    return;
                }
                "function" => {
                    self.mode = Mode::FuncName;
                    return;
                }
                _ => {}
            }
        }
        self.start(w.line);
        if self.cur.words.is_empty() && is_assignment(&w) {
            self.cur.assigns.push(w.text);
        } else {
            self.cur.words.push(w.text);
            self.cur.quoted.push(w.quoted);
        }
    }

    fn op(&mut self, op: &'static str, line: usize) {
        if matches!(
            self.mode,
            Mode::ForHeader | Mode::CaseHeader | Mode::FuncName
        ) {
            return;
        }
        if self.mode == Mode::Array {
            if op == ")" {
                self.mode = Mode::Normal;
            }
            return;
        }
        if self.cases.last() == Some(&Case::Pattern) {
            if op == ")" {
                if let Some(top) = self.cases.last_mut() {
                    *top = Case::Body;
                }
            }
            return;
        }
        match op {
            "|" | "|&" => self.finish(true),
            "&&" | "||" | ";" | "&" | "\n" => self.finish(false),
            ";;" | ";&" | ";;&" => {
                self.finish(false);
                if let Some(top) = self.cases.last_mut() {
                    *top = Case::Pattern;
                }
            }
            "(" if self.cur.words.len() == 1 && self.cur.assigns.is_empty() => self.func = true,
            "(" if self.cur.words.is_empty()
                && self.cur.assigns.last().is_some_and(|a| a.ends_with('=')) =>
            {
                self.mode = Mode::Array;
            }
            "(" => self.finish(false),
            ")" if self.func => {
                self.func = false;
                self.cur = SimpleCommand::default();
            }
            ")" => self.finish(false),
            _ => {
                self.start(line);
                self.redir = Some((op, self.fd.take()));
            }
        }
    }

    fn finish(&mut self, pipe: bool) {
        self.redir = None;
        self.func = false;
        if !self.is_empty() {
            let cmd = std::mem::take(&mut self.cur);
            self.emit(cmd, self.depth);
        }
        self.piped_next = pipe;
    }

    /// Push `cmd`, then the commands it runs through `sh -c` or `kubectl exec … --`.
    fn emit(&mut self, cmd: SimpleCommand, depth: usize) {
        let inner = inner_of(&cmd);
        let line = cmd.line;
        self.out.push(cmd);
        let Some(inner) = inner else { return };
        if depth + 1 >= MAX_DEPTH {
            self.problems.push(Problem::TooDeep { line });
            return;
        }
        match inner {
            Inner::Script(text, ctx) => {
                let parsed = parse_at(&text, line, depth + 1, Some(&ctx));
                self.out.extend(parsed.commands);
                self.problems.extend(parsed.problems);
            }
            Inner::Words(words, quoted, ctx) => {
                let cmd = SimpleCommand {
                    words,
                    quoted,
                    line,
                    nested_in: Some(ctx),
                    ..Default::default()
                };
                self.emit(cmd, depth + 1);
            }
        }
    }
}
