//! Helpers for the navigator tests: an `App` over the bundled guides (read from `tsg/`), key
//! scripts fed through the real keymap and `update()`, TestBackend rendering, and [`Tmux`], a
//! real terminal for the end-to-end tests.

#![allow(dead_code)]

use std::process::Command;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use tsgnav::tui::frame::FrameState;
use tsgnav::tui::keymap::{parse_keys, Keymap};
use tsgnav::tui::theme::Theme;
use tsgnav::tui::Effect;
use tsgnav::tui::{update, view, Action, App};

pub const SWIFT: &str = "swift-networking.md";
pub const ALERT: &str = "userJourneySwiftLatencyP991h5m";

/// An app over the bundled guides, colours off (snapshots show text only).
pub fn app() -> App {
    let (lib, errors) = tsgnav::load::load_library(&[crate::common::root().join("tsg")]);
    assert!(errors.is_empty(), "{errors:?}");
    App::new(lib, Keymap::bundled(), Theme::bundled(true))
}

/// An app that started from the SWIFT latency alert.
pub fn at_alert() -> App {
    let mut a = app();
    tsgnav::tui::navigate::nav_cmd(
        &mut a,
        tsgnav::nav::Cmd::Alert(tsgnav::nav::AlertContext {
            name: ALERT.into(),
            ..Default::default()
        }),
    );
    a
}

/// The id of the first step of the SWIFT guide whose title starts with `title` (`"Step 2a:"`),
/// so the tests follow the guide when a heading is reworded.
pub fn id(title: &str) -> String {
    let a = app();
    let g = a
        .lib
        .guides
        .iter()
        .find(|g| g.path == SWIFT)
        .expect("bundled SWIFT guide");
    let n = g.nodes.iter().find(|n| n.title.starts_with(title));
    n.unwrap_or_else(|| panic!("no step titled `{title}…` in {SWIFT}"))
        .id
        .clone()
}

/// The full title of that step.
pub fn title(title: &str) -> String {
    let a = app();
    a.nav
        .index
        .node(&a.lib, &id(title))
        .expect("node")
        .title
        .clone()
}

/// Feeds a key script (`"j j <Tab> <Enter>"`) and returns every effect.
pub fn keys(app: &mut App, script: &str) -> Vec<Effect> {
    let evs = parse_keys(script);
    assert_eq!(
        evs.len(),
        script.split_whitespace().count(),
        "every key of `{script}` parses"
    );
    evs.into_iter()
        .flat_map(|k| update(app, Action::Key(k)))
        .collect()
}

/// Types text into the open input, one character at a time.
pub fn type_text(app: &mut App, text: &str) -> Vec<Effect> {
    text.chars()
        .flat_map(|c| {
            update(
                app,
                Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
            )
        })
        .collect()
}

pub fn current(app: &App) -> String {
    app.nav.current.clone().unwrap_or_default()
}

/// Draws the app on a TestBackend of `w`×`h` and hands what the view measured to `update`,
/// as the runtime does after every frame.
pub fn render(app: &mut App, w: u16, h: u16) -> Terminal<TestBackend> {
    render_with(app, &mut FrameState::default(), w, h)
}

/// [`render`] keeping the view's state in `frame` (its render cache lives across frames).
pub fn render_with(app: &mut App, frame: &mut FrameState, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    term.draw(|f| view::draw(f, app, frame)).expect("draw");
    update(app, Action::Drawn(frame.viewport));
    term
}

/// The wrapped lines of the node pane at `w`×`h`, as text.
pub fn node_lines(app: &mut App, w: u16, h: u16) -> Vec<String> {
    let mut frame = FrameState::default();
    render_with(app, &mut frame, w, h);
    frame.cache.lines.iter().map(|l| l.to_string()).collect()
}

