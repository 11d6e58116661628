use super::*;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use std::collections::BTreeMap;

/// `count` pages of real memory, handed out in order (as `memory.grow` does), then none.
struct Arena {
    base: *mut u8,
    layout: Layout,
    next: usize,
}

impl Arena {
    fn new(count: usize) -> Arena {
        let layout = Layout::from_size_align(count * PAGE, PAGE).unwrap();
        // SAFETY: a non-zero size
        let base = unsafe { std::alloc::alloc_zeroed(layout) };
        assert!(!base.is_null());
        Arena {
            base,
            layout,
            next: 0,
        }
    }

    fn range(&self) -> std::ops::Range<usize> {
        self.base as usize..self.base as usize + self.layout.size()
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout
        unsafe { std::alloc::dealloc(self.base, self.layout) }
    }
}

impl Pages for &mut Arena {
    fn grow(&mut self, count: usize) -> Option<usize> {
        let end = self.next + count * PAGE;
        (end <= self.layout.size()).then(|| {
            let start = self.base as usize + self.next;
            self.next = end;
            start
        })
    }
}

#[test]
fn classes_are_powers_of_two_from_16_holding_size_and_alignment() {
    let class = |size, align| class_of(Layout::from_size_align(size, align).unwrap());
    assert_eq!(class(1, 1), Some(0));
    assert_eq!(class(16, 8), Some(0));
    assert_eq!(class(17, 1), Some(1));
    assert_eq!(class(32, 1), Some(1));
    assert_eq!(class(33, 1), Some(2));
    assert_eq!(class(8, 64), Some(2));
    assert_eq!(class(PAGE, 1), Some(12));
    assert_eq!(class(PAGE + 1, 1), Some(13));
    assert_eq!(block_size(12), PAGE);
    assert_eq!(class(1 << 31, 1), Some(27));
    // the largest size a layout can have has a class
    assert_eq!(class(isize::MAX as usize, 1), Some(CLASSES - 1));
    // an alignment of more than a page has none (blocks of a page or more are page-aligned)
    assert_eq!(class(16, PAGE), Some(12));
    assert_eq!(class(16, 2 * PAGE), None);
}

#[test]
fn a_page_is_cut_into_blocks_handed_out_in_order_and_a_freed_one_comes_back_first() {
    let mut arena = Arena::new(4);
    let start = arena.base as usize;
    let mut heap = Heap::new(&mut arena);
    let l24 = Layout::from_size_align(24, 8).unwrap();
    // SAFETY: the arena's pages are the heap's alone; each block freed once, with its layout
    unsafe {
        let a = heap.alloc(l24) as usize;
        let b = heap.alloc(l24) as usize;
        assert_eq!((a, b), (start, start + 32));
        heap.dealloc(a as *mut u8, l24);
        assert_eq!(heap.alloc(l24) as usize, a);
        // another class: another page
        let c = heap.alloc(Layout::from_size_align(100, 1).unwrap()) as usize;
        assert_eq!(c, start + PAGE);
        // a block of two pages: its own run
        let d = heap.alloc(Layout::from_size_align(PAGE + 1, 1).unwrap()) as usize;
        assert_eq!(d, start + 2 * PAGE);
        // no page left for a new class, but a used class still hands out its blocks
        assert!(heap
            .alloc(Layout::from_size_align(16, 1).unwrap())
            .is_null());
        heap.dealloc(b as *mut u8, l24);
        assert_eq!(heap.alloc(l24) as usize, b);
    }
}

#[test]
fn a_reallocation_within_the_class_stays_and_one_beyond_moves_the_contents() {
    let mut arena = Arena::new(8);
    let mut heap = Heap::new(&mut arena);
    let l20 = Layout::from_size_align(20, 1).unwrap();
    // SAFETY: as above
    unsafe {
        let p = heap.alloc(l20);
        for i in 0..20 {
            p.add(i).write(i as u8);
        }
        assert_eq!(heap.realloc(p, l20, 32), p);
        let l32 = Layout::from_size_align(32, 1).unwrap();
        let q = heap.realloc(p, l32, 33);
        assert_ne!(q, p);
        for i in 0..20 {
            assert_eq!(q.add(i).read(), i as u8);
        }
        // the old block is free again: its class hands it out next
        assert_eq!(heap.alloc(l20), p);
        // shrinking into a smaller class moves too, keeping what fits
        let l33 = Layout::from_size_align(33, 1).unwrap();
        let r = heap.realloc(q, l33, 10);
        assert_eq!(r.read(), 0);
        assert_eq!(r.add(9).read(), 9);
    }
}

