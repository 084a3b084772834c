//! `Mitigation::key` driven on its own, with no `App`: each key's answer and the screen's
//! state after it (ticks, focus, the typed target, refusals, the dry run, a silence).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{DryRunView, Focus, Mitigation, MitigationKey, MitigationView};
use crate::tsg::{ProbeRef, SafetyClass};
use crate::tui::effect::Effect;
use crate::tui::firing::SilenceDraft;

fn view(preconditions: &[&str], dry_run: DryRunView) -> MitigationView {
    MitigationView {
        probe: ProbeRef::new("g.md#scale-down", 1),
        class: SafetyClass::Mutating,
        title: "Scale the agent down".into(),
        goal: Some("Stop the agent from writing".into()),
        risk: None,
        preconditions: preconditions.iter().map(|p| p.to_string()).collect(),
        lead_in: None,
        vars: Vec::new(),
        command: "kubectl scale deployment/agent --replicas=0".into(),
        target: "context jump-1".into(),
        namespace: None,
        confirm_name: Some("jump-1".into()),
        place: None,
        dry_run,
        captures: Vec::new(),
        silence: None,
    }
}

/// A screen whose command was drawn whole (the widget sets that).
fn screen(preconditions: &[&str], dry_run: DryRunView) -> Mitigation {
    let mut m = Mitigation::new(view(preconditions, dry_run));
    m.command_seen = true;
    m
}

