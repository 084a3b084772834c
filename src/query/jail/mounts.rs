//! The jail's mount namespace, between `fork` and `exec` (see `child`): private
//! propagation, copies of the paths to show taken first, the system made read-only, the
//! covers, the copies attached at their places, the links, the probe's kubeconfig written into
//! its private `/tmp`, and a working folder that still exists inside.
//!
//! IO edge (raw syscalls). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::io;
use std::os::fd::RawFd;

use super::child::{check, mkdirs, Plan};

const AT_RECURSIVE: u32 = 0x8000;
const OPEN_TREE_CLONE: u32 = 1;
const MOVE_MOUNT_F_EMPTY_PATH: u32 = 4;
const MOUNT_ATTR_RDONLY: u64 = 1;
const MOUNT_ATTR_NOSUID: u64 = 2;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// The mount namespace: private, system read-only, covers, binds, the kubeconfig.
pub(super) fn mounts(p: &mut Plan) -> io::Result<()> {
    let none = std::ptr::null::<libc::c_char>();
    // SAFETY: mount with a NULL source and type changes propagation only.
    let rc = unsafe {
        libc::mount(
            none,
            c"/".as_ptr(),
            none,
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        )
    };
    check(p.sock, 2, rc.into())?;
    for (slot, b) in p.trees.iter_mut().zip(&p.binds) {
        let flags = OPEN_TREE_CLONE | AT_RECURSIVE | libc::O_CLOEXEC as u32;
        // SAFETY: open_tree(AT_FDCWD, path, flags) returns a new descriptor or -1.
        let fd =
            unsafe { libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, b.src.as_ptr(), flags) };
        check(p.sock, 3, fd)?;
        *slot = fd as RawFd;
    }
    setattr(
        p.sock,
        4,
        (libc::AT_FDCWD, c"/", 0),
        MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID,
        0,
    )?;
    for c in &p.covers {
        // SAFETY: mounting a fresh tmpfs on an existing folder.
        let rc = unsafe {
            libc::mount(
                c"tmpfs".as_ptr(),
                c.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                c"mode=0755,size=64m".as_ptr().cast(),
            )
        };
        check(p.sock, 5, rc.into())?;
    }
    mkdirs(&p.mkdirs);
    attach(p)?;
    for (target, link) in &p.links {
        // SAFETY: symlink on NUL-terminated paths.
        unsafe { libc::symlink(target.as_ptr(), link.as_ptr()) };
    }
    write_secrets(p)?;
    // SAFETY: chdir on NUL-terminated paths; the old working folder may be covered now.
    if unsafe { libc::chdir(p.cwd.as_ptr()) } != 0 {
        unsafe { libc::chdir(p.fallback_cwd.as_ptr()) };
    }
    Ok(())
}

/// Attaches each copy taken before the covers at its place, read-only or not.
fn attach(p: &Plan) -> io::Result<()> {
    for (fd, b) in p.trees.iter().zip(&p.binds) {
        mkdirs(&b.dirs);
        if b.file {
            // SAFETY: creates the empty mount point file.
            unsafe {
                libc::close(libc::open(
                    b.dst.as_ptr(),
                    libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                    0o644,
                ))
            };
        }
        let (set, clr) = match b.read_only {
            true => (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0),
            false => (MOUNT_ATTR_NOSUID, MOUNT_ATTR_RDONLY),
        };
        // One call sets and clears (the two never share a bit).
        setattr(p.sock, 6, (*fd, c"", libc::AT_EMPTY_PATH as u32), set, clr)?;
        // SAFETY: move_mount(fd, "", AT_FDCWD, dst, F_EMPTY_PATH) attaches the copy.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_move_mount,
                *fd,
                c"".as_ptr(),
                libc::AT_FDCWD,
                b.dst.as_ptr(),
                MOVE_MOUNT_F_EMPTY_PATH,
            )
        };
        check(p.sock, 6, rc)?;
        // SAFETY: the copy is attached; its descriptor is no longer needed.
        unsafe { libc::close(*fd) };
    }
    Ok(())
}

/// Writes each secret (the probe's kubeconfig) into the private `/tmp`, for its owner only.
fn write_secrets(p: &Plan) -> io::Result<()> {
    for s in &p.secrets {
        mkdirs(&s.dirs);
        // SAFETY: a new file readable by its owner only, written whole.
        let rc = unsafe {
            let fd = libc::open(
                s.path.as_ptr(),
                libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_CLOEXEC,
                0o600,
            );
            let n = match fd < 0 {
                true => -1,
                false => libc::write(fd, s.bytes.as_ptr().cast(), s.bytes.len()),
            };
            libc::close(fd);
            n
        };
        check(p.sock, 7, rc as libc::c_long)?;
    }
    Ok(())
}

/// `mount_setattr` on `(dfd, path, flags)` and everything below it: `set` on, `clr` off.
fn setattr(
    sock: RawFd,
    step: usize,
    (dfd, path, flags): (RawFd, &std::ffi::CStr, u32),
    set: u64,
    clr: u64,
) -> io::Result<()> {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: clr,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: mount_setattr with a live attr struct of the size given.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            dfd,
            path.as_ptr(),
            flags | AT_RECURSIVE,
            &attr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    check(sock, step, rc)
}
