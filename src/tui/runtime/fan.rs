//! `:contexts GLOB` where it runs: the selected probe once per matching kube context, through
//! the same code as `tsgnav run --contexts` (`query::fanout` for shell pipelines, the native
//! kube executor's own fan-out for forms it answers), 32 at a time; one result comes back,
//! with a merged table where every answer is the same table. What cannot fan out is refused
//! with the reason. Part of the runtime, the IO edge.

use std::collections::BTreeMap;
use std::sync::PoisonError;

use super::probes::Probes;
use super::Msg;
use crate::query::kube::KubeExecutor;
use crate::query::runner::gate;
use crate::query::{fanout, Backend, Cancel, Executor, OutputSink};
use crate::tsg::{Lang, ProbeRef};
use crate::tui::action::Action;

impl Probes {
    /// Submits `probe` once per context matching `pattern`; returns what to report at once.
    pub fn fan_out(
        &self,
        app: &crate::tui::app::App,
        probe: &ProbeRef,
        bindings: &BTreeMap<String, String>,
        pattern: &str,
    ) -> Action {
        let fail = |e: String| Action::ProbeFinished {
            probe: probe.clone(),
            result: Err(e),
        };
        let mut req = match self.request(app, probe, bindings) {
            Ok(r) => r,
            Err(e) => return fail(e),
        };
        let n = probe.index + 1;
        if req.lang != Lang::Shell {
            let lang = format!("{:?}", req.lang).to_lowercase();
            return fail(format!(
                ":contexts {pattern} cannot fan probe {n} out: it is a {lang} probe, which uses no kube context. Nothing was run."
            ));
        }
        if let Some(e) = gate(&req) {
            return fail(e.to_string());
        }
        let native = self
            .runner
            .route(&req)
            .is_ok_and(|e| e.backend() == Backend::Kube);
        if !native {
            if let Some(why) = fanout::refusal(&req.code) {
                return fail(format!(
                    ":contexts {pattern} cannot fan probe {n} out: {why}. Nothing was run; r runs it once."
                ));
            }
        }
        // Each context is named by the fan-out, not by the session's `--context`.
        req.target.kube_context = None;
        let kubeconfig = self.settings.kubeconfig.clone();
        let cancel = Cancel::new();
        self.fans
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((probe.clone(), cancel.clone()));
        let (runner, tx, key, glob, fans) = (
            self.runner.clone(),
            self.tx.clone(),
            probe.clone(),
            pattern.to_string(),
            self.fans.clone(),
        );
        self.rt.spawn(async move {
            let result = if native {
                let exec = KubeExecutor {
                    kubeconfig,
                    contexts: Some(glob),
                    concurrency: 0,
                    // Fanned-out native reads ask each context's API server directly, like
                    // `run --contexts`; the proxy serves one context per probe.
                    proxy: None,
                };
                let out = OutputSink::detached(req.id.clone());
                exec.run(req, out, cancel.clone()).await
            } else {
                fanout::run(&runner, req, kubeconfig, &glob, cancel.clone()).await
            };
            fans.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .retain(|(_, c)| !c.same(&cancel));
            let _ = tx.send(Msg::Probe {
                probe: key,
                result: Box::new(result),
            });
        });
        Action::ProbeStarted {
            probe: probe.clone(),
            what: format!(
                "Running probe {n} once per kube context matching {pattern} ({} at a time)… Esc cancels it.",
                crate::query::kube::fanout::DEFAULT_CONCURRENCY
            ),
        }
    }
}
