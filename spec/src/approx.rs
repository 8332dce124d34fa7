//! The approximate floating-point instructions of §9.7.3 and §9.7.4 (catalog classes `approx` and
//! `approx-nobound`): `div.approx`, `div.full`, `rcp.approx`, `rcp.approx.ftz.f64`, `sqrt.approx`,
//! `rsqrt.approx`, `rsqrt.approx.ftz.f64`, `sin`/`cos`/`lg2`/`ex2.approx`, `tanh.approx` (f32 and
//! half) and `ex2.approx` (half). The deprecated sm_1x `mad.f32` row is [`crate::fp`]'s.
//!
//! Every result is an [`Outcome`]:
//! - the rows of the manual's special-value tables exactly, where an f32 or half instruction's
//!   "NaN" is any NaN ("single-precision instructions return an unspecified NaN", L7141;
//!   half precision L9307) and the two `.approx.ftz.f64` instructions return the canonical
//!   0x7fffffff00000000 (L8593, L8867);
//! - otherwise the model is a reference value, computed in f64 with the `libm` crate (pure Rust:
//!   the same bits on every host), rounded to nearest even into the destination format, and the
//!   set is the manual's error bound around the reference ([`Accept::Bound`], built by
//!   [`bounded`]).
//!
//! Subnormals: the spec models sm_20 and later. `div.approx` and `div.full` flush subnormal
//! inputs and results with or without `.ftz` (L8079); every other `.f32` form supports them unless
//! `.ftz` is written (L8495, L8689, L8780, L8949, L9039, L9119, L9195; `tanh.approx.f32` has no
//! `.ftz`, L9269); the `.approx.ftz.f64` forms flush (L8595, L8869); half `tanh` supports them
//! (L10117), `ex2.approx.f16` takes subnormal inputs and `ex2.approx.ftz.bf16` flushes (L10175).
//! The 8.7 tables have no subnormal rows (6.4's, E4810 and others, described sm_1x flushing), so
//! a subnormal input of a non-`.ftz` form is an ordinary number: `sqrt.approx.f32` of a negative
//! subnormal is NaN like that of a negative normal, `rcp.approx.f32` of a subnormal is a (large)
//! number.

use crate::catalog::{Class, Form};
use crate::eval::SemFn;
use crate::float::format::{Class as FpClass, Fmt, F32, F64};
use crate::float::ops::{lanewise, nan_outcome, one, NanRule};
use crate::float::round::{from_f64, Rnd};
use crate::types::{FloatFormat, Kind};
use crate::value::{Accept, Args, Bound, ErrBound, EvalError, Outcome, Outcomes};
use std::f64::consts::PI;

/// The 1.11.20 format of the upper word of an `.f64` operand that `rcp.approx.ftz.f64` and
/// `rsqrt.approx.ftz.f64` compute on (L8541-8555): f64's sign and exponent, the 20 most
/// significant mantissa bits, and a lower word that is ignored in `a` and zero in `d`. Its NaN is
/// the canonical 0x7fffffff00000000 (L8593, L8867).
pub const F64_HI: Fmt = Fmt {
    man_bits: 20,
    pad: 32,
    canonical_nan: 0x7fff_ffff_0000_0000,
    ..F64
};

/// The upper word of an f64 register: `tmp = a[63:32]` (L8553).
const HI_WORD: u128 = 0xffff_ffff_0000_0000;

