//! Automatic test-case reduction (issue 6): shrinks a launch whose results differ between the
//! oracle and a backend while the difference persists — `ptxconf reduce LAUNCH.json --backend B`,
//! and every finding of `ptxconf fuzz` ([`reduce_against`]).
//!
//! [`reduce`] is a reducer over the oracle's AST, driven by a predicate that says whether a
//! candidate is still *interesting*. Its passes, iterated to a fixpoint in a fixed order (the
//! result depends only on the input and the predicate's answers):
//! - shrink the launch: one CTA and one thread, else each dimension by bisection, then one thread
//!   pinned to what the last thread computed (its `%tid`/`%ctaid` reads replaced by constants);
//!   no dynamic shared memory. Buffers and parameters stay (the entry's parameters are fixed);
//! - delete dead code: instructions without side effects whose results nobody reads (on the
//!   decoded program, per register slot);
//! - delete instructions: ddmin-style chunks of each statement list, largest first, then singles;
//! - delete regions: label-delimited blocks, the two arms and the whole of an if/else, loops;
//! - replace source operands with constants: first the value the operand had in the oracle's run
//!   of the current candidate (read back by a probe: the candidate with a store of each operand,
//!   per thread, into an extra buffer), then 0, 1 and -1 typed per the register (`0f3F800000`
//!   for an f32 1); each candidate with the code it leaves dead removed;
//! - bypass definitions: a source replaced by a register its only definition reads, and
//!   `[%a+K]` after `add.s64 %a, %b, C` folded into `[%b+C+K]`;
//! - drop guards (`@p bra L` becomes `bra L`; deleting it is the other choice, above);
//! - finally, cosmetic clean-up: functions nobody calls, unused variables, labels and `.reg`
//!   declarations (kept only if the result is still interesting).
//!
//! A candidate reaches the predicate only if it parses, type-checks, runs on the oracle within a
//! step budget (4× the original's, so a loop whose exit was deleted fails fast), and reads no
//! more registers that may be unwritten on some path than the original does (definite assignment
//! on the decoded program): a reduced kernel must not depend on what an uninitialized register
//! holds, which the oracle fixes to 0 and hardware does not. Likewise it may not have more memory
//! accesses whose address derives from neither a variable nor a parameter (`[sh + 4·i]` must not
//! become `[4·i]` because the oracle happens to place `sh` at 0), and probed values that look
//! like generic addresses (≥ 2^44, where the oracle maps its windows) or derive from a variable's
//! address are not used. In a launch of several threads, values an address depends on are only
//! replaced by values equal in every thread (else threads could meet at one address: a data
//! race), and a barrier is only deleted where it orders nothing (the same barrier before or after
//! it, or the start or end of the kernel, with no shared or global memory access in between).
//! Memory contents are not tracked: a deleted store can leave a later load reading zeros on the
//! oracle and garbage on hardware; the report shows the program for a human to judge.

use crate::backend::{Backend, Failure, Job};
use crate::judge::{self, Mismatch};
use oracle::ast::{Expr, Instr, Item, Loc, Module, Operand, Stmt, VarDecl};
use oracle::launch::{BufferSpec, LaunchFile, ParamSpec};
use oracle::program::{Addr, Arg, Callee, Inst, Op, Program, RetTo, Src};
use spec::types::{FloatFormat, Kind, Type};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A launch and the PTX text it runs (`launch.ptx` only names the file it came from).
#[derive(Clone, Debug)]
pub struct Case {
    pub ptx: String,
    pub launch: LaunchFile,
}

impl Case {
    /// Reads a launch file and the PTX it names (relative to the launch file).
    pub fn load(path: &Path) -> Result<Case, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let launch = oracle::launch::parse_launch(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let ptx_path = path.parent().unwrap_or(Path::new(".")).join(&launch.ptx);
        let ptx = std::fs::read_to_string(&ptx_path).map_err(|e| format!("cannot read {}: {e}", ptx_path.display()))?;
        Ok(Case { ptx, launch })
    }
}

/// Limits of one reduction.
#[derive(Clone, Debug)]
pub struct Options {
    /// Predicate calls at most (candidates rejected by the cheap checks do not count).
    pub max_calls: usize,
    /// Wall-clock budget; the best case so far is returned when it runs out.
    pub time_limit: Option<Duration>,
    /// Try the values operands had in the oracle's run before 0, 1 and -1.
    pub probe: bool,
    /// Called after every accepted step (a progress line).
    pub progress: Option<fn(&Stats)>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_calls: 20_000,
            time_limit: Some(Duration::from_secs(600)),
            probe: true,
            progress: None,
        }
    }
}

/// What a reduction did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Predicate calls (including the one on the original).
    pub calls: usize,
    /// Candidates accepted (each made the case smaller or simpler).
    pub accepted: usize,
    /// Candidates rejected before the predicate (invalid, uninitialized reads, oracle failure).
    pub rejected_cheaply: usize,
    /// Executable statements before and after.
    pub instructions_before: usize,
    pub instructions_after: usize,
    /// Rounds of all passes (the last one changed nothing, unless the budget ran out).
    pub rounds: usize,
    pub seconds: f64,
    /// The call or time budget ran out before the fixpoint.
    pub exhausted: bool,
}

/// Executable statements (instructions, not labels, declarations or directives) of a module.
/// Text that does not parse is counted line by line (statements ending in `;`).
pub fn count_instructions(ptx: &str) -> usize {
    match oracle::parse::parse(ptx) {
        Ok(m) => count_module(&m),
        Err(_) => ptx
            .lines()
            .map(|l| l.split("//").next().unwrap_or("").trim())
            .filter(|l| l.ends_with(';') && !l.starts_with('.') && !l.starts_with('{') && !l.starts_with('}'))
            .count(),
    }
}

fn count_module(m: &Module) -> usize {
    fn count(body: &[Stmt]) -> usize {
        body.iter()
            .map(|s| match s {
                Stmt::Instr(_) => 1,
                Stmt::Block { body, .. } => count(body),
                _ => 0,
            })
            .sum()
    }
    m.items
        .iter()
        .map(|i| match i {
            Item::Function(f) => f.body.as_deref().map_or(0, count),
            _ => 0,
        })
        .sum()
}

/// The type checker as the launch asks (its grammar).
fn check(m: &Module, l: &LaunchFile) -> oracle::error::Result<Program> {
    oracle::check::check_with(
        m,
        oracle::check::Options {
            grammar: l.grammar,
            ..Default::default()
        },
    )
}

/// Reduces `case` while `interesting` holds. The original must be interesting and run on the
/// oracle; the result is the smallest case found (the original when nothing could be removed).
pub fn reduce(case: Case, interesting: &mut dyn FnMut(&Case) -> bool, opts: &Options) -> Result<(Case, Stats), String> {
    let start = Instant::now();
    let module = oracle::parse::parse(&case.ptx).map_err(|e| format!("the PTX does not parse: {e}"))?;
    let prog = check(&module, &case.launch).map_err(|e| format!("the PTX does not type-check: {e}"))?;
    let (_, ostats) =
        oracle::launch::run(&case.launch, &case.ptx).map_err(|e| format!("the oracle fails on the original: {e}"))?;
    let original_limits = case.launch.limits;
    // Candidates run under a step budget: a loop whose exit was deleted must fail fast.
    let mut launch = case.launch.clone();
    let mut lim = original_limits.unwrap_or_default();
    let cap = ostats.thread_instructions.saturating_mul(4).max(200_000);
    lim.steps = Some(lim.steps.map_or(cap, |s| s.min(cap)));
    launch.limits = Some(lim);
    let mut r = Reducer {
        module: module.clone(),
        launch,
        interesting,
        opts,
        stats: Stats {
            instructions_before: count_instructions(&case.ptx),
            ..Stats::default()
        },
        seen: HashSet::new(),
        uninit_budget: uninit_reads(&prog),
        raw_budget: raw_addresses(&module),
        start,
        exhausted: false,
    };
    r.stats.calls += 1;
    let first = Case {
        ptx: case.ptx.clone(),
        launch: r.launch.clone(),
    };
    if !(r.interesting)(&first) {
        return Err("the original case is not interesting (the predicate rejects it)".into());
    }
    r.seen.insert(key(&oracle::print::print(&r.module), &r.launch));
    r.run();
    let mut launch = r.launch.clone();
    launch.limits = original_limits;
    let ptx = oracle::print::print(&r.module);
    r.stats.instructions_after = count_module(&r.module);
    r.stats.seconds = start.elapsed().as_secs_f64();
    Ok((Case { ptx, launch }, r.stats))
}

fn key(text: &str, l: &LaunchFile) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    l.grid.hash(&mut h);
    l.block.hash(&mut h);
    l.shared_bytes.hash(&mut h);
    h.finish()
}

struct Reducer<'a> {
    module: Module,
    launch: LaunchFile,
    interesting: &'a mut dyn FnMut(&Case) -> bool,
    opts: &'a Options,
    stats: Stats,
    /// Candidates already tried (text and geometry).
    seen: HashSet<u64>,
    /// Reads of possibly unwritten registers the original has: candidates may not have more.
    uninit_budget: usize,
    /// Memory accesses not based on a variable or a pointer parameter the original has (see
    /// [`raw_addresses`]): candidates may not have more.
    raw_budget: usize,
    start: Instant,
    exhausted: bool,
}

/// A statement list: a function's body (`item`) or a `{ }` block inside it (the path of block
/// indices).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct ListPath {
    item: usize,
    blocks: Vec<usize>,
}

fn list_paths(m: &Module) -> Vec<ListPath> {
    fn walk(item: usize, prefix: &[usize], body: &[Stmt], out: &mut Vec<ListPath>) {
        out.push(ListPath {
            item,
            blocks: prefix.to_vec(),
        });
        for (k, s) in body.iter().enumerate() {
            if let Stmt::Block { body, .. } = s {
                let mut p = prefix.to_vec();
                p.push(k);
                walk(item, &p, body, out);
            }
        }
    }
    let mut out = Vec::new();
    for (i, item) in m.items.iter().enumerate() {
        if let Item::Function(f) = item {
            if let Some(body) = &f.body {
                walk(i, &[], body, &mut out);
            }
        }
    }
    out
}

