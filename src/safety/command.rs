//! One simple command → its class: redirections, wrappers (`sudo`, `xargs`, `watch`,
//! `timeout` …), the command name, then the tool's own rules.
//!
//! Pure; imports only `crate::tsg`.

use super::args::{interactive, long_running, mutating, read_only, unknown, worse, Class};
use super::{azure, builtins, kube, net, ops, tools, unix, writers};
use crate::tsg::shell::{basename, SimpleCommand};

/// The class of one simple command and why.
pub(super) fn classify_command(cmd: &SimpleCommand) -> Class {
    let mut class = classify_words(&cmd.words, cmd.piped, !cmd.assigns.is_empty());
    if let Some(c) = builtins::dangerous_assignment(cmd.assigns.iter().map(String::as_str)) {
        class = worse(class, c);
    }
    let words = cmd.words.iter().chain(&cmd.assigns);
    if let Some(expr) = words.filter_map(|w| builtins::risky_arithmetic(w)).next() {
        class = worse(
            class,
            unknown(format!(
                "the arithmetic `{expr}` evaluates variables, and bash runs the command in a \
                 value such as `a[$(cmd)]`"
            )),
        );
    }
    let words = cmd.words.iter().chain(&cmd.assigns);
    if let Some(c) = words
        .filter_map(|w| super::hidden::hidden_expansion(w))
        .next()
    {
        class = worse(class, c);
    }
    for r in cmd.redirects.iter().filter(|r| r.writes_file()) {
        class = worse(
            class,
            mutating(format!("writes to the file `{}`", r.target)),
        );
    }
    class
}

/// Flags of wrapper commands that take a value.
fn wrapper_value_flag(name: &str, flag: &str) -> bool {
    match name {
        "sudo" | "doas" => matches!(
            flag,
            "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-r" | "-t" | "-U"
        ),
        "xargs" => matches!(
            flag,
            "-I" | "-n"
                | "-P"
                | "-L"
                | "-d"
                | "-E"
                | "-s"
                | "-a"
                | "--max-args"
                | "--max-procs"
                | "--delimiter"
                | "--arg-file"
                | "--max-lines"
                | "--replace"
        ),
        "watch" => matches!(flag, "-n" | "--interval" | "-q" | "--equexit"),
        "nice" => matches!(flag, "-n" | "--adjustment"),
        "timeout" => matches!(flag, "-s" | "--signal" | "-k" | "--kill-after"),
        "stdbuf" => matches!(flag, "-i" | "-o" | "-e"),
        "env" => matches!(
            flag,
            "-u" | "--unset" | "-C" | "--chdir" | "-S" | "--split-string"
        ),
        "exec" => flag == "-a",
        "time" => matches!(flag, "-o" | "--output" | "-f" | "--format"),
        "ionice" => matches!(flag, "-c" | "-n" | "-p" | "--class" | "--classdata"),
        _ => false,
    }
}

/// Skip a wrapper's own flags (and `env`'s `NAME=value`s); return the index of its command.
fn skip_wrapper(name: &str, words: &[String]) -> usize {
    let mut i = 1;
    while let Some(w) = words.get(i) {
        if w == "--" {
            return i + 1;
        }
        if name == "env" && w.contains('=') && !w.starts_with('-') {
            i += 1;
            continue;
        }
        if !w.starts_with('-') || w.len() < 2 {
            break;
        }
        let value_inline = w.contains('=') || (w.len() > 2 && !w.starts_with("--"));
        i += if wrapper_value_flag(name, w) && !value_inline {
            2
        } else {
            1
        };
    }
    if name == "timeout" {
        i += 1; // the duration
    }
    i
}

/// `class`, raised to `floor` (what a wrapper such as `watch` adds) when that is worse.
fn with_floor(floor: Option<Class>, class: Class) -> Class {
    match floor {
        Some(f) => worse(class, f),
        None => class,
    }
}

