//! A started probe's process, as the shell backend supervises it: either a child tokio
//! started (a probe outside the jail, or a jail through a launcher named by a test), or a
//! launcher the session's zygote forked ([`super::zygote`]), which is this process's child
//! too (`CLONE_PARENT`) and is waited for through a pidfd. Both give the probe's stdout and
//! stderr, its pid (its process group's id) and its exit status, and both are killed when
//! dropped before they ended.
//!
//! IO edge (processes). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use tokio::io::unix::AsyncFd;
use tokio::io::AsyncRead;
use tokio::net::unix::pipe::Receiver;

/// One end of a probe's output.
pub type Pipe = Box<dyn AsyncRead + Send + Unpin>;

/// A probe's process.
pub enum Child {
    Spawned(tokio::process::Child),
    Forked(Forked),
}

impl From<tokio::process::Child> for Child {
    fn from(c: tokio::process::Child) -> Self {
        Child::Spawned(c)
    }
}

impl Child {
    /// Its pid, until it has been waited for.
    pub fn id(&self) -> Option<u32> {
        match self {
            Child::Spawned(c) => c.id(),
            Child::Forked(f) => f.status.is_none().then_some(f.pid as u32),
        }
    }

    pub fn take_stdout(&mut self) -> Option<Pipe> {
        match self {
            Child::Spawned(c) => c.stdout.take().map(|p| Box::new(p) as Pipe),
            Child::Forked(f) => f.stdout.take().map(|p| Box::new(p) as Pipe),
        }
    }

    pub fn take_stderr(&mut self) -> Option<Pipe> {
        match self {
            Child::Spawned(c) => c.stderr.take().map(|p| Box::new(p) as Pipe),
            Child::Forked(f) => f.stderr.take().map(|p| Box::new(p) as Pipe),
        }
    }

    /// Waits for it to end (cancel-safe).
    pub async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        match self {
            Child::Spawned(c) => c.wait().await,
            Child::Forked(f) => f.wait().await,
        }
    }

    /// Its exit status, if it has ended.
    pub fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        match self {
            Child::Spawned(c) => c.try_wait(),
            Child::Forked(f) => f.try_wait(),
        }
    }
}

/// A launcher the zygote forked: its pid, a pidfd on it, and its output pipes.
pub struct Forked {
    pid: i32,
    pidfd: AsyncFd<OwnedFd>,
    status: Option<ExitStatus>,
    stdout: Option<Receiver>,
    stderr: Option<Receiver>,
}

impl Forked {
    /// Takes over child `pid` (of this process) and the read ends of its pipes. Must run
    /// inside a tokio runtime.
    pub(super) fn new(pid: i32, stdout: OwnedFd, stderr: OwnedFd) -> std::io::Result<Self> {
        // SAFETY: pidfd_open on a child of ours: it is not reaped until we wait for it, so
        // the pid cannot name another process.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if fd < 0 {
            let e = std::io::Error::last_os_error();
            // SAFETY: kill and waitpid on our own child, which is of no use without a pidfd.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
            return Err(e);
        }
        // SAFETY: a new descriptor of ours, owned by the AsyncFd for its whole life.
        let pidfd = unsafe { AsyncFd::register(OwnedFd::from_raw_fd(fd as i32)) }
            .map_err(|e| e.into_parts().1)?;
        Ok(Forked {
            pid,
            pidfd,
            status: None,
            stdout: Some(Receiver::from_owned_fd(stdout)?),
            stderr: Some(Receiver::from_owned_fd(stderr)?),
        })
    }

    fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        if self.status.is_some() {
            return Ok(self.status);
        }
        self.status = reap(&self.pidfd, libc::WNOHANG)?;
        Ok(self.status)
    }

    async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        loop {
            if let Some(s) = self.try_wait()? {
                return Ok(s);
            }
            self.pidfd.readable().await?.clear_ready();
        }
    }
}

impl Drop for Forked {
    fn drop(&mut self) {
        if self.status.is_some() {
            return;
        }
        // SAFETY: kill on our own child, not yet reaped.
        unsafe { libc::kill(self.pid, libc::SIGKILL) };
        if let Ok(Some(_)) = reap(&self.pidfd, libc::WNOHANG) {
            return;
        }
        // It dies in a moment: reap it then, off this thread.
        let Ok(fd) = self.pidfd.get_ref().try_clone() else {
            return;
        };
        std::thread::spawn(move || {
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            // SAFETY: a blocking waitid on the pidfd of our own child.
            unsafe {
                libc::waitid(
                    libc::P_PIDFD,
                    fd.as_raw_fd() as libc::id_t,
                    &mut info,
                    libc::WEXITED,
                )
            };
        });
    }
}

/// Reaps the child behind `pidfd` (with `WNOHANG`: only if it has ended).
fn reap(pidfd: &AsyncFd<OwnedFd>, flags: i32) -> std::io::Result<Option<ExitStatus>> {
    // SAFETY: a zeroed siginfo_t is valid; waitid writes into it.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let rc = unsafe {
        libc::waitid(
            libc::P_PIDFD,
            pidfd.get_ref().as_raw_fd() as libc::id_t,
            &mut info,
            libc::WEXITED | flags,
        )
    };
    if rc < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: waitid filled in a SIGCHLD siginfo (si_pid 0: nothing has ended yet).
    let (pid, status) = unsafe { (info.si_pid(), info.si_status()) };
    if pid == 0 {
        return Ok(None);
    }
    let raw = match info.si_code {
        libc::CLD_EXITED => (status & 0xff) << 8,
        libc::CLD_DUMPED => status | 0x80,
        _ => status,
    };
    Ok(Some(ExitStatus::from_raw(raw)))
}
