//! What the parse cache names: a library's pack file (after its roots), an entry's lookup key,
//! this build's stamp, and a file's modification time as the entries keep it. Imports only std
//! and the hashing crates.

use std::collections::BTreeSet;
use std::fs::Metadata;
use std::path::PathBuf;

use sha2::{Digest, Sha256};

/// The name of the pack of the library read from `roots`: named after their canonical paths,
/// so each library keeps its own pack whichever way its folders are spelled (`lib`, `./lib/`,
/// `/home/me/lib` or a link to it: one pack, as the entries are keyed by the files' canonical
/// paths), and known before its folders are walked (so the pack is read while the walk goes
/// on). One `realpath` per root; a root that cannot be resolved (it does not exist) counts as
/// typed, `lib/` as `lib`.
pub(super) fn pack_name(roots: &[PathBuf]) -> String {
    let spelled = |r: &PathBuf| {
        if let Ok(c) = std::fs::canonicalize(r) {
            return c.to_string_lossy().into_owned();
        }
        let typed = r.display().to_string();
        match typed.strip_suffix('/') {
            Some(t) if !t.is_empty() && !t.ends_with('/') => t.to_string(),
            _ => typed,
        }
    };
    let roots: BTreeSet<String> = roots.iter().map(spelled).collect();
    let mut h = Sha256::new();
    for r in roots {
        h.update(r.as_bytes());
        h.update([0]);
    }
    format!("library-{}.pack", hex::encode(&h.finalize()[..16]))
}

/// How an entry is looked up: the file's canonical path ([`super::super::Source::keyed`]), and
/// its path in its library.
pub fn key(file: &str, rel: &str) -> String {
    let mut k = String::with_capacity(file.len() + 1 + rel.len());
    k.push_str(file);
    k.push('\0');
    k.push_str(rel);
    k
}

pub(in crate::load) fn mtime_ns(meta: &Metadata) -> Option<u128> {
    let t = meta.modified().ok()?;
    Some(t.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos())
}

/// This build of tsgnav: its version and the modification time of its executable, so a
/// rebuilt binary (whose parser may have changed) never reads an older build's entries.
pub fn tool_stamp() -> String {
    let built = std::env::current_exe()
        .and_then(std::fs::metadata)
        .ok()
        .as_ref()
        .and_then(mtime_ns)
        .unwrap_or(0);
    format!("{}+{built}", env!("CARGO_PKG_VERSION"))
}
