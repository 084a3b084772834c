//! `tsgnav run FILE#NODE` end to end: the built binary runs a node's probes against a REAL
//! Prometheus (backfilled), the real `kubectl` against the simulated cluster and the simulated
//! Maestro; refuses mutating probes with a reason; JSON output; missing variables named.

use std::process::Output;

use serde_json::Value;
use tsgnav::sim::{Scenario, Sim};

use super::servers;

async fn tsgnav(args: &[&str]) -> Output {
    let state = tempfile::tempdir().unwrap();
    tsgnav_in(args, state.path()).await
}

async fn tsgnav_in(args: &[&str], state: &std::path::Path) -> Output {
    let bin = env!("CARGO_BIN_EXE_tsgnav");
    tokio::process::Command::new(bin)
        .args(args)
        .current_dir(super::common::root())
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", state)
        .output()
        .await
        .unwrap()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_swift_blast_radius_against_real_prometheus_and_the_simulated_cluster() {
    let now = chrono::Utc::now().timestamp();
    let Some(prom) = servers::prometheus(
        &super::query_prometheus::swift_series(now),
        "run_swift_blast_radius",
    ) else {
        return;
    };
    let Some(_) = servers::find_or_skip("kubectl", &[], "run_swift_blast_radius") else {
        return;
    };
    let sim = Sim::start(Scenario::builtin("swift").unwrap())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kc = sim
        .write_kubeconfig(&dir.path().join("kubeconfig"))
        .unwrap();
    let out = tsgnav(&[
        "run",
        "tsg/swift-networking.md#step-1-establish-the-blast-radius",
        "--json",
        "--prometheus-url",
        &prom.url,
        "--kubeconfig",
        kc.to_str().unwrap(),
    ])
    .await;
    let v = json(&out);
    let results = v["results"].as_array().unwrap();
    assert!(results.len() >= 8, "{v}");
    for r in results {
        assert_eq!(r["status"], "ok", "{r}");
        for key in [
            "probe",
            "backend",
            "command",
            "duration_ms",
            "output",
            "started",
        ] {
            assert!(!r[key].is_null(), "{key} missing in {r}");
        }
        assert!(r["probe"]
            .as_str()
            .unwrap()
            .starts_with("tsg/swift-networking.md#step-1-establish-the-blast-radius/"));
    }
    let by_cmd = |start: &str| {
        results
            .iter()
            .find(|r| r["command"].as_str().unwrap().starts_with(start))
            .unwrap_or_else(|| panic!("no {start}"))
    };
    let top = by_cmd("topk(20, router:startup_latency:seconds)");
    assert_eq!(top["backend"], "prometheus");
    assert_eq!(top["table"]["rows"].as_array().unwrap().len(), 3);
    let nodes = by_cmd("kubectl get nodes");
    assert_eq!(nodes["backend"], "kube", "plain kubectl get runs natively");
    assert!(
        nodes["output"]
            .as_str()
            .unwrap()
            .contains("aks-userswft-31562873-vmss000001"),
        "{nodes}"
    );
    let per_node = by_cmd("kubectl get pods -A -l kubernetes.azure.com/pod-network-instance \\\n  --field-selector=status.phase=Pending \\\n  -o custom-columns");
    assert_eq!(
        per_node["backend"], "shell",
        "a pipeline runs in bash with the real kubectl"
    );
    let text = per_node["output"].as_str().unwrap();
    assert!(
        text.trim_start()
            .starts_with("2 aks-userswft-31562873-vmss000001"),
        "{text}"
    );
    assert_eq!(out.status.code(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_refuses_mutations_and_runs_maestro_calls_natively() {
    let sim = Sim::start(Scenario::builtin("maestro").unwrap())
        .await
        .unwrap();
    let state = tempfile::tempdir().unwrap();
    let out = tsgnav_in(
        &[
            "run",
            "tsg/maestro-stuck-deletion.md#step-2-inspect-the-resource-bundles-in-maestro",
            "--json",
            "--maestro-url",
            &sim.maestro_url(),
            "--var",
            "MAESTRO_CONSUMER=mc-eastus-1",
            "--var",
            "CLUSTER_ID=2lq3stuck0maestro0cluster0id1",
        ],
        state.path(),
    )
    .await;
    let v = json(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a long-running probe not run here is no refusal: {v}"
    );
    let results = v["results"].as_array().unwrap();
    let pf = &results[0];
    assert_eq!(
        pf["status"], "refused",
        "port-forward is long-running: {pf}"
    );
    assert!(pf["error"].as_str().unwrap().contains("background task"));
    let http: Vec<&Value> = results.iter().filter(|r| r["backend"] == "http").collect();
    assert_eq!(http.len(), 3, "consumers, cluster bundles, tombstones: {v}");
    assert!(http.iter().all(|r| r["status"] == "ok"), "{v}");
    assert!(http[1]["output"].as_str().unwrap().contains("deleted_at"));

    // Every run is in an evidence session: operator variables, then one probe_run per probe.
    let sessions: Vec<_> = std::fs::read_dir(state.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(sessions.len(), 1, "one session");
    let journal = std::fs::read_to_string(sessions[0].join("journal.jsonl")).unwrap();
    let recs: Vec<Value> = journal
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = recs.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(
        &kinds[..4],
        [
            "session_start",
            "node_entered",
            "variable_set",
            "variable_set"
        ]
    );
    let runs: Vec<&Value> = recs.iter().filter(|r| r["type"] == "probe_run").collect();
    assert_eq!(runs.len(), results.len());
    assert!(
        runs[0]["error"].as_str().unwrap().starts_with("refused"),
        "{}",
        runs[0]
    );
    assert_eq!(runs[2]["backend"], "http");
    assert_eq!(runs[2]["command"], http[1]["command"]);
    let verify = tsgnav_in(
        &["sessions", "verify", sessions[0].to_str().unwrap()],
        state.path(),
    )
    .await;
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );

    let node = "tsg/maestro-stuck-deletion.md#strategy-2-scale-the-maestro-agent-down-clean-up-scale-it-back";
    let out = tsgnav(&["run", node, "--json"]).await;
    assert_eq!(
        out.status.code(),
        Some(3),
        "a refusal exits 3 in --json mode"
    );
    assert!(json(&out)["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["status"] == "refused"));
    let out = tsgnav(&["run", node]).await;
    assert_eq!(out.status.code(), Some(3), "a refusal exits 3");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("refused: this probe is mutating"), "{text}");
    assert!(
        text.contains("mitigation"),
        "says the mitigation flow comes later: {text}"
    );
}

#[tokio::test]
async fn run_names_a_missing_variable_and_a_bad_node() {
    let out = tsgnav(&[
        "run",
        "tsg/maestro-stuck-deletion.md#step-2-inspect-the-resource-bundles-in-maestro",
    ])
    .await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("no value for MAESTRO_CONSUMER: set it with --var MAESTRO_CONSUMER=…"),
        "{text}"
    );
    assert_eq!(out.status.code(), Some(1));
    // A value exported in the operator's shell is used (below --var and the config).
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .args([
            "run",
            "tsg/maestro-stuck-deletion.md#step-2-inspect-the-resource-bundles-in-maestro",
            "--json",
            "--no-evidence",
        ])
        .current_dir(super::common::root())
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("MAESTRO_CONSUMER", "mc-from-env")
        .env("CLUSTER_ID", "c1")
        .output()
        .await
        .unwrap();
    let v = json(&out);
    let bundles = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["command"].as_str().unwrap().contains("consumer_name="))
        .unwrap()
        .clone();
    assert!(
        bundles["command"]
            .as_str()
            .unwrap()
            .contains("# env MAESTRO_CONSUMER='mc-from-env'"),
        "{bundles}"
    );
    let out = tsgnav(&["run", "tsg/maestro-stuck-deletion.md#no-such-step"]).await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("has no heading with the slug `no-such-step`"),
        "{err}"
    );
    assert_ne!(out.status.code(), Some(0));
}
