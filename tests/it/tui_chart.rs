//! Range-query charts in the node pane: a probe result carrying series is drawn under its text
//! as a braille chart with axes and a legend, through the real view (TestBackend, colours off);
//! snapshot in tests/snapshots/.

use tsgnav::nav::Cmd;
use tsgnav::tui::app::{ChartSeries, ProbeResult};
use tsgnav::tui::navigate::nav_cmd;

use crate::tui_common::{app, id, node_lines, render, screen};

/// 2023-11-14 22:13:20 UTC; one sample a minute for an hour.
const T0: f64 = 1_700_000_000.0;

fn series(label: &str, f: impl Fn(f64) -> f64) -> ChartSeries {
    ChartSeries {
        label: label.into(),
        points: (0..=60)
            .map(|i| (T0 + 60.0 * f64::from(i), f(f64::from(i))))
            .collect(),
    }
}

#[test]
fn a_range_result_is_charted_under_its_probe() {
    let mut a = app();
    let step = id("Step 1:");
    nav_cmd(&mut a, Cmd::Goto(step.clone()));
    let probe = a
        .current_node()
        .expect("step 1")
        .probes
        .iter()
        .position(|p| p.code.contains("router:startup_latency:p99_avg_1h"))
        .expect("the p99 promql probe");
    let rising = series("{namespace=\"ocm-hcp-1\"}", |i| 0.5 + i * i / 400.0);
    let flat = series("{namespace=\"ocm-hcp-2\"}", |i| 1.0 + (i / 6.0).sin() * 0.2);
    a.probes.results.insert(
        tsgnav::tsg::ProbeRef::new(step, probe),
        ProbeResult {
            outcome: tsgnav::tsg::Outcome::Exited(0),
            ok: true,
            text: "2 series, 61 samples each".into(),
            series: vec![rising, flat],
        },
    );
    a.probes.generation += 1;
    let (w, h) = (100, 40);
    let at = node_lines(&mut a, w, h)
        .iter()
        .position(|l| l.contains("2 series, 61 samples each"))
        .expect("result text in the node pane");
    a.screen.scroll = at.saturating_sub(2);
    let text = screen(&render(&mut a, w, h));
    assert!(text.contains("9.5 ┤"), "max label: {text}");
    assert!(text.contains("0.5 ┤"), "min label: {text}");
    assert!(
        text.contains("22:13") && text.contains("23:13 UTC"),
        "times: {text}"
    );
    assert!(
        text.contains("1 {namespace=\"ocm-hcp-1\"}  last 9.5"),
        "legend: {text}"
    );
    assert!(
        text.contains("2 {namespace=\"ocm-hcp-2\"}  last 0.89"),
        "legend: {text}"
    );
    assert!(
        text.chars().any(|c| ('\u{2801}'..='\u{28ff}').contains(&c)),
        "braille dots: {text}"
    );
    insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!(format!("range_chart_{w}x{h}"), text);
    });
}
