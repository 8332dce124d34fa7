//! §9.7.4 Half-precision arithmetic, the bit-exact instructions: `add sub mul fma neg abs min
//! max` on `.f16`, `.bf16` and their packed `x2` forms. One function per instruction computes
//! one lane; the adapters at the end decode a form and apply it lane by lane.
//!
//! Rounding: `.rn` is the only rounding modifier (`.rnd = { .rn }`, L9323, L9422, L9522,
//! L9624), and a form without one rounds to nearest even too (L9355, L9454, L9554): the
//! unrounded spellings may be fused with a neighbouring instruction by the optimizer, which a
//! single evaluation does not see.
//!
//! NaN: "half-precision instructions return an unspecified NaN" (L9307) — any NaN is accepted,
//! except where `.NaN` (min/max, L9863) or `.relu` (fma, L9664) asks for the canonical one, and
//! `.sat` turns a NaN into +0.0 (L9363).

use super::fmt_of;
use crate::catalog::Form;
use crate::float::format::Fmt;
use crate::float::ieee;
use crate::float::ops::{finish_rounded, flush_inputs, lanewise, Mods, NanRule};
use crate::float::Rnd;
use crate::value::{Accept, Args, Outcome, Outcomes};

/// Every half-precision row carries `nan-unspec` (L9307).
const NAN: NanRule = NanRule::Unspecified;

/// §9.7.4.1 add (L9336): `d = a + b` rounded to nearest even. `.ftz` flushes subnormal inputs
/// and results to sign-preserving zero (L9359); `.sat` clamps to [0.0, 1.0], NaN to +0.0
/// (L9363).
pub fn add(fmt: &Fmt, a: u128, b: u128, mods: Mods) -> Outcome {
    let [a, b] = flush_inputs(fmt, mods, [a, b]);
    finish_rounded(fmt, ieee::add(fmt, a, b, Rnd::Rn), mods, NAN, &[a, b], || {
        ieee::add(fmt, a, b, Rnd::Rz)
    })
}

/// §9.7.4.2 sub (L9435): `d = a - b`; `.ftz` (L9458) and `.sat` (L9462) as for add.
pub fn sub(fmt: &Fmt, a: u128, b: u128, mods: Mods) -> Outcome {
    let [a, b] = flush_inputs(fmt, mods, [a, b]);
    finish_rounded(fmt, ieee::sub(fmt, a, b, Rnd::Rn), mods, NAN, &[a, b], || {
        ieee::sub(fmt, a, b, Rnd::Rz)
    })
}

/// §9.7.4.3 mul (L9535): `d = a * b`; `.ftz` (L9558) and `.sat` (L9562) as for add.
pub fn mul(fmt: &Fmt, a: u128, b: u128, mods: Mods) -> Outcome {
    let [a, b] = flush_inputs(fmt, mods, [a, b]);
    finish_rounded(fmt, ieee::mul(fmt, a, b, Rnd::Rn), mods, NAN, &[a, b], || {
        ieee::mul(fmt, a, b, Rnd::Rz)
    })
}

/// §9.7.4.4 fma (L9637): `d = a * b + c` "without loss of precision in the intermediate product
/// and addition", one rounding to nearest even. `.ftz` (L9660) and `.sat` (L9664) as for add;
/// `.relu` clamps a negative result to 0 and turns a NaN result into the canonical NaN (L9664).
pub fn fma(fmt: &Fmt, a: u128, b: u128, c: u128, mods: Mods) -> Outcome {
    let [a, b, c] = flush_inputs(fmt, mods, [a, b, c]);
    finish_rounded(fmt, ieee::fma(fmt, a, b, c, Rnd::Rn), mods, NAN, &[a, b, c], || {
        ieee::fma(fmt, a, b, c, Rnd::Rz)
    })
}

