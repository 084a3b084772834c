//! The library screen's "Firing" section, driven through the real keymap and `update()` and
//! drawn on a TestBackend: grouping and order, the count in the status line, the line for an
//! Alertmanager that cannot be reached, Enter landing on the routed step with the labels as
//! variables, an unrouted alert opening the search, and `auto_run` starting only the step's
//! read-only probes. The end-to-end test against a real Alertmanager is in `alertmanager_tmux`.

use std::collections::BTreeMap;

use tsgnav::nav::{Effect as NavEffect, Event, VarSource};
use tsgnav::tui::app::{Live, Screen};
use tsgnav::tui::firing::{Alert, AlertState, FaultKind, Firing, FiringUpdate, SourceFault};
use tsgnav::tui::keymap::Keymap;
use tsgnav::tui::theme::Theme;
use tsgnav::tui::Effect;
use tsgnav::tui::{update, Action, App};

use super::tui_common::{keys, render, screen};

const NOW: i64 = 1_790_000_000;

pub fn fixture_app() -> App {
    let (lib, errors) =
        tsgnav::load::load_library(&[super::common::root().join("tests/fixtures/alerts")]);
    assert!(errors.is_empty(), "{errors:?}");
    let mut app = App::new(lib, Keymap::bundled(), Theme::bundled(true));
    app.firing = Firing::enabled();
    app.session.recording = true;
    app.session.live = Live::Available;
    app
}

pub fn alert(name: &str, labels: &[(&str, &str)], minutes_ago: i64) -> Alert {
    let mut l: BTreeMap<String, String> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    l.insert("alertname".into(), name.into());
    Alert {
        source: "eastus".into(),
        name: name.into(),
        labels: l,
        since: NOW - minutes_ago * 60,
        starts_at: "2026-09-21T10:00:00Z".into(),
        state: AlertState::Active,
        ..Alert::default()
    }
}

fn refresh(app: &mut App, alerts: Vec<Alert>, errors: Vec<SourceFault>) {
    update(
        app,
        Action::Firing(Box::new(FiringUpdate {
            alerts,
            errors,
            at: NOW,
        })),
    );
}

fn three() -> Vec<Alert> {
    vec![
        alert(
            "IngressGatewayLatencyHigh",
            &[
                ("severity", "warning"),
                ("cluster", "mc-westeu-2"),
                ("namespace", "gw-west"),
            ],
            30,
        ),
        alert(
            "IngressGatewayLatencyHigh",
            &[
                ("severity", "warning"),
                ("cluster", "mc-eastus-1"),
                ("namespace", "gw-east"),
            ],
            5,
        ),
        alert("DiskPressureOnEtcd", &[("severity", "critical")], 2),
    ]
}

#[test]
fn grouped_by_name_sorted_by_severity_with_a_count_in_the_status_line() {
    let mut app = fixture_app();
    let s = screen(&render(&mut app, 100, 24));
    assert!(s.contains("asking the Alertmanager"), "{s}");
    refresh(&mut app, three(), vec![]);
    let s = screen(&render(&mut app, 100, 24));
    let lines: Vec<&str> = s.lines().collect();
    let at = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("`{needle}` not on screen:\n{s}"))
    };
    // The critical alert's group first; inside a group, by cluster.
    assert!(at("⚑ DiskPressureOnEtcd ×1") < at("⚑ IngressGatewayLatencyHigh ×2"));
    assert!(at("mc-eastus-1 · warning · 5m") < at("mc-westeu-2 · warning · 30m"));
    assert!(lines[at("⚑ DiskPressureOnEtcd")].contains("no guide routes it"));
    assert!(lines[at("⚑ IngressGatewayLatencyHigh")]
        .contains("→ Step 1: Measure the latency per gateway"));
    // The guides are still listed below the section, and the status line counts.
    assert!(at("mc-westeu-2") < at("▤ Ingress gateway"), "{s}");
    assert!(lines[23].contains("3 FIRING"), "{s}");
}

