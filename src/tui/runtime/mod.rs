//! The TUI's IO edge: owns the terminal (raw mode, alternate screen, mouse capture), reads
//! terminal events on a thread, runs `update()` on each, draws only when something changed,
//! and carries out effects. The terminal is restored on quit, on error and on panic.
//!
//! The only part of `tui` allowed to import IO (std::io, std::thread, crossterm's terminal
//! functions, `crate::query` in [`probes`], `crate::evidence` in [`record`]). The wave
//! engine ([`waves_engine`], with [`waves_plan`], [`waves_probes`] and [`waves_soak`]) lives
//! here so that `:waves` ([`waves`]) and `tsgnav run --waves` run the same one.

mod clip;
pub mod convert;
pub mod drive;
pub mod fan;
mod faults;
pub mod firing;
pub mod flow;
mod fx;
mod ledger;
pub mod library;
pub mod probes;
mod range;
pub mod record;
pub mod replay;
pub mod store;
pub mod stream;
pub mod waves;
pub mod waves_capture;
mod waves_commit;
pub mod waves_engine;
pub mod waves_observer;
pub mod waves_plan;
pub mod waves_probes;
pub mod waves_restore;
pub mod waves_resume;
pub mod waves_soak;
pub mod waves_write_mode;

use std::io::{self, Stdout, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event};
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, execute};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

use super::action::Action;
use super::app::App;
use super::frame::FrameState;
use super::view;
use crate::tui::effect::Effect;
use fx::Fx;

/// Leaves the alternate screen and raw mode; safe to call more than once.
pub fn restore_terminal() {
    let _ = terminal::disable_raw_mode();
    let mut out = io::stdout();
    let _ = execute!(out, DisableMouseCapture, LeaveAlternateScreen, cursor::Show);
    let _ = out.flush();
}

/// Enters the alternate screen with the mouse captured, cleared here rather than by
/// `Terminal::clear`, which first asks the terminal where its cursor is and waits for the
/// answer (a round trip on the way to the first frame); on a new alternate screen the
/// cursor's place does not matter, and a new `Terminal` draws its first frame whole.
fn enter_screen() -> io::Result<()> {
    execute!(
        io::stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        terminal::Clear(terminal::ClearType::All)
    )
}

/// Restores the terminal when dropped (normal return or error).
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Installs a panic hook that restores the terminal before the panic message is printed.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore_terminal();
        previous(info);
    }));
}

/// What the runtime wires in besides the app.
#[derive(Default)]
pub struct Options {
    /// Backends for read-only probes; `None` shows live queries as unavailable.
    pub live: Option<probes::LiveSettings>,
    /// The evidence recorder; `None` when recording is off.
    pub recorder: Option<record::Recorder>,
    /// Effects produced while the app was set up (the alert, `--var`, `--node`).
    pub startup: Vec<Effect>,
    /// Guides to read after the first frame is drawn.
    pub loader: Option<library::Loader>,
    /// Where the library screen's "Firing" section reads alerts from, if anywhere.
    pub firing: Option<firing::FiringSettings>,
}

/// What reaches the main loop: an action for `update()`, or a probe result to record first.
pub enum Msg {
    Ui(Action),
    Probe {
        probe: crate::tsg::ProbeRef,
        result: Box<crate::query::ProbeResult>,
    },
    /// A record to append (a confirmation, a prior state).
    Record(Box<crate::evidence::Record>),
    /// A run's output was stored (off the frame loop): its record is appended, then it is shown.
    Stored {
        probe: crate::tsg::ProbeRef,
        result: Box<crate::query::ProbeResult>,
        stored: Result<crate::evidence::StoredOutput, crate::evidence::EvidenceError>,
    },
    /// A read run before a mutation (prior state): recorded, not shown.
    Captured(Box<crate::query::ProbeResult>),
    /// Records of a wave run, written in order; the run waits for the answer.
    Journal(Box<waves_observer::Batch>),
    /// A dry run's result: recorded, shown on the confirmation screen.
    DryRun(Box<crate::query::ProbeResult>),
    /// Guides read in the background.
    Guides(Box<crate::tui::loading::GuideBatch>),
    /// A confirmed interactive probe: the terminal is handed over while it runs.
    Handover {
        probe: crate::tsg::ProbeRef,
        req: Box<crate::query::ProbeRequest>,
    },
}

/// Runs the TUI until the operator quits.
pub fn run(app: App, opts: Options) -> io::Result<()> {
    install_panic_hook();
    terminal::enable_raw_mode()?;
    let _guard = Guard;
    enter_screen()?;
    let mut term: Terminal<CrosstermBackend<Stdout>> =
        Terminal::new(CrosstermBackend::new(io::stdout()))?;
    let (tx, rx) = mpsc::channel::<Msg>();
    let paused = Arc::new(AtomicBool::new(false));
    read_keys(tx.clone(), paused.clone());
    if std::env::var_os("TSGNAV_TEST_PANIC").is_some_and(|v| v == "draw") {
        term.draw(|f| view::draw(f, &app, &mut FrameState::default()))?;
        panic!("TSGNAV_TEST_PANIC=draw: panic on purpose to test that the terminal is restored");
    }
    let mut screen = TermScreen { term, paused };
    drive::drive(app, opts, &mut screen, (tx, rx))
}

