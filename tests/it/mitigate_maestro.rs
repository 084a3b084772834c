//! End to end: Strategy 2 of the bundled Maestro guide through `tsgnav run --write
//! --confirm-target …` against `tsgnav::sim` with the real kubectl. Refused without the flags
//! (saying what to add) and with the wrong target; with the right one the prior replica count
//! is captured, the agent scaled to 0, the ManifestWork finalizers cleared and the open
//! mitigation listed; the restore gets the captured count and closes it.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use super::mitigate_support::kubectl;
use super::sim_support::{self, STUCK_ID};

const GUIDE: &str = "tsg/maestro-stuck-deletion.md";
const STRATEGY: &str = "strategy-2-scale-the-maestro-agent-down-clean-up-scale-it-back";
const RESTORE: &str = "restore-the-maestro-agent";

async fn tsgnav(state: &Path, kc: &Path, ctx: &str, node: &str, extra: &[&str]) -> Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .args(["run", &format!("{GUIDE}#{node}"), "--context", ctx])
        .arg("--kubeconfig")
        .arg(kc)
        .args(extra)
        .current_dir(super::common::root())
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", state)
        .env("HOME", state)
        .output()
        .await
        .expect("tsgnav runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Every record of every session under `state`.
fn records(state: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for d in std::fs::read_dir(state).expect("state dir").flatten() {
        let Ok(j) = std::fs::read_to_string(d.path().join("journal.jsonl")) else {
            continue;
        };
        out.extend(
            j.lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok()),
        );
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn maestro_strategy_2_scale_down_clean_up_and_restore_with_the_captured_count() {
    let test = "maestro_strategy_2_scale_down_clean_up_and_restore_with_the_captured_count";
    let Some(kc_bin) = sim_support::kubectl(test) else {
        return;
    };
    let sim = sim_support::start("maestro", Some(2)).await;
    let (kc, ctx) = (sim.kubeconfig.clone(), sim.handle.clusters[0].clone());
    let state = tempfile::tempdir().expect("tempdir");
    let get = |args: &[&str]| {
        let mut a = args.to_vec();
        a.extend(["--context", ctx.as_str()]);
        kubectl(&kc_bin, &kc, &a)
    };
    let replicas = || {
        get(&[
            "get",
            "deployment",
            "maestro-agent",
            "-n",
            "maestro",
            "-o",
            "jsonpath={.spec.replicas}",
        ])
    };
    let works = || get(&["get", "manifestwork", "-n", "local-cluster", "-o", "name"]);
    let before = replicas();
    assert!(before.parse::<u32>().is_ok_and(|n| n > 0), "{before}");
    assert!(works().contains(STUCK_ID));
    let var = format!("CLUSTER_ID={STUCK_ID}");

    let o = tsgnav(state.path(), &kc, &ctx, STRATEGY, &["--var", &var]).await;
    let (out, _) = text(&o);
    assert!(
        out.contains(&format!("add `--write --confirm-target {ctx}`")),
        "{out}"
    );
    let o = tsgnav(
        state.path(),
        &kc,
        &ctx,
        STRATEGY,
        &["--var", &var, "--write"],
    )
    .await;
    assert!(
        text(&o)
            .0
            .contains(&format!("add `--confirm-target {ctx}`")),
        "{:?}",
        text(&o)
    );
    let wrong = &sim.handle.clusters[1];
    let o = tsgnav(
        state.path(),
        &kc,
        &ctx,
        STRATEGY,
        &["--var", &var, "--write", "--confirm-target", wrong],
    )
    .await;
    let (out, _) = text(&o);
    assert!(
        out.contains(&format!(
            "the target typed back, `{wrong}`, is not the target"
        )),
        "{out}"
    );
    assert_eq!(
        replicas(),
        before,
        "nothing ran without the right confirmation"
    );
    assert!(works().contains(STUCK_ID));

    let o = tsgnav(
        state.path(),
        &kc,
        &ctx,
        STRATEGY,
        &["--var", &var, "--write", "--confirm-target", &ctx],
    )
    .await;
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert_eq!(replicas(), "0");
    assert!(
        !works().contains(STUCK_ID),
        "ManifestWorks left:\n{}",
        works()
    );
    let open = "open mitigations:\n  - deployment/maestro-agent -n maestro scaled to 0 at ";
    assert!(err.contains(open), "{err}");
    assert!(
        err.contains(&format!("was {before} (restore with --replicas={before})")),
        "{err}"
    );
    let recs = records(state.path());
    let prior: Vec<&Value> = recs.iter().filter(|r| r["type"] == "prior_state").collect();
    assert_eq!(prior.len(), 1, "{prior:?}");
    assert_eq!(prior[0]["value"], before.as_str());
    assert_eq!(prior[0]["field"], "spec.replicas");
    assert_eq!(prior[0]["resource"], "deployment/maestro-agent -n maestro");
    let confirmations: Vec<&Value> = recs
        .iter()
        .filter(|r| r["type"] == "confirmation")
        .collect();
    assert_eq!(
        confirmations.len(),
        3,
        "scale and two clean-ups: {confirmations:?}"
    );
    assert!(confirmations.iter().all(|c| c["target"] == ctx.as_str()));
    assert_eq!(
        confirmations[0]["command"],
        "kubectl scale deployment maestro-agent -n maestro --replicas=0"
    );
    let pre = confirmations[0]["preconditions"].as_array().map(Vec::len);
    assert_eq!(
        pre,
        Some(3),
        "the three checklist items (the lead-in of Preconditions is not one)"
    );

    let o = tsgnav(
        state.path(),
        &kc,
        &ctx,
        RESTORE,
        &["--write", "--confirm-target", &ctx],
    )
    .await;
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(
        err.contains(&format!(
            "ORIG_REPLICAS={before}: the count captured before"
        )),
        "{err}"
    );
    assert_eq!(replicas(), before, "restored to the captured count");
    assert!(err.contains("open mitigations: none"), "{err}");
    sim.handle.shutdown().await;
}
