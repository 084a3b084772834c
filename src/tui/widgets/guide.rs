//! The guide view: breadcrumbs of the trail, the alert context, the outline, the node pane
//! (only the visible window of the cached wrapped lines is drawn) and the lower panel.
//! Pure; no IO.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use super::markdown::{self, ProbeView};
use super::wrap::{truncate, width};
use crate::tui::app::{App, Input};
use crate::tui::frame::FrameState;
use crate::tui::search::Hit;
use crate::tui::theme::glyph;

/// Drawn for a section whose text is still in its guide's file (the runtime reads it in before
/// the frame, so this is seen only if that read has not happened).
const NOT_READ_YET: &str = "> Reading this section's text from its guide's file…";

pub fn draw(f: &mut Frame, area: Rect, app: &App, fs: &mut FrameState) {
    let alert_rows = u16::from(app.nav.alert.is_some());
    let [crumbs, alert, main] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(alert_rows),
        Constraint::Min(3),
    ])
    .areas(area);
    breadcrumbs(f, crumbs, app);
    if alert_rows > 0 {
        alert_line(f, alert, app);
    }
    let outline_w = match main.width {
        w if w >= 140 => 40,
        w if w >= 100 => 30,
        w if w >= 70 => 24,
        _ => 0,
    };
    let [left, right] =
        Layout::horizontal([Constraint::Length(outline_w), Constraint::Min(20)]).areas(main);
    if outline_w > 0 {
        super::outline::draw(f, left, app, fs);
    }
    let panel_h = super::panel::wanted(app).min((right.height / 3).max(4));
    let [node, panel] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(panel_h)]).areas(right);
    node_pane(f, node, app, fs);
    super::panel::draw(f, panel, app, fs);
    if matches!(app.input, Some(Input::Search { .. })) {
        search_overlay(f, node, app);
    }
}

