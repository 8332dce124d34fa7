//! The reducer proper: the state of one reduction ([`Reducer`]), how a candidate is judged
//! ([`Reducer::try_case`]: cheap checks, then the predicate), the fixpoint over the passes
//! ([`Reducer::run`]) and the passes on the launch, on statements and on guards. The passes on
//! operands are in `operands`; the final clean-up's rewriting is in `tidy`.

use super::dataflow::{dce, dce_keeping, uninit_reads};
use super::defined::runs_defined;
use super::facts::last_thread_sreg;
use super::sites::raw_addresses;
use super::syntax::{deletable, list_mut, list_paths, list_ref, regions, units, without, ListPath};
use super::tidy::tidy;
use super::{check, count_module, key, Case, Options, Stats};
use oracle::ast::{Expr, Instr, Item, Module, Operand, Stmt};
use oracle::launch::LaunchFile;
use std::collections::HashSet;
use std::hash::Hash;
use std::time::Instant;

/// One reduction in progress: the best case so far, the predicate, the budgets.
pub(super) struct Reducer<'a> {
    pub(super) module: Module,
    pub(super) launch: LaunchFile,
    pub(super) interesting: &'a mut dyn FnMut(&Case) -> bool,
    pub(super) opts: &'a Options,
    pub(super) stats: Stats,
    /// Candidates already tried (text and geometry).
    pub(super) seen: HashSet<u64>,
    /// Reads of possibly unwritten registers the original has: candidates may not have more.
    pub(super) uninit_budget: usize,
    /// Memory accesses not based on a variable or a pointer parameter the original has (see
    /// [`raw_addresses`]): candidates may not have more.
    pub(super) raw_budget: usize,
    pub(super) start: Instant,
    pub(super) exhausted: bool,
}

