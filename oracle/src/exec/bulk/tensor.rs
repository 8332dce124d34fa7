//! The tensor copies (§9.7.9.25.5.2-4: `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`,
//! `cp.async.bulk.prefetch.tensor`) in every load mode (`.tile`, `.im2col`/`.im2col_no_offs`,
//! and sm_100's `.tile::gather4`/`.tile::scatter4`, `.im2col::w`/`.im2col::w::128`, whose
//! requests and `.cta_group` rule are `super::tensor_modes`'), carried out by the bulk engine
//! ([`super`]), and the tensormap-proxy rule on their tensor maps.
//!
//! **The tensor map** is read at issue from the 128 bytes at `tensorMap`, a generic address in
//! `.param`, `.const` or `.global` or such a variable (L14904), and decoded with `spec::tma`
//! (our encoding: the manual calls the object opaque, L3050). `spec::tma::plan` gives every
//! element of the box: its (swizzled) shared-memory offset and its global address, or "out of
//! bounds". The elements become pending bulk operations, one per run of elements contiguous in
//! both memories, so that everything the bulk engine does applies to them unchanged: completion
//! at the latest observable point, the race detector (destination accessed before completion,
//! source written before `wait_group.read`, unfenced generic writes to a shared source), the
//! multicast and mbarrier signals through its cluster redirects.
//! - A load (global → `.shared::cta`/`.shared::cluster`) writes every element of the box, an
//!   out-of-bounds one with the fill (`spec::tma::fill_bits`); its runs' complete-tx bytes add
//!   up to the whole box, filled elements included ("the amount of data copied", L14966).
//!   `.multicast::cluster` issues the runs to each CTA of ctaMask at the same offsets of dstMem
//!   and mbar (L15008), other CTAs of the cluster included (the cluster's pending list,
//!   `exec/bulk.rs`).
//! - A store (`.shared::cta` → global, `.bulk_group`) writes only the in-bounds elements;
//!   `cp.reduce.async.bulk.tensor` reduces each with the element operation of the map's type,
//!   the one `cp.reduce.async.bulk` uses (`spec::atom::apply`), and refuses the combinations
//!   the table of L15131-15140 does not list.
//! - A prefetch plans the box (so the map and the coordinates are checked) and has no effect.
//!
//! `.L2::cache_hint` is a hint (L15016) and changes nothing; `.cta_group` chooses the CTA whose
//! mbarrier a load signals (L14968, L15010-15012; `super::tensor_modes`).
//!
//! **The tensormap proxy.** A tensor copy reads its map through the tensormap proxy (L14904).
//! A map written through the generic proxy (`st`, `tensormap.replace` on global memory,
//! `tensormap.cp_fenceproxy`'s copy) is ordered before that read only by a release proxy fence
//! after the write (`fence.proxy.tensormap::generic.release`, or the release that
//! `tensormap.cp_fenceproxy` establishes on its copy, L19264) and an acquire proxy fence on the
//! map's address by the reading thread after it (`fence.proxy.tensormap::generic.acquire
//! [addr], 128`, L17280, L17266; the manual's examples L17346-17350, L19296-19302). A copy whose
//! map holds such a write without the two fences is a runtime error naming the write. Only the
//! CTA's own writes are tracked (another CTA's write of a map is not seen: the oracle accepts
//! there), and the synchronization between a writing and a reading thread is not asked for.

use super::{Cta, Place, Source, Track};
use crate::error::Result;
use crate::exec::Area;
use crate::program::{Addr, BulkSpace, Op, Space, Src, TensorCopy, TensorKind};
use spec::atom::{AtomOp, Op as RedOp};
use spec::tma::{DataType, Direction, Plan, TensorMap};
use spec::types::Type;
use std::collections::HashMap;

/// The bytes of a tensor map (L15626: a 1024-bit object).
const MAP: usize = spec::tma::encoding::SIZE;

/// A generic-proxy write to global memory.
#[derive(Clone, Copy, Debug)]
struct MapWrite {
    thread: u32,
    pc: u32,
    seq: u64,
}

/// The CTA's books for the tensormap-proxy rule: the last generic write to each 16-byte chunk
/// of global memory, each thread's release and acquire proxy fences (in one sequence).
pub(in crate::exec) struct MapBook {
    writes: HashMap<(usize, usize), MapWrite>,
    releases: Vec<Vec<u64>>,
    acquires: Vec<Vec<(usize, usize, u64)>>,
    seq: u64,
}

