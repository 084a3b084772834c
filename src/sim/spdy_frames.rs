//! SPDY/3.1's framing as `kubectl port-forward` speaks it: the control frame types, frame
//! building, and header blocks (one zlib stream per direction whose history starts with
//! SPDY's fixed dictionary). Pure but for zlib; must not import `query`.

use std::collections::HashMap;

use flate2::{Compress, Decompress, FlushCompress, FlushDecompress};

/// The names at the head of SPDY/3's header dictionary, `|`-separated; each is written with
/// a 4-byte length.
const DICT_NAMES: &str = concat!(
    "options|head|post|put|delete|trace|accept|accept-charset|accept-encoding|",
    "accept-language|accept-ranges|age|allow|authorization|cache-control|connection|",
    "content-base|content-encoding|content-language|content-length|content-location|",
    "content-md5|content-range|content-type|date|etag|expect|expires|from|host|",
    "if-match|if-modified-since|if-none-match|if-range|if-unmodified-since|",
    "last-modified|location|max-forwards|pragma|proxy-authenticate|",
    "proxy-authorization|range|referer|retry-after|server|te|trailer|",
    "transfer-encoding|upgrade|user-agent|vary|via|warning|www-authenticate|method|",
    "get|status|200 OK|version|HTTP/1.1|url|public|set-cookie|keep-alive|origin",
);

/// The dictionary's plain tail.
const DICT_TAIL: &str = "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.";

/// SPDY/3's zlib dictionary for header blocks.
pub fn dictionary() -> Vec<u8> {
    let mut d = Vec::with_capacity(1424);
    for n in DICT_NAMES.split('|') {
        d.extend((n.len() as u32).to_be_bytes());
        d.extend(n.as_bytes());
    }
    d.extend(DICT_TAIL.as_bytes());
    d
}

pub const SYN_STREAM: u16 = 1;
pub const SYN_REPLY: u16 = 2;
pub const RST_STREAM: u16 = 3;
pub const PING: u16 = 6;
pub const GOAWAY: u16 = 7;
pub const FIN: u8 = 1;

/// Reads the peer's header blocks: one raw deflate stream whose history starts with the
/// dictionary (fed in as a stored block, as zlib's preset dictionary would be).
pub struct Inflate {
    d: Decompress,
    started: bool,
}

impl Inflate {
    pub fn new() -> Self {
        let dict = dictionary();
        let len = dict.len() as u16;
        let mut block = vec![0u8];
        block.extend(len.to_le_bytes());
        block.extend((!len).to_le_bytes());
        block.extend(&dict);
        let d = Decompress::new(false);
        let mut me = Inflate { d, started: false };
        let _ = me.run(&block);
        me
    }

    fn run(&mut self, mut input: &[u8]) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        loop {
            out.reserve(4096);
            let (before_in, before_out) = (self.d.total_in(), out.len());
            self.d
                .decompress_vec(input, &mut out, FlushDecompress::Sync)
                .map_err(|e| format!("bad SPDY header block: {e}"))?;
            input = &input[(self.d.total_in() - before_in) as usize..];
            let stalled = out.len() == before_out && self.d.total_in() == before_in;
            if (input.is_empty() && out.len() < out.capacity()) || stalled {
                return Ok(out);
            }
        }
    }

    pub fn block(&mut self, data: &[u8]) -> Result<Vec<u8>, String> {
        let mut input = data;
        if !self.started {
            self.started = true;
            let skip = 2 + 4 * usize::from(data.get(1).is_some_and(|f| f & 0x20 != 0));
            input = data.get(skip..).ok_or("short zlib header")?;
        }
        self.run(input)
    }
}

/// Writes our header blocks: one zlib stream, sync-flushed per block.
pub fn deflate(c: &mut Compress, mut input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() + 64);
    loop {
        out.reserve(256);
        let before = c.total_in();
        if c.compress_vec(input, &mut out, FlushCompress::Sync)
            .is_err()
        {
            return out;
        }
        input = &input[(c.total_in() - before) as usize..];
        if input.is_empty() && out.len() < out.capacity() {
            return out;
        }
    }
}

/// Header pairs of a decompressed block (names are lower-case on the wire).
pub fn headers(b: &[u8]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let u32_at = |i: usize| -> Option<usize> {
        b.get(i..i + 4)
            .map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]) as usize)
    };
    let Some(n) = u32_at(0) else { return out };
    let mut i = 4;
    for _ in 0..n {
        let Some(nl) = u32_at(i) else { break };
        let name = b.get(i + 4..i + 4 + nl).unwrap_or_default();
        i += 4 + nl;
        let Some(vl) = u32_at(i) else { break };
        let value = b.get(i + 4..i + 4 + vl).unwrap_or_default();
        i += 4 + vl;
        out.insert(
            String::from_utf8_lossy(name).to_lowercase(),
            String::from_utf8_lossy(value).into_owned(),
        );
    }
    out
}

pub fn frame(head: [u8; 4], flags: u8, body: &[u8]) -> Vec<u8> {
    let mut f = head.to_vec();
    f.push(flags);
    f.extend(&(body.len() as u32).to_be_bytes()[1..]);
    f.extend(body);
    f
}

pub fn data_frame(stream: u32, flags: u8, data: &[u8]) -> Vec<u8> {
    frame((stream & 0x7fff_ffff).to_be_bytes(), flags, data)
}

/// The stream id in the first four bytes of `b` (the high bit dropped).
pub fn stream_id(b: &[u8]) -> u32 {
    b.get(..4)
        .map_or(0, |s| u32::from_be_bytes([s[0] & 0x7f, s[1], s[2], s[3]]))
}

/// The next whole frame at the head of `buf`, taken out of it.
pub fn next_frame(buf: &mut Vec<u8>) -> Option<Vec<u8>> {
    if buf.len() < 8 {
        return None;
    }
    let len = u32::from_be_bytes([0, buf[5], buf[6], buf[7]]) as usize;
    (buf.len() >= 8 + len).then(|| buf.drain(..8 + len).collect())
}
