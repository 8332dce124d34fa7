//! Correctly rounded IEEE 754 operations on bit patterns of f16, bf16, f32 and f64: rustc_apfloat
//! (LLVM's APFloat) for what it has — add, sub, mul, fma, div, conversions, round-to-integral —
//! and our own square root, which it lacks, through the rounding engine.
//!
//! These are the soft reference paths: NaN payloads they produce are not meaningful (the callers
//! apply PTX's NaN rules), and `.ftz`/`.sat` are applied around them by [`super::ops`].

use super::format::{Fmt, Val};
use super::round::{round, Rnd};
use crate::types::FloatFormat;
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

fn apround(r: Rnd) -> Round {
    match r {
        Rnd::Rn => Round::NearestTiesToEven,
        Rnd::Rna => Round::NearestTiesToAway,
        Rnd::Rz => Round::TowardZero,
        Rnd::Rm => Round::TowardNegative,
        Rnd::Rp => Round::TowardPositive,
        // No arithmetic instruction takes `.rs`; conversions round it through the engine.
        Rnd::Rs { .. } => unreachable!("stochastic rounding is not an IEEE arithmetic mode"),
    }
}

/// Runs `$body` with `$T` bound to the apfloat type of `$fmt`.
macro_rules! with_type {
    ($fmt:expr, $T:ident => $body:expr) => {
        match $fmt.format {
            FloatFormat::F16 => {
                type $T = Half;
                $body
            }
            FloatFormat::Bf16 => {
                type $T = BFloat;
                $body
            }
            FloatFormat::F32 => {
                type $T = Single;
                $body
            }
            FloatFormat::F64 => {
                type $T = Double;
                $body
            }
            f => unreachable!("no IEEE arithmetic on {f:?}"),
        }
    };
}

/// `a + b` in `fmt` (f16, bf16, f32 or f64), correctly rounded with `rnd` (not `.rs`).
pub fn add(fmt: &Fmt, a: u128, b: u128, rnd: Rnd) -> u128 {
    with_type!(fmt, T => T::from_bits(a).add_r(T::from_bits(b), apround(rnd)).value.to_bits())
}

/// `a − b` in `fmt` (f16, bf16, f32 or f64), correctly rounded with `rnd` (not `.rs`).
pub fn sub(fmt: &Fmt, a: u128, b: u128, rnd: Rnd) -> u128 {
    with_type!(fmt, T => T::from_bits(a).sub_r(T::from_bits(b), apround(rnd)).value.to_bits())
}

/// `a × b` in `fmt` (f16, bf16, f32 or f64), correctly rounded with `rnd` (not `.rs`).
pub fn mul(fmt: &Fmt, a: u128, b: u128, rnd: Rnd) -> u128 {
    with_type!(fmt, T => T::from_bits(a).mul_r(T::from_bits(b), apround(rnd)).value.to_bits())
}

/// `a × b + c` with one rounding.
pub fn fma(fmt: &Fmt, a: u128, b: u128, c: u128, rnd: Rnd) -> u128 {
    with_type!(fmt, T => T::from_bits(a).mul_add_r(T::from_bits(b), T::from_bits(c), apround(rnd)).value.to_bits())
}

/// `a / b` in `fmt` (f16, bf16, f32 or f64), correctly rounded with `rnd` (not `.rs`).
pub fn div(fmt: &Fmt, a: u128, b: u128, rnd: Rnd) -> u128 {
    with_type!(fmt, T => T::from_bits(a).div_r(T::from_bits(b), apround(rnd)).value.to_bits())
}

/// Rounds to an integral value in the same format (`cvt.rni.f32.f32`).
pub fn round_to_integral(fmt: &Fmt, a: u128, rnd: Rnd) -> u128 {
    with_type!(fmt, T => T::from_bits(a).round_to_integral(apround(rnd)).value.to_bits())
}

/// Converts between two IEEE formats (widening is exact).
pub fn convert(from: &Fmt, to: &Fmt, a: u128, rnd: Rnd) -> u128 {
    with_type!(from, A => with_type!(to, B => {
        let mut lost = false;
        let r: B = FloatConvert::<B>::convert_r(A::from_bits(a), apround(rnd), &mut lost).value;
        r.to_bits()
    }))
}

/// Converts an integer (given as sign and magnitude) to a float format.
pub fn from_int(to: &Fmt, neg: bool, mag: u128, rnd: Rnd) -> u128 {
    with_type!(to, T => {
        let v = T::from_u128_r(mag, if neg { -apround(rnd) } else { apround(rnd) }).value;
        (if neg { -v } else { v }).to_bits()
    })
}

