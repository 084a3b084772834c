//! Criterion benchmarks for the native kube backend against `tsgnav::sim` (one server on
//! 127.0.0.1 simulating every cluster):
//!
//! - `kube_fanout/get_pods_A_200_contexts_c32`: `kubectl get pods -A` as a native probe across
//!   200 simulated contexts at concurrency 32 (goal ≤ 2 s per fan-out).
//! - `kube_native_vs_kubectl/{native,kubectl}`: the same `get pods -A` on one context, through
//!   `query::kube::run_kube` and by spawning the real `kubectl` (skipped with a note when
//!   kubectl is not installed); afterwards the ratio kubectl/native is printed as `RATIO:`
//!   (goal ≥ 5).
//!
//! - `MEDIAN:` lines: each form kept native (JSONPath, custom columns, `--sort-by`, names,
//!   wide tables) timed natively and through kubectl, interleaved in the same run.
//!
//! Bench code only; writes nothing outside its temp dir. Run with `cargo bench --bench kube`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use tsgnav::query::kube::{fan_out, parse_script, run_kube, FanOutOptions, KubeCommand};
use tsgnav::sim::{Scenario, Sim};

fn command() -> KubeCommand {
    parse_script("kubectl get pods -A", &BTreeMap::new())
        .expect("native form")
        .remove(0)
}

fn kubectl() -> Option<PathBuf> {
    ["/usr/bin/kubectl", "/usr/local/bin/kubectl"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

fn spawn_kubectl(bin: &Path, kubeconfig: &Path, home: &Path) {
    let out = Command::new(bin)
        .args(["get", "pods", "-A"])
        .env("KUBECONFIG", kubeconfig)
        .env("HOME", home)
        .output()
        .expect("kubectl runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let scenario = Scenario::builtin("swift")
        .expect("scenario")
        .with_clusters(200);
    let sim = rt.block_on(Sim::start(scenario)).expect("sim");
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = sim
        .write_kubeconfig(&dir.path().join("kubeconfig"))
        .expect("kubeconfig");
    let cmd = command();

    let mut g = c.benchmark_group("kube_fanout");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    let opts = FanOutOptions {
        concurrency: 32,
        ..Default::default()
    };
    g.bench_function("get_pods_A_200_contexts_c32", |b| {
        b.iter(|| {
            let f = rt
                .block_on(fan_out(&cmd, &kc, "mc-*", &opts, |_| {}))
                .expect("fan out");
            assert_eq!(f.table.rows.len(), 200 * 8);
        })
    });
    g.finish();

    let mut g = c.benchmark_group("kube_native_vs_kubectl");
    g.sample_size(20).measurement_time(Duration::from_secs(5));
    g.bench_function("native", |b| {
        b.iter(|| rt.block_on(run_kube(&cmd, &kc, None)).expect("native"))
    });
    let bin = kubectl();
    match &bin {
        Some(bin) => {
            g.bench_function("kubectl", |b| {
                b.iter(|| spawn_kubectl(bin, &kc, dir.path()))
            });
        }
        None => eprintln!("note: kubectl not installed; kube_native_vs_kubectl/kubectl skipped"),
    }
    g.finish();

    if let Some(bin) = bin {
        let n = 20;
        let t = Instant::now();
        for _ in 0..n {
            rt.block_on(run_kube(&cmd, &kc, None)).expect("native");
        }
        let native = t.elapsed() / n;
        let t = Instant::now();
        for _ in 0..n {
            spawn_kubectl(&bin, &kc, dir.path());
        }
        let spawned = t.elapsed() / n;
        println!(
            "RATIO: kubectl {spawned:?} / native {native:?} = {:.1}x (goal >= 5x)",
            spawned.as_secs_f64() / native.as_secs_f64()
        );
    }
    if let Some(bin) = kubectl() {
        forms(&rt, &kc, dir.path(), &bin);
    }
    rt.block_on(sim.shutdown());
}

/// The forms kept native (JSONPath with range and filters, custom columns, sorting, names,
/// wide tables), each timed natively and through kubectl in the same run, interleaved; the
/// medians are printed as `MEDIAN:` lines.
fn forms(rt: &tokio::runtime::Runtime, kc: &Path, home: &Path, bin: &Path) {
    let forms: [&[&str]; 6] = [
        &[
            "get",
            "pods",
            "-A",
            "-o",
            "jsonpath={range .items[*]}{.metadata.name}{\"\\n\"}{end}",
        ],
        &[
            "get",
            "deployments",
            "-A",
            "-o",
            "jsonpath={.items[?(@.spec.replicas>0)].metadata.name}",
        ],
        &[
            "get",
            "pods",
            "-A",
            "-o",
            "custom-columns=NAME:.metadata.name,NODE:.spec.nodeName",
        ],
        &["get", "pods", "-A", "--sort-by=.metadata.creationTimestamp"],
        &["get", "pods", "-A", "-o", "name"],
        &["get", "nodes", "-o", "wide", "-L", "agentpool"],
    ];
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    for args in forms {
        let form = format!("kubectl {}", args.join(" "));
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        let cmd = parse_script(&format!("kubectl {}", quoted.join(" ")), &BTreeMap::new())
            .expect("native form")
            .remove(0);
        let (mut native, mut spawned) = (Vec::new(), Vec::new());
        for _ in 0..15 {
            let t = Instant::now();
            rt.block_on(run_kube(&cmd, kc, Some("mc-eastus-1")))
                .expect("native");
            native.push(t.elapsed());
            let t = Instant::now();
            let out = Command::new(bin)
                .args(args)
                .args(["--context", "mc-eastus-1"])
                .env("KUBECONFIG", kc)
                .env("HOME", home)
                .output()
                .expect("kubectl runs");
            assert!(out.status.success(), "{form}");
            spawned.push(t.elapsed());
        }
        let (n, k) = (median(native), median(spawned));
        println!(
            "MEDIAN: {form} | native {n:?} | kubectl {k:?} | {:.1}x",
            k.as_secs_f64() / n.as_secs_f64()
        );
    }
}

criterion_group!(kube, benches);
criterion_main!(kube);
