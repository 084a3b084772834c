//! `tsgnav --resume` after `kill -9`: the navigator comes back on the step it was on, every
//! record the killed process reported as recorded is in the journal, new records extend the
//! same session, and `sessions verify` passes. Runs the real binary in tmux; skips with a SKIP
//! line when tmux is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use crate::tui_common::{title, Tmux, ALERT};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tsgnav")
}

#[test]
fn resume_after_kill_9_lands_on_the_same_step_and_extends_the_chain() {
    let Some(t) = Tmux::start("resume") else {
        return;
    };
    let mark = format!("resume-{}", std::process::id());
    t.send_line(&format!("{} --alert {ALERT} --var MARK={mark}", bin()));
    let step1 = title("Step 1:");
    let step2 = title("Step 2:");
    t.wait_for("the landing step", |s| {
        s.contains("Recording evidence in ") && s.contains(&format!("{step1} ·"))
    });
    t.keys(&["n"]);
    t.wait_for("step 2", |s| s.contains(&format!("{step2} ·")));
    let state = t.dir.join("state");
    let session = std::fs::read_dir(&state)
        .expect("state dir")
        .flatten()
        .next()
        .expect("a session")
        .path();
    let journal = session.join("journal.jsonl");
    // The step is shown only after its record is fsync'd: wait until the file has it.
    let slug = crate::tui_common::id("Step 2:");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !std::fs::read_to_string(&journal)
        .unwrap_or_default()
        .contains(&slug)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "step 2 never reached the journal"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let before = std::fs::read_to_string(&journal).expect("journal");
    let killed = std::process::Command::new("pkill")
        .args(["-9", "-f", &format!("MARK={mark}")])
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
        s.contains(&format!("{step2} ·")) && s.contains("Recording evidence in ")
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
    let verify = crate::common::bin()
        .args(["sessions", "verify"])
        .arg(&session)
        .env("TSGNAV_STATE_DIR", &state)
        .output()
        .expect("verify");
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
}
