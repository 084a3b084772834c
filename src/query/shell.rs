//! The shell backend: `bash -o pipefail -c SCRIPT` in its own process group and, read-only
//! or confirmed, in the jail (`jail`; Landlock alone where the session is not isolated),
//! values in the environment, kube context passed through, kubectl/oc/helm pointed at the
//! read-only API proxy (`proxy::probe`), output streamed, variables the
//! script assigns captured for later probes. On timeout or cancel the whole process group gets
//! SIGTERM, then SIGKILL after a grace period; nothing is left running.
//!
//! IO edge (processes, temp files). Must not import `cli`, `tui` or `nav`.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chrono::Utc;
use futures::future::BoxFuture;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

use super::vars::{self, Substituted};
use super::{Backend, Cancel, Executor, OutputSink, ProbeError, ProbeRequest, ProbeResult, Status};

/// Runs shell probes.
#[derive(Debug, Clone)]
pub struct ShellExecutor {
    /// Time between SIGTERM and SIGKILL.
    pub grace: Duration,
    /// The shell (default `bash`).
    pub shell: String,
    /// The kernel sandbox for probes that run without a confirmation.
    pub sandbox: super::sandbox::SandboxPolicy,
    /// Notes each running probe's process group, so a resumed session can stop what a
    /// killed navigator left running.
    pub tracker: super::strays::Tracker,
    /// The read-only API proxy kubectl/oc/helm reach the cluster through.
    pub proxy: super::proxy::SessionProxy,
    /// More doors of the jail (the egress proxy, configured forwards).
    pub doors: super::jail::JailDoors,
    /// The session's allow-listing egress proxy: each jailed probe gets its own listener
    /// (a ticket) bridged in as the egress door, and its refusals end the probe's output.
    pub egress: Option<super::egress::Egress>,
}

impl Default for ShellExecutor {
    fn default() -> Self {
        ShellExecutor {
            grace: Duration::from_secs(2),
            shell: "bash".into(),
            sandbox: Default::default(),
            tracker: Default::default(),
            proxy: Default::default(),
            doors: Default::default(),
            egress: None,
        }
    }
}

/// Single-quotes a word for a shell (`it's` → `'it'\''s'`).
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// [`sh_quote`] on one line: a value with a newline or another control character is written
/// `$'…'` with escapes, so no line of a recorded command can be pasted as a command of its own.
pub fn sh_quote_line(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return sh_quote(s);
    }
    let mut out = String::from("$'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", u32::from(c) & 0xff)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Defines `kubectl`/`oc` with the chosen context and writes the assigned variables to the
/// capture file on exit (NUL-separated `name=value`).
pub(super) fn prelude(capture: &[String], context: bool) -> String {
    let mut p = String::new();
    if context {
        p.push_str("kubectl() { command kubectl --context \"$TSGNAV_KUBE_CONTEXT\" \"$@\"; }; ");
        p.push_str("oc() { command oc --context \"$TSGNAV_KUBE_CONTEXT\" \"$@\"; }; ");
        p.push_str("helm() { command helm --kube-context \"$TSGNAV_KUBE_CONTEXT\" \"$@\"; }; ");
    }
    if !capture.is_empty() {
        let names = capture.join(" ");
        p.push_str(&format!(
            "__tsgnav_capture() {{ for __n in {names}; do if [ -n \"${{!__n+x}}\" ]; then \
             printf '%s=%s\\0' \"$__n\" \"${{!__n}}\"; fi; done > \"$TSGNAV_CAPTURE_FILE\"; }}; \
             trap __tsgnav_capture EXIT; "
        ));
    }
    p
}

static CAPTURE_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The command as shown to the operator and recorded: the script plus the values it got.
pub(super) fn shown(sub: &Substituted, req: &ProbeRequest) -> String {
    let mut s = sub.text.trim_end().to_string();
    for (k, v) in &sub.env {
        s.push_str(&format!("\n# env {k}={}", sh_quote_line(v)));
    }
    if let Some(c) = &req.target.kube_context {
        s.push_str(&format!("\n# kube context {}", sh_quote(c)));
    }
    s
}

/// Sends `sig` to process group `pgid`.
fn signal_group(pgid: i32, sig: i32) {
    if pgid > 0 {
        // SAFETY: kill(2) with a negative pid signals a process group; no memory is touched.
        unsafe {
            libc::kill(-pgid, sig);
        }
    }
}

