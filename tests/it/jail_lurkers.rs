//! A jailed probe's whole process tree ends with it: children left running with `setsid`,
//! `nohup` or `set -m` are gone when the probe ends, and so are those of a probe that timed
//! out ignoring SIGTERM or was cancelled (the probe is PID 1 of its own namespace, and it
//! dies with the process tsgnav signals). Checked from outside, in `/proc`.

use std::time::{Duration, Instant};

use tsgnav::query::shell::ShellExecutor;
use tsgnav::query::{Cancel, Executor, OutputSink, ProbeError, ProbeId, Status};

use super::jail_escapes::{jail_or_skip, probe, run};

/// Waits up to 3 s for no live `sleep N` of `ns`; how many are left.
fn left_after_wait(ns: &[&str]) -> usize {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left: usize = ns.iter().map(|n| sleepers(n)).sum();
        if left == 0 || Instant::now() >= deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Live processes whose command line is exactly `sleep N`.
fn sleepers(n: &str) -> usize {
    let want = format!("sleep\0{n}\0");
    std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter(|e| {
                    std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c == want.as_bytes())
                })
                .filter(|e| {
                    let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
                    !stat
                        .rsplit(')')
                        .next()
                        .unwrap_or("")
                        .trim_start()
                        .starts_with('Z')
                })
                .count()
        })
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lurker_left_running_dies_with_its_probe() {
    if !jail_or_skip("a_lurker_left_running_dies_with_its_probe") {
        return;
    }
    let code = "setsid sleep 4171 >/dev/null 2>&1 < /dev/null &\n\
                nohup sleep 4172 >/dev/null 2>&1 &\n\
                (set -m; sleep 4173 >/dev/null 2>&1 &)\n\
                disown -a; sleep 0.2; echo left-three\n";
    let (r, out) = run(&ShellExecutor::default(), probe(code, &[])).await;
    assert!(r.status.is_ok(), "{:?} {out}", r.status);
    assert_eq!(
        left_after_wait(&["4171", "4172", "4173"]),
        0,
        "children outlived their probe: {out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_or_cancelled_probe_leaves_nothing_running() {
    if !jail_or_skip("a_timed_out_or_cancelled_probe_leaves_nothing_running") {
        return;
    }
    let sh = ShellExecutor {
        grace: Duration::from_millis(300),
        ..ShellExecutor::default()
    };
    let mut req = probe("trap '' TERM; setsid sleep 4181 & sleep 4182", &[]);
    req.timeout = Duration::from_millis(700);
    let (r, _) = run(&sh, req).await;
    assert!(
        matches!(r.status, Status::Failed(ProbeError::Timeout { .. })),
        "{:?}",
        r.status
    );
    assert_eq!(
        left_after_wait(&["4181", "4182"]),
        0,
        "the timed-out tree is gone"
    );

    let cancel = Cancel::new();
    let running = sh.run(
        probe("nohup sleep 4183 >/dev/null 2>&1 & sleep 4184", &[]),
        OutputSink::detached(ProbeId("x".into())),
        cancel.clone(),
    );
    let (r, ()) = tokio::join!(running, async {
        tokio::time::sleep(Duration::from_millis(400)).await;
        cancel.cancel();
    });
    assert_eq!(r.status, Status::Failed(ProbeError::Cancelled));
    assert_eq!(
        left_after_wait(&["4183", "4184"]),
        0,
        "the cancelled tree is gone"
    );
}
