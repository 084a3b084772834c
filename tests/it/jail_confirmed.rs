//! A confirmed change runs in the jail too: with a confirmation for context A, its own delete
//! of one pod reaches A through the proxy and its grant; ten ways to reach context B instead
//! (another kubeconfig by `printf -v`, `+=`, a `for` loop or a nameref, `--kubeconfig`,
//! `--server`, `--context` after tsgnav's own, curl, `/dev/tcp`, python) fail, each with a
//! message that says why (B is no context of the probe's kubeconfig; B's port is closed to
//! it: Landlock refuses the connect, and the network namespace has nothing there anyway), and the simulator counts exactly the one confirmed write.

use tsgnav::query::shell::ShellExecutor;

use super::jail_escapes::{jail_or_skip, run};
use super::mitigate_support::{confirm, request};

const POD: &str = "maestro-agent-6c9d8b7f5-hx4tq";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmed_change_reaches_its_context_and_nothing_else() {
    if !jail_or_skip("a_confirmed_change_reaches_its_context_and_nothing_else") {
        return;
    }
    let Some(_) = super::sim_support::kubectl("a_confirmed_change_reaches_its_context") else {
        return;
    };
    let sim = super::sim_support::start("maestro", Some(2)).await;
    let (a, b) = (
        sim.handle.clusters[0].clone(),
        sim.handle.clusters[1].clone(),
    );
    // Another kubeconfig for B where the jail shows it (read-only): reading it is allowed,
    // reaching its server is not.
    let shown = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let other = sim
        .handle
        .write_kubeconfig(&shown.path().join("other"))
        .expect("kubeconfig");
    let b_url = sim.handle.cluster_url(&b);
    let port = sim
        .handle
        .url
        .rsplit(':')
        .next()
        .unwrap_or_default()
        .to_string();
    let del = format!("delete pod {POD} -n maestro --context {b}");
    let code = format!(
        "kubectl delete pod {POD} -n maestro\n\
         printf -v KUBECONFIG '%s' \"$OTHER\"; kubectl {del} || echo W1-FAILED\n\
         KUBECONFIG+=\":$OTHER\"; kubectl {del} || echo W2-FAILED\n\
         for KUBECONFIG in \"$OTHER\"; do kubectl {del} || echo W3-FAILED; done\n\
         declare -n ref=KUBECONFIG; ref=\"$OTHER\"; kubectl {del} || echo W4-FAILED\n\
         command kubectl --kubeconfig \"$OTHER\" {del} || echo W5-FAILED\n\
         command kubectl --server '{b_url}' --token x --insecure-skip-tls-verify delete pod {POD} -n maestro || echo W6-FAILED\n\
         unset -n ref; export KUBECONFIG=$ORIG; kubectl {del} || echo W7-FAILED\n\
         curl -s --max-time 2 -X DELETE '{b_url}/api/v1/namespaces/maestro/pods/{POD}' || echo W8-FAILED\n\
         (exec 3<>/dev/tcp/127.0.0.1/{port}) || echo W9-FAILED\n\
         /usr/bin/python3 -c 'import urllib.request as u; u.urlopen(u.Request(\"{b_url}/api/v1/namespaces/maestro/pods/{POD}\", method=\"DELETE\"), timeout=2)' 2>&1 | tail -1 || echo W10-FAILED\n"
    );
    let mut req = request(
        &code,
        "OTHER",
        &other.to_string_lossy(),
        &a,
        Some(&sim.kubeconfig),
    );
    req.bindings
        .insert("ORIG".into(), "/tmp/tsgnav-grant/kubeconfig".into());
    req.confirmation = Some(confirm(&req, &a));
    let writes = sim.handle.writes();
    let (r, out) = run(&ShellExecutor::default(), req).await;
    assert!(
        r.sandbox.as_deref().unwrap_or_default().starts_with("jail"),
        "{:?}",
        r.sandbox
    );
    assert!(
        out.contains(&format!("pod \"{POD}\" deleted")),
        "the confirmed write passed: {out}"
    );
    for n in 1..=10 {
        assert!(
            out.contains(&format!("W{n}-FAILED")),
            "way {n} got through: {out}"
        );
    }
    // Why: B is no context of the probe's kubeconfig; B's server cannot be reached.
    assert!(
        out.contains(&format!("error: context \"{b}\" does not exist")),
        "{out}"
    );
    let port_line = format!("dial tcp 127.0.0.1:{port}: connect: permission denied");
    assert!(out.contains(&port_line), "{out}");
    assert!(
        out.contains(&format!("/dev/tcp/127.0.0.1/{port}: Permission denied")),
        "{out}"
    );
    assert_eq!(
        sim.handle.writes(),
        writes + 1,
        "exactly the confirmed write: {out}"
    );
}
