//! The runner: routes each [`ProbeRequest`] to a backend, enforces the safety gate, a
//! concurrency limit, a per-probe timeout and at most one run in flight per probe (a newer
//! request for the same probe replaces the queued one, as in gitui's async jobs), and reports
//! `Started` / `Output` / `Finished` events on a channel. Failures are results, never panics.
//!
//! Needs a tokio runtime. Must not import `cli`, `tui` or `nav`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::Semaphore;

pub use super::gate::{effective_class, gate, target_escape};
use super::{
    Backend, Cancel, Event, Executor, OutputLimits, OutputSink, ProbeError, ProbeId, ProbeRequest,
    ProbeResult,
};
use crate::tsg::Lang;

/// Extra time the runner allows past a probe's own timeout before it gives up on the
/// executor (which should have stopped by itself).
const SAFETY_MARGIN: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, Copy)]
pub struct RunnerConfig {
    /// Probes running at once.
    pub concurrency: usize,
    pub limits: OutputLimits,
    /// How long past a probe's own timeout (and its executor's setup allowance) the runner
    /// waits before it gives up on the executor ([`SAFETY_MARGIN`] by default).
    pub margin: Duration,
}

impl Default for RunnerConfig {
    fn default() -> Self {
        RunnerConfig {
            concurrency: 8,
            limits: OutputLimits::default(),
            margin: SAFETY_MARGIN,
        }
    }
}

#[derive(Default)]
struct Slot {
    running: Option<Cancel>,
    queued: Option<ProbeRequest>,
}

struct Inner {
    executors: Vec<Arc<dyn Executor>>,
    sem: Arc<Semaphore>,
    limits: OutputLimits,
    margin: Duration,
    events: UnboundedSender<Event>,
    slots: Mutex<HashMap<ProbeId, Slot>>,
}

/// Schedules probe runs. Cheap to clone.
#[derive(Clone)]
pub struct Runner {
    inner: Arc<Inner>,
}

impl Runner {
    /// `executors` are asked in order; the first whose backend fits the probe's language and
    /// that `accepts` it runs it.
    pub fn new(
        config: RunnerConfig,
        executors: Vec<Arc<dyn Executor>>,
        events: UnboundedSender<Event>,
    ) -> Self {
        let inner = Inner {
            executors,
            sem: Arc::new(Semaphore::new(config.concurrency.max(1))),
            limits: config.limits,
            margin: config.margin,
            events,
            slots: Mutex::new(HashMap::new()),
        };
        Runner {
            inner: Arc::new(inner),
        }
    }

    /// The executor for a request, or why there is none.
    pub fn route(&self, req: &ProbeRequest) -> Result<Arc<dyn Executor>, ProbeError> {
        let wanted: &[Backend] = match req.lang {
            Lang::Shell => &[Backend::Http, Backend::Kube, Backend::Shell],
            Lang::Promql => &[Backend::Prometheus],
            Lang::Kql => &[Backend::Kusto],
            Lang::Http => &[Backend::Http],
            Lang::Text => &[],
        };
        for b in wanted {
            if let Some(e) = self
                .inner
                .executors
                .iter()
                .find(|e| e.backend() == *b && e.accepts(req))
            {
                return Ok(e.clone());
            }
        }
        Err(ProbeError::Unsupported {
            detail: match wanted.first() {
                Some(Backend::Http) => {
                    "no http backend is configured for this probe: pass --maestro-url URL".into()
                }
                Some(b) => format!("no {b} backend is configured for this probe"),
                None => "this block is shown, never run".into(),
            },
        })
    }

    /// Runs one request now (after the gate and within the concurrency limit) and returns its
    /// result. Output is streamed as events.
    pub async fn run(&self, req: ProbeRequest, cancel: Cancel) -> ProbeResult {
        let fail = |req: ProbeRequest, backend: Backend, e: ProbeError| {
            ProbeResult::failed(req.id, backend, req.target.shown(), req.code, e)
        };
        let exec = match self.route(&req) {
            Ok(e) => e,
            Err(e) => return fail(req, Backend::Shell, e),
        };
        if let Some(e) = gate(&req) {
            return fail(req, exec.backend(), e);
        }
        let permit = tokio::select! {
            p = self.inner.sem.clone().acquire_owned() => p,
            _ = cancel.cancelled() => return fail(req, exec.backend(), ProbeError::Cancelled),
        };
        let _permit = match permit {
            Ok(p) => p,
            Err(_) => return fail(req, exec.backend(), ProbeError::Cancelled),
        };
        let id = req.id.clone();
        let _ = self.inner.events.send(Event::Started {
            id: id.clone(),
            backend: exec.backend(),
            target: req.target.shown(),
        });
        let sink = OutputSink::new(id, Some(self.inner.events.clone()), self.inner.limits);
        // The probe's own timeout starts when it does: what its executor does first (a shell
        // probe's proxy pass, discovery-cache fill and jail) is allowed on top, or a busy
        // machine's slow setup is reported as the probe timing out.
        let limit = req.timeout + exec.setup_limit() + self.inner.margin;
        let fallback = req.clone();
        match tokio::time::timeout(limit, exec.run(req, sink, cancel)).await {
            Ok(r) => r,
            Err(_) => fail(
                fallback,
                exec.backend(),
                ProbeError::Timeout { after: limit },
            ),
        }
    }

