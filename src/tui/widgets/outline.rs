//! The outline of the open guide: one row per node, indented by level, with the role's glyph
//! and colour and the node's status (○ unvisited, ◐ visited, ● done, ⊘ skipped). Pure; no IO.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use super::wrap::truncate;
use crate::nav::Status;
use crate::tui::app::App;
use crate::tui::frame::FrameState;
use crate::tui::theme::glyph;

pub fn status_mark(s: Status) -> &'static str {
    match s {
        Status::Unvisited => "○",
        Status::Visited => "◐",
        Status::Done => "●",
        Status::Skipped => "⊘",
    }
}

pub fn draw(f: &mut Frame, area: Rect, app: &App, fs: &mut FrameState) {
    let t = &app.theme;
    let block = Block::default()
        .borders(Borders::RIGHT)
        .border_style(t.get("ui.border"));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let Some(guide) = app.current_guide() else {
        return;
    };
    let height = usize::from(inner.height);
    let min_level = guide.nodes.iter().map(|n| n.level).min().unwrap_or(1);
    let sel = app.screen.outline_sel;
    let top = if height == 0 {
        0
    } else {
        sel.saturating_sub(height / 2)
            .min(guide.nodes.len().saturating_sub(height))
    };
    let cur = app.current_id().unwrap_or("");
    let w = usize::from(inner.width);
    let lines: Vec<Line> = guide
        .nodes
        .iter()
        .enumerate()
        .skip(top)
        .take(height)
        .map(|(i, n)| {
            let st = app.nav.status_of(&n.id);
            let indent = " ".repeat(usize::from(n.level.saturating_sub(min_level)));
            let head = format!("{} {indent}{} ", status_mark(st), glyph(n.role));
            let title = truncate(&n.title, w.saturating_sub(super::wrap::width(&head)));
            let mut style = t.role(n.role);
            if n.id == cur {
                style = style.patch(t.get("ui.current"));
            } else if i == sel {
                style = style.patch(t.get("ui.selected"));
            }
            Line::from(vec![
                Span::styled(status_mark(st), t.get(&format!("status.{}", st.as_str()))),
                Span::styled(format!(" {indent}{} ", glyph(n.role)), t.role(n.role)),
                Span::styled(title, style),
            ])
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
    fs.viewport.areas.outline = inner;
    fs.viewport.areas.outline_top = top;
}
