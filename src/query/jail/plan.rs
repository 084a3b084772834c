//! What one probe's jail shows and hides, worked out in the parent ([`Spec`] → the child's
//! [`Plan`](super::child::Plan)): the covers (`/tmp`, `/var/tmp`, `/dev`, `/run`, the homes),
//! the paths shown again inside (the scratch folder read-write; the devices a shell needs;
//! the kube discovery cache and `[sandbox] read_only` paths read-only), kubeconfig files
//! outside the covers replaced by an empty file, and the doors' ports.
//!
//! IO edge (reads path metadata). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::child::{Bind, Plan, Secret};
use super::{Door, JailError};

/// One probe's jail, as asked for.
#[derive(Debug, Clone, Default)]
pub struct Spec {
    scratch: PathBuf,
    doors: Vec<Door>,
    secrets: Vec<(PathBuf, Vec<u8>)>,
    read_only: Vec<PathBuf>,
    hide: Vec<PathBuf>,
}

const DEVICES: [&str; 5] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];
const COVERS: [&str; 6] = ["/tmp", "/var/tmp", "/dev", "/run", "/root", "/home"];

impl Spec {
    /// A jail whose only writable folder is `scratch` (shown at the same path).
    pub fn new(scratch: &Path) -> Self {
        Spec {
            scratch: scratch.to_path_buf(),
            ..Spec::default()
        }
    }

    /// The doors (a listener inside on each port).
    pub fn doors(mut self, doors: Vec<Door>) -> Self {
        self.doors = doors;
        self
    }

    /// A file written only inside the jail's private `/tmp` (`inside` must be under `/tmp`).
    pub fn secret(mut self, inside: PathBuf, bytes: Vec<u8>) -> Self {
        self.secrets.push((inside, bytes));
        self
    }

    /// Paths shown read-only at their place (missing ones are skipped).
    pub fn read_only(mut self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        self.read_only.extend(paths);
        self
    }

    /// More paths to hide: a folder gets an empty tmpfs, a file an empty file (the operator's
    /// `HOME`, the real kubeconfigs).
    pub fn hide(mut self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        self.hide.extend(paths);
        self
    }

    pub(super) fn build(self) -> Result<(Plan, [OwnedFd; 2], Vec<Door>), JailError> {
        let covers = covers(&self.hide);
        let under_cover = |p: &Path| covers.iter().any(|c| p.starts_with(c));
        let mut binds = vec![bind(&self.scratch, &self.scratch, false, false)?];
        for d in DEVICES.iter().map(Path::new).filter(|d| d.exists()) {
            binds.push(bind(d, d, true, false)?);
        }
        for p in self.read_only.iter().filter_map(|p| p.canonicalize().ok()) {
            binds.push(bind(&p, &p, p.is_file(), true)?);
        }
        for f in self.hide.iter().filter_map(|p| p.canonicalize().ok()) {
            if f.is_file() && !under_cover(&f) {
                binds.push(bind(Path::new("/dev/null"), &f, true, true)?);
            }
        }
        let mut secrets = Vec::new();
        for (path, bytes) in self.secrets {
            if !path.starts_with("/tmp") {
                return Err(JailError::Prepare(format!(
                    "{} is not in the jail's private /tmp",
                    path.display()
                )));
            }
            secrets.push(Secret {
                dirs: ancestors(&path, false)?,
                path: cstr(&path)?,
                bytes,
            });
        }
        let links = [
            ("/proc/self/fd", "/dev/fd"),
            ("/proc/self/fd/0", "/dev/stdin"),
            ("/proc/self/fd/1", "/dev/stdout"),
            ("/proc/self/fd/2", "/dev/stderr"),
        ]
        .iter()
        .map(|(t, l)| Ok((cstr(Path::new(t))?, cstr(Path::new(l))?)))
        .collect::<Result<Vec<_>, JailError>>()?;
        let cwd = std::env::current_dir().unwrap_or_else(|_| self.scratch.clone());
        let (ours, theirs) = socket_pair()?;
        // SAFETY: geteuid/getegid cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let plan = Plan {
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            trees: vec![-1; binds.len()],
            binds,
            covers: covers.iter().map(|c| cstr(c)).collect::<Result<_, _>>()?,
            mkdirs: vec![cstr(Path::new("/dev/shm"))?],
            links,
            secrets,
            cwd: cstr(&cwd)?,
            fallback_cwd: cstr(&self.scratch)?,
            ports: self.doors.iter().map(|d| d.inside_port).take(16).collect(),
            sock: theirs.as_raw_fd(),
            filter: Vec::new(),
        };
        Ok((plan, [ours, theirs], self.doors))
    }
}

/// The folders to cover: the fixed ones and the hidden folders, resolved, outermost only.
fn covers(hide: &[PathBuf]) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = COVERS
        .iter()
        .map(PathBuf::from)
        .chain(hide.iter().cloned())
        .filter_map(|p| p.canonicalize().ok())
        .filter(|p| p.is_dir() && p != Path::new("/"))
        .collect();
    all.sort();
    all.dedup();
    let keep: Vec<PathBuf> = all
        .iter()
        .filter(|p| !all.iter().any(|o| o != *p && p.starts_with(o)))
        .cloned()
        .collect();
    keep
}

fn cstr(p: &Path) -> Result<CString, JailError> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| JailError::Prepare(format!("the path {} holds a NUL byte", p.display())))
}

/// `dst`'s ancestors below `/`, outermost first, and `dst` itself when `with_self`.
fn ancestors(dst: &Path, with_self: bool) -> Result<Vec<CString>, JailError> {
    let mut v: Vec<&Path> = dst.ancestors().skip(usize::from(!with_self)).collect();
    v.retain(|p| *p != Path::new("/") && !p.as_os_str().is_empty());
    v.reverse();
    v.into_iter().map(cstr).collect()
}

fn bind(src: &Path, dst: &Path, file: bool, read_only: bool) -> Result<Bind, JailError> {
    Ok(Bind {
        src: cstr(src)?,
        dst: cstr(dst)?,
        dirs: ancestors(dst, !file)?,
        file,
        read_only,
    })
}

pub(super) fn socket_pair() -> Result<(OwnedFd, OwnedFd), JailError> {
    let mut fds = [-1 as RawFd; 2];
    // SAFETY: socketpair writes two descriptors into `fds`.
    let rc = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return Err(JailError::Prepare(format!(
            "cannot open the socket pair to the jail: {}",
            std::io::Error::last_os_error()
        )));
    }
    // SAFETY: both descriptors are new and ours.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
