//! Finding the guides of a library: the markdown files under each root (file or folder), in
//! order, each once even when two roots or links lead to it, with the problems met on the way
//! (symlink loops, nesting too deep, folders that cannot be read, pipes and devices named as
//! guides), and, when asked, what each file looked like as it was met. File-system IO; imports only
//! its parent `load` (and through it `tsg`).

use hashbrown::HashSet;
use std::path::{Path, PathBuf};

use super::{LoadError, Source, MAX_DEPTH};

/// The markdown files under `roots`, in order (each folder sorted), each file once even when
/// two roots or links lead to it, and the problems met on the way.
pub fn discover(roots: &[PathBuf]) -> (Vec<Source>, Vec<LoadError>) {
    let mut files = Vec::new();
    let errors = discover_each(roots, &mut |s| files.push(s));
    (files, errors)
}

/// [`discover`] that hands each file to `found` as soon as the walk meets it (so it can be
/// read while the walk goes on), and returns the problems met.
pub fn discover_each(roots: &[PathBuf], found: &mut dyn FnMut(Source)) -> Vec<LoadError> {
    discover_each_with(roots, false, found)
}

/// [`discover_each`] that, with `look`, also looks at each file as it meets it
/// ([`Source::seen`]), relative to the folder it is listing: for a load that checks files
/// against a parse-cache pack, where a look by the file's whole path walks every folder of it
/// again (at 20,000 guides, more than half of the kernel's time in those looks).
pub fn discover_each_with(
    roots: &[PathBuf],
    look: bool,
    found: &mut dyn FnMut(Source),
) -> Vec<LoadError> {
    // Canonical paths of the files handed out: a file two roots or links lead to goes once,
    // where it was first met. (A file whose path cannot be resolved always goes.)
    // Kept as bytes: a canonical path is already normal, so its bytes compare as its
    // components do, and hash in one piece (a `PathBuf` hashes component by component).
    let mut read = HashSet::new();
    let mut sink = |file: PathBuf, rel: String, canonical: Option<PathBuf>, seen| {
        let keyed = match &canonical {
            Some(c) => c.to_string_lossy().into_owned(),
            None => file.to_string_lossy().into_owned(),
        };
        if canonical.is_none_or(|c| read.insert(c.into_os_string())) {
            found(Source {
                file,
                rel,
                keyed,
                seen,
            });
        }
    };
    let mut errors = Vec::new();
    for root in roots {
        let display = root.display().to_string();
        match std::fs::metadata(root) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                errors.push(LoadError::Missing { path: display })
            }
            Err(e) => errors.push(LoadError::Io {
                path: display,
                source: e,
            }),
            Ok(m) if m.is_dir() => {
                let mut seen = HashSet::new();
                let mut walk = Walk {
                    seen: &mut seen,
                    files: &mut sink,
                    errors: &mut errors,
                    look,
                };
                walk.dir(root, "", None, 0);
            }
            Ok(m) => {
                let name = root
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let canonical = std::fs::canonicalize(root).ok();
                sink(root.clone(), name, canonical, look.then(|| Seen::of(&m)));
            }
        }
    }
    errors
}

/// What the parse cache checks of a file before it hands back the guide it kept: its size, its
/// modification time, and whether it is a plain file someone may read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub len: u64,
    /// Nanoseconds since the epoch; `None` when the file system gives none.
    pub mtime_ns: Option<u128>,
    /// A plain file with a read bit: a FIFO, or a file made unreadable, is opened instead, so
    /// it fails (or blocks) as it would with no cache.
    pub plain: bool,
}

impl Seen {
    pub fn of(meta: &std::fs::Metadata) -> Seen {
        use std::os::unix::fs::PermissionsExt;
        Seen {
            len: meta.len(),
            mtime_ns: super::cache::mtime_ns(meta),
            plain: meta.is_file() && meta.permissions().mode() & 0o444 != 0,
        }
    }
}

/// A folder's entry: its name, its type as listed, and the entry (which keeps the folder open).
type Named = (
    std::ffi::OsString,
    Option<std::fs::FileType>,
    std::fs::DirEntry,
);

/// What a file that is neither a plain file, a folder nor a link is, for [`LoadError::NotAFile`].
fn special(t: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        Some("a named pipe (FIFO)")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        None
    }
}

fn is_markdown(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
}

/// One root's folders being walked: the canonical folders met so far (a symlink loop, kept as
/// bytes like the files' above), the files and problems found, and whether each file is looked
/// at as it is met.
struct Walk<'a> {
    seen: &'a mut HashSet<std::ffi::OsString>,
    files: &'a mut dyn FnMut(PathBuf, String, Option<PathBuf>, Option<Seen>),
    errors: &'a mut Vec<LoadError>,
    look: bool,
}

