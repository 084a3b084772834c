//! One request on a resource path of the simulated API server (`/api/v1/namespaces/x/pods/y`,
//! `/apis/apps/v1/…/deployments/z/scale`): list (with selectors, as a table, or as a watch),
//! get, the status, log and scale subresources, create, update, patch and delete. Each verb
//! is a method of [`Call`], which holds what every verb reads (the resource, the namespace,
//! the clock, the content type and `includeObject`).
//!
//! Network IO on the loopback listener only (through the response it builds); no files.

use std::collections::HashMap;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::resources::ResourceInfo;
use super::select::{FieldSelector, LabelSelector};
use super::server::{error, json_response, not_served};
use super::store::{ApiError, Cluster};
use super::{table, watch, workload};

/// A request on a resource path, as the router cut it.
pub struct Req {
    pub method: Method,
    pub q: HashMap<String, String>,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub ns: Option<String>,
    pub name: Option<String>,
    pub sub: Option<String>,
}

/// Answers `req` on the resource `group/version/plural` of cluster `c`.
pub fn resource(c: &mut Cluster, group: &str, version: &str, plural: &str, req: Req) -> Response {
    let Some(r) = c.resource(group, plural).filter(|r| r.version == version) else {
        return error(&not_served());
    };
    if !r.namespaced && req.ns.is_some() {
        return error(&not_served());
    }
    Call::new(c, r, req).answer()
}

/// What one request reads, whatever its verb.
struct Call<'a> {
    c: &'a mut Cluster,
    r: ResourceInfo,
    /// The namespace (empty for a cluster-scoped resource).
    ns: String,
    now: chrono::DateTime<chrono::Utc>,
    /// The request's `Content-Type` (patches are read by it).
    ctype: String,
    /// `includeObject` of a table (`Metadata` unless asked).
    include: String,
    req: Req,
}

impl<'a> Call<'a> {
    fn new(c: &'a mut Cluster, r: ResourceInfo, req: Req) -> Self {
        let ctype = req
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let include = req
            .q
            .get("includeObject")
            .map_or("Metadata", String::as_str)
            .to_string();
        Call {
            ns: req.ns.clone().unwrap_or_default(),
            now: c.clock.unwrap_or_else(chrono::Utc::now),
            c,
            r,
            ctype,
            include,
            req,
        }
    }

    fn answer(mut self) -> Response {
        let method = self.req.method.clone();
        let (name, sub) = (self.req.name.clone(), self.req.sub.clone());
        let deployment = self.r.kind == "Deployment";
        let result = match (&method, name.as_deref(), sub.as_deref()) {
            (&Method::GET, None, None) => return self.list(),
            (&Method::GET, Some(name), None) => self.get(name),
            (&Method::GET, Some(name), Some("status")) => self.c.get(&self.r, &self.ns, name),
            (&Method::GET, Some(name), Some("log")) if self.r.kind == "Pod" => {
                return self.logs(name)
            }
            (&Method::GET, Some(name), Some("scale")) if deployment => self
                .c
                .get(&self.r, &self.ns, name)
                .map(|d| workload::scale_of(&d)),
            (&Method::PUT, Some(name), Some("scale")) if deployment => self
                .body()
                .and_then(|b| workload::set_scale(self.c, &self.r, &self.ns, name, &b)),
            (&Method::PATCH, Some(name), Some("scale")) if deployment => self.patch_scale(name),
            (&Method::POST, None, None) => self
                .body()
                .and_then(|b| self.c.create(&self.r, &self.ns, b)),
            (&Method::PUT, Some(name), None) => self
                .body()
                .and_then(|b| self.c.update(&self.r, &self.ns, name, b)),
            (&Method::PATCH, Some(name), None) => self
                .body()
                .and_then(|b| self.c.patch(&self.r, &self.ns, name, &self.ctype, &b)),
            (&Method::DELETE, Some(name), None) => self.c.delete(&self.r, &self.ns, name),
            _ => Err(ApiError::new(
                405,
                "MethodNotAllowed",
                format!("{method} is not supported on this path"),
            )),
        };
        match result {
            Ok(v) => json_response(if method == Method::POST { 201 } else { 200 }, &v),
            Err(e) => error(&e),
        }
    }

    fn body(&self) -> Result<Value, ApiError> {
        serde_json::from_slice(&self.req.body).map_err(|e| {
            ApiError::new(
                400,
                "BadRequest",
                format!("the request body is not valid JSON: {e}"),
            )
        })
    }

    fn wants_table(&self) -> bool {
        self.req
            .headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a.contains("as=Table"))
    }

    fn query(&self, key: &str) -> &str {
        self.req.q.get(key).map_or("", String::as_str)
    }

    /// A list: the selectors read, then a watch, a table or a `…List`.
    fn list(self) -> Response {
        let ls = match LabelSelector::parse(self.query("labelSelector")) {
            Ok(s) => s,
            Err(e) => {
                let why = format!("unable to parse labelSelector: {e}");
                return error(&ApiError::new(400, "BadRequest", why));
            }
        };
        let fs = match FieldSelector::parse(self.query("fieldSelector")) {
            Ok(s) => s,
            Err(e) => return error(&ApiError::new(400, "BadRequest", e)),
        };
        if matches!(self.query("watch"), "true" | "1") {
            return watch::start(self.c, &self.r, self.req.ns.clone(), ls, fs, &self.req.q);
        }
        let items = self.c.list(&self.r, self.req.ns.as_deref(), &ls, &fs);
        let rv = self.c.rv();
        let v = if self.wants_table() {
            table::table(&self.r, &items, &self.include, rv, self.now)
        } else {
            json!({"kind": format!("{}List", self.r.kind), "apiVersion": self.r.api_version(),
                "metadata": {"resourceVersion": rv.to_string()}, "items": items})
        };
        json_response(200, &v)
    }

    fn get(&self, name: &str) -> Result<Value, ApiError> {
        let o = self.c.get(&self.r, &self.ns, name)?;
        Ok(match self.wants_table() {
            true => table::table(&self.r, &[o], &self.include, self.c.rv(), self.now),
            false => o,
        })
    }

    /// A pod's log; `logs -f` gets the lines so far, then the stream stays open (no new
    /// lines come).
    fn logs(&self, name: &str) -> Response {
        let tail = self.req.q.get("tailLines").and_then(|t| t.parse().ok());
        let previous = self.query("previous") == "true";
        let follow = self.query("follow") == "true";
        let container = self.req.q.get("container").map(String::as_str);
        let text = match workload::logs(self.c, &self.ns, name, container, previous, tail) {
            Ok(text) => text,
            Err(e) => return error(&e),
        };
        let body = match follow {
            true => {
                let first = futures::stream::once(async move {
                    Ok::<_, std::convert::Infallible>(Bytes::from(text))
                });
                Body::from_stream(futures::StreamExt::chain(first, futures::stream::pending()))
            }
            false => Body::from(text),
        };
        (StatusCode::OK, [(header::CONTENT_TYPE, "text/plain")], body).into_response()
    }

    /// PATCH on a deployment's scale: a JSON patch or a merge patch of its `Scale`.
    fn patch_scale(&mut self, name: &str) -> Result<Value, ApiError> {
        let b = self.body()?;
        let mut s = workload::scale_of(&self.c.get(&self.r, &self.ns, name)?);
        if self.ctype.starts_with("application/json-patch+json") {
            super::patch::json_patch(&mut s, &b).map_err(|e| ApiError::new(422, "Invalid", e))?;
        } else {
            super::patch::merge(&mut s, &b);
        }
        workload::set_scale(self.c, &self.r, &self.ns, name, &s)
    }
}
