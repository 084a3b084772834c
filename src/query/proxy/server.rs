//! The server of the read-only proxy: listens on `127.0.0.1:0` (the native backend, probes
//! that run without the jail) and on a unix socket in a folder only its owner may open (the
//! door jailed probes reach it through, see `query::jail`), takes a probe's
//! token (the path prefix of its server URL) to find the run it serves, asks
//! [`super::policy::decide`] about every request, records the decision, and either answers
//! with the `Status` 403 or forwards ([`super::forward`]). One server per session; each probe
//! gets its own [`Grant`], and with it a unix socket of its own: a connection there is that
//! probe's whatever its path says, so `kubectl get --raw /api/…` (which drops the server
//! URL's path, and with it the token) is served in the jail too.
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
    /// The unix socket jailed probes reach the proxy through (in a 0700 folder).
    socket: PathBuf,
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
        if let Some(dir) = self.socket.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
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
        let (socket, unix) = unix_listener()?;
        let task = tokio::spawn(accept(
            Some(listener),
            unix,
            passes.clone(),
            decided.clone(),
            None,
        ));
        Ok(Proxy {
            port,
            socket,
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

    /// The unix socket it listens on.
    pub fn socket(&self) -> &Path {
        &self.socket
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
        let key = (
            kubeconfig.to_path_buf(),
            context.map(String::from),
            mtime(kubeconfig),
        );
        let cached = self.clients_lock().get(&key).cloned();
        let (upstream, namespace, context, server) = match cached {
            Some(c) => c,
            None => {
                let c = grant::upstream(kubeconfig, context).await?;
                self.clients_lock().insert(key, c.clone());
                c
            }
        };
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
        let dir = self.socket.parent().unwrap_or(Path::new("/"));
        let socket = dir.join(format!("p-{}.sock", &token[..16]));
        let own = tokio::net::UnixListener::bind(&socket).map_err(GrantError::Listen)?;
        let door = tokio::spawn(accept(
            None,
            own,
            self.passes.clone(),
            self.decided.clone(),
            Some(Arc::from(token.as_str())),
        ));
        Ok(Grant {
            token,
            pass,
            passes: self.passes.clone(),
            port: self.port,
            socket,
            door: Some(door),
            namespace,
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

/// A unix listener in a new folder of the scratch base (`query::scratch`) that only this user may open.
fn unix_listener() -> Result<(PathBuf, tokio::net::UnixListener), GrantError> {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = crate::query::scratch::path("tsgnav-proxy", n);
    let _ = std::fs::remove_dir_all(&dir);
    crate::query::scratch::make_private(&dir).map_err(GrantError::Listen)?;
    let socket = dir.join("api.sock");
    let l = tokio::net::UnixListener::bind(&socket).map_err(GrantError::Listen)?;
    Ok((socket, l))
}

/// Accepts on the session's TCP port and unix socket (`bound` none), or on one grant's own
/// unix socket (`bound` its token).
async fn accept(
    listener: Option<tokio::net::TcpListener>,
    unix: tokio::net::UnixListener,
    passes: Passes,
    decided: Arc<std::sync::atomic::AtomicU64>,
    bound: Option<Arc<str>>,
) {
    loop {
        let served = tokio::select! {
            s = tcp_accept(listener.as_ref()) => {
                s.map(|(s, _)| serve(TokioIo::new(s), &passes, &decided, bound.clone()))
            }
            s = unix.accept() => {
                s.map(|(s, _)| serve(TokioIo::new(s), &passes, &decided, bound.clone()))
            }
        };
        if served.is_err() {
            // Out of descriptors or similar: back off instead of spinning.
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}

/// The next TCP connection, or never when there is no TCP listener.
async fn tcp_accept(
    l: Option<&tokio::net::TcpListener>,
) -> std::io::Result<(tokio::net::TcpStream, std::net::SocketAddr)> {
    match l {
        Some(l) => l.accept().await,
        None => std::future::pending().await,
    }
}

/// Serves one connection (TCP or unix) on its own task.
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
