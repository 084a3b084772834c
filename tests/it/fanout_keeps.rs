//! Fan-out keeps every answer: with one unreachable context in the kubeconfig, `tsgnav run
//! --contexts 'mc-*'` still returns what each healthy context answered, for every table the
//! probe prints (the SWIFT guide's Step 2c prints nodes, then FailedScheduling events), the
//! dead context is a row with its error, the result lists each context's answer, and the run
//! exits 1. The native form and the shell pipeline (the `:contexts` path for pipelines) both.

use std::path::{Path, PathBuf};

use serde_json::Value;

const STEP_2C: &str = "tsg/swift-networking.md#step-2c-nodes-advertise-swift-nic-capacity";
/// The simulated SWIFT scenario's HCP namespace, where the FailedScheduling event is.
const HCP_NS: &str = "ocm-prod-2lq3swift0demo0cluster0id01-demo-hcp";
const DEAD: &str = "mc-dead-1";

/// The simulator's kubeconfig with one more context, first in the file, whose server
/// listens nowhere (port 9 on loopback).
fn with_dead_context(kubeconfig: &Path, dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(kubeconfig).expect("kubeconfig");
    let text = text
        .replacen(
            "clusters:\n",
            &format!("clusters:\n- cluster:\n    server: http://127.0.0.1:9/\n  name: {DEAD}\n"),
            1,
        )
        .replacen(
            "contexts:\n",
            &format!(
                "contexts:\n- context:\n    cluster: {DEAD}\n    user: sim-operator\n  name: {DEAD}\n"
            ),
            1,
        );
    let path = dir.join("kubeconfig-with-dead");
    std::fs::write(&path, text).expect("write kubeconfig");
    path
}

fn run(node: &str, kubeconfig: &Path, dir: &Path) -> (Value, Option<i32>) {
    let out = crate::common::bin()
        .args(["run", node, "--json", "--no-evidence", "--contexts", "mc-*"])
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["--var", &format!("OCM_NAMESPACE={HCP_NS}")])
        .current_dir(crate::common::root())
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", dir)
        .env("HOME", dir)
        .output()
        .expect("run tsgnav");
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (v, out.status.code())
}

/// Rows of `table` whose first cell is `ctx`.
fn rows_of<'a>(table: &'a Value, ctx: &str) -> Vec<&'a Value> {
    table["rows"]
        .as_array()
        .map(|rows| rows.iter().filter(|r| r[0] == ctx).collect())
        .unwrap_or_default()
}

fn assert_contexts(r: &Value) {
    let contexts = r["contexts"].as_array().expect("per-context answers");
    let names: Vec<&str> = contexts
        .iter()
        .filter_map(|c| c["context"].as_str())
        .collect();
    assert_eq!(names, [DEAD, "mc-eastus-1", "mc-westus3-1"], "{r:#}");
    assert!(contexts[0]["error"].as_str().is_some(), "{r:#}");
    assert!(contexts[1].get("error").is_none() && contexts[2].get("error").is_none());
    assert_eq!(r["status"], "failed", "{r:#}");
    assert!(
        r["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("1 of 3 contexts failed (mc-dead-1")),
        "{r:#}"
    );
}

fn assert_events_of_both(events: &Value, r: &Value) {
    for ctx in ["mc-eastus-1", "mc-westus3-1"] {
        let rows = rows_of(events, ctx);
        assert!(
            rows.iter()
                .any(|row| row.to_string().contains("FailedScheduling")),
            "{ctx}'s FailedScheduling event is kept: {r:#}"
        );
    }
}

#[test]
fn run_contexts_keeps_the_healthy_answers_of_every_table_beside_a_dead_context() {
    let (rt, sim) = crate::sim_support::on_own_runtime("swift", Some(2));
    let dir = tempfile::tempdir().expect("dir");
    let kubeconfig = with_dead_context(&sim.kubeconfig, dir.path());
    let (v, code) = run(STEP_2C, &kubeconfig, dir.path());
    let r = &v["results"][0];
    assert_eq!(r["backend"], "kube", "{r:#}");
    assert_eq!(r["target"], "3 contexts matching \"mc-*\"", "{r:#}");
    let tables = r["tables"].as_array().expect("both tables");
    assert_eq!(tables.len(), 2, "{r:#}");
    let (nodes, events) = (&tables[0], &tables[1]);
    assert_eq!(nodes["columns"][1], "NAME");
    assert_eq!(rows_of(nodes, "mc-eastus-1").len(), 4, "{r:#}");
    assert_eq!(rows_of(nodes, "mc-westus3-1").len(), 4, "{r:#}");
    assert_events_of_both(events, r);
    for t in tables {
        let dead = rows_of(t, DEAD);
        assert_eq!(dead.len(), 1, "the dead context is one row: {t:#}");
        let cols = t["columns"].as_array().expect("columns");
        assert_eq!(cols.last(), Some(&Value::from("ERROR")));
        let why = dead[0][cols.len() - 1].as_str().unwrap_or_default();
        assert!(why.contains("127.0.0.1:9"), "names the server: {why}");
    }
    let text = r["output"].as_str().expect("output");
    assert_eq!(text.matches("FailedScheduling").count(), 2, "{text}");
    assert_contexts(r);
    assert_eq!(code, Some(1), "a context failed: exit 1");
    drop(rt);
}

const PIPELINE: &str = "# Capacity\n\n## Nodes and events\n\n```bash\n\
kubectl get nodes -o custom-columns=NAME:.metadata.name,POOL:.metadata.labels.agentpool | cat\n\
kubectl get events -n \"${OCM_NAMESPACE}\" --field-selector reason=FailedScheduling | cat\n```\n";

#[test]
fn a_shell_pipeline_fanned_out_keeps_both_tables_beside_a_dead_context() {
    let test = "a_shell_pipeline_fanned_out_keeps_both_tables_beside_a_dead_context";
    if crate::sim_support::kubectl(test).is_none() {
        return;
    }
    let (rt, sim) = crate::sim_support::on_own_runtime("swift", Some(2));
    let dir = tempfile::tempdir().expect("dir");
    let kubeconfig = with_dead_context(&sim.kubeconfig, dir.path());
    let guide = dir.path().join("capacity.md");
    std::fs::write(&guide, PIPELINE).expect("guide");
    let node = format!("{}#nodes-and-events", guide.display());
    let (v, code) = run(&node, &kubeconfig, dir.path());
    let r = &v["results"][0];
    assert_eq!(r["backend"], "shell", "{r:#}");
    let tables = r["tables"].as_array().expect("both tables");
    assert_eq!(tables.len(), 2, "{r:#}");
    assert_eq!(tables[0]["columns"][1], "NAME", "{r:#}");
    assert_eq!(rows_of(&tables[0], "mc-westus3-1").len(), 4, "{r:#}");
    assert_events_of_both(&tables[1], r);
    assert_eq!(rows_of(&tables[1], DEAD).len(), 1, "{r:#}");
    assert_contexts(r);
    assert_eq!(code, Some(1));
    drop(rt);
}
