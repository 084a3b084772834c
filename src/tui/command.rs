//! One typed command for keymap rows (`run = "follow 3"`) and the `:` palette (`:goto ID`).
//! Parsed by serde from the words `NAME [ARG]`, so a keymap row with a typo fails when the
//! file is loaded, and the palette, its completion list and the help screen read the same
//! table. Pure data; must not import IO.

use std::fmt;

use serde::de::{self, value, DeserializeSeed, Visitor};
use serde::Deserialize;

/// What a key or a palette line asks for.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Command {
    #[serde(alias = "q")]
    Quit,
    #[serde(alias = "q!", alias = "quit!")]
    ForceQuit,
    ScrollDown,
    ScrollUp,
    PageDown,
    PageUp,
    Top,
    Bottom,
    NextItem,
    PrevItem,
    Activate,
    /// The n-th choice of the step, counting from 1.
    Follow(usize),
    NextStep,
    Back,
    Done,
    Skip,
    Run,
    OutlineDown,
    OutlineUp,
    OutlineOpen,
    Library,
    Search,
    Palette,
    Help,
    Vars,
    Cancel,
    #[serde(alias = "write")]
    WriteMode,
    /// The selected probe's whole output, full screen.
    OpenOutput,
    /// The selected probe's command to the clipboard.
    Copy,
    /// The selected PromQL probe between an instant and a range query, run again.
    ToggleRange,
    /// `S` on a firing alert: propose a silence.
    Silence,
    /// Lands on the step the alert routes to.
    Alert(String),
    /// Opens a step by heading slug or path#slug.
    Goto(String),
    /// `VAR=value`, as typed.
    Set(String),
    /// The escalation team whose evidence list the bundle checks, if named.
    Export(Option<String>),
    Tasks,
    /// A background task's number (`3` or `#3`).
    Stop(u64),
    /// Runs the selected probe once per kube context matching this glob.
    #[serde(alias = "ctx")]
    Contexts(String),
    /// Plans the open mitigation step in waves over the kube contexts matching a glob.
    Waves(String),
}

/// One line of the palette's list: the command names it covers, usage, description.
pub type PaletteEntry = (&'static [&'static str], &'static str, &'static str);

/// The palette's commands. The help screen lists them and the palette completes their
/// names; a test checks every name parses as a [`Command`].
pub const PALETTE: &[PaletteEntry] = &[
    (
        &["alert"],
        ":alert NAME",
        "Land on the step alert NAME routes to",
    ),
    (
        &["goto"],
        ":goto ID",
        "Open a step by heading slug or path#slug",
    ),
    (&["set"], ":set VAR=value", "Set a variable for the probes"),
    (
        &["contexts", "ctx"],
        ":contexts GLOB / :ctx GLOB",
        "Run the selected probe once per kube context matching GLOB",
    ),
    (
        &["waves"],
        ":waves GLOB [SIZES [N]]",
        "Run this mitigation step in waves over the contexts matching GLOB (write mode)",
    ),
    (
        &["ns"],
        ":ns NAME",
        "Set the namespace for the probes (:set NAMESPACE=NAME)",
    ),
    (&["export"], ":export", "Export the evidence bundle"),
    (
        &["write"],
        ":write",
        "Turn write mode on (type the context) or off",
    ),
    (
        &["tasks", "stop"],
        ":tasks / :stop N",
        "List background tasks, stop one",
    ),
    (
        &["done", "skip"],
        ":done / :skip",
        "Mark the step done or skipped",
    ),
    (&["library"], ":library", "Back to the library"),
    (&["help"], ":help", "This help"),
    (&["q"], ":q", "Quit"),
];

/// A palette line with its k9s-style shorthand spelled out: `ns NAME` is `set NAMESPACE=NAME`.
pub fn expand(line: &str) -> String {
    match line.trim().split_once(char::is_whitespace) {
        Some(("ns", name)) => format!("set NAMESPACE={}", name.trim()),
        _ => line.to_string(),
    }
}

/// The palette command names that start with `typed` (the first word of the line), in
/// the palette's order; none once an argument is being typed.
pub fn completions(typed: &str) -> Vec<&'static str> {
    let word = typed.trim_start();
    if word.contains(char::is_whitespace) {
        return Vec::new();
    }
    PALETTE
        .iter()
        .flat_map(|(names, ..)| names.iter().copied())
        .filter(|n| n.starts_with(word))
        .collect()
}

impl std::str::FromStr for Command {
    type Err = String;

