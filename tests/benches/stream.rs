//! Criterion benchmark: keys answered while a probe streams 50 MB.
//!
//! - `stream/key_to_frame_while_50mb`: the navigator's own main loop
//!   (`tui::runtime::drive::drive`, the loop `tsgnav` runs) with the real query engine (the
//!   shell backend, in the jail) and the real evidence recorder, its frames drawn on a 120×40
//!   `TestBackend`. The step's probe, `head -c 50000000 /dev/zero | tr '\0' 'y' | fold -w 100`,
//!   prints 50.5 MB through a real pipe, so chunks arrive at the rate a pipe gives; when it ends
//!   its output is redacted into a blob, and it is started again. Meanwhile `v` (the variables
//!   panel, open or closed) is pressed every 10 ms; each sample is the time from sending the
//!   key into the loop's channel to the frame that shows the panel changed. Goal: p99 ≤ 100 ms.
//!   After the criterion run, the keys of three whole probe runs are sampled and their p50,
//!   p99 and maximum printed, both while the probe prints and while its output is stored.
//!
//! Bench code only: public API, TestBackend, no terminal. The machine's other load shows in
//! the figures. Run with `cargo bench --bench stream`.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use tsgnav::nav::Cmd;
use tsgnav::tui::app::Panel;
use tsgnav::tui::frame::FrameState;
use tsgnav::tui::keymap::{parse_keys, Keymap};
use tsgnav::tui::navigate::nav_cmd;
use tsgnav::tui::runtime::drive::{drive, Screen};
use tsgnav::tui::runtime::{probes::LiveSettings, record::Recorder, Msg, Options};
use tsgnav::tui::theme::Theme;
use tsgnav::tui::{view, Action, App};

/// All the probe prints: 50,000,000 `y`, a newline after every 100 but the last.
const TOTAL: u64 = 50_499_999;

const GUIDE: &str = "# Fifty megabytes\n\n## Step 1: Print a lot\n\n\
Action: print fifty megabytes of lines.\n\n\
```bash\nhead -c 50000000 /dev/zero | tr '\\0' 'y' | fold -w 100\n```\n";

/// What a frame showed, sent after each draw.
struct Report {
    at: Instant,
    vars: bool,
    running: bool,
    /// The most a running probe had printed (0 when none runs).
    bytes: u64,
}

struct BenchScreen {
    term: Terminal<TestBackend>,
    reports: mpsc::Sender<Report>,
}

impl Screen for BenchScreen {
    fn draw(&mut self, app: &App, frame: &mut FrameState) -> std::io::Result<()> {
        self.term
            .draw(|f| view::draw(f, app, frame))
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let bytes = app.probes.streaming.values().map(|s| s.bytes).max();
        let _ = self.reports.send(Report {
            at: Instant::now(),
            vars: app.screen.panel == Panel::Vars,
            running: !app.probes.running.is_empty(),
            bytes: bytes.unwrap_or(0),
        });
        Ok(())
    }

    fn handover(
        &mut self,
        _req: &tsgnav::query::ProbeRequest,
    ) -> std::io::Result<tsgnav::query::ProbeResult> {
        Err(std::io::Error::other(
            "the bench has no terminal to hand over",
        ))
    }
}

/// The bench's side of the loop: sends keys, reads what each frame showed.
struct Driver {
    tx: mpsc::Sender<Msg>,
    reports: mpsc::Receiver<Report>,
    vars: bool,
    running: bool,
    bytes: u64,
    runs: usize,
}

impl Driver {
    fn key(&self, k: &str) {
        let key = parse_keys(k)[0];
        self.tx
            .send(Msg::Ui(Action::Key(key)))
            .expect("the loop runs");
    }

    fn note(&mut self, r: &Report) {
        self.vars = r.vars;
        if self.running && !r.running {
            self.runs += 1;
        }
        self.running = r.running;
        self.bytes = r.bytes;
    }

    fn next(&mut self) -> Report {
        let r = self
            .reports
            .recv_timeout(Duration::from_secs(120))
            .expect("a frame within two minutes");
        self.note(&r);
        r
    }

