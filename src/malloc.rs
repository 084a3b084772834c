//! The process's allocator: mimalloc, entered by its plain `malloc`, `realloc` and `free` for
//! every layout those already align, and by its aligned entry points only for the rest.
//! mimalloc's own Rust wrapper takes the aligned path for every call, which costs about
//! eighteen instructions more per allocation (callgrind); reading a library makes over a million of them.
//! Only the binary installs it (`main.rs`); the library's tests and benches keep the system
//! allocator. Imports nothing of the crate.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::{c_int, c_long, c_void};

use libmimalloc_sys as mi;

/// What mimalloc's plain entry points align to (its `MI_MAX_ALIGN_SIZE`, `max_align_t`'s 16
/// bytes here): it keeps one size class of one word (8 bytes) and spaces every larger class
/// by whole double words, so a block of at least 16 bytes starts at a multiple of 16 and a
/// smaller one at a multiple of 8. A layout whose alignment is at most this and at most
/// its size therefore needs no aligned call (the rule std's `System` applies to `malloc`).
/// The tests below hold mimalloc to it.
const PLAIN_ALIGN: usize = 16;

fn plain(align: usize, size: usize) -> bool {
    align <= PLAIN_ALIGN && align <= size
}

/// mimalloc, reached by the cheapest entry point that honours the layout.
pub struct Mimalloc;

// SAFETY: every path hands mimalloc a size and, where it could matter, the layout's
// alignment; `plain` admits only layouts that mimalloc's unaligned calls align (above),
// and `dealloc` frees with `mi_free`, which takes a block from any of these entry points.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: plain C calls with a size (and an alignment that is a power of two, as
        // `Layout` guarantees).
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from one of the calls above (GlobalAlloc's contract).
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout` (GlobalAlloc's contract). A
        // block from the aligned calls may go to the plain `mi_realloc`: mimalloc finds such a
        // block's start and usable size itself, keeps it in place when the new size fits (it
        // is aligned already) and otherwise copies into a plain block, aligned by `plain`.
        unsafe {
            if plain(layout.align(), new_size) {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

/// mimalloc's option numbers (its `mi_option_e`, v2): the Rust bindings leave out the
/// experimental ones. The tests hold them to mimalloc's defaults.
const OPTION_PURGE_DELAY: c_int = 15;

extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
    #[cfg(test)]
    fn mi_option_get(option: c_int) -> c_long;
}

/// How long memory freed and not used again stays with the process before it goes back to
/// the system, in milliseconds. mimalloc's default (10 ms) hands it back in the middle of a
/// load: reading a big library frees and takes again hundreds of megabytes a second, and
/// each page handed back is faulted in and zeroed again when next used (with huge pages
/// allowed, a quarter of a first start's CPU at 20,000 guides went to zeroing them). A second
/// covers a load's bursts, and an idle navigator still gives its memory back.
const PURGE_DELAY_MS: c_long = 1000;

/// How much free memory glibc's own allocator keeps at the top of one of its heaps before it
/// hands the rest back, in bytes. Only C code allocates there, glibc itself above all: each
/// folder listing (`opendir`) takes a 32 KiB buffer. With glibc's default, closing a listing on
/// a thread's heap often handed its buffer back with `madvise`, and each such call interrupts
/// the other cores to flush their TLBs: 2,177 calls in a warm `alerts` over 20,000 guides
/// (16,516 folders); without them it took 8 % less wall time. What glibc's heaps then keep is
/// a few of those buffers.
const GLIBC_TRIM_THRESHOLD: c_int = 64 << 20;

/// Sets the allocators' options for this process (call it first in `main`).
pub fn tune() {
    // SAFETY: a plain C call with an option number and a value; mimalloc reads options when
    // it next needs them, so setting one while other threads allocate is only a race about
    // which value a moment sees, never memory.
    unsafe { mi_option_set(OPTION_PURGE_DELAY, PURGE_DELAY_MS) }
    // SAFETY: as above, for glibc's malloc; `main` calls this before any other thread runs.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, GLIBC_TRIM_THRESHOLD);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks handed out one after another from one size class sit side by side: were the
    /// class's blocks spaced by a size that is not a multiple of the alignment (24 bytes
    /// apart for 16), every other block would be misaligned. So many are kept alive at once.
    #[test]
    fn neighbouring_blocks_of_a_size_class_are_all_aligned() {
        let a = Mimalloc;
        for align in [8usize, 16] {
            for size in [8usize, 16, 20, 24, 40, 48, 56, 72, 88, 104, 120, 200, 1000] {
                let layout = Layout::from_size_align(size, align).expect("valid layout");
                // SAFETY: non-zero sizes; each block is freed once, with its own layout.
                unsafe {
                    let blocks: Vec<*mut u8> = (0..256).map(|_| a.alloc(layout)).collect();
                    for &p in &blocks {
                        assert!(!p.is_null());
                        assert_eq!(p as usize % align, 0, "size {size} align {align}");
                    }
                    for p in blocks {
                        a.dealloc(p, layout);
                    }
                }
            }
        }
    }

    /// Every layout the crate can meet, small and large, at every alignment up to a page:
    /// the block is aligned, holds what is written to it, keeps it through a realloc that
    /// grows or shrinks it (across the plain/aligned line too), and zeroed memory is zero.
    #[test]
    fn blocks_are_aligned_and_keep_their_bytes() {
        let a = Mimalloc;
        for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1usize, 3, 8, 15, 16, 17, 24, 100, 4096, 70_000, 1 << 21] {
                let Ok(layout) = Layout::from_size_align(size, align) else {
                    continue;
                };
                // SAFETY: sizes are non-zero; every pointer is used within its layout and
                // freed once, with the allocator that made it.
                unsafe {
                    for new in [size / 2 + 1, size * 3] {
                        let p = a.alloc(layout);
                        assert!(!p.is_null());
                        assert_eq!(p as usize % align, 0, "size {size} align {align}");
                        for i in 0..size {
                            *p.add(i) = (i % 251) as u8;
                        }
                        let q = a.realloc(p, layout, new);
                        assert!(!q.is_null());
                        assert_eq!(q as usize % align, 0, "realloc {size}->{new} align {align}");
                        for i in 0..size.min(new) {
                            assert_eq!(*q.add(i), (i % 251) as u8, "byte {i} of {size}->{new}");
                        }
                        let grown = Layout::from_size_align(new, align).expect("valid layout");
                        a.dealloc(q, grown);
                    }
                    let z = a.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    a.dealloc(z, layout);
                }
            }
        }
    }

    /// The option number is mimalloc's: the options around the one `tune` sets read their
    /// documented defaults (eager commit delay 1, purge delay 10 ms, NUMA nodes 0, OS tag
    /// 100), so a renumbering in a newer mimalloc fails here, not silently in `tune`.
    #[test]
    fn option_numbers_are_mimallocs() {
        // SAFETY: plain C calls with option numbers below mimalloc's last.
        let got: Vec<c_long> = [14, OPTION_PURGE_DELAY, 16, 18]
            .iter()
            .map(|&o| unsafe { mi_option_get(o) })
            .collect();
        assert_eq!(got, [1, 10, 0, 100]);
    }
}
