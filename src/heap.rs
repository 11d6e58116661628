//! all (issue 17 §7): the module's memory allocator.
//!
//! Rust's default allocator on wasm32 is dlmalloc, 8.3 KB of the module with std's
//! allocation shims. This one keeps what dlmalloc gives this program in 2.5 KB: freed
//! memory merges with its free neighbours (a delegate's freed context is one free range
//! again, usable by any later request), a block costs one word beside its payload, a
//! reallocation shrinks in place and grows in place into free space after it; and it
//! leaves out what the program cannot use (threads; giving memory back: wasm memory only
//! grows).
//!
//! The heap is a run of chunks, each a header word (its size, multiple of 8, and two
//! flags: in use, previous chunk in use) then its payload (8-aligned); a free chunk also
//! holds its list links and, in its last word, its size (so the chunk after it finds it).
//! No two free chunks touch: a freed chunk merges with free neighbours first. Free chunks
//! are kept in lists by size (four lists per power of two, as TLSF has them), with a
//! bitmap of the lists that hold any: a request takes the first chunk of the first list
//! whose every chunk fits (constant time), else the first fitting one among the first
//! `SCAN` (16) of its own size's list, else grows memory. The region ends in a fence (an
//! in-use header of size 0); memory grown right after it extends the last chunk.
//! Memory comes from a [`Pages`] source: `memory.grow` in the module, a fixed arena in
//! the native tests.

use std::alloc::Layout;
use std::mem::size_of;

/// A wasm page: the unit memory grows by.
pub const PAGE: usize = 1 << 16;

/// A word: a header, a list link, a free chunk's trailing size.
const W: usize = size_of::<usize>();
/// Payload alignment (every Rust type on wasm32 but `u128` needs at most 8; larger
/// alignments take [`Heap::alloc_aligned`]).
const ALIGN: usize = 8;
/// The smallest chunk: a free one holds its header, two links and its trailing size.
const MIN_CHUNK: usize = (4 * W).next_multiple_of(ALIGN);
const IN_USE: usize = 1;
const PREV_IN_USE: usize = 2;
const FLAGS: usize = IN_USE | PREV_IN_USE;
/// Bits in a word of the bitmap.
const BITS: usize = usize::BITS as usize;
/// Four lists per power of two, for every size a `usize` holds.
const LISTS: usize = 4 * BITS;
const WORDS: usize = LISTS / BITS;
/// How many chunks of its own size's list a request looks at before it grows memory.
const SCAN: usize = 16;

/// Where fresh pages come from.
pub trait Pages {
    /// The address of `count` fresh, contiguous pages (page-aligned, as `memory.grow`'s
    /// are), or `None` when memory is full.
    fn grow(&mut self, count: usize) -> Option<usize>;
}

/// The allocator's state.
pub struct Heap<P> {
    /// The first free chunk of each list (`0`: none).
    lists: [usize; LISTS],
    /// Bit `i % BITS` of word `i / BITS`: list `i` holds a chunk.
    used: [usize; WORDS],
    /// The fence ending the region memory grows into (`0`: none yet).
    fence: usize,
    pages: P,
}

/// The word at `at`.
///
/// # Safety
/// `at` is a word of the heap's memory.
unsafe fn get(at: usize) -> usize {
    // SAFETY: as the caller promised
    unsafe { (at as *const usize).read() }
}

/// Write the word at `at`.
///
/// # Safety
/// As for [`get`].
unsafe fn set(at: usize, value: usize) {
    // SAFETY: as the caller promised
    unsafe { (at as *mut usize).write(value) }
}

/// The chunk size that holds `size` bytes of payload.
fn chunk_size(size: usize) -> Option<usize> {
    let n = size.checked_add(W + ALIGN - 1)? & !(ALIGN - 1);
    Some(n.max(MIN_CHUNK))
}

/// The list of a chunk of `size` bytes (>= 4): its power of two, and which quarter of it.
fn list_of(size: usize) -> usize {
    let log = (usize::BITS - 1 - size.leading_zeros()) as usize;
    (log << 2) | ((size >> (log - 2)) & 3)
}

/// The first list whose every chunk holds `n` bytes.
fn fitting_list(n: usize) -> usize {
    let list = list_of(n);
    let log = list >> 2;
    let lowest = (1 << log) | ((list & 3) << (log - 2));
    list + usize::from(n != lowest)
}

impl<P: Pages> Heap<P> {
    pub const fn new(pages: P) -> Heap<P> {
        Heap {
            lists: [0; LISTS],
            used: [0; WORDS],
            fence: 0,
            pages,
        }
    }

    /// A block for `layout`, or null when memory is full.
    ///
    /// # Safety
    /// The heap's memory is its own: the [`Pages`] source hands each page out once, and
    /// nothing else writes it but a block's owner its block; a block is freed once, with
    /// the layout it was made for.
    #[inline(never)]
    pub unsafe fn alloc(&mut self, layout: Layout) -> *mut u8 {
        if layout.align() > ALIGN {
            // SAFETY: as the caller promised
            return unsafe { self.alloc_aligned(layout) };
        }
        let Some(n) = chunk_size(layout.size()) else {
            return std::ptr::null_mut();
        };
        // SAFETY: as the caller promised
        match unsafe { self.take(n) } {
            0 => std::ptr::null_mut(),
            chunk => (chunk + W) as *mut u8,
        }
    }

