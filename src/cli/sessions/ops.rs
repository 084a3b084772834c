//! The work behind `tsgnav sessions list|export|stress`, and finding the guide a session names
//! (a path or a bundled guide). Part of the CLI edge.

use std::path::Path;

use anyhow::Context as _;

use crate::evidence::{self, ExportFormat, ExportRequest, Options, Record, Session, SessionLog};
use crate::tsg::Guide;

use super::ExportArgs;

pub(super) fn list(state: &Path, json: bool, out: &mut impl std::io::Write) -> anyhow::Result<()> {
    let all = evidence::list(state)?;
    if json {
        let v: Vec<_> = all
            .iter()
            .map(|s| serde_json::json!({"id": s.id, "guide": s.guide, "alert": s.alert, "records": s.records, "last_activity": s.last_activity, "issue": s.issue}))
            .collect();
        writeln!(out, "{}", serde_json::json!({ "sessions": v }))?;
        return Ok(());
    }
    if all.is_empty() {
        writeln!(out, "no sessions in {}", state.display())?;
    }
    for s in all {
        let issue = s.issue.map(|i| format!("  ! {i}")).unwrap_or_default();
        writeln!(
            out,
            "{}  {:>6} records  last {}  {}  {}{issue}",
            s.id,
            s.records,
            s.last_activity,
            s.alert.as_deref().unwrap_or("-"),
            s.guide
        )?;
    }
    Ok(())
}

/// `sessions verify [--head H]`: the chain, the signatures (naming the key) and the blobs.
pub(super) fn verify(
    dir: &Path,
    head: Option<&str>,
    keys: &[evidence::ExpectedKey],
    out: &mut impl std::io::Write,
) -> anyhow::Result<std::process::ExitCode> {
    let log = SessionLog::read(dir)?;
    let r = evidence::verify_log(&log)?;
    for name in &r.stray {
        writeln!(out, "note: blobs/{name} is a temporary file of a writer that was stopped; resuming the session removes it")?;
    }
    if let Some(p) = r.problem {
        writeln!(out, "FAILED: {p}")?;
        writeln!(out, "  ({} records before it check out)", r.records)?;
        return Ok(std::process::ExitCode::from(1));
    }
    if let Some(h) = head {
        let h = h.trim().to_ascii_lowercase();
        match log.entries.iter().find(|e| e.hash == h) {
            Some(e) => writeln!(out, "head {h} is record #{} of {}", e.seq, r.records)?,
            None => {
                writeln!(out, "FAILED: no record of this journal has hash {h}: it ends at record #{} (chain head {}); records after the head you shared were removed, or the head belongs to another session", r.records, r.head)?;
                return Ok(std::process::ExitCode::from(1));
            }
        }
    }
    if let Err(why) = evidence::check_signers(&r.signers, r.unsigned.as_deref(), keys) {
        writeln!(out, "FAILED: {why}")?;
        return Ok(std::process::ExitCode::from(1));
    }
    let signed = match (&r.unsigned, r.signers.as_slice()) {
        (Some(why), _) => format!("UNSIGNED ({why})"),
        (None, signers) => {
            let who: Vec<String> = signers
                .iter()
                .map(|s| {
                    format!(
                        "key {} ({}, from record #{}; fingerprint {})",
                        s.key_id, s.operator, s.from_seq, s.fingerprint
                    )
                })
                .collect();
            format!("signed by {}", who.join(", then "))
        }
    };
    writeln!(
        out,
        "ok: {} records, {} blobs, chain head {}, {signed}",
        r.records, r.blobs, r.head
    )?;
    match r.signers.as_slice() {
        [one] => writeln!(
            out,
            "to paste into the incident: head {} · key {}",
            r.head, one.fingerprint
        )?,
        [first, rest @ ..] if !rest.is_empty() => writeln!(
            out,
            "note: {} keys signed this session; records from #{} are not signed by the key of record #1 ({}): check each fingerprint with its operator, or pass --key",
            r.signers.len(),
            rest[0].from_seq,
            first.fingerprint
        )?,
        _ => {}
    }
    Ok(std::process::ExitCode::SUCCESS)
}

pub(super) fn export(
    dir: &Path,
    a: ExportArgs,
    opts: &Options,
    out: &mut impl std::io::Write,
) -> anyhow::Result<()> {
    if let Some(other) = a.dest.as_deref().filter(|d| *d != "-") {
        anyhow::bail!(
            "`{other}`: the only destination word is `-` (stdout); name a folder with --out FOLDER"
        );
    }
    let out_dir = a.out.clone().unwrap_or_else(|| dir.join("export"));
    if a.handoff {
        let path = evidence::export_handoff(dir, &out_dir)?;
        writeln!(
            out,
            "hand-off archive: {}\nimport it with: tsgnav sessions import {}",
            path.display(),
            path.display()
        )?;
        return Ok(());
    }
    let log = SessionLog::read(dir)?;
    let start = log.start().cloned().unwrap_or_default();
    let team = a.team.or(log.state().team);
    let escalation = match &team {
        None => None,
        Some(name) => {
            let guide = session_guide(&start, a.guide.as_deref())?;
            Some(evidence::find_team(&guide.escalations, name, &guide.path)?.clone())
        }
    };
    let req = ExportRequest {
        escalation,
        format: a.format,
        out: out_dir.join(evidence::export_name(&log.id, team.as_deref())),
    };
    let done = evidence::export(dir, &req, &opts.redactor)?;
    match a.dest.as_deref() {
        Some(_) => to_stdout(&done, out)?,
        None => {
            for f in done.files.iter().chain(done.tarball.as_ref()) {
                writeln!(out, "wrote {}", f.display())?;
            }
        }
    }
    if !done.missing.is_empty() {
        // On stderr when stdout carries the export itself.
        let line = format!("checklist: still missing: {}", done.missing.join("; "));
        match a.dest.is_some() {
            true => eprintln!("{line}"),
            false => writeln!(out, "{line}")?,
        }
    }
    match Session::open_with(dir, opts.clone()) {
        Ok(mut s) => {
            s.append(done.record())?;
        }
        Err(e) => eprintln!("warning: the export is not recorded in the session's journal: {e}"),
    }
    Ok(())
}

