//! The replay backend: answers every probe with its recorded output from an evidence
//! session (`tsgnav sessions replay`), marked as replayed. Nothing live is contacted. It lives
//! in the runtime because it joins the two layers that must not know each other: `query`'s
//! executors and `evidence`'s records. Must not import `cli`.

use std::sync::Arc;

use chrono::Utc;
use futures::future::BoxFuture;

use crate::evidence::Replay;
use crate::query::{
    Backend, Cancel, Executor, OutputSink, ProbeError, ProbeRequest, ProbeResult, Status,
};

/// One replaying executor per backend, answering every probe from `replay`.
pub fn executors(replay: Arc<Replay>) -> Vec<Arc<dyn Executor>> {
    use Backend::*;
    [Http, Kube, Shell, Prometheus, Kusto]
        .into_iter()
        .map(|backend| {
            let e = ReplayExecutor {
                backend,
                replay: replay.clone(),
            };
            Arc::new(e) as Arc<dyn Executor>
        })
        .collect()
}

/// Stands in for one backend, answering from `replay`.
#[derive(Debug, Clone)]
pub struct ReplayExecutor {
    pub backend: Backend,
    pub replay: Arc<Replay>,
}

impl Executor for ReplayExecutor {
    fn backend(&self) -> Backend {
        self.backend
    }

    fn run(
        &self,
        req: ProbeRequest,
        mut out: OutputSink,
        _cancel: Cancel,
    ) -> BoxFuture<'_, ProbeResult> {
        Box::pin(async move {
            let started = Utc::now();
            let Some(rec) = self.replay.latest_of(&req.id.0) else {
                let detail =
                    "this probe was not run in the recorded session, so there is nothing to replay"
                        .to_string();
                let mut r = ProbeResult::failed(
                    req.id.clone(),
                    self.backend,
                    "replay".into(),
                    req.code.clone(),
                    ProbeError::Unsupported { detail },
                );
                r.started = started;
                return r;
            };
            let target = format!("replay of session {}", rec.session);
            let mut r = ProbeResult::new(
                req.id.clone(),
                self.backend,
                target,
                rec.command.clone(),
                started,
            );
            out.write_str(&format!("{}\n", rec.banner()));
            match rec.output() {
                Ok(bytes) => out.write(&bytes),
                Err(e) => out.write_str(&format!("(the recorded output cannot be read: {e})\n")),
            }
            r.output = out.finish();
            r.status = match (rec.exit, rec.error) {
                (Some(0), None) => Status::Ok { exit: 0 },
                (Some(code), _) => Status::Failed(ProbeError::Exit { code }),
                (None, Some(detail)) => Status::Failed(ProbeError::Unsupported {
                    detail: format!("recorded failure: {detail}"),
                }),
                (None, None) => Status::Ok { exit: 0 },
            };
            r.ended = Utc::now();
            r
        })
    }
}
