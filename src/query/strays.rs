//! Probe processes a navigator leaves behind when it dies. While a shell probe runs, a small
//! side file under the evidence session's `running/` folder names its process group, the
//! group leader's start time (from `/proc/<pid>/stat`, so a reused pid is never mistaken for
//! it), the boot it belongs to and the navigator that started it; the file goes when the run
//! ends. A navigator killed with SIGKILL cannot remove it, so `--resume` reads what is left
//! and stops each group that still runs while its navigator does not ([`stop_strays`]).
//!
//! IO edge (files, `/proc`, signals). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The folder of a session that holds the side files.
pub const RUNNING_DIR: &str = "running";

/// Where the shell backend notes the process groups it starts; shared between the executor
/// (which writes) and whoever opens the evidence session (which says where, once it knows).
/// Without a folder nothing is written.
#[derive(Debug, Clone, Default)]
pub struct Tracker(Arc<Mutex<Option<PathBuf>>>);

impl Tracker {
    /// Notes probes started from now on in `dir` (a session's `running/` folder).
    pub fn set_dir(&self, dir: PathBuf) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(dir);
    }

    /// Notes that `probe` runs as process group `pgid`; the note is removed when the returned
    /// guard is dropped. `None` when no folder is set or the note could not be written (the
    /// probe runs anyway; only the clean-up after a crash is lost).
    pub fn started(&self, pgid: i32, probe: &str) -> Option<Running> {
        let dir = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()?;
        let me = std::process::id();
        let entry = Entry {
            pgid,
            start: stat(pgid)?.start,
            boot_id: boot_id(),
            navigator_pid: me,
            navigator_start: i32::try_from(me).ok().and_then(stat).map(|s| s.start)?,
            probe: probe.to_owned(),
            started_at: chrono::Utc::now().to_rfc3339(),
        };
        std::fs::create_dir_all(&dir).ok()?;
        let path = dir.join(format!("{pgid}.json"));
        let tmp = dir.join(format!(".{pgid}.tmp"));
        let text = serde_json::to_vec(&entry).ok()?;
        std::fs::write(&tmp, text).ok()?;
        std::fs::rename(&tmp, &path).ok()?;
        Some(Running(path))
    }
}

/// A running probe's side file; removed on drop.
#[derive(Debug)]
pub struct Running(PathBuf);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// One side file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub pgid: i32,
    /// The group leader's start time, clock ticks after boot (`/proc/<pid>/stat` field 22).
    pub start: u64,
    pub boot_id: Option<String>,
    pub navigator_pid: u32,
    pub navigator_start: u64,
    pub probe: String,
    pub started_at: String,
}

/// A probe process group [`stop_strays`] stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopped {
    pub entry: Entry,
    /// How many processes of the group were running.
    pub processes: usize,
    /// SIGTERM was not enough; the group got SIGKILL.
    pub killed: bool,
}

impl Stopped {
    /// One line for the journal and the operator.
    pub fn describe(&self) -> String {
        format!(
            "stopped stray probe {} (process group {}, {} process(es), started {}) left by a previous run (navigator pid {}, no longer running){}",
            self.entry.probe,
            self.entry.pgid,
            self.processes,
            self.entry.started_at,
            self.entry.navigator_pid,
            if self.killed {
                "; it ignored SIGTERM and got SIGKILL"
            } else {
                ""
            }
        )
    }
}

/// Reads the side files in `dir` and stops every process group whose navigator is dead but
/// which still runs: SIGTERM, then SIGKILL after `grace`. Side files of dead groups are
/// removed; those of a navigator that still runs are left alone.
pub fn stop_strays(dir: &Path, grace: Duration) -> Vec<Stopped> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let boot = boot_id();
    let mut stopped = Vec::new();
    for path in read.flatten().map(|e| e.path()) {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if name.as_deref().is_some_and(|n| n.starts_with('.')) {
            let _ = std::fs::remove_file(&path);
            continue;
        }
        let entry = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Entry>(&b).ok());
        let Some(entry) = entry else {
            let _ = std::fs::remove_file(&path);
            continue;
        };
        if entry.boot_id.is_some() && entry.boot_id != boot {
            // Nothing survives a reboot.
            let _ = std::fs::remove_file(&path);
            continue;
        }
        let navigator = i32::try_from(entry.navigator_pid).ok().and_then(stat);
        if navigator.is_some_and(|s| s.start == entry.navigator_start && !s.zombie) {
            continue;
        }
        let members = group(&entry);
        if members > 0 {
            signal_group(entry.pgid, libc::SIGTERM);
            let killed = !wait_gone(&entry, grace);
            if killed {
                signal_group(entry.pgid, libc::SIGKILL);
                wait_gone(&entry, grace);
            }
            stopped.push(Stopped {
                entry: entry.clone(),
                processes: members,
                killed,
            });
        }
        let _ = std::fs::remove_file(&path);
    }
    stopped
}

/// Waits up to `limit` for the group to have no live process; whether it is gone.
fn wait_gone(entry: &Entry, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if group(entry) == 0 {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Live (non-zombie) processes of the entry's group. The group is the entry's when its leader
/// still runs with the recorded start time, or when the leader is gone: Linux never gives a
/// pid that is still some group's id to a new process, so the members are the probe's.
fn group(entry: &Entry) -> usize {
    match stat(entry.pgid) {
        Some(leader) if leader.start != entry.start => return 0,
        _ => {}
    }
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return 0;
    };
    procs
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()))
        .filter_map(stat)
        .filter(|s| s.pgrp == entry.pgid && !s.zombie && s.start >= entry.start)
        .count()
}

