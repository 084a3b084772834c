//! The server of the read-only proxy: listens on `127.0.0.1:0` (probes that run without the
//! jail), takes a probe's token (the path prefix of its server URL) to find the run it
//! serves, asks [`super::policy::decide`] about every request, records the decision, and
//! either answers with the `Status` 403 or forwards ([`super::forward`]). One server per
//! session; each probe gets its own [`Grant`], and a jailed probe's door serves each of its
//! connections here as that grant's ([`Grant::door`], handed to `query::jail`'s bridge): such a
//! connection is the probe's whatever its path says, so `kubectl get --raw /api/…` (which
//! drops the server URL's path, and with it the token) is served in the jail too, and
//! another token's prefix is refused.
//!
//! IO edge (sockets). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::collections::HashMap;
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use kube::client::Body;

use super::forward::{failure, forward, hold, status};
use super::grant::{self, Decided, Grant, GrantError, Pass, Passes};
use super::policy::{decide_with_body, Decision, Run};

/// A running proxy. Dropping it stops accepting connections.
pub struct Proxy {
    port: u16,
    passes: Passes,
    /// Requests decided since the start (forwarded or refused).
    decided: Arc<std::sync::atomic::AtomicU64>,
    /// Upstream clients by kubeconfig, context and the kubeconfig's modification time (a
    /// client is built once per session, and again when the file changes).
    clients: Mutex<HashMap<UpstreamKey, grant::Upstream>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Proxy {
    /// Starts listening on `127.0.0.1:0` (on the current tokio runtime).
    pub async fn start() -> Result<Proxy, GrantError> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(GrantError::Listen)?;
        let port = listener.local_addr().map_err(GrantError::Listen)?.port();
        let passes: Passes = Arc::new(Mutex::new(HashMap::new()));
        let decided = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let task = tokio::spawn(accept(listener, passes.clone(), decided.clone()));
        Ok(Proxy {
            port,
            passes,
            decided,
            clients: Mutex::new(HashMap::new()),
            task,
        })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// How many requests it has decided (forwarded or refused) since it started.
    pub fn decided(&self) -> u64 {
        self.decided.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// A pass for one probe: requests go to `context` (the current one when `None`) of the
    /// kubeconfig at `kubeconfig`; writes pass only when `confirmed` (a confirmed change
    /// aimed at this very context).
    pub async fn grant(
        &self,
        kubeconfig: &Path,
        context: Option<&str>,
        confirmed: bool,
    ) -> Result<Grant, GrantError> {
        let (upstream, namespace, context, server) = self.upstream(kubeconfig, context).await?;
        let token = grant::token()?;
        let pass = Arc::new(Pass {
            context,
            confirmed,
            upstream,
            server,
            writes: Default::default(),
            log: Mutex::new(Vec::new()),
        });
        self.passes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(token.clone(), pass.clone());
        Ok(Grant {
            token,
            pass,
            passes: self.passes.clone(),
            decided: self.decided.clone(),
            port: self.port,
            namespace,
        })
    }
}

impl Proxy {
    /// The upstream client of `context` (the current one when `None`) of `kubeconfig`, its
    /// default namespace, the context's name and its server: built once per session, and
    /// again when the kubeconfig changes.
    pub(super) async fn upstream(
        &self,
        kubeconfig: &Path,
        context: Option<&str>,
    ) -> Result<grant::Upstream, GrantError> {
        let key = (
            kubeconfig.to_path_buf(),
            context.map(String::from),
            mtime(kubeconfig),
        );
        let cached = self.clients_lock().get(&key).cloned();
        match cached {
            Some(c) => Ok(c),
            None => {
                let c = grant::upstream(kubeconfig, context).await?;
                self.clients_lock().insert(key, c.clone());
                Ok(c)
            }
        }
    }

    /// The read-only policy of `context`, as the native backend's requests meet it: each
    /// request (its body too, as the proxy decides a probe's) is decided as a read-only pass's
    /// would be (and counted with the proxy's); a refusal is the 403 `Status` message.
    pub(super) fn read_only_guard(&self, context: &str) -> crate::query::kube::client::Guard {
        let context: Arc<str> = Arc::from(context);
        let decided = self.decided.clone();
        Arc::new(move |method: &str, path: &str, query: &str, body: &[u8]| {
            let run = Run {
                context: &context,
                confirmed: None,
                writes: None,
            };
            decided.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            match decide_with_body(&run, method, path, query, body) {
                Decision::Forward => Ok(()),
                Decision::Deny(s) => Err(s["message"].as_str().unwrap_or_default().to_string()),
            }
        })
    }
}

type UpstreamKey = (PathBuf, Option<String>, Option<std::time::SystemTime>);

/// The latest modification time of the kubeconfig file(s) at `path` (a list is allowed).
fn mtime(path: &Path) -> Option<std::time::SystemTime> {
    std::env::split_paths(path.as_os_str())
        .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .max()
}

impl Proxy {
    fn clients_lock(&self) -> std::sync::MutexGuard<'_, HashMap<UpstreamKey, grant::Upstream>> {
        self.clients.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Accepts on the session's TCP port.
async fn accept(
    listener: tokio::net::TcpListener,
    passes: Passes,
    decided: Arc<std::sync::atomic::AtomicU64>,
) {
    loop {
        match listener.accept().await {
            Ok((s, _)) => serve(TokioIo::new(s), &passes, &decided, None),
            // Out of descriptors or similar: back off instead of spinning.
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
        }
    }
}

impl Grant {
    /// What serves a jailed probe's door to the proxy: each connection is served on a task
    /// of its own as this grant's (a path without the `/p/TOKEN` prefix is its API path;
    /// another token's prefix is refused), until the grant is dropped (then with 401).
    pub fn door(&self) -> Arc<dyn Fn(tokio::net::TcpStream) + Send + Sync> {
        let passes = self.passes.clone();
        let decided = self.decided.clone();
        let token: Arc<str> = Arc::from(self.token.as_str());
        Arc::new(move |conn| serve(TokioIo::new(conn), &passes, &decided, Some(token.clone())))
    }
}

/// Serves one connection on its own task (`bound`: the token of the grant whose door it came
/// through).
fn serve<S>(
    io: TokioIo<S>,
    passes: &Passes,
    decided: &Arc<std::sync::atomic::AtomicU64>,
    bound: Option<Arc<str>>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let passes = passes.clone();
    let decided = decided.clone();
    tokio::spawn(async move {
        let svc = hyper::service::service_fn(move |req| {
            let passes = passes.clone();
            let decided = decided.clone();
            let bound = bound.clone();
            async move { Ok::<_, Infallible>(handle(&passes, &decided, bound.as_deref(), req).await) }
        });
        let _ = hyper::server::conn::http1::Builder::new()
            .serve_connection(io, svc)
            .with_upgrades()
            .await;
    });
}

/// The pass named by the token in the request's path (`/p/TOKEN/api/…`; kubectl sends no
/// bearer token over plain HTTP, so the token is the server URL's path prefix) and the API
/// path after it. On a grant's own socket (`bound`) the pass is that grant's: a path without
/// the prefix is its API path, and another token's prefix is refused.
fn pass_of(passes: &Passes, bound: Option<&str>, path: &str) -> Option<(Arc<Pass>, String)> {
    let (token, api) = match (path.strip_prefix("/p/"), bound) {
        (Some(rest), _) => match rest.split_once('/') {
            Some((t, a)) => (t, format!("/{a}")),
            None => (rest, "/".to_string()),
        },
        (None, Some(b)) => (b, path.to_string()),
        (None, None) => return None,
    };
    if bound.is_some_and(|b| b != token) {
        return None;
    }
    let pass = passes
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(token)
        .cloned()?;
    Some((pass, api))
}

async fn handle(
    passes: &Passes,
    decided: &std::sync::atomic::AtomicU64,
    bound: Option<&str>,
    req: Request<Incoming>,
) -> Response<Body> {
    let Some((pass, path)) = pass_of(passes, bound, req.uri().path()) else {
        return failure(
            StatusCode::UNAUTHORIZED,
            "Unauthorized",
            "tsgnav proxy: these are not the credentials of a running probe; the proxy serves \
             only the kubeconfig tsgnav wrote for a probe, while it runs"
                .into(),
        );
    };
    let method = req.method().as_str().to_string();
    let query = req.uri().query().unwrap_or("").to_string();
    let target = match query.is_empty() {
        true => path.clone(),
        false => format!("{path}?{query}"),
    };
    let run = Run {
        context: &pass.context,
        confirmed: pass.confirmed.then_some(pass.context.as_str()),
        writes: pass.writes.get().map(Vec::as_slice),
    };
    decided.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let held = match hold(req).await {
        Ok(h) => h,
        Err(answer) => return answer,
    };
    match decide_with_body(&run, &method, &path, &query, &held.body) {
        Decision::Deny(s) => {
            let why = s["message"].as_str().unwrap_or_default().to_string();
            pass.record(Decided {
                method,
                target,
                refused: Some(why),
            });
            status(StatusCode::FORBIDDEN, &s)
        }
        Decision::Forward => {
            pass.record(Decided {
                method,
                target: target.clone(),
                refused: None,
            });
            forward(&pass.upstream, &pass.context, held, &target).await
        }
    }
}