    /// Starts the probe again when it is not running (and waits until it is).
    fn keep_running(&mut self) {
        while let Ok(r) = self.reports.try_recv() {
            self.note(&r);
        }
        if !self.running {
            self.key("r");
            while !self.next().running {}
        }
    }

    /// Presses `v`; how long until a frame shows the panel changed, and whether the
    /// probe's output was being stored then (it had printed everything).
    fn press(&mut self) -> (Duration, bool) {
        let want = !self.vars;
        let t0 = Instant::now();
        self.key("v");
        loop {
            let r = self.next();
            if r.vars == want {
                return (r.at.duration_since(t0), r.bytes >= TOTAL);
            }
        }
    }
}

fn start(dir: &Path) -> Driver {
    std::fs::create_dir_all(dir.join("guides")).expect("dir");
    std::fs::write(dir.join("guides/fifty.md"), GUIDE).expect("guide");
    std::fs::write(dir.join("config.toml"), "").expect("config");
    // The operator key and the sessions live in the bench's own folder.
    std::env::set_var("TSGNAV_CONFIG", dir.join("config.toml"));
    std::env::set_var("TSGNAV_STATE_DIR", dir.join("state"));
    let (lib, errors) = tsgnav::load::load_library(&[dir.join("guides")]);
    assert!(errors.is_empty(), "{errors:?}");
    let mut app = App::new(lib, Keymap::bundled(), Theme::bundled(false));
    nav_cmd(&mut app, Cmd::Goto("fifty.md#step-1-print-a-lot".into()));
    let opts = Options {
        live: Some(LiveSettings::default()),
        recorder: Some(Recorder::new(dir.join("state"), &[])),
        ..Options::default()
    };
    let (tx, rx) = mpsc::channel();
    let (rtx, reports) = mpsc::channel();
    let loop_tx = tx.clone();
    std::thread::spawn(move || {
        let mut screen = BenchScreen {
            term: Terminal::new(TestBackend::new(120, 40)).expect("backend"),
            reports: rtx,
        };
        drive(app, opts, &mut screen, (loop_tx, rx)).expect("the loop ends cleanly");
    });
    let mut d = Driver {
        tx,
        reports,
        vars: false,
        running: false,
        bytes: 0,
        runs: 0,
    };
    d.next();
    d
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or_default()
}

fn print(what: &str, mut v: Vec<Duration>) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    eprintln!(
        "{what}: {} keys · p50 {:.1} ms · p99 {:.1} ms · max {:.1} ms (goal: p99 ≤ 100 ms)",
        v.len(),
        ms(percentile(&v, 0.50)),
        ms(percentile(&v, 0.99)),
        ms(v.last().copied().unwrap_or_default()),
    );
}

fn benches(c: &mut Criterion) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("bench-stream-{}", std::process::id()));
    let mut d = start(&dir);
    let mut g = c.benchmark_group("stream");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1));
    g.bench_function("key_to_frame_while_50mb", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                d.keep_running();
                total += d.press().0;
                std::thread::sleep(Duration::from_millis(10));
            }
            total
        })
    });
    g.finish();

    // Three whole runs: from the first key of one to the end of the third.
    let (mut printing, mut storing) = (Vec::new(), Vec::new());
    d.keep_running();
    let until = d.runs + 3;
    while d.runs < until {
        d.keep_running();
        if d.runs >= until {
            break;
        }
        let (t, stored) = d.press();
        if stored { &mut storing } else { &mut printing }.push(t);
        std::thread::sleep(Duration::from_millis(10));
    }
    let all: Vec<Duration> = printing.iter().chain(&storing).copied().collect();
    print("while the probe prints 50 MB", printing);
    print("while its output is redacted and stored", storing);
    print("all keys of three runs", all);
    let blobs = std::fs::read_dir(dir.join("state"))
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|s| {
            std::fs::read_dir(s.path().join("blobs"))
                .into_iter()
                .flatten()
        })
        .flatten()
        .count();
    eprintln!("{blobs} blob(s) recorded; session folder {}", dir.display());
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(stream, benches);
criterion_main!(stream);
