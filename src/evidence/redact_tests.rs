//! Tests of redaction.

use super::*;

fn red(s: &str) -> (String, u64) {
    Redactor::default().redact_str(s)
}

#[test]
fn each_kind_is_redacted_and_the_context_kept() {
    let key = format!("{}==", "A".repeat(43) + &"b9+/".repeat(10) + "xyz");
    let cases = [
        (
            "Authorization: Basic dXNlcjpwYXNz",
            "Authorization: [REDACTED:authorization]",
        ),
        (
            "curl -H 'Bearer abc.def-ghi'",
            "curl -H 'Bearer [REDACTED:bearer]'",
        ),
        ("t=eyJhbGciOi.eyJzdWIiOjE.c2ln end", "t=[REDACTED:jwt] end"),
        (
            "https://a.blob.core.windows.net/c?sv=1&sig=AbC%2Bd%3D&se=2",
            "https://a.blob.core.windows.net/c?sv=1&sig=[REDACTED:sas-sig]&se=2",
        ),
        (
            "AccountName=a;AccountKey=Zm9v/bar+==;EndpointSuffix=x",
            "AccountName=a;AccountKey=[REDACTED:account-key];EndpointSuffix=x",
        ),
        (
            "    client-key-data: LS0tLS1CRUdJTg==",
            "    client-key-data: [REDACTED:kubeconfig]",
        ),
        (
            "postgres://admin:hunter2@db:5432/x",
            "postgres://admin:[REDACTED:url-password]@db:5432/x",
        ),
        (
            "login password=hunter2 ok",
            "login password=[REDACTED:password] ok",
        ),
        (&format!("key {key} end"), "key [REDACTED:storage-key] end"),
    ];
    for (input, want) in cases {
        let (got, n) = red(input);
        assert_eq!(got, want, "input: {input}");
        assert_eq!(n, 1, "input: {input}");
    }
}

#[test]
fn redaction_is_idempotent_and_leaves_plain_text_alone() {
    let (once, n) = red("Authorization: Bearer eyJa.eyJb.c token: abc password=x");
    // A header's value is the rest of its line: redacted whole.
    assert!(n >= 1);
    for secret in ["eyJa", "abc", "password=x"] {
        assert!(!once.contains(secret), "{once}");
    }
    assert_eq!(red(&once), (once.clone(), 0));
    assert_eq!(
        red("kubectl get pods -n kube-system"),
        ("kubectl get pods -n kube-system".into(), 0)
    );
}

#[test]
fn default_redactors_share_the_rules_but_not_the_secret_values() {
    let a = Redactor::default();
    let b = Redactor::default();
    a.add_secret("hunter2-value");
    assert_eq!(a.redact_str("pw hunter2-value").1, 1);
    assert_eq!(
        b.redact_str("pw hunter2-value"),
        ("pw hunter2-value".into(), 0),
        "a secret of one session must not change another's records"
    );
    assert_eq!(a.kinds(), b.kinds());
    assert_eq!(b.redact_str("Authorization: Basic dXNlcjpwYXNz").1, 1);
}

#[test]
fn configured_patterns_apply_and_bad_ones_are_named() {
    let r = Redactor::with_patterns(&["ticket-(\\d+)".into()]).unwrap();
    assert_eq!(
        r.redact_str("see ticket-4711"),
        ("see ticket-[REDACTED:custom]".into(), 1)
    );
    let e = Redactor::with_patterns(&["ok".into(), "(".into()]).unwrap_err();
    assert_eq!(e.index, 2);
    assert!(e.to_string().contains("`(`"));
}
