//! Native `kubectl port-forward` through kube-rs, so no kubectl is needed: the command is
//! parsed ([`parse`], pure), a service or deployment is resolved to a running pod (its
//! selector, the service's `targetPort`), 127.0.0.1:LOCAL is bound, and each accepted
//! connection gets its own `Api::<Pod>::portforward` stream, copied both ways. It prints
//! kubectl's `Forwarding from 127.0.0.1:8001 -> 8000` and runs until cancelled (or its
//! timeout); the listener closes with it.
//!
//! Part of `query`'s kube backend; never imports `cli`, `tui`, `nav` or `sim`.

pub mod parse;

use chrono::Utc;
use k8s_openapi::api::core::v1::Pod;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::mpsc::{self, UnboundedSender};
use tokio::task::JoinSet;

pub use parse::{parse_probe, parse_words, Kind, PortForward};

use super::client::KubeClient;
use super::error::KubeError;
use super::kubeconfigs::shared as read_kubeconfig;
use super::parse::Reject;
use super::resolve::well_known;
use super::run::DEFAULT_TIMEOUT;
use super::KubeExecutor;
use crate::query::{Backend, Cancel, OutputSink, ProbeError, ProbeRequest, ProbeResult, Status};

fn usage(s: String) -> KubeError {
    KubeError::Usage(s)
}

fn running(p: &Value) -> bool {
    p["status"]["phase"] == "Running" && p["metadata"]["deletionTimestamp"].is_null()
}

