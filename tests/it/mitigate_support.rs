//! Helpers for the mitigation tests: requests for one shell probe aimed at a kube context,
//! confirmations issued the way the mitigation flow issues them, and state reads through the
//! real kubectl.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use tsgnav::query::{Bindings, Confirmation, ProbeId, ProbeRequest, Target};
use tsgnav::tsg::{Lang, Probe};

pub const SESSION: &str = "test-session";

/// A shell request for `code` with `var=value`, aimed at `context`.
pub fn request(
    code: &str,
    var: &str,
    value: &str,
    context: &str,
    kubeconfig: Option<&Path>,
) -> ProbeRequest {
    let probe = Probe {
        info: "bash".into(),
        ..Probe::from_code(Lang::Shell, code)
    };
    let mut bindings = Bindings::new();
    bindings.insert(var.to_string(), value.to_string());
    ProbeRequest {
        id: ProbeId("mitigate-test.md#case/1".into()),
        lang: Lang::Shell,
        code: code.to_string(),
        bindings,
        assigns: Vec::new(),
        timeout: Duration::from_secs(60),
        target: Target {
            kube_context: Some(context.to_string()),
            kubeconfig: kubeconfig.map(Path::to_path_buf),
            ..Target::default()
        },
        class: tsgnav::safety::classify_probe(&probe),
        confirmation: None,
    }
}

/// A confirmation issued for `req` with one precondition acknowledged and `typed` typed back.
pub fn confirm(req: &ProbeRequest, typed: &str) -> Confirmation {
    let pre = vec!["the maintenance window has started".to_string()];
    tsgnav::query::issue(req, &pre, &[true], typed, SESSION).expect("issued")
}

/// kubectl's stdout (and stderr) for `args` against `kubeconfig`.
pub fn kubectl(kubectl: &Path, kubeconfig: &Path, args: &[&str]) -> String {
    let o = std::process::Command::new(kubectl)
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .env("HOME", kubeconfig.parent().unwrap_or(Path::new(".")))
        .output()
        .expect("kubectl runs");
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

pub fn executors(kubeconfig: &Path) -> Vec<std::sync::Arc<dyn tsgnav::query::Executor>> {
    tsgnav::query::setup::executors(&tsgnav::query::setup::Settings {
        kubeconfig: Some(PathBuf::from(kubeconfig)),
        ..Default::default()
    })
}
