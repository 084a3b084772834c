//! Key-script tests of the pure `update()` (helix-style): a start state, the keys an operator
//! presses (through the bundled keymap), and the node and state expected afterwards.

use tsgnav::nav::{Cmd, Effect as NavEffect, Status, VarSource};
use tsgnav::tui::app::{Input, Item, Live, Screen};
use tsgnav::tui::navigate::nav_cmd;
use tsgnav::tui::Effect;

use crate::tui_common::{app, at_alert, current, id, item_index, keys, type_text, ALERT};

#[test]
fn alert_lands_on_the_routed_step_with_the_alert_as_context() {
    let a = at_alert();
    assert_eq!(current(&a), id("Step 1:"));
    assert_eq!(a.screen.current, Screen::Guide);
    let alert = a.nav.alert.as_ref().expect("alert context");
    assert_eq!(alert.name, ALERT);
    assert_eq!(alert.target.as_deref(), Some(id("Step 1:").as_str()));
    assert_eq!(a.nav.status_of(&current(&a)), Status::Visited);
}

#[test]
fn follow_a_branch_then_back_returns_along_the_trail() {
    let mut a = at_alert();
    keys(&mut a, "1");
    assert_eq!(current(&a), id("Step 2a:"));
    assert_eq!(a.nav.trail, vec![id("Step 1:")]);
    keys(&mut a, "h");
    assert_eq!(current(&a), id("Step 1:"));
    assert!(a.nav.trail.is_empty());
    keys(&mut a, "<Backspace>");
    assert_eq!(current(&a), id("Step 1:"), "nothing before the start");
    assert!(a
        .notice
        .as_ref()
        .is_some_and(|n| n.text.contains("Nothing to go back to")));
}

#[test]
fn back_goes_along_the_trail_not_up_the_outline() {
    let mut a = at_alert();
    // Step 1 → (branch 4) Step 5 → (next) Step 6 → back → Step 5 → back → Step 1.
    keys(&mut a, "4");
    assert_eq!(current(&a), id("Step 5:"));
    keys(&mut a, "n");
    assert_eq!(current(&a), id("Step 6:"));
    keys(&mut a, "<Left>");
    assert_eq!(current(&a), id("Step 5:"));
    keys(&mut a, "b");
    assert_eq!(current(&a), id("Step 1:"));
}

#[test]
fn tab_selects_and_enter_follows_the_selected_choice() {
    let mut a = at_alert();
    keys(&mut a, "<Tab> <Tab> <S-Tab> <Enter>");
    assert_eq!(current(&a), id("Step 2:"));
    assert_eq!(a.screen.item_sel, 0, "selection resets on a new step");
}

#[test]
fn space_ticks_and_unticks_a_validation_item() {
    let mut a = at_alert();
    keys(&mut a, ":");
    type_text(&mut a, "goto validation-and-confirmation");
    keys(&mut a, "<Enter>");
    let node = id("Validation");
    assert_eq!(current(&a), node);
    let first = item_index(&a, |i| matches!(i, Item::Check(0)));
    keys(&mut a, &vec!["<Tab>"; first].join(" "));
    keys(&mut a, "<Space>");
    assert!(a.nav.is_ticked(&node, 0));
    assert!(!a.nav.is_ticked(&node, 1));
    keys(&mut a, "x");
    assert!(!a.nav.is_ticked(&node, 0), "a second tick clears it");
}

#[test]
fn preconditions_are_tickable_items() {
    let mut a = app();
    nav_cmd(&mut a, Cmd::Goto(id("Scenario 1:")));
    let first = item_index(&a, |i| matches!(i, Item::Check(_)));
    keys(&mut a, &vec!["]"; first].join(" "));
    keys(&mut a, "<Enter>");
    assert!(a.nav.is_ticked(&current(&a), 0));
}

#[test]
fn done_and_skip_set_the_outline_status() {
    let mut a = at_alert();
    keys(&mut a, "d");
    assert_eq!(a.nav.status_of(&id("Step 1:")), Status::Done);
    keys(&mut a, "n s");
    assert_eq!(a.nav.status_of(&id("Step 2:")), Status::Skipped);
}

#[test]
fn a_probe_missing_a_variable_prompts_then_runs_with_the_typed_value() {
    let mut a = app();
    a.session.live = Live::Available;
    nav_cmd(&mut a, Cmd::Goto(id("Step 2c:")));
    let probe = item_index(&a, |i| matches!(i, Item::Probe(0)));
    keys(&mut a, &vec!["<Tab>"; probe].join(" "));
    assert!(keys(&mut a, "<Enter>").is_empty());
    assert!(
        matches!(&a.input, Some(Input::Prompt { var, .. }) if var == "OCM_NAMESPACE"),
        "{:?}",
        a.input
    );
    type_text(&mut a, "ocm-x");
    let effects = keys(&mut a, "<Enter>");
    let run = effects.iter().find_map(|e| match e {
        Effect::Nav(NavEffect::RunProbe { probe, bindings }) => {
            Some((probe.node.to_string(), probe.index, bindings.clone()))
        }
        _ => None,
    });
    let (node, p, bindings) = run.expect("the probe runs once the value is typed");
    assert_eq!((node.as_str(), p), (id("Step 2c:").as_str(), 0));
    assert_eq!(
        bindings.get("OCM_NAMESPACE").map(String::as_str),
        Some("ocm-x")
    );
    assert_eq!(a.nav.vars["OCM_NAMESPACE"].source, VarSource::Typed);
}

#[test]
fn without_live_queries_nothing_runs_and_the_ui_says_so() {
    let mut a = at_alert();
    let effects = keys(&mut a, "r");
    assert!(!effects
        .iter()
        .any(|e| matches!(e, Effect::Nav(NavEffect::RunProbe { .. }))));
    let n = a.notice.clone().expect("a message");
    let (msg, err) = (n.text.clone(), n.is_error());
    assert!(msg.contains("Live queries are unavailable") && err, "{msg}");
}

#[test]
fn a_mutating_probe_in_a_read_only_session_is_not_run_and_says_how_to_turn_write_mode_on() {
    let mut a = app();
    a.session.live = Live::Available;
    nav_cmd(&mut a, Cmd::Goto(id("Scenario 1:")));
    nav_cmd(
        &mut a,
        Cmd::SetVar {
            name: "ROUTER_POD".into(),
            value: "r".into(),
            source: VarSource::Flag,
        },
    );
    nav_cmd(
        &mut a,
        Cmd::SetVar {
            name: "OCM_NAMESPACE".into(),
            value: "n".into(),
            source: VarSource::Flag,
        },
    );
    let probe = item_index(&a, |i| matches!(i, Item::Probe(1)));
    keys(&mut a, &vec!["<Tab>"; probe].join(" "));
    let effects = keys(&mut a, "<Enter>");
    assert!(effects.is_empty(), "{effects:?}");
    assert!(a
        .notice
        .as_ref()
        .is_some_and(|n| n.text.contains("mutating")
            && n.text.contains("read-only")
            && n.text.contains("Press W")
            && n.text.contains("nothing was run")));
}
