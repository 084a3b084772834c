//! Wiring the backends from one settings struct, so the CLI and the TUI build the same set:
//! shell, native kube, prometheus, kusto and (with a Maestro URL) http. No IO happens here;
//! the executors do theirs when they run.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::{http, kube, kusto, prometheus, shell, Executor};

/// Where the backends point (from flags and the config file).
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub prometheus_url: Option<String>,
    pub prometheus_token_cmd: Option<String>,
    pub kusto_url: Option<String>,
    /// `cluster('…')` name (or its first label) → Kusto URL.
    pub kusto_clusters: BTreeMap<String, String>,
    pub kusto_token_cmd: Option<String>,
    /// Maestro base URL; without it the guides' Maestro `curl` calls run in the shell.
    pub maestro_url: Option<String>,
    pub kubeconfig: Option<PathBuf>,
    /// Fan kube probes out across the kubeconfig contexts matching this glob (`mc-*`).
    pub contexts: Option<String>,
    /// Recorded PromQL/KQL answers (the demo); asked before any live server.
    pub recorded: Option<Arc<super::recorded::Answers>>,
    /// Executors that answer every probe in place of the live backends (a recorded session
    /// being replayed): when set, nothing live is contacted.
    pub replay: Option<Replaying>,
    /// The kernel sandbox of read-only shell probes (`[sandbox]`).
    pub sandbox: super::sandbox::SandboxPolicy,
    /// More doors of the jail: the egress proxy's unix socket, configured forwards.
    pub doors: super::jail::JailDoors,
    /// `[sandbox] allow_hosts`: what a jailed probe may reach through the egress proxy,
    /// beside the Prometheus, Kusto and Maestro URLs above.
    pub allow_hosts: Vec<String>,
    /// Where shell probes note their process groups (see `strays`).
    pub tracker: super::strays::Tracker,
    /// How commands typed in node shells run (`[runbooks] node_shell`); `None` refuses them.
    pub node_shell: Option<super::entry::NodeShell>,
}

/// The executors of a replay (built where the evidence records are read).
#[derive(Clone)]
pub struct Replaying(pub Vec<Arc<dyn Executor>>);

impl std::fmt::Debug for Replaying {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Replaying({} executors)", self.0.len())
    }
}

/// Parses `NAME=URL` (`--kusto-cluster`).
pub fn parse_cluster(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
            Ok((k.trim().to_string(), v.trim().to_string()))
        }
        _ => Err(format!(
            "`{text}` is not NAME=URL (write e.g. --kusto-cluster hcp-prod-eastus=https://…)"
        )),
    }
}

/// The session's egress proxy: the configured query URLs and `allow_hosts` pass.
fn egress(s: &Settings) -> super::egress::Egress {
    let urls = [&s.prometheus_url, &s.kusto_url, &s.maestro_url]
        .into_iter()
        .flatten()
        .chain(s.kusto_clusters.values())
        .chain(&s.allow_hosts);
    super::egress::Egress::new(super::egress::AllowList::from_urls(
        urls.map(String::as_str),
    ))
}

/// The executors, in the order the runner asks them.
pub fn executors(s: &Settings) -> Vec<Arc<dyn Executor>> {
    if let Some(replay) = &s.replay {
        return replay.0.clone();
    }
    // One read-only API proxy for the session, shared by the shell and the native backend.
    let proxy = super::proxy::SessionProxy::default();
    let mut v: Vec<Arc<dyn Executor>> = vec![
        Arc::new(shell::ShellExecutor {
            sandbox: s.sandbox.clone(),
            tracker: s.tracker.clone(),
            proxy: proxy.clone(),
            doors: s.doors.clone(),
            egress: Some(egress(s)),
            ..shell::ShellExecutor::default()
        }),
        Arc::new(kube::KubeExecutor {
            kubeconfig: s.kubeconfig.clone(),
            contexts: s.contexts.clone(),
            proxy: Some(proxy),
            ..kube::KubeExecutor::default()
        }),
        Arc::new(prometheus::PrometheusExecutor::new(
            s.prometheus_url.clone(),
            s.prometheus_token_cmd.clone(),
        )),
        Arc::new(kusto::KustoExecutor::new(
            s.kusto_url.clone(),
            s.kusto_clusters.clone(),
            s.kusto_token_cmd.clone(),
        )),
    ];
    if let Some(answers) = &s.recorded {
        for backend in [super::Backend::Prometheus, super::Backend::Kusto] {
            let rec = super::recorded::RecordedExecutor {
                backend,
                answers: answers.clone(),
            };
            v.insert(0, Arc::new(rec));
        }
    }
    if s.maestro_url.is_some() {
        v.push(Arc::new(http::HttpExecutor::new(s.maestro_url.clone())));
    }
    v
}
