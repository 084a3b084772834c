//! tsgnav: a terminal navigator for troubleshooting guides (TSGs).
//!
//! Plain-markdown guides become a decision tree (`tsg`), walked by a pure navigation state
//! machine (`nav`) in a terminal UI (`tui`); each step's probes run live (`query`) against
//! Kubernetes, Prometheus, Kusto, Maestro or the shell, mutations only through confirmations
//! bound to the exact command, values and target (`mitigate`, enforced in `query`'s gate), and
//! everything goes into a hash-chained, redacted evidence journal (`evidence`).
//!
//! Dependency rule (a test checks the IO half of it):
//! - `tsg` is pure and imports no other tsgnav module; `safety` depends only on `tsg`.
//! - `nav` and the pure parts of `tui` (app, update, view, widgets) depend on `tsg`/`safety`,
//!   never on tokio, std::fs or std::process; only `tui::runtime` does IO.
//! - `query` is the only place for network and process IO; `evidence` owns the journal files;
//!   `load` reads guide files; `sim` is the simulated management cluster for demos and tests.
//! - `cli` wires IO together; `main` only parses arguments and maps errors to exit codes.

pub mod cli;
pub mod evidence;
pub mod load;
pub mod mitigate;
pub mod nav;
pub mod query;
pub mod safety;
pub mod sim;
pub mod tsg;
pub mod tui;
