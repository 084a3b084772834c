//! Shell builtins that change what later commands do: `trap` (runs a command later),
//! `alias`/`hash`/`enable` (change what a name runs), arithmetic (`(( ))`, `$(( ))`, `let`,
//! `[[ -eq ]]`, where bash evaluates a variable's value as an expression, and a value such as
//! `a[$(cmd)]` runs a command), and environment variables that make a tool run another
//! program (`KUBECTL_EXTERNAL_DIFF`, `BASH_ENV`, `LD_PRELOAD`, `PATH` …).
//!
//! Pure; imports only `crate::tsg`.

use super::args::{read_only, unknown, Class};

/// The first `NAME=value` among `words` that sets a variable `super::hidden` names dangerous.
pub(super) fn dangerous_assignment<'a>(words: impl IntoIterator<Item = &'a str>) -> Option<Class> {
    words.into_iter().find_map(|w| {
        let (name, _) = w.split_once('=')?;
        super::hidden::dangerous_name(name).then(|| {
            unknown(format!(
                "sets `{name}`, which makes later commands run a program or read a file of the \
                 script's choosing"
            ))
        })
    })
}

/// Whether an arithmetic expression names a variable (whose value bash would evaluate).
fn names_variable(expr: &str) -> bool {
    expr.chars().any(|c| c.is_ascii_alphabetic() || c == '_')
}

/// Every `$(( … ))` in `word` that names a variable: its text.
pub(super) fn risky_arithmetic(word: &str) -> Option<String> {
    // Most words have no `$` at all (one byte search, not a substring search's set-up).
    memchr::memchr(b'$', word.as_bytes())?;
    let mut rest = word;
    while let Some(at) = rest.find("$((") {
        let tail = &rest[at + 3..];
        let end = tail.find("))").unwrap_or(tail.len());
        if names_variable(&tail[..end]) {
            return Some(format!("$(({}))", &tail[..end]));
        }
        rest = &tail[end.min(tail.len())..];
    }
    None
}

fn arithmetic(expr: &str) -> Class {
    if names_variable(expr) {
        unknown(format!(
            "the arithmetic `{}` evaluates variables, and bash runs the command in a value \
             such as `a[$(cmd)]`",
            expr.trim()
        ))
    } else {
        read_only("arithmetic on literal numbers only computes")
    }
}

/// A builtin of this module, or `None`.
pub(super) fn builtin(name: &str, args: &[String]) -> Option<Class> {
    let flags_only = args.iter().all(|a| a.starts_with('-'));
    if let Some(c) = super::hidden::assigning_builtin(name, args) {
        return Some(c);
    }
    Some(match name {
        "((" => arithmetic(&args.join(" ")),
        "let" => arithmetic(&args.join(" ")),
        "[[" => {
            let arith = args
                .iter()
                .any(|a| matches!(a.as_str(), "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge"));
            if arith && args.iter().any(|a| a.contains('$') || names_variable(a) && !a.starts_with('-')) {
                unknown("`[[ … -eq … ]]` evaluates its operands as arithmetic, and bash runs \
                         the command in a value such as `a[$(cmd)]`")
            } else {
                read_only("`[[ … ]]` only tests")
            }
        }
        "trap" => match args.first().map(String::as_str) {
            None | Some("-l" | "-p") => read_only("`trap` alone only lists the traps"),
            Some("" | "-") => read_only("`trap` resets a signal's handler"),
            Some(action) => unknown(format!(
                "`trap` runs `{action}` later, when the signal arrives; tsgnav does not run \
                 deferred commands unconfirmed"
            )),
        },
        "alias" if args.iter().any(|a| a.contains('=')) => unknown(
            "`alias` changes what a later command name runs, so the commands after it cannot be checked",
        ),
        "alias" | "unalias" => read_only(format!("`{name}` only lists or removes aliases")),
        "hash" if flags_only && !args.iter().any(|a| a.starts_with("-p")) => {
            read_only("`hash` only lists or forgets remembered paths")
        }
        "hash" => unknown(
            "`hash` with a name or `-p` changes which program a later command name runs",
        ),
        "enable" if flags_only => read_only("`enable` alone only lists the builtins"),
        "enable" => unknown("`enable` loads or switches builtins, changing what a later name runs"),
        "declare" | "typeset" | "local" | "export" | "readonly"
            if args.iter().any(|a| a.starts_with('-') && a.contains('i')) =>
        {
            unknown(format!(
                "`{name} -i` evaluates the value as arithmetic, and bash runs the command in a value such as `a[$(cmd)]`"
            ))
        }
        "declare" | "typeset" | "local" | "export" | "readonly" => {
            match super::hidden::declaring(name, args) {
                Some(c) => c,
                None => read_only(format!("`{name}` only sets shell variables")),
            }
        }
        "history" if args.iter().any(|a| a.starts_with('-')) => {
            unknown("`history` with a flag writes or changes the history file")
        }
        _ => return None,
    })
}
