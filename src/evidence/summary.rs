//! The IcM summary: Markdown ready to paste into an incident (alert, impact, timeline, findings
//! per step, mitigations with prior state and what is still open, evidence table with digests, the chosen team's
//! checklist with what is missing; see `summary_json`). Pure. Must not import IO, `cli`, `tui`
//! or `query`.

use std::fmt::Write as _;

use crate::tsg::Escalation;

use super::checklist::CheckItem;
use super::describe::{cell, clock_time, code, describe, one_line, outcome};
use super::log::SessionLog;
use super::record::Record;
use super::verify::VerifyReport;

/// Lines of inline output quoted under a finding.
const EXCERPT_LINES: usize = 12;

/// The Markdown summary. `team` is the chosen escalation target and its checklist.
pub fn render_markdown(
    log: &SessionLog,
    team: Option<(&Escalation, &[CheckItem])>,
    report: &VerifyReport,
) -> String {
    let mut md = String::new();
    head(&mut md, log, team, report);
    impact(&mut md, log);
    section(&mut md, "Timeline (UTC)");
    md.push_str("| Time | # | Event |\n|---|---|---|\n");
    for e in &log.entries {
        let _ = writeln!(
            md,
            "| {} | {} | {} |",
            clock_time(&e.ts),
            e.seq,
            cell(&describe(&e.record))
        );
    }
    findings(&mut md, log);
    mitigations(&mut md, log);
    super::summary_waves::waves(&mut md, log);
    evidence_table(&mut md, log);
    if let Some((esc, items)) = team {
        super::summary_json::checklist(&mut md, esc, items);
    }
    md
}

/// The SIMULATED banner, the title and the table of what the session is.
fn head(
    md: &mut String,
    log: &SessionLog,
    team: Option<(&Escalation, &[CheckItem])>,
    report: &VerifyReport,
) {
    let start = log.start().cloned().unwrap_or_default();
    let alert = start.alert.as_deref().unwrap_or("no alert named");
    if start.simulated {
        md.push_str("**SIMULATED**: this session ran against simulated systems (`tsgnav demo`); nothing in it happened on a real one.\n\n");
    }
    let _ = writeln!(md, "# Incident evidence: {alert}\n");
    let first = log.entries.first().map_or("", |e| e.ts.as_str());
    let last = log.entries.last().map_or("", |e| e.ts.as_str());
    md.push_str("| | |\n|---|---|\n");
    let rows = [
        ("Alert", cell(alert)),
        ("Session", code(&log.id)),
        (
            "Guide",
            format!(
                "{} (sha256 {})",
                code(&start.guide),
                code(&start.guide_sha256)
            ),
        ),
        (
            "Operator",
            cell(&format!("{} on {}", start.operator, start.host)),
        ),
        ("Started", first.to_owned()),
        ("Last record", last.to_owned()),
        (
            "Escalation",
            team.map_or("none chosen".into(), |(e, _)| cell(&e.team)),
        ),
        ("Integrity", integrity(report)),
        ("Tool", format!("tsgnav {}", start.tool_version)),
    ];
    for (k, v) in rows {
        let _ = writeln!(md, "| {k} | {v} |");
    }
}

/// The notes with topic `impact`, or a line that says there are none.
fn impact(md: &mut String, log: &SessionLog) {
    section(md, "Impact");
    let impact: Vec<_> = log
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Note(n) if n.topic.as_deref() == Some("impact") => Some((e, n)),
            _ => None,
        })
        .collect();
    if impact.is_empty() {
        md.push_str("_No impact recorded in this session (add a note with topic `impact`)._\n");
    }
    for (e, n) in impact {
        let _ = writeln!(
            md,
            "- {} (#{}, {})",
            n.text.trim(),
            e.seq,
            clock_time(&e.ts)
        );
    }
}

fn section(md: &mut String, title: &str) {
    while md.ends_with("\n\n") {
        md.pop();
    }
    let _ = write!(md, "\n## {title}\n\n");
}

