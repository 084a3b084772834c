//! Fleet mitigation in waves, end to end: `tsgnav run FILE#step --contexts GLOB --waves …`
//! against `tsgnav::sim` serving 300 management clusters, with the real kubectl. Five
//! clusters are seeded to fail the step's validation (their deployments never settle); the
//! run must stop at the wave that holds the first failure, change nothing past it (writes
//! counted per cluster by the simulator), restore every changed cluster to the count captured
//! before, and journal every context. Also: the plan without --write, a wrong phrase, the
//! `[[policy]]` rules, and a soak that a real Prometheus breaches.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use super::sim_support;

const GUIDE: &str = "tests/fixtures/waves/pause-agent.md";
const STEP: &str = "strategy-scale-the-agent-down";

/// The wave fixture, loaded as the product loads it (with no error).
pub(super) fn fixture() -> tsgnav::tsg::Library {
    let (lib, errors) = tsgnav::load::load_library(&[super::common::root().join(GUIDE)]);
    assert!(errors.is_empty(), "{errors:?}");
    lib
}

/// The fixture's step [`STEP`] in `lib`, and a plan of it over the contexts of `kc` named
/// `mc-*`, in waves of `sizes` at `parallel`.
pub(super) fn plan<'a>(
    lib: &'a tsgnav::tsg::Library,
    kc: &Path,
    sizes: &str,
    parallel: usize,
) -> (
    &'a tsgnav::tsg::Node,
    tsgnav::tui::runtime::waves_plan::Plan,
) {
    use tsgnav::tui::runtime::waves_plan::{self, Ask};
    let node = (lib.guides.iter().flat_map(|g| &g.nodes))
        .find(|n| n.id.ends_with(&format!("#{STEP}")))
        .expect("the step");
    let spec = tsgnav::mitigate::waves::WaveSpec::parse(sizes).expect("sizes");
    let contexts = waves_plan::contexts(Some(kc.to_path_buf()), "mc-*").expect("contexts");
    let plan = waves_plan::build(Ask {
        lib,
        node,
        name: &node.id,
        glob: "mc-*",
        spec: &spec,
        parallel,
        contexts,
        policies: &[],
    })
    .expect("plan");
    (node, plan)
}

async fn tsgnav(state: &Path, config: &Path, kc: &Path, extra: &[&str]) -> Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .args(["run", &format!("{GUIDE}#{STEP}"), "--contexts", "mc-*"])
        .arg("--kubeconfig")
        .arg(kc)
        .args(extra)
        .current_dir(super::common::root())
        .env("TSGNAV_CONFIG", config)
        .env("TSGNAV_STATE_DIR", state)
        .env("HOME", state)
        .output()
        .await
        .expect("tsgnav runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub(super) fn records(state: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for d in std::fs::read_dir(state).expect("state dir").flatten() {
        if let Ok(j) = std::fs::read_to_string(d.path().join("journal.jsonl")) {
            out.extend(
                j.lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok()),
            );
        }
    }
    out
}

pub(super) fn notes(recs: &[Value]) -> Vec<String> {
    recs.iter()
        .filter(|r| r["topic"] == "wave")
        .filter_map(|r| r["text"].as_str().map(String::from))
        .collect()
}

