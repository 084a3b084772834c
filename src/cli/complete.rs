//! Shell completion of kube context names: `tsgnav completions SHELL` prints clap's script
//! with `--context` (and `run --confirm-target`) completing the contexts of the kubeconfig,
//! asked of the hidden `tsgnav __complete-contexts [--kubeconfig FILE]`. The scripts pass a
//! `--kubeconfig` typed earlier on the line. The kubeconfig is read as the navigator reads it:
//! `--kubeconfig`, else `kubeconfig` under [query] in the config file, else `$KUBECONFIG`
//! (a list is merged), else `~/.kube/config`. Part of the CLI edge.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

/// The hidden subcommand the completion scripts call.
pub const SUBCOMMAND: &str = "__complete-contexts";

#[derive(Debug, Args)]
pub struct ContextsArgs {
    /// The kubeconfig typed on the line being completed.
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
}

impl ContextsArgs {
    /// Prints each context name on its own line; prints nothing (and succeeds) when no
    /// kubeconfig reads, so a completion never shows an error in the middle of a line.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let mut out = String::new();
        for name in contexts(self.kubeconfig) {
            out.push_str(&name);
            out.push('\n');
        }
        std::io::stdout().lock().write_all(out.as_bytes())?;
        Ok(ExitCode::SUCCESS)
    }
}

/// The context names of the kubeconfig the navigator would use, in the file's order.
pub fn contexts(explicit: Option<PathBuf>) -> Vec<String> {
    let explicit = explicit.map(|p| tilde(&p.to_string_lossy())).or_else(|| {
        let (config, _) = super::tui_build::read_config().ok()?;
        config.query.kubeconfig.as_deref().map(tilde)
    });
    let Some(path) = crate::query::kube::default_kubeconfig(explicit) else {
        return Vec::new();
    };
    match crate::query::kube::client::read_kubeconfig(&path) {
        Ok(kc) => kc.contexts.into_iter().map(|c| c.name).collect(),
        Err(_) => Vec::new(),
    }
}

fn tilde(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), dirs::home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(p),
    }
}

/// clap's script for `shell`, with the context flags completing context names.
pub fn script(shell: clap_complete::Shell, generated: &str) -> String {
    use clap_complete::Shell;
    match shell {
        Shell::Bash => format!("{generated}\n{BASH}"),
        Shell::Zsh => zsh(generated),
        Shell::Fish => fish(generated),
        _ => generated.to_string(),
    }
}

/// The flags whose value is a context name (spelled without dashes, as the scripts do).
const FLAGS: [&str; 2] = ["context", "confirm-target"];

/// Each `'--context=[…]:NAME:_default'` spec gets the context completer as its action, and
/// the completer is defined before `_tsgnav`.
fn zsh(generated: &str) -> String {
    let mut out = String::new();
    for (i, line) in generated.lines().enumerate() {
        let ours = FLAGS.iter().any(|f| line.starts_with(&format!("'--{f}=[")));
        match line.strip_suffix(":_default' \\") {
            Some(head) if ours => {
                out.push_str(head);
                out.push_str(":_tsgnav_kube_contexts' \\");
            }
            _ => out.push_str(line),
        }
        out.push('\n');
        if i == 0 {
            out.push_str(ZSH);
        }
    }
    out
}

/// Each `-l context … -r` line stops offering files and offers the contexts instead.
fn fish(generated: &str) -> String {
    let mut out = String::from(FISH);
    for line in generated.lines() {
        let ours = FLAGS.iter().any(|f| line.contains(&format!(" -l {f} ")));
        out.push_str(line);
        if ours {
            out.push_str(" -f -a '(__tsgnav_kube_contexts)'");
        }
        out.push('\n');
    }
    out
}

