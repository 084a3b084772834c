//! The kusto backend against a REAL duckdb-kql (PyPI) serving the Kusto REST API v2 with the
//! ControlPlaneEvents table from tests/fixtures/kusto, using tsg/swift-networking.md's own ```kql
//! fence; and against faulty raw TCP servers (hang, 500, 401, refused, dropped).

use std::collections::BTreeMap;
use std::time::Duration;

use tsgnav::query::kusto::KustoExecutor;
use tsgnav::query::{Cancel, Executor, OutputSink, ProbeId, ProbeRequest, ProbeResult, Status};

use super::servers::{self, Fault};

const CLUSTER: &str = "akshuba.centralus.kusto.windows.net";

/// The guide's Step 4 reconciler-errors query as a request.
fn step4(ccp: &str) -> ProbeRequest {
    let src =
        std::fs::read_to_string(super::common::root().join("tsg/swift-networking.md")).unwrap();
    let guide = tsgnav::tsg::parse_guide("tsg/swift-networking.md", &src);
    let (node, probe) = guide
        .nodes
        .iter()
        .flat_map(|n| n.probes.iter().map(move |p| (n, p)))
        .find(|(_, p)| p.code.contains("isnotempty(tostring(entry.error))"))
        .expect("the guide's reconciler-errors query");
    let mut bindings = BTreeMap::new();
    bindings.insert("CCP_ID".to_string(), ccp.to_string());
    ProbeRequest::from_probe(&node.id, probe, bindings).unwrap()
}

async fn kusto_server(test: &str) -> Option<servers::Server> {
    let init =
        std::fs::read_to_string(super::common::root().join("tests/fixtures/kusto/aksccplogs.sql"))
            .unwrap();
    servers::kusto(
        &init,
        &format!(
            "{{\"{CLUSTER}\": {{\"AKSccplogs\": \"AKSccplogs\"}}, \"hcp-prod-eastus\": {{\"AKSccplogs\": \"AKSccplogs\"}}}}"
        ),
        test,
    )
}

fn exec_for(url: &str) -> KustoExecutor {
    let clusters = [("akshuba".to_string(), url.to_string())]
        .into_iter()
        .collect();
    KustoExecutor::new(None, clusters, None)
}

