//! The native kube backend (`tsgnav::query::kube`) against `tsgnav::sim`: every probe of the
//! bundled guides it accepts runs and succeeds, its rows agree with the real kubectl, custom
//! resources resolve by short name, fan-out over many contexts yields one table with a
//! CONTEXT column, and variable values stay inert words.

use std::collections::BTreeMap;
use std::time::Duration;

use tsgnav::query::kube::{parse_script, run_kube, run_kube_with, KubeExecutor};
use tsgnav::query::{Cancel, Executor, OutputSink, ProbeError, ProbeId, ProbeRequest, Target};
use tsgnav::tsg::{Lang, SafetyClass};

use super::sim_support::{start, BlockingSim, OCM_NS};

fn bindings() -> BTreeMap<String, String> {
    [
        ("OCM_NAMESPACE", OCM_NS),
        ("ROUTER_POD", "router-6f8b7c9d5-c8wjm"),
        ("NODE_NAME", "aks-userswft-31562873-vmss000001"),
        ("CLUSTER_ID", "2lq3swift0demo0cluster0id01"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

fn request(
    code: &str,
    kubeconfig: &std::path::Path,
    bindings: BTreeMap<String, String>,
) -> ProbeRequest {
    ProbeRequest {
        id: ProbeId::new("test.md#x", 1),
        lang: Lang::Shell,
        code: code.to_string(),
        bindings,
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

async fn run(ex: &KubeExecutor, req: ProbeRequest) -> tsgnav::query::ProbeResult {
    let out = OutputSink::detached(req.id.clone());
    ex.run(req, out, Cancel::new()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_native_probe_of_the_swift_guide_runs() {
    let sim = start("swift", None).await;
    let text = std::fs::read_to_string(super::common::root().join("tsg/swift-networking.md"))
        .expect("guide");
    let guide = tsgnav::tsg::parse_guide("swift-networking.md", &text);
    let ex = KubeExecutor::default();
    let mut ran = Vec::new();
    for node in &guide.nodes {
        for p in &node.probes {
            let req = request(&p.code, &sim.kubeconfig, bindings());
            if p.lang != Lang::Shell || !ex.accepts(&req) {
                continue;
            }
            let r = run(&ex, req).await;
            assert!(
                r.status.is_ok(),
                "{}:{}: {}\n{}",
                node.id,
                p.line,
                r.status.describe(),
                p.code
            );
            assert!(
                !r.output.text().is_empty(),
                "{}:{} printed nothing",
                node.id,
                p.line
            );
            ran.push(p.line);
        }
    }
    assert!(ran.len() >= 8, "native probes run: {ran:?}");
    let pipe = request(
        "kubectl get multitenantpodnetworkconfigs -A | grep -v provisioned",
        &sim.kubeconfig,
        bindings(),
    );
    assert!(!ex.accepts(&pipe), "pipelines go to the shell");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_raw_objects_and_output_formats() {
    let sim = start("swift", None).await;
    let kc = &sim.kubeconfig;
    let b = bindings();
    let one = |code: &str| parse_script(code, &b).expect("native").remove(0);
    let o = run_kube(&one("kubectl get pods -A -l kubernetes.azure.com/pod-network-instance --field-selector=status.phase=Pending -o wide"), kc, None).await.expect("run");
    let t = o.table.expect("table");
    assert_eq!(&t.columns[..4], ["NAMESPACE", "NAME", "READY", "STATUS"]);
    assert!(t.columns.contains(&"NODE".to_string()));
    assert_eq!(t.rows.len(), 2);
    assert!(t.rows.iter().all(|r| r[3] == "ContainerCreating"));
    assert_eq!(o.raw.len(), 2);
    assert_eq!(
        o.raw[0]["spec"]["nodeName"], "aks-userswft-31562873-vmss000001",
        "raw objects are whole"
    );

    // describe is kubectl's own layout: the native runner refuses it rather than print
    // something else (the shell runner hands it to kubectl; see kube_diff).
    let e = run_kube(
        &one("kubectl describe mtpnc \"${ROUTER_POD}\" -n \"${OCM_NAMESPACE}\""),
        kc,
        None,
    )
    .await
    .expect_err("describe is not native");
    assert!(e.to_string().contains("only kubectl has"), "{e}");

    let o = run_kube(&one(r"kubectl get node aks-userswft-31562873-vmss000002 -o jsonpath='{.status.capacity.aro\.openshift\.io/swift-nic}'"), kc, None).await.expect("jsonpath");
    assert_eq!(o.text, "0");
    let o = run_kube(&one("kubectl get podnetworkinstance pni-${CLUSTER_ID} -n ${OCM_NAMESPACE} -o jsonpath='{.status.podIPAddresses}'"), kc, None).await.expect("pni");
    assert_eq!(o.text, r#"["10.130.4.17","10.130.4.18","10.130.4.19"]"#);
    let o = run_kube(&one("kubectl get nnc,nodeinfo -A -o name"), kc, None)
        .await
        .expect("names");
    assert_eq!(
        o.text.lines().next(),
        Some("nodenetworkconfig.acn.azure.com/aks-userswft-31562873-vmss000001")
    );
    assert_eq!(o.text.lines().count(), 3);
    let e = run_kube(&one("kubectl get pn pn-${CLUSTER_ID} -o yaml"), kc, None)
        .await
        .expect_err("-o yaml is not native");
    assert!(e.to_string().contains("printed by kubectl itself"), "{e}");
    let o = run_kube(&one("kubectl get pods -n nowhere"), kc, None)
        .await
        .expect("empty");
    assert_eq!(o.text, "No resources found in nowhere namespace.\n");
    let e = run_kube(&one("kubectl get widgets"), kc, None)
        .await
        .expect_err("unknown");
    assert!(
        e.to_string()
            .contains("serves no resource named \"widgets\""),
        "{e}"
    );
    let e = run_kube(&one("kubectl get pods --context nope"), kc, None)
        .await
        .expect_err("no context");
    assert!(e.to_string().contains("no context named \"nope\""), "{e}");
}

#[test]
fn native_rows_match_the_real_kubectl() {
    let Some(s) = BlockingSim::start("swift", "native_rows_match_the_real_kubectl") else {
        return;
    };
    for code in [
        "kubectl get pods -A -o wide",
        "kubectl get mtpnc -A",
        "kubectl get nodes -L agentpool",
        "kubectl get events -n kube-system --field-selector reason=FailedScaleUp",
    ] {
        let cmd = parse_script(code, &BTreeMap::new())
            .expect("native")
            .remove(0);
        let native =
            s.rt.block_on(run_kube(&cmd, s.kubeconfig(), None))
                .expect("native run");
        let args: Vec<&str> = code.split_whitespace().skip(1).collect();
        let kubectl = s.ok(&args);
        let split = |l: &str| l.split_whitespace().map(String::from).collect::<Vec<_>>();
        let theirs: Vec<Vec<String>> = kubectl.lines().map(split).collect();
        let ours: Vec<Vec<String>> = native.text.lines().map(split).collect();
        assert_eq!(
            ours, theirs,
            "{code}\nnative:\n{}\nkubectl:\n{kubectl}",
            native.text
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_stay_inert_and_missing_ones_are_named() {
    let sim = start("swift", None).await;
    let ex = KubeExecutor::default();
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("pwned");
    for evil in [
        format!("x'; touch {}; echo '", marker.display()),
        format!("$(touch {})", marker.display()),
    ] {
        let b: BTreeMap<String, String> = [("NS".to_string(), evil.clone())].into();
        let req = request("kubectl get pods -n \"${NS}\"", &sim.kubeconfig, b);
        assert!(ex.accepts(&req));
        let r = run(&ex, req).await;
        assert!(r.status.is_ok(), "{}", r.status.describe());
        assert!(
            r.output
                .text()
                .contains(&format!("No resources found in {evil} namespace.")),
            "{}",
            r.output.text()
        );
        assert!(!marker.exists(), "the value ran as a command: {evil}");
    }
    let r = run(
        &ex,
        request(
            "kubectl get pods -n \"${OCM_NAMESPACE}\"",
            &sim.kubeconfig,
            BTreeMap::new(),
        ),
    )
    .await;
    assert_eq!(
        r.status.error(),
        Some(&ProbeError::MissingVar {
            name: "OCM_NAMESPACE".into()
        })
    );
    let cmd = parse_script("kubectl get pods -A", &BTreeMap::new())
        .expect("native")
        .remove(0);
    let o = run_kube_with(&cmd, &sim.kubeconfig, None, None, Duration::from_secs(5))
        .await
        .expect("run");
    assert!(o.server.ends_with("/clusters/mc-eastus-1"), "{}", o.server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jq_pipelines_run_natively() {
    let sim = start("maestro", None).await;
    let ex = KubeExecutor::default();
    let code = "kubectl get manifestwork -n local-cluster -o json \\\n  | jq -r --arg id \"${CLUSTER_ID}\" '.items[] | select(.metadata.labels[\"api.openshift.com/id\"] == $id) | .metadata.name'";
    let b: BTreeMap<String, String> = [(
        "CLUSTER_ID".to_string(),
        super::sim_support::STUCK_ID.to_string(),
    )]
    .into();
    let req = request(code, &sim.kubeconfig, b);
    assert!(ex.accepts(&req));
    let r = run(&ex, req).await;
    assert!(r.status.is_ok(), "{}", r.status.describe());
    assert_eq!(
        r.output.text(),
        "2lq3stuck0maestro0cluster0id1-00-namespaces\n2lq3stuck0maestro0cluster0id1-01-hostedcluster\n"
    );
    assert!(
        r.command_as_run.contains("| jq -r --arg id"),
        "{}",
        r.command_as_run
    );
    let bad = run(
        &ex,
        request(
            "kubectl get pods -A -o json | jq '.items[] | error(\"boom\")'",
            &sim.kubeconfig,
            BTreeMap::new(),
        ),
    )
    .await;
    assert!(
        bad.status.describe().contains("jq error"),
        "{}",
        bad.status.describe()
    );
}

/// A `KUBECONFIG`-style list is merged as kubectl merges it: missing files are skipped, the
/// first file to set `current-context` decides the default context, and the contexts of every
/// file are there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubeconfig_lists_merge_like_kubectl() {
    let sim = start("swift", Some(3)).await;
    let dir = tempfile::tempdir().expect("dir");
    let names =
        tsgnav::query::kube::fanout::matching_contexts(&sim.kubeconfig, "*").expect("contexts");
    let second = names[1].clone();
    let first_file = dir.path().join("prefs");
    std::fs::write(
        &first_file,
        format!("apiVersion: v1\nkind: Config\ncurrent-context: {second}\n"),
    )
    .expect("write");
    let list = std::env::join_paths([
        first_file.clone(),
        dir.path().join("missing"),
        sim.kubeconfig.clone(),
    ])
    .expect("list");
    let list = std::path::PathBuf::from(list);
    assert_eq!(
        tsgnav::query::kube::current_context(Some(list.clone())).as_deref(),
        Some(second.as_str())
    );
    let all = tsgnav::query::kube::fanout::matching_contexts(&list, "*").expect("merged");
    assert_eq!(all, names, "every context of the second file");
    let cmd = parse_script("kubectl get nodes -o name", &BTreeMap::new())
        .expect("native")
        .remove(0);
    let o = run_kube(&cmd, &list, None)
        .await
        .expect("runs on the merged config");
    assert_eq!(o.text.lines().count(), 4, "{}", o.text);
    let bad = std::path::PathBuf::from(
        std::env::join_paths([dir.path().join("x"), dir.path().join("y")]).expect("list"),
    );
    let e = run_kube(&cmd, &bad, None)
        .await
        .expect_err("nothing to read");
    assert!(
        e.to_string().contains("none of the listed files exists"),
        "{e}"
    );
}