/// SIGTERM to the group, SIGKILL after `grace` unless the leader has exited by then.
async fn stop_group(
    child: &mut super::jail::Child,
    pgid: i32,
    grace: Duration,
) -> Option<std::process::ExitStatus> {
    signal_group(pgid, libc::SIGTERM);
    let status = tokio::time::timeout(grace, child.wait())
        .await
        .ok()
        .and_then(Result::ok);
    signal_group(pgid, libc::SIGKILL);
    match status {
        Some(s) => Some(s),
        None => child.wait().await.ok(),
    }
}

async fn pump(mut r: impl AsyncRead + Unpin, tx: tokio::sync::mpsc::UnboundedSender<Vec<u8>>) {
    let mut buf = vec![0u8; 8192];
    while let Ok(n) = r.read(&mut buf).await {
        if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
            break;
        }
    }
}

/// The probe's private scratch folder (its capture file, kubeconfig and cache).
fn scratch_dir(n: u64) -> Result<std::path::PathBuf, ProbeError> {
    let scratch = super::scratch::path("tsgnav-probe", n);
    super::scratch::make_private(&scratch).map_err(|e| ProbeError::Io {
        detail: format!(
            "cannot create the probe's scratch folder {}: {e}",
            scratch.display()
        ),
    })?;
    Ok(scratch)
}

/// Starts the probe's shell (through the jail's doors when it is jailed), its output piped
/// and its process group its own.
async fn spawn(
    cmd: &mut Command,
    jail: Option<super::jail::probe::Jailed>,
) -> Result<(super::jail::Child, Option<super::jail::Serving>), super::jail::JailError> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    match jail {
        // The jail's launcher starts it (tsgnav's address space is not copied per probe).
        Some(j) => j.entered.spawn(cmd).await.map(|(c, d)| (c, Some(d))),
        None => cmd
            .spawn()
            .map(|c| (c.into(), None))
            .map_err(|e| super::jail::JailError::Step {
                step: "start the probe's shell",
                source: e,
            }),
    }
}

