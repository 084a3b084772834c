//! The wave engine, one for `tsgnav run --waves` and the navigator's `:waves`: per context,
//! the prior state is captured and journaled before the change may run (each context's task
//! sends its capture to the wave's loop, which owns the observer, and waits for the answer,
//! [`super::waves_capture`]; a context an earlier run of the step captured is not captured
//! again), the change runs with that context's own confirmation (the
//! same path as a single confirmed run, [`super::waves_probes`]: the jail, the API proxy's
//! grant), then the gates run on that context. A wave starts only when every context of the
//! one before it validated; the first failure stops the run, and nothing past that wave is
//! changed. After a wave, gates with `{soak=5m abort_if="<PromQL>"}` are evaluated every
//! `every=` (30 s by default) until the soak ends; a breach stops the run the same way. The
//! caller's [`Observer`] then chooses: restore the failed contexts, the whole wave, every
//! change, or stop ([`super::waves_restore`]). A pause asked for takes effect after the wave
//! under way. Every context's runs and a `wave` note per context and wave go to the
//! observer's journal, with the notes [`super::waves_resume`] reads back: the run's start and
//! end, and each wave's contexts before its first change. A final state reaches the
//! observer's screen only once it is journaled. Part of the runtime, the IO edge; must not
//! import `cli`.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt};

use super::waves_capture::{Capture, Gate, Prior};
use super::waves_plan::Plan;
use super::waves_probes::{run_probes, run_probes_with, Aim, Step, WriteMode};
use crate::evidence::Record;
use crate::mitigate::waves::{eta, Choice, State};
use crate::query::vars::Vars;
use crate::query::{Executor, ProbeError, Status};
use crate::tsg::SafetyClass;

/// Every context's state change as it happens: (wave index from 0, context, state).
pub type Progress = Arc<dyn Fn(usize, &str, &State) + Send + Sync>;

/// What the caller does with the run's events, and how it decides after a failure.
pub trait Observer {
    /// A context's runs (with the records before each), then the records after them (its
    /// wave note), in order; done once every one is written and synced, or the error. The
    /// run waits for it: a context's change waits for its capture's, a wave for its
    /// `starts` note.
    fn journal(
        &mut self,
        steps: &[Step],
        after: Vec<Record>,
    ) -> impl Future<Output = Result<(), String>> + Send;
    /// Several contexts' batches (each as [`Observer::journal`] takes one), one after the
    /// other, as one write with one sync; done once all are written and synced, or the error
    /// (then none of them is kept). By default each batch is journaled on its own.
    fn journal_all(
        &mut self,
        batches: Vec<(Vec<Step>, Vec<Record>)>,
    ) -> impl Future<Output = Result<(), String>> + Send
    where
        Self: Send,
    {
        async move {
            for (steps, after) in batches {
                self.journal(&steps, after).await?;
            }
            Ok(())
        }
    }
    /// A line of progress for the operator (`wave 2/4 · mc-westus3-1 · ok`).
    fn line(&mut self, text: &str);
    /// Wave `wave` (from 0) validated in `secs`; the time left, once known.
    fn wave_done(&mut self, wave: usize, secs: f64, eta: Option<f64>);
    /// Whether the operator asked to pause (checked before each wave starts).
    fn pause_asked(&self) -> bool;
    /// After wave `wave` (from 0) failed: what to do.
    fn decide(&mut self, wave: usize) -> impl Future<Output = Choice> + Send;
    /// A context's final state (ok, failed, restored), once its records were journaled; a
    /// screen shows it from here, so nothing is shown done that a crash could still lose.
    fn recorded(&mut self, _wave: usize, _context: &str, _state: &State) {}
}

/// Everything a wave run needs besides the plan.
pub struct Engine<'a> {
    /// Namespace and kubeconfig; each context is aimed at on its own.
    pub aim: Aim,
    pub node: &'a str,
    pub vars: Vars,
    /// The step's preconditions (acknowledged before the run started).
    pub pre: &'a [String],
    pub node_shell: Option<&'a crate::query::entry::NodeShell>,
    pub executors: Vec<Arc<dyn Executor>>,
    /// Confirmations are bound to `SESSION-CONTEXT`.
    pub session: String,
    pub progress: Progress,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// Every context validated.
    Validated,
    /// Paused before wave `0` (from 0); that many contexts were not changed.
    Paused(usize, usize),
    /// Wave `0` failed; that many contexts in later waves were not changed.
    Stopped(usize, usize),
}

