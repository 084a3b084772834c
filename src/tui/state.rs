//! The parts of the TUI's model, grouped by concern: what is on screen, the search, the
//! probes, the session (live queries, evidence, write mode, quitting) and the status-line
//! notice. Plain data; only `update` writes them. Must not import IO (std::fs,
//! std::process, std::env, tokio) nor `crate::query` / `crate::evidence`.

use std::collections::HashMap;

use ratatui::layout::Rect;

use super::search::Hit;
use crate::mitigate::OpenMitigation;
use crate::tsg::{ProbeRef, SafetyClass};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Library,
    Guide,
}

/// What the lower panel of the guide view lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Panel {
    Actions,
    Vars,
}

/// The help screen's search: the query being typed after `/`, and the last one found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HelpFind {
    pub typing: Option<String>,
    pub query: String,
}

/// What is on screen and where each cursor is.
#[derive(Debug, Clone)]
pub struct ScreenState {
    pub current: Screen,
    pub help: bool,
    pub help_scroll: usize,
    /// `/` on the help screen: what is being typed and the last search.
    pub help_find: HelpFind,
    pub panel: Panel,
    /// First line of the node pane shown.
    pub scroll: usize,
    /// A probe of this step whose result just came in: the next frame scrolls it into view.
    pub reveal: Option<usize>,
    pub item_sel: usize,
    pub var_sel: usize,
    /// Outline cursor: node index in the current guide.
    pub outline_sel: usize,
    /// The last frame as the view reported it (`Action::Drawn`).
    pub viewport: Viewport,
}

impl Default for ScreenState {
    fn default() -> ScreenState {
        ScreenState {
            current: Screen::Library,
            help: false,
            help_scroll: 0,
            help_find: HelpFind::default(),
            panel: Panel::Actions,
            scroll: 0,
            reveal: None,
            item_sel: 0,
            var_sel: 0,
            outline_sel: 0,
            viewport: Viewport::default(),
        }
    }
}

/// Where things were drawn (for mouse clicks and paging).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Areas {
    pub outline: Rect,
    pub outline_top: usize,
    pub items: Rect,
    pub items_top: usize,
    pub node: Rect,
    pub list: Rect,
    pub list_top: usize,
    /// The help screen's text area.
    pub help: Rect,
}

/// What the view measured while drawing a frame, handed back to `update` by the runtime so
/// that scrolling is clamped and clicks are placed without the view writing the model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Viewport {
    pub areas: Areas,
    /// Wrapped lines of the node pane, once a node was drawn.
    pub node_lines: Option<usize>,
    /// Lines of the help screen, once it was drawn.
    pub help_lines: usize,
    /// The confirmation screen: whether its pinned part (command, target, field) was drawn
    /// whole, and the scroll of the text above it as drawn.
    pub confirm: Option<(bool, u16)>,
    /// Rows of text the output pager showed.
    pub pager_rows: usize,
    /// The node pane's scroll after it brought a new result into view (`ScreenState::reveal`).
    pub revealed: Option<usize>,
    /// Columns of text the output pager had after its line numbers.
    pub pager_width: usize,
    /// Columns the status line had for a message (an error longer than that opens a popup).
    pub status_room: usize,
}

impl Viewport {
    /// The largest useful scroll of the node pane (`None` before a node was drawn).
    pub fn max_scroll(&self) -> Option<usize> {
        let h = usize::from(self.areas.node.height).max(1);
        self.node_lines.map(|n| n.saturating_sub(h))
    }
    /// The largest useful scroll of the help screen.
    pub fn max_help_scroll(&self) -> usize {
        self.help_lines
            .saturating_sub(usize::from(self.areas.help.height))
    }
}

/// The library screen's query and the hits it selects from (also the guide search's).
#[derive(Debug, Clone, Default)]
pub struct SearchState {
    pub query: String,
    pub hits: Vec<Hit>,
    pub sel: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProbeResult {
    /// How the run ended; `Refused` also stands for "not run" (a refusal before the gate).
    pub outcome: crate::tsg::Outcome,
    pub ok: bool,
    pub text: String,
    /// Range-query series, drawn as a chart under the text (empty for other results).
    pub series: Vec<ChartSeries>,
}

/// A running probe's output so far: how much, and its last lines (bounded by the runtime).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Streaming {
    pub bytes: u64,
    pub tail: String,
}

/// One line of a chart: its label (`{pod="router-1"}`) and (unix seconds, value) points.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChartSeries {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// Probe results and what is running.
#[derive(Debug, Clone, Default)]
pub struct ProbeState {
    pub results: HashMap<ProbeRef, ProbeResult>,
    /// Bumped whenever `results` changes (the view re-renders the node then).
    pub generation: u64,
    /// Safety classes of the current node's probes (node id, classes), set on navigation.
    pub classes: Option<(String, Vec<SafetyClass>)>,
    /// Read-only probes running.
    pub running: Vec<ProbeRef>,
    /// What the probes still running printed so far (size and last lines), until they end.
    pub streaming: HashMap<ProbeRef, Streaming>,
    /// Background tasks (long-running probes) still running: (id, what).
    pub tasks: Vec<(u64, String)>,
    /// PromQL probes switched with `t` between an instant and a range query.
    pub modes: HashMap<ProbeRef, QueryMode>,
}

/// How a PromQL probe is asked: at one instant, or over a window (a chart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueryMode {
    Instant,
    /// Over the last hour, a point a minute (unless the probe's fence gives its own range).
    Range,
}

