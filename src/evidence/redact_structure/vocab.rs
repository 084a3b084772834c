//! The secret vocabulary: whether a key, attribute, header, flag or query parameter names a
//! secret (in the spirit of detect-secrets' keyword detector), and whether a value looks
//! random enough to be one (entropy). Pure; must not import `cli`, `tui` or `query`.

/// Words that name a secret on their own.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwords",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "secrets",
    "token",
    "tokens",
    "apikey",
    "credential",
    "credentials",
    "creds",
    "auth",
    "authorization",
    "connectionstring",
    "sas",
    "signature",
    "sig",
    "cookie",
    "privatekey",
    "masterkey",
    "accountkey",
    "accesskey",
    "sharedkey",
    "secretkey",
    "pat",
    "dsn",
];

/// Words that make a following `key` a secret one (`primaryKey`, `routing_key` …).
const KEY_QUALIFIERS: &[&str] = &[
    "primary",
    "secondary",
    "account",
    "access",
    "shared",
    "client",
    "signing",
    "encryption",
    "api",
    "private",
    "master",
    "subscription",
    "storage",
    "function",
    "functions",
    "host",
    "admin",
    "secret",
    "auth",
    "webhook",
    "routing",
    "integration",
    "service",
    "license",
    "instrumentation",
    "readonly",
    "read",
    "write",
    "hmac",
    "unseal",
    "recovery",
    "root",
    "session",
    "symmetric",
    "sym",
];

/// A last word that makes the name describe a secret rather than hold one.
const NOT_A_VALUE: &[&str] = &[
    "name",
    "names",
    "id",
    "ids",
    "type",
    "types",
    "url",
    "uri",
    "path",
    "file",
    "files",
    "version",
    "expiry",
    "expiration",
    "expires",
    "expireson",
    "ref",
    "count",
    "length",
    "size",
    "policy",
    "policies",
    "vault",
    "format",
    "alg",
    "algorithm",
    "enabled",
    "mode",
    "kind",
    "hint",
    "set",
    "created",
    "updated",
    "time",
    "date",
    "at",
    "on",
    "rotation",
    "permissions",
    "source",
    "label",
    "prefix",
    "suffix",
    "field",
    "required",
    "exists",
    "provider",
    "method",
    "endpoint",
    "scope",
    "scopes",
    "store",
    "dir",
    "location",
    "env",
    "header",
    "reference",
    "lifetime",
    "ttl",
    "issuer",
    "audience",
    "status",
    "state",
    "selector",
    "mount",
    "mounts",
    "volume",
];

/// The words of a name: split at `-`, `_`, `.`, spaces and camelCase humps, lower-cased.
pub fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Whether a key, attribute, header or flag name says its value is a secret: `password`,
/// `DB_PASSWORD`, `userPWD`, `primaryMasterKey`, `Ocp-Apim-Subscription-Key`, `client-secret`
/// — but not `keyName`, `tokenUrl`, `secretRef`, `publicKey` or a bare `key` (tolerations and
/// label selectors have one).
pub fn names_secret(name: &str) -> bool {
    let w = words(name);
    let Some(last) = w.last() else {
        return false;
    };
    if NOT_A_VALUE.contains(&last.as_str()) || w.iter().any(|x| x == "public" || x == "pub") {
        return false;
    }
    // Digits end many names (`password2`, `key1`): compare without them.
    let bare = |s: &str| s.trim_end_matches(|c: char| c.is_ascii_digit()).to_owned();
    let w: Vec<String> = w.iter().map(|x| bare(x)).collect();
    let joined = w.concat();
    if w.iter().any(|x| SECRET_WORDS.contains(&x.as_str())) {
        return true;
    }
    // `DB_PASS`, `smtpPass`: "pass" ends a longer name (alone it is a test count).
    if w.len() > 1 && w.last().is_some_and(|x| x == "pass") {
        return true;
    }
    if [
        "connectionstring",
        "privatekey",
        "masterkey",
        "apikey",
        "accountkey",
        "accesskey",
    ]
    .iter()
    .any(|j| joined.contains(j))
    {
        return true;
    }
    w.windows(2)
        .any(|p| p[1] == "key" && KEY_QUALIFIERS.contains(&p[0].as_str()))
        || w.iter().any(|x| {
            x.len() > 3 && x.ends_with("key") && KEY_QUALIFIERS.contains(&x.trim_end_matches("key"))
        })
}

