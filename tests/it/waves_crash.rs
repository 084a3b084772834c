//! The prior state of a wave run that crashed, against `tsgnav::sim` with the real kubectl:
//! tsgnav killed with SIGKILL right after a context's change (its change probe sleeps after
//! the scale, so the kill lands between the change and its validation), then `--resume`:
//! the resumed run does not capture that context again, and a restore brings it back to the
//! count from before the first change (read from the simulator). "Restore all" in a resumed
//! run covers what the earlier run changed too. And a capture that cannot be journaled: the
//! change does not run (no write reaches the simulator).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::AsyncBufReadExt;

use super::sim_support;
use super::waves::{notes, records, spec_replicas};

const STEP: &str = "strategy-scale-the-agent-down";

/// The fixture guide with a change that sleeps `$SETTLE` seconds after the scale.
fn settling_guide(dir: &Path) -> PathBuf {
    let text =
        std::fs::read_to_string(super::common::root().join("tests/fixtures/waves/pause-agent.md"))
            .expect("guide");
    let text = text
        .replace(
            "```bash {name=scale-down}",
            "```bash {name=scale-down timeout=90s}",
        )
        .replace("--replicas=0\n", "--replicas=0 && sleep \"${SETTLE}\"\n");
    assert!(text.contains("sleep \"${SETTLE}\""), "the fixture changed");
    let guide = dir.join("settle.md");
    std::fs::write(&guide, text).expect("guide");
    guide
}

/// `tsgnav run GUIDE#STEP --contexts 'mc-*' …` with its state under `state`.
pub(super) fn command(
    state: &Path,
    guide: &Path,
    kc: &Path,
    extra: &[&str],
) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"));
    c.args(["run", &format!("{}#{STEP}", guide.display())])
        .args(["--contexts", "mc-*", "--kubeconfig"])
        .arg(kc)
        .args(extra)
        .env("TSGNAV_CONFIG", state.join("config.toml"))
        .env("TSGNAV_STATE_DIR", state)
        .env("HOME", state);
    c
}

