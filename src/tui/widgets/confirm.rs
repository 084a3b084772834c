//! The confirmation screen of a mitigation: Goal, Risk, Preconditions with their
//! acknowledgements, what is captured first, the exact command, the target, the dry run and
//! the typed-back target. Drawn over the guide; pure (state in, cells out); no IO.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;

use super::code::{badge, badge_style};
use crate::tui::app::App;
use crate::tui::mitigation::{DryRunView, Focus, Mitigation};
use crate::tui::theme::Theme;

fn label(t: &Theme, s: &str) -> Span<'static> {
    Span::styled(s.to_string(), t.get("md.h3"))
}

fn block_lines(text: &str, style: Style, out: &mut Vec<Line<'static>>) {
    for l in text.lines() {
        out.push(Line::styled(format!("    {l}"), style));
    }
}

/// Every line of the screen.
pub fn lines(m: &Mitigation, t: &Theme) -> Vec<Line<'static>> {
    let v = &m.view;
    let mut out = vec![Line::from(vec![
        Span::styled(format!("{}  ", v.title), t.get("ui.title")),
        Span::styled(badge(v.class).to_string(), badge_style(t, v.class)),
    ])];
    if let Some(g) = &v.goal {
        out.push(Line::from(vec![label(t, "Goal: "), Span::raw(g.clone())]));
    }
    if let Some(r) = &v.risk {
        out.push(Line::from(vec![
            Span::styled("Risk: ", t.get("callout.risk")),
            Span::styled(r.clone(), t.get("callout.risk")),
        ]));
    }
    out.push(Line::default());
    if v.preconditions.is_empty() {
        out.push(Line::styled(
            "Preconditions: none written for this step.",
            t.get("ui.dim"),
        ));
    } else {
        out.push(Line::from(vec![
            label(t, "Preconditions"),
            Span::styled(
                "  (acknowledge each: j/k move, Space ticks)",
                t.get("ui.dim"),
            ),
        ]));
        for (i, p) in v.preconditions.iter().enumerate() {
            let mark = if m.acks.get(i).copied().unwrap_or(false) {
                "[x]"
            } else {
                "[ ]"
            };
            let cursor = if m.focus == Focus::Preconditions && i == m.sel {
                "›"
            } else {
                " "
            };
            let l = Line::raw(format!("  {cursor} {mark} {}. {p}", i + 1));
            out.push(if m.focus == Focus::Preconditions && i == m.sel {
                l.style(t.get("ui.selected"))
            } else {
                l
            });
        }
    }
    for c in &v.captures {
        out.push(Line::from(vec![
            label(t, "Recorded first: "),
            Span::raw(c.clone()),
        ]));
    }
    out.push(Line::default());
    out.push(Line::from(vec![
        label(t, "Command"),
        Span::styled("  (exactly as it will run)", t.get("ui.dim")),
    ]));
    block_lines(&v.command, t.get("md.code"), &mut out);
    out.push(Line::from(vec![
        label(t, "Target: "),
        Span::raw(v.target.clone()),
    ]));
    match &v.dry_run {
        DryRunView::Runnable(cmd) => {
            out.push(Line::from(vec![
                label(t, "Dry run"),
                Span::styled(
                    "  (d, or Ctrl-d while typing: the server checks it, nothing changes)",
                    t.get("ui.dim"),
                ),
            ]));
            block_lines(cmd, t.get("md.code"), &mut out);
        }
        DryRunView::Preview(req) => {
            out.push(Line::from(vec![
                label(t, "Request it will send"),
                Span::styled("  (no server-side dry run)", t.get("ui.dim")),
            ]));
            block_lines(req, t.get("md.code"), &mut out);
        }
        DryRunView::None(why) => out.push(Line::from(vec![
            label(t, "Dry run: "),
            Span::styled(format!("none ({why})"), t.get("ui.dim")),
        ])),
    }
    if let Some((ok, text)) = &m.dry_output {
        let s = if *ok {
            t.get("status.done")
        } else {
            t.get("ui.error")
        };
        for l in text.lines().take(40) {
            out.push(Line::styled(format!("  ⎿ {l}"), s));
        }
    }
    out.push(Line::default());
    let field = if m.focus == Focus::Target {
        t.get("ui.input")
    } else {
        t.get("ui.dim")
    };
    match &v.confirm_name {
        Some(name) => out.push(Line::from(vec![
            label(t, &format!("Type the target `{name}` to run: ")),
            Span::styled(
                format!(
                    "{}{}",
                    m.typed,
                    if m.focus == Focus::Target { "▏" } else { "" }
                ),
                field,
            ),
        ])),
        None => out.push(Line::styled(
            "This probe names no target, so it cannot be confirmed: give it a kube context.",
            t.get("ui.error"),
        )),
    }
    out.push(Line::styled(
        "Enter runs after the target is typed · Tab switches field · Esc cancels (nothing runs)",
        t.get("ui.dim"),
    ));
    if let Some(e) = &m.error {
        out.push(Line::styled(e.clone(), t.get("ui.error")));
    }
    if m.busy {
        out.push(Line::styled("Working…", t.get("ui.message")));
    }
    out
}

pub fn draw(f: &mut Frame, area: Rect, app: &App) {
    let Some(m) = app.mitigation.as_ref() else {
        return;
    };
    let t = &app.theme;
    f.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Mitigation: confirm before it runs ")
        .border_style(t.get("callout.risk"));
    let inner = block.inner(area);
    f.render_widget(block, area);
    f.render_widget(
        Paragraph::new(lines(m, t))
            .wrap(Wrap { trim: false })
            .scroll((m.scroll, 0)),
        inner,
    );
}
