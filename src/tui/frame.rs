//! What the view keeps between frames: the wrapped lines of the current node (computed once
//! per node, width and results) and what it measured (areas, text lengths). The view owns
//! and writes it; the runtime hands its [`Viewport`] to `update` as `Action::Drawn`. Pure;
//! must not import IO.

use ratatui::text::Line;

use super::app::Viewport;

/// Wrapped lines of the current node for one width, computed once per (node, width, results).
#[derive(Debug, Clone, Default)]
pub struct RenderCache {
    pub key: Option<(String, u16, u64)>,
    pub lines: Vec<Line<'static>>,
    /// (probe index, row of `lines`) where each probe's result starts.
    pub outputs: Vec<(usize, usize)>,
}

/// The view's own state: render caches and the last frame's measurements.
#[derive(Debug, Clone, Default)]
pub struct FrameState {
    pub cache: RenderCache,
    pub viewport: Viewport,
}
