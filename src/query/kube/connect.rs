//! The client stack of one context's API server, built so that a fleet of contexts does not
//! pay for TLS per context: kube-rs's default stack builds a rustls `ClientConfig` (and, with
//! no `certificate-authority` in the kubeconfig, loads the system's root store) for every
//! client, which in a wave run over hundreds of contexts was a quarter of tsgnav's own time.
//! Here a plain `http://` server (a port-forward, the simulator) gets no TLS configuration at
//! all, and an `https://` server gets the `ClientConfig` of its server identity (the CA it is
//! checked against, whether checks are skipped, the client certificate and key) built once
//! per session and shared; the layers on top are kube-rs's own (base URI, credentials, extra
//! headers such as impersonation). A context whose exec plugin or proxy settings shape TLS
//! gets kube-rs's default stack, as before.
//!
//! IO edge (reads certificate files through kube-rs). Must not import `cli`, `tui`, `nav` or
//! `evidence`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hyper_util::client::legacy::connect::HttpConnector;
use kube::client::ConfigExt;

/// A client for `config`: no TLS for `http://`, the shared TLS configuration of its server
/// identity for `https://`, kube-rs's default stack when an exec plugin or a proxy is set.
/// No retries; the connect, read and write timeouts `config` says, as kube-rs's own stack.
pub fn client(config: kube::Config) -> kube::Result<kube::Client> {
    let plain = config.cluster_url.scheme_str() == Some("http");
    if config.proxy_url.is_some() || (!plain && config.auth_info.exec.is_some()) {
        return kube::Client::try_from(config);
    }
    let mut http = HttpConnector::new();
    http.set_connect_timeout(config.connect_timeout);
    http.enforce_http(plain);
    match plain {
        true => stack(&config, http),
        false => {
            let mut builder = hyper_rustls::HttpsConnectorBuilder::new()
                .with_tls_config(tls_config(&config)?)
                .https_or_http();
            if let Some(name) = &config.tls_server_name {
                // A name rustls refuses: kube-rs's own stack says why.
                let Ok(name) = rustls::pki_types::ServerName::try_from(name.clone()) else {
                    return kube::Client::try_from(config);
                };
                let fixed = hyper_rustls::FixedServerNameResolver::new(name);
                builder = builder.with_server_name_resolver(fixed);
            }
            stack(&config, builder.enable_http1().wrap_connector(http))
        }
    }
}

/// kube-rs's layers (base URI, credentials, extra headers) over `connector`.
fn stack<C>(config: &kube::Config, connector: C) -> kube::Result<kube::Client>
where
    C: tower::Service<hyper::Uri> + Clone + Send + Sync + 'static,
    C::Response: hyper::rt::Read
        + hyper::rt::Write
        + hyper_util::client::legacy::connect::Connection
        + Send
        + Unpin,
    C::Future: Send + 'static,
    C::Error: Into<tower::BoxError>,
{
    // The timeouts kube-rs's own stack sets: a server that stops answering fails the request.
    let mut connector = hyper_timeout::TimeoutConnector::new(connector);
    connector.set_connect_timeout(config.connect_timeout);
    connector.set_read_timeout(config.read_timeout);
    connector.set_write_timeout(config.write_timeout);
    connector.set_reset_reader_on_write(config.reset_reader_on_write);
    let hyper = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build::<_, kube::client::Body>(connector);
    let service = tower::ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(config.auth_layer()?)
        .layer(config.extra_headers_layer()?)
        .map_err(tower::BoxError::from)
        .service(hyper);
    Ok(kube::Client::new(service, config.default_namespace.clone()))
}

