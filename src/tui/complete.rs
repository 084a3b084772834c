//! The palette's completion and history: what Tab offers after the typed word (command names;
//! step slugs for `:goto`, the open guide's first; escalation teams for `:export`; variable
//! names for `:set`; alert names for `:alert`), Tab cycling through it, and ↑/↓ recalling
//! the lines run this session. Pure: part of `update()`; must not import IO.

use super::app::App;

/// At most this many lines are offered (the hint lists what fits of them).
const MAX: usize = 60;
/// Lines kept in the history.
const HISTORY: usize = 200;

/// The palette's memory for the session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaletteState {
    /// Lines run, oldest first.
    pub(in crate::tui) history: Vec<String>,
    /// While ↑/↓ recall: the history line shown, and the line typed before the first ↑.
    pub(in crate::tui) recall: Option<(usize, String)>,
    /// While Tab cycles: the line as typed before the first Tab, and the offer shown.
    pub(in crate::tui) cycle: Option<(String, usize)>,
}

impl PaletteState {
    /// Lines run this session, oldest first.
    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// A new `:` line: no recall or cycling from the last one.
    pub fn open(&mut self) {
        self.recall = None;
        self.cycle = None;
    }

    /// ↑ (`older`) or ↓ through the lines run this session; `false` when nothing changed.
    pub fn recall(&mut self, buf: &mut String, older: bool) -> bool {
        let n = self.history.len();
        let next = match (self.recall.take(), older) {
            (None, true) if n > 0 => Some((n - 1, buf.clone())),
            (None, _) => None,
            (Some((i, draft)), true) => Some((i.saturating_sub(1), draft)),
            (Some((i, draft)), false) if i + 1 < n => Some((i + 1, draft)),
            (Some((_, draft)), false) => {
                *buf = draft;
                return true;
            }
        };
        let Some((i, draft)) = next else {
            return false;
        };
        buf.clone_from(&self.history[i]);
        self.recall = Some((i, draft));
        self.cycle = None;
        true
    }

    /// A line was run: remembered (once, newest last).
    pub fn remember(&mut self, line: &str) {
        self.open();
        if line.is_empty() || self.history.last().map(String::as_str) == Some(line) {
            return;
        }
        self.history.push(line.to_string());
        if self.history.len() > HISTORY {
            self.history.remove(0);
        }
    }
}

/// One offer: the whole palette line it makes, and the word the hint shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    pub line: String,
    pub label: String,
}

/// What the typed line could become, best first.
pub fn offers(app: &App, line: &str) -> Vec<Offer> {
    let line = line.trim_start();
    let Some((name, arg)) = line.split_once(char::is_whitespace) else {
        return super::command::completions(line)
            .into_iter()
            .map(|n| Offer {
                line: format!("{n} "),
                label: n.to_string(),
            })
            .collect();
    };
    let arg = arg.trim_start();
    let words: Vec<String> = match name {
        "goto" => steps(app, arg),
        "export" => teams(app, arg),
        "set" if !arg.contains('=') => vars(app, arg),
        "alert" => alerts(app, arg),
        _ => Vec::new(),
    };
    words
        .into_iter()
        .take(MAX)
        .map(|w| Offer {
            line: match name {
                "set" => format!("set {w}="),
                _ => format!("{name} {w}"),
            },
            label: w,
        })
        .collect()
}

/// The line as typed before Tab started cycling, while `buf` still shows one of its offers.
fn cycling(app: &App, buf: &str) -> Option<(String, usize, usize)> {
    let (typed, i) = app.palette.cycle.as_ref()?;
    let list = offers(app, typed);
    list.get(*i)
        .filter(|o| o.line == buf)
        .map(|_| (typed.clone(), *i, list.len()))
}

