//! The keys of the wave screen ([`super::waves`]) and the runtime's events folded into it.
//! Plan: `j` `k` move, `Space` acknowledges a precondition, then the phrase is typed
//! (`Ctrl-u` clears it), `Enter` confirms, `Esc` closes. Running: `Esc` pauses after the wave
//! under way, `j` `k` scroll, `q` (or Ctrl-c) asks: `p` pauses after the wave under way and
//! quits once the run has ended and is journaled, any other key keeps it running. After a
//! failure: `c` restores the failed contexts, `w` the whole wave, `a` (then `y`) every context
//! the run changed, `s` stops. Over: `Esc`, `q` or `Enter` closes. Pure; must not import IO.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::App;
use super::effect::{Effect, WavesOp};
use super::waves::{Ask, Phase, Row, Waves, WavesEvent};
use crate::mitigate::waves::{check_phrase, State};

/// A key while the wave screen is open.
pub fn key(app: &mut App, ev: KeyEvent) -> Vec<Effect> {
    let Some(w) = app.waves.as_mut() else {
        return Vec::new();
    };
    let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
    if let Some(ask) = w.ask.take() {
        return answer(w, ask, ev.code);
    }
    let quit_key = ev.code == KeyCode::Char('q') || (ctrl && ev.code == KeyCode::Char('c'));
    match w.phase {
        Phase::Running | Phase::Starting | Phase::Pausing | Phase::Restoring if quit_key => {
            w.ask = Some(Ask::Quit);
            Vec::new()
        }
        Phase::Choosing if quit_key => {
            w.error = Some(
                "A wave failed: choose first (c, w, a restore; s stops and leaves them as they are), then q quits."
                    .into(),
            );
            Vec::new()
        }
        Phase::Choosing if ev.code == KeyCode::Char('a') => {
            w.error = None;
            w.ask = Some(Ask::RestoreAll);
            Vec::new()
        }
        Phase::Loading | Phase::Plan | Phase::Over if ev.code == KeyCode::Esc => {
            app.waves = None;
            vec![Effect::Waves(WavesOp::Close)]
        }
        Phase::Over if matches!(ev.code, KeyCode::Enter | KeyCode::Char('q')) => {
            app.waves = None;
            vec![Effect::Waves(WavesOp::Close)]
        }
        Phase::Plan => plan_key(w, ev.code, ctrl),
        Phase::Running | Phase::Starting if ev.code == KeyCode::Esc => {
            w.phase = Phase::Pausing;
            w.line = Some(format!(
                "Pausing: wave {} finishes (its contexts change and validate), no later wave starts.",
                w.current_wave() + 1
            ));
            vec![Effect::Waves(WavesOp::Pause)]
        }
        Phase::Choosing => {
            let op = match ev.code {
                KeyCode::Char('c') => WavesOp::RestoreFailed,
                KeyCode::Char('w') => WavesOp::RestoreWave,
                KeyCode::Char('s') => WavesOp::Stop,
                _ => {
                    w.error = Some(
                        "A wave failed: c restores the failed contexts, w the whole wave, a every context this run changed, s stops (leaves them as they are)."
                            .into(),
                    );
                    return Vec::new();
                }
            };
            w.error = None;
            w.phase = match op {
                WavesOp::Stop => Phase::Over,
                _ => Phase::Restoring,
            };
            vec![Effect::Waves(op)]
        }
        _ => {
            scroll(w, ev.code);
            Vec::new()
        }
    }
}

