//! Evidence identity: the journal records each probe as written and, apart, what actually
//! answered (the native Kubernetes API request with `--no-headers` kept, and its context);
//! the Azure AKS team's escalation checklist is complete after the demo's AKS-team probes
//! (a describe of MTPNCs and CNS logs through kubectl, NodeInfo natively, the DNC-RC KQL from
//! the recorded answers), matched by kind of evidence, not by the command's text.

use std::collections::BTreeMap;
use std::sync::Arc;

use tsgnav::evidence::{build_checklist, find_team, Record, Session, SessionLog};
use tsgnav::query::recorded::Answers;
use tsgnav::query::runner::{Runner, RunnerConfig};
use tsgnav::query::{setup, Cancel, ProbeRequest};

use super::sim_support::{start, OCM_NS};

fn bindings() -> BTreeMap<String, String> {
    [
        ("OCM_NAMESPACE", OCM_NS),
        ("ROUTER_POD", "router-6f8b7c9d5-c8wjm"),
        ("NODE_NAME", "aks-userswft-31562873-vmss000001"),
        ("CNS_POD", "azure-cns-9hq4m"),
        ("CCP_ID", "65f0c4c2e1d3a70001b2c3d4"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

#[test]
fn the_journal_keeps_the_command_as_written_and_what_ran() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let sim = rt.block_on(start("swift", None));
    let dir = tempfile::tempdir().expect("dir");
    let guide = dir.path().join("g.md");
    std::fs::write(
        &guide,
        "# G\n\n## Nodes\n\n```bash\nkubectl get nodes -L agentpool --no-headers\n```\n",
    )
    .expect("guide");
    let out = crate::common::bin()
        .arg("run")
        .arg(format!("{}#nodes", guide.display()))
        .arg("--kubeconfig")
        .arg(&sim.kubeconfig)
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", dir.path().join("state"))
        .output()
        .expect("run tsgnav");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("NAME"), "--no-headers is honoured:\n{text}");
    let sessions = tsgnav::evidence::list(&dir.path().join("state")).expect("sessions");
    let log = SessionLog::read(&sessions[0].dir).expect("journal");
    let run = log
        .entries
        .iter()
        .find_map(|e| match &e.record {
            Record::ProbeRun(p) => Some(p.clone()),
            _ => None,
        })
        .expect("a probe run");
    assert_eq!(run.backend, "kube");
    assert!(
        run.command
            .starts_with("kubectl get nodes -L agentpool --no-headers"),
        "as written: {}",
        run.command
    );
    let ran = run.ran.expect("what ran");
    assert!(
        ran.starts_with("native Kubernetes API (context mc-eastus-1)")
            && ran.contains("--no-headers")
            && ran.contains("-L agentpool"),
        "{ran}"
    );
    drop(rt);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_aks_checklist_is_complete_after_the_demos_aks_probes() {
    if super::sim_support::kubectl("the_aks_checklist_is_complete_after_the_demos_aks_probes")
        .is_none()
    {
        return;
    }
    let sim = start("swift", None).await;
    let root = super::common::root();
    let text = std::fs::read_to_string(root.join("tsg/swift-networking.md")).expect("guide");
    let guide = tsgnav::tsg::parse_guide("tsg/swift-networking.md", &text);
    let answers =
        std::fs::read_to_string(root.join("assets/scenarios/swift-answers.yaml")).expect("answers");
    let settings = setup::Settings {
        kubeconfig: Some(sim.kubeconfig.clone()),
        recorded: Some(Arc::new(
            Answers::from_yaml("answers", &answers).expect("parse"),
        )),
        ..Default::default()
    };
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let runner = Runner::new(RunnerConfig::default(), setup::executors(&settings), tx);
    let state = tempfile::tempdir().expect("state");
    let mut session = Session::create(
        state.path(),
        tsgnav::evidence::session_start("tsg/swift-networking.md", text.as_bytes(), None),
    )
    .expect("session");
    let wanted = [
        "kubectl describe mtpnc \"${ROUTER_POD}\"",
        "kubectl logs -n kube-system \"${CNS_POD}\" --since=2h",
        "kubectl get nodeinfo -A",
        "category == \"requestcontroller\" and namespace == ccpId",
    ];
    let mut backends = Vec::new();
    for want in wanted {
        let (node, probe) = guide
            .nodes
            .iter()
            .flat_map(|n| n.probes.iter().map(move |p| (n, p)))
            .find(|(_, p)| format!("{}\n", p.code).contains(want))
            .unwrap_or_else(|| panic!("the guide has a probe with {want:?}"));
        let mut req = ProbeRequest::from_probe(&node.id, probe, bindings()).expect("request");
        req.target.kubeconfig = Some(sim.kubeconfig.clone());
        let r = runner.run(req, Cancel::new()).await;
        assert!(r.status.is_ok(), "{want}: {}", r.status.describe());
        backends.push(r.backend.to_string());
        session
            .append(Record::ProbeRun(tsgnav::tui::runtime::convert::probe_run(
                &r,
            )))
            .expect("append");
    }
    assert_eq!(
        backends,
        ["shell", "shell", "kube", "kusto"],
        "who answered"
    );
    let log = SessionLog::read(session.dir()).expect("journal");
    let aks = find_team(&guide.escalations, "Azure AKS team", &guide.path).expect("team");
    let items = build_checklist(aks, &log.entries);
    assert_eq!(items.len(), 4, "{items:?}");
    for it in &items {
        assert!(it.done(), "{} is missing: {items:#?}", it.text);
    }
}
