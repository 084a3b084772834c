//! The read-only API proxy with kube-rs (the native backend's client) and through
//! `tsgnav run --json`: the same policy for the native client (list, logs, delete → 403,
//! exec only for a read-only command), the native backend reading under the session proxy's
//! policy on the proxy's own upstream client (a write refused before it leaves tsgnav), a
//! probe without a kubeconfig told so, and the decided requests in `--json` and in the
//! evidence record.

use std::time::Duration;

use tsgnav::query::proxy::Proxy;

use super::query_proxy::{refused, AGENT_POD, DENIED};
use super::sim_support;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_native_client_goes_through_the_same_policy() {
    use k8s_openapi::api::core::v1::Pod;
    use kube::api::{Api, DeleteParams, ListParams};
    let sim = sim_support::start("maestro", None).await;
    let proxy = Proxy::start().await.expect("proxy");
    let ctx = sim.handle.clusters[0].clone();
    let g = proxy
        .grant(&sim.kubeconfig, Some(&ctx), false)
        .await
        .expect("grant");
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = dir.path().join("kubeconfig");
    g.write_kubeconfig(&kc).expect("write");
    let client = sim_support::client(&kc, None).await;
    let pods: Api<Pod> = Api::namespaced(client, "maestro");
    let list = pods.list(&ListParams::default()).await.expect("list");
    assert!(list
        .items
        .iter()
        .any(|p| p.metadata.name.as_deref() == Some(AGENT_POD)));
    let logs = pods
        .logs(AGENT_POD, &Default::default())
        .await
        .expect("logs");
    assert!(!logs.is_empty());
    match pods.delete(AGENT_POD, &DeleteParams::default()).await {
        Err(kube::Error::Api(s)) => {
            assert_eq!(s.code, 403);
            assert!(
                s.message.starts_with(&format!("{DENIED} {ctx}")),
                "{}",
                s.message
            );
        }
        other => panic!("the delete was not refused: {other:?}"),
    }
    let dry = DeleteParams {
        dry_run: true,
        ..DeleteParams::default()
    };
    assert!(pods.delete(AGENT_POD, &dry).await.is_ok());
    let direct: Api<Pod> =
        Api::namespaced(sim_support::client(&sim.kubeconfig, None).await, "maestro");
    assert!(
        direct.get(AGENT_POD).await.is_ok(),
        "the pod is still there"
    );
    assert_eq!(refused(&g).len(), 1);
}

/// The native backend's own requests (a `kubectl get` it answers itself) are decided by the
/// session proxy's policy when it has one (sent on the proxy's upstream client, without the
/// loopback hop), and answer the same as without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_native_backend_reads_through_the_session_proxy() {
    use tsgnav::query::kube::KubeExecutor;
    use tsgnav::query::proxy::SessionProxy;
    use tsgnav::query::{Cancel, Executor, OutputSink, ProbeId, ProbeRequest, Target};
    let sim = sim_support::start("maestro", None).await;
    let req = |code: &str| ProbeRequest {
        id: ProbeId::new("test.md#native", 1),
        lang: tsgnav::tsg::Lang::Shell,
        code: code.to_string(),
        bindings: Default::default(),
        assigns: Vec::new(),
        timeout: Duration::from_secs(10),
        target: Target {
            kubeconfig: Some(sim.kubeconfig.clone()),
            kube_context: Some(sim.handle.clusters[0].clone()),
            ..Target::default()
        },
        class: tsgnav::tsg::SafetyClass::ReadOnly,
        confirmation: None,
    };
    let proxy = SessionProxy::default();
    let via = KubeExecutor {
        proxy: Some(proxy.clone()),
        ..KubeExecutor::default()
    };
    let code = "kubectl get pods -n maestro";
    assert!(via.accepts(&req(code)), "answered natively");
    let text = |r: &tsgnav::query::ProbeResult| {
        String::from_utf8_lossy(&r.output.read_all().unwrap_or_default()).into_owned()
    };
    let sink = || OutputSink::detached(ProbeId("n".into()));
    let r = via.run(req(code), sink(), Cancel::new()).await;
    assert!(r.status.is_ok(), "{:?}: {}", r.status, text(&r));
    assert!(
        proxy.decided() > 0,
        "the proxy's policy decided the requests"
    );
    let direct = KubeExecutor::default()
        .run(req(code), sink(), Cancel::new())
        .await;
    assert_eq!(text(&r), text(&direct));
    assert!(text(&r).contains(AGENT_POD));
}

