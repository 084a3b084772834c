//! The discovery cache tsgnav fills itself, natively, before a jailed probe's kubectl runs
//! (real kubectl, the simulator): kubectl reads what tsgnav wrote and does no discovery of
//! its own through the probe's door (were a file missing, stale or undecodable, kubectl
//! would fetch `/api`, `/apis` and the group versions again, and the proxy would record it),
//! and the fill itself is no request of the probe's: nothing but the probe's own reads is
//! decided under its pass.

use tsgnav::query::shell::ShellExecutor;

use super::jail_escapes::{jail_or_skip, run};
use super::mitigate_support::request;

/// Whether a decision line (`forwarded GET /apis/apps/v1?timeout=32s`) is API discovery.
fn is_discovery(line: &str) -> bool {
    let path = line.split_whitespace().nth(2).unwrap_or_default();
    let path = path.split('?').next().unwrap_or_default();
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    matches!(
        parts.as_slice(),
        ["api"] | ["apis"] | ["api", _] | ["apis", _, _]
    )
}

#[test]
fn discovery_paths_are_told_from_reads() {
    assert!(is_discovery("forwarded GET /api?timeout=32s"));
    assert!(is_discovery("forwarded GET /apis/apps/v1?timeout=32s"));
    assert!(is_discovery("forwarded GET /api/v1"));
    assert!(!is_discovery(
        "forwarded GET /apis/apps/v1/namespaces/maestro/deployments"
    ));
    assert!(!is_discovery("forwarded GET /api/v1/pods"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jailed_probe_reads_the_discovery_tsgnav_wrote_and_does_none_of_its_own() {
    let test = "a_jailed_probe_reads_the_discovery_tsgnav_wrote_and_does_none_of_its_own";
    if !jail_or_skip(test) {
        return;
    }
    let Some(_) = super::sim_support::kubectl(test) else {
        return;
    };
    let sim = super::sim_support::start("maestro", Some(2)).await;
    let sh = ShellExecutor::default();
    // Two contexts, each its own cache; a core resource, an apps one and a custom one.
    for context in ["mc-eastus-1", "mc-westus3-1"] {
        let code = "kubectl get deployments -n maestro --no-headers\n\
                    kubectl get pods -n maestro --no-headers\n\
                    kubectl get manifestworks -A --no-headers >/dev/null && echo CRD-READ";
        let (r, out) = run(&sh, request(code, "V", "v", context, Some(&sim.kubeconfig))).await;
        assert!(r.status.is_ok(), "{context}: {:?}: {out}", r.status);
        assert!(
            out.contains("maestro-agent") && out.contains("CRD-READ"),
            "{context}: {out}"
        );
        let discovered: Vec<&String> = r.api.iter().filter(|l| is_discovery(l)).collect();
        assert!(
            discovered.is_empty(),
            "{context}: kubectl did its own discovery: {discovered:?} (all: {:?})",
            r.api
        );
        assert!(
            r.api.iter().any(|l| l.contains("/deployments")),
            "{context}: the probe's reads are its own: {:?}",
            r.api
        );
    }
    // What kubectl read is what tsgnav wrote: typed, the legacy group first.
    let cache = sh.proxy.cache_dir();
    let groups: Vec<_> = walk(&cache)
        .into_iter()
        .filter(|p| p.ends_with("servergroups.json"))
        .collect();
    // The simulator's clusters answer discovery alike: one folder of files serves both.
    assert_eq!(
        groups.len(),
        1,
        "contexts that answer alike share one folder: {groups:?}"
    );
    for g in groups {
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&g).expect("read")).expect("json");
        assert_eq!(v["kind"], "APIGroupList", "{}", g.display());
        assert_eq!(v["groups"][0]["name"], "", "{}", g.display());
        let apps = g
            .with_file_name("apps")
            .join("v1")
            .join("serverresources.json");
        let l: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&apps).expect("apps")).expect("json");
        assert_eq!(l["kind"], "APIResourceList");
        assert_eq!(l["groupVersion"], "apps/v1");
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_symlink() {
                continue;
            }
            match p.is_dir() {
                true => stack.push(p),
                false => out.push(p),
            }
        }
    }
    out
}
