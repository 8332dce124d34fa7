//! The instruction catalog: every instruction form of PTX ISA 8.7 §9.7, in one table.
//!
//! The table lives in `spec/catalog/*.forms`, one file per group of §9.7 families, written as
//! compact per-instruction descriptions (see [`pattern`]) that expand into forms. It drives the
//! `eval` front end, the coverage report and (later) the parser, type checker, generators and the
//! vector emitter, so that instruction knowledge lives in one place.
//!
//! File format, line by line (`#` starts a comment):
//! ```text
//! @family  9.7.1 Integer Arithmetic Instructions
//! @section 9.7.1.1 add L5637
//! add.<t:u16|u32|u64|s16|s32|s64> ; d:t = a:t b:t ; 1.0 ; sm_10 ; exact
//! ```
//! `@sem MODULE` names the spec module whose function gives the value-level rows after it (in
//! that file) their semantics ([`Sem`]); every row of a value class (`exact`, `approx`,
//! `approx-nobound`) must have one, and the other classes are the oracle's to execute.
//! `@exec KIND` names the oracle executor that runs the rows after it (in that file, until the
//! next `@exec`; `@exec none` for rows it does not execute yet): [`Exec`]. Operational rows
//! (`memory`, `multi-thread`, `opaque`, `control`) have no semantics of their own, so a row of
//! theirs without one is not executed yet; of the value rows only `mov`'s take one (their address
//! operands).
//! `@retired TARGET[@PTX] MESSAGE` marks the row after it as removed
//! on `TARGET` and later (from PTX `PTX` on, when given): the manual's "removal" notes, such as
//! `shfl` without `.sync` on sm_70 from PTX 6.4 (L11890); `MESSAGE` is the checker's error, with
//! `{name}` standing for the instruction ([`Form::retired`]).
//! `@opcode OPCODE FACT...` gives every form of an opcode operand rules that are not a form's
//! operands and types (special-register sources, registers wider than the type, ...):
//! [`OpcodeRules`], asked through [`Catalog::rules`].
//! `@let NAME = text` defines text that later rows of the same file write as `$NAME` (a hint
//! list, a shape list), so long lists are written once.
//! `@fixed OPCODE MOD...` names modifiers that must be written right after the opcode, `@free
//! MOD...` the qualifiers that may stand anywhere, `@space MOD...` the state spaces (anywhere, in
//! their order), `@repeat MOD...` the qualifiers that may be written twice: how ptxas reads
//! modifiers out of the syntax's order (`order.forms`,
//! [`pattern::matches_unordered`]; `mul.s32.lo` is an error, `add.rn.f32.ftz` is not).
//! A form row is `pattern ; operands ; min PTX ; min target ; class[+flag...]` (classes: `exact`
//! `approx` `approx-nobound` `memory` `multi-thread` `opaque` `control`; flags: [`ROW_FLAGS`]).
//! Operands are `outputs = inputs` in PTX order; each is `name[?]:type[+flag...]` where type is a
//! concrete type (`u32`, `pred`), a name bound in the pattern (`t`), or `t*2` (twice its width).
//! `?` marks an optional operand (`q` of `p|q`), braces group a vector operand (`{a:b16 b:b16}`).
//! Flags: `imm` (must be an immediate), `not` (`!p` allowed), `neg` (`-a` allowed), `sel` (a
//! byte/half selector suffix allowed, video), `cc` (the carry flag CC.CF), `reg` (a register,
//! never an immediate), `f32lit` (a float constant only as `0f` bits), `sink`/`discard` (a
//! destination that must/may be `_`), `in=LO..HI` and
//! `mul=N` (a constant's range and multiple), `wide` (a generic address in a 64-bit register),
//! and the operand roles `amount` (a shift amount or bit position), `divisor`, `lut` (a truth
//! table) and `perm` (a byte-permute selector): see
//! [`OperandFlags`].

pub mod fragment;
mod id;
pub mod literal;
pub mod pattern;
pub mod rules;
pub mod write;

pub use id::{FormId, FormIds};

use crate::types::Type;
pub use rules::OpcodeRules;
use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

/// The table files, in section order.
const TABLES: &[(&str, &str)] = &[
    ("order.forms", include_str!("../../catalog/order.forms")),
    ("targets.forms", include_str!("../../catalog/targets.forms")),
    ("integer.forms", include_str!("../../catalog/integer.forms")),
    ("float.forms", include_str!("../../catalog/float.forms")),
    ("half.forms", include_str!("../../catalog/half.forms")),
    ("compare.forms", include_str!("../../catalog/compare.forms")),
    ("logic.forms", include_str!("../../catalog/logic.forms")),
    ("data.forms", include_str!("../../catalog/data.forms")),
    ("memory.forms", include_str!("../../catalog/memory.forms")),
    ("texture.forms", include_str!("../../catalog/texture.forms")),
    ("control.forms", include_str!("../../catalog/control.forms")),
    ("sync.forms", include_str!("../../catalog/sync.forms")),
    ("mma.forms", include_str!("../../catalog/mma.forms")),
    ("misc.forms", include_str!("../../catalog/misc.forms")),
    ("video.forms", include_str!("../../catalog/video.forms")),
];

/// Flags a row may carry after its class (`exact+nan-unspec`):
/// - `nan-unspec`: a NaN result is an "unspecified NaN" (only NaN-ness is checkable);
/// - `contract`: without a rounding modifier the compiler may fuse the operation into an fma
///   (L7572), so only the explicitly rounded forms are bit-exact as written;
/// - `deprecated`: the manual deprecates the form (still listed, still legal for older targets);
/// - `preview`: a preview feature (§9.7.17 stack manipulation);
///
/// and the instruction's effects beyond its destinations ([`Effects`], the same for every row of
/// an opcode): `branch`, `call`, `return`, `trap`, `barrier`, `fence`.
pub const ROW_FLAGS: &[&str] = &[
    "nan-unspec",
    "contract",
    "deprecated",
    "preview",
    "branch",
    "call",
    "return",
    "trap",
    "barrier",
    "fence",
];

/// What an instruction does besides writing its destinations: where control goes and what it
/// orders. One value per opcode (the catalog refuses rows of one opcode that disagree); the
/// reducer, the program generator and the interpreter ask it instead of matching opcode names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Effects {
    /// Control goes to a label or a label of a table (`bra`, `brx.idx`, §9.7.12.3-4): no fall
    /// through unless guarded.
    pub branch: bool,
    /// A call (`call`, §9.7.12.5): its operands are a function and argument lists, not values.
    pub call: bool,
    /// Ends the function or the thread (`ret`, `exit`, §9.7.12.6-7).
    pub returns: bool,
    /// Aborts the launch (`trap`, §9.7.19.2).
    pub trap: bool,
    /// A barrier among the threads of a CTA, warp or cluster (`bar`, `barrier`, §9.7.13.1-2):
    /// every thread taking part must reach it.
    pub barrier: bool,
    /// Orders memory accesses (`membar`, `fence`, §9.7.13.4).
    pub fence: bool,
}

impl Effects {
    fn of_flags(flags: &[&str]) -> Effects {
        Effects {
            branch: flags.contains(&"branch"),
            call: flags.contains(&"call"),
            returns: flags.contains(&"return"),
            trap: flags.contains(&"trap"),
            barrier: flags.contains(&"barrier"),
            fence: flags.contains(&"fence"),
        }
    }

    /// Control does not fall through to the next instruction (unless the instruction is
    /// guarded): branches, returns and traps.
    pub fn ends_flow(self) -> bool {
        self.branch || self.returns || self.trap
    }

    /// Changes control flow or synchronizes: anything but a plain computation or access.
    pub fn any(self) -> bool {
        self != Effects::default()
    }
}

/// The spec module that gives a value-level row its semantics (`@sem` in the table): the one
/// hop from a catalog row to its function ([`crate::eval::semantics`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sem {
    /// Integer arithmetic, §9.7.1 ([`crate::int`]).
    Int,
    /// Extended-precision integer arithmetic with the carry flag, §9.7.2 ([`crate::extended`]).
    Extended,
    /// IEEE floating point, §9.7.3 ([`crate::fp`]).
    Fp,
    /// Approximate floating point (`.approx`, transcendental functions) ([`crate::approx`]).
    Approx,
    /// Half precision and packed f16x2/bf16x2, §9.7.4, 9.7.5, 9.7.7 ([`crate::half`]).
    Half,
    /// Comparison and selection, §9.7.6 ([`crate::compare`]).
    Compare,
    /// Logic and shift, §9.7.8 ([`crate::logic`]).
    Logic,
    /// Data movement of values (`mov`, `prmt`, ...), §9.7.9 ([`crate::data`]).
    Data,
    /// Conversion, §9.7.9.21 ([`crate::cvt`]).
    Cvt,
    /// Video instructions, §9.7.18 ([`crate::video`]).
    Video,
}

impl Sem {
    fn parse(s: &str) -> Option<Sem> {
        Some(match s {
            "int" => Sem::Int,
            "extended" => Sem::Extended,
            "fp" => Sem::Fp,
            "approx" => Sem::Approx,
            "half" => Sem::Half,
            "compare" => Sem::Compare,
            "logic" => Sem::Logic,
            "data" => Sem::Data,
            "cvt" => Sem::Cvt,
            "video" => Sem::Video,
            _ => return None,
        })
    }
}

