//! kubectl/oc argument helpers for the shell lint rules: find the kube CLI in a command and
//! split its arguments into positionals and flags.
//!
//! Pure. Imports only `crate::tsg::{shell, invocation}`; must not import IO nor `crate::safety`.

use crate::tsg::invocation::{spec, takes_value, Role, Tool};
use crate::tsg::shell::{basename, SimpleCommand};

const WRAPPERS: &[&str] = &["sudo", "xargs", "watch", "timeout", "env", "time", "nohup"];

/// `(cli, arguments)` when the command runs kubectl or oc, directly or through a wrapper.
pub(super) fn kube(cmd: &SimpleCommand) -> Option<(&str, &[String])> {
    let first = cmd.name()?;
    let at = if first == "kubectl" || first == "oc" {
        0
    } else if WRAPPERS.contains(&first) {
        cmd.words
            .iter()
            .position(|w| matches!(basename(w), "kubectl" | "oc"))?
    } else {
        return None;
    };
    Some((basename(&cmd.words[at]), &cmd.words[at + 1..]))
}

/// Positionals and flags of kubectl arguments (values of known value flags skipped).
pub(super) fn kube_split(args: &[String]) -> (Vec<&str>, Vec<(&str, Option<&str>)>) {
    let (mut pos, mut flags) = (Vec::new(), Vec::new());
    let mut it = args.iter().map(String::as_str);
    while let Some(a) = it.next() {
        if a == "--" {
            break;
        }
        if !a.starts_with('-') || a.len() < 2 {
            pos.push(a);
        } else if let Some((name, value)) = a.split_once('=') {
            flags.push((name, Some(value)));
        } else if takes_value(Tool::Kubectl, "", a) {
            flags.push((a, it.next()));
        } else if let Some(short) = a
            .get(..2)
            .filter(|s| a.len() > 2 && !a.starts_with("--") && takes_value(Tool::Kubectl, "", s))
        {
            flags.push((short, a.get(2..)));
        } else {
            flags.push((a, None));
        }
    }
    (pos, flags)
}

/// The value of the last namespace flag (`-n`, `--namespace`) among `flags`.
pub(super) fn namespace<'a>(flags: &[(&str, Option<&'a str>)]) -> Option<&'a str> {
    flags
        .iter()
        .rev()
        .find(|(f, _)| spec(Tool::Kubectl, "", f).is_some_and(|s| s.role == Role::Namespace))
        .and_then(|(_, v)| *v)
}

pub(super) fn flag<'a>(flags: &[(&str, Option<&'a str>)], names: &[&str]) -> Option<&'a str> {
    flags
        .iter()
        .rev()
        .find(|(f, _)| names.contains(f))
        .and_then(|(_, v)| *v)
}

/// A workload kind alias → its singular name.
pub(super) fn workload_kind(kind: &str) -> Option<&'static str> {
    Some(match kind.to_ascii_lowercase().trim_end_matches(".apps") {
        "deployment" | "deployments" | "deploy" => "deployment",
        "daemonset" | "daemonsets" | "ds" => "daemonset",
        "statefulset" | "statefulsets" | "sts" => "statefulset",
        "replicaset" | "replicasets" | "rs" => "replicaset",
        _ => return None,
    })
}
