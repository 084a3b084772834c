//! `:contexts GLOB` in the navigator: the selected probe runs once per matching kube context
//! through `run --contexts`'s fan-out; a shell pipeline over 3 simulated clusters comes back
//! as one table with a CONTEXT column, labelled and recorded; probes that cannot fan out are
//! refused with the reason; mutating probes, missing values and no selection are said
//! before anything runs.

use tsgnav::tsg::{link_library, parse_guide, Library, ProbeRef};
use tsgnav::tui::app::{Item, Live};
use tsgnav::tui::keymap::Keymap;
use tsgnav::tui::navigate::nav_cmd;
use tsgnav::tui::theme::Theme;
use tsgnav::tui::App;
use tsgnav::tui::Effect;

use crate::tui_common::{item_index, keys, type_text, Tmux};

const GUIDE: &str = "# Router pods\n\n\
## Step 1: Find the router pods that are not running\n\n\
Across every management cluster:\n\n\
```bash\n\
kubectl get pods -A | grep -v Running\n\
```\n\n\
Only one cluster's system pods:\n\n\
```bash\n\
kubectl get pods -n kube-system --context mc-eastus-1 | wc -l\n\
```\n\n\
Nothing of a cluster:\n\n\
```bash\n\
echo the pager rotation is in the wiki\n\
```\n\n\
Restart the router:\n\n\
```bash\n\
kubectl delete pod router-0 -n ${ROUTER_NS}\n\
```\n\n\
One namespace:\n\n\
```bash\n\
kubectl get pods -n ${ROUTER_NS} | grep -v Running\n\
```\n\n\
How many are stuck:\n\n\
```bash\n\
kubectl get pods -A --no-headers | grep -c ContainerCreating\n\
```\n";

const STEP: &str = "routers.md#step-1-find-the-router-pods-that-are-not-running";

fn at_step() -> App {
    let mut lib = Library::default();
    lib.guides.push(parse_guide("routers.md", GUIDE));
    link_library(&mut lib);
    let mut a = App::new(lib, Keymap::bundled(), Theme::bundled(true));
    a.session.live = Live::Available;
    nav_cmd(&mut a, tsgnav::nav::Cmd::Goto(STEP.into()));
    a
}

fn select(a: &mut App, probe: usize) {
    a.screen.item_sel = item_index(a, |i| matches!(i, Item::Probe(p) if *p == probe));
}

fn palette(a: &mut App, line: &str) -> Vec<Effect> {
    keys(a, ":");
    type_text(a, line);
    keys(a, "<Enter>")
}

fn message(a: &App) -> (String, bool) {
    let n = a.notice.clone().expect("a message");
    (n.text.clone(), n.is_error())
}

#[test]
fn contexts_asks_the_runtime_to_fan_the_selected_read_only_probe_out() {
    let mut a = at_step();
    select(&mut a, 0);
    let fx = palette(&mut a, "contexts mc-*");
    match fx.as_slice() {
        [Effect::FanOut {
            probe,
            bindings,
            pattern,
        }] => {
            assert_eq!(probe, &ProbeRef::new(STEP, 0));
            assert!(bindings.is_empty());
            assert_eq!(pattern, "mc-*");
        }
        other => panic!("expected one fan-out, got {other:?}"),
    }
    // The values it needs are bound as for `r`.
    select(&mut a, 4);
    let fx = palette(&mut a, "contexts mc-*");
    assert!(fx.is_empty(), "{fx:?}");
    let (msg, err) = message(&a);
    assert!(
        err && msg.contains("Probe 5 needs ROUTER_NS")
            && msg.contains(":set ROUTER_NS=value, then :contexts mc-* again"),
        "{msg}"
    );
    palette(&mut a, "set ROUTER_NS=routers");
    select(&mut a, 4);
    let fx = palette(&mut a, "contexts mc-*");
    assert!(
        matches!(fx.as_slice(), [Effect::FanOut { bindings, .. }] if bindings.get("ROUTER_NS").map(String::as_str) == Some("routers")),
        "{fx:?}"
    );
}

