use super::*;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use std::collections::BTreeMap;

/// `count` pages of real memory, handed out in order (as `memory.grow` does), then none.
/// `gap` pages are skipped after each grant from the `gap_after`-th on (another user of
/// the memory growing it in between: the next region does not follow the fence).
struct Arena {
    base: *mut u8,
    layout: Layout,
    next: usize,
    grants: usize,
    gap_after: usize,
    /// The pages handed out: `(start, end)` per grant.
    log: Vec<(usize, usize)>,
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
            grants: 0,
            gap_after: usize::MAX,
            log: Vec::new(),
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
        self.grants += 1;
        let from = self.next
            + if self.grants > self.gap_after {
                PAGE
            } else {
                0
            };
        let end = from + count * PAGE;
        (end <= self.layout.size()).then(|| {
            let start = self.base as usize + from;
            self.next = end;
            self.log.push((start, start + count * PAGE));
            start
        })
    }
}

/// Walk every region's chunks: sizes add up to the fence, flags agree with the chunk
/// before, no two free chunks touch, every free chunk is on the list of its size and the
/// bitmap says so, and nothing else is on the lists. Returns the free bytes.
fn check_heap<P: Pages>(heap: &Heap<P>, regions: &[(usize, usize)]) -> usize {
    let mut on_lists = std::collections::BTreeSet::new();
    for (list, &head) in heap.lists.iter().enumerate() {
        let flagged = heap.used[list / BITS] & (1 << (list % BITS)) != 0;
        assert_eq!(flagged, head != 0, "list {list}: bitmap and head disagree");
        let (mut at, mut prev) = (head, 0);
        while at != 0 {
            // SAFETY: list members are chunks of ours
            let (header, back) = unsafe { (get(at), get(at + 2 * W)) };
            assert_eq!(back, prev, "list {list}: broken back link at {at:#x}");
            assert_eq!(
                list_of(header & !FLAGS),
                list,
                "chunk {at:#x} on the wrong list"
            );
            assert!(on_lists.insert(at), "chunk {at:#x} listed twice");
            prev = at;
            // SAFETY: as above
            at = unsafe { get(at + W) };
        }
    }
    let mut free = 0;
    for &(start, end) in regions {
        let mut at = start + ALIGN - W;
        let mut prev_free = false;
        loop {
            // SAFETY: chunks of ours, walked by their sizes
            let header = unsafe { get(at) };
            let size = header & !FLAGS;
            assert_eq!(
                header & PREV_IN_USE == 0,
                prev_free,
                "chunk {at:#x}: previous-in-use flag"
            );
            if size == 0 {
                assert_eq!(at, end - W, "a fence before the region's end");
                assert_ne!(header & IN_USE, 0);
                break;
            }
            assert_eq!(size % ALIGN, 0);
            assert!(
                size >= MIN_CHUNK && at + size < end,
                "chunk {at:#x} of {size} runs past its region"
            );
            let is_free = header & IN_USE == 0;
            if is_free {
                assert!(!prev_free, "two free chunks touch at {at:#x}");
                // SAFETY: a free chunk's last word
                assert_eq!(
                    unsafe { get(at + size - W) },
                    size,
                    "trailing size of {at:#x}"
                );
                assert!(on_lists.remove(&at), "free chunk {at:#x} on no list");
                free += size;
            }
            prev_free = is_free;
            at += size;
        }
    }
    assert!(
        on_lists.is_empty(),
        "listed chunks that are not free: {on_lists:?}"
    );
    free
}

/// [`check_heap`] of the heap's one region, from the arena's `start` to the fence.
fn check_region(heap: &Heap<&mut Arena>, start: usize) -> usize {
    check_heap(heap, &[(start, heap.fence + W)])
}

/// The bytes of the one free chunk that region is when nothing in it is in use.
fn whole_region(heap: &Heap<&mut Arena>, start: usize) -> usize {
    heap.fence - (start + ALIGN - W)
}

