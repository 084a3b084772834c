//! The pod `portforward` subresource of the simulated API server:
//! `GET …/namespaces/{ns}/pods/{name}/portforward?ports=N` upgraded to a WebSocket. Two
//! subprotocols are served: `v4.channel.k8s.io` as kube-rs's `Api::<Pod>::portforward`
//! speaks it (each message starts with a channel byte; port `i` has data channel `2i` and
//! error channel `2i+1`, each opened by the port number as two little-endian bytes), and
//! `SPDY/3.1+portforward.k8s.io`, the SPDY tunnel of `kubectl port-forward` (`sim::spdy`).
//!
//! What a pod listens on: the Maestro server pods (label `app: maestro`) serve the
//! simulator's own Maestro API on port 8000; any other pod and port answers on the error
//! channel that nothing listens there. Network IO on loopback only; must not import `query`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use futures::{SinkExt, StreamExt};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::server::{error, SimState};
use super::store::ApiError;

/// kube-rs's channel protocol.
const V4: &str = "v4.channel.k8s.io";
/// kubectl's SPDY/3.1 tunnelled in WebSocket binary messages.
pub const SPDY_TUNNEL: &str = "SPDY/3.1+portforward.k8s.io";
/// The port the Maestro server pods serve the Maestro API on.
pub const MAESTRO_PORT: u16 = 8000;

/// What the port-forward endpoint needs: the clusters and where the Maestro API listens.
pub struct Forwarding {
    sim: Arc<SimState>,
    maestro: SocketAddr,
}

/// The port-forward routes (with and without the `/clusters/<name>` prefix), to merge into
/// the simulator's router; `maestro` is the simulator's own listener.
pub fn routes<S: Clone + Send + Sync + 'static>(
    sim: Arc<SimState>,
    maestro: SocketAddr,
) -> axum::Router<S> {
    let st = Arc::new(Forwarding { sim, maestro });
    axum::Router::new()
        .route(
            "/api/v1/namespaces/{ns}/pods/{name}/portforward",
            any(handle),
        )
        .route(
            "/clusters/{cluster}/api/v1/namespaces/{ns}/pods/{name}/portforward",
            any(handle),
        )
        .with_state(st)
}

/// Where a connection to `port` of `pod` goes, or why nothing answers there.
pub fn listener(pod: &Value, port: u16, maestro: SocketAddr) -> Result<SocketAddr, String> {
    let name = pod["metadata"]["name"].as_str().unwrap_or("");
    let is_maestro = pod["metadata"]["labels"]["app"].as_str() == Some("maestro");
    if is_maestro && port == MAESTRO_PORT {
        return Ok(maestro);
    }
    Err(format!(
        "pod {name} has no listener on port {port} in the simulator{}",
        if is_maestro {
            format!(" (the Maestro server listens on {MAESTRO_PORT})")
        } else {
            String::new()
        }
    ))
}

/// Opens the TCP connection behind one forwarded port.
pub async fn dial(pod: &Value, port: u16, maestro: SocketAddr) -> Result<TcpStream, String> {
    let addr = listener(pod, port, maestro)?;
    TcpStream::connect(addr)
        .await
        .map_err(|e| format!("the simulated listener of port {port} at {addr} failed: {e}"))
}

/// The requested ports: `ports=8000,8090` and/or repeated `ports=`.
fn ports(q: &[(String, String)]) -> Result<Vec<u16>, ApiError> {
    let mut out = Vec::new();
    for (_, v) in q.iter().filter(|(k, _)| k == "ports") {
        for p in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match p.parse::<u16>() {
                Ok(n) if n > 0 => out.push(n),
                _ => {
                    return Err(ApiError::new(
                        400,
                        "BadRequest",
                        format!("invalid port {p:?} in ?ports=: use numbers 1-65535"),
                    ))
                }
            }
        }
    }
    Ok(out)
}

fn bad(message: impl Into<String>) -> Response {
    error(&ApiError::new(400, "BadRequest", message))
}

async fn handle(
    State(st): State<Arc<Forwarding>>,
    Path(p): Path<HashMap<String, String>>,
    Query(q): Query<Vec<(String, String)>>,
    mut req: Request,
) -> Response {
    let cname = p.get("cluster").unwrap_or(&st.sim.default).clone();
    let (ns, name) = (
        p.get("ns").cloned().unwrap_or_default(),
        p.get("name").cloned().unwrap_or_default(),
    );
    let Some(c) = st.sim.cluster(&cname) else {
        let e = ApiError::new(404, "NotFound", format!("no cluster named {cname:?}"));
        return error(&e);
    };
    let pod = match c.resource("", "pods").map(|r| c.get(&r, &ns, &name)) {
        Some(Ok(p)) => p,
        Some(Err(e)) => return error(&e),
        None => return error(&ApiError::new(404, "NotFound", "pods are not served")),
    };
    drop(c);
    let phase = pod["status"]["phase"].as_str().unwrap_or("Unknown");
    if phase != "Running" || !pod["metadata"]["deletionTimestamp"].is_null() {
        return bad(format!(
            "unable to upgrade connection: pod {name} is not running (phase {phase})"
        ));
    }
    let Some((key, offered)) = websocket_upgrade(req.headers()) else {
        return bad("Upgrade request required: the simulator serves port-forward over WebSocket (subprotocol v4.channel.k8s.io or SPDY/3.1+portforward.k8s.io)");
    };
    let proto = if offered.iter().any(|o| o == SPDY_TUNNEL) {
        SPDY_TUNNEL
    } else if offered.iter().any(|o| o == V4) {
        V4
    } else {
        return bad(format!(
            "none of the offered subprotocols {offered:?} is served: use {V4} or {SPDY_TUNNEL}"
        ));
    };
    let ports = match ports(&q) {
        Ok(p) if p.is_empty() && proto == V4 => {
            return bad("at least one port is needed: …/portforward?ports=8000")
        }
        Ok(p) => p,
        Err(e) => return error(&e),
    };
    let on_upgrade = hyper::upgrade::on(&mut req);
    let maestro = st.maestro;
    tokio::spawn(async move {
        let Ok(upgraded) = on_upgrade.await else {
            return;
        };
        let ws = WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, None).await;
        if proto == V4 {
            channels(ws, pod, ports, maestro).await;
        } else {
            super::spdy::serve(ws, pod, maestro).await;
        }
    });
    switching(key.as_bytes(), proto)
}

