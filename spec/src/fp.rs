//! §9.7.3 Floating-point instructions (L7095) on `.f32`, `.f64` and `.f32x2`: the bit-exact
//! ones — `testp copysign add sub mul fma mad div abs neg min max rcp sqrt` with an IEEE
//! rounding modifier — plus the deprecated sm_1x `mad.f32`. The approximate forms (`.approx`,
//! `.full`, `rsqrt`, `sin`, ...) are [`crate::approx`]'s.
//!
//! The general rules (L7139-7141): instructions with a rounding modifier are IEEE 754
//! compliant; `.ftz` flushes subnormal `.f32` inputs and results to sign-preserving zero;
//! `.sat` clamps `.f32` results to [0.0, 1.0] with NaN going to +0.0; single-precision
//! instructions return an unspecified NaN, double-precision ones keep NaN payloads. They are
//! applied by [`crate::float::ops`]; the arithmetic is [`crate::float::fast`], the host FPU
//! where it is proven to agree with the soft path [`crate::float::ieee`].
//!
//! The model is sm_20 and later: on sm_1x `.f32` instructions flush subnormals whether or not
//! `.ftz` is written (L7139), a target the spec does not model, except for the sm_1x `mad.f32`
//! spelling, whose result is accepted next to the sm_20 one ([`mad_f32_sm1x`]).
//!
//! Forms without a rounding modifier (`add.f32`, `mul.f64`, ...) round to nearest even
//! (L7572): their `contract` flag says the compiler may fuse them with a neighbouring
//! instruction, which the spec of one instruction cannot see, so their value is the `.rn` one.

use crate::catalog::{Class, Form};
use crate::eval::SemFn;
use crate::float::format::{Class as FpClass, Fmt, Val, F32, F64};
use crate::float::ops::{self, lanewise, Mods, NanRule};
use crate::float::round::round;
use crate::float::{fast, rnd_of, Rnd};
use crate::types::{FloatFormat, Kind, Type};
use crate::value::{Accept, Args, EvalError, Outcome, Outcomes};

const SIGN32: u32 = 0x8000_0000;
const SIGN64: u64 = 1 << 63;
/// 1.0 as f32 and f64 bits (the dividend of `rcp`).
const ONE32: u32 = 0x3f80_0000;
const ONE64: u64 = 0x3ff0_0000_0000_0000;

// ---------------------------------------------------------------------------------------------
// testp, copysign

/// The property `testp` tests (`.op`, L7439).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestOp {
    /// `.finite`: not Inf or NaN.
    Finite,
    /// `.infinite`: ±Inf.
    Infinite,
    /// `.number`: not NaN.
    Number,
    /// `.notanumber`: NaN.
    NotANumber,
    /// `.normal`: a normal number or ±0.0 (L7472).
    Normal,
    /// `.subnormal`: a subnormal number.
    Subnormal,
}

impl TestOp {
    /// Every `.op`, in the manual's order (L7439).
    pub const ALL: [TestOp; 6] = [
        TestOp::Finite,
        TestOp::Infinite,
        TestOp::Number,
        TestOp::NotANumber,
        TestOp::Normal,
        TestOp::Subnormal,
    ];

    /// Parses the modifier without its dot.
    pub fn parse(s: &str) -> Option<TestOp> {
        Some(match s {
            "finite" => TestOp::Finite,
            "infinite" => TestOp::Infinite,
            "number" => TestOp::Number,
            "notanumber" => TestOp::NotANumber,
            "normal" => TestOp::Normal,
            "subnormal" => TestOp::Subnormal,
            _ => return None,
        })
    }
}

