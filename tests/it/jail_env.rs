//! The environment of a jailed probe, through the real binary: secrets exported in the
//! operator's shell (tokens, cloud keys, the SSH agent) do not reach it; `PATH`, the locale and
//! the guide's own variables do (nor through any process's `/proc/PID/environ`); `[sandbox] pass_env` lets more through by name or prefix; and
//! with the jail off (not isolated) nothing is scrubbed, which the record says.

fn guide(dir: &std::path::Path) -> String {
    let g = dir.join("env.md");
    std::fs::write(
        &g,
        "# Env report\n\n## Print the environment\n\n```bash\nenv | sort\necho \"region=$REGION\"\ncat /proc/*/environ /proc/self/task/*/environ 2>/dev/null | tr '\\0' '\\n' || true\n```\n",
    )
    .expect("guide");
    format!("{}#print-the-environment", g.display())
}

fn run_env(config: &str, jail: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("config.toml"), config).expect("config");
    run_json(
        dir.path(),
        &guide(dir.path()),
        jail,
        &["--var", "REGION=eastus"],
        &[
            ("LANG", "C.UTF-8"),
            ("LC_TIME", "C"),
            ("GITHUB_TOKEN", "ghp_jailEnvTest0000000000000000000000"),
            ("AWS_SECRET_ACCESS_KEY", "jail-env-test-aws-secret"),
            ("SSH_AUTH_SOCK", "/nowhere/agent.sock"),
            ("TSG_SUBSCRIPTION", "sub-1234"),
            ("ARM_TENANT", "tenant-5678"),
        ],
    )
}

/// `tsgnav run TARGET --json ARGS` through the real binary, with the config file and state of
/// `dir` (its `config.toml` must exist), `TSGNAV_JAIL=jail` and `env` besides; what it prints,
/// once it has exited 0.
pub fn run_json(
    dir: &std::path::Path,
    target: &str,
    jail: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> String {
    let o = crate::common::bin()
        .args(["run", target, "--json"])
        .args(args)
        .env("TSGNAV_CONFIG", dir.join("config.toml"))
        .env("TSGNAV_STATE_DIR", dir.join("state"))
        .env("TSGNAV_JAIL", jail)
        .envs(env.iter().copied())
        .output()
        .expect("runs");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn the_operators_secrets_stay_outside_the_jail_and_pass_env_lets_names_in() {
    if !super::jail_escapes::jail_or_skip("the_operators_secrets_stay_outside_the_jail") {
        return;
    }
    let out = run_env("", "on");
    assert!(out.contains("jail (namespaces + seccomp)"), "{out}");
    for gone in [
        "GITHUB_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "SSH_AUTH_SOCK",
        "TSG_SUBSCRIPTION",
        "ARM_TENANT",
    ] {
        assert!(!out.contains(gone), "{gone} reached the probe: {out}");
    }
    for kept in ["PATH=", "LANG=C.UTF-8", "LC_TIME=C", "region=eastus"] {
        assert!(out.contains(kept), "{kept} is missing: {out}");
    }
    let out = run_env("[sandbox]\npass_env = [\"TSG_*\", \"ARM_TENANT\"]\n", "on");
    for kept in ["TSG_SUBSCRIPTION=sub-1234", "ARM_TENANT=tenant-5678"] {
        assert!(out.contains(kept), "{kept} is missing: {out}");
    }
    assert!(!out.contains("GITHUB_TOKEN"), "{out}");
}

#[test]
fn not_isolated_probes_inherit_the_environment_and_say_not_isolated() {
    let out = run_env("", "off");
    assert!(out.contains("not isolated"), "{out}");
    assert!(out.contains("TSG_SUBSCRIPTION=sub-1234"), "{out}");
}
