//! The pure `update()`: folds an [`Action`] into the [`App`] and returns the effects the
//! runtime must carry out (run a probe, record evidence, export). Must not import IO
//! (std::fs, std::process, std::env, tokio, reqwest, kube).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;
use super::app::{App, Input, Item, Panel, Screen};
use super::command::Command;
use super::effect::Effect;
use super::navigate::{nav_cmd, open_hit, run};
use super::scroll::help_scroll_to;
use super::search;
use crate::nav::Cmd;

/// What a handler hands back to `update`: the effects it made, or a command to run as if its
/// key was pressed (the mouse wheel on the library, a `:` line). Handlers never call
/// `update` themselves.
#[derive(Debug)]
pub enum Then {
    Done(Vec<Effect>),
    Run(Command),
}

impl From<Vec<Effect>> for Then {
    fn from(effects: Vec<Effect>) -> Then {
        Then::Done(effects)
    }
}

/// The effects of a handler's answer, running the command it asked for.
fn then(app: &mut App, t: Then) -> Vec<Effect> {
    match t {
        Then::Done(effects) => effects,
        Then::Run(c) => run_command(app, c),
    }
}

/// Runs a command as `update(app, Action::Command(c))` does: it redraws, and any command
/// but quitting disarms the quit questions.
fn run_command(app: &mut App, c: Command) -> Vec<Effect> {
    app.dirty = true;
    if !matches!(c, Command::Quit | Command::ForceQuit) {
        app.session.quit_armed = false;
        app.guard.ctrl_c_armed = false;
    }
    command(app, c)
}

/// Applies one action. Sets `app.dirty` when the screen must be redrawn.
pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    if let Action::Tick(now) = action {
        app.reading.now = now;
        return Vec::new();
    }
    app.dirty = true;
    if !matches!(
        action,
        Action::Command(Command::Quit)
            | Action::Command(Command::ForceQuit)
            | Action::Key(_)
            | Action::Mouse(_)
            | Action::Resize(..)
            | Action::Drawn(_)
            | Action::Guides(_)
    ) {
        app.session.quit_armed = false;
        app.guard.ctrl_c_armed = false;
    }
    if matches!(action, Action::Key(_) | Action::Mouse(_)) {
        // The person moves on: a result that came in is not scrolled to any more.
        app.screen.reveal = None;
    }
    match action {
        Action::Key(ev) => {
            if let Some([esc, key]) = coalesced_escape(app, &ev) {
                let mut effects = update(app, Action::Key(esc));
                effects.extend(update(app, Action::Key(key)));
                return effects;
            }
            if app.mitigation.is_some() {
                return super::mitigation::key(app, ev);
            }
            if app.waves.is_some() {
                return super::waves::key(app, ev);
            }
            // Esc closes the error popup (and does nothing else).
            if ev.code == crossterm::event::KeyCode::Esc && super::popup::close(app) {
                return Vec::new();
            }
            if app.input.is_some() {
                let t = super::input::key(app, ev);
                return then(app, t);
            }
            if app.reading.pager.is_some() {
                return super::pager::key(app, ev);
            }
            if let Some(effects) = super::silence::offer_key(app, &ev) {
                return effects;
            }
            if let Some(effects) = super::exported::key(app, &ev) {
                return effects;
            }
            if let Some(text) = app.session.copy_offer.take() {
                if ev.code == crossterm::event::KeyCode::Char('y') && ev.modifiers.is_empty() {
                    app.set_message(
                        "Copied the chain head and key id to the clipboard (OSC 52).",
                        false,
                    );
                    return vec![Effect::Copy(text)];
                }
            }
            if let Some(effects) = super::help_find::key(app, &ev) {
                return effects;
            }
            let ctx = if app.screen.help {
                "help"
            } else if app.screen.current == Screen::Library {
                "library"
            } else {
                "guide"
            };
            match app.keymap.lookup(ctx, &ev) {
                Some(c) => run_command(app, c),
                None => {
                    app.dirty = false;
                    Vec::new()
                }
            }
        }
        Action::Mouse(m) => {
            let t = super::mouse::mouse(app, m);
            then(app, t)
        }
        Action::Resize(..) => Vec::new(),
        Action::Drawn(v) => {
            super::scroll::drawn(app, v);
            super::pager::drawn(app, &v);
            Vec::new()
        }
        Action::Command(c) => command(app, c),
        Action::Firing(u) => {
            app.firing.apply(&app.lib, *u);
            Vec::new()
        }
        Action::Waves(e) => super::waves::event(app, e),
        Action::Guides(b) => super::loading::arrive(app, *b),
        a => super::worker::worker(app, a),
    }
}

