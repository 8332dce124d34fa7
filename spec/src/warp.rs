//! Warp-level collectives and the CTA barrier reductions: §9.7.9.5 shfl (deprecated, L11870),
//! §9.7.9.6 shfl.sync (L12004), §9.7.13.8 vote (deprecated, L17990), §9.7.13.9 vote.sync
//! (L18061), §9.7.13.10 match.sync (L18119), §9.7.13.11 activemask (L18173), §9.7.13.12
//! redux.sync (L18203), §9.7.13.14 elect.sync (L18308), §9.7.13.2 bar.warp.sync (L17112) and
//! the reductions of §9.7.13.1 bar.red / barrier.red (L16982).
//!
//! The interpreter runs one warp at a time. For a collective it gathers the operands of the lanes
//! that execute the instruction together and calls one function here for the whole warp:
//! - `exec`: bit i set when lane i executes this instruction now (active, guard predicate true);
//! - `membermask[i]`: lane i's membermask operand, less the lanes that have exited. The manual
//!   counts only non-exited threads (L12020, L18076, L18134, L18223), and an exited lane is
//!   invisible here otherwise;
//! - operand arrays indexed by lane. Entries of lanes outside `exec` are ignored, except that
//!   shfl reads one as the model of an unspecified result (see [`shfl_sync_lanes`]); results of
//!   lanes outside `exec` are zero / false.
//!
//! Several groups with different membermasks may execute the same instruction together (lanes
//! 0-15 with 0x0000ffff, lanes 16-31 with 0xffff0000); each group is computed on its own.
//! Where the manual makes the behaviour undefined the functions return a [`WarpError`] naming the
//! lanes; where only a value is unspecified they return a documented model value.

use crate::catalog::Form;
use crate::float::format::F32;
use crate::value::{Accept, Outcome};
use std::fmt;

/// Why a collective's result is undefined for this warp state: the manual says "undefined"
/// (the executing thread is not in membermask, or a lane in membermask does not execute the same
/// instruction with the same membermask). The interpreter reports it as a runtime error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpError(pub String);

impl fmt::Display for WarpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WarpError {}

/// The lanes whose bits are set in `mask`, lowest first.
fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |&i| mask >> i & 1 != 0)
}

fn lane_list(mask: u32) -> String {
    let v: Vec<String> = lanes(mask).map(|i| i.to_string()).collect();
    format!("lane{} {}", if v.len() == 1 { "" } else { "s" }, v.join(", "))
}

/// Where one `.sync` instruction states its two rules: the wait for the threads of membermask
/// and "undefined if the executing thread is not in membermask".
struct SyncRule {
    name: &'static str,
    wait: u32,
    not_member: u32,
}

const SHFL_SYNC: SyncRule = SyncRule {
    name: "shfl.sync",
    wait: 12020,
    not_member: 12036,
};
const VOTE_SYNC: SyncRule = SyncRule {
    name: "vote.sync",
    wait: 18076,
    not_member: 18100,
};
const MATCH_SYNC: SyncRule = SyncRule {
    name: "match.sync",
    wait: 18134,
    not_member: 18154,
};
const REDUX_SYNC: SyncRule = SyncRule {
    name: "redux.sync",
    wait: 18223,
    not_member: 18241,
};
const ELECT_SYNC: SyncRule = SyncRule {
    name: "elect.sync",
    wait: 18326,
    not_member: 18322,
};
const BAR_WARP_SYNC: SyncRule = SyncRule {
    name: "bar.warp.sync",
    wait: 17124,
    not_member: 17128,
};

