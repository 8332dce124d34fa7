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
//! **Clusters.** An operation may write the shared memory of, and signal an mbarrier object
//! of, another CTA of the cluster (`.shared::cluster` destinations, `.multicast::cluster`,
//! L14487, L14533; `st.async`/`red.async`, L13006, L17936). The CTAs of a cluster run
//! interleaved with their per-CTA state parked and swapped (`exec/cluster.rs`), so the list of
//! pending operations cannot be per CTA: the operation a thread of CTA 0 issues into CTA 1 is
//! completed by CTA 1's wait on its own mbarrier, and a plain access by a thread of CTA 1 (or a
//! `.shared::cluster` access from CTA 0) must see it. The list is therefore the cluster's,
//! [`Flight`] in `Cluster` (never swapped); what stays per CTA is [`Book`], the bulk
//! async-groups of the CTA's threads, which only the issuing thread observes. Each operation
//! records the CTA that issued it, so its errors name the right thread. Every write of a
//! `.shared::cluster` destination goes through [`super::Cta::cluster_store`], every mbarrier
//! signal through [`super::Cta::cluster_complete_tx`], every `.shared::cluster` address through
//! [`super::Cta::cluster_shared`]. An operation on another CTA still pending when that CTA's
//! threads have all exited is a runtime error (L89): no thread of the destination observed its
//! completion, so nothing orders its writes before the exit; one issued to a CTA that has
//! exited is one too.

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
    /// The issuing CTA (its rank in the cluster), thread (linear index in that CTA) and
    /// instruction.
    cta: u32,
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

/// The bulk async-groups of a CTA's threads (per CTA: only the issuing thread's
/// `cp.async.bulk.wait_group` observes them). The operations themselves are the cluster's
/// [`Flight`].
pub(super) struct Book {
    uncommitted: Vec<Vec<u64>>,
    groups: Vec<VecDeque<Vec<u64>>>,
}

impl Book {
    pub fn new(threads: usize) -> Book {
        Book {
            uncommitted: vec![Vec::new(); threads],
            groups: vec![VecDeque::new(); threads],
        }
    }
}

/// The pending bulk operations of a cluster, whichever CTA issued them and whichever CTA's
/// shared memory they reach (see the module doc: a cluster's CTAs are swapped in and out of
/// the runner, this list is not), in issue order.
pub(super) struct Flight {
    ops: Vec<Pending>,
    next: u64,
}

