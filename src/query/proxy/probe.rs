//! Giving one shell probe its way to the cluster: when the script runs kubectl, oc or helm,
//! the session's proxy (started on first use, then reused) grants the probe a pass for its
//! context, writes the probe's kubeconfig into its scratch folder, and afterwards names every
//! refused request in the probe's output. When no pass can be given (no kubeconfig, an
//! unknown context), the probe runs without one and its output says why; a read-only probe
//! then cannot reach the API server at all under Landlock (only the proxy's port is open).
//!
//! IO edge. Must not import `cli`, `tui`, `nav` or `evidence`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::cache::{linked_cache, SessionCache};
use super::{Grant, Proxy};
use crate::query::ProbeRequest;

/// The session's proxy, started by the first probe that needs it, and the discovery cache
/// its probes share.
#[derive(Clone, Default)]
pub struct SessionProxy(Arc<tokio::sync::OnceCell<Proxy>>, Arc<SessionCache>);

impl std::fmt::Debug for SessionProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.get() {
            Some(p) => write!(f, "SessionProxy(127.0.0.1:{})", p.port()),
            None => f.write_str("SessionProxy(not started)"),
        }
    }
}

/// Whether a script names kubectl, oc or helm anywhere (a word of its own).
pub fn uses_kube_cli(script: &str) -> bool {
    script
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .any(|w| matches!(w, "kubectl" | "oc" | "helm"))
}

/// What a probe got: its pass and kubeconfig, or why it has none.
pub enum ProbeAccess {
    Proxied {
        grant: Grant,
        kubeconfig: PathBuf,
        /// `KUBECACHEDIR` for the probe (in its scratch).
        cache: PathBuf,
        /// The shared discovery folder its cache links to, shown read-only in a jail.
        shared: Option<PathBuf>,
    },
    Direct {
        why: String,
    },
}

impl ProbeAccess {
    /// The proxy's port, when the probe goes through it.
    pub fn port(&self) -> Option<u16> {
        match self {
            ProbeAccess::Proxied { grant, .. } => Some(grant.port()),
            ProbeAccess::Direct { .. } => None,
        }
    }

    /// Every request decided for the probe, one line each (`forwarded GET /api/…`).
    pub fn decisions(&self) -> Vec<String> {
        match self {
            ProbeAccess::Proxied { grant, .. } => grant
                .decisions()
                .iter()
                .map(|d| d.line().trim_start_matches("tsgnav proxy: ").to_string())
                .collect(),
            ProbeAccess::Direct { .. } => Vec::new(),
        }
    }

    /// The lines the probe's output ends with: each refused request, or why there was no
    /// proxy.
    pub fn report(&self) -> String {
        match self {
            ProbeAccess::Proxied { grant, .. } => grant
                .decisions()
                .iter()
                .filter(|d| d.refused.is_some())
                .map(|d| format!("{}\n", d.line()))
                .collect(),
            ProbeAccess::Direct { why } => {
                format!("tsgnav proxy: this probe ran without the read-only API proxy: {why}\n")
            }
        }
    }
}

