//! One mitigation step's probes on one target, the path every confirmed change takes
//! outside the confirmation screen: `tsgnav run FILE#step --write`, each context of a wave
//! plan (`tsgnav run --waves` and the navigator's `:waves`). Per probe: the values it needs,
//! its request aimed at the chosen context, namespace and kubeconfig, the confirmation bound
//! to its exact inputs ([`WriteMode`], with `[[policy]]` by context name), the prior-state
//! capture, the gate, then the run (in the jail, through the API proxy with that context's
//! own grant). Part of the runtime, the IO edge; must not import `cli`.

use std::sync::Arc;

use crate::evidence::{self, PriorState, Record};
use crate::mitigate::Captured;
use crate::query::runner::{Runner, RunnerConfig};
use crate::query::vars::{canonical, Source, Vars};
use crate::query::{fanout, Cancel, Executor, ProbeError, ProbeRequest, ProbeResult};
use crate::tsg::{Lang, SafetyClass};

pub use super::waves_capture::Prior;
pub use super::waves_write_mode::WriteMode;

/// One probe's run: the result, whether it was not run on purpose (refused, long-running),
/// and the records that go into the journal before it (confirmation, prior state).
pub type Step = (ProbeResult, bool, Vec<Record>);

/// Where the probes go: kube context, namespace and kubeconfig (as kubectl's flags), and the
/// glob a read-only shell probe fans out over (`--contexts`), if any.
#[derive(Debug, Clone, Default)]
pub struct Aim {
    pub context: Option<String>,
    pub namespace: Option<String>,
    pub kubeconfig: Option<std::path::PathBuf>,
    pub contexts: Option<String>,
}

/// The values probe `p` needs, from `vars` and then the environment.
fn resolve(
    p: &crate::tsg::Probe,
    vars: &mut Vars,
) -> Result<std::collections::BTreeMap<String, String>, ProbeError> {
    // A value the operator exported in their shell counts, below every other source.
    // A command typed inside a shell also needs the values of the way in (`$POD`).
    let text = match &p.runs_in {
        Some(r) => format!("{}\n{}", p.code, r.via),
        None => p.code.clone(),
    };
    for name in crate::query::vars::needed(p.lang, &text) {
        if vars.get(&name).is_none() {
            let env = std::env::var(canonical(&name)).or_else(|_| std::env::var(&name));
            if let Ok(v) = env {
                vars.set(&name, &v, Source::Environment);
            }
        }
    }
    vars.resolve(p.lang, &text)
}

impl Aim {
    /// Aims `req` (of probe `p`) at this kubeconfig, namespace and context, unless the probe
    /// names its own.
    fn apply(&self, p: &crate::tsg::Probe, req: &mut ProbeRequest) {
        req.target.kubeconfig = self.kubeconfig.clone();
        if p.lang == Lang::Shell {
            req.target.default_namespace = self.namespace.clone();
            if req.target.namespace.is_none() {
                req.target.namespace = self.namespace.clone();
            }
        }
        if req.target.kube_context.is_none() {
            // As kubectl: no --context means the kubeconfig's current context.
            req.target.kube_context = self.context.clone().or_else(|| {
                (p.lang == Lang::Shell && fanout::refusal(&p.code).is_none())
                    .then(|| crate::query::kube::current_context(self.kubeconfig.clone()))
                    .flatten()
            });
        }
    }
}

/// Each runnable probe in order; the bool says "not run on purpose" (refused,
/// long-running); the records go into the journal before the run (prior state,
/// confirmation). Prior-state reads are steps of their own.
pub async fn run_probes(
    aim: &Aim,
    node_id: &str,
    probes: &[crate::tsg::Probe],
    vars: Vars,
    executors: Vec<Arc<dyn Executor>>,
    modes: (
        &WriteMode,
        &[String],
        Option<&crate::query::entry::NodeShell>,
    ),
) -> Vec<(ProbeResult, bool, Vec<Record>)> {
    let ran = run_probes_with(aim, node_id, probes, vars, executors, modes, Prior::Capture).await;
    ran.steps
}

/// What [`run_probes_with`] ran.
pub struct Ran {
    /// The steps not yet journaled, in order.
    pub steps: Vec<Step>,
    /// Every prior state captured before a change (journaled or not).
    pub priors: Vec<crate::evidence::PriorState>,
}

