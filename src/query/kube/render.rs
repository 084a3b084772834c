//! PURE presentation of kube answers: the server-side `Table` as a [`Table`] (wide columns,
//! NAMESPACE for `-A`, `-L` label columns) and the `-o name|json` text.
//!
//! No IO; imports only `query::Table`.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::super::Table;

/// The objects of a list (or the object itself).
pub fn items(v: &Value) -> Vec<Value> {
    match v.get("items").and_then(Value::as_array) {
        Some(a) => a.clone(),
        None if v.is_object() && v.get("kind").is_some() => vec![v.clone()],
        None => Vec::new(),
    }
}

pub fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "<none>".to_string(),
        other => other.to_string(),
    }
}

fn label_col(name: &str) -> String {
    name.rsplit('/').next().unwrap_or(name).to_uppercase()
}

fn label_of(obj: &Value, key: &str) -> String {
    obj.pointer("/metadata/labels")
        .and_then(|l| l.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// Converts a server `Table`; returns `None` when `t` is not one. The raw objects come from
/// the rows (`includeObject=Object`).
pub fn from_server_table(
    t: &Value,
    wide: bool,
    ns_col: bool,
    label_cols: &[String],
) -> Option<(Table, Vec<Value>)> {
    if t.get("kind").and_then(Value::as_str) != Some("Table") {
        return None;
    }
    let defs = t["columnDefinitions"].as_array()?;
    let keep: Vec<usize> = defs
        .iter()
        .enumerate()
        .filter(|(_, d)| wide || d["priority"].as_i64().unwrap_or(0) == 0)
        .map(|(i, _)| i)
        .collect();
    let mut columns: Vec<String> = Vec::new();
    if ns_col {
        columns.push("NAMESPACE".into());
    }
    columns.extend(
        keep.iter()
            .map(|i| defs[*i]["name"].as_str().unwrap_or("").to_uppercase()),
    );
    columns.extend(label_cols.iter().map(|l| label_col(l)));
    let mut rows = Vec::new();
    let mut raw = Vec::new();
    for r in t["rows"].as_array().into_iter().flatten() {
        let cells = r["cells"].as_array().cloned().unwrap_or_default();
        let obj = r.get("object").cloned().unwrap_or(Value::Null);
        let mut row = Vec::new();
        if ns_col {
            row.push(
                obj.pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            );
        }
        row.extend(
            keep.iter()
                .map(|i| cells.get(*i).map(cell).unwrap_or_default()),
        );
        row.extend(label_cols.iter().map(|l| label_of(&obj, l)));
        rows.push(row);
        raw.push(obj);
    }
    Some((Table { columns, rows }, raw))
}

/// Kubernetes-style age.
pub fn age(ts: Option<&str>, now: DateTime<Utc>) -> String {
    let Some(t) = ts.and_then(|s| DateTime::parse_from_rfc3339(s).ok()) else {
        return "<unknown>".into();
    };
    crate::human::duration((now - t.with_timezone(&Utc)).num_seconds())
}

/// A NAME / STATUS / AGE table for servers that do not print tables.
pub fn fallback_table(
    objs: &[Value],
    ns_col: bool,
    label_cols: &[String],
    now: DateTime<Utc>,
) -> Table {
    let mut columns = Vec::new();
    if ns_col {
        columns.push("NAMESPACE".to_string());
    }
    columns.extend(["NAME", "STATUS", "AGE"].map(String::from));
    columns.extend(label_cols.iter().map(|l| label_col(l)));
    let rows = objs
        .iter()
        .map(|o| {
            let mut row = Vec::new();
            if ns_col {
                row.push(
                    o.pointer("/metadata/namespace")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                );
            }
            let status = o
                .pointer("/status/phase")
                .or(o.pointer("/status/status"))
                .map(cell)
                .unwrap_or_else(|| "<none>".into());
            row.push(o.pointer("/metadata/name").map(cell).unwrap_or_default());
            row.push(status);
            row.push(age(
                o.pointer("/metadata/creationTimestamp")
                    .and_then(Value::as_str),
                now,
            ));
            row.extend(label_cols.iter().map(|l| label_of(o, l)));
            row
        })
        .collect();
    Table { columns, rows }
}

/// `pod/x`, `deployment.apps/x`, `manifestwork.work.open-cluster-management.io/x`.
pub fn name_line(kind: &str, group: &str, obj: &Value) -> String {
    let name = obj
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    if group.is_empty() {
        format!("{}/{name}", kind.to_lowercase())
    } else {
        format!("{}.{group}/{name}", kind.to_lowercase())
    }
}

/// The `-o json|yaml` document: the object itself when one was named, else a `List`.
pub fn document(objs: &[Value], single: bool) -> Value {
    match objs {
        [one] if single => one.clone(),
        _ => {
            json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": objs})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_table_columns() {
        let t = json!({"kind": "Table", "columnDefinitions": [{"name": "Name", "priority": 0}, {"name": "Status", "priority": 0}, {"name": "Node", "priority": 1}],
            "rows": [{"cells": ["p1", "Running", "n1"], "object": {"metadata": {"name": "p1", "namespace": "ns1", "labels": {"agentpool": "sys"}}}}]});
        let (tab, raw) = from_server_table(&t, false, true, &["agentpool".into()]).unwrap();
        assert_eq!(
            tab.columns,
            vec!["NAMESPACE", "NAME", "STATUS", "AGENTPOOL"]
        );
        assert_eq!(tab.rows[0], vec!["ns1", "p1", "Running", "sys"]);
        assert_eq!(raw.len(), 1);
        let (wide, _) = from_server_table(&t, true, false, &[]).unwrap();
        assert_eq!(wide.columns, vec!["NAME", "STATUS", "NODE"]);
        assert!(from_server_table(&json!({"kind": "PodList"}), false, false, &[]).is_none());
    }

    #[test]
    fn names_and_documents() {
        let o = json!({"kind": "ManifestWork", "metadata": {"name": "x"}});
        assert_eq!(
            name_line("ManifestWork", "work.open-cluster-management.io", &o),
            "manifestwork.work.open-cluster-management.io/x"
        );
        assert_eq!(name_line("Pod", "", &o), "pod/x");
        assert_eq!(document(std::slice::from_ref(&o), true), o);
        assert_eq!(document(&[o.clone(), o], false)["kind"], "List");
    }
}
