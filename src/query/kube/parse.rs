//! PURE parser for the `kubectl get|describe` forms the native kube backend runs:
//! `kubectl get|describe resource[/name] [name…] [-n NS | -A] [-l SEL] [--field-selector SEL]
//! [-o json|yaml|wide|name|jsonpath=…] [-L COL] [--no-headers] [--context CTX]`, one or more
//! such commands on their own lines, the last one optionally `-o json | jq …`. Anything else
//! (other pipes, substitutions, other flags) is [`Reject::NotNative`], so the runner falls
//! back to the shell.
//!
//! Variables (`${X}`, `$X`, `<x>`) are replaced word by word from the bindings (`kube::expand`):
//! a value is only ever a word, never parsed as shell. No IO; imports only `crate::tsg::shell`
//! and the pure `kube::{expand, jq}`.

use std::collections::BTreeMap;

use super::expand::expand_all;
use crate::tsg::invocation::{spec, takes_value, Role, Tool};
use crate::tsg::shell;

/// `get` or `describe`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Get,
    Describe,
}

/// The `-o` format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    Table,
    Wide,
    Json,
    Yaml,
    Name,
    JsonPath(String),
    /// `custom-columns=HEADER:expr,…` (each expression in kubectl's relaxed form).
    CustomColumns(Vec<(String, String)>),
}

/// One resource to read: a type as written (`pods`, `mtpnc`, `deployment.apps`) and an optional name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub resource: String,
    pub name: Option<String>,
}

/// A parsed `kubectl get|describe` command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeCommand {
    pub verb: Verb,
    pub targets: Vec<Target>,
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    pub labels: Option<String>,
    pub fields: Option<String>,
    pub format: Format,
    pub context: Option<String>,
    pub no_headers: bool,
    pub label_columns: Vec<String>,
    /// `--sort-by` (kubectl's relaxed JSONPath).
    pub sort_by: Option<String>,
    /// A `| jq …` after the command (only with `-o json`).
    pub jq: Option<super::jq::Jq>,
}

/// Why a probe is not run natively.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reject {
    /// Not a form this backend handles; the reason says which part.
    NotNative(String),
    /// A variable the command needs has no value.
    MissingVar(String),
}

fn not_native(s: impl Into<String>) -> Reject {
    Reject::NotNative(s.into())
}

/// Parses a probe script: every command must be a native `kubectl get|describe`, the last
/// one optionally piped into `jq` (with `-o json`).
pub fn parse_script(
    code: &str,
    bindings: &BTreeMap<String, String>,
) -> Result<Vec<KubeCommand>, Reject> {
    let parsed = shell::parse(code);
    if !parsed.problems.is_empty() {
        return Err(not_native(
            "the script has parts the shell parser could not read",
        ));
    }
    if parsed.commands.is_empty() {
        return Err(not_native("no command"));
    }
    let cmds = &parsed.commands;
    let mut out = Vec::new();
    let mut missing = Vec::new();
    let mut i = 0;
    while let Some(c) = cmds.get(i) {
        if c.piped || !plain(c) {
            return Err(not_native(format!(
                "line {}: pipes, redirections, assignments and substitutions run in the shell",
                c.line
            )));
        }
        if c.name() != Some("kubectl") {
            return Err(not_native(format!(
                "line {}: not a kubectl command",
                c.line
            )));
        }
        let mut cmd = parse_words(&expand_all(&c.words, bindings, &mut missing)?)
            .map_err(Reject::NotNative)?;
        let jq = cmds
            .get(i + 1)
            .filter(|n| n.piped && n.name() == Some("jq") && plain(n));
        if let Some(j) = jq.filter(|_| cmds.get(i + 2).is_none()) {
            if cmd.format != Format::Json {
                return Err(not_native(
                    "jq reads JSON: use kubectl get … -o json | jq …",
                ));
            }
            // The filter is jq code (its `$id` is jq's): only `--arg` values are expanded.
            let mut call = super::jq::parse(&j.words).map_err(Reject::NotNative)?;
            for (_, v) in &mut call.args {
                *v = super::expand::expand(v, bindings, &mut missing)?;
            }
            cmd.jq = Some(call);
            i += 1;
        }
        out.push(cmd);
        i += 1;
    }
    match missing.into_iter().next() {
        Some(name) => Err(Reject::MissingVar(name)),
        None => Ok(out),
    }
}

/// No substitution around it, no redirections, no prefix assignments.
fn plain(c: &shell::SimpleCommand) -> bool {
    c.nested_in.is_none() && c.redirects.is_empty() && c.assigns.is_empty()
}