/// The native backend's client under the session proxy's policy: a read passes, a DELETE
/// sent through it is refused with the proxy's 403 before it leaves tsgnav (the simulator
/// counts no write), and both were decided. Fails if the client sends unguarded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_native_client_refuses_a_write_before_it_leaves_tsgnav() {
    use tsgnav::query::kube::KubeError;
    use tsgnav::query::proxy::SessionProxy;
    let sim = sim_support::start("maestro", None).await;
    let ctx = sim.handle.clusters[0].clone();
    let proxy = SessionProxy::default();
    let client = proxy
        .native_client(&sim.kubeconfig, Some(&ctx), Duration::from_secs(10))
        .await
        .expect("client");
    assert!(
        client
            .server
            .starts_with(sim.handle.url.trim_end_matches('/')),
        "the real server, not the proxy's loopback URL: {}",
        client.server
    );
    let path = format!("/api/v1/namespaces/maestro/pods/{AGENT_POD}");
    let get = axum::http::Request::get(path.as_str())
        .body(Vec::new())
        .expect("request");
    let pod = client.send(get, false).await.expect("the read passes");
    assert_eq!(pod["metadata"]["name"], AGENT_POD);
    let writes = sim.handle.writes();
    let delete = axum::http::Request::delete(path.as_str())
        .body(Vec::new())
        .expect("request");
    match client.send(delete, false).await {
        Err(KubeError::Api {
            code: 403, message, ..
        }) => {
            assert!(message.starts_with(&format!("{DENIED} {ctx}")), "{message}");
        }
        other => panic!("the delete was not refused: {other:?}"),
    }
    assert_eq!(
        sim.handle.writes(),
        writes,
        "no write reached the simulator"
    );
    assert_eq!(proxy.decided(), 2, "the read and the delete were decided");
}

/// Attack on the native client's guard: a DELETE that says `?dryRun=All` in its query but
/// carries DeleteOptions without it in its body. The API server reads a DELETE's options from
/// its body when it has one, so this is a real delete; decided on the query alone it looks
/// like a dry run. It must be refused before it leaves tsgnav, and the pod must still be
/// there. Fails when the guard is not given the body it decides on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delete_dressed_as_a_dry_run_in_its_query_is_refused_by_its_body() {
    use tsgnav::query::kube::KubeError;
    use tsgnav::query::proxy::SessionProxy;
    let sim = sim_support::start("maestro", None).await;
    let ctx = sim.handle.clusters[0].clone();
    let client = SessionProxy::default()
        .native_client(&sim.kubeconfig, Some(&ctx), Duration::from_secs(10))
        .await
        .expect("client");
    let path = format!("/api/v1/namespaces/maestro/pods/{AGENT_POD}");
    let writes = sim.handle.writes();
    let delete = axum::http::Request::delete(format!("{path}?dryRun=All"))
        .header("content-type", "application/json")
        .body(br#"{"kind":"DeleteOptions","apiVersion":"v1"}"#.to_vec())
        .expect("request");
    match client.send(delete, false).await {
        Err(KubeError::Api { code: 403, .. }) => {}
        other => panic!("the delete went out: {other:?}"),
    }
    assert_eq!(
        sim.handle.writes(),
        writes,
        "no write reached the simulator"
    );
    let still_there = |when: &'static str| {
        let get = axum::http::Request::get(path.as_str())
            .body(Vec::new())
            .expect("request");
        let client = &client;
        async move {
            let pod = client.send(get, false).await.expect(when);
            assert_eq!(pod["metadata"]["name"], AGENT_POD, "{when}");
        }
    };
    still_there("the pod is still there after the refused delete").await;
    // A real dry run (in the body, where the server reads it) passes and changes nothing.
    let dry = axum::http::Request::delete(path.as_str())
        .header("content-type", "application/json")
        .body(br#"{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}"#.to_vec())
        .expect("request");
    client.send(dry, false).await.expect("a dry run passes");
    still_there("the pod is still there after the dry run").await;
}

