//! The prometheus backend: instant and range queries against the Prometheus HTTP API
//! (`/api/v1/query`, `/api/v1/query_range`), bearer token from a command (re-run on 401 or
//! expiry), a vector as a table, a matrix as series for a chart, server errors from the JSON
//! `error` field.
//!
//! IO edge. Must not import `cli`, `tui` or `nav`.

use std::collections::{BTreeMap, BTreeSet};

use chrono::Utc;
use futures::future::BoxFuture;
use serde_json::Value;

use super::net::{self, Body, TokenSource};
use super::{
    vars, Backend, Cancel, Executor, OutputSink, ProbeError, ProbeRequest, ProbeResult, Series,
    Status, Table,
};

/// Instant (at `time`, default now) or range query.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Mode {
    #[default]
    Instant,
    At(f64),
    Range {
        start: f64,
        end: f64,
        step: f64,
    },
}

pub struct PrometheusExecutor {
    /// `--prometheus-url`; a request's `target.url` wins.
    pub url: Option<String>,
    pub mode: Mode,
    token: TokenSource,
    client: Result<reqwest::Client, ProbeError>,
}

impl PrometheusExecutor {
    pub fn new(url: Option<String>, token_command: Option<String>) -> Self {
        PrometheusExecutor {
            url,
            mode: Mode::Instant,
            token: TokenSource::new(token_command),
            client: net::client(),
        }
    }

    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    async fn query(&self, req: ProbeRequest, mut out: OutputSink, cancel: Cancel) -> ProbeResult {
        let started = Utc::now();
        let base = req.target.url.clone().or_else(|| self.url.clone());
        let target = base.clone().unwrap_or_else(|| "no Prometheus URL".into());
        let fail = |cmd: String, e| {
            let mut r =
                ProbeResult::failed(req.id.clone(), Backend::Prometheus, target.clone(), cmd, e);
            r.started = started;
            r
        };
        let query = match vars::substitute(req.lang, &req.code, &req.bindings) {
            Ok(s) => s.text.trim().to_string(),
            Err(e) => return fail(req.code.clone(), e),
        };
        let Some(base) = base else {
            return fail(
                query,
                ProbeError::Config {
                    detail: "no Prometheus URL: pass --prometheus-url URL".into(),
                },
            );
        };
        let client = match &self.client {
            Ok(c) => c.clone(),
            Err(e) => return fail(query, e.clone()),
        };
        let (mode, query) = effective_mode(self.mode, &req, query);
        let (path, params) = api_params(mode, &query);
        let url = format!("{}/api/v1/{path}", base.trim_end_matches('/'));
        let mut result = ProbeResult::new(
            req.id.clone(),
            Backend::Prometheus,
            target.clone(),
            query.clone(),
            started,
        );
        let build = || {
            reqwest::Url::parse_with_params(&url, &params)
                .map(|full| client.get(full))
                .map_err(|e| ProbeError::Config {
                    detail: format!("bad Prometheus URL {url}: {e}"),
                })
        };
        let body = match self.token.fetch(build, &url, req.timeout, &cancel).await {
            Ok(b) => b,
            Err(e) => return fail(query, e),
        };
        out.write(&body.bytes);
        result.status = match interpret(&body, &url) {
            Ok((table, series, raw)) => {
                result.table = Some(table);
                result.series = series;
                result.raw = Some(raw);
                Status::Ok { exit: 0 }
            }
            Err(e) => Status::Failed(e),
        };
        result.output = out.finish();
        result.ended = Utc::now();
        result
    }
}