/// §9.7.3.1 testp (L7429-7472): `.finite` not Inf or NaN, `.infinite` ±Inf, `.number` not NaN,
/// `.notanumber` NaN, `.normal` a normal number, `.subnormal` a subnormal one; "as a special
/// case, positive and negative zero are considered normal numbers" (L7472).
pub fn testp(fmt: &Fmt, op: TestOp, a: u128) -> bool {
    let c = fmt.classify(a);
    match op {
        TestOp::Finite => !matches!(c, FpClass::Inf | FpClass::Nan),
        TestOp::Infinite => c == FpClass::Inf,
        TestOp::Number => c != FpClass::Nan,
        TestOp::NotANumber => c == FpClass::Nan,
        TestOp::Normal => matches!(c, FpClass::Normal | FpClass::Zero),
        TestOp::Subnormal => c == FpClass::Subnormal,
    }
}

/// `testp.op.f32` (L7429).
pub fn testp_f32(op: TestOp, a: u32) -> bool {
    testp(&F32, op, a as u128)
}

/// `testp.op.f64` (L7429).
pub fn testp_f64(op: TestOp, a: u64) -> bool {
    testp(&F64, op, a as u128)
}

/// §9.7.3.2 copysign.f32 (L7487-7501): "copies the sign bit of a into the value of b" — `b`
/// with `a`'s sign bit. A NaN `b` gives an unspecified NaN (the f32 rule, L7141; the section
/// says nothing of NaN). A NaN `a` only lends its sign bit.
pub fn copysign_f32(a: u32, b: u32) -> Outcome {
    if F32.is_nan(b as u128) {
        return Outcome::any_nan(FloatFormat::F32);
    }
    Outcome::exact(((b & !SIGN32) | (a & SIGN32)) as u128)
}

/// §9.7.3.2 copysign.f64 (L7487-7501): `b` with `a`'s sign bit. A NaN `b` keeps its payload
/// (L7141) with `a`'s sign. Interpretation: copysign is a bit operation, so the NaN comes out
/// as it went in; its quieted form is also accepted (arithmetic quiets signalling NaNs, and
/// the manual does not say copysign does not).
pub fn copysign_f64(a: u64, b: u64) -> Outcome {
    let d = (b & !SIGN64) | (a & SIGN64);
    let q = F64.quiet(d as u128);
    if F64.is_nan(b as u128) && q != d as u128 {
        return Outcome {
            model: d as u128,
            accept: Accept::OneOf(vec![q]),
        };
    }
    Outcome::exact(d as u128)
}

// ---------------------------------------------------------------------------------------------
// add, sub, mul, fma, mad, div, rcp, sqrt

/// The result rules of a `.f32` instruction around a rounded result `r`: NaN (unspecified,
/// L7141), then `.ftz` and `.sat` ([`ops::finish_rounded`]; `toward_zero` is the same
/// operation rounded toward zero, which tells whether a result rounded up to the smallest
/// normal number was tiny before rounding). The common case, no modifier and a number, is
/// answered here without the generic layer.
#[inline]
fn finish_f32(r: u32, mods: Mods, toward_zero: impl FnOnce() -> u32) -> Outcome {
    if mods == Mods::default() && !F32.is_nan(r as u128) {
        return Outcome::exact(r as u128);
    }
    ops::finish_rounded(&F32, r as u128, mods, NanRule::Unspecified, &[], || {
        toward_zero() as u128
    })
}

/// The result rule of a `.f64` instruction: a NaN keeps an input's payload (L7141).
#[inline]
fn finish_f64(r: u64, ins: &[u64]) -> Outcome {
    if !F64.is_nan(r as u128) {
        return Outcome::exact(r as u128);
    }
    let mut wide = [0u128; 3];
    for (w, &x) in wide.iter_mut().zip(ins) {
        *w = x as u128;
    }
    ops::nan_outcome(&F64, NanRule::Payload, &wide[..ins.len()])
}

/// `.ftz` on an input (L7139).
#[inline]
fn flush32(mods: Mods, x: u32) -> u32 {
    if mods.ftz {
        F32.ftz(x as u128) as u32
    } else {
        x
    }
}

