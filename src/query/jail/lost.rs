//! Lost launchers: a launcher the zygote forked (with `CLONE_PARENT`, so it is tsgnav's
//! child) whose pid never reached tsgnav (the zygote was stuck or died before it answered)
//! would stay an unreaped zombie for the rest of the session. Once that zygote is gone,
//! [`reap`] finds tsgnav's children that carry the zygote's name and started at or after the
//! request was sent, spares every launcher whose pid tsgnav was told, and kills and reaps the
//! rest. Nothing else of tsgnav carries that name (kubectl, bash and the probes' shells have
//! their own), and the zygote that forked them is already reaped, so no other process is
//! taken for a lost launcher.
//!
//! IO edge (`/proc`, signals). Must not import `cli`, `tui`, `nav` or `evidence`.

/// The time since boot in clock ticks (the unit of `/proc/PID/stat`'s start time).
pub fn now_ticks() -> u64 {
    // SAFETY: clock_gettime writes into a live timespec; sysconf reads a constant.
    let (ts, hz) = unsafe {
        let mut ts: libc::timespec = std::mem::zeroed();
        libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts);
        (ts, libc::sysconf(libc::_SC_CLK_TCK).max(1) as u64)
    };
    (ts.tv_sec as u64) * hz + (ts.tv_nsec as u64) * hz / 1_000_000_000
}

/// Kills and reaps this process's children named `comm` that started at tick `since` or
/// later, except `spare`. Returns the pids reaped.
pub fn reap(comm: &str, since: u64, spare: &[i32]) -> Vec<i32> {
    let mut reaped = Vec::new();
    if comm.is_empty() {
        return reaped;
    }
    for pid in children() {
        if spare.contains(&pid) {
            continue;
        }
        let Some((name, ppid, start)) = stat(pid) else {
            continue;
        };
        // SAFETY: getpid has no preconditions.
        if name != comm || ppid != unsafe { libc::getpid() } || start < since {
            continue;
        }
        // SAFETY: kill and a blocking waitpid on a child of ours that nobody else waits
        // for (its pid was never handed out); SIGKILL ends it at once.
        let done = unsafe {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, std::ptr::null_mut(), 0) == pid
        };
        if done {
            reaped.push(pid);
        }
    }
    reaped
}

/// The children of every thread of this process.
fn children() -> Vec<i32> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    let mut pids: Vec<i32> = tasks
        .filter_map(Result::ok)
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|s| {
            s.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<i32>>()
        })
        .collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// A process's name, parent pid and start time (ticks since boot), from `/proc/PID/stat`
/// (readable for a zombie too).
fn stat(pid: i32) -> Option<(String, i32, u64)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = s.find('(')?;
    let close = s.rfind(')')?;
    let name = s.get(open + 1..close)?.to_string();
    // After the name: state (3), ppid (4), … starttime (22).
    let rest: Vec<&str> = s.get(close + 1..)?.split_whitespace().collect();
    let ppid = rest.get(1)?.parse().ok()?;
    let start = rest.get(19)?.parse().ok()?;
    Some((name, ppid, start))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A child with a name of its own (a link to `true`), left unreaped: a zombie.
    fn zombie(dir: &std::path::Path, name: &str) -> std::process::Child {
        let link = dir.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("/bin/true", &link).expect("link");
        let child = std::process::Command::new(&link).spawn().expect("spawn");
        // It has exited once its stat says Z.
        for _ in 0..500 {
            let state = std::fs::read_to_string(format!("/proc/{}/stat", child.id()))
                .ok()
                .and_then(|s| s.rsplit_once(") ").map(|(_, r)| r.starts_with('Z')));
            if state == Some(true) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        child
    }

    #[test]
    fn a_lost_launcher_is_reaped_and_every_other_child_is_left_alone() {
        let dir = std::env::temp_dir().join(format!("tsgnav-lost-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        // Names no other test's children carry (the test binary runs tests side by side).
        let mut older = zombie(&dir, "tsgl-older");
        let since = now_ticks() + 1;
        while now_ticks() < since {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        // Left unwaited on purpose: this is the lost launcher `reap` must find.
        #[allow(clippy::zombie_processes)]
        let lost = zombie(&dir, "tsgl-lost");
        let mut told = zombie(&dir, "tsgl-lost");
        let mut other = zombie(&dir, "tsgl-other");
        let (lost_pid, told_pid) = (lost.id() as i32, told.id() as i32);
        assert!(std::path::Path::new(&format!("/proc/{lost_pid}")).exists());

        let reaped = reap("tsgl-lost", since, &[told_pid]);
        assert_eq!(reaped, vec![lost_pid], "only the lost one");
        assert!(
            !std::path::Path::new(&format!("/proc/{lost_pid}")).exists(),
            "the zombie is gone"
        );
        // Started before the request, told to tsgnav, or of another name: still ours to wait.
        assert!(reap("tsgl-older", since, &[]).is_empty());
        for c in [&mut older, &mut told, &mut other] {
            assert!(c.wait().expect("still a child of ours").success());
        }
        assert!(reap("", 0, &[]).is_empty(), "no name, nothing taken");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
