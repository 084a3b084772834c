//! The byte layout of a parse-cache pack: one file that holds every parsed guide of a library,
//! so a start reads one file (one `read`) instead of one per guide, and a first start creates
//! one inode instead of thousands. Only framing lives here (no serde, no file IO): a [`Writer`]
//! lays entries out on any `io::Write` as they come (so a new pack is streamed to its file, not
//! built in memory first), [`decode`] finds them again without copying and refuses anything that
//! is not a whole pack of this layout, and [`intact`] checks an entry's payload against
//! the checksum written with it (a flipped byte costs that entry only). Imports nothing of the
//! crate.
//!
//! Layout (integers little-endian):
//! `MAGIC`, u32 stamp length, stamp, then per entry: u32 + file, u32 + rel, u64 size,
//! u128 mtime (ns), u32 CRC-32 of the payload, u64 + payload; then `END`, a u64 entry count and
//! a u64 of the byte count before `END`.

use std::io::{self, Write};
use std::ops::Range;

/// The layout's name and version: a pack of another layout (the first one kept JSON payloads
/// and no checksums, the second the sections' text, the third every id and block in full) is
/// refused whole.
const MAGIC: &[u8; 12] = b"TSGNAVPACK5\n";
const END: &[u8; 4] = b"END\n";

/// One entry: which file it was parsed from, as it was then, and its payload (the guide).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'a> {
    pub file: &'a str,
    pub rel: &'a str,
    pub size: u64,
    pub mtime_ns: u128,
    /// The CRC-32 of `payload` as it was written.
    pub crc: u32,
    pub payload: &'a [u8],
}

/// Whether `payload` still has the checksum `crc` it was written with.
pub fn intact(payload: &[u8], crc: u32) -> bool {
    crc32fast::hash(payload) == crc
}

/// A pack's entries, borrowed from its bytes: `payload` ranges index into those bytes.
#[derive(Debug)]
pub struct Decoded<'a> {
    pub stamp: &'a str,
    pub entries: Vec<(Entry<'a>, Range<usize>)>,
}

/// A pack being written to `out`, one entry at a time; [`Writer::finish`] closes it. Until
/// then the bytes written are not a pack ([`decode`] refuses them).
pub struct Writer<W: Write> {
    out: W,
    written: u64,
    count: u64,
}

impl<W: Write> Writer<W> {
    /// Starts the pack of `stamp` on `out`.
    pub fn new(out: W, stamp: &str) -> io::Result<Writer<W>> {
        let mut w = Writer {
            out,
            written: 0,
            count: 0,
        };
        w.put(MAGIC)?;
        w.put_str(stamp)?;
        Ok(w)
    }

    /// Adds one entry (`crc` is recomputed from the payload, never trusted).
    pub fn entry(&mut self, e: &Entry<'_>) -> io::Result<()> {
        self.put_str(e.file)?;
        self.put_str(e.rel)?;
        self.put(&e.size.to_le_bytes())?;
        self.put(&e.mtime_ns.to_le_bytes())?;
        self.put(&crc32fast::hash(e.payload).to_le_bytes())?;
        self.put(&(e.payload.len() as u64).to_le_bytes())?;
        self.put(e.payload)?;
        self.count += 1;
        Ok(())
    }

    /// Writes the end of the pack and hands `out` back (flushed).
    pub fn finish(mut self) -> io::Result<W> {
        let body = self.written;
        self.out.write_all(END)?;
        self.out.write_all(&self.count.to_le_bytes())?;
        self.out.write_all(&body.to_le_bytes())?;
        self.out.flush()?;
        Ok(self.out)
    }

    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    fn put_str(&mut self, s: &str) -> io::Result<()> {
        self.put(&(s.len() as u32).to_le_bytes())?;
        self.put(s.as_bytes())
    }
}

/// The pack of `entries` for `stamp`, in memory.
#[cfg(test)]
pub fn encode<'a>(stamp: &str, entries: impl IntoIterator<Item = Entry<'a>>) -> Vec<u8> {
    let mut w = match Writer::new(Vec::new(), stamp) {
        Ok(w) => w,
        Err(_) => return Vec::new(),
    };
    for e in entries {
        if w.entry(&e).is_err() {
            return Vec::new();
        }
    }
    w.finish().unwrap_or_default()
}

