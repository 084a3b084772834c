//! Finding the guides of a library: the markdown files under each root (file or folder), in
//! order, each once even when two roots or links lead to it, with the problems met on the way
//! (symlink loops, nesting too deep, folders that cannot be read). File-system IO; imports only
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
    // Canonical paths of the files handed out: a file two roots or links lead to goes once,
    // where it was first met. (A file whose path cannot be resolved always goes.)
    // Kept as bytes: a canonical path is already normal, so its bytes compare as its
    // components do, and hash in one piece (a `PathBuf` hashes component by component).
    let mut read = HashSet::new();
    let mut sink = |file: PathBuf, rel: String, canonical: Option<PathBuf>| {
        if canonical.is_none_or(|c| read.insert(c.into_os_string())) {
            found(Source { file, rel });
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
                };
                walk.dir(root, "", None, 0);
            }
            Ok(_) => {
                let name = root
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let canonical = std::fs::canonicalize(root).ok();
                sink(root.clone(), name, canonical);
            }
        }
    }
    errors
}

fn is_markdown(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
}

/// One root's folders being walked: the canonical folders met so far (a symlink loop, kept as
/// bytes like the files' above), and the files and problems found.
struct Walk<'a> {
    seen: &'a mut HashSet<std::ffi::OsString>,
    files: &'a mut dyn FnMut(PathBuf, String, Option<PathBuf>),
    errors: &'a mut Vec<LoadError>,
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
        // Sorted by name: within one folder that is the order of their paths.
        let mut named: Vec<(std::ffi::OsString, Option<std::fs::FileType>)> = entries
            .filter_map(|e| e.ok().map(|e| (e.file_name(), e.file_type().ok())))
            .collect();
        named.sort_unstable_by(|a, b| a.0.as_encoded_bytes().cmp(b.0.as_encoded_bytes()));
        for (name, kind) in named {
            self.entry(dir, rel, &canonical_dir, &name, kind, depth);
        }
    }

    /// The entry `name` of folder `dir` (`rel` below the root) whose canonical path is
    /// `canonical_dir`.
    fn entry(
        &mut self,
        dir: &Path,
        rel: &str,
        canonical_dir: &Path,
        name: &std::ffi::OsStr,
        kind: Option<std::fs::FileType>,
        depth: usize,
    ) {
        let bytes = name.as_encoded_bytes();
        if bytes.starts_with(b".") || bytes == b"target" || bytes == b"node_modules" {
            return;
        }
        let p = dir.join(name);
        let linked = kind.is_none_or(|k| k.is_symlink());
        let is_dir = match kind.filter(|_| !linked) {
            Some(k) => Ok(k.is_dir()),
            None => std::fs::metadata(&p).map(|m| m.is_dir()),
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
                let canonical = match canonical {
                    Some(c) => Some(c),
                    None => std::fs::canonicalize(&p).ok(),
                };
                (self.files)(p, rel_of(), canonical);
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
