//! `:waves` in the navigator at 80×24, in a real terminal (tmux), against `tsgnav::sim`
//! serving 12 management clusters with the real kubectl: the plan screen (the canary first,
//! the gate, the phrase), the phrase typed back, the live table while the waves run, a
//! context seeded to fail its validation in wave 2 stopping the run with nothing past that
//! wave written to (writes counted per cluster by the simulator), and the restore of the
//! whole wave chosen from the screen, back to the count captured before. Waits on the
//! screen's content, never on a fixed sleep. Skips with a SKIP line when tmux or kubectl is
//! missing, unless TSGNAV_REQUIRE_SERVERS=1. [`Fleet`] is the set-up every waves test in a
//! terminal shares (here and in `waves_tmux_resume`): tmux, the seeded simulator on a
//! runtime of its own, its kubeconfig, the navigator's command line.

use std::path::{Path, PathBuf};

use crate::sim_support::AsyncSim;
use crate::tui_common::Tmux;

pub const GUIDE: &str = "tests/fixtures/waves/pause-agent.md";
pub const STEP: &str = "strategy-scale-the-agent-down";

async fn spec_replicas(kc: &Path, ctx: &str) -> i32 {
    use k8s_openapi::api::apps::v1::Deployment;
    let client = crate::sim_support::client(kc, Some(ctx)).await;
    let api: kube::Api<Deployment> = kube::Api::namespaced(client, "maestro");
    let d = api.get("maestro-agent").await.expect("deployment");
    d.spec.replicas.unwrap_or(-1)
}

/// What every wave test in a terminal shares: tmux at 80×24, the simulator serving `n`
/// management clusters (those at the indices of `failing` fail their validation) on a
/// runtime of its own, its kubeconfig beside the terminal's state folder.
pub struct Fleet {
    pub sim: AsyncSim,
    pub rt: tokio::runtime::Runtime,
    pub t: Tmux,
    pub kc: PathBuf,
    pub names: Vec<String>,
}

impl Fleet {
    /// Out of the navigator (its wave screen closed) and back at the shell.
    pub fn leave(&self) {
        let t = &self.t;
        t.keys(&["Escape"]);
        t.wait_for("the step again", |s| {
            s.contains("Strategy: scale the agent down")
        });
        t.keys(&["C-c"]);
        t.keys(&["C-c"]);
        t.wait_for("the shell", |s| s.contains("READY$"));
    }

    /// `None` (after a SKIP line) when tmux or kubectl is missing.
    pub fn start(test: &str, tag: &str, n: usize, failing: &[usize]) -> Option<Fleet> {
        crate::sim_support::kubectl(test)?;
        let t = Tmux::start_sized(tag, 80, 24)?;
        let mut s = crate::sim_support::scenario("maestro", Some(n));
        let names = s.clusters.clone();
        s.fail_validation = failing.iter().map(|i| names[*i].clone()).collect();
        let (rt, sim) = crate::sim_support::seeded_on_own_runtime(s);
        let kc = t.dir.join("fleet.yaml");
        std::fs::copy(&sim.kubeconfig, &kc).expect("kubeconfig");
        Some(Fleet {
            sim,
            rt,
            t,
            kc,
            names,
        })
    }

    /// The navigator's command line: write mode on `ctx`, then `rest` (the guide and the
    /// step, or `--resume …`).
    pub fn command(&self, ctx: &str, rest: &str) -> String {
        format!(
            "{} --kubeconfig '{}' --context {ctx} --write {rest}",
            env!("CARGO_BIN_EXE_tsgnav"),
            self.kc.display(),
        )
    }

    /// The guide and the step, as the command line names them.
    pub fn on_the_step(&self) -> String {
        let guide = crate::common::root().join(GUIDE);
        format!("'{}' --node {STEP}", guide.display())
    }

    /// The agent's replica count on `ctx`.
    pub fn replicas(&self, ctx: &str) -> i32 {
        self.rt.block_on(spec_replicas(&self.kc, ctx))
    }

    /// The writes the simulator counted, per cluster, in the order of `names`.
    pub fn writes(&self) -> Vec<u64> {
        (self.names.iter())
            .map(|n| self.sim.handle.writes_to(n))
            .collect()
    }
}

