//! Firing alerts from a REAL Prometheus: it evaluates tests/fixtures/alerts/rules.yml against a
//! series backfilled by promtool (one gateway's queue too long, one fine) and delivers what
//! fires to a REAL Alertmanager. `tsgnav alerts firing` must list the alert both ways: from the
//! Alertmanager, and, with only a Prometheus, from its `ALERTS{alertstate="firing"}` series.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::common::{bin, root};
use super::servers;

/// Ten minutes of queue lengths up to now, one sample every 15 s.
fn queue_series() -> String {
    let end = chrono::Utc::now().timestamp() - 1;
    let mut s = String::from("# TYPE ingress_gateway_queue_length gauge\n");
    for (cluster, value) in [("mc-eastus-1", 42.0), ("mc-westus-3", 2.0)] {
        for i in 0..40 {
            s.push_str(&format!(
                "ingress_gateway_queue_length{{cluster=\"{cluster}\",namespace=\"gw\"}} {value} {}\n",
                end - 600 + 15 * i
            ));
        }
    }
    s.push_str("# EOF\n");
    s
}

/// Runs `alerts firing --json` with `args` until `ok` holds for its output (60 s at most).
fn firing_until(args: &[&str], ok: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let out = bin()
            .args(["alerts", "firing", "--json"])
            .args(args)
            .arg(root().join("tests/fixtures/alerts"))
            .env(
                "TSGNAV_CONFIG",
                root().join("tests/fixtures/alerts/none.toml"),
            )
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        if ok(&v) {
            return v;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "not within 60 s: {v} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

fn queue_alerts(v: &Value) -> Vec<&Value> {
    v["alerts"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|x| x["alertname"] == "IngressGatewayQueueLong")
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_rule_fires_in_prometheus_and_reaches_alertmanager() {
    let test = "alertmanager_prometheus::a_rule_fires";
    let Some(am) = servers::alertmanager(test) else {
        return;
    };
    let rules = std::fs::read_to_string(root().join("tests/fixtures/alerts/rules.yml")).unwrap();
    let Some(prom) = servers::prometheus_with_rules(&queue_series(), &rules, Some(&am.url), test)
    else {
        return;
    };
    // From Alertmanager, as Prometheus delivered it.
    let v = firing_until(&["--alertmanager-url", &am.url], |v| {
        !queue_alerts(v).is_empty()
    });
    let a = queue_alerts(&v);
    assert_eq!(a.len(), 1, "only the long queue fires: {v}");
    assert_eq!(a[0]["labels"]["cluster"], "mc-eastus-1");
    assert_eq!(a[0]["state"], "active");
    assert_eq!(
        a[0]["route"]["to"],
        "ingress-latency.md#step-2-look-for-failing-backends"
    );

    // From Prometheus alone (the fallback): the same alert, with when it started.
    let v = firing_until(&["--prometheus-url", &prom.url], |v| {
        !queue_alerts(v).is_empty()
    });
    let a = queue_alerts(&v);
    assert_eq!(a.len(), 1, "{v}");
    assert_eq!(a[0]["labels"]["cluster"], "mc-eastus-1");
    assert_eq!(a[0]["labels"]["severity"], "critical");
    assert!(a[0]["labels"].get("alertstate").is_none(), "{v}");
    assert!(a[0]["startsAt"].as_str().unwrap().starts_with("20"), "{v}");
    assert_eq!(a[0]["source"], "prometheus");
    assert_eq!(a[0]["route"]["by"], "triage-table");
}

#[test]
fn with_only_prometheus_the_navigator_lists_its_firing_alerts() {
    let test = "alertmanager_prometheus::navigator_fallback";
    let rules = std::fs::read_to_string(root().join("tests/fixtures/alerts/rules.yml")).unwrap();
    let Some(prom) = servers::prometheus_with_rules(&queue_series(), &rules, None, test) else {
        return;
    };
    // Wait until the rule has fired, so the navigator's first refresh sees it.
    firing_until(&["--prometheus-url", &prom.url], |v| {
        !queue_alerts(v).is_empty()
    });
    let Some(t) = super::tui_common::Tmux::start("promfallback") else {
        return;
    };
    std::fs::write(
        t.dir.join("config.toml"),
        format!("[query]\nprometheus_url = \"{}\"\n", prom.url),
    )
    .unwrap();
    t.send_line(&format!(
        "{} --no-evidence {}",
        env!("CARGO_BIN_EXE_tsgnav"),
        root().join("tests/fixtures/alerts").display()
    ));
    t.wait_for("the rule's alert in the Firing section", |s| {
        s.contains("⚑ IngressGatewayQueueLong ×1 → Step 2: Look for failing backends")
            && s.contains("mc-eastus-1 · critical")
            && s.contains("· prometheus")
            && s.contains("1 FIRING")
    });
    t.keys(&["q"]);
    t.restored();
}
