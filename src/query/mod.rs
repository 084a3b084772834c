//! Live diagnostic queries: the [`Executor`] abstraction every backend implements (shell,
//! kube, prometheus, kusto, http/maestro), the request/result types, cancellation and the
//! [`runner`] that schedules probes on tokio.
//!
//! This is the only module that does network and process IO. It depends on `crate::tsg`
//! (model types) and `crate::safety` (classification); it must not import `cli`, `tui` or `nav`.
//! Failures are data: every run ends in a [`ProbeResult`], never a panic.

pub mod alertmanager;
pub mod attached;
mod cancel;
pub mod capture;
pub mod confirm;
pub mod curl;
pub mod egress;
pub mod entry;
mod error;
pub mod fanout;
mod gate;
pub mod http;
pub mod jail;
pub mod kube;
pub mod kusto;
pub mod net;
mod output;
pub mod prometheus;
pub mod promrange;
pub mod proxy;
pub mod recorded;
mod result;
pub mod runner;
pub mod sandbox;
pub mod scratch;
pub mod setup;
pub mod shell;
pub mod strays;
pub mod tasks;
mod token;
pub mod vars;

pub use cancel::Cancel;
pub use confirm::{issue, preview_command, ConfirmError};
pub use error::{relogin, ProbeError};
pub(crate) use gate::seal;
pub use gate::{confirmed, target_name};
pub use output::{Output, OutputLimits, OutputSink};
pub use result::{ContextAnswer, ProbeResult, Series, Status, Table};

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use futures::future::BoxFuture;
use serde::Serialize;

use crate::tsg::{Lang, Probe, SafetyClass};

/// The default per-probe timeout; a fence's `{timeout=…}` overrides it.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Variable name → value, as the probe will see them (after resolution in [`vars`]).
pub type Bindings = BTreeMap<String, String>;

/// Which backend runs a probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Shell,
    Kube,
    Prometheus,
    Kusto,
    Http,
}

impl Backend {
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Shell => "shell",
            Backend::Kube => "kube",
            Backend::Prometheus => "prometheus",
            Backend::Kusto => "kusto",
            Backend::Http => "http",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Identifies one probe: `FILE#node-slug/LINE` (the line of the fence's first code line).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct ProbeId(pub String);

impl ProbeId {
    /// `node_id` is `FILE#slug`; `line` the probe's first code line.
    pub fn new(node_id: &str, line: usize) -> Self {
        ProbeId(format!("{node_id}/{line}"))
    }
}

impl fmt::Display for ProbeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a probe is aimed. Executors read the fields that concern them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Target {
    /// Kube context (shell and kube backends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kube_context: Option<String>,
    /// Kubeconfig file (shell and kube backends); `None` uses the environment's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kubeconfig: Option<PathBuf>,
    /// Default namespace (kube backend), from `-n` or the fence's `{namespace=…}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The session's namespace (`-n` on the command line): where a kubectl, oc or helm
    /// command that names none runs, written as the context's namespace into the probe's
    /// kubeconfig (as `kubectl config set-context --namespace` would).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_namespace: Option<String>,
    /// Base URL of the server (prometheus, kusto, http).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Kusto cluster name as written in the query (`cluster('…')`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// Kusto database.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    /// PromQL: run as a range query over this window (`{range=1h step=1m}`, `metric[1h]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<promrange::QueryRange>,
    /// Where the command runs: on this machine, in the jail, or inside a pod, node or host
    /// shell the guide enters.
    #[serde(skip_serializing_if = "Place::is_local")]
    pub place: Place,
}

/// Where a probe's command runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Place {
    /// On the operator's machine (tsgnav itself asks the API server, Prometheus, Kusto …).
    #[default]
    Local,
    /// A shell probe in the jail (namespaces + seccomp) on the operator's machine.
    Jail,
    /// Inside this pod's shell (`kubectl exec`, `oc rsh`).
    Pod(String),
    /// On this node (a debug pod, `chroot /host`).
    Node(String),
    /// On another machine (`ssh HOST`).
    Host(String),
}

impl Place {
    pub fn is_local(&self) -> bool {
        *self == Place::Local
    }

