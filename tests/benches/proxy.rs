//! What the read-only API proxy and the kernel sandbox cost, measured in one run against the
//! simulator with the real `kubectl` (a fixed count of runs and their medians, not criterion:
//! each run is a process start):
//!
//! - `kubectl get pods -A` straight at the simulator vs through the proxy (one pass, so both
//!   keep kubectl's discovery cache), alternated run by run, median of 50 each, and the ratio
//!   (goal ≤ 1.2×);
//! - the same command as a whole shell probe through tsgnav's shell executor (a fresh pass,
//!   kubeconfig and discovery cache per probe, under Landlock);
//! - the sandbox's start-up cost per probe: a `true` probe with the sandbox off vs on.
//!
//! Bench code only: public API; writes only in its temp dir. Needs kubectl (skips without).
//! Run with `cargo bench --bench proxy` (release) or `cargo bench --bench proxy --profile dev`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use tsgnav::query::proxy::Proxy;
use tsgnav::query::sandbox::SandboxPolicy;
use tsgnav::query::shell::ShellExecutor;
use tsgnav::query::{
    Bindings, Cancel, Executor, OutputSink, ProbeId, ProbeRequest, Target, DEFAULT_TIMEOUT,
};
use tsgnav::sim::{Scenario, Sim};
use tsgnav::tsg::{Lang, SafetyClass};

const RUNS: usize = 50;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn kubectl(kubeconfig: &Path, home: &Path) -> Duration {
    let t = Instant::now();
    let o = Command::new("kubectl")
        .args(["get", "pods", "-A"])
        .env("KUBECONFIG", kubeconfig)
        .env("HOME", home)
        .output()
        .expect("kubectl runs");
    let took = t.elapsed();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    took
}

fn request(code: &str, kubeconfig: &Path, context: &str) -> ProbeRequest {
    ProbeRequest {
        id: ProbeId("bench.md#proxy/1".into()),
        lang: Lang::Shell,
        code: code.into(),
        bindings: Bindings::new(),
        assigns: Vec::new(),
        timeout: DEFAULT_TIMEOUT,
        target: Target {
            kube_context: Some(context.into()),
            kubeconfig: Some(kubeconfig.to_path_buf()),
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

fn main() {
    if Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output()
        .is_err()
    {
        eprintln!("SKIP proxy bench: kubectl is not installed");
        return;
    }
    let _ = rustls::crypto::ring::default_provider().install_default();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    let scenario = Scenario::builtin("maestro").expect("scenario");
    let sim = rt.block_on(Sim::start(scenario)).expect("sim");
    let real = sim
        .write_kubeconfig(&dir.path().join("kubeconfig"))
        .expect("kubeconfig");
    let context = sim.clusters[0].clone();
    let proxy = rt.block_on(Proxy::start()).expect("proxy");
    let grant = rt
        .block_on(proxy.grant(&real, Some(&context), false))
        .expect("grant");
    let proxied = dir.path().join("proxied");
    grant.write_kubeconfig(&proxied).expect("write");
    let home = dir.path();

    // Warm kubectl's discovery cache for both servers, then alternate.
    kubectl(&real, home);
    kubectl(&proxied, home);
    let (mut direct, mut through) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        direct.push(kubectl(&real, home));
        through.push(kubectl(&proxied, home));
    }
    let (d, p) = (median(direct), median(through));
    println!(
        "kubectl get pods -A, median of {RUNS}: direct {d:?}, through the proxy {p:?}, ratio {:.3}",
        p.as_secs_f64() / d.as_secs_f64()
    );

    let on = ShellExecutor {
        sandbox: SandboxPolicy::default(),
        ..ShellExecutor::default()
    };
    let off = ShellExecutor {
        sandbox: SandboxPolicy {
            enabled: false,
            ..SandboxPolicy::default()
        },
        ..ShellExecutor::default()
    };
    let code = "kubectl get pods -A";
    let mut whole = Vec::new();
    for _ in 0..RUNS {
        whole.push(rt.block_on(probe(&on, request(code, &real, &context))));
    }
    println!(
        "shell probe `{code}` (fresh pass, kubeconfig and discovery cache, Landlock), median of {RUNS}: {:?}",
        median(whole)
    );
    let mut grants = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        let g = rt.block_on(proxy.grant(&real, Some(&context), false));
        grants.push(t.elapsed());
        assert!(g.is_ok());
    }
    println!(
        "a pass (the upstream client is reused after the first), median of {RUNS}: {:?}",
        median(grants)
    );
    let mut shells = Vec::new();
    for _ in 0..RUNS {
        shells.push(rt.block_on(probe(&on, request("true; : kubectl", &real, &context))));
    }
    println!(
        "shell probe `true` that names kubectl (pass, kubeconfig, no request), median of {RUNS}: {:?}",
        median(shells)
    );
    let (mut without, mut with) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        without.push(rt.block_on(probe(&off, request("true", &real, &context))));
        with.push(rt.block_on(probe(&on, request("true", &real, &context))));
    }
    let (a, b) = (median(without), median(with));
    println!(
        "shell probe `true`, median of {RUNS}: sandbox off {a:?}, Landlock {b:?} ({} {:?})",
        if b >= a { "+" } else { "-" },
        b.abs_diff(a)
    );
    drop(grant);
    drop(proxy);
    rt.block_on(sim.shutdown());
}
