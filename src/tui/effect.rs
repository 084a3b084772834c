//! What `update()` asks the runtime to do: the navigator's own effects ([`crate::nav::Effect`]:
//! run a probe, ask for a value, record an event, export …) and the ones only the navigator's
//! screens make (confirm a mitigation, a dry run, write mode, tasks, silences, cancelling,
//! the clipboard, fan-out, wave runs). Plain data. Must not import IO, `crate::query` or
//! `crate::evidence`.

use std::collections::BTreeMap;

use crate::nav;
use crate::tsg::ProbeRef;

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// An effect of the navigation state machine.
    Nav(nav::Effect),
    /// Issue a confirmation for the prepared mitigation of this probe and run it: the runtime
    /// checks each acknowledgement and the typed-back target itself (nothing runs otherwise).
    ConfirmMitigation {
        probe: ProbeRef,
        acknowledged: Vec<bool>,
        typed: String,
    },
    /// Run the dry run of the prepared mitigation of this probe (read-only by construction).
    DryRun { probe: ProbeRef },
    /// Write mode on or off for this session (the runtime issues no confirmation when off).
    WriteMode(bool),
    /// Stop background task `id` (a long-running probe).
    StopTask(u64),
    /// Create a silence on Alertmanager `source` matching `labels` for `hours`; `typed` is
    /// the name the operator typed back (the runtime checks it again before anything is sent).
    Silence {
        source: String,
        alert: String,
        labels: BTreeMap<String, String>,
        hours: u32,
        typed: String,
    },
    /// Expire silence `id` on Alertmanager `source` (one this session created).
    ExpireSilence { source: String, id: String },
    /// Cancel the read-only probes of this step that are still running (Esc, or navigating
    /// away); their process groups are killed. Mitigations and background tasks go on.
    CancelProbes { node: String },
    /// Put this text on the operator's clipboard (the terminal's OSC 52).
    Copy(String),
    /// Run a read-only probe once per kube context matching `pattern` (`:contexts mc-*`),
    /// with these values; the answers come back as one result.
    FanOut {
        probe: ProbeRef,
        bindings: BTreeMap<String, String>,
        pattern: String,
    },
    /// The wave run of a mitigation step (`:waves GLOB`), carried out by the runtime.
    Waves(WavesOp),
}

/// What the navigator asks of a wave run (`:waves`); the runtime checks each step again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WavesOp {
    /// Build the plan of step `node` over the contexts matching `glob`.
    Plan {
        node: String,
        glob: String,
        sizes: String,
        parallel: usize,
        bindings: BTreeMap<String, String>,
    },
    /// Run the plan: the preconditions acknowledged and the phrase typed back.
    Start {
        acknowledged: Vec<bool>,
        typed: String,
    },
    /// No wave starts after the one under way.
    Pause,
    /// After a failure: restore the contexts that failed.
    RestoreFailed,
    /// After a failure: restore every context of the failing wave.
    RestoreWave,
    /// After a failure: restore every context the run changed, in every wave.
    RestoreAll,
    /// After a failure: restore nothing.
    Stop,
    /// The screen was closed (before the run, or after it ended).
    Close,
}

impl From<nav::Effect> for Effect {
    fn from(e: nav::Effect) -> Effect {
        Effect::Nav(e)
    }
}
