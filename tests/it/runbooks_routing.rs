//! Alerts land on runbooks the way runbook collections are wired: the file named after the
//! alert, the H1 that is the alert name, and the rule's `runbook_url` (lower-cased Hugo URLs
//! too). Through `tree --json`, `alerts --rules … --json`, and the navigator in tmux
//! (`--alert NAME`, `--alert-payload`).

use serde_json::Value;

use crate::runbooks_transcripts::tree;
use crate::tui_common::Tmux;

const DIR: &str = "tests/fixtures/runbooks";

fn alerts_json(args: &[&str]) -> Value {
    let out = crate::common::bin()
        .args(["alerts", "--json"])
        .args(args)
        .current_dir(crate::common::root())
        .output()
        .expect("run tsgnav");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

fn route<'a>(v: &'a Value, alert: &str) -> Option<&'a Value> {
    v["routes"].as_array()?.iter().find(|r| r["alert"] == alert)
}

#[test]
fn tree_says_how_each_route_was_found() {
    let t = tree();
    let routes: Vec<(String, String, String)> = t["guides"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["routes"].as_array().into_iter().flatten())
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or("").to_string();
            (s("alert"), s("to"), s("by"))
        })
        .collect();
    let has =
        |a: &str, to: &str, by: &str| routes.iter().any(|r| r.0 == a && r.1 == to && r.2 == by);
    assert!(has(
        "KubePodCrashLooping",
        "kubernetes/KubePodCrashLooping.md#kubepodcrashlooping",
        "file-name"
    ));
    assert!(has(
        "ClusterOperatorDown",
        "cluster/cluster-operator-down.md#clusteroperatordown",
        "title"
    ));
    // A prose H1 and a kebab-case file name are not alert names.
    assert!(!routes
        .iter()
        .any(|r| r.1.starts_with("monitoring/api-error-budget.md")));
}

#[test]
fn alerts_rules_route_by_runbook_url() {
    let v = alerts_json(&[DIR, "--rules", &format!("{DIR}/rules")]);
    let by = |a: &str| route(&v, a).map(|r| r["by"].as_str().unwrap_or("").to_string());
    // Only the rule's runbook_url names this guide (its file and H1 are prose).
    let burn = route(&v, "KubeAPIErrorBudgetBurn").expect("routed by runbook_url");
    assert_eq!(
        burn["to"],
        "monitoring/api-error-budget.md#api-server-error-budget-is-burning"
    );
    assert_eq!(burn["by"], "runbook-url");
    // Lower-cased Hugo URLs, trailing slashes, GitHub blob URLs with `.md`.
    assert_eq!(by("KubePodCrashLooping").as_deref(), Some("runbook-url"));
    assert_eq!(
        by("KubeDeploymentReplicasMismatch").as_deref(),
        Some("runbook-url")
    );
    assert_eq!(by("KubeJobFailed").as_deref(), Some("runbook-url"));
    // No runbook_url: the H1 routes it.
    assert_eq!(by("ClusterOperatorDegraded").as_deref(), Some("title"));
    let unrouted: Vec<&str> = v["unrouted"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|u| u["alert"].as_str())
        .collect();
    assert_eq!(unrouted, vec!["etcdGRPCRequestsSlow"]);
    assert!(
        v["dangling"].as_array().unwrap().is_empty(),
        "a guide named like an alert no rule defines is not a dangling route: {}",
        v["dangling"]
    );
}

fn bin() -> String {
    env!("CARGO_BIN_EXE_tsgnav").to_string()
}

#[test]
fn navigator_lands_on_the_runbook_named_after_the_alert() {
    let Some(t) = Tmux::start("runbook-alert") else {
        return;
    };
    t.send_line(&format!(
        "{} --no-evidence --alert etcdMembersDown {}/{DIR}",
        bin(),
        crate::common::root().display()
    ));
    t.wait_for("the runbook of the alert", |s| {
        s.contains("⚑ alert etcdMembersDown routes here") && s.contains("etcdMembersDown")
    });
    t.keys(&["q"]);
    t.restored();
}

#[test]
fn alert_payload_routes_by_its_runbook_url() {
    let Some(t) = Tmux::start("runbook-payload") else {
        return;
    };
    let root = crate::common::root();
    t.send_line(&format!(
        "{} --no-evidence --alert-payload {root}/{DIR}/rules/payload.json {root}/{DIR}",
        bin(),
        root = root.display()
    ));
    t.wait_for("the runbook its runbook_url names", |s| {
        s.contains("⚑ alert KubeAPIErrorBudgetBurn routes here")
            && s.contains("API server error budget is burning")
    });
    t.keys(&["q"]);
    t.restored();
}