impl ShellExecutor {
    async fn run_shell(
        &self,
        mut req: ProbeRequest,
        mut out: OutputSink,
        cancel: Cancel,
    ) -> ProbeResult {
        let started = Utc::now();
        let isolation = super::jail::isolation(self.sandbox.jail);
        let jailed = isolation == super::jail::Isolation::Jailed;
        if jailed && req.target.place.is_local() {
            req.target.place = super::Place::Jail;
        }
        let target = req.target.shown();
        let sub = match vars::substitute(req.lang, &req.code, &req.bindings) {
            Ok(s) => s,
            Err(e) => return ProbeResult::failed(req.id, Backend::Shell, target, req.code, e),
        };
        let mut result = ProbeResult::new(
            req.id.clone(),
            Backend::Shell,
            target,
            shown(&sub, &req),
            started,
        );
        let n = CAPTURE_COUNTER.fetch_add(1, Ordering::Relaxed);
        let scratch = match scratch_dir(n) {
            Ok(dir) => dir,
            Err(e) => {
                result.status = Status::Failed(e);
                return result;
            }
        };
        let _cleanup = RemoveOnDrop(scratch.clone());
        let capture_file = scratch.join("tsgnav-capture");
        let mut cmd = self.command(&req, &sub, &capture_file);
        let hide = super::jail::probe::kubeconfigs(&cmd, req.target.kubeconfig.as_deref());
        // kubectl, oc and helm reach the cluster only through the read-only API proxy.
        let access = match super::proxy::probe::uses_kube_cli(&sub.text) {
            true => Some(self.proxy.access(&req, &scratch, jailed).await),
            false => None,
        };
        if let Some(super::proxy::ProbeAccess::Proxied {
            kubeconfig, cache, ..
        }) = &access
        {
            cmd.env("KUBECONFIG", kubeconfig).env("KUBECACHEDIR", cache);
        }
        // The probe's own ticket of the egress proxy: its jail's door serves it in tsgnav.
        let ticket = match (&self.egress, jailed) {
            (Some(e), true) => Some(e.ticket()),
            _ => None,
        };
        let (jail, sandbox) = match jailed {
            true => self.jail(&mut cmd, &scratch, access.as_ref(), hide, ticket.as_ref()),
            false => self.unjailed(&mut cmd, &req, &scratch, access.as_ref()),
        }
        .map(|(j, s)| (j, format!("{}; {s}", isolation.describe())))
        .unwrap_or_else(|e| (None, e));
        result.sandbox = Some(sandbox.clone());
        if jailed && jail.is_none() {
            result.status = Status::Failed(ProbeError::Io { detail: sandbox });
            result.ended = Utc::now();
            return result;
        }
        let (mut child, _doors) = match spawn(&mut cmd, jail).await {
            Ok(c) => c,
            Err(e) => {
                result.status = Status::Failed(ProbeError::Spawn {
                    program: self.shell.clone(),
                    detail: e.to_string(),
                });
                result.ended = Utc::now();
                return result;
            }
        };
        let pgid = child.id().and_then(|p| i32::try_from(p).ok()).unwrap_or(0);
        // Removed when this run ends, after the group got its last signal below.
        let _running = self.tracker.started(pgid, &req.id.0);
        let (status, failure) = self
            .supervise(&mut child, pgid, &req, &cancel, &mut out)
            .await;
        if let Some(a) = &access {
            out.write(a.report().as_bytes());
            result.api = a.decisions();
        }
        if let Some(t) = &ticket {
            out.write(t.report().as_bytes());
        }
        result.captured = read_capture(&capture_file);
        result.status = match (failure, status) {
            (Some(e), _) => Status::Failed(e),
            (None, Some(s)) => exit_status(s),
            (None, None) => Status::Failed(ProbeError::Io {
                detail: "lost track of the shell process".into(),
            }),
        };
        result.output = out.finish();
        result.ended = Utc::now();
        result
    }
    /// Puts the probe in its jail; the jail and the Landlock layer, or why it failed.
    fn jail(
        &self,
        cmd: &mut Command,
        scratch: &std::path::Path,
        access: Option<&super::proxy::ProbeAccess>,
        hide: Vec<std::path::PathBuf>,
        ticket: Option<&super::egress::Ticket>,
    ) -> Result<(Option<super::jail::probe::Jailed>, String), String> {
        let kube = match access {
            Some(super::proxy::ProbeAccess::Proxied { grant, shared, .. }) => {
                Some(super::jail::probe::KubeDoor {
                    door: super::jail::Outside::Serve(super::jail::bridge::Handler(grant.door())),
                    port: grant.port(),
                    kubeconfig: grant.door_kubeconfig().into_bytes(),
                    cache: shared.clone(),
                })
            }
            _ => None,
        };
        let mut doors = self.doors.clone();
        if let Some(door) = ticket.and_then(super::egress::Ticket::door) {
            doors.egress = Some(super::jail::Outside::Serve(super::jail::bridge::Handler(
                door,
            )));
        }
        super::jail::probe::jail_probe(cmd, &self.sandbox, &doors, scratch, kube, hide)
            .map(|j| {
                let s = j.landlock.describe();
                (Some(j), s)
            })
            .map_err(|e| e.to_string())
    }

    /// Without the jail (not isolated): Landlock alone for a read-only probe; a confirmed
    /// change runs unconfined.
    fn unjailed(
        &self,
        cmd: &mut Command,
        req: &ProbeRequest,
        scratch: &std::path::Path,
        access: Option<&super::proxy::ProbeAccess>,
    ) -> Result<(Option<super::jail::probe::Jailed>, String), String> {
        if req.confirmation.is_some() {
            return Ok((None, "a confirmed change runs outside the sandbox".into()));
        }
        cmd.env("TMPDIR", scratch);
        let proxy_port = access.and_then(|a| a.port());
        super::sandbox::confine(cmd, &self.sandbox, scratch, proxy_port)
            .map(|s| (None, s.describe()))
            .map_err(|e| format!("{e}; the probe was not run"))
    }

