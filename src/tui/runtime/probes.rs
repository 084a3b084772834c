//! Live probes for the TUI: runs the read-only probes `update()` asks for through
//! `crate::query` (the same backends as `tsgnav run`, from `query::setup`) on a small tokio
//! runtime, and sends each result to the main loop (which records it, then shows it). Part of the runtime,
//! the IO edge; the query runner's safety gate refuses anything that needs confirmation.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, PoisonError};

use std::time::Instant;

use super::stream::Streams;
use super::Msg;

use crate::query::runner::{gate, Runner, RunnerConfig};
use crate::query::tasks::Tasks;
use crate::query::vars::{Source, Vars};
use crate::query::{setup, Cancel, Event, Place, ProbeRequest, ProbeResult, Status};
use crate::tsg::ProbeRef;
use crate::tui::action::{Action, ProbeOutput};
use crate::tui::app::App;
use crate::tui::state::QueryMode;

/// Where probes go: the backends' settings plus the kube context, namespace and kubeconfig
/// for shell probes.
#[derive(Debug, Clone, Default)]
pub struct LiveSettings {
    pub backends: setup::Settings,
    pub context: Option<String>,
    pub kubeconfig: Option<PathBuf>,
    /// The session's namespace (`-n`): where kube commands that name none run.
    pub namespace: Option<String>,
    /// The operator named the kubeconfig (`--kubeconfig`, the config file), so the
    /// confirmation screen names it too (the demo's own is not named).
    pub kubeconfig_named: bool,
    /// `[[policy]]` of the config file, checked where a confirmation is issued.
    pub policies: Vec<crate::mitigate::waves::Policy>,
}

/// Submitted request id → the probe it answers.
pub(super) type Pending = Arc<Mutex<HashMap<String, ProbeRef>>>;

pub struct Probes {
    pub(super) rt: tokio::runtime::Runtime,
    pub(super) runner: Runner,
    pub(super) pending: Pending,
    pub(super) settings: LiveSettings,
    pub(super) tasks: Tasks,
    pub(super) tx: Sender<Msg>,
    /// Write mode: confirmations are issued only while it is on.
    pub(super) write: bool,
    /// Confirmations are sealed to this session.
    pub(super) session: String,
    /// Ids of the read-only probes submitted (what Esc and navigating away may cancel).
    pub(super) diagnostic: Arc<Mutex<std::collections::HashSet<String>>>,
    /// Requests switched with `t` (id → how they were asked), recorded with their run.
    pub(super) switched: Arc<Mutex<HashMap<String, String>>>,
    /// Fan-outs running (`:contexts`), cancelled with their step's probes.
    pub(super) fans: Arc<Mutex<Vec<(ProbeRef, Cancel)>>>,
    /// Mitigations on their confirmation screen: probe → request and preconditions.
    pub(super) prepared: HashMap<ProbeRef, super::flow::Prepared>,
    /// The backends, for runs that build their own runner (the wave engine).
    pub(super) executors: Vec<Arc<dyn crate::query::Executor>>,
    /// The `:waves` plan on screen or the run under way.
    pub(super) waves: super::waves::WaveRuns,
}