/// The server identity a TLS configuration depends on, as a digest (the client key is never
/// kept, only hashed): the CA certificates or CA file, whether checks are skipped, the client
/// certificate and key (data, or files with their size and modification time).
fn identity(config: &kube::Config) -> String {
    use sha2::Digest;
    let a = &config.auth_info;
    let file = |p: &Option<String>| {
        p.as_ref().map(|p| {
            let m = std::fs::metadata(p).ok();
            let len = m.as_ref().map(std::fs::Metadata::len);
            (p.clone(), len, m.and_then(|m| m.modified().ok()))
        })
    };
    // The client identity alone (kube-rs serialises the key data as written).
    let client = kube::config::AuthInfo {
        client_certificate: a.client_certificate.clone(),
        client_certificate_data: a.client_certificate_data.clone(),
        client_key: a.client_key.clone(),
        client_key_data: a.client_key_data.clone(),
        ..Default::default()
    };
    let mut h = sha2::Sha256::new();
    h.update(format!(
        "{:?}\0{:?}\0{}\0{}\0{:?}\0{:?}",
        config.root_cert,
        config.root_cert_file,
        config.accept_invalid_certs,
        serde_json::to_string(&client).unwrap_or_default(),
        file(&a.client_certificate),
        file(&a.client_key),
    ));
    hex::encode(h.finalize())
}

static SHARED: Mutex<Option<HashMap<String, Arc<rustls::ClientConfig>>>> = Mutex::new(None);

/// The session's TLS configuration for `config`'s server identity, built on first use.
fn tls_config(config: &kube::Config) -> kube::Result<rustls::ClientConfig> {
    shared_tls(config).map(|c| rustls::ClientConfig::clone(&c))
}

fn shared_tls(config: &kube::Config) -> kube::Result<Arc<rustls::ClientConfig>> {
    let key = identity(config);
    let lock = || SHARED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = lock().get_or_insert_with(HashMap::new).get(&key) {
        return Ok(c.clone());
    }
    super::client::install_crypto();
    let built = Arc::new(config.rustls_client_config()?);
    let mut shared = lock();
    let kept = shared.get_or_insert_with(HashMap::new).entry(key);
    Ok(kept.or_insert(built).clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn https(url: &str) -> kube::Config {
        kube::Config::new(url.parse().expect("url"))
    }

    #[test]
    fn contexts_of_one_server_identity_share_one_tls_configuration() {
        let a = shared_tls(&https("https://mc-a.example:443")).expect("tls");
        let b = shared_tls(&https("https://mc-b.example:443")).expect("tls");
        assert!(
            Arc::ptr_eq(&a, &b),
            "same CA (the system's), same client: one config"
        );
        let mut lax = https("https://mc-c.example:443");
        lax.accept_invalid_certs = true;
        let c = shared_tls(&lax).expect("tls");
        assert!(!Arc::ptr_eq(&a, &c), "skipping checks is another identity");
        let mut cert = https("https://mc-d.example:443");
        cert.auth_info.client_certificate = Some("/nonexistent/tsgnav-client.crt".into());
        assert_ne!(
            identity(&cert),
            identity(&https("https://mc-d.example:443"))
        );
    }

    #[test]
    fn two_users_of_one_server_never_share_a_client_identity() {
        // One kubeconfig, one CA, two users whose certificates are inline and whose keys
        // differ: sharing a TLS configuration would let a probe for one context present the
        // other's certificate. The key is secret in kube-rs's types; the digest must still
        // tell the two apart.
        let user = |key: &str| {
            let mut c = https("https://mc-shared.example:443");
            c.root_cert = Some(vec![b"ca".to_vec()]);
            c.auth_info.client_certificate_data = Some("Y2VydA==".into());
            c.auth_info.client_key_data = Some(key.to_string().into());
            c
        };
        assert_ne!(identity(&user("a2V5LWE=")), identity(&user("a2V5LWI=")));
        assert_eq!(identity(&user("a2V5LWE=")), identity(&user("a2V5LWE=")));
        let mut other_cert = user("a2V5LWE=");
        other_cert.auth_info.client_certificate_data = Some("Y2VydC1i".into());
        assert_ne!(identity(&other_cert), identity(&user("a2V5LWE=")));
    }

    #[tokio::test]
    async fn a_plain_http_server_gets_a_client_without_tls() {
        // No CA can be loaded for this config (the file is missing): a TLS stack would fail.
        let mut c = https("http://127.0.0.1:9");
        c.root_cert_file = Some("/nonexistent/tsgnav-ca.crt".into());
        assert!(client(c.clone()).is_ok());
        c.cluster_url = "https://127.0.0.1:9".parse().expect("url");
        assert!(client(c).is_err(), "the https twin must need its CA");
    }
}
