//! Clusters of CTAs in the interpreter (§2.2.2, L89-93; the window and the geometry are
//! [`crate::cluster`]'s).
//!
//! The CTAs of a cluster run together: their warps take turns round-robin, CTA by CTA in rank
//! order, each warp its slice; clusters run one after another. [`Cta`] is the runner: its
//! per-CTA fields (threads, shared memory, barriers, mbarrier book, pending `cp.async` copies,
//! bulk async-groups) are those of the CTA whose turn it is, the others are parked in
//! [`Cluster`] as [`Parked`] and swapped in for their turn ([`Cta::switch_to`]), so the
//! single-CTA paths of the interpreter are unchanged. The pending bulk operations are the
//! cluster's, [`Cluster`]'s `flight`, never swapped: one CTA's operation may write another's
//! shared memory and is completed by that one's wait (`exec/bulk.rs`). A field added to [`Cta`] must be put on one side or the other in
//! [`Cta::swap_state`], which destructures the runner exhaustively so that the compiler asks.
//!
//! The internal API for instructions that reach another CTA's shared memory (distributed
//! shared memory, `ld`/`st`/`atom`/`red` on `.shared::cluster`, bulk copies, `st.async`,
//! remote mbarrier signals):
//! - [`Cta::cluster_locate`]: a `.shared::cluster` address to the CTA's rank and the offset in
//!   its shared memory, checked (window, rank, bounds, alignment);
//! - [`Cta::cluster_read`], [`Cta::cluster_write`]: bytes there, with the checks of a plain
//!   access (pending `cp.async` copies, live mbarrier objects, the peer's exit, L89);
//! - [`Cta::cluster_mbarrier`]: the mbarrier book of the CTA of a rank ([`Cta::mbar_of`]) and
//!   the object's offset, for an mbarrier operation at a `.shared::cluster` address.
//!
//! `barrier.cluster` (§9.7.13.3, L17150-17185) is [`Book`]: each thread's part in the current
//! phase (idle, arrived, waited), counted over the threads that have not exited. A wait
//! returns when every non-exited thread of the cluster has arrived (L17171); the phase
//! completes when every non-exited thread that arrived has waited (L17175). Each thread
//! arrives once a phase (L17175): an arrive before its wait is a runtime error; an arrive
//! after its wait returned, while others have still to wait, is held until the phase
//! completes (a schedule in which the thread is slow). A wait with no arrive before it waits
//! for the thread itself: a runtime error.
//!
//! A CTA must not exit while another CTA of its cluster may still access its shared memory
//! (L89): an access to the shared memory of a CTA whose threads have all exited is a runtime
//! error, and so is the exit of a CTA whose shared memory a peer thread accessed with nothing
//! ordering its latest access before the exit, reported at the access. What orders it: a
//! `barrier.cluster` phase (the accessing thread's next arrive, then the wait of that phase by
//! a thread of the exiting CTA), or an arrive-on of the accessing thread on an mbarrier object
//! of the exiting CTA whose phase a thread there observed complete.

use super::{bulk, control, mbarrier, proxy, Area, Barrier, Cta, Env, St, Thread};
use crate::cluster::{decode, rank_address, Geometry, Target};
use crate::error::{Error, ErrorKind, Result};
use crate::program::{ClusterOp, Op, Space};
use spec::sreg::Sreg;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// A CTA of the cluster while another runs: [`Cta`]'s per-CTA fields, moved out whole.
pub(super) struct Parked {
    env: Env,
    shared: Vec<u8>,
    threads: Vec<Thread>,
    bars: Vec<Barrier>,
    pending: Vec<u16>,
    pending_n: usize,
    wg_pending: usize,
    proxy: Option<proxy::Book>,
    mbar: mbarrier::Book,
    bulk: bulk::Book,
    tmap: Option<bulk::tensor::MapBook>,
    nreg: control::Registers,
}

impl Parked {
    fn empty() -> Parked {
        Parked {
            env: Env {
                ctaid: [0; 3],
                ntid: [0; 3],
                nctaid: [0; 3],
                dyn_shared: 0,
                total_shared: 0,
            },
            shared: Vec::new(),
            threads: Vec::new(),
            bars: Vec::new(),
            pending: Vec::new(),
            pending_n: 0,
            wg_pending: 0,
            proxy: None,
            mbar: mbarrier::Book::default(),
            bulk: bulk::Book::new(0),
            tmap: None,
            nreg: control::Registers::default(),
        }
    }
}

/// A thread's part in the current phase of the cluster barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// Not arrived.
    Idle,
    /// Arrived, not waited.
    Arrived,
    /// Its wait returned.
    Waited,
    /// Exited: no longer counted (L17171, L17175, L16915).
    Gone,
}

/// The cluster barrier (§9.7.13.3), from its first use.
struct Book {
    /// Each thread's part, by rank and linear thread index.
    part: Vec<Vec<Part>>,
    /// Non-exited threads idle, arrived, waited.
    idle: u32,
    arrived: u32,
    waited: u32,
    /// Phases completed.
    phase: u64,
    /// Threads held: at a wait until every thread has arrived, at an arrive until the phase
    /// completes. (rank, linear index)
    held: Vec<(u32, usize)>,
}

