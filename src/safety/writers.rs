//! Utilities that read by default but write files, run commands or change the machine in
//! some forms: `awk` (`system()`, `print > file`, pipes), `sed` (`e`, `w`, `s///w`, `s///e`),
//! `tar` (checkpoint actions, compress programs), `find` (`-exec`, `-delete`, `-fprint*`),
//! `xxd`/`uniq` (an output file as the second operand), `shuf -o`, and the setters among the
//! network and clock tools (`ip … set`, `date -s`, `hostname NAME`, `ifconfig IF down`,
//! `sysctl -w`).
//!
//! Pure; imports only `crate::tsg`.

use super::args::{long_opt, long_running, mutating, read_only, unknown, Class};
use super::sed;

fn is_flag(a: &str) -> bool {
    a.starts_with('-') && a.len() > 1
}

fn positionals(args: &[String]) -> Vec<&str> {
    args.iter()
        .map(String::as_str)
        .filter(|a| !is_flag(a))
        .collect()
}

/// A rule of this module, or `None`.
pub(super) fn writer(name: &str, args: &[String]) -> Option<Class> {
    let any = |f: &dyn Fn(&str) -> bool| args.iter().any(|a| f(a));
    Some(match name {
        "awk" | "gawk" | "mawk" | "nawk" => awk(name, args),
        "sed" | "gsed" => sed::sed(args),
        "tar" => tar(args),
        "find" => find(args),
        "xxd" | "uniq" => match positionals(args).get(1) {
            Some(out) if *out != "-" => {
                mutating(format!("`{name}` writes its output to the file `{out}`"))
            }
            _ => read_only(format!("`{name}` only reads and prints")),
        },
        "shuf" if any(&|a| a.starts_with("-o") || long_opt(a, "--output")) => {
            mutating("`shuf -o` writes a file")
        }
        "shuf" => read_only("`shuf` only prints"),
        "ip" => ip(args),
        "date"
            if any(&|a| {
                long_opt(a, "--set")
                    || a.starts_with('-')
                        && !a.starts_with("--")
                        && !a.starts_with("-I")
                        && a.contains('s')
            }) =>
        {
            mutating("`date -s` sets the system clock")
        }
        "date" => {
            let value_of = |f: &str| matches!(f, "-d" | "--date" | "-r" | "--reference" | "-f");
            let mut skip = false;
            let sets = args.iter().any(|a| {
                let was = std::mem::replace(&mut skip, value_of(a));
                !was && !is_flag(a) && !a.starts_with('+')
            });
            if sets {
                mutating("`date MMDDhhmm` sets the system clock")
            } else {
                read_only("`date` only prints the time")
            }
        }
        "hostname" => {
            let short = |a: &str, c: char| !a.starts_with("--") && is_flag(a) && a.contains(c);
            let sets = any(&|a| {
                short(a, 'F') || short(a, 'b') || long_opt(a, "--file") || long_opt(a, "--boot")
            }) || !positionals(args).is_empty();
            if sets {
                mutating("`hostname NAME` changes the machine's host name")
            } else {
                read_only("`hostname` only prints the host name")
            }
        }
        "ifconfig" if positionals(args).len() > 1 => {
            mutating("`ifconfig IFACE …` changes the interface (address, up/down, mtu)")
        }
        "ifconfig" => read_only("`ifconfig` only prints the interfaces"),
        "sysctl"
            if any(&|a| {
                let short = !a.starts_with("--") && is_flag(a) && a.contains(['w', 'p', 'f']);
                short
                    || a.contains('=')
                    || ["--write", "--load", "--system"]
                        .iter()
                        .any(|f| long_opt(a, f))
            }) =>
        {
            mutating("`sysctl -w`, `-p`/`--load` and `--system` change kernel settings")
        }
        "sysctl" => read_only("`sysctl` only prints kernel settings"),
        "ss" if any(&|a| a == "-K" || a == "--kill" || a.starts_with("-K")) => {
            mutating("`ss -K` closes the matching sockets")
        }
        "file" if any(&|a| a == "-C" || a == "--compile") => {
            mutating("`file -C` writes a compiled magic file")
        }
        "hostnamectl" | "timedatectl" | "resolvectl" => match positionals(args).first().copied() {
            None | Some("status" | "show" | "list-timezones" | "query" | "statistics") => {
                read_only(format!("`{name}` only prints"))
            }
            Some(sub) => mutating(format!("`{name} {sub}` changes system settings")),
        },
        _ => return None,
    })
}

