//! The parse cache's file at the edge of memory: a pack mapped rather than read, its pages let
//! go once what they hold is decoded, and the temporary packs a killed writer left beside it
//! removed. Part of `load` (file IO); imports nothing of the crate.

use std::path::Path;

/// A pack's bytes, mapped rather than read: a warm start of a big library does not copy the
/// whole pack into memory before its first guide can be decoded (a 300 MB pack took a third of
/// a second to read, and as much again to fault in the copy), and the pages are the page
/// cache's, shared, not the process's own.
pub enum Bytes {
    Mapped(memmap2::Mmap),
    None,
}

impl Bytes {
    pub fn map(path: &Path) -> Bytes {
        let Ok(file) = std::fs::File::open(path) else {
            return Bytes::None;
        };
        // SAFETY: a mapping is only sound while nobody truncates or rewrites the file under
        // it. tsgnav never does: a pack is replaced by writing a new file and renaming it over
        // the old one, which leaves the mapped file whole until it is unmapped. A pack cut or
        // edited in place by something else is refused by `pack::decode` and the checksums;
        // only a truncation while this start reads it could fault, in the user's own cache.
        match unsafe { memmap2::Mmap::map(&file) } {
            Ok(m) => Bytes::Mapped(m),
            Err(_) => Bytes::None,
        }
    }
}

impl Bytes {
    /// Lets the pages wholly inside `range` go from this process's memory once what they hold
    /// has been read (decoded): a warm start of a big library would otherwise keep the whole
    /// pack resident beside the guides decoded from it. They stay in the page cache, and a
    /// later read of them (a changed library copies kept entries into the new pack) faults
    /// them in again from the file.
    pub fn release(&self, range: std::ops::Range<usize>) {
        let Bytes::Mapped(m) = self else {
            return;
        };
        const PAGE: usize = 4096;
        let start = range.start.div_ceil(PAGE) * PAGE;
        let end = (range.end.min(m.len()) / PAGE) * PAGE;
        if start < end {
            // SAFETY: the mapping is private and read-only, of a file tsgnav never writes in
            // place (see `map`); dropping its pages only means the next read of them comes
            // from the file again, which holds the same bytes. So a slice still borrowed from
            // them (the writer's view of the old entries) reads what it read before.
            let _ = unsafe {
                m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
            };
        }
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::None => &[],
        }
    }
}

/// Removes the temporary files a killed process left while it streamed `target`'s new pack
/// (`<pack>.tmp.<pid>.<n>`, as large as the pack): those of a process that is gone. One of a
/// process still running (another start writing the same library) is left alone. Linux only:
/// elsewhere whether a process runs is not asked, and nothing is removed.
pub fn remove_orphans(target: &Path) {
    let (Some(dir), Some(name)) = (target.parent(), target.file_name().and_then(|n| n.to_str()))
    else {
        return;
    };
    let Some(stem) = name.strip_suffix(".pack") else {
        return;
    };
    let prefix = format!("{stem}.tmp.");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|rest| rest.split('.').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let gone = cfg!(target_os = "linux") && !Path::new(&format!("/proc/{pid}")).exists();
        if gone {
            let _ = std::fs::remove_file(e.path());
        }
    }
}
