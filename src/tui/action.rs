//! Messages into the pure `update()`: a raw terminal event, a [`Command`] (named by a keymap
//! row or typed in the palette), what the view measured, or a worker result. Plain data; must not import IO.

use crossterm::event::{KeyEvent, MouseEvent};

use super::command::Command;

/// What a probe run produced (filled by the runtime from `crate::query`).
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeOutput {
    /// How the run ended (what the navigator goes by; never the output's text).
    pub outcome: crate::tsg::Outcome,
    pub output: String,
    /// Variables the probe assigned (`NAME=value` printed by it), for later probes.
    pub assigns: Vec<(String, String)>,
    /// Range-query series for a chart (empty otherwise).
    pub series: Vec<crate::tui::app::ChartSeries>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// A frame was drawn; what the view measured (the runtime sends it after each draw).
    Drawn(crate::tui::app::Viewport),
    /// A command: from a keymap row, the palette or a mouse gesture.
    Command(Command),
    // Worker results.
    ProbeFinished {
        probe: crate::tsg::ProbeRef,
        result: Result<ProbeOutput, String>,
    },
    Exported(Result<String, String>),
    /// What `y` copies right after an export (the chain head and key id).
    CopyOffer(String),
    /// An export's folder, head and key, for the popup that shows them whole.
    ExportShown(crate::tui::exported::ExportShown),
    /// A running probe's output so far: its size and its last lines (bounded; sent a few
    /// times a second at most, however fast the probe prints).
    ProbeProgress {
        probe: crate::tsg::ProbeRef,
        bytes: u64,
        tail: String,
    },
    /// A read-only probe was submitted and is running.
    ProbeStarted {
        probe: crate::tsg::ProbeRef,
        what: String,
    },
    /// The runtime prepared the confirmation screen of a mitigation.
    MitigationReady(Box<crate::tui::mitigation::MitigationView>),
    /// The runtime refused to confirm (wrong target, a precondition, read-only): nothing ran.
    MitigationRefused(String),
    /// The confirmation was issued and the mitigation was started.
    MitigationStarted(String),
    /// The dry run finished: (ok, output).
    DryRunFinished(bool, String),
    /// The open mitigations changed.
    OpenMitigations(Vec<crate::mitigate::OpenMitigation>),
    /// The background tasks still running: (id, what).
    Tasks(Vec<(u64, String)>),
    /// An evidence session started recording in this folder.
    EvidenceStarted(String),
    Notice(String),
    /// A silence was created on Alertmanager `source` for `alert`.
    Silenced {
        source: String,
        id: String,
        alert: String,
    },
    /// A silence this session created was expired.
    SilenceExpired(String),
    /// A background refresh of the firing alerts.
    Firing(Box<crate::tui::firing::FiringUpdate>),
    /// The wave plan of `:waves`, or its run's progress.
    Waves(crate::tui::waves::WavesEvent),
    /// The wall clock (local HH:MM:SS), sent by the runtime when it changed: outputs are
    /// stamped with it ("ran 03:12:09 with …"). Changes nothing on screen.
    Tick(String),
    /// Guides read in the background joined the library (the last batch carries the
    /// start-up commands that waited for them).
    Guides(Box<crate::tui::loading::GuideBatch>),
}
