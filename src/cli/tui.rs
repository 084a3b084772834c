//! The default command: `tsgnav [PATH...] [--alert NAME] [--alert-payload FILE|-] [--node FILE#ID]
//! [--var NAME=value] [--context NAME] [-n NAMESPACE] [--kubeconfig FILE] [--write]` opens the navigator: `tui_build` builds the
//! `tui::App` from the config, keymap, theme and alert payload, and this hands it to
//! `tui::runtime`. When stdout is not a terminal and no navigator flag is given, prints the
//! decision tree instead.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;

use crate::tui::effect::Effect;
use crate::tui::runtime::library::Loader;
use crate::tui::runtime::probes::LiveSettings;
use crate::tui::runtime::record::Recorder;
use crate::tui::runtime::Options;
use crate::tui::{self, App};

#[derive(Debug, Default, Args)]
pub struct TuiArgs {
    /// Guides or folders of guides (default: the bundled guides plus `guides` from the config file).
    pub paths: Vec<PathBuf>,
    /// Start from this alert: land on the step its guide routes it to.
    #[arg(long, value_name = "NAME")]
    pub alert: Option<String>,
    /// An Alertmanager webhook payload or Prometheus alert JSON (`-` reads stdin); its labels
    /// (namespace, cluster, region, node …) fill the guide's variables.
    #[arg(long, value_name = "FILE|-")]
    pub alert_payload: Option<String>,
    /// Open this step (`file.md#heading-slug`, or a slug).
    #[arg(long, value_name = "FILE#ID")]
    pub node: Option<String>,
    /// A label of the `--alert` (repeatable), as Alertmanager would carry it: it fills the
    /// guide's variables, and the `[alerts]` context label picks the kube context.
    #[arg(long = "label", value_name = "NAME=value")]
    pub labels: Vec<String>,
    /// Set a probe variable (repeatable).
    #[arg(long = "var", value_name = "NAME=value")]
    pub vars: Vec<String>,
    /// Do not record an evidence session.
    #[arg(long)]
    pub no_evidence: bool,
    /// Start in write mode: a mutating probe opens its confirmation screen (preconditions,
    /// exact command, dry run, the target typed back). Without it the session is read-only
    /// until `W` is pressed and the kube context typed.
    #[arg(long)]
    pub write: bool,
    /// The kube context probes run against (default: `context` under [query] in the config
    /// file); write mode asks for this name to be typed back.
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// The namespace kubectl, oc and helm probes run in when they name none (as kubectl's
    /// `-n`); also the `NAMESPACE` variable, as `:ns NAME` sets it. Shown beside the context.
    #[arg(short = 'n', long, value_name = "NAME")]
    pub namespace: Option<String>,
    /// The kubeconfig probes use (default: `kubeconfig` under [query] in the config file,
    /// else $KUBECONFIG, else ~/.kube/config); it must exist.
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// Continue an evidence session (`latest`, an id or a prefix), after a crash too: its
    /// guide, the step it was on and its variables come back from the journal, and new
    /// records extend the same hash chain.
    #[arg(long, value_name = "SESSION", num_args = 0..=1, default_missing_value = "latest")]
    pub resume: Option<String>,
    /// Read guides from disk after the first frame (the navigator's own start; a demo or a
    /// replay builds its app whole).
    #[arg(skip)]
    pub background: bool,
    /// Show what this Alertmanager reports as firing above the guides (repeatable; default:
    /// the config file's [[alertmanager]] entries).
    #[arg(long, value_name = "URL")]
    pub alertmanager_url: Vec<String>,
    /// Landing on a step from a firing alert starts the step's read-only probes at once.
    #[arg(long)]
    pub auto_run: bool,
}

/// Everything the navigator starts with.
pub struct Built {
    pub app: App,
    /// Some guides could not be loaded (exit 2 after the session).
    pub failed: bool,
    pub live: Option<LiveSettings>,
    /// Effects of the set-up (alert, `--var`, `--node`) for the runtime to carry out first.
    pub startup: Vec<Effect>,
    /// Secret patterns from the config file, redacted from the evidence.
    pub redact: Vec<String>,
    /// Guides still to read, after the first frame.
    pub loader: Option<Loader>,
    /// Where the "Firing" section reads alerts, if anywhere.
    pub firing: Option<crate::tui::runtime::firing::FiringSettings>,
}