fn list_ref<'m>(m: &'m Module, p: &ListPath) -> Option<&'m Vec<Stmt>> {
    let Item::Function(f) = m.items.get(p.item)? else {
        return None;
    };
    let mut list = f.body.as_ref()?;
    for &k in &p.blocks {
        list = match list.get(k)? {
            Stmt::Block { body, .. } => body,
            _ => return None,
        };
    }
    Some(list)
}

fn list_mut<'m>(m: &'m mut Module, p: &ListPath) -> Option<&'m mut Vec<Stmt>> {
    let Item::Function(f) = m.items.get_mut(p.item)? else {
        return None;
    };
    let mut list = f.body.as_mut()?;
    for &k in &p.blocks {
        list = match list.get_mut(k)? {
            Stmt::Block { body, .. } => body,
            _ => return None,
        };
    }
    Some(list)
}

/// Statements that can be deleted as units: instructions and `{ }` blocks.
fn units(list: &[Stmt]) -> Vec<usize> {
    (0..list.len())
        .filter(|&k| matches!(list[k], Stmt::Instr(_) | Stmt::Block { .. }))
        .collect()
}

fn is_barrier(s: &Stmt) -> bool {
    matches!(s, Stmt::Instr(i) if matches!(i.opcode.as_str(), "bar" | "barrier"))
}

fn contains_barrier(s: &Stmt) -> bool {
    match s {
        Stmt::Block { body, .. } => body.iter().any(contains_barrier),
        s => is_barrier(s),
    }
}

/// The statements of `del` (sorted) that may go: in a launch of several threads, barriers stay,
/// except one that orders nothing: between it and the same barrier before or after it (or the
/// end of the kernel, when `kernel_body`), the code that stays touches no shared or global
/// memory and does not branch or call.
fn deletable(list: &[Stmt], del: Vec<usize>, keep_bars: bool, kernel_body: bool) -> Vec<usize> {
    if !keep_bars {
        return del;
    }
    let set: HashSet<usize> = del.iter().copied().collect();
    // Labels no branch names join no other path.
    let mut named = HashSet::new();
    names_in_body(list, &mut named);
    // Some(true): the same barrier; Some(false): something that needs the barrier; None: on.
    let step = |j: usize, k: usize| -> Option<bool> {
        match (&list[j], &list[k]) {
            (Stmt::Decl(_), _) => None,
            (Stmt::Label { name, .. }, _) if !named.contains(name) => None,
            (Stmt::Instr(a), Stmt::Instr(b)) if is_barrier(&list[j]) => Some(a.guard.is_none() && a == b),
            (Stmt::Instr(a), _) if quiet(a) => None,
            _ => Some(false),
        }
    };
    let redundant = |k: usize| {
        let Stmt::Instr(b) = &list[k] else { return false };
        if b.guard.is_some() {
            return false;
        }
        let before = (0..k).rev().filter(|j| !set.contains(j)).find_map(|j| step(j, k));
        let after = (k + 1..list.len())
            .filter(|j| !set.contains(j))
            .find_map(|j| match &list[j] {
                Stmt::Instr(i) if kernel_body && i.guard.is_none() && matches!(i.opcode.as_str(), "ret" | "exit") => {
                    Some(true)
                }
                _ => step(j, k),
            });
        // The start and the end of the kernel order nothing either.
        before == Some(true) || after == Some(true) || kernel_body && (before.is_none() || after.is_none())
    };
    del.iter()
        .copied()
        .filter(|&k| !contains_barrier(&list[k]) || is_barrier(&list[k]) && redundant(k))
        .collect()
}

/// An instruction that neither touches shared or global memory nor changes control flow.
fn quiet(i: &Instr) -> bool {
    let memory = i.operands.iter().any(|o| matches!(o, Operand::Address(_)))
        && !i.mods.iter().any(|m| matches!(m.as_str(), "param" | "local"));
    !memory
        && !matches!(
            i.opcode.as_str(),
            "bar" | "barrier" | "bra" | "brx" | "call" | "ret" | "exit" | "trap" | "membar" | "fence"
        )
}

/// Sets operand `j` of `i` to `new`; false when `i` has no operand `j`.
fn set_operand(i: &mut Instr, j: usize, new: Operand) -> bool {
    match i.operands.get_mut(j) {
        Some(o) => {
            *o = new;
            true
        }
        None => false,
    }
}

/// The module with statements `idx` (sorted, distinct) of list `p` removed.
fn without(m: &Module, p: &ListPath, idx: &[usize]) -> Option<Module> {
    let mut m = m.clone();
    let list = list_mut(&mut m, p)?;
    let drop: HashSet<usize> = idx.iter().copied().collect();
    let mut k = 0;
    list.retain(|_| {
        k += 1;
        !drop.contains(&(k - 1))
    });
    Some(m)
}

