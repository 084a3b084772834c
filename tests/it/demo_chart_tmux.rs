//! `tsgnav demo` in tmux draws a range chart: the landing step's p99 PromQL probe carries
//! `{range=6h step=5m}`, the recorded answer has a 6-hour series, and the node pane shows it
//! as a braille chart with its legend. Skips with a SKIP line when tmux is missing, unless
//! TSGNAV_REQUIRE_SERVERS=1.

use tsgnav::tui::app::Item;

use crate::tui_common::{at_alert, item_index, Tmux};

#[test]
fn demo_draws_the_range_chart_of_the_alert_signal() {
    let Some(t) = Tmux::start("demo-chart") else {
        return;
    };
    let a = at_alert();
    let probe = a
        .current_node()
        .expect("landing step")
        .probes
        .iter()
        .position(|p| p.code.contains("router:startup_latency:p99_avg_1h"))
        .expect("the p99 probe");
    t.send_line(&format!("{} demo", env!("CARGO_BIN_EXE_tsgnav")));
    t.wait_for("the landing step", |s| {
        s.contains("alert userJourneySwiftLatencyP991h5m routes here")
    });
    for _ in 0..item_index(&a, |i| matches!(i, Item::Probe(p) if *p == probe)) {
        t.keys(&["Tab"]);
    }
    t.keys(&["Enter"]);
    let done = format!("Probe {} finished", probe + 1);
    t.wait_for(&done, |s| s.contains(&done));
    let braille = |s: &str| {
        s.chars()
            .filter(|c| ('\u{2801}'..='\u{28ff}').contains(c))
            .count()
    };
    // Scroll until one frame shows the chart and its legend (below the chart) together.
    let mut screen = t.capture();
    for _ in 0..80 {
        if braille(&screen) > 10 && screen.contains("last 1.9k") {
            break;
        }
        t.keys(&["j"]);
        screen = t.capture();
    }
    assert!(braille(&screen) > 10, "a braille chart:\n{screen}");
    assert!(
        screen.contains("{namespace=\"ocm-prod-2lq3swift0demo0cluster0id01-demo-hcp\"}")
            && screen.contains("last 1.9k"),
        "the series legend:\n{screen}"
    );
    assert!(
        screen.contains("1.9k ┤") && screen.contains(" UTC"),
        "the max on the axis:\n{screen}"
    );
    eprintln!("demo chart capture:\n{screen}");
    t.quit_unexported();
    t.restored();
}
