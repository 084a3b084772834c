//! PURE server-side printing: the `meta.k8s.io/v1` `Table` that `kubectl get` asks for, with
//! the columns the real API server prints for the built-in kinds and the printer columns of
//! custom resources.
//!
//! No IO; imports only `sim::resources`, `sim::select` and the leaf `human`.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::cells::columns;
use super::resources::ResourceInfo;

/// The age column as the API server prints it (`45s`, `5m30s`, `3d4h`).
pub fn age(ts: &Value, now: DateTime<Utc>) -> String {
    let Some(t) = ts
        .as_str()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
    else {
        return "<unknown>".into();
    };
    // Objects made after a frozen clock read `0s`, not `<invalid>`.
    crate::human::duration((now - t.with_timezone(&Utc)).num_seconds().max(0))
}

/// Evaluates a simple JSONPath (`.status.phase`, `.metadata.labels.app`, `aro\.openshift\.io/x`).
pub fn json_path<'a>(obj: &'a Value, path: &str) -> Option<&'a Value> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut chars = path.trim_start_matches('.').chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'.') => cur.push(chars.next().unwrap_or('.')),
            '.' => parts.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    parts.push(cur);
    let mut v = obj;
    for p in parts.iter().filter(|p| !p.is_empty()) {
        v = match v {
            Value::Array(a) => a.get(p.parse::<usize>().ok()?)?,
            _ => v.get(p.as_str())?,
        };
    }
    Some(v)
}

/// A cell as text: strings as is, missing as `<none>`.
pub fn text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "<none>".into(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn row_object(o: &Value, include: &str) -> Option<Value> {
    match include {
        "None" => None,
        "Object" => Some(o.clone()),
        _ => Some(
            json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": o["metadata"]}),
        ),
    }
}

fn coldef(name: &str, priority: u8, format: &str) -> Value {
    json!({"name": name, "type": "string", "format": format, "description": "", "priority": priority})
}

/// The Table for `objs` of resource `r`; `include` is the `includeObject` parameter.
pub fn table(
    r: &ResourceInfo,
    objs: &[Value],
    include: &str,
    rv: u64,
    now: DateTime<Utc>,
) -> Value {
    let mut defs = Vec::new();
    let mut rows = Vec::new();
    if r.kind == "Event" {
        defs = ["Last Seen", "Type", "Reason", "Object", "Message"]
            .iter()
            .map(|n| coldef(n, 0, ""))
            .collect();
        for o in objs {
            let seen = o
                .get("lastTimestamp")
                .filter(|v| !v.is_null())
                .or(o.get("eventTime"))
                .or(o.pointer("/metadata/creationTimestamp"))
                .cloned()
                .unwrap_or(Value::Null);
            let obj = format!(
                "{}/{}",
                text(json_path(o, ".involvedObject.kind")).to_lowercase(),
                text(json_path(o, ".involvedObject.name"))
            );
            let cells = vec![
                json!(age(&seen, now)),
                json!(text(o.get("type"))),
                json!(text(o.get("reason"))),
                json!(obj),
                json!(text(o.get("message"))),
            ];
            rows.push(json!({"cells": cells, "object": row_object(o, include)}));
        }
    } else {
        let sample = objs.first().cloned().unwrap_or(json!({}));
        let (cols, _) = columns(r, &sample);
        // AGE goes before VERSION (nodes) or the first wide column, else last.
        let age_at = cols
            .iter()
            .position(|(n, p)| (n == "Version" && r.kind == "Node") || *p > 0)
            .unwrap_or(cols.len());
        defs.push(coldef("Name", 0, "name"));
        for (i, (n, p)) in cols.iter().enumerate() {
            if i == age_at {
                defs.push(coldef("Age", 0, ""));
            }
            defs.push(coldef(n, *p, ""));
        }
        if age_at == cols.len() {
            defs.push(coldef("Age", 0, ""));
        }
        for o in objs {
            let (_, cells) = columns(r, o);
            let mut row = vec![o["metadata"]["name"].clone()];
            let a = json!(age(&o["metadata"]["creationTimestamp"], now));
            let n = cells.len();
            for (i, c) in cells.into_iter().enumerate() {
                if i == age_at {
                    row.push(a.clone());
                }
                row.push(c);
            }
            if age_at >= n {
                row.push(a);
            }
            rows.push(json!({"cells": row, "object": row_object(o, include)}));
        }
    }
    json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": rv.to_string()},
        "columnDefinitions": defs, "rows": rows})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_path_handles_escaped_dots_and_indexes() {
        let o = json!({"status": {"capacity": {"aro.openshift.io/swift-nic": "7"}, "list": [{"a": 1}]}});
        assert_eq!(
            json_path(&o, r".status.capacity.aro\.openshift\.io/swift-nic"),
            Some(&json!("7"))
        );
        assert_eq!(json_path(&o, ".status.list.0.a"), Some(&json!(1)));
        assert_eq!(text(json_path(&o, ".status.nope")), "<none>");
    }

    #[test]
    fn pod_table_shows_waiting_reason() {
        let r = super::super::resources::builtins()
            .into_iter()
            .find(|r| r.kind == "Pod")
            .unwrap();
        let p = json!({"metadata": {"name": "router-0", "creationTimestamp": "2020-01-01T00:00:00Z"}, "spec": {"containers": [{"name": "r"}], "nodeName": "n1"},
            "status": {"phase": "Pending", "containerStatuses": [{"ready": false, "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}]}});
        let t = table(&r, &[p], "Metadata", 7, Utc::now());
        let cells = &t["rows"][0]["cells"];
        assert_eq!(cells[0], "router-0");
        assert_eq!(cells[1], "0/1");
        assert_eq!(cells[2], "ContainerCreating");
        assert_eq!(t["columnDefinitions"][4]["name"], "Age");
        assert_eq!(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    }
}