pub(super) async fn spec_replicas(kc: &Path, ctx: &str) -> i32 {
    use k8s_openapi::api::apps::v1::Deployment;
    let client = sim_support::client(kc, Some(ctx)).await;
    let api: kube::Api<Deployment> = kube::Api::namespaced(client, "maestro");
    let d = api.get("maestro-agent").await.expect("deployment");
    d.spec.replicas.unwrap_or(-1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_hundred_contexts_stop_at_the_first_failing_wave_and_restore_every_change() {
    let test = "three_hundred_contexts_stop_at_the_first_failing_wave_and_restore_every_change";
    if sim_support::kubectl(test).is_none() {
        return;
    }
    let mut s = sim_support::scenario("maestro", Some(300));
    let names = s.clusters.clone();
    // Waves of 1, 15 (5%), 60 (20%) and 224: index 40 falls in the third wave.
    let failing: Vec<String> = [40, 100, 150, 200, 250]
        .iter()
        .map(|i| names[*i].clone())
        .collect();
    s.fail_validation = failing.clone();
    let sim = sim_support::start_scenario(s).await;
    let kc = sim.kubeconfig.clone();
    let state = tempfile::tempdir().expect("tempdir");
    let config = state.path().join("config.toml");
    std::fs::write(&config, "").expect("config");
    let before = spec_replicas(&kc, &names[0]).await;
    assert!(before > 0, "the agent runs before the change: {before}");

    // The plan alone: nothing runs.
    let o = tsgnav(state.path(), &config, &kc, &["--waves", "1,5%,20%,rest"]).await;
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    for line in [
        "300 contexts · 4 waves · 32 at a time",
        "wave 1 (canary): 1 ·",
        "wave 2: 15 ·",
        "wave 3: 60 ·",
        "wave 4: 224 ·",
        "agent-stopped",
        "--confirm-target 'mc-* · 300 contexts'",
    ] {
        assert!(err.contains(line), "plan lacks `{line}`:\n{err}");
    }
    // A wrong count typed back: refused, nothing runs.
    let o = tsgnav(
        state.path(),
        &config,
        &kc,
        &[
            "--waves",
            "1,5%,20%,rest",
            "--write",
            "--confirm-target",
            "mc-* · 299 contexts",
        ],
    )
    .await;
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is not `mc-* · 300 contexts`"),
        "{}",
        stderr(&o)
    );
    assert_eq!(sim.handle.writes(), 0, "a refused plan wrote something");

    let o = tsgnav(
        state.path(),
        &config,
        &kc,
        &[
            "--waves",
            "1,5%,20%,rest",
            "--parallel",
            "32",
            "--write",
            "--confirm-target",
            "mc-* · 300 contexts",
            "--on-failure",
            "restore-all",
        ],
    )
    .await;
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{} · failed: validation failed", failing[0])),
        "{err}"
    );
    assert!(
        err.contains("stopped at wave 3/4: 224 contexts in later waves were not changed"),
        "{err}"
    );
    let changed = 1 + 15 + 60;
    for (i, name) in names.iter().enumerate() {
        let w = sim.handle.writes_to(name);
        if i < changed {
            // The scale-down, then the restore.
            assert_eq!(
                w, 2,
                "{name} (index {i}) should be changed and restored, writes {w}"
            );
            assert_eq!(
                spec_replicas(&kc, name).await,
                before,
                "{name} not restored"
            );
        } else {
            assert_eq!(
                w, 0,
                "{name} (index {i}) is past the failing wave but was written to"
            );
        }
    }
    let recs = records(state.path());
    let notes = notes(&recs);
    for name in &names[..changed] {
        let mine: Vec<&String> = notes
            .iter()
            .filter(|n| n.contains(&format!(" · {name} · ")))
            .collect();
        assert!(
            mine.iter().any(|n| n.contains("· restored")),
            "{name}: {mine:?}"
        );
        assert!(
            mine.len() >= 2,
            "{name}: a record for its wave and its restore: {mine:?}"
        );
    }
    // Each change captured the running count first (and each restore, a scale too, the 0).
    let priors = |v: &str| {
        recs.iter()
            .filter(|r| r["type"] == "prior_state" && r["value"] == v)
            .count()
    };
    assert_eq!(
        priors(&before.to_string()),
        changed,
        "one captured count per change"
    );
    assert_eq!(priors("0"), changed, "one capture before each restore");
    assert!(!notes
        .iter()
        .any(|n| n.contains(&format!(" · {} · ", names[changed]))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policies_by_context_name_are_enforced_where_the_run_is_built() {
    let test = "policies_by_context_name_are_enforced_where_the_run_is_built";
    if sim_support::kubectl(test).is_none() {
        return;
    }
    let sim = sim_support::start("maestro", Some(4)).await;
    let kc = sim.kubeconfig.clone();
    let names = sim.handle.clusters.clone();
    let state = tempfile::tempdir().expect("tempdir");
    let config = state.path().join("config.toml");
    let ro = &names[2];
    std::fs::write(
        &config,
        format!("[[policy]]\nmatch = \"{ro}\"\nread_only = true\n"),
    )
    .expect("config");
    let o = tsgnav(state.path(), &config, &kc, &["--waves", "1,rest"]).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("{ro} is read-only by the policy `{ro}`")),
        "{}",
        stderr(&o)
    );

    std::fs::write(&config, "[[policy]]\nmatch = \"mc-*\"\nrequire_waves = true\nmax_wave = 2\nphrase = \"window open\"\n").expect("config");
    let o = tsgnav(state.path(), &config, &kc, &["--waves", "1,rest"]).await;
    let err = stderr(&o);
    assert!(
        err.contains("wave 2: 2 ·") && err.contains("wave 3: 1 ·"),
        "max_wave cuts the rest:\n{err}"
    );
    assert!(
        err.contains("policy mc-*: waves required at most 2 per wave phrase \"window open\""),
        "{err}"
    );
    assert!(err.contains("'mc-* · 4 contexts · window open'"), "{err}");
    // A single confirmed run on a context that requires waves is refused before it runs.
    let single = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .args([
            "run",
            &format!("{GUIDE}#{STEP}"),
            "--context",
            &names[0],
            "--write",
            "--confirm-target",
            &names[0],
        ])
        .arg("--kubeconfig")
        .arg(&kc)
        .current_dir(super::common::root())
        .env("TSGNAV_CONFIG", &config)
        .env("TSGNAV_STATE_DIR", state.path())
        .env("HOME", state.path())
        .output()
        .await
        .expect("tsgnav runs");
    let out = String::from_utf8_lossy(&single.stdout);
    assert_eq!(single.status.code(), Some(3), "{out}");
    assert!(out.contains("requires waves by the policy `mc-*`"), "{out}");
    assert_eq!(sim.handle.writes(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_soak_breach_on_the_real_prometheus_stops_before_the_next_wave() {
    let test = "a_soak_breach_on_the_real_prometheus_stops_before_the_next_wave";
    if sim_support::kubectl(test).is_none() {
        return;
    }
    let Some(prom) = super::servers::prometheus("# TYPE up gauge\nup 1 1\n# EOF\n", test) else {
        return;
    };
    let sim = sim_support::start("maestro", Some(3)).await;
    let kc = sim.kubeconfig.clone();
    let names = sim.handle.clusters.clone();
    let state = tempfile::tempdir().expect("tempdir");
    let config = state.path().join("config.toml");
    std::fs::write(&config, "").expect("config");
    let guide = state.path().join("soak.md");
    // The breach starts 4 s from now: the canary's wave validates, then its soak (60 s long,
    // one evaluation a second) must see the breach and stop the run at once.
    let onset = chrono::Utc::now().timestamp() + 8;
    let text = std::fs::read_to_string(super::common::root().join(GUIDE)).expect("guide");
    let text = text.replace(
        "```bash {name=agent-stopped timeout=20s}",
        &format!("```bash {{name=agent-stopped timeout=20s soak=60s every=1s abort_if=\"vector(time()) > {onset}\"}}"),
    );
    std::fs::write(&guide, text).expect("guide");
    let started = std::time::Instant::now();
    let o = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .args([
            "run",
            &format!("{}#{STEP}", guide.display()),
            "--contexts",
            "mc-*",
            "--waves",
            "1,rest",
        ])
        .args([
            "--write",
            "--confirm-target",
            "mc-* · 3 contexts",
            "--on-failure",
            "restore-wave",
            "--prometheus-url",
            &prom.url,
        ])
        .arg("--kubeconfig")
        .arg(&kc)
        .env("TSGNAV_CONFIG", &config)
        .env("TSGNAV_STATE_DIR", state.path())
        .env("HOME", state.path())
        .output()
        .await
        .expect("tsgnav runs");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("soak breached"), "{err}");
    assert!(
        err.contains(&format!("wave 1/2 · {} · restored", names[0])),
        "{err}"
    );
    // Stopped long before the 60 s soak would have ended.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(40),
        "{err}"
    );
    let breach_eval = err
        .lines()
        .find_map(|l| l.split("soak breached at ").nth(1))
        .and_then(|t| t.split(':').next())
        .and_then(|t| t.parse::<f64>().ok())
        .expect("the breach names the evaluation time");
    let soak_from = err
        .lines()
        .find_map(|l| {
            l.split(" from ")
                .nth(1)
                .filter(|_| l.starts_with("soaking"))
        })
        .and_then(|t| t.split(':').next())
        .and_then(|t| t.parse::<f64>().ok())
        .expect("the soak says when it started");
    let began = soak_from.max(onset as f64);
    assert!(
        breach_eval >= onset as f64,
        "breach seen before it began: {breach_eval} < {onset}"
    );
    // One evaluation a second: the first one after the breach began must catch it (1 s of
    // slack for the query itself on a loaded machine).
    assert!(
        breach_eval - began <= 2.0,
        "the breach was seen {:.1} s after it began:\n{err}",
        breach_eval - began
    );
    for n in &names[1..] {
        assert_eq!(
            sim.handle.writes_to(n),
            0,
            "{n} is in the wave after the breach"
        );
    }
    assert_eq!(
        sim.handle.writes_to(&names[0]),
        2,
        "the canary changed and restored"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_leaves_the_contexts_that_validated_alone() {
    let test = "resume_leaves_the_contexts_that_validated_alone";
    if sim_support::kubectl(test).is_none() {
        return;
    }
    let mut s = sim_support::scenario("maestro", Some(4));
    let names = s.clusters.clone();
    s.fail_validation = vec![names[2].clone()];
    let sim = sim_support::start_scenario(s).await;
    let kc = sim.kubeconfig.clone();
    let state = tempfile::tempdir().expect("tempdir");
    let config = state.path().join("config.toml");
    std::fs::write(&config, "").expect("config");
    let args = [
        "--waves",
        "1,rest",
        "--write",
        "--confirm-target",
        "mc-* · 4 contexts",
    ];
    let o = tsgnav(state.path(), &config, &kc, &args).await;
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let first: Vec<u64> = names.iter().map(|n| sim.handle.writes_to(n)).collect();
    assert_eq!(
        first,
        vec![1, 1, 1, 1],
        "every context of both waves changed once"
    );
    // The export for the incident carries the wave table.
    let out = state.path().join("export");
    let e = std::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .args(["sessions", "export", "latest", "--format", "md", "--out"])
        .arg(&out)
        .env("TSGNAV_CONFIG", &config)
        .env("TSGNAV_STATE_DIR", state.path())
        .env("HOME", state.path())
        .output()
        .expect("export runs");
    assert!(e.status.success(), "{}", String::from_utf8_lossy(&e.stderr));
    // The summary is in the export's own folder inside --out.
    let md = std::fs::read_dir(&out)
        .expect("export folder")
        .flatten()
        .map(|d| d.path().join("summary.md"))
        .find(|p| p.is_file())
        .map(|p| std::fs::read_to_string(p).expect("summary"))
        .expect("a summary.md");
    assert!(
        md.contains("## Waves\n\n4 contexts: 3 ok, 1 failed, 0 restored."),
        "{md}"
    );
    assert!(
        md.contains(&format!(
            "| 2/2 | `{}` | failed | validation failed",
            names[2]
        )),
        "{md}"
    );
    assert!(
        md.contains(&format!("| 1/2 | `{}` | ok |", names[0])),
        "{md}"
    );

    // The left-over context is still stuck: resuming changes it again, and only it.
    let mut again = vec!["--resume", "latest", "--waves", "1,rest", "--write"];
    again.extend(["--confirm-target", "mc-* · 1 context"]);
    let o = tsgnav(state.path(), &config, &kc, &again).await;
    let err = stderr(&o);
    assert!(
        err.contains("resuming: 3 contexts validated in that session"),
        "{err}"
    );
    assert!(
        err.contains(&format!("wave 1 (canary): 1 · {}", names[2])),
        "{err}"
    );
    let second: Vec<u64> = names.iter().map(|n| sim.handle.writes_to(n)).collect();
    assert_eq!(second, vec![1, 1, 2, 1], "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_pauses_after_the_wave_under_way() {
    use tokio::io::AsyncBufReadExt;
    let test = "ctrl_c_pauses_after_the_wave_under_way";
    if sim_support::kubectl(test).is_none() {
        return;
    }
    let sim = sim_support::start("maestro", Some(4)).await;
    let names = sim.handle.clusters.clone();
    let state = tempfile::tempdir().expect("tempdir");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .args([
            "run",
            &format!("{GUIDE}#{STEP}"),
            "--contexts",
            "mc-*",
            "--waves",
            "1",
        ])
        .args([
            "--write",
            "--confirm-target",
            "mc-* · 4 contexts",
            "--kubeconfig",
        ])
        .arg(&sim.kubeconfig)
        .current_dir(super::common::root())
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", state.path())
        .env("HOME", state.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tsgnav starts");
    let pid = child.id().expect("pid") as i32;
    let mut lines = tokio::io::BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut seen = Vec::new();
    while let Ok(Some(l)) = lines.next_line().await {
        let canary_done = l.starts_with("wave 1/4 validated");
        seen.push(l);
        if canary_done {
            // SAFETY: a signal to the child this test started.
            unsafe { libc::kill(pid, libc::SIGINT) };
            break;
        }
    }
    while let Ok(Some(l)) = lines.next_line().await {
        seen.push(l);
    }
    let status = child.wait().await.expect("exit");
    let err = seen.join("\n");
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("go on with --resume"), "{err}");
    // The signal came after the canary: at most the wave under way (the second) ran.
    let writes: Vec<u64> = names.iter().map(|n| sim.handle.writes_to(n)).collect();
    assert_eq!(writes[0], 1, "{err}");
    assert_eq!(
        &writes[2..],
        &[0, 0],
        "no wave after the one under way: {err}"
    );
}
