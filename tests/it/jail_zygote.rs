//! The session's zygote (`query::jail::zygote`): tsgnav's own binary exec'd once, which
//! forks each probe's launcher as tsgnav's child. It is the one thing probes now share, so:
//! a probe that signals everything it can see, or looks for the other probes' folders,
//! reaches neither the zygote nor the probe running beside it; and a zygote that was killed
//! is started again for the next probe, which runs as before.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tsgnav::query::jail::{launcher, zygote};
use tsgnav::query::shell::ShellExecutor;

use super::jail_escapes::{jail_or_skip, probe, run};

/// The tests of this file look at the one zygote of the test process: one at a time.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The session's zygote: its pid, checked to be a live child of ours whose argv is
/// `[_, ARG, "zygote"]`.
fn zygote_pid() -> u32 {
    let pid = zygote::pid().expect("a zygote runs once a probe has run");
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let ppid = stat
        .rsplit(')')
        .next()
        .and_then(|s| s.split_whitespace().nth(1));
    assert_eq!(
        ppid,
        Some(std::process::id().to_string().as_str()),
        "{stat}"
    );
    let argv = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let words: Vec<&[u8]> = argv.split(|b| *b == 0).collect();
    assert_eq!(words.get(1), Some(&launcher::ARG.as_bytes()), "{argv:?}");
    assert_eq!(words.get(2), Some(&zygote::ZYGOTE.as_bytes()), "{argv:?}");
    pid
}

/// The scratch folder of this process's probe that made `marker` there.
async fn scratch_with(marker: &str) -> PathBuf {
    let base = tsgnav::query::scratch::base();
    let mine = format!("tsgnav-probe-{}-", std::process::id());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(Instant::now() < deadline, "no probe made {marker}");
        let found = std::fs::read_dir(base).ok().and_then(|d| {
            d.flatten().map(|e| e.path()).find(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(&mine))
                    && p.join(marker).exists()
            })
        });
        match found {
            Some(p) => return p,
            None => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

/// Attack: while probe A waits, probe B kills every process it can see and looks for the
/// other probes' scratch folders where they live outside. A still ends well, with its own
/// output; the zygote is the same process, alive; B saw only its own folder.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_probe_that_signals_everything_it_sees_reaches_neither_the_zygote_nor_its_neighbour() {
    let name =
        "a_probe_that_signals_everything_it_sees_reaches_neither_the_zygote_nor_its_neighbour";
    if !jail_or_skip(name) {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().await;
    let sh = ShellExecutor::default();
    let waiter = "touch \"$TMPDIR/zygote-neighbour\"\n\
                  until [ -e \"$TMPDIR/go\" ]; do sleep 0.02; done; echo A-DONE\n";
    let a = tokio::spawn({
        let sh = sh.clone();
        async move { run(&sh, probe(waiter, &[])).await }
    });
    let a_scratch = scratch_with("zygote-neighbour").await;
    let before = zygote_pid();
    let attacker = "kill -KILL -1 2>/dev/null\n\
                    for p in /proc/[0-9]*; do kill -KILL \"${p#/proc/}\" 2>/dev/null; done\n\
                    echo \"folders $(ls -d \"$(dirname \"$TMPDIR\")\"/tsgnav-* | wc -l)\"\n\
                    cat \"$(dirname \"$TMPDIR\")\"/*/zygote-neighbour /dev/shm/*/zygote-neighbour \
                    /tmp/*/zygote-neighbour 2>/dev/null && echo READ-A\n\
                    echo x > \"$(dirname \"$TMPDIR\")/$(basename \"$A\")/go\" 2>/dev/null && echo WROTE-A\n\
                    echo B-DONE\n";
    let a_name = a_scratch.to_string_lossy().into_owned();
    let (b, b_out) = run(&sh, probe(attacker, &[("A", a_name)])).await;
    assert!(b.status.is_ok(), "{:?}: {b_out}", b.status);
    assert!(b_out.contains("B-DONE"), "{b_out}");
    assert!(
        !b_out.contains("READ-A") && !b_out.contains("WROTE-A"),
        "{b_out}"
    );
    assert!(
        b_out.contains("folders 1\n"),
        "only its own scratch: {b_out}"
    );
    assert!(!a_scratch.join("go").exists(), "B wrote into A's scratch");
    assert_eq!(
        zygote_pid(),
        before,
        "the zygote lives on, the same process"
    );
    std::fs::write(a_scratch.join("go"), "").expect("go");
    let (ra, a_out) = a.await.expect("probe A");
    assert!(ra.status.is_ok(), "{:?}: {a_out}", ra.status);
    assert!(a_out.contains("A-DONE"), "{a_out}");
}

/// A zygote killed between two probes is started again: the next probe runs in its jail as
/// before, through a new zygote.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_zygote_is_started_again_for_the_next_probe() {
    if !jail_or_skip("a_killed_zygote_is_started_again_for_the_next_probe") {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().await;
    let sh = ShellExecutor::default();
    let (r, out) = run(&sh, probe("echo \"one $$\"", &[])).await;
    assert!(
        r.status.is_ok() && out.contains("one 1"),
        "{:?}: {out}",
        r.status
    );
    let first = zygote_pid();
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(first as i32, libc::SIGKILL) };
    let (r, out) = run(&sh, probe("echo \"two $$ $(hostname)\"", &[])).await;
    assert!(r.status.is_ok(), "{:?}: {out}", r.status);
    assert!(out.contains("two 1 tsgnav-jail"), "jailed as before: {out}");
    assert_ne!(zygote_pid(), first, "a new zygote");
}

/// Attack: a probe forked through the zygote looks for a descriptor it was not meant to
/// keep: the zygote's control socket (with it, a probe could ask for launchers of its own
/// making), its own socket pair with tsgnav, or any other socket or descriptor above
/// stderr. Twice, so the second probe comes from a zygote that has already forked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_probe_forked_by_the_zygote_holds_no_descriptor_but_its_three() {
    if !jail_or_skip("a_probe_forked_by_the_zygote_holds_no_descriptor_but_its_three") {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().await;
    let sh = ShellExecutor::default();
    // `ls` lists the shell's table from a child, whose output goes to a file, so the shell
    // itself holds no pipe or folder of its own making while it is listed.
    let lister = "ls -l /proc/$$/fd > \"$TMPDIR/fds\"\n\
                  sed -n 's/.* \\([0-9]*\\) -> \\(.*\\)/fd \\1 \\2/p' \"$TMPDIR/fds\"\n\
                  echo LISTED\n";
    for round in 1..=2 {
        let (r, out) = run(&sh, probe(lister, &[])).await;
        assert!(r.status.is_ok(), "round {round}: {:?}: {out}", r.status);
        assert!(out.contains("LISTED"), "round {round}: {out}");
        let fds: Vec<(&str, &str)> = (out.lines())
            .filter_map(|l| l.strip_prefix("fd "))
            .map(|l| l.split_once(' ').unwrap_or((l, "")))
            .collect();
        assert!(fds.len() >= 3, "round {round}: {out}");
        for (n, target) in &fds {
            assert!(
                ["0", "1", "2"].contains(n),
                "round {round}: fd {n} ({target}) reached the probe:\n{out}"
            );
            assert!(
                !target.starts_with("socket:"),
                "round {round}: fd {n} is a socket ({target}):\n{out}"
            );
        }
        zygote_pid();
    }
}
