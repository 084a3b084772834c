//! The mitigation flow where commands execute: prepares the confirmation screen (command after
//! substitution, target, preconditions, dry run, the captures planned), issues the
//! confirmation through `crate::mitigate::issue` only in write mode and only when every
//! precondition is acknowledged and the typed target is the real one, records it, captures
//! prior state, then runs the probe (or hands the terminal over for an interactive one).
//! Long-running probes start as background tasks. Part of the runtime, the IO edge.

use std::collections::BTreeMap;

use super::probes::Probes;
use super::Msg;
use crate::evidence::{self, Record};
use crate::mitigate::{self, DryRun};
use crate::query::runner::{effective_class, gate};
use crate::query::tasks::Tasks;
use crate::query::{target_name, Cancel, ProbeId, ProbeRequest};
use crate::tsg::{CalloutKind, ProbeRef, SafetyClass};
use crate::tui::action::Action;
use crate::tui::mitigation::{DryRunView, MitigationView};

/// A mitigation waiting on its confirmation screen.
pub struct Prepared {
    pub req: ProbeRequest,
    pub preconditions: Vec<String>,
    pub dry: DryRun,
}

/// The background tasks still running: (id, first line of the command).
pub fn running(tasks: &Tasks) -> Vec<(u64, String)> {
    tasks
        .list()
        .into_iter()
        .filter(|t| t.result.is_none())
        .map(|t| (t.id, t.command.lines().next().unwrap_or("").to_string()))
        .collect()
}

impl Probes {
    pub fn set_write(&mut self, on: bool) {
        self.write = on;
        if !on {
            self.prepared.clear();
        }
    }

    pub fn stop_task(&self, id: u64) -> Vec<Action> {
        let stopped = self.tasks.stop(id);
        vec![Action::Notice(if stopped {
            format!("Task #{id} stopped.")
        } else {
            format!("No task #{id}.")
        })]
    }

    pub fn stop_all_tasks(&self) {
        self.tasks.stop_all();
    }

    /// How many background tasks are still running.
    pub fn running_tasks(&self) -> usize {
        running(&self.tasks).len()
    }

    /// A probe that is not read-only: a background task, or its confirmation screen.
    pub fn prepare(
        &mut self,
        app: &crate::tui::app::App,
        key: &ProbeRef,
        class: SafetyClass,
        bindings: &BTreeMap<String, String>,
    ) -> Vec<Action> {
        let node = key.node.as_str();
        let req = match self.request(app, key, bindings) {
            Ok(r) => r,
            Err(e) => return vec![Action::MitigationRefused(e)],
        };
        if class == SafetyClass::LongRunning && !effective_class(&req).0.needs_confirmation() {
            return self.start_task(req, key);
        }
        if !self.write {
            return vec![Action::MitigationRefused(
                "This session is read-only: press W and type the kube context first. Nothing was run.".into(),
            )];
        }
        let phrases = match self.policy(&req) {
            Ok(p) => p,
            Err(why) => return vec![Action::MitigationRefused(why)],
        };
        let index = &app.nav.index;
        let Some(n) = index.node(&app.lib, node) else {
            return vec![Action::MitigationRefused(format!("No step {node}."))];
        };
        let preconditions = mitigate::preconditions(n);
        // The command as it runs, and the values it runs with (shown in place on the screen).
        let (command, mut vars) =
            match crate::query::vars::substitute(req.lang, &req.code, &req.bindings) {
                Ok(s) => (s.text.trim_end().to_string(), s.env),
                Err(_) => (crate::query::preview_command(&req), Vec::new()),
            };
        for (k, v) in &req.bindings {
            if !vars.iter().any(|(n, _)| n == k) {
                vars.push((k.clone(), v.clone()));
            }
        }
        let dry = mitigate::dry_run(req.lang, &req.code);
        let mut view = self.view(&req, key, class, n, command, vars, &dry);
        // A `[[policy]]` phrase follows the context's name in what is typed back.
        view.confirm_name =
            target_name(&req.target).map(|t| mitigate::waves::single_phrase(t, &phrases));
        self.prepared.insert(
            key.clone(),
            Prepared {
                req,
                preconditions,
                dry,
            },
        );
        vec![Action::MitigationReady(Box::new(view))]
    }