/// §9.7.3.3 add.f32 (L7516-7622): `d = a + b` (L7541) rounded by `rnd` (`.rn` when none is
/// written, L7572); `.ftz` flushes subnormal inputs and results (L7580); `.sat` clamps to
/// [0.0, 1.0], NaN to +0.0 (L7590).
pub fn add_f32(a: u32, b: u32, rnd: Rnd, mods: Mods) -> Outcome {
    let (a, b) = (flush32(mods, a), flush32(mods, b));
    finish_f32(fast::add_f32(a, b, rnd), mods, || fast::add_f32(a, b, Rnd::Rz))
}

/// §9.7.3.4 sub.f32 (L7623-7729): `d = a - b` (L7648); modifiers as [`add_f32`] (L7687,
/// L7697).
pub fn sub_f32(a: u32, b: u32, rnd: Rnd, mods: Mods) -> Outcome {
    let (a, b) = (flush32(mods, a), flush32(mods, b));
    finish_f32(fast::sub_f32(a, b, rnd), mods, || fast::sub_f32(a, b, Rnd::Rz))
}

/// §9.7.3.5 mul.f32 (L7730-7837): `d = a * b` (L7755); modifiers as [`add_f32`] (L7796,
/// L7806).
pub fn mul_f32(a: u32, b: u32, rnd: Rnd, mods: Mods) -> Outcome {
    let (a, b) = (flush32(mods, a), flush32(mods, b));
    finish_f32(fast::mul_f32(a, b, rnd), mods, || fast::mul_f32(a, b, Rnd::Rz))
}

/// §9.7.3.6 fma.f32 (L7838-7941): `d = a * b + c` (L7863), "the product of a and b to
/// infinite precision, then c added at infinite precision, then rounded with .rnd" (L7878);
/// `.ftz` (L7908) and `.sat` (L7918). Also `mad.rnd.f32`: "mad.{f32,f64} is the same as
/// fma.{f32,f64}" (L7972).
pub fn fma_f32(a: u32, b: u32, c: u32, rnd: Rnd, mods: Mods) -> Outcome {
    let (a, b, c) = (flush32(mods, a), flush32(mods, b), flush32(mods, c));
    finish_f32(fast::fma_f32(a, b, c, rnd), mods, || fast::fma_f32(a, b, c, Rnd::Rz))
}

/// §9.7.3.8 div.rnd.f32 (L8048-8140): `d = a / b` (L8069), IEEE 754 rounding by `rnd`;
/// `.ftz` (L8107).
pub fn div_f32(a: u32, b: u32, rnd: Rnd, mods: Mods) -> Outcome {
    let (a, b) = (flush32(mods, a), flush32(mods, b));
    finish_f32(fast::div_f32(a, b, rnd), mods, || fast::div_f32(a, b, Rnd::Rz))
}

/// §9.7.3.13 rcp.rnd.f32 (L8419-8528): `d = 1 / a` (L8439), IEEE 754 rounding by `rnd`, i.e.
/// [`div_f32`] of 1.0; `.ftz` (L8497) — a subnormal `a` is a signed zero, giving ±Inf.
pub fn rcp_f32(a: u32, rnd: Rnd, mods: Mods) -> Outcome {
    div_f32(ONE32, a, rnd, mods)
}

/// §9.7.3.15 sqrt.rnd.f32 (L8609-8722): `d = sqrt(a)` (L8629), IEEE 754 rounding by `rnd`;
/// `sqrt(-0.0) = -0.0`, negative numbers and -Inf give NaN (the table at L8637-8663); `.ftz`
/// (L8691).
pub fn sqrt_f32(a: u32, rnd: Rnd, mods: Mods) -> Outcome {
    let a = flush32(mods, a);
    finish_f32(fast::sqrt_f32(a, rnd), mods, || fast::sqrt_f32(a, Rnd::Rz))
}

/// §9.7.3.3 add.f64 (L7516-7622): `d = a + b`; subnormals supported (L7584), NaN payloads
/// kept (L7141).
pub fn add_f64(a: u64, b: u64, rnd: Rnd) -> Outcome {
    finish_f64(fast::add_f64(a, b, rnd), &[a, b])
}

