//! Safety classification over every shell fence of the ARO-HCP corpus, checked against a
//! hand-written table of the corpus's mutating (and other notable) commands.

use std::path::{Path, PathBuf};

use tsgnav::safety::classify;
use tsgnav::tsg::{parse_guide, Lang, SafetyClass};

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read corpus")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            markdown_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
}

/// `(relative path, first line, code, class)` of every shell probe of the corpus.
fn shell_fences(corpus: &Path) -> Vec<(String, usize, String, SafetyClass)> {
    let mut files = Vec::new();
    markdown_files(corpus, &mut files);
    let mut out = Vec::new();
    for f in files {
        let rel = f
            .strip_prefix(corpus)
            .expect("under corpus")
            .to_string_lossy()
            .replace('\\', "/");
        let source = std::fs::read_to_string(&f).expect("read guide");
        let guide = parse_guide(&rel, &source);
        for p in guide
            .nodes
            .iter()
            .flat_map(|n| &n.probes)
            .filter(|p| p.lang == Lang::Shell)
        {
            out.push((rel.clone(), p.line, p.code.clone(), classify(&p.code).class));
        }
    }
    out
}

use SafetyClass::{Interactive, LongRunning, Mutating, ReadOnly, Unknown};

/// Written by hand from reading the corpus: `(file, a distinctive piece of the command, class
/// of every shell fence of that file holding it)`. Every command that changes something is
/// here, so a fence newly classified mutating fails the coverage test below.
#[rustfmt::skip]
const TABLE: &[(&str, &str, SafetyClass)] = &[
    // Changes a cluster, Azure or a repository.
    ("docs/drafts/uj-tsg-swift.md", "kubectl delete pod <router-pod-name>", Mutating),
    ("docs/drafts/uj-tsg-swift.md", "kubectl drain <node-name>", Mutating),
    ("docs/drafts/uj-tsg-swift.md", "az vmss delete-instances", Mutating),
    ("docs/drafts/uj-tsg-swift.md", "kubectl delete node <node-name>", Mutating),
    ("docs/drafts/uj-tsg-swift.md", "kubectl rollout restart deployment -n mgmt-agent", Mutating),
    ("docs/ops/postgres-breakglass.md", "--replicas=1", Mutating),
    ("docs/ops/postgres-breakglass.md", "--replicas=0", Mutating),
    ("docs/prometheus-rules.md", "az monitor action-group test-notifications create", Mutating),
    ("docs/sops/msit-int-credential-setup.md", "az account set -n", Mutating),
    ("docs/sops/msit-int-credential-setup.md", "az keyvault certificate import", Mutating),
    ("docs/sops/test-test-tenant-access.md", "az account set --subscription", Mutating),
    ("docs/sops/renew-prow-token.md", "git add dev-infrastructure/data/encryptedsecrets.yaml", Mutating),
    ("docs/sops/renew-prow-token.md", "git commit -m", Mutating),
    ("docs/sops/manual-e2e-gate-run.md", "git checkout <full-sha-from-step-1>", Mutating),
    ("docs/alert-verification.md", "git clone https://github.com/mmazur/alert-tester", Mutating),
    // Changes local files.
    ("docs/sops/msit-int-credential-setup.md", "az keyvault secret download", Mutating),
    ("docs/sops/msit-int-credential-setup.md", "base64 -d > intArmHelperCert.pfx", Mutating),
    ("docs/sops/manual-e2e-gate-run.md", "| tee /tmp/int-e2e.log", Mutating),
    ("docs/sops/gather-logs.md", "rm -rf ~/.cache/hcpctl/bin/must-gather-clean", Mutating),
    ("docs/sops/gather-logs.md", "rm -rf ~/Library/Caches/hcpctl/bin/must-gather-clean", Mutating),
    ("docs/sops/dump-crs.md", "mkdir -p /tmp/hcp-debug", Mutating),
    // Not mutating, but not plain reads either.
    ("docs/ops/hcp-cluster-creation-flow.md", "kubectl port-forward", LongRunning),
    ("docs/sops/test-test-tenant-access.md", "az login --tenant", Interactive),
    ("docs/ops/postgres-breakglass.md", "-- /bin/bash", Unknown), // `-ti` shell, plus a prose `or` line
    // `azure-cns -cmd get` reads (the verb model for CLIs tsgnav does not know); `-it` waits for a person.
    ("docs/drafts/uj-tsg-swift.md", "-it <cns-pod> -- /usr/local/bin/azure-cns", Interactive),
    ("docs/sops/gather-logs.md", "hcpctl must-gather clean", Unknown),
    ("docs/sops/renew-prow-token.md", "./dev-infrastructure/openshift-ci/renew-prow-token.sh", Unknown),
    ("docs/sops/test-test-tenant-access.md", "./switch-vault-tenant.sh", Unknown),
    ("docs/alert-verification.md", "./atest grafana", Unknown),
    ("docs/sre/hcp-metrics.md", "make infra.monitoring", Unknown),
    // Reads that a naive reader might take for changes.
    ("docs/ops/hcp-cluster-creation-flow.md", "curl -sG http://localhost:8001/api/aro_hcp/v1alpha1/clusters", ReadOnly),
    ("docs/ops/hcp-cluster-creation-flow.md", "curl -sG http://localhost:8002/api/maestro/v1/resource-bundles", ReadOnly),
    ("docs/ops/delete-node-pool-via-geneva.md", "kubectl get nodes -l kubernetes.azure.com/agentpool", ReadOnly),
    ("docs/drafts/uj-tsg-swift.md", "kubectl get pods -A -l 'kubernetes.azure.com/pod-network-instance' | grep -E", ReadOnly),
    ("docs/drafts/uj-tsg-swift.md", "kubectl logs -n kube-system <cns-pod> --previous", ReadOnly),
    ("docs/sops/test-test-tenant-access.md", "az account show --query tenantId", ReadOnly),
    ("docs/sops/renew-prow-token.md", "oc get secret api-token-secret", ReadOnly),
    ("docs/sops/dump-crs.md", "hcpctl mc dump-crs int-eastus-mgmt-1 --hosted-cluster-namespace", ReadOnly),
    ("docs/sops/gather-logs.md", "--split-by-pod", ReadOnly),
];