    /// A long-running probe that needs no confirmation: started as a background task and
    /// recorded when it starts (a task may run until quit).
    fn start_task(&mut self, req: ProbeRequest, key: &ProbeRef) -> Vec<Action> {
        let probe = key.index;
        self.track(&req, key);
        let _enter = self.rt.enter();
        let started = task_record(&self.runner, &req);
        match self.tasks.start(req) {
            Ok(id) => {
                // Recorded when it starts: a task may run until quit.
                let rec = evidence::ProbeRun {
                    task: Some(id),
                    ..started
                };
                let _ = self.tx.send(Msg::Record(Box::new(Record::ProbeRun(rec))));
                vec![
                Action::Notice(format!(
                    "Probe {} runs in the background as task #{id}: :tasks lists tasks, :stop {id} stops it.",
                    probe + 1
                )),
                Action::Tasks(running(&self.tasks)),
            ]
            }
            Err(e) => {
                let rec = evidence::ProbeRun {
                    ended: started.started.clone(),
                    error: Some(format!("not started: {e}")),
                    ..started
                };
                let _ = self.tx.send(Msg::Record(Box::new(Record::ProbeRun(rec))));
                vec![Action::Notice(format!(
                    "Probe {} not started: {e}",
                    probe + 1
                ))]
            }
        }
    }

    /// The confirmation screen of `req`: the step's Goal, Risk and Preconditions, the command
    /// and values as they run, the target, the dry run and what is captured before.
    #[allow(clippy::too_many_arguments)]
    fn view(
        &self,
        req: &ProbeRequest,
        key: &ProbeRef,
        class: SafetyClass,
        n: &crate::tsg::Node,
        command: String,
        vars: Vec<(String, String)>,
        dry: &DryRun,
    ) -> MitigationView {
        MitigationView {
            silence: None,
            probe: key.clone(),
            class: effective_class(req).0.max(class),
            title: format!("{} · probe {}", n.title, key.index + 1),
            goal: n.fields.get("goal").cloned(),
            risk: n
                .callouts
                .iter()
                .find(|c| c.kind == CalloutKind::Risk)
                .map(|c| {
                    let t = c.text.trim();
                    t.strip_prefix("Risk:").unwrap_or(t).trim().to_string()
                }),
            preconditions: mitigate::preconditions(n),
            lead_in: n
                .fields
                .get("preconditions")
                .and_then(|t| crate::tsg::clauses::split(t).lead_in),
            vars,
            command,
            // The kubeconfig too: the same context name can be in two files.
            target: match &req.target.kubeconfig {
                Some(k) if self.settings.kubeconfig_named => {
                    format!("{}, kubeconfig {}", req.target.describe(), k.display())
                }
                _ => req.target.describe(),
            },
            namespace: req.target.namespace.clone(),
            confirm_name: target_name(&req.target).map(str::to_string),
            place: Some(req.target.place.to_string()),
            dry_run: match &dry {
                DryRun::Script(s) => DryRunView::Runnable(s.clone()),
                DryRun::Request(r) => DryRunView::Preview(r.clone()),
                DryRun::Unavailable(w) => DryRunView::None(w.clone()),
            },
            captures: mitigate::plan(&req.code, &req.bindings)
                .iter()
                .map(|c| format!("{} of {} (`{}`)", c.field, c.resource, c.read_command()))
                .collect(),
        }
    }

    /// Runs the prepared dry run (read-only by construction; the gate checks it again).
    pub fn dry_run(&self, probe: &ProbeRef) -> Vec<Action> {
        let Some(p) = self.prepared.get(probe) else {
            return vec![Action::DryRunFinished(
                false,
                "Open the probe again.".into(),
            )];
        };
        let DryRun::Script(script) = &p.dry else {
            return vec![Action::DryRunFinished(
                false,
                "No dry run for this probe.".into(),
            )];
        };
        let req = ProbeRequest {
            id: ProbeId(format!("{}/dry-run", p.req.id)),
            code: script.clone(),
            class: SafetyClass::ReadOnly,
            confirmation: None,
            assigns: Vec::new(),
            ..p.req.clone()
        };
        if let Some(e) = gate(&req) {
            return vec![Action::DryRunFinished(false, e.to_string())];
        }
        let (runner, tx) = (self.runner.clone(), self.tx.clone());
        self.rt.spawn(async move {
            let r = runner.run(req, Cancel::new()).await;
            let _ = tx.send(Msg::DryRun(Box::new(r)));
        });
        Vec::new()
    }

