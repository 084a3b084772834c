//! The confirmation screen and write mode in the pure `update()`: write mode needs the
//! session's context typed; a mutating probe then asks the runtime to prepare its screen;
//! each precondition is acknowledged on its own; the typed target goes to the runtime, which
//! decides; Esc runs nothing; open mitigations are raised before quit and export, and a
//! restore's value prompt is filled with the count captured before the scale-down.

use tsgnav::mitigate::OpenMitigation;
use tsgnav::nav::{Cmd, Effect as NavEffect};
use tsgnav::tsg::SafetyClass;
use tsgnav::tui::app::{Input, Item, Live};
use tsgnav::tui::mitigation::{DryRunView, Focus, MitigationView};
use tsgnav::tui::navigate::nav_cmd;
use tsgnav::tui::Effect;
use tsgnav::tui::{update, Action, App};

use crate::tui_common::{app, item_index, keys, type_text};

const MAESTRO: &str = "maestro-stuck-deletion.md";
const CTX: &str = "mc-eastus-1";

fn node_id(a: &App, title: &str) -> String {
    let g = a
        .lib
        .guides
        .iter()
        .find(|g| g.path == MAESTRO)
        .expect("guide");
    g.nodes
        .iter()
        .find(|n| n.title.starts_with(title))
        .unwrap_or_else(|| panic!("no step {title}"))
        .id
        .clone()
}

/// At Strategy 2 of the Maestro guide, live, with the session's context known.
fn at_strategy_2() -> App {
    let mut a = app();
    a.session.live = Live::Available;
    a.session.aim.flag = Some(CTX.into());
    let id = node_id(&a, "Strategy 2:");
    nav_cmd(&mut a, Cmd::Goto(id));
    a
}

fn select_probe(a: &mut App, p: usize) {
    a.screen.item_sel = item_index(a, |i| matches!(i, Item::Probe(q) if *q == p));
}

fn message(a: &App) -> String {
    a.notice
        .as_ref()
        .map(|n| n.text.clone())
        .unwrap_or_default()
}

fn view(a: &App, preconditions: usize) -> MitigationView {
    MitigationView {
        silence: None,
        probe: tsgnav::tsg::ProbeRef::new(a.current_id().expect("node"), 1),
        class: SafetyClass::Mutating,
        title: "Strategy 2 · probe 2".into(),
        goal: Some("remove the recreated ManifestWorks".into()),
        risk: Some("no ManifestWork is delivered".into()),
        preconditions: (1..=preconditions)
            .map(|i| format!("condition {i}"))
            .collect(),
        lead_in: None,
        vars: Vec::new(),
        command: "kubectl scale deployment maestro-agent -n maestro --replicas=0".into(),
        target: format!("context {CTX}"),
        namespace: None,
        confirm_name: Some(CTX.into()),
        place: None,
        dry_run: DryRunView::Runnable("kubectl scale … --dry-run=server".into()),
        captures: vec!["spec.replicas of deployment/maestro-agent -n maestro".into()],
    }
}

#[test]
fn write_mode_needs_the_context_typed_and_is_always_shown() {
    let mut a = at_strategy_2();
    assert!(!a.session.write);
    let screen = crate::tui_common::screen(&crate::tui_common::render(&mut a, 120, 30));
    assert!(screen.contains("READ-ONLY"), "{screen}");
    keys(&mut a, "W");
    assert!(matches!(a.input, Some(Input::Write { .. })));
    let fx = type_text(&mut a, "mc-westus-2");
    let fx2 = keys(&mut a, "<Enter>");
    assert!(fx.is_empty() && fx2.is_empty());
    assert!(!a.session.write, "a wrong context leaves write mode off");
    assert!(message(&a).contains("is not this session's context"));
    keys(&mut a, "W");
    type_text(&mut a, CTX);
    assert_eq!(keys(&mut a, "<Enter>"), vec![Effect::WriteMode(true)]);
    assert!(a.session.write);
    let screen = crate::tui_common::screen(&crate::tui_common::render(&mut a, 120, 30));
    assert!(screen.contains(&format!("WRITE {CTX}")), "{screen}");
    assert_eq!(
        keys(&mut a, "W"),
        vec![Effect::WriteMode(false)],
        "off at once"
    );
    assert!(!a.session.write);
}

