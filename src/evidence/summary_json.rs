//! The checklist section of the IcM summary and the JSON export. Pure. Must not import IO,
//! `cli`, `tui` or `query`.

use std::fmt::Write as _;

use super::record::Record;
use serde_json::{json, Value};

use crate::tsg::Escalation;

use super::checklist::{CheckItem, LinkHow};
use super::describe::{code, describe};
use super::log::SessionLog;
use super::verify::VerifyReport;

pub(super) fn checklist(md: &mut String, esc: &Escalation, items: &[CheckItem]) {
    let _ = write!(md, "\n## Escalation checklist: {}\n\n", esc.team);
    if !esc.channel.is_empty() {
        let _ = writeln!(md, "Channel: {}  ", esc.channel);
    }
    if !esc.trigger.is_empty() {
        let _ = writeln!(md, "Trigger: {}", esc.trigger);
    }
    md.push('\n');
    for it in items {
        let mark = if it.done() { "x" } else { " " };
        let links: Vec<String> = it
            .links
            .iter()
            .map(|l| match &l.how {
                LinkHow::Auto(t) => format!("#{} (runs {})", l.seq, code(t)),
                LinkHow::Explicit => format!("#{}", l.seq),
            })
            .collect();
        let state = match (it.done(), links.is_empty()) {
            (true, true) => " — ticked by the operator".to_owned(),
            (true, false) => format!(" — {}", links.join(", ")),
            (false, _) => " — **missing**".to_owned(),
        };
        let _ = writeln!(md, "- [{mark}] {}{state}", it.text);
    }
    let missing: Vec<&str> = items
        .iter()
        .filter(|i| !i.done())
        .map(|i| i.text.as_str())
        .collect();
    let _ = writeln!(
        md,
        "\n{} of {} items have evidence.{}",
        items.len() - missing.len(),
        items.len(),
        if missing.is_empty() {
            String::new()
        } else {
            format!(" Still missing: {}.", missing.join("; "))
        }
    );
}

/// The JSON export: session header, integrity, every record's one-line description and the checklist.
pub fn summary_json(
    log: &SessionLog,
    team: Option<(&Escalation, &[CheckItem])>,
    report: &VerifyReport,
) -> Value {
    let timeline: Vec<Value> = log.entries.iter().map(|e| json!({"seq": e.seq, "ts": e.ts, "type": e.record.kind(), "dry_run": matches!(&e.record, Record::ProbeRun(p) if p.is_dry_run()), "hash": e.hash, "event": describe(&e.record)})).collect();
    let checklist = team.map(|(esc, items)| json!({
        "team": esc.team,
        "channel": esc.channel,
        "items": items.iter().map(|i| json!({
            "item": i.text,
            "done": i.done(),
            "evidence": i.links.iter().map(|l| json!({"seq": l.seq, "how": match &l.how { LinkHow::Auto(t) => format!("auto: {t}"), LinkHow::Explicit => "explicit".into() }})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    }));
    json!({
        "session": log.id,
        "start": log.start(),
        "integrity": {"ok": report.ok(), "records": report.records, "blobs": report.blobs, "head": report.head, "problem": report.problem.as_ref().map(ToString::to_string)},
        "timeline": timeline,
        "checklist": checklist,
    })
}
