//! `draw(frame, app)`: the whole screen — library or guide view, help, and the status line
//! (input field, message, live-query state, key hints). Pure; must not import IO.

use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::app::{App, Input, Live, Screen};
use super::frame::FrameState;
use super::widgets;

/// Draws the model; writes only `fs` (caches and what was measured, see [`FrameState`]).
pub fn draw(f: &mut Frame, app: &App, fs: &mut FrameState) {
    let [body, status] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(f.area());
    if app.screen.help {
        widgets::help::draw(f, body, app, fs);
    } else {
        match app.screen.current {
            Screen::Library => widgets::library::draw(f, body, app, fs),
            Screen::Guide => widgets::guide::draw(f, body, app, fs),
        }
    }
    if app.reading.pager.is_some() {
        widgets::pager::draw(f, body, app, fs);
    }
    if app.waves.is_some() {
        widgets::waves::draw(f, body, app);
    }
    if app.mitigation.is_some() {
        widgets::confirm::draw(f, body, app, fs);
    }
    if app.mitigation.is_none() && app.reading.pager.is_none() {
        widgets::exported::draw(f, body, app);
    }
    let room = status_line(f, status, app);
    fs.viewport.status_room = room;
    widgets::popup::draw(f, body, app, room);
}

/// The session's mode, always shown first; then where answers come from (demo, replay), the
/// open mitigations and running tasks. `compact` keeps them short so that a message still
/// fits beside them (what is open stays spelled out unless the screen is narrow).
fn mode_spans(app: &App, compact: bool, area_w: u16) -> Vec<Span<'static>> {
    let t = &app.theme;
    // The context probes run on stays in sight in every mode: reads go to it as well.
    let ctx = app.context().unwrap_or_default();
    let mut out = vec![if app.session.write {
        Span::styled(
            format!(" WRITE {ctx}{} ", where_to(app, compact)),
            t.get("badge.mutating"),
        )
    } else if ctx.is_empty() || compact {
        // Short badges leave the context to the prompt or message that needs the room.
        Span::styled(" READ-ONLY ", t.get("badge.read-only"))
    } else {
        Span::styled(
            format!(" READ-ONLY {ctx}{} ", where_to(app, false)),
            t.get("badge.read-only"),
        )
    }];
    // Where answers come from stays in sight whatever message is shown.
    if let Some(label) = &app.session.data_label {
        let label = if compact { label.short() } else { label.text() };
        out.push(Span::styled(format!(" {label} "), t.get("ui.error")));
    }
    if !app.session.open.is_empty() {
        let first = app
            .session
            .open
            .first()
            .map(|o| format!("{} → {}", o.resource, o.now));
        out.push(Span::styled(
            if compact && area_w < 100 {
                format!(" OPEN {} ", app.session.open.len())
            } else {
                format!(
                    " OPEN {}: {} ",
                    app.session.open.len(),
                    first.unwrap_or_default()
                )
            },
            t.get("ui.error"),
        ));
    }
    if !app.probes.tasks.is_empty() {
        out.push(Span::styled(
            match app.probes.tasks.len() {
                n if compact && area_w < 100 => {
                    format!(" {n} task{} ", if n == 1 { "" } else { "s" })
                }
                1 => " 1 task running (:tasks) ".to_string(),
                n => format!(" {n} tasks running (:tasks) "),
            },
            t.get("ui.live_off"),
        ));
    }
    if app.firing.enabled {
        out.push(widgets::firing::status(app));
    }
    out.push(Span::raw(" "));
    out
}

/// The session's namespace and kubeconfig after its context: ` · ns NAME · kubeconfig FILE`
/// (the file's name; `compact` keeps the namespace only).
fn where_to(app: &App, compact: bool) -> String {
    let mut out = String::new();
    if let Some(ns) = &app.session.namespace {
        out.push_str(&format!(" · ns {ns}"));
    }
    let file = (app.session.kubeconfig.as_deref())
        .map(|k| k.rsplit('/').next().filter(|n| !n.is_empty()).unwrap_or(k));
    if let Some(f) = file.filter(|_| !compact) {
        out.push_str(&format!(" · kubeconfig {f}"));
    }
    out
}

