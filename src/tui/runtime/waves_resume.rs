//! Where an earlier wave run of a step left each context, read back from the journal: the one
//! reader `tsgnav run --waves --resume SESSION` and the navigator's `:waves` share. The wave
//! engine journals a `wave` note when a run starts (or resumes an earlier one, then naming what
//! that one left done, so every session holds the whole story), a note naming
//! every context of a wave before that wave starts (their change may run from then on), one
//! note per context when it is done with (ok, failed, restored), and one when the run ends
//! (validated, paused, stopped). From those: the contexts done (validated, or restored by the
//! operator's choice), never to be changed again by a resume; the contexts a crash caught
//! while their wave ran (their change may have been made without its record); and whether the
//! last run can be resumed at all (it was paused, or it never ended). Part of the runtime, the
//! IO edge (it reads the state folder); must not import `cli`.

use std::path::Path;

use crate::evidence::{Note, PriorState, Record};
use crate::mitigate::waves::{parse_note, State};

/// The start of a run's first note; a resumed run's says `resumed` instead of `started`.
const RUN: &str = "wave run";
/// The second part of the note written before a wave starts: `wave 2/4 · starts · a, b`.
const STARTS: &str = "starts";
/// The first part of the notes a resumed run opens with, naming what the run it goes on
/// from left done (`wave earlier · ok · a, b`), so each session holds the whole story and a
/// resume of a resumed run still leaves those alone.
pub(super) const EARLIER: &str = "wave earlier";

/// What the journal says about the last wave run of one step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Earlier {
    /// Each context's last word, in the order they were first seen.
    pub states: Vec<(String, State)>,
    /// Contexts whose wave started and that have no word since.
    pub interrupted: Vec<String>,
    /// How the run ended (`validated`, `paused`, `stopped`), when its end is journaled.
    pub ended: Option<String>,
    /// Each context's prior state as captured before its first change since the run began
    /// (a later capture of the same object, at its changed value, does not replace it).
    pub captured: Vec<(String, Vec<PriorState>)>,
}

/// Whether two node ids name the same step: the same `#slug` (a session records the id as
/// the navigator or the command line spelled the guide's path).
fn same_step(a: &str, b: &str) -> bool {
    let slug = |s: &str| s.rsplit_once('#').map(|(_, s)| s.to_string());
    slug(a).is_some() && slug(a) == slug(b)
}

impl Earlier {
    /// Reads the `wave` notes of `step` in `records` (in journal order). A note with no node
    /// (a session written before notes carried one) counts as the step's.
    pub fn read<'a>(records: impl IntoIterator<Item = &'a Record>, step: &str) -> Earlier {
        let mut out = Earlier::default();
        // The prior states journaled right before a note: a capture's batch ends with them
        // and its `captured` note, so the run of them just before that note is its own.
        let mut priors = Vec::new();
        for r in records {
            let n = match r {
                Record::PriorState(p) => {
                    priors.push(p.clone());
                    continue;
                }
                Record::Note(n) => n,
                _ => {
                    priors.clear();
                    continue;
                }
            };
            let ours = n.node.as_deref().is_none_or(|node| same_step(node, step));
            let just_before = std::mem::take(&mut priors);
            if n.topic.as_deref() == Some("wave") && ours {
                out.fold(&n.text, just_before);
            }
        }
        out
    }

    fn fold(&mut self, text: &str, priors: Vec<PriorState>) {
        if let Some(rest) = text.strip_prefix(RUN) {
            if rest.starts_with(" started") {
                *self = Earlier::default();
            } else if let Some(how) = rest.strip_prefix(" ended · ") {
                self.ended = Some(how.to_string());
            } else {
                self.ended = None;
            }
            return;
        }
        if let Some(ctx) = super::waves_capture::context_of(text) {
            return self.capture(ctx, priors);
        }
        let parts: Vec<&str> = text.splitn(3, " · ").collect();
        if let [EARLIER, word, names] = parts[..] {
            if let Some(state) = State::from_word(word) {
                for c in names.split(", ").filter(|c| !c.is_empty()) {
                    self.set(c.to_string(), state.clone());
                }
            }
            return;
        }
        if let [_, STARTS, names] = parts[..] {
            for c in names.split(", ").filter(|c| !c.is_empty()) {
                if !self.interrupted.iter().any(|i| i == c) {
                    self.interrupted.push(c.to_string());
                }
            }
            return;
        }
        if let Some((ctx, state)) = parse_note(text) {
            self.set(ctx, state);
        }
    }

    fn capture(&mut self, ctx: String, priors: Vec<PriorState>) {
        let Some((_, had)) = self.captured.iter_mut().find(|(c, _)| *c == ctx) else {
            return self.captured.push((ctx, priors));
        };
        for p in priors {
            if !had
                .iter()
                .any(|h| h.resource == p.resource && h.field == p.field)
            {
                had.push(p);
            }
        }
    }

    fn set(&mut self, ctx: String, state: State) {
        self.interrupted.retain(|c| *c != ctx);
        match self.states.iter_mut().find(|(c, _)| *c == ctx) {
            Some((_, s)) => *s = state,
            None => self.states.push((ctx, state)),
        }
    }

    /// The contexts a resume leaves alone: validated, or restored.
    pub fn done(&self) -> Vec<String> {
        self.states
            .iter()
            .filter(|(_, s)| matches!(s, State::Ok | State::Restored(_)))
            .map(|(c, _)| c.clone())
            .collect()
    }

    /// The state of `context`, when the run left it done.
    pub fn done_state(&self, context: &str) -> Option<&State> {
        self.states
            .iter()
            .find(|(c, s)| c == context && matches!(s, State::Ok | State::Restored(_)))
            .map(|(_, s)| s)
    }

    /// Whether the run can go on: something is done or was under way, and it was paused or
    /// never ended (a crash, a kill). A run that validated, or that a failure stopped, starts
    /// afresh.
    pub fn resumable(&self) -> bool {
        let begun = !self.done().is_empty() || !self.interrupted.is_empty();
        begun && self.ended.as_deref().is_none_or(|e| e == "paused")
    }

    /// The last wave run of `step` in the sessions of `guide` under `state_dir`, oldest first.
    pub fn for_guide(state_dir: &Path, guide: &str, step: &str) -> Earlier {
        let records = crate::evidence::guide_records(state_dir, guide, None);
        Earlier::read(&records, step)
    }
}

