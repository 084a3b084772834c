//! An open mitigation: a change still to be undone, as the evidence journal shows it
//! (`crate::evidence::open_mitigations` derives the list). Pure data; must not import IO,
//! `query`, `evidence`, `cli`, `tui` or `nav`.

use std::fmt;

/// A change that still has to be undone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenMitigation {
    /// `deployment/maestro-agent -n maestro`.
    pub resource: String,
    pub field: String,
    /// The value captured before the change: what a restore should set.
    pub was: String,
    /// The value the change set.
    pub now: String,
    /// When the change ran (RFC 3339).
    pub at: String,
    /// The probe that made the change.
    pub probe: String,
}

impl fmt::Display for OpenMitigation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let time = self
            .at
            .split_once('T')
            .map(|(_, t)| t.get(..5).unwrap_or(t))
            .unwrap_or(&self.at);
        write!(
            f,
            "{} scaled to {} at {time}, was {} (restore with --replicas={})",
            self.resource, self.now, self.was, self.was
        )
    }
}