/// Classify a command given as words, unwrapping wrappers iteratively.
pub(super) fn classify_words(words: &[String], piped: bool, assigns: bool) -> Class {
    let mut w = words;
    let mut floor: Option<Class> = None;
    loop {
        let Some(first) = w.first() else {
            let none = if assigns {
                read_only("only sets shell variables")
            } else {
                read_only("runs nothing")
            };
            return with_floor(floor, none);
        };
        if first == "$" {
            // A copied prompt (`$ kubectl …`): judge the command the reader means.
            w = &w[1..];
            continue;
        }
        if first.starts_with('$') || first.contains("$(") || first.contains('`') {
            return unknown(format!(
                "the command name `{first}` comes from a variable or substitution, so tsgnav cannot tell what runs"
            ));
        }
        if first.starts_with('<') && first.ends_with('>') {
            return unknown(format!(
                "`{first}` is a placeholder in place of the command, so tsgnav cannot tell what runs"
            ));
        }
        let name = basename(first);
        match name {
            "sudo" | "doas" | "env" | "nohup" | "command" | "builtin" | "exec" | "nice"
            | "stdbuf" | "ionice" | "time" | "timeout" | "xargs" | "watch" => {
                if name == "watch" {
                    floor = Some(long_running(
                        "`watch` reruns the command until it is stopped",
                    ));
                }
                if let Some(c) = wrapper_rule(name, w) {
                    return with_floor(floor, c);
                }
                let next = skip_wrapper(name, w);
                if next >= w.len() {
                    let login = w.iter().any(|a| a == "-i" || a == "-s");
                    let alone = match name {
                        "sudo" | "doas" if login => {
                            interactive(format!("`{name} -i` opens a root shell"))
                        }
                        "env" => read_only("`env` alone prints the environment"),
                        "xargs" => read_only("`xargs` with no command only echoes its input"),
                        _ => read_only(format!("`{name}` alone runs nothing")),
                    };
                    return with_floor(floor, alone);
                }
                if name == "watch" && next + 1 == w.len() && w[next].contains(' ') {
                    return long_running(
                        "`watch` reruns the quoted command (checked on its own) until it is stopped",
                    );
                }
                if name == "env" {
                    if let Some(c) =
                        builtins::dangerous_assignment(w[1..next].iter().map(String::as_str))
                    {
                        return with_floor(floor, c);
                    }
                }
                if name == "xargs" && !replaces(&w[1..next]) {
                    let inner = classify_words(&w[next..], piped, assigns);
                    return with_floor(floor, xargs_appends(&w[next], inner));
                }
                w = &w[next..];
            }
            _ => {
                let class = dispatch(name, &w[1..], piped);
                return with_floor(floor, class);
            }
        }
    }
}

/// A wrapper whose flags decide on their own: `env -S` (splits a string into a command
/// tsgnav does not see as words), `command -v` (only prints), `time -o` (writes a file).
fn wrapper_rule(name: &str, w: &[String]) -> Option<Class> {
    let flags = w[1..]
        .iter()
        .take_while(|a| a.starts_with('-') && *a != "--");
    let mut flags = flags.map(String::as_str);
    match name {
        "env" if flags.any(|f| f.starts_with("--split-string") || short(f, 'S')) => Some(unknown(
            "`env -S` splits a string into a command, which tsgnav does not check",
        )),
        "command" if flags.any(|f| short(f, 'v') || short(f, 'V')) => {
            Some(read_only("`command -v` only prints what a name runs"))
        }
        "time" if flags.any(|f| f == "-o" || f.starts_with("--output")) => {
            Some(mutating("`time -o` writes its report to a file"))
        }
        _ => None,
    }
}

/// Whether a short-flag cluster holds `letter`.
fn short(flag: &str, letter: char) -> bool {
    !flag.starts_with("--") && flag[1..].contains(letter)
}

/// Whether `xargs`'s flags put the input in place of a marker (`-I {}`) instead of appending it.
fn replaces(flags: &[String]) -> bool {
    flags
        .iter()
        .any(|f| f.starts_with("-I") || f.starts_with("--replace") || f == "-i")
}

/// Commands whose class does not depend on the words `xargs` appends to them.
const APPEND_SAFE: &[&str] = &[
    "echo",
    "printf",
    "cat",
    "grep",
    "egrep",
    "fgrep",
    "wc",
    "head",
    "ls",
    "stat",
    "file",
    "basename",
    "dirname",
    "jq",
    "du",
    "md5sum",
    "sha256sum",
    "getent",
    "dig",
    "host",
];

/// `xargs CMD`: the input becomes more words of CMD, so a command whose class depends on
/// its words (kubectl, curl, sh …) is only as safe as input tsgnav cannot see.
fn xargs_appends(cmd: &str, inner: Class) -> Class {
    let name = basename(cmd);
    if inner.0 != crate::tsg::SafetyClass::ReadOnly || APPEND_SAFE.contains(&name) {
        return inner;
    }
    unknown(format!(
        "`xargs {name}` adds words read from its input to `{name}`, so tsgnav cannot tell what `{name}` does"
    ))
}

fn dispatch(name: &str, args: &[String], piped: bool) -> Class {
    if let Some(c) = builtins::builtin(name, args).or_else(|| writers::writer(name, args)) {
        return c;
    }
    match name {
        "kubectl" | "oc" => kube::kubectl(name, args),
        "helm" => kube::helm(args),
        "curl" => net::curl(args),
        "wget" => net::wget(args),
        "az" => azure::az(args),
        _ => ops::known(name, args)
            .or_else(|| tools::tool(name, args, piped))
            .or_else(|| unix::utility(name, args))
            .or_else(|| ops::generic(name, args))
            .unwrap_or_else(|| {
                unknown(format!(
                    "`{name}` is not a command tsgnav knows, so it may change something"
                ))
            }),
    }
}
