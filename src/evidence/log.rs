//! Reading sessions without changing them: the whole journal of one session, the list of
//! sessions under the state folder, and resolving `SESSION` (id, unique prefix, `latest`, or a
//! folder). IO (std::fs), read-only. Must not import `cli`, `tui` or `query`.

use std::path::{Path, PathBuf};

use super::chain::Entry;
use super::error::{EvidenceError, Problem};
use super::record::{Record, SessionStart};
use super::scan::{scan, Torn};
use super::session::ResumeState;

/// A session's journal read back, for show, export, verify and replay.
#[derive(Debug, Clone)]
pub struct SessionLog {
    pub dir: PathBuf,
    pub id: String,
    /// The good records, in order (`entries[i].seq == i + 1`).
    pub entries: Vec<Entry>,
    /// An incomplete last line (the process died mid-write); resuming drops it.
    pub torn: Option<Torn>,
    /// The first bad line; `entries` stops before it.
    pub problem: Option<Problem>,
}

impl SessionLog {
    /// Reads `dir/journal.jsonl` without changing anything.
    pub fn read(dir: &Path) -> Result<SessionLog, EvidenceError> {
        let path = dir.join("journal.jsonl");
        if !path.is_file() {
            return Err(EvidenceError::NotASession {
                path: dir.to_owned(),
            });
        }
        let mut entries = Vec::new();
        let s = scan(&path, |_, e| entries.push(e))?;
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(SessionLog {
            dir: dir.to_owned(),
            id,
            entries,
            torn: s.torn,
            problem: s.problem,
        })
    }

    /// The session_start record (the first one), when the journal has one.
    pub fn start(&self) -> Option<&SessionStart> {
        match self.entries.first().map(|e| &e.record) {
            Some(Record::SessionStart(s)) => Some(s),
            _ => None,
        }
    }

    /// Where the operator was when the journal ends.
    pub fn state(&self) -> ResumeState {
        let mut st = ResumeState::default();
        for e in &self.entries {
            st.apply(&e.record);
        }
        st
    }

    /// Hash of the last good record.
    pub fn head(&self) -> &str {
        self.entries
            .last()
            .map_or(super::chain::GENESIS, |e| e.hash.as_str())
    }

    /// The record with sequence number `seq`.
    pub fn get(&self, seq: u64) -> Option<&Entry> {
        let i = usize::try_from(seq.checked_sub(1)?).ok()?;
        self.entries.get(i).filter(|e| e.seq == seq)
    }
}

/// One line of `tsgnav sessions list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    pub id: String,
    pub dir: PathBuf,
    pub guide: String,
    pub alert: Option<String>,
    pub records: u64,
    /// `ts` of the last record.
    pub last_activity: String,
    /// Why the journal does not read cleanly, when it does not.
    pub issue: Option<String>,
}

/// Every session under `state_dir`, newest first. A folder that is not a session is skipped.
pub fn list(state_dir: &Path) -> Result<Vec<SessionSummary>, EvidenceError> {
    let mut out = Vec::new();
    for dir in session_dirs(state_dir)? {
        let Ok(log) = SessionLog::read(&dir) else {
            continue;
        };
        let start = log.start().cloned().unwrap_or_default();
        let issue = match (&log.problem, &log.torn) {
            (Some(p), _) => Some(p.to_string()),
            (None, Some(t)) => Some(t.to_string()),
            _ => None,
        };
        out.push(SessionSummary {
            id: log.id.clone(),
            guide: start.guide,
            alert: start.alert,
            records: log.entries.len() as u64,
            last_activity: log.entries.last().map(|e| e.ts.clone()).unwrap_or_default(),
            dir,
            issue,
        });
    }
    out.sort_by(|a, b| b.id.cmp(&a.id));
    Ok(out)
}

/// Folders under `state_dir` holding a `journal.jsonl`.
fn session_dirs(state_dir: &Path) -> Result<Vec<PathBuf>, EvidenceError> {
    let rd = match std::fs::read_dir(state_dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(EvidenceError::Io {
                path: state_dir.to_owned(),
                source: e,
            })
        }
    };
    let mut dirs = Vec::new();
    for ent in rd {
        let ent = ent.map_err(EvidenceError::io(state_dir))?;
        let p = ent.path();
        if p.join("journal.jsonl").is_file() && !ent.file_name().to_string_lossy().starts_with('.')
        {
            dirs.push(p);
        }
    }
    Ok(dirs)
}

/// Finds the session `query` names: `latest`, an exact id, a unique id prefix, or a folder
/// holding a journal.
pub fn resolve(state_dir: &Path, query: &str) -> Result<PathBuf, EvidenceError> {
    if query.trim().is_empty() {
        return Err(EvidenceError::NoSuchSession {
            query: query.into(),
            state_dir: state_dir.to_owned(),
        });
    }
    let as_path = Path::new(query);
    if (query.contains('/') || query.starts_with('.')) && as_path.join("journal.jsonl").is_file() {
        return Ok(as_path.to_owned());
    }
    let mut dirs = session_dirs(state_dir)?;
    dirs.sort();
    let name = |p: &PathBuf| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if query == "latest" {
        return dirs.pop().ok_or_else(|| EvidenceError::NoSuchSession {
            query: query.into(),
            state_dir: state_dir.to_owned(),
        });
    }
    if let Some(d) = dirs.iter().find(|d| name(d) == query) {
        return Ok(d.clone());
    }
    let hits: Vec<&PathBuf> = dirs
        .iter()
        .filter(|d| name(d).starts_with(query) || short_id(&name(d)).starts_with(query))
        .collect();
    match hits.as_slice() {
        [one] => Ok((*one).clone()),
        [] if as_path.join("journal.jsonl").is_file() => Ok(as_path.to_owned()),
        [] => Err(EvidenceError::NoSuchSession {
            query: query.into(),
            state_dir: state_dir.to_owned(),
        }),
        many => Err(EvidenceError::Ambiguous {
            query: query.into(),
            matches: many.iter().map(|d| name(d)).collect(),
        }),
    }
}

/// The part of an id after the timestamp.
fn short_id(id: &str) -> &str {
    id.split_once('-').map_or(id, |(_, s)| s)
}

/// The records of every session of `guide` under `state_dir` except `skip` (a session id),
/// oldest first: what earlier sessions left behind, such as open mitigations. Unreadable
/// sessions are left out.
pub fn guide_records(state_dir: &Path, guide: &str, skip: Option<&str>) -> Vec<Record> {
    let Ok(mut sessions) = list(state_dir) else {
        return Vec::new();
    };
    sessions.retain(|s| s.guide == guide && Some(s.id.as_str()) != skip);
    sessions.reverse();
    sessions
        .iter()
        .filter_map(|s| SessionLog::read(&s.dir).ok())
        .flat_map(|log| log.entries.into_iter().map(|e| e.record))
        .collect()
}
