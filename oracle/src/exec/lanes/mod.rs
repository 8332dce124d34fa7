//! [`super::Engine::Lanes`]: the interpreter with a warp's registers kept lane by lane (a register is
//! a row of 32 values, one per lane), so that a warp step of the hottest forms is one call of
//! a [`alu::LaneFn`] over the row (a loop the compiler vectorises) instead of 32 indirect calls
//! over 32 threads' register files.
//!
//! It is the reference's schedule exactly: the same warps in the same order, the same slices of
//! `SLICE` warp steps, the same group (the runnable lanes furthest behind, `Cta::run_warp`),
//! the same barrier releases and the same [`Stats`], so that programs whose warps communicate
//! through shared or global memory see the same interleaving. What it executes per lane (spec
//! semantics, memory accesses, calls, barriers, warp collectives) is the reference's code
//! rewritten over rows.
//!
//! What it does not execute is decided before running: a program with another operation
//! ([`Plan::of`]), a cluster of several CTAs, or a machine that perturbs, audits or has
//! discarded memory runs on the reference. Errors are the reference's too, by construction:
//! on any error (a fault of the program, a limit, a deadlock) the lanes engine undoes the
//! cluster's writes to global memory and hands the cluster back, and the reference runs it
//! again from its start and reports what it reports.

pub mod alu;

use super::{cluster, mask_bits, Area, Barrier, Env, Frame, Launch, Limits, Machine, St, Stats, SLICE};
use crate::mem::{self, Global};
use crate::program::*;
use spec::sreg::Place;
use spec::value::{Args, Input};
use std::sync::Arc;

/// How many clusters each engine ran under [`super::Engine::Lanes`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// Clusters the lanes engine ran to completion.
    pub lanes: u64,
    /// Clusters the reference ran: the program or launch is not one the lanes engine executes
    /// (decided before running), or the lanes engine met an error and handed the cluster back.
    pub reference: u64,
    /// Of `reference`: clusters the lanes engine started and handed back on an error.
    pub handed_back: u64,
}

/// A program translated for the lanes engine, once per [`Machine`].
#[derive(Clone)]
pub struct Plan(Arc<Code>);

struct Code {
    insts: Vec<LInst>,
    /// Immediate operands, each broadcast to a row.
    consts: Vec<[u64; 32]>,
    /// The program reads a clock (`%clock`, `%globaltimer`...): the threads' instruction counts
    /// are kept.
    clock: bool,
}

struct LInst {
    guard: Option<(u32, bool)>,
    kind: Kind,
    /// The reference's "straight-line" operations (`Cta::run_warp`'s shortcut).
    straight: bool,
}

#[derive(Clone, Copy)]
enum Opnd {
    /// A register row of the current frame.
    Reg(u32),
    /// A row of [`Code::consts`].
    Const(u32),
    /// A special register or frame address, read lane by lane.
    Lane(Src),
}

enum Kind {
    /// An [`Op::Fast`] with a lane function.
    Alu {
        f: alu::LaneFn,
        d: Dst,
        a: Opnd,
        b: Opnd,
        c: Opnd,
    },
    /// An [`Op::Fast`] without one: its scalar function lane by lane.
    Scalar {
        f: FastFn,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Bra {
        target: u32,
    },
    /// Any other supported operation, executed from the decoded program.
    Other,
}

impl Plan {
    /// The translation of `prog`, or `None` when it has an operation the lanes engine does not
    /// execute.
    pub fn of(prog: &Program) -> Option<Plan> {
        let mut consts: Vec<[u64; 32]> = Vec::new();
        let mut konst = |v: u64| -> Opnd {
            let k = match consts.iter().position(|r| r[0] == v) {
                Some(k) => k,
                None => {
                    consts.push([v; 32]);
                    consts.len() - 1
                }
            };
            Opnd::Const(k as u32)
        };
        let mut opnd = |s: &Src| match *s {
            Src::Reg(r) => Opnd::Reg(r),
            Src::Imm(v) => konst(v),
            other => Opnd::Lane(other),
        };
        let mut insts = Vec::with_capacity(prog.code.len());
        let mut clock = false;
        for inst in &prog.code {
            if !supported(&inst.op) {
                return None;
            }
            // Whether the program reads a clock: a special register is an operand written by
            // its name (`%clock`, `%clock64`, `%globaltimer`, `_lo`, `_hi`).
            clock |= inst.text.contains("%clock") || inst.text.contains("%globaltimer");
            let straight = matches!(
                inst.op,
                Op::Fast { .. }
                    | Op::Pure { .. }
                    | Op::Ld { .. }
                    | Op::St { .. }
                    | Op::Nop
                    | Op::Cvta { .. }
                    | Op::Isspacep { .. }
                    | Op::Atom { .. }
            );
            let kind = match &inst.op {
                Op::Fast { f, d, a, b, c } => match alu::of(*f) {
                    Some(lf) => Kind::Alu {
                        f: lf,
                        d: *d,
                        a: opnd(a),
                        b: opnd(b),
                        c: opnd(c),
                    },
                    None => Kind::Scalar {
                        f: *f,
                        d: *d,
                        a: *a,
                        b: *b,
                        c: *c,
                    },
                },
                Op::Bra { target } => Kind::Bra { target: *target },
                _ => Kind::Other,
            };
            insts.push(LInst {
                guard: inst.guard,
                kind,
                straight,
            });
        }
        Some(Plan(Arc::new(Code { insts, consts, clock })))
    }
}

/// The operations the lanes engine executes.
fn supported(op: &Op) -> bool {
    match op {
        Op::Fast { .. }
        | Op::Pure { .. }
        | Op::Ld { .. }
        | Op::St { .. }
        | Op::Cvta { .. }
        | Op::Isspacep { .. }
        | Op::Bra { .. }
        | Op::Brx { .. }
        | Op::Call { .. }
        | Op::Ret
        | Op::Exit
        | Op::Trap
        | Op::Nop
        | Op::ProxyFence { .. }
        | Op::Bar { .. }
        | Op::WarpSync { .. }
        | Op::Warp { .. } => true,
        Op::Atom { op, .. } => op.elem_bytes() != 16,
        _ => false,
    }
}

impl Machine<'_> {
    /// Whether [`super::Engine::Lanes`] executes this machine's program (else every cluster runs
    /// on the reference).
    pub fn lanes_supports(&self) -> bool {
        self.lanes_plan.get_or_init(|| Plan::of(self.prog)).is_some()
    }
}