/// A WebSocket upgrade request's key and the subprotocols it offers; `None` when the request
/// asks for no WebSocket upgrade. Shared with `exec`.
pub(super) fn websocket_upgrade(h: &HeaderMap) -> Option<(HeaderValue, Vec<String>)> {
    let upgrade = h
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    let key = h
        .get(header::SEC_WEBSOCKET_KEY)
        .cloned()
        .filter(|_| upgrade)?;
    let offered = h
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(',').map(|s| s.trim().to_string()))
        .collect();
    Some((key, offered))
}

/// The `101 Switching Protocols` answer to a WebSocket upgrade with `key`, agreeing on
/// `proto` (a `*.channel.k8s.io` subprotocol); shared with `exec`.
pub(super) fn switching(key: &[u8], proto: &'static str) -> Response {
    let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(key);
    let mut res = StatusCode::SWITCHING_PROTOCOLS.into_response();
    let hs = res.headers_mut();
    hs.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    hs.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    hs.insert(
        header::SEC_WEBSOCKET_PROTOCOL,
        HeaderValue::from_static(proto),
    );
    if let Ok(v) = HeaderValue::from_str(&accept) {
        hs.insert(header::SEC_WEBSOCKET_ACCEPT, v);
    }
    res
}

/// One channel frame: the channel byte, then the data.
pub(super) fn frame(ch: u8, data: &[u8]) -> Message {
    let mut v = Vec::with_capacity(data.len() + 1);
    v.push(ch);
    v.extend_from_slice(data);
    Message::binary(v)
}

/// The `v4.channel.k8s.io` session: one TCP connection per requested port, until the
/// client closes the WebSocket or every target has closed its side.
async fn channels<S>(ws: WebSocketStream<S>, pod: Value, ports: Vec<u16>, maestro: SocketAddr)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (mut sink, mut stream) = ws.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Message>();
    let writer = tokio::spawn(async move {
        while let Some(m) = rx.recv().await {
            let close = m.is_close();
            if sink.send(m).await.is_err() || close {
                break;
            }
        }
        let _ = sink.close().await;
    });
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<()>();
    let mut writers = Vec::new();
    let mut pumps = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let ch = (2 * i) as u8;
        let _ = tx.send(frame(ch, &port.to_le_bytes()));
        let _ = tx.send(frame(ch + 1, &port.to_le_bytes()));
        match dial(&pod, *port, maestro).await {
            Ok(tcp) => {
                let (mut r, w) = tcp.into_split();
                writers.push(Some(w));
                let (tx, done) = (tx.clone(), done_tx.clone());
                pumps.push(tokio::spawn(async move {
                    let mut buf = vec![0u8; 32 * 1024];
                    while let Ok(n) = tokio::io::AsyncReadExt::read(&mut r, &mut buf).await {
                        if n == 0 || tx.send(frame(ch, &buf[..n])).is_err() {
                            break;
                        }
                    }
                    let _ = done.send(());
                }));
            }
            Err(msg) => {
                writers.push(None);
                let _ = tx.send(frame(ch + 1, msg.as_bytes()));
            }
        }
    }
    let mut open = pumps.len();
    while open > 0 {
        tokio::select! {
            m = stream.next() => match m {
                Some(Ok(Message::Binary(b))) if b.len() > 1 => {
                    let w = writers.get_mut(usize::from(b[0] / 2)).and_then(Option::as_mut);
                    if let (true, Some(w)) = (b[0] % 2 == 0, w) {
                        if w.write_all(&b[1..]).await.is_err() {
                            break;
                        }
                    }
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                Some(Ok(_)) => {}
            },
            _ = done_rx.recv() => open -= 1,
        }
    }
    let _ = tx.send(Message::Close(None));
    drop(tx);
    drop(writers);
    let _ = writer.await;
    for p in pumps {
        p.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_maestro_server_pods_listen_and_ports_are_numbers() {
        let addr: SocketAddr = "127.0.0.1:9".parse().unwrap();
        let pod =
            |app: &str| serde_json::json!({"metadata": {"name": "p", "labels": {"app": app}}});
        assert_eq!(listener(&pod("maestro"), 8000, addr), Ok(addr));
        let none = listener(&pod("maestro-agent"), 8000, addr);
        assert_eq!(
            none.unwrap_err(),
            "pod p has no listener on port 8000 in the simulator"
        );
        let q = |v: &str| vec![("ports".to_string(), v.to_string())];
        assert_eq!(ports(&q("8000,8090")).unwrap(), [8000, 8090]);
        assert!(ports(&q("http")).is_err());
    }
}
