//! Markdown tables → aligned lines that fit a width: columns share the width in proportion
//! to their content and long cells wrap inside their column. Pure; no IO.

use ratatui::text::{Line, Span};

use super::wrap::{width, wrap};
use crate::tui::theme::Theme;

/// Appends `rows` (the first is the header) to `out`.
pub fn render(rows: &[Vec<String>], max: usize, theme: &Theme, out: &mut Vec<Line<'static>>) {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    if cols == 0 {
        return;
    }
    let sep = 3; // " │ "
    let avail = max.saturating_sub(sep * (cols - 1)).max(cols);
    let natural: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map(|s| width(s)).unwrap_or(0))
                .max()
                .unwrap_or(0)
                .max(1)
        })
        .collect();
    let total: usize = natural.iter().sum();
    let widths: Vec<usize> = if total <= avail {
        natural
    } else {
        // Give every column its share; short columns (up to 12) keep their width.
        let mut w: Vec<usize> = natural
            .iter()
            .map(|n| (n * avail / total).max((*n).min(12)))
            .collect();
        let mut used: usize = w.iter().sum();
        while used > avail {
            let Some((i, _)) = w.iter().enumerate().max_by_key(|(_, v)| **v) else {
                break;
            };
            if w[i] <= 6 {
                break;
            }
            w[i] -= 1;
            used -= 1;
        }
        w
    };
    let rule = theme.get("md.table_rule");
    for (ri, row) in rows.iter().enumerate() {
        let style = if ri == 0 {
            theme.get("md.table_head")
        } else {
            Default::default()
        };
        let cells: Vec<Vec<String>> = (0..cols)
            .map(|c| {
                let text = row.get(c).cloned().unwrap_or_default();
                wrap(&[Span::raw(text)], widths[c], &[], &[])
                    .into_iter()
                    .map(|l| {
                        l.spans
                            .iter()
                            .map(|s| s.content.as_ref())
                            .collect::<String>()
                    })
                    .collect()
            })
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1);
        for h in 0..height {
            let mut spans = Vec::new();
            for (c, cell) in cells.iter().enumerate() {
                if c > 0 {
                    spans.push(Span::styled(" │ ", rule));
                }
                let text = cell.get(h).cloned().unwrap_or_default();
                let pad = widths[c].saturating_sub(width(&text));
                spans.push(Span::styled(format!("{text}{}", " ".repeat(pad)), style));
            }
            out.push(Line::from(spans));
        }
        if ri == 0 {
            let line: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
            out.push(Line::styled(line.join("─┼─"), rule));
        }
    }
}