/// The oracle executor that runs an operational row (`@exec` in the table): the one hop from a
/// catalog row to the type checker's decoder (`oracle::check`), which dispatches on it instead of
/// opcode names. A row without one (`Row::exec == None`) is not executed yet (valid PTX the
/// oracle declines), unless it is a value row, which its semantics ([`Sem`]) run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Exec {
    /// Loads: §9.7.9.8 `ld`, §9.7.9.9 `ld.global.nc`, §9.7.9.10 `ldu` (not the other forms of the
    /// opcode).
    Ld,
    /// Stores: §9.7.9.11 `st` (not `st.async`, §9.7.9.12, nor `st.bulk`, §9.7.9.13, which share
    /// the opcode, not the semantics).
    St,
    /// §9.7.9.3 `mov` and the packing moves of §9.7.9.4: a variable's or function's address
    /// (`mov.u32 d, avar`, L11731-11736; decided by the operand, in any `mov` type, as ptxas 12.9
    /// takes it); any other operand is a value form, run by its semantics. The one executor
    /// value rows carry.
    Mov,
    /// §9.7.9.20 `cvta`: addresses converted between a state space and the generic space.
    Cvta,
    /// Atomics and reductions: §9.7.13.5 `atom`, §9.7.13.6 `red`.
    Atom,
    /// §9.7.9.19 `isspacep`: whether a generic address lies in a state space.
    Isspacep,
    /// §9.7.12.3 `bra`: a branch to a label.
    Bra,
    /// §9.7.12.4 `brx.idx`: a branch through a `.branchtargets` list.
    Brx,
    /// §9.7.12.5 `call`: a direct call, or an indirect one through a prototype or target list.
    Call,
    /// §9.7.12.6 `ret`: returns from the function (to its epilogue where it has one).
    Ret,
    /// §9.7.12.7 `exit`: ends the thread.
    Exit,
    /// §9.7.19.4 `trap`: aborts the launch.
    Trap,
    /// §9.7.13.1 `bar`/`barrier`: the CTA barriers (not `barrier.cluster`, §9.7.13.3).
    Bar,
    /// §9.7.13.3 `barrier.cluster.arrive`/`wait` (`.relaxed`, `.acquire`, `.aligned`): the
    /// barrier among the threads of the launch's cluster of CTAs.
    BarrierCluster,
    /// §9.7.9.23 `mapa`: a shared-memory address mapped into another CTA of the cluster.
    Mapa,
    /// §9.7.9.24 `getctarank`: the cluster rank of the CTA whose shared memory an address is in.
    Getctarank,
    /// §9.7.13.2 `bar.warp.sync`: the warp barrier on a member mask.
    WarpSync,
    /// §9.7.9.15 `prefetch`/`prefetchu`: no effect on values; the address is checked as a load's.
    Prefetch,
    /// Instructions with no effect the oracle models (decoded as a no-op): §9.7.13.4
    /// `membar`/`fence`, §9.7.19.2 `nanosleep`, §9.7.19.3 `pmevent`, §9.7.13.13
    /// `griddepcontrol` (a launch is one grid with no prerequisite or dependent grids).
    Nop,
    /// §9.7.9.26 `tensormap.replace`: one field of a 128-byte tensor map in global or shared
    /// memory rewritten (`crate::tma::replace`, our encoding).
    TensormapReplace,
    /// §9.7.13.16 `tensormap.cp_fenceproxy`: 128 bytes copied from shared to global memory,
    /// then a release fence from the generic proxy to the tensormap proxy on the copy.
    TensormapCpFenceproxy,
    /// §9.7.13.4 `fence.proxy.async{,.global,.shared::cta,.shared::cluster}` and its
    /// `membar.proxy` synonym (L17268): orders the thread's generic-proxy accesses with its
    /// async-proxy ones (L17276-17278), which `wgmma.mma_async` needs between a write of its
    /// shared-memory matrices and its read of them (L26398).
    ProxyFence,
    /// §9.7.13.15.9-17 the mbarrier instructions: `mbarrier.init`, `inval`, `expect_tx`,
    /// `complete_tx`, `arrive`, `arrive_drop`, `cp.async.mbarrier.arrive`, `test_wait`/`try_wait`
    /// and `pending_count`, on objects in the shared memory of the CTA or, for the forms the
    /// manual allows on `.shared::cluster` addresses (arrive, arrive_drop, expect_tx,
    /// complete_tx), of another CTA of its cluster.
    Mbarrier,
    /// §9.7.9.25.3.1 `cp.async`: a copy from global to shared memory that completes later, at a
    /// `cp.async.wait_group`/`wait_all` of the issuing thread.
    CpAsync,
    /// §9.7.9.25.3.2 `cp.async.commit_group`: the thread's uncommitted copies become a group.
    CpAsyncCommit,
    /// §9.7.9.25.3.3 `cp.async.wait_group N` and `cp.async.wait_all`: the thread's groups but the
    /// newest N complete.
    CpAsyncWait,
    /// §9.7.9.25.4.1-3 the non-tensor bulk copies: `cp.async.bulk`, `cp.reduce.async.bulk`
    /// (the `reduce` modifier) and `cp.async.bulk.prefetch` (the `prefetch` modifier), completed
    /// through an mbarrier's tx-count or a bulk async-group.
    BulkCopy,
    /// §9.7.9.25.6.1-2 `cp.async.bulk.commit_group` and `cp.async.bulk.wait_group{.read} N`.
    BulkGroup,
    /// §9.7.9.25.5.2-4 the tensor copies in `.tile` and `.im2col`/`.im2col_no_offs` modes:
    /// `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor` (the `reduce` modifier) and
    /// `cp.async.bulk.prefetch.tensor` (the `prefetch` modifier), their tensor map decoded by
    /// `crate::tma`, carried out on the bulk copies' completion.
    TensorCopy,
    /// §9.7.13.4 `fence.proxy.tensormap::generic.release`/`.acquire [addr], size`: the
    /// tensormap-proxy ordering the tensor copies' maps need.
    TensormapFence,
    /// §9.7.9.12 `st.async`: an asynchronous store to `.shared::cluster` signalling an
    /// mbarrier, or a release store to `.global`.
    StAsync,
    /// §9.7.9.13 `st.bulk`: zero-fill of a region of shared memory.
    StBulk,
    /// §9.7.13.7 `red.async`: an asynchronous reduction on `.shared::cluster` signalling an
    /// mbarrier, or a release reduction on `.global`.
    RedAsync,
    /// §9.7.14.5.14 `mma` (dense): fragments of the warp gathered into matrices
    /// (`crate::matrix`), multiplied (`crate::tensor`), D scattered back.
    Mma,
    /// §9.7.14.4.3-5 `wmma.load`, `wmma.store`, `wmma.mma`: whole matrices in the oracle's own
    /// fragment layout (the manual leaves it unspecified, L20114-20116).
    Wmma,
    /// §9.7.14.5.15 `ldmatrix`: 8×8 matrices from shared memory into the warp's fragments.
    Ldmatrix,
    /// §9.7.14.5.16 `stmatrix`: the warp's fragments to 8×8 matrices in shared memory.
    Stmatrix,
    /// §9.7.14.5.17 `movmatrix`: a transpose of an 8×8 fragment across the warp.
    Movmatrix,
    /// §9.7.15.5.2 `wgmma.mma_async` (dense): the warpgroup's accumulator fragments and A (from
    /// registers or a shared-memory descriptor, `crate::matrix::wgmma`) and B (a descriptor)
    /// gathered into matrices, multiplied (`crate::tensor`), D scattered back.
    Wgmma,
    /// §9.7.15.7.1-3 `wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group N`: the ordering and
    /// completion of the thread's `wgmma.mma_async` operations.
    WgmmaSync,
    // The warp collectives: their operands bind like a value form's, and the interpreter runs
    // them across the warp ([`Exec::is_warp`]).
    /// §9.7.9.5-6 `shfl` (its `.mode` the form's `mode`), with or without `.sync`.
    Shfl,
    /// §9.7.13.8-9 `vote` (its `.mode` the form's `mode`; `vote.ballot` has none in the older
    /// syntax), with or without `.sync`.
    Vote,
    /// §9.7.13.10 `match.sync`, `.any` or `.all`.
    Match,
    /// §9.7.13.12 `redux.sync`.
    Redux,
    /// §9.7.13.14 `elect.sync`.
    Elect,
    /// §9.7.13.11 `activemask`.
    Activemask,
    /// §9.7.19.5 `setmaxnreg.inc/.dec`: warpgroup-wide, the per-thread register count of the
    /// warpgroup's warps kept against the CTA's pool (`oracle/src/exec/control.rs`).
    Setmaxnreg,
    /// §9.7.19.1 `brkpt`: suspends execution; the oracle, which has no debugger to resume it,
    /// stops the launch there.
    Brkpt,
    /// §9.7.17.1 `stacksave`: the thread's stack pointer.
    Stacksave,
    /// §9.7.17.2 `stackrestore`: sets the thread's stack pointer.
    Stackrestore,
    /// §9.7.17.3 `alloca`: memory on the current function's stack frame.
    Alloca,
    /// §9.7.9.17 `discard.L2`: the 128 bytes at the address become undefined until written.
    Discard,
    /// §9.7.9.16 `applypriority`: an eviction priority for 128 bytes of global memory (no
    /// effect on values; the address is checked).
    Applypriority,
    /// §9.7.9.18 `createpolicy`: an opaque 64-bit cache-eviction policy.
    Createpolicy,
}

