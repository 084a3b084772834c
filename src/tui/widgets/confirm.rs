//! The confirmation screen of a mitigation, drawn over the guide. Two parts: the text above
//! (title, Goal, Risk, Preconditions with their acknowledgements, what is captured first, the
//! dry run) scrolls with PgUp/PgDn; the part pinned at the bottom (the exact command with its
//! values, the target as context · namespace · object, the typed-back field, the keys, the
//! last refusal) is always drawn whole at any size from 80×24. Variables are shown as their
//! values everywhere. Drawing records whether the pinned part fitted, which `Enter` needs.
//! Pure (state in, cells out); no IO.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use super::code::{badge, badge_style};
use super::wrap::wrap;
use crate::human::visible::visible;
use crate::tui::app::App;
use crate::tui::frame::FrameState;
use crate::tui::mitigation::{show_values, DryRunView, Focus, Mitigation};
use crate::tui::theme::Theme;

fn label(t: &Theme, s: &str) -> Span<'static> {
    Span::styled(s.to_string(), t.get("md.h3"))
}

fn block_lines(text: &str, style: Style, out: &mut Vec<Line<'static>>) {
    for l in text.lines() {
        out.push(Line::styled(format!("    {l}"), style));
    }
}

/// The scrolling part; returns the lines and the line of the selected precondition.
pub fn upper(m: &Mitigation, t: &Theme) -> (Vec<Line<'static>>, usize) {
    let v = &m.view;
    let val = |s: &str| visible(&show_values(s, &v.vars));
    let mut out = vec![Line::from(vec![
        Span::styled(format!("{}  ", v.title), t.get("ui.title")),
        Span::styled(badge(v.class).to_string(), badge_style(t, v.class)),
    ])];
    if let Some(g) = &v.goal {
        out.push(Line::from(vec![label(t, "Goal: "), Span::raw(val(g))]));
    }
    if let Some(r) = &v.risk {
        let s = t.get("callout.risk");
        out.push(Line::from(vec![
            Span::styled("Risk: ", s),
            Span::styled(val(r), s),
        ]));
    }
    let mut sel_line = 0;
    if v.preconditions.is_empty() {
        out.push(Line::styled(
            "Preconditions: none written for this step.",
            t.get("ui.dim"),
        ));
    } else {
        out.push(Line::from(vec![
            label(t, "Preconditions"),
            Span::styled("  (each one: j/k move, Space ticks)", t.get("ui.dim")),
        ]));
        if let Some(lead) = &v.lead_in {
            out.push(Line::raw(format!("  {}:", val(lead))));
        }
        for (i, p) in v.preconditions.iter().enumerate() {
            let mark = if m.acks.get(i).copied().unwrap_or(false) {
                "[x]"
            } else {
                "[ ]"
            };
            let here = m.focus == Focus::Preconditions && i == m.sel;
            let l = Line::raw(format!(
                "  {} {mark} {}. {}",
                if here { "›" } else { " " },
                i + 1,
                val(p)
            ));
            if here {
                sel_line = out.len();
            }
            out.push(if here {
                l.style(t.get("ui.selected"))
            } else {
                l
            });
        }
    }
    for c in &v.captures {
        out.push(Line::from(vec![
            label(t, "Recorded first: "),
            Span::raw(val(c)),
        ]));
    }
    match &v.dry_run {
        DryRunView::Runnable(cmd) => {
            out.push(Line::from(vec![
                label(t, "Dry run"),
                Span::styled(
                    "  (d, or Ctrl-d in the field: the server checks it, nothing changes)",
                    t.get("ui.dim"),
                ),
            ]));
            block_lines(&val(cmd), t.get("md.code"), &mut out);
        }
        DryRunView::Preview(req) => {
            out.push(Line::from(vec![
                label(t, "Request it will send"),
                Span::styled("  (no server-side dry run)", t.get("ui.dim")),
            ]));
            block_lines(&val(req), t.get("md.code"), &mut out);
        }
        DryRunView::None(why) => out.push(Line::from(vec![
            label(t, "Dry run: "),
            Span::styled(format!("none ({why})"), t.get("ui.dim")),
        ])),
    }
    (out, sel_line)
}

