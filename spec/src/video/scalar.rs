//! §9.7.18.1 scalar video instructions (L30816-31168): `vadd vsub vabsdiff vmin vmax`
//! (9.7.18.1.1), `vshl vshr` (9.7.18.1.2), `vmad` (9.7.18.1.3) and `vset` (9.7.18.1.4).
//!
//! The stages (L30838-30850): extract a byte, half-word or word of each source and sign- or
//! zero-extend it by the operand type to a signed 33-bit value; compute a signed 34-bit result;
//! optionally clamp it to the destination range ([`opt_saturate`]); optionally combine it with a
//! third operand `c` by a secondary operation ([`opt_sec_op`]) or merge its low byte or half-word
//! into `c` ([`opt_merge`]). The low 32 bits are written to `d` (L30908).
//!
//! Intermediates are exact integers (`i128`): every primary operation except `vshl` fits the
//! manual's 34 bits, and where the manual's widths admit a second reading the result's acceptance
//! set holds it (see [`finish`]).

use super::{Cmp, VType};
use crate::value::{EvalError, Outcome};

/// A scalar operand selector, `.asel`/`.bsel`/`.dsel` = `{.b0 .b1 .b2 .b3 .h0 .h1}` (L30935), or
/// none: the whole word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartSel {
    /// No selector: the whole 32-bit word.
    Word,
    /// `.b0`-`.b3`: byte `i` (bits `8i..8i+8`).
    Byte(u8),
    /// `.h0`/`.h1`: half-word `i` (bits `16i..16i+16`).
    Half(u8),
}

/// A source operand: its bits, its type (`.atype`/`.btype`) and its selector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Src {
    /// The register's 32 bits.
    pub bits: u32,
    /// `.atype` or `.btype`.
    pub ty: VType,
    /// The selector written on the operand.
    pub sel: PartSel,
}

/// `partSelectSignExtend(x, type, sel)` (L30946-30947): the selected byte, half-word or word,
/// sign-extended when `type` is `.s32` and zero-extended otherwise, as a signed 33-bit value.
/// A lane index past the word (`Byte(4)`) selects zero bits.
pub fn part_select_sign_extend(x: u32, ty: VType, sel: PartSel) -> i64 {
    let pick = |i: u8, w: u32| x.checked_shr(w * u32::from(i)).unwrap_or(0) & ((1u32 << w) - 1);
    match sel {
        PartSel::Word => ty.extend(x, 32),
        PartSel::Byte(i) => ty.extend(pick(i, 8), 8),
        PartSel::Half(i) => ty.extend(pick(i, 16), 16),
    }
}

/// The secondary operation `.op2` = `{.add .min .max}` (L30936).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecOp {
    /// `.add`: `tmp + c`.
    Add,
    /// `.min`: the smaller of `tmp` and `c`.
    Min,
    /// `.max`: the larger of `tmp` and `c`.
    Max,
}

/// What follows the primary operation and the optional clamp: nothing, a secondary operation
/// with `c`, or a merge into `c` at the destination selector `d.dsel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tail {
    /// No secondary operation or merge: `d` is the (optionally clamped) result.
    None,
    /// `.op2` with `c` (the `u32`).
    Sec(SecOp, u32),
    /// `d.dsel` with `c`; `PartSel::Word` is the pseudocode's `default:` case (no merge).
    Merge(PartSel, u32),
}

/// Stages 3 and 4 (L30844-30850): the destination type, `.sat`, and the secondary op or merge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finish {
    /// `.dtype`.
    pub dtype: VType,
    /// `.sat`: clamp to the destination range ([`opt_saturate`]).
    pub sat: bool,
    /// The secondary operation or merge.
    pub tail: Tail,
}

