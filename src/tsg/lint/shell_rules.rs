//! Lint rules that read the commands of shell probes: `rollout-restart-all`,
//! `grep-regex-id`, `hardcoded-restore` and `mixed-cli`.
//!
//! Pure. Imports only `super` (Finding, Severity), `crate::tsg::model` and
//! `crate::tsg::shell`; must not import IO nor `crate::safety`.

mod cli_args;
#[cfg(test)]
mod tests;

use super::{Finding, Severity};
use crate::tsg::model::{Guide, Lang};
use crate::tsg::shell::{self, SimpleCommand};
use cli_args::{flag, kube, kube_split, workload_kind};

/// Runs every shell rule over `guide`.
pub fn check(guide: &Guide, out: &mut Vec<Finding>) {
    let cmds = shell_commands(guide);
    let push = |out: &mut Vec<Finding>, rule, severity, line, message| {
        let path = if guide.file.is_empty() {
            &guide.path
        } else {
            &guide.file
        };
        out.push(Finding {
            rule,
            severity,
            path: path.clone(),
            line,
            message,
        });
    };
    for (line, cmd) in &cmds {
        if let Some(msg) = rollout_restart_all(cmd) {
            push(out, "rollout-restart-all", Severity::Error, *line, msg);
        }
        if let Some(msg) = grep_regex_id(cmd) {
            push(out, "grep-regex-id", Severity::Warning, *line, msg);
        }
    }
    for (line, msg) in hardcoded_restore(&cmds) {
        push(out, "hardcoded-restore", Severity::Warning, line, msg);
    }
    if let Some((line, msg)) = mixed_cli(&cmds) {
        push(out, "mixed-cli", Severity::Info, line, msg);
    }
}

/// Every command of every shell probe, with its line in the guide, in document order.
fn shell_commands(guide: &Guide) -> Vec<(usize, SimpleCommand)> {
    let mut out: Vec<(usize, SimpleCommand)> = guide
        .nodes
        .iter()
        .flat_map(|n| n.probes.iter().filter(|p| p.lang == Lang::Shell))
        .flat_map(|p| {
            shell::commands(&p.code)
                .into_iter()
                .map(move |c| (p.line + c.line - 1, c))
        })
        .collect();
    out.sort_by_key(|(line, _)| *line);
    out
}

fn rollout_restart_all(cmd: &SimpleCommand) -> Option<String> {
    let (cli, args) = kube(cmd)?;
    let (pos, flags) = kube_split(args);
    if pos.len() != 3 || pos[0] != "rollout" || pos[1] != "restart" {
        return None;
    }
    let kind = workload_kind(pos[2])?;
    if flags.iter().any(|(f, _)| *f == "-l" || *f == "--selector") {
        return None;
    }
    let ns = cli_args::namespace(&flags);
    let scope = ns.map_or("the current namespace".to_string(), |n| {
        format!("namespace `{n}`")
    });
    let ns_flag = ns.map_or(String::new(), |n| format!(" -n {n}"));
    Some(format!(
        "`{}` names no {kind}, so it restarts every {kind} in {scope}; name the one to restart: `{cli} rollout restart {kind}/<name>{ns_flag}`",
        cmd.text()
    ))
}

/// `$X` or `${X}` alone → `X`.
fn lone_var(word: &str) -> Option<&str> {
    let name = word.strip_prefix('$')?;
    let name = name
        .strip_prefix('{')
        .and_then(|n| n.strip_suffix('}'))
        .unwrap_or(name);
    let ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    ok.then_some(name)
}

