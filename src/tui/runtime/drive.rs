//! The navigator's main loop, apart from the terminal: actions through the pure `update()`,
//! effects carried out, a frame drawn when something changed, then the next message (a key,
//! a worker's result) from one channel. [`Screen`] is where frames go: the real terminal in
//! [`super::run`], a `TestBackend` in the benches, so they time the very loop the operator
//! uses. Part of the runtime, the IO edge; must not import `cli`.

use std::collections::VecDeque;
use std::io;
use std::sync::mpsc;
use std::time::Duration;

use super::fx::Fx;
use super::{library, probes, Msg, Options};
use crate::tui::action::Action;
use crate::tui::app::{App, Live};
use crate::tui::frame::FrameState;
use crate::tui::update::update;

/// Where the loop's frames go.
pub trait Screen {
    /// Draws `app` (the view writes what it measured into `frame`).
    fn draw(&mut self, app: &App, frame: &mut FrameState) -> io::Result<()>;
    /// Gives the terminal to a confirmed interactive probe until it exits.
    fn handover(
        &mut self,
        req: &crate::query::ProbeRequest,
    ) -> io::Result<crate::query::ProbeResult>;
}

/// Runs the loop until the operator quits (or every sender of `channel` is gone). Keys and
/// worker results arrive on `channel`'s receiver; the loop's own workers send on its sender.
pub fn drive(
    mut app: App,
    opts: Options,
    screen: &mut dyn Screen,
    channel: (mpsc::Sender<Msg>, mpsc::Receiver<Msg>),
) -> io::Result<()> {
    let (tx, rx) = channel;
    let mut frame = FrameState::default();
    // The first frame comes before anything that takes time: the library is read after it
    // (in the background), and so are the query engine, the jail check and the Firing
    // refresher started (tens of milliseconds together: the system's CA store is read). No
    // key is read until they are up.
    let mut loading: Option<library::Loading> = None;
    let mut pending = Vec::new();
    if opts.loader.is_some() {
        app.session.loading = Some((0, 0));
    }
    let engine = std::mem::replace(&mut app.session.live, Live::Starting);
    if opts.live.is_none() {
        app.session.live = engine;
    }
    show(screen, &app, &mut frame)?;
    update(&mut app, Action::Drawn(frame.viewport));
    if let Some(l) = opts.loader {
        let (p, handle) = library::start(l, tx.clone());
        (pending, loading) = (p, Some(handle));
    }
    let mut fx = super::start_fx(&mut app, opts.live, opts.recorder, opts.firing, &tx);
    app.dirty = true;
    let mut queue: VecDeque<Action> = VecDeque::new();
    for effect in opts.startup {
        queue.extend(fx.execute(&app, effect));
    }
    loop {
        while let Some(action) = queue.pop_front() {
            // The clock outputs are stamped with ("ran 03:12:09 with …"), when it changed.
            let now = chrono::Local::now().format("%H:%M:%S").to_string();
            if now != app.reading.now {
                update(&mut app, Action::Tick(now));
            }
            for effect in update(&mut app, action) {
                queue.extend(fx.execute(&app, effect));
            }
            hold_open(&app);
        }
        if app.dirty {
            show(screen, &app, &mut frame)?;
            app.dirty = false;
            // What the view measured goes back through `update`, the model's only writer.
            update(&mut app, Action::Drawn(frame.viewport));
        }
        if app.session.quit {
            drain_at_quit(&mut fx, &app, &rx);
            // Every guide is in: the parse cache is being written behind it; let it finish,
            // so the next start reads it. (Quitting mid-load does not wait for the parsing.)
            if let Some(l) = loading.as_ref().filter(|_| app.session.loading.is_none()) {
                wait_for_pack(&mut app, l, &rx, screen)?;
            }
            // Freeing a big library takes a while (a second at 20,000 guides); the process
            // need not wait for it on its way out.
            std::thread::spawn(move || drop(app));
            return Ok(());
        }
        let Ok(msg) = rx.recv() else {
            return Ok(());
        };
        let mut ctx = Ctx {
            app: &mut app,
            fx: &mut fx,
            queue: &mut queue,
            pending: &mut pending,
            tx: &tx,
        };
        ctx.on(msg, screen)?;
    }
}

/// Reads in the open guide's text if the load left it in the guide's file: the view and the
/// search inside a guide (pure code) read bodies only from memory. Made after every `update`
/// (a search typed right after a guide is opened comes before any frame) and before every
/// frame (an app may start on a guide).
fn hold_open(app: &App) {
    if let Some(g) = app.current_guide() {
        crate::load::hold(g);
    }
}

/// Draws a frame, the open guide's text read in first.
fn show(screen: &mut dyn Screen, app: &App, frame: &mut FrameState) -> io::Result<()> {
    hold_open(app);
    screen.draw(app, frame)
}

/// What handling one message may change.
struct Ctx<'a> {
    app: &'a mut App,
    fx: &'a mut Fx,
    queue: &'a mut VecDeque<Action>,
    pending: &'a mut Vec<crate::nav::Cmd>,
    tx: &'a mpsc::Sender<Msg>,
}

