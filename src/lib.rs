//! tsgnav: a terminal navigator for troubleshooting guides (TSGs).
//!
//! Plain-markdown guides become a decision tree (`tsg`), walked by a pure navigation state
//! machine (`nav`) in a terminal UI (`tui`); each step's probes run live (`query`) against
//! Kubernetes, Prometheus, Kusto, Maestro or the shell, mutations only through confirmations
//! bound to the exact command, values and target (`mitigate`, enforced in `query`'s gate), and
//! everything goes into a hash-chained, redacted evidence journal (`evidence`).
//!
//! Dependency rule. `tests/it/deps.rs` parses every `use` and path of every file under `src/`
//! with `syn` and checks it against this table (the table is read from this comment, so the
//! rule and its check cannot drift apart). "pure" modules may not use filesystem, process,
//! network, environment or thread IO, nor tokio, reqwest, kube, hyper or axum.
//!
//! | module | may use | pure |
//! |---|---|---|
//! | `human` | | yes |
//! | `tsg` | | yes |
//! | `safety` | `tsg` | yes |
//! | `nav` | `tsg`, `safety` | yes |
//! | `mitigate` | `tsg`, `safety` | yes |
//! | `sim` | `human` | no |
//! | `load` | `tsg` | no |
//! | `query` | `human`, `tsg`, `safety`, `mitigate` | no |
//! | `evidence` | `tsg`, `safety`, `mitigate` | no |
//! | `tui` | `human`, `tsg`, `nav`, `safety`, `mitigate` | yes |
//! | `tui::runtime` | everything but `cli` | no |
//! | `cli`, `main`, `lib` | everything | no |
//!
//! `query` is the only place for network and process IO of probes; `evidence` owns the
//! journal files; `load` reads guide files; `sim` is the simulated management cluster for
//! demos and tests. Conversions between layers that must not
//! know each other (a probe result into an evidence record) live in `tui::runtime`.

pub mod cli;
pub mod evidence;
pub mod human;
pub mod load;
pub mod malloc;
pub mod mitigate;
pub mod nav;
pub mod query;
pub mod safety;
pub mod sim;
pub mod tsg;
pub mod tui;
