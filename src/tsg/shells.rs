//! Where commands run (`runs_in`): a command typed after an entering command (`oc rsh POD`,
//! `kubectl exec -it POD -- bash`, `oc debug node/X`, `chroot /host`, `ssh HOST`, `sudo -i`,
//! `toolbox`) runs inside that shell, in the same block and the following blocks of the
//! section, until an `exit` leaves it. A block that mixes shells is split into one probe per
//! shell, so nothing meant for a node ever runs on the operator's machine.
//!
//! Pure; imports only sibling `tsg` modules (must not import IO or `safety`).

use super::consoles::{self, Cue};
use super::invocation::{self, Role};
use super::model::{Console, Lang, Probe, RunsIn, ShellKind};
use super::raw::RawCode;
use super::shell;

/// What one command line does to the shell stack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Enter(RunsIn),
    Exit,
    Plain,
}

const SHELLS: &[&str] = &["sh", "bash", "ash", "zsh", "dash", "ksh"];

/// A run of commands in one place (`None`: the operator's machine), each with its line.
type Segment = (Option<RunsIn>, Vec<(usize, String)>);

fn is_shell(word: &str) -> bool {
    SHELLS.contains(&shell::basename(word))
}

/// The words after `from` that are not flags (a flag in `valued` eats the next word).
fn operands<'a>(words: &'a [String], valued: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        if w == "--" {
            out.extend(words[i..].iter().map(String::as_str));
            break;
        }
        if w.starts_with('-') && w.len() > 1 {
            if valued.contains(&w) {
                i += 1;
            }
        } else {
            out.push(w);
        }
        i += 1;
    }
    out
}

const SSH_VALUED: &[&str] = &[
    "-i", "-p", "-l", "-o", "-J", "-F", "-L", "-R", "-D", "-b", "-c", "-E", "-e", "-m", "-O", "-S",
    "-W", "-w",
];

fn runs(kind: ShellKind, via: &str, target: &str) -> Step {
    Step::Enter(RunsIn {
        kind,
        via: via.to_string(),
        target: target.to_string(),
        console: None,
    })
}

/// A console opened from where the section is (`inside`), or from the operator's machine.
fn console(inside: Option<&RunsIn>, via: &str, console: Console, target: &str) -> Step {
    match nested(inside, via, ShellKind::Host, target) {
        Step::Enter(mut r) => {
            r.console = Some(console);
            Step::Enter(r)
        }
        other => other,
    }
}