#[derive(Clone, Debug)]
enum Op {
    Alloc { size: usize, align_shift: u32 },
    Free(usize),
    Realloc(usize, usize),
}

fn size() -> impl Strategy<Value = usize> {
    prop_oneof![
        6 => 1..64usize,
        3 => 64..4096usize,
        1 => 4096..(3 * PAGE),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (size(), 0..7u32).prop_map(|(size, align_shift)| Op::Alloc { size, align_shift }),
        3 => any::<usize>().prop_map(Op::Free),
        2 => (any::<usize>(), size()).prop_map(|(i, size)| Op::Realloc(i, size)),
    ]
}

/// The byte a live block is filled with: its serial number's.
fn tag(serial: usize) -> u8 {
    (serial % 251) as u8 + 1
}

proptest! {
    // fixed seed: the same sequences on every run
    #![proptest_config(ProptestConfig {
        cases: 128,
        rng_seed: RngSeed::Fixed(20261203),
        ..ProptestConfig::default()
    })]
    /// Random alloc / free / realloc sequences: every block lies in the arena, aligned as
    /// asked, overlapping no other live block, and keeps its contents (through a
    /// reallocation too, up to the shorter length) until it is freed.
    #[test]
    fn blocks_are_aligned_disjoint_and_keep_their_contents(ops in prop::collection::vec(op(), 0..400)) {
        let mut arena = Arena::new(96);
        let range = arena.range();
        let mut heap = Heap::new(&mut arena);
        // live blocks: start -> (layout, serial)
        let mut live: BTreeMap<usize, (Layout, usize)> = BTreeMap::new();
        let mut serial = 0;
        for op in ops {
            // SAFETY: the arena's pages are the heap's alone; blocks are freed once, with
            // the layout they were made for; reads and writes stay inside live blocks
            unsafe {
                let (ptr, layout) = match op {
                    Op::Alloc { size, align_shift } => {
                        let layout = Layout::from_size_align(size, 1 << align_shift).unwrap();
                        (heap.alloc(layout), layout)
                    }
                    Op::Free(i) | Op::Realloc(i, _) if live.is_empty() => { let _ = i; continue }
                    Op::Free(i) => {
                        let (&start, &(layout, s)) = live.iter().nth(i % live.len()).unwrap();
                        for k in 0..layout.size() {
                            prop_assert_eq!(((start + k) as *const u8).read(), tag(s));
                        }
                        live.remove(&start);
                        heap.dealloc(start as *mut u8, layout);
                        continue;
                    }
                    Op::Realloc(i, size) => {
                        let (&start, &(layout, s)) = live.iter().nth(i % live.len()).unwrap();
                        live.remove(&start);
                        let ptr = heap.realloc(start as *mut u8, layout, size);
                        if ptr.is_null() {
                            // the arena is spent; the block stays as it was
                            live.insert(start, (layout, s));
                            continue;
                        }
                        for k in 0..layout.size().min(size) {
                            prop_assert_eq!(ptr.add(k).read(), tag(s));
                        }
                        (ptr, Layout::from_size_align(size, layout.align()).unwrap())
                    }
                };
                if ptr.is_null() {
                    // only when the arena is spent
                    prop_assert!(heap.pages.next + layout.size().max(PAGE) > range.len());
                    continue;
                }
                let start = ptr as usize;
                prop_assert!(range.contains(&start) && start + layout.size() <= range.end);
                prop_assert_eq!(start % layout.align(), 0);
                let before = live.range(..start).next_back();
                prop_assert!(before.is_none_or(|(&b, &(l, _))| b + l.size() <= start));
                let after = live.range(start..).next();
                prop_assert!(after.is_none_or(|(&a, _)| start + layout.size() <= a));
                serial += 1;
                std::ptr::write_bytes(ptr, tag(serial), layout.size());
                live.insert(start, (layout, serial));
            }
        }
    }
}
