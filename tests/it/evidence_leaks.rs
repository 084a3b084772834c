//! Secrets found by structure, end to end: a guide whose probes decode them at run time (so the
//! guide never holds them) prints every family of `evidence_structure`, once inline and once
//! into a blob; a probe holds a secret literally in its code; variables of plain names carry a
//! connection string and a random token. None of it may appear in `tsgnav run --json`, the
//! session (journal, signatures, blobs) or any export (summary.md, summary.json, manifest.json,
//! the IcM .tar.gz and the hand-off .tar.gz, unpacked).

use base64::Engine as _;

const LITERAL: &str = "LitPw-6677q";
const VAR_CONN: &str = "VarConnPw-5544";
const VAR_TOKEN: &str = "Zx81QpLm02NbVc39RtYu47WeSd56AfGh";

#[test]
fn structured_secrets_printed_at_run_time_reach_no_file_and_no_json() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cases = crate::evidence_structure::cases();
    let text: String = cases.iter().map(|(_, t, _, _)| format!("{t}\n")).collect();
    let b64 = base64::engine::general_purpose::STANDARD.encode(&text);
    let guide = tmp.path().join("leaky.md");
    std::fs::write(
        &guide,
        format!(
            "# Leaky outputs\n\n## Step 1: print them\n\n```bash\necho '{b64}' | base64 -d\n```\n\n```bash\nhead -c 70000 /dev/zero | tr '\\0' p; echo\necho '{b64}' | base64 -d\n```\n\n```bash\necho 'sshpass -p {LITERAL} ssh ops@bastion' | wc -c\n```\n"
        ),
    )
    .expect("guide");
    let state = tmp.path().join("state");
    std::fs::create_dir_all(tmp.path().join("cfg")).expect("cfg");
    std::fs::write(tmp.path().join("cfg/config.toml"), "").expect("config");
    let cli = || {
        let mut c = crate::common::bin();
        c.env("TSGNAV_STATE_DIR", &state)
            .env("TSGNAV_CONFIG", tmp.path().join("cfg/config.toml"));
        c
    };
    let out = cli()
        .args([
            "run",
            &format!("{}#step-1-print-them", guide.display()),
            "--json",
        ])
        .args([
            "--var",
            &format!("CONN=Server=sql.internal;Password={VAR_CONN}"),
        ])
        .args(["--var", &format!("BLOB={VAR_TOKEN}")])
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let v: serde_json::Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {stdout}{}", String::from_utf8_lossy(&out.stderr)));
    let results = v["results"].as_array().expect("results");
    assert_eq!(results.len(), 3, "{stdout}");
    let first = results[0]["output"].as_str().unwrap_or_default();
    assert!(
        first.contains("[REDACTED:") && first.contains("sql.internal"),
        "the probe ran and its output kept its structure: {stdout}"
    );
    let exports = tmp.path().join("exports");
    for (i, format) in ["md", "json", "tar.gz"].iter().enumerate() {
        let o = cli()
            .args(["sessions", "export", "latest", "--format", format, "--out"])
            .arg(exports.join(format!("f{i}")))
            .output()
            .expect("export");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = cli()
        .args(["sessions", "export", "latest", "--handoff", "--out"])
        .arg(exports.join("handoff"))
        .output()
        .expect("handoff");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let mut files = vec![("run --json".to_owned(), out.stdout.clone())];
    crate::evidence_redact::files(&state, &mut files);
    crate::evidence_redact::files(&exports, &mut files);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    for want in [
        "journal.jsonl",
        "summary.md",
        "summary.json",
        "manifest.json",
        "blobs/",
    ] {
        assert!(
            names.iter().any(|n| n.contains(want)),
            "no {want} in {names:?}"
        );
    }
    assert!(
        names.iter().filter(|n| n.contains(".tar.gz!")).count() >= 2,
        "{names:?}"
    );
    let mut secrets: Vec<(String, String)> = cases
        .iter()
        .flat_map(|(family, _, s, _)| s.iter().map(|s| (family.to_string(), s.to_string())))
        .collect();
    secrets.push(("literal in code".into(), LITERAL.into()));
    secrets.push(("--var CONN".into(), VAR_CONN.into()));
    secrets.push(("--var BLOB".into(), VAR_TOKEN.into()));
    let mut leaks = Vec::new();
    for (family, secret) in &secrets {
        for (name, bytes) in &files {
            if bytes.windows(secret.len()).any(|w| w == secret.as_bytes()) {
                leaks.push(format!("{family}: `{secret}` in {name}"));
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "{} leaks:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}
