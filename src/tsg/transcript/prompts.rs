//! Prompts beyond the POSIX shell's: the operator's own (`$> `, `bastion-01 $ `, `PS> `,
//! `C:\> `) and the consoles' (psql `db=# `/`db=> `/`db-> `, `mysql> `/`    -> `, `redis> `,
//! `127.0.0.1:6379> `, `irb(main):001:0> `, `[1] pry(main)> `, `>>> `/`... `, `sqlite> `).
//! A console prompt says what language the line is in. Pure data and string reading; imports
//! only the `tsg` model.

use crate::tsg::model::Console;

/// The byte length of a prompt of these forms at the start of `line` (its trailing space
/// included), if `line` starts with one.
pub(super) fn prompt_len(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let after = |i: usize| -> Option<usize> {
        // `i` is the byte after the prompt's last character.
        match b.get(i) {
            Some(b' ') => Some(i + 1),
            None => Some(i),
            _ => None,
        }
    };
    for fixed in ["$>", "PS>", "redis>", "mysql>", "sqlite>", ">>>"] {
        if line.starts_with(fixed) {
            return after(fixed.len());
        }
    }
    // Continuations (python `... `, mysql `-> `) only with text after them: a line of `...`
    // alone elides output.
    for cont in ["... ", "-> "] {
        if line.starts_with(cont) && !line[cont.len()..].trim().is_empty() {
            return Some(cont.len());
        }
    }
    // C:\> and C:\Users\me>
    if b.len() > 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'\\' {
        let gt = line.find('>')?;
        return (!line[..gt].contains(' ')).then(|| after(gt + 1)).flatten();
    }
    // [1] pry(main)>
    if let Some(rest) = line.strip_prefix('[') {
        let close = rest.find("] pry(")?;
        let gt = rest.find(")>")?;
        return (close < gt).then(|| after(1 + gt + 2)).flatten();
    }
    // irb(main):001:0> and irb(main):002:1*
    if line.starts_with("irb(") || line.starts_with("pry(") {
        let end = line.find(['>', '*'])?;
        return after(end + 1);
    }
    let word = line
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':'))
        .count();
    if word == 0 {
        return None;
    }
    let head = &line[..word];
    // 127.0.0.1:6379> and redis-01:6379>
    if b.get(word) == Some(&b'>') && head.rsplit_once(':').is_some_and(|(_, p)| port(p)) {
        return after(word + 1);
    }
    // psql: db=# db=> db-> db-#
    let name = head.trim_end_matches('-');
    let tail = &line[name.len()..];
    if is_ident(name) && ["=#", "=>", "-#", "->"].iter().any(|t| tail.starts_with(t)) {
        return after(name.len() + 2);
    }
    // bastion-01 $ (a host name, a space, the prompt)
    if line[word..].starts_with(" $") && !head.contains(':') && host_like(head) {
        return after(word + 2);
    }
    None
}

fn port(p: &str) -> bool {
    !p.is_empty() && p.len() <= 5 && p.bytes().all(|c| c.is_ascii_digit())
}

fn is_ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A host name before a ` $` prompt: letters first, and not a command that takes a `$` word
/// (`echo $ x` is a command).
fn host_like(w: &str) -> bool {
    w.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && !super::ROOT_COMMANDS.contains(&w)
        && !matches!(w, "printf" | "test" | "expr")
}

/// The console a prompt belongs to, if it is a console's.
pub fn console_of(prompt: &str) -> Option<Console> {
    let p = prompt.trim();
    if p.is_empty() {
        return None;
    }
    if p.starts_with("irb(") || p.starts_with("pry(") || p.contains("] pry(") {
        return Some(Console::Ruby);
    }
    match p {
        ">>>" | "..." => return Some(Console::Python),
        "redis>" => return Some(Console::Redis),
        "mysql>" | "sqlite>" | "->" => return Some(Console::Sql),
        _ => {}
    }
    if let Some(head) = p.strip_suffix('>') {
        if head
            .rsplit_once(':')
            .is_some_and(|(_, port)| self::port(port))
        {
            return Some(Console::Redis);
        }
    }
    let name = p.get(..p.len().saturating_sub(2)).unwrap_or("");
    let tail = p.get(name.len()..).unwrap_or("");
    (is_ident(name) && ["=#", "=>", "-#", "->"].contains(&tail)).then_some(Console::Sql)
}

/// What a console prompt names as the place (`gitlabhq_production=#` → the database,
/// `127.0.0.1:6379>` → the server, `irb(main)` → `irb`).
pub fn console_target(prompt: &str) -> String {
    let p = prompt.trim();
    if let Some(head) = p.strip_suffix('>') {
        if head.contains(':') && !head.contains('(') {
            return head.to_string();
        }
    }
    let name: String = p
        .chars()
        .skip_while(|c| *c == '[' || c.is_ascii_digit() || *c == ']' || *c == ' ')
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if name.is_empty() {
        "python".to_string()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn console_prompts() {
        for (line, len, console) in [
            ("gitlabhq_production=# SELECT 1;", 22, Some(Console::Sql)),
            ("db=> SELECT 1;", 5, Some(Console::Sql)),
            ("db-> FROM t;", 5, Some(Console::Sql)),
            ("mysql> SHOW PROCESSLIST;", 7, Some(Console::Sql)),
            ("redis> GET k", 7, Some(Console::Redis)),
            ("127.0.0.1:6379> DEL k", 16, Some(Console::Redis)),
            ("irb(main):001:0> User.count", 17, Some(Console::Ruby)),
            ("[2] pry(main)> u.save!", 15, Some(Console::Ruby)),
            (">>> r.ping()", 4, Some(Console::Python)),
            ("$> patronictl list", 3, None),
            ("C:\\> ping -n 2 x", 5, None),
            ("bastion-01 $ knife status", 13, None),
        ] {
            assert_eq!(prompt_len(line), Some(len), "{line}");
            assert_eq!(console_of(&line[..len]), console, "{line}");
        }
        for line in [
            "echo $ x",
            "kubectl get pods",
            "a=>b",
            "C:\\Program Files\\x> y",
        ] {
            assert_eq!(prompt_len(line), None, "{line}");
        }
        assert_eq!(
            console_target("gitlabhq_production=#"),
            "gitlabhq_production"
        );
        assert_eq!(console_target("127.0.0.1:6379>"), "127.0.0.1:6379");
        assert_eq!(console_target("[1] pry(main)>"), "pry");
    }
}
