//! The IO edge that reads guide files: walks roots (files or folders), refuses what is not a
//! readable UTF-8 markdown file with a message naming it, and parses the rest with
//! `tsg::parse_guide`, on every core ([`parallel`], [`streamed`]) and through the parse cache ([`cache`]) when
//! one is given. Must not import `cli` or any UI code.

mod cache;
mod discover;
mod later;
mod mirror;
mod pack;
pub mod parallel;
mod short;
mod streamed;

pub use cache::{tool_stamp, Cache};
pub use discover::{discover, discover_each, discover_each_with, Seen};
pub use later::hold;
pub use parallel::{Finish, Stats};
pub use streamed::{parse_streamed, Packed, Streamed};

use std::path::{Path, PathBuf};

use crate::tsg::{self, Library};

/// Largest guide read, in bytes. Real TSGs are a few hundred KiB at most.
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;
/// Deepest folder nesting walked below a root.
const MAX_DEPTH: usize = 64;

/// Why a file or folder was not loaded. Each message names the path and what to do.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: no such file or folder; check the path")]
    Missing { path: String },
    #[error("{path}: cannot read it: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: is {mib:.1} MiB; tsgnav reads guides up to 16 MiB. Split the guide or pass a smaller file")]
    TooLarge { path: String, mib: f64 },
    #[error("{path}: gave more than 16 MiB as it was read, though it looked smaller (a device, a pipe or a file still being written); pass a finished markdown file")]
    Endless { path: String },
    #[error("{path}: is {kind}, not a file, so it was not read (it could block or never end); a guide in a folder must be a plain file. To read a pipe as a guide, pass it by name")]
    NotAFile { path: String, kind: &'static str },
    #[error("{path}: looks binary (NUL byte at offset {offset}); pass markdown files only")]
    Binary { path: String, offset: usize },
    #[error(
        "{path}:{line}:{column}: is not UTF-8 (invalid byte 0x{byte:02x}); save the file as UTF-8"
    )]
    NotUtf8 {
        path: String,
        line: usize,
        column: usize,
        byte: u8,
    },
    #[error(
        "{path}: skipped: it links back to {target}, a folder already being read (symlink loop)"
    )]
    SymlinkLoop { path: String, target: String },
    #[error("{path}: skipped: folders nest deeper than {MAX_DEPTH} levels")]
    TooDeep { path: String },
}

impl LoadError {
    /// Loops are reported but are not failures: the folder was read once.
    pub fn is_warning(&self) -> bool {
        matches!(self, LoadError::SymlinkLoop { .. })
    }
}

/// A markdown file to load: the file, and its path relative to the root it was found under
/// (`/`-separated; the node ids start with it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub file: PathBuf,
    pub rel: String,
    /// The file's canonical path (its path as given when that cannot be resolved): what the
    /// parse cache keys it by, the same whichever way the library's root was spelled.
    pub keyed: String,
    /// The file as the walk saw it, when it was asked to look ([`discover_each_with`], for a
    /// load with a pack to check files against); else `None`, and it is looked at when read.
    pub seen: Option<Seen>,
}

/// Reads every `.md` file under `roots`. Bad files become errors; the rest still load.
pub fn load_library(roots: &[PathBuf]) -> (Library, Vec<LoadError>) {
    let (lib, errors, _) = load_library_cached(roots, None);
    (lib, errors)
}

/// [`load_library`] through `cache`: unchanged files come from it, the rest are parsed (on
/// every core) and kept in it.
pub fn load_library_cached(
    roots: &[PathBuf],
    cache: Option<&Cache>,
) -> (Library, Vec<LoadError>, Stats) {
    load_library_cached_with(roots, cache, Finish::NONE)
}

/// [`load_library_cached`] with `finish` done on each guide parsed, on the thread that parsed
/// it (see [`Finish`]; a guide from the pack had it done when it was parsed), before the
/// library's links are resolved.
pub fn load_library_cached_with(
    roots: &[PathBuf],
    cache: Option<&Cache>,
    finish: Finish,
) -> (Library, Vec<LoadError>, Stats) {
    let map = |g: tsg::Guide| g;
    let (mut lib, mut errors, mut failed) = (Library::default(), Vec::new(), Vec::new());
    // With a pack to check the files against, the walk looks at each file as it meets it.
    let look = cache.is_some_and(|c| c.has_pack(roots));
    let walk = |found: &mut dyn FnMut(Source)| discover_each_with(roots, look, found);
    let packed = cache.map(|c| (c, roots));
    let idle = std::time::Duration::MAX;
    let (stats, writer) = parse_streamed(walk, packed, finish, idle, &map, |step| match step {
        Streamed::Ready(_, Ok(g)) => lib.guides.push(g),
        Streamed::Ready(_, Err(e)) => failed.push(e),
        Streamed::Walked(walked) => errors = walked,
        Streamed::Idle => {}
    });
    if let Some(w) = writer {
        let _ = w.join();
    }
    // The walk's problems first, then the files' in file order (as a walk before the reading
    // would list them).
    errors.extend(failed);
    tsg::link_library(&mut lib);
    (lib, errors, stats)
}

