//! The library screen: every guide and the alert index, or the fuzzy-search hits over guide
//! titles, step titles and alert names. Pure; no IO.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::wrap::truncate;
use crate::tui::app::{App, Input};
use crate::tui::search::Hit;
use crate::tui::theme::glyph;

pub fn draw(f: &mut Frame, area: Rect, app: &mut App) {
    let t = &app.theme;
    let [head, search, list] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(2),
        Constraint::Min(1),
    ])
    .areas(area);
    let alerts: usize = app.lib.guides.iter().map(|g| g.routes.len()).sum();
    let mut title = format!(
        "tsgnav · {} guides · {} alerts routed",
        app.lib.guides.len(),
        alerts
    );
    if let Some((loaded, total)) = app.loading {
        title.push_str(&format!(" · loading {loaded}/{total}…"));
    }
    f.render_widget(Paragraph::new(Line::styled(title, t.get("ui.title"))), head);
    let typing = matches!(app.input, Some(Input::Search { .. }));
    let query = if app.query.is_empty() && !typing {
        Span::styled(
            "press / to search guides, steps and alerts",
            t.get("ui.dim"),
        )
    } else {
        Span::styled(
            format!("{}{}", app.query, if typing { "▏" } else { "" }),
            t.get("ui.input"),
        )
    };
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("Search: ", t.get("ui.key")),
            query,
        ])),
        search,
    );
    let list = if app.firing.enabled {
        let fh = super::firing::height(app, list.height);
        let [firing, rest] =
            Layout::vertical([Constraint::Length(fh), Constraint::Min(0)]).areas(list);
        super::firing::draw(f, firing, app);
        rest
    } else {
        list
    };
    let h = usize::from(list.height);
    let top = if h == 0 {
        0
    } else {
        app.hit_sel.saturating_sub(h - 1)
    };
    let w = usize::from(list.width);
    let lines: Vec<Line> = app
        .hits
        .iter()
        .enumerate()
        .skip(top)
        .take(h)
        .map(|(i, hit)| {
            let l = row(app, *hit, w);
            if i == app.hit_sel && app.firing.sel.is_none() {
                l.style(t.get("ui.selected"))
            } else {
                l
            }
        })
        .collect();
    let empty = if app.lib.guides.is_empty() {
        "No guides are loaded: pass a guide or a folder of guides, or list folders in `guides` of the config file."
    } else {
        "Nothing matches; Esc clears the search."
    };
    let lines = if lines.is_empty() {
        vec![Line::styled(empty, t.get("ui.dim"))]
    } else {
        lines
    };
    f.render_widget(Paragraph::new(lines), list);
    app.areas.list = list;
    app.areas.list_top = top;
}

fn row(app: &App, hit: Hit, w: usize) -> Line<'static> {
    let t = &app.theme;
    match hit {
        Hit::Guide(g) => {
            let Some(guide) = app.lib.guides.get(g) else {
                return Line::default();
            };
            let info = format!(
                "  {} · {} steps · {} alerts",
                guide.path,
                guide.nodes.len(),
                guide.routes.len()
            );
            let title = truncate(
                &guide.title,
                w.saturating_sub(info.chars().count() + 4).max(10),
            );
            Line::from(vec![
                Span::styled("▤ ", t.get("ui.key")),
                Span::styled(title, t.get("md.strong")),
                Span::styled(info, t.get("ui.dim")),
            ])
        }
        Hit::Node(g, n) => {
            let Some(guide) = app.lib.guides.get(g) else {
                return Line::default();
            };
            let Some(node) = guide.nodes.get(n) else {
                return Line::default();
            };
            let text = truncate(
                &format!("{}  — {}", node.title, guide.title),
                w.saturating_sub(4),
            );
            Line::from(vec![
                Span::styled(format!("  {} ", glyph(node.role)), t.role(node.role)),
                Span::raw(text),
            ])
        }
        Hit::Alert(g, r) => {
            let Some(guide) = app.lib.guides.get(g) else {
                return Line::default();
            };
            let Some(route) = guide.routes.get(r) else {
                return Line::default();
            };
            let to = app
                .nav
                .index
                .node(&app.lib, &route.to)
                .map(|n| n.title.clone())
                .unwrap_or_else(|| route.to.clone());
            let rest = truncate(
                &format!(" → {to}"),
                w.saturating_sub(route.alert.chars().count() + 4).max(8),
            );
            Line::from(vec![
                Span::styled("⚑ ", t.get("ui.alert")),
                Span::styled(route.alert.clone(), t.get("ui.alert")),
                Span::raw(rest),
            ])
        }
    }
}
