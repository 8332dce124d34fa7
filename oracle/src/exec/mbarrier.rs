//! The mbarrier objects of a CTA (§9.7.13.15, L18340): 8-byte, 8-aligned objects in shared
//! memory (L18382-18392) whose contents — the current phase, the pending and expected arrival
//! counts and the tx-count (L18398-18406) — the manual leaves opaque.
//!
//! The oracle keeps each object's contents in this side table, keyed by its offset in the CTA's
//! shared memory, and writes nothing to the object's bytes: no valid program can see them,
//! since any access other than an mbarrier operation to an initialized object is undefined
//! (L18374), and after `mbarrier.inval` the memory holds what it held before `mbarrier.init`.
//! The table is also how the oracle refuses what the manual leaves undefined instead of
//! choosing an outcome: every operation but `init` on memory that holds no object (L18374,
//! L18616), `init` on a live object (L18574, L18444), counts outside their ranges
//! (L18410-18434), a `.noComplete` arrive that completes the phase (L18767, L18873), an
//! arrive-on in a phase whose predecessor no `test_wait`/`try_wait` observed complete
//! (L18456), a wait on a phase that is neither the current one nor the one before (L19057-19061)
//! and `pending_count` on a state no `.noComplete` arrive returned (L19222). Each is a
//! [`Fault`], which names the rule and its line.
//!
//! The `state` an arrive returns (opaque, "implementation specific", L18773) is
//! [`State`]: the phase the arrive took part in, the pending count before it (for
//! `mbarrier.pending_count`, L19224), the object it came from and whether a `.noComplete` arrive
//! returned it.

use super::{wr, Area, AsyncCopy};
use crate::error::Result as ExecResult;
use crate::program::{Addr, MbarOp, Space, Src};
use std::collections::BTreeMap;
use std::fmt;

/// The largest expected and pending arrival count, and the largest tx-count magnitude:
/// 2^20 - 1 (L18418-18434).
pub(super) const MAX_COUNT: u32 = (1 << 20) - 1;

/// The bytes of an object (L18386-18392).
pub(super) const SIZE: usize = 8;

/// One mbarrier object's contents (L18398-18406).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Object {
    /// The current phase: how many phases have completed (L18448).
    pub phase: u64,
    /// Arrivals the current phase still waits for.
    pub pending: u32,
    /// Arrivals each following phase waits for (`init`'s count less the drops, L18859).
    pub expected: u32,
    /// Asynchronous transactions the current phase still waits for (L18462-18478).
    pub tx: i32,
    /// Whether some `test_wait`/`try_wait` returned True for the phase before the current one
    /// (or there is none): an arrive-on in the current phase needs it (L18456).
    pub observed: bool,
}

/// What the manual leaves undefined, found on an object (or a state) at a shared offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Fault {
    /// An mbarrier operation other than `init` where no object is initialized.
    Uninitialized,
    /// `mbarrier.init` on a live object (it must be invalidated first).
    Live,
    /// A count outside its range: which count, and the value it would take.
    Range { count: &'static str, value: i64 },
    /// A `.noComplete` arrive would complete the phase.
    NoComplete,
    /// An arrive-on in phase `phase` (> 0) before any wait observed phase `phase - 1` complete.
    Unobserved { phase: u64 },
    /// A wait's state names another object (at this offset).
    ForeignState { of: usize },
    /// A wait's state names a phase that is neither the current one nor the one before.
    StalePhase { state: u64, current: u64 },
    /// `pending_count` of a state a `.noComplete` arrive did not return.
    NotNoComplete,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Fault::Uninitialized => write!(
                f,
                "no mbarrier object is initialized there: any mbarrier operation but `mbarrier.init` on it is undefined (L18374, L18616)"
            ),
            Fault::Live => write!(
                f,
                "an mbarrier object is already initialized there: `mbarrier.init` on a valid object is undefined; invalidate it with `mbarrier.inval` first (L18574, L18444)"
            ),
            Fault::Range { count, value } => {
                let (lo, hi, line) = match *count {
                    "expected arrival count" => (1, MAX_COUNT as i64, "L18418-18422"),
                    "pending arrival count" => (0, MAX_COUNT as i64, "L18424-18428"),
                    "arrive-on count" => (1, MAX_COUNT as i64, "L18769, L18875, the range of L18418-18422"),
                    _ => (-(MAX_COUNT as i64), MAX_COUNT as i64, "L18430-18434"),
                };
                write!(
                    f,
                    "the {count} would be {value}, outside its range [{lo}, {hi}]: undefined ({line})"
                )
            }
            Fault::NoComplete => write!(
                f,
                "this `.noComplete` arrive would complete the current phase: undefined (L18767, L18873)"
            ),
            Fault::Unobserved { phase } => write!(
                f,
                "arrive-on in phase {phase} before any `mbarrier.test_wait`/`try_wait` returned True for phase {}: for each phase one must precede the next phase's arrive-on (L18456)",
                phase - 1
            ),
            Fault::ForeignState { of } => write!(
                f,
                "the state operand was returned by an arrive on the mbarrier object at shared {of:#x}, not this one: the phase it names is not this object's (L19049)"
            ),
            Fault::StalePhase { state, current } => write!(
                f,
                "the state names phase {state} (mod 2^28) while the object is in phase {current}: test_wait/try_wait are valid only for the current phase and the one immediately before it (L19057-19061)"
            ),
            Fault::NotNoComplete => write!(
                f,
                "the state operand is not the result of an `mbarrier.arrive.noComplete`/`arrive_drop.noComplete`: undefined (L19222)"
            ),
        }
    }
}

