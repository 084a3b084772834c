//! `tsgnav demo maestro` end to end in tmux: the stuck-deletion guide on the simulated
//! management cluster and Maestro API. The port-forward of Step 2 runs as a background task
//! (listed by `:tasks`, stopped by `:stop`), the bundles show their root-level `deleted_at`,
//! Strategy 2 scales the agent to 0 through the confirmation screen with the open mitigation
//! shown, the restore brings back the captured count and closes it, and the bundle exports
//! and verifies. Skips with a SKIP line when tmux is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use tsgnav::nav::Cmd;
use tsgnav::tui::app::Item;
use tsgnav::tui::navigate::nav_cmd;

use crate::tui_common::{app, assert_verifies, item_index, Tmux};

const GUIDE: &str = "maestro-stuck-deletion.md";

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

/// Opens step `slug` and runs its probe `p` with `r`; returns its preconditions.
pub(crate) fn run(t: &Tmux, slug: &str, title: &str, p: usize) -> usize {
    t.keys(&[":"]);
    t.send_line(&format!("goto {slug}"));
    t.wait_for(title, |s| s.contains(title));
    let (tabs, pre) = layout(slug, p);
    for _ in 0..tabs {
        t.keys(&["Tab"]);
    }
    t.keys(&["r"]);
    pre
}

#[test]
fn maestro_demo_port_forward_task_scale_down_restore_and_export() {
    // Declared first, dropped last: the navigator is gone before the port is handed on.
    let _port = super::tui_common::demo_port_8002();
    let Some(t) = Tmux::start("demo-maestro") else {
        return;
    };
    t.send_line(&format!("{} demo maestro", env!("CARGO_BIN_EXE_tsgnav")));
    t.wait_for("the first step", |s| {
        s.contains("Step 1: Confirm the deletion is stuck") && s.contains("Recording evidence in ")
    });
    t.keys(&["Escape"]);
    t.wait_for("the message cleared, the demo-data label kept", |s| {
        s.contains("DEMO DATA (simulated)") && !s.contains("Recording evidence in ")
    });

    let step2 = "step-2-inspect-the-resource-bundles-in-maestro";
    run(&t, step2, "Step 2: Inspect the resource bundles", 0);
    t.wait_for("the port-forward as a background task", |s| {
        s.contains("runs in the background as task #1")
    });
    t.wait_for("the task in the status line", |s| {
        s.contains("1 task running (:tasks)")
    });
    t.keys(&[":"]);
    t.send_line("tasks");
    t.wait_for("the task list", |s| {
        s.contains("Running: #1 kubectl port-forward -n maestro svc/maestro 8002:8000")
    });
    // The selection is on probe 1: probe 3 is two items further.
    t.keys(&["Tab"]);
    t.keys(&["Tab"]);
    t.keys(&["r"]);
    t.wait_for("the bundles", |s| s.contains("Probe 3 finished"));
    for _ in 0..12 {
        t.keys(&["j"]);
    }
    t.wait_for("a bundle's root-level deleted_at", |s| {
        s.contains("\"deleted_at\": \"20")
    });
    t.keys(&[":"]);
    t.send_line("stop 1");
    t.wait_for("the task stopped", |s| {
        s.contains("Probe 1 was cancelled.") && !s.contains("task running")
    });

    let strategy = "strategy-2-scale-the-maestro-agent-down-clean-up-scale-it-back";
    let ctx = t.write_mode_on();
    run(&t, strategy, "Strategy 2: Scale the Maestro agent down", 0);
    t.wait_for("the count captured", |s| s.contains("Probe 1 finished"));
    // The selection is on probe 1: the scale-down is the next item.
    t.keys(&["Tab"]);
    t.keys(&["r"]);
    t.confirm(layout(strategy, 1).1, &ctx);
    t.wait_for("the open mitigation", |s| {
        s.contains("OPEN 1: deployment/maestro-agent -n maestro → 0")
    });

    let pre = run(
        &t,
        "restore-the-maestro-agent",
        "Restore the Maestro agent",
        0,
    );
    t.confirm(pre, &ctx);
    t.wait_for(
        "the mitigation closed and the rollout status offered",
        |s| !s.contains("OPEN 1") && s.contains("r runs probe 2 (`kubectl rollout status"),
    );

    t.keys(&[":"]);
    t.send_line("export maestro owners");
    t.wait_for("the export", |s| s.contains("Evidence exported"));
    t.keys(&["q"]);
    t.restored();
    let dir = t.only_session();
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).expect("journal");
    for want in [
        "\"type\":\"confirmation\"",
        "\"type\":\"prior_state\"",
        "kubectl scale deployment maestro-agent -n maestro --replicas=0",
        "\"type\":\"export\"",
    ] {
        assert!(journal.contains(want), "journal has {want}");
    }
    assert_verifies(&dir);
}