#[test]
fn contexts_refuses_a_mutating_probe_and_needs_a_selection() {
    let mut a = at_step();
    palette(&mut a, "set ROUTER_NS=routers");
    select(&mut a, 3);
    let fx = palette(&mut a, "contexts mc-*");
    assert!(fx.is_empty(), "{fx:?}");
    let (msg, err) = message(&a);
    assert!(
        err && msg.contains("Probe 4 is mutating")
            && msg.contains(":contexts runs read-only probes only"),
        "{msg}"
    );
    a.screen.item_sel = a.items().len() + 3;
    let fx = palette(&mut a, "contexts mc-*");
    assert!(fx.is_empty(), "{fx:?}");
    let (msg, _) = message(&a);
    assert!(msg.contains("Select a probe first (Tab)"), "{msg}");
    a.session.live = Live::Unavailable("--no-live".into());
    select(&mut a, 0);
    assert!(palette(&mut a, "contexts mc-*").is_empty());
    assert!(message(&a).0.contains("Live queries are unavailable"));
}

/// In a real terminal, over 3 simulated clusters with the real kubectl: one merged table with
/// a CONTEXT column; the journal says it fanned out; own-context and no-kube probes are refused.
#[test]
fn contexts_fans_a_shell_pipeline_out_over_three_simulated_clusters() {
    let test = "contexts_fans_a_shell_pipeline_out_over_three_simulated_clusters";
    if crate::sim_support::kubectl(test).is_none() {
        return;
    }
    let Some(t) = Tmux::start_sized("contexts", 200, 50) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let sim = rt.block_on(crate::sim_support::start("swift", Some(3)));
    std::fs::write(
        t.dir.join("config.toml"),
        format!("[query]\nkubeconfig = \"{}\"\n", sim.kubeconfig.display()),
    )
    .expect("config");
    let guide = t.dir.join("routers.md");
    std::fs::write(&guide, GUIDE).expect("guide");
    t.send_line(&format!(
        "{} {} --node step-1-find-the-router-pods-that-are-not-running",
        env!("CARGO_BIN_EXE_tsgnav"),
        guide.display()
    ));
    t.wait_for("the step", |s| s.contains("Step 1: Find the router pods"));
    let a = at_step();
    let tabs = |p: usize| item_index(&a, |i| matches!(i, Item::Probe(q) if *q == p));
    for _ in 0..tabs(0) {
        t.keys(&["Tab"]);
    }
    t.keys(&[":"]);
    t.keys(&["-l", "contexts mc-*"]);
    t.keys(&["Enter"]);
    let s = t.wait_for("the merged table", |s| {
        s.contains("Probe 1 finished") && s.contains("CONTEXT")
    });
    let contexts: std::collections::BTreeSet<&str> = s
        .lines()
        .filter(|l| l.contains("ContainerCreating"))
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("mc-")))
        .collect();
    assert_eq!(contexts.len(), 3, "rows from all 3 clusters:\n{s}");
    eprintln!("merged table after :contexts:\n{s}");
    // Its own --context: refused with that reason, nothing run once.
    for _ in tabs(0)..tabs(1) {
        t.keys(&["Tab"]);
    }
    t.keys(&[":"]);
    t.keys(&["-l", "contexts mc-*"]);
    t.keys(&["Enter"]);
    t.wait_for("the refusal", |s| {
        s.contains("cannot fan probe 2 out: it names its own target (--context)")
    });
    for _ in tabs(1)..tabs(2) {
        t.keys(&["Tab"]);
    }
    t.keys(&[":"]);
    t.keys(&["-l", "contexts mc-*"]);
    t.keys(&["Enter"]);
    t.wait_for("the refusal", |s| {
        s.contains("cannot fan probe 3 out: it runs no kubectl, oc or helm")
    });
    // A count is no table: one answer per context, each under its label.
    for _ in tabs(2)..tabs(5) {
        t.keys(&["Tab"]);
    }
    t.keys(&[":"]);
    t.keys(&["-l", "contexts mc-*"]);
    t.keys(&["Enter"]);
    t.wait_for("the counts", |s| s.contains("Probe 6 finished"));
    t.keys(&["G"]);
    let s = t.wait_for("three labelled answers", |s| {
        s.matches("── context mc-").count() == 3
    });
    let labelled: Vec<&str> = s.lines().filter(|l| l.contains("── context mc-")).collect();
    for l in &labelled {
        let at = s.find(l).unwrap_or_default();
        let next = s[at..].lines().nth(1).unwrap_or_default();
        assert!(
            next.trim_end().ends_with("⎿ 2"),
            "two stuck pods under {l}:\n{s}"
        );
    }
    t.quit_unexported();
    t.restored();
    let journal = std::fs::read_to_string(t.only_session().join("journal.jsonl")).expect("journal");
    let fanned: Vec<&str> = journal
        .lines()
        .filter(|l| l.contains("fanned out over: mc-"))
        .collect();
    assert_eq!(fanned.len(), 2, "two fanned-out runs recorded:\n{journal}");
    assert!(
        fanned[0].contains("kubectl get pods -A | grep -v Running"),
        "the command as written: {}",
        fanned[0]
    );
    drop(sim);
    drop(rt);
}

