//! The TUI's model: the library, the navigator and the grouped state of [`super::state`]
//! (screen, search, probes, session, notice), plus read-only helpers. Only `update` writes
//! it; the view reads it and keeps its own [`super::frame::FrameState`]. Must not import IO
//! (std::fs, std::process, std::env, tokio).

use super::keymap::Keymap;
use super::mitigation::Mitigation;
use super::theme::Theme;
use crate::nav::{self, NavState};
use crate::tsg::{Guide, Library, Node, SafetyClass};

pub use super::state::{
    Areas, ChartSeries, DataLabel, Evidence, Level, Live, Notice, Panel, ProbeResult, ProbeState,
    Sandbox, Screen, ScreenState, SearchState, Session, Viewport,
};

/// A one-line input at the bottom of the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// `/`: fuzzy search (the library, or the open guide).
    Search { buf: String },
    /// `:`: a command.
    Palette { buf: String },
    /// A value for `var`; `rerun` is the probe waiting for it.
    Prompt {
        var: String,
        buf: String,
        rerun: Option<usize>,
    },
    /// Write mode: the session's kube context typed to turn it on.
    Write { buf: String },
}

/// A selectable entry of the actions panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    Choice(usize),
    Check(usize),
    Probe(usize),
}

#[derive(Debug, Clone)]
pub struct App {
    pub lib: Library,
    pub nav: NavState,
    pub keymap: Keymap,
    pub theme: Theme,
    pub screen: ScreenState,
    pub input: Option<Input>,
    pub search: SearchState,
    pub probes: ProbeState,
    pub session: Session,
    /// The confirmation screen, while a mitigation is being confirmed.
    pub mitigation: Option<Mitigation>,
    /// The status-line message.
    pub notice: Option<Notice>,
    /// Set by `update` when the screen must be drawn again.
    pub dirty: bool,
    /// The library screen's "Firing" section (live alerts from Alertmanager).
    pub firing: super::firing::Firing,
    /// What quitting would lose (running mutations, runs and notes not exported).
    pub guard: super::guard::Guard,
    /// When each output ran and with what; the output pager.
    pub reading: super::pager::Reading,
    /// The palette's history and Tab cycling.
    pub palette: super::complete::PaletteState,
    /// The wave screen of `:waves`, while it is open.
    pub waves: Option<super::waves::Waves>,
    /// The library's cross-guide links, resolved again as each batch of guides comes in.
    pub linker: crate::tsg::Linker,
}

impl App {
    pub fn new(mut lib: Library, keymap: Keymap, theme: Theme) -> App {
        // Linked already; the linker learns its targets for the guides still to come.
        let mut linker = crate::tsg::Linker::default();
        linker.extend(&mut lib, 0);
        let nav = NavState::new(&lib);
        let hits = super::search::library_hits(&lib, "", usize::MAX);
        App {
            lib,
            nav,
            keymap,
            theme,
            screen: ScreenState::default(),
            input: None,
            search: SearchState {
                hits,
                ..SearchState::default()
            },
            probes: ProbeState::default(),
            session: Session::default(),
            mitigation: None,
            notice: None,
            dirty: true,
            firing: Default::default(),
            guard: Default::default(),
            reading: Default::default(),
            palette: Default::default(),
            waves: None,
            linker,
        }
    }

    pub fn current_id(&self) -> Option<&str> {
        self.nav.current.as_deref()
    }
    pub fn current_node(&self) -> Option<&Node> {
        self.nav.index.node(&self.lib, self.current_id()?)
    }
    pub fn current_guide(&self) -> Option<&Guide> {
        self.nav.index.guide(&self.lib, self.current_id()?)
    }
    pub fn current_guide_index(&self) -> Option<usize> {
        self.nav
            .index
            .position(&self.lib, self.current_id()?)
            .map(|(g, _)| g)
    }

    /// The actions panel: choices, then checklist items, then probes.
    pub fn items(&self) -> Vec<Item> {
        let Some(id) = self.current_id() else {
            return Vec::new();
        };
        let Some(node) = self.current_node() else {
            return Vec::new();
        };
        let choices = nav::choices(&self.lib, &self.nav.index, id).len();
        let checks = nav::checklist(node).len();
        let probes = node
            .probes
            .iter()
            .filter(|p| p.lang != crate::tsg::Lang::Text)
            .count();
        let runnable = node
            .probes
            .iter()
            .enumerate()
            .filter(|(_, p)| p.lang != crate::tsg::Lang::Text)
            .map(|(i, _)| Item::Probe(i));
        (0..choices)
            .map(Item::Choice)
            .chain((0..checks).map(Item::Check))
            .chain(runnable.take(probes))
            .collect()
    }

    /// The safety class of each probe of the current node (cached per node by `update`).
    pub fn classes(&self) -> Vec<SafetyClass> {
        match (&self.probes.classes, self.current_id()) {
            (Some((id, c)), Some(cur)) if id == cur => c.clone(),
            _ => self
                .current_node()
                .map(|n| n.probes.iter().map(crate::safety::classify_probe).collect())
                .unwrap_or_default(),
        }
    }

    /// Variables of the current guide with their values (if any).
    pub fn vars(&self) -> Vec<(String, Option<&nav::Var>)> {
        let Some(g) = self.current_guide() else {
            return Vec::new();
        };
        nav::guide_vars(g)
            .into_iter()
            .map(|v| {
                let val = self.nav.vars.get(&v);
                (v, val)
            })
            .collect()
    }

    /// Sets the status-line message; `error` styles it as one.
    pub fn set_message(&mut self, text: impl Into<String>, error: bool) {
        self.notice = Some(Notice {
            text: text.into(),
            level: if error { Level::Error } else { Level::Info },
            kind: Default::default(),
        });
    }
}
