//! The http backend: the Maestro REST calls the guides make with `curl` run natively with
//! reqwest against `--maestro-url` (paging followed until `total` is reached), the bundles shown
//! as a table with `deleted_at` read from the ROOT of each bundle, and the guide's `| jq …`
//! pipeline (if any) run on the body through bash with values in the environment.
//!
//! IO edge. Must not import `cli`, `tui` or `nav`.

use std::process::Stdio;

use chrono::Utc;
use futures::future::BoxFuture;
use serde_json::Value;
use tokio::io::AsyncWriteExt;

use super::curl::{self, Call};
use super::net;
use super::{
    interruptible, vars, Backend, Cancel, Executor, OutputSink, ProbeError, ProbeRequest,
    ProbeResult, Status, Table,
};
use crate::tsg::Lang;

/// Pages fetched at most when following `total`.
const MAX_PAGES: usize = 50;

pub struct HttpExecutor {
    /// `--maestro-url`: replaces the scheme, host and port the guide wrote (its port-forward).
    pub url: Option<String>,
    client: Result<reqwest::Client, ProbeError>,
}

impl HttpExecutor {
    pub fn new(url: Option<String>) -> Self {
        HttpExecutor {
            url,
            client: net::client(),
        }
    }

    fn call(req: &ProbeRequest) -> Option<Call> {
        match req.lang {
            Lang::Shell => curl::parse_curl(&req.code),
            Lang::Http => curl::parse_http(&req.code),
            _ => None,
        }
    }

    async fn get(&self, req: ProbeRequest, mut out: OutputSink, cancel: Cancel) -> ProbeResult {
        let started = Utc::now();
        let target = self
            .url
            .clone()
            .unwrap_or_else(|| "the URL in the guide".into());
        let fail = |cmd: String, e| {
            let mut r = ProbeResult::failed(req.id.clone(), Backend::Http, target.clone(), cmd, e);
            r.started = started;
            r
        };
        let Some(call) = Self::call(&req) else {
            return fail(
                req.code.clone(),
                ProbeError::Unsupported {
                    detail: "not a GET tsgnav can run natively".into(),
                },
            );
        };
        let url = match curl::resolve_url(&call, &req.bindings, self.url.as_deref()) {
            Ok(u) => u,
            Err(e) => return fail(req.code.clone(), e),
        };
        let shown = match &call.tail {
            Some(t) => format!("GET {url} | {t}"),
            None => format!("GET {url}"),
        };
        let client = match &self.client {
            Ok(c) => c.clone(),
            Err(e) => return fail(shown, e.clone()),
        };
        let mut result = ProbeResult::new(
            req.id.clone(),
            Backend::Http,
            target.clone(),
            shown.clone(),
            started,
        );
        let body = match self.fetch_all(&client, &url, &req, &cancel).await {
            Ok(b) => b,
            Err(e) => return fail(shown, e),
        };
        result.table = bundle_table(&body);
        let text = serde_json::to_string_pretty(&body).unwrap_or_default();
        result.raw = Some(body);
        result.status = match &call.tail {
            None => {
                out.write_str(&text);
                out.write_str("\n");
                Status::Ok { exit: 0 }
            }
            Some(tail) => match pipe(tail, &text, &req, &cancel).await {
                Ok((status, bytes)) => {
                    out.write(&bytes);
                    status
                }
                Err(e) => Status::Failed(e),
            },
        };
        result.output = out.finish();
        result.ended = Utc::now();
        result
    }

    /// GETs `url`; when the answer is a page short of `total`, follows `page=2…`.
    async fn fetch_all(
        &self,
        client: &reqwest::Client,
        url: &str,
        req: &ProbeRequest,
        cancel: &Cancel,
    ) -> Result<Value, ProbeError> {
        let mut first = fetch_json(client, url, req, cancel).await?;
        let paged = url.contains("page=");
        let total = first.get("total").and_then(Value::as_u64).unwrap_or(0) as usize;
        let Some(items) = first.get_mut("items").and_then(Value::as_array_mut) else {
            return Ok(first);
        };
        let mut all = std::mem::take(items);
        let mut page = 1;
        while !paged && all.len() < total && page < MAX_PAGES && !all.is_empty() {
            page += 1;
            let sep = if url.contains('?') { '&' } else { '?' };
            let next = fetch_json(client, &format!("{url}{sep}page={page}"), req, cancel).await?;
            let more = next
                .get("items")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if more.is_empty() {
                break;
            }
            all.extend(more);
        }
        first["size"] = Value::from(all.len());
        first["items"] = Value::Array(all);
        Ok(first)
    }
}

async fn fetch_json(
    client: &reqwest::Client,
    url: &str,
    req: &ProbeRequest,
    cancel: &Cancel,
) -> Result<Value, ProbeError> {
    let body = net::fetch(client.get(url), url, req.timeout, cancel).await?;
    if !(200..300).contains(&body.status) {
        return Err(net::http_error(&body, url));
    }
    serde_json::from_slice(&body.bytes).map_err(|e| ProbeError::BadResponse {
        url: url.to_string(),
        detail: format!("not JSON: {e}"),
    })
}

/// id, name, consumer, created and `deleted_at` (from the bundle's root) of each item.
pub fn bundle_table(body: &Value) -> Option<Table> {
    let items = body.get("items")?.as_array()?;
    let cell = |v: &Value, k: &str| match &v[k] {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let columns: Vec<String> = ["id", "name", "consumer_name", "created_at", "deleted_at"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let rows = items
        .iter()
        .map(|it| columns.iter().map(|c| cell(it, c)).collect())
        .collect();
    Some(Table { columns, rows })
}

/// Runs the guide's pipeline tail with `input` on stdin; values reach it as environment.
async fn pipe(
    tail: &str,
    input: &str,
    req: &ProbeRequest,
    cancel: &Cancel,
) -> Result<(Status, Vec<u8>), ProbeError> {
    let sub = vars::substitute(Lang::Shell, tail, &req.bindings)?;
    let mut child = tokio::process::Command::new("bash")
        .arg("-o")
        .arg("pipefail")
        .arg("-c")
        .arg(&sub.text)
        .envs(sub.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| ProbeError::Spawn {
            program: "bash".into(),
            detail: e.to_string(),
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        let data = input.as_bytes().to_vec();
        tokio::spawn(async move {
            let _ = stdin.write_all(&data).await;
        });
    }
    let out = interruptible(child.wait_with_output(), req.timeout, cancel)
        .await?
        .map_err(|e| ProbeError::Io {
            detail: e.to_string(),
        })?;
    let mut bytes = out.stdout;
    bytes.extend(out.stderr);
    let status = match out.status.code() {
        Some(0) => Status::Ok { exit: 0 },
        Some(code) => Status::Failed(ProbeError::Exit { code }),
        None => Status::Failed(ProbeError::Signal {
            signal: std::os::unix::process::ExitStatusExt::signal(&out.status).unwrap_or(0),
        }),
    };
    Ok((status, bytes))
}

impl Executor for HttpExecutor {
    fn backend(&self) -> Backend {
        Backend::Http
    }

    fn accepts(&self, req: &ProbeRequest) -> bool {
        Self::call(req).is_some()
    }

    fn run(
        &self,
        req: ProbeRequest,
        out: OutputSink,
        cancel: Cancel,
    ) -> BoxFuture<'_, ProbeResult> {
        Box::pin(self.get(req, out, cancel))
    }
}