/// `optSaturate(tmp, sat, sign, dsel)` (L30870-30884): without `.sat` the value unchanged;
/// with it, clamped to the signed or unsigned range of the destination: 8 bits for a byte
/// `dsel`, 16 for a half-word `dsel`, 32 otherwise.
pub fn opt_saturate(tmp: i128, sat: bool, sign: bool, dsel: PartSel) -> i128 {
    if !sat {
        return tmp;
    }
    let bits = match dsel {
        PartSel::Byte(_) => 8,
        PartSel::Half(_) => 16,
        PartSel::Word => 32,
    };
    let (lo, hi) = if sign {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    tmp.clamp(lo, hi)
}

/// `optSecOp(secop, tmp, c)` (L30888-30895): `tmp + c`, `MIN(tmp, c)` or `MAX(tmp, c)`, where
/// `c` has already been extended by `dtype` ("the sign of the third operand is based on dtype",
/// L30886).
pub fn opt_sec_op(op: SecOp, tmp: i128, c: i128) -> i128 {
    match op {
        SecOp::Add => tmp + c,
        SecOp::Min => tmp.min(c),
        SecOp::Max => tmp.max(c),
    }
}

/// `optMerge(dsel, tmp, c)` (L30896-30906): the low byte or half-word of `tmp` replaces byte or
/// half-word `dsel` of `c`; with no `dsel`, `tmp` itself.
///
/// ⚠ The 8.7 text prints every case with an unbalanced `((` (L30898-30903) and 6.4 prints the
/// `.b0` mask as `0xffffffff00` (E10635). Read: `((tmp & 0xff) << 8i) | (c & !(0xff << 8i))`
/// (and likewise for half-words). The extra `ff` of the 6.4 mask only touches bits 32-39, which
/// are not written to `d` (L30908), so both readings give the same `d`.
pub fn opt_merge(dsel: PartSel, tmp: i128, c: u32) -> i128 {
    let (lane, shift) = match dsel {
        PartSel::Word => return tmp,
        PartSel::Byte(i) => (0xffu32, 8 * u32::from(i.min(3))),
        PartSel::Half(i) => (0xffffu32, 16 * u32::from(i.min(1))),
    };
    let field = (tmp as u32 & lane) << shift;
    i128::from(field | (c & !(lane << shift)))
}

/// Stages 3-4 on one intermediate value: clamp, then the secondary operation or merge, then the
/// low 32 bits (L30957-30959, L30908).
///
/// ⚠ Read literally, L30958-30959 assign `d` twice, so the merge line (whose `default:` returns
/// `tmp`) would discard the secondary operation. The syntax never has both (L30927-30931):
/// `d` is the secondary operation's result when `.op2` is written, the merge when `d.dsel` is,
/// and `tmp` otherwise.
pub fn finish_value(tmp: i128, fin: &Finish) -> u32 {
    let dsel = match fin.tail {
        Tail::Merge(s, _) => s,
        _ => PartSel::Word,
    };
    let t = opt_saturate(tmp, fin.sat, fin.dtype.is_signed(), dsel);
    let r = match fin.tail {
        Tail::None => t,
        Tail::Sec(op, c) => opt_sec_op(op, t, i128::from(fin.dtype.extend(c, 32))),
        Tail::Merge(s, c) => opt_merge(s, t, c),
    };
    r as u32
}

/// Sign-wraps `v` to `bits` bits.
fn wrap(v: i128, bits: u32) -> i128 {
    (v << (128 - bits)) >> (128 - bits)
}

/// Stages 3-4 with the acceptance set: the model is [`finish_value`] of the exact intermediate.
///
/// ⚠ The manual's widths admit two other readings, both accepted:
/// - the primary result is "a signed 34-bit result" (L30842, L30866): `vshl` can exceed 34 bits
///   (`ta << 32`), so the value wrapped to 34 bits is accepted too (it differs only under `.sat`
///   or `.min`/`.max`);
/// - "the sign of the intermediate result depends on dtype" (L30866) and `optSecOp` takes an
///   `.s33 tmp` (L30888): without `.sat`, `.min`/`.max` may compare the intermediate reduced to
///   `dtype` (low 32 bits, sign- or zero-extended by `dtype`) rather than its exact value
///   (`vsub.u32.u32.u32.min` of 0 - 1 and 5: exact -1 gives 0xffffffff, reduced 0xffffffff
///   gives 5). Clamped or added results agree in both readings.
pub fn finish(tmp: i128, fin: &Finish) -> Outcome {
    let model = finish_value(tmp, fin);
    let mut alts = vec![finish_value(wrap(tmp, 34), fin)];
    if !fin.sat && matches!(fin.tail, Tail::Sec(SecOp::Min | SecOp::Max, _)) {
        alts.push(finish_value(i128::from(fin.dtype.extend(tmp as u32, 32)), fin));
    }
    super::outcome(model, alts)
}

/// The primary operation of 9.7.18.1.1 (L30949-30955).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarOp {
    /// `vadd`: `ta + tb`.
    Vadd,
    /// `vsub`: `ta - tb`.
    Vsub,
    /// `vabsdiff`: `|ta - tb|`.
    Vabsdiff,
    /// `vmin`: `MIN(ta, tb)`.
    Vmin,
    /// `vmax`: `MAX(ta, tb)`.
    Vmax,
}

