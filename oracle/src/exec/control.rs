//! sm_90's control and cache-hint instructions: §9.7.19.5 `setmaxnreg`, §9.7.19.1 `brkpt`,
//! §9.7.17 `stacksave`/`stackrestore`/`alloca`, §9.7.9.16-17 `applypriority`/`discard` and
//! §9.7.9.18 `createpolicy`. What the manual leaves undefined about them is a runtime error naming
//! the rule (spec/INTERPRETATIONS.md, "sm_90 control instructions").

use super::{wr, Cta, St};
use crate::error::{Error, ErrorKind, Result};
use crate::program::{Addr, Dst, Op, Policy, Space, Src};
use spec::matrix::wgmma::THREADS;
use std::collections::BTreeMap;

/// The bytes `discard.L2` acts on, and the alignment of its address (L13376, L13380).
pub(super) const LINE: u64 = 128;

/// Global memory whose contents `discard` made undefined (L13374), by 128-byte line: which bytes
/// are still unwritten, and the discard that made them so (its instruction and thread, for the
/// error of a later read).
#[derive(Default)]
pub(super) struct Discarded {
    lines: BTreeMap<u64, (u128, String)>,
}

impl Discarded {
    /// Whether no byte is undefined (the loads' fast path).
    pub(super) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The first undefined byte in `[addr, addr + n)` and the discard that made it so.
    fn undefined(&self, addr: u64, n: usize) -> Option<(u64, &str)> {
        let end = addr + n as u64;
        for (&line, (mask, origin)) in self.lines.range(addr & !(LINE - 1)..end) {
            for b in 0..LINE {
                let at = line + b;
                if at >= addr && at < end && mask >> b & 1 != 0 {
                    return Some((at, origin));
                }
            }
        }
        None
    }

    /// A write of `[addr, addr + n)`: those bytes are defined again.
    pub(super) fn written(&mut self, addr: u64, n: usize) {
        let end = addr + n as u64;
        let lines: Vec<u64> = self.lines.range(addr & !(LINE - 1)..end).map(|(&l, _)| l).collect();
        for line in lines {
            let entry = self.lines.get_mut(&line).expect("listed");
            for b in 0..LINE {
                if (addr..end).contains(&(line + b)) {
                    entry.0 &= !(1u128 << b);
                }
            }
            if entry.0 == 0 {
                self.lines.remove(&line);
            }
        }
    }
}

/// The CTA's `setmaxnreg` books (L31737-31759): the per-thread register count of each warp,
/// known from the kernel's `.maxnreg` (ptxas 12.9 ignores `setmaxnreg` in a kernel whose count
/// at entry it cannot determine, C7508: then only the warpgroup rules are checked), the CTA's
/// pool, and each warpgroup's last `setmaxnreg` with its threads' barrier counts then.
#[derive(Default)]
pub(super) struct Registers {
    /// Per warp, its per-thread register count (`None`: not known, no bookkeeping).
    count: Vec<Option<u32>>,
    /// The CTA's registers per thread-slot: `.maxnreg` × warps.
    pool: u32,
    /// Per warpgroup: the pc of its last `setmaxnreg` and its threads' [`super::Thread::syncs`].
    last: BTreeMap<usize, (u32, Vec<u32>)>,
}

impl Registers {
    /// The books of a CTA of `warps` warps whose kernel declares `.maxnreg` `maxnreg`.
    pub(super) fn new(maxnreg: Option<u32>, warps: usize) -> Registers {
        Registers {
            count: vec![maxnreg; warps],
            pool: maxnreg.unwrap_or(0) * warps as u32,
            last: BTreeMap::new(),
        }
    }
}

/// The oracle's encoding of `createpolicy`'s opaque 64-bit policy (L13419): bits 63..60 the
/// kind (1 range, 2 fractional), 59..58 the primary and 57..56 the secondary priority
/// (`evict_last` 0, `evict_normal` 1, `evict_first` 2, `evict_unchanged` 3); a range policy's
/// bits 31..0 are primary-size and 55..32 total-size in 256-byte units, a fractional policy's
/// bits 31..0 the fraction's f32 bits. `createpolicy.cvt` passes the CUDA access property through.
pub fn policy_bits(kind: u64, priorities: [u8; 2], payload: u64) -> u64 {
    kind << 60 | (priorities[0] as u64 & 3) << 58 | (priorities[1] as u64 & 3) << 56 | payload & ((1 << 56) - 1)
}

