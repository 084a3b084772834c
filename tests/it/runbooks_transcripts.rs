//! Alert runbooks as written in the wild: console transcripts become commands plus expected
//! output, and commands typed inside pod, node and host shells carry where they run. Checked
//! through `tsgnav tree --json` and `tsgnav run` (the real `kubectl` against the simulator).

use serde_json::Value;
use tsgnav::sim::{Scenario, Sim};

use super::servers;

const DIR: &str = "tests/fixtures/runbooks";

/// `tree --json` of the fixture folder.
pub fn tree() -> Value {
    let out = crate::common::bin()
        .args(["tree", "--json", DIR])
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

/// The probes of `node` (`path#slug`) in `tree`.
pub fn probes<'a>(tree: &'a Value, node: &str) -> Vec<&'a Value> {
    let (path, _) = node.split_once('#').expect("path#slug");
    tree["guides"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|g| g["path"] == path)
        .flat_map(|g| g["nodes"].as_array().into_iter().flatten())
        .filter(|n| n["id"] == node)
        .flat_map(|n| n["probes"].as_array().into_iter().flatten())
        .collect()
}

#[test]
fn prompts_are_stripped_and_output_is_a_sample() {
    let t = tree();
    let p = probes(&t, "kubernetes/KubePodCrashLooping.md#diagnosis");
    let first = p
        .iter()
        .find(|p| p["source"].as_str().unwrap_or("").starts_with("$ "))
        .expect("the transcript probe");
    assert_eq!(
        first["code"],
        "kubectl -n $NAMESPACE get pods --sort-by=.status.containerStatuses[0].restartCount"
    );
    assert!(first["source"].as_str().unwrap().starts_with("$ kubectl"));
    assert!(first["expected_output"]
        .as_str()
        .unwrap()
        .contains("CrashLoopBackOff"));
    assert_eq!(
        first["vars"],
        serde_json::json!(["NAMESPACE"]),
        "no variable from output"
    );
    assert_eq!(first["safety"], "read-only");
    // `$ export NS=…` assigns NS, so the probe does not ask for it.
    let p = probes(&t, "kubernetes/KubeCPUOvercommit.md#diagnosis");
    assert_eq!(
        p[0]["code"],
        "export NS=openshift-monitoring\noc -n $NS adm top pods --sort-by=cpu"
    );
    // `\` and `> ` continuations stay one command; output between commands is not code.
    let p = probes(&t, "kubernetes/KubeAPIDown.md#diagnosis");
    assert_eq!(
        p[0]["code"],
        "oc get pods -n openshift-kube-apiserver \\\n  -l apiserver=true -o wide\noc get --raw='/readyz?verbose' | tail -n 3"
    );
    assert!(p[0]["expected_output"]
        .as_str()
        .unwrap()
        .contains("readyz check passed"));
    // Other prompt forms.
    let p = probes(&t, "kubernetes/KubeNodeUnreachable.md#diagnosis");
    assert!(p[0]["code"]
        .as_str()
        .unwrap()
        .starts_with("ping -c 3 10.0.1.17\nkubectl get node"));
    // A `powershell` fence is commands too: its `PS C:\>` prompt is stripped.
    let p = probes(&t, "kubernetes/KubeMemoryOvercommit.md#diagnosis");
    assert_eq!(
        p[0]["code"],
        "az aks show -g $RESOURCE_GROUP -n $CLUSTER --query agentPoolProfiles"
    );
    assert_eq!(p[1]["code"], "kubectl top nodes");
}

