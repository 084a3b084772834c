//! Shell backend and runner against the real `bash`: streaming, exit status, captured
//! variables, timeouts and cancellation killing the whole process group, the safety gate,
//! gitui-style replacement of queued requests, background tasks, injection.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tsgnav::query::runner::{Runner, RunnerConfig};
use tsgnav::query::shell::ShellExecutor;
use tsgnav::query::vars::Vars;
use tsgnav::query::{
    Cancel, Event, Executor, OutputSink, ProbeError, ProbeId, ProbeRequest, Status, Target,
};
use tsgnav::tsg::Lang;

pub fn shell_req(id: &str, code: &str) -> ProbeRequest {
    ProbeRequest {
        id: ProbeId(id.into()),
        lang: Lang::Shell,
        code: code.into(),
        bindings: Default::default(),
        assigns: tsgnav::tsg::vars::shell_assigns(code),
        timeout: Duration::from_secs(20),
        target: Target::default(),
        class: tsgnav::safety::classify(code).class,
        confirmation: None,
    }
}

/// These tests watch the probe's processes through files they write in a test folder, so
/// the kernel sandbox (tested in `query_sandbox`) and the jail (tested in `jail_escapes`,
/// where a timed-out or cancelled probe's tree is checked from outside) are off here.
pub fn fast_shell() -> ShellExecutor {
    ShellExecutor {
        grace: Duration::from_millis(500),
        sandbox: tsgnav::query::sandbox::SandboxPolicy {
            enabled: false,
            jail: false,
            ..Default::default()
        },
        ..ShellExecutor::default()
    }
}

/// Whether a process runs (a zombie waiting for a reaper does not).
/// Whether `pid` is gone within 5 s (a killed process may take a moment to be reaped).
fn gone_soon(pid: &str) -> bool {
    let until = Instant::now() + Duration::from_secs(5);
    while alive(pid) {
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

fn alive(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())) {
        Ok(stat) => {
            stat.rsplit(')')
                .next()
                .and_then(|rest| rest.split_whitespace().next())
                != Some("Z")
        }
        Err(_) => false,
    }
}

#[tokio::test]
async fn shell_runs_with_pipefail_and_reports_exit_status() {
    let sh = fast_shell();
    let ok = sh
        .run(
            shell_req("g#a/1", "echo hello; echo err >&2"),
            OutputSink::detached(ProbeId("x".into())),
            Cancel::new(),
        )
        .await;
    assert_eq!(ok.status, Status::Ok { exit: 0 });
    let text = ok.output.text();
    assert!(text.contains("hello") && text.contains("err"), "{text}");
    let bad = sh
        .run(
            shell_req("g#a/2", "false | cat"),
            OutputSink::detached(ProbeId("x".into())),
            Cancel::new(),
        )
        .await;
    assert_eq!(
        bad.status,
        Status::Failed(ProbeError::Exit { code: 1 }),
        "pipefail makes the pipeline fail"
    );
}

#[tokio::test]
async fn assigned_variables_reach_later_probes() {
    let sh = fast_shell();
    let first = shell_req(
        "g#a/1",
        "export HCP_NAMESPACE=ocm-prod-abc\nPOD=$(echo router-0)\necho set",
    );
    let r = sh
        .run(
            first,
            OutputSink::detached(ProbeId("x".into())),
            Cancel::new(),
        )
        .await;
    assert_eq!(
        r.captured.get("HCP_NAMESPACE").map(String::as_str),
        Some("ocm-prod-abc")
    );
    assert_eq!(r.captured.get("POD").map(String::as_str), Some("router-0"));
    let mut vars = Vars::new();
    vars.absorb(&r.captured);
    let code = "echo \"ns=$HCP_NAMESPACE pod=<pod>\"";
    let mut second = shell_req("g#a/2", code);
    second.bindings = vars.resolve(Lang::Shell, code).unwrap();
    let r2 = sh
        .run(
            second,
            OutputSink::detached(ProbeId("x".into())),
            Cancel::new(),
        )
        .await;
    assert_eq!(r2.output.text().trim(), "ns=ocm-prod-abc pod=router-0");
}

#[tokio::test]
async fn a_command_ignoring_sigterm_is_killed_after_the_grace_period() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let code = format!(
        "trap '' TERM; (trap '' TERM; sleep 60) & echo $! > {p}; echo $$ >> {p}; sleep 60",
        p = pids.display()
    );
    let mut req = shell_req("g#a/1", &code);
    req.timeout = Duration::from_millis(700);
    let t = Instant::now();
    let r = fast_shell()
        .run(
            req,
            OutputSink::detached(ProbeId("x".into())),
            Cancel::new(),
        )
        .await;
    let took = t.elapsed();
    assert_eq!(
        r.status,
        Status::Failed(ProbeError::Timeout {
            after: Duration::from_millis(700)
        })
    );
    assert_eq!(r.status.describe(), "timed out after 700 ms");
    assert!(
        took < Duration::from_secs(10),
        "killed, not waited out: {took:?}"
    );
    let written = std::fs::read_to_string(&pids).unwrap();
    for pid in written.lines() {
        assert!(
            gone_soon(pid),
            "process {pid} of the probe's group survived"
        );
    }
    eprintln!(
        "MEASURED: TERM-ignoring probe with 700 ms timeout and 500 ms grace ended after {took:?}"
    );
}

