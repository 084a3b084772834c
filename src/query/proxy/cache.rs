//! kubectl's discovery cache for the session's probes (`KUBECACHEDIR`), in a folder of the
//! scratch base that only this user may open, removed with the session: the folders tsgnav
//! fills with each context's discovery (read natively, [`super::discovery`]) and shows a
//! jailed probe read-only, one per distinct discovery; and, for probes without the jail, a
//! shared folder per context that each probe's own cache folder links to.
//!
//! IO edge (folders). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::path::{Path, PathBuf};

use super::Grant;

/// kubectl's cache folder for the session's probes (`KUBECACHEDIR`), removed with the session.
/// kubectl keys its discovery cache by the server URL; a jailed probe's URL is the door's
/// (`http://127.0.0.1:PORT`, the same for every probe of the session), so a folder tsgnav
/// filled with its context's discovery is the probe's `KUBECACHEDIR` itself, shown read-only
/// in its jail: probes after the first of a context skip API discovery, nothing is made per
/// probe, and contexts whose servers answer alike share one folder (see
/// [`SessionCache::discovered`]). A probe without the jail has the token in its URL: its own
/// folder links to a shared one of its kubeconfig and context.
#[derive(Default)]
pub(super) struct SessionCache {
    dir: std::sync::OnceLock<PathBuf>,
    /// The shared folders made so far for probes without the jail (by their key).
    made: std::sync::Mutex<std::collections::HashSet<String>>,
    /// The folder filled for each context (by its key).
    filled: std::sync::Mutex<std::collections::HashMap<String, PathBuf>>,
    /// The folder written for each discovery (by its digest).
    written: std::sync::Mutex<std::collections::HashMap<String, PathBuf>>,
    /// The discoveries read so far, by what their servers answered.
    known: super::discovery::Known,
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
    pub(super) fn dir(&self) -> &Path {
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
    pub(super) async fn discovered(&self, real: &Path, grant: &Grant) -> Option<PathBuf> {
        let key = context_key(real, grant);
        let filled = (self.filled.lock().unwrap_or_else(|p| p.into_inner()))
            .get(&key)
            .cloned();
        if filled.is_some() {
            return filled;
        }
        let cache = self.private()?.to_path_buf();
        let read = super::discovery::read(&grant.pass.upstream, &self.known);
        let found = tokio::time::timeout(super::probe::FILL_LIMIT, read)
            .await
            .ok()?
            .ok()?;
        let digest = found.digest.clone();
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
                found.found.write(&inside).ok()?;
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
pub(super) fn linked_cache(
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