/// Checks the membermask contract of a `.sync` collective for every executing lane i:
/// - i must be in its own membermask (undefined otherwise: L12036, L18100, L18154, L18241,
///   L18322, L17128);
/// - every lane of that membermask must execute this instruction now with the same membermask
///   value: lane i "waits until all non-exited threads of membermask have executed [it] with the
///   same qualifiers and the same membermask value" (L12020, L18076, L18134, L18223; elect L18326;
///   on sm_6x the same is stated as undefined behaviour, L12040, L18104). A lane that is
///   predicated off or elsewhere never arrives, so the interpreter's lane would wait forever; a
///   lane arriving with another membermask waits for a different group. Both are reported.
fn check_members(rule: &SyncRule, exec: u32, membermask: &[u32; 32]) -> Result<(), WarpError> {
    for i in lanes(exec) {
        let m = membermask[i];
        if m >> i & 1 == 0 {
            return Err(WarpError(format!(
                "{}: lane {i} executes it with membermask {m:#010x}, which does not contain lane {i}: \
                 the behaviour is undefined (L{})",
                rule.name, rule.not_member
            )));
        }
        let absent = m & !exec;
        if absent != 0 {
            return Err(WarpError(format!(
                "{}: {} of lane {i}'s membermask {m:#010x} {} not execute this instruction with it: \
                 lane {i} would wait for {} forever (L{})",
                rule.name,
                lane_list(absent),
                if absent.count_ones() == 1 { "does" } else { "do" },
                if absent.count_ones() == 1 { "it" } else { "them" },
                rule.wait
            )));
        }
        if let Some(k) = lanes(m).find(|&k| membermask[k] != m) {
            return Err(WarpError(format!(
                "{}: lane {i} (membermask {m:#010x}) and lane {k} (membermask {:#010x}) execute it \
                 together with different membermasks: each waits for threads with its own value (L{})",
                rule.name, membermask[k], rule.wait
            )));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// shfl, shfl.sync

/// The `.mode` of shfl and shfl.sync (L11880, L12010).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// `.up`: source lane `lane - b`.
    Up,
    /// `.down`: source lane `lane + b`.
    Down,
    /// `.bfly`: source lane `lane ^ b`.
    Bfly,
    /// `.idx`: source lane `b` within the segment `c` describes.
    Idx,
}

impl ShflMode {
    /// The mode as the catalog writes it (`up`, `down`, `bfly`, `idx`).
    pub fn parse(s: &str) -> Option<ShflMode> {
        Some(match s {
            "up" => ShflMode::Up,
            "down" => ShflMode::Down,
            "bfly" => ShflMode::Bfly,
            "idx" => ShflMode::Idx,
            _ => return None,
        })
    }
}

/// The source lane of one thread of shfl/shfl.sync and the predicate p: the pseudocode of
/// L12047-12073 (the same as L11908-11934). `lane` is the thread's laneid (bits above 4 are
/// ignored); only `b[4:0]`, `c[4:0]` (the clamp value cval) and `c[12:8]` (segmask) are read, so an
/// out-of-range b can still name a valid lane (L12028). When p is false the source is the
/// thread's own lane (L12070).
///
/// `j` is a signed integer, not a 5-bit lane field: `lane - bval` below 0 must fail `j >= maxLane`
/// and `lane + bval` above 31 must fail `j <= maxLane`, which the manual's own scan examples
/// need (L11955-11983: lanes below the offset get p = False and add nothing).
pub fn shfl_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let lane = (lane & 31) as i32;
    let bval = (b & 31) as i32;
    let cval = (c & 31) as i32;
    let segmask = (c >> 8 & 31) as i32;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, pval) = match mode {
        ShflMode::Up => (lane - bval, lane - bval >= max_lane),
        ShflMode::Down => (lane + bval, lane + bval <= max_lane),
        ShflMode::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
        ShflMode::Idx => {
            let j = min_lane | (bval & !segmask);
            (j, j <= max_lane)
        }
    };
    if pval {
        (j as u32, true)
    } else {
        (lane as u32, false)
    }
}

/// One lane's result of shfl/shfl.sync.
#[derive(Clone, Debug, PartialEq)]
pub struct ShflLane {
    /// d: exact when read from a lane that supplies its a; [`Accept::Any`] when the source lane
    /// is inactive or outside the reader's membermask (see [`shfl_sync_lanes`]).
    pub d: Outcome,
    /// The destination predicate p ("True if the computed source lane is in range", L12026).
    pub p: bool,
    /// The lane d was read from (the own lane when p is false).
    pub src: u32,
}

impl ShflLane {
    fn idle(lane: usize) -> ShflLane {
        ShflLane {
            d: Outcome::exact(0),
            p: false,
            src: lane as u32,
        }
    }
}

