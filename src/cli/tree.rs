//! `tsgnav tree PATH... [--json]`: the decision tree, for people or (with --json) for scripts.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::tsg::{EdgeKind, Guide, Library, Role};

mod stream;

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
        let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout_raw()?);
        let failed = if self.json && !self.paths.is_empty() {
            stream::stream_json(&self.paths, &mut out)?
        } else {
            let (mut lib, failed) = if self.json {
                super::load_classified(&self.paths)
            } else {
                super::load(&self.paths)
            };
            if self.json {
                write_json(&mut lib, &mut out)?;
            } else {
                out.write_all(render(&lib).as_bytes())?;
            }
            super::leave_to_exit(lib);
            failed
        };
        out.flush()?;
        Ok(if failed {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        })
    }
}

/// Standard output as a file of its own: Rust's `Stdout` is line-buffered whatever it is
/// connected to, and searches every block written for its last newline (a few percent of a
/// large library's `tree --json`, whose JSON has one newline). Only this command writes to it.
fn stdout_raw() -> anyhow::Result<std::fs::File> {
    use std::os::fd::AsFd as _;
    let fd = std::io::stdout().as_fd().try_clone_to_owned()?;
    Ok(std::fs::File::from(fd))
}

/// Writes a loaded (and linked) library's JSON, each probe's safety class filled in first.
pub fn write_json(lib: &mut Library, out: &mut impl std::io::Write) -> anyhow::Result<()> {
    out.write_all(b"{\"guides\":[")?;
    let mut buf = Vec::new();
    for (i, g) in lib.guides.iter_mut().enumerate() {
        buf.clear();
        if i > 0 {
            buf.push(b',');
        }
        classify_probes(g);
        // Linked already: a target without an anchor is one that names no guide.
        crate::tsg::json::guide(g, &mut buf, &mut Vec::new());
        out.write_all(&buf)?;
    }
    out.write_all(b"]}\n")?;
    Ok(())
}

fn classify_probes(g: &mut Guide) {
    for p in g.nodes.iter_mut().flat_map(|n| n.probes.iter_mut()) {
        if p.safety.is_none() {
            p.safety = Some(super::classify(p));
        }
    }
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