async fn run(exec: &KustoExecutor, req: ProbeRequest) -> ProbeResult {
    exec.run(
        req,
        OutputSink::detached(ProbeId("k".into())),
        Cancel::new(),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guide_kql_against_real_duckdb_kql() {
    let Some(server) = kusto_server("guide_kql_against_real_duckdb_kql").await else {
        return;
    };
    let req = step4("ccp-0a1b2c");
    assert_eq!(
        req.target.database.as_deref(),
        Some("AKSccplogs"),
        "database('…') selects the db"
    );
    let r = run(&exec_for(&server.url), req).await;
    assert_eq!(r.status, Status::Ok { exit: 0 }, "{}", r.status.describe());
    assert_eq!(r.target, format!("{}, database AKSccplogs", server.url));
    let t = r.table.clone().expect("a table");
    // The fourth column is the error text (named by the guide: `error`, later `errorText`).
    assert_eq!(t.columns[..3], ["PreciseTimeStamp", "component", "msg"]);
    assert_eq!(t.columns.len(), 4);
    let errors: Vec<&str> = t.rows.iter().map(|row| row[3].as_str()).collect();
    assert_eq!(
        errors,
        [
            "context deadline exceeded",
            "ErrorCode 135: NIC quota exceeded",
            "ErrorCode 4: subnet delegation missing"
        ],
        "newest first, both tables, only this CCP's errors of the last 6 h"
    );
    assert!(r.output.text().contains("mtpnc-reconciler"));
    eprintln!(
        "MEASURED: the guide's Step 4 KQL on duckdb-kql took {:?}",
        r.duration()
    );

    let mut bad = step4("ccp-0a1b2c");
    bad.code = "NoSuchTable | take 1".into();
    let r = run(&exec_for(&server.url), bad).await;
    let msg = r.status.describe();
    assert!(
        msg.starts_with("Kusto error from the server: ") && msg.contains("NoSuchTable"),
        "{msg}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_are_escaped_in_kql() {
    let Some(server) = kusto_server("values_are_escaped_in_kql").await else {
        return;
    };
    let marker = std::env::temp_dir().join(format!("pwned-kql-{}", std::process::id()));
    for v in [
        format!("x'; touch {}; echo '", marker.display()),
        format!("$(touch {})\" or 1==1 or \"", marker.display()),
    ] {
        let r = run(&exec_for(&server.url), step4(&v)).await;
        assert_eq!(r.status, Status::Ok { exit: 0 }, "{}", r.status.describe());
        assert_eq!(
            r.table.unwrap().rows.len(),
            0,
            "the value stayed one string: {v}"
        );
        assert!(!marker.exists());
    }
}

async fn fault(url: String, timeout: Duration, token: Option<String>) -> String {
    let mut req = step4("ccp-0a1b2c");
    req.timeout = timeout;
    let exec = KustoExecutor::new(Some(url), BTreeMap::new(), token);
    let r = run(&exec, req).await;
    assert!(!r.status.is_ok());
    r.status.describe()
}

#[tokio::test]
async fn kusto_faults_are_clear_failed_results() {
    let url = servers::faulty(Fault::Hang).await;
    assert_eq!(
        fault(url, Duration::from_millis(300), None).await,
        "timed out after 300 ms"
    );
    let url = servers::faulty(Fault::Status500).await;
    assert_eq!(
        fault(url.clone(), Duration::from_secs(5), None).await,
        format!("HTTP 500 Internal Server Error from {url}/v2/rest/query")
    );
    let url = servers::faulty(Fault::Status401).await;
    let got = fault(url.clone(), Duration::from_secs(5), Some("echo t".into())).await;
    assert_eq!(
        got,
        format!(
            "HTTP 401 Unauthorized from {url}/v2/rest/query{}",
            tsgnav::query::relogin(401)
        )
    );
    let url = servers::refusing();
    assert_eq!(
        fault(url.clone(), Duration::from_secs(5), None).await,
        format!(
            "connection refused to {}",
            url.trim_start_matches("http://")
        )
    );
    let url = servers::faulty(Fault::DropMidBody).await;
    assert_eq!(
        fault(url.clone(), Duration::from_secs(5), None).await,
        format!("connection dropped after 1.2 KB of the response from {url}/v2/rest/query")
    );
    let got = fault(
        servers::refusing(),
        Duration::from_secs(5),
        Some("exit 3".into()),
    )
    .await;
    assert!(got.starts_with("token command `exit 3` failed"), "{got}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_name_with_a_placeholder_maps_to_its_url() {
    let Some(server) = kusto_server("a_cluster_name_with_a_placeholder_maps_to_its_url").await
    else {
        return;
    };
    let code = "cluster('hcp-prod-{region}').database('AKSccplogs').ControlPlaneEvents\n| where namespace == 'ccp-0a1b2c'\n| count";
    let probe = tsgnav::tsg::Probe {
        info: "kql".into(),
        vars: vec!["region".into()],
        hints: tsgnav::tsg::BackendHints {
            kusto_cluster: Some("hcp-prod-{region}".into()),
            kusto_database: Some("AKSccplogs".into()),
            ..Default::default()
        },
        ..tsgnav::tsg::Probe::from_code(tsgnav::tsg::Lang::Kql, code)
    };
    let bindings = [("region".to_string(), "eastus".to_string())]
        .into_iter()
        .collect();
    let req = ProbeRequest::from_probe("g.md#n", &probe, bindings).unwrap();
    let clusters = [("hcp-prod-eastus".to_string(), server.url.clone())]
        .into_iter()
        .collect();
    let r = run(&KustoExecutor::new(None, clusters, None), req.clone()).await;
    assert_eq!(r.status, Status::Ok { exit: 0 }, "{}", r.status.describe());
    assert_eq!(
        r.table.unwrap().rows,
        vec![vec!["5".to_string()]],
        "five ControlPlaneEvents rows of that CCP"
    );
    let unmapped = run(&KustoExecutor::new(None, BTreeMap::new(), None), req).await;
    assert_eq!(
        unmapped.status.describe(),
        "no Kusto URL for cluster 'hcp-prod-eastus': pass --kusto-url URL or --kusto-cluster hcp-prod-eastus=URL"
    );
}