impl Reducer<'_> {
    pub(super) fn threads(&self) -> u64 {
        let l = &self.launch;
        l.grid.iter().chain(&l.block).map(|&d| d as u64).product()
    }

    /// Whether `p` is the launched kernel's body (not a block in it): its end ends the thread.
    fn is_kernel_body(&self, p: &ListPath) -> bool {
        p.blocks.is_empty()
            && matches!(self.module.items.get(p.item), Some(Item::Function(f)) if f.entry && f.name == self.launch.entry)
    }

    fn out_of_budget(&mut self) -> bool {
        if self.stats.calls >= self.opts.max_calls || self.opts.time_limit.is_some_and(|t| self.start.elapsed() >= t) {
            self.exhausted = true;
            self.stats.exhausted = true;
        }
        self.exhausted
    }

    fn try_module(&mut self, m: Module) -> bool {
        let l = self.launch.clone();
        self.try_case(m, l)
    }

    /// Tries the module with instruction `k` of list `p` changed by `edit`, and the code the
    /// change leaves dead removed.
    pub(super) fn try_edit(&mut self, p: &ListPath, k: usize, edit: impl FnOnce(&mut Instr) -> bool) -> bool {
        let mut m = self.module.clone();
        let Some(Stmt::Instr(i)) = list_mut(&mut m, p).and_then(|l| l.get_mut(k)) else {
            return false;
        };
        if !edit(i) {
            return false;
        }
        let edited = i.loc;
        let m = dce_keeping(&m, Some(edited)).unwrap_or(m);
        self.try_module(m)
    }

    /// Runs a pass to its fixed point: `gather` lists the candidates of the current case, each
    /// with a key by content (positions move when code is deleted); `attempt` tries one and says
    /// whether an edit was accepted, after which the candidates are gathered again. A key is
    /// tried once per pass. Stops when a round accepts nothing or the budget is spent; whether
    /// anything was accepted.
    pub(super) fn run_to_fixed_point<K: Eq + Hash, C>(
        &mut self,
        mut gather: impl FnMut(&Self) -> Vec<(K, C)>,
        mut attempt: impl FnMut(&mut Self, C) -> bool,
    ) -> bool {
        let mut any = false;
        let mut tried: HashSet<K> = HashSet::new();
        'again: loop {
            for (key, c) in gather(self) {
                if !tried.insert(key) {
                    continue;
                }
                if attempt(self, c) {
                    any = true;
                    continue 'again;
                }
                if self.exhausted {
                    return any;
                }
            }
            return any;
        }
    }

    /// Tries a candidate: cheap checks, then the predicate; accepted candidates replace the case.
    fn try_case(&mut self, m: Module, l: LaunchFile) -> bool {
        if self.out_of_budget() {
            return false;
        }
        let text = oracle::print::print(&m);
        if !self.seen.insert(key(&text, &l)) {
            return false;
        }
        let ok = raw_addresses(&m) <= self.raw_budget
            && oracle::parse::parse(&text)
                .ok()
                .and_then(|parsed| check(&parsed, &l).ok())
                .is_some_and(|prog| uninit_reads(&prog) <= self.uninit_budget)
            && runs_defined(&l, &text);
        if !ok {
            self.stats.rejected_cheaply += 1;
            return false;
        }
        self.stats.calls += 1;
        let case = Case { ptx: text, launch: l };
        if (self.interesting)(&case) {
            self.module = m;
            self.launch = case.launch;
            self.stats.accepted += 1;
            self.stats.instructions_after = count_module(&self.module);
            self.stats.seconds = self.start.elapsed().as_secs_f64();
            if let Some(f) = self.opts.progress {
                f(&self.stats);
            }
            true
        } else {
            false
        }
    }

    pub(super) fn run(&mut self) {
        loop {
            self.stats.rounds += 1;
            let mut changed = false;
            changed |= self.shrink_launch();
            changed |= self.dead_code();
            changed |= self.delete_chunks();
            changed |= self.delete_regions();
            changed |= self.constants();
            changed |= self.bypass();
            changed |= self.drop_guards();
            if !changed || self.out_of_budget() {
                break;
            }
        }
        self.clean_up();
    }

    // ---- the launch ----

    /// One CTA and one thread first; otherwise each dimension by bisection (the smallest block
    /// that still shows the difference makes the thread that matters the last one, whose
    /// values the probe reads).
    fn shrink_launch(&mut self) -> bool {
        let mut any = false;
        for k in 0..3 {
            let l = &self.launch;
            let cand = match k {
                0 if l.grid != [1, 1, 1] => LaunchFile {
                    grid: [1, 1, 1],
                    ..l.clone()
                },
                1 if l.block != [1, 1, 1] => LaunchFile {
                    block: [1, 1, 1],
                    ..l.clone()
                },
                2 if l.shared_bytes != 0 => LaunchFile {
                    shared_bytes: 0,
                    ..l.clone()
                },
                _ => continue,
            };
            let m = self.module.clone();
            any |= self.try_case(m, cand);
        }
        for (block, d) in [(true, 2), (true, 1), (true, 0), (false, 2), (false, 1), (false, 0)] {
            let dim = |l: &LaunchFile| if block { l.block[d] } else { l.grid[d] };
            let (mut lo, mut hi) = (0u32, dim(&self.launch));
            while hi - lo > 1 && !self.exhausted {
                let mid = lo + (hi - lo) / 2;
                let mut cand = self.launch.clone();
                if block {
                    cand.block[d] = mid;
                } else {
                    cand.grid[d] = mid;
                }
                let m = self.module.clone();
                if self.try_case(m, cand) {
                    any = true;
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
        }
        if self.threads() > 1 && !self.exhausted {
            any |= self.pin_last_thread();
        }
        any
    }

    /// One thread computing what the last thread of the launch computed: every `%tid`,
    /// `%ctaid`, `%ntid` and `%nctaid` read becomes the last thread's value, and the launch one
    /// thread. (After the bisection above, the last thread is the one the difference needs;
    /// this fails where threads interact.)
    fn pin_last_thread(&mut self) -> bool {
        let l = self.launch.clone();
        let mut m = self.module.clone();
        for p in list_paths(&self.module) {
            let Some(list) = list_mut(&mut m, &p) else { continue };
            for st in list.iter_mut() {
                let Stmt::Instr(i) = st else { continue };
                for o in i.operands.iter_mut() {
                    if let Operand::Expr(Expr::Name(n)) = o {
                        if let Some(v) = last_thread_sreg(n, &l) {
                            *o = Operand::Expr(Expr::Int {
                                value: v,
                                unsigned: false,
                            });
                        }
                    }
                }
            }
        }
        let one = LaunchFile {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            ..l.clone()
        };
        self.try_case(m, one)
    }

    // ---- deletion ----

    fn dead_code(&mut self) -> bool {
        match dce(&self.module) {
            Some(m) => self.try_module(m),
            None => false,
        }
    }

    fn delete_chunks(&mut self) -> bool {
        let mut any = false;
        let mut k = 0;
        loop {
            let paths = list_paths(&self.module);
            let Some(p) = paths.get(k) else { break };
            any |= self.ddmin(p);
            if self.exhausted {
                break;
            }
            k += 1;
        }
        any
    }

    /// Deletes chunks of one list's units: halves, quarters, ... singles, from the end (later code
    /// depends on earlier code, so deleting from the end leaves fewer dangling reads).
    fn ddmin(&mut self, p: &ListPath) -> bool {
        let keep_bars = self.threads() > 1;
        let kernel_body = self.is_kernel_body(p);
        let Some(list) = list_ref(&self.module, p) else {
            return false;
        };
        let mut chunk = units(list).len();
        let mut any = false;
        while chunk >= 1 {
            let mut i = list_ref(&self.module, p).map_or(0, |l| units(l).len());
            while i > 0 {
                let Some(list) = list_ref(&self.module, p) else {
                    return any;
                };
                let u = units(list);
                i = i.min(u.len());
                let lo = i.saturating_sub(chunk);
                let del = deletable(list, u[lo..i].to_vec(), keep_bars, kernel_body);
                if !del.is_empty() {
                    if let Some(m) = without(&self.module, p, &del) {
                        any |= self.try_module(m);
                    }
                }
                if self.exhausted {
                    return any;
                }
                i = lo;
            }
            if chunk == 1 {
                break;
            }
            chunk = chunk.div_ceil(2);
        }
        any
    }

    fn delete_regions(&mut self) -> bool {
        let mut any = false;
        let mut k = 0;
        let mut tried: HashSet<(ListPath, Vec<String>)> = HashSet::new();
        loop {
            let paths = list_paths(&self.module);
            let Some(p) = paths.get(k).cloned() else { break };
            while let Some(list) = list_ref(&self.module, &p) {
                let keep_bars = self.threads() > 1;
                let kernel_body = self.is_kernel_body(&p);
                let cands: Vec<(Vec<usize>, Vec<String>)> = regions(list)
                    .into_iter()
                    .map(|r| {
                        let r = deletable(list, r, keep_bars, kernel_body);
                        // The region by content: after a deletion, indices move.
                        let sig = r.iter().map(|&k| format!("{:?}", list[k])).collect();
                        (r, sig)
                    })
                    .collect();
                let mut progressed = false;
                for (region, sig) in cands {
                    if region.len() < 2 || !tried.insert((p.clone(), sig)) {
                        continue;
                    }
                    if let Some(m) = without(&self.module, &p, &region) {
                        if self.try_module(m) {
                            progressed = true;
                            break;
                        }
                    }
                    if self.exhausted {
                        return any;
                    }
                }
                any |= progressed;
                if !progressed {
                    break;
                }
            }
            k += 1;
        }
        any
    }

    // ---- guards ----

    fn drop_guards(&mut self) -> bool {
        let gather = |r: &Self| {
            let mut cands = Vec::new();
            for p in list_paths(&r.module) {
                let Some(list) = list_ref(&r.module, &p) else {
                    continue;
                };
                for (k, s) in list.iter().enumerate() {
                    if let Stmt::Instr(i) = s {
                        if i.guard.is_some() {
                            cands.push(((p.item, oracle::print::instr(i)), (p.clone(), k)));
                        }
                    }
                }
            }
            cands
        };
        self.run_to_fixed_point(gather, |r, (p, k)| r.try_edit(&p, k, |i| i.guard.take().is_some()))
    }

    // ---- clean-up ----

    /// Removes what no longer matters to the semantics (uncalled functions, unused variables,
    /// labels and declarations, empty blocks); kept if the result is still interesting.
    fn clean_up(&mut self) {
        let mut m = self.module.clone();
        let entry = self.launch.entry.clone();
        for _ in 0..8 {
            let before = m.clone();
            tidy(&mut m, &entry);
            if m == before {
                break;
            }
        }
        if m != self.module {
            // Even with the budget spent, one more call for a cosmetic step is worth it.
            let text = oracle::print::print(&m);
            let valid = oracle::parse::parse(&text)
                .ok()
                .and_then(|p| check(&p, &self.launch).ok())
                .is_some();
            if valid && self.seen.insert(key(&text, &self.launch)) && runs_defined(&self.launch, &text) {
                self.stats.calls += 1;
                let case = Case {
                    ptx: text,
                    launch: self.launch.clone(),
                };
                if (self.interesting)(&case) {
                    self.module = m;
                    self.stats.accepted += 1;
                }
            }
        }
    }
}
