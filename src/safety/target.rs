//! Target integrity: a probe must not pick its own cluster or identity. Finds the places where
//! a script points kubectl/oc/helm elsewhere than the context the operator chose (`--server`,
//! `--kubeconfig`, `KUBECONFIG=`, `--token`, `--as` …), and the calls that bypass tsgnav's
//! pinning of the kube context (`command kubectl`, a path such as `/usr/bin/kubectl`, a
//! wrapper such as `sudo` or `xargs`).
//!
//! Pure; imports only `crate::tsg`.

use crate::tsg::invocation::table::{self, Role, Spec};
use crate::tsg::shell::{self, basename, SimpleCommand};

/// The flags of a tool's table that choose the cluster or the identity.
fn target_flags(table: &'static [Spec]) -> Vec<&'static str> {
    table
        .iter()
        .filter(|s| matches!(s.role, Role::Server | Role::Kubeconfig | Role::Identity))
        .map(|s| s.name)
        .collect()
}

/// One place where a script escapes the chosen target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escape {
    /// 1-based line in the script.
    pub line: usize,
    /// What escapes: `--server`, `KUBECONFIG=`, `command kubectl` …
    pub what: String,
    /// The command as written.
    pub command: String,
    /// `true` for a flag or variable that names another cluster or identity (refused in every
    /// run); `false` for a call that skips the context pinning (refused when it would change
    /// something).
    pub names_target: bool,
}

impl Escape {
    /// The refusal shown to the operator.
    pub fn message(&self) -> String {
        if self.names_target {
            format!(
                "line {}: `{}` names its own cluster or identity with `{}`; tsgnav runs probes \
                 only against the context you chose. Remove `{}` from the probe and choose the \
                 target with tsgnav's --context (and --kubeconfig)",
                self.line, self.command, self.what, self.what
            )
        } else {
            format!(
                "line {}: `{}` calls `{}`, which skips tsgnav's pinning of the kube context, so \
                 the change could reach another cluster. Write plain `kubectl …` (or `oc …`)",
                self.line, self.command, self.what
            )
        }
    }
}

fn names_flag(word: &str, table: &'static [Spec]) -> Option<String> {
    let flags = target_flags(table);
    let name = word.split_once('=').map_or(word, |(n, _)| n);
    if flags.contains(&name) {
        return Some(name.to_string());
    }
    // `-shttp://x`: a short flag with its value attached.
    flags
        .iter()
        .find(|f| {
            f.len() == 2 && word.len() > 2 && word.starts_with(**f) && !word.starts_with("--")
        })
        .map(|f| f.to_string())
}

/// Commands that run the command given to them.
const WRAPPERS: &[&str] = &[
    "command", "builtin", "exec", "sudo", "doas", "env", "nohup", "nice", "timeout", "xargs",
    "watch", "stdbuf", "ionice", "time", "setsid", "flock", "chroot", "nsenter", "unshare",
    "strace", "ltrace", "script", "busybox", "$",
];

/// Variables whose assignment points the tools elsewhere.
const TARGET_ENV: &[&str] = &[
    "KUBECONFIG",
    "HELM_KUBEAPISERVER",
    "HELM_KUBETOKEN",
    "HELM_KUBECONTEXT",
];

fn assigned_target(word: &str) -> Option<String> {
    let (name, _) = word.split_once('=')?;
    TARGET_ENV.contains(&name).then(|| format!("{name}="))
}

fn escapes_of(cmd: &SimpleCommand, out: &mut Vec<Escape>) {
    let mut push = |what: String, names_target: bool| {
        out.push(Escape {
            line: cmd.line,
            what,
            command: cmd.text(),
            names_target,
        })
    };
    for a in &cmd.assigns {
        if let Some(what) = assigned_target(a) {
            push(what, true);
        }
    }
    let first = cmd.words.first().map(|w| basename(w)).unwrap_or("");
    if matches!(
        first,
        "export" | "declare" | "typeset" | "local" | "readonly" | "env"
    ) {
        for w in &cmd.words[1..] {
            if let Some(what) = assigned_target(w) {
                push(what, true);
            }
        }
    }
    let Some(at) = cmd
        .words
        .iter()
        .position(|w| matches!(basename(w), "kubectl" | "oc" | "helm"))
    else {
        return;
    };
    let words: Vec<&str> = cmd.words.iter().map(String::as_str).collect();
    if at > 0 && !WRAPPERS.contains(&basename(words[0])) {
        return; // `echo kubectl …`, `grep kubectl`: the name is an argument, not a call.
    }
    let tool = basename(&cmd.words[at]);
    let flags = if tool == "helm" {
        table::HELM
    } else {
        table::KUBE
    };
    for w in cmd.words[at + 1..].iter().take_while(|w| *w != "--") {
        if let Some(f) = names_flag(w, flags) {
            push(f, true);
        }
    }
    if tool != "helm" && words[0] != "$" && (at > 0 || cmd.words[at] != tool) {
        let how = if at > 0 {
            format!("{} {tool}", cmd.words[..at].join(" "))
        } else {
            cmd.words[at].clone()
        };
        push(how, false);
    }
}

/// Every place where `script` escapes the chosen target, nested commands included.
pub fn target_escapes(script: &str) -> Vec<Escape> {
    let mut out = Vec::new();
    for c in shell::parse(script).commands {
        escapes_of(&c, &mut out);
    }
    out
}

/// A variable value that would put a target flag into a command when expanded unquoted
/// (`kubectl get pods $EXTRA`), as `(flag)`.
pub fn value_names_target(value: &str) -> Option<String> {
    value.split_whitespace().find_map(|w| {
        names_flag(w, table::KUBE)
            .or_else(|| names_flag(w, table::HELM))
            .or_else(|| assigned_target(w))
    })
}
