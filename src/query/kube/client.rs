//! The IO edge of the native kube backend: builds a kube-rs client for one kubeconfig
//! context, resolves a resource name as kubectl does (plural, singular, kind or short name,
//! optionally `name.group`) through API discovery, and sends list/get requests built with
//! kube-rs's sans-IO `Request`, mapping every failure to a [`KubeError`] naming the request.

use std::path::Path;
use std::time::Duration;

use axum::http::HeaderValue;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::core::params::{GetParams, ListParams};
use kube::core::Request;
use serde_json::Value;

use super::error::{KubeError, ReqInfo};
use super::resolve::{find, segment, well_known, Resolved};

/// A connection to one context's API server.
#[derive(Clone)]
pub struct KubeClient {
    client: kube::Client,
    pub server: String,
    pub default_ns: String,
    pub timeout: Duration,
    /// Decides each request before it is sent (the read-only proxy's policy, when the client
    /// is the session proxy's upstream one); a refusal is answered as the API's 403.
    guard: Option<Guard>,
}

/// A request's method, path, query and body → sent, or the refusal's message. It is given the
/// request as it will be sent: a DELETE's options are read from its body when it has one.
pub type Guard =
    std::sync::Arc<dyn Fn(&str, &str, &str, &[u8]) -> Result<(), String> + Send + Sync>;

/// Installs rustls's ring provider once; "already installed" is fine.
pub fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Reads a kubeconfig file, or a `KUBECONFIG`-style list (`/a:/b`) merged with kubectl's
/// rules: files that do not exist are skipped, the first file to set a value or name wins
/// (so the first `current-context` is the default). Parsed once while the files stay as
/// they are ([`super::kubeconfigs::shared`], which callers that only read it use directly).
pub fn read_kubeconfig(path: &Path) -> Result<Kubeconfig, KubeError> {
    super::kubeconfigs::shared(path).map(|k| (*k).clone())
}

/// [`read_kubeconfig`] from the files themselves.
pub(super) fn parse_kubeconfig(path: &Path) -> Result<Kubeconfig, KubeError> {
    let err = |p: &Path, detail: String| KubeError::Kubeconfig {
        path: p.display().to_string(),
        detail,
    };
    let files: Vec<std::path::PathBuf> = std::env::split_paths(path.as_os_str())
        .filter(|p| !p.as_os_str().is_empty())
        .collect();
    if files.len() <= 1 {
        return Kubeconfig::read_from(path).map_err(|e| err(path, e.to_string()));
    }
    let present: Vec<&std::path::PathBuf> = files.iter().filter(|p| p.exists()).collect();
    if present.is_empty() {
        return Err(err(path, "none of the listed files exists".into()));
    }
    present
        .into_iter()
        .try_fold(Kubeconfig::default(), |merged, p| {
            let kc = Kubeconfig::read_from(p).map_err(|e| err(p, e.to_string()))?;
            merged.merge(kc).map_err(|e| err(p, e.to_string()))
        })
}

/// The part of `kc` one context needs (its context, cluster and user): loading a config from
/// a kubeconfig with hundreds of contexts would otherwise cost as much per context.
pub(crate) fn only(kc: &Kubeconfig, context: Option<&str>) -> Kubeconfig {
    let Some(name) = context.or(kc.current_context.as_deref()) else {
        return kc.clone();
    };
    let Some(ctx) = kc.contexts.iter().find(|c| c.name == name) else {
        return kc.clone();
    };
    let (cluster, user) = match &ctx.context {
        Some(c) => (c.cluster.clone(), c.user.clone()),
        None => return kc.clone(),
    };
    Kubeconfig {
        clusters: kc
            .clusters
            .iter()
            .filter(|c| c.name == cluster)
            .cloned()
            .collect(),
        auth_infos: kc
            .auth_infos
            .iter()
            .filter(|a| Some(&a.name) == user.as_ref())
            .cloned()
            .collect(),
        contexts: vec![ctx.clone()],
        current_context: Some(name.to_string()),
        preferences: kc.preferences.clone(),
        extensions: kc.extensions.clone(),
        kind: kc.kind.clone(),
        api_version: kc.api_version.clone(),
        ..Kubeconfig::default()
    }
}

impl KubeClient {
    /// A client for `context` (the current context when `None`) of `kc`, read from `path`.
    pub async fn new(
        kc: &Kubeconfig,
        path: &Path,
        context: Option<&str>,
        timeout: Duration,
    ) -> Result<Self, KubeError> {
        install_crypto();
        if let Some(ctx) = context {
            if !kc.contexts.iter().any(|c| c.name == ctx) {
                let known: Vec<&str> = kc
                    .contexts
                    .iter()
                    .map(|c| c.name.as_str())
                    .take(10)
                    .collect();
                return Err(KubeError::Kubeconfig {
                    path: path.display().to_string(),
                    detail: format!(
                        "no context named {ctx:?} (contexts there: {})",
                        known.join(", ")
                    ),
                });
            }
        }
        let opts = KubeConfigOptions {
            context: context.map(String::from),
            ..Default::default()
        };
        let mut config = kube::Config::from_custom_kubeconfig(only(kc, context), &opts)
            .await
            .map_err(|e| KubeError::Kubeconfig {
                path: path.display().to_string(),
                detail: e.to_string(),
            })?;
        config.connect_timeout = Some(timeout);
        let server = config
            .cluster_url
            .to_string()
            .trim_end_matches('/')
            .to_string();
        let default_ns = config.default_namespace.clone();
        let client = super::connect::client(config).map_err(|e| KubeError::Connect {
            server: server.clone(),
            detail: e.to_string(),
        })?;
        Ok(KubeClient {
            client,
            server,
            default_ns,
            timeout,
            guard: None,
        })
    }