    /// A block aligned beyond [`ALIGN`]: a larger block, its payload's first aligned
    /// address after its start, the block's own address in the word before.
    unsafe fn alloc_aligned(&mut self, layout: Layout) -> *mut u8 {
        let Some(Ok(outer)) = layout
            .size()
            .checked_add(layout.align())
            .map(|size| Layout::from_size_align(size, ALIGN))
        else {
            return std::ptr::null_mut();
        };
        // SAFETY: as the caller promised
        let raw = unsafe { self.alloc(outer) } as usize;
        if raw == 0 {
            return std::ptr::null_mut();
        }
        // at least ALIGN (>= W) past `raw`, at most `align`: the payload fits
        let aligned = (raw + layout.align()) & !(layout.align() - 1);
        // SAFETY: the word before `aligned` is in the block
        unsafe { set(aligned - W, raw) };
        aligned as *mut u8
    }

    /// Free `ptr`, a block [`Heap::alloc`] made for `layout`.
    ///
    /// # Safety
    /// As for [`Heap::alloc`].
    #[inline(never)]
    pub unsafe fn dealloc(&mut self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as the caller promised: a block of ours (an aligned one names its block)
        unsafe {
            let block = match layout.align() > ALIGN {
                true => get(ptr as usize - W),
                false => ptr as usize,
            };
            self.release(block - W);
        }
    }