impl Reducer<'_> {
    fn threads(&self) -> u64 {
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
    fn try_edit(&mut self, p: &ListPath, k: usize, edit: impl FnOnce(&mut Instr) -> bool) -> bool {
        let mut m = self.module.clone();
        let Some(Stmt::Instr(i)) = list_mut(&mut m, p).and_then(|l| l.get_mut(k)) else {
            return false;
        };
        if !edit(i) {
            return false;
        }
        let m = dce(&m).unwrap_or(m);
        self.try_module(m)
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
            && oracle::launch::run(&l, &text).is_ok();
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

    fn run(&mut self) {
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
        let value = |n: &str| -> Option<u64> {
            if n == "%laneid" {
                let threads: u64 = l.block.iter().map(|&d| d as u64).product();
                return Some(threads.checked_sub(1)? % 32);
            }
            let (reg, c) = n.split_once('.')?;
            let d = match c {
                "x" => 0,
                "y" => 1,
                "z" => 2,
                _ => return None,
            };
            Some(match reg {
                "%tid" => (l.block[d] as u64).checked_sub(1)?,
                "%ctaid" => (l.grid[d] as u64).checked_sub(1)?,
                "%ntid" => l.block[d] as u64,
                "%nctaid" => l.grid[d] as u64,
                _ => return None,
            })
        };
        for p in list_paths(&self.module) {
            let Some(list) = list_mut(&mut m, &p) else { continue };
            for st in list.iter_mut() {
                let Stmt::Instr(i) = st else { continue };
                for o in i.operands.iter_mut() {
                    if let Operand::Expr(Expr::Name(n)) = o {
                        if let Some(v) = value(n) {
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

    // ---- operands ----

    /// Replaces register sources with constants, last instruction first, each candidate with the
    /// code it leaves dead removed.
    fn constants(&mut self) -> bool {
        let mut any = false;
        // Attempts already made in this pass, by content (positions move when code is deleted).
        let mut tried: HashSet<(usize, String, usize)> = HashSet::new();
        'again: loop {
            // Positions move when code is deleted: probe the current case.
            let probes = if self.opts.probe {
                probe(&self.module, &self.launch).unwrap_or_default()
            } else {
                HashMap::new()
            };
            let multi = self.threads() > 1;
            let sites = sites(&self.module);
            for s in sites.iter().rev() {
                let Some(Stmt::Instr(ins)) = list_ref(&self.module, &s.list).and_then(|l| l.get(s.stmt)) else {
                    continue;
                };
                if !tried.insert((s.list.item, oracle::print::instr(ins), s.operand)) {
                    continue;
                }
                let mut values: Vec<u64> = Vec::new();
                if let Some(Operand::Expr(Expr::Name(n))) = ins.operands.get(s.operand) {
                    values.extend(sreg_value(n, &self.launch));
                }
                let probed = probes.get(&(s.list.clone(), s.stmt, s.operand));
                // An address-like value is the oracle's memory layout, not the program's.
                let usable = |v: u64| v < 1 << 44 && !s.address;
                if let Some(p) = probed {
                    if p.uniform && usable(p.last) {
                        // The same in every thread: no thread's value changes.
                        values.push(p.last);
                    } else if !(multi && s.feeds_address) {
                        // The thread that matters is often the last one (the launch was
                        // shrunk to the smallest that still shows the difference).
                        values.extend([p.last, p.first].into_iter().filter(|&v| usable(v)));
                    }
                }
                if s.replaceable(multi) {
                    values.extend(s.ty.small_values());
                }
                let mut uniq = Vec::new();
                for v in values {
                    if !uniq.contains(&v) {
                        uniq.push(v);
                    }
                }
                let values = uniq;
                for v in values {
                    for lit in s.ty.literals(v) {
                        if self.try_edit(&s.list, s.stmt, |i| set_operand(i, s.operand, Operand::Expr(lit))) {
                            any = true;
                            continue 'again;
                        }
                        if self.exhausted {
                            return any;
                        }
                    }
                }
            }
            break;
        }
        any
    }

    /// Replaces a register source by a register its only definition reads (`add %a, %b, 0`
    /// then `[%a+4]` becomes `[%b+4]`), so that the definition dies.
    fn bypass(&mut self) -> bool {
        let mut any = false;
        let mut tried: HashSet<(usize, String, usize, String)> = HashSet::new();
        'again: loop {
            let multi = self.threads() > 1;
            // With several threads, a value an address depends on may only be replaced by one
            // equal to it in every thread (else two threads could meet at one address).
            let probes = if multi && self.opts.probe {
                probe(&self.module, &self.launch).unwrap_or_default()
            } else {
                HashMap::new()
            };
            let mut cands: Vec<(ListPath, usize, usize, Operand)> = Vec::new();
            let paths = list_paths(&self.module);
            for p in &paths {
                let Some(Item::Function(f)) = self.module.items.get(p.item) else {
                    continue;
                };
                let Some(body) = f.body.as_deref() else { continue };
                let regs = Regs::of(body);
                let (slice, _) = address_sets(body, &regs);
                // Each register's definitions, by position.
                let mut defs: HashMap<&str, Vec<(&ListPath, usize, &Instr)>> = HashMap::new();
                for q in paths.iter().filter(|q| q.item == p.item) {
                    let Some(l) = list_ref(&self.module, q) else { continue };
                    for (k, st) in l.iter().enumerate() {
                        if let Stmt::Instr(i) = st {
                            for d in dest_and_sources(i).0 {
                                defs.entry(d).or_default().push((q, k, i));
                            }
                        }
                    }
                }
                let Some(list) = list_ref(&self.module, p) else {
                    continue;
                };
                for (k, st) in list.iter().enumerate().rev() {
                    let Stmt::Instr(i) = st else { continue };
                    if matches!(i.opcode.as_str(), "call" | "bra" | "brx") {
                        continue;
                    }
                    let (dst, _) = dest_and_sources(i);
                    let feeds_address = dst.iter().any(|d| slice.contains(*d));
                    let first = usize::from(!first_is_source(&i.opcode));
                    for (j, o) in i.operands.iter().enumerate().skip(first) {
                        let is_addr = matches!(o, Operand::Address(_));
                        let mut names = Vec::new();
                        match o {
                            Operand::Expr(e) | Operand::Address(e) => e.names(&mut names),
                            _ => continue,
                        }
                        for r in names {
                            let Some(rty) = regs.ty(r) else { continue };
                            let Some([(dp, dk, d)]) = defs.get(r).map(Vec::as_slice) else {
                                continue;
                            };
                            if std::ptr::eq(*d, i) {
                                continue;
                            }
                            // `add %a, %b, C` then `[%a+K]`: `[%b+C+K]`, the same address.
                            if let Some(folded) = fold_address(o, r, d) {
                                cands.push((p.clone(), k, j, folded));
                            }
                            if multi && is_addr {
                                continue;
                            }
                            for (jj, o2) in d.operands.iter().enumerate().skip(1) {
                                let Operand::Expr(Expr::Name(s)) = o2 else { continue };
                                if s == r || regs.ty(s) != Some(rty) {
                                    continue;
                                }
                                if multi && feeds_address {
                                    let here = probes.get(&((*p).clone(), k, j));
                                    let there = probes.get(&((*dp).clone(), *dk, jj));
                                    if !matches!((here, there), (Some(a), Some(b)) if a.all == b.all) {
                                        continue;
                                    }
                                }
                                let mut o = o.clone();
                                if let Operand::Expr(e) | Operand::Address(e) = &mut o {
                                    rename(e, r, s);
                                }
                                cands.push((p.clone(), k, j, o));
                            }
                        }
                    }
                }
            }
            for (p, k, j, new) in cands {
                let Some(Stmt::Instr(i)) = list_ref(&self.module, &p).and_then(|l| l.get(k)) else {
                    continue;
                };
                if !tried.insert((p.item, oracle::print::instr(i), j, format!("{new:?}"))) {
                    continue;
                }
                if self.try_edit(&p, k, |i| set_operand(i, j, new)) {
                    any = true;
                    continue 'again;
                }
                if self.exhausted {
                    return any;
                }
            }
            break;
        }
        any
    }

    fn drop_guards(&mut self) -> bool {
        let mut any = false;
        let mut tried: HashSet<(usize, String)> = HashSet::new();
        'again: loop {
            let mut cands = Vec::new();
            for p in list_paths(&self.module) {
                let Some(list) = list_ref(&self.module, &p) else {
                    continue;
                };
                for (k, s) in list.iter().enumerate() {
                    if let Stmt::Instr(i) = s {
                        if i.guard.is_some() {
                            cands.push((p.clone(), k, oracle::print::instr(i)));
                        }
                    }
                }
            }
            for (p, k, text) in cands {
                if !tried.insert((p.item, text)) {
                    continue;
                }
                if self.try_edit(&p, k, |i| i.guard.take().is_some()) {
                    any = true;
                    continue 'again;
                }
                if self.exhausted {
                    return any;
                }
            }
            break;
        }
        any
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
            if valid && self.seen.insert(key(&text, &self.launch)) && oracle::launch::run(&self.launch, &text).is_ok() {
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

fn branch_target(s: &Stmt) -> Option<(&str, bool)> {
    match s {
        Stmt::Instr(i) if i.opcode == "bra" => match i.operands.first() {
            Some(Operand::Expr(Expr::Name(l))) => Some((l.as_str(), i.guard.is_none())),
            _ => None,
        },
        _ => None,
    }
}

fn ends_flow(s: &Stmt) -> bool {
    matches!(s, Stmt::Instr(i) if matches!(i.opcode.as_str(), "bra" | "brx" | "ret" | "exit" | "trap"))
}

/// Structured regions of a list, largest first: basic blocks between labels, the span of a
/// forward branch (with and without its label), a loop (a label to the branch back to it), and
/// the two ways to keep one arm of an if/else.
fn regions(list: &[Stmt]) -> Vec<Vec<usize>> {
    let labels: HashMap<&str, usize> = list
        .iter()
        .enumerate()
        .filter_map(|(k, s)| match s {
            Stmt::Label { name, .. } => Some((name.as_str(), k)),
            _ => None,
        })
        .collect();
    let mut bounds: BTreeSet<usize> = [0, list.len()].into();
    for (k, s) in list.iter().enumerate() {
        if matches!(s, Stmt::Label { .. }) {
            bounds.insert(k);
        }
        if ends_flow(s) {
            bounds.insert(k + 1);
        }
    }
    let mut out: BTreeSet<Vec<usize>> = BTreeSet::new();
    let b: Vec<usize> = bounds.into_iter().collect();
    for w in b.windows(2) {
        out.insert((w[0]..w[1]).collect());
    }
    for (i, s) in list.iter().enumerate() {
        let Some((target, _)) = branch_target(s) else { continue };
        let Some(&j) = labels.get(target) else { continue };
        if j > i {
            out.insert((i..j).collect());
            out.insert((i..=j).collect());
            // `@p bra ELSE; A; bra END; ELSE: B; END:`
            if let Some((end, true)) = list.get(j.wrapping_sub(1)).and_then(branch_target) {
                if let Some(&m) = labels.get(end) {
                    if m > j {
                        out.insert((i..m).collect());
                        let mut then_only: Vec<usize> = vec![i];
                        then_only.extend(j - 1..m);
                        out.insert(then_only);
                    }
                }
            }
        } else {
            out.insert((j..=i).collect());
        }
    }
    let mut v: Vec<Vec<usize>> = out
        .into_iter()
        .filter(|r| {
            r.iter()
                .any(|&k| matches!(list[k], Stmt::Instr(_) | Stmt::Block { .. }))
        })
        .collect();
    v.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    v
}

// ---- registers, sites and values ----

/// The `.reg` declarations of a function: single names and parameterized ranges.
#[derive(Default)]
struct Regs {
    single: HashMap<String, String>,
    ranges: HashMap<String, (u64, String)>,
}

impl Regs {
    fn of(body: &[Stmt]) -> Regs {
        fn walk(body: &[Stmt], r: &mut Regs) {
            for s in body {
                match s {
                    Stmt::Decl(d) if d.space == "reg" => match d.range {
                        Some(n) => {
                            r.ranges.insert(d.name.clone(), (n, d.ty.clone()));
                        }
                        None => {
                            r.single.insert(d.name.clone(), d.ty.clone());
                        }
                    },
                    Stmt::Block { body, .. } => walk(body, r),
                    _ => {}
                }
            }
        }
        let mut r = Regs::default();
        walk(body, &mut r);
        r
    }

    fn ty(&self, name: &str) -> Option<&str> {
        if let Some(t) = self.single.get(name) {
            return Some(t);
        }
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let idx: u64 = name.get(stem.len()..)?.parse().ok()?;
        match self.ranges.get(stem) {
            Some((n, t)) if idx < *n => Some(t),
            _ => None,
        }
    }
}

const SREGS: [&str; 16] = [
    "%tid",
    "%ntid",
    "%ctaid",
    "%nctaid",
    "%laneid",
    "%warpid",
    "%nwarpid",
    "%smid",
    "%nsmid",
    "%gridid",
    "%lanemask",
    "%clock",
    "%globaltimer",
    "%envreg",
    "%dynamic_smem_size",
    "%total_smem_size",
];

/// The value of a special register that is the same in every thread of the launch: the
/// geometry, and an index along a dimension of size 1.
fn sreg_value(n: &str, l: &LaunchFile) -> Option<u64> {
    let (reg, c) = n.split_once('.')?;
    let d = match c {
        "x" => 0,
        "y" => 1,
        "z" => 2,
        _ => return None,
    };
    Some(match reg {
        "%ntid" => l.block[d] as u64,
        "%nctaid" => l.grid[d] as u64,
        "%tid" if l.block[d] == 1 => 0,
        "%ctaid" if l.grid[d] == 1 => 0,
        _ => return None,
    })
}

fn is_sreg(n: &str) -> bool {
    SREGS.iter().any(|s| n.starts_with(s))
}

/// Opcodes whose first operand is not a destination (`bar.red` has one; its operand 0 is
/// taken for a source here, which only costs a candidate the checker rejects).
fn first_is_source(opcode: &str) -> bool {
    matches!(
        opcode,
        "st" | "red" | "bar" | "barrier" | "brx" | "prefetch" | "prefetchu" | "nanosleep" | "bra" | "call"
    )
}

/// `[r]` or `[r±K]` where `r` is defined by `add %r, %s, C` (or `add %r, C, %s`): `[%s+C±K]`.
fn fold_address(o: &Operand, r: &str, def: &Instr) -> Option<Operand> {
    let Operand::Address(e) = o else { return None };
    let k = match e {
        Expr::Name(n) if n == r => 0,
        Expr::Binary(op, a, b) if matches!(&**a, Expr::Name(n) if n == r) => {
            let c = oracle::check::const_int(b)?;
            match op.as_str() {
                "+" => c,
                "-" => c.checked_neg()?,
                _ => return None,
            }
        }
        _ => return None,
    };
    if def.opcode != "add" || def.guard.is_some() || !def.mods.iter().any(|m| matches!(m.as_str(), "s64" | "u64")) {
        return None;
    }
    let (s, c) = match def.operands.as_slice() {
        [_, Operand::Expr(Expr::Name(s)), Operand::Expr(c)] | [_, Operand::Expr(c), Operand::Expr(Expr::Name(s))] => {
            (s, oracle::check::const_int(c)?)
        }
        _ => return None,
    };
    let total = c.checked_add(k)?;
    let base = Box::new(Expr::Name(s.clone()));
    let off = |v: i64| {
        Box::new(Expr::Int {
            value: v.unsigned_abs(),
            unsigned: false,
        })
    };
    Some(Operand::Address(match total {
        0 => Expr::Name(s.clone()),
        t if t > 0 => Expr::Binary("+".into(), base, off(t)),
        t => Expr::Binary("-".into(), base, off(t)),
    }))
}

fn rename(e: &mut Expr, from: &str, to: &str) {
    match e {
        Expr::Name(n) if n == from => *n = to.to_string(),
        Expr::Unary(_, a) => rename(a, from, to),
        Expr::Binary(_, a, b) => {
            rename(a, from, to);
            rename(b, from, to);
        }
        Expr::Cond(c, a, b) => {
            rename(c, from, to);
            rename(a, from, to);
            rename(b, from, to);
        }
        _ => {}
    }
}

/// Registers an instruction writes (by name) and the names it reads.
fn dest_and_sources(i: &Instr) -> (Vec<&str>, Vec<&str>) {
    let mut dst = Vec::new();
    let mut src = Vec::new();
    for (k, o) in i.operands.iter().enumerate() {
        if k == 0 && !first_is_source(&i.opcode) {
            o.names(&mut dst);
        } else {
            o.names(&mut src);
        }
    }
    if let Some((_, p)) = &i.guard {
        src.push(p);
    }
    (dst, src)
}

/// The type of a replaceable operand and the constants it can take.
#[derive(Clone, Copy, Debug)]
struct OpTy {
    ty: Type,
}

impl OpTy {
    fn small_values(&self) -> Vec<u64> {
        let bits = self.ty.bits();
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        match self.ty.kind {
            Kind::Pred => vec![0, 1],
            Kind::Float(FloatFormat::F32) => vec![0, 0x3F80_0000, 0xBF80_0000],
            Kind::Float(FloatFormat::F64) => vec![0, 0x3FF0_0000_0000_0000, 0xBFF0_0000_0000_0000],
            _ => vec![0, 1, mask],
        }
    }

    /// `v` written as constants the checker may accept for this operand, the register's own
    /// kind first (a `.b32` register may be an integer or an f32 operand).
    fn literals(&self, v: u64) -> Vec<Expr> {
        let bits = self.ty.bits();
        let int = |v: u64| -> Expr {
            if self.ty.kind == Kind::Signed && bits < 64 && v >> (bits - 1) & 1 == 1 {
                let mag = (1u64 << bits) - v;
                Expr::Unary(
                    '-',
                    Box::new(Expr::Int {
                        value: mag,
                        unsigned: false,
                    }),
                )
            } else if self.ty.kind == Kind::Signed && bits == 64 && (v as i64) < 0 && v != 1 << 63 {
                Expr::Unary(
                    '-',
                    Box::new(Expr::Int {
                        value: (v as i64).unsigned_abs(),
                        unsigned: false,
                    }),
                )
            } else {
                Expr::Int {
                    value: v,
                    unsigned: v > i64::MAX as u64,
                }
            }
        };
        match self.ty.kind {
            Kind::Pred => vec![int(v & 1)],
            Kind::Float(FloatFormat::F32) => vec![Expr::Float { bits: v, f32: true }],
            Kind::Float(FloatFormat::F64) => vec![Expr::Float { bits: v, f32: false }],
            // Narrow and packed float formats take no constants.
            Kind::Float(_) => vec![],
            Kind::Bits if bits == 32 => vec![int(v), Expr::Float { bits: v, f32: true }],
            Kind::Bits if bits == 64 => vec![int(v), Expr::Float { bits: v, f32: false }],
            _ if bits <= 64 => vec![int(v)],
            _ => vec![],
        }
    }
}

/// A source operand that may become a constant.
#[derive(Clone, Debug)]
struct Site {
    list: ListPath,
    stmt: usize,
    operand: usize,
    ty: OpTy,
    /// The register (`None`: a special register or `!p`).
    reg: Option<String>,
    /// The instruction computes a value an address depends on.
    feeds_address: bool,
    /// The register holds (or derives from) a variable's address.
    address: bool,
}

impl Site {
    fn replaceable(&self, multi_thread: bool) -> bool {
        !(self.address || multi_thread && self.feeds_address)
    }
}

/// Every register (or special register, or `!p`) source operand of the module, in program
/// order.
fn sites(m: &Module) -> Vec<Site> {
    let mut out = Vec::new();
    for p in list_paths(m) {
        let Some(Item::Function(f)) = m.items.get(p.item) else {
            continue;
        };
        let Some(body) = f.body.as_deref() else { continue };
        let regs = Regs::of(body);
        let (addr_slice, addr_taint) = address_sets(body, &regs);
        let Some(list) = list_ref(m, &p) else { continue };
        for (k, s) in list.iter().enumerate() {
            let Stmt::Instr(i) = s else { continue };
            if matches!(i.opcode.as_str(), "call" | "bra" | "brx") {
                continue;
            }
            let (dst, _) = dest_and_sources(i);
            let feeds_address = dst.iter().any(|d| addr_slice.contains(*d));
            let first = usize::from(!first_is_source(&i.opcode));
            for (j, o) in i.operands.iter().enumerate().skip(first) {
                let (reg, ty) = match o {
                    Operand::Expr(Expr::Name(n)) => match regs.ty(n) {
                        Some(t) => (Some(n.clone()), Type::parse(t)),
                        None if is_sreg(n) => (None, Type::parse(if n.contains("64") { "u64" } else { "u32" })),
                        None => continue,
                    },
                    Operand::Not(p) if regs.ty(p).is_some() => (None, Type::parse("pred")),
                    _ => continue,
                };
                let Some(ty) = ty else { continue };
                let address = reg.as_deref().is_some_and(|r| addr_taint.contains(r));
                out.push(Site {
                    list: p.clone(),
                    stmt: k,
                    operand: j,
                    ty: OpTy { ty },
                    reg,
                    feeds_address,
                    address,
                });
            }
        }
    }
    out
}

fn all_instrs(body: &[Stmt]) -> Vec<&Instr> {
    fn walk<'b>(body: &'b [Stmt], out: &mut Vec<&'b Instr>) {
        for s in body {
            match s {
                Stmt::Instr(i) => out.push(i),
                Stmt::Block { body, .. } => walk(body, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(body, &mut out);
    out
}

/// Per function, by register name: the registers addresses are computed from (the backward slice
/// of every `[...]` operand), and those holding a value derived from a variable's address (`mov
/// %r, var`, and what is computed from it).
fn address_sets(body: &[Stmt], regs: &Regs) -> (HashSet<String>, HashSet<String>) {
    let instrs = all_instrs(body);
    let mut slice: HashSet<String> = HashSet::new();
    for i in &instrs {
        for o in &i.operands {
            if let Operand::Address(e) = o {
                let mut v = Vec::new();
                e.names(&mut v);
                slice.extend(v.into_iter().filter(|n| regs.ty(n).is_some()).map(str::to_string));
            }
        }
    }
    let mut taint: HashSet<String> = HashSet::new();
    loop {
        let n = (slice.len(), taint.len());
        for i in &instrs {
            let (dst, src) = dest_and_sources(i);
            if dst.iter().any(|d| slice.contains(*d)) {
                slice.extend(src.iter().filter(|n| regs.ty(n).is_some()).map(|s| s.to_string()));
            }
            let from_var = i.operands.iter().enumerate().any(|(k, o)| {
                (k > 0 || first_is_source(&i.opcode))
                    && matches!(o, Operand::Expr(e) if {
                        let mut v = Vec::new();
                        e.names(&mut v);
                        v.iter().any(|n| (regs.ty(n).is_none() && !is_sreg(n) && *n != "WARP_SZ") || taint.contains(*n))
                    })
            });
            if from_var && !matches!(i.opcode.as_str(), "call" | "bra" | "brx") {
                taint.extend(dst.iter().map(|d| d.to_string()));
            }
        }
        if (slice.len(), taint.len()) == n {
            break;
        }
    }
    (slice, taint)
}

/// Memory accesses whose address derives from no variable and no register loaded from a
/// parameter: a constant address, or one computed from data. A reduction that turns
/// `[sh + 4·i]` into `[4·i]` (the oracle places `sh` at 0) would depend on the oracle's memory
/// layout, which hardware does not share.
fn raw_addresses(m: &Module) -> usize {
    let mut n = 0;
    for item in &m.items {
        let Item::Function(f) = item else { continue };
        let Some(body) = f.body.as_deref() else { continue };
        let regs = Regs::of(body);
        let (_, taint) = address_sets(body, &regs);
        let instrs = all_instrs(body);
        // Registers loaded from parameters (pointers to buffers, `.param` results).
        let mut based: HashSet<&str> = HashSet::new();
        for i in &instrs {
            if i.opcode == "ld" && i.mods.iter().any(|m| m == "param") {
                based.extend(dest_and_sources(i).0);
            }
        }
        loop {
            let before = based.len();
            for i in &instrs {
                let (dst, src) = dest_and_sources(i);
                if src.iter().any(|s| based.contains(s)) {
                    based.extend(dst);
                }
            }
            if based.len() == before {
                break;
            }
        }
        for i in &instrs {
            if i.mods.iter().any(|m| m == "param") {
                continue;
            }
            for o in &i.operands {
                let Operand::Address(e) = o else { continue };
                let mut names = Vec::new();
                e.names(&mut names);
                let anchored = names
                    .iter()
                    .any(|n| regs.ty(n).is_none() || taint.contains(*n) || based.contains(n));
                if !anchored {
                    n += 1;
                }
            }
        }
    }
    n
}

// ---- the decoded program: dataflow ----

/// Register slots an instruction reads and writes (the guard among the reads).
fn slots(inst: &Inst) -> (Vec<u32>, Vec<u32>) {
    let mut r = Vec::new();
    let mut w = Vec::new();
    let src = |s: &Src, r: &mut Vec<u32>| {
        if let Src::Reg(k) = s {
            r.push(*k);
        }
    };
    let addr = |a: &Addr, r: &mut Vec<u32>| {
        if let Addr::Reg(k, _) = a {
            r.push(*k);
        }
    };
    let dst = |slot: u32, w: &mut Vec<u32>| {
        if slot != u32::MAX {
            w.push(slot);
        }
    };
    if let Some((g, _)) = inst.guard {
        r.push(g);
    }
    match &inst.op {
        Op::Pure { dsts, srcs, .. } | Op::Warp { dsts, srcs, .. } => {
            srcs.iter().for_each(|s| src(&s.src, &mut r));
            dsts.iter().for_each(|d| dst(d.slot, &mut w));
        }
        Op::Fast { d, a, b, c, .. } => {
            [a, b, c].into_iter().for_each(|s| src(s, &mut r));
            dst(d.slot, &mut w);
        }
        Op::Ld { dsts, addr: a, .. } => {
            addr(a, &mut r);
            dsts.iter().for_each(|d| dst(d.slot, &mut w));
        }
        Op::St { srcs, addr: a, .. } => {
            addr(a, &mut r);
            srcs.iter().for_each(|s| src(s, &mut r));
        }
        Op::Cvta { d, a, .. } | Op::Isspacep { d, a, .. } => {
            src(a, &mut r);
            dst(d.slot, &mut w);
        }
        Op::Brx { index, .. } => src(index, &mut r),
        Op::Call { callee, args, rets } => {
            if let Callee::Indirect { fptr, .. } = callee {
                src(fptr, &mut r);
            }
            for a in args {
                if let Arg::Val(s) = a {
                    src(s, &mut r);
                }
            }
            for t in rets {
                if let RetTo::Reg(d) = t {
                    dst(d.slot, &mut w);
                }
            }
        }
        Op::Bar { id, count, pred, d, .. } => {
            src(id, &mut r);
            if let Some(c) = count {
                src(c, &mut r);
            }
            if let Some((p, _)) = pred {
                src(p, &mut r);
            }
            if let Some(d) = d {
                dst(d.slot, &mut w);
            }
        }
        Op::WarpSync { mask } => src(mask, &mut r),
        Op::Atom { d, addr: a, b, c, .. } => {
            addr(a, &mut r);
            b.iter().for_each(|s| src(s, &mut r));
            src(c, &mut r);
            d.iter().for_each(|d| dst(d.slot, &mut w));
        }
        Op::Bra { .. } | Op::Ret | Op::Exit | Op::Trap | Op::Nop | Op::Unsupported { .. } => {}
    }
    (r, w)
}

/// Each defined function's code range.
fn func_ranges(prog: &Program) -> Vec<(usize, std::ops::Range<usize>)> {
    let mut starts: Vec<(usize, usize)> = prog
        .funcs
        .iter()
        .enumerate()
        .filter(|(_, f)| f.defined)
        .map(|(k, f)| (f.start as usize, k))
        .collect();
    starts.sort_unstable();
    let mut out = Vec::new();
    for (n, &(s, k)) in starts.iter().enumerate() {
        let e = starts.get(n + 1).map_or(prog.code.len(), |x| x.0);
        if s <= e && e <= prog.code.len() {
            out.push((k, s..e));
        }
    }
    out
}

/// Reads of a register that some path from the function's entry reaches without writing it
/// (a must-analysis: a guarded write may not happen).
fn uninit_reads(prog: &Program) -> usize {
    let mut count = 0;
    for (k, range) in func_ranges(prog) {
        let n = prog.funcs[k].nregs as usize;
        let words = n.div_ceil(64).max(1);
        let len = range.len();
        let mut state: Vec<Option<Vec<u64>>> = vec![None; len];
        if len == 0 {
            continue;
        }
        state[0] = Some(vec![0; words]);
        let mut work: Vec<usize> = vec![0];
        let mut queued = vec![false; len];
        queued[0] = true;
        while let Some(i) = work.pop() {
            queued[i] = false;
            let Some(mut out) = state[i].clone() else { continue };
            let inst = &prog.code[range.start + i];
            let (_, w) = slots(inst);
            if inst.guard.is_none() {
                for s in w {
                    if let Some(word) = out.get_mut(s as usize / 64) {
                        *word |= 1 << (s % 64);
                    }
                }
            }
            for succ in successors(inst, range.start + i, &range) {
                let j = succ - range.start;
                let changed = match &mut state[j] {
                    None => {
                        state[j] = Some(out.clone());
                        true
                    }
                    Some(cur) => {
                        let mut ch = false;
                        for (c, o) in cur.iter_mut().zip(&out) {
                            let v = *c & *o;
                            ch |= v != *c;
                            *c = v;
                        }
                        ch
                    }
                };
                if changed && !queued[j] {
                    queued[j] = true;
                    work.push(j);
                }
            }
        }
        for (i, st) in state.iter().enumerate() {
            let Some(st) = st else { continue };
            let (r, _) = slots(&prog.code[range.start + i]);
            count += r
                .iter()
                .filter(|&&s| st.get(s as usize / 64).is_none_or(|w| w >> (s % 64) & 1 == 0))
                .count();
        }
    }
    count
}

fn successors(inst: &Inst, pc: usize, range: &std::ops::Range<usize>) -> Vec<usize> {
    let mut v = Vec::new();
    let next = pc + 1;
    let guarded = inst.guard.is_some();
    match &inst.op {
        Op::Bra { target } => {
            v.push(*target as usize);
            if guarded {
                v.push(next);
            }
        }
        Op::Brx { targets, .. } => {
            v.extend(targets.iter().map(|&t| t as usize));
            if guarded {
                v.push(next);
            }
        }
        Op::Ret | Op::Exit | Op::Trap => {
            if guarded {
                v.push(next);
            }
        }
        _ => v.push(next),
    }
    v.retain(|t| range.contains(t));
    v
}

/// The instructions of a module in the checker's order, by function: each one's list and index.
fn instr_positions(m: &Module) -> Vec<(String, Vec<(ListPath, usize)>)> {
    fn walk(item: usize, prefix: &[usize], body: &[Stmt], out: &mut Vec<(ListPath, usize)>) {
        for (k, s) in body.iter().enumerate() {
            match s {
                Stmt::Instr(_) => out.push((
                    ListPath {
                        item,
                        blocks: prefix.to_vec(),
                    },
                    k,
                )),
                Stmt::Block { body, .. } => {
                    let mut p = prefix.to_vec();
                    p.push(k);
                    walk(item, &p, body, out);
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for (i, item) in m.items.iter().enumerate() {
        if let Item::Function(f) = item {
            if let Some(body) = &f.body {
                let mut v = Vec::new();
                walk(i, &[], body, &mut v);
                out.push((f.name.clone(), v));
            }
        }
    }
    out
}

/// The module without instructions that have no effect but their results, which nobody reads,
/// repeated until none is left; `None` when there is nothing to remove (or the module does not
/// check).
fn dce(m: &Module) -> Option<Module> {
    let mut cur = m.clone();
    let mut changed = false;
    for _ in 0..32 {
        // Dead code is the same under either grammar; the manual's accepts more.
        let prog = oracle::check::check_with(
            &cur,
            oracle::check::Options {
                grammar: oracle::check::Grammar::Manual,
                ..Default::default()
            },
        )
        .ok()?;
        let mut dead: BTreeMap<ListPath, Vec<usize>> = BTreeMap::new();
        for (name, positions) in instr_positions(&cur) {
            let f = prog.funcs.iter().find(|f| f.name == name && f.defined)?;
            let start = f.start as usize;
            let code = prog.code.get(start..start + positions.len())?;
            let read: HashSet<u32> = code.iter().flat_map(|i| slots(i).0).collect();
            for (inst, (p, k)) in code.iter().zip(&positions) {
                let pure = matches!(
                    inst.op,
                    Op::Pure { .. } | Op::Fast { .. } | Op::Ld { .. } | Op::Cvta { .. } | Op::Isspacep { .. }
                );
                if pure && slots(inst).1.iter().all(|s| !read.contains(s)) {
                    dead.entry(p.clone()).or_default().push(*k);
                }
            }
        }
        if dead.is_empty() {
            break;
        }
        changed = true;
        // Deeper lists first: removing from a block does not move its parent's indices.
        for (p, idx) in dead.iter().rev() {
            cur = without(&cur, p, idx)?;
        }
    }
    changed.then_some(cur)
}

// ---- probing operand values ----

const PROBE_BUF: &str = "__ptxconf_probe";
const PROBE_PTR: &str = "__ptxconf_probe_ptr";
const PROBE_REG: &str = "%__ptxconf_probe";
const PROBE_OFF: &str = "%__ptxconf_probe_off";
const PROBE_T: &str = "%__ptxconf_probe_t";

fn loc() -> Loc {
    Loc::default()
}

fn mk_instr(opcode: &str, mods: &[&str], operands: Vec<Operand>) -> Stmt {
    Stmt::Instr(Instr {
        guard: None,
        opcode: opcode.into(),
        mods: mods.iter().map(|s| s.to_string()).collect(),
        operands,
        loc: loc(),
    })
}

fn name(n: &str) -> Expr {
    Expr::Name(n.into())
}

fn reg_decl(space: &str, ty: &str, n: &str) -> VarDecl {
    VarDecl {
        linkage: Vec::new(),
        space: space.into(),
        attrs: vec![(ty.into(), None)],
        ty: ty.into(),
        name: n.into(),
        range: None,
        dims: Vec::new(),
        init: None,
        loc: loc(),
    }
}

/// What a probe saw at one site: the value in the first and the last thread (by linear index)
/// that ran the instruction, the last time each ran it, and whether every thread that ran it saw
/// the same value.
#[derive(Clone, Debug, PartialEq)]
struct Probed {
    first: u64,
    last: u64,
    uniform: bool,
    /// Each thread's value (`None`: it did not run the instruction).
    all: Vec<Option<u64>>,
}

/// Probe buffers above this many bytes are not worth it (a huge launch not yet shrunk).
const PROBE_MAX_BYTES: u64 = 16 << 20;

/// The values register sources had in the oracle's run of the case, by site: the case with a
/// store of every such register before its instruction, into a slot per site and thread of an
/// extra buffer. Sites that never ran are absent.
fn probe(m: &Module, l: &LaunchFile) -> Option<HashMap<(ListPath, usize, usize), Probed>> {
    let sites: Vec<Site> = sites(m)
        .into_iter()
        .filter(|s| s.reg.is_some() && s.ty.ty.kind != Kind::Pred && matches!(s.ty.ty.bits(), 16 | 32 | 64))
        .collect();
    let threads: u64 = l.grid.iter().chain(&l.block).map(|&d| d as u64).product();
    let size = 8u64.checked_mul(threads)?.checked_mul(sites.len() as u64)?;
    if sites.is_empty() || size > PROBE_MAX_BYTES {
        return None;
    }
    let mut pm = m.clone();
    // Stores before each site's instruction, deeper lists and later statements first so that
    // earlier insertions do not move later ones.
    let mut by_list: BTreeMap<ListPath, Vec<(usize, usize)>> = BTreeMap::new();
    for (n, s) in sites.iter().enumerate() {
        by_list.entry(s.list.clone()).or_default().push((s.stmt, n));
    }
    for (p, mut v) in by_list.into_iter().rev() {
        v.sort_by(|a, b| b.cmp(a));
        let list = list_mut(&mut pm, &p)?;
        for (stmt, n) in v {
            let s = &sites[n];
            let bits = s.ty.ty.bits().to_string();
            let st = mk_instr(
                "st",
                &["global", &format!("b{bits}")],
                vec![
                    Operand::Address(Expr::Binary(
                        "+".into(),
                        Box::new(name(PROBE_REG)),
                        Box::new(Expr::Int {
                            value: 8 * threads * n as u64,
                            unsigned: false,
                        }),
                    )),
                    Operand::Expr(name(s.reg.as_deref()?)),
                ],
            );
            list.insert(stmt, st);
        }
    }
    // Every function finds the probe buffer through a module variable the kernel sets first,
    // and its thread's slot by the linear thread index.
    let t = |k: usize| format!("{PROBE_T}{k}");
    let op = |n: &str| Operand::Expr(name(n));
    let mut entry_found = false;
    for item in pm.items.iter_mut() {
        let Item::Function(f) = item else { continue };
        let is_entry = f.entry && f.name == l.entry;
        let Some(body) = f.body.as_mut() else { continue };
        let mut pro = vec![
            Stmt::Decl(reg_decl("reg", "b64", PROBE_REG)),
            Stmt::Decl(reg_decl("reg", "b64", PROBE_OFF)),
            Stmt::Decl(VarDecl {
                range: Some(3),
                ..reg_decl("reg", "b32", PROBE_T)
            }),
        ];
        // ((ctaid.z·nctaid.y + ctaid.y)·nctaid.x + ctaid.x)·ntid… + tid…, z to x.
        pro.push(mk_instr("mov", &["u32"], vec![op(&t(0)), op("%ctaid.z")]));
        for (scale, add) in [
            ("%nctaid.y", "%ctaid.y"),
            ("%nctaid.x", "%ctaid.x"),
            ("%ntid.z", "%tid.z"),
            ("%ntid.y", "%tid.y"),
            ("%ntid.x", "%tid.x"),
        ] {
            pro.push(mk_instr("mov", &["u32"], vec![op(&t(1)), op(scale)]));
            pro.push(mk_instr("mov", &["u32"], vec![op(&t(2)), op(add)]));
            pro.push(mk_instr(
                "mad",
                &["lo", "u32"],
                vec![op(&t(0)), op(&t(0)), op(&t(1)), op(&t(2))],
            ));
        }
        pro.push(mk_instr(
            "mul",
            &["wide", "u32"],
            vec![
                op(PROBE_OFF),
                op(&t(0)),
                Operand::Expr(Expr::Int {
                    value: 8,
                    unsigned: false,
                }),
            ],
        ));
        if is_entry {
            entry_found = true;
            f.params.push(reg_decl("param", "u64", PROBE_BUF));
            pro.push(mk_instr(
                "ld",
                &["param", "u64"],
                vec![op(PROBE_REG), Operand::Address(name(PROBE_BUF))],
            ));
            pro.push(mk_instr(
                "st",
                &["global", "u64"],
                vec![Operand::Address(name(PROBE_PTR)), op(PROBE_REG)],
            ));
        } else {
            pro.push(mk_instr(
                "ld",
                &["global", "u64"],
                vec![op(PROBE_REG), Operand::Address(name(PROBE_PTR))],
            ));
        }
        pro.push(mk_instr(
            "add",
            &["s64"],
            vec![op(PROBE_REG), op(PROBE_REG), op(PROBE_OFF)],
        ));
        body.splice(0..0, pro);
    }
    if !entry_found {
        return None;
    }
    let first = pm
        .items
        .iter()
        .position(|i| matches!(i, Item::Var(_) | Item::Function(_)))
        .unwrap_or(pm.items.len());
    pm.items.insert(first, Item::Var(reg_decl("global", "u64", PROBE_PTR)));
    let mut pl = l.clone();
    pl.buffers.push(BufferSpec {
        name: PROBE_BUF.into(),
        hex: Some("aa".repeat(size as usize)),
        size: None,
    });
    pl.params.push(ParamSpec::Buffer {
        buffer: PROBE_BUF.into(),
    });
    let (bufs, _) = oracle::launch::run(&pl, &oracle::print::print(&pm)).ok()?;
    let data = &bufs.iter().find(|(n, _)| n == PROBE_BUF)?.1;
    let mut out = HashMap::new();
    for (n, s) in sites.iter().enumerate() {
        let bits = s.ty.ty.bits();
        let mut seen: Option<Probed> = None;
        let mut all = vec![None; threads as usize];
        for (th, slot) in all.iter_mut().enumerate() {
            let at = 8 * (n * threads as usize + th);
            let b: [u8; 8] = data.get(at..at + 8)?.try_into().ok()?;
            let v = u64::from_le_bytes(b);
            // Never written (or the value written is the fill pattern; then 0, 1, -1 remain).
            if v == 0xaaaa_aaaa_aaaa_aaaa {
                continue;
            }
            let v = if bits >= 64 { v } else { v & ((1u64 << bits) - 1) };
            *slot = Some(v);
            seen = Some(match seen {
                None => Probed {
                    first: v,
                    last: v,
                    uniform: true,
                    all: Vec::new(),
                },
                Some(p) => Probed {
                    first: p.first,
                    last: v,
                    uniform: p.uniform && p.first == v,
                    all: Vec::new(),
                },
            });
        }
        let seen = seen.map(|p| Probed { all, ..p });
        if let Some(p) = seen {
            out.insert((s.list.clone(), s.stmt, s.operand), p);
        }
    }
    Some(out)
}

// ---- clean-up ----

fn names_in_body(body: &[Stmt], out: &mut HashSet<String>) {
    for s in body {
        match s {
            Stmt::Instr(i) => {
                let mut v = Vec::new();
                i.operands.iter().for_each(|o| o.names(&mut v));
                if let Some((_, p)) = &i.guard {
                    v.push(p);
                }
                out.extend(v.into_iter().map(str::to_string));
            }
            Stmt::Block { body, .. } => names_in_body(body, out),
            Stmt::Directive(d) => out.extend(
                d.text
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .map(str::to_string),
            ),
            Stmt::Decl(d) => {
                if let Some(i) = &d.init {
                    init_names(i, out);
                }
            }
            Stmt::Label { .. } => {}
        }
    }
}

fn init_names(i: &oracle::ast::Init, out: &mut HashSet<String>) {
    match i {
        oracle::ast::Init::Expr(e) => {
            let mut v = Vec::new();
            e.names(&mut v);
            out.extend(v.into_iter().map(str::to_string));
        }
        oracle::ast::Init::List(l) => l.iter().for_each(|i| init_names(i, out)),
    }
}

/// One step of clean-up: functions and module variables nobody names, then per function unused
/// labels, declarations (ranges shrunk to the highest index used) and empty blocks.
fn tidy(m: &mut Module, entry: &str) {
    let mut used: HashSet<String> = HashSet::new();
    for item in &m.items {
        match item {
            Item::Function(f) => {
                if let Some(b) = &f.body {
                    names_in_body(b, &mut used);
                }
            }
            Item::Var(v) => {
                if let Some(i) = &v.init {
                    init_names(i, &mut used);
                }
            }
            _ => {}
        }
    }
    m.items.retain(|item| match item {
        Item::Function(f) => f.entry && f.name == entry || used.contains(&f.name),
        Item::Var(v) => used.contains(&v.name),
        _ => true,
    });
    for item in m.items.iter_mut() {
        let Item::Function(f) = item else { continue };
        let Some(body) = f.body.as_mut() else { continue };
        let mut used = HashSet::new();
        names_in_body(body, &mut used);
        tidy_list(body, &used);
    }
}

fn tidy_list(list: &mut Vec<Stmt>, used: &HashSet<String>) {
    let next_is_list: Vec<bool> = (0..list.len())
        .map(|k| matches!(list.get(k + 1), Some(Stmt::Directive(_))))
        .collect();
    let mut k = 0;
    list.retain_mut(|s| {
        k += 1;
        match s {
            Stmt::Label { name, .. } => used.contains(name) || next_is_list[k - 1],
            Stmt::Decl(d) if matches!(d.space.as_str(), "reg" | "local" | "shared") && d.init.is_none() => {
                match d.range {
                    None => used.contains(&d.name),
                    Some(n) => {
                        let top = (0..n).rev().find(|i| used.contains(&format!("{}{i}", d.name)));
                        match top {
                            Some(t) => {
                                d.range = Some(t + 1);
                                true
                            }
                            None => false,
                        }
                    }
                }
            }
            Stmt::Block { body, .. } => {
                tidy_list(body, used);
                !body.is_empty()
            }
            _ => true,
        }
    });
}

// ---- against a backend ----

/// How the oracle's and a backend's results for one case differ.
#[derive(Clone, Debug, PartialEq)]
pub enum Difference {
    /// Both ran; these values differ.
    Mismatch(Vec<Mismatch>),
    /// The backend gave no result.
    Failure(Failure),
    /// The results cannot be compared (a buffer missing or of another size).
    Incomparable(String),
    /// No difference.
    Same,
}

impl Difference {
    /// Whether `other` is a difference of the same kind: values against values, the same
    /// failure variant (and for a rejection the same error kind).
    pub fn same_kind(&self, other: &Difference) -> bool {
        match (self, other) {
            (Difference::Mismatch(a), Difference::Mismatch(b)) => !a.is_empty() && !b.is_empty(),
            (Difference::Failure(a), Difference::Failure(b)) => match (a, b) {
                (Failure::Rejected { kind: x, .. }, Failure::Rejected { kind: y, .. }) => x == y,
                _ => std::mem::discriminant(a) == std::mem::discriminant(b),
            },
            (Difference::Incomparable(_), Difference::Incomparable(_)) => true,
            _ => false,
        }
    }

    pub fn is_same(&self) -> bool {
        matches!(self, Difference::Same)
    }
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::Mismatch(v) => write!(f, "{} mismatching value(s)", v.len()),
            Difference::Failure(x) => write!(f, "the backend failed: {x}"),
            Difference::Incomparable(m) => write!(f, "the results cannot be compared: {m}"),
            Difference::Same => write!(f, "no difference"),
        }
    }
}

/// Runs `case` on the oracle and on `backend` and compares; `Err` when the oracle itself fails.
pub fn difference(case: &Case, backend: &dyn Backend) -> Result<Difference, String> {
    let (expected, _) = oracle::launch::run(&case.launch, &case.ptx).map_err(|e| format!("the oracle fails: {e}"))?;
    Ok(difference_from(&expected, case, backend))
}

/// Runs `case` on `backend` and compares with `expected`, the oracle's results for it (for
/// callers that have them already: a campaign's audited run).
pub fn difference_from(expected: &oracle::launch::Buffers, case: &Case, backend: &dyn Backend) -> Difference {
    let job = Job::from_launch(&case.launch, case.ptx.clone());
    match backend.run(&job) {
        Err(f) => Difference::Failure(f),
        Ok(observed) => match judge::compare(case.launch.check.as_ref(), expected, &observed) {
            Ok(v) if v.is_empty() => Difference::Same,
            Ok(v) => Difference::Mismatch(v),
            Err(e) => Difference::Incomparable(e),
        },
    }
}

/// A per-launch timeout for the backend during a reduction, at most `max` seconds: 10× what the
/// original took on it (at least 2 s), so that a candidate the backend runs much longer than the
/// original (a loop whose exit the reduction removed) is cut short; when the original's
/// difference is itself a timeout, 10× what it takes the oracle (at least 2 s). Runs the case
/// once on each.
pub fn tight_timeout(case: &Case, backend: &dyn Backend, max: f64) -> f64 {
    let t = Instant::now();
    let _ = oracle::launch::run(&case.launch, &case.ptx);
    let oracle_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let timed_out = matches!(
        backend.run(&Job::from_launch(&case.launch, case.ptx.clone())),
        Err(Failure::Timeout { .. })
    );
    let backend_s = t.elapsed().as_secs_f64();
    let base = if timed_out { oracle_s } else { backend_s };
    (10.0 * base).max(2.0).min(max)
}

/// Why [`reduce_against`] could not reduce.
#[derive(Clone, Debug, PartialEq)]
pub enum ReduceError {
    /// The oracle and the backend agree: nothing to reduce.
    NoDifference,
    /// The backend cannot run here.
    Unavailable(String),
    /// The oracle fails on the case, or the case is malformed.
    Invalid(String),
}

impl fmt::Display for ReduceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReduceError::NoDifference => {
                write!(f, "the oracle and the backend agree on this launch: nothing to reduce")
            }
            ReduceError::Unavailable(m) => write!(f, "the backend cannot run: {m}"),
            ReduceError::Invalid(m) => write!(f, "{m}"),
        }
    }
}

/// A reduced case and what it shows.
#[derive(Clone, Debug)]
pub struct Reduced {
    pub original: Case,
    pub case: Case,
    pub stats: Stats,
    /// The backend's name and description.
    pub backend: String,
    pub describe: String,
    pub original_difference: Difference,
    /// The reduced case's difference (of the same kind as the original's).
    pub difference: Difference,
}

/// Reduces a case whose results differ between the oracle and `backend`, keeping the kind of
/// difference: a value mismatch stays a value mismatch (a candidate the backend rejects is not
/// interesting), a failure stays the same failure.
pub fn reduce_against(case: Case, backend: &dyn Backend, opts: &Options) -> Result<Reduced, ReduceError> {
    let original_difference = difference(&case, backend).map_err(ReduceError::Invalid)?;
    match &original_difference {
        Difference::Same => return Err(ReduceError::NoDifference),
        Difference::Failure(Failure::Unavailable(m)) => return Err(ReduceError::Unavailable(m.clone())),
        _ => {}
    }
    let orig = original_difference.clone();
    let mut pred = |c: &Case| difference(c, backend).is_ok_and(|d| d.same_kind(&orig));
    let (reduced, stats) = reduce(case.clone(), &mut pred, opts).map_err(ReduceError::Invalid)?;
    let diff = difference(&reduced, backend).map_err(ReduceError::Invalid)?;
    Ok(Reduced {
        original: case,
        case: reduced,
        stats,
        backend: backend.name(),
        describe: backend.describe(),
        original_difference,
        difference: diff,
    })
}

/// Mismatches listed in a report.
const SHOWN: usize = 10;

impl Reduced {
    /// The human-readable report (`report.txt`).
    pub fn report(&self) -> String {
        use std::fmt::Write as _;
        let mut t = String::new();
        let s = &self.stats;
        let _ = writeln!(t, "backend: {} ({})", self.backend, self.describe);
        let _ = writeln!(t, "difference: {}", self.difference);
        let _ = writeln!(t, "instructions: {} -> {}", s.instructions_before, s.instructions_after);
        let (a, b) = (&self.original.launch, &self.case.launch);
        let _ = writeln!(
            t,
            "launch: grid {:?} block {:?} (was grid {:?} block {:?})",
            b.grid, b.block, a.grid, a.block
        );
        let _ = writeln!(
            t,
            "reduction: {} predicate calls, {} steps accepted, {} rounds, {:.1} s{}",
            s.calls,
            s.accepted,
            s.rounds,
            s.seconds,
            if s.exhausted {
                " (budget exhausted: not minimal)"
            } else {
                ""
            }
        );
        match &self.difference {
            Difference::Mismatch(v) => {
                let _ = writeln!(t, "first mismatches:");
                for m in v.iter().take(SHOWN) {
                    let _ = writeln!(t, "  {m}");
                }
                if v.len() > SHOWN {
                    let _ = writeln!(t, "  ... and {} more", v.len() - SHOWN);
                }
            }
            d => {
                let _ = writeln!(t, "{d}");
            }
        }
        let _ = writeln!(t, "remaining instructions:");
        if let Ok(m) = oracle::parse::parse(&self.case.ptx) {
            for item in &m.items {
                let oracle::ast::Item::Function(f) = item else { continue };
                let Some(body) = &f.body else { continue };
                let _ = writeln!(t, "  {} {}:", if f.entry { ".entry" } else { ".func" }, f.name);
                for i in all_instrs(body) {
                    let _ = writeln!(t, "    {}", oracle::print::instr(i));
                }
            }
        }
        t
    }

    /// Writes `reduced.ptx`, `launch.json` (naming it, with the original's check) and
    /// `report.txt` into `dir`, atomically: into a temporary directory beside it, then renamed.
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        let mut launch = self.case.launch.clone();
        launch.ptx = "reduced.ptx".into();
        write_dir(
            dir,
            &[
                ("reduced.ptx", self.case.ptx.as_str()),
                ("launch.json", &launch.to_json()),
                ("report.txt", &self.report()),
            ],
        )
    }
}

/// Writes `files` into `dir` atomically: a temporary sibling directory renamed into place (an
/// existing `dir` is replaced).
pub fn write_dir(dir: &Path, files: &[(&str, &str)]) -> Result<(), String> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let base = dir
        .file_name()
        .ok_or_else(|| format!("{}: not a directory name", dir.display()))?
        .to_string_lossy()
        .to_string();
    std::fs::create_dir_all(&parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let tmp = parent.join(format!(".{base}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    for (name, text) in files {
        let p = tmp.join(name);
        std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    }
    let old = parent.join(format!(".{base}.old-{}", std::process::id()));
    let had = dir.exists();
    if had {
        let _ = std::fs::remove_dir_all(&old);
        std::fs::rename(dir, &old).map_err(|e| format!("cannot move {} aside: {e}", dir.display()))?;
    }
    std::fs::rename(&tmp, dir).map_err(|e| format!("cannot rename {} to {}: {e}", tmp.display(), dir.display()))?;
    if had {
        let _ = std::fs::remove_dir_all(&old);
    }
    Ok(())
}

/// The default output directory of a launch file: `<stem>.reduced/` beside it.
pub fn default_out_dir(launch: &Path) -> PathBuf {
    let stem = launch
        .file_stem()
        .map_or_else(|| "launch".to_string(), |s| s.to_string_lossy().to_string());
    launch
        .parent()
        .unwrap_or(Path::new("."))
        .join(format!("{stem}.reduced"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

    fn prog(body: &str) -> Program {
        let m = oracle::parse::parse(&format!("{HEAD}.entry e(.param .u64 o)\n{{\n{body}\n}}")).unwrap();
        oracle::check::check(&m).unwrap()
    }

    #[test]
    fn reads_of_registers_unwritten_on_some_path_are_counted() {
        let decl = ".reg .b32 %r<4>; .reg .pred %p;";
        assert_eq!(
            uninit_reads(&prog(&format!("{decl} mov.u32 %r1, 1; add.u32 %r2, %r1, 1;"))),
            0
        );
        assert_eq!(uninit_reads(&prog(&format!("{decl} add.u32 %r2, %r1, 1;"))), 1);
        // Written on one arm only: the join does not have it.
        let arms = format!(
            "{decl} mov.u32 %r3, %tid.x; setp.eq.u32 %p, %r3, 0; @%p bra A; mov.u32 %r1, 1; A: add.u32 %r2, %r1, 1;"
        );
        assert_eq!(uninit_reads(&prog(&arms)), 1);
        // Written on both arms.
        let both = format!(
            "{decl} mov.u32 %r3, %tid.x; setp.eq.u32 %p, %r3, 0; @%p bra A; mov.u32 %r1, 1; bra B; A: mov.u32 %r1, 2; B: add.u32 %r2, %r1, 1;"
        );
        assert_eq!(uninit_reads(&prog(&both)), 0);
        // A guarded write may not happen; the guard itself is read.
        assert_eq!(uninit_reads(&prog(&format!("{decl} @%p mov.u32 %r1, 1;"))), 1);
        let guarded = format!("{decl} setp.eq.u32 %p, 1, 1; @%p mov.u32 %r1, 1; add.u32 %r2, %r1, 1;");
        assert_eq!(uninit_reads(&prog(&guarded)), 1);
        // A loop: the counter is written before the loop and in it.
        let looped = format!("{decl} mov.u32 %r1, 0; L: add.u32 %r1, %r1, 1; setp.lt.u32 %p, %r1, 4; @%p bra L;");
        assert_eq!(uninit_reads(&prog(&looped)), 0);
        // Unreachable code is not judged.
        assert_eq!(uninit_reads(&prog(&format!("{decl} ret; add.u32 %r2, %r1, 1;"))), 0);
    }

    #[test]
    fn dead_code_goes_and_effects_stay() {
        let src = format!(
            "{HEAD}.entry e(.param .u64 o)\n{{\n.reg .b32 %r<5>; .reg .b64 %rd<2>;\n\
             ld.param.u64 %rd1, [o]; mov.u32 %r1, 7; add.u32 %r2, %r1, 1; mul.lo.u32 %r3, %r2, 3;\n\
             mov.u32 %r4, 9; st.global.u32 [%rd1], %r4;\n}}"
        );
        let m = oracle::parse::parse(&src).unwrap();
        let d = dce(&m).unwrap();
        let text = oracle::print::print(&d);
        assert_eq!(count_module(&d), 3, "{text}");
        assert!(
            text.contains("mov.u32 %r4, 9;") && text.contains("st.global.u32"),
            "{text}"
        );
        assert!(!text.contains("%r1") && !text.contains("%r3,"), "{text}");
        assert!(dce(&d).is_none());
    }

    #[test]
    fn if_else_regions_offer_each_arm() {
        let src = format!(
            "{HEAD}.entry e()\n{{\n.reg .pred %p;\n.reg .b32 %r;\n\
             setp.eq.u32 %p, 1, 1;\n@%p bra ELSE;\nmov.u32 %r, 1;\nbra END;\nELSE:\nmov.u32 %r, 2;\nEND:\nret;\n}}"
        );
        let m = oracle::parse::parse(&src).unwrap();
        let Some(Item::Function(f)) = m.items.last() else {
            panic!()
        };
        let body = f.body.as_ref().unwrap();
        // Statements: 0 .pred, 1 .reg, 2 setp, 3 @p bra, 4 mov 1, 5 bra END, 6 ELSE:, 7 mov 2,
        // 8 END:, 9 ret.
        let r = regions(body);
        assert!(r.contains(&vec![3, 4, 5, 6, 7]), "the whole if/else: {r:?}");
        assert!(r.contains(&vec![3, 5, 6, 7]), "the then arm only: {r:?}");
        assert!(r.contains(&vec![3, 4, 5, 6]), "the else arm only: {r:?}");
        assert!(r.windows(2).all(|w| w[0].len() >= w[1].len()), "largest first: {r:?}");
    }

    #[test]
    fn barriers_stay_in_launches_of_several_threads_unless_repeated() {
        let src = format!(
            "{HEAD}.entry e()\n{{\n.reg .b32 %r;\n\
             bar.sync 0;\nbar.sync 0;\nmov.u32 %r, 1;\nbar.sync 0;\nL:\nbar.sync 0;\nbar.sync 1;\nbra L;\n}}"
        );
        let m = oracle::parse::parse(&src).unwrap();
        let Some(Item::Function(f)) = m.items.last() else {
            panic!()
        };
        let body = f.body.as_ref().unwrap();
        // 0 .reg, 1 bar 0, 2 bar 0, 3 mov, 4 bar 0, 5 L:, 6 bar 0, 7 bar 1, 8 bra L.
        let all = vec![1, 2, 3, 4, 6, 7, 8];
        assert_eq!(deletable(body, all.clone(), false, false), all);
        // With only a register `mov` between them, each `bar.sync 0` repeats its neighbour; a
        // label a branch names (another way in), a branch, or a different barrier separates
        // them.
        assert_eq!(deletable(body, vec![2, 3, 4, 6, 7], true, false), vec![2, 3, 4]);
        assert_eq!(deletable(body, vec![4], true, false), vec![4]);
        assert_eq!(deletable(body, vec![6], true, false), Vec::<usize>::new());
        assert_eq!(deletable(body, vec![7], true, true), Vec::<usize>::new());
        // The first two repeat the one that stays after the `mov`; with that one deleted too,
        // none repeats a barrier that stays.
        assert_eq!(deletable(body, vec![1, 2], true, false), vec![1, 2]);
        assert_eq!(deletable(body, vec![1, 2, 4], true, false), Vec::<usize>::new());
        // Without the branch, the label joins nothing.
        let mut body1 = body.clone();
        body1.pop();
        assert_eq!(deletable(&body1, vec![6], true, false), vec![6]);
        // Stores between barriers need them; the start and the end of a kernel do not.
        let src2 = format!(
            "{HEAD}.entry e(.param .u64 o)\n{{\n.reg .b64 %rd;\nbar.sync 0;\nld.param.u64 %rd, [o];\n\
             st.global.u32 [%rd], 1;\nbar.sync 0;\nst.global.u32 [%rd], 2;\nbar.sync 0;\n}}"
        );
        let m2 = oracle::parse::parse(&src2).unwrap();
        let Some(Item::Function(f2)) = m2.items.last() else {
            panic!()
        };
        let body2 = f2.body.as_ref().unwrap();
        // 0 .reg, 1 bar, 2 ld.param, 3 st, 4 bar, 5 st, 6 bar.
        assert_eq!(deletable(body2, vec![4], true, true), Vec::<usize>::new());
        assert_eq!(deletable(body2, vec![1, 4], true, true), vec![1]);
        assert_eq!(deletable(body2, vec![6], true, true), vec![6]);
        // The end of a function's body returns to code that may need it.
        assert_eq!(deletable(body2, vec![6], true, false), Vec::<usize>::new());
        assert_eq!(deletable(body2, vec![1, 3, 4], true, true), vec![1, 3, 4]);
    }

    #[test]
    fn differences_keep_their_kind() {
        let m = |n| {
            Difference::Mismatch(vec![Mismatch {
                buffer: "out".into(),
                offset: n,
                thread: None,
                slot: None,
                expected: "0x1".into(),
                observed: "0x2".into(),
            }])
        };
        let rej = |k: &str| {
            Difference::Failure(Failure::Rejected {
                kind: k.into(),
                message: "m".into(),
            })
        };
        assert!(m(0).same_kind(&m(4)));
        assert!(!m(0).same_kind(&rej("parse")));
        assert!(!rej("parse").same_kind(&m(0)));
        assert!(rej("parse").same_kind(&rej("parse")));
        assert!(!rej("parse").same_kind(&rej("runtime")));
        assert!(Difference::Failure(Failure::Crashed("a".into()))
            .same_kind(&Difference::Failure(Failure::Crashed("b".into()))));
        assert!(!Difference::Failure(Failure::Crashed("a".into()))
            .same_kind(&Difference::Failure(Failure::Timeout { seconds: 1.0 })));
        assert!(!Difference::Same.same_kind(&Difference::Same));
        assert!(!m(0).same_kind(&Difference::Mismatch(vec![])));
    }

    #[test]
    fn literals_follow_the_register_type() {
        let t = |s: &str| OpTy {
            ty: Type::parse(s).unwrap(),
        };
        let p = |e: &Expr| oracle::print::expr(e);
        assert_eq!(
            t("f32").literals(0x3F80_0000).iter().map(p).collect::<Vec<_>>(),
            ["0f3F800000"]
        );
        assert_eq!(
            t("f64").literals(0).iter().map(p).collect::<Vec<_>>(),
            ["0d0000000000000000"]
        );
        assert_eq!(t("s32").literals(0xFFFF_FFFF).iter().map(p).collect::<Vec<_>>(), ["-1"]);
        assert_eq!(
            t("u32").literals(0xFFFF_FFFF).iter().map(p).collect::<Vec<_>>(),
            ["4294967295"]
        );
        assert_eq!(
            t("b32").literals(7).iter().map(p).collect::<Vec<_>>(),
            ["7", "0f00000007"]
        );
        assert_eq!(
            t("u64").literals(u64::MAX).iter().map(p).collect::<Vec<_>>(),
            ["18446744073709551615U"]
        );
        assert_eq!(t("s64").literals(u64::MAX).iter().map(p).collect::<Vec<_>>(), ["-1"]);
        assert!(t("f16").literals(0).is_empty());
        assert_eq!(t("pred").small_values(), [0, 1]);
        assert_eq!(t("s16").small_values(), [0, 1, 0xFFFF]);
    }
}
