//! Redaction by structure: secrets found by where they stand (a key, attribute, header, flag or
//! query parameter that names a secret; a name/value pair; a Key Vault or ARM secret object; a
//! label with the value below it), in each family of output, with values that start with `[`,
//! hold spaces or commas. Each case is small and made up here; each asserts the secret is gone
//! and the structure around it stays.

use tsgnav::evidence::{value_is_secret, Redactor};

/// (family, text, secrets that must be gone, words that must stay)
pub(crate) type Case = (&'static str, String, Vec<&'static str>, Vec<&'static str>);

pub(crate) fn cases() -> Vec<Case> {
    let esc = "\u{1b}";
    vec![
        ("json", r#"{"user": "ops", "password": "[oncall] pass, word"}"#.into(), vec!["[oncall] pass, word"], vec!["\"user\": \"ops\"", "password"]),
        ("json pretty", "{\n  \"clientSecret\": \"two words here\",\n  \"clientId\": \"app-1\"\n}\n".into(), vec!["two words here"], vec!["app-1"]),
        ("jq colour", format!("{esc}[1;39m{{\n  {esc}[0m{esc}[34;1m\"dbPassword\"{esc}[0m{esc}[1;39m:{esc}[0;32m\"Colou red-9\"{esc}[0m\n}}"), vec!["Colou red-9"], vec!["dbPassword"]),
        ("json \\u key", r#"{"pass\u0077ord": "escaped-key-val"}"#.into(), vec!["escaped-key-val"], vec![]),
        ("json env pair", r#"{"env":[{"name":"DB_PASSWORD","value":"pair-json-v4l"},{"name":"LOG_LEVEL","value":"debug"}]}"#.into(), vec!["pair-json-v4l"], vec!["debug", "LOG_LEVEL"]),
        ("key vault", "{\n  \"attributes\": {\"enabled\": true},\n  \"id\": \"https://ops-kv.vault.azure.net/secrets/sql-admin/0a1b2c\",\n  \"name\": \"sql-admin\",\n  \"value\": \"kv secret, with comma\"\n}\n".into(), vec!["kv secret, with comma"], vec!["sql-admin"]),
        ("cosmos keys", r#"{"primaryMasterKey": "cosmosPrimary0123456789==", "primaryReadonlyMasterKey": "cosmosRo0123==", "secondaryMasterKey": "cosmosSecond987=="}"#.into(), vec!["cosmosPrimary0123456789==", "cosmosRo0123==", "cosmosSecond987=="], vec!["primaryMasterKey"]),
        ("service bus", r#"{"keyName": "RootManageSharedAccessKey", "primaryKey": "sbPrimaryKeyValue1=", "secondaryKey": "sbSecondaryKey2=", "primaryConnectionString": "Endpoint=sb://ops.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=sbConn3="}"#.into(), vec!["sbPrimaryKeyValue1=", "sbSecondaryKey2=", "sbConn3="], vec!["RootManageSharedAccessKey"]),
        ("acr", r#"{"passwords": [{"name": "password", "value": "acrPw1-value"}, {"name": "password2", "value": "acrPw2-value"}], "username": "opsregistry"}"#.into(), vec!["acrPw1-value", "acrPw2-value"], vec!["opsregistry"]),
        ("arm securestring", "{\n  \"parameters\": {\n    \"adminLogin\": {\"type\": \"String\", \"value\": \"sqladmin\"},\n    \"adminSecret\": {\"type\": \"SecureString\", \"value\": \"arm secure v\"}\n  }\n}".into(), vec!["arm secure v"], vec!["sqladmin"]),
        ("publishing", r#"[{"publishingUserName": "$ops-app", "publishingPassword": "pubPw-Zx9"}]"#.into(), vec!["pubPw-Zx9"], vec!["$ops-app"]),
        ("yaml block", "auth:\n  password: |\n    line one of it\n    line two\n  user: ops\n".into(), vec!["line one of it", "line two"], vec!["user: ops"]),
        ("yaml env pair", "    env:\n    - name: API_TOKEN\n      value: yaml-pair-t0k\n    - name: MODE\n      value: fast\n".into(), vec!["yaml-pair-t0k"], vec!["value: fast"]),
        ("yaml spaces", "db:\n  host: sql.internal\n  password: has spaces, and commas\n".into(), vec!["has spaces, and commas"], vec!["sql.internal"]),
        ("env file", "DB_HOST=sql.internal\nexport DB_PASS=\"env quoted v\"\nREDIS_AUTH=r3dis-auth\n".into(), vec!["env quoted v", "r3dis-auth"], vec!["DB_HOST=sql.internal"]),
        ("ini", "[database]\nhost = sql.internal\npassword = ini pw value\n".into(), vec!["ini pw value"], vec!["[database]", "host = sql.internal"]),
        ("netrc", "machine api.ops.example login svc password netrcPw-1\n".into(), vec!["netrcPw-1"], vec!["machine api.ops.example login svc"]),
        ("netrc lines", "machine git.ops.example\n  login bot\n  password netrcPw-2\n".into(), vec!["netrcPw-2"], vec!["login bot"]),
        ("pgpass", "sql.internal:5432:orders:reporter:pgPass-77\n".into(), vec!["pgPass-77"], vec!["sql.internal:5432:orders:reporter:"]),
        ("xml attribute", r#"<publishProfile profileName="ops - Web Deploy" userName="$ops" userPWD="xmlPwd-42" destinationAppUrl="https://ops.azurewebsites.net" />"#.into(), vec!["xmlPwd-42"], vec!["profileName=\"ops - Web Deploy\""]),
        ("xml element", "<config><Password>element pw</Password><User>ops</User></config>".into(), vec!["element pw"], vec!["<User>ops</User>"]),
        ("xml appSettings", r#"<add key="StorageSecret" value="appset-v4l" />"#.into(), vec!["appset-v4l"], vec!["StorageSecret"]),
        ("url code", "GET https://ops-fn.azurewebsites.net/api/health?code=fnCodeQ1w2e3&name=x".into(), vec!["fnCodeQ1w2e3"], vec!["name=x"]),
        ("url routing key", "https://events.example/v2/enqueue?routing_key=pdRouteKey0123&severity=critical".into(), vec!["pdRouteKey0123"], vec!["severity=critical"]),
        ("header apim", "Ocp-Apim-Subscription-Key: apimKey0a1b2c3d\nContent-Type: application/json\n".into(), vec!["apimKey0a1b2c3d"], vec!["Content-Type: application/json"]),
        ("header x-api-key", "X-Api-Key: xApiKey-998877\n".into(), vec!["xApiKey-998877"], vec!["X-Api-Key"]),
        ("curl header", "curl -s -H 'X-Vault-Token: vaultHdr-55' https://vault.internal/v1/sys/health".into(), vec!["vaultHdr-55"], vec!["https://vault.internal/v1/sys/health"]),
        ("mysql -p", "mysql -h sql.internal -u ops -pMyPw0rd-1 orders".into(), vec!["MyPw0rd-1"], vec!["-u ops"]),
        ("curl -u", "curl -u ops:curlPw-2 https://api.internal/status".into(), vec!["curlPw-2"], vec!["https://api.internal/status"]),
        ("sshpass", "sshpass -p sshPw-3 ssh ops@bastion".into(), vec!["sshPw-3"], vec!["ssh ops@bastion"]),
        ("openssl passin", "openssl pkcs12 -in cert.pfx -passin pass:pfxPw-4 -nokeys".into(), vec!["pfxPw-4"], vec!["-nokeys"]),
        ("long flag", "az sql server create --admin-password=flagPw-5 --name ops".into(), vec!["flagPw-5"], vec!["--name ops"]),
        ("label then value", "Your new password:\n  LabelVal-123\nDone.\n".into(), vec!["LabelVal-123"], vec!["Done."]),
        ("connection string", "Server=tcp:sql.internal,1433;Database=orders;User ID=ops;Password=conn pw, 1;Encrypt=True".into(), vec!["conn pw, 1"], vec!["Database=orders"]),
        ("entropy value", "- name: CONN\n  value: Qm9ndXNWYWx1ZTEyMzQ1Njc4OTBhYmNkZWZn\n".into(), vec!["Qm9ndXNWYWx1ZTEyMzQ1Njc4OTBhYmNkZWZn"], vec!["name: CONN"]),
    ]
}

#[test]
fn secrets_are_found_by_structure_in_every_family() {
    let r = Redactor::default();
    let mut failures = Vec::new();
    for (family, text, secrets, keep) in cases() {
        let (got, n) = r.redact_str(&text);
        for s in &secrets {
            if got.contains(s) {
                failures.push(format!("{family}: `{s}` leaked in {got:?}"));
            }
        }
        for k in &keep {
            if !got.contains(k) {
                failures.push(format!("{family}: `{k}` was lost in {got:?}"));
            }
        }
        if n == 0 {
            failures.push(format!("{family}: no redaction counted"));
        }
        if r.redact_str(&got).0 != got {
            failures.push(format!("{family}: not idempotent: {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn names_that_describe_a_secret_keep_their_values() {
    let r = Redactor::default();
    for text in [
        "keyName: RootManageSharedAccessKey",
        "secretName: ops-tls",
        "tolerations:\n- key: node-role.kubernetes.io/control-plane\n  operator: Exists\n",
        "    secretKeyRef:\n      name: db-creds\n      key: username\n",
        "tokenUrl: https://login.example/oauth2/token",
        r#"{"publicKey": "ssh-ed25519 AAAAC3Nza", "keyVaultName": "ops-kv"}"#,
        "Type:  kubernetes.io/service-account-token",
    ] {
        let (got, n) = r.redact_str(text);
        assert_eq!((got.as_str(), n), (text, 0), "{text}");
    }
}

#[test]
fn a_value_alone_is_judged_by_itself() {
    for secret in [
        "Server=sql.internal;Database=orders;Password=pw with space",
        "Endpoint=sb://ops.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=Zm9vYmFy",
        "Qm9ndXNWYWx1ZTEyMzQ1Njc4OTBhYmNkZWZn",
        "hvs.CAESIJq1mZ8x2Tb6kN0pQ4sRw3vLfHd9yUe7",
    ] {
        assert!(value_is_secret(secret), "{secret}");
    }
    for plain in [
        "westus3",
        "aks-mgmt-westus3",
        "kube-system",
        "3",
        "ingress-nginx-controller-7d9f8c6b5-x2x7q",
    ] {
        assert!(!value_is_secret(plain), "{plain}");
    }
}

/// Ordinary outputs (`tests/fixtures/ordinary/`: pod tables and YAML with hashes, UIDs, image
/// digests and resourceVersions, a node description, events, logs, Prometheus and Kusto JSON,
/// az JSON without secrets): at least 99% of their words survive redaction unchanged.
#[test]
fn ordinary_outputs_keep_at_least_99_percent_of_their_words() {
    let r = Redactor::default();
    let dir = crate::common::root().join("tests/fixtures/ordinary");
    let (mut total, mut kept) = (0usize, 0usize);
    let mut lost = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .collect();
    names.sort();
    assert!(names.len() >= 8, "{names:?}");
    for path in names {
        let text = std::fs::read_to_string(&path).expect("read");
        let (got, _) = r.redact_str(&text);
        let mut after: std::collections::HashMap<&str, usize> = Default::default();
        for w in got.split_whitespace() {
            *after.entry(w).or_default() += 1;
        }
        for w in text.split_whitespace() {
            total += 1;
            match after.get_mut(w) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    kept += 1;
                }
                _ => lost.push(format!("{}: {w}", path.display())),
            }
        }
    }
    let share = kept as f64 / total as f64;
    eprintln!(
        "over-redaction bound: {kept} of {total} words kept ({:.2}%); lost: {lost:#?}",
        share * 100.0
    );
    assert!(share >= 0.99, "{:.2}% kept; lost: {lost:#?}", share * 100.0);
}
