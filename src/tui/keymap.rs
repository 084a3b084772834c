//! Keymap: yazi-style rows `{ on, run, desc }` per screen, read from TOML (the bundled
//! `assets/keymap.toml`, then the user's overrides, which win). The same rows generate the
//! help screen. Pure: parses text handed to it; must not import IO.
//!
//! Key notation: a printable character (`j`, `G`, `?`), or `<Name>` / `<C-x>` / `<S-Tab>` /
//! `<A-x>` with names Enter, Esc, Tab, Backspace, Space, Up, Down, Left, Right, Home, End,
//! PageUp, PageDown. Each entry of `on` is one key that runs the row's command.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;

use super::command::Command;

/// The bundled keymap.
pub const DEFAULT: &str = include_str!("../../assets/keymap.toml");

/// The screens that have their own rows; `global` rows apply on every screen.
pub const CONTEXTS: &[&str] = &["global", "library", "guide", "help"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Key {
    /// Normalises a terminal key event (Shift is part of an upper-case character already).
    pub fn from_event(ev: &KeyEvent) -> Key {
        let mut mods =
            ev.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match ev.code {
            KeyCode::Char(c) => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::Char(c)
            }
            KeyCode::BackTab => {
                mods.insert(KeyModifiers::SHIFT);
                KeyCode::Tab
            }
            other => other,
        };
        Key { code, mods }
    }
    pub fn to_event(self) -> KeyEvent {
        match (self.code, self.mods.contains(KeyModifiers::SHIFT)) {
            (KeyCode::Tab, true) => KeyEvent::new(KeyCode::BackTab, self.mods),
            _ => KeyEvent::new(self.code, self.mods),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeymapError {
    /// The file is not valid TOML, names an unknown screen, key or command: `line` is where
    /// (1-based; 0 when the parser could not say).
    #[error("{file}:{line}: {message}")]
    Invalid {
        file: String,
        line: usize,
        message: String,
    },
}

/// Parses one key in the notation above.
pub fn parse_key(s: &str) -> Option<Key> {
    let mut chars = s.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Some(Key {
            code: KeyCode::Char(c),
            mods: KeyModifiers::NONE,
        });
    }
    let inner = s.strip_prefix('<')?.strip_suffix('>')?;
    let mut mods = KeyModifiers::NONE;
    let mut rest = inner;
    while let Some((m, r)) = rest
        .split_once('-')
        .filter(|(m, r)| m.len() == 1 && !r.is_empty())
    {
        match m {
            "C" => mods |= KeyModifiers::CONTROL,
            "S" => mods |= KeyModifiers::SHIFT,
            "A" => mods |= KeyModifiers::ALT,
            _ => return None,
        }
        rest = r;
    }
    let code = match rest {
        "Enter" => KeyCode::Enter,
        "Esc" => KeyCode::Esc,
        "Tab" => KeyCode::Tab,
        "Backspace" => KeyCode::Backspace,
        "Space" => KeyCode::Char(' '),
        "Up" => KeyCode::Up,
        "Down" => KeyCode::Down,
        "Left" => KeyCode::Left,
        "Right" => KeyCode::Right,
        "Home" => KeyCode::Home,
        "End" => KeyCode::End,
        "PageUp" => KeyCode::PageUp,
        "PageDown" => KeyCode::PageDown,
        one if one.chars().count() == 1 => KeyCode::Char(one.chars().next()?),
        _ => return None,
    };
    if let KeyCode::Char(_) = code {
        mods.remove(KeyModifiers::SHIFT);
    }
    Some(Key { code, mods })
}

/// A key script for tests and demos: keys separated by spaces (`"j j <Tab> <Enter>"`);
/// `<Space>` for a space. Unknown keys are skipped.
pub fn parse_keys(script: &str) -> Vec<KeyEvent> {
    script
        .split_whitespace()
        .filter_map(parse_key)
        .map(Key::to_event)
        .collect()
}

/// One key of a row's `on`, as written and parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyName {
    pub text: String,
    pub key: Key,
}

impl<'de> Deserialize<'de> for KeyName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<KeyName, D::Error> {
        let text = String::deserialize(d)?;
        match parse_key(&text) {
            Some(key) => Ok(KeyName { text, key }),
            None => Err(serde::de::Error::custom(format!(
                "key `{text}` is not a key tsgnav knows; write `j`, `<C-d>`, `<S-Tab>`, `<Enter>` …"
            ))),
        }
    }
}

/// One row: the keys, the command they run and the help screen's words for it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    pub on: Vec<KeyName>,
    #[serde(deserialize_with = "super::command::deserialize_run")]
    pub run: Command,
    #[serde(default)]
    pub desc: String,
}

