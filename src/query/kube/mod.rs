//! The native Kubernetes backend: the common `kubectl get|describe` forms of a shell probe
//! ([`parse`], pure) run through kube-rs with API discovery, so custom resources (MTPNC,
//! NodeInfo, ManifestWork, …) work without kubectl. The answer is what kubectl would print,
//! plus the table and the raw objects. [`fanout`] runs one command across every context
//! matching a glob (`mc-*`). `kubectl get … -o json | jq …` runs natively too ([`jq`], with
//! jaq), and so does one `kubectl port-forward` ([`portforward`], until stopped); other pipes
//! and commands are not accepted, so the runner sends them to the shell.
//!
//! Part of `query` (the IO layer): imports `query` types and `tsg::shell`; never `cli`,
//! `tui`, `nav` or `sim`.

pub mod client;
pub mod connect;
pub mod error;
pub mod exec;
pub mod expand;
pub mod fanout;
pub mod jq;
pub mod jsonpath;
pub mod kubeconfigs;
pub mod parse;
pub mod portforward;
pub mod render;
pub mod resolve;
pub mod run;
pub mod sort;

use std::path::PathBuf;

use chrono::Utc;
use futures::future::BoxFuture;

pub use error::KubeError;
pub use fanout::{fan_out, FanOut, FanOutOptions, Progress};
pub use parse::{parse_script, KubeCommand, Reject};
pub use run::{run_kube, run_kube_with, KubeOutput};

use super::{
    interruptible, Backend, Cancel, Executor, OutputSink, ProbeError, ProbeRequest, ProbeResult,
    Status,
};
use crate::tsg::invocation::table;
use crate::tsg::Lang;

/// The native kube executor.
#[derive(Debug, Clone, Default)]
pub struct KubeExecutor {
    /// Kubeconfig when the request names none (else `$KUBECONFIG`, else `~/.kube/config`).
    pub kubeconfig: Option<PathBuf>,
    /// Fan out every probe across the contexts matching this glob (`--contexts 'mc-*'`).
    pub contexts: Option<String>,
    /// Contexts queried at once when fanning out (0: the default, 32).
    pub concurrency: usize,
    /// The read-only API proxy a single-context probe goes through, when set.
    pub proxy: Option<super::proxy::SessionProxy>,
}

/// The kubeconfig kubectl would read: `explicit`, else `$KUBECONFIG` (a list is merged when
/// read), else `~/.kube/config`.
pub fn default_kubeconfig(explicit: Option<PathBuf>) -> Option<PathBuf> {
    explicit
        .or_else(|| {
            std::env::var_os("KUBECONFIG")
                .map(PathBuf::from)
                .filter(|p| !p.as_os_str().is_empty())
        })
        .or_else(|| dirs::home_dir().map(|h| h.join(".kube").join("config")))
}

/// The kubeconfig's `current-context`, which kubectl uses when no `--context` is given.
pub fn current_context(explicit: Option<PathBuf>) -> Option<String> {
    let path = default_kubeconfig(explicit)?;
    kubeconfigs::shared(&path).ok()?.current_context.clone()
}

impl KubeExecutor {
    fn kubeconfig_for(&self, req: &ProbeRequest) -> Result<PathBuf, ProbeError> {
        default_kubeconfig(
            req.target
                .kubeconfig
                .clone()
                .or_else(|| self.kubeconfig.clone()),
        )
        .ok_or_else(|| ProbeError::Config {
            detail: "no kubeconfig: pass --kubeconfig or set KUBECONFIG".into(),
        })
    }

