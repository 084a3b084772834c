//! The egress proxy: the one way out of a probe's jail other than the Kubernetes API proxy.
//! An allow-listing HTTP proxy: `CONNECT host:port` (HTTPS and any TLS client honouring
//! `HTTPS_PROXY`) and absolute-URI requests (`GET http://host:port/…`, plain HTTP honouring
//! `HTTP_PROXY`) pass only to the `host:port`s of its [`AllowList`]: the Prometheus, Kusto
//! and Alertmanager URLs of the config, `[sandbox] allow_hosts`, and the session's
//! port-forwards (added while it runs with [`Egress::allow`]). Anything else is answered
//! with a 403 whose body is one line, recorded in the probe's [`Ticket`]:
//! `tsgnav: egress to evil.example:443 refused: not in [sandbox] allow_hosts; add it there
//! if this probe needs it`.
//!
//! API, for the jail to wire in:
//! - [`AllowList::from_urls`] + [`AllowList::add`] build the list; [`Egress::new`] holds it
//!   for the session (cheap to clone).
//! - [`Egress::ticket`] gives a probe a ticket without a listener of its own: the jail's
//!   door serves each connection through [`Ticket::door`] (in tsgnav, no socket between the
//!   door and the proxy); inside, `HTTPS_PROXY`/`HTTP_PROXY` name the door.
//!   [`Egress::ticket_unix`] starts one listener per probe on a unix socket path, and
//!   [`Egress::ticket_tcp`] on `127.0.0.1:0` (tests, or a jail that shares loopback).
//! - [`Ticket::decisions`] is every connection decided for that probe, [`Ticket::report`]
//!   the refused ones as lines for the probe's output and evidence record. Dropping the
//!   ticket stops its listener, if it has one (and removes its socket file).
//!
//! Through CONNECT the method of a TLS API is invisible: a probe reaching one is read-only
//! by the classifier only.
//!
//! IO edge (sockets, tokio). Must not import `cli`, `tui`, `nav` or `evidence`.

mod serve;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

/// Why the egress proxy could not listen.
#[derive(Debug, thiserror::Error)]
pub enum EgressError {
    #[error("cannot listen for the egress proxy on {at}: {source}")]
    Listen { at: String, source: std::io::Error },
}

/// The `host:port`s a probe may reach.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList(BTreeSet<(String, u16)>);

impl AllowList {
    /// The hosts of `urls` (`https://prom.example:9090/…`; the scheme's port when none is
    /// given) and `host:port` entries (`[sandbox] allow_hosts`; port 443 when none is given).
    pub fn from_urls<'a>(urls: impl IntoIterator<Item = &'a str>) -> AllowList {
        let mut a = AllowList::default();
        for u in urls {
            if let Some((h, p)) = host_port(u) {
                a.add(&h, p);
            }
        }
        a
    }

    pub fn add(&mut self, host: &str, port: u16) {
        self.0.insert((host.to_ascii_lowercase(), port));
    }

    pub fn allows(&self, host: &str, port: u16) -> bool {
        self.0.contains(&(host.to_ascii_lowercase(), port))
    }
}

/// `https://h:p/x`, `http://h/x`, `h:p` or `h` as (host, port).
pub fn host_port(s: &str) -> Option<(String, u16)> {
    let (default, rest) = match s.split_once("://") {
        Some(("http", r)) => (80, r),
        Some((_, r)) => (443, r),
        None => (443, s),
    };
    let auth = rest.split(['/', '?', '#']).next()?;
    let auth = auth.rsplit('@').next()?;
    let (host, port) = match auth.strip_prefix('[') {
        Some(v6) => {
            let (h, after) = v6.split_once(']')?;
            (h, after.strip_prefix(':'))
        }
        None => match auth.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (auth, None),
        },
    };
    let port = match port {
        Some(p) => p.parse().ok()?,
        None => default,
    };
    (!host.is_empty()).then(|| (host.to_ascii_lowercase(), port))
}

/// One connection the proxy decided for a probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EgressDecision {
    pub host: String,
    pub port: u16,
    /// `CONNECT` or the plain-HTTP method.
    pub method: String,
    /// `None` when let through; the refusal line otherwise.
    pub refused: Option<String>,
}

/// The session's egress proxy: its allow list, shared by every probe's ticket.
#[derive(Debug, Clone, Default)]
pub struct Egress {
    allow: Arc<RwLock<AllowList>>,
}

impl Egress {
    pub fn new(allow: AllowList) -> Egress {
        Egress {
            allow: Arc::new(RwLock::new(allow)),
        }
    }

