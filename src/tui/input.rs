//! The one-line inputs: `/` search, `:` command palette and value prompts. Pure: part of
//! `update()`; must not import IO.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::{App, Input, Screen};
use super::effect::Effect;
use super::navigate::{nav_cmd, open_hit, run};
use super::search;
use super::update::Then;
use crate::nav::{Cmd, VarSource};

/// A key while an input is open (Enter on a `:` line may hand a command back to `update`).
pub fn key(app: &mut App, ev: KeyEvent) -> Then {
    let Some(mut input) = app.input.take() else {
        return Then::Done(Vec::new());
    };
    let palette = matches!(input, Input::Palette { .. });
    let buf = match &mut input {
        Input::Search { buf }
        | Input::Palette { buf }
        | Input::Prompt { buf, .. }
        | Input::Write { buf } => buf,
    };
    let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
    match ev.code {
        KeyCode::Esc => {
            if app.screen.current == Screen::Guide {
                app.search.hits.clear();
            }
            return Then::Done(Vec::new());
        }
        KeyCode::Char('c') if ctrl => return super::guard::force_quit(app).into(),
        KeyCode::Char('u') if ctrl => buf.clear(),
        KeyCode::Char(c) if !ctrl => buf.push(c),
        KeyCode::Backspace => {
            buf.pop();
        }
        // Tab in the palette completes (commands, steps, teams, variables); again cycles.
        KeyCode::Tab | KeyCode::BackTab if palette => {
            app.dirty = super::complete::tab(app, buf, ev.code == KeyCode::BackTab)
        }
        // ↑/↓ in the palette recall the lines run this session.
        KeyCode::Up | KeyCode::Down if palette => {
            app.dirty = app.palette.recall(buf, ev.code == KeyCode::Up)
        }
        KeyCode::Down | KeyCode::Tab => {
            app.search.sel = (app.search.sel + 1).min(app.search.hits.len().saturating_sub(1))
        }
        KeyCode::Up | KeyCode::BackTab => app.search.sel = app.search.sel.saturating_sub(1),
        KeyCode::Enter => return submit(app, input),
        _ => {
            app.dirty = false;
        }
    }
    if let Input::Search { buf } = &input {
        refresh_hits(app, &buf.clone());
    }
    app.input = Some(input);
    Then::Done(Vec::new())
}

fn refresh_hits(app: &mut App, query: &str) {
    let before = app.search.hits.clone();
    if app.screen.current == Screen::Library {
        app.search.query = query.to_string();
        app.search.hits = search::library_hits(&app.lib, query, usize::MAX);
    } else {
        app.search.hits = match app.current_guide_index() {
            Some(g) if !query.is_empty() => search::guide_hits(&app.lib, g, query, 200),
            _ => Vec::new(),
        };
    }
    if app.search.hits != before {
        app.search.sel = 0;
    }
}

fn submit(app: &mut App, input: Input) -> Then {
    if let Input::Palette { buf } = input {
        app.palette.remember(buf.trim());
        return super::palette::palette(app, buf.trim());
    }
    submit_line(app, input).into()
}

fn submit_line(app: &mut App, input: Input) -> Vec<Effect> {
    match input {
        Input::Search { .. } => {
            let effects = open_hit(app);
            app.search.hits = search::library_hits(&app.lib, &app.search.query, usize::MAX);
            if app.screen.current == Screen::Library {
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
        // `submit` runs a `:` line.
        Input::Palette { .. } => Vec::new(),
        Input::Write { buf } => super::flow::write_typed(app, &buf),
    }
}