/// The table, series and JSON of a Prometheus answer, or the error it carries.
pub fn interpret(body: &Body, url: &str) -> Result<(Table, Vec<Series>, Value), ProbeError> {
    let json: Option<Value> = serde_json::from_slice(&body.bytes).ok();
    if let Some(e) = json.as_ref().and_then(|v| promql_error(v, body.status)) {
        return Err(e);
    }
    let v = net::success_json(body, url, json)?;
    let data = &v["data"];
    let kind = data["resultType"].as_str().unwrap_or("");
    let items = data["result"].as_array().cloned().unwrap_or_default();
    let mut series = Vec::new();
    let mut rows: Vec<(BTreeMap<String, String>, String)> = Vec::new();
    match kind {
        "vector" => {
            for it in &items {
                rows.push((
                    labels_of(it),
                    it["value"][1].as_str().unwrap_or("").to_string(),
                ));
            }
        }
        "matrix" => {
            for it in &items {
                let s = Series {
                    labels: labels_of(it),
                    points: it["values"]
                        .as_array()
                        .map(|ps| ps.iter().filter_map(point).collect())
                        .unwrap_or_default(),
                };
                let last = s.points.last().map(|p| p.1.to_string()).unwrap_or_default();
                rows.push((s.labels.clone(), last));
                series.push(s);
            }
        }
        "scalar" | "string" => rows.push((
            BTreeMap::new(),
            data["result"][1].as_str().unwrap_or("").to_string(),
        )),
        other => {
            return Err(ProbeError::BadResponse {
                url: url.to_string(),
                detail: format!("unknown resultType {other:?}"),
            })
        }
    }
    Ok((table_of(&rows, kind == "matrix"), series, v))
}

/// A PromQL error the server reports in its JSON (not an authentication refusal, which
/// `net::success_json` explains).
fn promql_error(v: &Value, status: u16) -> Option<ProbeError> {
    if v.get("status").and_then(Value::as_str) != Some("error") || matches!(status, 401 | 403) {
        return None;
    }
    let message = v
        .get("error")
        .and_then(Value::as_str)
        .unwrap_or("(no message)")
        .to_string();
    Some(ProbeError::Server {
        language: "PromQL".into(),
        message,
    })
}

fn labels_of(item: &Value) -> BTreeMap<String, String> {
    item["metric"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn point(p: &Value) -> Option<(f64, f64)> {
    Some((p.get(0)?.as_f64()?, p.get(1)?.as_str()?.parse().ok()?))
}

/// One column per label (`__name__` first), then the value (the last one of a range).
fn table_of(rows: &[(BTreeMap<String, String>, String)], matrix: bool) -> Table {
    let names: BTreeSet<String> = rows.iter().flat_map(|(l, _)| l.keys().cloned()).collect();
    let mut columns: Vec<String> = names.into_iter().collect();
    if let Some(i) = columns.iter().position(|c| c == "__name__") {
        let n = columns.remove(i);
        columns.insert(0, n);
    }
    let table_rows = rows
        .iter()
        .map(|(l, val)| {
            columns
                .iter()
                .map(|c| l.get(c).cloned().unwrap_or_default())
                .chain(std::iter::once(val.clone()))
                .collect()
        })
        .collect();
    columns.push(if matrix {
        "last value".into()
    } else {
        "value".into()
    });
    Table {
        columns,
        rows: table_rows,
    }
}

/// A range the probe asks for (fence attribute or bare `metric[1h]`) wins over the executor's
/// mode; a bare selector's `[1h]` becomes the window and leaves the query.
fn effective_mode(mode: Mode, req: &ProbeRequest, query: String) -> (Mode, String) {
    let Some(r) = req.target.range else {
        return (mode, query);
    };
    let now = Utc::now().timestamp_millis() as f64 / 1000.0;
    let range = Mode::Range {
        start: now - r.span.as_secs_f64(),
        end: now,
        step: r.step.as_secs_f64(),
    };
    match super::promrange::bare_range(&query) {
        Some((q, _)) => (range, q),
        None => (range, query),
    }
}

/// The API path (`query` or `query_range`) and its parameters for a mode.
fn api_params(mode: Mode, query: &str) -> (&'static str, Vec<(&'static str, String)>) {
    let (path, mut params) = match mode {
        Mode::Instant => ("query", vec![]),
        Mode::At(t) => ("query", vec![("time", t.to_string())]),
        Mode::Range { start, end, step } => (
            "query_range",
            vec![
                ("start", start.to_string()),
                ("end", end.to_string()),
                ("step", step.to_string()),
            ],
        ),
    };
    params.push(("query", query.to_string()));
    (path, params)
}

impl Executor for PrometheusExecutor {
    fn backend(&self) -> Backend {
        Backend::Prometheus
    }

    fn run(
        &self,
        req: ProbeRequest,
        out: OutputSink,
        cancel: Cancel,
    ) -> BoxFuture<'_, ProbeResult> {
        Box::pin(self.query(req, out, cancel))
    }
}
