//! The navigator in a real terminal (tmux) at 80×24 and 140×45, as a paged operator meets it:
//! the confirmation screen of `tsgnav demo maestro` shows the command, the target and the
//! field before Enter is accepted, and a `d` after the last tick runs the dry run instead of
//! typing into the field; Ctrl-c with a mitigation open asks once; the demo's first frame
//! says DEMO DATA; `q` after only viewing steps quits at once. Skips with a SKIP line when
//! tmux is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use tsgnav::nav::Cmd;
use tsgnav::tui::app::Item;
use tsgnav::tui::navigate::nav_cmd;

use crate::tui_common::{app, item_index, Tmux};

pub(crate) const GUIDE: &str = "maestro-stuck-deletion.md";
pub(crate) const STRATEGY: &str = "strategy-2-scale-the-maestro-agent-down-clean-up-scale-it-back";

/// (Tabs to reach probe `p` of step `slug`, the step's preconditions).
pub(crate) fn layout(slug: &str, p: usize) -> (usize, usize) {
    let mut a = app();
    let id = a
        .nav
        .index
        .resolve(&a.lib, None, &format!("{GUIDE}#{slug}"))
        .expect("step");
    nav_cmd(&mut a, Cmd::Goto(id));
    let tabs = item_index(&a, |i| matches!(i, Item::Probe(q) if *q == p));
    let pre = tsgnav::mitigate::preconditions(a.current_node().expect("node")).len();
    (tabs, pre)
}

/// The line of `screen` that holds `what`.
pub(crate) fn line_with<'a>(screen: &'a str, what: &str) -> &'a str {
    screen.lines().find(|l| l.contains(what)).unwrap_or("")
}

fn confirmation_fits(w: u16, h: u16) {
    let Some(t) = Tmux::start_sized(&format!("confirm-{w}x{h}"), w, h) else {
        return;
    };
    t.send_line(&format!("{} demo maestro", env!("CARGO_BIN_EXE_tsgnav")));
    t.wait_for("the first step", |s| {
        s.contains("Step 1: Confirm the deletion")
    });
    t.keys(&[":"]);
    t.send_line(&format!("goto {STRATEGY}"));
    t.wait_for("Strategy 2", |s| s.contains("Strategy 2: Scale"));
    let ctx = t.write_mode_on();
    let (tabs, pre) = layout(STRATEGY, 1);
    assert_eq!(
        pre, 3,
        "three items; the lead-in of Preconditions is not one"
    );
    for _ in 0..tabs {
        t.keys(&["Tab"]);
    }
    t.keys(&["r"]);
    let command = "kubectl scale deployment maestro-agent -n maestro --replicas=0";
    let target = format!("Target: context {ctx}, namespace maestro, deployment/maestro-agent");
    let field = format!("Type the target `{ctx}` to run:");
    let s = t.wait_for("the command, the target and the field", |s| {
        s.contains("Mitigation: confirm before it runs")
            && s.contains(command)
            && s.contains(&target)
            && s.contains(&field)
    });
    assert!(
        s.contains("Scenario 2 applies, and every item below is true:")
            && !s.contains("1. Scenario 2 applies"),
        "the lead-in is shown, not ticked:\n{s}"
    );
    for _ in 0..pre {
        t.keys(&["Space"]);
    }
    // `d` after the last tick is the dry run, never a letter in the field.
    t.keys(&["d"]);
    let s = t.wait_for("the dry run's answer", |s| s.contains("(server dry run)"));
    assert!(
        line_with(&s, &field).contains("(Tab to type here)")
            && !line_with(&s, &field).contains(":  d")
            && !line_with(&s, &field).contains(": d"),
        "nothing was typed into the field:\n{s}"
    );
    t.keys(&["Tab"]);
    t.keys(&["-l", &ctx]);
    let s = t.wait_for("the target typed", |s| {
        line_with(s, &field).contains(&format!("{ctx}▏"))
    });
    assert!(
        s.contains(command) && s.contains(&target),
        "still on screen while typing:\n{s}"
    );
    t.keys(&["Enter"]);
    t.wait_for("the open mitigation", |s| {
        s.contains("OPEN 1") && !s.contains("Mitigation: confirm")
    });
    // Ctrl-c with a mitigation open asks once; the second quits.
    t.keys(&["C-c"]);
    t.wait_for("the Ctrl-c question", |s| {
        s.contains("Ctrl-c again quits anyway") && s.contains("OPEN 1")
    });
    t.keys(&["C-c"]);
    t.restored();
}

#[test]
fn confirmation_at_80x24_shows_command_target_and_field_before_enter() {
    confirmation_fits(80, 24);
}

#[test]
fn confirmation_at_140x45_shows_command_target_and_field_before_enter() {
    confirmation_fits(140, 45);
}

fn first_frame_and_quick_quit(w: u16, h: u16) {
    let Some(t) = Tmux::start_sized(&format!("first-{w}x{h}"), w, h) else {
        return;
    };
    t.send_line(&format!("{} demo", env!("CARGO_BIN_EXE_tsgnav")));
    // The status line of the first frame (the mode is its first word): start-up messages
    // must not hide the label.
    let status_of = |s: &str| s.lines().last().unwrap_or("").to_string();
    let s = t.wait_for("the first frame's status line", |s| {
        status_of(s).starts_with(" READ-ONLY")
    });
    let status = status_of(&s);
    assert!(status.contains("DEMO DATA"), "status line: {status}\n{s}");
    t.wait_for("the recording message", |s| {
        s.contains("Recording evidence in ") && s.contains("DEMO DATA")
    });
    // Only viewing steps: nothing would be lost, so q quits at once.
    t.keys(&["n"]);
    t.keys(&["n"]);
    t.keys(&["q"]);
    t.restored();
}

#[test]
fn demo_first_frame_says_demo_data_and_q_quits_at_once_after_viewing_80x24() {
    first_frame_and_quick_quit(80, 24);
}

#[test]
fn demo_first_frame_says_demo_data_and_q_quits_at_once_after_viewing_140x45() {
    first_frame_and_quick_quit(140, 45);
}
