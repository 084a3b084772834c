//! The full-screen pager over one probe's output: a title with when it ran and with which
//! values (STALE when one changed since), the lines with their numbers (`N│`, continuation
//! rows `│`), wrapped or scrolled sideways with columns kept, search matches marked, and the
//! keys at the bottom. Pure (state in, cells out); no IO.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthChar;

use crate::tui::app::App;
use crate::tui::frame::FrameState;
use crate::tui::pager::wrap_rows as rows;

/// `s` from column `left`, at most `w` columns.
fn window(s: &str, left: usize, w: usize) -> String {
    let mut out = String::new();
    let (mut col, mut used) = (0, 0);
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if col >= left {
            if used + cw > w {
                break;
            }
            out.push(c);
            used += cw;
        }
        col += cw;
    }
    out
}

/// Draws the pager; reports in `fs` how many rows of text it showed.
pub fn draw(f: &mut Frame, area: Rect, app: &App, fs: &mut FrameState) {
    let t = &app.theme;
    let Some(p) = app.reading.pager.as_ref() else {
        return;
    };
    f.render_widget(Clear, area);
    let w = usize::from(area.width);
    let h = usize::from(area.height);
    // The stamp wraps (at most 3 rows): the values an output ran with stay readable.
    let stamp_rows: Vec<String> = if p.stamp.is_empty() {
        Vec::new()
    } else {
        rows(&p.stamp.text, w.saturating_sub(2).max(1))
            .into_iter()
            .take(3)
            .collect()
    };
    let head_h = 1 + stamp_rows.len();
    let body_h = h.saturating_sub(head_h + 1);
    fs.viewport.pager_rows = body_h;
    let gutter = if p.numbers {
        p.lines.len().max(1).to_string().len() + 1
    } else {
        0
    };
    let text_w = w.saturating_sub(gutter).max(1);
    fs.viewport.pager_width = text_w;
    // With wrap on, `top` counts wrapped rows (at the width of the last frame).
    let top = p
        .top
        .min(p.total_rows(text_w).saturating_sub(body_h.max(1)));
    let (first, skip) = p.locate(top, text_w);
    let last = p.locate(top + body_h.max(1) - 1, text_w).0;
    let mut out: Vec<Line> = Vec::new();
    let stale = p.stamp.stale;
    out.push(Line::styled(
        format!(" Output · {} ", p.title),
        t.get("ui.title"),
    ));
    for r in stamp_rows {
        out.push(Line::styled(
            format!(" {r}"),
            if stale {
                t.get("ui.error")
            } else {
                t.get("ui.dim")
            },
        ));
    }
    let hit_line = p.hits.get(p.hit).copied();
    for (i, line) in p.lines.iter().enumerate().skip(first) {
        if out.len() >= head_h + body_h {
            break;
        }
        let style = if Some(i) == hit_line {
            t.get("ui.selected")
        } else if p.hits.binary_search(&i).is_ok() {
            t.get("md.h3")
        } else {
            t.get("md.code_text")
        };
        let pieces = if p.wrap {
            rows(line, text_w)
        } else {
            vec![window(line, p.left, text_w)]
        };
        let from = if i == first { skip } else { 0 };
        for (k, piece) in pieces.into_iter().enumerate().skip(from) {
            if out.len() >= head_h + body_h {
                break;
            }
            let num = match (p.numbers, k) {
                (false, _) => String::new(),
                (true, 0) => format!("{:>width$}│", i + 1, width = gutter - 1),
                (true, _) => format!("{:>width$}│", "", width = gutter - 1),
            };
            out.push(Line::from(vec![
                Span::styled(num, t.get("ui.dim")),
                Span::styled(piece, style),
            ]));
        }
    }
    while out.len() < head_h + body_h {
        out.push(Line::default());
    }
    out.push(key_line(p, t, first, last));
    f.render_widget(Paragraph::new(out), area);
}

/// The bottom line: the search being typed, or where the view is and the keys.
fn key_line(
    p: &crate::tui::pager::Pager,
    t: &crate::tui::theme::Theme,
    first: usize,
    last: usize,
) -> Line<'static> {
    match &p.typing {
        Some(buf) => Line::from(vec![
            Span::styled("/", t.get("ui.key")),
            Span::styled(format!("{buf}▏"), t.get("ui.input")),
            Span::styled("  (Enter find, Esc cancel)", t.get("ui.dim")),
        ]),
        None => {
            let pos = format!(
                " {}-{}/{} ",
                (first + 1).min(p.lines.len()),
                (last + 1).min(p.lines.len()),
                p.lines.len()
            );
            let found = match (p.query.is_empty(), p.hits.len()) {
                (true, _) => String::new(),
                (false, 0) => format!("`{}` not found · ", p.query),
                (false, n) => format!("`{}` {}/{n} · ", p.query, p.hit + 1),
            };
            Line::from(vec![
                Span::styled(pos, t.get("ui.key")),
                Span::styled(
                    format!(
                        " {found}wrap {} (w) · # numbers · / search n N · ←→ · y copy output · Y copy command · q close",
                        if p.wrap { "on" } else { "off" }
                    ),
                    t.get("ui.dim"),
                ),
            ])
        }
    }
}
