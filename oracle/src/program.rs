//! The type-checked, decoded program the interpreter runs: every name resolved to a register
//! slot, an address or a code position, every instruction to its catalog form and an operation
//! that needs no further lookup. Decoding happens once, in [`crate::check`].

use crate::ast::Loc;
use spec::catalog::Form;
use spec::eval::SemFn;
use spec::value::Sel;

/// Register slot 0 of every frame holds the carry flag `CC.CF` of the extended-precision
/// instructions (§9.7.2): it is per thread and, like a register, saved across calls.
pub const CC_SLOT: u32 = 0;

/// A source operand, resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Src {
    /// A register slot of the current frame (values are kept zero-extended to 64 bits).
    Reg(u32),
    /// An immediate, already in the operand's bits (float literals converted to its format).
    Imm(u64),
    /// A special register (§10).
    Sreg(Sreg),
    /// The `.local`/`.param` address of a variable of the current activation: the frame's base
    /// on the thread's stack plus this offset.
    Frame(u32),
}

/// A destination register: its slot and declared width. A result narrower than the register
/// (`ld.s8` into a `.s32`, §9.4.1 Table 25) is sign-extended from `sext` bits when the
/// instruction type is signed (`sext` = 0: zero-extended), then truncated to `bits`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dst {
    /// Register slot in the frame; `u32::MAX` in [`Dst::SINK`].
    pub slot: u32,
    /// The register's width in bits (1 for `.pred`; 128: a `.b128` register, two slots).
    pub bits: u8,
    /// Sign-extend from this many bits before truncating (0: zero-extend).
    pub sext: u8,
}

impl Dst {
    /// `_`: a result nobody keeps.
    pub const SINK: Dst = Dst {
        slot: u32::MAX,
        bits: 64,
        sext: 0,
    };
}

/// A source operand of a spec-evaluated form: the operand, `!p`/`-a`, a video selector, and the
/// instruction type's width (a wider register is chopped to it, §9.4.1 Table 24).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PureIn {
    /// The operand.
    pub src: Src,
    /// `-a` or `!p` written where the form allows it (`{-}`, `{!}`): the spec applies it.
    pub negated: bool,
    /// A video source's selector (`a.b1`, `a.h0`).
    pub sel: Option<Sel>,
    /// The instruction type's width in bits (1 for `.pred`).
    pub bits: u32,
    /// `!p` on a predicate operand whose form has no `{!}` (ptxas accepts it on every `.pred`
    /// source, e.g. `selp.b32 d, a, b, !p`): the oracle inverts the bit before the spec sees it.
    pub invert: bool,
}

/// Special registers (§10), with the component resolved: the spec's table.
pub use spec::sreg::Sreg;

/// State spaces as addresses see them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Generic addressing (§6.4.1.1): resolved to a space at run time ([`crate::mem`]).
    Generic,
    /// `.global`.
    Global,
    /// `.shared` (`.shared::cta`): the executing CTA's shared memory.
    Shared,
    /// `.shared::cluster`: the shared memory of any CTA of the cluster (§5.1.7, L1290), whose
    /// window holds the `.shared::cta` one ([`crate::cluster`] lays it out).
    SharedCluster,
    /// `.local`.
    Local,
    /// `.const` (read-only).
    Const,
    /// `.param`: a function's parameters in its frame, a kernel's (read-only) above
    /// [`crate::mem::KPARAM`].
    Param,
}

impl Space {
    /// The space's name without the dot (`"shared"`), as messages write it.
    pub fn name(self) -> &'static str {
        match self {
            Space::Generic => "generic",
            Space::Global => "global",
            Space::Shared => "shared",
            Space::SharedCluster => "shared::cluster",
            Space::Local => "local",
            Space::Const => "const",
            Space::Param => "param",
        }
    }
}

/// An address operand `[base+offset]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Addr {
    /// A register plus a constant offset.
    Reg(u32, i64),
    /// A constant address in the instruction's space (a module variable, a kernel parameter).
    Abs(u64),
    /// A variable of the current activation (`.local` or `.param` in a function body).
    Frame(u32, i64),
}

/// How a loaded element becomes register bits, and how many bytes it has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemTy {
    /// Bytes per element.
    pub bytes: u8,
    /// Sign-extend into a wider destination register (`ld.s8` into a `.s32`).
    pub signed: bool,
}

/// Where a call's argument comes from in the caller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    /// A `.param` variable of the caller's activation (offset, size in bytes).
    Frame(u32, u32),
    /// A register or immediate, stored into the callee's parameter.
    Val(Src),
}

/// Where a call's return value goes in the caller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RetTo {
    /// A `.param` variable of the caller's activation (offset, size in bytes).
    Frame(u32, u32),
    /// A register.
    Reg(Dst),
}

/// The function a call transfers control to.
#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    /// A function named in the call: its index in [`Program::funcs`].
    Direct(u32),
    /// Through a function address; the prototype's parameter and return sizes must match the
    /// function found there.
    Indirect {
        /// The function's address ([`crate::mem::FUNC_BASE`] + 16 × its index).
        fptr: Src,
        /// Parameter sizes in bytes, from the `.callprototype`.
        params: Vec<u32>,
        /// Return sizes in bytes, from the `.callprototype`.
        rets: Vec<u32>,
    },
}

/// Barrier operations (§9.7.13.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarOp {
    /// `bar{.cta}.sync`, `barrier{.cta}.sync`: arrive and wait.
    Sync,
    /// `bar{.cta}.arrive`, `barrier{.cta}.arrive`: arrive without waiting.
    Arrive,
    /// `.red.popc.u32`: wait, then count the threads whose predicate is true.
    RedPopc,
    /// `.red.and.pred`: wait, then whether every thread's predicate is true.
    RedAnd,
    /// `.red.or.pred`: wait, then whether any thread's predicate is true.
    RedOr,
}

