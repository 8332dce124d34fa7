//! The acceptance set of floating-point `mma`/`wmma`/`wgmma` (f16, bf16, tf32, fp8/fp6/fp4
//! inputs): what the manual's precision sentences allow, as an error bound around the exact
//! value.
//!
//! # The manual
//!
//! L22918-22935 (and the same text for `wmma`, L20906-20940, and `wgmma`, L25791-25809): products
//! are formed in at least single precision (fp16) or "in the specified precision" (the others:
//! every such product is exact in f32, its significand has at most 22 bits); accumulation is in
//! at least single precision (f32 accumulator, and every fp8/bf16/tf32 form) or at least half
//! precision (f16 `.ctype`/`.dtype`); "accumulation order, rounding and the handling of
//! subnormal inputs are unspecified".
//!
//! # The derivation
//!
//! Read as: the K + 1 terms (`c` and K products) are added in any order (any tree), each
//! addition rounded in any direction to a precision of at least p bits, then converted to the
//! output format; a subnormal input may be read as any value of its sign between 0 and the
//! smallest normal number (flushed, or kept); an accumulator in the subnormal range may be
//! flushed. Then, with δ = 2^(1−p) (the relative error of any faithful rounding to p bits),
//! A_k = |a_k| for a normal a_k and 2^emin for a subnormal one (likewise B_k), and
//! T = |c| + Σ A_k B_k (which bounds every partial sum's magnitude before rounding):
//!
//! - every rounding of a partial sum s costs at most δ|s| ≤ δ·T(1+δ)^K, and at most K + 1
//!   roundings happen (K additions and the output conversion): with (1+δ)^m − 1 ≤ 2mδ for
//!   mδ ≤ 1, at most 2(K+2)δ·T;
//! - tensor cores do not add pairwise: they align all terms of a block on the largest exponent
//!   and truncate each (error below 2^(E−F) ≤ δ·T per term and block, with F ≥ p − 1), and round
//!   once per block; counting each of the ≤ 2K terms of all blocks and each block's rounding
//!   once, at most (3K + 2)δ·T(1+2Kδ). Both readings fit inside **4(K+2)·δ·T**;
//! - each product with a subnormal input may move by up to A_k B_k: **+ Σ_{subnormal k} A_k B_k**;
//! - each of at most K + 2 flushes of a subnormal partial sum costs at most 2^emin_acc:
//!   **+ 2(K+2)·2^emin_acc**;
//! - the reference value is the exact sum computed in f64 (K + 1 roundings): **+ (K+2)·2^-52·T**.
//!
//! The precision p: 24 (f32) for an f32 accumulator; 11 (f16) for an f16 `.dtype` — the fp16
//! sentence's "at least half precision", applied to every f16-output form (an f16 result cannot
//! hold more); and **14 for fp8/fp6/fp4 inputs with an f32 accumulator**. That last one is a
//! conflict between manual and hardware, resolved for the hardware: sm_89 and sm_90 (`wgmma`)
//! accumulate fp8 in 13 fraction bits (the recorded results' e8m13, low 10 bits always zero),
//! which is below the manual's "at least single precision" (L22927), and a suite must accept what
//! NVIDIA's own GPUs return (see `spec/INTERPRETATIONS.md`).
//!
//! **Exact sums.** Where every input is normal or zero, every non-zero term (each product and
//! c) is an integer multiple of one 2^q with q at least the accumulator's emin, T < 2^(q+p−1) and
//! the sum is not zero, every partial sum of every order has at most p − 1 significant bits:
//! no rounding to p bits and no block alignment (truncation below 2^(E−F), E < q + p − 1,
//! F ≥ p − 1) can change it, so the set is the exact sum alone (`exact`). A zero sum keeps its
//! bound (a rounding toward −∞ may return −0).
//!
//! Where T reaches the accumulator's overflow threshold a partial sum may overflow, to ±Inf or
//! the largest finite value depending on the rounding, and Inf − Inf may follow: any value is
//! accepted. Special inputs: a NaN result accepts any NaN of the output format; an Inf result
//! (an infinite input and no NaN) is exact.

use super::arch::is_narrow;
use super::exact::bound;
use crate::float::format::{Fmt, Val};
use crate::types::FloatFormat;
use crate::value::Accept;

