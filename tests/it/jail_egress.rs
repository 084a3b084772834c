//! The egress door of the jail: a jailed probe reaches the outside only through the session's
//! allow-listing proxy, bridged in as `HTTPS_PROXY`/`HTTP_PROXY`. An allowed host answers; a
//! port or a host that is not allowed gets the refusal line, at the end of the probe's output,
//! and its listener outside sees no connection. curl is told to use the proxy for loopback too
//! (`--noproxy ''`), since the test's servers live on 127.0.0.1.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpListener;

use tsgnav::query::egress::{AllowList, Egress};
use tsgnav::query::shell::ShellExecutor;

use super::jail_escapes::{jail_or_skip, probe, run};

/// A one-shot HTTP server on loopback answering `body`; the listener and its port.
fn server(body: &'static str) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            let mut buf = [0u8; 1024];
            let _ = s.read(&mut buf);
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jailed_probe_leaves_only_through_the_allow_listing_egress_proxy() {
    if !jail_or_skip("a_jailed_probe_leaves_only_through_the_allow_listing_egress_proxy") {
        return;
    }
    let allowed = server("hello-through-egress");
    let other = TcpListener::bind("127.0.0.1:0").expect("bind");
    other.set_nonblocking(true).expect("nonblocking");
    let other_port = other.local_addr().expect("addr").port();
    let allow = format!("http://127.0.0.1:{allowed}");
    let sh = ShellExecutor {
        egress: Some(Egress::new(AllowList::from_urls([allow.as_str()]))),
        ..ShellExecutor::default()
    };
    let code = "curl -sS --noproxy '' \"http://127.0.0.1:$A/\"; echo\n\
                curl -sS --noproxy '' -o /dev/null -w 'other %{http_code}\\n' \"http://127.0.0.1:$B/\"\n\
                curl -sS -o /dev/null -w 'tls %{http_code}\\n' https://evil.example/ || true\n\
                env | grep -c '^HTTPS_PROXY=http://127.0.0.1:'\n";
    let req = probe(
        code,
        &[("A", allowed.to_string()), ("B", other_port.to_string())],
    );
    let (r, out) = run(&sh, req).await;
    assert!(
        r.sandbox.as_deref().is_some_and(|s| s.starts_with("jail")),
        "{:?}",
        r.sandbox
    );
    assert!(
        out.contains("hello-through-egress"),
        "the allowed host answers:\n{out}"
    );
    assert!(
        out.contains("other 403"),
        "the other port gets the proxy's 403:\n{out}"
    );
    for refused in [
        format!("127.0.0.1:{other_port}"),
        "evil.example:443".to_string(),
    ] {
        let line = format!("tsgnav: egress to {refused} refused: not in [sandbox] allow_hosts");
        assert!(out.contains(&line), "no refusal line for {refused}:\n{out}");
    }
    match other.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        x => panic!("a connection reached the port that is not allowed: {x:?}\n{out}"),
    }
}

/// The egress door is no way around the API proxy: a DELETE sent through it, by CONNECT and
/// by plain HTTP, to the simulated API server's real port is refused, and the simulator
/// counts no write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_egress_door_does_not_reach_the_api_server_behind_the_proxy() {
    if !jail_or_skip("the_egress_door_does_not_reach_the_api_server_behind_the_proxy") {
        return;
    }
    let sim = super::sim_support::start("maestro", Some(1)).await;
    let api = sim.handle.url.clone();
    let prometheus = format!("http://127.0.0.1:{}", server("prometheus"));
    let sh = ShellExecutor {
        egress: Some(Egress::new(AllowList::from_urls([prometheus.as_str()]))),
        ..ShellExecutor::default()
    };
    let code = "curl -sS --noproxy '' -X DELETE -o /dev/null -w 'plain %{http_code}\\n' \"$API/api/v1/namespaces/maestro/pods/x\"\n\
                curl -sS --noproxy '' -p -X DELETE -o /dev/null -w 'tunnel %{http_code}\\n' \"$API/api/v1/namespaces/maestro/pods/x\" || true\n";
    let (_, out) = run(&sh, probe(code, &[("API", api.clone())])).await;
    let hostport = api.trim_start_matches("http://");
    assert!(out.contains("plain 403"), "{out}");
    assert!(
        out.contains(&format!("tsgnav: egress to {hostport} refused")),
        "{out}"
    );
    assert_eq!(sim.handle.writes(), 0, "{out}");
}
