//! Code hidden in variables that a shell or a tool runs later: `BASH_ENV`, `ENV`, `PS4`,
//! `PROMPT_COMMAND`, `BASH_FUNC_*`, `GIT_CONFIG_*`, `LD_PRELOAD`, `LESSOPEN` … set by any
//! means (`NAME=…`, `export NAME`, `read NAME`, `printf -v NAME`, `getopts … NAME`,
//! `mapfile NAME`, a nameref, a `for` loop variable, `${NAME:=…}`, `set -k`), and the
//! expansions that run a value as code (`${x@P}`, an array subscript holding `$(…)`).
//!
//! Pure; imports only `crate::tsg`.

use super::args::{read_only, unknown, Class};

/// Variables that make a later command run a program of the script's choosing, or reach
/// another cluster than the one confirmed.
const DANGEROUS_ENV: &[&str] = &[
    "KUBECTL_EXTERNAL_DIFF",
    "KUBE_EDITOR",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "GIT_PAGER",
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "GIT_PROXY_COMMAND",
    "GIT_EXEC_PATH",
    "GIT_DIR",
    "SSH_ASKPASS",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "PATH",
    "IFS",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PS1",
    "CURL_HOME",
    "HELM_PLUGINS",
    "KUBECTL_PLUGINS_PATH",
    "AWS_CONFIG_FILE",
    "LESSOPEN",
    "LESSCLOSE",
    "MANPAGER",
    "SYSTEMD_PAGER",
    "BROWSER",
    "PERL5OPT",
    "RUBYOPT",
    "NODE_OPTIONS",
    "PYTHONSTARTUP",
];

/// Prefixes of whole families of such variables (`BASH_FUNC_ls%%` defines a function
/// `ls`; `GIT_CONFIG_KEY_0`/`GIT_CONFIG_PARAMETERS` set git configuration).
const DANGEROUS_PREFIXES: &[&str] = &["BASH_FUNC_", "GIT_CONFIG"];

/// Whether setting `name` can make a later command run code of the script's choosing.
pub(super) fn dangerous_name(name: &str) -> bool {
    DANGEROUS_ENV.contains(&name) || DANGEROUS_PREFIXES.iter().any(|p| name.starts_with(p))
}

fn sets(name: &str, how: &str) -> Class {
    unknown(format!(
        "{how} sets `{name}`, which makes later commands run a program or read a file of the \
         script's choosing"
    ))
}

/// The positional words of `args` and the values of the flags in `named`, given the flags
/// that take a value (`valued`) and those whose value is itself a name (`read -a NAME`).
fn names<'a>(args: &'a [String], valued: &str, named: &str) -> (Vec<&'a str>, Vec<&'a str>) {
    let (mut out, mut values) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        let Some(cluster) = a
            .strip_prefix('-')
            .filter(|c| !c.is_empty() && !a.starts_with("--"))
        else {
            out.push(a);
            continue;
        };
        for (at, ch) in cluster.char_indices() {
            if valued.contains(ch) || named.contains(ch) {
                let rest = &cluster[at + ch.len_utf8()..];
                let value = match rest.is_empty() {
                    true => {
                        i += 1;
                        args.get(i - 1).map(String::as_str)
                    }
                    false => Some(rest),
                };
                if let (true, Some(v)) = (named.contains(ch), value) {
                    values.push(v);
                }
                break;
            }
        }
    }
    (out, values)
}