/// §9.7.4.4 `fma.oob` (L9668): "clamps the result to 0 if any operand is an OOB NaN (defined
/// under Tensors)", tested and forced to +0.0 per SIMD lane; otherwise [`fma`] (with `.relu`
/// where written).
///
/// Interpretation: the manual names the OOB-NaN — "a special NaN" that tensor loads write for
/// elements outside the tensor (L2184-2186) — but never gives its encoding, and neither does the
/// CUDA driver API that requests it ("a special NaN constant"). So any NaN operand may be the
/// OOB-NaN: a lane with a NaN in `a`, `b` or `c` gives +0.0 (the model, the modifier's purpose)
/// or what plain fma gives for it (any NaN; the canonical NaN with `.relu`). A lane without a
/// NaN operand is plain fma, exactly.
pub fn fma_oob(fmt: &Fmt, a: u128, b: u128, c: u128, mods: Mods) -> Outcome {
    let plain = fma(fmt, a, b, c, mods);
    if ![a, b, c].iter().any(|&x| fmt.is_nan(x)) {
        return plain;
    }
    let zero = fmt.zero(false);
    let accept = match plain.accept {
        // `model or any NaN`: the set `Accept::Nan` describes around a +0.0 model.
        Accept::Nan(f) => Accept::Nan(f),
        _ => Accept::OneOf(vec![plain.model]),
    };
    Outcome { model: zero, accept }
}

/// `x` with its sign bit set to `neg`.
fn with_sign(fmt: &Fmt, x: u128, neg: bool) -> u128 {
    let (_, e, m) = fmt.fields(x);
    fmt.pack(neg, e, m)
}

/// §9.7.4.5 neg (L9748): `d = -a`, flipping the sign bit of a number (zeros and infinities
/// included). `.ftz` flushes a subnormal input to the zero of its sign first (L9761), so the
/// result is the opposite zero. "NaN inputs yield an unspecified NaN" (L9763): any NaN,
/// the sign-flipped input among them.
pub fn neg(fmt: &Fmt, a: u128, ftz: bool) -> Outcome {
    let a = if ftz { fmt.ftz(a) } else { a };
    if fmt.is_nan(a) {
        return Outcome::any_nan(fmt.format);
    }
    Outcome::exact(with_sign(fmt, a, !fmt.is_neg(a)))
}

/// §9.7.4.6 abs (L9807): `d = |a|`, clearing the sign bit of a number (`abs(-0.0) = +0.0`).
/// `.ftz` flushes a subnormal input first (L9820), giving +0.0. NaN inputs yield an unspecified
/// NaN (L9822).
pub fn abs(fmt: &Fmt, a: u128, ftz: bool) -> Outcome {
    let a = if ftz { fmt.ftz(a) } else { a };
    if fmt.is_nan(a) {
        return Outcome::any_nan(fmt.format);
    }
    Outcome::exact(with_sign(fmt, a, false))
}

/// The modifiers of half `min`/`max` (L9850-9853, L9955-9958).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinMaxMods {
    /// `.ftz`: subnormal inputs (and so results) flushed to sign-preserving zero (L9919).
    pub ftz: bool,
    /// `.NaN`: the canonical NaN when either input is NaN (L9863).
    pub nan: bool,
    /// `.xorsign.abs`, always written together (L9869).
    pub xorsign_abs: bool,
}

impl MinMaxMods {
    /// The `.ftz`, `.NaN` and `.xorsign` written on `form`.
    pub fn of(form: &Form) -> MinMaxMods {
        MinMaxMods {
            ftz: form.has("ftz"),
            nan: form.has("NaN"),
            xorsign_abs: form.has("xorsign"),
        }
    }
}

/// §9.7.4.7 min (L9875-9890): the smaller of `a` and `b`, with +0.0 > −0.0 (L9921).
pub fn min(fmt: &Fmt, a: u128, b: u128, m: MinMaxMods) -> Outcome {
    min_max(fmt, a, b, m, false)
}

/// §9.7.4.8 max (L9980-9995): the larger of `a` and `b`, with +0.0 > −0.0 (L10026).
pub fn max(fmt: &Fmt, a: u128, b: u128, m: MinMaxMods) -> Outcome {
    min_max(fmt, a, b, m, true)
}

/// A key ordering every non-NaN encoding like its value, with −0.0 just below +0.0 ("+0.0 >
/// −0.0", L9921, L10026): the magnitude bits, negated and moved one down when the sign is set.
fn order_key(fmt: &Fmt, x: u128) -> i128 {
    let (neg, e, m) = fmt.fields(x);
    let mag = ((e as i128) << fmt.man_bits) | m as i128;
    if neg {
        -mag - 1
    } else {
        mag
    }
}

