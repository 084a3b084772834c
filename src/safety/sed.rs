//! `sed`: in-place edits, script files, and the script commands that run a command (`e`,
//! `s///e`) or write a file (`w`, `W`, `s///w`), found by reading the script command by
//! command (addresses, regexes and `s` delimiters included). `--sandbox` makes sed itself
//! refuse those commands.
//!
//! Pure; imports only `crate::tsg`.

use super::args::{mutating, read_only, unknown, Class};

/// `sed ARGS`.
pub(super) fn sed(args: &[String]) -> Class {
    let mut scripts: Vec<&str> = Vec::new();
    let mut positional: Vec<&str> = Vec::new();
    let mut sandbox = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        match a {
            "--sandbox" => sandbox = true,
            "-e" | "--expression" => {
                scripts.extend(args.get(i).map(String::as_str));
                i += 1;
            }
            "-f" | "--file" => {
                return unknown("`sed -f` runs a script from a file, which tsgnav cannot check")
            }
            "-l" | "--line-length" => i += 1,
            _ if a.starts_with("--expression=") => scripts.push(&a[13..]),
            _ if a.starts_with("--file=") => {
                return unknown("`sed -f` runs a script from a file, which tsgnav cannot check")
            }
            _ if a.starts_with("--in-place") => return mutating("`sed -i` edits files in place"),
            _ if a.starts_with("--") => {}
            _ if a.starts_with('-') && a.len() > 1 => {
                let cluster = &a[1..];
                if cluster.contains('i') {
                    return mutating("`sed -i` edits files in place");
                }
                if let Some(at) = cluster.find(['e', 'f']) {
                    let rest = &cluster[at + 1..];
                    if cluster.as_bytes()[at] == b'f' {
                        return unknown(
                            "`sed -f` runs a script from a file, which tsgnav cannot check",
                        );
                    }
                    if rest.is_empty() {
                        scripts.extend(args.get(i).map(String::as_str));
                        i += 1;
                    } else {
                        scripts.push(rest);
                    }
                }
            }
            _ => positional.push(a),
        }
    }
    if scripts.is_empty() {
        scripts.extend(positional.first().copied());
    }
    if sandbox {
        return read_only("`sed --sandbox` refuses every command that writes or runs");
    }
    for s in scripts {
        if let Some(c) = script(s) {
            return c;
        }
    }
    read_only("`sed` without -i only prints")
}

/// The first command of a sed script that runs or writes, if any.
fn script(s: &str) -> Option<Class> {
    let b = s.as_bytes();
    let mut i = 0;
    let to_eol = |i: usize| {
        b[i..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |p| i + p)
    };
    while i < b.len() {
        i = skip_address(b, i);
        let Some(&c) = b.get(i) else { break };
        i += 1;
        match c {
            b' ' | b'\t' | b';' | b'\n' | b'{' | b'}' | b'!' => {}
            b'#' | b'a' | b'i' | b'c' | b'r' | b'R' => i = to_eol(i),
            b':' | b'b' | b't' | b'T' | b'v' => {
                i = b[i..]
                    .iter()
                    .position(|&c| c == b';' || c == b'\n')
                    .map_or(b.len(), |p| i + p)
            }
            b'e' => return Some(unknown("the sed command `e` runs a shell command")),
            b'w' | b'W' => {
                let file = String::from_utf8_lossy(&b[i..to_eol(i)]).trim().to_string();
                if !matches!(file.as_str(), "/dev/stdout" | "/dev/stderr") {
                    return Some(mutating(format!(
                        "the sed command `w` writes the file `{file}`"
                    )));
                }
                i = to_eol(i);
            }
            b's' | b'y' => {
                let Some(&delim) = b.get(i) else { break };
                i = skip_delimited(b, skip_delimited(b, i + 1, delim), delim);
                if c == b's' {
                    while let Some(&f) = b.get(i) {
                        match f {
                            b'e' => {
                                return Some(unknown(
                                    "the sed flag `s///e` runs the result as a shell command",
                                ))
                            }
                            b'w' => {
                                let file = String::from_utf8_lossy(&b[i + 1..to_eol(i + 1)])
                                    .trim()
                                    .to_string();
                                if !matches!(file.as_str(), "/dev/stdout" | "/dev/stderr") {
                                    return Some(mutating(format!(
                                        "the sed flag `s///w` writes the file `{file}`"
                                    )));
                                }
                                i = to_eol(i + 1);
                            }
                            b';' | b'\n' | b'}' | b' ' => break,
                            _ => i += 1,
                        }
                    }
                }
            }
            b'q' | b'Q' | b'l' | b'L' => {
                while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b' ') {
                    i += 1;
                }
            }
            b'p' | b'P' | b'd' | b'D' | b'n' | b'N' | b'g' | b'G' | b'h' | b'H' | b'x' | b'='
            | b'z' | b'F' => {}
            _ => {
                return Some(unknown(format!(
                "the sed script has `{}` where tsgnav expects a command, so it cannot be checked",
                c as char
            )))
            }
        }
    }
    None
}

/// Past a part that ends with an unescaped `delim`, starting at `i`.
fn skip_delimited(b: &[u8], mut i: usize, delim: u8) -> usize {
    while let Some(&c) = b.get(i) {
        i += 1;
        if c == b'\\' {
            i += 1;
        } else if c == delim {
            break;
        }
    }
    i
}

/// Past an address (`12`, `$`, `/re/I`, `\%re%`, `1,5`, `0~3`, `addr,+2`) at `i`.
fn skip_address(b: &[u8], mut i: usize) -> usize {
    loop {
        match b.get(i) {
            Some(c) if c.is_ascii_digit() || matches!(c, b'$' | b',' | b'~' | b'+') => i += 1,
            Some(b'/') => {
                i = skip_delimited(b, i + 1, b'/');
                while matches!(b.get(i), Some(b'I' | b'M')) {
                    i += 1;
                }
            }
            Some(b'\\') => match b.get(i + 1) {
                Some(&d) => {
                    i = skip_delimited(b, i + 2, d);
                    while matches!(b.get(i), Some(b'I' | b'M')) {
                        i += 1;
                    }
                }
                None => return i + 1,
            },
            _ => return i,
        }
    }
}