/// Runs cluster `id` on the lanes engine if it can; whether it did (else nothing changed and
/// the reference runs it).
pub(super) fn run_cluster(
    m: &mut Machine<'_>,
    l: &Launch,
    entry: usize,
    geo: crate::cluster::Geometry,
    id: [u32; 3],
    stats: &mut Stats,
) -> bool {
    let prog = m.prog;
    let plan = m.lanes_plan.get_or_init(|| Plan::of(prog));
    let lone = geo.size() == 1
        && m.perturb.is_none()
        && m.audit.is_none()
        && m.undefined_fill.is_none()
        && m.discarded.is_empty();
    let (Some(plan), true) = (plan.as_ref(), lone) else {
        m.lanes_count.reference += 1;
        return false;
    };
    let plan = plan.0.clone();
    let start = *stats;
    let mut cta = Cta::new(prog, &plan, &mut m.global, &m.constant, l, entry, geo, id);
    cta.watch = m.watch.as_ref();
    let done = cta.run(stats);
    let undo = std::mem::take(&mut cta.undo);
    drop(cta);
    match done {
        Ok(()) => {
            m.lanes_count.lanes += 1;
            true
        }
        Err(Bail) => {
            undo.restore(&mut m.global);
            *stats = start;
            m.lanes_count.reference += 1;
            m.lanes_count.handed_back += 1;
            false
        }
    }
}

/// The lanes engine hands the cluster back to the reference (which reports the error).
#[derive(Debug)]
struct Bail;

type R<T> = std::result::Result<T, Bail>;

/// The old bytes of every global write of the cluster, to undo them.
#[derive(Default)]
struct Undo {
    /// (region, offset, length, start in `bytes`).
    spans: Vec<(usize, usize, usize, usize)>,
    bytes: Vec<u8>,
}

impl Undo {
    fn restore(self, g: &mut Global) {
        for &(k, off, n, at) in self.spans.iter().rev() {
            g.write(k, off, n).copy_from_slice(&self.bytes[at..at + n]);
        }
    }
}

/// A warp's state, lane by lane.
struct Warp {
    /// Lanes in the warp (the last warp of a block may have fewer than 32).
    n: usize,
    /// Register rows: the frames of calls in progress stacked as in a thread's register file.
    regs: Vec<[u64; 32]>,
    pc: [u32; 32],
    st: [St; 32],
    /// The current frame's first row, per lane.
    base: [u32; 32],
    /// The end of the lane's register file (the reference's `regs.len()`).
    rlen: [u32; 32],
    sbase: [u32; 32],
    clock: [u64; 32],
    /// Lanes with a call in progress.
    framed: u32,
    frames: Vec<Vec<Frame>>,
    stacks: Vec<Vec<u8>>,
    red_dst: [Option<Dst>; 32],
    tid: [[u32; 3]; 32],
}

struct Cta<'a> {
    /// What stops a speculative run early (`exec/parallel.rs`): asked between rounds, as the
    /// reference does; a stopped run is handed back, and the reference stops it again.
    watch: Option<&'a super::parallel::Watch>,
    prog: &'a Program,
    plan: &'a Code,
    global: &'a mut Global,
    constant: &'a [u8],
    kparams: &'a [u8],
    limits: Limits,
    env: Env,
    cluster: cluster::Cluster,
    shared: Vec<u8>,
    warps: Vec<Warp>,
    nthreads: usize,
    bars: Vec<Barrier>,
    undo: Undo,
    /// Rows of lane-by-lane operands ([`Opnd::Lane`]).
    scratch: [[u64; 32]; 3],
}