impl SessionProxy {
    /// A pass for `req` (its kubeconfig, else `$KUBECONFIG`, else `~/.kube/config`; its
    /// context, else the current one). Writes pass only for a confirmed request. The
    /// kubeconfig goes to `scratch/kubeconfig`, unless the probe is `jailed`: then it is
    /// [`GRANT_KUBECONFIG`], written by the jail into the probe's private `/tmp` (the
    /// caller hands it [`Grant::door_kubeconfig`]), where no other probe can read it.
    pub async fn access(&self, req: &ProbeRequest, scratch: &Path, jailed: bool) -> ProbeAccess {
        let Some(real) = crate::query::kube::default_kubeconfig(req.target.kubeconfig.clone())
        else {
            return ProbeAccess::Direct {
                why: "no kubeconfig (set KUBECONFIG or pass --kubeconfig)".into(),
            };
        };
        if !std::env::split_paths(real.as_os_str()).any(|p| p.exists()) {
            return ProbeAccess::Direct {
                why: format!("the kubeconfig {} does not exist", real.display()),
            };
        }
        let proxy = match self.0.get_or_try_init(Proxy::start).await {
            Ok(p) => p,
            Err(e) => return ProbeAccess::Direct { why: e.to_string() },
        };
        let context = req.target.kube_context.as_deref();
        let confirmed = req.confirmation.is_some();
        let mut grant = match proxy.grant(&real, context, confirmed).await {
            Ok(g) => g,
            Err(e) => return ProbeAccess::Direct { why: e.to_string() },
        };
        if let Some(ns) = &req.target.default_namespace {
            // The session's namespace, in place of the real context's default.
            grant.namespace = ns.clone();
        }
        if confirmed {
            grant.confine_to(req);
        }
        let kubeconfig = match jailed {
            true => PathBuf::from(GRANT_KUBECONFIG),
            false => scratch.join("kubeconfig"),
        };
        let written = match jailed {
            true => Ok(()),
            false => grant.write_kubeconfig(&kubeconfig),
        };
        match written {
            Ok(()) => {
                let (cache, shared) = match jailed {
                    true => match self.1.discovered(&real, &grant).await {
                        Some(folder) => (folder.clone(), Some(folder)),
                        // kubectl discovers for itself, in the probe's scratch.
                        None => (scratch.join(".kube-cache"), None),
                    },
                    false => linked_cache(&self.1, &real, &grant, scratch),
                };
                ProbeAccess::Proxied {
                    cache,
                    shared,
                    grant,
                    kubeconfig,
                }
            }
            Err(e) => ProbeAccess::Direct { why: e.to_string() },
        }
    }

    /// The session's discovery cache folder (each context's shared folder in it is shown
    /// read-only inside the jails of its probes).
    pub fn cache_dir(&self) -> PathBuf {
        self.1.dir().to_path_buf()
    }
}

/// How long tsgnav's own discovery for a context may take before its probe runs without it.
pub const FILL_LIMIT: std::time::Duration = std::time::Duration::from_secs(20);

/// Where a jailed probe finds its kubeconfig: inside its own private `/tmp`.
pub const GRANT_KUBECONFIG: &str = "/tmp/tsgnav-grant/kubeconfig";

impl SessionProxy {
    /// How many requests the session's proxy has decided (0 before it started).
    pub fn decided(&self) -> u64 {
        self.0.get().map_or(0, Proxy::decided)
    }

    /// A read-only client for the native backend: `context` (else the current one) of
    /// `kubeconfig`, on the upstream client the proxy forwards that context's requests with
    /// (no loopback hop through the proxy, no kubeconfig written and parsed again), each
    /// request decided by the proxy's read-only policy before it is sent (and counted with
    /// the proxy's decisions): what tsgnav itself asks passes the same policy as a probe's.
    pub async fn native_client(
        &self,
        kubeconfig: &Path,
        context: Option<&str>,
        timeout: std::time::Duration,
    ) -> Result<crate::query::kube::client::KubeClient, super::GrantError> {
        let proxy = self.0.get_or_try_init(Proxy::start).await?;
        let (upstream, namespace, context, server) = proxy.upstream(kubeconfig, context).await?;
        let guard = proxy.read_only_guard(&context);
        Ok(crate::query::kube::client::KubeClient::guarded(
            upstream, server, namespace, timeout, guard,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::uses_kube_cli;

    #[test]
    fn kube_clis_are_found_as_words() {
        assert!(uses_kube_cli("kubectl get pods"));
        assert!(uses_kube_cli("x=$(oc get ns -o name)"));
        assert!(uses_kube_cli("/usr/bin/helm list"));
        assert!(uses_kube_cli("echo a | xargs kubectl delete pod"));
        assert!(!uses_kube_cli("echo kubectl-ish; ocean"));
        assert!(!uses_kube_cli("curl https://example.org"));
    }
}
