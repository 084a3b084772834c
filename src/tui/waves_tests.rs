//! The wave screen's state machine and widget, pure: `:waves` refused where it does not
//! apply, the plan drawn at 80×24, the preconditions before the phrase, the phrase checked,
//! the live table folded from the runtime's events, the pause, the choices after a failure
//! and the end of the run, on a TestBackend.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::{Phase, PlanView, WavesEvent};
use crate::mitigate::waves::State;
use crate::nav::Cmd;
use crate::tui::command::Command;
use crate::tui::effect::{Effect, WavesOp};
use crate::tui::{update, Action, App};

const GUIDE: &str = "# Fleet\n\n## Look\n\n```bash\nkubectl get pods -n maestro\n```\n\n# Mitigation\n\n## Pause the agent\n\n**Preconditions:** the window is open.\n\n```bash\nkubectl scale deployment/agent -n maestro --replicas=0\n```\n\n### Validation: stopped\n\n```bash {name=stopped}\ntest \"$(kubectl get deployment agent -n maestro -o jsonpath='{.status.replicas}')\" = 0\n```\n";

fn app(step: &str, write: bool) -> App {
    let mut lib = crate::tsg::Library::default();
    lib.guides.push(crate::tsg::parse_guide("fleet.md", GUIDE));
    crate::tsg::link_library(&mut lib);
    let km = crate::tui::keymap::Keymap::bundled();
    let mut a = App::new(lib, km, crate::tui::theme::Theme::bundled(true));
    crate::tui::navigate::nav_cmd(&mut a, Cmd::Goto(format!("fleet.md#{step}")));
    a.session.write = write;
    a
}

fn names(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("mc-lab-{i}")).collect()
}

/// What the runtime would build for 6 contexts in waves of 1, 2 and 3.
fn plan() -> PlanView {
    let c = names(6);
    PlanView {
        node: "fleet.md#pause-the-agent".into(),
        title: "Pause the agent".into(),
        glob: "mc-lab-*".into(),
        waves: vec![c[..1].to_vec(), c[1..3].to_vec(), c[3..].to_vec()],
        parallel: 2,
        change: vec!["kubectl scale deployment/agent -n maestro --replicas=0".into()],
        gates: vec!["stopped: test … = 0".into()],
        gates_from: "its validation step Validation: stopped".into(),
        policies: vec!["mc-lab-*: at most 3 per wave phrase \"window open\"".into()],
        phrase: "mc-lab-* · 6 contexts · window open".into(),
        preconditions: vec!["the window is open.".into()],
        earlier: Vec::new(),
        interrupted: Vec::new(),
        captured: Vec::new(),
    }
}

