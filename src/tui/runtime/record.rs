//! Evidence for the TUI: opens a session (`crate::evidence`) when the operator first enters a
//! step, turns navigator events and probe results into journal records (fsync'd before the
//! UI shows them as done), and exports the bundle on `:export`. Part of the runtime, the IO
//! edge. A failure to record is shown to the operator; it never stops the navigator.

use std::path::PathBuf;

use crate::evidence::{self, Record, Redactor, Session};
use crate::nav::Event;
use crate::query::ProbeResult;
use crate::tui::action::Action;
use crate::tui::app::App;

#[path = "record_events.rs"]
mod events;
#[path = "record_export.rs"]
mod export;
use events::{note, to_record};

pub struct Recorder {
    state_dir: PathBuf,
    /// (path, text) of the guides bundled into the binary, for their digest.
    bundled: &'static [(&'static str, &'static str)],
    session: Option<Session>,
    /// Records that arrived before a step was open (the alert), written once it is.
    waiting: Vec<Record>,
    broken: bool,
    /// A resumed session not yet shown to the operator.
    announce: bool,
    /// Extra secret patterns (the config file's `redact`).
    redact: Vec<String>,
    /// Open mitigations; `earlier` reads those earlier sessions of the guide left open.
    ledger: super::ledger::Ledger,
    earlier: bool,
    /// Where shell probes note their process groups: the session's `running/` folder.
    tracker: Option<crate::query::strays::Tracker>,
    /// Said with "Recording evidence in …" when a resumed session is first shown.
    resumed: Vec<String>,
}

impl Recorder {
    pub fn new(state_dir: PathBuf, bundled: &'static [(&'static str, &'static str)]) -> Recorder {
        Recorder {
            state_dir,
            bundled,
            session: None,
            waiting: Vec::new(),
            broken: false,
            announce: false,
            redact: Vec::new(),
            ledger: Default::default(),
            earlier: true,
            tracker: None,
            resumed: Vec::new(),
        }
    }

    /// Only this session's records decide the open mitigations (the demo: its simulated
    /// cluster starts fresh each time).
    pub fn this_session_only(mut self) -> Recorder {
        self.earlier = false;
        self
    }

    /// Appends a record (a confirmation, a prior state); returns what to tell the operator.
    /// The id of the session being recorded, once one is open.
    pub fn session_id(&self) -> Option<String> {
        self.session.as_ref().map(|s| s.id().to_string())
    }

    pub fn record(&mut self, app: &App, rec: Record) -> Vec<Action> {
        self.append(app, rec)
    }

    /// The ledger from the journals on disk, once the session is open.
    fn load_ledger(&mut self) -> Vec<Action> {
        let Some(s) = self.session.as_ref() else {
            return Vec::new();
        };
        let guide = s.state().start.guide.clone();
        let records = if self.earlier {
            evidence::guide_records(&self.state_dir, &guide, None)
        } else {
            evidence::SessionLog::read(s.dir())
                .map(|l| l.entries.into_iter().map(|e| e.record).collect())
                .unwrap_or_default()
        };
        self.ledger
            .load(records)
            .map(|o| vec![Action::OpenMitigations(o)])
            .unwrap_or_default()
    }

    /// Redacts these patterns too, on top of the built-in ones.
    pub fn with_redact(mut self, patterns: Vec<String>) -> Recorder {
        self.redact = patterns;
        self
    }

    /// Continues an existing session (`tsgnav --resume`): records extend its chain. Probe
    /// processes the previous navigator left running are stopped first, each recorded.
    pub fn resume(
        state_dir: PathBuf,
        bundled: &'static [(&'static str, &'static str)],
        mut session: Session,
    ) -> Recorder {
        let running = session.dir().join(crate::query::strays::RUNNING_DIR);
        let mut resumed = Vec::new();
        for stray in crate::query::strays::stop_strays(&running, STRAY_GRACE) {
            let text = stray.describe();
            let rec = note("stray-probe", None, text.clone());
            resumed.push(match session.append(rec) {
                Ok(_) => text,
                Err(e) => format!("{text} (NOT recorded: {e})"),
            });
        }
        Recorder {
            session: Some(session),
            announce: true,
            resumed,
            ..Recorder::new(state_dir, bundled)
        }
    }

