//! `tsgnav sessions replay`: a session recorded by `tsgnav run` is walked read-only in the
//! navigator; the probe is answered from its recorded output, marked as replayed, and no new
//! session is recorded. Real binary in tmux; skips with a SKIP line when tmux is missing,
//! unless TSGNAV_REQUIRE_SERVERS=1.

use crate::tui_common::Tmux;

#[test]
fn replay_answers_a_probe_from_the_recorded_session() {
    let Some(t) = Tmux::start("replay") else {
        return;
    };
    let guide = t.dir.join("g.md");
    std::fs::write(
        &guide,
        "# Steps\n\n## Step 1: Say hello\n\n```bash\nprintf 'replayed-%s\\n' 42\n```\n",
    )
    .expect("guide");
    let state = t.dir.join("state");
    let run = crate::common::bin()
        .arg("run")
        .arg(format!("{}#step-1-say-hello", guide.display()))
        .env("TSGNAV_STATE_DIR", &state)
        .env("TSGNAV_CONFIG", "/dev/null")
        .output()
        .expect("tsgnav run");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // The shown output must come from the recording, not from running the probe again.
    std::fs::write(
        &guide,
        "# Steps\n\n## Step 1: Say hello\n\n```bash\nprintf 'live-%s\\n' 42\n```\n",
    )
    .expect("guide");
    t.send_line(&format!(
        "{} sessions replay latest",
        env!("CARGO_BIN_EXE_tsgnav")
    ));
    t.wait_for("the replayed step and its label", |s| {
        s.contains("Step 1: Say hello ·") && s.contains("REPLAY of")
    });
    t.keys(&["Tab"]);
    t.keys(&["Enter"]);
    t.wait_for("the replayed output", |s| {
        s.contains("REPLAYED — recorded output from session") && s.contains("replayed-42")
    });
    t.keys(&["q"]);
    t.restored();
    let sessions = std::fs::read_dir(&state).expect("state").flatten().count();
    assert_eq!(sessions, 1, "a replay records nothing");
}
