//! Live probes for the TUI: runs the read-only probes `update()` asks for through
//! `crate::query` (the same backends as `tsgnav run`, from `query::setup`) on a small tokio
//! runtime, and sends each result to the main loop (which records it, then shows it). Part of the runtime,
//! the IO edge; the query runner's safety gate refuses anything that needs confirmation.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, PoisonError};

use super::Msg;

use crate::query::runner::{gate, Runner, RunnerConfig};
use crate::query::vars::{Source, Vars};
use crate::query::{setup, Event, ProbeRequest, ProbeResult, Status};
use crate::tsg::Library;
use crate::tui::action::{Action, ProbeOutput};

/// Where probes go: the backends' settings plus the kube context for shell probes.
#[derive(Debug, Clone, Default)]
pub struct LiveSettings {
    pub backends: setup::Settings,
    pub context: Option<String>,
    pub kubeconfig: Option<PathBuf>,
}

type Pending = Arc<Mutex<HashMap<String, (String, usize)>>>;

pub struct Probes {
    rt: tokio::runtime::Runtime,
    runner: Runner,
    pending: Pending,
    settings: LiveSettings,
}

impl Probes {
    /// Starts the runtime and the runner; results are sent on `tx`.
    pub fn start(settings: LiveSettings, tx: Sender<Msg>) -> std::io::Result<Probes> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let (etx, mut erx) = tokio::sync::mpsc::unbounded_channel::<Event>();
        let runner = {
            let _enter = rt.enter();
            Runner::new(
                RunnerConfig::default(),
                setup::executors(&settings.backends),
                etx,
            )
        };
        let pending: Pending = Arc::default();
        let map = pending.clone();
        rt.spawn(async move {
            while let Some(ev) = erx.recv().await {
                let Event::Finished { id, result } = ev else {
                    continue;
                };
                let key = map
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(&id.0);
                if let Some((node, probe)) = key {
                    if tx
                        .send(Msg::Probe {
                            node,
                            probe,
                            result,
                        })
                        .is_err()
                    {
                        return;
                    }
                }
            }
        });
        Ok(Probes {
            rt,
            runner,
            pending,
            settings,
        })
    }

    /// Submits probe `probe` of `node`; returns an action to report at once (a refusal, a
    /// missing value, or "running").
    pub fn run(
        &self,
        lib: &Library,
        node: &str,
        probe: usize,
        bindings: &BTreeMap<String, String>,
    ) -> Action {
        let index = crate::nav::Index::new(lib);
        let Some(p) = index.node(lib, node).and_then(|n| n.probes.get(probe)) else {
            return Action::Notice(format!("No probe {} in {node}.", probe + 1));
        };
        let mut vars = Vars::new();
        for (k, v) in bindings {
            vars.set(k, v, Source::Flag);
        }
        let fail = |e: String| Action::ProbeFinished {
            node: node.to_string(),
            probe,
            result: Err(e),
        };
        let resolved = match vars.resolve(p.lang, &p.code) {
            Ok(b) => b,
            Err(e) => return fail(e.to_string()),
        };
        let mut req = match ProbeRequest::from_probe(node, p, resolved) {
            Ok(r) => r,
            Err(e) => return fail(e.to_string()),
        };
        req.target.kubeconfig = self.settings.kubeconfig.clone();
        if req.target.kube_context.is_none() {
            req.target.kube_context = self.settings.context.clone();
        }
        if let Some(e) = gate(&req) {
            return fail(e.to_string());
        }
        let target = req.target.describe();
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(req.id.0.clone(), (node.to_string(), probe));
        let _enter = self.rt.enter();
        self.runner.submit(req);
        Action::Notice(format!("Running probe {} ({target})…", probe + 1))
    }
}

/// A query result as the UI shows it.
pub fn convert(r: &ProbeResult) -> Result<ProbeOutput, String> {
    let head = format!("$ {}   [{} · {}]", r.command_as_run, r.backend, r.target);
    match &r.status {
        Status::Ok { exit } => Ok(ProbeOutput {
            exit: Some(*exit),
            output: format!("{head}\n{}", r.output.text()),
            assigns: r
                .captured
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            series: r
                .series
                .iter()
                .map(|s| crate::tui::app::ChartSeries {
                    label: label(&s.labels),
                    points: s.points.clone(),
                })
                .collect(),
        }),
        Status::Failed(e) => Err(format!("{head}\nfailed: {e}\n{}", r.output.text())),
    }
}

/// `{pod="router-1", node="n1"}`, or `{}` for a series without labels.
fn label(labels: &BTreeMap<String, String>) -> String {
    let inner: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
    format!("{{{}}}", inner.join(", "))
}
