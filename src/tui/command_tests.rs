//! Tests of the command parser: names, arguments, the palette table and completion.

use super::*;

#[test]
fn names_and_arguments_parse() {
    let p = |s: &str| s.parse::<Command>();
    assert_eq!(p("scroll_down"), Ok(Command::ScrollDown));
    assert_eq!(p("follow 3"), Ok(Command::Follow(3)));
    assert_eq!(p("q"), Ok(Command::Quit));
    assert_eq!(p("q!"), Ok(Command::ForceQuit));
    assert_eq!(p("write"), Ok(Command::WriteMode));
    assert_eq!(p("export"), Ok(Command::Export(None)));
    assert_eq!(
        p("export Cloudnet/NRP"),
        Ok(Command::Export(Some("Cloudnet/NRP".into())))
    );
    assert_eq!(p("stop #4"), Ok(Command::Stop(4)));
    assert_eq!(p("set  NS=a b "), Ok(Command::Set("NS=a b".into())));
    assert!(p("explode").is_err_and(|e| e == "`explode` is not a command"));
    assert!(p("follow x").is_err_and(|e| e.contains("`x` is not a number")));
    assert!(p("follow 0").is_err_and(|e| e.contains("from 1")));
    assert!(p("goto").is_err_and(|e| e.contains("needs an argument")));
    assert!(p("quit now").is_err_and(|e| e.contains("takes no argument")));
}

#[test]
fn every_palette_usage_is_a_command_and_round_trips() {
    for (names, usage, _) in PALETTE {
        for name in *names {
            let arg = match *name {
                "alert" | "goto" | "set" | "stop" | "contexts" | "ctx" | "ns" | "waves" => " 1",
                _ => "",
            };
            let cmd = expand(&format!("{name}{arg}")).parse::<Command>();
            assert!(cmd.is_ok(), "{name}: {cmd:?}");
            assert!(usage.contains(&format!(":{name}")), "{usage} shows {name}");
        }
    }
    for c in [
        Command::Follow(2),
        Command::PageDown,
        Command::Goto("a#b".into()),
    ] {
        assert_eq!(c.to_string().parse::<Command>(), Ok(c));
    }
    assert_eq!(completions("go"), ["goto"]);
    assert_eq!(completions("s"), ["set", "stop", "skip"]);
    assert!(completions("goto x").is_empty());
}
