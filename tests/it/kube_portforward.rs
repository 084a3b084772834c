//! `kubectl port-forward` without kubectl (`tsgnav::query::kube::portforward`) against the
//! simulator's pod `portforward` subresource: a background task forwards a local port to
//! `svc/maestro` and a plain HTTP GET through it reads the simulated Maestro's bundles;
//! stopping the task closes the port; a pod with nothing listening says so; the parser keeps
//! other forms for the shell; and the real `kubectl port-forward` works against the same
//! endpoint (SPDY tunnelled in a WebSocket).

use std::collections::BTreeMap;
use std::io::{BufRead, Read, Write};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc::UnboundedReceiver;
use tsgnav::query::kube::client::{read_kubeconfig, KubeClient};
use tsgnav::query::kube::portforward::{resolve, Kind, PortForward};
use tsgnav::query::kube::KubeExecutor;
use tsgnav::query::runner::{Runner, RunnerConfig};
use tsgnav::query::tasks::Tasks;
use tsgnav::query::{
    Cancel, Event, Executor, OutputLimits, OutputSink, ProbeError, ProbeId, ProbeRequest, Target,
};
use tsgnav::tsg::{Lang, SafetyClass};

use super::servers::free_port;
use super::sim_support::{start, BlockingSim, STUCK_ID};

const AGENT_POD: &str = "maestro-agent-6c9d8b7f5-hx4tq";
const BUNDLES: &str = "/api/maestro/v1/resource-bundles";

fn request(code: &str, kubeconfig: &std::path::Path) -> ProbeRequest {
    ProbeRequest {
        id: ProbeId::new("maestro.md#step-2", 115),
        lang: Lang::Shell,
        code: code.to_string(),
        bindings: BTreeMap::new(),
        assigns: Vec::new(),
        timeout: Duration::from_secs(120),
        target: Target {
            kubeconfig: Some(kubeconfig.to_path_buf()),
            ..Target::default()
        },
        class: SafetyClass::LongRunning,
        confirmation: None,
    }
}

/// Output text so far, read from the events until `until` holds (bounded wait).
async fn output_until(
    rx: &mut UnboundedReceiver<Event>,
    text: &mut String,
    until: impl Fn(&str) -> bool,
) -> Option<Box<tsgnav::query::ProbeResult>> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !until(text) {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(Event::Output { chunk, .. })) => {
                text.push_str(&String::from_utf8_lossy(&chunk))
            }
            Ok(Some(Event::Finished { result, .. })) => return Some(result),
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => panic!("no such output; so far:\n{text}"),
        }
    }
    None
}

