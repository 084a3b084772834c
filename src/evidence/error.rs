//! Errors of the evidence module. Every message names the file or session and what to do.
//! Must not import `cli`, `tui` or `query`.

use std::path::PathBuf;

/// Where a session went wrong: `journal.jsonl line 17 (probe_run)` or `blobs/<sha256>`, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub location: String,
    pub message: String,
}

impl Problem {
    /// A problem on journal line `line` (1-based) of a record of type `kind`.
    pub fn line(line: usize, kind: Option<&str>, message: impl Into<String>) -> Problem {
        let location = match kind {
            Some(k) => format!("journal.jsonl line {line} ({k})"),
            None => format!("journal.jsonl line {line}"),
        };
        Problem {
            location,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EvidenceError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a tsgnav session (no journal.jsonl); pass a session id from `tsgnav sessions list` or a session folder", path.display())]
    NotASession { path: PathBuf },
    #[error("session {}: {problem}; run `tsgnav sessions verify` for details — a broken journal is not continued", path.display())]
    Broken { path: PathBuf, problem: Problem },
    #[error("no session matches `{query}` in {}; `tsgnav sessions list` shows them", state_dir.display())]
    NoSuchSession { query: String, state_dir: PathBuf },
    #[error("`{query}` matches several sessions ({}); type more of the id", matches.join(", "))]
    Ambiguous { query: String, matches: Vec<String> },
    #[error("no escalation team `{team}` in {guide}; valid teams: {}", valid.join(", "))]
    UnknownTeam {
        team: String,
        guide: String,
        valid: Vec<String>,
    },
    #[error("session {} is open in another tsgnav (process {pid}); close it there first, or remove journal.lock if that process is gone", path.display())]
    Locked { path: PathBuf, pid: String },
    #[error(transparent)]
    Pattern(#[from] super::redact::BadPattern),
    #[error("{}: {message}", path.display())]
    Archive { path: PathBuf, message: String },
    #[error("session {}: its journal is signed, but the operator key cannot be used: {why}", path.display())]
    Key { path: PathBuf, why: String },
    #[error("cannot encode record: {0}")]
    Encode(String),
}

impl EvidenceError {
    /// Wraps an IO error with the path it happened on.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> EvidenceError {
        let path = path.into();
        move |source| EvidenceError::Io { path, source }
    }
}
