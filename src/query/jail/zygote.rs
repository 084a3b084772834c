//! The session's zygote: tsgnav's own binary exec'd once (`[exe, launcher::ARG, ZYGOTE]`, an
//! empty environment, its own process group) that forks one launcher per jailed probe, so a
//! probe no longer pays for the exec, the loading and the relocation of a large binary.
//!
//! Protocol on the zygote's stdin, a socket pair to tsgnav: tsgnav sends one message per
//! probe with three descriptors (the launcher's end of the probe's own socket pair, and the
//! write ends of its stdout and stderr pipes); the zygote forks with `CLONE_PARENT`, so the
//! launcher is tsgnav's child (tsgnav waits for it, signals its process group and reads its
//! exit status as before), and answers with the launcher's pid or `-errno`. The launcher then
//! does exactly what an exec'd one does ([`super::launcher`]): the plan, the Landlock ruleset
//! and the door listeners travel on the probe's own socket pair, between tsgnav and that
//! launcher only. So the zygote never holds a probe's plan, kubeconfig, pass or scratch path:
//! it holds its control socket and, for the instant of a fork, one probe's three descriptors;
//! a launcher closes the control socket first thing. A zygote that dies is started again for
//! the next probe; a zygote's fork that fails is the probe's error.
//!
//! IO edge (processes, raw syscalls). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::ffi::c_int;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use super::launcher;

/// The second argument that makes a launcher the session's zygote.
pub const ZYGOTE: &str = "zygote";

/// How long tsgnav waits for the zygote's answer before it starts another one.
const ANSWER: Duration = Duration::from_secs(10);

/// The running zygote: its process, tsgnav's end of its control socket and its name (its
/// launchers carry that name too).
struct Running {
    process: std::process::Child,
    ctl: OwnedFd,
    comm: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

static ZYGOTE_OF_SESSION: Mutex<Option<Running>> = Mutex::new(None);

/// The launchers whose pids tsgnav was last told (never taken for lost ones).
static ANSWERED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// How many of them are kept: far more than can be forked within one clock tick (10 ms),
/// the resolution of a process's start time, which is all that tells a lost launcher from
/// one answered just before the request that failed.
const ANSWERED_KEPT: usize = 1024;

/// Forks a launcher from the session's zygote (started on first use, and again when it has
/// died) with `sock` on its stdin and `out`, `err` as its stdout and stderr. The launcher's
/// pid (a child of this process).
pub(super) fn fork(path: &std::path::Path, fds: [&OwnedFd; 3]) -> std::io::Result<i32> {
    let mut slot = ZYGOTE_OF_SESSION.lock().unwrap_or_else(|p| p.into_inner());
    let mut last = std::io::Error::other("no zygote");
    for _ in 0..2 {
        if slot.is_none() {
            *slot = Some(start(path)?);
        }
        let Some(z) = slot.as_ref() else { continue };
        let asked = super::lost::now_ticks();
        match ask(z.ctl.as_raw_fd(), fds) {
            Ok(pid) if pid > 0 => {
                let mut answered = ANSWERED.lock().unwrap_or_else(|p| p.into_inner());
                answered.push(pid);
                let extra = answered.len().saturating_sub(ANSWERED_KEPT);
                answered.drain(..extra);
                return Ok(pid);
            }
            Ok(e) => return Err(std::io::Error::from_raw_os_error(-e)),
            // The zygote is gone or stuck: the next try starts a new one. A launcher it
            // forked for this request is tsgnav's child that nobody knows of: once the
            // zygote is gone, it is found, killed and reaped (no zombie is left).
            Err(e) => {
                last = e;
                let comm = z.comm.clone();
                *slot = None;
                let spare = ANSWERED.lock().unwrap_or_else(|p| p.into_inner()).clone();
                super::lost::reap(&comm, asked, &spare);
            }
        }
    }
    Err(last)
}

/// The pid of the session's zygote, when one runs (for diagnostics and tests).
pub fn pid() -> Option<u32> {
    let slot = ZYGOTE_OF_SESSION.lock().unwrap_or_else(|p| p.into_inner());
    slot.as_ref().map(|z| z.process.id())
}

/// Starts a zygote from `path` (posix_spawn: no copy of tsgnav's address space).
fn start(path: &std::path::Path) -> std::io::Result<Running> {
    launcher::keep();
    let (ours, theirs) = super::plan::socket_pair().map_err(std::io::Error::other)?;
    let timeout = libc::timeval {
        tv_sec: ANSWER.as_secs() as libc::time_t,
        tv_usec: 0,
    };
    for opt in [libc::SO_RCVTIMEO, libc::SO_SNDTIMEO] {
        // SAFETY: setsockopt with a live timeval of the size given.
        unsafe {
            libc::setsockopt(
                ours.as_raw_fd(),
                libc::SOL_SOCKET,
                opt,
                std::ptr::from_ref(&timeout).cast(),
                std::mem::size_of::<libc::timeval>() as libc::socklen_t,
            )
        };
    }
    let mut cmd = std::process::Command::new(path);
    cmd.args([launcher::ARG, ZYGOTE])
        .env_clear()
        .current_dir("/")
        .stdin(Stdio::from(theirs))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Its own group: a Ctrl-C at the terminal is tsgnav's to handle, not the zygote's.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let process = cmd.spawn()?;
    let comm = std::fs::read_to_string(format!("/proc/{}/comm", process.id()))
        .map(|c| c.trim_end().to_string())
        .unwrap_or_default();
    Ok(Running {
        process,
        ctl: ours,
        comm,
    })
}

/// One request: the three descriptors out, the answer (a pid or `-errno`) in.
fn ask(ctl: RawFd, fds: [&OwnedFd; 3]) -> std::io::Result<i32> {
    let raw = fds.map(AsRawFd::as_raw_fd);
    if !super::child::send(ctl, 4, 0, 0, &raw) {
        return Err(std::io::Error::last_os_error());
    }
    let mut answer = [0u8; 4];
    let (n, got) = super::bridge::recv_raw(ctl, &mut answer, false)?;
    for fd in got {
        // SAFETY: a descriptor the zygote should not have sent; ours to close.
        drop(unsafe { OwnedFd::from_raw_fd(fd) });
    }
    match n {
        4 => Ok(i32::from_le_bytes(answer)),
        _ => Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof)),
    }
}

