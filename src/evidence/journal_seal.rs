//! Turning one journal record into its line: secret variables noted, every string redacted,
//! an inline output's digest made to describe what is stored, then sealed on the hash chain.
//! Pure but for the redactor's set of secrets. Must not import `cli`, `tui` or `query`.

use serde_json::Value;

use super::chain;
use super::error::EvidenceError;
use super::record::Record;
use super::redact::Redactor;

/// One record redacted and sealed after `head`: its line (no newline), hash and the count
/// of redactions. A secret variable's value is added to `redactor` first.
pub(super) fn seal(
    redactor: &Redactor,
    rec: &Record,
    seq: u64,
    ts: &str,
    head: &str,
) -> Result<(String, String, u64), EvidenceError> {
    if let Record::VariableSet { name, value, .. } = rec {
        if super::redact_rules::is_secret_name(name)
            || super::redact_structure::value_is_secret(value)
        {
            redactor.add_secret(value);
        }
    }
    let mut v = serde_json::to_value(rec).map_err(|e| EvidenceError::Encode(e.to_string()))?;
    let redactions = redact_value(redactor, &mut v);
    fix_inline_digest(&mut v);
    let (line, hash) = chain::seal(seq, ts, head, redactions, v);
    Ok((line, hash, redactions))
}

/// Redacts every string in `v` (object keys excepted); returns the number of replacements.
pub fn redact_value(r: &Redactor, v: &mut Value) -> u64 {
    match v {
        Value::String(s) => {
            let (new, n) = r.redact_str(s);
            if n > 0 {
                *s = new;
            }
            n
        }
        Value::Array(a) => a.iter_mut().map(|x| redact_value(r, x)).sum(),
        Value::Object(m) => m.values_mut().map(|x| redact_value(r, x)).sum(),
        _ => 0,
    }
}

/// A probe run's inline output is stored redacted; its digest and size describe what is stored.
fn fix_inline_digest(v: &mut Value) {
    if v.get("type").and_then(Value::as_str) != Some("probe_run") {
        return;
    }
    let Some(out) = v.get("output").and_then(Value::as_str).map(str::to_owned) else {
        return;
    };
    v["output_sha256"] = Value::from(chain::sha256_hex(out.as_bytes()));
    v["output_size"] = Value::from(out.len() as u64);
}
