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

/// Runs tsgnav with stdout on a pipe whose reading end is already closed, so every write
/// fails with EPIPE no matter how little is written or how fast.
fn with_closed_stdout(args: &[&str]) -> std::process::Output {
    use std::os::fd::FromRawFd as _;
    let mut fds = [0; 2];
    // SAFETY: `fds` is a valid two-element array for pipe(2) to fill.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe(2)");
    // SAFETY: both descriptors were just returned by pipe(2) and are owned here only.
    let (read, write) = unsafe {
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    };
    drop(read);
    bin()
        .args(args)
        .stdout(std::process::Stdio::from(write))
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("run")
}

#[test]
fn every_printing_subcommand_survives_a_closed_pipe() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "bogus = 1\n").expect("write");
    let cfg = cfg.display().to_string();
    let guides = crate::common::root().join("tsg").display().to_string();
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["completions", "bash"], 0),
        (vec!["completions", "zsh"], 0),
        (vec!["completions", "fish"], 0),
        (vec!["man"], 0),
        (vec!["config", "example"], 0),
        // A closed pipe is not a verdict: the problems could not be shown, exit 0 as for `head`.
        (vec!["config", "check", &cfg], 0),
        (vec!["tree", "--json", &guides], 0),
        (vec!["tree", &guides], 0),
        (vec![&guides], 0),
        (vec!["alerts", &guides], 0),
        (vec!["lint", "--format", "json", &guides], 0),
        (vec!["--help"], 0),
    ];
    for (args, want) in cases {
        let out = with_closed_stdout(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "tsgnav {args:?} panicked: {err}");
        assert_eq!(out.status.code(), Some(want), "tsgnav {args:?}: {err}");
    }
}

#[test]
fn completions_piped_into_head_exit_zero() {
    // pipefail: the pipeline's status is tsgnav's, not head's.
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "set -o pipefail; '{}' completions bash | head -1",
            env!("CARGO_BIN_EXE_tsgnav")
        ))
        .output()
        .expect("bash");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn man_page_has_environment_files_and_exit_status() {
    let out = bin().arg("man").output().expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for section in [".SH ENVIRONMENT", ".SH FILES", ".SH \"EXIT STATUS\""] {
        assert!(text.contains(section), "man page lacks {section}");
    }
    let env = &text[text.find(".SH ENVIRONMENT").expect("section")..];
    for var in [
        "TSGNAV_CONFIG",
        "TSGNAV_STATE_DIR",
        "TSGNAV_CACHE_DIR",
        "KUBECONFIG",
        "TSGNAV_JAIL",
        "NO_COLOR",
        "TERM",
    ] {
        assert!(
            env.contains(&format!("\\fB{var}\\fR")),
            "ENVIRONMENT names {var}"
        );
    }
    let files = &text[text.find(".SH FILES").expect("section")..];
    assert!(
        files.contains("\\fI~/.kube/config\\fR"),
        "FILES names the kubeconfig"
    );
    // The navigator's target flags are in OPTIONS; the completion scripts' helper is not.
    for flag in ["\\-n\\fR, \\fB\\-\\-namespace", "\\-\\-kubeconfig"] {
        assert!(text.contains(flag), "OPTIONS has {flag}");
    }
    assert!(
        !text.contains("__complete"),
        "the hidden subcommand stays out"
    );
    let exit = &text[text.find(".SH \"EXIT STATUS\"").expect("section")..];
    for code in ["\\fB0\\fR", "\\fB1\\fR", "\\fB2\\fR", "\\fB3\\fR"] {
        assert!(exit.contains(code), "EXIT STATUS explains {code}");
    }
}

/// The keys the config parser accepts at the top level and under `[query]`, read from its
/// own "unknown field … expected one of …" message, so a new key cannot be missed.
fn accepted_keys(doc: &str) -> Vec<String> {
    let err = tsgnav::tui::config::parse("t.toml", doc).expect_err("unknown key refused");
    let msg = err.to_string();
    // "… expected one of `a`, `b`" or "… expected `a` or `b`".
    let list = msg
        .split_once(", expected ")
        .map(|(_, l)| l)
        .expect("serde lists the keys");
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn config_example_names_every_key_the_parser_accepts() {
    let top = accepted_keys("not_a_key = 1\n");
    let query = accepted_keys("[query]\nnot_a_key = 1\n");
    let sandbox = accepted_keys("[sandbox]\nnot_a_key = 1\n");
    let alertmanager = accepted_keys("[[alertmanager]]\nnot_a_key = 1\n");
    let policy = accepted_keys("[[policy]]\nmatch = \"x\"\nnot_a_key = 1\n");
    assert!(policy.contains(&"max_wave".to_string()), "{policy:?}");
    assert!(top.contains(&"query".to_string()), "{top:?}");
    assert!(query.contains(&"kusto_token_cmd".to_string()), "{query:?}");
    let example = tsgnav::tui::config::EXAMPLE;
    let written = |key: &str| {
        example.lines().any(|l| {
            let l = l.trim_start().trim_start_matches('#').trim_start();
            l.starts_with(&format!("{key} ="))
                || l.starts_with(&format!("[{key}]"))
                || l.starts_with(&format!("[[{key}]]"))
                || l.starts_with(&format!("[query.{key}]"))
        })
    };
    for key in top
        .iter()
        .chain(&query)
        .chain(&sandbox)
        .chain(&alertmanager)
        .chain(&policy)
    {
        assert!(
            written(key),
            "`tsgnav config example` does not show `{key}`"
        );
    }
}

#[test]
fn config_check_lists_every_problem_with_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("config.toml");
    let text = "\
guides = [\"no/such/folder\"]
bogus = 1
redact = [\"(unclosed\"]

[vars]
NODE = 3

[query]
live = \"yes\"
prometheus_url = \"http://127.0.0.1:9090\"
kusto_tokn_cmd = \"az account get-access-token\"

[query.kusto_clusters]
main = \"ftp://kusto.example\"
";
    std::fs::write(&file, text).expect("write");
    let out = bin()
        .args(["config", "check"])
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let shown = file.display().to_string();
    for (line, what) in [
        (1, "`guides` names no/such/folder, which does not exist"),
        (2, "unknown field `bogus`"),
        (3, "`redact`"),
        (6, "invalid type: integer `3`, expected a string"),
        (9, "invalid type: string \"yes\", expected a boolean"),
        (11, "unknown field `kusto_tokn_cmd`"),
        (14, "is not an http(s) URL"),
    ] {
        let want = format!("{shown}:{line}: ");
        assert!(
            stdout
                .lines()
                .any(|l| l.contains(&want) && l.contains(what)),
            "no `{want}…{what}` in:\n{stdout}"
        );
    }
    assert_eq!(stdout.lines().count(), 7, "one line per problem:\n{stdout}");
}

#[test]
fn config_check_reports_each_syntax_error_with_its_line() {
    let text =
        "[query]\nlive = tru\nprometheus_url = \"http://127.0.0.1:9090\"\ncontext = 'unclosed\n";
    let (_, problems) = tsgnav::tui::config::check(text);
    let lines: Vec<usize> = problems.iter().map(|p| p.line).collect();
    assert_eq!(lines, vec![2, 4], "{problems:?}");
    let (_, clean) = tsgnav::tui::config::check(tsgnav::tui::config::EXAMPLE);
    assert_eq!(clean, vec![], "the example is clean");
}
