//! The confirmation screen shows what runs: a value holding a zero-width space, an ESC, a CR
//! or a bidi override is drawn with those characters as visible tokens (`⟨U+200B⟩`,
//! `⟨ESC⟩`, `⟨CR⟩`, `⟨U+202E⟩`) in the command, the values and the target, not
//! dropped (ratatui would drop them silently and `web-1<U+200B>` would look like `web-1`).

use tsgnav::nav::Cmd;
use tsgnav::tsg::{ProbeRef, SafetyClass};
use tsgnav::tui::app::Live;
use tsgnav::tui::mitigation::{DryRunView, MitigationView};
use tsgnav::tui::navigate::nav_cmd;
use tsgnav::tui::{update, Action, App};

use crate::tui_common::{app, render, screen};

const CTX: &str = "mc-eastus-1";

fn at_step() -> App {
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

fn view(a: &App, pod: &str, ns: &str) -> MitigationView {
    MitigationView {
        silence: None,
        probe: ProbeRef::new(a.current_id().expect("node"), 0),
        class: SafetyClass::Mutating,
        title: "Delete the pod".into(),
        goal: Some("free ${POD}".into()),
        risk: None,
        preconditions: Vec::new(),
        lead_in: None,
        vars: vec![("POD".into(), pod.into()), ("NS".into(), ns.into())],
        command: "kubectl delete pod \"${POD}\" -n \"${NS}\"".into(),
        target: format!("context {CTX}, namespace ${{NS}}"),
        namespace: Some("${NS}".into()),
        confirm_name: Some(CTX.into()),
        place: None,
        dry_run: DryRunView::Runnable("kubectl delete … --dry-run=server".into()),
        captures: Vec::new(),
    }
}

#[test]
fn invisible_characters_in_values_are_shown_not_dropped() {
    let mut a = at_step();
    let v = view(&a, "web-1\u{200b}", "prod\u{1b}[2J\r\u{202e}x");
    update(&mut a, Action::MitigationReady(Box::new(v)));
    let s = screen(&render(&mut a, 100, 30));
    for want in [
        "kubectl delete pod \"web-1⟨U+200B⟩\" -n \"prod⟨ESC⟩[2J⟨CR⟩⟨U+202E⟩x\"",
        "with POD=web-1⟨U+200B⟩",
        "Goal: free web-1⟨U+200B⟩",
        "namespace prod⟨ESC⟩[2J⟨CR⟩⟨U+202E⟩x",
    ] {
        assert!(s.contains(want), "missing {want:?}:\n{s}");
    }
    // A clean value looks as it always did.
    let mut b = at_step();
    let v = view(&b, "web-1", "prod");
    update(&mut b, Action::MitigationReady(Box::new(v)));
    let s = screen(&render(&mut b, 100, 30));
    assert!(
        s.contains("kubectl delete pod \"web-1\" -n \"prod\""),
        "{s}"
    );
    assert!(!s.contains('⟨'), "{s}");
}

/// The probe badge says when only the classifier vouches for a read-only probe (`az`, curl
/// to https://: through the egress proxy's CONNECT its method is not visible), and only then.
#[test]
fn the_badge_names_probes_read_only_by_the_classifier_only() {
    let lines = |slug: &str| {
        let mut a = app();
        let id = a
            .nav
            .index
            .resolve(&a.lib, None, &format!("swift-networking.md#{slug}"))
            .expect("step");
        nav_cmd(&mut a, Cmd::Goto(id));
        crate::tui_common::node_lines(&mut a, 140, 60).join("\n")
    };
    let az = lines("step-2g-afec-flag-and-service-association-link-azure");
    assert!(az.contains("read-only  by the classifier only"), "{az}");
    let kube = lines("step-2a-cns-is-running-on-the-affected-nodes");
    assert!(kube.contains("read-only"), "{kube}");
    assert!(!kube.contains("by the classifier only"), "{kube}");
}

#[test]
fn the_commands_namespace_is_named_when_the_targets_only_starts_like_it() {
    // The target's namespace is `gw-east`; the command deletes in `gw`: both are on screen.
    let mut a = at_step();
    let mut v = view(&a, "web-1", "gw");
    v.target = format!("context {CTX}, namespace gw-east");
    v.namespace = Some("gw-east".into());
    update(&mut a, Action::MitigationReady(Box::new(v)));
    let s = screen(&render(&mut a, 100, 30));
    assert!(
        s.contains(&format!(
            "Target: context {CTX}, namespace gw-east, namespace gw"
        )),
        "{s}"
    );
    // The same namespace is said once.
    let mut b = at_step();
    let v = view(&b, "web-1", "gw");
    update(&mut b, Action::MitigationReady(Box::new(v)));
    let s = screen(&render(&mut b, 100, 30));
    assert!(
        s.contains(&format!("Target: context {CTX}, namespace gw"))
            && !s.contains("gw, namespace gw"),
        "{s}"
    );
}
