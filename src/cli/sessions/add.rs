//! The `tsgnav sessions` commands that add to the evidence: `import` (a hand-off archive,
//! verified before it is accepted), `attach` (a file, redacted into a blob), `note` and
//! `tick` (a checklist item of a team, with the records that are its evidence). Each prints
//! what it recorded. Part of the CLI edge.

use std::io::Write;
use std::path::Path;

use crate::evidence::{self, ExpectedKey, Record, Session};

/// `import FILE [--key …]`: the archive's session under `state`, and who signed it.
pub(super) fn import(
    file: &Path,
    state: &Path,
    keys: &[ExpectedKey],
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let i = evidence::import_handoff_with(file, state, keys)?;
    let whose = match (&i.unsigned, i.signers.as_slice()) {
        (Some(why), _) => format!("UNSIGNED: {why}"),
        (None, s) => s
            .iter()
            .map(|s| {
                format!(
                    "signed by {} with key {} (fingerprint {}, from record #{})",
                    s.operator, s.key_id, s.fingerprint, s.from_seq
                )
            })
            .collect::<Vec<_>>()
            .join(", then "),
    };
    let check = if keys.is_empty() {
        "compare the fingerprint with the one the sender shared (or pass --key FINGERPRINT)"
    } else {
        "every signature is by the key given with --key"
    };
    writeln!(
        out,
        "imported {} ({} records, verified; had {}) into {}\n{whose}; {check}",
        i.id,
        i.records,
        i.had,
        i.dir.display()
    )?;
    Ok(())
}

/// `attach SESSION FILE [--note …]`.
pub(super) fn attach(
    s: &mut Session,
    file: &Path,
    note: Option<String>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let (a, b) = s.attach(file, note)?;
    writeln!(
        out,
        "recorded #{}: attached {} as blobs/{} ({} bytes, {} redactions)",
        a.seq,
        file.display(),
        b.sha256,
        b.size,
        b.redactions
    )?;
    Ok(())
}

/// `note SESSION TEXT [--topic …]`, on the step the session is at.
pub(super) fn note(
    s: &mut Session,
    text: String,
    topic: Option<String>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let node = s.state().node.clone();
    let a = s.append(Record::Note(evidence::Note {
        text,
        topic,
        node,
        ..Default::default()
    }))?;
    writeln!(out, "recorded #{} ({} redactions)", a.seq, a.redactions)?;
    Ok(())
}

/// What `tick` asks: the team, the start of the item's text, the records that are its
/// evidence, and whether it is ticked or cleared.
pub(super) struct Tick {
    pub team: String,
    pub item: String,
    pub evidence: Vec<u64>,
    pub untick: bool,
}

/// `tick SESSION --team T ITEM [--evidence SEQ]… [--untick]`: the item is the first of the
/// team's evidence list that starts with ITEM (any case); each SEQ must be a record.
pub(super) fn tick(s: &mut Session, t: Tick, out: &mut impl Write) -> anyhow::Result<()> {
    let guide = super::ops::session_guide(&s.state().start, None)?;
    let esc = evidence::find_team(&guide.escalations, &t.team, &guide.path)?;
    let Some(item) = esc
        .evidence
        .iter()
        .find(|e| e.to_lowercase().starts_with(&t.item.to_lowercase()))
        .cloned()
    else {
        anyhow::bail!(
            "{} asks for none of `{}`; its items: {}",
            esc.team,
            t.item,
            esc.evidence.join("; ")
        );
    };
    if let Some(bad) = t.evidence.iter().find(|&&q| q == 0 || q > s.records()) {
        anyhow::bail!(
            "--evidence {bad}: the session has records #1 to #{}",
            s.records()
        );
    }
    let tick = evidence::ChecklistTick {
        team: esc.team.clone(),
        item,
        checked: !t.untick,
        evidence: t.evidence,
    };
    let a = s.append(Record::ChecklistTick(tick))?;
    writeln!(out, "recorded #{}", a.seq)?;
    Ok(())
}