    /// Lets the shell backend note its process groups in the session folder.
    pub fn set_tracker(&mut self, tracker: crate::query::strays::Tracker) {
        if let Some(s) = self.session.as_ref() {
            tracker.set_dir(s.dir().join(crate::query::strays::RUNNING_DIR));
        }
        self.tracker = Some(tracker);
    }

    /// Records a navigator event; returns what to tell the operator, if anything.
    pub fn event(&mut self, app: &App, ev: Event) -> Vec<Action> {
        self.append(app, to_record(ev))
    }

    /// Records a probe run (output redacted and stored by `evidence`) and what it captured.
    pub fn probe(&mut self, app: &App, r: &ProbeResult) -> Vec<Action> {
        let (mut out, store) = self.output_store(app);
        if let Some(store) = store {
            let stored = super::store::store(&store, &r.output);
            out.extend(self.append_run(app, r, stored));
        }
        out
    }

    /// Where a run's output is stored (opening the session first), for a thread of its own;
    /// `None` while nothing is being recorded.
    pub fn output_store(&mut self, app: &App) -> (Vec<Action>, Option<evidence::OutputStore>) {
        let out = self.ensure(app);
        (out, self.session.as_ref().map(|s| s.output_store()))
    }

    /// Appends the record of run `r` whose output was stored as `stored`.
    pub fn append_run(
        &mut self,
        app: &App,
        r: &ProbeResult,
        stored: Result<evidence::StoredOutput, evidence::EvidenceError>,
    ) -> Vec<Action> {
        self.append_run_checked(app, r, stored).0
    }

    fn append_run_checked(
        &mut self,
        app: &App,
        r: &ProbeResult,
        stored: Result<evidence::StoredOutput, evidence::EvidenceError>,
    ) -> (Vec<Action>, Result<(), String>) {
        let mut out = self.ensure(app);
        let Some(s) = self.session.as_mut() else {
            return (out, Err(self.unopened()));
        };
        let mut run = crate::tui::runtime::convert::probe_run(r);
        let result = stored.and_then(|stored| {
            stored.apply_to(&mut run);
            let rec = Record::ProbeRun(run);
            s.append(rec.clone()).map(|_| rec)
        });
        match result {
            Ok(rec) => {
                out.extend(self.ledger.push(&rec).map(Action::OpenMitigations));
                (out, Ok(()))
            }
            Err(e) => {
                out.push(Action::Notice(format!(
                    "Evidence: the probe run was NOT recorded: {e}"
                )));
                (out, Err(e.to_string()))
            }
        }
    }

    fn append(&mut self, app: &App, rec: Record) -> Vec<Action> {
        self.append_checked(app, rec).0
    }

    /// As [`Recorder::record`], and whether the record is in the journal (written and
    /// synced): a wave run does not change a context before its prior state is.
    pub fn append_checked(&mut self, app: &App, rec: Record) -> (Vec<Action>, Result<(), String>) {
        let mut out = self.ensure(app);
        let written = match self.session.as_mut() {
            Some(s) => match s.append(rec.clone()) {
                Ok(_) => {
                    out.extend(self.ledger.push(&rec).map(Action::OpenMitigations));
                    Ok(())
                }
                Err(e) => {
                    out.push(Action::Notice(format!(
                        "Evidence: a record was NOT written: {e}"
                    )));
                    Err(e.to_string())
                }
            },
            None if !self.broken => {
                self.waiting.push(rec);
                Err("no evidence session is open yet: open the step first".into())
            }
            None => Err(self.unopened()),
        };
        (out, written)
    }

    /// Writes `recs` as one batch (one sync for all; none kept on an error), each run's
    /// output stored first; a record reaches the ledger only once the batch is written.
    pub fn append_all_checked(
        &mut self,
        app: &App,
        recs: Vec<Batched>,
    ) -> (Vec<Action>, Result<(), String>) {
        let (mut out, store) = self.output_store(app);
        let (Some(store), Some(s)) = (store, self.session.as_mut()) else {
            return (out, Err(self.unopened()));
        };
        let built: Result<Vec<Record>, evidence::EvidenceError> = (recs.into_iter())
            .map(|b| match b {
                Batched::Record(r) => Ok(r),
                Batched::Run(r) => super::store::store(&store, &r.output).map(|stored| {
                    let mut run = crate::tui::runtime::convert::probe_run(&r);
                    stored.apply_to(&mut run);
                    Record::ProbeRun(run)
                }),
            })
            .collect();
        let written = built.and_then(|recs| s.append_all(recs.clone()).map(|_| recs));
        match written {
            Ok(recs) => {
                for rec in &recs {
                    out.extend(self.ledger.push(rec).map(Action::OpenMitigations));
                }
                (out, Ok(()))
            }
            Err(e) => {
                out.push(Action::Notice(format!(
                    "Evidence: a batch of records was NOT written: {e}"
                )));
                (out, Err(e.to_string()))
            }
        }
    }