/// The opaque `state` of an arrive (L18773), as the oracle encodes it in 64 bits: bits 0-27 the
/// phase the arrive took part in (mod 2^28), bits 28-47 the pending arrival count before it,
/// bits 48-62 the object's shared offset / 8 (227 KiB of shared memory need 15 bits), bit 63
/// set by a `.noComplete` arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct State {
    pub phase: u64,
    pub pending: u32,
    pub object: usize,
    pub no_complete: bool,
}

const PHASE_BITS: u32 = 28;

impl State {
    pub fn encode(self) -> u64 {
        (self.phase & ((1 << PHASE_BITS) - 1))
            | (self.pending as u64 & MAX_COUNT as u64) << PHASE_BITS
            | ((self.object / SIZE) as u64 & 0x7fff) << 48
            | (self.no_complete as u64) << 63
    }

    pub fn decode(v: u64) -> State {
        State {
            phase: v & ((1 << PHASE_BITS) - 1),
            pending: (v >> PHASE_BITS) as u32 & MAX_COUNT,
            object: ((v >> 48) & 0x7fff) as usize * SIZE,
            no_complete: v >> 63 != 0,
        }
    }
}

/// Which phase a `test_wait`/`try_wait` asks about (L19047-19055).
#[derive(Clone, Copy, Debug)]
pub(super) enum Query {
    /// The phase an arrive's state names.
    State(u64),
    /// The current or the immediately preceding phase, by its parity.
    Parity(u64),
}

/// An arrive-on and what comes with it (§9.7.13.15.13-15).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Arrive {
    /// The arrive-on's count argument (L18500-18506).
    pub count: u32,
    /// `arrive_drop`: the expected count of later phases drops by `count` too (L18859).
    pub drop: bool,
    /// `.noComplete`: the arrive must not complete the phase (L18767).
    pub no_complete: bool,
    /// `.expect_tx`: an expect-tx of this many transactions first (L18765).
    pub expect_tx: Option<u32>,
    /// `cp.async.mbarrier.arrive` without `.noinc`: the pending count goes up by one first
    /// (L18948).
    pub increment: bool,
}

/// A CTA's mbarrier objects, by shared offset.
#[derive(Default)]
pub(super) struct Book {
    objects: BTreeMap<usize, Object>,
}

impl Book {
    /// The offset of a live object among the `n` bytes at `off`.
    pub fn overlapping(&self, off: usize, n: usize) -> Option<usize> {
        self.objects
            .range(off.saturating_sub(SIZE - 1)..off + n)
            .next()
            .map(|(&o, _)| o)
    }

    /// Whether no object is live (the common case: no check on plain accesses).
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// The object at `off`.
    #[cfg(test)]
    pub fn get(&self, off: usize) -> Result<&Object, Fault> {
        self.objects.get(&off).ok_or(Fault::Uninitialized)
    }

    /// The current phase of the object at `off`, if one is initialized there.
    pub fn phase(&self, off: usize) -> Option<u64> {
        self.objects.get(&off).map(|o| o.phase)
    }

    /// The live objects, by offset.
    pub fn objects(&self) -> impl Iterator<Item = (usize, &Object)> {
        self.objects.iter().map(|(&o, b)| (o, b))
    }

    fn get_mut(&mut self, off: usize) -> Result<&mut Object, Fault> {
        self.objects.get_mut(&off).ok_or(Fault::Uninitialized)
    }

