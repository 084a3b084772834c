//! End to end in a real terminal (tmux) against `tsgnav::sim`, checked with the real kubectl:
//! Strategy 2 of the bundled Maestro guide through the navigator's confirmation screen. A
//! read-only session runs no mutation; the dry run changes nothing; a wrong target typed back
//! runs nothing; the right one captures the replica count, scales the agent to 0 and shows the
//! open mitigation, which is raised before quit and export (the bundle lists it as still
//! open); the restore uses the captured count, closes
//! it and offers the rollout status next; the evidence holds both confirmations and verifies.
//! Skips with a SKIP line when tmux or kubectl is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use tsgnav::nav::Cmd;
use tsgnav::tui::app::Item;
use tsgnav::tui::navigate::nav_cmd;

use crate::sim_support::{BlockingSim, STUCK_ID};
use crate::tui_common::{app, assert_verifies, item_index, Tmux};

const STRATEGY: &str =
    "maestro-stuck-deletion.md#strategy-2-scale-the-maestro-agent-down-clean-up-scale-it-back";
const RESTORE: &str = "maestro-stuck-deletion.md#restore-the-maestro-agent";

/// (Tabs to reach probe `p` of `node`, number of preconditions of `node`).
fn layout(node: &str, p: usize) -> (usize, usize) {
    let mut a = app();
    let id = a.nav.index.resolve(&a.lib, None, node).expect("node");
    nav_cmd(&mut a, Cmd::Goto(id));
    let tabs = item_index(&a, |i| matches!(i, Item::Probe(q) if *q == p));
    let pre = tsgnav::mitigate::preconditions(a.current_node().expect("node")).len();
    (tabs, pre)
}

fn tab(t: &Tmux, n: usize) {
    for _ in 0..n {
        t.keys(&["Tab"]);
    }
}