/// A remote access to a CTA's shared memory, which the CTA's exit must follow (L89).
#[derive(Clone, Copy, Debug)]
struct Access {
    /// The `barrier.cluster` phase whose wait, by a thread of the accessed CTA, orders the
    /// access before that CTA's exit: the accessing thread's next arrive is in it.
    phase: u64,
    /// The accessing thread: its CTA's `%ctaid` and its `%tid`.
    ctaid: [u32; 3],
    tid: [u32; 3],
    /// The access.
    pc: u32,
    /// The accessing thread's arrive-on, after the access, on an mbarrier object of the
    /// accessed CTA: the object's offset and the phase the arrive took part in. A thread of
    /// that CTA observing the phase complete orders the access before the CTA's exit.
    mbar: Option<(usize, u64)>,
}

/// The cluster being run: its geometry, the CTAs not running now, the cluster barrier and
/// what the exit rule needs.
pub(super) struct Cluster {
    geo: Geometry,
    /// `%clusterid`.
    id: [u32; 3],
    /// The rank of the CTA whose turn it is (its state is the runner's own).
    pub(super) rank: u32,
    /// By rank: the CTAs not running now (`None` at `rank`).
    parked: Vec<Option<Parked>>,
    /// By rank: every thread of the CTA has exited.
    ended: Vec<bool>,
    barrier: Option<Book>,
    /// By rank: the latest access to the CTA's shared memory of each thread of the other CTAs,
    /// by (rank, linear index), until something orders it before the CTA's exit (a `RefCell`:
    /// loads, which take the runner shared, record theirs).
    exposed: Vec<RefCell<BTreeMap<(u32, u32), Access>>>,
    /// By rank: phases of which a thread of the CTA completed the wait.
    passed: Vec<u64>,
    /// The pending bulk asynchronous operations of every CTA of the cluster: not parked with a
    /// CTA, since an operation one CTA issues may write another's shared memory and is
    /// completed by that one's wait (`exec/bulk.rs`).
    pub(super) flight: bulk::Flight,
}

impl Cluster {
    /// The implicit 1×1×1 cluster of CTA `ctaid` of a `grid` (L93).
    pub(super) fn lone(grid: [u32; 3], ctaid: [u32; 3]) -> Cluster {
        let geo = Geometry {
            dims: [1, 1, 1],
            explicit: false,
            grid,
        };
        Cluster::new(geo, ctaid, Vec::new())
    }

    /// Cluster `id` of `geo`, the CTAs of ranks 1 and up `parked` (rank 0 runs first).
    pub(super) fn new(geo: Geometry, id: [u32; 3], parked: Vec<Parked>) -> Cluster {
        let n = geo.size() as usize;
        Cluster {
            geo,
            id,
            rank: 0,
            parked: std::iter::once(None).chain(parked.into_iter().map(Some)).collect(),
            ended: vec![false; n],
            barrier: None,
            exposed: (0..n).map(|_| RefCell::new(BTreeMap::new())).collect(),
            passed: vec![0; n],
            flight: bulk::Flight::new(),
        }
    }

    /// CTAs in the cluster.
    pub(super) fn size(&self) -> u32 {
        self.geo.size()
    }
}

impl Cta<'_, '_> {
    /// This CTA's state, moved out (to park it in a cluster, [`Cluster::new`]).
    pub(super) fn park(&mut self) -> Parked {
        self.swap_state(Parked::empty())
    }

    /// Puts `p`'s per-CTA state in the runner; returns the runner's.
    fn swap_state(&mut self, mut p: Parked) -> Parked {
        use std::mem::swap;
        // Exhaustive: a new field of `Cta` must be placed here (per CTA, swapped) or there.
        let Cta {
            m: _,
            env,
            limits: _,
            shared,
            kparams: _,
            threads,
            bars,
            pending,
            pending_n,
            wg_pending,
            wg_track: _,
            proxy,
            mbar,
            bulk,
            tmap,
            spun: _,
            mutations: _,
            entry: _,
            nreg,
            cluster: _,
        } = self;
        swap(env, &mut p.env);
        swap(shared, &mut p.shared);
        swap(threads, &mut p.threads);
        swap(bars, &mut p.bars);
        swap(pending, &mut p.pending);
        swap(pending_n, &mut p.pending_n);
        swap(wg_pending, &mut p.wg_pending);
        swap(proxy, &mut p.proxy);
        swap(mbar, &mut p.mbar);
        swap(bulk, &mut p.bulk);
        swap(tmap, &mut p.tmap);
        swap(nreg, &mut p.nreg);
        p
    }

    /// Makes the CTA of rank `r` the running one.
    pub(super) fn switch_to(&mut self, r: u32) {
        let cur = self.cluster.rank;
        if r == cur {
            return;
        }
        let incoming = self.cluster.parked[r as usize].take().unwrap_or_else(Parked::empty);
        let outgoing = self.swap_state(incoming);
        self.cluster.parked[cur as usize] = Some(outgoing);
        self.cluster.rank = r;
    }

    /// Whether every CTA of the cluster has ended.
    pub(super) fn cluster_done(&self) -> bool {
        let me = self.cluster.rank as usize;
        (0..self.cluster.ended.len()).all(|r| {
            if r == me {
                self.threads.iter().all(|t| t.st == St::Exited)
            } else {
                self.cluster.ended[r]
            }
        })
    }