/// Parses the words of one command (`kubectl get pods -A`).
pub fn parse_words(words: &[String]) -> Result<KubeCommand, String> {
    let mut it = words.iter().map(String::as_str).peekable();
    if it.next().map(shell::basename) != Some("kubectl") {
        return Err("not a kubectl command".into());
    }
    let mut cmd = KubeCommand {
        verb: Verb::Get,
        targets: Vec::new(),
        namespace: None,
        all_namespaces: false,
        labels: None,
        fields: None,
        format: Format::Table,
        context: None,
        no_headers: false,
        label_columns: Vec::new(),
        sort_by: None,
        jq: None,
    };
    let mut verb = None;
    let mut positional: Vec<String> = Vec::new();
    while let Some(w) = it.next() {
        let short_value = w.len() > 2
            && w.starts_with('-')
            && !w.starts_with("--")
            && w.get(..2)
                .is_some_and(|f| takes_value(Tool::Kubectl, "get", f));
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ if short_value => (&w[..2], Some(w[2..].trim_start_matches('=').to_string())),
            _ => (w, None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| it.next().map(String::from))
                .ok_or(format!("{name} needs a value"))
        };
        if !flag.starts_with('-') {
            if verb.is_some() {
                positional.push(w.to_string());
                continue;
            }
            verb = Some(match w {
                "get" => Verb::Get,
                "describe" => Verb::Describe,
                other => return Err(format!("kubectl {other} is not handled natively")),
            });
            continue;
        }
        match spec(Tool::Kubectl, "get", flag).map(|s| s.role) {
            Some(Role::Namespace) => cmd.namespace = Some(value(flag)?),
            Some(Role::AllNamespaces) => cmd.all_namespaces = true,
            Some(Role::Selector) => cmd.labels = Some(value(flag)?),
            Some(Role::FieldSelector) => cmd.fields = Some(value(flag)?),
            Some(Role::Context) => cmd.context = Some(value(flag)?),
            Some(Role::NoHeaders) => cmd.no_headers = inline.as_deref() != Some("false"),
            Some(Role::LabelColumns) => cmd
                .label_columns
                .extend(value(flag)?.split(',').map(String::from)),
            Some(Role::Output) => cmd.format = format(&value(flag)?)?,
            Some(Role::SortBy) => {
                let v = value(flag)?;
                super::jsonpath::relaxed(&v)
                    .and_then(|t| super::jsonpath::check(&t))
                    .map_err(|e| format!("--sort-by {v:?}: {e}"))?;
                cmd.sort_by = Some(v);
            }
            _ => return Err(format!("flag {flag} is not handled natively")),
        }
    }
    cmd.verb = verb.ok_or("kubectl without a verb")?;
    cmd.targets = targets(&positional)?;
    if cmd.verb == Verb::Describe && cmd.format != Format::Table {
        return Err("kubectl describe takes no -o".into());
    }
    Ok(cmd)
}

fn format(v: &str) -> Result<Format, String> {
    Ok(match v {
        "json" => Format::Json,
        "yaml" => Format::Yaml,
        "wide" => Format::Wide,
        "name" => Format::Name,
        _ => {
            if let Some(t) = v.strip_prefix("jsonpath=") {
                super::jsonpath::check(t).map_err(|e| format!("-o jsonpath: {e}"))?;
                Format::JsonPath(t.to_string())
            } else if let Some(spec) = v.strip_prefix("custom-columns=") {
                Format::CustomColumns(custom_columns(spec)?)
            } else {
                return Err(format!("-o {v} is not handled natively"));
            }
        }
    })
}

/// `NAME:.metadata.name,NODE:.spec.nodeName`, split as kubectl splits it.
fn custom_columns(spec: &str) -> Result<Vec<(String, String)>, String> {
    if spec.is_empty() {
        return Err("custom-columns needs at least one column".into());
    }
    spec.split(',')
        .map(|part| {
            let (h, e) = part.split_once(':').ok_or(format!(
                "custom-columns part {part:?} is not HEADER:expression"
            ))?;
            super::jsonpath::relaxed(e)
                .and_then(|t| super::jsonpath::check(&t))
                .map_err(|x| format!("custom-columns {part:?}: {x}"))?;
            Ok((h.to_string(), e.to_string()))
        })
        .collect()
}

fn targets(pos: &[String]) -> Result<Vec<Target>, String> {
    let Some(first) = pos.first() else {
        return Err("no resource type given".into());
    };
    if first.contains('/') {
        return pos
            .iter()
            .map(|p| match p.split_once('/') {
                Some((r, n)) if !r.is_empty() && !n.is_empty() => Ok(Target {
                    resource: r.to_string(),
                    name: Some(n.to_string()),
                }),
                _ => Err(format!("{p:?}: mix of type/name and plain names")),
            })
            .collect();
    }
    let types: Vec<&str> = first.split(',').filter(|t| !t.is_empty()).collect();
    let mut out = Vec::new();
    for t in types {
        if pos.len() == 1 {
            out.push(Target {
                resource: t.to_string(),
                name: None,
            });
        }
        for n in &pos[1..] {
            out.push(Target {
                resource: t.to_string(),
                name: Some(n.clone()),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
