//! Criterion benchmarks of the navigator.
//!
//! - `tui/first_frame_corpus`: load every guide of the ARO-HCP corpus (`../shared/corpus/aro-hcp`
//!   beside the checkout, or `TSGNAV_CORPUS`; the bundled `tsg/` when neither exists), build the
//!   app, open the largest node and draw the first frame on a 120×40 TestBackend — what the
//!   operator waits for after pressing Enter. Goal: ≤ 100 ms.
//! - `tui/key_to_frame_10k`: on a node of 10,000 lines, one `j` key through the keymap and
//!   `update()`, then a full frame. Goal: ≤ 16 ms at the 99th percentile; after the criterion
//!   run, 2,000 single key-to-frame samples are taken and their p50/p99 printed.
//! - `tui/rewrap_10k`: the same node drawn at a new width (the once-per-width wrap).
//! - `chart/six_series_10k_points_160`: the lines of a range-query chart of 6 series × 10,000
//!   points at 160 columns (computed once per width and result; must stay well under a frame).
//!
//! Bench code only: public API, TestBackend, no terminal. Run with `cargo bench --bench tui`.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use tsgnav::nav::Cmd;
use tsgnav::tui::frame::FrameState;
use tsgnav::tui::keymap::{parse_keys, Keymap};
use tsgnav::tui::navigate::nav_cmd;
use tsgnav::tui::theme::Theme;
use tsgnav::tui::{update, view, Action, App};

fn corpus_dir() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("TSGNAV_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus/aro-hcp"));
    if corpus.is_dir() {
        corpus
    } else {
        eprintln!(
            "note: corpus not found at {}; benchmarking the bundled tsg/ guides",
            corpus.display()
        );
        root.join("tsg")
    }
}

fn first_frame(dir: &PathBuf) -> usize {
    let (lib, _) = tsgnav::load::load_library(std::slice::from_ref(dir));
    let mut app = App::new(lib, Keymap::bundled(), Theme::bundled(false));
    let largest = app
        .lib
        .guides
        .iter()
        .flat_map(|g| &g.nodes)
        .max_by_key(|n| n.body.len())
        .map(|n| n.id.clone());
    if let Some(id) = largest {
        nav_cmd(&mut app, Cmd::Goto(id));
    }
    let mut term = Terminal::new(TestBackend::new(120, 40)).expect("backend");
    let mut fs = FrameState::default();
    term.draw(|f| view::draw(f, &app, &mut fs)).expect("draw");
    fs.cache.lines.len()
}

/// A guide whose one step is 10,000 lines of prose, lists, tables and code.
fn big_guide() -> String {
    let mut s = String::from("# Big\n\n## Step 1: Huge step\n\n");
    let mut i = 0;
    while s.lines().count() < 10_000 {
        i += 1;
        s.push_str(&format!("Paragraph {i} with **bold**, *emphasis* and `code`, long enough to wrap at eighty columns in the node pane.\n\n"));
        s.push_str(&format!(
            "- item {i} a\n- item {i} b\n\n| col a | col b |\n|---|---|\n| {i} | value {i} |\n\n"
        ));
        s.push_str(&format!(
            "```bash\nkubectl get pods -n ns-{i} -o wide\n```\n\n> **Risk:** line {i}\n\n"
        ));
    }
    s
}

fn big_app() -> App {
    let mut lib = tsgnav::tsg::Library::default();
    lib.guides
        .push(tsgnav::tsg::parse_guide("big.md", &big_guide()));
    let mut app = App::new(lib, Keymap::bundled(), Theme::bundled(false));
    nav_cmd(&mut app, Cmd::Goto("big.md#step-1-huge-step".into()));
    app
}

fn benches(c: &mut Criterion) {
    let dir = corpus_dir();
    let mut g = c.benchmark_group("tui");
    g.sample_size(20);
    g.bench_function("first_frame_corpus", |b| {
        b.iter(|| black_box(first_frame(&dir)))
    });

    let mut app = big_app();
    let mut term = Terminal::new(TestBackend::new(120, 40)).expect("backend");
    let mut fs = FrameState::default();
    term.draw(|f| view::draw(f, &app, &mut fs)).expect("draw");
    update(&mut app, Action::Drawn(fs.viewport));
    eprintln!(
        "10k node: {} source lines, {} wrapped lines at 120 columns",
        app.current_node()
            .map(|n| n.body.text().unwrap_or_default().lines().count())
            .unwrap_or(0),
        fs.cache.lines.len()
    );
    let j = parse_keys("j")[0];
    let k = parse_keys("k")[0];
    let mut down = true;
    let mut step = |app: &mut App, fs: &mut FrameState, term: &mut Terminal<TestBackend>| {
        if app.screen.scroll == 0 || app.screen.scroll > 5000 {
            down = app.screen.scroll == 0;
        }
        update(app, Action::Key(if down { j } else { k }));
        term.draw(|f| view::draw(f, app, fs)).expect("draw");
        update(app, Action::Drawn(fs.viewport));
    };
    g.sample_size(100);
    g.bench_function("key_to_frame_10k", |b| {
        b.iter(|| step(&mut app, &mut fs, &mut term))
    });

    let mut samples: Vec<f64> = (0..2000)
        .map(|_| {
            let t = Instant::now();
            step(&mut app, &mut fs, &mut term);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    samples.sort_by(|a, b| a.total_cmp(b));
    eprintln!(
        "key_to_frame_10k: p50 {:.3} ms, p99 {:.3} ms over {} keys",
        samples[1000],
        samples[1980],
        samples.len()
    );

    let mut width = 100u16;
    g.sample_size(10);
    g.bench_function("rewrap_10k", |b| {
        b.iter(|| {
            width = if width == 100 { 101 } else { 100 };
            let mut t = Terminal::new(TestBackend::new(width, 40)).expect("backend");
            t.draw(|f| view::draw(f, &app, &mut fs)).expect("draw");
        })
    });
    g.finish();
}

/// Six series of 10,000 points each (one a second), a different wave per series.
fn chart_series() -> Vec<tsgnav::tui::app::ChartSeries> {
    (0..6)
        .map(|s| tsgnav::tui::app::ChartSeries {
            label: format!("{{pod=\"router-{s}\"}}"),
            points: (0..10_000)
                .map(|i| {
                    let x = f64::from(i);
                    (
                        1.7e9 + x,
                        (x / (300.0 + 50.0 * f64::from(s))).sin() * 100.0 + x / 100.0,
                    )
                })
                .collect(),
        })
        .collect()
}

fn chart_benches(c: &mut Criterion) {
    let series = chart_series();
    let theme = Theme::bundled(false);
    let mut g = c.benchmark_group("chart");
    g.bench_function("six_series_10k_points_160", |b| {
        b.iter(|| black_box(tsgnav::tui::widgets::chart::lines(&series, 160, &theme)))
    });
    g.finish();
}

criterion_group!(tui, benches, chart_benches);
criterion_main!(tui);