    /// The deadlock error of a cluster: at a thread of the first CTA with threads left.
    pub(super) fn cluster_deadlock(&mut self) -> Error {
        let n = self.cluster.size();
        if n > 1 {
            let me = self.cluster.rank;
            let alive = |c: &Self, r: u32| {
                if r == me {
                    c.threads.iter().any(|t| t.st != St::Exited)
                } else {
                    !c.cluster.ended[r as usize]
                }
            };
            if let Some(r) = (0..n).find(|&r| alive(self, r)) {
                self.switch_to(r);
            }
        }
        let mut e = self.deadlock();
        if n > 1 {
            let c = self.cluster.id;
            e.message.push_str(&format!(
                " (in cluster ({},{},{}), CTA rank {} of {n}; the other CTAs of the cluster cannot proceed either)",
                c[0], c[1], c[2], self.cluster.rank
            ));
        }
        e
    }

    /// The shared state of the CTA of rank `r` (not the running one).
    fn peer(&self, r: u32) -> &Parked {
        self.cluster.parked[r as usize]
            .as_ref()
            .expect("a rank other than the running one is parked")
    }

    fn peer_mut(&mut self, r: u32) -> &mut Parked {
        self.cluster.parked[r as usize]
            .as_mut()
            .expect("a rank other than the running one is parked")
    }

    /// A cluster special register (§10.11-10.17).
    pub(super) fn cluster_sreg(&self, s: Sreg) -> u64 {
        self.cluster.sreg(s)
    }
}

impl Cluster {
    /// A cluster special register (§10.11-10.17) read in the cluster's running CTA.
    pub(super) fn sreg(&self, s: Sreg) -> u64 {
        let c = self;
        let comp = |v: [u32; 3], k: u8| v.get(k as usize).map_or(0, |&x| x as u64);
        match s {
            Sreg::IsExplicitCluster => c.geo.explicit as u64,
            Sreg::Clusterid(k) => comp(c.id, k),
            Sreg::Nclusterid(k) => comp(c.geo.nclusterid(), k),
            Sreg::ClusterCtaid(k) => comp(c.geo.cluster_ctaid(c.rank), k),
            Sreg::ClusterNctaid(k) => comp(c.geo.dims, k),
            Sreg::ClusterCtarank => c.rank as u64,
            Sreg::ClusterNctarank => c.size() as u64,
            _ => 0,
        }
    }
}

impl Cta<'_, '_> {
    /// Where a shared access of `len` bytes at `a` lands: the running CTA's shared memory
    /// ([`Area::Shared`]) or a peer's ([`Area::Peer`]). `cluster`: a `.shared::cluster` access
    /// (explicit or generic); else `.shared::cta`, which may name only the executing CTA's
    /// memory (L1290, L1292). The error: why (the caller locates it).
    pub(super) fn shared_area(&self, a: u64, len: usize, cluster: bool) -> std::result::Result<(Area, usize), String> {
        let size = self.shared.len();
        let what = if cluster { "shared::cluster" } else { "shared" };
        let within = |off: u64| -> Option<usize> {
            (off as usize)
                .checked_add(len)
                .filter(|&e| off < size as u64 && e <= size)
                .map(|_| off as usize)
        };
        let outside =
            || format!("{what} address {a:#x} (+{len} bytes) is outside the block's shared memory ({size} bytes)");
        // The window beyond the CTA's own part exists from sm_90 on (clusters, L93).
        let target = if self.m.prog.sm >= 90 {
            decode(a)
        } else {
            Some(Target::Own(a))
        };
        match target {
            Some(Target::Own(off)) => within(off).map(|o| (Area::Shared, o)).ok_or_else(outside),
            Some(Target::Rank(r, off)) if r < self.cluster.size() => {
                let o = within(off).ok_or_else(|| {
                    format!(
                        "{what} address {a:#x} (+{len} bytes) is outside the shared memory of CTA rank {r} of the cluster ({size} bytes at offset {off:#x})"
                    )
                })?;
                if r == self.cluster.rank {
                    Ok((Area::Shared, o))
                } else if cluster {
                    Ok((Area::Peer(r), o))
                } else {
                    Err(format!(
                        "shared address {a:#x} is in the shared memory of CTA rank {r} of the cluster, not the executing CTA's (rank {}): a `.shared::cta` access may address only the executing CTA's shared memory; use `.shared::cluster` (L1290, L1292)",
                        self.cluster.rank
                    ))
                }
            }
            Some(Target::Rank(r, _)) => Err(format!(
                "{what} address {a:#x} is in the window of CTA rank {r}, but the cluster has {} CTA{} (ranks 0 to {})",
                self.cluster.size(),
                if self.cluster.size() == 1 { "" } else { "s" },
                self.cluster.size() - 1
            )),
            None => Err(outside()),
        }
    }

    /// Resolves `.shared::cluster` address `a` for an access of `len` bytes by thread `i` at
    /// `pc`: the rank of the CTA whose shared memory it is in and the offset there, the address
    /// checked for alignment to `len` (when a power of two), the window, the rank and the
    /// bounds. The entry point of every access to another CTA's shared memory (see the module
    /// doc).
    #[allow(dead_code)] // The API of the bulk copies and `st.async` (issue 16, see the module doc).
    pub(super) fn cluster_locate(&self, i: usize, pc: u32, a: u64, len: usize) -> Result<(u32, usize)> {
        match self.locate(i, pc, Space::SharedCluster, a, len, false)? {
            (Area::Peer(r), off) => Ok((r, off)),
            (_, off) => Ok((self.cluster.rank, off)),
        }
    }