/// The warp collectives (§9.7.9.6 shfl.sync, §9.7.13.8-12, §9.7.13.14 elect.sync); `bool`: the
/// `.sync` form (the deprecated forms take the executing lanes as their member mask).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpKind {
    /// `shfl.sync.mode` (`shfl.mode` when `false`).
    Shfl(spec::warp::ShflMode, bool),
    /// `vote.sync.mode` (`vote.mode` when `false`).
    Vote(spec::warp::VoteMode, bool),
    /// `match.any.sync`.
    MatchAny,
    /// `match.all.sync`.
    MatchAll,
    /// `redux.sync`.
    Redux,
    /// `elect.sync`.
    Elect,
    /// `activemask`.
    Activemask,
}

/// A value-level operation whose result the interpreter computes by a plain function of up to
/// three operands, chosen at decode time (see [`crate::fast`]).
pub type FastFn = fn(u64, u64, u64) -> u64;

/// What a warp-wide matrix instruction ([`Op::Matrix`]) computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatrixOp {
    /// `mma` (dense) and `wmma.mma`: `D = A × B + C` with the numerics of the module's target.
    Mma {
        /// The numerics.
        op: spec::tensor::MmaOp,
        /// The fragment layouts of A, B, C and D.
        layouts: Box<[spec::matrix::Layout; 4]>,
    },
    /// `mma.sp` / `mma.sp::ordered_metadata` (§9.7.14.6): A arrives compressed (M×K/2) with
    /// the metadata operand `e` and the sparsity selector `f` (sources 3 and 4) and is
    /// expanded to the dense M×K A ([`spec::matrix::Sparsity::decompress`]) before
    /// `D = A × B + C` with the dense K's numerics.
    MmaSp {
        /// The numerics (the dense M×N×K).
        op: spec::tensor::MmaOp,
        /// The fragment layouts of A (compressed), B, C and D.
        layouts: Box<[spec::matrix::Layout; 4]>,
        /// Block granularity and metadata threads of the form.
        sparsity: spec::matrix::Sparsity,
    },
    /// Block-scaled `mma` (§9.7.14.3): `D = (A × scale_A) × (B × scale_B) + C`. Sources: A, B,
    /// C fragments, `scale-a-data`, `{byte-id-a, thread-id-a}`, `scale-b-data`,
    /// `{byte-id-b, thread-id-b}`; for `mma.sp::ordered_metadata` (§9.7.14.6.3) then the
    /// metadata `e` and the sparsity selector `f` (sources 7 and 8), A arriving compressed and
    /// expanded as [`MatrixOp::MmaSp`]'s is.
    MmaBlockScale {
        /// The numerics (the dense M×N×K).
        op: spec::tensor::scaled::ScaledOp,
        /// The fragment layouts of A (compressed for a sparse form), B, C and D.
        layouts: Box<[spec::matrix::Layout; 4]>,
        /// `mma.sp::ordered_metadata`: the form's sparsity.
        sparsity: Option<spec::matrix::Sparsity>,
    },
    /// `wmma.load`: a matrix from memory into the warp's fragment (the oracle's own layout).
    WmmaLoad,
    /// `wmma.store`: the warp's D fragment to memory.
    WmmaStore,
    /// `ldmatrix`.
    Ldmatrix,
    /// `stmatrix`.
    Stmatrix,
    /// `movmatrix`.
    Movmatrix,
}

/// Where a `wgmma.mma_async`'s matrix A comes from.
#[derive(Clone, Debug)]
pub enum WgmmaA {
    /// A shared-memory matrix descriptor (`a-desc`, `.b64`).
    Desc(Src),
    /// The warpgroup's A fragment registers (`{a}`).
    Regs(Vec<Src>),
}

/// Where a bulk operation writes (§9.7.9.25.4.1, L14431-14460): `.shared::cta`, a
/// `.shared::cluster` address (resolved to a CTA of the cluster and an offset when it runs) or
/// `.global`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BulkSpace {
    /// `.shared::cta`: the executing CTA's shared memory.
    SharedCta,
    /// `.shared::cluster`: the shared memory of a CTA of the cluster.
    SharedCluster,
    /// `.global`.
    Global,
}