/// Computes every executing lane's result; `supplies(i, j)` says whether lane j's a reaches
/// lane i.
fn shfl_core(
    mode: ShflMode,
    exec: u32,
    a: &[u32; 32],
    b: &[u32; 32],
    c: &[u32; 32],
    supplies: impl Fn(usize, usize) -> bool,
) -> [ShflLane; 32] {
    std::array::from_fn(|i| {
        if exec >> i & 1 == 0 {
            return ShflLane::idle(i);
        }
        let (j, p) = shfl_source(mode, i as u32, b[i], c[i]);
        let j = j as usize;
        let d = if supplies(i, j) {
            Outcome::exact(a[j] as u128)
        } else {
            Outcome {
                model: a[j] as u128,
                accept: Accept::Any,
            }
        };
        ShflLane { d, p, src: j as u32 }
    })
}

/// §9.7.9.6 shfl.sync (L12004), with the acceptance set of each d.
///
/// Errors where the behaviour is undefined: an executing lane outside its own membermask
/// (L12036), or a lane of a membermask that does not execute the instruction with the same
/// membermask (L12020, L12040).
///
/// Reading from a lane that is inactive or not in the reader's membermask: "the results are
/// undefined" (L12030), and the pseudocode narrows that to the value, "`SourceA[lane]` is
/// unpredictable for inactive/predicated-off threads" (L12056-12058). So only that lane's d is
/// unspecified ([`Accept::Any`]); p and every other lane stay exact, and no error is raised: a
/// tree reduction such as `shfl.sync.down.b32 d, a, 8, 0x1f, 0xffff` reads lanes 16-23 into
/// lanes 8-15, whose results it then never uses. The model is `a[j]`, taken to be what the
/// hardware reads from lane j's register file (not verified on a GPU here); the interpreter
/// passes lane j's current register value there even when j is outside `exec`.
pub fn shfl_sync_lanes(
    mode: ShflMode,
    exec: u32,
    membermask: &[u32; 32],
    a: &[u32; 32],
    b: &[u32; 32],
    c: &[u32; 32],
) -> Result<[ShflLane; 32], WarpError> {
    check_members(&SHFL_SYNC, exec, membermask)?;
    Ok(shfl_core(mode, exec, a, b, c, |i, j| {
        exec >> j & 1 != 0 && membermask[i] >> j & 1 != 0
    }))
}

/// §9.7.9.6 shfl.sync (L12004): `(d, p)` per lane; d's model value (see [`shfl_sync_lanes`] for
/// which lanes' d are unspecified).
pub fn shfl_sync(
    mode: ShflMode,
    exec: u32,
    membermask: &[u32; 32],
    a: &[u32; 32],
    b: &[u32; 32],
    c: &[u32; 32],
) -> Result<[(u32, bool); 32], WarpError> {
    let r = shfl_sync_lanes(mode, exec, membermask, a, b, c)?;
    Ok(std::array::from_fn(|i| (r[i].d.model as u32, r[i].p)))
}

/// §9.7.9.5 shfl, deprecated (L11870), with the acceptance set of each d: shfl.sync with every
/// lane's membermask = `exec`. The non-`.sync` form exchanges among the active threads, and
/// reading an inactive thread is the one undefined case (L11900), here an unspecified d as for
/// shfl.sync. It cannot fail.
pub fn shfl_lanes(mode: ShflMode, exec: u32, a: &[u32; 32], b: &[u32; 32], c: &[u32; 32]) -> [ShflLane; 32] {
    shfl_core(mode, exec, a, b, c, |_, j| exec >> j & 1 != 0)
}

/// §9.7.9.5 shfl, deprecated (L11870): `(d, p)` per lane, d's model value.
pub fn shfl(mode: ShflMode, exec: u32, a: &[u32; 32], b: &[u32; 32], c: &[u32; 32]) -> [(u32, bool); 32] {
    let r = shfl_lanes(mode, exec, a, b, c);
    std::array::from_fn(|i| (r[i].d.model as u32, r[i].p))
}

// ---------------------------------------------------------------------------------------------
// vote, vote.sync

/// The `.mode` of vote and vote.sync, with `.ballot` (L18000, L18070).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    /// `.all`: the predicate is true in every active lane.
    All,
    /// `.any`: the predicate is true in some active lane.
    Any,
    /// `.uni`: the predicate has the same value in every active lane.
    Uni,
    /// `.ballot.b32`: each lane's predicate in bit `laneid`, 0 for inactive lanes.
    Ballot,
}