/// The pseudocode of min (L9875-9890) and max (L9980-9995), read as the f32 chain (L8270-8284):
///
/// - ⚠ The half pseudocode lacks the `else` between `if (isNaN(a) && isNaN(b))` and the `.NaN`
///   test (L9883-9884, L9988-9989); read literally, two NaNs without `.NaN` fall through to
///   `d = b`, itself a NaN — an unspecified NaN (L9307) either way.
/// - ⚠ The packed max sets the sign when `!isNaN(fA[i])` (L10014) where every other path tests
///   `!isNaN(d[i])`; the prose says `.xorsign.abs` is ignored only when the *result* is NaN
///   (L9976), so `!isNaN(d[i])` is followed: with `a` NaN and `b` a number, `d = |b|` still gets
///   the XOR of both sign bits — the NaN's sign bit included, as `.xorsign` "considers the sign
///   bits of both inputs before applying .abs" (L9974).
fn min_max(fmt: &Fmt, a: u128, b: u128, m: MinMaxMods, want_max: bool) -> Outcome {
    let (a, b) = if m.ftz { (fmt.ftz(a), fmt.ftz(b)) } else { (a, b) };
    let xorsign = fmt.is_neg(a) ^ fmt.is_neg(b);
    let (a, b) = if m.xorsign_abs {
        (with_sign(fmt, a, false), with_sign(fmt, b, false))
    } else {
        (a, b)
    };
    let (nan_a, nan_b) = (fmt.is_nan(a), fmt.is_nan(b));
    let d = if m.nan && (nan_a || nan_b) {
        return Outcome::exact(fmt.canonical_nan);
    } else if nan_a && nan_b {
        return Outcome::any_nan(fmt.format);
    } else if nan_a {
        b
    } else if nan_b {
        a
    } else {
        let a_wins = if want_max {
            order_key(fmt, a) > order_key(fmt, b)
        } else {
            order_key(fmt, a) < order_key(fmt, b)
        };
        if a_wins {
            a
        } else {
            b
        }
    };
    Outcome::exact(if m.xorsign_abs { with_sign(fmt, d, xorsign) } else { d })
}

/// Adapter for `add`, `sub`, `mul`: `d = a op b` lane by lane.
pub(super) fn sem_binary(form: &Form, args: &Args) -> Outcomes {
    let t = form.ty("t").expect("half arithmetic rows name their type `t`");
    let (fmt, mods) = (fmt_of(t), Mods::of(form));
    let op = match form.opcode {
        "add" => add,
        "sub" => sub,
        _ => mul,
    };
    Ok(vec![lanewise(
        t.lane_bits,
        t.lanes,
        [args.get(0), args.get(1)],
        |[a, b]| op(fmt, a, b, mods),
    )])
}

/// Adapter for `fma`, with or without `.oob`.
pub(super) fn sem_fma(form: &Form, args: &Args) -> Outcomes {
    let t = form.ty("t").expect("half fma rows name their type `t`");
    let (fmt, mods) = (fmt_of(t), Mods::of(form));
    let op = if form.has("oob") { fma_oob } else { fma };
    let ins = [args.get(0), args.get(1), args.get(2)];
    Ok(vec![lanewise(t.lane_bits, t.lanes, ins, |[a, b, c]| {
        op(fmt, a, b, c, mods)
    })])
}

/// Adapter for `neg` and `abs`.
pub(super) fn sem_unary(form: &Form, args: &Args) -> Outcomes {
    let t = form.ty("t").expect("half neg/abs rows name their type `t`");
    let (fmt, ftz) = (fmt_of(t), form.has("ftz"));
    let op = if form.opcode == "neg" { neg } else { abs };
    Ok(vec![lanewise(t.lane_bits, t.lanes, [args.get(0)], |[a]| {
        op(fmt, a, ftz)
    })])
}

/// Adapter for `min` and `max`.
pub(super) fn sem_min_max(form: &Form, args: &Args) -> Outcomes {
    let t = form.ty("t").expect("half min/max rows name their type `t`");
    let (fmt, m) = (fmt_of(t), MinMaxMods::of(form));
    let op = if form.opcode == "min" { min } else { max };
    Ok(vec![lanewise(
        t.lane_bits,
        t.lanes,
        [args.get(0), args.get(1)],
        |[a, b]| op(fmt, a, b, m),
    )])
}
