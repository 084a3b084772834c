//! `draw(frame, app)`: the whole screen — library or guide view, help, and the status line
//! (input field, message, live-query state, key hints). Pure; must not import IO.

use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::app::{App, Input, Live, Screen};
use super::widgets;

pub fn draw(f: &mut Frame, app: &mut App) {
    let [body, status] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(f.area());
    if app.help {
        widgets::help::draw(f, body, app);
    } else {
        match app.screen {
            Screen::Library => widgets::library::draw(f, body, app),
            Screen::Guide => widgets::guide::draw(f, body, app),
        }
    }
    status_line(f, status, app);
}

fn status_line(f: &mut Frame, area: ratatui::layout::Rect, app: &App) {
    let t = &app.theme;
    let w = usize::from(area.width);
    let line = match &app.input {
        Some(Input::Palette { buf }) => Line::from(vec![
            Span::styled(":", t.get("ui.key")),
            Span::styled(format!("{buf}▏"), t.get("ui.input")),
        ]),
        Some(Input::Search { buf }) => Line::from(vec![
            Span::styled("/", t.get("ui.key")),
            Span::styled(format!("{buf}▏"), t.get("ui.input")),
        ]),
        Some(Input::Prompt { var, buf, .. }) => Line::from(vec![
            Span::styled(format!("{var} = "), t.get("ui.key")),
            Span::styled(format!("{buf}▏"), t.get("ui.input")),
            Span::styled("  (Enter set, Esc cancel)", t.get("ui.dim")),
        ]),
        None => match &app.message {
            Some((m, err)) => Line::styled(
                widgets::wrap::truncate(m, w),
                if *err {
                    t.get("ui.error")
                } else {
                    t.get("ui.message")
                },
            ),
            None => {
                let live = match &app.live {
                    Live::Available if app.data_label.is_some() => Span::styled(
                        app.data_label.clone().unwrap_or_default(),
                        t.get("ui.error"),
                    ),
                    Live::Available => Span::styled("live queries on", t.get("status.done")),
                    Live::Unavailable(_) => {
                        Span::styled("live queries unavailable", t.get("ui.live_off"))
                    }
                };
                let hints = if app.screen == Screen::Library && !app.help {
                    " ? help  / search  Enter open  : command  q quit · "
                } else {
                    " ? help  Tab/Enter choose  h back  n next  / search  : command  q quit · "
                };
                let hints = widgets::wrap::truncate(hints, w.saturating_sub(26));
                Line::from(vec![Span::styled(hints, t.get("ui.dim")), live])
            }
        },
    };
    f.render_widget(Paragraph::new(line), area);
}
