//! The one-line inputs: `/` search, `:` command palette and value prompts. Pure: part of
//! `update()`; must not import IO.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::{App, Input, Screen};
use super::navigate::{nav_cmd, open_hit, run};
use super::search;
use crate::nav::{AlertContext, Cmd, Effect, VarSource};

/// Commands of the `:` palette: (usage, description), for the help screen.
pub const PALETTE: &[(&str, &str)] = &[
    (":alert NAME", "Land on the step alert NAME routes to"),
    (":goto ID", "Open a step by heading slug or path#slug"),
    (":set VAR=value", "Set a variable for the probes"),
    (":export", "Export the evidence bundle"),
    (":write", "Turn write mode on (type the context) or off"),
    (":tasks / :stop N", "List background tasks, stop one"),
    (":done / :skip", "Mark the step done or skipped"),
    (":library", "Back to the library"),
    (":help", "This help"),
    (":q", "Quit"),
];

/// A key while an input is open.
pub fn key(app: &mut App, ev: KeyEvent) -> Vec<Effect> {
    let Some(mut input) = app.input.take() else {
        return Vec::new();
    };
    let buf = match &mut input {
        Input::Search { buf }
        | Input::Palette { buf }
        | Input::Prompt { buf, .. }
        | Input::Write { buf } => buf,
    };
    let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
    match ev.code {
        KeyCode::Esc => {
            if app.screen == Screen::Guide {
                app.hits.clear();
            }
            return Vec::new();
        }
        KeyCode::Char('c') if ctrl => {
            app.quit = true;
            return Vec::new();
        }
        KeyCode::Char('u') if ctrl => buf.clear(),
        KeyCode::Char(c) if !ctrl => buf.push(c),
        KeyCode::Backspace => {
            buf.pop();
        }
        KeyCode::Down | KeyCode::Tab => {
            app.hit_sel = (app.hit_sel + 1).min(app.hits.len().saturating_sub(1))
        }
        KeyCode::Up | KeyCode::BackTab => app.hit_sel = app.hit_sel.saturating_sub(1),
        KeyCode::Enter => return submit(app, input),
        _ => {
            app.dirty = false;
        }
    }
    if let Input::Search { buf } = &input {
        refresh_hits(app, &buf.clone());
    }
    app.input = Some(input);
    Vec::new()
}

fn refresh_hits(app: &mut App, query: &str) {
    let before = app.hits.clone();
    if app.screen == Screen::Library {
        app.query = query.to_string();
        app.hits = search::library_hits(&app.lib, query, usize::MAX);
    } else {
        app.hits = match app.current_guide_index() {
            Some(g) if !query.is_empty() => search::guide_hits(&app.lib, g, query, 200),
            _ => Vec::new(),
        };
    }
    if app.hits != before {
        app.hit_sel = 0;
    }
}

fn submit(app: &mut App, input: Input) -> Vec<Effect> {
    match input {
        Input::Search { .. } => {
            let effects = open_hit(app);
            app.hits = search::library_hits(&app.lib, &app.query, usize::MAX);
            if app.screen == Screen::Library {
                app.input = None;
            }
            effects
        }
        Input::Prompt { var, buf, rerun } => {
            if buf.is_empty() {
                app.set_message(
                    format!("{var} is still unset: an empty value is not used."),
                    true,
                );
                return Vec::new();
            }
            let mut effects = nav_cmd(
                app,
                Cmd::SetVar {
                    name: var,
                    value: buf,
                    source: VarSource::Typed,
                },
            );
            if let Some(p) = rerun {
                effects.extend(run(app, p));
            }
            effects
        }
        Input::Palette { buf } => palette(app, buf.trim()),
        Input::Write { buf } => super::flow::write_typed(app, &buf),
    }
}

/// Runs one palette command.
pub fn palette(app: &mut App, line: &str) -> Vec<Effect> {
    let (cmd, arg) = line
        .split_once(char::is_whitespace)
        .map(|(c, a)| (c, a.trim()))
        .unwrap_or((line, ""));
    match (cmd, arg) {
        ("alert", name) if !name.is_empty() => {
            let labels = app
                .nav
                .alert
                .as_ref()
                .map(|a| a.labels.clone())
                .unwrap_or_default();
            nav_cmd(
                app,
                Cmd::Alert(AlertContext {
                    name: name.to_string(),
                    labels,
                    target: None,
                    runbook_url: None,
                }),
            )
        }
        ("goto", id) if !id.is_empty() => {
            match app
                .nav
                .index
                .resolve(&app.lib, app.nav.current.as_deref(), id)
            {
                Some(id) => nav_cmd(app, Cmd::Goto(id)),
                None => {
                    app.set_message(format!("No step `{id}` in the loaded guides; :goto takes a heading slug (step-2a-…) or path#slug."), true);
                    Vec::new()
                }
            }
        }
        ("set", kv) => match kv.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                let (name, value) = (k.trim().to_string(), v.trim().to_string());
                app.set_message(format!("{name} = {value}"), false);
                nav_cmd(
                    app,
                    Cmd::SetVar {
                        name,
                        value,
                        source: VarSource::Typed,
                    },
                )
            }
            _ => {
                app.set_message(
                    format!("`:set {kv}`: write :set VAR=value, e.g. :set NODE_NAME=aks-node-1"),
                    true,
                );
                Vec::new()
            }
        },
        ("export", _) if !app.open.is_empty() && !app.export_armed => {
            app.export_armed = true;
            let warning = super::flow::open_warning(app);
            app.set_message(
                format!(
                    "Run :export again to export with it open (the bundle lists it), or restore first. {warning}."
                ),
                true,
            );
            Vec::new()
        }
        ("write", "") => super::flow::toggle_write(app),
        ("tasks", "") => {
            let list: Vec<String> = app
                .tasks
                .iter()
                .map(|(id, w)| format!("#{id} {w}"))
                .collect();
            let msg = if list.is_empty() {
                "No background task is running.".to_string()
            } else {
                format!("Running: {} (:stop N stops one)", list.join(" · "))
            };
            app.set_message(msg, false);
            Vec::new()
        }
        ("stop", n) => match n.trim_start_matches('#').parse::<u64>() {
            Ok(id) if app.tasks.iter().any(|(t, _)| *t == id) => vec![Effect::StopTask(id)],
            _ => {
                app.set_message(
                    format!("`:stop {n}`: no running task has that number; :tasks lists them."),
                    true,
                );
                Vec::new()
            }
        },
        ("export", team) => {
            app.export_armed = false;
            // `:export Cloudnet/NRP`: the team's evidence list becomes the bundle's checklist.
            app.export_team = Some(team.trim().to_string()).filter(|t| !t.is_empty());
            nav_cmd(app, Cmd::Export)
        }
        ("done", "") => nav_cmd(app, Cmd::MarkDone),
        ("skip", "") => nav_cmd(app, Cmd::MarkSkipped),
        ("library", "") => super::update::update(app, super::action::Action::Library),
        ("help", "") => {
            app.help = true;
            Vec::new()
        }
        ("q" | "quit", "") => super::update::update(app, super::action::Action::Quit),
        ("q!" | "quit!", "") => {
            app.quit = true;
            Vec::new()
        }
        ("", "") => Vec::new(),
        _ => {
            app.set_message(format!("`:{line}` is not a command: try :alert NAME, :goto ID, :set VAR=value, :export, :q"), true);
            Vec::new()
        }
    }
}
