//! Guides arriving while the navigator is already on screen: each batch joins the library, its
//! cross-guide links and those that waited for it are resolved, and the library list and its
//! "loading N/M" count follow; once the last is in, the start-up commands that waited for the whole
//! library (an alert to land on, variables) are applied. Pure (no IO): the runtime reads the files
//! and hands the batches in as [`super::Action::Guides`].

use super::app::{App, Screen};
use super::effect::Effect;
use crate::nav::{Cmd, VarSource};
use crate::tsg::Guide;

/// A batch of guides read in the background (built by the runtime).
#[derive(Debug, Clone, Default)]
pub struct GuideBatch {
    /// The next guides in file order.
    pub guides: Vec<Guide>,
    /// Files read so far, of `total`.
    pub loaded: usize,
    pub total: usize,
    /// Every file has been read; `failed` says whether one could not be.
    pub done: Option<bool>,
    /// With the last batch: start-up commands applied, in order, once every guide is in. A
    /// variable from the config file (`VarSource::Config`) only fills a name nothing else has
    /// set.
    pub pending: Vec<Cmd>,
}

/// Batches are told apart by the guides' paths (a guide has no equality of its own).
impl PartialEq for GuideBatch {
    fn eq(&self, other: &GuideBatch) -> bool {
        let paths = |b: &GuideBatch| b.guides.iter().map(|g| g.path.clone()).collect::<Vec<_>>();
        (self.loaded, self.total, self.done, &self.pending)
            == (other.loaded, other.total, other.done, &other.pending)
            && paths(self) == paths(other)
    }
}

/// `Action::Guides`: the batch joins the library; the last one finishes the loading and
/// applies the start-up commands that waited for it, returning their effects.
pub fn arrive(app: &mut App, batch: GuideBatch) -> Vec<Effect> {
    let GuideBatch {
        guides,
        loaded,
        total,
        done,
        pending,
    } = batch;
    absorb(app, guides, loaded, total);
    let Some(failed) = done else {
        return Vec::new();
    };
    finish(app, failed);
    let mut effects = Vec::new();
    for cmd in pending {
        if let Cmd::SetVar {
            name,
            source: VarSource::Config,
            ..
        } = &cmd
        {
            if app.nav.vars.contains_key(name) {
                continue;
            }
        }
        effects.extend(super::navigate::nav_cmd(app, cmd));
    }
    effects
}

/// Adds `guides` (the next ones in file order) to the library; `loaded` of `total` files have
/// been read so far.
pub fn absorb(app: &mut App, guides: Vec<Guide>, loaded: usize, total: usize) {
    app.session.loading = Some((loaded, total));
    app.dirty = true;
    if guides.is_empty() {
        return;
    }
    let from = app.lib.guides.len();
    // Room for the whole library at once: the guides are not moved again at every batch.
    app.lib
        .guides
        .reserve(guides.len() + total.saturating_sub(loaded));
    app.lib.guides.extend(guides);
    // The batch's links, and the links that waited for a guide of this batch, resolve now
    // (as `tsg::link_library` would over the whole library; a batch costs only its own).
    app.linker.extend(&mut app.lib, from);
    // Only the new guides are indexed (ids do not change when links resolve), in a table
    // sized once for the whole library when its size is known.
    app.nav.index.expect(from, total);
    app.nav.index.extend(&app.lib, from);
    // An alert that arrived before the guide that routes it routes now.
    app.firing.reroute(&app.lib);
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
