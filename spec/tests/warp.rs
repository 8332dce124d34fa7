//! Warp collectives (§9.7.9.5-6 shfl, §9.7.13.8-14 vote, match, activemask, redux, elect) and the
//! bar.red reductions: the manual's examples run as PTX sequences, hand-derived tables for the
//! boundary values of c, CUDA's width formulation of shuffles (division and remainder instead of
//! the manual's bit masks), and reductions against wide-integer and `f32::total_cmp` models.
// Results are compared lane by lane across several per-lane arrays, as the manual numbers them.
#![allow(clippy::needless_range_loop)]

mod common;

use common::{form, splitmix64};
use spec::catalog::catalog;
use spec::value::Accept;
use spec::warp::*;
use std::collections::HashMap;

const FULL: u32 = 0xffff_ffff;

fn arr<T>(f: impl FnMut(usize) -> T) -> [T; 32] {
    std::array::from_fn(f)
}

fn f32b(x: f32) -> u32 {
    x.to_bits()
}

fn fadd(x: u32, y: u32) -> u32 {
    (f32::from_bits(x) + f32::from_bits(y)).to_bits()
}

// ---------------------------------------------------------------------------------------------
// shfl: the manual's examples

/// Runs one scan step of the manual's examples: `shfl.MODE.b32 Ry|p, Rx, b, c; @p add.f32 Rx, Ry,
/// Rx;` on every lane, through shfl.sync with a full membermask or the deprecated shfl. Checks the
/// two agree and every d is exact.
fn scan_step(mode: ShflMode, rx: &mut [u32; 32], b: u32, c: u32, predicated: bool) {
    let (bb, cc) = ([b; 32], [c; 32]);
    let sync = shfl_sync_lanes(mode, FULL, &[FULL; 32], rx, &bb, &cc).unwrap();
    let old = shfl_lanes(mode, FULL, rx, &bb, &cc);
    assert_eq!(sync, old);
    assert_eq!(
        shfl_sync(mode, FULL, &[FULL; 32], rx, &bb, &cc).unwrap(),
        shfl(mode, FULL, rx, &bb, &cc)
    );
    let before = *rx;
    for i in 0..32 {
        assert_eq!(sync[i].d.accept, Accept::Exact, "lane {i}");
        if sync[i].p || !predicated {
            rx[i] = fadd(sync[i].d.model as u32, before[i]);
        }
    }
}

/// Small integers, so every f32 sum below is exact and order does not matter.
fn scan_inputs(seed: u64) -> [u32; 32] {
    let mut s = seed;
    arr(|_| f32b((splitmix64(&mut s) % 1000) as f32))
}

#[test]
fn manual_inclusive_plus_scan_l11955() {
    for seed in [1, 2, 3] {
        let x = scan_inputs(seed);
        let mut rx = x;
        for b in [1, 2, 4, 8, 16] {
            scan_step(ShflMode::Up, &mut rx, b, 0x0, true);
        }
        let mut sum = 0u64;
        for i in 0..32 {
            sum += f32::from_bits(x[i]) as u64;
            assert_eq!(f32::from_bits(rx[i]), sum as f32, "lane {i}");
        }
    }
}

#[test]
fn manual_inclusive_plus_reverse_scan_l11972() {
    for seed in [4, 5] {
        let x = scan_inputs(seed);
        let mut rx = x;
        for b in [1, 2, 4, 8, 16] {
            scan_step(ShflMode::Down, &mut rx, b, 0x1f, true);
        }
        for i in 0..32 {
            let suffix: u64 = (i..32).map(|k| f32::from_bits(x[k]) as u64).sum();
            assert_eq!(f32::from_bits(rx[i]), suffix as f32, "lane {i}");
        }
    }
}

#[test]
fn manual_butterfly_reduction_l11989() {
    for seed in [6, 7] {
        let x = scan_inputs(seed);
        let mut rx = x;
        for b in [0x10, 0x8, 0x4, 0x2, 0x1] {
            scan_step(ShflMode::Bfly, &mut rx, b, 0x1f, false);
        }
        let total: u64 = x.iter().map(|&v| f32::from_bits(v) as u64).sum();
        assert!(rx.iter().all(|&v| f32::from_bits(v) == total as f32), "{rx:x?}");
    }
}

#[test]
fn manual_shfl_sync_up_example_l12085() {
    // shfl.sync.up.b32 Ry|p, Rx, 0x1, 0x0, 0xffffffff: lane i gets lane i-1, lane 0 keeps its own.
    let rx = arr(|i| 100 + i as u32);
    let r = shfl_sync(ShflMode::Up, FULL, &[FULL; 32], &rx, &[1; 32], &[0; 32]).unwrap();
    assert_eq!(r[0], (100, false));
    for i in 1..32 {
        assert_eq!(r[i], (100 + i as u32 - 1, true));
    }
}

// ---------------------------------------------------------------------------------------------
// shfl: boundary values of c, hand-derived from the pseudocode (L12047-12073)

fn shfl_full(mode: ShflMode, b: u32, c: u32) -> [(u32, bool); 32] {
    let a = arr(|i| 0xa000 + i as u32);
    shfl_sync(mode, FULL, &[FULL; 32], &a, &[b; 32], &[c; 32]).unwrap()
}

fn own(i: usize) -> u32 {
    0xa000 + i as u32
}

#[test]
fn up_with_clamp_31_only_lane_31_at_offset_0() {
    // c = 0x1f: segmask 0, maxLane 31, so j = lane - b >= 31 holds only for lane 31, b = 0.
    let r = shfl_full(ShflMode::Up, 0, 0x1f);
    for i in 0..32 {
        assert_eq!(r[i], (own(i), i == 31), "lane {i}");
    }
    let r = shfl_full(ShflMode::Up, 1, 0x1f);
    assert!((0..32).all(|i| r[i] == (own(i), false)));
}

