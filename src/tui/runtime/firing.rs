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
use crate::tui::firing::{Alert, AlertState, FaultKind, FiringUpdate, SourceFault};

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
                    runbook_url: a
                        .annotations
                        .get("runbook_url")
                        .or_else(|| a.labels.get("runbook_url"))
                        .cloned(),
                    since: chrono::DateTime::parse_from_rfc3339(&a.starts_at)
                        .map(|t| t.timestamp())
                        .unwrap_or(0),
                    state: AlertState::from_wire(&a.state),
                    auto_run: auto_run.contains(&a.source),
                    source: a.source,
                    labels: a.labels,
                    starts_at: a.starts_at,
                    silenced_by: a.silenced_by,
                    inhibited_by: a.inhibited_by,
                    route: None,
                }
            })),
            Err(e) => u.errors.push(SourceFault::new(
                f.source.clone(),
                fault_kind(&e),
                explain(&f.url, &e),
            )),
        }
    }
    u
}

/// The kind of fault a source's error is, from the error's type.
pub fn fault_kind(e: &crate::query::ProbeError) -> FaultKind {
    use crate::query::ProbeError as E;
    match e {
        E::Timeout { .. } => FaultKind::Slow,
        E::Http {
            status: 401 | 403, ..
        } => FaultKind::Unauthorized,
        E::ConnectionRefused { .. } | E::Connect { .. } | E::Dropped { .. } => FaultKind::Down,
        E::BadResponse { .. } => FaultKind::Malformed,
        _ => FaultKind::Failing,
    }
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

/// What the runtime keeps of the refresher: where to send silences, and a way to ask for a
/// refresh now (after a silence).
pub struct Handle {
    endpoints: Vec<Endpoint>,
    tx: Sender<Msg>,
    refresh: Sender<()>,
}

/// Starts the refresher thread; it ends when the main loop is gone.
pub fn start(settings: FiringSettings, tx: Sender<Msg>) -> std::io::Result<Handle> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (refresh, wake) = std::sync::mpsc::channel::<()>();
    let handle = Handle {
        endpoints: settings.endpoints.clone(),
        tx: tx.clone(),
        refresh,
    };
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
                if let Err(std::sync::mpsc::RecvTimeoutError::Disconnected) =
                    wake.recv_timeout(settings.every)
                {
                    return;
                }
            }
        })?;
    Ok(handle)
}

/// A confirmed silence, as the runtime carries it out.
pub struct SilenceRequest {
    pub source: String,
    pub alert: String,
    pub labels: std::collections::BTreeMap<String, String>,
    pub hours: u32,
    pub typed: String,
    /// The evidence session it is recorded in (its id goes into the silence's comment).
    pub session: Option<String>,
}

impl Handle {
    /// Creates the silence in the background: checks the typed name again, posts it, records
    /// its id in the evidence and asks for a refresh; the outcome comes back as a notice.
    pub fn silence(&self, req: SilenceRequest) -> Vec<Action> {
        let Some(endpoint) = self
            .endpoints
            .iter()
            .find(|e| e.name == req.source)
            .cloned()
        else {
            return vec![Action::Notice(format!(
                "No Alertmanager named `{}` is configured; nothing was silenced.",
                req.source
            ))];
        };
        if req.typed != endpoint.name {
            return vec![Action::Notice(format!(
                "`{}` is not `{}`: nothing was silenced.",
                req.typed, endpoint.name
            ))];
        }
        let (tx, refresh) = (self.tx.clone(), self.refresh.clone());
        let spawned = std::thread::Builder::new()
            .name("tsgnav-silence".into())
            .spawn(move || {
                let done = silence_now(&endpoint, &req);
                if let Ok((_, id, record)) = &done {
                    let _ = tx.send(Msg::Record(Box::new(record.clone())));
                    let _ = tx.send(Msg::Ui(Action::Silenced {
                        source: req.source.clone(),
                        id: id.clone(),
                        alert: req.alert.clone(),
                    }));
                    let _ = refresh.send(());
                }
                let text = match done {
                    Ok((text, _, _)) => text,
                    Err(e) => format!(
                        "Could not silence `{}` on {}: {}. Nothing was silenced.",
                        req.alert,
                        req.source,
                        explain(&endpoint.url, &e)
                    ),
                };
                let _ = tx.send(Msg::Ui(Action::Notice(text)));
            });
        match spawned {
            Ok(_) => Vec::new(),
            Err(e) => vec![Action::Notice(format!(
                "Could not start the silence request: {e}; nothing was silenced."
            ))],
        }
    }
}