/// One context's pass through its wave.
pub struct Outcome {
    pub context: String,
    pub state: State,
    /// The steps not yet journaled (the capture went before the change).
    pub steps: Vec<Step>,
    /// The prior state a restore brings back: captured before this run's change, or before
    /// the first change of an earlier run of the step (a resume).
    pub prior: Vec<crate::evidence::PriorState>,
}

pub(super) fn failure(steps: &[Step]) -> Option<String> {
    steps.iter().find_map(|(r, _, _)| match &r.status {
        Status::Ok { .. } => None,
        Status::Failed(ProbeError::Refused { class, .. }) if *class == SafetyClass::LongRunning => {
            None
        }
        s => Some(format!("{}: {}", r.id, s.describe())),
    })
}

impl Engine<'_> {
    pub(super) fn for_context(&self, ctx: &str, plan: &Plan) -> (Aim, WriteMode) {
        let aim = Aim {
            context: Some(ctx.to_string()),
            contexts: None,
            ..self.aim.clone()
        };
        let mode = WriteMode {
            enabled: true,
            confirm_target: Some(ctx.to_string()),
            session: format!("{}-{ctx}", self.session),
            policies: plan.policies.clone(),
            in_waves: true,
        };
        (aim, mode)
    }

    /// The change, then the gates, on one context. The capture goes to the journal through
    /// `tx` before the change runs; what an earlier run captured is not captured again.
    async fn one(&self, plan: &Plan, wave: usize, ctx: String, tx: &Captures) -> Outcome {
        let (aim, mode) = self.for_context(&ctx, plan);
        (self.progress)(wave, &ctx, &State::Mutating);
        let ex = self.executors.clone();
        let modes = (&mode, self.pre, self.node_shell);
        let gate = Gate {
            tx: tx.clone(),
            wave,
            context: ctx.clone(),
        };
        let earlier = plan.captured_before(&ctx);
        let prior = match earlier {
            Some(had) => Prior::Journaled(&gate, had),
            None => Prior::Journal(&gate),
        };
        let vars = self.vars.clone();
        let ran = run_probes_with(&aim, self.node, &plan.change, vars, ex, modes, prior).await;
        // What the earlier run captured first, then what this run captured that it did not.
        let prior = match earlier {
            Some(had) => had.iter().cloned().chain(ran.priors).collect(),
            None => ran.priors,
        };
        let mut steps = ran.steps;
        if let Some(why) = failure(&steps) {
            let state = State::Failed(format!("change failed: {why}"));
            (self.progress)(wave, &ctx, &state);
            return Outcome {
                context: ctx,
                state,
                steps,
                prior,
            };
        }
        (self.progress)(wave, &ctx, &State::Validating);
        let read_only = WriteMode {
            enabled: false,
            confirm_target: None,
            session: mode.session.clone(),
            policies: Vec::new(),
            in_waves: true,
        };
        let ex = self.executors.clone();
        let modes = (&read_only, &[][..], self.node_shell);
        let gates = run_probes(&aim, self.node, &plan.gates, self.vars.clone(), ex, modes).await;
        let state = match failure(&gates) {
            Some(why) => State::Failed(format!("validation failed: {why}")),
            None => State::Ok,
        };
        (self.progress)(wave, &ctx, &state);
        steps.extend(gates);
        Outcome {
            context: ctx,
            state,
            steps,
            prior,
        }
    }
}

use super::waves_resume as resume;
use super::waves_soak as soak;

pub(super) fn note(engine: &Engine<'_>, wave: usize, of: usize, o: &Outcome) -> Record {
    resume::context_note(engine.node, wave, of, &o.context, &o.state)
}

/// `failed: why`, `restored (what)`, or the state's word.
pub fn describe(s: &State) -> String {
    match s {
        State::Failed(d) => format!("failed: {d}"),
        State::Restored(d) => format!("restored ({d})"),
        s => s.word().to_string(),
    }
}

/// Where the contexts of a wave send their captures.
type Captures = tokio::sync::mpsc::UnboundedSender<Capture>;

