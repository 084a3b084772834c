//! The runner's scheduling with the real shell backend: output streamed while the probe still
//! runs, the concurrency limit, cancelling a probe by id, routing by language, and a bearer
//! token refreshed after a 401 (against a raw TCP server that checks the header — a stand-in
//! for an authenticating proxy, which Debian's Prometheus cannot be made to be).

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tsgnav::query::prometheus::PrometheusExecutor;
use tsgnav::query::{Cancel, Event, Executor, OutputSink, ProbeError, ProbeId, Status};
use tsgnav::tsg::Lang;

use super::query_shell::{runner, shell_req};

async fn next(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Event>) -> Event {
    tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("an event in time")
        .expect("channel open")
}

#[tokio::test]
async fn output_streams_before_the_probe_ends() {
    let (r, mut rx) = runner(2);
    let dir = tempfile::tempdir().unwrap();
    let gate = dir.path().join("go");
    // The probe prints, then waits until the test has seen that output.
    let code = format!(
        "echo first; while [ ! -e {g} ]; do sleep 0.05; done; echo second",
        g = gate.display()
    );
    r.submit(shell_req("g#s/1", &code));
    assert!(matches!(next(&mut rx).await, Event::Started { .. }));
    match next(&mut rx).await {
        Event::Output { chunk, .. } => assert_eq!(chunk, b"first\n"),
        other => panic!("expected output while running, got {other:?}"),
    }
    std::fs::write(&gate, "").unwrap();
    let mut rest = Vec::new();
    loop {
        match next(&mut rx).await {
            Event::Output { chunk, .. } => rest.extend(chunk),
            Event::Finished { result, .. } => {
                assert_eq!(result.output.text(), "first\nsecond\n");
                break;
            }
            Event::Started { .. } => panic!("started twice"),
        }
    }
    assert_eq!(rest, b"second\n");
}

#[tokio::test]
async fn the_concurrency_limit_holds_back_the_second_probe() {
    let (r, mut rx) = runner(1);
    let dir = tempfile::tempdir().unwrap();
    let gate = dir.path().join("go");
    r.submit(shell_req(
        "g#a/1",
        &format!(
            "while [ ! -e {} ]; do sleep 0.05; done; echo a",
            gate.display()
        ),
    ));
    assert!(matches!(next(&mut rx).await, Event::Started { id, .. } if id.0 == "g#a/1"));
    r.submit(shell_req("g#b/1", "echo b"));
    // Give the second probe every chance to start; with one slot it must not.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        rx.try_recv().is_err(),
        "the second probe started while the first held the only slot"
    );
    std::fs::write(&gate, "").unwrap();
    let mut order = Vec::new();
    while order.len() < 3 {
        match next(&mut rx).await {
            Event::Started { id, .. } => order.push(format!("start {id}")),
            Event::Finished { id, .. } => order.push(format!("end {id}")),
            Event::Output { .. } => {}
        }
    }
    assert_eq!(order, ["end g#a/1", "start g#b/1", "end g#b/1"]);
}

#[tokio::test]
async fn cancelling_a_probe_by_id_ends_it_as_cancelled() {
    let (r, mut rx) = runner(2);
    r.submit(shell_req("g#slow/1", "echo started; sleep 60"));
    loop {
        if let Event::Output { .. } = next(&mut rx).await {
            break;
        }
    }
    r.cancel(&ProbeId("g#slow/1".into()));
    loop {
        if let Event::Finished { result, .. } = next(&mut rx).await {
            assert_eq!(result.status, Status::Failed(ProbeError::Cancelled));
            break;
        }
    }
    assert_eq!(r.in_flight(), 0);
}

#[tokio::test]
async fn a_language_without_a_backend_is_a_clear_failure() {
    let (r, _rx) = runner(1);
    let mut req = shell_req("g#q/1", "up");
    req.lang = Lang::Promql;
    let res = r.run(req, Cancel::new()).await;
    assert_eq!(
        res.status.describe(),
        "no prometheus backend is configured for this probe"
    );
}

/// Answers 401 unless the request carries `Bearer token-2`, then a one-sample vector.
async fn token_checking_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let mut buf = vec![0u8; 65536];
            let n = sock.read(&mut buf).await.unwrap_or(0);
            let req = String::from_utf8_lossy(&buf[..n]).to_lowercase();
            let reply = if req.contains("authorization: bearer token-2") {
                let body = r#"{"status":"success","data":{"resultType":"vector","result":[{"metric":{"pod":"p"},"value":[1,"7"]}]}}"#;
                format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len())
            } else {
                "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_string()
            };
            let _ = sock.write_all(reply.as_bytes()).await;
        }
    });
    format!("http://127.0.0.1:{port}")
}

#[tokio::test]
async fn a_401_re_runs_the_token_command_and_retries() {
    let url = token_checking_server().await;
    let dir = tempfile::tempdir().unwrap();
    let n = dir.path().join("n");
    // Prints token-1 the first time, token-2 after.
    let cmd = format!("echo x >> {f}; echo token-$(wc -l < {f})", f = n.display());
    let exec = PrometheusExecutor::new(Some(url), Some(cmd));
    let mut req = shell_req("g#p/1", "up");
    req.lang = Lang::Promql;
    let r = exec
        .run(
            req,
            OutputSink::detached(ProbeId("p".into())),
            Cancel::new(),
        )
        .await;
    assert_eq!(r.status, Status::Ok { exit: 0 }, "{}", r.status.describe());
    assert_eq!(
        r.table.unwrap().rows,
        vec![vec!["p".to_string(), "7".to_string()]]
    );
    assert_eq!(std::fs::read_to_string(&n).unwrap().lines().count(), 2);
}

#[test]
fn fence_timeouts_and_targets_come_from_the_probe() {
    use tsgnav::query::{parse_duration, ProbeRequest, DEFAULT_TIMEOUT};
    assert_eq!(parse_duration("30s"), Some(Duration::from_secs(30)));
    assert_eq!(parse_duration("2m"), Some(Duration::from_secs(120)));
    assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
    assert_eq!(parse_duration("soon"), None);
    let src = "# G\n\n## Step\n\n```bash {timeout=2m}\nkubectl get pods -n maestro --context mc-1\n```\n\n```bash {timeout=soon}\nls\n```\n\n```bash\nls\n```\n";
    let g = tsgnav::tsg::parse_guide("g.md", src);
    let node = g.nodes.iter().find(|n| n.slug() == "step").unwrap();
    let first = ProbeRequest::from_probe(&node.id, &node.probes[0], Default::default()).unwrap();
    assert_eq!(first.timeout, Duration::from_secs(120));
    assert_eq!(first.id.0, "g.md#step/6");
    assert_eq!(first.target.kube_context.as_deref(), Some("mc-1"));
    assert_eq!(first.target.namespace.as_deref(), Some("maestro"));
    let bad = ProbeRequest::from_probe(&node.id, &node.probes[1], Default::default()).unwrap_err();
    assert!(
        bad.to_string()
            .contains("timeout=soon on line 10 is not a duration"),
        "{bad}"
    );
    assert_eq!(
        ProbeRequest::from_probe(&node.id, &node.probes[2], Default::default())
            .unwrap()
            .timeout,
        DEFAULT_TIMEOUT
    );
}
