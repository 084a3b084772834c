//! One writer per session: `journal.lock` holds the writing process's id while a `Session` is
//! open, so two processes never fork the hash chain. A lock left by a process that no longer
//! runs (killed, crashed) is taken over. IO (std::fs). Must not import `cli`, `tui` or `query`.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::EvidenceError;

/// Held while a session is open for writing; removes the lock file when dropped.
#[derive(Debug)]
pub struct WriteLock {
    path: PathBuf,
}

impl WriteLock {
    /// Takes the lock of the session in `dir`.
    pub fn acquire(dir: &Path) -> Result<WriteLock, EvidenceError> {
        let path = dir.join("journal.lock");
        for _ in 0..3 {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut f) => {
                    f.write_all(std::process::id().to_string().as_bytes())
                        .map_err(EvidenceError::io(&path))?;
                    return Ok(WriteLock { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = std::fs::read_to_string(&path).unwrap_or_default();
                    let pid = holder.trim().parse::<u32>().ok();
                    if pid.is_some_and(running) {
                        return Err(EvidenceError::Locked {
                            path: dir.to_owned(),
                            pid: holder.trim().to_owned(),
                        });
                    }
                    // Stale: its writer is gone. Remove it and try again.
                    let _ = std::fs::remove_file(&path);
                }
                Err(e) => return Err(EvidenceError::Io { path, source: e }),
            }
        }
        Err(EvidenceError::Locked {
            path: dir.to_owned(),
            pid: "unknown".into(),
        })
    }
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether process `pid` still runs (assumed so where that cannot be known).
fn running(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    if cfg!(target_os = "linux") {
        return Path::new("/proc").join(pid.to_string()).exists();
    }
    true
}
