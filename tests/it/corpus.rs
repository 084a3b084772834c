//! The real ARO-HCP guides: every markdown file loads, and the structure of the SWIFT TSG
//! draft (routes, scenarios, escalation teams, its three broken anchors) is pinned.

use std::path::PathBuf;

use tsgnav::tsg::{lint, Guide, Role};

fn swift(corpus: &std::path::Path) -> Guide {
    let (lib, errors) = tsgnav::load::load_library(&[corpus.join("docs/drafts/uj-tsg-swift.md")]);
    assert!(errors.is_empty(), "{errors:?}");
    lib.guides.into_iter().next().expect("one guide")
}

#[test]
fn every_corpus_markdown_file_loads() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let (lib, errors) = tsgnav::load::load_library(std::slice::from_ref(&corpus));
    assert!(errors.is_empty(), "load errors: {errors:?}");
    let expected = walk(&corpus);
    assert_eq!(lib.guides.len(), expected, "every .md file becomes a guide");
    assert!(expected >= 40, "the corpus has {expected} markdown files");
    for g in &lib.guides {
        assert!(!g.nodes.is_empty(), "{} has no nodes", g.path);
        assert!(g.problems.is_empty(), "{}: {:?}", g.path, g.problems);
    }
}

fn walk(dir: &std::path::Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).expect("read corpus").flatten() {
        let p: PathBuf = e.path();
        if p.is_dir() {
            n += walk(&p);
        } else if p.extension().is_some_and(|x| x == "md") {
            n += 1;
        }
    }
    n
}

#[test]
fn swift_tsg_routes() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let g = swift(&corpus);
    let routes: Vec<(String, String)> = g
        .routes
        .iter()
        .map(|r| {
            (
                r.alert.clone(),
                r.to.split('#').nth(1).unwrap_or("").to_string(),
            )
        })
        .collect();
    let want = [
        (
            "userJourneySwiftLatencyP991h5m",
            "step-1-establish-blast-radius",
        ),
        (
            "userJourneySwiftLatencyP996h30m",
            "step-1-establish-blast-radius",
        ),
        (
            "userJourneySwiftErrors1h5m",
            "step-3-read-cns-logs-and-classify-the-error",
        ),
        (
            "userJourneySwiftErrors6h30m",
            "step-3-read-cns-logs-and-classify-the-error",
        ),
        (
            "userJourneySwiftCNSLatencyP991h5m",
            "step-3-read-cns-logs-and-classify-the-error",
        ),
        (
            "userJourneySwiftCNSLatencyP996h30m",
            "step-3-read-cns-logs-and-classify-the-error",
        ),
        (
            "SwiftCNSAvailability3d",
            "step-2-check-hcp-side-prerequisites",
        ),
        (
            "SwiftPendingProgramming",
            "step-3-read-cns-logs-and-classify-the-error",
        ),
        // Named in a sentence of its scenario: "Alert: `MgmtClusterNodeSwiftNICCapacityZero`."
        (
            "MgmtClusterNodeSwiftNICCapacityZero",
            "scenario-mgmt-agent-reporting-zero-swift-nics-on-a-node",
        ),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(routes, want);
}

#[test]
fn swift_tsg_has_four_mitigation_scenarios() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let g = swift(&corpus);
    let scenarios: Vec<&str> = g
        .nodes
        .iter()
        .filter(|n| n.role == Role::Mitigation && n.title.starts_with("Scenario"))
        .map(|n| n.title.as_str())
        .collect();
    assert_eq!(scenarios.len(), 4, "{scenarios:?}");
    assert!(scenarios[0].starts_with("Scenario: Stuck MTPNC deletion"));
    let blast = g
        .nodes
        .iter()
        .find(|n| n.role == Role::BlastRadius)
        .expect("blast radius step");
    assert_eq!(blast.title, "Step 1: Establish blast radius");
}

#[test]
fn swift_tsg_escalation_teams_carry_evidence() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let g = swift(&corpus);
    let team = |name: &str| {
        g.escalations
            .iter()
            .find(|e| e.team == name)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    assert_eq!(
        team("Cloudnet/NRP").evidence,
        vec![
            "CNS log snippet",
            "`cx_pending_programming_ips_v2` graph",
            "blast radius (subscriptions/clusters affected)"
        ]
    );
    assert_eq!(
        team("Azure AKS team").evidence,
        vec![
            "`kubectl describe mtpnc`",
            "CNS logs",
            "`kubectl get nodeinfo` output"
        ]
    );
    assert_eq!(team("Cloudnet/Vnet").evidence, vec!["CNS log snippet"]);
    assert!(g.escalations.len() >= 7);
}

#[test]
fn swift_tsg_three_broken_anchors() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let (lib, _) = tsgnav::load::load_library(&[corpus.join("docs/drafts/uj-tsg-swift.md")]);
    let exists = |g: &Guide, d: &str| tsgnav::load::link_target_exists(&g.file, d);
    let cfg = lint::LintConfig {
        template: None,
        classify: &tsgnav::safety::classify_probe,
        file_exists: &exists,
        text: &|n| n.body.fetch(),
    };
    let broken: Vec<(usize, String)> = lint::lint(&lib, &cfg)
        .into_iter()
        .filter(|f| f.rule == "broken-anchor")
        .map(|f| (f.line, f.message))
        .collect();
    assert_eq!(
        broken.iter().map(|b| b.0).collect::<Vec<_>>(),
        vec![37, 118, 269]
    );
    for (_, m) in &broken {
        assert!(
            m.contains("#step-35-akskusto-dnc-rc-logs")
                && m.contains("did you mean `#step-35-aks-kusto-dnc-rc-logs`"),
            "{m}"
        );
    }
}

#[test]
fn alerts_against_the_swift_rule_files() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let alerts = corpus.join("observability/alerts");
    let mut cmd = crate::common::bin();
    cmd.arg("alerts")
        .arg(corpus.join("docs/drafts/uj-tsg-swift.md"))
        .arg("--json");
    for f in [
        "swift-networking-prometheusRule.yaml",
        "swift-networking-cns-prometheusRule.yaml",
        "swift-networking-recordingRule-KSM.yaml",
    ] {
        cmd.arg("--rules").arg(alerts.join(f));
    }
    let out = cmd.output().expect("run tsgnav");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let names = |k: &str| -> Vec<String> {
        v[k].as_array()
            .expect(k)
            .iter()
            .map(|x| x["alert"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(
        names("unrouted"),
        vec![
            "userJourneySwiftKonnectivityDialFailures1h5m",
            "userJourneySwiftKonnectivityDialFailures6h30m",
            "userJourneySwiftKonnectivityErrors1h5m",
            "userJourneySwiftKonnectivityErrors6h30m",
            "userJourneySwiftLatencyP993d"
        ]
    );
    assert_eq!(
        names("dangling"),
        vec!["userJourneySwiftErrors1h5m", "userJourneySwiftErrors6h30m"]
    );
}

#[test]
fn bundled_swift_guide_routes_every_swift_alert() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let out = crate::common::bin()
        .args(["alerts", "tsg/swift-networking.md", "--json", "--rules"])
        .arg(corpus.join("observability/alerts/swift-networking-prometheusRule.yaml"))
        .arg("--rules")
        .arg(corpus.join("observability/alerts/swift-networking-cns-prometheusRule.yaml"))
        .current_dir(crate::common::root())
        .output()
        .expect("run tsgnav");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        v["unrouted"],
        serde_json::json!([]),
        "every SWIFT alert has a route"
    );
    assert!(v["routes"].as_array().is_some_and(|r| r.len() >= 11));
}
