//! Maestro's REST API as the maestro guide calls it: `/api/maestro/v1/consumers` and
//! `/api/maestro/v1/resource-bundles` (paging with `page`/`size`, `search` in the simple
//! `name = 'x'`, `consumer_name = 'x'`, `id in ('a','b')` forms joined by `and`), GET by id,
//! and DELETE as a soft delete that sets the root-level `deleted_at` and keeps the bundle.
//! A soft delete also tells the consumer's cluster: its ManifestWork of that name starts
//! deleting and is a tombstone the agent may resurrect (see `sim::workload`).
//!
//! The search parser and paging are pure; `handle` touches only the in-memory state.

use std::collections::HashMap;

use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use serde_json::{json, Value};

use super::scenario::{resolve_times, stamp, MaestroData};
use super::server::{json_response, SimState};
use super::store::uid;

/// The Maestro server's data.
pub struct Maestro {
    pub consumers: Vec<Value>,
    pub bundles: Vec<Value>,
}

impl Maestro {
    pub fn new(data: &MaestroData) -> Self {
        let now = Utc::now();
        let mut bundles = data.bundles.clone();
        for b in &mut bundles {
            resolve_times(b, now);
            let name = b["name"].as_str().unwrap_or("").to_string();
            if b["id"].is_null() {
                b["id"] = json!(uid(&format!("bundle/{name}")));
            }
            let id = b["id"].clone();
            b["kind"] = json!("ResourceBundle");
            b["href"] = json!(format!(
                "/api/maestro/v1/resource-bundles/{}",
                id.as_str().unwrap_or("")
            ));
            if b["created_at"].is_null() {
                b["created_at"] = json!(stamp(now - chrono::Duration::days(2)));
            }
            if b.get("deleted_at").is_none() {
                b["deleted_at"] = Value::Null;
            }
        }
        let mut consumers = data.consumers.clone();
        for c in &mut consumers {
            let name = c["name"].as_str().unwrap_or("").to_string();
            if c["id"].is_null() {
                c["id"] = json!(uid(&format!("consumer/{name}")));
            }
            c["kind"] = json!("Consumer");
        }
        Maestro { consumers, bundles }
    }
}

/// One `field = 'v'` or `field in ('a','b')` term.
#[derive(Debug, PartialEq, Eq)]
pub struct Term {
    pub field: String,
    pub values: Vec<String>,
}

fn unquote(s: &str) -> Result<String, String> {
    let s = s.trim();
    s.strip_prefix('\'')
        .and_then(|x| x.strip_suffix('\''))
        .map(String::from)
        .ok_or_else(|| format!("expected a quoted value like 'x', found {s}"))
}

/// Parses a Maestro `search` expression.
pub fn parse_search(s: &str) -> Result<Vec<Term>, String> {
    let mut out = Vec::new();
    for part in s.split(" and ").map(str::trim).filter(|p| !p.is_empty()) {
        let term = if let Some((f, v)) = part.split_once(" in ") {
            let inner = v
                .trim()
                .strip_prefix('(')
                .and_then(|x| x.strip_suffix(')'))
                .ok_or_else(|| format!("expected (…) after 'in' in {part:?}"))?;
            Term {
                field: f.trim().into(),
                values: inner.split(',').map(unquote).collect::<Result<_, _>>()?,
            }
        } else if let Some((f, v)) = part.split_once('=') {
            Term {
                field: f.trim().into(),
                values: vec![unquote(v)?],
            }
        } else {
            return Err(format!(
                "unsupported search term {part:?}: use field = 'value' or field in ('a', 'b')"
            ));
        };
        if !["id", "name", "consumer_name"].contains(&term.field.as_str()) {
            return Err(format!("{} is not a valid field name", term.field));
        }
        out.push(term);
    }
    Ok(out)
}

fn matches(item: &Value, terms: &[Term]) -> bool {
    terms.iter().all(|t| {
        item[&t.field]
            .as_str()
            .is_some_and(|v| t.values.iter().any(|w| w == v))
    })
}

fn err(code: u16, n: u32, reason: String) -> Response {
    json_response(
        code,
        &json!({"kind": "Error", "id": n.to_string(), "href": format!("/api/maestro/v1/errors/{n}"), "code": format!("maestro-{n}"), "reason": reason}),
    )
}