/// Whether probes can run in this session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Live {
    Available,
    /// The query engine is being started (only the first frame shows it: no key is read
    /// before the engine is up).
    Starting,
    /// Why not, in words for the operator.
    Unavailable(String),
}

/// Where answers come from when they are not live. Whether evidence is recorded as simulated
/// is this variant, decided where the session is built, never a word of the label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataLabel {
    /// `tsgnav demo`: the simulated cluster and recorded PromQL/KQL answers.
    Demo,
    /// `tsgnav sessions replay`: the answers recorded in session `id`.
    Replay { id: String },
}

impl DataLabel {
    /// What the status line shows.
    pub fn text(&self) -> String {
        match self {
            DataLabel::Demo => "DEMO DATA (simulated)".into(),
            DataLabel::Replay { id } => format!("REPLAY of {id} (recorded)"),
        }
    }
    /// The short form for a narrow status line.
    pub fn short(&self) -> String {
        match self {
            DataLabel::Demo => "DEMO DATA".into(),
            DataLabel::Replay { id } => format!("REPLAY of {id}"),
        }
    }
    /// Answers come from the simulation: the evidence session says `simulated`.
    pub fn simulated(&self) -> bool {
        matches!(self, DataLabel::Demo)
    }
}

/// The sandbox of the session's shell probes: what the status line says ("jail (namespaces +
/// seccomp); landlock v7 fs+net", "not isolated: …") and whether the jail holds them, as the
/// runtime decided it (never read back from the words).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    pub text: String,
    pub isolated: bool,
}

/// The evidence session, as far as the UI knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Evidence {
    /// No evidence session has started (yet, or at all).
    #[default]
    None,
    /// A session is recording and has not been exported since.
    Unexported,
    /// The session was exported.
    Exported,
}

/// The session: live queries, evidence, write mode, open mitigations and quitting.
#[derive(Debug, Clone)]
pub struct Session {
    pub live: Live,
    /// Where answers come from when they are not live (the demo's simulation, a replayed
    /// session); the status line shows it in place of "live queries on".
    pub data_label: Option<DataLabel>,
    /// The sandbox read-only shell probes run in, shown beside "live queries on".
    pub sandbox: Option<Sandbox>,
    /// The escalation team named by `:export TEAM`, if any.
    pub export_team: Option<String>,
    /// Whether the runtime records evidence (a session opens at the first step entered).
    pub recording: bool,
    pub evidence: Evidence,
    /// Write mode: off (read-only) unless `--write` or the toggle turned it on.
    pub write: bool,
    /// Where the session's kube context comes from (`App::context` resolves it); write mode
    /// asks for that context to be typed back.
    pub aim: super::target::Aim,
    /// The session's namespace (`-n`) and kubeconfig (`--kubeconfig`, the config file's),
    /// shown beside the context.
    pub namespace: Option<String>,
    pub kubeconfig: Option<String>,
    /// Mitigations that still have to be undone (from the evidence journal).
    pub open: Vec<OpenMitigation>,
    /// `:export` was asked while mitigations are open; asking again exports anyway.
    pub export_armed: bool,
    pub quit_armed: bool,
    pub quit: bool,
    /// Guides still being read in the background: (files read, files found).
    pub loading: Option<(usize, usize)>,
    /// After an export: the chain head and key id, which the next `y` copies (any other
    /// key drops the offer).
    pub copy_offer: Option<String>,
    /// Not isolated: the shell probe whose risk was named, which the next press runs.
    pub risk_ack: Option<String>,
    /// The export just written, shown whole in a popup until a key closes it.
    pub export_shown: Option<super::exported::ExportShown>,
}

impl Default for Session {
    fn default() -> Session {
        Session {
            live: Live::Unavailable("no query engine was started".into()),
            data_label: None,
            sandbox: None,
            export_team: None,
            recording: false,
            evidence: Evidence::None,
            write: false,
            aim: Default::default(),
            namespace: None,
            kubeconfig: None,
            open: Vec::new(),
            export_armed: false,
            quit_armed: false,
            quit: false,
            loading: None,
            copy_offer: None,
            risk_ack: None,
            export_shown: None,
        }
    }
}

/// The status-line message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The message; for an export, what was written (the view words the rest).
    pub text: String,
    pub level: Level,
    pub kind: NoticeKind,
}

/// What a status-line message is, so the view words it from typed parts and nothing is
/// decided by reading text tsgnav wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NoticeKind {
    /// The text, shown as it is.
    #[default]
    Plain,
    /// An export was written: the text names it; the view puts "Evidence exported to"
    /// before it and, while the copy offer stands, says that `y` copies the head and key id
    /// (early: the text ends in a long path).
    Exported,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Error,
}

impl Notice {
    pub fn is_error(&self) -> bool {
        self.level == Level::Error
    }

    /// The message as the status line shows it; `copy_offered`: the next `y` copies the
    /// chain head and key id.
    pub fn shown(&self, copy_offered: bool) -> std::borrow::Cow<'_, str> {
        match (self.kind, copy_offered) {
            (NoticeKind::Plain, _) => self.text.as_str().into(),
            (NoticeKind::Exported, false) => format!("Evidence exported to {}", self.text).into(),
            (NoticeKind::Exported, true) => format!(
                "Evidence exported (y copies head + key id) to {}",
                self.text
            )
            .into(),
        }
    }
}
