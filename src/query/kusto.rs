//! The kusto backend: the Kusto REST API v2 (`POST /v2/rest/query` with `{"db", "csl"}`)
//! against `--kusto-url` or the URL the config maps the query's `cluster('…')` name to; the
//! `database('…')` prefix selects the database; bearer token from a command; the
//! `PrimaryResult` frame becomes a table; server errors come from the JSON `error` object or
//! the frames' `OneApiErrors`.
//!
//! IO edge. Must not import `cli`, `tui` or `nav`.

use std::collections::BTreeMap;

use chrono::Utc;
use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::net::{self, Body, TokenSource};
use crate::tsg::Lang;

use super::{
    vars, Backend, Cancel, Executor, OutputSink, ProbeError, ProbeRequest, ProbeResult, Status,
    Table,
};

pub struct KustoExecutor {
    /// `--kusto-url`: used when the query names no mapped cluster.
    pub url: Option<String>,
    /// Cluster name as written in `cluster('…')` (with or without `.kusto.windows.net`) → URL.
    pub clusters: BTreeMap<String, String>,
    /// Database when the query names none.
    pub database: Option<String>,
    token: TokenSource,
    client: Result<reqwest::Client, ProbeError>,
}

impl KustoExecutor {
    pub fn new(
        url: Option<String>,
        clusters: BTreeMap<String, String>,
        token_command: Option<String>,
    ) -> Self {
        KustoExecutor {
            url,
            clusters,
            database: None,
            token: TokenSource::new(token_command),
            client: net::client(),
        }
    }

    /// The URL for a cluster name, then the default.
    fn url_for(&self, cluster: Option<&str>) -> Option<String> {
        let mapped = cluster.and_then(|c| {
            let short = c
                .trim_start_matches("https://")
                .split('.')
                .next()
                .unwrap_or(c);
            self.clusters.get(c).or_else(|| self.clusters.get(short))
        });
        mapped.cloned().or_else(|| self.url.clone())
    }

    async fn query(&self, req: ProbeRequest, mut out: OutputSink, cancel: Cancel) -> ProbeResult {
        let started = Utc::now();
        // `cluster('hcp-prod-{region}')`: the name with its placeholders filled in.
        let cluster = req.target.cluster.as_deref().map(|c| {
            vars::substitute(Lang::Kql, c, &req.bindings).map_or_else(|_| c.to_string(), |s| s.text)
        });
        let base = req
            .target
            .url
            .clone()
            .or_else(|| self.url_for(cluster.as_deref()));
        let target = base.clone().unwrap_or_else(|| "no Kusto URL".into());
        let fail = |cmd: String, e| {
            let mut r = ProbeResult::failed(req.id.clone(), Backend::Kusto, target.clone(), cmd, e);
            r.started = started;
            r
        };
        let csl = match vars::substitute(req.lang, &req.code, &req.bindings) {
            Ok(s) => s.text.trim().to_string(),
            Err(e) => return fail(req.code.clone(), e),
        };
        let Some(base) = base else {
            let name = cluster.clone().unwrap_or_default();
            return fail(csl, ProbeError::Config {
                detail: format!("no Kusto URL for cluster '{name}': pass --kusto-url URL or --kusto-cluster {name}=URL"),
            });
        };
        let Some(db) = req
            .target
            .database
            .clone()
            .or_else(|| self.database.clone())
        else {
            return fail(csl, ProbeError::Config {
                detail: "no Kusto database: the query has no database('…') prefix; write one in the guide".into(),
            });
        };
        let client = match &self.client {
            Ok(c) => c.clone(),
            Err(e) => return fail(csl, e.clone()),
        };
        let url = format!("{}/v2/rest/query", base.trim_end_matches('/'));
        let mut result = ProbeResult::new(
            req.id.clone(),
            Backend::Kusto,
            format!("{base}, database {db}"),
            csl.clone(),
            started,
        );
        let build = || Ok(client.post(&url).json(&json!({ "db": db, "csl": csl })));
        let body = match self.token.fetch(build, &url, req.timeout, &cancel).await {
            Ok(b) => b,
            Err(e) => return fail(csl, e),
        };
        result.status = match interpret(&body, &url) {
            Ok((table, raw)) => {
                out.write_str(&table.render());
                result.table = Some(table);
                result.raw = Some(raw);
                Status::Ok { exit: 0 }
            }
            Err(e) => {
                out.write(&body.bytes);
                Status::Failed(e)
            }
        };
        result.output = out.finish();
        result.ended = Utc::now();
        result
    }
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The primary result table of a v2 answer, or the error it carries.
pub fn interpret(body: &Body, url: &str) -> Result<(Table, Value), ProbeError> {
    let json: Option<Value> = serde_json::from_slice(&body.bytes).ok();
    if let Some(err) = json.as_ref().and_then(|v| v.get("error")) {
        if !matches!(body.status, 401 | 403) {
            let message = err
                .get("@message")
                .or_else(|| err.get("message"))
                .map(cell)
                .unwrap_or_default();
            return Err(ProbeError::Server {
                language: "Kusto".into(),
                message,
            });
        }
    }
    let v = net::success_json(body, url, json)?;
    let frames = v.as_array().ok_or_else(|| ProbeError::BadResponse {
        url: url.to_string(),
        detail: "expected an array of v2 frames".into(),
    })?;
    for f in frames {
        if let Some(errs) = f.get("OneApiErrors").and_then(Value::as_array) {
            let message = errs
                .iter()
                .map(|e| cell(&e["error"]["@message"]))
                .collect::<Vec<_>>()
                .join("; ");
            return Err(ProbeError::Server {
                language: "Kusto".into(),
                message,
            });
        }
    }
    let primary = frames
        .iter()
        .find(|f| f["FrameType"] == "DataTable" && f["TableKind"] == "PrimaryResult")
        .ok_or_else(|| ProbeError::BadResponse {
            url: url.to_string(),
            detail: "no PrimaryResult table in the answer".into(),
        })?;
    let columns = primary["Columns"]
        .as_array()
        .map(|c| c.iter().map(|c| cell(&c["ColumnName"])).collect())
        .unwrap_or_default();
    let mut rows = Vec::new();
    for r in primary["Rows"].as_array().into_iter().flatten() {
        match r.as_array() {
            Some(cells) => rows.push(cells.iter().map(cell).collect()),
            None if r.get("OneApiErrors").is_some() => {
                let message = cell(&r["OneApiErrors"][0]["error"]["@message"]);
                return Err(ProbeError::Server {
                    language: "Kusto".into(),
                    message,
                });
            }
            None => {}
        }
    }
    Ok((Table { columns, rows }, v))
}

impl Executor for KustoExecutor {
    fn backend(&self) -> Backend {
        Backend::Kusto
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
