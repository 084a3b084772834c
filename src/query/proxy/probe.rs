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

use super::{Grant, Proxy};
use crate::query::ProbeRequest;

/// The session's proxy, started by the first probe that needs it, and the discovery cache
/// its probes share.
#[derive(Clone, Default)]
pub struct SessionProxy(Arc<tokio::sync::OnceCell<Proxy>>, Arc<SessionCache>);

/// kubectl's cache folder for the session's probes (`KUBECACHEDIR`), removed with the session.
/// kubectl keys its discovery cache by the server URL; a jailed probe's URL is the door's
/// (`http://127.0.0.1:PORT`, the same for every probe of the session), so a folder tsgnav
/// filled with its context's discovery is the probe's `KUBECACHEDIR` itself, shown read-only
/// in its jail: probes after the first of a context skip API discovery, nothing is made per
/// probe, and contexts whose servers answer alike share one folder (see
/// [`SessionCache::discovered`]). A probe without the jail has the token in its URL: its own
/// folder links to a shared one of its kubeconfig and context.
#[derive(Default)]
struct SessionCache {
    dir: std::sync::OnceLock<PathBuf>,
    /// The shared folders made so far for probes without the jail (by their key).
    made: std::sync::Mutex<std::collections::HashSet<String>>,
    /// The folder filled for each context (by its key).
    filled: std::sync::Mutex<std::collections::HashMap<String, PathBuf>>,
    /// The folder written for each discovery (by its digest).
    written: std::sync::Mutex<std::collections::HashMap<String, PathBuf>>,
}

/// A context's key in the session's cache: its kubeconfig and its name.
fn context_key(real: &Path, grant: &Grant) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(format!(
        "{}\0{}",
        real.display(),
        grant.context()
    )))
}

impl SessionCache {
    fn dir(&self) -> &Path {
        self.dir.get_or_init(|| {
            static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let dir = crate::query::scratch::path("tsgnav-kube-cache", n);
            // Made new, or not used at all (`private` checks it is ours).
            let _ = crate::query::scratch::make_private(&dir);
            dir
        })
    }

    /// The session's cache folder, unless it is not this user's own, closed to others
    /// (somebody else made it first, to feed probes a discovery of their choosing).
    fn private(&self) -> Option<&Path> {
        let cache = self.dir();
        crate::query::scratch::private_to_us(cache).then_some(cache)
    }

    /// The shared folder of `real`'s context `grant` serves (for probes without the jail),
    /// made if it is not yet; `None` when the cache folder is not ours or it cannot be made.
    fn shared(&self, real: &Path, grant: &Grant) -> Option<PathBuf> {
        let key = context_key(real, grant);
        let shared = self.private()?.join("shared").join(&key[..24]);
        let mut made = self.made.lock().unwrap_or_else(|p| p.into_inner());
        if !made.contains(&key) {
            std::fs::create_dir_all(&shared).ok()?;
            made.insert(key);
        }
        Some(shared)
    }

    /// The folder holding the discovery of `real`'s context `grant` serves, for a jailed
    /// probe (`KUBECACHEDIR`), filled by tsgnav itself on the context's first probe: the
    /// discovery is read natively with the context's upstream client
    /// ([`super::discovery`]; no kubectl process, no request through the proxy) and written
    /// once per distinct discovery (by its digest: the same bytes for every context that
    /// shares it). `None` when it cannot be read or written in time; the probe then does
    /// its own discovery.
    async fn discovered(&self, real: &Path, grant: &Grant) -> Option<PathBuf> {
        let key = context_key(real, grant);
        let filled = (self.filled.lock().unwrap_or_else(|p| p.into_inner()))
            .get(&key)
            .cloned();
        if filled.is_some() {
            return filled;
        }
        let cache = self.private()?.to_path_buf();
        let read = super::discovery::read(&grant.pass.upstream);
        let found = tokio::time::timeout(FILL_LIMIT, read).await.ok()?.ok()?;
        let digest = found.digest();
        let had = (self.written.lock().unwrap_or_else(|p| p.into_inner()))
            .get(&digest)
            .cloned();
        let folder = match had {
            Some(f) => f,
            None => {
                let f = cache.join("discovered").join(&digest[..32]);
                let inside = f
                    .join("discovery")
                    .join(format!("127.0.0.1_{}", grant.port()));
                found.write(&inside).ok()?;
                let mut written = self.written.lock().unwrap_or_else(|p| p.into_inner());
                written.insert(digest, f.clone());
                f
            }
        };
        let mut known = self.filled.lock().unwrap_or_else(|p| p.into_inner());
        known.insert(key, folder.clone());
        Some(folder)
    }
}

impl Drop for SessionCache {
    fn drop(&mut self) {
        if let Some(d) = self.dir.get() {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// The `KUBECACHEDIR` of a probe without the jail: a folder in its own scratch whose
/// discovery folder for its server URL links to the shared one of its context (returned too,
/// `None` when linking failed, which costs only a fresh discovery). That URL holds its
/// token, so the link lives in the probe's scratch and never in the session's cache, where
/// every probe could list the passes of the probes running beside it.
fn linked_cache(
    cache: &SessionCache,
    real: &Path,
    grant: &Grant,
    scratch: &Path,
) -> (PathBuf, Option<PathBuf>) {
    let own_cache = scratch.join(".kube-cache");
    let Some(shared) = cache.shared(real, grant) else {
        return (own_cache, None);
    };
    // kubectl's folder name: the server URL without its scheme, `:` made `_`.
    let own = own_cache
        .join("discovery")
        .join(format!("127.0.0.1_{}", grant.port()))
        .join("p")
        .join(grant.token());
    let linked = own
        .parent()
        .is_some_and(|p| std::fs::create_dir_all(p).is_ok())
        && std::os::unix::fs::symlink(&shared, &own).is_ok();
    (own_cache, linked.then_some(shared))
}

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