/// Runs a command on the screen shown.
fn command(app: &mut App, c: Command) -> Vec<Effect> {
    match c {
        Command::ForceQuit => super::guard::force_quit(app),
        Command::Quit => super::guard::quit(app),
        Command::Help => {
            app.screen.help = !app.screen.help;
            app.screen.help_scroll = 0;
            Vec::new()
        }
        Command::Palette => {
            app.palette.open();
            app.input = Some(Input::Palette { buf: String::new() });
            Vec::new()
        }
        Command::WriteMode => super::flow::toggle_write(app),
        c @ (Command::Alert(_)
        | Command::Goto(_)
        | Command::Set(_)
        | Command::Export(_)
        | Command::Tasks
        | Command::Stop(_)
        | Command::Contexts(_)
        | Command::Waves(_)) => super::palette::run(app, c),
        c if app.screen.help => help(app, c),
        c if app.screen.current == Screen::Library => library(app, c),
        c => guide(app, c),
    }
}

fn help(app: &mut App, a: Command) -> Vec<Effect> {
    let page = usize::from(app.screen.viewport.areas.help.height.saturating_sub(1)).max(1);
    let at = app.screen.help_scroll;
    match a {
        Command::ScrollDown => help_scroll_to(app, at + 1),
        Command::ScrollUp => help_scroll_to(app, at.saturating_sub(1)),
        Command::Top => app.screen.help_scroll = 0,
        Command::Bottom => help_scroll_to(app, usize::MAX),
        Command::PageDown => help_scroll_to(app, at + page),
        Command::PageUp => help_scroll_to(app, at.saturating_sub(page)),
        Command::Search => app.screen.help_find.typing = Some(String::new()),
        Command::Cancel => app.screen.help = false,
        _ => app.dirty = false,
    }
    Vec::new()
}

fn library(app: &mut App, a: Command) -> Vec<Effect> {
    if let Some(effects) = super::firing_keys::key(app, &a) {
        return effects;
    }
    let n = app.search.hits.len();
    match a {
        Command::NextItem | Command::ScrollDown => {
            app.search.sel = (app.search.sel + 1).min(n.saturating_sub(1))
        }
        Command::PrevItem | Command::ScrollUp => app.search.sel = app.search.sel.saturating_sub(1),
        Command::Top => app.search.sel = 0,
        Command::Bottom => app.search.sel = n.saturating_sub(1),
        Command::Search => {
            app.input = Some(Input::Search {
                buf: app.search.query.clone(),
            })
        }
        Command::Cancel => {
            app.search.query.clear();
            app.search.hits = search::library_hits(&app.lib, "", usize::MAX);
            app.search.sel = 0;
        }
        Command::Activate => return open_hit(app),
        _ => app.dirty = false,
    }
    Vec::new()
}