impl Handle {
    /// Expires silence `id` on Alertmanager `source` in the background; records it and asks
    /// for a refresh; the outcome comes back as a notice.
    pub fn expire(&self, source: String, id: String) -> Vec<Action> {
        let Some(endpoint) = self.endpoints.iter().find(|e| e.name == source).cloned() else {
            return vec![Action::Notice(format!(
                "No Alertmanager named `{source}` is configured; silence {id} was not expired."
            ))];
        };
        let (tx, refresh) = (self.tx.clone(), self.refresh.clone());
        let shown = id.clone();
        let spawned = std::thread::Builder::new()
            .name("tsgnav-expire".into())
            .spawn(move || {
                let done = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| crate::query::ProbeError::Io {
                        detail: e.to_string(),
                    })
                    .and_then(|rt| {
                        rt.block_on(
                            Alertmanager::new(endpoint.clone()).expire_silence(&id, &Cancel::new()),
                        )
                    });
                let text = match done {
                    Ok(()) => {
                        let text = format!(
                            "silence {id} expired on Alertmanager {} ({}): it was created by this session",
                            endpoint.name, endpoint.url
                        );
                        let record = crate::evidence::Record::Note(crate::evidence::Note {
                            text: text.clone(),
                            topic: Some("silence".into()),
                            ..crate::evidence::Note::default()
                        });
                        let _ = tx.send(Msg::Record(Box::new(record)));
                        let _ = tx.send(Msg::Ui(Action::SilenceExpired(id.clone())));
                        let _ = refresh.send(());
                        format!("Expired {text}.")
                    }
                    Err(e) => format!(
                        "Could not expire silence {id} on {}: {}. It stays active until it ends; expire it in Alertmanager's UI.",
                        endpoint.name,
                        explain(&endpoint.url, &e)
                    ),
                };
                let _ = tx.send(Msg::Ui(Action::Notice(text)));
            });
        match spawned {
            Ok(_) => Vec::new(),
            Err(e) => vec![Action::Notice(format!(
                "Could not start the expiry request: {e}; silence {shown} stays active."
            ))],
        }
    }
}

fn silence_now(
    endpoint: &Endpoint,
    req: &SilenceRequest,
) -> Result<(String, String, crate::evidence::Record), crate::query::ProbeError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| crate::query::ProbeError::Io {
            detail: e.to_string(),
        })?;
    let am = Alertmanager::new(endpoint.clone());
    let session = req.session.clone().unwrap_or_else(|| "none".into());
    let comment = format!(
        "silenced from tsgnav while `{}` is worked on (evidence session {session})",
        req.alert
    );
    let created_by = std::env::var("USER").unwrap_or_else(|_| "tsgnav".into());
    let duration = Duration::from_secs(u64::from(req.hours) * 3600);
    let id = rt.block_on(am.create_silence(
        &req.labels,
        duration,
        &created_by,
        &comment,
        &Cancel::new(),
    ))?;
    let matchers: Vec<String> = req
        .labels
        .iter()
        .map(|(k, v)| format!("{k}=\"{v}\""))
        .collect();
    let text = format!(
        "silence {id} created on Alertmanager {} ({}) for {} h: {}",
        endpoint.name,
        endpoint.url,
        req.hours,
        matchers.join(", ")
    );
    let record = crate::evidence::Record::Note(crate::evidence::Note {
        text: text.clone(),
        topic: Some("silence".into()),
        ..crate::evidence::Note::default()
    });
    Ok((format!("Silenced `{}`: {text}.", req.alert), id, record))
}
