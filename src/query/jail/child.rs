//! The jail's child side: what the launcher (`super::launcher`, a fresh exec of tsgnav's own
//! binary) does before it execs the probe's shell. Everything it needs (paths as C strings,
//! the uid map, the kubeconfig bytes) is worked out by tsgnav ([`Plan`]) and sent over;
//! here only raw syscalls run.
//!
//! The launcher (`A`, the process tsgnav waits for and signals) makes the namespaces and
//! the mounts, brings loopback up, opens the door listeners and hands them to tsgnav over a
//! socket pair, then starts `B`, the first process of the new PID namespace, as `vfork`
//! does (`clone` with `CLONE_VM | CLONE_VFORK` on a stack of its own: no copy of `A`'s page
//! tables, and `A` waits until `B` has exec'd the shell or ended). `A` closes every
//! descriptor, waits for `B` and exits as `B` did. `B` dies with `A` (`PR_SET_PDEATHSIG`),
//! mounts a fresh `/proc`, leaves the terminal's session, drops its capabilities, applies
//! Landlock and seccomp (the caller's part), and `exec`s the shell. When the shell ends, the
//! kernel kills every process left in its PID namespace.
//!
//! IO edge (raw syscalls). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::ffi::CString;
use std::io;
use std::os::fd::RawFd;

/// A path made visible inside at the same place: cloned before the covers go up.
pub struct Bind {
    pub src: CString,
    pub dst: CString,
    /// Folders to create (outermost first) so the mount point exists inside.
    pub dirs: Vec<CString>,
    /// The mount point is a file (created empty).
    pub file: bool,
    pub read_only: bool,
}

/// A file written inside the private `/tmp` only (the probe's kubeconfig).
pub struct Secret {
    pub path: CString,
    pub dirs: Vec<CString>,
    pub bytes: Vec<u8>,
}

/// Everything the child does, prepared by the parent.
pub struct Plan {
    pub uid_map: Vec<u8>,
    pub gid_map: Vec<u8>,
    pub binds: Vec<Bind>,
    /// Folders covered by an empty tmpfs (`/tmp`, `/dev`, the homes).
    pub covers: Vec<CString>,
    /// Folders to make after the covers (`/dev/shm`).
    pub mkdirs: Vec<CString>,
    /// Symlinks to make after the covers (`/dev/fd` → `/proc/self/fd`): (target, link).
    pub links: Vec<(CString, CString)>,
    pub secrets: Vec<Secret>,
    /// Where the probe starts (its folder when still visible, else the scratch folder).
    pub cwd: CString,
    pub fallback_cwd: CString,
    /// Loopback ports the doors listen on inside.
    pub ports: Vec<u16>,
    /// The child's end of the socket pair to tsgnav.
    pub sock: RawFd,
    pub filter: Vec<libc::sock_filter>,
    /// One slot per bind (filled by the child; allocated here so the child does not).
    pub trees: Vec<RawFd>,
}

/// The steps that can fail, named in the message tsgnav shows (index = step number).
pub const STEPS: [&str; 16] = [
    "create the namespaces (unshare user, mount, network, PID, IPC, UTS)",
    "map the user and group ids into the user namespace",
    "make the mounts private",
    "take a copy of a path to show inside (open_tree)",
    "make the system folders read-only",
    "cover a folder with an empty tmpfs",
    "mount a path inside (move_mount)",
    "write the probe's kubeconfig into its private /tmp",
    "bring up the loopback interface",
    "listen on a door's loopback port",
    "hand the door sockets to tsgnav",
    "start the jail's first process (clone)",
    "mount /proc for the PID namespace",
    "leave the terminal's session (setsid)",
    "drop capabilities",
    "apply the seccomp filter",
];