/// The answer to the question on screen; any other key puts it away.
fn answer(w: &mut Waves, ask: Ask, code: KeyCode) -> Vec<Effect> {
    match (ask, code) {
        (Ask::RestoreAll, KeyCode::Char('y')) => {
            w.phase = Phase::Restoring;
            vec![Effect::Waves(WavesOp::RestoreAll)]
        }
        (Ask::Quit, KeyCode::Char('p')) => {
            w.quit_after = true;
            w.line = Some(match w.phase {
                Phase::Restoring => "Quitting once the restore has ended and is journaled.".into(),
                _ => format!(
                    "Quitting after wave {}: its contexts finish (change, validation, journal), no later wave starts.",
                    w.current_wave() + 1
                ),
            });
            if matches!(w.phase, Phase::Running | Phase::Starting) {
                w.phase = Phase::Pausing;
                return vec![Effect::Waves(WavesOp::Pause)];
            }
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// `j` `k` and the arrows scroll the table; `G` follows the run again.
fn scroll(w: &mut Waves, code: KeyCode) {
    let at = w.scroll.unwrap_or_else(|| w.follow_row());
    let last = w.rows.len().saturating_sub(1);
    w.scroll = match code {
        KeyCode::Char('j') | KeyCode::Down => Some((at + 1).min(last)),
        KeyCode::Char('k') | KeyCode::Up => Some(at.saturating_sub(1)),
        KeyCode::PageDown => Some((at + 10).min(last)),
        KeyCode::PageUp => Some(at.saturating_sub(10)),
        KeyCode::Char('g') => Some(0),
        KeyCode::Char('G') => None,
        _ => return,
    };
}

/// The plan screen: acknowledge each precondition, then type the phrase back.
fn plan_key(w: &mut Waves, code: KeyCode, ctrl: bool) -> Vec<Effect> {
    let all = w.acks.iter().all(|a| *a);
    let n = w.acks.len();
    match code {
        KeyCode::Up => w.sel = w.sel.saturating_sub(1),
        KeyCode::Down => w.sel = (w.sel + 1).min(n.saturating_sub(1)),
        KeyCode::Char('u') if ctrl => w.typed.clear(),
        KeyCode::Backspace => {
            w.typed.pop();
        }
        KeyCode::Enter => return submit(w),
        KeyCode::Char('j') if !all => w.sel = (w.sel + 1).min(n.saturating_sub(1)),
        KeyCode::Char('k') if !all => w.sel = w.sel.saturating_sub(1),
        KeyCode::Char(' ') if !all => {
            if let Some(a) = w.acks.get_mut(w.sel) {
                *a = !*a;
            }
            // On to the next one left to tick.
            if let Some(i) = w.acks.iter().position(|a| !a) {
                w.sel = i;
            }
            w.error = None;
        }
        KeyCode::Char(c) if all && !ctrl => w.typed.push(c),
        KeyCode::Char(_) => {
            w.error = Some(format!(
                "Acknowledge the preconditions first (Space ticks the one under the cursor, j k move): {} of {n} are.",
                w.acks.iter().filter(|a| **a).count()
            ));
        }
        _ => {}
    }
    Vec::new()
}

fn submit(w: &mut Waves) -> Vec<Effect> {
    if let Some(i) = w.acks.iter().position(|a| !a) {
        w.sel = i;
        w.error = Some(format!(
            "Precondition {} of {} is not acknowledged: the cursor is on it, Space ticks it. Nothing was run.",
            i + 1,
            w.acks.len()
        ));
        return Vec::new();
    }
    if let Err(e) = check_phrase(&w.typed, &w.plan.phrase) {
        w.error = Some(format!("{e}. Nothing was run."));
        return Vec::new();
    }
    w.error = None;
    w.phase = Phase::Starting;
    vec![Effect::Waves(WavesOp::Start {
        acknowledged: w.acks.clone(),
        typed: w.typed.clone(),
    })]
}

/// Folds one event of the runtime into the screen.
pub fn event(app: &mut App, e: WavesEvent) -> Vec<Effect> {
    let Some(w) = app.waves.as_mut() else {
        // The screen was closed: a refusal still reaches the status line.
        if let WavesEvent::Refused(why) | WavesEvent::Ended(why) = e {
            app.set_message(why, true);
        }
        return Vec::new();
    };
    match e {
        WavesEvent::Ready(plan) => {
            w.acks = vec![false; plan.preconditions.len()];
            let earlier = plan.earlier.iter().map(|(c, s)| Row {
                wave: 0,
                context: c.clone(),
                state: s.clone(),
                earlier: true,
            });
            let rows = plan.waves.iter().enumerate().flat_map(|(i, wave)| {
                wave.iter().map(move |c| Row {
                    wave: i,
                    context: c.clone(),
                    state: State::Pending,
                    earlier: false,
                })
            });
            w.rows = earlier.chain(rows).collect();
            w.plan = *plan;
            w.phase = Phase::Plan;
        }
        WavesEvent::Refused(why) if w.phase == Phase::Loading => {
            app.waves = None;
            app.set_message(format!("{why}. Nothing was run."), true);
        }
        WavesEvent::Refused(why) => {
            w.phase = Phase::Plan;
            w.error = Some(why);
        }
        WavesEvent::Started => w.phase = Phase::Running,
        WavesEvent::Progress {
            wave,
            context,
            state,
        } => {
            if let Some(r) = (w.rows.iter_mut()).find(|r| !r.earlier && r.context == context) {
                r.wave = wave;
                r.state = state;
            } else if let Some(r) = (w.rows.iter_mut()).find(|r| r.context == context) {
                // "Restore all" reaches what an earlier run changed: its row stays apart.
                r.state = state;
            }
        }
        WavesEvent::Line(l) => w.line = Some(l),
        WavesEvent::WaveDone { wave, eta, .. } => {
            w.waves_done = wave + 1;
            w.eta = eta;
        }
        WavesEvent::Failed { wave } => {
            w.failed_wave = Some(wave);
            w.phase = Phase::Choosing;
            w.scroll = None;
        }
        WavesEvent::Ended(how) => {
            // What never started stays unchanged: a pause or a failure stopped the run.
            for r in w.rows.iter_mut().filter(|r| r.state == State::Pending) {
                r.state = State::Skipped;
            }
            w.phase = Phase::Over;
            w.eta = None;
            w.line = Some(how);
            // `q` then `p`: every record of the run reached the journal before this event.
            if w.quit_after {
                app.session.quit = true;
            }
        }
    }
    Vec::new()
}
