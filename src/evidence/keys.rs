//! The operator's signing key: Ed25519 in minisign's formats, so `minisign -V` verifies what
//! tsgnav signs without tsgnav. The key lives in the config folder (beside `config.toml`), never
//! in the state folder that holds the sessions. IO (std::fs) for the key files only; must not
//! import `cli`, `tui` or `query`.
//!
//! Files (`<config dir>/tsgnav/`, or the folder of `$TSGNAV_CONFIG`):
//! - `operator.key`: minisign secret key, unencrypted (`minisign -S -s operator.key` signs with it);
//!   created on first use with mode 0600.
//! - `operator.pub`: minisign public key (`minisign -V -p operator.pub`).
//!
//! A signature is minisign's pre-hashed form: `ED` + key number + Ed25519(BLAKE2b-512(message)),
//! plus a trusted comment signed together with that signature.
//!
//! Who signed is named by the key's bytes, never by minisign's key number (whoever makes a key
//! chooses that number, so a "twin" key can copy it): the fingerprint is the sha256 of the
//! 32-byte Ed25519 public key, and the key id its first 16 hex digits.

use std::path::{Path, PathBuf};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use blake2::digest::consts::U32;
use blake2::{Blake2b, Blake2b512, Digest};
use ring::signature::{Ed25519KeyPair, KeyPair as _, UnparsedPublicKey, ED25519};

/// Why a key or signature cannot be used. Product copy: names the file and the fix.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("{}: {source}; the operator signing key lives there (set TSGNAV_CONFIG to use another folder)", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a minisign {what} ({why}); move it aside and tsgnav creates a new key", path.display())]
    Format {
        path: PathBuf,
        what: &'static str,
        why: String,
    },
    #[error("{}: the key is encrypted with a password; tsgnav needs an unencrypted key (minisign -G -W)", path.display())]
    Encrypted { path: PathBuf },
    #[error("the signing library refused the key: {0}")]
    Crypto(String),
}

/// The folder holding the operator key: the folder of `$TSGNAV_CONFIG` when set (and not a
/// device such as `/dev/null`, which means "no config" and must never get a key beside it),
/// else `<config dir>/tsgnav`.
pub fn key_dir() -> PathBuf {
    let device = |f: &std::ffi::OsStr| {
        let p = std::path::Path::new(f);
        p.exists() && !p.is_file()
    };
    if let Some(f) = std::env::var_os("TSGNAV_CONFIG").filter(|f| !f.is_empty() && !device(f)) {
        let f = PathBuf::from(f);
        return match f.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
            _ => PathBuf::from("."),
        };
    }
    dirs::config_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join("tsgnav")
}

/// A public key: minisign key number (8 bytes) and the Ed25519 key (32 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey {
    pub keynum: [u8; 8],
    pub key: [u8; 32],
}

impl PublicKey {
    /// The fingerprint: sha256 of the Ed25519 public key, 64 lower-case hex digits. It names the
    /// key itself; two keys with the same minisign key number have different fingerprints.
    pub fn fingerprint(&self) -> String {
        super::chain::sha256_hex(&self.key)
    }

    /// The key id tsgnav prints: the first 16 hex digits of [`PublicKey::fingerprint`].
    pub fn id(&self) -> String {
        let mut f = self.fingerprint();
        f.truncate(16);
        f
    }

    /// minisign's key number as minisign prints it (little-endian u64, 16 upper-case hex digits).
    /// Chosen by whoever made the key: shown for minisign's tools, never used to name a signer.
    pub fn minisign_id(&self) -> String {
        format!("{:016X}", u64::from_le_bytes(self.keynum))
    }

    /// The base64 line of a minisign public key (`Ed` + key number + key).
    pub fn to_base64(&self) -> String {
        let mut b = Vec::with_capacity(42);
        b.extend_from_slice(b"Ed");
        b.extend_from_slice(&self.keynum);
        b.extend_from_slice(&self.key);
        B64.encode(b)
    }

    /// A minisign public key file.
    pub fn to_minisign(&self) -> String {
        format!(
            "untrusted comment: minisign public key {}\n{}\n",
            self.minisign_id(),
            self.to_base64()
        )
    }

    /// Reads the base64 line (or a whole public key file).
    pub fn parse(text: &str) -> Result<PublicKey, String> {
        let line = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with("untrusted comment:"))
            .ok_or("no key line")?;
        let b = B64.decode(line).map_err(|e| format!("not base64: {e}"))?;
        if b.len() != 42 || &b[..2] != b"Ed" {
            return Err(format!("{} bytes, expected 42 starting with `Ed`", b.len()));
        }
        let mut keynum = [0; 8];
        keynum.copy_from_slice(&b[2..10]);
        let mut key = [0; 32];
        key.copy_from_slice(&b[10..]);
        Ok(PublicKey { keynum, key })
    }

    /// Checks a signature over a message whose BLAKE2b-512 is `prehash`, and its trusted comment.
    pub fn verify(&self, prehash: &[u8], sig: &Signature) -> Result<(), String> {
        if sig.keynum != self.keynum {
            return Err(format!(
                "carries minisign key number {}, but the key beside it has number {}",
                sig.key_id(),
                self.minisign_id()
            ));
        }
        let pk = UnparsedPublicKey::new(&ED25519, &self.key);
        pk.verify(prehash, &sig.sig)
            .map_err(|_| "does not match the content — it was changed after signing".to_owned())?;
        let mut global = sig.sig.to_vec();
        global.extend_from_slice(sig.trusted_comment.as_bytes());
        pk.verify(&global, &sig.global)
            .map_err(|_| "its trusted comment was changed after signing".to_owned())
    }
}

