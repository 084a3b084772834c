//! The TUI's state: the library, the navigator, what is on screen, input fields, messages,
//! probe results and the render cache. Plain data plus read-only helpers; `update` changes
//! it. Must not import IO (std::fs, std::process, std::env, tokio).

use std::collections::HashMap;

use ratatui::layout::Rect;
use ratatui::text::Line;

use super::keymap::Keymap;
use super::mitigation::Mitigation;
use super::search::Hit;
use super::theme::Theme;
use crate::mitigate::OpenMitigation;
use crate::nav::{self, NavState};
use crate::tsg::{Guide, Library, Node, SafetyClass};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Library,
    Guide,
}

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

/// What the lower panel of the guide view lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Panel {
    Actions,
    Vars,
}

/// A selectable entry of the actions panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    Choice(usize),
    Check(usize),
    Probe(usize),
}

/// Whether probes can run in this session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Live {
    Available,
    /// Why not, in words for the operator.
    Unavailable(String),
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

/// One line of a chart: its label (`{pod="router-1"}`) and (unix seconds, value) points.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChartSeries {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// Where things were drawn last frame (for mouse clicks and paging).
#[derive(Debug, Clone, Default)]
pub struct Areas {
    pub outline: Rect,
    pub outline_top: usize,
    pub items: Rect,
    pub items_top: usize,
    pub node: Rect,
    pub list: Rect,
    pub list_top: usize,
}

/// Wrapped lines of the current node for one width, computed once per (node, width, results).
#[derive(Debug, Clone, Default)]
pub struct RenderCache {
    pub key: Option<(String, u16, u64)>,
    pub lines: Vec<Line<'static>>,
}

#[derive(Debug, Clone)]
pub struct App {
    pub lib: Library,
    pub nav: NavState,
    pub keymap: Keymap,
    pub theme: Theme,
    pub screen: Screen,
    pub help: bool,
    pub help_scroll: usize,
    pub input: Option<Input>,
    pub panel: Panel,
    /// The library screen's query and the hits it selects from (also the guide search's).
    pub query: String,
    pub hits: Vec<Hit>,
    pub hit_sel: usize,
    pub scroll: usize,
    pub item_sel: usize,
    pub var_sel: usize,
    /// Outline cursor: node index in the current guide.
    pub outline_sel: usize,
    /// Status-line message and whether it is an error.
    pub message: Option<(String, bool)>,
    pub live: Live,
    /// Where answers come from when they are not live (the demo's simulation, a replayed
    /// session); the status line shows it in place of "live queries on".
    pub data_label: Option<String>,
    /// The escalation team named by `:export TEAM`, if any.
    pub export_team: Option<String>,
    /// Whether the runtime records evidence (a session opens at the first step entered).
    pub recording: bool,
    /// `Some(exported)` when an evidence session is recording.
    pub evidence: Option<bool>,
    pub quit_armed: bool,
    pub quit: bool,
    pub results: HashMap<(String, usize), ProbeResult>,
    pub results_gen: u64,
    /// Set by `update` when the screen must be drawn again.
    pub dirty: bool,
    pub areas: Areas,
    pub cache: RenderCache,
    /// Safety classes of the current node's probes (node id, classes), set on navigation.
    pub class_cache: Option<(String, Vec<SafetyClass>)>,
    /// Write mode: off (read-only) unless `--write` or the toggle turned it on.
    pub write: bool,
    /// The name typed to turn write mode on (the session's kube context), if it has one.
    pub write_target: Option<String>,
    /// The confirmation screen, while a mitigation is being confirmed.
    pub mitigation: Option<Mitigation>,
    /// Mitigations that still have to be undone (from the evidence journal).
    pub open: Vec<OpenMitigation>,
    /// `:export` was asked while mitigations are open; asking again exports anyway.
    pub export_armed: bool,
    /// Background tasks (long-running probes) still running: (id, what).
    pub tasks: Vec<(u64, String)>,
    /// Read-only probes running: (node, probe).
    pub running: Vec<(String, usize)>,
    /// Guides still being read in the background: (files read, files found).
    pub loading: Option<(usize, usize)>,
    /// The library screen's "Firing" section (live alerts from Alertmanager).
    pub firing: super::firing::Firing,
}

impl App {
    pub fn new(lib: Library, keymap: Keymap, theme: Theme) -> App {
        let nav = NavState::new(&lib);
        let hits = super::search::library_hits(&lib, "", usize::MAX);
        App {
            lib,
            nav,
            keymap,
            theme,
            screen: Screen::Library,
            help: false,
            help_scroll: 0,
            input: None,
            panel: Panel::Actions,
            query: String::new(),
            hits,
            hit_sel: 0,
            scroll: 0,
            item_sel: 0,
            var_sel: 0,
            outline_sel: 0,
            message: None,
            live: Live::Unavailable("no query engine was started".into()),
            data_label: None,
            export_team: None,
            recording: false,
            evidence: None,
            quit_armed: false,
            quit: false,
            results: HashMap::new(),
            results_gen: 0,
            dirty: true,
            areas: Areas::default(),
            cache: RenderCache::default(),
            class_cache: None,
            write: false,
            write_target: None,
            mitigation: None,
            open: Vec::new(),
            export_armed: false,
            tasks: Vec::new(),
            running: Vec::new(),
            loading: None,
            firing: Default::default(),
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
        self.nav.index.position(self.current_id()?).map(|(g, _)| g)
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
        match (&self.class_cache, self.current_id()) {
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

    pub fn set_message(&mut self, text: impl Into<String>, error: bool) {
        self.message = Some((text.into(), error));
    }
}