/// Whether `text` (one logical command line) enters a shell, leaves one, or neither.
pub fn step(text: &str, inside: Option<&RunsIn>) -> Step {
    if surely_plain(text) {
        return Step::Plain;
    }
    let cmds = shell::commands(text);
    let Some(c) = cmds.first().filter(|c| c.nested_in.is_none()) else {
        return Step::Plain;
    };
    let via = text.trim();
    let words = &c.words;
    if let Some((lang, target)) = consoles::entered(words) {
        return console(inside, via, lang, &target);
    }
    match c.name() {
        Some("exit" | "logout") if inside.is_some() => Step::Exit,
        Some("oc" | "kubectl") => {
            let Some(inv) = invocation::of_command(c) else {
                return Step::Plain;
            };
            let mut ops: Vec<&str> = inv.positionals.iter().map(String::as_str).collect();
            if let Some(tail) = &inv.tail {
                ops.push("--");
                ops.extend(tail.iter().map(String::as_str));
            }
            match ops.as_slice() {
                ["rsh", target] => runs(ShellKind::Pod, via, target),
                ["exec", target, "--", sh] if is_shell(sh) && inv.has(Role::Tty) => {
                    runs(ShellKind::Pod, via, target)
                }
                ["exec", target, "--", rest @ ..] if inv.has(Role::Tty) => {
                    let words: Vec<String> = rest.iter().map(|w| w.to_string()).collect();
                    match consoles::entered(&words) {
                        Some((lang, _)) => Step::Enter(RunsIn {
                            kind: ShellKind::Pod,
                            via: via.to_string(),
                            target: target.to_string(),
                            console: Some(lang),
                        }),
                        None => Step::Plain,
                    }
                }
                ["debug", target] => match target.strip_prefix("node/") {
                    Some(node) => runs(ShellKind::Node, via, node),
                    None => runs(ShellKind::Pod, via, target),
                },
                _ => Step::Plain,
            }
        }
        Some("ssh") => match operands(&words[1..], SSH_VALUED).as_slice() {
            [host] => {
                let host = host.rsplit('@').next().unwrap_or(host);
                runs(ShellKind::Host, via, host)
            }
            _ => Step::Plain,
        },
        Some("sudo" | "su") => {
            let rest: Vec<&str> = words[1..].iter().map(String::as_str).collect();
            let root_shell = matches!(
                rest.as_slice(),
                ["-i"] | ["-s"] | ["-"] | [] | ["su"] | ["su", "-"] | ["-i", "-u", _]
            ) || rest.len() == 1 && is_shell(rest[0]);
            if !root_shell || c.name() == Some("sudo") && rest.is_empty() {
                return Step::Plain;
            }
            nested(inside, via, ShellKind::Host, "root shell")
        }
        Some("toolbox") if words.len() == 1 => nested(inside, via, ShellKind::Host, "toolbox"),
        Some("chroot") if inside.is_some() && words.len() == 2 => {
            nested(inside, via, ShellKind::Host, "chroot")
        }
        Some(sh) if is_shell(sh) && words.len() == 1 && inside.is_some() => {
            nested(inside, via, ShellKind::Host, sh)
        }
        _ => Step::Plain,
    }
}

/// A shell entered from inside another: same place, the way in extended.
fn nested(inside: Option<&RunsIn>, via: &str, kind: ShellKind, target: &str) -> Step {
    match inside {
        Some(r) => runs(r.kind, &format!("{} && {via}", r.via), &r.target),
        None => runs(kind, via, target),
    }
}

/// Command names that run on the operator's machine, not inside a pod or node shell.
const OPERATOR_CLIS: &[&str] = &["kubectl", "oc", "az", "helm", "hcpctl", "kubelogin"];

/// The shell a bare foreign prompt stands for: `[root@worker-3 ~]#` → host `worker-3`.
fn prompt_shell(prompt: &str) -> RunsIn {
    if let Some(console) = super::transcript::console_of(prompt) {
        // One console for all its prompts (`[1] pry(main)>`, `[2] pry(main)>`; `db=>`, `db->`).
        let target = super::transcript::console_target(prompt);
        return RunsIn {
            kind: ShellKind::Host,
            via: format!(
                "the {} console `{target}` (its prompts are in the block)",
                console.as_str()
            ),
            target,
            console: Some(console),
        };
    }
    let host = prompt
        .trim_start_matches('[')
        .split(['@'])
        .nth(1)
        .and_then(|h| h.split([' ', ':', ']']).next())
        .unwrap_or("");
    RunsIn {
        kind: ShellKind::Host,
        via: format!("a shell with the prompt `{prompt}`"),
        target: host.to_string(),
        console: None,
    }
}

/// The variables of the entering command (`oc rsh $POD`) are the probe's too.
fn with_entry_vars(p: &mut Probe) {
    let Some(via) = p.runs_in.as_ref().map(|r| r.via.clone()) else {
        return;
    };
    for v in super::vars::shell_uses(&via)
        .into_iter()
        .chain(super::vars::placeholders(&via))
    {
        if !p.vars.contains(&v) {
            p.vars.push(v);
        }
    }
}

/// Words one of which an entering or leaving command holds (`rsh`, `exec`, `sudo`, a console's
/// name …), for [`may_enter`].
const ENTERING: &[&str] = &[
    "rsh",
    "exec",
    "debug",
    "ssh",
    "sudo",
    "su",
    "toolbox",
    "chroot",
    "exit",
    "logout",
    "psql",
    "mysql",
    "redis-cli",
    "rails",
    "irb",
    "pry",
    "python",
    "mongo",
    "sqlite3",
    "sqlcmd",
];