    /// `mbarrier.init` (L18552-18566): phase 0, both counts `count`, tx-count 0.
    pub fn init(&mut self, off: usize, count: u32) -> Result<(), Fault> {
        if self.overlapping(off, SIZE).is_some() {
            return Err(Fault::Live);
        }
        if !(1..=MAX_COUNT).contains(&count) {
            // (`init`'s count must lie in the expected count's range, L18558.)
            return Err(Fault::Range {
                count: "expected arrival count",
                value: count as i64,
            });
        }
        self.objects.insert(
            off,
            Object {
                phase: 0,
                pending: count,
                expected: count,
                tx: 0,
                observed: true,
            },
        );
        Ok(())
    }

    /// `mbarrier.inval` (L18606-18616).
    pub fn inval(&mut self, off: usize) -> Result<(), Fault> {
        self.objects.remove(&off).map(|_| ()).ok_or(Fault::Uninitialized)
    }

    /// An expect-tx operation (L18466-18468), `-n` for a complete-tx (L18470-18478); the phase
    /// may complete after a complete-tx.
    pub fn tx(&mut self, off: usize, n: i64) -> Result<(), Fault> {
        let o = self.get_mut(off)?;
        let value = o.tx as i64 + n;
        if value.abs() > MAX_COUNT as i64 {
            return Err(Fault::Range {
                count: "tx-count",
                value,
            });
        }
        o.tx = value as i32;
        if n < 0 {
            complete_if_done(o);
        }
        Ok(())
    }

    /// An arrive-on (L18500-18510) with what `a` adds; the state (before the arrive).
    pub fn arrive(&mut self, off: usize, a: Arrive) -> Result<State, Fault> {
        let o = self.get_mut(off)?;
        if !o.observed {
            return Err(Fault::Unobserved { phase: o.phase });
        }
        let mut next = *o;
        if let Some(n) = a.expect_tx {
            let value = next.tx as i64 + n as i64;
            if value > MAX_COUNT as i64 {
                return Err(Fault::Range {
                    count: "tx-count",
                    value,
                });
            }
            next.tx = value as i32;
        }
        if a.increment {
            next.pending += 1;
            if next.pending > MAX_COUNT {
                return Err(Fault::Range {
                    count: "pending arrival count",
                    value: next.pending as i64,
                });
            }
        }
        let state = State {
            phase: next.phase,
            pending: next.pending,
            object: off,
            no_complete: a.no_complete,
        };
        if !(1..=MAX_COUNT).contains(&a.count) {
            return Err(Fault::Range {
                count: "arrive-on count",
                value: a.count as i64,
            });
        }
        if a.count > next.pending {
            return Err(Fault::Range {
                count: "pending arrival count",
                value: next.pending as i64 - a.count as i64,
            });
        }
        next.pending -= a.count;
        if a.drop {
            if a.count > next.expected {
                return Err(Fault::Range {
                    count: "expected arrival count",
                    value: next.expected as i64 - a.count as i64,
                });
            }
            next.expected -= a.count;
        }
        let phase = next.phase;
        complete_if_done(&mut next);
        if a.no_complete && next.phase != phase {
            return Err(Fault::NoComplete);
        }
        *o = next;
        Ok(state)
    }

    /// `test_wait`/`try_wait` now: whether the phase asked about has completed (L19041-19061).
    /// True observes the completion of the phase before the current one (L18456).
    pub fn wait(&mut self, off: usize, q: Query) -> Result<bool, Fault> {
        let o = self.get_mut(off)?;
        let done = match q {
            Query::Parity(p) => p & 1 != o.phase & 1,
            Query::State(v) => {
                let s = State::decode(v);
                if s.object != off {
                    return Err(Fault::ForeignState { of: s.object });
                }
                let cur = o.phase & ((1 << PHASE_BITS) - 1);
                if s.phase == cur {
                    false
                } else if (s.phase + 1) & ((1 << PHASE_BITS) - 1) == cur {
                    true
                } else {
                    return Err(Fault::StalePhase {
                        state: s.phase,
                        current: o.phase,
                    });
                }
            }
        };
        // Parity 1 in phase 0 asks about the phase "before" the first one: complete (as
        // producers waiting on an empty-buffer barrier rely on), but nothing to observe.
        if done && o.phase > 0 {
            o.observed = true;
        }
        Ok(done)
    }
}

/// The phase completes when both counts reach zero (L18486-18490): the next phase starts with
/// the expected count pending (L18494-18498).
fn complete_if_done(o: &mut Object) {
    if o.pending == 0 && o.tx == 0 {
        o.phase += 1;
        o.pending = o.expected;
        o.observed = false;
    }
}

