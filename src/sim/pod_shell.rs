//! PURE canned commands "inside" a simulated pod, for the `pods/exec` endpoint: a small fixed
//! set of read-only commands (`cat /etc/resolv.conf`, `hostname`, `ls`, `ps`, `env`, `id`,
//! `df -h`, `echo`, and `etcdctl endpoint health|status` / `member list` in etcd pods),
//! answered deterministically from the pod object. `sh -c SCRIPT` runs the script's lines,
//! `;` and `&&` lists and pipes into `grep`/`head`/`tail`/`wc -l`. Anything else exits 127
//! ("not found"), as a shell without that program would.
//!
//! No IO; imports nothing of the crate.

use serde_json::Value;

use super::pod_files::{etcdctl, file, listing};

/// What a command printed and how it exited.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ran {
    pub stdout: String,
    pub stderr: String,
    pub exit: i32,
}

pub(super) fn ok(stdout: String) -> Ran {
    Ran {
        stdout,
        ..Ran::default()
    }
}

pub(super) fn fail(stderr: String, exit: i32) -> Ran {
    Ran {
        stderr,
        exit,
        ..Ran::default()
    }
}

/// Runs `argv` in `container` of `pod`.
pub fn run(pod: &Value, container: &str, argv: &[String]) -> Ran {
    match argv {
        [sh, flag, script, ..]
            if matches!(base(sh), "sh" | "bash" | "ash") && flag.as_str() == "-c" =>
        {
            script_run(pod, container, script)
        }
        _ => one(pod, container, argv),
    }
}

fn base(w: &str) -> &str {
    w.rsplit('/').next().unwrap_or(w)
}

/// Splits a line into words, honouring single and double quotes.
fn words(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => (quote, any) = (Some(c), true),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if any {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (_, c) => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// A script: lines and `;` lists run in turn, `&&` stops at the first failure.
fn script_run(pod: &Value, container: &str, script: &str) -> Ran {
    let mut all = Ran::default();
    for stmt in script.split(['\n', ';']).map(str::trim) {
        if stmt.is_empty() || stmt.starts_with('#') {
            continue;
        }
        for part in stmt.split("&&").map(str::trim) {
            let r = pipeline(pod, container, part);
            all.stdout.push_str(&r.stdout);
            all.stderr.push_str(&r.stderr);
            all.exit = r.exit;
            if r.exit != 0 {
                break;
            }
        }
        if let Some(code) = stmt.strip_prefix("exit").map(str::trim) {
            all.exit = code.parse().unwrap_or(all.exit);
            return all;
        }
    }
    all
}

fn pipeline(pod: &Value, container: &str, part: &str) -> Ran {
    let mut stages = part.split('|').map(words);
    let first = stages.next().unwrap_or_default();
    let mut r = one(pod, container, &first);
    for stage in stages {
        if r.exit == 127 {
            break;
        }
        r = filter(&r.stdout, &stage, r.stderr);
    }
    r
}

/// The filters a pipe may end in.
fn filter(input: &str, argv: &[String], stderr: String) -> Ran {
    let lines: Vec<&str> = input.lines().collect();
    let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
    let count = |d: usize| -> usize {
        match args.as_slice() {
            ["-n", n, ..] => n.parse().unwrap_or(d),
            [n, ..] if n.starts_with('-') => n[1..].parse().unwrap_or(d),
            _ => d,
        }
    };
    let join = |ls: &[&str]| ls.iter().map(|l| format!("{l}\n")).collect::<String>();
    let out = match argv.first().map(|w| base(w)) {
        Some("grep") => {
            let flags: String = args
                .iter()
                .filter(|a| a.starts_with('-'))
                .map(|a| &a[1..])
                .collect();
            let pat = args
                .iter()
                .find(|a| !a.starts_with('-'))
                .copied()
                .unwrap_or("");
            let (ci, inv, cnt) = (
                flags.contains('i'),
                flags.contains('v'),
                flags.contains('c'),
            );
            let hit = |l: &&str| {
                let m = if ci {
                    l.to_lowercase().contains(&pat.to_lowercase())
                } else {
                    l.contains(pat)
                };
                m != inv
            };
            let kept: Vec<&str> = lines.iter().copied().filter(hit).collect();
            if cnt {
                return Ran {
                    stdout: format!("{}\n", kept.len()),
                    stderr,
                    exit: i32::from(kept.is_empty()),
                };
            }
            let exit = i32::from(kept.is_empty());
            return Ran {
                stdout: join(&kept),
                stderr,
                exit,
            };
        }
        Some("head") => join(&lines[..count(10).min(lines.len())]),
        Some("tail") => join(&lines[lines.len().saturating_sub(count(10))..]),
        Some("wc") if args == ["-l"] => format!("{}\n", lines.len()),
        Some("sort") => {
            let mut s = lines.clone();
            s.sort_unstable();
            join(&s)
        }
        Some(other) => return fail(format!("sh: {other}: not found\n"), 127),
        None => input.to_string(),
    };
    Ran {
        stdout: out,
        stderr,
        exit: 0,
    }
}

fn pod_str<'a>(pod: &'a Value, path: &[&str]) -> &'a str {
    path.iter().fold(pod, |v, k| &v[*k]).as_str().unwrap_or("")
}