impl Cta<'_, '_> {
    /// The lanes of `exec` in warp `lo`, as thread indices.
    fn lanes_of(lo: usize, exec: u32) -> impl Iterator<Item = usize> {
        (0..32).filter(move |l| exec >> l & 1 != 0).map(move |l| lo + l)
    }

    fn advance(&mut self, i: usize) {
        let t = &mut self.threads[i];
        t.pc += 1;
        t.clock += 1;
    }

    /// The instructions of this module, for the lanes `exec` of warp `lo` at `pc`.
    pub(super) fn control(&mut self, lo: usize, exec: u32, pc: u32, op: &Op) -> Result<()> {
        match op {
            Op::Setmaxnreg { inc, count } => return self.setmaxnreg(lo, exec, pc, *inc, *count),
            Op::Brkpt => {
                if let Some(i) = Self::lanes_of(lo, exec).next() {
                    return Err(self.rt_err(
                        i,
                        pc,
                        "`brkpt` executed: it suspends execution (L31605) until a debugger resumes it, and the oracle has none: the launch stops here",
                    ));
                }
            }
            Op::StackSave { d } => {
                for i in Self::lanes_of(lo, exec) {
                    let t = &mut self.threads[i];
                    let top = t.stack.len() as u64;
                    wr(t, d, top);
                    self.advance(i);
                }
            }
            Op::StackRestore { a } => {
                for i in Self::lanes_of(lo, exec) {
                    self.stackrestore(i, pc, a)?;
                    self.advance(i);
                }
            }
            Op::Alloca { d, size, align } => {
                for i in Self::lanes_of(lo, exec) {
                    self.alloca(i, pc, d, size, *align)?;
                    self.advance(i);
                }
            }
            Op::L2Line { discard, addr, space } => {
                for i in Self::lanes_of(lo, exec) {
                    self.l2_line(i, pc, *discard, addr, *space)?;
                    self.advance(i);
                }
            }
            Op::Createpolicy { d, policy } => {
                for i in Self::lanes_of(lo, exec) {
                    let v = self.createpolicy(i, pc, policy)?;
                    wr(&mut self.threads[i], d, v);
                    self.advance(i);
                }
            }
            _ => return Err(self.internal_err(lo, pc, "not an instruction of exec/control.rs")),
        }
        Ok(())
    }

    /// The lowest stack address the current function's `alloca`s and `stackrestore`s may use:
    /// the end of its frame (its parameters and `.local` variables).
    fn frame_end(&self, i: usize) -> u64 {
        let prog = self.m.prog;
        let t = &self.threads[i];
        let func = t.frames.last().map_or(self.entry, |f| f.callee as usize);
        t.sbase as u64 + prog.funcs[func].frame_bytes as u64
    }

    /// `stackrestore a` (L30695-30697): the stack pointer becomes `a`, which must be a value of
    /// this frame's stack pointer (between the frame's end and the current top: the oracle's
    /// stack grows upward); another value corrupts the stack (L30697).
    fn stackrestore(&mut self, i: usize, pc: u32, a: &Src) -> Result<()> {
        let v = self.rd(&self.threads[i], a);
        let (lo, top) = (self.frame_end(i), self.threads[i].stack.len() as u64);
        if v < lo || v > top {
            return Err(self.rt_err(
                i,
                pc,
                format!(
                    "`stackrestore` to {v:#x}, which is not a stack pointer of the current frame (its allocations span {lo:#x}..{top:#x}): a value not saved by `stacksave` corrupts the stack pointer (L30697)"
                ),
            ));
        }
        self.threads[i].stack.truncate(v as usize);
        Ok(())
    }

