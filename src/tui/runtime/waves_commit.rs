//! Group commit for a wave's journal: when the loop that owns the observer wakes for one
//! context's capture or outcome, whatever else is ready at that moment (captures queued,
//! contexts finished) is journaled with it as one batch: one write and one sync (of the
//! signatures and of the journal) for all, instead of one each. Nothing is reported earlier
//! than before: a capture's change waits for the answer of the write that holds it, and an
//! outcome reaches the operator's screen only once that write is synced. The records of each
//! context stay together and in their order; on an error none of the batch is kept, every
//! capture in it is answered with the error (its change does not run) and, when an outcome
//! was in it, the run ends with the error, as a single write's would. Part of the runtime,
//! the IO edge; must not import `cli`.

use futures::FutureExt;

use super::waves_capture::Capture;
use super::waves_engine::{Observer, Outcome};
use super::waves_probes::Step;
use crate::evidence::Record;

/// What woke the wave's loop.
pub(super) enum Ready {
    Capture(Capture),
    Done(Outcome),
}

/// Adds to `ready` every capture already queued on `captures` and every outcome `results`
/// has ready now, without waiting. Returns `true` when `results` has ended.
pub(super) fn gather<S>(
    ready: &mut Vec<Ready>,
    captures: &mut tokio::sync::mpsc::UnboundedReceiver<Capture>,
    results: &mut S,
) -> bool
where
    S: futures::Stream<Item = Outcome> + Unpin,
{
    loop {
        if let Ok(c) = captures.try_recv() {
            ready.push(Ready::Capture(c));
            continue;
        }
        match futures::StreamExt::next(results).now_or_never() {
            Some(Some(o)) => ready.push(Ready::Done(o)),
            Some(None) => return true,
            None => return false,
        }
    }
}

/// A capture's records: its reads (each with the confirmation before it), the prior states
/// and its `captured` note.
fn capture_batch(c: &mut Capture, of: usize, node: &str) -> (Vec<Step>, Vec<Record>) {
    let mut after = std::mem::take(&mut c.records);
    let priors = super::waves_capture::priors_in(&after);
    let text = super::waves_capture::note_text(c.wave + 1, of, &c.context, &priors);
    after.push(super::waves_resume::wave_note(text, node));
    (std::mem::take(&mut c.steps), after)
}

/// Each outcome's wave note (`wave 1/4 · mc-a · ok`).
pub(super) type Note<'a> = &'a (dyn Fn(&Outcome) -> Record + Sync);

/// Journals everything in `ready` as one batch, answers each capture, and returns the
/// outcomes (journaled) in order, or the error when an outcome could not be journaled.
pub(super) async fn commit<O: Observer + Send>(
    obs: &mut O,
    ready: Vec<Ready>,
    (of, node, note): (usize, &str, Note<'_>),
) -> Result<Vec<Outcome>, String> {
    let mut batches = Vec::with_capacity(ready.len());
    let mut answers = Vec::new();
    let mut done = Vec::new();
    for r in ready {
        match r {
            Ready::Capture(mut c) => {
                batches.push(capture_batch(&mut c, of, node));
                answers.push(c.answer);
            }
            Ready::Done(mut o) => {
                let steps = std::mem::take(&mut o.steps);
                batches.push((steps, vec![note(&o)]));
                done.push(o);
            }
        }
    }
    let written = match batches.len() {
        1 => {
            let (steps, after) = batches.pop().unwrap_or_default();
            obs.journal(&steps, after).await
        }
        _ => obs.journal_all(batches).await,
    };
    for a in answers {
        let _ = a.send(written.clone());
    }
    match (written, done.is_empty()) {
        (Err(e), false) => Err(e),
        _ => Ok(done),
    }
}
