//! The jail's launcher: tsgnav's own binary started again (`/proc/self/exe`) with one
//! argument, [`ARG`], and an empty environment. It is caught before `main` (an
//! `.init_array` entry, so it works in every binary that links tsgnav: the tool, its tests,
//! its benches) and builds the jail in a freshly exec'd, single-threaded, small process.
//!
//! Why: forking tsgnav itself for each probe made the kernel copy the page tables of a large,
//! multi-threaded process twice per probe (for the jail's first process and for PID 1); that
//! was most of tsgnav's own time in a fleet run. tsgnav now starts the launcher with
//! `posix_spawn` (no `pre_exec`, so no copy of its address space), and every fork of the
//! jail happens here, in a process a few megabytes large.
//!
//! Protocol on the launcher's stdin, a socket pair to tsgnav: tsgnav sends the plan
//! ([`super::wire`]; a header with its length and the Landlock ruleset's descriptor, then
//! chunks); the child side ([`super::child`]) reports the door listeners or the step that
//! failed; tsgnav reads until the socket closes, which happens when the probe's shell has
//! been exec'd (the launcher's copy is close-on-exec) or the launcher has ended. Nothing
//! runs the probe but the jail's PID 1 after every layer is up: a launcher that is missing,
//! killed or wrong ends the probe with an error, never with an unjailed run.
//!
//! IO edge (raw syscalls). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::ffi::{c_char, c_int, CStr, CString};
use std::os::fd::RawFd;

use super::child;
use super::wire::{self, Exec};

/// The one argument that makes a tsgnav binary the jail's launcher.
pub const ARG: &str = "--tsgnav-jail-launcher-1";

/// Step numbers of the launcher's own steps (after `child::STEPS`' first 16).
pub(super) const STEP_PLAN: usize = 16;
pub(super) const STEP_EXEC: usize = 17;
pub(super) const STEP_LANDLOCK: usize = 18;
pub(super) const STEP_FDS: usize = 19;

/// The largest plan a launcher accepts (a probe's script and environment included).
pub(super) const MAX_PLAN: usize = 16 << 20;

type Init = extern "C" fn(c_int, *const *const c_char, *const *const c_char);

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[used]
#[link_section = ".init_array"]
static ENTRY: Init = entry;

/// Keeps the `.init_array` entry linked into every binary that can start a jail.
pub(super) fn keep() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    std::hint::black_box(&ENTRY);
}

/// Runs before `main` (glibc passes `main`'s arguments): the launcher when `argv` is exactly
/// `[exe, ARG]`, the session's zygote (`super::zygote`) when it is `[exe, ARG, "zygote"]`,
/// nothing otherwise.
extern "C" fn entry(argc: c_int, argv: *const *const c_char, _envp: *const *const c_char) {
    if !(argc == 2 || argc == 3) || argv.is_null() {
        return;
    }
    // SAFETY: glibc hands `main`'s argv, argc entries plus a NULL, to init_array functions;
    // a non-NULL entry is a NUL-terminated string.
    let word = |i: usize| unsafe {
        let p = *argv.add(i);
        (!p.is_null()).then(|| CStr::from_ptr(p).to_bytes())
    };
    if word(1) != Some(ARG.as_bytes()) {
        return;
    }
    // The operator's default for transparent huge pages, for the jail and the probe: tsgnav
    // refuses them for itself (`main`), and that setting survives fork and exec.
    allow_huge_pages();
    let main: fn() -> i32 = match argc {
        2 => run,
        _ if word(2) == Some(super::zygote::ZYGOTE.as_bytes()) => super::zygote::serve,
        _ => return,
    };
    let code = std::panic::catch_unwind(main).unwrap_or(125);
    // SAFETY: the launcher never returns to the binary's own start-up.
    unsafe { libc::_exit(code) }
}

/// Gives this process (and what it forks and execs) the system's own setting for transparent
/// huge pages back: tsgnav refuses them for itself at start (`PR_SET_THP_DISABLE`, which every
/// child inherits, across exec too), and a probe should run as it would in the operator's
/// shell. Async-signal-safe (one system call), so it may run between fork and exec.
pub fn allow_huge_pages() {
    // SAFETY: prctl with constant integer arguments touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0);
    }
}

