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
    pub slot: u32,
    pub bits: u8,
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
    pub src: Src,
    pub negated: bool,
    pub sel: Option<Sel>,
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
    Generic,
    Global,
    Shared,
    Local,
    Const,
    Param,
}

impl Space {
    pub fn name(self) -> &'static str {
        match self {
            Space::Generic => "generic",
            Space::Global => "global",
            Space::Shared => "shared",
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
    Frame(u32, u32),
    Reg(Dst),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    Direct(u32),
    /// Through a function address; the prototype's parameter and return sizes must match the
    /// function found there.
    Indirect {
        fptr: Src,
        params: Vec<u32>,
        rets: Vec<u32>,
    },
}

/// Barrier operations (§9.7.13.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarOp {
    Sync,
    Arrive,
    RedPopc,
    RedAnd,
    RedOr,
}

/// The warp collectives (§9.7.9.6 shfl.sync, §9.7.13.8-12); `bool`: the `.sync` form (the
/// deprecated forms take the executing lanes as their member mask).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpKind {
    Shfl(spec::warp::ShflMode, bool),
    Vote(spec::warp::VoteMode, bool),
    MatchAny,
    MatchAll,
    Redux,
    Elect,
    Activemask,
}

/// A value-level operation whose result the interpreter computes by a plain function of up to
/// three operands, chosen at decode time (see [`crate::fast`]).
pub type FastFn = fn(u64, u64, u64) -> u64;

/// One decoded operation.
#[derive(Clone, Debug)]
pub enum Op {
    /// A value-level form evaluated by the spec: destinations get the outcomes' model values.
    Pure {
        form: &'static Form,
        sem: SemFn,
        dsts: Vec<Dst>,
        srcs: Vec<PureIn>,
        dsel: Option<Sel>,
    },
    /// A value-level form with one destination computed by a plain function.
    Fast {
        f: FastFn,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Ld {
        space: Space,
        ty: MemTy,
        dsts: Vec<Dst>,
        addr: Addr,
    },
    St {
        space: Space,
        bytes: u8,
        srcs: Vec<Src>,
        addr: Addr,
    },
    /// `cvta.space` (to generic) and `cvta.to.space` (from generic).
    Cvta {
        space: Space,
        to_generic: bool,
        d: Dst,
        a: Src,
    },
    Isspacep {
        space: Space,
        d: Dst,
        a: Src,
    },
    Bra {
        target: u32,
    },
    Brx {
        index: Src,
        targets: Vec<u32>,
    },
    Call {
        callee: Callee,
        args: Vec<Arg>,
        rets: Vec<RetTo>,
    },
    Ret,
    Exit,
    Trap,
    Bar {
        op: BarOp,
        id: Src,
        count: Option<Src>,
        pred: Option<(Src, bool)>,
        d: Option<Dst>,
    },
    WarpSync {
        mask: Src,
    },
    /// `atom` (old values to `d`) and `red` (no `d`), one element per entry of `b`.
    Atom {
        op: spec::atom::AtomOp,
        space: Space,
        d: Vec<Dst>,
        addr: Addr,
        b: Vec<Src>,
        c: Src,
    },
    /// A warp collective, computed once for the lanes that execute it together.
    Warp {
        kind: WarpKind,
        form: &'static Form,
        dsts: Vec<Dst>,
        srcs: Vec<PureIn>,
    },
    /// Instructions with no effect on the oracle's sequentially consistent, cache-less memory:
    /// fence, membar, prefetch, discard-free hints.
    Nop,
    /// A valid instruction the oracle does not execute yet (tensor cores, async copies, ...):
    /// the module loads, and a thread that reaches it stops the launch with this message, so
    /// the kernels of a module that never reach one still run.
    Unsupported {
        message: String,
    },
}

#[derive(Clone, Debug)]
pub struct Inst {
    /// `@p` / `@!p`: the predicate's slot and whether it is negated.
    pub guard: Option<(u32, bool)>,
    pub op: Op,
    pub loc: Loc,
    /// The instruction as written (for error messages).
    pub text: String,
}

/// One `.entry` or `.func`, decoded.
#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
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
    pub rets: Vec<(u32, u32)>,
    /// Whether it has a body (a `.extern` declaration has none).
    pub defined: bool,
    pub loc: Loc,
}

/// Initial contents of a module-scope variable.
#[derive(Clone, Debug)]
pub struct Data {
    pub name: String,
    pub space: Space,
    /// Address in its space.
    pub addr: u64,
    pub bytes: Vec<u8>,
}

/// A whole checked module.
#[derive(Clone, Debug)]
pub struct Program {
    pub funcs: Vec<Func>,
    pub code: Vec<Inst>,
    /// `.global` and `.const` variables with their initial bytes.
    pub data: Vec<Data>,
    /// Bytes of module `.global` variables (at [`crate::mem::GLOBAL_DATA`]).
    pub global_bytes: u64,
    pub const_bytes: u64,
    /// Static `.shared` bytes (all `.shared` variables of the module, laid out once).
    pub shared_bytes: u64,
    /// Alignment of the dynamic shared memory that follows the static part.
    pub shared_align: u64,
    /// Module-scope `.local` bytes at the bottom of every thread's stack.
    pub local_bytes: u32,
    /// `.target sm_NN`.
    pub sm: u32,
    pub version: (u32, u32),
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
