//! Navigator commands from the UI: applies a `nav::Cmd` and turns its effects into UI state
//! (messages, prompts, the screen shown) or runtime work; opens search hits. Pure: part of
//! `update()`; must not import IO.

use super::app::{App, Input, Live, Screen};
use super::effect::Effect;
use super::search::Hit;
use crate::nav::{self, AlertContext, Cmd, Effect as NavEffect};

/// Opens the selected hit (a guide, a step or an alert).
pub fn open_hit(app: &mut App) -> Vec<Effect> {
    let Some(hit) = app.search.hits.get(app.search.sel).copied() else {
        return Vec::new();
    };
    match hit {
        Hit::Guide(g) => match app.lib.guides.get(g).and_then(|g| g.nodes.first()) {
            Some(n) => {
                let id = n.id.clone();
                nav_cmd(app, Cmd::Goto(id))
            }
            None => {
                app.set_message("This guide has no headings to open.", true);
                Vec::new()
            }
        },
        Hit::Node(g, n) => match app.lib.guides.get(g).and_then(|g| g.nodes.get(n)) {
            Some(node) => {
                let id = node.id.clone();
                nav_cmd(app, Cmd::Goto(id))
            }
            None => Vec::new(),
        },
        Hit::Alert(g, r) => match app.lib.guides.get(g).and_then(|g| g.routes.get(r)) {
            Some(route) => {
                let name = route.alert.clone();
                nav_cmd(
                    app,
                    Cmd::Alert(AlertContext {
                        name,
                        ..AlertContext::default()
                    }),
                )
            }
            None => Vec::new(),
        },
    }
}

/// Asks the navigator to run probe `p` of the current node.
pub fn run(app: &mut App, p: usize) -> Vec<Effect> {
    if !super::isolation::acknowledged(app, p) {
        return Vec::new();
    }
    let class = app
        .classes()
        .get(p)
        .copied()
        .unwrap_or(crate::tsg::SafetyClass::Unknown);
    nav_cmd(app, Cmd::RunProbe { probe: p, class })
}

/// Applies a navigator command and turns its effects into UI state or runtime work.
pub fn nav_cmd(app: &mut App, cmd: Cmd) -> Vec<Effect> {
    let before = app.nav.current.clone();
    if matches!(cmd, Cmd::SetVar { .. }) {
        // Outputs that used the old value are drawn again, marked stale.
        app.probes.generation += 1;
    }
    let effects = nav::apply(&mut app.nav, &app.lib, cmd);
    if app.nav.current != before {
        app.screen.scroll = 0;
        app.screen.item_sel = 0;
        app.screen.current = Screen::Guide;
        app.notice = None;
        if let Some((_, n)) = app
            .current_id()
            .and_then(|id| app.nav.index.position(&app.lib, id))
        {
            app.screen.outline_sel = n;
        }
        app.probes.classes = None;
        let classes = app.classes();
        app.probes.classes = app.current_id().map(|id| (id.to_string(), classes));
    }
    let mut out = Vec::new();
    if let Some(left) = before.filter(|b| app.nav.current.as_ref() != Some(b)) {
        if app.probes.running.iter().any(|p| p.is_in(&left)) {
            out.push(Effect::CancelProbes { node: left });
        }
    }
    for e in effects {
        match e {
            NavEffect::Notice(s) => app.set_message(s, false),
            NavEffect::NeedVar { probe, var } => {
                let offer = super::flow::restore_offer(app, probe.node.as_str(), probe.index, &var);
                let buf = match &offer {
                    Some((value, why)) => {
                        app.set_message(
                            format!("{var} = {value}, the count captured before {why}: Enter to use it, or type another."),
                            false,
                        );
                        value.clone()
                    }
                    None => {
                        app.set_message(
                            format!("This probe needs {var}: type its value, Enter to run, Esc to cancel."),
                            false,
                        );
                        String::new()
                    }
                };
                app.input = Some(Input::Prompt {
                    var,
                    buf,
                    rerun: Some(probe.index),
                });
            }
            e @ NavEffect::NeedsMitigationFlow { .. } => out.extend(super::flow::needs_flow(app, e)),
            NavEffect::RunProbe {
                ref probe,
                ref bindings,
            } => match &app.session.live {
                Live::Available => {
                    let vars = bindings.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                    super::pager::started(app, probe.clone(), vars);
                    out.push(Effect::Nav(e))
                }
                Live::Unavailable(why) => app.set_message(
                    format!(
                        "Live queries are unavailable: {why}. Nothing was run; no result is shown."
                    ),
                    true,
                ),
                Live::Starting => app.set_message(
                    "The query engine is still starting. Nothing was run; press the key again in a moment.",
                    true,
                ),
            },
            NavEffect::Export if !app.session.recording => app.set_message(
                "Evidence recording is off in this session (--no-evidence), so there is nothing to export.",
                true,
            ),
            NavEffect::Record(_) if !app.session.recording => {}
            e @ NavEffect::Record(nav::Event::StatusSet { .. } | nav::Event::ChecklistToggled { .. }) => {
                app.guard.notes += 1;
                out.push(Effect::Nav(e));
            }
            other => out.push(Effect::Nav(other)),
        }
    }
    out
}
