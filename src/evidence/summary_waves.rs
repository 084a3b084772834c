//! The wave table of the IcM summary: for a fleet mitigation run in waves (`tsgnav run …
//! --waves`), one row per context with its wave and where it ended (ok, failed, restored),
//! read from the journal's `wave` notes. Pure. Must not import IO, `cli`, `tui` or `query`.

use std::fmt::Write as _;

use crate::mitigate::waves::parse_note;

use super::describe::{cell, code};
use super::log::SessionLog;
use super::record::Record;

/// Appends `## Waves` when the session holds wave notes; the last note on a context wins.
pub fn waves(md: &mut String, log: &SessionLog) {
    let mut rows: Vec<(String, String, String, String)> = Vec::new();
    for e in &log.entries {
        let Record::Note(n) = &e.record else { continue };
        if n.topic.as_deref() != Some("wave") {
            continue;
        }
        let Some((ctx, state)) = parse_note(&n.text) else {
            continue;
        };
        let mut parts = n.text.splitn(4, " · ");
        let wave = parts
            .next()
            .unwrap_or("")
            .trim_start_matches("wave ")
            .to_string();
        let detail = parts.nth(2).unwrap_or("").to_string();
        rows.retain(|(_, c, _, _)| *c != ctx);
        rows.push((wave, ctx, state.word().to_string(), detail));
    }
    if rows.is_empty() {
        return;
    }
    let count = |w: &str| rows.iter().filter(|r| r.2 == w).count();
    let _ = write!(
        md,
        "\n## Waves\n\n{} contexts: {} ok, {} failed, {} restored.\n\n| Wave | Context | State | Detail |\n|---|---|---|---|\n",
        rows.len(),
        count("ok"),
        count("failed"),
        count("restored")
    );
    for (wave, ctx, state, detail) in &rows {
        let _ = writeln!(
            md,
            "| {wave} | {} | {state} | {} |",
            code(ctx),
            cell(detail)
        );
    }
}