#[test]
fn in_write_mode_a_mutating_probe_asks_the_runtime_for_its_screen_with_its_values() {
    let mut a = at_strategy_2();
    a.session.write = true;
    select_probe(&mut a, 1);
    let fx = keys(&mut a, "r");
    match fx.as_slice() {
        [Effect::Nav(NavEffect::NeedsMitigationFlow { probe, class, .. })] if probe.index == 1 => {
            assert_eq!(*class, SafetyClass::Mutating)
        }
        other => panic!("expected the mitigation flow, got {other:?}"),
    }
}

#[test]
fn each_precondition_is_acknowledged_then_the_typed_target_goes_to_the_runtime() {
    let mut a = at_strategy_2();
    a.session.write = true;
    let v = view(&a, 3);
    update(&mut a, Action::MitigationReady(Box::new(v.clone())));
    let m = a.mitigation.as_ref().expect("screen open");
    assert_eq!(
        (m.focus(), m.acks().to_vec()),
        (Focus::Preconditions, vec![false; 3])
    );
    let screen = crate::tui_common::screen(&crate::tui_common::render(&mut a, 120, 40));
    for text in [
        "Goal: remove the recreated",
        "Risk: no ManifestWork",
        "[ ] 1. condition 1",
        "kubectl scale deployment maestro-agent -n maestro --replicas=0",
        "Target: context mc-eastus-1",
        "Type the target `mc-eastus-1` to run",
        "Recorded first: spec.replicas",
    ] {
        assert!(screen.contains(text), "missing {text:?}:\n{screen}");
    }
    // Skipping to the target field and pressing Enter with a precondition open runs nothing.
    keys(&mut a, "<Tab>");
    type_text(&mut a, CTX);
    assert!(keys(&mut a, "<Enter>").is_empty());
    let m = a.mitigation.as_ref().expect("still open");
    assert!(m.error().unwrap_or("").contains("Precondition 1 of 3"));
    assert_eq!(m.focus(), Focus::Preconditions);
    // Space ticks one at a time; the focus stays until Tab (or Enter) moves it to the field.
    keys(&mut a, "<Space>");
    assert_eq!(
        a.mitigation.as_ref().expect("open").acks(),
        vec![true, false, false]
    );
    keys(&mut a, "<Space> <Space>");
    let m = a.mitigation.as_ref().expect("open");
    assert_eq!(
        (m.focus(), m.acks().to_vec()),
        (Focus::Preconditions, vec![true; 3])
    );
    keys(&mut a, "<Enter>");
    assert_eq!(a.mitigation.as_ref().expect("open").focus(), Focus::Target);
    let fx = keys(&mut a, "<Enter>");
    assert_eq!(
        fx,
        vec![Effect::ConfirmMitigation {
            probe: v.probe.clone(),
            acknowledged: vec![true; 3],
            typed: CTX.into(),
        }]
    );
    // The runtime refuses (say the target was wrong): the screen stays, with why.
    update(
        &mut a,
        Action::MitigationRefused("Not run: the target typed back".into()),
    );
    let m = a.mitigation.as_ref().expect("still open");
    assert!(!m.busy() && m.error() == Some("Not run: the target typed back"));
    update(&mut a, Action::MitigationStarted("Confirmed".into()));
    assert!(a.mitigation.is_none());
}

#[test]
fn escape_closes_the_screen_and_runs_nothing_and_d_asks_for_the_dry_run() {
    let mut a = at_strategy_2();
    a.session.write = true;
    let v = view(&a, 1);
    update(&mut a, Action::MitigationReady(Box::new(v)));
    let fx = keys(&mut a, "d");
    assert!(
        matches!(fx.as_slice(), [Effect::DryRun { probe }] if probe.index == 1),
        "{fx:?}"
    );
    update(
        &mut a,
        Action::DryRunFinished(
            true,
            "deployment.apps/maestro-agent scaled (server dry run)".into(),
        ),
    );
    let screen = crate::tui_common::screen(&crate::tui_common::render(&mut a, 120, 40));
    assert!(screen.contains("scaled (server dry run)"), "{screen}");
    assert!(keys(&mut a, "<Esc>").is_empty());
    assert!(a.mitigation.is_none());
    assert!(message(&a).contains("nothing was run"));
}

fn scaled_down() -> OpenMitigation {
    OpenMitigation {
        resource: "deployment/maestro-agent -n maestro".into(),
        field: "spec.replicas".into(),
        was: "3".into(),
        now: "0".into(),
        at: "2026-11-29T03:12:00Z".into(),
        probe: "maestro-stuck-deletion.md#strategy-2/2".into(),
    }
}

