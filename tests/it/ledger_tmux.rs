//! The prior-state ledger in the navigator (`tsgnav demo maestro`, tmux): the count captured
//! before the scale-down is fixed while the mitigation is open. Re-running the capture after
//! the scale-down puts 0 in the guide's variable; the restore then shows the conflict (ledger
//! 1, variable 0) with the ledger's value as the default, and restores 1. Skips with a SKIP
//! line when tmux is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use crate::demo_maestro_tmux::{layout, run};
use crate::tui_common::Tmux;

#[test]
fn the_restore_proposes_the_ledgers_count_over_a_later_capture() {
    let Some(t) = Tmux::start_sized("ledger", 220, 40) else {
        return;
    };
    t.send_line(&format!("{} demo maestro", env!("CARGO_BIN_EXE_tsgnav")));
    t.wait_for("the first step", |s| {
        s.contains("Step 1: Confirm the deletion is stuck")
    });
    t.keys(&["Escape"]);
    let strategy = "strategy-2-scale-the-maestro-agent-down-clean-up-scale-it-back";
    let title = "Strategy 2: Scale the Maestro agent down";
    let ctx = t.write_mode_on();
    run(&t, strategy, title, 0);
    t.wait_for("the count captured", |s| s.contains("Probe 1 finished"));
    t.keys(&["Tab"]);
    t.keys(&["r"]);
    t.confirm(layout(strategy, 1).1, &ctx);
    t.wait_for("the open mitigation", |s| {
        s.contains("OPEN 1: deployment/maestro-agent -n maestro → 0")
    });
    // The capture again, after the scale-down: the variable now says 0.
    run(&t, strategy, title, 0);
    t.wait_for("the re-run capture", |s| s.contains("Probe 1 finished"));

    run(
        &t,
        "restore-the-maestro-agent",
        "Restore the Maestro agent",
        0,
    );
    let s = t.wait_for("the conflict, with the ledger's value offered", |s| {
        s.contains("ORIG_REPLICAS: ledger 1 ≠ variable 0") && s.contains("ORIG_REPLICAS = 1")
    });
    assert!(
        !s.contains("Mitigation: confirm before it runs"),
        "no confirmation before the conflict is answered:\n{s}"
    );
    t.keys(&["Enter"]);
    let s = t.wait_for("the confirmation with the ledger's count", |s| {
        s.contains("Mitigation: confirm before it runs") && s.contains("--replicas=")
    });
    assert!(s.contains("ORIG_REPLICAS") && s.contains('1'), "{s}");
    assert!(
        !s.contains("--replicas=\"0\""),
        "the restore must not propose 0:\n{s}"
    );
    let pre = layout("restore-the-maestro-agent", 0).1;
    t.confirm(pre, &ctx);
    t.wait_for("the mitigation closed", |s| {
        !s.contains("OPEN 1") && s.contains("# env ORIG_REPLICAS='1'")
    });
    t.quit_unexported();
    let dir = t.only_session();
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).expect("journal");
    assert!(
        journal.contains("ORIG_REPLICAS='1'") || journal.contains("ORIG_REPLICAS=1"),
        "the restore ran with the ledger's count"
    );
}