/// Sends `[kind, step, errno]` and, for kind 1, the descriptors.
pub(super) fn send(sock: RawFd, kind: u32, step: u32, errno: i32, fds: &[RawFd]) -> bool {
    let data = [kind, step, errno as u32];
    let mut iov = libc::iovec {
        iov_base: data.as_ptr() as *mut libc::c_void,
        iov_len: std::mem::size_of_val(&data),
    };
    // Room for 16 descriptors, aligned for cmsghdr.
    let mut space = [0u64; 16];
    // SAFETY: a zeroed msghdr is valid; the pointers set below outlive the sendmsg call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    let n = fds.len().min(16);
    if n > 0 {
        let bytes = std::mem::size_of::<RawFd>() * n;
        // SAFETY: CMSG_* only compute sizes and pointers into `space`, which is large enough
        // for one header and 16 descriptors.
        unsafe {
            msg.msg_control = space.as_mut_ptr().cast();
            msg.msg_controllen = libc::CMSG_SPACE(bytes as u32) as usize;
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = libc::CMSG_LEN(bytes as u32) as usize;
            std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(c).cast(), n);
        }
    }
    // SAFETY: msg points at live buffers.
    unsafe { libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL) >= 0 }
}

/// Reports step `step` failed with the current errno; the error std hands to the parent.
pub(super) fn fail(sock: RawFd, step: usize) -> io::Error {
    let e = io::Error::last_os_error();
    send(sock, 2, step as u32, e.raw_os_error().unwrap_or(0), &[]);
    e
}

pub(super) fn check(sock: RawFd, step: usize, rc: libc::c_long) -> io::Result<()> {
    match rc < 0 {
        true => Err(fail(sock, step)),
        false => Ok(()),
    }
}

fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> libc::c_long {
    // SAFETY: plain open/write/close on a NUL-terminated path and a live buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return -1;
        }
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        n as libc::c_long
    }
}

pub(super) fn mkdirs(dirs: &[CString]) {
    for d in dirs {
        // SAFETY: mkdir on a NUL-terminated path; EEXIST is fine.
        unsafe { libc::mkdir(d.as_ptr(), 0o755) };
    }
}

/// The namespaces and the user map.
fn namespaces(p: &Plan) -> io::Result<()> {
    let flags = libc::CLONE_NEWUSER
        | libc::CLONE_NEWNS
        | libc::CLONE_NEWNET
        | libc::CLONE_NEWPID
        | libc::CLONE_NEWIPC
        | libc::CLONE_NEWUTS
        | libc::CLONE_NEWCGROUP;
    // SAFETY: unshare takes flags only.
    check(p.sock, 0, unsafe { libc::unshare(flags) }.into())?;
    let deny = write_file(c"/proc/self/setgroups", b"deny");
    let uid = write_file(c"/proc/self/uid_map", &p.uid_map);
    let gid = write_file(c"/proc/self/gid_map", &p.gid_map);
    check(p.sock, 1, deny.min(uid).min(gid))?;
    // SAFETY: the name is a live buffer of the given length.
    unsafe { libc::sethostname(c"tsgnav-jail".as_ptr(), 11) };
    Ok(())
}

/// How much stack `B` gets until it execs (it runs a few syscalls and no recursion).
const STACK: usize = 256 << 10;

/// What `B` runs: the plan, and the caller's part after `first_process` (Landlock, seccomp,
/// the exec), whose value is `B`'s exit code when it returns.
struct First<'a> {
    plan: &'a Plan,
    then: &'a mut dyn FnMut(&Plan) -> i32,
}

/// `B`'s entry (on its own stack, in `A`'s memory, while `A` waits): never returns.
extern "C" fn first(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the `First` that `enter` keeps alive until `B` has exec'd or ended.
    let f = unsafe { &mut *arg.cast::<First<'_>>() };
    let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        match first_process(f.plan) {
            Ok(()) => (f.then)(f.plan),
            Err(_) => 125,
        }
    }))
    .unwrap_or(125);
    // SAFETY: `B` ends here; it never returns into `A`'s frames.
    unsafe { libc::_exit(code) }
}