impl VoteMode {
    /// The mode as the catalog writes it (`all`, `any`, `uni`, `ballot`).
    pub fn parse(s: &str) -> Option<VoteMode> {
        Some(match s {
            "all" => VoteMode::All,
            "any" => VoteMode::Any,
            "uni" => VoteMode::Uni,
            "ballot" => VoteMode::Ballot,
            _ => return None,
        })
    }
}

/// The vote of the group `group` (all of whose lanes execute): `.all`, `.any`, `.uni` as 0/1,
/// `.ballot` as the mask of the group's lanes with a True predicate.
fn vote_of(mode: VoteMode, group: u32, pred: &[bool; 32]) -> u32 {
    let yes = lanes(group).fold(0u32, |m, k| if pred[k] { m | 1 << k } else { m });
    match mode {
        VoteMode::All => (yes == group) as u32,
        VoteMode::Any => (yes != 0) as u32,
        VoteMode::Uni => (yes == 0 || yes == group) as u32,
        VoteMode::Ballot => yes,
    }
}

/// §9.7.13.9 vote.sync (L18061). `pred[i]` is lane i's source predicate with any `!` applied.
/// Per executing lane, over the threads of its membermask: `.all` True iff every predicate is
/// True (L18086), `.any` iff some is (L18090), `.uni` iff all are equal (L18094), as 0/1;
/// `.ballot` the mask of those threads whose predicate is True, lanes outside membermask
/// contributing 0 (L18096-18098).
///
/// Errors: an executing lane outside its membermask (L18100); a lane of the membermask that does
/// not execute the instruction with the same membermask (L18076, L18104).
pub fn vote_sync(mode: VoteMode, exec: u32, membermask: &[u32; 32], pred: &[bool; 32]) -> Result<[u32; 32], WarpError> {
    check_members(&VOTE_SYNC, exec, membermask)?;
    Ok(std::array::from_fn(|i| {
        if exec >> i & 1 == 0 {
            0
        } else {
            vote_of(mode, membermask[i], pred)
        }
    }))
}

/// §9.7.13.8 vote, deprecated (L17990): the vote over the active threads of the warp, which is
/// vote.sync with membermask = `exec` for every lane (L18021-18029); inactive lanes contribute 0
/// to `.ballot` (L18033). It cannot fail.
pub fn vote(mode: VoteMode, exec: u32, pred: &[bool; 32]) -> [u32; 32] {
    let v = vote_of(mode, exec, pred);
    std::array::from_fn(|i| if exec >> i & 1 == 0 { 0 } else { v })
}

// ---------------------------------------------------------------------------------------------
// match.sync

/// §9.7.13.10 match.any.sync (L18119): per executing lane, the mask of the threads of its
/// membermask whose a equals its own (L18152). `.b32` operands are passed zero-extended.
///
/// Errors: an executing lane outside its membermask (L18154); a lane of the membermask that does
/// not execute the instruction with the same membermask (L18134).
pub fn match_sync_any(exec: u32, membermask: &[u32; 32], a: &[u64; 32]) -> Result<[u32; 32], WarpError> {
    check_members(&MATCH_SYNC, exec, membermask)?;
    Ok(std::array::from_fn(|i| {
        if exec >> i & 1 == 0 {
            return 0;
        }
        lanes(membermask[i]).fold(0u32, |m, k| if a[k] == a[i] { m | 1 << k } else { m })
    }))
}

/// §9.7.13.10 match.all.sync (L18119): per executing lane `(d, p)`: when every thread of its
/// membermask has the same a, d is the membermask (its non-exited threads) and p True;
/// otherwise d = 0 and p False (L18148). Errors as [`match_sync_any`].
pub fn match_sync_all(exec: u32, membermask: &[u32; 32], a: &[u64; 32]) -> Result<[(u32, bool); 32], WarpError> {
    check_members(&MATCH_SYNC, exec, membermask)?;
    Ok(std::array::from_fn(|i| {
        let m = membermask[i];
        if exec >> i & 1 == 0 {
            (0, false)
        } else if lanes(m).all(|k| a[k] == a[i]) {
            (m, true)
        } else {
            (0, false)
        }
    }))
}