/// The launcher: the plan from stdin, the jail, then (in the jail's PID 1) Landlock, seccomp
/// and the probe's program. Returns an exit code only when something failed.
pub(super) fn run() -> i32 {
    // SAFETY: fcntl/open/dup2 on descriptors this process owns.
    let sock = unsafe { libc::fcntl(0, libc::F_DUPFD_CLOEXEC, 3) };
    if sock < 0 {
        return 125;
    }
    // SAFETY: as above; stdin of the jail is /dev/null, never the socket.
    let null = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if null < 0 || unsafe { libc::dup2(null, 0) } < 0 {
        child::fail(sock, STEP_PLAN);
        return 125;
    }
    let Some((bytes, landlock)) = read_plan(sock) else {
        child::fail(sock, STEP_PLAN);
        return 125;
    };
    let Ok((mut plan, exec)) = wire::decode(&bytes, sock) else {
        child::send(sock, 2, STEP_PLAN as u32, libc::EINVAL, &[]);
        return 125;
    };
    plan.filter = super::seccomp::program();
    let candidates = candidates(&exec);
    let argv = pointers(&exec.args);
    let envp = pointers(&exec.env);
    // The jail's PID 1 runs `in_jail`; this process waits for it and ends as it did, unless
    // a step before it failed.
    let mut then = |plan: &child::Plan| in_jail(plan, sock, landlock, &candidates, (&argv, &envp));
    let _ = child::enter(&mut plan, &mut then);
    125
}

/// The jail's PID 1 after its own steps: Landlock, the descriptors, seccomp, then the probe's
/// program. Returns an exit code only when something failed.
fn in_jail(
    plan: &child::Plan,
    sock: RawFd,
    landlock: Option<RawFd>,
    candidates: &[CString],
    (argv, envp): (&[*const c_char], &[*const c_char]),
) -> i32 {
    if let Some(fd) = landlock {
        // SAFETY: landlock_restrict_self on the ruleset tsgnav built; no_new_privs is set.
        let rc = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd, 0) };
        if child::check(sock, STEP_LANDLOCK, rc).is_err() {
            return 125;
        }
        // SAFETY: the ruleset is in force; its descriptor is not needed.
        unsafe { libc::close(fd) };
    }
    // Descriptors tsgnav inherited from whoever started it (a terminal multiplexer's pipe, a
    // CI runner's socket) must not reach the probe: every one above stderr closes at exec.
    // SAFETY: close_range on this process's own descriptor table.
    let rc = unsafe { libc::close_range(3, u32::MAX, libc::CLOSE_RANGE_CLOEXEC as c_int) };
    if child::check(sock, STEP_FDS, libc::c_long::from(rc)).is_err() {
        return 125;
    }
    if child::seccomp(plan).is_err() {
        return 125;
    }
    child::send(sock, 3, 0, 0, &[]);
    let mut errno = libc::ENOENT;
    for path in candidates {
        // SAFETY: NUL-terminated path, NULL-terminated argv and envp that outlive the call.
        unsafe { libc::execve(path.as_ptr(), argv.as_ptr(), envp.as_ptr()) };
        let e = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
        if e != libc::ENOENT && e != libc::ENOTDIR {
            errno = e;
        }
    }
    child::send(sock, 2, STEP_EXEC as u32, errno, &[]);
    127
}

/// The plan's bytes and the Landlock descriptor (if tsgnav sent one), or `None`.
fn read_plan(sock: RawFd) -> Option<(Vec<u8>, Option<RawFd>)> {
    let mut head = [0u8; 8];
    let (n, fds) = super::bridge::recv_raw(sock, &mut head, false).ok()?;
    let total = usize::try_from(u64::from_le_bytes(head)).ok()?;
    if n != 8 || total > MAX_PLAN {
        return None;
    }
    let mut bytes = vec![0u8; total];
    let mut at = 0;
    while at < total {
        let (n, _) = super::bridge::recv_raw(sock, &mut bytes[at..], false).ok()?;
        if n == 0 {
            return None;
        }
        at += n;
    }
    Some((bytes, fds.first().copied()))
}

/// Where `exec.program` may be: itself when it names a path, else each folder of the
/// probe's own `PATH` (execvp's rule, without the shell fallback).
fn candidates(exec: &Exec) -> Vec<CString> {
    let prog = exec.program.as_bytes();
    if prog.contains(&b'/') {
        return vec![exec.program.clone()];
    }
    let path = exec
        .env
        .iter()
        .find_map(|e| e.as_bytes().strip_prefix(b"PATH="))
        .unwrap_or(b"/usr/local/bin:/usr/bin:/bin");
    path.split(|b| *b == b':')
        .map(|dir| match dir.is_empty() {
            true => prog.to_vec(),
            false => [dir, b"/", prog].concat(),
        })
        .filter_map(|p| CString::new(p).ok())
        .collect()
}

/// A NULL-terminated array of pointers into `v`.
fn pointers(v: &[CString]) -> Vec<*const c_char> {
    v.iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> CString {
        CString::new(s).expect("no NUL")
    }

    #[test]
    fn the_program_is_looked_up_in_the_probes_own_path() {
        let exec = Exec {
            program: c("bash"),
            args: vec![c("bash")],
            env: vec![c("HOME=/h"), c("PATH=/opt/x/bin::/usr/bin")],
        };
        assert_eq!(
            candidates(&exec),
            vec![c("/opt/x/bin/bash"), c("bash"), c("/usr/bin/bash")]
        );
        let direct = Exec {
            program: c("/bin/sh"),
            ..exec
        };
        assert_eq!(candidates(&direct), vec![c("/bin/sh")]);
    }
}