/// The real terminal as the loop's [`drive::Screen`].
struct TermScreen {
    term: Terminal<CrosstermBackend<Stdout>>,
    paused: Arc<AtomicBool>,
}

impl drive::Screen for TermScreen {
    fn draw(&mut self, app: &App, frame: &mut FrameState) -> io::Result<()> {
        self.term.draw(|f| view::draw(f, app, frame)).map(|_| ())
    }

    fn handover(
        &mut self,
        req: &crate::query::ProbeRequest,
    ) -> io::Result<crate::query::ProbeResult> {
        handover(&mut self.term, req, &self.paused)
    }
}

/// The effect runner: the query engine (with write mode and the sandbox shown), the evidence
/// recorder and the Firing refresher, each reported on `app` when it cannot start.
fn start_fx(
    app: &mut App,
    live: Option<probes::LiveSettings>,
    mut recorder: Option<record::Recorder>,
    firing_settings: Option<firing::FiringSettings>,
    tx: &mpsc::Sender<Msg>,
) -> Fx {
    if let (Some(r), Some(l)) = (recorder.as_mut(), live.as_ref()) {
        r.set_tracker(l.backends.tracker.clone());
    }
    let sandbox = live.as_ref().map(|l| super::app::Sandbox {
        text: crate::query::sandbox::describe_session(&l.backends.sandbox),
        isolated: crate::query::jail::isolation(l.backends.sandbox.jail)
            == crate::query::jail::Isolation::Jailed,
    });
    let live = match live.map(|l| probes::Probes::start(l, tx.clone())) {
        Some(Ok(p)) => {
            app.session.live = super::app::Live::Available;
            app.session.sandbox = sandbox;
            Some(p)
        }
        Some(Err(e)) => {
            app.session.live =
                super::app::Live::Unavailable(format!("the query engine did not start: {e}"));
            None
        }
        None => None,
    };
    // The demo's simulated cluster, or the config's context: the session's default.
    if let Some(c) = live.as_ref().and_then(|l| l.context()) {
        app.session.aim.default = Some(c.to_string());
    }
    let mut fx = Fx {
        live,
        recorder,
        firing: None,
        faults: Default::default(),
        storing: 0,
    };
    if app.session.write {
        if let Some(l) = fx.live.as_mut() {
            l.set_write(true);
        }
    }
    if let Some(settings) = firing_settings {
        app.firing = super::firing::Firing::enabled();
        match firing::start(settings, tx.clone()) {
            Ok(h) => fx.firing = Some(h),
            Err(e) => {
                app.firing
                    .failed_to_start(format!("cannot start the refresher: {e}"));
            }
        }
    }
    fx
}

/// Reads keys, mouse and resizes on a thread of its own and sends them to the main loop;
/// while `paused` (a hand-over has the terminal) it reads nothing.
fn read_keys(tx: mpsc::Sender<Msg>, paused: Arc<AtomicBool>) {
    let (keys, pause) = (tx, paused);
    std::thread::spawn(move || loop {
        // Waits for the terminal in 250 ms slices (no busy loop), so that a handover can stop
        // this thread from reading keys meant for the program that has the terminal.
        if pause.load(Ordering::SeqCst) {
            std::thread::sleep(KEY_SLICE);
            continue;
        }
        match event::poll(KEY_SLICE) {
            Ok(false) => continue,
            Ok(true) if pause.load(Ordering::SeqCst) => continue,
            _ => {}
        }
        let action = match event::read() {
            Ok(Event::Key(k)) if k.kind != event::KeyEventKind::Release => Action::Key(k),
            Ok(Event::Mouse(m)) => Action::Mouse(m),
            Ok(Event::Resize(w, h)) => Action::Resize(w, h),
            Ok(_) => continue,
            Err(e) => Action::Notice(format!("cannot read the terminal: {e}")),
        };
        if keys.send(Msg::Ui(action)).is_err() {
            return;
        }
    });
}

/// Gives the terminal to a confirmed interactive probe, then takes it back.
fn handover(
    term: &mut Terminal<CrosstermBackend<Stdout>>,
    req: &crate::query::ProbeRequest,
    paused: &AtomicBool,
) -> io::Result<crate::query::ProbeResult> {
    paused.store(true, Ordering::SeqCst);
    // Let the key thread finish the slice it is waiting in.
    std::thread::sleep(KEY_SLICE + Duration::from_millis(50));
    restore_terminal();
    println!(
        "tsgnav: running {} with your terminal; the navigator comes back when it exits.",
        req.id
    );
    let result = crate::query::attached::run_attached(req, "bash");
    terminal::enable_raw_mode()?;
    enter_screen()?;
    // A new terminal object: fresh buffers, so the next frame is drawn whole.
    *term = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    paused.store(false, Ordering::SeqCst);
    Ok(result)
}

/// How long the key thread waits for the terminal before it checks whether to pause.
const KEY_SLICE: Duration = Duration::from_millis(250);