/// What an [`Op::Bulk`] does: the bulk asynchronous operations and their completion
/// (`exec/bulk.rs`).
#[derive(Clone, Debug)]
pub enum BulkOp {
    /// `cp.async.bulk` (§9.7.9.25.4.1) and `cp.reduce.async.bulk` (§9.7.9.25.4.2):
    /// `[dstMem], [srcMem], size{, [mbar]}{, ctaMask}{, cache-policy}{, byteMask}`.
    Copy {
        /// dstMem and its state space.
        dst: (Addr, BulkSpace),
        /// srcMem and its state space (`.global` or `.shared::cta`).
        src: (Addr, BulkSpace),
        /// size, in bytes.
        size: Src,
        /// `.mbarrier::complete_tx::bytes`: the object (in the destination's CTA); `None` for
        /// `.bulk_group`.
        mbar: Option<Addr>,
        /// `.multicast::cluster`'s ctaMask.
        cta_mask: Option<Src>,
        /// `.cp_mask`'s byteMask.
        byte_mask: Option<Src>,
        /// `cp.reduce.async.bulk`'s `.redOp.type`: the element operation.
        reduce: Option<spec::atom::AtomOp>,
    },
    /// `cp.async.bulk.prefetch.L2` (§9.7.9.25.4.3): `[srcMem], size`.
    Prefetch {
        /// srcMem (`.global`).
        src: Addr,
        /// size, in bytes.
        size: Src,
    },
    /// `cp.async.bulk.commit_group` (§9.7.9.25.6.1).
    Commit,
    /// `cp.async.bulk.wait_group{.read} N` (§9.7.9.25.6.2).
    Wait {
        /// The newest groups that may stay pending.
        n: u32,
        /// `.read`: only the reads of the sources are waited for.
        read: bool,
    },
    /// `st.async` (§9.7.9.12) and `red.async` (§9.7.13.7): `[a], b{, [mbar]}`.
    Async {
        /// a and its state space (`.shared::cluster` or `.global`; generic when not written).
        addr: (Addr, Space),
        /// Whether the form is the `.shared::cluster` one (an mbarrier is signalled).
        cluster: bool,
        /// b: the values (a vector's elements in order).
        vals: Vec<Src>,
        /// Bytes of one element.
        bytes: u8,
        /// `red.async`'s operation (`None` for `st.async`).
        reduce: Option<spec::atom::AtomOp>,
        /// mbar (the `.shared::cluster` forms).
        mbar: Option<Addr>,
    },
    /// `st.bulk` (§9.7.9.13): `[a], size, initval`.
    StBulk {
        /// a and its state space (`.shared::cta`, or generic).
        addr: (Addr, Space),
        /// size, in bytes.
        size: Src,
        /// initval (the immediate 0).
        init: Src,
    },
}

/// What an [`Op::TensorCopy`] moves: `cp.async.bulk.tensor` (§9.7.9.25.5.2, L14847),
/// `cp.reduce.async.bulk.tensor` (§9.7.9.25.5.3, L15098) or `cp.async.bulk.prefetch.tensor`
/// (§9.7.9.25.5.4, L15181).
#[derive(Clone, Debug)]
pub struct TensorCopy {
    /// The direction and its operands.
    pub kind: TensorKind,
    /// tensorMap: its address and state space (generic, or a `.param`/`.const`/`.global`
    /// variable's).
    pub tmap: (Addr, Space),
    /// tensorCoords (`.s32`).
    pub coords: Vec<Src>,
    /// The load mode (`.load_mode`, L14864, L14891).
    pub mode: TensorMode,
    /// im2colInfo: the im2col offsets (`.u16`), or `{wHalo, wOffset}` for `.im2col::w` and
    /// `.im2col::w::128`; empty for the other modes.
    pub offsets: Vec<Src>,
}

/// A [`TensorCopy`]'s `.load_mode` (L14864, L14891, L15195).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorMode {
    /// `.tile` (the default).
    Tile,
    /// `.tile::gather4` (loads, prefetches) or `.tile::scatter4` (stores).
    Gather4,
    /// `.im2col` (loads, prefetches) or `.im2col_no_offs` (stores).
    Im2col,
    /// `.im2col::w` (`w128` false) or `.im2col::w::128`.
    Im2colW {
        /// `.im2col::w::128`.
        w128: bool,
    },
}

/// The direction of a [`TensorCopy`].
#[derive(Clone, Debug)]
pub enum TensorKind {
    /// global → `.shared::cta`/`.shared::cluster`, completed on an mbarrier.
    Load {
        /// dstMem and its state space.
        dst: (Addr, BulkSpace),
        /// mbar.
        mbar: Addr,
        /// `.multicast::cluster`'s ctaMask.
        cta_mask: Option<Src>,
        /// `.cta_group::2` (else `.cta_group::1`, the default, L14968).
        pair: bool,
    },
    /// `.shared::cta` → global in a bulk async-group; `cp.reduce.async.bulk.tensor`'s `.redOp`.
    Store {
        /// srcMem.
        src: Addr,
        /// The reduction (the element type is the tensor map's).
        reduce: Option<spec::atom::Op>,
    },
    /// `cp.async.bulk.prefetch.tensor.L2`.
    Prefetch,
}

/// What an [`Op::Mbarrier`] does (§9.7.13.15.9-17).
#[derive(Clone, Debug)]
pub enum MbarOp {
    /// `mbarrier.init [addr], count` (L18552).
    Init {
        /// The expected arrival count.
        count: Src,
    },
    /// `mbarrier.inval [addr]` (L18606).
    Inval,
    /// `mbarrier.expect_tx` (L18674) or `mbarrier.complete_tx` (L18711) `[addr], txCount`.
    Tx {
        /// txCount.
        n: Src,
        /// complete-tx (else expect-tx).
        complete: bool,
    },
    /// `mbarrier.arrive` / `arrive_drop` (L18755, L18849): `state, [addr]{, count | txCount}`.
    Arrive {
        /// The state destination ([`Dst::SINK`] for `_`).
        d: Dst,
        /// The count operand (1 when not written).
        count: Option<Src>,
        /// `arrive_drop`.
        drop: bool,
        /// `.noComplete`.
        no_complete: bool,
        /// `.expect_tx`'s txCount.
        expect_tx: Option<Src>,
    },
    /// `cp.async.mbarrier.arrive{.noinc} [addr]` (L18944).
    CpAsyncArrive {
        /// `.noinc`.
        noinc: bool,
    },
    /// `mbarrier.test_wait`/`try_wait{.parity} waitComplete, [addr], state | phaseParity`
    /// (L19023-19030).
    Wait {
        /// waitComplete.
        d: Dst,
        /// The state or the phase parity.
        phase: Src,
        /// `.parity`.
        parity: bool,
    },
    /// `mbarrier.pending_count count, state` (L19216).
    PendingCount {
        /// count.
        d: Dst,
        /// state.
        state: Src,
    },
}