impl MapBook {
    pub fn new(threads: usize) -> MapBook {
        MapBook {
            writes: HashMap::new(),
            releases: vec![Vec::new(); threads],
            acquires: vec![Vec::new(); threads],
            seq: 0,
        }
    }

    /// Thread `thread`'s generic write of `n` bytes at `off` of global region `k`.
    pub fn write(&mut self, thread: usize, pc: u32, k: usize, off: usize, n: usize) {
        self.seq += 1;
        let w = MapWrite {
            thread: thread as u32,
            pc,
            seq: self.seq,
        };
        for c in off / 16..(off + n).div_ceil(16) {
            self.writes.insert((k, c), w);
        }
    }

    /// Thread `thread`'s release proxy fence (or `tensormap.cp_fenceproxy`).
    pub fn release(&mut self, thread: usize) {
        self.seq += 1;
        self.releases[thread].push(self.seq);
    }

    /// Thread `thread`'s acquire proxy fence on the 128 bytes at `off` of global region `k`.
    fn acquire(&mut self, thread: usize, k: usize, off: usize) {
        self.seq += 1;
        self.acquires[thread].push((k, off, self.seq));
    }

    /// The first byte of the `n` at `off` of region `k` whose generic write is not ordered
    /// before a tensormap-proxy read by `reader`: no release by the writer after it, or no
    /// acquire by the reader covering it after that release.
    fn unordered(&self, reader: usize, k: usize, off: usize, n: usize) -> Option<(usize, MapWrite)> {
        (off / 16..(off + n).div_ceil(16)).find_map(|c| {
            let w = *self.writes.get(&(k, c))?;
            let released = self.releases[w.thread as usize].iter().find(|&&r| r > w.seq);
            let acquired = released.is_some_and(|&r| {
                self.acquires[reader]
                    .iter()
                    .any(|&(ak, ao, s)| ak == k && ao <= c * 16 && c * 16 + 16 <= ao + MAP && s > r)
            });
            (!acquired).then_some(((c * 16).max(off), w))
        })
    }
}

/// The mnemonic of a tensor copy instruction, for the bulk engine's messages.
pub(super) fn name(op: &Op) -> Option<&'static str> {
    match op {
        Op::TensorCopy(c) => Some(match c.kind {
            TensorKind::Store { reduce: Some(_), .. } => "cp.reduce.async.bulk.tensor",
            TensorKind::Prefetch => "cp.async.bulk.prefetch.tensor",
            _ => "cp.async.bulk.tensor",
        }),
        _ => None,
    }
}

/// The element operation of `cp.reduce.async.bulk.tensor`'s `.redOp` on elements of type `t`
/// (the combinations of L15131-15140; the garbled `.inc`/`.dec` row read as `.u32`, as in
/// `cp.reduce.async.bulk`, and `.and`/`.or`/`.xor`'s `.b32`/`.b64` as the 32- and 64-bit
/// integer types), as `cp.reduce.async.bulk` applies it. `.min`/`.max` on `.f16`/`.bf16` are
/// the vector atomics' element operation (pairs of elements), as in `check/bulk.rs`.
fn reduce_elem(op: RedOp, t: DataType) -> Option<AtomOp> {
    use DataType as D;
    let (ty, vec, noftz) = match (op, t) {
        (RedOp::Add, D::U32 | D::S32 | D::U64 | D::F32) => (t.name(), 1, false),
        (RedOp::Add, D::F16 | D::Bf16) => (t.name(), 1, true),
        (RedOp::Min | RedOp::Max, D::U32 | D::S32 | D::U64 | D::S64) => (t.name(), 1, false),
        (RedOp::Min | RedOp::Max, D::F16 | D::Bf16) => (t.name(), 2, true),
        (RedOp::Inc | RedOp::Dec, D::U32) => ("u32", 1, false),
        (RedOp::And | RedOp::Or | RedOp::Xor, D::U32 | D::S32) => ("b32", 1, false),
        (RedOp::And | RedOp::Or | RedOp::Xor, D::U64 | D::S64) => ("b64", 1, false),
        _ => return None,
    };
    AtomOp::new(op, Type::parse(ty)?, vec, noftz)
}

/// Where a run of a load's elements comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum From {
    /// Global region `k` at `off`.
    Global(usize, usize),
    /// The out-of-bounds fill.
    Fill,
}

/// A run of elements contiguous in shared memory (at `smem`) and in their source.
struct Run {
    smem: usize,
    from: From,
    len: usize,
}

