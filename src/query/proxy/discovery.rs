//! Filling kubectl's discovery cache of one context natively: tsgnav reads `/api`, `/apis`
//! and every group version's resource list with the context's own upstream client (the real
//! credentials, no proxy hop, no kubectl process) and writes them in the layout and the
//! encoding kubectl's disk cache reads (`servergroups.json` with the legacy group first,
//! `GROUP/VERSION/serverresources.json`, each with its `kind` and `apiVersion`). Each file
//! is written whole under a temporary name and renamed into place, the resource lists before
//! `servergroups.json`, so a probe (or a second filler of the same context) never reads a
//! half-written cache: a cache is there when its `servergroups.json` is.
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

/// Reads the discovery of `upstream`'s server and writes it into `dir` (the context's shared
/// cache folder, which kubectl sees as `KUBECACHEDIR/discovery/HOST_PORT/p/TOKEN`).
pub async fn fill(upstream: &kube::Client, dir: &Path) -> Result<(), FillError> {
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
    let lists = futures::future::join_all(versions.iter().map(|gv| async move {
        let path = match gv.contains('/') {
            true => format!("/apis/{gv}"),
            false => format!("/api/{gv}"),
        };
        get(upstream, &path).await.map(|l| (gv, l))
    }))
    .await;
    for got in lists {
        let (gv, mut list) = got?;
        typed(&mut list, "APIResourceList");
        if list.get("groupVersion").is_none() {
            list["groupVersion"] = json!(gv);
        }
        write(&dir.join(gv).join("serverresources.json"), &list)?;
    }
    write(&dir.join("servergroups.json"), &groups)
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

/// Writes `v` to `path` whole: a temporary file beside it (mode 0600), then a rename.
fn write(path: &Path, v: &Value) -> Result<(), FillError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let fail = |source| FillError::Write {
        path: path.display().to_string(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(fail)?;
    let tmp = dir.join(format!(
        ".{}.{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("part"),
        super::grant::token().map_err(|e| fail(std::io::Error::other(e.to_string())))?
    ));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(fail)?;
    let bytes = serde_json::to_vec(v).map_err(|e| fail(std::io::Error::other(e)))?;
    let done = f
        .write_all(&bytes)
        .and_then(|()| std::fs::rename(&tmp, path));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done.map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legacy_group_comes_first_with_its_versions_as_kubectl_writes_it() {
        let core = json!({"kind": "APIVersions", "versions": ["v1"]});
        let apis = json!({"kind": "APIGroupList", "groups": [
            {"name": "apps", "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
             "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"}}]});
        let g = server_groups(&core, &apis);
        assert_eq!(g["kind"], "APIGroupList");
        assert_eq!(g["apiVersion"], "v1");
        assert_eq!(g["groups"][0]["name"], "");
        assert_eq!(g["groups"][0]["versions"][0]["groupVersion"], "v1");
        assert_eq!(g["groups"][0]["preferredVersion"]["version"], "v1");
        assert_eq!(g["groups"][1]["name"], "apps");
        assert_eq!(g["groups"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn a_group_version_worded_as_a_path_is_never_a_folder() {
        for ok in [
            "v1",
            "apps/v1",
            "work.open-cluster-management.io/v1",
            "a-b.c/v1beta1",
        ] {
            assert!(safe_group_version(ok), "{ok}");
        }
        for bad in [
            "../v1",
            "../../etc/v1",
            "/abs/v1",
            "a/b/v1",
            "apps/",
            "/v1",
            "",
            "..",
            "apps/..",
            ".hidden/v1",
            "Apps/v1",
            "apps/v1\0",
            "apps\\v1",
        ] {
            assert!(!safe_group_version(bad), "{bad:?}");
        }
    }

    #[test]
    fn a_server_without_the_legacy_api_gets_no_empty_group() {
        let g = server_groups(&json!({}), &json!({"groups": []}));
        assert_eq!(g["groups"], json!([]));
    }

    #[test]
    fn a_file_is_written_whole_and_nothing_else_is_left_beside_it() {
        let dir = std::env::temp_dir().join(format!("tsgnav-fill-test-{}", std::process::id()));
        let path = dir.join("apps/v1/serverresources.json");
        write(&path, &json!({"a": 1})).expect("written");
        write(&path, &json!({"a": 2})).expect("written again");
        let text = std::fs::read_to_string(&path).expect("read");
        assert_eq!(text, r#"{"a":2}"#);
        let left: Vec<_> = std::fs::read_dir(path.parent().expect("dir"))
            .expect("list")
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left.len(), 1, "{left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A hostile API server (real HTTP on loopback) whose discovery names group versions as
    /// paths: nothing is written outside the cache folder, nothing is asked for them, and the
    /// honest group versions are written as kubectl reads them.
    #[tokio::test]
    async fn a_server_whose_group_versions_climb_out_writes_nothing_outside_the_cache() {
        let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let seen = asked.clone();
        let gv = |g: &str| json!({"groupVersion": g, "version": "v1"});
        let apis = json!({"kind": "APIGroupList", "groups": [
            {"name": "apps", "versions": [gv("apps/v1")], "preferredVersion": gv("apps/v1")},
            {"name": "..", "versions": [gv("../../escape/v1"), gv("/abs/v1"),
                gv("x/../../y/v1"), gv(".hidden/v1"), gv("apps/../../../v1")]}]});
        let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
            let (seen, apis) = (seen.clone(), apis.clone());
            async move {
                let path = uri.path().to_string();
                seen.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(path.clone());
                axum::Json(match path.as_str() {
                    "/api" => json!({"kind": "APIVersions", "versions": ["v1"]}),
                    "/apis" => apis,
                    _ => json!({"resources": [{"name": "pods", "kind": "Pod"}]}),
                })
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, app).await });
        crate::query::kube::client::install_crypto();
        let url = format!("http://{addr}").parse().expect("url");
        let client = kube::Client::try_from(kube::Config::new(url)).expect("client");

        let top = tempfile::tempdir().expect("tempdir");
        let dir = top.path().join("discovery/127.0.0.1_1/p/token");
        fill(&client, &dir).await.expect("filled");

        let mut files = Vec::new();
        let mut todo = vec![top.path().to_path_buf()];
        while let Some(d) = todo.pop() {
            for e in std::fs::read_dir(&d).expect("list").flatten() {
                let p = e.path();
                match p.is_dir() {
                    true => todo.push(p),
                    false => files.push(p.strip_prefix(&dir).map(Path::to_path_buf)),
                }
            }
        }
        let mut inside: Vec<String> = (files.iter())
            .map(|f| match f {
                Ok(f) => f.display().to_string(),
                Err(_) => panic!("a file outside the cache: {files:?}"),
            })
            .collect();
        inside.sort();
        assert_eq!(
            inside,
            [
                "apps/v1/serverresources.json",
                "servergroups.json",
                "v1/serverresources.json"
            ]
        );
        let asked = asked.lock().unwrap_or_else(|p| p.into_inner()).clone();
        assert!(
            asked
                .iter()
                .all(|p| ["/api", "/apis", "/api/v1", "/apis/apps/v1"].contains(&p.as_str())),
            "a hostile group version was asked for: {asked:?}"
        );
        let list = std::fs::read_to_string(dir.join("apps/v1/serverresources.json")).expect("list");
        let list: Value = serde_json::from_str(&list).expect("json");
        assert_eq!(list["kind"], "APIResourceList");
        assert_eq!(list["groupVersion"], "apps/v1");
    }
}
