//! `:waves` where it runs: builds the wave plan of the open step (the contexts of the
//! session's kubeconfig matching the glob, [`super::waves_plan`]), and, once the runtime has
//! checked write mode, every precondition's acknowledgement and the typed phrase again, runs
//! it with the wave engine of `tsgnav run --waves` ([`super::waves_engine`]) on the probes'
//! tokio runtime. Progress comes back as [`WavesEvent`]s; every record (confirmations, prior
//! states, runs, `wave` notes) goes to the session's evidence through the main loop, and the
//! run waits until each batch is written ([`super::waves_observer`]); Esc's pause and the
//! operator's choice after a failure go to the engine. Part of the runtime, the IO edge;
//! must not import `cli`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::probes::Probes;
use super::waves_engine::{self as engine, Ended, Engine};
use super::waves_observer::{ui, Tui};
use super::waves_plan::{self, Plan};
use super::waves_probes::Aim;
use super::waves_resume::{carry_over, split, Earlier};
use super::Msg;
use crate::mitigate::waves::{check_phrase, Choice, State, WaveSpec};
use crate::query::vars::{Source, Vars};
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::effect::WavesOp;
use crate::tui::waves::{PlanView, WavesEvent};

/// The plan on screen, and the run under way.
#[derive(Default)]
pub struct WaveRuns {
    prepared: Option<Prepared>,
    control: Option<Control>,
}

struct Prepared {
    plan: Plan,
    node: String,
    vars: Vars,
    pre: Vec<String>,
}

/// How the screen reaches the engine while it runs.
struct Control {
    pause: Arc<AtomicBool>,
    choice: tokio::sync::mpsc::UnboundedSender<Choice>,
    over: Arc<AtomicBool>,
}

impl Probes {
    /// Carries out one [`WavesOp`]; returns what to show at once.
    pub fn waves(&mut self, app: &App, op: WavesOp) -> Vec<Action> {
        let refuse = |why: String| vec![Action::Waves(WavesEvent::Refused(why))];
        let running = (self.waves.control.as_ref()).is_some_and(|c| !c.over.load(Ordering::SeqCst));
        let choose = |c: &Option<Control>, choice: Choice| {
            if let Some(c) = c {
                let _ = c.choice.send(choice);
            }
            Vec::new()
        };
        match op {
            WavesOp::Plan { .. } if running => {
                refuse("A wave run is under way: one at a time".into())
            }
            WavesOp::Plan {
                node,
                glob,
                sizes,
                parallel,
                bindings,
            } => match self.wave_plan(app, &node, (&glob, &sizes, parallel), &bindings) {
                Ok(view) => vec![Action::Waves(WavesEvent::Ready(Box::new(view)))],
                Err(why) => refuse(why),
            },
            WavesOp::Start {
                acknowledged,
                typed,
            } => match self.wave_start(&acknowledged, &typed) {
                Ok(()) => vec![Action::Waves(WavesEvent::Started)],
                Err(why) => refuse(why),
            },
            WavesOp::Pause => {
                if let Some(c) = &self.waves.control {
                    c.pause.store(true, Ordering::SeqCst);
                }
                Vec::new()
            }
            WavesOp::RestoreFailed => choose(&self.waves.control, Choice::RestoreFailed),
            WavesOp::RestoreWave => choose(&self.waves.control, Choice::RestoreWave),
            WavesOp::RestoreAll => choose(&self.waves.control, Choice::RestoreAll),
            WavesOp::Stop => choose(&self.waves.control, Choice::Stop),
            WavesOp::Close => {
                self.waves.prepared = None;
                if !running {
                    self.waves.control = None;
                }
                Vec::new()
            }
        }
    }