/// §9.7.3.4 sub.f64 (L7623-7729): `d = a - b`.
pub fn sub_f64(a: u64, b: u64, rnd: Rnd) -> Outcome {
    finish_f64(fast::sub_f64(a, b, rnd), &[a, b])
}

/// §9.7.3.5 mul.f64 (L7730-7837): `d = a * b`.
pub fn mul_f64(a: u64, b: u64, rnd: Rnd) -> Outcome {
    finish_f64(fast::mul_f64(a, b, rnd), &[a, b])
}

/// §9.7.3.6 fma.f64 (L7838-7941): `d = a * b + c` with one rounding (L7880); also
/// `mad.rnd.f64` (L7972, L7978).
pub fn fma_f64(a: u64, b: u64, c: u64, rnd: Rnd) -> Outcome {
    finish_f64(fast::fma_f64(a, b, c, rnd), &[a, b, c])
}

/// §9.7.3.8 div.rnd.f64 (L8048-8140): `d = a / b`.
pub fn div_f64(a: u64, b: u64, rnd: Rnd) -> Outcome {
    finish_f64(fast::div_f64(a, b, rnd), &[a, b])
}

/// §9.7.3.13 rcp.rnd.f64 (L8419-8528): `d = 1 / a`.
pub fn rcp_f64(a: u64, rnd: Rnd) -> Outcome {
    finish_f64(fast::div_f64(ONE64, a, rnd), &[a])
}

/// §9.7.3.15 sqrt.rnd.f64 (L8609-8722): `d = sqrt(a)`.
pub fn sqrt_f64(a: u64, rnd: Rnd) -> Outcome {
    finish_f64(fast::sqrt_f64(a, rnd), &[a])
}

/// Lane `i` (0 or 1) of an `.f32x2` register: `a[0:31]`, `a[32:63]` (L7543-7544).
fn pack_lanes<const N: usize>(ins: [u64; N], f: impl Fn([u32; N]) -> Outcome) -> Outcome {
    lanewise(32, 2, ins.map(|x| x as u128), |l| f(l.map(|x| x as u32)))
}

/// §9.7.3.3 add.f32x2 (L7540-7550): the two `.f32` lanes added independently, each as
/// [`add_f32`] (`.ftz` per lane, no `.sat`).
pub fn add_f32x2(a: u64, b: u64, rnd: Rnd, mods: Mods) -> Outcome {
    pack_lanes([a, b], |[x, y]| add_f32(x, y, rnd, mods))
}

/// §9.7.3.4 sub.f32x2 (L7647-7657).
pub fn sub_f32x2(a: u64, b: u64, rnd: Rnd, mods: Mods) -> Outcome {
    pack_lanes([a, b], |[x, y]| sub_f32(x, y, rnd, mods))
}

/// §9.7.3.5 mul.f32x2 (L7754-7764).
pub fn mul_f32x2(a: u64, b: u64, rnd: Rnd, mods: Mods) -> Outcome {
    pack_lanes([a, b], |[x, y]| mul_f32(x, y, rnd, mods))
}

/// §9.7.3.6 fma.f32x2 (L7862-7874).
pub fn fma_f32x2(a: u64, b: u64, c: u64, rnd: Rnd, mods: Mods) -> Outcome {
    pack_lanes([a, b, c], |[x, y, z]| fma_f32(x, y, z, rnd, mods))
}

