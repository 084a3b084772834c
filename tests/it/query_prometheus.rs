//! The prometheus backend against a REAL Prometheus (Debian's package) whose TSDB is backfilled
//! by promtool with the SWIFT series tsg/swift-networking.md queries, using the guide's own
//! ```promql fences; and against faulty raw TCP servers (hang, 500, 401, refused, dropped).

use std::time::Duration;

use tsgnav::query::prometheus::{Mode, PrometheusExecutor};
use tsgnav::query::{
    Cancel, Executor, OutputSink, ProbeError, ProbeId, ProbeRequest, ProbeResult, Status, Target,
};
use tsgnav::tsg::{Lang, SafetyClass};

use super::servers::{self, Fault};

/// OpenMetrics for one hour up to `end` (unix seconds), one sample every 30 s, from
/// tests/fixtures/prometheus/swift-series.txt.
pub fn swift_series(end: i64) -> String {
    let spec = std::fs::read_to_string(
        super::common::root().join("tests/fixtures/prometheus/swift-series.txt"),
    )
    .unwrap();
    let mut by_name: std::collections::BTreeMap<String, Vec<(String, f64, f64)>> =
        Default::default();
    for line in spec
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (series, nums) = line.rsplit_once('}').unwrap();
        let (name, labels) = series.split_once('{').unwrap();
        let n: Vec<f64> = nums
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        by_name
            .entry(name.to_string())
            .or_default()
            .push((labels.to_string(), n[0], n[1]));
    }
    let mut s = String::new();
    for (name, series) in by_name {
        s.push_str(&format!("# TYPE {name} gauge\n"));
        for (labels, base, per_sec) in series {
            for i in 0..120 {
                let v = base + per_sec * (30 * i) as f64;
                s.push_str(&format!("{name}{{{labels}}} {v} {}\n", end - 3600 + 30 * i));
            }
        }
    }
    s.push_str("# EOF\n");
    s
}

fn promql(code: &str, timeout: Duration) -> ProbeRequest {
    ProbeRequest {
        id: ProbeId(format!("tsg/swift-networking.md#test/{}", code.len())),
        lang: Lang::Promql,
        code: code.into(),
        bindings: Default::default(),
        assigns: vec![],
        timeout,
        target: Target::default(),
        class: SafetyClass::ReadOnly,
        confirmation: None,
    }
}

async fn run(exec: &PrometheusExecutor, code: &str) -> ProbeResult {
    exec.run(
        promql(code, Duration::from_secs(20)),
        OutputSink::detached(ProbeId("p".into())),
        Cancel::new(),
    )
    .await
}

/// The guide's promql fences, by their code.
fn guide_fences() -> Vec<String> {
    let src =
        std::fs::read_to_string(super::common::root().join("tsg/swift-networking.md")).unwrap();
    let guide = tsgnav::tsg::parse_guide("tsg/swift-networking.md", &src);
    guide
        .nodes
        .iter()
        .flat_map(|n| &n.probes)
        .filter(|p| p.lang == Lang::Promql)
        .map(|p| p.code.trim().to_string())
        .collect()
}

