//! How a jailed probe starts: through the jail's launcher (tsgnav's own binary exec'd with
//! one argument and no environment), not through a fork of tsgnav. Seen from outside in
//! `/proc` while a probe waits: the probe's process group leader is the launcher, with an
//! empty environment, and its one child is the probe's shell in its own PID namespace, no
//! network but loopback, a scratch `HOME`. And a launcher that is missing, dies or ends
//! early is an error that names it, and the probe's command never runs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tsgnav::query::jail::{self, JailError, Launcher, Spec};
use tsgnav::query::shell::ShellExecutor;

use super::jail_escapes::{jail_or_skip, probe, run};

/// A folder of this test's own (the jail hides /tmp; a file written here is only seen by
/// the jail in its scratch folder, which these tests find through `/proc`).
fn folder(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("jail-launcher")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("test folder");
    d
}

fn ppid(pid: &str) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit(')')
        .next()?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Our children whose argv is `[_, jail::launcher::ARG]`.
fn launchers() -> Vec<String> {
    let me = std::process::id();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|pid| ppid(pid) == Some(me))
        .filter(|pid| {
            let argv = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let mut words = argv.split(|b| *b == 0);
            words.nth(1) == Some(jail::launcher::ARG.as_bytes())
        })
        .collect()
}

fn status_field(pid: &str, field: &str) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field).map(|v| v.trim().to_string()))
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jailed_probe_is_started_by_the_launcher_and_is_still_isolated() {
    if !jail_or_skip("a_jailed_probe_is_started_by_the_launcher_and_is_still_isolated") {
        return;
    }
    let code = "touch \"$TMPDIR/waiting\"; until [ -e \"$TMPDIR/go\" ]; do sleep 0.02; done\n\
                echo \"pid $$\"; echo \"host $(hostname)\"\n\
                echo \"links $(ls /sys/class/net 2>/dev/null | tr '\\n' ' ')\"\n\
                echo \"nets $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ' ')\"\n\
                echo \"home $HOME\"; echo \"operator-home $(ls -A \"$OPERATOR_HOME\" | wc -l)\"";
    let operator_home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let req = probe(code, &[("OPERATOR_HOME", operator_home.clone())]);
    let sh = ShellExecutor::default();
    let running = tokio::spawn(async move { run(&sh, req).await });
    let (launcher, shell, scratch) = waiting_launcher("waiting").await;
    let environ = std::fs::read(format!("/proc/{launcher}/environ")).unwrap_or_default();
    assert!(
        environ.is_empty(),
        "the launcher inherits no environment: {}",
        String::from_utf8_lossy(&environ)
    );
    let nspid = status_field(&shell, "NSpid:");
    assert!(nspid.ends_with("\t1") || nspid.ends_with(" 1"), "{nspid}");
    let cmdline = std::fs::read(format!("/proc/{shell}/cmdline")).unwrap_or_default();
    assert!(
        cmdline.starts_with(b"bash\0-o\0pipefail\0-c\0"),
        "the launcher's child is the probe's shell: {}",
        String::from_utf8_lossy(&cmdline)
    );
    std::fs::write(scratch.join("go"), "").expect("go");
    let (r, out) = running.await.expect("probe task");
    assert!(r.status.is_ok(), "{:?}: {out}", r.status);
    assert!(out.contains("pid 1\n"), "its own PID namespace: {out}");
    assert!(out.contains("host tsgnav-jail\n"), "{out}");
    assert!(
        out.contains("nets lo \n") || out.contains("links lo \n"),
        "loopback only: {out}"
    );
    assert!(
        out.contains(&format!("home {}\n", scratch.join("home").display())),
        "{out}"
    );
    assert!(out.contains("operator-home 0\n"), "{out}");
    assert!(
        r.sandbox
            .unwrap_or_default()
            .starts_with("jail (namespaces + seccomp)"),
        "{out}"
    );
}

