//! Every redaction rule's examples: tsgnav's own rules carry hand-written examples; the
//! maintained `nosecrets-rules` set ships none, so one example per rule is generated from the
//! rule's own pattern. Each example's secret appears in no file a session writes (journal,
//! signatures, blobs fed in chunks that straddle it, attachments, the IcM bundle, the
//! hand-off) nor in `tsgnav run --json`.

use std::io::Write;

use regex_syntax::hir::{Class, Hir, HirKind};
use tsgnav::evidence::{self, Note, Options, ProbeRun, Record, Session};

/// Characters tried for a character class (from a pseudo-random start), so a secret is neither
/// all one letter nor the same as another rule's.
const PICK: &str = "q7Wm3bZ0yT8kR2vN6xL4cJ9hG1fD5sAeUiOpXo";

/// Text matching `hir` (shortest repetitions, first alternatives).
fn sample(hir: &Hir, n: &mut u64, out: &mut String) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(l) => out.push_str(&String::from_utf8_lossy(&l.0)),
        HirKind::Class(c) => {
            let has = |ch: char| match c {
                Class::Unicode(u) => u.ranges().iter().any(|r| r.start() <= ch && ch <= r.end()),
                Class::Bytes(b) => b
                    .ranges()
                    .iter()
                    .any(|r| (r.start() as char) <= ch && ch <= (r.end() as char)),
            };
            // A small LCG: varied characters, the same on every run.
            *n = n
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let rot: Vec<char> = PICK.chars().collect();
            let at = (*n >> 33) as usize;
            let pick = (0..rot.len())
                .map(|i| rot[(at + i) % rot.len()])
                .find(|&ch| has(ch))
                .or_else(|| "_-+/=.:' \t\"".chars().find(|&ch| has(ch)))
                .or_else(|| match c {
                    Class::Unicode(u) => u.ranges().first().map(|r| r.start()),
                    Class::Bytes(b) => b.ranges().first().map(|r| r.start() as char),
                });
            out.extend(pick);
        }
        HirKind::Repetition(r) => {
            // `+` and `{n,}` get 12 (secrets are rarely one character); bounded ones their minimum.
            let times = if r.max.is_none() && r.min > 0 {
                r.min.max(12)
            } else {
                r.min
            };
            for _ in 0..times {
                sample(&r.sub, n, out);
            }
        }
        HirKind::Capture(c) => sample(&c.sub, n, out),
        HirKind::Concat(parts) => parts.iter().for_each(|p| sample(p, n, out)),
        HirKind::Alternation(alts) => {
            if let Some(a) = alts.first() {
                sample(a, n, out)
            }
        }
    }
}

/// (rule kind, example text, the secret in it) for every built-in rule.
pub fn examples() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for r in evidence::OWN_RULES {
        for (text, secret) in r.examples {
            out.push((r.kind.to_owned(), (*text).to_owned(), (*secret).to_owned()));
        }
    }
    let rules = evidence::redaction_rules();
    let mut generated = 0;
    for (i, r) in rules
        .iter()
        .filter(|r| r.source == "nosecrets-rules")
        .enumerate()
    {
        let hir = regex_syntax::parse(&r.pattern).expect("rule pattern parses");
        let mut text = String::new();
        sample(&hir, &mut (i as u64 + 1), &mut text);
        let text = format!("found {text} here");
        let re = regex::Regex::new(&r.pattern).expect("rule pattern compiles");
        let caps = re
            .captures(&text)
            .unwrap_or_else(|| panic!("{}: the generated example `{text}` does not match", r.kind));
        let secret = caps
            .get(r.group)
            .or_else(|| caps.get(0))
            .map(|m| m.as_str().to_owned())
            .unwrap_or_default();
        assert!(secret.len() >= 4, "{}: secret `{secret}` too short", r.kind);
        out.push((r.kind.clone(), text, secret));
        generated += 1;
    }
    assert!(
        generated >= 40,
        "the maintained rule set has {generated} rules"
    );
    out
}

