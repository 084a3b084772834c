//! `tsgnav run --write` captures the prior state before a known mutation and records it: the
//! node before `cordon`, the object before `delete` (the real kubectl against `tsgnav::sim`).
//! The guide is written for the test; its probes are the corpus's forms.

use serde_json::Value;

use super::mitigate_support::kubectl;
use super::sim_support;

const GUIDE: &str = "# Test: cordon and delete

## Take the node out

**Goal:** stop new pods landing on the node and remove one stuck pod.

**Preconditions:** the node carries no customer traffic.

```bash {name=cordon}
kubectl cordon \"${NODE}\"
```

```bash {name=delete-pod}
kubectl delete pod \"${POD}\" -n kube-system --wait=false
```
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_write_records_the_node_and_the_object_before_changing_them() {
    let test = "run_write_records_the_node_and_the_object_before_changing_them";
    let Some(kc_bin) = sim_support::kubectl(test) else {
        return;
    };
    let sim = sim_support::start("swift", None).await;
    let (kc, ctx) = (sim.kubeconfig.clone(), sim.handle.clusters[0].clone());
    let dir = tempfile::tempdir().expect("tempdir");
    let guide = dir.path().join("cordon.md");
    std::fs::write(&guide, GUIDE).expect("guide");
    let state = dir.path().join("state");
    let node = "aks-userswft-31562873-vmss000002";
    let pod = "azure-cns-7xk2p";
    let o = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .arg("run")
        .arg(format!("{}#take-the-node-out", guide.display()))
        .args(["--context", &ctx, "--write", "--confirm-target", &ctx])
        .args([
            "--var",
            &format!("NODE={node}"),
            "--var",
            &format!("POD={pod}"),
        ])
        .arg("--kubeconfig")
        .arg(&kc)
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", &state)
        .output()
        .await
        .expect("tsgnav runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let get = |a: &[&str]| kubectl(&kc_bin, &kc, a);
    assert_eq!(
        get(&["get", "node", node, "-o", "jsonpath={.spec.unschedulable}"]),
        "true"
    );
    assert!(!get(&["get", "pods", "-n", "kube-system", "-o", "name"]).contains(pod));

    let session = std::fs::read_dir(&state)
        .expect("state")
        .flatten()
        .next()
        .expect("session");
    let journal = std::fs::read_to_string(session.path().join("journal.jsonl")).expect("journal");
    let recs: Vec<Value> = journal
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let kinds: Vec<&str> = recs.iter().filter_map(|r| r["type"].as_str()).collect();
    let prior: Vec<&Value> = recs.iter().filter(|r| r["type"] == "prior_state").collect();
    assert_eq!(prior.len(), 2, "{kinds:?}");
    assert_eq!(prior[0]["resource"], format!("node/{node}"));
    let before: Value =
        serde_json::from_str(prior[0]["value"].as_str().expect("value")).expect("json");
    assert_eq!(before["metadata"]["name"], node);
    assert!(
        before["spec"]["unschedulable"].is_null(),
        "captured before the cordon"
    );
    assert_eq!(prior[1]["resource"], format!("pod/{pod} -n kube-system"));
    assert!(prior[1]["value"].as_str().is_some_and(|v| v.contains(pod)));
    // Each mutation: confirmation, the read, the prior state, then the run itself.
    let at = |k: &str, from: usize| kinds[from..].iter().position(|x| *x == k).map(|i| i + from);
    let c = at("confirmation", 0).expect("confirmation");
    let p = at("prior_state", c).expect("prior");
    assert!(at("probe_run", c).is_some_and(|r| r < p), "{kinds:?}");
    assert!(at("probe_run", p).is_some(), "{kinds:?}");
    sim.handle.shutdown().await;
}