/// Esc cancels a fan-out in flight: every context's process is stopped and the probe says
/// it was cancelled.
#[test]
fn esc_cancels_a_fan_out_in_every_context() {
    let test = "esc_cancels_a_fan_out_in_every_context";
    if crate::sim_support::kubectl(test).is_none() {
        return;
    }
    let Some(t) = Tmux::start_sized("contexts-esc", 140, 45) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let sim = rt.block_on(crate::sim_support::start("swift", Some(3)));
    std::fs::write(
        t.dir.join("config.toml"),
        format!("[query]\nkubeconfig = \"{}\"\n", sim.kubeconfig.display()),
    )
    .expect("config");
    // A marker unique to this run, so no other process matches it.
    let marker = format!("sleep 45.{}{}", std::process::id(), crate::common::nanos());
    let guide = t.dir.join("slow.md");
    std::fs::write(
        &guide,
        format!("# Slow\n\n## Step 1: Count then wait\n\n```bash\nkubectl get nodes | wc -l; {marker}\n```\n"),
    )
    .expect("guide");
    t.send_line(&format!(
        "{} {} --node step-1-count-then-wait --no-evidence",
        env!("CARGO_BIN_EXE_tsgnav"),
        guide.display()
    ));
    t.wait_for("the step", |s| s.contains("Step 1: Count then wait"));
    t.keys(&["Tab"]);
    t.keys(&[":"]);
    t.keys(&["-l", "contexts mc-*"]);
    t.keys(&["Enter"]);
    t.wait_for("the fan-out running", |s| {
        s.contains("once per kube context matching mc-*") && s.contains("Esc cancels it")
    });
    let running = |n: usize| {
        let start = std::time::Instant::now();
        loop {
            let out = std::process::Command::new("pgrep")
                .args(["-f", &marker])
                .output()
                .expect("pgrep");
            let count = String::from_utf8_lossy(&out.stdout).lines().count();
            // A wrapping shell may show the marker too: at least one per context, then none.
            if (n == 0 && count == 0) || (n > 0 && count >= n) {
                return;
            }
            assert!(
                start.elapsed() < std::time::Duration::from_secs(30),
                "{count} processes run `{marker}`; wanted {n}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    running(3);
    t.keys(&["Escape"]);
    t.wait_for("the cancelled result", |s| {
        s.contains("Probe 1 was cancelled.")
    });
    running(0);
    t.quit_unexported();
    t.restored();
    drop(sim);
    drop(rt);
}
