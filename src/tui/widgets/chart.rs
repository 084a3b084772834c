//! Range-query charts in the node pane: series of (unix seconds, value) points drawn as braille
//! lines with y-axis labels (max, middle, min), x-axis start/end times (UTC), a colour per
//! series from the theme (`chart.series1..6`, `chart.axis`) and a legend with each series'
//! last value. Produces styled lines so the chart scrolls with the text. Pure; must not import
//! IO (std::fs, std::process, std::env, std::thread, tokio), `crate::query` or `crate::evidence`.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::wrap::{truncate, width as text_width};
use crate::tui::app::ChartSeries;
use crate::tui::theme::Theme;
use grid::Grid;

mod grid;

/// Plot rows, each four braille dots high (odd, so the middle label sits on the middle row).
pub const ROWS: usize = 9;
/// Series drawn and listed; the rest are counted under the legend.
pub const MAX_SERIES: usize = 6;
/// Below this many columns the chart is replaced by a note.
pub const MIN_WIDTH: usize = 20;
const INDENT: &str = "  ";
/// (unix seconds, value).
type Point = (f64, f64);

fn finite(p: &&(f64, f64)) -> bool {
    p.0.is_finite() && p.1.is_finite()
}

/// The chart of `series` for a pane `width` columns wide: no lines for no series, one note
/// when the pane is too narrow or no value is finite.
pub fn lines(series: &[ChartSeries], width: usize, theme: &Theme) -> Vec<Line<'static>> {
    if series.is_empty() {
        return Vec::new();
    }
    let dim = theme.get("ui.dim");
    if width < MIN_WIDTH {
        let note = format!("{INDENT}chart hidden: widen the window ({MIN_WIDTH}+ columns)");
        return vec![Line::styled(note, dim)];
    }
    let shown = &series[..series.len().min(MAX_SERIES)];
    let (mut t0, mut t1, mut lo, mut hi) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in shown.iter().flat_map(|s| s.points.iter().filter(finite)) {
        (t0, t1) = (t0.min(p.0), t1.max(p.0));
        (lo, hi) = (lo.min(p.1), hi.max(p.1));
    }
    if t0 > t1 {
        let note = format!(
            "{INDENT}no chart: {} series, no finite value (only NaN or ±Inf)",
            shown.len()
        );
        return vec![Line::styled(note, dim)];
    }
    let labels = if hi > lo {
        [human(hi), human(lo + (hi - lo) / 2.0), human(lo)]
    } else {
        [String::new(), human(lo), String::new()]
    };
    let label_w = labels.iter().map(|l| l.len()).max().unwrap_or(0);
    let plot_w = width.saturating_sub(INDENT.len() + label_w + 2).max(1);
    let mut grid = Grid::new(plot_w, ROWS);
    let (cols, rows) = (plot_w * 2, ROWS * 4);
    let x = |t: f64| bucket(t, (t0, t1), cols);
    let y = |v: f64| {
        if hi > lo {
            let up = ((v - lo) / (hi - lo) * (rows - 1) as f64).round() as usize;
            rows - 1 - up.min(rows - 1)
        } else {
            rows / 2
        }
    };
    for (i, s) in shown.iter().enumerate() {
        let pts = downsample(&s.points, (t0, t1), cols);
        let mut prev = None;
        for &(t, v) in &pts {
            let p = (x(t), y(v));
            grid.line(prev.unwrap_or(p), p, i as u8);
            prev = Some(p);
        }
    }
    // Without colour, series are told apart by their legend number at their last point.
    if theme.no_color() && shown.len() > 1 {
        for (i, s) in shown.iter().enumerate() {
            if let Some(&(t, v)) = s.points.iter().rev().find(finite) {
                grid.mark(x(t) / 2, y(v) / 4, i as u8);
            }
        }
    }
    let axis = theme.get("chart.axis");
    let styles: Vec<Style> = (1..=MAX_SERIES)
        .map(|i| theme.get(&format!("chart.series{i}")))
        .collect();
    let mut out = Vec::with_capacity(ROWS + 3 + shown.len());
    for r in 0..ROWS {
        let label = match r {
            0 => &labels[0],
            _ if r == ROWS / 2 => &labels[1],
            _ if r == ROWS - 1 => &labels[2],
            _ => "",
        };
        let tick = if label.is_empty() { '│' } else { '┤' };
        let mut spans = vec![
            Span::raw(INDENT),
            Span::styled(format!("{label:>label_w$} {tick}"), axis),
        ];
        spans.extend(grid.row_spans(r, &styles));
        out.push(Line::from(spans));
    }
    let pad = " ".repeat(label_w + 1);
    out.push(Line::styled(
        format!("{INDENT}{pad}└{}", "─".repeat(plot_w)),
        axis,
    ));
    out.push(Line::styled(
        format!("{INDENT}{pad} {}", times(t0, t1, plot_w)),
        axis,
    ));
    legend(shown, width, theme, &styles, &mut out);
    if series.len() > MAX_SERIES {
        let more = series.len() - MAX_SERIES;
        let note = format!("{INDENT}+{more} more series (the chart shows the first {MAX_SERIES})");
        out.push(Line::styled(note, dim));
    }
    out
}

