//! The red-team corpus (`tests/fixtures/redteam/`): well over 150 forms that change a cluster,
//! a tool's state or local files while reading as harmless (or plainly), run through the
//! built `tsgnav run` WITHOUT `--write`, against the real `kubectl` and the simulator, with
//! logging stand-ins for the other tools first on PATH and a work folder (cwd and HOME) seeded
//! with the files the forms name. Nothing may change: no write request reaches the simulator,
//! no stand-in is called, the work folder is byte-for-byte as before, and every form is
//! reported refused (exit 3).
//! A second corpus points probes at another cluster in a confirmed write run: refused, and
//! neither cluster sees a write.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::sim_support::BlockingSim;

const FILES: &[&str] = &["kubectl", "shell", "files", "tools", "nesting"];

/// Tools replaced by a script that only logs its arguments, to a file and to stderr (a
/// read-only probe runs in the kernel sandbox, where only the stderr line gets out). The real
/// ones would change this machine or a remote system when run, even as a test failure.
const STAND_INS: &[&str] = &[
    "az",
    "helm",
    "oc",
    "wget",
    "systemctl",
    "docker",
    "git",
    "ssh",
    "psql",
    "make",
    "sudo",
    "python3",
    "ip",
    "ifconfig",
    "hostname",
    "hostnamectl",
    "timedatectl",
    "date",
    "sysctl",
    "ss",
];

struct Bench {
    _dir: tempfile::TempDir,
    work: PathBuf,
    bin: PathBuf,
    log: PathBuf,
    state: PathBuf,
}

fn bench() -> Bench {
    let dir = tempfile::tempdir().expect("tempdir");
    let work = dir.path().join("work");
    let bin = dir.path().join("bin");
    let state = dir.path().join("state");
    for d in [&work, &bin, &state] {
        std::fs::create_dir(d).expect("mkdir");
    }
    let log = dir.path().join("tools.log");
    for name in STAND_INS {
        let p = bin.join(name);
        std::fs::write(
            &p,
            "#!/bin/sh\necho \"stand-in called: $(basename \"$0\") $*\" >&2\n\
             echo \"$(basename \"$0\") $*\" >> \"$REDTEAM_LOG\"\n",
        )
        .expect("stand-in");
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    // The files the forms name, so a form that slipped through would really act on them.
    let seeds = [
        ("notes.txt", "a note\n"),
        ("values.yaml", "a: 0\n"),
        (
            "manifest.yaml",
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: redteam}\n",
        ),
        ("steps.sh", "touch steps-ran\n"),
        ("evil.sh", "touch bash-env-ran\n"),
        ("prog.awk", "BEGIN { system(\"touch prog-ran\") }\n"),
        ("script.sed", "1w sed-script-out\n"),
        ("curlrc", "request = \"DELETE\"\n"),
        ("ip-cmds", "link set lo down\n"),
        ("name", "redteam\n"),
    ];
    for (name, text) in seeds {
        std::fs::write(work.join(name), text).expect("seed");
    }
    let tar = Command::new("tar")
        .args(["-cf", "archive.tar", "notes.txt"])
        .current_dir(&work)
        .status()
        .expect("tar");
    assert!(tar.success());
    Bench {
        _dir: dir,
        work,
        bin,
        log,
        state,
    }
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.is_dir() => {
                    out.insert(p.clone(), Vec::new());
                    stack.push(p);
                }
                _ => {
                    let bytes = std::fs::read(&p).unwrap_or_else(|_| b"<unreadable>".to_vec());
                    out.insert(p, bytes);
                }
            }
        }
    }
    out
}