    /// The shell command of a probe: the stop-on-failure trap of a confirmed change, the
    /// prelude, the script, its values as environment, and where kubectl keeps its cache.
    fn command(
        &self,
        req: &ProbeRequest,
        sub: &Substituted,
        capture_file: &std::path::Path,
    ) -> Command {
        // A confirmed change stops at its first failing command and says so; the script's
        // line numbers start after the one prelude line.
        let stop = if req.confirmation.is_some() {
            "set -eE; trap '__rc=$?; echo \"tsgnav: line $((${BASH_LINENO[0]:-$LINENO} - 1)) \
         failed (exit $__rc); the commands after it did not run\" >&2; trap - ERR' ERR; "
        } else {
            ""
        };
        let script = format!(
            "{stop}{}\n{}",
            prelude(&req.assigns, req.target.kube_context.is_some()),
            sub.text
        );
        let mut cmd = Command::new(&self.shell);
        cmd.arg("-o")
            .arg("pipefail")
            .arg("-c")
            .arg(&script)
            .arg("tsgnav-probe");
        cmd.envs(sub.env.iter().map(|(k, v)| (k, v)))
            .env("TSGNAV_CAPTURE_FILE", capture_file);
        if let Some(c) = &req.target.kube_context {
            cmd.env("TSGNAV_KUBE_CONTEXT", c);
        }
        if let Some(k) = &req.target.kubeconfig {
            cmd.env("KUBECONFIG", k);
            // kubectl caches API discovery per host:port only; two kubeconfigs that reach
            // different clusters through the same local port (port-forwards, simulators)
            // would share a stale cache. Keep the cache beside the kubeconfig named here,
            // unless the operator chose a cache directory.
            if std::env::var_os("KUBECACHEDIR").is_none() {
                if let (Some(dir), Some(name)) = (k.parent(), k.file_name()) {
                    let mut cache = std::ffi::OsString::from(".kube-cache-");
                    cache.push(name);
                    cmd.env("KUBECACHEDIR", dir.join(cache));
                }
            }
        }
        cmd
    }

    /// Streams the probe's output into `out` until it exits, times out or is cancelled (then
    /// its process group is stopped); every process of the group is killed before this
    /// returns. The exit status, if one was seen, and why it was stopped, if it was.
    async fn supervise(
        &self,
        child: &mut super::jail::Child,
        pgid: i32,
        req: &ProbeRequest,
        cancel: &Cancel,
        out: &mut OutputSink,
    ) -> (Option<std::process::ExitStatus>, Option<ProbeError>) {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let readers = [
            child
                .take_stdout()
                .map(|s| tokio::spawn(pump(s, tx.clone()))),
            child
                .take_stderr()
                .map(|s| tokio::spawn(pump(s, tx.clone()))),
        ];
        drop(tx);
        let deadline = tokio::time::sleep(req.timeout);
        tokio::pin!(deadline);
        let mut failure = None;
        let status = loop {
            tokio::select! {
                Some(chunk) = rx.recv() => out.write(&chunk),
                s = child.wait() => break s.ok(),
                _ = &mut deadline => {
                    failure = Some(ProbeError::Timeout { after: req.timeout });
                    break stop_group(child, pgid, self.grace).await;
                }
                _ = cancel.cancelled() => {
                    failure = Some(ProbeError::Cancelled);
                    break stop_group(child, pgid, self.grace).await;
                }
            }
        };
        // Background children of the script die with it; then the pipes close.
        signal_group(pgid, libc::SIGKILL);
        for r in readers.into_iter().flatten() {
            let _ = tokio::time::timeout(Duration::from_secs(1), r).await;
        }
        while let Ok(chunk) = rx.try_recv() {
            out.write(&chunk);
        }
        (status, failure)
    }
}

/// Removes the probe's scratch folder when the run ends, however it ends.
struct RemoveOnDrop(std::path::PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn exit_status(s: std::process::ExitStatus) -> Status {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(0), _) => Status::Ok { exit: 0 },
        (Some(code), _) => Status::Failed(ProbeError::Exit { code }),
        (None, Some(signal)) => Status::Failed(ProbeError::Signal { signal }),
        (None, None) => Status::Failed(ProbeError::Io {
            detail: "the shell ended without a status".into(),
        }),
    }
}

fn read_capture(path: &std::path::Path) -> BTreeMap<String, String> {
    let Ok(bytes) = std::fs::read(path) else {
        return BTreeMap::new();
    };
    bytes
        .split(|b| *b == 0)
        .filter_map(|rec| {
            let text = String::from_utf8_lossy(rec);
            text.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect()
}

impl Executor for ShellExecutor {
    fn backend(&self) -> Backend {
        Backend::Shell
    }

    fn run(
        &self,
        req: ProbeRequest,
        out: OutputSink,
        cancel: Cancel,
    ) -> BoxFuture<'_, ProbeResult> {
        Box::pin(self.run_shell(req, out, cancel))
    }

    fn setup_limit(&self) -> Duration {
        super::proxy::probe::FILL_LIMIT + super::jail::spawn::SILENCE
    }
}
