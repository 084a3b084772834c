//! A wave context's prior state in the journal before its change runs. The change of each
//! context runs on a task of its own ([`super::waves_engine`]); its capture is sent here, to
//! the loop that owns the observer's journal, and the change waits for the answer: written
//! and synced, or the journal's error, and then the change does not run. So a crash right
//! after a change always leaves the value from before it in the journal, and a resumed run
//! restores to that value instead of capturing the changed one again. Also the `wave` note
//! that names what was captured (`wave 1/4 · mc-a · captured · deployment/x -n ns
//! spec.replicas=3`), the same carried into a resumed run's session (`wave earlier ·
//! captured · mc-a · …`), and its reader. Part of the runtime, the IO edge; must not import
//! `cli`.

use tokio::sync::{mpsc, oneshot};

use super::waves_probes::Step;
use crate::evidence::{PriorState, Record};

/// One context's capture, on its way to the journal.
pub struct Capture {
    /// The wave (from 0) and the context.
    pub wave: usize,
    pub context: String,
    /// The capture's reads, each with the records before it (the confirmation).
    pub steps: Vec<Step>,
    /// The records after the reads: the prior states captured.
    pub records: Vec<Record>,
    /// Written and synced, or why not.
    pub answer: oneshot::Sender<Result<(), String>>,
}

/// Where one context's change sends its capture before it runs.
pub struct Gate {
    pub tx: mpsc::UnboundedSender<Capture>,
    pub wave: usize,
    pub context: String,
}

impl Gate {
    /// Sends the capture to the journal's owner and waits until it is written.
    pub async fn journal(&self, steps: Vec<Step>, records: Vec<Record>) -> Result<(), String> {
        let (answer, written) = oneshot::channel();
        let capture = Capture {
            wave: self.wave,
            context: self.context.clone(),
            steps,
            records,
            answer,
        };
        let gone = || "the wave run ended before the prior state was journaled".to_string();
        self.tx.send(capture).map_err(|_| gone())?;
        written.await.map_err(|_| gone())?
    }
}

/// How the change of one context treats its prior state.
pub enum Prior<'a> {
    /// Captured, and journaled with the change once the context is done (a single run, a
    /// restore).
    Capture,
    /// Captured, then journaled through the gate before the change runs.
    Journal(&'a Gate),
    /// An earlier run of the step journaled these before its first change: they are not
    /// captured again (their values stand), and what they do not cover (a later probe of the
    /// step the crash came before) is captured and journaled through the gate.
    Journaled(&'a Gate, &'a [crate::evidence::PriorState]),
}

/// The third part of a capture note.
const CAPTURED: &str = "captured";
/// What a capture note says when the change has no prior state to capture.
const NOTHING: &str = "nothing to capture";

fn list(priors: &[PriorState]) -> String {
    if priors.is_empty() {
        return NOTHING.to_string();
    }
    let each: Vec<String> = (priors.iter())
        .map(|p| format!("{} {}={}", p.resource, p.field, p.value))
        .collect();
    each.join("; ")
}

/// The note journaled with a context's capture: `wave 1/4 · mc-a · captured · …`.
pub fn note_text(wave: usize, of: usize, context: &str, priors: &[PriorState]) -> String {
    format!(
        "wave {wave}/{of} · {context} · {CAPTURED} · {}",
        list(priors)
    )
}

/// The note a resumed run opens with for a context an earlier run captured.
pub fn carried_text(context: &str, priors: &[PriorState]) -> String {
    format!(
        "{} · {CAPTURED} · {context} · {}",
        super::waves_resume::EARLIER,
        list(priors)
    )
}

/// The context of a [`note_text`] or a [`carried_text`]. The values themselves are read from
/// the typed prior-state records journaled right before the note, never from its text: a
/// captured value is the cluster's, and may hold `; ` or `=` itself.
pub fn context_of(text: &str) -> Option<String> {
    let parts: Vec<&str> = text.splitn(4, " · ").collect();
    match parts[..] {
        [first, CAPTURED, context, _] if first == super::waves_resume::EARLIER => {
            Some(context.to_string())
        }
        [first, context, CAPTURED, _] if first.starts_with("wave ") => Some(context.to_string()),
        _ => None,
    }
}

/// The prior states among `records`.
pub fn priors_in(records: &[Record]) -> Vec<PriorState> {
    (records.iter())
        .filter_map(|r| match r {
            Record::PriorState(p) => Some(p.clone()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prior(resource: &str, field: &str, value: &str) -> PriorState {
        PriorState {
            probe: None,
            resource: resource.into(),
            field: field.into(),
            value: value.into(),
            command: String::new(),
        }
    }

    #[test]
    fn a_capture_note_names_its_context_in_a_run_and_carried() {
        let priors = vec![
            prior("deployment/maestro-agent -n maestro", "spec.replicas", "3"),
            prior("statefulset/db", "spec.replicas", "12"),
        ];
        let text = note_text(2, 4, "mc-a", &priors);
        assert_eq!(
            text,
            "wave 2/4 · mc-a · captured · deployment/maestro-agent -n maestro spec.replicas=3; \
             statefulset/db spec.replicas=12"
        );
        assert_eq!(context_of(&text), Some("mc-a".to_string()));
        let carried = carried_text("mc-a", &priors);
        assert_eq!(context_of(&carried), Some("mc-a".to_string()));
    }

    #[test]
    fn nothing_captured_is_a_capture_and_other_notes_are_not() {
        let text = note_text(1, 1, "mc-b", &[]);
        assert_eq!(context_of(&text), Some("mc-b".to_string()));
        for other in [
            "wave 1/2 · mc-b · ok",
            "wave 1/2 · starts · mc-b, mc-c",
            "wave earlier · ok · mc-b",
            "wave run started · mc-* · 2 contexts",
        ] {
            assert_eq!(context_of(other), None, "{other}");
        }
        // A note the export's wave table reads is never mistaken for a state.
        assert_eq!(crate::mitigate::waves::parse_note(&text), None);
    }
}
