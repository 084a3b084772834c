//! `:waves GLOB [SIZES [PARALLEL]]` on a mitigation step: the wave plan screen and the live
//! table of the run. The runtime builds the plan (the kubeconfig's contexts matching GLOB,
//! the waves with the canary first, the gates, the `[[policy]]` entries that apply) and runs
//! it with the same engine as `tsgnav run --waves`; this module holds what the screen shows,
//! folds the runtime's events into it, and turns keys into [`WavesOp`]s: acknowledging the
//! preconditions, typing back `GLOB · N contexts` (or the policy's phrase), Esc to pause after
//! the wave under way, and after a failure `c` (restore the failed contexts), `w` (restore
//! the whole wave) or `s` (stop). The runtime checks the acknowledgements and the phrase
//! again. Pure; must not import IO, `crate::query` or `crate::evidence`.

use super::app::App;
use super::effect::{Effect, WavesOp};
use crate::mitigate::waves::{State, WaveSpec};

/// The default wave sizes and concurrency of `:waves GLOB`.
pub const SIZES: &str = "1,5%,20%,rest";
pub const PARALLEL: usize = 32;

/// The plan as the runtime built it (plain text, values in place).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlanView {
    pub node: String,
    pub title: String,
    pub glob: String,
    pub waves: Vec<Vec<String>>,
    pub parallel: usize,
    /// The commands that make the change on each context.
    pub change: Vec<String>,
    /// Each gate: `name: command · soak …`.
    pub gates: Vec<String>,
    pub gates_from: String,
    /// Each `[[policy]]` that covers one of the contexts, in words.
    pub policies: Vec<String>,
    /// What the operator types back.
    pub phrase: String,
    pub preconditions: Vec<String>,
    /// Contexts an earlier run of the step left done (a resume): shown, never changed.
    pub earlier: Vec<(String, State)>,
    /// Contexts whose wave was under way when the earlier run was cut short.
    pub interrupted: Vec<String>,
    /// Contexts an earlier run captured before their first change, with what it captured
    /// (`deployment/x -n ns spec.replicas=3`): not captured again; a restore brings that.
    pub captured: Vec<(String, String)>,
}

impl PlanView {
    pub fn count(&self) -> usize {
        self.waves.iter().map(Vec::len).sum()
    }
}

/// What the runtime reports about a wave plan and its run.
#[derive(Debug, Clone, PartialEq)]
pub enum WavesEvent {
    Ready(Box<PlanView>),
    /// Nothing runs (no context matched, a read-only policy, a wrong phrase …), and why.
    Refused(String),
    /// The confirmation was accepted: the run started.
    Started,
    Progress {
        wave: usize,
        context: String,
        state: State,
    },
    /// A line of the run (the soak, a breach, a stop).
    Line(String),
    WaveDone {
        wave: usize,
        secs: f64,
        eta: Option<f64>,
    },
    /// Wave `wave` (from 0) failed: the run waits for the operator's choice.
    Failed {
        wave: usize,
    },
    /// The run is over; how it ended.
    Ended(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The runtime is building the plan.
    Loading,
    /// The plan screen: preconditions and the phrase.
    Plan,
    /// Confirmed; waiting for the runtime to start.
    Starting,
    Running,
    /// Esc was pressed: the wave under way finishes, no later one starts.
    Pausing,
    /// A wave failed: restore the failed contexts, the wave, or stop.
    Choosing,
    Restoring,
    Over,
}

/// One context of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub wave: usize,
    pub context: String,
    pub state: State,
    /// Done by an earlier run of the step (a resume): in no wave of this one.
    pub earlier: bool,
}

/// A question the screen asks before it acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// `a` after a failure: restore every context this run changed? (`y`)
    RestoreAll,
    /// `q` while the run goes on: pause after this wave and quit (`p`), or keep running.
    Quit,
}

/// The wave screen.
#[derive(Debug, Clone, PartialEq)]
pub struct Waves {
    pub glob: String,
    pub plan: PlanView,
    pub phase: Phase,
    pub acks: Vec<bool>,
    /// The precondition under the cursor.
    pub sel: usize,
    pub typed: String,
    pub rows: Vec<Row>,
    /// The time left, after the first wave validated (seconds).
    pub eta: Option<f64>,
    pub waves_done: usize,
    pub failed_wave: Option<usize>,
    /// What went wrong with the last key or the run (shown in red).
    pub error: Option<String>,
    /// The last line of the run, or how it ended.
    pub line: Option<String>,
    /// First row of the table shown; `None` follows the run.
    pub scroll: Option<usize>,
    /// The question on screen, if any.
    pub ask: Option<Ask>,
    /// `q` then `p`: the navigator quits once the run has ended.
    pub quit_after: bool,
}