/// `mbarrier.pending_count` (L19218-19224): the pending count before the `.noComplete` arrive
/// that returned `state`.
pub(super) fn pending_count(state: u64) -> Result<u32, Fault> {
    let s = State::decode(state);
    if !s.no_complete {
        return Err(Fault::NotNoComplete);
    }
    Ok(s.pending)
}

/// The instructions, on a CTA (hooks of the interpreter, `exec.rs`).
impl super::Cta<'_, '_> {
    /// Executes an mbarrier instruction for thread `i`, which then moves on (the object may be
    /// another CTA's of the cluster, [`super::Cta::mbar_of`]). A wait that
    /// returns False ends the warp's slice ([`super::Cta::spun`]).
    pub(super) fn mbarrier_op(
        &mut self,
        i: usize,
        pc: u32,
        op: &MbarOp,
        addr: Option<&(Addr, Space)>,
    ) -> ExecResult<()> {
        let (rank, at) = match addr {
            Some((a, space)) => self.object_at(i, pc, op, *space, self.address(i, a))?,
            None => (self.cluster.rank, 0),
        };
        let t = &self.threads[i];
        let whose = if rank == self.cluster.rank {
            String::new()
        } else {
            format!(" of CTA rank {rank} of the cluster")
        };
        let fault = |me: &Self, f: Fault| me.rt_err(i, pc, format!("mbarrier object at shared {at:#x}{whose}: {f}"));
        let rd = |s: &Src| self.rd(t, s);
        match op {
            MbarOp::Init { count } => {
                let n = rd(count);
                let n = u32::try_from(n).unwrap_or(u32::MAX);
                self.mbar_of(rank).init(at, n).map_err(|f| fault(self, f))?;
                self.mutations += 1;
            }
            MbarOp::Inval => {
                self.inval_checks(i, pc, rank, at)?;
                self.mbar_of(rank).inval(at).map_err(|f| fault(self, f))?;
                self.mutations += 1;
            }
            MbarOp::Tx { n, complete } => {
                let n = rd(n) as u32 as i64;
                let n = if *complete { -n } else { n };
                self.mbar_of(rank).tx(at, n).map_err(|f| fault(self, f))?;
                self.mutations += 1;
            }
            MbarOp::Arrive {
                d,
                count,
                drop,
                no_complete,
                expect_tx,
            } => {
                let a = Arrive {
                    // With `.expect_tx` the arrive-on's count is 1 (L18765).
                    count: count.as_ref().map_or(1, |c| rd(c) as u32),
                    drop: *drop,
                    no_complete: *no_complete,
                    expect_tx: expect_tx.as_ref().map(|n| rd(n) as u32),
                    increment: false,
                };
                let state = self.mbar_of(rank).arrive(at, a).map_err(|f| fault(self, f))?;
                self.mutations += 1;
                if rank != self.cluster.rank {
                    self.remote_arrive(i, rank, at, state.phase);
                }
                wr(&mut self.threads[i], d, state.encode());
            }
            MbarOp::CpAsyncArrive { noinc } => {
                // The arrive-on follows the completion of the thread's prior `cp.async`s
                // (L18944): the oracle completes them now, a schedule hardware may take, and
                // arrives at once.
                let t = &mut self.threads[i];
                let mut copies: Vec<AsyncCopy> = std::mem::take(&mut t.uncommitted);
                for g in t.groups.iter_mut() {
                    copies.append(g);
                }
                for c in &copies {
                    self.complete_copy(i, c);
                }
                let a = Arrive {
                    count: 1,
                    increment: !noinc,
                    ..Arrive::default()
                };
                self.mbar_of(rank).arrive(at, a).map_err(|f| fault(self, f))?;
                self.mutations += 1;
            }
            MbarOp::Wait { d, phase, parity } => {
                let v = rd(phase);
                let q = if *parity {
                    if v > 1 {
                        return Err(self.rt_err(
                            i,
                            pc,
                            format!("phaseParity {v} is neither 0 nor 1, the parities of a phase (L19053)"),
                        ));
                    }
                    Query::Parity(v)
                } else {
                    Query::State(v)
                };
                let mut done = self.mbar_of(rank).wait(at, q).map_err(|f| fault(self, f))?;
                // The bulk operations that signal the object complete when a wait would
                // otherwise return False (`bulk`).
                if !done && self.bulk_settle(i, pc, at)? {
                    done = self.mbar_of(rank).wait(at, q).map_err(|f| fault(self, f))?;
                }
                if done {
                    if let Some(p) = self.mbar.phase(at) {
                        self.observed(at, p);
                    }
                }
                self.spun |= !done;
                wr(&mut self.threads[i], d, done as u64);
            }
            MbarOp::PendingCount { d, state } => {
                let n = pending_count(rd(state)).map_err(|f| self.rt_err(i, pc, f))?;
                wr(&mut self.threads[i], d, n as u64);
            }
        }
        let t = &mut self.threads[i];
        t.pc += 1;
        t.clock += 1;
        Ok(())
    }

