//! `tsgnav completions`, `tsgnav man` and `tsgnav config check|example`.

use crate::common::bin;

#[test]
fn completions_name_every_subcommand() {
    for shell in ["bash", "zsh", "fish"] {
        let out = bin().args(["completions", shell]).output().expect("run");
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8_lossy(&out.stdout);
        for sub in ["tree", "lint", "alerts", "sessions", "run"] {
            assert!(text.contains(sub), "{shell} completions mention {sub}");
        }
    }
}

#[test]
fn man_page_is_roff() {
    let out = bin().arg("man").output().expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(".TH tsgnav 1"), "{text}");
    assert!(text.contains("lint"));
}

#[test]
fn config_check_names_the_file_and_the_problem() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("config.toml");
    std::fs::write(&file, "guides = [\"no/such/folder\"]\nbogus = 1\n").expect("write");
    let out = bin()
        .args(["config", "check"])
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("config.toml") && text.contains("unknown field `bogus`"),
        "{text}"
    );

    std::fs::write(&file, "guides = [\"no/such/folder\"]\n").expect("write");
    let out = bin()
        .args(["config", "check"])
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("`guides` names no/such/folder, which does not exist"));

    std::fs::write(dir.path().join("keymap.toml"), "this is not toml [").expect("write");
    std::fs::write(&file, "").expect("write");
    let out = bin()
        .args(["config", "check"])
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(1),
        "a broken keymap.toml beside the config is reported"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("keymap.toml"));
}

#[test]
fn the_example_config_checks_clean() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("config.toml");
    let out = bin().args(["config", "example"]).output().expect("run");
    assert!(out.status.success());
    // The example names guide folders that exist on the writer's machine; drop those lines.
    let text: String = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim_start().starts_with("guides"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&file, text).expect("write");
    let out = bin()
        .args(["config", "check"])
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
