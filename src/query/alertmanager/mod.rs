//! Firing alerts, live: Alertmanager's API v2 (`/api/v2/alerts`, `/api/v2/silences`, and
//! `POST /api/v2/silences` for a confirmed silence), several Alertmanagers at once (one per
//! region), bearer tokens from a command (re-run on 401 or expiry), TLS through rustls; and
//! the Prometheus fallback (`ALERTS{alertstate="firing"}`) when only a Prometheus is known.
//!
//! IO edge. Must not import `cli`, `tui`, `nav` or `evidence`.

mod parse;
mod prometheus;

use std::collections::BTreeMap;
use std::time::Duration;

pub use parse::{alerts as parse_alerts, silence_body, FiringAlert, Silence};
pub use prometheus::PrometheusAlerts;

use super::net::{self, TokenSource};
use super::{Cancel, ProbeError};

/// How long one request to an Alertmanager may take before it is reported as timed out.
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// One Alertmanager to read: `[[alertmanager]] name url token_cmd` in the config file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Endpoint {
    pub name: String,
    pub url: String,
    pub token_cmd: Option<String>,
}

/// A client for one Alertmanager.
pub struct Alertmanager {
    pub endpoint: Endpoint,
    pub timeout: Duration,
    token: TokenSource,
    client: Result<reqwest::Client, ProbeError>,
}

/// What one source answered.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub source: String,
    pub url: String,
    pub result: Result<Vec<FiringAlert>, ProbeError>,
}

impl Alertmanager {
    pub fn new(endpoint: Endpoint) -> Self {
        Alertmanager {
            token: TokenSource::new(endpoint.token_cmd.clone()),
            endpoint,
            timeout: TIMEOUT,
            client: net::client(),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.endpoint.url.trim_end_matches('/'))
    }

    /// Sends a request built by `build`, with the bearer token (once more with a fresh one
    /// after a 401); the body of a 2xx answer.
    async fn send(
        &self,
        url: &str,
        cancel: &Cancel,
        build: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder,
    ) -> Result<Vec<u8>, ProbeError> {
        let client = self.client.clone()?;
        let body = self
            .token
            .fetch(|| Ok(build(&client)), url, self.timeout, cancel)
            .await?;
        if !(200..300).contains(&body.status) {
            return Err(net::http_error(&body, url));
        }
        Ok(body.bytes)
    }

    /// Every alert it holds: active, silenced and inhibited ones.
    pub async fn alerts(&self, cancel: &Cancel) -> Result<Vec<FiringAlert>, ProbeError> {
        let url = self.url("/api/v2/alerts");
        let full = format!("{url}?active=true&silenced=true&inhibited=true&unprocessed=true");
        let bytes = self.send(&url, cancel, |c| c.get(&full)).await?;
        parse::alerts(&self.endpoint.name, &bytes)
            .map_err(|detail| ProbeError::BadResponse { url, detail })
    }

    /// The silences it knows (active, pending and expired).
    pub async fn silences(&self, cancel: &Cancel) -> Result<Vec<Silence>, ProbeError> {
        let url = self.url("/api/v2/silences");
        let bytes = self.send(&url, cancel, |c| c.get(&url)).await?;
        parse::silences(&bytes).map_err(|detail| ProbeError::BadResponse { url, detail })
    }

    /// Creates a silence matching `labels` exactly for `duration`; its id.
    pub async fn create_silence(
        &self,
        labels: &BTreeMap<String, String>,
        duration: Duration,
        created_by: &str,
        comment: &str,
        cancel: &Cancel,
    ) -> Result<String, ProbeError> {
        let url = self.url("/api/v2/silences");
        let now = chrono::Utc::now();
        let end = now + chrono::Duration::from_std(duration).unwrap_or(chrono::Duration::hours(1));
        let body = silence_body(
            labels,
            &now.to_rfc3339(),
            &end.to_rfc3339(),
            created_by,
            comment,
        );
        let bytes = self
            .send(&url, cancel, |c| c.post(&url).json(&body))
            .await?;
        serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .and_then(|v| v.get("silenceID")?.as_str().map(str::to_string))
            .ok_or_else(|| ProbeError::BadResponse {
                url,
                detail: "the answer has no `silenceID`".into(),
            })
    }

    /// Expires a silence by id.
    pub async fn expire_silence(&self, id: &str, cancel: &Cancel) -> Result<(), ProbeError> {
        let url = self.url(&format!("/api/v2/silence/{id}"));
        self.send(&url, cancel, |c| c.delete(&url)).await?;
        Ok(())
    }
}

/// Reads every source at once; one answer per source, in the order given.
pub async fn fetch_all(
    ams: &[Alertmanager],
    prometheus: Option<&PrometheusAlerts>,
    cancel: &Cancel,
) -> Vec<Fetched> {
    let am = futures::future::join_all(ams.iter().map(|a| async move {
        Fetched {
            source: a.endpoint.name.clone(),
            url: a.endpoint.url.clone(),
            result: a.alerts(cancel).await,
        }
    }));
    let prom = async {
        match prometheus {
            Some(p) => Some(Fetched {
                source: p.name.clone(),
                url: p.url.clone(),
                result: p.alerts(cancel).await,
            }),
            None => None,
        }
    };
    let (mut out, prom) = futures::join!(am, prom);
    out.extend(prom);
    out
}
