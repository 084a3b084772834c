//! Reading a probe's whole output: the full-screen pager's state and keys (scroll both ways,
//! `/` search with n/N, wrap toggle, line numbers, `y` copies the output and `Y` the command).
//! When each output ran (its stamp) lives in [`super::stamp`]. Pure: part of `update()`;
//! must not import IO.

use std::collections::HashMap;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::App;
use super::effect::Effect;
use crate::tsg::ProbeRef;

pub use super::stamp::{stale, stamp, started, Ran, Stamp};

/// Reading state kept apart from the rest of the app: the clock the runtime sets, when each
/// output ran, and the open pager.
#[derive(Debug, Clone, Default)]
pub struct Reading {
    /// The wall clock (HH:MM:SS) as the runtime last set it; empty in tests.
    pub now: String,
    /// Probe → when it was started and with which values.
    pub ran: HashMap<ProbeRef, Ran>,
    pub pager: Option<Pager>,
}

/// The full-screen pager over one output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pager {
    pub title: String,
    pub stamp: super::stamp::Stamp,
    pub command: String,
    pub lines: Vec<String>,
    pub top: usize,
    pub left: usize,
    pub wrap: bool,
    pub numbers: bool,
    /// The search being typed after `/`.
    pub typing: Option<String>,
    pub query: String,
    pub hits: Vec<usize>,
    pub hit: usize,
    /// Rows of text drawn last frame (for paging).
    pub rows: usize,
    /// Columns of text (after the gutter) drawn last frame; 0 before the first frame. With
    /// wrap on, `top` counts wrapped rows at this width, so paging reaches the last line.
    pub width: usize,
}

/// Cuts `s` into rows of at most `w` columns (characters kept as they are: columns line up).
pub fn wrap_rows(s: &str, w: usize) -> Vec<String> {
    let w = w.max(1);
    let mut out = vec![String::new()];
    let mut used = 0;
    for c in s.chars() {
        let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + cw > w && used > 0 {
            out.push(String::new());
            used = 0;
        }
        if let Some(last) = out.last_mut() {
            last.push(c);
        }
        used += cw;
    }
    out
}

/// A table's header: two or more upper-case words set apart by runs of spaces.
fn tabular(lines: &[String]) -> bool {
    lines.iter().take(5).any(|l| {
        let t = l.trim_start_matches(['⎿', ' ', '$']);
        t.contains("  ")
            && t.split("  ").filter(|w| !w.trim().is_empty()).count() >= 2
            && t.chars()
                .filter(|c| c.is_alphabetic())
                .all(|c| c.is_uppercase())
            && t.chars().any(char::is_alphabetic)
    })
}

impl Pager {
    pub fn new(title: String, stamp: super::stamp::Stamp, command: String, text: &str) -> Pager {
        let lines: Vec<String> = text.lines().map(|l| l.replace('\t', "    ")).collect();
        Pager {
            // Tables keep their columns: no wrapping unless asked.
            wrap: !tabular(&lines),
            numbers: true,
            title,
            stamp,
            command,
            lines,
            ..Pager::default()
        }
    }

    /// Screen rows line `i` takes at `width`: one with wrap off or before the first frame.
    fn height(&self, i: usize, width: usize) -> usize {
        match self.lines.get(i) {
            Some(l) if self.wrap && width > 0 => wrap_rows(l, width).len(),
            Some(_) => 1,
            None => 0,
        }
    }

    /// Screen rows of the whole output at `width` text columns (wrapped rows with wrap on).
    pub fn total_rows(&self, width: usize) -> usize {
        (0..self.lines.len()).map(|i| self.height(i, width)).sum()
    }

    /// The line that screen row `row` falls on at `width`, and the row inside that line.
    pub fn locate(&self, row: usize, width: usize) -> (usize, usize) {
        let mut left = row;
        for i in 0..self.lines.len() {
            let h = self.height(i, width);
            if left < h {
                return (i, left);
            }
            left -= h;
        }
        (self.lines.len(), 0)
    }

