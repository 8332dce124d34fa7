//! The bulk asynchronous operations and their completion: `cp.async.bulk` (§9.7.9.25.4.1),
//! `cp.reduce.async.bulk` (§9.7.9.25.4.2), `cp.async.bulk.prefetch` (§9.7.9.25.4.3), the bulk
//! async-groups (`cp.async.bulk.commit_group`/`wait_group{.read}`, §9.7.9.25.6), `st.async`
//! (§9.7.9.12), `red.async` (§9.7.13.7) and `st.bulk` (§9.7.9.13).
//!
//! **When the effects happen.** An operation is checked (size, alignment, bounds, the proxy
//! rule) when its thread issues it and is kept pending; its source is read and its destination
//! written at the latest point at which a correct program can observe it, so that a program
//! which touches the results earlier is caught, not served (spec/INTERPRETATIONS.md, "bulk
//! asynchronous operations"):
//! - tracked by an mbarrier (`.mbarrier::complete_tx::bytes`, L14529, L14223): when an
//!   `mbarrier.test_wait`/`try_wait` on that object would return False, the object's pending
//!   operations complete, in issue order (each a complete-tx of its bytes, L18470-18478), and
//!   the wait is evaluated again;
//! - tracked by a bulk async-group (`.bulk_group`): at the issuing thread's
//!   `cp.async.bulk.wait_group N` that waits for the group (L15350-15360);
//!   `wait_group.read N` only reads the sources (L15362): the destinations are written at a
//!   later `wait_group` or at the end of the CTA;
//! - the `.release` `.global` forms of `st.async`/`red.async`, whose completion "is
//!   synchronized with the end of the CTA" (L12990, L17918): at the end of the CTA.
//!
//! Whatever is still pending when every thread of the CTA has exited is completed then (its
//! mbarrier signals are dropped: no thread is left to observe them).
//!
//! **What is reported** (each a runtime error naming the thread, the instruction, the address
//! and the rule): an access to the destination of a pending operation (L14223, L14243,
//! L15350-15360); a write to the source of an operation that has not read it yet (L15362);
//! a bulk copy whose shared source holds generic-proxy writes no `fence.proxy.async` orders
//! before it (the copy reads through the async proxy, L14239-14241, L17278); a complete-tx
//! that arrives after the phase it was issued in has completed (the phase's tx-count counted
//! fewer bytes than its operations, L18462) and, in a deadlock, an mbarrier whose tx-count
//! can no longer reach zero (more bytes expected than any pending operation delivers).
//!
//! **Clusters.** Every write of a `.shared::cluster` destination goes through
//! [`super::Cta::cluster_store`], every mbarrier signal through
//! [`super::Cta::cluster_complete_tx`], every `.shared::cluster` address through
//! [`super::Cta::cluster_shared`]: today the oracle runs clusters of one CTA (rank 0), and
//! those three are where other CTAs of a cluster will be reached.

use super::{Area, Cta};
use crate::error::Result;
use crate::program::{Addr, BulkOp, BulkSpace, Space, Src};
use spec::atom::{AtomOp, AtomSpace};
use std::collections::VecDeque;

pub(super) mod tensor;
mod tensor_modes;

/// Where a pending operation writes or reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// The shared memory of the cluster's CTA of rank `rank`, at offset `off`.
    Shared { rank: u32, off: usize },
    /// Global region `k` ([`crate::mem::Global::regions`]), at offset `off`.
    Global { k: usize, off: usize },
}

impl Place {
    fn overlaps(self, n: usize, other: Place, m: usize) -> bool {
        let (a, b) = match (self, other) {
            (Place::Shared { rank: r, off: a }, Place::Shared { rank: s, off: b }) if r == s => (a, b),
            (Place::Global { k, off: a }, Place::Global { k: l, off: b }) if k == l => (a, b),
            _ => return false,
        };
        a < b + m && b < a + n
    }
}

/// What a pending operation reads.
#[derive(Clone, Debug)]
enum Source {
    /// Memory, read when the operation reads its source.
    At(Place),
    /// The value operand of `st.async`/`red.async`, read at issue.
    Data(Vec<u8>),
}

/// How a pending operation's completion is observed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Track {
    /// A complete-tx on the mbarrier object at `off` of CTA `rank`, counted in phase `phase`
    /// (the object's phase at issue).
    Mbar { rank: u32, off: usize, phase: u64 },
    /// The issuing thread's bulk async-groups.
    Group,
    /// The end of the CTA (L12990, L17918).
    CtaEnd,
}