fn container_spec<'a>(pod: &'a Value, container: &str) -> &'a Value {
    pod["spec"]["containers"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["name"] == container))
        .unwrap_or(&Value::Null)
}

fn is_etcd(pod: &Value, container: &str) -> bool {
    let image = container_spec(pod, container)["image"]
        .as_str()
        .unwrap_or("");
    pod_str(pod, &["metadata", "name"]).contains("etcd") || image.contains("etcd")
}

/// One simple command.
fn one(pod: &Value, container: &str, argv: &[String]) -> Ran {
    let name = pod_str(pod, &["metadata", "name"]);
    let ns = pod_str(pod, &["metadata", "namespace"]);
    let ip = match pod_str(pod, &["status", "podIP"]) {
        "" => "10.128.0.2",
        ip => ip,
    };
    let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
    let Some(cmd) = argv.first().map(|w| base(w)) else {
        return Ran::default();
    };
    match (cmd, args.as_slice()) {
        ("true" | "exit", _) => Ran::default(),
        ("echo", a) => ok(format!("{}\n", a.join(" "))),
        ("hostname", []) => ok(format!("{name}\n")),
        ("whoami", []) => ok("root\n".into()),
        ("id", []) => ok("uid=0(root) gid=0(root) groups=0(root)\n".into()),
        ("cat", files) if !files.is_empty() => {
            let mut r = Ran::default();
            for f in files {
                match file(f, name, ns) {
                    Some(t) => r.stdout.push_str(&t),
                    None => {
                        r.stderr.push_str(&format!("cat: {f}: No such file or directory\n"));
                        r.exit = 1;
                    }
                }
            }
            r
        }
        ("ls", a) => {
            let path = a.iter().find(|x| !x.starts_with('-')).copied().unwrap_or("/");
            match listing(path, is_etcd(pod, container)) {
                Some(items) => ok(items.iter().map(|i| format!("{i}\n")).collect()),
                None => fail(format!("ls: cannot access '{path}': No such file or directory\n"), 2),
            }
        }
        ("ps", _) => {
            let spec = container_spec(pod, container);
            let main = spec["command"]
                .as_array()
                .map(|c| c.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "))
                .filter(|c| !c.is_empty())
                .unwrap_or_else(|| container.to_string());
            ok(format!(
                "PID   USER     TIME  COMMAND\n    1 root      0:42 {main}\n   57 root      0:00 ps {}\n",
                args.join(" ")
            ))
        }
        ("env" | "printenv", a) => {
            let mut vars = vec![
                ("PATH".to_string(), "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".to_string()),
                ("HOSTNAME".into(), name.to_string()),
                ("HOME".into(), "/root".into()),
                ("KUBERNETES_SERVICE_HOST".into(), "172.30.0.1".into()),
                ("KUBERNETES_SERVICE_PORT".into(), "443".into()),
            ];
            for e in container_spec(pod, container)["env"].as_array().into_iter().flatten() {
                if let (Some(k), Some(v)) = (e["name"].as_str(), e["value"].as_str()) {
                    vars.push((k.to_string(), v.to_string()));
                }
            }
            match a.first() {
                Some(k) if cmd == "printenv" => match vars.iter().find(|(n, _)| n == k) {
                    Some((_, v)) => ok(format!("{v}\n")),
                    None => fail(String::new(), 1),
                },
                _ => ok(vars.iter().map(|(k, v)| format!("{k}={v}\n")).collect()),
            }
        }
        ("df", _) => ok("Filesystem      Size  Used Avail Use% Mounted on\noverlay         120G   41G   79G  35% /\ntmpfs            64M     0   64M   0% /dev\n/dev/sda4       120G   41G   79G  35% /etc/hosts\n".into()),
        ("etcdctl", a) if is_etcd(pod, container) => etcdctl(a, name, ip),
        (other, _) => fail(format!("sh: {other}: not found\n"), 127),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod() -> Value {
        serde_json::json!({
            "metadata": {"name": "etcd-0", "namespace": "openshift-etcd"},
            "spec": {"containers": [{"name": "etcd", "image": "etcd:3.5", "env": [{"name": "ETCDCTL_API", "value": "3"}]}]},
            "status": {"podIP": "10.0.0.7"}
        })
    }

    fn sh(script: &str) -> Ran {
        run(&pod(), "etcd", &["sh".into(), "-c".into(), script.into()])
    }

    #[test]
    fn read_only_commands_answer_and_others_exit_127() {
        assert!(sh("cat /etc/resolv.conf")
            .stdout
            .contains("search openshift-etcd.svc"));
        assert_eq!(
            sh("etcdctl endpoint health").stdout,
            "https://10.0.0.7:2379 is healthy: successfully committed proposal: took = 9.218ms\n"
        );
        assert_eq!(sh("env | grep ETCDCTL").stdout, "ETCDCTL_API=3\n");
        assert_eq!(
            sh("ls /var/lib/etcd && hostname").stdout,
            "member\netcd-0\n"
        );
        let r = sh("rm -rf /var/lib/etcd");
        assert_eq!((r.exit, r.stderr.as_str()), (127, "sh: rm: not found\n"));
        assert_eq!(sh("false_cmd && hostname").stdout, "");
        assert_eq!(sh("ls /nope").exit, 2);
        assert_eq!(sh("ps aux | wc -l").stdout, "3\n");
    }
}