/// A minisign signature (pre-hashed `ED` form) with its trusted comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub keynum: [u8; 8],
    pub sig: [u8; 64],
    pub trusted_comment: String,
    pub global: [u8; 64],
}

impl Signature {
    /// The minisign key number the signature carries (chosen by the signer; not an identity).
    pub fn key_id(&self) -> String {
        format!("{:016X}", u64::from_le_bytes(self.keynum))
    }

    /// The signature line's base64 (`ED` + key number + signature).
    pub fn sig_base64(&self) -> String {
        let mut b = Vec::with_capacity(74);
        b.extend_from_slice(b"ED");
        b.extend_from_slice(&self.keynum);
        b.extend_from_slice(&self.sig);
        B64.encode(b)
    }

    pub fn global_base64(&self) -> String {
        B64.encode(self.global)
    }

    /// A `.minisig` file.
    pub fn to_minisign(&self) -> String {
        format!(
            "untrusted comment: signature from tsgnav operator key {}\n{}\ntrusted comment: {}\n{}\n",
            self.key_id(),
            self.sig_base64(),
            self.trusted_comment,
            self.global_base64()
        )
    }

    /// From the two base64 lines and the trusted comment.
    pub fn from_parts(
        sig_b64: &str,
        trusted_comment: &str,
        global_b64: &str,
    ) -> Result<Signature, String> {
        let b = B64
            .decode(sig_b64)
            .map_err(|e| format!("signature is not base64: {e}"))?;
        if b.len() != 74 || &b[..2] != b"ED" {
            return Err("signature is not a pre-hashed minisign signature (ED)".into());
        }
        let g = B64
            .decode(global_b64)
            .map_err(|e| format!("global signature is not base64: {e}"))?;
        let (mut keynum, mut sig, mut global) = ([0; 8], [0; 64], [0; 64]);
        keynum.copy_from_slice(&b[2..10]);
        sig.copy_from_slice(&b[10..]);
        if g.len() != 64 {
            return Err("global signature is not 64 bytes".into());
        }
        global.copy_from_slice(&g);
        Ok(Signature {
            keynum,
            sig,
            trusted_comment: trusted_comment.to_owned(),
            global,
        })
    }
}

/// The operator's key pair.
#[derive(Debug)]
pub struct OperatorKey {
    pair: Ed25519KeyPair,
    public: PublicKey,
    seed: [u8; 32],
    /// Where it was read from (or created).
    pub path: PathBuf,
}

