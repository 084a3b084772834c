//! `kubectl exec` over SPDY/3.1: the HTTP upgrade to `SPDY/3.1` with the stream protocol
//! `v4.channel.k8s.io`. kubectl opens an `error` stream and one stream per standard stream it
//! asked for (`stdout=true`, `stderr=true`, `stdin=true` in the query), and waits for each
//! SYN_REPLY. Only when every stream it will open is open are stdout and stderr written and
//! closed with FIN, then the exit `Status` on the error stream.
//!
//! Why the simulator answers kubectl here and not over WebSocket: kubectl 1.32's WebSocket
//! client starts reading before it registers its streams, and drops a message for a stream it
//! has not registered yet ("Unknown stream id 1, discarding message"). The simulator answers
//! at once, so under load the output or the exit status could be lost. SPDY acknowledges each
//! stream before a byte is written, so nothing can arrive early.
//!
//! Network IO on loopback only; must not import anything of the crate outside `sim`.

use std::collections::HashMap;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use flate2::{Compress, Compression};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::pod_shell::Ran;
use super::spdy_frames::{
    data_frame, deflate, frame, headers, next_frame, stream_id, Inflate, FIN, GOAWAY, PING,
    SYN_REPLY, SYN_STREAM,
};

/// The stream protocol served over SPDY (kubectl offers v4 first over SPDY).
pub const PROTOCOL: &str = "v4.channel.k8s.io";

/// Whether the request asks to switch to SPDY/3.1.
pub fn asked(h: &HeaderMap) -> bool {
    h.get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("SPDY/3.1"))
}

/// Whether `v4.channel.k8s.io` is among the stream protocols the client offers.
pub fn offers_v4(h: &HeaderMap) -> bool {
    h.get_all("x-stream-protocol-version")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|p| p.trim() == PROTOCOL)
}

/// Whether a WebSocket request comes from kubectl, which is answered over SPDY instead (see
/// the module's note). Other clients (kube-rs among them) keep the WebSocket.
pub fn from_kubectl(h: &HeaderMap) -> bool {
    h.get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("kubectl/"))
}

/// The streams kubectl opens for a query: the error stream and each standard stream asked for.
pub fn streams_for(q: &[(String, String)]) -> usize {
    let on = |k: &str| q.iter().any(|(n, v)| n == k && (v == "true" || v == "1"));
    1 + ["stdin", "stdout", "stderr"]
        .into_iter()
        .filter(|k| on(k))
        .count()
}

/// The `101 Switching Protocols` answer that agrees on SPDY/3.1 and the stream protocol.
pub fn switching() -> Response {
    let mut res = StatusCode::SWITCHING_PROTOCOLS.into_response();
    let hs = res.headers_mut();
    hs.insert(header::UPGRADE, HeaderValue::from_static("SPDY/3.1"));
    hs.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    hs.insert(
        "x-stream-protocol-version",
        HeaderValue::from_static(PROTOCOL),
    );
    res
}

/// One exec connection: replies to every SYN_STREAM, and once `expect` streams are open
/// writes what the command printed and its status. Ends when kubectl closes the connection.
pub async fn answer<S>(mut io: S, expect: usize, status: String, ran: Ran)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut inflate = Inflate::new();
    let mut compress = Compress::new(Compression::fast(), true);
    let mut open: HashMap<String, u32> = HashMap::new();
    let mut answered = false;
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let Ok(n) = io.read(&mut chunk).await else {
            return;
        };
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
        while let Some(raw) = next_frame(&mut buf) {
            let (head, body) = raw.split_at(8);
            if head[0] & 0x80 == 0 {
                continue; // stdin's bytes: the canned commands read no input
            }
            let out = match u16::from_be_bytes([head[2], head[3]]) {
                SYN_STREAM if body.len() >= 10 => {
                    let sid = stream_id(body);
                    let Ok(block) = inflate.block(&body[10..]) else {
                        return;
                    };
                    let kind = headers(&block).remove("streamtype").unwrap_or_default();
                    open.insert(kind, sid);
                    let mut reply = sid.to_be_bytes().to_vec();
                    reply.extend(deflate(&mut compress, &0u32.to_be_bytes()));
                    let [hi, lo] = SYN_REPLY.to_be_bytes();
                    frame([0x80, 3, hi, lo], 0, &reply)
                }
                PING => raw.clone(),
                GOAWAY => return,
                _ => continue,
            };
            if io.write_all(&out).await.is_err() {
                return;
            }
            if !answered && open.len() >= expect {
                answered = true;
                if io.write_all(&output(&open, &status, &ran)).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// The frames that carry the command's output and then its status, each stream ended by FIN.
fn output(open: &HashMap<String, u32>, status: &str, ran: &Ran) -> Vec<u8> {
    let mut out = Vec::new();
    for (kind, data) in [
        ("stdout", ran.stdout.as_bytes()),
        ("stderr", ran.stderr.as_bytes()),
        ("error", status.as_bytes()),
    ] {
        if let Some(&sid) = open.get(kind) {
            if !data.is_empty() {
                out.extend(data_frame(sid, 0, data));
            }
            out.extend(data_frame(sid, FIN, &[]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_streams_kubectl_opens_follow_its_query() {
        assert_eq!(streams_for(&q(&[("command", "ls")])), 1);
        assert_eq!(
            streams_for(&q(&[("stdout", "true"), ("stderr", "true")])),
            3
        );
        assert_eq!(
            streams_for(&q(&[
                ("stdin", "true"),
                ("stdout", "true"),
                ("stderr", "false")
            ])),
            3
        );
    }

    #[test]
    fn output_goes_to_the_streams_that_are_open_and_ends_each() {
        let ran = Ran {
            stdout: "hi\n".into(),
            stderr: String::new(),
            exit: 0,
        };
        let open = HashMap::from([("stdout".to_string(), 3), ("error".to_string(), 1)]);
        let out = output(&open, "{}", &ran);
        let mut want = data_frame(3, 0, b"hi\n");
        want.extend(data_frame(3, FIN, &[]));
        want.extend(data_frame(1, 0, b"{}"));
        want.extend(data_frame(1, FIN, &[]));
        assert_eq!(out, want);
    }
}
