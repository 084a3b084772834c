//! Leaks tried once more from outside, after the redaction-by-structure work: forms no other
//! redaction test writes (a kubeconfig's key data, a docker auth, a database URL, a helm
//! `--set`, an az storage key list, a service account's escaped private key, a blob SAS, a
//! cookie). Each secret must be gone and the text around it kept.

#[test]
fn secrets_in_forms_no_other_test_writes_are_redacted() {
    let key = "storageKey1234567890abcdefghijklmnopqrstuvwxyz012345==";
    let cases = [
        (format!("client-key-data: {key}"), "client-key-data:"),
        (format!("{{\"auths\":{{\"r.io\":{{\"auth\":\"{key}\"}}}}}}"), "\"auths\""),
        ("DATABASE_URL=postgres://app:hunter2-secret@db:5432/x".to_string(), "@db:5432/x"),
        ("helm install x --set auth.rootPassword=R00tPassw0rd".to_string(), "helm install x"),
        (format!("[{{\"keyName\": \"key1\", \"permissions\": \"FULL\", \"value\": \"{key}\"}}]"), "\"keyName\": \"key1\""),
        (format!("{{\"type\":\"service_account\",\"private_key\":\"-----BEGIN PRIVATE KEY-----\\nMIIEvQ{key}\\n-----END PRIVATE KEY-----\\n\"}}"), "service_account"),
        (format!("https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig={key}"), "sv=2022-11-02"),
        (format!("Cookie: session={key}"), "Cookie:"),
    ];
    let r = tsgnav::evidence::Redactor::default();
    for (text, kept) in &cases {
        let (out, _) = r.redact_str(text);
        for secret in [key, "hunter2-secret", "R00tPassw0rd"] {
            assert!(!out.contains(secret), "leaked `{secret}`:\n{text}\n→ {out}");
        }
        assert!(
            out.contains(kept),
            "over-redacted `{kept}`:\n{text}\n→ {out}"
        );
    }
}
