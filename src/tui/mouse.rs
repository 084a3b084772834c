//! Mouse events: wheel scrolling (node pane, library list, help) and left clicks (library
//! rows, outline rows, actions-panel rows). Pure: part of `update()`; must not import IO.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

use super::app::{App, Panel, Screen};
use super::command::Command;
use super::navigate::{nav_cmd, open_hit};
use super::scroll::{help_scroll_to, scroll_to};
use super::update::{activate, Then};
use crate::nav::Cmd;

/// A mouse event: what it did, or the command the wheel means on the library list.
pub fn mouse(app: &mut App, m: MouseEvent) -> Then {
    let inside = |r: ratatui::layout::Rect| {
        m.column >= r.x && m.column < r.x + r.width && m.row >= r.y && m.row < r.y + r.height
    };
    match m.kind {
        MouseEventKind::ScrollDown if app.screen.help => {
            help_scroll_to(app, app.screen.help_scroll + 3)
        }
        MouseEventKind::ScrollUp if app.screen.help => {
            help_scroll_to(app, app.screen.help_scroll.saturating_sub(3))
        }
        MouseEventKind::ScrollDown if app.screen.current == Screen::Library => {
            return Then::Run(Command::NextItem)
        }
        MouseEventKind::ScrollUp if app.screen.current == Screen::Library => {
            return Then::Run(Command::PrevItem)
        }
        MouseEventKind::ScrollDown => scroll_to(app, app.screen.scroll + 3),
        MouseEventKind::ScrollUp => scroll_to(app, app.screen.scroll.saturating_sub(3)),
        MouseEventKind::Down(MouseButton::Left) if !app.screen.help => {
            if app.screen.current == Screen::Library && inside(app.screen.viewport.areas.list) {
                let row = app.screen.viewport.areas.list_top
                    + usize::from(m.row - app.screen.viewport.areas.list.y);
                if row < app.search.hits.len() {
                    app.search.sel = row;
                    return open_hit(app).into();
                }
            }
            if app.screen.current == Screen::Guide && inside(app.screen.viewport.areas.outline) {
                let row = app.screen.viewport.areas.outline_top
                    + usize::from(m.row - app.screen.viewport.areas.outline.y);
                if let Some(id) = app
                    .current_guide()
                    .and_then(|g| g.nodes.get(row))
                    .map(|n| n.id.clone())
                {
                    return nav_cmd(app, Cmd::Goto(id)).into();
                }
            }
            if app.screen.current == Screen::Guide && inside(app.screen.viewport.areas.items) {
                let row = app.screen.viewport.areas.items_top
                    + usize::from(m.row - app.screen.viewport.areas.items.y);
                let items = app.items();
                if row < items.len() && app.screen.panel == Panel::Actions {
                    app.screen.item_sel = row;
                    return activate(app, &items).into();
                }
            }
            app.dirty = false;
        }
        _ => app.dirty = false,
    }
    Then::Done(Vec::new())
}