    /// Why a record that must be written first was not: no session could be opened.
    fn unopened(&self) -> String {
        format!(
            "no evidence session could be opened under {}, so nothing is changed without its \
             record: make that a writable folder (TSGNAV_STATE_DIR sets it) and start again",
            self.state_dir.display()
        )
    }

    /// As [`Recorder::probe`], and whether the run's record is in the journal.
    pub fn probe_checked(
        &mut self,
        app: &App,
        r: &ProbeResult,
    ) -> (Vec<Action>, Result<(), String>) {
        let (mut out, store) = self.output_store(app);
        let Some(store) = store else {
            return (out, Err(self.unopened()));
        };
        let stored = super::store::store(&store, &r.output);
        let (more, written) = self.append_run_checked(app, r, stored);
        out.extend(more);
        (out, written)
    }

    /// Opens the session once a guide is open; reports it (or why it could not).
    fn ensure(&mut self, app: &App) -> Vec<Action> {
        if let Some(s) = self.session.as_ref().filter(|_| self.announce) {
            self.announce = false;
            let mut said = s.dir().display().to_string();
            for r in self.resumed.drain(..) {
                said.push_str(&format!(" · {r}"));
            }
            let mut out = vec![Action::EvidenceStarted(said)];
            out.extend(self.load_ledger());
            return out;
        }
        if self.session.is_some() || self.broken {
            return Vec::new();
        }
        let Some(g) = app.current_guide() else {
            return Vec::new();
        };
        let bundled = self
            .bundled
            .iter()
            .find(|(p, _)| *p == g.path && g.file == format!("tsg/{p}"));
        let bytes = match bundled {
            Some((_, text)) => Ok(text.as_bytes().to_vec()),
            None => std::fs::read(&g.file)
                .map_err(|e| format!("{}: cannot read the guide: {e}", g.file)),
        };
        let alert = app.nav.alert.as_ref().map(|a| a.name.clone());
        let redactor = Redactor::with_patterns(&self.redact)
            .map_err(|e| format!("the config file's `redact`: {e}"));
        let made = bytes.and_then(|b| {
            let opts = evidence::Options {
                redactor: std::sync::Arc::new(redactor?),
                ..evidence::Options::default()
            };
            let mut start = evidence::session_start(&g.file, &b, alert);
            if bundled.is_some() {
                start.bundled = true;
                start.guide_path = None;
            }
            start.simulated = app
                .session
                .data_label
                .as_ref()
                .is_some_and(|l| l.simulated());
            Session::create_with(&self.state_dir, start, opts).map_err(|e| e.to_string())
        });
        match made {
            Ok(mut s) => {
                let mut errors = 0;
                for rec in self.waiting.drain(..) {
                    errors += usize::from(s.append(rec).is_err());
                }
                let dir = s.dir().display().to_string();
                if let Some(t) = self.tracker.as_ref() {
                    t.set_dir(s.dir().join(crate::query::strays::RUNNING_DIR));
                }
                self.session = Some(s);
                let mut out = vec![Action::EvidenceStarted(dir)];
                out.extend(self.load_ledger());
                if errors > 0 {
                    out.push(Action::Notice(format!(
                        "Evidence: {errors} early record(s) were NOT written."
                    )));
                }
                out
            }
            Err(e) => {
                self.broken = true;
                self.waiting.clear();
                vec![Action::Notice(format!(
                    "Evidence is NOT being recorded: {e}. Set TSGNAV_STATE_DIR to a writable folder and restart."
                ))]
            }
        }
    }
}

/// How long a stray probe gets between SIGTERM and SIGKILL.
const STRAY_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// One item of a batch for [`Recorder::append_all_checked`]: a record, or a probe run whose
/// output is stored before its record is built.
pub enum Batched {
    Record(Record),
    Run(ProbeResult),
}
