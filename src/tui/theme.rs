//! Theme: named styles read from TOML (the bundled `assets/theme.toml`, then the user's
//! overrides). A style is written `"bold yellow on red"`, `"#ff8800"`, `"reversed"`.
//! With `no_color` (the `NO_COLOR` convention) colours are dropped and modifiers kept.
//! Pure: parses text handed to it; must not import IO.

use std::collections::HashMap;

use ratatui::style::{Color, Modifier, Style};

use crate::tsg::Role;

pub const DEFAULT: &str = include_str!("../../assets/theme.toml");

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThemeError {
    #[error("{file}: is not valid TOML: {detail}")]
    Toml { file: String, detail: String },
    #[error("{file}: `{key} = \"{value}\"`: `{word}` is not a colour or modifier; use a name (red, darkgray), #rrggbb, bold, italic, underlined, dim, reversed, or `on COLOUR`")]
    BadStyle {
        file: String,
        key: String,
        value: String,
        word: String,
    },
    #[error("{file}: `{key}` must be a string such as \"bold red\"")]
    NotString { file: String, key: String },
}

#[derive(Debug, Clone, Default)]
pub struct Theme {
    styles: HashMap<String, Style>,
    no_color: bool,
}

impl Theme {
    /// The bundled theme (tested, so it parses; an empty theme otherwise).
    pub fn bundled(no_color: bool) -> Theme {
        Theme::parse("assets/theme.toml", DEFAULT, no_color).unwrap_or_default()
    }

    pub fn parse(file: &str, text: &str, no_color: bool) -> Result<Theme, ThemeError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| ThemeError::Toml {
            file: file.into(),
            detail: e.to_string(),
        })?;
        let mut theme = Theme {
            styles: HashMap::new(),
            no_color,
        };
        theme.add(file, "", &table)?;
        Ok(theme)
    }

    fn add(&mut self, file: &str, prefix: &str, table: &toml::Table) -> Result<(), ThemeError> {
        for (k, v) in table {
            let key = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                toml::Value::Table(t) => self.add(file, &key, t)?,
                toml::Value::String(s) => {
                    let style = parse_style(s).map_err(|word| ThemeError::BadStyle {
                        file: file.into(),
                        key: key.clone(),
                        value: s.clone(),
                        word,
                    })?;
                    let style = if self.no_color {
                        Style {
                            fg: None,
                            bg: None,
                            ..style
                        }
                    } else {
                        style
                    };
                    self.styles.insert(key, style);
                }
                _ => {
                    return Err(ThemeError::NotString {
                        file: file.into(),
                        key,
                    })
                }
            }
        }
        Ok(())
    }

    /// `other`'s styles replace `self`'s.
    pub fn with_overrides(mut self, other: Theme) -> Theme {
        self.styles.extend(other.styles);
        self
    }

    pub fn no_color(&self) -> bool {
        self.no_color
    }

    /// The style named `key` (`ui.border`, `role.mitigation` …); plain when absent.
    pub fn get(&self, key: &str) -> Style {
        self.styles.get(key).copied().unwrap_or_default()
    }

    pub fn role(&self, role: Role) -> Style {
        self.get(&format!("role.{}", role.as_str()))
    }
}

fn parse_style(s: &str) -> Result<Style, String> {
    let mut style = Style::default();
    let mut bg = false;
    for word in s.split_whitespace() {
        let lower = word.to_ascii_lowercase();
        let modifier = match lower.as_str() {
            "bold" => Some(Modifier::BOLD),
            "italic" => Some(Modifier::ITALIC),
            "underlined" => Some(Modifier::UNDERLINED),
            "dim" => Some(Modifier::DIM),
            "reversed" => Some(Modifier::REVERSED),
            "crossed_out" => Some(Modifier::CROSSED_OUT),
            "on" => {
                bg = true;
                continue;
            }
            "plain" | "none" => continue,
            _ => None,
        };
        if let Some(m) = modifier {
            style = style.add_modifier(m);
            continue;
        }
        let color: Color = lower.parse().map_err(|_| word.to_string())?;
        style = if bg { style.bg(color) } else { style.fg(color) };
        bg = false;
    }
    Ok(style)
}

/// A role's outline glyph.
pub fn glyph(role: Role) -> &'static str {
    match role {
        Role::Triage => "⚑",
        Role::Diagnostic => "?",
        Role::BlastRadius => "◎",
        Role::Mitigation => "✚",
        Role::Rollback => "↺",
        Role::Escalation => "⇪",
        Role::Validation => "✓",
        Role::Access => "⚿",
        Role::Symptoms | Role::Severity => "!",
        _ => "·",
    }
}