/// The value bound of an input: (|x| or, for a subnormal, 2^emin; whether x is subnormal);
/// `None` for Inf/NaN.
pub(crate) fn mag(fmt: &Fmt, bits: u128) -> Option<(f64, bool)> {
    match fmt.decode(bits) {
        Val::Finite { sig: 0, .. } => Some((0.0, false)),
        Val::Finite { .. } if fmt.is_subnormal(bits) => Some(((fmt.emin() as f64).exp2(), true)),
        Val::Finite { .. } => Some((fmt.to_f64(bits).abs(), false)),
        _ => None,
    }
}

/// The acceptance set around the model `model` of `c + Σ a_k b_k` with A/B elements in
/// `fa`/`fb`, `c` and D in `out` (f32 or f16), K = `a.len()`; see the module documentation.
pub fn accept(
    fa: FloatFormat,
    fb: FloatFormat,
    out: FloatFormat,
    a: &[u128],
    b: &[u128],
    c: u128,
    model: u128,
) -> Accept {
    accept_c(fa, fb, out, out, a, b, c, model)
}

/// [`accept`] with `c` in its own format `fc` (a `wmma` f32 C with an f16 D, L20914: the
/// accumulation, C included, is at least single precision, and only D is f16).
#[allow(clippy::too_many_arguments)]
pub fn accept_c(
    fa: FloatFormat,
    fb: FloatFormat,
    fc: FloatFormat,
    out: FloatFormat,
    a: &[u128],
    b: &[u128],
    c: u128,
    model: u128,
) -> Accept {
    let (fa_, fb_) = (Fmt::of(fa), Fmt::of(fb));
    let terms = a.iter().zip(b).map(|(&x, &y)| {
        let ((mx, sx), (my, sy)) = (mag(fa_, x)?, mag(fb_, y)?);
        Some(Term {
            mag: mx * my,
            subnormal: sx || sy,
            value: fa_.to_f64(x) * fb_.to_f64(y),
            lsb: lsb(fa_, x).zip(lsb(fb_, y)).map(|(p, q)| lsb_product(p, q)),
        })
    });
    accept_terms(out, fc, is_narrow(fa) || is_narrow(fb), terms, c, model)
}

/// One product as the bound sees it: `mag` bounds its magnitude (A_k·B_k of the module's
/// derivation: a subnormal factor counted as 2^emin), `subnormal` says a factor is subnormal
/// (it may be read as anything down to 0), `value` is the exact product.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Term {
    pub mag: f64,
    pub subnormal: bool,
    pub value: f64,
    /// The exponent of the product's lowest set bit (`i32::MAX` for a zero product); `None`
    /// when that is not known to stay put (a subnormal factor may be flushed), which rules
    /// out an exact set.
    pub lsb: Option<i32>,
}

/// The lowest set bit of a product from its factors' ([`lsb`]): a zero factor makes it zero.
pub(crate) fn lsb_product(p: i32, q: i32) -> i32 {
    if p == i32::MAX || q == i32::MAX {
        i32::MAX
    } else {
        p + q
    }
}

/// The exponent of the lowest set bit of a normal `x` (`i32::MAX` for a zero); `None` for a
/// subnormal (it may be flushed) or a non-finite value.
pub(crate) fn lsb(f: &Fmt, x: u128) -> Option<i32> {
    match f.decode(x) {
        Val::Finite { sig: 0, .. } => Some(i32::MAX),
        Val::Finite { sig, exp, .. } if !f.is_subnormal(x) => Some(exp + sig.trailing_zeros() as i32),
        _ => None,
    }
}