/// `tsgnav run FILE#forms --json ARGS…` in the bench; returns (exit code, results).
fn run(b: &Bench, file: &Path, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, Vec<Value>) {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![b.bin.clone()];
    paths.extend(std::env::split_paths(&path));
    let o = Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .arg("run")
        .arg(format!("{}#forms", file.display()))
        .arg("--json")
        .args(args)
        .current_dir(&b.work)
        .env("PATH", std::env::join_paths(paths).expect("PATH"))
        .env("HOME", &b.work)
        .env("REDTEAM_LOG", &b.log)
        .env("TSGNAV_CONFIG", "/dev/null")
        // tsgnav's own signing key lives outside the watched work folder.
        .env("XDG_CONFIG_HOME", b.state.join("config"))
        .env("TSGNAV_STATE_DIR", &b.state)
        .envs(env.iter().copied())
        .output()
        .expect("tsgnav runs");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: {e}\n{}\n{}",
            file.display(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    let results = v["results"].as_array().cloned().unwrap_or_default();
    (o.status.code(), results)
}

fn fixture(name: &str) -> PathBuf {
    super::common::root()
        .join("tests/fixtures/redteam")
        .join(format!("{name}.md"))
}

#[test]
fn no_red_team_form_changes_anything_in_a_read_only_run() {
    let Some(sim) = BlockingSim::start("maestro", "safety_redteam") else {
        return;
    };
    let b = bench();
    let before = snapshot(&b.work);
    let replicas = sim.agent_replicas(None);
    let kc = sim.kubeconfig().to_string_lossy().into_owned();
    let url = sim.url();
    let mut total = 0;
    let mut ran = Vec::new();
    for f in FILES {
        let file = fixture(f);
        let (code, results) = run(
            &b,
            &file,
            &["--kubeconfig", &kc, "--context", "mc-eastus-1"],
            &[("SIM", &url)],
        );
        total += results.len();
        for r in &results {
            let output = r["output"].as_str().unwrap_or_default();
            if output.contains("stand-in called") {
                ran.push(format!("{}: {output}", r["probe"]));
            }
            if r["status"] != "refused" {
                ran.push(format!(
                    "{}: {} → {}",
                    r["probe"], r["command"], r["status"]
                ));
            }
        }
        assert_eq!(code, Some(3), "{f}: a run with refusals exits 3");
    }
    assert!(total >= 150, "only {total} red-team forms");
    let writes = sim.sim.as_ref().expect("running").handle.writes();
    let log = std::fs::read_to_string(&b.log).unwrap_or_default();
    let after = snapshot(&b.work);
    let changed: Vec<_> = after
        .iter()
        .filter(|(p, bytes)| before.get(*p) != Some(*bytes))
        .map(|(p, _)| p.display().to_string())
        .chain(
            before
                .keys()
                .filter(|p| !after.contains_key(*p))
                .map(|p| format!("{} (removed)", p.display())),
        )
        .collect();
    assert!(
        ran.is_empty(),
        "forms that were not refused:\n{}",
        ran.join("\n")
    );
    assert_eq!(writes, 0, "write requests reached the simulator");
    assert!(log.is_empty(), "stand-ins were called:\n{log}");
    assert!(changed.is_empty(), "files changed: {changed:?}");
    assert_eq!(sim.agent_replicas(None), replicas);

    // Control: the same detectors see each kind of change when one is confirmed. It runs
    // without the jail, which would stop its local write and hide the stand-ins (in /tmp).
    let (code, results) = run(
        &b,
        &fixture("control"),
        &[
            "--kubeconfig",
            &kc,
            "--context",
            "mc-eastus-1",
            "--write",
            "--confirm-target",
            "mc-eastus-1",
        ],
        &[("TSGNAV_JAIL", "off")],
    );
    assert_eq!(code, Some(0), "{results:?}");
    assert!(
        b.work.join("control-file").exists(),
        "a local write is seen"
    );
    assert!(
        sim.sim.as_ref().expect("running").handle.writes() > 0,
        "a cluster write is seen"
    );
    let log = std::fs::read_to_string(&b.log).unwrap_or_default();
    assert!(
        log.contains("uninstall redteam-control"),
        "a stand-in call is seen: {log:?}"
    );
}

#[test]
fn a_probe_aimed_at_another_cluster_is_refused_in_a_confirmed_write_run() {
    let Some(sim) = BlockingSim::start("maestro", "safety_redteam_targets") else {
        return;
    };
    let Some(other) = BlockingSim::start("maestro", "safety_redteam_targets") else {
        return;
    };
    let b = bench();
    let kc = sim.kubeconfig().to_string_lossy().into_owned();
    let other_kc = other.kubeconfig().to_string_lossy().into_owned();
    let (code, results) = run(
        &b,
        &fixture("targets"),
        &[
            "--kubeconfig",
            &kc,
            "--context",
            "mc-eastus-1",
            "--write",
            "--confirm-target",
            "mc-eastus-1",
        ],
        &[("OTHER_URL", &other.url()), ("OTHER_KC", &other_kc)],
    );
    assert_eq!(code, Some(3));
    assert!(results.len() >= 8, "{results:?}");
    for r in &results {
        assert_eq!(r["status"], "refused", "{r}");
        let e = r["error"].as_str().unwrap_or_default();
        assert!(
            e.contains("names its own cluster or identity") || e.contains("pinning"),
            "{e}"
        );
    }
    for s in [&sim, &other] {
        assert_eq!(s.sim.as_ref().expect("running").handle.writes(), 0);
        assert_eq!(s.agent_replicas(None), "1");
    }
}