    /// `alloca ptr, size, immAlign` (L30737-30770): `size` bytes at the top of the thread's stack
    /// (which grows upward in the oracle), at alignment max(immAlign, 8); `ptr` is their `.local`
    /// address. A stack past the launch's limit is the limit error of a call that would grow it
    /// (the manual: an overflow, whose memory is undefined to access, L30741).
    fn alloca(&mut self, i: usize, pc: u32, d: &Dst, size: &Src, align: u32) -> Result<()> {
        let n = self.rd(&self.threads[i], size);
        let a = u64::from(align.max(8));
        let top = self.threads[i].stack.len() as u64;
        let ptr = top.div_ceil(a) * a;
        let end = ptr.saturating_add(n);
        if end > u64::from(self.limits.stack) {
            let inst = &self.m.prog.code[pc as usize];
            return Err(Error::at(
                ErrorKind::Limit,
                inst.loc,
                format!(
                    "`{}`: `alloca` of {n} bytes would grow the thread's stack to {end} bytes, past the limit of {} (a stack overflow: L30741)",
                    inst.text, self.limits.stack
                ),
            ));
        }
        let fill = self.m.undefined_fill.unwrap_or(0);
        let t = &mut self.threads[i];
        t.stack.resize(end as usize, fill);
        wr(t, d, ptr);
        Ok(())
    }

    /// The global address of `addr` (space `space`) of a global-only instruction: a generic one
    /// must fall in the `.global` window (undefined otherwise: `rule`).
    fn global_address(&self, i: usize, pc: u32, addr: &Addr, space: Space, name: &str, rule: u32) -> Result<u64> {
        let a = self.address(i, addr);
        match space {
            Space::Generic => match self.m.prog.windows.resolve_generic(a) {
                Some((Space::Global, g)) => Ok(g),
                _ => Err(self.rt_err(
                    i,
                    pc,
                    format!("`{name}`'s generic address {a:#x} is not in the `.global` window (undefined: L{rule})"),
                )),
            },
            _ => Ok(a),
        }
    }

    /// `discard.L2 [a], 128` (L13374-13380) and `applypriority.L2::evict_normal [a], 128`
    /// (L13338-13344): `a` is a 128-byte aligned address of global memory; a discard leaves the
    /// 128 bytes undefined until they are written again (reading them is a runtime error).
    fn l2_line(&mut self, i: usize, pc: u32, discard: bool, addr: &Addr, space: Space) -> Result<()> {
        let (name, window, align) = if discard {
            ("discard", 13378, 13380)
        } else {
            ("applypriority", 13340, 13344)
        };
        let a = self.global_address(i, pc, addr, space, name, window)?;
        if a % LINE != 0 {
            return Err(self.rt_err(
                i,
                pc,
                format!("`{name}`'s address {a:#x} is not aligned to 128 bytes (L{align})"),
            ));
        }
        let (k, off) = match self.m.global.find(a, 1) {
            Ok(x) => x,
            Err(e) => return Err(self.rt_err(i, pc, e.to_string())),
        };
        if discard {
            // The bytes of the line that lie in the allocation.
            let len = (self.m.global.regions[k].data.len() - off).min(LINE as usize);
            let mask = if len == 128 { u128::MAX } else { (1u128 << len) - 1 };
            let t = &self.threads[i];
            let c = self.env.ctaid;
            let origin = format!(
                "`{}` at {} by thread ({},{},{}) of block ({},{},{})",
                self.m.prog.code[pc as usize].text,
                self.m.prog.code[pc as usize].loc,
                t.tid[0],
                t.tid[1],
                t.tid[2],
                c[0],
                c[1],
                c[2]
            );
            self.m.discarded.lines.insert(a, (mask, origin));
            self.mutations += 1;
        }
        Ok(())
    }

    /// A read of global bytes `[addr, addr + n)`: none may be undefined by a `discard`.
    pub(super) fn check_discarded(&self, i: usize, pc: u32, addr: u64, n: usize) -> Result<()> {
        match self.m.discarded.undefined(addr, n) {
            None => Ok(()),
            Some((at, origin)) => Err(self.rt_err(
                i,
                pc,
                format!(
                    "reads global address {at:#x}, whose contents are undefined: {origin} discarded them and nothing has written them since (\"the data at the address range has undefined values\" after a discard, L13374)"
                ),
            )),
        }
    }