#[tokio::test]
async fn cancelling_kills_the_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let code = format!("sleep 60 & echo $! > {p}; sleep 60", p = pids.display());
    let cancel = Cancel::new();
    let sh = fast_shell();
    let run = sh.run(
        shell_req("g#a/1", &code),
        OutputSink::detached(ProbeId("x".into())),
        cancel.clone(),
    );
    // Cancel only once the background child's pid is written whole: on a loaded machine the
    // shell may take seconds to get there, and a cancel before it proves nothing.
    let written = || {
        std::fs::read_to_string(&pids)
            .ok()
            .filter(|p| p.ends_with('\n'))
    };
    let r = tokio::join!(run, async {
        let until = Instant::now() + Duration::from_secs(30);
        while written().is_none() && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        cancel.cancel();
    })
    .0;
    assert_eq!(r.status, Status::Failed(ProbeError::Cancelled));
    let pid = written().expect("the probe wrote its background child's pid within 30 s");
    assert!(gone_soon(&pid), "background child {pid} was orphaned");
}

#[tokio::test]
async fn injected_values_stay_inert_in_the_shell() {
    let marker = std::env::temp_dir().join(format!("pwned-shell-{}", std::process::id()));
    let m = marker.display();
    let values = [
        format!("x'; touch {m}; echo '"),
        format!("$(touch {m})"),
        format!("`touch {m}`"),
    ];
    for v in &values {
        let code = "echo <node-name> \"<node-name>\" '<node-name>' $NODE; echo \"{region}\"";
        let mut req = shell_req("g#a/1", code);
        req.bindings = [
            ("node-name", v.as_str()),
            ("NODE", v.as_str()),
            ("region", v.as_str()),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let r = fast_shell()
            .run(
                req,
                OutputSink::detached(ProbeId("x".into())),
                Cancel::new(),
            )
            .await;
        assert!(r.status.is_ok(), "{:?}", r.status);
        assert!(
            r.output.text().contains(v.as_str()),
            "the value is printed literally: {}",
            r.output.text()
        );
        assert!(!marker.exists(), "value {v} was executed");
    }
}

pub fn runner(concurrency: usize) -> (Runner, tokio::sync::mpsc::UnboundedReceiver<Event>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let execs: Vec<Arc<dyn Executor>> = vec![Arc::new(fast_shell())];
    (
        Runner::new(
            RunnerConfig {
                concurrency,
                ..RunnerConfig::default()
            },
            execs,
            tx,
        ),
        rx,
    )
}

#[tokio::test]
async fn kube_context_and_kubeconfig_reach_kubectl() {
    let Some(_) =
        super::servers::find_or_skip("kubectl", &[], "kube_context_and_kubeconfig_reach_kubectl")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("kubeconfig");
    let cfg = "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'http://127.0.0.1:1'}\n\
               users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: mc-a\n  context: {cluster: c, user: u}\n\
               - name: mc-b\n  context: {cluster: c, user: u}\ncurrent-context: mc-a\n";
    std::fs::write(&kc, cfg).unwrap();
    let mut req = shell_req(
        "g#k/1",
        "kubectl config view --minify -o jsonpath='{.contexts[0].name}'",
    );
    req.target.kubeconfig = Some(kc.clone());
    req.target.kube_context = Some("mc-b".into());
    let r = fast_shell()
        .run(
            req,
            OutputSink::detached(ProbeId("k".into())),
            Cancel::new(),
        )
        .await;
    assert_eq!(r.status, Status::Ok { exit: 0 }, "{}", r.output.text());
    assert_eq!(
        r.output.text(),
        "mc-b",
        "the chosen context, not the kubeconfig's current one"
    );
    assert!(
        r.command_as_run.ends_with("# kube context 'mc-b'"),
        "{}",
        r.command_as_run
    );
}

#[tokio::test]
async fn large_output_spills_to_disk_and_stays_readable() {
    let r = fast_shell()
        .run(
            shell_req("g#big/1", "seq 1 400000"),
            OutputSink::detached(ProbeId("b".into())),
            Cancel::new(),
        )
        .await;
    assert!(r.status.is_ok());
    let expected: String = (1..=400000).map(|i| format!("{i}\n")).collect();
    assert_eq!(r.output.total(), expected.len() as u64);
    assert!(
        r.output.is_truncated(),
        "more than the 1 MiB kept in memory"
    );
    assert_eq!(r.output.head().len(), 1024 * 1024);
    assert_eq!(
        r.output.read_all().unwrap(),
        expected.as_bytes(),
        "the whole output from the spill file"
    );
    eprintln!(
        "MEASURED: {} bytes of output, {} in memory, spilled to disk",
        r.output.total(),
        r.output.head().len()
    );
}
