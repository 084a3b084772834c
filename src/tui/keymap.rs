//! Keymap: yazi-style rows `{ on, run, desc }` per screen, read from TOML (the bundled
//! `assets/keymap.toml`, then the user's overrides, which win). The same rows generate the
//! help screen. Pure: parses text handed to it; must not import IO.
//!
//! Key notation: a printable character (`j`, `G`, `?`), or `<Name>` / `<C-x>` / `<S-Tab>` /
//! `<A-x>` with names Enter, Esc, Tab, Backspace, Space, Up, Down, Left, Right, Home, End,
//! PageUp, PageDown. Each entry of `on` is one key that runs the row's command.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;

use super::action::Action;

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
    #[error("{file}: is not valid TOML: {detail}")]
    Toml { file: String, detail: String },
    #[error("{file}: [[{context}]] row {row}: key `{key}` is not a key tsgnav knows; write `j`, `<C-d>`, `<S-Tab>`, `<Enter>` …")]
    BadKey {
        file: String,
        context: String,
        row: usize,
        key: String,
    },
    #[error("{file}: [[{context}]] row {row}: `run = \"{run}\"` is not a command; see assets/keymap.toml for the list")]
    BadRun {
        file: String,
        context: String,
        row: usize,
        run: String,
    },
    #[error("{file}: [{context}] is not a screen; use one of global, library, guide, help")]
    BadContext { file: String, context: String },
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

/// One row, as written.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Row {
    pub on: Vec<String>,
    pub run: String,
    #[serde(default)]
    pub desc: String,
}

#[derive(Debug, Clone, Default)]
pub struct Keymap {
    /// (context, row, parsed keys, action), user rows first.
    rows: Vec<(String, Row, Vec<Key>, Action)>,
}

impl Keymap {
    /// The bundled keymap. It is tested, so a failure here is a build defect; an empty
    /// keymap is returned rather than panicking.
    pub fn bundled() -> Keymap {
        Keymap::parse("assets/keymap.toml", DEFAULT).unwrap_or_default()
    }

    /// Parses a keymap file; `file` names it in messages.
    pub fn parse(file: &str, text: &str) -> Result<Keymap, KeymapError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| KeymapError::Toml {
            file: file.into(),
            detail: e.to_string(),
        })?;
        let mut km = Keymap::default();
        for (context, rows) in table {
            if !CONTEXTS.contains(&context.as_str()) {
                return Err(KeymapError::BadContext {
                    file: file.into(),
                    context,
                });
            }
            let rows: Vec<Row> =
                rows.try_into()
                    .map_err(|e: toml::de::Error| KeymapError::Toml {
                        file: file.into(),
                        detail: format!("[[{context}]]: {e}"),
                    })?;
            for (i, row) in rows.into_iter().enumerate() {
                let mut keys = Vec::new();
                for k in &row.on {
                    let key = parse_key(k).ok_or_else(|| KeymapError::BadKey {
                        file: file.into(),
                        context: context.clone(),
                        row: i + 1,
                        key: k.clone(),
                    })?;
                    keys.push(key);
                }
                let action = Action::from_name(&row.run).ok_or_else(|| KeymapError::BadRun {
                    file: file.into(),
                    context: context.clone(),
                    row: i + 1,
                    run: row.run.clone(),
                })?;
                km.rows.push((context.clone(), row, keys, action));
            }
        }
        Ok(km)
    }

    /// `user` rows replace `self`'s rows of the same screen and command, and win where
    /// both bind a key.
    pub fn with_overrides(self, user: Keymap) -> Keymap {
        let mut rows = user.rows;
        let replaced: Vec<(String, String)> = rows
            .iter()
            .map(|(c, r, _, _)| (c.clone(), r.run.clone()))
            .collect();
        rows.extend(
            self.rows
                .into_iter()
                .filter(|(c, r, _, _)| !replaced.contains(&(c.clone(), r.run.clone()))),
        );
        Keymap { rows }
    }

    /// The action bound to `ev` on screen `context` (its own rows, then `global`).
    pub fn lookup(&self, context: &str, ev: &KeyEvent) -> Option<Action> {
        let key = Key::from_event(ev);
        let find = |ctx: &str| {
            self.rows
                .iter()
                .find(|(c, _, keys, _)| c == ctx && keys.contains(&key))
                .map(|(_, _, _, a)| a.clone())
        };
        find(context).or_else(|| find("global"))
    }

    /// The rows of one screen, for the help screen (a key bound twice is shown once).
    pub fn rows(&self, context: &str) -> Vec<&Row> {
        let mut seen: Vec<&str> = Vec::new();
        let mut out = Vec::new();
        for (c, row, _, _) in &self.rows {
            if c == context && !seen.contains(&row.run.as_str()) {
                seen.push(&row.run);
                out.push(row);
            }
        }
        out
    }
}
