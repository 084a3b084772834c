//! Rules for `curl` and `wget`: the method, a request body, and files written locally.
//!
//! Pure; imports only `crate::tsg`.

use super::args::{mutating, read_only, split, unknown, worse, Class};

/// Short curl flags that take a value.
const CURL_SHORT: &str = "HouAebcmwxXdFTKErCyYzUQtD";

fn curl_value_flag(flag: &str) -> bool {
    if let Some(c) = flag.strip_prefix('-').filter(|c| c.len() == 1) {
        return CURL_SHORT.contains(c);
    }
    matches!(
        flag,
        "--header"
            | "--output"
            | "--user"
            | "--request"
            | "--data"
            | "--data-raw"
            | "--data-binary"
            | "--data-urlencode"
            | "--data-ascii"
            | "--form"
            | "--form-string"
            | "--upload-file"
            | "--json"
            | "--url"
            | "--cookie"
            | "--cookie-jar"
            | "--max-time"
            | "--write-out"
            | "--connect-timeout"
            | "--retry"
            | "--config"
            | "--cacert"
            | "--cert"
            | "--key"
            | "--proxy"
            | "--resolve"
            | "--dump-header"
            | "--user-agent"
            | "--referer"
            | "--oauth2-bearer"
            | "--output-dir"
            | "--range"
            | "--retry-delay"
            | "--retry-max-time"
            | "--cert-type"
            | "--key-type"
            | "--capath"
            | "--interface"
            | "--aws-sigv4"
            | "--trace"
            | "--trace-ascii"
            | "--stderr"
            | "--libcurl"
            | "--etag-save"
            | "--hsts"
            | "--alt-svc"
            | "--variable"
            | "--request-target"
    )
}

const BODY_FLAGS: &[&str] = &[
    "-d",
    "--data",
    "--data-raw",
    "--data-binary",
    "--data-urlencode",
    "--data-ascii",
    "-F",
    "--form",
    "--form-string",
    "-T",
    "--upload-file",
    "--json",
];

/// Whether a file target is a real file (not stdout or the null device).
fn real_file(target: Option<&str>) -> bool {
    !matches!(
        target,
        None | Some("-" | "/dev/null" | "/dev/stdout" | "/dev/stderr")
    )
}

fn method_class(tool: &str, method: &str) -> Class {
    match method.to_ascii_uppercase().as_str() {
        "GET" | "HEAD" | "OPTIONS" => read_only(format!(
            "`{tool}` sends a `{method}` request, which only reads"
        )),
        "POST" | "PUT" | "PATCH" | "DELETE" => mutating(format!(
            "`{tool} -X {method}` sends a request that changes the server's state"
        )),
        _ => unknown(format!(
            "`{tool}` sends a `{method}` request, a method tsgnav does not know"
        )),
    }
}

/// `curl ARGS`.
pub(super) fn curl(args: &[String]) -> Class {
    let a = split(args, &curl_value_flag);
    if let Some((flag, _)) = a
        .flags
        .iter()
        .find(|(f, _)| matches!(f.as_str(), "-K" | "--config"))
    {
        return unknown(format!(
            "`curl {flag}` reads more options (method, body, output files) from a file tsgnav cannot check"
        ));
    }
    let override_method = a
        .flags
        .iter()
        .filter(|(f, _)| matches!(f.as_str(), "-H" | "--header"))
        .filter_map(|(_, v)| v.and_then(|h| h.split_once(':')))
        .find(|(name, _)| {
            let n = name.trim().to_ascii_lowercase();
            matches!(
                n.as_str(),
                "x-http-method-override" | "x-http-method" | "x-method-override"
            )
        })
        .map(|(_, m)| m.trim());
    if let Some(m) = override_method {
        let class = method_class("curl", m);
        if class.0 != crate::tsg::SafetyClass::ReadOnly {
            return match class.0 {
                crate::tsg::SafetyClass::Mutating => mutating(format!(
                    "`curl` asks the server to treat the request as `{m}` (a method-override header), which changes its state"
                )),
                _ => class,
            };
        }
    }
    let body = a
        .flags
        .iter()
        .find(|(f, _)| BODY_FLAGS.contains(&f.as_str()));
    let as_get = a.has(&["-G", "--get"]);
    let mut class = match (a.value(&["-X", "--request"]), body) {
        (Some(m), _) => method_class("curl", m),
        (None, Some((flag, _))) if !as_get => mutating(format!(
            "`curl {flag}` sends a request body (a POST), which changes the server's state"
        )),
        _ => read_only("`curl` sends a GET request, which only reads"),
    };
    if a.has(&["-I", "--head"]) && class.0 == crate::tsg::SafetyClass::ReadOnly {
        class = read_only("`curl -I` sends a HEAD request, which only reads");
    }
    const WRITES: &[&str] = &[
        "-o",
        "--output",
        "-c",
        "--cookie-jar",
        "-D",
        "--dump-header",
        "--trace",
        "--trace-ascii",
        "--stderr",
        "--libcurl",
        "--etag-save",
        "--hsts",
        "--alt-svc",
    ];
    for (flag, out) in a.flags.iter().filter(|(f, _)| WRITES.contains(&f.as_str())) {
        if real_file(*out) {
            let file = out.unwrap_or_default();
            class = worse(
                class,
                mutating(format!("`curl {flag}` writes the file `{file}`")),
            );
        }
    }
    if a.has(&["-O", "--remote-name", "--remote-name-all", "-J"]) {
        class = worse(
            class,
            mutating("`curl -O` saves the response into a local file"),
        );
    }
    class
}

/// `wget ARGS`.
pub(super) fn wget(args: &[String]) -> Class {
    let a = split(args, &|f| {
        matches!(
            f,
            "-O" | "--output-document"
                | "--method"
                | "--body-data"
                | "--body-file"
                | "--post-data"
                | "--post-file"
                | "--header"
                | "-P"
                | "--directory-prefix"
                | "-o"
                | "--output-file"
                | "-T"
                | "--timeout"
                | "-t"
                | "--tries"
                | "-U"
                | "--user-agent"
                | "--user"
                | "--password"
        )
    });
    if let Some(m) = a.value(&["--method"]) {
        let class = method_class("wget", m);
        if class.0 != crate::tsg::SafetyClass::ReadOnly {
            return class;
        }
    }
    if let Some((flag, _)) = a
        .flags
        .iter()
        .find(|(f, _)| f.starts_with("--post-") || f.starts_with("--body-"))
    {
        return mutating(format!(
            "`wget {flag}` sends a request body, which changes the server's state"
        ));
    }
    if a.has(&["--spider"])
        || !real_file(a.value(&["-O", "--output-document"])) && a.has(&["-O", "--output-document"])
    {
        return read_only("`wget` prints the response or only checks the URL");
    }
    mutating("`wget` saves the download into a local file")
}
