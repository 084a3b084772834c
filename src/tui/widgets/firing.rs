//! The "Firing" section of the library screen: a title line with the count and the time of
//! the last refresh, one clear line per Alertmanager that cannot be reached, then the alerts
//! grouped by name (with the step each routes to) and by cluster/region. Pure; no IO.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::wrap::truncate;
use crate::tui::app::App;
use crate::tui::firing::{age, AlertState, Row};

/// How many lines the section takes out of `avail` (at most half, at least its title).
pub fn height(app: &App, avail: u16) -> u16 {
    let f = &app.firing;
    let want = 1 + f.errors.len() + f.rows.len().max(1);
    let cap = usize::from(avail / 2).max(4).min(usize::from(avail));
    u16::try_from(want.min(cap)).unwrap_or(avail)
}

pub fn draw(f: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let fr = &app.firing;
    let w = usize::from(area.width);
    let mut lines = Vec::new();
    let silenced = fr.alerts.len() - fr.active();
    let title = if fr.loading {
        "Firing · asking the Alertmanager…".to_string()
    } else {
        format!(
            "Firing · {} alerts{} · Enter opens its step · refreshed every 30 s",
            fr.active(),
            if silenced > 0 {
                format!(" (+{silenced} silenced or inhibited)")
            } else {
                String::new()
            }
        )
    };
    lines.push(Line::styled(truncate(&title, w), t.get("ui.alert")));
    for e in &fr.errors {
        lines.push(Line::styled(
            truncate(&format!("✗ {}: {}", e.source, e.message), w),
            t.get("ui.error"),
        ));
    }
    let room = usize::from(area.height).saturating_sub(lines.len());
    if fr.rows.is_empty() && !fr.loading && room > 0 {
        lines.push(Line::styled("  nothing is firing", t.get("ui.dim")));
    }
    let sel_row = fr
        .sel
        .and_then(|s| fr.rows.iter().position(|r| *r == Row::Alert(s)));
    let top = match sel_row {
        Some(r) if room > 0 => r.saturating_sub(room - 1),
        _ => 0,
    };
    for (ri, row) in fr.rows.iter().enumerate().skip(top).take(room) {
        let line = match *row {
            Row::Group { first, count } => {
                let Some(a) = fr.alerts.get(first) else {
                    continue;
                };
                let to = match &a.route {
                    Some(r) => {
                        let title = app
                            .nav
                            .index
                            .node(&app.lib, &r.to)
                            .map(|n| n.title.clone())
                            .unwrap_or_else(|| r.to.clone());
                        format!(" → {title}")
                    }
                    None => " → no guide routes it (Enter searches the library)".into(),
                };
                let head = format!("⚑ {} ×{count}", a.name);
                Line::from(vec![
                    Span::styled(head.clone(), t.get("ui.alert")),
                    Span::raw(truncate(&to, w.saturating_sub(head.chars().count()))),
                ])
            }
            Row::Alert(i) => {
                let Some(a) = fr.alerts.get(i) else {
                    continue;
                };
                let l = alert_line(a, fr.at, t, w);
                if sel_row == Some(ri) {
                    l.style(t.get("ui.selected"))
                } else {
                    l
                }
            }
        };
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), area);
}

/// The status line's count: `3 FIRING`, or that an Alertmanager cannot be reached.
pub fn status(app: &App) -> Span<'static> {
    let fr = &app.firing;
    let t = &app.theme;
    if !fr.errors.is_empty() && fr.alerts.is_empty() {
        return Span::styled(" ALERTMANAGER UNREACHABLE ", t.get("ui.error"));
    }
    let n = fr.active();
    let text = match (fr.loading, fr.errors.len()) {
        (true, _) => " FIRING … ".to_string(),
        (false, 0) => format!(" {n} FIRING "),
        (false, e) => format!(" {n} FIRING ({e} unreachable) "),
    };
    Span::styled(
        text,
        if n > 0 {
            t.get("ui.alert")
        } else {
            t.get("ui.dim")
        },
    )
}

/// One alert of a group: where, severity, age, source, and its state unless active.
fn alert_line(
    a: &crate::tui::firing::Alert,
    at: i64,
    t: &crate::tui::theme::Theme,
    w: usize,
) -> Line<'static> {
    let place = a.place();
    let active = a.state == AlertState::Active;
    let state = if active {
        String::new()
    } else if !a.silenced_by.is_empty() {
        " · silenced".into()
    } else {
        format!(" · {}", a.state.as_str())
    };
    let text = format!(
        "    {} · {} · {} · {}{state}",
        if place.is_empty() { "-" } else { &place },
        if a.severity().is_empty() {
            "no severity"
        } else {
            a.severity()
        },
        age(a.since, at),
        a.source
    );
    let style = if active {
        t.get("md.strong")
    } else {
        t.get("ui.dim")
    };
    Line::styled(truncate(&text, w), style)
}
