//! Alertmanager faults: down (connection refused), slow (no answer: the 5 s timeout), 401
//! (the token command is re-run once, then the error names `token_cmd`), and a malformed
//! answer. A real Alertmanager cannot be made to hang, refuse a token or send broken JSON on
//! demand, so these use the tiny raw TCP servers of `servers::faulty` (mocks of a faulty
//! server, nothing else). Each fault becomes a line that says what happened and what to do,
//! both from the client and in the TUI's refresh, and nothing waits longer than the timeout.
//! The 5,000-alert case runs against the real Alertmanager, with the cost of one refresh.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::json;
use tsgnav::query::alertmanager::{fetch_all, Alertmanager, Endpoint};
use tsgnav::query::{Cancel, ProbeError};
use tsgnav::tui::firing::FaultKind;
use tsgnav::tui::runtime::firing::convert;

use super::servers::{self, Fault};

fn am(name: &str, url: &str, token_cmd: Option<String>) -> Alertmanager {
    Alertmanager::new(Endpoint {
        name: name.into(),
        url: url.into(),
        token_cmd,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn down_slow_401_and_malformed_are_each_a_clear_line() {
    let hang = servers::faulty(Fault::Hang).await;
    let unauthorized = servers::faulty(Fault::Status401).await;
    let malformed = servers::faulty(Fault::MalformedJson).await;
    let down = servers::refusing();
    let dir = tempfile::tempdir().unwrap();
    let count = dir.path().join("runs");
    let token_cmd = format!("echo run >> '{}'; echo expired-token", count.display());
    let ams = vec![
        am("down", &down, None),
        am("slow", &hang, None),
        am("denied", &unauthorized, Some(token_cmd)),
        am("broken", &malformed, None),
    ];
    let start = Instant::now();
    let fetched = fetch_all(&ams, None, &Cancel::new()).await;
    let took = start.elapsed();
    // Asked at once: the slow one's timeout bounds the whole refresh.
    assert!(took < Duration::from_secs(15), "took {took:?}");
    let errors: Vec<&ProbeError> = fetched
        .iter()
        .map(|f| f.result.as_ref().expect_err("every source fails"))
        .collect();
    assert!(
        matches!(errors[0], ProbeError::ConnectionRefused { .. }),
        "{:?}",
        errors[0]
    );
    assert!(
        matches!(errors[1], ProbeError::Timeout { after } if *after == Duration::from_secs(5)),
        "{:?}",
        errors[1]
    );
    assert!(
        matches!(errors[2], ProbeError::Http { status: 401, .. }),
        "{:?}",
        errors[2]
    );
    // The token command ran again after the first 401, then the error stands.
    assert_eq!(std::fs::read_to_string(&count).unwrap().lines().count(), 2);
    assert!(
        matches!(errors[3], ProbeError::BadResponse { .. }),
        "{:?}",
        errors[3]
    );

    // In the navigator, each becomes one line naming the source, the URL and the fix.
    let update = convert(fetched, &BTreeSet::new());
    assert!(update.alerts.is_empty());
    let lines: Vec<String> = update
        .errors
        .iter()
        .map(|f| format!("{}: {}", f.source, f.message))
        .collect();
    // The kind of each fault comes from the error's type, in the same order.
    let kinds: Vec<FaultKind> = update.errors.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        [
            FaultKind::Down,
            FaultKind::Slow,
            FaultKind::Unauthorized,
            FaultKind::Malformed
        ]
    );
    assert!(
        lines[0].starts_with("down: cannot read http://127.0.0.1:")
            && lines[0].contains("connection refused")
            && lines[0].contains("is it running"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("timed out after 5") && lines[1].contains("next refresh"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].contains("HTTP 401") && lines[2].contains("token_cmd"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].contains("/api/v2/alerts") && lines[3].contains("Alertmanager (API v2)"),
        "{}",
        lines[3]
    );
}

#[test]
fn the_cli_reports_a_slow_alertmanager_and_exits() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let hang = rt.block_on(servers::faulty(Fault::Hang));
    let start = Instant::now();
    let out = super::common::bin()
        .args(["alerts", "firing", "--json", "--alertmanager-url", &hang])
        .env(
            "TSGNAV_CONFIG",
            super::common::root().join("tests/fixtures/alerts/none.toml"),
        )
        .output()
        .unwrap();
    assert!(start.elapsed() < Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("timed out after 5"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["alerts"], json!([]));
    assert!(v["sources"][0]["error"]
        .as_str()
        .unwrap()
        .contains("timed out"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_thousand_alerts_from_a_real_alertmanager_and_the_cost_of_a_refresh() {
    let Some(server) = servers::alertmanager("alertmanager_faults::five_thousand") else {
        return;
    };
    let many: Vec<(serde_json::Value, i64)> = (0..5000)
        .map(|i| {
            let severity = ["critical", "warning", "info"][i % 3];
            (
                json!({"alertname": format!("Synthetic{}", i % 50), "severity": severity,
                       "cluster": format!("mc-{i}"), "region": "eastus"}),
                (i % 600) as i64,
            )
        })
        .collect();
    let url = server.url.clone();
    tokio::task::spawn_blocking(move || servers::post_alerts(&url, &many))
        .await
        .unwrap();
    let ams = vec![am("eastus", &server.url, None)];
    let (lib, _) =
        tsgnav::load::load_library(&[super::common::root().join("tests/fixtures/alerts")]);
    let start = Instant::now();
    let fetched = fetch_all(&ams, None, &Cancel::new()).await;
    let asked = start.elapsed();
    let update = convert(fetched, &BTreeSet::new());
    let mut firing = tsgnav::tui::firing::Firing::enabled();
    firing.apply(&lib, update);
    eprintln!(
        "MEASURED: one background refresh of 5,000 alerts: {asked:?} asking Alertmanager, {:?} with conversion and sorting",
        start.elapsed()
    );
    assert_eq!(firing.alerts().len(), 5000);
    assert!(firing.errors().is_empty());
    assert_eq!(firing.alerts()[0].severity(), "critical");
    assert_eq!(firing.rows().len(), 5050);
}