#[test]
fn hand_table_matches_the_classifier() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let fences = shell_fences(&corpus);
    let mut wrong = Vec::new();
    for (file, needle, want) in TABLE {
        let hits: Vec<_> = fences
            .iter()
            .filter(|(f, _, code, _)| f == file && code.contains(needle))
            .collect();
        if hits.is_empty() {
            wrong.push(format!("{file}: no shell fence holds {needle:?}"));
        }
        for (_, line, code, got) in hits {
            if got != want {
                let why: Vec<String> = classify(code)
                    .hits
                    .iter()
                    .map(|h| format!("{:?} {}", h.class, h.reason))
                    .collect();
                wrong.push(format!(
                    "{file}:{line} ({needle:?}): want {want:?}, got {got:?}: {why:?}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_mutating_fence_is_in_the_hand_table() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let fences = shell_fences(&corpus);
    let mutating: Vec<_> = fences
        .iter()
        .filter(|(_, _, _, class)| *class == Mutating)
        .collect();
    assert!(
        mutating.len() >= 15,
        "the corpus has {} mutating fences",
        mutating.len()
    );
    let unlisted: Vec<String> = mutating
        .iter()
        .filter(|(file, _, code, _)| {
            !TABLE
                .iter()
                .any(|(f, needle, c)| f == file && *c == Mutating && code.contains(needle))
        })
        .map(|(file, line, code, _)| format!("{file}:{line}: {code}"))
        .collect();
    assert!(
        unlisted.is_empty(),
        "classified mutating but not in the hand table:\n{}",
        unlisted.join("\n")
    );
}

#[test]
fn other_languages_of_the_corpus() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let mut files = Vec::new();
    markdown_files(&corpus, &mut files);
    let mut counted = [0usize; 2];
    for f in files {
        let source = std::fs::read_to_string(&f).expect("read guide");
        let guide = parse_guide("x.md", &source);
        for p in guide.nodes.iter().flat_map(|n| &n.probes) {
            let class = tsgnav::safety::classify_probe(p);
            match p.lang {
                // The corpus holds queries only: no Kusto management command.
                Lang::Kql | Lang::Promql => {
                    assert_eq!(class, ReadOnly, "{}:{}", f.display(), p.line);
                    counted[usize::from(p.lang == Lang::Kql)] += 1;
                }
                Lang::Text => assert_eq!(class, ReadOnly),
                Lang::Shell | Lang::Http => {}
            }
        }
    }
    assert!(
        counted[0] >= 10 && counted[1] >= 20,
        "promql, kql probes: {counted:?}"
    );
}

/// The shell lint rules over the corpus: the SWIFT draft's name-less `rollout restart` is the
/// only hit (its greps and scales are fine, and no guide mixes `oc` with `kubectl`).
#[test]
fn shell_lint_rules_over_the_corpus() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let mut files = Vec::new();
    markdown_files(&corpus, &mut files);
    let mut found = Vec::new();
    for f in files {
        let rel = f
            .strip_prefix(&corpus)
            .expect("under corpus")
            .to_string_lossy()
            .replace('\\', "/");
        let guide = parse_guide(&rel, &std::fs::read_to_string(&f).expect("read guide"));
        tsgnav::tsg::lint::shell_rules::check(&guide, &mut found);
    }
    let got: Vec<(&str, &str, usize)> = found
        .iter()
        .map(|f| (f.rule, f.path.as_str(), f.line))
        .collect();
    assert_eq!(
        got,
        [("rollout-restart-all", "docs/drafts/uj-tsg-swift.md", 420)]
    );
    assert!(
        found[0]
            .message
            .contains("every deployment in namespace `mgmt-agent`"),
        "{}",
        found[0].message
    );
}
