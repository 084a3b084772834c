//! Context-name globs (`mc-brazilsouth-*`, `mc-?-1`): the one matcher behind `--contexts`,
//! `:contexts`, wave plans and `[[policy]]` entries. Pure; must not import IO, `query`,
//! `evidence`, `cli`, `tui` or `nav`.

/// Shell-style glob with `*` (any run of characters) and `?` (one character).
pub fn glob(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut pi, mut ni, mut star, mut mark) = (0, 0, None, 0);
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ni;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ni = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn stars_and_marks() {
        assert!(glob("mc-*", "mc-eastus-1"));
        assert!(glob("*-1", "mc-eastus-1"));
        assert!(glob("mc-?astus-*", "mc-eastus-1"));
        assert!(glob("*", ""));
        assert!(!glob("mc-*", "hcp-eastus-1"));
        assert!(!glob("mc-?", "mc-12"));
        assert!(glob("mc-*-*-1", "mc-brazil-south-1"));
    }
}
