//! A change whose prior state cannot be read does not run, and a mitigation stops at its
//! first failed or refused step (between probes and inside one script), saying which steps
//! did not run. The built `tsgnav run --write` against the real kubectl and the simulator.

use serde_json::Value;

use super::sim_support::BlockingSim;

fn run(sim: &BlockingSim, node: &str) -> (Option<i32>, Vec<Value>) {
    let state = tempfile::tempdir().expect("tempdir");
    let file = super::common::root().join("tests/fixtures/stop/steps.md");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .arg("run")
        .arg(format!("{}#{node}", file.display()))
        .args(["--json", "--kubeconfig"])
        .arg(sim.kubeconfig())
        .args([
            "--context",
            "mc-eastus-1",
            "--write",
            "--confirm-target",
            "mc-eastus-1",
        ])
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", state.path())
        .env("HOME", state.path())
        .output()
        .expect("tsgnav runs");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&o.stderr));
    });
    (
        o.status.code(),
        v["results"].as_array().cloned().unwrap_or_default(),
    )
}

fn annotations(sim: &BlockingSim) -> String {
    sim.ok(&[
        "get",
        "deploy",
        "maestro-agent",
        "-n",
        "maestro",
        "-o",
        "jsonpath={.metadata.annotations}",
    ])
}

#[test]
fn a_failed_capture_stops_the_change_and_a_mitigation_stops_at_its_first_failure() {
    let Some(sim) = BlockingSim::start("maestro", "mitigate_stop") else {
        return;
    };
    let writes = || sim.sim.as_ref().expect("running").handle.writes();

    // The prior state of the pod cannot be read (404): the delete is not sent.
    let (code, results) = run(&sim, "delete-a-pod-that-is-already-gone");
    assert_eq!(code, Some(3), "{results:?}");
    let last = results.last().expect("a result");
    assert_eq!(last["status"], "refused", "{last}");
    let e = last["error"].as_str().unwrap_or_default();
    assert!(e.contains("could not be read before the change"), "{e}");
    assert!(
        e.contains("pod/no-such-pod") || e.contains("no-such-pod"),
        "{e}"
    );
    assert_eq!(writes(), 0, "no DELETE reached the simulator");

    // The first step fails; the second is reported as not run, and is not run.
    let (code, results) = run(&sim, "two-steps-the-first-fails");
    assert_eq!(code, Some(3), "{results:?}");
    assert_eq!(results.len(), 2, "{results:?}");
    assert_eq!(results[0]["status"], "failed");
    assert_eq!(results[1]["status"], "refused");
    let e = results[1]["error"].as_str().unwrap_or_default();
    assert!(e.contains("not run: the earlier step"), "{e}");
    assert!(
        e.contains(results[0]["probe"].as_str().unwrap_or("?")),
        "names the step: {e}"
    );
    assert!(!annotations(&sim).contains("tsgnav/second"));

    // Inside one script: the command after the failing one does not run, and it says so.
    let (code, results) = run(&sim, "one-script-its-first-command-fails");
    assert_eq!(code, Some(1), "{results:?}");
    let out = results[0]["output"].as_str().unwrap_or_default();
    assert!(
        out.contains("tsgnav: line 1 failed") && out.contains("did not run"),
        "{out}"
    );
    assert!(!annotations(&sim).contains("tsgnav/after"));
}