/// The `wave` notes of every evidence session under `state`.
pub fn wave_notes(state: &Path) -> Vec<String> {
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
    // Waves of 1, 3 (25%) and 8: index 2 is in the second wave.
    let Some(f) = Fleet::start(test, "waves", 12, &[2]) else {
        return;
    };
    let (t, sim, names) = (&f.t, &f.sim, &f.names);
    let before = f.replicas(&names[0]);
    assert!(before > 0, "the agent runs before the change: {before}");
    t.send_line(&f.command(&names[0], &f.on_the_step()));
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
        let replicas = f.replicas(name);
        match i {
            0 => assert_eq!(replicas, 0, "the canary validated and stays changed"),
            _ => assert_eq!(replicas, before, "{name} is at its count from before"),
        }
    }
    f.leave();
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

/// How many Tabs from the step's landing selection to its change (probe 1).
fn tabs_to_the_change() -> usize {
    use tsgnav::tui::app::Item;
    let (mut lib, _) = tsgnav::load::load_library(&[crate::common::root().join(GUIDE)]);
    tsgnav::cli::refine_roles(&mut lib);
    let id = lib.guides[0]
        .nodes
        .iter()
        .find(|n| n.slug() == STEP)
        .expect("the step")
        .id
        .clone();
    let km = tsgnav::tui::keymap::Keymap::bundled();
    let mut a = tsgnav::tui::App::new(lib, km, tsgnav::tui::theme::Theme::bundled(true));
    tsgnav::tui::navigate::nav_cmd(&mut a, tsgnav::nav::Cmd::Goto(id));
    crate::tui_common::item_index(&a, |i| matches!(i, Item::Probe(0)))
}

fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_single_confirmation_and_the_wave_plan_read_policy_where_the_run_is_built() {
    let test = "the_single_confirmation_and_the_wave_plan_read_policy_where_the_run_is_built";
    let Some(f) = Fleet::start(test, "wavepolicy", 3, &[]) else {
        return;
    };
    let (t, sim, names) = (&f.t, &f.sim, &f.names);
    let (ro, phrased) = (&names[0], &names[1]);
    std::fs::write(
        t.dir.join("config.toml"),
        format!(
            "[[policy]]\nmatch = \"{ro}\"\nread_only = true\n\n[[policy]]\nmatch = \"{phrased}\"\nphrase = \"window open\"\n"
        ),
    )
    .expect("config");
    let launch = |ctx: &str| {
        t.send_line(&format!("clear; {}", f.command(ctx, &f.on_the_step())));
        t.wait_for("the step", |s| s.contains("Strategy: scale the agent down"));
    };
    let tabs = tabs_to_the_change();

    // A read-only context: the change is refused before its confirmation screen, and a
    // wave plan that holds that context is refused too.
    launch(ro);
    for _ in 0..tabs {
        t.keys(&["Tab"]);
    }
    t.keys(&["r"]);
    let refusal = format!("{ro} is read-only by the policy `{ro}`");
    t.wait_for("the read-only refusal", |s| flat(s).contains(&refusal));
    t.keys(&["Escape"]);
    // Typed right after Esc, `:` would read as Alt-: (one escape sequence): wait for the
    // message to close first.
    t.wait_for("the refusal closed", |s| !flat(s).contains(&refusal));
    t.send_line(":waves mc-* 1,rest 2");
    t.wait_for("the plan refused", |s| {
        flat(s).contains(&refusal) && !s.contains("Wave plan")
    });
    assert_eq!(
        sim.handle.writes(),
        0,
        "a read-only policy let a write through"
    );
    t.keys(&["C-c"]);
    t.wait_for("the shell", |s| s.contains("READY$"));

    // A phrase policy: the context's name alone is refused where the confirmation is issued;
    // the name and the phrase run it.
    launch(phrased);
    for _ in 0..tabs {
        t.keys(&["Tab"]);
    }
    t.keys(&["r"]);
    let s = t.wait_for("the confirmation screen", |s| {
        s.contains("Mitigation: confirm before it runs")
    });
    assert!(
        flat(&s).contains(&format!("{phrased} · window open")),
        "the phrase is asked for:\n{s}"
    );
    t.confirm(1, phrased);
    let s = t.wait_for("the refusal", |s| flat(s).contains("is not `"));
    assert!(
        flat(&s).contains(&format!("`{phrased}` is not `{phrased} · window")),
        "{s}"
    );
    assert_eq!(sim.handle.writes_to(phrased), 0, "refused, yet written");
    t.keys(&["C-u"]);
    t.keys(&["-l", &format!("{phrased} . window open")]);
    t.keys(&["Enter"]);
    t.wait_for("the change made", |s| s.contains("OPEN 1"));
    assert_eq!(
        sim.handle.writes_to(phrased),
        1,
        "the phrase typed: one write"
    );
    t.keys(&["C-c"]);
    t.keys(&["C-c"]);
    t.wait_for("the shell", |s| s.contains("READY$"));
}
