//! The server side of `kubectl port-forward` over a WebSocket (`SPDY/3.1+portforward.k8s.io`):
//! SPDY/3.1 frames tunnelled in binary messages. For each local connection kubectl opens an
//! `error` stream and a `data` stream (headers `streamtype`, `port`, `requestid`); each gets
//! a SYN_REPLY, the data stream is joined to the pod's listener (`sim::portforward::dial`),
//! and a failure is written to the error stream. When the listener closes, both streams end
//! with FIN. Header blocks use SPDY's zlib stream with its fixed dictionary.
//!
//! Network IO on loopback only; must not import `query`.

use std::collections::HashMap;
use std::net::SocketAddr;

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress};
use futures::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

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

const SYN_STREAM: u16 = 1;
const SYN_REPLY: u16 = 2;
const RST_STREAM: u16 = 3;
const PING: u16 = 6;
const GOAWAY: u16 = 7;
const FIN: u8 = 1;

/// Reads the peer's header blocks: one raw deflate stream whose history starts with the
/// dictionary (fed in as a stored block, as zlib's preset dictionary would be).
struct Inflate {
    d: Decompress,
    started: bool,
}

impl Inflate {
    fn new() -> Self {
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

    fn block(&mut self, data: &[u8]) -> Result<Vec<u8>, String> {
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
fn deflate(c: &mut Compress, mut input: &[u8]) -> Vec<u8> {
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
fn headers(b: &[u8]) -> HashMap<String, String> {
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

fn frame(head: [u8; 4], flags: u8, body: &[u8]) -> Vec<u8> {
    let mut f = head.to_vec();
    f.push(flags);
    f.extend(&(body.len() as u32).to_be_bytes()[1..]);
    f.extend(body);
    f
}

fn data_frame(stream: u32, flags: u8, data: &[u8]) -> Vec<u8> {
    frame((stream & 0x7fff_ffff).to_be_bytes(), flags, data)
}

enum Stream {
    Error,
    Data(Option<OwnedWriteHalf>, JoinHandle<()>),
}

/// Serves one tunnelled SPDY connection until kubectl closes it.
pub async fn serve<S>(ws: WebSocketStream<S>, pod: Value, maestro: SocketAddr)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (mut sink, mut source) = ws.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(async move {
        while let Some(f) = rx.recv().await {
            if sink.send(Message::binary(f)).await.is_err() {
                break;
            }
        }
        let _ = sink.close().await;
    });
    let mut inflate = Inflate::new();
    let mut compress = Compress::new(Compression::fast(), true);
    let mut streams: HashMap<u32, Stream> = HashMap::new();
    let mut error_of: HashMap<String, u32> = HashMap::new();
    let mut buf: Vec<u8> = Vec::new();
    'session: while let Some(Ok(msg)) = source.next().await {
        match msg {
            Message::Binary(b) => buf.extend_from_slice(&b),
            Message::Close(_) => break,
            _ => continue,
        }
        while buf.len() >= 8 {
            let len = u32::from_be_bytes([0, buf[5], buf[6], buf[7]]) as usize;
            if buf.len() < 8 + len {
                break;
            }
            let raw: Vec<u8> = buf.drain(..8 + len).collect();
            let (head, body) = raw.split_at(8);
            let flags = head[4];
            let id = |b: &[u8]| {
                b.get(..4)
                    .map_or(0, |s| u32::from_be_bytes([s[0] & 0x7f, s[1], s[2], s[3]]))
            };
            if head[0] & 0x80 == 0 {
                let sid = id(head);
                if let Some(Stream::Data(w, _)) = streams.get_mut(&sid) {
                    if let Some(tcp) = w.as_mut() {
                        if !body.is_empty() && tcp.write_all(body).await.is_err() {
                            *w = None;
                        }
                    }
                    if flags & FIN != 0 {
                        if let Some(mut tcp) = w.take() {
                            let _ = tcp.shutdown().await;
                        }
                    }
                }
                continue;
            }
            match u16::from_be_bytes([head[2], head[3]]) {
                SYN_STREAM if body.len() >= 10 => {
                    let sid = id(body);
                    let Ok(block) = inflate.block(&body[10..]) else {
                        break 'session;
                    };
                    let h = headers(&block);
                    let mut reply = sid.to_be_bytes().to_vec();
                    reply.extend(deflate(&mut compress, &0u32.to_be_bytes()));
                    let [hi, lo] = SYN_REPLY.to_be_bytes();
                    let _ = tx.send(frame([0x80, 3, hi, lo], 0, &reply));
                    let request = h.get("requestid").cloned().unwrap_or_default();
                    if h.get("streamtype").map(String::as_str) == Some("error") {
                        error_of.insert(request, sid);
                        streams.insert(sid, Stream::Error);
                        continue;
                    }
                    let err_sid = error_of.remove(&request);
                    let port = h
                        .get("port")
                        .and_then(|p| p.parse::<u16>().ok())
                        .unwrap_or(0);
                    let (w, pump) = match super::portforward::dial(&pod, port, maestro).await {
                        Ok(tcp) => {
                            let (r, w) = tcp.into_split();
                            (Some(w), tokio::spawn(pump(r, sid, err_sid, tx.clone())))
                        }
                        Err(msg) => {
                            if let Some(e) = err_sid {
                                let _ = tx.send(data_frame(e, 0, msg.as_bytes()));
                            }
                            (None, tokio::spawn(finish(sid, err_sid, tx.clone())))
                        }
                    };
                    streams.insert(sid, Stream::Data(w, pump));
                }
                RST_STREAM => {
                    if let Some(Stream::Data(_, p)) = streams.remove(&id(body)) {
                        p.abort();
                    }
                }
                PING => {
                    let _ = tx.send(raw.clone());
                }
                GOAWAY => break 'session,
                _ => {}
            }
        }
    }
    for (_, s) in streams {
        if let Stream::Data(_, p) = s {
            p.abort();
        }
    }
    drop(tx);
    let _ = writer.await;
}

/// Ends a forwarded connection: FIN on the data stream, then on the error stream.
async fn finish(data: u32, error: Option<u32>, tx: mpsc::UnboundedSender<Vec<u8>>) {
    let _ = tx.send(data_frame(data, FIN, &[]));
    if let Some(e) = error {
        let _ = tx.send(data_frame(e, FIN, &[]));
    }
}

/// Copies the listener's bytes to the data stream until it closes.
async fn pump(
    mut r: tokio::net::tcp::OwnedReadHalf,
    data: u32,
    error: Option<u32>,
    tx: mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut buf = vec![0u8; 32 * 1024];
    while let Ok(n) = r.read(&mut buf).await {
        if n == 0 || tx.send(data_frame(data, 0, &buf[..n])).is_err() {
            break;
        }
    }
    finish(data, error, tx).await;
}