/// A decoded `wgmma.mma_async` (§9.7.15.5.2), see [`Op::Wgmma`].
#[derive(Clone, Debug)]
pub struct Wgmma {
    /// The numerics (M×N×K, types, `.satfinite`; the module's target).
    pub op: spec::tensor::MmaOp,
    /// The catalog form.
    pub form: &'static Form,
    /// The accumulator fragment as destinations: D.
    pub d: Vec<Dst>,
    /// The same registers as sources: the accumulator read as C.
    pub c: Vec<Src>,
    /// Matrix A.
    pub a: WgmmaA,
    /// `b-desc`.
    pub b: Src,
    /// `scale-d`: `D = A·B + D` when true, `D = A·B` when false.
    pub scale_d: Src,
    /// `imm-scale-a` is -1: A negated.
    pub neg_a: bool,
    /// `imm-scale-b` is -1: B negated.
    pub neg_b: bool,
    /// `imm-trans-a` is 1: A in shared memory is M-major (K-major otherwise).
    pub trans_a: bool,
    /// `imm-trans-b` is 1: B is N-major (K-major otherwise).
    pub trans_b: bool,
    /// `wgmma.mma_async.sp` (§9.7.15.6): A is the packed M×K/2 matrix, expanded by the metadata.
    pub sparse: Option<WgmmaSparse>,
}

/// The sparse operands of a `wgmma.mma_async.sp` ([`Wgmma::sparse`]).
#[derive(Clone, Debug)]
pub struct WgmmaSparse {
    /// Block granularity and metadata threads of the form.
    pub sparsity: spec::matrix::Sparsity,
    /// `sp-meta`: each thread's metadata register.
    pub meta: Src,
    /// `sp-sel`: the sparsity selector, a constant (L26280).
    pub sel: Src,
}

