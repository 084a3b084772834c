//! The scripted sessions the evidence tests share: a fixed session start, and a 16-record
//! session over the fixture guide (tests/fixtures/evidence/guide.md) with an injected clock, so
//! its export is byte-for-byte stable.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tsgnav::evidence::{
    self, ChecklistTick, Confirmation, Note, Options, PriorState, ProbeRun, Record, Session,
    SessionStart, StepClock,
};
use tsgnav::tsg::Escalation;

pub fn start() -> SessionStart {
    SessionStart {
        tool_version: "0.1.0".into(),
        guide: "tests/fixtures/evidence/guide.md".into(),
        guide_sha256: "0".repeat(64),
        operator: "alice".into(),
        host: "jump-1".into(),
        alert: Some("SwiftPendingProgramming".into()),
        ..SessionStart::default()
    }
}

/// The fixture operator key (made with `minisign -G -W`; not secret), so the golden files do
/// not depend on this machine's key.
pub fn test_key() -> Arc<evidence::OperatorKey> {
    let path = crate::common::root().join("tests/fixtures/evidence/keys/operator.key");
    Arc::new(evidence::OperatorKey::load(&path).expect("fixture key"))
}

pub const GUIDE: &str = "tests/fixtures/evidence/guide.md";
/// 2026-03-14T09:26:00Z.
pub const T0: i64 = 1_773_480_360;

pub fn guide_escalations() -> Vec<Escalation> {
    let text = std::fs::read_to_string(crate::common::root().join(GUIDE)).expect("fixture guide");
    tsgnav::tsg::parse_guide("guide.md", &text).escalations
}

fn run(
    probe: &str,
    cmd: &str,
    backend: &str,
    target: &str,
    exit: Option<i32>,
    error: Option<&str>,
) -> ProbeRun {
    ProbeRun {
        probe: probe.into(),
        command: cmd.into(),
        backend: backend.into(),
        target: target.into(),
        started: "2026-03-14T09:27:00Z".into(),
        ended: "2026-03-14T09:27:02Z".into(),
        exit,
        error: error.map(str::to_owned),
        ..Default::default()
    }
}