/// The pod to forward to and each `(local, pod port)`: a service's port is mapped through
/// its `targetPort` (a number, or a container port's name in the chosen pod).
pub async fn resolve(
    client: &KubeClient,
    pf: &PortForward,
    ns: &str,
) -> Result<(String, Vec<(u16, u16)>), KubeError> {
    let known = |n: &str| well_known(n, None).ok_or_else(|| usage(format!("{n} are not known")));
    let pods = known("pods")?;
    let (owner, what) = match pf.kind {
        Kind::Pod => (None, "pod"),
        Kind::Service => (Some(known("services")?), "service"),
        Kind::Deployment => (Some(known("deployments")?), "deployment"),
    };
    let obj = match owner {
        Some(r) => Some(client.get(&r, Some(ns), &pf.name, false).await?),
        None => None,
    };
    let pod = match &obj {
        None => client.get(&pods, Some(ns), &pf.name, false).await?,
        Some(o) => {
            let sel = if pf.kind == Kind::Service {
                &o["spec"]["selector"]
            } else {
                &o["spec"]["selector"]["matchLabels"]
            };
            let sel: Vec<String> = sel
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
                .collect();
            if sel.is_empty() {
                return Err(usage(format!("{what} {} in namespace {ns} has no selector, so no pod to forward to: forward to a pod instead", pf.name)));
            }
            let list = client
                .list(&pods, Some(ns), Some(&sel.join(",")), None, false)
                .await?;
            let mut items = list["items"].as_array().cloned().unwrap_or_default();
            items.sort_by_key(|p| !running(p));
            items.into_iter().next().ok_or_else(|| {
                usage(format!(
                    "no pod of {what} {} in namespace {ns} matches its selector {}",
                    pf.name,
                    sel.join(",")
                ))
            })?
        }
    };
    let name = pod["metadata"]["name"]
        .as_str()
        .unwrap_or(&pf.name)
        .to_string();
    if !running(&pod) {
        let phase = pod["status"]["phase"].as_str().unwrap_or("Unknown");
        return Err(usage(format!(
            "unable to forward port because pod {name} is not running. Current status={phase}"
        )));
    }
    let mut ports = Vec::new();
    for (local, remote) in &pf.ports {
        let Some(svc) = obj.as_ref().filter(|_| pf.kind == Kind::Service) else {
            ports.push((*local, *remote));
            continue;
        };
        let sp = svc["spec"]["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["port"].as_u64() == Some(u64::from(*remote)));
        let Some(sp) = sp else {
            return Err(usage(format!(
                "service {} does not have a service port {remote}",
                pf.name
            )));
        };
        let target = match &sp["targetPort"] {
            Value::Number(n) => n.as_u64().and_then(|n| u16::try_from(n).ok()),
            Value::String(s) => pod["spec"]["containers"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|c| c["ports"].as_array().cloned().unwrap_or_default())
                .find(|p| p["name"] == s.as_str())
                .and_then(|p| p["containerPort"].as_u64())
                .and_then(|n| u16::try_from(n).ok()),
            _ => Some(*remote),
        };
        let target = target.ok_or_else(|| usage(format!("pod {name} has no container port named {} (targetPort of service {} port {remote})", sp["targetPort"], pf.name)))?;
        ports.push((*local, target));
    }
    Ok((name, ports))
}

/// Binds each local port (before anything is forwarded, so a busy port fails at once).
pub async fn bind(ports: &[(u16, u16)]) -> Result<Vec<(TcpListener, u16)>, KubeError> {
    let mut out = Vec::new();
    for (local, remote) in ports {
        let l = TcpListener::bind(("127.0.0.1", *local))
            .await
            .map_err(|e| {
                usage(format!(
                    "unable to listen on 127.0.0.1:{local}: {e} (pick another local port)"
                ))
            })?;
        out.push((l, *remote));
    }
    Ok(out)
}

/// Forwards until `cancel`: one kube-rs port-forward stream per accepted connection.
/// Progress and per-connection failures go to `log` as kubectl would print them.
pub async fn forward(
    client: kube::Client,
    ns: String,
    pod: String,
    listeners: Vec<(TcpListener, u16)>,
    log: UnboundedSender<String>,
    cancel: Cancel,
) {
    let mut accepts = JoinSet::new();
    for (l, remote) in listeners {
        let (client, ns, pod, log) = (client.clone(), ns.clone(), pod.clone(), log.clone());
        let local = l.local_addr().map(|a| a.port()).unwrap_or(0);
        let _ = log.send(format!("Forwarding from 127.0.0.1:{local} -> {remote}\n"));
        accepts.spawn(async move {
            let mut conns = JoinSet::new();
            loop {
                let tcp = match l.accept().await {
                    Ok((tcp, _)) => tcp,
                    Err(e) => {
                        let _ =
                            log.send(format!("error: 127.0.0.1:{local} stopped accepting: {e}\n"));
                        break;
                    }
                };
                let _ = log.send(format!("Handling connection for {local}\n"));
                let api: kube::Api<Pod> = kube::Api::namespaced(client.clone(), &ns);
                let (pod, log) = (pod.clone(), log.clone());
                conns.spawn(async move {
                    if let Err(e) = one(api, &pod, tcp, remote).await {
                        let _ = log.send(format!(
                            "error: an error occurred forwarding {local} -> {remote}: {e}\n"
                        ));
                    }
                });
                while conns.try_join_next().is_some() {}
            }
        });
    }
    cancel.cancelled().await;
    accepts.shutdown().await;
}

/// One connection: copies both ways until either side closes or the pod reports an error.
async fn one(
    api: kube::Api<Pod>,
    pod: &str,
    mut tcp: tokio::net::TcpStream,
    remote: u16,
) -> Result<(), String> {
    let mut pf = api
        .portforward(pod, &[remote])
        .await
        .map_err(|e| format!("pod {pod}: {e}"))?;
    let (Some(mut up), Some(err)) = (pf.take_stream(remote), pf.take_error(remote)) else {
        return Err(format!("kube-rs gave no stream for port {remote}"));
    };
    let copy = tokio::io::copy_bidirectional(&mut tcp, &mut up);
    tokio::pin!(copy);
    tokio::select! {
        _ = &mut copy => Ok(()),
        e = err => match e {
            Some(msg) => Err(msg),
            None => copy.await.map(|_| ()).map_err(|e| e.to_string()),
        },
    }
}

/// Resolves the pod and binds the local ports.
async fn prepare(
    exec: &KubeExecutor,
    req: &ProbeRequest,
    pf: &PortForward,
) -> Result<(kube::Client, String, String, Vec<(TcpListener, u16)>), ProbeError> {
    let kubeconfig = exec.kubeconfig_for(req)?;
    let kc = read_kubeconfig(&kubeconfig).map_err(|e| e.to_probe_error())?;
    let context = pf.context.as_deref().or(req.target.kube_context.as_deref());
    let client = KubeClient::new(&kc, &kubeconfig, context, DEFAULT_TIMEOUT)
        .await
        .map_err(|e| e.to_probe_error())?;
    let ns = (pf.namespace.clone())
        .or(req.target.namespace.clone())
        .unwrap_or_else(|| client.default_ns.clone());
    let (pod, ports) = resolve(&client, pf, &ns)
        .await
        .map_err(|e| e.to_probe_error())?;
    let listeners = bind(&ports).await.map_err(|e| e.to_probe_error())?;
    Ok((client.kube().clone(), ns, pod, listeners))
}

/// Runs a port-forward probe for the kube executor until `cancel` or `req.timeout`.
pub(super) async fn execute(
    exec: &KubeExecutor,
    req: ProbeRequest,
    pf: Result<PortForward, Reject>,
    mut out: OutputSink,
    cancel: Cancel,
) -> ProbeResult {
    let target = req.target.shown();
    let mut result = ProbeResult::new(
        req.id.clone(),
        Backend::Kube,
        target,
        req.code.clone(),
        Utc::now(),
    );
    let ready = match pf {
        Ok(pf) => prepare(exec, &req, &pf).await,
        Err(Reject::MissingVar(name)) => Err(ProbeError::MissingVar { name }),
        Err(Reject::NotNative(why)) => Err(ProbeError::Unsupported {
            detail: format!("not a native kubectl port-forward ({why}); run it in the shell"),
        }),
    };
    result.status = match ready {
        Err(e) => {
            out.write_str(&format!("error: {e}\n"));
            Status::Failed(e)
        }
        Ok((client, ns, pod, listeners)) => {
            // Read-only shell probes may connect to the session's port-forwards.
            let _open = crate::query::sandbox::Forwarded::open(
                listeners
                    .iter()
                    .filter_map(|(l, _)| l.local_addr().ok().map(|a| a.port())),
            );
            let (tx, mut rx) = mpsc::unbounded_channel();
            let stop = Cancel::new();
            let fwd = forward(client, ns, pod, listeners, tx, stop.clone());
            tokio::pin!(fwd);
            let deadline = tokio::time::sleep(req.timeout);
            tokio::pin!(deadline);
            let mut ended = false;
            let status = loop {
                tokio::select! {
                    Some(line) = rx.recv() => out.write_str(&line),
                    _ = &mut fwd, if !ended => ended = true,
                    _ = cancel.cancelled() => break Status::Failed(ProbeError::Cancelled),
                    _ = &mut deadline => break Status::Failed(ProbeError::Timeout { after: req.timeout }),
                }
            };
            stop.cancel();
            if !ended {
                fwd.await;
            }
            while let Ok(line) = rx.try_recv() {
                out.write_str(&line);
            }
            status
        }
    };
    result.output = out.finish();
    result.ended = Utc::now();
    result
}
