//! all (issue 17 §7): the module's memory allocator, size classes over pages.
//!
//! Rust's default allocator on wasm32 is dlmalloc: 8.3 KB of the module (about 3 KB
//! gzip), for a program that runs on one thread and never hands memory back (wasm memory
//! only grows). This one keeps what such a program needs:
//!
//! - a block is a power of two from 16 bytes, its class; a request takes the smallest
//!   class that holds its size and alignment;
//! - freed blocks go to their class's free list (a pointer in the block itself) and are
//!   the first to be handed out again;
//! - a class below [`PAGE`] with no free block takes one fresh page and cuts it into
//!   blocks, so every block is aligned to its size; a class of a page or more is its own
//!   run of fresh pages;
//! - a reallocation within the class stays where it is (a `Vec` that doubles moves once
//!   per class, as with any allocator).
//!
//! Every operation is constant time but the cutting of a fresh page. What it costs: a
//! block is up to twice what was asked (a quarter more on average), and memory freed in
//! one class is not reused by another, so the heap is at most the sum of each class's
//! peak. Memory comes from a [`Pages`] source: `memory.grow` in the module, a fixed arena
//! in the native tests.

use std::alloc::Layout;

/// A wasm page: the unit memory grows by.
pub const PAGE: usize = 1 << 16;

/// log2 of the smallest block (16 bytes: a free list's pointer, and the alignment of
/// every block on wasm32).
const MIN_SHIFT: u32 = 4;

/// Classes 16 B .. 2 GiB: every size a wasm32 address space can hold.
const CLASSES: usize = (usize::BITS - MIN_SHIFT) as usize;

/// Where fresh pages come from.
pub trait Pages {
    /// The address of `count` fresh, contiguous pages, or `None` when memory is full.
    fn grow(&mut self, count: usize) -> Option<usize>;
}

/// The allocator's state: one free list per class (`0`: empty).
pub struct Heap<P> {
    free: [usize; CLASSES],
    pages: P,
}

/// The class of a request: the smallest block holding its size and its alignment (a
/// block is aligned to its size, up to a page). `None` when no class holds it, or it
/// asks for more than a page's alignment.
fn class_of(layout: Layout) -> Option<usize> {
    if layout.align() > PAGE {
        return None;
    }
    let size = layout.size().max(layout.align()).max(1 << MIN_SHIFT);
    let bits = usize::BITS - (size - 1).leading_zeros();
    let class = (bits - MIN_SHIFT) as usize;
    (class < CLASSES).then_some(class)
}

/// The block size of `class`.
fn block_size(class: usize) -> usize {
    1 << (class as u32 + MIN_SHIFT)
}

impl<P: Pages> Heap<P> {
    pub const fn new(pages: P) -> Heap<P> {
        Heap {
            free: [0; CLASSES],
            pages,
        }
    }

    /// A block for `layout`: the first of its class's free list, else one cut from fresh
    /// pages; null when memory is full.
    ///
    /// # Safety
    /// The heap's blocks are memory nothing else writes: the [`Pages`] source hands each
    /// page out once, and a block is freed only once, with the layout it was made for.
    #[inline(never)]
    pub unsafe fn alloc(&mut self, layout: Layout) -> *mut u8 {
        let Some((class, slot)) = class_of(layout).and_then(|c| Some((c, self.free.get_mut(c)?)))
        else {
            return std::ptr::null_mut();
        };
        if *slot == 0 {
            let size = block_size(class);
            let Some(start) = self.pages.grow(size.div_ceil(PAGE)) else {
                return std::ptr::null_mut();
            };
            if size >= PAGE {
                return start as *mut u8;
            }
            // the page cut into blocks, each pointing at the next, the last at none
            let mut next = 0;
            let mut at = start + PAGE;
            while at > start {
                at -= size;
                // SAFETY: `at` is in the fresh page, aligned to `size` (>= 16)
                unsafe { (at as *mut usize).write(next) };
                next = at;
            }
            *slot = start;
        }
        let block = *slot;
        // SAFETY: a free block holds the address of the next one
        *slot = unsafe { (block as *const usize).read() };
        block as *mut u8
    }

    /// Put `ptr`, a block [`Heap::alloc`] made for `layout`, on its class's free list.
    ///
    /// # Safety
    /// As for [`Heap::alloc`].
    #[inline(never)]
    pub unsafe fn dealloc(&mut self, ptr: *mut u8, layout: Layout) {
        let Some(slot) = class_of(layout).and_then(|class| self.free.get_mut(class)) else {
            return;
        };
        // SAFETY: the block is the caller's to give back, at least 16 bytes, aligned
        unsafe { (ptr as *mut usize).write(*slot) };
        *slot = ptr as usize;
    }

    /// `ptr` (a block for `layout`) holding `new_size` bytes: the same block when its
    /// class holds them, else a new one with the contents copied.
    ///
    /// # Safety
    /// As for [`Heap::alloc`].
    #[inline(never)]
    pub unsafe fn realloc(&mut self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else {
            return std::ptr::null_mut();
        };
        if class_of(new_layout) == class_of(layout) {
            return ptr;
        }
        // SAFETY: as the caller promised
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: distinct blocks, both at least this long
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        new
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