    fn wave_plan(
        &mut self,
        app: &App,
        node: &str,
        (glob, sizes, parallel): (&str, &str, usize),
        bindings: &BTreeMap<String, String>,
    ) -> Result<PlanView, String> {
        let n = (app.nav.index.node(&app.lib, node)).ok_or_else(|| format!("No step {node}"))?;
        let spec = WaveSpec::parse(sizes).map_err(|e| e.to_string())?;
        let found = waves_plan::contexts(self.settings.kubeconfig.clone(), glob)?;
        // An earlier run of this step that a crash or a pause cut short goes on from where
        // its journal left it (the reader `tsgnav run --waves --resume` uses).
        let before = app
            .current_guide()
            .map(|g| Earlier::for_guide(&crate::evidence::state_dir(), &g.file, node))
            .filter(Earlier::resumable)
            .unwrap_or_default();
        let (contexts, done) = split(found, &before);
        if contexts.is_empty() {
            // A run cut short after its last context was done is over: journaled so, the
            // next `:waves` plans every context afresh.
            let over = before.interrupted.is_empty() && before.done().len() == before.states.len();
            if over {
                let end = super::waves_resume::end_note(node, "validated");
                let _ = self.tx.send(Msg::Record(Box::new(end)));
            }
            let next = match over {
                true => "; it is now journaled as over, and :waves again plans them all afresh",
                false => "",
            };
            return Err(format!(
                "every context matching `{glob}` is done in the earlier wave run of this step \
                 (validated or restored): nothing is left to run{next}"
            ));
        }
        let mut plan = waves_plan::build(waves_plan::Ask {
            lib: &app.lib,
            node: n,
            name: node,
            glob,
            spec: &spec,
            parallel,
            contexts,
            policies: &self.settings.policies,
        })?;
        carry_over(&mut plan, &before, done);
        let values: Vec<(String, String)> = bindings
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let show = |c: &str| crate::tui::mitigation::show_values(c.trim(), &values);
        let pre = crate::mitigate::preconditions(n);
        let view = PlanView {
            node: node.to_string(),
            title: n.title.clone(),
            glob: glob.to_string(),
            waves: plan.waves.clone(),
            parallel: plan.parallel,
            change: plan.change.iter().map(|p| show(&p.code)).collect(),
            gates: plan
                .gates
                .iter()
                .map(|g| show(&waves_plan::gate_line(g)))
                .collect(),
            gates_from: plan.gates_from.clone(),
            policies: plan.policies.iter().map(ToString::to_string).collect(),
            phrase: plan.phrase.clone(),
            preconditions: pre.clone(),
            earlier: plan.earlier.clone(),
            interrupted: plan.interrupted.clone(),
            captured: plan.captured_lines(),
        };
        let mut vars = Vars::new();
        for (k, v) in bindings {
            vars.set(k, v, Source::Flag);
        }
        self.waves.prepared = Some(Prepared {
            plan,
            node: node.to_string(),
            vars,
            pre,
        });
        Ok(view)
    }

    /// Checks write mode, the acknowledgements and the phrase again, then starts the run.
    fn wave_start(&mut self, acks: &[bool], typed: &str) -> Result<(), String> {
        if !self.write {
            return Err(
                "This session is read-only: nothing was run. Press W to turn write mode on".into(),
            );
        }
        let Some(p) = self.waves.prepared.as_ref() else {
            return Err("Plan the waves again (:waves GLOB): nothing was run".into());
        };
        let ticked = acks.len() == p.pre.len() && acks.iter().all(|a| *a);
        if !ticked {
            return Err(format!(
                "Not every precondition is acknowledged ({} of {}): nothing was run",
                acks.iter().filter(|a| **a).count(),
                p.pre.len()
            ));
        }
        check_phrase(typed, &p.plan.phrase).map_err(|e| format!("{e}: nothing was run"))?;
        let Some(p) = self.waves.prepared.take() else {
            return Err("Plan the waves again (:waves GLOB): nothing was run".into());
        };
        let (pause, over) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
        );
        let (choice, choices) = tokio::sync::mpsc::unbounded_channel();
        self.waves.control = Some(Control {
            pause: pause.clone(),
            choice,
            over: over.clone(),
        });
        let tx = self.tx.clone();
        let progress_tx = tx.clone();
        let progress: engine::Progress = Arc::new(move |wave, ctx, state| {
            // A final state is shown once it is journaled ([`Observer::recorded`]).
            if matches!(state, State::Ok | State::Failed(_) | State::Restored(_)) {
                return;
            }
            let e = WavesEvent::Progress {
                wave,
                context: ctx.to_string(),
                state: state.clone(),
            };
            ui(&progress_tx, e);
        });
        let aim = Aim {
            context: None,
            namespace: self.settings.namespace.clone(),
            kubeconfig: self.settings.kubeconfig.clone(),
            contexts: None,
        };
        let (executors, session) = (self.executors.clone(), format!("{}-waves", self.session));
        let node_shell = self.settings.backends.node_shell.clone();
        self.rt.spawn(async move {
            let run = Engine {
                aim,
                node: &p.node,
                vars: p.vars.clone(),
                pre: &p.pre,
                node_shell: node_shell.as_ref(),
                executors,
                session,
                progress,
            };
            let mut obs = Tui {
                tx: tx.clone(),
                pause,
                choices,
            };
            let ended = engine::execute(&run, &p.plan, &mut obs).await;
            over.store(true, Ordering::SeqCst);
            ui(&tx, WavesEvent::Ended(summary(&p.plan, ended)));
        });
        Ok(())
    }
}

/// How the run ended, in words.
fn summary(plan: &Plan, ended: Result<Ended, String>) -> String {
    let of = plan.waves.len();
    match ended {
        Ok(Ended::Validated) => format!(
            "All {} contexts validated in {of} waves; every run is in the session's evidence.",
            plan.count()
        ),
        Ok(Ended::Paused(i, left)) => format!(
            "Paused before wave {}/{of}: {left} contexts were not changed.",
            i + 1
        ),
        Ok(Ended::Stopped(i, skipped)) => format!(
            "Stopped at wave {}/{of}: {skipped} contexts in later waves were not changed.",
            i + 1
        ),
        Err(e) => format!("The wave run stopped: {e}"),
    }
}