/// A probe whose kubeconfig cannot be read runs without the proxy, and its output says so.
#[tokio::test]
async fn a_probe_without_a_kubeconfig_is_told_it_ran_without_the_proxy() {
    use tsgnav::query::shell::ShellExecutor;
    use tsgnav::query::{Cancel, Executor, OutputSink, ProbeId};
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("no-such-kubeconfig");
    let req = super::mitigate_support::request(": kubectl", "V", "v", "mc-1", Some(&missing));
    let r = ShellExecutor::default()
        .run(
            req,
            OutputSink::detached(ProbeId("x".into())),
            Cancel::new(),
        )
        .await;
    let out = String::from_utf8_lossy(&r.output.read_all().unwrap_or_default()).into_owned();
    assert!(r.status.is_ok(), "{out}");
    assert_eq!(
        out.trim(),
        format!(
            "tsgnav proxy: this probe ran without the read-only API proxy: the kubeconfig {} does not exist",
            missing.display()
        )
    );
}

/// `tsgnav run --json` lists the API requests the proxy decided for a probe kubectl answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_json_lists_the_requests_the_proxy_decided() {
    let Some(_) = sim_support::kubectl("run_json_lists_the_requests_the_proxy_decided") else {
        return;
    };
    let sim = sim_support::start("maestro", None).await;
    let state = tempfile::tempdir().expect("tempdir");
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .args([
            "run",
            "tests/fixtures/proxy/describe.md#describe-the-agent",
            "--json",
        ])
        .arg("--kubeconfig")
        .arg(&sim.kubeconfig)
        .current_dir(super::common::root())
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", state.path())
        .env("HOME", state.path())
        .output()
        .await
        .expect("tsgnav runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    let r = &v["results"][0];
    assert_eq!(r["status"], "ok", "{r}");
    assert!(
        r["output"].as_str().unwrap_or_default().contains(AGENT_POD),
        "{r}"
    );
    let api: Vec<&str> = r["api"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x.as_str()).collect())
        .unwrap_or_default();
    let want = format!("forwarded GET /api/v1/namespaces/maestro/pods/{AGENT_POD}");
    assert!(api.iter().any(|l| l.starts_with(&want)), "{api:?}");
    assert!(api.iter().all(|l| l.starts_with("forwarded ")), "{api:?}");
    // The evidence record of the run carries the same list.
    let mut recorded = Vec::new();
    for session in std::fs::read_dir(state.path()).expect("state").flatten() {
        let Ok(journal) = std::fs::read_to_string(session.path().join("journal.jsonl")) else {
            continue;
        };
        for line in journal.lines() {
            let rec: serde_json::Value = serde_json::from_str(line).expect("record");
            if rec["type"] == "probe_run" {
                recorded.push(rec["api"].clone());
            }
        }
    }
    assert_eq!(recorded, vec![r["api"].clone()]);
}

/// `pods/exec` through the proxy: a command classed read-only is forwarded (whatever the
/// simulator answers, it is not the proxy's 403); a mutating one is refused before any upgrade.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_is_forwarded_only_for_a_read_only_command() {
    use k8s_openapi::api::core::v1::Pod;
    use kube::api::{Api, AttachParams};
    let sim = sim_support::start("maestro", None).await;
    let proxy = Proxy::start().await.expect("proxy");
    let g = proxy
        .grant(&sim.kubeconfig, None, false)
        .await
        .expect("grant");
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = dir.path().join("kubeconfig");
    g.write_kubeconfig(&kc).expect("write");
    let pods: Api<Pod> = Api::namespaced(sim_support::client(&kc, None).await, "maestro");
    let code = |r: Result<kube::api::AttachedProcess, kube::Error>| match r {
        Err(kube::Error::Api(s)) => (s.code, s.message),
        Err(e) => (0, e.to_string()),
        Ok(_) => (101, String::new()),
    };
    let params = AttachParams::default().stderr(true);
    let (c, m) = code(
        pods.exec(AGENT_POD, ["cat", "/etc/hostname"], &params)
            .await,
    );
    assert_ne!(c, 403, "a read-only exec was refused: {m}");
    let (c, m) = code(pods.exec(AGENT_POD, ["rm", "-rf", "/data"], &params).await);
    assert_eq!(c, 403, "{m}");
    assert!(m.contains("tsgnav: read-only run"), "{m}");
    let d = g.decisions();
    assert_eq!(d.len(), 2, "{d:?}");
    assert!(
        d[0].refused.is_none() && d[0].target.contains("command=cat"),
        "{d:?}"
    );
    assert!(
        d[1].refused.is_some() && d[1].target.contains("command=rm"),
        "{d:?}"
    );
}