/// The screen as text, one line per row.
pub fn screen(term: &Terminal<TestBackend>) -> String {
    let buf = term.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// The actions-panel index of the first item matching `pred`.
pub fn item_index(app: &App, pred: impl Fn(&tsgnav::tui::app::Item) -> bool) -> usize {
    app.items().iter().position(pred).expect("item present")
}

/// A tmux session running `bash` at 120×40 with its own config file and evidence folder.
pub struct Tmux {
    name: String,
    /// Holds config.toml and the evidence state folder (`state/`).
    pub dir: std::path::PathBuf,
}

impl Tmux {
    pub fn start(tag: &str) -> Option<Tmux> {
        Tmux::start_sized(tag, 120, 40)
    }
    /// A session of `w`×`h` cells.
    pub fn start_sized(tag: &str, w: u16, h: u16) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            assert!(
                std::env::var("TSGNAV_REQUIRE_SERVERS").as_deref() != Ok("1"),
                "tmux is missing and TSGNAV_REQUIRE_SERVERS=1"
            );
            eprintln!("SKIP: tmux is not installed; the end-to-end TUI test needs it");
            return None;
        }
        let name = format!("tsgnav-{tag}-{}", std::process::id());
        let ok = Command::new("tmux")
            .args([
                "new-session",
                "-d",
                "-x",
                &w.to_string(),
                "-y",
                &h.to_string(),
                "-s",
                &name,
                "bash --norc --noprofile",
            ])
            .status()
            .expect("tmux new-session")
            .success();
        assert!(ok, "tmux new-session failed");
        let cfg = tempfile::tempdir().expect("tempdir").keep();
        std::fs::write(cfg.join("config.toml"), "").expect("write config");
        let t = Tmux {
            name,
            dir: cfg.clone(),
        };
        t.send_line(&format!(
            "export TSGNAV_CONFIG='{dir}/config.toml' TSGNAV_STATE_DIR='{dir}/state' TSGNAV_CACHE_DIR='{dir}/cache' PS1='READY$ '; clear",
            dir = cfg.display()
        ));
        t.wait_for("READY$", |s| s.trim_start().starts_with("READY$"));
        Some(t)
    }
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.name];
        args.extend_from_slice(keys);
        assert!(Command::new("tmux")
            .args(&args)
            .status()
            .expect("send-keys")
            .success());
    }
    pub fn send_line(&self, line: &str) {
        self.keys(&["-l", line]);
        self.keys(&["Enter"]);
    }
    pub fn capture(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.name])
            .output()
            .expect("capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
    /// The screen with its colour and style escapes (`capture-pane -e`).
    pub fn capture_styled(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-e", "-p", "-t", &self.name])
            .output()
            .expect("capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
    pub fn flag(&self, name: &str) -> String {
        let out = Command::new("tmux")
            .args(["display", "-p", "-t", &self.name, &format!("#{{{name}}}")])
            .output()
            .expect("display");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
    /// Waits (up to 60 s: the machine may be busy with other tests) until the screen satisfies
    /// `ok`; fails with the screen otherwise. It returns the screen once `ok` holds on a
    /// settled frame: a capture can land while the
    /// navigator is half-way through writing a frame (on a loaded machine that half can
    /// already match), so a match counts when the next capture, a moment later, is the same.
    /// A screen that keeps changing (a spinner) is taken after a few matching captures.
    pub fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        let mut moving = 0;
        loop {
            let s = self.capture();
            if ok(&s) {
                std::thread::sleep(Duration::from_millis(40));
                let again = self.capture();
                if again == s || (ok(&again) && moving >= 5) {
                    return again;
                }
                moving += usize::from(ok(&again));
                if start.elapsed() < Duration::from_secs(60) {
                    continue;
                }
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "timed out waiting for {what}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    /// Quits a session that may hold unexported evidence: `q` warns when something would be
    /// lost (then a second `q` quits), else it quits at once.
    pub fn quit_unexported(&self) {
        self.keys(&["q"]);
        self.wait_for("the export warning or the shell", |s| {
            s.contains("Evidence has not been exported")
                || s.lines().filter(|l| l.starts_with("READY$")).count() >= 2
        });
        if self.capture().contains("Evidence has not been exported") {
            self.keys(&["q"]);
        }
    }
    pub fn restored(&self) {
        self.wait_for("the shell prompt", |s| {
            s.lines().filter(|l| l.starts_with("READY$")).count() >= 2
        });
        assert_eq!(self.flag("alternate_on"), "0", "alternate screen left");
        assert_eq!(self.flag("mouse_any_flag"), "0", "mouse reporting off");
        assert_eq!(self.flag("cursor_flag"), "1", "cursor visible");
        self.send_line("stty -a | grep -q -- '-icanon' && echo MODE=RAW || echo MODE=COOKED");
        self.wait_for("the terminal mode", |s| {
            s.contains("MODE=COOKED") || s.contains("MODE=RAW")
        });
        assert!(
            self.capture().contains("MODE=COOKED"),
            "raw mode disabled:\n{}",
            self.capture()
        );
    }
}

impl Tmux {
    /// The one evidence session this terminal's navigator recorded (fails on none or several).
    pub fn only_session(&self) -> std::path::PathBuf {
        let sessions: Vec<_> = std::fs::read_dir(self.dir.join("state"))
            .expect("state dir")
            .flatten()
            .collect();
        assert_eq!(sessions.len(), 1, "exactly one evidence session");
        sessions[0].path()
    }
}

/// The folder of the bundle exported from session folder `session`.
pub fn exported_bundle(session: &std::path::Path) -> std::path::PathBuf {
    std::fs::read_dir(session.join("export"))
        .expect("export")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.is_dir())
        .expect("the bundle folder")
}

/// `tsgnav sessions verify` passes on the session folder `dir`.
pub fn assert_verifies(dir: &std::path::Path) {
    let state = dir.parent().expect("state dir");
    let verify = crate::common::bin()
        .args(["sessions", "verify"])
        .arg(dir)
        .env("TSGNAV_STATE_DIR", state)
        .output()
        .expect("verify");
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.name])
            .status();
    }
}

impl Tmux {
    /// `W`, then the kube context the prompt names, typed back: write mode on. Returns the
    /// context.
    pub fn write_mode_on(&self) -> String {
        const PROMPT: &str = "write mode: type the kube context `";
        self.keys(&["W"]);
        let s = self.wait_for("the write-mode prompt", |s| s.contains(PROMPT));
        let ctx = s
            .split(PROMPT)
            .nth(1)
            .and_then(|r| r.split('`').next())
            .expect("the prompt names the context")
            .to_string();
        self.send_line(&ctx);
        self.wait_for("write mode on", |s| s.contains(&format!("WRITE {ctx}")));
        ctx
    }

    /// On the confirmation screen: acknowledges `preconditions` items, types `target`, Enter.
    pub fn confirm(&self, preconditions: usize, target: &str) {
        self.wait_for("the confirmation screen", |s| {
            s.contains("Mitigation: confirm before it runs")
        });
        for _ in 0..preconditions {
            self.keys(&["Space"]);
        }
        if preconditions > 0 {
            // The focus moves to the target field only when asked.
            self.keys(&["Tab"]);
        }
        self.keys(&["-l", target]);
        self.keys(&["Enter"]);
    }
}

impl Tmux {
    /// The newest tmux paste buffer (what an OSC 52 copy put there), with `set-clipboard on`.
    pub fn clipboard(&self) -> String {
        let out = Command::new("tmux")
            .args(["show-buffer"])
            .output()
            .expect("show-buffer");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
    /// Lets programs in the pane set the clipboard (OSC 52 becomes a paste buffer).
    pub fn allow_clipboard(&self) {
        assert!(Command::new("tmux")
            .args(["set-option", "-s", "set-clipboard", "on"])
            .status()
            .expect("set-option")
            .success());
    }
}

/// The demo's Step 2 forwards the Maestro API to local port 8002, as the guide writes it, so
/// the tests that start that port-forward take turns: the guard holds the port for one test
/// at a time, and it is taken only once the port is free again (the previous navigator may
/// still be exiting).
pub fn demo_port_8002() -> std::sync::MutexGuard<'static, ()> {
    static PORT: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let guard = PORT.lock().unwrap_or_else(|e| e.into_inner());
    let start = Instant::now();
    while std::net::TcpListener::bind(("127.0.0.1", 8002)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "port 8002 stays taken: something outside these tests listens on it"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    guard
}