/// All of [`ENTERING`] in one automaton, built once (`None` only if it could not be built).
static ENTERING_AC: std::sync::LazyLock<Option<aho_corasick::AhoCorasick>> =
    std::sync::LazyLock::new(|| aho_corasick::AhoCorasick::new(ENTERING).ok());

/// Quick test before splitting a script into lines: can it enter or leave a shell at all?
fn may_enter(code: &str) -> bool {
    match ENTERING_AC.as_ref() {
        Some(ac) => ac.is_match(code),
        None => ENTERING.iter().any(|w| code.contains(w)),
    }
}

/// Whether one command line surely neither enters nor leaves a shell, without lexing it: it
/// holds no entering word and no shell's name (`sh` is in `bash`, `zsh` …), and no quote or
/// backslash could join letters into one.
fn surely_plain(text: &str) -> bool {
    !text.contains(['\\', '\'', '"']) && !text.contains("sh") && !may_enter(text)
}

/// The cue of the prose between the previous block (which starts on line `after`) and the
/// block on `line`: the last paragraph before the block.
fn cue_before(prose: &[(usize, &str)], after: usize, line: usize) -> Option<Cue> {
    prose
        .iter()
        .rev()
        .find(|(l, _)| *l < line && *l > after)
        .and_then(|(_, t)| consoles::cue(t))
}

/// Reads one block where the section is: output the prose announced is skipped, console
/// input gets the console it is typed into, a remote runner's script is the probe, and a
/// block the prose places ("On the node:") runs there. Returns the probe still to be split
/// by shell, or `None` when the block is done with (pushed to `out` or not a probe).
fn read_block(
    raw: &RawCode,
    cue: Option<Cue>,
    stack: &mut Vec<RunsIn>,
    out: &mut Vec<Probe>,
) -> Option<(Probe, Option<super::probe::Commands>)> {
    let placed = match cue {
        Some(Cue::Output) => return None,
        Some(Cue::Place(r)) if stack.is_empty() => Some(r),
        _ => None,
    };
    let here = stack.last().or(placed.as_ref()).cloned();
    let read = super::probe::read(raw, here.as_ref().and_then(|r| r.console))?;
    let mut p = read.probe;
    if let Some(lang) = read.console {
        p.runs_in = match here {
            Some(r) if r.console.is_some() => Some(r),
            _ if matches!(lang, Console::Sql | Console::Redis) => Some(RunsIn {
                kind: ShellKind::Host,
                via: format!(
                    "a {} console (the block's fence says `{}`)",
                    lang.as_str(),
                    raw.info.trim()
                ),
                target: lang.as_str().to_string(),
                console: Some(lang),
            }),
            // Ruby or Python with no console open is a program's source, not input.
            _ => return None,
        };
        with_entry_vars(&mut p);
        out.push(p);
        return None;
    }
    if p.lang == Lang::Shell && read.commands.is_none() {
        if stack.last().is_some_and(|r| r.console.is_some()) {
            // Shell commands after console input: the console was closed.
            stack.retain(|r| r.console.is_none());
        }
        if let Some((script, r)) = consoles::remote(&p.code).filter(|_| stack.is_empty()) {
            let mut q = super::probe::reanalyse(&p, &script);
            q.runs_in = Some(r);
            with_entry_vars(&mut q);
            out.push(q);
            return None;
        }
        if let Some(r) = placed.filter(|r| r.console.is_none() && !may_enter(&p.code)) {
            p.runs_in = Some(r);
            out.push(p);
            return None;
        }
    }
    Some((p, read.commands))
}

