//! Server-side dry runs against `tsgnav::sim` with the real kubectl: `--dry-run=server` on a
//! scale, a delete and a patch is answered like the real write but changes nothing,
//! and the same writes without the flag do change the cluster (so the test can fail).
//! Skips with a SKIP line when kubectl is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use crate::sim_support::BlockingSim;

#[test]
fn server_dry_runs_answer_like_the_write_and_change_nothing() {
    let Some(s) = BlockingSim::start(
        "maestro",
        "server_dry_runs_answer_like_the_write_and_change_nothing",
    ) else {
        return;
    };
    let replicas = || s.agent_replicas(None);
    let before = replicas();
    let out = s.ok(&[
        "scale",
        "deployment",
        "maestro-agent",
        "-n",
        "maestro",
        "--replicas=0",
        "--dry-run=server",
    ]);
    assert!(out.contains("scaled (server dry run)"), "{out}");
    assert_eq!(replicas(), before, "a dry-run scale changes nothing");

    let pods = s.ok(&["get", "pods", "-n", "maestro", "-o", "name"]);
    let pod = pods.lines().next().expect("a pod").to_string();
    let out = s.ok(&["delete", &pod, "-n", "maestro", "--dry-run=server"]);
    assert!(out.contains("deleted (server dry run)"), "{out}");
    assert_eq!(
        s.ok(&["get", "pods", "-n", "maestro", "-o", "name"]),
        pods,
        "still there"
    );

    let works = s.ok(&["get", "manifestwork", "-n", "local-cluster", "-o", "name"]);
    let mw = works.lines().next().expect("a ManifestWork").to_string();
    let finalizers = || {
        s.ok(&[
            "get",
            &mw,
            "-n",
            "local-cluster",
            "-o",
            "jsonpath={.metadata.finalizers}",
        ])
    };
    let had = finalizers();
    assert!(!had.is_empty(), "the ManifestWork carries finalizers");
    let patch = r#"{"metadata":{"finalizers":null}}"#;
    let out = s.ok(&[
        "patch",
        &mw,
        "-n",
        "local-cluster",
        "--type=merge",
        "-p",
        patch,
        "--dry-run=server",
    ]);
    assert!(out.contains("patched"), "{out}");
    assert_eq!(finalizers(), had, "a dry-run patch changes nothing");

    // The same writes without the flag do change the cluster.
    s.ok(&[
        "scale",
        "deployment",
        "maestro-agent",
        "-n",
        "maestro",
        "--replicas=0",
    ]);
    assert_eq!(replicas(), "0");
    s.ok(&[
        "patch",
        &mw,
        "-n",
        "local-cluster",
        "--type=merge",
        "-p",
        patch,
    ]);
    assert_eq!(finalizers(), "");
}
