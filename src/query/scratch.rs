//! Where tsgnav keeps the short-lived folders of a session's probes: each probe's scratch
//! folder, the proxy's and the egress proxy's sockets, the shared kube discovery cache. A
//! fleet run makes and removes thousands of them, so they go on a memory file system when
//! there is one (no journal, no disk inode allocator, cheap removal), in this order:
//!
//! 1. `TMPDIR`, when it is set: the operator chose where temporary files go;
//! 2. `XDG_RUNTIME_DIR`, when it is a tmpfs folder this user owns and no one else may open
//!    (the per-user runtime folder of systemd machines);
//! 3. `/dev/shm`, when it is a tmpfs this user may write (a sticky folder like `/tmp`);
//! 4. the system's temporary folder (`/tmp`).
//!
//! Nothing else changes with the place: every folder made in it is this user's own (0700),
//! made new (one already there is refused), named after the process, a random token and a
//! counter, and removed when its probe or session ends; a
//! jail shows a probe its own scratch folder only (`super::jail`), wherever it lives.
//!
//! IO edge (reads folder metadata). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// `statfs(2)`'s magic number of tmpfs.
const TMPFS_MAGIC: i64 = 0x0102_1994;

/// The folder the session's probe folders are made in (chosen once per process).
pub fn base() -> &'static Path {
    static BASE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BASE.get_or_init(|| {
        pick(
            std::env::var_os("TMPDIR"),
            std::env::var_os("XDG_RUNTIME_DIR"),
            Path::new("/dev/shm"),
        )
    })
}

/// `base()/NAME-PID-TOKEN-N`, a path for a new folder of this process (not made here; make
/// it with [`make_private`]). `TOKEN` is drawn once per process from the system's random
/// source: the base is often shared with other users (`/dev/shm`, `/tmp`), and a name they
/// could guess is a name they could make first.
pub fn path(name: &str, n: u64) -> PathBuf {
    base().join(format!("{name}-{}-{}-{n}", std::process::id(), token()))
}

/// This process's random part of every scratch name.
fn token() -> &'static str {
    static TOKEN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TOKEN.get_or_init(|| {
        use ring::rand::SecureRandom;
        let mut b = [0u8; 8];
        // A failing random source leaves the name guessable, never shared: `make_private`
        // still refuses a folder somebody made first.
        let _ = ring::rand::SystemRandom::new().fill(&mut b);
        b.iter().map(|x| format!("{x:02x}")).collect()
    })
}

/// Makes `dir` as a new folder only this user may open (0700). A folder (or a link) that is
/// already there is refused, never taken over: in a shared base somebody else may have made
/// it to read what a probe writes. The base itself is made when it is missing (a `TMPDIR` not
/// made yet).
pub fn make_private(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if let Some(parent) = dir.parent().filter(|p| !p.exists()) {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::DirBuilder::new().mode(0o700).create(dir)
}

/// The choice of [`base`], from the values of `TMPDIR` and `XDG_RUNTIME_DIR` and the shared
/// memory folder.
fn pick(tmpdir: Option<OsString>, runtime: Option<OsString>, shm: &Path) -> PathBuf {
    if tmpdir.as_ref().is_some_and(|t| !t.is_empty()) {
        return std::env::temp_dir();
    }
    if let Some(r) = runtime.map(PathBuf::from) {
        if r.is_absolute() && is_tmpfs(&r) && private_to_us(&r) {
            return r;
        }
    }
    if is_tmpfs(shm) && writable(shm) {
        return shm.to_path_buf();
    }
    std::env::temp_dir()
}

/// Whether `dir` is on tmpfs.
pub fn is_tmpfs(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a zeroed statfs is valid; statfs writes into it and reads a NUL-terminated path.
    let mut s: libc::statfs = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::statfs(c.as_ptr(), &mut s) };
    #[allow(clippy::unnecessary_cast)]
    let magic = s.f_type as i64;
    rc == 0 && magic == TMPFS_MAGIC
}

/// Whether `dir` is a folder owned by this user that no one else may open.
pub fn private_to_us(dir: &Path) -> bool {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    // SAFETY: geteuid cannot fail.
    let uid = unsafe { libc::geteuid() };
    std::fs::symlink_metadata(dir)
        .is_ok_and(|m| m.is_dir() && m.uid() == uid && m.permissions().mode() & 0o077 == 0)
}

/// Whether this user may make folders in `dir`.
fn writable(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: access(2) on a NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Attack: somebody else (here: this test, first) makes the folder a probe is about to
    /// get, or a link of that name to a folder of theirs. The probe's folder is refused,
    /// not taken over; and the names carry a random part nobody can list in advance.
    #[test]
    fn a_scratch_folder_made_first_by_somebody_else_is_refused() {
        let p = path("tsgnav-attack", 7);
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        let parts: Vec<&str> = name.split('-').collect();
        assert_eq!(parts.len(), 5, "{name}");
        assert_eq!(parts[3].len(), 16, "a 64-bit token: {name}");
        assert!(parts[3].chars().all(|c| c.is_ascii_hexdigit()), "{name}");
        std::fs::create_dir(&p).expect("the attacker's folder");
        assert!(make_private(&p).is_err(), "an existing folder is refused");
        std::fs::remove_dir(&p).expect("cleanup");
        let theirs = tempfile::tempdir().expect("tempdir");
        std::os::unix::fs::symlink(theirs.path(), &p).expect("link");
        assert!(make_private(&p).is_err(), "a link is refused");
        std::fs::remove_file(&p).expect("cleanup");
        make_private(&p).expect("a new folder");
        assert!(private_to_us(&p));
        std::fs::remove_dir(&p).expect("cleanup");
    }

    #[test]
    fn an_operators_tmpdir_wins() {
        let shm = Path::new("/dev/shm");
        assert_eq!(
            pick(Some("/somewhere".into()), None, shm),
            std::env::temp_dir()
        );
    }

    #[test]
    fn a_runtime_folder_that_is_not_tmpfs_or_not_private_is_passed_over() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).expect("tempdir");
        // Open to others: never a runtime folder, even where the checkout is on tmpfs.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        let not_there = dir.path().join("none");
        // Neither a disk folder nor a missing one is taken for the runtime folder; the
        // choice falls to the shared memory folder or the temp dir.
        for r in [dir.path(), not_there.as_path()] {
            let got = pick(None, Some(r.into()), Path::new("/dev/shm"));
            assert_ne!(got, r, "{} is not a private tmpfs", r.display());
        }
        assert_eq!(
            pick(None, None, &not_there),
            std::env::temp_dir(),
            "no shared memory folder: the temp dir"
        );
    }

    #[test]
    fn shared_memory_is_taken_when_it_is_a_writable_tmpfs() {
        let shm = Path::new("/dev/shm");
        let want = match is_tmpfs(shm) && writable(shm) {
            true => shm.to_path_buf(),
            false => std::env::temp_dir(),
        };
        assert_eq!(pick(None, None, shm), want);
        assert_eq!(
            pick(Some("".into()), None, shm),
            want,
            "an empty TMPDIR is unset"
        );
    }
}
