//! The wave screen's questions and a resumed plan, pure: `a` after a failure asks before
//! restoring every context the run changed (and names the count), `q` while a wave runs asks
//! (pause after it and quit, or keep running) and quits only once the run's end arrived, and
//! a plan built from an earlier run's journal shows its done contexts apart from the waves.

use crossterm::event::KeyCode;

use super::{key, plan, progress, screen, text, waves};
use crate::mitigate::waves::State;
use crate::tui::effect::{Effect, WavesOp};
use crate::tui::waves::{Ask, Phase, PlanView, WavesEvent};
use crate::tui::{update, Action, App};

/// A run of [`plan`] (no preconditions) under way.
fn running(view: PlanView) -> App {
    let mut a = super::app("pause-the-agent", true);
    waves(&mut a, "mc-lab-*");
    let phrase = view.phrase.clone();
    let view = PlanView {
        preconditions: Vec::new(),
        ..view
    };
    update(&mut a, Action::Waves(WavesEvent::Ready(Box::new(view))));
    text(&mut a, &phrase);
    assert!(matches!(
        key(&mut a, KeyCode::Enter).first(),
        Some(Effect::Waves(WavesOp::Start { .. }))
    ));
    update(&mut a, Action::Waves(WavesEvent::Started));
    a
}

#[test]
fn restore_all_names_the_count_and_runs_only_after_y() {
    let mut a = running(plan());
    progress(&mut a, 0, 1, State::Ok);
    progress(&mut a, 1, 2, State::Ok);
    progress(&mut a, 1, 3, State::Failed("validation failed".into()));
    update(&mut a, Action::Waves(WavesEvent::Failed { wave: 1 }));
    assert!(screen(&a).contains("a all (3)"), "{}", screen(&a));
    assert!(key(&mut a, KeyCode::Char('a')).is_empty(), "a only asks");
    let s = screen(&a);
    assert!(
        s.contains("Restore all 3 contexts this run changed"),
        "the question names the count:\n{s}"
    );
    // Any other key puts the question away; the choice is still open.
    assert!(key(&mut a, KeyCode::Char('n')).is_empty());
    assert_eq!(a.waves.as_ref().map(|w| w.phase), Some(Phase::Choosing));
    assert!(!screen(&a).contains("Restore all 3"));
    key(&mut a, KeyCode::Char('a'));
    assert_eq!(
        key(&mut a, KeyCode::Char('y')),
        vec![Effect::Waves(WavesOp::RestoreAll)]
    );
    assert_eq!(a.waves.as_ref().map(|w| w.phase), Some(Phase::Restoring));
}

#[test]
fn q_while_a_wave_runs_asks_and_quits_only_once_the_run_has_ended() {
    let mut a = running(plan());
    progress(&mut a, 0, 1, State::Mutating);
    assert!(key(&mut a, KeyCode::Char('q')).is_empty());
    assert_eq!(a.waves.as_ref().and_then(|w| w.ask), Some(Ask::Quit));
    let s = screen(&a);
    assert!(s.contains("Quit while wave 1 runs? p pauses"), "{s}");
    // Keep running: nothing is asked of the engine, nobody quits.
    assert!(key(&mut a, KeyCode::Char('k')).is_empty());
    assert_eq!(a.waves.as_ref().map(|w| w.phase), Some(Phase::Running));
    assert!(!a.session.quit);
    key(&mut a, KeyCode::Char('q'));
    assert_eq!(
        key(&mut a, KeyCode::Char('p')),
        vec![Effect::Waves(WavesOp::Pause)]
    );
    assert_eq!(a.waves.as_ref().map(|w| w.phase), Some(Phase::Pausing));
    assert!(!a.session.quit, "the wave under way finishes first");
    progress(&mut a, 0, 1, State::Ok);
    assert!(!a.session.quit);
    let how = "Paused before wave 2/3: 5 contexts were not changed.".to_string();
    update(&mut a, Action::Waves(WavesEvent::Ended(how)));
    assert!(a.session.quit, "the run ended and is journaled: quit");
}

#[test]
fn q_after_a_failure_asks_for_the_choice_first() {
    let mut a = running(plan());
    progress(&mut a, 0, 1, State::Failed("change failed".into()));
    update(&mut a, Action::Waves(WavesEvent::Failed { wave: 0 }));
    assert!(key(&mut a, KeyCode::Char('q')).is_empty());
    let w = a.waves.as_ref().expect("open");
    assert_eq!((w.phase, w.ask), (Phase::Choosing, None));
    assert!(w
        .error
        .as_deref()
        .is_some_and(|e| e.contains("choose first")));
}

