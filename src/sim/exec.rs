//! The pod `exec` subresource of the simulated API server:
//! `GET …/namespaces/{ns}/pods/{name}/exec?command=…&container=…&stdout=true&stderr=true`
//! upgraded to a WebSocket with the channel protocol (`v5.channel.k8s.io`, which kubectl
//! 1.30+ offers first, or `v4.channel.k8s.io`, which kube-rs speaks): stdout on channel 1,
//! stderr on 2, and the exit as a `Status` on channel 3. kubectl itself is answered over
//! SPDY/3.1 (`sim::exec_spdy`, which says why). The command runs in
//! `sim::pod_shell` (canned read-only commands; others exit 127).
//!
//! Network IO on loopback only; must not import anything of the crate outside `sim`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, Request, State};
use axum::response::Response;
use axum::routing::any;
use futures::SinkExt;
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role};
use tokio_tungstenite::WebSocketStream;

use super::exec_spdy;
use super::pod_shell::{self, Ran};
use super::portforward::{frame, websocket_upgrade};
use super::server::{error, SimState};
use super::store::ApiError;

const V5: &str = "v5.channel.k8s.io";
const V4: &str = "v4.channel.k8s.io";

/// The exec routes (with and without the `/clusters/<name>` prefix).
pub fn routes<S: Clone + Send + Sync + 'static>(sim: Arc<SimState>) -> axum::Router<S> {
    axum::Router::new()
        .route("/api/v1/namespaces/{ns}/pods/{name}/exec", any(handle))
        .route(
            "/clusters/{cluster}/api/v1/namespaces/{ns}/pods/{name}/exec",
            any(handle),
        )
        .with_state(sim)
}

fn bad(message: impl Into<String>) -> Response {
    error(&ApiError::new(400, "BadRequest", message))
}

/// The container to run in: the one asked for, or the only one.
fn container(pod: &Value, asked: Option<&str>) -> Result<String, String> {
    let name = pod["metadata"]["name"].as_str().unwrap_or("");
    let all: Vec<&str> = pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect();
    match asked {
        Some(c) if all.contains(&c) => Ok(c.to_string()),
        Some(c) => Err(format!("container {c} is not valid for pod {name}")),
        None => all
            .first()
            .map(|c| c.to_string())
            .ok_or_else(|| format!("pod {name} has no containers")),
    }
}

/// The `Status` kubectl reads from the error channel.
pub fn status(argv: &[String], exit: i32) -> Value {
    if exit == 0 {
        return json!({"metadata": {}, "status": "Success"});
    }
    json!({
        "metadata": {},
        "status": "Failure",
        "message": format!("command terminated with non-zero exit code: error executing command [{}], exit code {exit}", argv.join(" ")),
        "reason": "NonZeroExitCode",
        "details": {"causes": [{"reason": "ExitCode", "message": exit.to_string()}]}
    })
}

async fn handle(
    State(sim): State<Arc<SimState>>,
    Path(p): Path<HashMap<String, String>>,
    Query(q): Query<Vec<(String, String)>>,
    mut req: Request,
) -> Response {
    let cname = p.get("cluster").unwrap_or(&sim.default).clone();
    let (ns, name) = (
        p.get("ns").cloned().unwrap_or_default(),
        p.get("name").cloned().unwrap_or_default(),
    );
    let pod = {
        let Some(c) = sim.cluster(&cname) else {
            return error(&ApiError::new(
                404,
                "NotFound",
                format!("no cluster named {cname:?}"),
            ));
        };
        match c.resource("", "pods").map(|r| c.get(&r, &ns, &name)) {
            Some(Ok(p)) => p,
            Some(Err(e)) => return error(&e),
            None => return error(&ApiError::new(404, "NotFound", "pods are not served")),
        }
    };
    let phase = pod["status"]["phase"].as_str().unwrap_or("Unknown");
    if phase != "Running" {
        return bad(format!(
            "unable to upgrade connection: container not found (pod {name} is {phase})"
        ));
    }
    let argv: Vec<String> = q
        .iter()
        .filter(|(k, _)| k == "command")
        .map(|(_, v)| v.clone())
        .collect();
    if argv.is_empty() {
        return bad("you must specify at least one command for the container");
    }
    let asked = q
        .iter()
        .find(|(k, _)| k == "container")
        .map(|(_, v)| v.as_str());
    let ct = match container(&pod, asked) {
        Ok(c) => c,
        Err(m) => return bad(m),
    };
    if exec_spdy::asked(req.headers()) {
        return spdy(req, &q, &argv, &pod, &ct);
    }
    if exec_spdy::from_kubectl(req.headers()) {
        // kubectl takes an upgrade refused here as its cue to fall back to SPDY.
        return bad("the simulator answers kubectl's exec over SPDY/3.1, not WebSocket");
    }
    let Some((key, offered)) = websocket_upgrade(req.headers()) else {
        return bad(format!("Upgrade request required: the simulator serves exec over WebSocket (subprotocol {V5} or {V4})"));
    };
    let proto = match [V5, V4]
        .into_iter()
        .find(|p| offered.iter().any(|o| o == p))
    {
        Some(p) => p,
        None => {
            return bad(format!(
                "none of the offered subprotocols {offered:?} is served: use {V5} or {V4}"
            ))
        }
    };
    let ran = pod_shell::run(&pod, &ct, &argv);
    let on_upgrade = hyper::upgrade::on(&mut req);
    tokio::spawn(async move {
        let Ok(upgraded) = on_upgrade.await else {
            return;
        };
        let ws = WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, None).await;
        answer(ws, &argv, ran).await;
    });
    super::portforward::switching(key.as_bytes(), proto)
}

/// Runs the command and answers over SPDY once the upgrade is through.
fn spdy(
    mut req: Request,
    q: &[(String, String)],
    argv: &[String],
    pod: &Value,
    ct: &str,
) -> Response {
    if !exec_spdy::offers_v4(req.headers()) {
        return bad(format!(
            "none of the offered stream protocols is served: use {}",
            exec_spdy::PROTOCOL
        ));
    }
    let ran = pod_shell::run(pod, ct, argv);
    let expect = exec_spdy::streams_for(q);
    let st = status(argv, ran.exit).to_string();
    let on_upgrade = hyper::upgrade::on(&mut req);
    tokio::spawn(async move {
        if let Ok(upgraded) = on_upgrade.await {
            exec_spdy::answer(TokioIo::new(upgraded), expect, st, ran).await;
        }
    });
    exec_spdy::switching()
}

/// Sends the output, then the exit status, then closes.
async fn answer<S>(mut ws: WebSocketStream<S>, argv: &[String], ran: Ran)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let st = status(argv, ran.exit).to_string();
    for (ch, data) in [(1, ran.stdout.as_bytes()), (2, ran.stderr.as_bytes())] {
        if !data.is_empty() && ws.send(frame(ch, data)).await.is_err() {
            return;
        }
    }
    if ws.send(frame(3, st.as_bytes())).await.is_err() {
        return;
    }
    // A normal closure (1000): kubectl reads it as the end of every stream.
    let normal = CloseFrame {
        code: CloseCode::Normal,
        reason: "".into(),
    };
    let _ = ws.close(Some(normal)).await;
}
