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
//! Every candidate must also depend on nothing undefined (`defined`): run again with unwritten
//! registers, frames and shared memory holding 0x5a, then 0xa5, and racing plain stores an error,
//! its checked results must not change (on the H200, 54 of 147 reductions had ended at such a
//! dependence: corpus/findings/h200/reduction.md). An original that depends is not reduced.
//!
//! The steps, one module each:
//! - `passes`: the `Reducer`: candidates, their cheap checks and the predicate, the fixpoint over
//!   the passes, and the passes on the launch, statements and guards;
//! - `operands`: the passes on operands (constants, bypassed definitions, folded addresses);
//! - `syntax`: statement lists, deletable units and regions, the module without some statements;
//! - `sites`: registers, replaceable operands and what addresses depend on;
//! - `probe`: the instrumentation that reads operand values back from the oracle;
//! - `dataflow`: uninitialized reads and dead code on the decoded program;
//! - `defined`: whether results depend on unwritten registers or memory, or on a data race;
//! - `tidy`: the final cosmetic clean-up;
//! - `facts`: what the reducer knows about instructions by their spelling (to be replaced by the
//!   instruction catalog).
//!
//! Comparing a case between the oracle and a backend is [`crate::compare`]; writing a finding is
//! [`crate::findings`].

mod dataflow;
mod defined;
mod facts;
mod operands;
mod passes;
mod probe;
mod sites;
mod syntax;
mod tidy;

pub use defined::{undefined_dependence, Undefined};
pub(crate) use syntax::all_instrs;

use crate::backend::{Backend, Failure};
use crate::compare::{difference, CompareError, Difference};
use crate::findings::Reduced;
use dataflow::uninit_reads;
use oracle::ast::{Item, Module, Stmt};
use oracle::launch::LaunchFile;
use oracle::program::Program;
use passes::Reducer;
use sites::raw_addresses;
use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A launch and the PTX text it runs (`launch.ptx` only names the file it came from).
#[derive(Clone, Debug)]
pub struct Case {
    /// The PTX text.
    pub ptx: String,
    /// The launch (its `ptx` names the file the text came from).
    pub launch: LaunchFile,
}