impl Exec {
    /// Every executor, in declaration order.
    pub const ALL: &'static [Exec] = &[
        Exec::Ld,
        Exec::St,
        Exec::Mov,
        Exec::Cvta,
        Exec::Atom,
        Exec::Isspacep,
        Exec::Bra,
        Exec::Brx,
        Exec::Call,
        Exec::Ret,
        Exec::Exit,
        Exec::Trap,
        Exec::Bar,
        Exec::BarrierCluster,
        Exec::Mapa,
        Exec::Getctarank,
        Exec::WarpSync,
        Exec::Prefetch,
        Exec::Nop,
        Exec::ProxyFence,
        Exec::Mbarrier,
        Exec::CpAsync,
        Exec::CpAsyncCommit,
        Exec::CpAsyncWait,
        Exec::BulkCopy,
        Exec::BulkGroup,
        Exec::StAsync,
        Exec::StBulk,
        Exec::RedAsync,
        Exec::Mma,
        Exec::Wmma,
        Exec::Ldmatrix,
        Exec::Stmatrix,
        Exec::Movmatrix,
        Exec::Wgmma,
        Exec::WgmmaSync,
        Exec::Shfl,
        Exec::Vote,
        Exec::Match,
        Exec::Redux,
        Exec::Elect,
        Exec::Activemask,
        Exec::Setmaxnreg,
        Exec::Brkpt,
        Exec::Stacksave,
        Exec::Stackrestore,
        Exec::Alloca,
        Exec::Discard,
        Exec::Applypriority,
        Exec::Createpolicy,
        Exec::TensormapReplace,
        Exec::TensormapCpFenceproxy,
        Exec::TensorCopy,
        Exec::TensormapFence,
    ];

    /// Its name in the table (`@exec warp-sync`).
    pub fn name(self) -> &'static str {
        match self {
            Exec::Ld => "ld",
            Exec::St => "st",
            Exec::Mov => "mov",
            Exec::Cvta => "cvta",
            Exec::Atom => "atom",
            Exec::Isspacep => "isspacep",
            Exec::Bra => "bra",
            Exec::Brx => "brx",
            Exec::Call => "call",
            Exec::Ret => "ret",
            Exec::Exit => "exit",
            Exec::Trap => "trap",
            Exec::Bar => "bar",
            Exec::BarrierCluster => "barrier-cluster",
            Exec::Mapa => "mapa",
            Exec::Getctarank => "getctarank",
            Exec::WarpSync => "warp-sync",
            Exec::Prefetch => "prefetch",
            Exec::Nop => "nop",
            Exec::ProxyFence => "proxy-fence",
            Exec::Mbarrier => "mbarrier",
            Exec::CpAsync => "cp-async",
            Exec::CpAsyncCommit => "cp-async-commit",
            Exec::CpAsyncWait => "cp-async-wait",
            Exec::BulkCopy => "bulk-copy",
            Exec::BulkGroup => "bulk-group",
            Exec::StAsync => "st-async",
            Exec::StBulk => "st-bulk",
            Exec::RedAsync => "red-async",
            Exec::Mma => "mma",
            Exec::Wmma => "wmma",
            Exec::Ldmatrix => "ldmatrix",
            Exec::Stmatrix => "stmatrix",
            Exec::Movmatrix => "movmatrix",
            Exec::Wgmma => "wgmma",
            Exec::WgmmaSync => "wgmma-sync",
            Exec::Shfl => "shfl",
            Exec::Vote => "vote",
            Exec::Match => "match",
            Exec::Redux => "redux",
            Exec::Elect => "elect",
            Exec::Activemask => "activemask",
            Exec::Setmaxnreg => "setmaxnreg",
            Exec::Brkpt => "brkpt",
            Exec::Stacksave => "stacksave",
            Exec::Stackrestore => "stackrestore",
            Exec::Alloca => "alloca",
            Exec::Discard => "discard",
            Exec::Applypriority => "applypriority",
            Exec::Createpolicy => "createpolicy",
            Exec::TensormapReplace => "tensormap-replace",
            Exec::TensormapCpFenceproxy => "tensormap-cp-fenceproxy",
            Exec::TensorCopy => "tensor-copy",
            Exec::TensormapFence => "tensormap-fence",
        }
    }

    /// A warp collective: its operands bind like a value form's, and the interpreter runs it
    /// across the warp.
    pub fn is_warp(self) -> bool {
        matches!(
            self,
            Exec::Shfl | Exec::Vote | Exec::Match | Exec::Redux | Exec::Elect | Exec::Activemask
        )
    }

    /// `Some(None)` for `none`.
    fn parse(s: &str) -> Option<Option<Exec>> {
        if s == "none" {
            return Some(None);
        }
        Exec::ALL.iter().find(|e| e.name() == s).map(|&e| Some(e))
    }

    /// Whether value rows (which have semantics) may name it: only `mov`, whose rows share the
    /// name with the address forms the oracle decodes by their operand.
    fn takes_value_rows(self) -> bool {
        self == Exec::Mov
    }
}

/// A removal note of the manual: the forms of a row are not supported on `target` and later
/// architectures (from PTX `ptx` on, when given), although older targets keep them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retired {
    /// The first architecture without the forms.
    pub target: Target,
    /// The PTX version from which the removal applies (`None`: every version).
    pub ptx: Option<PtxVersion>,
    /// The checker's error, `{name}` standing for the instruction as written.
    pub message: &'static str,
}

/// How precisely the manual determines an instruction's result (catalog legend).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Fully determined bits (acceptance sets still cover what the manual leaves unspecified).
    BitExact,
    /// The manual states an error bound.
    ApproxBounded,
    /// Approximate with no stated bound: only special values and structure are checkable.
    ApproxUnbounded,
    /// Needs the memory model, scopes or state spaces.
    Memory,
    /// Needs a warp, warpgroup, CTA or cluster.
    MultiThread,
    /// Opaque descriptors, tensor memory, timers, traps.
    HardwareOpaque,
    /// Control flow: deterministic per thread.
    Control,
}

impl Class {
    fn parse(s: &str) -> Option<Class> {
        Some(match s {
            "exact" => Class::BitExact,
            "approx" => Class::ApproxBounded,
            "approx-nobound" => Class::ApproxUnbounded,
            "memory" => Class::Memory,
            "multi-thread" => Class::MultiThread,
            "opaque" => Class::HardwareOpaque,
            "control" => Class::Control,
            _ => return None,
        })
    }
}

/// A minimum target: `sm_90a` is `{ sm: 90, suffix: Some('a') }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The architecture number (`90` of `sm_90a`).
    pub sm: u32,
    /// `a` (architecture-specific) or `f` (family-specific) targets have no forward compatibility.
    pub suffix: Option<char>,
}

impl Target {
    /// Parses `sm_90`, `sm_90a`, `sm_100f` (with the `sm_` prefix).
    pub fn parse(s: &str) -> Option<Target> {
        let rest = s.strip_prefix("sm_")?;
        let (num, suffix) = match rest.chars().last()? {
            c @ ('a' | 'f') => (&rest[..rest.len() - 1], Some(c)),
            _ => (rest, None),
        };
        Some(Target {
            sm: num.parse().ok()?,
            suffix,
        })
    }
}

