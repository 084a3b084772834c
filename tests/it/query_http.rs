//! The http (Maestro) backend against the simulated Maestro API of `tsgnav::sim` (maestro
//! scenario), using tsg/maestro-stuck-deletion.md's own `curl … | jq …` probes; paging; the
//! injection test; and faulty raw TCP servers (hang, 500, 401, refused, dropped mid-body).

use std::collections::BTreeMap;
use std::time::Duration;

use tsgnav::query::http::HttpExecutor;
use tsgnav::query::{Cancel, Executor, OutputSink, ProbeId, ProbeRequest, ProbeResult, Status};
use tsgnav::sim::{Scenario, Sim};

use super::servers::{self, Fault};

fn guide_probe(name: &str, bindings: &[(&str, &str)]) -> ProbeRequest {
    let src = std::fs::read_to_string(super::common::root().join("tsg/maestro-stuck-deletion.md"))
        .unwrap();
    let guide = tsgnav::tsg::parse_guide("tsg/maestro-stuck-deletion.md", &src);
    let (node, probe) = guide
        .nodes
        .iter()
        .flat_map(|n| n.probes.iter().map(move |p| (n, p)))
        .find(|(_, p)| p.attrs.get("name").map(String::as_str) == Some(name))
        .unwrap_or_else(|| panic!("no probe {name}"));
    let b: BTreeMap<String, String> = bindings
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    ProbeRequest::from_probe(&node.id, probe, b).unwrap()
}

async fn run(exec: &HttpExecutor, req: ProbeRequest) -> ProbeResult {
    exec.run(
        req,
        OutputSink::detached(ProbeId("h".into())),
        Cancel::new(),
    )
    .await
}

#[tokio::test]
async fn guide_maestro_calls_against_the_simulated_maestro() {
    let sim = Sim::start(Scenario::builtin("maestro").unwrap())
        .await
        .unwrap();
    let exec = HttpExecutor::new(Some(sim.maestro_url()));
    let req = guide_probe(
        "cluster-bundles",
        &[
            ("MAESTRO_CONSUMER", "mc-eastus-1"),
            ("CLUSTER_ID", "2lq3stuck0maestro0cluster0id1"),
        ],
    );
    assert!(exec.accepts(&req), "the guide's curl | jq is run natively");
    let r = run(&exec, req).await;
    assert_eq!(
        r.status,
        Status::Ok { exit: 0 },
        "{}\n{}",
        r.status.describe(),
        r.output.text()
    );
    assert!(
        r.command_as_run.starts_with(&format!(
            "GET {}/api/maestro/v1/resource-bundles?size=3000&search=consumer_name='mc-eastus-1'",
            sim.maestro_url()
        )),
        "{}",
        r.command_as_run
    );
    let jq: serde_json::Value = serde_json::from_str(&r.output.text()).unwrap();
    let picked = jq.as_array().unwrap();
    assert_eq!(
        picked.len(),
        2,
        "the jq filter of the guide picked the stuck cluster's bundles: {jq}"
    );
    assert!(
        picked.iter().all(|b| b["deleted_at"].is_string()),
        "deleted_at read from the root"
    );
    let t = r.table.unwrap();
    let del = t.columns.iter().position(|c| c == "deleted_at").unwrap();
    let deleted: Vec<bool> = t.rows.iter().map(|row| !row[del].is_empty()).collect();
    assert_eq!(
        deleted,
        [true, true, false],
        "root-level deleted_at per bundle: {:?}",
        t.rows
    );

    let all = run(&exec, guide_probe("all-tombstones", &[])).await;
    let v: serde_json::Value = serde_json::from_str(&all.output.text()).unwrap();
    assert_eq!(v["total"], 3);
    assert_eq!(v["tombstones"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn paging_is_followed_to_the_total() {
    let sim = Sim::start(Scenario::builtin("maestro").unwrap())
        .await
        .unwrap();
    let exec = HttpExecutor::new(Some(sim.maestro_url()));
    let mut req = guide_probe("all-tombstones", &[]);
    req.code = "curl -s 'http://localhost:8002/api/maestro/v1/resource-bundles?size=1'".into();
    let r = run(&exec, req).await;
    assert!(r.status.is_ok(), "{}", r.status.describe());
    assert_eq!(r.table.unwrap().rows.len(), 3, "three pages of one");
}

#[tokio::test]
async fn values_are_url_encoded_and_inert() {
    let sim = Sim::start(Scenario::builtin("maestro").unwrap())
        .await
        .unwrap();
    let exec = HttpExecutor::new(Some(sim.maestro_url()));
    let marker = std::env::temp_dir().join(format!("pwned-http-{}", std::process::id()));
    for v in [
        format!("x'; touch {}; echo '", marker.display()),
        format!("$(touch {})", marker.display()),
    ] {
        let req = guide_probe(
            "cluster-bundles",
            &[("MAESTRO_CONSUMER", &v), ("CLUSTER_ID", &v)],
        );
        let r = run(&exec, req).await;
        assert!(!marker.exists(), "{v} was executed");
        // The simulated Maestro rejects the odd search or finds nothing; either way nothing ran.
        if r.status.is_ok() {
            assert_eq!(r.output.text().trim(), "[]");
        } else {
            assert!(
                r.status.describe().starts_with("HTTP 400"),
                "{}",
                r.status.describe()
            );
        }
    }
}

async fn fault(base: String, timeout: Duration) -> String {
    let exec = HttpExecutor::new(Some(base));
    let mut req = guide_probe("all-tombstones", &[]);
    req.timeout = timeout;
    let r = run(&exec, req).await;
    assert!(!r.status.is_ok());
    r.status.describe()
}

#[tokio::test]
async fn http_faults_are_clear_failed_results() {
    let path = "/api/maestro/v1/resource-bundles?size=3000";
    let url = servers::faulty(Fault::Hang).await;
    assert_eq!(
        fault(url, Duration::from_millis(300)).await,
        "timed out after 300 ms"
    );
    let url = servers::faulty(Fault::Status500).await;
    assert_eq!(
        fault(url.clone(), Duration::from_secs(5)).await,
        format!("HTTP 500 Internal Server Error from {url}{path}")
    );
    let url = servers::faulty(Fault::Status401).await;
    assert_eq!(
        fault(url.clone(), Duration::from_secs(5)).await,
        format!(
            "HTTP 401 Unauthorized from {url}{path}{}",
            tsgnav::query::relogin(401)
        )
    );
    let url = servers::refusing();
    assert_eq!(
        fault(url.clone(), Duration::from_secs(5)).await,
        format!(
            "connection refused to {}",
            url.trim_start_matches("http://")
        )
    );
    let url = servers::faulty(Fault::DropMidBody).await;
    assert_eq!(
        fault(url.clone(), Duration::from_secs(5)).await,
        format!("connection dropped after 1.2 KB of the response from {url}{path}")
    );
}