    /// Reads `out.len()` bytes at `off` of the shared memory of the CTA of rank `r` for thread
    /// `i` at `pc` ([`Cta::cluster_locate`] gives both), with the checks of a load.
    #[allow(dead_code)] // The API of the bulk copies and `st.async` (issue 16, see the module doc).
    pub(super) fn cluster_read(&self, i: usize, pc: u32, r: u32, off: usize, out: &mut [u8]) -> Result<()> {
        if r == self.cluster.rank {
            return self.load(i, pc, Space::Shared, off as u64, out);
        }
        self.peer_load(i, pc, r, off, out)
    }

    /// Writes `data` at `off` of the shared memory of the CTA of rank `r` for thread `i` at
    /// `pc`, with the checks of a store.
    #[allow(dead_code)] // The API of the bulk copies and `st.async` (issue 16, see the module doc).
    pub(super) fn cluster_write(&mut self, i: usize, pc: u32, r: u32, off: usize, data: &[u8]) -> Result<()> {
        if r == self.cluster.rank {
            return self.store(i, pc, Space::Shared, off as u64, data);
        }
        self.peer_store(i, pc, r, off, data)
    }

    /// The mbarrier book of the CTA of rank `r`.
    pub(super) fn mbar_of(&mut self, r: u32) -> &mut mbarrier::Book {
        if r == self.cluster.rank {
            &mut self.mbar
        } else {
            &mut self.peer_mut(r).mbar
        }
    }

    /// The mbarrier book of the CTA of rank `r`, to read.
    pub(super) fn mbar_in(&self, r: u32) -> &mbarrier::Book {
        if r == self.cluster.rank {
            &self.mbar
        } else {
            &self.peer(r).mbar
        }
    }

    /// The shared memory of the CTA of rank `r` (for the bulk operations, which read it
    /// through the async proxy when they complete, with their own checks).
    pub(super) fn shared_in(&self, r: u32) -> &[u8] {
        if r == self.cluster.rank {
            &self.shared
        } else {
            &self.peer(r).shared
        }
    }

    /// The shared memory of the CTA of rank `r` and its proxy book, to write (the bulk
    /// operations' completion, `Cta::cluster_store`).
    pub(super) fn cta_shared_mut(&mut self, r: u32) -> (&mut [u8], Option<&mut proxy::Book>) {
        if r == self.cluster.rank {
            (&mut self.shared, self.proxy.as_mut())
        } else {
            let p = self.peer_mut(r);
            (&mut p.shared, p.proxy.as_mut())
        }
    }

    /// Whether every thread of the CTA of rank `r` has exited.
    pub(super) fn cta_exited(&self, r: u32) -> bool {
        self.cluster.ended[r as usize]
    }

    /// Thread `j` (linear index) of the CTA of rank `r`, for messages: "thread (x, y, z)", with
    /// its block in a cluster of more than one CTA (the message may be reported at a thread of
    /// another CTA).
    pub(super) fn thread_name_in(&self, r: u32, j: usize) -> String {
        if self.cluster.size() == 1 {
            return self.thread_name(j);
        }
        let (t, env) = if r == self.cluster.rank {
            (&self.threads[j], &self.env)
        } else {
            (&self.peer(r).threads[j], &self.peer(r).env)
        };
        let [x, y, z] = t.tid;
        format!("thread ({x}, {y}, {z}) of block {}", fmt3(env.ctaid))
    }

    /// A runtime error at thread `j` of the CTA of rank `r`, at `pc` (`rt_err` for a thread of
    /// any CTA of the cluster: a bulk operation completed by another CTA names its issuer).
    pub(super) fn thread_err_in(&self, r: u32, j: usize, pc: u32, msg: impl std::fmt::Display) -> Error {
        if r == self.cluster.rank {
            return self.rt_err(j, pc, msg);
        }
        let p = self.peer(r);
        let inst = &self.m.prog.code[pc as usize];
        Error::at(
            ErrorKind::Runtime,
            inst.loc,
            format!(
                "`{}`: thread {} of block {}: {msg}",
                inst.text,
                fmt3(p.threads[j].tid),
                fmt3(p.env.ctaid)
            ),
        )
    }

    /// The mbarrier object at `.shared::cluster` address `a` for thread `i` at `pc`: its CTA's
    /// rank and its offset there (8 bytes, 8-aligned, L18386-18392), the access to a peer
    /// recorded for the exit rule (L89). Use [`Cta::mbar_of`] for the book.
    #[allow(dead_code)] // The API of the bulk copies and `st.async` (issue 16, see the module doc).
    pub(super) fn cluster_mbarrier(&mut self, i: usize, pc: u32, a: u64) -> Result<(u32, usize)> {
        let (r, off) = self.cluster_locate(i, pc, a, mbarrier::SIZE)?;
        if r != self.cluster.rank {
            self.touch_peer(i, pc, r)?;
        }
        Ok((r, off))
    }

