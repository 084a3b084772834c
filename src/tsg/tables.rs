//! Tables and labelled bullets that carry structure: alert triage tables (routes),
//! "Next step" columns (branches) and escalation tables or per-team bullets (escalation
//! targets with their evidence). Pure; imports only sibling `tsg` modules.

use super::model::Escalation;
use super::raw::{Cell, RawItem, RawSection, RawTable};

/// A route or branch as written, before its target is resolved to a node id.
#[derive(Debug, Clone)]
pub struct RawTarget {
    /// The link destination, when the cell links.
    pub dest: Option<String>,
    /// The cell text (for plain-text references such as "Step 4 directly").
    pub text: String,
    pub label: String,
    pub line: usize,
}

/// The first column whose header holds one of `words` (lower-case).
fn col(t: &RawTable, words: &[&str]) -> Option<usize> {
    t.lower
        .iter()
        .position(|h| words.iter().any(|w| holds(h, w)))
}

/// `h.contains(w)` for a short header cell: compared in place at each byte that starts `w`,
/// found by a plain loop (a substring search sets itself up at every call, and even a byte
/// search's call costs more than reading a header of a few words).
fn holds(h: &str, w: &str) -> bool {
    let (h, w) = (h.as_bytes(), w.as_bytes());
    let Some(&first) = w.first() else {
        return true;
    };
    let Some(last) = h.len().checked_sub(w.len()) else {
        return false;
    };
    (0..=last).any(|i| h[i] == first && h.get(i..i + w.len()) == Some(w))
}

fn first_link(section: &RawSection, cell: &Cell) -> Option<String> {
    cell.links
        .iter()
        .filter_map(|i| section.links.get(*i))
        .map(|l| l.dest.clone())
        .find(|d| !d.starts_with("http:") && !d.starts_with("https:") && !d.starts_with("mailto:"))
}

fn looks_like_alert(w: &str) -> bool {
    w.len() >= 3
        && w.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '-')
        && w.chars().any(|c| c.is_ascii_uppercase())
}

/// Alert names in a cell: its code spans, else identifier-like words.
fn alert_names(cell: &Cell) -> Vec<String> {
    let names: Vec<String> = cell
        .codes
        .iter()
        .map(|c| c.trim().to_string())
        .filter(|c| looks_like_alert(c))
        .collect();
    if !names.is_empty() {
        return names;
    }
    cell.text
        .split(|c: char| c.is_whitespace() || c == '/' || c == ',')
        .filter(|w| looks_like_alert(w))
        .map(str::to_string)
        .collect()
}

fn target(section: &RawSection, cell: &Cell, label: &str, line: usize) -> RawTarget {
    RawTarget {
        dest: first_link(section, cell),
        text: cell.text.clone(),
        label: label.to_string(),
        line,
    }
}

const TARGET_WORDS: &[&str] = &[
    "start here",
    "next step",
    "go to",
    "tsg",
    "runbook",
    "route",
    "entry point",
    "section",
    "step",
    "start",
];

/// Routes (alert name, target) from every triage-style table of a section.
pub fn routes(section: &RawSection) -> Vec<(String, RawTarget)> {
    let mut out = Vec::new();
    for t in &section.tables {
        let Some(alert) = col(t, &["alert"]) else {
            continue;
        };
        let Some(to) = t
            .lower
            .iter()
            .enumerate()
            .position(|(i, h)| i != alert && TARGET_WORDS.iter().any(|w| holds(h, w)))
        else {
            continue;
        };
        for (line, row) in &t.rows {
            let (Some(a), Some(dest)) = (row.get(alert), row.get(to)) else {
                continue;
            };
            for name in alert_names(a) {
                out.push((name, target(section, dest, &a.text, *line)));
            }
        }
    }
    out
}

fn is_triage(t: &RawTable) -> bool {
    col(t, &["alert"]).is_some()
}