impl Probes {
    /// Starts the runtime and the runner; results are sent on `tx`.
    pub fn start(settings: LiveSettings, tx: Sender<Msg>) -> std::io::Result<Probes> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let (etx, erx) = tokio::sync::mpsc::unbounded_channel::<Event>();
        let executors = {
            let _enter = rt.enter();
            setup::executors(&settings.backends)
        };
        let runner = {
            let _enter = rt.enter();
            Runner::new(RunnerConfig::default(), executors.clone(), etx.clone())
        };
        let pending: Pending = Arc::default();
        let map = pending.clone();
        let switched: Arc<Mutex<HashMap<String, String>>> = Arc::default();
        let notes = switched.clone();
        let tasks = {
            let _enter = rt.enter();
            Tasks::new(runner.clone(), etx.clone())
        };
        let task_list = tasks.clone();
        let ui = tx.clone();
        rt.spawn(relay(erx, map, notes, task_list, tx));
        let session = format!(
            "tui-{}-{}",
            std::process::id(),
            chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default()
        );
        Ok(Probes {
            rt,
            runner,
            pending,
            settings,
            tasks,
            tx: ui,
            write: false,
            session,
            prepared: HashMap::new(),
            diagnostic: Arc::default(),
            switched,
            fans: Arc::default(),
            executors,
            waves: Default::default(),
        })
    }

    /// The request for `probe` with these values, aimed at the session's kube context
    /// (`App::context`: `--context`, the alert's, the default, the kubeconfig's current one)
    /// and kubeconfig unless the probe names its own, and at the place it runs in.
    pub(super) fn request(
        &self,
        app: &App,
        probe: &ProbeRef,
        bindings: &BTreeMap<String, String>,
    ) -> Result<ProbeRequest, String> {
        let lib = &app.lib;
        let node = probe.node.as_str();
        // The session's index (kept with the library as guides arrive), not one built again
        // over the whole library for each run.
        let index = &app.nav.index;
        let Some(p) = index
            .node(lib, node)
            .and_then(|n| n.probes.get(probe.index))
        else {
            return Err(format!("No probe {} in {node}.", probe.index + 1));
        };
        let mut vars = Vars::new();
        for (k, v) in bindings {
            vars.set(k, v, Source::Flag);
        }
        let resolved = vars.resolve(p.lang, &p.code).map_err(|e| e.to_string())?;
        let node_shell = self.settings.backends.node_shell.as_ref();
        let mut req = ProbeRequest::from_probe_with(node, p, resolved, node_shell)
            .map_err(|e| e.to_string())?;
        req.target.kubeconfig = self.settings.kubeconfig.clone();
        // A namespace hint written as `${OCM_NAMESPACE}` is named by its value.
        if let Some(ns) = req.target.namespace.as_mut().filter(|n| n.contains('$')) {
            let values: Vec<(String, String)> = bindings
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            *ns = crate::tui::mitigation::show_values(ns, &values);
        }
        if req.target.kube_context.is_none() {
            req.target.kube_context = app.context().or_else(|| self.settings.context.clone());
        }
        // A shell probe runs in the jail; what tsgnav answers itself (the native kube
        // backend, Prometheus …) runs in tsgnav, on this machine.
        let shell = self
            .runner
            .route(&req)
            .is_ok_and(|e| e.backend() == crate::query::Backend::Shell);
        if shell && req.target.place == Place::Local {
            let jail = crate::query::jail::isolation(self.settings.backends.sandbox.jail);
            if jail == crate::query::jail::Isolation::Jailed {
                req.target.place = Place::Jail;
            }
        }
        if p.lang == crate::tsg::Lang::Shell {
            req.target.default_namespace = self.settings.namespace.clone();
            if req.target.namespace.is_none() {
                req.target.namespace = self.settings.namespace.clone();
            }
        }
        Ok(req)
    }

    /// Sends `req`'s result back as the result of `probe`.
    pub(super) fn track(&self, req: &ProbeRequest, probe: &ProbeRef) {
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(req.id.0.clone(), probe.clone());
    }

    /// Submits `probe`; returns an action to report at once (a refusal, a missing value, or
    /// "running").
    /// `mode` is how `t` switched a PromQL probe, if it did.
    pub fn run(
        &self,
        app: &App,
        probe: &ProbeRef,
        bindings: &BTreeMap<String, String>,
        mode: Option<QueryMode>,
    ) -> Action {
        let fail = |e: String| Action::ProbeFinished {
            probe: probe.clone(),
            result: Err(e),
        };
        let mut req = match self.request(app, probe, bindings) {
            Ok(r) => r,
            Err(e) => return fail(e),
        };
        let how = super::range::switch(&mut req, mode);
        if let Some(e) = gate(&req) {
            return fail(e.to_string());
        }
        let target = req.target.shown();
        self.track(&req, probe);
        self.diagnostic
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(req.id.0.clone());
        let said = match how {
            Some(how) => {
                let said = format!(" as {how}");
                self.switched
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(req.id.0.clone(), format!("Prometheus {how}"));
                said
            }
            None => String::new(),
        };
        let _enter = self.rt.enter();
        self.runner.submit(req);
        Action::ProbeStarted {
            probe: probe.clone(),
            what: format!(
                "Running probe {}{said} ({target})… Esc cancels it.",
                probe.index + 1
            ),
        }
    }

    /// Cancels the read-only probes of `node` still running; how many.
    pub fn cancel_node(&self, node: &str) -> usize {
        let ids: Vec<String> = {
            let pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
            let diagnostic = self
                .diagnostic
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            pending
                .iter()
                .filter(|(id, p)| p.is_in(node) && diagnostic.contains(*id))
                .map(|(id, _)| id.clone())
                .collect()
        };
        for id in &ids {
            self.runner.cancel(&crate::query::ProbeId(id.clone()));
        }
        let fans = self.fans.lock().unwrap_or_else(PoisonError::into_inner);
        let fanned = fans.iter().filter(|(p, _)| p.is_in(node));
        ids.len() + fanned.inspect(|(_, c)| c.cancel()).count()
    }
}

