//! Bulk asynchronous copies inside programs (issue 16): `cp.async.bulk` global → shared through an
//! mbarrier's transaction count (§9.7.9.25.4.1), shared → global through bulk async-groups
//! (§9.7.9.25.6), `cp.reduce.async.bulk` to global and to shared memory (§9.7.9.25.4.2), and
//! `st.bulk` (§9.7.9.13, sm_100), and the tensor copy `cp.async.bulk.tensor.1d` (§9.7.9.25.5.2)
//! through a tensor map over the program's inputs (the launch's `p_tmap` parameter). One thread issues each operation: thread 0, or the lane of warp
//! 0 that `elect.sync` picks (§9.7.13.14) — which lane is not said (only that the choice is the
//! same for the same mask, L18325), so the election's results only guard, never reach the
//! signature.
//!
//! # Why the programs stay race-free and deterministic
//! - Each construct takes fresh shared regions (see `asynccopy`) and, for a copy to global
//!   memory, a fresh area of the scratch buffer past the threads' slots: nothing else reads or
//!   writes them before or after.
//! - global → shared (a bulk copy, or a tensor copy of a 1-D box of the same bytes: a box
//!   of `u32` elements inside the tensor, so no out-of-bounds fill): the leader initializes an mbarrier (arrival count 1, or the CTA's threads
//!   when every thread arrives) and, when the target has it, makes the init visible with
//!   `fence.mbarrier_init` (L17249); a `bar.sync 0` orders the init before any arrive (L18574).
//!   The leader sets the phase's tx-count to the copy's bytes (`expect_tx`) before its own
//!   arrival; the phase completes only when the arrivals are in and the copy's complete-tx has
//!   brought the tx-count back to zero (L18410, L14529), so every thread reads the region only
//!   after its `.parity` wait saw phase 0 complete. A `bar.sync 0` lets every wait finish before
//!   the leader's `mbarrier.inval`.
//! - shared → global: every thread stores its own 16-byte slot through the generic proxy; the
//!   bulk copy reads through the async proxy (L14239-14241), so a `fence.proxy.async` orders the
//!   stores before it (L17278): every thread's own fence before the `bar.sync 0`, or the
//!   leader's after it (cumulative over the barrier, as CUTLASS places it). The leader waits for
//!   its bulk groups (`cp.async.bulk.wait_group 0`, after `wait_group.read 0` sometimes,
//!   L15350-15362), and a `bar.sync 0` orders the written global memory before every thread's
//!   read. A reduction into the same destination follows only after the copy's group completed
//!   (two pending operations on one destination are unordered).
//! - reduction into shared memory: the destination region was written by the completed
//!   global → shared copy and read by every thread; a `bar.sync 0` ends those reads and the
//!   source region's generic stores are fenced as above; the reduction is tracked by a second
//!   phase of the same mbarrier (parity 1).
//! - `st.bulk` is a weak store of zeros (L13082): a `bar.sync 0` orders it before the reads.

use super::asynccopy::{MBARS, MBAR_ARRAY, REGIONS, REGION_ARRAY};
use super::{Builder, Det, SLOT, SLOTS};
use arbitrary::Result;
use oracle::launch::{tensor_map::TensorMapSpec, ParamSpec};

/// shared → global bulk copies per program, at most (each a fresh area of every CTA's part of
/// the scratch buffer's tail).
pub(super) const STORES: u32 = 2;

/// The `cp.reduce.async.bulk` operations to global memory the generator uses, with their
/// element bytes: integer ones, whose results are exact whatever the order (a sample of the
/// catalog's, checked by `bulk_forms_are_catalog_forms`).
pub(super) const REDUCE_GLOBAL: [&str; 9] = [
    "add.u32", "min.u32", "max.s32", "xor.b32", "and.b64", "or.b64", "add.u64", "inc.u32", "dec.u32",
];

/// The `cp.reduce.async.bulk` operations into shared memory (through an mbarrier) the generator
/// uses.
pub(super) const REDUCE_SHARED: [&str; 6] = ["add.u32", "min.s32", "max.u32", "and.b32", "or.b32", "inc.u32"];

