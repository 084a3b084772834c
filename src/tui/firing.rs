//! The library screen's "Firing" section as plain state: the alerts the Alertmanagers (or
//! Prometheus) report, routed to the loaded guides, grouped by alert name then cluster/region
//! and sorted by severity and age; which sources could not be read. `apply` folds a refresh
//! in; `firing_keys` moves the selection and opens an alert. Pure: must not import IO nor
//! `crate::query` / `crate::evidence` (the runtime converts the client's answers).

use std::collections::{BTreeMap, HashMap};

use crate::tsg::Library;

/// Where an alert routes in the loaded guides, and how that route was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteHit {
    pub path: String,
    /// The node id (`path#slug`).
    pub to: String,
    /// `triage-table`, `front-matter`, `runbook-url`, `file-name` or `title`.
    pub by: &'static str,
}

/// An alert's state as Alertmanager (API v2) names it. `unprocessed` (received, not yet
/// routed by Alertmanager) is firing, so it reads as `active`, as the JSON output says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AlertState {
    #[default]
    #[serde(alias = "unprocessed")]
    Active,
    /// Silenced or inhibited.
    Suppressed,
}

impl AlertState {
    /// From the state string of the wire format; anything but `suppressed` is firing.
    pub fn from_wire(s: &str) -> AlertState {
        match s {
            "suppressed" => AlertState::Suppressed,
            _ => AlertState::Active,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            AlertState::Active => "active",
            AlertState::Suppressed => "suppressed",
        }
    }
}

/// One firing (or silenced) alert.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Alert {
    /// The Alertmanager's name (or `prometheus`).
    pub source: String,
    pub name: String,
    pub labels: BTreeMap<String, String>,
    /// As the server sent it (RFC 3339).
    pub starts_at: String,
    /// Unix seconds of `starts_at`, 0 when unknown.
    pub since: i64,
    pub state: AlertState,
    pub silenced_by: Vec<String>,
    pub inhibited_by: Vec<String>,
    /// The `runbook_url` annotation (routes the alert when no guide names it).
    pub runbook_url: Option<String>,
    pub route: Option<RouteHit>,
    /// Landing from it starts the step's read-only probes (`auto_run = "read-only"`).
    pub auto_run: bool,
}

impl Alert {
    pub fn severity(&self) -> &str {
        self.labels
            .get("severity")
            .map(String::as_str)
            .unwrap_or("")
    }
    /// `cluster/region` (whichever labels it has), for grouping.
    pub fn place(&self) -> String {
        let get = |k: &str| self.labels.get(k).map(String::as_str).unwrap_or("");
        let parts: Vec<&str> = [get("cluster"), get("region")]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
        parts.join("/")
    }
}

/// What kind of fault keeps a source from being read. Decided where the error is made (the
/// runtime, from the client's typed error), never from the text shown to the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// No answer in time.
    Slow,
    /// HTTP 401 or 403.
    Unauthorized,
    /// Cannot connect (refused, DNS, dropped connection).
    Down,
    /// It answered, but not as an Alertmanager (API v2) answers.
    Malformed,
    /// Anything else.
    Failing,
}

impl FaultKind {
    /// How the evidence and the screen name it.
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::Slow => "slow (no answer in time)",
            FaultKind::Unauthorized => "unauthorized (401/403)",
            FaultKind::Down => "down (cannot connect)",
            FaultKind::Malformed => "malformed answer",
            FaultKind::Failing => "failing",
        }
    }
}

/// A source that could not be read: its name, the kind of fault and what went wrong (with
/// the fix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFault {
    pub source: String,
    pub kind: FaultKind,
    pub message: String,
}

impl SourceFault {
    pub fn new(source: impl Into<String>, kind: FaultKind, message: impl Into<String>) -> Self {
        SourceFault {
            source: source.into(),
            kind,
            message: message.into(),
        }
    }
}