impl Waves {
    fn loading(glob: &str) -> Waves {
        Waves {
            glob: glob.to_string(),
            plan: PlanView::default(),
            phase: Phase::Loading,
            acks: Vec::new(),
            sel: 0,
            typed: String::new(),
            rows: Vec::new(),
            eta: None,
            waves_done: 0,
            failed_wave: None,
            error: None,
            line: None,
            scroll: None,
            ask: None,
            quit_after: false,
        }
    }

    /// How many contexts of this run are in `state`'s word.
    pub fn count(&self, word: &str) -> usize {
        self.rows
            .iter()
            .filter(|r| !r.earlier && r.state.word() == word)
            .count()
    }

    /// How many contexts an earlier run left done.
    pub fn done_earlier(&self) -> usize {
        self.rows.iter().filter(|r| r.earlier).count()
    }

    /// How many contexts the step's runs changed since the run began (or tried to): what
    /// "restore all" restores. This run's, those an earlier run left validated, and those
    /// not reached yet that an earlier run captured (a crash caught them after it).
    pub fn changed(&self) -> usize {
        let captured = |c: &str| self.plan.captured.iter().any(|(k, _)| k == c);
        (self.rows.iter())
            .filter(|r| match (r.earlier, &r.state) {
                (true, s) => *s == State::Ok,
                (false, State::Pending | State::Skipped) => captured(&r.context),
                (false, _) => true,
            })
            .count()
    }

    /// How many of [`Waves::changed`] an earlier run changed and this one did not reach.
    pub fn changed_earlier(&self) -> usize {
        let captured = |c: &str| self.plan.captured.iter().any(|(k, _)| k == c);
        (self.rows.iter())
            .filter(|r| match (r.earlier, &r.state) {
                (true, s) => *s == State::Ok,
                (false, State::Pending | State::Skipped) => captured(&r.context),
                (false, _) => false,
            })
            .count()
    }

    /// The wave under way (from 0): the first wave with a context not yet ok.
    pub fn current_wave(&self) -> usize {
        self.rows
            .iter()
            .find(|r| !r.earlier && r.state != State::Ok)
            .map_or(self.plan.waves.len().saturating_sub(1), |r| r.wave)
    }

    /// The first row the table shows when it follows the run: a little above the first
    /// row of this run that is not ok (a failure, or the wave under way).
    pub fn follow_row(&self) -> usize {
        let first = self
            .rows
            .iter()
            .position(|r| matches!(r.state, State::Failed(_)))
            .or_else(|| (self.rows.iter()).position(|r| !r.earlier && r.state != State::Ok))
            .unwrap_or(0);
        first.saturating_sub(2)
    }
}

/// `:waves GLOB [SIZES [PARALLEL]]`: asks the runtime for the plan of the open step.
pub fn open(app: &mut App, args: &str) -> Vec<Effect> {
    let usage = "Usage: :waves GLOB [SIZES [PARALLEL]], e.g. :waves mc-* 1,5%,20%,rest 32.";
    let mut words = args.split_whitespace();
    let Some(glob) = words.next() else {
        app.set_message(format!("{usage} Nothing was run."), true);
        return Vec::new();
    };
    let sizes = words.next().unwrap_or(SIZES).to_string();
    if let Err(e) = WaveSpec::parse(&sizes) {
        app.set_message(format!("{e}. Nothing was run."), true);
        return Vec::new();
    }
    let parallel = match words.next().map(str::parse::<usize>) {
        None => PARALLEL,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            app.set_message(format!("PARALLEL must be a number above 0. {usage}"), true);
            return Vec::new();
        }
    };
    let Some(node) = app.current_node() else {
        app.set_message(
            "Open a mitigation step first: :waves runs its change in waves.",
            true,
        );
        return Vec::new();
    };
    let changes = app
        .classes()
        .iter()
        .any(|c| c.needs_confirmation() && *c != crate::tsg::SafetyClass::LongRunning);
    if !changes {
        let msg = format!(
            "{} has no probe that changes anything: :waves runs a mitigation step. Nothing was run.",
            node.title
        );
        app.set_message(msg, true);
        return Vec::new();
    }
    if !app.session.write {
        app.set_message(
            "This session is read-only: press W and type the kube context, then :waves again. Nothing was run.",
            true,
        );
        return Vec::new();
    }
    let node = node.id.clone();
    let bindings = app
        .nav
        .vars
        .iter()
        .map(|(k, v)| (k.clone(), v.value.clone()))
        .collect();
    app.waves = Some(Waves::loading(glob));
    vec![Effect::Waves(WavesOp::Plan {
        node,
        glob: glob.to_string(),
        sizes,
        parallel,
        bindings,
    })]
}

pub use super::waves_keys::{event, key};

#[cfg(test)]
#[path = "waves_tests.rs"]
mod tests;