fn grep_regex_id(cmd: &SimpleCommand) -> Option<String> {
    let tool = cmd.name()?;
    if !matches!(tool, "grep" | "egrep" | "zgrep") {
        return None;
    }
    let mut patterns: Vec<&str> = Vec::new();
    let mut positional: Option<&str> = None;
    let mut from_file = false;
    let mut it = cmd.words[1..].iter().map(String::as_str);
    while let Some(a) = it.next() {
        if a == "--" {
            positional = positional.or(it.next());
            break;
        }
        if a == "--fixed-strings" || (a.starts_with('-') && !a.starts_with("--") && a.contains('F'))
        {
            return None;
        }
        match a {
            "-e" | "--regexp" => patterns.extend(it.next()),
            "-f" | "--file" => from_file = it.next().is_some(),
            "-m" | "-A" | "-B" | "-C" | "-d" | "-D" | "--max-count" | "--context" | "--label" => {
                it.next();
            }
            _ if a.starts_with("--regexp=") => patterns.push(&a[9..]),
            _ if a.starts_with("-e") && !a.starts_with("--") => patterns.push(&a[2..]),
            _ if a.starts_with('-') && a.len() > 1 => {}
            _ => {
                positional = positional.or(Some(a));
            }
        }
    }
    if patterns.is_empty() && !from_file {
        patterns.extend(positional);
    }
    let (pattern, var) = patterns.iter().find_map(|p| {
        lone_var(p)
            .filter(|v| v.to_ascii_uppercase().ends_with("ID"))
            .map(|v| (*p, v))
    })?;
    Some(format!(
        "`{tool} \"{pattern}\"` matches the value of `{var}` as a regular expression, so it also matches other resources whose names merely contain it; match it as a fixed string: `grep -F -- \"${{{var}}}\"`"
    ))
}

struct Scale<'a> {
    line: usize,
    target: Option<String>,
    literal: Option<u64>,
    cmd: &'a SimpleCommand,
}

fn scale_of(line: usize, cmd: &SimpleCommand) -> Option<Scale<'_>> {
    let (_, args) = kube(cmd)?;
    let (pos, flags) = kube_split(args);
    if pos.first() != Some(&"scale") {
        return None;
    }
    let replicas = flag(&flags, &["--replicas"])?;
    let name = match pos.get(1..).unwrap_or_default() {
        [one, ..] if one.contains('/') => Some(one.to_string()),
        [kind, name, ..] => Some(format!("{kind}/{name}")),
        _ => None,
    };
    let target = name.map(|n| {
        let (kind, name) = n.split_once('/').unwrap_or(("", &n));
        let kind = workload_kind(kind).unwrap_or(kind);
        format!(
            "{}/{kind}/{name}",
            cli_args::namespace(&flags).unwrap_or("")
        )
    });
    Some(Scale {
        line,
        target,
        literal: replicas.parse().ok(),
        cmd,
    })
}

fn hardcoded_restore(cmds: &[(usize, SimpleCommand)]) -> Vec<(usize, String)> {
    let captured = cmds.iter().any(|(_, c)| {
        c.words
            .iter()
            .chain(&c.assigns)
            .any(|w| w.contains("spec.replicas"))
    });
    if captured {
        return Vec::new();
    }
    let scales: Vec<Scale> = cmds.iter().filter_map(|(l, c)| scale_of(*l, c)).collect();
    let mut out = Vec::new();
    for (j, restore) in scales.iter().enumerate() {
        let Some(n) = restore.literal.filter(|n| *n > 0) else {
            continue;
        };
        let same = |z: &&Scale| {
            z.literal == Some(0)
                && (z.target.is_none() || restore.target.is_none() || z.target == restore.target)
        };
        let Some(zero) = scales[..j].iter().find(same) else {
            continue;
        };
        let (cli, args) = kube(restore.cmd).unwrap_or(("kubectl", &[]));
        let (pos, flags) = kube_split(args);
        let what = pos.get(1..).unwrap_or_default().join(" ");
        let ns = cli_args::namespace(&flags).map_or(String::new(), |n| format!(" -n {n}"));
        out.push((
            restore.line,
            format!(
                "`{}` restores a literal {n} replicas after line {} scaled it to 0, but the guide never records the original count, which may differ per environment; before scaling down capture it with `ORIG=$({cli} get {what}{ns} -o jsonpath='{{.spec.replicas}}')` and restore with `--replicas=\"${{ORIG}}\"`",
                restore.cmd.text(),
                zero.line
            ),
        ));
    }
    out
}

fn mixed_cli(cmds: &[(usize, SimpleCommand)]) -> Option<(usize, String)> {
    let first = |cli: &str| {
        cmds.iter()
            .find(|(_, c)| kube(c).is_some_and(|(n, _)| n == cli))
            .map(|(l, _)| *l)
    };
    let (oc, kubectl) = (first("oc")?, first("kubectl")?);
    Some((
        oc,
        format!(
            "This guide runs both `oc` (first on line {oc}) and `kubectl` (first on line {kubectl}); use one CLI throughout — `kubectl` works against both AKS and OpenShift clusters"
        ),
    ))
}