/// Runs one wave: each context's change (its capture journaled first) then its gates, at
/// most `plan.parallel` at a time; every final state journaled before the observer hears it.
/// What is ready together is journaled together ([`super::waves_commit`]).
async fn wave<O: Observer + Send>(
    engine: &Engine<'_>,
    plan: &Plan,
    obs: &mut O,
    i: usize,
) -> Result<Vec<Outcome>, String> {
    use super::waves_commit::{commit, gather, Ready};
    let of = plan.waves.len();
    let (tx, mut captures) = tokio::sync::mpsc::unbounded_channel();
    let mut done = Vec::new();
    let mut results = stream::iter(plan.waves[i].iter().cloned())
        .map(|ctx| engine.one(plan, i, ctx, &tx))
        .buffer_unordered(plan.parallel);
    let note = |o: &Outcome| note(engine, i + 1, of, o);
    let mut ended = false;
    while !ended {
        let mut ready = vec![tokio::select! {
            Some(c) = captures.recv() => Ready::Capture(c),
            o = results.next() => match o {
                Some(o) => Ready::Done(o),
                None => break,
            },
        }];
        ended = gather(&mut ready, &mut captures, &mut results);
        // Said once it is journaled: what the operator reads is never ahead of it.
        for o in commit(obs, ready, (of, engine.node, &note)).await? {
            let text = format!(
                "wave {}/{of} · {} · {}",
                i + 1,
                o.context,
                describe(&o.state)
            );
            obs.line(&text);
            obs.recorded(i, &o.context, &o.state);
            done.push(o);
        }
    }
    Ok(done)
}

/// Runs every wave of `plan`, then what the observer chooses after a failure.
pub async fn execute<O: Observer + Send>(
    engine: &Engine<'_>,
    plan: &Plan,
    obs: &mut O,
) -> Result<Ended, String> {
    let of = plan.waves.len();
    let node = engine.node;
    let mut opening = vec![resume::run_note(
        node,
        &plan.glob,
        plan.count(),
        plan.earlier.len(),
    )];
    opening.extend(resume::earlier_notes(node, &plan.earlier));
    opening.extend(resume::captured_notes(node, &plan.captured));
    obs.journal(&[], opening).await?;
    let mut times = Vec::new();
    let mut history: Vec<(usize, Outcome)> = Vec::new();
    let mut stopped = None;
    for (i, contexts) in plan.waves.iter().enumerate() {
        if obs.pause_asked() {
            let left = plan.waves[i..].iter().map(Vec::len).sum();
            obs.journal(&[], vec![resume::end_note(node, "paused")])
                .await?;
            return Ok(Ended::Paused(i, left));
        }
        // Before any change of the wave: a crash from here on leaves these contexts as
        // "interrupted" for a resume, not as untouched.
        let starts = resume::starts_note(node, i + 1, of, contexts);
        obs.journal(&[], vec![starts]).await?;
        let started = Instant::now();
        let mut done = wave(engine, plan, obs, i).await?;
        let breach = match done.iter().any(|o| matches!(o.state, State::Failed(_))) {
            true => None,
            false => {
                let names: Vec<&str> = done.iter().map(|o| o.context.as_str()).collect();
                soak::soak(engine, plan, i, &names, obs).await
            }
        };
        if let Some(b) = &breach {
            obs.line(&format!("wave {}/{of} · {b}", i + 1));
            for o in done.iter_mut() {
                o.state = State::Failed(b.clone());
                obs.journal(&[], vec![note(engine, i + 1, of, o)]).await?;
                obs.recorded(i, &o.context, &o.state);
            }
        }
        let failed = done.iter().any(|o| matches!(o.state, State::Failed(_)));
        history.extend(done.into_iter().map(|o| (i, o)));
        if failed {
            stopped = Some(i);
            break;
        }
        times.push(started.elapsed().as_secs_f64());
        obs.wave_done(i, times[i], eta(&times, of - i - 1));
    }
    let Some(i) = stopped else {
        obs.journal(&[], vec![resume::end_note(node, "validated")])
            .await?;
        return Ok(Ended::Validated);
    };
    let skipped: usize = plan.waves[i + 1..].iter().map(Vec::len).sum();
    obs.line(&format!(
        "stopped at wave {}/{of}: {skipped} contexts in later waves were not changed",
        i + 1
    ));
    let choice = obs.decide(i).await;
    super::waves_restore::restore_chosen(engine, plan, obs, &mut history, (i, choice)).await?;
    obs.journal(&[], vec![resume::end_note(node, "stopped")])
        .await?;
    Ok(Ended::Stopped(i, skipped))
}

/// The default time between two evaluations of a soak's `abort_if`.
pub const SOAK_EVERY: Duration = Duration::from_secs(30);
