//! `tsgnav demo` end to end in tmux, from a clean state directory to an exported bundle: the
//! alert lands on the blast-radius step, a kubectl probe runs live against the in-process
//! simulated cluster, a PromQL probe is answered from the recorded scenario and says so, write
//! mode is turned on with the context typed, the stuck router pod is force-deleted through the
//! confirmation screen and the re-query offered after it runs, a validation item is ticked, and
//! the evidence is exported and verifies. Skips with a SKIP line when tmux is missing, unless
//! TSGNAV_REQUIRE_SERVERS=1.

use tsgnav::nav::Cmd;
use tsgnav::tui::app::Item;
use tsgnav::tui::navigate::nav_cmd;

use crate::tui_common::{app, assert_verifies, at_alert, id, item_index, Tmux};

fn run_probe(t: &Tmux, probe: usize) {
    let a = at_alert();
    for _ in 0..item_index(&a, |i| matches!(i, Item::Probe(p) if *p == probe)) {
        t.keys(&["Tab"]);
    }
    t.keys(&["Enter"]);
}

#[test]
fn demo_from_a_clean_state_to_an_exported_bundle() {
    let Some(t) = Tmux::start("demo") else { return };
    t.send_line(&format!("{} demo", env!("CARGO_BIN_EXE_tsgnav")));
    t.wait_for("the landing step", |s| {
        s.contains("alert userJourneySwiftLatencyP991h5m routes here")
            && s.contains("Recording evidence in ")
    });
    run_probe(&t, 0);
    t.wait_for("live rows from the simulated cluster", |s| {
        s.contains("Probe 1 finished") && s.contains("aks-userswft-31562873-vmss000002")
    });
    // The stuck router pods are below the nodes: scroll to them.
    for _ in 0..8 {
        t.keys(&["j"]);
    }
    t.wait_for("the stuck router pod", |s| {
        s.contains("router-6f8b7c9d5-9vtx2  0/1")
    });
    // The selection stays on probe 1; probe 3 (PromQL) is two items further.
    t.keys(&["Tab"]);
    t.keys(&["Tab"]);
    t.keys(&["Enter"]);
    t.wait_for("probe 3 to finish", |s| s.contains("Probe 3 finished"));
    // The step pane scrolls to a result when it comes in: no scrolling needed.
    t.wait_for("the recorded PromQL answer, marked as demo data", |s| {
        s.contains("demo data: recorded answer")
            && s.contains("{node=\"aks-userswft-31562873-vmss000001\"}  2")
    });
    mitigate(&t);
    t.keys(&[":"]);
    t.keys(&["-l", "export no-such-team"]);
    t.keys(&["Enter"]);
    t.wait_for("the valid teams", |s| {
        s.contains("no escalation team `no-such-team`")
    });
    t.keys(&[":"]);
    t.keys(&["-l", "export cloudnet/nrp"]);
    t.keys(&["Enter"]);
    t.wait_for("the export message", |s| s.contains("Evidence exported"));
    t.keys(&["q"]);
    t.restored();

    let dir = t.only_session();
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).expect("journal");
    for want in [
        "\"type\":\"probe_run\"",
        "kubectl get nodes",
        "demo scenario (recorded)",
        "\"type\":\"export\"",
        "\"type\":\"confirmation\"",
        "--grace-period=0 --force",
        "\"topic\":\"checklist\"",
    ] {
        assert!(journal.contains(want), "journal has {want}:\n{journal}");
    }
    assert_verifies(&dir);
    let export = dir.join("export");
    let files: Vec<String> = std::fs::read_dir(&export)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        files.iter().any(|f| f.ends_with(".tar.gz")),
        "an exported .tar.gz in {}: {files:?}",
        export.display()
    );
    let bundle = crate::tui_common::exported_bundle(&dir);
    let summary = std::fs::read_to_string(bundle.join("summary.md")).expect("summary.md");
    assert!(
        summary.contains("Cloudnet/NRP"),
        "the chosen team's checklist is in the summary:\n{summary}"
    );
}

/// Scenario 1, option A: write mode on, the force delete confirmed, the re-query after it,
/// then a validation item ticked.
fn mitigate(t: &Tmux) {
    t.keys(&[":"]);
    t.send_line("goto scenario-1-stuck-mtpnc-deletion");
    t.wait_for("Scenario 1", |s| {
        s.contains("Scenario 1: Stuck MTPNC deletion")
    });
    let ctx = t.write_mode_on();
    let mut a = app();
    nav_cmd(&mut a, Cmd::Goto(id("Scenario 1:")));
    for _ in 0..item_index(&a, |i| matches!(i, Item::Probe(1))) {
        t.keys(&["Tab"]);
    }
    t.keys(&["r"]);
    t.wait_for("the confirmation screen", |s| {
        s.contains("Mitigation: confirm before it runs")
            && s.contains("kubectl delete pod \"router-6f8b7c9d5-9vtx2\"")
            && s.contains("--grace-period=0")
    });
    let pre = tsgnav::mitigate::preconditions(a.current_node().expect("node")).len();
    t.confirm(pre, &ctx);
    t.wait_for("the re-query offered next", |s| {
        s.contains("Probe 2 ran. Check the result next: r runs probe 3")
    });
    t.keys(&["r"]);
    t.wait_for("the re-query to finish", |s| s.contains("Probe 3 finished"));
    t.keys(&[":"]);
    t.send_line("goto validation-and-confirmation");
    t.wait_for("the validation step", |s| {
        s.contains("Validation and Confirmation")
    });
    nav_cmd(&mut a, Cmd::Goto(id("Validation and Confirmation")));
    for _ in 0..item_index(&a, |i| matches!(i, Item::Check(0))) {
        t.keys(&["Tab"]);
    }
    t.keys(&["Space"]);
    t.wait_for("the ticked item", |s| s.contains("[x]"));
}