impl Ctx<'_> {
    /// Folds one message into the queue of actions.
    fn on(&mut self, msg: Msg, screen: &mut dyn Screen) -> io::Result<()> {
        let (app, fx, queue) = (&mut *self.app, &mut *self.fx, &mut *self.queue);
        match msg {
            Msg::Ui(a) => {
                if let Action::Firing(u) = &a {
                    queue.extend(fx.firing_faults(app, u));
                }
                queue.push_back(a)
            }
            // Recorded (fsync'd) before the UI shows the result; a large output is redacted
            // and written on a thread of its own meanwhile, so keys are answered.
            Msg::Probe { probe, result } => queue.extend(fx.finished(app, probe, result, self.tx)),
            Msg::Stored {
                probe,
                result,
                stored,
            } => queue.extend(fx.stored(app, probe, &result, stored)),
            Msg::Record(rec) => {
                if let Some(r) = fx.recorder.as_mut() {
                    queue.extend(r.record(app, *rec));
                }
            }
            Msg::Captured(result) => queue.extend(fx.record_run(app, &result)),
            Msg::Journal(batch) => queue.extend(super::waves_observer::write(
                fx.recorder.as_mut(),
                app,
                *batch,
            )),
            Msg::DryRun(result) => {
                queue.extend(fx.record_run(app, &result));
                let o = probes::convert(&result);
                let (ok, text) = (o.outcome.succeeded(), o.output);
                queue.push_back(Action::DryRunFinished(ok, text));
            }
            Msg::Guides(mut b) => {
                if b.done.is_some() {
                    b.pending = std::mem::take(self.pending);
                }
                queue.push_back(Action::Guides(b));
            }
            Msg::Handover { probe, req } => {
                let result = screen.handover(&req)?;
                queue.extend(fx.record_run(app, &result));
                queue.push_back(Action::ProbeFinished {
                    probe,
                    result: Ok(probes::convert(&result)),
                });
            }
        }
        Ok(())
    }
}

/// At quit: stops the background tasks and records how each ended, and waits for the outputs
/// still being stored, so every run that started is in the journal before tsgnav exits.
fn drain_at_quit(fx: &mut Fx, app: &App, rx: &mpsc::Receiver<Msg>) {
    let mut tasks = fx.live.as_ref().map_or(0, |l| {
        let n = l.running_tasks();
        l.stop_all_tasks();
        n
    });
    let grace = if fx.storing > 0 {
        STORE_GRACE
    } else {
        TASK_GRACE
    };
    let until = std::time::Instant::now() + grace;
    while tasks + fx.storing > 0 {
        let wait = until.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(wait) {
            Ok(Msg::Probe { result, .. }) => {
                let _ = fx.record_run(app, &result);
                tasks = tasks.saturating_sub(1);
            }
            Ok(Msg::Stored {
                probe,
                result,
                stored,
            }) => {
                let _ = fx.stored(app, probe, &result, stored);
            }
            Ok(Msg::Record(rec)) => {
                if let Some(r) = fx.recorder.as_mut() {
                    let _ = r.record(app, *rec);
                }
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
}

/// At quit, once every guide is in: waits for the parse-cache pack (up to
/// [`library::PACK_GRACE`]). When it is not written within [`PACK_QUIET`], the screen says
/// so, and a second `q` (or Ctrl-c) quits at once: the pack is given up, not left torn.
fn wait_for_pack(
    app: &mut App,
    loading: &library::Loading,
    rx: &mpsc::Receiver<Msg>,
    screen: &mut dyn Screen,
) -> io::Result<()> {
    if loading.wait(PACK_QUIET) {
        return Ok(());
    }
    app.set_message(PACK_LINE, false);
    let mut frame = FrameState::default();
    show(screen, app, &mut frame)?;
    let until = std::time::Instant::now() + library::PACK_GRACE;
    while std::time::Instant::now() < until {
        if loading.wait(Duration::from_millis(20)) {
            return Ok(());
        }
        while let Ok(msg) = rx.try_recv() {
            if let Msg::Ui(Action::Key(k)) = msg {
                if quits_now(&k) {
                    loading.abandon(PACK_QUIET);
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}

/// Whether `k` is the second quit that will not wait for the parse cache.
fn quits_now(k: &crossterm::event::KeyEvent) -> bool {
    use crossterm::event::{KeyCode, KeyModifiers};
    match k.code {
        KeyCode::Char('q') | KeyCode::Char('Q') => true,
        KeyCode::Char('c') => k.modifiers.contains(KeyModifiers::CONTROL),
        _ => false,
    }
}

/// What the screen says while the quit waits for the parse cache.
pub const PACK_LINE: &str =
    "writing the parse cache, so the next start is quick… (q again to quit without it)";
/// How long a quit waits for the parse cache before it says so.
const PACK_QUIET: Duration = Duration::from_millis(150);

/// How long quitting waits for the background tasks to stop.
const TASK_GRACE: Duration = Duration::from_secs(3);
/// How long quitting waits for outputs still being stored (a 50 MB output takes seconds).
const STORE_GRACE: Duration = Duration::from_secs(60);