/// §9.7.18.1.1 `vadd vsub vabsdiff vmin vmax` (L30910-30974, semantics L30944-30959):
/// `ta`, `tb` = [`part_select_sign_extend`] of `a`, `b`; `tmp` = the operation on them (exact,
/// within 34 bits); then [`finish`] (`.sat` by `dtype` and `dsel`, `.op2` or merge with `c`).
pub fn scalar(op: ScalarOp, a: Src, b: Src, fin: &Finish) -> Outcome {
    let ta = i128::from(part_select_sign_extend(a.bits, a.ty, a.sel));
    let tb = i128::from(part_select_sign_extend(b.bits, b.ty, b.sel));
    let tmp = match op {
        ScalarOp::Vadd => ta + tb,
        ScalarOp::Vsub => ta - tb,
        ScalarOp::Vabsdiff => (ta - tb).abs(),
        ScalarOp::Vmin => ta.min(tb),
        ScalarOp::Vmax => ta.max(tb),
    };
    finish(tmp, fin)
}

/// `vshl` or `vshr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShiftOp {
    /// `vshl`: `ta << tb`, filling with zeros (L31000).
    Vshl,
    /// `vshr`: `ta >> tb`, filling with the sign of `ta` for `.s32` and zeros for `.u32` (L31004).
    Vshr,
}

/// `.mode` = `{.clamp .wrap}` (L30992), required.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShiftMode {
    /// Shift amounts above 32 become 32 (L31012).
    Clamp,
    /// The shift amount is taken modulo 32 (L31013).
    Wrap,
}

/// §9.7.18.1.2 `vshl vshr` (L30975-31034, semantics L31008-31021): `ta` from `a` by its type and
/// selector, `tb` from `b` always as `.u32` with its selector `bsel`; `.clamp` limits `tb` to
/// 32, `.wrap` reduces it modulo 32; `tmp = ta << tb` or `ta >> tb` (arithmetic on the extended
/// value, so a signed `ta` shifted right by 32 gives -1 or 0); then [`finish`].
pub fn vshift(op: ShiftOp, mode: ShiftMode, a: Src, b: u32, bsel: PartSel, fin: &Finish) -> Outcome {
    let ta = i128::from(part_select_sign_extend(a.bits, a.ty, a.sel));
    let tb = part_select_sign_extend(b, VType::U32, bsel);
    let tb = match mode {
        ShiftMode::Clamp => tb.min(32),
        ShiftMode::Wrap => tb & 0x1f,
    } as u32;
    let tmp = match op {
        ShiftOp::Vshl => ta << tb,
        ShiftOp::Vshr => ta >> tb,
    };
    finish(tmp, fin)
}

/// Which `vmad` operands carry a `-` (L31044-31045).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Negate {
    /// `-a`.
    pub a: bool,
    /// `-b`.
    pub b: bool,
    /// `-c`.
    pub c: bool,
}

/// `.scale` = `{.shr7 .shr15}` (L31050), optional.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// No `.scale`.
    None,
    /// `.shr7`: the result shifted right by 7.
    Shr7,
    /// `.shr15`: the result shifted right by 15.
    Shr15,
}

