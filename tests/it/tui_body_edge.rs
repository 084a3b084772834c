//! Where a warm load's section text is read from disk: only at the edge. A warm load leaves the
//! sections' text in the guides' own files; the navigator's runtime reads in the open guide's
//! before the frame that shows it (and before the search inside it), and the pure code (the
//! view, the search) only ever finds text in memory. A guide nobody opened stays on disk.
//! Real parse cache on disk; the navigator's own loop (`drive`) on a `TestBackend`.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use tsgnav::load::{load_library_cached, Cache};
use tsgnav::nav::Cmd;
use tsgnav::tsg::Library;
use tsgnav::tui::command::Command;
use tsgnav::tui::frame::FrameState;
use tsgnav::tui::keymap::Keymap;
use tsgnav::tui::navigate::nav_cmd;
use tsgnav::tui::runtime::drive::{drive, Screen};
use tsgnav::tui::runtime::{Msg, Options};
use tsgnav::tui::theme::Theme;
use tsgnav::tui::{view, Action, App};

use crate::tui_common::{render_with, screen};

const LONG_A: &str = "Look at the gateway's health first, then at the routes it programs; \
                      every figure below comes from the management cluster.";
const LONG_B: &str = "Routes that vanish after a rollout usually mean the controller lost its \
                      lease; read its logs before restarting anything.";

/// Two guides whose sections are long enough to be left in their files, loaded warm.
fn warm(dir: &Path) -> Library {
    let root = dir.join("guides");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::fs::write(
        root.join("a.md"),
        format!("# Gateway down\n\n{LONG_A}\n\n## Step 1: Look\n\n{LONG_A} Zebrafish.\n"),
    )
    .expect("write");
    std::fs::write(
        root.join("b.md"),
        format!("# Routes\n\n{LONG_B}\n\n## Routes missing\n\n{LONG_B}\n"),
    )
    .expect("write");
    let cache = Cache::with_stamp(dir.join("cache"), "body-edge-test".into());
    let roots = [root];
    let (_, errors, _) = load_library_cached(&roots, Some(&cache));
    assert!(errors.is_empty(), "{errors:?}");
    let (lib, errors, stats) = load_library_cached(&roots, Some(&cache));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(
        stats.cached, 2,
        "the second load reads both guides from the pack"
    );
    assert!(
        lib.guides
            .iter()
            .flat_map(|g| &g.nodes)
            .all(|n| !n.body.is_held()),
        "every section is long enough to stay in its file"
    );
    lib
}

fn held(lib: &Library, guide: &str) -> Vec<bool> {
    let g = lib.guides.iter().find(|g| g.path == guide).expect("guide");
    g.nodes.iter().map(|n| n.body.is_held()).collect()
}

/// What each frame showed, and which guides' text was in memory then.
struct Shot {
    text: String,
    a: Vec<bool>,
    b: Vec<bool>,
}

struct Recording {
    term: Terminal<TestBackend>,
    shots: mpsc::Sender<Shot>,
}

impl Screen for Recording {
    fn draw(&mut self, app: &App, frame: &mut FrameState) -> std::io::Result<()> {
        self.term
            .draw(|f| view::draw(f, app, frame))
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let _ = self.shots.send(Shot {
            text: screen(&self.term),
            a: held(&app.lib, "a.md"),
            b: held(&app.lib, "b.md"),
        });
        Ok(())
    }

    fn handover(
        &mut self,
        _req: &tsgnav::query::ProbeRequest,
    ) -> std::io::Result<tsgnav::query::ProbeResult> {
        Err(std::io::Error::other("no terminal to hand over"))
    }
}

/// The navigator's own loop on `app`: where to send to it, its frames, its thread.
type Looping = (
    mpsc::Sender<Msg>,
    mpsc::Receiver<Shot>,
    std::thread::JoinHandle<std::io::Result<()>>,
);

fn looping(app: App) -> Looping {
    let (tx, rx) = mpsc::channel();
    let (stx, shots) = mpsc::channel();
    let loop_tx = tx.clone();
    let handle = std::thread::spawn(move || {
        let mut screen = Recording {
            term: Terminal::new(TestBackend::new(120, 40)).expect("backend"),
            shots: stx,
        };
        drive(app, Options::default(), &mut screen, (loop_tx, rx))
    });
    (tx, shots, handle)
}

fn quit(tx: mpsc::Sender<Msg>, handle: std::thread::JoinHandle<std::io::Result<()>>) {
    tx.send(Msg::Ui(Action::Command(Command::ForceQuit)))
        .expect("send");
    drop(tx);
    handle
        .join()
        .expect("the loop does not panic")
        .expect("the loop ends cleanly");
}