/// §9.7.3.7 `mad{.ftz}{.sat}.f32` without a rounding modifier, the sm_1x spelling (L7950).
///
/// The manual gives two behaviours (L7976): on sm_1x "the product of a and b is computed at
/// double precision, then the mantissa is truncated to 23 bits, but the exponent is
/// preserved", with the exception that for c = ±0.0 the result is that of separate `mul` and
/// `add`; JIT-compiled for sm_20 and later it is `fma.rn.ftz.f32`. Interpretation: the model
/// is `fma.rn.ftz.f32` (with `.sat` when written), the target the spec models; the sm_1x
/// result ([`mad_f32_sm1x_truncated`], flushing as sm_1x always does, L8012) is accepted too.
pub fn mad_f32_sm1x(a: u32, b: u32, c: u32, mods: Mods) -> Outcome {
    let mods = Mods { ftz: true, ..mods };
    let sm20 = fma_f32(a, b, c, Rnd::Rn, mods);
    let sm1x = ops::finish(
        &F32,
        mad_f32_sm1x_truncated(a, b, c) as u128,
        mods,
        NanRule::Unspecified,
        &[],
    );
    ops::also_accept(sm20, &sm1x)
}

/// The sm_1x `mad.f32` before `.sat` (L7976): inputs flushed; for c = ±0.0, `mul.rn` then
/// `add.rn`, each flushing its result; otherwise the exact product (a product of two f32 is
/// exact in f64) with its significand truncated to 24 bits — 23 stored mantissa bits — and its
/// exponent unclamped, plus `c`, rounded once to nearest even and flushed.
pub fn mad_f32_sm1x_truncated(a: u32, b: u32, c: u32) -> u32 {
    let ftz = Mods {
        ftz: true,
        ..Mods::default()
    };
    let (a, b, c) = (flush32(ftz, a), flush32(ftz, b), flush32(ftz, c));
    let flushed = |r: u32| F32.ftz(r as u128) as u32;
    if c & !SIGN32 == 0 {
        let p = flushed(fast::mul_f32(a, b, Rnd::Rn));
        return flushed(fast::add_f32(p, c, Rnd::Rn));
    }
    let p = f32::from_bits(a) as f64 * f32::from_bits(b) as f64;
    let z = f32::from_bits(c) as f64;
    if !p.is_finite() || !z.is_finite() {
        // Inf or NaN operands: the IEEE result (rounding plays no part).
        return flushed(fast::fma_f32(a, b, c, Rnd::Rn));
    }
    // Truncate the f64 significand (53 bits) to 24: products of f32 are normal in f64.
    let t = f64::from_bits(p.to_bits() & !((1u64 << 29) - 1));
    flushed(round_exact_sum(&F32, t, z, Rnd::Rn) as u32)
}

/// Rounds the exact sum of two finite f64 values, `x` nonzero or `y` nonzero, into `fmt`: the
/// two are aligned in a u128 when their exponents are within 64 of each other, otherwise the
/// smaller is at most 2^-11 of the larger's last place and stands as a sticky bit below two
/// extra bits of the larger.
fn round_exact_sum(fmt: &Fmt, x: f64, y: f64, rnd: Rnd) -> u128 {
    let parts = |v: f64| match F64.decode(v.to_bits() as u128) {
        Val::Finite { neg, sig, exp } => (neg, sig as u128, exp),
        _ => unreachable!("finite operands only"),
    };
    let (mut big, mut small) = (parts(x), parts(y));
    if small.1 == 0 {
        return round(fmt, big.0, big.1, big.2, false, rnd).bits;
    }
    if big.1 == 0 || small.2 > big.2 {
        std::mem::swap(&mut big, &mut small);
        if small.1 == 0 {
            return round(fmt, big.0, big.1, big.2, false, rnd).bits;
        }
    }
    let d = big.2 - small.2;
    if d <= 64 {
        let (vb, vs) = (big.1 << d, small.1);
        let (neg, sum) = if big.0 == small.0 {
            (big.0, vb + vs)
        } else if vb >= vs {
            (big.0, vb - vs)
        } else {
            (small.0, vs - vb)
        };
        return round(fmt, neg, sum, small.2, false, rnd).bits;
    }
    let vb = big.1 << 2;
    let sig = if big.0 == small.0 { vb } else { vb - 1 };
    round(fmt, big.0, sig, big.2 - 2, true, rnd).bits
}

// ---------------------------------------------------------------------------------------------
// abs, neg