/// The launcher whose probe made file `marker` in its scratch folder and waits for "go" there,
/// the probe's shell and that folder: found from outside, no timing, only a safety limit.
/// Each test waits on a marker of its own (tests run side by side).
async fn waiting_launcher(marker: &str) -> (String, String, PathBuf) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(
            Instant::now() < deadline,
            "no launcher with a waiting probe"
        );
        let found = launchers().into_iter().find_map(|l| {
            let kids = std::fs::read_to_string(format!("/proc/{l}/task/{l}/children")).ok()?;
            let shell = kids.split_whitespace().next()?.to_string();
            let env = std::fs::read(format!("/proc/{shell}/environ")).ok()?;
            let tmp = env
                .split(|b| *b == 0)
                .find_map(|v| v.strip_prefix(b"TMPDIR="))
                .map(|v| PathBuf::from(String::from_utf8_lossy(v).into_owned()))?;
            tmp.join(marker).exists().then_some((l, shell, tmp))
        });
        match found {
            Some(f) => return f,
            None => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

/// Attack: a guide variable named like a loader or shell hook (`LD_PRELOAD`, `LD_LIBRARY_PATH`,
/// `BASH_ENV`) must never reach tsgnav's own binary, which runs outside the jail until the
/// launcher has built it; the launcher starts with no environment at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loader_variables_of_a_guide_never_reach_the_launcher() {
    if !jail_or_skip("loader_variables_of_a_guide_never_reach_the_launcher") {
        return;
    }
    let code =
        "touch \"$TMPDIR/waiting-loader\"; until [ -e \"$TMPDIR/go\" ]; do sleep 0.02; done; echo done";
    let req = probe(
        code,
        &[
            ("LD_PRELOAD", "/nonexistent/evil.so".to_string()),
            ("LD_LIBRARY_PATH", "/nonexistent/lib".to_string()),
            ("BASH_ENV", "/nonexistent/hook.sh".to_string()),
        ],
    );
    let sh = ShellExecutor::default();
    let running = tokio::spawn(async move { run(&sh, req).await });
    let (launcher, _shell, scratch) = waiting_launcher("waiting-loader").await;
    let environ = std::fs::read(format!("/proc/{launcher}/environ")).unwrap_or_default();
    for name in ["LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV"] {
        assert!(
            !environ
                .split(|b| *b == 0)
                .any(|v| v.starts_with(format!("{name}=").as_bytes())),
            "{name} reached the launcher: {}",
            String::from_utf8_lossy(&environ)
        );
    }
    assert!(environ.is_empty(), "{}", String::from_utf8_lossy(&environ));
    std::fs::write(scratch.join("go"), "").expect("go");
    let (r, out) = running.await.expect("probe task");
    assert!(out.contains("done"), "{:?}: {out}", r.status);
}

/// A launcher script of the test's own: `body` after `#!/bin/sh`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).expect("script");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    p
}

/// Starts `touch MARK` in a jail through `launcher`; the error, and whether MARK exists.
async fn through(launcher: PathBuf, dir: &Path) -> (JailError, bool) {
    let mark = dir.join("the-probe-ran");
    let scratch = dir.join("scratch");
    std::fs::create_dir_all(&scratch).expect("scratch");
    let mut cmd = tokio::process::Command::new("touch");
    cmd.arg(&mark).env("PATH", "/usr/bin:/bin");
    let entered = jail::enter(Spec::new(&scratch))
        .expect("plan")
        .with_launcher(Launcher { path: launcher });
    let err = match entered.spawn(&cmd).await {
        Ok((mut child, _doors)) => {
            let status = child.wait().await;
            panic!("the probe started without the launcher: {status:?}")
        }
        Err(e) => e,
    };
    // Whatever is left of the launcher's process group is gone by now or never ran touch.
    (err, mark.exists())
}

#[tokio::test]
async fn a_missing_launcher_is_an_error_that_names_it_and_nothing_runs() {
    let dir = folder("missing");
    let gone = dir.join("no-such-tsgnav");
    let (err, ran) = through(gone.clone(), &dir).await;
    let msg = err.to_string();
    assert!(matches!(err, JailError::Launcher { .. }), "{msg}");
    assert!(msg.contains(&gone.display().to_string()), "{msg}");
    assert!(msg.contains("the probe was not run"), "{msg}");
    assert!(!ran, "{msg}");
}

#[tokio::test]
async fn a_launcher_killed_or_ending_early_is_an_error_and_nothing_runs() {
    let dir = folder("early");
    let cases = [
        ("killed", "kill -KILL $$", "killed by signal 9"),
        ("quits", "exit 0", "exit status 0"),
        ("fails", "head -c 8 >/dev/null; exit 3", "exit status 3"),
    ];
    for (name, body, says) in cases {
        let l = script(&dir, name, body);
        let (err, ran) = through(l.clone(), &dir).await;
        let msg = err.to_string();
        assert!(
            matches!(err, JailError::LauncherEnded { .. }),
            "{name}: {msg}"
        );
        assert!(msg.contains(says), "{name}: {msg}");
        assert!(msg.contains(&l.display().to_string()), "{name}: {msg}");
        assert!(msg.contains("the probe was not run"), "{name}: {msg}");
        assert!(!ran, "{name}: {msg}");
    }
}