/// One decoded operation.
#[derive(Clone, Debug)]
pub enum Op {
    /// A value-level form evaluated by the spec: destinations get the outcomes' model values.
    Pure {
        /// The catalog form.
        form: &'static Form,
        /// The spec's function of the form.
        sem: SemFn,
        /// One per output of the form ([`Dst::SINK`] for an optional one not written).
        dsts: Vec<Dst>,
        /// One per input written (optional inputs not written are left out).
        srcs: Vec<PureIn>,
        /// A video destination's selector or mask (`d.b2`, `d.h10`).
        dsel: Option<Sel>,
    },
    /// A value-level form with one destination computed by a plain function.
    Fast {
        /// The function.
        f: FastFn,
        /// The destination.
        d: Dst,
        /// First operand.
        a: Src,
        /// Second operand (`Imm(0)` when unused).
        b: Src,
        /// Third operand (`Imm(0)` when unused).
        c: Src,
    },
    /// A scalar or vector load (`ld`, `ld.global.nc`, `ldu`).
    Ld {
        /// The state space of the access.
        space: Space,
        /// Element size and extension.
        ty: MemTy,
        /// One per element (`.v2`, `.v4`; a 128-bit element as two 64-bit halves).
        dsts: Vec<Dst>,
        /// The address of the first element.
        addr: Addr,
    },
    /// A scalar or vector store (`st`).
    St {
        /// The state space of the access.
        space: Space,
        /// Bytes per element.
        bytes: u8,
        /// One per element, stored in order.
        srcs: Vec<Src>,
        /// The address of the first element.
        addr: Addr,
    },
    /// `cvta.space` (to generic) and `cvta.to.space` (from generic).
    Cvta {
        /// The non-generic space.
        space: Space,
        /// `true` for `cvta.space`, `false` for `cvta.to.space`.
        to_generic: bool,
        /// The converted address.
        d: Dst,
        /// The address to convert.
        a: Src,
    },
    /// `isspacep.space`: whether a generic address lies in a space.
    Isspacep {
        /// The space asked about.
        space: Space,
        /// The predicate written.
        d: Dst,
        /// The generic address.
        a: Src,
    },
    /// `bra`.
    Bra {
        /// The label's instruction in [`Program::code`].
        target: u32,
    },
    /// `brx.idx`: an indirect branch through a `.branchtargets` list.
    Brx {
        /// The index into `targets` (past the end: a runtime error).
        index: Src,
        /// The list's labels, as instructions in [`Program::code`].
        targets: Vec<u32>,
    },
    /// `call`.
    Call {
        /// The function called.
        callee: Callee,
        /// One per parameter, in order.
        args: Vec<Arg>,
        /// One per return value, in order.
        rets: Vec<RetTo>,
    },
    /// `ret`: back to the caller; from the kernel, the thread ends.
    Ret,
    /// `exit`: the thread ends.
    Exit,
    /// `trap`: the launch stops with a runtime error.
    Trap,
    /// `bar`/`barrier` (§9.7.13.1).
    Bar {
        /// Which barrier operation.
        op: BarOp,
        /// The barrier number, 0 to 15.
        id: Src,
        /// The number of threads expected (a multiple of the warp size); absent: every thread of
        /// the CTA that has not exited.
        count: Option<Src>,
        /// The `.red` predicate and whether it is written `!p`.
        pred: Option<(Src, bool)>,
        /// The `.red` result.
        d: Option<Dst>,
    },
    /// `bar.warp.sync` (§9.7.13.2).
    WarpSync {
        /// The member mask.
        mask: Src,
    },
    /// `atom` (old values to `d`) and `red` (no `d`), one element per entry of `b`.
    Atom {
        /// The spec's operation (operation, type, vector lanes).
        op: spec::atom::AtomOp,
        /// `.global`, `.shared` or generic (resolved at run time).
        space: Space,
        /// The old values, one per element (empty for `red`).
        d: Vec<Dst>,
        /// The address of the first element.
        addr: Addr,
        /// The operand, one per element.
        b: Vec<Src>,
        /// `cas`'s new value (`Imm(0)` for other operations); a `.b128` operand is given as
        /// two halves, low first, here and in `d` and `b`.
        c: Vec<Src>,
    },
    /// A warp collective, computed once for the lanes that execute it together.
    Warp {
        /// Which collective.
        kind: WarpKind,
        /// The catalog form.
        form: &'static Form,
        /// The destinations, as for [`Op::Pure`].
        dsts: Vec<Dst>,
        /// The sources, as for [`Op::Pure`]; in a `.sync` form the member mask is last.
        srcs: Vec<PureIn>,
    },
    /// `cp.async` (§9.7.9.25.3.1): `size` bytes from global memory at `src` to shared memory
    /// at `dst`, made when the thread's group completes (its writes are visible only then,
    /// L14398-14402); the bytes past `src_size` (all of them when `ignore` holds) are zeros.
    CpAsync {
        /// The shared-memory destination.
        dst: Addr,
        /// The global source.
        src: Addr,
        /// `cp-size`: 4, 8 or 16 bytes.
        size: u8,
        /// `src-size`: the bytes read from `src` (at most `size`).
        src_size: Option<Src>,
        /// `ignore-src`: the predicate and whether it is written `!p`.
        ignore: Option<(Src, bool)>,
    },
    /// An mbarrier instruction (§9.7.13.15.9-17) on the object at `addr` in shared memory (see
    /// `exec/mbarrier.rs`).
    Mbarrier {
        /// What it does.
        op: MbarOp,
        /// The object's address (none for `mbarrier.pending_count`) and its state space
        /// (generic, `.shared::cta` or `.shared::cluster`).
        addr: Option<(Addr, Space)>,
    },
    /// A bulk asynchronous operation or its completion (`exec/bulk.rs`).
    Bulk(Box<BulkOp>),
    /// A tensor copy (§9.7.9.25.5.2-4; `exec/bulk/tensor.rs`).
    TensorCopy(Box<TensorCopy>),
    /// `fence.proxy.tensormap::generic.release` (`acquire` `None`) or `.acquire [addr], size`
    /// (§9.7.13.4, L17280): the tensormap-proxy ordering of tensor maps written through the
    /// generic proxy (`exec/bulk/tensor.rs`).
    TensormapFence {
        /// The acquire form's address, its state space, and its size.
        acquire: Option<(Addr, Space, Src)>,
    },
    /// `cp.async.commit_group` (§9.7.9.25.3.2).
    CpAsyncCommit,
    /// `cp.async.wait_group N` (`Some(N)`) and `cp.async.wait_all` (`None`), §9.7.9.25.3.3.
    CpAsyncWait {
        /// The number of the newest groups that may stay pending.
        n: Option<u32>,
    },
    /// A warp-wide matrix instruction (§9.7.14.5: `mma`, `ldmatrix`, `stmatrix`, `movmatrix`):
    /// `.sync.aligned`, every thread of the warp executes it together; the registers of all
    /// lanes are gathered into matrices (`spec::matrix`), computed, and scattered back.
    Matrix {
        /// What it computes.
        op: MatrixOp,
        /// The catalog form.
        form: &'static Form,
        /// The destination fragment, the same registers in every lane (`mma`'s D, `ldmatrix`'s
        /// r, `movmatrix`'s d).
        dsts: Vec<Dst>,
        /// The source fragments: `mma`'s A, B and C; `stmatrix`'s r; `movmatrix`'s a;
        /// `wmma.store`'s r; then a `wmma.load`'s or `wmma.store`'s stride, when written.
        srcs: Vec<Vec<Src>>,
        /// `ldmatrix`/`stmatrix`: the lane's row address and its state space; `wmma.load`/
        /// `wmma.store`: the matrix's address, the same in every lane.
        addr: Option<(Addr, Space)>,
    },
    /// `wgmma.mma_async` (§9.7.15.5.2): `.sync.aligned` over the warpgroup (four consecutive
    /// warps, 128 threads), which executes it together; computed when the last thread arrives
    /// (see `exec.rs`).
    Wgmma(Box<Wgmma>),
    /// `wgmma.fence` (§9.7.15.7.1).
    WgmmaFence,
    /// `fence.proxy.async*` (§9.7.13.4): the thread's generic-proxy writes before it are ordered
    /// with async-proxy reads after it (L17276-17278); `shared` when it covers shared memory (all
    /// but `.async.global`).
    ProxyFence {
        /// It orders shared memory.
        shared: bool,
    },
    /// `tensormap.replace` (§9.7.9.26): field `field` (entry `ord`) of the 128-byte tensor map
    /// at `addr` becomes `new_val` (`spec::tma::replace`, see `exec/tensormap.rs`).
    TensormapReplace {
        /// The field.
        field: spec::tma::Field,
        /// The `ord` immediate (0 for the fields without one).
        ord: u32,
        /// The tensor map's address and its state space (`.global`, `.shared`, or generic).
        addr: (Addr, Space),
        /// The new value (`.b32` zero-extended, or `.b64`).
        new_val: Src,
    },
    /// `tensormap.cp_fenceproxy` (§9.7.13.16): 128 bytes from `src` (shared) to `dst`
    /// (global), then a release fence from the generic to the tensormap proxy on `dst`.
    TensormapCpFenceproxy {
        /// The global destination.
        dst: Addr,
        /// The shared source.
        src: Addr,
    },
    /// `wgmma.commit_group` (§9.7.15.7.2): the thread's uncommitted `wgmma.mma_async`
    /// operations become a wgmma-group.
    WgmmaCommit,
    /// `wgmma.wait_group N` (§9.7.15.7.3): all of the thread's wgmma-groups but the newest `n`
    /// complete.
    WgmmaWait {
        /// The number of the newest groups that may stay pending.
        n: u32,
    },
    /// A cluster instruction: `mapa`, `getctarank`, `barrier.cluster` (`exec/cluster.rs`).
    Cluster(ClusterOp),
    /// Instructions with no effect on the oracle's sequentially consistent, cache-less memory:
    /// fence, membar, prefetch, discard-free hints.
    Nop,
    /// `setmaxnreg.inc/.dec.sync.aligned.u32 count` (§9.7.19.5): warpgroup-wide, the warps'
    /// per-thread register count becomes `count` (see `exec/control.rs`).
    Setmaxnreg {
        /// `.inc` (registers from the CTA's pool) rather than `.dec` (to it).
        inc: bool,
        /// imm-reg-count: 24 to 256, a multiple of 8 (checked).
        count: u32,
    },
    /// `brkpt` (§9.7.19.1): suspends execution; the launch stops there.
    Brkpt,
    /// `stacksave` (§9.7.17.1): `d` = the thread's stack pointer.
    StackSave {
        /// The destination.
        d: Dst,
    },
    /// `stackrestore` (§9.7.17.2): the thread's stack pointer = `a`.
    StackRestore {
        /// The new stack pointer.
        a: Src,
    },
    /// `alloca` (§9.7.17.3): `size` bytes on the current frame at alignment `align`; `d` = their
    /// `.local` address.
    Alloca {
        /// The allocation's address.
        d: Dst,
        /// Its size in bytes.
        size: Src,
        /// immAlign, or 8 when not written (L30753).
        align: u32,
    },
    /// `discard.L2` (`discard: true`, §9.7.9.17) and `applypriority.L2::evict_normal`
    /// (§9.7.9.16): 128 bytes of global memory at a 128-byte aligned address.
    L2Line {
        /// `discard` (the bytes become undefined) rather than `applypriority` (no effect on
        /// values).
        discard: bool,
        /// The address.
        addr: Addr,
        /// `.global`, or generic (which must fall in the `.global` window).
        space: Space,
    },
    /// `createpolicy` (§9.7.9.18): `d` = an opaque cache-eviction policy.
    Createpolicy {
        /// The destination.
        d: Dst,
        /// The policy's operands.
        policy: Box<Policy>,
    },
    /// A valid instruction the oracle does not execute yet (tensor cores, async copies, ...):
    /// the module loads, and a thread that reaches it stops the launch with this message, so
    /// the kernels of a module that never reach one still run.
    Unsupported {
        /// The runtime error's message.
        message: String,
    },
}

