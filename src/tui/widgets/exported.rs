//! The export popup (see [`crate::tui::exported`]): each value on rows of its own, wrapped
//! whole at the box's edge so that a long path or hash is never cut, and the copy keys.
//! Pure (state in, cells out); no IO.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use crate::tui::app::App;
use crate::tui::pager::wrap_rows;

/// Draws the popup over `area` when an export was just shown.
pub fn draw(f: &mut Frame, area: Rect, app: &App) {
    let Some(e) = app.session.export_shown.as_ref() else {
        return;
    };
    let t = &app.theme;
    let w = area.width.saturating_sub(2).min(100);
    let inner_w = usize::from(w.saturating_sub(2)).max(10);
    let mut lines: Vec<Line> = Vec::new();
    let mut field = |label: &str, value: &str| {
        lines.push(Line::styled(label.to_string(), t.get("ui.key")));
        for r in wrap_rows(value, inner_w.saturating_sub(2)) {
            lines.push(Line::raw(format!("  {r}")));
        }
    };
    field("Folder", &e.folder);
    if let Some(a) = &e.archive {
        field("Archive", a);
    }
    field(&format!("Chain head (record #{})", e.records), &e.head);
    field("Key id", &e.key_id);
    if let Some(p) = &e.public_key {
        field("Public key (minisign)", p);
    }
    lines.push(Line::from(vec![Span::styled(
        "y head + key id · c folder · h head · k key · Esc closes · other keys act as usual",
        t.get("ui.dim"),
    )]));
    let h = u16::try_from(lines.len() + 2)
        .unwrap_or(u16::MAX)
        .min(area.height);
    let r = Rect {
        x: area.x + (area.width.saturating_sub(w)) / 2,
        y: area.y + (area.height.saturating_sub(h)) / 2,
        width: w,
        height: h,
    };
    f.render_widget(Clear, r);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Evidence exported: paste the head and key into the incident ")
        .border_style(t.get("ui.border_focus"));
    let inner = block.inner(r);
    f.render_widget(block, r);
    f.render_widget(
        Paragraph::new(lines).wrap(ratatui::widgets::Wrap { trim: false }),
        inner,
    );
}
