//! The mitigation flow's rules in the UI: write mode (off until `--write` or the toggle, which
//! asks for the session's kube context), which probes open the confirmation screen and which
//! run as background tasks, the after-state check offered once a mitigation ran, the restore
//! value offered from an open mitigation (and proposed over a variable that a later capture
//! changed: the prior-state ledger), and the warning raised before quit or export while
//! a mitigation is open. Pure: part of `update()`; must not import IO. The runtime enforces
//! the same rules where commands execute; this only shows them.

use std::collections::BTreeMap;

use super::app::{App, Input, Item, Live};
use super::effect::Effect;
use crate::nav::{Effect as NavEffect, VarSource};
use crate::tsg::SafetyClass;

/// `W`: write mode off at once, or on after the context is typed.
pub fn toggle_write(app: &mut App) -> Vec<Effect> {
    if app.session.write {
        app.session.write = false;
        app.set_message("Write mode OFF: this session is read-only again.", false);
        return vec![Effect::WriteMode(false)];
    }
    match app.context() {
        Some(ctx) => {
            let msg = format!(
                "Type the kube context `{ctx}` and Enter to turn write mode on (Esc keeps it read-only)."
            );
            app.set_message(msg, false);
            app.input = Some(Input::Write { buf: String::new() });
        }
        None => app.set_message(
            "Write mode needs a kube context to confirm against: set `context` under [query] in \
             the config file, then press W again.",
            true,
        ),
    }
    Vec::new()
}

/// The context typed at the write-mode prompt.
pub fn write_typed(app: &mut App, typed: &str) -> Vec<Effect> {
    match app.context() {
        Some(ctx) if typed.trim() == ctx => {
            app.session.write = true;
            app.set_message(
                format!("Write mode ON for {ctx}: a mutating probe opens its confirmation screen."),
                false,
            );
            vec![Effect::WriteMode(true)]
        }
        Some(ctx) => {
            app.set_message(
                format!("`{typed}` is not this session's context `{ctx}`: write mode stays off."),
                true,
            );
            Vec::new()
        }
        None => Vec::new(),
    }
}

/// A probe that is not read-only: a background task, or the confirmation screen (write mode).
pub fn needs_flow(app: &mut App, effect: NavEffect) -> Vec<Effect> {
    let NavEffect::NeedsMitigationFlow { probe, class, .. } = &effect else {
        return Vec::new();
    };
    if let Live::Unavailable(why) = &app.session.live {
        app.set_message(
            format!("Live queries are unavailable: {why}. Nothing was run."),
            true,
        );
        return Vec::new();
    }
    if *class != SafetyClass::LongRunning && app.session.write {
        if let Some(c) = ledger_conflict(app, probe.node.as_str(), probe.index) {
            app.set_message(
                format!(
                    "{}: ledger {} ≠ variable {} (a later capture); Enter restores {}.",
                    c.var, c.ledger, c.variable, c.ledger
                ),
                true,
            );
            app.input = Some(Input::Prompt {
                var: c.var,
                buf: c.ledger,
                rerun: Some(probe.index),
            });
            return Vec::new();
        }
    }
    if *class == SafetyClass::LongRunning || app.session.write {
        if let NavEffect::NeedsMitigationFlow {
            probe, bindings, ..
        } = &effect
        {
            let vars = bindings
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            super::pager::started(app, probe.clone(), vars);
        }
        return vec![Effect::Nav(effect)];
    }
    app.set_message(
        format!(
            "Probe {} is {}: this session is read-only. Press W and type the kube context to \
             turn write mode on; nothing was run.",
            probe.index + 1,
            class.as_str()
        ),
        true,
    );
    Vec::new()
}

/// After a mitigation ran: selects the status command the guide puts right after it.
pub fn offer_after_check(app: &mut App, node: &str, probe: usize) {
    if app.current_id() != Some(node) {
        return;
    }
    let classes = app.classes();
    let writes = classes.get(probe).is_some_and(|c| c.needs_confirmation());
    let Some(n) = app.current_node().filter(|_| writes) else {
        return;
    };
    let Some(next) = crate::mitigate::after_check(n, probe, &classes) else {
        return;
    };
    let first = n.probes[next].code.lines().next().unwrap_or("").to_string();
    if let Some(i) = app.items().iter().position(|i| *i == Item::Probe(next)) {
        app.screen.item_sel = i;
    }
    app.set_message(
        format!(
            "Probe {} ran. Check the result next: r runs probe {} (`{first}`).",
            probe + 1,
            next + 1
        ),
        false,
    );
}

/// The session's variable values by name, as the restore planner reads them.
fn known_vars(app: &App) -> BTreeMap<String, String> {
    app.nav
        .vars
        .iter()
        .map(|(k, v)| (k.clone(), v.value.clone()))
        .collect()
}

/// For a value prompt: the count captured before an open scale-down that a restore of the
/// same object uses `var` for, with why.
pub fn restore_offer(app: &App, node: &str, probe: usize, var: &str) -> Option<(String, String)> {
    let p = app.nav.index.node(&app.lib, node)?.probes.get(probe)?;
    crate::mitigate::restore_vars(&p.code, &known_vars(app))
        .into_iter()
        .filter(|(_, name)| name == var)
        .find_map(|(resource, _)| app.session.open.iter().find(|o| o.resource == resource))
        .map(|o| (o.was.clone(), o.to_string()))
}

/// A restore whose variable disagrees with the prior-state ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub var: String,
    /// The value captured before the open mitigation (fixed while it is open).
    pub ledger: String,
    /// The variable's value now (a later capture wrote it).
    pub variable: String,
    /// The open mitigation, as the status line says it.
    pub open: String,
}

/// The restore probe `probe` of `node` would set a count from a variable that a capture
/// (not the operator) wrote after the ledger fixed the value to restore: the conflict, so the
/// restore proposes the ledger's value. A value the operator typed is their choice and stands.
pub fn ledger_conflict(app: &App, node: &str, probe: usize) -> Option<Conflict> {
    let p = app.nav.index.node(&app.lib, node)?.probes.get(probe)?;
    crate::mitigate::restore_vars(&p.code, &known_vars(app))
        .into_iter()
        .find_map(|(resource, name)| {
            let var = app.nav.vars.get(&name)?;
            if var.source == VarSource::Typed {
                return None;
            }
            let open = app.session.open.iter().find(|o| o.resource == resource)?;
            (open.was != var.value.trim()).then(|| Conflict {
                var: name.clone(),
                ledger: open.was.clone(),
                variable: var.value.clone(),
                open: open.to_string(),
            })
        })
}

/// "1 open mitigation: …" for the status line, quit and export.
pub fn open_warning(app: &App) -> String {
    match app.session.open.as_slice() {
        [] => String::new(),
        [one] => format!("1 open mitigation: {one}"),
        [first, rest @ ..] => format!(
            "{} open mitigations: {first}; and {} more",
            rest.len() + 1,
            rest.len()
        ),
    }
}
