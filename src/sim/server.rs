//! The HTTP edge of the simulated API server (axum): dispatches each request to the cluster
//! it addresses and to the store, discovery, table printing, watch, or the Maestro API.
//!
//! Network IO on the loopback listener only; no files.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::call;
use super::maestro::Maestro;
use super::resources;
use super::route::{route, split_cluster, status, Route};
use super::store::{ApiError, Cluster};

/// Everything the server holds.
pub struct SimState {
    pub clusters: BTreeMap<String, Mutex<Cluster>>,
    /// The cluster served without a `/clusters/<name>` prefix.
    pub default: String,
    pub maestro: Mutex<Maestro>,
    /// Requests that could change something (any method but GET, HEAD and OPTIONS), counted
    /// so tests can prove that none arrived.
    pub writes: std::sync::atomic::AtomicU64,
    /// The same, per cluster (API paths only).
    pub writes_by_cluster: Mutex<BTreeMap<String, u64>>,
}

impl SimState {
    pub fn cluster(&self, name: &str) -> Option<MutexGuard<'_, Cluster>> {
        self.clusters
            .get(name)
            .map(|m| m.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

pub fn json_response(code: u16, v: &Value) -> Response {
    let code = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (
        code,
        [(header::CONTENT_TYPE, "application/json")],
        v.to_string(),
    )
        .into_response()
}

pub fn error(e: &ApiError) -> Response {
    json_response(e.code, &status(e))
}

/// The one handler: every path goes through here.
pub async fn handle(
    State(st): State<Arc<SimState>>,
    method: Method,
    uri: Uri,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !matches!(method, Method::GET | Method::HEAD | Method::OPTIONS) {
        st.writes.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    let path = uri.path();
    if path.starts_with("/api/maestro/") {
        return super::maestro::handle(&st, &method, path, &q);
    }
    let (cluster, rest) = split_cluster(path);
    let cname = cluster.unwrap_or(&st.default).to_string();
    if !st.clusters.contains_key(&cname) {
        return error(&ApiError::new(
            404,
            "NotFound",
            format!("no simulated cluster named {cname:?}"),
        ));
    }
    if !matches!(method, Method::GET | Method::HEAD | Method::OPTIONS) {
        let mut by = st
            .writes_by_cluster
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        *by.entry(cname.clone()).or_default() += 1;
    }
    let r = route(rest);
    let Some(c) = st.cluster(&cname) else {
        return error(&ApiError::new(404, "NotFound", "no such cluster"));
    };
    match r {
        Route::Resource {
            group,
            version,
            ns,
            plural,
            name,
            sub,
        } => {
            let req = call::Req {
                method,
                q,
                headers,
                body,
                ns,
                name,
                sub,
            };
            if req.method != Method::GET && dry_run(&req) {
                // A server-side dry run: the write runs on a throw-away copy.
                let mut copy = c.dry_run_copy();
                drop(c);
                return call::resource(&mut copy, &group, &version, &plural, req);
            }
            let mut c = c;
            call::resource(&mut c, &group, &version, &plural, req)
        }
        other => match discovery(&c, other) {
            Ok(v) => json_response(200, &v),
            Err(e) => error(&e),
        },
    }
}

/// The version and discovery paths (`/version`, `/api`, `/apis/<group>/<version>` …).
fn discovery(c: &Cluster, r: Route) -> Result<Value, ApiError> {
    match r {
        Route::Version => Ok(
            json!({"major": "1", "minor": "31", "gitVersion": "v1.31.4-tsgnav-sim", "gitCommit": "0000000", "gitTreeState": "clean",
            "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.22", "compiler": "gc", "platform": "linux/amd64"}),
        ),
        Route::CoreVersions => Ok(resources::core_versions()),
        Route::CoreResources => {
            resources::resource_list(&c.resources, "", "v1").ok_or_else(not_served)
        }
        Route::Groups => Ok(resources::group_list(&c.resources)),
        Route::Group(g) => resources::group(&c.resources, &g).ok_or_else(not_served),
        Route::GroupResources(g, v) => {
            resources::resource_list(&c.resources, &g, &v).ok_or_else(not_served)
        }
        Route::Resource { .. } | Route::Unknown => Err(not_served()),
    }
}

/// A server-side dry run, as the API server reads it: `?dryRun=All`; but a DELETE that has a
/// body takes its DeleteOptions from the body alone (`"dryRun": ["All"]`, as kubectl sends
/// it), and the query's `dryRun` is then not read.
fn dry_run(req: &call::Req) -> bool {
    let all = |a: &[Value]| !a.is_empty() && a.iter().all(|v| v == "All");
    if req.method == Method::DELETE && !req.body.iter().all(u8::is_ascii_whitespace) {
        return serde_json::from_slice::<Value>(&req.body)
            .ok()
            .and_then(|b| b.get("dryRun").and_then(Value::as_array).cloned())
            .is_some_and(|a| all(&a));
    }
    req.q.get("dryRun").is_some_and(|d| d == "All")
}

pub fn not_served() -> ApiError {
    ApiError::new(
        404,
        "NotFound",
        "the server could not find the requested resource",
    )
}
