//! `[alerts]` in the config file: `tsgnav config check` names a blank `context_label`, a
//! misspelt key, and each mapped context the kubeconfig does not have (with the file, the
//! line and the contexts it has); a table that matches the kubeconfig passes.

const KUBECONFIG: &str = "apiVersion: v1
kind: Config
current-context: mc-eastus-1
clusters:
- name: east
  cluster: {server: 'https://127.0.0.1:1'}
users:
- name: sre
  user: {token: not-a-real-token}
contexts:
- name: mc-eastus-1
  context: {cluster: east, user: sre}
- name: mc-westus3-1
  context: {cluster: east, user: sre}
";

fn check(dir: &std::path::Path, text: &str) -> (Option<i32>, String) {
    let file = dir.join("config.toml");
    std::fs::write(&file, text).expect("config");
    let out = crate::common::bin()
        .args(["config", "check"])
        .arg(&file)
        .env_remove("KUBECONFIG")
        .output()
        .expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string(),
    )
}

#[test]
fn config_check_knows_the_alert_context_map() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = dir.path().join("kubeconfig");
    std::fs::write(&kc, KUBECONFIG).expect("kubeconfig");
    let head = format!("[query]\nkubeconfig = \"{}\"\n\n", kc.display());
    let bad = format!(
        "{head}[alerts]\ncontext_label = \" \"\ncontext_lable = \"region\"\n\n\
         [alerts.contexts]\nwestus3 = \"mc-westus3-1\"\neastus = \"mc-east-typo\"\n"
    );
    let (code, out) = check(dir.path(), &bad);
    assert_eq!(code, Some(1), "{out}");
    let shown = dir.path().join("config.toml").display().to_string();
    for (line, what) in [
        (5, "[alerts] `context_label` is empty"),
        (6, "unknown field `context_lable`"),
        (
            10,
            "[alerts.contexts] eastus = \"mc-east-typo\": the kubeconfig",
        ),
    ] {
        let want = format!("{shown}:{line}: ");
        assert!(
            out.lines().any(|l| l.contains(&want) && l.contains(what)),
            "no `{want}…{what}` in:\n{out}"
        );
    }
    assert!(
        out.contains("(its contexts: mc-eastus-1, mc-westus3-1)"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 3, "one line per problem:\n{out}");
    let good = format!(
        "{head}[alerts]\ncontext_label = \"region\"\n\n[alerts.contexts]\nwestus3 = \"mc-westus3-1\"\n"
    );
    let (code, out) = check(dir.path(), &good);
    assert_eq!(code, Some(0), "{out}");
}
