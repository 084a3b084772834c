//! Filling kubectl's discovery cache of one context natively: tsgnav reads `/api`, `/apis`
//! and every group version's resource list with the context's own upstream client (the real
//! credentials, no proxy hop, no kubectl process) and writes them in the layout and the
//! encoding kubectl's disk cache reads (`servergroups.json` with the legacy group first,
//! `GROUP/VERSION/serverresources.json`, each with its `kind` and `apiVersion`). Each file
//! is written whole under a temporary name and renamed into place, the resource lists before
//! `servergroups.json`, so a probe (or a second filler of the same context) never reads a
//! half-written cache: a cache is there when its `servergroups.json` is. What was read has a
//! digest of its files ([`Discovery::digest`]), so contexts whose servers answer alike (a
//! fleet at one version) can share one folder of files: the same bytes either way.
//!
//! Only `GET`s of those fixed discovery paths are sent: nothing of a probe reaches this code.
//!
//! IO edge (the kube client, files). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::path::Path;

use serde_json::{json, Value};

/// Why the cache could not be filled (the probe then does its own discovery).
#[derive(Debug, thiserror::Error)]
pub enum FillError {
    #[error("GET {path}: {detail}")]
    Read { path: String, detail: String },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// One server's discovery as kubectl's cache files: each path (relative to the cache folder
/// of that server) and its bytes, `servergroups.json` last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovery {
    files: Vec<(String, Vec<u8>)>,
}

impl Discovery {
    /// sha256 (hex) over every path and its bytes: two servers with the same digest give
    /// kubectl the same cache.
    pub fn digest(&self) -> String {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        for (path, bytes) in &self.files {
            h.update((path.len() as u64).to_le_bytes());
            h.update(path.as_bytes());
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        }
        hex::encode(h.finalize())
    }

    /// Writes every file into `dir` (the resource lists first, `servergroups.json` last).
    pub fn write(&self, dir: &Path) -> Result<(), FillError> {
        for (path, bytes) in &self.files {
            write(&dir.join(path), bytes)?;
        }
        Ok(())
    }
}

/// Reads the discovery of `upstream`'s server and writes it into `dir` (the cache folder
/// kubectl sees as `KUBECACHEDIR/discovery/HOST_PORT`).
pub async fn fill(upstream: &kube::Client, dir: &Path) -> Result<(), FillError> {
    read(upstream).await?.write(dir)
}

/// Reads the discovery of `upstream`'s server: `/api`, `/apis`, then each group version.
pub async fn read(upstream: &kube::Client) -> Result<Discovery, FillError> {
    let core = get(upstream, "/api").await?;
    let apis = get(upstream, "/apis").await?;
    let groups = server_groups(&core, &apis);
    let versions: Vec<String> = groups["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["versions"].as_array().into_iter().flatten())
        .filter_map(|v| v["groupVersion"].as_str().map(String::from))
        // A group version names a folder: one the server words as a path (`../x/v1`) is not
        // written (kubectl then asks for it itself, through the proxy).
        .filter(|gv| safe_group_version(gv))
        .collect();
    let encode = |path: &str, v: &Value| {
        serde_json::to_vec(v).map_err(|e| FillError::Write {
            path: path.to_string(),
            source: std::io::Error::other(e),
        })
    };
    let mut files = Vec::with_capacity(versions.len() + 1);
    // One after the other, on the one kept-alive connection the first GETs opened: asked all
    // at once, each would open a connection (and, over HTTPS, a TLS handshake) of its own.
    for gv in &versions {
        let path = match gv.contains('/') {
            true => format!("/apis/{gv}"),
            false => format!("/api/{gv}"),
        };
        let mut list = get(upstream, &path).await?;
        typed(&mut list, "APIResourceList");
        if list.get("groupVersion").is_none() {
            list["groupVersion"] = json!(gv);
        }
        let file = format!("{gv}/serverresources.json");
        files.push((file.clone(), encode(&file, &list)?));
    }
    files.push((
        "servergroups.json".to_string(),
        encode("servergroups.json", &groups)?,
    ));
    Ok(Discovery { files })
}

/// kubectl's `servergroups.json`: the legacy group (from `/api`'s versions) first, then the
/// groups of `/apis`, as an `APIGroupList`.
pub fn server_groups(core: &Value, apis: &Value) -> Value {
    let legacy: Vec<Value> = core["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|v| json!({"groupVersion": v, "version": v}))
        .collect();
    let mut groups = Vec::new();
    if let Some(first) = legacy.first() {
        groups.push(json!({"name": "", "versions": legacy, "preferredVersion": first}));
    }
    groups.extend(apis["groups"].as_array().into_iter().flatten().cloned());
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// Whether `gv` is `VERSION` or `GROUP/VERSION` made of DNS characters only (no `..`, no
/// empty part, no other `/`), so it stays a folder inside the cache.
pub fn safe_group_version(gv: &str) -> bool {
    let parts: Vec<&str> = gv.split('/').collect();
    parts.len() <= 2
        && parts.iter().all(|p| {
            !p.is_empty()
                && !p.starts_with('.')
                && p.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-')
        })
}

/// Gives `v` its type meta when the server left it out (kubectl's decoder needs it).
fn typed(v: &mut Value, kind: &str) {
    if let Some(o) = v.as_object_mut() {
        o.entry("kind").or_insert_with(|| json!(kind));
        o.entry("apiVersion").or_insert_with(|| json!("v1"));
    }
}

async fn get(upstream: &kube::Client, path: &str) -> Result<Value, FillError> {
    let read = |detail: String| FillError::Read {
        path: path.to_string(),
        detail,
    };
    let req = axum::http::Request::get(path)
        .header("accept", "application/json")
        .body(Vec::new())
        .map_err(|e| read(e.to_string()))?;
    let text = upstream
        .request_text(req)
        .await
        .map_err(|e| read(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| read(format!("not JSON: {e}")))
}

/// Writes `bytes` to `path` whole: a temporary file beside it (mode 0600), then a rename.
fn write(path: &Path, bytes: &[u8]) -> Result<(), FillError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let fail = |source| FillError::Write {
        path: path.display().to_string(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(fail)?;
    // Unique within the process (the cache folder is this process's own, closed to others):
    // two fillers of one context never share a temporary file.
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(
        ".{}.{}-{n}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("part"),
        std::process::id()
    ));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(fail)?;
    let done = f
        .write_all(bytes)
        .and_then(|()| std::fs::rename(&tmp, path));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done.map_err(fail)
}

#[cfg(test)]
#[path = "discovery_tests.rs"]
mod tests;
