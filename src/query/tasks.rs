//! Background tasks: long-running probes (`kubectl port-forward`, `-w`, `logs -f`) run until
//! stopped, listed with their state. They do not take a slot of the runner's concurrency limit.
//!
//! Needs a tokio runtime. Must not import `cli`, `tui` or `nav`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::runner::{gate, Runner};
use super::{Cancel, Event, OutputLimits, OutputSink, ProbeId, ProbeRequest, ProbeResult};
use tokio::sync::mpsc::UnboundedSender;

/// How long a background task may run before it is stopped anyway.
pub const TASK_LIMIT: Duration = Duration::from_secs(12 * 3600);

/// A background task as listed.
#[derive(Debug, Clone)]
pub struct TaskInfo {
    pub id: u64,
    pub probe: ProbeId,
    pub command: String,
    pub started: DateTime<Utc>,
    /// `None` while running.
    pub result: Option<Box<ProbeResult>>,
}

struct Entry {
    info: TaskInfo,
    cancel: Cancel,
}

/// The background tasks of a session.
#[derive(Clone)]
pub struct Tasks {
    runner: Runner,
    events: UnboundedSender<Event>,
    entries: Arc<Mutex<(u64, BTreeMap<u64, Entry>)>>,
}

impl Tasks {
    pub fn new(runner: Runner, events: UnboundedSender<Event>) -> Self {
        Tasks {
            runner,
            events,
            entries: Arc::new(Mutex::new((0, BTreeMap::new()))),
        }
    }

    /// Starts `req` in the background; its output streams as events. Refused like any run
    /// when it needs confirmation.
    pub fn start(&self, mut req: ProbeRequest) -> Result<u64, super::ProbeError> {
        if let Some(e) = gate(&req) {
            return Err(e);
        }
        let exec = self.runner.route(&req)?;
        req.timeout = TASK_LIMIT;
        let cancel = Cancel::new();
        let info = TaskInfo {
            id: 0,
            probe: req.id.clone(),
            command: req.code.clone(),
            started: Utc::now(),
            result: None,
        };
        let id = {
            let mut g = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
            g.0 += 1;
            let id = g.0;
            g.1.insert(
                id,
                Entry {
                    info: TaskInfo { id, ..info },
                    cancel: cancel.clone(),
                },
            );
            id
        };
        let entries = self.entries.clone();
        let events = self.events.clone();
        tokio::spawn(async move {
            let sink = OutputSink::new(
                req.id.clone(),
                Some(events.clone()),
                OutputLimits::default(),
            );
            let _ = events.send(Event::Started {
                id: req.id.clone(),
                backend: exec.backend(),
                target: req.target.shown(),
            });
            let probe = req.id.clone();
            let result = exec.run(req, sink, cancel).await;
            let mut g = entries.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(e) = g.1.get_mut(&id) {
                e.info.result = Some(Box::new(result.clone()));
            }
            drop(g);
            let _ = events.send(Event::Finished {
                id: probe,
                result: Box::new(result),
            });
        });
        Ok(id)
    }

    pub fn list(&self) -> Vec<TaskInfo> {
        let g = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        g.1.values().map(|e| e.info.clone()).collect()
    }

    /// Stops a task; false when there is no such task.
    pub fn stop(&self, id: u64) -> bool {
        let g = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        g.1.get(&id).map(|e| e.cancel.cancel()).is_some()
    }

    pub fn stop_all(&self) {
        let g = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        for e in g.1.values() {
            e.cancel.cancel();
        }
    }
}
