//! Tests of the HTTP plumbing against a real loopback server.

use std::io::{BufRead, BufReader, Write};
use std::time::Duration;

use super::*;

/// A keep-alive HTTP/1.1 server on a thread of its own (no tokio runtime of the test's):
/// every request gets `ok`, and the connection stays open for the next one.
fn keep_alive_server() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut out = conn.try_clone().expect("clone");
                let mut lines = BufReader::new(conn);
                let mut line = String::new();
                while lines.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
                    if line == "\r\n" {
                        let answer = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
                        if out.write_all(answer.as_bytes()).is_err() {
                            return;
                        }
                    }
                    line.clear();
                }
            });
        }
    });
    format!("http://{addr}/")
}

/// The navigator runs probes on runtimes of their own. A client (and its pool of kept-alive
/// connections) used on one must not be what another runtime's backend gets: a connection is
/// driven by a task of the runtime that opened it, so when that runtime is idle (or gone) a
/// request on it waits for nothing, or fails. Fails (times out) with a process-wide client.
#[test]
fn backends_on_runtimes_of_their_own_each_reach_the_same_server() {
    let url = keep_alive_server();
    // Three kept, not running: like runtimes whose probes have ended but which are not
    // dropped yet. Then two more after they are gone.
    let idle: Vec<_> = (0..3)
        .map(|round| get_on_a_new_runtime(&url, round))
        .collect();
    drop(idle);
    for round in 3..5 {
        get_on_a_new_runtime(&url, round);
    }
}

/// A GET of `url` by a new backend client on a new current-thread runtime, which must answer
/// `ok`; the runtime is returned (not running any more).
fn get_on_a_new_runtime(url: &str, round: usize) -> tokio::runtime::Runtime {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let client = client().expect("client");
    let got = rt.block_on(fetch(
        client.get(url),
        url,
        Duration::from_secs(5),
        &Cancel::new(),
    ));
    match got {
        Ok(body) => assert_eq!((body.status, body.bytes.as_slice()), (200, &b"ok"[..])),
        Err(e) => panic!("round {round}: {e}"),
    }
    rt
}
