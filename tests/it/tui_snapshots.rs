//! insta snapshots (ratatui TestBackend, colours off) of the library screen, a diagnostic
//! step, a mitigation scenario with its Risk callout and MUTATING badge, and the help screen,
//! at 80×24 and 160×48. Snapshots live in tests/snapshots/.

use tsgnav::nav::{AlertContext, Cmd};
use tsgnav::tui::app::Item;
use tsgnav::tui::navigate::nav_cmd;

use crate::tui_common::{app, id, item_index, keys, node_lines, render, screen, ALERT};

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

fn check(name: &str, text: &str) {
    insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!(name.to_string(), text);
    });
}

fn snap(name: &str, mut a: tsgnav::tui::App) {
    for (w, h) in SIZES {
        let text = screen(&render(&mut a, w, h));
        check(&format!("{name}_{w}x{h}"), &text);
    }
}

#[test]
fn library_screen() {
    let mut a = app();
    let text = screen(&render(&mut a, 80, 24));
    assert!(
        text.contains("▤ SWIFT networking") && text.contains("⚑ userJourneySwiftLatencyP991h5m"),
        "{text}"
    );
    snap("library", a);
}

#[test]
fn diagnostic_step_from_an_alert() {
    let mut a = app();
    nav_cmd(
        &mut a,
        Cmd::Alert(AlertContext {
            name: ALERT.into(),
            ..AlertContext::default()
        }),
    );
    keys(&mut a, "1");
    let text = screen(&render(&mut a, 80, 24));
    assert!(
        text.contains(&crate::tui_common::title("Step 2a:")) && text.contains("read-only"),
        "{text}"
    );
    snap("diagnostic_step", a);
}

#[test]
fn mitigation_scenario_with_risk_and_mutating_badge() {
    let mut a = app();
    nav_cmd(&mut a, Cmd::Goto(id("Scenario 1:")));
    // Select the force-delete probe in the actions panel: its MUTATING badge shows there.
    let probe = item_index(&a, |i| matches!(i, Item::Probe(1)));
    keys(&mut a, &vec!["<Tab>"; probe].join(" "));
    for (w, h) in SIZES {
        // Scroll so the Risk callout is at the top of the node pane (wrapping depends on width).
        let risk = node_lines(&mut a, w, h)
            .iter()
            .position(|l| l.contains("Risk:"))
            .expect("risk line");
        a.screen.scroll = risk.saturating_sub(1);
        let text = screen(&render(&mut a, w, h));
        assert!(text.contains("▌ Risk:"), "{text}");
        assert!(text.contains("MUTATING"), "{text}");
        check(&format!("mitigation_scenario_{w}x{h}"), &text);
    }
}

#[test]
fn help_screen() {
    let mut a = app();
    keys(&mut a, "?");
    let text = screen(&render(&mut a, 80, 24));
    assert!(
        text.contains("Back along the trail"),
        "help lists keymap rows: {text}"
    );
    snap("help", a);
}