    /// Before thread `i` at `pc` accesses the shared memory of peer `r`: the peer must not have
    /// exited (L89), and the access is recorded for the peer's exit.
    pub(super) fn touch_peer(&self, i: usize, pc: u32, r: u32) -> Result<()> {
        if self.cluster.ended[r as usize] {
            return Err(self.rt_err(
                i,
                pc,
                format!(
                    "accesses the shared memory of CTA rank {r} of the cluster (block {}), whose threads have all exited: a CTA must not exit before its peers' shared-memory operations on it complete (L89)",
                    fmt3(self.peer(r).env.ctaid)
                ),
            ));
        }
        let me = self.cluster.rank as usize;
        let lin = self.threads[i].lin as usize;
        let phase = match &self.cluster.barrier {
            Some(b) if b.part[me][lin] == Part::Idle => b.phase,
            Some(b) => b.phase + 1,
            None => 0,
        };
        let access = Access {
            phase,
            ctaid: self.env.ctaid,
            tid: self.threads[i].tid,
            pc,
            mbar: None,
        };
        // The latest access of a thread stands for its earlier ones: what orders it orders them.
        self.cluster.exposed[r as usize]
            .borrow_mut()
            .insert((self.cluster.rank, lin as u32), access);
        Ok(())
    }

    /// Thread `i` arrived on the mbarrier object at `off` of peer `r`, in phase `phase`
    /// (an arrive-on releases by default, L18777): its accesses to `r` before are ordered
    /// before `r`'s exit once a thread of `r` observes the phase complete ([`Cta::observed`]).
    pub(super) fn remote_arrive(&self, i: usize, r: u32, off: usize, phase: u64) {
        let key = (self.cluster.rank, self.threads[i].lin);
        if let Some(a) = self.cluster.exposed[r as usize].borrow_mut().get_mut(&key) {
            a.mbar = Some((off, phase));
        }
    }

    /// A thread of the running CTA observed the phases of its mbarrier object at `off` before
    /// `phase` complete (a wait returned True): the peers' accesses its arrives order are no
    /// longer exposed.
    pub(super) fn observed(&self, off: usize, phase: u64) {
        let me = self.cluster.rank as usize;
        if let Some(e) = self.cluster.exposed.get(me) {
            e.borrow_mut()
                .retain(|_, a| !a.mbar.is_some_and(|(o, p)| o == off && p < phase));
        }
    }

    /// A load from peer `r`'s shared memory (`load`'s for [`Area::Peer`]).
    pub(super) fn peer_load(&self, i: usize, pc: u32, r: u32, off: usize, out: &mut [u8]) -> Result<()> {
        self.touch_peer(i, pc, r)?;
        self.peer_checks(i, pc, r, off, out.len(), "read")?;
        let n = out.len();
        out.copy_from_slice(&self.peer(r).shared[off..off + n]);
        Ok(())
    }

    /// A store to peer `r`'s shared memory (`store`'s for [`Area::Peer`]).
    pub(super) fn peer_store(&mut self, i: usize, pc: u32, r: u32, off: usize, data: &[u8]) -> Result<()> {
        self.touch_peer(i, pc, r)?;
        self.peer_checks(i, pc, r, off, data.len(), "write")?;
        self.mutations += 1;
        let n = data.len();
        let p = self.peer_mut(r);
        if let Some(b) = &mut p.proxy {
            b.write(i, pc, off, n);
        }
        p.shared[off..off + n].copy_from_slice(data);
        Ok(())
    }

    /// The checks of a plain access to `n` bytes at `off` of peer `r`'s shared memory: no
    /// `cp.async` of the peer pending there (L14398-14402), no live mbarrier object (L18374).
    fn peer_checks(&self, i: usize, pc: u32, r: u32, off: usize, n: usize, what: &str) -> Result<()> {
        let p = self.peer(r);
        if p.pending_n > 0 && p.pending[off..off + n].iter().any(|&c| c > 0) {
            return Err(self.rt_err(
                i,
                pc,
                format!(
                    "{what} shared memory [{off:#x}, {:#x}) of CTA rank {r} while a `cp.async` of that CTA to it has not completed: a `cp.async` destination holds its data only after the issuing thread's `cp.async.wait_group`/`wait_all` (L14398-14402)",
                    off + n
                ),
            ));
        }
        if let Some(o) = p.mbar.overlapping(off, n) {
            return Err(self.rt_err(
                i,
                pc,
                format!(
                    "{what} shared memory [{off:#x}, {:#x}) of CTA rank {r}, which holds the initialized mbarrier object at {o:#x}: any operation on it but the mbarrier instructions is undefined (L18374)",
                    off + n
                ),
            ));
        }
        // The destination or source of a pending bulk operation (`exec/bulk.rs`).
        if !self.cluster.flight.is_idle() {
            self.bulk_access(i, pc, Area::Peer(r), off, n, what == "write")?;
        }
        Ok(())
    }

    /// Whether generic `g` is in `space` (`isspacep`): `.shared::cta` is the executing CTA's part
    /// of the shared window, the addresses of its peers are not in it (L13500).
    pub(super) fn in_space(&self, space: Space, g: u64) -> bool {
        if space == Space::Shared
            && self
                .peer_rank(self.m.prog.windows.from_generic(Space::Shared, g))
                .is_some()
        {
            return false;
        }
        self.m.prog.windows.is_in(space, g)
    }

    /// The rank of the peer (another CTA of the cluster) whose window shared address `a` is in.
    fn peer_rank(&self, a: u64) -> Option<u32> {
        if self.cluster.size() < 2 || self.m.prog.sm < 90 {
            return None;
        }
        match decode(a) {
            Some(Target::Rank(r, _)) if r < self.cluster.size() && r != self.cluster.rank => Some(r),
            _ => None,
        }
    }