/// The regions the arena handed out, merged where contiguous (as the heap merges them).
fn regions(grants: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &(start, end) in grants {
        match out.last_mut() {
            Some(last) if last.1 == start => last.1 = end,
            _ => out.push((start, end)),
        }
    }
    out
}

#[test]
fn lists_split_each_power_of_two_in_four() {
    assert_eq!(list_of(16), 4 << 2);
    assert_eq!(list_of(20), (4 << 2) | 1);
    assert_eq!(list_of(28), (4 << 2) | 3);
    assert_eq!(list_of(32), 5 << 2);
    assert_eq!(list_of(PAGE + PAGE / 2), (16 << 2) | 2);
    // a request takes the first list whose every chunk holds it
    assert_eq!(fitting_list(16), list_of(16));
    assert_eq!(fitting_list(24), list_of(24));
    assert_eq!(fitting_list(48), list_of(48));
    assert_eq!(fitting_list(40), list_of(40));
    assert_eq!(fitting_list(56), list_of(56));
    assert_eq!(fitting_list(64), list_of(64));
    assert_eq!(fitting_list(72), list_of(80));
    assert_eq!(chunk_size(1), Some(MIN_CHUNK));
    assert_eq!(
        chunk_size(100),
        Some((100 + W).next_multiple_of(8).max(MIN_CHUNK))
    );
    assert_eq!(chunk_size(usize::MAX), None);
}

#[test]
fn freed_neighbours_merge_and_the_memory_is_reused_for_any_size() {
    let mut arena = Arena::new(4);
    let start = arena.base as usize;
    let mut heap = Heap::new(&mut arena);
    let small = Layout::from_size_align(40, 8).unwrap();
    // SAFETY: the arena's pages are the heap's alone; each block freed once, with its layout
    unsafe {
        let blocks: Vec<*mut u8> = (0..1000).map(|_| heap.alloc(small)).collect();
        assert!(blocks.iter().all(|p| !p.is_null()));
        assert_eq!(
            blocks[0] as usize,
            start + ALIGN,
            "the first payload, 8-aligned"
        );
        let fence = heap.fence;
        let free_before = check_region(&heap, start);
        // free every other block, then the rest: each merges with both neighbours
        for p in blocks.iter().step_by(2) {
            heap.dealloc(*p, small);
        }
        check_region(&heap, start);
        for p in blocks.iter().skip(1).step_by(2) {
            heap.dealloc(*p, small);
        }
        let free = check_region(&heap, start);
        assert_eq!(
            free,
            whole_region(&heap, start),
            "one free chunk spans the region"
        );
        assert!(free > free_before);
        // a request of another size takes that memory, not new pages
        let big = Layout::from_size_align(free - 2 * W, 8).unwrap();
        let p = heap.alloc(big);
        assert_eq!(p as usize, start + ALIGN);
        assert_eq!(heap.fence, fence, "no new pages");
        heap.dealloc(p, big);
    }
}

#[test]
fn memory_grown_after_the_fence_extends_the_last_free_chunk() {
    let mut arena = Arena::new(8);
    let start = arena.base as usize;
    let mut heap = Heap::new(&mut arena);
    let l = |size| Layout::from_size_align(size, 8).unwrap();
    // SAFETY: as above
    unsafe {
        let a = heap.alloc(l(100));
        let b = heap.alloc(l(PAGE));
        // two grants, one region: b's chunk starts in the first page
        assert!((b as usize) < start + PAGE);
        check_region(&heap, start);
        heap.dealloc(a, l(100));
        heap.dealloc(b, l(PAGE));
        let free = check_region(&heap, start);
        assert_eq!(free, whole_region(&heap, start));
    }
}

