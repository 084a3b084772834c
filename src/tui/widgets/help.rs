//! The help screen, generated from the keymap rows (`on` and `desc`) and the palette's
//! commands, so it never disagrees with what the keys do. Pure; no IO.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use crate::tui::app::App;
use crate::tui::command::{Command, PALETTE};
use crate::tui::frame::FrameState;

/// The keys column (then the words, wrapped under themselves).
const KEYS_W: usize = 30;

/// One row: the keys, then `desc` wrapped at `width` under its own first word.
fn row(app: &App, keys: &str, desc: &str, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let keys = format!("  {keys:<w$}", w = KEYS_W - 2);
    let indent = " ".repeat(super::wrap::width(&keys).min(KEYS_W));
    super::wrap::wrap(
        &[Span::raw(desc.to_string())],
        width.max(KEYS_W + 10),
        &[Span::styled(keys, t.get("ui.key"))],
        &[Span::raw(indent)],
    )
}

/// Every line of the help screen, wrapped at `width` columns (0: not wrapped).
pub fn lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let width = match width {
        0 => usize::MAX / 2,
        w => usize::from(w),
    };
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
            out.extend(self::row(app, &keys, &row.desc, width));
        }
        out.push(Line::default());
    }
    out.push(Line::styled("Command palette (:)", t.get("md.h2")));
    for (_, usage, desc) in PALETTE {
        out.extend(row(app, usage, desc, width));
    }
    out.push(Line::default());
    out.push(Line::styled(
        "Outline: ○ unvisited  ◐ visited  ● done  ⊘ skipped",
        t.get("ui.dim"),
    ));
    out
}

pub fn draw(f: &mut Frame, area: Rect, app: &App, fs: &mut FrameState) {
    let width = area.width.saturating_sub(2);
    let all = lines(app, width);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Help — keys from the keymap (/ find, q or Esc closes) ")
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
    if let Some(buf) = &app.screen.help_find.typing {
        let t = &app.theme;
        let row = Rect {
            y: inner.y + inner.height.saturating_sub(1),
            height: inner.height.min(1),
            ..inner
        };
        f.render_widget(ratatui::widgets::Clear, row);
        f.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled("/", t.get("ui.key")),
                Span::styled(format!("{buf}▏"), t.get("ui.input")),
                Span::styled("  (Enter find, Esc cancel)", t.get("ui.dim")),
            ])),
            row,
        );
    }
}