/// What one background refresh produced (built by the runtime).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FiringUpdate {
    pub alerts: Vec<Alert>,
    /// Sources that could not be read.
    pub errors: Vec<SourceFault>,
    /// Unix seconds when the refresh finished.
    pub at: i64,
}

/// A line of the section: a group header (alert name) or one alert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    Group { first: usize, count: usize },
    Alert(usize),
}

/// The section's state (one field of `App`).
#[derive(Debug, Clone, Default)]
pub struct Firing {
    /// An Alertmanager is configured or `--alertmanager-url` was given.
    pub(in crate::tui) enabled: bool,
    /// No answer yet.
    pub(in crate::tui) loading: bool,
    /// Sorted: grouped by alert name, groups by severity then age.
    pub(in crate::tui) alerts: Vec<Alert>,
    pub(in crate::tui) rows: Vec<Row>,
    pub(in crate::tui) errors: Vec<SourceFault>,
    /// The selected alert, when the selection is in this section (else in the guides list).
    pub(in crate::tui) sel: Option<usize>,
    /// Unix seconds of the last refresh.
    pub(in crate::tui) at: i64,
    /// Silences this session created and has not expired.
    pub(in crate::tui) created: Vec<super::silence::Created>,
    /// Silences whose expiry was just offered: the next `x` expires them.
    pub(in crate::tui) expire_offer: Vec<super::silence::Created>,
}

/// A proposed silence: what the confirmation screen shows and the runtime sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SilenceDraft {
    pub source: String,
    pub alert: String,
    /// Every label of the alert, each an exact matcher.
    pub labels: BTreeMap<String, String>,
    pub hours: u32,
}

impl Firing {
    pub fn enabled() -> Firing {
        Firing {
            enabled: true,
            loading: true,
            ..Firing::default()
        }
    }
    /// Whether an Alertmanager (or `--alertmanager-url`) feeds the section.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }
    /// Sorted: grouped by alert name, groups by severity then age.
    pub fn alerts(&self) -> &[Alert] {
        &self.alerts
    }
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }
    /// The sources that could not be read at the last refresh.
    pub fn errors(&self) -> &[SourceFault] {
        &self.errors
    }
    /// The selected alert, when the selection is in this section.
    pub fn selected(&self) -> Option<usize> {
        self.sel
    }
    /// Silences this session created and has not expired.
    pub fn created(&self) -> &[super::silence::Created] {
        &self.created
    }
    /// Silences whose expiry was just offered.
    pub fn expire_offer(&self) -> &[super::silence::Created] {
        &self.expire_offer
    }
    /// The source of firing alerts could not be started: the section says why.
    pub fn failed_to_start(&mut self, why: String) {
        self.loading = false;
        self.errors = vec![SourceFault::new("alerts", FaultKind::Failing, why)];
    }

    /// Routes the alerts again after guides joined the library: an alert that arrived before
    /// the guide naming it was loaded routes now. Keeps the order and the selection.
    pub fn reroute(&mut self, lib: &Library) {
        route_all(lib, &mut self.alerts);
    }

    /// Folds a refresh into the section, keeping the selected alert selected.
    pub fn apply(&mut self, lib: &Library, u: FiringUpdate) {
        let first = self.loading;
        let selected = self.sel.and_then(|i| self.alerts.get(i)).map(|a| {
            let (s, l) = key(a);
            (s.to_string(), l.clone())
        });
        self.alerts = arrange(lib, u.alerts);
        self.rows = rows(&self.alerts);
        self.errors = u.errors;
        self.at = u.at;
        self.loading = false;
        self.sel = match selected {
            Some((s, l)) => self
                .alerts
                .iter()
                .position(|a| key(a) == (s.as_str(), &l))
                .or(Some(0)),
            None if first => Some(0),
            None => None,
        }
        .filter(|_| !self.alerts.is_empty());
    }

    pub fn active(&self) -> usize {
        self.alerts
            .iter()
            .filter(|a| a.state == AlertState::Active)
            .count()
    }
}