/// The lanes of `m`, lowest first.
fn bits(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

/// `d` of the lanes in `exec` gets `v`, as [`super::wr`] writes a register.
#[inline(always)]
fn put(row: &mut [u64; 32], v: &[u64; 32], exec: u32, d: &Dst) {
    let mask = mask_bits(d.bits);
    if d.sext > 0 && d.sext < 64 {
        let s = 64 - d.sext as u32;
        for l in 0..32 {
            let x = ((((v[l] << s) as i64) >> s) as u64) & mask;
            row[l] = if exec >> l & 1 != 0 { x } else { row[l] };
        }
    } else if exec == u32::MAX {
        for l in 0..32 {
            row[l] = v[l] & mask;
        }
    } else {
        for l in 0..32 {
            row[l] = if exec >> l & 1 != 0 { v[l] & mask } else { row[l] };
        }
    }
}

impl<'a> Cta<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        prog: &'a Program,
        plan: &'a Code,
        global: &'a mut Global,
        constant: &'a [u8],
        l: &'a Launch,
        entry: usize,
        geo: crate::cluster::Geometry,
        id: [u32; 3],
    ) -> Cta<'a> {
        let func = &prog.funcs[entry];
        let shared = vec![0u8; (prog.shared_bytes + l.dyn_shared as u64) as usize];
        let sbase = prog.local_bytes.div_ceil(16) * 16;
        let mut tids = Vec::new();
        for z in 0..l.block[2] {
            for y in 0..l.block[1] {
                for x in 0..l.block[0] {
                    tids.push([x, y, z]);
                }
            }
        }
        let nthreads = tids.len();
        let warps = tids
            .chunks(32)
            .map(|c| {
                let n = c.len();
                let mut tid = [[0; 3]; 32];
                tid[..n].copy_from_slice(c);
                Warp {
                    n,
                    regs: vec![[0; 32]; func.nregs as usize],
                    pc: [func.start; 32],
                    st: std::array::from_fn(|l| if l < n { St::Run } else { St::Exited }),
                    base: [0; 32],
                    rlen: [func.nregs; 32],
                    sbase: [sbase; 32],
                    clock: [0; 32],
                    framed: 0,
                    frames: (0..n).map(|_| Vec::new()).collect(),
                    stacks: (0..n).map(|_| vec![0; (sbase + func.frame_bytes) as usize]).collect(),
                    red_dst: [None; 32],
                    tid,
                }
            })
            .collect();
        let ctaid = geo.ctaid(id, 0);
        Cta {
            watch: None,
            prog,
            plan,
            global,
            constant,
            kparams: &l.params,
            limits: l.limits,
            env: Env {
                ctaid,
                ntid: l.block,
                nctaid: l.grid,
                dyn_shared: l.dyn_shared,
                total_shared: shared.len() as u32,
            },
            cluster: cluster::Cluster::new(geo, id, Vec::new()),
            shared,
            warps,
            nthreads,
            bars: vec![Barrier::default(); 16],
            undo: Undo::default(),
            scratch: [[0; 32]; 3],
        }
    }

    /// [`super::Cta::run`] for a lone CTA.
    fn run(&mut self, stats: &mut Stats) -> R<()> {
        loop {
            if self.watch.is_some_and(|w| w.over(stats.thread_instructions)) {
                return Err(Bail);
            }
            let mut progress = false;
            for w in 0..self.warps.len() {
                progress |= self.run_warp(w, stats)?;
            }
            progress |= self.release_barriers();
            if self.warps.iter().all(|w| w.st[..w.n].iter().all(|s| *s == St::Exited)) {
                return Ok(());
            }
            if !progress {
                return Err(Bail);
            }
        }
    }

    /// Lane `i` before lane `j` by position ([`super::position_cmp`]).
    fn position_cmp(wp: &Warp, i: usize, j: usize) -> std::cmp::Ordering {
        let pi = wp.frames[i].iter().map(|f| f.call_pc).chain(std::iter::once(wp.pc[i]));
        let pj = wp.frames[j].iter().map(|f| f.call_pc).chain(std::iter::once(wp.pc[j]));
        pi.cmp(pj)
    }

    /// [`super::Cta::run_warp`].
    fn run_warp(&mut self, w: usize, stats: &mut Stats) -> R<bool> {
        let mut ran = false;
        // The group of the next step when it is known without a scan (the reference's
        // shortcut), and their pc while it is not written to the lanes.
        let mut known: Option<u32> = None;
        let mut lazy: Option<u32> = None;
        for _ in 0..SLICE {
            let (mask, runnable) = match known.take() {
                Some(mask) => (mask, mask),
                None => {
                    let wp = &self.warps[w];
                    let mut runnable = 0u32;
                    for l in 0..32 {
                        runnable |= ((wp.st[l] == St::Run) as u32) << l;
                    }
                    let mask = if runnable == 0 {
                        0
                    } else if wp.framed & runnable == 0 {
                        let mut best = u32::MAX;
                        for l in 0..32 {
                            if runnable >> l & 1 != 0 {
                                best = best.min(wp.pc[l]);
                            }
                        }
                        let mut mask = 0u32;
                        for l in 0..32 {
                            mask |= ((wp.pc[l] == best) as u32) << l;
                        }
                        mask & runnable
                    } else {
                        let mut b = runnable.trailing_zeros() as usize;
                        let mut mask = 1u32 << b;
                        for l in bits(runnable & !(mask | (mask - 1))) {
                            match Self::position_cmp(wp, l, b) {
                                std::cmp::Ordering::Less => {
                                    b = l;
                                    mask = 1 << l;
                                }
                                std::cmp::Ordering::Equal => mask |= 1 << l,
                                std::cmp::Ordering::Greater => {}
                            }
                        }
                        mask
                    };
                    if mask == 0 {
                        if self.retry_waiting(w)? {
                            ran = true;
                            continue;
                        }
                        break;
                    }
                    (mask, runnable)
                }
            };
            ran = true;
            stats.thread_instructions += mask.count_ones() as u64;
            stats.warp_instructions += 1;
            if stats.thread_instructions > self.limits.steps {
                return Err(Bail);
            }
            let b = mask.trailing_zeros() as usize;
            let pc = lazy.unwrap_or(self.warps[w].pc[b]);
            let next = self.step(w, mask, pc, lazy.take().is_some())?;
            let straight = mask == runnable
                && match self.plan.insts[pc as usize].kind {
                    Kind::Bra { .. } => {
                        let wp = &self.warps[w];
                        next.is_some() || {
                            let first = wp.pc[b];
                            bits(mask).all(|l| wp.pc[l] == first)
                        }
                    }
                    _ => self.plan.insts[pc as usize].straight,
                };
            if straight {
                known = Some(mask);
                lazy = next;
            } else if let Some(p) = next {
                self.set_pc(w, mask, p);
            }
        }
        if let (Some(mask), Some(p)) = (known, lazy) {
            self.set_pc(w, mask, p);
        }
        Ok(ran)
    }

    /// Lanes `m` move past the instruction at `pc`.
    #[inline(always)]
    fn advance(&mut self, w: usize, m: u32, pc: u32) {
        self.set_pc(w, m, pc + 1);
        if self.plan.clock {
            let wp = &mut self.warps[w];
            for l in 0..32 {
                wp.clock[l] += (m >> l & 1) as u64;
            }
        }
    }

    /// Lanes `m` are at `pc`.
    #[inline(always)]
    fn set_pc(&mut self, w: usize, m: u32, pc: u32) {
        let wp = &mut self.warps[w];
        for l in 0..32 {
            wp.pc[l] = if m >> l & 1 != 0 { pc } else { wp.pc[l] };
        }
    }

    /// After a step of lanes `mask` that leaves them together: `Some(pc)`, their pc, not yet
    /// written to the lanes (the clock is not kept), else `None` (written).
    #[inline(always)]
    fn moved(&mut self, w: usize, mask: u32, pc: u32) -> Option<u32> {
        if self.plan.clock {
            self.advance(w, mask, pc);
            None
        } else {
            Some(pc + 1)
        }
    }

    /// Scratch row `k` gets operand `s` of every lane of warp `w`.
    #[cold]
    fn fill(&mut self, w: usize, k: usize, s: &Src) {
        let mut row = [0u64; 32];
        for (l, x) in row.iter_mut().enumerate().take(self.warps[w].n) {
            *x = self.rd(w, l, s);
        }
        self.scratch[k] = row;
    }

    /// The row of operand `o` (number `k`) for the lanes of warp `w` whose frame starts at row
    /// `base` (a lane-by-lane operand: [`Cta::fill`] first).
    #[inline(always)]
    fn row(&self, w: usize, base: usize, o: Opnd, k: usize) -> &[u64; 32] {
        match o {
            Opnd::Reg(r) => &self.warps[w].regs[base + r as usize],
            Opnd::Const(c) => &self.plan.consts[c as usize],
            Opnd::Lane(_) => &self.scratch[k],
        }
    }

    /// Executes the instruction at `pc` for the lanes of warp `w` in `mask` (`stale`: their pc
    /// is not written yet); `Some(pc)` when they are all at `pc` after it, not yet written.
    fn step(&mut self, w: usize, mask: u32, pc: u32, stale: bool) -> R<Option<u32>> {
        let plan = self.plan;
        let inst = &plan.insts[pc as usize];
        let b = mask.trailing_zeros() as usize;
        let base = self.warps[w].base[b] as usize;
        let mut exec = mask;
        if let Some((p, neg)) = inst.guard {
            let row = &self.warps[w].regs[base + p as usize];
            let mut on = 0u32;
            for (l, v) in row.iter().enumerate() {
                on |= ((*v & 1) as u32) << l;
            }
            exec &= if neg { !on } else { on };
        }
        match &inst.kind {
            Kind::Alu { f, d, a, b, c } => {
                if exec != 0 && d.slot != u32::MAX {
                    for (k, o) in [a, b, c].into_iter().enumerate() {
                        if let Opnd::Lane(s) = o {
                            self.fill(w, k, s);
                        }
                    }
                    let mut out = [0u64; 32];
                    {
                        let (ra, rb, rc) = (
                            self.row(w, base, *a, 0),
                            self.row(w, base, *b, 1),
                            self.row(w, base, *c, 2),
                        );
                        f(&mut out, ra, rb, rc);
                    }
                    put(&mut self.warps[w].regs[base + d.slot as usize], &out, exec, d);
                }
                Ok(self.moved(w, mask, pc))
            }
            Kind::Scalar { f, d, a, b, c } => {
                for l in bits(exec) {
                    let v = f(self.rd(w, l, a), self.rd(w, l, b), self.rd(w, l, c));
                    self.wr(w, l, d, v);
                }
                Ok(self.moved(w, mask, pc))
            }
            Kind::Bra { target } => {
                if plan.clock {
                    let wp = &mut self.warps[w];
                    for l in 0..32 {
                        wp.clock[l] += (mask >> l & 1) as u64;
                    }
                }
                if exec == mask {
                    Ok(Some(*target))
                } else if exec == 0 {
                    Ok(Some(pc + 1))
                } else {
                    self.set_pc(w, exec, *target);
                    self.set_pc(w, mask & !exec, pc + 1);
                    Ok(None)
                }
            }
            Kind::Other => {
                if stale {
                    self.set_pc(w, mask, pc);
                }
                self.advance(w, mask & !exec, pc);
                self.other(w, exec, pc)?;
                Ok(None)
            }
        }
    }

    /// Operand `s` in lane `l` of warp `w` (the reference's `Cta::rd`).
    #[inline]
    fn rd(&self, w: usize, l: usize, s: &Src) -> u64 {
        let wp = &self.warps[w];
        match *s {
            Src::Reg(r) => wp.regs[wp.base[l] as usize + r as usize][l],
            Src::Imm(v) => v,
            Src::Frame(off) => (wp.sbase[l] + off) as u64,
            Src::Sreg(sr) => self.sreg(w, l, sr),
        }
    }

    /// The reference's `wr` in lane `l`.
    #[inline]
    fn wr(&mut self, w: usize, l: usize, d: &Dst, v: u64) {
        if d.slot == u32::MAX {
            return;
        }
        let v = if d.sext > 0 && d.sext < 64 {
            let s = 64 - d.sext as u32;
            (((v << s) as i64) >> s) as u64
        } else {
            v
        };
        let wp = &mut self.warps[w];
        let at = wp.base[l] as usize + d.slot as usize;
        wp.regs[at][l] = v & mask_bits(d.bits);
    }

    /// The reference's `Cta::sreg`.
    fn sreg(&self, w: usize, l: usize, s: Sreg) -> u64 {
        let wp = &self.warps[w];
        let lane = l as u32;
        let e = &self.env;
        let clock = wp.clock[l];
        match s {
            Sreg::Tid(_) | Sreg::Ntid(_) | Sreg::Ctaid(_) | Sreg::Nctaid(_) | Sreg::Laneid | Sreg::Warpid => {
                let place = Place {
                    tid: wp.tid[l],
                    ntid: e.ntid,
                    ctaid: e.ctaid,
                    nctaid: e.nctaid,
                };
                s.at(&place).unwrap_or(0)
            }
            Sreg::Nwarpid => 64,
            Sreg::Smid => 0,
            Sreg::Nsmid => 1,
            Sreg::Gridid => 1,
            Sreg::LanemaskEq => 1u64 << lane,
            Sreg::LanemaskLe => (1u64 << (lane + 1)) - 1,
            Sreg::LanemaskLt => (1u64 << lane) - 1,
            Sreg::LanemaskGe => !((1u64 << lane) - 1) & 0xffff_ffff,
            Sreg::LanemaskGt => !((1u64 << (lane + 1)) - 1) & 0xffff_ffff,
            Sreg::Clock => clock & 0xffff_ffff,
            Sreg::Clock64 | Sreg::Globaltimer => clock,
            Sreg::GlobaltimerLo => clock & 0xffff_ffff,
            Sreg::GlobaltimerHi => clock >> 32,
            Sreg::DynamicSmemSize => e.dyn_shared as u64,
            Sreg::TotalSmemSize => e.total_shared as u64,
            Sreg::Envreg(_) => 0,
            Sreg::IsExplicitCluster
            | Sreg::Clusterid(_)
            | Sreg::Nclusterid(_)
            | Sreg::ClusterCtaid(_)
            | Sreg::ClusterNctaid(_)
            | Sreg::ClusterCtarank
            | Sreg::ClusterNctarank => self.cluster.sreg(s),
        }
    }

    /// The operations without a translation of their own, lanes `exec` (the reference's
    /// `Cta::step`, lane by lane).
    fn other(&mut self, w: usize, exec: u32, pc: u32) -> R<()> {
        let prog: &'a Program = self.prog;
        match &prog.code[pc as usize].op {
            Op::Pure {
                form,
                sem,
                dsts,
                srcs,
                dsel,
            } => {
                let mut small = [Input::default(); 8];
                let mut large = Vec::new();
                let ins: &mut [Input] = if srcs.len() <= small.len() {
                    &mut small[..srcs.len()]
                } else {
                    large.resize(srcs.len(), Input::default());
                    &mut large
                };
                for l in bits(exec) {
                    for (k, s) in srcs.iter().enumerate() {
                        let bits = match s.src {
                            Src::Reg(r) if s.bits == 128 => {
                                let wp = &self.warps[w];
                                let at = wp.base[l] as usize + r as usize;
                                wp.regs[at][l] as u128 | (wp.regs[at + 1][l] as u128) << 64
                            }
                            src => self.rd(w, l, &src) as u128,
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
                    let out = sem(form, &Args { ins, dsel: *dsel }).map_err(|_| Bail)?;
                    if out.len() != dsts.len() {
                        return Err(Bail);
                    }
                    for (d, o) in dsts.iter().zip(&out) {
                        let v = o.model;
                        if d.bits == 128 && d.slot != u32::MAX {
                            let wp = &mut self.warps[w];
                            let at = wp.base[l] as usize + d.slot as usize;
                            wp.regs[at][l] = v as u64;
                            wp.regs[at + 1][l] = (v >> 64) as u64;
                        } else {
                            self.wr(w, l, d, v as u64);
                        }
                    }
                }
                self.advance(w, exec, pc);
            }
            Op::Ld { space, ty, dsts, addr } => {
                let n = dsts.len();
                let bytes = ty.bytes as usize;
                for l in bits(exec) {
                    let a = self.address(w, l, addr);
                    let mut buf = [0u8; 64];
                    self.load(w, l, *space, a, &mut buf[..bytes * n])?;
                    for (k, d) in dsts.iter().enumerate() {
                        let mut b = [0u8; 8];
                        b[..bytes].copy_from_slice(&buf[k * bytes..(k + 1) * bytes]);
                        self.wr(w, l, d, u64::from_le_bytes(b));
                    }
                }
                self.advance(w, exec, pc);
            }
            Op::St {
                space,
                bytes,
                srcs,
                addr,
            } => {
                let bytes = *bytes as usize;
                for l in bits(exec) {
                    let a = self.address(w, l, addr);
                    let mut buf = [0u8; 64];
                    for (k, s) in srcs.iter().enumerate() {
                        let v = self.rd(w, l, s);
                        buf[k * bytes..(k + 1) * bytes].copy_from_slice(&v.to_le_bytes()[..bytes]);
                    }
                    self.store(w, l, *space, a, &buf[..bytes * srcs.len()])?;
                }
                self.advance(w, exec, pc);
            }
            Op::Cvta {
                space,
                to_generic,
                d,
                a,
            } => {
                for l in bits(exec) {
                    let v = self.rd(w, l, a);
                    let v = if *to_generic {
                        prog.windows.to_generic(*space, v)
                    } else {
                        prog.windows.from_generic(*space, v)
                    };
                    self.wr(w, l, d, v);
                }
                self.advance(w, exec, pc);
            }
            Op::Isspacep { space, d, a } => {
                // In a lone CTA no shared address is a peer's (`Cta::in_space`).
                for l in bits(exec) {
                    let v = prog.windows.is_in(*space, self.rd(w, l, a)) as u64;
                    self.wr(w, l, d, v);
                }
                self.advance(w, exec, pc);
            }
            Op::Bra { .. } => unreachable!("translated"),
            Op::Brx { index, targets } => {
                for l in bits(exec) {
                    let k = self.rd(w, l, index) as u32 as usize;
                    let tg = *targets.get(k).ok_or(Bail)?;
                    let clock = self.plan.clock;
                    let wp = &mut self.warps[w];
                    wp.pc[l] = tg;
                    wp.clock[l] += clock as u64;
                }
            }
            Op::Call { callee, args, .. } => {
                for l in bits(exec) {
                    self.call(w, l, pc, callee, args)?;
                }
            }
            Op::Ret => {
                for l in bits(exec) {
                    self.ret(w, l);
                }
                self.release_barriers();
            }
            Op::Exit => {
                for l in bits(exec) {
                    self.warps[w].st[l] = St::Exited;
                }
                self.release_barriers();
            }
            Op::Trap => {
                if exec != 0 {
                    return Err(Bail);
                }
            }
            Op::Nop | Op::ProxyFence { .. } => self.advance(w, exec, pc),
            Op::Bar { op, id, count, pred, d } => {
                for l in bits(exec) {
                    self.bar_arrive(w, l, pc, *op, id, count.as_ref(), pred.as_ref(), *d)?;
                }
                self.release_barriers();
            }
            Op::Atom {
                op,
                space,
                d,
                addr,
                b,
                c,
            } => {
                for l in bits(exec) {
                    self.atom(w, l, op, *space, d, addr, b, c)?;
                }
                self.advance(w, exec, pc);
            }
            Op::Warp {
                kind,
                form: _,
                dsts,
                srcs,
            } => self.warp_op(w, exec, pc, *kind, dsts, srcs)?,
            Op::WarpSync { mask } => self.warp_sync(w, exec, pc, mask)?,
            _ => return Err(Bail),
        }
        Ok(())
    }

    fn address(&self, w: usize, l: usize, a: &Addr) -> u64 {
        let wp = &self.warps[w];
        match *a {
            Addr::Reg(r, off) => {
                wp.regs[wp.base[l] as usize + r as usize][l].wrapping_add(off as u64) & self.prog.windows.mask
            }
            Addr::Abs(x) => x,
            Addr::Frame(o, off) => (wp.sbase[l] as u64 + o as u64).wrapping_add(off as u64),
        }
    }

    /// The reference's `Cta::locate` in a lone CTA; any error hands the cluster back.
    fn locate(&self, w: usize, l: usize, space: Space, addr: u64, len: usize, write: bool) -> R<(Area, usize)> {
        let (space, a) = match space {
            Space::Generic => match self.prog.windows.resolve_generic(addr) {
                Some((Space::Shared, a)) => (Space::SharedCluster, a),
                Some(x) => x,
                None => return Err(Bail),
            },
            s => (s, addr),
        };
        if len.is_power_of_two() && a % len as u64 != 0 {
            return Err(Bail);
        }
        let within = |base: u64, size: usize| -> R<usize> {
            let off = a.wrapping_sub(base);
            match (off as usize).checked_add(len) {
                Some(e) if off < size as u64 && e <= size => Ok(off as usize),
                _ => Err(Bail),
            }
        };
        // `Cta::shared_area` of a cluster of one CTA: its own window, or rank 0's.
        let shared_area = |a: u64| -> R<(Area, usize)> {
            let off = if self.prog.sm >= 90 {
                match crate::cluster::decode(a) {
                    Some(crate::cluster::Target::Own(o)) | Some(crate::cluster::Target::Rank(0, o)) => o,
                    _ => return Err(Bail),
                }
            } else {
                a
            };
            match (off as usize).checked_add(len) {
                Some(e) if off < self.shared.len() as u64 && e <= self.shared.len() => Ok((Area::Shared, off as usize)),
                _ => Err(Bail),
            }
        };
        match space {
            Space::Global => self
                .global
                .find(a, len)
                .map(|(k, off)| (Area::Global(k), off))
                .map_err(|_| Bail),
            Space::Shared => match within(0, self.shared.len()) {
                Ok(o) => Ok((Area::Shared, o)),
                Err(_) if a < crate::cluster::OWN_WINDOW => Err(Bail),
                Err(_) => shared_area(a),
            },
            Space::SharedCluster => shared_area(a),
            Space::Const if write => Err(Bail),
            Space::Const => within(0, self.constant.len()).map(|o| (Area::Const, o)),
            Space::Param if a >= mem::KPARAM => {
                if write {
                    Err(Bail)
                } else {
                    within(mem::KPARAM, self.kparams.len()).map(|o| (Area::KParam, o))
                }
            }
            Space::Local | Space::Param => within(0, self.warps[w].stacks[l].len()).map(|o| (Area::Stack, o)),
            Space::Generic => unreachable!("resolved above"),
        }
    }

    fn load(&self, w: usize, l: usize, space: Space, addr: u64, out: &mut [u8]) -> R<()> {
        let (area, off) = self.locate(w, l, space, addr, out.len(), false)?;
        let n = out.len();
        out.copy_from_slice(match area {
            Area::Global(k) => self.global.read(k, off, n),
            Area::Shared => &self.shared[off..off + n],
            Area::Const => &self.constant[off..off + n],
            Area::KParam => &self.kparams[off..off + n],
            Area::Stack => &self.warps[w].stacks[l][off..off + n],
            Area::Peer(_) => return Err(Bail),
        });
        Ok(())
    }

    fn store(&mut self, w: usize, l: usize, space: Space, addr: u64, data: &[u8]) -> R<()> {
        let (area, off) = self.locate(w, l, space, addr, data.len(), true)?;
        let n = data.len();
        match area {
            Area::Global(k) => {
                let at = self.undo.bytes.len();
                let dst = self.global.write(k, off, n);
                self.undo.bytes.extend_from_slice(dst);
                self.undo.spans.push((k, off, n, at));
                dst.copy_from_slice(data);
            }
            Area::Shared => self.shared[off..off + n].copy_from_slice(data),
            Area::Stack => self.warps[w].stacks[l][off..off + n].copy_from_slice(data),
            Area::Const | Area::KParam | Area::Peer(_) => return Err(Bail),
        }
        Ok(())
    }

    /// The reference's `Cta::atom` (elements of at most 8 bytes).
    #[allow(clippy::too_many_arguments)]
    fn atom(
        &mut self,
        w: usize,
        l: usize,
        op: &spec::atom::AtomOp,
        space: Space,
        d: &[Dst],
        addr: &Addr,
        b: &[Src],
        c: &[Src],
    ) -> R<()> {
        let a = self.address(w, l, addr);
        let (space, a) = match space {
            Space::Generic => match self.prog.windows.resolve_generic(a) {
                Some((Space::Shared, a)) => (Space::SharedCluster, a),
                Some(x) => x,
                None => return Err(Bail),
            },
            s => (s, a),
        };
        let aspace = match space {
            Space::Global => spec::atom::AtomSpace::Global,
            Space::Shared | Space::SharedCluster => spec::atom::AtomSpace::Shared,
            _ => return Err(Bail),
        };
        let eb = op.elem_bytes() as usize;
        if eb == 16 {
            return Err(Bail);
        }
        let n = b.len();
        let mut buf = [0u8; 64];
        self.load(w, l, space, a, &mut buf[..eb * n])?;
        let cv = self.rd(w, l, &c[0]) as u128;
        let mut olds = [0u64; 8];
        let mut new = [0u8; 64];
        for k in 0..n {
            let mut e = [0u8; 8];
            e[..eb].copy_from_slice(&buf[k * eb..(k + 1) * eb]);
            let old = u64::from_le_bytes(e);
            olds[k] = old;
            let bv = self.rd(w, l, &b[k]) as u128;
            let out = spec::atom::apply(op, aspace, old as u128, bv, cv);
            new[k * eb..(k + 1) * eb].copy_from_slice(&(out.model as u64).to_le_bytes()[..eb]);
        }
        self.store(w, l, space, a, &new[..eb * n])?;
        for (dst, v) in d.iter().zip(olds) {
            self.wr(w, l, dst, v);
        }
        Ok(())
    }

    /// The reference's `Cta::call`; its errors hand the cluster back.
    fn call(&mut self, w: usize, l: usize, pc: u32, callee: &Callee, args: &[Arg]) -> R<()> {
        let prog: &'a Program = self.prog;
        let f = match callee {
            Callee::Direct(f) => *f,
            Callee::Indirect { fptr, params, rets } => {
                let a = self.rd(w, l, fptr) & prog.windows.mask;
                let k = a.wrapping_sub(prog.windows.func);
                let f = (k / 16) as usize;
                if a < prog.windows.func || !k.is_multiple_of(16) || f >= prog.funcs.len() || prog.funcs[f].entry {
                    return Err(Bail);
                }
                let func = &prog.funcs[f];
                let ps: Vec<u32> = func.params.iter().map(|p| p.1).collect();
                let rs: Vec<u32> = func.rets.iter().map(|p| p.1).collect();
                if &ps != params || &rs != rets {
                    return Err(Bail);
                }
                f as u32
            }
        };
        let func = &prog.funcs[f as usize];
        if !func.defined {
            return Err(Bail);
        }
        let mut arg_bytes: Vec<(u32, Vec<u8>)> = Vec::with_capacity(args.len());
        {
            let wp = &self.warps[w];
            let stack = &wp.stacks[l];
            let new_sbase = stack.len().div_ceil(16) * 16;
            if new_sbase + func.frame_bytes as usize > self.limits.stack as usize {
                return Err(Bail);
            }
            for (a, &(off, size)) in args.iter().zip(&func.params) {
                let bytes = match a {
                    Arg::Frame(o, sz) => {
                        let s = (wp.sbase[l] + o) as usize;
                        stack[s..s + *sz as usize].to_vec()
                    }
                    Arg::Val(src) => self.rd(w, l, src).to_le_bytes()[..size as usize].to_vec(),
                };
                arg_bytes.push((off, bytes));
            }
        }
        let clock = self.plan.clock;
        let wp = &mut self.warps[w];
        let stack = &mut wp.stacks[l];
        let new_sbase = stack.len().div_ceil(16) * 16;
        stack.resize(new_sbase + func.frame_bytes as usize, 0);
        for (off, b) in arg_bytes {
            let s = new_sbase + off as usize;
            stack[s..s + b.len()].copy_from_slice(&b);
        }
        wp.frames[l].push(Frame {
            call_pc: pc,
            caller_base: wp.base[l] as usize,
            caller_sbase: wp.sbase[l],
            callee: f,
        });
        wp.framed |= 1 << l;
        let base = wp.rlen[l];
        let end = base + func.nregs;
        if wp.regs.len() < end as usize {
            wp.regs.resize(end as usize, [0; 32]);
        }
        for r in base..end {
            wp.regs[r as usize][l] = 0;
        }
        wp.base[l] = base;
        wp.rlen[l] = end;
        wp.sbase[l] = new_sbase as u32;
        wp.pc[l] = func.start;
        wp.clock[l] += clock as u64;
        Ok(())
    }

    /// The reference's `Cta::ret`.
    fn ret(&mut self, w: usize, l: usize) {
        let prog: &'a Program = self.prog;
        let clock = self.plan.clock;
        let wp = &mut self.warps[w];
        let Some(fr) = wp.frames[l].pop() else {
            wp.st[l] = St::Exited;
            return;
        };
        if wp.frames[l].is_empty() {
            wp.framed &= !(1 << l);
        }
        let Op::Call { rets, .. } = &prog.code[fr.call_pc as usize].op else {
            unreachable!("frames are pushed by calls")
        };
        let func = &prog.funcs[fr.callee as usize];
        for (r, &(off, size)) in rets.iter().zip(&func.rets) {
            let s = (wp.sbase[l] + off) as usize;
            match r {
                RetTo::Frame(o, _) => {
                    let d = (fr.caller_sbase + o) as usize;
                    wp.stacks[l].copy_within(s..s + size as usize, d);
                }
                RetTo::Reg(dst) => {
                    let mut b = [0u8; 8];
                    b[..size as usize].copy_from_slice(&wp.stacks[l][s..s + size as usize]);
                    let v = u64::from_le_bytes(b);
                    if dst.slot != u32::MAX {
                        let v = if dst.sext > 0 && dst.sext < 64 {
                            let sh = 64 - dst.sext as u32;
                            (((v << sh) as i64) >> sh) as u64
                        } else {
                            v
                        };
                        wp.regs[fr.caller_base + dst.slot as usize][l] = v & mask_bits(dst.bits);
                    }
                }
            }
        }
        wp.rlen[l] = wp.base[l];
        let sb = wp.sbase[l] as usize;
        wp.stacks[l].truncate(sb);
        wp.base[l] = fr.caller_base as u32;
        wp.sbase[l] = fr.caller_sbase;
        wp.pc[l] = fr.call_pc + 1;
        wp.clock[l] += clock as u64;
    }

    /// The reference's `Cta::bar_arrive`.
    #[allow(clippy::too_many_arguments)]
    fn bar_arrive(
        &mut self,
        w: usize,
        l: usize,
        pc: u32,
        op: BarOp,
        id: &Src,
        count: Option<&Src>,
        pred: Option<&(Src, bool)>,
        d: Option<Dst>,
    ) -> R<()> {
        let b = self.rd(w, l, id);
        if b >= 16 {
            return Err(Bail);
        }
        let cnt = count.map(|c| self.rd(w, l, c) as u32);
        if let Some(c) = cnt {
            if c == 0 || c % 32 != 0 || c as usize > self.nthreads.div_ceil(32) * 32 {
                return Err(Bail);
            }
        }
        let p = pred.map(|(s, neg)| (self.rd(w, l, s) & 1 != 0) ^ neg);
        let bar = &mut self.bars[b as usize];
        if let (Some(c), Some(e)) = (cnt, bar.expected) {
            if c != e {
                return Err(Bail);
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
        self.advance(w, 1 << l, pc);
        if op != BarOp::Arrive {
            let wp = &mut self.warps[w];
            wp.st[l] = St::Bar(b as u8);
            wp.red_dst[l] = d;
            self.bars[b as usize].waiting.push(w * 32 + l);
        }
        Ok(())
    }

    /// The reference's `Cta::release_barriers`.
    fn release_barriers(&mut self) -> bool {
        let live = self
            .warps
            .iter()
            .map(|w| w.st[..w.n].iter().filter(|s| **s != St::Exited).count())
            .sum::<usize>() as u32;
        let mut any = false;
        for b in 0..self.bars.len() {
            let bar = &self.bars[b];
            if bar.arrived == 0 {
                continue;
            }
            let expected = bar.expected.unwrap_or(live);
            if bar.arrived < expected {
                continue;
            }
            let bar = std::mem::take(&mut self.bars[b]);
            for &i in &bar.waiting {
                let (w, l) = (i / 32, i % 32);
                self.warps[w].st[l] = St::Run;
                if let Some(d) = self.warps[w].red_dst[l].take() {
                    let v = match bar.op {
                        Some(BarOp::RedPopc) => bar.popc as u64,
                        Some(BarOp::RedAnd) => bar.and as u64,
                        _ => bar.or as u64,
                    };
                    self.wr(w, l, &d, v);
                }
            }
            any = true;
        }
        any
    }

    /// The reference's `Cta::lanes_at`.
    fn lanes_at(&self, w: usize, exec: u32, pc: u32, waiting: bool) -> (u32, u32) {
        let wp = &self.warps[w];
        let mut here = exec;
        let mut live = 0u32;
        for l in 0..wp.n {
            if waiting && wp.st[l] == St::WarpWait && wp.pc[l] == pc {
                here |= 1 << l;
            }
            if wp.st[l] != St::Exited {
                live |= 1 << l;
            }
        }
        (here, live)
    }

    /// The reference's `Cta::warp_op`. Every lane's operands are read, so every lane must be in
    /// the kernel's own frame (else the cluster is handed back).
    fn warp_op(&mut self, w: usize, exec: u32, pc: u32, kind: WarpKind, dsts: &[Dst], srcs: &[PureIn]) -> R<()> {
        use spec::warp;
        let n = self.warps[w].n;
        if self.warps[w].framed != 0 {
            return Err(Bail);
        }
        let sync = match kind {
            WarpKind::Shfl(_, s) | WarpKind::Vote(_, s) => s,
            WarpKind::Activemask => false,
            _ => true,
        };
        let (here, live) = self.lanes_at(w, exec, pc, sync);
        if here == 0 {
            return Ok(());
        }
        let mut vals = [[0u64; 32]; 4];
        for (k, s) in srcs.iter().enumerate().take(4) {
            for (l, x) in vals[k].iter_mut().enumerate().take(n) {
                let v = self.rd(w, l, &s.src);
                *x = if s.bits >= 64 { v } else { v & ((1u64 << s.bits) - 1) };
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
                for l in bits(here) {
                    self.warps[w].st[l] = St::WarpWait;
                }
                return Ok(());
            }
            for m in mm.iter_mut() {
                *m &= live;
            }
        }
        let u32s = |k: usize| std::array::from_fn::<u32, 32, _>(|l| vals[k][l] as u32);
        let form = match &self.prog.code[pc as usize].op {
            Op::Warp { form, .. } => *form,
            _ => return Err(Bail),
        };
        let res: [(u64, bool); 32] = match kind {
            WarpKind::Shfl(mode, true) => {
                let r = warp::shfl_sync(mode, here, &mm, &u32s(0), &u32s(1), &u32s(2)).map_err(|_| Bail)?;
                r.map(|(d, p)| (d as u64, p))
            }
            WarpKind::Shfl(mode, false) => {
                warp::shfl(mode, here, &u32s(0), &u32s(1), &u32s(2)).map(|(d, p)| (d as u64, p))
            }
            WarpKind::Vote(mode, s) => {
                let pred = std::array::from_fn(|l| (vals[0][l] & 1 != 0) ^ srcs[0].negated);
                let r = if s {
                    warp::vote_sync(mode, here, &mm, &pred).map_err(|_| Bail)?
                } else {
                    warp::vote(mode, here, &pred)
                };
                r.map(|d| (d as u64, false))
            }
            WarpKind::MatchAny => warp::match_sync_any(here, &mm, &vals[0])
                .map_err(|_| Bail)?
                .map(|d| (d as u64, false)),
            WarpKind::MatchAll => warp::match_sync_all(here, &mm, &vals[0])
                .map_err(|_| Bail)?
                .map(|(d, p)| (d as u64, p)),
            WarpKind::Redux => {
                warp::Redux::from_form(form).map_err(|_| Bail)?;
                warp::redux_sync(form, here, &mm, &u32s(0))
                    .map_err(|_| Bail)?
                    .map(|d| (d as u64, false))
            }
            WarpKind::Elect => warp::elect_sync(here, &mm)
                .map_err(|_| Bail)?
                .map(|(d, p)| (d as u64, p)),
            WarpKind::Activemask => warp::activemask(here).map(|d| (d as u64, false)),
        };
        let clock = self.plan.clock;
        for l in bits(here) {
            let (dv, pv) = res[l];
            if let Some(d) = dsts.first() {
                self.wr(w, l, d, dv);
            }
            if let Some(p) = dsts.get(1) {
                self.wr(w, l, p, pv as u64);
            }
            let wp = &mut self.warps[w];
            wp.st[l] = St::Run;
            wp.pc[l] += 1;
            wp.clock[l] += clock as u64;
        }
        Ok(())
    }

    /// The reference's `Cta::warp_sync`.
    fn warp_sync(&mut self, w: usize, exec: u32, pc: u32, mop: &Src) -> R<()> {
        let (here, live) = self.lanes_at(w, exec, pc, true);
        if here == 0 {
            return Ok(());
        }
        let first = here.trailing_zeros() as usize;
        let mask = self.rd(w, first, mop) as u32;
        if here & !mask != 0 {
            return Err(Bail);
        }
        let all_here = mask & live & !here == 0;
        let clock = self.plan.clock;
        let wp = &mut self.warps[w];
        for l in bits(here) {
            if all_here {
                wp.st[l] = St::Run;
                wp.pc[l] += 1;
                wp.clock[l] += clock as u64;
            } else {
                wp.st[l] = St::WarpWait;
            }
        }
        Ok(())
    }

    /// The reference's `Cta::retry_waiting`.
    fn retry_waiting(&mut self, w: usize) -> R<bool> {
        let wp = &self.warps[w];
        let Some(pc) = (0..wp.n).filter(|&l| wp.st[l] == St::WarpWait).map(|l| wp.pc[l]).min() else {
            return Ok(false);
        };
        let prog: &'a Program = self.prog;
        match &prog.code[pc as usize].op {
            Op::Warp { kind, dsts, srcs, .. } => self.warp_op(w, 0, pc, *kind, dsts, srcs)?,
            Op::WarpSync { mask } => self.warp_sync(w, 0, pc, mask)?,
            _ => return Err(Bail),
        }
        let wp = &self.warps[w];
        Ok((0..wp.n).any(|l| wp.st[l] == St::Run))
    }
}
