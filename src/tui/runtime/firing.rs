//! The firing-alerts refresher: a thread with its own small tokio runtime asks every
//! configured Alertmanager (`crate::query::alertmanager`) at start and then every 30 s, turns
//! the answers into the TUI's plain [`FiringUpdate`] (the conversion between the layers lives
//! here) and sends it to the main loop. A slow or unreachable Alertmanager never blocks a key:
//! requests time out after 5 s and come back as a line saying so.

use std::collections::BTreeSet;
use std::sync::mpsc::Sender;
use std::time::Duration;

use super::Msg;
use crate::query::alertmanager::{self, Alertmanager, Endpoint, Fetched, PrometheusAlerts};
use crate::query::Cancel;
use crate::tui::action::Action;
use crate::tui::firing::{Alert, FiringUpdate};

/// Where firing alerts come from.
#[derive(Debug, Clone, Default)]
pub struct FiringSettings {
    pub endpoints: Vec<Endpoint>,
    /// Names of the sources whose alerts start their step's read-only probes.
    pub auto_run: BTreeSet<String>,
    /// The fallback (`ALERTS{alertstate="firing"}`): Prometheus URL and token command.
    pub prometheus: Option<(String, Option<String>)>,
    /// Between refreshes (30 s).
    pub every: Duration,
}

/// The TUI's alerts from the client's answers; failed sources become lines with the fix.
pub fn convert(fetched: Vec<Fetched>, auto_run: &BTreeSet<String>) -> FiringUpdate {
    let mut u = FiringUpdate {
        at: chrono::Utc::now().timestamp(),
        ..FiringUpdate::default()
    };
    for f in fetched {
        match f.result {
            Ok(list) => u.alerts.extend(list.into_iter().map(|a| {
                Alert {
                    name: a.alertname().to_string(),
                    since: chrono::DateTime::parse_from_rfc3339(&a.starts_at)
                        .map(|t| t.timestamp())
                        .unwrap_or(0),
                    state: if a.state == "suppressed" {
                        "suppressed".into()
                    } else {
                        "active".into()
                    },
                    auto_run: auto_run.contains(&a.source),
                    source: a.source,
                    labels: a.labels,
                    starts_at: a.starts_at,
                    silenced_by: a.silenced_by,
                    inhibited_by: a.inhibited_by,
                    route: None,
                }
            })),
            Err(e) => u.errors.push((f.source.clone(), explain(&f.url, &e))),
        }
    }
    u
}

/// What went wrong reading a source, and what to do about it.
pub fn explain(url: &str, e: &crate::query::ProbeError) -> String {
    use crate::query::ProbeError as E;
    let fix = match e {
        E::ConnectionRefused { .. } | E::Connect { .. } => {
            "is it running, and is the url in [[alertmanager]] right?"
        }
        E::Timeout { .. } => "it did not answer in time; it is asked again at the next refresh",
        E::Http { status: 401, .. } | E::Http { status: 403, .. } => {
            "check its token_cmd in [[alertmanager]] (it must print a valid bearer token)"
        }
        E::BadResponse { .. } => "is the url an Alertmanager (API v2)?",
        _ => "it is asked again at the next refresh",
    };
    format!("cannot read {url}: {e}; {fix}")
}

/// Clients for the settings' sources.
pub fn clients(s: &FiringSettings) -> (Vec<Alertmanager>, Option<PrometheusAlerts>) {
    let ams = s.endpoints.iter().cloned().map(Alertmanager::new).collect();
    let prom = s
        .prometheus
        .clone()
        .filter(|_| s.endpoints.is_empty())
        .map(|(url, token)| PrometheusAlerts::new(url, token));
    (ams, prom)
}

/// Starts the refresher thread; it ends when the main loop is gone.
pub fn start(settings: FiringSettings, tx: Sender<Msg>) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::Builder::new()
        .name("tsgnav-firing".into())
        .spawn(move || {
            let (ams, prom) = clients(&settings);
            loop {
                let fetched =
                    rt.block_on(alertmanager::fetch_all(&ams, prom.as_ref(), &Cancel::new()));
                let update = convert(fetched, &settings.auto_run);
                if tx.send(Msg::Ui(Action::Firing(Box::new(update)))).is_err() {
                    return;
                }
                std::thread::sleep(settings.every);
            }
        })?;
    Ok(())
}
