//! Console transcripts: a fenced block where commands are typed after a prompt (`$ `, a root
//! `# `, `sh-5.1# `, `[root@host ~]# `, `bash-4.4$ `, `PS C:\> `) and the lines after each
//! command are what it printed. Splits such a block into the commands that would run (prompts
//! stripped, `\`/`> ` continuations and heredoc bodies kept) and the expected output.
//!
//! Pure; imports nothing of the crate outside `tsg` (must not import IO or `safety`).

/// A block read as a transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transcript {
    /// The commands, prompts stripped, one per line (continuations kept).
    pub code: String,
    /// The output lines, in order.
    pub output: String,
    /// Problems found (0-based line within the block, message).
    pub problems: Vec<(usize, String)>,
    /// Each command: the 0-based line it starts on and its text (continuations included).
    pub commands: Vec<(usize, String)>,
    /// Parallel to `commands`: the prompt it was typed at (`$`, `sh-5.1#` …), empty for none.
    pub prompts: Vec<String>,
}

/// Whether a prompt belongs to a shell other than the operator's own: a root prompt, a
/// container or node shell (`sh-5.1#`, `bash-4.4$`, `[core@node ~]$`, `/ #`).
pub fn foreign_prompt(prompt: &str) -> bool {
    let p = prompt.trim();
    let drive = p.as_bytes().get(1..3) == Some(b":\\") && p.ends_with('>');
    !(p.is_empty()
        || p == "$"
        || p == "$>"
        || p.starts_with("PS ")
        || p == "PS>"
        || drive
        || p.ends_with(" $") && !p.starts_with('[')
        || p.ends_with('$') && p.contains(':') && !p.starts_with('['))
}

/// The console a prompt belongs to (`db=#` → SQL, `redis>` → redis, `irb(main)…>` → Ruby).
pub fn console_of(prompt: &str) -> Option<crate::tsg::model::Console> {
    prompts::console_of(prompt)
}

/// What a console prompt names as the place (the database, the server, the console).
pub fn console_target(prompt: &str) -> String {
    prompts::console_target(prompt)
}

fn is_name(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `text` (after a `#`) reads as a command rather than a comment.
pub fn command_like(text: &str) -> bool {
    let t = text.trim();
    let Some(first) = t.split_whitespace().next() else {
        return false;
    };
    if t.ends_with(':') || t.ends_with('.') && !t.ends_with("..") {
        return false;
    }
    let assignment = first.split_once('=').is_some_and(|(n, _)| is_name(n));
    ROOT_COMMANDS.contains(&first)
        || first.starts_with('/')
        || first.starts_with("./")
        || assignment
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prompt {
    /// An unambiguous prompt (`$ `, `sh-5.1# `, `[root@x ~]# ` …) of this many bytes.
    Plain(usize),
    /// `# ` followed by something that reads as a command.
    Root(usize),
    /// A prompt with nothing after it.
    Empty,
}

fn shell_prompt_len(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let end_at = |i: usize| -> Option<usize> {
        // `i` is the index of the `$`/`#`/`>` ending the prompt.
        match b.get(i + 1) {
            Some(b' ') => Some(i + 2),
            None => Some(i + 1),
            _ => None,
        }
    };
    // sh-5.1# / bash-4.4$ / zsh$ / sh#
    for shell in ["bash", "sh", "zsh", "ksh"] {
        if let Some(rest) = line.strip_prefix(shell) {
            let ver = rest
                .strip_prefix('-')
                .map(|r| {
                    r.bytes()
                        .take_while(|c| c.is_ascii_digit() || *c == b'.')
                        .count()
                        + 1
                })
                .unwrap_or(0);
            let i = shell.len() + ver;
            if matches!(b.get(i), Some(b'$' | b'#')) {
                return end_at(i);
            }
        }
    }
    // [user@host dir]# or [user@host dir]$
    if b.first() == Some(&b'[') {
        if let Some(close) = line.find(']') {
            if line[..close].contains('@') && matches!(b.get(close + 1), Some(b'$' | b'#')) {
                return end_at(close + 1);
            }
        }
    }
    // PS C:\path>
    if let Some(rest) = line.strip_prefix("PS ") {
        let rb = rest.as_bytes();
        if rb.len() > 2 && rb[0].is_ascii_alphabetic() && rb[1] == b':' {
            if let Some(gt) = rest.find('>') {
                return end_at(3 + gt);
            }
        }
    }
    // `~ $ ` / `/ # ` (busybox and container shells)
    if let Some(n) = prompts::prompt_len(line) {
        return Some(n);
    }
    if let Some(first) = line.split(' ').next() {
        if (first.starts_with('~') || first.starts_with('/'))
            && first.len() <= 40
            && matches!(b.get(first.len() + 1), Some(b'$' | b'#'))
            && b.get(first.len()) == Some(&b' ')
        {
            return end_at(first.len() + 1);
        }
    }
    // user@host:~$ / root@node:/#
    let head_len = line
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'@'))
        .count();
    if head_len > 2 && line[..head_len].contains('@') {
        let mut i = head_len;
        if b.get(i) == Some(&b':') {
            i += 1 + line[i + 1..]
                .bytes()
                .take_while(|c| !matches!(c, b' ' | b'$' | b'#'))
                .count();
        }
        if matches!(b.get(i), Some(b'$' | b'#')) {
            return end_at(i);
        }
    }
    None
}