/// As [`run_probes`], with the prior state treated as `prior` says: with a [`Prior::Journal`]
/// gate, each change waits until its capture is journaled, and does not run when that fails
/// (those steps are then not in [`Ran::steps`]); with [`Prior::Journaled`] nothing is
/// captured.
pub async fn run_probes_with(
    aim: &Aim,
    node_id: &str,
    probes: &[crate::tsg::Probe],
    mut vars: Vars,
    executors: Vec<Arc<dyn Executor>>,
    (mode, pre, node_shell): (
        &WriteMode,
        &[String],
        Option<&crate::query::entry::NodeShell>,
    ),
    prior: Prior<'_>,
) -> Ran {
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let config = RunnerConfig {
        concurrency: if aim.contexts.is_some() {
            crate::query::kube::fanout::DEFAULT_CONCURRENCY
        } else {
            RunnerConfig::default().concurrency
        },
        ..RunnerConfig::default()
    };
    let run = Run {
        aim,
        node_id,
        mode,
        pre,
        node_shell,
        runner: Runner::new(config, executors, tx),
        prior,
    };
    let mut out = Out::default();
    for p in probes.iter().filter(|p| p.lang != Lang::Text) {
        // A mitigation stops at its first failed or refused step: the rest do not run.
        if let Some(e) = mode.enabled.then(|| not_run(&out.steps)).flatten() {
            out.steps.push((failed(node_id, p, e), false, Vec::new()));
            continue;
        }
        run.probe(p, &mut vars, &mut out).await;
    }
    let mut steps = out.steps;
    steps.drain(..out.journaled);
    Ran {
        steps,
        priors: out.priors,
    }
}

/// The steps of one [`run_probes_with`] so far.
#[derive(Default)]
struct Out {
    steps: Vec<Step>,
    /// How many of `steps` are in the journal already (the captures sent through a gate).
    journaled: usize,
    priors: Vec<crate::evidence::PriorState>,
}

/// What every probe of one [`run_probes`] shares.
struct Run<'a> {
    aim: &'a Aim,
    node_id: &'a str,
    mode: &'a WriteMode,
    pre: &'a [String],
    node_shell: Option<&'a crate::query::entry::NodeShell>,
    runner: Runner,
    prior: Prior<'a>,
}