/// The entries of `bytes`, or `None` when it is not one whole pack (cut short, padded, another
/// layout, or text that is not UTF-8 where a path belongs). Payload checksums are not checked
/// here (see [`intact`]), so a damaged entry costs only its own guide.
pub fn decode(bytes: &[u8]) -> Option<Decoded<'_>> {
    let body = bytes.len().checked_sub(END.len() + 16)?;
    let (end, rest) = bytes[body..].split_at(END.len());
    let (count, len) = rest.split_at(8);
    if end != END || u64::from_le_bytes(len.try_into().ok()?) != body as u64 {
        return None;
    }
    let count = usize::try_from(u64::from_le_bytes(count.try_into().ok()?)).ok()?;
    let mut r = Reader {
        bytes: &bytes[..body],
        at: 0,
    };
    if r.take(MAGIC.len())? != MAGIC {
        return None;
    }
    let stamp = r.str()?;
    let mut entries = Vec::with_capacity(count.min(body / 44));
    for _ in 0..count {
        let file = r.str()?;
        let rel = r.str()?;
        let size = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
        let mtime_ns = u128::from_le_bytes(r.take(16)?.try_into().ok()?);
        let crc = u32::from_le_bytes(r.take(4)?.try_into().ok()?);
        let n = usize::try_from(u64::from_le_bytes(r.take(8)?.try_into().ok()?)).ok()?;
        let start = r.at;
        let payload = r.take(n)?;
        let e = Entry {
            file,
            rel,
            size,
            mtime_ns,
            crc,
            payload,
        };
        entries.push((e, start..start + n));
    }
    (r.at == body).then_some(Decoded { stamp, entries })
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(s)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn str(&mut self) -> Option<&'a str> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.take(n)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry<'a>(file: &'a str, size: u64, mtime_ns: u128, payload: &'a [u8]) -> Entry<'a> {
        Entry {
            file,
            rel: file.rsplit('/').next().unwrap_or(file),
            size,
            mtime_ns,
            crc: 0,
            payload,
        }
    }

    fn sample() -> Vec<u8> {
        let entries = [
            entry("/g/a.md", 10, 7, b"\x01guide a\x00"),
            entry("/g/b.md", 0, u128::MAX, b""),
        ];
        encode("v1+2", entries)
    }

    #[test]
    fn entries_come_back_as_written_with_their_checksums() {
        let bytes = sample();
        let d = decode(&bytes).expect("a whole pack");
        assert_eq!(d.stamp, "v1+2");
        assert_eq!(d.entries.len(), 2);
        let (a, range) = &d.entries[0];
        assert_eq!(
            (a.file, a.rel, a.size, a.mtime_ns),
            ("/g/a.md", "a.md", 10, 7)
        );
        assert_eq!(&bytes[range.clone()], b"\x01guide a\x00");
        assert!(d.entries.iter().all(|(e, _)| intact(e.payload, e.crc)));
        assert_eq!(d.entries[1].0.mtime_ns, u128::MAX);
        assert!(d.entries[1].0.payload.is_empty());
    }

    #[test]
    fn a_streamed_pack_is_the_pack_built_in_memory() {
        let mut w = Writer::new(Vec::new(), "v1+2").expect("start");
        w.entry(&entry("/g/a.md", 10, 7, b"\x01guide a\x00"))
            .expect("entry");
        // Until it is finished, the bytes are not a pack.
        assert!(decode(&w.out).is_none());
        w.entry(&entry("/g/b.md", 0, u128::MAX, b""))
            .expect("entry");
        assert_eq!(w.finish().expect("finish"), sample());
        assert_eq!(
            decode(&encode("s", []))
                .expect("an empty pack")
                .entries
                .len(),
            0
        );
    }

    #[test]
    fn anything_but_a_whole_pack_is_refused() {
        let bytes = sample();
        for cut in [0, 1, 11, 12, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        let mut padded = bytes.clone();
        padded.push(0);
        assert!(decode(&padded).is_none());
        let mut other = bytes.clone();
        other[0] = b'X';
        assert!(decode(&other).is_none());
        // The first layout (version 1) is another layout.
        let mut v1 = bytes.clone();
        v1[10] = b'1';
        assert!(decode(&v1).is_none());
        // A count that promises more entries than the bytes hold, or fewer.
        for count in [3u64, 1] {
            let mut wrong = bytes.clone();
            let at = bytes.len() - 16;
            wrong[at..at + 8].copy_from_slice(&count.to_le_bytes());
            assert!(decode(&wrong).is_none(), "count {count}");
        }
        assert!(decode(b"").is_none() && decode(&[0u8; 64]).is_none());
    }

    #[test]
    fn a_flipped_payload_byte_fails_its_checksum_and_only_its_own() {
        let bytes = sample();
        let at = bytes
            .windows(b"guide a".len())
            .position(|w| w == b"guide a")
            .expect("payload");
        for bit in [0x01u8, 0x20, 0x80] {
            let mut flipped = bytes.clone();
            flipped[at + 3] ^= bit;
            let d = decode(&flipped).expect("the framing is whole");
            let ok: Vec<bool> = d
                .entries
                .iter()
                .map(|(e, _)| intact(e.payload, e.crc))
                .collect();
            assert_eq!(ok, [false, true], "bit {bit:#x}");
        }
    }
}
