//! §9.7.7 Half-precision comparison instructions (L10729): `set` and `setp` where the source or
//! the destination is `.f16`, `.bf16` or a packed `x2` of them.
//!
//! The comparisons themselves are §9.7.6's ([`crate::compare`]): Tables 22-24 restated at
//! L10828-10832 — ordered operators are false on NaN, unordered ones (`equ`..`geu`) true, `num`
//! is "neither is NaN" and `nan` "either is NaN". `lo ls hi hs` are not in §9.7.7's CmpOp
//! (L10767).

use crate::catalog::Form;
use crate::compare::{self, BoolOp, CmpOp};
use crate::float::ops::one;
use crate::float::Fmt;
use crate::types::{mask, FloatFormat, Kind, Type};
use crate::value::{Args, EvalError, Outcome, Outcomes};

/// The ordered counterpart of an unordered operator (`ltu` → `lt`); other operators unchanged.
fn ordered(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Equ => CmpOp::Eq,
        CmpOp::Neu => CmpOp::Ne,
        CmpOp::Ltu => CmpOp::Lt,
        CmpOp::Leu => CmpOp::Le,
        CmpOp::Gtu => CmpOp::Gt,
        CmpOp::Geu => CmpOp::Ge,
        op => op,
    }
}

/// `a CmpOp b` for one lane of a §9.7.7 source of type `st` (`t = (a CmpOp b) ? 1 : 0`,
/// L10806-10807, L10818, L10822, L10913-10914). `None` for `lo ls hi hs`.
///
/// - `.f16`/`.bf16`: the IEEE comparison; `.ftz` flushes subnormal inputs to sign-preserving
///   zero first (L10838, L10931).
/// - `.f32`, `.f64`: as `set.f32`/`set.f64` of §9.7.6. Interpretation: the half `set` text
///   says only that `.ftz` flushes "subnormal inputs" (L10838), not of which type; a subnormal
///   `.f32` source is flushed, as `.ftz` does on every f32 comparison (L10537), and an `.f64`
///   one is not, `.ftz` applying to no f64 comparison (L10545).
/// - Integer and bit-size sources (`.b16`..`.s64`), with which the syntax allows every
///   CmpOp (L10767-10773). Interpretation: an integer is never NaN, so by Tables 22-24 each
///   unordered operator is its ordered counterpart, `num` is true and `nan` false; `.sN` compare
///   signed, `.uN` and `.bN` unsigned (as §9.7.6 does, [`compare::compare`]).
pub fn compare(op: CmpOp, st: Type, a: u128, b: u128, ftz: bool) -> Option<bool> {
    match st.kind {
        Kind::Float(f @ (FloatFormat::F16 | FloatFormat::Bf16)) => {
            let fmt = Fmt::of(f);
            let input = |x: u128| {
                let x = x & fmt.mask();
                if ftz {
                    fmt.ftz(x)
                } else {
                    x
                }
            };
            compare::compare_fmt(op, fmt, input(a), input(b))
        }
        Kind::Float(_) => compare::compare(op, st, a, b, ftz),
        _ => match op {
            CmpOp::Num => Some(true),
            CmpOp::Nan => Some(false),
            _ => compare::compare(ordered(op), st, a, b, false),
        },
    }
}

/// `BoolOp(t, c)` where a `.BoolOp` is written, `t` where none is.
fn combine(t: bool, bop: Option<(BoolOp, bool)>) -> bool {
    match bop {
        Some((op, c)) => op.apply(t, c),
        None => t,
    }
}

