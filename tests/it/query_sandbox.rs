//! The kernel sandbox of read-only shell probes (Landlock): a probe the classifier is made to
//! trust (run straight through the shell executor, with no gate in front) still cannot write
//! outside its scratch folder or connect to a port that is not allowed; real kubectl still
//! reads through it; the no-Landlock and turned-off paths are reported in the probe record and
//! in `run --json`, never silent. Needs a kernel with Landlock ABI 4 for the confinement
//! tests (SKIP otherwise, a failure with TSGNAV_REQUIRE_SERVERS=1).

use std::net::TcpListener;
use std::time::{Duration, Instant};

use tsgnav::query::sandbox::{kernel_abi, SandboxPolicy};
use tsgnav::query::shell::ShellExecutor;
use tsgnav::query::{Cancel, Executor, OutputSink, ProbeId, ProbeRequest, ProbeResult};

use super::mitigate_support::request;

/// The Landlock layer alone, as a session that is not isolated has it (the jail on top is
/// tested in `jail_escapes`).
fn shell(policy: SandboxPolicy) -> ShellExecutor {
    ShellExecutor {
        sandbox: SandboxPolicy {
            jail: false,
            ..policy
        },
        ..ShellExecutor::default()
    }
}

/// What every record of these runs starts with: the jail is off.
const UNJAILED: &str =
    "not isolated: the jail is turned off in the config ([sandbox] jail = false); ";
const UNJAILED_ENV: &str = "not isolated: the jail is turned off by TSGNAV_JAIL=off; ";

fn strict() -> SandboxPolicy {
    SandboxPolicy {
        allow_connect_ports: Vec::new(),
        ..SandboxPolicy::default()
    }
}

async fn run(sh: &ShellExecutor, req: ProbeRequest) -> (ProbeResult, String) {
    let r = sh
        .run(
            req,
            OutputSink::detached(ProbeId("x".into())),
            Cancel::new(),
        )
        .await;
    let out = String::from_utf8_lossy(&r.output.read_all().unwrap_or_default()).into_owned();
    let mut r = r;
    r.sandbox = r.sandbox.map(|s| {
        assert!(s.starts_with(UNJAILED), "{s}");
        s[UNJAILED.len()..].to_string()
    });
    (r, out)
}

/// The kernel's Landlock ABI when it enforces TCP rules, else `None` after a SKIP line.
fn landlock_net(test: &str) -> Option<i32> {
    let abi = kernel_abi();
    if abi >= 4 {
        return Some(abi);
    }
    assert!(
        std::env::var("TSGNAV_REQUIRE_SERVERS").as_deref() != Ok("1"),
        "{test}: the kernel has Landlock ABI {abi}, TCP rules need 4"
    );
    eprintln!("SKIP {test}: the kernel has Landlock ABI {abi}; TCP rules need ABI 4");
    None
}

fn listener() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    l.set_nonblocking(true).expect("nonblocking");
    let port = l.local_addr().expect("addr").port();
    (l, port)
}

const PROBE: &str = "touch \"$OUTSIDE/written\" 2>/dev/null && echo WROTE || echo BLOCKED-WRITE\n\
echo ok > \"$TMPDIR/inside\" && echo SCRATCH-OK\n\
(exec 3<>\"/dev/tcp/127.0.0.1/$PORT\") 2>/dev/null && echo CONNECTED || echo BLOCKED-CONNECT\n";

fn probe_req(outside: &std::path::Path, port: u16) -> ProbeRequest {
    let mut req = request(PROBE, "OUTSIDE", &outside.to_string_lossy(), "mc-1", None);
    req.bindings.insert("PORT".into(), port.to_string());
    req.target.kube_context = None;
    req
}

