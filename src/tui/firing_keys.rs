//! Keys of the library screen's "Firing" section: the selection moves from the alerts into
//! the guides list and back; Enter on an alert lands on its routed step with its labels as
//! variables (and, with `auto_run`, starts the step's read-only probes through the normal
//! gate), or opens the library search prefilled with its name when nothing routes it.
//! Pure: must not import IO nor `crate::query` / `crate::evidence`.

use super::app::App;
use super::command::Command;
use super::effect::Effect;
use super::firing::{Firing, SilenceDraft};
use super::navigate::{nav_cmd, run};
use super::search;
use crate::nav::{AlertContext, Cmd};
use crate::tsg::SafetyClass;

#[cfg(test)]
#[path = "firing_keys_tests.rs"]
mod tests;

/// What a key in the Firing section asks of the rest of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FiringKey {
    /// Not the section's key: the guides list takes it.
    Pass,
    /// The selection moved inside the section.
    Moved,
    /// The selection left the section, down onto the first guide.
    ToGuides,
    /// Enter on this alert.
    Open(usize),
    /// `S`: a silence for the selected alert.
    Silence,
}

impl Firing {
    /// A key on the library screen, as it concerns the Firing section. `guides_at_top`: the
    /// guides list's selection is on its first line (Up from there climbs into the section).
    pub fn key(&mut self, a: &Command, guides_at_top: bool) -> FiringKey {
        if !self.enabled {
            return FiringKey::Pass;
        }
        let n = self.alerts.len();
        match (a, self.sel) {
            (Command::NextItem | Command::ScrollDown, Some(i)) if i + 1 < n => {
                self.sel = Some(i + 1)
            }
            (Command::NextItem | Command::ScrollDown, Some(_)) => {
                self.sel = None;
                return FiringKey::ToGuides;
            }
            (Command::PrevItem | Command::ScrollUp, Some(i)) => {
                self.sel = Some(i.saturating_sub(1))
            }
            (Command::PrevItem | Command::ScrollUp, None) if guides_at_top && n > 0 => {
                self.sel = Some(n - 1)
            }
            (Command::Top, _) if n > 0 => self.sel = Some(0),
            (Command::Bottom | Command::Search | Command::Cancel, Some(_)) => {
                self.sel = None;
                return FiringKey::Pass;
            }
            (Command::PageDown, Some(i)) => self.sel = Some((i + 10).min(n.saturating_sub(1))),
            (Command::PageUp, Some(i)) => self.sel = Some(i.saturating_sub(10)),
            (Command::Activate, Some(i)) => return FiringKey::Open(i),
            (Command::Silence, _) => return FiringKey::Silence,
            _ => return FiringKey::Pass,
        }
        FiringKey::Moved
    }
}

/// Handles `a` when it concerns the Firing section; `None` leaves it to the guides list.
pub fn key(app: &mut App, a: &Command) -> Option<Vec<Effect>> {
    match app.firing.key(a, app.search.sel == 0) {
        FiringKey::Pass => None,
        FiringKey::Moved => Some(Vec::new()),
        FiringKey::ToGuides => {
            app.search.sel = 0;
            Some(Vec::new())
        }
        FiringKey::Open(i) => Some(open(app, i)),
        FiringKey::Silence => Some(propose_silence(app)),
    }
}

/// Enter on alert `i`.
pub fn open(app: &mut App, i: usize) -> Vec<Effect> {
    let Some(alert) = app.firing.alerts.get(i).cloned() else {
        return Vec::new();
    };
    if alert.route.is_none() {
        if let Some((loaded, total)) = app.session.loading {
            let of = match (loaded, total) {
                (0, 0) => String::new(),
                (_, 0) => format!(" ({loaded} files read so far)"),
                _ => format!(" ({loaded} of {total} files read)"),
            };
            app.set_message(
                format!(
                    "Guides are still loading{of}: none loaded so far routes `{}`. Press Enter on it again when the library's \"loading\" count is gone.",
                    alert.name
                ),
                false,
            );
            return Vec::new();
        }
        app.search.query = alert.name.clone();
        app.search.hits = search::library_hits(&app.lib, &app.search.query, usize::MAX);
        app.search.sel = 0;
        app.firing.sel = None;
        app.set_message(
            format!(
                "No loaded guide routes `{}`: the search below shows what matches its name; add a row for it to a guide's Alert Triage table.",
                alert.name
            ),
            true,
        );
        return Vec::new();
    }
    let ctx = AlertContext {
        name: alert.name.clone(),
        labels: alert.labels.clone(),
        target: None,
        runbook_url: alert.runbook_url.clone(),
    };
    let (aimed, mut fx) = crate::tui::target::alert(app, &alert.name, &alert.labels);
    fx.extend(nav_cmd(app, Cmd::Alert(ctx)));
    let filled = app
        .nav
        .vars
        .values()
        .filter(|v| matches!(v.source, crate::nav::VarSource::AlertLabel(_)))
        .count();
    let started = if alert.auto_run {
        auto_run(app, &alert.name, &mut fx)
    } else {
        0
    };
    let auto = if started > 0 {
        format!("; started its {started} read-only probes (auto_run)")
    } else {
        String::new()
    };
    app.set_message(
        format!(
            "Alert `{}` from {}: {filled} variables filled from its labels (v shows them){auto}.{}",
            alert.name,
            alert.source,
            aimed.unwrap_or_default()
        ),
        false,
    );
    fx
}

/// `auto_run`: starts the read-only probes of the step alert `name` landed on (recorded as
/// started by the alert); how many.
fn auto_run(app: &mut App, name: &str, fx: &mut Vec<Effect>) -> usize {
    let mut started = 0;
    let read_only: Vec<usize> = app
        .classes()
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == SafetyClass::ReadOnly)
        .map(|(p, _)| p)
        .collect();
    let runnable: Vec<usize> = app
        .current_node()
        .map(|n| {
            read_only
                .into_iter()
                .filter(|p| {
                    n.probes
                        .get(*p)
                        .is_some_and(|pr| pr.lang != crate::tsg::Lang::Text)
                })
                .collect()
        })
        .unwrap_or_default();
    if let (Some(node), false) = (app.current_id(), runnable.is_empty()) {
        fx.push(Effect::Nav(crate::nav::Effect::Record(
            crate::nav::Event::AutoRun {
                alert: name.to_string(),
                node: node.to_string(),
                probes: runnable.clone(),
            },
        )));
    }
    for p in runnable {
        fx.extend(run(app, p));
        started += 1;
    }
    started
}

/// `S`: proposes a silence for the selected alert (every label an exact matcher, 2 hours);
/// see `silence` for the gate.
pub fn propose_silence(app: &mut App) -> Vec<Effect> {
    let Some(a) = app.firing.sel.and_then(|i| app.firing.alerts.get(i)) else {
        app.set_message(
            "Select a firing alert first (j/k in the Firing section).",
            true,
        );
        return Vec::new();
    };
    if !a.silenced_by.is_empty() {
        let ids = a.silenced_by.join(", ");
        app.set_message(format!("`{}` is already silenced ({ids}).", a.name), false);
        return Vec::new();
    }
    let draft = SilenceDraft {
        source: a.source.clone(),
        alert: a.name.clone(),
        labels: a.labels.clone(),
        hours: 2,
    };
    super::silence::propose(app, draft)
}