impl OperatorKey {
    /// Reads `dir/operator.key`, creating the key pair (and `operator.pub`) when there is none.
    /// Two processes creating it at once end up with the same key.
    pub fn load_or_create(dir: &Path) -> Result<OperatorKey, KeyError> {
        let path = dir.join("operator.key");
        match std::fs::read_to_string(&path) {
            Ok(text) => return OperatorKey::parse(&text, &path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(KeyError::Io { path, source }),
        }
        let io = |p: &Path| {
            let path = p.to_owned();
            move |source| KeyError::Io { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let rng = ring::rand::SystemRandom::new();
        let mut seed = [0u8; 32];
        let mut keynum = [0u8; 8];
        ring::rand::SecureRandom::fill(&rng, &mut seed)
            .and_then(|()| ring::rand::SecureRandom::fill(&rng, &mut keynum))
            .map_err(|_| KeyError::Crypto("no randomness".into()))?;
        let key = OperatorKey::from_seed(seed, keynum, path.clone())?;
        // Unique per process and per attempt (threads of one process may race here too).
        let tmp = dir.join(format!(
            ".operator.key.{}.{}",
            std::process::id(),
            hex::encode(keynum)
        ));
        write_private(&tmp, key.to_minisign().as_bytes()).map_err(io(&tmp))?;
        // A hard link fails when another process created the key first: use theirs.
        let linked = std::fs::hard_link(&tmp, &path);
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => {
                let pubf = dir.join("operator.pub");
                std::fs::write(&pubf, key.public.to_minisign()).map_err(io(&pubf))?;
                Ok(key)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let text = std::fs::read_to_string(&path).map_err(io(&path))?;
                OperatorKey::parse(&text, &path)
            }
            Err(source) => Err(KeyError::Io { path, source }),
        }
    }

    fn from_seed(seed: [u8; 32], keynum: [u8; 8], path: PathBuf) -> Result<OperatorKey, KeyError> {
        let pair = Ed25519KeyPair::from_seed_unchecked(&seed)
            .map_err(|e| KeyError::Crypto(e.to_string()))?;
        let mut key = [0; 32];
        key.copy_from_slice(pair.public_key().as_ref());
        Ok(OperatorKey {
            pair,
            public: PublicKey { keynum, key },
            seed,
            path,
        })
    }

    /// minisign secret key layout: sig alg, kdf alg (none), checksum alg, salt, ops, mem,
    /// key number, secret key (seed + public), BLAKE2b-256 checksum.
    fn to_minisign(&self) -> String {
        let mut sk = Vec::with_capacity(64);
        sk.extend_from_slice(&self.seed);
        sk.extend_from_slice(&self.public.key);
        let mut b = Vec::with_capacity(158);
        b.extend_from_slice(b"Ed");
        b.extend_from_slice(&[0, 0]);
        b.extend_from_slice(b"B2");
        b.extend_from_slice(&[0; 48]);
        b.extend_from_slice(&self.public.keynum);
        b.extend_from_slice(&sk);
        b.extend_from_slice(&checksum(&self.public.keynum, &sk));
        format!(
            "untrusted comment: minisign secret key {} (tsgnav operator key, unencrypted)\n{}\n",
            self.public.minisign_id(),
            B64.encode(b)
        )
    }

    fn parse(text: &str, path: &Path) -> Result<OperatorKey, KeyError> {
        let bad = |why: String| KeyError::Format {
            path: path.to_owned(),
            what: "secret key",
            why,
        };
        let line = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with("untrusted comment:"))
            .ok_or_else(|| bad("no key line".into()))?;
        let b = B64
            .decode(line)
            .map_err(|e| bad(format!("not base64: {e}")))?;
        if b.len() != 158 || &b[..2] != b"Ed" || &b[4..6] != b"B2" {
            return Err(bad(format!("{} bytes", b.len())));
        }
        if b[2..4] != [0, 0] {
            return Err(KeyError::Encrypted {
                path: path.to_owned(),
            });
        }
        let mut keynum = [0; 8];
        keynum.copy_from_slice(&b[54..62]);
        let sk = &b[62..126];
        // minisign leaves the checksum of an unencrypted key zero; tsgnav fills it in.
        if checksum(&keynum, sk)[..] != b[126..158] && b[126..158].iter().any(|&c| c != 0) {
            return Err(bad("checksum does not match".into()));
        }
        let mut seed = [0; 32];
        seed.copy_from_slice(&sk[..32]);
        let key = OperatorKey::from_seed(seed, keynum, path.to_owned())?;
        if key.public.key[..] != sk[32..] {
            return Err(bad("public half does not match the secret half".into()));
        }
        Ok(key)
    }

    /// Reads an existing key file (minisign secret key, unencrypted).
    pub fn load(path: &Path) -> Result<OperatorKey, KeyError> {
        let text = std::fs::read_to_string(path).map_err(|source| KeyError::Io {
            path: path.to_owned(),
            source,
        })?;
        OperatorKey::parse(&text, path)
    }

    pub fn public(&self) -> &PublicKey {
        &self.public
    }

    /// Signs a message whose BLAKE2b-512 is `prehash`, with `trusted_comment`.
    pub fn sign(&self, prehash: &[u8], trusted_comment: &str) -> Signature {
        let mut sig = [0; 64];
        sig.copy_from_slice(self.pair.sign(prehash).as_ref());
        let mut m = sig.to_vec();
        m.extend_from_slice(trusted_comment.as_bytes());
        let mut global = [0; 64];
        global.copy_from_slice(self.pair.sign(&m).as_ref());
        Signature {
            keynum: self.public.keynum,
            sig,
            trusted_comment: trusted_comment.to_owned(),
            global,
        }
    }
}

/// BLAKE2b-512 of `bytes`: what a pre-hashed minisign signature signs.
pub fn prehash(bytes: &[u8]) -> [u8; 64] {
    let mut out = [0; 64];
    out.copy_from_slice(&Blake2b512::digest(bytes));
    out
}

fn checksum(keynum: &[u8], sk: &[u8]) -> [u8; 32] {
    let mut h = Blake2b::<U32>::new();
    h.update(b"Ed");
    h.update(keynum);
    h.update(sk);
    let mut out = [0; 32];
    out.copy_from_slice(&h.finalize());
    out
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let mut f = o.open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_created_key_reads_back_signs_and_verifies() {
        let tmp = tempfile::tempdir().unwrap();
        let k = OperatorKey::load_or_create(tmp.path()).unwrap();
        let again = OperatorKey::load_or_create(tmp.path()).unwrap();
        assert_eq!(k.public(), again.public());
        let pubf = std::fs::read_to_string(tmp.path().join("operator.pub")).unwrap();
        assert_eq!(&PublicKey::parse(&pubf).unwrap(), k.public());
        let h = prehash(b"hello");
        let s = k.sign(&h, "records=1");
        let back = Signature::from_parts(&s.sig_base64(), "records=1", &s.global_base64()).unwrap();
        k.public().verify(&h, &back).unwrap();
        assert!(k.public().verify(&prehash(b"hellO"), &back).is_err());
        let forged =
            Signature::from_parts(&s.sig_base64(), "records=2", &s.global_base64()).unwrap();
        assert!(k.public().verify(&h, &forged).is_err());
    }
}
