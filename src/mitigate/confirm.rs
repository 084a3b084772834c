//! The preconditions a person acknowledges before a mitigation runs (the confirmation itself
//! is issued and sealed by `crate::query::confirm`). Pure; must not import IO, `query`,
//! `evidence`, `cli`, `tui` or `nav`.

use crate::tsg::Node;

/// The preconditions a person acknowledges for a node: each clause of its **Preconditions:**
/// text, then each checklist item.
pub fn preconditions(node: &Node) -> Vec<String> {
    // A lead-in ("every item below is true:") is not an item of its own.
    let mut out: Vec<String> = node
        .fields
        .get("preconditions")
        .map(|t| crate::tsg::clauses::split(t).items)
        .unwrap_or_default();
    out.extend(node.checklist.iter().map(|c| c.text.trim().to_string()));
    out
}