/// §9.7.3.9 abs.f32 (L8141-8191): `d = |a|` (L8158); `.ftz` flushes a subnormal input to a
/// signed zero first (L8168), whose magnitude is +0; "for abs.f32, NaN input yields
/// unspecified NaN" (L8176).
pub fn abs_f32(a: u32, mods: Mods) -> Outcome {
    if F32.is_nan(a as u128) {
        return Outcome::any_nan(FloatFormat::F32);
    }
    Outcome::exact((flush32(mods, a) & !SIGN32) as u128)
}

/// §9.7.3.9 abs.f64 (L8141-8191): `d = |a|`; "for abs.f64, NaN input is passed through
/// unchanged" (L8176). Interpretation: the same line says "future implementations may comply
/// with IEEE 754 by preserving the payload and modifying only the sign bit", so a NaN with its
/// sign cleared is accepted next to the unchanged one.
pub fn abs_f64(a: u64) -> Outcome {
    let d = a & !SIGN64;
    if F64.is_nan(a as u128) && d != a {
        return Outcome {
            model: a as u128,
            accept: Accept::OneOf(vec![d as u128]),
        };
    }
    Outcome::exact(d as u128)
}

/// §9.7.3.10 neg.f32 (L8192-8242): `d = -a` (L8209), the sign bit flipped; `.ftz` flushes a
/// subnormal input to a signed zero first (L8219), which is then negated; "NaN inputs yield
/// an unspecified NaN" (L8227).
pub fn neg_f32(a: u32, mods: Mods) -> Outcome {
    if F32.is_nan(a as u128) {
        return Outcome::any_nan(FloatFormat::F32);
    }
    Outcome::exact((flush32(mods, a) ^ SIGN32) as u128)
}

/// §9.7.3.10 neg.f64 (L8192-8242): `d = -a`; a NaN input yields an unspecified NaN for every
/// type, `.f64` included (L8227).
pub fn neg_f64(a: u64) -> Outcome {
    if F64.is_nan(a as u128) {
        return Outcome::any_nan(FloatFormat::F64);
    }
    Outcome::exact((a ^ SIGN64) as u128)
}

// ---------------------------------------------------------------------------------------------
// min, max

/// The optional modifiers of `min`/`max` on `.f32` (L8251, L8339).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinMax {
    /// `.NaN`: a NaN input gives the canonical NaN (L8258).
    pub nan: bool,
    /// `.xorsign.abs`, always written together (L8264).
    pub xorsign_abs: bool,
}

/// The order of non-NaN values with −0.0 below +0.0 ("if both inputs have value 0.0, +0.0 >
/// -0.0", L8302, L8390): the magnitude, negated and shifted by one when the sign is set.
fn order_key(fmt: &Fmt, x: u128) -> i128 {
    let mag = (x & (fmt.mask() >> 1)) as i128;
    if fmt.is_neg(x) {
        -mag - 1
    } else {
        mag
    }
}

/// The pseudocode of §9.7.3.11 min (L8270-8284) and §9.7.3.12 max (L8358-8372) for one
/// format, after `.ftz` on the inputs:
/// ```text
/// if (.xorsign) { xorsign = getSignBit(a) ^ getSignBit(b); if (.abs) { a = |a|; b = |b|; } }
/// if (isNaN(a) && isNaN(b))                 d = NaN;
/// else if (.NaN && (isNaN(a) || isNaN(b)))  d = NaN;
/// else if (isNaN(a))                        d = b;
/// else if (isNaN(b))                        d = a;
/// else                                      d = (a < b) ? a : b;   // max: (a > b)
/// if (.xorsign && !isNaN(d)) setSignBit(d, xorsign);
/// ```
/// Both NaN: a NaN by the format's rule (`rule`); `.NaN` with a NaN input: the canonical NaN
/// (L8258), exactly. Interpretation: "canonical NaN" is the one the spec's formats define
/// (0x7fffffff for f32), not any NaN.
fn min_max(fmt: &Fmt, is_max: bool, a: u128, b: u128, mm: MinMax, rule: NanRule) -> Outcome {
    let sign = 1u128 << (fmt.bits - 1);
    let (mut a, mut b) = (a, b);
    let xorsign = (a ^ b) & sign;
    if mm.xorsign_abs {
        a &= !sign;
        b &= !sign;
    }
    let (na, nb) = (fmt.is_nan(a), fmt.is_nan(b));
    if na && nb && !mm.nan {
        return ops::nan_outcome(fmt, rule, &[a, b]);
    }
    if mm.nan && (na || nb) {
        return Outcome::exact(fmt.canonical_nan);
    }
    let d = if na {
        b
    } else if nb {
        a
    } else {
        let (ka, kb) = (order_key(fmt, a), order_key(fmt, b));
        let a_wins = if is_max { ka > kb } else { ka < kb };
        if a_wins {
            a
        } else {
            b
        }
    };
    let d = if mm.xorsign_abs { (d & !sign) | xorsign } else { d };
    Outcome::exact(d)
}

