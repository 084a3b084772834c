//! [`ProbeResult`]: what one run produced — status, the command as run, timing, output,
//! and a table or chart series when the backend understood the answer. Plain data.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Backend, Output, ProbeError, ProbeId};

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Finished; `exit` is the process status (0 for network backends).
    Ok {
        exit: i32,
    },
    Failed(ProbeError),
}

impl Status {
    pub fn is_ok(&self) -> bool {
        matches!(self, Status::Ok { .. })
    }

    pub fn error(&self) -> Option<&ProbeError> {
        match self {
            Status::Failed(e) => Some(e),
            Status::Ok { .. } => None,
        }
    }

    /// `ok` or the error message.
    pub fn describe(&self) -> String {
        match self {
            Status::Ok { .. } => "ok".to_string(),
            Status::Failed(e) => e.to_string(),
        }
    }
}

/// Rows and columns (a Prometheus vector, a Kusto frame, a kube list).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Aligned plain text, one row a line.
    pub fn render(&self) -> String {
        let mut widths: Vec<usize> = self.columns.iter().map(|c| c.chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate() {
                if i < widths.len() {
                    widths[i] = widths[i].max(c.chars().count());
                }
            }
        }
        let line = |cells: &[String]| -> String {
            let padded: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{c:<w$}", w = widths.get(i).copied().unwrap_or(0)))
                .collect();
            padded.join("  ").trim_end().to_string()
        };
        let mut out = line(&self.columns);
        for r in &self.rows {
            out.push('\n');
            out.push_str(&line(r));
        }
        out.push('\n');
        out
    }
}

/// One time series of a range query: labels and (unix seconds, value) points.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Series {
    pub labels: BTreeMap<String, String>,
    pub points: Vec<(f64, f64)>,
}

/// The result of one run.
#[derive(Debug, Clone)]
pub struct ProbeResult {
    pub id: ProbeId,
    pub backend: Backend,
    /// The target as described to the operator.
    pub target: String,
    /// The exact command / query / URL as written (with the values it got).
    pub command_as_run: String,
    /// What actually answered when that is not the command as written: the native backend's
    /// request (`native Kubernetes API: kubectl get … --no-headers, context mc-1`), a fan-out.
    pub ran: Option<String>,
    pub status: Status,
    pub started: DateTime<Utc>,
    pub ended: DateTime<Utc>,
    pub output: Output,
    pub table: Option<Table>,
    /// Range-query series for a chart (empty otherwise).
    pub series: Vec<Series>,
    /// Variables the probe assigned (`export X=…`, `X=$(…)`), for later probes.
    pub captured: BTreeMap<String, String>,
    /// The raw answer when the backend has one (a JSON body, a kube object).
    pub raw: Option<serde_json::Value>,
    /// The sandbox a shell probe ran in ("landlock v7 fs+net", "none: kernel has no
    /// Landlock" …); `None` for backends that start no process.
    pub sandbox: Option<String>,
    /// The Kubernetes API requests the read-only proxy decided for this probe, in order
    /// (`forwarded GET /api/v1/…`, `refused DELETE /api/v1/…: why`); empty when it used none.
    pub api: Vec<String>,
    /// Every table the run printed, in order (a probe of two `kubectl get`s has two); `table`
    /// is the first, with the rows of the others whose columns are the same.
    pub tables: Vec<Table>,
    /// A fan-out's answer per context, in kubeconfig order (empty for a one-context run).
    pub contexts: Vec<ContextAnswer>,
}

/// How one context of a fan-out answered: `error` is `None` when it did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContextAnswer {
    pub context: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ContextAnswer {
    /// `contexts` in order, each failed with the first error it had (if any).
    pub fn collect<'a>(
        contexts: impl IntoIterator<Item = (&'a str, Option<String>)>,
    ) -> Vec<ContextAnswer> {
        let mut out: Vec<ContextAnswer> = Vec::new();
        for (c, e) in contexts {
            match out.iter_mut().find(|a| a.context == c) {
                Some(a) => {
                    if a.error.is_none() {
                        a.error = e;
                    }
                }
                None => out.push(ContextAnswer {
                    context: c.to_string(),
                    error: e,
                }),
            }
        }
        out
    }
}

impl ProbeResult {
    /// A result with no output yet; callers fill the rest.
    pub fn new(
        id: ProbeId,
        backend: Backend,
        target: String,
        command_as_run: String,
        started: DateTime<Utc>,
    ) -> Self {
        ProbeResult {
            id,
            backend,
            target,
            command_as_run,
            ran: None,
            status: Status::Ok { exit: 0 },
            started,
            ended: started,
            output: Output::default(),
            table: None,
            series: Vec::new(),
            captured: BTreeMap::new(),
            raw: None,
            sandbox: None,
            api: Vec::new(),
            tables: Vec::new(),
            contexts: Vec::new(),
        }
    }

    /// A failed result that never got to run (refused, missing variable, bad config).
    pub fn failed(
        id: ProbeId,
        backend: Backend,
        target: String,
        command: String,
        error: ProbeError,
    ) -> Self {
        let now = Utc::now();
        let mut r = ProbeResult::new(id, backend, target, command, now);
        r.status = Status::Failed(error);
        r
    }

    /// How the run ended.
    pub fn outcome(&self) -> crate::tsg::Outcome {
        match &self.status {
            Status::Ok { exit } => crate::tsg::Outcome::Exited(*exit),
            Status::Failed(e) => e.outcome(),
        }
    }

    pub fn duration(&self) -> Duration {
        (self.ended - self.started).to_std().unwrap_or_default()
    }
}
