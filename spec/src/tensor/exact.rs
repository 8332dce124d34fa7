//! The tensor-core forms the manual (nearly) specifies: integer and single-bit `mma` (exact), and
//! f64 `mma` (a chain of FMAs whose order is unstated).

use crate::float::fast::fma_f64;
use crate::float::format::F64;
use crate::float::round::Rnd;
use crate::types::FloatFormat;
use crate::value::{Accept, Bound, ErrBound, Outcome};

/// The bit operation of single-bit `mma` (`.xor.popc`, `.and.popc`, L22898).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitOp {
    /// `.xor`.
    Xor,
    /// `.and`.
    And,
}

/// Integer `mma`: `c + Σ a_k × b_k` with an `.s32` accumulator (L22949-22953). Elements are
/// given as their (sign- or zero-extended) values. Without `.satfinite` the s32 result wraps
/// (the sum modulo 2^32, whatever the order); with it the accumulated value is clamped to
/// [INT32_MIN, INT32_MAX] "on overflow" (`wmma`: "the final value … is saturated",
/// L20906-20908). Interpretation: the clamp applies to the exact
/// `c + Σ` (no intermediate partial sum can overflow: |Σ products| ≤ K × 2^16 ≤ 2^23 for the
/// shapes PTX has, so only adding `c` can); the result is exact.
pub fn int_dot(a: &[i64], b: &[i64], c: i32, satfinite: bool) -> Outcome {
    let sum: i64 = a.iter().zip(b).map(|(x, y)| x * y).sum::<i64>() + c as i64;
    let d = if satfinite {
        sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32
    } else {
        sum as i32
    };
    Outcome::exact(d as u32 as u128)
}

/// Single-bit `mma` (L22898): "multiply" is `op` of A's k-bit row with B's k-bit column, then
/// the population count, added to C (s32, wrapping: the count is at most K = 256, so only `c`
/// near INT32_MAX can wrap). `a` and `b` hold one bit per element (bit 0).
pub fn b1_dot(op: BitOp, a: &[u128], b: &[u128], c: i32) -> Outcome {
    let count = a
        .iter()
        .zip(b)
        .filter(|(x, y)| match op {
            BitOp::Xor => (**x ^ **y) & 1 == 1,
            BitOp::And => (**x & **y) & 1 == 1,
        })
        .count() as i32;
    Outcome::exact(c.wrapping_add(count) as u32 as u128)
}

/// The f64 FMA chain in the order `ks`, starting from `c`.
fn chain(a: &[u128], b: &[u128], c: u64, ks: &[usize], rnd: Rnd) -> u64 {
    ks.iter().fold(c, |acc, &k| fma_f64(a[k] as u64, b[k] as u64, acc, rnd))
}

/// Every permutation of `0..n` (n ≤ 4 here: 24 at most).
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

/// f64 `mma` (L22937-22947): "element-wise multiply and add have the precision of an f64 fused
/// multiply-add", rounded per `.rn` (default) / `.rz` / `.rm` / `.rp`. The model is the chain
/// `d = fma(a_{K-1}, b_{K-1}, … fma(a_0, b_0, c))` in ascending k starting from `c` (MMA-Sim's
/// f64 model); each step is the spec's correctly rounded f64 FMA.
///
/// The manual does not state the order, so the acceptance set is:
/// - K ≤ 4 (`m8n8k4`, `m16n8k4`): the results of every order of the K FMAs starting from `c`
///   (enumerated: 24 orders at most); a NaN result of any order accepts every NaN.
/// - K > 4 (`m16n8k8`, `m16n8k16`): a bound. Each FMA step rounds once, with relative error
///   below δ = 2^-52 under any rounding direction, plus at most 2^-1074 absolute when the step
///   lands in the subnormal range; K steps in any order starting from `c` then differ from the
///   exact `c + Σ a_k b_k` by at most ((1+δ)^K − 1)·T + K·2^-1074 ≤ 2Kδ·T + K·2^-1074, with
///   T = |c| + Σ |a_k b_k| (every partial sum is at most T(1+δ)^K). The reference is computed in
///   f64 with K more roundings, so (K + 2)δT more are allowed. Where T overflows f64 (an Inf or
///   NaN can then come from the order alone) or an input is not finite, any value is accepted
///   unless every order agrees on the model's NaN or Inf (NaN: any NaN; Inf: exact).
pub fn f64_chain(a: &[u128], b: &[u128], c: u128, rnd: Rnd) -> Outcome {
    let k = a.len();
    let asc: Vec<usize> = (0..k).collect();
    let model = chain(a, b, c as u64, &asc, rnd);
    let fmodel = f64::from_bits(model);
    if k <= 4 {
        let mut others: Vec<u128> = Vec::new();
        let mut any_nan = false;
        for p in permutations(k) {
            let r = chain(a, b, c as u64, &p, rnd);
            any_nan |= f64::from_bits(r).is_nan();
            if r != model && !others.contains(&(r as u128)) {
                others.push(r as u128);
            }
        }
        if any_nan {
            // Some order gives a NaN (∞ − ∞ or a NaN input): NaN payloads are unspecified.
            if fmodel.is_nan() && others.iter().all(|&r| F64.is_nan(r)) {
                return Outcome::any_nan(FloatFormat::F64);
            }
            return Outcome {
                model: model as u128,
                accept: Accept::Any,
            };
        }
        if others.is_empty() {
            return Outcome::exact(model as u128);
        }
        return Outcome {
            model: model as u128,
            accept: Accept::OneOf(others),
        };
    }
    let fa = |i: usize| f64::from_bits(a[i] as u64);
    let fb = |i: usize| f64::from_bits(b[i] as u64);
    let fc = f64::from_bits(c as u64);
    let finite = fc.is_finite() && (0..k).all(|i| fa(i).is_finite() && fb(i).is_finite());
    let t: f64 = fc.abs() + (0..k).map(|i| (fa(i) * fb(i)).abs()).sum::<f64>();
    if !finite || !t.is_finite() {
        if fmodel.is_nan() && !finite {
            return Outcome::any_nan(FloatFormat::F64);
        }
        return Outcome {
            model: model as u128,
            accept: Accept::Any,
        };
    }
    let reference: f64 = fc + (0..k).map(|i| fa(i) * fb(i)).sum::<f64>();
    let delta = f64::EPSILON; // 2^-52
    let kk = k as f64;
    let allow = ((2.0 * kk + kk + 2.0) * delta * t + kk * f64::from_bits(1)) * (1.0 + 1e-9);
    Outcome {
        model: model as u128,
        accept: bound(FloatFormat::F64, reference, allow),
    }
}