/// The guide a session started from, found from any folder: `--guide` when given, else the
/// bundled guide, else the absolute path recorded, else the name as recorded. Warns when it
/// changed since the session started.
pub(super) fn session_guide(
    start: &evidence::SessionStart,
    over: Option<&Path>,
) -> anyhow::Result<Guide> {
    let recorded = if start.bundled {
        let file = start.guide.rsplit('/').next().unwrap_or(&start.guide);
        format!("bundled:{}", file.trim_start_matches("bundled:"))
    } else {
        start
            .guide_path
            .clone()
            .filter(|p| Path::new(p).is_file())
            .unwrap_or_else(|| start.guide.clone())
    };
    let name = over.map_or(recorded, |p| p.display().to_string());
    let (_, bytes) = guide_source(&name).with_context(|| {
        format!("the session's guide {name} cannot be read; pass it with --guide PATH")
    })?;
    if evidence::sha256_hex(&bytes) != start.guide_sha256 {
        eprintln!("warning: the guide {name} changed since the session started (its sha256 was {}, is {} now); its current escalation list is used", start.guide_sha256, evidence::sha256_hex(&bytes));
    }
    let text = String::from_utf8_lossy(&bytes);
    let file = name.rsplit('/').next().unwrap_or(&name).to_owned();
    Ok(crate::tsg::parse_guide(&file, &text))
}

/// (name to record, bytes) of a guide path or bundled guide name (`bundled:<name>` or `<name>`).
pub(super) fn guide_source(guide: &str) -> anyhow::Result<(String, Vec<u8>)> {
    let bundled = guide.strip_prefix("bundled:").unwrap_or(guide);
    let path = Path::new(guide);
    if !guide.starts_with("bundled:") && path.is_file() {
        let bytes = std::fs::read(path).with_context(|| format!("cannot read {guide}"))?;
        let name = std::fs::canonicalize(path)
            .unwrap_or_else(|_| path.to_owned())
            .display()
            .to_string();
        return Ok((name, bytes));
    }
    match super::super::embedded::GUIDES
        .iter()
        .find(|(p, _)| *p == bundled)
    {
        Some((p, text)) => Ok((format!("bundled:{p}"), text.as_bytes().to_vec())),
        None => {
            let names: Vec<&str> = super::super::embedded::GUIDES
                .iter()
                .map(|(p, _)| *p)
                .collect();
            anyhow::bail!(
                "{guide}: no such file, and no bundled guide has that name (bundled: {})",
                names.join(", ")
            )
        }
    }
}

pub(super) fn stress(
    dir: &Path,
    records: u64,
    opts: Options,
    out: &mut impl std::io::Write,
) -> anyhow::Result<()> {
    let mut s = Session::open_with(dir, opts)?;
    for i in 0..records {
        // Every 50th output is large enough to go to a blob.
        let lines = if i % 50 == 49 {
            5000
        } else {
            1 + (i % 7) as usize
        };
        let body = format!("stress record {i}\n").repeat(lines);
        let mut run = evidence::ProbeRun {
            probe: "stress.md#stress/1".into(),
            command: format!("echo {i}"),
            backend: "shell".into(),
            exit: Some(0),
            ..Default::default()
        };
        s.store_output(body.as_bytes())?.apply_to(&mut run);
        let a = s.append(Record::ProbeRun(run))?;
        writeln!(out, "recorded {}", a.seq)?;
        out.flush()?;
    }
    Ok(())
}

/// `sessions export … -`: the export's main artifact on stdout, where it was written on stderr.
fn to_stdout(done: &evidence::Exported, out: &mut impl std::io::Write) -> anyhow::Result<()> {
    let want = match done.format {
        ExportFormat::Md => "summary.md",
        ExportFormat::Json => "summary.json",
        ExportFormat::TarGz => "",
    };
    let file = match &done.tarball {
        Some(t) if want.is_empty() => t.clone(),
        _ => done
            .files
            .iter()
            .find(|f| f.file_name().is_some_and(|n| n == want))
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("the export wrote no {want}"))?,
    };
    let bytes = std::fs::read(&file)
        .map_err(|e| anyhow::anyhow!("{}: cannot read the export back: {e}", file.display()))?;
    out.write_all(&bytes)?;
    eprintln!(
        "wrote {} (and the rest of the bundle beside it)",
        file.display()
    );
    Ok(())
}