#[test]
fn a_resumed_plan_shows_the_done_contexts_apart_and_counts_only_the_rest() {
    let c: Vec<String> = (1..=4).map(|i| format!("mc-lab-{i}")).collect();
    let view = PlanView {
        waves: vec![c[2..3].to_vec(), c[3..].to_vec()],
        phrase: "mc-lab-* · 2 contexts".into(),
        earlier: vec![
            (c[0].clone(), State::Ok),
            (c[1].clone(), State::Restored("scale".into())),
        ],
        interrupted: vec![c[3].clone()],
        preconditions: Vec::new(),
        ..plan()
    };
    let mut a = super::app("pause-the-agent", true);
    waves(&mut a, "mc-lab-*");
    update(&mut a, Action::Waves(WavesEvent::Ready(Box::new(view))));
    let s = screen(&a);
    assert!(
        s.contains("resuming: 2 contexts done in the earlier run are left as they are; 2 remain"),
        "{s}"
    );
    assert!(
        s.contains("1 were in the wave under way when it was cut short, not captured (mc-lab-4)"),
        "{s}"
    );
    text(&mut a, "mc-lab-* · 2 contexts");
    key(&mut a, KeyCode::Enter);
    update(&mut a, Action::Waves(WavesEvent::Started));
    progress(&mut a, 0, 3, State::Mutating);
    let s = screen(&a);
    assert!(
        s.contains("done earlier 2 · ok 0 · mutating 1 · pending 1"),
        "{s}"
    );
    let row = |name: &str| {
        s.lines()
            .find(|l| l.contains(&format!("{name} ")))
            .unwrap_or_default()
            .to_string()
    };
    assert!(row("mc-lab-1").contains("done") && row("mc-lab-1").contains("earlier run"));
    assert!(row("mc-lab-2").contains("restored"), "{}", row("mc-lab-2"));
    assert!(row("mc-lab-3").contains("1/2") && row("mc-lab-3").contains("mutating"));
    let w = a.waves.as_ref().expect("open");
    // The earlier run's validated mc-lab-1 counts for "restore all" too.
    assert_eq!((w.current_wave(), w.changed()), (0, 2));
}

#[test]
fn restore_all_in_a_resumed_run_counts_what_the_earlier_run_changed_and_captured() {
    let c: Vec<String> = (1..=5).map(|i| format!("mc-lab-{i}")).collect();
    // mc-lab-1 validated and mc-lab-2 was restored in the earlier run; mc-lab-5 was caught
    // by the crash after its capture, and this run's failure stops before it is reached.
    let view = PlanView {
        waves: vec![c[2..3].to_vec(), c[3..].to_vec()],
        phrase: "mc-lab-* · 3 contexts".into(),
        earlier: vec![
            (c[0].clone(), State::Ok),
            (c[1].clone(), State::Restored("scale".into())),
        ],
        interrupted: vec![c[4].clone()],
        captured: vec![
            (
                c[0].clone(),
                "deployment/agent -n maestro spec.replicas=3".into(),
            ),
            (
                c[4].clone(),
                "deployment/agent -n maestro spec.replicas=2".into(),
            ),
        ],
        preconditions: Vec::new(),
        ..plan()
    };
    let mut a = super::app("pause-the-agent", true);
    waves(&mut a, "mc-lab-*");
    update(&mut a, Action::Waves(WavesEvent::Ready(Box::new(view))));
    let s = screen(&a);
    // The screen's lines, borders left out, as one text (a long line wraps).
    let flat = (s.split(['│', '\n']))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains("1 run again with the value captured before their first change, not captured again: mc-lab-5 deployment/agent -n maestro spec.replicas=2"),
        "{s}"
    );
    assert!(!s.contains("not captured (mc-lab-5)"), "{s}");
    text(&mut a, "mc-lab-* · 3 contexts");
    key(&mut a, KeyCode::Enter);
    update(&mut a, Action::Waves(WavesEvent::Started));
    progress(&mut a, 0, 3, State::Failed("validation failed".into()));
    update(&mut a, Action::Waves(WavesEvent::Failed { wave: 0 }));
    key(&mut a, KeyCode::Char('a'));
    let s = screen(&a);
    // This run's mc-lab-3, the earlier run's validated mc-lab-1 and the captured mc-lab-5;
    // mc-lab-2 is back at its value already, mc-lab-4 was never changed.
    assert!(
        s.contains("Restore all 3 contexts the step's runs changed (2 in the earlier run)"),
        "{s}"
    );
    let effects = key(&mut a, KeyCode::Char('y'));
    assert_eq!(effects, vec![Effect::Waves(WavesOp::RestoreAll)]);
    // The earlier run's row shows its restore, still apart from this run's.
    update(
        &mut a,
        Action::Waves(WavesEvent::Progress {
            wave: 0,
            context: c[0].clone(),
            state: State::Restored("kubectl scale".into()),
        }),
    );
    let w = a.waves.as_ref().expect("open");
    let row = w.rows.iter().find(|r| r.context == c[0]).expect("row");
    assert!(
        row.earlier && matches!(row.state, State::Restored(_)),
        "{row:?}"
    );
}
