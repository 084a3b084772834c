//! What the jail costs, measured in one run (a fixed count of runs, alternated, with p50 and
//! p99; not criterion: each run is a process start):
//!
//! - start-up per probe: a `true` shell probe in the jail against today's Landlock-only
//!   sandbox (`[sandbox] jail = false`), alternated run by run;
//! - `kubectl get pods -A` as a shell probe through the jail (its door to the API proxy, the
//!   discovery cache filled by tsgnav and shown read-only) against the same probe under
//!   Landlock alone and against kubectl run directly at the simulator (warm cache).
//!
//! Bench code only: public API; writes only in its temp dir. Needs kubectl for the second
//! part (skips it without). Run with `cargo bench --bench jail` (release) or
//! `cargo bench --bench jail --profile dev`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use tsgnav::query::sandbox::SandboxPolicy;
use tsgnav::query::shell::ShellExecutor;
use tsgnav::query::{
    Bindings, Cancel, Executor, OutputSink, ProbeId, ProbeRequest, Target, DEFAULT_TIMEOUT,
};
use tsgnav::sim::{Scenario, Sim};
use tsgnav::tsg::{Lang, SafetyClass};

const RUNS: usize = 100;

fn pct(v: &mut [Duration], p: usize) -> Duration {
    v.sort();
    v[(v.len() * p / 100).min(v.len() - 1)]
}

fn request(code: &str, kubeconfig: Option<&Path>, context: &str) -> ProbeRequest {
    ProbeRequest {
        id: ProbeId("bench.md#jail/1".into()),
        lang: Lang::Shell,
        code: code.into(),
        bindings: Bindings::new(),
        assigns: Vec::new(),
        timeout: DEFAULT_TIMEOUT,
        target: Target {
            kube_context: kubeconfig.map(|_| context.to_string()),
            kubeconfig: kubeconfig.map(Path::to_path_buf),
            ..Target::default()
        },
        class: SafetyClass::ReadOnly,
        confirmation: None,
    }
}

async fn probe(sh: &ShellExecutor, req: ProbeRequest) -> Duration {
    let t = Instant::now();
    let r = sh
        .run(
            req,
            OutputSink::detached(ProbeId("b".into())),
            Cancel::new(),
        )
        .await;
    let took = t.elapsed();
    assert!(r.status.is_ok(), "{:?}", r.status);
    took
}

fn report(what: &str, a_name: &str, a: &mut [Duration], b_name: &str, b: &mut [Duration]) {
    let (a50, a99, b50, b99) = (pct(a, 50), pct(a, 99), pct(b, 50), pct(b, 99));
    println!(
        "{what}, {} runs each: {a_name} p50 {a50:?} p99 {a99:?}; {b_name} p50 {b50:?} p99 {b99:?}; added at p50 {:?}",
        a.len(),
        b50.saturating_sub(a50)
    );
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let jail = ShellExecutor::default();
    let landlock = ShellExecutor {
        sandbox: SandboxPolicy {
            jail: false,
            ..SandboxPolicy::default()
        },
        ..ShellExecutor::default()
    };
    let (mut without, mut with) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        without.push(rt.block_on(probe(&landlock, request("true", None, ""))));
        with.push(rt.block_on(probe(&jail, request("true", None, ""))));
    }
    report(
        "shell probe `true`",
        "Landlock only",
        &mut without,
        "jail + Landlock",
        &mut with,
    );

    if Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output()
        .is_err()
    {
        eprintln!("SKIP the kubectl part: kubectl is not installed");
        return;
    }
    let _ = rustls::crypto::ring::default_provider().install_default();
    let dir = tempfile::tempdir().expect("tempdir");
    let sim = rt
        .block_on(Sim::start(Scenario::builtin("maestro").expect("scenario")))
        .expect("sim");
    let real = sim
        .write_kubeconfig(&dir.path().join("kubeconfig"))
        .expect("kubeconfig");
    let context = sim.clusters[0].clone();
    let direct = || {
        let t = Instant::now();
        let o = Command::new("kubectl")
            .args(["get", "pods", "-A"])
            .env("KUBECONFIG", &real)
            .env("HOME", dir.path())
            .output()
            .expect("kubectl runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        t.elapsed()
    };
    let code = "kubectl get pods -A";
    // Warm every cache once.
    direct();
    rt.block_on(probe(&jail, request(code, Some(&real), &context)));
    rt.block_on(probe(&landlock, request(code, Some(&real), &context)));
    let runs = RUNS / 2;
    let (mut d, mut l, mut j) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        d.push(direct());
        l.push(rt.block_on(probe(&landlock, request(code, Some(&real), &context))));
        j.push(rt.block_on(probe(&jail, request(code, Some(&real), &context))));
    }
    report(
        &format!("`{code}`"),
        "kubectl direct",
        &mut d,
        "probe in the jail",
        &mut j.clone(),
    );
    report(
        &format!("`{code}` probe"),
        "Landlock only",
        &mut l,
        "jail + Landlock",
        &mut j,
    );
    rt.block_on(sim.shutdown());
}
