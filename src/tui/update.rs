//! The pure `update()`: folds an [`Action`] into the [`App`] and returns the effects the
//! runtime must carry out (run a probe, record evidence, export). Must not import IO
//! (std::fs, std::process, std::env, tokio, reqwest, kube).

use super::action::Action;
use super::app::{App, Input, Item, Panel, Screen};
use super::navigate::{nav_cmd, open_hit, run};
use super::search;
use crate::nav::{Cmd, Effect};

/// Applies one action. Sets `app.dirty` when the screen must be redrawn.
pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    app.dirty = true;
    if !matches!(
        action,
        Action::Quit | Action::Key(_) | Action::Mouse(_) | Action::Resize(..)
    ) {
        app.quit_armed = false;
    }
    match action {
        Action::Key(ev) => {
            if app.firing.confirm.is_some() {
                return super::firing_keys::confirm_key(app, ev);
            }
            if app.mitigation.is_some() {
                return super::mitigation::key(app, ev);
            }
            if app.input.is_some() {
                return super::input::key(app, ev);
            }
            let ctx = if app.help {
                "help"
            } else if app.screen == Screen::Library {
                "library"
            } else {
                "guide"
            };
            match app.keymap.lookup(ctx, &ev) {
                Some(a) => update(app, a),
                None => {
                    app.dirty = false;
                    Vec::new()
                }
            }
        }
        Action::Mouse(m) => super::mouse::mouse(app, m),
        Action::Resize(..) => Vec::new(),
        Action::ForceQuit => {
            app.quit = true;
            Vec::new()
        }
        Action::Quit => quit(app),
        Action::Help => {
            app.help = !app.help;
            app.help_scroll = 0;
            Vec::new()
        }
        Action::Palette => {
            app.input = Some(Input::Palette { buf: String::new() });
            Vec::new()
        }
        a @ (Action::ProbeFinished { .. }
        | Action::Exported(_)
        | Action::Notice(_)
        | Action::EvidenceStarted(_)
        | Action::ProbeStarted { .. }
        | Action::MitigationReady(_)
        | Action::MitigationRefused(_)
        | Action::MitigationStarted(_)
        | Action::DryRunFinished(..)
        | Action::OpenMitigations(_)
        | Action::Tasks(_)) => super::worker::worker(app, a),
        Action::Firing(u) => {
            super::firing::apply(&app.lib, &mut app.firing, *u);
            Vec::new()
        }
        Action::WriteMode => super::flow::toggle_write(app),
        a if app.help => help(app, a),
        a if app.screen == Screen::Library => library(app, a),
        a => guide(app, a),
    }
}

fn quit(app: &mut App) -> Vec<Effect> {
    if !app.open.is_empty() && !app.quit_armed {
        app.quit_armed = true;
        let warning = super::flow::open_warning(app);
        app.set_message(
            format!("Press q again to quit with it open, or restore first. {warning}."),
            true,
        );
    } else if app.evidence == Some(false) && !app.quit_armed {
        app.quit_armed = true;
        app.set_message(
            "Evidence has not been exported: :export first, or press q again to quit anyway.",
            true,
        );
    } else {
        app.quit = true;
    }
    Vec::new()
}

fn help(app: &mut App, a: Action) -> Vec<Effect> {
    match a {
        Action::ScrollDown => app.help_scroll += 1,
        Action::ScrollUp => app.help_scroll = app.help_scroll.saturating_sub(1),
        Action::Cancel => app.help = false,
        _ => app.dirty = false,
    }
    Vec::new()
}

fn library(app: &mut App, a: Action) -> Vec<Effect> {
    if let Some(effects) = super::firing_keys::key(app, &a) {
        return effects;
    }
    let n = app.hits.len();
    match a {
        Action::NextItem | Action::ScrollDown => {
            app.hit_sel = (app.hit_sel + 1).min(n.saturating_sub(1))
        }
        Action::PrevItem | Action::ScrollUp => app.hit_sel = app.hit_sel.saturating_sub(1),
        Action::Top => app.hit_sel = 0,
        Action::Bottom => app.hit_sel = n.saturating_sub(1),
        Action::Search => {
            app.input = Some(Input::Search {
                buf: app.query.clone(),
            })
        }
        Action::Cancel => {
            app.query.clear();
            app.hits = search::library_hits(&app.lib, "", usize::MAX);
            app.hit_sel = 0;
        }
        Action::Activate => return open_hit(app),
        _ => app.dirty = false,
    }
    Vec::new()
}