/// What a `createpolicy` (§9.7.9.18) makes a policy of.
#[derive(Clone, Debug)]
pub enum Policy {
    /// `createpolicy.range`: the primary range `[a, a + primary_size)` and the secondary ranges
    /// around it, up to `total_size` bytes in all.
    Range {
        /// The eviction priorities: primary, then secondary (`L2::evict_unchanged` by default).
        priorities: [u8; 2],
        /// The address `a`.
        addr: Addr,
        /// `.global`, or generic.
        space: Space,
        /// primary-size.
        primary_size: Src,
        /// total-size.
        total_size: Src,
    },
    /// `createpolicy.fractional`: `fraction` of the accesses get the primary priority.
    Fractional {
        /// The eviction priorities: primary, then secondary.
        priorities: [u8; 2],
        /// The fraction's f32 bits (1.0 when not written).
        fraction: Src,
    },
    /// `createpolicy.cvt.L2`: a CUDA access property converted.
    Cvt {
        /// The access property.
        access: Src,
    },
}

/// The instructions of a cluster of CTAs (§9.7.9.23-24, §9.7.13.3).
#[derive(Clone, Debug)]
pub enum ClusterOp {
    /// `mapa` (§9.7.9.23): `d` = the address in the shared memory of the CTA of rank `rank`
    /// that corresponds to `a`; with `generic`, `a` and `d` are generic addresses, else
    /// `.shared::cluster` ones.
    Mapa {
        /// Generic addresses (`mapa.u64`), not `.shared::cluster` ones.
        generic: bool,
        /// The mapped address.
        d: Dst,
        /// The address mapped.
        a: Src,
        /// The target CTA's `%cluster_ctarank`.
        rank: Src,
    },
    /// `getctarank` (§9.7.9.24): `d` = the rank of the CTA whose shared memory `a` is in.
    Getctarank {
        /// A generic address, not a `.shared::cluster` one.
        generic: bool,
        /// The rank (32 bits).
        d: Dst,
        /// The address.
        a: Src,
    },
    /// `barrier.cluster.arrive` or `.wait` (§9.7.13.3).
    Barrier {
        /// `.arrive` (else `.wait`).
        arrive: bool,
        /// `.aligned`: every thread of the warp executes this same instruction (L17181).
        aligned: bool,
    },
}

/// The cluster directives of a kernel (§11.7, L34403-34511).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClusterDirectives {
    /// `.reqnctapercluster nx{, ny{, nz}}` (L34417): the cluster's dimensions.
    pub reqnctapercluster: Option<[u32; 3]>,
    /// `.explicitcluster` (L34451): the launch must give cluster dimensions.
    pub explicitcluster: bool,
    /// `.maxclusterrank n` (L34481): the most CTAs a cluster may have.
    pub maxclusterrank: Option<u32>,
}