/// The pinned part: the command, the target, the field, the keys, the last refusal.
pub fn pinned(m: &Mitigation, t: &Theme) -> Vec<Line<'static>> {
    let v = &m.view;
    // What it shows is what runs: invisible characters are written as tokens, not dropped.
    let command = visible(&show_values(&v.command, &v.vars));
    let mut out = vec![Line::from(vec![
        label(t, "Command"),
        Span::styled(
            "  (exactly as it will run, values in place)",
            t.get("ui.dim"),
        ),
    ])];
    block_lines(&command, t.get("md.code"), &mut out);
    if !v.vars.is_empty() {
        let list: Vec<String> = v
            .vars
            .iter()
            .map(|(k, val)| visible(&format!("{k}={val}")))
            .collect();
        out.push(Line::styled(
            format!("    with {}", list.join(" ")),
            t.get("ui.dim"),
        ));
    }
    let (ns, object) = super::scope::scope(&command);
    let described = visible(&show_values(&v.target, &v.vars));
    let mut target = vec![label(t, "Target: "), Span::raw(described.clone())];
    let target_ns = v
        .namespace
        .as_deref()
        .map(|n| visible(&show_values(n, &v.vars)));
    if let Some(ns) = ns.filter(|n| target_ns.as_ref() != Some(n)) {
        target.push(Span::raw(format!(", namespace {ns}")));
    }
    if let Some(o) = object {
        target.push(Span::raw(format!(", {o}")));
    }
    if let Some(p) = &v.place {
        target.push(Span::raw(format!(" · {p}")));
    }
    out.push(Line::from(target));
    if let Some((ok, text)) = &m.dry_output {
        let s = if *ok {
            t.get("status.done")
        } else {
            t.get("ui.error")
        };
        // The answer, not the command echoed above it.
        let answer: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with("$ ") && !l.starts_with("# "))
            .collect();
        for l in &answer[answer.len().saturating_sub(2)..] {
            out.push(Line::styled(format!("  dry run ⎿ {l}"), s));
        }
    }
    let field = if m.focus == Focus::Target {
        t.get("ui.input")
    } else {
        t.get("ui.dim")
    };
    match &v.confirm_name {
        Some(name) => out.push(Line::from(vec![
            label(t, &format!("Type the target `{}` to run: ", visible(name))),
            Span::styled(
                if m.focus == Focus::Target {
                    format!("{}▏", visible(&m.typed))
                } else {
                    format!("{} (Tab to type here)", visible(&m.typed))
                },
                field,
            ),
        ])),
        None => out.push(Line::styled(
            "This probe names no target, so it cannot be confirmed: give it a kube context.",
            t.get("ui.error"),
        )),
    }
    let hint = match m.focus {
        Focus::Preconditions if m.all_acknowledged() => {
            "All acknowledged: Tab or Enter to the field · d dry run · Esc cancels"
        }
        Focus::Preconditions => {
            "Space ticks · Tab to the field · d dry run · PgUp/PgDn scroll · Esc cancels"
        }
        Focus::Target if !m.all_acknowledged() => {
            "Tab back to tick the preconditions first · Ctrl-d dry run · Esc cancels (nothing runs)"
        }
        Focus::Target => {
            "Enter runs · Tab back to the preconditions · Ctrl-d dry run · Esc cancels (nothing runs)"
        }
    };
    out.push(Line::styled(hint, t.get("ui.dim")));
    if let Some(e) = &m.error {
        out.push(Line::styled(e.clone(), t.get("ui.error")));
    }
    if m.busy {
        out.push(Line::styled("Working…", t.get("ui.message")));
    }
    out
}

/// Wraps each line to `w` columns (continuations indented), keeping the line's style.
fn fold(lines: Vec<Line<'static>>, w: usize) -> Vec<Line<'static>> {
    let indent = [Span::raw("      ")];
    lines
        .into_iter()
        .flat_map(|l| {
            let spans: Vec<Span<'static>> = l
                .spans
                .into_iter()
                .map(|s| {
                    let st = l.style.patch(s.style);
                    s.style(st)
                })
                .collect();
            wrap(&spans, w, &[], &indent)
        })
        .collect()
}

/// Every line of the screen, unscrolled (the text above, then the pinned part).
pub fn lines(m: &Mitigation, t: &Theme) -> Vec<Line<'static>> {
    let mut out = upper(m, t).0;
    out.push(Line::default());
    out.extend(pinned(m, t));
    out
}

/// Draws the screen; reports in `fs` whether the pinned part fitted and the scroll used.
pub fn draw(f: &mut Frame, area: Rect, app: &App, fs: &mut FrameState) {
    let t = &app.theme;
    let Some(m) = app.mitigation.as_ref() else {
        return;
    };
    f.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Mitigation: confirm before it runs ")
        .border_style(t.get("callout.risk"));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let w = usize::from(inner.width);
    let h = usize::from(inner.height);
    let low = fold(pinned(m, t), w);
    let (up, sel) = upper(m, t);
    let up_rows: Vec<usize> = up.iter().map(|l| fold(vec![l.clone()], w).len()).collect();
    let up = fold(up, w);
    // The pinned part takes what it needs; the text above gets the rest, less a rule.
    let low_h = low.len().min(h);
    let up_h = h.saturating_sub(low_h + 1);
    let whole = low.len() <= h && w > 0;
    let max = up.len().saturating_sub(up_h);
    let mut top = usize::from(m.scroll);
    if m.focus == Focus::Preconditions && up_h > 0 && m.follow {
        // Keeps the selected precondition whole in sight.
        let row: usize = up_rows.iter().take(sel).sum();
        let end = row + up_rows.get(sel).copied().unwrap_or(1);
        if row < top {
            top = row;
        } else if end > top + up_h {
            top = end.saturating_sub(up_h).min(row);
        }
    }
    let top = top.min(max);
    fs.viewport.confirm = Some((whole, u16::try_from(top).unwrap_or(u16::MAX)));
    let shown: Vec<Line> = up.into_iter().skip(top).take(up_h).collect();
    let y = inner.y;
    let at = |dy: usize, rows: usize| Rect {
        x: inner.x,
        y: y + u16::try_from(dy).unwrap_or(0),
        width: inner.width,
        height: u16::try_from(rows).unwrap_or(0),
    };
    f.render_widget(Paragraph::new(shown), at(0, up_h));
    if up_h > 0 || h > low_h {
        let more = match (top > 0, top < max) {
            (true, true) => " ↑↓ more above and below (PgUp/PgDn) ",
            (false, true) => " ↓ more above the command (PgDn) ",
            (true, false) => " ↑ more (PgUp) ",
            (false, false) => "",
        };
        let rule = format!("─{more}{}", "─".repeat(w));
        f.render_widget(
            Paragraph::new(Line::styled(
                rule.chars().take(w).collect::<String>(),
                t.get("ui.dim"),
            )),
            at(up_h, 1),
        );
    }
    let low_y = h - low_h;
    f.render_widget(
        Paragraph::new(low.into_iter().take(low_h).collect::<Vec<_>>()),
        at(low_y, low_h),
    );
}