/// A page of `items` as Maestro lists it.
pub fn page(kind: &str, items: &[Value], q: &HashMap<String, String>) -> Result<Value, String> {
    let terms = parse_search(q.get("search").map(String::as_str).unwrap_or(""))?;
    let all: Vec<&Value> = items.iter().filter(|i| matches(i, &terms)).collect();
    let size: usize = q
        .get("size")
        .map(|s| s.parse().map_err(|_| format!("size {s:?} is not a number")))
        .transpose()?
        .unwrap_or(100);
    let page: usize = q
        .get("page")
        .map(|s| s.parse().map_err(|_| format!("page {s:?} is not a number")))
        .transpose()?
        .unwrap_or(1)
        .max(1);
    let chunk: Vec<Value> = all
        .iter()
        .skip((page - 1) * size)
        .take(size)
        .map(|v| (*v).clone())
        .collect();
    Ok(json!({"kind": kind, "page": page, "size": chunk.len(), "total": all.len(), "items": chunk}))
}

/// Serves `/api/maestro/v1/…`.
pub fn handle(st: &SimState, method: &Method, path: &str, q: &HashMap<String, String>) -> Response {
    let rest = path.trim_start_matches("/api/maestro/v1").trim_matches('/');
    let mut m = st.maestro.lock().unwrap_or_else(|p| p.into_inner());
    let segs: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
    match (method, segs.as_slice()) {
        (&Method::GET, []) => json_response(
            200,
            &json!({"kind": "API", "id": "v1", "href": "/api/maestro/v1"}),
        ),
        (&Method::GET, ["consumers"]) => page("ConsumerList", &m.consumers, q).map_or_else(
            |e| err(400, 21, format!("Failed to parse search query: {e}")),
            |v| json_response(200, &v),
        ),
        (&Method::GET, ["resource-bundles"]) => page("ResourceBundleList", &m.bundles, q)
            .map_or_else(
                |e| err(400, 21, format!("Failed to parse search query: {e}")),
                |v| json_response(200, &v),
            ),
        (&Method::GET, ["resource-bundles", id]) => match m.bundles.iter().find(|b| b["id"] == *id)
        {
            Some(b) => json_response(200, b),
            None => err(404, 7, format!("Resource bundle with id='{id}' not found")),
        },
        (&Method::DELETE, ["resource-bundles", id]) => {
            let Some(b) = m.bundles.iter_mut().find(|b| b["id"] == *id) else {
                return err(404, 7, format!("Resource bundle with id='{id}' not found"));
            };
            if b["deleted_at"].is_null() {
                b["deleted_at"] = json!(stamp(Utc::now()));
            }
            let consumer = b["consumer_name"].as_str().unwrap_or("").to_string();
            let name = b["name"].as_str().unwrap_or("").to_string();
            drop(m);
            if let Some(mut c) = st.cluster(&consumer) {
                c.tombstones.insert(name.clone());
                if let Some(r) = c.resource("work.open-cluster-management.io", "manifestworks") {
                    let _ = c.delete(&r, "local-cluster", &name);
                }
            }
            StatusCode::NO_CONTENT.into_response()
        }
        _ => err(
            404,
            7,
            format!("{method} {path} is not part of the simulated Maestro API"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_forms() {
        assert_eq!(
            parse_search("consumer_name = 'mc-1'").unwrap(),
            vec![Term {
                field: "consumer_name".into(),
                values: vec!["mc-1".into()]
            }]
        );
        let t = parse_search("id in ('a', 'b') and name='x'").unwrap();
        assert_eq!(t[0].values, vec!["a", "b"]);
        assert_eq!(t[1].field, "name");
        assert!(parse_search("name = x").is_err());
        assert!(parse_search("color = 'red'").unwrap_err().contains("color"));
    }

    #[test]
    fn paging_counts_total() {
        let items: Vec<Value> = (0..5)
            .map(|i| json!({"name": format!("b{i}"), "consumer_name": "c"}))
            .collect();
        let q: HashMap<String, String> = [
            ("size".to_string(), "2".to_string()),
            ("page".to_string(), "3".to_string()),
        ]
        .into();
        let p = page("L", &items, &q).unwrap();
        assert_eq!(p["total"], 5);
        assert_eq!(p["size"], 1);
        assert_eq!(p["items"][0]["name"], "b4");
    }
}