/// Reads one file as UTF-8 markdown, refusing huge, binary and non-UTF-8 files.
pub fn read_text(path: &Path) -> Result<String, LoadError> {
    let display = path.display().to_string();
    let io = |source| LoadError::Io {
        path: display.clone(),
        source,
    };
    // One open; the size is read from the open file, so the path is looked up once.
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    read_open(path, file, &meta)
}

/// [`read_text`] of a file already open, whose metadata (read from the open file) is `meta`.
pub fn read_open(
    path: &Path,
    file: std::fs::File,
    meta: &std::fs::Metadata,
) -> Result<String, LoadError> {
    let mut bytes = Vec::new();
    let n = read_bytes(path, file, meta, &mut bytes)?;
    bytes.truncate(n);
    String::from_utf8(bytes).map_err(|e| not_utf8(path, e.as_bytes(), e.utf8_error()))
}

/// [`read_open`] into `buf`, whose room is kept for the next file (so a thread reading many
/// files allocates, and zeroes, room for the largest one only): the text, borrowed from the
/// start of `buf` (what lies past it is an earlier file's).
pub fn read_open_into<'b>(
    path: &Path,
    file: std::fs::File,
    meta: &std::fs::Metadata,
    buf: &'b mut Vec<u8>,
) -> Result<&'b str, LoadError> {
    let n = read_bytes(path, file, meta, buf)?;
    let text = buf.get(..n).unwrap_or_default();
    std::str::from_utf8(text).map_err(|e| not_utf8(path, text, e))
}

/// The bytes of an open file into the start of `bytes` (how many comes back), refusing huge
/// and binary files.
fn read_bytes(
    path: &Path,
    mut file: std::fs::File,
    meta: &std::fs::Metadata,
    bytes: &mut Vec<u8>,
) -> Result<usize, LoadError> {
    let len = meta.len();
    if len > MAX_BYTES {
        return Err(LoadError::TooLarge {
            path: path.display().to_string(),
            mib: len as f64 / (1024.0 * 1024.0),
        });
    }
    let limit = usize::try_from(MAX_BYTES).unwrap_or(usize::MAX);
    let len = usize::try_from(len).unwrap_or(0);
    let n = read_whole(&mut file, len, limit, bytes).map_err(|source| LoadError::Io {
        path: path.display().to_string(),
        source,
    })?;
    if n > limit {
        return Err(LoadError::Endless {
            path: path.display().to_string(),
        });
    }
    if let Some(offset) = memchr::memchr(0, &bytes[..n.min(8192)]) {
        return Err(LoadError::Binary {
            path: path.display().to_string(),
            offset,
        });
    }
    Ok(n)
}

/// Reads `file` to its end into the start of `bytes` and says how many bytes it read, in reads
/// as large as the `len` its metadata gave (and one more to see the end): std's reading to the
/// end asks the file for its size and position again, two system calls per guide, and without
/// that hint it reads 8 KiB at a time. `bytes` only grows (zeroed where it grows), so a buffer
/// kept from file to file is zeroed once for the largest, not again for each file. A file that
/// grew since its metadata was read is still read whole, up to `limit` bytes: past that it
/// stops (a count over `limit` comes back), so `/dev/zero` behind a `.md` name is not read
/// until memory runs out.
fn read_whole(
    file: &mut std::fs::File,
    len: usize,
    limit: usize,
    bytes: &mut Vec<u8>,
) -> std::io::Result<usize> {
    if bytes.len() <= len {
        bytes.resize(len.saturating_add(1), 0);
    }
    let mut filled = 0;
    loop {
        if filled > limit {
            return Ok(filled);
        }
        if filled == bytes.len() {
            let more = filled
                .saturating_mul(2)
                .max(4096)
                .min(limit.saturating_add(1));
            bytes.resize(more.max(filled + 1), 0);
        }
        match std::io::Read::read(file, &mut bytes[filled..]) {
            Ok(0) => return Ok(filled),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Where `bytes` (of the file at `path`) stop being UTF-8: its line, column and byte.
fn not_utf8(path: &Path, bytes: &[u8], e: std::str::Utf8Error) -> LoadError {
    let at = e.valid_up_to();
    let before = &bytes[..at];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let column = at
        - before
            .iter()
            .rposition(|b| *b == b'\n')
            .map(|p| p + 1)
            .unwrap_or(0)
        + 1;
    LoadError::NotUtf8 {
        path: path.display().to_string(),
        line,
        column,
        byte: bytes.get(at).copied().unwrap_or(0),
    }
}

/// Whether a relative link from `guide` points at an existing file (the link check of lint).
pub fn link_target_exists(guide_file: &str, dest: &str) -> bool {
    let file = dest.split(['#', '?']).next().unwrap_or(dest);
    // Repository-absolute links (`/docs/x.md`) depend on where the repository root is.
    if file.is_empty() || file.starts_with('/') {
        return true;
    }
    let base = Path::new(guide_file).parent().unwrap_or(Path::new(""));
    base.join(file).exists()
}

/// Whether `file` lies in a git work tree (a `.git` folder or file in it or a folder above).
/// Lint trusts a missing link target as broken only there: a copy of the guides alone (an
/// export, a snapshot of the docs) usually lacks the code and files its links point at.
pub fn in_git_checkout(file: &str) -> bool {
    let path = Path::new(file);
    let start = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    start.ancestors().any(|d| d.join(".git").exists())
}

#[cfg(test)]
#[path = "load/read_tests.rs"]
mod read_tests;
