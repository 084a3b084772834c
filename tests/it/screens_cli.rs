//! The command-line side of the 3 a.m. screens: `config check` names every bad URL and a
//! kubeconfig that does not exist with file:line and the fix, and every bad keymap row at once;
//! a navigator started with a `TSGNAV_CONFIG` that does not exist uses the defaults.

use crate::common::bin;

fn check(config: &str, keymap: Option<&str>) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("config.toml");
    std::fs::write(&file, config).expect("write");
    if let Some(k) = keymap {
        std::fs::write(dir.path().join("keymap.toml"), k).expect("write");
    }
    let out = bin()
        .args(["config", "check"])
        .arg(&file)
        .env("HOME", dir.path())
        .output()
        .expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn config_check_rejects_urls_that_are_not_urls_with_their_line() {
    let cfg = "[query]\nprometheus_url = \"not a url\"\nmaestro_url = \"https://maestro.example:8443\"\nkusto_url = \"ftp://kusto.example\"\n\n[[alertmanager]]\nname = \"eastus\"\nurl = \"localhost:9093\"\n";
    let (code, out) = check(cfg, None);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(":2: `prometheus_url = \"not a url\"` is not an http(s) URL; write it as https://HOST[:PORT]"),
        "{out}"
    );
    assert!(
        out.contains(":4: `kusto_url = \"ftp://kusto.example\"`"),
        "{out}"
    );
    assert!(out.contains(":8: `url = \"localhost:9093\"`"), "{out}");
    assert!(!out.contains("maestro_url"), "a good URL passes: {out}");
}

#[test]
fn config_check_rejects_a_kubeconfig_that_does_not_exist() {
    let (code, out) = check(
        "[query]\ncontext = \"mc\"\nkubeconfig = \"~/nokube\"\n",
        None,
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(":3: `kubeconfig = \"~/nokube\"`: ")
            && out.contains("nokube does not exist; fix the path"),
        "{out}"
    );
    let (code, out) = check("[query]\nkubeconfig = \"~/config.toml\"\n", None);
    assert_eq!(code, Some(0), "a kubeconfig that exists passes: {out}");
}

#[test]
fn config_check_lists_every_bad_keymap_row() {
    let km = "[[guide]]\non = [\"<F13>\"]\nrun = \"quit\"\n\n[[guide]]\non = [\"x\"]\nrun = \"next_step\"\n\n[[help]]\non = [\"q\"]\nrun = \"nope\"\n\n[[nowhere]]\non = [\"q\"]\nrun = \"quit\"\n";
    let (code, out) = check("", Some(km));
    assert_eq!(code, Some(1), "{out}");
    let rows: Vec<&str> = out.lines().filter(|l| l.contains("keymap.toml:")).collect();
    assert_eq!(rows.len(), 3, "three bad rows, the good one passes:\n{out}");
    assert!(rows[0].contains("keymap.toml:2: key `<F13>`"), "{out}");
    assert!(
        rows[1].contains("keymap.toml:11:") && rows[1].contains("`nope`"),
        "{out}"
    );
    assert!(
        rows[2].contains("keymap.toml:13:") || rows[2].contains("keymap.toml:14:"),
        "{out}"
    );
}

#[test]
fn a_tsgnav_config_that_does_not_exist_means_the_defaults() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = bin()
        .args([
            "alerts",
            "firing",
            "--json",
            "--alertmanager-url",
            "http://127.0.0.1:9",
        ])
        .env("TSGNAV_CONFIG", dir.path().join("none/config.toml"))
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("cannot read the config file"), "{err}");
}
