//! Typed probe addresses: a node's id (`FILE#slug`) and a probe's place in that node, the one
//! shape every layer names a probe by (the navigator asks for it, the runtime tracks it, the
//! view looks its result up by it). Pure data; imports nothing of the crate.

use std::borrow::Borrow;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A node's id: `<relative path>#<GitHub slug>`.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NodeId(pub String);

impl NodeId {
    pub fn new(id: impl Into<String>) -> Self {
        NodeId(id.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for NodeId {
    fn from(s: &str) -> Self {
        NodeId(s.to_string())
    }
}

impl From<String> for NodeId {
    fn from(s: String) -> Self {
        NodeId(s)
    }
}

impl From<&String> for NodeId {
    fn from(s: &String) -> Self {
        NodeId(s.clone())
    }
}

impl AsRef<str> for NodeId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for NodeId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for NodeId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for NodeId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for NodeId {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

/// Probe `index` (0-based, document order) of node `node`.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ProbeRef {
    pub node: NodeId,
    pub index: usize,
}

impl ProbeRef {
    pub fn new(node: impl Into<NodeId>, index: usize) -> Self {
        ProbeRef {
            node: node.into(),
            index,
        }
    }

    /// Whether this probe belongs to node `id`.
    pub fn is_in(&self, id: &str) -> bool {
        self.node == id
    }
}

/// `FILE#slug probe 2` (1-based, as the screen counts probes).
impl fmt::Display for ProbeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} probe {}", self.node, self.index + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_ref_is_its_node_and_index_and_serialises_flat() {
        let r = ProbeRef::new("g.md#step-1", 1);
        assert!(r.is_in("g.md#step-1"));
        assert!(!r.is_in("g.md#step-2"));
        assert_eq!(r.to_string(), "g.md#step-1 probe 2");
        let json = serde_json::to_string(&r).expect("json");
        assert_eq!(json, r#"{"node":"g.md#step-1","index":1}"#);
        let back: ProbeRef = serde_json::from_str(&json).expect("back");
        assert_eq!(back, r);
        let mut m = std::collections::HashMap::new();
        m.insert(NodeId::from("a"), 1);
        assert_eq!(m.get("a"), Some(&1));
    }
}
