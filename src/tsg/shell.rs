//! PURE shell parser for probes: script text → a flat list of simple commands.
//!
//! Must not import IO (std::fs, std::process, tokio, network crates) nor any other tsgnav
//! module. It never fails and never panics: odd input yields fewer commands plus
//! [`Problem`]s. Nesting is bounded by [`MAX_DEPTH`] and the work is linear in the input
//! times that bound.
//!
//! API:
//! - [`parse`]`(script) -> Parsed { commands, problems }` and [`commands`]`(script)`.
//! - [`SimpleCommand`]: `words` after quote removal (`$VAR`, `${VAR}` and `$(…)` stay as
//!   written), `quoted` (per word: was any part quoted), prefix `assigns` (`X=1 cmd`),
//!   `redirects`, 1-based `line`, `nested_in` (`"$(…)"`, `` "`…`" ``, `"<(…)"`, `"sh -c"`,
//!   `"kubectl exec"` …) and `piped` (stdin comes from a pipe).
//!
//! Understood: `|`, `&&`, `||`, `;`, `&`, newlines, `\` continuations, comments, quotes,
//! `$(…)`/backticks/`<(…)` (parsed recursively), `for`/`while`/`until`/`if`/`case`, `{ }`,
//! `( )`, functions, heredocs (body skipped, but substitutions of an unquoted body are
//! parsed), `<placeholder>` words as TSGs write them, and the script of `sh -c '…'`,
//! `bash -c "…"`, `watch '…'` and the command after `--` of `kubectl exec … -- …` /
//! `oc exec … -- …`,
//! which are emitted as extra commands right after the command that holds them.

mod dquote;
mod group;
mod lex;
pub mod quoting;
mod subst;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_nested;

/// How deep substitutions, `sh -c` and `kubectl exec` may nest before parsing stops.
pub const MAX_DEPTH: usize = 16;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// `>`, `>>`, `>|`, `>&`, `&>`, `&>>`, `<`, `<<`, `<<-`, `<<<`, `<&` or `<>`.
    pub op: &'static str,
    /// The file descriptor written before the operator (`2` of `2>`), if any.
    pub fd: Option<u32>,
    pub target: String,
}

impl Redirect {
    /// Whether it writes to a file (not a descriptor, not `/dev/null` or a standard stream).
    pub fn writes_file(&self) -> bool {
        let writes = matches!(self.op, ">" | ">>" | ">|" | "&>" | "&>>" | "<>" | ">&");
        let dup = self.op == ">&" && (self.target == "-" || self.target.parse::<u32>().is_ok());
        let harmless = matches!(
            self.target.as_str(),
            "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
        );
        writes && !dup && !harmless
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    pub words: Vec<String>,
    /// Parallel to `words`: whether any part of the word was quoted or escaped.
    pub quoted: Vec<bool>,
    /// Prefix assignments (`NAME=value`, value as written after quote removal).
    pub assigns: Vec<String>,
    pub redirects: Vec<Redirect>,
    /// 1-based line in the script.
    pub line: usize,
    pub nested_in: Option<String>,
    /// Its standard input comes from a pipe.
    pub piped: bool,
}

impl SimpleCommand {
    /// The command name without its directory (`/usr/bin/kubectl` → `kubectl`).
    pub fn name(&self) -> Option<&str> {
        self.words.first().map(|w| basename(w))
    }

    /// The command as a person would read it: assignments, words (quoted again where they
    /// hold spaces) and redirections.
    pub fn text(&self) -> String {
        let quote = |w: &str| {
            if w.is_empty() || w.contains(char::is_whitespace) {
                format!("'{w}'")
            } else {
                w.to_string()
            }
        };
        let mut parts: Vec<String> = self.assigns.iter().map(|a| quote(a)).collect();
        parts.extend(self.words.iter().map(|w| quote(w)));
        parts.extend(self.redirects.iter().map(|r| {
            let fd = r.fd.map(|n| n.to_string()).unwrap_or_default();
            format!("{fd}{}{}", r.op, quote(&r.target))
        }));
        parts.join(" ")
    }
}

/// Something the parser could not follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A quote, backtick or `$(` is never closed.
    Unterminated { line: usize, what: &'static str },
    /// Nesting went past [`MAX_DEPTH`]; the inside was not read.
    TooDeep { line: usize },
}

impl Problem {
    pub fn line(&self) -> usize {
        match self {
            Problem::Unterminated { line, .. } | Problem::TooDeep { line } => *line,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub commands: Vec<SimpleCommand>,
    pub problems: Vec<Problem>,
    /// Quoting by byte position and the expansions bash performs (see [`quoting`]).
    pub quoting: quoting::QuoteMap,
}

/// The parse of a probe's code kept on the probe when the guide is read (`Probe::lexed`), so
/// the classifier does not lex the same text again. It holds the text it was made from: a
/// reader uses it only while the probe's code is still that text ([`Lexed::of`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lexed {
    code: String,
    pub commands: Vec<SimpleCommand>,
    pub problems: Vec<Problem>,
}

impl Lexed {
    /// Keeps the commands and problems of `parsed`, the parse of `code`.
    pub fn new(code: &str, parsed: Parsed) -> Self {
        Lexed {
            code: code.to_string(),
            commands: parsed.commands,
            problems: parsed.problems,
        }
    }

    /// `lexed` when it is the parse of `code`, else nothing (the code changed since).
    pub fn of<'a>(lexed: Option<&'a Lexed>, code: &str) -> Option<&'a Lexed> {
        lexed.filter(|l| l.code == code)
    }
}

/// A probe's kept parse, if any (`Probe::lexed`). It is a memo, not part of what the probe
/// is: it prints the same whether it is there or not, so a guide parsed and the same guide
/// read back from the cache (which keeps no parse) print alike.
#[derive(Clone, Default)]
pub struct Kept(pub Option<std::sync::Arc<Lexed>>);

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Kept")
    }
}

/// Parse a script. Never fails.
pub fn parse(script: &str) -> Parsed {
    parse_at(script, 1, 0, None)
}

/// The simple commands of a script (see [`parse`] for the problems too).
pub fn commands(script: &str) -> Vec<SimpleCommand> {
    parse(script).commands
}

/// `/usr/local/bin/kubectl` → `kubectl`.
pub fn basename(word: &str) -> &str {
    match word.rsplit('/').next() {
        Some(base) if !base.is_empty() => base,
        _ => word,
    }
}

/// Parse `text` whose first line is `line`, nested `depth` deep inside `ctx`.
fn parse_at(text: &str, line: usize, depth: usize, ctx: Option<&str>) -> Parsed {
    group::group(lex::Lexer::new(text, line, depth).run(), depth, ctx)
}
