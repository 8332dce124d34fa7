//! §9.7.6 Comparison and selection instructions (L10467): `set`, `setp`, `selp`, `slct`.
//!
//! Comparisons work on bit patterns: integers are compared after sign- or zero-extension to
//! `i128` according to the source type; floats are compared through an ordering key built from
//! the IEEE sign-magnitude encoding (so the spec does not lean on host float comparisons, which
//! the tests use as the independent reference). The operators and their NaN behaviour are Tables
//! 21-24 (L4303-4431), restated per instruction at L10517-10529.
//!
//! Subnormals: the spec models sm_20 and later, where subnormal inputs are supported by default
//! and `.ftz` flushes subnormal `.f32` inputs to sign-preserving zero (L10479, L10533-10537). On
//! sm_1x `.f32` comparisons always flush (L10543); targets that old are outside the model.

use crate::catalog::Form;
use crate::eval::SemFn;
use crate::float::format::{Fmt, Special};
use crate::types::{sext, Kind, Type};
use crate::value::{Args, EvalError, Outcome, Outcomes};

/// A comparison operator (`.CmpOp`, L10492-10493).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `eq`: `a == b`; on floats false if either is NaN (Tables 21-22).
    Eq,
    /// `ne`: `a != b`; on floats false if either is NaN.
    Ne,
    /// `lt`: `a < b`, signed integers and floats.
    Lt,
    /// `le`: `a <= b`, signed integers and floats.
    Le,
    /// `gt`: `a > b`, signed integers and floats.
    Gt,
    /// `ge`: `a >= b`, signed integers and floats.
    Ge,
    /// `lo`: unsigned `a < b` (Table 21).
    Lo,
    /// `ls`: unsigned `a <= b`.
    Ls,
    /// `hi`: unsigned `a > b`.
    Hi,
    /// `hs`: unsigned `a >= b`.
    Hs,
    /// `equ`: `a == b || isNaN(a) || isNaN(b)` (Table 23).
    Equ,
    /// `neu`: `a != b` or either NaN.
    Neu,
    /// `ltu`: `a < b` or either NaN.
    Ltu,
    /// `leu`: `a <= b` or either NaN.
    Leu,
    /// `gtu`: `a > b` or either NaN.
    Gtu,
    /// `geu`: `a >= b` or either NaN.
    Geu,
    /// `num`: both operands are numbers, not NaN (Table 24).
    Num,
    /// `nan`: either operand is NaN (Table 24).
    Nan,
}

impl CmpOp {
    /// Every operator, in the manual's order (L10492-10493).
    pub const ALL: [CmpOp; 18] = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
        CmpOp::Lo,
        CmpOp::Ls,
        CmpOp::Hi,
        CmpOp::Hs,
        CmpOp::Equ,
        CmpOp::Neu,
        CmpOp::Ltu,
        CmpOp::Leu,
        CmpOp::Gtu,
        CmpOp::Geu,
        CmpOp::Num,
        CmpOp::Nan,
    ];

    /// The operator's modifier name (`lt`, `geu`).
    pub const fn name(self) -> &'static str {
        match self {
            CmpOp::Eq => "eq",
            CmpOp::Ne => "ne",
            CmpOp::Lt => "lt",
            CmpOp::Le => "le",
            CmpOp::Gt => "gt",
            CmpOp::Ge => "ge",
            CmpOp::Lo => "lo",
            CmpOp::Ls => "ls",
            CmpOp::Hi => "hi",
            CmpOp::Hs => "hs",
            CmpOp::Equ => "equ",
            CmpOp::Neu => "neu",
            CmpOp::Ltu => "ltu",
            CmpOp::Leu => "leu",
            CmpOp::Gtu => "gtu",
            CmpOp::Geu => "geu",
            CmpOp::Num => "num",
            CmpOp::Nan => "nan",
        }
    }

    /// Parses a modifier without its dot.
    pub fn parse(s: &str) -> Option<CmpOp> {
        CmpOp::ALL.into_iter().find(|op| op.name() == s)
    }
}

