//! Rules for plain Unix utilities and shell builtins: which only read, which wait for a
//! person, which change files, and the flags that turn a reader into a writer.
//!
//! Pure; imports only `crate::tsg`.

use super::args::{interactive, long_opt, long_running, mutating, read_only, unknown, Class};

const READ_ONLY: &[&str] = &[
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "zgrep",
    "jq",
    "gojq",
    "head",
    "wc",
    "tr",
    "cut",
    "echo",
    "printf",
    "cat",
    "zcat",
    "sleep",
    "base64",
    "column",
    "true",
    "false",
    "test",
    "[",
    "[[",
    "read",
    "export",
    "set",
    "unset",
    "cd",
    "pwd",
    "ls",
    "which",
    "type",
    "printenv",
    "whoami",
    "id",
    "uname",
    "dig",
    "nslookup",
    "host",
    "getent",
    "diff",
    "cmp",
    "comm",
    "paste",
    "join",
    "fold",
    "nl",
    "od",
    "hexdump",
    "strings",
    "file",
    "stat",
    "du",
    "df",
    "findmnt",
    "lsblk",
    "free",
    "ps",
    "uptime",
    "tac",
    "rev",
    "expr",
    "seq",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "cksum",
    "numfmt",
    "fmt",
    "local",
    "declare",
    "typeset",
    "readonly",
    "shift",
    "exit",
    "return",
    "break",
    "continue",
    "wait",
    "ulimit",
    "umask",
    "shopt",
    "getopts",
    ":",
    "uuidgen",
    "bc",
    "envsubst",
    "jless",
    "sum",
    "nproc",
    "lsof",
    "netstat",
    "ss",
    "traceroute",
    "tracepath",
    "mtr",
    "whois",
    "cal",
    "tput",
    "clear",
    "history",
    "yes",
];

const INTERACTIVE: &[&str] = &[
    "vi", "vim", "nvim", "nano", "emacs", "less", "more", "most", "man", "top", "htop", "btop",
    "k9s", "tmux", "screen", "telnet", "ftp", "sftp", "nc", "ncat", "fzf",
];

fn file_verb(name: &str) -> Option<&'static str> {
    Some(match name {
        "rm" | "rmdir" | "shred" | "unlink" => "deletes files",
        "mv" => "moves or renames files",
        "cp" | "install" | "dd" => "copies into files",
        "mkdir" => "creates directories",
        "touch" | "truncate" => "creates or changes files",
        "ln" => "creates links",
        "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" => "changes file permissions",
        "kill" | "pkill" | "killall" => "stops processes",
        "mount" | "umount" | "mkfs" | "fdisk" | "parted" => "changes file systems",
        "reboot" | "shutdown" | "halt" | "poweroff" => "restarts or stops the machine",
        "iptables" | "ip6tables" | "nft" => "changes the firewall",
        "useradd" | "userdel" | "usermod" | "passwd" => "changes user accounts",
        "unzip" | "gunzip" | "gzip" | "bunzip2" | "bzip2" | "xz" | "unxz" => "writes files",
        "crontab" => "changes scheduled jobs",
        _ => return None,
    })
}

fn is_flag(a: &str) -> bool {
    a.starts_with('-') && a.len() > 1
}

/// Whether a short-flag cluster (not `--long`) holds `letter`.
fn short_has(a: &str, letter: char) -> bool {
    is_flag(a) && !a.starts_with("--") && a[1..].contains(letter)
}

/// A plain utility, or `None` when the name is not known at all.
pub(super) fn utility(name: &str, args: &[String]) -> Option<Class> {
    let any = |f: &dyn Fn(&str) -> bool| args.iter().any(|a| f(a));
    let files: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !is_flag(a))
        .collect();
    Some(match name {
        "tail"
            if any(&|a| {
                short_has(a, 'f')
                    || short_has(a, 'F')
                    || a == "--follow"
                    || a.starts_with("--follow=")
            }) =>
        {
            long_running("`tail -f` follows the file until it is stopped")
        }
        "tail" => read_only("`tail` only reads"),
        "tee" => match files.iter().find(|f| {
            !matches!(
                **f,
                "/dev/null" | "/dev/stderr" | "/dev/stdout" | "/dev/tty"
            )
        }) {
            Some(f) => mutating(format!("`tee` writes its input to the file `{f}`")),
            None => read_only("`tee` only copies its input to the terminal"),
        },
        "sort" if any(&|a| long_opt(a, "--compress-program")) => unknown(
            "`sort --compress-program` runs a program of the script's choosing on its temporary files",
        ),
        "sort" if any(&|a| a == "-o" || long_opt(a, "--output") || short_has(a, 'o')) => {
            mutating("`sort -o` writes a file")
        }
        "sort" => read_only("`sort` only reads and prints"),
        "yq" if any(&|a| a == "-i" || a == "--inplace" || short_has(a, 'i')) => {
            mutating("`yq -i` edits files in place")
        }
        "yq" => read_only("`yq` without -i only prints"),
        "gzip" | "gunzip" | "bzip2" | "xz"
            if any(&|a| {
                short_has(a, 'c') || short_has(a, 't') || short_has(a, 'l') || a == "--stdout"
            }) =>
        {
            read_only(format!("`{name} -c` only prints"))
        }
        "unzip" if any(&|a| short_has(a, 'l') || short_has(a, 'p') || short_has(a, 't')) => {
            read_only("`unzip -l` only lists the archive")
        }
        "ping" if !any(&|a| short_has(a, 'c') || short_has(a, 'w')) => {
            long_running("`ping` without -c keeps going until it is stopped")
        }
        "ping" => read_only("`ping -c` sends a few probes and stops"),
        _ if READ_ONLY.contains(&name) => read_only(format!("`{name}` only reads and prints")),
        _ if INTERACTIVE.contains(&name) => {
            interactive(format!("`{name}` waits for a person at the terminal"))
        }
        _ => match file_verb(name) {
            Some(why) => mutating(format!("`{name}` {why}")),
            None => return None,
        },
    })
}
