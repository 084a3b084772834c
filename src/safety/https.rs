//! Read-only "by the classifier only": probes whose read-only class rests on the classifier
//! alone, because what they send travels inside TLS through the egress proxy's CONNECT
//! tunnel, where the method is not visible (the Kubernetes API proxy, by contrast, sees and
//! checks every request). `az`, curl/wget/httpie to `https://`, `openssl s_client`, `gh api`.
//!
//! Pure; imports only `crate::tsg`.

use crate::tsg::shell::{self, basename};

/// Why the script's read-only class rests on the classifier only (the first such command),
/// or `None` when every command of it is checked by a proxy or stays on the machine.
pub fn classifier_only(script: &str) -> Option<String> {
    shell::commands(script).iter().find_map(|c| {
        let name = c.words.first().map(|w| basename(w))?;
        let https = c.words.iter().any(|w| w.starts_with("https://"));
        let why = match name {
            "az" => "`az` calls Azure's HTTPS API",
            "curl" | "wget" | "http" | "https" | "xh" if https => "it calls an https:// URL",
            "openssl" if c.words.get(1).is_some_and(|w| w == "s_client") => {
                "`openssl s_client` opens a TLS connection"
            }
            "gh" if c.words.get(1).is_some_and(|w| w == "api") => {
                "`gh api` calls GitHub's HTTPS API"
            }
            _ => return None,
        };
        Some(format!(
            "{why}, whose requests tsgnav cannot see inside TLS; read-only by the classifier only"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::classifier_only;

    #[test]
    fn tls_clients_are_read_only_by_the_classifier_only() {
        for s in [
            "az aks show -g rg -n c",
            "curl -s https://api.example/v1/x | jq .",
            "x=$(wget -qO- https://api.example/)",
            "echo | openssl s_client -connect h:443",
            "gh api repos/o/r",
            "http GET https://api.example/",
        ] {
            assert!(classifier_only(s).is_some(), "{s}");
        }
        for s in [
            "curl -s http://127.0.0.1:9090/api/v1/query",
            "kubectl get pods",
            "echo https://example.org",
            "openssl x509 -in c.pem -noout -text",
        ] {
            assert_eq!(classifier_only(s), None, "{s}");
        }
    }
}