    /// The first screen row of line `line`.
    fn row_of(&self, line: usize) -> usize {
        (0..line.min(self.lines.len()))
            .map(|i| self.height(i, self.width))
            .sum()
    }

    fn max_top(&self) -> usize {
        self.total_rows(self.width).saturating_sub(self.rows.max(1))
    }

    /// Wrap on or off, keeping the line at the top in view.
    fn toggle_wrap(&mut self) {
        let (line, _) = self.locate(self.top, self.width);
        self.wrap = !self.wrap;
        self.left = 0;
        self.top = self.row_of(line);
    }

    fn search(&mut self, forward: bool) {
        let q = self.query.to_lowercase();
        self.hits = self
            .lines
            .iter()
            .enumerate()
            .filter(|(_, l)| !q.is_empty() && l.to_lowercase().contains(&q))
            .map(|(i, _)| i)
            .collect();
        if self.hits.is_empty() {
            return;
        }
        let from = self.locate(self.top, self.width).0;
        self.hit = if forward {
            self.hits.iter().position(|h| *h >= from).unwrap_or(0)
        } else {
            self.hits
                .iter()
                .rposition(|h| *h <= from)
                .unwrap_or(self.hits.len() - 1)
        };
        self.show_hit();
    }

    fn show_hit(&mut self) {
        let Some(&line) = self.hits.get(self.hit) else {
            return;
        };
        self.top = self.row_of(line);
        if !self.wrap {
            // Scrolls sideways so that the match is in sight.
            let lower = self.lines[line].to_lowercase();
            let col = lower
                .find(&self.query.to_lowercase())
                .and_then(|b| lower.get(..b))
                .map(|s| s.chars().count())
                .unwrap_or(0);
            self.left = col.saturating_sub(8);
        }
    }
}

/// `o`: the whole output of the selected probe (or the first one of this step that has one).
pub fn open(app: &mut App) -> Vec<Effect> {
    let Some(node) = app.current_node() else {
        return Vec::new();
    };
    let id = node.id.clone();
    let selected = match app.items().get(app.screen.item_sel) {
        Some(super::app::Item::Probe(p)) => Some(*p),
        _ => None,
    };
    let has = |p: usize| app.probes.results.contains_key(&ProbeRef::new(&id, p));
    let probe = selected
        .filter(|p| has(*p))
        .or_else(|| (0..node.probes.len()).find(|p| has(*p)));
    let Some(p) = probe else {
        app.set_message(
            "No output on this step yet: r runs the selected probe, then o shows all of it.",
            false,
        );
        return Vec::new();
    };
    let code = node
        .probes
        .get(p)
        .map(|q| q.code.clone())
        .unwrap_or_default();
    let name = node
        .probes
        .get(p)
        .and_then(|q| q.attrs.get("name"))
        .map(|n| format!(" {n}"))
        .unwrap_or_default();
    let key = ProbeRef::new(id, p);
    let stamp = stamp(app, &key);
    let text = app
        .probes
        .results
        .get(&key)
        .map(|r| r.text.clone())
        .unwrap_or_default();
    let title = format!("probe {}{name} · {}", p + 1, node.title);
    app.notice = None;
    app.reading.pager = Some(Pager::new(title, stamp, code, &text));
    Vec::new()
}

/// `y` outside the pager: the selected probe's command to the clipboard.
pub fn copy_command(app: &mut App) -> Vec<Effect> {
    let p = match app.items().get(app.screen.item_sel) {
        Some(super::app::Item::Probe(p)) => *p,
        _ => {
            app.set_message("Select a probe first (Tab): y copies its command.", false);
            return Vec::new();
        }
    };
    let Some(code) = app
        .current_node()
        .and_then(|n| n.probes.get(p))
        .map(|q| q.code.trim_end().to_string())
    else {
        return Vec::new();
    };
    app.set_message(
        format!(
            "Copied probe {}'s command to the clipboard (OSC 52).",
            p + 1
        ),
        false,
    );
    vec![Effect::Copy(code)]
}

