//! The REAL `kubectl` against `tsgnav::sim`: the forms the bundled guides use (get with
//! wide/json/yaml/name/jsonpath output, label and field selectors, -A, short names of custom
//! resources, describe, logs, scale, merge and JSON patch, delete with finalizers, rollout
//! status) and the Maestro agent that recreates ManifestWorks until it is scaled to zero.

use serde_json::Value;

use super::sim_support::{BlockingSim, OCM_NS, STUCK_ID};

#[test]
fn kubectl_get_forms_on_the_swift_scenario() {
    let Some(s) = BlockingSim::start("swift", "kubectl_get_forms_on_the_swift_scenario") else {
        return;
    };
    let wide = s.ok(&[
        "get",
        "pods",
        "-A",
        "-l",
        "kubernetes.azure.com/pod-network-instance",
        "--field-selector=status.phase=Pending",
        "-o",
        "wide",
    ]);
    let lines: Vec<&str> = wide.lines().collect();
    assert_eq!(lines.len(), 3, "header + two stuck router pods:\n{wide}");
    assert!(
        lines[0].starts_with("NAMESPACE") && lines[0].contains("NODE"),
        "{wide}"
    );
    assert!(
        lines[1..].iter().all(|l| l.starts_with(OCM_NS)
            && l.contains("ContainerCreating")
            && l.contains("vmss000001")),
        "{wide}"
    );

    let names = s.ok(&[
        "get",
        "pods",
        "-n",
        "kube-system",
        "-l",
        "k8s-app in (azure-cns),tier notin (x)",
        "-o",
        "name",
    ]);
    assert_eq!(names.lines().count(), 3, "{names}");
    assert!(
        names.lines().all(|l| l.starts_with("pod/azure-cns-")),
        "{names}"
    );

    let json: Value = serde_json::from_str(&s.ok(&["get", "nodes", "-o", "json"])).expect("json");
    assert_eq!(json["items"].as_array().map(Vec::len), Some(4));
    let nic = s.ok(&[
        "get",
        "node",
        "aks-userswft-31562873-vmss000002",
        "-o",
        r"jsonpath={.status.capacity.aro\.openshift\.io/swift-nic}",
    ]);
    assert_eq!(nic, "0");

    let mtpnc = s.ok(&["get", "mtpnc", "-A"]);
    let not_provisioned: Vec<&str> = mtpnc
        .lines()
        .skip(1)
        .filter(|l| !l.contains("provisioned"))
        .collect();
    assert_eq!(not_provisioned.len(), 2, "{mtpnc}");
    let yaml = s.ok(&[
        "get",
        "mtpnc",
        "router-6f8b7c9d5-c8wjm",
        "-n",
        OCM_NS,
        "-o",
        "yaml",
    ]);
    assert!(
        yaml.contains("deletionTimestamp:") && yaml.contains("finalizers.acn.azure.com/mtpnc"),
        "{yaml}"
    );

    let events = s.ok(&[
        "get",
        "events",
        "-n",
        OCM_NS,
        "--field-selector",
        "reason=FailedScheduling",
    ]);
    assert_eq!(events.lines().count(), 2, "{events}");
    assert!(
        events.contains("Insufficient aro.openshift.io/swift-nic"),
        "{events}"
    );
    let ni = s.ok(&["get", "nodeinfo", "-A", "--no-headers"]);
    assert_eq!(
        ni.lines().count(),
        2,
        "one SWIFT node has no NodeInfo:\n{ni}"
    );
    let missing = s.run(&["get", "pod", "nope", "-n", OCM_NS]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("pods \"nope\" not found"));
}

#[test]
fn kubectl_describe_and_logs() {
    let Some(s) = BlockingSim::start("swift", "kubectl_describe_and_logs") else {
        return;
    };
    let d = s.ok(&["describe", "mtpnc", "router-6f8b7c9d5-9vtx2", "-n", OCM_NS]);
    assert!(
        d.contains("CreateOrUpdateFailed") && d.contains("ErrorCode 4"),
        "{d}"
    );
    let node = s.ok(&["describe", "node", "aks-userswft-31562873-vmss000001"]);
    assert!(
        node.contains("router-6f8b7c9d5-9vtx2") && node.contains("aro.openshift.io/swift-nic"),
        "{node}"
    );
    let pod = s.ok(&[
        "get",
        "pods",
        "-n",
        "kube-system",
        "-l",
        "k8s-app=azure-cns",
        "--field-selector",
        "spec.nodeName=aks-userswft-31562873-vmss000001",
        "-o",
        "jsonpath={.items[0].metadata.name}",
    ]);
    assert_eq!(pod, "azure-cns-9hq4m");
    let logs = s.ok(&["logs", "-n", "kube-system", &pod, "--since=2h"]);
    assert!(
        logs.contains("ErrorCode 4: no free reservation in set"),
        "{logs}"
    );
    assert_eq!(
        s.ok(&["logs", "-n", "kube-system", &pod, "--tail=1"])
            .lines()
            .count(),
        1
    );
    let prev = s.ok(&[
        "logs",
        "-n",
        "kube-system",
        &pod,
        "--previous",
        "--tail=200",
    ]);
    assert!(prev.contains("status 401"), "{prev}");
    let konn = s.ok(&[
        "logs",
        "-n",
        OCM_NS,
        "deployment/kube-apiserver",
        "-c",
        "konnectivity-server",
        "--tail=200",
    ]);
    assert!(konn.contains("stream read failure"), "{konn}");
}

