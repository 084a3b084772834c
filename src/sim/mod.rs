//! Simulated management clusters for the demo and the tests: a subset of the Kubernetes API
//! server (discovery incl. CRDs, list/get with label and field selectors, server-side tables,
//! watch, merge/JSON/strategic-merge patch, delete with finalizers, the scale subresource, pod
//! logs, pod port-forward) and Maestro's resource-bundle API, served by one axum server on
//! 127.0.0.1 for many clusters at once (`/clusters/<name>/…`), loaded from a scenario YAML
//! (`assets/scenarios/`). Both kube-rs and the real `kubectl` talk to it through the
//! kubeconfig it writes.
//!
//! Must not import `tui`, `nav`, `cli` or `query` (only the leaf `human`, for kubectl's ages): it
//! is a stand-in for the outside world.
//! IO is limited to the loopback listener (`server`, `watch`) and `SimHandle::write_kubeconfig`.

mod call;
mod cells;
mod exec;
mod exec_spdy;
mod maestro;
mod mutate;
mod patch;
mod pod_files;
mod pod_shell;
mod portforward;
pub mod resources;
mod route;
pub mod scenario;
mod seed;
pub mod select;
mod server;
mod spdy;
mod spdy_frames;
pub mod store;
pub mod table;
mod watch;
mod workload;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use scenario::Scenario;

/// What can go wrong starting the simulator or writing its kubeconfig.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("scenario: {0}")]
    Scenario(String),
    #[error("cannot listen on 127.0.0.1: {0}")]
    Bind(std::io::Error),
    #[error("cannot write the kubeconfig {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Starts simulated clusters.
pub struct Sim;

impl Sim {
    /// Serves `scenario` on an ephemeral 127.0.0.1 port until the handle is shut down or dropped.
    pub async fn start(scenario: Scenario) -> Result<SimHandle, SimError> {
        let mut clusters = BTreeMap::new();
        for name in &scenario.clusters {
            clusters.insert(
                name.clone(),
                Mutex::new(store::Cluster::new(name, &scenario)),
            );
        }
        let default = scenario.clusters.first().cloned().unwrap_or_default();
        let state = Arc::new(server::SimState {
            clusters,
            default,
            maestro: Mutex::new(maestro::Maestro::new(&scenario.maestro)),
            writes: Default::default(),
            writes_by_cluster: Default::default(),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(SimError::Bind)?;
        let addr = listener.local_addr().map_err(SimError::Bind)?;
        let state_for_handle = state.clone();
        let app = axum::Router::new()
            .merge(portforward::routes(state.clone(), addr))
            .merge(exec::routes(state.clone()))
            .fallback(server::handle)
            .with_state(state);
        let (tx, rx) = oneshot::channel::<()>();
        // No Nagle delay: the port-forward tunnels write small frames back to back.
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await;
        });
        Ok(SimHandle {
            state: state_for_handle,
            url: format!("http://{addr}"),
            clusters: scenario.clusters.clone(),
            stop: Some(tx),
            task,
        })
    }
}

/// A running simulator. Dropping it stops the server.
pub struct SimHandle {
    /// `http://127.0.0.1:PORT`; the first cluster is also served without a prefix.
    pub url: String,
    /// The simulated cluster (and kubeconfig context) names, current context first.
    pub clusters: Vec<String>,
    state: Arc<server::SimState>,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
}

impl SimHandle {
    /// How many requests that could change something (any method but GET, HEAD and
    /// OPTIONS) the server has received, dry runs included.
    pub fn writes(&self) -> u64 {
        self.state.writes.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// How many requests that could change something reached the API of cluster `name`.
    pub fn writes_to(&self, name: &str) -> u64 {
        let by = self
            .state
            .writes_by_cluster
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        by.get(name).copied().unwrap_or(0)
    }

    /// The API server URL of one cluster.
    pub fn cluster_url(&self, name: &str) -> String {
        format!("{}/clusters/{name}", self.url)
    }

    /// The Maestro server URL (what a port-forward to `svc/maestro` would give).
    pub fn maestro_url(&self) -> String {
        self.url.clone()
    }

    /// The kubeconfig text: one cluster, user and context per simulated cluster.
    pub fn kubeconfig(&self) -> String {
        let clusters: Vec<_> = self
            .clusters
            .iter()
            .map(|n| json!({"name": n, "cluster": {"server": self.cluster_url(n)}}))
            .collect();
        let contexts: Vec<_> = self.clusters.iter().map(|n| json!({"name": n, "context": {"cluster": n, "user": "sim-operator", "namespace": "default"}})).collect();
        let cfg = json!({"apiVersion": "v1", "kind": "Config", "preferences": {}, "clusters": clusters, "contexts": contexts,
            "users": [{"name": "sim-operator", "user": {"token": "tsgnav-sim-token"}}],
            "current-context": self.clusters.first().cloned().unwrap_or_default()});
        yaml_serde::to_string(&cfg).unwrap_or_else(|_| cfg.to_string())
    }

    /// Writes [`Self::kubeconfig`] to `path` and returns the path.
    pub fn write_kubeconfig(&self, path: &Path) -> Result<PathBuf, SimError> {
        std::fs::write(path, self.kubeconfig()).map_err(|source| SimError::Write {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(path.to_path_buf())
    }

    /// Stops the server and waits for it; open watches are closed.
    pub async fn shutdown(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        self.task.abort();
        let _ = (&mut self.task).await;
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}