impl Cta<'_, '_> {
    /// A tensor copy for lanes `exec` of the warp at `lo`, one thread after another.
    pub(in crate::exec) fn tensor_copy_op(&mut self, lo: usize, exec: u32, pc: u32, c: &TensorCopy) -> Result<()> {
        let mut m = exec;
        while m != 0 {
            let i = lo + m.trailing_zeros() as usize;
            m &= m - 1;
            self.tensor_copy(i, pc, c)?;
            let t = &mut self.threads[i];
            t.pc += 1;
            t.clock += 1;
        }
        Ok(())
    }

    /// `fence.proxy.tensormap::generic.release` (`acquire` `None`) or `.acquire [addr], 128`
    /// of thread `i`: the generic address must be in `.global` (L17266).
    pub(in crate::exec) fn tensormap_fence(
        &mut self,
        i: usize,
        pc: u32,
        acquire: Option<&(Addr, Space, Src)>,
    ) -> Result<()> {
        let Some((a, space, _)) = acquire else {
            if let Some(b) = &mut self.tmap {
                b.release(i);
            }
            return Ok(());
        };
        let addr = self.address(i, a);
        let global = match space {
            Space::Generic => match self.m.prog.windows.resolve_generic(addr) {
                Some((Space::Global, g)) => Some(g),
                _ => None,
            },
            Space::Global => Some(addr),
            _ => None,
        };
        let Some(g) = global else {
            return Err(self.rt_err(
                i,
                pc,
                format!("`fence.proxy.tensormap::generic.acquire` at address {addr:#x}, outside `.global`: undefined (L17266)"),
            ));
        };
        let (area, off) = self.span(i, pc, Space::Global, g, MAP, "L17266")?;
        if let (Area::Global(k), Some(b)) = (area, &mut self.tmap) {
            b.acquire(i, k, off);
        }
        Ok(())
    }

    /// Reads and decodes thread `i`'s tensor map, applying the tensormap-proxy rule.
    fn tensor_map(&self, i: usize, pc: u32, (addr, space): &(Addr, Space), what: &str) -> Result<TensorMap> {
        let a = self.address(i, addr);
        let (sp, la) = match space {
            Space::Generic => self.m.prog.windows.resolve_generic(a).unwrap_or((Space::Generic, a)),
            s => (*s, a),
        };
        if !matches!(sp, Space::Param | Space::Const | Space::Global) {
            return Err(self.rt_err(
                i,
                pc,
                format!("tensorMap {a:#x} is not in `.param`, `.const` or `.global`, where the tensor map object must reside (L14904)"),
            ));
        }
        // The driver's `CUtensorMap` is 64-byte aligned (`.align 64` in cuda.h; kernels declare
        // the parameter `.param .align 64 .b8 tmap[128]`, and our launch files place it so).
        if !la.is_multiple_of(64) {
            return Err(self.rt_err(
                i,
                pc,
                format!("tensorMap {a:#x} is not aligned to 64 bytes, the alignment of a tensor map object (CUDA driver API, CUtensorMap)"),
            ));
        }
        let mut b = [0u8; MAP];
        let (lo, hi) = b.split_at_mut(MAP / 2);
        self.load(i, pc, sp, la, lo)?;
        self.load(i, pc, sp, la + MAP as u64 / 2, hi)?;
        if let (Space::Global, Some(book)) = (sp, &self.tmap) {
            if let (Area::Global(k), off) = self.span(i, pc, Space::Global, la, MAP, "L14904")? {
                if let Some((byte, w)) = book.unordered(i, k, off, MAP) {
                    let at = &self.m.prog.code[w.pc as usize];
                    return Err(self.rt_err(
                        i,
                        pc,
                        format!(
                            "this `{what}` reads the tensor map at {a:#x} through the tensormap proxy (L14904), and its byte {:#x} was written through the generic proxy at line {} by {} without the proxy fences that order the two: a release (`fence.proxy.tensormap::generic.release`, or `tensormap.cp_fenceproxy`'s, L19264) after the write and a `fence.proxy.tensormap::generic.acquire [tmap], 128` by the reading thread after that (L17280, L17266; the manual's examples L17346-17350, L19296-19302)",
                            la + (byte - off) as u64,
                            at.loc.line,
                            self.thread_name(w.thread as usize)
                        ),
                    ));
                }
            }
        }
        spec::tma::decode(&b).map_err(|e| {
            self.rt_err(
                i,
                pc,
                format!("the 128 bytes at tensorMap {a:#x} are not a tensor map: {e}"),
            )
        })
    }