/// A Kubernetes Secret (YAML and JSON) and a ConfigMap whose data must stay readable.
const SECRET_YAML: &str = "apiVersion: v1\ndata:\n  tls.crt: Y3J0LWJvZHktZmFrZS0wMQ==\n  tls.key: a2V5LWJvZHktZmFrZS0wMg==\nkind: Secret\nmetadata:\n  name: ingress-tls\n---\napiVersion: v1\ndata:\n  region: westus3\nkind: ConfigMap\nmetadata:\n  name: settings\n---\n";
const SECRET_JSON: &str = "{\n    \"apiVersion\": \"v1\",\n    \"data\": {\n        \"password\": \"cHctZmFrZS1qc29uLTAz\"\n    },\n    \"kind\": \"Secret\"\n}\n{\"apiVersion\":\"v1\",\"data\":{\"token\":\"dG9rLWZha2UtY29tcGFjdC0wNA==\"},\"kind\":\"Secret\"}\n";
const SECRET_VALUES: [&str; 4] = [
    "Y3J0LWJvZHktZmFrZS0wMQ==",
    "a2V5LWJvZHktZmFrZS0wMg==",
    "cHctZmFrZS1qc29uLTAz",
    "dG9rLWZha2UtY29tcGFjdC0wNA==",
];

/// The Kubernetes documents first: a PEM header without its end (one generated example)
/// hides everything after it, by design.
fn all_text() -> String {
    let mut t = format!("{SECRET_YAML}{SECRET_JSON}---\n");
    t.extend(examples().iter().map(|(_, text, _)| format!("{text}\n")));
    t
}

fn secrets() -> Vec<(String, String)> {
    let mut s: Vec<(String, String)> = examples().into_iter().map(|(k, _, s)| (k, s)).collect();
    s.extend(
        SECRET_VALUES
            .iter()
            .map(|v| ("k8s-secret".to_owned(), (*v).to_owned())),
    );
    s.push(("secret-var".into(), "s3cr3t-var-value-91".into()));
    s
}