#[test]
fn enter_lands_on_the_routed_step_with_the_labels_as_variables() {
    let mut app = fixture_app();
    refresh(&mut app, three(), vec![]);
    // The first alert (the critical one) is selected; j moves to the routed group.
    let fx = keys(&mut app, "j <Enter>");
    assert_eq!(app.screen.current, Screen::Guide);
    assert_eq!(
        app.nav.current.as_deref(),
        Some("ingress-latency.md#step-1-measure-the-latency-per-gateway")
    );
    let ns = app.nav.vars.get("NAMESPACE").expect("NAMESPACE filled");
    assert_eq!(ns.value, "gw-east");
    assert_eq!(ns.source, VarSource::AlertLabel("namespace".into()));
    assert_eq!(app.nav.vars["CLUSTER"].value, "mc-eastus-1");
    // The alert goes into the evidence with its labels.
    assert!(fx.iter().any(|e| matches!(e,
        Effect::Nav(NavEffect::Record(Event::AlertReceived { name, labels }))
            if name == "IngressGatewayLatencyHigh" && labels["cluster"] == "mc-eastus-1")));
    // Without auto_run nothing started.
    assert!(!fx
        .iter()
        .any(|e| matches!(e, Effect::Nav(NavEffect::RunProbe { .. }))));
    // The variables panel names the label each value came from.
    keys(&mut app, "v");
    let s = screen(&render(&mut app, 120, 40));
    assert!(s.contains("alert label `namespace`"), "{s}");
}

#[test]
fn an_alert_that_arrives_before_its_guide_routes_when_the_guide_is_loaded() {
    let full = fixture_app();
    let mut app = App::new(
        tsgnav::tsg::Library::default(),
        Keymap::bundled(),
        Theme::bundled(true),
    );
    app.firing = Firing::enabled();
    app.session.loading = Some((0, 0));
    refresh(&mut app, three(), vec![]);
    // Enter before any guide is in: it says the library is still loading, not "no guide".
    let fx = keys(&mut app, "j <Enter>");
    assert!(fx.is_empty());
    assert_eq!(app.screen.current, Screen::Library);
    let msg = app.notice.clone().expect("a message").text;
    assert!(msg.contains("Guides are still loading"), "{msg}");
    assert!(!msg.contains("No loaded guide routes"), "{msg}");
    // The guides arrive: the alert routes now, without waiting for the next refresh.
    let total = full.lib.guides.len();
    tsgnav::tui::loading::absorb(&mut app, full.lib.guides.clone(), total, total);
    tsgnav::tui::loading::finish(&mut app, false);
    let s = screen(&render(&mut app, 100, 24));
    assert!(
        s.lines().any(|l| l.contains("⚑ IngressGatewayLatencyHigh")
            && l.contains("→ Step 1: Measure the latency per gateway")),
        "{s}"
    );
    keys(&mut app, "<Enter>");
    assert_eq!(app.screen.current, Screen::Guide, "{:?}", app.notice);
    assert_eq!(
        app.nav.current.as_deref(),
        Some("ingress-latency.md#step-1-measure-the-latency-per-gateway")
    );
}

#[test]
fn an_unrouted_alert_opens_the_search_prefilled_and_says_so() {
    let mut app = fixture_app();
    refresh(&mut app, three(), vec![]);
    let fx = keys(&mut app, "<Enter>");
    assert!(fx.is_empty());
    assert_eq!(app.screen.current, Screen::Library);
    assert_eq!(app.search.query, "DiskPressureOnEtcd");
    let msg = app.notice.clone().expect("a message").text;
    assert!(
        msg.contains("No loaded guide routes `DiskPressureOnEtcd`"),
        "{msg}"
    );
}

#[test]
fn auto_run_starts_the_read_only_probes_and_never_a_mutating_one() {
    let mut app = fixture_app();
    let alerts = three()
        .into_iter()
        .map(|a| Alert {
            auto_run: true,
            ..a
        })
        .collect();
    refresh(&mut app, alerts, vec![]);
    let fx = keys(&mut app, "j <Enter>");
    let started: Vec<(usize, &BTreeMap<String, String>)> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Nav(NavEffect::RunProbe { probe, bindings }) => Some((probe.index, bindings)),
            _ => None,
        })
        .collect();
    // Probes 0 and 1 read; probe 2 (`rollout restart`) writes and must not start.
    assert_eq!(
        started.iter().map(|s| s.0).collect::<Vec<_>>(),
        vec![0, 1],
        "{fx:?}"
    );
    assert_eq!(started[0].1["NAMESPACE"], "gw-east");
    assert!(!fx
        .iter()
        .any(|e| matches!(e, Effect::Nav(NavEffect::NeedsMitigationFlow { .. }))));
    let msg = app.notice.clone().expect("a message").text;
    assert!(msg.contains("started its 2 read-only probes"), "{msg}");
}

