//! The interactive navigator (TUI). Elm-style: terminal events and worker results become
//! [`action::Action`]s, the pure [`update::update`] folds them into [`app::App`] and returns
//! [`effect::Effect`]s (the navigator's [`crate::nav::Effect`]s and the screens' own), [`view::draw`] renders the state (writing only its own [`frame::FrameState`]), and [`runtime`] — the only part
//! that does IO — owns the terminal, the event loop and the effects (live probes through
//! `crate::query`, evidence through `crate::evidence`).
//!
//! Everything but `runtime` (`app`, `action`, `update`, `input`, `mouse`, `navigate`, `view`,
//! `widgets`, `flow`, `firing`, `firing_keys`, `silence`, `guard`, `mitigation`, `pager`, `worker`, `loading`,
//! `keymap`, `theme`, `search`, `config`, `state`, `frame`, `command`, `palette`, `scroll`, `waves`, `waves_keys`) must
//! not import IO (std::fs, std::process, std::env, std::thread, tokio) nor `crate::query` /
//! `crate::evidence`.

pub mod action;
pub mod app;
pub mod command;
pub mod complete;
pub mod config;
pub mod contexts;
pub mod effect;
pub mod exported;
pub mod firing;
pub mod firing_keys;
pub mod flow;
pub mod frame;
pub mod guard;
pub mod help_find;
pub mod input;
pub mod isolation;
pub mod keymap;
pub mod loading;
pub mod mitigation;
pub mod mouse;
pub mod navigate;
pub mod pager;
pub mod palette;
pub mod popup;
pub mod range;
pub mod runtime;
pub mod scroll;
pub mod search;
pub mod silence;
pub mod stamp;
pub mod state;
pub mod target;
pub mod theme;
pub mod update;
pub mod view;
pub mod waves;
pub mod waves_keys;
pub mod widgets;
pub mod worker;

pub use action::Action;
pub use app::App;
pub use effect::Effect;
pub use update::update;