#[test]
fn down_with_clamp_0_only_lane_0_at_offset_0() {
    let r = shfl_full(ShflMode::Down, 0, 0);
    for i in 0..32 {
        assert_eq!(r[i], (own(i), i == 0), "lane {i}");
    }
    let r = shfl_full(ShflMode::Down, 3, 0);
    assert!((0..32).all(|i| r[i] == (own(i), false)));
}

#[test]
fn down_offset_past_the_top_copies_own_a() {
    // c = 0x1f: lanes 0..=27 read lane+4; lanes 28..31 would read 32..35 and keep their own a.
    let r = shfl_full(ShflMode::Down, 4, 0x1f);
    for i in 0..32 {
        let want = if i <= 27 { (own(i + 4), true) } else { (own(i), false) };
        assert_eq!(r[i], want, "lane {i}");
    }
}

#[test]
fn idx_with_segmask_all_ones_reads_own_lane() {
    // c = 0x1f00: every lane is its own segment, minLane = maxLane = lane, j = lane, p = True.
    for b in [0, 5, 31, 0xffff_ffff] {
        let r = shfl_full(ShflMode::Idx, b, 0x1f00);
        assert!((0..32).all(|i| r[i] == (own(i), true)), "b={b:#x}");
    }
}

#[test]
fn idx_with_clamp_15() {
    // c = 0x0f: j = b[4:0]; in range while j <= 15.
    let r = shfl_full(ShflMode::Idx, 7, 0x0f);
    assert!((0..32).all(|i| r[i] == (own(7), true)));
    let r = shfl_full(ShflMode::Idx, 20, 0x0f);
    assert!((0..32).all(|i| r[i] == (own(i), false)));
    // b = 39 is out of range, but b[4:0] = 7 names a lane: "a data transfer occurs" (L12028).
    let r = shfl_full(ShflMode::Idx, 39, 0x0f);
    assert!((0..32).all(|i| r[i] == (own(7), true)));
}

#[test]
fn idx_with_interleaved_segments() {
    // c = 0x011f: segmask 0b00001 puts even and odd lanes in two interleaved segments; lane i reads
    // lane (b & 0b11110) | (i & 1), always in range (maxLane = 30 | (i & 1)).
    for b in [0, 1, 6, 7, 31] {
        let r = shfl_full(ShflMode::Idx, b, 0x011f);
        for i in 0..32 {
            assert_eq!(r[i], (own((b as usize & 30) | (i & 1)), true), "b={b} lane {i}");
        }
    }
}

#[test]
fn bfly_with_segmask_all_ones() {
    // maxLane = lane: lane ^ 1 <= lane only for odd lanes.
    let r = shfl_full(ShflMode::Bfly, 1, 0x1f00);
    for i in 0..32 {
        let want = if i % 2 == 1 {
            (own(i - 1), true)
        } else {
            (own(i), false)
        };
        assert_eq!(r[i], want, "lane {i}");
    }
}

#[test]
fn up_with_segmask_all_ones_and_offset_0() {
    let r = shfl_full(ShflMode::Up, 0, 0x1f00);
    assert!((0..32).all(|i| r[i] == (own(i), true)));
    let r = shfl_full(ShflMode::Up, 1, 0x1f00);
    assert!((0..32).all(|i| r[i] == (own(i), false)));
}

// ---------------------------------------------------------------------------------------------
// shfl: CUDA's width formulation (c = ((32 - width) << 8) | clamp) for every width and offset

/// CUDA's `__shfl_*_sync(mask, var, x, width)` as its programming guide describes them, with
/// division and remainder: the source lane and whether the transfer happens.
fn cuda_model(mode: ShflMode, lane: u32, x: u32, w: u32) -> (u32, bool) {
    let x = x % 32;
    let base = lane / w * w;
    let (j, ok) = match mode {
        ShflMode::Up => (lane.wrapping_sub(x), lane % w >= x),
        ShflMode::Down => (lane + x, lane % w + x < w),
        ShflMode::Idx => (base + x % w, true),
        // "each group of width consecutive threads [may] access elements from earlier groups,
        // however if they attempt to access elements from later groups their own value is
        // returned".
        ShflMode::Bfly => (lane ^ x, (lane ^ x) < base + w),
    };
    if ok {
        (j, true)
    } else {
        (lane, false)
    }
}

fn cuda_c(mode: ShflMode, w: u32) -> u32 {
    let clamp = if mode == ShflMode::Up { 0 } else { 0x1f };
    ((32 - w) << 8) | clamp
}

#[test]
fn shfl_matches_cuda_width_model() {
    let a = arr(|i| 0x5000 + i as u32 * 7);
    let modes = [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx];
    for mode in modes {
        for w in [1, 2, 4, 8, 16, 32] {
            for x in 0..64 {
                let c = cuda_c(mode, w);
                for (junk_b, junk_c) in [(0, 0), (0xffff_ffe0, 0xffff_e0e0), (0x20, 0x60)] {
                    let r = shfl_sync(mode, FULL, &[FULL; 32], &a, &[x | junk_b; 32], &[c | junk_c; 32]).unwrap();
                    for lane in 0..32u32 {
                        let (j, p) = cuda_model(mode, lane, x, w);
                        assert_eq!(
                            r[lane as usize],
                            (a[j as usize], p),
                            "{mode:?} width {w} x {x} lane {lane} junk {junk_b:#x}/{junk_c:#x}"
                        );
                        assert_eq!(shfl_source(mode, lane, x | junk_b, c | junk_c), (j, p));
                    }
                }
            }
        }
    }
}