/// A boolean operator combining a comparison with a predicate (`.BoolOp`, L10494), also used by
/// `lop3.BoolOp` (which allows only `or` and `and`, L11180).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    /// `.and`: `x & y`.
    And,
    /// `.or`: `x | y`.
    Or,
    /// `.xor`: `x ^ y`.
    Xor,
}

impl BoolOp {
    /// Parses a modifier without its dot.
    pub fn parse(s: &str) -> Option<BoolOp> {
        match s {
            "and" => Some(BoolOp::And),
            "or" => Some(BoolOp::Or),
            "xor" => Some(BoolOp::Xor),
            _ => None,
        }
    }

    /// `BoolOp(x, y)` of the semantics blocks (L10511, L10588).
    pub const fn apply(self, x: bool, y: bool) -> bool {
        match self {
            BoolOp::And => x & y,
            BoolOp::Or => x | y,
            BoolOp::Xor => x ^ y,
        }
    }
}

/// §9.3.1.1 Table 21 (L4303) integer comparison of `a` and `b`, already sign- or zero-extended
/// from the source type. `lo ls hi hs` are the unsigned spellings of `lt le gt ge` (L10519); the
/// catalog allows them only with unsigned sources, whose extended values compare correctly as
/// `i128`. Returns `None` for the float-only operators.
pub fn compare_int(op: CmpOp, a: i128, b: i128) -> Option<bool> {
    Some(match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt | CmpOp::Lo => a < b,
        CmpOp::Le | CmpOp::Ls => a <= b,
        CmpOp::Gt | CmpOp::Hi => a > b,
        CmpOp::Ge | CmpOp::Hs => a >= b,
        _ => return None,
    })
}

/// The ordering key of an IEEE value (`None` for NaN): the magnitude bits, negated when the sign
/// bit is set, so that `-0` and `+0` share the key 0 and keys order like the real numbers.
fn float_key(bits: u64, exp_bits: u32, man_bits: u32) -> Option<i128> {
    let width = 1 + exp_bits + man_bits;
    let mag = bits & ((1u64 << (width - 1)) - 1);
    let exp_all_ones = ((1u64 << exp_bits) - 1) << man_bits;
    if mag > exp_all_ones {
        return None; // exponent all ones, mantissa non-zero: NaN
    }
    let sign = (bits >> (width - 1)) & 1 != 0;
    Some(if sign { -(mag as i128) } else { mag as i128 })
}

/// §9.3.1.2 Tables 22-24 (L4365-4431), restated at L10525-10529: a float comparison given the
/// ordering keys of its operands (`None` is NaN). Ordered operators are false on NaN, unordered
/// ones (`equ`..`geu`) true on NaN, `num` is "neither is NaN" and `nan` "either is NaN".
/// Returns `None` for the integer-only `lo ls hi hs`.
fn compare_keys(op: CmpOp, a: Option<i128>, b: Option<i128>) -> Option<bool> {
    let ordered = |f: fn(&i128, &i128) -> bool| match (a, b) {
        (Some(x), Some(y)) => Some(f(&x, &y)),
        _ => Some(false),
    };
    let unordered = |f: fn(&i128, &i128) -> bool| match (a, b) {
        (Some(x), Some(y)) => Some(f(&x, &y)),
        _ => Some(true),
    };
    match op {
        CmpOp::Eq => ordered(i128::eq),
        CmpOp::Ne => ordered(i128::ne),
        CmpOp::Lt => ordered(i128::lt),
        CmpOp::Le => ordered(i128::le),
        CmpOp::Gt => ordered(i128::gt),
        CmpOp::Ge => ordered(i128::ge),
        CmpOp::Equ => unordered(i128::eq),
        CmpOp::Neu => unordered(i128::ne),
        CmpOp::Ltu => unordered(i128::lt),
        CmpOp::Leu => unordered(i128::le),
        CmpOp::Gtu => unordered(i128::gt),
        CmpOp::Geu => unordered(i128::ge),
        CmpOp::Num => Some(a.is_some() && b.is_some()),
        CmpOp::Nan => Some(a.is_none() || b.is_none()),
        CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs => None,
    }
}