/// One legend line per series: its marker in its colour (its number without colour), its
/// label and its last finite value.
fn legend(
    shown: &[ChartSeries],
    width: usize,
    t: &Theme,
    styles: &[Style],
    out: &mut Vec<Line<'static>>,
) {
    for (i, s) in shown.iter().enumerate() {
        let marker = if t.no_color() {
            format!("{}", i + 1)
        } else {
            "●".into()
        };
        let last = s.points.iter().rev().find(finite);
        let tail = last.map_or("  no data".into(), |p| format!("  last {}", human(p.1)));
        let label = if s.label.is_empty() {
            "(no labels)"
        } else {
            &s.label
        };
        let room = width
            .saturating_sub(INDENT.len() + 2 + text_width(&tail))
            .max(4);
        out.push(Line::from(vec![
            Span::raw(INDENT),
            Span::styled(marker, styles.get(i).copied().unwrap_or_default()),
            Span::raw(format!(" {}", truncate(label, room))),
            Span::styled(tail, t.get("ui.dim")),
        ]));
    }
}

/// The x-axis labels: start at the left, end (with "UTC") at the right of `w` columns; dates
/// are added when the range spans a day or more.
fn times(t0: f64, t1: f64, w: usize) -> String {
    let fmt = if t1 - t0 >= 86_400.0 {
        "%m-%d %H:%M"
    } else {
        "%H:%M"
    };
    let at = |t: f64| {
        chrono::DateTime::from_timestamp(t.floor() as i64, 0)
            .map(|d| d.format(fmt).to_string())
            .unwrap_or_default()
    };
    let (start, end) = (at(t0), format!("{} UTC", at(t1)));
    if t1 <= t0 || start.len() + end.len() + 1 > w {
        return if end.len() <= w { end } else { start };
    }
    format!("{start}{}{end}", " ".repeat(w - start.len() - end.len()))
}

/// The column (of `cols`) that time `t` falls in over `span`; the middle for a zero span.
fn bucket(t: f64, (t0, t1): (f64, f64), cols: usize) -> usize {
    if t1 > t0 {
        (((t - t0) / (t1 - t0) * cols as f64).floor() as usize).min(cols - 1)
    } else {
        cols / 2
    }
}

/// `points` thinned to at most `cols` columns over `span`: each column keeps its lowest and
/// highest finite point, in time order, so spikes survive. At most 2 × `cols` points.
pub fn downsample(points: &[(f64, f64)], span: (f64, f64), cols: usize) -> Vec<(f64, f64)> {
    let cols = cols.max(1);
    let mut cells: Vec<Option<(Point, Point)>> = vec![None; cols];
    for &p in points.iter().filter(finite) {
        let c = &mut cells[bucket(p.0, span, cols)];
        *c = Some(match *c {
            None => (p, p),
            Some((lo, hi)) => (
                if p.1 < lo.1 { p } else { lo },
                if p.1 > hi.1 { p } else { hi },
            ),
        });
    }
    let mut out = Vec::with_capacity(cols * 2);
    for (lo, hi) in cells.into_iter().flatten() {
        let (a, b) = if lo.0 <= hi.0 { (lo, hi) } else { (hi, lo) };
        out.push(a);
        if b != a {
            out.push(b);
        }
    }
    out
}

/// A value for a label: `0.25`, `3.14`, `42`, `1.2k`, `3.4M`, `-7.5G`, `1.2e-6`.
pub fn human(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    let a = v.abs();
    let sign = if v < 0.0 { "-" } else { "" };
    let trim = |s: String| match s.contains('.') {
        true => s.trim_end_matches('0').trim_end_matches('.').to_string(),
        false => s,
    };
    let body = if a == 0.0 {
        "0".to_string()
    } else if a >= 999.5 {
        const UNITS: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
        let (mut x, mut i) = (a, 0);
        while x >= 999.5 && i < UNITS.len() - 1 {
            x /= 1e3;
            i += 1;
        }
        let d = if x < 100.0 { 1 } else { 0 };
        format!("{}{}", trim(format!("{x:.d$}")), UNITS[i])
    } else if a >= 1e-4 {
        let d = match a {
            _ if a >= 100.0 => 0,
            _ if a >= 10.0 => 1,
            _ if a >= 1.0 => 2,
            _ => (-a.log10()).floor() as usize + 2,
        };
        trim(format!("{a:.d$}"))
    } else {
        format!("{a:.1e}")
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests;
