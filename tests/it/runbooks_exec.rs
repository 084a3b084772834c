//! Commands a guide types inside a pod shell (`oc rsh POD`, `kubectl exec -it POD -- sh`) run
//! through the Kubernetes exec API against the simulator: `tsgnav run` natively (kube-rs over
//! WebSocket), and the real `kubectl exec` too. A mutating inner command is refused without
//! `--write`.

use std::process::Command;

use serde_json::Value;
use tsgnav::sim::{Scenario, Sim};

use super::servers;

const GUIDE: &str = "tests/fixtures/runbooks/run/MaestroAgentDown.md";
const POD: &str = "maestro-agent-6c9d8b7f5-hx4tq";

fn run(kc: &str, state: &std::path::Path, node: &str) -> (Option<i32>, Value) {
    let out = crate::common::bin()
        .args(["run", &format!("{GUIDE}#{node}"), "--json", "--no-evidence"])
        .args(["--kubeconfig", kc, "--var", &format!("POD={POD}")])
        .current_dir(crate::common::root())
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", state)
        .output()
        .expect("run tsgnav");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), v)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pod_shell_commands_run_through_the_exec_api() {
    let sim = Sim::start(Scenario::builtin("maestro").unwrap())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kc = sim
        .write_kubeconfig(&dir.path().join("kubeconfig"))
        .unwrap();
    let kc = kc.to_str().unwrap();

    // `$ oc rsh -n maestro $POD` then `sh-4.4$ cat /etc/resolv.conf`.
    let (code, v) = run(kc, dir.path(), "diagnosis");
    let r = &v["results"][0];
    assert_eq!((code, r["status"].as_str()), (Some(0), Some("ok")), "{r}");
    assert_eq!(
        r["command"],
        format!("kubectl exec -n maestro {POD} -- sh -c 'cat /etc/resolv.conf'")
    );
    let ran = r["ran"].as_str().unwrap_or("");
    assert!(
        ran.starts_with(&format!(
            "native Kubernetes exec API (pod {POD} in maestro)"
        )),
        "{r}"
    );
    assert_eq!(
        r["output"],
        "search maestro.svc.cluster.local svc.cluster.local cluster.local\nnameserver 172.30.0.10\noptions ndots:5\n"
    );

    // `kubectl exec -it … -- sh` in a plain fence, then two commands inside.
    let (code, v) = run(kc, dir.path(), "pod-checks");
    let r = &v["results"][0];
    assert_eq!(code, Some(0), "{r}");
    let out = r["output"].as_str().unwrap_or("");
    assert!(out.starts_with(&format!("{POD}\nPID ")), "{out}");
    assert!(out.contains("1 root      0:42 maestro-agent"), "{out}");

    // `/ # rm -rf /tmp/cache` inside the pod: refused without --write, nothing ran.
    let (code, v) = run(kc, dir.path(), "clear-the-cache");
    let r = &v["results"][0];
    assert_eq!(
        (code, r["status"].as_str()),
        (Some(3), Some("refused")),
        "{r}"
    );
    assert!(r["error"].as_str().unwrap_or("").contains("--write"), "{r}");
    assert_eq!(r["output"], "", "{r}");
    assert!(r["ran"].is_null(), "{r}");
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_kubectl_exec_reaches_the_simulated_pod() {
    let Some(_) = servers::find_or_skip("kubectl", &[], "runbooks_exec_kubectl") else {
        return;
    };
    let sim = Sim::start(Scenario::builtin("maestro").unwrap())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kc = sim
        .write_kubeconfig(&dir.path().join("kubeconfig"))
        .unwrap();
    let kubectl = |args: &[&str]| {
        let out = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&kc)
            .args(["exec", "-n", "maestro", POD])
            .args(args)
            .env("HOME", dir.path())
            .output()
            .expect("kubectl runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = kubectl(&[
        "--",
        "sh",
        "-c",
        "hostname && env | grep KUBERNETES_SERVICE_PORT",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, format!("{POD}\nKUBERNETES_SERVICE_PORT=443\n"));
    // Outside the fixed set: exit 127 on the status channel, as a shell without the program.
    let (code, out, err) = kubectl(&["--", "shutdown", "-h", "now"]);
    assert_eq!((code, out.as_str()), (Some(127), ""), "{err}");
    assert!(err.contains("sh: shutdown: not found"), "{err}");
    assert!(
        err.contains("command terminated with exit code 127"),
        "{err}"
    );
    let (code, _, err) = kubectl(&["-c", "nope", "--", "ls"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("container nope is not valid for pod"), "{err}");
    // With `-i` kubectl opens a fourth stream (stdin); the answer waits for it too.
    let (code, out, err) = kubectl(&["-i", "--", "hostname"]);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), format!("{POD}\n").as_str()),
        "{err}"
    );
    assert!(!err.contains("Unknown stream id"), "{err}");
    sim.shutdown().await;
}