/// §9.7.7.1 set, one destination lane of type `lane` (L10781-10793, L10813-10823): for a true
/// `BoolOp(t, c)`, 1.0 in an `.f16`/`.bf16` lane (0x3c00, 0x3f80) and all ones in an integer one
/// (0xffff for `.u16`/`.s16` and for each half of a `.u32`/`.s32` written from an x2 source,
/// L10813-10815; 0xffffffff for a scalar `.u32`/`.s32`); false is 0x0, which is also +0.0.
///
/// ⚠ The pseudocode tests `stype == .bf16x2` (L10808) and `stype == .bf16` (L10817) where the
/// destination type is meant: read literally, `set.u32.bf16x2` would write 1.0 and `set.bf16.f32`
/// all ones, against the prose (L10781-10793), which is followed.
pub fn set(t: bool, bop: Option<(BoolOp, bool)>, lane: Type) -> u128 {
    if !combine(t, bop) {
        return 0;
    }
    match lane.kind {
        Kind::Float(f) => one(Fmt::of(f)),
        _ => mask(lane.lane_bits),
    }
}

/// §9.7.7.2 setp for the x2 types (L10908-10916): `p = BoolOp(t[0], c)` from lane 0 (bits
/// `[15:0]`) and `q = BoolOp(t[1], c)` from lane 1.
pub fn setp_x2(t: [bool; 2], bop: Option<(BoolOp, bool)>) -> (bool, bool) {
    (combine(t[0], bop), combine(t[1], bop))
}

/// Decodes `.CmpOp` (row variable `cmp`).
fn cmp_op(form: &Form) -> Result<CmpOp, EvalError> {
    let name = form.var("cmp").unwrap_or("");
    CmpOp::parse(name).ok_or_else(|| EvalError::unhandled(format!("`{}`: no CmpOp", form.name)))
}

/// Decodes the optional `.BoolOp` (row variable `bop`) and its predicate operand 2, `!`
/// applied.
fn bool_op(form: &Form, args: &Args) -> Option<(BoolOp, bool)> {
    Some((BoolOp::parse(form.var("bop")?)?, args.pred(2)))
}

/// Compares lane `i` of the two sources of type `st`.
fn lane_compare(form: &Form, op: CmpOp, st: Type, args: &Args, i: u32) -> Result<bool, EvalError> {
    let lane = Type { lanes: 1, ..st };
    let pick = |x: u128| (x >> (i * st.lane_bits)) & lane.mask();
    match compare(op, lane, pick(args.get(0)), pick(args.get(1)), form.has("ftz")) {
        Some(t) => Ok(t),
        None => Err(EvalError::unhandled(format!(
            "`{}`: .{} does not apply to .{st}",
            form.name,
            op.name()
        ))),
    }
}

/// Adapter for `set`: destination type `dt`, source type `st`. An x2 source writes one result
/// per 16-bit half of the 32-bit destination (L10795, L10801-10816; lane 0 in bits [15:0]).
pub(super) fn sem_set(form: &Form, args: &Args) -> Outcomes {
    let op = cmp_op(form)?;
    let st = form.ty("st").expect("half set rows name the source type `st`");
    let dt = form.ty("dt").expect("half set rows name the destination type `dt`");
    let bop = bool_op(form, args);
    let lane = Type {
        lane_bits: dt.bits() / st.lanes,
        lanes: 1,
        ..dt
    };
    let ts = (0..st.lanes)
        .map(|i| lane_compare(form, op, st, args, i))
        .collect::<Result<Vec<bool>, _>>()?;
    let outs = ts.iter().map(|&t| Outcome::exact(set(t, bop, lane))).collect();
    Ok(vec![Outcome::pack(lane.lane_bits, outs)])
}

/// Adapter for `setp`: `p` from a scalar source; `p` and `q` from the two lanes of an x2 one.
pub(super) fn sem_setp(form: &Form, args: &Args) -> Outcomes {
    let op = cmp_op(form)?;
    let t = form.ty("t").expect("half setp rows name their type `t`");
    let bop = bool_op(form, args);
    if t.lanes == 1 {
        let p = combine(lane_compare(form, op, t, args, 0)?, bop);
        return Ok(vec![Outcome::exact(p as u128)]);
    }
    let ts = [lane_compare(form, op, t, args, 0)?, lane_compare(form, op, t, args, 1)?];
    let (p, q) = setp_x2(ts, bop);
    Ok(vec![Outcome::exact(p as u128), Outcome::exact(q as u128)])
}
