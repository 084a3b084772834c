//! Code blocks in the node pane: a frame with the probe number, name, language and safety
//! badge, the code (wrapped, indentation kept), and the probe's result under it (with a chart
//! of its range-query series). Pure; no IO.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::markdown::ProbeView;
use super::wrap::{truncate, wrap};
use crate::tsg::{Lang, SafetyClass};
use crate::tui::theme::Theme;

/// The badge text of a class (`MUTATING` shouts).
pub fn badge(class: SafetyClass) -> &'static str {
    match class {
        SafetyClass::ReadOnly => " read-only ",
        SafetyClass::Mutating => " MUTATING ",
        SafetyClass::Interactive => " interactive ",
        SafetyClass::LongRunning => " long-running ",
        SafetyClass::Unknown => " unknown: treated as MUTATING ",
    }
}

/// Where a probe's commands run: `in pod etcd-0`, `on node <node-name>`, `on host bastion`.
pub fn runs_in_badge(r: &crate::tsg::RunsIn) -> String {
    let target = if r.target.is_empty() { "?" } else { &r.target };
    match r.kind {
        crate::tsg::ShellKind::Pod => format!("in pod {target}"),
        crate::tsg::ShellKind::Node => format!("on node {target}"),
        crate::tsg::ShellKind::Host => format!("on host {target}"),
    }
}

pub fn badge_style(theme: &Theme, class: SafetyClass) -> Style {
    theme.get(&format!("badge.{}", class.as_str()))
}

/// Appends the block to `out`; `probe` is (index, view) when the block is a probe.
pub fn render(
    info: &str,
    code: &str,
    width: usize,
    t: &Theme,
    probe: Option<(usize, &ProbeView<'_>)>,
    out: &mut Vec<Line<'static>>,
) {
    let frame = t.get("md.code_frame");
    let lang = info.split_whitespace().next().unwrap_or("");
    let mut head = vec![Span::styled("┌─ ", frame)];
    let mut result = None;
    let mut stamp = None;
    let mut streaming = None;
    if let Some((i, p)) = probe {
        streaming = p.streaming;
        stamp = Some(&p.stamp);
        let name = p
            .probe
            .attrs
            .get("name")
            .map(|n| format!(" {n}"))
            .unwrap_or_default();
        head.push(Span::styled(
            format!(
                "probe {}{name} · {} ",
                i + 1,
                if lang.is_empty() { "sh" } else { lang }
            ),
            frame,
        ));
        head.extend(badges(p, t, frame));
        result = p.result;
    } else if !lang.is_empty() {
        head.push(Span::styled(lang.to_string(), frame));
    }
    out.push(Line::from(head));
    let text_style = t.get("md.code_text");
    for l in code.trim_end_matches('\n').lines() {
        let spans = [Span::styled(l.replace('\t', "    "), text_style)];
        out.extend(wrap(
            &spans,
            width,
            &[Span::styled("│ ", frame)],
            &[Span::styled("│   ", frame)],
        ));
    }
    out.push(Line::styled("└─", frame));
    if let Some(live) = streaming {
        running(live, width, t, out);
    } else if let Some(r) = result {
        let s = if r.ok {
            t.get("status.done")
        } else {
            t.get("ui.error")
        };
        if let Some(stamp) = stamp.filter(|st| !st.is_empty()) {
            let st = if stamp.stale {
                t.get("ui.error")
            } else {
                t.get("ui.dim")
            };
            out.push(Line::from(vec![
                Span::styled("  ⎿ ", s),
                Span::styled(truncate(&stamp.text, width.saturating_sub(4)), st),
            ]));
        }
        if r.text.lines().count() > 200 || r.text.lines().any(|l| super::wrap::width(l) > width) {
            out.push(Line::from(vec![
                Span::styled("  ⎿ ", s),
                Span::styled(
                    "o reads it all: ←→ scroll, w wrap, / search",
                    t.get("ui.dim"),
                ),
            ]));
        }
        for l in r.text.lines().take(200) {
            out.push(Line::from(vec![
                Span::styled("  ⎿ ", s),
                Span::raw(truncate(l, width.saturating_sub(4))),
            ]));
        }
        if !r.series.is_empty() {
            out.extend(super::chart::lines(&r.series, width, t));
        }
    }
    out.push(Line::default());
}

/// How many of a running probe's last lines the step shows.
pub const RUNNING_LINES: usize = 12;

/// A running probe's output so far: its size, then its last lines.
fn running(
    live: &crate::tui::state::Streaming,
    width: usize,
    t: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    let s = t.get("ui.dim");
    out.push(Line::from(vec![
        Span::styled("  ⎿ ", s),
        Span::styled(
            format!(
                "running · {} so far, the last lines:",
                crate::human::bytes(live.bytes)
            ),
            s,
        ),
    ]));
    let lines: Vec<&str> = live.tail.lines().collect();
    for l in &lines[lines.len().saturating_sub(RUNNING_LINES)..] {
        out.push(Line::from(vec![
            Span::styled("  ⎿ ", s),
            Span::raw(truncate(l, width.saturating_sub(4))),
        ]));
    }
}

/// The probe header's badges: its safety class, "by the classifier only", NOT ISOLATED, and
/// where it runs.
fn badges(p: &ProbeView<'_>, t: &Theme, frame: ratatui::style::Style) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    if p.probe.lang != Lang::Text {
        out.push(Span::styled(badge(p.class), badge_style(t, p.class)));
        // Through the egress proxy's CONNECT the method of a TLS API is invisible.
        if p.class == SafetyClass::ReadOnly
            && crate::safety::classifier_only(&p.probe.code).is_some()
        {
            out.push(Span::styled(" by the classifier only ", t.get("ui.dim")));
        }
    }
    if p.not_isolated && p.probe.lang == Lang::Shell {
        out.push(Span::styled(" NOT ISOLATED ", t.get("badge.mutating")));
    }
    if let Some(r) = p.probe.runs_in.as_ref() {
        out.push(Span::styled(format!(" {} ", runs_in_badge(r)), frame));
    }
    out
}
