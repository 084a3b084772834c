//! PURE navigation state machine: where the operator is in the library, the trail they took,
//! per-node status, checklist ticks and variable values. `apply(state, lib, cmd)` changes the
//! state and returns the [`Effect`]s the runtime must carry out (run a probe, record an event,
//! export evidence); it never performs them.
//!
//! Depends only on `crate::tsg`. Must not import IO (std::fs, std::process, std::env, tokio,
//! reqwest, kube) nor `crate::tui`, `crate::cli`, `crate::query` or `crate::evidence`.

mod alert;
mod apply;
mod context_map;
mod index;

pub use alert::{
    parse_alert_payload, route_alert, var_for_label, AlertInput, PayloadError, STARTS_AT,
};
pub use apply::apply;
pub use context_map::{AlertTarget, ContextMap, DEFAULT_CONTEXT_LABEL};
pub use index::{checklist, choices, guide_vars, Choice, ChoiceKind, Index};

use std::collections::{BTreeMap, BTreeSet};

use crate::tsg::{ProbeRef, SafetyClass};

/// Progress on one node, shown in the outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Status {
    #[default]
    Unvisited,
    Visited,
    Done,
    Skipped,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Unvisited => "unvisited",
            Status::Visited => "visited",
            Status::Done => "done",
            Status::Skipped => "skipped",
        }
    }
}

/// Where a variable's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarSource {
    /// `--var NAME=value` on the command line.
    Flag,
    /// `[vars]` in the user's config file.
    Config,
    /// A label of the alert payload (the label's name).
    AlertLabel(String),
    /// Assigned by an earlier probe (its node id).
    Probe(String),
    /// A default from the guide's front matter `inputs`.
    Default,
    /// Typed by the operator in the session.
    Typed,
}

impl VarSource {
    pub fn describe(&self) -> String {
        match self {
            VarSource::Flag => "flag --var".into(),
            VarSource::Config => "config file".into(),
            VarSource::AlertLabel(l) => format!("alert label `{l}`"),
            VarSource::Probe(n) => format!(
                "probe in {}",
                n.split_once('#').map(|(_, s)| s).unwrap_or(n)
            ),
            VarSource::Default => "guide default".into(),
            VarSource::Typed => "typed".into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Var {
    pub value: String,
    pub source: VarSource,
}

/// The alert the session started from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AlertContext {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    /// The node the alert routes to, when a guide routes it.
    pub target: Option<String>,
    /// The alerting rule's `runbook_url`, used to route when no guide names the alert.
    pub runbook_url: Option<String>,
}

/// The whole navigation state of a session.
#[derive(Debug, Clone, Default)]
pub struct NavState {
    pub index: Index,
    /// The node shown, if any.
    pub current: Option<String>,
    /// Nodes visited before `current`, oldest first: Back pops from here.
    pub trail: Vec<String>,
    pub status: BTreeMap<String, Status>,
    /// Ticked checklist items: (node id, item index in [`checklist`]).
    pub ticks: BTreeSet<(String, usize)>,
    pub vars: BTreeMap<String, Var>,
    pub alert: Option<AlertContext>,
}

impl NavState {
    pub fn new(lib: &crate::tsg::Library) -> Self {
        NavState {
            index: Index::new(lib),
            ..NavState::default()
        }
    }
    pub fn status_of(&self, id: &str) -> Status {
        self.status.get(id).copied().unwrap_or_default()
    }
    pub fn is_ticked(&self, id: &str, item: usize) -> bool {
        self.ticks.contains(&(id.to_string(), item))
    }
}

/// What the operator (or a finished worker) asks the navigator to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Cmd {
    /// Open a node (`path#slug`), pushing the current one on the trail.
    Goto(String),
    /// Follow the n-th entry of [`choices`] of the current node.
    Follow(usize),
    /// The next node in document order.
    Next,
    /// Back along the trail (not up the outline).
    Back,
    /// Toggle the n-th entry of [`checklist`] of the current node.
    Tick(usize),
    MarkDone,
    MarkSkipped,
    /// Start from an alert: record it and land on the node it routes to.
    Alert(AlertContext),
    SetVar {
        name: String,
        value: String,
        source: VarSource,
    },
    /// Run the n-th probe of the current node; `class` comes from `crate::safety`.
    RunProbe {
        probe: usize,
        class: SafetyClass,
    },
    Export,
}

/// Something that happened, for the evidence journal.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    AlertReceived {
        name: String,
        labels: BTreeMap<String, String>,
    },
    NodeEntered {
        node: String,
    },
    StatusSet {
        node: String,
        status: Status,
    },
    ChecklistToggled {
        node: String,
        item: usize,
        text: String,
        checked: bool,
    },
    VarSet {
        name: String,
        value: String,
        source: VarSource,
    },
    /// Read-only probes started by a firing alert on landing (`auto_run`), not by a key.
    AutoRun {
        alert: String,
        node: String,
        probes: Vec<usize>,
    },
}

/// What the runtime must do. The navigator only describes it (the navigator's screens add
/// their own in `crate::tui::effect`).
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Append to the evidence journal (if a session exists).
    Record(Event),
    /// Run a read-only probe with these variable values (as environment, never pasted).
    RunProbe {
        probe: ProbeRef,
        bindings: BTreeMap<String, String>,
    },
    /// The probe needs `var`, which has no value: ask the operator.
    NeedVar { probe: ProbeRef, var: String },
    /// The probe changes a system (or runs until stopped, or needs a terminal): it goes
    /// through the mitigation flow (or runs as a background task), with these values.
    NeedsMitigationFlow {
        probe: ProbeRef,
        class: SafetyClass,
        bindings: BTreeMap<String, String>,
    },
    /// Export the evidence bundle.
    Export,
    /// A message for the status line (nothing happened, and why).
    Notice(String),
}