/// One decoded instruction of [`Program::code`].
#[derive(Clone, Debug)]
pub struct Inst {
    /// `@p` / `@!p`: the predicate's slot and whether it is negated.
    pub guard: Option<(u32, bool)>,
    /// What it does.
    pub op: Op,
    /// Where it is written in the PTX text.
    pub loc: Loc,
    /// The instruction as written (for error messages).
    pub text: String,
}

/// One `.entry` or `.func`, decoded.
#[derive(Clone, Debug)]
pub struct Func {
    /// The name as declared.
    pub name: String,
    /// `.entry` (a kernel) rather than `.func`.
    pub entry: bool,
    /// First instruction in [`Program::code`].
    pub start: u32,
    /// Register slots a frame needs (slot 0 is CC).
    pub nregs: u32,
    /// Bytes of the activation's stack frame: parameters, returns, body `.param` and `.local`.
    pub frame_bytes: u32,
    /// Parameter offsets and sizes in the frame (for `.func`) or in the kernel parameter buffer
    /// (for `.entry`).
    pub params: Vec<(u32, u32)>,
    /// The kernel parameters' declared types (for `.entry`).
    pub param_types: Vec<String>,
    /// Return value offsets and sizes in the frame, after the parameters (for `.func`).
    pub rets: Vec<(u32, u32)>,
    /// Whether it has a body (a `.extern` declaration has none).
    pub defined: bool,
    /// Where it is defined (declared, when it has no body).
    pub loc: Loc,
    /// A kernel's `.maxnreg` (§11.4.3): the per-thread register count its warps start with,
    /// which `setmaxnreg` changes.
    pub maxnreg: Option<u32>,
    /// Its cluster directives (for `.entry`).
    pub cluster: ClusterDirectives,
}

/// Initial contents of a module-scope variable.
#[derive(Clone, Debug)]
pub struct Data {
    /// The variable's name.
    pub name: String,
    /// [`Space::Global`] or [`Space::Const`].
    pub space: Space,
    /// Address in its space.
    pub addr: u64,
    /// The variable's initial bytes, from its initializer.
    pub bytes: Vec<u8>,
}

/// A whole checked module.
#[derive(Clone, Debug)]
pub struct Program {
    /// Every `.entry` and `.func`, in the order first declared; the index is the function's number
    /// ([`Callee::Direct`], [`crate::mem::FUNC_BASE`]).
    pub funcs: Vec<Func>,
    /// The instructions of every function, each function's in one run from [`Func::start`].
    pub code: Vec<Inst>,
    /// `.global` and `.const` variables with their initial bytes.
    pub data: Vec<Data>,
    /// Bytes of module `.global` variables (at [`crate::mem::GLOBAL_DATA`]).
    pub global_bytes: u64,
    /// Bytes of the constant bank (module `.const` variables, at address 0 of `.const`).
    pub const_bytes: u64,
    /// Static `.shared` bytes (all `.shared` variables of the module, laid out once).
    pub shared_bytes: u64,
    /// Alignment of the dynamic shared memory that follows the static part.
    pub shared_align: u64,
    /// Module-scope `.local` bytes at the bottom of every thread's stack.
    pub local_bytes: u32,
    /// `.target sm_NN`.
    pub sm: u32,
    /// `.version major.minor`.
    pub version: (u32, u32),
    /// Where the state spaces lie in generic memory: the module's `.address_size`.
    pub windows: crate::mem::Windows,
    /// The instructions decoded as [`Op::Unsupported`], in code order: where and why.
    pub unsupported: Vec<(Loc, String)>,
}

impl Program {
    /// The first instruction the oracle does not execute yet, as the type error it would be
    /// for a checker that must say so before running (the differential type-check tests).
    pub fn first_unsupported(&self) -> Option<crate::error::Error> {
        self.unsupported
            .first()
            .map(|(loc, m)| crate::error::Error::at(crate::error::ErrorKind::Type, *loc, m.clone()))
    }
}

impl Program {
    /// The index in [`Program::funcs`] of the kernel (`.entry`) called `name`.
    pub fn entry(&self, name: &str) -> Option<usize> {
        self.funcs.iter().position(|f| f.entry && f.name == name)
    }
}