const BASH: &str = r#"# tsgnav: --context (and run's --confirm-target) complete the kubeconfig's contexts; a
# --kubeconfig typed earlier on the line is the kubeconfig read.
_tsgnav_kube_contexts() {
    local cur="${COMP_WORDS[COMP_CWORD]}" flag="${COMP_WORDS[COMP_CWORD-1]}" i kc=()
    if [[ "$flag" == "=" && $COMP_CWORD -ge 2 ]]; then
        flag="${COMP_WORDS[COMP_CWORD-2]}"
    elif [[ "$cur" == "=" ]]; then
        cur=""
    fi
    case "$flag" in
        --context|--confirm-target) ;;
        *) _tsgnav "$@"; return ;;
    esac
    for ((i = 1; i < COMP_CWORD - 1; i++)); do
        if [[ "${COMP_WORDS[i]}" == "--kubeconfig" ]]; then
            if [[ "${COMP_WORDS[i+1]}" == "=" ]]; then
                kc=(--kubeconfig "${COMP_WORDS[i+2]/#\~/$HOME}")
            else
                kc=(--kubeconfig "${COMP_WORDS[i+1]/#\~/$HOME}")
            fi
        fi
    done
    compopt +o default +o bashdefault 2>/dev/null
    local IFS=$'\n'
    COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" __complete-contexts "${kc[@]}" 2>/dev/null)" -- "$cur"))
}
if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _tsgnav_kube_contexts -o nosort -o bashdefault -o default tsgnav
else
    complete -F _tsgnav_kube_contexts -o bashdefault -o default tsgnav
fi
"#;

const ZSH: &str = r#"# tsgnav: --context (and run's --confirm-target) complete the kubeconfig's contexts; a
# --kubeconfig typed earlier on the line is the kubeconfig read.
_tsgnav_kube_contexts() {
    local -a kc ctxs
    local i
    for (( i = 2; i < CURRENT; i++ )); do
        case ${words[i]} in
            --kubeconfig) kc=(--kubeconfig ${~words[i+1]}) ;;
            --kubeconfig=*) kc=(--kubeconfig ${~${words[i]#--kubeconfig=}}) ;;
        esac
    done
    ctxs=(${(f)"$(${words[1]} __complete-contexts $kc 2>/dev/null)"})
    _wanted contexts expl 'kube context' compadd -a ctxs
}
"#;

const FISH: &str = r#"# tsgnav: --context (and run's --confirm-target) complete the kubeconfig's contexts; a
# --kubeconfig typed earlier on the line is the kubeconfig read.
function __tsgnav_kube_contexts
    set -l words (commandline -opc)
    set -l kc
    for i in (seq 2 (count $words))
        if test "$words[$i]" = --kubeconfig; and test $i -lt (count $words)
            set kc --kubeconfig $words[(math $i + 1)]
        else if string match -q -- '--kubeconfig=*' $words[$i]
            set kc --kubeconfig (string replace -- '--kubeconfig=' '' $words[$i])
        end
    end
    $words[1] __complete-contexts $kc 2>/dev/null
end
# clap's conditions parse the line with argparse, which fails on a flag still waiting for its
# value, so these two offer the contexts right after the flag whatever came before.
function __tsgnav_after_context_flag
    set -l words (commandline -opc)
    contains -- "$words[-1]" --context --confirm-target
    or string match -q -r -- '^--(context|confirm-target)=' (commandline -ct)
end
complete -c tsgnav -n __tsgnav_after_context_flag -l context -x -a '(__tsgnav_kube_contexts)'
complete -c tsgnav -n __tsgnav_after_context_flag -l confirm-target -x -a '(__tsgnav_kube_contexts)'
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zsh_and_fish_context_flags_get_the_completer_and_nothing_else_does() {
        let zsh_in = "#compdef tsgnav\n'--context=[The context]:NAME:_default' \\\n'--contexts=[A glob]:GLOB:_default' \\\n'--confirm-target=[Typed back]:CONTEXT:_default' \\\n";
        let z = zsh(zsh_in);
        assert!(
            z.contains("'--context=[The context]:NAME:_tsgnav_kube_contexts' \\"),
            "{z}"
        );
        assert!(z.contains("'--contexts=[A glob]:GLOB:_default' \\"), "{z}");
        assert!(z.contains(":CONTEXT:_tsgnav_kube_contexts' \\"), "{z}");
        assert!(z.starts_with("#compdef tsgnav\n# tsgnav:"), "{z}");
        let fish_in =
            "complete -c tsgnav -l context -d 'x' -r\ncomplete -c tsgnav -l contexts -d 'y' -r\n";
        let f = fish(fish_in);
        assert!(
            f.contains("-l context -d 'x' -r -f -a '(__tsgnav_kube_contexts)'"),
            "{f}"
        );
        assert!(f.contains("-l contexts -d 'y' -r\n"), "{f}");
    }
}