// ---------------------------------------------------------------------------------------------
// activemask

/// §9.7.13.11 activemask (L18173): each executing lane gets the mask of the lanes that are
/// active and not predicated off (L18189), which is `exec` itself.
pub fn activemask(exec: u32) -> [u32; 32] {
    std::array::from_fn(|i| if exec >> i & 1 == 0 { 0 } else { exec })
}

// ---------------------------------------------------------------------------------------------
// redux.sync

/// The `.op` of redux.sync (L18212-18219).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduxOp {
    /// `.add`: the sum, truncated to 32 bits.
    Add,
    /// `.min`.
    Min,
    /// `.max`.
    Max,
    /// `.and`: bitwise AND.
    And,
    /// `.or`: bitwise OR.
    Or,
    /// `.xor`: bitwise exclusive OR.
    Xor,
}

/// The `.type` of redux.sync and the qualifiers that go with `.f32` (L18212-18219).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduxType {
    /// `.u32`.
    U32,
    /// `.s32`.
    S32,
    /// `.b32` (the bitwise operations).
    B32,
    /// `.f32` (`.min`, `.max`).
    F32 {
        /// `.abs`: reduce the inputs' absolute values.
        abs: bool,
        /// `.NaN`: any NaN input makes the result the canonical NaN.
        nan: bool,
    },
}

/// A redux.sync form's operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Redux {
    /// `.op`.
    pub op: ReduxOp,
    /// `.type` with its qualifiers.
    pub ty: ReduxType,
}

impl Redux {
    /// Decodes a catalog form; an error for anything but the combinations the syntax lists:
    /// `.add .min .max` with `.u32 .s32`, `.and .or .xor` with `.b32`, `.min .max` with `.f32`
    /// and optional `.abs`, `.NaN` (L18212-18219).
    pub fn from_form(form: &Form) -> Result<Redux, WarpError> {
        let bad = || WarpError(format!("`{}` is not a redux.sync form", form.name));
        if form.opcode != "redux" || !form.has("sync") {
            return Err(bad());
        }
        let op = match form.var("op") {
            Some("add") => ReduxOp::Add,
            Some("min") => ReduxOp::Min,
            Some("max") => ReduxOp::Max,
            Some("and") => ReduxOp::And,
            Some("or") => ReduxOp::Or,
            Some("xor") => ReduxOp::Xor,
            _ => return Err(bad()),
        };
        let (abs, nan) = (form.has("abs"), form.has("NaN"));
        let ty = match form.var("t") {
            Some("u32") => ReduxType::U32,
            Some("s32") => ReduxType::S32,
            Some("b32") => ReduxType::B32,
            Some("f32") => ReduxType::F32 { abs, nan },
            _ => return Err(bad()),
        };
        let legal = match ty {
            ReduxType::U32 | ReduxType::S32 => matches!(op, ReduxOp::Add | ReduxOp::Min | ReduxOp::Max),
            ReduxType::B32 => matches!(op, ReduxOp::And | ReduxOp::Or | ReduxOp::Xor),
            ReduxType::F32 { .. } => matches!(op, ReduxOp::Min | ReduxOp::Max),
        };
        if !legal || ((abs || nan) && !matches!(ty, ReduxType::F32 { .. })) {
            return Err(bad());
        }
        Ok(Redux { op, ty })
    }