impl TuiArgs {
    /// The target flags as given.
    pub(super) fn target(&self) -> super::target::Flags<'_> {
        super::target::Flags {
            context: self.context.as_deref(),
            namespace: self.namespace.as_deref(),
            kubeconfig: self.kubeconfig.as_deref(),
        }
    }

    fn wants_tui(&self) -> bool {
        self.alert.is_some()
            || self.alert_payload.is_some()
            || self.node.is_some()
            || !self.vars.is_empty()
            || !self.labels.is_empty()
            || self.resume.is_some()
    }

    /// Opens the session to resume and fills in what the journal knows (flags win).
    fn prepare_resume(&mut self, query: &str) -> anyhow::Result<crate::evidence::Session> {
        let state_dir = crate::evidence::state_dir();
        let dir = crate::evidence::resolve(&state_dir, query)?;
        let session = crate::evidence::Session::open(&dir)
            .with_context(|| format!("{}: cannot resume this session", dir.display()))?;
        if let Some(t) = session.recovered() {
            eprintln!(
                "note: {}: journal line {} was cut off mid-write by a crash; it was set aside ({} bytes), every record before it is kept",
                dir.display(),
                t.line,
                t.bytes
            );
        }
        let st = session.state().clone();
        let guide = PathBuf::from(&st.start.guide);
        if self.paths.is_empty() && !st.start.guide.starts_with("tsg/") && guide.exists() {
            self.paths.push(guide);
        }
        if self.node.is_none() {
            self.node = st.node.clone();
        }
        if self.alert.is_none() && self.node.is_none() {
            self.alert = st.start.alert.clone();
        }
        for (k, v) in &st.vars {
            if !self
                .vars
                .iter()
                .any(|x| x.split('=').next() == Some(k.as_str()))
            {
                self.vars.push(format!("{k}={v}"));
            }
        }
        Ok(session)
    }

    pub fn run(self) -> anyhow::Result<ExitCode> {
        if self.auto_run {
            let (config, _) = super::tui_build::read_config()?;
            super::alerts_firing::refuse_unjailed_auto_run(&config, true)?;
        }
        check_paths(&self.paths)?;
        // Before the terminal is taken (the config's kubeconfig is checked with the context
        // when the navigator is built).
        self.target().check()?;
        if !std::io::stdout().is_terminal() {
            if self.wants_tui() {
                bail!("the navigator needs a terminal, and stdout is not one; run it in a terminal, or use `tsgnav tree` for a printout");
            }
            return super::tree::TreeArgs {
                paths: self.paths,
                ..Default::default()
            }
            .run();
        }
        let mut args = self;
        let resumed = match args.resume.take() {
            Some(q) => Some(args.prepare_resume(&q)?),
            None => None,
        };
        let no_evidence = args.no_evidence;
        args.background = resumed.is_none();
        // A session recorded in the demo goes on in the demo: the same simulated world and
        // its DEMO DATA label, never the kubeconfig's clusters.
        let (demo, resumed) = match resumed {
            Some(s) if s.state().start.simulated => (Some(s), None),
            other => (None, other),
        };
        if let Some(session) = demo {
            let name = super::demo::scenario_of(&session.state().start.guide);
            return super::demo::in_the_demo(name, args, |built| {
                resumed_recorder(session, built).map(|r| Some(r.this_session_only()))
            });
        }
        let built = args.build()?;
        match resumed {
            Some(session) => {
                let recorder = resumed_recorder(session, &built)?;
                launch_with(built, Some(recorder))
            }
            None => launch(built, no_evidence),
        }
    }
}

/// The recorder of a resumed session, opened again with the config file's `redact` patterns,
/// which were not known when the journal was first read.
fn resumed_recorder(session: crate::evidence::Session, built: &Built) -> anyhow::Result<Recorder> {
    let dir = session.dir().to_path_buf();
    drop(session);
    let redactor = crate::evidence::Redactor::with_patterns(&built.redact)
        .context("the config file's `redact`")?;
    let opts = crate::evidence::Options {
        redactor: std::sync::Arc::new(redactor),
        ..Default::default()
    };
    let session = crate::evidence::Session::open_with(&dir, opts)
        .with_context(|| format!("{}: cannot resume this session", dir.display()))?;
    Ok(Recorder::resume(
        crate::evidence::state_dir(),
        super::embedded::GUIDES,
        session,
    )
    .with_redact(built.redact.clone()))
}

/// Runs the navigator on a built app until the operator quits; the terminal is restored
/// whatever happens.
pub fn launch(built: Built, no_evidence: bool) -> anyhow::Result<ExitCode> {
    let redact = built.redact.clone();
    let recorder = (!no_evidence).then(|| {
        Recorder::new(crate::evidence::state_dir(), super::embedded::GUIDES).with_redact(redact)
    });
    launch_with(built, recorder)
}

/// [`launch`] with the recorder given (a resumed session's, or none).
pub fn launch_with(built: Built, recorder: Option<Recorder>) -> anyhow::Result<ExitCode> {
    {
        let Built {
            app,
            mut failed,
            live,
            startup,
            loader,
            firing,
            ..
        } = built;
        let problems = loader.as_ref().map(|l| l.problems.clone());
        let ran = tui::runtime::run(
            app,
            Options {
                live,
                recorder,
                startup,
                loader,
                firing,
            },
        );
        // Printed once the terminal is back, whatever the run's outcome.
        for p in problems
            .iter()
            .flat_map(|p| p.lock().map(|v| v.clone()).unwrap_or_default())
        {
            failed |= !p.warning;
            eprintln!(
                "{}: {}",
                if p.warning { "warning" } else { "error" },
                p.message
            );
        }
        ran.context("terminal error")?;
        Ok(if failed {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        })
    }
}

/// Reports a path that does not exist before the terminal is taken over; a bare word close to
/// a subcommand's name (`sesions`) is that subcommand mistyped, as clap would say.
fn check_paths(paths: &[PathBuf]) -> anyhow::Result<()> {
    let Some(p) = paths.iter().find(|p| !p.exists()) else {
        return Ok(());
    };
    let word = p.to_string_lossy();
    let cmd = <super::Cli as clap::CommandFactory>::command();
    let near = cmd
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| (distance(&word, c.get_name()), c.get_name().to_string()))
        .filter(|(d, n)| *d <= 2.max(n.len() / 4) && *d < n.len())
        .min();
    match near {
        Some((_, name)) if !word.contains(['/', '.']) => bail!(
            "unrecognized subcommand `{word}`, and no file or folder has that name\n\n  tip: a similar subcommand exists: `{name}`\n\nUsage: tsgnav {name} …  (`tsgnav --help` lists the subcommands)"
        ),
        _ => bail!(
            "{}: no such file or folder; name guides (.md) or folders of guides, or see `tsgnav --help`",
            p.display()
        ),
    }
}

/// Edit distance between two words (insertions, deletions, substitutions, swaps of neighbours).
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, v) in d[0].iter_mut().enumerate() {
        *v = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}