fn integrity(r: &VerifyReport) -> String {
    match &r.problem {
        None => {
            let signed = match (&r.unsigned, r.signers.as_slice()) {
                (Some(why), _) => format!("**unsigned** ({})", cell(why)),
                (None, s) => s
                    .iter()
                    .map(|s| {
                        format!(
                            "signed by {} with key {} (fingerprint {})",
                            cell(&s.operator),
                            code(&s.key_id),
                            code(&s.fingerprint)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", then "),
            };
            format!(
                "verified: {} records, {} blobs, chain head {}, {signed}",
                r.records,
                r.blobs,
                code(&r.head)
            )
        }
        Some(p) => format!("**FAILED**: {}", cell(&p.to_string())),
    }
}

fn findings(md: &mut String, log: &SessionLog) {
    section(md, "Findings per step");
    let mut node = String::from("(before any step)");
    let mut shown = String::new();
    let mut any = false;
    for e in &log.entries {
        let line = match &e.record {
            Record::NodeEntered { node: n } => {
                node = n.clone();
                continue;
            }
            Record::ProbeRun(p) => {
                let mut l = format!(
                    "- #{} {} `{}`{} → {}, {} bytes, sha256 {}",
                    e.seq,
                    clock_time(&e.ts),
                    p.backend,
                    if p.is_dry_run() {
                        " dry run (changes nothing)"
                    } else {
                        ""
                    },
                    outcome(p),
                    p.output_size,
                    code(&p.output_sha256)
                );
                if p.replayed {
                    l.push_str(" **[REPLAYED]**");
                }
                let _ = write!(l, "\n\n  {}\n", code(&one_line(&p.command)));
                if let Some(out) = p.output.as_deref().filter(|o| !o.trim().is_empty()) {
                    l.push_str(&excerpt(out));
                }
                if let Some(b) = &p.blob {
                    let _ = write!(
                        l,
                        "\n  Output: {} bytes in `blobs/{b}` of the bundle.\n",
                        p.output_size
                    );
                }
                l.push('\n');
                l
            }
            Record::Note(n) if n.topic.as_deref() != Some("impact") => format!(
                "- #{} {} {}\n\n",
                e.seq,
                clock_time(&e.ts),
                describe(&e.record).replace('\n', " ")
            ),
            _ => continue,
        };
        if shown != node {
            let heading = if node.starts_with('(') {
                "Before any step".to_owned()
            } else {
                code(&node)
            };
            let _ = write!(md, "### {heading}\n\n");
            shown = node.clone();
        }
        md.push_str(&line);
        any = true;
    }
    if !any {
        md.push_str("_No probe ran and no note was written._\n");
    }
}

/// The first lines of an output, indented as a fenced block under a list item.
fn excerpt(out: &str) -> String {
    let lines: Vec<&str> = out.lines().collect();
    let longest = out.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let mut s = format!("\n  {fence}text\n");
    for l in lines.iter().take(EXCERPT_LINES) {
        let _ = writeln!(s, "  {l}");
    }
    if lines.len() > EXCERPT_LINES {
        let _ = writeln!(
            s,
            "  … {} more lines (full output in the evidence bundle)",
            lines.len() - EXCERPT_LINES
        );
    }
    let _ = writeln!(s, "  {fence}");
    s
}

fn mitigations(md: &mut String, log: &SessionLog) {
    section(md, "Mitigations");
    let mut any = false;
    for e in &log.entries {
        let line = match &e.record {
            Record::Confirmation(c) => {
                let pre = if c.preconditions.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; preconditions acknowledged: {}",
                        c.preconditions.join("; ")
                    )
                };
                format!(
                    "- #{} {} confirmed {} on {} ({}){pre}",
                    e.seq,
                    clock_time(&e.ts),
                    code(&one_line(&c.command)),
                    code(&c.target),
                    c.safety
                )
            }
            Record::PriorState(p) => {
                let by = if p.command.is_empty() {
                    String::new()
                } else {
                    format!(", read with {}", code(&one_line(&p.command)))
                };
                format!(
                    "- #{} {} prior state of {}: {} = {}{by} (the restore uses this value)",
                    e.seq,
                    clock_time(&e.ts),
                    p.resource,
                    code(&p.field),
                    code(&p.value)
                )
            }
            _ => continue,
        };
        md.push_str(&line);
        md.push('\n');
        any = true;
    }
    if !any {
        md.push_str("_No mitigation was confirmed in this session._\n");
    }
    let records: Vec<Record> = log.entries.iter().map(|e| e.record.clone()).collect();
    for o in super::open_mitigations(&records) {
        let _ = writeln!(md, "- **STILL OPEN at export:** {o}");
    }
}

fn evidence_table(md: &mut String, log: &SessionLog) {
    section(md, "Evidence");
    md.push_str(
        "| # | Time | Kind | What | Result | Bytes | sha256 |\n|---|---|---|---|---|---|---|\n",
    );
    for e in &log.entries {
        let row = match &e.record {
            Record::ProbeRun(p) => {
                let stored = if p.blob.is_some() { " (blob)" } else { "" };
                (
                    if p.is_dry_run() {
                        format!("dry run {}", p.backend)
                    } else {
                        format!("probe {}", p.backend)
                    },
                    code(&one_line(&p.command)),
                    outcome(p),
                    p.output_size,
                    format!("{}{stored}", code(&p.output_sha256)),
                )
            }
            Record::Note(n) => match (&n.blob, &n.file) {
                (Some(b), f) => (
                    "attachment".into(),
                    code(f.as_deref().unwrap_or("file")),
                    one_line(&n.text),
                    n.blob_size,
                    format!("{} (blob)", code(b)),
                ),
                _ => continue,
            },
            _ => continue,
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            e.seq,
            clock_time(&e.ts),
            row.0,
            cell(&row.1),
            cell(&row.2),
            row.3,
            row.4
        );
    }
}