    /// Issues the confirmation (or says why not) and starts the mitigation.
    pub fn confirm(&mut self, key: &ProbeRef, acks: &[bool], typed: &str) -> Action {
        if !self.write {
            return Action::MitigationRefused(
                "This session is read-only: nothing was run. Press W to turn write mode on.".into(),
            );
        }
        let Some(p) = self.prepared.get(key) else {
            return Action::MitigationRefused("Open the probe again: nothing was run.".into());
        };
        // `[[policy]]` again where the confirmation is issued: a read-only context refuses,
        // a phrase must follow the context's name.
        let phrases = match self.policy(&p.req) {
            Ok(ph) => ph,
            Err(why) => return Action::MitigationRefused(why),
        };
        let real = target_name(&p.req.target).unwrap_or_default().to_string();
        let expected = mitigate::waves::single_phrase(&real, &phrases);
        let typed = match phrases.is_empty() {
            true => typed,
            false => match mitigate::waves::check_phrase(typed, &expected) {
                Ok(()) => real.as_str(),
                Err(_) => {
                    return Action::MitigationRefused(format!(
                        "Not run: `{typed}` is not `{expected}`: type the context's name, then \
                         the phrase its [[policy]] in the config file asks for"
                    ))
                }
            },
        };
        let confirmation =
            match crate::query::issue(&p.req, &p.preconditions, acks, typed, &self.session) {
                Ok(c) => c,
                Err(e) => return Action::MitigationRefused(format!("Not run: {e}")),
            };
        let Some(p) = self.prepared.remove(key) else {
            return Action::MitigationRefused("Open the probe again: nothing was run.".into());
        };
        let mut req = p.req;
        req.confirmation = Some(confirmation);
        let record = super::convert::confirmation(&req, &p.preconditions);
        let _ = self
            .tx
            .send(Msg::Record(Box::new(Record::Confirmation(record))));
        let target = req.target.shown();
        if effective_class(&req).0 == SafetyClass::Interactive {
            let _ = self.tx.send(Msg::Handover {
                probe: key.clone(),
                req: Box::new(req),
            });
            return Action::MitigationStarted(format!(
                "Confirmed: probe {} gets the terminal on {target}.",
                key.index + 1
            ));
        }
        self.track(&req, key);
        let (runner, tx, probe) = (self.runner.clone(), self.tx.clone(), key.clone());
        self.rt.spawn(async move {
            match crate::query::capture::capture(&runner, &req).await {
                Ok(caps) => {
                    for (r, prior) in caps {
                        let _ = tx.send(Msg::Captured(Box::new(r)));
                        if let Some(prior) = prior {
                            let rec = Record::PriorState(super::convert::prior_state(prior));
                            let _ = tx.send(Msg::Record(Box::new(rec)));
                        }
                    }
                    runner.submit(req);
                }
                Err(e) => {
                    let _ = tx.send(Msg::Ui(Action::ProbeFinished {
                        probe,
                        result: Err(format!("Not run: {e}")),
                    }));
                }
            }
        });
        Action::MitigationStarted(format!(
            "Confirmed: probe {} runs on {target}; its prior state is recorded first.",
            key.index + 1
        ))
    }
}

impl Probes {
    /// The `[[policy]]` entries for `req`'s context: refused (read-only, or waves required),
    /// else the phrases to type after the context's name.
    fn policy(&self, req: &ProbeRequest) -> Result<Vec<String>, String> {
        let Some(ctx) = target_name(&req.target) else {
            return Ok(Vec::new());
        };
        match mitigate::waves::apply(&self.settings.policies, &[ctx.to_string()], false) {
            Ok(a) => Ok(a.phrases),
            Err(e @ mitigate::waves::WaveError::WavesRequired { .. }) => Err(format!(
                "{e}; in the navigator, :waves GLOB plans it. Nothing was run."
            )),
            Err(e) => Err(format!("{e}. Nothing was run.")),
        }
    }
}

/// The record of a background task as it starts (no end, no exit yet).
fn task_record(runner: &crate::query::runner::Runner, req: &ProbeRequest) -> evidence::ProbeRun {
    evidence::ProbeRun {
        probe: req.id.to_string(),
        command: crate::query::preview_command(req),
        backend: runner.route(req).map_or_else(
            |_| "shell".to_string(),
            |e| crate::query::Executor::backend(e.as_ref()).to_string(),
        ),
        target: req.target.shown(),
        started: chrono::Utc::now().to_rfc3339(),
        ..Default::default()
    }
}
