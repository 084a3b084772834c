//! `[runbooks] node_shell`: a command a guide types on a node runs through a debug pod
//! (`oc debug node/N -- chroot /host sh -c '…'`), gated as a write. The `oc` here is a
//! logging stand-in on PATH, because the simulator cannot run a node debug pod; what it
//! proves is what tsgnav hands to `oc`, and that nothing reaches it without `--write`.

use std::path::Path;

use serde_json::Value;

const NODE: &str = "tests/fixtures/runbooks/run/PodsPending.md#node-checks";

/// Runs `tsgnav run NODE --json` with `config` and the stand-in `oc` first on PATH.
fn run(dir: &Path, config: &str, extra: &[&str]) -> (Option<i32>, String, String) {
    let cfg = dir.join("config.toml");
    std::fs::write(&cfg, config).unwrap();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let oc = bin.join("oc");
    std::fs::write(
        &oc,
        "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$OC_LOG\"\necho 'Starting pod/aks-node-0-debug ...'\necho 'kubelet.service: active (running)'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&oc, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // The stand-in `oc` and its log live in /tmp, which the jail hides: these runs test the
    // node-shell plumbing, not the jail.
    let out = crate::common::bin()
        .env("TSGNAV_JAIL", "off")
        .args([
            "run",
            NODE,
            "--json",
            "--no-evidence",
            "--var",
            "NODE=aks-node-0",
        ])
        .args(extra)
        .current_dir(crate::common::root())
        .env("PATH", path)
        .env("OC_LOG", dir.join("oc.log"))
        .env("TSGNAV_CONFIG", &cfg)
        .env("TSGNAV_STATE_DIR", dir)
        .output()
        .expect("run tsgnav");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn log(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("oc.log")).unwrap_or_default()
}

#[test]
fn node_commands_need_the_config_key_and_a_write_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();

    // No node_shell: refused, and the message names the key that enables it.
    let (code, out, err) = run(d, "", &[]);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    let r = &v["results"][0];
    assert_eq!(
        (code, r["status"].as_str()),
        (Some(3), Some("refused")),
        "{r}"
    );
    let msg = r["error"].as_str().unwrap_or("");
    assert!(
        msg.contains("[runbooks] node_shell = \"oc debug\""),
        "{msg}"
    );
    assert_eq!(log(d), "", "nothing reached oc");

    // node_shell set, read-only run: refused as a write, naming --write; oc not called.
    let cfg = "[runbooks]\nnode_shell = \"oc debug\"\n";
    let (code, out, _) = run(d, cfg, &[]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let r = &v["results"][0];
    assert_eq!(
        (code, r["status"].as_str()),
        (Some(3), Some("refused")),
        "{r}"
    );
    let msg = r["error"].as_str().unwrap_or("");
    assert!(msg.contains("mutating") && msg.contains("--write"), "{msg}");
    assert!(
        msg.contains("oc debug node/aks-node-0 -- chroot /host sh -c 'journalctl -u kubelet -n 20 --no-pager'"),
        "the preview shows what would run: {msg}"
    );
    assert_eq!(log(d), "", "nothing reached oc");

    // Confirmed: the command goes through oc debug on that node, pinned to the context.
    let (code, out, err) = run(
        d,
        cfg,
        &["--write", "--context", "mc-1", "--confirm-target", "mc-1"],
    );
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    let r = &v["results"][0];
    assert_eq!((code, r["status"].as_str()), (Some(0), Some("ok")), "{r}");
    assert_eq!(
        log(d),
        "--context mc-1 debug node/aks-node-0 -- chroot /host sh -c journalctl -u kubelet -n 20 --no-pager\n"
    );
    assert!(
        r["output"]
            .as_str()
            .unwrap_or("")
            .contains("kubelet.service: active"),
        "{r}"
    );
}

#[test]
fn a_bad_node_shell_value_is_a_clear_config_error() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(dir.path(), "[runbooks]\nnode_shell = \"ssh\"\n", &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("config.toml"), "names the file: {err}");
    assert!(
        err.contains("[runbooks] node_shell = \"ssh\"")
            && err.contains("\"oc debug\" or \"kubectl debug\""),
        "{err}"
    );
    assert_eq!(log(dir.path()), "");
    // `tsgnav config check` names the file, the line and the choices.
    let cfg = dir.path().join("config.toml");
    let out = crate::common::bin()
        .args(["config", "check"])
        .arg(&cfg)
        .env("TSGNAV_CONFIG", &cfg)
        .output()
        .expect("run tsgnav config check");
    let err = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "{}:2: [runbooks] node_shell = \"ssh\"",
            cfg.display()
        )),
        "{err}"
    );
}