#[test]
fn the_runtime_reads_in_the_open_guides_text_before_the_frame_and_no_other_guides() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = warm(dir.path());
    let app = App::new(lib, Keymap::bundled(), Theme::bundled(false));
    let (tx, shots, handle) = looping(app);
    let next = || {
        shots
            .recv_timeout(Duration::from_secs(20))
            .expect("a frame")
    };
    let first = next();
    assert!(
        first.a.iter().chain(&first.b).all(|h| !h),
        "nothing is read before a guide is opened"
    );
    let go = Command::Goto("a.md#step-1-look".into());
    tx.send(Msg::Ui(Action::Command(go))).expect("send");
    let shown = loop {
        let s = next();
        if s.text.contains("Step 1: Look") {
            break s;
        }
    };
    assert!(
        shown.text.contains("Zebrafish"),
        "the section's text is drawn:\n{}",
        shown.text
    );
    assert!(!shown.text.contains("Reading this section's text"));
    assert!(shown.a.iter().all(|h| *h), "the open guide is in memory");
    assert!(
        shown.b.iter().all(|h| !h),
        "the other guide stays in its file"
    );
    quit(tx, handle);
}

#[test]
fn a_navigator_that_starts_on_a_guide_draws_its_text_in_the_first_frame() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = warm(dir.path());
    let mut app = App::new(lib, Keymap::bundled(), Theme::bundled(false));
    // As `--node` or an alert lands it: on the step before the loop starts.
    nav_cmd(&mut app, Cmd::Goto("b.md#routes-missing".into()));
    let (tx, shots, handle) = looping(app);
    let first = shots
        .recv_timeout(Duration::from_secs(20))
        .expect("a frame");
    assert!(first.text.contains("controller lost its"), "{}", first.text);
    assert!(!first.text.contains("Reading this section's text"));
    assert!(first.b.iter().all(|h| *h) && first.a.iter().all(|h| !h));
    quit(tx, handle);
}

#[test]
fn the_view_never_reads_from_disk_and_draws_the_text_once_the_edge_has_read_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = warm(dir.path());
    let mut app = App::new(lib, Keymap::bundled(), Theme::bundled(false));
    // Opened through the pure model alone, with no runtime to read the text in.
    nav_cmd(&mut app, Cmd::Goto("a.md#step-1-look".into()));
    let mut frame = FrameState::default();
    let before = screen(&render_with(&mut app, &mut frame, 120, 40));
    assert!(
        before.contains("Reading this section's text from its guide's file"),
        "{before}"
    );
    assert!(!before.contains("Zebrafish"));
    assert!(
        held(&app.lib, "a.md").iter().all(|h| !h),
        "drawing did not fetch"
    );
    // The search inside the guide finds only titles while the text is still on disk.
    let hits = tsgnav::tui::search::guide_hits(&app.lib, 0, "zebrafish", 10);
    assert!(hits.is_empty(), "{hits:?}");
    // The edge reads it in; the same frame state (its render cache) then draws the text.
    tsgnav::load::hold(&app.lib.guides[0]);
    let after = screen(&render_with(&mut app, &mut frame, 120, 40));
    assert!(after.contains("Zebrafish"), "{after}");
    assert!(!after.contains("Reading this section's text"));
    let hits = tsgnav::tui::search::guide_hits(&app.lib, 0, "zebrafish", 10);
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert!(held(&app.lib, "b.md").iter().all(|h| !h));
}

/// `lint` reads a warm load's text in where a rule needs it (through its config, from the
/// command line's edge): an anchor that is an HTML `id` in a long section of the target guide
/// is found cold and warm alike, so the two runs print the same findings.
#[test]
fn lint_finds_an_html_anchor_in_text_left_in_the_pack() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("guides");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::fs::write(
        root.join("errors.md"),
        format!(
            "# Error codes\n\n## Codes\n\n{LONG_A}\n\n<a id=\"error1\"></a>\n\
             Error 1 means the gateway lost its lease. {LONG_B}\n"
        ),
    )
    .expect("write");
    std::fs::write(
        root.join("start.md"),
        "# Start\n\n## Step 1: Read the code\n\nSee [error 1](errors.md#error1) and \
         [nowhere](errors.md#no-such-code).\n",
    )
    .expect("write");
    let run = || {
        let out = crate::common::bin()
            .args(["lint", "--format", "json"])
            .arg(&root)
            .env("TSGNAV_CACHE_DIR", dir.path().join("cache"))
            .output()
            .expect("run lint");
        let text = String::from_utf8(out.stdout).expect("utf-8");
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        let anchors: Vec<String> = v["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["rule"] == "broken-anchor")
            .map(|f| f["message"].to_string())
            .collect();
        (text, anchors)
    };
    let (cold, cold_anchors) = run();
    assert!(
        std::fs::read_dir(dir.path().join("cache"))
            .expect("cache folder")
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "pack")),
        "the first run wrote a pack"
    );
    let (warm, warm_anchors) = run();
    assert_eq!(cold_anchors.len(), 1, "{cold_anchors:?}");
    assert!(cold_anchors[0].contains("no-such-code"), "{cold_anchors:?}");
    assert_eq!(warm_anchors, cold_anchors);
    assert_eq!(warm, cold);
}
