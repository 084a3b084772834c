//! `/` on the help screen: typing a query, Enter scrolls to the first line that holds it
//! (case-insensitive), `n`/`N` go to the next and previous one, wrapping around. The lines
//! searched are the help screen's own, wrapped at the width it was last drawn. Pure: part of
//! `update()`; must not import IO.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::App;
use super::effect::Effect;

/// A key on the help screen that the search takes (`None` otherwise).
pub fn key(app: &mut App, ev: &KeyEvent) -> Option<Vec<Effect>> {
    if !app.screen.help || ev.modifiers.contains(KeyModifiers::CONTROL) {
        return None;
    }
    let f = &mut app.screen.help_find;
    if let Some(buf) = f.typing.as_mut() {
        match ev.code {
            KeyCode::Esc => f.typing = None,
            KeyCode::Backspace => {
                buf.pop();
            }
            KeyCode::Char(c) => buf.push(c),
            KeyCode::Enter => {
                f.query = f.typing.take().unwrap_or_default();
                let from = app.screen.help_scroll;
                find(app, from, true);
            }
            _ => {}
        }
        return Some(Vec::new());
    }
    let forward = match ev.code {
        KeyCode::Char('n') => true,
        KeyCode::Char('N') => false,
        _ => return None,
    };
    if f.query.is_empty() {
        return None;
    }
    let at = app.screen.help_scroll;
    find(app, if forward { at + 1 } else { at }, forward);
    Some(Vec::new())
}

/// Scrolls to the next line holding the query from line `from` (or the one before it).
fn find(app: &mut App, from: usize, forward: bool) {
    let q = app.screen.help_find.query.to_lowercase();
    if q.is_empty() {
        return;
    }
    let width = app.screen.viewport.areas.help.width;
    let lines: Vec<String> = super::widgets::help::lines(app, width)
        .iter()
        .map(|l| l.to_string().to_lowercase())
        .collect();
    let hits: Vec<usize> = (0..lines.len())
        .filter(|i| lines[*i].contains(&q))
        .collect();
    let next = match forward {
        true => hits.iter().find(|h| **h >= from).or(hits.first()),
        false => hits.iter().rev().find(|h| **h < from).or(hits.last()),
    };
    match next.copied() {
        Some(line) => {
            let n = hits.iter().position(|h| *h == line).unwrap_or(0) + 1;
            // Clamped to the last page, where the match is still in sight.
            super::scroll::help_scroll_to(app, line);
            app.set_message(
                format!("`{q}`: match {n} of {} · n next, N previous", hits.len()),
                false,
            );
        }
        None => app.set_message(
            format!("`{q}` is not in the help; Esc closes it, / searches again."),
            true,
        ),
    }
}