/// Flushes an `.f32` subnormal to the zero of the same sign (`.ftz`, L10537); other values pass.
pub const fn ftz_f32(bits: u32) -> u32 {
    if bits & 0x7f80_0000 == 0 {
        bits & 0x8000_0000
    } else {
        bits
    }
}

/// `a CmpOp b` on `.f32` bit patterns (L10525-10529); `.ftz` flushes subnormal inputs to
/// sign-preserving zero first (L10537). `-0 == +0`. `None` for `lo ls hi hs`.
pub fn compare_f32(op: CmpOp, a: u32, b: u32, ftz: bool) -> Option<bool> {
    let (a, b) = if ftz { (ftz_f32(a), ftz_f32(b)) } else { (a, b) };
    compare_keys(op, float_key(a as u64, 8, 23), float_key(b as u64, 8, 23))
}

/// `a CmpOp b` on bit patterns of an IEEE-encoded format of at most 64 bits (`.f16` and `.bf16`
/// sources of §9.7.7, L10828-10832); flushing subnormals is the caller's. `None` for
/// `lo ls hi hs`.
pub fn compare_fmt(op: CmpOp, fmt: &Fmt, a: u128, b: u128) -> Option<bool> {
    debug_assert!(fmt.special == Special::Ieee && fmt.pad == 0 && fmt.bits <= 64);
    let key = |x: u128| float_key((x & fmt.mask()) as u64, fmt.exp_bits, fmt.man_bits);
    compare_keys(op, key(a), key(b))
}

/// `a CmpOp b` on `.f64` bit patterns (L10525-10529); subnormals are compared as they are
/// (`.ftz` applies only to `.f32`, L10545). `None` for `lo ls hi hs`.
pub fn compare_f64(op: CmpOp, a: u64, b: u64) -> Option<bool> {
    compare_keys(op, float_key(a, 11, 52), float_key(b, 11, 52))
}

/// `t = (a CmpOp b) ? 1 : 0` (L10509) for a source of type `ty`, on the low bits of `a` and `b`.
/// `None` when `op` does not apply to `ty`'s kind.
pub fn compare(op: CmpOp, ty: Type, a: u128, b: u128, ftz: bool) -> Option<bool> {
    let bits = ty.bits();
    let m = ty.mask();
    match ty.kind {
        Kind::Float(_) if bits == 32 => compare_f32(op, a as u32, b as u32, ftz),
        Kind::Float(_) if bits == 64 => compare_f64(op, a as u64, b as u64),
        Kind::Float(_) | Kind::Pred => None,
        Kind::Signed => compare_int(op, sext(a & m, bits), sext(b & m, bits)),
        Kind::Unsigned | Kind::Bits => compare_int(op, (a & m) as i128, (b & m) as i128),
    }
}

/// The value `set` writes for "true" into a `.f32` destination: 1.0f (L10511).
pub const F32_ONE: u32 = 0x3f80_0000;

/// §9.7.6.1 set (L10509-10513): `d = BoolOp(t, c) ? (1.0f | 0xffffffff) : 0`, where `t` is the
/// comparison result and `bop` the optional `.BoolOp` with its predicate `c` (`!` applied).
/// A float destination gets 1.0f, an integer one all ones (L10503).
pub fn set(t: bool, bop: Option<(BoolOp, bool)>, float_dst: bool) -> u32 {
    let r = match bop {
        Some((op, c)) => op.apply(t, c),
        None => t,
    };
    match (r, float_dst) {
        (false, _) => 0,
        (true, true) => F32_ONE,
        (true, false) => 0xffff_ffff,
    }
}

/// §9.7.6.2 setp (L10587-10589): `p = BoolOp(t, c); q = BoolOp(!t, c)`; without a `.BoolOp`
/// `p = t` and `q = !t` (the complement of the comparison, L10581).
pub fn setp(t: bool, bop: Option<(BoolOp, bool)>) -> (bool, bool) {
    match bop {
        Some((op, c)) => (op.apply(t, c), op.apply(!t, c)),
        None => (t, !t),
    }
}