/// An approximate result: the model is `reference` rounded to nearest even into `fmt` (flushed to
/// a signed zero when `ftz` and the rounded value is subnormal), the set every value within `err`
/// of the reference (and the signed zero when `ftz` and the bound reaches below the smallest
/// normal). A format's pad bits (the low word of [`F64_HI`]) are zero in every accepted result.
/// An infinite reference is exact (the true value overflows f64, far beyond any bound); a NaN
/// one is any NaN.
pub fn bounded(fmt: &Fmt, reference: f64, err: ErrBound, ftz: bool) -> Outcome {
    if reference.is_nan() {
        return Outcome::any_nan(fmt.format);
    }
    let rn = from_f64(fmt, reference, Rnd::Rn);
    if reference.is_infinite() {
        return Outcome::exact(rn);
    }
    Outcome {
        model: if ftz { fmt.ftz(rn) } else { rn },
        accept: Accept::Bound(Bound {
            format: fmt.format,
            reference,
            err,
            ftz,
            zero_bits: (1u128 << fmt.pad) - 1,
        }),
    }
}

fn inf(fmt: &Fmt, neg: bool) -> Outcome {
    Outcome::exact(fmt.inf(neg).expect("IEEE format"))
}

fn zero(fmt: &Fmt, neg: bool) -> Outcome {
    Outcome::exact(fmt.zero(neg))
}

fn any_nan(fmt: &Fmt) -> Outcome {
    Outcome::any_nan(fmt.format)
}

// ---------------------------------------------------------------------------------------------
// div (§9.7.3.8, L8048)

/// Division by zero: "fast, approximate division by zero creates a value of infinity (with same
/// sign as a)" (L8079). Interpretation: the model is the sign of `a × (1/b)` — the formula of
/// L8075, sign(a) xor sign(b), which differs from the prose only for b = −0 — and the infinity
/// with a's sign is accepted too.
fn div_by_zero(a: u128, b: u128) -> Outcome {
    let (na, nb) = (F32.is_neg(a), F32.is_neg(b));
    let model = F32.inf(na ^ nb).expect("f32 has Inf");
    let prose = F32.inf(na).expect("f32 has Inf");
    Outcome {
        model,
        accept: if model == prose {
            Accept::Exact
        } else {
            Accept::OneOf(vec![prose])
        },
    }
}

/// `div.approx{.ftz}.f32` (L8075): "d = a * (1/b). For |b| in [2^-126, 2^126], the maximum ulp
/// error is 2. For 2^126 < |b| < 2^128, if a is infinity div.approx.f32 returns NaN, otherwise it
/// returns 0." Subnormal inputs and results are flushed with or without `.ftz` (L8079).
///
/// The special values follow the formula: 1/b is ±Inf for b = ±0, ±0 for b = ±Inf and for
/// 2^126 < |b| (where 1/b is subnormal and flushed), and the product takes IEEE's special cases
/// (0 × Inf = NaN: 0/0 and Inf/Inf are NaN; Inf/b is Inf; a/Inf and 0/b are zero), signs by
/// xor. Interpretation: the "0" of the large-|b| rule is that signed zero.
pub fn div_approx(a: u128, b: u128) -> Outcome {
    let (a, b) = (F32.ftz(a), F32.ftz(b));
    if F32.is_nan(a) || F32.is_nan(b) {
        return any_nan(&F32);
    }
    let neg = F32.is_neg(a) ^ F32.is_neg(b);
    let (ca, cb) = (F32.classify(a), F32.classify(b));
    let y = F32.to_f64(b).abs();
    match (ca, cb) {
        (_, FpClass::Zero) if ca == FpClass::Zero => any_nan(&F32),
        (_, FpClass::Zero) => div_by_zero(a, b),
        (FpClass::Inf, FpClass::Inf) => any_nan(&F32),
        (_, FpClass::Inf) => zero(&F32, neg),
        (FpClass::Inf, _) if y > 2f64.powi(126) => any_nan(&F32),
        (_, _) if y > 2f64.powi(126) => zero(&F32, neg),
        (FpClass::Inf, _) => inf(&F32, neg),
        (FpClass::Zero, _) => zero(&F32, neg),
        _ => bounded(&F32, F32.to_f64(a) / F32.to_f64(b), ErrBound::Ulp(2), true),
    }
}

