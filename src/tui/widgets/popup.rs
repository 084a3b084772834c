//! The error popup: the whole text of an error that does not fit the status line, wrapped in
//! a box over the screen, with the key that closes it. Pure; must not import IO.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use crate::tui::app::App;

/// Draws the popup when the error does not fit the `room` the status line had (the same
/// rule as [`crate::tui::popup::open`], with this frame's measure).
pub fn draw(f: &mut Frame, area: Rect, app: &App, room: usize) {
    if app.input.is_some() || room == 0 {
        return;
    }
    let Some(n) = app
        .notice
        .as_ref()
        .filter(|n| n.is_error() && super::wrap::width(&n.text) > room)
    else {
        return;
    };
    let t = &app.theme;
    let w = area.width.saturating_sub(4).clamp(20, 100).min(area.width);
    let inner = usize::from(w.saturating_sub(2)).max(1);
    let mut lines: Vec<Line<'static>> = Vec::new();
    for para in n.text.split('\n') {
        let span = [Span::styled(para.to_string(), t.get("ui.error"))];
        lines.extend(super::wrap::wrap(&span, inner, &[], &[]));
    }
    lines.push(Line::styled("Esc closes", t.get("ui.dim")));
    let h = u16::try_from(lines.len() + 2)
        .unwrap_or(area.height)
        .min(area.height);
    let popup = Rect {
        x: area.x + (area.width.saturating_sub(w)) / 2,
        y: area.y + (area.height.saturating_sub(h)) / 2,
        width: w,
        height: h,
    };
    let block = Block::bordered()
        .title(" Error ")
        .border_style(t.get("ui.error"));
    f.render_widget(Clear, popup);
    f.render_widget(Paragraph::new(lines).block(block), popup);
}
