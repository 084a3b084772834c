//! `tsgnav tree PATH... [--json]`: the decision tree, for people or (with --json) for scripts.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde_json::{json, Value};

use crate::tsg::{EdgeKind, Guide, Library, Role};

#[derive(Debug, Default, Args)]
pub struct TreeArgs {
    /// Guides or folders of guides (default: the guides bundled with tsgnav).
    pub paths: Vec<PathBuf>,
    /// Print the machine-readable JSON described in DESIGN.md instead of the outline.
    #[arg(long)]
    pub json: bool,
}

impl TreeArgs {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let (lib, failed) = super::load(&self.paths);
        let out = if self.json {
            to_json(&lib).to_string() + "\n"
        } else {
            render(&lib)
        };
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(out.as_bytes())?;
        stdout.flush()?;
        Ok(if failed {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        })
    }
}

/// The JSON of DESIGN.md: the model plus each probe's safety class.
pub fn to_json(lib: &Library) -> Value {
    let guides: Vec<Value> = lib
        .guides
        .iter()
        .map(|g| {
            let mut v = serde_json::to_value(g).unwrap_or(Value::Null);
            if let Some(nodes) = v.get_mut("nodes").and_then(Value::as_array_mut) {
                for (nv, n) in nodes.iter_mut().zip(&g.nodes) {
                    if let Some(probes) = nv.get_mut("probes").and_then(Value::as_array_mut) {
                        for (pv, p) in probes.iter_mut().zip(&n.probes) {
                            pv["safety"] = json!(super::classify(p).as_str());
                        }
                    }
                }
            }
            v
        })
        .collect();
    json!({ "guides": guides })
}

fn glyph(role: Role) -> &'static str {
    match role {
        Role::Triage => "⚑",
        Role::Diagnostic => "?",
        Role::BlastRadius => "◎",
        Role::Mitigation => "✚",
        Role::Rollback => "↺",
        Role::Escalation => "⇪",
        Role::Validation => "✓",
        _ => "·",
    }
}

fn short(to: &str, from: &Guide) -> String {
    match to.split_once('#') {
        Some((p, a)) if p == from.path => format!("#{a}"),
        _ => to.to_string(),
    }
}

/// The human-readable outline.
pub fn render(lib: &Library) -> String {
    let mut s = String::new();
    for g in &lib.guides {
        let _ = writeln!(s, "{} — {}", g.file, g.title);
        for r in &g.routes {
            let _ = writeln!(s, "  alert {} → {}", r.alert, short(&r.to, g));
        }
        for n in &g.nodes {
            let indent = "  ".repeat(usize::from(n.level));
            let _ = write!(
                s,
                "{indent}{} {}  [{}]",
                glyph(n.role),
                n.title,
                n.role.as_str()
            );
            if !n.probes.is_empty() {
                let classes: Vec<&str> = n
                    .probes
                    .iter()
                    .map(|p| super::classify(p).as_str())
                    .collect();
                let _ = write!(
                    s,
                    "  ({} probe{}: {})",
                    n.probes.len(),
                    if n.probes.len() == 1 { "" } else { "s" },
                    classes.join(", ")
                );
            }
            s.push('\n');
            for e in n
                .edges
                .iter()
                .filter(|e| matches!(e.kind, EdgeKind::Branch | EdgeKind::Ref | EdgeKind::Route))
            {
                let label: String = e.label.chars().take(60).collect();
                let label = if label.is_empty() {
                    String::new()
                } else {
                    format!("  “{label}”")
                };
                let _ = writeln!(s, "{indent}    ↳ {:?} → {}{label}", e.kind, short(&e.to, g));
            }
        }
        for e in &g.escalations {
            let _ = writeln!(
                s,
                "  escalate to {} — evidence: {}",
                e.team,
                e.evidence.join("; ")
            );
        }
        s.push('\n');
    }
    s
}