    /// `cvta.shared::cta` and `cvta.to.shared::cta` of the address of a peer's shared memory
    /// (`v`, generic when `to_generic` is false): undefined, the address must be in the window
    /// the sub-qualifier names (L13561).
    pub(super) fn cvta_cta(&self, i: usize, pc: u32, v: u64, to_generic: bool) -> Result<()> {
        let a = if to_generic {
            v
        } else {
            match self.m.prog.windows.resolve_generic(v) {
                Some((Space::Shared, a)) => a,
                _ => return Ok(()),
            }
        };
        match self.peer_rank(a) {
            Some(r) => Err(self.rt_err(
                i,
                pc,
                format!(
                    "address {v:#x} is in the shared memory of CTA rank {r} of the cluster, not in the `.shared::cta` window: with `.shared::cta` the behaviour is undefined (L13561); use `.shared::cluster`"
                ),
            )),
            None => Ok(()),
        }
    }

    /// Executes a cluster instruction for lanes `exec` (of `mask`, before guards) of the warp at
    /// `lo`.
    pub(super) fn cluster_op(&mut self, lo: usize, mask: u32, exec: u32, pc: u32, op: &ClusterOp) -> Result<()> {
        match op {
            ClusterOp::Barrier { aligned, .. } => {
                if *aligned && exec != 0 && mask & !exec != 0 {
                    let l = (mask & !exec).trailing_zeros() as usize;
                    return Err(self.rt_err(
                        lo + l,
                        pc,
                        "its guard is false here but true in other threads of the warp: every thread of the warp must execute the same `.aligned` `barrier.cluster` (undefined otherwise, L17185)",
                    ));
                }
                self.barrier_cluster(lo, exec, pc)
            }
            ClusterOp::Mapa { generic, d, a, rank } => {
                for i in lanes(lo, exec) {
                    let t = &self.threads[i];
                    let (av, r) = (self.rd(t, a), self.rd(t, rank) as u32);
                    let v = self.mapa(i, pc, *generic, av, r)?;
                    let t = &mut self.threads[i];
                    super::wr(t, d, v);
                    t.pc += 1;
                    t.clock += 1;
                }
                Ok(())
            }
            ClusterOp::Getctarank { generic, d, a } => {
                for i in lanes(lo, exec) {
                    let av = self.rd(&self.threads[i], a);
                    let (r, _) = self.shared_of(i, pc, *generic, av, "getctarank", "L14163")?;
                    let t = &mut self.threads[i];
                    super::wr(t, d, r as u64);
                    t.pc += 1;
                    t.clock += 1;
                }
                Ok(())
            }
        }
    }

    /// The CTA and offset of the shared-memory address `a` of `mapa`/`getctarank` (generic when
    /// `generic`): a valid shared memory address (`line`), up to one past the end.
    fn shared_of(&self, i: usize, pc: u32, generic: bool, a: u64, what: &str, line: &str) -> Result<(u32, u64)> {
        let s = if generic {
            match self.m.prog.windows.resolve_generic(a) {
                Some((Space::Shared, s)) => s,
                _ => {
                    return Err(self.rt_err(
                        i,
                        pc,
                        format!("`{what}`: {a:#x} is not a generic address of shared memory ({line})"),
                    ))
                }
            }
        } else {
            a
        };
        let size = self.shared.len() as u64;
        let n = self.cluster.size();
        let target = if self.m.prog.sm >= 90 {
            decode(s)
        } else {
            Some(Target::Own(s))
        };
        match target {
            Some(Target::Own(off)) if off <= size => Ok((self.cluster.rank, off)),
            Some(Target::Rank(r, off)) if r < n && off <= size => Ok((r, off)),
            _ => Err(self.rt_err(
                i,
                pc,
                format!(
                    "`{what}`: {a:#x} is not the address of shared memory of a CTA of the cluster ({n} CTA{} of {size} bytes; {line})",
                    if n == 1 { "" } else { "s" }
                ),
            )),
        }
    }

    /// `mapa` (§9.7.9.23): the address in the CTA of rank `r` that corresponds to `a`
    /// (L14118): the same offset in its shared memory, in the window's part of that rank.
    fn mapa(&self, i: usize, pc: u32, generic: bool, a: u64, r: u32) -> Result<u64> {
        let n = self.cluster.size();
        if r >= n {
            return Err(self.rt_err(
                i,
                pc,
                format!(
                    "`mapa` to CTA rank {r}: the cluster has {n} CTA{} (ranks 0 to {}); operand b must be the rank of a CTA of the cluster (L14116)",
                    if n == 1 { "" } else { "s" },
                    n - 1
                ),
            ));
        }
        let (_, off) = self.shared_of(i, pc, generic, a, "mapa", "L14112")?;
        let s = rank_address(r, off);
        Ok(if generic {
            self.m.prog.windows.to_generic(Space::SharedCluster, s)
        } else {
            s
        })
    }