/// Draws the status line; returns the columns a message had beside the badges.
fn status_line(f: &mut Frame, area: ratatui::layout::Rect, app: &App) -> usize {
    let t = &app.theme;
    // Short badges when the message would not fit beside the long ones.
    let spans_w =
        |m: &[Span]| -> usize { m.iter().map(|s| widgets::wrap::width(&s.content)).sum() };
    let wanted = wanted(app);
    let full = mode_spans(app, false, area.width);
    let mode = if wanted > 0 && spans_w(&full) + wanted > usize::from(area.width) {
        mode_spans(app, true, area.width)
    } else {
        full
    };
    let used: usize = mode.iter().map(|s| widgets::wrap::width(&s.content)).sum();
    let w = usize::from(area.width).saturating_sub(used);
    let line = match &app.input {
        Some(Input::Palette { buf }) => {
            // What the typed line could become (Tab completes, again cycles).
            let hint = super::complete::hint(app, buf);
            Line::from(vec![
                Span::styled(":", t.get("ui.key")),
                Span::styled(format!("{buf}▏"), t.get("ui.input")),
                Span::styled(hint, t.get("ui.dim")),
            ])
        }
        Some(Input::Search { buf }) => Line::from(vec![
            Span::styled("/", t.get("ui.key")),
            Span::styled(format!("{buf}▏"), t.get("ui.input")),
        ]),
        Some(Input::Prompt { var, buf, .. }) => {
            // A warning about the value (a ledger conflict, an empty value) stays in sight.
            let warn = app.notice.as_ref().filter(|n| n.is_error());
            let mut spans: Vec<Span> = warn
                .map(|n| Span::styled(format!("{}  ", n.text), t.get("ui.error")))
                .into_iter()
                .collect();
            spans.extend([
                Span::styled(format!("{var} = "), t.get("ui.key")),
                Span::styled(format!("{buf}▏"), t.get("ui.input")),
                Span::styled("  (Enter set, Esc cancel)", t.get("ui.dim")),
            ]);
            Line::from(spans)
        }
        Some(Input::Write { buf }) => Line::from(vec![
            Span::styled(
                format!(
                    "write mode: type the kube context `{}` = ",
                    app.context().unwrap_or_default()
                ),
                t.get("ui.key"),
            ),
            Span::styled(format!("{buf}▏"), t.get("ui.input")),
        ]),
        None => message_line(app, w),
    };
    let mut spans = mode;
    spans.extend(line.spans);
    f.render_widget(Paragraph::new(Line::from(spans).style(line.style)), area);
    w
}

/// The columns the status line's input or message wants beside the badges.
fn wanted(app: &App) -> usize {
    match (&app.input, &app.notice) {
        (Some(Input::Write { buf }), _) => {
            60 + widgets::wrap::width(buf) + app.context().map_or(0, |c| c.len())
        }
        (Some(Input::Prompt { var, buf, .. }), n) => {
            30 + var.len()
                + widgets::wrap::width(buf)
                + n.as_ref()
                    .filter(|n| n.is_error())
                    .map_or(0, |n| widgets::wrap::width(&n.text) + 2)
        }
        // The palette's completion hint counts too, so the badges shorten to make room.
        (Some(Input::Palette { buf }), _) => {
            2 + widgets::wrap::width(buf) + widgets::wrap::width(&super::complete::hint(app, buf))
        }
        (Some(Input::Search { buf }), _) => 2 + widgets::wrap::width(buf),
        (None, Some(n)) => widgets::wrap::width(&n.shown(app.session.copy_offer.is_some())),
        (None, None) => 0,
    }
}

/// The status line with no input open: the message, else the key hints and the live state.
fn message_line(app: &App, w: usize) -> Line<'static> {
    let t = &app.theme;
    match &app.notice {
        Some(n) => Line::styled(
            widgets::wrap::truncate(&n.shown(app.session.copy_offer.is_some()), w),
            if n.is_error() {
                t.get("ui.error")
            } else {
                t.get("ui.message")
            },
        ),
        None => {
            let live = match &app.session.live {
                Live::Available if app.session.data_label.is_some() => Span::raw(""),
                Live::Available => match &app.session.sandbox {
                    Some(sb) => Span::styled(
                        format!("live queries on · sandbox: {}", sb.text),
                        t.get("status.done"),
                    ),
                    None => Span::styled("live queries on", t.get("status.done")),
                },
                Live::Starting => Span::styled("live queries starting…", t.get("ui.dim")),
                Live::Unavailable(_) => {
                    Span::styled("live queries unavailable", t.get("ui.live_off"))
                }
            };
            let hints = if app.screen.current == Screen::Library && !app.screen.help {
                " ? help  / search  Enter open  : command  q quit · "
            } else {
                " ? help  Tab/Enter choose  h back  n next  / search  : command  q quit · "
            };
            let hints = widgets::wrap::truncate(hints, w.saturating_sub(26));
            Line::from(vec![Span::styled(hints, t.get("ui.dim")), live])
        }
    }
}
