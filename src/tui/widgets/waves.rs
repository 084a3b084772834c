//! The wave screen of `:waves` (see [`crate::tui::waves`]): the plan (the contexts, the waves
//! with the canary first, the concurrency, the change, the gates, the policies, the
//! preconditions and the phrase to type back), then the live table, one row per context with
//! its state, the counts and the ETA, and the keys that apply (pause, and after a failure:
//! restore the failed contexts, the wave, or stop). Works at 80×24: the field and the keys
//! are pinned at the bottom. Pure (state in, cells out); no IO.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;

use crate::mitigate::waves::State;
use crate::tui::app::App;
use crate::tui::waves::{Ask, Phase, Waves};

/// Draws the wave screen over `area`, when it is open.
pub fn draw(f: &mut Frame, area: Rect, app: &App) {
    let Some(w) = app.waves.as_ref() else {
        return;
    };
    let t = &app.theme;
    f.render_widget(Clear, area);
    let title = match w.phase {
        Phase::Loading | Phase::Plan | Phase::Starting => " Wave plan ",
        _ => " Wave run ",
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .title(format!("{title}· {} ", w.plan.title))
        .border_style(t.get("ui.border_focus"));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let bottom = bottom_lines(w, app);
    // Rows the pinned lines take once wrapped, so the keys are never cut off.
    let room = usize::from(inner.width).max(1);
    let rows: usize = bottom.iter().map(|l| l.width().max(1).div_ceil(room)).sum();
    let h = u16::try_from(rows).unwrap_or(4).min(inner.height / 2);
    let [top, pinned] = Layout::vertical([Constraint::Min(1), Constraint::Length(h)]).areas(inner);
    let body = match w.phase {
        Phase::Loading => Paragraph::new(format!(
            "Reading the kube contexts matching {} and the step's gates…",
            w.glob
        )),
        Phase::Plan | Phase::Starting => Paragraph::new(plan_lines(w, app)),
        // One row per context, cut at the edge rather than wrapped.
        _ => {
            f.render_widget(
                Paragraph::new(table_lines(w, app, usize::from(top.height))),
                top,
            );
            f.render_widget(Paragraph::new(bottom).wrap(Wrap { trim: false }), pinned);
            return;
        }
    };
    f.render_widget(body.wrap(Wrap { trim: false }), top);
    f.render_widget(Paragraph::new(bottom).wrap(Wrap { trim: false }), pinned);
}

/// Up to six names of a wave: `a, b, c … y, z`.
fn names(wave: &[String]) -> String {
    if wave.len() > 6 {
        format!(
            "{} … {}",
            wave[..3].join(", "),
            wave[wave.len() - 2..].join(", ")
        )
    } else {
        wave.join(", ")
    }
}

fn plan_lines(w: &Waves, app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let p = &w.plan;
    let mut out = vec![Line::styled(
        format!(
            "{} · {} contexts · {} waves · {} at a time",
            p.glob,
            p.count(),
            p.waves.len(),
            p.parallel
        ),
        t.get("ui.strong"),
    )];
    for (i, wave) in p.waves.iter().enumerate() {
        let label = if i == 0 { " (canary)" } else { "" };
        out.push(Line::raw(format!(
            "wave {}{label}: {} · {}",
            i + 1,
            wave.len(),
            names(wave)
        )));
    }
    for c in &p.change {
        out.push(Line::from(vec![
            Span::styled("change: ", t.get("ui.key")),
            Span::raw(c.clone()),
        ]));
    }
    out.push(Line::styled(
        format!("gates ({}):", p.gates_from),
        t.get("ui.key"),
    ));
    out.extend(p.gates.iter().map(|g| Line::raw(format!("  {g}"))));
    if !p.earlier.is_empty() {
        out.push(Line::styled(
            format!(
                "resuming: {} contexts done in the earlier run are left as they are; {} remain",
                p.earlier.len(),
                p.count()
            ),
            t.get("ui.warning"),
        ));
    }
    let fresh: Vec<String> = (p.interrupted.iter())
        .filter(|c| !p.captured.iter().any(|(k, _)| k == *c))
        .cloned()
        .collect();
    if !fresh.is_empty() {
        out.push(Line::styled(
            format!(
                "{} were in the wave under way when it was cut short, not captured ({}): run again, the capture reads them as they are now",
                fresh.len(),
                names(&fresh)
            ),
            t.get("ui.warning"),
        ));
    }
    let again: Vec<&(String, String)> = (p.captured.iter())
        .filter(|(c, _)| p.waves.iter().flatten().any(|w| w == c))
        .collect();
    if !again.is_empty() {
        let (c, what) = again[0];
        let more = match again.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        out.push(Line::styled(
            format!(
                "{} run again with the value captured before their first change, not captured again: {c} {what}{more}",
                again.len()
            ),
            t.get("ui.warning"),
        ));
    }
    for pol in &p.policies {
        out.push(Line::styled(format!("policy {pol}"), t.get("ui.warning")));
    }
    if !p.preconditions.is_empty() {
        out.push(Line::styled(
            "Preconditions (Space acknowledges, j k move):",
            t.get("ui.key"),
        ));
    }
    for (i, pre) in p.preconditions.iter().enumerate() {
        let mark = if w.acks.get(i).copied().unwrap_or(false) {
            "[x]"
        } else {
            "[ ]"
        };
        let style = match i == w.sel && !w.acks.iter().all(|a| *a) {
            true => t.get("ui.selected"),
            false => Style::default(),
        };
        out.push(Line::styled(format!("{mark} {pre}"), style));
    }
    out
}

/// The style of a state's word.
fn state_style(app: &App, s: &State) -> Style {
    let t = &app.theme;
    match s {
        State::Ok => t.get("status.done"),
        State::Failed(_) => t.get("ui.error"),
        State::Restored(_) => t.get("ui.warning"),
        State::Mutating | State::Validating | State::Soaking => t.get("badge.mutating"),
        _ => t.get("ui.dim"),
    }
}

fn table_lines(w: &Waves, app: &App, height: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let of = w.plan.waves.len();
    let eta = match w.eta {
        Some(s) if w.phase != Phase::Over => format!(" · ETA {}", seconds(s)),
        _ if w.phase == Phase::Over => String::new(),
        _ => " · ETA after wave 1".to_string(),
    };
    let mut out = vec![
        Line::styled(
            format!(
                "{} · {} contexts · wave {}/{of} · {} at a time{eta}",
                w.plan.glob,
                w.plan.count(),
                (w.current_wave() + 1).min(of),
                w.plan.parallel
            ),
            t.get("ui.strong"),
        ),
        Line::raw(
            (w.done_earlier() > 0)
                .then(|| format!("done earlier {}", w.done_earlier()))
                .into_iter()
                .chain(
                    [
                        "ok",
                        "mutating",
                        "validating",
                        "soaking",
                        "pending",
                        "failed",
                        "restored",
                        "skipped",
                    ]
                    .iter()
                    .filter(|s| **s == "ok" || w.count(s) > 0)
                    .map(|s| format!("{s} {}", w.count(s))),
                )
                .collect::<Vec<_>>()
                .join(" · "),
        ),
        Line::styled(
            format!("{:<5} {:<28} {:<10} DETAIL", "WAVE", "CONTEXT", "STATE"),
            t.get("ui.table_head"),
        ),
    ];
    let room = height.saturating_sub(out.len()).max(1);
    let first = w.scroll.unwrap_or_else(|| w.follow_row());
    let first = first.min(w.rows.len().saturating_sub(room));
    for r in w.rows.iter().skip(first).take(room) {
        let detail = match &r.state {
            _ if r.earlier => "earlier run".to_string(),
            State::Failed(d) | State::Restored(d) => d.clone(),
            _ => String::new(),
        };
        let (wave, word) = match (r.earlier, &r.state) {
            (true, State::Ok) => ("-".to_string(), "done"),
            (true, s) => ("-".to_string(), s.word()),
            (false, s) => (format!("{}/{of}", r.wave + 1), s.word()),
        };
        out.push(Line::from(vec![
            Span::raw(format!("{wave:<5} {:<28} ", r.context)),
            Span::styled(format!("{word:<10}"), state_style(app, &r.state)),
            Span::raw(format!(" {detail}")),
        ]));
    }
    out
}

/// `45 s`, `3 min 20 s`.
fn seconds(s: f64) -> String {
    let s = s.round() as u64;
    match s {
        0..=59 => format!("{s} s"),
        _ => format!("{} min {} s", s / 60, s % 60),
    }
}

/// The field, the last line of the run, the error and the keys that apply now.
fn bottom_lines(w: &Waves, app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut out = Vec::new();
    let keys = match w.phase {
        Phase::Loading => "Esc closes".to_string(),
        Phase::Plan | Phase::Starting => {
            out.push(Line::raw(format!(
                "Type `{}` to run it (write mode):",
                w.plan.phrase
            )));
            out.push(Line::from(vec![
                Span::styled("> ", t.get("ui.key")),
                Span::styled(format!("{}█", w.typed), t.get("ui.input")),
            ]));
            "Space acknowledges · Enter runs · Ctrl-u clears · Esc cancels".to_string()
        }
        Phase::Running => {
            "Esc pauses after the wave under way · q quits · j k scroll · G follows".to_string()
        }
        Phase::Pausing => "pausing after the wave under way · j k scroll".to_string(),
        Phase::Choosing => {
            let wave = w.failed_wave.unwrap_or(0);
            let failed = w
                .rows
                .iter()
                .filter(|r| r.wave == wave && matches!(r.state, State::Failed(_)))
                .count();
            let all = w.rows.iter().filter(|r| r.wave == wave).count();
            format!(
                "wave {} failed: c restore the {failed} failed · w the wave ({all}) · a all ({}) · s stop",
                wave + 1,
                w.changed()
            )
        }
        Phase::Restoring => "restoring from the captured prior state…".to_string(),
        Phase::Over => "Esc, q or Enter closes".to_string(),
    };
    if let Some(l) = &w.line {
        out.push(Line::styled(l.clone(), t.get("ui.dim")));
    }
    let keys = match w.ask {
        Some(Ask::RestoreAll) => match w.changed_earlier() {
            0 => format!(
                "Restore all {} contexts this run changed to their captured values? y restores them · any other key goes back",
                w.changed()
            ),
            e => format!(
                "Restore all {} contexts the step's runs changed ({e} in the earlier run) to the values captured before their first change? y restores them · any other key goes back",
                w.changed()
            ),
        },
        Some(Ask::Quit) => format!(
            "Quit while wave {} runs? p pauses after it and quits once it is journaled · any other key keeps running",
            w.current_wave() + 1
        ),
        None => keys,
    };
    if let Some(e) = &w.error {
        out.push(Line::styled(e.clone(), t.get("ui.error")));
    }
    let style = match w.phase {
        _ if w.ask.is_some() => t.get("ui.warning"),
        Phase::Choosing => t.get("ui.error"),
        _ => t.get("ui.key"),
    };
    out.push(Line::styled(keys, style));
    out
}
