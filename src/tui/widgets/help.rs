//! The help screen, generated from the keymap rows (`on` and `desc`) and the palette's
//! commands, so it never disagrees with what the keys do. Pure; no IO.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use crate::tui::app::App;
use crate::tui::command::{Command, PALETTE};
use crate::tui::frame::FrameState;

/// Every line of the help screen.
pub fn lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut out = Vec::new();
    for (ctx, title) in [
        ("guide", "Guide view"),
        ("library", "Library"),
        ("global", "Everywhere"),
        ("help", "This screen"),
    ] {
        out.push(Line::styled(title.to_string(), t.get("md.h2")));
        let rows = app.keymap.rows(ctx);
        // `follow 1` … `follow 9` are shown as one line.
        let follow: Vec<&str> = rows
            .iter()
            .filter(|r| matches!(r.run, Command::Follow(_)))
            .flat_map(|r| r.keys())
            .collect();
        for row in &rows {
            let keys = match row.run {
                Command::Follow(1) => follow.join(" "),
                Command::Follow(_) => continue,
                _ => row.keys().join(" "),
            };
            out.push(Line::from(vec![
                Span::styled(format!("  {keys:<28}"), t.get("ui.key")),
                Span::raw(row.desc.clone()),
            ]));
        }
        out.push(Line::default());
    }
    out.push(Line::styled("Command palette (:)", t.get("md.h2")));
    for (_, usage, desc) in PALETTE {
        out.push(Line::from(vec![
            Span::styled(format!("  {usage:<28}"), t.get("ui.key")),
            Span::raw(desc.to_string()),
        ]));
    }
    out.push(Line::default());
    out.push(Line::styled(
        "Outline: ○ unvisited  ◐ visited  ● done  ⊘ skipped",
        t.get("ui.dim"),
    ));
    out
}

pub fn draw(f: &mut Frame, area: Rect, app: &App, fs: &mut FrameState) {
    let all = lines(app);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Help — keys from the keymap (q or Esc closes) ")
        .border_style(app.theme.get("ui.border_focus"))
        .title_style(app.theme.get("ui.title"));
    let inner = block.inner(area);
    fs.viewport.areas.help = inner;
    fs.viewport.help_lines = all.len();
    let scroll = app.screen.help_scroll.min(fs.viewport.max_help_scroll());
    let visible: Vec<Line> = all
        .into_iter()
        .skip(scroll)
        .take(usize::from(inner.height))
        .collect();
    f.render_widget(block, area);
    f.render_widget(Paragraph::new(visible), inner);
}