/// The mbarrier forms of the global → shared construct (the `.shared::cta` spellings CUTLASS
/// uses).
pub(super) const INIT: &str = "mbarrier.init.shared::cta.b64";
pub(super) const INVAL: &str = "mbarrier.inval.shared::cta.b64";
pub(super) const FENCE_INIT: &str = "fence.mbarrier_init.release.cluster";
pub(super) const ARRIVE_TX: &str = "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64";
pub(super) const EXPECT_TX: &str = "mbarrier.expect_tx.relaxed.cta.shared::cta.b64";
pub(super) const ARRIVE: &str = "mbarrier.arrive.release.cta.shared::cta.b64";
pub(super) const WAITS: [&str; 3] = [
    "mbarrier.try_wait.parity.shared::cta.b64",
    "mbarrier.test_wait.parity.shared::cta.b64",
    "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64",
];
pub(super) const TO_CTA: &str = "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes";
pub(super) const TO_CLUSTER: &str = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes";
pub(super) const TO_GLOBAL: &str = "cp.async.bulk.global.shared::cta.bulk_group";
pub(super) const REDUCE_TO_SHARED: &str =
    "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes";
pub(super) const REDUCE_TO_GLOBAL: &str = "cp.reduce.async.bulk.global.shared::cta.bulk_group";
pub(super) const COMMIT: &str = "cp.async.bulk.commit_group";
pub(super) const WAIT_GROUP: &str = "cp.async.bulk.wait_group";
pub(super) const WAIT_GROUP_READ: &str = "cp.async.bulk.wait_group.read";
pub(super) const FENCE_PROXY: [&str; 2] = ["fence.proxy.async.shared::cta", "fence.proxy.async"];
pub(super) const ST_BULK: &str = "st.bulk.weak.shared::cta";
/// The tensor copy of the global → shared construct: a 1-D tile of the input tensor
/// (§9.7.9.25.5.2).
pub(super) const TO_CLUSTER_TENSOR: &str =
    "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes";

/// The launch parameter `p_tmap`: a tiled tensor map over the whole input buffer (`in_bytes`
/// bytes) as one dimension of `u32` elements, with a box of `box_elems` (the driver's
/// `cuTensorMapEncodeTiled` arguments; the oracle builds its encoding, the CUDA backend asks
/// the driver).
pub(super) fn input_map(box_elems: u32, in_bytes: u64) -> ParamSpec {
    ParamSpec::TensorMap {
        tensor_map: Box::new(TensorMapSpec {
            encode: "tiled".into(),
            data_type: "u32".into(),
            buffer: "in".into(),
            offset: 0,
            global_dim: vec![in_bytes / 4],
            global_strides: Vec::new(),
            box_dim: Some(vec![box_elems]),
            element_strides: None,
            interleave: "none".into(),
            swizzle: "none".into(),
            l2_promotion: "none".into(),
            oob_fill: "none".into(),
            pixel_box_lower_corner: None,
            pixel_box_upper_corner: None,
            channels_per_pixel: None,
            pixels_per_column: None,
            pixel_box_lower_corner_width: None,
            pixel_box_upper_corner_width: None,
            mode: None,
        }),
    }
}

impl Builder<'_, '_> {
    /// Threads per CTA.
    pub(super) fn threads(&self) -> u32 {
        self.cfg.warps.clamp(1, 32) * 32
    }

    /// A fresh shared region of 16 bytes per thread: a register with its base address.
    pub(super) fn fresh_region(&mut self) -> Option<String> {
        if self.regions >= REGIONS {
            return None;
        }
        let at = self.regions * self.threads() * 16;
        self.regions += 1;
        let base = self.temp(64);
        self.line(&format!("mov.u64 {base}, {REGION_ARRAY}"));
        self.line(&format!("add.u64 {base}, {base}, {at}"));
        Some(base)
    }

    /// A register holding `base + 16·((tid + delta) mod k)`: slot `tid + delta` of the first `k`.
    pub(super) fn slot_of(&mut self, base: &str, delta: u32, k: u32) -> String {
        let tid = self.tid.clone();
        let (t, off, a) = (self.temp(32), self.temp(64), self.temp(64));
        self.line(&format!("add.u32 {t}, {tid}, {delta}"));
        self.line(&format!("rem.u32 {t}, {t}, {k}"));
        self.line(&format!("mul.wide.u32 {off}, {t}, 16"));
        self.line(&format!("add.u64 {a}, {base}, {off}"));
        a
    }

    /// A fresh mbarrier object's address expression.
    pub(super) fn fresh_mbar(&mut self) -> Option<String> {
        if self.mbars >= MBARS {
            return None;
        }
        let k = self.mbars;
        self.mbars += 1;
        Some(format!("{MBAR_ARRAY}+{}", 8 * k))
    }

