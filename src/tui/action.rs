//! Messages into the pure `update()`: a raw terminal event, an intent named by the keymap
//! (`run = "scroll_down"`), or a worker result. Plain data; must not import IO.

use crossterm::event::{KeyEvent, MouseEvent};

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
    // Intents named by keymap rows.
    Quit,
    ForceQuit,
    ScrollDown,
    ScrollUp,
    PageDown,
    PageUp,
    Top,
    Bottom,
    NextItem,
    PrevItem,
    Activate,
    Follow(usize),
    NextStep,
    Back,
    Done,
    Skip,
    Run,
    OutlineDown,
    OutlineUp,
    OutlineOpen,
    Library,
    Search,
    Palette,
    Help,
    Vars,
    Cancel,
    WriteMode,
    /// `S` on a firing alert: propose a silence.
    Silence,
    // Worker results.
    ProbeFinished {
        node: String,
        probe: usize,
        result: Result<ProbeOutput, String>,
    },
    Exported(Result<String, String>),
    /// A read-only probe was submitted and is running.
    ProbeStarted {
        node: String,
        probe: usize,
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
    /// A background refresh of the firing alerts.
    Firing(Box<crate::tui::firing::FiringUpdate>),
}

impl Action {
    /// The intent a keymap row's `run` names, e.g. `"scroll_down"` or `"follow 3"`.
    pub fn from_name(run: &str) -> Option<Action> {
        let mut words = run.split_whitespace();
        let name = words.next()?;
        let arg = words.next();
        Some(match (name, arg) {
            ("quit", None) => Action::Quit,
            ("force_quit", None) => Action::ForceQuit,
            ("scroll_down", None) => Action::ScrollDown,
            ("scroll_up", None) => Action::ScrollUp,
            ("page_down", None) => Action::PageDown,
            ("page_up", None) => Action::PageUp,
            ("top", None) => Action::Top,
            ("bottom", None) => Action::Bottom,
            ("next_item", None) => Action::NextItem,
            ("prev_item", None) => Action::PrevItem,
            ("activate", None) => Action::Activate,
            ("follow", Some(n)) => Action::Follow(n.parse::<usize>().ok()?.checked_sub(1)?),
            ("next_step", None) => Action::NextStep,
            ("back", None) => Action::Back,
            ("done", None) => Action::Done,
            ("skip", None) => Action::Skip,
            ("run", None) => Action::Run,
            ("outline_down", None) => Action::OutlineDown,
            ("outline_up", None) => Action::OutlineUp,
            ("outline_open", None) => Action::OutlineOpen,
            ("library", None) => Action::Library,
            ("search", None) => Action::Search,
            ("palette", None) => Action::Palette,
            ("help", None) => Action::Help,
            ("vars", None) => Action::Vars,
            ("cancel", None) => Action::Cancel,
            ("write_mode", None) => Action::WriteMode,
            ("silence", None) => Action::Silence,
            _ => return None,
        })
    }
}