/// A URL query parameter that carries a secret: the vocabulary, plus `code` (Azure
/// Functions), `key` and the short forms services use.
pub fn param_is_secret(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_str(),
        "code"
            | "key"
            | "sig"
            | "token"
            | "access_token"
            | "api_key"
            | "apikey"
            | "secret"
            | "password"
            | "pwd"
            | "client_secret"
            | "routing_key"
            | "auth"
            | "sv_sig"
            | "x-amz-signature"
            | "x-goog-signature"
            | "x-amz-security-token"
            | "private_token"
    ) || names_secret(name)
}

/// Whether a value is too short, too plain or a reference to be worth redacting: empty,
/// `null`, booleans, a `$VAR`/`${VAR}`/`$(…)` reference, a `<placeholder>`, already redacted,
/// or masked (`****`).
pub fn is_plain(v: &str) -> bool {
    let t = v.trim();
    let lower = t.to_ascii_lowercase();
    t.len() < 3
        || is_marker(t)
        || matches!(
            lower.as_str(),
            "null"
                | "none"
                | "true"
                | "false"
                | "<none>"
                | "nil"
                | "undefined"
                | "redacted"
                | "<redacted>"
                | "(redacted)"
                | "unset"
                | "string"
                | "securestring"
                | "|"
                | ">"
                | "|-"
                | ">-"
                | "|+"
                | "{}"
                | "[]"
                | "\"\""
                | "''"
        )
        || t.chars()
            .all(|c| c == '*' || c == 'x' || c == 'X' || c == '•')
        || (t.starts_with('$')
            && t[1..]
                .chars()
                .next()
                .is_some_and(|c| c == '{' || c == '(' || c == '_' || c.is_ascii_alphabetic()))
        || (t.starts_with('<') && t.ends_with('>') && !t.contains('\n'))
}

/// A value that is one redaction marker and nothing else (`[REDACTED:kind]`).
pub fn is_marker(v: &str) -> bool {
    v.strip_prefix("[REDACTED:")
        .and_then(|r| r.strip_suffix(']'))
        .is_some_and(|k| {
            k.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

/// Shannon entropy in bits per character.
pub fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[b as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// A long random-looking token: base64 (20+ characters, letters of both cases and digits,
/// entropy above 4.0 bits) or hex (32+ digits, entropy above 3.0), and not an ordinary shape
/// (a UUID, a `sha256:` digest, a number).
pub fn looks_random(v: &str) -> bool {
    let t = v.trim().trim_matches(|c| c == '"' || c == '\'');
    if t.contains(|c: char| c.is_whitespace()) || t.starts_with("sha256:") || is_uuid(t) {
        return false;
    }
    let hex = t.len() >= 32 && t.bytes().all(|b| b.is_ascii_hexdigit());
    if hex {
        return entropy(t) > 3.0;
    }
    let b64 = t.len() >= 20
        && t.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+/=_-.~".contains(&b));
    b64 && t.bytes().any(|b| b.is_ascii_digit())
        && t.bytes().any(|b| b.is_ascii_uppercase())
        && t.bytes().any(|b| b.is_ascii_lowercase())
        && entropy(t) > 4.0
}

fn is_uuid(t: &str) -> bool {
    t.len() == 36
        && t.char_indices().all(|(i, c)| {
            if [8, 13, 18, 23].contains(&i) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_hold_secrets_and_names_that_describe_them() {
        for n in [
            "password",
            "DB_PASSWORD",
            "userPWD",
            "publishingPassword",
            "primaryMasterKey",
            "primaryKey",
            "secondaryKey",
            "Ocp-Apim-Subscription-Key",
            "X-Api-Key",
            "client-secret",
            "routing_key",
            "AccountKey",
            "connectionString",
            "api_key",
            "x-functions-key",
            "Private-Token",
            "password2",
            "auth",
            "sasToken",
            "hmac_key",
            "DB_PASS",
        ] {
            assert!(names_secret(n), "{n} names a secret");
        }
        for n in [
            "keyName",
            "key",
            "tokenUrl",
            "secretRef",
            "publicKey",
            "secretName",
            "name",
            "value",
            "image",
            "passwordProfileType",
            "kid",
            "monkey",
            "keys",
            "tokenExpiry",
            "authority",
            "author",
            "uid",
            "resourceVersion",
            "passing",
            "pass",
        ] {
            assert!(!names_secret(n), "{n} does not hold a secret");
        }
    }

    #[test]
    fn random_tokens_are_told_from_ordinary_ids() {
        assert!(looks_random("q8Zr2LmX0vT7bN4kW9sY1dF6hJ3pC5"));
        assert!(looks_random(
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
        ));
        for plain in [
            "5b1a6c1e-3f3e-4a3b-9a63-2d6f0c7f0e11",
            "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "123456789012",
            "aks-nodepool1-12345678-vmss000000",
            "ingress-nginx-controller",
        ] {
            assert!(!looks_random(plain), "{plain}");
        }
    }
}
