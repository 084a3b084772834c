//! Tests of the discovery fill: kubectl's layout, whole files, hostile group versions and
//! the one connection the fill reads over.

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
    write(&path, br#"{"a":1}"#).expect("written");
    write(&path, br#"{"a":2}"#).expect("written again");
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
    let gv = |g: &str| json!({"groupVersion": g, "version": "v1"});
    let apis = json!({"kind": "APIGroupList", "groups": [
        {"name": "apps", "versions": [gv("apps/v1")], "preferredVersion": gv("apps/v1")},
        {"name": "..", "versions": [gv("../../escape/v1"), gv("/abs/v1"),
            gv("x/../../y/v1"), gv(".hidden/v1"), gv("apps/../../../v1")]}]});
    let (client, asked) = server_of(
        apis,
        json!({"resources": [{"name": "pods", "kind": "Pod"}]}),
    )
    .await;

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
    let asked = paths(&asked);
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

/// The fill reads the group versions one after the other over the connection its first GET
/// opened (kept alive), not each over a connection of its own: on a real API server every
/// connection is a TLS handshake. Fails when the group versions are asked all at once.
#[tokio::test]
async fn the_fill_reads_over_one_kept_alive_connection() {
    let gv = |g: &str| json!({"groupVersion": g, "version": "v1"});
    let groups: Vec<Value> = (0..8)
        .map(|i| {
            let v = format!("g{i}.example.io/v1");
            json!({"name": format!("g{i}.example.io"), "versions": [gv(&v)], "preferredVersion": gv(&v)})
        })
        .collect();
    let apis = json!({"kind": "APIGroupList", "groups": groups});
    let (client, asked) = server_of(
        apis,
        json!({"resources": [{"name": "things", "kind": "Thing"}]}),
    )
    .await;
    let top = tempfile::tempdir().expect("tempdir");
    fill(&client, &top.path().join("cache"))
        .await
        .expect("filled");
    let peers: Vec<_> = (asked.lock().unwrap_or_else(|p| p.into_inner()).iter())
        .map(|(peer, _)| *peer)
        .collect();
    assert_eq!(
        peers.len(),
        2 + 1 + 8,
        "/api, /apis, v1 and each group: {peers:?}"
    );
    let mut distinct = peers.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        1,
        "one connection for the whole fill: {peers:?}"
    );
}

/// Contexts share a folder of discovery files only when their files are the same: any byte
/// of any file, or a file's name, changes the digest.
#[test]
fn the_digest_tells_apart_any_difference_in_the_files() {
    let files = |groups: &[u8], list: &[u8], name: &str| Discovery {
        files: vec![
            (format!("{name}/serverresources.json"), list.to_vec()),
            ("servergroups.json".to_string(), groups.to_vec()),
        ],
    };
    let a = files(b"{\"groups\":[]}", b"{\"resources\":[]}", "apps/v1");
    assert_eq!(a.digest(), a.clone().digest());
    assert_eq!(a.digest().len(), 64);
    for other in [
        files(b"{\"groups\":[1]}", b"{\"resources\":[]}", "apps/v1"),
        files(b"{\"groups\":[]}", b"{\"resources\":[1]}", "apps/v1"),
        files(b"{\"groups\":[]}", b"{\"resources\":[]}", "apps/v2"),
        // The same bytes split differently between a name and its file.
        files(
            b"{\"groups\":[]}",
            b"/serverresources.json{\"resources\":[]}",
            "apps",
        ),
    ] {
        assert_ne!(a.digest(), other.digest(), "{other:?}");
    }
}

/// Who asked what of a test server: each request's peer and path, in order.
type Asked = std::sync::Arc<std::sync::Mutex<Vec<(std::net::SocketAddr, String)>>>;

/// A server on loopback that answers the discovery reads: `/api` with `v1`, `/apis` with
/// `apis`, any other path with `resources` (the body of every group version). Each request's
/// peer and path are kept in order.
async fn server_of(apis: Value, resources: Value) -> (kube::Client, Asked) {
    use std::net::SocketAddr;
    let asked = Asked::default();
    let seen = asked.clone();
    let app = axum::Router::new().fallback(
        move |axum::extract::ConnectInfo(peer): axum::extract::ConnectInfo<SocketAddr>,
              uri: axum::http::Uri| {
            let (seen, apis, resources) = (seen.clone(), apis.clone(), resources.clone());
            async move {
                let path = uri.path().to_string();
                (seen.lock().unwrap_or_else(|p| p.into_inner())).push((peer, path.clone()));
                axum::Json(match path.as_str() {
                    "/api" => json!({"kind": "APIVersions", "versions": ["v1"]}),
                    "/apis" => apis,
                    _ => resources,
                })
            }
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let service = app.into_make_service_with_connect_info::<SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, service).await });
    crate::query::kube::client::install_crypto();
    let url = format!("http://{addr}").parse().expect("url");
    (
        kube::Client::try_from(kube::Config::new(url)).expect("client"),
        asked,
    )
}

/// The paths a server was asked, in order.
fn paths(asked: &Asked) -> Vec<String> {
    (asked.lock().unwrap_or_else(|p| p.into_inner()).iter())
        .map(|(_, path)| path.clone())
        .collect()
}

/// A server with one group (`apps/v1`) whose group versions answer `resources`.
async fn server(resources: Value) -> (kube::Client, Asked) {
    let gv = |g: &str| json!({"groupVersion": g, "version": "v1"});
    let apis = json!({"kind": "APIGroupList", "groups": [
        {"name": "apps", "versions": [gv("apps/v1")], "preferredVersion": gv("apps/v1")}]});
    server_of(apis, resources).await
}

/// Two servers that answer alike get the discovery made once, each still read whole; a third
/// whose one group version answers differently gets its own files, made of its own answers.
#[tokio::test]
async fn servers_that_answer_alike_share_the_discovery_made_once_and_are_each_read() {
    let pods = json!({"resources": [{"name": "pods", "kind": "Pod"}]});
    let (a, asked_a) = server(pods.clone()).await;
    let (b, asked_b) = server(pods).await;
    let (c, asked_c) = server(json!({"resources": [{"name": "widgets", "kind": "Widget"}]})).await;
    let known = Known::default();
    let first = read(&a, &known).await.expect("a");
    let second = read(&b, &known).await.expect("b");
    assert!(
        std::sync::Arc::ptr_eq(&first, &second),
        "the same answers: the same discovery"
    );
    let all = ["/api", "/apis", "/api/v1", "/apis/apps/v1"];
    for asked in [&asked_a, &asked_b, &asked_c] {
        asked.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
    let third = read(&c, &known).await.expect("c");
    assert_eq!(paths(&asked_c), all);
    assert_ne!(third.digest, first.digest);
    let alone = read(&c, &Known::default()).await.expect("c alone");
    assert_eq!(
        third.found, alone.found,
        "made of its own answers, as if read first"
    );
    assert_eq!(third.digest, alone.digest);
    let apps = (third.found.files.iter())
        .find(|(p, _)| p == "apps/v1/serverresources.json")
        .map(|(_, b)| String::from_utf8_lossy(b).to_string())
        .unwrap_or_default();
    assert!(apps.contains("Widget") && !apps.contains("Pod"), "{apps}");
    let again = read(&b, &known).await.expect("b again");
    assert!(std::sync::Arc::ptr_eq(&first, &again));
    assert_eq!(paths(&asked_b), all, "read whole again");
}
