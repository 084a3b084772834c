//! Guides arriving while the navigator is already on screen: each batch joins the library,
//! cross-guide links are resolved again, and the library list and its "loading N/M" count
//! follow. Pure (no IO): the runtime reads the files and hands the batches in.

use super::app::{App, Screen};
use crate::tsg::{self, Guide};

/// Adds `guides` (the next ones in file order) to the library; `loaded` of `total` files have
/// been read so far.
pub fn absorb(app: &mut App, guides: Vec<Guide>, loaded: usize, total: usize) {
    app.session.loading = Some((loaded, total));
    app.dirty = true;
    if guides.is_empty() {
        return;
    }
    app.lib.guides.extend(guides);
    // Idempotent: links that waited for a guide of this batch resolve now.
    tsg::link_library(&mut app.lib);
    app.nav.index = crate::nav::Index::new(&app.lib);
    // An alert that arrived before the guide that routes it routes now.
    super::firing::reroute(&app.lib, &mut app.firing);
    if app.screen.current == Screen::Library {
        app.search.hits = super::search::library_hits(&app.lib, &app.search.query, usize::MAX);
        app.search.sel = app.search.sel.min(app.search.hits.len().saturating_sub(1));
    }
}

/// Every file has been read; `failed` when some could not be loaded.
pub fn finish(app: &mut App, failed: bool) {
    app.session.loading = None;
    app.dirty = true;
    if failed {
        app.set_message(
            "Some guides could not be loaded; the errors are printed when you quit.",
            true,
        );
    }
}