    /// `barrier.cluster.arrive`/`wait` for lanes `exec` of the warp at `lo`: the lanes wait
    /// until every non-exited lane of the warp is at a `barrier.cluster` (L17173); then each
    /// executes its own, in lane order.
    fn barrier_cluster(&mut self, lo: usize, exec: u32, pc: u32) -> Result<()> {
        let prog = self.m.prog;
        let hi = (lo + 32).min(self.threads.len());
        let is_barrier = |pc: u32| matches!(prog.code[pc as usize].op, Op::Cluster(ClusterOp::Barrier { .. }));
        let mut here = exec;
        let mut live = 0u32;
        for (l, t) in self.threads[lo..hi].iter().enumerate() {
            if t.st == St::WarpWait && is_barrier(t.pc) {
                here |= 1 << l;
            }
            if t.st != St::Exited {
                live |= 1 << l;
            }
        }
        if here == 0 {
            return Ok(());
        }
        if live & !here != 0 {
            for i in lanes(lo, here) {
                self.threads[i].st = St::WarpWait;
            }
            return Ok(());
        }
        let first = lo + here.trailing_zeros() as usize;
        let pc0 = self.threads[first].pc;
        for i in lanes(lo, here) {
            let tpc = self.threads[i].pc;
            let Op::Cluster(ClusterOp::Barrier { arrive, aligned }) = prog.code[tpc as usize].op else {
                return Err(self.internal_err(i, pc, "a lane waits at a `barrier.cluster` that is not one"));
            };
            if tpc != pc0
                && (aligned
                    || matches!(
                        prog.code[pc0 as usize].op,
                        Op::Cluster(ClusterOp::Barrier { aligned: true, .. })
                    ))
            {
                return Err(self.rt_err(
                    i,
                    tpc,
                    format!(
                        "the threads of the warp are at different `barrier.cluster` instructions (this one and line {}), one of them `.aligned`: every thread of the warp must execute the same `.aligned` instruction (undefined otherwise, L17185)",
                        prog.code[pc0 as usize].loc.line
                    ),
                ));
            }
            self.threads[i].st = St::Run;
            if arrive {
                self.cluster_arrive(i, tpc)?;
            } else {
                self.cluster_wait(i, tpc)?;
            }
        }
        self.cluster_release();
        Ok(())
    }

    /// The cluster barrier, made at its first use: every thread that has not exited idle.
    fn barrier_book(&mut self) -> &mut Book {
        if self.cluster.barrier.is_none() {
            let me = self.cluster.rank as usize;
            let part: Vec<Vec<Part>> = (0..self.cluster.size() as usize)
                .map(|r| {
                    let ts = if r == me {
                        &self.threads
                    } else {
                        &self.peer(r as u32).threads
                    };
                    ts.iter()
                        .map(|t| if t.st == St::Exited { Part::Gone } else { Part::Idle })
                        .collect()
                })
                .collect();
            let idle = part.iter().flatten().filter(|&&p| p == Part::Idle).count() as u32;
            self.cluster.barrier = Some(Book {
                part,
                idle,
                arrived: 0,
                waited: 0,
                phase: 0,
                held: Vec::new(),
            });
        }
        self.cluster.barrier.as_mut().expect("made above")
    }

    /// Thread `i`'s `barrier.cluster.arrive` at `pc` (L17169).
    fn cluster_arrive(&mut self, i: usize, pc: u32) -> Result<()> {
        let me = self.cluster.rank;
        let lin = self.threads[i].lin as usize;
        let b = self.barrier_book();
        match b.part[me as usize][lin] {
            Part::Idle => {
                b.part[me as usize][lin] = Part::Arrived;
                b.idle -= 1;
                b.arrived += 1;
                let t = &mut self.threads[i];
                t.pc += 1;
                t.clock += 1;
                self.mutations += 1;
                Ok(())
            }
            Part::Waited => {
                // Its wait of this phase returned; the phase completes when the others have
                // waited too: the arrive is for the next phase, held until then.
                b.held.push((me, lin));
                self.threads[i].st = St::ClusterWait;
                Ok(())
            }
            Part::Arrived => Err(self.rt_err(
                i,
                pc,
                "the thread arrives at the cluster barrier a second time before waiting on it: each thread must arrive only once before the barrier completes (L17175)",
            )),
            Part::Gone => Err(self.internal_err(i, pc, "an exited thread arrives at the cluster barrier")),
        }
    }

    /// Thread `i`'s `barrier.cluster.wait` at `pc` (L17171).
    fn cluster_wait(&mut self, i: usize, pc: u32) -> Result<()> {
        let me = self.cluster.rank;
        let lin = self.threads[i].lin as usize;
        let b = self.barrier_book();
        match b.part[me as usize][lin] {
            Part::Arrived if b.idle == 0 => {
                let phase = b.phase;
                b.part[me as usize][lin] = Part::Waited;
                b.arrived -= 1;
                b.waited += 1;
                let passed = &mut self.cluster.passed[me as usize];
                *passed = (*passed).max(phase + 1);
                let t = &mut self.threads[i];
                t.pc += 1;
                t.clock += 1;
                self.mutations += 1;
                Ok(())
            }
            Part::Arrived => {
                b.held.push((me, lin));
                self.threads[i].st = St::ClusterWait;
                Ok(())
            }
            Part::Idle | Part::Waited => Err(self.rt_err(
                i,
                pc,
                "`barrier.cluster.wait` with no `barrier.cluster.arrive` of the thread before it in this phase: the wait is for every non-exited thread of the cluster to arrive (L17171), this one included, so it would never return",
            )),
            Part::Gone => Err(self.internal_err(i, pc, "an exited thread waits at the cluster barrier")),
        }
    }

