//! [`KubeError`]: what failed talking to a Kubernetes API server, worded for the operator
//! (`kube API at http://127.0.0.1:PORT returned 401 Unauthorized for GET /api/v1/pods`), and
//! its mapping to the runner's [`ProbeError`]. Plain data; the classification of kube-rs
//! errors looks only at their error chain.

use std::time::Duration;

use super::super::error::fmt_duration;
use super::super::ProbeError;

/// Why a native kube query failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KubeError {
    #[error(
        "kube API at {server} returned {code} {reason} for {method} {path}{}{}",
        detail(message),
        super::super::error::relogin(*code)
    )]
    Api {
        server: String,
        code: u16,
        reason: String,
        method: String,
        path: String,
        message: String,
    },
    #[error("kube API at {server} refused the connection for {method} {path}: is the API server (or the port-forward) running?")]
    Refused {
        server: String,
        method: String,
        path: String,
    },
    #[error("kube API at {server} dropped the connection during {method} {path}: {detail}")]
    Dropped {
        server: String,
        method: String,
        path: String,
        detail: String,
    },
    #[error("kube API at {server} did not answer {method} {path} within {}", fmt_duration(*after))]
    Timeout {
        server: String,
        method: String,
        path: String,
        after: Duration,
    },
    #[error("kube API at {server} sent an unreadable answer to {method} {path}: {detail}")]
    BadResponse {
        server: String,
        method: String,
        path: String,
        detail: String,
    },
    #[error("kube API at {server}: {detail}")]
    Connect { server: String, detail: String },
    #[error("kubeconfig {path}: {detail}")]
    Kubeconfig { path: String, detail: String },
    #[error("the kube API at {server} serves no resource named {resource:?} (checked {checked}); check the spelling or whether its CRD is installed")]
    UnknownResource {
        server: String,
        resource: String,
        checked: String,
    },
    #[error("{0}")]
    Usage(String),
}

fn detail(message: &str) -> String {
    if message.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", message.trim())
    }
}

/// The method, path and server of one request, for error messages.
#[derive(Debug, Clone)]
pub struct ReqInfo {
    pub server: String,
    pub method: String,
    pub path: String,
}

fn chain_text(e: &(dyn std::error::Error + 'static)) -> (String, Option<std::io::ErrorKind>) {
    let mut parts = Vec::new();
    let mut kind = None;
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            kind.get_or_insert(io.kind());
        }
        let s = err.to_string();
        if !parts.contains(&s) {
            parts.push(s);
        }
        cur = err.source();
    }
    (parts.join(": "), kind)
}

impl KubeError {
    /// Classifies a kube-rs error for the request `r`.
    pub fn from_kube(e: &kube::Error, r: &ReqInfo, timeout: Duration) -> Self {
        let (server, method, path) = (r.server.clone(), r.method.clone(), r.path.clone());
        if let kube::Error::Api(s) = e {
            let reason = axum::http::StatusCode::from_u16(s.code)
                .ok()
                .and_then(|c| c.canonical_reason())
                .unwrap_or("")
                .to_string();
            let message = if s.message.len() > 300 {
                format!(
                    "{}…",
                    &s.message[..s
                        .message
                        .char_indices()
                        .nth(300)
                        .map_or(s.message.len(), |(i, _)| i)]
                )
            } else {
                s.message.clone()
            };
            return KubeError::Api {
                server,
                code: s.code,
                reason,
                method,
                path,
                message,
            };
        }
        if let kube::Error::SerdeError(se) = e {
            return KubeError::BadResponse {
                server,
                method,
                path,
                detail: se.to_string(),
            };
        }
        let (text, kind) = chain_text(e);
        let lower = text.to_lowercase();
        match kind {
            Some(std::io::ErrorKind::ConnectionRefused) => KubeError::Refused {
                server,
                method,
                path,
            },
            Some(std::io::ErrorKind::TimedOut) => KubeError::Timeout {
                server,
                method,
                path,
                after: timeout,
            },
            _ if lower.contains("connection refused") => KubeError::Refused {
                server,
                method,
                path,
            },
            _ if lower.contains("timed out") || lower.contains("elapsed") => KubeError::Timeout {
                server,
                method,
                path,
                after: timeout,
            },
            _ if lower.contains("incomplete")
                || lower.contains("closed")
                || lower.contains("reset")
                || lower.contains("body")
                || lower.contains("eof") =>
            {
                KubeError::Dropped {
                    server,
                    method,
                    path,
                    detail: text,
                }
            }
            _ => KubeError::Connect {
                server,
                detail: format!("{method} {path}: {text}"),
            },
        }
    }

    /// The runner's view of this error.
    pub fn to_probe_error(&self) -> ProbeError {
        match self {
            KubeError::Api {
                server,
                code,
                reason,
                path,
                message,
                ..
            } => ProbeError::Http {
                status: *code,
                reason: reason.clone(),
                url: format!("{server}{path}"),
                body: message.clone(),
            },
            KubeError::Refused { server, .. } => ProbeError::ConnectionRefused {
                addr: server.clone(),
            },
            KubeError::Dropped { server, path, .. } => ProbeError::Dropped {
                url: format!("{server}{path}"),
                received: 0,
            },
            KubeError::Timeout { after, .. } => ProbeError::Timeout { after: *after },
            KubeError::BadResponse {
                server,
                path,
                detail,
                ..
            } => ProbeError::BadResponse {
                url: format!("{server}{path}"),
                detail: detail.clone(),
            },
            KubeError::Connect { server, detail } => ProbeError::Connect {
                url: server.clone(),
                detail: detail.clone(),
            },
            other => ProbeError::Config {
                detail: other.to_string(),
            },
        }
    }
}
