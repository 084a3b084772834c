//! The restores of a wave run once a failure stopped it, as the operator (or `--on-failure`)
//! chose: the failed contexts, the whole failing wave, or every context the run changed. Each
//! is a `kubectl scale` back to the replica counts captured before the change, run with that
//! context's own confirmation like the change itself, then journaled with its `wave` note.
//! Part of the runtime, the IO edge; must not import `cli`.

use futures::stream::{self, StreamExt};

use super::waves_engine::{describe, failure, note, Engine, Observer, Outcome};
use super::waves_plan::Plan;
use super::waves_probes::{run_probes, Step};
use crate::mitigate::waves::{Choice, State};
use crate::tsg::{Lang, Probe};

impl Engine<'_> {
    /// The restore of one context: a `kubectl scale` back to each replica count captured
    /// before the change (other captured state is named, not restored: there is no safe
    /// generic undo).
    pub(super) async fn restore(
        &self,
        plan: &Plan,
        wave: usize,
        o: &Outcome,
    ) -> (State, Vec<Step>) {
        let mut code = String::new();
        for p in &o.prior {
            if p.field == "spec.replicas"
                && p.value.chars().all(|c| c.is_ascii_digit())
                && !p.value.is_empty()
            {
                code.push_str(&format!(
                    "kubectl scale {} --replicas={}\n",
                    p.resource, p.value
                ));
            }
        }
        if code.is_empty() {
            let why = "no replica count was captured before the change: restore it by hand";
            return (State::Failed(why.into()), Vec::new());
        }
        let (aim, mode) = self.for_context(&o.context, plan);
        (self.progress)(wave, &o.context, &State::Mutating);
        let probe = Probe::from_code(Lang::Shell, &code);
        let ex = self.executors.clone();
        let modes = (&mode, &[][..], self.node_shell);
        let steps = run_probes(&aim, self.node, &[probe], self.vars.clone(), ex, modes).await;
        let state = match failure(&steps) {
            None => State::Restored(code.trim_end().replace('\n', "; ")),
            Some(why) => State::Failed(format!("restore failed: {why}")),
        };
        (self.progress)(wave, &o.context, &state);
        (state, steps)
    }
}

/// The contexts "restore all" covers beyond this run's `history`: those an earlier run of the
/// step left validated, and those of this run's plan it never reached that an earlier run
/// captured (a crash caught them after their capture). Each comes back to the value captured
/// before its first change; shown in the failing wave `i`.
fn earlier_changes(plan: &Plan, history: &[(usize, Outcome)], i: usize) -> Vec<(usize, Outcome)> {
    let seen = |c: &str| history.iter().any(|(_, o)| o.context == c);
    let done = (plan.earlier.iter())
        .filter(|(_, s)| *s == State::Ok)
        .map(|(c, _)| c);
    let reached = plan
        .waves
        .iter()
        .flatten()
        .filter(|c| plan.captured_before(c).is_some());
    let mut out: Vec<(usize, Outcome)> = Vec::new();
    for c in done.chain(reached) {
        if seen(c) || out.iter().any(|(_, o)| o.context == *c) {
            continue;
        }
        let prior = plan
            .captured_before(c)
            .map(<[_]>::to_vec)
            .unwrap_or_default();
        let o = Outcome {
            context: c.clone(),
            state: State::Ok,
            steps: Vec::new(),
            prior,
        };
        out.push((i, o));
    }
    out
}

/// Restores what `choice` names of the run's `history` (for "restore all", with what earlier
/// runs of the step changed), journaling each restore.
pub(super) async fn restore_chosen<O: Observer>(
    engine: &Engine<'_>,
    plan: &Plan,
    obs: &mut O,
    history: &mut Vec<(usize, Outcome)>,
    (i, choice): (usize, Choice),
) -> Result<(), String> {
    let of = plan.waves.len();
    if choice == Choice::RestoreAll {
        let more = earlier_changes(plan, history, i);
        history.extend(more);
    }
    let wanted: Vec<usize> = (0..history.len())
        .filter(|k| {
            let (w, o) = &history[*k];
            match choice {
                Choice::Stop => false,
                Choice::RestoreFailed => *w == i && matches!(o.state, State::Failed(_)),
                Choice::RestoreWave => *w == i,
                Choice::RestoreAll => true,
            }
        })
        .collect();
    let restored: Vec<(usize, (State, Vec<Step>))> = stream::iter(wanted)
        .map(|k| {
            let history = &*history;
            async move {
                let (w, o) = &history[k];
                (k, engine.restore(plan, *w, o).await)
            }
        })
        .buffer_unordered(plan.parallel)
        .collect()
        .await;
    for (k, (state, steps)) in restored {
        let (w, o) = &mut history[k];
        o.state = state;
        obs.journal(&steps, vec![note(engine, *w + 1, of, o)])
            .await?;
        obs.line(&format!(
            "wave {}/{of} · {} · {}",
            *w + 1,
            o.context,
            describe(&o.state)
        ));
        obs.recorded(*w, &o.context, &o.state);
    }
    Ok(())
}
