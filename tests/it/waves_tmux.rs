//! `:waves` in the navigator at 80×24, in a real terminal (tmux), against `tsgnav::sim`
//! serving 12 management clusters with the real kubectl: the plan screen (the canary first,
//! the gate, the phrase), the phrase typed back, the live table while the waves run, a
//! context seeded to fail its validation in wave 2 stopping the run with nothing past that
//! wave written to (writes counted per cluster by the simulator), and the restore of the
//! whole wave chosen from the screen, back to the count captured before. Waits on the
//! screen's content, never on a fixed sleep. Skips with a SKIP line when tmux or kubectl is
//! missing, unless TSGNAV_REQUIRE_SERVERS=1.

use std::path::Path;

use crate::tui_common::Tmux;

const GUIDE: &str = "tests/fixtures/waves/pause-agent.md";
const STEP: &str = "strategy-scale-the-agent-down";

async fn spec_replicas(kc: &Path, ctx: &str) -> i32 {
    use k8s_openapi::api::apps::v1::Deployment;
    let client = crate::sim_support::client(kc, Some(ctx)).await;
    let api: kube::Api<Deployment> = kube::Api::namespaced(client, "maestro");
    let d = api.get("maestro-agent").await.expect("deployment");
    d.spec.replicas.unwrap_or(-1)
}

/// The `wave` notes of every evidence session under `state`.
fn wave_notes(state: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for d in std::fs::read_dir(state).into_iter().flatten().flatten() {
        let Ok(j) = std::fs::read_to_string(d.path().join("journal.jsonl")) else {
            continue;
        };
        for v in j
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        {
            if v["topic"] == "wave" {
                out.extend(v["text"].as_str().map(String::from));
            }
        }
    }
    out
}

#[test]
fn waves_plan_run_stop_at_the_failing_wave_and_restore_it_at_80x24() {
    let test = "waves_plan_run_stop_at_the_failing_wave_and_restore_it_at_80x24";
    if crate::sim_support::kubectl(test).is_none() {
        return;
    }
    let Some(t) = Tmux::start_sized("waves", 80, 24) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut s = crate::sim_support::scenario("maestro", Some(12));
    let names = s.clusters.clone();
    // Waves of 1, 3 (25%) and 8: index 2 is in the second wave.
    s.fail_validation = vec![names[2].clone()];
    let sim = rt.block_on(crate::sim_support::start_scenario(s));
    let kc = t.dir.join("fleet.yaml");
    std::fs::copy(&sim.kubeconfig, &kc).expect("kubeconfig");
    let before = rt.block_on(spec_replicas(&kc, &names[0]));
    assert!(before > 0, "the agent runs before the change: {before}");
    let guide = crate::common::root().join(GUIDE);
    t.send_line(&format!(
        "{} --kubeconfig '{}' --context {} --write '{}' --node {STEP}",
        env!("CARGO_BIN_EXE_tsgnav"),
        kc.display(),
        names[0],
        guide.display()
    ));
    t.wait_for("the step", |s| s.contains("Strategy: scale the agent down"));
    t.send_line(":waves mc-* 1,25%,rest 4");
    let s = t.wait_for("the plan", |s| s.contains("wave 1 (canary): 1"));
    for line in [
        "mc-* · 12 contexts · 3 waves · 4 at a time",
        &format!("wave 1 (canary): 1 · {}", names[0]),
        "wave 2: 3 ·",
        "wave 3: 8 ·",
        "agent-stopped",
        "[ ] the maintenance window",
        "Type `mc-* · 12 contexts` to run it",
    ] {
        assert!(s.contains(line), "the plan screen lacks `{line}`:\n{s}");
    }
    // Typing before the precondition is acknowledged does not reach the field.
    t.keys(&["-l", "m"]);
    t.wait_for("the refusal", |s| {
        s.contains("Acknowledge the preconditions first")
    });
    t.keys(&["Space"]);
    t.wait_for("the tick", |s| s.contains("[x] the maintenance window"));
    // A wrong count: refused, nothing is written.
    t.send_line("mc-* . 11 contexts");
    t.wait_for("the wrong phrase", |s| {
        s.contains("is not `mc-* · 12 contexts`")
    });
    assert_eq!(sim.handle.writes(), 0, "a refused phrase wrote something");
    t.keys(&["C-u"]);
    // `.` stands for the middle dot.
    t.send_line("mc-* . 12 contexts");
    let s = t.wait_for("the failed wave", |s| {
        s.contains("wave 2 failed: c restore")
    });
    assert!(s.contains("Wave run"), "the live table:\n{s}");
    assert!(s.contains("WAVE  CONTEXT"), "the table's head:\n{s}");
    assert!(
        s.contains(&names[2]) && s.contains("failed"),
        "the failing context is on screen:\n{s}"
    );
    for (i, name) in names.iter().enumerate() {
        let w = sim.handle.writes_to(name);
        let want = u64::from(i < 4);
        assert_eq!(w, want, "{name} (index {i}): writes {w} before the restore");
    }
    t.keys(&["w"]);
    let s = t.wait_for("the end", |s| s.contains("Stopped at wave 2/3"));
    assert!(
        s.contains("8 contexts in later waves were not changed"),
        "{s}"
    );
    assert!(s.contains("restored"), "the restored rows:\n{s}");
    assert!(s.contains("skipped 8"), "the later waves did not run:\n{s}");
    for (i, name) in names.iter().enumerate() {
        let w = sim.handle.writes_to(name);
        let want = match i {
            0 => 1,
            1..=3 => 2,
            _ => 0,
        };
        assert_eq!(w, want, "{name} (index {i}): writes {w} after the restore");
        let replicas = rt.block_on(spec_replicas(&kc, name));
        match i {
            0 => assert_eq!(replicas, 0, "the canary validated and stays changed"),
            _ => assert_eq!(replicas, before, "{name} is at its count from before"),
        }
    }
    t.keys(&["Escape"]);
    t.wait_for("the step again", |s| {
        s.contains("Strategy: scale the agent down")
    });
    t.keys(&["C-c"]);
    t.keys(&["C-c"]);
    t.wait_for("the shell", |s| s.contains("READY$"));
    let notes = wave_notes(&t.dir.join("state"));
    for name in &names[..4] {
        assert!(
            notes.iter().any(|n| n.contains(&format!(" · {name} · "))),
            "{name} has a wave record: {notes:?}"
        );
    }
    assert!(
        notes
            .iter()
            .any(|n| n.contains(&format!(" · {} · restored", names[2]))),
        "the restore is journaled: {notes:?}"
    );
    assert!(
        !notes
            .iter()
            .any(|n| n.contains(&format!(" · {} · ", names[4]))),
        "nothing past wave 2 is journaled as run: {notes:?}"
    );
}
