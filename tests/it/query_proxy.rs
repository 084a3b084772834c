//! The read-only API proxy (`tsgnav::query::proxy`) with the real `kubectl` and with kube-rs
//! (the native backend's client) against the simulator: reads pass (a list, a watch whose
//! first event arrives while it stays open, `logs -f` whose first lines arrive while it stays
//! open, a port-forward that carries bytes both ways); writes get the `Status` 403 in a
//! read-only run and change nothing; in a confirmed run for context A the write reaches A,
//! and nothing reaches B. Every decision is in the grant's record.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use tsgnav::query::proxy::{Grant, Proxy};

use super::sim_support::{self, AsyncSim};

const AGENT_POD: &str = "maestro-agent-6c9d8b7f5-hx4tq";
const DENIED: &str = "tsgnav: read-only run; confirm this mitigation to change";

/// A simulator with `clusters` contexts, a proxy, and the real kubectl.
struct Fixture {
    rt: tokio::runtime::Runtime,
    sim: Option<AsyncSim>,
    proxy: Option<Proxy>,
    kubectl: PathBuf,
    dir: tempfile::TempDir,
}

impl Fixture {
    fn start(test: &str, clusters: usize) -> Option<Fixture> {
        let kubectl = sim_support::kubectl(test)?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let sim = rt.block_on(sim_support::start("maestro", Some(clusters)));
        let proxy = rt.block_on(Proxy::start()).expect("proxy starts");
        Some(Fixture {
            rt,
            sim: Some(sim),
            proxy: Some(proxy),
            kubectl,
            dir: tempfile::tempdir().expect("tempdir"),
        })
    }

    fn sim(&self) -> &AsyncSim {
        self.sim.as_ref().expect("running")
    }

    fn context(&self, i: usize) -> String {
        self.sim().handle.clusters[i].clone()
    }

    /// A pass for `context` and the kubeconfig written for it.
    fn grant(&self, context: &str, confirmed: bool) -> (Grant, PathBuf) {
        let proxy = self.proxy.as_ref().expect("proxy");
        let g = self
            .rt
            .block_on(proxy.grant(&self.sim().kubeconfig, Some(context), confirmed))
            .expect("grant");
        let path = self
            .dir
            .path()
            .join(format!("kubeconfig-{context}-{confirmed}"));
        g.write_kubeconfig(&path).expect("write kubeconfig");
        (g, path)
    }

    fn command(&self, kubeconfig: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(&self.kubectl);
        c.args(args)
            .env("KUBECONFIG", kubeconfig)
            .env("HOME", self.dir.path());
        c
    }

    fn run(&self, kubeconfig: &Path, args: &[&str]) -> Output {
        self.command(kubeconfig, args)
            .output()
            .expect("kubectl runs")
    }

