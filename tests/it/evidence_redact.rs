//! Redaction before write: secrets of every kind, seeded into every string field a session
//! writes, into inline and blob outputs (fed in tiny chunks so secrets straddle writes) and into
//! an attached file, appear in no byte of the session folder nor of any export (tar.gz
//! archives are unpacked and searched too).

use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

use tsgnav::evidence::{
    self, ChecklistTick, Confirmation, ExportFormat, ExportRequest, Note, Options, PriorState,
    ProbeRun, Record, Redactor, Session,
};

/// (kind, text as it appears, the secret inside it).
fn seeds() -> Vec<(&'static str, String, String)> {
    let key = format!("{}Zq9+/{}==", "Kx7".repeat(20), "Pm4".repeat(7));
    assert_eq!(key.len(), 88);
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzcmUtYWxpY2UifQ.SjwtSignatureSecret123".to_owned();
    vec![
        ("bearer", "curl -H 'X: Bearer BearerTok3nSecret456' x".into(), "BearerTok3nSecret456".into()),
        ("jwt", format!("id_token_hint {jwt} next"), jwt.clone()),
        ("jwt", format!("also {jwt}"), "SjwtSignatureSecret123".into()),
        ("sas-sig", "https://acct.blob.core.windows.net/logs?sv=2022&sig=SasSig0123456789abcdef%2B%3D&se=x".into(), "SasSig0123456789abcdef".into()),
        ("account-key", "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=AcctKeyValue0123456789abc==;EndpointSuffix=core".into(), "AcctKeyValue0123456789abc".into()),
        ("storage-key", format!("az storage account keys list → {key}"), key.clone()),
        ("kubeconfig", "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkKeyDataSecret".into(), "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkKeyDataSecret".into()),
        ("kubeconfig", "    client-certificate-data: LS0tLS1CRUdJTiBDRVJUCertDataSecret".into(), "LS0tLS1CRUdJTiBDRVJUCertDataSecret".into()),
        ("kubeconfig", "    token: KubeTokenSecret0987654321".into(), "KubeTokenSecret0987654321".into()),
        ("url-password", "pulling from https://admin:UrlPassw0rdSecret@registry.example.com/v2".into(), "UrlPassw0rdSecret".into()),
        ("authorization", "Authorization: Basic QmFzaWNBdXRoU2VjcmV0SGVhZGVy".into(), "QmFzaWNBdXRoU2VjcmV0SGVhZGVy".into()),
        ("password", "db login password=PairPassw0rdSecret ok".into(), "PairPassw0rdSecret".into()),
        ("password", "client secret=PairSecretValueSecret ok".into(), "PairSecretValueSecret".into()),
        ("custom", "see ticket-SECRET-99117733 for details".into(), "SECRET-99117733".into()),
    ]
}

