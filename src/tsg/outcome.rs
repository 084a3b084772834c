//! How a probe run ended: a plain type every layer names (the runner produces it, the
//! navigator shows it, the journal records it), so no layer decides anything by matching
//! output or error text. Pure data; imports nothing of the crate.

use serde::{Deserialize, Serialize};

/// What kind of failure ended a run that did not exit by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailKind {
    /// The server or tool could not be reached, or dropped the connection.
    Unreachable,
    /// The server answered with an HTTP or query error.
    Server,
    /// Killed by a signal.
    Signal,
    /// A missing value, a bad setting or token command: nothing could be sent.
    Config,
    /// A form tsgnav does not run.
    Unsupported,
    /// A local IO error.
    Io,
}

/// How a probe run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The command ran to its end with this exit status (0: success).
    Exited(i32),
    /// A person cancelled it (Esc, leaving the step).
    Cancelled,
    /// It ran out of time.
    TimedOut,
    /// The gate refused it before anything ran; the reason.
    Refused(String),
    /// It failed without an exit status of its own.
    Failed(FailKind),
}

impl Outcome {
    /// Exited with status 0.
    pub fn succeeded(&self) -> bool {
        *self == Outcome::Exited(0)
    }

    /// The exit status, when the command ran to its end.
    pub fn exit(&self) -> Option<i32> {
        match self {
            Outcome::Exited(c) => Some(*c),
            _ => None,
        }
    }

    /// One word for a status line or a record: `ok`, `exit 2`, `cancelled` …
    pub fn word(&self) -> String {
        match self {
            Outcome::Exited(0) => "ok".into(),
            Outcome::Exited(c) => format!("exit {c}"),
            Outcome::Cancelled => "cancelled".into(),
            Outcome::TimedOut => "timed out".into(),
            Outcome::Refused(_) => "refused".into(),
            Outcome::Failed(_) => "failed".into(),
        }
    }
}