    /// kubectl straight at the simulator.
    fn direct(&self, args: &[&str]) -> String {
        let o = self.run(&self.sim().kubeconfig, args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    fn spawn(&self, kubeconfig: &Path, args: &[&str]) -> Child {
        self.command(kubeconfig, args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kubectl starts")
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        drop(self.proxy.take());
        if let Some(s) = self.sim.take() {
            self.rt.block_on(s.handle.shutdown());
        }
    }
}

/// A running kubectl whose stdout is read line by line (blocking until a line arrives;
/// kubectl's own request timeout bounds the wait).
struct Streaming {
    child: Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Streaming {
    fn new(mut child: Child) -> Self {
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        Streaming { child, out }
    }

    fn line(&mut self) -> String {
        let mut l = String::new();
        let _ = self.out.read_line(&mut l);
        l
    }

    /// Asserts the stream is still open (the process did not end), then kills it.
    fn stop(mut self) {
        let running = self.child.try_wait().expect("wait").is_none();
        let _ = self.child.kill();
        let o = self.child.wait_with_output().expect("ends");
        assert!(
            running,
            "the stream ended instead of staying open: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// Waits until `g` has forwarded a request whose target contains `part` (or fails after
/// 20 s: a condition, not a sleep).
fn wait_forwarded(g: &Grant, part: &str) {
    let until = std::time::Instant::now() + Duration::from_secs(20);
    while !g
        .decisions()
        .iter()
        .any(|d| d.refused.is_none() && d.target.contains(part))
    {
        assert!(std::time::Instant::now() < until, "no request with {part}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn refused(g: &Grant) -> Vec<String> {
    g.decisions()
        .into_iter()
        .filter(|d| d.refused.is_some())
        .map(|d| format!("{} {}", d.method, d.target))
        .collect()
}

#[test]
fn kubectl_reads_through_the_proxy_and_its_writes_get_the_403() {
    let Some(f) = Fixture::start("kubectl_reads_through_the_proxy", 1) else {
        return;
    };
    let ctx = f.context(0);
    let (g, kc) = f.grant(&ctx, false);
    let text = std::fs::read_to_string(&kc).expect("kubeconfig");
    assert!(
        !text.contains("tsgnav-sim-token") && !text.contains("token:"),
        "{text}"
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&kc).expect("meta").permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    let via = f.run(&kc, &["get", "pods", "-A"]);
    assert!(
        via.status.success(),
        "{}",
        String::from_utf8_lossy(&via.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&via.stdout),
        f.direct(&["get", "pods", "-A"])
    );
    assert!(String::from_utf8_lossy(&via.stdout).contains(AGENT_POD));

    let writes = f.sim().handle.writes();
    for args in [
        vec!["delete", "pod", AGENT_POD, "-n", "maestro"],
        vec![
            "scale",
            "deploy/maestro-agent",
            "-n",
            "maestro",
            "--replicas=0",
        ],
        vec![
            "delete",
            "pod",
            AGENT_POD,
            "-n",
            "maestro",
            "--dry-run=none",
        ],
    ] {
        let o = f.run(&kc, &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(err.contains(&format!("{DENIED} {ctx}")), "{args:?}: {err}");
    }
    assert_eq!(f.sim().handle.writes(), writes, "no write reached the API");
    assert!(f
        .direct(&["get", "pods", "-n", "maestro"])
        .contains(AGENT_POD));
    let replicas = f.direct(&[
        "get",
        "deploy",
        "maestro-agent",
        "-n",
        "maestro",
        "-o",
        "jsonpath={.spec.replicas}",
    ]);
    assert_eq!(replicas, "1");
    // A server-side dry run passes and changes nothing.
    let o = f.run(
        &kc,
        &[
            "delete",
            "pod",
            AGENT_POD,
            "-n",
            "maestro",
            "--dry-run=server",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(f
        .direct(&["get", "pods", "-n", "maestro"])
        .contains(AGENT_POD));

    let denied = refused(&g);
    assert_eq!(denied.len(), 3, "{denied:?}");
    assert!(denied[0].starts_with(&format!(
        "DELETE /api/v1/namespaces/maestro/pods/{AGENT_POD}"
    )));
    assert!(denied[1]
        .starts_with("PATCH /apis/apps/v1/namespaces/maestro/deployments/maestro-agent/scale"));
    assert!(g
        .decisions()
        .iter()
        .any(|d| d.refused.is_none() && d.method == "GET"));
}

#[test]
fn watch_and_follow_stream_through_the_proxy() {
    let Some(f) = Fixture::start("watch_and_follow_stream_through_the_proxy", 1) else {
        return;
    };
    let (g, kc) = f.grant(&f.context(0), false);
    let mut w = Streaming::new(f.spawn(
        &kc,
        &[
            "get",
            "pods",
            "-n",
            "maestro",
            "-w",
            "--no-headers",
            "--request-timeout=30s",
        ],
    ));
    let (a, b) = (w.line(), w.line());
    assert!(
        a.starts_with("maestro-") && b.starts_with("maestro-"),
        "{a}{b}"
    );
    // The watch is open through the proxy; a change made beside it arrives as an event.
    wait_forwarded(&g, "watch=true");
    f.direct(&["label", "pod", AGENT_POD, "-n", "maestro", "seen=yes"]);
    let event = w.line();
    assert!(event.starts_with(AGENT_POD), "{event}");
    w.stop();

    let mut logs = Streaming::new(f.spawn(
        &kc,
        &[
            "logs",
            "-f",
            "-n",
            "maestro",
            AGENT_POD,
            "--request-timeout=30s",
        ],
    ));
    let first = logs.line();
    assert!(!first.trim().is_empty(), "the first log line arrives");
    wait_forwarded(&g, "follow=true");
    logs.stop();
}

#[test]
fn a_port_forward_carries_bytes_both_ways_through_the_proxy() {
    let Some(f) = Fixture::start("a_port_forward_carries_bytes_through_the_proxy", 1) else {
        return;
    };
    let (_g, kc) = f.grant(&f.context(0), false);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let mut child = f.spawn(
        &kc,
        &[
            "port-forward",
            "-n",
            "maestro",
            "svc/maestro",
            &format!("{port}:8000"),
        ],
    );
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("reads");
    let raw = (|| -> std::io::Result<Vec<u8>> {
        let mut c = std::net::TcpStream::connect(("127.0.0.1", port))?;
        c.set_read_timeout(Some(Duration::from_secs(20)))?;
        write!(
            c,
            "GET /api/maestro/v1/resource-bundles HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        )?;
        let mut raw = Vec::new();
        c.read_to_end(&mut raw)?;
        Ok(raw)
    })();
    let _ = child.kill();
    let out = child.wait_with_output().expect("ends");
    assert!(
        first.contains(&format!("Forwarding from 127.0.0.1:{port}")),
        "{first}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let raw =
        String::from_utf8_lossy(&raw.expect("a request through the forwarded port")).into_owned();
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    assert!(raw.contains("ResourceBundleList"), "{raw}");
}

#[test]
fn a_confirmed_run_writes_to_its_context_only() {
    let Some(f) = Fixture::start("a_confirmed_run_writes_to_its_context_only", 2) else {
        return;
    };
    let (a, b) = (f.context(0), f.context(1));
    let (ga, kca) = f.grant(&a, true);
    let (gb, kcb) = f.grant(&b, false);
    // The kubeconfig of A's confirmed run holds A only.
    let o = f.run(
        &kca,
        &["--context", &b, "delete", "pod", AGENT_POD, "-n", "maestro"],
    );
    assert!(!o.status.success());
    let o = f.run(&kca, &["delete", "pod", AGENT_POD, "-n", "maestro"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A write aimed at B through a pass the confirmation does not cover is refused.
    let o = f.run(&kcb, &["delete", "pod", AGENT_POD, "-n", "maestro"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains(&format!("{DENIED} {b}")));
    // A kubeconfig the proxy does not hold gets nothing through.
    let forged = f.dir.path().join("forged");
    let text = std::fs::read_to_string(&kca).expect("kubeconfig");
    let at = text.find("/p/").expect("token in the server URL") + 3;
    let token = text[at..at + 64].to_string();
    std::fs::write(&forged, text.replace(&token, &"0".repeat(64))).expect("write");
    let o = f.run(
        &forged,
        &["delete", "pod", "maestro-5d7f8b9c4-k2v7p", "-n", "maestro"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");

    let pods = |ctx: &str| f.direct(&["--context", ctx, "get", "pods", "-n", "maestro"]);
    assert!(
        !pods(&a).contains(AGENT_POD),
        "the confirmed write reached A"
    );
    assert!(pods(&a).contains("maestro-5d7f8b9c4-k2v7p"));
    assert!(pods(&b).contains(AGENT_POD), "nothing reached B");
    assert!(refused(&ga).is_empty());
    assert_eq!(refused(&gb).len(), 1);
    // Once the run ends, its pass is gone.
    drop(ga);
    let o = f.run(&kca, &["get", "pods", "-n", "maestro"]);
    assert!(!o.status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_native_client_goes_through_the_same_policy() {
    use k8s_openapi::api::core::v1::Pod;
    use kube::api::{Api, DeleteParams, ListParams};
    let sim = sim_support::start("maestro", None).await;
    let proxy = Proxy::start().await.expect("proxy");
    let ctx = sim.handle.clusters[0].clone();
    let g = proxy
        .grant(&sim.kubeconfig, Some(&ctx), false)
        .await
        .expect("grant");
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = dir.path().join("kubeconfig");
    g.write_kubeconfig(&kc).expect("write");
    let client = sim_support::client(&kc, None).await;
    let pods: Api<Pod> = Api::namespaced(client, "maestro");
    let list = pods.list(&ListParams::default()).await.expect("list");
    assert!(list
        .items
        .iter()
        .any(|p| p.metadata.name.as_deref() == Some(AGENT_POD)));
    let logs = pods
        .logs(AGENT_POD, &Default::default())
        .await
        .expect("logs");
    assert!(!logs.is_empty());
    match pods.delete(AGENT_POD, &DeleteParams::default()).await {
        Err(kube::Error::Api(s)) => {
            assert_eq!(s.code, 403);
            assert!(
                s.message.starts_with(&format!("{DENIED} {ctx}")),
                "{}",
                s.message
            );
        }
        other => panic!("the delete was not refused: {other:?}"),
    }
    let dry = DeleteParams {
        dry_run: true,
        ..DeleteParams::default()
    };
    assert!(pods.delete(AGENT_POD, &dry).await.is_ok());
    let direct: Api<Pod> =
        Api::namespaced(sim_support::client(&sim.kubeconfig, None).await, "maestro");
    assert!(
        direct.get(AGENT_POD).await.is_ok(),
        "the pod is still there"
    );
    assert_eq!(refused(&g).len(), 1);
}

/// The native backend's own requests (a `kubectl get` it answers itself) go through the
/// session's proxy when it has one, and answer the same as without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_native_backend_reads_through_the_session_proxy() {
    use tsgnav::query::kube::KubeExecutor;
    use tsgnav::query::proxy::SessionProxy;
    use tsgnav::query::{Cancel, Executor, OutputSink, ProbeId, ProbeRequest, Target};
    let sim = sim_support::start("maestro", None).await;
    let req = |code: &str| ProbeRequest {
        id: ProbeId::new("test.md#native", 1),
        lang: tsgnav::tsg::Lang::Shell,
        code: code.to_string(),
        bindings: Default::default(),
        assigns: Vec::new(),
        timeout: Duration::from_secs(10),
        target: Target {
            kubeconfig: Some(sim.kubeconfig.clone()),
            kube_context: Some(sim.handle.clusters[0].clone()),
            ..Target::default()
        },
        class: tsgnav::tsg::SafetyClass::ReadOnly,
        confirmation: None,
    };
    let proxy = SessionProxy::default();
    let via = KubeExecutor {
        proxy: Some(proxy.clone()),
        ..KubeExecutor::default()
    };
    let code = "kubectl get pods -n maestro";
    assert!(via.accepts(&req(code)), "answered natively");
    let text = |r: &tsgnav::query::ProbeResult| {
        String::from_utf8_lossy(&r.output.read_all().unwrap_or_default()).into_owned()
    };
    let sink = || OutputSink::detached(ProbeId("n".into()));
    let r = via.run(req(code), sink(), Cancel::new()).await;
    assert!(r.status.is_ok(), "{:?}: {}", r.status, text(&r));
    assert!(proxy.decided() > 0, "the requests went through the proxy");
    let direct = KubeExecutor::default()
        .run(req(code), sink(), Cancel::new())
        .await;
    assert_eq!(text(&r), text(&direct));
    assert!(text(&r).contains(AGENT_POD));
}

/// A probe whose kubeconfig cannot be read runs without the proxy, and its output says so.
#[tokio::test]
async fn a_probe_without_a_kubeconfig_is_told_it_ran_without_the_proxy() {
    use tsgnav::query::shell::ShellExecutor;
    use tsgnav::query::{Cancel, Executor, OutputSink, ProbeId};
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("no-such-kubeconfig");
    let req = super::mitigate_support::request(": kubectl", "V", "v", "mc-1", Some(&missing));
    let r = ShellExecutor::default()
        .run(
            req,
            OutputSink::detached(ProbeId("x".into())),
            Cancel::new(),
        )
        .await;
    let out = String::from_utf8_lossy(&r.output.read_all().unwrap_or_default()).into_owned();
    assert!(r.status.is_ok(), "{out}");
    assert_eq!(
        out.trim(),
        format!(
            "tsgnav proxy: this probe ran without the read-only API proxy: the kubeconfig {} does not exist",
            missing.display()
        )
    );
}

/// `tsgnav run --json` lists the API requests the proxy decided for a probe kubectl answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_json_lists_the_requests_the_proxy_decided() {
    let Some(_) = sim_support::kubectl("run_json_lists_the_requests_the_proxy_decided") else {
        return;
    };
    let sim = sim_support::start("maestro", None).await;
    let state = tempfile::tempdir().expect("tempdir");
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .args([
            "run",
            "tests/fixtures/proxy/describe.md#describe-the-agent",
            "--json",
        ])
        .arg("--kubeconfig")
        .arg(&sim.kubeconfig)
        .current_dir(super::common::root())
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", state.path())
        .env("HOME", state.path())
        .output()
        .await
        .expect("tsgnav runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    let r = &v["results"][0];
    assert_eq!(r["status"], "ok", "{r}");
    assert!(
        r["output"].as_str().unwrap_or_default().contains(AGENT_POD),
        "{r}"
    );
    let api: Vec<&str> = r["api"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x.as_str()).collect())
        .unwrap_or_default();
    let want = format!("forwarded GET /api/v1/namespaces/maestro/pods/{AGENT_POD}");
    assert!(api.iter().any(|l| l.starts_with(&want)), "{api:?}");
    assert!(api.iter().all(|l| l.starts_with("forwarded ")), "{api:?}");
    // The evidence record of the run carries the same list.
    let mut recorded = Vec::new();
    for session in std::fs::read_dir(state.path()).expect("state").flatten() {
        let Ok(journal) = std::fs::read_to_string(session.path().join("journal.jsonl")) else {
            continue;
        };
        for line in journal.lines() {
            let rec: serde_json::Value = serde_json::from_str(line).expect("record");
            if rec["type"] == "probe_run" {
                recorded.push(rec["api"].clone());
            }
        }
    }
    assert_eq!(recorded, vec![r["api"].clone()]);
}

/// `pods/exec` through the proxy: a command classed read-only is forwarded (the simulator
/// serves no exec, so it answers 404 — not the proxy's 403); a mutating one is refused before
/// any upgrade.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_is_forwarded_only_for_a_read_only_command() {
    use k8s_openapi::api::core::v1::Pod;
    use kube::api::{Api, AttachParams};
    let sim = sim_support::start("maestro", None).await;
    let proxy = Proxy::start().await.expect("proxy");
    let g = proxy
        .grant(&sim.kubeconfig, None, false)
        .await
        .expect("grant");
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = dir.path().join("kubeconfig");
    g.write_kubeconfig(&kc).expect("write");
    let pods: Api<Pod> = Api::namespaced(sim_support::client(&kc, None).await, "maestro");
    let code = |r: Result<kube::api::AttachedProcess, kube::Error>| match r {
        Err(kube::Error::Api(s)) => (s.code, s.message),
        Err(e) => (0, e.to_string()),
        Ok(_) => (101, String::new()),
    };
    let params = AttachParams::default().stderr(true);
    let (c, m) = code(
        pods.exec(AGENT_POD, ["cat", "/etc/hostname"], &params)
            .await,
    );
    assert_ne!(c, 403, "a read-only exec was refused: {m}");
    let (c, m) = code(pods.exec(AGENT_POD, ["rm", "-rf", "/data"], &params).await);
    assert_eq!(c, 403, "{m}");
    assert!(m.contains("tsgnav: read-only run"), "{m}");
    let d = g.decisions();
    assert_eq!(d.len(), 2, "{d:?}");
    assert!(
        d[0].refused.is_none() && d[0].target.contains("command=cat"),
        "{d:?}"
    );
    assert!(
        d[1].refused.is_some() && d[1].target.contains("command=rm"),
        "{d:?}"
    );
}
