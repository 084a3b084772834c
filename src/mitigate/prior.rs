//! Planning the capture of prior state before a known mutation: for `kubectl scale` the
//! replica count, for `patch`/`delete` the object, for `cordon`/`drain` the node. The plan is
//! the read-only `kubectl get` to run first; the caller runs it and records the value as a
//! `prior_state` evidence record. Pure; must not import IO, `cli`, `tui` or `nav`.

use std::collections::BTreeMap;

use crate::tsg::invocation::{self, table, Role};
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

fn plan_one(args: &[String]) -> Option<Capture> {
    let mut words = vec![String::from("kubectl")];
    words.extend(args.iter().cloned());
    let inv = invocation::of_words(&words)?;
    let mutation = match inv.verb() {
        "scale" => Mutation::Scale,
        "patch" => Mutation::Patch,
        "delete" => Mutation::Delete,
        "cordon" => Mutation::Cordon,
        "drain" => Mutation::Drain,
        _ => return None,
    };
    // A selector, a file or `--all` names objects tsgnav cannot list before the change.
    if inv.unknown_before_verb.is_some()
        || inv.has(Role::Selector)
        || inv.has(Role::Filename)
        || inv.has(Role::All)
    {
        return None;
    }
    let [object] = inv.objects.as_slice() else {
        return None;
    };
    let object = format!("{}/{}", object.resource.as_ref()?, object.name.as_ref()?);
    let ns = inv
        .namespace
        .as_ref()
        .filter(|_| !matches!(mutation, Mutation::Cordon | Mutation::Drain));
    let mut read = vec!["get".to_string(), object.clone()];
    let mut resource = object;
    if let Some(ns) = ns {
        read.extend([table::KUBE_NS.to_string(), ns.clone()]);
        resource.push_str(&format!(" {} {ns}", table::KUBE_NS));
    }
    if let Some(c) = &inv.context {
        read.push(format!("{}={c}", table::KUBE_CONTEXT));
    }
    let (field, output) = match mutation {
        Mutation::Scale => ("spec.replicas", "jsonpath={.spec.replicas}"),
        Mutation::Cordon | Mutation::Drain => ("spec.unschedulable", "json"),
        Mutation::Patch | Mutation::Delete => ("object", "json"),
    };
    read.extend([table::KUBE_OUTPUT.to_string(), output.to_string()]);
    Some(Capture {
        mutation,
        resource,
        field: field.to_string(),
        read,
        new_value: inv.value(Role::Replicas).map(String::from),
    })
}

/// For each `kubectl scale … --replicas=${NAME}` in `script` whose object is known from
/// `vars`: the resource (as in [`Capture::resource`]) and NAME, so a restore can be offered the
/// count captured before the scale-down instead of a guessed one.
pub fn restore_vars(script: &str, vars: &BTreeMap<String, String>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for c in shell::commands(script) {
        let Some(raw) = invocation::of_command(&c).filter(|i| i.tool.is_kube()) else {
            continue;
        };
        let Some(name) = raw.value(Role::Replicas).and_then(var_name) else {
            continue;
        };
        let mut bound = vars.clone();
        bound.insert(name.to_string(), "0".to_string());
        let words: Option<Vec<String>> =
            c.words.iter().skip(1).map(|w| expand(w, &bound)).collect();
        if let Some(cap) = words.as_deref().and_then(plan_one) {
            if cap.mutation == Mutation::Scale {
                out.push((cap.resource, name.to_string()));
            }
        }
    }
    out
}

/// `NAME` of a `${NAME}` / `$NAME` value.
fn var_name(value: &str) -> Option<&str> {
    let v = value.strip_prefix('$')?;
    let n = v
        .strip_prefix('{')
        .and_then(|b| b.strip_suffix('}'))
        .unwrap_or(v);
    (!n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some(n)
}
