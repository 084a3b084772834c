//! An error too long for the status line opens in a popup over the screen (Esc closes it).
//! Whether it is open follows from the model and what the view measured (the room the status
//! line had in the last frame), so `update` and the view agree. Pure: part of `update()`;
//! must not import IO.

use super::app::App;

/// Whether the status line's error does not fit it and is shown in a popup.
pub fn open(app: &App) -> bool {
    let room = app.screen.viewport.status_room;
    app.input.is_none()
        && room > 0
        && app
            .notice
            .as_ref()
            .is_some_and(|n| n.is_error() && super::widgets::wrap::width(&n.text) > room)
}

/// Esc on the popup: closes it (the key does nothing else). `false` when none is open.
pub fn close(app: &mut App) -> bool {
    if !open(app) {
        return false;
    }
    app.notice = None;
    true
}
