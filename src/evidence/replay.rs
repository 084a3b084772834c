//! Replay data: the recorded output of a probe, looked up by (probe id, command as run), for the
//! demo/training replay backend. Output is always marked as replayed. IO (reads blobs). Must not
//! import `cli`, `tui` or `query`.

use std::collections::HashMap;
use std::path::PathBuf;

use super::blob::digest_file;
use super::error::EvidenceError;
use super::log::SessionLog;
use super::record::Record;

/// A recorded probe output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replayed {
    /// The session it was recorded in and the probe_run record's `seq`.
    pub session: String,
    pub seq: u64,
    /// When it was recorded (the probe run's end).
    pub recorded_at: String,
    pub probe: String,
    pub command: String,
    pub exit: Option<i32>,
    pub error: Option<String>,
    pub output_sha256: String,
    /// Whether the probe id matched too, or only the command.
    pub exact: bool,
    inline: Option<String>,
    blob: Option<PathBuf>,
}

impl Replayed {
    /// The banner to show above replayed output: it did not come from a live system.
    pub fn banner(&self) -> String {
        format!(
            "REPLAYED — recorded output from session {} record #{} at {}, not a live result",
            self.session, self.seq, self.recorded_at
        )
    }

    /// The recorded output bytes (a blob is read and its digest checked).
    pub fn output(&self) -> Result<Vec<u8>, EvidenceError> {
        if let Some(s) = &self.inline {
            return Ok(s.clone().into_bytes());
        }
        let Some(path) = &self.blob else {
            return Ok(Vec::new());
        };
        let (digest, _) = digest_file(path)?;
        if digest != self.output_sha256 {
            let message = format!(
                "blob content has sha256 {digest}, the record says {} — the blob was edited",
                self.output_sha256
            );
            return Err(EvidenceError::Archive {
                path: path.clone(),
                message,
            });
        }
        std::fs::read(path).map_err(EvidenceError::io(path))
    }
}

/// An index of a session's probe runs. The latest run of a (probe, command) pair wins.
#[derive(Debug, Clone, Default)]
pub struct Replay {
    runs: Vec<Replayed>,
    exact: HashMap<(String, String), usize>,
    by_command: HashMap<String, usize>,
}

impl Replay {
    /// Indexes the probe runs of `log` (replayed runs are skipped: only live results replay).
    pub fn load(log: &SessionLog) -> Replay {
        let mut r = Replay::default();
        for e in &log.entries {
            let Record::ProbeRun(p) = &e.record else {
                continue;
            };
            if p.replayed {
                continue;
            }
            let i = r.runs.len();
            r.runs.push(Replayed {
                session: log.id.clone(),
                seq: e.seq,
                recorded_at: if p.ended.is_empty() {
                    e.ts.clone()
                } else {
                    p.ended.clone()
                },
                probe: p.probe.clone(),
                command: p.command.clone(),
                exit: p.exit,
                error: p.error.clone(),
                output_sha256: p.output_sha256.clone(),
                exact: true,
                inline: p.output.clone(),
                blob: p.blob.as_ref().map(|b| log.dir.join("blobs").join(b)),
            });
            r.exact.insert((p.probe.clone(), normalize(&p.command)), i);
            r.by_command.insert(normalize(&p.command), i);
        }
        r
    }

    /// The recorded run of `probe` with `command`; else the latest run of the same command from
    /// any probe (`exact == false`). Whitespace differences in the command are ignored.
    pub fn lookup(&self, probe: &str, command: &str) -> Option<Replayed> {
        let cmd = normalize(command);
        if let Some(&i) = self.exact.get(&(probe.to_owned(), cmd.clone())) {
            return self.runs.get(i).cloned();
        }
        let i = *self.by_command.get(&cmd)?;
        self.runs.get(i).cloned().map(|mut r| {
            r.exact = false;
            r
        })
    }

    /// The latest recorded run of `probe` (any command): what a replay shows for that probe.
    /// Ids written by `tsgnav run` name the guide as typed (`docs/x.md#…`) and the navigator's
    /// relative to its root (`x.md#…`), so the folder part is ignored when nothing matches
    /// exactly.
    pub fn latest_of(&self, probe: &str) -> Option<Replayed> {
        let exact = self.runs.iter().rev().find(|r| r.probe == probe);
        exact
            .or_else(|| {
                self.runs
                    .iter()
                    .rev()
                    .find(|r| probe_key(&r.probe) == probe_key(probe))
            })
            .cloned()
    }

    /// Number of probe runs indexed.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }
}

/// `dir/guide.md#slug/line` → `guide.md#slug/line`.
fn probe_key(id: &str) -> &str {
    let hash = id.find('#').unwrap_or(0);
    let start = id[..hash].rfind('/').map(|i| i + 1).unwrap_or(0);
    &id[start..]
}

fn normalize(cmd: &str) -> String {
    cmd.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn probe_keys_ignore_the_folder() {
        assert_eq!(super::probe_key("/tmp/x/g.md#step-1/6"), "g.md#step-1/6");
        assert_eq!(super::probe_key("g.md#step-1/6"), "g.md#step-1/6");
        assert_eq!(super::probe_key("docs/a/b.md#s/1"), "b.md#s/1");
    }
}