/// The status line's hint: the offers for the line (as first typed while Tab cycles).
pub fn hint(app: &App, buf: &str) -> String {
    let typed = cycling(app, buf).map_or_else(|| buf.to_string(), |(t, ..)| t);
    let list = offers(app, &typed);
    match list.as_slice() {
        [] => String::new(),
        [one] if one.line.trim() == buf.trim() => String::new(),
        list => {
            let shown: Vec<&str> = list.iter().take(8).map(|o| o.label.as_str()).collect();
            let more = match list.len() {
                n if n > 8 => format!(" +{} more", n - 8),
                _ => String::new(),
            };
            format!("  Tab: {}{more}", shown.join(" · "))
        }
    }
}

/// Tab (`back`: Shift-Tab): the next offer for the line as first typed; `false` when there
/// is nothing to offer.
pub fn tab(app: &mut App, buf: &mut String, back: bool) -> bool {
    let (typed, at) = match cycling(app, buf) {
        Some((typed, i, n)) => (typed, if back { (i + n - 1) % n } else { (i + 1) % n }),
        None => (buf.clone(), 0),
    };
    app.palette.cycle = None;
    let list = offers(app, &typed);
    let Some(o) = list.get(at) else {
        return false;
    };
    *buf = o.line.clone();
    // One offer completes; several cycle on the next Tab.
    if list.len() > 1 {
        app.palette.cycle = Some((typed, at));
    }
    true
}

fn starts(word: &str, typed: &str) -> bool {
    word.to_lowercase().starts_with(&typed.to_lowercase())
}

/// Slugs of the open guide, then `path#slug` of the other guides.
fn steps(app: &App, typed: &str) -> Vec<String> {
    let current = app.current_guide_index();
    let mut out: Vec<String> = Vec::new();
    if let Some(g) = current.and_then(|g| app.lib.guides.get(g)) {
        out.extend(
            g.nodes
                .iter()
                .filter(|n| starts(n.slug(), typed) || starts(&n.id, typed))
                .map(|n| n.slug().to_string()),
        );
    }
    for (i, g) in app.lib.guides.iter().enumerate() {
        if Some(i) == current || g.is_template() {
            continue;
        }
        out.extend(
            g.nodes
                .iter()
                .filter(|n| starts(n.slug(), typed) || starts(&n.id, typed))
                .map(|n| n.id.clone()),
        );
        if out.len() >= MAX {
            break;
        }
    }
    out
}

/// The escalation teams of the open guide (the export checks against those), else of all.
fn teams(app: &App, typed: &str) -> Vec<String> {
    let guides: Vec<&crate::tsg::Guide> = match app.current_guide() {
        Some(g) => vec![g],
        None => app.lib.guides.iter().collect(),
    };
    let mut out: Vec<String> = Vec::new();
    for e in guides.iter().flat_map(|g| &g.escalations) {
        if starts(&e.team, typed) && !out.contains(&e.team) {
            out.push(e.team.clone());
        }
    }
    out
}

/// Variables of this step's probes, then those with a value, then the guide's.
fn vars(app: &App, typed: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |v: &String| {
        if starts(v, typed) && !out.contains(v) {
            out.push(v.clone());
        }
    };
    if let Some(n) = app.current_node() {
        n.probes.iter().flat_map(|p| &p.vars).for_each(&mut add);
    }
    app.nav.vars.keys().for_each(&mut add);
    if let Some(g) = app.current_guide() {
        g.nodes
            .iter()
            .flat_map(|n| &n.probes)
            .flat_map(|p| &p.vars)
            .for_each(&mut add);
    }
    out
}

/// Alert names the library routes, the open guide's first.
fn alerts(app: &App, typed: &str) -> Vec<String> {
    let current = app.current_guide_index();
    let mut order: Vec<&crate::tsg::Guide> = current
        .and_then(|g| app.lib.guides.get(g))
        .into_iter()
        .collect();
    order.extend(
        app.lib
            .guides
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != current)
            .map(|(_, g)| g),
    );
    let mut out: Vec<String> = Vec::new();
    for r in order.iter().flat_map(|g| &g.routes) {
        if starts(&r.alert, typed) && !out.contains(&r.alert) {
            out.push(r.alert.clone());
        }
    }
    out
}
