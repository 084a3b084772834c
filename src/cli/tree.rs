//! `tsgnav tree PATH... [--json]`: the decision tree, for people or (with --json) for scripts.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

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
        let (mut lib, failed) = if self.json {
            super::load_classified(&self.paths)
        } else {
            super::load(&self.paths)
        };
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        if self.json {
            write_json(&mut lib, &mut out)?;
        } else {
            out.write_all(render(&lib).as_bytes())?;
        }
        out.flush()?;
        // The process ends here: handing a large library back to the allocator piece by
        // piece would cost more than the exit does.
        std::mem::forget(lib);
        Ok(if failed {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        })
    }
}

/// Streams the JSON a batch of guides at a time, serialising the model directly (each probe's
/// safety class filled in first), so a large library is never copied into a JSON tree. The
/// guides of a batch are classified and serialised on every core; the output is in order.
/// Each core's buffer is kept from batch to batch, so its memory is not asked for again.
pub fn write_json(lib: &mut Library, out: &mut impl std::io::Write) -> anyhow::Result<()> {
    /// Guides per batch: enough to keep every core busy, little enough to hold in memory.
    const BATCH: usize = 256;
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    out.write_all(b"{\"guides\":[")?;
    let mut first = true;
    let mut bufs: Vec<Vec<u8>> = (0..workers).map(|_| Vec::new()).collect();
    for batch in lib.guides.chunks_mut(BATCH) {
        let per = batch.len().div_ceil(workers).max(1);
        let done: Vec<serde_json::Result<()>> = std::thread::scope(|s| {
            let jobs: Vec<_> = batch
                .chunks_mut(per)
                .zip(bufs.iter_mut())
                .map(|(guides, buf)| {
                    buf.clear();
                    s.spawn(move || guides_json(guides, buf))
                })
                .collect();
            jobs.into_iter()
                .map(|j| j.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        });
        for (r, part) in done.into_iter().zip(&bufs) {
            r?;
            if part.is_empty() {
                continue;
            }
            if !first {
                out.write_all(b",")?;
            }
            first = false;
            out.write_all(part)?;
        }
    }
    out.write_all(b"]}\n")?;
    Ok(())
}

/// `guides`, each probe classified, as JSON objects separated by commas, into `buf`.
fn guides_json(guides: &mut [Guide], buf: &mut Vec<u8>) -> serde_json::Result<()> {
    for (i, g) in guides.iter_mut().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        for p in g.nodes.iter_mut().flat_map(|n| n.probes.iter_mut()) {
            if p.safety.is_none() {
                p.safety = Some(super::classify(p));
            }
        }
        serde_json::to_writer(&mut *buf, &*g)?;
    }
    Ok(())
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