#[test]
fn realloc_shrinks_and_grows_in_place_and_moves_when_it_must() {
    let mut arena = Arena::new(8);
    let start = arena.base as usize;
    let mut heap = Heap::new(&mut arena);
    let l = |size| Layout::from_size_align(size, 1).unwrap();
    // SAFETY: as above
    unsafe {
        let p = heap.alloc(l(3000));
        for i in 0..3000 {
            p.add(i).write(i as u8);
        }
        // as passStringToWasm0 does: room for 3 bytes per char, then shrink to what was written
        let q = heap.realloc(p, l(3000), 1000);
        assert_eq!(q, p, "shrunk in place");
        check_region(&heap, start);
        // the freed tail follows: growing back is in place too
        let r = heap.realloc(q, l(1000), 2000);
        assert_eq!(r, p, "grown in place");
        // a block after it: growing must move
        let blocker = heap.alloc(l(16));
        let s = heap.realloc(r, l(2000), 200_000);
        assert_ne!(s, r);
        for i in 0..1000 {
            assert_eq!(s.add(i).read(), i as u8);
        }
        check_region(&heap, start);
        heap.dealloc(blocker, l(16));
        heap.dealloc(s, l(200_000));
        let free = check_region(&heap, start);
        assert_eq!(
            free,
            whole_region(&heap, start),
            "all free again, one chunk"
        );
    }
}

#[test]
fn larger_alignments_and_a_new_region_after_a_gap() {
    let mut arena = Arena::new(16);
    arena.gap_after = 1;
    let start = arena.base as usize;
    let mut heap = Heap::new(&mut arena);
    // SAFETY: as above
    unsafe {
        for align in [16, 32, 64, 4096] {
            let l = Layout::from_size_align(24, align).unwrap();
            let p = heap.alloc(l);
            assert_eq!(p as usize % align, 0);
            p.write_bytes(0xAB, 24);
            heap.dealloc(p, l);
        }
        // the first region: one page; the next grant skips a page: a second region
        let first_fence = heap.fence;
        assert_eq!(first_fence, start + PAGE - W);
        let big = Layout::from_size_align(2 * PAGE, 8).unwrap();
        let p = heap.alloc(big);
        assert!(p as usize > start + 2 * PAGE);
        let free = check_heap(
            &heap,
            &[(start, first_fence + W), (start + 2 * PAGE, heap.fence + W)],
        );
        assert!(free >= PAGE - 2 * ALIGN);
        heap.dealloc(p, big);
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
    /// Random alloc / free / realloc sequences (alignments 1 to 64, sizes to 3 pages, a
    /// gap in the memory's growth or none): every block lies in the arena, aligned as
    /// asked, overlapping no other live block, and keeps its contents (through a
    /// reallocation too, up to the shorter length) until it is freed; the heap's chunks
    /// and lists stay consistent after every step, and once everything is freed each
    /// region is one free chunk.
    #[test]
    fn blocks_are_aligned_disjoint_keep_their_contents_and_merge_back(
        ops in prop::collection::vec(op(), 0..300),
        gap_after in prop_oneof![Just(usize::MAX), 1..6usize],
    ) {
        let mut arena = Arena::new(128);
        arena.gap_after = gap_after;
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
                    Op::Free(_) | Op::Realloc(..) if live.is_empty() => continue,
                    Op::Free(i) => {
                        let (&start, &(layout, s)) = live.iter().nth(i % live.len()).unwrap();
                        for k in 0..layout.size() {
                            prop_assert_eq!(((start + k) as *const u8).read(), tag(s));
                        }
                        live.remove(&start);
                        heap.dealloc(start as *mut u8, layout);
                        (std::ptr::null_mut(), layout)
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
                check_heap(&heap, &regions(&heap.pages.log));
                if ptr.is_null() {
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
        // SAFETY: as above
        unsafe {
            for (&start, &(layout, _)) in &live {
                heap.dealloc(start as *mut u8, layout);
            }
        }
        let regions = regions(&heap.pages.log);
        let free = check_heap(&heap, &regions);
        let spans: usize = regions.iter().map(|&(s, e)| e - W - (s + ALIGN - W)).sum();
        prop_assert_eq!(free, spans, "everything freed: each region one free chunk");
    }
}
