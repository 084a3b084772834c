//! Planning the capture of prior state before a known mutation: for `kubectl scale` the
//! replica count, for `patch`/`delete` the object, for `cordon`/`drain` the node. The plan is
//! the read-only `kubectl get` to run first; the caller runs it and records the value as a
//! `prior_state` evidence record. Pure; must not import IO, `cli`, `tui` or `nav`.

use std::collections::BTreeMap;

use crate::tsg::shell;

/// A known mutation the planner recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    Scale,
    Patch,
    Delete,
    Cordon,
    Drain,
}

/// One read to run before a mutation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    pub mutation: Mutation,
    /// `deployment/maestro-agent -n maestro`, `node/aks-1`.
    pub resource: String,
    /// `spec.replicas`, `object` (the whole object as JSON) or `spec.unschedulable`.
    pub field: String,
    /// The `kubectl` arguments of the read (without `kubectl`).
    pub read: Vec<String>,
    /// For `scale`: the replica count the mutation sets.
    pub new_value: Option<String>,
}

/// What one capture read before a mutation: the value to restore later.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    /// The probe whose mutation this capture preceded.
    pub probe: String,
    pub resource: String,
    pub field: String,
    pub value: String,
    /// The read as it ran ([`Capture::read_command`]).
    pub command: String,
}

impl Capture {
    /// The read as a shell command line, each argument single-quoted.
    pub fn read_command(&self) -> String {
        let mut s = String::from("kubectl");
        for a in &self.read {
            s.push(' ');
            s.push_str(&quote(a));
        }
        s
    }
}

fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// `${NAME}` / `$NAME` replaced from `vars`; `None` when a value is missing or the word holds
/// a command substitution (the planner will not guess).
fn expand(word: &str, vars: &BTreeMap<String, String>) -> Option<String> {
    if word.contains("$(") || word.contains('`') {
        return None;
    }
    let mut out = String::new();
    let mut rest = word;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (name, len) = match after.strip_prefix('{') {
            Some(b) => {
                let end = b.find('}')?;
                (&b[..end], end + 2)
            }
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], end)
            }
        };
        if name.is_empty() {
            return None;
        }
        out.push_str(vars.get(name)?);
        rest = &after[len..];
    }
    out.push_str(rest);
    Some(out)
}

/// The captures to run before `script` (after substitution of `vars`), one per recognised
/// `kubectl` mutation whose object is fully known. Loops over computed names are skipped.
pub fn plan(script: &str, vars: &BTreeMap<String, String>) -> Vec<Capture> {
    shell::commands(script)
        .iter()
        .filter(|c| c.name().map(shell::basename) == Some("kubectl"))
        .filter_map(|c| {
            let words: Option<Vec<String>> =
                c.words.iter().skip(1).map(|w| expand(w, vars)).collect();
            plan_one(&words?)
        })
        .collect()
}

/// Flags that take a value as the next word.
const VALUED: &[&str] = &[
    "-n",
    "--namespace",
    "--context",
    "--kubeconfig",
    "-p",
    "--patch",
    "--type",
    "-l",
    "--selector",
    "--replicas",
    "-f",
    "--filename",
    "--timeout",
    "--grace-period",
    "-o",
    "--output",
    "--field-selector",
    "--current-replicas",
    "--resource-version",
];

fn plan_one(args: &[String]) -> Option<Capture> {
    let mut flags: BTreeMap<String, String> = BTreeMap::new();
    let mut pos: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if let Some((k, v)) = a.split_once('=').filter(|_| a.starts_with('-')) {
            flags.insert(k.to_string(), v.to_string());
        } else if VALUED.contains(&a) {
            flags.insert(a.to_string(), args.get(i + 1).cloned().unwrap_or_default());
            i += 1;
        } else if !a.starts_with('-') {
            pos.push(a);
        }
        i += 1;
    }
    let verb = *pos.first()?;
    let mutation = match verb {
        "scale" => Mutation::Scale,
        "patch" => Mutation::Patch,
        "delete" => Mutation::Delete,
        "cordon" => Mutation::Cordon,
        "drain" => Mutation::Drain,
        _ => return None,
    };
    if ["-l", "--selector", "-f", "--filename", "--all"]
        .iter()
        .any(|f| flags.contains_key(*f) || args.iter().any(|a| a == f))
    {
        return None;
    }
    let object = match (mutation, &pos[1..]) {
        (Mutation::Cordon | Mutation::Drain, [node]) => format!("node/{node}"),
        (_, [one]) if one.contains('/') => one.to_string(),
        (_, [kind, name]) if !kind.contains('/') => format!("{kind}/{name}"),
        _ => return None,
    };
    let ns = flags
        .get("-n")
        .or(flags.get("--namespace"))
        .filter(|_| !matches!(mutation, Mutation::Cordon | Mutation::Drain));
    let mut read = vec!["get".to_string(), object.clone()];
    let mut resource = object;
    if let Some(ns) = ns {
        read.extend(["-n".to_string(), ns.clone()]);
        resource.push_str(&format!(" -n {ns}"));
    }
    if let Some(c) = flags.get("--context") {
        read.push(format!("--context={c}"));
    }
    let (field, output) = match mutation {
        Mutation::Scale => ("spec.replicas", "jsonpath={.spec.replicas}"),
        Mutation::Cordon | Mutation::Drain => ("spec.unschedulable", "json"),
        Mutation::Patch | Mutation::Delete => ("object", "json"),
    };
    read.extend(["-o".to_string(), output.to_string()]);
    Some(Capture {
        mutation,
        resource,
        field: field.to_string(),
        read,
        new_value: flags.get("--replicas").cloned(),
    })
}

/// For each `kubectl scale … --replicas=${NAME}` in `script` whose object is known from
/// `vars`: the resource (as in [`Capture::resource`]) and NAME, so a restore can be offered the
/// count captured before the scale-down instead of a guessed one.
pub fn restore_vars(script: &str, vars: &BTreeMap<String, String>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for c in shell::commands(script) {
        if c.name().map(shell::basename) != Some("kubectl") {
            continue;
        }
        let mut name = None;
        let words: Option<Vec<String>> = c
            .words
            .iter()
            .skip(1)
            .map(|w| match replicas_var(w) {
                Some(n) => {
                    name = Some(n.to_string());
                    Some("--replicas=0".to_string())
                }
                None => expand(w, vars),
            })
            .collect();
        let found = words.as_deref().and_then(plan_one);
        if let (Some(cap), Some(n)) = (found, name) {
            if cap.mutation == Mutation::Scale {
                out.push((cap.resource, n));
            }
        }
    }
    out
}

/// `NAME` of a `--replicas=${NAME}` / `--replicas=$NAME` word.
fn replicas_var(word: &str) -> Option<&str> {
    let v = word.strip_prefix("--replicas=")?.strip_prefix('$')?;
    let n = v
        .strip_prefix('{')
        .and_then(|b| b.strip_suffix('}'))
        .unwrap_or(v);
    (!n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some(n)
}