    /// A predicate true in exactly one thread of the CTA: thread 0, or the lane of warp 0 that
    /// `elect.sync` elects (every warp elects one; warp 0's is kept).
    pub(super) fn leader(&mut self) -> Result<String> {
        let tid = self.tid.clone();
        let p = self.temp(1);
        if self.usable("elect.sync") && self.u.arbitrary()? {
            let (w0, e) = (self.temp(1), self.temp(1));
            let d = if self.u.arbitrary()? {
                "_".to_string()
            } else {
                self.temp(32)
            };
            self.line(&format!("setp.lt.u32 {w0}, {tid}, 32"));
            self.line(&format!("elect.sync {d}|{e}, 0xffffffff"));
            self.line(&format!("and.pred {p}, {e}, {w0}"));
        } else {
            self.line(&format!("setp.eq.u32 {p}, {tid}, 0"));
        }
        Ok(p)
    }

    /// Spins until phase `parity` of `bar` is complete.
    fn wait_phase(&mut self, wait: &str, bar: &str, parity: u32) {
        let p = self.temp(1);
        let again = self.new_label("BULK_WAIT");
        self.label(&again);
        self.line(&format!("{wait} {p}, [{bar}], {parity}"));
        self.line(&format!("@!{p} bra {again}"));
    }

    /// Every thread stores two exact 64-bit values into its own 16-byte slot of `base` (generic
    /// proxy).
    fn fill_own_slot(&mut self, base: &str) -> Result<()> {
        let own = self.slot_of(base, 0, self.threads());
        let a = match self.pick_src(64, Det::Exact)? {
            Some(a) => a,
            None => {
                let a = self.temp(64);
                let tid = self.tid.clone();
                self.line(&format!("cvt.u64.u32 {a}, {tid}"));
                a
            }
        };
        let b = self.pick_src(64, Det::Exact)?.unwrap_or_else(|| a.clone());
        self.line(&format!("st.shared.v2.b64 [{own}], {{{a}, {b}}}"));
        Ok(())
    }

    /// Orders every thread's generic stores to shared memory before an async-proxy read by the
    /// leader `lead`: every thread's fence, then a CTA barrier, or the barrier and then the
    /// leader's fence.
    fn fence_then_barrier(&mut self, lead: Option<&str>) -> Result<()> {
        let fence = FENCE_PROXY[self.u.choose_index(FENCE_PROXY.len())?];
        match lead {
            Some(l) if self.u.arbitrary()? => {
                self.line("bar.sync 0");
                self.line(&format!("@{l} {fence}"));
            }
            _ => {
                self.line(fence);
                self.line("bar.sync 0");
            }
        }
        Ok(())
    }

    /// Loads 16 bytes at `addr` (`space`: `shared` or `global`) into two exact registers.
    fn load16(&mut self, space: &str, addr: &str) -> Result<()> {
        let a = self.pick_dst(64, Det::Exact, false, &[])?;
        let b = self.pick_dst(64, Det::Exact, false, std::slice::from_ref(&a))?;
        self.line(&format!("ld.{space}.v2.b64 {{{a}, {b}}}, [{addr}]"));
        Ok(())
    }