impl Case {
    /// Reads a launch file and the PTX it names (relative to the launch file).
    pub fn load(path: &Path) -> Result<Case, LoadError> {
        let text = std::fs::read_to_string(path).map_err(|source| LoadError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let launch = oracle::launch::parse_launch(&text).map_err(|error| LoadError::Launch {
            path: path.to_path_buf(),
            error,
        })?;
        let ptx_path = path.parent().unwrap_or(Path::new(".")).join(&launch.ptx);
        let ptx = std::fs::read_to_string(&ptx_path).map_err(|source| LoadError::Read { path: ptx_path, source })?;
        Ok(Case { ptx, launch })
    }
}

/// Why [`Case::load`] could not read a case.
#[derive(Debug)]
pub enum LoadError {
    /// The launch file or the PTX file it names cannot be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The launch file is not a valid launch.
    Launch {
        /// The launch file.
        path: PathBuf,
        /// What is wrong with it.
        error: oracle::error::Error,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Read { path, source } => write!(f, "cannot read {}: {source}", path.display()),
            LoadError::Launch { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Read { source, .. } => Some(source),
            LoadError::Launch { error, .. } => Some(error),
        }
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
    /// Executable statements before.
    pub instructions_before: usize,
    /// Executable statements after (so far, while the reduction runs).
    pub instructions_after: usize,
    /// Rounds of all passes (the last one changed nothing, unless the budget ran out).
    pub rounds: usize,
    /// Wall-clock time spent.
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
/// Errors: [`ReduceError::Parse`], [`ReduceError::TypeCheck`], [`ReduceError::Oracle`] and
/// [`ReduceError::NotInteresting`].
pub fn reduce(
    case: Case,
    interesting: &mut dyn FnMut(&Case) -> bool,
    opts: &Options,
) -> Result<(Case, Stats), ReduceError> {
    let start = Instant::now();
    let module = oracle::parse::parse(&case.ptx).map_err(ReduceError::Parse)?;
    let prog = check(&module, &case.launch).map_err(ReduceError::TypeCheck)?;
    let (zero, ostats) = oracle::launch::run(&case.launch, &case.ptx).map_err(ReduceError::Oracle)?;
    // Candidates must not depend on undefined values (`defined`); an original that does would
    // let the reduction keep only that dependence.
    if let Some(u) = undefined_dependence(&case.launch, &case.ptx, &zero) {
        return Err(ReduceError::Undefined(u));
    }
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
        return Err(ReduceError::NotInteresting);
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

/// The identity of a candidate: its text and geometry.
fn key(text: &str, l: &LaunchFile) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    l.grid.hash(&mut h);
    l.block.hash(&mut h);
    l.shared_bytes.hash(&mut h);
    h.finish()
}

/// Why a reduction could not start: the case is invalid or shows nothing ([`reduce`]), or the
/// backend agrees or cannot run ([`reduce_against`]).
#[derive(Clone, Debug, PartialEq)]
pub enum ReduceError {
    /// The PTX does not parse.
    Parse(oracle::parse::ParseError),
    /// The PTX does not type-check (under the launch's grammar).
    TypeCheck(oracle::error::Error),
    /// The oracle fails on the original case.
    Oracle(oracle::error::Error),
    /// The predicate rejects the original case.
    NotInteresting,
    /// The original's results depend on values the manual leaves undefined (an unwritten
    /// register or memory, a data race): a reduction could end at that dependence alone.
    Undefined(Undefined),
    /// The oracle and the backend agree: nothing to reduce.
    NoDifference,
    /// The backend cannot run here.
    Unavailable(String),
    /// The case cannot be compared with the backend (the oracle fails on it).
    Compare(CompareError),
}

impl fmt::Display for ReduceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReduceError::Parse(e) => write!(f, "the PTX does not parse: {e}"),
            ReduceError::TypeCheck(e) => write!(f, "the PTX does not type-check: {e}"),
            ReduceError::Oracle(e) => write!(f, "the oracle fails on the original: {e}"),
            ReduceError::NotInteresting => {
                write!(f, "the original case is not interesting (the predicate rejects it)")
            }
            ReduceError::Undefined(u) => write!(f, "the original reads something undefined: {u}"),
            ReduceError::NoDifference => {
                write!(f, "the oracle and the backend agree on this launch: nothing to reduce")
            }
            ReduceError::Unavailable(m) => write!(f, "the backend cannot run: {m}"),
            ReduceError::Compare(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReduceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReduceError::Parse(e) => Some(e),
            ReduceError::TypeCheck(e) | ReduceError::Oracle(e) => Some(e),
            ReduceError::Compare(e) => Some(e),
            ReduceError::NotInteresting
            | ReduceError::Undefined(_)
            | ReduceError::NoDifference
            | ReduceError::Unavailable(_) => None,
        }
    }
}

/// Reduces a case whose results differ between the oracle and `backend`, keeping the kind of
/// difference: a value mismatch stays a value mismatch (a candidate the backend rejects is not
/// interesting), a failure stays the same failure.
pub fn reduce_against(case: Case, backend: &dyn Backend, opts: &Options) -> Result<Reduced, ReduceError> {
    let original_difference = difference(&case, backend).map_err(ReduceError::Compare)?;
    match &original_difference {
        Difference::Same => return Err(ReduceError::NoDifference),
        Difference::Failure(Failure::Unavailable(m)) => return Err(ReduceError::Unavailable(m.clone())),
        _ => {}
    }
    let orig = original_difference.clone();
    let mut pred = |c: &Case| difference(c, backend).is_ok_and(|d| d.same_kind(&orig));
    let (reduced, stats) = reduce(case.clone(), &mut pred, opts)?;
    let diff = difference(&reduced, backend).map_err(ReduceError::Compare)?;
    Ok(Reduced {
        original: case,
        case: reduced,
        stats,
        backend: backend.name(),
        describe: backend.describe(),
        original_difference,
        difference: diff,
        origin: None,
    })
}
