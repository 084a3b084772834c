//! Guided mitigation, the pure part: issuing a [`crate::query::Confirmation`] only after every
//! precondition is acknowledged and the real target is typed back ([`confirm`]), planning the
//! read that captures prior state before a known mutation ([`prior`]), and deriving the open
//! mitigations (e.g. "deployment/maestro-agent -n maestro scaled to 0 at 03:12, was 2") from an
//! evidence journal ([`open`]).
//!
//! Pure except [`exec`], which drives the query runner: no IO, no processes, no network. Imports `query` data types and its pure gate, `tsg`
//! and `evidence` record types only; must not import `cli`, `tui` or `nav`.

pub mod after;
pub mod confirm;
pub mod dryrun;
pub mod exec;
pub mod open;
pub mod prior;

pub use after::after_check;
pub use confirm::{issue, preconditions, ConfirmError};
pub use dryrun::{dry_run, DryRun};
pub use open::{open_mitigations, OpenMitigation};
pub use prior::{plan, restore_vars, Capture, Mutation};
