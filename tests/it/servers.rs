//! Helpers that start REAL servers for the query tests (Debian's Prometheus with a TSDB
//! backfilled by promtool; duckdb-kql serving the Kusto REST API), and tiny raw TCP servers that
//! misbehave on purpose (hang, 500, 401, drop mid-body) — those are mocks of a *faulty* server,
//! which no real server can be made to be on demand.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A binary on PATH or at one of `extra` paths; `None` (with a `SKIP:` line) when missing,
/// a failure when `TSGNAV_REQUIRE_SERVERS=1`.
pub fn find_or_skip(name: &str, extra: &[PathBuf], test: &str) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(name))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    if let Some(p) = extra.iter().chain(on_path.iter()).find(|p| p.is_file()) {
        return Some(p.clone());
    }
    assert!(
        std::env::var("TSGNAV_REQUIRE_SERVERS").as_deref() != Ok("1"),
        "{name} not found and TSGNAV_REQUIRE_SERVERS=1 ({test})"
    );
    eprintln!("SKIP: {test}: {name} is not installed");
    None
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child server, killed on drop.
pub struct Server {
    pub url: String,
    child: Child,
    _dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// GET `path` from 127.0.0.1:`port` with a raw request; the status code.
fn get_status(port: u16, path: &str) -> Option<u16> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut buf = String::new();
    let _ = s.read_to_string(&mut buf);
    buf.split_whitespace().nth(1)?.parse().ok()
}

fn wait_ready(child: &mut Child, port: u16, path: &str, what: &str) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(60) {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{what} exited before it was ready: {status}");
        }
        if get_status(port, path) == Some(200) {
            eprintln!("MEASURED: {what} ready after {:?}", t.elapsed());
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("{what} not ready on port {port} within 60 s");
}

/// Prometheus on 127.0.0.1 serving a TSDB backfilled from `openmetrics` (ends with `# EOF`).
pub fn prometheus(openmetrics: &str, test: &str) -> Option<Server> {
    prometheus_with(openmetrics, None, test)
}

/// Prometheus as above that also evaluates `rules` (a rule file) every second and, with
/// `alertmanager` (its base URL), delivers the alerts that fire to it.
pub fn prometheus_with_rules(
    openmetrics: &str,
    rules: &str,
    alertmanager: Option<&str>,
    test: &str,
) -> Option<Server> {
    prometheus_with(openmetrics, Some((rules, alertmanager)), test)
}

fn prometheus_with(
    openmetrics: &str,
    rules: Option<(&str, Option<&str>)>,
    test: &str,
) -> Option<Server> {
    let prom = find_or_skip("prometheus", &[], test)?;
    let promtool = find_or_skip("promtool", &[], test)?;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let input = dir.path().join("series.om");
    std::fs::write(&input, openmetrics).unwrap();
    let out = Command::new(&promtool)
        .args(["tsdb", "create-blocks-from", "openmetrics"])
        .arg(&input)
        .arg(&data)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "promtool failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config = dir.path().join("prometheus.yml");
    let mut yml = String::from("global:\n  scrape_interval: 1m\nscrape_configs: []\n");
    if let Some((rules, am)) = rules {
        let file = dir.path().join("rules.yml");
        std::fs::write(&file, rules).unwrap();
        yml = format!(
            "global:\n  scrape_interval: 1m\n  evaluation_interval: 1s\nscrape_configs: []\nrule_files: ['{}']\n",
            file.display()
        );
        if let Some(am) = am {
            yml.push_str(&format!(
                "alerting:\n  alertmanagers:\n    - static_configs:\n        - targets: ['{}']\n",
                am.trim_start_matches("http://")
            ));
        }
    }
    std::fs::write(&config, yml).unwrap();
    let port = free_port();
    let mut child = Command::new(prom)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .arg(format!("--storage.tsdb.path={}", data.display()))
        .arg("--storage.tsdb.retention.time=100y")
        // The notifier learns its Alertmanagers a few seconds after start; without this the
        // alerts that fired before would wait a minute to be sent again.
        .args(rules.map(|_| "--rules.alert.resend-delay=1s"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_ready(&mut child, port, "/-/ready", "prometheus");
    Some(Server {
        url: format!("http://127.0.0.1:{port}"),
        child,
        _dir: dir,
    })
}

/// The duckdb-kql binary: on PATH or in `target/ci-venv/bin`.
pub fn duckdb_kql(test: &str) -> Option<PathBuf> {
    let venv = super::common::root().join("target/ci-venv/bin/duckdb-kql");
    find_or_skip("duckdb-kql", &[venv], test)
}

/// duckdb-kql serving an in-memory database set up by `init_sql`, with `cluster_map` JSON.
pub fn kusto(init_sql: &str, cluster_map: &str, test: &str) -> Option<Server> {
    let bin = duckdb_kql(test)?;
    let dir = tempfile::tempdir().unwrap();
    let init = dir.path().join("init.sql");
    std::fs::write(&init, init_sql).unwrap();
    let map = dir.path().join("clusters.json");
    std::fs::write(&map, cluster_map).unwrap();
    let port = free_port();
    let mut child = Command::new(bin)
        .arg("serve")
        .arg("--init")
        .arg(&init)
        .arg("--cluster-map")
        .arg(&map)
        .arg("--port")
        .arg(port.to_string())
        .arg(dir.path().join("db.duckdb"))
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            let mut err = String::new();
            let _ = child.stderr.take().map(|mut e| e.read_to_string(&mut err));
            panic!("duckdb-kql exited: {status}: {err}");
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "duckdb-kql not listening within 60 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!("MEASURED: duckdb-kql listening after {:?}", t.elapsed());
    Some(Server {
        url: format!("http://127.0.0.1:{port}"),
        child,
        _dir: dir,
    })
}

/// How a faulty server misbehaves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fault {
    /// Accepts and never answers.
    Hang,
    Status500,
    Status401,
    /// Promises 5000 bytes, sends 1229 and closes.
    DropMidBody,
    /// 200 with a body that is not the JSON asked for.
    MalformedJson,
}

/// A raw TCP server with one fault, on 127.0.0.1; its base URL.
pub async fn faulty(fault: Fault) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 65536];
                let _ = sock.read(&mut buf).await;
                let reply: Vec<u8> = match fault {
                    Fault::Hang => {
                        tokio::time::sleep(Duration::from_secs(3600)).await;
                        return;
                    }
                    Fault::Status500 => b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 5\r\nConnection: close\r\n\r\noops\n".to_vec(),
                    Fault::Status401 => b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
                    Fault::DropMidBody => {
                        let mut r = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n".to_vec();
                        r.extend(std::iter::repeat_n(b' ', 1229));
                        r
                    }
                    Fault::MalformedJson => b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 19\r\nConnection: close\r\n\r\n[{\"labels\": {\"alert".to_vec(),
                };
                let _ = sock.write_all(&reply).await;
                let _ = sock.flush().await;
            });
        }
    });
    format!("http://127.0.0.1:{port}")
}

