//! Guided mitigation, the pure planning part: the preconditions a person acknowledges
//! ([`confirm`]), the read that captures prior state before a known mutation ([`prior`]),
//! dry-run rewrites ([`dryrun`]), wave plans and `[[policy]]` by context name
//! ([`waves`], with the context [`glob`]), the check offered after a change ([`after`]) and the shape
//! of an open mitigation ([`open`]). Issuing and sealing a confirmation is `crate::query`'s
//! (next to the gate that checks it); deriving open mitigations from a journal is
//! `crate::evidence`'s.
//!
//! Pure: no IO, no processes, no network. Imports `tsg` and `safety` only; must not import
//! `query`, `evidence`, `cli`, `tui` or `nav`.

pub mod after;
pub mod confirm;
pub mod dryrun;
pub mod glob;
pub mod open;
pub mod prior;
pub mod waves;

pub use after::after_check;
pub use confirm::preconditions;
pub use dryrun::{dry_run, DryRun};
pub use open::OpenMitigation;
pub use prior::{plan, restore_vars, Capture, Captured, Mutation};
