//! Tests of the chart lines: where dots land, axis labels, legend, odd input and size limits.

use ratatui::style::Color;
use ratatui::text::Line;

use super::{downsample, human, lines, MAX_SERIES, ROWS};
use crate::tui::app::ChartSeries;
use crate::tui::theme::Theme;

/// 2023-11-14 22:13:20 UTC.
const T0: f64 = 1_700_000_000.0;

fn series(label: &str, values: &[f64]) -> ChartSeries {
    ChartSeries {
        label: label.into(),
        points: values
            .iter()
            .enumerate()
            .map(|(i, v)| (T0 + 60.0 * i as f64, *v))
            .collect(),
    }
}

fn text(lines: &[Line<'_>]) -> Vec<String> {
    lines.iter().map(|l| l.to_string()).collect()
}

/// The plot area: the cells right of the y axis, one row per plot row.
fn plot(lines: &[Line<'_>]) -> Vec<Vec<char>> {
    text(&lines[..ROWS])
        .iter()
        .map(|l| {
            let at = l.find(['┤', '│']).expect("y axis");
            l[at..].chars().skip(1).collect()
        })
        .collect()
}

fn bits(c: char) -> u32 {
    (c as u32).wrapping_sub(0x2800)
}

#[test]
fn a_rising_series_runs_from_lower_left_to_upper_right() {
    let values: Vec<f64> = (0..100).map(f64::from).collect();
    let out = lines(&[series("up", &values)], 60, &Theme::bundled(false));
    let p = plot(&out);
    let (bottom, top) = (&p[ROWS - 1], &p[0]);
    assert_eq!(bits(bottom[0]) & 0x40, 0x40, "first dot bottom-left: {p:?}");
    let last = *top.last().expect("cells");
    assert_eq!(bits(last) & 0x08, 0x08, "last dot top-right: {p:?}");
    assert!(
        top[0] == ' ' && *bottom.last().expect("cells") == ' ',
        "{p:?}"
    );
    assert!(text(&out).iter().all(|l| l.chars().count() <= 60));
}

#[test]
fn axes_show_min_max_and_start_end_times() {
    let out = lines(
        &[series("a", &[0.25, 3.0, 1200.0, 8.0])],
        80,
        &Theme::bundled(false),
    );
    let t = text(&out);
    assert!(t[0].trim_start().starts_with("1.2k ┤"), "{t:#?}");
    assert!(t[ROWS - 1].trim_start().starts_with("0.25 ┤"), "{t:#?}");
    assert!(t[ROWS].contains("└──"), "{t:#?}");
    let times = t[ROWS + 1].trim();
    assert!(
        times.starts_with("22:13") && times.ends_with("22:16 UTC"),
        "{t:#?}"
    );
}

#[test]
fn nan_and_infinite_values_are_skipped() {
    let nan = f64::NAN;
    let s = series("a", &[1.0, nan, f64::INFINITY, 4.0, f64::NEG_INFINITY, nan]);
    let t = text(&lines(&[s], 60, &Theme::bundled(false)));
    assert!(t[0].trim_start().starts_with("4 ┤"), "{t:#?}");
    assert!(t[ROWS - 1].trim_start().starts_with("1 ┤"), "{t:#?}");
    assert!(t[ROWS + 2].ends_with("last 4"), "last finite value: {t:#?}");
    assert!(!t.join("\n").contains("NaN") && !t.join("\n").contains("inf"));
    let all_nan = series("b", &[nan, nan]);
    let t = text(&lines(&[all_nan], 60, &Theme::bundled(false)));
    assert_eq!(
        t,
        ["  no chart: 1 series, no finite value (only NaN or ±Inf)"]
    );
}

#[test]
fn legend_lists_each_series_with_its_colour_and_last_value() {
    let a = series("{pod=\"router-1\"}", &[1.0, 2.0, 3_400_000.0]);
    let b = series("", &[0.5, 0.25]);
    let out = lines(&[a, b], 80, &Theme::bundled(false));
    let t = text(&out);
    assert_eq!(t[ROWS + 2], "  ● {pod=\"router-1\"}  last 3.4M");
    assert_eq!(t[ROWS + 3], "  ● (no labels)  last 0.25");
    assert_eq!(out[ROWS + 2].spans[1].style.fg, Some(Color::Cyan));
    assert_eq!(out[ROWS + 3].spans[1].style.fg, Some(Color::Yellow));
    let plotted: Vec<_> = out[..ROWS].iter().flat_map(|l| &l.spans[2..]).collect();
    assert!(plotted
        .iter()
        .any(|s| s.style.fg == Some(Color::Cyan) && s.content.trim() != ""));
}

#[test]
fn without_colour_series_are_numbered_at_their_last_point() {
    let a = series("a", &[0.0, 10.0]);
    let b = series("b", &[10.0, 0.0]);
    let out = lines(&[a, b], 40, &Theme::bundled(true));
    let p = plot(&out);
    assert_eq!(*p[0].last().expect("cells"), '1', "{p:?}");
    assert_eq!(*p[ROWS - 1].last().expect("cells"), '2', "{p:?}");
    let t = text(&out);
    assert!(t[ROWS + 2].starts_with("  1 a") && t[ROWS + 3].starts_with("  2 b"));
    let fg = out
        .iter()
        .flat_map(|l| &l.spans)
        .any(|s| s.style.fg.is_some());
    assert!(!fg, "NO_COLOR: no colours");
}

#[test]
fn a_single_point_and_a_flat_series_sit_mid_height() {
    for s in [series("one", &[7.0]), series("flat", &[7.0; 50])] {
        let out = lines(&[s], 40, &Theme::bundled(false));
        let t = text(&out);
        assert!(t[ROWS / 2].trim_start().starts_with("7 ┤"), "{t:#?}");
        let p = plot(&out);
        let rows: Vec<usize> = (0..ROWS)
            .filter(|r| p[*r].iter().any(|c| *c != ' '))
            .collect();
        assert_eq!(rows, [ROWS / 2], "{t:#?}");
        assert!(t[ROWS + 2].ends_with("last 7"), "{t:#?}");
    }
}

#[test]
fn no_series_no_lines_and_a_narrow_pane_gets_a_note() {
    assert!(lines(&[], 80, &Theme::bundled(false)).is_empty());
    let t = text(&lines(
        &[series("a", &[1.0, 2.0])],
        19,
        &Theme::bundled(false),
    ));
    assert_eq!(t.len(), 1);
    assert!(t[0].contains("chart hidden: widen the window"), "{t:?}");
    let t = text(&lines(
        &[series("a", &[1.0, 2.0])],
        20,
        &Theme::bundled(false),
    ));
    assert_eq!(t.len(), ROWS + 3);
    assert!(t.iter().all(|l| l.chars().count() <= 20), "{t:#?}");
}

#[test]
fn more_than_six_series_are_counted_under_the_legend() {
    let many: Vec<ChartSeries> = (0..9)
        .map(|i| series(&format!("s{i}"), &[f64::from(i), 1.0]))
        .collect();
    let t = text(&lines(&many, 80, &Theme::bundled(false)));
    assert_eq!(t.len(), ROWS + 2 + MAX_SERIES + 1, "{t:#?}");
    assert!(
        t[ROWS + 2 + MAX_SERIES].contains("+3 more series"),
        "{t:#?}"
    );
    assert!(!t.iter().any(|l| l.contains("s6")), "{t:#?}");
}

#[test]
fn ten_thousand_points_thin_to_the_plot_width_and_keep_spikes() {
    let mut values: Vec<f64> = (0..10_000).map(|i| f64::from(i % 7)).collect();
    values[5_000] = 1e6;
    let s = series("big", &values);
    let span = (T0, T0 + 60.0 * 9_999.0);
    let thin = downsample(&s.points, span, 80);
    assert!(thin.len() <= 160, "{} points", thin.len());
    let mut cols: Vec<i64> = thin
        .iter()
        .map(|p| {
            ((p.0 - span.0) / (span.1 - span.0) * 80.0)
                .floor()
                .min(79.0) as i64
        })
        .collect();
    cols.dedup();
    assert!(cols.len() <= 80);
    assert!(thin.iter().any(|p| p.1 == 1e6), "the spike survives");
    assert!(thin.windows(2).all(|w| w[0].0 <= w[1].0), "time order");
    let t = text(&lines(&[s], 60, &Theme::bundled(false)));
    assert!(t[0].trim_start().starts_with("1M ┤"), "{t:#?}");
    assert!(t.iter().all(|l| l.chars().count() <= 60));
}

#[test]
fn values_are_labelled_for_people() {
    let cases = [
        (0.0, "0"),
        (0.25, "0.25"),
        (0.001234, "0.0012"),
        (3.456, "3.46"),
        (42.0, "42"),
        (1234.0, "1.2k"),
        (3_400_000.0, "3.4M"),
        (-7.5e9, "-7.5G"),
        (123_456.0, "123k"),
        (0.0000012, "1.2e-6"),
    ];
    for (v, want) in cases {
        assert_eq!(human(v), want, "{v}");
    }
}