    /// A client on an existing kube client (`server` its API server's URL), each request
    /// decided by `guard` before it is sent.
    pub fn guarded(
        client: kube::Client,
        server: String,
        default_ns: String,
        timeout: Duration,
        guard: Guard,
    ) -> Self {
        KubeClient {
            client,
            server: server.trim_end_matches('/').to_string(),
            default_ns,
            timeout,
            guard: Some(guard),
        }
    }

    /// The kube-rs client (for streaming calls such as port-forward).
    pub fn kube(&self) -> &kube::Client {
        &self.client
    }

    /// Sends a request and reads a JSON answer.
    pub async fn send(
        &self,
        mut req: axum::http::Request<Vec<u8>>,
        table: bool,
    ) -> Result<Value, KubeError> {
        let info = ReqInfo {
            server: self.server.clone(),
            method: req.method().to_string(),
            path: req.uri().path().to_string(),
        };
        if let Some(guard) = &self.guard {
            let query = req.uri().query().unwrap_or("");
            if let Err(message) = guard(&info.method, &info.path, query, req.body()) {
                return Err(KubeError::Api {
                    server: info.server,
                    code: 403,
                    reason: "Forbidden".into(),
                    method: info.method,
                    path: info.path,
                    message,
                });
            }
        }
        if table {
            req.headers_mut().insert(
                "accept",
                HeaderValue::from_static(
                    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
                ),
            );
        }
        let fut = self.client.request_text(req);
        let text = match tokio::time::timeout(self.timeout, fut).await {
            Err(_) => {
                return Err(KubeError::Timeout {
                    server: info.server,
                    method: info.method,
                    path: info.path,
                    after: self.timeout,
                })
            }
            Ok(Err(e)) => return Err(KubeError::from_kube(&e, &info, self.timeout)),
            Ok(Ok(t)) => t,
        };
        serde_json::from_str(&text).map_err(|e| KubeError::BadResponse {
            server: info.server,
            method: info.method,
            path: info.path,
            detail: format!("{e} (the response has {} bytes)", text.len()),
        })
    }

    async fn get_path(&self, path: &str) -> Result<Value, KubeError> {
        let req = axum::http::Request::get(path)
            .body(Vec::new())
            .map_err(|e| KubeError::Usage(e.to_string()))?;
        self.send(req, false).await
    }

    /// Resolves `name` (`pods`, `po`, `pod`, `Pod`, `mtpnc`, `deployments.apps`) by discovery.
    pub async fn resolve(&self, name: &str) -> Result<Resolved, KubeError> {
        let lower = name.to_lowercase();
        let (want, group_hint) = match lower.split_once('.') {
            Some((n, g)) => (n.to_string(), Some(g.to_string())),
            None => (lower.clone(), None),
        };
        if let Some(r) = well_known(&want, group_hint.as_deref()) {
            return Ok(r);
        }
        let mut checked = Vec::new();
        if group_hint.is_none() {
            let core = self.get_path("/api/v1").await?;
            checked.push("/api/v1".to_string());
            if let Some(r) = find(&core, &want, "", "v1") {
                return Ok(r);
            }
        }
        let groups = self.get_path("/apis").await?;
        for g in groups["groups"].as_array().into_iter().flatten() {
            let gname = g["name"].as_str().unwrap_or("");
            if group_hint.as_deref().is_some_and(|h| h != gname) {
                continue;
            }
            let Some(gv) = g["preferredVersion"]["groupVersion"].as_str() else {
                continue;
            };
            let version = gv.rsplit('/').next().unwrap_or("");
            let list = self.get_path(&format!("/apis/{gv}")).await?;
            checked.push(format!("/apis/{gv}"));
            if let Some(r) = find(&list, &want, gname, version) {
                return Ok(r);
            }
        }
        Err(KubeError::UnknownResource {
            server: self.server.clone(),
            resource: name.to_string(),
            checked: format!("{} API group versions", checked.len()),
        })
    }

    /// Lists `r` in `ns` (`None`: all namespaces); `table` asks for the server-side table.
    pub async fn list(
        &self,
        r: &Resolved,
        ns: Option<&str>,
        labels: Option<&str>,
        fields: Option<&str>,
        table: bool,
    ) -> Result<Value, KubeError> {
        let mut lp = ListParams::default();
        if let Some(l) = labels {
            lp = lp.labels(l);
        }
        if let Some(f) = fields {
            lp = lp.fields(f);
        }
        let mut req = Request::new(r.path(ns))
            .list(&lp)
            .map_err(|e| KubeError::Usage(e.to_string()))?;
        if table {
            with_include_object(&mut req);
        }
        self.send(req, table).await
    }

    /// Gets one object (or its table form).
    pub async fn get(
        &self,
        r: &Resolved,
        ns: Option<&str>,
        name: &str,
        table: bool,
    ) -> Result<Value, KubeError> {
        let mut req = Request::new(r.path(ns))
            .get(&segment(name), &GetParams::default())
            .map_err(|e| KubeError::Usage(e.to_string()))?;
        if table {
            with_include_object(&mut req);
        }
        self.send(req, table).await
    }
}

fn with_include_object(req: &mut axum::http::Request<Vec<u8>>) {
    let uri = req.uri().to_string();
    let sep = if uri.contains('?') { '&' } else { '?' };
    if let Ok(u) = format!("{uri}{sep}includeObject=Object").parse() {
        *req.uri_mut() = u;
    }
}
