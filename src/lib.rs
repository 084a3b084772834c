//! tsgnav: a terminal navigator for troubleshooting guides.
//!
//! Dependency rule: `tsg` is pure and imports no other tsgnav module; `safety` depends only
//! on `tsg`; `load` is the IO edge that reads guide files; `cli` wires everything together.

pub mod safety;
pub mod cli;
pub mod load;
pub mod tsg;