impl Run<'_> {
    /// The request of `p`, aimed and confirmed (with the confirmation's record), or the step
    /// that says why it does not run.
    fn request(
        &self,
        p: &crate::tsg::Probe,
        vars: &mut Vars,
    ) -> Result<(ProbeRequest, Option<evidence::Confirmation>), Box<Step>> {
        let node_id = self.node_id;
        let bindings = resolve(p, vars);
        let values = bindings.clone().unwrap_or_default();
        let mut req =
            ProbeRequest::from_probe_with(node_id, p, values, self.node_shell).map_err(|e| {
                // A node-shell command is refused on purpose, not failed.
                let refused = matches!(e, ProbeError::Refused { .. });
                Box::new((failed(node_id, p, e), refused, Vec::new()))
            })?;
        self.aim.apply(p, &mut req);
        if req.class == SafetyClass::LongRunning {
            let e = ProbeError::Refused {
                class: req.class,
                reason: "it runs until stopped".into(),
                what: "the TUI runs it as a background task; tsgnav run does not".into(),
            };
            return Err(Box::new((failed(node_id, p, e), true, Vec::new())));
        }
        let confirmation = (self.mode.confirm(&mut req, node_id, self.pre))
            .map_err(|e| Box::new((failed(node_id, p, e), true, Vec::new())))?;
        if let Err(e) = bindings {
            return Err(Box::new((failed(node_id, p, e), false, Vec::new())));
        }
        // A probe that escapes the chosen target is refused before anything of it runs,
        // the prior-state capture included.
        if let Some(e) = crate::query::runner::target_escape(&req, req.class) {
            return Err(Box::new((failed(node_id, p, e), true, Vec::new())));
        }
        Ok((req, confirmation))
    }

    /// The prior-state capture of confirmed request `req`, journaled first when there is a
    /// gate; the records left for the change's step, or the step that says why the change
    /// does not run. An object whose prior state was captured already (by an earlier probe
    /// of this run, or journaled by an earlier run of the step) keeps that first value: a
    /// second read would see the change, and a restore must bring back what was there before
    /// the first one.
    async fn capture(
        &self,
        p: &crate::tsg::Probe,
        req: &ProbeRequest,
        mut before: Vec<Record>,
        out: &mut Out,
    ) -> Result<Vec<Record>, Box<Step>> {
        let had: &[PriorState] = match self.prior {
            Prior::Journaled(_, had) => had,
            _ => &[],
        };
        let planned = crate::mitigate::plan(&req.code, &req.bindings);
        let read = matches!(self.prior, Prior::Journal(_) | Prior::Capture)
            || (planned.iter()).any(|c| !known(had, &out.priors, &c.resource, &c.field));
        let mut new = 0;
        let caps = match read {
            true => crate::query::capture::capture(&self.runner, req).await,
            false => Ok(Vec::new()),
        };
        match caps {
            Ok(caps) => {
                for (r, prior) in caps {
                    out.steps.push((r, false, std::mem::take(&mut before)));
                    let fresh = |c: &Captured| !known(had, &out.priors, &c.resource, &c.field);
                    let Some(c) = prior.filter(fresh) else {
                        continue;
                    };
                    let ps = crate::tui::runtime::convert::prior_state(c);
                    out.priors.push(ps.clone());
                    before.push(Record::PriorState(ps));
                    new += 1;
                }
            }
            Err(e) => return Err(Box::new((failed(self.node_id, p, e), false, before))),
        }
        let gate = match &self.prior {
            Prior::Journal(gate) => gate,
            Prior::Journaled(gate, _) if new > 0 => gate,
            _ => return Ok(before),
        };
        let steps = out.steps[out.journaled..].to_vec();
        if let Err(e) = gate.journal(steps, before.clone()).await {
            let e = ProbeError::Refused {
                class: SafetyClass::Mutating,
                reason: format!("the prior state could not be journaled ({e})"),
                what: "the change did not run: tsgnav does not change what it could not \
                       record; fix the evidence folder, then resume the run"
                    .into(),
            };
            return Err(Box::new((failed(self.node_id, p, e), true, before)));
        }
        out.journaled = out.steps.len();
        Ok(Vec::new())
    }

    /// Probe `p`: its prior-state capture first when it was confirmed, then its run.
    async fn probe(&self, p: &crate::tsg::Probe, vars: &mut Vars, out: &mut Out) {
        let (req, confirmation) = match self.request(p, vars) {
            Ok(r) => r,
            Err(step) => return out.steps.push(*step),
        };
        let runner = &self.runner;
        let mut before = Vec::new();
        if let Some(c) = confirmation {
            let first = vec![Record::Confirmation(c)];
            match self.capture(p, &req, first, out).await {
                Ok(left) => before = left,
                Err(step) => return out.steps.push(*step),
            }
        }
        let refused = crate::query::runner::gate(&req).is_some();
        let fan = self.aim.contexts.as_deref().filter(|_| {
            p.lang == Lang::Shell
                && runner
                    .route(&req)
                    .is_ok_and(|e| e.backend() != crate::query::Backend::Kube)
        });
        let r = match fan {
            Some(pattern) => {
                let kubeconfig = self.aim.kubeconfig.clone();
                fanout::run(runner, req, kubeconfig, pattern, Cancel::new()).await
            }
            None => runner.run(req, Cancel::new()).await,
        };
        vars.absorb(&r.captured);
        out.steps.push((r, refused, before));
    }
}

/// Whether the prior state of `field` of `resource` is in `had` or `mine` already.
fn known(had: &[PriorState], mine: &[PriorState], resource: &str, field: &str) -> bool {
    (had.iter().chain(mine)).any(|h| h.resource == resource && h.field == field)
}

/// In a write run, why the next step does not run: an earlier one failed or was refused.
fn not_run(out: &[(ProbeResult, bool, Vec<Record>)]) -> Option<crate::query::ProbeError> {
    use crate::query::{ProbeError, Status};
    let (first, _, _) = out.iter().find(|(r, _, _)| match &r.status {
        Status::Ok { .. } => false,
        Status::Failed(ProbeError::Refused { class, .. }) => *class != SafetyClass::LongRunning,
        Status::Failed(_) => true,
    })?;
    Some(ProbeError::Refused {
        class: SafetyClass::Mutating,
        reason: format!(
            "not run: the earlier step {} did not succeed ({})",
            first.id,
            first.status.describe()
        ),
        what: "a mitigation stops at its first failed or refused step; fix that step and run \
               the node again"
            .into(),
    })
}

/// A result for a probe that did not reach the runner (bad attributes, refused, missing value).
pub fn failed(node_id: &str, p: &crate::tsg::Probe, e: crate::query::ProbeError) -> ProbeResult {
    let backend = match p.lang {
        Lang::Promql => crate::query::Backend::Prometheus,
        Lang::Kql => crate::query::Backend::Kusto,
        Lang::Http => crate::query::Backend::Http,
        _ => crate::query::Backend::Shell,
    };
    ProbeResult::failed(
        crate::query::ProbeId::new(node_id, p.line),
        backend,
        String::new(),
        p.code.trim().to_string(),
        e,
    )
}