#[tokio::test]
async fn a_trusted_probe_cannot_write_outside_its_scratch_or_reach_a_port_not_allowed() {
    let Some(abi) = landlock_net("a_trusted_probe_cannot_write") else {
        return;
    };
    let outside = tempfile::tempdir().expect("tempdir");
    let (closed, closed_port) = listener();
    let (r, out) = run(&shell(strict()), probe_req(outside.path(), closed_port)).await;
    assert_eq!(
        r.sandbox.as_deref(),
        Some(format!("landlock v{abi} fs+net").as_str())
    );
    assert!(out.contains("BLOCKED-WRITE"), "{out}");
    assert!(
        out.contains("SCRATCH-OK"),
        "the scratch folder is writable: {out}"
    );
    assert!(out.contains("BLOCKED-CONNECT"), "{out}");
    assert!(!outside.path().join("written").exists());
    assert!(
        closed.accept().is_err(),
        "no connection reached the closed port"
    );

    // The same port, allowed in the config: the connection gets through.
    let (open, open_port) = listener();
    let policy = SandboxPolicy {
        allow_connect_ports: vec![open_port],
        ..SandboxPolicy::default()
    };
    let (_, out) = run(&shell(policy), probe_req(outside.path(), open_port)).await;
    assert!(out.contains("CONNECTED"), "{out}");
    assert!(open.accept().is_ok(), "the allowed port was reached");
}

