//! `t` switches a PromQL probe between an instant and a range query and runs it again: the
//! choice is kept per probe, a fenced `{range=…}` probe switches to instant, other kinds of
//! probe are refused with a reason; against the real Prometheus (tmux) the chart appears
//! after `t` and the journal records how each run was asked.

use tsgnav::nav::Effect as NavEffect;
use tsgnav::tsg::{link_library, parse_guide, Library, ProbeRef};
use tsgnav::tui::app::{Item, Live};
use tsgnav::tui::keymap::Keymap;
use tsgnav::tui::navigate::nav_cmd;
use tsgnav::tui::state::QueryMode;
use tsgnav::tui::theme::Theme;
use tsgnav::tui::App;
use tsgnav::tui::Effect;

use crate::servers;
use crate::tui_common::{item_index, keys, Tmux};

const GUIDE: &str = "# Gateway queue\n\n\
## Step 1: Watch the queue depth\n\n\
The depth per gateway, now:\n\n\
```promql\n\
max by (gateway) (gateway_queue_depth)\n\
```\n\n\
Over the last six hours:\n\n\
```promql {range=6h step=5m}\n\
sum(gateway_queue_depth)\n\
```\n\n\
The pods:\n\n\
```bash\n\
kubectl get pods -n gateway\n\
```\n\n\
## Step 2: Compare with yesterday\n\n\
Look at the same hour a day ago.\n";

const STEP: &str = "gateway.md#step-1-watch-the-queue-depth";

fn at_step() -> App {
    let mut lib = Library::default();
    lib.guides.push(parse_guide("gateway.md", GUIDE));
    link_library(&mut lib);
    let mut a = App::new(lib, Keymap::bundled(), Theme::bundled(true));
    a.session.live = Live::Available;
    nav_cmd(&mut a, tsgnav::nav::Cmd::Goto(STEP.into()));
    a
}

fn select(a: &mut App, probe: usize) {
    a.screen.item_sel = item_index(a, |i| matches!(i, Item::Probe(p) if *p == probe));
}

fn reruns(fx: &[Effect], probe: usize) -> bool {
    matches!(fx, [Effect::Nav(NavEffect::RunProbe { probe: p, .. })] if p.index == probe)
}

#[test]
fn t_switches_a_promql_probe_and_runs_it_again() {
    let mut a = at_step();
    select(&mut a, 0);
    let key = ProbeRef::new(STEP, 0);
    let fx = keys(&mut a, "t");
    assert!(reruns(&fx, 0), "{fx:?}");
    assert_eq!(a.probes.modes.get(&key), Some(&QueryMode::Range));
    let fx = keys(&mut a, "t");
    assert!(reruns(&fx, 0), "{fx:?}");
    assert_eq!(a.probes.modes.get(&key), Some(&QueryMode::Instant));
    // The fenced probe is a range query already: `t` makes it an instant one.
    select(&mut a, 1);
    let fx = keys(&mut a, "t");
    assert!(reruns(&fx, 1), "{fx:?}");
    assert_eq!(
        a.probes.modes.get(&ProbeRef::new(STEP, 1)),
        Some(&QueryMode::Instant)
    );
    // A shell probe is not switched and nothing runs; the message says why.
    select(&mut a, 2);
    let fx = keys(&mut a, "t");
    assert!(fx.is_empty(), "{fx:?}");
    let n = a.notice.clone().expect("a message");
    assert!(
        n.is_error() && n.text.contains("Probe 3 is shell") && n.text.contains("only a PromQL"),
        "{}",
        n.text
    );
    assert!(!a.probes.modes.contains_key(&ProbeRef::new(STEP, 2)));
}

#[test]
fn without_a_selected_probe_t_takes_the_first_promql_probe() {
    let mut a = at_step();
    a.screen.item_sel = item_index(&a, |i| !matches!(i, Item::Probe(_)));
    let fx = keys(&mut a, "t");
    assert!(reruns(&fx, 0), "{fx:?}");
    assert_eq!(
        a.probes.modes.get(&ProbeRef::new(STEP, 0)),
        Some(&QueryMode::Range)
    );
}

/// Two gateways' queue depth, one sample a minute for the last two hours.
fn queue_series(end: i64) -> String {
    let mut s = String::from("# TYPE gateway_queue_depth gauge\n");
    for (gw, base) in [("gw-east", 4.0), ("gw-west", 9.0)] {
        for i in (0..120).rev() {
            let t = end - 60 - i * 60;
            let v = base + ((120 - i) as f64 / 10.0).sin() * 3.0 + (120 - i) as f64 / 20.0;
            s.push_str(&format!(
                "gateway_queue_depth{{gateway=\"{gw}\"}} {v:.2} {t}\n"
            ));
        }
    }
    s.push_str("# EOF\n");
    s
}

#[test]
fn t_draws_the_chart_from_the_real_prometheus_and_the_journal_says_how_it_ran() {
    let test = "t_draws_the_chart_from_the_real_prometheus_and_the_journal_says_how_it_ran";
    let now = chrono::Utc::now().timestamp();
    let Some(prom) = servers::prometheus(&queue_series(now), test) else {
        return;
    };
    let Some(t) = Tmux::start_sized("range", 120, 45) else {
        return;
    };
    std::fs::write(
        t.dir.join("config.toml"),
        format!("[query]\nprometheus_url = \"{}\"\n", prom.url),
    )
    .expect("config");
    let guide = t.dir.join("gateway.md");
    std::fs::write(&guide, GUIDE).expect("guide");
    t.send_line(&format!(
        "{} {} --node step-1-watch-the-queue-depth",
        env!("CARGO_BIN_EXE_tsgnav"),
        guide.display()
    ));
    t.wait_for("the step", |s| s.contains("Step 1: Watch the queue depth"));
    let braille = |s: &str| {
        s.chars()
            .filter(|c| ('\u{2801}'..='\u{28ff}').contains(c))
            .count()
    };
    // `t`: the instant probe runs over the last hour and is drawn as a chart.
    t.keys(&["t"]);
    let s = t.wait_for("the chart", |s| {
        s.contains("Probe 1 finished") && braille(s) > 10
    });
    assert!(
        s.contains("{gateway=\"gw-east\"}") && s.contains("{gateway=\"gw-west\"}"),
        "the legend names both series:\n{s}"
    );
    eprintln!("range chart after t:\n{s}");
    // `t` again: an instant query, a table, no chart.
    t.keys(&["t"]);
    let s = t.wait_for("the instant answer", |s| {
        s.contains("Probe 1 finished") && braille(s) == 0
    });
    assert!(s.contains(r#""resultType":"vector""#), "{s}");
    t.quit_unexported();
    t.restored();
    let journal = std::fs::read_to_string(t.only_session().join("journal.jsonl")).expect("journal");
    let runs: Vec<&str> = journal
        .lines()
        .filter(|l| l.contains("gateway_queue_depth"))
        .collect();
    assert_eq!(runs.len(), 2, "two runs recorded:\n{journal}");
    assert!(
        runs[0].contains("Prometheus a range query over the last 1h, step 1m (switched with t)"),
        "{}",
        runs[0]
    );
    assert!(!runs[1].contains("switched with t"), "{}", runs[1]);
}