fn assert_absent(files: &[(String, Vec<u8>)], what: &str) {
    let mut leaks = Vec::new();
    for (kind, secret) in secrets() {
        for (name, bytes) in files {
            if bytes.windows(secret.len()).any(|w| w == secret.as_bytes()) {
                leaks.push(format!("{kind}: `{secret}` in {name}"));
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "{what}: {} leaks:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}

#[test]
fn every_rules_examples_are_absent_from_every_file_a_session_writes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let state = tmp.path().join("state");
    let opts = Options {
        key: Ok(crate::evidence_script::test_key()),
        ..Options::default()
    };
    let text = all_text();
    let mut s =
        Session::create_with(&state, crate::evidence_script::start(), opts).expect("create");
    s.append(Record::VariableSet {
        name: "DB_PASSWORD".into(),
        value: "s3cr3t-var-value-91".into(),
        source: "operator".into(),
    })
    .expect("append");
    s.append(Record::NodeEntered {
        node: "guide.md#step-1".into(),
    })
    .expect("append");
    // Inline: the command and the output hold every example.
    let mut run = ProbeRun {
        probe: "guide.md#step-1/3".into(),
        command: format!("echo s3cr3t-var-value-91; cat <<'EOF'\n{text}EOF"),
        backend: "shell".into(),
        exit: Some(0),
        ..Default::default()
    };
    s.store_output(text.as_bytes())
        .expect("store")
        .apply_to(&mut run);
    assert!(run.output.is_some(), "inline");
    s.append(Record::ProbeRun(run)).expect("append");
    // Blobs, fed in chunks of 7 and 4096 bytes so secrets straddle writes.
    let big = format!("{}{text}", "padding line\n".repeat(6000));
    for chunk in [7, 4096] {
        let mut w = s.blob_writer().expect("writer");
        for c in big.as_bytes().chunks(chunk) {
            w.write_all(c).expect("write");
        }
        let b = w.finish().expect("finish");
        s.append(Record::Note(Note {
            text: format!("blob fed in {chunk}-byte chunks"),
            blob: Some(b.sha256),
            blob_size: b.size,
            ..Default::default()
        }))
        .expect("append");
    }
    let file = tmp.path().join("evidence.txt");
    std::fs::write(&file, &text).expect("write");
    s.attach(&file, Some(format!("attached: {}", &text[..200])))
        .expect("attach");
    s.append(Record::Note(Note {
        text: text.clone(),
        ..Default::default()
    }))
    .expect("append");
    let dir = s.dir().to_owned();
    drop(s);
    let out = tmp.path().join("out");
    let req = evidence::ExportRequest {
        escalation: None,
        format: evidence::ExportFormat::TarGz,
        out: out.join("bundle"),
    };
    evidence::export(&dir, &req, &Default::default()).expect("export");
    evidence::export_handoff(&dir, &out).expect("handoff");
    assert_eq!(evidence::verify(&dir).expect("verify").problem, None);
    let mut all = Vec::new();
    crate::evidence_redact::files(tmp.path().join("state").as_path(), &mut all);
    crate::evidence_redact::files(&out, &mut all);
    assert!(all.len() > 8, "{} files", all.len());
    assert_absent(&all, "session and exports");
    // Redaction keeps what is not secret.
    let journal =
        String::from_utf8_lossy(&std::fs::read(dir.join("journal.jsonl")).expect("j")).into_owned();
    assert!(
        journal.contains("region: westus3"),
        "a ConfigMap's data stays"
    );
    assert!(
        journal.contains("tls.key: [REDACTED:k8s-secret]"),
        "a Secret's keys stay"
    );
    assert!(journal.contains("[REDACTED:pem-private-key]"));
}

#[test]
fn run_json_prints_no_secret_and_no_redact_is_refused_into_a_pipe() {
    // The probe reads its data from a file. The target folder is not in /tmp (which the jail
    // hides from probes) in a checkout, but a fresh clone may live in /tmp: there the probe
    // runs with the jail off, since this test is about redaction, not isolation.
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tmp");
    let jail = if tmp.path().starts_with("/tmp") {
        "off"
    } else {
        "on"
    };
    let data = tmp.path().join("probe-output.txt");
    std::fs::write(&data, all_text()).expect("write");
    let guide = tmp.path().join("leaky.md");
    std::fs::write(
        &guide,
        format!(
            "# Leaky probe\n\n## Step 1: print the stored output\n\n```bash\ncat {}\necho \"$DB_PASSWORD\"\n```\n",
            data.display()
        ),
    )
    .expect("guide");
    let node = format!("{}#step-1-print-the-stored-output", guide.display());
    std::fs::create_dir_all(tmp.path().join("cfg")).expect("cfg");
    std::fs::write(tmp.path().join("cfg/config.toml"), "").expect("config");
    let run = |extra: &[&str]| {
        crate::common::bin()
            .env("TSGNAV_STATE_DIR", tmp.path().join("state"))
            .env("TSGNAV_CONFIG", tmp.path().join("cfg/config.toml"))
            .env("TSGNAV_JAIL", jail)
            .args([
                "run",
                &node,
                "--json",
                "--secret-var",
                "DB_PASSWORD=s3cr3t-var-value-91",
            ])
            .args(extra)
            .output()
            .expect("run")
    };
    let out = run(&[]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let v: serde_json::Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {stdout}{}", String::from_utf8_lossy(&out.stderr)));
    let output = v["results"][0]["output"].as_str().unwrap_or_default();
    assert!(output.contains("[REDACTED:"), "{stdout}");
    assert!(
        output.contains("padding") || output.contains("found"),
        "the probe ran: {stdout}"
    );
    let mut files = vec![
        ("stdout".to_owned(), out.stdout.clone()),
        ("stderr".to_owned(), out.stderr.clone()),
    ];
    crate::evidence_redact::files(&tmp.path().join("state"), &mut files);
    assert_absent(&files, "tsgnav run --json and its session");
    let refused = run(&["--no-redact"]);
    assert_eq!(
        refused.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(
        String::from_utf8_lossy(&refused.stderr)
            .contains("--no-redact prints secrets, so only to a terminal"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(refused.stdout.is_empty());
}