impl Inst {
    /// Register slots the instruction reads and writes (the guard among the reads).
    pub fn slots(&self) -> (Vec<u32>, Vec<u32>) {
        let inst = self;
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
            Op::Cluster(c) => match c {
                ClusterOp::Mapa { d, a, rank, .. } => {
                    src(a, &mut r);
                    src(rank, &mut r);
                    dst(d.slot, &mut w);
                }
                ClusterOp::Getctarank { d, a, .. } => {
                    src(a, &mut r);
                    dst(d.slot, &mut w);
                }
                ClusterOp::Barrier { .. } => {}
            },
            Op::Atom { d, addr: a, b, c, .. } => {
                addr(a, &mut r);
                b.iter().for_each(|s| src(s, &mut r));
                c.iter().for_each(|s| src(s, &mut r));
                d.iter().for_each(|d| dst(d.slot, &mut w));
            }
            Op::CpAsync {
                dst: d,
                src: a,
                src_size,
                ignore,
                ..
            } => {
                addr(d, &mut r);
                addr(a, &mut r);
                if let Some(n) = src_size {
                    src(n, &mut r);
                }
                if let Some((p, _)) = ignore {
                    src(p, &mut r);
                }
            }
            Op::Mbarrier { op, addr: a } => {
                if let Some((a, _)) = a {
                    addr(a, &mut r);
                }
                match op {
                    MbarOp::Init { count: s } | MbarOp::Tx { n: s, .. } => src(s, &mut r),
                    MbarOp::Inval | MbarOp::CpAsyncArrive { .. } => {}
                    MbarOp::Arrive {
                        d, count, expect_tx, ..
                    } => {
                        count.iter().chain(expect_tx).for_each(|s| src(s, &mut r));
                        dst(d.slot, &mut w);
                    }
                    MbarOp::Wait { d, phase: s, .. } | MbarOp::PendingCount { d, state: s } => {
                        src(s, &mut r);
                        dst(d.slot, &mut w);
                    }
                }
            }
            Op::Bulk(b) => match &**b {
                BulkOp::Copy {
                    dst: (d, _),
                    src: (a, _),
                    size,
                    mbar,
                    cta_mask,
                    byte_mask,
                    ..
                } => {
                    addr(d, &mut r);
                    addr(a, &mut r);
                    mbar.iter().for_each(|m| addr(m, &mut r));
                    [size]
                        .into_iter()
                        .chain(cta_mask)
                        .chain(byte_mask)
                        .for_each(|s| src(s, &mut r));
                }
                BulkOp::Prefetch { src: a, size } => {
                    addr(a, &mut r);
                    src(size, &mut r);
                }
                BulkOp::Commit | BulkOp::Wait { .. } => {}
                BulkOp::Async {
                    addr: (a, _),
                    vals,
                    mbar,
                    ..
                } => {
                    addr(a, &mut r);
                    mbar.iter().for_each(|m| addr(m, &mut r));
                    vals.iter().for_each(|s| src(s, &mut r));
                }
                BulkOp::StBulk {
                    addr: (a, _),
                    size,
                    init,
                } => {
                    addr(a, &mut r);
                    src(size, &mut r);
                    src(init, &mut r);
                }
            },
            Op::TensorCopy(c) => {
                addr(&c.tmap.0, &mut r);
                c.coords.iter().chain(&c.offsets).for_each(|s| src(s, &mut r));
                match &c.kind {
                    TensorKind::Load {
                        dst: (d, _),
                        mbar,
                        cta_mask,
                        ..
                    } => {
                        addr(d, &mut r);
                        addr(mbar, &mut r);
                        cta_mask.iter().for_each(|s| src(s, &mut r));
                    }
                    TensorKind::Store { src: a, .. } => addr(a, &mut r),
                    TensorKind::Prefetch => {}
                }
            }
            Op::TensormapFence { acquire } => {
                if let Some((a, _, n)) = acquire {
                    addr(a, &mut r);
                    src(n, &mut r);
                }
            }
            Op::Matrix {
                dsts, srcs, addr: a, ..
            } => {
                srcs.iter().flatten().for_each(|s| src(s, &mut r));
                if let Some((a, _)) = a {
                    addr(a, &mut r);
                }
                dsts.iter().for_each(|d| dst(d.slot, &mut w));
            }
            Op::TensormapReplace {
                addr: (a, _), new_val, ..
            } => {
                addr(a, &mut r);
                src(new_val, &mut r);
            }
            Op::TensormapCpFenceproxy { dst: d, src: a } => {
                addr(d, &mut r);
                addr(a, &mut r);
            }
            Op::Wgmma(g) => {
                g.c.iter().for_each(|s| src(s, &mut r));
                if let WgmmaA::Regs(a) = &g.a {
                    a.iter().for_each(|s| src(s, &mut r));
                }
                if let WgmmaA::Desc(a) = &g.a {
                    src(a, &mut r);
                }
                src(&g.b, &mut r);
                src(&g.scale_d, &mut r);
                g.d.iter().for_each(|d| dst(d.slot, &mut w));
            }
            Op::StackSave { d } => dst(d.slot, &mut w),
            Op::StackRestore { a } => src(a, &mut r),
            Op::Alloca { d, size, .. } => {
                src(size, &mut r);
                dst(d.slot, &mut w);
            }
            Op::L2Line { addr: a, .. } => addr(a, &mut r),
            Op::Createpolicy { d, policy } => {
                match &**policy {
                    Policy::Range {
                        addr: a,
                        primary_size,
                        total_size,
                        ..
                    } => {
                        addr(a, &mut r);
                        src(primary_size, &mut r);
                        src(total_size, &mut r);
                    }
                    Policy::Fractional { fraction, .. } => src(fraction, &mut r),
                    Policy::Cvt { access } => src(access, &mut r),
                }
                dst(d.slot, &mut w);
            }
            Op::Bra { .. }
            | Op::Ret
            | Op::Exit
            | Op::Trap
            | Op::Brkpt
            | Op::Setmaxnreg { .. }
            | Op::WgmmaFence
            | Op::ProxyFence { .. }
            | Op::WgmmaCommit
            | Op::WgmmaWait { .. }
            | Op::CpAsyncCommit
            | Op::CpAsyncWait { .. }
            | Op::Nop
            | Op::Unsupported { .. } => {}
        }
        (r, w)
    }

    /// The instructions control may reach after this one, at `pc`, within its function's
    /// `range`.
    pub fn successors(&self, pc: usize, range: &std::ops::Range<usize>) -> Vec<usize> {
        let inst = self;
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
            Op::Ret | Op::Exit | Op::Trap | Op::Brkpt => {
                if guarded {
                    v.push(next);
                }
            }
            _ => v.push(next),
        }
        v.retain(|t| range.contains(t));
        v
    }
}

impl Op {
    /// An operation without side effects: dead when nobody reads its results.
    pub fn is_pure(&self) -> bool {
        matches!(
            self,
            Op::Pure { .. } | Op::Fast { .. } | Op::Ld { .. } | Op::Cvta { .. } | Op::Isspacep { .. }
        )
    }
}