#[test]
fn an_unreachable_alertmanager_is_a_line_and_the_rest_works() {
    let mut app = fixture_app();
    refresh(
        &mut app,
        vec![],
        vec![SourceFault::new(
            "westus",
            FaultKind::Down,
            "cannot read http://127.0.0.1:1: connection refused to 127.0.0.1:1; is it running?",
        )],
    );
    let s = screen(&render(&mut app, 100, 24));
    assert!(
        s.contains("✗ westus: cannot read http://127.0.0.1:1"),
        "{s}"
    );
    assert!(s.contains("ALERTMANAGER UNREACHABLE"), "{s}");
    // The guides still open.
    keys(&mut app, "<Enter>");
    assert_eq!(app.screen.current, Screen::Guide);
}

#[test]
fn a_refresh_keeps_the_selected_alert_selected() {
    let mut app = fixture_app();
    refresh(&mut app, three(), vec![]);
    keys(&mut app, "j j");
    let chosen = app.firing.alerts()[app.firing.selected().unwrap()]
        .labels
        .clone();
    let mut more = three();
    more.push(alert("AnotherCriticalOne", &[("severity", "critical")], 1));
    refresh(&mut app, more, vec![]);
    let now = app.firing.alerts()[app.firing.selected().unwrap()]
        .labels
        .clone();
    assert_eq!(now, chosen);
    // Moving down past the last alert lands in the guides list, and up comes back.
    keys(&mut app, "j");
    assert_eq!(app.firing.selected(), None);
    keys(&mut app, "k");
    assert_eq!(app.firing.selected(), Some(3));
}

#[test]
fn five_thousand_alerts_fold_in_and_draw() {
    let mut app = fixture_app();
    let many: Vec<Alert> = (0..5000)
        .map(|i| {
            alert(
                &format!("Synthetic{}", i % 50),
                &[
                    ("severity", ["critical", "warning", "info"][i % 3]),
                    ("cluster", &format!("mc-{i}")),
                ],
                (i % 600) as i64,
            )
        })
        .collect();
    let t = std::time::Instant::now();
    refresh(&mut app, many, vec![]);
    let folded = t.elapsed();
    let s = screen(&render(&mut app, 120, 40));
    eprintln!(
        "MEASURED: folding 5,000 alerts into the Firing section {folded:?}, fold + first draw {:?}",
        t.elapsed()
    );
    assert!(s.contains("Firing · 5000 alerts"), "{s}");
    assert!(s.contains("5000 FIRING"), "{s}");
    // The last alert can be reached.
    keys(&mut app, "G");
    keys(&mut app, "g");
    assert_eq!(app.firing.selected(), Some(0));
}

