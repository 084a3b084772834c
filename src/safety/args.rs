//! Argument helpers for the classifiers: a command's class and reason, and a split of its
//! arguments into flags and positionals.
//!
//! Pure; imports only `crate::tsg`.

use crate::tsg::SafetyClass;

/// A class and the reason shown to the operator.
pub(super) type Class = (SafetyClass, String);

pub(super) fn read_only(reason: impl Into<String>) -> Class {
    (SafetyClass::ReadOnly, reason.into())
}
pub(super) fn long_running(reason: impl Into<String>) -> Class {
    (SafetyClass::LongRunning, reason.into())
}
pub(super) fn interactive(reason: impl Into<String>) -> Class {
    (SafetyClass::Interactive, reason.into())
}
pub(super) fn unknown(reason: impl Into<String>) -> Class {
    (SafetyClass::Unknown, reason.into())
}
pub(super) fn mutating(reason: impl Into<String>) -> Class {
    (SafetyClass::Mutating, reason.into())
}

/// The more dangerous of two classes (the first on a tie).
pub(super) fn worse(a: Class, b: Class) -> Class {
    if b.0 > a.0 {
        b
    } else {
        a
    }
}

/// Arguments split into flags (with inline or following values) and positionals.
pub(super) struct Args<'a> {
    pub pos: Vec<&'a str>,
    pub flags: Vec<(String, Option<&'a str>)>,
    /// Index in the original arguments just after a bare `--`, if there was one.
    pub after_dashes: Option<usize>,
}

/// Split `args`. `takes_value(flag)` says whether a flag (`-n`, `--namespace`) consumes the
/// next argument. Short clusters (`-ti`, `-sXPOST`) are split into single-letter flags; the
/// first letter that takes a value gets the rest of the cluster or the next argument.
pub(super) fn split<'a>(args: &'a [String], takes_value: &dyn Fn(&str) -> bool) -> Args<'a> {
    let mut out = Args {
        pos: Vec::new(),
        flags: Vec::new(),
        after_dashes: None,
    };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if a == "--" {
            out.after_dashes = Some(i);
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            match long.split_once('=') {
                Some((name, value)) => out.flags.push((format!("--{name}"), Some(value))),
                None if takes_value(a) => {
                    out.flags
                        .push((a.to_string(), args.get(i).map(String::as_str)));
                    i += 1;
                }
                None => out.flags.push((a.to_string(), None)),
            }
            continue;
        }
        let Some(cluster) = a.strip_prefix('-').filter(|c| !c.is_empty()) else {
            out.pos.push(a);
            continue;
        };
        for (at, ch) in cluster.char_indices() {
            let flag = format!("-{ch}");
            if takes_value(&flag) {
                let rest = &cluster[at + ch.len_utf8()..];
                let value = if rest.is_empty() {
                    i += 1;
                    args.get(i - 1).map(String::as_str)
                } else {
                    Some(rest.trim_start_matches('='))
                };
                out.flags.push((flag, value));
                break;
            }
            out.flags.push((flag, None));
        }
    }
    out
}

impl<'a> Args<'a> {
    /// Whether any of `names` is present (and not set to `false`).
    pub fn has(&self, names: &[&str]) -> bool {
        self.flags
            .iter()
            .any(|(f, v)| names.contains(&f.as_str()) && *v != Some("false"))
    }

    /// The value of the last of `names` present.
    pub fn value(&self, names: &[&str]) -> Option<&'a str> {
        self.flags
            .iter()
            .rev()
            .find(|(f, _)| names.contains(&f.as_str()))
            .and_then(|(_, v)| *v)
    }
}

/// Whether `arg` is the long option `full` (`--set`) or an abbreviation GNU getopt accepts
/// for it (`--se`, `--s=…`): getopt takes any prefix that names one option; a prefix that
/// names several is an error there, so reading it as `full` errs on the safe side only.
pub(super) fn long_opt(arg: &str, full: &str) -> bool {
    let Some(name) = arg.strip_prefix("--") else {
        return false;
    };
    let name = name.split_once('=').map_or(name, |(n, _)| n);
    !name.is_empty() && full.strip_prefix("--").is_some_and(|f| f.starts_with(name))
}