    /// `ptr` (a block for `layout`) holding `new_size` bytes: shrunk in place (the tail
    /// freed), grown in place into a free chunk after it, else moved.
    ///
    /// # Safety
    /// As for [`Heap::alloc`].
    #[inline(never)]
    pub unsafe fn realloc(&mut self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let chunk = ptr as usize - W;
        // SAFETY: as the caller promised: `chunk` is an in-use chunk of ours
        unsafe {
            if let (true, Some(n)) = (layout.align() <= ALIGN, chunk_size(new_size)) {
                let header = get(chunk);
                let size = header & !FLAGS;
                let next = chunk + size;
                let after = get(next);
                let room = match after & IN_USE {
                    0 => size + (after & !FLAGS),
                    _ => size,
                };
                if n <= size {
                    if size - n >= MIN_CHUNK {
                        set(chunk, n | (header & FLAGS));
                        set(chunk + n, (size - n) | FLAGS);
                        self.release(chunk + n);
                    }
                    return ptr;
                }
                if n <= room {
                    self.unlink(next);
                    self.claim(chunk, room, n);
                    return ptr;
                }
            }
            let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else {
                return std::ptr::null_mut();
            };
            let moved = self.alloc(new_layout);
            if !moved.is_null() {
                std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            moved
        }
    }

    /// A free chunk of at least `n` bytes, taken off its list and marked in use (its tail
    /// split off when a chunk fits there); `0` when memory is full.
    unsafe fn take(&mut self, n: usize) -> usize {
        // SAFETY: the lists hold free chunks of ours
        unsafe {
            let mut chunk = self.first_from(fitting_list(n));
            if chunk == 0 {
                chunk = self.first_fit(n);
            }
            if chunk == 0 {
                chunk = self.grow(n);
            }
            if chunk != 0 {
                self.unlink(chunk);
                self.claim(chunk, get(chunk) & !FLAGS, n);
            }
            chunk
        }
    }

    /// The first chunk of at least `n` bytes among the first [`SCAN`] of the list of
    /// `n`'s own size (`0`: none).
    unsafe fn first_fit(&self, n: usize) -> usize {
        let mut at = self.lists.get(list_of(n)).copied().unwrap_or(0);
        for _ in 0..SCAN {
            // SAFETY: list members are free chunks of ours
            unsafe {
                if at == 0 || get(at) & !FLAGS >= n {
                    return at;
                }
                at = get(at + W);
            }
        }
        0
    }

    /// Mark `chunk` (off the lists, now `size` bytes) in use with `n` of its bytes; the
    /// rest, when a chunk fits in it, free. Its previous-in-use flag stays as it is.
    unsafe fn claim(&mut self, chunk: usize, size: usize, n: usize) {
        // SAFETY: `chunk` and the chunk after it are ours
        unsafe {
            let prev = get(chunk) & PREV_IN_USE;
            if size - n >= MIN_CHUNK {
                set(chunk, n | IN_USE | prev);
                self.link(chunk + n, size - n);
            } else {
                set(chunk, size | IN_USE | prev);
                set(chunk + size, get(chunk + size) | PREV_IN_USE);
            }
        }
    }

    /// The first chunk of the first non-empty list from `list` on (`0`: none).
    fn first_from(&self, list: usize) -> usize {
        let mut word = list / BITS;
        let mut mask = usize::MAX.checked_shl((list % BITS) as u32).unwrap_or(0);
        while let Some(&w) = self.used.get(word) {
            let found = w & mask;
            if found != 0 {
                let list = word * BITS + found.trailing_zeros() as usize;
                return self.lists.get(list).copied().unwrap_or(0);
            }
            word += 1;
            mask = usize::MAX;
        }
        0
    }

    /// Free `chunk` (in use), merged with a free chunk before and after it.
    unsafe fn release(&mut self, mut chunk: usize) {
        // SAFETY: `chunk` is an in-use chunk of ours; its neighbours' headers and a free
        // previous chunk's trailing size are words of ours
        unsafe {
            let header = get(chunk);
            let mut size = header & !FLAGS;
            let after = get(chunk + size);
            if after & IN_USE == 0 {
                self.unlink(chunk + size);
                size += after & !FLAGS;
            }
            if header & PREV_IN_USE == 0 {
                let before = get(chunk - W);
                chunk -= before;
                self.unlink(chunk);
                size += before;
            }
            self.link(chunk, size);
        }
    }

    /// Put `chunk` on its list as a free chunk of `size` bytes (its previous chunk in use).
    unsafe fn link(&mut self, chunk: usize, size: usize) {
        let list = list_of(size);
        let (Some(head), Some(used)) = (self.lists.get_mut(list), self.used.get_mut(list / BITS))
        else {
            return;
        };
        // SAFETY: `chunk` spans `size` bytes of ours, followed by a chunk header
        unsafe {
            set(chunk, size | PREV_IN_USE);
            set(chunk + W, *head);
            set(chunk + 2 * W, 0);
            set(chunk + size - W, size);
            set(chunk + size, get(chunk + size) & !PREV_IN_USE);
            if *head != 0 {
                set(*head + 2 * W, chunk);
            }
        }
        *head = chunk;
        *used |= 1 << (list % BITS);
    }

    /// Take the free `chunk` off its list.
    unsafe fn unlink(&mut self, chunk: usize) {
        // SAFETY: `chunk` is a free chunk of ours, on its list
        unsafe {
            let list = list_of(get(chunk) & !FLAGS);
            let (next, prev) = (get(chunk + W), get(chunk + 2 * W));
            if next != 0 {
                set(next + 2 * W, prev);
            }
            if prev != 0 {
                set(prev + W, next);
            } else if let Some(head) = self.lists.get_mut(list) {
                *head = next;
                if next == 0 {
                    if let Some(used) = self.used.get_mut(list / BITS) {
                        *used &= !(1 << (list % BITS));
                    }
                }
            }
        }
    }

    /// Fresh pages for a chunk of `n` bytes, as a free chunk on its list (the last chunk
    /// extended when they follow the fence); `0` when memory is full.
    unsafe fn grow(&mut self, n: usize) -> usize {
        let Some(count) = n.checked_add(ALIGN).map(|b| b.div_ceil(PAGE)) else {
            return 0;
        };
        let Some(start) = self.pages.grow(count) else {
            return 0;
        };
        // the new fence, the region's last word (written so: on wasm32 the end of the
        // last page, 4 GiB, is one past what a usize holds)
        let fence = start + (count * PAGE - W);
        // SAFETY: the new pages are ours, and so is the fence before them
        unsafe {
            let chunk = if self.fence != 0 && start.wrapping_sub(W) == self.fence {
                // the fence's header becomes the new chunk's (its previous-in-use flag kept)
                self.fence
            } else {
                set(start + ALIGN - W, PREV_IN_USE);
                start + ALIGN - W
            };
            set(chunk, (fence - chunk) | (get(chunk) & PREV_IN_USE) | IN_USE);
            self.fence = fence;
            set(self.fence, FLAGS);
            self.release(chunk);
            self.fence - get(self.fence - W)
        }
    }
}

/// The module's global allocator (single-threaded wasm32 only: a build with `atomics`
/// keeps Rust's default).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
mod global {
    use super::{Heap, Pages, PAGE};
    use std::alloc::{GlobalAlloc, Layout};
    use std::cell::UnsafeCell;

    struct MemoryGrow;

    impl Pages for MemoryGrow {
        fn grow(&mut self, count: usize) -> Option<usize> {
            match core::arch::wasm32::memory_grow(0, count) {
                usize::MAX => None,
                old => Some(old * PAGE),
            }
        }
    }

    struct Global(UnsafeCell<Heap<MemoryGrow>>);

    // SAFETY: wasm32 without `atomics` runs one thread, and the heap's methods never call
    // back into the allocator, so no two borrows of the heap overlap.
    unsafe impl Sync for Global {}

    unsafe impl GlobalAlloc for Global {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: see `Sync` above
            unsafe { (*self.0.get()).alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: see `Sync` above
            unsafe { (*self.0.get()).dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: see `Sync` above
            unsafe { (*self.0.get()).realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static GLOBAL: Global = Global(UnsafeCell::new(Heap::new(MemoryGrow)));
}

#[cfg(test)]
mod tests;