impl Walk<'_> {
    /// Walks `dir`, whose path below the root is `rel` (`/`-separated, empty for the root);
    /// `canonical` is its canonical path when it is known without asking the file system (a
    /// folder reached through no link: its parent's canonical path plus its name), else it is
    /// resolved here.
    fn dir(&mut self, dir: &Path, rel: &str, canonical: Option<PathBuf>, depth: usize) {
        if depth > MAX_DEPTH {
            self.errors.push(LoadError::TooDeep {
                path: dir.display().to_string(),
            });
            return;
        }
        let resolved = match canonical {
            Some(c) => Ok(c),
            None => std::fs::canonicalize(dir),
        };
        let canonical_dir = match resolved {
            Ok(c) if !self.seen.insert(c.clone().into_os_string()) => {
                let target = c.display().to_string();
                self.errors.push(LoadError::SymlinkLoop {
                    path: dir.display().to_string(),
                    target,
                });
                return;
            }
            Ok(c) => c,
            Err(e) => {
                self.errors.push(LoadError::Io {
                    path: dir.display().to_string(),
                    source: e,
                });
                return;
            }
        };
        let entries = match std::fs::read_dir(dir) {
            Ok(rd) => rd,
            Err(e) => {
                self.errors.push(LoadError::Io {
                    path: dir.display().to_string(),
                    source: e,
                });
                return;
            }
        };
        // The entry's type comes with the listing; only a symbolic link needs a stat to follow.
        // Sorted by name: within one folder that is the order of their paths. Each entry keeps
        // the open folder, to look at a file relative to it.
        let mut named: Vec<Named> = entries
            .filter_map(|e| e.ok().map(|e| (e.file_name(), e.file_type().ok(), e)))
            .collect();
        named.sort_unstable_by(|a, b| a.0.as_encoded_bytes().cmp(b.0.as_encoded_bytes()));
        for e in named {
            self.entry(dir, rel, &canonical_dir, &e, depth);
        }
    }

    /// The entry `name` of folder `dir` (`rel` below the root) whose canonical path is
    /// `canonical_dir`.
    fn entry(&mut self, dir: &Path, rel: &str, canonical_dir: &Path, e: &Named, depth: usize) {
        let (name, kind, listed) = (e.0.as_os_str(), e.1, &e.2);
        let bytes = name.as_encoded_bytes();
        if bytes.starts_with(b".") || bytes == b"target" || bytes == b"node_modules" {
            return;
        }
        let p = dir.join(name);
        let linked = kind.is_none_or(|k| k.is_symlink());
        // A link is followed by its whole path; what it leads to is looked at then.
        let (is_dir, followed) = match kind.filter(|_| !linked) {
            Some(k) => (Ok(k.is_dir()), None),
            None => match std::fs::metadata(&p) {
                Ok(m) => (Ok(m.is_dir()), Some(m)),
                Err(e) => (Err(e), None),
            },
        };
        // An entry reached through no link is its folder's canonical path plus its name.
        let canonical = (!linked).then(|| canonical_dir.join(name));
        let rel_of = || {
            let name = name.to_string_lossy();
            match rel {
                "" => name.into_owned(),
                _ => format!("{rel}/{name}"),
            }
        };
        match is_dir {
            Ok(true) => self.dir(&p, &rel_of(), canonical, depth + 1),
            Ok(false) if is_markdown(&p) => {
                // A pipe or a device met in a folder is not opened: a pipe would block the
                // load until something writes to it, a device might never end.
                let listed_as = followed.as_ref().map(|m| m.file_type()).or(kind);
                if let Some(kind) = listed_as.and_then(special) {
                    let path = p.display().to_string();
                    self.errors.push(LoadError::NotAFile { path, kind });
                    return;
                }
                let canonical = match canonical {
                    Some(c) => Some(c),
                    None => std::fs::canonicalize(&p).ok(),
                };
                // Not a link: the entry's own metadata, asked of the open folder by name.
                let seen = self
                    .look
                    .then(|| followed.or_else(|| listed.metadata().ok()))
                    .flatten()
                    .map(|m| Seen::of(&m));
                (self.files)(p, rel_of(), canonical, seen);
            }
            Ok(false) => {}
            Err(e) if is_markdown(&p) => self.errors.push(LoadError::Io {
                path: p.display().to_string(),
                source: e,
            }),
            Err(_) => {}
        }
    }
}

#[cfg(test)]
#[path = "discover_tests.rs"]
mod tests;