    /// The global region and offset of an in-bounds element at `g`.
    fn tensor_element(&self, i: usize, pc: u32, g: u64, n: usize, coords: &[i64]) -> Result<(usize, usize)> {
        match self.span(i, pc, Space::Global, g, n, "L2146") {
            Ok((Area::Global(k), off)) => Ok((k, off)),
            _ => Err(self.rt_err(
                i,
                pc,
                format!(
                    "the tensor element at coordinates {coords:?} lies at global address {g:#x}, outside every global allocation: the tensor map's globalAddress, globalDim and globalStrides describe memory the program does not own"
                ),
            )),
        }
    }

    /// Thread `i`'s tensor copy.
    fn tensor_copy(&mut self, i: usize, pc: u32, c: &TensorCopy) -> Result<()> {
        let what = name(&self.m.prog.code[pc as usize].op).unwrap_or("cp.async.bulk.tensor");
        let t = &self.threads[i];
        let coords: Vec<i32> = c.coords.iter().map(|s| self.rd(t, s) as i32).collect();
        let offsets: Vec<u16> = c.offsets.iter().map(|s| self.rd(t, s) as u16).collect();
        let map = self.tensor_map(i, pc, &c.tmap, what)?;
        let req = super::tensor_modes::request(c.mode, &coords, &offsets);
        let dir = match c.kind {
            TensorKind::Store { .. } => Direction::Store,
            _ => Direction::Load,
        };
        // The box's shared-memory offset (what the swizzle is a function of).
        let smem = match &c.kind {
            TensorKind::Load { dst: (d, _), .. } | TensorKind::Store { src: d, .. } => {
                let a = self.address(i, d);
                let (_, off) = self.span(i, pc, Space::Shared, a, 1, "L14900-14902")?;
                off
            }
            TensorKind::Prefetch => 0,
        };
        let plan =
            spec::tma::plan(&map, dir, &req, smem as u64).map_err(|e| self.rt_err(i, pc, format!("`{what}`: {e}")))?;
        match &c.kind {
            TensorKind::Prefetch => Ok(()),
            TensorKind::Load {
                dst,
                mbar,
                cta_mask,
                pair,
            } => {
                let mask = cta_mask.as_ref().map(|m| self.rd(&self.threads[i], m) as u16);
                self.tensor_load(i, pc, &map, &plan, dst.1, mbar, mask, *pair)
            }
            TensorKind::Store { reduce, .. } => {
                let op = match reduce {
                    Some(op) => match reduce_elem(*op, map.data_type) {
                        Some(a) => Some(a),
                        None => {
                            return Err(self.rt_err(
                                i,
                                pc,
                                format!(
                                    "`.{}` on the tensor map's element type `.{}` is not among the valid combinations of L15131-15140",
                                    op.name(),
                                    map.data_type.name()
                                ),
                            ))
                        }
                    },
                    None => None,
                };
                self.tensor_store(i, pc, &plan, op)
            }
        }
    }