/// `sqrt(a)`, correctly rounded (IEEE 754 §5.4.1): an integer square root of the significand,
/// scaled so at least two bits beyond the format's precision are computed, with the remainder
/// as sticky bit. Negative nonzero inputs and NaN give the canonical NaN; `sqrt(-0) = -0`.
pub fn sqrt(fmt: &Fmt, a: u128, rnd: Rnd) -> u128 {
    match fmt.decode(a) {
        Val::Nan => fmt.canonical_nan,
        Val::Inf { neg: false } => a,
        Val::Inf { neg: true } => fmt.canonical_nan,
        Val::Finite { sig: 0, .. } => a,
        Val::Finite { neg: true, .. } => fmt.canonical_nan,
        Val::Finite { sig, exp, .. } => {
            // Normalise the radicand to 2(p+2) or 2(p+2)+1 bits with an even exponent, so the
            // root has p+2 bits: enough for a correct round with the remainder as sticky.
            let p = fmt.man_bits as i32 + 1;
            let want = 2 * (p + 2);
            let len = 128 - (sig as u128).leading_zeros() as i32;
            let mut shift = want - len;
            if (exp - shift) % 2 != 0 {
                shift += 1;
            }
            let radicand = (sig as u128) << shift;
            let (root, rem) = isqrt(radicand);
            round(fmt, false, root, (exp - shift) / 2, rem != 0, rnd).bits
        }
    }
}

/// Integer square root: (⌊√n⌋, n − ⌊√n⌋²).
pub fn isqrt(n: u128) -> (u128, u128) {
    if n == 0 {
        return (0, 0);
    }
    // Bit-by-bit (restoring) method: exact for the whole u128 range.
    let mut rem = n;
    let mut root = 0u128;
    let mut bit = 1u128 << ((127 - n.leading_zeros()) & !1);
    while bit != 0 {
        if rem >= root + bit {
            rem -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    (root, rem)
}

#[cfg(test)]
mod tests {
    use super::super::format::*;
    use super::*;

    #[test]
    fn isqrt_is_exact() {
        for n in [
            0u128,
            1,
            2,
            3,
            4,
            15,
            16,
            17,
            u64::MAX as u128,
            u128::MAX,
            (1u128 << 126) + 5,
        ] {
            let (r, rem) = isqrt(n);
            assert!(r * r <= n && n - r * r == rem, "{n}");
            assert!(
                r.checked_add(1).and_then(|s| s.checked_mul(s)).is_none_or(|s| s > n),
                "{n}"
            );
        }
    }

    #[test]
    fn sqrt_rn_matches_the_host() {
        for x in [2.0f32, 0.5, 1e-40, 3.4e38, 1.0000001, 7.0, 1e-45] {
            assert_eq!(
                sqrt(&F32, x.to_bits() as u128, Rnd::Rn),
                x.sqrt().to_bits() as u128,
                "{x:e}"
            );
        }
        for x in [2.0f64, 5e-324, 1.7e308, 0.3] {
            assert_eq!(
                sqrt(&F64, x.to_bits() as u128, Rnd::Rn),
                x.sqrt().to_bits() as u128,
                "{x:e}"
            );
        }
        assert_eq!(sqrt(&F32, 0x8000_0000, Rnd::Rn), 0x8000_0000);
        assert!(F32.is_nan(sqrt(&F32, 0xbf80_0000, Rnd::Rn)));
    }

    #[test]
    fn apfloat_ops_match_the_host_in_rn() {
        let (a, b, c) = (1.1f32, 3.3e-39f32, -7.25f32);
        let bits = |x: f32| x.to_bits() as u128;
        assert_eq!(add(&F32, bits(a), bits(b), Rnd::Rn), bits(a + b));
        assert_eq!(mul(&F32, bits(a), bits(c), Rnd::Rn), bits(a * c));
        assert_eq!(div(&F32, bits(c), bits(a), Rnd::Rn), bits(c / a));
        assert_eq!(fma(&F32, bits(a), bits(c), bits(b), Rnd::Rn), bits(a.mul_add(c, b)));
        assert_eq!(convert(&F32, &F64, bits(a), Rnd::Rn), (a as f64).to_bits() as u128);
        assert_eq!(from_int(&F32, true, 16_777_217, Rnd::Rm), bits(-16_777_218.0));
        assert_eq!(round_to_integral(&F32, bits(2.5), Rnd::Rn), bits(2.0));
    }
}