/// `div.full{.ftz}.f32` (L8077): "maximum ulp error is 2 across the full range of inputs";
/// subnormal inputs and results flushed with or without `.ftz` (L8079). The special values are
/// IEEE division's (0/0 and Inf/Inf NaN, Inf/b Inf, a/Inf zero); division by zero gives the
/// infinity of sign(a) xor sign(b), the one of a's sign also accepted (L8079, as
/// [`div_approx`]).
pub fn div_full(a: u128, b: u128) -> Outcome {
    let (a, b) = (F32.ftz(a), F32.ftz(b));
    if F32.is_nan(a) || F32.is_nan(b) {
        return any_nan(&F32);
    }
    let neg = F32.is_neg(a) ^ F32.is_neg(b);
    match (F32.classify(a), F32.classify(b)) {
        (FpClass::Zero, FpClass::Zero) | (FpClass::Inf, FpClass::Inf) => any_nan(&F32),
        (_, FpClass::Zero) => div_by_zero(a, b),
        (FpClass::Inf, _) => inf(&F32, neg),
        (_, FpClass::Inf) | (FpClass::Zero, _) => zero(&F32, neg),
        _ => bounded(&F32, F32.to_f64(a) / F32.to_f64(b), ErrBound::Ulp(2), true),
    }
}

// ---------------------------------------------------------------------------------------------
// rcp (§9.7.3.13, L8419; §9.7.3.14, L8529)

/// `rcp.approx{.ftz}.f32` (L8445): "the maximum ulp error is 1 across the full range of inputs";
/// table L8447-8469: ±Inf → ±0.0, ±0.0 → ±Inf, NaN → NaN. Without `.ftz` a subnormal input is a
/// number (L8495): 1/a may overflow to Inf, and a result below 2^-126 stays subnormal.
pub fn rcp_approx_f32(a: u128, ftz: bool) -> Outcome {
    let a = if ftz { F32.ftz(a) } else { a };
    let neg = F32.is_neg(a);
    match F32.classify(a) {
        FpClass::Nan => any_nan(&F32),
        FpClass::Inf => zero(&F32, neg),
        FpClass::Zero => inf(&F32, neg),
        _ => bounded(&F32, 1.0 / F32.to_f64(a), ErrBound::Ulp(1), ftz),
    }
}

/// The envelope we accept around the true value of the two "fast, coarse" 1.11.20
/// approximations, which state no bound (L8541, L8831): relative 2^-19, at least two units in the
/// last place of the 20-bit mantissa anywhere in a binade. Interpretation: the manual gives only
/// the structure; this is generous enough for any approximation worth the name on a 20-bit
/// mantissa and still rejects a wrong exponent or a garbage mantissa.
pub const COARSE_F64: ErrBound = ErrBound::Rel { log2: -19.0 };

/// `rcp.approx.ftz.f64` (L8529-8597): `tmp = a[63:32]` in the 1.11.20 format, `d[63:32] = 1.0 /
/// tmp`, `d[31:0] = 0`. Table on `a[63:32]` (L8561-8591): ±Inf → ±0.0, ±subnormal and ±0.0 →
/// ±Inf; NaN → 0x7fffffff00000000 (L8593); subnormal inputs and results flushed (L8595).
///
/// Interpretation: only `a[63:32]` is looked at, as the semantics and the table's heading say, so
/// an f64 NaN whose payload lies only in the low word (0x7ff00000_00000001) is +Inf here and
/// gives +0.0. The model is 1/tmp rounded to nearest on the 20-bit mantissa; the set is
/// [`COARSE_F64`] with the low word zero.
pub fn rcp_approx_ftz_f64(a: u128) -> Outcome {
    let tmp = F64_HI.ftz(a & HI_WORD);
    let neg = F64_HI.is_neg(tmp);
    match F64_HI.classify(tmp) {
        FpClass::Nan => Outcome::exact(F64_HI.canonical_nan),
        FpClass::Inf => zero(&F64_HI, neg),
        FpClass::Zero => inf(&F64_HI, neg),
        _ => bounded(&F64_HI, 1.0 / F64.to_f64(tmp), COARSE_F64, true),
    }
}

