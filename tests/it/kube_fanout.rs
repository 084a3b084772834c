//! Fan-out of a native kube probe over many simulated contexts: progress per context, one
//! table with a CONTEXT column in kubeconfig order, glob selection, a clear error when no
//! context matches, and the executor's `contexts` setting.

use std::collections::BTreeMap;
use std::time::Duration;

use tsgnav::query::kube::{fan_out, parse_script, FanOutOptions, KubeExecutor};
use tsgnav::query::{Cancel, Executor, OutputSink, ProbeId, ProbeRequest, Target};
use tsgnav::tsg::{Lang, SafetyClass};

use super::sim_support::start;

fn request(code: &str, kubeconfig: &std::path::Path) -> ProbeRequest {
    ProbeRequest {
        id: ProbeId::new("test.md#x", 1),
        lang: Lang::Shell,
        code: code.to_string(),
        bindings: BTreeMap::new(),
        assigns: Vec::new(),
        timeout: Duration::from_secs(10),
        target: Target {
            kubeconfig: Some(kubeconfig.to_path_buf()),
            ..Target::default()
        },
        class: SafetyClass::ReadOnly,
        confirmation: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fan_out_over_twenty_contexts() {
    let sim = start("swift", Some(20)).await;
    let cmd = parse_script("kubectl get pods -A", &BTreeMap::new())
        .expect("native")
        .remove(0);
    let mut seen = Vec::new();
    let f = fan_out(
        &cmd,
        &sim.kubeconfig,
        "mc-*",
        &FanOutOptions {
            concurrency: 4,
            ..Default::default()
        },
        |p| seen.push((p.done, p.total)),
    )
    .await
    .expect("fan out");
    assert_eq!(seen.len(), 20);
    assert_eq!(seen.last(), Some(&(20, 20)));
    assert_eq!(&f.table.columns[..3], ["CONTEXT", "NAMESPACE", "NAME"]);
    assert_eq!(f.table.rows.len(), 20 * 8);
    assert_eq!(f.table.rows[0][0], "mc-eastus-1", "kubeconfig order");
    assert_eq!(f.failures().count(), 0);
    let f = fan_out(
        &cmd,
        &sim.kubeconfig,
        "mc-eastus-*",
        &FanOutOptions::default(),
        |_| {},
    )
    .await
    .expect("subset");
    assert_eq!(
        f.outputs
            .iter()
            .map(|(c, _)| c.as_str())
            .collect::<Vec<_>>(),
        vec!["mc-eastus-1", "mc-eastus-2", "mc-eastus-3"]
    );
    let e = fan_out(
        &cmd,
        &sim.kubeconfig,
        "svc-*",
        &FanOutOptions::default(),
        |_| {},
    )
    .await
    .expect_err("none");
    assert!(
        e.to_string().contains("no context in") && e.to_string().contains("\"svc-*\""),
        "{e}"
    );

    let ex = KubeExecutor {
        contexts: Some("mc-westus3-*".into()),
        ..Default::default()
    };
    let req = request(
        "kubectl get pods -n kube-system -l k8s-app=azure-cns",
        &sim.kubeconfig,
    );
    let r = ex
        .run(
            req.clone(),
            OutputSink::detached(req.id.clone()),
            Cancel::new(),
        )
        .await;
    assert!(r.status.is_ok(), "{}", r.status.describe());
    let t = r.table.expect("table");
    assert_eq!(
        t.rows.len(),
        3 * 3,
        "three westus3 clusters × three CNS pods"
    );
    assert!(r.output.text().starts_with("CONTEXT"));
}

/// `tsgnav run --contexts 'mc-*'`: the blast-radius step's native kube probe fans out across
/// every matching context of the kubeconfig and comes back as one table with a CONTEXT column.
#[test]
fn run_fans_a_probe_out_across_matching_contexts() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let sim = rt.block_on(crate::sim_support::start("swift", Some(3)));
    let state = tempfile::tempdir().expect("state dir");
    let out = crate::common::bin()
        .args([
            "run",
            "tsg/swift-networking.md#step-1-establish-the-blast-radius",
            "--json",
            "--no-evidence",
        ])
        .arg("--kubeconfig")
        .arg(&sim.kubeconfig)
        .args(["--contexts", "mc-*"])
        .current_dir(crate::common::root())
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", state.path())
        .output()
        .expect("run tsgnav");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let kube = v["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["backend"] == "kube" && r["status"] == "ok")
        .unwrap_or_else(|| panic!("a kube result: {v}"));
    let text = kube["output"].as_str().expect("output");
    assert!(text.contains("CONTEXT"), "{text}");
    let contexts: std::collections::BTreeSet<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.starts_with("mc-"))
        .collect();
    assert_eq!(
        contexts.len(),
        3,
        "rows from each of the 3 contexts: {text}"
    );
    drop(rt);
}

const PIPELINES: &str = "# Fan-out\n\n## Blast radius\n\n\
```bash\nkubectl get pods -A | grep -v Running\n```\n\n\
```bash\nkubectl get pods -A --no-headers | grep -c ContainerCreating\n```\n\n\
```bash\nkubectl get pods -n kube-system --context mc-eastus-1 | wc -l\n```\n\n\
```bash\necho nothing kube here\n```\n";

/// `tsgnav run --contexts 'mc-*'` on shell pipelines over 3 simulated clusters: a pipeline
/// that keeps kubectl's table comes back as one table with a CONTEXT column, a count comes
/// back once per context under its label, and probes that cannot fan out (their own
/// `--context`, no kube tool) are refused with that reason instead of running once.
#[test]
fn shell_pipelines_fan_out_over_three_clusters() {
    if crate::sim_support::kubectl("shell_pipelines_fan_out_over_three_clusters").is_none() {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let sim = rt.block_on(crate::sim_support::start("swift", Some(3)));
    let dir = tempfile::tempdir().expect("dir");
    let guide = dir.path().join("fanout.md");
    std::fs::write(&guide, PIPELINES).expect("guide");
    let out = crate::common::bin()
        .arg("run")
        .arg(format!("{}#blast-radius", guide.display()))
        .args(["--json", "--no-evidence", "--contexts", "mc-*"])
        .arg("--kubeconfig")
        .arg(&sim.kubeconfig)
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", dir.path())
        .env("HOME", dir.path())
        .output()
        .expect("run tsgnav");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let results = v["results"].as_array().expect("results");
    assert_eq!(results.len(), 4, "{v:#}");

    let table = &results[0];
    assert_eq!(table["status"], "ok", "{table:#}");
    assert_eq!(table["backend"], "shell");
    let cols = table["table"]["columns"].as_array().expect("merged table");
    assert_eq!(cols[..3], ["CONTEXT", "NAMESPACE", "NAME"]);
    let rows = table["table"]["rows"].as_array().expect("rows");
    let contexts: std::collections::BTreeSet<&str> =
        rows.iter().filter_map(|r| r[0].as_str()).collect();
    assert_eq!(contexts.len(), 3, "rows from all 3 clusters: {table:#}");
    assert_eq!(rows.len(), 3 * 2, "two stuck router pods per cluster");
    assert!(
        rows.iter().all(|r| r[4] == "ContainerCreating"),
        "{table:#}"
    );
    assert!(table["ran"]
        .as_str()
        .unwrap_or("")
        .contains("fanned out over: mc-"));
    assert_eq!(
        table["command"], "kubectl get pods -A | grep -v Running",
        "as written"
    );

    let counts = results[1]["output"].as_str().expect("output");
    assert_eq!(counts.matches("── context mc-").count(), 3, "{counts}");
    assert_eq!(
        counts.lines().filter(|l| l.trim() == "2").count(),
        3,
        "{counts}"
    );

    for (r, why) in [
        (&results[2], "names its own target"),
        (&results[3], "runs no kubectl"),
    ] {
        assert_eq!(r["status"], "refused", "{r:#}");
        assert!(r["error"].as_str().unwrap_or("").contains(why), "{r:#}");
    }
    drop(rt);
}