    /// Where a probe of the guide runs before the runtime knows of the jail.
    pub fn of(runs_in: Option<&crate::tsg::RunsIn>) -> Place {
        use crate::tsg::ShellKind;
        match runs_in {
            None => Place::Local,
            Some(r) => match r.kind {
                ShellKind::Pod => Place::Pod(r.target.clone()),
                ShellKind::Node => Place::Node(r.target.clone()),
                ShellKind::Host => Place::Host(r.target.clone()),
            },
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Local => f.write_str("local"),
            Place::Jail => f.write_str("jail"),
            Place::Pod(p) => write!(f, "pod {p}"),
            Place::Node(n) => write!(f, "node {n}"),
            Place::Host(h) => write!(f, "host {h}"),
        }
    }
}

impl Target {
    /// A short human description (`context mc-1`, `http://127.0.0.1:9090`, `local shell`).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(u) = &self.url {
            parts.push(u.clone());
        }
        if let Some(d) = &self.database {
            parts.push(format!("database {d}"));
        }
        if let Some(c) = &self.kube_context {
            parts.push(format!("context {c}"));
        }
        if let Some(n) = &self.namespace {
            parts.push(format!("namespace {n}"));
        }
        if parts.is_empty() {
            parts.push("local".to_string());
        }
        parts.join(", ")
    }

    /// The target with where it runs, as every probe header, the journal and `run` show it:
    /// `context mc-westus3-1, namespace gw · jail`. A server's URL says it all.
    pub fn shown(&self) -> String {
        let where_to = self.describe();
        if self.url.is_some() || self.database.is_some() || self.cluster.is_some() {
            return where_to;
        }
        if self.kube_context.is_none() && self.namespace.is_none() {
            return self.place.to_string();
        }
        format!("{where_to} · {}", self.place)
    }
}

/// Proof that a person confirmed a probe that needs confirmation (mutating or unknown): a
/// digest over the exact code, variable values, target and session (see `gate::seal`), issued
/// only by `confirm::issue`. The runner refuses such probes without a
/// matching one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmation {
    session: String,
    digest: [u8; 32],
}

/// One probe to run.
#[derive(Debug, Clone)]
pub struct ProbeRequest {
    pub id: ProbeId,
    pub lang: Lang,
    /// The code as written in the guide (placeholders still in it; executors substitute
    /// them safely from `bindings`).
    pub code: String,
    /// Values for the variables the probe reads.
    pub bindings: Bindings,
    /// Variables the probe assigns (captured after a shell run for later probes).
    pub assigns: Vec<String>,
    pub timeout: Duration,
    pub target: Target,
    /// The probe's safety class (from `crate::safety`).
    pub class: SafetyClass,
    /// Present only when a person confirmed the run.
    pub confirmation: Option<Confirmation>,
}

impl ProbeRequest {
    /// A request for `probe` of node `node_id`: timeout from `{timeout=…}` (default 30 s),
    /// target from the probe's hints, class from `crate::safety::classify_probe`.
    pub fn from_probe(
        node_id: &str,
        probe: &Probe,
        bindings: Bindings,
    ) -> Result<Self, ProbeError> {
        Self::from_probe_with(node_id, probe, bindings, None)
    }

