//! Which kube context an alert runs on: `[alerts]` of the config names the label that
//! carries the cluster (`context_label`, default `cluster`) and a table from that label's
//! values to kube context names, for fleets whose alerts say `westus3` where the kubeconfig
//! says `mc-westus3-1`. A value the table does not list is taken as the context's own name.
//! Pure: takes labels, returns a name. Must not import IO.

use std::collections::BTreeMap;

/// The label that names an alert's cluster when the config names none.
pub const DEFAULT_CONTEXT_LABEL: &str = "cluster";

/// `[alerts]`: the label and the label value → context table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextMap {
    pub label: String,
    pub contexts: BTreeMap<String, String>,
}

impl Default for ContextMap {
    fn default() -> Self {
        ContextMap {
            label: DEFAULT_CONTEXT_LABEL.into(),
            contexts: BTreeMap::new(),
        }
    }
}

/// The context an alert picked, and the label that picked it (`cluster=westus3`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertTarget {
    pub context: String,
    pub because: String,
}

impl ContextMap {
    /// The kube context of an alert with these labels, if its label names one.
    pub fn context_of(&self, labels: &BTreeMap<String, String>) -> Option<AlertTarget> {
        let value = labels.get(&self.label).map(|v| v.trim())?;
        if value.is_empty() {
            return None;
        }
        let context = self
            .contexts
            .get(value)
            .cloned()
            .unwrap_or_else(|| value.to_string());
        Some(AlertTarget {
            context,
            because: format!("alert label {}={value}", self.label),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_label_picks_the_context_through_the_table_or_by_its_own_name() {
        let mut map = ContextMap::default();
        let west = labels(&[("cluster", "mc-westus3-1"), ("namespace", "gw")]);
        assert_eq!(
            map.context_of(&west).map(|t| t.context),
            Some("mc-westus3-1".into())
        );
        map.label = "region".into();
        map.contexts
            .insert("westus3".into(), "hcp-prod-westus3-mgmt-1".into());
        let t = map
            .context_of(&labels(&[("region", "westus3"), ("cluster", "x")]))
            .expect("mapped");
        assert_eq!(t.context, "hcp-prod-westus3-mgmt-1");
        assert_eq!(t.because, "alert label region=westus3");
        assert_eq!(map.context_of(&west), None, "no region label: no context");
        let blank = labels(&[("region", "  ")]);
        assert_eq!(map.context_of(&blank), None);
    }
}
