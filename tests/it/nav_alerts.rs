//! Alert payloads (Alertmanager webhook, Prometheus `/api/v1/alerts`, one alert) → name and
//! labels, which label fills which guide variable, and `--alert` landing with labels applied.

use tsgnav::nav::{
    apply, parse_alert_payload, var_for_label, AlertContext, Cmd, NavState, PayloadError, VarSource,
};

const WEBHOOK: &str = r#"{
  "version": "4", "status": "firing", "receiver": "aro-hcp",
  "commonLabels": {"cluster": "hcp-int-eastus-mgmt-1", "region": "eastus"},
  "alerts": [
    {"status": "resolved", "labels": {"alertname": "SwiftCNSAvailability3d"}},
    {"status": "firing", "labels": {"alertname": "userJourneySwiftLatencyP991h5m", "namespace": "ocm-abc", "node": "aks-userswft-1"},
     "annotations": {"summary": "slow"}, "startsAt": "2026-11-29T10:00:00Z"}
  ]
}"#;

#[test]
fn alertmanager_webhook_puts_firing_alerts_first_with_common_labels() {
    let alerts = parse_alert_payload("payload.json", WEBHOOK).expect("parses");
    assert_eq!(alerts[0].name, "userJourneySwiftLatencyP991h5m");
    assert_eq!(alerts[0].labels["cluster"], "hcp-int-eastus-mgmt-1");
    assert_eq!(alerts[0].labels["node"], "aks-userswft-1");
    assert_eq!(alerts[1].name, "SwiftCNSAvailability3d");
}

#[test]
fn prometheus_api_answer_and_single_alert_parse() {
    let prom = r#"{"status":"success","data":{"alerts":[{"labels":{"alertname":"SwiftPendingProgramming","node":"n1"},"state":"firing","value":"1e+00"}]}}"#;
    let a = parse_alert_payload("prom.json", prom).expect("parses");
    assert_eq!(
        (a[0].name.as_str(), a[0].labels["node"].as_str()),
        ("SwiftPendingProgramming", "n1")
    );
    let one = r#"{"labels":{"alertname":"X","severity":"critical"}}"#;
    assert_eq!(
        parse_alert_payload("one.json", one).expect("parses")[0].name,
        "X"
    );
}

#[test]
fn bad_payloads_say_what_is_wrong() {
    let e = parse_alert_payload("p.json", "{not json").expect_err("not json");
    assert!(matches!(e, PayloadError::NotJson { .. }));
    assert!(e.to_string().starts_with("p.json: is not JSON"), "{e}");
    let e = parse_alert_payload("p.json", r#"{"foo": 1}"#).expect_err("no alerts");
    assert!(e.to_string().contains("has no alerts"), "{e}");
    let e = parse_alert_payload("p.json", r#"{"alerts":[{"labels":{"severity":"x"}}]}"#)
        .expect_err("no name");
    assert!(e.to_string().contains("alert 1 has no `alertname`"), "{e}");
}

#[test]
fn labels_fill_variables_by_name() {
    assert!(var_for_label("namespace", "OCM_NAMESPACE"));
    assert!(var_for_label("node", "NODE_NAME"));
    assert!(var_for_label("region", "REGION"));
    assert!(!var_for_label("node", "NODE_RESOURCE_GROUP"));
    assert!(!var_for_label("alertname", "ALERTNAME"));
}

#[test]
fn alert_with_labels_lands_and_fills_variables_from_labels() {
    let (lib, _) = tsgnav::load::load_library(&[crate::common::root().join("tsg")]);
    let mut st = NavState::new(&lib);
    apply(
        &mut st,
        &lib,
        Cmd::SetVar {
            name: "NODE_NAME".into(),
            value: "from-flag".into(),
            source: VarSource::Flag,
        },
    );
    let a = parse_alert_payload("payload.json", WEBHOOK)
        .expect("parses")
        .remove(0);
    apply(
        &mut st,
        &lib,
        Cmd::Alert(AlertContext {
            name: a.name,
            labels: a.labels,
            target: None,
            runbook_url: None,
        }),
    );
    assert_eq!(
        st.current.as_deref(),
        Some("swift-networking.md#step-1-establish-the-blast-radius")
    );
    assert_eq!(st.vars["OCM_NAMESPACE"].value, "ocm-abc");
    assert_eq!(
        st.vars["OCM_NAMESPACE"].source,
        VarSource::AlertLabel("namespace".into())
    );
    assert_eq!(
        st.vars["NODE_NAME"].value, "from-flag",
        "a flag is not overwritten by a label"
    );
}

#[test]
fn an_unrouted_alert_says_so_and_stays_put() {
    let (lib, _) = tsgnav::load::load_library(&[crate::common::root().join("tsg")]);
    let mut st = NavState::new(&lib);
    let fx = apply(
        &mut st,
        &lib,
        Cmd::Alert(AlertContext {
            name: "NoSuchAlert".into(),
            ..AlertContext::default()
        }),
    );
    assert!(st.current.is_none());
    assert!(fx.iter().any(|e| matches!(e, tsgnav::nav::Effect::Notice(m) if m.contains("No loaded guide routes alert `NoSuchAlert`"))));
}
