//! Fault tests for the native kube backend: an API server that hangs, answers 500 or 401,
//! refuses the connection or drops it mid-body. Each is a clear error naming the server, the
//! request and what happened, both from `run_kube_with` and as the executor's failed result.
//! The faulty servers are the raw TCP mocks of `servers.rs` (no real server misbehaves on
//! demand); the healthy path is covered against `tsgnav::sim` in `kube_native.rs`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tsgnav::query::kube::{parse_script, run_kube_with, KubeError, KubeExecutor};
use tsgnav::query::{Cancel, Executor, OutputSink, ProbeError, ProbeId, ProbeRequest, Target};
use tsgnav::tsg::{Lang, SafetyClass};

use super::servers::{faulty, refusing, Fault};

fn kubeconfig(dir: &Path, server: &str) -> PathBuf {
    let p = dir.join("kubeconfig");
    let text = format!("apiVersion: v1\nkind: Config\nclusters:\n- name: bad\n  cluster: {{server: '{server}'}}\ncontexts:\n- name: bad\n  context: {{cluster: bad, user: u}}\nusers:\n- name: u\n  user: {{token: t}}\ncurrent-context: bad\n");
    std::fs::write(&p, text).expect("write kubeconfig");
    p
}

async fn native(server: &str) -> (KubeError, ProbeError) {
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = kubeconfig(dir.path(), server);
    let cmd = parse_script("kubectl get pods -A", &BTreeMap::new())
        .expect("native")
        .remove(0);
    let err = run_kube_with(&cmd, &kc, None, None, Duration::from_secs(1))
        .await
        .expect_err("fails");
    let req = ProbeRequest {
        id: ProbeId::new("t.md#x", 1),
        lang: Lang::Shell,
        code: "kubectl get pods -A".into(),
        bindings: BTreeMap::new(),
        assigns: Vec::new(),
        timeout: Duration::from_secs(1),
        target: Target {
            kubeconfig: Some(kc.clone()),
            ..Target::default()
        },
        class: SafetyClass::ReadOnly,
        confirmation: None,
    };
    let r = KubeExecutor::default()
        .run(
            req.clone(),
            OutputSink::detached(req.id.clone()),
            Cancel::new(),
        )
        .await;
    let perr = r.status.error().cloned().expect("failed result");
    assert!(
        r.output.text().starts_with("error: kube API at "),
        "{}",
        r.output.text()
    );
    (err, perr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_401_and_500_name_the_request() {
    let url = faulty(Fault::Status401).await;
    let (e, p) = native(&url).await;
    let e = e.to_string();
    assert!(
        e.starts_with(&format!(
            "kube API at {url} returned 401 Unauthorized for GET /api/v1/pods; "
        )) && e.contains("log in again (`az login`")
            && e.contains("kubelogin convert-kubeconfig"),
        "{e}"
    );
    assert!(matches!(p, ProbeError::Http { status: 401, .. }), "{p:?}");
    let url = faulty(Fault::Status500).await;
    let (e, p) = native(&url).await;
    assert_eq!(
        e.to_string(),
        format!("kube API at {url} returned 500 Internal Server Error for GET /api/v1/pods: oops")
    );
    assert!(matches!(p, ProbeError::Http { status: 500, .. }), "{p:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hang_refused_and_dropped() {
    let url = faulty(Fault::Hang).await;
    let (e, p) = native(&url).await;
    assert_eq!(
        e.to_string(),
        format!("kube API at {url} did not answer GET /api/v1/pods within 1 s")
    );
    assert_eq!(
        p,
        ProbeError::Timeout {
            after: Duration::from_secs(1)
        }
    );

    let url = refusing();
    let (e, p) = native(&url).await;
    assert_eq!(e.to_string(), format!("kube API at {url} refused the connection for GET /api/v1/pods: is the API server (or the port-forward) running?"));
    assert!(matches!(p, ProbeError::ConnectionRefused { .. }), "{p:?}");

    let url = faulty(Fault::DropMidBody).await;
    let (e, p) = native(&url).await;
    assert!(
        e.to_string().starts_with(&format!(
            "kube API at {url} dropped the connection during GET /api/v1/pods"
        )),
        "{e}"
    );
    assert!(matches!(p, ProbeError::Dropped { .. }), "{p:?}");
}

/// Through the read-only proxy (as in the navigator), a 401 from the API server names that
/// server, not the proxy's loopback URL and the probe's token, and says how to log in again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_through_the_proxy_names_the_real_server_and_how_to_log_in() {
    let url = faulty(Fault::Status401).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = kubeconfig(dir.path(), &url);
    let req = ProbeRequest {
        id: ProbeId::new("t.md#x", 1),
        lang: Lang::Shell,
        code: "kubectl get pods -A".into(),
        bindings: BTreeMap::new(),
        assigns: Vec::new(),
        timeout: Duration::from_secs(5),
        target: Target {
            kubeconfig: Some(kc.clone()),
            kube_context: Some("bad".into()),
            ..Target::default()
        },
        class: SafetyClass::ReadOnly,
        confirmation: None,
    };
    let via = KubeExecutor {
        proxy: Some(tsgnav::query::proxy::SessionProxy::default()),
        ..KubeExecutor::default()
    };
    let r = via
        .run(
            req.clone(),
            OutputSink::detached(req.id.clone()),
            Cancel::new(),
        )
        .await;
    let text = r.output.text();
    let real = url.trim_end_matches('/');
    assert!(
        text.contains(&format!("kube API at {real} returned 401 Unauthorized")),
        "{text}"
    );
    assert!(!text.contains("/p/"), "the proxy's URL and token: {text}");
    assert!(text.contains("log in again (`az login`"), "{text}");
    assert!(
        r.status.describe().contains("log in again"),
        "{}",
        r.status.describe()
    );
}
