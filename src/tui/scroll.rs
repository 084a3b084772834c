//! Scrolling: the node pane and the help screen, clamped to what the last frame measured
//! (`Action::Drawn`), so the model never scrolls past the text and tests need no rendering.
//! Pure: part of `update()`; must not import IO.

use super::app::{App, Viewport};
use super::command::Command;

/// A frame was drawn: keeps what the view measured and clamps the scroll positions to it
/// (the frame already showed them clamped, so nothing needs drawing again).
pub(super) fn drawn(app: &mut App, v: Viewport) {
    app.dirty = false;
    app.screen.viewport = v;
    if let (Some(_), Some(s)) = (app.screen.reveal.take(), v.revealed) {
        app.screen.scroll = s;
    }
    if let Some(max) = v.max_scroll() {
        app.screen.scroll = app.screen.scroll.min(max);
    }
    if app.screen.help {
        app.screen.help_scroll = app.screen.help_scroll.min(v.max_help_scroll());
    }
}

/// Scrolls the help screen, clamped once it was drawn.
pub(super) fn help_scroll_to(app: &mut App, to: usize) {
    let v = app.screen.viewport;
    app.screen.help_scroll = if v.help_lines > 0 {
        to.min(v.max_help_scroll())
    } else {
        to
    };
}

/// Scrolls the node pane, clamped to the text the last frame measured.
pub(super) fn scroll_to(app: &mut App, to: usize) {
    app.screen.scroll = match app.screen.viewport.max_scroll() {
        Some(max) => to.min(max),
        None => to.min(1 << 20),
    };
}

/// Scrolls the node pane by a line, a page (the pane less two rows) or to an end.
pub(super) fn scroll(app: &mut App, a: &Command) {
    let page = usize::from(app.screen.viewport.areas.node.height.saturating_sub(2)).max(1);
    let at = app.screen.scroll;
    match a {
        Command::ScrollDown => scroll_to(app, at + 1),
        Command::ScrollUp => scroll_to(app, at.saturating_sub(1)),
        Command::PageDown => scroll_to(app, at + page),
        Command::PageUp => scroll_to(app, at.saturating_sub(page)),
        Command::Top => app.screen.scroll = 0,
        _ => scroll_to(app, usize::MAX),
    }
}
