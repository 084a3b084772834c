//! `--key`: the signer a session must have. An operator who was given the key's fingerprint
//! (pasted into the incident), its key id or the sender's minisign public key file names it,
//! and verify and hand-off import fail unless every signature was made by one of the keys
//! named. Every form is matched against the key bytes that checked each signature (its
//! sha256), never against minisign's key number, which whoever makes a key chooses: the
//! fingerprint and the file pin the whole key, the key id is its first 16 hex digits. IO:
//! reads the named file. Must not import `cli`, `tui` or `query`.

use std::path::Path;

use super::keys::PublicKey;
use super::sigs::Signer;

/// One `--key` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpectedKey {
    /// A key id as `sessions verify` prints it (the first 16 hex digits of the fingerprint).
    Id(String),
    /// A full fingerprint (64 hex digits, sha256 of the public key).
    Fingerprint(String),
    /// A minisign public key (from a file or its base64 line).
    Key(PublicKey),
}

impl ExpectedKey {
    /// A key id, the path of a minisign public key file, or the key's base64 line.
    pub fn from_arg(arg: &str) -> Result<ExpectedKey, String> {
        let t = arg.trim();
        let hex = t.strip_prefix("sha256:").unwrap_or(t);
        if hex.chars().all(|c| c.is_ascii_hexdigit()) {
            match hex.len() {
                16 => return Ok(ExpectedKey::Id(hex.to_ascii_lowercase())),
                64 => return Ok(ExpectedKey::Fingerprint(hex.to_ascii_lowercase())),
                _ => {}
            }
        }
        let path = Path::new(t);
        if path.is_file() {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--key {t}: cannot read the public key file: {e}"))?;
            return PublicKey::parse(&text)
                .map(ExpectedKey::Key)
                .map_err(|e| format!("--key {t}: not a minisign public key file ({e}); give the file `operator.pub` of the sender's config folder, or the key's 64-digit fingerprint as `tsgnav sessions verify` prints it"));
        }
        PublicKey::parse(t).map(ExpectedKey::Key).map_err(|_| {
            format!("--key {t}: neither a key fingerprint (64 hex digits) nor a key id (16 hex digits), as `tsgnav sessions verify` prints them, nor a minisign public key file, nor its base64 line")
        })
    }

    fn matches(&self, s: &Signer) -> bool {
        match self {
            ExpectedKey::Id(id) => s
                .fingerprint
                .get(..16)
                .is_some_and(|p| p.eq_ignore_ascii_case(id)),
            ExpectedKey::Fingerprint(f) => s.fingerprint.eq_ignore_ascii_case(f),
            ExpectedKey::Key(k) => k.fingerprint() == s.fingerprint,
        }
    }

    fn describe(&self) -> String {
        match self {
            ExpectedKey::Id(id) => format!("key {id}"),
            ExpectedKey::Fingerprint(f) => format!("the key with fingerprint {f}"),
            ExpectedKey::Key(k) => format!(
                "the public key {} (fingerprint {})",
                k.to_base64(),
                k.fingerprint()
            ),
        }
    }
}

/// Ok when `expected` is empty, or the session is signed and every signer is one of
/// `expected`; else says which signer is not.
pub fn check_signers(
    signers: &[Signer],
    unsigned: Option<&str>,
    expected: &[ExpectedKey],
) -> Result<(), String> {
    if expected.is_empty() {
        return Ok(());
    }
    let wanted = expected
        .iter()
        .map(ExpectedKey::describe)
        .collect::<Vec<_>>()
        .join(" or ");
    if let Some(why) = unsigned {
        return Err(format!(
            "the session is UNSIGNED ({why}), but --key asks for signatures by {wanted}"
        ));
    }
    if signers.is_empty() {
        return Err(format!("no signature, but --key asks for {wanted}"));
    }
    match signers
        .iter()
        .find(|s| !expected.iter().any(|e| e.matches(s)))
    {
        Some(s) => Err(format!(
            "the records from #{} are signed by key {} (fingerprint {}, {}), not by {wanted}; the session was signed by someone else, or the key you were given is not the sender's",
            s.from_seq, s.key_id, s.fingerprint, s.operator
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signer(id: &str, key: &str, from: u64) -> Signer {
        Signer {
            key_id: id.into(),
            fingerprint: format!("{}{}", id.to_ascii_lowercase(), "0".repeat(48)),
            operator: "alice".into(),
            public_key: key.into(),
            from_seq: from,
        }
    }

    #[test]
    fn a_key_id_is_matched_without_regard_to_case_and_every_signer_must_match() {
        let a = signer("00AA00AA00AA00AA", "x", 1);
        let b = signer("11BB11BB11BB11BB", "y", 9);
        let want = [ExpectedKey::from_arg("00aa00aa00aa00aa").expect("id")];
        assert_eq!(check_signers(std::slice::from_ref(&a), None, &want), Ok(()));
        let e = check_signers(&[a.clone(), b], None, &want).expect_err("b");
        assert!(e.contains("#9") && e.contains("11BB11BB11BB11BB"), "{e}");
        let full = [ExpectedKey::from_arg(&a.fingerprint.to_ascii_uppercase()).expect("fpr")];
        assert_eq!(check_signers(std::slice::from_ref(&a), None, &full), Ok(()));
        assert!(check_signers(&[a], Some("no key"), &want)
            .expect_err("unsigned")
            .contains("UNSIGNED"));
        assert_eq!(check_signers(&[], Some("no key"), &[]), Ok(()));
    }

    #[test]
    fn nonsense_is_refused_with_what_to_give() {
        let e = ExpectedKey::from_arg("not-a-key").expect_err("bad");
        assert!(e.contains("16 hex digits"), "{e}");
    }
}
