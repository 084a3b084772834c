//! The HTTP edge of the simulated API server (axum): dispatches each request to the cluster
//! it addresses and to the store, discovery, table printing, watch, or the Maestro API.
//!
//! Network IO on the loopback listener only; no files.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::maestro::Maestro;
use super::resources;
use super::route::{route, split_cluster, status, Route};
use super::select::{FieldSelector, LabelSelector};
use super::store::{ApiError, Cluster};
use super::{table, watch, workload};

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
    let res = match r {
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
        Route::Resource {
            group,
            version,
            ns,
            plural,
            name,
            sub,
        } => {
            let req = Req {
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
                return resource(&mut copy, &group, &version, &plural, req);
            }
            let mut c = c;
            return resource(&mut c, &group, &version, &plural, req);
        }
        Route::Unknown => Err(not_served()),
    };
    match res {
        Ok(v) => json_response(200, &v),
        Err(e) => error(&e),
    }
}

/// A server-side dry run: `?dryRun=All`, or (for DELETE) `"dryRun": ["All"]` in the body's
/// DeleteOptions, as kubectl sends it.
fn dry_run(req: &Req) -> bool {
    if req.q.get("dryRun").is_some_and(|d| d == "All") {
        return true;
    }
    serde_json::from_slice::<Value>(&req.body)
        .ok()
        .and_then(|b| b.get("dryRun").cloned())
        .and_then(|d| d.as_array().cloned())
        .is_some_and(|a| a.iter().any(|v| v == "All"))
}

fn not_served() -> ApiError {
    ApiError::new(
        404,
        "NotFound",
        "the server could not find the requested resource",
    )
}

struct Req {
    method: Method,
    q: HashMap<String, String>,
    headers: HeaderMap,
    body: Bytes,
    ns: Option<String>,
    name: Option<String>,
    sub: Option<String>,
}

fn wants_table(h: &HeaderMap) -> bool {
    h.get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("as=Table"))
}

fn parse_body(body: &Bytes) -> Result<Value, ApiError> {
    serde_json::from_slice(body).map_err(|e| {
        ApiError::new(
            400,
            "BadRequest",
            format!("the request body is not valid JSON: {e}"),
        )
    })
}

fn resource(c: &mut Cluster, group: &str, version: &str, plural: &str, req: Req) -> Response {
    let Some(r) = c.resource(group, plural).filter(|r| r.version == version) else {
        return error(&not_served());
    };
    if !r.namespaced && req.ns.is_some() {
        return error(&not_served());
    }
    let ns = req.ns.clone().unwrap_or_default();
    let now = c.clock.unwrap_or_else(chrono::Utc::now);
    let ctype = req
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let include = req
        .q
        .get("includeObject")
        .map(String::as_str)
        .unwrap_or("Metadata")
        .to_string();
    let result: Result<Value, ApiError> =
        match (&req.method, req.name.as_deref(), req.sub.as_deref()) {
            (&Method::GET, None, None) => {
                let ls = match LabelSelector::parse(
                    req.q.get("labelSelector").map(String::as_str).unwrap_or(""),
                ) {
                    Ok(s) => s,
                    Err(e) => {
                        return error(&ApiError::new(
                            400,
                            "BadRequest",
                            format!("unable to parse labelSelector: {e}"),
                        ))
                    }
                };
                let fs = match FieldSelector::parse(
                    req.q.get("fieldSelector").map(String::as_str).unwrap_or(""),
                ) {
                    Ok(s) => s,
                    Err(e) => return error(&ApiError::new(400, "BadRequest", e)),
                };
                if req.q.get("watch").is_some_and(|w| w == "true" || w == "1") {
                    return watch::start(c, &r, req.ns.clone(), ls, fs, &req.q);
                }
                let items = c.list(&r, req.ns.as_deref(), &ls, &fs);
                if wants_table(&req.headers) {
                    Ok(table::table(&r, &items, &include, c.rv(), now))
                } else {
                    Ok(
                        json!({"kind": format!("{}List", r.kind), "apiVersion": r.api_version(),
                    "metadata": {"resourceVersion": c.rv().to_string()}, "items": items}),
                    )
                }
            }
            (&Method::GET, Some(name), None) => c.get(&r, &ns, name).map(|o| {
                if wants_table(&req.headers) {
                    table::table(&r, &[o], &include, c.rv(), now)
                } else {
                    o
                }
            }),
            (&Method::GET, Some(name), Some("status")) => c.get(&r, &ns, name),
            (&Method::GET, Some(name), Some("log")) if r.kind == "Pod" => {
                let tail = req.q.get("tailLines").and_then(|t| t.parse().ok());
                let prev = req.q.get("previous").is_some_and(|p| p == "true");
                // `logs -f`: the lines so far, then the stream stays open (no new lines come).
                let follow = req.q.get("follow").is_some_and(|f| f == "true");
                return match workload::logs(
                    c,
                    &ns,
                    name,
                    req.q.get("container").map(String::as_str),
                    prev,
                    tail,
                ) {
                    Ok(text) if follow => {
                        let first = futures::stream::once(async move {
                            Ok::<_, std::convert::Infallible>(Bytes::from(text))
                        });
                        let body = Body::from_stream(futures::StreamExt::chain(
                            first,
                            futures::stream::pending(),
                        ));
                        (StatusCode::OK, [(header::CONTENT_TYPE, "text/plain")], body)
                            .into_response()
                    }
                    Ok(text) => (
                        StatusCode::OK,
                        [(header::CONTENT_TYPE, "text/plain")],
                        Body::from(text),
                    )
                        .into_response(),
                    Err(e) => error(&e),
                };
            }
            (&Method::GET, Some(name), Some("scale")) if r.kind == "Deployment" => {
                c.get(&r, &ns, name).map(|d| workload::scale_of(&d))
            }
            (&Method::PUT, Some(name), Some("scale")) if r.kind == "Deployment" => {
                parse_body(&req.body).and_then(|b| workload::set_scale(c, &r, &ns, name, &b))
            }
            (&Method::PATCH, Some(name), Some("scale")) if r.kind == "Deployment" => {
                parse_body(&req.body).and_then(|b| {
                    let mut s = workload::scale_of(&c.get(&r, &ns, name)?);
                    if ctype.starts_with("application/json-patch+json") {
                        super::patch::json_patch(&mut s, &b)
                            .map_err(|e| ApiError::new(422, "Invalid", e))?;
                    } else {
                        super::patch::merge(&mut s, &b);
                    }
                    workload::set_scale(c, &r, &ns, name, &s)
                })
            }
            (&Method::POST, None, None) => parse_body(&req.body).and_then(|b| c.create(&r, &ns, b)),
            (&Method::PUT, Some(name), None) => {
                parse_body(&req.body).and_then(|b| c.update(&r, &ns, name, b))
            }
            (&Method::PATCH, Some(name), None) => {
                parse_body(&req.body).and_then(|b| c.patch(&r, &ns, name, &ctype, &b))
            }
            (&Method::DELETE, Some(name), None) => c.delete(&r, &ns, name),
            _ => Err(ApiError::new(
                405,
                "MethodNotAllowed",
                format!("{} is not supported on this path", req.method),
            )),
        };
    match result {
        Ok(v) => json_response(if req.method == Method::POST { 201 } else { 200 }, &v),
        Err(e) => error(&e),
    }
}
