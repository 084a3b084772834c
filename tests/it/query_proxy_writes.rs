//! The read-only API proxy with the real `kubectl`: a port-forward carries bytes both ways
//! through it, `kubectl exec` runs a read-only command in the simulated pod and is refused a
//! writing one, and a confirmed run writes to its own context only.

use std::io::{BufRead, BufReader, Read, Write};
use std::time::Duration;

use super::query_proxy::{refused, Fixture, AGENT_POD, DENIED};

#[test]
fn a_port_forward_carries_bytes_both_ways_through_the_proxy() {
    let Some(f) = Fixture::start("a_port_forward_carries_bytes_through_the_proxy", 1) else {
        return;
    };
    let (_g, kc) = f.grant(&f.context(0), false);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let mut child = f.spawn(
        &kc,
        &[
            "port-forward",
            "-n",
            "maestro",
            "svc/maestro",
            &format!("{port}:8000"),
        ],
    );
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("reads");
    let raw = (|| -> std::io::Result<Vec<u8>> {
        let mut c = std::net::TcpStream::connect(("127.0.0.1", port))?;
        c.set_read_timeout(Some(Duration::from_secs(20)))?;
        write!(
            c,
            "GET /api/maestro/v1/resource-bundles HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        )?;
        let mut raw = Vec::new();
        c.read_to_end(&mut raw)?;
        Ok(raw)
    })();
    let _ = child.kill();
    let out = child.wait_with_output().expect("ends");
    assert!(
        first.contains(&format!("Forwarding from 127.0.0.1:{port}")),
        "{first}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let raw =
        String::from_utf8_lossy(&raw.expect("a request through the forwarded port")).into_owned();
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    assert!(raw.contains("ResourceBundleList"), "{raw}");
}

#[test]
fn a_confirmed_run_writes_to_its_context_only() {
    let Some(f) = Fixture::start("a_confirmed_run_writes_to_its_context_only", 2) else {
        return;
    };
    let (a, b) = (f.context(0), f.context(1));
    let (ga, kca) = f.grant(&a, true);
    let (gb, kcb) = f.grant(&b, false);
    // The kubeconfig of A's confirmed run holds A only.
    let o = f.run(
        &kca,
        &["--context", &b, "delete", "pod", AGENT_POD, "-n", "maestro"],
    );
    assert!(!o.status.success());
    let o = f.run(&kca, &["delete", "pod", AGENT_POD, "-n", "maestro"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A write aimed at B through a pass the confirmation does not cover is refused.
    let o = f.run(&kcb, &["delete", "pod", AGENT_POD, "-n", "maestro"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains(&format!("{DENIED} {b}")));
    // A kubeconfig the proxy does not hold gets nothing through.
    let forged = f.dir.path().join("forged");
    let text = std::fs::read_to_string(&kca).expect("kubeconfig");
    let at = text.find("/p/").expect("token in the server URL") + 3;
    let token = text[at..at + 64].to_string();
    std::fs::write(&forged, text.replace(&token, &"0".repeat(64))).expect("write");
    let o = f.run(
        &forged,
        &["delete", "pod", "maestro-5d7f8b9c4-k2v7p", "-n", "maestro"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");

    let pods = |ctx: &str| f.direct(&["--context", ctx, "get", "pods", "-n", "maestro"]);
    assert!(
        !pods(&a).contains(AGENT_POD),
        "the confirmed write reached A"
    );
    assert!(pods(&a).contains("maestro-5d7f8b9c4-k2v7p"));
    assert!(pods(&b).contains(AGENT_POD), "nothing reached B");
    assert!(refused(&ga).is_empty());
    assert_eq!(refused(&gb).len(), 1);
    // Once the run ends, its pass is gone.
    drop(ga);
    let o = f.run(&kca, &["get", "pods", "-n", "maestro"]);
    assert!(!o.status.success());
}

/// `kubectl exec` through the proxy: the upgrade is spliced and the simulated pod answers a
/// read-only command; a command that writes gets the 403 before any upgrade, in a read-only
/// run, and its stream never opens.
#[test]
fn kubectl_exec_runs_a_read_only_command_and_is_refused_a_writing_one() {
    let Some(f) = Fixture::start("kubectl_exec_through_the_proxy", 1) else {
        return;
    };
    let (g, kc) = f.grant(&f.context(0), false);
    let read = f.run(&kc, &["exec", "-n", "maestro", AGENT_POD, "--", "hostname"]);
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&read.stdout).trim(), AGENT_POD);
    let write = f.run(
        &kc,
        &[
            "exec", "-n", "maestro", AGENT_POD, "--", "rm", "-rf", "/data",
        ],
    );
    assert!(!write.status.success(), "a writing exec ran");
    let err = String::from_utf8_lossy(&write.stderr);
    assert!(err.contains(DENIED), "{err}");
    // kubectl asks for the WebSocket upgrade (GET) and falls back to SPDY (POST): both are
    // refused, and nothing else was.
    let refusals = refused(&g);
    assert!(
        !refusals.is_empty()
            && refusals
                .iter()
                .all(|r| r.contains("/exec?command=rm&command=-rf")),
        "{refusals:?}"
    );
}
