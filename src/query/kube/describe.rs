//! PURE generic `kubectl describe` text: metadata (labels, annotations, deletion and
//! finalizers called out), the rest of the object as YAML, then the object's events.
//!
//! No IO; imports only `query::Table` and `kube::render` helpers.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::super::Table;
use super::render::{age, cell, yaml};

fn indent(text: &str, by: usize) -> String {
    text.lines()
        .map(|l| format!("{}{l}\n", " ".repeat(by)))
        .collect()
}

fn map_lines(v: Option<&Value>) -> String {
    match v.and_then(Value::as_object) {
        Some(m) if !m.is_empty() => m
            .iter()
            .map(|(k, v)| format!("{k}={}", cell(v)))
            .collect::<Vec<_>>()
            .join("\n              "),
        _ => "<none>".into(),
    }
}

/// A generic `kubectl describe`: metadata, the rest of the object as YAML, then events.
pub fn describe(obj: &Value, events: &[Value], now: DateTime<Utc>) -> String {
    let md = &obj["metadata"];
    let mut out = format!("Name:         {}\n", cell(&md["name"]));
    if let Some(ns) = md["namespace"].as_str() {
        out.push_str(&format!("Namespace:    {ns}\n"));
    }
    out.push_str(&format!("Labels:       {}\n", map_lines(md.get("labels"))));
    out.push_str(&format!(
        "Annotations:  {}\n",
        map_lines(md.get("annotations"))
    ));
    out.push_str(&format!(
        "API Version:  {}\nKind:         {}\n",
        cell(&obj["apiVersion"]),
        cell(&obj["kind"])
    ));
    out.push_str(&format!(
        "Created:      {} ({} ago)\n",
        cell(&md["creationTimestamp"]),
        age(md["creationTimestamp"].as_str(), now)
    ));
    if let Some(d) = md["deletionTimestamp"].as_str() {
        out.push_str(&format!(
            "Deleting:     since {d} ({} ago)\n",
            age(Some(d), now)
        ));
    }
    if let Some(f) = md["finalizers"].as_array().filter(|f| !f.is_empty()) {
        out.push_str(&format!(
            "Finalizers:   {}\n",
            f.iter().map(cell).collect::<Vec<_>>().join(", ")
        ));
    }
    if let Some(m) = obj.as_object() {
        for (k, v) in m
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "apiVersion" | "kind" | "metadata"))
        {
            let mut title = k.clone();
            if let Some(f) = title.get_mut(0..1) {
                f.make_ascii_uppercase();
            }
            out.push_str(&format!("{title}:\n{}", indent(&yaml(v), 2)));
        }
    }
    if events.is_empty() {
        out.push_str("Events:       <none>\n");
        return out;
    }
    let rows = events
        .iter()
        .map(|e| {
            let seen = e["lastTimestamp"].as_str().or(e["eventTime"].as_str()).or(e
                .pointer("/metadata/creationTimestamp")
                .and_then(Value::as_str));
            vec![
                cell(&e["type"]),
                cell(&e["reason"]),
                age(seen, now),
                e.pointer("/source/component").map(cell).unwrap_or_default(),
                cell(&e["message"]),
            ]
        })
        .collect();
    let t = Table {
        columns: ["Type", "Reason", "Age", "From", "Message"]
            .map(String::from)
            .to_vec(),
        rows,
    };
    out.push_str(&format!("Events:\n{}", indent(&t.render(), 2)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn describe_shows_deletion_and_events() {
        let o = json!({"apiVersion": "v1", "kind": "X", "metadata": {"name": "m", "namespace": "n", "deletionTimestamp": "2020-01-01T00:00:00Z", "finalizers": ["f/x"]}, "status": {"status": "deleting"}});
        let e = json!({"type": "Warning", "reason": "CreateOrUpdateFailed", "message": "ErrorCode 4", "source": {"component": "dnc-rc"}});
        let d = describe(&o, &[e], Utc::now());
        assert!(d.contains("Finalizers:   f/x"), "{d}");
        assert!(
            d.contains("Deleting:     since 2020-01-01T00:00:00Z"),
            "{d}"
        );
        assert!(d.contains("Status:\n  status: deleting"), "{d}");
        assert!(d.contains("CreateOrUpdateFailed"), "{d}");
    }
}