/// An issued bulk operation that has not completed.
#[derive(Clone, Debug)]
struct Pending {
    id: u64,
    /// The issuing thread (linear index in the CTA) and instruction.
    thread: usize,
    pc: u32,
    dst: Place,
    src: Source,
    size: usize,
    /// `cp.reduce.async.bulk`/`red.async`: the element operation.
    reduce: Option<AtomOp>,
    /// `.cp_mask`: which byte of each 16-byte chunk is written (L14539).
    byte_mask: Option<u16>,
    track: Track,
    /// The source's bytes, once read.
    read: Option<Vec<u8>>,
}

/// The CTA's pending bulk operations and its threads' bulk async-groups.
pub(super) struct Book {
    ops: Vec<Pending>,
    next: u64,
    uncommitted: Vec<Vec<u64>>,
    groups: Vec<VecDeque<Vec<u64>>>,
}

impl Book {
    pub fn new(threads: usize) -> Book {
        Book {
            ops: Vec::new(),
            next: 0,
            uncommitted: vec![Vec::new(); threads],
            groups: vec![VecDeque::new(); threads],
        }
    }

    /// Whether no operation is pending (the common case: no check on plain accesses).
    pub fn is_idle(&self) -> bool {
        self.ops.is_empty()
    }

    /// Whether a pending operation signals the mbarrier object at `off` of CTA `rank`.
    pub fn tracks(&self, rank: u32, off: usize) -> bool {
        self.ops
            .iter()
            .any(|p| matches!(p.track, Track::Mbar { rank: r, off: o, .. } if r == rank && o == off))
    }
}

/// The manual's lines for the size and alignment rules of each bulk instruction.
fn size_rule(reduce: bool) -> &'static str {
    if reduce {
        "L14639"
    } else {
        "L14483"
    }
}

/// The mnemonic of a pending operation, for messages (the tensor copies' runs name theirs,
/// `Cta::op_name`).
fn what(p: &Pending) -> &'static str {
    match (&p.src, p.reduce.is_some()) {
        (Source::Data(_), false) => "st.async",
        (Source::Data(_), true) => "red.async",
        (_, false) => "cp.async.bulk",
        (_, true) => "cp.reduce.async.bulk",
    }
}