#[test]
fn confirmation_screen_wrong_target_runs_nothing_right_target_scales_and_restore_closes_it() {
    let test =
        "confirmation_screen_wrong_target_runs_nothing_right_target_scales_and_restore_closes_it";
    let Some(sim) = BlockingSim::start("maestro", test) else {
        return;
    };
    let Some(t) = Tmux::start("mitigate") else {
        return;
    };
    let ctx = sim.sim.as_ref().expect("sim").handle.clusters[0].clone();
    let replicas = || sim.agent_replicas(Some(&ctx));
    let before = replicas();
    assert!(before.parse::<u32>().is_ok_and(|n| n > 0), "{before}");
    std::fs::write(
        t.dir.join("config.toml"),
        format!(
            "[query]\nkubeconfig = {:?}\ncontext = {ctx:?}\n",
            sim.kubeconfig().display().to_string()
        ),
    )
    .expect("config");
    t.send_line(&format!(
        "{} --node {STRATEGY} --var CLUSTER_ID={STUCK_ID}",
        env!("CARGO_BIN_EXE_tsgnav")
    ));
    t.wait_for("Strategy 2, read-only", |s| {
        s.contains("Strategy 2") && s.contains("READ-ONLY")
    });
    let (tabs, pre) = layout(STRATEGY, 0);
    assert_eq!(
        pre, 3,
        "three task items; the lead-in of Preconditions is not one"
    );

    // Probe 1 captures the count into ORIG_REPLICAS (read-only, runs at once).
    tab(&t, tabs);
    t.keys(&["r"]);
    t.wait_for("probe 1 to finish", |s| s.contains("Probe 1 finished"));
    // Probe 2 scales: refused in a read-only session.
    tab(&t, 1);
    t.keys(&["r"]);
    t.wait_for("the read-only refusal", |s| {
        s.contains("this session is read-only") && s.contains("Press W")
    });
    assert_eq!(replicas(), before, "nothing ran in read-only mode");

    t.keys(&["W"]);
    t.wait_for("the write-mode prompt", |s| {
        s.contains(&format!("write mode: type the kube context `{ctx}`"))
    });
    t.send_line(&ctx);
    t.wait_for("write mode on", |s| s.contains(&format!("WRITE {ctx}")));
    t.keys(&["r"]);
    let target = format!("context {ctx}");
    let wanted = [
        "Mitigation: confirm before it runs",
        "kubectl scale deployment maestro-agent -n maestro --replicas=0",
        &target,
        "Recorded first: spec.replicas of deployment/maestro-agent -n maestro",
        "[ ] 1.",
        "Risk:",
    ];
    // Waits for the whole screen: a capture can catch it half drawn.
    t.wait_for(
        "the confirmation screen with its command, target and capture",
        |s| wanted.iter().all(|w| s.contains(w)),
    );
    t.keys(&["d"]);
    t.wait_for("the dry run's answer", |s| s.contains("(server dry run)"));
    assert_eq!(replicas(), before, "the dry run changed nothing");

    for _ in 0..pre {
        t.keys(&["Space"]);
    }
    t.keys(&["Tab"]);
    t.keys(&["-l", "mc-somewhere-else"]);
    t.keys(&["Enter"]);
    t.wait_for("the wrong-target refusal", |s| {
        s.contains("is not the target") && s.contains(&format!("type `{ctx}` exactly"))
    });
    assert_eq!(replicas(), before, "a wrong target ran nothing");

    t.keys(&["C-u"]);
    t.keys(&["-l", &ctx]);
    t.keys(&["Enter"]);
    t.wait_for("the open mitigation", |s| {
        s.contains("OPEN 1: deployment/maestro-agent -n maestro → 0")
    });
    assert_eq!(replicas(), "0", "the right target ran the scale");

    t.keys(&["q"]);
    t.wait_for("the quit warning", |s| {
        s.contains("Press q again to quit with it open")
    });
    t.keys(&["j"]);
    // Export warns once, then exports with the mitigation listed as still open.
    t.keys(&[":"]);
    t.send_line("export");
    t.wait_for("the export warning", |s| s.contains("Run :export again"));
    t.keys(&[":"]);
    t.send_line("export");
    t.wait_for("the export", |s| s.contains("Evidence exported"));
    let bundle = crate::tui_common::exported_bundle(&t.only_session());
    let summary = std::fs::read_to_string(bundle.join("summary.md")).expect("summary.md");
    assert!(
        summary.contains("STILL OPEN at export:** deployment/maestro-agent -n maestro scaled to 0")
            && summary.contains(&format!("was {before}")),
        "{summary}"
    );

    t.keys(&[":"]);
    t.send_line(&format!("goto {RESTORE}"));
    t.wait_for("the restore step", |s| {
        s.contains("Restore the Maestro agent")
    });
    let (tabs, pre) = layout(RESTORE, 0);
    tab(&t, tabs);
    t.keys(&["r"]);
    // The value is shown in place in the command and listed under it.
    let captured = format!("with ORIG_REPLICAS={before}");
    let in_place = format!("--replicas=\"{before}\"");
    t.wait_for("the restore's screen with the captured count", |s| {
        s.contains("Mitigation: confirm before it runs")
            && s.contains(&captured)
            && s.contains(&in_place)
    });
    for _ in 0..pre {
        t.keys(&["Space"]);
    }
    t.keys(&["Tab"]);
    t.keys(&["-l", &ctx]);
    t.keys(&["Enter"]);
    t.wait_for("the rollout status offered next", |s| {
        s.contains("r runs probe 2 (`kubectl rollout status") && !s.contains("OPEN 1")
    });
    assert_eq!(replicas(), before, "restored to the captured count");

    // The restore ran after the export: q says so once.
    t.quit_unexported();
    t.restored();
    let dir = t.only_session();
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).expect("journal");
    let kinds: Vec<String> = journal
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["type"].as_str().map(str::to_string))
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| *k == "confirmation").count(),
        2,
        "{kinds:?}"
    );
    assert!(
        journal.contains(&format!("\"value\":\"{before}\"")),
        "the prior replica count is recorded"
    );
    assert_verifies(&dir);
}