/// Splits the contexts matching a glob into those still to run and those `earlier` left done
/// (with their state), each in the order given.
pub fn split(contexts: Vec<String>, earlier: &Earlier) -> (Vec<String>, Vec<(String, State)>) {
    let mut done = Vec::new();
    let mut left = Vec::new();
    for c in contexts {
        match earlier.done_state(&c) {
            Some(s) => done.push((c, s.clone())),
            None => left.push(c),
        }
    }
    (left, done)
}

/// Puts what `before` says into a plan built from the contexts still to run: the contexts
/// left done (`done`, from [`split`]) and those of its waves a crash caught mid-wave.
pub fn carry_over(
    plan: &mut super::waves_plan::Plan,
    before: &Earlier,
    done: Vec<(String, State)>,
) {
    plan.interrupted = (before.interrupted.iter())
        .filter(|c| plan.waves.iter().flatten().any(|w| w == *c))
        .cloned()
        .collect();
    // Those to run again, and those left validated (a restore of all may bring them back);
    // a restored one is back at its captured value already.
    let ours = |c: &str| {
        plan.waves.iter().flatten().any(|w| w == c)
            || done.iter().any(|(d, s)| d == c && *s == State::Ok)
    };
    plan.captured = (before.captured.iter())
        .filter(|(c, _)| ours(c))
        .cloned()
        .collect();
    plan.earlier = done;
}

/// The notes a resumed run opens with for the contexts an earlier run captured, so a resume
/// of this run still restores them to the value from before their first change.
/// Each is carried as the typed prior states, then the note naming their context.
pub fn captured_notes(node: &str, captured: &[(String, Vec<PriorState>)]) -> Vec<Record> {
    (captured.iter())
        .flat_map(|(c, p)| {
            let note = wave_note(super::waves_capture::carried_text(c, p), node);
            (p.iter().cloned().map(Record::PriorState)).chain(std::iter::once(note))
        })
        .collect()
}

pub(super) fn wave_note(text: String, node: &str) -> Record {
    Record::Note(Note {
        text,
        topic: Some("wave".into()),
        node: Some(node.to_string()),
        ..Default::default()
    })
}

/// The note that opens a run: `wave run started · GLOB · N contexts`, or `resumed`, with the
/// count left out because an earlier run did them.
pub fn run_note(node: &str, glob: &str, count: usize, done_before: usize) -> Record {
    let text = match done_before {
        0 => format!("{RUN} started · {glob} · {count} contexts"),
        d => format!("{RUN} resumed · {glob} · {count} contexts · {d} done earlier"),
    };
    wave_note(text, node)
}

/// The notes a resumed run opens with: the contexts the earlier run left done, by state.
pub fn earlier_notes(node: &str, earlier: &[(String, State)]) -> Vec<Record> {
    ["ok", "restored"]
        .iter()
        .filter_map(|word| {
            let names: Vec<&str> = (earlier.iter())
                .filter(|(_, s)| s.word() == *word)
                .map(|(c, _)| c.as_str())
                .collect();
            (!names.is_empty())
                .then(|| wave_note(format!("{EARLIER} · {word} · {}", names.join(", ")), node))
        })
        .collect()
}

/// The note written before wave `wave` (from 1) of `of` starts, naming its contexts.
pub fn starts_note(node: &str, wave: usize, of: usize, contexts: &[String]) -> Record {
    let text = format!("wave {wave}/{of} · {STARTS} · {}", contexts.join(", "));
    wave_note(text, node)
}

/// The note that closes a run: `wave run ended · validated|paused|stopped`.
pub fn end_note(node: &str, how: &str) -> Record {
    wave_note(format!("{RUN} ended · {how}"), node)
}

/// One context's note: `wave 2/4 · mc-westus3-1 · ok`.
pub fn context_note(node: &str, wave: usize, of: usize, context: &str, state: &State) -> Record {
    let text = crate::mitigate::waves::note_text(wave, of, context, state);
    wave_note(text, node)
}

#[cfg(test)]
#[path = "waves_resume_tests.rs"]
mod tests;
