//! The open mitigations of the navigator's session: the records that decide them (variables,
//! prior states, probe runs) from earlier sessions of the same guide and from this one, and
//! the list `crate::evidence::open_mitigations` derives, reported when it changes. Part of the
//! runtime; holds records only, does no IO itself.

use crate::evidence::open_mitigations;
use crate::evidence::Record;
use crate::mitigate::OpenMitigation;

#[derive(Default)]
pub struct Ledger {
    records: Vec<Record>,
    open: Vec<OpenMitigation>,
}

/// Records that can change the open list: variables, prior states, and successful runs that
/// could be a `kubectl scale` (a cheap text test, so each new record does not make every
/// earlier command be parsed again).
fn decides(r: &Record) -> bool {
    match r {
        Record::VariableSet { .. } | Record::PriorState(_) => true,
        Record::ProbeRun(run) => run.succeeded() && run.command.contains("scale"),
        _ => false,
    }
}

impl Ledger {
    /// Starts from `records` (earlier sessions, then this one so far); the open list, if any.
    pub fn load(&mut self, records: Vec<Record>) -> Option<Vec<OpenMitigation>> {
        self.records = records.into_iter().filter(decides).collect();
        self.refresh()
    }

    /// Adds a record just written; the new open list when it changed.
    pub fn push(&mut self, r: &Record) -> Option<Vec<OpenMitigation>> {
        if !decides(r) {
            return None;
        }
        self.records.push(r.clone());
        self.refresh()
    }

    fn refresh(&mut self) -> Option<Vec<OpenMitigation>> {
        let open = open_mitigations(&self.records);
        if open == self.open {
            return None;
        }
        self.open = open.clone();
        Some(open)
    }
}
