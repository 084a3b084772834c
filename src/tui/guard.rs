//! What quitting would lose, and the quit keys that ask first only then: `q` asks when an
//! open mitigation, a running mutation, or probe runs or notes (steps marked, items ticked)
//! not yet exported would be left behind, else quits at once; Ctrl-c asks once when a
//! mitigation is open or a mutation is running (a second Ctrl-c quits). Pure: part of
//! `update()`; must not import IO.

use super::app::{App, Evidence};
use super::effect::Effect;
use crate::tsg::ProbeRef;

/// The state the quit keys read, kept apart from the rest of the app.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guard {
    /// Confirmed mutations still running.
    pub mutations: Vec<ProbeRef>,
    /// Probe runs recorded since the last export.
    pub runs: usize,
    /// Notes recorded since the last export: steps marked done or skipped, items ticked.
    pub notes: usize,
    /// Ctrl-c was pressed once while something was at stake.
    pub ctrl_c_armed: bool,
}

/// A confirmed mutation started (counted until its result arrives).
pub fn mutation_started(app: &mut App, probe: &ProbeRef) {
    app.guard.mutations.push(probe.clone());
}

/// Clears what was at stake once the evidence was exported.
pub fn exported(app: &mut App) {
    app.guard.runs = 0;
    app.guard.notes = 0;
}

/// A probe's result arrived (a mutation among them ends).
pub fn probe_finished(app: &mut App, probe: &ProbeRef) {
    app.guard.mutations.retain(|p| p != probe);
    if app.session.evidence != Evidence::None {
        app.guard.runs += 1;
    }
}

/// "a confirmed mutation is still running (probe 2 of Strategy 2: …)", if one is.
fn running_mutation(app: &App) -> Option<String> {
    let probe = app.guard.mutations.first()?;
    let title = app
        .nav
        .index
        .node(&app.lib, probe.node.as_str())
        .map(|n| n.title.clone())
        .unwrap_or_else(|| probe.node.to_string());
    Some(format!(
        "a confirmed mutation is still running (probe {} of {title})",
        probe.index + 1
    ))
}

/// `q`: quits at once unless something would be lost; then asks once.
pub fn quit(app: &mut App) -> Vec<Effect> {
    if app.session.quit_armed {
        app.session.quit = true;
        return Vec::new();
    }
    let warning = if let Some(w) = super::silence::quit_warning(app) {
        Some(w)
    } else if !app.session.open.is_empty() {
        let open = super::flow::open_warning(app);
        Some(format!(
            "Press q again to quit with it open, or restore first. {open}."
        ))
    } else if let Some(m) = running_mutation(app) {
        Some(format!(
            "Press q again to quit while {m}; its result would not be shown."
        ))
    } else if app.session.evidence != Evidence::None && app.guard.runs + app.guard.notes > 0 {
        let plural = |n: usize, what: &str| match n {
            0 => None,
            1 => Some(format!("1 {what}")),
            n => Some(format!("{n} {what}s")),
        };
        let what: Vec<String> = [
            plural(app.guard.runs, "probe run"),
            plural(app.guard.notes, "note"),
        ]
        .into_iter()
        .flatten()
        .collect();
        Some(format!(
            "Evidence has not been exported ({} since the last export): :export first, or \
             press q again to quit anyway.",
            what.join(", ")
        ))
    } else {
        None
    };
    match warning {
        Some(w) => {
            app.session.quit_armed = true;
            app.set_message(w, true);
        }
        None => app.session.quit = true,
    }
    Vec::new()
}

/// Ctrl-c: quits at once unless a mitigation is open or a mutation is running; then asks once.
pub fn force_quit(app: &mut App) -> Vec<Effect> {
    if app.guard.ctrl_c_armed {
        app.session.quit = true;
        return Vec::new();
    }
    let at_stake = if !app.session.open.is_empty() {
        Some(super::flow::open_warning(app))
    } else {
        running_mutation(app)
    };
    match at_stake {
        Some(what) => {
            app.guard.ctrl_c_armed = true;
            app.set_message(
                format!("Ctrl-c again quits anyway: {what}. Restore it first if you can."),
                true,
            );
        }
        None => app.session.quit = true,
    }
    Vec::new()
}