/// A URL whose port refuses connections.
pub fn refusing() -> String {
    format!("http://127.0.0.1:{}", free_port())
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// Debian's Alertmanager (`prometheus-alertmanager`) on 127.0.0.1: clustering off, a scratch
/// storage folder, a route to a receiver that sends nothing.
pub fn alertmanager(test: &str) -> Option<Server> {
    let bin = find_or_skip(
        "prometheus-alertmanager",
        &[PathBuf::from("/usr/bin/prometheus-alertmanager")],
        test,
    )?;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("alertmanager.yml");
    std::fs::write(
        &config,
        "route:\n  receiver: nowhere\n  group_wait: 1h\nreceivers:\n  - name: nowhere\n",
    )
    .unwrap();
    let port = free_port();
    let mut child = Command::new(bin)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.path={}",
            dir.path().join("data").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .arg("--cluster.listen-address=")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_ready(&mut child, port, "/-/ready", "alertmanager");
    Some(Server {
        url: format!("http://127.0.0.1:{port}"),
        child,
        _dir: dir,
    })
}

/// Sends `body` (JSON) with `method` to `url` + `path` over a raw HTTP/1.1 connection; the
/// status and the body of the answer.
pub fn http_json(method: &str, url: &str, path: &str, body: &str) -> (u16, String) {
    let addr = url.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).unwrap();
    let text = String::from_utf8_lossy(&buf).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// Posts alerts to an Alertmanager (API v2); each is (labels as JSON object, minutes ago).
pub fn post_alerts(am: &str, alerts: &[(serde_json::Value, i64)]) {
    let now = chrono::Utc::now();
    let list: Vec<serde_json::Value> = alerts
        .iter()
        .map(|(labels, ago)| {
            serde_json::json!({
                "labels": labels,
                "annotations": {"summary": "posted by a test"},
                "startsAt": (now - chrono::Duration::minutes(*ago)).to_rfc3339(),
                "endsAt": (now + chrono::Duration::hours(2)).to_rfc3339(),
            })
        })
        .collect();
    let (status, body) = http_json(
        "POST",
        am,
        "/api/v2/alerts",
        &serde_json::Value::from(list).to_string(),
    );
    assert_eq!(status, 200, "posting alerts: {body}");
}

/// Creates a silence matching `name=value` exactly; its id.
pub fn post_silence(am: &str, name: &str, value: &str) -> String {
    let now = chrono::Utc::now();
    let body = serde_json::json!({
        "matchers": [{"name": name, "value": value, "isRegex": false, "isEqual": true}],
        "startsAt": now.to_rfc3339(),
        "endsAt": (now + chrono::Duration::hours(1)).to_rfc3339(),
        "createdBy": "tsgnav tests",
        "comment": "silenced by a test",
    });
    let (status, text) = http_json("POST", am, "/api/v2/silences", &body.to_string());
    assert_eq!(status, 200, "posting a silence: {text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["silenceID"].as_str().unwrap().to_string()
}