/// The zygote itself (in the exec'd binary, before `main`): answers requests until tsgnav
/// closes its end. Returns the exit code.
pub(super) fn serve() -> i32 {
    // SAFETY: fcntl/open/dup2/close_range on this process's own descriptors.
    let ctl = unsafe { libc::fcntl(0, libc::F_DUPFD_CLOEXEC, 3) };
    if ctl < 0 {
        return 125;
    }
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null < 0 || libc::dup2(null, 0) < 0 {
            return 125;
        }
        // Nothing tsgnav inherited stays open here for the session; only the control socket.
        if ctl > 3 {
            libc::close_range(3, (ctl - 1) as u32, 0);
        }
        libc::close_range(ctl as u32 + 1, u32::MAX, 0);
    }
    loop {
        let mut head = [0u8; 12];
        let (n, fds) = match super::bridge::recv_raw(ctl, &mut head, false) {
            Ok(got) => got,
            Err(_) => return 0,
        };
        if n == 0 && fds.is_empty() {
            return 0;
        }
        let answer = match fds.as_slice() {
            [sock, out, err] => fork_one(ctl, *sock, *out, *err),
            _ => -libc::EINVAL,
        };
        for fd in fds {
            // SAFETY: the descriptors of this request; the launcher has its own copies.
            unsafe { libc::close(fd) };
        }
        let bytes = answer.to_le_bytes();
        // SAFETY: send on the control socket from a live buffer.
        let sent =
            unsafe { libc::send(ctl, bytes.as_ptr().cast(), bytes.len(), libc::MSG_NOSIGNAL) };
        if sent < 0 {
            return 0;
        }
    }
}

/// Forks one launcher as a child of tsgnav. Returns its pid or `-errno` (in the zygote).
fn fork_one(ctl: RawFd, sock: RawFd, out: RawFd, err: RawFd) -> i32 {
    // SAFETY: clone without a new stack is a fork; CLONE_PARENT makes the child tsgnav's.
    // The zygote is single-threaded, so the child starts with no lock held.
    let pid = unsafe {
        libc::syscall(
            libc::SYS_clone,
            (libc::CLONE_PARENT | libc::SIGCHLD) as libc::c_ulong,
            0usize,
            0usize,
            0usize,
            0usize,
        )
    };
    if pid < 0 {
        return -std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EAGAIN);
    }
    if pid > 0 {
        return pid as i32;
    }
    // The launcher: the control socket closed first, its own process group, the probe's
    // socket on stdin and its pipes on stdout and stderr, then the launcher proper.
    // SAFETY: close/setpgid/dup2/_exit on this process's own descriptors.
    unsafe {
        libc::close(ctl);
        libc::setpgid(0, 0);
        for (fd, to) in [(sock, 0 as c_int), (out, 1), (err, 2)] {
            if libc::dup2(fd, to) < 0 {
                libc::_exit(125);
            }
        }
    }
    let code = std::panic::catch_unwind(launcher::run).unwrap_or(125);
    // SAFETY: the launcher never returns into the zygote's loop.
    unsafe { libc::_exit(code) }
}
