//! The library screen: every guide and the alert index, or the fuzzy-search hits over guide
//! titles, step titles and alert names, with the matched characters highlighted. Pure; no IO.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::wrap::{truncate, truncate_middle};
use crate::tui::app::{App, Input};
use crate::tui::frame::FrameState;
use crate::tui::search::{Hit, Query};
use crate::tui::theme::glyph;

pub fn draw(f: &mut Frame, area: Rect, app: &App, fs: &mut FrameState) {
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
    match app.session.loading {
        // The count of files is known once the walk of the folders is over.
        Some((0, 0)) => title.push_str(" · loading…"),
        Some((loaded, 0)) => title.push_str(&format!(" · loading {loaded}…")),
        Some((loaded, total)) => title.push_str(&format!(" · loading {loaded}/{total}…")),
        None => {}
    }
    f.render_widget(Paragraph::new(Line::styled(title, t.get("ui.title"))), head);
    let typing = matches!(app.input, Some(Input::Search { .. }));
    let query = if app.search.query.is_empty() && !typing {
        Span::styled(
            "press / to search guides, steps and alerts",
            t.get("ui.dim"),
        )
    } else {
        Span::styled(
            format!("{}{}", app.search.query, if typing { "▏" } else { "" }),
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
        app.search.sel.saturating_sub(h - 1)
    };
    let w = usize::from(list.width);
    let mut q = Query::new(&app.search.query);
    let lines: Vec<Line> = app
        .search
        .hits
        .iter()
        .enumerate()
        .skip(top)
        .take(h)
        .map(|(i, hit)| {
            let l = row(app, *hit, w, &mut q);
            if i == app.search.sel && app.firing.sel.is_none() {
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
    fs.viewport.areas.list = list;
    fs.viewport.areas.list_top = top;
}

/// `text` as spans, the characters at `marks` (positions in chars) in `mark` over `base`.
pub fn marked(text: &str, marks: &[usize], base: Style, mark: Style) -> Vec<Span<'static>> {
    let mut out: Vec<Span<'static>> = Vec::new();
    let mut run = String::new();
    let mut run_marked = false;
    for (i, c) in text.chars().enumerate() {
        let m = marks.binary_search(&i).is_ok();
        if m != run_marked && !run.is_empty() {
            let style = if run_marked { base.patch(mark) } else { base };
            out.push(Span::styled(std::mem::take(&mut run), style));
        }
        run_marked = m;
        run.push(c);
    }
    if !run.is_empty() {
        out.push(Span::styled(
            run,
            if run_marked { base.patch(mark) } else { base },
        ));
    }
    out
}

fn row(app: &App, hit: Hit, w: usize, q: &mut Query) -> Line<'static> {
    let line = match hit {
        Hit::Guide(g) => guide_row(app, g, w, q),
        Hit::Node(g, n) => node_row(app, g, n, w, q),
        Hit::Alert(g, r) => alert_row(app, g, r, w, q),
    };
    line.unwrap_or_default()
}

fn guide_row(app: &App, g: usize, w: usize, q: &mut Query) -> Option<Line<'static>> {
    let t = &app.theme;
    let guide = app.lib.guides.get(g)?;
    let counts = format!(
        " · {} steps · {} alerts",
        guide.nodes.len(),
        guide.routes.len()
    );
    // At 80 columns both are cut in the middle: rows of one-file-per-alert runbooks share
    // their beginnings, and their ends tell them apart.
    let room = w.saturating_sub(4);
    // The title keeps about 24 columns; the path has what is left of the row.
    let title_w = guide.title.chars().count().min(24);
    let path_room = room
        .saturating_sub(counts.chars().count() + 2 + title_w)
        .max(12);
    let (path, _) = truncate_middle(&guide.path, path_room);
    let info = format!("  {path}{counts}");
    let (title, kept) = truncate_middle(
        &guide.title,
        room.saturating_sub(info.chars().count()).max(10),
    );
    let mut spans = vec![Span::styled("▤ ", t.get("ui.key"))];
    let at: Vec<usize> = q
        .positions(&guide.title)
        .into_iter()
        .filter(|p| *p < kept)
        .collect();
    spans.extend(marked(&title, &at, t.get("md.strong"), t.get("ui.match")));
    spans.push(Span::styled(info, t.get("ui.dim")));
    Some(Line::from(spans))
}

fn node_row(app: &App, g: usize, n: usize, w: usize, q: &mut Query) -> Option<Line<'static>> {
    let t = &app.theme;
    let guide = app.lib.guides.get(g)?;
    let node = guide.nodes.get(n)?;
    let text = truncate(
        &format!("{}  — {}", node.title, guide.title),
        w.saturating_sub(4),
    );
    let mut spans = vec![Span::styled(
        format!("  {} ", glyph(node.role)),
        t.role(node.role),
    )];
    let at = q.positions(&node.title);
    spans.extend(marked(&text, &at, Style::default(), t.get("ui.match")));
    Some(Line::from(spans))
}

fn alert_row(app: &App, g: usize, r: usize, w: usize, q: &mut Query) -> Option<Line<'static>> {
    let t = &app.theme;
    let route = app.lib.guides.get(g)?.routes.get(r)?;
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
    let mut spans = vec![Span::styled("⚑ ", t.get("ui.alert"))];
    let at = q.positions(&route.alert);
    spans.extend(marked(
        &route.alert,
        &at,
        t.get("ui.alert"),
        t.get("ui.match"),
    ));
    spans.push(Span::raw(rest));
    Some(Line::from(spans))
}