/// §9.7.3.11 min.f32 (L8243-8330) with `.ftz` (flushing inputs, L8294), `.NaN` and
/// `.xorsign.abs`; see `min_max`. A NaN and a number give the number (L8279-8280).
pub fn min_f32(a: u32, b: u32, mm: MinMax, mods: Mods) -> Outcome {
    let (a, b) = (flush32(mods, a), flush32(mods, b));
    min_max(&F32, false, a as u128, b as u128, mm, NanRule::Unspecified)
}

/// §9.7.3.12 max.f32 (L8331-8418); see [`min_f32`].
pub fn max_f32(a: u32, b: u32, mm: MinMax, mods: Mods) -> Outcome {
    let (a, b) = (flush32(mods, a), flush32(mods, b));
    min_max(&F32, true, a as u128, b as u128, mm, NanRule::Unspecified)
}

/// §9.7.3.11 min.f64 (L8243-8330): two NaNs give a NaN with one of their payloads (L7141).
pub fn min_f64(a: u64, b: u64) -> Outcome {
    min_max(&F64, false, a as u128, b as u128, MinMax::default(), NanRule::Payload)
}

/// §9.7.3.12 max.f64 (L8331-8418).
pub fn max_f64(a: u64, b: u64) -> Outcome {
    min_max(&F64, true, a as u128, b as u128, MinMax::default(), NanRule::Payload)
}

// ---------------------------------------------------------------------------------------------
// Adapters

/// The semantics adapter for a form of §9.7.3: every bit-exact form, and the deprecated
/// sm_1x `mad.f32` (an `approx-nobound` row); `None` for the approximate forms, which are
/// [`crate::approx`]'s, and for everything outside §9.7.3.
pub fn semantics(form: &Form) -> Option<SemFn> {
    if !form.section.starts_with("9.7.3.") {
        return None;
    }
    let mine = form.class == Class::BitExact || (form.opcode == "mad" && form.flag("deprecated"));
    if !mine {
        return None;
    }
    Some(match form.opcode {
        "testp" => sem_testp,
        "copysign" => sem_copysign,
        "add" | "sub" | "mul" | "fma" | "mad" | "div" | "rcp" | "sqrt" => sem_arith,
        "abs" | "neg" => sem_abs_neg,
        "min" | "max" => sem_min_max,
        _ => return None,
    })
}

/// The type `t` of a form: `.f32`, `.f64` or `.f32x2`.
fn float_type(form: &Form) -> Result<Type, EvalError> {
    match form.ty("t") {
        Some(
            t @ Type {
                kind: Kind::Float(FloatFormat::F32 | FloatFormat::F64),
                ..
            },
        ) => Ok(t),
        _ => Err(EvalError::unhandled(format!(
            "`{}`: not an .f32/.f64/.f32x2 form",
            form.name
        ))),
    }
}

