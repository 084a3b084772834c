//! `-n/--namespace` and `--kubeconfig` as kubectl users expect them: `tsgnav run` and the
//! navigator refuse a kubeconfig that does not exist (naming the path and the fix) and a
//! namespace that is no namespace name, before anything runs; against the simulated cluster
//! with the real kubectl, `-n` is where a probe that names no namespace runs, through the
//! native backend and through the read-only proxy's kubeconfig (the jail's, when jailed).

use std::process::Command;

/// A probe that names no namespace, twice: a native `kubectl get` and a pipeline (the shell,
/// through the proxy). The third names its own namespace, which `-n` must not change.
const GUIDE: &str = "# Lab pods\n\n## Look here\n\nAction: list the pods where the session points.\n\n```bash\nkubectl get pods\n```\n\n```bash\nkubectl get pods -o name | sort\n```\n\n```bash\nkubectl get namespaces -o name | grep -c local-cluster\n```\n";

fn tsgnav(args: &[&str], dir: &std::path::Path) -> std::process::Output {
    tsgnav_env(args, dir, &[])
}

fn tsgnav_env(args: &[&str], dir: &std::path::Path, env: &[(&str, &str)]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .args(args)
        .envs(env.iter().copied())
        .env("KUBECONFIG", dir.join("absent-kubeconfig"))
        .env("TSGNAV_CONFIG", dir.join("no-config.toml"))
        .env("TSGNAV_STATE_DIR", dir.join("state"))
        .output()
        .expect("tsgnav runs")
}

#[test]
fn a_missing_kubeconfig_or_a_bad_namespace_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let guide = dir.path().join("lab.md");
    std::fs::write(&guide, GUIDE).expect("guide");
    let node = format!("{}#look-here", guide.display());
    let missing = dir.path().join("kube/prod.yaml");
    let missing = missing.display().to_string();
    let g = guide.display().to_string();
    for args in [
        vec!["run", &node, "--kubeconfig", &missing],
        vec!["--kubeconfig", &missing, &g],
    ] {
        let o = tsgnav(&args, dir.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("--kubeconfig {missing}: no such file"))
                && err.contains("drop the flag to use $KUBECONFIG"),
            "{args:?}: {err}"
        );
    }
    for (ns, why) in [
        ("Prod_NS", "'P' is not allowed"),
        ("lab-", "starts or ends"),
    ] {
        for args in [vec!["run", &node, "-n", ns], vec!["--namespace", ns, &g]] {
            let o = tsgnav(&args, dir.path());
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            assert!(
                err.contains(&format!("--namespace {ns:?}: not a namespace name"))
                    && err.contains(why)
                    && err.contains("e.g. --namespace kube-system"),
                "{args:?}: {err}"
            );
        }
    }
    assert!(
        !dir.path().join("state").exists(),
        "no evidence session was started for a refused start"
    );
}

/// The `output` of each result of `tsgnav run --json`.
fn outputs(o: &std::process::Output) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    v["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let out = r["output"].as_str().unwrap_or("");
            format!("{out} {} [{}]", r["target"], r["sandbox"])
        })
        .collect()
}

#[test]
fn run_with_n_reaches_the_native_backend_and_the_proxied_shell() {
    let test = "run_with_n_reaches_the_native_backend_and_the_proxied_shell";
    if crate::sim_support::kubectl(test).is_none() {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let sim = rt.block_on(crate::sim_support::start("maestro", None));
    let dir = tempfile::tempdir().expect("tempdir");
    let guide = dir.path().join("lab.md");
    std::fs::write(&guide, GUIDE).expect("guide");
    let node = format!("{}#look-here", guide.display());
    let kc = sim.kubeconfig.display().to_string();
    let base = ["run", &node, "--json", "--no-evidence", "--kubeconfig", &kc];
    let mut with_ns = base.to_vec();
    with_ns.extend(["-n", "maestro"]);
    let o = tsgnav(&with_ns, dir.path());
    let out = outputs(&o);
    assert!(
        out[0].contains("maestro-agent-6c9d8b7f5-hx4tq") && out[0].contains("namespace maestro"),
        "the native backend lists the pods of -n maestro:\n{}",
        out[0]
    );
    assert!(
        out[1].contains("pod/maestro-agent-6c9d8b7f5-hx4tq")
            && out[1].contains("pod/maestro-5d7f8b9c4-k2v7p"),
        "the shell's kubectl, through the proxy's kubeconfig, lists them too:\n{}",
        out[1]
    );
    // Unjailed, the proxy's kubeconfig is a file in the probe's scratch folder; jailed (where
    // the kernel allows it, as above) it is written inside the jail: both carry `-n`.
    let o = tsgnav_env(&with_ns, dir.path(), &[("TSGNAV_JAIL", "off")]);
    let unjailed = outputs(&o);
    assert!(
        unjailed[1].contains("pod/maestro-agent-6c9d8b7f5-hx4tq"),
        "not isolated, the same pods:\n{}",
        unjailed[1]
    );
    assert!(
        out[2].trim_start().starts_with('1'),
        "cluster-scoped reads are unchanged:\n{}",
        out[2]
    );
    // Without -n: the context's own default namespace, where these pods are not.
    let o = tsgnav(&base, dir.path());
    let out = outputs(&o);
    assert!(
        !out[0].contains("maestro-agent") && !out[1].contains("maestro-agent"),
        "without -n the pods of `maestro` are not listed:\n{out:?}"
    );
    drop(sim);
    drop(rt);
}

#[test]
fn config_check_names_a_namespace_that_is_no_namespace_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = dir.path().join("config.toml");
    std::fs::write(
        &cfg,
        "[query]\ncontext = \"mc-1\"\nnamespace = \"ocm_prod\"\n",
    )
    .expect("config");
    let o = tsgnav(&["config", "check", &cfg.display().to_string()], dir.path());
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("config.toml:3: namespace = \"ocm_prod\": not a namespace name ('_' is not allowed in it)"),
        "{out}"
    );
    std::fs::write(&cfg, "[query]\nnamespace = \"ocm-prod\"\n").expect("config");
    let o = tsgnav(&["config", "check", &cfg.display().to_string()], dir.path());
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}
