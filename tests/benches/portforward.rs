//! Criterion benchmark of the native `kubectl port-forward` (`query::kube::portforward`, kube-rs)
//! against its peer, the real `kubectl port-forward`, both to `svc/maestro` on `tsgnav::sim`:
//! one HTTP GET of `/api/maestro/v1/consumers` on a new connection (so each sample opens a new
//! forwarded stream), and the same GET straight to the simulated Maestro as the floor. The
//! kubectl leg is skipped with a note when kubectl is not installed; afterwards the ratio
//! kubectl/native is printed as `RATIO:`.
//!
//! Bench code only; writes nothing outside its temp dir. Run with
//! `cargo bench --bench portforward`.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use tsgnav::query::kube::KubeExecutor;
use tsgnav::query::{Cancel, Executor, OutputLimits, OutputSink, ProbeId, ProbeRequest, Target};
use tsgnav::sim::{Scenario, Sim};
use tsgnav::tsg::{Lang, SafetyClass};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// One GET on a new connection; panics unless the answer is 200.
fn get(port: u16) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let req = format!(
        "GET /api/maestro/v1/consumers HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n"
    );
    s.write_all(req.as_bytes()).expect("write");
    let mut out = Vec::new();
    s.read_to_end(&mut out).expect("read");
    assert!(
        out.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&out)
    );
}

/// Waits until `port` answers a GET (the forward is up).
fn wait_up(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "port {port} never opened");
        std::thread::sleep(Duration::from_millis(50));
    }
    get(port);
}

fn kubectl() -> Option<PathBuf> {
    ["/usr/bin/kubectl", "/usr/local/bin/kubectl"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let sim = rt
        .block_on(Sim::start(Scenario::builtin("maestro").expect("scenario")))
        .expect("sim");
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = sim
        .write_kubeconfig(&dir.path().join("kubeconfig"))
        .expect("kubeconfig");
    let direct: u16 = sim
        .maestro_url()
        .rsplit(':')
        .next()
        .and_then(|p| p.trim_end_matches('/').parse().ok())
        .expect("the Maestro port");

    let native_port = free_port();
    let req = ProbeRequest {
        id: ProbeId::new("bench.md#forward", 1),
        lang: Lang::Shell,
        code: format!("kubectl port-forward -n maestro svc/maestro {native_port}:8000"),
        bindings: BTreeMap::new(),
        assigns: Vec::new(),
        timeout: Duration::from_secs(3600),
        target: Target {
            kubeconfig: Some(kc.clone()),
            ..Target::default()
        },
        class: SafetyClass::LongRunning,
        confirmation: None,
    };
    let cancel = Cancel::new();
    let ex = KubeExecutor::default();
    let sink = OutputSink::new(req.id.clone(), None, OutputLimits::default());
    let stop = cancel.clone();
    let forward = rt.spawn(async move { ex.run(req, sink, stop).await });
    wait_up(native_port);

    let kubectl_port = free_port();
    let mut child = kubectl().map(|bin| {
        let ch = Command::new(bin)
            .args(["port-forward", "-n", "maestro", "svc/maestro"])
            .arg(format!("{kubectl_port}:8000"))
            .env("KUBECONFIG", &kc)
            .env("HOME", dir.path())
            // Not a pipe: kubectl would die of SIGPIPE once nobody reads it.
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("kubectl starts");
        wait_up(kubectl_port);
        ch
    });

    let mut g = c.benchmark_group("portforward_get");
    g.sample_size(50);
    g.bench_function("direct", |b| b.iter(|| get(direct)));
    g.bench_function("native", |b| b.iter(|| get(native_port)));
    if child.is_some() {
        g.bench_function("kubectl", |b| b.iter(|| get(kubectl_port)));
    } else {
        eprintln!("note: kubectl is not installed; the kubectl leg is skipped");
    }
    g.finish();

    // A plain ratio over the same number of requests, printed for the notes.
    let time = |port: u16| {
        let t = Instant::now();
        for _ in 0..200 {
            get(port);
        }
        t.elapsed()
    };
    let native = time(native_port);
    if let Some(ch) = child.as_mut() {
        let kubectl = time(kubectl_port);
        println!(
            "RATIO: kubectl/native over 200 GETs = {:.2} (native {:?}, kubectl {:?})",
            kubectl.as_secs_f64() / native.as_secs_f64(),
            native,
            kubectl
        );
        let _ = ch.kill();
        let _ = ch.wait();
    }
    cancel.cancel();
    let _ = rt.block_on(forward);
    rt.block_on(sim.shutdown());
}

criterion_group!(portforward, benches);
criterion_main!(portforward);