    /// [`ProbeRequest::from_probe`], with a node command run through `node_shell` (from
    /// `[runbooks] node_shell`): such a request is always a write, since it creates a pod.
    pub fn from_probe_with(
        node_id: &str,
        probe: &Probe,
        bindings: Bindings,
        node_shell: Option<&entry::NodeShell>,
    ) -> Result<Self, ProbeError> {
        let timeout = match probe.attrs.get("timeout") {
            Some(t) => parse_duration(t).ok_or_else(|| ProbeError::Config {
                detail: format!(
                    "fence attribute timeout={t} on line {} is not a duration (write e.g. timeout=30s, 2m or 500ms)",
                    probe.line
                ),
            })?,
            None => DEFAULT_TIMEOUT,
        };
        let range = match probe.lang {
            Lang::Promql => promrange::range_of(
                &probe.code,
                probe.attrs.get("range").map(String::as_str),
                probe.attrs.get("step").map(String::as_str),
            )
            .map_err(|e| ProbeError::Config {
                detail: format!("fence attribute on line {}: {e}", probe.line),
            })?
            .map(|(_, r)| r),
            _ => None,
        };
        let target = Target {
            kube_context: probe.hints.kube_context.clone(),
            namespace: probe.hints.namespace.clone(),
            cluster: probe.hints.kusto_cluster.clone(),
            database: probe.hints.kusto_database.clone(),
            range,
            place: Place::of(probe.runs_in.as_ref()),
            ..Target::default()
        };
        let code = entry::local_code_with(probe, &bindings, node_shell)?;
        let class = match &probe.runs_in {
            // A debug pod is created on the node: a write, whatever the command does.
            Some(r) if r.kind == crate::tsg::ShellKind::Node => SafetyClass::Mutating,
            Some(_) => crate::safety::classify(&code).class,
            None => crate::safety::classify_probe(probe),
        };
        Ok(ProbeRequest {
            id: ProbeId::new(node_id, probe.line),
            lang: probe.lang,
            code,
            bindings,
            assigns: probe.assigns.clone(),
            timeout,
            target,
            class,
            confirmation: None,
        })
    }
}

/// `30s`, `2m`, `500ms`, `1h`, or bare seconds (`45`).
pub fn parse_duration(text: &str) -> Option<Duration> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().ok()?;
    let secs = match unit.trim() {
        "" | "s" | "sec" | "secs" => n,
        "ms" => n / 1000.0,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        _ => return None,
    };
    (secs.is_finite() && secs > 0.0).then(|| Duration::from_secs_f64(secs))
}

/// What the runner reports, in order, for each run: `Started`, any number of `Output`
/// chunks, then exactly one `Finished`.
#[derive(Debug, Clone)]
pub enum Event {
    Started {
        id: ProbeId,
        backend: Backend,
        target: String,
    },
    Output {
        id: ProbeId,
        chunk: Vec<u8>,
    },
    Finished {
        id: ProbeId,
        result: Box<ProbeResult>,
    },
}

/// A backend. `run` must honour `req.timeout` and `cancel` (returning a failed result with
/// [`ProbeError::Timeout`] / [`ProbeError::Cancelled`]), stream output through `out`, and
/// never panic: every failure is a [`ProbeResult`] with [`Status::Failed`].
pub trait Executor: Send + Sync {
    fn backend(&self) -> Backend;
    /// Whether this executor can run `req` natively (e.g. the kube backend takes the
    /// `kubectl get` forms it understands; the http backend takes Maestro `curl` calls). The
    /// runner asks the specialised backends first and falls back to the shell.
    fn accepts(&self, req: &ProbeRequest) -> bool {
        let _ = req;
        true
    }
    fn run(&self, req: ProbeRequest, out: OutputSink, cancel: Cancel)
        -> BoxFuture<'_, ProbeResult>;
    /// The most time `run` may spend before the probe itself starts, on top of its timeout
    /// (the shell's proxy pass, discovery-cache fill and jail); none by default.
    fn setup_limit(&self) -> Duration {
        Duration::ZERO
    }
}

/// Runs `fut` until it finishes, `timeout` passes or `cancel` fires. For backends whose
/// work can simply be dropped (HTTP requests); the shell backend kills its process group.
pub async fn interruptible<T>(
    fut: impl std::future::Future<Output = T>,
    timeout: Duration,
    cancel: &Cancel,
) -> Result<T, ProbeError> {
    tokio::select! {
        v = fut => Ok(v),
        _ = tokio::time::sleep(timeout) => Err(ProbeError::Timeout { after: timeout }),
        _ = cancel.cancelled() => Err(ProbeError::Cancelled),
    }
}