impl Flight {
    pub fn new() -> Flight {
        Flight {
            ops: Vec::new(),
            next: 0,
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
    pub(super) fn cluster_store(&mut self, rank: u32, off: usize, n: usize, f: impl FnOnce(&mut [u8])) {
        let (shared, proxy) = self.cta_shared_mut(rank);
        f(&mut shared[off..off + n]);
        // The bytes now hold what the async proxy wrote: no generic write is left to order.
        if let Some(p) = proxy {
            p.clear(off, n);
        }
        self.mutations += 1;
    }

    /// A complete-tx of `bytes` on the mbarrier object at `off` of the cluster's CTA `rank`
    /// (L18470-18478), for operation `p`: every mbarrier signal of a bulk operation goes
    /// through here.
    fn cluster_complete_tx(&mut self, p: &Pending, rank: u32, off: usize, bytes: usize) -> Result<()> {
        let r = self.mbar_of(rank).tx(off, -(bytes as i64));
        r.map_err(|f| {
            self.issuer_err(
                p,
                format!(
                    "complete-tx of {bytes} bytes on the mbarrier object at shared {off:#x}{}: {f}",
                    self.of_cta(rank)
                ),
            )
        })?;
        self.mutations += 1;
        Ok(())
    }

    /// The current phase of the mbarrier object at `off` of the cluster's CTA `rank`, for thread
    /// `i` of CTA `cta` at `pc` (the issuer of an operation).
    fn cluster_mbar_phase(&self, (cta, i, pc): (u32, usize, u32), rank: u32, off: usize) -> Result<u64> {
        self.mbar_in(rank).phase(off).ok_or_else(|| {
            self.thread_err_in(
                cta,
                i,
                pc,
                format!(
                    "no mbarrier object is initialized at shared {off:#x}{}, the operation's mbar: undefined (L18374)",
                    self.of_cta(rank)
                ),
            )
        })
    }

    /// " of CTA rank `rank`" in a cluster of more than one CTA, for messages (which may be
    /// reported at a thread of another CTA than the one whose memory they name).
    fn of_cta(&self, rank: u32) -> String {
        if self.cluster_nctarank() == 1 {
            String::new()
        } else {
            format!(" of CTA rank {rank}")
        }
    }

    /// A runtime error at the issuer of `p` (a thread of another CTA when it came from there).
    fn issuer_err(&self, p: &Pending, msg: impl std::fmt::Display) -> crate::error::Error {
        self.thread_err_in(p.cta, p.thread, p.pc, msg)
    }

    /// `mbarrier.inval` of the object at `off` of the cluster's CTA `rank` by thread `i` at
    /// `pc`: no pending operation may still have its complete-tx to perform on it. Its
    /// completion has not been observed (a wait that returned True for its phase would have
    /// completed it, see the module doc), so the complete-tx may come after the invalidation,
    /// an mbarrier operation on a location without a valid object: undefined (L18616).
    pub(super) fn inval_checks(&self, i: usize, pc: u32, rank: u32, off: usize) -> Result<()> {
        let hit = self
            .cluster
            .flight
            .ops
            .iter()
            .find(|p| matches!(p.track, Track::Mbar { rank: r, off: o, .. } if r == rank && o == off));
        match hit {
            None => Ok(()),
            Some(p) => Err(self.rt_err(
                i,
                pc,
                format!(
                    "`mbarrier.inval` of the mbarrier object at shared {off:#x}{} while the `{}` of {} bytes issued at line {} by {} has not performed its complete-tx on it: that complete-tx may come after the invalidation, an mbarrier operation where no valid object is, undefined (L18616); wait for the phase it completes before invalidating (L14529)",
                    self.of_cta(rank),
                    self.op_name(p),
                    p.size,
                    self.m.prog.code[p.pc as usize].loc.line,
                    self.issuer_name(p)
                ),
            )),
        }
    }

    /// The issuer of `p`, for messages.
    fn issuer_name(&self, p: &Pending) -> String {
        self.thread_name_in(p.cta, p.thread)
    }

    /// The checks on a shared destination of `n` bytes at `off` of CTA `rank` when thread `i`
    /// issues an operation there: the CTA has not exited (L89) and the bytes hold no live
    /// mbarrier object (L18374).
    pub(super) fn bulk_dst_checks(&self, i: usize, pc: u32, rank: u32, off: usize, n: usize, what: &str) -> Result<()> {
        if rank == self.cluster_rank() {
            if !self.mbar.is_empty() {
                self.mbarrier_access(i, pc, off, n, what)?;
            }
            return Ok(());
        }
        if self.cta_exited(rank) {
            return Err(self.rt_err(
                i,
                pc,
                format!(
                    "the operation writes the shared memory of CTA rank {rank} of the cluster, whose threads have all exited: a CTA must not exit before its peers' shared-memory operations on it complete (L89)"
                ),
            ));
        }
        if let Some(o) = self.mbar_in(rank).overlapping(off, n) {
            return Err(self.rt_err(
                i,
                pc,
                format!(
                    "{what} shared memory [{off:#x}, {:#x}) of CTA rank {rank}, which holds the initialized mbarrier object at {o:#x}: any operation on it but the mbarrier instructions is undefined (L18374); `mbarrier.inval` it before reusing its memory (L18444)",
                    off + n
                ),
            ));
        }
        Ok(())
    }

    /// A `.multicast::cluster` ctaMask bit for CTA `rank`: a CTA of the cluster (L14533,
    /// L15008).
    pub(super) fn mask_rank(&self, i: usize, pc: u32, rank: u32) -> Result<()> {
        let n = self.cluster_nctarank();
        if rank >= n {
            return Err(self.rt_err(
                i,
                pc,
                format!(
                    "bit {rank} of ctaMask is set, but the cluster has {n} CTA{} (ranks 0 to {}): each bit of ctaMask names a destination CTA of the cluster (L14533, L15008)",
                    if n == 1 { "" } else { "s" },
                    n - 1
                ),
            ));
        }
        Ok(())
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
        if let (Place::Shared { rank, off }, None) = (dst_place, cta_mask) {
            self.bulk_dst_checks(i, pc, rank, off, n, "bulk copy to")?;
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
                // A `.shared::cluster` address when the destination is one (another CTA's
                // object: the complete-tx goes to the object mbar names).
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
            if let (Some(_), Place::Shared { off, .. }) = (cta_mask, dst) {
                self.mask_rank(i, pc, rank)?;
                self.bulk_dst_checks(i, pc, rank, off, n, "bulk copy to")?;
            }
            let track = match mbar_at {
                Some((mrank, off)) => {
                    // Multicast: the signal goes to the object at mbar's offset in each
                    // destination CTA (L14533); else to the object mbar names.
                    let rank = if cta_mask.is_some() { rank } else { mrank };
                    Track::Mbar {
                        rank,
                        off,
                        phase: self.cluster_mbar_phase((self.cluster_rank(), i, pc), rank, off)?,
                    }
                }
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
        let id = self.cluster.flight.next;
        self.cluster.flight.next += 1;
        if track == Track::Group {
            self.bulk.uncommitted[i].push(id);
        }
        let cta = self.cluster_rank();
        self.cluster.flight.ops.push(Pending {
            id,
            cta,
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
                format!("[a] {a:#x} is the executing CTA's own shared memory: {rule}, undefined otherwise ({line})"),
            ));
        }
        self.bulk_dst_checks(i, pc, rank, off, n, &format!("{name} to"))?;
        let phase = self.cluster_mbar_phase((self.cluster_rank(), i, pc), rank, moff)?;
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
        let ops = &self.cluster.flight.ops;
        let Some(k) = ops.iter().position(|p| p.id == id) else {
            return;
        };
        if ops[k].read.is_some() {
            return;
        }
        let p = &ops[k];
        let bytes = match &p.src {
            Source::Data(d) => d.clone(),
            Source::At(Place::Shared { rank, off }) => self.shared_in(*rank)[*off..*off + p.size].to_vec(),
            Source::At(Place::Global { k, off }) => self.m.global.read(*k, *off, p.size).to_vec(),
        };
        self.cluster.flight.ops[k].read = Some(bytes);
    }

    /// Completes the pending operation `id`: reads its source, writes its destination (an
    /// element-wise reduction for `cp.reduce.async.bulk`/`red.async`) and, when `signal`, makes
    /// its complete-tx. Thread `i` of the running CTA at `pc` is the instruction that observes
    /// it; the operation may come from another CTA of the cluster and write a third's memory.
    fn bulk_complete(&mut self, i: usize, pc: u32, id: u64, signal: bool) -> Result<()> {
        self.bulk_read(id);
        let Some(k) = self.cluster.flight.ops.iter().position(|p| p.id == id) else {
            return Ok(());
        };
        let p = self.cluster.flight.ops.remove(k);
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
            Place::Shared { rank, off } => self.cluster_store(rank, off, n, write),
            Place::Global { k, off } => {
                write(self.m.global.write(k, off, n));
                self.mutations += 1;
            }
        }
        if let (Track::Mbar { rank, off, phase }, true) = (p.track, signal) {
            let now = self.cluster_mbar_phase((p.cta, p.thread, p.pc), rank, off)?;
            if now != phase {
                let at = &self.m.prog.code[pc as usize];
                return Err(self.issuer_err(
                    &p,
                    format!(
                        "this `{}` of {n} bytes was issued in phase {phase} of the mbarrier object at shared {off:#x}{}, which completed without it (observed at line {} by {}): its complete-tx would count toward phase {now}. The tx-count of a phase must be set to the total of the asynchronous operations it tracks (L18462): an expect-tx counted fewer bytes than the operations",
                        self.op_name(&p),
                        self.of_cta(rank),
                        at.loc.line,
                        self.thread_name_in(self.cluster_rank(), i)
                    ),
                ));
            }
            self.cluster_complete_tx(&p, rank, off, n)?;
        }
        Ok(())
    }

    /// Before a `test_wait`/`try_wait` by thread `i` on the running CTA's object at `off`
    /// returns False: the pending operations that signal it, whichever CTA issued them,
    /// complete in issue order.
    pub(super) fn bulk_settle(&mut self, i: usize, pc: u32, off: usize) -> Result<bool> {
        let rank = self.cluster_rank();
        let ids: Vec<u64> = self
            .cluster
            .flight
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

    /// When every thread of the cluster has exited: what the running CTA issued and is still
    /// pending completes (its mbarrier signals are dropped, no thread is left to observe them).
    /// The runner calls it for each CTA in turn, so that errors name the issuing thread.
    pub(super) fn bulk_drain(&mut self) -> Result<()> {
        let me = self.cluster_rank();
        while let Some(p) = self.cluster.flight.ops.iter().find(|p| p.cta == me) {
            let (t, pc, id) = (p.thread, p.pc, p.id);
            self.bulk_complete(t, pc, id, false)?;
        }
        Ok(())
    }

    /// The running CTA's threads have all exited: an operation another CTA issued into its
    /// shared memory (destination or mbarrier) that has not completed is a violation of L89,
    /// reported at the issuing thread. Its own operations are completed at the cluster's end
    /// as in a lone CTA: nothing else can observe their absence.
    pub(super) fn bulk_exit(&self) -> Result<()> {
        let me = self.cluster_rank();
        let into_me = |p: &&Pending| {
            p.cta != me
                && (matches!(p.dst, Place::Shared { rank, .. } if rank == me)
                    || matches!(p.track, Track::Mbar { rank, .. } if rank == me))
        };
        match self.cluster.flight.ops.iter().find(into_me) {
            Some(p) => Err(self.issuer_err(
                p,
                format!(
                    "the `{}` to the shared memory of CTA rank {me} of the cluster (block ({},{},{})) has not completed when that CTA's threads have all exited (its last thread did not observe the completion on the mbarrier): a CTA must not exit before its peers' shared-memory operations on it complete (L89)",
                    self.op_name(p),
                    self.env.ctaid[0],
                    self.env.ctaid[1],
                    self.env.ctaid[2]
                ),
            )),
            None => Ok(()),
        }
    }

    /// An access of `n` bytes at `off` in `area` by thread `i` at `pc` while bulk operations
    /// are pending ([`Cta::bulk_conflict`]).
    pub(super) fn bulk_access(&self, i: usize, pc: u32, area: Area, off: usize, n: usize, write: bool) -> Result<()> {
        let place = match area {
            Area::Shared => Place::Shared {
                rank: self.cluster_rank(),
                off,
            },
            Area::Peer(rank) => Place::Shared { rank, off },
            Area::Global(k) => Place::Global { k, off },
            _ => return Ok(()),
        };
        self.bulk_conflict(i, pc, place, n, write)
    }

    /// An access of `n` bytes at `place` (in any CTA of the cluster) by thread `i` of the
    /// running CTA at `pc`: the destination of a pending operation (read or written) before
    /// its completion is observed, or the source of one (written) that has not read it.
    fn bulk_conflict(&self, i: usize, pc: u32, place: Place, n: usize, write: bool) -> Result<()> {
        let access = if write { "write" } else { "read" };
        let (space, off) = match place {
            Place::Shared { rank, off } => (format!("shared memory{}", self.of_cta(rank)), off),
            // A global place is an offset in its allocation; the message gives the address the
            // program used.
            Place::Global { k, off } => (
                "global memory".to_string(),
                self.m.global.regions[k].base as usize + off,
            ),
        };
        for p in &self.cluster.flight.ops {
            let line = self.m.prog.code[p.pc as usize].loc.line;
            if p.dst.overlaps(p.size, place, n) {
                let how = match p.track {
                    Track::Mbar { rank, off, phase } => format!(
                        "its results may be accessed only after the phase it signals completes, as `mbarrier.test_wait`/`try_wait` on the object at shared {off:#x}{} returning True for phase {phase} observes (L14223-14225, L14243)",
                        self.of_cta(rank)
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
                        self.issuer_name(p)
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
                            self.issuer_name(p)
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
            if o.tx != 0 && !self.cluster.flight.tracks(rank, off) {
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