impl Cta<'_, '_> {
    /// The mnemonic of the instruction that issued a pending operation.
    fn op_name(&self, p: &Pending) -> &'static str {
        tensor::name(&self.m.prog.code[p.pc as usize].op).unwrap_or_else(|| what(p))
    }

    /// The CTA's rank in its cluster (`%cluster_ctarank`).
    fn cluster_rank(&self) -> u32 {
        self.cluster.rank
    }

    /// The CTAs of the cluster (`%cluster_nctarank`).
    fn cluster_nctarank(&self) -> u32 {
        self.cluster.size()
    }

    /// The cluster's CTA and the offset in its shared memory of the `n` bytes a
    /// `.shared::cluster` (or generic) address names, in the window of `exec/cluster.rs`.
    pub(super) fn cluster_shared(
        &self,
        i: usize,
        pc: u32,
        space: Space,
        addr: u64,
        n: usize,
        rule: &str,
    ) -> Result<(u32, usize)> {
        match self.span(i, pc, space, addr, n, rule)? {
            (Area::Shared, off) => Ok((self.cluster_rank(), off)),
            (Area::Peer(r), off) => Ok((r, off)),
            _ => Err(self.rt_err(
                i,
                pc,
                format!("address {addr:#x} is not in the `.shared::cluster` window: undefined ({rule})"),
            )),
        }
    }

    /// Gives `f` the `n` shared bytes at `off` of the cluster's CTA `rank` to write: every write
    /// of a `.shared::cluster` destination goes through here.
    pub(super) fn cluster_store(
        &mut self,
        i: usize,
        pc: u32,
        rank: u32,
        off: usize,
        n: usize,
        f: impl FnOnce(&mut [u8]),
    ) -> Result<()> {
        if rank != self.cluster_rank() {
            return Err(self.other_cta(i, pc, rank));
        }
        f(&mut self.shared[off..off + n]);
        // The bytes now hold what the async proxy wrote: no generic write is left to order.
        if let Some(p) = &mut self.proxy {
            p.clear(off, n);
        }
        self.mutations += 1;
        Ok(())
    }

    /// A complete-tx of `bytes` on the mbarrier object at `off` of the cluster's CTA `rank`
    /// (L18470-18478): every mbarrier signal of a bulk operation goes through here.
    pub(super) fn cluster_complete_tx(&mut self, i: usize, pc: u32, rank: u32, off: usize, bytes: usize) -> Result<()> {
        if rank != self.cluster_rank() {
            return Err(self.other_cta(i, pc, rank));
        }
        self.mbar.tx(off, -(bytes as i64)).map_err(|f| {
            self.rt_err(
                i,
                pc,
                format!("complete-tx of {bytes} bytes on the mbarrier object at shared {off:#x}: {f}"),
            )
        })?;
        self.mutations += 1;
        Ok(())
    }

    /// The current phase of the mbarrier object at `off` of the cluster's CTA `rank`.
    fn cluster_mbar_phase(&self, i: usize, pc: u32, rank: u32, off: usize) -> Result<u64> {
        if rank != self.cluster_rank() {
            return Err(self.other_cta(i, pc, rank));
        }
        self.mbar.phase(off).ok_or_else(|| {
            self.rt_err(
                i,
                pc,
                format!(
                    "no mbarrier object is initialized at shared {off:#x}, the operation's mbar: undefined (L18374)"
                ),
            )
        })
    }

    /// Another CTA of the cluster: not reachable yet.
    #[cold]
    fn other_cta(&self, i: usize, pc: u32, rank: u32) -> crate::error::Error {
        self.rt_err(
            i,
            pc,
            format!(
                "the operation reaches the CTA of rank {rank} of the cluster: the oracle does not execute bulk operations on other CTAs' shared memory yet"
            ),
        )
    }

    /// The area and offset of the `n` bytes at `addr` in `space`, which must not overflow it
    /// (no alignment is asked here).
    fn span(&self, i: usize, pc: u32, space: Space, addr: u64, n: usize, rule: &str) -> Result<(Area, usize)> {
        let outside = |me: &Self| {
            me.rt_err(
                i,
                pc,
                format!(
                    "the range [{addr:#x}, {:#x}) is not within one {} allocation: the range must not overflow its state space, undefined otherwise ({rule})",
                    addr.wrapping_add(n as u64),
                    space.name()
                ),
            )
        };
        let (area, off) = self.locate(i, pc, space, addr, 1, false).map_err(|_| outside(self))?;
        if n > 1 {
            let end = addr.checked_add(n as u64 - 1).ok_or_else(|| outside(self))?;
            match self.locate(i, pc, space, end, 1, false) {
                Ok((a, o)) if a == area && o == off + n - 1 => {}
                _ => return Err(outside(self)),
            }
        }
        Ok((area, off))
    }

    /// The place of `n` bytes at `addr` of a bulk operand in `space`.
    fn bulk_place(&self, i: usize, pc: u32, space: BulkSpace, addr: u64, n: usize, rule: &str) -> Result<Place> {
        match space {
            BulkSpace::SharedCluster => {
                let (rank, off) = self.cluster_shared(i, pc, Space::SharedCluster, addr, n, rule)?;
                Ok(Place::Shared { rank, off })
            }
            BulkSpace::SharedCta => {
                let (_, off) = self.span(i, pc, Space::Shared, addr, n, rule)?;
                Ok(Place::Shared {
                    rank: self.cluster_rank(),
                    off,
                })
            }
            BulkSpace::Global => match self.span(i, pc, Space::Global, addr, n, rule)? {
                (Area::Global(k), off) => Ok(Place::Global { k, off }),
                _ => Err(self.internal_err(i, pc, "a global span outside global memory")),
            },
        }
    }

    /// Executes a bulk instruction for lanes `exec` of the warp at `lo`, one thread after
    /// another in lane order.
    pub(super) fn bulk_op(&mut self, lo: usize, exec: u32, pc: u32, op: &BulkOp) -> Result<()> {
        let mut m = exec;
        while m != 0 {
            let i = lo + m.trailing_zeros() as usize;
            m &= m - 1;
            match op {
                BulkOp::Copy {
                    dst,
                    src,
                    size,
                    mbar,
                    cta_mask,
                    byte_mask,
                    reduce,
                } => self.bulk_copy(
                    i,
                    pc,
                    *dst,
                    *src,
                    size,
                    mbar.as_ref(),
                    cta_mask.as_ref(),
                    byte_mask.as_ref(),
                    *reduce,
                )?,
                BulkOp::Prefetch { src, size } => {
                    let (a, n) = (self.address(i, src), self.rd(&self.threads[i], size) as u32 as usize);
                    self.bulk_checks(i, pc, a, None, n, false)?;
                    if n > 0 {
                        self.span(i, pc, Space::Global, a, n, "L14777")?;
                    }
                }
                BulkOp::Commit => {
                    let ids = std::mem::take(&mut self.bulk.uncommitted[i]);
                    self.bulk.groups[i].push_back(ids);
                }
                BulkOp::Wait { n, read } => self.bulk_wait(i, pc, *n as usize, *read)?,
                BulkOp::Async {
                    addr,
                    cluster,
                    vals,
                    bytes,
                    reduce,
                    mbar,
                } => self.async_store(i, pc, *addr, *cluster, vals, *bytes, *reduce, mbar.as_ref())?,
                BulkOp::StBulk { addr, size, .. } => self.st_bulk(i, pc, *addr, size)?,
            }
            let t = &mut self.threads[i];
            t.pc += 1;
            t.clock += 1;
        }
        Ok(())
    }

    /// The size and alignment rules of a bulk copy: size a multiple of 16, addresses aligned
    /// to 16 bytes (L14483, L14639, L14777).
    fn bulk_checks(&self, i: usize, pc: u32, src: u64, dst: Option<u64>, n: usize, reduce: bool) -> Result<()> {
        let rule = match dst {
            None => "L14777",
            Some(_) => size_rule(reduce),
        };
        if !n.is_multiple_of(16) {
            return Err(self.rt_err(i, pc, format!("size {n} is not a multiple of 16: undefined ({rule})")));
        }
        for (name, a) in dst.map(|d| ("dstMem", d)).into_iter().chain([("srcMem", src)]) {
            if !a.is_multiple_of(16) {
                return Err(self.rt_err(
                    i,
                    pc,
                    format!("{name} {a:#x} is not aligned to 16 bytes, as it must be ({rule})"),
                ));
            }
        }
        Ok(())
    }

    /// Issues a `cp.async.bulk`/`cp.reduce.async.bulk` of thread `i`.
    #[allow(clippy::too_many_arguments)]
    fn bulk_copy(
        &mut self,
        i: usize,
        pc: u32,
        (dst, dspace): (Addr, BulkSpace),
        (src, sspace): (Addr, BulkSpace),
        size: &Src,
        mbar: Option<&Addr>,
        cta_mask: Option<&Src>,
        byte_mask: Option<&Src>,
        reduce: Option<AtomOp>,
    ) -> Result<()> {
        let t = &self.threads[i];
        let n = self.rd(t, size) as u32 as usize;
        let (d, s) = (self.address(i, &dst), self.address(i, &src));
        let rule = size_rule(reduce.is_some());
        self.bulk_checks(i, pc, s, Some(d), n, reduce.is_some())?;
        let byte_mask = byte_mask.map(|b| self.rd(t, b) as u16);
        let cta_mask = cta_mask.map(|c| self.rd(t, c) as u16);
        let mbar_addr = mbar.map(|m| self.address(i, m));
        if n == 0 && mbar_addr.is_none() {
            return Ok(());
        }
        let src_place = self.bulk_place(i, pc, sspace, s, n.max(1), rule)?;
        let dst_place = self.bulk_place(i, pc, dspace, d, n.max(1), rule)?;
        // A `.shared::cta` → `.shared::cluster` `cp.async.bulk` writes another CTA's shared
        // memory (L14487; the manual states no such rule for `cp.reduce.async.bulk`).
        if let (BulkSpace::SharedCta, Place::Shared { rank, off }, None) = (sspace, dst_place, reduce) {
            if dspace == BulkSpace::SharedCluster && rank == self.cluster_rank() {
                return Err(self.rt_err(
                    i,
                    pc,
                    format!(
                        "dstMem {d:#x} is the executing CTA's own shared memory (offset {off:#x}): a `.shared::cta` to `.shared::cluster` copy must write the shared memory of another CTA of the cluster (L14487)"
                    ),
                ));
            }
        }
        // Its shared destination may not hold a live mbarrier object (L18374).
        if let Place::Shared { rank, off } = dst_place {
            if rank == self.cluster_rank() && !self.mbar.is_empty() {
                self.mbarrier_access(i, pc, off, n, "bulk copy to")?;
            }
        }
        // The copy reads a shared source through the async proxy (L14239): generic writes to it
        // need a `fence.proxy.async` before the copy (L14241, L17278).
        if let (Place::Shared { off, .. }, Some(p)) = (src_place, &self.proxy) {
            if let Some((byte, w)) = p.unordered(off, n) {
                let at = &self.m.prog.code[w.pc as usize];
                return Err(self.rt_err(
                    i,
                    pc,
                    format!(
                        "this bulk copy reads shared memory byte {byte:#x} through the async proxy, and the write at line {} by {} (through the generic proxy) has no `fence.proxy.async` after it: the copy may not see it; a proxy fence must order generic writes before async-proxy reads (L14239-14241, L17278)",
                        at.loc.line,
                        self.thread_name(w.thread as usize)
                    ),
                ));
            }
        }
        // The destinations: one, or each CTA of `.multicast::cluster`'s ctaMask at the same
        // CTA-relative offsets of dstMem and mbar (L14533).
        let ranks: Vec<u32> = match (cta_mask, dst_place) {
            (Some(mask), Place::Shared { .. }) => (0..16).filter(|r| mask >> r & 1 != 0).collect(),
            (_, Place::Shared { rank, .. }) => vec![rank],
            (_, Place::Global { .. }) => vec![0],
        };
        let mbar_at = match mbar_addr {
            Some(a) => {
                // The mbarrier is in the destination's CTA: a `.shared::cluster` address then.
                let space = match dspace {
                    BulkSpace::SharedCluster => Space::SharedCluster,
                    _ => Space::Shared,
                };
                Some(self.cluster_shared(i, pc, space, a, super::mbarrier::SIZE, "L18386-18392")?)
            }
            None => None,
        };
        for rank in ranks {
            let dst = match dst_place {
                Place::Shared { off, .. } => Place::Shared { rank, off },
                g => g,
            };
            if rank >= self.cluster_nctarank() {
                return Err(self.other_cta(i, pc, rank));
            }
            let track = match mbar_at {
                Some((_, off)) => Track::Mbar {
                    rank,
                    off,
                    phase: self.cluster_mbar_phase(i, pc, rank, off)?,
                },
                None => Track::Group,
            };
            self.bulk_issue(i, pc, dst, Source::At(src_place), n, reduce, byte_mask, track);
        }
        Ok(())
    }

    /// Records a pending operation of thread `i`.
    #[allow(clippy::too_many_arguments)]
    fn bulk_issue(
        &mut self,
        i: usize,
        pc: u32,
        dst: Place,
        src: Source,
        size: usize,
        reduce: Option<AtomOp>,
        byte_mask: Option<u16>,
        track: Track,
    ) {
        let id = self.bulk.next;
        self.bulk.next += 1;
        if track == Track::Group {
            self.bulk.uncommitted[i].push(id);
        }
        self.bulk.ops.push(Pending {
            id,
            thread: i,
            pc,
            dst,
            src,
            size,
            reduce,
            byte_mask,
            track,
            read: None,
        });
        self.mutations += 1;
    }

    /// `st.async` and `red.async` of thread `i` (§9.7.9.12, §9.7.13.7).
    #[allow(clippy::too_many_arguments)]
    fn async_store(
        &mut self,
        i: usize,
        pc: u32,
        (addr, space): (Addr, Space),
        cluster: bool,
        vals: &[Src],
        bytes: u8,
        reduce: Option<AtomOp>,
        mbar: Option<&Addr>,
    ) -> Result<()> {
        let t = &self.threads[i];
        let mut data = Vec::new();
        for v in vals {
            data.extend_from_slice(&self.rd(t, v).to_le_bytes()[..bytes as usize]);
        }
        let n = data.len();
        let a = self.address(i, &addr);
        if !a.is_multiple_of(n as u64) {
            return Err(self.rt_err(
                i,
                pc,
                format!("address {a:#x} is not aligned to the access size of {n} bytes"),
            ));
        }
        let name = if reduce.is_some() { "red.async" } else { "st.async" };
        // The rules on a generic address: in the `.global` window (`.release` forms), in the
        // `.shared::cluster` one (the others).
        let (global_rule, cluster_rule) = if reduce.is_some() {
            ("L17968", "L17950")
        } else {
            ("L13040", "L13020")
        };
        if !cluster {
            // The `.release` `.global` forms: completion synchronized with the end of the CTA
            // (L12990, L17918); a generic address must be in the `.global` window.
            let dst = match self.span(i, pc, space, a, n, global_rule)? {
                (Area::Global(k), off) => Place::Global { k, off },
                _ => {
                    return Err(self.rt_err(
                        i,
                        pc,
                        format!(
                        "address {a:#x} is not in the `.global` window: undefined for `{name}.release` ({global_rule})"
                    ),
                    ))
                }
            };
            self.bulk_issue(i, pc, dst, Source::Data(data), n, reduce, None, Track::CtaEnd);
            return Ok(());
        }
        // `st.async.weak` needs a cluster of more than one CTA (L13008); `red.async`'s
        // destination must be another CTA's (L17938).
        let (rule, line) = if reduce.is_some() {
            (
                "the CTA of [a] and [mbar] must be another CTA of the executing thread's cluster",
                "L17936-17938",
            )
        } else {
            (
                "the cluster must have more than one CTA (%cluster_nctarank > 1)",
                "L13008",
            )
        };
        if reduce.is_none() && self.cluster_nctarank() < 2 {
            return Err(self.rt_err(i, pc, format!("{rule}, undefined otherwise ({line})")));
        }
        let (rank, off) = self.cluster_shared(i, pc, space, a, n, cluster_rule)?;
        let Some(m) = mbar else {
            return Err(self.internal_err(i, pc, "a `.shared::cluster` asynchronous store without its mbarrier"));
        };
        let ma = self.address(i, m);
        let (mrank, moff) = self.cluster_shared(i, pc, space, ma, super::mbarrier::SIZE, cluster_rule)?;
        if mrank != rank {
            return Err(self.rt_err(
                i,
                pc,
                format!("[a] lies in the CTA of rank {rank} and [mbar] in the CTA of rank {mrank}: they must be in the same CTA (L13006, L17936)"),
            ));
        }
        if reduce.is_some() && rank == self.cluster_rank() {
            return Err(self.rt_err(
                i,
                pc,
                format!("[a] {a:#x} is the executing CTA's own shared memory: {rule}, undefined otherwise ({line}); the oracle runs clusters of one CTA"),
            ));
        }
        let phase = self.cluster_mbar_phase(i, pc, rank, moff)?;
        self.bulk_issue(
            i,
            pc,
            Place::Shared { rank, off },
            Source::Data(data),
            n,
            reduce,
            None,
            Track::Mbar { rank, off: moff, phase },
        );
        Ok(())
    }

    /// `st.bulk` of thread `i` (§9.7.9.13): `size` zero bytes at `a` in shared memory, written
    /// now (a weak store, L13082).
    fn st_bulk(&mut self, i: usize, pc: u32, (addr, space): (Addr, Space), size: &Src) -> Result<()> {
        let n = self.rd(&self.threads[i], size);
        let a = self.address(i, &addr);
        if !n.is_multiple_of(8) {
            return Err(self.rt_err(i, pc, format!("size {n} is not a multiple of 8: undefined (L13076)")));
        }
        if n == 0 {
            return Ok(());
        }
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        let (area, _) = self.span(i, pc, space, a, n, "L13076")?;
        if area != Area::Shared {
            return Err(self.rt_err(
                i,
                pc,
                format!("address {a:#x} is not in the `.shared` window: undefined (L13080)"),
            ));
        }
        let zeros = [0u8; 1 << 16];
        for (off, len) in super::row_pieces(a, n) {
            self.store(i, pc, space, a + off as u64, &zeros[..len])?;
        }
        Ok(())
    }

    /// `cp.async.bulk.wait_group{.read} n` of thread `i`: the operations of its bulk
    /// async-groups but the newest `n` read their sources; without `.read` they also write
    /// their destinations, and those groups are done (L15350-15362).
    fn bulk_wait(&mut self, i: usize, pc: u32, n: usize, read: bool) -> Result<()> {
        let groups = &self.bulk.groups[i];
        let old = groups.len().saturating_sub(n);
        let ids: Vec<u64> = groups.iter().take(old).flatten().copied().collect();
        for id in ids {
            if read {
                self.bulk_read(id);
            } else {
                self.bulk_complete(i, pc, id, true)?;
            }
        }
        if !read {
            self.bulk.groups[i].drain(..old);
        }
        Ok(())
    }

    /// The pending operation `id` reads its source (once).
    fn bulk_read(&mut self, id: u64) {
        let Some(k) = self.bulk.ops.iter().position(|p| p.id == id) else {
            return;
        };
        if self.bulk.ops[k].read.is_some() {
            return;
        }
        let p = &self.bulk.ops[k];
        let bytes = match &p.src {
            Source::Data(d) => d.clone(),
            Source::At(Place::Shared { off, .. }) => self.shared[*off..*off + p.size].to_vec(),
            Source::At(Place::Global { k, off }) => self.m.global.regions[*k].data[*off..*off + p.size].to_vec(),
        };
        self.bulk.ops[k].read = Some(bytes);
    }

    /// Completes the pending operation `id`: reads its source, writes its destination (an
    /// element-wise reduction for `cp.reduce.async.bulk`/`red.async`) and, when `signal`, makes
    /// its complete-tx. Thread `i` at `pc` is the instruction that observes it.
    fn bulk_complete(&mut self, i: usize, pc: u32, id: u64, signal: bool) -> Result<()> {
        self.bulk_read(id);
        let Some(k) = self.bulk.ops.iter().position(|p| p.id == id) else {
            return Ok(());
        };
        let p = self.bulk.ops.remove(k);
        let data = p.read.clone().unwrap_or_default();
        let n = p.size;
        let write = |mem: &mut [u8]| match p.reduce {
            Some(op) => {
                let eb = op.elem_bytes() as usize;
                let space = match p.dst {
                    Place::Global { .. } => AtomSpace::Global,
                    Place::Shared { .. } => AtomSpace::Shared,
                };
                for e in 0..n / eb {
                    let mut old = [0u8; 16];
                    let mut b = [0u8; 16];
                    old[..eb].copy_from_slice(&mem[e * eb..(e + 1) * eb]);
                    b[..eb].copy_from_slice(&data[e * eb..(e + 1) * eb]);
                    let v = spec::atom::apply(&op, space, u128::from_le_bytes(old), u128::from_le_bytes(b), 0).model;
                    mem[e * eb..(e + 1) * eb].copy_from_slice(&v.to_le_bytes()[..eb]);
                }
            }
            None => match p.byte_mask {
                Some(mask) => {
                    for (j, (m, d)) in mem.iter_mut().zip(&data).enumerate() {
                        if mask >> (j % 16) & 1 != 0 {
                            *m = *d;
                        }
                    }
                }
                None => mem.copy_from_slice(&data[..n]),
            },
        };
        match p.dst {
            Place::Shared { rank, off } => self.cluster_store(p.thread, p.pc, rank, off, n, write)?,
            Place::Global { k, off } => {
                write(&mut self.m.global.regions[k].data[off..off + n]);
                self.mutations += 1;
            }
        }
        if let (Track::Mbar { rank, off, phase }, true) = (p.track, signal) {
            let now = self.cluster_mbar_phase(p.thread, p.pc, rank, off)?;
            if now != phase {
                let at = &self.m.prog.code[pc as usize];
                return Err(self.rt_err(
                    p.thread,
                    p.pc,
                    format!(
                        "this `{}` of {n} bytes was issued in phase {phase} of the mbarrier object at shared {off:#x}, which completed without it (observed at line {} by {}): its complete-tx would count toward phase {now}. The tx-count of a phase must be set to the total of the asynchronous operations it tracks (L18462): an expect-tx counted fewer bytes than the operations",
                        self.op_name(&p),
                        at.loc.line,
                        self.thread_name(i)
                    ),
                ));
            }
            self.cluster_complete_tx(p.thread, p.pc, rank, off, n)?;
        }
        Ok(())
    }

    /// Before a `test_wait`/`try_wait` by thread `i` on the object at `off` returns False: the
    /// pending operations that signal it complete, in issue order.
    pub(super) fn bulk_settle(&mut self, i: usize, pc: u32, off: usize) -> Result<bool> {
        let rank = self.cluster_rank();
        let ids: Vec<u64> = self
            .bulk
            .ops
            .iter()
            .filter(|p| matches!(p.track, Track::Mbar { rank: r, off: o, .. } if r == rank && o == off))
            .map(|p| p.id)
            .collect();
        for id in &ids {
            self.bulk_complete(i, pc, *id, true)?;
        }
        Ok(!ids.is_empty())
    }

    /// When every thread has exited: what is still pending completes (its mbarrier signals are
    /// dropped, no thread is left to observe them).
    pub(super) fn bulk_drain(&mut self) -> Result<()> {
        while let Some(p) = self.bulk.ops.first() {
            let (t, pc, id) = (p.thread, p.pc, p.id);
            self.bulk_complete(t, pc, id, false)?;
        }
        Ok(())
    }

    /// An access of `n` bytes at `off` in `area` by thread `i` at `pc` while bulk operations
    /// are pending: the destination of one (read or written) before its completion is
    /// observed, or the source of one (written) that has not read it.
    pub(super) fn bulk_access(&self, i: usize, pc: u32, area: Area, off: usize, n: usize, write: bool) -> Result<()> {
        let place = match area {
            Area::Shared => Place::Shared {
                rank: self.cluster_rank(),
                off,
            },
            Area::Global(k) => Place::Global { k, off },
            _ => return Ok(()),
        };
        let access = if write { "write" } else { "read" };
        let space = match place {
            Place::Shared { .. } => "shared memory",
            Place::Global { .. } => "global memory",
        };
        for p in &self.bulk.ops {
            let line = self.m.prog.code[p.pc as usize].loc.line;
            if p.dst.overlaps(p.size, place, n) {
                let how = match p.track {
                    Track::Mbar { off, phase, .. } => format!(
                        "its results may be accessed only after the phase it signals completes, as `mbarrier.test_wait`/`try_wait` on the object at shared {off:#x} returning True for phase {phase} observes (L14223-14225, L14243)"
                    ),
                    Track::Group if p.read.is_some() => "`cp.async.bulk.wait_group.read` waited only for its source to be read, not for the write of its destination (L15362); `cp.async.bulk.wait_group` without `.read` waits for the write (L15350-15360)".to_string(),
                    Track::Group => "its results may be accessed only after the issuing thread's `cp.async.bulk.commit_group` and `cp.async.bulk.wait_group` complete its bulk async-group (L15350-15360, L14243)".to_string(),
                    Track::CtaEnd => "its completion is synchronized only with the end of the CTA (L12990, L17918)".to_string(),
                };
                return Err(self.rt_err(
                    i,
                    pc,
                    format!(
                        "{access} of {space} [{off:#x}, {:#x}), the destination of the `{}` at line {line} by {}, which has not completed: {how}",
                        off + n,
                        self.op_name(p),
                        self.thread_name(p.thread)
                    ),
                ));
            }
            if let (true, None, Source::At(src)) = (write, &p.read, &p.src) {
                if src.overlaps(p.size, place, n) {
                    return Err(self.rt_err(
                        i,
                        pc,
                        format!(
                            "write to {space} [{off:#x}, {:#x}), the source of the `{}` at line {line} by {}, which has not read it yet: the source may be reused only after `cp.async.bulk.wait_group.read` (L15362) or the operation's completion (L14223)",
                            off + n,
                            self.op_name(p),
                            self.thread_name(p.thread)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// For a deadlock: the mbarrier objects whose tx-count no pending operation can bring to
    /// zero any more (L18462, L18486-18490).
    pub(super) fn bulk_tx_note(&self) -> String {
        let rank = self.cluster_rank();
        let mut note = String::new();
        for (off, o) in self.mbar.objects() {
            if o.tx != 0 && !self.bulk.tracks(rank, off) {
                let why = if o.tx > 0 {
                    "more bytes were expected (expect-tx) than its asynchronous operations deliver"
                } else {
                    "its asynchronous operations delivered more bytes than were expected (expect-tx)"
                };
                note.push_str(&format!(
                    " (the mbarrier object at shared {off:#x} is in phase {} with tx-count {}, and no pending asynchronous operation signals it: {why}; a phase completes only when its tx-count reaches zero, L18462, L18486-18490)",
                    o.phase, o.tx
                ));
            }
        }
        note
    }
}