/// The acceptance set of `c + Σ terms` around `model` (D in `out`, `c` in `c_fmt`): the module's bound
/// over any products — [`accept`]'s, and the block-scaled forms' whose products carry their
/// scale factors ([`super::scaled`]). A `None` term is an infinite product (the model is that
/// Inf: exact). `narrow`: fp8/fp6/fp4 inputs, accumulated in 14 bits (see the module
/// documentation).
pub(crate) fn accept_terms(
    out: FloatFormat,
    c_fmt: FloatFormat,
    narrow: bool,
    terms: impl Iterator<Item = Option<Term>>,
    c: u128,
    model: u128,
) -> Accept {
    let fo = Fmt::of(out);
    if fo.is_nan(model) {
        return Accept::Nan(out);
    }
    let mut k = 0.0f64;
    let mut t = 0.0f64;
    let mut sub = 0.0f64;
    let mut reference = 0.0f64;
    // The grid every term is on (see `exact`): the lowest set bit over all of them.
    let mut grid = Some(i32::MAX);
    for term in terms {
        // An infinite input (the model is that Inf): exact.
        let Some(term) = term else {
            return Accept::Exact;
        };
        k += 1.0;
        t += term.mag;
        if term.subnormal {
            sub += term.mag;
        }
        reference += term.value;
        grid = grid.zip(term.lsb).map(|(g, l)| g.min(l));
    }
    let fc = Fmt::of(c_fmt);
    let Some((mc, _)) = mag(fc, c) else {
        return Accept::Exact;
    };
    t += mc;
    reference += fc.to_f64(c);
    let p: i32 = match out {
        FloatFormat::F16 => 11,
        _ if narrow => 14,
        _ => 24,
    };
    let (emin_acc, emax_acc) = match out {
        FloatFormat::F16 => (fo.emin(), fo.emax()),
        _ => (-126, 127),
    };
    let delta = (1.0 - p as f64).exp2();
    let allow =
        4.0 * (k + 2.0) * delta * t + sub + 2.0 * (k + 2.0) * (emin_acc as f64).exp2() + (k + 2.0) * f64::EPSILON * t;
    if t + allow >= (emax_acc as f64 + 1.0).exp2() {
        return Accept::Any;
    }
    let grid = grid.zip(lsb(fc, c)).map(|(g, l)| g.min(l));
    if grid.is_some_and(|q| exact(q, p, emin_acc, t)) && fo_bits(fo, reference) == Some(model) {
        return Accept::Exact;
    }
    bound(out, reference, allow * (1.0 + 1e-9))
}

/// Whether every order and rounding the module documentation allows gives the exact sum, the
/// terms (products and `c`, all normal or zero: a subnormal may be flushed) being integer
/// multiples of 2^q: q at least the accumulator's `emin` (no partial sum is subnormal) and
/// T < 2^(q+p−1). Then every partial sum is a multiple of 2^q below 2^(q+p−1) in magnitude,
/// at most p − 1 significant bits: every rounding to p bits keeps it, and so does every block
/// alignment, which truncates below 2^(E−F) with E < q + p − 1 and F ≥ p − 1. (A zero sum is
/// excluded by the caller: a rounding toward −∞ may make it −0.) All-zero terms (q =
/// `i32::MAX`) leave nothing to round, but are excluded too, with the zero sums.
fn exact(q: i32, p: i32, emin_acc: i32, t: f64) -> bool {
    q != i32::MAX && q >= emin_acc && t * (1.0 + 1e-12) < f64::from(q.saturating_add(p - 1)).exp2()
}

