//! Alertmanager API v2 answers as plain data: `GET /api/v2/alerts` (gettable alerts with their
//! status) and `GET /api/v2/silences`. Pure parsing, no IO. Must not import `cli`, `tui`,
//! `nav` or `evidence`.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One alert Alertmanager holds (firing, or suppressed by a silence or an inhibition).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FiringAlert {
    /// The Alertmanager (or Prometheus) it came from: the config's `name`, or the URL.
    pub source: String,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    /// RFC 3339, as the server sent it.
    pub starts_at: String,
    /// `active`, `suppressed` or `unprocessed`.
    pub state: String,
    /// Ids of the silences that mute it.
    pub silenced_by: Vec<String>,
    /// Fingerprints of the alerts that inhibit it.
    pub inhibited_by: Vec<String>,
    pub fingerprint: String,
}

impl FiringAlert {
    pub fn alertname(&self) -> &str {
        self.labels
            .get("alertname")
            .map(String::as_str)
            .unwrap_or("")
    }
}

#[derive(Deserialize)]
struct Gettable {
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    annotations: BTreeMap<String, String>,
    #[serde(rename = "startsAt", default)]
    starts_at: String,
    #[serde(default)]
    fingerprint: String,
    #[serde(default)]
    status: Option<GettableStatus>,
}

#[derive(Deserialize)]
struct GettableStatus {
    #[serde(default)]
    state: String,
    #[serde(rename = "silencedBy", default)]
    silenced_by: Vec<String>,
    #[serde(rename = "inhibitedBy", default)]
    inhibited_by: Vec<String>,
}

/// Parses the body of `GET /api/v2/alerts`; the error says what is wrong with it.
pub fn alerts(source: &str, body: &[u8]) -> Result<Vec<FiringAlert>, String> {
    let list: Vec<Gettable> = serde_json::from_slice(body).map_err(|e| {
        format!("it is not the list of alerts of Alertmanager's API v2 (/api/v2/alerts): {e}")
    })?;
    Ok(list
        .into_iter()
        .map(|g| {
            let status = g.status.unwrap_or(GettableStatus {
                state: "active".into(),
                silenced_by: Vec::new(),
                inhibited_by: Vec::new(),
            });
            FiringAlert {
                source: source.to_string(),
                labels: g.labels,
                annotations: g.annotations,
                starts_at: g.starts_at,
                state: status.state,
                silenced_by: status.silenced_by,
                inhibited_by: status.inhibited_by,
                fingerprint: g.fingerprint,
            }
        })
        .collect())
}

/// A silence as `GET /api/v2/silences` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Silence {
    pub id: String,
    #[serde(default)]
    pub comment: String,
    #[serde(rename = "createdBy", default)]
    pub created_by: String,
    #[serde(rename = "endsAt", default)]
    pub ends_at: String,
    #[serde(default)]
    pub status: SilenceStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Default)]
pub struct SilenceStatus {
    #[serde(default)]
    pub state: String,
}

/// Parses the body of `GET /api/v2/silences`.
pub fn silences(body: &[u8]) -> Result<Vec<Silence>, String> {
    serde_json::from_slice(body).map_err(|e| {
        format!("it is not the list of silences of Alertmanager's API v2 (/api/v2/silences): {e}")
    })
}

/// The JSON to `POST /api/v2/silences`: every label of the alert as an exact matcher.
pub fn silence_body(
    labels: &BTreeMap<String, String>,
    starts_at: &str,
    ends_at: &str,
    created_by: &str,
    comment: &str,
) -> serde_json::Value {
    let matchers: Vec<serde_json::Value> = labels
        .iter()
        .map(|(k, v)| serde_json::json!({"name": k, "value": v, "isRegex": false, "isEqual": true}))
        .collect();
    serde_json::json!({
        "matchers": matchers,
        "startsAt": starts_at,
        "endsAt": ends_at,
        "createdBy": created_by,
        "comment": comment,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_state_and_silences() {
        let body = br#"[{"labels":{"alertname":"A","cluster":"c1"},"annotations":{},
            "startsAt":"2026-01-01T00:00:00Z","fingerprint":"f1",
            "status":{"state":"suppressed","silencedBy":["s1"],"inhibitedBy":[]}}]"#;
        let a = alerts("am", body).unwrap();
        assert_eq!(a[0].alertname(), "A");
        assert_eq!(a[0].state, "suppressed");
        assert_eq!(a[0].silenced_by, vec!["s1".to_string()]);
        assert_eq!(a[0].source, "am");
    }

    #[test]
    fn malformed_names_the_api() {
        let e = alerts("am", b"{\"status\":\"ok\"").unwrap_err();
        assert!(e.contains("/api/v2/alerts"), "{e}");
    }
}