fn sem_testp(form: &Form, args: &Args) -> Outcomes {
    let op = form.var("op").and_then(TestOp::parse);
    let Some(op) = op else {
        return Err(EvalError::unhandled(format!("`{}`: no testp operator", form.name)));
    };
    let p = match float_type(form)?.lane_bits {
        32 => testp_f32(op, args.get(0) as u32),
        _ => testp_f64(op, args.get(0) as u64),
    };
    Ok(vec![Outcome::exact(p as u128)])
}

fn sem_copysign(form: &Form, args: &Args) -> Outcomes {
    let d = match float_type(form)?.lane_bits {
        32 => copysign_f32(args.get(0) as u32, args.get(1) as u32),
        _ => copysign_f64(args.get(0) as u64, args.get(1) as u64),
    };
    Ok(vec![d])
}

fn sem_arith(form: &Form, args: &Args) -> Outcomes {
    let t = float_type(form)?;
    let rnd = rnd_of(form, "rnd");
    let mods = Mods::of(form);
    let op = form.opcode;
    let d = match (t.lanes, t.lane_bits) {
        (1, 32) => {
            let x = |i: usize| args.get(i) as u32;
            match op {
                "mad" if form.var("rnd").is_none() => mad_f32_sm1x(x(0), x(1), x(2), mods),
                "add" => add_f32(x(0), x(1), rnd, mods),
                "sub" => sub_f32(x(0), x(1), rnd, mods),
                "mul" => mul_f32(x(0), x(1), rnd, mods),
                "fma" | "mad" => fma_f32(x(0), x(1), x(2), rnd, mods),
                "div" => div_f32(x(0), x(1), rnd, mods),
                "rcp" => rcp_f32(x(0), rnd, mods),
                _ => sqrt_f32(x(0), rnd, mods),
            }
        }
        (1, _) => {
            let x = |i: usize| args.get(i) as u64;
            match op {
                "add" => add_f64(x(0), x(1), rnd),
                "sub" => sub_f64(x(0), x(1), rnd),
                "mul" => mul_f64(x(0), x(1), rnd),
                "fma" | "mad" => fma_f64(x(0), x(1), x(2), rnd),
                "div" => div_f64(x(0), x(1), rnd),
                "rcp" => rcp_f64(x(0), rnd),
                _ => sqrt_f64(x(0), rnd),
            }
        }
        _ => {
            let x = |i: usize| args.get(i) as u64;
            match op {
                "add" => add_f32x2(x(0), x(1), rnd, mods),
                "sub" => sub_f32x2(x(0), x(1), rnd, mods),
                "mul" => mul_f32x2(x(0), x(1), rnd, mods),
                "fma" => fma_f32x2(x(0), x(1), x(2), rnd, mods),
                _ => return Err(EvalError::unhandled(format!("`{}`: no .f32x2 form", form.name))),
            }
        }
    };
    Ok(vec![d])
}

fn sem_abs_neg(form: &Form, args: &Args) -> Outcomes {
    let mods = Mods::of(form);
    let d = match (form.opcode, float_type(form)?.lane_bits) {
        ("abs", 32) => abs_f32(args.get(0) as u32, mods),
        ("abs", _) => abs_f64(args.get(0) as u64),
        (_, 32) => neg_f32(args.get(0) as u32, mods),
        _ => neg_f64(args.get(0) as u64),
    };
    Ok(vec![d])
}

fn sem_min_max(form: &Form, args: &Args) -> Outcomes {
    let mods = Mods::of(form);
    let mm = MinMax {
        nan: form.has("NaN"),
        xorsign_abs: form.has("xorsign"),
    };
    let d = match (form.opcode, float_type(form)?.lane_bits) {
        ("min", 32) => min_f32(args.get(0) as u32, args.get(1) as u32, mm, mods),
        ("max", 32) => max_f32(args.get(0) as u32, args.get(1) as u32, mm, mods),
        ("min", _) => min_f64(args.get(0) as u64, args.get(1) as u64),
        _ => max_f64(args.get(0) as u64, args.get(1) as u64),
    };
    Ok(vec![d])
}