/// A plain HTTP/1.1 GET through a local port: (status line, body).
async fn get(port: u16, path: &str) -> std::io::Result<(String, String)> {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    let req = format!("GET {path} HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await?;
    Ok(split(&raw))
}

fn split(raw: &[u8]) -> (String, String) {
    let text = String::from_utf8_lossy(raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.lines().next().unwrap_or("");
    (status.to_string(), body.to_string())
}

/// The stuck cluster's bundles carry `deleted_at` at the root, not under metadata.
fn assert_tombstones(status: &str, body: &str) {
    assert!(status.contains("200"), "{status}\n{body}");
    let v: Value = serde_json::from_str(body).expect("bundle JSON");
    let items = v["items"].as_array().expect("items");
    let stuck: Vec<&Value> = items
        .iter()
        .filter(|b| b["name"].as_str().is_some_and(|n| n.starts_with(STUCK_ID)))
        .collect();
    assert_eq!(stuck.len(), 2, "{body}");
    for b in stuck {
        assert!(b["deleted_at"].is_string(), "root-level deleted_at: {b}");
        assert!(b["metadata"].get("deleted_at").is_none(), "{b}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_port_forward_to_svc_maestro_reaches_the_maestro_api() {
    let sim = start("maestro", None).await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let kube: Arc<dyn Executor> = Arc::new(KubeExecutor::default());
    let tasks = Tasks::new(
        Runner::new(RunnerConfig::default(), vec![kube], tx.clone()),
        tx,
    );
    let port = free_port();
    let code = format!("kubectl port-forward -n maestro svc/maestro {port}:8000");
    let id = tasks
        .start(request(&code, &sim.kubeconfig))
        .expect("starts");
    let mut text = String::new();
    let want = format!("Forwarding from 127.0.0.1:{port} -> 8000\n");
    let early = output_until(&mut rx, &mut text, |t| t.contains(&want)).await;
    assert!(early.is_none(), "ended early:\n{text}");

    let (status, body) = get(port, BUNDLES).await.expect("GET through the forward");
    assert_tombstones(&status, &body);
    let (status, _) = get(port, "/api/maestro/v1/consumers").await.expect("2nd");
    assert!(status.contains("200"), "{status}");
    output_until(&mut rx, &mut text, |t| {
        t.matches("Handling connection for").count() == 2
    })
    .await;

    assert!(tasks.stop(id));
    let result = output_until(&mut rx, &mut text, |_| false)
        .await
        .expect("finished");
    assert_eq!(
        result.status.error(),
        Some(&ProbeError::Cancelled),
        "{text}"
    );
    assert!(
        result.output.text().contains(&want),
        "{}",
        result.output.text()
    );
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err(),
        "the local port is closed once the task is stopped"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pod_with_nothing_listening_gives_a_clear_error() {
    let sim = start("maestro", None).await;
    let ex = KubeExecutor::default();
    let port = free_port();
    let req = request(
        &format!("kubectl port-forward -n maestro pod/{AGENT_POD} {port}:8000"),
        &sim.kubeconfig,
    );
    assert!(ex.accepts(&req));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let out = OutputSink::new(req.id.clone(), Some(tx), OutputLimits::default());
    let cancel = Cancel::new();
    let (ex2, c2) = (ex.clone(), cancel.clone());
    let run = tokio::spawn(async move { ex2.run(req, out, c2).await });
    let mut text = String::new();
    output_until(&mut rx, &mut text, |t| t.contains("Forwarding from")).await;
    // Nothing answers: the forward closes the connection, which the client sees as an empty
    // read or, when the close races its request, as a reset.
    match get(port, BUNDLES).await {
        Ok((status, body)) => assert_eq!((status.as_str(), body.as_str()), ("", "")),
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}"),
    }
    let want = format!("error: an error occurred forwarding {port} -> 8000: pod {AGENT_POD} has no listener on port 8000 in the simulator\n");
    output_until(&mut rx, &mut text, |t| t.contains(&want)).await;
    cancel.cancel();
    let r = run.await.expect("joins");
    assert_eq!(r.status.error(), Some(&ProbeError::Cancelled));

    // A pod that does not exist fails before anything listens.
    let req = request(
        "kubectl port-forward -n maestro pod/nope 18000:8000",
        &sim.kubeconfig,
    );
    let r = ex
        .run(req.clone(), OutputSink::detached(req.id), Cancel::new())
        .await;
    let e = r.status.describe();
    assert!(e.contains("404") && e.contains("nope"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn services_and_deployments_resolve_to_the_running_pod_and_its_port() {
    let sim = start("maestro", None).await;
    let kc = read_kubeconfig(&sim.kubeconfig).expect("kubeconfig");
    let client = KubeClient::new(&kc, &sim.kubeconfig, None, Duration::from_secs(10))
        .await
        .expect("client");
    let pf = |kind, name: &str, remote| PortForward {
        kind,
        name: name.into(),
        namespace: None,
        context: None,
        ports: vec![(0, remote)],
    };
    let server = "maestro-5d7f8b9c4-k2v7p".to_string();
    let r = |p: PortForward| {
        let client = client.clone();
        async move { resolve(&client, &p, "maestro").await }
    };
    assert_eq!(
        r(pf(Kind::Service, "maestro", 8090)).await,
        Ok((server, vec![(0, 8090)]))
    );
    assert_eq!(
        r(pf(Kind::Deployment, "maestro-agent", 8000)).await,
        Ok((AGENT_POD.to_string(), vec![(0, 8000)]))
    );
    let e = r(pf(Kind::Service, "maestro", 9999))
        .await
        .expect_err("no such port");
    assert_eq!(
        e.to_string(),
        "service maestro does not have a service port 9999"
    );
}

#[test]
fn only_a_plain_port_forward_runs_natively() {
    let ex = KubeExecutor::default();
    let path = std::path::Path::new("kubeconfig");
    for (code, native) in [
        (
            "kubectl port-forward -n maestro svc/maestro 8002:8000",
            true,
        ),
        (
            "kubectl port-forward -n \"${NS}\" deploy/maestro :8000",
            true,
        ),
        ("kubectl port-forward --address 0.0.0.0 svc/x 8000", false),
        ("kubectl port-forward statefulset/x 8000", false),
        ("kubectl port-forward svc/x 8000:8000 & ./probe.sh", false),
    ] {
        assert_eq!(ex.accepts(&request(code, path)), native, "{code}");
    }
}

#[test]
fn the_real_kubectl_port_forward_works_against_the_simulator() {
    let Some(s) = BlockingSim::start(
        "maestro",
        "the_real_kubectl_port_forward_works_against_the_simulator",
    ) else {
        return;
    };
    let port = free_port();
    let mut child = std::process::Command::new(&s.kubectl)
        .args([
            "port-forward",
            "-n",
            "maestro",
            "svc/maestro",
            &format!("{port}:8000"),
        ])
        .env("KUBECONFIG", s.kubeconfig())
        .env("HOME", s.kubeconfig().parent().expect("dir"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("kubectl starts");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("reads");
    let attempt = || -> std::io::Result<Vec<u8>> {
        let mut c = std::net::TcpStream::connect(("127.0.0.1", port))?;
        c.set_read_timeout(Some(Duration::from_secs(20)))?;
        write!(
            c,
            "GET {BUNDLES} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        )?;
        let mut raw = Vec::new();
        c.read_to_end(&mut raw)?;
        Ok(raw)
    };
    let raw = attempt();
    let _ = child.kill();
    let out = child.wait_with_output().expect("kubectl ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        first.contains(&format!("Forwarding from 127.0.0.1:{port} -> 8000")),
        "{first}{stderr}"
    );
    let (status, body) = split(&raw.expect("GET through kubectl"));
    assert_tombstones(&status, &body);
}
