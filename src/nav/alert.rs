//! Alert payloads → alert names and labels, and which guide variable a label fills. Pure:
//! takes text, returns data. Imports serde_json and `crate::tsg`; must not import IO.
//!
//! Accepted shapes: an Alertmanager webhook payload (`{"alerts":[{"labels":…}], "commonLabels":…}`),
//! Prometheus' `/api/v1/alerts` answer (`{"data":{"alerts":[…]}}`), an array of alerts, or one
//! alert object (`{"labels":{"alertname":…}}`).

use std::collections::BTreeMap;

use serde_json::Value;

/// One alert: its name (`alertname` label) and all its labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertInput {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    /// The `runbook_url` annotation, when the payload carries one.
    pub runbook_url: Option<String>,
    /// When the alert started firing (`startsAt`, RFC 3339).
    pub starts_at: Option<String>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PayloadError {
    #[error("{source_name}: is not JSON ({detail}); pass an Alertmanager webhook payload or a Prometheus alert")]
    NotJson { source_name: String, detail: String },
    #[error("{source_name}: has no alerts: expected `alerts` (Alertmanager), `data.alerts` (Prometheus) or an alert with `labels`")]
    NoAlerts { source_name: String },
    #[error("{source_name}: alert {index} has no `alertname` label; add it or use --alert NAME")]
    NoName { source_name: String, index: usize },
}

/// Parses a payload; `source_name` (a file name or `stdin`) is used in messages.
/// Alerts are returned firing first, in payload order.
pub fn parse_alert_payload(source_name: &str, text: &str) -> Result<Vec<AlertInput>, PayloadError> {
    let src = || source_name.to_string();
    let v: Value = serde_json::from_str(text).map_err(|e| PayloadError::NotJson {
        source_name: src(),
        detail: e.to_string(),
    })?;
    let common = labels_of(v.get("commonLabels"));
    let list: Vec<&Value> = if let Some(a) = v.get("alerts").and_then(Value::as_array) {
        a.iter().collect()
    } else if let Some(a) = v.pointer("/data/alerts").and_then(Value::as_array) {
        a.iter().collect()
    } else if let Some(a) = v.as_array() {
        a.iter().collect()
    } else if v.get("labels").is_some() {
        vec![&v]
    } else {
        Vec::new()
    };
    if list.is_empty() {
        return Err(PayloadError::NoAlerts { source_name: src() });
    }
    let mut firing = Vec::new();
    let mut other = Vec::new();
    for (i, a) in list.iter().enumerate() {
        let mut labels = common.clone();
        labels.extend(labels_of(a.get("labels")));
        let Some(name) = labels.get("alertname").cloned() else {
            return Err(PayloadError::NoName {
                source_name: src(),
                index: i + 1,
            });
        };
        let state = a
            .get("status")
            .or_else(|| a.get("state"))
            .and_then(Value::as_str)
            .unwrap_or("firing");
        let annotations = labels_of(a.get("annotations"));
        let runbook_url = annotations
            .get("runbook_url")
            .or_else(|| labels.get("runbook_url"))
            .cloned();
        let starts_at = a
            .get("startsAt")
            .or_else(|| a.get("activeAt"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let alert = AlertInput {
            name,
            labels,
            runbook_url,
            starts_at,
        };
        if state == "firing" {
            firing.push(alert)
        } else {
            other.push(alert)
        }
    }
    firing.extend(other);
    Ok(firing)
}

fn labels_of(v: Option<&Value>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(obj) = v.and_then(Value::as_object) {
        for (k, v) in obj {
            let s = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            out.insert(k.clone(), s);
        }
    }
    out
}

fn norm(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// The pseudo-label an alert's start time is offered under, to fill time variables.
pub const STARTS_AT: &str = "startsAt";

/// Variables (normalised) that an alert's start time fills.
const TIME_VARS: &[&str] = &[
    "starts_at",
    "start_time",
    "start",
    "since",
    "alert_start",
    "alert_time",
    "incident_start",
    "starttime",
    "from",
];

/// Route for an alert: what the guides declare or infer by name, else its `runbook_url`.
pub fn route_alert(
    lib: &crate::tsg::Library,
    name: &str,
    runbook_url: Option<&str>,
) -> Option<crate::tsg::Route> {
    crate::tsg::routing::route_for(lib, name, runbook_url)
}

/// Whether alert label `label` fills guide variable `var`: the same name (`namespace` →
/// `NAMESPACE`), the name plus `_name` (`node` → `NODE_NAME`), or a variable ending in
/// `_<label>` (`namespace` → `OCM_NAMESPACE`). Case and `-`/`_`/space are ignored. The
/// start time ([`STARTS_AT`]) fills time variables (`START_TIME`, `SINCE`, `<start time>` …).
pub fn var_for_label(label: &str, var: &str) -> bool {
    let (l, v) = (norm(label), norm(var));
    if label == STARTS_AT {
        return TIME_VARS.contains(&v.as_str()) || v.ends_with("_start_time");
    }
    if l.is_empty() || l == "alertname" {
        return false;
    }
    v == l || v == format!("{l}_name") || v.ends_with(&format!("_{l}"))
}
