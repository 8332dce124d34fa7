//! The interpreter: runs a checked [`Program`] over a grid, one CTA after another, each CTA's
//! warps round-robin in slices, each warp in SIMT fashion.
//!
//! SIMT, deterministically: a warp executes, at each step, the group of its runnable threads
//! that are furthest behind — the smallest position, where a position is the list of call sites
//! on the thread's stack followed by its pc. Threads that diverge at a branch run separately
//! until their positions meet again, which for the forward branches and backward loop edges
//! compilers emit is the immediate post-dominator: the warp reconverges where hardware does.
//! Warp collectives (`bar.warp.sync`) wait, per thread, until every named lane has arrived.

use crate::error::{Error, ErrorKind, Result};
use crate::mem::{self, Global};
use crate::program::*;
use spec::sreg::Place;
use spec::value::{Args, EvalErrorKind, Input};
use std::collections::VecDeque;

mod atom128;
mod bulk;
mod cluster;
mod control;
pub mod lanes;
mod mbarrier;
mod parallel;
mod proxy;
mod races;
mod tensormap;
mod warpgroup;

/// Bounds that turn runaway kernels into errors instead of hangs or out-of-memory kills.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Thread-instructions executed over the whole launch.
    pub steps: u64,
    /// Bytes of memory the launch may use: global allocations, shared memory and every thread's
    /// registers and stack.
    pub memory: u64,
    /// Bytes of one thread's stack (module `.local`, frames of the calls in progress).
    pub stack: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            steps: 20_000_000_000,
            memory: 4 << 30,
            stack: 1 << 20,
        }
    }
}

/// A kernel launch.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The kernel's (`.entry`'s) name.
    pub entry: String,
    /// CTAs in x, y, z (`%nctaid`).
    pub grid: [u32; 3],
    /// Threads per CTA in x, y, z (`%ntid`).
    pub block: [u32; 3],
    /// The kernel parameter buffer, laid out as the entry's parameter list says.
    pub params: Vec<u8>,
    /// Dynamic shared memory bytes.
    pub dyn_shared: u32,
    /// Cluster dimensions the launch gives (`%cluster_nctaid`), if any: see
    /// [`crate::cluster::Geometry::of`].
    pub cluster: Option<[u32; 3]>,
    /// Bounds of the launch.
    pub limits: Limits,
}

/// What a launch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Thread-instructions executed (a warp step over `n` threads counts `n`).
    pub thread_instructions: u64,
    /// Warp steps (decoded instructions issued).
    pub warp_instructions: u64,
}

/// Device memory and the program: what persists across launches.
pub struct Machine<'p> {
    /// The checked program it runs.
    pub prog: &'p Program,
    /// Global memory: module `.global` variables and the buffers [`Machine::alloc`] maps.
    pub global: Global,
    constant: Vec<u8>,
    /// Make value results another accepted value than the model where the acceptance set allows
    /// one ([`spec::value::Outcome::alternative`], salted with this seed, the thread and the
    /// instruction): a different, equally correct implementation, for testing that comparisons
    /// do not depend on the model's choices. Needs a program from
    /// [`crate::check::check_generic`] (fast paths return the model only).
    pub perturb: Option<u64>,
    /// Per instruction, how loosely the manual determined the results it produced so far: 0
    /// exactly, 1 up to a NaN's payload, 2 only as a set (approximate, one of several, any).
    /// Recorded when `Some` (sized to the program's code), for generators that must know that
    /// their programs' results are determined ([`crate::launch::run_audited`]).
    pub audit: Option<Vec<u8>>,
    /// What registers, `.local` and `.param` frames, `alloca` memory and `.shared` memory hold
    /// before they are written: each byte this value (`None`: zero). The manual leaves them
    /// unknown (L3757: a byte no initializer writes holds "an unknown but constant value"), so a
    /// program whose results change with it reads something undefined
    /// ([`crate::launch::run_filled`]; the reducer refuses such candidates). Runs on the reference.
    pub undefined_fill: Option<u8>,
    /// The last writer of each byte stored, kept while [`Machine::undefined_fill`] is set: a
    /// store that races with an earlier one is an error then (`exec/races.rs`).
    writes: races::Writes,
    /// Global memory a `discard` made undefined (`exec/control.rs`).
    discarded: control::Discarded,
    /// Which executor runs launches ([`Engine`]).
    pub engine: Engine,
    /// Threads of the host that may run a launch's independent CTAs (clusters) at once; 1 runs
    /// them one after another. Results do not depend on it (`exec/parallel.rs`: CTAs that meet in
    /// global memory are run again in order); each worker past the first holds a copy of global
    /// memory, as many copies as the launch's memory limit holds (fewer workers otherwise).
    pub workers: usize,
    /// What stops a speculative run of a cluster early (`exec/parallel.rs`); `None` otherwise.
    watch: Option<parallel::Watch>,
    /// Clusters run by [`Engine::Lanes`] and clusters it left to the reference (an
    /// unsupported program or launch, or an error it hands back: `exec/lanes`) — those this
    /// machine ran itself: with [`Machine::workers`] > 1 the other workers' are not counted.
    pub lanes_count: lanes::Count,
    /// The program translated for [`Engine::Lanes`], once (`None` inside: not supported).
    lanes_plan: std::sync::OnceLock<Option<lanes::Plan>>,
}

/// The executor that runs a launch. Whichever runs it, buffers, [`Stats`] and errors are the
/// same: the reference is what the others are tested against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// One thread at a time over the decoded program (`Cta::step`): the reference.
    Reference,
    /// A warp's lanes at once over registers kept lane by lane (`exec/lanes`), falling back
    /// to the reference for what it does not execute; the default (`oracle/tests/engines.rs`
    /// holds it to the reference).
    #[default]
    Lanes,
}

impl Engine {
    /// Every engine, the reference first.
    pub const ALL: &'static [Engine] = &[Engine::Reference, Engine::Lanes];

    /// The engine's name on command lines.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Reference => "reference",
            Engine::Lanes => "lanes",
        }
    }

    /// The engine named `name` ([`Engine::name`]).
    pub fn parse(name: &str) -> Option<Engine> {
        Engine::ALL.iter().copied().find(|e| e.name() == name)
    }

    /// The engine of new machines: the one `PTXCONF_ENGINE` names, else the default. A name
    /// that is no engine's is an error, not a silent default.
    pub fn from_env() -> Result<Engine> {
        match std::env::var("PTXCONF_ENGINE") {
            Err(_) => Ok(Engine::default()),
            Ok(n) => Engine::parse(&n).ok_or_else(|| {
                let names: Vec<&str> = Engine::ALL.iter().map(|e| e.name()).collect();
                Error::new(
                    ErrorKind::Launch,
                    format!("PTXCONF_ENGINE=`{n}` names no engine ({})", names.join(", ")),
                )
            }),
        }
    }
}

/// How loosely an outcome determines its value (see [`Machine::audit`]).
fn looseness(o: &spec::value::Outcome) -> u8 {
    use spec::value::Accept;
    match &o.accept {
        Accept::Exact => 0,
        Accept::Nan(_) => 1,
        Accept::Lanes { lanes, .. } => lanes.iter().map(looseness).max().unwrap_or(0),
        Accept::Any | Accept::OneOf(_) | Accept::Bound(_) => 2,
    }
}