/// Branches from "Next step"-style columns of non-triage tables.
pub fn branches(section: &RawSection) -> Vec<RawTarget> {
    let mut out = Vec::new();
    for t in section.tables.iter().filter(|t| !is_triage(t)) {
        let Some(next) = col(t, &["next step", "next", "go to", "then"]) else {
            continue;
        };
        for (line, row) in &t.rows {
            let label = row.first().map(|c| c.text.clone()).unwrap_or_default();
            if let Some(cell) = row.get(next) {
                out.push(target(section, cell, &label, *line));
            }
        }
    }
    out
}

fn clean_team(s: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '*' | '`' => {}
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    super::text::squash(&out)
}

/// Splits an evidence list on `,`, `;` and line breaks outside backticks and parentheses.
pub fn split_evidence(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut tick, mut depth) = (Vec::new(), String::new(), false, 0usize);
    for c in s.chars() {
        match c {
            '`' => tick = !tick,
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if !tick && depth == 0 && matches!(c, ',' | ';' | '\n') {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    out.push(cur);
    out.into_iter()
        .map(|e| e.trim().trim_end_matches('.').trim().to_string())
        .filter(|e| !e.is_empty() && e != "-" && e != "—")
        .collect()
}

/// Escalation targets from tables (a team column and an evidence column) and from
/// per-team bullets (`**Who to engage:**` with nested `**Evidence to attach:**`).
pub fn escalations(section: &RawSection) -> Vec<Escalation> {
    let mut out = Vec::new();
    for t in &section.tables {
        let (Some(team), Some(ev)) = (
            col(t, &["escalate to", "team", "who", "owner"]),
            col(t, &["evidence", "attach"]),
        ) else {
            continue;
        };
        let trig = col(t, &["symptom", "signal", "trigger", "when"]);
        let chan = col(t, &["channel", "how"]);
        for (line, row) in &t.rows {
            let cell = |i: Option<usize>| {
                i.and_then(|i| row.get(i))
                    .map(|c| c.text.clone())
                    .unwrap_or_default()
            };
            let name = clean_team(&cell(Some(team)));
            if name.is_empty() || name == "-" {
                continue;
            }
            out.push(Escalation {
                team: name,
                trigger: cell(trig),
                channel: cell(chan),
                evidence: split_evidence(&cell(Some(ev))),
                line: *line,
            });
        }
    }
    out.extend(bullet_escalations(&section.items));
    out
}

fn bullet_escalations(items: &[RawItem]) -> Vec<Escalation> {
    let mut out: Vec<(usize, Escalation)> = Vec::new();
    for (idx, item) in items.iter().enumerate() {
        let Some(label) = item.para.label.as_ref().filter(|l| l.colon) else {
            continue;
        };
        let key = label.text.to_lowercase();
        if ["who to engage", "team", "escalate to"].contains(&key.as_str()) {
            let e = Escalation {
                team: clean_team(&item.para.value),
                line: item.para.line,
                ..Escalation::default()
            };
            out.push((idx, e));
            continue;
        }
        let Some((_, e)) = out.iter_mut().rev().find(|(i, _)| item.parent == Some(*i)) else {
            continue;
        };
        if key.contains("evidence") || key.contains("attach") {
            e.evidence = split_evidence(&item.para.value);
        } else if key.contains("trigger") || key == "when" {
            e.trigger = item.para.value.clone();
        } else if key.contains("how") || key.contains("channel") {
            e.channel = item.para.value.clone();
        }
    }
    out.into_iter().map(|(_, e)| e).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_split_respects_code_and_parens() {
        assert_eq!(
            split_evidence(
                "`kubectl describe mtpnc`, CNS logs, blast radius (subscriptions, clusters)."
            ),
            vec![
                "`kubectl describe mtpnc`",
                "CNS logs",
                "blast radius (subscriptions, clusters)"
            ]
        );
        assert!(split_evidence("-").is_empty());
        assert_eq!(
            clean_team("**Cloudnet/NRP** (not DNC, not RNM)"),
            "Cloudnet/NRP"
        );
    }

    proptest::proptest! {
        #[test]
        fn holds_is_contains(h in "[a-z ]{0,14}", w in "[a-z ]{0,4}") {
            proptest::prop_assert_eq!(holds(&h, &w), h.contains(w.as_str()));
        }
    }
}
