//! Open mitigations derived from an evidence journal: a `scale` that ran after its prior
//! replica count was captured stays open ("deployment/maestro-agent -n maestro scaled to 0 at
//! 03:12, was 2") until a later successful `scale` of the same object sets the captured count
//! again. Pure: reads records only, planning through `crate::mitigate`; must not import IO,
//! `query`, `cli`, `tui` or `nav`.

use std::collections::BTreeMap;

use super::Record;
use crate::mitigate::{plan, Mutation, OpenMitigation};

/// `# env NAME=VALUE` lines of a recorded shell command (values single-quoted by the shell
/// backend).
fn env_lines(command: &str) -> impl Iterator<Item = (String, String)> + '_ {
    command.lines().filter_map(|l| {
        let (k, v) = l.strip_prefix("# env ")?.split_once('=')?;
        let v = if let Some(inner) = v.strip_prefix("$'").and_then(|v| v.strip_suffix('\'')) {
            unescape(inner)
        } else {
            match v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
                Some(inner) => inner.replace(r"'\''", "'"),
                None => v.to_string(),
            }
        };
        Some((k.to_string(), v))
    })
}

/// The value of a `$'…'` word (a multi-line value as the shell backend records it).
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('x') => {
                let h: String = it.by_ref().take(2).collect();
                out.extend(u8::from_str_radix(&h, 16).ok().map(char::from));
            }
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

/// The mitigations still open at the end of `records` (one or more journals in order).
pub fn open_mitigations(records: &[Record]) -> Vec<OpenMitigation> {
    let mut vars: BTreeMap<String, String> = BTreeMap::new();
    // resource → value captured before the next scale of it
    let mut captured: BTreeMap<String, String> = BTreeMap::new();
    let mut open: Vec<OpenMitigation> = Vec::new();
    for r in records {
        match r {
            Record::VariableSet { name, value, .. } => {
                vars.insert(name.clone(), value.clone());
            }
            Record::PriorState(p) if p.field == "spec.replicas" => {
                captured.insert(p.resource.clone(), p.value.trim().to_string());
            }
            Record::ProbeRun(run) if run.succeeded() && !run.is_dry_run() => {
                let mut local = vars.clone();
                local.extend(env_lines(&run.command));
                for c in plan(&run.command, &local) {
                    let Some(new) = c.new_value.filter(|_| c.mutation == Mutation::Scale) else {
                        continue;
                    };
                    let was = captured.remove(&c.resource);
                    if let Some(i) = open.iter().position(|o| o.resource == c.resource) {
                        if open[i].was == new {
                            open.remove(i);
                        } else {
                            open[i].now = new;
                            open[i].at = run.started.clone();
                        }
                    } else if let Some(was) = was {
                        if was != new {
                            open.push(OpenMitigation {
                                resource: c.resource,
                                field: c.field,
                                was,
                                now: new,
                                at: run.started.clone(),
                                probe: run.probe.clone(),
                            });
                        }
                    }
                }
            }
            _ => {}
        }
    }
    open
}

/// The value a restore of `resource` should set: the count captured before it was changed,
/// while that change is still open.
pub fn restore_value(records: &[Record], resource: &str) -> Option<String> {
    open_mitigations(records)
        .into_iter()
        .find(|o| o.resource == resource)
        .map(|o| o.was)
}
