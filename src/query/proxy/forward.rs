//! Sending one request the policy let through to the real API server, with the real
//! credentials (kube-rs's client stack: TLS with rustls/ring, tokens, client certificates,
//! exec plugins), and handing back the answer as it comes: the response body is streamed
//! frame by frame (watches, `logs -f`), and a connection upgrade (SPDY or WebSocket, for
//! port-forward and exec) is spliced byte for byte between the probe and the API server.
//!
//! IO edge. Must not import `cli`, `tui`, `nav` or `evidence`.

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderName};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use kube::client::Body;
use serde_json::Value;

/// Headers that belong to one connection, not to the request (RFC 9110 §7.6.1), plus the
/// ones tsgnav sets itself (`host` from the upstream URL, `authorization` from the real
/// credentials).
const HOP: [&str; 10] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
];

fn strip(headers: &mut HeaderMap, upgrading: bool) {
    let listed: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|n| HeaderName::from_bytes(n.trim().as_bytes()).ok())
        .filter(|n| !(upgrading && n == header::UPGRADE))
        .collect();
    for n in listed {
        headers.remove(n);
    }
    for n in HOP {
        if upgrading && (n == "connection" || n == "upgrade") {
            continue;
        }
        headers.remove(n);
    }
}

/// Whether the request asks to switch protocols (`Connection: Upgrade` + `Upgrade: …`).
pub fn is_upgrade(headers: &HeaderMap) -> bool {
    let conn_upgrade = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim().eq_ignore_ascii_case("upgrade"));
    conn_upgrade && headers.contains_key(header::UPGRADE)
}

/// A `Status` answer with `code`.
pub fn status(code: StatusCode, status: &Value) -> Response<Body> {
    let mut r = Response::new(Body::from(status.to_string().into_bytes()));
    *r.status_mut() = code;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    r
}

/// A `Status` failure with `code`, `reason` and `message`.
pub fn failure(code: StatusCode, reason: &str, message: String) -> Response<Body> {
    let v = serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": reason, "code": code.as_u16(),
    });
    status(code, &v)
}

/// A request as the proxy holds it while deciding: its head, its body (requests the proxy
/// forwards are small: a patch, a review, a dry run; answers stream) and, for an upgrade,
/// the probe's side of the connection to come.
pub struct Held {
    pub parts: hyper::http::request::Parts,
    pub body: Vec<u8>,
    pub downstream: Option<hyper::upgrade::OnUpgrade>,
}

/// Reads the body of `req` (and takes its pending upgrade).
pub async fn hold(mut req: Request<Incoming>) -> Result<Held, Response<Body>> {
    let downstream = is_upgrade(req.headers()).then(|| hyper::upgrade::on(&mut req));
    let (parts, body) = req.into_parts();
    match body.collect().await {
        Ok(c) => Ok(Held {
            parts,
            body: c.to_bytes().to_vec(),
            downstream,
        }),
        Err(e) => Err(failure(
            StatusCode::BAD_REQUEST,
            "BadRequest",
            format!("tsgnav proxy: could not read the request body: {e}"),
        )),
    }
}

/// Sends `req` upstream to `path` (path and query) through `client` and returns the answer
/// to give the probe.
pub async fn forward(
    client: &kube::Client,
    context: &str,
    req: Held,
    path: &str,
) -> Response<Body> {
    let Held {
        mut parts,
        body: bytes,
        downstream,
    } = req;
    let upgrading = downstream.is_some();
    strip(&mut parts.headers, upgrading);
    parts.headers.remove(header::AUTHORIZATION);
    parts.headers.remove(header::CONTENT_LENGTH);
    let mut out = Request::new(Body::from(bytes));
    *out.method_mut() = parts.method;
    *out.headers_mut() = parts.headers;
    *out.uri_mut() = match path.parse() {
        Ok(u) => u,
        Err(e) => {
            return failure(
                StatusCode::BAD_REQUEST,
                "BadRequest",
                format!("tsgnav proxy: {path} is not a request path: {e}"),
            )
        }
    };
    let mut resp = match client.send(out).await {
        Ok(r) => r,
        Err(e) => {
            return failure(
                StatusCode::BAD_GATEWAY,
                "ServiceUnavailable",
                format!("tsgnav proxy: the API server of context {context} did not answer: {e}"),
            )
        }
    };
    let switching = resp.status() == StatusCode::SWITCHING_PROTOCOLS;
    if let (true, Some(down)) = (switching, downstream) {
        let up = hyper::upgrade::on(&mut resp);
        tokio::spawn(async move {
            if let (Ok(down), Ok(up)) = tokio::join!(down, up) {
                let _ =
                    tokio::io::copy_bidirectional(&mut TokioIo::new(down), &mut TokioIo::new(up))
                        .await;
            }
        });
    }
    strip(resp.headers_mut(), switching);
    resp
}