    /// Parses `NAME [ARG]`: `scroll_down`, `follow 3`, `goto step-2a`, `set NS=x`.
    fn from_str(s: &str) -> Result<Command, String> {
        let s = s.trim();
        let (name, arg) = match s.split_once(char::is_whitespace) {
            Some((n, a)) => (n, Some(a.trim()).filter(|a| !a.is_empty())),
            None => (s, None),
        };
        let cmd = Command::deserialize(Words { name, arg }).map_err(|e| {
            let e = e.to_string();
            match e.starts_with("unknown variant") {
                true => format!("`{name}` is not a command"),
                false => e,
            }
        })?;
        match cmd {
            Command::Follow(0) => Err("`follow` counts choices from 1".into()),
            cmd => Ok(cmd),
        }
    }
}

/// Reads a keymap row's `run` string as a [`Command`] (serde `deserialize_with`), so a bad
/// name fails while the file is parsed, with its line.
pub fn deserialize_run<'de, D: de::Deserializer<'de>>(d: D) -> Result<Command, D::Error> {
    let text = String::deserialize(d)?;
    text.parse::<Command>().map_err(|e| {
        de::Error::custom(format!(
            "`run = \"{text}\"`: {e}; assets/keymap.toml lists the commands"
        ))
    })
}

/// `NAME [ARG]` as a serde enum: NAME picks the variant, ARG fills it.
struct Words<'a> {
    name: &'a str,
    arg: Option<&'a str>,
}

impl<'de> de::Deserializer<'de> for Words<'de> {
    type Error = value::Error;
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, value::Error> {
        v.visit_enum(self)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

impl<'de> de::EnumAccess<'de> for Words<'de> {
    type Error = value::Error;
    type Variant = Arg<'de>;
    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Arg<'de>), value::Error> {
        let name: value::BorrowedStrDeserializer<value::Error> =
            value::BorrowedStrDeserializer::new(self.name);
        let v = seed.deserialize(name)?;
        Ok((v, Arg(self.name, self.arg)))
    }
}

/// The argument of a command (its name, for messages).
struct Arg<'a>(&'a str, Option<&'a str>);

impl<'de> de::VariantAccess<'de> for Arg<'de> {
    type Error = value::Error;
    fn unit_variant(self) -> Result<(), value::Error> {
        match self.1 {
            None => Ok(()),
            Some(a) => Err(de::Error::custom(format!(
                "`{}` takes no argument, but `{a}` follows it",
                self.0
            ))),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, value::Error> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, value::Error> {
        Err(de::Error::custom("commands take one argument"))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, value::Error> {
        Err(de::Error::custom("commands take one argument"))
    }
}

impl<'de> de::Deserializer<'de> for Arg<'de> {
    type Error = value::Error;
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, value::Error> {
        match self.1 {
            Some(a) => v.visit_borrowed_str(a),
            None => Err(de::Error::custom(format!("`{}` needs an argument", self.0))),
        }
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, value::Error> {
        match self.1 {
            Some(_) => v.visit_some(self),
            None => v.visit_none(),
        }
    }
    fn deserialize_u64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, value::Error> {
        let n = self.number()?;
        v.visit_u64(n)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

impl Arg<'_> {
    fn number(&self) -> Result<u64, value::Error> {
        let a = self
            .1
            .ok_or_else(|| de::Error::custom(format!("`{}` needs a number", self.0)))?;
        a.trim_start_matches('#')
            .parse::<u64>()
            .map_err(|_| de::Error::custom(format!("`{} {a}`: `{a}` is not a number", self.0)))
    }
}

impl fmt::Display for Command {
    /// The palette form of a command (`follow 3`, `goto ID`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = format!("{self:?}");
        let word = name.split('(').next().unwrap_or_default();
        let mut snake = String::new();
        for (i, c) in word.chars().enumerate() {
            if c.is_uppercase() && i > 0 {
                snake.push('_');
            }
            snake.extend(c.to_lowercase());
        }
        match self {
            Command::Follow(n) => write!(f, "{snake} {n}"),
            Command::Stop(n) => write!(f, "{snake} {n}"),
            Command::Alert(a)
            | Command::Goto(a)
            | Command::Set(a)
            | Command::Contexts(a)
            | Command::Waves(a) => {
                write!(f, "{snake} {a}")
            }
            Command::Export(Some(t)) => write!(f, "{snake} {t}"),
            _ => f.write_str(&snake),
        }
    }
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