/// `awk PROGRAM`: `system()`, pipes to or from a command, and `print > file` run or write.
fn awk(name: &str, args: &[String]) -> Class {
    if args.windows(2).any(|w| w[0] == "-i" && w[1] == "inplace") {
        return mutating(format!("`{name} -i inplace` edits files in place"));
    }
    if args.iter().any(|a| {
        matches!(
            a.as_str(),
            "-f" | "--file" | "-E" | "--exec" | "-l" | "--load"
        ) || a.starts_with("-f")
            || a.starts_with("--file=")
    }) {
        return unknown(format!(
            "`{name} -f` runs a program from a file, which tsgnav cannot check"
        ));
    }
    let mut skip = false;
    let program = args.iter().find(|a| {
        let was = std::mem::replace(&mut skip, matches!(a.as_str(), "-F" | "-v" | "--assign"));
        !was && !is_flag(a)
    });
    let Some(p) = program else {
        return read_only(format!("`{name}` without a program only prints"));
    };
    let code = p.replace("||", "  ");
    if code.contains("system") || code.contains("getline") && code.contains('|') {
        return unknown(format!(
            "`{name}` calls `system()` or reads a command's output, running commands tsgnav cannot check"
        ));
    }
    let printing = |op: char| {
        code.match_indices("print").any(|(i, _)| {
            code[i..]
                .split([';', '}', '\n'])
                .next()
                .is_some_and(|stmt| stmt.contains(op))
        })
    };
    if printing('|') {
        return unknown(format!(
            "`{name}` pipes its output into a command tsgnav cannot check"
        ));
    }
    if printing('>') {
        return mutating(format!("`{name}` writes with `print > FILE`"));
    }
    read_only(format!("`{name}` only reads and prints"))
}

fn tar(args: &[String]) -> Class {
    let hooks = [
        "--checkpoint-action",
        "--to-command",
        "--use-compress-program",
        "--info-script",
        "--new-volume-script",
        "--rsh-command",
        "--rmt-command",
    ];
    // Exact options that are also prefixes of a hook (getopt takes an exact name as itself).
    let exact = |a: &str| matches!(a.split('=').next(), Some("--checkpoint" | "--to-stdout"));
    let runs = args.iter().any(|a| {
        (!exact(a) && hooks.iter().any(|h| long_opt(a, h)))
            || hooks.iter().chain(&["-I", "-F"]).any(|f| a.starts_with(f))
    });
    if runs {
        return unknown("`tar` is told to run a program (checkpoint action, compressor, script)");
    }
    if args.iter().any(|a| a.starts_with("--index-file")) {
        return mutating("`tar --index-file` writes a file");
    }
    let mode = args
        .first()
        .map(|a| a.trim_start_matches('-'))
        .unwrap_or("");
    if mode.contains('t') && !mode.contains(['x', 'c', 'r', 'u', 'A'])
        || args.iter().any(|a| a == "--list")
    {
        read_only("`tar -t` only lists the archive")
    } else {
        mutating("`tar` writes files or archives")
    }
}

fn find(args: &[String]) -> Class {
    let has = |names: &[&str]| args.iter().any(|a| names.contains(&a.as_str()));
    if has(&["-delete"]) {
        return mutating("`find -delete` deletes files");
    }
    if has(&["-exec", "-execdir", "-ok", "-okdir"]) {
        return mutating("`find -exec` runs a command on every file found");
    }
    if let Some(f) = args
        .iter()
        .find(|a| a.starts_with("-fprint") || a.as_str() == "-fls")
    {
        return mutating(format!("`find {f}` writes its list into a file"));
    }
    read_only("`find` only lists files")
}

/// `ip [OPTIONS] OBJECT [VERB …]`: only `show`/`list`/`get` (or no verb) read; iproute2
/// accepts abbreviations (`ip l s` is `ip link set`), so nothing else is trusted.
fn ip(args: &[String]) -> Class {
    let mut pos = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        // iproute2 takes any prefix of its options, with one dash or two (`-ba`, `--bat`).
        let one = a
            .strip_prefix('-')
            .filter(|o| o.starts_with('-'))
            .unwrap_or(a);
        if one.len() >= 2 && "-batch".starts_with(one) {
            return unknown("`ip -batch` runs commands from a file");
        }
        if matches!(
            a,
            "-n" | "-netns" | "-f" | "-family" | "-l" | "-loops" | "-rc" | "-rcvbuf"
        ) {
            i += 1;
            continue;
        }
        if !is_flag(a) {
            pos.push(a);
        }
    }
    match (pos.first().copied(), pos.get(1).copied()) {
        (Some("monitor" | "mon"), _) => long_running("`ip monitor` runs until it is stopped"),
        (_, None | Some("show" | "list" | "lst" | "ls" | "get" | "help")) => {
            read_only("`ip … show` only prints")
        }
        (Some(obj), Some(verb)) => mutating(format!(
            "`ip {obj} {verb}` is not a form tsgnav knows to only read (`set`, `add`, `del` change the network)"
        )),
        (None, Some(_)) => read_only("`ip` alone only prints help"),
    }
}