    async fn execute(&self, req: ProbeRequest, mut out: OutputSink, cancel: Cancel) -> ProbeResult {
        if let Some(pf) = portforward::parse_probe(&req.code, &req.bindings) {
            return portforward::execute(self, req, pf, out, cancel).await;
        }
        if let Some(x) = exec::parse_probe(&req.code, &req.bindings) {
            return exec::execute(self, req, x, out, cancel).await;
        }
        let started = Utc::now();
        let target = req.target.shown();
        let cmds = match native_form(&req.code, &req.bindings) {
            Ok(c) => c,
            Err(r) => return rejected(req, target, r),
        };
        let as_run = cmds.iter().map(command_text).collect::<Vec<_>>().join("\n");
        let mut written = req.code.trim_end().to_string();
        if let Some(c) = req
            .target
            .kube_context
            .as_ref()
            .filter(|_| self.contexts.is_none())
        {
            written.push_str(&format!("\n# kube context {c}"));
        }
        let mut result = ProbeResult::new(req.id.clone(), Backend::Kube, target, written, started);
        let on = match (&self.contexts, &req.target.kube_context) {
            (Some(glob), _) => format!("each context matching {glob}"),
            (None, Some(c)) => format!("context {c}"),
            (None, None) => "the kubeconfig's current context".into(),
        };
        result.ran = Some(format!("native Kubernetes API ({on}): {as_run}"));
        let kubeconfig = match self.kubeconfig_for(&req) {
            Ok(k) => k,
            Err(e) => {
                result.status = Status::Failed(e);
                return result;
            }
        };
        let work = async {
            let mut tables = Vec::new();
            let mut raw = Vec::new();
            let mut contexts = Vec::new();
            for cmd in &cmds {
                let (text, table, objs) = match &self.contexts {
                    Some(pattern) => {
                        let f = fanout::fan_out_probe(cmd, &kubeconfig, pattern, &self.fan(&req))
                            .await?;
                        contexts.extend(f.contexts);
                        (f.text, Some(f.table), f.raw)
                    }
                    None => {
                        let o = self.one(cmd, &req, &kubeconfig).await?;
                        (o.text, o.table, o.raw)
                    }
                };
                out.write_str(&text);
                tables.extend(table);
                raw.extend(objs);
            }
            Ok::<_, KubeError>((tables, raw, contexts))
        };
        // Each request times out after `req.timeout` with a message naming it; the outer
        // limit is a backstop for runs of several requests.
        let backstop = req.timeout + std::time::Duration::from_millis(500);
        result.status = match interruptible(work, backstop, &cancel).await {
            Ok(Ok((tables, raw, contexts))) => {
                result.table = run::merge(tables.clone());
                result.tables = tables;
                result.raw = Some(serde_json::Value::Array(raw));
                result.contexts = super::ContextAnswer::collect(
                    contexts.iter().map(|(c, e)| (c.as_str(), e.clone())),
                );
                if let Some(glob) = &self.contexts {
                    result.target = format!("{} contexts matching {glob:?}", result.contexts.len());
                }
                fanout_status(&result.contexts)
            }
            Ok(Err(e)) => {
                out.write_str(&format!("error: {e}\n"));
                Status::Failed(e.to_probe_error())
            }
            Err(e) => Status::Failed(e),
        };
        result.output = out.finish();
        result.ended = Utc::now();
        result
    }
}

/// The result of a probe the native backend does not take: a value is missing, or the form
/// is one only kubectl answers and kubectl is not installed.
fn rejected(req: ProbeRequest, target: String, r: Reject) -> ProbeResult {
    let e = match r {
        Reject::MissingVar(name) => ProbeError::MissingVar { name },
        // Only taken when kubectl is missing (else the runner hands it to the shell).
        Reject::NotNative(why) => ProbeError::Refused {
            class: req.class,
            reason: format!(
                "tsgnav does not answer this form itself ({why}) and kubectl, which \
                 would, is not on PATH"
            ),
            what: "install kubectl, or write the probe with -o jsonpath, \
                   custom-columns, name, json or wide"
                .into(),
        },
    };
    ProbeResult::failed(req.id, Backend::Kube, target, req.code, e)
}

/// A fan-out's status: failed when a context failed (its answer is a row of the table, and
/// the healthy contexts' rows are all kept), else ok.
pub(crate) fn fanout_status(contexts: &[super::ContextAnswer]) -> Status {
    let failed: Vec<&super::ContextAnswer> =
        contexts.iter().filter(|a| a.error.is_some()).collect();
    match failed.first() {
        None => Status::Ok { exit: 0 },
        Some(first) => Status::Failed(ProbeError::Unsupported {
            detail: format!(
                "{} of {} contexts failed ({}: {}); the others' answers are above",
                failed.len(),
                contexts.len(),
                first.context,
                first.error.as_deref().unwrap_or_default()
            ),
        }),
    }
}

impl KubeExecutor {
    /// How a request fans out: the executor's concurrency, the request's timeout and namespace.
    fn fan(&self, req: &ProbeRequest) -> FanOutOptions {
        FanOutOptions {
            concurrency: if self.concurrency == 0 {
                fanout::DEFAULT_CONCURRENCY
            } else {
                self.concurrency
            },
            timeout: req.timeout,
            namespace: req.target.namespace.clone(),
        }
    }

    /// One command on the request's one context (under the read-only proxy's policy when
    /// set, on the proxy's own upstream client).
    async fn one(
        &self,
        cmd: &KubeCommand,
        req: &ProbeRequest,
        kubeconfig: &std::path::Path,
    ) -> Result<KubeOutput, KubeError> {
        let context = cmd
            .context
            .as_deref()
            .or(req.target.kube_context.as_deref());
        let ns = req.target.namespace.as_deref();
        let Some(p) = &self.proxy else {
            return run_kube_with(cmd, kubeconfig, context, ns, req.timeout).await;
        };
        let client = (p.native_client(kubeconfig, context, req.timeout).await).map_err(|e| {
            KubeError::Kubeconfig {
                path: kubeconfig.display().to_string(),
                detail: e.to_string(),
            }
        })?;
        run::run_on(&client, cmd, ns).await
    }
}