/// §9.7.6.3 selp (L10657): `d = (c == 1) ? a : b`.
pub const fn selp(a: u128, b: u128, c: bool) -> u128 {
    if c {
        a
    } else {
        b
    }
}

/// §9.7.6.4 slct with an `.s32` selector (L10694): `d = (c >= 0) ? a : b`.
pub const fn slct_s32(a: u128, b: u128, c: i32) -> u128 {
    if c >= 0 {
        a
    } else {
        b
    }
}

/// §9.7.6.4 slct with an `.f32` selector (L10694-10714): `d = (c >= 0) ? a : b`, where `-0`
/// equals zero (L10698) and so selects `a`; a NaN `c` makes the comparison unordered and
/// selects `b` (L10714); with `.ftz` a subnormal `c` flushes to sign-preserving zero and so
/// selects `a` (L10706). Without `.ftz` a subnormal `c` is compared by its sign.
pub fn slct_f32(a: u128, b: u128, c: u32, ftz: bool) -> u128 {
    let c = if ftz { ftz_f32(c) } else { c };
    match compare_f32(CmpOp::Ge, c, 0, false) {
        Some(true) => a,
        _ => b,
    }
}

/// The semantics adapter for a form of §9.7.6.
pub(crate) fn semantics(form: &Form) -> Option<SemFn> {
    Some(match form.opcode {
        "set" => sem_set,
        "setp" => sem_setp,
        "selp" => sem_selp,
        "slct" => sem_slct,
        _ => return None,
    })
}

/// Decodes `.CmpOp` and runs the comparison on operands 0 and 1.
fn decode_compare(form: &Form, args: &Args) -> Result<bool, EvalError> {
    let name = form.var("cmp").unwrap_or("");
    let op = CmpOp::parse(name).ok_or_else(|| EvalError::unhandled(format!("`{}`: no CmpOp", form.name)))?;
    let ty = form.inputs[0].ty;
    match compare(op, ty, args.get(0), args.get(1), form.has("ftz")) {
        Some(t) => Ok(t),
        None => Err(EvalError::unhandled(format!(
            "`{}`: .{} does not apply to .{ty}",
            form.name,
            op.name()
        ))),
    }
}

/// Decodes the optional `.BoolOp` and its predicate operand 2 (`!c` applied).
fn decode_bop(form: &Form, args: &Args) -> Option<(BoolOp, bool)> {
    let op = BoolOp::parse(form.var("bop")?)?;
    Some((op, args.pred(2)))
}

fn sem_set(form: &Form, args: &Args) -> Outcomes {
    let t = decode_compare(form, args)?;
    let float_dst = form.outputs[0].ty.is_float();
    let d = set(t, decode_bop(form, args), float_dst);
    Ok(vec![Outcome::exact(d as u128)])
}

fn sem_setp(form: &Form, args: &Args) -> Outcomes {
    let t = decode_compare(form, args)?;
    let (p, q) = setp(t, decode_bop(form, args));
    Ok(vec![Outcome::exact(p as u128), Outcome::exact(q as u128)])
}

fn sem_selp(form: &Form, args: &Args) -> Outcomes {
    let m = form.outputs[0].ty.mask();
    let d = selp(args.get(0) & m, args.get(1) & m, args.pred(2));
    Ok(vec![Outcome::exact(d)])
}

fn sem_slct(form: &Form, args: &Args) -> Outcomes {
    let m = form.outputs[0].ty.mask();
    let (a, b, c) = (args.get(0) & m, args.get(1) & m, args.get(2) as u32);
    let d = match form.inputs[2].ty.kind {
        Kind::Float(_) => slct_f32(a, b, c, form.has("ftz")),
        _ => slct_s32(a, b, c as i32),
    };
    Ok(vec![Outcome::exact(d)])
}
