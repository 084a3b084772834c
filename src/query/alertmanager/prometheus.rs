//! The fallback when no Alertmanager is configured but a Prometheus is: its firing alerts are
//! the `ALERTS{alertstate="firing"}` series, and when each started is the value of
//! `ALERTS_FOR_STATE` (unix seconds). IO edge; must not import `cli`, `tui`, `nav` or
//! `evidence`.

use std::collections::BTreeMap;
use std::time::Duration;

use super::FiringAlert;
use crate::query::net::{self, TokenSource};
use crate::query::{Cancel, ProbeError};

/// Firing alerts read from a Prometheus.
pub struct PrometheusAlerts {
    /// Shown as the alerts' source.
    pub name: String,
    pub url: String,
    pub timeout: Duration,
    token: TokenSource,
    client: Result<reqwest::Client, ProbeError>,
}

impl PrometheusAlerts {
    pub fn new(url: String, token_cmd: Option<String>) -> Self {
        PrometheusAlerts {
            name: "prometheus".into(),
            url,
            timeout: super::TIMEOUT,
            token: TokenSource::new(token_cmd),
            client: net::client(),
        }
    }

    async fn vector(&self, query: &str, cancel: &Cancel) -> Result<Vec<Sample>, ProbeError> {
        let client = self.client.clone()?;
        let url = format!("{}/api/v1/query", self.url.trim_end_matches('/'));
        let full = reqwest::Url::parse_with_params(&url, [("query", query)]).map_err(|e| {
            ProbeError::Config {
                detail: format!("bad Prometheus URL {url}: {e}"),
            }
        })?;
        let body = self
            .token
            .fetch(|| Ok(client.get(full.clone())), &url, self.timeout, cancel)
            .await?;
        let json = serde_json::from_slice(&body.bytes).ok();
        let v = net::success_json(&body, &url, json)?;
        samples(&v).ok_or_else(|| ProbeError::BadResponse {
            url,
            detail: "not an instant-vector answer (`data.result` is missing)".into(),
        })
    }

    /// The firing alerts, each with its start time when Prometheus has it.
    pub async fn alerts(&self, cancel: &Cancel) -> Result<Vec<FiringAlert>, ProbeError> {
        let firing = self.vector("ALERTS{alertstate=\"firing\"}", cancel).await?;
        let since: BTreeMap<BTreeMap<String, String>, f64> = self
            .vector("ALERTS_FOR_STATE", cancel)
            .await
            .unwrap_or_default()
            .into_iter()
            .collect();
        Ok(firing
            .into_iter()
            .map(|(mut labels, _)| {
                labels.remove("alertstate");
                let starts_at = since
                    .get(&labels)
                    .and_then(|s| chrono::DateTime::from_timestamp(*s as i64, 0))
                    .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                    .unwrap_or_default();
                FiringAlert {
                    source: self.name.clone(),
                    labels,
                    starts_at,
                    state: "active".into(),
                    ..FiringAlert::default()
                }
            })
            .collect())
    }
}

type Sample = (BTreeMap<String, String>, f64);

/// `data.result[]` of an instant query: each series' labels (without `__name__`) and value.
fn samples(v: &serde_json::Value) -> Option<Vec<Sample>> {
    let result = v.get("data")?.get("result")?.as_array()?;
    Some(
        result
            .iter()
            .filter_map(|s| {
                let mut labels: BTreeMap<String, String> =
                    serde_json::from_value(s.get("metric")?.clone()).ok()?;
                labels.remove("__name__");
                let value = s.get("value")?.get(1)?.as_str()?.parse().ok()?;
                Some((labels, value))
            })
            .collect(),
    )
}
