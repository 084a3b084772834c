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
    pub(in crate::tui) title: String,
    pub(in crate::tui) stamp: super::stamp::Stamp,
    pub(in crate::tui) command: String,
    pub(in crate::tui) lines: Vec<String>,
    pub(in crate::tui) top: usize,
    pub(in crate::tui) left: usize,
    pub(in crate::tui) wrap: bool,
    pub(in crate::tui) numbers: bool,
    /// The search being typed after `/`.
    pub(in crate::tui) typing: Option<String>,
    pub(in crate::tui) query: String,
    pub(in crate::tui) hits: Vec<usize>,
    pub(in crate::tui) hit: usize,
    /// Rows of text drawn last frame (for paging).
    pub(in crate::tui) rows: usize,
    /// Columns of text (after the gutter) drawn last frame; 0 before the first frame. With
    /// wrap on, `top` counts wrapped rows at this width, so paging reaches the last line.
    pub(in crate::tui) width: usize,
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
    /// Wrapping long lines (tables start unwrapped).
    pub fn wrap(&self) -> bool {
        self.wrap
    }
    /// The lines that match the last search.
    pub fn hits(&self) -> &[usize] {
        &self.hits
    }

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

/// What a key on the pager asks of the rest of the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PagerKey {
    /// Handled inside the pager (it redraws).
    Done,
    /// Not a pager key: nothing to redraw.
    Ignored,
    /// Close the pager.
    Close,
    /// A status-line message (`true`: an error).
    Say(String, bool),
    /// Copy this text, saying so.
    Copy { text: String, said: String },
}

impl Pager {
    /// A key while the pager is open (Ctrl-C is the app's, not the pager's).
    pub fn key(&mut self, ev: KeyEvent) -> PagerKey {
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        if let Some(buf) = self.typing.as_mut() {
            match ev.code {
                KeyCode::Esc => self.typing = None,
                KeyCode::Enter => {
                    self.query = self.typing.take().unwrap_or_default();
                    self.search(true);
                    if self.hits.is_empty() && !self.query.is_empty() {
                        let q = &self.query;
                        return PagerKey::Say(format!("`{q}` is not in this output."), true);
                    }
                }
                KeyCode::Backspace => {
                    buf.pop();
                }
                KeyCode::Char(c) if !ctrl => buf.push(c),
                _ => {}
            }
            return PagerKey::Done;
        }
        let page = self.rows.max(1);
        match ev.code {
            KeyCode::Esc | KeyCode::Char('q') => return PagerKey::Close,
            KeyCode::Down | KeyCode::Char('j') | KeyCode::Enter => self.top += 1,
            KeyCode::Up | KeyCode::Char('k') => self.top = self.top.saturating_sub(1),
            KeyCode::Char('d') if ctrl => self.top += page / 2,
            KeyCode::Char('u') if ctrl => self.top = self.top.saturating_sub(page / 2),
            KeyCode::PageDown | KeyCode::Char(' ') | KeyCode::Char('f') => self.top += page,
            KeyCode::PageUp | KeyCode::Char('b') => self.top = self.top.saturating_sub(page),
            KeyCode::Home | KeyCode::Char('g') => self.top = 0,
            KeyCode::End | KeyCode::Char('G') => self.top = usize::MAX,
            KeyCode::Right | KeyCode::Char('l') if !self.wrap => self.left += 8,
            KeyCode::Left | KeyCode::Char('h') if !self.wrap => {
                self.left = self.left.saturating_sub(8)
            }
            KeyCode::Char('0') => self.left = 0,
            KeyCode::Char('w') => self.toggle_wrap(),
            KeyCode::Char('#') => self.numbers = !self.numbers,
            KeyCode::Char('/') => self.typing = Some(String::new()),
            KeyCode::Char('n') if !self.hits.is_empty() => {
                self.hit = (self.hit + 1) % self.hits.len();
                self.show_hit();
            }
            KeyCode::Char('N') if !self.hits.is_empty() => {
                self.hit = (self.hit + self.hits.len() - 1) % self.hits.len();
                self.show_hit();
            }
            KeyCode::Char('y') => {
                let n = self.lines.len();
                return PagerKey::Copy {
                    text: self.lines.join("\n"),
                    said: format!("Copied the output ({n} lines) to the clipboard (OSC 52)."),
                };
            }
            KeyCode::Char('Y') => {
                return PagerKey::Copy {
                    text: self.command.trim_end().to_string(),
                    said: "Copied the command to the clipboard (OSC 52).".into(),
                };
            }
            _ => return PagerKey::Ignored,
        }
        self.top = self.top.min(self.max_top());
        PagerKey::Done
    }
}

/// A key while the pager is open.
pub fn key(app: &mut App, ev: KeyEvent) -> Vec<Effect> {
    if ev.modifiers.contains(KeyModifiers::CONTROL) && ev.code == KeyCode::Char('c') {
        return super::guard::force_quit(app);
    }
    let Some(p) = app.reading.pager.as_mut() else {
        return Vec::new();
    };
    match p.key(ev) {
        PagerKey::Done => {}
        PagerKey::Ignored => app.dirty = false,
        PagerKey::Close => app.reading.pager = None,
        PagerKey::Say(text, error) => app.set_message(text, error),
        PagerKey::Copy { text, said } => {
            app.set_message(said, false);
            return vec![Effect::Copy(text)];
        }
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
