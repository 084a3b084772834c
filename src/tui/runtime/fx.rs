//! Carrying out the effects `update()` returns: live probes, the mitigation flow, background
//! tasks, evidence records and the export. Part of the runtime, the IO edge.

use super::{probes, record};
use crate::nav::Effect as NavEffect;
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::effect::Effect;

/// Carries out effects.
pub(super) struct Fx {
    pub(super) live: Option<probes::Probes>,
    pub(super) recorder: Option<record::Recorder>,
    /// The firing-alerts refresher, when an Alertmanager is configured.
    pub(super) firing: Option<super::firing::Handle>,
    /// Alert sources failing now, so each fault is recorded once per episode.
    pub(super) faults: super::faults::Episodes,
    /// Outputs being stored on threads of their own (`Msg::Stored` to come).
    pub(super) storing: usize,
}

impl Fx {
    /// Records the start and the end of each alert-source fault a refresh shows (while an
    /// evidence session is open); returns what to tell the operator.
    pub(super) fn firing_faults(
        &mut self,
        app: &App,
        u: &crate::tui::firing::FiringUpdate,
    ) -> Vec<Action> {
        let Some(r) = self.recorder.as_mut() else {
            return Vec::new();
        };
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let open = r.session_id().is_some();
        let records = self.faults.fold(u, &now, open);
        records
            .into_iter()
            .flat_map(|rec| r.record(app, rec))
            .collect()
    }

    /// A run finished: while recording, its output is stored on a thread of its own and the
    /// result is shown once its record is appended ([`Fx::stored`]); else it is shown now.
    pub(super) fn finished(
        &mut self,
        app: &App,
        probe: crate::tsg::ProbeRef,
        result: Box<crate::query::ProbeResult>,
        tx: &std::sync::mpsc::Sender<super::Msg>,
    ) -> Vec<Action> {
        let (mut out, store) = match self.recorder.as_mut() {
            Some(r) => r.output_store(app),
            None => (Vec::new(), None),
        };
        match store {
            Some(store) => {
                self.storing += 1;
                super::store::spawn(store, probe, result, tx.clone());
            }
            None => out.push(Action::ProbeFinished {
                probe,
                result: Ok(probes::convert(&result)),
            }),
        }
        out
    }

    /// A run's output was stored: appends its record, then shows the result.
    pub(super) fn stored(
        &mut self,
        app: &App,
        probe: crate::tsg::ProbeRef,
        result: &crate::query::ProbeResult,
        stored: Result<crate::evidence::StoredOutput, crate::evidence::EvidenceError>,
    ) -> Vec<Action> {
        self.storing = self.storing.saturating_sub(1);
        let blob = stored.as_ref().ok().and_then(|s| s.blob.clone());
        let mut out = match self.recorder.as_mut() {
            Some(r) => r.append_run(app, result, stored),
            None => Vec::new(),
        };
        out.push(Action::ProbeFinished {
            probe,
            result: Ok(probes::convert_stored(result, blob.as_deref())),
        });
        out
    }

    /// Records a probe run (when recording); returns what to tell the operator.
    pub(super) fn record_run(
        &mut self,
        app: &App,
        result: &crate::query::ProbeResult,
    ) -> Vec<Action> {
        match self.recorder.as_mut() {
            Some(r) => r.probe(app, result),
            None => Vec::new(),
        }
    }

    /// Carries out one effect; returns the actions that report its outcome.
    pub(super) fn execute(&mut self, app: &App, effect: Effect) -> Vec<Action> {
        match effect {
            Effect::Nav(e) => self.execute_nav(app, e),
            Effect::ConfirmMitigation {
                probe,
                acknowledged,
                typed,
            } => match self.live.as_mut() {
                Some(p) => vec![p.confirm(&probe, &acknowledged, &typed)],
                None => vec![Action::MitigationRefused(
                    "Live queries are unavailable: nothing was run.".into(),
                )],
            },
            Effect::DryRun { probe } => match self.live.as_ref() {
                Some(p) => p.dry_run(&probe),
                None => Vec::new(),
            },
            Effect::WriteMode(on) => {
                if let Some(p) = self.live.as_mut() {
                    p.set_write(on);
                }
                Vec::new()
            }
            Effect::CancelProbes { node } => match self.live.as_ref() {
                Some(p) => match p.cancel_node(&node) {
                    0 => Vec::new(),
                    n => vec![Action::Notice(format!(
                        "Cancelled {n} running probe(s); their processes were stopped."
                    ))],
                },
                None => Vec::new(),
            },
            Effect::StopTask(id) => match self.live.as_ref() {
                Some(p) => p.stop_task(id),
                None => Vec::new(),
            },
            Effect::Copy(text) => super::clip::copy(&text),
            Effect::FanOut {
                probe,
                bindings,
                pattern,
            } => vec![match &self.live {
                Some(p) => p.fan_out(app, &probe, &bindings, &pattern),
                None => Action::Notice(
                    "Live queries are unavailable: the probe was not run and no result is shown."
                        .into(),
                ),
            }],
            Effect::Silence {
                source,
                alert,
                labels,
                hours,
                typed,
            } => match self.firing.as_ref() {
                // Checked again where the write happens, like a probe's confirmation.
                Some(_) if !app.session.write => vec![Action::Notice(
                    "This session is read-only: nothing was silenced. Press W and type the kube                      context to turn write mode on."
                        .into(),
                )],
                Some(f) => f.silence(super::firing::SilenceRequest {
                    source,
                    alert,
                    labels,
                    hours,
                    typed,
                    session: self.recorder.as_ref().and_then(|r| r.session_id()),
                }),
                None => vec![Action::Notice(
                    "No Alertmanager is configured; nothing was silenced.".into(),
                )],
            },
            Effect::Waves(op) => match self.live.as_mut() {
                Some(p) => p.waves(app, op),
                None => vec![Action::Waves(crate::tui::waves::WavesEvent::Refused(
                    "Live queries are unavailable: nothing was run".into(),
                ))],
            },
            Effect::ExpireSilence { source, id } => match self.firing.as_ref() {
                Some(f) => f.expire(source, id),
                None => Vec::new(),
            },
        }
    }

    /// Carries out one of the navigator's effects.
    fn execute_nav(&mut self, app: &App, effect: NavEffect) -> Vec<Action> {
        match effect {
            NavEffect::RunProbe { probe, bindings } => vec![match &self.live {
                Some(p) => {
                    let mode = app.probes.modes.get(&probe).copied();
                    p.run(app, &probe, &bindings, mode)
                }
                None => Action::Notice(
                    "Live queries are unavailable: the probe was not run and no result is shown."
                        .into(),
                ),
            }],
            NavEffect::Record(ev) => match self.recorder.as_mut() {
                Some(r) => r.event(app, ev),
                None => Vec::new(),
            },
            NavEffect::Export => match self.recorder.as_mut() {
                Some(r) => r.export(app),
                None => vec![Action::Exported(Err(
                    "evidence recording is off (--no-evidence)".into(),
                ))],
            },
            NavEffect::NeedsMitigationFlow {
                probe,
                class,
                bindings,
            } => match self.live.as_mut() {
                Some(p) => p.prepare(app, &probe, class, &bindings),
                None => vec![Action::MitigationRefused(
                    "Live queries are unavailable: nothing was run.".into(),
                )],
            },
            NavEffect::Notice(_) | NavEffect::NeedVar { .. } => Vec::new(),
        }
    }
}