/// Severity order: critical first.
pub fn severity_rank(s: &str) -> u8 {
    match s.to_ascii_lowercase().as_str() {
        "critical" | "page" | "sev1" | "sev0" => 0,
        "error" | "high" | "major" | "sev2" => 1,
        "warning" | "warn" | "medium" | "sev3" => 2,
        "info" | "low" | "minor" | "sev4" => 3,
        _ => 4,
    }
}

/// The route of an alert in the loaded guides: what a guide declares (triage table, front
/// matter), then its `runbook_url`, then a guide named after it (`tsg::routing::route_for`).
pub fn route_of(lib: &Library, alert: &str, runbook_url: Option<&str>) -> Option<RouteHit> {
    crate::tsg::routing::route_for(lib, alert, runbook_url).map(|r| RouteHit {
        path: r.to.split('#').next().unwrap_or_default().to_string(),
        by: r.by.as_str(),
        to: r.to,
    })
}

/// Routes and sorts `alerts`: grouped by name (the group of the most severe, then oldest,
/// alert first), inside a group by cluster/region then age.
pub fn arrange(lib: &Library, mut alerts: Vec<Alert>) -> Vec<Alert> {
    route_all(lib, &mut alerts);
    let mut group_key: HashMap<String, (u8, i64)> = HashMap::new();
    for a in &alerts {
        let k = (severity_rank(a.severity()), a.since);
        let e = group_key.entry(a.name.clone()).or_insert(k);
        *e = (*e).min(k);
    }
    alerts.sort_by_cached_key(|a| {
        let g = group_key.get(&a.name).copied().unwrap_or((4, 0));
        (g, a.name.clone(), a.place(), a.since, a.source.clone())
    });
    alerts
}

fn route_all(lib: &Library, alerts: &mut [Alert]) {
    let mut routes: HashMap<(String, Option<String>), Option<RouteHit>> = HashMap::new();
    for a in alerts {
        let key = (a.name.clone(), a.runbook_url.clone());
        a.route = routes
            .entry(key)
            .or_insert_with(|| route_of(lib, &a.name, a.runbook_url.as_deref()))
            .clone();
    }
}

/// The section's rows for sorted alerts.
pub fn rows(alerts: &[Alert]) -> Vec<Row> {
    let mut out = Vec::with_capacity(alerts.len() + 16);
    let mut i = 0;
    while i < alerts.len() {
        let name = &alerts[i].name;
        let count = alerts[i..].iter().take_while(|a| &a.name == name).count();
        out.push(Row::Group { first: i, count });
        out.extend((i..i + count).map(Row::Alert));
        i += count;
    }
    out
}

fn key(a: &Alert) -> (&str, &BTreeMap<String, String>) {
    (&a.source, &a.labels)
}

/// The age of an alert that started at `since`, as kubectl prints ages (`12m`, `3h20m`).
pub fn age(since: i64, now: i64) -> String {
    crate::human::age_since(since, now)
}

#[cfg(test)]
mod tests {
    use super::AlertState;

    #[test]
    fn alert_states_read_as_alertmanager_writes_them() {
        let read = |s: &str| serde_json::from_str::<AlertState>(s).ok();
        assert_eq!(read(r#""active""#), Some(AlertState::Active));
        assert_eq!(read(r#""unprocessed""#), Some(AlertState::Active));
        assert_eq!(read(r#""suppressed""#), Some(AlertState::Suppressed));
        assert_eq!(read(r#""Active""#), None);
        let out = serde_json::to_string(&[AlertState::Active, AlertState::Suppressed]).ok();
        assert_eq!(out.as_deref(), Some(r#"["active","suppressed"]"#));
        assert_eq!(AlertState::from_wire("unprocessed"), AlertState::Active);
        assert_eq!(AlertState::from_wire("suppressed"), AlertState::Suppressed);
    }
}