impl Row {
    /// The keys as written, for the help screen.
    pub fn keys(&self) -> Vec<&str> {
        self.on.iter().map(|k| k.text.as_str()).collect()
    }
}

/// A keymap file: rows per screen.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    global: Vec<Row>,
    #[serde(default)]
    library: Vec<Row>,
    #[serde(default)]
    guide: Vec<Row>,
    #[serde(default)]
    help: Vec<Row>,
}

#[derive(Debug, Clone, Default)]
pub struct Keymap {
    /// (screen, row), user rows first.
    rows: Vec<(&'static str, Row)>,
}

impl Keymap {
    /// The bundled keymap. It is tested, so a failure here is a build defect; an empty
    /// keymap is returned rather than panicking.
    pub fn bundled() -> Keymap {
        Keymap::parse("assets/keymap.toml", DEFAULT).unwrap_or_default()
    }

    /// Parses a keymap file; `file` names it in messages. Every key and command is checked
    /// here, so a typo is reported with its line when the file is loaded.
    pub fn parse(file: &str, text: &str) -> Result<Keymap, KeymapError> {
        let f: File = toml::from_str(text).map_err(|e| KeymapError::Invalid {
            file: file.into(),
            line: e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
                .unwrap_or(0),
            message: e.message().trim().to_string(),
        })?;
        let mut rows = Vec::new();
        for (screen, list) in [
            ("global", f.global),
            ("library", f.library),
            ("guide", f.guide),
            ("help", f.help),
        ] {
            rows.extend(list.into_iter().map(|r| (screen, r)));
        }
        Ok(Keymap { rows })
    }

    /// Parses a keymap file row by row: every bad `[[screen]]` row is reported (with its
    /// file:line) and left out, so the bundled rows stay in force for those commands, and the
    /// good rows are kept. A file that is not TOML outside its rows is left out whole.
    pub fn parse_each(file: &str, text: &str) -> (Keymap, Vec<KeymapError>) {
        let mut lines: Vec<&str> = text.split('\n').collect();
        let mut problems = Vec::new();
        // Each round leaves out one more bad row (blanked, so line numbers stay).
        for _ in 0..=lines.len() {
            let err = match Keymap::parse(file, &lines.join("\n")) {
                Ok(km) => return (km, problems),
                Err(e) => e,
            };
            let KeymapError::Invalid { line, .. } = &err;
            let start = (0..*line)
                .rev()
                .find(|i| lines[*i].trim_start().starts_with("[["));
            problems.push(err);
            let Some(start) = start else {
                return (Keymap::default(), problems);
            };
            let end = (start + 1..lines.len())
                .find(|i| lines[*i].trim_start().starts_with('['))
                .unwrap_or(lines.len());
            for l in &mut lines[start..end] {
                *l = "";
            }
        }
        (Keymap::default(), problems)
    }

    /// `user` rows replace `self`'s rows of the same screen and command, and win where
    /// both bind a key.
    pub fn with_overrides(self, user: Keymap) -> Keymap {
        let mut rows = user.rows;
        let replaced: Vec<(&str, Command)> =
            rows.iter().map(|(c, r)| (*c, r.run.clone())).collect();
        rows.extend(
            self.rows
                .into_iter()
                .filter(|(c, r)| !replaced.contains(&(*c, r.run.clone()))),
        );
        Keymap { rows }
    }

    /// The command bound to `ev` on screen `context` (its own rows, then `global`).
    pub fn lookup(&self, context: &str, ev: &KeyEvent) -> Option<Command> {
        let key = Key::from_event(ev);
        let find = |ctx: &str| {
            self.rows
                .iter()
                .find(|(c, r)| *c == ctx && r.on.iter().any(|k| k.key == key))
                .map(|(_, r)| r.run.clone())
        };
        find(context).or_else(|| find("global"))
    }

    /// Whether any screen binds `ev`.
    pub fn binds(&self, ev: &KeyEvent) -> bool {
        let key = Key::from_event(ev);
        self.rows
            .iter()
            .any(|(_, r)| r.on.iter().any(|k| k.key == key))
    }

    /// The rows of one screen, for the help screen (a command bound twice is shown once).
    pub fn rows(&self, context: &str) -> Vec<&Row> {
        let mut seen: Vec<&Command> = Vec::new();
        let mut out = Vec::new();
        for (c, row) in &self.rows {
            if *c == context && !seen.contains(&&row.run) {
                seen.push(&row.run);
                out.push(row);
            }
        }
        out
    }
}