/// An absolute bound `allow` around `reference` as a [`Bound`]: everything within `allow`
/// (rounded up a little: the bound is stored as a base-2 logarithm).
pub(crate) fn bound(format: FloatFormat, reference: f64, allow: f64) -> Accept {
    if allow <= 0.0 {
        return Accept::Exact;
    }
    Accept::Bound(Bound {
        format,
        reference,
        err: ErrBound::Abs {
            log2: allow.log2() + 1e-9,
        },
        ftz: false,
        zero_bits: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f64) -> u128 {
        x.to_bits() as u128
    }

    #[test]
    fn integer_wraps_or_clamps() {
        assert_eq!(int_dot(&[2, -3], &[5, 7], 1, false).model, (-10i32) as u32 as u128);
        assert_eq!(int_dot(&[1], &[1], i32::MAX, false).model, i32::MIN as u32 as u128);
        assert_eq!(int_dot(&[1], &[1], i32::MAX, true).model, i32::MAX as u32 as u128);
        assert_eq!(int_dot(&[-128], &[127], i32::MIN, true).model, i32::MIN as u32 as u128);
    }

    #[test]
    fn b1_popc() {
        let a = [1, 0, 1, 1];
        let b = [1, 1, 0, 1];
        assert_eq!(b1_dot(BitOp::Xor, &a, &b, 10).model, 12);
        assert_eq!(b1_dot(BitOp::And, &a, &b, 10).model, 12);
        assert_eq!(b1_dot(BitOp::And, &a, &[0, 0, 0, 0], -1).model, u32::MAX as u128);
    }

    #[test]
    fn f64_orders() {
        // c = 1, products 2^53 and −2^53: ascending gives fma(…)= 1 + 2^53 → 2^53 (RN, tie to
        // even), then − 2^53 → 0; the other order gives 1 − 2^53 → −2^53 + ... = exact 1.
        let big = f(2f64.powi(53));
        let one = f(1.0);
        let m1 = f(-1.0);
        let d = f64_chain(&[big, big], &[one, m1], one, Rnd::Rn);
        assert_eq!(d.model, f(0.0));
        assert!(d.accepts(f(1.0)) && !d.accepts(f(2.0)));
        // Exact products: every order agrees.
        let e = f64_chain(&[f(2.0), f(3.0)], &[f(4.0), f(5.0)], f(1.0), Rnd::Rn);
        assert_eq!((e.model, e.accept), (f(24.0), Accept::Exact));
        // K = 8: the bound; the model is exact here.
        let a: Vec<u128> = (1..=8).map(|i| f(i as f64)).collect();
        let g = f64_chain(&a, &a, f(0.5), Rnd::Rz);
        assert_eq!(g.model, f(204.5));
        assert!(g.accepts(f(204.5)) && !g.accepts(f(204.5 + 1e-9)));
        // NaN from Inf − Inf in every order.
        let inf = f(f64::INFINITY);
        let n = f64_chain(&[inf, inf], &[one, m1], one, Rnd::Rn);
        assert!(n.accepts(F64.canonical_nan) && n.accepts(0xfff8_0000_0000_0000));
    }

    #[test]
    fn f64_rounding_modes_apply_per_step() {
        // 1 + 2^-60 under .rp rounds up to 1 + 2^-52; under .rn/.rz/.rm to 1.
        let d = f64_chain(&[f(2f64.powi(-30))], &[f(2f64.powi(-30))], f(1.0), Rnd::Rp);
        assert_eq!(d.model, f(1.0 + f64::EPSILON));
        let d = f64_chain(&[f(2f64.powi(-30))], &[f(2f64.powi(-30))], f(1.0), Rnd::Rz);
        assert_eq!(d.model, f(1.0));
    }
}