fn breadcrumbs(f: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let title = |id: &str| {
        app.nav
            .index
            .node(&app.lib, id)
            .map(|n| n.title.clone())
            .unwrap_or_else(|| id.to_string())
    };
    let mut parts: Vec<String> = app.nav.trail.iter().map(|id| title(id)).collect();
    let cur = app.current_id().map(title).unwrap_or_default();
    let max = usize::from(area.width).saturating_sub(width(&cur) + 10);
    while parts.len() > 1 && width(&parts.join(" › ")) > max {
        parts.remove(0);
        if parts.first().map(String::as_str) != Some("…") {
            parts.insert(0, "…".into());
            if parts.len() > 1 && width(&parts.join(" › ")) > max {
                parts.remove(1);
            }
        }
    }
    let mut spans = vec![Span::styled("Trail: ", t.get("ui.dim"))];
    for p in parts {
        spans.push(Span::styled(
            truncate(&p, max.max(8)),
            t.get("ui.breadcrumb"),
        ));
        spans.push(Span::styled(" › ", t.get("ui.dim")));
    }
    spans.push(Span::styled(cur, t.get("ui.breadcrumb_current")));
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn alert_line(f: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let Some(a) = &app.nav.alert else { return };
    let here = a.target.as_deref() == app.current_id();
    let where_ = match &a.target {
        Some(_) if here => "routes here".to_string(),
        Some(to) => format!(
            "routes to {}",
            app.nav
                .index
                .node(&app.lib, to)
                .map(|n| n.title.as_str())
                .unwrap_or(to)
        ),
        None => "no guide routes it".to_string(),
    };
    let labels: Vec<String> = a
        .labels
        .iter()
        .filter(|(k, _)| *k != "alertname")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let text = format!(
        "⚑ alert {} {where_}{}{}",
        a.name,
        if labels.is_empty() { "" } else { " · " },
        labels.join(" ")
    );
    f.render_widget(
        Paragraph::new(Line::styled(
            truncate(&text, usize::from(area.width)),
            t.get("ui.alert"),
        )),
        area,
    );
}

fn node_pane(f: &mut Frame, area: Rect, app: &App, fs: &mut FrameState) {
    let Some(node) = app.current_node() else {
        return;
    };
    let st = app.nav.status_of(&node.id);
    let title = format!(
        " {} {} · {} · {} ",
        glyph(node.role),
        node.title,
        node.role.as_str(),
        st.as_str()
    );
    // Room for the scroll percentage at the right.
    let title = truncate(&title, usize::from(area.width).saturating_sub(7));
    let block = Block::default().borders(Borders::TOP).title(Line::styled(
        title,
        app.theme.role(node.role).patch(app.theme.get("ui.title")),
    ));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let inner = Rect {
        x: inner.x + 1,
        width: inner.width.saturating_sub(1),
        ..inner
    };
    ensure_cache(app, fs, inner.width);
    let len = fs.cache.lines.len();
    let h = usize::from(inner.height);
    fs.viewport.areas.node = inner;
    fs.viewport.node_lines = Some(len);
    // The model may ask for more than there is (a resize shrank the text): show the end.
    let mut scroll = app.screen.scroll.min(len.saturating_sub(h));
    fs.viewport.revealed = None;
    if let Some(row) = app
        .screen
        .reveal
        .and_then(|p| fs.cache.outputs.iter().find(|(i, _)| *i == p))
        .map(|(_, row)| *row)
    {
        scroll = reveal(scroll, row, h, len);
        fs.viewport.revealed = Some(scroll);
    }
    let visible: Vec<Line> = fs
        .cache
        .lines
        .iter()
        .skip(scroll)
        .take(h)
        .cloned()
        .collect();
    f.render_widget(Paragraph::new(visible), inner);
    if len > h && inner.width > 0 {
        let pct = (scroll + h).min(len) * 100 / len.max(1);
        let mark = format!(" {pct}% ");
        let x = area.x
            + area
                .width
                .saturating_sub(u16::try_from(mark.len()).unwrap_or(0));
        f.render_widget(
            Paragraph::new(Span::styled(mark, app.theme.get("ui.dim"))),
            Rect {
                x,
                y: area.y,
                width: area.width.min(6),
                height: 1,
            },
        );
    }
}

/// Recomputes the wrapped lines of the current node when the node, width or results changed.
pub fn ensure_cache(app: &App, fs: &mut FrameState, width: u16) {
    let Some(id) = app.current_id().map(str::to_string) else {
        return;
    };
    let key = (id.clone(), width, app.probes.generation);
    if fs.cache.key.as_ref() == Some(&key) {
        return;
    }
    let classes = app.classes();
    // The runtime fetches the open guide's text before each frame; a body still in its file
    // (none should be) is drawn as a note and not kept, so the next frame draws the text.
    let mut held = true;
    let lines = match app.current_node() {
        Some(node) => {
            let views: Vec<ProbeView> = node
                .probes
                .iter()
                .enumerate()
                .map(|(i, p)| (crate::tsg::ProbeRef::new(&id, i), i, p))
                .map(|(key, i, p)| ProbeView {
                    probe: p,
                    class: classes
                        .get(i)
                        .copied()
                        .unwrap_or(crate::tsg::SafetyClass::Unknown),
                    result: app.probes.results.get(&key),
                    streaming: app.probes.streaming.get(&key),
                    stamp: crate::tui::pager::stamp(app, &key),
                    not_isolated: crate::tui::isolation::not_isolated(app),
                })
                .collect();
            let body = node.body.text();
            held = body.is_some();
            markdown::render_outputs(body.unwrap_or(NOT_READ_YET), width, &app.theme, &views)
        }
        None => (Vec::new(), Vec::new()),
    };
    (fs.cache.lines, fs.cache.outputs) = lines;
    fs.cache.key = held.then_some(key);
}

fn search_overlay(f: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let h = (app.search.hits.len() as u16 + 2).clamp(3, area.height.max(3));
    let r = Rect {
        x: area.x,
        y: area.y,
        width: area.width,
        height: h.min(area.height),
    };
    f.render_widget(Clear, r);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Search this guide (Enter open, Esc close) ")
        .border_style(t.get("ui.border_focus"));
    let inner = block.inner(r);
    f.render_widget(block, r);
    let rows = usize::from(inner.height);
    let top = app.search.sel.saturating_sub(rows.saturating_sub(1));
    let typed = match &app.input {
        Some(Input::Search { buf }) => buf.as_str(),
        _ => "",
    };
    let mut q = crate::tui::search::Query::new(typed);
    let lines: Vec<Line> = app
        .search
        .hits
        .iter()
        .enumerate()
        .skip(top)
        .take(rows)
        .filter_map(|(i, h)| {
            let Hit::Node(g, n) = *h else { return None };
            let node = app.lib.guides.get(g)?.nodes.get(n)?;
            let mut spans = vec![Span::styled(
                format!("{} ", glyph(node.role)),
                t.role(node.role),
            )];
            spans.extend(super::library::marked(
                &node.title,
                &q.positions(&node.title),
                ratatui::style::Style::default(),
                t.get("ui.match"),
            ));
            let l = Line::from(spans);
            Some(if i == app.search.sel {
                l.style(t.get("ui.selected"))
            } else {
                l
            })
        })
        .collect();
    let lines = if lines.is_empty() {
        vec![Line::styled(
            "Type to search step titles and text.",
            t.get("ui.dim"),
        )]
    } else {
        lines
    };
    f.render_widget(Paragraph::new(lines), inner);
}

/// The scroll that brings a result starting at `row` into a pane of `h` rows (of `len`): kept
/// when the result's first rows are already in sight, else the result starts two rows below
/// the top (the end of its code block stays visible).
fn reveal(scroll: usize, row: usize, h: usize, len: usize) -> usize {
    let want = row + (h / 2).min(len.saturating_sub(row));
    if row >= scroll && want <= scroll + h {
        return scroll;
    }
    row.saturating_sub(2).min(len.saturating_sub(h))
}