fn guide(app: &mut App, a: Command) -> Vec<Effect> {
    match a {
        Command::ScrollDown
        | Command::ScrollUp
        | Command::PageDown
        | Command::PageUp
        | Command::Top
        | Command::Bottom => super::scroll::scroll(app, &a),
        Command::NextItem => cycle_selection(app, true),
        Command::PrevItem => cycle_selection(app, false),
        Command::Activate => return activate(app, &app.items()),
        Command::Follow(n) => {
            if let Some(i) = n.checked_sub(1) {
                return nav_cmd(app, Cmd::Follow(i));
            }
        }
        Command::NextStep => return nav_cmd(app, Cmd::Next),
        Command::Back => return nav_cmd(app, Cmd::Back),
        Command::Done => return nav_cmd(app, Cmd::MarkDone),
        Command::Skip => return nav_cmd(app, Cmd::MarkSkipped),
        Command::Run => return run_selected(app),
        Command::Vars => {
            app.screen.panel = if app.screen.panel == Panel::Vars {
                Panel::Actions
            } else {
                Panel::Vars
            }
        }
        Command::OutlineDown | Command::OutlineUp => {
            let len = app.current_guide().map(|g| g.nodes.len()).unwrap_or(0);
            app.screen.outline_sel = if a == Command::OutlineDown {
                (app.screen.outline_sel + 1).min(len.saturating_sub(1))
            } else {
                app.screen.outline_sel.saturating_sub(1)
            };
        }
        Command::OutlineOpen => {
            if let Some(id) = app
                .current_guide()
                .and_then(|g| g.nodes.get(app.screen.outline_sel))
                .map(|n| n.id.clone())
            {
                return nav_cmd(app, Cmd::Goto(id));
            }
        }
        Command::Library => {
            app.screen.current = Screen::Library;
            app.search.hits = search::library_hits(&app.lib, &app.search.query, usize::MAX);
            app.search.sel = app.search.sel.min(app.search.hits.len().saturating_sub(1));
        }
        Command::Search => {
            app.input = Some(Input::Search { buf: String::new() });
            app.search.hits.clear();
            app.search.sel = 0;
        }
        Command::Cancel => return cancel_running(app),
        Command::OpenOutput => return super::pager::open(app),
        Command::Copy => return super::pager::copy_command(app),
        Command::ToggleRange => return super::range::toggle(app),
        _ => app.dirty = false,
    }
    Vec::new()
}

/// Moves the selection of the lower panel (actions or variables), wrapping around.
fn cycle_selection(app: &mut App, forward: bool) {
    let len = match app.screen.panel {
        Panel::Actions => app.items().len(),
        Panel::Vars => app.vars().len(),
    }
    .max(1);
    let sel = match app.screen.panel {
        Panel::Actions => &mut app.screen.item_sel,
        Panel::Vars => &mut app.screen.var_sel,
    };
    *sel = if forward {
        (*sel + 1) % len
    } else {
        (*sel + len - 1) % len
    };
}

/// `r`: runs the selected probe, or the step's first one.
fn run_selected(app: &mut App) -> Vec<Effect> {
    let items = app.items();
    let probe = match items.get(app.screen.item_sel) {
        Some(Item::Probe(p)) => Some(*p),
        _ => items.iter().find_map(|i| match i {
            Item::Probe(p) => Some(*p),
            _ => None,
        }),
    };
    match probe {
        Some(p) => run(app, p),
        None => {
            app.set_message("This step has no probe to run.", false);
            Vec::new()
        }
    }
}

/// Esc: cancels the read-only probes of this step still running, else clears the message.
fn cancel_running(app: &mut App) -> Vec<Effect> {
    let Some(node) = app.current_id().map(str::to_string) else {
        return Vec::new();
    };
    if app.probes.running.iter().any(|p| p.is_in(&node)) {
        app.set_message("Cancelling the running probes of this step…", false);
        return vec![Effect::CancelProbes { node }];
    }
    // As in k9s: with nothing to cancel and no message, Esc goes back along the trail.
    if app.notice.take().is_none() {
        return nav_cmd(app, Cmd::Back);
    }
    Vec::new()
}

pub(super) fn activate(app: &mut App, items: &[Item]) -> Vec<Effect> {
    if app.screen.panel == Panel::Vars {
        let vars = app.vars();
        if let Some((name, val)) = vars.get(app.screen.var_sel) {
            let buf = val.map(|v| v.value.clone()).unwrap_or_default();
            app.input = Some(Input::Prompt {
                var: name.clone(),
                buf,
                rerun: None,
            });
        }
        return Vec::new();
    }
    match items.get(app.screen.item_sel) {
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

/// Esc and the key after it, when the terminal delivered them in one read: the bytes of
/// Esc then `W` (typed fast, or joined on a slow SSH link) are the bytes of Alt-W. A keymap
/// that binds that Alt key keeps it; otherwise it is read as the two keys it was.
fn coalesced_escape(app: &App, ev: &KeyEvent) -> Option<[KeyEvent; 2]> {
    let KeyCode::Char(_) = ev.code else {
        return None;
    };
    if ev.modifiers != KeyModifiers::ALT && ev.modifiers != KeyModifiers::ALT | KeyModifiers::SHIFT
    {
        return None;
    }
    if app.keymap.binds(ev) {
        return None;
    }
    let key = KeyEvent::new(ev.code, ev.modifiers - KeyModifiers::ALT);
    Some([KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE), key])
}
