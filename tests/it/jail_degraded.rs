//! Where the jail is not built (forced here by `[sandbox] jail = false` or `TSGNAV_JAIL=off`,
//! as on a kernel without user namespaces): every probe record and `run --json` say "not
//! isolated" and why, read-only probes still get Landlock, and `--auto-run` is refused with
//! a message that names the risk. And the jail as an unprivileged user: `tsgnav run` under
//! `setpriv` to uid 65534 still jails its probe (a user namespace maps that uid).

use tsgnav::query::sandbox::SandboxPolicy;
use tsgnav::query::shell::ShellExecutor;

use super::jail_escapes::{jail_or_skip, probe, run};

fn tsgnav(node: &str) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"));
    cmd.arg("run")
        .arg(super::common::root().join(node))
        .arg("--json")
        .env("TSGNAV_CONFIG", "/dev/null")
        .env_remove("TSGNAV_SANDBOX_ABI")
        .env_remove("TSGNAV_JAIL");
    cmd
}

fn sandbox_of(o: &std::process::Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    v["results"][0]["sandbox"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn with_the_jail_turned_off_in_the_config_each_probe_says_not_isolated() {
    let sh = ShellExecutor {
        sandbox: SandboxPolicy {
            jail: false,
            ..SandboxPolicy::default()
        },
        ..ShellExecutor::default()
    };
    let (r, out) = run(&sh, probe("echo $$; hostname", &[])).await;
    assert!(r.status.is_ok(), "{out}");
    let sb = r.sandbox.unwrap_or_default();
    assert!(
        sb.starts_with(
            "not isolated: the jail is turned off in the config ([sandbox] jail = false); landlock"
        ),
        "{sb}"
    );
    assert!(
        !out.starts_with("1\n"),
        "not in a PID namespace of its own: {out}"
    );
}

#[test]
fn tsgnav_jail_off_makes_run_say_not_isolated_and_the_default_says_jail() {
    let state = tempfile::tempdir().expect("tempdir");
    let node = "tests/fixtures/jail/whoami.md#who-am-i";
    let off = tsgnav(node)
        .env("TSGNAV_STATE_DIR", state.path())
        .env("TSGNAV_JAIL", "off")
        .output()
        .expect("runs");
    assert!(
        sandbox_of(&off).starts_with("not isolated: the jail is turned off by TSGNAV_JAIL=off"),
        "{}",
        sandbox_of(&off)
    );
    if !jail_or_skip("tsgnav_jail_off_makes_run_say_not_isolated") {
        return;
    }
    let on = tsgnav(node)
        .env("TSGNAV_STATE_DIR", state.path())
        .output()
        .expect("runs");
    assert!(
        sandbox_of(&on).starts_with("jail (namespaces + seccomp); landlock"),
        "{}",
        sandbox_of(&on)
    );
}

#[test]
fn auto_run_is_refused_when_the_session_is_not_isolated() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .args(["--alertmanager-url", "http://127.0.0.1:9", "--auto-run"])
        .arg(super::common::root().join("tests/fixtures/jail/whoami.md"))
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_JAIL", "off")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("auto-run is refused: shell probes would run not isolated (the jail is turned off by TSGNAV_JAIL=off)"), "{err}");
}

#[test]
fn an_unprivileged_user_gets_the_jail_too() {
    if !jail_or_skip("an_unprivileged_user_gets_the_jail_too") {
        return;
    }
    let Some(setpriv) = super::servers::find_or_skip(
        "setpriv",
        &[std::path::PathBuf::from("/usr/bin/setpriv")],
        "an_unprivileged_user_gets_the_jail_too",
    ) else {
        return;
    };
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIP an_unprivileged_user_gets_the_jail_too: the tests already run unprivileged; every jail test covers that path");
        return;
    }
    let state = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(
        state.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .expect("chmod");
    // The checkout may sit in a folder uid 65534 cannot enter (a fresh clone in a 0700
    // temporary folder): the binary and the guide are copied where that user can read them.
    let bin = state.path().join("tsgnav");
    std::fs::copy(env!("CARGO_BIN_EXE_tsgnav"), &bin).expect("copy the binary");
    let guide = state.path().join("whoami.md");
    std::fs::copy(
        super::common::root().join("tests/fixtures/jail/whoami.md"),
        &guide,
    )
    .expect("copy the guide");
    for f in [&bin, &guide] {
        std::fs::set_permissions(f, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("chmod");
    }
    let o = std::process::Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(&bin)
        .arg("run")
        .arg(format!("{}#who-am-i", guide.display()))
        .arg("--json")
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", state.path())
        .env("HOME", state.path())
        .env("TMPDIR", state.path())
        .env_remove("TSGNAV_JAIL")
        .output()
        .expect("runs");
    let sb = sandbox_of(&o);
    assert!(sb.starts_with("jail (namespaces + seccomp)"), "{sb}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let out = v["results"][0]["output"].as_str().unwrap_or_default();
    assert!(out.starts_with("65534\n"), "{out}");
    assert!(
        out.contains("65534      65534          1"),
        "its own uid mapped, nothing more: {out}"
    );
    assert!(out.contains("tsgnav-jail"), "{out}");
}
