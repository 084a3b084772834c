//! A session: one folder holding `journal.jsonl` and `blobs/`. Creating, resuming (after a
//! crash too), appending records, storing outputs and attachments. IO (std::fs). Must not import
//! `cli`, `tui` or `query`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::blob::{sync_dir, BlobRef, BlobWriter};
use super::clock::{Clock, SystemClock};
use super::error::EvidenceError;
use super::journal::{Appended, Journal};
use super::keys::{key_dir, OperatorKey};
use super::lock::WriteLock;
use super::record::{Note, ProbeRun, Record, SessionStart};
use super::redact::Redactor;
use super::scan::Torn;
use super::sigs::SigWriter;
use super::store::OutputStore;

/// How a session stamps, redacts and signs records. `Default` is the wall clock, the built-in
/// rules and the operator key of the config folder (created on first use; see `keys`).
#[derive(Debug, Clone)]
pub struct Options {
    pub clock: Arc<dyn Clock>,
    pub redactor: Arc<Redactor>,
    /// The key that signs new records, or why there is none (the session is then unsigned).
    pub key: Result<Arc<OperatorKey>, String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            clock: Arc::new(SystemClock),
            redactor: Arc::new(Redactor::default()),
            key: operator_key(),
        }
    }
}

/// The operator key of [`key_dir`], created on first use.
pub fn operator_key() -> Result<Arc<OperatorKey>, String> {
    OperatorKey::load_or_create(&key_dir())
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

/// What the journal says about where the operator was: rebuilt on resume.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResumeState {
    pub start: SessionStart,
    /// The node entered last.
    pub node: Option<String>,
    /// Each variable's latest value.
    pub vars: BTreeMap<String, String>,
    /// The escalation team chosen last.
    pub team: Option<String>,
    pub records: u64,
}

impl ResumeState {
    /// Folds one record in.
    pub fn apply(&mut self, rec: &Record) {
        self.records += 1;
        match rec {
            Record::SessionStart(s) => self.start = s.clone(),
            Record::NodeEntered { node } => self.node = Some(node.clone()),
            Record::VariableSet { name, value, .. } => {
                self.vars.insert(name.clone(), value.clone());
            }
            Record::EscalationChosen { team, .. } => self.team = Some(team.clone()),
            _ => {}
        }
    }
}

/// A probe's output as stored: inline when small UTF-8, else a blob. Both redacted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredOutput {
    pub sha256: String,
    pub size: u64,
    pub inline: Option<String>,
    pub blob: Option<String>,
    pub redactions: u64,
}

impl StoredOutput {
    /// Fills the output fields of a probe run.
    pub fn apply_to(self, p: &mut ProbeRun) {
        p.output_sha256 = self.sha256;
        p.output_size = self.size;
        p.output = self.inline;
        p.blob = self.blob;
        p.output_redactions = self.redactions;
    }
}

/// An open session that appends to its journal.
#[derive(Debug)]
pub struct Session {
    dir: PathBuf,
    id: String,
    journal: Journal,
    recovered: Option<Torn>,
    state: ResumeState,
    removed_stray: Vec<String>,
    _lock: WriteLock,
}

