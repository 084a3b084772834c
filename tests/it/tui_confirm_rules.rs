//! The confirmation screen's rules in the pure `update()` and the TestBackend: Enter is
//! refused until the command, target and field were drawn whole; values are shown in place of
//! `${NAME}` everywhere on the screen; a lead-in is shown and not ticked; the focus moves to
//! the target field only when asked, so no key leaks into it; Ctrl-c and `q` ask only when
//! something would be lost.

use tsgnav::mitigate::OpenMitigation;
use tsgnav::nav::Cmd;
use tsgnav::tsg::{ProbeRef, SafetyClass};
use tsgnav::tui::app::Live;
use tsgnav::tui::mitigation::{show_values, DryRunView, Focus, MitigationView};
use tsgnav::tui::navigate::nav_cmd;
use tsgnav::tui::Effect;
use tsgnav::tui::{update, Action, App};

use crate::tui_common::{app, keys, render, screen, type_text};

const CTX: &str = "mc-eastus-1";

fn at_scenario() -> App {
    let mut a = app();
    a.session.live = Live::Available;
    a.session.write = true;
    a.session.aim.flag = Some(CTX.into());
    let id = a
        .nav
        .index
        .resolve(
            &a.lib,
            None,
            "maestro-stuck-deletion.md#restore-the-maestro-agent",
        )
        .expect("step");
    nav_cmd(&mut a, Cmd::Goto(id));
    a
}

fn view(a: &App) -> MitigationView {
    MitigationView {
        silence: None,
        probe: ProbeRef::new(a.current_id().expect("node"), 0),
        class: SafetyClass::Mutating,
        title: "Delete the router pod".into(),
        goal: Some("free the NIC held in ${OCM_NAMESPACE}".into()),
        risk: Some("one replica of ${ROUTER_POD} is gone until it is replaced".into()),
        preconditions: vec![
            "the MTPNC in $OCM_NAMESPACE has a deletion timestamp".into(),
            "no reconcile for 10 minutes".into(),
        ],
        lead_in: Some("Scenario 1 applies, and every item below is true".into()),
        vars: vec![
            ("ROUTER_POD".into(), "router-7".into()),
            ("OCM_NAMESPACE".into(), "ocm-prod-x".into()),
        ],
        command: "kubectl delete pod \"${ROUTER_POD}\" -n \"${OCM_NAMESPACE}\" --force".into(),
        target: format!("context {CTX}, namespace ${{OCM_NAMESPACE}}"),
        namespace: Some("${OCM_NAMESPACE}".into()),
        confirm_name: Some(CTX.into()),
        place: None,
        dry_run: DryRunView::Runnable("kubectl delete … --dry-run=server".into()),
        captures: Vec::new(),
    }
}

fn open(a: &mut App) {
    let v = view(a);
    update(a, Action::MitigationReady(Box::new(v)));
}

fn error(a: &App) -> String {
    a.mitigation
        .as_ref()
        .and_then(|m| m.error().map(str::to_string))
        .unwrap_or_default()
}

#[test]
fn values_replace_names_everywhere_and_the_lead_in_is_not_an_item() {
    let mut a = at_scenario();
    open(&mut a);
    let s = screen(&render(&mut a, 80, 24));
    assert!(!s.contains("${") && !s.contains("$OCM"), "{s}");
    for want in [
        "kubectl delete pod \"router-7\" -n \"ocm-prod-x\" --force",
        "Target: context mc-eastus-1, namespace ocm-prod-x, pod/router-7",
        "Type the target `mc-eastus-1` to run:",
        "Scenario 1 applies, and every item below is true:",
        "[ ] 1. the MTPNC in ocm-prod-x has a deletion",
    ] {
        assert!(s.contains(want), "missing {want:?}:\n{s}");
    }
    assert_eq!(a.mitigation.as_ref().expect("open").acks().len(), 2);
    assert_eq!(
        show_values("$A $AB ${A}x $A_1", &[("A".into(), "1".into())]),
        "1 $AB 1x $A_1"
    );
}