impl<'p> Machine<'p> {
    /// Maps the module's `.global` and `.const` data.
    pub fn new(prog: &'p Program) -> Result<Machine<'p>> {
        let mut global = Global::default();
        let limit = Limits::default().memory;
        if prog.global_bytes > limit || prog.const_bytes > limit {
            return Err(Error::new(ErrorKind::Limit, "module variables exceed the memory limit"));
        }
        // A 32-bit module's variables must lie in its windows (`mem::Windows::A32`).
        let w = prog.windows;
        if prog.global_bytes > w.heap - w.global_data || prog.const_bytes > w.size {
            return Err(Error::new(
                ErrorKind::Limit,
                format!("module variables exceed the windows of a {}-bit module", w.bits),
            ));
        }
        let mut gdata = vec![0u8; prog.global_bytes as usize];
        let mut constant = vec![0u8; prog.const_bytes as usize];
        for d in &prog.data {
            let (buf, base) = match d.space {
                Space::Global => (&mut gdata, prog.windows.global_data),
                _ => (&mut constant, 0),
            };
            let off = (d.addr - base) as usize;
            buf[off..off + d.bytes.len()].copy_from_slice(&d.bytes);
        }
        if !gdata.is_empty() {
            global.map("module .global variables", prog.windows.global_data, gdata);
        }
        Ok(Machine {
            prog,
            global,
            constant,
            perturb: None,
            audit: None,
            undefined_fill: None,
            writes: races::Writes::default(),
            discarded: control::Discarded::default(),
            engine: Engine::from_env()?,
            workers: 1,
            watch: None,
            lanes_count: lanes::Count::default(),
            lanes_plan: std::sync::OnceLock::new(),
        })
    }

    /// Allocates a zero- or data-initialized global buffer; returns its address. In a 32-bit
    /// module global memory ends below 4 GiB ([`mem::Windows::A32`]): a buffer past its end is a
    /// limit error.
    pub fn alloc(&mut self, name: &str, data: Vec<u8>) -> Result<u64> {
        let w = self.prog.windows;
        let base = self.global.next_base(w.heap);
        if base
            .checked_add(data.len() as u64)
            .is_none_or(|end| end > w.global_last)
        {
            return Err(Error::new(
                ErrorKind::Limit,
                format!(
                    "buffer `{name}` ({} bytes) does not fit the global memory of a {}-bit module (buffers from {:#x} to {:#x})",
                    data.len(),
                    w.bits,
                    w.heap,
                    w.global_last
                ),
            ));
        }
        self.global.map(name, base, data);
        Ok(base)
    }

    /// The bytes of the global allocation at `base`.
    pub fn buffer(&self, base: u64) -> Option<&[u8]> {
        self.global
            .regions
            .iter()
            .find(|r| r.base == base)
            .map(|r| r.data.as_slice())
    }

    /// Runs a kernel to completion.
    pub fn run(&mut self, l: &Launch) -> Result<Stats> {
        let prog = self.prog;
        let Some(entry) = prog.entry(&l.entry) else {
            return Err(Error::new(
                ErrorKind::Launch,
                format!("the module has no kernel (`.entry`) named `{}`", l.entry),
            ));
        };
        let threads_per_cta = l.block.iter().map(|&d| d as u64).product::<u64>();
        if l.block.contains(&0) || l.grid.contains(&0) {
            return Err(Error::new(
                ErrorKind::Launch,
                "grid and block dimensions must be at least 1",
            ));
        }
        if threads_per_cta > 1024 || l.block[2] > 64 {
            return Err(Error::new(
                ErrorKind::Launch,
                format!(
                    "a block of {}×{}×{} threads exceeds the limits (1024 threads, z ≤ 64)",
                    l.block[0], l.block[1], l.block[2]
                ),
            ));
        }
        if l.grid[1] > 65535 || l.grid[2] > 65535 {
            return Err(Error::new(
                ErrorKind::Launch,
                "grid y and z dimensions are at most 65535",
            ));
        }
        let func = &prog.funcs[entry];
        let need = func.params.last().map_or(0, |p| (p.0 + p.1) as usize);
        if l.params.len() < need {
            return Err(Error::new(
                ErrorKind::Launch,
                format!(
                    "kernel `{}` takes {need} bytes of parameters; the launch gives {}",
                    l.entry,
                    l.params.len()
                ),
            ));
        }
        // A 32-bit module's local window is 256 MiB (`mem::Windows::A32`): a larger stack would
        // have addresses no generic address reaches.
        if l.limits.stack as u64 > prog.windows.size {
            return Err(Error::new(
                ErrorKind::Launch,
                format!(
                    "a stack limit of {} bytes exceeds the local window of a {}-bit module ({} bytes)",
                    l.limits.stack, prog.windows.bits, prog.windows.size
                ),
            ));
        }
        let geo = crate::cluster::Geometry::of(&func.cluster, l.cluster, l.grid)
            .map_err(|m| Error::new(ErrorKind::Launch, format!("kernel `{}`: {m}", l.entry)))?;
        let global_bytes: u64 = self.global.regions.iter().map(|r| r.data.len() as u64).sum();
        let shared = prog.shared_bytes + l.dyn_shared as u64;
        let frame0 = (prog.local_bytes as u64).div_ceil(16) * 16 + func.frame_bytes as u64;
        let per_thread = frame0 + 8 * func.nregs as u64 + 256;
        // The CTAs of a cluster live at once.
        let mem_needed = global_bytes + geo.size() as u64 * (shared + threads_per_cta * per_thread);
        if mem_needed > l.limits.memory {
            return Err(Error::new(
                ErrorKind::Limit,
                format!(
                    "the launch needs {mem_needed} bytes of memory; the limit is {}",
                    l.limits.memory
                ),
            ));
        }
        if shared > 228 * 1024 {
            return Err(Error::new(
                ErrorKind::Launch,
                format!("{shared} bytes of shared memory per block exceed the 227 KiB a block may have"),
            ));
        }
        let mut stats = Stats::default();
        // Cluster after cluster (each CTA its own 1×1×1 cluster without cluster dimensions), or
        // on several threads with the same results.
        self.run_clusters(l, entry, geo, &mut stats)?;
        Ok(stats)
    }

    /// Runs cluster `id` of a launch to completion (each CTA its own cluster without cluster
    /// dimensions), adding what it executed to `stats`.
    fn run_cluster(
        &mut self,
        l: &Launch,
        entry: usize,
        geo: crate::cluster::Geometry,
        id: [u32; 3],
        stats: &mut Stats,
    ) -> Result<()> {
        if self.engine == Engine::Lanes && lanes::run_cluster(self, l, entry, geo, id, stats) {
            return Ok(());
        }
        let peers = (1..geo.size())
            .map(|r| Cta::new(self, l, entry, geo.ctaid(id, r)).park())
            .collect();
        let mut cta = Cta::new(self, l, entry, geo.ctaid(id, 0));
        cta.cluster = cluster::Cluster::new(geo, id, peers);
        cta.run(stats)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Run,
    Exited,
    /// Waiting at CTA barrier `id`.
    Bar(u8),
    /// Waiting at a warp-synchronous instruction for the other lanes of its mask.
    WarpWait,
    /// Held at a `barrier.cluster` instruction by the cluster barrier (`exec/cluster.rs`).
    ClusterWait,
}

struct Frame {
    /// The call instruction (the return goes to the next one; its `rets` say where values go).
    call_pc: u32,
    caller_base: usize,
    caller_sbase: u32,
    callee: u32,
}

struct Thread {
    pc: u32,
    st: St,
    regs: Vec<u64>,
    base: usize,
    stack: Vec<u8>,
    sbase: u32,
    frames: Vec<Frame>,
    tid: [u32; 3],
    /// Linear thread index in the CTA.
    lin: u32,
    clock: u64,
    /// A `bar.red` in progress: its destination.
    red_dst: Option<Dst>,
    /// The thread's `cp.async` copies not yet committed to a group.
    uncommitted: Vec<AsyncCopy>,
    /// Its committed cp.async-groups, oldest first (§9.7.9.25.3.2).
    groups: VecDeque<Vec<AsyncCopy>>,
    /// Its `wgmma.mma_async` operations not yet committed to a wgmma-group (§9.7.15.7.2).
    wg_uncommitted: Vec<WgPending>,
    /// Its wgmma-groups not yet waited for, oldest first (§9.7.15.7.3).
    wg_groups: VecDeque<Vec<WgPending>>,
    /// Whether it has executed a `wgmma.fence` (required before the first `wgmma.mma_async`,
    /// L26392).
    wg_fenced: bool,
    /// The registers (a bit per index into its register file) it has accessed since its last
    /// `wgmma.fence`: a `wgmma.mma_async` may not use one of them as accumulator or A fragment
    /// (L26394). Kept only in programs with a `wgmma.mma_async`.
    wg_touched: Vec<u64>,
    /// CTA barriers it has waited at and been released from: a `setmaxnreg` after another needs
    /// one in between (L31745, `exec/control.rs`).
    syncs: u32,
}

/// A `wgmma.mma_async` of a thread whose wgmma-group has not been waited for: the registers
/// the thread may not access until then (L26478), as indices into its register file.
#[derive(Clone, Debug)]
struct WgPending {
    /// The accumulator registers (d).
    acc: Vec<usize>,
    /// The A fragment registers, when A comes from registers.
    a: Vec<usize>,
    /// M×N×K: a later `wgmma.mma_async` of the same shape may chain on the accumulator.
    shape: (usize, usize, usize),
    /// The instruction.
    pc: u32,
}

/// A `cp.async` issued and not completed: where it writes in shared memory, what it reads.
#[derive(Clone, Copy, Debug)]
struct AsyncCopy {
    /// Offset of the destination in the CTA's shared memory.
    dst: usize,
    /// The global region and offset it reads (`None` when it reads nothing: src-size 0 or
    /// ignore-src).
    src: Option<(usize, usize)>,
    /// cp-size.
    size: u8,
    /// The bytes read from the source; the rest of the destination is zeros.
    n_src: u8,
    /// The instruction that issued it.
    pc: u32,
}

#[derive(Clone, Default)]
struct Barrier {
    arrived: u32,
    /// The thread count of the first arrival that gave one (`bar.sync 1, 64`).
    expected: Option<u32>,
    waiting: Vec<usize>,
    popc: u32,
    and: bool,
    or: bool,
    op: Option<BarOp>,
}

/// Launch-wide values special registers read.
struct Env {
    ctaid: [u32; 3],
    ntid: [u32; 3],
    nctaid: [u32; 3],
    dyn_shared: u32,
    total_shared: u32,
}

struct Cta<'m, 'p> {
    m: &'m mut Machine<'p>,
    env: Env,
    limits: Limits,
    shared: Vec<u8>,
    kparams: &'m [u8],
    threads: Vec<Thread>,
    bars: Vec<Barrier>,
    /// Per byte of shared memory, how many issued `cp.async` copies not yet completed write it
    /// (empty until the first one).
    pending: Vec<u16>,
    /// The CTA's `cp.async` copies not yet completed.
    pending_n: usize,
    /// The `wgmma.mma_async` operations of the CTA's threads (one per thread) not waited for:
    /// while there are any, each instruction's registers are checked against them.
    wg_pending: usize,
    /// The program has a `wgmma.mma_async`: the threads' register accesses since their last
    /// `wgmma.fence` are kept ([`Thread::wg_touched`]).
    wg_track: bool,
    /// The generic-proxy writes to shared memory and the proxy fences, in programs with a
    /// `wgmma.mma_async` (which reads shared memory through the async proxy, L26398).
    proxy: Option<proxy::Book>,
    /// The CTA's mbarrier objects (§9.7.13.15).
    mbar: mbarrier::Book,
    /// The bulk async-groups of the CTA's threads ([`bulk`]; the pending operations are the
    /// cluster's, `cluster.flight`).
    bulk: bulk::Book,
    /// The generic writes to global memory and the tensormap proxy fences, in programs with a
    /// tensor copy (which reads its tensor map through the tensormap proxy, `bulk::tensor`).
    tmap: Option<bulk::tensor::MapBook>,
    /// The step just executed was an mbarrier wait that returned False: the warp's slice ends,
    /// so that the warps it waits for run ([`mbarrier`]).
    spun: bool,
    /// Changes of memory and mbarrier objects so far: rounds in which warps only spin on waits
    /// while it stays the same cannot end ([`SPIN_ROUNDS`]).
    mutations: u64,
    /// The kernel's function.
    entry: usize,
    /// The warps' register counts for `setmaxnreg` (`exec/control.rs`).
    nreg: control::Registers,
    /// The cluster the CTA belongs to: the other CTAs, parked while this one runs, and the
    /// cluster barrier (`exec/cluster.rs`).
    cluster: cluster::Cluster,
}

/// Rounds of the CTA's warps in which every warp that ran ended its slice on an mbarrier wait
/// returning False, with no store, atomic, copy, mbarrier change, exit or barrier release
/// anywhere, after which the CTA is reported as deadlocked (spec/INTERPRETATIONS.md).
const SPIN_ROUNDS: u32 = 10_000;

/// Warp steps a warp runs before the next warp gets its turn (spin-waits on another warp's
/// store make progress; the order stays deterministic).
const SLICE: u32 = 4096;

/// The low `bits` (at most 32) bits set.
fn mask32(bits: usize) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}

fn mask_bits(bits: u8) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// A thread's uncommitted asynchronous operations become its newest group (`cp.async` and
/// `wgmma` alike, §9.7.9.25.3.2, §9.7.15.7.2).
fn commit_group<T>(uncommitted: &mut Vec<T>, groups: &mut VecDeque<Vec<T>>) {
    groups.push_back(std::mem::take(uncommitted));
}

#[inline]
fn wr(t: &mut Thread, d: &Dst, v: u64) {
    if d.slot == u32::MAX {
        return;
    }
    let v = if d.sext > 0 && d.sext < 64 {
        let s = 64 - d.sext as u32;
        (((v << s) as i64) >> s) as u64
    } else {
        v
    };
    t.regs[t.base + d.slot as usize] = v & mask_bits(d.bits);
}

impl<'m, 'p> Cta<'m, 'p> {
    fn new(m: &'m mut Machine<'p>, l: &'m Launch, entry: usize, ctaid: [u32; 3]) -> Cta<'m, 'p> {
        let prog = m.prog;
        let func = &prog.funcs[entry];
        let fill = m.undefined_fill.unwrap_or(0);
        let shared = vec![fill; (prog.shared_bytes + l.dyn_shared as u64) as usize];
        let sbase = prog.local_bytes.div_ceil(16) * 16;
        let mut threads = Vec::new();
        let mut lin = 0;
        for z in 0..l.block[2] {
            for y in 0..l.block[1] {
                for x in 0..l.block[0] {
                    threads.push(Thread {
                        pc: func.start,
                        st: St::Run,
                        regs: vec![u64::from_ne_bytes([fill; 8]); func.nregs as usize],
                        base: 0,
                        stack: vec![fill; (sbase + func.frame_bytes) as usize],
                        sbase,
                        frames: Vec::new(),
                        tid: [x, y, z],
                        lin,
                        clock: 0,
                        red_dst: None,
                        uncommitted: Vec::new(),
                        groups: VecDeque::new(),
                        wg_uncommitted: Vec::new(),
                        wg_groups: VecDeque::new(),
                        wg_fenced: false,
                        wg_touched: Vec::new(),
                        syncs: 0,
                    });
                    lin += 1;
                }
            }
        }
        let wg_track = prog.code.iter().any(|i| matches!(i.op, Op::Wgmma(_)));
        // Bulk copies read shared memory through the async proxy too (L14239).
        let bulk_reads = prog
            .code
            .iter()
            .any(|i| matches!(i.op, Op::Bulk(_) | Op::TensorCopy(_)));
        let tensor = prog.code.iter().any(|i| matches!(i.op, Op::TensorCopy(_)));
        let tmap = tensor.then(|| bulk::tensor::MapBook::new(threads.len()));
        let proxy = (wg_track || bulk_reads).then(|| proxy::Book::new(shared.len(), threads.len()));
        let bulk = bulk::Book::new(threads.len());
        Cta {
            env: Env {
                ctaid,
                ntid: l.block,
                nctaid: l.grid,
                dyn_shared: l.dyn_shared,
                total_shared: shared.len() as u32,
            },
            m,
            limits: l.limits,
            shared,
            kparams: &l.params,
            threads,
            bars: vec![Barrier::default(); 16],
            pending: Vec::new(),
            pending_n: 0,
            wg_pending: 0,
            wg_track,
            proxy,
            mbar: mbarrier::Book::default(),
            bulk,
            tmap,
            spun: false,
            mutations: 0,
            entry,
            nreg: control::Registers::new(func.maxnreg, lin.div_ceil(32) as usize),
            cluster: cluster::Cluster::lone(l.grid, ctaid),
        }
    }

    /// Runs the cluster: its CTAs' warps round-robin, CTA by CTA in rank order.
    fn run(&mut self, stats: &mut Stats) -> Result<()> {
        let nwarps = self.threads.len().div_ceil(32);
        let ctas = self.cluster.size();
        let mut spin_rounds = 0;
        loop {
            if self.m.speculation_over(stats.thread_instructions) {
                // A speculative run stopped; it is run again in order (`exec/parallel.rs`).
                return Err(Error::new(ErrorKind::Limit, "speculative run stopped"));
            }
            let mut progress = false;
            let mutations = self.mutations;
            let mut only_spun = true;
            let mut released = false;
            for r in 0..ctas {
                self.switch_to(r);
                for w in 0..nwarps {
                    let ran = self.run_warp(w, stats)?;
                    progress |= ran;
                    only_spun &= !ran || std::mem::take(&mut self.spun);
                    self.spun = false;
                }
                released |= self.release_barriers()?;
            }
            progress |= released;
            if ctas == 1 && self.threads.iter().all(|t| t.st == St::Exited) || ctas > 1 && self.cluster_done() {
                // What is still pending completes when every thread has exited (`bulk`).
                for r in 0..ctas {
                    self.switch_to(r);
                    self.bulk_drain()?;
                }
                return Ok(());
            }
            if !progress {
                return Err(self.cluster_deadlock());
            }
            // Warps that only spin on mbarrier waits, with nothing changing, wait forever.
            if only_spun && !released && mutations == self.mutations {
                spin_rounds += 1;
                if spin_rounds >= SPIN_ROUNDS {
                    let mut e = self.cluster_deadlock();
                    e.message.push_str(&format!(
                        " (the running threads only spin on mbarrier waits that return False: {SPIN_ROUNDS} rounds with no store, atomic, copy, mbarrier change, exit or barrier release)"
                    ));
                    return Err(e);
                }
            } else {
                spin_rounds = 0;
            }
        }
    }

    fn deadlock(&self) -> Error {
        let prog = self.m.prog;
        let waiting: Vec<&Thread> = self.threads.iter().filter(|t| t.st != St::Exited).collect();
        let t = waiting[0];
        let inst = &prog.code[(t.pc as usize).saturating_sub(if matches!(t.st, St::Bar(_)) { 1 } else { 0 })];
        let exited = self.threads.len() - waiting.len();
        Error::at(
            ErrorKind::Runtime,
            inst.loc,
            format!(
                "deadlock in block ({},{},{}): {} (thread ({},{},{}) at `{}`) and none can proceed; {exited} threads have exited{}",
                self.env.ctaid[0], self.env.ctaid[1], self.env.ctaid[2],
                if waiting.len() == 1 { "1 thread waits".to_string() } else { format!("{} threads wait", waiting.len()) },
                t.tid[0], t.tid[1], t.tid[2], inst.text,
                self.bulk_tx_note()
            ),
        )
    }

    /// Runs one warp for up to [`SLICE`] steps; whether it executed anything.
    fn run_warp(&mut self, w: usize, stats: &mut Stats) -> Result<bool> {
        let lo = w * 32;
        let hi = (lo + 32).min(self.threads.len());
        let mut ran = false;
        // The group of the next step when it is known without a scan: after a straight-line
        // instruction (or a branch all of the group took the same way) executed by every runnable
        // lane, the same lanes are still together and still the furthest behind.
        let mut known: Option<(u32, usize)> = None;
        for _ in 0..SLICE {
            let (mask, b, runnable) = match known.take() {
                Some((mask, b)) => (mask, b, mask),
                None => {
                    // The group: runnable lanes at the smallest position.
                    let mut best: Option<usize> = None;
                    let mut mask = 0u32;
                    let mut runnable = 0u32;
                    for i in lo..hi {
                        let t = &self.threads[i];
                        if t.st != St::Run {
                            continue;
                        }
                        runnable |= 1 << (i - lo);
                        match best {
                            None => {
                                best = Some(i);
                                mask = 1 << (i - lo);
                            }
                            Some(b) => match position_cmp(t, &self.threads[b]) {
                                std::cmp::Ordering::Less => {
                                    best = Some(i);
                                    mask = 1 << (i - lo);
                                }
                                std::cmp::Ordering::Equal => mask |= 1 << (i - lo),
                                std::cmp::Ordering::Greater => {}
                            },
                        }
                    }
                    let Some(b) = best else {
                        // Lanes waiting at a warp collective for lanes that have since exited
                        // can go on now: try again without new arrivals.
                        if self.retry_waiting(lo, hi)? {
                            ran = true;
                            continue;
                        }
                        break;
                    };
                    (mask, b, runnable)
                }
            };
            ran = true;
            let n = mask.count_ones() as u64;
            stats.thread_instructions += n;
            stats.warp_instructions += 1;
            if stats.thread_instructions > self.limits.steps {
                let inst = &self.m.prog.code[self.threads[b].pc as usize];
                return Err(Error::at(
                    ErrorKind::Limit,
                    inst.loc,
                    format!(
                        "the launch ran past its step limit of {} thread-instructions (at `{}`)",
                        self.limits.steps, inst.text
                    ),
                ));
            }
            let pc = self.threads[b].pc;
            self.step(lo, mask, pc)?;
            if self.spun {
                break;
            }
            if mask == runnable {
                let straight = match &self.m.prog.code[pc as usize].op {
                    Op::Fast { .. } | Op::Pure { .. } | Op::Ld { .. } | Op::St { .. } | Op::Nop => true,
                    Op::Cvta { .. } | Op::Isspacep { .. } | Op::Atom { .. } => true,
                    Op::CpAsync { .. } | Op::CpAsyncCommit | Op::CpAsyncWait { .. } => true,
                    Op::Bra { .. } => {
                        let first = self.threads[b].pc;
                        let mut m = mask;
                        let mut same = true;
                        while m != 0 {
                            let l = m.trailing_zeros() as usize;
                            m &= m - 1;
                            same &= self.threads[lo + l].pc == first;
                        }
                        same
                    }
                    _ => false,
                };
                if straight {
                    known = Some((mask, b));
                }
            }
        }
        Ok(ran)
    }

