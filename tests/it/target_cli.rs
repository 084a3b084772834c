//! An unknown `--context` is refused at start, by `tsgnav run` and by the navigator, with the
//! kubeconfig and the contexts it has; nothing runs. The kubeconfig is written for the test
//! (no server is contacted: the check reads the file only).

use std::process::Command;

const KUBECONFIG: &str = "apiVersion: v1
kind: Config
current-context: mc-eastus-1
clusters:
- name: east
  cluster: {server: 'https://127.0.0.1:1'}
- name: west
  cluster: {server: 'https://127.0.0.1:2'}
users:
- name: sre
  user: {token: not-a-real-token}
contexts:
- name: mc-eastus-1
  context: {cluster: east, user: sre}
- name: mc-westus3-1
  context: {cluster: west, user: sre}
";

const GUIDE: &str = "# Guide\n\n## Look\n\n```bash\nkubectl get pods -n x\n```\n";

fn tsgnav(args: &[&str], dir: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .args(args)
        .env("KUBECONFIG", dir.join("kubeconfig"))
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", dir.join("state"))
        .output()
        .expect("tsgnav runs")
}

#[test]
fn an_unknown_context_is_refused_at_start_with_the_known_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("kubeconfig"), KUBECONFIG).expect("kubeconfig");
    let guide = dir.path().join("g.md");
    std::fs::write(&guide, GUIDE).expect("guide");
    let node = format!("{}#look", guide.display());
    let guide = guide.display().to_string();
    for args in [
        vec!["run", node.as_str(), "--context", "mc-nope"],
        vec!["--context", "mc-nope", guide.as_str()],
    ] {
        let o = tsgnav(&args, dir.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} refused");
        assert!(
            err.contains("--context mc-nope")
                && err.contains("mc-eastus-1, mc-westus3-1")
                && err.contains("kubeconfig"),
            "{args:?}: {err}"
        );
        assert_eq!(
            err.matches(dir.path().join("kubeconfig").display().to_string().as_str())
                .count(),
            1,
            "the path once: {err}"
        );
        assert!(!err.contains("failed to load current context"), "{err}");
    }
    // A known context passes the check (the run then fails to reach the fake server).
    let o = tsgnav(&["run", &node, "--context", "mc-westus3-1"], dir.path());
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("no such context"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