/// Waits (polling the simulator's counter) until `name` has `n` writes.
async fn written(sim: &sim_support::AsyncSim, name: &str, n: u64) {
    let until = Instant::now() + Duration::from_secs(90);
    while sim.handle.writes_to(name) < n {
        assert!(Instant::now() < until, "{name} never got {n} writes");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A wave run (its change sleeping 30 s after the scale) killed with SIGKILL once `first`,
/// the canary, got its first write.
pub(super) async fn killed_after_the_first_write(
    sim: &sim_support::AsyncSim,
    state: &Path,
    guide: &Path,
    confirm: &[&str],
    first: &str,
) {
    let mut run = command(state, guide, &sim.kubeconfig, confirm)
        .args(["--var", "SETTLE=30"])
        .stderr(Stdio::null())
        .spawn()
        .expect("tsgnav starts");
    written(sim, first, 1).await;
    run.start_kill().expect("SIGKILL");
    let _ = run.wait().await;
}

/// A state folder with an empty config file.
pub(super) fn state_folder() -> tempfile::TempDir {
    let state = tempfile::tempdir().expect("tempdir");
    std::fs::write(state.path().join("config.toml"), "").expect("config");
    state
}

pub(super) fn prior_states(state: &Path, value: &str) -> usize {
    (records(state).iter())
        .filter(|r| r["type"] == "prior_state" && r["value"] == value)
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_killed_before_its_validation_is_restored_to_the_count_from_before_it() {
    let test = "a_change_killed_before_its_validation_is_restored_to_the_count_from_before_it";
    if sim_support::kubectl(test).is_none() {
        return;
    }
    let mut s = sim_support::scenario("maestro", Some(3));
    let names = s.clusters.clone();
    // The canary never settles: once resumed, its validation fails and it is restored.
    s.fail_validation = vec![names[0].clone()];
    let sim = sim_support::start_scenario(s).await;
    let kc = sim.kubeconfig.clone();
    let state = state_folder();
    let guide = settling_guide(state.path());
    let before = spec_replicas(&kc, &names[0]).await;
    assert!(before > 0, "the agent runs: {before}");
    let confirm = [
        "--waves",
        "1,rest",
        "--write",
        "--confirm-target",
        "mc-* · 3 contexts",
    ];

    // The scale went through; the probe sleeps: the kill lands before the validation.
    killed_after_the_first_write(&sim, state.path(), &guide, &confirm, &names[0]).await;
    assert_eq!(
        spec_replicas(&kc, &names[0]).await,
        0,
        "the change was made"
    );
    assert_eq!(
        prior_states(state.path(), &before.to_string()),
        1,
        "the count from before the change is in the journal, though the run was killed"
    );
    let captured = format!(
        "wave 1/2 · {} · captured · deployment/maestro-agent -n maestro spec.replicas={before}",
        names[0]
    );
    assert!(notes(&records(state.path())).contains(&captured));

    let o = command(state.path(), &guide, &kc, &confirm)
        .args(["--resume", "latest", "--var", "SETTLE=0"])
        .args(["--on-failure", "restore-context"])
        .output()
        .await
        .expect("tsgnav runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let plan = format!(
        "1 to run again were captured by that run before their first change: not captured \
         again; a restore brings each back to that value\n    {}: deployment/maestro-agent -n \
         maestro spec.replicas={before}",
        names[0]
    );
    assert!(err.contains(&plan), "{err}");
    assert!(
        err.contains(&format!("wave 1/2 · {} · restored", names[0])),
        "{err}"
    );
    assert_eq!(
        spec_replicas(&kc, &names[0]).await,
        before,
        "restored to the count from before the first change, not to the changed 0:\n{err}"
    );
    // The change again, then the restore; nothing past the failing canary.
    assert_eq!(sim.handle.writes_to(&names[0]), 3, "{err}");
    assert_eq!(
        (
            sim.handle.writes_to(&names[1]),
            sim.handle.writes_to(&names[2])
        ),
        (0, 0)
    );
    // The resumed change was not captured again: the only new capture is the restore's own
    // (of the 0 it found). The value from before is in both sessions: captured in the killed
    // one, carried (as the same typed record) into the resumed one.
    assert_eq!(prior_states(state.path(), &before.to_string()), 2, "{err}");
    assert_eq!(prior_states(state.path(), "0"), 1, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restore_all_after_a_resume_brings_back_what_the_killed_run_changed_too() {
    let test = "restore_all_after_a_resume_brings_back_what_the_killed_run_changed_too";
    if sim_support::kubectl(test).is_none() {
        return;
    }
    let mut s = sim_support::scenario("maestro", Some(4));
    let names = s.clusters.clone();
    s.fail_validation = vec![names[3].clone()];
    let sim = sim_support::start_scenario(s).await;
    let kc = sim.kubeconfig.clone();
    let state = state_folder();
    let guide = settling_guide(state.path());
    let mut before = Vec::new();
    for n in &names {
        before.push(spec_replicas(&kc, n).await);
    }
    // Waves of one: killed once the second context validated.
    let confirm = [
        "--write",
        "--confirm-target",
        "mc-* · 4 contexts",
        "--var",
        "SETTLE=0",
    ];
    let mut first = command(state.path(), &guide, &kc, &confirm)
        .args(["--waves", "1"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("tsgnav starts");
    let mut lines = tokio::io::BufReader::new(first.stderr.take().expect("stderr")).lines();
    let second_ok = format!("wave 2/4 · {} · ok", names[1]);
    let mut seen = Vec::new();
    while let Ok(Some(l)) = lines.next_line().await {
        let stop = l == second_ok;
        seen.push(l);
        if stop {
            first.start_kill().expect("SIGKILL");
            break;
        }
    }
    let _ = first.wait().await;
    assert!(seen.contains(&second_ok), "{seen:?}");

    // Resumed in waves of 1 and the rest: the last context fails, restore-all.
    let confirm = [
        "--write",
        "--confirm-target",
        "mc-* · 2 contexts",
        "--var",
        "SETTLE=0",
    ];
    let o = command(state.path(), &guide, &kc, &confirm)
        .args(["--resume", "latest", "--waves", "1,rest"])
        .args(["--on-failure", "restore-all"])
        .output()
        .await;
    let o = o.expect("tsgnav runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("resuming: 2 contexts validated in that session"),
        "{err}"
    );
    for (i, n) in names.iter().enumerate() {
        assert!(
            err.contains(&format!("{n} · restored")),
            "{n} not restored:\n{err}"
        );
        assert_eq!(
            spec_replicas(&kc, n).await,
            before[i],
            "{n} is not back at its count from before the first change:\n{err}"
        );
    }
    // The earlier run's contexts: changed once by it, restored once by this run.
    assert_eq!(sim.handle.writes_to(&names[0]), 2, "{err}");
    assert_eq!(sim.handle.writes_to(&names[1]), 2, "{err}");
}

#[path = "waves_crash_journal.rs"]
mod journal;
#[path = "waves_crash_steps.rs"]
mod steps;