    /// A fault of the program (a trap, undefined behaviour the manual names) at `pc` in `lane`.
    fn rt_err(&self, lane: usize, pc: u32, msg: impl std::fmt::Display) -> Error {
        self.thread_err(ErrorKind::Runtime, lane, pc, msg)
    }

    /// A defect of the oracle found at `pc` in `lane`: the program is not at fault.
    #[cold]
    fn internal_err(&self, lane: usize, pc: u32, msg: impl std::fmt::Display) -> Error {
        self.thread_err(
            ErrorKind::Internal,
            lane,
            pc,
            format!("{msg} (a defect of the oracle, not of the program: please report it)"),
        )
    }

    fn thread_err(&self, kind: ErrorKind, lane: usize, pc: u32, msg: impl std::fmt::Display) -> Error {
        let inst = &self.m.prog.code[pc as usize];
        let t = &self.threads[lane];
        let c = self.env.ctaid;
        Error::at(
            kind,
            inst.loc,
            format!(
                "`{}`: thread ({},{},{}) of block ({},{},{}): {msg}",
                inst.text, t.tid[0], t.tid[1], t.tid[2], c[0], c[1], c[2]
            ),
        )
    }

    #[inline(always)]
    fn rd(&self, t: &Thread, s: &Src) -> u64 {
        match *s {
            Src::Reg(r) => t.regs[t.base + r as usize],
            Src::Imm(v) => v,
            Src::Frame(off) => (t.sbase + off) as u64,
            Src::Sreg(sr) => self.sreg(t, sr),
        }
    }

    #[cold]
    fn sreg(&self, t: &Thread, s: Sreg) -> u64 {
        let lane = t.lin % 32;
        let e = &self.env;
        match s {
            // The launch geometry (`spec::sreg::Place`; the reducer reads it there too).
            Sreg::Tid(_) | Sreg::Ntid(_) | Sreg::Ctaid(_) | Sreg::Nctaid(_) | Sreg::Laneid | Sreg::Warpid => {
                let place = Place {
                    tid: t.tid,
                    ntid: e.ntid,
                    ctaid: e.ctaid,
                    nctaid: e.nctaid,
                };
                s.at(&place).unwrap_or(0)
            }
            // Hardware's resident-warp capacity of an sm_80/sm_90 SM: programs must not depend on it.
            Sreg::Nwarpid => 64,
            Sreg::Smid => 0,
            Sreg::Nsmid => 1,
            Sreg::Gridid => 1,
            Sreg::LanemaskEq => 1u64 << lane,
            Sreg::LanemaskLe => (1u64 << (lane + 1)) - 1,
            Sreg::LanemaskLt => (1u64 << lane) - 1,
            Sreg::LanemaskGe => !((1u64 << lane) - 1) & 0xffff_ffff,
            Sreg::LanemaskGt => !((1u64 << (lane + 1)) - 1) & 0xffff_ffff,
            // Deterministic counters: the thread's own instruction count (cycles, nanoseconds).
            Sreg::Clock => t.clock & 0xffff_ffff,
            Sreg::Clock64 | Sreg::Globaltimer => t.clock,
            Sreg::GlobaltimerLo => t.clock & 0xffff_ffff,
            Sreg::GlobaltimerHi => t.clock >> 32,
            Sreg::DynamicSmemSize => e.dyn_shared as u64,
            Sreg::TotalSmemSize => e.total_shared as u64,
            Sreg::Envreg(_) => 0,
            Sreg::IsExplicitCluster
            | Sreg::Clusterid(_)
            | Sreg::Nclusterid(_)
            | Sreg::ClusterCtaid(_)
            | Sreg::ClusterNctaid(_)
            | Sreg::ClusterCtarank
            | Sreg::ClusterNctarank => self.cluster_sreg(s),
        }
    }