#[test]
fn a_silence_needs_write_mode_and_the_alertmanager_name_typed_back_on_the_confirmation_screen() {
    let mut app = fixture_app();
    refresh(&mut app, three(), vec![]);
    // Read-only: refused, saying how to turn write mode on.
    assert!(keys(&mut app, "j S").is_empty());
    assert!(app.mitigation.is_none());
    let said = app.notice.clone().expect("a message").text;
    assert!(
        said.contains("read-only")
            && said.contains("Press W")
            && said.contains("nothing was silenced"),
        "{said}"
    );
    app.session.write = true;
    keys(&mut app, "S");
    let m = app
        .mitigation
        .clone()
        .expect("the confirmation screen opens");
    let draft = m.view().silence.clone().expect("a silence");
    assert_eq!(draft.alert, "IngressGatewayLatencyHigh");
    assert_eq!(draft.labels["namespace"], "gw-east");
    assert_eq!(m.view().confirm_name.as_deref(), Some("eastus"));
    // `+` before typing doubles the duration, shown on the screen.
    keys(&mut app, "+");
    let s = screen(&render(&mut app, 100, 30));
    assert!(s.contains("Mitigation: confirm before it runs"), "{s}");
    assert!(s.contains("Type the target `eastus` to run"), "{s}");
    assert!(s.contains("namespace=\"gw-east\""), "{s}");
    assert!(s.contains("duration: 4 h"), "{s}");
    // A wrong name: nothing is sent, the screen stays open and says why.
    let fx = super::tui_common::type_text(&mut app, "westus");
    assert!(fx.is_empty());
    let fx = keys(&mut app, "<Enter>");
    assert!(fx.is_empty(), "{fx:?}");
    let m = app.mitigation.clone().expect("still open");
    assert!(
        m.error()
            .unwrap_or_default()
            .contains("nothing was silenced"),
        "the refusal is shown"
    );
    // The right name: one silence effect with the alert's labels; the screen closes.
    super::tui_common::type_text(&mut app, "eastus");
    let fx = keys(&mut app, "<Enter>");
    assert!(app.mitigation.is_none());
    match fx.as_slice() {
        [Effect::Silence {
            source,
            labels,
            typed,
            hours,
            ..
        }] => {
            assert_eq!(
                (source.as_str(), typed.as_str(), *hours),
                ("eastus", "eastus", 4)
            );
            assert_eq!(labels["cluster"], "mc-eastus-1");
        }
        other => panic!("{other:?}"),
    }
    // Esc cancels without an effect.
    keys(&mut app, "S");
    assert!(keys(&mut app, "<Esc>").is_empty());
    assert!(app.mitigation.is_none());
}

fn open_mitigation() -> tsgnav::mitigate::OpenMitigation {
    tsgnav::mitigate::OpenMitigation {
        resource: "deployment/ingress-gw -n gw-east".into(),
        field: "spec.replicas".into(),
        was: "3".into(),
        now: "0".into(),
        at: "2026-11-30T03:12:09Z".into(),
        probe: "gateway.md#scale-down/12".into(),
    }
}

#[test]
fn quitting_and_closing_the_mitigation_offer_to_expire_the_silences_made() {
    let mut app = fixture_app();
    refresh(&mut app, three(), vec![]);
    update(&mut app, Action::OpenMitigations(vec![open_mitigation()]));
    update(
        &mut app,
        Action::Silenced {
            source: "eastus".into(),
            id: "sil-1".into(),
            alert: "IngressGatewayLatencyHigh".into(),
        },
    );
    // q offers to expire it; x does.
    assert!(keys(&mut app, "q").is_empty());
    assert!(!app.session.quit);
    let said = app.notice.clone().expect("the offer").text;
    assert!(
        said.contains("sil-1 on eastus") && said.contains("Press x to expire"),
        "{said}"
    );
    assert_eq!(
        keys(&mut app, "x"),
        vec![Effect::ExpireSilence {
            source: "eastus".into(),
            id: "sil-1".into()
        }]
    );
    // Until the runtime says it expired, it is still offered; then q goes on as before.
    update(&mut app, Action::SilenceExpired("sil-1".into()));
    assert!(app.firing.created().is_empty());
    // The mitigation it was made during closes: expiring is offered again for a new one.
    update(
        &mut app,
        Action::Silenced {
            source: "eastus".into(),
            id: "sil-2".into(),
            alert: "IngressGatewayLatencyHigh".into(),
        },
    );
    update(&mut app, Action::OpenMitigations(vec![]));
    let said = app.notice.clone().expect("the offer").text;
    assert!(
        said.contains("mitigation just closed") && said.contains("sil-2"),
        "{said}"
    );
    // Any other key keeps it (and does what it always does).
    assert!(!keys(&mut app, "j")
        .iter()
        .any(|e| matches!(e, Effect::ExpireSilence { .. })));
    assert!(app.firing.expire_offer().is_empty());
    assert_eq!(app.firing.created().len(), 1, "kept");
    // q q leaves it active and quits.
    keys(&mut app, "q");
    keys(&mut app, "q");
    assert!(app.session.quit);
}