#[test]
fn kubectl_runs_the_maestro_mitigation() {
    let Some(s) = BlockingSim::start("maestro", "kubectl_runs_the_maestro_mitigation") else {
        return;
    };
    let mws = |s: &BlockingSim| -> Vec<String> {
        s.ok(&["get", "manifestwork", "-n", "local-cluster", "-o", "name"])
            .lines()
            .filter(|l| l.contains(STUCK_ID))
            .map(String::from)
            .collect()
    };
    let clear = |s: &BlockingSim| {
        for mw in mws(s) {
            s.ok(&[
                "patch",
                &mw,
                "-n",
                "local-cluster",
                "--type=merge",
                "-p",
                r#"{"metadata":{"finalizers":null}}"#,
            ]);
            s.ok(&[
                "delete",
                &mw,
                "-n",
                "local-cluster",
                "--ignore-not-found",
                "--wait=false",
            ]);
        }
    };
    let before = mws(&s);
    assert_eq!(before.len(), 2);
    // While the agent runs, the ManifestWorks come back.
    clear(&s);
    assert_eq!(mws(&s), before, "the agent recreates them");

    let orig = s.ok(&[
        "get",
        "deployment",
        "maestro-agent",
        "-n",
        "maestro",
        "-o",
        "jsonpath={.spec.replicas}",
    ]);
    assert_eq!(orig, "1");
    s.ok(&[
        "scale",
        "deployment",
        "maestro-agent",
        "-n",
        "maestro",
        "--replicas=0",
    ]);
    s.ok(&[
        "wait",
        "--for=delete",
        "pod",
        "-l",
        "app=maestro-agent",
        "-n",
        "maestro",
        "--timeout=20s",
    ]);
    clear(&s);
    assert!(mws(&s).is_empty(), "with the agent stopped they stay gone");

    // An object with a finalizer stays, deleting, until a JSON patch empties the finalizers.
    let amw = s
        .ok(&["get", "appliedmanifestwork", "-o", "name"])
        .lines()
        .find(|l| l.contains(STUCK_ID))
        .map(String::from)
        .expect("amw");
    s.ok(&["delete", &amw, "--wait=false"]);
    assert!(!s
        .ok(&["get", &amw, "-o", "jsonpath={.metadata.deletionTimestamp}"])
        .is_empty());
    s.ok(&[
        "patch",
        &amw,
        "--type=json",
        "-p",
        r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
    ]);
    assert!(
        !s.run(&["get", &amw]).status.success(),
        "gone once the finalizer is removed"
    );

    s.ok(&[
        "scale",
        "deployment",
        "maestro-agent",
        "-n",
        "maestro",
        &format!("--replicas={orig}"),
    ]);
    let rollout = s.ok(&[
        "rollout",
        "status",
        "deployment",
        "maestro-agent",
        "-n",
        "maestro",
        "--timeout=20s",
    ]);
    assert!(rollout.contains("successfully rolled out"), "{rollout}");
    let pods = s.ok(&["get", "pods", "-n", "maestro", "--no-headers"]);
    let agents: Vec<&str> = pods
        .lines()
        .filter(|l| l.starts_with("maestro-agent-"))
        .collect();
    assert_eq!(agents.len(), 1, "{pods}");
    assert!(agents[0].contains("Running"), "{pods}");
    let log = s.ok(&[
        "logs",
        "-n",
        "maestro",
        "deployment/maestro-agent",
        "-c",
        "maestro-agent",
        "--since=2h",
    ]);
    assert!(log.contains(STUCK_ID), "{log}");
    assert!(mws(&s).is_empty(), "nothing is recreated after the restore");
}