    /// `createpolicy` (L13419-13455): the policy value ([`policy_bits`]), after the rules the
    /// manual gives its operands.
    fn createpolicy(&self, i: usize, pc: u32, policy: &Policy) -> Result<u64> {
        let t = &self.threads[i];
        Ok(match policy {
            Policy::Range {
                priorities,
                addr,
                space,
                primary_size,
                total_size,
            } => {
                self.global_address(i, pc, addr, *space, "createpolicy.range", 13445)?;
                let p = self.rd(t, primary_size) & 0xffff_ffff;
                let tot = self.rd(t, total_size) & 0xffff_ffff;
                if p > tot {
                    return Err(self.rt_err(
                        i,
                        pc,
                        format!("`createpolicy.range`'s primary-size {p} exceeds its total-size {tot} (it must be at most total-size, L13441)"),
                    ));
                }
                policy_bits(1, *priorities, p | (tot >> 8) << 32)
            }
            Policy::Fractional { priorities, fraction } => {
                let bits = self.rd(t, fraction) & 0xffff_ffff;
                let f = f32::from_bits(bits as u32);
                if !(f > 0.0 && f <= 1.0) {
                    return Err(self.rt_err(
                        i,
                        pc,
                        format!(
                            "`createpolicy.fractional`'s fraction {f} is outside its valid range (0.0, 1.0] (L13451)"
                        ),
                    ));
                }
                policy_bits(2, *priorities, bits)
            }
            Policy::Cvt { access } => self.rd(t, access),
        })
    }

    /// `setmaxnreg.{inc,dec}.sync.aligned.u32 count` (L31737-31759), once the whole warpgroup is
    /// here (`.sync.aligned`: [`Cta::warpgroup_at`]). Its warps must have synchronized since the
    /// warpgroup's last `setmaxnreg` (a thread waited at a CTA barrier, L31745). Where the count
    /// is known (the kernel's `.maxnreg`), a `.dec` from fewer or an `.inc` from more registers
    /// than `count` is undefined (L31753, L31755), and an `.inc` waits until the CTA's pool has
    /// the registers (L31743: a warpgroup that never gets them deadlocks).
    fn setmaxnreg(&mut self, lo: usize, exec: u32, pc: u32, inc: bool, count: u32) -> Result<()> {
        let Some((g0, _)) = self.warpgroup_at(lo, exec, pc)? else {
            return Ok(());
        };
        let g1 = (g0 + THREADS).min(self.threads.len());
        let name = if inc { "setmaxnreg.inc" } else { "setmaxnreg.dec" };
        if let Some((prev, syncs)) = self.nreg.last.get(&g0) {
            let unsynced =
                (g0..g1).find(|&i| self.threads[i].st != St::Exited && self.threads[i].syncs == syncs[i - g0]);
            if let Some(i) = unsynced {
                let at = self.m.prog.code[*prev as usize].loc;
                return Err(self.rt_err(
                    i,
                    pc,
                    format!(
                        "`{name}`: this thread has not synchronized with the warpgroup (a CTA barrier such as `bar.sync`) since its `setmaxnreg` at {at}: the warps of the warpgroup must synchronize explicitly before the next `setmaxnreg` (undefined otherwise, L31745)"
                    ),
                ));
            }
        }
        let warps: Vec<usize> = (g0 / 32..g1.div_ceil(32)).collect();
        let known = warps.iter().all(|&w| self.nreg.count[w].is_some());
        if known {
            for &w in &warps {
                let cur = self.nreg.count[w].unwrap_or(0);
                let (bad, line, rel) = if inc {
                    (cur > count, 31755, "at most")
                } else {
                    (cur < count, 31753, "at least")
                };
                if bad {
                    return Err(self.rt_err(
                        w * 32,
                        pc,
                        format!(
                            "`{name}` to {count} registers per thread, while warp {w} has {cur}: the count before `.{}` must be {rel} imm-reg-count (undefined otherwise, L{line})",
                            if inc { "inc" } else { "dec" }
                        ),
                    ));
                }
            }
            if inc {
                let used: u32 = self.nreg.count.iter().map(|c| c.unwrap_or(0)).sum();
                let need: u32 = warps.iter().map(|&w| count - self.nreg.count[w].unwrap_or(0)).sum();
                if used + need > self.nreg.pool {
                    // Not enough registers in the CTA's pool yet: the warpgroup waits (L31743).
                    for i in g0..g1 {
                        if self.threads[i].st != St::Exited {
                            self.threads[i].st = St::WarpWait;
                        }
                    }
                    return Ok(());
                }
            }
            for &w in &warps {
                self.nreg.count[w] = Some(count);
            }
            self.mutations += 1;
        }
        let syncs = (g0..g1).map(|i| self.threads[i].syncs).collect();
        self.nreg.last.insert(g0, (pc, syncs));
        for i in g0..g1 {
            if self.threads[i].st == St::Exited {
                continue;
            }
            self.threads[i].st = St::Run;
            self.advance(i);
        }
        Ok(())
    }
}
