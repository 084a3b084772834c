//! The navigator's side of a wave run ([`super::waves`]): the engine's observer that sends
//! progress to the main loop as [`WavesEvent`]s, reads Esc's pause and the operator's choice
//! after a failure, and journals through the main loop, which owns the session's evidence:
//! each batch of records is a [`Batch`] the loop writes ([`write`]) and answers, and the run
//! waits for that answer, so a context's change waits for its capture and a wave for its
//! `starts` note, as in `tsgnav run --waves`. Part of the runtime, the IO edge; must not
//! import `cli`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;

use super::record::Batched;
use super::waves_engine::Observer;
use super::waves_probes::Step;
use super::Msg;
use crate::evidence::Record;
use crate::mitigate::waves::{Choice, State};
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::waves::WavesEvent;

/// The navigator's side of a wave run: events to the main loop.
pub(super) struct Tui {
    pub(super) tx: Sender<Msg>,
    pub(super) pause: Arc<AtomicBool>,
    pub(super) choices: tokio::sync::mpsc::UnboundedReceiver<Choice>,
}

pub(super) fn ui(tx: &Sender<Msg>, e: WavesEvent) {
    let _ = tx.send(Msg::Ui(Action::Waves(e)));
}

/// A wave run's records for the main loop, which owns the journal: one part per context
/// (several when they were ready together), each its runs with the records before each, then
/// the records after; the run waits for the answer before it goes on.
pub struct Batch {
    parts: Vec<Part>,
    answer: tokio::sync::oneshot::Sender<Result<(), String>>,
}

/// One context's part of a [`Batch`]: its runs, each with the records before it, then the
/// records after them.
type Part = (Vec<(crate::query::ProbeResult, Vec<Record>)>, Vec<Record>);

/// `steps` and `after` as a part of a batch.
fn part(steps: &[Step], after: Vec<Record>) -> Part {
    let runs = (steps.iter())
        .map(|(r, _, before)| (r.clone(), before.clone()))
        .collect();
    (runs, after)
}

/// Writes `batch` in order as one batch (one sync; on an error none of it is kept), and
/// answers the run with the outcome. No recorder (evidence off) writes nothing and answers yes, as
/// `tsgnav run --no-evidence` does.
pub fn write(
    recorder: Option<&mut super::record::Recorder>,
    app: &App,
    batch: Batch,
) -> Vec<Action> {
    let mut shown = Vec::new();
    let written = match recorder {
        None => Ok(()),
        Some(r) => {
            let mut recs = Vec::new();
            for (runs, after) in batch.parts {
                for (run, before) in runs {
                    recs.extend(before.into_iter().map(Batched::Record));
                    recs.push(Batched::Run(run));
                }
                recs.extend(after.into_iter().map(Batched::Record));
            }
            let (more, ok) = r.append_all_checked(app, recs);
            shown.extend(more);
            ok
        }
    };
    let _ = batch.answer.send(written);
    shown
}

impl Tui {
    /// Sends `parts` to the main loop as one batch; done once it answered.
    fn send(
        &mut self,
        parts: Vec<Part>,
    ) -> impl std::future::Future<Output = Result<(), String>> + Send {
        let (answer, written) = tokio::sync::oneshot::channel();
        let batch = Batch { parts, answer };
        let sent = self.tx.send(Msg::Journal(Box::new(batch))).is_ok();
        async move {
            let gone = "the navigator stopped before the wave run's records were written";
            if !sent {
                return Err(gone.to_string());
            }
            written.await.unwrap_or_else(|_| Err(gone.to_string()))
        }
    }
}

impl Observer for Tui {
    fn journal(
        &mut self,
        steps: &[Step],
        after: Vec<Record>,
    ) -> impl std::future::Future<Output = Result<(), String>> + Send {
        self.send(vec![part(steps, after)])
    }

    fn journal_all(
        &mut self,
        batches: Vec<(Vec<Step>, Vec<Record>)>,
    ) -> impl std::future::Future<Output = Result<(), String>> + Send {
        let parts = (batches.into_iter())
            .map(|(steps, after)| part(&steps, after))
            .collect();
        self.send(parts)
    }

    fn line(&mut self, text: &str) {
        ui(&self.tx, WavesEvent::Line(text.to_string()));
    }

    fn wave_done(&mut self, wave: usize, secs: f64, eta: Option<f64>) {
        ui(&self.tx, WavesEvent::WaveDone { wave, secs, eta });
    }

    fn pause_asked(&self) -> bool {
        self.pause.load(Ordering::SeqCst)
    }

    fn recorded(&mut self, wave: usize, context: &str, state: &State) {
        let context = context.to_string();
        let state = state.clone();
        ui(
            &self.tx,
            WavesEvent::Progress {
                wave,
                context,
                state,
            },
        );
    }

    fn decide(&mut self, wave: usize) -> impl std::future::Future<Output = Choice> + Send {
        ui(&self.tx, WavesEvent::Failed { wave });
        async move { self.choices.recv().await.unwrap_or(Choice::Stop) }
    }
}

#[cfg(test)]
#[path = "waves_observer_tests.rs"]
mod tests;
