//! Splitting a **Preconditions:** text into what must each be acknowledged: one item per line,
//! bullet or `;`-separated clause. A lead-in that ends with `:` ("every item below is true:")
//! introduces the items and is not one of them. Pure; must not import IO nor other modules of
//! the crate.

/// A preconditions text split into its lead-in (if any) and its items.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Clauses {
    /// The sentences that end with `:` and introduce the items, joined by a space.
    pub lead_in: Option<String>,
    pub items: Vec<String>,
}

/// Splits `text` (as written after `**Preconditions:**`) into its lead-in and items.
pub fn split(text: &str) -> Clauses {
    let mut out = Clauses::default();
    let mut lead = Vec::new();
    for line in super::swar::lines(text) {
        let line = line
            .trim()
            .trim_start_matches(['-', '*', '+'])
            .trim_start_matches("[ ]")
            .trim_start_matches("[x]")
            .trim();
        if line.ends_with(':') {
            lead.push(line.trim_end_matches(':').trim().to_string());
            continue;
        }
        for clause in line.split(';') {
            let c = clause.trim().trim_end_matches('.').trim();
            if !c.is_empty() {
                out.items.push(c.to_string());
            }
        }
    }
    if !lead.is_empty() {
        out.lead_in = Some(lead.join(" "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lead_in_is_not_an_item() {
        let c = split("Scenario 2 applies, and every item below is true:");
        assert_eq!(
            c.lead_in.as_deref(),
            Some("Scenario 2 applies, and every item below is true")
        );
        assert!(c.items.is_empty());
    }

    #[test]
    fn clauses_and_bullets_are_items_each() {
        let c =
            split("the pod is gone; the node is Ready.\n- a PDB allows it\n* one node at a time");
        assert_eq!(c.lead_in, None);
        assert_eq!(
            c.items,
            [
                "the pod is gone",
                "the node is Ready",
                "a PDB allows it",
                "one node at a time"
            ]
        );
    }

    #[test]
    fn lead_in_then_items() {
        let c = split("All of these hold:\n- backups exist\n- the window is open");
        assert_eq!(c.lead_in.as_deref(), Some("All of these hold"));
        assert_eq!(c.items, ["backups exist", "the window is open"]);
    }

    #[test]
    fn empty_text_has_nothing() {
        assert_eq!(split("  \n "), Clauses::default());
    }
}