fn prompt(line: &str, root_ok: bool) -> Option<Prompt> {
    let t = line.trim_start_matches(' ');
    let mut lead = line.len() - t.len();
    // mysql indents its continuation prompt (`    -> `).
    if lead > 3 && !(lead <= 8 && t.starts_with("-> ")) {
        return None;
    }
    // toolbox marks its container prompt with a glyph: `⬢ [root@toolbox ~]# `.
    let t = match t.strip_prefix("\u{2b22} ") {
        Some(rest) => {
            lead += t.len() - rest.len();
            rest
        }
        None => t,
    };
    if t == "$" || t == "#" && root_ok {
        return Some(Prompt::Empty);
    }
    if let Some(rest) = t.strip_prefix("$ ") {
        return Some(if rest.trim().is_empty() {
            Prompt::Empty
        } else {
            Prompt::Plain(lead + 2)
        });
    }
    if let Some(rest) = t.strip_prefix("# ") {
        return (root_ok && command_like(rest)).then_some(Prompt::Root(lead + 2));
    }
    let n = shell_prompt_len(t)?;
    Some(if t[n..].trim().is_empty() {
        Prompt::Empty
    } else {
        Prompt::Plain(lead + n)
    })
}

/// What a command line leaves open: a `\` continuation, a quote, a pipe, or heredocs.
#[derive(Debug, Default)]
struct Open {
    quote: Option<u8>,
    heredocs: Vec<(String, bool)>,
    more: bool,
}

/// Reads one line of a command (the shell lexer decides what is quoted, continued or a
/// heredoc start), carrying a quote left open by the line before.
fn scan(line: &str, open: &mut Open) {
    let end = super::shell::quoting::line_end(line, open.quote.map(char::from));
    open.quote = end.quote.and_then(|c| u8::try_from(c).ok());
    open.more = end.more;
    open.heredocs.extend(end.heredocs);
}

/// Whether the block has a line that only a transcript would have, given the fence word.
fn is_transcript(lines: &[&str], word: &str) -> (bool, bool) {
    let plain_cmd = |l: &&str| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#') && prompt(l, false).is_none()
    };
    let session = matches!(word, "console" | "shell-session" | "terminal" | "");
    // `# cmd` is a root prompt in a console fence, or in a shell fence that holds no plain
    // command line (then it is not a script with comments).
    let root_ok = session || !lines.iter().any(plain_cmd);
    let found = lines.iter().any(|l| match prompt(l, root_ok) {
        Some(Prompt::Plain(_) | Prompt::Root(_)) => true,
        Some(Prompt::Empty) => l.trim() != "#",
        None => false,
    });
    (found, root_ok)
}

