//! The config file's `redact` patterns reach the navigator's evidence: a probe prints a value
//! matching a configured pattern, and no file of the session holds it; a session resumed after
//! the config gained a pattern redacts with it too. Real binary in tmux;
//! skips with a SKIP line when tmux is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use crate::tui_common::Tmux;

#[test]
fn configured_patterns_are_redacted_from_the_journal() {
    let Some(t) = Tmux::start("redact") else {
        return;
    };
    std::fs::write(
        t.dir.join("config.toml"),
        "redact = [\"ticket-[0-9]{6}\"]\n",
    )
    .expect("config");
    let guide = t.dir.join("g.md");
    std::fs::write(
        &guide,
        "# Steps\n\n## Step 1: Show the ticket\n\n```bash\nprintf 'see %s\\n' ticket-123456\n```\n",
    )
    .expect("guide");
    t.send_line(&format!(
        "{} '{}' --node g.md#step-1-show-the-ticket",
        env!("CARGO_BIN_EXE_tsgnav"),
        guide.display()
    ));
    t.wait_for("the step", |s| {
        s.contains("Recording evidence in ") && s.contains("Step 1: Show the ticket ·")
    });
    t.keys(&["Tab"]);
    t.keys(&["Enter"]);
    t.wait_for("the probe to finish", |s| s.contains("Probe 1 finished"));
    t.quit_unexported();
    t.restored();
    let session = t.only_session();
    let journal = std::fs::read_to_string(session.join("journal.jsonl")).expect("journal");
    assert!(
        journal.contains("\"type\":\"probe_run\""),
        "the run was recorded: {journal}"
    );
    assert!(
        !journal.contains("ticket-123456"),
        "the configured pattern is redacted: {journal}"
    );
    assert!(journal.contains("REDACTED"), "{journal}");
}

/// A session resumed after the config file gained a pattern redacts with it too.
#[test]
fn a_resumed_session_redacts_with_the_config_patterns() {
    let Some(t) = Tmux::start("redact-resume") else {
        return;
    };
    let guide = t.dir.join("g.md");
    std::fs::write(
        &guide,
        "# Steps\n\n## Step 1: Show the ticket\n\n```bash\nprintf 'see %s\\n' ticket-654321\n```\n",
    )
    .expect("guide");
    let open = format!(
        "{} '{}' --node g.md#step-1-show-the-ticket",
        env!("CARGO_BIN_EXE_tsgnav"),
        guide.display()
    );
    // First without a pattern: the session starts and records nothing secret yet.
    t.send_line(&open);
    t.wait_for("the step", |s| s.contains("Recording evidence in "));
    // Nothing was run or noted: q quits at once.
    t.keys(&["q"]);
    t.restored();
    std::fs::write(
        t.dir.join("config.toml"),
        "redact = [\"ticket-[0-9]{6}\"]\n",
    )
    .expect("config");
    t.send_line(&format!("{} --resume", env!("CARGO_BIN_EXE_tsgnav")));
    t.wait_for("the resumed step", |s| {
        s.contains("Step 1: Show the ticket ·")
    });
    t.keys(&["Tab"]);
    t.keys(&["Enter"]);
    t.wait_for("the probe to finish", |s| s.contains("Probe 1 finished"));
    t.quit_unexported();
    let journal = std::fs::read_to_string(t.only_session().join("journal.jsonl")).expect("journal");
    assert!(journal.contains("\"type\":\"probe_run\""), "{journal}");
    assert!(
        !journal.contains("ticket-654321"),
        "the pattern added to the config before resuming is redacted: {journal}"
    );
    assert!(journal.contains("REDACTED"), "{journal}");
}
