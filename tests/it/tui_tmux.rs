//! End to end: the real binary in a real terminal (tmux). Starts from an alert, checks the
//! landing step, follows a branch, goes back, ticks a checklist item, opens the help, quits,
//! and checks the terminal is restored (alternate screen off, mouse reporting off, cooked
//! mode, the shell prompt back). Also: a panic restores the terminal too.
//! Skips with a SKIP line when tmux is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use tsgnav::nav::Cmd;
use tsgnav::tui::app::Item;
use tsgnav::tui::navigate::nav_cmd;

use crate::tui_common::{app, id, item_index, title, Tmux, ALERT};

fn bin() -> String {
    env!("CARGO_BIN_EXE_tsgnav").to_string()
}

#[test]
fn alert_branch_back_tick_help_quit_restores_the_terminal() {
    let Some(t) = Tmux::start("e2e") else { return };
    let (step1, step2a) = (title("Step 1:"), title("Step 2a:"));
    t.send_line(&format!("{} --alert {ALERT}", bin()));
    // Every wait checks the whole expected screen: a capture can catch a frame half drawn.
    t.wait_for("the landing step with its alert", |s| {
        s.contains(&format!("{step1} · blast-radius"))
            && s.contains(&format!("⚑ alert {ALERT} routes here"))
    });
    assert_eq!(t.flag("alternate_on"), "1");
    // Follow branch 1 (one node affected → Step 2a).
    t.keys(&["1"]);
    t.wait_for("the branch target", |s| {
        s.contains(&format!("Trail: {step1} › {step2a}"))
    });
    // Back along the trail.
    t.keys(&["h"]);
    t.wait_for("the way back", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.trim_end() == format!("Trail: {step1}"))
    });
    // Tick the first validation item.
    t.keys(&[":"]);
    t.keys(&["-l", "goto validation-and-confirmation"]);
    t.keys(&["Enter"]);
    t.wait_for("the validation step", |s| {
        s.contains("Validation and Confirmation · validation")
    });
    let mut a = app();
    nav_cmd(&mut a, Cmd::Goto(id("Validation")));
    for _ in 0..item_index(&a, |i| matches!(i, Item::Check(0))) {
        t.keys(&["Tab"]);
    }
    t.keys(&["Space"]);
    t.wait_for("a ticked item", |s| s.contains("[x] "));
    // Help, generated from the keymap.
    t.keys(&["?"]);
    t.wait_for("the help screen", |s| {
        s.contains("Help — keys from the keymap") && s.contains("Back along the trail")
    });
    t.keys(&["q"]);
    t.wait_for("the help to close", |s| {
        !s.contains("Help — keys from the keymap")
    });
    t.quit_unexported();
    t.restored();
}

#[test]
fn a_panic_restores_the_terminal_before_printing() {
    let Some(t) = Tmux::start("panic") else {
        return;
    };
    t.send_line(&format!("TSGNAV_TEST_PANIC=draw {} --alert {ALERT}", bin()));
    let s = t.wait_for("the panic message", |s| s.contains("panic on purpose"));
    assert!(s.contains("READY$"), "{s}");
    t.restored();
}

#[test]
fn alert_payload_labels_fill_the_variables_panel() {
    let Some(t) = Tmux::start("payload") else {
        return;
    };
    let step3 = title("Step 3:");
    let dir = tempfile::tempdir().expect("tempdir");
    let payload = dir.path().join("webhook.json");
    std::fs::write(
        &payload,
        r#"{"status":"firing","commonLabels":{"region":"eastus"},"alerts":[{"status":"firing","labels":{"alertname":"SwiftPendingProgramming","namespace":"ocm-e2e","node":"aks-userswft-9"}}]}"#,
    )
    .expect("write payload");
    t.send_line(&format!("{} --alert-payload {}", bin(), payload.display()));
    t.wait_for("the landing step with the alert and its labels", |s| {
        s.contains(&format!("{step3} · diagnostic"))
            && s.contains("⚑ alert SwiftPendingProgramming routes here")
            && s.contains("namespace=ocm-e2e")
    });
    t.keys(&["v"]);
    // Select NODE_NAME so the panel scrolls to it, wherever the guide first uses it.
    let mut a = app();
    nav_cmd(&mut a, Cmd::Goto(id("Step 3:")));
    let row = a
        .vars()
        .iter()
        .position(|(n, _)| n == "NODE_NAME")
        .expect("NODE_NAME used");
    for _ in 0..row {
        t.keys(&["Tab"]);
    }
    t.wait_for(
        "NODE_NAME from the alert label in the variables panel",
        |s| s.contains("NODE_NAME = aks-userswft-9  (alert label `node`)"),
    );
    // Nothing was run or noted: q quits at once.
    t.keys(&["q"]);
    t.restored();
}

