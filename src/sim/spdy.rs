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

use flate2::{Compress, Compression};
use futures::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::spdy_frames::{
    data_frame, deflate, frame, headers, next_frame, stream_id, Inflate, FIN, GOAWAY, PING,
    RST_STREAM, SYN_REPLY, SYN_STREAM,
};

enum Stream {
    Error,
    Data(Option<OwnedWriteHalf>, JoinHandle<()>),
}

/// One tunnelled connection's state: the header codecs, the open streams, the error stream
/// of each request id still waiting for its data stream, and the way out to kubectl.
struct Tunnel {
    inflate: Inflate,
    compress: Compress,
    streams: HashMap<u32, Stream>,
    error_of: HashMap<String, u32>,
    tx: mpsc::UnboundedSender<Vec<u8>>,
    pod: Value,
    maestro: SocketAddr,
}

/// Whether the connection goes on after a frame.
enum Flow {
    Go,
    End,
}

impl Tunnel {
    /// Handles one whole frame.
    async fn frame(&mut self, raw: &[u8]) -> Flow {
        let (head, body) = raw.split_at(8);
        if head[0] & 0x80 == 0 {
            self.data(stream_id(head), head[4], body).await;
            return Flow::Go;
        }
        match u16::from_be_bytes([head[2], head[3]]) {
            SYN_STREAM if body.len() >= 10 => return self.syn_stream(body).await,
            RST_STREAM => {
                if let Some(Stream::Data(_, p)) = self.streams.remove(&stream_id(body)) {
                    p.abort();
                }
            }
            PING => {
                let _ = self.tx.send(raw.to_vec());
            }
            GOAWAY => return Flow::End,
            _ => {}
        }
        Flow::Go
    }

    /// A data frame from kubectl: its bytes to the pod's listener; FIN closes that side.
    async fn data(&mut self, sid: u32, flags: u8, body: &[u8]) {
        let Some(Stream::Data(w, _)) = self.streams.get_mut(&sid) else {
            return;
        };
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

    /// A new stream: replied to, then kept as the error stream of its request, or joined to
    /// the pod's listener as its data stream.
    async fn syn_stream(&mut self, body: &[u8]) -> Flow {
        let sid = stream_id(body);
        let Ok(block) = self.inflate.block(&body[10..]) else {
            return Flow::End;
        };
        let h = headers(&block);
        let mut reply = sid.to_be_bytes().to_vec();
        reply.extend(deflate(&mut self.compress, &0u32.to_be_bytes()));
        let [hi, lo] = SYN_REPLY.to_be_bytes();
        let _ = self.tx.send(frame([0x80, 3, hi, lo], 0, &reply));
        let request = h.get("requestid").cloned().unwrap_or_default();
        if h.get("streamtype").map(String::as_str) == Some("error") {
            self.error_of.insert(request, sid);
            self.streams.insert(sid, Stream::Error);
            return Flow::Go;
        }
        let err_sid = self.error_of.remove(&request);
        let port = h
            .get("port")
            .and_then(|p| p.parse::<u16>().ok())
            .unwrap_or(0);
        let tx = self.tx.clone();
        let (w, pump) = match super::portforward::dial(&self.pod, port, self.maestro).await {
            Ok(tcp) => {
                let (r, w) = tcp.into_split();
                (Some(w), tokio::spawn(pump(r, sid, err_sid, tx)))
            }
            Err(msg) => {
                if let Some(e) = err_sid {
                    let _ = tx.send(data_frame(e, 0, msg.as_bytes()));
                }
                (None, tokio::spawn(finish(sid, err_sid, tx)))
            }
        };
        self.streams.insert(sid, Stream::Data(w, pump));
        Flow::Go
    }

    /// The connection ended: every pump stops.
    fn close(self) {
        for (_, s) in self.streams {
            if let Stream::Data(_, p) = s {
                p.abort();
            }
        }
    }
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
    let mut tunnel = Tunnel {
        inflate: Inflate::new(),
        compress: Compress::new(Compression::fast(), true),
        streams: HashMap::new(),
        error_of: HashMap::new(),
        tx,
        pod,
        maestro,
    };
    let mut buf: Vec<u8> = Vec::new();
    'session: while let Some(Ok(msg)) = source.next().await {
        match msg {
            Message::Binary(b) => buf.extend_from_slice(&b),
            Message::Close(_) => break,
            _ => continue,
        }
        while let Some(raw) = next_frame(&mut buf) {
            if let Flow::End = tunnel.frame(&raw).await {
                break 'session;
            }
        }
    }
    // Dropping the tunnel drops its sender: the writer ends once the frames sent are out.
    tunnel.close();
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