    /// The reduction of `values` (the src of every participating thread). Integer `.add` wraps
    /// modulo 2^32 ("truncated to 32 bits", L18231); `.min`/`.max` compare as the type's
    /// integers; `.and .or .xor` are bitwise. For `.f32` see [`redux_f32`]. The reduction of no
    /// values is the operation's identity (the canonical NaN for `.f32`); a collective always
    /// has at least the executing lane.
    pub fn reduce(&self, values: impl IntoIterator<Item = u32>) -> u32 {
        let values = values.into_iter();
        match (self.op, self.ty) {
            (op, ReduxType::F32 { abs, nan }) => redux_f32(op == ReduxOp::Max, abs, nan, values),
            (ReduxOp::Add, _) => values.fold(0u32, u32::wrapping_add),
            (ReduxOp::Min, ReduxType::S32) => values.map(|x| x as i32).min().unwrap_or(i32::MAX) as u32,
            (ReduxOp::Max, ReduxType::S32) => values.map(|x| x as i32).max().unwrap_or(i32::MIN) as u32,
            (ReduxOp::Min, _) => values.min().unwrap_or(u32::MAX),
            (ReduxOp::Max, _) => values.max().unwrap_or(0),
            (ReduxOp::And, _) => values.fold(u32::MAX, |x, y| x & y),
            (ReduxOp::Or, _) => values.fold(0, |x, y| x | y),
            (ReduxOp::Xor, _) => values.fold(0, |x, y| x ^ y),
        }
    }
}

/// A key whose unsigned order is the numeric order of non-NaN f32 bit patterns, with −0 below
/// +0: "+0.0 > −0.0" (L18233).
fn f32_key(x: u32) -> u32 {
    if x >> 31 != 0 {
        !x
    } else {
        x | 0x8000_0000
    }
}

/// redux.sync `.min`/`.max` `.f32` (L18231-18239): with `.abs` the reduction runs on |x| (the
/// sign bit cleared, so the result is itself an absolute value, L18235); +0 > −0 (L18233); with
/// `.NaN` any NaN input makes the result the canonical NaN (L18237); without it NaNs are left out
/// and only an all-NaN input gives the canonical NaN (L18239). The canonical NaN is 0x7fffffff,
/// the one f32 operations produce (catalog §2.4). Other values come back bit for bit
/// (subnormals are not flushed: the manual names no `.ftz`).
pub fn redux_f32(max: bool, abs: bool, nan: bool, values: impl IntoIterator<Item = u32>) -> u32 {
    let canonical = F32.canonical_nan as u32;
    let mut best: Option<u32> = None;
    for x in values {
        let x = if abs { x & 0x7fff_ffff } else { x };
        if F32.is_nan(x as u128) {
            if nan {
                return canonical;
            }
            continue;
        }
        best = Some(match best {
            Some(b) if (f32_key(x) > f32_key(b)) == max => x,
            Some(b) => b,
            None => x,
        });
    }
    best.unwrap_or(canonical)
}

/// §9.7.13.12 redux.sync (L18203): per executing lane, the reduction `form` names over the src of
/// the threads of its membermask ([`Redux::reduce`]).
///
/// Errors: `form` is not a redux.sync form; an executing lane outside its membermask (L18241); a
/// lane of the membermask that does not execute the instruction with the same membermask
/// (L18223).
pub fn redux_sync(form: &Form, exec: u32, membermask: &[u32; 32], a: &[u32; 32]) -> Result<[u32; 32], WarpError> {
    let r = Redux::from_form(form)?;
    check_members(&REDUX_SYNC, exec, membermask)?;
    Ok(std::array::from_fn(|i| {
        if exec >> i & 1 == 0 {
            0
        } else {
            r.reduce(lanes(membermask[i]).map(|k| a[k]))
        }
    }))
}

// ---------------------------------------------------------------------------------------------
// elect.sync

/// §9.7.13.14 elect.sync (L18308): per executing lane `(d, p)`: d is the laneid of the leader
/// elected from its membermask, p True only in the leader (L18320).
///
/// Which thread leads is not specified, only that the choice is deterministic for a membermask
/// (L18324). The model is the lowest lane of the membermask, a deterministic choice that depends
/// on the membermask alone (the lowest active lane is what hardware is believed to elect; not
/// verified on a GPU here). Other choices conform; [`elect_sync_accepts`] checks a result against
/// the manual's rule.
///
/// Errors: an executing lane outside its membermask (L18322); a lane of the membermask that does
/// not execute elect (L18326, "all threads in membermask").
pub fn elect_sync(exec: u32, membermask: &[u32; 32]) -> Result<[(u32, bool); 32], WarpError> {
    check_members(&ELECT_SYNC, exec, membermask)?;
    Ok(std::array::from_fn(|i| {
        if exec >> i & 1 == 0 {
            return (0, false);
        }
        let leader = membermask[i].trailing_zeros();
        (leader, leader == i as u32)
    }))
}

