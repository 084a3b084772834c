//! `tsgnav tree PATH... [--json]`: the decision tree, for people or (with --json) for scripts.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

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
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let failed = if self.json && !self.paths.is_empty() {
            stream_json(&self.paths, &mut out)?
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
            // The process ends soon: handing a large library back to the allocator piece by
            // piece would cost more than the exit does.
            std::mem::forget(lib);
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

/// One guide's JSON, made on the thread that parsed it; the guide itself is gone by then.
struct GuideJson {
    bytes: Vec<u8>,
    /// Targets without an anchor: they may name another guide, whose first node they become.
    holes: Vec<crate::tsg::json::Hole>,
    path: String,
    first: Option<String>,
}

/// `tree --json` over `paths` as one stream: each guide is parsed, classified, its roles
/// refined and its JSON written on the core that read it, and this thread writes each guide
/// out (in file order) as soon as the guides its targets may name are in: so output starts
/// with the first file, no core waits for a batch, and the library is never held whole.
/// The bytes are those of loading the library, linking it and serialising it. Returns
/// whether a file failed to load (each problem is printed as it is met).
fn stream_json(paths: &[PathBuf], out: &mut impl std::io::Write) -> anyhow::Result<bool> {
    let (files, errors) = crate::load::discover(paths);
    let mut failed = false;
    for e in &errors {
        failed |= report(e);
    }
    // A target names a guide by its relative path; the last file of that path wins (as in
    // `tsg::link_library`), so a target is known once that file is in.
    let last: HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, s)| (s.rel.as_str(), i))
        .collect();
    let map = |mut g: Guide| {
        classify_probes(&mut g);
        crate::safety::refine_roles(&mut g);
        let mut j = GuideJson {
            bytes: Vec::with_capacity(8192),
            holes: Vec::new(),
            first: g.nodes.first().map(|n| n.id.clone()),
            path: g.path.clone(),
        };
        crate::tsg::json::guide(&g, &mut j.bytes, &mut j.holes);
        j
    };
    let mut firsts: HashMap<String, String> = HashMap::new();
    let mut waiting: VecDeque<GuideJson> = VecDeque::new();
    let mut wrote = 0usize;
    let mut result: std::io::Result<()> = out.write_all(b"{\"guides\":[");
    let cache = super::guide_cache();
    let (_, writer) =
        crate::load::parse_mapped(&files, cache.as_ref(), Duration::MAX, &map, |step| {
            let Some((i, r)) = step else {
                return;
            };
            match r {
                Ok(j) => {
                    if let Some(f) = &j.first {
                        firsts.insert(j.path.clone(), f.clone());
                    }
                    waiting.push_back(j);
                }
                Err(e) => failed |= report(&e),
            }
            let known = |to: &str| last.get(to).is_none_or(|&k| k <= i);
            while waiting
                .front()
                .is_some_and(|j| j.holes.iter().all(|h| known(&h.to)))
            {
                if let Some(j) = waiting.pop_front() {
                    if result.is_ok() {
                        result = write_guide(out, &j, &firsts, wrote > 0);
                    }
                    wrote += 1;
                }
            }
        });
    // Every file is in: the rest can be written.
    for j in waiting {
        if result.is_ok() {
            result = write_guide(out, &j, &firsts, wrote > 0);
        }
        wrote += 1;
    }
    if let Some(w) = writer {
        let _ = w.join();
    }
    result?;
    out.write_all(b"]}\n")?;
    Ok(failed)
}

/// Prints a load problem; says whether it is an error (not a warning).
fn report(e: &crate::load::LoadError) -> bool {
    let level = if e.is_warning() { "warning" } else { "error" };
    eprintln!("{level}: {e}");
    !e.is_warning()
}

/// Writes one guide's JSON, each hole filled with the first node of the guide it names.
fn write_guide(
    out: &mut impl std::io::Write,
    j: &GuideJson,
    firsts: &HashMap<String, String>,
    comma: bool,
) -> std::io::Result<()> {
    if comma {
        out.write_all(b",")?;
    }
    let mut at = 0;
    for h in &j.holes {
        if let Some(id) = firsts.get(&h.to) {
            out.write_all(&j.bytes[at..h.start])?;
            let mut s = Vec::with_capacity(id.len() + 2);
            crate::tsg::json::string(&mut s, id);
            out.write_all(&s)?;
            at = h.end;
        }
    }
    out.write_all(&j.bytes[at..])
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
