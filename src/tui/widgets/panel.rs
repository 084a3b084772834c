//! The lower panel of the guide view: the actions (choices, checklist items, probes) or the
//! variables with where each value came from. Pure; no IO.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use super::markdown::{badge, badge_style};
use super::wrap::truncate;
use crate::nav::{self, ChoiceKind};
use crate::tui::app::{App, Item, Panel};
use crate::tui::frame::FrameState;

/// Rows the panel wants (content plus borders).
pub fn wanted(app: &App) -> u16 {
    let n = match app.screen.panel {
        Panel::Actions => app.items().len(),
        Panel::Vars => app.vars().len(),
    };
    u16::try_from(n.max(1) + 2).unwrap_or(u16::MAX)
}

pub fn draw(f: &mut Frame, area: Rect, app: &App, fs: &mut FrameState) {
    let t = &app.theme;
    let (title, rows, sel) = match app.screen.panel {
        Panel::Actions => (
            " Next · checklist · probes (Tab, Enter, 1-9) ",
            actions(app),
            app.screen.item_sel,
        ),
        Panel::Vars => (
            " Variables  (v hide, Enter edit) ",
            vars(app),
            app.screen.var_sel,
        ),
    };
    let block = Block::default()
        .borders(Borders::TOP)
        .title(title)
        .border_style(t.get("ui.border"))
        .title_style(t.get("ui.title"));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let h = usize::from(inner.height).max(1);
    let top = sel.saturating_sub(h - 1);
    let w = usize::from(inner.width);
    let lines: Vec<Line> = rows
        .into_iter()
        .enumerate()
        .skip(top)
        .take(h)
        .map(|(i, spans)| {
            let mut l = Line::from(spans);
            let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
            if super::wrap::width(&text) > w {
                l = Line::from(truncate(&text, w));
            }
            if i == sel {
                l.style(t.get("ui.selected"))
            } else {
                l
            }
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
    fs.viewport.areas.items = inner;
    fs.viewport.areas.items_top = top;
}

fn actions(app: &App) -> Vec<Vec<Span<'static>>> {
    let t = &app.theme;
    let Some(id) = app.current_id() else {
        return Vec::new();
    };
    let Some(node) = app.current_node() else {
        return Vec::new();
    };
    let choices = nav::choices(&app.lib, &app.nav.index, id);
    let checks = nav::checklist(node);
    let classes = app.classes();
    let mut rows = Vec::new();
    for item in app.items() {
        rows.push(match item {
            Item::Choice(i) => {
                let Some(c) = choices.get(i) else { continue };
                let target = app
                    .nav
                    .index
                    .node(&app.lib, &c.to)
                    .map(|n| n.title.clone())
                    .unwrap_or_else(|| c.to.clone());
                let kind = match c.kind {
                    ChoiceKind::Route => "route",
                    ChoiceKind::Branch => "if",
                    ChoiceKind::Ref => "see",
                    ChoiceKind::Link => "link",
                    ChoiceKind::Next => "next step",
                };
                let num = if i < 9 {
                    format!("{} ", i + 1)
                } else {
                    "  ".into()
                };
                let label = if c.kind == ChoiceKind::Next || c.label.is_empty() || c.label == target
                {
                    String::new()
                } else {
                    format!("{} ", c.label.replace('`', ""))
                };
                vec![
                    Span::styled(num, t.get("ui.key")),
                    Span::styled(format!("{kind}: "), t.get("ui.dim")),
                    Span::raw(label),
                    Span::styled(
                        format!("→ {target}"),
                        if c.resolved {
                            t.get("md.link")
                        } else {
                            t.get("ui.error")
                        },
                    ),
                ]
            }
            Item::Check(i) => {
                let ticked = app.nav.is_ticked(id, i);
                let text = checks.get(i).cloned().unwrap_or_default();
                vec![
                    Span::styled(if ticked { "  [x] " } else { "  [ ] " }, t.get("ui.key")),
                    Span::raw(text),
                ]
            }
            Item::Probe(i) => {
                let class = classes
                    .get(i)
                    .copied()
                    .unwrap_or(crate::tsg::SafetyClass::Unknown);
                let p = &node.probes[i.min(node.probes.len().saturating_sub(1))];
                let name = p
                    .attrs
                    .get("name")
                    .cloned()
                    .unwrap_or_else(|| p.code.lines().next().unwrap_or("").trim().to_string());
                vec![
                    Span::styled("  ▶ ", t.get("ui.key")),
                    Span::raw(format!("run probe {} ", i + 1)),
                    Span::styled(badge(class), badge_style(t, class)),
                    Span::raw(format!(" {name}")),
                ]
            }
        });
    }
    rows
}

fn vars(app: &App) -> Vec<Vec<Span<'static>>> {
    let t = &app.theme;
    let list = app.vars();
    if list.is_empty() {
        return vec![vec![Span::styled(
            "This guide's probes use no variables.",
            t.get("ui.dim"),
        )]];
    }
    list.into_iter()
        .map(|(name, v)| match v {
            Some(v) => vec![
                Span::styled(format!("{name} = "), t.get("ui.key")),
                Span::raw(v.value.clone()),
                Span::styled(format!("  ({})", v.source.describe()), t.get("ui.dim")),
            ],
            None => vec![
                Span::styled(format!("{name} "), t.get("ui.key")),
                Span::styled("unset", t.get("ui.live_off")),
            ],
        })
        .collect()
}
