//! HTTP plumbing shared by the prometheus, kusto and http backends: one reqwest client (rustls
//! with the ring provider), requests that turn every failure into a precise [`ProbeError`]
//! (refused, HTTP status, dropped mid-body, timeout), and bearer tokens from a command.
//!
//! IO edge. Must not import `cli`, `tui` or `nav`.

use std::time::Duration;

use futures::StreamExt;

pub use super::token::{parse_token, TokenSource};
use super::{interruptible, Cancel, ProbeError};

/// Installs the ring crypto provider for rustls once (ignoring "already installed").
pub fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A client for probe requests.
pub fn client() -> Result<reqwest::Client, ProbeError> {
    install_crypto();
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| ProbeError::Config {
            detail: format!("could not set up the HTTP client: {e}"),
        })
}

/// A response read to the end.
#[derive(Debug, Clone)]
pub struct Body {
    pub status: u16,
    pub reason: String,
    pub bytes: Vec<u8>,
}

fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        src = inner.source();
    }
    s
}

fn refused(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(c) = cur {
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::ConnectionRefused {
                return true;
            }
        }
        cur = c.source();
    }
    false
}

fn host_port(url: &str) -> String {
    reqwest::Url::parse(url)
        .ok()
        .and_then(|u| Some(format!("{}:{}", u.host_str()?, u.port_or_known_default()?)))
        .unwrap_or_else(|| url.to_string())
}

/// Sends `req` and reads the whole body, within `timeout` and until `cancel`.
/// Non-2xx statuses are returned as a `Body` (callers read server error JSON); use
/// [`http_error`] for the ones they do not understand.
pub async fn fetch(
    req: reqwest::RequestBuilder,
    url: &str,
    timeout: Duration,
    cancel: &Cancel,
) -> Result<Body, ProbeError> {
    let received = std::sync::atomic::AtomicU64::new(0);
    let work = async {
        let resp = req.send().await.map_err(|e| {
            if refused(&e) {
                ProbeError::ConnectionRefused {
                    addr: host_port(url),
                }
            } else {
                ProbeError::Connect {
                    url: url.to_string(),
                    detail: chain(&e),
                }
            }
        })?;
        let status = resp.status();
        let mut bytes = Vec::new();
        let mut stream = resp.bytes_stream();
        while let Some(chunk) = stream.next().await {
            match chunk {
                Ok(c) => {
                    bytes.extend_from_slice(&c);
                    received.store(bytes.len() as u64, std::sync::atomic::Ordering::Relaxed);
                }
                Err(_) => {
                    return Err(ProbeError::Dropped {
                        url: url.to_string(),
                        received: bytes.len() as u64,
                    })
                }
            }
        }
        Ok(Body {
            status: status.as_u16(),
            reason: status.canonical_reason().unwrap_or("").to_string(),
            bytes,
        })
    };
    interruptible(work, timeout, cancel).await?
}

/// The JSON of a 2xx answer (`json` is the body already parsed, if it parsed): an HTTP error
/// for any other status, `BadResponse` when the body is not JSON.
pub fn success_json(
    body: &Body,
    url: &str,
    json: Option<serde_json::Value>,
) -> Result<serde_json::Value, ProbeError> {
    if !(200..300).contains(&body.status) {
        return Err(http_error(body, url));
    }
    json.ok_or_else(|| ProbeError::BadResponse {
        url: url.to_string(),
        detail: "the body is not JSON".into(),
    })
}

/// The error for a status the caller does not handle.
pub fn http_error(body: &Body, url: &str) -> ProbeError {
    let text = String::from_utf8_lossy(&body.bytes);
    ProbeError::Http {
        status: body.status,
        reason: body.reason.clone(),
        url: url.to_string(),
        body: text.chars().take(2000).collect(),
    }
}

#[cfg(test)]
#[path = "net_tests.rs"]
mod tests;