    /// Lets `host:port` through from now on (a port-forward the session opened).
    pub fn allow(&self, host: &str, port: u16) {
        self.allow
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .add(host, port);
    }

    /// A probe's ticket whose connections come through [`Ticket::door`].
    pub fn ticket(&self) -> Ticket {
        Ticket {
            at: Listening::Door(self.allow.clone()),
            log: Arc::new(Mutex::new(Vec::new())),
            task: None,
        }
    }

    /// A probe's listener on the unix socket `path` (replaced if it exists).
    pub async fn ticket_unix(&self, path: &Path) -> Result<Ticket, EgressError> {
        let _ = std::fs::remove_file(path);
        let l = tokio::net::UnixListener::bind(path).map_err(|source| EgressError::Listen {
            at: path.display().to_string(),
            source,
        })?;
        let log = Arc::new(Mutex::new(Vec::new()));
        let task = tokio::spawn(serve::accept_unix(l, self.allow.clone(), log.clone()));
        Ok(Ticket {
            at: Listening::Unix(path.to_path_buf()),
            log,
            task: Some(task),
        })
    }

    /// A probe's listener on `127.0.0.1:0`.
    pub async fn ticket_tcp(&self) -> Result<Ticket, EgressError> {
        let err = |source| EgressError::Listen {
            at: "127.0.0.1:0".into(),
            source,
        };
        let l = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(err)?;
        let addr = l.local_addr().map_err(err)?;
        let log = Arc::new(Mutex::new(Vec::new()));
        let task = tokio::spawn(serve::accept_tcp(l, self.allow.clone(), log.clone()));
        Ok(Ticket {
            at: Listening::Tcp(addr),
            log,
            task: Some(task),
        })
    }
}

#[derive(Debug)]
enum Listening {
    Unix(PathBuf),
    Tcp(std::net::SocketAddr),
    /// No listener: the jail's door hands each connection over ([`Ticket::door`]).
    Door(Arc<RwLock<AllowList>>),
}

/// One probe's way out; dropping it stops the listener.
#[derive(Debug)]
pub struct Ticket {
    at: Listening,
    log: Arc<Mutex<Vec<EgressDecision>>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Ticket {
    /// The unix socket it listens on, if it is one.
    pub fn socket_path(&self) -> Option<&Path> {
        match &self.at {
            Listening::Unix(p) => Some(p),
            _ => None,
        }
    }

    /// The loopback address it listens on, if it is one (`http://ADDR` for `HTTPS_PROXY`).
    pub fn tcp_addr(&self) -> Option<std::net::SocketAddr> {
        match &self.at {
            Listening::Tcp(a) => Some(*a),
            _ => None,
        }
    }

    /// What serves a jailed probe's egress door, for a ticket from [`Egress::ticket`]: each
    /// connection decided by the allow list and recorded in this ticket, on a task of its
    /// own. `None` for a ticket with a listener of its own.
    pub fn door(&self) -> Option<Arc<dyn Fn(tokio::net::TcpStream) + Send + Sync>> {
        let Listening::Door(allow) = &self.at else {
            return None;
        };
        let (allow, log) = (allow.clone(), self.log.clone());
        Some(Arc::new(move |conn| {
            drop(tokio::spawn(serve::handle(
                conn,
                allow.clone(),
                log.clone(),
            )));
        }))
    }

    pub fn decisions(&self) -> Vec<EgressDecision> {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The refusals, one line each, for the probe's output and evidence record.
    pub fn report(&self) -> String {
        self.decisions()
            .iter()
            .filter_map(|d| d.refused.as_ref())
            .map(|l| format!("{l}\n"))
            .collect()
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if let Some(t) = &self.task {
            t.abort();
        }
        if let Listening::Unix(p) = &self.at {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_ports_are_read_from_urls_and_entries() {
        let a = AllowList::from_urls([
            "https://Prom.example:9090/api",
            "http://am.example/",
            "kusto.example",
            "[::1]:8080",
            "user@10.0.0.1:5000",
        ]);
        assert!(a.allows("prom.example", 9090));
        assert!(a.allows("am.example", 80));
        assert!(a.allows("kusto.example", 443));
        assert!(a.allows("::1", 8080));
        assert!(a.allows("10.0.0.1", 5000));
        assert!(!a.allows("prom.example", 443));
        assert!(!a.allows("evil.example", 443));
        assert_eq!(host_port("https://h:notaport"), None);
    }
}