/// Runs in the launcher: the namespaces, the mounts and the network, then `B`, which runs
/// `then` after its own steps. Returns only when a step before `B` failed (reported to
/// tsgnav already); `A` otherwise ends as `B` did.
pub fn enter(p: &mut Plan, then: &mut dyn FnMut(&Plan) -> i32) -> io::Result<()> {
    namespaces(p)?;
    super::mounts::mounts(p)?;
    super::net::network(p)?;
    // SAFETY: a private anonymous mapping for `B`'s stack; unmapped once `B` no longer runs
    // on it (it exec'd or ended: `CLONE_VFORK` holds `A` until then).
    let stack = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            STACK,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
            -1,
            0,
        )
    };
    if stack == libc::MAP_FAILED {
        return Err(fail(p.sock, 11));
    }
    let mut f = First { plan: p, then };
    // SAFETY: clone with CLONE_VM | CLONE_VFORK runs `first` on the new stack (its top, 16-byte
    // aligned) in this single-threaded process's memory; this process is suspended until the
    // child execs or exits, so nothing here runs beside it. SIGCHLD is its exit signal.
    let pid = unsafe {
        let top = stack.cast::<u8>().add(STACK).cast::<libc::c_void>();
        libc::clone(
            first,
            top,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            std::ptr::from_mut(&mut f).cast(),
        )
    };
    let started = match pid < 0 {
        true => Err(fail(p.sock, 11)),
        false => Ok(pid),
    };
    // SAFETY: `B` no longer runs on the stack (see above).
    unsafe { libc::munmap(stack, STACK) };
    supervise(started?)
}

/// `A` after the fork: lets go of every descriptor (so tsgnav's spawn returns once `B`
/// execs), waits for `B` and ends the same way.
fn supervise(pid: libc::pid_t) -> ! {
    // SAFETY: close_range, waitpid, signal, kill and _exit only.
    unsafe {
        libc::close_range(0, u32::MAX, 0);
        // tsgnav's own handlers came with the fork: SIGTERM must end this process.
        for sig in 1..32 {
            if sig != libc::SIGKILL && sig != libc::SIGSTOP && sig != libc::SIGCHLD {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
        let mut status = 0;
        while libc::waitpid(pid, &mut status, 0) < 0 {
            if io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                libc::_exit(125);
            }
        }
        if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            libc::signal(sig, libc::SIG_DFL);
            libc::kill(libc::getpid(), sig);
            libc::_exit(128 + sig);
        }
        libc::_exit(libc::WEXITSTATUS(status))
    }
}

/// `B`, PID 1 of the jail: dies with `A`, gets its own `/proc`, no terminal, no
/// capabilities; Landlock and seccomp follow in the caller's part.
fn first_process(p: &Plan) -> io::Result<()> {
    // SAFETY: prctl/mount/setsid with constant arguments.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        if libc::mount(
            c"proc".as_ptr(),
            c"/proc".as_ptr(),
            c"proc".as_ptr(),
            flags,
            std::ptr::null(),
        ) != 0
        {
            // The kernel refuses a fresh /proc here: hide the outer one instead.
            let rc = libc::mount(
                c"tmpfs".as_ptr(),
                c"/proc".as_ptr(),
                c"tmpfs".as_ptr(),
                flags,
                c"size=1m".as_ptr().cast(),
            );
            check(p.sock, 12, rc.into())?;
        }
        check(p.sock, 13, libc::setsid().into())?;
        for cap in 0..64 {
            libc::prctl(libc::PR_CAPBSET_DROP, cap);
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        let bits = libc::SECBIT_NOROOT | libc::SECBIT_NOROOT_LOCKED | libc::SECBIT_NO_SETUID_FIXUP;
        check(
            p.sock,
            14,
            libc::prctl(libc::PR_SET_SECUREBITS, bits).into(),
        )?;
        check(
            p.sock,
            14,
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0).into(),
        )?;
    }
    Ok(())
}

/// The seccomp filter, last before exec (after Landlock, which needs `landlock_restrict_self`).
pub fn seccomp(p: &Plan) -> io::Result<()> {
    if p.filter.is_empty() {
        return Ok(());
    }
    let prog = libc::sock_fprog {
        len: p.filter.len() as u16,
        filter: p.filter.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: prctl with a live program; no_new_privs is set.
    let rc = unsafe { libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &prog) };
    check(p.sock, 15, rc.into())
}