// ---------------------------------------------------------------------------------------------
// sqrt, rsqrt (§9.7.3.15, L8609; §9.7.3.16, L8723; §9.7.3.17, L8811)

/// `sqrt.approx{.ftz}.f32` (L8633): "maximum relative error over the entire positive finite
/// floating-point range is 2^-23"; table L8637-8663: −Inf and −normal → NaN, ±0.0 → ±0.0,
/// +Inf → +Inf, NaN → NaN. A negative subnormal without `.ftz` is a negative number: NaN.
pub fn sqrt_approx_f32(a: u128, ftz: bool) -> Outcome {
    let a = if ftz { F32.ftz(a) } else { a };
    match F32.classify(a) {
        FpClass::Nan => any_nan(&F32),
        FpClass::Zero => Outcome::exact(a),
        _ if F32.is_neg(a) => any_nan(&F32),
        FpClass::Inf => Outcome::exact(a),
        _ => bounded(&F32, libm::sqrt(F32.to_f64(a)), ErrBound::Rel { log2: -23.0 }, ftz),
    }
}

/// `rsqrt.approx{.ftz}.f32` (L8774): "maximum relative error over the entire positive finite
/// floating-point range is 2^-22.9"; table L8746-8772: −Inf and −normal → NaN, ±0.0 → ±Inf,
/// +Inf → +0.0, NaN → NaN. A negative subnormal without `.ftz` is NaN, a positive one a number
/// (L8780).
pub fn rsqrt_approx_f32(a: u128, ftz: bool) -> Outcome {
    let a = if ftz { F32.ftz(a) } else { a };
    match F32.classify(a) {
        FpClass::Nan => any_nan(&F32),
        FpClass::Zero => inf(&F32, F32.is_neg(a)),
        _ if F32.is_neg(a) => any_nan(&F32),
        FpClass::Inf => zero(&F32, false),
        _ => bounded(
            &F32,
            1.0 / libm::sqrt(F32.to_f64(a)),
            ErrBound::Rel { log2: -22.9 },
            ftz,
        ),
    }
}

/// The envelope we accept for `rsqrt.approx.f64`, which states no bound ("emulated in software,
/// relatively slow", L8790): relative 2^-40. Interpretation: a software emulation slower than the
/// 1.11.20 `rsqrt.approx.ftz.f64` is taken to refine it well past 20 bits; 2^-40 admits any
/// refinement of at least that quality (a correctly rounded result is within 2^-53) and rejects
/// a bare 20-bit or 24-bit estimate.
pub const RSQRT_F64: ErrBound = ErrBound::Rel { log2: -40.0 };

/// `rsqrt.approx.f64` (L8723-8790): the table of L8746-8772 (−Inf and −normal → NaN, ±0.0 →
/// ±Inf, +Inf → +0.0, NaN → NaN) with subnormals supported (L8786): a negative subnormal is NaN,
/// a positive one a number. A NaN input keeps its payload, quieted ("NaN payloads are supported
/// for double-precision instructions", L7141); a NaN made from a number is any NaN. Otherwise
/// [`RSQRT_F64`] around 1/sqrt(a).
pub fn rsqrt_approx_f64(a: u128) -> Outcome {
    match F64.classify(a) {
        FpClass::Nan => nan_outcome(&F64, NanRule::Payload, &[a]),
        FpClass::Zero => inf(&F64, F64.is_neg(a)),
        _ if F64.is_neg(a) => any_nan(&F64),
        FpClass::Inf => zero(&F64, false),
        _ => bounded(&F64, 1.0 / libm::sqrt(F64.to_f64(a)), RSQRT_F64, false),
    }
}

