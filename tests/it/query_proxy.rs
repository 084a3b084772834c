//! The read-only API proxy (`tsgnav::query::proxy`) with the real `kubectl` and with kube-rs
//! (the native backend's client) against the simulator: reads pass (a list, a watch whose
//! first event arrives while it stays open, `logs -f` whose first lines arrive while it stays
//! open, a port-forward that carries bytes both ways); writes get the `Status` 403 in a
//! read-only run and change nothing; in a confirmed run for context A the write reaches A,
//! and nothing reaches B (`query_proxy_writes`); the native backend and `run --json` through it
//! (`query_proxy_native`). Every decision is in the grant's record.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use tsgnav::query::proxy::{Grant, Proxy};

use super::sim_support::{self, AsyncSim};

pub(super) const AGENT_POD: &str = "maestro-agent-6c9d8b7f5-hx4tq";
pub(super) const DENIED: &str = "tsgnav: read-only run; confirm this mitigation to change";

/// A simulator with `clusters` contexts, a proxy, and the real kubectl.
pub(super) struct Fixture {
    pub(super) rt: tokio::runtime::Runtime,
    pub(super) sim: Option<AsyncSim>,
    pub(super) proxy: Option<Proxy>,
    pub(super) kubectl: PathBuf,
    pub(super) dir: tempfile::TempDir,
}

impl Fixture {
    pub(super) fn start(test: &str, clusters: usize) -> Option<Fixture> {
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

    pub(super) fn sim(&self) -> &AsyncSim {
        self.sim.as_ref().expect("running")
    }

    pub(super) fn context(&self, i: usize) -> String {
        self.sim().handle.clusters[i].clone()
    }

    /// A pass for `context` and the kubeconfig written for it.
    pub(super) fn grant(&self, context: &str, confirmed: bool) -> (Grant, PathBuf) {
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

    pub(super) fn command(&self, kubeconfig: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(&self.kubectl);
        c.args(args)
            .env("KUBECONFIG", kubeconfig)
            .env("HOME", self.dir.path());
        c
    }

    pub(super) fn run(&self, kubeconfig: &Path, args: &[&str]) -> Output {
        self.command(kubeconfig, args)
            .output()
            .expect("kubectl runs")
    }

    /// kubectl straight at the simulator.
    pub(super) fn direct(&self, args: &[&str]) -> String {
        let o = self.run(&self.sim().kubeconfig, args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    pub(super) fn spawn(&self, kubeconfig: &Path, args: &[&str]) -> Child {
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

pub(super) fn refused(g: &Grant) -> Vec<String> {
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
