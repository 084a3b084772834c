//! Worker results folded into the state, whatever the screen: probe results (and the
//! after-state check a mitigation's result offers), exports, evidence notices, the
//! confirmation screen's answers, open mitigations and background tasks. Pure: part of
//! `update()`; must not import IO.

use super::action::Action;
use super::app::{App, Evidence, ProbeResult};
use super::effect::Effect;
use super::mitigation::Mitigation;
use super::state::{Level, Notice, NoticeKind, Streaming};
use crate::nav::{self, Cmd};

/// Folds a worker's result into the state, whatever the screen.
pub fn worker(app: &mut App, a: Action) -> Vec<Effect> {
    match a {
        Action::ProbeFinished { probe, result } => probe_finished(app, probe, result),
        Action::ProbeProgress { probe, bytes, tail } => {
            app.probes
                .streaming
                .insert(probe, Streaming { bytes, tail });
            app.probes.generation += 1;
        }
        Action::Exported(r) => match r {
            Ok(written) => {
                app.session.evidence = Evidence::Exported;
                super::guard::exported(app);
                app.notice = Some(Notice {
                    text: written,
                    level: Level::Info,
                    kind: NoticeKind::Exported,
                });
            }
            Err(e) => app.set_message(format!("Export failed: {e}"), true),
        },
        Action::Notice(s) => app.set_message(s, false),
        // The export's notice says so when it is drawn (`Notice::shown`).
        Action::CopyOffer(text) => app.session.copy_offer = Some(text),
        Action::ExportShown(e) => app.session.export_shown = Some(e),
        Action::EvidenceStarted(dir) => {
            app.session.evidence = Evidence::Unexported;
            app.set_message(format!("Recording evidence in {dir}"), false);
        }
        Action::MitigationReady(view) => {
            app.notice = None;
            app.mitigation = Some(Mitigation::new(*view));
        }
        Action::MitigationRefused(why) => match app.mitigation.as_mut() {
            Some(m) => m.refused(why),
            None => app.set_message(why, true),
        },
        Action::MitigationStarted(what) => {
            if let Some(m) = app.mitigation.take() {
                super::guard::mutation_started(app, &m.view.probe);
            }
            app.set_message(what, false);
        }
        Action::DryRunFinished(ok, text) => {
            if let Some(m) = app.mitigation.as_mut() {
                m.dry_run_finished(ok, text);
            }
        }
        Action::OpenMitigations(open) => {
            super::silence::mitigations_changed(app, &open);
            app.session.open = open;
        }
        Action::Silenced { source, id, alert } => super::silence::created(app, source, id, alert),
        Action::SilenceExpired(id) => super::silence::expired(app, &id),
        Action::ProbeStarted { probe, what } => {
            app.probes.running.push(probe);
            app.set_message(what, false);
        }
        Action::Tasks(tasks) => app.probes.tasks = tasks,
        _ => {}
    }
    Vec::new()
}

/// A probe's result: the values it assigned, the result shown, the status-line message, and
/// the after-state check a mitigation's result offers.
fn probe_finished(
    app: &mut App,
    key: crate::tsg::ProbeRef,
    result: Result<super::action::ProbeOutput, String>,
) {
    let (node, probe) = (key.node.to_string(), key.index);
    let r = match result {
        Ok(out) => {
            for (name, value) in out.assigns {
                let source = nav::VarSource::Probe(node.clone());
                let set = Cmd::SetVar {
                    name,
                    value,
                    source,
                };
                nav::apply(&mut app.nav, &app.lib, set);
            }
            let text = match out.outcome {
                crate::tsg::Outcome::Exited(c) => format!("exit {c}\n{}", out.output),
                _ => out.output,
            };
            ProbeResult {
                ok: out.outcome.succeeded(),
                outcome: out.outcome,
                text,
                series: out.series,
            }
        }
        Err(e) => ProbeResult {
            ok: false,
            outcome: crate::tsg::Outcome::Refused(e.clone()),
            text: e,
            series: Vec::new(),
        },
    };
    let cancelled = r.outcome == crate::tsg::Outcome::Cancelled;
    let msg = finished_message(app, &node, probe, &r);
    app.set_message(msg, !r.ok && !cancelled);
    let ok = r.ok;
    app.probes.running.retain(|p| *p != key);
    app.probes.streaming.remove(&key);
    super::guard::probe_finished(app, &key);
    app.probes.results.insert(key, r);
    app.probes.generation += 1;
    if ok {
        super::flow::offer_after_check(app, &node, probe);
    }
}

/// "Probe 2 finished: its output is below", or, for a step left behind, which step.
fn finished_message(app: &mut App, node: &str, probe: usize, r: &ProbeResult) -> String {
    let cancelled = r.outcome == crate::tsg::Outcome::Cancelled;
    match app.current_id() == Some(node) {
        true if cancelled => format!("Probe {} was cancelled.", probe + 1),
        true => {
            app.screen.reveal = Some(probe);
            format!(
                "Probe {} {}: its output is below (o reads it all).",
                probe + 1,
                if r.ok { "finished" } else { "failed" }
            )
        }
        false => {
            let title = app
                .nav
                .index
                .node(&app.lib, node)
                .map(|n| n.title.clone())
                .unwrap_or_else(|| node.to_string());
            let verdict = match (cancelled, r.ok) {
                (true, _) => "was cancelled",
                (false, true) => "finished",
                (false, false) => "failed",
            };
            format!("Probe {} of {title} {verdict}.", probe + 1)
        }
    }
}
