//! `tsgnav alerts firing` against a REAL Alertmanager (Debian's `prometheus-alertmanager`,
//! started on 127.0.0.1 with clustering off): alerts and silences are posted through its API
//! v2, then the command must report a routed alert with how it was routed, an unrouted one
//! with `route: null`, and a silenced one as suppressed with the silence's id.

use serde_json::{json, Value};

use super::common::{bin, root};
use super::servers;

fn firing_json(am: &str, extra: &[&str]) -> (Value, std::process::Output) {
    let out = bin()
        .args(["alerts", "firing", "--json", "--alertmanager-url", am])
        .args(extra)
        .arg(root().join("tests/fixtures/alerts"))
        .env(
            "TSGNAV_CONFIG",
            root().join("tests/fixtures/alerts/none.toml"),
        )
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (v, out)
}

fn by_name<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["alertname"] == name)
        .unwrap_or_else(|| panic!("{name} not listed: {v}"))
}

#[test]
fn routed_unrouted_and_silenced_from_a_real_alertmanager() {
    let Some(am) = servers::alertmanager("alertmanager::routed_unrouted_and_silenced") else {
        return;
    };
    servers::post_alerts(
        &am.url,
        &[
            (
                json!({"alertname": "IngressGatewayLatencyHigh", "severity": "warning",
                       "cluster": "mc-westeu-2", "region": "westeurope", "namespace": "gw"}),
                12,
            ),
            (
                json!({"alertname": "DiskPressureOnEtcd", "severity": "critical", "cluster": "mc-eastus-1"}),
                3,
            ),
            (
                json!({"alertname": "SubscriptionCoreQuotaLow", "severity": "info", "region": "eastus2"}),
                40,
            ),
        ],
    );
    let silence = servers::post_silence(&am.url, "alertname", "SubscriptionCoreQuotaLow");
    let (v, out) = firing_json(&am.url, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(v["alerts"].as_array().unwrap().len(), 3, "{v}");

    let routed = by_name(&v, "IngressGatewayLatencyHigh");
    assert_eq!(routed["state"], "active");
    assert_eq!(routed["labels"]["cluster"], "mc-westeu-2");
    assert_eq!(
        routed["route"],
        json!({"path": "ingress-latency.md",
               "to": "ingress-latency.md#step-1-measure-the-latency-per-gateway",
               "by": "triage-table"})
    );
    assert!(routed["startsAt"].as_str().unwrap().starts_with("20"));

    let unrouted = by_name(&v, "DiskPressureOnEtcd");
    assert_eq!(unrouted["route"], Value::Null);
    assert_eq!(unrouted["state"], "active");
    assert_eq!(unrouted["silenced_by"], json!([]));

    let silenced = by_name(&v, "SubscriptionCoreQuotaLow");
    assert_eq!(silenced["state"], "suppressed");
    assert_eq!(silenced["silenced_by"], json!([silence]));
    assert_eq!(silenced["route"]["by"], "front-matter");

    // The critical alert's group comes first.
    assert_eq!(v["alerts"][0]["alertname"], "DiskPressureOnEtcd");
    assert_eq!(v["sources"][0]["error"], Value::Null);

    // The text form says the same in one line per alert.
    let text = bin()
        .args(["alerts", "firing", "--alertmanager-url", &am.url])
        .arg(root().join("tests/fixtures/alerts"))
        .env(
            "TSGNAV_CONFIG",
            root().join("tests/fixtures/alerts/none.toml"),
        )
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout).to_string();
    assert!(
        text.lines()
            .any(|l| l.starts_with("suppressed by silence ")
                && l.contains("SubscriptionCoreQuotaLow")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("DiskPressureOnEtcd") && l.contains("no route")),
        "{text}"
    );
}

#[test]
fn several_alertmanagers_from_the_config_and_one_is_down() {
    let Some(east) = servers::alertmanager("alertmanager::several_alertmanagers") else {
        return;
    };
    let Some(west) = servers::alertmanager("alertmanager::several_alertmanagers") else {
        return;
    };
    servers::post_alerts(
        &east.url,
        &[(
            json!({"alertname": "IngressGateway5xxBurst", "cluster": "mc-eastus-1"}),
            5,
        )],
    );
    servers::post_alerts(
        &west.url,
        &[(
            json!({"alertname": "IngressGateway5xxBurst", "cluster": "mc-westus-3"}),
            9,
        )],
    );
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let down = servers::refusing();
    std::fs::write(
        &config,
        format!(
            "[[alertmanager]]\nname = \"eastus\"\nurl = \"{}\"\n\n[[alertmanager]]\nname = \"westus\"\nurl = \"{}\"\ntoken_cmd = \"echo not-a-real-token\"\n\n[[alertmanager]]\nname = \"northeu\"\nurl = \"{down}\"\n",
            east.url, west.url
        ),
    )
    .unwrap();
    let out = bin()
        .args(["alerts", "firing", "--json"])
        .arg(root().join("tests/fixtures/alerts"))
        .env("TSGNAV_CONFIG", &config)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sources: Vec<String> = v["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["source"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sources, ["eastus", "westus"], "{v}");
    assert_eq!(v["sources"][2]["name"], "northeu");
    assert!(
        v["sources"][2]["error"]
            .as_str()
            .unwrap()
            .contains("connection refused"),
        "{v}"
    );
    // The reachable ones are shown; the unreachable one is named on stderr with the fix,
    // and the exit status says something could not be read.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`northeu`") && err.contains("[[alertmanager]]"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(2));
}