    /// Queues a request. If the same probe is running, this request waits for it and replaces
    /// any request already waiting. The result arrives as `Event::Finished`.
    pub fn submit(&self, req: ProbeRequest) {
        let start = {
            let mut slots = self
                .inner
                .slots
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let slot = slots.entry(req.id.clone()).or_default();
            if slot.running.is_some() {
                slot.queued = Some(req);
                None
            } else {
                let cancel = Cancel::new();
                slot.running = Some(cancel.clone());
                Some((req, cancel))
            }
        };
        if let Some((req, cancel)) = start {
            self.spawn(req, cancel);
        }
    }

    fn spawn(&self, req: ProbeRequest, cancel: Cancel) {
        let this = self.clone();
        tokio::spawn(async move {
            let id = req.id.clone();
            let result = this.run(req, cancel).await;
            let _ = this.inner.events.send(Event::Finished {
                id: id.clone(),
                result: Box::new(result),
            });
            let next = {
                let mut slots = this
                    .inner
                    .slots
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                match slots.get_mut(&id) {
                    Some(slot) => match slot.queued.take() {
                        Some(next) => {
                            let cancel = Cancel::new();
                            slot.running = Some(cancel.clone());
                            Some((next, cancel))
                        }
                        None => {
                            slots.remove(&id);
                            None
                        }
                    },
                    None => None,
                }
            };
            if let Some((next, cancel)) = next {
                this.spawn(next, cancel);
            }
        });
    }

    /// Cancels the probe's running request and drops its queued one.
    pub fn cancel(&self, id: &ProbeId) {
        let mut slots = self
            .inner
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(slot) = slots.get_mut(id) {
            slot.queued = None;
            if let Some(c) = &slot.running {
                c.cancel();
            }
        }
    }

    /// Cancels everything (navigating away, quitting).
    pub fn cancel_all(&self) {
        let mut slots = self
            .inner
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for slot in slots.values_mut() {
            slot.queued = None;
            if let Some(c) = &slot.running {
                c.cancel();
            }
        }
    }

    /// Probes running or queued.
    pub fn in_flight(&self) -> usize {
        self.inner
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::{Executor, ProbeResult, Status};
    use futures::future::BoxFuture;

    /// A stand-in backend (the real shell's setup cannot be made slow on demand): it spends
    /// `setup` before its probe "starts", then answers at once.
    struct SlowStart {
        setup: Duration,
        allowance: Duration,
    }

    impl Executor for SlowStart {
        fn backend(&self) -> Backend {
            Backend::Shell
        }
        fn run(&self, req: ProbeRequest, _: OutputSink, _: Cancel) -> BoxFuture<'_, ProbeResult> {
            Box::pin(async move {
                tokio::time::sleep(self.setup).await;
                ProbeResult::new(
                    req.id,
                    Backend::Shell,
                    String::new(),
                    req.code,
                    chrono::Utc::now(),
                )
            })
        }
        fn setup_limit(&self) -> Duration {
            self.allowance
        }
    }

    async fn run_with(allowance: Duration) -> ProbeResult {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let exec = SlowStart {
            setup: Duration::from_millis(300),
            allowance,
        };
        let config = RunnerConfig {
            margin: Duration::ZERO,
            ..RunnerConfig::default()
        };
        let runner = Runner::new(config, vec![Arc::new(exec)], tx);
        let probe = crate::tsg::Probe::from_code(Lang::Shell, "true");
        let mut req = ProbeRequest::from_probe("n#x", &probe, Default::default()).expect("req");
        req.timeout = Duration::from_millis(1);
        runner.run(req, Cancel::new()).await
    }

    #[tokio::test]
    async fn an_executors_setup_does_not_count_against_the_probes_timeout() {
        // Setup takes 300 ms, the probe's own timeout is 1 ms: within the allowance the
        // answer comes through; with none, the runner's backstop gives up first.
        let r = run_with(Duration::from_secs(60)).await;
        assert_eq!(r.status, Status::Ok { exit: 0 }, "{:?}", r.status);
        let r = run_with(Duration::ZERO).await;
        assert!(
            matches!(r.status, Status::Failed(ProbeError::Timeout { .. })),
            "{:?}",
            r.status
        );
    }
}