/// `read`, `printf -v`, `getopts`, `mapfile`/`readarray` and `set -k`: the builtins that
/// assign variables by name, when the name is dangerous; `None` for any other command.
pub(super) fn assigning_builtin(name: &str, args: &[String]) -> Option<Class> {
    let targets: Vec<&str> = match name {
        "read" => {
            let (pos, arrays) = names(args, "dinNptu", "a");
            pos.into_iter().chain(arrays).collect()
        }
        // Only the leading flags are printf's own; the format and its arguments follow.
        "printf" => {
            let flags = args.iter().take_while(|a| a.starts_with('-')).count();
            let end = (flags + 1).min(args.len());
            names(&args[..end], "", "v").1
        }
        "getopts" => args.get(1).map(|n| vec![n.as_str()]).unwrap_or_default(),
        "mapfile" | "readarray" => names(args, "dnOsuCc", "").0,
        "set" => {
            let keyword = args
                .iter()
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('k'))
                || args.windows(2).any(|w| w[0] == "-o" && w[1] == "keyword");
            return keyword.then(|| {
                unknown(
                    "`set -k` makes every `NAME=value` word of later commands an environment \
                     variable, so tsgnav cannot tell which variables they set",
                )
            });
        }
        _ => return None,
    };
    if let Some(n) = targets.iter().find(|n| dangerous_name(n)) {
        return Some(sets(n, &format!("`{name}`")));
    }
    matches!(name, "mapfile" | "readarray")
        .then(|| read_only(format!("`{name}` only reads lines into an array")))
}

/// `declare`/`export`/… naming a dangerous variable, with or without a value, or making a
/// nameref (`-n`), whose assignments land in a variable tsgnav cannot follow.
pub(super) fn declaring(name: &str, args: &[String]) -> Option<Class> {
    let nameref = name != "export"
        && args
            .iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('n'));
    if nameref {
        return Some(unknown(format!(
            "`{name} -n` makes a nameref, whose assignments set another variable that tsgnav \
             cannot follow"
        )));
    }
    args.iter()
        .filter(|a| !a.starts_with('-'))
        .map(|a| a.split_once('=').map_or(a.as_str(), |(n, _)| n))
        .find(|n| dangerous_name(n))
        .map(|n| sets(n, &format!("`{name}`")))
}

/// An expansion in `word` that runs a value as code or assigns a dangerous variable:
/// `${x@P}`, `${NAME:=…}`/`${NAME=…}`, or an array subscript holding `$(…)` or a backtick
/// (`${a[$(cmd)]}`, `test -v 'a[$(cmd)]'`).
pub(super) fn hidden_expansion(word: &str) -> Option<Class> {
    // Each form below starts at a `@`, `$` or `[`; most words have none (one byte search).
    memchr::memchr3(b'@', b'$', b'[', word.as_bytes())?;
    if word.contains("@P}") {
        return Some(unknown(
            "`${x@P}` expands the value as a prompt, which runs the command substitutions in it",
        ));
    }
    let mut rest = word;
    while let Some(at) = rest.find("${") {
        let tail = &rest[at + 2..];
        let name: String = tail
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '%')
            .collect();
        let after = &tail[name.len()..];
        if (after.starts_with(":=") || after.starts_with('=')) && dangerous_name(&name) {
            return Some(sets(&name, "`${NAME:=value}`"));
        }
        rest = tail;
    }
    let b = word.as_bytes();
    for (i, _) in word.match_indices('[') {
        let named = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let inside = word[i + 1..].split(']').next().unwrap_or("");
        if named && (inside.contains("$(") || inside.contains('`')) {
            return Some(unknown(format!(
                "the array subscript `[{inside}]` runs a command when bash evaluates it"
            )));
        }
    }
    None
}

/// `for NAME in …` / `select NAME in …` loops whose variable is dangerous, found in the
/// script's words (the parser does not keep loop headers as commands).
pub(super) fn loop_variables(script: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    // Most scripts have no loop: two searches, not a split of every line into words.
    if !script.contains("for") && !script.contains("select") {
        return out;
    }
    for (n, line) in crate::tsg::lines(script).enumerate() {
        let words: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'))
            .filter(|w| !w.is_empty())
            .collect();
        for w in words.windows(2) {
            if matches!(w[0], "for" | "select") && dangerous_name(w[1]) {
                out.push((n + 1, w[1].to_string()));
            }
        }
    }
    out
}
