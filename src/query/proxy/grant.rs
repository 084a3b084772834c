//! One probe's pass through the read-only proxy: a random token that the proxy maps to
//! the run it serves (the context, whether a confirmed change may write to it, the upstream
//! client holding the real credentials), the kubeconfig tsgnav writes for the probe (the
//! proxy as its only server, the selected context as its only context, the token as its only
//! credential), and the record of every request the proxy decided for it.
//!
//! IO edge (files, the kube client). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::json;

/// Why a probe could not be given a pass through the proxy.
#[derive(Debug, thiserror::Error)]
pub enum GrantError {
    #[error("{0}")]
    Kubeconfig(String),
    #[error("cannot write the probe's kubeconfig {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot start the read-only API proxy (127.0.0.1 and its unix socket): {0}")]
    Listen(std::io::Error),
    #[error("cannot draw a random token for the proxy")]
    Random,
}

/// One request the proxy decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decided {
    pub method: String,
    /// The path and query as asked.
    pub target: String,
    /// `None` when forwarded; the refusal's message otherwise.
    pub refused: Option<String>,
}

impl Decided {
    /// One line for the probe's output: `tsgnav proxy: refused DELETE /api/… (why)`.
    pub fn line(&self) -> String {
        match &self.refused {
            None => format!("tsgnav proxy: forwarded {} {}", self.method, self.target),
            Some(why) => format!(
                "tsgnav proxy: refused {} {}: {why}",
                self.method, self.target
            ),
        }
    }
}

/// What the proxy knows about one pass.
pub struct Pass {
    /// The kube context the probe was given.
    pub context: String,
    /// Whether writes to `context` pass (a confirmed change aimed at it).
    pub confirmed: bool,
    /// The client with the real credentials for `context`.
    pub upstream: kube::Client,
    /// The context's real API server (`https://…:443`), which errors name in place of the
    /// proxy's loopback URL.
    pub server: String,
    /// The writes a confirmed run is confined to, once set (see `super::confine`).
    pub writes: std::sync::OnceLock<Vec<super::policy::Write>>,
    /// Every decision, in order.
    pub log: Mutex<Vec<Decided>>,
}

impl Pass {
    pub fn record(&self, d: Decided) {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).push(d);
    }
}

/// The passes of a proxy by token.
pub type Passes = Arc<Mutex<std::collections::HashMap<String, Arc<Pass>>>>;

/// A probe's pass; dropping it revokes the token.
pub struct Grant {
    pub(super) token: String,
    pub(super) pass: Arc<Pass>,
    pub(super) passes: Passes,
    /// The proxy's count of decided requests (its door counts there too).
    pub(super) decided: Arc<std::sync::atomic::AtomicU64>,
    pub(super) port: u16,
    pub(super) namespace: String,
}

impl Grant {
    /// The proxy's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The pass's token (the path prefix of its server URL).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The context this pass serves.
    pub fn context(&self) -> &str {
        &self.pass.context
    }

    /// The real API server of that context.
    pub fn server(&self) -> &str {
        &self.pass.server
    }

    /// The proxy's URL for this pass, as the probe's kubeconfig names it.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/p/{}", self.port, self.token)
    }

    /// Every request decided so far.
    pub fn decisions(&self) -> Vec<Decided> {
        self.pass
            .log
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The kubeconfig text: the proxy (`http://127.0.0.1:PORT/p/TOKEN`) as the one cluster,
    /// the context as the one context (with the real context's default namespace), and a
    /// user without credentials. JSON, which kubeconfig readers take as the YAML it is.
    pub fn kubeconfig(&self) -> String {
        self.kubeconfig_for(&self.url())
    }

    /// [`Grant::kubeconfig`] for a jailed probe: its server is its door
    /// (`http://127.0.0.1:PORT`), which serves every connection as this grant's, so the
    /// token is in none of the probe's files, and kubectl's discovery folder for that URL is
    /// the same for every probe of the session.
    pub fn door_kubeconfig(&self) -> String {
        self.kubeconfig_for(&format!("http://127.0.0.1:{}", self.port))
    }

    fn kubeconfig_for(&self, server: &str) -> String {
        let ctx = &self.pass.context;
        let cfg = json!({
            "apiVersion": "v1", "kind": "Config", "preferences": {},
            "clusters": [{"name": "tsgnav-read-only-proxy",
                "cluster": {"server": server}}],
            "users": [{"name": "tsgnav-probe", "user": {}}],
            "contexts": [{"name": ctx, "context": {"cluster": "tsgnav-read-only-proxy",
                "user": "tsgnav-probe", "namespace": self.namespace}}],
            "current-context": ctx,
        });
        cfg.to_string()
    }

    /// Writes [`Self::kubeconfig`] to `path`, readable by its owner only.
    pub fn write_kubeconfig(&self, path: &Path) -> Result<(), GrantError> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let err = |source| GrantError::Write {
            path: path.display().to_string(),
            source,
        };
        let _ = std::fs::remove_file(path);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .map_err(err)?;
        f.write_all(self.kubeconfig().as_bytes()).map_err(err)
    }
}

impl Drop for Grant {
    fn drop(&mut self) {
        self.passes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.token);
    }
}

/// 32 random bytes, hex.
pub(super) fn token() -> Result<String, GrantError> {
    use ring::rand::SecureRandom;
    let mut b = [0u8; 32];
    ring::rand::SystemRandom::new()
        .fill(&mut b)
        .map_err(|_| GrantError::Random)?;
    Ok(hex::encode(b))
}

/// A client for `context` (the current one when `None`) of the kubeconfig at `path` (a
/// `KUBECONFIG`-style list is merged), with its default namespace and the context's name. No
/// read timeout (watches and `logs -f` stay open as long as the probe keeps them) and no
/// retries (a request is sent once, as the probe sent it).
pub(super) async fn upstream(path: &Path, context: Option<&str>) -> Result<Upstream, GrantError> {
    super::super::kube::client::install_crypto();
    let kc = super::super::kube::kubeconfigs::shared(path)
        .map_err(|e| GrantError::Kubeconfig(e.to_string()))?;
    let name = context
        .map(String::from)
        .or_else(|| kc.current_context.clone())
        .ok_or_else(|| {
            GrantError::Kubeconfig(format!(
                "{} names no current-context and the probe names no context",
                path.display()
            ))
        })?;
    let opts = kube::config::KubeConfigOptions {
        context: Some(name.clone()),
        ..Default::default()
    };
    // Only what this context needs: a kubeconfig with hundreds of contexts is not loaded whole.
    let kc = super::super::kube::client::only(&kc, Some(&name));
    let mut config = kube::Config::from_custom_kubeconfig(kc, &opts)
        .await
        .map_err(|e| GrantError::Kubeconfig(format!("{}: {e}", path.display())))?;
    config.read_timeout = None;
    config.write_timeout = None;
    config.default_retry = false;
    let ns = config.default_namespace.clone();
    let server = config.cluster_url.to_string();
    // No TLS for a plain-HTTP server; the session's one TLS configuration per server identity.
    let client = super::super::kube::connect::client(config)
        .map_err(|e| GrantError::Kubeconfig(format!("{}: {e}", path.display())))?;
    Ok((client, ns, name, server))
}

/// A context's client, its default namespace, the context's name and its API server's URL.
pub(super) type Upstream = (kube::Client, String, String, String);