/// The native commands of a script, when their answer is kubectl's exactly: `describe`
/// (a layout per kind) and `-o yaml` (Go's YAML quoting) go to kubectl.
pub fn native_form(
    code: &str,
    bindings: &std::collections::BTreeMap<String, String>,
) -> Result<Vec<KubeCommand>, Reject> {
    let cmds = parse_script(code, bindings)?;
    for c in &cmds {
        if c.verb == parse::Verb::Describe {
            return Err(Reject::NotNative(
                "kubectl describe prints a layout per kind that only kubectl has".into(),
            ));
        }
        if c.format == parse::Format::Yaml {
            return Err(Reject::NotNative(
                "-o yaml is printed by kubectl (its YAML quoting)".into(),
            ));
        }
    }
    Ok(cmds)
}

/// Whether an executable `name` is on `PATH`.
pub fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p)
            .any(|d| std::fs::metadata(d.join(name)).is_ok_and(|m| m.is_file()))
    })
}

/// Whether kubectl is on `PATH`: looked for until it is found once (an install during the
/// session is seen; once found, it is taken to stay).
fn kubectl_installed() -> bool {
    static FOUND: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if FOUND.load(std::sync::atomic::Ordering::Relaxed) {
        return true;
    }
    let found = on_path("kubectl");
    FOUND.store(found, std::sync::atomic::Ordering::Relaxed);
    found
}

/// Whether a script runs kubectl anywhere, pipelines included.
pub fn uses_kubectl(code: &str) -> bool {
    crate::tsg::shell::parse(code)
        .commands
        .iter()
        .any(|c| matches!(c.name().map(crate::tsg::shell::basename), Some("kubectl")))
}

/// A command as a person would type it again.
fn command_text(c: &KubeCommand) -> String {
    let q = |s: &str| {
        if s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=,:".contains(c))
        {
            s.to_string()
        } else {
            format!("'{}'", s.replace('\'', r"'\''"))
        }
    };
    let mut w = vec![
        "kubectl".to_string(),
        if c.verb == parse::Verb::Get {
            "get"
        } else {
            "describe"
        }
        .to_string(),
    ];
    for t in &c.targets {
        w.push(match &t.name {
            Some(n) => format!("{}/{}", q(&t.resource), q(n)),
            None => q(&t.resource),
        });
    }
    if c.all_namespaces {
        w.push("-A".into());
    } else if let Some(n) = &c.namespace {
        w.extend([table::KUBE_NS.into(), q(n)]);
    }
    if let Some(l) = &c.labels {
        w.extend(["-l".into(), q(l)]);
    }
    if let Some(f) = &c.fields {
        w.push(format!("--field-selector={}", q(f)));
    }
    match &c.format {
        parse::Format::Table => {}
        parse::Format::Wide => w.push("-o wide".into()),
        parse::Format::Json => w.push("-o json".into()),
        parse::Format::Yaml => w.push("-o yaml".into()),
        parse::Format::Name => w.push("-o name".into()),
        parse::Format::JsonPath(t) => w.push(format!("-o jsonpath={}", q(t))),
        parse::Format::CustomColumns(cols) => {
            let spec: Vec<String> = cols.iter().map(|(h, e)| format!("{h}:{e}")).collect();
            w.push(format!("-o custom-columns={}", q(&spec.join(","))));
        }
    }
    if !c.label_columns.is_empty() {
        w.extend(["-L".into(), q(&c.label_columns.join(","))]);
    }
    if let Some(by) = &c.sort_by {
        w.push(format!("--sort-by={}", q(by)));
    }
    if c.no_headers {
        w.push("--no-headers".into());
    }
    if let Some(ctx) = &c.context {
        w.push(format!("--context={}", q(ctx)));
    }
    if let Some(jq) = &c.jq {
        w.push("| jq".into());
        w.extend(jq.raw.then(|| "-r".to_string()));
        w.extend(jq.compact.then(|| "-c".to_string()));
        for (n, v) in &jq.args {
            w.extend(["--arg".to_string(), q(n), q(v)]);
        }
        w.push(q(&jq.filter));
    }
    w.join(" ")
}

impl Executor for KubeExecutor {
    fn backend(&self) -> Backend {
        Backend::Kube
    }

    /// Shell probes made only of native `kubectl get` forms whose answer is kubectl's
    /// exactly, or exactly one native `kubectl port-forward` (a missing variable still
    /// counts: the run reports it). Other kubectl probes go to the shell, where the real
    /// kubectl answers them; when kubectl is not installed they are taken here and refused.
    fn accepts(&self, req: &ProbeRequest) -> bool {
        let native = |r: Result<(), Reject>| !matches!(r, Err(Reject::NotNative(_)));
        req.lang == Lang::Shell
            && (match (
                portforward::parse_probe(&req.code, &req.bindings),
                exec::parse_probe(&req.code, &req.bindings),
            ) {
                (Some(pf), _) => native(pf.map(|_| ())),
                (None, Some(x)) => native(x.map(|_| ())),
                (None, None) => native(native_form(&req.code, &req.bindings).map(|_| ())),
            } || (uses_kubectl(&req.code) && !kubectl_installed()))
    }

    fn run(
        &self,
        req: ProbeRequest,
        out: OutputSink,
        cancel: Cancel,
    ) -> BoxFuture<'_, ProbeResult> {
        Box::pin(self.execute(req, out, cancel))
    }
}