fn value_of(r: &ProbeResult, label: &str, want: &str) -> f64 {
    let t = r.table.as_ref().expect("a table");
    let col = t
        .columns
        .iter()
        .position(|c| c == label)
        .unwrap_or_else(|| panic!("no column {label} in {:?}", t.columns));
    let row = t
        .rows
        .iter()
        .find(|row| row[col] == want)
        .unwrap_or_else(|| panic!("no row {label}={want}: {:?}", t.rows));
    row.last().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guide_promql_against_real_prometheus() {
    let now = chrono::Utc::now().timestamp();
    let Some(server) =
        servers::prometheus(&swift_series(now), "guide_promql_against_real_prometheus")
    else {
        return;
    };
    let fences = guide_fences();
    let fence = |start: &str| {
        fences
            .iter()
            .find(|f| f.starts_with(start))
            .unwrap_or_else(|| panic!("guide has no fence {start}"))
            .clone()
    };
    let exec = PrometheusExecutor::new(Some(server.url.clone()), None)
        .with_mode(Mode::At(now as f64 - 30.0));

    let by_node = run(&exec, &fence("count by (node) (kube_pod_info")).await;
    assert_eq!(
        by_node.status,
        Status::Ok { exit: 0 },
        "{}",
        by_node.status.describe()
    );
    assert_eq!(value_of(&by_node, "node", "node-1"), 2.0);
    assert_eq!(value_of(&by_node, "node", "node-2"), 1.0);

    let namespaces = run(&exec, &fence("count(count by (namespace)")).await;
    assert_eq!(
        namespaces.table.as_ref().unwrap().rows,
        vec![vec!["2".to_string()]]
    );

    let top = run(&exec, &fence("topk(20, router:startup_latency:seconds)")).await;
    assert_eq!(top.table.as_ref().unwrap().rows.len(), 3);
    assert_eq!(value_of(&top, "namespace", "ocm-b"), 240.0);

    let p99 = run(&exec, &fence("histogram_quantile(0.99")).await;
    let q = value_of(&p99, "pod", "azure-cns-aaa");
    assert!((q - 1.0).abs() < 0.01, "p99 of IP assignment latency: {q}");

    let pending = run(&exec, &fence("cx_pending_programming_ips_v2 > 0")).await;
    let t = pending.table.as_ref().unwrap();
    assert_eq!(t.rows.len(), 1, "only the pod with pending IPs: {t:?}");
    assert_eq!(value_of(&pending, "pod", "azure-cns-aaa"), 3.0);

    let stream = run(
        &exec,
        &fence("sum by (namespace) (rate(konnectivity_network_proxy_server_stream_errors_total"),
    )
    .await;
    let rate = value_of(&stream, "namespace", "ocm-a");
    assert!(
        (rate - 2.0).abs() < 0.01,
        "stream errors per second: {rate}"
    );
    assert_eq!(
        stream.table.as_ref().unwrap().rows.len(),
        1,
        "ocm-b has no errors"
    );
    eprintln!("MEASURED: p99 IP assignment latency {q} s, konnectivity stream error rate {rate}/s");
    eprintln!(
        "MEASURED: guide queries took {:?} / {:?} / {:?} / {:?} / {:?} / {:?} (count by node, namespaces, topk, p99, pending, stream errors)",
        by_node.duration(), namespaces.duration(), top.duration(), p99.duration(), pending.duration(), stream.duration()
    );

    let range = PrometheusExecutor::new(Some(server.url.clone()), None).with_mode(Mode::Range {
        start: (now - 600) as f64,
        end: (now - 30) as f64,
        step: 60.0,
    });
    let chart = run(&range, "router:startup_latency:seconds").await;
    assert_eq!(chart.series.len(), 3);
    assert!(
        chart.series.iter().all(|s| s.points.len() == 10),
        "{:?}",
        chart.series
    );

    let bad = run(&exec, "sum by (namespace (up)").await;
    match &bad.status {
        Status::Failed(ProbeError::Server { language, message }) => {
            assert_eq!(language, "PromQL");
            assert!(message.contains("parse error"), "{message}");
        }
        other => panic!("expected a PromQL error, got {other:?}"),
    }
    assert!(
        bad.status
            .describe()
            .starts_with("PromQL error from the server: "),
        "{}",
        bad.status.describe()
    );
}

#[tokio::test]
async fn values_are_escaped_in_promql() {
    let now = chrono::Utc::now().timestamp();
    let Some(server) = servers::prometheus(&swift_series(now), "values_are_escaped_in_promql")
    else {
        return;
    };
    let exec = PrometheusExecutor::new(Some(server.url.clone()), None)
        .with_mode(Mode::At(now as f64 - 30.0));
    let marker = std::env::temp_dir().join(format!("pwned-prom-{}", std::process::id()));
    for v in [
        format!("x'; touch {}; echo '", marker.display()),
        format!("$(touch {})\"}} or vector(1)", marker.display()),
    ] {
        let mut req = promql(
            "cx_pending_programming_ips_v2{pod=\"<pod>\"}",
            Duration::from_secs(20),
        );
        req.bindings.insert("pod".into(), v.clone());
        let r = exec
            .run(
                req,
                OutputSink::detached(ProbeId("p".into())),
                Cancel::new(),
            )
            .await;
        assert!(r.status.is_ok(), "{}", r.status.describe());
        assert_eq!(
            r.table.unwrap().rows.len(),
            0,
            "the value matched nothing and injected nothing"
        );
        assert!(!marker.exists());
    }
}

async fn fault_result(url: String, timeout: Duration, token_cmd: Option<String>) -> ProbeResult {
    let exec = PrometheusExecutor::new(Some(url), token_cmd);
    exec.run(
        promql("up", timeout),
        OutputSink::detached(ProbeId("p".into())),
        Cancel::new(),
    )
    .await
}

#[tokio::test]
async fn prometheus_faults_are_clear_failed_results() {
    let hang = servers::faulty(Fault::Hang).await;
    let r = fault_result(hang, Duration::from_millis(300), None).await;
    assert_eq!(r.status.describe(), "timed out after 300 ms");

    let url = servers::faulty(Fault::Status500).await;
    let r = fault_result(url.clone(), Duration::from_secs(5), None).await;
    assert_eq!(
        r.status.describe(),
        format!("HTTP 500 Internal Server Error from {url}/api/v1/query")
    );

    let url = servers::faulty(Fault::Status401).await;
    let dir = tempfile::tempdir().unwrap();
    let count = dir.path().join("count");
    let cmd = format!("echo run >> {}; echo token-abc", count.display());
    let r = fault_result(url.clone(), Duration::from_secs(5), Some(cmd)).await;
    assert_eq!(
        r.status.describe(),
        format!(
            "HTTP 401 Unauthorized from {url}/api/v1/query{}",
            tsgnav::query::relogin(401)
        )
    );
    assert_eq!(
        servers::read(&count).lines().count(),
        2,
        "the token command is re-run once after a 401"
    );

    let url = servers::refusing();
    let r = fault_result(url.clone(), Duration::from_secs(5), None).await;
    assert_eq!(
        r.status.describe(),
        format!(
            "connection refused to {}",
            url.trim_start_matches("http://")
        )
    );

    let url = servers::faulty(Fault::DropMidBody).await;
    let r = fault_result(url.clone(), Duration::from_secs(5), None).await;
    assert_eq!(
        r.status.describe(),
        format!("connection dropped after 1.2 KB of the response from {url}/api/v1/query")
    );
    assert!(!r.status.is_ok());
}

/// A PromQL probe runs as a range query when its fence says `{range=1h step=1m}` or when it is
/// a bare range selector (`metric[30m]`, sent without the `[30m]` over that window); a range
/// inside a function stays an instant query. Against the real Prometheus.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn range_queries_from_the_fence_or_a_bare_selector() {
    let now = chrono::Utc::now().timestamp();
    let Some(server) = servers::prometheus(
        &swift_series(now),
        "range_queries_from_the_fence_or_a_bare_selector",
    ) else {
        return;
    };
    let guide = tsgnav::tsg::parse_guide(
        "range.md",
        "# Range\n\n## Graphs\n\n\
         ```promql {range=1h step=1m}\nmax by (namespace) (router:startup_latency:seconds)\n```\n\n\
         ```promql\nrouter:startup_latency:seconds[30m]\n```\n\n\
         ```promql\nmax_over_time(cx_pending_programming_ips_v2[1h])\n```\n\n\
         ```promql {range=soon}\nup\n```\n",
    );
    let node = guide
        .nodes
        .iter()
        .find(|n| n.probes.len() == 4)
        .expect("the node with the probes");
    let exec = PrometheusExecutor::new(Some(server.url.clone()), None);
    let mut results = Vec::new();
    for p in &node.probes[..3] {
        let req = ProbeRequest::from_probe(&node.id, p, Default::default()).expect("request");
        let out = OutputSink::detached(req.id.clone());
        results.push(exec.run(req, out, Cancel::new()).await);
    }
    let fenced = &results[0];
    assert!(fenced.status.is_ok(), "{}", fenced.status.describe());
    assert_eq!(fenced.series.len(), 2, "one series per namespace");
    for s in &fenced.series {
        let n = s.points.len();
        assert!((55..=61).contains(&n), "an hour at one point a minute: {n}");
        let step = s.points[1].0 - s.points[0].0;
        assert_eq!(step, 60.0);
    }
    let bare = &results[1];
    assert!(bare.status.is_ok(), "{}", bare.status.describe());
    assert_eq!(bare.command_as_run, "router:startup_latency:seconds");
    assert_eq!(bare.series.len(), 3);
    assert!(
        bare.series.iter().all(|s| s.points.len() >= 55),
        "{:?}",
        bare.series
    );
    let instant = &results[2];
    assert!(instant.status.is_ok(), "{}", instant.status.describe());
    assert!(
        instant.series.is_empty(),
        "an instant query: {:?}",
        instant.series
    );
    assert_eq!(instant.table.as_ref().map(|t| t.rows.len()), Some(2));
    let bad = ProbeRequest::from_probe(&node.id, &node.probes[3], Default::default())
        .expect_err("a range that is not a duration");
    assert!(
        bad.to_string().contains("range=soon is not a duration"),
        "{bad}"
    );
}