/// `rsqrt.approx.ftz.f64` (L8811-8869): `tmp = a[63:32]` (1.11.20), `d[63:32] = 1.0 /
/// sqrt(tmp)`, `d[31:0] = 0` (L8823). Table on `a[63:32]` (L8835-8865): −Inf → NaN, ±subnormal and
/// ±0.0 → ±Inf (the subnormal is flushed first), +Inf → +0.0, NaN → 0x7fffffff00000000 (L8867).
///
/// Interpretations: the table has no −normal row; 1/sqrt of a negative number is NaN, and the NaN
/// this instruction creates (for −normal and −Inf) is taken to be the same canonical
/// 0x7fffffff00000000 it maps input NaNs to — the only NaN the section names, and the only one
/// with the zero low word it always writes. Only `a[63:32]` is looked at (see
/// [`rcp_approx_ftz_f64`]). Otherwise [`COARSE_F64`] around 1/sqrt(tmp) with the low word zero.
pub fn rsqrt_approx_ftz_f64(a: u128) -> Outcome {
    let tmp = F64_HI.ftz(a & HI_WORD);
    let nan = Outcome::exact(F64_HI.canonical_nan);
    match F64_HI.classify(tmp) {
        FpClass::Nan => nan,
        FpClass::Zero => inf(&F64_HI, F64_HI.is_neg(tmp)),
        _ if F64_HI.is_neg(tmp) => nan,
        FpClass::Inf => zero(&F64_HI, false),
        _ => bounded(&F64_HI, 1.0 / libm::sqrt(F64.to_f64(tmp)), COARSE_F64, true),
    }
}

// ---------------------------------------------------------------------------------------------
// sin, cos (§9.7.3.18, L8883; §9.7.3.19, L8973)

/// The maximum absolute error of `sin`/`cos.approx.f32` at input `x`: 2^-20.5 on [-2π, 2π],
/// 2^-14.7 on [-100π, 100π] (L8929-8941, L9019-9031), `None` outside ("only best-effort results
/// are provided. There is no defined error guarantee", L8943, L9033). The intervals are of real
/// numbers: an f32 input is compared exactly with 2π and 100π (no f32 lies within f64 rounding
/// distance of either).
pub fn sin_cos_bound(x: f64) -> Option<ErrBound> {
    if x.abs() <= 2.0 * PI {
        Some(ErrBound::Abs { log2: -20.5 })
    } else if x.abs() <= 100.0 * PI {
        Some(ErrBound::Abs { log2: -14.7 })
    } else {
        None
    }
}

/// A `sin`/`cos` result of finite `x`: the bound of [`sin_cos_bound`], or outside [-100π, 100π]
/// any value in [-1, 1]. Interpretation: "best effort" is still a sine or cosine, so a value
/// outside the function's range (or NaN, or Inf) is wrong; the set is written as an absolute bound
/// of 2^0 around a reference of 0, the model staying the rounded true value.
fn sin_cos(x: f64, value: f64, ftz: bool) -> Outcome {
    match sin_cos_bound(x) {
        Some(err) => bounded(&F32, value, err, ftz),
        None => {
            let mut o = bounded(&F32, value, ErrBound::Abs { log2: 0.0 }, ftz);
            if let Accept::Bound(b) = &mut o.accept {
                b.reference = 0.0;
            }
            o
        }
    }
}

/// `sin.approx{.ftz}.f32` (L8883-8951): table L8905-8927 (±Inf → NaN, ±0.0 → ±0.0, NaN → NaN),
/// bounds of [`sin_cos_bound`], and outside [-100π, 100π] any value in [-1, 1]. The reference is
/// `libm::sin`, which reduces large arguments exactly.
pub fn sin_approx(a: u128, ftz: bool) -> Outcome {
    let a = if ftz { F32.ftz(a) } else { a };
    match F32.classify(a) {
        FpClass::Nan | FpClass::Inf => any_nan(&F32),
        FpClass::Zero => Outcome::exact(a),
        _ => {
            let x = F32.to_f64(a);
            sin_cos(x, libm::sin(x), ftz)
        }
    }
}