    /// Executes the instruction at `pc` for the lanes of warp `lo` in `mask`.
    fn step(&mut self, lo: usize, mask: u32, pc: u32) -> Result<()> {
        let prog: &'p Program = self.m.prog;
        let inst = &prog.code[pc as usize];
        // Lanes whose guard holds execute; the others move on.
        let mut exec = mask;
        if let Some((p, neg)) = inst.guard {
            let mut m = mask;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                let t = &self.threads[lo + l];
                if (t.regs[t.base + p as usize] & 1 != 0) == neg {
                    exec &= !(1 << l);
                }
            }
        }
        let skipped = mask & !exec;
        let mut m = skipped;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let t = &mut self.threads[lo + l];
            t.pc += 1;
            t.clock += 1;
        }
        if self.wg_pending > 0 && exec != 0 {
            self.wgmma_hazards(lo, exec, pc)?;
        }
        if self.wg_track && exec != 0 {
            self.wgmma_fences(lo, exec, pc)?;
        }
        let lanes = |mut m: u32| {
            std::iter::from_fn(move || {
                (m != 0).then(|| {
                    let l = m.trailing_zeros() as usize;
                    m &= m - 1;
                    lo + l
                })
            })
        };
        match &inst.op {
            Op::Fast { f, d, a, b, c } => {
                for i in lanes(exec) {
                    let t = &self.threads[i];
                    let v = f(self.rd(t, a), self.rd(t, b), self.rd(t, c));
                    let t = &mut self.threads[i];
                    wr(t, d, v);
                    t.pc += 1;
                    t.clock += 1;
                }
            }
            Op::Pure {
                form,
                sem,
                dsts,
                srcs,
                dsel,
            } => {
                // Most forms have at most 8 inputs; the others (the catalog has forms with 11)
                // take a buffer of their own rather than overrun the array.
                let mut small = [Input::default(); 8];
                let mut large = Vec::new();
                let ins: &mut [Input] = if srcs.len() <= small.len() {
                    &mut small[..srcs.len()]
                } else {
                    large.resize(srcs.len(), Input::default());
                    &mut large
                };
                for i in lanes(exec) {
                    let t = &self.threads[i];
                    for (k, s) in srcs.iter().enumerate() {
                        let bits = match s.src {
                            // A `.b128` register: its two slots, low half first.
                            Src::Reg(r) if s.bits == 128 => {
                                let at = t.base + r as usize;
                                t.regs[at] as u128 | (t.regs[at + 1] as u128) << 64
                            }
                            src => self.rd(t, &src) as u128,
                        } ^ s.invert as u128;
                        ins[k] = Input {
                            bits: if s.bits >= 64 {
                                bits
                            } else {
                                bits & ((1u128 << s.bits) - 1)
                            },
                            negated: s.negated,
                            sel: s.sel,
                        };
                    }
                    // The spec's error says who is at fault: an operand rule the manual states
                    // (`EvalErrorKind::Rule`, such as vmad's negations, L31056-31077) is the
                    // program's, a runtime error; a form its function does not handle
                    // (`Unhandled`), or operands the oracle decoded into an unreadable shape
                    // (`Input`, not produced on this path), is a defect of the spec or the oracle.
                    let out = sem(form, &Args { ins, dsel: *dsel }).map_err(|e| match e.kind {
                        EvalErrorKind::Rule => self.rt_err(i, pc, e),
                        EvalErrorKind::Input | EvalErrorKind::Unhandled => self.internal_err(i, pc, e),
                    })?;
                    // One outcome per destination (`spec::value::Outcomes`); the checker binds one
                    // destination per output of the form.
                    if out.len() != dsts.len() {
                        return Err(self.internal_err(
                            i,
                            pc,
                            format!(
                                "the spec's `{}` gave {} results for {} destinations",
                                form.name,
                                out.len(),
                                dsts.len()
                            ),
                        ));
                    }
                    let perturb = self.m.perturb;
                    if let Some(a) = &mut self.m.audit {
                        let l = out.iter().map(looseness).max().unwrap_or(0);
                        if let Some(x) = a.get_mut(pc as usize) {
                            *x = (*x).max(l);
                        }
                    }
                    let t = &mut self.threads[i];
                    for (d, o) in dsts.iter().zip(&out) {
                        let v = match perturb {
                            None => o.model,
                            Some(seed) => o.alternative(seed ^ (i as u64) << 32 ^ pc as u64),
                        };
                        if d.bits == 128 && d.slot != u32::MAX {
                            let at = t.base + d.slot as usize;
                            t.regs[at] = v as u64;
                            t.regs[at + 1] = (v >> 64) as u64;
                        } else {
                            wr(t, d, v as u64);
                        }
                    }
                    t.pc += 1;
                    t.clock += 1;
                }
            }
            Op::Ld { space, ty, dsts, addr } => {
                let n = dsts.len();
                let bytes = ty.bytes as usize;
                for i in lanes(exec) {
                    let a = self.address(i, addr);
                    let mut buf = [0u8; 64];
                    self.load(i, pc, *space, a, &mut buf[..bytes * n])?;
                    let mut vals = [0u64; 8];
                    for (k, v) in vals.iter_mut().take(n).enumerate() {
                        let mut b = [0u8; 8];
                        b[..bytes].copy_from_slice(&buf[k * bytes..(k + 1) * bytes]);
                        *v = u64::from_le_bytes(b);
                    }
                    let t = &mut self.threads[i];
                    for (d, v) in dsts.iter().zip(vals) {
                        wr(t, d, v);
                    }
                    t.pc += 1;
                    t.clock += 1;
                }
            }
            Op::St {
                space,
                bytes,
                srcs,
                addr,
            } => {
                let bytes = *bytes as usize;
                for i in lanes(exec) {
                    let a = self.address(i, addr);
                    let t = &self.threads[i];
                    let mut vals = [0u64; 8];
                    for (k, s) in srcs.iter().enumerate() {
                        vals[k] = self.rd(t, s);
                    }
                    let mut buf = [0u8; 64];
                    for (k, v) in vals.iter().take(srcs.len()).enumerate() {
                        buf[k * bytes..(k + 1) * bytes].copy_from_slice(&v.to_le_bytes()[..bytes]);
                    }
                    self.store(i, pc, *space, a, &buf[..bytes * srcs.len()])?;
                    let t = &mut self.threads[i];
                    t.pc += 1;
                    t.clock += 1;
                }
            }
            Op::Cvta {
                space,
                to_generic,
                d,
                a,
            } => {
                for i in lanes(exec) {
                    let v = self.rd(&self.threads[i], a);
                    if *space == Space::Shared && self.cluster.size() > 1 {
                        self.cvta_cta(i, pc, v, *to_generic)?;
                    }
                    let v = if *to_generic {
                        self.m.prog.windows.to_generic(*space, v)
                    } else {
                        self.m.prog.windows.from_generic(*space, v)
                    };
                    let t = &mut self.threads[i];
                    wr(t, d, v);
                    t.pc += 1;
                    t.clock += 1;
                }
            }
            Op::Isspacep { space, d, a } => {
                for i in lanes(exec) {
                    let v = self.in_space(*space, self.rd(&self.threads[i], a)) as u64;
                    let t = &mut self.threads[i];
                    wr(t, d, v);
                    t.pc += 1;
                    t.clock += 1;
                }
            }
            Op::Bra { target } => {
                for i in lanes(exec) {
                    let t = &mut self.threads[i];
                    t.pc = *target;
                    t.clock += 1;
                }
            }
            Op::Brx { index, targets } => {
                for i in lanes(exec) {
                    let k = self.rd(&self.threads[i], index) as u32 as usize;
                    let Some(&tg) = targets.get(k) else {
                        return Err(self.rt_err(
                            i,
                            pc,
                            format!("brx.idx index {k} is outside the {} branch targets", targets.len()),
                        ));
                    };
                    let t = &mut self.threads[i];
                    t.pc = tg;
                    t.clock += 1;
                }
            }
            Op::Call { callee, args, .. } => {
                for i in lanes(exec) {
                    self.call(i, pc, callee, args)?;
                }
            }
            Op::Ret => {
                for i in lanes(exec) {
                    self.ret(i)?;
                }
                self.mutations += 1;
                self.release_barriers()?;
                self.cluster_exit(lo, exec, pc)?;
            }
            Op::Exit => {
                for i in lanes(exec) {
                    self.threads[i].st = St::Exited;
                }
                self.mutations += 1;
                self.release_barriers()?;
                self.cluster_exit(lo, exec, pc)?;
            }
            Op::Trap => {
                if let Some(i) = lanes(exec).next() {
                    return Err(self.rt_err(i, pc, "`trap` executed: the kernel aborts"));
                }
            }
            Op::Unsupported { message } => {
                if let Some(i) = lanes(exec).next() {
                    return Err(self.rt_err(i, pc, message));
                }
            }
            Op::ProxyFence { shared } => {
                for i in lanes(exec) {
                    if let (Some(p), true) = (self.proxy.as_mut(), *shared) {
                        p.fence(i);
                    }
                    let t = &mut self.threads[i];
                    t.pc += 1;
                    t.clock += 1;
                }
            }
            // Warpgroup-wide (`.sync.aligned`): see `warpgroup`.
            Op::WgmmaFence | Op::WgmmaCommit | Op::WgmmaWait { .. } => self.wgmma_control(lo, exec, pc, &inst.op)?,
            // sm_90's control and cache-hint instructions: `control`.
            op @ (Op::Setmaxnreg { .. }
            | Op::Brkpt
            | Op::StackSave { .. }
            | Op::StackRestore { .. }
            | Op::Alloca { .. }
            | Op::L2Line { .. }
            | Op::Createpolicy { .. }) => self.control(lo, exec, pc, op)?,
            Op::Nop => {
                for i in lanes(exec) {
                    let t = &mut self.threads[i];
                    t.pc += 1;
                    t.clock += 1;
                }
            }
            Op::CpAsync {
                dst,
                src,
                size,
                src_size,
                ignore,
            } => {
                for i in lanes(exec) {
                    self.cp_async(i, pc, dst, src, *size, src_size.as_ref(), ignore.as_ref())?;
                    let t = &mut self.threads[i];
                    t.pc += 1;
                    t.clock += 1;
                }
            }
            Op::TensormapReplace {
                field,
                ord,
                addr: (a, space),
                new_val,
            } => {
                for i in lanes(exec) {
                    self.tensormap_replace(i, pc, *field, *ord, a, *space, new_val)?;
                    let t = &mut self.threads[i];
                    t.pc += 1;
                    t.clock += 1;
                }
            }
            Op::TensormapCpFenceproxy { dst, src } => {
                for i in lanes(exec) {
                    self.tensormap_cp_fenceproxy(i, pc, dst, src)?;
                    // Its release toward the tensormap proxy (L19264).
                    if let Some(b) = &mut self.tmap {
                        b.release(i);
                    }
                    let t = &mut self.threads[i];
                    t.pc += 1;
                    t.clock += 1;
                }
            }
            Op::CpAsyncCommit => {
                for i in lanes(exec) {
                    let t = &mut self.threads[i];
                    commit_group(&mut t.uncommitted, &mut t.groups);
                    t.pc += 1;
                    t.clock += 1;
                }
            }
            Op::CpAsyncWait { n } => {
                for i in lanes(exec) {
                    // `wait_all` is `commit_group; wait_group 0` (L14394).
                    if n.is_none() {
                        let t = &mut self.threads[i];
                        commit_group(&mut t.uncommitted, &mut t.groups);
                    }
                    let keep = n.unwrap_or(0) as usize;
                    while self.threads[i].groups.len() > keep {
                        let group = self.threads[i].groups.pop_front().unwrap_or_default();
                        for c in group {
                            self.complete_copy(i, &c);
                        }
                    }
                    let t = &mut self.threads[i];
                    t.pc += 1;
                    t.clock += 1;
                }
            }
            Op::Bulk(b) => self.bulk_op(lo, exec, pc, b)?,
            Op::TensorCopy(c) => self.tensor_copy_op(lo, exec, pc, c)?,
            Op::TensormapFence { acquire } => {
                for i in lanes(exec) {
                    self.tensormap_fence(i, pc, acquire.as_ref())?;
                    let t = &mut self.threads[i];
                    t.pc += 1;
                    t.clock += 1;
                }
            }
            Op::Mbarrier { op, addr } => {
                // One thread after another, in lane order: each operation is atomic.
                for i in lanes(exec) {
                    self.mbarrier_op(i, pc, op, addr.as_ref())?;
                }
            }
            Op::Bar { op, id, count, pred, d } => {
                for i in lanes(exec) {
                    self.bar_arrive(i, pc, *op, id, count.as_ref(), pred.as_ref(), *d)?;
                }
                self.release_barriers()?;
            }
            Op::Atom {
                op,
                space,
                d,
                addr,
                b,
                c,
            } => {
                // One thread after another, in lane order: each read-modify-write is atomic.
                for i in lanes(exec) {
                    self.atom(i, pc, op, *space, d, addr, b, c)?;
                }
            }
            Op::Warp { kind, form, dsts, srcs } => {
                self.warp_op(lo, exec, pc, *kind, form, dsts, srcs)?;
            }
            Op::Matrix {
                op,
                form,
                dsts,
                srcs,
                addr,
            } => {
                self.matrix_op(lo, exec, pc, op, form, dsts, srcs, addr.as_ref())?;
            }
            Op::WarpSync { mask: mop } => {
                self.warp_sync(lo, exec, pc, mop)?;
            }
            Op::Wgmma(g) => {
                self.wgmma_op(lo, exec, pc, g)?;
            }
            Op::Cluster(c) => self.cluster_op(lo, mask, exec, pc, c)?,
        }
        Ok(())
    }

    fn address(&self, i: usize, a: &Addr) -> u64 {
        let t = &self.threads[i];
        match *a {
            Addr::Reg(r, off) => t.regs[t.base + r as usize].wrapping_add(off as u64) & self.m.prog.windows.mask,
            Addr::Abs(x) => x,
            Addr::Frame(o, off) => (t.sbase as u64 + o as u64).wrapping_add(off as u64),
        }
    }

    /// Where an access lands, after the alignment and bounds checks: the area and the offset.
    fn locate(&self, i: usize, pc: u32, space: Space, addr: u64, len: usize, write: bool) -> Result<(Area, usize)> {
        let (space, a) = match space {
            Space::Generic => match self.m.prog.windows.resolve_generic(addr) {
                // The generic shared window is the `.shared::cluster` one (`crate::cluster`).
                Some((Space::Shared, a)) => (Space::SharedCluster, a),
                Some(x) => x,
                None => return Err(self.rt_err(i, pc, format!("generic address {addr:#x} is in no state space"))),
            },
            s => (s, addr),
        };
        if len.is_power_of_two() && a % len as u64 != 0 {
            return Err(self.rt_err(
                i,
                pc,
                format!(
                    "{} address {a:#x} is not aligned to the access size of {len} bytes",
                    space.name()
                ),
            ));
        }
        let within = |base: u64, size: usize, what: &str| -> std::result::Result<usize, String> {
            let off = a.wrapping_sub(base);
            match (off as usize).checked_add(len) {
                Some(e) if off < size as u64 && e <= size => Ok(off as usize),
                _ => Err(format!(
                    "{} address {a:#x} (+{len} bytes) is outside the {what} ({size} bytes)",
                    space.name()
                )),
            }
        };
        let r = match space {
            Space::Global => self
                .m
                .global
                .find(a, len)
                .map(|(k, off)| (Area::Global(k), off))
                .map_err(|e| e.to_string()),
            Space::Shared => within(0, self.shared.len(), "block's shared memory")
                .map(|o| (Area::Shared, o))
                .or_else(|e| {
                    if a < crate::cluster::OWN_WINDOW {
                        Err(e)
                    } else {
                        self.shared_area(a, len, false)
                    }
                }),
            Space::SharedCluster => self.shared_area(a, len, true),
            Space::Const if write => Err("`.const` memory is read-only".into()),
            Space::Const => within(0, self.m.constant.len(), "constant bank").map(|o| (Area::Const, o)),
            Space::Param if a >= mem::KPARAM => {
                if write {
                    Err("kernel parameters are read-only".into())
                } else {
                    within(mem::KPARAM, self.kparams.len(), "kernel parameters").map(|o| (Area::KParam, o))
                }
            }
            Space::Local | Space::Param => {
                within(0, self.threads[i].stack.len(), "thread's local memory").map(|o| (Area::Stack, o))
            }
            Space::Generic => unreachable!("resolved above"),
        };
        r.map_err(|msg| self.rt_err(i, pc, msg))
    }

    fn load(&self, i: usize, pc: u32, space: Space, addr: u64, out: &mut [u8]) -> Result<()> {
        let (area, off) = self.locate(i, pc, space, addr, out.len(), false)?;
        if let Area::Peer(r) = area {
            return self.peer_load(i, pc, r, off, out);
        }
        let n = out.len();
        if self.pending_n > 0 {
            self.check_pending(i, pc, area, off, n, "read")?;
        }
        if !self.cluster.flight.is_idle() {
            self.bulk_access(i, pc, area, off, n, false)?;
        }
        if area == Area::Shared && !self.mbar.is_empty() {
            self.mbarrier_access(i, pc, off, n, "read")?;
        }
        if let (Area::Global(k), false) = (area, self.m.discarded.is_empty()) {
            self.check_discarded(i, pc, self.m.global.regions[k].base + off as u64, n)?;
        }
        out.copy_from_slice(match area {
            Area::Global(k) => self.m.global.read(k, off, n),
            Area::Shared => &self.shared[off..off + n],
            Area::Const => &self.m.constant[off..off + n],
            Area::KParam => &self.kparams[off..off + n],
            Area::Stack => &self.threads[i].stack[off..off + n],
            Area::Peer(_) => unreachable!("loaded above"),
        });
        Ok(())
    }

    fn store(&mut self, i: usize, pc: u32, space: Space, addr: u64, data: &[u8]) -> Result<()> {
        let (area, off) = self.locate(i, pc, space, addr, data.len(), true)?;
        if let Area::Peer(r) = area {
            return self.peer_store(i, pc, r, off, data);
        }
        let n = data.len();
        if self.pending_n > 0 {
            self.check_pending(i, pc, area, off, n, "write")?;
        }
        if !self.cluster.flight.is_idle() {
            self.bulk_access(i, pc, area, off, n, true)?;
        }
        if area == Area::Shared && !self.mbar.is_empty() {
            self.mbarrier_access(i, pc, off, n, "write")?;
        }
        self.mutations += 1;
        // Only plain stores: atomics and reductions are morally strong (L4091), never a race.
        if self.m.undefined_fill.is_some() && matches!(self.m.prog.code[pc as usize].op, Op::St { .. }) {
            self.record_write(i, pc, area, off, data)?;
        }
        if let (Area::Shared, Some(p)) = (area, &mut self.proxy) {
            p.write(i, pc, off, n);
        }
        if let (Area::Global(k), false) = (area, self.m.discarded.is_empty()) {
            let at = self.m.global.regions[k].base + off as u64;
            self.m.discarded.written(at, n);
        }
        if let (Area::Global(k), Some(b)) = (area, &mut self.tmap) {
            b.write(i, pc, k, off, n);
        }
        match area {
            Area::Global(k) => self.m.global.write(k, off, n),
            Area::Shared => &mut self.shared[off..off + n],
            Area::Stack => &mut self.threads[i].stack[off..off + n],
            Area::Const | Area::KParam => unreachable!("located as read-only"),
            Area::Peer(_) => unreachable!("stored above"),
        }
        .copy_from_slice(data);
        Ok(())
    }

    /// Records thread `i`'s plain store of `data` at `off` of `area` (global or shared memory) in
    /// [`Machine::undefined_fill`] runs: an error when it races with an earlier write
    /// (`exec/races.rs`), as the value that stays is undefined.
    #[cold]
    fn record_write(&mut self, i: usize, pc: u32, area: Area, off: usize, data: &[u8]) -> Result<()> {
        let cta = self.env.ctaid;
        let (mem, at) = match area {
            Area::Global(k) => (races::Mem::Global, self.m.global.regions[k].base + off as u64),
            Area::Shared => (races::Mem::Shared(cta), off as u64),
            _ => return Ok(()),
        };
        let t = &self.threads[i];
        match self.m.writes.record(mem, at, cta, t.lin, t.syncs, data) {
            None => Ok(()),
            Some(r) => Err(self.rt_err(
                i,
                pc,
                format!(
                    "a data race (L3905): byte {:#x} was written with another value by thread {} of block ({},{},{}) with no barrier between; which value stays is undefined (L4061)",
                    r.addr, r.earlier.1, r.earlier.0[0], r.earlier.0[1], r.earlier.0[2]
                ),
            )),
        }
    }

    /// Issues one `cp.async` of thread `i` (§9.7.9.25.3.1): its addresses are checked now, the
    /// copy is made when its group completes.
    #[allow(clippy::too_many_arguments)]
    fn cp_async(
        &mut self,
        i: usize,
        pc: u32,
        dst: &Addr,
        src: &Addr,
        size: u8,
        src_size: Option<&Src>,
        ignore: Option<&(Src, bool)>,
    ) -> Result<()> {
        let t = &self.threads[i];
        let (d, s) = (self.address(i, dst), self.address(i, src));
        let n_src = match (src_size, ignore) {
            (Some(n), _) => {
                let n = self.rd(t, n) as u32;
                if n > size as u32 {
                    return Err(self.rt_err(
                        i,
                        pc,
                        format!("`cp.async`'s src-size {n} exceeds its cp-size {size}: undefined (L14281)"),
                    ));
                }
                n as u8
            }
            (None, Some((p, neg))) if (self.rd(t, p) & 1 != 0) ^ neg => 0,
            _ => size,
        };
        let (area, doff) = self.locate(i, pc, Space::Shared, d, size as usize, true)?;
        debug_assert!(matches!(area, Area::Shared));
        if !self.mbar.is_empty() {
            self.mbarrier_access(i, pc, doff, size as usize, "`cp.async` copy to")?;
        }
        // The source is read only where bytes are taken from it (a masked copy, src-size 0,
        // may name any address), at cp-size alignment (Addresses as Operands).
        let src = if n_src > 0 {
            if s % size as u64 != 0 {
                return Err(self.rt_err(
                    i,
                    pc,
                    format!("global address {s:#x} is not aligned to the `cp.async` size of {size} bytes"),
                ));
            }
            match self.locate(i, pc, Space::Global, s, n_src as usize, false)? {
                (Area::Global(k), off) => {
                    // The copy reads its source when it completes; a write before then is an
                    // error, so a discarded byte now is one it would read (`exec/control.rs`).
                    if !self.m.discarded.is_empty() {
                        self.check_discarded(i, pc, s, n_src as usize)?;
                    }
                    Some((k, off))
                }
                _ => None,
            }
        } else {
            None
        };
        if self.pending.is_empty() {
            self.pending = vec![0; self.shared.len()];
        }
        let range = doff..doff + size as usize;
        if self.pending[range.clone()].iter().any(|&c| c > 0) {
            return Err(self.pending_err(
                i,
                pc,
                doff,
                size as usize,
                "copy to",
                "two `cp.async` copies to the same bytes are unordered unless a wait separates them (L14353, L14404)",
            ));
        }
        self.pending[range].iter_mut().for_each(|c| *c += 1);
        self.pending_n += 1;
        self.threads[i].uncommitted.push(AsyncCopy {
            dst: doff,
            src,
            size,
            n_src,
            pc,
        });
        Ok(())
    }

    /// Makes thread `i`'s `cp.async` copy: its source bytes now, zeros past them (a write
    /// through the generic proxy).
    fn complete_copy(&mut self, i: usize, c: &AsyncCopy) {
        let mut buf = [0u8; 16];
        if let Some((k, off)) = c.src {
            let n = c.n_src as usize;
            buf[..n].copy_from_slice(self.m.global.read(k, off, n));
        }
        let size = c.size as usize;
        self.shared[c.dst..c.dst + size].copy_from_slice(&buf[..size]);
        if let Some(p) = &mut self.proxy {
            p.write(i, c.pc, c.dst, size);
        }
        self.pending[c.dst..c.dst + size].iter_mut().for_each(|x| *x -= 1);
        self.pending_n -= 1;
        self.mutations += 1;
    }

    /// An access of `n` bytes at `off` in `area` that meets a `cp.async` not completed: its
    /// shared destination (read or written), or its global source (written).
    fn check_pending(&self, i: usize, pc: u32, area: Area, off: usize, n: usize, what: &str) -> Result<()> {
        match area {
            Area::Shared if self.pending[off..off + n].iter().any(|&c| c > 0) => Err(self.pending_err(
                i,
                pc,
                off,
                n,
                what,
                "a `cp.async` destination holds its data only after the issuing thread's \
                 `cp.async.wait_group`/`wait_all` (L14398-14402)",
            )),
            Area::Global(k) if what == "write" => {
                let hit = self.threads.iter().enumerate().find_map(|(j, t)| {
                    t.uncommitted
                        .iter()
                        .chain(t.groups.iter().flatten())
                        .find(|c| {
                            c.src
                                .is_some_and(|(ck, co)| ck == k && co < off + n && off < co + c.n_src as usize)
                        })
                        .map(|c| (j, c.pc))
                });
                match hit {
                    Some((j, cpc)) => Err(self.rt_err(
                        i,
                        pc,
                        format!(
                            "write to the source of a `cp.async` that has not completed (issued at line {} by {}): \
                             the copy may read it at any time until the issuing thread waits for it (L14291, L14398)",
                            self.m.prog.code[cpc as usize].loc.line,
                            self.thread_name(j)
                        ),
                    )),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }

    /// The error for a `wgmma.mma_async` read of shared byte `byte` whose generic-proxy write `w`
    /// no proxy fence orders before it ([`proxy`]).
    #[cold]
    fn unfenced_err(&self, i: usize, pc: u32, byte: usize, w: proxy::Write) -> Error {
        let at = &self.m.prog.code[w.pc as usize];
        let how = match at.op {
            Op::CpAsync { .. } => "`cp.async`",
            _ => "store",
        };
        self.rt_err(
            i,
            pc,
            format!(
                "this `wgmma.mma_async` reads shared memory byte {byte:#x}, which the {how} at line {} of {} wrote through the generic proxy with no `fence.proxy.async` after it: the read (async proxy) is not ordered after the write, so the matrix it sees is undefined (an async proxy fence is required, L26398; L24880-24882)",
                at.loc.line,
                self.thread_name(w.thread as usize)
            ),
        )
    }

    /// The error for an access of `n` shared bytes at `off` that a pending `cp.async` writes.
    #[cold]
    fn pending_err(&self, i: usize, pc: u32, off: usize, n: usize, what: &str, rule: &str) -> Error {
        let hit = self.threads.iter().enumerate().find_map(|(j, t)| {
            t.uncommitted
                .iter()
                .chain(t.groups.iter().flatten())
                .find(|c| c.dst < off + n && off < c.dst + c.size as usize)
                .map(|c| (j, c.pc))
        });
        let by = match hit {
            Some((j, cpc)) => format!(
                " (issued at line {} by {})",
                self.m.prog.code[cpc as usize].loc.line,
                self.thread_name(j)
            ),
            None => String::new(),
        };
        self.rt_err(
            i,
            pc,
            format!(
                "{what} shared memory [{off:#x}, {:#x}) while a `cp.async` to it has not completed{by}: {rule}",
                off + n
            ),
        )
    }

    /// `thread (x, y, z)` of the CTA.
    fn thread_name(&self, j: usize) -> String {
        let [x, y, z] = self.threads[j].tid;
        format!("thread ({x}, {y}, {z})")
    }

    #[allow(clippy::too_many_arguments)]
    fn atom(
        &mut self,
        i: usize,
        pc: u32,
        op: &spec::atom::AtomOp,
        space: Space,
        d: &[Dst],
        addr: &Addr,
        b: &[Src],
        c: &[Src],
    ) -> Result<()> {
        let a = self.address(i, addr);
        let (space, a) = match space {
            Space::Generic => match self.m.prog.windows.resolve_generic(a) {
                Some((Space::Shared, a)) => (Space::SharedCluster, a),
                Some(x) => x,
                None => return Err(self.rt_err(i, pc, format!("generic address {a:#x} is in no state space"))),
            },
            s => (s, a),
        };
        let aspace = match space {
            Space::Global => spec::atom::AtomSpace::Global,
            Space::Shared | Space::SharedCluster => spec::atom::AtomSpace::Shared,
            s => {
                return Err(self.rt_err(
                    i,
                    pc,
                    format!(
                        "atomic access to {} memory (only .global and .shared are atomic)",
                        s.name()
                    ),
                ))
            }
        };
        let eb = op.elem_bytes() as usize;
        if eb == 16 {
            return self.atom_b128(i, pc, op, (space, aspace, a), d, b, c);
        }
        let n = b.len();
        let mut buf = [0u8; 64];
        self.load(i, pc, space, a, &mut buf[..eb * n])?;
        let t = &self.threads[i];
        let cv = self.rd(t, &c[0]) as u128;
        let mut olds = [0u64; 8];
        let mut new = [0u8; 64];
        for k in 0..n {
            let mut e = [0u8; 8];
            e[..eb].copy_from_slice(&buf[k * eb..(k + 1) * eb]);
            let old = u64::from_le_bytes(e);
            olds[k] = old;
            let bv = self.rd(t, &b[k]) as u128;
            let out = spec::atom::apply(op, aspace, old as u128, bv, cv);
            new[k * eb..(k + 1) * eb].copy_from_slice(&(out.model as u64).to_le_bytes()[..eb]);
        }
        self.store(i, pc, space, a, &new[..eb * n])?;
        let t = &mut self.threads[i];
        for (dst, v) in d.iter().zip(olds) {
            wr(t, dst, v);
        }
        t.pc += 1;
        t.clock += 1;
        Ok(())
    }

    fn call(&mut self, i: usize, pc: u32, callee: &Callee, args: &[Arg]) -> Result<()> {
        let prog: &'p Program = self.m.prog;
        let f = match callee {
            Callee::Direct(f) => *f,
            Callee::Indirect { fptr, params, rets } => {
                let a = self.rd(&self.threads[i], fptr);
                let a = a & prog.windows.mask;
                let k = a.wrapping_sub(prog.windows.func);
                let f = (k / 16) as usize;
                if a < prog.windows.func || !k.is_multiple_of(16) || f >= prog.funcs.len() || prog.funcs[f].entry {
                    return Err(self.rt_err(
                        i,
                        pc,
                        format!("indirect call to {a:#x}, which is not the address of a `.func`"),
                    ));
                }
                let func = &prog.funcs[f];
                let ps: Vec<u32> = func.params.iter().map(|p| p.1).collect();
                let rs: Vec<u32> = func.rets.iter().map(|p| p.1).collect();
                if &ps != params || &rs != rets {
                    return Err(self.rt_err(
                        i,
                        pc,
                        format!(
                            "indirect call to `{}`, whose parameters do not match the call's prototype",
                            func.name
                        ),
                    ));
                }
                f as u32
            }
        };
        let func = &prog.funcs[f as usize];
        if !func.defined {
            return Err(self.rt_err(
                i,
                pc,
                format!("calls `{}`, which is declared but not defined in the module", func.name),
            ));
        }
        let stack_limit = self.limits.stack as usize;
        let t = &self.threads[i];
        let new_sbase = t.stack.len().div_ceil(16) * 16;
        let new_len = new_sbase + func.frame_bytes as usize;
        if new_len > stack_limit {
            let depth = t.frames.len() + 1;
            let inst = &prog.code[pc as usize];
            return Err(Error::at(
                ErrorKind::Limit,
                inst.loc,
                format!(
                    "`{}`: the thread's stack would grow to {new_len} bytes at call depth {depth}, past the limit of {stack_limit}",
                    inst.text
                ),
            ));
        }
        // Arguments are read in the caller's frame before the callee's exists.
        let mut arg_bytes: Vec<(u32, Vec<u8>)> = Vec::with_capacity(args.len());
        for (a, &(off, size)) in args.iter().zip(&func.params) {
            let bytes = match a {
                Arg::Frame(o, sz) => {
                    let s = (t.sbase + o) as usize;
                    t.stack[s..s + *sz as usize].to_vec()
                }
                Arg::Val(src) => self.rd(t, src).to_le_bytes()[..size as usize].to_vec(),
            };
            arg_bytes.push((off, bytes));
        }
        let fill = self.m.undefined_fill.unwrap_or(0);
        let t = &mut self.threads[i];
        t.stack.resize(new_len, fill);
        for (off, b) in arg_bytes {
            let s = new_sbase + off as usize;
            t.stack[s..s + b.len()].copy_from_slice(&b);
        }
        t.frames.push(Frame {
            call_pc: pc,
            caller_base: t.base,
            caller_sbase: t.sbase,
            callee: f,
        });
        t.base = t.regs.len();
        t.regs
            .resize(t.base + func.nregs as usize, u64::from_ne_bytes([fill; 8]));
        t.sbase = new_sbase as u32;
        t.pc = func.start;
        t.clock += 1;
        Ok(())
    }

    fn ret(&mut self, i: usize) -> Result<()> {
        let prog: &'p Program = self.m.prog;
        let t = &mut self.threads[i];
        let Some(fr) = t.frames.pop() else {
            // `ret` from the kernel ends the thread.
            t.st = St::Exited;
            return Ok(());
        };
        let Op::Call { rets, .. } = &prog.code[fr.call_pc as usize].op else {
            unreachable!("frames are pushed by calls")
        };
        let func = &prog.funcs[fr.callee as usize];
        for (r, &(off, size)) in rets.iter().zip(&func.rets) {
            let s = (t.sbase + off) as usize;
            match r {
                RetTo::Frame(o, _) => {
                    let d = (fr.caller_sbase + o) as usize;
                    t.stack.copy_within(s..s + size as usize, d);
                }
                RetTo::Reg(dst) => {
                    let mut b = [0u8; 8];
                    b[..size as usize].copy_from_slice(&t.stack[s..s + size as usize]);
                    let v = u64::from_le_bytes(b);
                    let callee_base = t.base;
                    t.base = fr.caller_base;
                    wr(t, dst, v);
                    t.base = callee_base;
                }
            }
        }
        t.regs.truncate(t.base);
        t.stack.truncate(t.sbase as usize);
        t.base = fr.caller_base;
        t.sbase = fr.caller_sbase;
        t.pc = fr.call_pc + 1;
        t.clock += 1;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn bar_arrive(
        &mut self,
        i: usize,
        pc: u32,
        op: BarOp,
        id: &Src,
        count: Option<&Src>,
        pred: Option<&(Src, bool)>,
        d: Option<Dst>,
    ) -> Result<()> {
        let t = &self.threads[i];
        let b = self.rd(t, id);
        if b >= 16 {
            return Err(self.rt_err(i, pc, format!("barrier {b} does not exist (barriers are 0..15)")));
        }
        let cnt = count.map(|c| self.rd(t, c) as u32);
        if let Some(c) = cnt {
            if c == 0 || c % 32 != 0 || c as usize > self.threads.len().div_ceil(32) * 32 {
                return Err(self.rt_err(
                    i,
                    pc,
                    format!("barrier thread count {c} must be a nonzero multiple of 32 no larger than the block"),
                ));
            }
        }
        let p = pred.map(|(s, neg)| (self.rd(t, s) & 1 != 0) ^ neg);
        let bar = &mut self.bars[b as usize];
        if let (Some(c), Some(e)) = (cnt, bar.expected) {
            if c != e {
                return Err(self.rt_err(
                    i,
                    pc,
                    format!("barrier {b} is used with thread counts {e} and {c} at once"),
                ));
            }
        }
        bar.expected = bar.expected.or(cnt);
        bar.arrived += 1;
        if let Some(p) = p {
            if bar.op.is_none() || bar.arrived == 1 {
                bar.popc = 0;
                bar.and = true;
                bar.or = false;
            }
            bar.op = Some(op);
            bar.popc += p as u32;
            bar.and &= p;
            bar.or |= p;
        }
        let t = &mut self.threads[i];
        t.pc += 1;
        t.clock += 1;
        if op != BarOp::Arrive {
            t.st = St::Bar(b as u8);
            t.red_dst = d;
            self.bars[b as usize].waiting.push(i);
        }
        Ok(())
    }

    /// Releases every barrier whose expected threads have all arrived; whether any was.
    fn release_barriers(&mut self) -> Result<bool> {
        let live = self.threads.iter().filter(|t| t.st != St::Exited).count() as u32;
        let mut any = false;
        for b in 0..self.bars.len() {
            let bar = &self.bars[b];
            if bar.arrived == 0 {
                continue;
            }
            // Without a count, every thread of the block that has not exited takes part.
            let expected = bar.expected.unwrap_or(live);
            if bar.arrived < expected {
                continue;
            }
            let bar = std::mem::take(&mut self.bars[b]);
            for &w in &bar.waiting {
                let t = &mut self.threads[w];
                t.st = St::Run;
                t.syncs += 1;
                if let Some(d) = t.red_dst.take() {
                    let v = match bar.op {
                        Some(BarOp::RedPopc) => bar.popc as u64,
                        Some(BarOp::RedAnd) => bar.and as u64,
                        _ => bar.or as u64,
                    };
                    wr(t, &d, v);
                }
            }
            any = true;
            if let Some(p) = &mut self.proxy {
                p.barrier();
            }
        }
        Ok(any)
    }

    /// A warp collective. The `.sync` forms wait, lane by lane, until every live lane of the
    /// member masks has arrived at this instruction; then they compute together. Member masks
    /// lose their exited lanes ("non-exited threads", L12020).
    #[allow(clippy::too_many_arguments)]
    fn warp_op(
        &mut self,
        lo: usize,
        exec: u32,
        pc: u32,
        kind: WarpKind,
        form: &'static spec::catalog::Form,
        dsts: &[Dst],
        srcs: &[PureIn],
    ) -> Result<()> {
        use spec::warp;
        let hi = (lo + 32).min(self.threads.len());
        let n = hi - lo;
        let sync = match kind {
            WarpKind::Shfl(_, s) | WarpKind::Vote(_, s) => s,
            WarpKind::Activemask => false,
            _ => true,
        };
        let (here, live) = self.lanes_at(lo, exec, pc, sync);
        if here == 0 {
            return Ok(());
        }
        // Operands of every lane (an unspecified shfl result is modelled by its source's value).
        let mut vals = [[0u64; 32]; 4];
        for (k, s) in srcs.iter().enumerate().take(4) {
            for (l, t) in self.threads[lo..hi].iter().enumerate() {
                let v = self.rd(t, &s.src);
                vals[k][l] = if s.bits >= 64 { v } else { v & ((1u64 << s.bits) - 1) };
            }
        }
        let mut mm = [0u32; 32];
        if sync {
            let k = srcs.len() - 1;
            let mut needed = 0u32;
            for l in 0..n {
                if here >> l & 1 != 0 {
                    mm[l] = vals[k][l] as u32;
                    needed |= mm[l];
                }
            }
            if needed & live & !here != 0 {
                for l in 0..n {
                    if here >> l & 1 != 0 {
                        self.threads[lo + l].st = St::WarpWait;
                    }
                }
                return Ok(());
            }
            for m in mm.iter_mut() {
                *m &= live;
            }
        }
        let first = lo + here.trailing_zeros() as usize;
        let u32s = |k: usize| std::array::from_fn::<u32, 32, _>(|l| vals[k][l] as u32);
        let fail = |e: warp::WarpError| self.rt_err(first, pc, e.0);
        // Results per lane: the destination and the optional predicate.
        let res: [(u64, bool); 32] = match kind {
            WarpKind::Shfl(mode, true) => {
                let r = warp::shfl_sync(mode, here, &mm, &u32s(0), &u32s(1), &u32s(2)).map_err(fail)?;
                r.map(|(d, p)| (d as u64, p))
            }
            WarpKind::Shfl(mode, false) => {
                warp::shfl(mode, here, &u32s(0), &u32s(1), &u32s(2)).map(|(d, p)| (d as u64, p))
            }
            WarpKind::Vote(mode, s) => {
                let pred = std::array::from_fn(|l| (vals[0][l] & 1 != 0) ^ srcs[0].negated);
                let r = if s {
                    warp::vote_sync(mode, here, &mm, &pred).map_err(fail)?
                } else {
                    warp::vote(mode, here, &pred)
                };
                r.map(|d| (d as u64, false))
            }
            WarpKind::MatchAny => warp::match_sync_any(here, &mm, &vals[0])
                .map_err(fail)?
                .map(|d| (d as u64, false)),
            WarpKind::MatchAll => warp::match_sync_all(here, &mm, &vals[0])
                .map_err(fail)?
                .map(|(d, p)| (d as u64, p)),
            WarpKind::Redux => {
                // The checker decodes every `redux` form as a collective: one the spec cannot
                // decode is the oracle's defect, not the program's.
                warp::Redux::from_form(form).map_err(|e| self.internal_err(first, pc, e.0))?;
                warp::redux_sync(form, here, &mm, &u32s(0))
                    .map_err(fail)?
                    .map(|d| (d as u64, false))
            }
            WarpKind::Elect => warp::elect_sync(here, &mm).map_err(fail)?.map(|(d, p)| (d as u64, p)),
            WarpKind::Activemask => warp::activemask(here).map(|d| (d as u64, false)),
        };
        for (l, (t, &(dv, pv))) in self.threads[lo..hi].iter_mut().zip(&res).enumerate() {
            if here >> l & 1 == 0 {
                continue;
            }
            if let Some(d) = dsts.first() {
                wr(t, d, dv);
            }
            if let Some(p) = dsts.get(1) {
                wr(t, p, pv as u64);
            }
            t.st = St::Run;
            t.pc += 1;
            t.clock += 1;
        }
        Ok(())
    }

    /// A warp-wide matrix instruction (§9.7.14.5): the lanes wait until every live lane of the
    /// warp is here (`.sync`); all 32 must be (`.aligned`: "all threads in the warp must
    /// execute the same" instruction, L22957, L23429), then the fragments of the whole warp are
    /// gathered, computed and written back.
    #[allow(clippy::too_many_arguments)]
    fn matrix_op(
        &mut self,
        lo: usize,
        exec: u32,
        pc: u32,
        op: &MatrixOp,
        form: &'static spec::catalog::Form,
        dsts: &[Dst],
        srcs: &[Vec<Src>],
        addr: Option<&(Addr, Space)>,
    ) -> Result<()> {
        use spec::matrix;
        let hi = (lo + 32).min(self.threads.len());
        let n = hi - lo;
        let (here, live) = self.lanes_at(lo, exec, pc, true);
        if here == 0 {
            return Ok(());
        }
        if live & !here != 0 {
            for l in 0..n {
                if here >> l & 1 != 0 {
                    self.threads[lo + l].st = St::WarpWait;
                }
            }
            return Ok(());
        }
        let first = lo + here.trailing_zeros() as usize;
        if n < 32 || here != u32::MAX {
            return Err(self.rt_err(
                first,
                pc,
                format!(
                    "`{}` needs all 32 threads of the warp to execute it together (`.sync.aligned`); {} of them do (undefined otherwise: `.aligned`, L22955-22957, L23429)",
                    form.name,
                    here.count_ones()
                ),
            ));
        }
        let regs = |me: &Self, group: &[Src]| -> Vec<Vec<u64>> {
            (lo..hi)
                .map(|i| group.iter().map(|s| me.rd(&me.threads[i], s)).collect())
                .collect()
        };
        let internal =
            |me: &Self, e: &dyn std::fmt::Display| me.internal_err(first, pc, format!("`{}`: {e}", form.name));
        let mut out: Vec<Vec<u64>> = vec![vec![0; dsts.len()]; 32];
        match op {
            MatrixOp::Mma { op: mop, layouts } => {
                let [la, lb, lc, ld] = &**layouts;
                let (a, b, c) = (regs(self, &srcs[0]), regs(self, &srcs[1]), regs(self, &srcs[2]));
                for g in 0..ld.groups {
                    let am = la.gather(g, &a).map_err(|e| internal(self, &e))?;
                    let bm = lb.gather(g, &b).map_err(|e| internal(self, &e))?;
                    let cm = lc.gather(g, &c).map_err(|e| internal(self, &e))?;
                    let wide = |v: Vec<u64>| v.into_iter().map(u128::from).collect::<Vec<u128>>();
                    let (am, bm) = (contained(am, mop.a, la.bits), contained(bm, mop.b, lb.bits));
                    // Only the model values: the acceptance sets are a judge's business.
                    let d = spec::tensor::model::mma_model(mop, &am, &bm, &wide(cm))
                        .ok_or_else(|| internal(self, &"the matrices do not have the op's sizes"))?;
                    let dm: Vec<u64> = d.into_iter().map(|v| v as u64).collect();
                    ld.scatter(g, &dm, &mut out).map_err(|e| internal(self, &e))?;
                }
            }
            MatrixOp::MmaSp {
                op: mop,
                layouts,
                sparsity,
            } => {
                let [la, lb, lc, ld] = &**layouts;
                let (a, b, c) = (regs(self, &srcs[0]), regs(self, &srcs[1]), regs(self, &srcs[2]));
                let am = la.gather(0, &a).map_err(|e| internal(self, &e))?;
                let bm = lb.gather(0, &b).map_err(|e| internal(self, &e))?;
                let cm = lc.gather(0, &c).map_err(|e| internal(self, &e))?;
                let (dense, kept) =
                    self.decompress_a(lo, first, pc, form, sparsity, mop.shape.2, &am, &srcs[3], &srcs[4])?;
                let wide = |v: Vec<u64>| v.into_iter().map(u128::from).collect::<Vec<u128>>();
                let (dense, bm) = (contained(dense, mop.a, la.bits), contained(bm, mop.b, lb.bits));
                // Pruned positions are not multiplied (an Inf/NaN of B there stays out of D).
                let d = spec::tensor::model::mma_model_sparse(mop, &dense, &bm, &wide(cm), &kept)
                    .ok_or_else(|| internal(self, &"the matrices do not have the op's sizes"))?;
                let dm: Vec<u64> = d.into_iter().map(|v| v as u64).collect();
                ld.scatter(0, &dm, &mut out).map_err(|e| internal(self, &e))?;
            }
            MatrixOp::MmaBlockScale {
                op: sop,
                layouts,
                sparsity,
            } => {
                self.mma_block_scale(lo, first, pc, form, sop, layouts, sparsity.as_ref(), srcs, &mut out)?;
            }
            MatrixOp::WmmaLoad | MatrixOp::WmmaStore => {
                let Some((a, space)) = addr else {
                    return Err(internal(self, &"no address"));
                };
                let load = matches!(op, MatrixOp::WmmaLoad);
                // "p and stride ... must be the same for all threads in the warp" (L20634).
                let same = |me: &Self, v: &dyn Fn(usize) -> u64, what: &str| -> Result<u64> {
                    let v0 = v(lo);
                    match (lo..hi).find(|&i| v(i) != v0) {
                        Some(i) => Err(me.rt_err(
                            i,
                            pc,
                            format!(
                                "`{}`: the {what} differs between lanes ({:#x} in lane 0, {:#x} here); it must be the same in every thread of the warp (L20634)",
                                form.name,
                                v0,
                                v(i)
                            ),
                        )),
                        None => Ok(v0),
                    }
                };
                let p = same(self, &|i| self.address(i, a), "address")?;
                let stride_group = if load { srcs.first() } else { srcs.get(1) };
                let stride = match stride_group.and_then(|g| g.first()) {
                    Some(s) => Some(same(self, &|i| self.rd(&self.threads[i], s) as u32 as u64, "stride")? as u32),
                    None => None,
                };
                if load {
                    let mut read = |at: u64, len: usize| -> Result<Vec<u8>> {
                        let mut buf = vec![0u8; len];
                        for (off, n) in row_pieces(at, len) {
                            self.load(first, pc, *space, at + off as u64, &mut buf[off..off + n])?;
                        }
                        Ok(buf)
                    };
                    let r = matrix::wmma_load(form, p, stride, &mut read)
                        .map_err(|e| self.matrix_err(first, pc, form, e))?;
                    for (l, regs) in r.into_iter().enumerate() {
                        out[l] = regs;
                    }
                } else {
                    let r = regs(self, &srcs[0]);
                    let mut writes: Vec<(u64, Vec<u8>)> = Vec::new();
                    let mut write = |at: u64, bytes: &[u8]| -> Result<()> {
                        writes.push((at, bytes.to_vec()));
                        Ok(())
                    };
                    matrix::wmma_store(form, p, stride, &r, &mut write)
                        .map_err(|e| self.matrix_err(first, pc, form, e))?;
                    for (at, bytes) in writes {
                        for (off, n) in row_pieces(at, bytes.len()) {
                            self.store(first, pc, *space, at + off as u64, &bytes[off..off + n])?;
                        }
                    }
                }
            }
            MatrixOp::Movmatrix => {
                let a = regs(self, &srcs[0]);
                let a: [u32; 32] = std::array::from_fn(|l| a[l][0] as u32);
                for (l, d) in matrix::movmatrix(&a).into_iter().enumerate() {
                    out[l][0] = d as u64;
                }
            }
            MatrixOp::Ldmatrix | MatrixOp::Stmatrix => {
                let Some((a, space)) = addr else {
                    return Err(internal(self, &"no address"));
                };
                let addrs: [u64; 32] = std::array::from_fn(|l| self.address(lo + l, a));
                if matches!(op, MatrixOp::Ldmatrix) {
                    let mut read = |at: u64, len: usize| -> Result<Vec<u8>> {
                        let mut buf = vec![0u8; len];
                        self.load(first, pc, *space, at, &mut buf)?;
                        Ok(buf)
                    };
                    let r =
                        matrix::ldmatrix(form, &addrs, &mut read).map_err(|e| self.matrix_err(first, pc, form, e))?;
                    for (l, regs) in r.into_iter().enumerate() {
                        out[l] = regs.into_iter().map(u64::from).collect();
                    }
                } else {
                    let r = regs(self, &srcs[0]);
                    let r: Vec<Vec<u32>> = r
                        .into_iter()
                        .map(|v| v.into_iter().map(|x| x as u32).collect())
                        .collect();
                    let mut writes: Vec<(u64, Vec<u8>)> = Vec::new();
                    let mut write = |at: u64, bytes: &[u8]| -> Result<()> {
                        writes.push((at, bytes.to_vec()));
                        Ok(())
                    };
                    matrix::stmatrix(form, &addrs, &r, &mut write).map_err(|e| self.matrix_err(first, pc, form, e))?;
                    for (at, bytes) in writes {
                        self.store(first, pc, *space, at, &bytes)?;
                    }
                }
            }
        }
        for (l, t) in self.threads[lo..hi].iter_mut().enumerate() {
            for (d, &v) in dsts.iter().zip(&out[l]) {
                wr(t, d, v);
            }
            t.st = St::Run;
            t.pc += 1;
            t.clock += 1;
        }
        Ok(())
    }

    /// A sparse A (`mma.sp`, §9.7.14.6): the dense 16×K matrix from the compressed one `am` (as
    /// its layout gathers it), the lanes' metadata `e` and the selector `f` (the registers or
    /// constants of the source groups `e` and `f`). `f` is "a 32-bit integer constant"
    /// (L24479), as the type checker requires: one value for the whole warp, read in lane 0.
    /// Metadata or a selector the manual makes undefined is the program's fault: a runtime
    /// error naming its rule ([`spec::matrix::Sparsity::decompress`]).
    #[allow(clippy::too_many_arguments)]
    fn decompress_a(
        &self,
        lo: usize,
        first: usize,
        pc: u32,
        form: &'static spec::catalog::Form,
        sparsity: &spec::matrix::Sparsity,
        k: usize,
        am: &[u64],
        e: &[Src],
        f: &[Src],
    ) -> Result<(Vec<u64>, Vec<bool>)> {
        let e: Vec<u64> = (lo..lo + 32)
            .map(|i| self.rd(&self.threads[i], &e[0]) & 0xffff_ffff)
            .collect();
        let f0 = u32::try_from(self.rd(&self.threads[lo], &f[0])).unwrap_or(u32::MAX);
        sparsity.decompress_kept(k, am, &e, f0).map_err(|err| match err {
            spec::matrix::MatrixError::Undefined(why) => {
                self.rt_err(first, pc, format!("`{}`: {why} (undefined behaviour)", form.name))
            }
            other => self.internal_err(first, pc, format!("`{}`: {other}", form.name)),
        })
    }

    /// Block-scaled `mma` (§9.7.14.3): A, B and C gathered by their fragment layouts (a sparse
    /// A decompressed first, [`Self::decompress_a`]; fp6/fp4 elements of `.kind::mxf8f6f4`
    /// taken out of their containers), scale_A and scale_B
    /// selected from the warp's `scale-a-data`/`scale-b-data` registers
    /// ([`spec::matrix::scale`]), D = the model of [`spec::tensor::scaled`] scattered back into
    /// `out`. The selectors are one per instruction in the manual (L20034); the oracle asks the
    /// same value of every thread (a runtime error otherwise, as for `wgmma`'s descriptors), and
    /// a value outside Table 36 is undefined (L20070): a runtime error.
    #[allow(clippy::too_many_arguments)]
    fn mma_block_scale(
        &self,
        lo: usize,
        first: usize,
        pc: u32,
        form: &'static spec::catalog::Form,
        op: &spec::tensor::scaled::ScaledOp,
        layouts: &[spec::matrix::Layout; 4],
        sparsity: Option<&spec::matrix::Sparsity>,
        srcs: &[Vec<Src>],
        out: &mut [Vec<u64>],
    ) -> Result<()> {
        use spec::matrix::scale::{scale_a, scale_b, Selector};
        let internal = |e: &dyn std::fmt::Display| self.internal_err(first, pc, format!("`{}`: {e}", form.name));
        let regs = |group: &[Src]| -> Vec<Vec<u64>> {
            (lo..lo + 32)
                .map(|i| group.iter().map(|s| self.rd(&self.threads[i], s)).collect())
                .collect()
        };
        let [la, lb, lc, ld] = layouts;
        let unpack = |m: Vec<u64>, fmt: Option<spec::types::FloatFormat>| -> Vec<u128> {
            m.into_iter()
                .map(|v| match fmt {
                    Some(f) => op.unpack(f, u128::from(v)),
                    None => u128::from(v),
                })
                .collect()
        };
        let matrix =
            |l: &spec::matrix::Layout, group: &[Src], fmt: Option<spec::types::FloatFormat>| -> Result<Vec<u128>> {
                Ok(unpack(l.gather(0, &regs(group)).map_err(|e| internal(&e))?, fmt))
            };
        // A sparse A is expanded in its containers (a pruned element is an all-zero container),
        // then taken out of them as a dense one.
        let a = match sparsity {
            Some(sp) => {
                let am = la.gather(0, &regs(&srcs[0])).map_err(|e| internal(&e))?;
                unpack(
                    self.decompress_a(lo, first, pc, form, sp, op.shape.2, &am, &srcs[7], &srcs[8])?
                        .0,
                    Some(op.a),
                )
            }
            None => matrix(la, &srcs[0], Some(op.a))?,
        };
        let b = matrix(lb, &srcs[1], Some(op.b))?;
        let c = matrix(lc, &srcs[2], None)?;
        let word =
            |group: &[Src]| -> [u32; 32] { std::array::from_fn(|l| self.rd(&self.threads[lo + l], &group[0]) as u32) };
        let selector = |group: &[Src], what: &str| -> Result<Selector> {
            let at = |l: usize| {
                let t = &self.threads[lo + l];
                (self.rd(t, &group[0]) as u16, self.rd(t, &group[1]) as u16)
            };
            let v0 = at(0);
            if let Some(l) = (1..32).find(|&l| at(l) != v0) {
                return Err(self.rt_err(
                    lo + l,
                    pc,
                    format!(
                        "`{}`: {what} is {:?} here and {v0:?} in lane 0; the manual gives one selector per instruction (L20034), the oracle asks the same value of every thread",
                        form.name,
                        at(l)
                    ),
                ));
            }
            Ok(Selector {
                byte_id: v0.0,
                thread_id: v0.1,
            })
        };
        let rule = |e: spec::matrix::scale::SelectorError| self.rt_err(first, pc, format!("`{}`: {e}", form.name));
        let sfa = scale_a(op.vec, selector(&srcs[4], "{byte-id-a, thread-id-a}")?, &word(&srcs[3])).map_err(rule)?;
        let sfb = scale_b(op.vec, selector(&srcs[6], "{byte-id-b, thread-id-b}")?, &word(&srcs[5])).map_err(rule)?;
        // Only the model values: the acceptance sets are a judge's business.
        let d = spec::tensor::scaled::mma_model(op, &a, &b, &c, &sfa, &sfb)
            .ok_or_else(|| internal(&"the matrices do not have the op's sizes"))?;
        let d: Vec<u64> = d.into_iter().map(|v| v as u64).collect();
        ld.scatter(0, &d, out).map_err(|e| internal(&e))
    }

    /// A matrix load's or store's error: the memory's own (already located), or the rule the
    /// addresses broke.
    #[cold]
    fn matrix_err(&self, lane: usize, pc: u32, form: &spec::catalog::Form, e: spec::matrix::MoveError<Error>) -> Error {
        match e {
            spec::matrix::MoveError::Memory { error, .. } => error,
            spec::matrix::MoveError::Matrix(m) => self.rt_err(lane, pc, format!("`{}`: {m}", form.name)),
        }
    }

    /// `wgmma.mma_async` (§9.7.15.5.2). `.aligned`: all threads of the warpgroup, the four warps
    /// `4⌊w/4⌋ .. 4⌊w/4⌋+4` (128 threads), execute the same instruction (L25813); `.sync` makes
    /// each wait for its warp (L25811). The product needs the registers of all 128, so lanes
    /// wait (like a warp collective's) until every thread of the warpgroup is here; a
    /// warpgroup that cannot be whole (exited threads, a CTA that ends inside it) is a runtime
    /// error. The descriptors must be the same in every warp (L25777); the manual does not say
    /// which lane's a warp uses, so the oracle requires the same value in every thread (a
    /// runtime error otherwise), and the same `scale-d`.
    ///
    /// The asynchronous operation is performed at once, when the warpgroup issues it: A and B
    /// are read from shared memory and the accumulator from the registers now, and D is written
    /// now. `wgmma.commit_group`/`wait_group` then have nothing left to complete. This is one
    /// of the executions the manual allows for a program that follows its rules (the registers
    /// are not accessed before the wait, L26478; shared memory written before is fenced
    /// with `fence.proxy.async`, L24880-24884, L26398).
    /// The dense M×K A of a `wgmma.mma_async.sp` (§9.7.15.6) from the packed M×K/2 `packed`:
    /// warp `w` of the warpgroup gives the metadata of rows `16w..16w+16` (L25983-26000) as one
    /// `mma.sp` warp does ([`spec::matrix::Sparsity::decompress`]); `sp-sel` is a constant
    /// (L26280), read from the warpgroup's first thread. Metadata or a selector the manual makes
    /// undefined is a runtime error in the warp that gave it.
    #[allow(clippy::too_many_arguments)]
    fn wgmma_sparse_a(
        &self,
        g0: usize,
        first: usize,
        pc: u32,
        form: &spec::catalog::Form,
        sp: &WgmmaSparse,
        packed: &[u128],
        k: usize,
    ) -> Result<(Vec<u128>, Vec<bool>)> {
        let half = k / 2;
        let f = u32::try_from(self.rd(&self.threads[g0], &sp.sel)).unwrap_or(u32::MAX);
        let mut dense = Vec::with_capacity(packed.len() * 2);
        let mut kept_all = Vec::with_capacity(packed.len() * 2);
        for w in 0..packed.len() / (16 * half) {
            let rows: Vec<u64> = packed[16 * w * half..16 * (w + 1) * half]
                .iter()
                .map(|&v| v as u64)
                .collect();
            let e: Vec<u64> = (0..32)
                .map(|l| self.rd(&self.threads[g0 + 32 * w + l], &sp.meta) & 0xffff_ffff)
                .collect();
            let (rows, kept) = sp.sparsity.decompress_kept(k, &rows, &e, f).map_err(|err| match err {
                spec::matrix::MatrixError::Undefined(why) => self.rt_err(
                    g0 + 32 * w,
                    pc,
                    format!(
                        "`{}`: warp {w} of the warpgroup: {why} (undefined behaviour)",
                        form.name
                    ),
                ),
                other => self.internal_err(first, pc, format!("`{}`: {other}", form.name)),
            })?;
            dense.extend(rows.into_iter().map(u128::from));
            kept_all.extend(kept);
        }
        Ok((dense, kept_all))
    }

    fn wgmma_op(&mut self, lo: usize, exec: u32, pc: u32, g: &Wgmma) -> Result<()> {
        use spec::matrix::wgmma::{a_fragment, accumulator, Descriptor, Major, THREADS};
        let form = g.form;
        let Some((g0, first)) = self.warpgroup_at(lo, exec, pc)? else {
            return Ok(());
        };
        let (m, nn, k) = g.op.shape;
        // A's columns as the operand holds them: K/2 for the packed sparse A (L26272).
        let ka = if g.sparse.is_some() { k / 2 } else { k };
        let internal =
            |me: &Self, e: &dyn std::fmt::Display| me.internal_err(first, pc, format!("`{}`: {e}", form.name));
        let elem_bits = |t: spec::tensor::Elem| -> usize {
            use spec::tensor::Elem;
            use spec::types::FloatFormat as F;
            match t {
                Elem::Float(F::F16 | F::Bf16) => 16,
                Elem::Float(F::Tf32 | F::F32) | Elem::S32 => 32,
                Elem::B1 => 1,
                _ => 8,
            }
        };
        let (abits, bbits, dbits) = (elem_bits(g.op.a), elem_bits(g.op.b), elem_bits(g.op.d));
        // The accumulator, read as C.
        let dper = 32 / dbits;
        let mut c = vec![0u128; m * nn];
        let scale_d = self.rd(&self.threads[g0], &g.scale_d) & 1 != 0;
        for t in 0..THREADS {
            if t > 0 && self.rd(&self.threads[g0 + t], &g.scale_d) & 1 != u64::from(scale_d) {
                return Err(self.rt_err(
                    g0 + t,
                    pc,
                    format!("`{}`: scale-d differs between the threads of the warpgroup", form.name),
                ));
            }
            for (r, s) in g.c.iter().enumerate() {
                let v = self.rd(&self.threads[g0 + t], s);
                for idx in 0..dper {
                    let (row, col) = accumulator(t, r * dper + idx);
                    if row < m && col < nn && scale_d {
                        c[row * nn + col] = u128::from((v >> (idx * dbits)) as u32 & mask32(dbits));
                    }
                }
            }
        }
        // Shared-memory operands: the descriptor of thread 0 of the warpgroup (the operands of
        // an `.aligned` instruction are the same in every thread).
        let read_desc = |me: &Self,
                         desc: &Src,
                         major: Major,
                         rows: usize,
                         bits: usize,
                         a_side: bool|
         -> Result<Vec<u128>> {
            let bits0 = me.rd(&me.threads[g0], desc);
            if let Some(t) = (1..THREADS).find(|&t| me.rd(&me.threads[g0 + t], desc) != bits0) {
                return Err(me.rt_err(
                        g0 + t,
                        pc,
                        format!(
                            "`{}`: the matrix descriptor {:#x} differs from thread {g0}'s {bits0:#x}; it must be the same in every warp of the warpgroup (L25777; the oracle asks it of every thread)",
                            form.name,
                            me.rd(&me.threads[g0 + t], desc),
                        ),
                    ));
            }
            let d = Descriptor::decode(bits0);
            // Whole bytes, or the one byte holding a `.b1` element.
            let bytes = bits.div_ceil(8);
            // A is M×K (M×K/2 packed when sparse, L26272): (mn, k) = (row, col); B is K×N:
            // (mn, k) = (col, row).
            let (r, cols) = if a_side { (rows, ka) } else { (k, rows) };
            let mut out = vec![0u128; r * cols];
            let mut buf = [0u8; 4];
            for i in 0..r {
                for j in 0..cols {
                    let (mn, kk) = if a_side { (i, j) } else { (j, i) };
                    let (at, bit) = d.bit_address(major, mn, kk, bits);
                    me.load(first, pc, Space::Shared, at, &mut buf[..bytes])?;
                    if let Some((byte, w)) = me.proxy.as_ref().and_then(|p| p.unordered(at as usize, bytes)) {
                        return Err(me.unfenced_err(first, pc, byte, w));
                    }
                    let mut v = [0u8; 16];
                    v[..bytes].copy_from_slice(&buf[..bytes]);
                    out[i * cols + j] = (u128::from_le_bytes(v) >> bit) & u128::from(mask32(bits));
                }
            }
            Ok(out)
        };
        let major = |trans: bool| if trans { Major::Mn } else { Major::K };
        let mut a = match &g.a {
            WgmmaA::Desc(s) => read_desc(self, s, major(g.trans_a), m, abits, true)?,
            WgmmaA::Regs(regs) => {
                let per = 32 / abits;
                let mut a = vec![None; m * ka];
                for t in 0..THREADS {
                    for (r, s) in regs.iter().enumerate() {
                        let v = self.rd(&self.threads[g0 + t], s);
                        for idx in 0..per {
                            let (row, col) = a_fragment(t, r * per + idx, abits);
                            if row < m && col < ka {
                                a[row * ka + col] = Some(u128::from((v >> (idx * abits)) as u32 & mask32(abits)));
                            }
                        }
                    }
                }
                a.into_iter()
                    .collect::<Option<Vec<u128>>>()
                    .ok_or_else(|| internal(self, &"the A fragment does not cover A"))?
            }
        };
        let mut b = read_desc(self, &g.b, major(g.trans_b), nn, bbits, false)?;
        // imm-scale-a/b = -1: the elements negated (their sign bit flipped).
        for (neg, v, bits) in [(g.neg_a, &mut a, abits), (g.neg_b, &mut b, bbits)] {
            if neg {
                v.iter_mut().for_each(|x| *x ^= 1 << (bits - 1));
            }
        }
        let mut pruned: Option<Vec<bool>> = None;
        if let Some(sp) = &g.sparse {
            // After the negation: the pruned zeros are not A's elements and stay +0.
            let (dense, kept) = self.wgmma_sparse_a(g0, first, pc, form, sp, &a, k)?;
            a = dense;
            pruned = Some(kept);
        }
        // The model values alone: the acceptance sets `spec::tensor::mma` also computes are a
        // judge's business and cost more than the products (they were 45% of `conform`).
        // Pruned positions are not multiplied (an Inf/NaN of B there stays out of D).
        let d = match &pruned {
            Some(kept) => spec::tensor::model::mma_model_sparse(&g.op, &a, &b, &c, kept),
            None => spec::tensor::model::mma_model(&g.op, &a, &b, &c),
        }
        .ok_or_else(|| internal(self, &"the wgmma operands do not fit its shape or types"))?;
        // D scattered back to every thread of the warpgroup.
        for t in 0..THREADS {
            let mut regs = vec![0u64; g.d.len()];
            for (r, v) in regs.iter_mut().enumerate() {
                for idx in 0..dper {
                    let (row, col) = accumulator(t, r * dper + idx);
                    if row < m && col < nn {
                        *v |= u64::from(d[row * nn + col] as u32 & mask32(dbits)) << (idx * dbits);
                    }
                }
            }
            let th = &mut self.threads[g0 + t];
            for (dst, &v) in g.d.iter().zip(&regs) {
                wr(th, dst, v);
            }
            let abs = |th: &Thread, s: &Src| match s {
                Src::Reg(k) => Some(th.base + *k as usize),
                _ => None,
            };
            let pend = WgPending {
                acc: g.c.iter().filter_map(|s| abs(th, s)).collect(),
                a: match &g.a {
                    WgmmaA::Regs(v) => v.iter().filter_map(|s| abs(th, s)).collect(),
                    WgmmaA::Desc(_) => Vec::new(),
                },
                shape: g.op.shape,
                pc,
            };
            th.wg_uncommitted.push(pend);
            self.wg_pending += 1;
            let th = &mut self.threads[g0 + t];
            th.st = St::Run;
            th.pc += 1;
            th.clock += 1;
        }
        Ok(())
    }

    /// The registers of a `wgmma.mma_async` whose wgmma-group has not been waited for may not be
    /// accessed (L26478): any instruction of lanes `exec` that reads or writes one of them is a
    /// runtime error, except a later `wgmma.mma_async` of the same shape that uses the same
    /// registers as its accumulator (the chain the manual orders by default, L26388-26396)
    /// or reads the same A fragment (a read after a read; the oracle allows it).
    fn wgmma_hazards(&self, lo: usize, exec: u32, pc: u32) -> Result<()> {
        let inst = &self.m.prog.code[pc as usize];
        let (reads, writes) = inst.slots();
        let mut m = exec;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let t = &self.threads[lo + l];
            let pending = t.wg_uncommitted.iter().chain(t.wg_groups.iter().flatten());
            for p in pending {
                let abs = |k: &u32| t.base + *k as usize;
                let hit = match &inst.op {
                    Op::Wgmma(g) => {
                        let slot = |s: &Src| match s {
                            Src::Reg(k) => Some(abs(k)),
                            _ => None,
                        };
                        let acc: Vec<usize> = g.c.iter().filter_map(slot).collect();
                        let a: Vec<usize> = match &g.a {
                            WgmmaA::Regs(v) => v.iter().filter_map(slot).collect(),
                            WgmmaA::Desc(s) => slot(s).into_iter().collect(),
                        };
                        let other: Vec<usize> = [&g.b, &g.scale_d].into_iter().filter_map(slot).collect();
                        let chain = p.shape == g.op.shape;
                        acc.iter()
                            .find(|r| p.a.contains(r) || (!chain && p.acc.contains(r)))
                            .or_else(|| a.iter().chain(&other).find(|r| p.acc.contains(r)))
                            .or_else(|| other.iter().find(|r| p.a.contains(r)))
                            .copied()
                    }
                    _ => reads
                        .iter()
                        .chain(&writes)
                        .map(abs)
                        .find(|r| p.acc.contains(r) || p.a.contains(r)),
                };
                if let Some(r) = hit {
                    let what = if p.acc.contains(&r) {
                        "an accumulator register"
                    } else {
                        "an A fragment register"
                    };
                    let at = &self.m.prog.code[p.pc as usize];
                    return Err(self.rt_err(
                        lo + l,
                        pc,
                        format!(
                            "this instruction accesses {what} of the `wgmma.mma_async` at line {} whose wgmma-group has not been waited for: wait for it with `wgmma.wait_group` first (undefined otherwise, L26478)",
                            at.loc.line
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// `wgmma.fence` orders the thread's register accesses before a `wgmma.mma_async` that
    /// uses the same registers as accumulator or A fragment; it is required before the first
    /// `wgmma.mma_async` (L26392) and between such accesses and the `wgmma.mma_async`
    /// (L26394), undefined otherwise (L26396): runtime errors. A `wgmma.mma_async`'s own use
    /// of its registers is not such an access (the same-shape accumulator chain is ordered by
    /// default, L26394; the accesses to a pending operation's registers are
    /// [`Cta::wgmma_hazards`]'s). Lanes `exec` are about to execute the instruction at `pc`.
    fn wgmma_fences(&mut self, lo: usize, exec: u32, pc: u32) -> Result<()> {
        let prog: &'p Program = self.m.prog;
        let inst = &prog.code[pc as usize];
        let lanes = {
            let mut m = exec;
            std::iter::from_fn(move || {
                (m != 0).then(|| {
                    let l = m.trailing_zeros() as usize;
                    m &= m - 1;
                    lo + l
                })
            })
        };
        match &inst.op {
            Op::WgmmaFence => {
                for i in lanes {
                    let t = &mut self.threads[i];
                    t.wg_fenced = true;
                    t.wg_touched.iter_mut().for_each(|w| *w = 0);
                }
            }
            Op::Wgmma(g) => {
                for i in lanes {
                    let t = &self.threads[i];
                    if !t.wg_fenced {
                        return Err(self.rt_err(
                            i,
                            pc,
                            "no `wgmma.fence` before the thread's first `wgmma.mma_async` (required, L26392; undefined otherwise, L26396)",
                        ));
                    }
                    let a: &[Src] = match &g.a {
                        WgmmaA::Regs(v) => v,
                        WgmmaA::Desc(_) => &[],
                    };
                    let touched = |k: usize| t.wg_touched.get(k / 64).is_some_and(|w| w >> (k % 64) & 1 != 0);
                    let hit =
                        g.c.iter()
                            .map(|s| (s, "accumulator"))
                            .chain(a.iter().map(|s| (s, "A fragment")))
                            .find(|(s, _)| matches!(s, Src::Reg(k) if touched(t.base + *k as usize)));
                    if let Some((_, what)) = hit {
                        return Err(self.rt_err(
                            i,
                            pc,
                            format!(
                                "an {what} register of this `wgmma.mma_async` was accessed since the thread's last `wgmma.fence`: a `wgmma.fence` must order the access before it (L26394; undefined otherwise, L26396)"
                            ),
                        ));
                    }
                }
            }
            _ => {
                let (reads, writes) = inst.slots();
                for i in lanes {
                    let t = &mut self.threads[i];
                    for k in reads.iter().chain(&writes) {
                        let k = t.base + *k as usize;
                        if t.wg_touched.len() <= k / 64 {
                            t.wg_touched.resize(k / 64 + 1, 0);
                        }
                        t.wg_touched[k / 64] |= 1 << (k % 64);
                    }
                }
            }
        }
        Ok(())
    }

    /// Re-evaluates the warp collective the furthest-behind waiting lanes are at; whether any lane
    /// could go on.
    fn retry_waiting(&mut self, lo: usize, hi: usize) -> Result<bool> {
        let waiting = (lo..hi).filter(|&i| self.threads[i].st == St::WarpWait);
        let Some(pc) = waiting.map(|i| self.threads[i].pc).min() else {
            return Ok(false);
        };
        let prog: &'p Program = self.m.prog;
        match &prog.code[pc as usize].op {
            Op::Warp { kind, form, dsts, srcs } => self.warp_op(lo, 0, pc, *kind, form, dsts, srcs)?,
            Op::WarpSync { mask } => self.warp_sync(lo, 0, pc, mask)?,
            Op::Matrix {
                op,
                form,
                dsts,
                srcs,
                addr,
            } => self.matrix_op(lo, 0, pc, op, form, dsts, srcs, addr.as_ref())?,
            Op::Wgmma(g) => self.wgmma_op(lo, 0, pc, g)?,
            Op::Cluster(c @ ClusterOp::Barrier { .. }) => self.cluster_op(lo, 0, 0, pc, c)?,
            op @ (Op::WgmmaFence | Op::WgmmaCommit | Op::WgmmaWait { .. }) => self.wgmma_control(lo, 0, pc, op)?,
            op @ Op::Setmaxnreg { .. } => self.control(lo, 0, pc, op)?,
            // Only warp collectives wait.
            _ => {
                let lane = (lo..hi)
                    .find(|&i| self.threads[i].st == St::WarpWait && self.threads[i].pc == pc)
                    .unwrap_or(lo);
                return Err(self.internal_err(
                    lane,
                    pc,
                    "a lane waits at an instruction that is not a warp collective",
                ));
            }
        }
        Ok((lo..hi).any(|i| self.threads[i].st == St::Run))
    }

    /// The lanes of the warp at `lo` that are at warp-wide instruction `pc` (`exec`, the lanes
    /// issuing it now, and, when `waiting`, those already waiting there: a `.sync` instruction's
    /// lanes wait for each other), and the lanes that have not exited, as masks.
    fn lanes_at(&self, lo: usize, exec: u32, pc: u32, waiting: bool) -> (u32, u32) {
        let hi = (lo + 32).min(self.threads.len());
        let mut here = exec;
        let mut live = 0u32;
        for (l, t) in self.threads[lo..hi].iter().enumerate() {
            if waiting && t.st == St::WarpWait && t.pc == pc {
                here |= 1 << l;
            }
            if t.st != St::Exited {
                live |= 1 << l;
            }
        }
        (here, live)
    }

    /// `bar.warp.sync`: lanes wait until every live lane of the mask is here.
    fn warp_sync(&mut self, lo: usize, exec: u32, pc: u32, mop: &Src) -> Result<()> {
        let (here, live) = self.lanes_at(lo, exec, pc, true);
        let Some(first) = (0..32).find(|l| here >> l & 1 != 0) else {
            return Ok(());
        };
        let mask = self.rd(&self.threads[lo + first], mop) as u32;
        if here & !mask != 0 {
            let l = (here & !mask).trailing_zeros() as usize;
            return Err(self.rt_err(
                lo + l,
                pc,
                format!("the executing lane {l} is not in membermask {mask:#010x}"),
            ));
        }
        // Like the other `.sync` collectives, only non-exited lanes of the mask take part (L12020).
        let all_here = mask & live & !here == 0;
        for l in 0..32 {
            if here >> l & 1 != 0 {
                let t = &mut self.threads[lo + l];
                if all_here {
                    t.st = St::Run;
                    t.pc += 1;
                    t.clock += 1;
                } else {
                    t.st = St::WarpWait;
                }
            }
        }
        Ok(())
    }
}

/// Where an access lands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Area {
    Global(usize),
    /// The running CTA's shared memory.
    Shared,
    /// The shared memory of another CTA of the cluster: its rank (`exec/cluster.rs`).
    Peer(u32),
    Const,
    KParam,
    Stack,
}

/// A `wmma` row (or column) of `len` bytes at `at` as (offset, length) pieces, each naturally
/// aligned: the manual aligns a row only to the fragment size (L20400), which may be less than
/// the row (f64 `m8n8k4`'s A: 8-byte fragments, 32-byte rows), and the spec
/// ([`spec::matrix::WmmaAccess::instance_addrs`]) has checked that alignment already.
fn row_pieces(at: u64, len: usize) -> impl Iterator<Item = (usize, usize)> {
    let piece = (1usize << at.trailing_zeros().min(len.trailing_zeros()).min(16))
        .min(len)
        .max(1);
    (0..len).step_by(piece).map(move |off| (off, piece.min(len - off)))
}

/// Orders threads by position: call sites outermost first, then the pc.
fn position_cmp(a: &Thread, b: &Thread) -> std::cmp::Ordering {
    if a.frames.is_empty() && b.frames.is_empty() {
        return a.pc.cmp(&b.pc);
    }
    let pa = a.frames.iter().map(|f| f.call_pc).chain(std::iter::once(a.pc));
    let pb = b.frames.iter().map(|f| f.call_pc).chain(std::iter::once(b.pc));
    pa.cmp(pb)
}

/// The elements of a gathered fragment matrix: fp6/fp4 elements of `.kind::f8f6f4` come out of
/// their 8-bit containers (L22916); every other element is its container.
fn contained(v: Vec<u64>, t: spec::tensor::Elem, bits: usize) -> Vec<u128> {
    match t {
        spec::tensor::Elem::Float(f) => v
            .into_iter()
            .map(|x| spec::tensor::element_of_container(f, bits, u128::from(x)))
            .collect(),
        _ => v.into_iter().map(u128::from).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A semantics function that breaks the spec's contract (no outcome for the destination).
    fn no_outcomes(_: &spec::catalog::Form, _: &Args) -> spec::value::Outcomes {
        Ok(Vec::new())
    }

    /// A semantics function that finds the operands break a rule of the manual.
    fn breaks_a_rule(_: &spec::catalog::Form, _: &Args) -> spec::value::Outcomes {
        Err(spec::value::EvalError::rule("operands against L1"))
    }

    /// Runs `add.s32 %r1, %r2, %r3` (line 7) with `sem` in place of its semantics: its error.
    fn run_add_with(sem: spec::eval::SemFn) -> Error {
        let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\nadd.s32 %r1, %r2, %r3;\n}\n";
        let m = crate::parse::parse(ptx).unwrap();
        let mut prog = crate::check::check_generic(&m).unwrap();
        let add = prog.code.iter_mut().find(|i| matches!(i.op, Op::Pure { .. })).unwrap();
        let Op::Pure { sem: s, .. } = &mut add.op else {
            unreachable!()
        };
        *s = sem;
        let mut machine = Machine::new(&prog).unwrap();
        machine
            .run(&Launch {
                entry: "k".into(),
                grid: [1, 1, 1],
                block: [1, 1, 1],
                params: Vec::new(),
                dyn_shared: 0,
                cluster: None,
                limits: Limits::default(),
            })
            .unwrap_err()
    }

    const DEFECT: &str = "(a defect of the oracle, not of the program: please report it)";

    #[test]
    fn a_broken_spec_contract_is_an_internal_error_not_a_program_fault() {
        let e = run_add_with(no_outcomes);
        assert_eq!(e.kind, ErrorKind::Internal, "{e}");
        assert_eq!(e.kind.name(), "internal");
        assert_eq!(e.loc, Some((7, 1)), "{e}");
        assert!(e.message.contains("gave 0 results for 1 destinations"), "{e}");
        assert!(e.message.ends_with(DEFECT), "{e}");
    }

    /// The spec's `Unhandled` (a form its function does not handle: here a conversion's
    /// semantics given `add.s32`) is a defect, not the program's fault.
    #[test]
    fn a_form_the_spec_does_not_handle_is_an_internal_error() {
        let cat = spec::catalog::catalog();
        let cvt = &cat.forms[cat.by_name("cvt.rzi.s32.f32")[0]];
        let e = run_add_with(spec::eval::semantics(cvt).unwrap());
        assert_eq!(e.kind, ErrorKind::Internal, "{e}");
        assert_eq!(e.loc, Some((7, 1)), "{e}");
        assert!(
            e.message.contains("`add.s32`: not a float-to-integer conversion"),
            "{e}"
        );
        assert!(e.message.ends_with(DEFECT), "{e}");
    }

    /// The spec's `Rule` (operands against a rule of the manual) is the program's fault.
    #[test]
    fn operands_against_a_rule_of_the_manual_are_a_runtime_error() {
        let e = run_add_with(breaks_a_rule);
        assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
        assert_eq!(e.loc, Some((7, 1)), "{e}");
        assert!(e.message.contains("operands against L1"), "{e}");
        assert!(!e.message.contains(DEFECT), "{e}");
    }
}
