//! Alert-source faults reach the evidence journal: with four Alertmanagers that are down,
//! slow (no answer within 5 s), 401 and malformed, the navigator (real binary, tmux) writes one
//! note per source and fault episode once a session is open, not one per refresh, and the
//! status line still says they cannot be read. The faults come from the raw TCP fault servers
//! (a real Alertmanager cannot be made to hang or answer garbage on demand).

use std::time::{Duration, Instant};

use super::servers::{self, Fault};
use super::tui_common::Tmux;

fn fault_notes(journal: &str) -> Vec<String> {
    journal
        .lines()
        .filter(|l| l.contains("\"alert-source-fault\""))
        .map(str::to_string)
        .collect()
}

#[test]
fn each_fault_episode_is_one_record_not_one_per_refresh() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let slow = rt.block_on(servers::faulty(Fault::Hang));
    let denied = rt.block_on(servers::faulty(Fault::Status401));
    let broken = rt.block_on(servers::faulty(Fault::MalformedJson));
    let down = servers::refusing();
    let Some(t) = Tmux::start("amfaults") else {
        return;
    };
    // The 401 source's token command counts the refreshes (it runs twice per refresh: once,
    // then again after the 401).
    let runs = t.dir.join("token-runs");
    let token_cmd = format!("echo run >> '{}'; echo expired-token", runs.display());
    let mut config = String::from("alertmanager_refresh = \"1s\"\n");
    for (name, url, token) in [
        ("down", &down, None),
        ("slow", &slow, None),
        ("denied", &denied, Some(&token_cmd)),
        ("broken", &broken, None),
    ] {
        config.push_str(&format!(
            "\n[[alertmanager]]\nname = \"{name}\"\nurl = \"{url}\"\n"
        ));
        if let Some(cmd) = token {
            config.push_str(&format!("token_cmd = \"{cmd}\"\n"));
        }
    }
    std::fs::write(t.dir.join("config.toml"), config).expect("config");
    let guide = t.dir.join("g.md");
    std::fs::write(&guide, "# Steps\n\n## Step 1: Look\n\nRead the alerts.\n").expect("guide");
    t.send_line(&format!(
        "{} '{}' --node g.md#step-1-look",
        env!("CARGO_BIN_EXE_tsgnav"),
        guide.display()
    ));
    t.wait_for("the step", |s| s.contains("Recording evidence in "));
    let session = t.only_session();
    let journal = || std::fs::read_to_string(session.join("journal.jsonl")).unwrap_or_default();
    let deadline = Instant::now() + Duration::from_secs(60);
    while fault_notes(&journal()).len() < 4 {
        assert!(
            Instant::now() < deadline,
            "a note per failing source:\n{}",
            journal()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Three more refreshes (each waits out the slow source's 5 s).
    let count = || {
        std::fs::read_to_string(&runs)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    };
    let seen = count();
    let deadline = Instant::now() + Duration::from_secs(90);
    while count() < seen + 6 {
        assert!(Instant::now() < deadline, "refreshes go on");
        std::thread::sleep(Duration::from_millis(100));
    }
    let notes = fault_notes(&journal());
    assert_eq!(
        notes.len(),
        4,
        "one per episode, not per refresh: {notes:#?}"
    );
    for (source, kind) in [
        ("down", "down (cannot connect)"),
        ("slow", "slow (no answer in time)"),
        ("denied", "unauthorized (401/403)"),
        ("broken", "malformed answer"),
    ] {
        assert!(
            notes
                .iter()
                .any(|n| n.contains(&format!("alert source `{source}` is {kind} since"))),
            "{source}: {notes:#?}"
        );
    }
    t.wait_for("the status line", |s| {
        s.contains("ALERTMANAGER UNREACHABLE")
    });
    t.quit_unexported();
    t.restored();
    crate::tui_common::assert_verifies(&session);
}