    /// global → shared: the leader copies `16·k` bytes of the CTA's input records into a fresh
    /// region through an mbarrier's tx-count; every thread waits for the phase by parity and
    /// reads a neighbour's slot. Sometimes a second phase reduces a region the threads filled
    /// into the copied one (`cp.reduce.async.bulk` to shared memory) and they read it again.
    pub(super) fn bulk_load(&mut self) -> Result<bool> {
        let to_cta = self.u.arbitrary()? && self.usable(TO_CTA);
        let copy = if to_cta { TO_CTA } else { TO_CLUSTER };
        let wait = WAITS[self.u.choose_index(WAITS.len())?];
        for n in [copy, INIT, INVAL, ARRIVE_TX, EXPECT_TX, ARRIVE, wait] {
            if !self.usable(n) {
                return Ok(false);
            }
        }
        let op = REDUCE_SHARED[self.u.choose_index(REDUCE_SHARED.len())?];
        let reduce =
            self.u.ratio(1, 3)? && self.usable(&format!("{REDUCE_TO_SHARED}.{op}")) && self.regions + 2 <= REGIONS;
        if self.regions >= REGIONS || self.mbars >= MBARS {
            return Ok(false);
        }
        let threads = self.threads();
        let all_arrive = self.u.arbitrary()?;
        // The copy may be a 1-D tile of the program's one tensor map over its inputs (boxes
        // of at most 256 elements, so k ≤ 64 16-byte slots; every use has the map's box).
        let tensor = self.u.ratio(1, 3)? && self.usable(TO_CLUSTER_TENSOR);
        let k = match (tensor, self.tmap_box) {
            (true, 0) => self.u.int_in_range(1..=threads.min(64))?,
            (true, b) => b / 4,
            _ => self.u.int_in_range(1..=threads)?,
        };
        if tensor && k > threads {
            return Ok(false);
        }
        let Some(base) = self.fresh_region() else {
            return Ok(false);
        };
        let Some(bar) = self.fresh_mbar() else {
            return Ok(false);
        };
        let lead = self.leader()?;
        let count = if all_arrive { threads } else { 1 };
        self.line(&format!("@{lead} {INIT} [{bar}], {count}"));
        if self.usable(FENCE_INIT) && self.u.arbitrary()? {
            self.line(&format!("@{lead} {FENCE_INIT}"));
        }
        self.line("bar.sync 0");
        // The source: 16·k bytes at a 16-byte aligned offset of the CTA's input records
        // (read-only, every byte given by the launch).
        let n = 16 * k;
        let records = threads * self.inp_stride;
        let o = 16 * self.u.int_in_range(0..=(records - n) / 16)?;
        let issue = if tensor {
            self.tmap_box = 4 * k;
            // The box's first element: the CTA's records, `o` bytes on, in u32 elements.
            let (tm, c) = (self.temp(64), self.temp(32));
            self.line(&format!("mov.u64 {tm}, p_tmap"));
            self.line(&format!("cvta.param.u64 {tm}, {tm}"));
            self.line(&format!("mov.u32 {c}, %ctaid.x"));
            self.line(&format!("mul.lo.u32 {c}, {c}, {}", records / 4));
            self.line(&format!("add.u32 {c}, {c}, {}", o / 4));
            format!("@{lead} {TO_CLUSTER_TENSOR} [{base}], [{tm}, {{{c}}}], [{bar}]")
        } else {
            let src = self.cta_input(o);
            format!("@{lead} {copy} [{base}], [{src}], {n}, [{bar}]")
        };
        let state = self.temp(64);
        let arrive_tx = |g: &mut Self| {
            if g.u.arbitrary()? {
                g.line(&format!("@{lead} {ARRIVE_TX} {state}, [{bar}], {n}"));
            } else {
                g.line(&format!("@{lead} {EXPECT_TX} [{bar}], {n}"));
                g.line(&format!("@{lead} {ARRIVE} {state}, [{bar}]"));
            }
            Ok::<(), arbitrary::Error>(())
        };
        // The copy may be issued before the expect-tx (NVRTC's order): its complete-tx cannot
        // finish the phase while the leader's arrival is missing.
        let copy_first = self.u.arbitrary()?;
        if copy_first {
            self.line(&issue);
        }
        arrive_tx(self)?;
        if !copy_first {
            self.line(&issue);
        }
        if all_arrive {
            let s = self.temp(64);
            self.line(&format!("@!{lead} {ARRIVE} {s}, [{bar}]"));
        }
        self.wait_phase(wait, &bar, 0);
        let delta = self.u.int_in_range(0..=k - 1)?;
        let nb = self.slot_of(&base, delta, k);
        self.load16("shared", &nb)?;
        if reduce {
            // Phase 1: every thread fills its slot of a second region; after every read of
            // phase 0 (the barrier) the leader reduces it into the copied region.
            if let Some(src) = self.fresh_region() {
                self.fill_own_slot(&src)?;
                self.fence_then_barrier(Some(&lead))?;
                self.line(&format!(
                    "@{lead} {REDUCE_TO_SHARED}.{op} [{base}], [{src}], {n}, [{bar}]"
                ));
                self.line(&format!("@{lead} {EXPECT_TX} [{bar}], {n}"));
                self.line(&format!("@{lead} {ARRIVE} {state}, [{bar}]"));
                if all_arrive {
                    let s = self.temp(64);
                    self.line(&format!("@!{lead} {ARRIVE} {s}, [{bar}]"));
                }
                self.wait_phase(wait, &bar, 1);
                self.load16("shared", &nb)?;
            }
        }
        // Every thread's waits are done before the object is invalidated.
        self.line("bar.sync 0");
        self.line(&format!("@{lead} {INVAL} [{bar}]"));
        Ok(true)
    }

    /// A register with the global address `o` bytes into this CTA's input records.
    fn cta_input(&mut self, o: u32) -> String {
        let (a, off, c) = (self.temp(64), self.temp(64), self.temp(32));
        let per_cta = self.threads() * self.inp_stride;
        self.line(&format!("ld.param.u64 {a}, [p_in]"));
        self.line(&format!("cvta.to.global.u64 {a}, {a}"));
        self.line(&format!("mov.u32 {c}, %ctaid.x"));
        self.line(&format!("mul.wide.u32 {off}, {c}, {per_cta}"));
        self.line(&format!("add.u64 {a}, {a}, {off}"));
        if o > 0 {
            self.line(&format!("add.u64 {a}, {a}, {o}"));
        }
        a
    }

