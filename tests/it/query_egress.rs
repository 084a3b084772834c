//! The egress proxy with the real curl: a loopback HTTP server the test starts is reached
//! through it when its `host:port` is allowed (plain HTTP, and a CONNECT tunnel), and every
//! other port or host is refused with the line that names it, recorded in the probe's
//! ticket; the unix-socket listener tunnels the same way.

use std::io::{Read, Write};
use std::process::Command;

use tsgnav::query::egress::{AllowList, Egress};

/// A loopback HTTP server answering every request with `body`; its port.
fn server(body: &'static str) -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for mut c in l.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = c.read(&mut buf);
            let _ = write!(
                c,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

fn curl(args: &[&str]) -> (bool, String) {
    let o = Command::new("curl")
        .args(["-sS", "--max-time", "20"])
        .args(args)
        .env_remove("http_proxy")
        .env_remove("HTTPS_PROXY")
        .output()
        .expect("curl runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.success(), text)
}

#[test]
fn allowed_hosts_pass_and_every_other_is_refused_with_the_line() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let (open, closed) = (server("allowed-body"), server("never-seen"));
    let egress = Egress::new(AllowList::from_urls([
        format!("http://127.0.0.1:{open}").as_str()
    ]));
    let ticket = rt.block_on(egress.ticket_tcp()).expect("listens");
    let proxy = format!("http://{}", ticket.tcp_addr().expect("tcp"));
    let (ok, out) = curl(&["-x", &proxy, &format!("http://127.0.0.1:{open}/x")]);
    assert!(ok && out.contains("allowed-body"), "{out}");
    let (ok, out) = curl(&["-p", "-x", &proxy, &format!("http://127.0.0.1:{open}/x")]);
    assert!(ok && out.contains("allowed-body"), "tunnel: {out}");
    let line = |hp: &str| {
        format!("tsgnav: egress to {hp} refused: not in [sandbox] allow_hosts; add it there if this probe needs it")
    };
    let (ok, out) = curl(&["-x", &proxy, &format!("http://127.0.0.1:{closed}/")]);
    assert!(!out.contains("never-seen"), "{out}");
    assert!(
        out.contains(&line(&format!("127.0.0.1:{closed}"))),
        "{ok} {out}"
    );
    let (ok, out) = curl(&["-p", "-x", &proxy, &format!("http://127.0.0.1:{closed}/")]);
    assert!(!ok && !out.contains("never-seen"), "{out}");
    let (ok, _) = curl(&["-x", &proxy, "https://evil.example/"]);
    assert!(!ok);
    assert_eq!(
        ticket.report(),
        [
            line(&format!("127.0.0.1:{closed}")),
            line(&format!("127.0.0.1:{closed}")),
            line("evil.example:443"),
        ]
        .map(|l| format!("{l}\n"))
        .concat()
    );
    assert_eq!(ticket.decisions().len(), 5);
    // A port-forward opened later is let through from then on.
    egress.allow("127.0.0.1", closed);
    let (ok, out) = curl(&["-x", &proxy, &format!("http://127.0.0.1:{closed}/")]);
    assert!(ok && out.contains("never-seen"), "{out}");
}

#[test]
fn the_unix_socket_listener_tunnels_allowed_hosts_only() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let open = server("over-the-socket");
    let egress = Egress::new(AllowList::from_urls([format!("127.0.0.1:{open}").as_str()]));
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("egress.sock");
    let ticket = rt.block_on(egress.ticket_unix(&path)).expect("listens");
    assert_eq!(ticket.socket_path(), Some(path.as_path()));
    let talk = |target: &str| {
        let mut s = std::os::unix::net::UnixStream::connect(&path).expect("connects");
        s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .expect("timeout");
        write!(
            s,
            "CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        .expect("writes");
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    };
    let out = talk(&format!("127.0.0.1:{open}"));
    assert!(
        out.starts_with("HTTP/1.1 200") && out.contains("over-the-socket"),
        "{out}"
    );
    let out = talk("127.0.0.1:1");
    assert!(out.starts_with("HTTP/1.1 403"), "{out}");
    assert!(
        out.contains("tsgnav: egress to 127.0.0.1:1 refused"),
        "{out}"
    );
    drop(ticket);
    assert!(!path.exists(), "the socket file is removed with the ticket");
}