/// Every mode, lane, b[4:0] and c (clamp × segmask) against the pseudocode restated in unsigned
/// arithmetic with explicit range tests.
#[test]
fn shfl_source_exhaustive_against_unsigned_restatement() {
    let modes = [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx];
    for c in 0..0x2000u32 {
        if c & 0xe0 != 0 {
            continue;
        }
        let (cval, seg) = (c & 31, c >> 8);
        for lane in 0..32u32 {
            let hi = (lane & seg) | (cval & !seg & 31);
            let lo = lane & seg;
            for b in 0..32u32 {
                for mode in modes {
                    let want = match mode {
                        ShflMode::Up if lane >= b && lane - b >= hi => (lane - b, true),
                        ShflMode::Down if lane + b <= hi => (lane + b, true),
                        ShflMode::Bfly if lane ^ b <= hi => (lane ^ b, true),
                        ShflMode::Idx if lo + (b & !seg & 31) <= hi => (lo + (b & !seg & 31), true),
                        _ => (lane, false),
                    };
                    assert_eq!(
                        shfl_source(mode, lane, b, c),
                        want,
                        "{mode:?} lane {lane} b {b} c {c:#x}"
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// shfl: lanes outside exec and outside membermask

#[test]
fn shfl_sync_reading_an_inactive_lane_is_unspecified_not_an_error() {
    // Lanes 0-15 execute with membermask 0xffff; .down 8 makes lanes 8-15 read lanes 16-23.
    let exec = 0x0000_ffff;
    let a = arr(|i| 0xc000 + i as u32);
    let r = shfl_sync_lanes(ShflMode::Down, exec, &[exec; 32], &a, &[8; 32], &[0x1f; 32]).unwrap();
    for i in 0..8 {
        assert_eq!(r[i].d.model, a[i + 8] as u128);
        assert_eq!(r[i].d.accept, Accept::Exact);
        assert!(r[i].p);
    }
    for i in 8..16 {
        assert_eq!((r[i].d.model, r[i].p, r[i].src), (a[i + 8] as u128, true, i as u32 + 8));
        assert_eq!(r[i].d.accept, Accept::Any, "lane {i}");
    }
    for i in 16..32 {
        assert_eq!((r[i].d.model, r[i].p), (0, false), "idle lane {i}");
    }
    let t = shfl_sync(ShflMode::Down, exec, &[exec; 32], &a, &[8; 32], &[0x1f; 32]).unwrap();
    assert_eq!(t[3], (a[11], true));
    assert_eq!(t[20], (0, false));
    // The deprecated shfl treats exec as the exchange group: the same acceptance sets.
    assert_eq!(shfl_lanes(ShflMode::Down, exec, &a, &[8; 32], &[0x1f; 32]), r);
}

#[test]
fn shfl_sync_two_membermask_groups() {
    // Lanes 0-15 run with 0x0000ffff and lanes 16-31 with 0xffff0000 together; .idx 20 makes
    // every lane read lane 20, which only the upper group may read.
    let mm = arr(|i| if i < 16 { 0x0000_ffff } else { 0xffff_0000 });
    let a = arr(|i| 0xd000 + i as u32);
    let r = shfl_sync_lanes(ShflMode::Idx, FULL, &mm, &a, &[20; 32], &[0x1f; 32]).unwrap();
    for i in 0..32 {
        assert_eq!((r[i].d.model, r[i].p), (a[20] as u128, true));
        let want = if i < 16 { Accept::Any } else { Accept::Exact };
        assert_eq!(r[i].d.accept, want, "lane {i}");
    }
    // With c = 0x101f (16-lane segments) each group stays inside itself: all exact.
    let r = shfl_sync_lanes(ShflMode::Idx, FULL, &mm, &a, &[4; 32], &[0x101f; 32]).unwrap();
    for i in 0..32 {
        let src = if i < 16 { 4 } else { 20 };
        assert_eq!(r[i].d, spec::value::Outcome::exact(a[src] as u128), "lane {i}");
    }
}

#[test]
fn shfl_out_of_range_copies_own_a_even_from_a_partial_group() {
    // Only lanes 4-7 execute, with membermask 0xf0, and c = 0.
    let exec = 0xf0;
    let a = arr(|i| i as u32 * 3);
    let r = shfl_sync_lanes(ShflMode::Up, exec, &[exec; 32], &a, &[1; 32], &[0; 32]).unwrap();
    // Lane 4 reads lane 3 (in range: maxLane is 0), which is inactive: unspecified, model a[3].
    assert_eq!((r[4].d.model, r[4].p, r[4].d.accept.clone()), (9, true, Accept::Any));
    for i in 5..8 {
        assert_eq!((r[i].d.model, r[i].p), (a[i - 1] as u128, true));
        assert_eq!(r[i].d.accept, Accept::Exact);
    }
    // .up 8: lane - 8 < 0 = maxLane for lanes 4-7, so each keeps its own a, exactly.
    let r = shfl_sync_lanes(ShflMode::Up, exec, &[exec; 32], &a, &[8; 32], &[0; 32]).unwrap();
    for i in 4..8 {
        assert_eq!(r[i].d, spec::value::Outcome::exact(a[i] as u128), "lane {i}");
        assert!(!r[i].p);
    }
}

// ---------------------------------------------------------------------------------------------
// membermask violations

#[test]
fn executing_lane_outside_its_membermask_is_an_error() {
    let mut mm = [0x3; 32];
    mm[0] = 0x2;
    let a = [0; 32];
    let e = shfl_sync(ShflMode::Idx, 0x3, &mm, &a, &a, &a).unwrap_err().0;
    assert!(
        e.contains("shfl.sync") && e.contains("lane 0") && e.contains("L12036"),
        "{e}"
    );
    let e = vote_sync(VoteMode::All, 0x3, &mm, &[true; 32]).unwrap_err().0;
    assert!(
        e.contains("vote.sync") && e.contains("lane 0") && e.contains("L18100"),
        "{e}"
    );
    let e = match_sync_any(0x3, &mm, &[0; 32]).unwrap_err().0;
    assert!(e.contains("match.sync") && e.contains("L18154"), "{e}");
    let e = match_sync_all(0x3, &mm, &[0; 32]).unwrap_err().0;
    assert!(e.contains("match.sync"), "{e}");
    let e = redux_sync(form("redux.sync.add.u32"), 0x3, &mm, &[0; 32])
        .unwrap_err()
        .0;
    assert!(e.contains("redux.sync") && e.contains("L18241"), "{e}");
    let e = elect_sync(0x3, &mm).unwrap_err().0;
    assert!(e.contains("elect.sync") && e.contains("L18322"), "{e}");
    let e = bar_warp_sync(0x3, &mm).unwrap_err().0;
    assert!(e.contains("bar.warp.sync") && e.contains("L17128"), "{e}");
}

#[test]
fn membermask_lane_not_executing_is_an_error() {
    // A full membermask while lanes 16-31 are elsewhere: lane 0 would wait forever.
    let exec = 0x0000_ffff;
    let e = vote_sync(VoteMode::Ballot, exec, &[FULL; 32], &[true; 32])
        .unwrap_err()
        .0;
    assert!(
        e.contains("lane 0's membermask 0xffffffff") && e.contains("16, 17") && e.contains("31"),
        "{e}"
    );
    let e = shfl_sync(ShflMode::Up, 0x1, &[0x3; 32], &[0; 32], &[0; 32], &[0; 32])
        .unwrap_err()
        .0;
    assert!(
        e.contains("lane 1 of lane 0's membermask") && e.contains("does not"),
        "{e}"
    );
    assert!(elect_sync(exec, &[FULL; 32]).is_err());
    assert!(redux_sync(form("redux.sync.or.b32"), exec, &[FULL; 32], &[0; 32]).is_err());
    assert!(match_sync_any(exec, &[FULL; 32], &[0; 32]).is_err());
    assert!(bar_warp_sync(exec, &[FULL; 32]).is_err());
    // The same group without the absent lanes is fine.
    assert!(bar_warp_sync(exec, &[exec; 32]).is_ok());
}

#[test]
fn different_membermasks_in_one_group_is_an_error() {
    let mut mm = [0x3; 32];
    mm[1] = 0x2;
    let e = vote_sync(VoteMode::Any, 0x3, &mm, &[false; 32]).unwrap_err().0;
    assert!(
        e.contains("lane 0 (membermask 0x00000003) and lane 1 (membermask 0x00000002)"),
        "{e}"
    );
    assert!(shfl_sync(ShflMode::Idx, 0x3, &mm, &[0; 32], &[0; 32], &[0; 32]).is_err());
    assert!(match_sync_all(0x3, &mm, &[0; 32]).is_err());
}

#[test]
fn no_executing_lane_gives_zero_results() {
    let mm = [0; 32];
    assert_eq!(vote_sync(VoteMode::All, 0, &mm, &[true; 32]).unwrap(), [0; 32]);
    assert_eq!(elect_sync(0, &mm).unwrap(), [(0, false); 32]);
    assert_eq!(
        redux_sync(form("redux.sync.and.b32"), 0, &mm, &[7; 32]).unwrap(),
        [0; 32]
    );
    assert_eq!(
        shfl_sync(ShflMode::Idx, 0, &mm, &[9; 32], &[0; 32], &[0x1f; 32]).unwrap(),
        [(0, false); 32]
    );
    assert_eq!(activemask(0), [0; 32]);
}

// ---------------------------------------------------------------------------------------------
// vote

fn pmask(p: &[bool; 32]) -> u32 {
    (0..32).filter(|&i| p[i]).map(|i| 1u32 << i).sum()
}

#[test]
fn manual_vote_examples_l18116() {
    // vote.sync.all.pred p,q,0xffffffff and vote.sync.ballot.b32 r1,p,0xffffffff.
    let q = arr(|i| i != 13);
    let all = vote_sync(VoteMode::All, FULL, &[FULL; 32], &q).unwrap();
    assert_eq!(all, [0; 32]);
    let ballot = vote_sync(VoteMode::Ballot, FULL, &[FULL; 32], &q).unwrap();
    assert_eq!(ballot, [!(1u32 << 13); 32]);
    // Negating the source computes .none and .not_all (L18086, L18090).
    let nq = arr(|i| !q[i]);
    assert_eq!(vote_sync(VoteMode::All, FULL, &[FULL; 32], &nq).unwrap(), [0; 32]); // none
    assert_eq!(vote_sync(VoteMode::Any, FULL, &[FULL; 32], &nq).unwrap(), [1; 32]); // not_all
    assert_eq!(vote_sync(VoteMode::Uni, FULL, &[FULL; 32], &q).unwrap(), [0; 32]);
    assert_eq!(
        vote_sync(VoteMode::Uni, FULL, &[FULL; 32], &[false; 32]).unwrap(),
        [1; 32]
    );
    assert_eq!(
        vote_sync(VoteMode::Uni, FULL, &[FULL; 32], &[true; 32]).unwrap(),
        [1; 32]
    );
}

#[test]
fn deprecated_vote_ballot_with_partial_exec() {
    // Inactive lanes contribute 0 (L18033); the vote is over the active lanes only.
    let exec = 0x0f0f_0f0f;
    let p = arr(|i| i % 3 != 0);
    let want_ballot = pmask(&p) & exec;
    let r = vote(VoteMode::Ballot, exec, &p);
    for i in 0..32 {
        assert_eq!(r[i], if exec >> i & 1 == 1 { want_ballot } else { 0 }, "lane {i}");
    }
    // Lane 0 and 3 are False, so not all; the inactive lanes' True entries do not count either.
    let all_active_true = arr(|i| exec >> i & 1 == 1);
    assert_eq!(vote(VoteMode::All, exec, &all_active_true)[0], 1);
    assert_eq!(vote(VoteMode::Uni, exec, &all_active_true)[8], 1);
    assert_eq!(vote(VoteMode::All, exec, &p)[0], 0);
    assert_eq!(vote(VoteMode::Any, exec, &p)[1], 1);
    let only_inactive_true = arr(|i| exec >> i & 1 == 0);
    assert_eq!(vote(VoteMode::Any, exec, &only_inactive_true)[0], 0);
    assert_eq!(vote(VoteMode::Ballot, exec, &only_inactive_true)[0], 0);
    assert_eq!(
        vote(VoteMode::Any, exec, &only_inactive_true)[4],
        0,
        "lane 4 is inactive"
    );
}

#[test]
fn vote_sync_ballot_per_membermask_group() {
    // Lanes 0-7 vote with 0xff, lanes 8-31 with 0xffffff00; lanes outside a membermask contribute
    // 0 to its ballot (L18098).
    let mm = arr(|i| if i < 8 { 0xff } else { 0xffff_ff00 });
    let p = arr(|i| i % 2 == 0);
    let r = vote_sync(VoteMode::Ballot, FULL, &mm, &p).unwrap();
    for i in 0..32 {
        assert_eq!(r[i], if i < 8 { 0x55 } else { 0x5555_5500 });
    }
}

#[test]
fn vote_sweep_against_mask_arithmetic() {
    let mut s = 99;
    for _ in 0..2000 {
        let exec = splitmix64(&mut s) as u32;
        let split = splitmix64(&mut s) as u32;
        let pm = splitmix64(&mut s) as u32;
        let p = arr(|i| pm >> i & 1 == 1);
        // Two groups: the executing lanes inside `split` and those outside.
        let mm = arr(|i| {
            if split >> i & 1 == 1 {
                exec & split
            } else {
                exec & !split
            }
        });
        for mode in [VoteMode::All, VoteMode::Any, VoteMode::Uni, VoteMode::Ballot] {
            let r = vote_sync(mode, exec, &mm, &p).unwrap();
            for i in 0..32 {
                let g = mm[i];
                let want = if exec >> i & 1 == 0 {
                    0
                } else {
                    match mode {
                        VoteMode::All => (pm & g == g) as u32,
                        VoteMode::Any => (pm & g != 0) as u32,
                        VoteMode::Uni => (pm & g == g || pm & g == 0) as u32,
                        VoteMode::Ballot => pm & g,
                    }
                };
                assert_eq!(
                    r[i], want,
                    "{mode:?} exec {exec:#x} split {split:#x} p {pm:#x} lane {i}"
                );
            }
            assert_eq!(vote(mode, exec, &p), vote_sync(mode, exec, &[exec; 32], &p).unwrap());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// match.sync

fn match_model(exec: u32, mm: &[u32; 32], a: &[u64; 32]) -> [u32; 32] {
    arr(|i| {
        if exec >> i & 1 == 0 {
            return 0;
        }
        let mut groups: HashMap<u64, u32> = HashMap::new();
        for k in 0..32 {
            if mm[i] >> k & 1 == 1 {
                *groups.entry(a[k]).or_default() |= 1 << k;
            }
        }
        groups[&a[i]]
    })
}

#[test]
fn match_any_groups_equal_values() {
    let a = arr(|i| (i % 3) as u64);
    let r = match_sync_any(FULL, &[FULL; 32], &a).unwrap();
    let by_residue: [u32; 3] = std::array::from_fn(|m| (0..32).filter(|i| i % 3 == m).map(|i| 1u32 << i).sum());
    for i in 0..32 {
        assert_eq!(r[i], by_residue[i % 3], "lane {i}");
    }
    assert_eq!(r, match_model(FULL, &[FULL; 32], &a));
}

#[test]
fn match_b64_compares_all_64_bits() {
    // Equal low words, different high words: two groups.
    let a = arr(|i| ((i as u64 % 2) << 40) | 0x1234);
    let r = match_sync_any(FULL, &[FULL; 32], &a).unwrap();
    assert_eq!(r[0], 0x5555_5555);
    assert_eq!(r[1], 0xaaaa_aaaa);
    assert_eq!(match_sync_all(FULL, &[FULL; 32], &a).unwrap(), [(0, false); 32]);
}

#[test]
fn match_all_gives_the_membermask_or_zero() {
    // Lanes 0-15 agree on 7; lanes 16-31 do not all agree.
    let mm = arr(|i| if i < 16 { 0xffff } else { 0xffff_0000 });
    let a = arr(|i| if i < 16 || i == 31 { 7 } else { 8 });
    let r = match_sync_all(FULL, &mm, &a).unwrap();
    for i in 0..32 {
        assert_eq!(r[i], if i < 16 { (0xffff, true) } else { (0, false) }, "lane {i}");
    }
    // Partial exec: only lanes 2, 5, 9 run, with membermask exactly them.
    let exec = 1 << 2 | 1 << 5 | 1 << 9;
    let r = match_sync_all(exec, &[exec; 32], &[42; 32]).unwrap();
    assert_eq!(
        (r[2], r[5], r[9], r[0]),
        ((exec, true), (exec, true), (exec, true), (0, false))
    );
}

#[test]
fn match_any_sweep_against_hashmap_model() {
    let mut s = 7;
    for _ in 0..500 {
        let exec = splitmix64(&mut s) as u32 | 1;
        let split = splitmix64(&mut s) as u32;
        let mm = arr(|i| {
            if split >> i & 1 == 1 {
                exec & split
            } else {
                exec & !split
            }
        });
        // Few distinct values so groups form; some differ only in the high word.
        let a = arr(|_| {
            let v = splitmix64(&mut s) % 4;
            if v == 3 {
                1 << 63
            } else {
                v
            }
        });
        let r = match_sync_any(exec, &mm, &a).unwrap();
        assert_eq!(r, match_model(exec, &mm, &a), "exec {exec:#x} split {split:#x}");
        let all = match_sync_all(exec, &mm, &a).unwrap();
        for i in 0..32 {
            if exec >> i & 1 == 1 {
                let same = r[i] == mm[i];
                assert_eq!(all[i], if same { (mm[i], true) } else { (0, false) });
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// activemask

#[test]
fn activemask_reports_exec() {
    let r = activemask(0x8000_0101);
    assert_eq!((r[0], r[8], r[31], r[1]), (0x8000_0101, 0x8000_0101, 0x8000_0101, 0));
}

// ---------------------------------------------------------------------------------------------
// redux.sync

fn redux_forms() -> Vec<&'static spec::catalog::Form> {
    catalog().forms.iter().filter(|f| f.opcode == "redux").collect()
}

#[test]
fn every_catalog_redux_form_decodes() {
    let forms = redux_forms();
    // add/min/max × u32/s32, and/or/xor × b32, min/max × {.abs} × {.NaN} × f32.
    assert_eq!(
        forms.len(),
        6 + 3 + 8,
        "{:?}",
        forms.iter().map(|f| &f.name).collect::<Vec<_>>()
    );
    for f in forms {
        let r = Redux::from_form(f).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        if let ReduxType::F32 { abs, nan } = r.ty {
            assert_eq!(
                (abs, nan),
                (f.name.contains(".abs"), f.name.contains(".NaN")),
                "{}",
                f.name
            );
        }
    }
    for name in ["add.s32", "shfl.sync.idx.b32", "vote.sync.ballot.b32"] {
        let e = redux_sync(form(name), FULL, &[FULL; 32], &[0; 32]).unwrap_err().0;
        assert!(e.contains("not a redux.sync form"), "{e}");
    }
}

fn redux_full(name: &str, vals: &[u32]) -> u32 {
    let exec = if vals.len() == 32 {
        FULL
    } else {
        (1u32 << vals.len()) - 1
    };
    let a = arr(|i| vals.get(i).copied().unwrap_or(0xdead_beef));
    let r = redux_sync(form(name), exec, &[exec; 32], &a).unwrap();
    assert!((0..vals.len()).all(|i| r[i] == r[0]), "{name}: {r:x?}");
    assert!((vals.len()..32).all(|i| r[i] == 0), "{name}: idle lanes");
    r[0]
}

#[test]
fn manual_redux_add_s32_over_lanes_0_to_7_l18266() {
    // redux.sync.add.s32 dst, src, 0xff
    let v = [5u32, (-3i32) as u32, 100, 0, 7, (-200i32) as u32, 1, 2];
    assert_eq!(redux_full("redux.sync.add.s32", &v), (-88i32) as u32);
}

#[test]
fn redux_integer_edges() {
    let int_min = 0x8000_0000u32;
    // 32 × 2^31 = 2^36 ≡ 0 (mod 2^32): "truncated to 32 bits" (L18231).
    assert_eq!(redux_full("redux.sync.add.u32", &[int_min; 32]), 0);
    assert_eq!(redux_full("redux.sync.add.s32", &[int_min; 32]), 0);
    assert_eq!(redux_full("redux.sync.add.s32", &[0x7fff_ffff, 1]), int_min);
    assert_eq!(redux_full("redux.sync.add.u32", &[FULL, FULL, 2]), 0);
    let v = [int_min, 0x7fff_ffff, 1, FULL];
    assert_eq!(redux_full("redux.sync.min.s32", &v), int_min);
    assert_eq!(redux_full("redux.sync.max.s32", &v), 0x7fff_ffff);
    assert_eq!(redux_full("redux.sync.min.u32", &v), 1);
    assert_eq!(redux_full("redux.sync.max.u32", &v), FULL);
    assert_eq!(redux_full("redux.sync.min.s32", &[FULL, 0]), FULL);
    assert_eq!(redux_full("redux.sync.max.u32", &[0]), 0);
    assert_eq!(redux_full("redux.sync.and.b32", &[0xff0f, 0x0fff, 0xf0ff_ffff]), 0x0f0f);
    assert_eq!(redux_full("redux.sync.or.b32", &[0x1, 0x80, 0x8000_0000]), 0x8000_0081);
    assert_eq!(
        redux_full("redux.sync.xor.b32", &[0xff, 0x0f, 0xf000_0000]),
        0xf000_00f0
    );
    assert_eq!(redux_full("redux.sync.xor.b32", &[0x1234; 32]), 0);
}

#[test]
fn redux_integer_sweep_against_wide_models() {
    let mut s = 3;
    let names = [
        "redux.sync.add.u32",
        "redux.sync.add.s32",
        "redux.sync.min.u32",
        "redux.sync.min.s32",
        "redux.sync.max.u32",
        "redux.sync.max.s32",
        "redux.sync.and.b32",
        "redux.sync.or.b32",
        "redux.sync.xor.b32",
    ];
    for _ in 0..300 {
        let exec = splitmix64(&mut s) as u32;
        let split = splitmix64(&mut s) as u32;
        let mm = arr(|i| {
            if split >> i & 1 == 1 {
                exec & split
            } else {
                exec & !split
            }
        });
        // Biased towards the extremes.
        let a = arr(|_| match splitmix64(&mut s) % 4 {
            0 => 0x8000_0000,
            1 => 0x7fff_ffff,
            2 => FULL,
            _ => splitmix64(&mut s) as u32,
        });
        for name in names {
            let r = redux_sync(form(name), exec, &mm, &a).unwrap();
            for i in 0..32 {
                if exec >> i & 1 == 0 {
                    assert_eq!(r[i], 0);
                    continue;
                }
                let g: Vec<u32> = (0..32).filter(|&k| mm[i] >> k & 1 == 1).map(|k| a[k]).collect();
                let signed: Vec<i64> = g.iter().map(|&x| x as i32 as i64).collect();
                let unsigned: Vec<i64> = g.iter().map(|&x| x as i64).collect();
                let want = match name.rsplit('.').nth(1).unwrap() {
                    "add" => (unsigned.iter().sum::<i64>() % (1 << 32)) as u32,
                    "min" if name.ends_with("s32") => *signed.iter().min().unwrap() as u32,
                    "max" if name.ends_with("s32") => *signed.iter().max().unwrap() as u32,
                    "min" => *unsigned.iter().min().unwrap() as u32,
                    "max" => *unsigned.iter().max().unwrap() as u32,
                    // Bit by bit: a result bit is set when all / any / an odd number of inputs set it.
                    op => (0..32)
                        .map(|bit| {
                            let n = g.iter().filter(|&&x| x >> bit & 1 == 1).count();
                            let on = match op {
                                "and" => n == g.len(),
                                "or" => n > 0,
                                _ => n % 2 == 1,
                            };
                            (on as u32) << bit
                        })
                        .sum(),
                };
                assert_eq!(r[i], want, "{name} lane {i} group {g:x?}");
            }
        }
    }
}

const CANON: u32 = 0x7fff_ffff;
const NEG0: u32 = 0x8000_0000;

#[test]
fn redux_f32_zeros_abs_and_nans() {
    // +0.0 > -0.0 (L18233).
    assert_eq!(redux_full("redux.sync.max.f32", &[NEG0, 0, NEG0]), 0);
    assert_eq!(redux_full("redux.sync.min.f32", &[0, NEG0, 0]), NEG0);
    // .abs reduces |x| (L18235): the result is itself an absolute value.
    assert_eq!(
        redux_full("redux.sync.max.abs.f32", &[f32b(-3.0), f32b(2.0)]),
        f32b(3.0)
    );
    assert_eq!(
        redux_full("redux.sync.min.abs.f32", &[f32b(-3.0), f32b(2.0)]),
        f32b(2.0)
    );
    assert_eq!(redux_full("redux.sync.min.abs.f32", &[NEG0, f32b(1.0)]), 0);
    assert_eq!(
        redux_full("redux.sync.max.abs.f32", &[0xff80_0000, f32b(1.0)]),
        0x7f80_0000
    );
    // Without .NaN NaNs are left out (L18239); with it any NaN gives the canonical NaN (L18237).
    let with_nan = [f32b(1.0), 0x7fc0_0123, f32b(-2.0)];
    assert_eq!(redux_full("redux.sync.min.f32", &with_nan), f32b(-2.0));
    assert_eq!(redux_full("redux.sync.max.f32", &with_nan), f32b(1.0));
    assert_eq!(redux_full("redux.sync.min.NaN.f32", &with_nan), CANON);
    assert_eq!(redux_full("redux.sync.max.abs.NaN.f32", &with_nan), CANON);
    assert_eq!(redux_full("redux.sync.max.abs.f32", &with_nan), f32b(2.0));
    // All NaN: the canonical NaN, not an input's payload or sign.
    for name in ["redux.sync.min.f32", "redux.sync.max.abs.f32", "redux.sync.max.NaN.f32"] {
        assert_eq!(redux_full(name, &[0xffc0_0001, 0x7f80_0001]), CANON, "{name}");
        assert_eq!(redux_full(name, &[0x7fc0_0123]), CANON, "{name}");
    }
    // Infinities and subnormals are ordinary values, not flushed.
    assert_eq!(redux_full("redux.sync.min.f32", &[1, NEG0 | 1]), NEG0 | 1);
    assert_eq!(redux_full("redux.sync.max.f32", &[1, NEG0 | 1, 0]), 1);
    assert_eq!(redux_full("redux.sync.min.f32", &[0xff80_0000, f32b(1.0)]), 0xff80_0000);
    assert_eq!(
        redux_full("redux.sync.max.f32", &[0x7f7f_ffff, 0x7f80_0000]),
        0x7f80_0000
    );
}

#[test]
fn redux_f32_sweep_against_total_cmp() {
    let mut s = 11;
    let specials = [
        0,
        NEG0,
        1,
        NEG0 | 1,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0001,
    ];
    for _ in 0..3000 {
        let n = 1 + (splitmix64(&mut s) % 32) as usize;
        let v: Vec<u32> = (0..n)
            .map(|_| {
                let r = splitmix64(&mut s);
                if r.is_multiple_of(3) {
                    specials[(r >> 8) as usize % specials.len()]
                } else {
                    (r >> 16) as u32
                }
            })
            .collect();
        for max in [false, true] {
            for abs in [false, true] {
                for nan in [false, true] {
                    let name = format!(
                        "redux.sync.{}{}{}.f32",
                        if max { "max" } else { "min" },
                        if abs { ".abs" } else { "" },
                        if nan { ".NaN" } else { "" }
                    );
                    let xs: Vec<f32> = v
                        .iter()
                        .map(|&x| f32::from_bits(x))
                        .map(|x| if abs { x.abs() } else { x })
                        .collect();
                    let any_nan = xs.iter().any(|x| x.is_nan());
                    let numbers = xs.iter().filter(|x| !x.is_nan());
                    let pick = if max {
                        numbers.max_by(|x, y| x.total_cmp(y))
                    } else {
                        numbers.min_by(|x, y| x.total_cmp(y))
                    };
                    let want = match pick {
                        _ if nan && any_nan => CANON,
                        Some(x) => x.to_bits(),
                        None => CANON,
                    };
                    assert_eq!(redux_full(&name, &v), want, "{name} {v:x?}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// elect.sync

#[test]
fn elect_picks_the_lowest_lane_of_each_membermask() {
    let r = elect_sync(FULL, &[FULL; 32]).unwrap();
    assert!((0..32).all(|i| r[i] == (0, i == 0)));
    // Two groups executing together: lanes 4-8 and lanes 16-19.
    let (g1, g2) = (0x1f0u32, 0xf_0000u32);
    let mm = arr(|i| if g1 >> i & 1 == 1 { g1 } else { g2 });
    let r = elect_sync(g1 | g2, &mm).unwrap();
    for i in 0..32 {
        let want = match i {
            4..=8 => (4, i == 4),
            16..=19 => (16, i == 16),
            _ => (0, false),
        };
        assert_eq!(r[i], want, "lane {i}");
    }
    assert!(elect_sync_accepts(g1 | g2, &mm, &r).unwrap());
}

#[test]
fn elect_accepts_any_consistent_leader() {
    let exec = 0x0000_ff00;
    let mm = [exec; 32];
    let m = elect_sync(exec, &mm).unwrap();
    assert_eq!(m[8], (8, true));
    assert_eq!(m[9], (8, false));
    // Another leader of the group, consistently reported: allowed (L18324 fixes no lane).
    let other = arr(|i| if exec >> i & 1 == 1 { (10, i == 10) } else { (0, false) });
    assert!(elect_sync_accepts(exec, &mm, &other).unwrap());
    let mut two_leaders = other;
    two_leaders[11].1 = true;
    assert!(!elect_sync_accepts(exec, &mm, &two_leaders).unwrap());
    let mut split_vote = other;
    split_vote[12] = (9, false);
    assert!(!elect_sync_accepts(exec, &mm, &split_vote).unwrap());
    let outside = arr(|i| (3, i == 3));
    assert!(!elect_sync_accepts(exec, &mm, &outside).unwrap());
    let no_leader = arr(|_| (40, false));
    assert!(!elect_sync_accepts(exec, &mm, &no_leader).unwrap());
    // Idle lanes are not looked at.
    let mut idle_noise = m;
    idle_noise[0] = (31, true);
    assert!(elect_sync_accepts(exec, &mm, &idle_noise).unwrap());
}

// ---------------------------------------------------------------------------------------------
// bar.red / barrier.red

#[test]
fn bar_red_over_a_cta() {
    // bar.cta.red.popc.u32 r3,1,p over 1024 threads with p = (tid % 3 == 0): ceil(1024 / 3).
    let p: Vec<bool> = (0..1024).map(|t| t % 3 == 0).collect();
    assert_eq!(bar_red_popc(&p), 342);
    assert!(!bar_red_and(&p));
    assert!(bar_red_or(&p));
    assert_eq!(bar_red(BarRedOp::Popc, &p), 342);
    // The complement (`!c`) is the caller's: 1024 - 342.
    let np: Vec<bool> = p.iter().map(|x| !x).collect();
    assert_eq!(bar_red_popc(&np), 682);
    let yes = vec![true; 96];
    assert_eq!((bar_red(BarRedOp::And, &yes), bar_red(BarRedOp::Or, &yes)), (1, 1));
    let no = vec![false; 64];
    assert_eq!(
        (
            bar_red(BarRedOp::And, &no),
            bar_red(BarRedOp::Or, &no),
            bar_red_popc(&no)
        ),
        (0, 0, 0)
    );
}

#[test]
fn barrier_operand_rules() {
    assert!(barrier_check(0, None, false).is_ok());
    assert!(barrier_check(15, Some(64), false).is_ok());
    assert!(barrier_check(15, Some(32), true).is_ok());
    let e = barrier_check(16, None, false).unwrap_err().0;
    assert!(e.contains("0..15"), "{e}");
    let e = barrier_check(1, Some(48), false).unwrap_err().0;
    assert!(e.contains("multiple of the warp size"), "{e}");
    assert!(barrier_check(1, Some(0), true).is_err());
    assert!(barrier_check(1, None, true).is_err());
}

// ---------------------------------------------------------------------------------------------
// the catalog's modes parse

#[test]
fn catalog_modes_parse() {
    let mut n = 0;
    for f in &catalog().forms {
        match f.opcode {
            "shfl" => {
                assert!(ShflMode::parse(f.var("mode").unwrap()).is_some(), "{}", f.name);
                n += 1;
            }
            "vote" => {
                let m = f.var("mode").unwrap_or(if f.has("ballot") { "ballot" } else { "?" });
                assert!(VoteMode::parse(m).is_some(), "{}", f.name);
                n += 1;
            }
            "bar" | "barrier" if f.has("red") => {
                let op = f.var("op").unwrap_or(if f.has("popc") { "popc" } else { "?" });
                assert!(BarRedOp::parse(op).is_some(), "{}", f.name);
                n += 1;
            }
            _ => {}
        }
    }
    // shfl 4 + shfl.sync 4, vote 4 + vote.sync 4, bar/barrier red forms.
    assert!(n >= 16, "{n}");
    assert_eq!(ShflMode::parse("xor"), None);
    assert_eq!(VoteMode::parse("none"), None);
}