fn guide(app: &mut App, a: Action) -> Vec<Effect> {
    let page = usize::from(app.areas.node.height.saturating_sub(2)).max(1);
    let items = app.items();
    match a {
        Action::ScrollDown => scroll_to(app, app.scroll + 1),
        Action::ScrollUp => scroll_to(app, app.scroll.saturating_sub(1)),
        Action::PageDown => scroll_to(app, app.scroll + page),
        Action::PageUp => scroll_to(app, app.scroll.saturating_sub(page)),
        Action::Top => app.scroll = 0,
        Action::Bottom => scroll_to(app, usize::MAX),
        Action::NextItem | Action::PrevItem => {
            let vars = app.vars().len();
            let (sel, len) = match app.panel {
                Panel::Actions => (&mut app.item_sel, items.len()),
                Panel::Vars => (&mut app.var_sel, vars),
            };
            let len = len.max(1);
            *sel = if a == Action::NextItem {
                (*sel + 1) % len
            } else {
                (*sel + len - 1) % len
            };
        }
        Action::Activate => return activate(app, &items),
        Action::Follow(i) => return nav_cmd(app, Cmd::Follow(i)),
        Action::NextStep => return nav_cmd(app, Cmd::Next),
        Action::Back => return nav_cmd(app, Cmd::Back),
        Action::Done => return nav_cmd(app, Cmd::MarkDone),
        Action::Skip => return nav_cmd(app, Cmd::MarkSkipped),
        Action::Run => {
            let probe = match items.get(app.item_sel) {
                Some(Item::Probe(p)) => Some(*p),
                _ => items.iter().find_map(|i| {
                    if let Item::Probe(p) = i {
                        Some(*p)
                    } else {
                        None
                    }
                }),
            };
            match probe {
                Some(p) => return run(app, p),
                None => app.set_message("This step has no probe to run.", false),
            }
        }
        Action::Vars => {
            app.panel = if app.panel == Panel::Vars {
                Panel::Actions
            } else {
                Panel::Vars
            }
        }
        Action::OutlineDown | Action::OutlineUp => {
            let len = app.current_guide().map(|g| g.nodes.len()).unwrap_or(0);
            app.outline_sel = if a == Action::OutlineDown {
                (app.outline_sel + 1).min(len.saturating_sub(1))
            } else {
                app.outline_sel.saturating_sub(1)
            };
        }
        Action::OutlineOpen => {
            if let Some(id) = app
                .current_guide()
                .and_then(|g| g.nodes.get(app.outline_sel))
                .map(|n| n.id.clone())
            {
                return nav_cmd(app, Cmd::Goto(id));
            }
        }
        Action::Library => {
            app.screen = Screen::Library;
            app.hits = search::library_hits(&app.lib, &app.query, usize::MAX);
            app.hit_sel = app.hit_sel.min(app.hits.len().saturating_sub(1));
        }
        Action::Search => {
            app.input = Some(Input::Search { buf: String::new() });
            app.hits.clear();
            app.hit_sel = 0;
        }
        Action::Cancel => return cancel_running(app),
        _ => app.dirty = false,
    }
    Vec::new()
}

/// Esc: cancels the read-only probes of this step still running, else clears the message.
fn cancel_running(app: &mut App) -> Vec<Effect> {
    let Some(node) = app.current_id().map(str::to_string) else {
        return Vec::new();
    };
    if app.running.iter().any(|(n, _)| *n == node) {
        app.set_message("Cancelling the running probes of this step…", false);
        return vec![Effect::CancelProbes { node }];
    }
    app.message = None;
    Vec::new()
}

pub(super) fn scroll_to(app: &mut App, to: usize) {
    let max = app
        .cache
        .lines
        .len()
        .saturating_sub(usize::from(app.areas.node.height).max(1));
    app.scroll = if app.cache.key.is_some() {
        to.min(max)
    } else {
        to.min(1 << 20)
    };
}

pub(super) fn activate(app: &mut App, items: &[Item]) -> Vec<Effect> {
    if app.panel == Panel::Vars {
        let vars = app.vars();
        if let Some((name, val)) = vars.get(app.var_sel) {
            let buf = val.map(|v| v.value.clone()).unwrap_or_default();
            app.input = Some(Input::Prompt {
                var: name.clone(),
                buf,
                rerun: None,
            });
        }
        return Vec::new();
    }
    match items.get(app.item_sel) {
        Some(Item::Choice(i)) => nav_cmd(app, Cmd::Follow(*i)),
        Some(Item::Check(i)) => nav_cmd(app, Cmd::Tick(*i)),
        Some(Item::Probe(p)) => run(app, *p),
        None => {
            app.set_message(
                "Nothing to select here: n goes to the next step, h goes back.",
                false,
            );
            Vec::new()
        }
    }
}
