//! The warpgroup-wide `.sync.aligned` instructions of §9.7.15: `wgmma.mma_async` (L25813),
//! `wgmma.fence` (L26402), `wgmma.commit_group` (L26451), `wgmma.wait_group` (L26482) — "all
//! threads in the warpgroup must execute the same instruction". The warpgroup is four
//! contiguous warps, the first a multiple of four (§9.7.15.2); its threads meet at the
//! instruction, and the one that completes the meeting executes it for all 128.

use super::{commit_group, Cta, St};
use crate::error::Result;
use crate::program::Op;
use spec::matrix::wgmma::THREADS;

/// The manual's line of each warpgroup instruction's `.aligned` rule.
pub(super) fn aligned_line(op: &Op) -> Option<u32> {
    match op {
        Op::Wgmma(_) => Some(25813),
        Op::WgmmaFence => Some(26402),
        Op::WgmmaCommit => Some(26451),
        Op::WgmmaWait { .. } => Some(26482),
        // `setmaxnreg` (§9.7.19.5): `.aligned`, every thread of the warpgroup (L31759).
        Op::Setmaxnreg { .. } => Some(31759),
        _ => None,
    }
}

impl Cta<'_, '_> {
    /// Gathers the warpgroup of the warp at `lo` at warpgroup instruction `pc` (`exec`: its lanes
    /// issuing it now). `None` while threads of the warpgroup are still to come (the lanes here
    /// wait); once all 128 are here, the warpgroup's first thread and the first lane here. A
    /// runtime error naming the rule when the warpgroup cannot meet there: some of its threads
    /// have exited, or wait at another warpgroup instruction (a warp skipped this one).
    pub(super) fn warpgroup_at(&mut self, lo: usize, exec: u32, pc: u32) -> Result<Option<(usize, usize)>> {
        let prog = self.m.prog;
        let op = &prog.code[pc as usize].op;
        let line = aligned_line(op).unwrap_or(0);
        let name = prog.code[pc as usize]
            .text
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_end_matches(';')
            .to_string();
        let hi = (lo + 32).min(self.threads.len());
        let (here, live) = self.lanes_at(lo, exec, pc, true);
        if here == 0 {
            return Ok(None);
        }
        let first = lo + here.trailing_zeros() as usize;
        let g0 = lo - lo % THREADS;
        let g1 = (g0 + THREADS).min(self.threads.len());
        // A thread of the warpgroup waiting at another warpgroup instruction never comes here.
        if let Some(i) = (g0..g1).find(|&i| {
            let t = &self.threads[i];
            t.st == St::WarpWait && t.pc != pc && aligned_line(&prog.code[t.pc as usize].op).is_some()
        }) {
            let other = &prog.code[self.threads[i].pc as usize].text;
            return Err(self.rt_err(
                first,
                pc,
                format!(
                    "`{name}`: warp {} of the warpgroup (warps {}..{}) is at `{other}` instead; all threads of the warpgroup must execute the same `{name}` (`.sync.aligned`, undefined otherwise: L{line})",
                    i / 32,
                    g0 / 32,
                    g0 / 32 + 4
                ),
            ));
        }
        let others_here = (g0..g1).filter(|&i| !(lo..hi).contains(&i)).all(|i| {
            let t = &self.threads[i];
            t.st == St::Exited || (t.st == St::WarpWait && t.pc == pc)
        });
        if live & !here != 0 || !others_here {
            for l in 0..hi - lo {
                if here >> l & 1 != 0 {
                    self.threads[lo + l].st = St::WarpWait;
                }
            }
            return Ok(None);
        }
        let present = here.count_ones() as usize
            + (g0..g1)
                .filter(|&i| !(lo..hi).contains(&i) && self.threads[i].st == St::WarpWait)
                .count();
        if present != THREADS {
            return Err(self.rt_err(
                first,
                pc,
                format!(
                    "`{name}` needs all 128 threads of the warpgroup (warps {}..{}) to execute it together (`.sync.aligned`); {present} do (undefined otherwise: `.aligned`, L{line})",
                    g0 / 32,
                    g0 / 32 + 4
                ),
            ));
        }
        Ok(Some((g0, first)))
    }

    /// `wgmma.fence`, `commit_group`, `wait_group`: once the warpgroup is here, `each` for every
    /// one of its threads, which then go on.
    pub(super) fn warpgroup_step(
        &mut self,
        lo: usize,
        exec: u32,
        pc: u32,
        mut each: impl FnMut(&mut Self, usize),
    ) -> Result<()> {
        let Some((g0, _)) = self.warpgroup_at(lo, exec, pc)? else {
            return Ok(());
        };
        for i in g0..(g0 + THREADS).min(self.threads.len()) {
            if self.threads[i].st == St::Exited {
                continue;
            }
            each(self, i);
            let t = &mut self.threads[i];
            t.st = St::Run;
            t.pc += 1;
            t.clock += 1;
        }
        Ok(())
    }

    /// `wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group N`, executed by the whole
    /// warpgroup. The fence has nothing to order here (the multiply is done when the warpgroup
    /// issues `wgmma.mma_async`); commit and wait keep the books of which registers a thread may
    /// not access yet (L26478).
    pub(super) fn wgmma_control(&mut self, lo: usize, exec: u32, pc: u32, op: &Op) -> Result<()> {
        match *op {
            Op::WgmmaCommit => self.warpgroup_step(lo, exec, pc, |cta, i| {
                let t = &mut cta.threads[i];
                commit_group(&mut t.wg_uncommitted, &mut t.wg_groups);
            }),
            Op::WgmmaWait { n } => self.warpgroup_step(lo, exec, pc, |cta, i| {
                let t = &mut cta.threads[i];
                let mut done = 0;
                while t.wg_groups.len() > n as usize {
                    done += t.wg_groups.pop_front().map_or(0, |g| g.len());
                }
                cta.wg_pending -= done;
            }),
            _ => self.warpgroup_step(lo, exec, pc, |_, _| {}),
        }
    }
}
