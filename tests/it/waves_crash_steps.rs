//! A wave run killed inside a change step of two probes, against `tsgnav::sim` with the real
//! kubectl: the first probe scaled the agent down and sleeps, the kill lands before the second
//! probe's own capture. The resumed run must capture what the second probe changes (it was never
//! captured) and keep the agent's value from before the first change; a restore then brings
//! both deployments back. And within one run, an object two probes change keeps its first value.

use std::path::{Path, PathBuf};

use super::super::sim_support;
use super::super::waves::{notes, records};
use super::{command, killed_after_the_first_write, prior_states, state_folder};

/// The guide: the agent scaled down (then `$SETTLE` seconds of sleep), then the sweeper; the
/// validation wants the agent stopped.
fn two_probe_guide(dir: &Path, second: &str) -> PathBuf {
    let text = format!(
        "# Fleet: pause the agent and its sweeper\n\n# Mitigation\n\n\
         ## Strategy: scale the agent down\n\n\
         **Preconditions:** the maintenance window is open.\n\n\
         ```bash {{name=scale-agent timeout=90s}}\n\
         kubectl scale deployment/maestro-agent -n maestro --replicas=0 && sleep \"${{SETTLE}}\"\n\
         ```\n\n\
         ```bash {{name=scale-second}}\n{second}\n```\n\n\
         ### Validation: the agent has stopped\n\n\
         ```bash {{name=agent-stopped timeout=20s}}\n\
         test \"$(kubectl get deployment maestro-agent -n maestro -o jsonpath='{{.status.replicas}}')\" = 0\n\
         ```\n"
    );
    let guide = dir.join("two.md");
    std::fs::write(&guide, text).expect("guide");
    guide
}

/// The maestro scenario with a second deployment, `maestro-sweeper`, at 2 replicas.
fn with_sweeper(mut s: tsgnav::sim::Scenario) -> tsgnav::sim::Scenario {
    let agent = (s.objects.iter())
        .find(|o| o["kind"] == "Deployment" && o["metadata"]["name"] == "maestro-agent")
        .expect("the agent deployment")
        .clone();
    let text = serde_json::to_string(&agent)
        .expect("json")
        .replace("maestro-agent", "maestro-sweeper");
    let mut sweeper: serde_json::Value = serde_json::from_str(&text).expect("json");
    sweeper["spec"]["replicas"] = 2.into();
    s.objects.push(sweeper);
    s
}

async fn replicas(kc: &Path, ctx: &str, name: &str) -> i32 {
    use k8s_openapi::api::apps::v1::Deployment;
    let client = sim_support::client(kc, Some(ctx)).await;
    let api: kube::Api<Deployment> = kube::Api::namespaced(client, "maestro");
    let d = api.get(name).await.expect("deployment");
    d.spec.replicas.unwrap_or(-1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_probe_the_crash_came_before_is_captured_when_the_run_resumes() {
    let test = "a_probe_the_crash_came_before_is_captured_when_the_run_resumes";
    if sim_support::kubectl(test).is_none() {
        return;
    }
    let mut s = with_sweeper(sim_support::scenario("maestro", Some(2)));
    let names = s.clusters.clone();
    s.fail_validation = vec![names[0].clone()];
    let sim = sim_support::start_scenario(s).await;
    let kc = sim.kubeconfig.clone();
    let state = state_folder();
    let second = "kubectl scale deployment/maestro-sweeper -n maestro --replicas=0";
    let guide = two_probe_guide(state.path(), second);
    let agent = replicas(&kc, &names[0], "maestro-agent").await;
    assert!(agent > 0, "the agent runs: {agent}");
    assert_eq!(replicas(&kc, &names[0], "maestro-sweeper").await, 2);
    let confirm = [
        "--waves",
        "1,rest",
        "--write",
        "--confirm-target",
        "mc-* · 2 contexts",
    ];

    // The agent's scale went through; its probe sleeps: the sweeper is neither captured nor
    // changed when the kill lands.
    killed_after_the_first_write(&sim, state.path(), &guide, &confirm, &names[0]).await;
    assert_eq!(replicas(&kc, &names[0], "maestro-agent").await, 0);
    assert_eq!(replicas(&kc, &names[0], "maestro-sweeper").await, 2);
    assert_eq!(
        prior_states(state.path(), "2"),
        0,
        "the sweeper was not captured yet"
    );

    let o = command(state.path(), &guide, &kc, &confirm)
        .args(["--resume", "latest", "--var", "SETTLE=0"])
        .args(["--on-failure", "restore-context"])
        .output()
        .await
        .expect("tsgnav runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("wave 1/2 · {} · restored", names[0])),
        "{err}"
    );
    assert_eq!(
        replicas(&kc, &names[0], "maestro-agent").await,
        agent,
        "the agent is back at its count from before the first change:\n{err}"
    );
    assert_eq!(
        replicas(&kc, &names[0], "maestro-sweeper").await,
        2,
        "the sweeper, changed only by the resumed run, is back at its count too:\n{err}"
    );
    // The resumed run journaled the sweeper's capture before changing it, and did not
    // capture the agent again (the only agent value in the journal besides the earlier
    // one is the restore's own read of 0).
    let captured = format!(
        "wave 1/2 · {} · captured · deployment/maestro-sweeper -n maestro spec.replicas=2",
        names[0]
    );
    assert!(
        notes(&records(state.path())).contains(&captured),
        "{:?}",
        notes(&records(state.path()))
    );
    assert_eq!(prior_states(state.path(), "2"), 1, "{err}");
    assert_eq!(sim.handle.writes_to(&names[1]), 0, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_two_probes_change_is_restored_to_its_value_before_the_first() {
    let test = "an_object_two_probes_change_is_restored_to_its_value_before_the_first";
    if sim_support::kubectl(test).is_none() {
        return;
    }
    let mut s = sim_support::scenario("maestro", Some(1));
    let names = s.clusters.clone();
    s.fail_validation = vec![names[0].clone()];
    let sim = sim_support::start_scenario(s).await;
    let kc = sim.kubeconfig.clone();
    let state = state_folder();
    // The second probe changes the agent again: its own read would see the first one's 0.
    let second = "kubectl scale deployment/maestro-agent -n maestro --replicas=0";
    let guide = two_probe_guide(state.path(), second);
    let agent = replicas(&kc, &names[0], "maestro-agent").await;
    assert!(agent > 0, "the agent runs: {agent}");
    let o = command(state.path(), &guide, &kc, &[])
        .args(["--waves", "1", "--write", "--var", "SETTLE=0"])
        .args(["--confirm-target", "mc-* · 1 context"])
        .args(["--on-failure", "restore-context"])
        .output()
        .await
        .expect("tsgnav runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("· restored"), "{err}");
    assert_eq!(
        replicas(&kc, &names[0], "maestro-agent").await,
        agent,
        "restored to the count from before the first probe, not to the 0 the second saw:\n{err}"
    );
}