/// A key while the pager is open.
pub fn key(app: &mut App, ev: KeyEvent) -> Vec<Effect> {
    let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && ev.code == KeyCode::Char('c') {
        return super::guard::force_quit(app);
    }
    let Some(p) = app.reading.pager.as_mut() else {
        return Vec::new();
    };
    if let Some(buf) = p.typing.as_mut() {
        match ev.code {
            KeyCode::Esc => p.typing = None,
            KeyCode::Enter => {
                p.query = p.typing.take().unwrap_or_default();
                p.search(true);
                if p.hits.is_empty() && !p.query.is_empty() {
                    let q = p.query.clone();
                    app.set_message(format!("`{q}` is not in this output."), true);
                }
            }
            KeyCode::Backspace => {
                buf.pop();
            }
            KeyCode::Char(c) if !ctrl => buf.push(c),
            _ => {}
        }
        return Vec::new();
    }
    let page = p.rows.max(1);
    match ev.code {
        KeyCode::Esc | KeyCode::Char('q') => app.reading.pager = None,
        KeyCode::Down | KeyCode::Char('j') | KeyCode::Enter => p.top += 1,
        KeyCode::Up | KeyCode::Char('k') => p.top = p.top.saturating_sub(1),
        KeyCode::Char('d') if ctrl => p.top += page / 2,
        KeyCode::Char('u') if ctrl => p.top = p.top.saturating_sub(page / 2),
        KeyCode::PageDown | KeyCode::Char(' ') | KeyCode::Char('f') => p.top += page,
        KeyCode::PageUp | KeyCode::Char('b') => p.top = p.top.saturating_sub(page),
        KeyCode::Home | KeyCode::Char('g') => p.top = 0,
        KeyCode::End | KeyCode::Char('G') => p.top = usize::MAX,
        KeyCode::Right | KeyCode::Char('l') if !p.wrap => p.left += 8,
        KeyCode::Left | KeyCode::Char('h') if !p.wrap => p.left = p.left.saturating_sub(8),
        KeyCode::Char('0') => p.left = 0,
        KeyCode::Char('w') => p.toggle_wrap(),
        KeyCode::Char('#') => p.numbers = !p.numbers,
        KeyCode::Char('/') => p.typing = Some(String::new()),
        KeyCode::Char('n') if !p.hits.is_empty() => {
            p.hit = (p.hit + 1) % p.hits.len();
            p.show_hit();
        }
        KeyCode::Char('N') if !p.hits.is_empty() => {
            p.hit = (p.hit + p.hits.len() - 1) % p.hits.len();
            p.show_hit();
        }
        KeyCode::Char('y') => {
            let text = p.lines.join("\n");
            let n = p.lines.len();
            app.set_message(
                format!("Copied the output ({n} lines) to the clipboard (OSC 52)."),
                false,
            );
            return vec![Effect::Copy(text)];
        }
        KeyCode::Char('Y') => {
            let text = p.command.trim_end().to_string();
            app.set_message("Copied the command to the clipboard (OSC 52).", false);
            return vec![Effect::Copy(text)];
        }
        _ => app.dirty = false,
    }
    if let Some(p) = app.reading.pager.as_mut() {
        p.top = p.top.min(p.max_top());
    }
    Vec::new()
}

/// What the view measured: the pager's rows, and on the confirmation screen whether the
/// command, target and field were drawn whole (Enter waits for that) and the scroll used.
pub fn drawn(app: &mut App, v: &crate::tui::state::Viewport) {
    if let Some(p) = app.reading.pager.as_mut() {
        p.rows = v.pager_rows;
        if p.width != v.pager_width && p.wrap {
            // The width changed (a resize, numbers on/off): keep the same line at the top.
            let (line, _) = p.locate(p.top, p.width);
            p.width = v.pager_width;
            p.top = p.row_of(line);
        }
        p.width = v.pager_width;
        p.top = p.top.min(p.max_top());
    }
    if let (Some(m), Some((whole, scroll))) = (app.mitigation.as_mut(), v.confirm) {
        m.command_seen |= whole;
        m.scroll = scroll;
        m.follow = false;
    }
}
