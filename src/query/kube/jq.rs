//! PURE `| jq …` after a native `kubectl get -o json`, run with jaq (a jq in Rust): the
//! options guides use (`-r`, `-c`, `--arg NAME VALUE`) and one filter. `halt` and input
//! functions are refused rather than allowed to stop the process.
//!
//! No IO; imports only the jaq crates and serde_json.

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{data, Compiler, Ctx, Vars};
use jaq_json::{read, write, Val};

/// A parsed `jq` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jq {
    pub filter: String,
    pub raw: bool,
    pub compact: bool,
    /// `--arg NAME VALUE`, in order.
    pub args: Vec<(String, String)>,
}

/// Parses the words of a `jq` command (starting with `jq`).
pub fn parse(words: &[String]) -> Result<Jq, String> {
    let mut jq = Jq {
        filter: String::new(),
        raw: false,
        compact: false,
        args: Vec::new(),
    };
    let mut filter = None;
    let mut it = words.iter().skip(1);
    while let Some(w) = it.next() {
        match w.as_str() {
            "-r" | "--raw-output" => jq.raw = true,
            "-c" | "--compact-output" => jq.compact = true,
            "-rc" | "-cr" => {
                jq.raw = true;
                jq.compact = true;
            }
            "--arg" => {
                let (Some(n), Some(v)) = (it.next(), it.next()) else {
                    return Err("jq --arg needs a name and a value".into());
                };
                jq.args.push((n.clone(), v.clone()));
            }
            f if f.starts_with('-') => {
                return Err(format!("jq option {f} is not handled natively"))
            }
            _ if filter.is_none() => filter = Some(w.clone()),
            _ => return Err("jq with input files is not handled natively".into()),
        }
    }
    jq.filter = filter.unwrap_or_else(|| ".".into());
    Ok(jq)
}

fn show(v: &Val, jq: &Jq) -> Result<String, String> {
    if jq.raw {
        if let Val::TStr(b) | Val::BStr(b) = v {
            return Ok(String::from_utf8_lossy(b).into_owned());
        }
    }
    let pp = if jq.compact {
        write::Pp::default()
    } else {
        write::Pp {
            indent: Some("  ".to_string()),
            sep_space: true,
            ..write::Pp::default()
        }
    };
    let mut out = Vec::new();
    write::write(&mut out, &pp, 0, v).map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Runs `jq` on `input`; one output value per line, as jq prints them.
pub fn run(jq: &Jq, input: &serde_json::Value) -> Result<String, String> {
    let input = read::parse_single(input.to_string().as_bytes()).map_err(|e| format!("{e:?}"))?;
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let funs = jaq_core::funs()
        .chain(jaq_std::funs())
        .chain(jaq_json::funs());
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let modules = loader
        .load(
            &arena,
            File {
                code: jq.filter.as_str(),
                path: (),
            },
        )
        .map_err(|errs| format!("jq cannot parse {:?}: {} error(s)", jq.filter, errs.len()))?;
    let names: Vec<String> = jq.args.iter().map(|(n, _)| format!("${n}")).collect();
    let filter = Compiler::default()
        .with_funs(funs)
        .with_global_vars(names.iter().map(String::as_str))
        .compile(modules)
        .map_err(|errs| format!("jq cannot compile {:?}: {} error(s)", jq.filter, errs.len()))?;
    let vars = Vars::new(jq.args.iter().map(|(_, v)| Val::from(v.clone())));
    let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, vars);
    let mut out = String::new();
    for v in filter.id.run((ctx, input)) {
        match v {
            Ok(v) => {
                out.push_str(&show(&v, jq)?);
                out.push('\n');
            }
            Err(e) => {
                return Err(match e.get_err() {
                    Ok(err) => format!("jq error: {err}"),
                    Err(_) => "jq stopped (halt is not supported natively)".to_string(),
                })
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn filters_args_and_raw_output() {
        let input = json!({"items": [{"metadata": {"name": "a"}, "deleted_at": null}, {"metadata": {"name": "b"}, "deleted_at": "2026-01-01T00:00:00Z"}]});
        let jq = parse(&words("jq -r .items[].metadata.name")).expect("parses");
        assert_eq!(run(&jq, &input).expect("runs"), "a\nb\n");
        let mut jq = parse(&words("jq -c --arg n b x")).expect("parses");
        jq.filter =
            "[.items[] | select(.metadata.name == $n and .deleted_at != null) | .metadata.name]"
                .into();
        assert_eq!(run(&jq, &input).expect("runs"), "[\"b\"]\n");
        let jq = parse(&words("jq .items[0].metadata")).expect("parses");
        assert_eq!(run(&jq, &input).expect("runs"), "{\n  \"name\": \"a\"\n}\n");
        assert!(parse(&words("jq -s .")).is_err());
        let bad = parse(&words("jq .[")).expect("parses");
        assert!(run(&bad, &input).unwrap_err().contains("cannot parse"));
        let halt = parse(&words("jq halt")).expect("parses");
        assert!(
            run(&halt, &input).is_err(),
            "halt must not stop the process"
        );
    }
}
