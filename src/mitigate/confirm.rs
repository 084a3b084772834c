//! The preconditions a person acknowledges before a mitigation runs (the confirmation itself
//! is issued and sealed by `crate::query::confirm`). Pure; must not import IO, `query`,
//! `evidence`, `cli`, `tui` or `nav`.

use crate::tsg::Node;

/// The preconditions a person acknowledges for a node: its **Preconditions:** text, then each
/// checklist item.
pub fn preconditions(node: &Node) -> Vec<String> {
    let mut out: Vec<String> = node
        .fields
        .get("preconditions")
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .into_iter()
        .collect();
    out.extend(node.checklist.iter().map(|c| c.text.trim().to_string()));
    out
}
