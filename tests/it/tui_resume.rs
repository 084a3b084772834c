//! `tsgnav --resume` after `kill -9` while a probe is running: the navigator comes back on the
//! step it was on, every record the killed process reported as recorded is in the journal as
//! it was, new records extend the same session, and `sessions verify` passes. Runs the real
//! binary in tmux; skips with a SKIP line when tmux is missing, unless
//! TSGNAV_REQUIRE_SERVERS=1.

use std::time::{Duration, Instant};

use crate::tui_common::{assert_verifies, Tmux};

/// The guide, its slow probe a `sleep` whose duration is unique to this run (so `pgrep`
/// finds this run's probe and no other process on the machine).
fn guide_text(sleep: &str) -> String {
    format!("# Steps\n\n## Step 1: Wait for it\n\nRead this first.\n\n## Step 2: Carry on\n\n```bash\n{sleep}\n```\n")
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tsgnav")
}

fn wait_until(what: &str, ok: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !ok() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn resume_after_kill_9_lands_on_the_same_step_and_extends_the_chain() {
    let Some(t) = Tmux::start("resume") else {
        return;
    };
    let guide = t.dir.join("g.md");
    let sleep = format!("sleep 30.{}{}", std::process::id(), crate::common::nanos());
    std::fs::write(&guide, guide_text(&sleep)).expect("guide");
    let mark = format!("resume-{}", std::process::id());
    t.send_line(&format!(
        "{} '{}' --node g.md#step-1-wait-for-it --var MARK={mark}",
        bin(),
        guide.display()
    ));
    t.wait_for("the first step", |s| {
        s.contains("Recording evidence in ") && s.contains("Step 1: Wait for it ·")
    });
    // Move on, then start the slow probe there (leaving a step cancels its probes).
    t.keys(&["n"]);
    t.wait_for("step 2", |s| s.contains("Step 2: Carry on ·"));
    t.keys(&["r"]);
    t.wait_for("the probe running", |s| s.contains("Esc cancels it"));
    let state = t.dir.join("state");
    let session = t.only_session();
    let journal = session.join("journal.jsonl");
    // A step is shown only after its record is fsync'd.
    wait_until("step 2 in the journal", || {
        std::fs::read_to_string(&journal)
            .unwrap_or_default()
            .contains("g.md#step-2-carry-on")
    });
    // The status line says the probe started before bash has exec'd its `sleep`: wait for
    // the process itself (under load that can take a moment).
    wait_until(
        "the probe's process running before the navigator is killed",
        || {
            std::process::Command::new("pgrep")
                .args(["-f", &format!("^{sleep}$")])
                .output()
                .is_ok_and(|o| o.status.success())
        },
    );
    let before = std::fs::read_to_string(&journal).expect("journal");
    let killed = std::process::Command::new("pkill")
        // The oldest match only: the navigator, not its probe's jail process (a fork of it).
        .args(["-9", "-o", "-f", &format!("MARK={mark}")])
        .status()
        .expect("pkill");
    assert!(
        killed.success(),
        "the navigator was running and got SIGKILL"
    );

    let Some(t2) = Tmux::start("resume2") else {
        return;
    };
    t2.send_line(&format!(
        "TSGNAV_STATE_DIR='{}' {} --resume",
        state.display(),
        bin()
    ));
    t2.wait_for("the resumed step", |s| {
        s.contains("Step 2: Carry on ·") && s.contains("Recording evidence in ")
    });
    t2.keys(&["d"]);
    t2.quit_unexported();
    t2.restored();

    let sessions = std::fs::read_dir(&state)
        .expect("state dir")
        .flatten()
        .count();
    assert_eq!(
        sessions, 1,
        "resume continues the session instead of starting another"
    );
    let after = std::fs::read_to_string(&journal).expect("journal");
    assert!(
        after.starts_with(&before),
        "every record written before the kill is kept as it was"
    );
    assert!(
        after.len() > before.len(),
        "the resumed navigator appended records"
    );
    assert_verifies(&session);
}

/// Whether a live process runs exactly `cmdline` (zombies have no command line).
fn running(cmdline: &str) -> bool {
    std::process::Command::new("pgrep")
        .args(["-f", &format!("^{cmdline}$")])
        .output()
        .expect("pgrep")
        .status
        .success()
}

#[test]
fn resume_stops_the_probe_the_killed_navigator_left_running_and_records_it() {
    let Some(t) = Tmux::start("stray") else {
        return;
    };
    let guide = t.dir.join("g.md");
    // A duration unique to this run: the probe's command line is its marker.
    let sleep = format!("sleep 300.{}{}", std::process::id(), crate::common::nanos());
    std::fs::write(&guide, guide_text(&sleep)).expect("guide");
    let mark = format!("stray-{}-{}", std::process::id(), crate::common::nanos());
    t.send_line(&format!(
        "{} '{}' --node g.md#step-2-carry-on --var MARK={mark}",
        bin(),
        guide.display()
    ));
    t.wait_for("step 2", |s| {
        s.contains("Recording evidence in ") && s.contains("Step 2: Carry on ·")
    });
    t.keys(&["r"]);
    t.wait_for("the probe running", |s| s.contains("Esc cancels it"));
    let session = t.only_session();
    let running_dir = session.join("running");
    wait_until("the probe's side file", || {
        std::fs::read_dir(&running_dir).is_ok_and(|d| d.flatten().count() == 1)
    });
    wait_until("the probe process", || running(&sleep));
    let killed = std::process::Command::new("pkill")
        // The oldest match only: the navigator, not its probe's jail process (a fork of it).
        .args(["-9", "-o", "-f", &format!("MARK={mark}")])
        .status()
        .expect("pkill");
    assert!(killed.success(), "the navigator got SIGKILL");
    t.wait_for("the shell after the kill", |s| s.contains("Killed"));
    assert!(
        running(&sleep),
        "the killed navigator left its probe running (what resume must clean up)"
    );

    let Some(t2) = Tmux::start("stray2") else {
        return;
    };
    t2.send_line(&format!(
        "TSGNAV_STATE_DIR='{}' {} --resume",
        t.dir.join("state").display(),
        bin()
    ));
    t2.wait_for("the resumed step and the stray stopped", |s| {
        s.contains("Step 2: Carry on ·") && s.contains("stopped stray probe")
    });
    wait_until("the stray probe gone", || !running(&sleep));
    let journal = std::fs::read_to_string(session.join("journal.jsonl")).expect("journal");
    let stray = journal
        .lines()
        .find(|l| l.contains("\"stray-probe\""))
        .expect("a stray-probe record");
    assert!(
        stray.contains("stopped stray probe g.md#step-2-carry-on")
            && stray.contains("left by a previous run"),
        "{stray}"
    );
    assert_eq!(
        std::fs::read_dir(&running_dir)
            .map(|d| d.flatten().count())
            .unwrap_or(0),
        0,
        "the side file of the stopped probe is gone"
    );
    t2.quit_unexported();
    t2.restored();
    assert_verifies(&session);
}
