//! Bearer tokens from a command (`--prometheus-token-cmd`, `--kusto-token-cmd`): run it, read
//! the token from stdout (a bare token, a JWT or `az account get-access-token` JSON), cache it
//! until it expires or the server answers 401. IO edge (runs the command).

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::ProbeError;

/// A bearer token from a command's stdout (`az account get-access-token …`), cached until it
/// expires (from the JSON `expires_on`/`expiresOn` or the JWT `exp`, else 10 minutes) or the
/// server answers 401.
#[derive(Debug, Default)]
pub struct TokenSource {
    command: Option<String>,
    cached: Mutex<Option<(String, Instant)>>,
}

impl TokenSource {
    pub fn new(command: Option<String>) -> Self {
        TokenSource {
            command,
            cached: Mutex::new(None),
        }
    }

    /// Forgets the cached token (after a 401).
    pub fn invalidate(&self) {
        *self.cached.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    pub fn has_command(&self) -> bool {
        self.command.is_some()
    }

    /// Sends the request `build` makes (given the bearer token, if any) and, when the server
    /// answers 401 and the token comes from a command, once more with a fresh token.
    pub async fn fetch<F>(
        &self,
        build: F,
        url: &str,
        timeout: Duration,
        cancel: &super::Cancel,
    ) -> Result<super::net::Body, ProbeError>
    where
        F: Fn() -> Result<reqwest::RequestBuilder, ProbeError>,
    {
        let mut retried = false;
        loop {
            let mut rb = build()?;
            if let Some(t) = self.get().await? {
                rb = rb.bearer_auth(t);
            }
            match super::net::fetch(rb, url, timeout, cancel).await? {
                b if b.status == 401 && self.has_command() && !retried => {
                    self.invalidate();
                    retried = true;
                }
                b => return Ok(b),
            }
        }
    }

    /// The token, running the command when none is cached or it expired.
    pub async fn get(&self) -> Result<Option<String>, ProbeError> {
        let Some(cmd) = &self.command else {
            return Ok(None);
        };
        if let Some((t, until)) = self
            .cached
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            if Instant::now() < *until {
                return Ok(Some(t.clone()));
            }
        }
        let out = tokio::time::timeout(
            Duration::from_secs(60),
            tokio::process::Command::new("bash")
                .arg("-c")
                .arg(cmd)
                .stdin(std::process::Stdio::null())
                .kill_on_drop(true)
                .output(),
        )
        .await
        .map_err(|_| ProbeError::Token {
            command: cmd.clone(),
            detail: "no answer within 60 s".into(),
        })?
        .map_err(|e| ProbeError::Token {
            command: cmd.clone(),
            detail: e.to_string(),
        })?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
            return Err(ProbeError::Token {
                command: cmd.clone(),
                detail: format!("{} {err}", out.status),
            });
        }
        let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let (token, lifetime) = parse_token(&text);
        if token.is_empty() {
            return Err(ProbeError::Token {
                command: cmd.clone(),
                detail: "it printed no token".into(),
            });
        }
        let until = Instant::now()
            + lifetime
                .saturating_sub(Duration::from_secs(60))
                .max(Duration::from_secs(1));
        *self.cached.lock().unwrap_or_else(PoisonError::into_inner) = Some((token.clone(), until));
        Ok(Some(token))
    }
}

/// The token and how long it lives, from a bare token, a JWT or `az` JSON output.
pub fn parse_token(text: &str) -> (String, Duration) {
    let now = chrono::Utc::now().timestamp();
    let left = |exp: i64| Duration::from_secs(u64::try_from(exp - now).unwrap_or(0));
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
        let token = v
            .get("accessToken")
            .or_else(|| v.get("access_token"))
            .and_then(|t| t.as_str())
            .unwrap_or("")
            .to_string();
        let exp = v.get("expires_on").and_then(|e| {
            e.as_i64()
                .or_else(|| e.as_str().and_then(|s| s.parse().ok()))
        });
        return (token, exp.map(left).unwrap_or(Duration::from_secs(600)));
    }
    let exp = text
        .split('.')
        .nth(1)
        .and_then(b64url)
        .and_then(|p| serde_json::from_slice::<serde_json::Value>(&p).ok())
        .and_then(|c| c.get("exp")?.as_i64());
    (
        text.to_string(),
        exp.map(left).unwrap_or(Duration::from_secs(600)),
    )
}

fn b64url(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter(|c| *c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_lifetimes() {
        let exp = chrono::Utc::now().timestamp() + 3600;
        let payload = format!("{{\"exp\":{exp}}}");
        let enc: String = {
            const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            let b = payload.as_bytes();
            let mut s = String::new();
            for ch in b.chunks(3) {
                let n = ch
                    .iter()
                    .enumerate()
                    .fold(0u32, |a, (i, x)| a | u32::from(*x) << (16 - 8 * i));
                for i in 0..=ch.len() {
                    s.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
                }
            }
            s
        };
        let (t, life) = parse_token(&format!("h.{enc}.s"));
        assert!(t.starts_with("h."));
        assert!(
            life > Duration::from_secs(3500) && life <= Duration::from_secs(3600),
            "{life:?}"
        );
        let (t, life) = parse_token(&format!(
            "{{\"accessToken\":\"abc\",\"expires_on\":\"{}\"}}",
            exp - 1800
        ));
        assert_eq!(t, "abc");
        assert!(life <= Duration::from_secs(1800) && life > Duration::from_secs(1700));
        assert_eq!(parse_token("plain").1, Duration::from_secs(600));
    }
}