#[tokio::test]
async fn the_real_launcher_runs_the_probe_only_inside() {
    if !jail_or_skip("the_real_launcher_runs_the_probe_only_inside") {
        return;
    }
    // The same helper as the failing launchers, with tsgnav's own binary: the mark is made
    // in the scratch folder seen from inside, which is the same folder outside.
    let dir = folder("real");
    let scratch = dir.join("scratch");
    std::fs::create_dir_all(&scratch).expect("scratch");
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c")
        .arg("echo $$ > \"$1/pid\"")
        .arg("sh")
        .arg(&scratch)
        .env("PATH", "/usr/bin:/bin");
    let (mut child, _doors) = jail::enter(Spec::new(&scratch))
        .expect("plan")
        .spawn(&cmd)
        .await
        .expect("jailed");
    assert!(child.wait().await.expect("status").success());
    let pid = std::fs::read_to_string(scratch.join("pid")).unwrap_or_default();
    assert_eq!(pid.trim(), "1", "PID 1 of its own namespace");
}

/// The jail's first process is started as `vfork` does (on the launcher's memory, the
/// launcher waiting): a step it fails after the launcher's own (here the exec of a program
/// that does not exist) still reaches tsgnav as that step's error, and the launcher ends.
#[tokio::test]
async fn a_program_the_jails_first_process_cannot_exec_is_that_steps_error() {
    if !jail_or_skip("a_program_the_jails_first_process_cannot_exec_is_that_steps_error") {
        return;
    }
    let dir = folder("noexec");
    let scratch = dir.join("scratch");
    std::fs::create_dir_all(&scratch).expect("scratch");
    let cmd = tokio::process::Command::new("/nonexistent/tsgnav-test-no-such-program");
    match jail::enter(Spec::new(&scratch))
        .expect("plan")
        .spawn(&cmd)
        .await
    {
        Err(JailError::Step { step, source }) => {
            assert_eq!(step, "start the probe's shell");
            assert_eq!(source.raw_os_error(), Some(libc::ENOENT), "{source}");
        }
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("a program that does not exist was started"),
    }
}

/// Attack: tsgnav is started with a descriptor it did not open (here fd 77, a file opened
/// for writing by the shell that starts it, as a terminal multiplexer or a CI runner can
/// leave one). A probe must not see it, and so cannot write through it: in the jail, and in
/// the degraded mode (`TSGNAV_JAIL=off`, Landlock only) too.
#[test]
fn a_descriptor_tsgnav_inherited_never_reaches_a_probe() {
    if !jail_or_skip("a_descriptor_tsgnav_inherited_never_reaches_a_probe") {
        return;
    }
    let dir = folder("inherited-fd");
    let guide = dir.join("fds.md");
    std::fs::write(
        &guide,
        "# Descriptors\n\n## Step 1: list\n\n```bash\n\
         ls /proc/self/fd | tr '\\n' ' '; echo\n\
         echo leaked >&77 && echo WROTE || echo refused\n```\n",
    )
    .expect("guide");
    for jail in ["on", "off"] {
        let outside = dir.join(format!("outside-{jail}.txt"));
        std::fs::write(&outside, "").expect("outside");
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(r#"exec 77>>"$1"; exec "$2" run "$3#step-1-list""#)
            .arg("bash")
            .arg(&outside)
            .arg(env!("CARGO_BIN_EXE_tsgnav"))
            .arg(&guide)
            .env("TSGNAV_JAIL", jail)
            .output()
            .expect("tsgnav run");
        let text = String::from_utf8_lossy(&out.stdout);
        let header = if jail == "on" {
            "[shell] jail"
        } else {
            "[shell] local"
        };
        assert!(text.contains(header), "jail {jail}: {text}");
        // The probe's code is echoed too: look at whole output lines.
        let said = |w: &str| text.lines().any(|l| l.trim() == w);
        assert!(said("refused") && !said("WROTE"), "jail {jail}: {text}");
        let fds = text
            .lines()
            .find(|l| l.starts_with("0 1 2"))
            .unwrap_or_else(|| panic!("the descriptor list: {text}"));
        assert!(
            !fds.split_whitespace().any(|f| f == "77"),
            "jail {jail}: {fds}"
        );
        assert_eq!(
            std::fs::read_to_string(&outside).expect("outside"),
            "",
            "jail {jail}: nothing was written through the inherited descriptor"
        );
    }
}