/// The scripted session of the golden test: a clock that starts at `t0` (Unix seconds) and ticks 7 s per record.
pub fn scripted(state: &Path, t0: i64) -> PathBuf {
    let opts = Options {
        clock: Arc::new(StepClock::new(t0, 7)),
        key: Ok(test_key()),
        ..Options::default()
    };
    let guide = std::fs::read(crate::common::root().join(GUIDE)).expect("guide");
    let mut st = start();
    st.guide = GUIDE.into();
    st.guide_sha256 = evidence::sha256_hex(&guide);
    let mut s = Session::create_with(state, st, opts).expect("create");
    let add = |s: &mut Session, r: Record| s.append(r).expect("append").seq;
    let note = |text: &str, topic: Option<&str>| {
        Record::Note(Note {
            text: text.into(),
            topic: topic.map(str::to_owned),
            ..Default::default()
        })
    };
    add(&mut s, note("12 hosted control planes in westus3 have NotReady worker nodes; customers see webhook timeouts", Some("impact")));
    add(
        &mut s,
        Record::NodeEntered {
            node: "guide.md#step-1-check-mtpnc".into(),
        },
    );
    add(
        &mut s,
        Record::VariableSet {
            name: "OCM_NAMESPACE".into(),
            value: "ocm-2f9a".into(),
            source: "operator".into(),
        },
    );
    let mut p = run(
        "guide.md#step-1-check-mtpnc/8",
        "kubectl describe mtpnc -n ocm-2f9a",
        "kube",
        "aks-mgmt-westus3",
        Some(0),
        None,
    );
    let out = "Name:         mtpnc-router-0\nNamespace:    ocm-2f9a\nStatus:\n  Status:  Pending\n  Reason:  network is not ready - mtpnc is not ready\n";
    s.store_output(out.as_bytes())
        .expect("store")
        .apply_to(&mut p);
    add(&mut s, Record::ProbeRun(p));
    let mut p = run(
        "guide.md#step-1-check-mtpnc/8",
        "kubectl get nodeinfo",
        "kube",
        "aks-mgmt-westus3",
        None,
        Some("Unauthorized (401): the token expired; log in again"),
    );
    s.store_output(b"").expect("store").apply_to(&mut p);
    add(&mut s, Record::ProbeRun(p));
    add(
        &mut s,
        Record::NodeEntered {
            node: "guide.md#step-2-cns-metrics".into(),
        },
    );
    let mut p = run(
        "guide.md#step-2-cns-metrics/14",
        "max_over_time(cx_pending_programming_ips_v2[1h])",
        "prometheus",
        "http://127.0.0.1:9090",
        None,
        None,
    );
    s.store_output(b"{instance=\"cns-7x\"} 14\n")
        .expect("store")
        .apply_to(&mut p);
    add(&mut s, Record::ProbeRun(p));
    let mut p = run(
        "guide.md#step-2-cns-metrics/14",
        "kubectl logs -n kube-system cns-7x --since=1h",
        "kube",
        "aks-mgmt-westus3",
        Some(0),
        None,
    );
    let logs: String = (0..2000).map(|i| format!("I0314 09:{:02}:{:02} cns ipam: request {i} pending (Authorization: Bearer abc{i})\n", i / 60 % 60, i % 60)).collect();
    s.store_output(logs.as_bytes())
        .expect("store")
        .apply_to(&mut p);
    add(&mut s, Record::ProbeRun(p));
    let file = state.join("cns-excerpt.log");
    std::fs::write(&file, "E0314 09:20:11 cns: ErrorCode 4: NRP validation failed\nE0314 09:20:12 cns: ErrorCode 135\n").expect("write");
    let seq = s
        .attach(
            &file,
            Some("CNS log excerpt with ErrorCode 4 and 135".into()),
        )
        .expect("attach")
        .0
        .seq;
    add(
        &mut s,
        Record::NodeEntered {
            node: "guide.md#scenario-1-restart-cns".into(),
        },
    );
    let cmd = "kubectl get deployment/cns -n kube-system -o jsonpath={.spec.replicas}";
    add(
        &mut s,
        Record::PriorState(PriorState {
            probe: None,
            resource: "deployment/cns -n kube-system".into(),
            field: "spec.replicas".into(),
            value: "3".into(),
            command: cmd.into(),
        }),
    );
    let scale = "kubectl scale deployment/cns -n kube-system --replicas=0";
    let pre = vec!["No other CNS restart is in progress".to_owned()];
    add(
        &mut s,
        Record::Confirmation(Confirmation {
            probe: Some("guide.md#scenario-1-restart-cns/24".into()),
            command: scale.into(),
            target: "aks-mgmt-westus3".into(),
            safety: "mutating".into(),
            preconditions: pre,
        }),
    );
    let mut p = run(
        "guide.md#scenario-1-restart-cns/24",
        scale,
        "shell",
        "aks-mgmt-westus3",
        Some(0),
        None,
    );
    s.store_output(b"deployment.apps/cns scaled\n")
        .expect("store")
        .apply_to(&mut p);
    add(&mut s, Record::ProbeRun(p));
    add(
        &mut s,
        Record::EscalationChosen {
            team: "Azure AKS team".into(),
            reason: "DNC answers 5xx; MTPNC never created".into(),
        },
    );
    add(
        &mut s,
        Record::ChecklistTick(ChecklistTick {
            team: "Azure AKS team".into(),
            item: "CNS logs".into(),
            checked: true,
            evidence: vec![seq],
        }),
    );
    s.dir().to_owned()
}

pub fn aks() -> Escalation {
    let all = guide_escalations();
    evidence::find_team(&all, "azure aks team", "guide.md")
        .expect("team")
        .clone()
}
