//! Cancelling running probes in the navigator, end to end in tmux: Esc cancels the step's
//! running read-only probe and navigating away cancels it too; each time the result says
//! "cancelled" and the probe's processes are gone (the process group is killed, not
//! orphaned). Skips with a SKIP line when tmux is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use std::time::{Duration, Instant};

use crate::tui_common::Tmux;

/// Whether a process whose command line holds `marker` is alive.
fn alive(marker: &str) -> bool {
    std::process::Command::new("pgrep")
        .args(["-f", marker])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Waits (up to 30 s) until a process running `marker` is alive (`true`) or gone (`false`).
fn wait_until(marker: &str, want: bool) {
    let start = Instant::now();
    while alive(marker) != want {
        let what = if want {
            "start"
        } else {
            "be gone after the cancel"
        };
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the process running `{marker}` did not {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn esc_and_navigating_away_cancel_a_running_probe_and_kill_its_processes() {
    let Some(t) = Tmux::start("cancel") else {
        return;
    };
    // A marker unique to this run, so no other process matches it: `sleep 45.<pid><nanos>`.
    let marker = format!("sleep 45.{}{}", std::process::id(), crate::common::nanos());
    let guide = t.dir.join("slow.md");
    std::fs::write(
        &guide,
        format!(
            "# Slow\n\n## Step 1: Wait\n\n```bash\n{marker}; echo never-printed\n```\n\n\
             ## Step 2: After\n\nNothing to run.\n"
        ),
    )
    .expect("guide");
    t.send_line(&format!(
        "{} '{}' --node step-1-wait --no-evidence",
        env!("CARGO_BIN_EXE_tsgnav"),
        guide.display()
    ));
    t.wait_for("the step", |s| s.contains("Step 1: Wait ·"));

    t.keys(&["r"]);
    t.wait_for("the probe running", |s| s.contains("Esc cancels it"));
    wait_until(&marker, true);
    t.keys(&["Escape"]);
    t.wait_for("the cancelled result", |s| {
        s.contains("Probe 1 was cancelled.") && s.contains("failed: cancelled")
    });
    wait_until(&marker, false);
    let screen = t.capture();
    assert!(
        !screen
            .lines()
            .any(|l| l.trim_end().ends_with("⎿ never-printed")),
        "the command after the sleep never ran:\n{screen}"
    );

    t.keys(&["r"]);
    t.wait_for("the probe running again", |s| s.contains("Esc cancels it"));
    wait_until(&marker, true);
    t.keys(&["n"]);
    t.wait_for("step 2, the probe left behind cancelled", |s| {
        s.contains("Step 2: After ·") && s.contains("Probe 1 of Step 1: Wait was cancelled.")
    });
    wait_until(&marker, false);
    t.keys(&["q"]);
    t.restored();
}