#[test]
fn enter_is_refused_until_the_command_target_and_field_were_drawn_whole() {
    let mut a = at_scenario();
    open(&mut a);
    keys(&mut a, "<Space> <Space> <Tab>");
    type_text(&mut a, CTX);
    // Never drawn: refused.
    assert!(keys(&mut a, "<Enter>").is_empty());
    assert!(error(&a).contains("not whole on screen"), "{}", error(&a));
    // Drawn in a pane too short for the pinned part: still refused.
    render(&mut a, 80, 6);
    assert!(keys(&mut a, "<Enter>").is_empty());
    // Drawn at 80×24: the command was on screen, Enter asks the runtime.
    render(&mut a, 80, 24);
    let fx = keys(&mut a, "<Enter>");
    assert!(
        matches!(fx.as_slice(), [Effect::ConfirmMitigation { typed, .. }] if typed == CTX),
        "{fx:?}"
    );
}

#[test]
fn the_focus_moves_to_the_field_only_when_asked_so_d_is_the_dry_run() {
    let mut a = at_scenario();
    open(&mut a);
    render(&mut a, 80, 24);
    keys(&mut a, "<Space> <Space>");
    let fx = keys(&mut a, "d");
    assert!(matches!(fx.as_slice(), [Effect::DryRun { .. }]), "{fx:?}");
    let m = a.mitigation.as_ref().expect("open");
    assert_eq!((m.focus(), m.typed()), (Focus::Preconditions, ""));
    keys(&mut a, "<Tab>");
    type_text(&mut a, "d");
    assert_eq!(a.mitigation.as_ref().expect("open").typed(), "d");
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
fn ctrl_c_asks_once_with_a_mitigation_open_or_running_else_quits() {
    let mut a = at_scenario();
    keys(&mut a, "<C-c>");
    assert!(a.session.quit, "nothing at stake: Ctrl-c quits at once");

    let mut a = at_scenario();
    update(&mut a, Action::OpenMitigations(vec![scaled_down()]));
    keys(&mut a, "<C-c>");
    assert!(!a.session.quit, "the first Ctrl-c asks");
    let msg = a.notice.clone().map(|n| n.text).unwrap_or_default();
    assert!(
        msg.contains("Ctrl-c again quits") && msg.contains("1 open mitigation"),
        "{msg}"
    );
    keys(&mut a, "<C-c>");
    assert!(a.session.quit, "the second Ctrl-c quits");

    // A confirmed mutation still running counts too, until its result arrives.
    let mut a = at_scenario();
    open(&mut a);
    update(&mut a, Action::MitigationStarted("Confirmed".into()));
    keys(&mut a, "<C-c>");
    assert!(!a.session.quit, "asks while the mutation runs");
    let node = a.current_id().expect("node").to_string();
    update(
        &mut a,
        Action::ProbeFinished {
            probe: ProbeRef::new(node, 0),
            result: Err("failed: exit 1".into()),
        },
    );
    keys(&mut a, "<C-c>");
    assert!(a.session.quit, "nothing running any more: quits at once");
}

#[test]
fn q_asks_only_when_probe_runs_or_notes_would_miss_the_bundle() {
    let mut a = at_scenario();
    a.session.recording = true;
    a.session.evidence = tsgnav::tui::app::Evidence::Unexported;
    keys(&mut a, "q");
    assert!(a.session.quit, "only viewing: quits at once");

    let mut a = at_scenario();
    a.session.recording = true;
    a.session.evidence = tsgnav::tui::app::Evidence::Unexported;
    let node = a.current_id().expect("node").to_string();
    update(
        &mut a,
        Action::ProbeFinished {
            probe: ProbeRef::new(node, 1),
            result: Err("failed: exit 1".into()),
        },
    );
    keys(&mut a, "q");
    assert!(!a.session.quit);
    let msg = a.notice.clone().map(|n| n.text).unwrap_or_default();
    assert!(msg.contains("1 probe run since the last export"), "{msg}");
    update(&mut a, Action::Exported(Ok("bundle".into())));
    keys(&mut a, "q");
    assert!(a.session.quit, "exported: nothing would be lost");
}