/// §9.7.18.1.3 `vmad` (L31035-31120, semantics L31085-31107): `(±a * ±b) + ±c`, `+ 1` in `.po`
/// mode, optionally shifted right by 7 or 15 and clamped to 32 bits.
///
/// - `signedFinal = isSigned(atype) || isSigned(btype) || (a.negate ^ b.negate) || c.negate`;
///   `tmp = ta * tb` exactly; `.po` adds 1; a negated product is `~tmp + 1`, a negated `c` is
///   `~c + 1`; `c` is sign-extended when `signedFinal`, zero-extended otherwise; `.shr7`/`.shr15`
///   shift arithmetically ("sign-extended if the final result is signed", L31079); `.sat` clamps
///   to the S32 or U32 range by `signedFinal`; `d` = the low 32 bits.
/// - `dtype` plays no part: signedness comes from the operand types and negations (L31060-31062,
///   L31081, L31089-31090), so it is not an argument here.
/// - The `& 0xffffffffffffffff` after the shift (L31101-31102) never drops significant bits
///   (|tmp| < 2^65), so the shifted value is used as is.
/// - 6.4 nests the negation branches inside `if (.po)` (E10851-10855), which would make
///   negation a no-op outside `.po`; 8.7's chain (L31094-31096) is followed.
///
/// Errors: negation in `.po` mode ("source operands may not be negated in .po mode", L31058),
/// and negating both the product and `c` ("PTX allows negation of either (a*b) or c", L31056;
/// no such row in L31066-31077; the pseudocode would silently drop the `c` negation).
///
/// ⚠ `(u32 * u32) - u32` (L31068) types `c` as `.u32`, and "input c has the same sign as the
/// intermediate result" (L31060), which is unsigned there; the pseudocode instead sign-extends
/// the negated `c` because `signedFinal` is set (L31096-31098). The model follows the
/// pseudocode; the prose reading (subtracting the zero-extended `c`) is accepted too.
pub fn vmad(a: Src, b: Src, c: u32, neg: Negate, po: bool, sat: bool, scale: Scale) -> Result<Outcome, EvalError> {
    if po && (neg.a || neg.b || neg.c) {
        return Err(EvalError::rule(
            "vmad: source operands may not be negated in .po mode (L31058)",
        ));
    }
    let neg_ab = neg.a ^ neg.b;
    if neg_ab && neg.c {
        return Err(EvalError::rule(
            "vmad: PTX allows negating either the product (a*b) or c, not both (L31056, L31066-31077)",
        ));
    }
    let ta = i128::from(part_select_sign_extend(a.bits, a.ty, a.sel));
    let tb = i128::from(part_select_sign_extend(b.bits, b.ty, b.sel));
    let signed_final = a.ty.is_signed() || b.ty.is_signed() || neg_ab || neg.c;
    let c_in = c;
    let mut tmp = ta * tb;
    let mut c = c;
    let mut lsb = 0;
    if po {
        lsb = 1;
    } else if neg_ab {
        tmp = !tmp;
        lsb = 1;
    } else if neg.c {
        c = !c;
        lsb = 1;
    }
    let c128 = if signed_final {
        i128::from(c as i32)
    } else {
        i128::from(c)
    };
    let result = |tmp: i128| -> u32 {
        let r = match scale {
            Scale::None => tmp,
            Scale::Shr7 => tmp >> 7,
            Scale::Shr15 => tmp >> 15,
        };
        let r = match (sat, signed_final) {
            (false, _) => r,
            (true, true) => r.clamp(i128::from(i32::MIN), i128::from(i32::MAX)),
            (true, false) => r.clamp(0, i128::from(u32::MAX)),
        };
        r as u32
    };
    let model = result(tmp + c128 + lsb);
    let mut alts = Vec::new();
    if neg.c && !a.ty.is_signed() && !b.ty.is_signed() {
        // (u32 * u32) - u32 with c zero-extended, as the prose types it (L31060, L31068).
        alts.push(result(ta * tb - i128::from(c_in)));
    }
    Ok(super::outcome(model, alts))
}

/// §9.7.18.1.4 `vset` (L31121-31168, semantics L31149-31155): `tmp = compare(ta, tb) ? 1 : 0`
/// on the extended operands, then the secondary operation or merge with `c`. "The intermediate
/// result of the comparison is always unsigned, and therefore destination d and operand c are
/// also unsigned" (L31143): `c` is zero-extended for `.min`/`.max`. There is no `.sat`.
pub fn vset(cmp: Cmp, a: Src, b: Src, tail: Tail) -> u32 {
    let ta = part_select_sign_extend(a.bits, a.ty, a.sel);
    let tb = part_select_sign_extend(b.bits, b.ty, b.sel);
    let tmp = i128::from(super::holds(cmp, ta, tb));
    finish_value(
        tmp,
        &Finish {
            dtype: VType::U32,
            sat: false,
            tail,
        },
    )
}
