//! One connection to the egress proxy: read the request head, decide by the allow list,
//! record the decision, then either answer the refusal or connect and splice bytes both
//! ways (a CONNECT tunnel, or one plain-HTTP request rewritten to origin form).
//!
//! IO edge (sockets). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::sync::{Arc, Mutex, RwLock};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::{host_port, AllowList, EgressDecision};

type Log = Arc<Mutex<Vec<EgressDecision>>>;
type Allow = Arc<RwLock<AllowList>>;

/// The longest request head read before the connection is refused.
const MAX_HEAD: usize = 16 * 1024;

pub(super) async fn accept_unix(l: tokio::net::UnixListener, allow: Allow, log: Log) {
    loop {
        match l.accept().await {
            Ok((s, _)) => {
                tokio::spawn(handle(s, allow.clone(), log.clone()));
            }
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
        }
    }
}

pub(super) async fn accept_tcp(l: tokio::net::TcpListener, allow: Allow, log: Log) {
    loop {
        match l.accept().await {
            Ok((s, _)) => {
                tokio::spawn(handle(s, allow.clone(), log.clone()));
            }
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
        }
    }
}

async fn answer<S: AsyncWrite + Unpin>(s: &mut S, status: &str, line: &str) {
    let body = format!("{line}\n");
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    let _ = s.write_all(head.as_bytes()).await;
    let _ = s.write_all(body.as_bytes()).await;
    let _ = s.shutdown().await;
}

/// The request head (up to and with the blank line) and the bytes read after it.
async fn read_head<S: AsyncRead + Unpin>(s: &mut S) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::with_capacity(2048);
    let mut chunk = [0u8; 2048];
    loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(at + 4);
            return Some((String::from_utf8_lossy(&buf).into_owned(), rest));
        }
        if buf.len() > MAX_HEAD {
            return None;
        }
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Where a request goes: (host, port, the head to send upstream; `None` for a tunnel).
fn route(head: &str) -> Result<(String, u16, Option<String>), String> {
    let mut lines = head.split("\r\n");
    let first = lines.next().unwrap_or("");
    let mut parts = first.split(' ');
    let (method, target, version) = (
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
        parts.next().unwrap_or("HTTP/1.1"),
    );
    let bad = || {
        format!(
            "tsgnav: the egress proxy takes `CONNECT host:port` or an absolute http:// URL, \
             not `{method} {target}`"
        )
    };
    if method.eq_ignore_ascii_case("CONNECT") {
        let (h, p) = host_port(target).ok_or_else(bad)?;
        return Ok((h, p, None));
    }
    let rest = target.strip_prefix("http://").ok_or_else(bad)?;
    let (h, p) = host_port(target).ok_or_else(bad)?;
    let path = rest.find('/').map_or("/", |i| &rest[i..]);
    let mut out = format!("{method} {path} {version}\r\n");
    for l in lines.filter(|l| !l.is_empty()) {
        let name = l
            .split(':')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if !matches!(
            name.as_str(),
            "proxy-connection" | "proxy-authorization" | "connection" | "keep-alive"
        ) {
            out.push_str(l);
            out.push_str("\r\n");
        }
    }
    out.push_str("Connection: close\r\n\r\n");
    Ok((h, p, Some(out)))
}

pub(super) async fn handle<S: AsyncRead + AsyncWrite + Unpin>(mut s: S, allow: Allow, log: Log) {
    let Some((head, rest)) = read_head(&mut s).await else {
        return;
    };
    let (host, port, upstream_head) = match route(&head) {
        Ok(r) => r,
        Err(line) => return answer(&mut s, "400 Bad Request", &line).await,
    };
    let method = head.split(' ').next().unwrap_or("").to_string();
    let allowed = allow
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .allows(&host, port);
    let refused = (!allowed).then(|| {
        format!(
            "tsgnav: egress to {host}:{port} refused: not in [sandbox] allow_hosts; add it \
             there if this probe needs it"
        )
    });
    log.lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(EgressDecision {
            host: host.clone(),
            port,
            method,
            refused: refused.clone(),
        });
    if let Some(line) = refused {
        return answer(&mut s, "403 Forbidden", &line).await;
    }
    let mut up = match tokio::net::TcpStream::connect((host.as_str(), port)).await {
        Ok(u) => u,
        Err(e) => {
            let line = format!("tsgnav: egress to {host}:{port} failed: {e}");
            return answer(&mut s, "502 Bad Gateway", &line).await;
        }
    };
    let sent = match &upstream_head {
        Some(h) => up.write_all(h.as_bytes()).await,
        None => {
            s.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                .await
        }
    };
    if sent.is_ok() && up.write_all(&rest).await.is_ok() {
        let _ = tokio::io::copy_bidirectional(&mut s, &mut up).await;
    }
}