fn key(a: &mut App, code: KeyCode) -> Vec<Effect> {
    update(a, Action::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn text(a: &mut App, s: &str) -> Vec<Effect> {
    s.chars().flat_map(|c| key(a, KeyCode::Char(c))).collect()
}

fn screen(a: &App) -> String {
    let mut term = Terminal::new(TestBackend::new(80, 24)).expect("backend");
    let mut fs = crate::tui::frame::FrameState::default();
    term.draw(|f| crate::tui::view::draw(f, a, &mut fs))
        .expect("draw");
    let buf = term.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

fn waves(a: &mut App, args: &str) -> Vec<Effect> {
    update(a, Action::Command(Command::Waves(args.into())))
}

/// An app on the plan screen of [`plan`].
fn on_plan() -> App {
    let mut a = app("pause-the-agent", true);
    waves(&mut a, "mc-lab-*");
    update(&mut a, Action::Waves(WavesEvent::Ready(Box::new(plan()))));
    a
}

#[test]
fn waves_is_refused_in_read_only_mode_on_a_read_only_step_and_with_bad_sizes() {
    let mut a = app("pause-the-agent", false);
    assert!(waves(&mut a, "mc-*").is_empty());
    assert!(a.waves.is_none());
    let msg = a.notice.take().expect("a message").text;
    assert!(msg.contains("read-only: press W"), "{msg}");
    let mut a = app("look", true);
    assert!(waves(&mut a, "mc-*").is_empty());
    let msg = a.notice.take().expect("a message").text;
    assert!(msg.contains("no probe that changes anything"), "{msg}");
    let mut a = app("pause-the-agent", true);
    assert!(waves(&mut a, "mc-* 1,rest,5").is_empty());
    let msg = a.notice.take().expect("a message").text;
    assert!(msg.contains("`rest` must be the last wave"), "{msg}");
    assert!(waves(&mut a, "mc-* 1,rest 0").is_empty());
    assert!(a
        .notice
        .take()
        .expect("a message")
        .text
        .contains("PARALLEL"));
}

#[test]
fn waves_asks_the_runtime_for_the_plan_and_a_refusal_closes_the_screen() {
    let mut a = app("pause-the-agent", true);
    let fx = waves(&mut a, "mc-lab-* 1,25%,rest 4");
    let Some(Effect::Waves(WavesOp::Plan {
        node,
        glob,
        sizes,
        parallel,
        ..
    })) = fx.first()
    else {
        panic!("a plan request: {fx:?}");
    };
    assert_eq!(
        (node.as_str(), glob.as_str(), sizes.as_str(), *parallel),
        ("fleet.md#pause-the-agent", "mc-lab-*", "1,25%,rest", 4)
    );
    assert!(screen(&a).contains("Reading the kube contexts matching mc-lab-*"));
    let why = "no kube context matches `mc-lab-*`".to_string();
    update(&mut a, Action::Waves(WavesEvent::Refused(why)));
    assert!(a.waves.is_none(), "the screen closes");
    assert!(a.notice.expect("message").text.contains("Nothing was run"));
    // The defaults.
    let mut a = app("pause-the-agent", true);
    let fx = waves(&mut a, "mc-*");
    assert!(matches!(
        fx.first(),
        Some(Effect::Waves(WavesOp::Plan { sizes, parallel: 32, .. })) if sizes == "1,5%,20%,rest"
    ));
}

#[test]
fn the_plan_screen_shows_waves_gates_policy_preconditions_and_phrase_at_80x24() {
    let a = on_plan();
    let s = screen(&a);
    for line in [
        "Wave plan · Pause the agent",
        "mc-lab-* · 6 contexts · 3 waves · 2 at a time",
        "wave 1 (canary): 1 · mc-lab-1",
        "wave 2: 2 · mc-lab-2, mc-lab-3",
        "wave 3: 3 · mc-lab-4, mc-lab-5, mc-lab-6",
        "change: kubectl scale deployment/agent -n maestro --replicas=0",
        "gates (its validation step Validation: stopped):",
        "stopped: test … = 0",
        "policy mc-lab-*: at most 3 per wave phrase \"window open\"",
        "[ ] the window is open.",
        "Type `mc-lab-* · 6 contexts · window open` to run it",
        "Esc cancels",
    ] {
        assert!(s.contains(line), "the plan lacks `{line}`:\n{s}");
    }
}

#[test]
fn the_phrase_is_typed_only_after_the_preconditions_and_checked_before_the_run() {
    let mut a = on_plan();
    assert!(text(&mut a, "mc").is_empty());
    let w = a.waves.as_ref().expect("open");
    assert!(w.typed.is_empty(), "typing went nowhere");
    assert!(w.error.as_deref().unwrap_or("").contains("Acknowledge"));
    assert!(key(&mut a, KeyCode::Enter).is_empty(), "unticked: no run");
    key(&mut a, KeyCode::Char(' '));
    assert!(screen(&a).contains("[x] the window is open."));
    text(&mut a, "mc-lab-* · 5 contexts · window open");
    assert!(
        key(&mut a, KeyCode::Enter).is_empty(),
        "a wrong count: no run"
    );
    let e = a
        .waves
        .as_ref()
        .and_then(|w| w.error.clone())
        .unwrap_or_default();
    assert!(
        e.contains("is not `mc-lab-* · 6 contexts · window open`"),
        "{e}"
    );
    update(
        &mut a,
        Action::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
    );
    text(&mut a, "mc-lab-* . 6 contexts . window open");
    let fx = key(&mut a, KeyCode::Enter);
    assert_eq!(
        fx,
        vec![Effect::Waves(WavesOp::Start {
            acknowledged: vec![true],
            typed: "mc-lab-* . 6 contexts . window open".into(),
        })]
    );
    assert_eq!(a.waves.as_ref().map(|w| w.phase), Some(Phase::Starting));
    // The runtime refusing it (write mode went off meanwhile) brings the plan back.
    let why = "This session is read-only: nothing was run".to_string();
    update(&mut a, Action::Waves(WavesEvent::Refused(why)));
    let w = a.waves.as_ref().expect("open");
    assert_eq!(w.phase, Phase::Plan);
    assert!(screen(&a).contains("This session is read-only"));
}

fn progress(a: &mut App, wave: usize, i: usize, state: State) {
    let context = format!("mc-lab-{i}");
    let e = WavesEvent::Progress {
        wave,
        context,
        state,
    };
    update(a, Action::Waves(e));
}

#[test]
fn the_table_follows_the_run_pauses_and_offers_the_choices_after_a_failure() {
    let mut a = on_plan();
    update(&mut a, Action::Waves(WavesEvent::Started));
    progress(&mut a, 0, 1, State::Mutating);
    let s = screen(&a);
    assert!(s.contains("Wave run · Pause the agent"), "{s}");
    assert!(s.contains("ETA after wave 1"), "{s}");
    assert!(s.contains("ok 0 · mutating 1 · pending 5"), "{s}");
    assert!(s.contains("Esc pauses after the wave under way"), "{s}");
    progress(&mut a, 0, 1, State::Ok);
    let done = WavesEvent::WaveDone {
        wave: 0,
        secs: 40.0,
        eta: Some(80.0),
    };
    update(&mut a, Action::Waves(done));
    progress(&mut a, 1, 2, State::Validating);
    progress(
        &mut a,
        1,
        3,
        State::Failed("validation failed: stopped".into()),
    );
    let s = screen(&a);
    assert!(s.contains("wave 2/3"), "{s}");
    assert!(s.contains("ETA 1 min 20 s"), "{s}");
    assert!(
        s.contains("mc-lab-3") && s.contains("validation failed: stopped"),
        "{s}"
    );
    assert_eq!(
        key(&mut a, KeyCode::Esc),
        vec![Effect::Waves(WavesOp::Pause)]
    );
    assert!(screen(&a).contains("Pausing: wave 2 finishes"));
    progress(&mut a, 1, 2, State::Ok);
    update(&mut a, Action::Waves(WavesEvent::Failed { wave: 1 }));
    let s = screen(&a);
    assert!(
        s.contains("wave 2 failed: c restore the 1 failed · w the wave (2) · a all (3) · s stop"),
        "{s}"
    );
    assert!(key(&mut a, KeyCode::Char('x')).is_empty());
    assert_eq!(
        key(&mut a, KeyCode::Char('c')),
        vec![Effect::Waves(WavesOp::RestoreFailed)]
    );
    progress(
        &mut a,
        1,
        3,
        State::Restored("kubectl scale … --replicas=2".into()),
    );
    let end = "Stopped at wave 2/3: 3 contexts in later waves were not changed.";
    update(&mut a, Action::Waves(WavesEvent::Ended(end.into())));
    let s = screen(&a);
    assert!(s.contains(end), "{s}");
    assert!(s.contains("ok 2 · restored 1 · skipped 3"), "{s}");
    assert_eq!(
        key(&mut a, KeyCode::Esc),
        vec![Effect::Waves(WavesOp::Close)]
    );
    assert!(a.waves.is_none());
}

#[test]
fn a_large_table_follows_the_first_failure_and_scrolls_with_j_k() {
    let mut a = app("pause-the-agent", true);
    waves(&mut a, "mc-lab-*");
    let c = names(60);
    let view = PlanView {
        waves: vec![c[..1].to_vec(), c[1..].to_vec()],
        phrase: "mc-lab-* · 60 contexts".into(),
        preconditions: Vec::new(),
        ..plan()
    };
    update(&mut a, Action::Waves(WavesEvent::Ready(Box::new(view))));
    text(&mut a, "mc-lab-* · 60 contexts");
    assert!(matches!(
        key(&mut a, KeyCode::Enter).first(),
        Some(Effect::Waves(WavesOp::Start { .. }))
    ));
    update(&mut a, Action::Waves(WavesEvent::Started));
    for i in 1..=40 {
        progress(&mut a, usize::from(i > 1), i, State::Ok);
    }
    progress(&mut a, 1, 45, State::Failed("change failed".into()));
    let s = screen(&a);
    assert!(s.contains("mc-lab-45 "), "the failure is in view:\n{s}");
    assert!(!s.contains("mc-lab-1 "), "the top rows scrolled away:\n{s}");
    key(&mut a, KeyCode::Char('g'));
    assert!(screen(&a).contains("mc-lab-1 "));
    key(&mut a, KeyCode::Char('G'));
    assert!(screen(&a).contains("mc-lab-45 "));
}

#[path = "waves_ask_tests.rs"]
mod ask;