/// `cos.approx{.ftz}.f32` (L8973-9041): table L8995-9017 (±Inf → NaN, ±0.0 → +1.0, NaN → NaN),
/// bounds of [`sin_cos_bound`], and outside [-100π, 100π] any value in [-1, 1].
pub fn cos_approx(a: u128, ftz: bool) -> Outcome {
    let a = if ftz { F32.ftz(a) } else { a };
    match F32.classify(a) {
        FpClass::Nan | FpClass::Inf => any_nan(&F32),
        FpClass::Zero => Outcome::exact(one(&F32)),
        _ => {
            let x = F32.to_f64(a);
            sin_cos(x, libm::cos(x), ftz)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// lg2, ex2 (§9.7.3.20, L9063; §9.7.3.21, L9143)

/// The bound of `lg2.approx.f32` at positive finite `x` (L9113): "maximum absolute error is 2^-22
/// when the input operand is in the range (0.5, 2). For positive finite inputs outside of this
/// interval, maximum relative error is 2^-22" — an open interval: 0.5 and 2 take the relative
/// bound.
pub fn lg2_bound(x: f64) -> ErrBound {
    if 0.5 < x && x < 2.0 {
        ErrBound::Abs { log2: -22.0 }
    } else {
        ErrBound::Rel { log2: -22.0 }
    }
}

/// `lg2.approx{.ftz}.f32` (L9063-9121): table L9085-9111 (−Inf and −normal → NaN, ±0.0 → −Inf,
/// +Inf → +Inf, NaN → NaN), bound [`lg2_bound`]. Without `.ftz` a negative subnormal is NaN and
/// a positive one a number (about −127 to −149).
pub fn lg2_approx(a: u128, ftz: bool) -> Outcome {
    let a = if ftz { F32.ftz(a) } else { a };
    match F32.classify(a) {
        FpClass::Nan => any_nan(&F32),
        FpClass::Zero => inf(&F32, true),
        _ if F32.is_neg(a) => any_nan(&F32),
        FpClass::Inf => Outcome::exact(a),
        _ => {
            let x = F32.to_f64(a);
            bounded(&F32, libm::log2(x), lg2_bound(x), ftz)
        }
    }
}

/// `ex2.approx{.ftz}.f32` (L9143-9197): table L9165-9187 (−Inf → +0.0, ±0.0 → +1.0, +Inf →
/// +Inf, NaN → NaN); "the maximum ulp error is 2 ulp from the correctly rounded result across
/// the full range of inputs" (L9189). So the bound's reference is the correctly rounded result
/// itself (2^a in f64, rounded to f32), not the real 2^a — which admits results up to 2.5 ulp
/// from the real value. Where the correctly rounded result overflows to +Inf, there is no finite
/// result to measure from: the reference is the real value (Inf is the model; MAX_NORM is
/// accepted where it lies within 2 ulp of 2^a).
pub fn ex2_approx_f32(a: u128, ftz: bool) -> Outcome {
    let a = if ftz { F32.ftz(a) } else { a };
    match F32.classify(a) {
        FpClass::Nan => any_nan(&F32),
        FpClass::Inf if F32.is_neg(a) => zero(&F32, false),
        FpClass::Inf => Outcome::exact(a),
        FpClass::Zero => Outcome::exact(one(&F32)),
        _ => {
            let t = libm::exp2(F32.to_f64(a));
            let rn = from_f64(&F32, t, Rnd::Rn);
            let reference = if t.is_finite() && F32.classify(rn) != FpClass::Inf {
                F32.to_f64(rn)
            } else {
                t
            };
            bounded(&F32, reference, ErrBound::Ulp(2), ftz)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// tanh (§9.7.3.22, L9219; §9.7.4.9, L10054), half ex2 (§9.7.4.10, L10138)

/// The bound of `tanh.approx` in `fmt`: relative 2^-11 for f32 (L9269), absolute 2^-10.987 for
/// f16 and 2^-8 for bf16 (L10115).
pub fn tanh_bound(fmt: &Fmt) -> ErrBound {
    match fmt.format {
        FloatFormat::F32 => ErrBound::Rel { log2: -11.0 },
        FloatFormat::F16 => ErrBound::Abs { log2: -10.987 },
        _ => ErrBound::Abs { log2: -8.0 },
    }
}

/// `tanh.approx` on one f32, f16 or bf16 value (L9219-9269, L10054-10117): table L9245-9267 and
/// L10091-10113 (−Inf → −1.0, ±0.0 → ±0.0, +Inf → 1.0, NaN → NaN), bound [`tanh_bound`];
/// subnormals are supported (L9269, L10117) and there is no `.ftz`.
pub fn tanh_approx(fmt: &Fmt, a: u128) -> Outcome {
    match fmt.classify(a) {
        FpClass::Nan => any_nan(fmt),
        FpClass::Inf => Outcome::exact(one(fmt) | (a & fmt.zero(true))),
        FpClass::Zero => Outcome::exact(a),
        _ => bounded(fmt, libm::tanh(fmt.to_f64(a)), tanh_bound(fmt), false),
    }
}

/// The bound of half `ex2.approx` around 2^a (L10237): relative 2^-9.9 for f16, 2^-7 for bf16.
/// Interpretation: below the smallest normal number the subnormal spacing is coarser than either
/// relative bound (2^-24 against 2^-9.9 × 2^-15 for f16), so no result could meet it; there the
/// bound is one unit in the last place, admitting both neighbours of the true value.
pub fn ex2_half_bound(fmt: &Fmt, reference: f64) -> ErrBound {
    if reference.abs() < fmt.to_f64(fmt.min_normal(false)) {
        return ErrBound::Ulp(1);
    }
    match fmt.format {
        FloatFormat::F16 => ErrBound::Rel { log2: -9.9 },
        _ => ErrBound::Rel { log2: -7.0 },
    }
}

/// `ex2.approx.f16` and `ex2.approx.ftz.bf16` on one value (L10138-10237): tables L10177-10209
/// (bf16: −Inf → +0.0, ±subnormal and ±0.0 → +1.0, +Inf → +Inf, NaN → NaN) and L10211-10235
/// (f16, the same without subnormal rows: f16 takes subnormal inputs, L10175, whose 2^a rounds to
/// 1.0). `ftz` (bf16) flushes subnormal inputs and results (L10175); f16 results below 2^-14 stay
/// subnormal. Bound [`ex2_half_bound`].
pub fn ex2_approx_half(fmt: &Fmt, a: u128, ftz: bool) -> Outcome {
    let a = if ftz { fmt.ftz(a) } else { a };
    match fmt.classify(a) {
        FpClass::Nan => any_nan(fmt),
        FpClass::Inf if fmt.is_neg(a) => zero(fmt, false),
        FpClass::Inf => Outcome::exact(a),
        FpClass::Zero => Outcome::exact(one(fmt)),
        _ => {
            let t = libm::exp2(fmt.to_f64(a));
            bounded(fmt, t, ex2_half_bound(fmt, t), ftz)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Adapters

/// The semantics of the approximate forms of §9.7.3 and §9.7.4; `None` for every other form
/// (the sm_1x `mad.f32` row, also `approx-nobound`, is [`crate::fp`]'s).
pub fn semantics(form: &Form) -> Option<SemFn> {
    if !matches!(form.class, Class::ApproxBounded | Class::ApproxUnbounded) {
        return None;
    }
    Some(match form.opcode {
        "div" => sem_div,
        "rcp" => sem_rcp,
        "sqrt" => sem_sqrt,
        "rsqrt" => sem_rsqrt,
        "sin" => sem_sin,
        "cos" => sem_cos,
        "lg2" => sem_lg2,
        "ex2" => sem_ex2,
        "tanh" => sem_tanh,
        _ => return None,
    })
}

/// The format and lane count of the form's type `t`.
fn float_type(f: &Form) -> Result<(&'static Fmt, u32), EvalError> {
    match f.ty("t") {
        Some(t) => match t.kind {
            Kind::Float(ff @ (FloatFormat::F32 | FloatFormat::F64 | FloatFormat::F16 | FloatFormat::Bf16)) => {
                Ok((Fmt::of(ff), t.lanes))
            }
            _ => Err(EvalError::unhandled(format!("`{}`: not a float type", f.name))),
        },
        None => Err(EvalError::unhandled(format!("`{}`: no type", f.name))),
    }
}

/// Operand `i` masked to one f32.
fn f32_arg(x: &Args, i: usize) -> u128 {
    x.get(i) & F32.mask()
}

fn one_out(o: Outcome) -> Outcomes {
    Ok(vec![o])
}

fn sem_div(f: &Form, x: &Args) -> Outcomes {
    let (a, b) = (f32_arg(x, 0), f32_arg(x, 1));
    match f.var("m") {
        Some("approx") => one_out(div_approx(a, b)),
        Some("full") => one_out(div_full(a, b)),
        _ => Err(EvalError::unhandled(format!(
            "`{}`: not an approximate division",
            f.name
        ))),
    }
}

fn sem_rcp(f: &Form, x: &Args) -> Outcomes {
    match float_type(f)?.0.format {
        FloatFormat::F64 => one_out(rcp_approx_ftz_f64(x.get(0) & F64.mask())),
        _ => one_out(rcp_approx_f32(f32_arg(x, 0), f.has("ftz"))),
    }
}

fn sem_sqrt(f: &Form, x: &Args) -> Outcomes {
    one_out(sqrt_approx_f32(f32_arg(x, 0), f.has("ftz")))
}

fn sem_rsqrt(f: &Form, x: &Args) -> Outcomes {
    let a = x.get(0) & F64.mask();
    match (float_type(f)?.0.format, f.has("ftz")) {
        (FloatFormat::F64, true) => one_out(rsqrt_approx_ftz_f64(a)),
        (FloatFormat::F64, false) => one_out(rsqrt_approx_f64(a)),
        _ => one_out(rsqrt_approx_f32(f32_arg(x, 0), f.has("ftz"))),
    }
}

fn sem_sin(f: &Form, x: &Args) -> Outcomes {
    one_out(sin_approx(f32_arg(x, 0), f.has("ftz")))
}

fn sem_cos(f: &Form, x: &Args) -> Outcomes {
    one_out(cos_approx(f32_arg(x, 0), f.has("ftz")))
}

fn sem_lg2(f: &Form, x: &Args) -> Outcomes {
    one_out(lg2_approx(f32_arg(x, 0), f.has("ftz")))
}

fn sem_ex2(f: &Form, x: &Args) -> Outcomes {
    let (fmt, lanes) = float_type(f)?;
    let ftz = f.has("ftz");
    if fmt.format == FloatFormat::F32 {
        return one_out(ex2_approx_f32(f32_arg(x, 0), ftz));
    }
    // `fA[0] = a[0:15]` (L10165): lane by lane, or once for a scalar.
    one_out(lanewise(fmt.bits, lanes, [x.get(0)], |[a]| {
        ex2_approx_half(fmt, a, ftz)
    }))
}

fn sem_tanh(f: &Form, x: &Args) -> Outcomes {
    let (fmt, lanes) = float_type(f)?;
    // `fA[0] = a[0:15]` (L10079).
    one_out(lanewise(fmt.bits, lanes, [x.get(0)], |[a]| tanh_approx(fmt, a)))
}
