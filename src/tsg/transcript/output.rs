//! Output inside a block with no prompts: what a command printed, pasted after it. Told from
//! commands by a lead-in line (`Example output:`, `Output:`) and by the shape of the lines: a
//! `dig` answer (`;; ->>HEADER<<-`), a table header (`NAME   READY   STATUS`, or a title row
//! over a row of dashes), a JSON document, a sentence (`Prometheus Server is Ready.`).
//! Pure; imports only sibling `tsg` modules.

/// Whether a trimmed line introduces output: `Example output:`, `# Sample output`,
/// `Output is similar to:`.
pub fn lead_in(line: &str) -> bool {
    if line.len() > 60 || !line.contains("utput") {
        return false;
    }
    let t = line
        .trim()
        .trim_start_matches('#')
        .trim()
        .trim_end_matches(':')
        .trim()
        .to_ascii_lowercase();
    let t = ["example ", "sample ", "expected ", "the "]
        .iter()
        .find_map(|p| t.strip_prefix(p))
        .unwrap_or(&t);
    let Some(rest) = t.strip_prefix("output") else {
        return false;
    };
    matches!(
        rest.trim(),
        "" | "is similar to"
            | "is similar to the following"
            | "similar to the following"
            | "looks like this"
            | "looks like"
            | "should look like"
    )
}

/// A table's header row: two or more columns in capitals (`NAME  READY  STATUS`).
fn header(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    words.len() >= 2
        && line.contains("  ")
        && words.iter().all(|w| {
            w.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && w.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || "()%_/-.".contains(c))
        })
}

/// A row of dashes under a title row (`------   ----`).
fn rule(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3 && t.contains("--") && t.chars().all(|c| c == '-' || c == ' ' || c == '+')
}

/// A sentence a program printed: capitalised, words, a full stop or an exclamation mark at
/// the end, nothing a shell would read specially.
fn sentence(line: &str) -> bool {
    let t = line.trim();
    t.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && t.contains(' ')
        && (t.ends_with('.') || t.ends_with('!'))
        && !t.contains(['=', '|', '$', '`', ';', '&', '>', '<'])
}

/// Where output starts (0-based line) and whether that line is a lead-in (dropped).
fn start(lines: &[&str]) -> Option<(usize, bool)> {
    let logical = super::script_lines(&lines.join("\n"));
    for (k, (i, text)) in logical.iter().enumerate().skip(1) {
        let first = super::super::swar::lines(text).next().unwrap_or("");
        let t = first.trim();
        // `# Example output:` in a script introduces commented output; the commands go on.
        if !t.starts_with('#') && lead_in(t) {
            return Some((*i, true));
        }
        let next = lines.get(i + 1).map_or("", |l| l.trim());
        let json = (t == "{" || t == "[") && next.starts_with('"');
        let shaped = t.starts_with(";;")
            || header(t)
            || rule(next) && t.split_whitespace().count() >= 2
            || json
            || sentence(t) && !t.starts_with('#');
        // A command line continued onto this one is not output.
        let continued = logical[k - 1].1.trim_end().ends_with('\\');
        if shaped && !continued {
            return Some((*i, false));
        }
    }
    None
}

/// Splits a prompt-less block into (commands, output) when output follows its commands.
pub fn split(code: &str) -> Option<(String, String)> {
    // Only a line that may be output is worth reading the block's commands for: most blocks
    // are all commands, and they are lexed once, not twice.
    // The lines after the first are searched for "utput" once, not line by line.
    let later = code.split_once('\n').map_or("", |(_, later)| later);
    let maybe = later.contains("utput")
        || super::super::swar::lines(later).any(|l| {
            let t = l.trim_start();
            t.starts_with(";;")
                || t == "{"
                || t == "["
                || t.starts_with("--")
                || t.starts_with(|c: char| c.is_ascii_uppercase())
                    && !t.split_whitespace().next().unwrap_or("").contains('=')
        });
    if !maybe {
        return None;
    }
    let lines: Vec<&str> = super::super::swar::lines(code).collect();
    let (at, lead) = start(&lines)?;
    let cmd = lines[..at].join("\n").trim_end().to_string();
    let out = lines[at + usize::from(lead)..]
        .join("\n")
        .trim()
        .to_string();
    (!cmd.trim().is_empty()).then_some((cmd, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_after_commands() {
        let (c, o) =
            split("kubectl get pods\nExample output:\nNAME  READY\na  1/1").expect("lead-in");
        assert_eq!(
            (c.as_str(), o.as_str()),
            ("kubectl get pods", "NAME  READY\na  1/1")
        );
        let (c, _) = split("dig x.example\n;; ->>HEADER<<- opcode: QUERY").expect("dig");
        assert_eq!(c, "dig x.example");
        let (c, _) =
            split("kubectl get nodes\nNAME   STATUS   ROLES\nn1   Ready   agent").expect("table");
        assert_eq!(c, "kubectl get nodes");
        let (c, _) = split("az account show\n{\n  \"name\": \"x\"\n}").expect("json");
        assert_eq!(c, "az account show");
        let (c, o) = split("curl -s x/-/ready\nPrometheus Server is Ready.").expect("sentence");
        assert_eq!(
            (c.as_str(), o.as_str()),
            ("curl -s x/-/ready", "Prometheus Server is Ready.")
        );
        let (c, _) = split("az vm list -o table\nName    ResourceGroup\n------  -------------")
            .expect("rule");
        assert_eq!(c, "az vm list -o table");
    }

    #[test]
    fn scripts_stay_whole() {
        for code in [
            "kubectl get pods\nkubectl get nodes",
            "cat <<EOF > f\nNAME  READY\nEOF",
            "export NAME=x\necho \"Done.\"",
            "kubectl get pods \\\n  -A",
            "for p in a b; do\n  echo $p\ndone",
            "# Check the pods.\nkubectl get pods",
        ] {
            assert_eq!(split(code), None, "{code}");
        }
    }
}