#[test]
fn open_mitigations_show_and_are_raised_before_quit_and_export() {
    let mut a = at_strategy_2();
    a.session.recording = true;
    update(&mut a, Action::OpenMitigations(vec![scaled_down()]));
    let screen = crate::tui_common::screen(&crate::tui_common::render(&mut a, 120, 30));
    assert!(
        screen.contains("OPEN 1: deployment/maestro-agent -n maestro → 0"),
        "{screen}"
    );
    keys(&mut a, "q");
    assert!(!a.session.quit, "the first q warns");
    assert!(message(&a).contains(
        "1 open mitigation: deployment/maestro-agent -n maestro scaled to 0 at 03:12, was 3"
    ));
    keys(&mut a, ":");
    type_text(&mut a, "export");
    assert!(
        keys(&mut a, "<Enter>").is_empty(),
        "the first :export warns"
    );
    assert!(message(&a).contains("Run :export again"));
    keys(&mut a, ":");
    type_text(&mut a, "export");
    assert_eq!(
        keys(&mut a, "<Enter>"),
        vec![Effect::Nav(NavEffect::Export)]
    );
    keys(&mut a, "q");
    keys(&mut a, "q");
    assert!(a.session.quit);
}

#[test]
fn a_restore_prompt_is_filled_with_the_count_captured_before_the_scale_down() {
    let mut a = at_strategy_2();
    a.session.write = true;
    update(&mut a, Action::OpenMitigations(vec![scaled_down()]));
    let restore = node_id(&a, "Restore the Maestro agent");
    nav_cmd(&mut a, Cmd::Goto(restore));
    select_probe(&mut a, 0);
    assert!(keys(&mut a, "r").is_empty(), "the value is asked for first");
    match &a.input {
        Some(Input::Prompt { var, buf, .. }) => {
            assert_eq!((var.as_str(), buf.as_str()), ("ORIG_REPLICAS", "3"));
        }
        other => panic!("expected the value prompt, got {other:?}"),
    }
    assert!(message(&a).contains("the count captured before deployment/maestro-agent"));
    let fx = keys(&mut a, "<Enter>");
    match fx.as_slice() {
        [Effect::Nav(NavEffect::NeedsMitigationFlow { bindings, .. })] => {
            assert_eq!(bindings.get("ORIG_REPLICAS").map(String::as_str), Some("3"));
        }
        other => panic!("expected the mitigation flow, got {other:?}"),
    }
}

#[test]
fn after_a_mitigation_ran_its_status_check_is_selected_next() {
    let mut a = at_strategy_2();
    let restore = node_id(&a, "Restore the Maestro agent");
    nav_cmd(&mut a, Cmd::Goto(restore.clone()));
    update(
        &mut a,
        Action::ProbeFinished {
            probe: tsgnav::tsg::ProbeRef::new(restore, 0),
            result: Ok(tsgnav::tui::action::ProbeOutput {
                outcome: tsgnav::tsg::Outcome::Exited(0),
                output: "deployment.apps/maestro-agent scaled".into(),
                assigns: Vec::new(),
                series: Vec::new(),
            }),
        },
    );
    let items = a.items();
    assert_eq!(items.get(a.screen.item_sel), Some(&Item::Probe(1)));
    assert!(
        message(&a).contains("r runs probe 2 (`kubectl rollout status"),
        "{}",
        message(&a)
    );
}

/// The navigator goes by the run's outcome, never by its text: a probe that prints
/// "failed: cancelled" finished; a cancelled one says so whatever it printed.
#[test]
fn a_probe_is_cancelled_by_its_outcome_not_by_what_it_printed() {
    use tsgnav::tsg::Outcome;
    let finish = |outcome: Outcome| {
        let mut a = at_strategy_2();
        let node = node_id(&a, "Restore the Maestro agent");
        nav_cmd(&mut a, Cmd::Goto(node.clone()));
        update(
            &mut a,
            Action::ProbeFinished {
                probe: tsgnav::tsg::ProbeRef::new(node, 0),
                result: Ok(tsgnav::tui::action::ProbeOutput {
                    outcome,
                    output: "failed: cancelled".into(),
                    assigns: Vec::new(),
                    series: Vec::new(),
                }),
            },
        );
        message(&a)
    };
    let printed = finish(Outcome::Exited(0));
    assert!(
        printed.contains("Probe 1 ran") && !printed.contains("cancelled"),
        "{printed}"
    );
    let cancelled = finish(Outcome::Cancelled);
    assert!(cancelled.contains("Probe 1 was cancelled"), "{cancelled}");
    let timed_out = finish(Outcome::TimedOut);
    assert!(timed_out.contains("Probe 1 failed"), "{timed_out}");
}