    /// Releases the threads the cluster barrier holds that may go on: waits once every
    /// non-exited thread has arrived (L17171), arrives once the phase has completed (L17175).
    pub(super) fn cluster_release(&mut self) {
        let Some(b) = self.cluster.barrier.as_mut() else {
            return;
        };
        let mut go: Vec<(u32, usize)> = Vec::new();
        loop {
            let mut changed = false;
            if b.idle == 0 && b.arrived > 0 {
                // Every non-exited thread has arrived: the waits return.
                let phase = b.phase;
                let mut k = 0;
                while k < b.held.len() {
                    let (r, lin) = b.held[k];
                    if b.part[r as usize][lin] == Part::Arrived {
                        b.part[r as usize][lin] = Part::Waited;
                        b.arrived -= 1;
                        b.waited += 1;
                        let passed = &mut self.cluster.passed[r as usize];
                        *passed = (*passed).max(phase + 1);
                        go.push(b.held.swap_remove(k));
                        changed = true;
                    } else {
                        k += 1;
                    }
                }
            }
            if b.idle == 0 && b.arrived == 0 && b.waited > 0 {
                // Every non-exited thread that arrived has waited: the phase completes and the
                // barrier starts over (L17175); the held arrives are the next phase's.
                b.phase += 1;
                for p in b.part.iter_mut().flatten() {
                    if *p == Part::Waited {
                        *p = Part::Idle;
                    }
                }
                b.idle += b.waited;
                b.waited = 0;
                for (r, lin) in std::mem::take(&mut b.held) {
                    match b.part[r as usize][lin] {
                        Part::Idle => {
                            b.part[r as usize][lin] = Part::Arrived;
                            b.idle -= 1;
                            b.arrived += 1;
                            go.push((r, lin));
                        }
                        _ => b.held.push((r, lin)),
                    }
                }
                changed = true;
            }
            if !changed {
                break;
            }
        }
        if go.is_empty() {
            return;
        }
        self.mutations += 1;
        let me = self.cluster.rank;
        for (r, lin) in go {
            let t = if r == me {
                &mut self.threads[lin]
            } else {
                &mut self.peer_mut(r).threads[lin]
            };
            t.st = St::Run;
            t.pc += 1;
            t.clock += 1;
        }
    }

    /// After lanes `exec` of the warp at `lo` executed `exit` or `ret` at `pc`: the exited ones
    /// leave the cluster barrier (L16915), and a CTA whose threads have all exited ends.
    pub(super) fn cluster_exit(&mut self, lo: usize, exec: u32, pc: u32) -> Result<()> {
        let me = self.cluster.rank as usize;
        if self.cluster.barrier.is_some() {
            let gone: Vec<usize> = lanes(lo, exec)
                .filter(|&i| self.threads[i].st == St::Exited)
                .map(|i| self.threads[i].lin as usize)
                .collect();
            let b = self.cluster.barrier.as_mut().expect("checked above");
            for lin in gone {
                match std::mem::replace(&mut b.part[me][lin], Part::Gone) {
                    Part::Idle => b.idle -= 1,
                    Part::Arrived => b.arrived -= 1,
                    Part::Waited => b.waited -= 1,
                    Part::Gone => {}
                }
            }
            self.cluster_release();
        }
        if self.cluster.size() > 1 && !self.cluster.ended[me] && self.threads.iter().all(|t| t.st == St::Exited) {
            self.cta_ended(pc)?;
        }
        Ok(())
    }

    /// The running CTA's threads have all exited (the last at `pc`): a peer's access to its
    /// shared memory that no `barrier.cluster` phase orders before the exit is a violation of
    /// L89, reported at the access.
    fn cta_ended(&mut self, pc: u32) -> Result<()> {
        let me = self.cluster.rank as usize;
        self.cluster.ended[me] = true;
        // A peer's bulk operation into this CTA that has not completed (`exec/bulk.rs`).
        self.bulk_exit()?;
        let passed = self.cluster.passed[me];
        let Some(a) = self.cluster.exposed[me]
            .borrow()
            .values()
            .find(|a| a.phase >= passed)
            .copied()
        else {
            return Ok(());
        };
        let prog = self.m.prog;
        let at = &prog.code[a.pc as usize];
        Err(Error::at(
            ErrorKind::Runtime,
            at.loc,
            format!(
                "`{}`: thread {} of block {}: accesses the shared memory of CTA rank {me} of the cluster (block {}), which exits (its last thread at line {}) with nothing ordering the access before the exit (a `barrier.cluster` phase: the accessing thread's next arrive, then a wait of that phase in the exiting CTA; or an arrive-on of the accessing thread on an mbarrier of the exiting CTA whose phase a thread there observed complete): a CTA must not exit while its peers may still access its shared memory (L89)",
                at.text,
                fmt3(a.tid),
                fmt3(a.ctaid),
                fmt3(self.env.ctaid),
                prog.code[pc as usize].loc.line
            ),
        ))
    }
}

/// The lanes of `exec` of the warp at `lo`, as thread indices, in lane order.
fn lanes(lo: usize, mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            lo + l
        })
    })
}

/// `(x,y,z)`.
fn fmt3(v: [u32; 3]) -> String {
    format!("({},{},{})", v[0], v[1], v[2])
}
