//! [`ProbeError`]: what exactly failed in a probe run, worded for the operator.
//! Plain data (Clone, no IO handles) so results travel as messages. Imports only std.

use std::time::Duration;

use crate::tsg::SafetyClass;

/// Why a probe run failed. `Display` names what failed, where, and what to do when known.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProbeError {
    #[error("timed out after {}", fmt_duration(*after))]
    Timeout { after: Duration },
    #[error("cancelled")]
    Cancelled,
    #[error("HTTP {status} {reason} from {url}{}", relogin(*status))]
    Http {
        status: u16,
        reason: String,
        url: String,
        body: String,
    },
    #[error("connection refused to {addr}")]
    ConnectionRefused { addr: String },
    #[error("could not connect to {url}: {detail}")]
    Connect { url: String, detail: String },
    #[error("connection dropped after {} of the response from {url}", fmt_bytes(*received))]
    Dropped { url: String, received: u64 },
    #[error("{language} error from the server: {message}")]
    Server { language: String, message: String },
    #[error("unreadable response from {url}: {detail}")]
    BadResponse { url: String, detail: String },
    #[error("exited with status {code}")]
    Exit { code: i32 },
    #[error("killed by signal {signal}")]
    Signal { signal: i32 },
    #[error("could not start {program}: {detail}")]
    Spawn { program: String, detail: String },
    #[error("no value for {name}: set it with --var {name}=… (or in the config file's [vars])")]
    MissingVar { name: String },
    #[error("refused: this probe is {} ({reason}); {what}", class.as_str())]
    Refused {
        class: SafetyClass,
        reason: String,
        what: String,
    },
    #[error("token command `{command}` failed: {detail}")]
    Token { command: String, detail: String },
    #[error("{detail}")]
    Config { detail: String },
    #[error("{detail}")]
    Unsupported { detail: String },
    #[error("I/O error: {detail}")]
    Io { detail: String },
}

/// What to do about a 401 (the credentials were refused or expired); nothing for others.
pub fn relogin(status: u16) -> &'static str {
    if status == 401 {
        "; the credentials were refused or have expired: log in again (`az login`; for an AKS \
         kubeconfig also `kubelogin convert-kubeconfig -l azurecli`; `oc login` for OpenShift; \
         or fix the token command) and run it again"
    } else {
        ""
    }
}

/// `30 s`, `1.5 s`, `250 ms`.
pub fn fmt_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// `512 B`, `1.2 KB`, `3.4 MB`.
pub fn fmt_bytes(n: u64) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MB", n as f64 / (1024.0 * 1024.0))
    }
}

impl ProbeError {
    /// The outcome a run that failed this way had: what the navigator and the journal go by.
    pub fn outcome(&self) -> crate::tsg::Outcome {
        use crate::tsg::{FailKind, Outcome};
        match self {
            ProbeError::Timeout { .. } => Outcome::TimedOut,
            ProbeError::Cancelled => Outcome::Cancelled,
            ProbeError::Exit { code } => Outcome::Exited(*code),
            ProbeError::Refused { reason, .. } => Outcome::Refused(reason.clone()),
            ProbeError::Http { .. }
            | ProbeError::Server { .. }
            | ProbeError::BadResponse { .. } => Outcome::Failed(FailKind::Server),
            ProbeError::ConnectionRefused { .. }
            | ProbeError::Connect { .. }
            | ProbeError::Dropped { .. } => Outcome::Failed(FailKind::Unreachable),
            ProbeError::Signal { .. } => Outcome::Failed(FailKind::Signal),
            ProbeError::Spawn { .. } | ProbeError::Io { .. } => Outcome::Failed(FailKind::Io),
            ProbeError::MissingVar { .. }
            | ProbeError::Token { .. }
            | ProbeError::Config { .. } => Outcome::Failed(FailKind::Config),
            ProbeError::Unsupported { .. } => Outcome::Failed(FailKind::Unsupported),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_what_failed() {
        let t = ProbeError::Timeout {
            after: Duration::from_secs(30),
        };
        assert_eq!(t.to_string(), "timed out after 30 s");
        let h = ProbeError::Http {
            status: 401,
            reason: "Unauthorized".into(),
            url: "http://127.0.0.1:9090/api/v1/query".into(),
            body: String::new(),
        };
        assert!(
            h.to_string()
                .starts_with("HTTP 401 Unauthorized from http://127.0.0.1:9090/api/v1/query; ")
                && h.to_string().contains("log in again (`az login`"),
            "{h}"
        );
        let other = ProbeError::Http {
            status: 403,
            reason: "Forbidden".into(),
            url: "http://x/".into(),
            body: String::new(),
        };
        assert_eq!(other.to_string(), "HTTP 403 Forbidden from http://x/");
        let d = ProbeError::Dropped {
            url: "http://x/".into(),
            received: 1229,
        };
        assert_eq!(
            d.to_string(),
            "connection dropped after 1.2 KB of the response from http://x/"
        );
        let m = ProbeError::MissingVar {
            name: "NODE_NAME".into(),
        };
        assert!(m.to_string().contains("--var NODE_NAME=…"));
        assert_eq!(fmt_duration(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(fmt_duration(Duration::from_millis(250)), "250 ms");
    }
}
