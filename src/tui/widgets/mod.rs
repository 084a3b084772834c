//! Widgets of the TUI: each draws part of an [`crate::tui::app::App`] into a frame. Pure
//! (state in, cells out); must not import IO (std::fs, std::process, std::env, tokio).

pub mod chart;
pub mod code;
pub mod confirm;
pub mod exported;
pub mod firing;
pub mod guide;
pub mod help;
pub mod library;
pub mod markdown;
pub mod outline;
pub mod pager;
pub mod panel;
pub mod popup;
pub mod scope;
pub mod table;
pub mod waves;
pub mod wrap;