/// `x` in format `fo`, when it is exactly representable there (and not zero).
fn fo_bits(fo: &Fmt, x: f64) -> Option<u128> {
    if x == 0.0 || !x.is_finite() {
        return None;
    }
    let bits = super::convert(crate::types::FloatFormat::F64, fo.format, x.to_bits() as u128);
    (fo.to_f64(bits) == x).then_some(bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Outcome;
    use FloatFormat::{E4m3, F16, F32};

    fn f32b(x: f32) -> u128 {
        x.to_bits() as u128
    }
    fn set(fa: FloatFormat, out: FloatFormat, a: &[u128], b: &[u128], c: u128, model: u128) -> Outcome {
        Outcome {
            model,
            accept: accept(fa, fa, out, a, b, c, model),
        }
    }

    /// c = 1 − 2^-24 (0x3f7fffff) keeps the sum off the exact grid: q = −24, 2^(q+p−1) < T.
    const C_OFF: u128 = 0x3f7f_ffff;

    #[test]
    fn single_precision_accumulation_bound() {
        // (1 − 2^-24) + 1×1 with K = 1: allowance 4·3·2^-23·T ≈ 12u (u = 2^-22, the ulp of 2)
        // around 2 − u/4: 2 + 11u in, 2 + 12u out; below 2 (ulp u/2) 2 − 11.5u in, 2 − 12.5u
        // out; nothing near 2 + 2^-10.
        let d = set(F16, F32, &[0x3c00], &[0x3c00], C_OFF, f32b(2.0));
        assert!(matches!(d.accept, Accept::Bound(_)));
        assert!(d.accepts(f32b(2.0) + 11) && d.accepts(f32b(2.0) - 23));
        assert!(!d.accepts(f32b(2.0) + 12) && !d.accepts(f32b(2.0) - 25));
        assert!(!d.accepts(f32b(2.0 + 1.0 / 1024.0)));
    }

    #[test]
    fn exact_sums_are_exact() {
        // 1 + 1×1: every partial sum is an integer below 2^23, kept by any rounding and any
        // alignment: only 2 is accepted.
        let d = set(F16, F32, &[0x3c00], &[0x3c00], f32b(1.0), f32b(2.0));
        assert_eq!(d.accept, Accept::Exact);
        // The same with 2^-30 added: the grid is 2^-30, T ≥ 2^(−30+23): a bound again.
        let d = set(F16, F32, &[0x3c00], &[0x3c00], f32b(1.0 + 2f32.powi(-23)), f32b(2.0));
        assert!(matches!(d.accept, Accept::Bound(_)));
        // A zero sum keeps its bound: a rounding toward −∞ may give −0.
        let d = set(F16, F32, &[0x3c00], &[0xbc00], f32b(1.0), 0);
        assert!(d.accepts(0x8000_0000));
        // A subnormal input may be flushed: a bound.
        let d = set(F16, F32, &[0x0001], &[0x3c00], f32b(1.0), f32b(1.0));
        assert!(matches!(d.accept, Accept::Bound(_)));
    }

    #[test]
    fn fp8_with_f32_accumulator_allows_13_fraction_bits() {
        // e4m3 1×1 + (1 − 2^-24): allowance 12·2^-13·2 ≈ 2.9e-3; 2 + 2^-9 (≈ 2e-3) is in,
        // 2 + 2^-8 out.
        let one = 0x38;
        let d = set(E4m3, F32, &[one], &[one], C_OFF, f32b(2.0));
        assert!(d.accepts(f32b(2.0 + 1.0 / 512.0)) && !d.accepts(f32b(2.0 + 1.0 / 256.0)));
    }

    #[test]
    fn half_precision_accumulation_for_f16_outputs() {
        // (1 − 2^-11) + 1×1 in f16: allowance 12·2^-10·T (+ 6·2^-14) ≈ 0.0238 around
        // 2 − 2^-11: 2 + 11 ulps (2^-9 each) in, 2 + 13 out.
        let two = 0x4000;
        let d = set(F16, F16, &[0x3c00], &[0x3c00], 0x3bff, two);
        assert!(d.accepts(two + 11) && !d.accepts(two + 13));
    }

    #[test]
    fn subnormal_inputs_may_be_flushed() {
        // f16 2^-24 × 2^10 with c = 0: exactly 2^-14, but the subnormal factor may read as
        // anything from 0 to 2^-14, so the product as anything up to 2^-4.
        let d = set(F16, F32, &[0x0001], &[0x6400], 0, f32b(2f32.powi(-14)));
        assert!(d.accepts(0) && d.accepts(f32b(2f32.powi(-15))));
        // The same product from normal factors (2^-12 × 2^-2) may not become 0.
        let d = set(F16, F32, &[0x0c00], &[0x3400], 0, f32b(2f32.powi(-14)));
        assert!(!d.accepts(0));
    }

    #[test]
    fn specials_and_overflow() {
        let nan = set(F16, F32, &[0x7e00], &[0x3c00], 0, 0x7fff_ffff);
        assert_eq!(nan.accept, Accept::Nan(F32));
        let inf = set(F16, F32, &[0x7c00], &[0x3c00], 0, 0x7f80_0000);
        assert_eq!(inf.accept, Accept::Exact);
        // f16 65504 × 2 + 0: partial sums may overflow the f16 accumulator: anything goes.
        let big = set(F16, F16, &[0x7bff], &[0x4000], 0, 0x7c00);
        assert_eq!(big.accept, Accept::Any);
    }
}
