//! Recording `tsgnav run` in an evidence session: session start, the node, the operator's
//! variables, each probe run (output redacted and stored by `evidence`) and the variables a
//! probe captured. Part of the CLI edge: wires `query` results into `evidence` records.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::evidence::{self, Record, Session};
use crate::query::ProbeResult;

/// An open session for one `tsgnav run`.
pub struct Recorder {
    session: Session,
}

impl Recorder {
    /// Starts a session in `state_dir` for `guide` (read for its digest) and enters `node`.
    pub fn start(
        state_dir: &Path,
        guide: &Path,
        node: &str,
        flags: &[(String, String)],
        secrets: &[String],
    ) -> anyhow::Result<Self> {
        let bytes = std::fs::read(guide)
            .with_context(|| format!("{}: cannot read the guide", guide.display()))?;
        let start = evidence::session_start(&guide.display().to_string(), &bytes, None);
        let mut session = Session::create(state_dir, start).with_context(|| {
            format!("{}: cannot start an evidence session", state_dir.display())
        })?;
        for s in secrets {
            session.redactor().add_secret(s);
        }
        session.append(Record::NodeEntered {
            node: node.to_string(),
        })?;
        for (name, value) in flags {
            session.append(Record::VariableSet {
                name: name.clone(),
                value: value.clone(),
                source: "operator".into(),
            })?;
        }
        Ok(Recorder { session })
    }

    pub fn dir(&self) -> PathBuf {
        self.session.dir().to_path_buf()
    }

    /// Appends any record (fsync'd).
    pub fn append(&mut self, rec: Record) -> anyhow::Result<()> {
        self.session.append(rec)?;
        Ok(())
    }

    /// Appends one probe run (fsync'd) and the variables it captured.
    pub fn probe(&mut self, r: &ProbeResult) -> anyhow::Result<()> {
        let recs = self.probe_records(r)?;
        self.session.append_all(recs)?;
        Ok(())
    }

    /// One probe run's records, its output stored: the run, then the variables it captured.
    pub fn probe_records(&mut self, r: &ProbeResult) -> anyhow::Result<Vec<Record>> {
        let bytes = r
            .output
            .read_all()
            .unwrap_or_else(|_| r.output.head().to_vec());
        let stored = self.session.store_output(&bytes)?;
        let mut run = crate::tui::runtime::convert::probe_run(r);
        stored.apply_to(&mut run);
        let mut recs = vec![Record::ProbeRun(run)];
        recs.extend(r.captured.iter().map(|(name, value)| Record::VariableSet {
            name: name.clone(),
            value: value.clone(),
            source: format!("probe:{}", r.id),
        }));
        Ok(recs)
    }

    /// Appends `recs` as one batch: one sync for all, none kept on an error.
    pub fn append_all(&mut self, recs: Vec<Record>) -> anyhow::Result<()> {
        self.session.append_all(recs)?;
        Ok(())
    }
}

/// A run as a journal record (output left out), for deriving open mitigations.
pub fn run_record(r: &ProbeResult) -> Record {
    Record::ProbeRun(crate::tui::runtime::convert::probe_run(r))
}

/// Records a whole run in a new evidence session: the node, the operator's variables, that
/// results were printed unredacted (`--no-redact`), then each probe's prior-state records
/// and its run. The session's folder.
pub fn record_run(
    t: &super::given::NodeArg<'_>,
    g: &super::given::Given,
    no_redact: bool,
    steps: &[(ProbeResult, bool, Vec<Record>)],
) -> anyhow::Result<PathBuf> {
    let mut rec = Recorder::start(
        &evidence::state_dir(),
        Path::new(t.file),
        &t.id(),
        &g.flags,
        &g.secrets,
    )?;
    if no_redact {
        rec.append(Record::Note(evidence::Note {
            text: "results were printed to the terminal without redaction (--no-redact)".into(),
            topic: Some("no-redact".into()),
            ..Default::default()
        }))?;
    }
    for (r, _, before) in steps {
        for b in before {
            rec.append(b.clone())?;
        }
        rec.probe(r)?;
    }
    Ok(rec.dir())
}