static ID_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Session {
    /// Starts a new session under `state_dir` (see [`super::state_dir`]) with the wall clock
    /// and the built-in redaction patterns.
    pub fn create(state_dir: &Path, start: SessionStart) -> Result<Session, EvidenceError> {
        Session::create_with(state_dir, start, Options::default())
    }

    /// [`Session::create`] with an injected clock or redactor.
    pub fn create_with(
        state_dir: &Path,
        start: SessionStart,
        opts: Options,
    ) -> Result<Session, EvidenceError> {
        std::fs::create_dir_all(state_dir).map_err(EvidenceError::io(state_dir))?;
        let now = opts.clock.now();
        let (dir, id) = loop {
            let mut h = Sha256::new();
            h.update(format!(
                "{:?}{}{}",
                std::time::SystemTime::now(),
                std::process::id(),
                ID_COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            h.update(start.host.as_bytes());
            let id = format!(
                "{}-{}",
                now.format("%Y%m%dT%H%M%SZ"),
                &hex::encode(h.finalize())[..8]
            );
            let dir = state_dir.join(&id);
            match std::fs::create_dir(&dir) {
                Ok(()) => break (dir, id),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(EvidenceError::Io {
                        path: dir,
                        source: e,
                    })
                }
            }
        };
        let lock = WriteLock::acquire(&dir)?;
        let blobs = dir.join("blobs");
        std::fs::create_dir(&blobs).map_err(EvidenceError::io(&blobs))?;
        let mut start = start;
        let sigs = match &opts.key {
            Ok(k) => {
                start.key_id = Some(k.public().id());
                start.key_fingerprint = Some(k.public().fingerprint());
                start.unsigned = None;
                Some(SigWriter::create(&dir, k.clone(), &start.operator)?)
            }
            Err(why) => {
                start.key_id = None;
                start.key_fingerprint = None;
                start.unsigned = Some(why.clone());
                None
            }
        };
        let journal = Journal::create(&dir.join("journal.jsonl"), opts.redactor, opts.clock, sigs)?;
        sync_dir(&dir)?;
        sync_dir(state_dir)?;
        let mut s = Session {
            dir,
            id,
            journal,
            recovered: None,
            state: ResumeState::default(),
            removed_stray: Vec::new(),
            _lock: lock,
        };
        let rec = Record::SessionStart(start);
        s.journal.append_at(&rec, now)?;
        s.state.apply(&rec);
        Ok(s)
    }

    /// Continues the session in `dir` (after a crash too): reads the journal back, drops a torn
    /// last line (see [`Session::recovered`]) and refuses a broken chain.
    pub fn open(dir: &Path) -> Result<Session, EvidenceError> {
        Session::open_with(dir, Options::default())
    }

    /// [`Session::open`] with an injected clock or redactor.
    pub fn open_with(dir: &Path, opts: Options) -> Result<Session, EvidenceError> {
        let path = dir.join("journal.jsonl");
        if !path.is_file() {
            return Err(EvidenceError::NotASession {
                path: dir.to_owned(),
            });
        }
        let lock = WriteLock::acquire(dir)?;
        // Temporary files of a blob writer that was killed: never named by a record.
        let blobs = dir.join("blobs");
        let stray = super::verify::stray_files(&blobs)?;
        for name in &stray {
            let p = blobs.join(name);
            std::fs::remove_file(&p).map_err(EvidenceError::io(&p))?;
        }
        let mut state = ResumeState::default();
        let (mut journal, recovered) =
            Journal::resume(&path, opts.redactor, opts.clock, |_, e| {
                state.apply(&e.record)
            })?;
        if state.start.key_id.is_some() {
            let key = opts.key.map_err(|why| EvidenceError::Key {
                path: dir.to_owned(),
                why,
            })?;
            let mut bytes = std::fs::read(&path).map_err(EvidenceError::io(&path))?;
            bytes.truncate(usize::try_from(journal.len()).unwrap_or(usize::MAX));
            let operator = super::operator();
            let sigs = SigWriter::resume(dir, key, &operator, &bytes, journal.records())?;
            journal.set_signer(sigs);
        }
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Session {
            dir: dir.to_owned(),
            id,
            journal,
            recovered,
            state,
            removed_stray: stray,
            _lock: lock,
        })
    }

    /// Redacts, hash-chains, writes and fsyncs `rec`. Report it as recorded only after this returns Ok.
    pub fn append(&mut self, rec: Record) -> Result<Appended, EvidenceError> {
        let a = self.journal.append_ref(&rec)?;
        self.state.apply(&rec);
        Ok(a)
    }

    /// Appends `recs` in order, as [`Session::append`] does each, sharing one fsync of the
    /// signatures and one of the journal (for the records a step or a wave context makes at
    /// once). Report them as recorded only after this returns Ok: then every one is on disk;
    /// on an error none of them was kept.
    pub fn append_all(&mut self, recs: Vec<Record>) -> Result<Vec<Appended>, EvidenceError> {
        let refs: Vec<&Record> = recs.iter().collect();
        let done = self.journal.append_all(&refs)?;
        for rec in &recs {
            self.state.apply(rec);
        }
        Ok(done)
    }

    /// A streaming writer into `blobs/` with this session's redactor.
    pub fn blob_writer(&self) -> Result<BlobWriter, EvidenceError> {
        BlobWriter::new(&self.dir.join("blobs"), self.journal.redactor().clone())
    }

    /// Redacts and stores a probe's output: inline when it is UTF-8 and at most
    /// [`INLINE_MAX`](super::INLINE_MAX) bytes after redaction, else as a blob.
    pub fn store_output(&self, bytes: &[u8]) -> Result<StoredOutput, EvidenceError> {
        self.output_store().store(bytes)
    }

    /// A handle that stores outputs into this session's `blobs/` from another thread.
    pub fn output_store(&self) -> OutputStore {
        OutputStore {
            blobs: self.dir.join("blobs"),
            redactor: self.journal.redactor().clone(),
        }
    }

    /// Streams the file at `path` into a blob and records a `note` (topic `attachment`) naming it.
    pub fn attach(
        &mut self,
        path: &Path,
        note: Option<String>,
    ) -> Result<(Appended, BlobRef), EvidenceError> {
        let mut src = std::fs::File::open(path).map_err(EvidenceError::io(path))?;
        let mut w = self.blob_writer()?;
        std::io::copy(&mut src, &mut w).map_err(EvidenceError::io(path))?;
        let b = w.finish()?;
        let file = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let text =
            note.unwrap_or_else(|| format!("attached {}", file.as_deref().unwrap_or("file")));
        let rec = Record::Note(Note {
            text,
            topic: Some("attachment".into()),
            node: self.state.node.clone(),
            blob: Some(b.sha256.clone()),
            file,
            blob_size: b.size,
            blob_redactions: b.redactions,
        });
        Ok((self.append(rec)?, b))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The folder name: `YYYYMMDDTHHMMSSZ-<8 hex>`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Records written so far (the last `seq`).
    pub fn records(&self) -> u64 {
        self.journal.records()
    }

    /// Hash of the last record.
    pub fn head(&self) -> &str {
        self.journal.head()
    }

    /// The redactor of this session; [`Redactor::add_secret`] on it hides a value everywhere.
    pub fn redactor(&self) -> &Arc<Redactor> {
        self.journal.redactor()
    }

    /// Temporary blob files of a killed writer that opening the session removed.
    pub fn removed_stray(&self) -> &[String] {
        &self.removed_stray
    }

    /// Id of the operator key signing this session's records (`None`: unsigned).
    pub fn key_id(&self) -> Option<String> {
        self.journal.key_id()
    }

    /// The full fingerprint of that key (sha256 of its public key): what "key F" names in the
    /// line an operator pastes into the incident.
    pub fn key_fingerprint(&self) -> Option<String> {
        self.journal.key_fingerprint()
    }

    /// The torn last line dropped when the session was opened, if any. Show it to the operator.
    pub fn recovered(&self) -> Option<&Torn> {
        self.recovered.as_ref()
    }

    /// Where the operator was: node, variables, team (rebuilt from the journal on open).
    pub fn state(&self) -> &ResumeState {
        &self.state
    }
}
