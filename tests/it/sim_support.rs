//! Helpers for the simulator and native-kube tests: start `tsgnav::sim` with a bundled
//! scenario (on its own runtime when the test itself is synchronous, e.g. to drive the real
//! `kubectl`), write its kubeconfig, build kube-rs clients for its contexts, and find kubectl.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use tsgnav::sim::{Scenario, Sim, SimHandle};

/// The real kubectl, or `None` with a SKIP line (a failure with TSGNAV_REQUIRE_SERVERS=1).
pub fn kubectl(test: &str) -> Option<PathBuf> {
    super::servers::find_or_skip("kubectl", &[PathBuf::from("/usr/bin/kubectl")], test)
}

pub fn scenario(name: &str, clusters: Option<usize>) -> Scenario {
    let s = Scenario::builtin(name).expect("bundled scenario");
    match clusters {
        Some(n) => s.with_clusters(n),
        None => s,
    }
}

/// A simulator started from async code, with its kubeconfig written.
pub struct AsyncSim {
    pub handle: SimHandle,
    pub kubeconfig: PathBuf,
    _dir: tempfile::TempDir,
}

pub async fn start(name: &str, clusters: Option<usize>) -> AsyncSim {
    start_scenario(scenario(name, clusters)).await
}

pub async fn start_scenario(s: Scenario) -> AsyncSim {
    let handle = Sim::start(s).await.expect("sim starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = handle
        .write_kubeconfig(&dir.path().join("kubeconfig"))
        .expect("kubeconfig");
    AsyncSim {
        handle,
        kubeconfig,
        _dir: dir,
    }
}

/// A kube-rs client for `context` of `kubeconfig`.
pub async fn client(kubeconfig: &Path, context: Option<&str>) -> kube::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let kc = kube::config::Kubeconfig::read_from(kubeconfig).expect("read kubeconfig");
    let opts = kube::config::KubeConfigOptions {
        context: context.map(String::from),
        ..Default::default()
    };
    let cfg = kube::Config::from_custom_kubeconfig(kc, &opts)
        .await
        .expect("config");
    kube::Client::try_from(cfg).expect("client")
}

/// A simulator on its own runtime, for synchronous tests that run processes against it.
pub struct BlockingSim {
    pub rt: tokio::runtime::Runtime,
    pub sim: Option<AsyncSim>,
    pub kubectl: PathBuf,
}

impl BlockingSim {
    /// `None` (after a SKIP line) when kubectl is missing.
    pub fn start(name: &str, test: &str) -> Option<Self> {
        let kubectl = kubectl(test)?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        // Frozen ages: kubectl and tsgnav asked a second apart must both print `8m1s`.
        let sim = rt.block_on(start_scenario(scenario(name, None).with_frozen_clock()));
        Some(BlockingSim {
            rt,
            sim: Some(sim),
            kubectl,
        })
    }

    pub fn kubeconfig(&self) -> &Path {
        &self.sim.as_ref().expect("running").kubeconfig
    }

    pub fn url(&self) -> String {
        self.sim.as_ref().expect("running").handle.url.clone()
    }

    /// Runs kubectl with the simulator's kubeconfig.
    pub fn run(&self, args: &[&str]) -> Output {
        std::process::Command::new(&self.kubectl)
            .args(args)
            .env("KUBECONFIG", self.kubeconfig())
            .env("HOME", self.kubeconfig().parent().expect("dir"))
            .output()
            .expect("kubectl runs")
    }

    /// The replica count of `deployment/maestro-agent -n maestro` (in `context`, if given).
    pub fn agent_replicas(&self, context: Option<&str>) -> String {
        let mut args = vec!["get", "deployment", "maestro-agent", "-n", "maestro"];
        args.extend(["-o", "jsonpath={.spec.replicas}"]);
        if let Some(c) = context {
            args.extend(["--context", c]);
        }
        self.ok(&args)
    }

    /// Runs kubectl and returns stdout, failing the test with stderr when it exits non-zero.
    pub fn ok(&self, args: &[&str]) -> String {
        let o = self.run(args);
        assert!(
            o.status.success(),
            "kubectl {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    }
}

impl Drop for BlockingSim {
    fn drop(&mut self) {
        if let Some(s) = self.sim.take() {
            self.rt.block_on(s.handle.shutdown());
        }
    }
}

pub const OCM_NS: &str = "ocm-prod-2lq3swift0demo0cluster0id01-demo-hcp";
pub const STUCK_ID: &str = "2lq3stuck0maestro0cluster0id1";

/// A simulator of `name` with `clusters` contexts on a runtime of its own (kept alive by the
/// caller), for synchronous tests that run tsgnav or the navigator against it.
pub fn on_own_runtime(name: &str, clusters: Option<usize>) -> (tokio::runtime::Runtime, AsyncSim) {
    seeded_on_own_runtime(scenario(name, clusters))
}

/// [`on_own_runtime`] for a scenario the test has seeded first (contexts that fail their
/// validation, a frozen clock …).
pub fn seeded_on_own_runtime(s: Scenario) -> (tokio::runtime::Runtime, AsyncSim) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let sim = rt.block_on(start_scenario(s));
    (rt, sim)
}
