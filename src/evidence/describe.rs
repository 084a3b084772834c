//! One-line descriptions of records and Markdown-safe text helpers, shared by the timeline
//! (`sessions show`), the IcM summary and the JSON export. Pure. Must not import IO, `cli`,
//! `tui` or `query`.

use super::chain::Entry;
use super::log::SessionLog;
use super::record::Record;

/// Longest command shown on one line before it is cut with `…`.
pub const CMD_MAX: usize = 120;

/// What a record says, in one line of plain text (commands in backticks).
pub fn describe(rec: &Record) -> String {
    match rec {
        Record::SessionStart(s) => session_start(s),
        Record::NodeEntered { node } => format!("entered {}", code(node)),
        Record::VariableSet {
            name,
            value,
            source,
        } => format!("set {} = {} ({source})", code(name), code(&one_line(value))),
        Record::ProbeRun(p) => probe_run(p),
        Record::Confirmation(c) => format!(
            "confirmed {} on {} ({})",
            code(&one_line(&c.command)),
            code(&c.target),
            c.safety
        ),
        Record::PriorState(p) => format!(
            "captured prior state {} {} = {}",
            p.resource,
            code(&p.field),
            code(&p.value)
        ),
        Record::Note(n) => note(n),
        Record::ChecklistTick(t) => {
            let mark = if t.checked { "ticked" } else { "unticked" };
            let ev = if t.evidence.is_empty() {
                String::new()
            } else {
                format!(" with evidence {}", seq_list(&t.evidence))
            };
            format!("{mark} \"{}\" for {}{ev}", t.item, t.team)
        }
        Record::EscalationChosen { team, reason } => {
            format!("chose escalation to {team}: {}", one_line(reason))
        }
        Record::Export(x) => format!(
            "exported {}{}",
            x.format,
            x.team
                .as_deref()
                .map(|t| format!(" for {t}"))
                .unwrap_or_default()
        ),
    }
}

fn session_start(s: &super::record::SessionStart) -> String {
    let alert = s
        .alert
        .as_deref()
        .map(|a| format!(" for alert {a}"))
        .unwrap_or_default();
    format!(
        "session started by {} on {} with {}{alert} (tsgnav {})",
        s.operator, s.host, s.guide, s.tool_version
    )
}

/// A probe run: what ran, how and where, and how it ended (or that it goes on as a task).
fn probe_run(p: &super::record::ProbeRun) -> String {
    let target = if p.target.is_empty() {
        String::new()
    } else {
        format!(" on {}", p.target)
    };
    let replayed = if p.replayed { " [REPLAYED]" } else { "" };
    if let Some(t) = p.task.filter(|_| p.is_task_start()) {
        return format!(
            "started {} via {}{target} as background task #{t} (still running; its end is recorded when it stops)",
            code(&one_line(&p.command)),
            p.backend
        );
    }
    let ran = if p.is_dry_run() {
        "dry run (changes nothing) of"
    } else {
        "ran"
    };
    format!(
        "{ran} {} via {}{target} → {}{replayed}",
        code(&one_line(&p.command)),
        p.backend,
        outcome(p)
    )
}

/// A note, or a file attached with its note.
fn note(n: &super::record::Note) -> String {
    match (&n.file, &n.blob) {
        (Some(f), Some(_)) => format!(
            "attached {} ({} bytes): {}",
            code(f),
            n.blob_size,
            one_line(&n.text)
        ),
        _ => format!(
            "note{}: {}",
            n.topic
                .as_deref()
                .map(|t| format!(" ({t})"))
                .unwrap_or_default(),
            one_line(&n.text)
        ),
    }
}

/// `exit 0`, `exit 1 (error text)` or `failed: error text`.
pub fn outcome(p: &super::record::ProbeRun) -> String {
    if let Some(t) = p.task.filter(|_| p.is_task_start()) {
        return format!("started as background task #{t}, still running");
    }
    match (p.exit, &p.error) {
        (Some(c), None) => format!("exit {c}"),
        (Some(c), Some(e)) => format!("exit {c} ({})", one_line(e)),
        (None, Some(e)) => format!("failed: {}", one_line(e)),
        (None, None) => "returned".into(),
    }
}

/// `#3, #5`.
pub fn seq_list(seqs: &[u64]) -> String {
    seqs.iter()
        .map(|s| format!("#{s}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first line of `s`, cut at [`CMD_MAX`] characters, with `…` when anything was dropped.
pub fn one_line(s: &str) -> String {
    let first = s.lines().next().unwrap_or("");
    let more = s.trim_end().lines().nth(1).is_some();
    let mut out: String = first.chars().take(CMD_MAX).collect();
    if more || first.chars().count() > CMD_MAX {
        out.push('…');
    }
    out
}

/// `s` as a Markdown code span, with a fence longer than any backtick run inside it.
pub fn code(s: &str) -> String {
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    if longest > 0 {
        format!("{fence} {s} {fence}")
    } else {
        format!("{fence}{s}{fence}")
    }
}

/// Text safe inside a Markdown table cell.
pub fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// `HH:MM:SS` of an RFC 3339 timestamp (the date is in the summary header).
pub fn clock_time(ts: &str) -> &str {
    ts.get(11..19).unwrap_or(ts)
}

/// `sessions show`: one line per record.
pub fn render_timeline(log: &SessionLog) -> String {
    let mut out = format!("session {} ({} records)\n", log.id, log.entries.len());
    for e in &log.entries {
        out.push_str(&timeline_line(e));
        out.push('\n');
    }
    if let Some(t) = &log.torn {
        out.push_str(&format!("! {t}\n"));
    }
    if let Some(p) = &log.problem {
        out.push_str(&format!("! {p}; the records after it are not shown\n"));
    }
    out
}

fn timeline_line(e: &Entry) -> String {
    let red = if e.redactions > 0 {
        format!(" [{} redacted]", e.redactions)
    } else {
        String::new()
    };
    format!(
        "{:>5}  {}  {:<17} {}{red}",
        format!("#{}", e.seq),
        e.ts,
        e.record.kind(),
        describe(&e.record)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_survive_backticks_and_cells_pipes() {
        assert_eq!(code("kubectl get po"), "`kubectl get po`");
        assert_eq!(code("echo `date`"), "`` echo `date` ``");
        assert_eq!(cell("a | b\nc"), "a \\| b c");
        assert_eq!(one_line("line1\nline2"), "line1…");
    }
}