#[test]
fn commands_inside_shells_carry_runs_in() {
    let t = tree();
    let runs = |node: &str| -> Vec<(String, Value)> {
        probes(&t, node)
            .iter()
            .map(|p| {
                (
                    p["code"].as_str().unwrap_or("").to_string(),
                    p["runs_in"].clone(),
                )
            })
            .collect()
    };
    let etcd = runs("etcd/etcdMembersDown.md#diagnosis");
    assert_eq!(etcd.len(), 2, "{etcd:?}");
    assert_eq!(
        etcd[0].0,
        "etcdctl member list -w table\netcdctl endpoint health --cluster"
    );
    assert_eq!(etcd[0].1["kind"], "pod");
    assert_eq!(etcd[0].1["target"], "etcd-master-0");
    assert_eq!(etcd[0].1["via"], "oc rsh -n openshift-etcd etcd-master-0");
    assert!(
        etcd[1].1.is_null(),
        "after exit the next block runs locally"
    );
    let node = runs("kubernetes/KubeNodeNotReady.md#diagnosis");
    assert!(node[0].1.is_null());
    assert_eq!(node[1].1["kind"], "node");
    assert_eq!(node[1].1["target"], "$NODE");
    assert_eq!(node[1].1["via"], "oc debug node/$NODE && chroot /host");
    assert!(node[1].0.starts_with("systemctl status kubelet.service"));
    // A later block of the same section is still inside the shell.
    let no_leader = runs("etcd/etcdNoLeader.md#diagnosis");
    assert!(
        no_leader[0].1.is_null(),
        "the entering command itself runs locally"
    );
    assert_eq!(no_leader[1].1["target"], "etcd-master-1");
    // Leaving with exit splits the block: the last command runs locally again.
    let clock = runs("node/NodeClockNotSynchronising.md#diagnosis");
    assert_eq!(clock[0].0, "chronyc tracking");
    assert_eq!(clock[0].1["kind"], "node");
    assert_eq!(clock[1].0, "oc get nodes -o wide");
    assert!(clock[1].1.is_null());
    // ssh, sudo -i and a bare root prompt.
    let kubelet = runs("node/KubeletDown.md#diagnosis");
    assert_eq!(kubelet[0].1["kind"], "host");
    assert_eq!(kubelet[0].1["target"], "$NODE_IP");
    let root = runs("kubernetes/KubeNodeNotReady.md#mitigation");
    assert_eq!(root[0].0, "systemctl restart kubelet.service");
    assert_eq!(
        root[0].1["kind"], "host",
        "a root prompt is not the operator's shell"
    );
    let safety = probes(&t, "kubernetes/KubeNodeNotReady.md#mitigation")[0]["safety"].clone();
    assert_eq!(safety, "mutating", "classified by what it does");
    // A block that starts with kubectl after a pod shell has left it.
    let am = runs("alerting/AlertmanagerFailedToSendAlerts.md#diagnosis");
    assert_eq!(am[0].0, "wget -qO- localhost:9093/api/v2/status");
    assert_eq!(am[0].1["kind"], "pod");
    assert!(am[1].1.is_null(), "{am:?}");
}

#[test]
fn bad_transcripts_are_reported_and_nothing_is_lost() {
    let out = crate::common::bin()
        .args(["lint", "--format", "json", &format!("{DIR}/bad")])
        .current_dir(crate::common::root())
        .output()
        .expect("run tsgnav");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let msgs: Vec<String> = v["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["rule"] == "transcript")
        .map(|f| format!("{}:{} {}", f["path"], f["line"], f["message"]))
        .collect();
    let has = |needle: &str| msgs.iter().any(|m| m.contains(needle));
    assert!(has("is a prompt with no command"), "{msgs:?}");
    assert!(has("never closed by a `EOF` line"), "{msgs:?}");
    assert!(has("never leaves (no `exit`)"), "{msgs:?}");
    let t = tree();
    let p = probes(&t, "bad/UnterminatedHeredoc.md#diagnosis");
    assert_eq!(
        p[0]["code"], "cat <<EOF > /tmp/x\na line",
        "the body is kept"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_executes_the_prompted_command_and_refuses_node_commands() {
    let Some(_) = servers::find_or_skip("kubectl", &[], "runbooks_run_prompted") else {
        return;
    };
    let sim = Sim::start(Scenario::builtin("maestro").unwrap())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kc = sim
        .write_kubeconfig(&dir.path().join("kubeconfig"))
        .unwrap();
    let run = |node: &str| {
        crate::common::bin()
            .args([
                "run",
                &format!("{DIR}/run/PodsPending.md#{node}"),
                "--json",
                "--no-evidence",
                "--kubeconfig",
                kc.to_str().unwrap(),
                "--var",
                "NAMESPACE=maestro",
                "--var",
                "NODE=aks-node-0",
            ])
            .current_dir(crate::common::root())
            .env("TSGNAV_CONFIG", "/dev/null")
            .env("TSGNAV_STATE_DIR", dir.path())
            .output()
            .expect("run tsgnav")
    };
    let out = run("diagnosis");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let r = &v["results"][0];
    assert_eq!(r["status"], "ok", "{r}");
    let command = r["command"].as_str().unwrap_or_default();
    assert!(
        command.starts_with("kubectl get pods -n $NAMESPACE"),
        "the command as written, without its prompt: {r}"
    );
    assert!(
        r["ran"]
            .as_str()
            .is_some_and(|ran| ran.ends_with("kubectl get pods -n maestro")),
        "the prompt is not run: {r}"
    );
    assert!(
        r["output"].as_str().unwrap().contains("maestro-agent"),
        "{r}"
    );
    let out = run("node-checks");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let r = &v["results"][0];
    assert_eq!(r["status"], "refused", "{r}");
    let err = r["error"].as_str().unwrap_or("");
    assert!(err.contains("on node aks-node-0"), "{err}");
    assert!(
        err.contains("`oc debug node/aks-node-0 && chroot /host`"),
        "{err}"
    );
    assert!(
        r["output"].as_str().unwrap_or("").is_empty(),
        "nothing ran: {r}"
    );
}