/// Splits `code` as a transcript when it has prompts; `None` when it is a plain script.
pub fn split(word: &str, code: &str) -> Option<Transcript> {
    let lines: Vec<&str> = super::swar::lines(code).collect();
    let (found, root_ok) = is_transcript(&lines, word);
    if !found {
        return None;
    }
    let mut t = read(&lines, Some(root_ok));
    t.code = t
        .commands
        .iter()
        .map(|c| c.1.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    Some(t)
}

/// The logical command lines of a plain script: 0-based first line and text, `\`
/// continuations, open quotes and heredoc bodies joined to the line that opened them.
pub fn script_lines(code: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = super::swar::lines(code).collect();
    read(&lines, None).commands
}

/// Reads lines as commands: with `prompts` (whether `# ` may be a root prompt) only prompted
/// lines start a command and other lines are output; without, every line does.
fn read(lines: &[&str], prompts: Option<bool>) -> Transcript {
    let mut t = Transcript::default();
    let mut out: Vec<&str> = Vec::new();
    let mut open = Open::default();
    let mut heredoc: Option<(String, bool, usize)> = None;
    let mut seen_command = false;
    let add = |t: &mut Transcript, body: &str| match t.commands.last_mut() {
        Some(last) => {
            last.1.push('\n');
            last.1.push_str(body);
        }
        None => {
            t.commands.push((0, body.to_string()));
            t.prompts.push(String::new());
        }
    };
    for (i, line) in lines.iter().enumerate() {
        if let Some((delim, strip, _)) = heredoc.as_ref() {
            let body = line.strip_prefix("> ").unwrap_or(line);
            let end = if *strip { body.trim_start() } else { body };
            let done = end.trim_end() == delim;
            add(&mut t, body);
            if done {
                heredoc = None;
                take_heredoc(&mut open, &mut heredoc, i);
            }
            continue;
        }
        if open.more || open.quote.is_some() {
            let body = line
                .strip_prefix("> ")
                .or_else(|| (line.trim() == ">").then_some(""))
                .unwrap_or(line);
            add(&mut t, body);
            scan(body, &mut open);
            take_heredoc(&mut open, &mut heredoc, i);
            continue;
        }
        let start = match prompts {
            None if line.trim().is_empty() => continue,
            None => Some(0),
            Some(root_ok) => match prompt(line, root_ok) {
                Some(Prompt::Plain(n) | Prompt::Root(n)) => Some(n),
                Some(Prompt::Empty) => {
                    t.problems.push((
                        i,
                        format!(
                            "`{}` is a prompt with no command after it; write the command after the prompt or remove the line",
                            line.trim()
                        ),
                    ));
                    continue;
                }
                None if !seen_command && line.trim_start().starts_with('#') => Some(0),
                None if line.trim().is_empty() && out.is_empty() => continue,
                None => {
                    out.push(line);
                    continue;
                }
            },
        };
        if let Some(n) = start {
            let body = &line[n..];
            t.commands.push((i, body.to_string()));
            t.prompts.push(line[..n].trim().to_string());
            seen_command |= n > 0;
            open = Open::default();
            scan(body, &mut open);
            take_heredoc(&mut open, &mut heredoc, i);
        }
    }
    if let Some((delim, _, at)) = heredoc {
        t.problems.push((
            at,
            format!("the heredoc opened here is never closed by a `{delim}` line; the rest of the block was read as its body"),
        ));
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    t.output = out.join("\n");
    t
}

fn take_heredoc(open: &mut Open, heredoc: &mut Option<(String, bool, usize)>, at: usize) {
    if heredoc.is_none() && !open.more && open.quote.is_none() && !open.heredocs.is_empty() {
        let (d, s) = open.heredocs.remove(0);
        *heredoc = Some((d, s, at));
    }
}

pub mod output;
mod prompts;
#[cfg(test)]
mod tests;
mod words;

use words::ROOT_COMMANDS;