fn press(m: &mut Mitigation, code: KeyCode) -> MitigationKey {
    m.key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn typed(m: &mut Mitigation, text: &str) {
    for c in text.chars() {
        assert_eq!(
            press(m, KeyCode::Char(c)),
            MitigationKey::Done,
            "typing {c}"
        );
    }
}

#[test]
fn esc_and_ctrl_c_cancel_and_leave_the_screen_as_it_was() {
    let mut m = screen(&["the canary is healthy"], DryRunView::None("no".into()));
    press(&mut m, KeyCode::Char(' '));
    let before = m.clone();
    assert_eq!(press(&mut m, KeyCode::Esc), MitigationKey::Cancel);
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(m.key(ctrl_c), MitigationKey::Cancel);
    assert_eq!(m, before);
}

#[test]
fn space_ticks_and_the_cursor_goes_to_the_next_item_left() {
    let mut m = screen(&["one", "two", "three"], DryRunView::None("no".into()));
    assert_eq!(press(&mut m, KeyCode::Char(' ')), MitigationKey::Done);
    assert_eq!(m.acks(), &[true, false, false]);
    assert_eq!(m.sel, 1);
    press(&mut m, KeyCode::Char('x'));
    press(&mut m, KeyCode::Enter);
    assert!(m.all_acknowledged());
    assert_eq!(
        m.focus(),
        Focus::Preconditions,
        "ticking never moves to the field"
    );
    press(&mut m, KeyCode::Enter);
    assert_eq!(
        m.focus(),
        Focus::Target,
        "Enter with all ticked moves to the field"
    );
}

#[test]
fn in_the_field_a_key_meant_for_the_list_goes_back_to_the_item_left() {
    let mut m = screen(&["one", "two"], DryRunView::None("no".into()));
    press(&mut m, KeyCode::Char(' '));
    press(&mut m, KeyCode::Tab);
    assert_eq!(m.focus(), Focus::Target);
    // `j` continues `jump-1`: typed.
    typed(&mut m, "j");
    assert_eq!(m.typed(), "j");
    // `x` does not: back to precondition 2, which says so.
    assert_eq!(press(&mut m, KeyCode::Char('x')), MitigationKey::Done);
    assert_eq!((m.focus(), m.sel), (Focus::Preconditions, 1));
    assert_eq!(m.typed(), "j");
    let why = m.error().unwrap_or_default();
    assert!(why.contains("Precondition 2 of 2"), "{why}");
}

#[test]
fn enter_asks_the_runtime_once_and_only_when_everything_is_in_place() {
    let mut m = Mitigation::new(view(&["one"], DryRunView::None("no".into())));
    press(&mut m, KeyCode::Char(' '));
    press(&mut m, KeyCode::Enter);
    typed(&mut m, "jump-1");
    assert_eq!(press(&mut m, KeyCode::Enter), MitigationKey::Done);
    let why = m.error().unwrap_or_default();
    assert!(why.contains("not whole on screen"), "{why}");
    m.command_seen = true;
    let asked = press(&mut m, KeyCode::Enter);
    let want = Effect::ConfirmMitigation {
        probe: ProbeRef::new("g.md#scale-down", 1),
        acknowledged: vec![true],
        typed: "jump-1".into(),
    };
    assert_eq!(asked, MitigationKey::Ask(want));
    assert!(m.busy() && m.error().is_none());
    assert_eq!(press(&mut m, KeyCode::Enter), MitigationKey::Done, "busy");
}

#[test]
fn enter_with_an_item_left_names_it_and_asks_nothing() {
    let mut m = screen(&["one", "two"], DryRunView::None("no".into()));
    press(&mut m, KeyCode::Char(' '));
    m.focus = Focus::Target;
    m.typed = "jump-1".into();
    assert_eq!(press(&mut m, KeyCode::Enter), MitigationKey::Done);
    assert_eq!((m.focus(), m.sel), (Focus::Preconditions, 1));
    assert!(!m.busy());
}

#[test]
fn d_runs_a_dry_run_once_and_says_why_when_there_is_none() {
    let mut m = screen(
        &["one"],
        DryRunView::Runnable("kubectl … --dry-run=server".into()),
    );
    let probe = ProbeRef::new("g.md#scale-down", 1);
    assert_eq!(
        press(&mut m, KeyCode::Char('d')),
        MitigationKey::Ask(Effect::DryRun { probe })
    );
    assert!(m.busy());
    assert_eq!(press(&mut m, KeyCode::Char('d')), MitigationKey::Done);
    let mut m = screen(&["one"], DryRunView::None("the API has none".into()));
    assert_eq!(press(&mut m, KeyCode::Char('d')), MitigationKey::Done);
    assert_eq!(m.error(), Some("No dry run: the API has none."));
    let mut m = screen(&["one"], DryRunView::Preview("PATCH …".into()));
    press(&mut m, KeyCode::Char('d'));
    assert!(m
        .error()
        .unwrap_or_default()
        .contains("no server-side dry run"));
}

#[test]
fn a_key_the_screen_has_no_use_for_is_ignored() {
    let mut m = screen(&["one"], DryRunView::None("no".into()));
    let before = m.clone();
    assert_eq!(press(&mut m, KeyCode::F(5)), MitigationKey::Ignored);
    assert_eq!(m, before);
}

#[test]
fn a_silence_changes_its_length_and_is_sent_only_with_the_name_typed_back() {
    let draft = SilenceDraft {
        source: "east".into(),
        alert: "GatewayDown".into(),
        labels: [("cluster".to_string(), "mc-1".to_string())].into(),
        hours: 2,
    };
    let mut m = Mitigation::new(crate::tui::silence::view(&draft));
    m.command_seen = true;
    press(&mut m, KeyCode::Char('+'));
    assert!(
        m.view().command.contains("duration: 4 h"),
        "{}",
        m.view().command
    );
    typed(&mut m, "west");
    assert_eq!(press(&mut m, KeyCode::Enter), MitigationKey::Done);
    assert!(m
        .error()
        .unwrap_or_default()
        .contains("nothing was silenced"));
    assert_eq!(m.typed(), "", "the wrong name is cleared");
    typed(&mut m, "east");
    let sent = press(&mut m, KeyCode::Enter);
    let want = SilenceDraft { hours: 4, ..draft };
    assert_eq!(
        sent,
        MitigationKey::Silence {
            draft: want,
            typed: "east".into()
        }
    );
}
