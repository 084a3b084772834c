//! Evidence export: the IcM Markdown of a scripted session against a golden file, the checklist
//! links, manifest digests and the tar.gz bundle, and team names on the command line.

use std::io::Read;

use tsgnav::evidence::{self, ExportFormat, ExportRequest, Record, SessionLog};

use crate::evidence_script::{aks, scripted, T0};

#[test]
fn the_icm_markdown_of_a_scripted_session_matches_the_golden_file() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = scripted(tmp.path(), T0);
    let req = ExportRequest {
        escalation: Some(aks()),
        format: ExportFormat::Md,
        out: tmp.path().join("out"),
    };
    let done = evidence::export(&dir, &req, &Default::default()).expect("export");
    assert_eq!(
        done.missing,
        vec!["`kubectl get nodeinfo` output", "DNC-RC Kusto excerpt"]
    );
    let id = dir.file_name().expect("id").to_string_lossy().into_owned();
    let md = std::fs::read_to_string(tmp.path().join("out/summary.md"))
        .expect("summary")
        .replace(&id, "SESSION");
    let golden = crate::common::root().join("tests/fixtures/evidence/icm-summary.md");
    if std::env::var_os("TSGNAV_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &md).expect("update golden");
    }
    let want =
        std::fs::read_to_string(&golden).expect("golden file (TSGNAV_UPDATE_GOLDEN=1 writes it)");
    assert!(
        md == want,
        "summary.md differs from {}; run with TSGNAV_UPDATE_GOLDEN=1 and review the diff\n{md}",
        golden.display()
    );
}

#[test]
fn the_bundle_has_a_manifest_of_every_artifact_and_a_tarball_of_it_all() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = scripted(tmp.path(), T0);
    let out = tmp.path().join("bundle");
    let req = ExportRequest {
        escalation: Some(aks()),
        format: ExportFormat::TarGz,
        out: out.clone(),
    };
    let done = evidence::export(&dir, &req, &Default::default()).expect("export");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).expect("manifest"))
            .expect("json");
    let artifacts = manifest["artifacts"].as_array().expect("artifacts");
    assert_eq!(
        artifacts.len(),
        8,
        "summary.md, summary.json, journal.jsonl, journal.sig, journal.jsonl.minisig, operator.pub, two blobs"
    );
    for a in artifacts {
        let bytes = std::fs::read(out.join(a["path"].as_str().expect("path"))).expect("artifact");
        assert_eq!(
            a["sha256"].as_str(),
            Some(evidence::sha256_hex(&bytes).as_str()),
            "{a}"
        );
    }
    assert_eq!(
        manifest["chain_head"].as_str(),
        Some(SessionLog::read(&dir).expect("log").head())
    );
    let tarball = done.tarball.expect("tar.gz");
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(
        std::fs::File::open(&tarball).expect("open"),
    ));
    let mut names = Vec::new();
    for e in tar.entries().expect("entries") {
        let mut e = e.expect("entry");
        let name = e.path().expect("path").to_string_lossy().into_owned();
        if name.ends_with("manifest.json") {
            let mut b = Vec::new();
            e.read_to_end(&mut b).expect("read");
            assert_eq!(evidence::sha256_hex(&b), done.manifest_sha256);
        }
        names.push(name);
    }
    for want in [
        "bundle/summary.md",
        "bundle/summary.json",
        "bundle/journal.jsonl",
        "bundle/manifest.json",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} not in {names:?}");
    }
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).expect("json"))
            .expect("parse");
    let done_flags: Vec<bool> = json["checklist"]["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["done"].as_bool().unwrap_or(false))
        .collect();
    assert_eq!(done_flags, [true, true, false, false]);
}

#[test]
fn team_names_match_case_insensitively_and_a_wrong_one_lists_the_teams() {
    let tmp = tempfile::tempdir().expect("tmp");
    let state = tmp.path().join("state");
    let dir = scripted(&state, T0);
    let cli = |args: &[&str]| {
        crate::common::bin()
            .current_dir(crate::common::root())
            .env("TSGNAV_STATE_DIR", &state)
            .arg("sessions")
            .args(args)
            .output()
            .expect("run")
    };
    let out_dir = tmp.path().join("out");
    let out = cli(&[
        "export",
        "latest",
        "--team",
        "AZURE AKS TEAM",
        "--format",
        "md",
        "--out",
        &out_dir.to_string_lossy(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("still missing: `kubectl get nodeinfo` output; DNC-RC Kusto excerpt"),
        "{stdout}"
    );
    let log = SessionLog::read(&dir).expect("log");
    assert!(
        matches!(&log.entries.last().expect("last").record, Record::Export(x) if x.team.as_deref() == Some("Azure AKS team") && x.format == "md")
    );
    let out = cli(&[
        "export",
        "latest",
        "--team",
        "nmagent",
        "--out",
        &out_dir.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no escalation team `nmagent` in guide.md; valid teams: \"Cloudnet/NRP\", \"Azure AKS team\""), "{err}");
}
