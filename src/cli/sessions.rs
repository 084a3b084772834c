//! `tsgnav sessions …`: list, show, verify, export (IcM bundle or hand-off), import, start, attach,
//! note and tick evidence sessions. Thin: the work is in `crate::evidence`; this file loads the
//! guide a session names and prints results.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

mod add;
mod ops;
use ops::{export, guide_source, list, stress};

use crate::evidence::{self, ExportFormat, Options, Redactor, Session, SessionLog};

#[derive(Debug, Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    pub command: SessionsCommand,
    /// Extra redaction pattern (a regex; the secret is group `s` or 1, else the whole match).
    /// Repeat for more. Applies to what this command writes.
    #[arg(long = "redact", value_name = "REGEX", global = true)]
    pub redact: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// List sessions, newest first: id, guide, alert, records, last activity.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Print a session's timeline. SESSION is an id, a unique id prefix, `latest` or a folder.
    Show { session: String },
    /// Walk the session read-only in the navigator, probes answered from their recorded output.
    Replay { session: String },
    /// Check the hash chain, the operator signatures and every blob digest; name the signing
    /// key, or the first bad record, signature or blob. Exit 1 if bad.
    Verify {
        session: String,
        /// A chain head shared earlier (e.g. pasted into the incident): fail unless the
        /// journal still holds the record with this hash.
        #[arg(long, value_name = "HASH")]
        head: Option<String>,
        /// Fail unless every record is signed by this key: its fingerprint (64 hex digits, as
        /// verify prints it), the signer's minisign public key file, or the key id (the
        /// fingerprint's first 16 digits). Repeat to accept several signers.
        #[arg(long = "key", value_name = "FINGERPRINT|PUBKEYFILE|KEYID")]
        keys: Vec<String>,
    },
    /// Write the IcM bundle (summary.md / summary.json, manifest.json, .tar.gz), or with
    /// --handoff a .tar.gz of the session for another engineer.
    Export(ExportArgs),
    /// Import a hand-off .tar.gz; the chain and blobs are verified before it is accepted.
    Import {
        file: PathBuf,
        /// Refuse the archive, importing nothing, unless every record is signed by this key
        /// (its fingerprint, the sender's minisign public key file, or the key id). Repeat to
        /// accept several signers.
        #[arg(long = "key", value_name = "FINGERPRINT|PUBKEYFILE|KEYID")]
        keys: Vec<String>,
    },
    /// Start a session for a guide (a path, or the name of a bundled guide); prints its id.
    Start {
        guide: String,
        #[arg(long)]
        alert: Option<String>,
    },
    /// Attach a file (a log excerpt …) as evidence; it is redacted and stored as a blob.
    Attach {
        session: String,
        file: PathBuf,
        #[arg(long)]
        note: Option<String>,
    },
    /// Write a note; `--topic impact` puts it under Impact in the export.
    Note {
        session: String,
        text: String,
        #[arg(long)]
        topic: Option<String>,
    },
    /// Tick (or with --untick clear) a checklist item of a team, linking records as its evidence.
    Tick {
        session: String,
        #[arg(long)]
        team: String,
        item: String,
        /// `seq` of records that are evidence for the item.
        #[arg(long = "evidence", value_name = "SEQ")]
        evidence: Vec<u64>,
        #[arg(long)]
        untick: bool,
    },
    /// Append N records, printing `recorded <seq>` after each fsync (crash tests).
    #[command(hide = true)]
    Stress {
        session: String,
        #[arg(long, default_value_t = 1000)]
        records: u64,
    },
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    pub session: String,
    /// `-` writes the export to stdout (summary.md for md, summary.json for json, the archive
    /// for tar.gz); the files are still written to the export folder and recorded.
    #[arg(value_name = "-")]
    pub dest: Option<String>,
    /// Escalation team from the guide (case-insensitive); default: the team chosen in the session.
    #[arg(long)]
    pub team: Option<String>,
    #[arg(long, default_value = "tar.gz", value_parser = clap::builder::ValueParser::new(|s: &str| s.parse::<ExportFormat>()))]
    pub format: ExportFormat,
    /// Folder to write into (default: the session's `export/` folder in the state folder).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Pack the session itself (journal and blobs) for `tsgnav sessions import` elsewhere.
    #[arg(long)]
    pub handoff: bool,
    /// The guide, when it is no longer where the session found it.
    #[arg(long)]
    pub guide: Option<PathBuf>,
}

impl SessionsArgs {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let opts = Options {
            redactor: std::sync::Arc::new(Redactor::with_patterns(&self.redact)?),
            ..Options::default()
        };
        let state = evidence::state_dir();
        let find = |q: &str| evidence::resolve(&state, q);
        let mut out = std::io::stdout().lock();
        match self.command {
            SessionsCommand::List { json } => list(&state, json, &mut out)?,
            SessionsCommand::Replay { session } => return super::replay::run(&session),
            SessionsCommand::Show { session } => out.write_all(
                evidence::render_timeline(&SessionLog::read(&find(&session)?)?).as_bytes(),
            )?,
            SessionsCommand::Verify {
                session,
                head,
                keys,
            } => {
                let keys = expected_keys(&keys)?;
                return ops::verify(&find(&session)?, head.as_deref(), &keys, &mut out);
            }
            SessionsCommand::Export(a) => export(&find(&a.session)?, a, &opts, &mut out)?,
            SessionsCommand::Import { file, keys } => {
                add::import(&file, &state, &expected_keys(&keys)?, &mut out)?
            }
            SessionsCommand::Start { guide, alert } => {
                let (name, bytes) = guide_source(&guide)?;
                let s = Session::create_with(
                    &state,
                    evidence::session_start(&name, &bytes, alert),
                    opts,
                )?;
                writeln!(out, "{}\t{}", s.id(), s.dir().display())?;
            }
            SessionsCommand::Attach {
                session,
                file,
                note,
            } => {
                let mut s = Session::open_with(&find(&session)?, opts)?;
                add::attach(&mut s, &file, note, &mut out)?
            }
            SessionsCommand::Note {
                session,
                text,
                topic,
            } => {
                let mut s = Session::open_with(&find(&session)?, opts)?;
                add::note(&mut s, text, topic, &mut out)?
            }
            SessionsCommand::Tick {
                session,
                team,
                item,
                evidence,
                untick,
            } => {
                let mut s = Session::open_with(&find(&session)?, opts)?;
                let t = add::Tick {
                    team,
                    item,
                    evidence,
                    untick,
                };
                add::tick(&mut s, t, &mut out)?
            }
            SessionsCommand::Stress { session, records } => {
                stress(&find(&session)?, records, opts, &mut out)?
            }
        }
        out.flush()?;
        Ok(ExitCode::SUCCESS)
    }
}

/// The `--key` values, each checked.
fn expected_keys(args: &[String]) -> anyhow::Result<Vec<evidence::ExpectedKey>> {
    args.iter()
        .map(|a| evidence::ExpectedKey::from_arg(a).map_err(anyhow::Error::msg))
        .collect()
}
