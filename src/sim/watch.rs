//! `watch=true`: a chunked stream of `{"type":…,"object":…}` lines. Starts with the current
//! objects as ADDED (or the recorded events after `resourceVersion`), then follows changes
//! until `timeoutSeconds` or until the client goes away.
//!
//! IO: a tokio task per watch feeding the response body; no files.

use std::collections::HashMap;
use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc};

use super::resources::ResourceInfo;
use super::select::{FieldSelector, LabelSelector};
use super::store::{Cluster, WatchEvent};

struct Filter {
    key: String,
    ns: Option<String>,
    ls: LabelSelector,
    fs: FieldSelector,
}

impl Filter {
    fn keeps(&self, e: &WatchEvent) -> bool {
        let ns = e
            .object
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or("");
        e.key == self.key
            && self.ns.as_deref().is_none_or(|n| n == ns)
            && self.ls.matches(&e.object)
            && self.fs.matches(&e.object)
    }
}

fn line(kind: &str, object: &Value) -> Bytes {
    let mut s = json!({"type": kind, "object": object}).to_string();
    s.push('\n');
    Bytes::from(s)
}

/// Starts a watch on `r`; the cluster lock is held while the backlog is taken, so no change
/// falls between the backlog and the live events.
pub fn start(
    c: &Cluster,
    r: &ResourceInfo,
    ns: Option<String>,
    ls: LabelSelector,
    fs: FieldSelector,
    q: &HashMap<String, String>,
) -> Response {
    let filter = Filter {
        key: r.key(),
        ns,
        ls,
        fs,
    };
    let mut rx = c.tx.subscribe();
    let since = q
        .get("resourceVersion")
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|v| *v > 0);
    let backlog: Vec<Bytes> = match since {
        Some(rv) => c
            .events_since(&filter.key, rv)
            .iter()
            .filter(|e| filter.keeps(e))
            .map(|e| line(e.kind, &e.object))
            .collect(),
        None => c
            .list(r, filter.ns.as_deref(), &filter.ls, &filter.fs)
            .iter()
            .map(|o| line("ADDED", o))
            .collect(),
    };
    let timeout = q
        .get("timeoutSeconds")
        .and_then(|t| t.parse::<u64>().ok())
        .unwrap_or(1800)
        .min(3600);
    let (tx, out) = mpsc::channel::<Bytes>(64);
    tokio::spawn(async move {
        for b in backlog {
            if tx.send(b).await.is_err() {
                return;
            }
        }
        let deadline = tokio::time::sleep(Duration::from_secs(timeout));
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                _ = &mut deadline => return,
                _ = tx.closed() => return,
                ev = rx.recv() => match ev {
                    Ok(e) if filter.keeps(&e) => {
                        if tx.send(line(e.kind, &e.object)).await.is_err() {
                            return;
                        }
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return,
                },
            }
        }
    });
    let stream = futures::stream::unfold(out, |mut out| async move {
        out.recv().await.map(|b| (Ok::<_, Infallible>(b), out))
    });
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        Body::from_stream(stream),
    )
        .into_response()
}