#[tokio::test]
async fn without_landlock_or_with_it_turned_off_the_record_says_so() {
    let outside = tempfile::tempdir().expect("tempdir");
    let (_l, port) = listener();
    let none = SandboxPolicy {
        abi_override: Some(0),
        ..strict()
    };
    let (r, out) = run(&shell(none), probe_req(outside.path(), port)).await;
    assert_eq!(r.sandbox.as_deref(), Some("none: kernel has no Landlock"));
    assert!(
        out.contains("WROTE"),
        "nothing confines it, and the record says so: {out}"
    );
    let off = SandboxPolicy {
        enabled: false,
        ..strict()
    };
    let (r, _) = run(&shell(off), probe_req(outside.path(), port)).await;
    assert_eq!(
        r.sandbox.as_deref(),
        Some("none: turned off in the config ([sandbox] enabled = false)")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_kubectl_reads_the_simulator_from_inside_the_sandbox() {
    if landlock_net("real_kubectl_reads_the_simulator").is_none() {
        return;
    }
    let Some(_) = super::sim_support::kubectl("real_kubectl_reads_the_simulator") else {
        return;
    };
    let sim = super::sim_support::start("maestro", None).await;
    let req = request(
        "kubectl get deploy -n maestro",
        "V",
        "v",
        "mc-eastus-1",
        Some(&sim.kubeconfig),
    );
    let (r, out) = run(&shell(strict()), req).await;
    assert!(r.status.is_ok(), "{:?}: {out}", r.status);
    assert!(out.contains("maestro-agent"), "{out}");
    assert!(r.sandbox.unwrap_or_default().starts_with("landlock"));
}

#[test]
fn run_json_names_the_sandbox_of_every_probe() {
    let node = super::common::root().join("tests/fixtures/sandbox/echo.md#read-only");
    let state = tempfile::tempdir().expect("tempdir");
    let sandbox_of = |abi: Option<&str>| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"));
        cmd.arg("run")
            .arg(&node)
            .arg("--json")
            .env("TSGNAV_CONFIG", "/dev/null")
            .env("TSGNAV_STATE_DIR", state.path())
            .env("TSGNAV_JAIL", "off")
            .env_remove("TSGNAV_SANDBOX_ABI");
        if let Some(a) = abi {
            cmd.env("TSGNAV_SANDBOX_ABI", a);
        }
        let o = cmd.output().expect("tsgnav runs");
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        let s = v["results"][0]["sandbox"].as_str().unwrap_or_default();
        assert!(s.starts_with(UNJAILED_ENV), "{s}");
        s[UNJAILED_ENV.len()..].to_string()
    };
    assert_eq!(sandbox_of(Some("0")), "none: kernel has no Landlock");
    let abi = kernel_abi();
    let want = match abi {
        0 => "none: kernel has no Landlock".to_string(),
        1..=3 => format!("landlock v{abi} fs (no TCP rules: the kernel needs Landlock ABI 4)"),
        _ => format!("landlock v{abi} fs+net"),
    };
    assert_eq!(sandbox_of(None), want);
    // The evidence journal's probe records carry it too.
    let mut seen = Vec::new();
    for session in std::fs::read_dir(state.path()).expect("sessions").flatten() {
        let journal =
            std::fs::read_to_string(session.path().join("journal.jsonl")).expect("journal");
        for line in journal.lines() {
            let rec: serde_json::Value = serde_json::from_str(line).expect("record");
            if rec["type"] == "probe_run" {
                let s = rec["sandbox"].as_str().unwrap_or("<missing>");
                seen.push(s.strip_prefix(UNJAILED_ENV).unwrap_or(s).to_string());
            }
        }
    }
    seen.sort();
    let mut expected = vec!["none: kernel has no Landlock".to_string(), want];
    expected.sort();
    assert_eq!(seen, expected);
}

/// Not a timing assertion: prints what the sandbox adds to a probe's start (median of 15
/// `true` probes with and without it), for the record.
#[tokio::test]
async fn sandbox_start_up_cost_is_printed() {
    if kernel_abi() == 0 {
        return;
    }
    let mut medians = Vec::new();
    for policy in [
        SandboxPolicy {
            enabled: false,
            ..strict()
        },
        strict(),
    ] {
        let sh = shell(policy);
        let mut took = Vec::new();
        for _ in 0..15 {
            let t = Instant::now();
            let (r, _) = run(&sh, request("true", "V", "v", "mc-1", None)).await;
            assert!(r.status.is_ok());
            took.push(t.elapsed());
        }
        took.sort();
        medians.push(took[took.len() / 2]);
    }
    eprintln!(
        "MEASURED: probe start-up median without sandbox {:?}, with Landlock {:?} (+{:?})",
        medians[0],
        medians[1],
        medians[1].saturating_sub(medians[0]).max(Duration::ZERO)
    );
}

/// The API layer under the kernel one: a read-only probe that the executor runs as it is
/// (no classifier in front) reaches the simulator only through the read-only proxy: its
/// delete gets the 403 and is named in its output, a direct connection to the API server's
/// port is blocked, and a kubectl pointed straight at the real kubeconfig cannot connect.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_probe_reaches_the_api_server_only_through_the_proxy() {
    if landlock_net("a_trusted_probe_reaches_the_api_server_only_through_the_proxy").is_none() {
        return;
    }
    let Some(_) = super::sim_support::kubectl("a_trusted_probe_reaches_the_api_server") else {
        return;
    };
    let sim = super::sim_support::start("maestro", None).await;
    let sim_port = sim
        .handle
        .url
        .rsplit(':')
        .next()
        .unwrap_or_default()
        .to_string();
    let pod = "maestro-agent-6c9d8b7f5-hx4tq";
    let code = format!(
        "kubectl get pods -n maestro --no-headers\n\
         kubectl delete pod {pod} -n maestro || echo DELETE-REFUSED\n\
         (exec 3<>\"/dev/tcp/127.0.0.1/$SIMPORT\") 2>/dev/null && echo CONNECTED || echo BLOCKED-CONNECT\n\
         command kubectl --kubeconfig \"$REAL\" get pods -n maestro >/dev/null 2>&1 && echo DIRECT-READ || echo DIRECT-BLOCKED\n"
    );
    let mut req = request(
        &code,
        "SIMPORT",
        &sim_port,
        "mc-eastus-1",
        Some(&sim.kubeconfig),
    );
    req.bindings
        .insert("REAL".into(), sim.kubeconfig.to_string_lossy().into_owned());
    let writes = sim.handle.writes();
    let (r, out) = run(&shell(strict()), req).await;
    assert!(r.sandbox.unwrap_or_default().starts_with("landlock"));
    assert!(out.contains(pod), "reads pass through the proxy: {out}");
    assert!(out.contains("DELETE-REFUSED"), "{out}");
    assert!(
        out.contains("tsgnav: read-only run; confirm this mitigation to change mc-eastus-1"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "tsgnav proxy: refused DELETE /api/v1/namespaces/maestro/pods/{pod}"
        )),
        "{out}"
    );
    assert!(out.contains("BLOCKED-CONNECT"), "{out}");
    assert!(out.contains("DIRECT-BLOCKED"), "{out}");
    assert_eq!(
        sim.handle.writes(),
        writes,
        "no write reached the simulator"
    );
}
