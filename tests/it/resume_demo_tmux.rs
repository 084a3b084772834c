//! `--resume` of a demo session goes on in the demo (tmux): a session recorded by `tsgnav
//! demo maestro`, resumed with `tsgnav --resume latest` and a KUBECONFIG that names no file,
//! comes back with the DEMO DATA label and the simulated context in the status line, its
//! probe answered by the simulated cluster (the demo's cluster id in the output), and its
//! records appended to the same session. Skips with a SKIP line when tmux is missing, unless
//! TSGNAV_REQUIRE_SERVERS=1.

use crate::demo_maestro_tmux::layout;
use crate::tui_common::Tmux;

const STEP: &str = "step-1-confirm-the-deletion-is-stuck";
const CLUSTER_ID: &str = "2lq3stuck0maestro0cluster0id1";

fn run_probe_1(t: &Tmux) -> String {
    let (tabs, _) = layout(STEP, 0);
    for _ in 0..tabs {
        t.keys(&["Tab"]);
    }
    t.keys(&["r"]);
    t.wait_for("probe 1 answered by the simulated cluster", |s| {
        s.contains("Probe 1 finished") && s.contains(CLUSTER_ID)
    })
}

#[test]
fn a_demo_session_resumes_in_the_demo() {
    let Some(t) = Tmux::start_sized("resume-demo", 140, 45) else {
        return;
    };
    let bin = env!("CARGO_BIN_EXE_tsgnav");
    t.send_line(&format!("{bin} demo maestro"));
    t.wait_for("the first step, recording", |s| {
        s.contains("Step 1: Confirm the deletion is stuck") && s.contains("Recording evidence in ")
    });
    t.keys(&["Escape"]);
    run_probe_1(&t);
    t.quit_unexported();
    t.restored();
    let session = t.only_session();
    let before = std::fs::read_to_string(session.join("journal.jsonl")).expect("journal");
    t.send_line("clear");
    t.wait_for("a clear screen", |s| !s.contains("Step 1"));
    t.send_line(&format!(
        "KUBECONFIG=/nonexistent/kubeconfig {bin} --resume latest"
    ));
    let s = t.wait_for("the resumed session, in the demo", |s| {
        s.contains("Step 1: Confirm the deletion is stuck") && s.contains("DEMO DATA (simulated)")
    });
    assert!(s.contains(" READ-ONLY mc-"), "the simulated context: {s}");
    t.keys(&["Escape"]);
    let s = run_probe_1(&t);
    assert!(!s.contains("nonexistent"), "{s}");
    t.quit_unexported();
    t.restored();
    assert_eq!(t.only_session(), session, "the same session, resumed");
    let after = std::fs::read_to_string(session.join("journal.jsonl")).expect("journal");
    assert!(
        after.starts_with(&before),
        "records appended to the same journal"
    );
    let runs = after
        .lines()
        .filter(|l| l.contains(r#""type":"probe_run""#))
        .count();
    assert!(runs >= 2, "both runs recorded:\n{after}");
}