impl Target {
    /// Whether code written for this minimum target may run in a module whose `.target` is
    /// `module` (PTX ISA 8.7 §5.1/"Target ISA notes"; 8.8 §12 for the suffixes):
    /// - `sm_XY`: any `.target sm_MN` with MN ≥ XY, suffixed or not (forward compatible);
    /// - `sm_XYa` (architecture-specific): that exact architecture, `.target sm_XYa` only;
    /// - `sm_XYf` (family-specific): `sm_MNf` or `sm_MNa` of the same family (the same tens),
    ///   MN ≥ XY.
    pub fn supports(self, module: Target) -> bool {
        match self.suffix {
            None => module.sm >= self.sm,
            Some('a') => module.suffix == Some('a') && module.sm == self.sm,
            Some(_) => {
                matches!(module.suffix, Some('a' | 'f')) && module.sm / 10 == self.sm / 10 && module.sm >= self.sm
            }
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.sm)?;
        if let Some(c) = self.suffix {
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// A PTX ISA version such as 7.8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PtxVersion(pub u8, pub u8);

impl PtxVersion {
    /// `8.7` as written in `.version` and on command lines.
    pub fn parse(s: &str) -> Option<PtxVersion> {
        let (a, b) = s.split_once('.')?;
        Some(PtxVersion(a.parse().ok()?, b.parse().ok()?))
    }
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// A family of §9.7 (`9.7.1 Integer Arithmetic Instructions`).
#[derive(Clone, Debug)]
pub struct Family {
    /// The section number (`9.7.1`).
    pub id: &'static str,
    /// The heading (`Integer Arithmetic Instructions`).
    pub title: &'static str,
}

/// An instruction section of §9.7 (`9.7.1.1 add`, manual line 5637 of the 8.7 text).
#[derive(Clone, Debug)]
pub struct Section {
    /// The section number (`9.7.1.1`).
    pub id: &'static str,
    /// The heading after the number (`add`).
    pub title: &'static str,
    /// Line of the section heading in `ptx-isa-8.7.zh.txt`.
    pub line: u32,
    /// Index of its family in [`Catalog::families`].
    pub family: usize,
}

/// Operand flags from the table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OperandFlags {
    /// `imm`: must be an immediate.
    pub imm: bool,
    /// `not`: a predicate that may be written `!p`.
    pub not: bool,
    /// `neg`: may be written `-a` (video `vmad`).
    pub neg: bool,
    /// `sel`: takes a byte or half-word selector suffix (video: `a.b1`, `d.h10`).
    pub sel: bool,
    /// `cc`: the carry flag `CC.CF`, implicit in PTX source (`addc.cc`).
    pub cc: bool,
    /// Must be a register, never an immediate (the SIMD video sources: ptxas 12.9 says
    /// "Incorrect video selector" for a constant there; `c` of the bf16 `set`/`setp` forms:
    /// "Arguments mismatch").
    pub reg: bool,
    /// `f32lit`: a float constant there must be the 32-bit `0f` bits, never an f64 constant
    /// (`0d`, a decimal like `1.5`, a constant expression): `cvt.rna{.satfinite}.tf32.f32`'s
    /// source, where ptxas 12.9 refuses f64 constants ("Arguments mismatch for instruction
    /// 'mov'") although L645 converts them to the operand's size.
    pub f32lit: bool,
    /// A destination that must be the sink `_` (the instruction returns nothing there:
    /// `mbarrier.arrive.shared::cluster.b64 _, [a]`).
    pub sink: bool,
    /// A constant written there must lie in this range (`in=1..1048575`: an mbarrier's
    /// expected arrival count, L18418-18422).
    pub range: Option<(i64, i64)>,
    /// A constant written there must be a multiple of this (`mul=16`: a bulk copy's size,
    /// L14483).
    pub multiple: Option<u32>,
    /// An address that, generic, must be a 64-bit register (the mbarrier instructions: ptxas
    /// 12.9 "32-Bit ABI ... is not supported"; loads and stores check this on their own).
    pub wide: bool,
    /// A destination that may be the sink `_` (L4266: "for some instructions"; ptxas 12.9
    /// takes it for `setp`'s predicates and `mbarrier.arrive`'s state, and refuses it elsewhere:
    /// "Result discard mode is not allowed").
    pub discard: bool,
    /// `amount`: a shift amount, bit position or bit-field length (`shl`'s `b`, `bfe`'s `b c`):
    /// only its low bits and values near the operand width matter, so operand generators draw
    /// those.
    pub amount: bool,
    /// `divisor`: an integer divisor (`div`/`rem`'s `b`); zero leaves the result unspecified
    /// (L6000), which the program generator avoids by making it odd.
    pub divisor: bool,
    /// `lut`: a truth table over the sources before it (`lop3`'s `immLut`, L11196-11198: computed
    /// on the canonical operands 0xF0, 0xCC, 0xAA it is the table itself).
    pub lut: bool,
    /// `perm`: a byte-permute selector over the sources before it (`prmt`'s `c`, L12103).
    pub perm: bool,
}

/// One operand of a form, with its type resolved for that form.
#[derive(Clone, Debug)]
pub struct Operand {
    /// The name the manual's syntax gives it (`d`, `a`, `p`).
    pub name: &'static str,
    /// Its type in this form (the pattern's choice substituted).
    pub ty: Type,
    /// `name?` in the table: may be left out (`q` of `setp`'s `p|q`).
    pub optional: bool,
    /// What may be written there besides a register.
    pub flags: OperandFlags,
    /// Operands written inside one `{...}` vector share a group number.
    pub group: Option<u32>,
}

/// A row of the table: one compact description, expanding into `forms`.
#[derive(Clone, Debug)]
pub struct Row {
    /// Index of its section in [`Catalog::sections`].
    pub section: usize,
    /// The pattern column as written (`add.<t:u16|u32>`).
    pub pattern: &'static str,
    /// The pattern parsed.
    pub parts: Vec<pattern::Part>,
    /// The operands column as written (`d:t = a:t b:t`).
    pub operands: &'static str,
    /// The minimum PTX ISA version column.
    pub ptx: PtxVersion,
    /// The first minimum target of the target column.
    pub target: Target,
    /// Every (minimum target, minimum PTX version) under which the row's forms exist: the target
    /// column lists alternatives separated by `|`, each with its own version after `@` where it
    /// differs from the version column (`sm_89|sm_90@7.8`: fp8 `cvt` needs PTX 8.1 on sm_89 but
    /// 7.8 on sm_90, L13894-13898; `sm_100a|sm_101a|sm_120a`). The first is `(target, ptx)`.
    pub avail: Vec<(Target, PtxVersion)>,
    /// The class column.
    pub class: Class,
    /// The class flags written after it ([`ROW_FLAGS`]).
    pub flags: Vec<&'static str>,
    /// The spec module of a value-level row (`@sem`); `None` for the operational classes.
    pub sem: Option<Sem>,
    /// Where the manual removed the row's forms (`@retired`), and the checker's message.
    pub retired: Option<Retired>,
    /// The oracle executor of the row (`@exec`): set on the operational rows the oracle
    /// executes (and on `mov`'s value rows, [`Exec::Mov`]); `None` on operational rows it does
    /// not execute yet and on the other value rows.
    pub exec: Option<Exec>,
    /// The table file it is written in (`integer.forms`).
    pub file: &'static str,
    /// Its line in that file.
    pub line: u32,
    /// Its forms in [`Catalog::forms`].
    pub forms: FormIds,
}

/// One instruction form: opcode, modifiers and types fixed.
#[derive(Clone, Debug)]
pub struct Form {
    /// The instruction as PTX writes it: `add.sat.s32`.
    pub name: String,
    /// The opcode (`add`).
    pub opcode: &'static str,
    /// The modifiers after the opcode, in order (`["sat", "s32"]`).
    pub mods: Vec<&'static str>,
    /// Named choices of the pattern (`[("t", "s32")]`).
    pub vars: Vec<(&'static str, &'static str)>,
    /// Destination operands, in PTX order.
    pub outputs: Vec<Operand>,
    /// Source operands, in PTX order.
    pub inputs: Vec<Operand>,
    /// The §9.7 section it is listed in (`9.7.1.1`).
    pub section: &'static str,
    /// How precisely the manual determines its result.
    pub class: Class,
    /// Minimum PTX ISA version (the first alternative; see [`Form::available`]).
    pub ptx: PtxVersion,
    /// Minimum target (the first alternative; see [`Form::available`]).
    pub target: Target,
    /// Index of its row in [`Catalog::rows`].
    pub row: usize,
}

impl Form {
    /// The choice recorded under `name` in the pattern.
    pub fn var(&self, name: &str) -> Option<&'static str> {
        self.vars.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    /// The type recorded under `name` (`f.ty("t")`).
    pub fn ty(&self, name: &str) -> Option<Type> {
        Type::parse(self.var(name)?)
    }

    /// Whether modifier `m` is written (`f.has("sat")`).
    pub fn has(&self, m: &str) -> bool {
        self.mods.contains(&m)
    }

    /// Whether the form's row carries class flag `f` (`nan-unspec`, `contract`, `deprecated`,
    /// `preview`).
    pub fn flag(&self, f: &str) -> bool {
        catalog().rows[self.row].flags.contains(&f)
    }

    /// The oracle executor of the form's row (`@exec`, [`Exec`]); `None` for the forms it does
    /// not execute yet and for value forms that their semantics alone run.
    ///
    /// ```
    /// use spec::catalog::{catalog, Exec};
    /// let cat = catalog();
    /// let exec = |name: &str| cat.forms[cat.lookup(name).unwrap().forms[0]].exec();
    /// assert_eq!(exec("ld.global.u32"), Some(Exec::Ld));
    /// assert_eq!(exec("shfl.sync.idx.b32"), Some(Exec::Shfl));
    /// assert_eq!(exec("barrier.cluster.arrive"), Some(Exec::BarrierCluster));
    /// assert_eq!(exec("multimem.ld_reduce.weak.global.add.u32"), None); // not executed yet
    /// assert_eq!(exec("add.s32"), None); // a value form: its semantics run it
    /// ```
    pub fn exec(&self) -> Option<Exec> {
        catalog().rows[self.row].exec
    }

    /// The checker's error when the manual removed this form for `target` under PTX `ptx`
    /// (`@retired`: `mad.f32` without rounding on sm_20 and later, L8030; `shfl`/`vote` without
    /// `.sync` on sm_70 and later from PTX 6.4, L11890, L18011), `written` being the instruction
    /// as written.
    pub fn retired(&self, ptx: PtxVersion, target: Target, written: &str) -> Option<String> {
        let r = catalog().rows[self.row].retired?;
        (target.sm >= r.target.sm && r.ptx.is_none_or(|v| ptx >= v)).then(|| r.message.replace("{name}", written))
    }

    /// Whether the second destination is a predicate written after `|` (`setp`'s `p|q`,
    /// `shfl.sync`'s `d|p`, L11178; not the implicit carry flag of `.cc`): the one place that
    /// says how a pair of destinations is written.
    pub fn pair_destination(&self) -> bool {
        match &self.outputs[..] {
            [first, second, ..] => second.ty.kind == crate::types::Kind::Pred && !second.flags.cc && !first.flags.cc,
            _ => false,
        }
    }

    /// Whether the form exists in a module declaring `.version ptx` and `.target target`: the
    /// one availability rule, used by the type checker, the program generator and the backends.
    pub fn available(&self, ptx: PtxVersion, target: Target) -> bool {
        catalog().rows[self.row]
            .avail
            .iter()
            .any(|&(t, v)| v <= ptx && t.supports(target))
    }

    /// What the form needs, in words: `PTX ISA 8.1 and sm_89, or PTX ISA 7.8 and sm_90`.
    pub fn requirement(&self) -> String {
        catalog().rows[self.row]
            .avail
            .iter()
            .map(|(t, v)| format!("PTX ISA {v} and {t}"))
            .collect::<Vec<_>>()
            .join(", or ")
    }

    /// A one-line signature: `add.sat.s32 d:s32 = a:s32 b:s32`.
    pub fn signature(&self) -> String {
        let show = |ops: &[Operand]| {
            let mut s = String::new();
            let mut open: Option<u32> = None;
            for o in ops {
                if open.is_some() && o.group != open {
                    s.push('}');
                }
                if !s.is_empty() {
                    s.push(' ');
                }
                if o.group.is_some() && o.group != open {
                    s.push('{');
                }
                open = o.group;
                s.push_str(&format!("{}{}:{}", o.name, if o.optional { "?" } else { "" }, o.ty));
            }
            if open.is_some() {
                s.push('}');
            }
            s
        };
        format!("{} {} = {}", self.name, show(&self.outputs), show(&self.inputs))
    }
}

/// The whole catalog.
pub struct Catalog {
    /// The §9.7 families, in table order.
    pub families: Vec<Family>,
    /// The instruction sections, in table order.
    pub sections: Vec<Section>,
    /// The table rows, in table order.
    pub rows: Vec<Row>,
    /// Every form, each row's forms contiguous; other structures refer to forms by their place
    /// here, a [`FormId`].
    pub forms: Vec<Form>,
    by_name: HashMap<String, Vec<FormId>>,
    by_opcode: HashMap<&'static str, Vec<usize>>,
    /// Each opcode's effects (from its rows' flags, which agree).
    effects: HashMap<&'static str, Effects>,
    /// Per opcode, whether every form has a destination ([`Catalog::writes_first`]).
    writes_first: HashMap<&'static str, bool>,
    /// `@opcode` lines: what holds for every form of an opcode ([`Catalog::rules`]).
    rules: HashMap<&'static str, OpcodeRules>,
    /// `@fixed` lines: per opcode, the modifiers that must be written right after it (see
    /// [`pattern::matches_unordered`]).
    fixed: HashMap<&'static str, Vec<&'static str>>,
    /// `@free` lines: qualifiers ptxas takes in any position.
    free: Vec<&'static str>,
    /// `@space` lines: state spaces, which keep their order among themselves.
    spaces: Vec<&'static str>,
    /// `@repeat` lines: the free qualifiers ptxas 12.9 takes written twice (`.uni`, `.sat`).
    repeat: Vec<&'static str>,
    /// `@target` lines: the PTX ISA version that introduced each target.
    targets: Vec<(Target, PtxVersion)>,
    /// `@hint` lines: a performance hint's own PTX version and least target.
    hint_needs: Vec<(&'static str, PtxVersion, Target)>,
}

/// The catalog, built from the table on first use.
pub fn catalog() -> &'static Catalog {
    static CAT: OnceLock<Catalog> = OnceLock::new();
    CAT.get_or_init(|| Catalog::build(TABLES).unwrap_or_else(|e| panic!("instruction catalog: {e}")))
}

/// Why the instruction table does not build: a defect of the table (`spec/catalog/*.forms`),
/// found when the catalog is built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableError {
    /// The table file and line, where the defect is one line's (not for a form listed twice or
    /// an `@opcode` line naming no rows' opcode, which span the table).
    pub at: Option<(&'static str, u32)>,
    /// What is wrong.
    pub message: String,
}

impl TableError {
    fn whole(message: String) -> TableError {
        TableError { at: None, message }
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some((file, line)) => write!(f, "{file}:{line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for TableError {}

/// Why an instruction name matched no form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LookupError(pub String);

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Forms an instruction name denotes (one, unless several operand shapes share the name, as
/// `mov.b32` does for plain moves, packs and unpacks), and the hint modifiers it carried.
pub struct Found {
    /// The forms, in catalog order.
    pub forms: Vec<FormId>,
    /// The performance hints written (`ca`, `L1::evict_last`), without dots.
    pub hints: Vec<String>,
}

impl Catalog {
    /// Parses and expands the table files.
    pub fn build(tables: &[(&'static str, &'static str)]) -> Result<Catalog, TableError> {
        let mut cat = Catalog {
            families: Vec::new(),
            sections: Vec::new(),
            rows: Vec::new(),
            forms: Vec::new(),
            by_name: HashMap::new(),
            by_opcode: HashMap::new(),
            effects: HashMap::new(),
            writes_first: HashMap::new(),
            rules: HashMap::new(),
            fixed: HashMap::new(),
            free: Vec::new(),
            spaces: Vec::new(),
            repeat: Vec::new(),
            targets: Vec::new(),
            hint_needs: Vec::new(),
        };
        for (file, text) in tables {
            let mut lets: Vec<(&'static str, &'static str)> = Vec::new();
            let mut sem: Option<Sem> = None;
            let mut retired: Option<Retired> = None;
            let mut exec: Option<Exec> = None;
            for (i, raw) in text.lines().enumerate() {
                let line = (i + 1) as u32;
                let at = |message: String| TableError {
                    at: Some((file, line)),
                    message,
                };
                let l = raw.split('#').next().unwrap_or("").trim();
                if l.is_empty() {
                    continue;
                }
                if let Some(rest) = l.strip_prefix("@let") {
                    let (name, value) = rest
                        .split_once('=')
                        .ok_or_else(|| at("@let needs `NAME = text`".into()))?;
                    let name = name.trim();
                    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                        return Err(at(format!("bad @let name `{name}`")));
                    }
                    lets.retain(|(n, _)| *n != name);
                    lets.push((name, value.trim()));
                } else if let Some(rest) = l.strip_prefix("@opcode") {
                    let mut w = rest.split_whitespace();
                    let op = w.next().ok_or_else(|| at("@opcode needs an opcode and facts".into()))?;
                    let r = cat.rules.entry(op).or_default();
                    for fact in w {
                        if !r.set(fact) {
                            return Err(at(format!(
                                "unknown @opcode fact `{fact}` (known: {})",
                                rules::OPCODE_FACTS.join(" ")
                            )));
                        }
                    }
                } else if let Some(rest) = l.strip_prefix("@fixed") {
                    let mut w = rest.split_whitespace();
                    let op = w
                        .next()
                        .ok_or_else(|| at("@fixed needs an opcode and modifiers".into()))?;
                    cat.fixed.entry(op).or_default().extend(w);
                } else if let Some(rest) = l.strip_prefix("@target") {
                    let w: Vec<&str> = rest.split_whitespace().collect();
                    let [t, v] = w[..] else {
                        return Err(at("@target needs a target and a PTX version".into()));
                    };
                    let t = Target::parse(t).ok_or_else(|| at(format!("bad target `{t}`")))?;
                    let v = PtxVersion::parse(v).ok_or_else(|| at(format!("bad PTX version `{v}`")))?;
                    cat.targets.push((t, v));
                } else if let Some(rest) = l.strip_prefix("@hint") {
                    let w: Vec<&'static str> = rest.split_whitespace().collect();
                    let [h, v, t] = w[..] else {
                        return Err(at("@hint needs a hint, a PTX version and a target".into()));
                    };
                    let v = PtxVersion::parse(v).ok_or_else(|| at(format!("bad PTX version `{v}`")))?;
                    let t = Target::parse(t).ok_or_else(|| at(format!("bad target `{t}`")))?;
                    cat.hint_needs.push((h, v, t));
                } else if let Some(rest) = l.strip_prefix("@retired") {
                    let (when, message) = rest
                        .trim()
                        .split_once(' ')
                        .ok_or_else(|| at("@retired needs TARGET[@PTX] and a message".into()))?;
                    let (t, v) = match when.split_once('@') {
                        Some((t, v)) => (
                            t,
                            Some(PtxVersion::parse(v).ok_or_else(|| at(format!("bad PTX version `{v}`")))?),
                        ),
                        None => (when, None),
                    };
                    retired = Some(Retired {
                        target: Target::parse(t).ok_or_else(|| at(format!("bad target `{t}`")))?,
                        ptx: v,
                        message: message.trim(),
                    });
                } else if let Some(rest) = l.strip_prefix("@sem") {
                    sem = Some(Sem::parse(rest.trim()).ok_or_else(|| at(format!("unknown @sem `{}`", rest.trim())))?);
                } else if let Some(rest) = l.strip_prefix("@exec") {
                    exec = Exec::parse(rest.trim()).ok_or_else(|| at(format!("unknown @exec `{}`", rest.trim())))?;
                } else if let Some(rest) = l.strip_prefix("@free") {
                    cat.free.extend(rest.split_whitespace());
                } else if let Some(rest) = l.strip_prefix("@repeat") {
                    cat.repeat.extend(rest.split_whitespace());
                } else if let Some(rest) = l.strip_prefix("@space") {
                    cat.spaces.extend(rest.split_whitespace());
                } else if let Some(rest) = l.strip_prefix("@family") {
                    let (id, title) = rest
                        .trim()
                        .split_once(' ')
                        .ok_or_else(|| at("@family needs id and title".into()))?;
                    // A family may continue in another file (9.7.9 spans data.forms and memory.forms).
                    match cat.families.iter().find(|f| f.id == id) {
                        Some(f) if f.title != title.trim() => {
                            return Err(at(format!("family {id} re-declared with another title")))
                        }
                        Some(_) => {}
                        None => cat.families.push(Family {
                            id,
                            title: title.trim(),
                        }),
                    }
                } else if let Some(rest) = l.strip_prefix("@section") {
                    let w: Vec<&'static str> = rest.split_whitespace().collect();
                    let [id, .., lref] = w[..] else {
                        return Err(at("@section needs id, title, L<line>".into()));
                    };
                    let title_start = rest.find(w[1]).unwrap_or(0);
                    let title_end = rest.rfind(lref).unwrap_or(rest.len());
                    let line_no = lref
                        .strip_prefix('L')
                        .and_then(|n| n.parse().ok())
                        .ok_or_else(|| at(format!("bad line ref `{lref}`")))?;
                    let family = cat
                        .families
                        .iter()
                        .rposition(|f| id.starts_with(f.id) && id[f.id.len()..].starts_with('.'))
                        .ok_or_else(|| at(format!("section {id} outside any @family")))?;
                    if cat.sections.iter().any(|s| s.id == id) {
                        return Err(at(format!("section {id} declared twice")));
                    }
                    cat.sections.push(Section {
                        id,
                        title: rest[title_start..title_end].trim(),
                        line: line_no,
                        family,
                    });
                } else {
                    let row = expand_lets(l, &lets).map_err(at)?;
                    cat.add_row(file, line, row, sem, exec, retired.take()).map_err(at)?;
                }
            }
        }
        // A name may have several forms only when their operand shapes differ.
        for ids in cat.by_name.values() {
            for (i, &a) in ids.iter().enumerate() {
                for &b in &ids[i + 1..] {
                    let (fa, fb) = (&cat.forms[a], &cat.forms[b]);
                    if fa.signature() == fb.signature() {
                        return Err(TableError::whole(format!(
                            "form `{}` is listed twice (rows at {}:{} and {}:{})",
                            fa.name,
                            cat.rows[fa.row].file,
                            cat.rows[fa.row].line,
                            cat.rows[fb.row].file,
                            cat.rows[fb.row].line
                        )));
                    }
                }
            }
        }
        // An `@opcode` line names an opcode of the table (a misspelt one would give nothing
        // its facts).
        let mut named: Vec<&str> = cat.rules.keys().copied().collect();
        named.sort_unstable();
        if let Some(op) = named.into_iter().find(|op| !cat.by_opcode.contains_key(op)) {
            return Err(TableError::whole(format!(
                "@opcode `{op}` names an opcode without rows"
            )));
        }
        Ok(cat)
    }

    fn add_row(
        &mut self,
        file: &'static str,
        line: u32,
        l: &'static str,
        sem: Option<Sem>,
        exec: Option<Exec>,
        retired: Option<Retired>,
    ) -> Result<(), String> {
        let section = self
            .sections
            .len()
            .checked_sub(1)
            .ok_or("form row before any @section")?;
        let cols: Vec<&'static str> = l.split(';').map(str::trim).collect();
        let [pat, operands, ptx, target, class] = cols[..] else {
            return Err(format!("expected 5 `;`-separated columns, found {}", cols.len()));
        };
        let parts = pattern::parse(pat)?;
        let ptx = PtxVersion::parse(ptx).ok_or_else(|| format!("bad PTX version `{ptx}`"))?;
        let mut avail = Vec::new();
        for alt in target.split('|').map(str::trim) {
            let (t, v) = match alt.split_once('@') {
                Some((t, v)) => (
                    t,
                    PtxVersion::parse(v).ok_or_else(|| format!("bad PTX version in `{alt}`"))?,
                ),
                None => (alt, ptx),
            };
            avail.push((Target::parse(t).ok_or_else(|| format!("bad target `{t}`"))?, v));
        }
        if avail[0].1 != ptx {
            return Err(format!("the first target `{target}` must use the version column"));
        }
        let target = avail[0].0;
        let mut cf = class.split('+');
        let class_tok = cf.next().unwrap_or("");
        let class = Class::parse(class_tok).ok_or_else(|| format!("bad class `{class_tok}`"))?;
        let flags: Vec<&'static str> = cf.collect();
        if let Some(bad) = flags.iter().find(|f| !ROW_FLAGS.contains(f)) {
            return Err(format!("unknown class flag `{bad}` (known: {})", ROW_FLAGS.join(", ")));
        }
        // A value-level row is a pure function of its operands: it names the module with that
        // function. The operational classes are executed by the oracle and name none.
        let value = matches!(class, Class::BitExact | Class::ApproxBounded | Class::ApproxUnbounded);
        let sem = if value {
            Some(sem.ok_or_else(|| format!("a row of class `{class_tok}` needs an @sem above it"))?)
        } else {
            None
        };
        // The operational rows name the oracle executor that runs them (none: not executed
        // yet); a value row has its semantics, and names one only where the executor decides by
        // the operand (`mov`).
        if let Some(e) = exec.filter(|e| value && !e.takes_value_rows()) {
            return Err(format!(
                "a row of class `{class_tok}` is run by its @sem, not by @exec `{}` (write `@exec none` above it)",
                e.name()
            ));
        }
        let row_id = self.rows.len();
        let start = self.forms.len();
        let sec_id = self.sections[section].id;
        for choice in pattern::expand(&parts) {
            let (outputs, inputs) = resolve_operands(operands, &choice.vars)?;
            let name = choice.tokens.join(".");
            let opcode = choice.tokens[0];
            let form = Form {
                name: name.clone(),
                opcode,
                mods: choice.tokens[1..].to_vec(),
                vars: choice.vars,
                outputs,
                inputs,
                section: sec_id,
                class,
                ptx,
                target,
                row: row_id,
            };
            *self.writes_first.entry(opcode).or_insert(true) &= !form.outputs.is_empty();
            let id = FormId::new(self.forms.len());
            self.by_name.entry(name).or_default().push(id);
            self.forms.push(form);
        }
        let effects = Effects::of_flags(&flags);
        for op in pattern::opcodes(&parts) {
            self.by_opcode.entry(op).or_default().push(row_id);
            if *self.effects.entry(op).or_insert(effects) != effects {
                return Err(format!(
                    "`{op}`: the effect flags ({}) differ from its other rows'",
                    flags.join("+")
                ));
            }
        }
        self.rows.push(Row {
            section,
            pattern: pat,
            parts,
            operands,
            ptx,
            target,
            avail,
            class,
            flags,
            sem,
            exec,
            retired,
            file,
            line,
            forms: FormIds::new(start..self.forms.len()),
        });
        Ok(())
    }

    /// The forms named exactly `name` (no hints), e.g. `add.sat.s32`.
    pub fn by_name(&self, name: &str) -> &[FormId] {
        self.by_name.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Resolves an instruction as written in PTX (hints allowed) to its forms, or says in words
    /// what is wrong with it.
    ///
    /// ```
    /// let cat = spec::catalog::catalog();
    /// // A cache-operator hint is recorded beside the form, not part of it.
    /// let found = cat.lookup("ld.global.ca.u32").unwrap();
    /// assert_eq!(found.hints, ["ca"]);
    /// assert_eq!(cat.forms[found.forms[0]].name, "ld.global.u32");
    /// // Modifiers in another order that ptxas accepts resolve to the manual's spelling.
    /// let found = cat.lookup("div.ftz.rn.f32").unwrap();
    /// assert_eq!(cat.forms[found.forms[0]].name, "div.rn.ftz.f32");
    /// // One name, several operand shapes: a plain move, packs and unpacks.
    /// let movs = cat.lookup("mov.b32").unwrap().forms;
    /// assert!(movs.len() > 1 && movs.iter().all(|&i| cat.forms[i].name == "mov.b32"));
    /// for &i in &movs {
    ///     println!("{}", cat.forms[i].signature()); // `mov.b32 d:b32 = {x:b16 y:b16}`, ...
    /// }
    /// ```
    pub fn lookup(&self, text: &str) -> Result<Found, LookupError> {
        if let Some(ids) = self.by_name.get(text) {
            return Ok(Found {
                forms: ids.clone(),
                hints: Vec::new(),
            });
        }
        let toks: Vec<&str> = text.split('.').collect();
        let Some(rows) = self.by_opcode.get(toks[0]) else {
            return Err(LookupError(format!("unknown instruction `{}`", toks[0])));
        };
        let mut best = (0usize, Vec::<String>::new());
        for &r in rows {
            match pattern::matches(&self.rows[r].parts, &toks) {
                Ok(m) => {
                    let name = m.choice.tokens.join(".");
                    let forms = self.by_name.get(&name).cloned().unwrap_or_default();
                    return Ok(Found { forms, hints: m.hints });
                }
                Err((at, want)) => {
                    if at > best.0 {
                        best = (at, want);
                    } else if at == best.0 {
                        for w in want {
                            if !best.1.contains(&w) {
                                best.1.push(w);
                            }
                        }
                    }
                }
            }
        }
        // The modifiers in another order, as ptxas accepts them (`div.ftz.rn.f32`).
        let order = pattern::Order {
            fixed: self.fixed.get(toks[0]).map(Vec::as_slice).unwrap_or(&[]),
            free: &self.free,
            spaces: &self.spaces,
        };
        for &r in rows {
            if let Some(m) = pattern::matches_unordered(&self.rows[r].parts, &toks, order) {
                let name = m.choice.tokens.join(".");
                let forms = self.by_name.get(&name).cloned().unwrap_or_default();
                return Ok(Found { forms, hints: m.hints });
            }
        }
        // A few qualifiers written twice (`ret.uni.uni`, `add.sat.sat.s32`) are taken once by
        // ptxas 12.9 (`order.forms` @repeat); any other twice is an error ("Multiple rounding
        // modifiers specified", "Duplicate .nc modifier", "Multiple shuffle modifiers").
        let mut seen = Vec::new();
        let dedup: Vec<&str> = toks
            .iter()
            .copied()
            .filter(|t| {
                let dup = seen.contains(t) && self.repeat.contains(t);
                seen.push(*t);
                !dup
            })
            .collect();
        if dedup.len() < toks.len() {
            if let Ok(found) = self.lookup(&dedup.join(".")) {
                return Ok(found);
            }
        }
        let (at, mut want) = best;
        want.retain(|w| w != "end of instruction" || at == toks.len());
        let shown: Vec<&str> = want.iter().take(16).map(String::as_str).collect();
        let more = if want.len() > 16 {
            format!(" (and {} more)", want.len() - 16)
        } else {
            String::new()
        };
        let prefix = toks[..at].join(".");
        Err(LookupError(match toks.get(at) {
            Some(t) => format!(
                "`{text}` is not a PTX 8.7 form: `.{t}` cannot follow `{prefix}`; expected {}{more}",
                shown.join(", ")
            ),
            None => format!(
                "`{text}` is incomplete: `{prefix}` must be followed by one of {}{more}",
                shown.join(", ")
            ),
        }))
    }

    /// What a performance hint (`L2::cache_hint`) needs besides its form: a PTX version and a
    /// least target (`@hint` lines of `targets.forms`).
    pub fn hint_needs(&self, hint: &str) -> Option<(PtxVersion, Target)> {
        self.hint_needs
            .iter()
            .find(|(h, _, _)| *h == hint)
            .map(|&(_, v, t)| (v, t))
    }

    /// The PTX ISA version that introduced `.target t` (`targets.forms`: the 8.7 manual's
    /// table, and the PTX 8.8 targets ptxas 12.9 knows), if listed.
    pub fn target_version(&self, t: Target) -> Option<PtxVersion> {
        self.targets.iter().find(|(x, _)| *x == t).map(|(_, v)| *v)
    }

    /// What instructions with `opcode` do besides writing their destinations (none for an
    /// unknown opcode).
    ///
    /// ```
    /// let cat = spec::catalog::catalog();
    /// assert!(cat.effects("bra").branch && cat.effects("bra").ends_flow());
    /// assert!(cat.effects("bar").barrier && !cat.effects("bar").ends_flow());
    /// assert!(!cat.effects("add").any());
    /// ```
    pub fn effects(&self, opcode: &str) -> Effects {
        self.effects.get(opcode).copied().unwrap_or_default()
    }

    /// What holds for every form of `opcode` (`@opcode` lines; all false for an opcode without
    /// one, or an unknown one).
    ///
    /// ```
    /// let cat = spec::catalog::catalog();
    /// assert!(cat.rules("cvt").sreg_sources && cat.rules("cvt").wider_registers);
    /// assert!(!cat.rules("add").sreg_sources && cat.rules("add").address_sum);
    /// ```
    pub fn rules(&self, opcode: &str) -> OpcodeRules {
        self.rules.get(opcode).copied().unwrap_or_default()
    }

    /// Whether every form of `opcode` has a destination, which PTX writes first: operand 0 of
    /// such an instruction is written. `st`, `red`, `bra`, `call` and `bar` (`bar.sync`) have
    /// forms without one, so their operand 0 is taken for a source (`bar.red`'s destination
    /// included: a reducer's candidate the checker then rejects).
    pub fn writes_first(&self, opcode: &str) -> bool {
        // Computed when the catalog is built: the reducer asks for every instruction, and some
        // opcodes have thousands of forms (`atom`, `ld`).
        self.writes_first.get(opcode).copied().unwrap_or(false)
    }

    /// Whether every form of `opcode` names its first operand `name` (the manual's operand
    /// names: `bra`'s `tgt`, L16702, is a label; `brx.idx`'s first is an `index`).
    pub fn operand0_named(&self, opcode: &str, name: &str) -> bool {
        self.by_opcode.get(opcode).is_some_and(|rows| {
            rows.iter().all(|&r| {
                self.rows[r].forms.clone().all(|f| {
                    let f = &self.forms[f];
                    f.outputs.iter().chain(&f.inputs).next().is_some_and(|o| o.name == name)
                })
            })
        })
    }

    /// The section a form belongs to.
    pub fn section_of(&self, form: &Form) -> &Section {
        &self.sections[self.rows[form.row].section]
    }

    /// The family a form belongs to.
    pub fn family_of(&self, form: &Form) -> &Family {
        &self.families[self.section_of(form).family]
    }

    /// ptxas 12.9's message when it refuses a form the manual's grammar has (`set.num.f16.s16`,
    /// `mbarrier.arrive.cta.b64`): the list `corpus/findings/ptxas-12.9-rejects.txt`, measured by
    /// assembling every form (its header says how). The form stays in the catalog, which follows
    /// the manual; the type checker and the backends read this to follow ptxas.
    pub fn ptxas_rejects(&self, form: &Form) -> Option<&'static PtxasRefusal> {
        // The type checker asks for every instruction: the key (an allocation) only for the
        // names the list has.
        static NAMES: OnceLock<std::collections::HashSet<&'static str>> = OnceLock::new();
        let names = NAMES.get_or_init(|| {
            ptxas_rejects_list()
                .keys()
                .map(|k| k.split('~').next().unwrap_or(k))
                .collect()
        });
        if !names.contains(form.name.as_str()) {
            return None;
        }
        ptxas_rejects_list().get(crate::vector::form_key(form).as_str())
    }
}

/// Why ptxas 12.9 refuses a form of the manual's grammar (a line of
/// `corpus/findings/ptxas-12.9-rejects.txt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtxasRefusal {
    /// ptxas's message.
    pub message: &'static str,
    /// The PTX version from which ptxas takes the form after all, where its message names one
    /// ("Feature '.block32' requires PTX ISA .version 8.8 or later"): refused below it only.
    pub accepted_from: Option<PtxVersion>,
}

impl PtxasRefusal {
    fn of(message: &'static str) -> PtxasRefusal {
        PtxasRefusal {
            message,
            accepted_from: message
                .split_once("requires PTX ISA .version ")
                .and_then(|(_, v)| PtxVersion::parse(v.split_whitespace().next()?)),
        }
    }

    /// Whether ptxas refuses the form in a module of PTX version `ptx`.
    pub fn refuses_at(&self, ptx: PtxVersion) -> bool {
        self.accepted_from.is_none_or(|v| ptx < v)
    }
}

/// Form key → why ptxas refuses it, from `corpus/findings/ptxas-12.9-rejects.txt` (`KEY MESSAGE`
/// lines).
pub fn ptxas_rejects_list() -> &'static HashMap<&'static str, PtxasRefusal> {
    static LIST: OnceLock<HashMap<&'static str, PtxasRefusal>> = OnceLock::new();
    LIST.get_or_init(|| {
        include_str!("../../../corpus/findings/ptxas-12.9-rejects.txt")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let (key, message) = l.split_once(' ').unwrap_or((l, ""));
                (key, PtxasRefusal::of(message))
            })
            .collect()
    })
}

/// Substitutes `$NAME` by the text of the file's `@let NAME = text` (shared hint lists and shape
/// lists stay written once). A row that uses none is returned as it is; an expanded row is
/// leaked, once per process, so forms can keep borrowing `'static` slices of it.
fn expand_lets(row: &'static str, lets: &[(&'static str, &'static str)]) -> Result<&'static str, String> {
    if !row.contains('$') {
        return Ok(row);
    }
    let mut out = String::with_capacity(row.len() * 2);
    let mut rest = row;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        let n = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        let name = &tail[..n];
        let (_, value) = lets
            .iter()
            .find(|(k, _)| *k == name)
            .ok_or_else(|| format!("`${name}` is not defined by an @let above"))?;
        out.push_str(value);
        rest = &tail[n..];
    }
    out.push_str(rest);
    Ok(Box::leak(out.into_boxed_str()))
}

/// Resolves `outs = ins` against the named choices of one form.
fn resolve_operands(
    spec: &'static str,
    vars: &[(&'static str, &'static str)],
) -> Result<(Vec<Operand>, Vec<Operand>), String> {
    let (outs, ins) = spec
        .split_once('=')
        .ok_or_else(|| format!("operands `{spec}` lack `=`"))?;
    let mut group = 0u32;
    let mut list = |s: &'static str| -> Result<Vec<Operand>, String> {
        let mut v = Vec::new();
        let mut in_group = false;
        for mut tok in s.split_whitespace() {
            if let Some(t) = tok.strip_prefix('{') {
                group += 1;
                in_group = true;
                tok = t;
            }
            let closes = tok.ends_with('}');
            let tok = tok.trim_end_matches('}');
            let (name, rest) = tok
                .split_once(':')
                .ok_or_else(|| format!("operand `{tok}` lacks `:type`"))?;
            let (name, optional) = match name.strip_suffix('?') {
                Some(n) => (n, true),
                None => (name, false),
            };
            let mut fl = rest.split('+');
            let texpr = fl.next().unwrap_or("");
            let mut flags = OperandFlags::default();
            for f in fl {
                match f {
                    "imm" => flags.imm = true,
                    "not" => flags.not = true,
                    "neg" => flags.neg = true,
                    "sel" => flags.sel = true,
                    "cc" => flags.cc = true,
                    "reg" => flags.reg = true,
                    "f32lit" => flags.f32lit = true,
                    "sink" => flags.sink = true,
                    "discard" => flags.discard = true,
                    "wide" => flags.wide = true,
                    "amount" => flags.amount = true,
                    "divisor" => flags.divisor = true,
                    "lut" => flags.lut = true,
                    "perm" => flags.perm = true,
                    f if f.starts_with("in=") => {
                        let (lo, hi) = f[3..]
                            .split_once("..")
                            .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                            .ok_or_else(|| format!("bad range flag `{f}` (in=LO..HI)"))?;
                        flags.range = Some((lo, hi));
                    }
                    f if f.starts_with("mul=") => {
                        flags.multiple = Some(f[4..].parse().map_err(|_| format!("bad flag `{f}` (mul=N)"))?);
                    }
                    _ => return Err(format!("unknown operand flag `{f}`")),
                }
            }
            let (base, double) = match texpr.strip_suffix("*2") {
                Some(b) => (b, true),
                None => (texpr, false),
            };
            let ty = match vars.iter().find(|(n, _)| *n == base) {
                Some((_, v)) => Type::parse(v).ok_or_else(|| format!("`{base}` = `{v}` is not a type"))?,
                None => Type::parse(base)
                    .ok_or_else(|| format!("operand type `{base}` is neither a type nor a pattern name"))?,
            };
            let ty = if double { ty.doubled() } else { ty };
            v.push(Operand {
                name,
                ty,
                optional,
                flags,
                group: in_group.then_some(group),
            });
            if closes {
                in_group = false;
            }
        }
        Ok(v)
    };
    let outputs = list(outs)?;
    let inputs = list(ins)?;
    Ok((outputs, inputs))
}

/// The first form of `name` (the spec's unit tests; panics on a name the catalog lacks).
#[cfg(test)]
pub(crate) fn test_form(name: &str) -> &'static Form {
    let cat = catalog();
    &cat.forms[cat.by_name(name)[0]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_builds_with_unique_forms() {
        let c = catalog();
        assert!(!c.forms.is_empty());
        for (i, f) in c.enumerate() {
            assert!(c.by_name(&f.name).contains(&i), "{}", f.name);
            assert!(c.lookup(&f.name).ok().unwrap().forms.contains(&i), "{}", f.name);
        }
    }

    #[test]
    fn lets_expand_and_undefined_names_are_errors() {
        let ok = Catalog::build(&[(
            "t.forms",
            "@family 9.7.1 Integer\n@sem int\n@section 9.7.1.1 add L1\n@let T = u16|u32\nadd.<t:$T> ; d:t = a:t b:t ; 1.0 ; sm_10 ; exact\n",
        )])
        .unwrap();
        assert_eq!(
            ok.forms.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            ["add.u16", "add.u32"]
        );
        let e = Catalog::build(&[(
            "t.forms",
            "@family 9.7.1 Integer\n@section 9.7.1.1 add L1\nadd.<t:$T> ; d:t = a:t b:t ; 1.0 ; sm_10 ; exact\n",
        )])
        .err()
        .unwrap()
        .to_string();
        assert!(e.contains("t.forms:3") && e.contains("`$T` is not defined"), "{e}");
        // A value-level row names its semantics; an operational one need not.
        let e = Catalog::build(&[(
            "t.forms",
            "@family 9.7.1 Integer\n@section 9.7.1.1 add L1\nadd.u32 ; d:u32 = a:u32 b:u32 ; 1.0 ; sm_10 ; exact\n",
        )])
        .err()
        .unwrap()
        .to_string();
        assert!(e.contains("t.forms:3") && e.contains("needs an @sem"), "{e}");
        let e = Catalog::build(&[("t.forms", "@family 9.7.1 Integer\n@sem nope\n")])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("unknown @sem `nope`"), "{e}");
        assert!(Catalog::build(&[(
            "t.forms",
            "@family 9.7.13 Sync\n@section 9.7.13.1 bar L1\nbar.sync ; = a:u32 ; 1.0 ; sm_10 ; multi-thread+barrier\n",
        )])
        .is_ok());
    }

    #[test]
    fn exec_names_the_executor_of_the_rows_after_it() {
        let c = Catalog::build(&[(
            "t.forms",
            "@family 9.7.9 Data\n@section 9.7.9.8 ld L1\n@exec ld\nld.global.u32 ; d:u32 = a:u64 ; 1.0 ; sm_10 ; memory\n\
             ld.shared.u32 ; d:u32 = a:u64 ; 1.0 ; sm_10 ; memory\n@section 9.7.9.12 st.async L2\n@exec none\n\
             st.async.b32 ; = a:u64 b:b32 ; 8.1 ; sm_90 ; memory\n@section 9.7.9.3 mov L3\n@sem data\n@exec mov\n\
             mov.u32 ; d:u32 = a:u32 ; 1.0 ; sm_10 ; exact\n@section 9.7.9.7 prmt L4\n@exec none\n\
             prmt.b32 ; d:b32 = a:b32 b:b32 c:b32 ; 2.0 ; sm_20 ; exact\n",
        )])
        .unwrap();
        let execs: Vec<Option<Exec>> = c.rows.iter().map(|r| r.exec).collect();
        assert_eq!(execs, [Some(Exec::Ld), Some(Exec::Ld), None, Some(Exec::Mov), None]);
        // A file starts without one: the directive does not carry over to the next file.
        let c = Catalog::build(&[
            (
                "a.forms",
                "@family 9.7.12 Control\n@section 9.7.12.7 exit L1\n@exec exit\nexit ; = ; 1.0 ; sm_10 ; control\n",
            ),
            (
                "b.forms",
                "@family 9.7.19 Misc\n@section 9.7.19.1 brkpt L2\nbrkpt ; = ; 1.0 ; sm_11 ; opaque\n",
            ),
        ])
        .unwrap();
        assert_eq!(c.rows[0].exec, Some(Exec::Exit));
        assert_eq!(c.rows[1].exec, None);
        // Every executor has a name the table can write, and reads back as itself.
        for &e in Exec::ALL {
            assert_eq!(Exec::parse(e.name()), Some(Some(e)), "{e:?}");
        }
        assert_eq!(Exec::parse("none"), Some(None));
    }

    #[test]
    fn opcode_facts() {
        let row = "@family 9.7.1 Integer\n@sem int\n@section 9.7.1.1 add L1\n\
                   add.u32 ; d:u32 = a:u32 b:u32 ; 1.0 ; sm_10 ; exact\n";
        let c = Catalog::build(&[(
            "t.forms",
            &*format!("{row}@opcode add address-sum\n@opcode add wider-registers\n").leak(),
        )])
        .unwrap();
        let r = c.rules("add");
        assert!(r.address_sum && r.wider_registers && !r.sreg_sources, "{r:?}");
        assert_eq!(c.rules("sub"), OpcodeRules::default());
        let e = Catalog::build(&[("t.forms", &*format!("{row}@opcode add sreg\n").leak())])
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("t.forms:5") && e.contains("unknown @opcode fact `sreg`"),
            "{e}"
        );
        let e = Catalog::build(&[("t.forms", &*format!("{row}@opcode sub address-sum\n").leak())])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("@opcode `sub` names an opcode without rows"), "{e}");
        let e = Catalog::build(&[("t.forms", "@family 9.7.1 Integer\n@opcode\n")])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("@opcode needs an opcode"), "{e}");
    }

    /// The facts the table gives: §10 (special registers through `mov` and `cvt`), §9.4.1
    /// (Tables 24/25: `ld`, `st`, `cvt`, and `ldu` as ptxas takes it), and no others.
    #[test]
    fn opcode_facts_of_the_table() {
        let cat = catalog();
        let with = |f: fn(OpcodeRules) -> bool| {
            let mut v: Vec<&str> = cat.rules.iter().filter(|(_, r)| f(**r)).map(|(o, _)| *o).collect();
            v.sort_unstable();
            v
        };
        assert_eq!(with(|r| r.sreg_sources), ["cvt", "mov"]);
        assert_eq!(with(|r| r.wider_registers), ["cvt", "ld", "ldu", "st"]);
        assert_eq!(with(|r| r.vector_elements), ["mov"]);
        assert_eq!(with(|r| r.generic_address), ["prefetchu"]);
        assert_eq!(with(|r| r.address_sum), ["add"]);
    }

    #[test]
    fn exec_errors() {
        // An unknown executor.
        let e = Catalog::build(&[("t.forms", "@family 9.7.13 Sync\n@exec frobnicate\n")])
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("t.forms:2") && e.contains("unknown @exec `frobnicate`"),
            "{e}"
        );
        let e = Catalog::build(&[("t.forms", "@family 9.7.13 Sync\n@exec\n")])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("unknown @exec ``"), "{e}");
        // A value row is run by its semantics: an operational executor left above it is an error
        // (only `mov`'s executor takes value rows).
        let e = Catalog::build(&[(
            "t.forms",
            "@family 9.7.9 Data\n@section 9.7.9.20 cvta L1\n@exec cvta\ncvta.global.u64 ; d:u64 = a:u64 ; 2.0 ; sm_20 ; memory\n\
             @sem cvt\n@section 9.7.9.21 cvt L2\ncvt.u32.u16 ; d:u32 = a:u16 ; 1.0 ; sm_10 ; exact\n",
        )])
        .err()
        .unwrap()
        .to_string();
        assert!(
            e.contains("t.forms:7") && e.contains("run by its @sem, not by @exec `cvta`"),
            "{e}"
        );
    }

    /// `@retired` marks the next row only; the message names the instruction as written; the
    /// removal applies from its target (and PTX version) on.
    #[test]
    fn retired_rows_follow_the_manuals_removal_notes() {
        let c = catalog();
        let form = |n: &str| &c.forms[c.by_name(n)[0]];
        let t = |s: &str| Target::parse(s).unwrap();
        let shfl = form("shfl.up.b32");
        assert_eq!(shfl.retired(PtxVersion(6, 3), t("sm_70"), "shfl.up.b32"), None);
        assert_eq!(shfl.retired(PtxVersion(6, 4), t("sm_60"), "shfl.up.b32"), None);
        assert_eq!(
            shfl.retired(PtxVersion(6, 4), t("sm_70"), "shfl.up.b32").as_deref(),
            Some("`shfl.up.b32` without `.sync` is not supported on sm_70 and later (use `shfl.sync`)")
        );
        assert!(form("mad.f32")
            .retired(PtxVersion(1, 0), t("sm_20"), "mad.f32")
            .is_some());
        assert!(form("mad.f32")
            .retired(PtxVersion(1, 0), t("sm_13"), "mad.f32")
            .is_none());
        assert!(form("mad.rn.f32")
            .retired(PtxVersion(8, 7), t("sm_90"), "mad.rn.f32")
            .is_none());
        assert!(form("vote.ballot.b32")
            .retired(PtxVersion(8, 7), t("sm_90"), "x")
            .is_some());
        assert!(form("vote.sync.ballot.b32")
            .retired(PtxVersion(8, 7), t("sm_90"), "x")
            .is_none());
        let e = Catalog::build(&[("t.forms", "@family 9.7.1 Integer\n@retired sm_x gone\n")])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("bad target `sm_x`"), "{e}");
    }

    #[test]
    fn lookup_errors_name_the_wrong_modifier() {
        let c = catalog();
        let e = c.lookup("add.sat.u32").err().unwrap().0;
        assert!(
            e.contains("`.u32` cannot follow `add.sat`") && e.contains(".s32"),
            "{e}"
        );
        let e = c.lookup("frobnicate.b32").err().unwrap().0;
        assert!(e.contains("unknown instruction `frobnicate`"), "{e}");
        let e = c.lookup("add").err().unwrap().0;
        assert!(e.contains("incomplete"), "{e}");
    }
}
