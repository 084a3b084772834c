//! The redaction rules: the maintained rule set of the `nosecrets-rules` crate (MIT, see
//! README) plus tsgnav's own rules for what it lacks (Azure SAS and keys, kubeconfig data,
//! PEM blocks, CLI secret arguments, headers, variable names that look secret …). Each own
//! rule carries examples (written for tsgnav, fake values) that the tests redact. Pure data
//! and regex compilation; must not import `cli`, `tui` or `query`.

/// One of tsgnav's own rules: `kind` names it in `[REDACTED:<kind>]`; the secret is capture
/// group `s` (else group 1, else the whole match). `examples`: (text, the secret in it).
#[derive(Debug, Clone, Copy)]
pub struct OwnRule {
    pub kind: &'static str,
    pub pattern: &'static str,
    pub examples: &'static [(&'static str, &'static str)],
}

/// A rule as compiled: where it comes from, its kind and pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleInfo {
    /// `tsgnav` or `nosecrets-rules`.
    pub source: &'static str,
    pub kind: String,
    pub pattern: String,
    /// The capture group holding the secret (0: the whole match).
    pub group: usize,
}

/// tsgnav's own rules. `[^\[…]` as a value's first character keeps redaction idempotent.
pub const OWN: &[OwnRule] = &[
    OwnRule {
        kind: "authorization",
        pattern: r#"(?i)\b(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?P<s>(?:(?:bearer|basic|digest|negotiate|ntlm|sharedkey|pop|token)\s+)?[^\s"'\[][^\s"']*)"#,
        examples: &[("Authorization: Basic c3JlOm9uLWNhbGwtcGFzcw==", "c3JlOm9uLWNhbGwtcGFzcw==")],
    },
    OwnRule {
        kind: "jwt",
        pattern: r"\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+",
        examples: &[("id eyJhbGciOiJSUzI1NiJ9.eyJvaWQiOiIxMjMifQ.c2lnbmF0dXJlLWJ5dGVz end", "eyJhbGciOiJSUzI1NiJ9.eyJvaWQiOiIxMjMifQ.c2lnbmF0dXJlLWJ5dGVz")],
    },
    OwnRule {
        kind: "bearer",
        pattern: r"(?i)\bbearer\s+(?P<s>[A-Za-z0-9\-._~+/]+=*)",
        examples: &[("curl -H 'Bearer opaque.tok-91Xq' https://x", "opaque.tok-91Xq")],
    },
    OwnRule {
        kind: "sas-sig",
        pattern: r"(?i)\bsig=(?P<s>[^\s&\[\x22'][^\s&\x22']*)",
        examples: &[("https://diag.blob.core.windows.net/logs?sv=2022-11-02&se=2026-12-01&sig=Qm9ndXNTaWduYXR1cmU%3D", "Qm9ndXNTaWduYXR1cmU%3D")],
    },
    OwnRule {
        kind: "account-key",
        pattern: r#"(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)[ \t]*=[ \t]*(?P<s>[^\s;"'\[][^\s;"']*)"#,
        examples: &[
            ("DefaultEndpointsProtocol=https;AccountName=diag;AccountKey=ZmFrZS1zdG9yYWdlLWtleS1mb3ItdGVzdHM=;EndpointSuffix=core.windows.net", "ZmFrZS1zdG9yYWdlLWtleS1mb3ItdGVzdHM="),
            ("Endpoint=sb://ops-bus.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=c2VydmljZWJ1cy1rZXktZm9yLXRlc3Rz", "c2VydmljZWJ1cy1rZXktZm9yLXRlc3Rz"),
        ],
    },
    OwnRule {
        kind: "storage-key",
        pattern: r"(?:^|[^A-Za-z0-9+/=])(?P<s>[A-Za-z0-9+/]{86}==)",
        examples: &[("key1 q7Wm3bP0zYt8kR2vN6xL4cJ9hG1fD5sA0eU3iO7pQ2wE6rT8yB4nM1kL9jH5gF3dS7aZ0xC2vB6nM8qW4eR1tY== key2", "q7Wm3bP0zYt8kR2vN6xL4cJ9hG1fD5sA0eU3iO7pQ2wE6rT8yB4nM1kL9jH5gF3dS7aZ0xC2vB6nM8qW4eR1tY==")],
    },
    OwnRule {
        kind: "kubeconfig",
        pattern: r#"(?i)\b(?:client-key-data|client-certificate-data|certificate-authority-data|token|id-token|refresh-token|access-token)["']?[ \t]*:[ \t]*["']?(?P<s>[^\s"'\[][^\s"']*)"#,
        examples: &[
            ("    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpmYWtl", "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpmYWtl"),
            ("    token: sa-token-0f9e8d7c6b5a", "sa-token-0f9e8d7c6b5a"),
        ],
    },
    OwnRule {
        kind: "url-password",
        pattern: r"\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:(?P<s>[^/\s@\[][^/\s@]*)@",
        examples: &[("amqp://svc:Tr0ub4dor-x@mq.internal:5672/", "Tr0ub4dor-x")],
    },
    OwnRule {
        kind: "password",
        pattern: r#"(?i)\b(?:password|passwd|pwd|secret|token|client[_-]?secret|api[_-]?key|access[_-]?key|private[_-]?key)["']?[ \t]*[=:][ \t]*["']?(?P<s>[^\s"'&;,\[][^\s"'&;,]*)"#,
        examples: &[("login password=Hunter2-oncall ok", "Hunter2-oncall")],
    },
    OwnRule {
        kind: "pem-private-key",
        pattern: r"(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----(?P<s>.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|\z)",
        examples: &[
            ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAfakefakefake1\nZmFrZS1yc2Eta2V5LWJvZHk=\n-----END RSA PRIVATE KEY-----\n", "MIIEpAIBAAKCAQEAfakefakefake1"),
            ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAfake2\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAAfake2"),
            (r#"{"key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiGfake3\n-----END PRIVATE KEY-----\n"}"#, "MIIEvQIBADANBgkqhkiGfake3"),
        ],
    },
    OwnRule {
        kind: "cli-secret-arg",
        pattern: r#"(?i)(?:^|\s)--?(?:token|password|passwd|client-secret|secret|api-key|access-key|account-key|sas-token|auth-token)(?:=|\s+)["']?(?P<s>[^\s"'\[][^\s"']*)"#,
        examples: &[
            ("kubectl --token sa-91f0e7d2c4 get pods", "sa-91f0e7d2c4"),
            ("az login --service-principal -u app --password=Pr1ncipalPw-77 --tenant t", "Pr1ncipalPw-77"),
            ("az ad sp create --client-secret 'Cl1entS3cret~x' -o none", "Cl1entS3cret~x"),
        ],
    },
    OwnRule {
        kind: "cookie",
        pattern: r#"(?i)\b(?:set-)?cookie["']?\s*:\s*(?P<s>[^\s"'\[][^\r\n"']*)"#,
        examples: &[("Cookie: session=4f1c2e9a77; csrftoken=b8d0", "session=4f1c2e9a77; csrftoken=b8d0")],
    },
    OwnRule {
        kind: "client-principal",
        pattern: r#"(?i)\bx-ms-client-principal(?:-id|-name)?["']?[ \t]*:[ \t]*["']?(?P<s>[^\s"'\[][^\s"']*)"#,
        examples: &[("x-ms-client-principal: eyJ1c2VyIjoib25jYWxsIn0fakeprincipal", "eyJ1c2VyIjoib25jYWxsIn0fakeprincipal")],
    },
    OwnRule {
        kind: "aws-access-key-id",
        pattern: r"\b(?P<s>(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b",
        examples: &[("aws_access_key_id = AKIAQ7ZTESTKEY2345AB", "AKIAQ7ZTESTKEY2345AB")],
    },
    OwnRule {
        kind: "aws-secret-key",
        pattern: r#"(?i)aws_?secret_?access_?key["']?[ \t]*[=:][ \t]*["']?(?P<s>[A-Za-z0-9/+=]{40})"#,
        examples: &[("AWS_SECRET_ACCESS_KEY=w3Jx7Yq1Lr9Zb2Nc8Vd4Kf6Hg0Pm5Ts1Ua7Oe3Qi", "w3Jx7Yq1Lr9Zb2Nc8Vd4Kf6Hg0Pm5Ts1Ua7Oe3Qi")],
    },
    OwnRule {
        kind: "github-token",
        pattern: r"\b(?P<s>gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
        examples: &[("GH_TOKEN=ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2", "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2")],
    },
    OwnRule {
        kind: "slack",
        pattern: r"(?:https://hooks\.slack\.com/services/(?P<s>[A-Za-z0-9/_+-]+)|\b(?P<t>xox[abposr]-[A-Za-z0-9-]{10,}))",
        examples: &[
            ("post to https://hooks.slack.com/services/T0FAKE123/B0FAKE456/abcdefFAKEhookSECRET99 now", "T0FAKE123/B0FAKE456/abcdefFAKEhookSECRET99"),
            ("SLACK=xoxb-1234567890-fakebottoken", "xoxb-1234567890-fakebottoken"),
        ],
    },
    OwnRule {
        kind: "docker-auth",
        pattern: r#"(?i)"(?:auth|identitytoken|password)"\s*:\s*"(?P<s>[^"\[][^"]*)""#,
        examples: &[(r#"{"auths":{"arohcp.azurecr.io":{"auth":"b25jYWxsOmZha2UtcmVnaXN0cnktcHc="}}}"#, "b25jYWxsOmZha2UtcmVnaXN0cnktcHc=")],
    },
    OwnRule {
        kind: "access-token",
        pattern: r#"(?i)["']?\b(?:access|refresh|id)_?token["']?[ \t]*[:=][ \t]*["']?(?P<s>[^\s"',\[][^\s"',]*)"#,
        examples: &[(r#"{"accessToken": "opaque-access-7c1d9e", "expiresOn": "2026-12-01"}"#, "opaque-access-7c1d9e")],
    },
    OwnRule {
        kind: "secret-variable",
        pattern: r#"(?i)\b(?:[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)[A-Z0-9_]*|[A-Z0-9_]+KEY[A-Z0-9_]*)[ \t]*=[ \t]*(?P<s>'[^'\[][^']*'|"[^"\[][^"]*"|[^\s'";&|\[][^\s;&|]*)"#,
        examples: &[
            ("AZURE_CLIENT_SECRET=Sp-cl1ent-v4lue ./deploy.sh", "Sp-cl1ent-v4lue"),
            ("# env MYSECRET='multi word value'", "multi word value"),
        ],
    },
];

/// The maintained rules (`nosecrets-rules`), or why they could not be read.
pub fn maintained() -> Result<Vec<RuleInfo>, String> {
    let rules = nosecrets_rules::load_builtin_rules().map_err(|e| e.to_string())?;
    Ok(rules
        .into_iter()
        .map(|r| RuleInfo {
            source: "nosecrets-rules",
            kind: r.id,
            pattern: r.pattern,
            group: r.capture,
        })
        .collect())
}

/// Every built-in rule: ours first, then the maintained set.
pub fn builtin() -> Vec<RuleInfo> {
    let mut out: Vec<RuleInfo> = OWN
        .iter()
        .map(|r| RuleInfo {
            source: "tsgnav",
            kind: r.kind.to_owned(),
            pattern: r.pattern.to_owned(),
            group: usize::MAX,
        })
        .collect();
    out.extend(super::redact_shapes::SHAPES.iter().map(|r| RuleInfo {
        source: "tsgnav",
        kind: r.kind.to_owned(),
        pattern: r.pattern.to_owned(),
        group: usize::MAX,
    }));
    out.extend(maintained().unwrap_or_default());
    out
}

/// A variable whose name says it holds a secret (`*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*KEY*` …).
pub fn is_secret_name(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL"]
        .iter()
        .any(|w| n.contains(w))
}