/// What `/proc/<pid>/stat` says about a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    pub pgrp: i32,
    pub start: u64,
    pub zombie: bool,
}

/// `/proc/<pid>/stat` of `pid`, if it exists.
pub fn stat(pid: i32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&text)
}

/// Parses a `/proc/<pid>/stat` line; the command name may hold spaces and parentheses, so the
/// fields are counted after the last `)`.
pub fn parse_stat(text: &str) -> Option<Stat> {
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(Stat {
        zombie: matches!(*fields.first()?, "Z" | "X"),
        pgrp: fields.get(2)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

fn boot_id() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .ok()
        .map(|s| s.trim().to_owned())
}

fn signal_group(pgid: i32, sig: i32) {
    if pgid > 1 {
        // SAFETY: kill(2) with a negative pid signals a process group; no memory is touched.
        unsafe {
            libc::kill(-pgid, sig);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_with_spaces_and_parentheses_in_the_name() {
        let line = "4242 (a (b) c) S 1 4240 4240 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1 1";
        assert_eq!(
            parse_stat(line),
            Some(Stat {
                pgrp: 4240,
                start: 987654,
                zombie: false
            })
        );
        let z = "7 (sleep) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0";
        assert!(parse_stat(z).is_some_and(|s| s.zombie));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn a_live_navigators_probes_are_left_alone_and_a_dead_groups_note_is_removed() {
        let dir = tempfile::tempdir().expect("tmp");
        let me = std::process::id();
        let mine = stat(i32::try_from(me).expect("pid")).expect("own stat");
        let live = Entry {
            pgid: i32::MAX - 5,
            start: 0,
            boot_id: boot_id(),
            navigator_pid: me,
            navigator_start: mine.start,
            probe: "g.md#x/3".into(),
            started_at: "now".into(),
        };
        std::fs::write(
            dir.path().join("1.json"),
            serde_json::to_vec(&live).expect("json"),
        )
        .expect("write");
        // A group no process belongs to, left by a navigator that is gone.
        let gone = Entry {
            pgid: i32::MAX - 7,
            navigator_pid: u32::MAX - 9,
            ..live.clone()
        };
        std::fs::write(
            dir.path().join("2.json"),
            serde_json::to_vec(&gone).expect("json"),
        )
        .expect("write");
        std::fs::write(dir.path().join("3.json"), b"{not json").expect("write");
        let stopped = stop_strays(dir.path(), Duration::from_millis(100));
        assert!(stopped.is_empty(), "{stopped:?}");
        assert!(
            dir.path().join("1.json").exists(),
            "a live navigator's note stays"
        );
        assert!(!dir.path().join("2.json").exists());
        assert!(!dir.path().join("3.json").exists());
    }

    #[test]
    fn a_group_left_by_a_dead_navigator_is_stopped() {
        use std::os::unix::process::{CommandExt, ExitStatusExt};
        let dir = tempfile::tempdir().expect("tmp");
        let mut child = std::process::Command::new("sleep")
            .arg("300")
            .process_group(0)
            .spawn()
            .expect("sleep");
        let pgid = i32::try_from(child.id()).expect("pid");
        let entry = Entry {
            pgid,
            start: stat(pgid).expect("child stat").start,
            boot_id: boot_id(),
            navigator_pid: u32::MAX - 9,
            navigator_start: 1,
            probe: "g.md#wait/9".into(),
            started_at: "earlier".into(),
        };
        std::fs::write(
            dir.path().join(format!("{pgid}.json")),
            serde_json::to_vec(&entry).expect("json"),
        )
        .expect("write");
        let stopped = stop_strays(dir.path(), Duration::from_secs(5));
        assert_eq!(stopped.len(), 1, "{stopped:?}");
        assert_eq!(stopped[0].entry.probe, "g.md#wait/9");
        assert!(!stopped[0].killed, "sleep ends on SIGTERM");
        assert!(stopped[0].describe().contains("left by a previous run"));
        let status = child.wait().expect("wait");
        assert_eq!(status.signal(), Some(libc::SIGTERM));
        assert!(!dir.path().join(format!("{pgid}.json")).exists());
    }

    #[test]
    fn a_reused_pid_is_not_the_recorded_group() {
        use std::os::unix::process::CommandExt;
        let dir = tempfile::tempdir().expect("tmp");
        let mut child = std::process::Command::new("sleep")
            .arg("300")
            .process_group(0)
            .spawn()
            .expect("sleep");
        let pgid = i32::try_from(child.id()).expect("pid");
        let entry = Entry {
            pgid,
            // Another start time: the pid now belongs to a different process.
            start: stat(pgid).expect("child stat").start + 1,
            boot_id: boot_id(),
            navigator_pid: u32::MAX - 9,
            navigator_start: 1,
            probe: "g.md#wait/9".into(),
            started_at: "earlier".into(),
        };
        std::fs::write(
            dir.path().join("x.json"),
            serde_json::to_vec(&entry).expect("json"),
        )
        .expect("write");
        assert!(stop_strays(dir.path(), Duration::from_millis(200)).is_empty());
        assert_eq!(child.try_wait().expect("try_wait"), None, "still running");
        child.kill().expect("kill");
        child.wait().expect("wait");
    }
}