/// Passes the runner's events on to the main loop: each finished run (with how `t` asked
/// it), and, folded by [`Streams`], the progress of the runs still printing.
async fn relay(
    mut erx: tokio::sync::mpsc::UnboundedReceiver<Event>,
    map: Pending,
    notes: Arc<Mutex<HashMap<String, String>>>,
    task_list: Tasks,
    tx: Sender<Msg>,
) {
    let mut streams = Streams::default();
    loop {
        let ev = match streams.wait(Instant::now()) {
            Some(w) => match tokio::time::timeout(w, erx.recv()).await {
                Ok(ev) => ev,
                Err(_) => {
                    send_progress(&mut streams, &map, &tx);
                    continue;
                }
            },
            None => erx.recv().await,
        };
        let (id, mut result) = match ev {
            None => return,
            Some(Event::Output { id, chunk }) => {
                streams.fold(&id.0, &chunk);
                send_progress(&mut streams, &map, &tx);
                continue;
            }
            Some(Event::Finished { id, result }) => {
                if let Some(last) = streams.end(&id.0) {
                    send(last, &map, &tx);
                }
                (id, result)
            }
            Some(Event::Started { .. }) => continue,
        };
        let note = notes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id.0);
        if let Some(note) = note {
            result.ran.get_or_insert(note);
        }
        if task_list.list().iter().any(|t| t.probe == id) {
            let _ = tx.send(Msg::Ui(Action::Tasks(super::flow::running(&task_list))));
        }
        let key = map
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id.0);
        if let Some(probe) = key {
            if tx.send(Msg::Probe { probe, result }).is_err() {
                return;
            }
        }
    }
}

/// Sends the progress that is due of the runs the navigator waits for.
fn send_progress(streams: &mut Streams, map: &Pending, tx: &Sender<Msg>) {
    for p in streams.due(Instant::now()) {
        send(p, map, tx);
    }
}

/// Sends one run's progress, when the navigator waits for that run.
fn send(p: super::stream::Progress, map: &Pending, tx: &Sender<Msg>) {
    let probe = map
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&p.id)
        .cloned();
    if let Some(probe) = probe {
        let _ = tx.send(Msg::Ui(Action::ProbeProgress {
            probe,
            bytes: p.bytes,
            tail: p.tail,
        }));
    }
}

/// A query result as the UI shows it: its outcome, the command line it ran as, its output.
pub fn convert(r: &ProbeResult) -> ProbeOutput {
    convert_stored(r, None)
}

/// [`convert`], naming the evidence blob that holds the whole output (when it was stored as
/// one): the screen keeps a bounded part of a large output ([`super::store::shown`]).
pub fn convert_stored(r: &ProbeResult, blob: Option<&str>) -> ProbeOutput {
    let head = format!("$ {}   [{} · {}]", r.command_as_run, r.backend, r.target);
    let text = super::store::shown(&r.output, blob);
    let output = match &r.status {
        Status::Ok { .. } => format!("{head}\n{text}"),
        Status::Failed(e) => format!("{head}\nfailed: {e}\n{text}"),
    };
    ProbeOutput {
        outcome: r.outcome(),
        output,
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
    }
}

/// `{pod="router-1", node="n1"}`, or `{}` for a series without labels.
fn label(labels: &BTreeMap<String, String>) -> String {
    let inner: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
    format!("{{{}}}", inner.join(", "))
}

impl Probes {
    /// The session's kube context (what write mode asks to be typed).
    pub fn context(&self) -> Option<&str> {
        self.settings.context.as_deref()
    }
}