    /// A load: every element of the box to shared memory, in runs, signalling the mbarrier.
    #[allow(clippy::too_many_arguments)]
    fn tensor_load(
        &mut self,
        i: usize,
        pc: u32,
        map: &TensorMap,
        plan: &Plan,
        dspace: BulkSpace,
        mbar: &Addr,
        mask: Option<u16>,
        pair: bool,
    ) -> Result<()> {
        let eb = plan.elem_bytes as usize;
        let mut runs: Vec<Run> = Vec::new();
        for e in &plan.elements {
            let from = match e.global {
                Some(g) => {
                    let (k, off) = self.tensor_element(i, pc, g, eb, &e.coords)?;
                    From::Global(k, off)
                }
                None => From::Fill,
            };
            let smem = e.smem as usize;
            if let Some(r) = runs.last_mut() {
                let next = match (r.from, from) {
                    (From::Global(k, o), From::Global(l, p)) => k == l && o + r.len == p,
                    (From::Fill, From::Fill) => true,
                    _ => false,
                };
                if next && r.smem + r.len == smem {
                    r.len += eb;
                    continue;
                }
            }
            runs.push(Run { smem, from, len: eb });
        }
        let fill = spec::tma::fill_bits(map.data_type, plan.fill).to_le_bytes();
        // The destinations: each run's range must lie in the shared window (L14900-14902) and
        // hold no live mbarrier object (L18374).
        let rule = "L14900-14902";
        let mut rank = self.cluster_rank();
        for r in &runs {
            let a = r.smem as u64;
            let Place::Shared { rank: k, .. } = self.bulk_place(i, pc, dspace, a, r.len, rule)? else {
                return Err(self.internal_err(i, pc, "a shared destination outside shared memory"));
            };
            rank = k;
            if !self.mbar.is_empty() {
                self.mbarrier_access(i, pc, r.smem, r.len, "tensor copy to")?;
            }
        }
        let ma = self.address(i, mbar);
        // A `.shared::cluster` load's mbar is a `.shared::cluster` address: with `.cta_group::2`
        // it may be the peer CTA's (L14968).
        let mspace = match dspace {
            BulkSpace::SharedCluster => Space::SharedCluster,
            _ => Space::Shared,
        };
        let (mrank, moff) = self.cluster_shared(i, pc, mspace, ma, crate::exec::mbarrier::SIZE, "L18386-18392")?;
        // `.multicast::cluster`: each CTA of ctaMask at the same offsets (L15008).
        let ranks: Vec<u32> = match mask {
            Some(m) => (0..16).filter(|r| m >> r & 1 != 0).collect(),
            None => vec![rank],
        };
        for rank in ranks {
            if mask.is_some() {
                // Another CTA's memory: its checks (`Cta::bulk_dst_checks`).
                self.mask_rank(i, pc, rank)?;
                for r in &runs {
                    self.bulk_dst_checks(i, pc, rank, r.smem, r.len, "tensor copy to")?;
                }
            }
            // `.cta_group` (L14968, L15010-15012): the CTA whose mbarrier this one signals.
            let srank = self.tensor_mbar_rank(i, pc, pair, mask.is_some(), rank, mrank)?;
            let phase = self.cluster_mbar_phase((self.cluster_rank(), i, pc), srank, moff)?;
            for r in &runs {
                let src = match r.from {
                    From::Global(k, off) => Source::At(Place::Global { k, off }),
                    From::Fill => Source::Data(fill[..eb].repeat(r.len / eb)),
                };
                self.bulk_issue(
                    i,
                    pc,
                    Place::Shared { rank, off: r.smem },
                    src,
                    r.len,
                    None,
                    None,
                    Track::Mbar {
                        rank: srank,
                        off: moff,
                        phase,
                    },
                );
            }
        }
        Ok(())
    }

    /// A store or reduction: the in-bounds elements of the box from shared memory to global
    /// memory, in runs, in the thread's bulk async-group.
    fn tensor_store(&mut self, i: usize, pc: u32, plan: &Plan, reduce: Option<AtomOp>) -> Result<()> {
        let eb = plan.elem_bytes as usize;
        let mut runs: Vec<(usize, usize, usize, usize)> = Vec::new(); // (smem, k, off, len)
        for e in &plan.elements {
            let Some(g) = e.global else { continue };
            let (k, off) = self.tensor_element(i, pc, g, eb, &e.coords)?;
            let smem = e.smem as usize;
            if let Some(r) = runs.last_mut() {
                if r.1 == k && r.2 + r.3 == off && r.0 + r.3 == smem {
                    r.3 += eb;
                    continue;
                }
            }
            runs.push((smem, k, off, eb));
        }
        let rank = self.cluster_rank();
        for &(smem, _, _, len) in &runs {
            let a = smem as u64;
            self.bulk_place(i, pc, BulkSpace::SharedCta, a, len, "L14900")?;
            if let Some(op) = reduce {
                if !len.is_multiple_of(op.elem_bytes() as usize) {
                    return Err(self.rt_err(
                        i,
                        pc,
                        "a `.min`/`.max` reduction of `.f16`/`.bf16` elements over an odd number of contiguous in-bounds elements is not executed yet (the oracle applies the element operation to pairs)",
                    ));
                }
            }
            // The copy reads its shared source through the async proxy (L14239-14241, L17278).
            if let Some(p) = &self.proxy {
                if let Some((byte, w)) = p.unordered(smem, len) {
                    let at = &self.m.prog.code[w.pc as usize];
                    return Err(self.rt_err(
                        i,
                        pc,
                        format!(
                            "this tensor copy reads shared memory byte {byte:#x} through the async proxy, and the write at line {} by {} (through the generic proxy) has no `fence.proxy.async` after it: the copy may not see it; a proxy fence must order generic writes before async-proxy reads (L14239-14241, L17278)",
                            at.loc.line,
                            self.thread_name(w.thread as usize)
                        ),
                    ));
                }
            }
        }
        for (smem, k, off, len) in runs {
            self.bulk_issue(
                i,
                pc,
                Place::Global { k, off },
                Source::At(Place::Shared { rank, off: smem }),
                len,
                reduce,
                None,
                Track::Group,
            );
        }
        Ok(())
    }
}