/// The probes of one section's blocks, in order, with `runs_in` set and blocks split where
/// they cross a shell boundary.
///
/// A console still open at the end of the section (`carried`) stays open into the next
/// section: guides open a rails console under one heading and type into it under the next.
pub fn section_probes(
    codes: &[RawCode],
    prose: &[(usize, &str)],
    carried: &mut Option<RunsIn>,
) -> Vec<Probe> {
    let mut r = SectionReader {
        stack: carried.take().into_iter().collect(),
        // A block is most often one probe: room for that many, so a section's probes are
        // not grown (and then given back) one push at a time.
        out: Vec::with_capacity(codes.len()),
        entered: None,
    };
    let mut after = 0;
    for raw in codes {
        let cue = cue_before(prose, after, raw.line);
        after = raw.line;
        r.block(raw, cue);
    }
    *carried = r.stack.pop().filter(|r| r.console.is_some());
    let mut out = r.out;
    if let Some((idx, line, via)) = r.entered {
        let idx = idx.min(out.len().saturating_sub(1));
        if let Some(p) = out.get_mut(idx) {
            p.problems.push((
                line,
                format!("`{via}` enters a shell that this section never leaves (no `exit`); the commands after it are read as typed inside it"),
            ));
        }
    }
    out
}

/// One section's blocks being read in order: the shells entered so far, the probes made, and
/// the shell the section entered and has not left (probe index, line, entering command).
struct SectionReader {
    stack: Vec<RunsIn>,
    out: Vec<Probe>,
    entered: Option<(usize, usize, String)>,
}

impl SectionReader {
    /// Reads one block into probes, split where it crosses a shell boundary.
    fn block(&mut self, raw: &RawCode, cue: Option<Cue>) {
        let Some((p, commands)) = read_block(raw, cue, &mut self.stack, &mut self.out) else {
            return;
        };
        let foreign = commands
            .as_ref()
            .is_some_and(|c| c.iter().any(|c| super::transcript::foreign_prompt(&c.2)));
        if p.lang != Lang::Shell || self.stack.is_empty() && !foreign && !may_enter(&p.code) {
            self.out.push(p);
            return;
        }
        let commands = commands.unwrap_or_else(|| {
            super::transcript::script_lines(&p.code)
                .into_iter()
                .map(|(i, c)| (i, c, String::new()))
                .collect()
        });
        // A later block that starts with an operator-side CLI has left the shell.
        if let Some((_, first, _)) = commands.first() {
            let name = first.split_whitespace().next().unwrap_or("");
            if !self.stack.is_empty() && OPERATOR_CLIS.contains(&name) {
                self.stack.clear();
                self.entered = None;
            }
        }
        let (mut segs, changed) = self.segments(commands, raw.line);
        if segs.is_empty() || !changed && segs.len() == 1 && segs[0].0.is_none() {
            self.out.push(p);
            return;
        }
        if !changed {
            let runs_in = segs.pop().and_then(|s| s.0);
            let mut q = Probe { runs_in, ..p };
            with_entry_vars(&mut q);
            self.out.push(q);
            return;
        }
        self.out.extend(split_probe(&p, raw.line, segs));
    }

    /// The block's command lines grouped into runs by the shell each is typed in, following
    /// the enters and exits among them; the flag says whether any line entered or left one.
    fn segments(&mut self, commands: super::probe::Commands, first: usize) -> (Vec<Segment>, bool) {
        let mut segs: Vec<Segment> = Vec::new();
        let mut changed = false;
        for (i, text, prompt) in commands {
            let step = step(&text, self.stack.last());
            let foreign = super::transcript::foreign_prompt(&prompt);
            let ctx = match step {
                // Typed at a root or container prompt the section never entered.
                Step::Plain if self.stack.is_empty() && foreign => {
                    changed = true;
                    Some(Some(prompt_shell(&prompt)))
                }
                Step::Plain => Some(self.stack.last().cloned()),
                Step::Exit => {
                    self.stack.pop();
                    changed = true;
                    None
                }
                Step::Enter(r) => {
                    // A console is left by closing it, which guides seldom write down.
                    if self.stack.is_empty() && r.console.is_none() {
                        self.entered = Some((self.out.len(), first + i, r.via.clone()));
                    }
                    self.stack.push(r);
                    changed = true;
                    None
                }
            };
            if let Some(ctx) = ctx {
                match segs.last_mut() {
                    Some((c, lines)) if *c == ctx => lines.push((i, text)),
                    _ => segs.push((ctx, vec![(i, text)])),
                }
            }
            if self.stack.is_empty() {
                self.entered = None;
            }
        }
        (segs, changed)
    }
}