fn all_text() -> String {
    seeds()
        .iter()
        .map(|(_, t, _)| t.as_str())
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Every file under `dir`, tar.gz archives unpacked, as (name, bytes).
pub fn files(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).expect("read dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
            continue;
        }
        let bytes = std::fs::read(&p).expect("read");
        if p.to_string_lossy().ends_with(".tar.gz") {
            let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
            for entry in tar.entries().expect("tar") {
                let mut entry = entry.expect("entry");
                let name = format!("{}!{}", p.display(), entry.path().expect("path").display());
                let mut b = Vec::new();
                entry.read_to_end(&mut b).expect("read entry");
                out.push((name, b));
            }
        }
        out.push((p.display().to_string(), bytes));
    }
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn seeded_secrets_of_every_kind_appear_in_no_file_of_the_session_or_its_exports() {
    let tmp = tempfile::tempdir().expect("tmp");
    let state = tmp.path().join("state");
    let redactor =
        Arc::new(Redactor::with_patterns(&["ticket-(SECRET-\\d+)".into()]).expect("pattern"));
    let opts = Options {
        redactor: redactor.clone(),
        ..Options::default()
    };
    let text = all_text();
    let mut start = crate::evidence_script::start();
    start.alert = Some(format!("SwiftPendingProgramming {}", seeds()[0].1));
    let mut s = Session::create_with(&state, start, opts).expect("create");
    s.append(Record::NodeEntered {
        node: "guide.md#step-1".into(),
    })
    .expect("append");
    s.append(Record::VariableSet {
        name: "TOKEN".into(),
        value: text.clone(),
        source: "operator".into(),
    })
    .expect("append");
    // A small output (inline) and a large one (blob) streamed in 7-byte writes.
    let mut small = ProbeRun {
        probe: "guide.md#step-1/8".into(),
        command: text.clone(),
        backend: "shell".into(),
        target: text.clone(),
        exit: Some(0),
        ..Default::default()
    };
    s.store_output(text.as_bytes())
        .expect("store")
        .apply_to(&mut small);
    s.append(Record::ProbeRun(small)).expect("append");
    let mut w = s.blob_writer().expect("blob writer");
    let big = format!("{}{text}", "filler line without secrets\n".repeat(3000)).repeat(3);
    for chunk in big.as_bytes().chunks(7) {
        w.write_all(chunk).expect("write");
    }
    let b = w.finish().expect("finish");
    assert!(
        b.redactions >= 3 * seeds().len() as u64,
        "{} redactions",
        b.redactions
    );
    let mut large = ProbeRun {
        probe: "guide.md#step-1/9".into(),
        command: "kubectl logs cns".into(),
        backend: "shell".into(),
        exit: Some(0),
        ..Default::default()
    };
    large.blob = Some(b.sha256.clone());
    large.output_sha256 = b.sha256;
    large.output_size = b.size;
    s.append(Record::ProbeRun(large)).expect("append");
    let file = tmp.path().join("cns.log");
    std::fs::write(&file, &text).expect("write");
    s.attach(&file, Some(text.clone())).expect("attach");
    s.append(Record::Note(Note {
        text: text.clone(),
        topic: Some("impact".into()),
        ..Default::default()
    }))
    .expect("append");
    s.append(Record::PriorState(PriorState {
        resource: "deploy/cns".into(),
        field: "spec.replicas".into(),
        value: text.clone(),
        command: text.clone(),
        probe: None,
    }))
    .expect("append");
    s.append(Record::Confirmation(Confirmation {
        command: text.clone(),
        target: "aks-mgmt".into(),
        safety: "mutating".into(),
        probe: None,
        preconditions: vec![text.clone()],
    }))
    .expect("append");
    s.append(Record::EscalationChosen {
        team: "Azure AKS team".into(),
        reason: text.clone(),
    })
    .expect("append");
    s.append(Record::ChecklistTick(ChecklistTick {
        team: "Azure AKS team".into(),
        item: "CNS logs".into(),
        checked: true,
        evidence: vec![6],
    }))
    .expect("append");
    let dir = s.dir().to_owned();
    drop(s);
    assert!(evidence::verify(&dir).expect("verify").ok());

    let guide = tsgnav::tsg::parse_guide(
        "guide.md",
        &std::fs::read_to_string(crate::common::root().join("tests/fixtures/evidence/guide.md"))
            .expect("guide"),
    );
    let esc = evidence::find_team(&guide.escalations, "azure aks team", "guide.md")
        .expect("team")
        .clone();
    let exports = tmp.path().join("exports");
    for (i, format) in [ExportFormat::Md, ExportFormat::Json, ExportFormat::TarGz]
        .into_iter()
        .enumerate()
    {
        let req = ExportRequest {
            escalation: Some(esc.clone()),
            format,
            out: exports.join(format!("bundle-{i}")),
        };
        evidence::export(&dir, &req, &redactor).expect("export");
    }
    evidence::export_handoff(&dir, &exports).expect("handoff");

    let mut all = Vec::new();
    files(tmp.path(), &mut all);
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).expect("journal");
    for (kind, _, secret) in seeds() {
        assert!(
            journal.contains(&format!("[REDACTED:{kind}]")),
            "no {kind} redaction in the journal"
        );
        for (name, bytes) in &all {
            if name.ends_with("cns.log") {
                continue; // the operator's own file, outside the session
            }
            assert!(
                !contains(bytes, &secret),
                "{kind} secret `{secret}` found in {name}"
            );
        }
    }
    let tarred = all.iter().filter(|(n, _)| n.contains(".tar.gz!")).count();
    assert!(tarred >= 6, "unpacked {tarred} archive entries");
}

#[test]
fn a_bad_configured_pattern_is_refused_with_its_position() {
    let e = Redactor::with_patterns(&["fine".into(), "unclosed(".into()]).expect_err("bad regex");
    let msg = e.to_string();
    assert!(
        msg.starts_with("redaction pattern 2 `unclosed(` is not a valid regex"),
        "{msg}"
    );
    let out = crate::common::bin()
        .args(["sessions", "list", "--redact", "(["])
        .env("TSGNAV_STATE_DIR", "unused")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("redaction pattern 1 `([` is not a valid regex"));
}