    /// Bytes of the scratch buffer before the bulk stores' areas (the threads' slots).
    pub(super) fn bulk_area_start(&self) -> u32 {
        SLOT * SLOTS * self.threads() * self.cfg.ctas.clamp(1, 65535)
    }

    /// shared → global: every thread fills its slot of a fresh region, the stores are fenced
    /// for the async proxy, the leader copies `16·k` bytes to a fresh global area with a bulk
    /// group (and sometimes reduces the same bytes into it after the copy completed), waits for
    /// its groups; after a `bar.sync 0` every thread reads a neighbour's 16 bytes back.
    pub(super) fn bulk_store(&mut self) -> Result<bool> {
        for n in [TO_GLOBAL, COMMIT, WAIT_GROUP, FENCE_PROXY[0], FENCE_PROXY[1]] {
            if !self.usable(n) {
                return Ok(false);
            }
        }
        if self.stores >= STORES || self.regions >= REGIONS {
            return Ok(false);
        }
        let threads = self.threads();
        let Some(base) = self.fresh_region() else {
            return Ok(false);
        };
        let area = self.bulk_area_start() + self.stores * threads * 16;
        self.stores += 1;
        self.fill_own_slot(&base)?;
        let lead = self.leader()?;
        self.fence_then_barrier(Some(&lead))?;
        let (g, off, c) = (self.temp(64), self.temp(64), self.temp(32));
        self.line(&format!("ld.param.u64 {g}, [p_scratch]"));
        self.line(&format!("cvta.to.global.u64 {g}, {g}"));
        self.line(&format!("mov.u32 {c}, %ctaid.x"));
        self.line(&format!("mul.wide.u32 {off}, {c}, {}", STORES * threads * 16));
        self.line(&format!("add.u64 {g}, {g}, {off}"));
        self.line(&format!("add.u64 {g}, {g}, {area}"));
        let k = self.u.int_in_range(1..=threads)?;
        let n = 16 * k;
        self.line(&format!("@{lead} {TO_GLOBAL} [{g}], [{base}], {n}"));
        self.line(&format!("@{lead} {COMMIT}"));
        let op = REDUCE_GLOBAL[self.u.choose_index(REDUCE_GLOBAL.len())?];
        if self.u.ratio(1, 2)? && self.usable(&format!("{REDUCE_TO_GLOBAL}.{op}")) {
            // Two pending operations on one destination are unordered: the copy completes first.
            self.line(&format!("@{lead} {WAIT_GROUP} 0"));
            self.line(&format!("@{lead} {REDUCE_TO_GLOBAL}.{op} [{g}], [{base}], {n}"));
            self.line(&format!("@{lead} {COMMIT}"));
        }
        if self.u.arbitrary()? && self.usable(WAIT_GROUP_READ) {
            // The sources are read; the destination is written only at the full wait below.
            self.line(&format!("@{lead} {WAIT_GROUP_READ} 0"));
        }
        self.line(&format!("@{lead} {WAIT_GROUP} 0"));
        self.line("bar.sync 0");
        let delta = self.u.int_in_range(0..=k - 1)?;
        let nb = self.slot_of(&g, delta, k);
        self.load16("global", &nb)?;
        Ok(true)
    }

    /// `st.bulk` (sm_100): every thread fills its slot of a fresh region, a barrier, the leader
    /// zeroes `16·k` bytes of it with `st.bulk`, a barrier, and every thread reads a neighbour's
    /// slot (zeros below `k`, the stored values above).
    pub(super) fn bulk_zero(&mut self) -> Result<bool> {
        if !self.usable(ST_BULK) || self.regions >= REGIONS {
            return Ok(false);
        }
        let threads = self.threads();
        let Some(base) = self.fresh_region() else {
            return Ok(false);
        };
        self.fill_own_slot(&base)?;
        let lead = self.leader()?;
        self.line("bar.sync 0");
        let k = self.u.int_in_range(1..=threads)?;
        self.line(&format!("@{lead} {ST_BULK} [{base}], {}, 0", 16 * k));
        self.line("bar.sync 0");
        let delta = self.u.int_in_range(0..=threads - 1)?;
        let nb = self.slot_of(&base, delta, threads);
        self.load16("shared", &nb)?;
        Ok(true)
    }
}