/// Whether `got` is a result elect.sync may give (L18320-18324): in every membermask group, all
/// lanes report the same leader d, a lane of the group, and p is True exactly in that lane.
/// (Determinism across executions is the caller's to compare.) Lanes outside `exec` are not
/// looked at. Errors as [`elect_sync`].
pub fn elect_sync_accepts(exec: u32, membermask: &[u32; 32], got: &[(u32, bool); 32]) -> Result<bool, WarpError> {
    check_members(&ELECT_SYNC, exec, membermask)?;
    Ok(lanes(exec).all(|i| {
        let m = membermask[i];
        let leader = got[lanes(m).next().unwrap_or(i)].0;
        leader < 32 && m >> leader & 1 != 0 && lanes(m).all(|k| got[k] == (leader, k as u32 == leader))
    }))
}

// ---------------------------------------------------------------------------------------------
// bar.warp.sync

/// §9.7.13.2 bar.warp.sync (L17112): nothing to compute; the error where the behaviour is
/// undefined or the executing lanes would wait forever (L17124-17134), as for the other `.sync`
/// collectives.
pub fn bar_warp_sync(exec: u32, membermask: &[u32; 32]) -> Result<(), WarpError> {
    check_members(&BAR_WARP_SYNC, exec, membermask)
}

// ---------------------------------------------------------------------------------------------
// bar.red, barrier.red

/// The reduction of bar.red / barrier.red (L17003, L17024).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarRedOp {
    /// `.popc`: how many threads have a true predicate.
    Popc,
    /// `.and`: whether all threads have a true predicate.
    And,
    /// `.or`: whether any thread has a true predicate.
    Or,
}

impl BarRedOp {
    /// The operation as the catalog writes it (`popc`, `and`, `or`).
    pub fn parse(s: &str) -> Option<BarRedOp> {
        Some(match s {
            "popc" => BarRedOp::Popc,
            "and" => BarRedOp::And,
            "or" => BarRedOp::Or,
            _ => return None,
        })
    }
}

/// §9.7.13.1 bar.red.popc / barrier.red.popc (L17022-17024): the number of participating threads
/// whose predicate c (after any `!`) is True. `preds` holds one entry per thread of the CTA that
/// takes part in the barrier (all of them, or the b threads of a counted barrier); every waiting
/// thread receives the same value.
pub fn bar_red_popc(preds: &[bool]) -> u32 {
    u32::try_from(preds.iter().filter(|&&p| p).count()).unwrap_or(u32::MAX)
}

/// §9.7.13.1 bar.red.and (L17024): whether every participating thread's predicate is True.
pub fn bar_red_and(preds: &[bool]) -> bool {
    preds.iter().all(|&p| p)
}

/// §9.7.13.1 bar.red.or (L17024): whether some participating thread's predicate is True.
pub fn bar_red_or(preds: &[bool]) -> bool {
    preds.iter().any(|&p| p)
}

/// bar.red with the operation as a value: the count for `.popc`, 0/1 for `.and` and `.or`.
pub fn bar_red(op: BarRedOp, preds: &[bool]) -> u32 {
    match op {
        BarRedOp::Popc => bar_red_popc(preds),
        BarRedOp::And => bar_red_and(preds) as u32,
        BarRedOp::Or => bar_red_or(preds) as u32,
    }
}

/// The operand rules of bar/barrier (L17006-17010): the barrier a is 0..15; a thread count b
/// must be a multiple of the warp size (32); `.arrive` needs a nonzero count. `b` is `None` when
/// the instruction has no count (every thread of the CTA takes part).
pub fn barrier_check(a: u32, b: Option<u32>, arrive: bool) -> Result<(), WarpError> {
    if a > 15 {
        return Err(WarpError(format!(
            "barrier {a}: a CTA has barriers 0..15 only (L17006, L17010)"
        )));
    }
    match b {
        Some(n) if n % 32 != 0 => Err(WarpError(format!(
            "thread count {n} is not a multiple of the warp size 32 (L17010)"
        ))),
        Some(0) | None if arrive => Err(WarpError(
            "barrier.arrive needs a nonzero thread count (L17010)".to_string(),
        )),
        _ => Ok(()),
    }
}