#[test]
fn bad_flags_fail_before_the_screen_changes() {
    let Some(t) = Tmux::start("badflags") else {
        return;
    };
    t.send_line(&format!("{} --node no-such-step; echo EXIT=$?", bin()));
    let s = t.wait_for("the exit status", |s| {
        s.lines().any(|l| l.starts_with("EXIT="))
    });
    assert!(
        s.contains("--node no-such-step: no such step in the loaded guides"),
        "{s}"
    );
    assert!(s.contains("EXIT=2"), "{s}");
    t.send_line(&format!(
        "echo '{{oops' | {} --alert-payload -; echo EXIT=$?",
        bin()
    ));
    let s = t.wait_for("the second exit status", |s| {
        s.lines().filter(|l| l.starts_with("EXIT=")).count() >= 2
    });
    assert!(s.contains("stdin: is not JSON"), "{s}");
    assert_eq!(t.flag("alternate_on"), "0");
}

#[test]
fn a_read_only_probe_runs_live_after_prompting_for_its_variable() {
    let Some(t) = Tmux::start("live") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let guide = dir.path().join("live.md");
    std::fs::write(
        &guide,
        "# Live\n\n## Step 1: Say hello\n\n```bash\necho \"hello from ${WHO}\"\n```\n",
    )
    .expect("write guide");
    t.send_line(&format!(
        "{} {} --node step-1-say-hello",
        bin(),
        guide.display()
    ));
    t.wait_for("the step", |s| s.contains("Step 1: Say hello · diagnostic"));
    t.keys(&["r"]);
    t.wait_for("the prompt", |s| s.contains("WHO = "));
    // A value that would be code if pasted into the script stays inert.
    t.keys(&["-l", "world; echo INJECTED"]);
    t.keys(&["Enter"]);
    let s = t.wait_for("the probe output", |s| {
        s.contains("⎿ hello from world; echo INJECTED") && s.contains("⎿ exit 0")
    });
    assert!(
        !s.lines().any(|l| l.trim_end().ends_with("⎿ INJECTED")),
        "{s}"
    );
    t.quit_unexported();
    t.restored();
    // The run is in the evidence journal, with the value typed as an operator variable.
    let state = t.dir.join("state");
    let session = std::fs::read_dir(&state)
        .expect("state dir")
        .flatten()
        .next()
        .expect("a session");
    let journal = std::fs::read_to_string(session.path().join("journal.jsonl")).expect("journal");
    assert!(journal.contains("\"type\":\"probe_run\""), "{journal}");
    assert!(journal.contains("\"name\":\"WHO\""), "{journal}");
    assert!(journal.contains("\"source\":\"operator\""), "{journal}");
}

#[test]
fn evidence_is_recorded_q_warns_until_exported_and_export_writes_the_bundle() {
    let Some(t) = Tmux::start("evidence") else {
        return;
    };
    t.send_line(&format!("{} --alert {ALERT}", bin()));
    t.wait_for("the recording message", |s| {
        s.contains("Recording evidence in ")
    });
    t.keys(&[":"]);
    t.keys(&["-l", "goto validation-and-confirmation"]);
    t.keys(&["Enter"]);
    let mut a = app();
    nav_cmd(&mut a, Cmd::Goto(id("Validation")));
    for _ in 0..item_index(&a, |i| matches!(i, Item::Check(0))) {
        t.keys(&["Tab"]);
    }
    t.keys(&["Space"]);
    t.wait_for("a ticked item", |s| s.contains("[x] "));
    t.keys(&["q"]);
    t.wait_for("the export warning", |s| {
        s.contains("Evidence has not been exported")
    });
    t.keys(&[":"]);
    t.keys(&["-l", "export"]);
    t.keys(&["Enter"]);
    t.wait_for("the export message", |s| s.contains("Evidence exported"));
    t.keys(&["q"]);
    t.restored();
    let dir = t.only_session();
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).expect("journal");
    for want in [
        "\"type\":\"session_start\"",
        "\"type\":\"node_entered\"",
        ALERT,
        "validation-and-confirmation",
        "\"topic\":\"checklist\"",
        "\"type\":\"export\"",
    ] {
        assert!(journal.contains(want), "journal has {want}:\n{journal}");
    }
    crate::tui_common::assert_verifies(&dir);
    assert!(dir.join("export").is_dir());
}
