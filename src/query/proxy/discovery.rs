//! Filling kubectl's discovery cache of one context natively: tsgnav reads `/api`, `/apis`
//! and every group version's resource list with the context's own upstream client (the real
//! credentials, no proxy hop, no kubectl process) and writes them in the layout and the
//! encoding kubectl's disk cache reads (`servergroups.json` with the legacy group first,
//! `GROUP/VERSION/serverresources.json`, each with its `kind` and `apiVersion`). Each file
//! is written whole under a temporary name and renamed into place, the resource lists before
//! `servergroups.json`, so a probe (or a second filler of the same context) never reads a
//! half-written cache: a cache is there when its `servergroups.json` is. What was read has a
//! digest of its files ([`Discovery::digest`]), so contexts whose servers answer alike (a
//! fleet at one version) can share one folder of files: the same bytes either way. Every
//! context's server is still read; a server whose answers are byte for byte those of one
//! read before gets that discovery without parsing and encoding them again ([`Known`]).
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
    read(upstream, &Known::default()).await?.found.write(dir)
}

/// What one server answered to the discovery reads, in the order they were sent (each path
/// and its body as received), the discovery made of it and that discovery's digest.
#[derive(Debug)]
pub struct Answered {
    answers: Vec<(String, String)>,
    pub found: Discovery,
    pub digest: String,
}

/// The discoveries read so far (a session's, a few at most): what a server answers decides
/// its discovery files alone, so a server whose every answer is byte for byte that of a
/// server read before has that discovery, and its answers are not parsed, encoded and
/// hashed again (a fleet at one version: all but the first of its contexts). Every read
/// still goes to the server.
#[derive(Debug, Default)]
pub struct Known(std::sync::Mutex<Vec<std::sync::Arc<Answered>>>);

/// How many distinct discoveries [`Known`] keeps (the oldest goes first).
const KNOWN_KEPT: usize = 8;

impl Known {
    /// The discovery read before whose `/api` and `/apis` answers were `core` and `apis`.
    fn like(&self, core: &str, apis: &str) -> Option<std::sync::Arc<Answered>> {
        let known = self.0.lock().unwrap_or_else(|p| p.into_inner());
        (known.iter())
            .find(|k| k.answers.len() >= 2 && k.answers[0].1 == core && k.answers[1].1 == apis)
            .cloned()
    }

    fn keep(&self, a: std::sync::Arc<Answered>) {
        let mut known = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if known.len() >= KNOWN_KEPT {
            known.remove(0);
        }
        known.push(a);
    }
}

/// Reads the discovery of `upstream`'s server: `/api`, `/apis`, then each group version; a
/// server that answers every read as one in `known` did gets that discovery as it was made.
pub async fn read(
    upstream: &kube::Client,
    known: &Known,
) -> Result<std::sync::Arc<Answered>, FillError> {
    let core = get(upstream, "/api").await?;
    let apis = get(upstream, "/apis").await?;
    let like = known.like(&core, &apis);
    let mut answers = vec![("/api".to_string(), core), ("/apis".to_string(), apis)];
    if let Some(k) = like {
        // The same `/api` and `/apis` name the same group versions, in the same order.
        let mut same = true;
        for (path, body) in &k.answers[2..] {
            let got = get(upstream, path).await?;
            same &= got == *body;
            answers.push((path.clone(), got));
        }
        if same {
            return Ok(k);
        }
    }
    let made = std::sync::Arc::new(made_of(upstream, answers).await?);
    known.keep(made.clone());
    Ok(made)
}

/// The discovery made of `answers` (`/api` and `/apis` first; any group version's answer
/// already read), reading the group versions not answered yet.
async fn made_of(
    upstream: &kube::Client,
    mut answers: Vec<(String, String)>,
) -> Result<Answered, FillError> {
    let core = json_of("/api", &answers[0].1)?;
    let apis = json_of("/apis", &answers[1].1)?;
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
        let had = (answers.iter()).position(|(p, _)| *p == path);
        let i = match had {
            Some(i) => i,
            None => {
                let body = get(upstream, &path).await?;
                answers.push((path.clone(), body));
                answers.len() - 1
            }
        };
        let mut list = json_of(&path, &answers[i].1)?;
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
    let found = Discovery { files };
    Ok(Answered {
        answers,
        digest: found.digest(),
        found,
    })
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

/// The body of `GET path`, as received.
async fn get(upstream: &kube::Client, path: &str) -> Result<String, FillError> {
    let read = |detail: String| FillError::Read {
        path: path.to_string(),
        detail,
    };
    let req = axum::http::Request::get(path)
        .header("accept", "application/json")
        .body(Vec::new())
        .map_err(|e| read(e.to_string()))?;
    upstream
        .request_text(req)
        .await
        .map_err(|e| read(e.to_string()))
}

fn json_of(path: &str, body: &str) -> Result<Value, FillError> {
    serde_json::from_str(body).map_err(|e| FillError::Read {
        path: path.to_string(),
        detail: format!("not JSON: {e}"),
    })
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