    /// The CTA (its rank in the cluster) and the shared offset of the object at `addr`:
    /// 8-aligned (L18386-18392) and in the CTA's shared memory (a generic address elsewhere is
    /// undefined, L18570), or in another CTA's of the cluster where the operation allows it:
    /// arrive-on and the tx operations at a `.shared::cluster` address (L18749-18750), the tx
    /// operations at a generic one (L18690); the others need the executing CTA's (L18570,
    /// L18759).
    fn object_at(&mut self, i: usize, pc: u32, op: &MbarOp, space: Space, addr: u64) -> ExecResult<(u32, usize)> {
        match self.locate(i, pc, space, addr, SIZE, false)? {
            (Area::Shared, off) => Ok((self.cluster.rank, off)),
            (Area::Peer(r), off) => {
                let remote = match op {
                    MbarOp::Tx { .. } => true,
                    MbarOp::Arrive { .. } => space == Space::SharedCluster,
                    _ => false,
                };
                if !remote {
                    return Err(self.rt_err(
                        i,
                        pc,
                        format!(
                            "the mbarrier object at {addr:#x} is in the shared memory of CTA rank {r} of the cluster: this operation needs an object in the executing CTA's `.shared::cta` window (undefined otherwise, L18570, L18759)"
                        ),
                    ));
                }
                self.touch_peer(i, pc, r)?;
                Ok((r, off))
            }
            _ => Err(self.rt_err(
                i,
                pc,
                format!(
                    "generic address {addr:#x} is not in the `.shared::cta` window: an mbarrier object lives in shared memory, elsewhere the behaviour is undefined (L18570, L18386-18392)"
                ),
            )),
        }
    }

    /// A plain access (not an mbarrier operation) of `n` shared bytes at `off` that meets an
    /// initialized object: undefined (L18374).
    pub(super) fn mbarrier_access(&self, i: usize, pc: u32, off: usize, n: usize, what: &str) -> ExecResult<()> {
        match self.mbar.overlapping(off, n) {
            Some(o) => Err(self.rt_err(
                i,
                pc,
                format!(
                    "{what} shared memory [{off:#x}, {:#x}), which holds the initialized mbarrier object at {o:#x}: any operation on it but the mbarrier instructions is undefined (L18374); `mbarrier.inval` it before reusing its memory (L18444)",
                    off + n
                ),
            )),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrive(count: u32) -> Arrive {
        Arrive {
            count,
            ..Arrive::default()
        }
    }

    #[test]
    fn phases_complete_when_both_counts_reach_zero() {
        let mut b = Book::default();
        b.init(16, 2).unwrap();
        assert_eq!(b.init(16, 2), Err(Fault::Live));
        assert_eq!(b.overlapping(20, 4), Some(16));
        assert_eq!(b.overlapping(24, 4), None);
        let s = b.arrive(16, arrive(1)).unwrap();
        assert_eq!(b.wait(16, Query::State(s.encode())), Ok(false));
        b.tx(16, 8).unwrap();
        b.arrive(16, arrive(1)).unwrap();
        assert_eq!(b.get(16).unwrap().phase, 0, "tx-count 8 is still pending");
        b.tx(16, -8).unwrap();
        assert_eq!(b.get(16).unwrap().phase, 1);
        assert_eq!(b.arrive(16, arrive(1)), Err(Fault::Unobserved { phase: 1 }));
        assert_eq!(b.wait(16, Query::State(s.encode())), Ok(true));
        assert_eq!(b.wait(16, Query::Parity(1)), Ok(false));
        assert!(b.arrive(16, arrive(1)).is_ok());
        b.inval(16).unwrap();
        assert_eq!(b.inval(16), Err(Fault::Uninitialized));
    }

    #[test]
    fn the_state_round_trips() {
        let s = State {
            phase: 5,
            pending: MAX_COUNT,
            object: 227 * 1024 - 8,
            no_complete: true,
        };
        assert_eq!(State::decode(s.encode()), s);
    }
}
