//! The byte layout of a parse-cache pack: one file that holds every parsed guide of a library,
//! so a start reads one file (one `read`) instead of one per guide, and a first start creates
//! one inode instead of thousands. Only framing lives here (no JSON, no IO): [`encode`] lays
//! entries out, [`decode`] finds them again without copying, and refuses anything that is not a
//! whole pack of this layout. Imports nothing of the crate.
//!
//! Layout (integers little-endian):
//! `MAGIC`, u32 stamp length, stamp, u32 entry count, then per entry: u32 + file, u32 + rel,
//! u64 size, u128 mtime (ns), u64 + payload; then `END` and a u64 of the byte count before it.

use std::ops::Range;

const MAGIC: &[u8; 12] = b"TSGNAVPACK1\n";
const END: &[u8; 4] = b"END\n";

/// One entry: which file it was parsed from, as it was then, and its payload (the guide).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'a> {
    pub file: &'a str,
    pub rel: &'a str,
    pub size: u64,
    pub mtime_ns: u128,
    pub payload: &'a [u8],
}

/// A pack's entries, borrowed from its bytes: `payload` ranges index into those bytes.
#[derive(Debug)]
pub struct Decoded<'a> {
    pub stamp: &'a str,
    pub entries: Vec<(Entry<'a>, Range<usize>)>,
}

/// The pack of `entries` for `stamp`.
pub fn encode<'a>(stamp: &str, entries: impl ExactSizeIterator<Item = Entry<'a>>) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    put_str(&mut out, stamp);
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for e in entries {
        put_str(&mut out, e.file);
        put_str(&mut out, e.rel);
        out.extend_from_slice(&e.size.to_le_bytes());
        out.extend_from_slice(&e.mtime_ns.to_le_bytes());
        out.extend_from_slice(&(e.payload.len() as u64).to_le_bytes());
        out.extend_from_slice(e.payload);
    }
    let body = out.len() as u64;
    out.extend_from_slice(END);
    out.extend_from_slice(&body.to_le_bytes());
    out
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// The entries of `bytes`, or `None` when it is not one whole pack (cut short, padded, another
/// layout, or text that is not UTF-8 where a path belongs).
pub fn decode(bytes: &[u8]) -> Option<Decoded<'_>> {
    let body = bytes.len().checked_sub(END.len() + 8)?;
    let (end, len) = bytes[body..].split_at(END.len());
    if end != END || u64::from_le_bytes(len.try_into().ok()?) != body as u64 {
        return None;
    }
    let mut r = Reader {
        bytes: &bytes[..body],
        at: 0,
    };
    if r.take(MAGIC.len())? != MAGIC {
        return None;
    }
    let stamp = r.str()?;
    let count = r.u32()? as usize;
    let mut entries = Vec::with_capacity(count.min(body / 40));
    for _ in 0..count {
        let file = r.str()?;
        let rel = r.str()?;
        let size = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
        let mtime_ns = u128::from_le_bytes(r.take(16)?.try_into().ok()?);
        let n = usize::try_from(u64::from_le_bytes(r.take(8)?.try_into().ok()?)).ok()?;
        let start = r.at;
        let payload = r.take(n)?;
        let e = Entry {
            file,
            rel,
            size,
            mtime_ns,
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

    fn sample() -> Vec<u8> {
        let entries = [
            Entry {
                file: "/g/a.md",
                rel: "a.md",
                size: 10,
                mtime_ns: 7,
                payload: b"{\"x\":1}",
            },
            Entry {
                file: "/g/b.md",
                rel: "b.md",
                size: 0,
                mtime_ns: u128::MAX,
                payload: b"",
            },
        ];
        encode("v1+2", entries.into_iter())
    }

    #[test]
    fn entries_come_back_as_written() {
        let bytes = sample();
        let d = decode(&bytes).expect("a whole pack");
        assert_eq!(d.stamp, "v1+2");
        assert_eq!(d.entries.len(), 2);
        let (a, range) = &d.entries[0];
        assert_eq!(
            (a.file, a.rel, a.size, a.mtime_ns),
            ("/g/a.md", "a.md", 10, 7)
        );
        assert_eq!(&bytes[range.clone()], b"{\"x\":1}");
        assert_eq!(d.entries[1].0.mtime_ns, u128::MAX);
        assert!(d.entries[1].0.payload.is_empty());
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
        // A count that promises more entries than the bytes hold.
        let mut more = bytes.clone();
        let at = MAGIC.len() + 4 + "v1+2".len();
        more[at] = 3;
        assert!(decode(&more).is_none());
        assert!(decode(b"").is_none() && decode(&[0u8; 64]).is_none());
    }
}
