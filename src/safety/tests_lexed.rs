//! Tests that the class of a probe does not depend on whether the parse kept from reading the
//! guide (`Probe::lexed`) is used: the same class as lexing the code again, and a parse of
//! older code is never trusted.

use super::{classify, classify_probe, explain_probe, refine_roles};
use crate::tsg::{parse_guide, SafetyClass};

const SCRIPTS: &[&str] = &[
    "kubectl get pods -n kube-system",
    "kubectl delete pod web-0 -n shop",
    "kubectl scale deploy/api --replicas=0 && kubectl get deploy",
    "for f in $(ls /etc); do cat \"$f\"; done",
    "for cmd in rm ls; do $cmd -rf /tmp/x; done",
    "echo \"unterminated",
    "sh -c 'kubectl patch node n1 -p {}'",
    "kubectl exec -it pod/db-0 -- psql",
    "kubectl logs -f deploy/api",
    "curl -X POST https://example.invalid/api -d '{}'",
    "az group delete -n rg-test --yes",
    "watch kubectl get pods",
    "X=$(kubectl get ns -o name | head -1); echo $X",
    "cat <<EOF | kubectl apply -f -\napiVersion: v1\nEOF",
    "some-unknown-tool --flag value",
    "",
];

fn guide_of(scripts: &[&str]) -> crate::tsg::Guide {
    let mut md = String::from("# Probes\n\n");
    for (i, s) in scripts.iter().enumerate() {
        md.push_str(&format!("## Step {i}\n\n```bash\n{s}\n```\n\n"));
    }
    parse_guide("probes.md", &md)
}

#[test]
fn the_kept_parse_gives_the_class_that_lexing_again_gives() {
    let g = guide_of(SCRIPTS);
    let probes: Vec<_> = g.nodes.iter().flat_map(|n| &n.probes).collect();
    assert!(probes.len() >= SCRIPTS.len() - 1, "{}", probes.len());
    let mut classes = std::collections::BTreeSet::new();
    for p in probes {
        assert!(
            p.lexed.0.is_some(),
            "a shell probe keeps its parse: {:?}",
            p.code
        );
        let class = classify_probe(p);
        assert_eq!(class, explain_probe(p).class, "{:?}", p.code);
        assert_eq!(class, classify(&p.code).class, "{:?}", p.code);
        let mut bare = p.clone();
        bare.lexed = crate::tsg::shell::Kept(None);
        assert_eq!(classify_probe(&bare), class, "{:?}", p.code);
        classes.insert(class);
    }
    // The scripts cover more than one class, so an answer that ignored them would fail.
    assert!(classes.contains(&SafetyClass::Mutating), "{classes:?}");
    assert!(classes.contains(&SafetyClass::ReadOnly), "{classes:?}");
    assert!(classes.contains(&SafetyClass::Unknown), "{classes:?}");
}

#[test]
fn a_parse_of_older_code_is_not_trusted() {
    let g = guide_of(&["kubectl get pods"]);
    let mut p = g.nodes[1].probes[0].clone();
    assert_eq!(classify_probe(&p), SafetyClass::ReadOnly);
    // The code changes (a substituted value, an edit) but the kept parse is the old one's.
    p.code = "kubectl delete pods --all".into();
    assert!(p.lexed.0.is_some());
    assert_eq!(classify_probe(&p), SafetyClass::Mutating);
    assert_eq!(explain_probe(&p).class, SafetyClass::Mutating);
}

#[test]
fn a_loaded_guide_does_not_keep_the_parses() {
    let mut g = guide_of(&["kubectl get pods", "kubectl drain node-1"]);
    refine_roles(&mut g);
    assert!(g
        .nodes
        .iter()
        .flat_map(|n| &n.probes)
        .all(|p| p.lexed.0.is_none()));
}