/// One probe per run of `segs`, each with the output lines printed after its own commands.
fn split_probe(p: &Probe, first: usize, segs: Vec<Segment>) -> Vec<Probe> {
    let starts: Vec<usize> = segs
        .iter()
        .map(|(_, l)| l.first().map_or(0, |l| l.0))
        .collect();
    let outputs: Vec<&str> = super::swar::lines(&p.expected_output).collect();
    let source: Vec<&str> = super::swar::lines(&p.source).collect();
    let mut out = Vec::with_capacity(segs.len());
    for (k, (runs_in, lines)) in segs.into_iter().enumerate() {
        let code: Vec<&str> = lines.iter().map(|l| l.1.as_str()).collect();
        let end = starts.get(k + 1).copied().unwrap_or(source.len());
        // Output before the first part (what the entering command printed) stays with it.
        let start = if k == 0 { 0 } else { starts[k] };
        let own: Vec<&str> = source
            .get(start..end.max(start))
            .unwrap_or_default()
            .iter()
            .copied()
            .filter(|l| outputs.contains(l))
            .collect();
        let mut q = super::probe::reanalyse(p, &code.join("\n"));
        q.expected_output = own.join("\n");
        q.line = first + lines.first().map_or(0, |l| l.0);
        q.runs_in = runs_in;
        with_entry_vars(&mut q);
        out.push(q);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Option<(ShellKind, String)> {
        match step(text, None) {
            Step::Enter(r) => Some((r.kind, r.target)),
            _ => None,
        }
    }

    #[test]
    fn entering_commands() {
        let pod = |t: &str| Some((ShellKind::Pod, t.to_string()));
        assert_eq!(kind("oc rsh -n openshift-etcd etcd-0"), pod("etcd-0"));
        assert_eq!(kind("oc rsh etcd-0 etcdctl member list"), None);
        assert_eq!(
            kind("kubectl exec -it -n x api-0 -c c -- bash"),
            pod("api-0")
        );
        assert_eq!(kind("kubectl exec -n x api-0 -- ls /"), None);
        assert_eq!(kind("kubectl exec -it api-0 -- ls /"), None);
        assert_eq!(
            kind("oc debug node/$NODE"),
            Some((ShellKind::Node, "$NODE".into()))
        );
        assert_eq!(kind("oc debug node/w-1 -- chroot /host df -h"), None);
        assert_eq!(
            kind("ssh -i key core@10.0.0.4"),
            Some((ShellKind::Host, "10.0.0.4".into()))
        );
        assert_eq!(kind("ssh core@10.0.0.4 uptime"), None);
        assert_eq!(kind("sudo systemctl restart kubelet"), None);
        assert!(kind("sudo -i").is_some());
        assert_eq!(kind("chroot /host"), None, "only inside a shell");
    }

    #[test]
    fn nested_shells_keep_the_place() {
        let node = RunsIn {
            kind: ShellKind::Node,
            via: "oc debug node/w-1".into(),
            target: "w-1".into(),
            console: None,
        };
        let Step::Enter(r) = step("chroot /host", Some(&node)) else {
            panic!("chroot enters");
        };
        assert_eq!((r.kind, r.target.as_str()), (ShellKind::Node, "w-1"));
        assert_eq!(r.via, "oc debug node/w-1 && chroot /host");
        assert_eq!(step("exit", Some(&node)), Step::Exit);
        assert_eq!(step("exit", None), Step::Plain);
    }
}
