//! The hash chain: canonical JSON, sealing a record into a journal line, and checking one line.
//! Pure (no IO). Must not import `cli`, `tui` or `query`.
//!
//! `hash = sha256(prev_hex + canonical JSON of the record without "hash")`, where canonical JSON
//! is compact serde_json with object keys sorted. The line written is the canonical JSON of the
//! whole record (hash included), so any byte changed in a line is either a different hash, an
//! unparsable line or a line that is no longer canonical.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::record::Record;

/// `prev` of the first record.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// A record with its envelope, as read back from (or written to) the journal.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub seq: u64,
    /// RFC 3339, UTC.
    pub ts: String,
    pub prev: String,
    pub hash: String,
    /// Secrets replaced in this record's string fields before it was written.
    pub redactions: u64,
    pub record: Record,
}

/// Why one line does not check out. `Display` is product copy without the line number; the
/// caller adds `journal.jsonl line N (type): `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineProblem {
    #[error("is not valid JSON ({0}) — the record was edited or the file is damaged")]
    NotJson(String),
    #[error("has no valid `{0}` field — the record was edited")]
    MissingField(&'static str),
    #[error("hash does not match its content — the record was edited")]
    HashMismatch,
    #[error("is not in the exact form tsgnav writes (spacing or key order changed) — the record was edited")]
    NotCanonical,
    #[error("is not a record tsgnav knows ({0})")]
    UnknownRecord(String),
}

/// sha256 of `bytes`, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Compact JSON with object keys sorted, whatever serde_json's map order is.
pub fn canonical(v: &Value) -> String {
    let mut out = Vec::with_capacity(256);
    write_canonical(v, &mut out);
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn write_canonical(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Object(m) => {
            let mut members: Vec<(&String, &Value)> = m.iter().collect();
            members.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (k, val)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_scalar(k, out);
                out.push(b':');
                write_canonical(val, out);
            }
            out.push(b'}');
        }
        Value::Array(a) => {
            out.push(b'[');
            for (i, val) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(val, out);
            }
            out.push(b']');
        }
        other => write_scalar(other, out),
    }
}

/// serde_json's compact form of a string, number, bool or null (writing to a Vec cannot fail).
fn write_scalar<T: serde::Serialize + ?Sized>(v: &T, out: &mut Vec<u8>) {
    let _ = serde_json::to_writer(out, v);
}

/// `sha256(prev + canonical(body))` where `body` has no `hash` key.
pub fn record_hash(prev: &str, body: &Value) -> String {
    let mut h = Sha256::new();
    h.update(prev.as_bytes());
    h.update(canonical(body).as_bytes());
    hex::encode(h.finalize())
}

/// Adds the envelope to a (redacted) record value and returns the journal line (no newline)
/// and the record's hash.
pub fn seal(seq: u64, ts: &str, prev: &str, redactions: u64, record: Value) -> (String, String) {
    let mut body = match record {
        Value::Object(m) => m,
        other => {
            let mut m = Map::new();
            m.insert("value".into(), other);
            m
        }
    };
    body.insert("seq".into(), Value::from(seq));
    body.insert("ts".into(), Value::from(ts));
    body.insert("prev".into(), Value::from(prev));
    body.insert("redactions".into(), Value::from(redactions));
    let mut v = Value::Object(body);
    let hash = record_hash(prev, &v);
    if let Value::Object(m) = &mut v {
        m.insert("hash".into(), Value::from(hash.clone()));
    }
    (canonical(&v), hash)
}

/// Parses and checks one line on its own (hash and form). Chain links (`prev`, `seq`) are the
/// caller's job. On failure returns the record type when it could be read.
pub fn check_line(line: &str) -> Result<Entry, (Option<String>, LineProblem)> {
    let v: Value =
        serde_json::from_str(line).map_err(|e| (None, LineProblem::NotJson(e.to_string())))?;
    let kind = v.get("type").and_then(Value::as_str).map(str::to_owned);
    let fail = |p: LineProblem| (kind.clone(), p);
    let Value::Object(m) = v else {
        return Err(fail(LineProblem::NotJson("not an object".into())));
    };
    let str_field = |m: &Map<String, Value>, k: &'static str| {
        m.get(k)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or(LineProblem::MissingField(k))
    };
    let num_field = |m: &Map<String, Value>, k: &'static str| {
        m.get(k)
            .and_then(Value::as_u64)
            .ok_or(LineProblem::MissingField(k))
    };
    let hash = str_field(&m, "hash").map_err(fail)?;
    let prev = str_field(&m, "prev").map_err(fail)?;
    let ts = str_field(&m, "ts").map_err(fail)?;
    let seq = num_field(&m, "seq").map_err(fail)?;
    let redactions = num_field(&m, "redactions").map_err(fail)?;
    // One canonical pass: the body hashed is the canonical line without its `"hash":"…",`
    // member (never the last key: `seq`, `ts` and `type` sort after it).
    let full = Value::Object(m);
    let canon = canonical(&full);
    let member = format!("\"hash\":{},", Value::from(hash.as_str()));
    let body = canon.replacen(&member, "", 1);
    let mut h = Sha256::new();
    h.update(prev.as_bytes());
    h.update(body.as_bytes());
    if body.len() == canon.len() || hex::encode(h.finalize()) != hash {
        return Err(fail(LineProblem::HashMismatch));
    }
    if canon != line {
        return Err(fail(LineProblem::NotCanonical));
    }
    let record: Record = serde_json::from_value(full)
        .map_err(|e| fail(LineProblem::UnknownRecord(e.to_string())))?;
    Ok(Entry {
        seq,
        ts,
        prev,
        hash,
        redactions,
        record,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_sorts_keys_at_every_depth() {
        let v: Value =
            serde_json::from_str(r#"{"b":1,"a":{"z":[{"y":2,"x":"é\n"}],"c":null}}"#).unwrap();
        assert_eq!(
            canonical(&v),
            r#"{"a":{"c":null,"z":[{"x":"é\n","y":2}]},"b":1}"#
        );
    }

    #[test]
    fn sealed_line_checks_and_an_edit_does_not() {
        let rec = serde_json::to_value(Record::NodeEntered {
            node: "g.md#step-1".into(),
        })
        .unwrap();
        let (line, hash) = seal(1, "2026-01-01T00:00:00Z", GENESIS, 0, rec);
        let e = check_line(&line).unwrap();
        assert_eq!(
            (e.seq, e.hash.as_str(), e.prev.as_str()),
            (1, hash.as_str(), GENESIS)
        );
        let edited = line.replace("step-1", "step-2");
        assert_eq!(
            check_line(&edited).unwrap_err().1,
            LineProblem::HashMismatch
        );
        let spaced = line.replacen(",", ", ", 1);
        assert_eq!(
            check_line(&spaced).unwrap_err().1,
            LineProblem::NotCanonical
        );
        assert!(matches!(
            check_line(&line[..line.len() - 1]).unwrap_err().1,
            LineProblem::NotJson(_)
        ));
    }
}
