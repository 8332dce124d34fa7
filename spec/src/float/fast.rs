//! Host-FPU fast paths for f32 and f64 `add sub mul fma div sqrt` in `.rn .rz .rm .rp`,
//! returning the soft path's ([`super::ieee`]) bits for every numeric result, and a NaN exactly
//! where the soft path returns one (NaN bits carry no meaning on either path: callers apply
//! PTX's NaN rules). `tests/fp.rs` checks this for every operation and mode on 10^5 random and
//! hard operand sets each.
//!
//! Why the host can be trusted:
//! - `.rn`: the host's `+ - * / sqrt` on `f32`/`f64` are IEEE 754 basic operations, correctly
//!   rounded to nearest even, subnormals included (Rust runs in the default floating-point
//!   environment: no flush-to-zero, no denormals-are-zero). `mul_add` is IEEE's
//!   fusedMultiplyAdd: the FMA instruction where the CPU has one (x86-64 checks at run time,
//!   see `with_fma!`; aarch64 always has it), otherwise a library `fma`/`fmaf` (Rust's
//!   compiler-builtins port of musl's libm, or the C library's), correctly rounded too.
//! - `.rz .rm .rp`: the directed result is the nearest-even result `r` or its neighbour, chosen
//!   by the sign of the exact error `exact − r` (`step`). The error comes from an error-free
//!   transformation, used only where its preconditions hold:
//!   * f32: an f32 product is exact in f64 (24 + 24 ≤ 53 bits, exponents −298..256) and the
//!     f64 TwoSum of two such values is exact, so `a + b`, `a × b` and `a × b + c` are held
//!     exactly as an f64 pair `s + e` (`round_pair_f32`); a quotient `q` and a root `s` are
//!     checked through `q × b` and `s × s`, exact in f64. Every f32 input is covered.
//!   * f64: Fast2Sum for add (exact whenever `RN(a + b)` is finite); the sign of
//!     `fma(a, b, −p)` for mul, of the remainder `fma(−q, b, a)` for div and of `fma(−s, s, a)`
//!     for sqrt, the operands scaled by a power of two (exactly) where the error would fall
//!     below the subnormal grid (`PROD_QUANTUM`); for fma the sign of the expansion
//!     `u1 + u2 + c − r` (`expansion_sign`). Where a precondition may still fail (an fma with
//!     |a × b| or |c| ≥ 2^1020), and for other rounding modes, the soft path answers.

use super::format::{F32, F64};
use super::ieee;
use super::round::Rnd;

/// `.rn .rz .rm .rp`: what the fast path computes; other modes go to the soft path.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Nearest,
    Directed,
    Other,
}

#[inline(always)]
fn mode(rnd: Rnd) -> Mode {
    match rnd {
        Rnd::Rn => Mode::Nearest,
        Rnd::Rz | Rnd::Rm | Rnd::Rp => Mode::Directed,
        _ => Mode::Other,
    }
}

/// The directed result from the nearest-even result `r` (sign-magnitude bits, sign `neg`) and
/// `m`, whose sign says where the exact value lies in magnitude (`m > 0`: |exact| > |r|;
/// 0 or NaN: exact), for an exact value strictly between `r`'s two neighbours (so the answer
/// is `r` or one of them). A mode that rounds the magnitude up (`.rp` of a
/// positive, `.rm` of a negative) takes the next magnitude when |exact| > |r|; the others take
/// the previous one when |exact| < |r|. Bits ± 1 is the neighbouring magnitude across
/// binades, from ±0 up to ±Inf (an overflowed `r = Inf` steps down to MAX_NORM).
#[inline(always)]
fn step(r: u64, neg: bool, m: f64, rnd: Rnd) -> u64 {
    let away = match rnd {
        Rnd::Rp => !neg,
        Rnd::Rm => neg,
        _ => false,
    };
    r + (away && m > 0.0) as u64 - (!away && m < 0.0) as u64
}

/// `sigma` (with the sign of `exact − r`) turned into a magnitude comparison for `step`:
/// negated when `r` is negative.
#[inline(always)]
fn toward_r(sigma: f64, neg: bool) -> f64 {
    f64::from_bits(sigma.to_bits() ^ ((neg as u64) << 63))
}

/// Knuth's TwoSum: `s + e == a + b` exactly with `s = RN(a + b)`, for finite `a`, `b` whose
/// intermediate sums do not overflow (gradual underflow keeps it exact).
#[inline(always)]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// The sign of an exact zero sum (IEEE 754 §6.3): `x + y` of zeros of one sign keeps it; any
/// other exact zero is +0, or −0 under `.rm`. `host` is the host's round-to-nearest zero, which
/// follows the rule for every mode but `.rm`; `both_pos_zero` says both addends were +0, the
/// only case where `.rm` still gives +0.
#[inline(always)]
fn zero_sum(host: u64, neg_zero: u64, both_pos_zero: bool, rnd: Rnd) -> u64 {
    if rnd == Rnd::Rm && !both_pos_zero {
        neg_zero
    } else {
        host
    }
}

/// Runs `$body` compiled with the FMA instruction where the CPU has it: `mul_add` is then one
/// instruction, not a library call. The check is a load of std's cached CPUID bits.
macro_rules! with_fma {
    ($(#[$m:meta])* pub fn $name:ident($($a:ident: $t:ty),*) -> $r:ty => $body:ident) => {
        $(#[$m])*
        #[inline]
        pub fn $name($($a: $t),*) -> $r {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "fma")]
                fn hw($($a: $t),*) -> $r {
                    $body($($a),*)
                }
                if std::arch::is_x86_feature_detected!("fma") {
                    // SAFETY: `hw` only needs the FMA extension, which the CPU was just found
                    // to have.
                    return unsafe { hw($($a),*) };
                }
            }
            $body($($a),*)
        }
    };
}

// ---------------------------------------------------------------------------------------------
// f32

fn soft32(r: u128) -> u32 {
    r as u32
}

/// Rounds the exact value `s + e` (an f64 pair with `s = RN64(s + e)`, `s` finite and nonzero)
/// to f32 in a directed mode. `r = RN32(s)` is within half an f32 gap of `s`, and `|e|` is far
/// below that, so the answer is `r` or its neighbour. `d = s − r` is exact (Sterbenz: `r` is
/// within a factor 2 of `s`; an overflowed `r = ±Inf` gives `d = ∓Inf`, of the right sign);
/// `d` is a multiple of `s`'s f64 ulp and `|e|` at most half of it, so `exact − r` has the sign
/// of `d` when `d ≠ 0`, else of `e`.
#[inline(always)]
fn round_pair_f32(s: f64, e: f64, rnd: Rnd) -> u32 {
    let r = s as f32;
    let d = s - r as f64;
    let sigma = if d != 0.0 { d } else { e };
    let rb = r.to_bits();
    let neg = rb >> 31 != 0;
    step(rb as u64, neg, toward_r(sigma, neg), rnd) as u32
}

/// The directed f32 sum of two f64 values on the grid of f32 products (f32 values included):
/// TwoSum holds it exactly (|addends| ≤ 2^256, no overflow), and a zero `s` is an exact zero.
#[inline(always)]
fn sum_f32(p: f64, c: f64, both_pos_zero: bool, rnd: Rnd) -> u32 {
    let (s, e) = two_sum(p, c);
    if s == 0.0 {
        return zero_sum(s.to_bits() >> 32, 0x8000_0000, both_pos_zero, rnd) as u32;
    }
    round_pair_f32(s, e, rnd)
}

/// f32 `a + b`, as [`ieee::add`] on [`F32`].
#[inline]
pub fn add_f32(a: u32, b: u32, rnd: Rnd) -> u32 {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    match mode(rnd) {
        Mode::Nearest => (x + y).to_bits(),
        // ±Inf operands: ±Inf exactly (or NaN) in every mode.
        Mode::Directed if !(x.is_finite() && y.is_finite()) => (x + y).to_bits(),
        Mode::Directed => sum_f32(x as f64, y as f64, a == 0 && b == 0, rnd),
        Mode::Other => soft32(ieee::add(&F32, a as u128, b as u128, rnd)),
    }
}

/// f32 `a − b`, as [`ieee::sub`] on [`F32`]: `a + (−b)`, exactly.
#[inline]
pub fn sub_f32(a: u32, b: u32, rnd: Rnd) -> u32 {
    add_f32(a, b ^ 0x8000_0000, rnd)
}

/// f32 `a × b`, as [`ieee::mul`] on [`F32`]. Directed: the product is exact in f64, so one
/// rounding of it is the rounding of the true product; a zero or infinite product is exact.
#[inline]
pub fn mul_f32(a: u32, b: u32, rnd: Rnd) -> u32 {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    match mode(rnd) {
        Mode::Nearest => (x * y).to_bits(),
        Mode::Directed => {
            let p = x as f64 * y as f64;
            if p == 0.0 || !p.is_finite() {
                return (p as f32).to_bits();
            }
            round_pair_f32(p, 0.0, rnd)
        }
        Mode::Other => soft32(ieee::mul(&F32, a as u128, b as u128, rnd)),
    }
}

#[inline(always)]
fn fma_f32_body(a: u32, b: u32, c: u32, rnd: Rnd) -> u32 {
    let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
    match mode(rnd) {
        Mode::Nearest => x.mul_add(y, z).to_bits(),
        Mode::Directed => {
            let p = x as f64 * y as f64;
            if p.is_finite() && z.is_finite() {
                // "Both +0": a zero product's sign is the XOR of a's and b's, exactly.
                return sum_f32(p, z as f64, p.to_bits() == 0 && c == 0, rnd);
            }
            // An infinite operand: ±Inf exactly, or NaN.
            ((p + z as f64) as f32).to_bits()
        }
        Mode::Other => soft32(ieee::fma(&F32, a as u128, b as u128, c as u128, rnd)),
    }
}

with_fma! {
    /// f32 `a × b + c` with one rounding, as [`ieee::fma`] on [`F32`]. Directed: the product
    /// is exact in f64 and TwoSum adds `c` exactly.
    pub fn fma_f32(a: u32, b: u32, c: u32, rnd: Rnd) -> u32 => fma_f32_body
}

/// f32 `a / b`, as [`ieee::div`] on [`F32`]. Directed: for the nearest-even quotient `q`,
/// |a/b| against |q| is |a| against |q × b|, and `q × b` is exact in f64; the sign of their
/// rounded difference is exact. Zero, infinite and overflowed quotients come out right too:
/// `q × b` is NaN (∞ × 0: an exact quotient, no step), or Inf or 0 against a finite `a`.
#[inline]
pub fn div_f32(a: u32, b: u32, rnd: Rnd) -> u32 {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    let q = x / y;
    match mode(rnd) {
        Mode::Nearest => q.to_bits(),
        Mode::Directed => {
            let m = (x as f64).abs() - (q as f64 * y as f64).abs();
            let qb = q.to_bits();
            step(qb as u64, qb >> 31 != 0, m, rnd) as u32
        }
        Mode::Other => soft32(ieee::div(&F32, a as u128, b as u128, rnd)),
    }
}

/// f32 `sqrt(a)`, as [`ieee::sqrt`] on [`F32`]. Directed: `sqrt(a)` against the nearest-even
/// root `s` is `|a|` against `s × s`, exact in f64 (`sqrt(−0) = −0`, where both are 0).
#[inline]
pub fn sqrt_f32(a: u32, rnd: Rnd) -> u32 {
    let x = f32::from_bits(a);
    let s = x.sqrt();
    match mode(rnd) {
        Mode::Nearest => s.to_bits(),
        Mode::Directed => {
            let s64 = s as f64;
            step(s.to_bits() as u64, false, (x as f64).abs() - s64 * s64, rnd) as u32
        }
        Mode::Other => soft32(ieee::sqrt(&F32, a as u128, rnd)),
    }
}

// ---------------------------------------------------------------------------------------------
// f64

fn soft64(r: u128) -> u64 {
    r as u64
}

/// The biased exponent field of an f64.
#[inline(always)]
fn bexp(x: u64) -> u64 {
    (x >> 52) & 0x7ff
}

/// The exponent of an f64's last place, biased like the exponent field: max(field, 1) (a
/// subnormal's last place is that of the smallest normal).
#[inline(always)]
fn quantum(x: u64) -> u64 {
    bexp(x).max(1)
}

/// `FMA_BIG` = 2043 is 2^1020: with |RN(a × b)|, |c| < 2^1020 every partial sum of the fma
/// expansion (of four terms each below 2^1021) stays below 2^1023.
const FMA_BIG: u64 = 2043;

/// The grid condition of the f64 error terms. Every finite f64 `x` is a multiple of
/// 2^(quantum(x) − 1075), so with quantum(x) + quantum(y) ≥ 1076 the product `x × y` lies on the
/// 2^-1074 grid of the smallest subnormal, and so do `x × y − p` for a rounded product `p`, the
/// remainder `a − q × b` of a quotient (`a` is on that grid too) and `a − s × s` of a root. A
/// nonzero value on that grid is at least 2^-1074, so the correctly rounded `fma` computing it
/// is nonzero with its sign: the sign of the error comes out exactly (and the error itself too,
/// all these being below 2^53 grid steps, though only the sign is used).
const PROD_QUANTUM: u64 = 1076;

/// `x × 2^k` for 0 ≤ k ≤ 2046, exact while it stays finite (scaling up never rounds).
#[inline(always)]
fn scale_up(x: f64, k: u64) -> f64 {
    let h = k / 2;
    x * f64::from_bits((1023 + h) << 52) * f64::from_bits((1023 + k - h) << 52)
}

/// How far to scale an operand up so that a product's grid condition (`PROD_QUANTUM`) holds.
/// Scaling `x` by 2^k moves its grid to 2^(quantum(x) + k − 1075).
#[inline(always)]
fn grid_shift(x: u64, y: u64) -> u64 {
    PROD_QUANTUM.saturating_sub(quantum(x) + quantum(y))
}

/// f64 `a + b`, as [`ieee::add`] on [`F64`]. Directed: Fast2Sum, with the larger magnitude
/// first (Dekker): `b − (s − a)` is the exact error of `s = RN(a + b)` whenever `s` is finite;
/// an overflowed `s = ±Inf` (finite operands) steps to MAX_NORM where the mode says so.
#[inline]
pub fn add_f64(a: u64, b: u64, rnd: Rnd) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let r = x + y;
    match mode(rnd) {
        Mode::Nearest => r.to_bits(),
        // NaN, or ±Inf from an Inf operand: exact.
        Mode::Directed if r.is_nan() || x.is_infinite() || y.is_infinite() => r.to_bits(),
        Mode::Directed => {
            let neg = r.is_sign_negative();
            if r.is_infinite() {
                return step(r.to_bits(), neg, -1.0, rnd);
            }
            if r == 0.0 {
                return zero_sum(r.to_bits(), 1 << 63, a == 0 && b == 0, rnd);
            }
            let (big, small) = if x.abs() >= y.abs() { (x, y) } else { (y, x) };
            let e = small - (r - big);
            step(r.to_bits(), neg, toward_r(e, neg), rnd)
        }
        Mode::Other => soft64(ieee::add(&F64, a as u128, b as u128, rnd)),
    }
}

/// f64 `a − b`, as [`ieee::sub`] on [`F64`]: `a + (−b)`, exactly.
#[inline]
pub fn sub_f64(a: u64, b: u64, rnd: Rnd) -> u64 {
    add_f64(a, b ^ (1 << 63), rnd)
}

#[inline(always)]
fn mul_f64_body(a: u64, b: u64, rnd: Rnd) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let r = x * y;
    match mode(rnd) {
        Mode::Nearest => r.to_bits(),
        // NaN, ±0 or ±Inf from a zero or infinite operand: exact.
        Mode::Directed if r.is_nan() || x == 0.0 || y == 0.0 || x.is_infinite() || y.is_infinite() => r.to_bits(),
        Mode::Directed => {
            // sign(a × b − r) = sign(a 2^k × b − r 2^k): both scalings exact (|a × b| < 2^-968
            // when k > 0, so nothing overflows). An overflowed `r = ±Inf` (k = 0) gives
            // `e = ∓Inf`, which steps to MAX_NORM where the mode says so.
            let k = grid_shift(a, b);
            let e = if k == 0 {
                x.mul_add(y, -r)
            } else {
                scale_up(x, k).mul_add(y, -scale_up(r, k))
            };
            let neg = r.is_sign_negative();
            step(r.to_bits(), neg, toward_r(e, neg), rnd)
        }
        Mode::Other => soft64(ieee::mul(&F64, a as u128, b as u128, rnd)),
    }
}

with_fma! {
    /// f64 `a × b`, as [`ieee::mul`] on [`F64`]: the sign of the error `fma(a, b, −p)` of the
    /// rounded product `p` (see `PROD_QUANTUM`).
    pub fn mul_f64(a: u64, b: u64, rnd: Rnd) -> u64 => mul_f64_body
}

#[inline(always)]
fn div_f64_body(a: u64, b: u64, rnd: Rnd) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let q = x / y;
    let qb = q.to_bits();
    let neg = qb >> 63 != 0;
    match mode(rnd) {
        Mode::Nearest => qb,
        // NaN, 0/b, a/0, ∞/b, a/∞: NaN, ±0 or ±Inf exactly.
        Mode::Directed if q.is_nan() || x == 0.0 || y == 0.0 || x.is_infinite() || y.is_infinite() => qb,
        // Finite nonzero operands: an overflowed quotient lies beyond MAX_NORM, an underflowed
        // zero above 0 in magnitude.
        Mode::Directed if q.is_infinite() => step(qb, neg, -1.0, rnd),
        Mode::Directed if q == 0.0 => step(qb, neg, 1.0, rnd),
        Mode::Directed => {
            // exact − q = (a − q × b) / b; scaling a and b alike leaves q, and puts q × b on the
            // subnormal grid (a 2^k stays below 2^54 when k > 0: |q × b 2^k| < 2^54).
            let k = grid_shift(qb, b);
            let (xs, ys) = if k == 0 {
                (x, y)
            } else {
                (scale_up(x, k), scale_up(y, k))
            };
            let rem = (-q).mul_add(ys, xs);
            step(qb, neg, toward_r(if y < 0.0 { -rem } else { rem }, neg), rnd)
        }
        Mode::Other => soft64(ieee::div(&F64, a as u128, b as u128, rnd)),
    }
}

with_fma! {
    /// f64 `a / b`, as [`ieee::div`] on [`F64`]: the sign of the remainder `a − q × b`
    /// (see `PROD_QUANTUM`).
    pub fn div_f64(a: u64, b: u64, rnd: Rnd) -> u64 => div_f64_body
}

#[inline(always)]
fn sqrt_f64_body(a: u64, rnd: Rnd) -> u64 {
    let x = f64::from_bits(a);
    match mode(rnd) {
        Mode::Nearest => x.sqrt().to_bits(),
        // NaN, ±0, +Inf, negatives: exact (or NaN).
        Mode::Directed if x.is_nan() || x == 0.0 || x.is_infinite() || x < 0.0 => x.sqrt().to_bits(),
        Mode::Directed => {
            // For a < 2^-969 (quantum(s) < 538) `s × s` could fall off the subnormal grid:
            // scale by 2^110 (exact), whose root 2^55 scales back exactly, the root of any
            // positive f64 being normal.
            let small = bexp(a) < 54;
            let xs = if small { scale_up(x, 110) } else { x };
            let s = xs.sqrt();
            let r = step(s.to_bits(), false, (-s).mul_add(s, xs), rnd);
            if small {
                (f64::from_bits(r) * f64::from_bits((1023 - 55) << 52)).to_bits()
            } else {
                r
            }
        }
        Mode::Other => soft64(ieee::sqrt(&F64, a as u128, rnd)),
    }
}

with_fma! {
    /// f64 `sqrt(a)`, as [`ieee::sqrt`] on [`F64`]: `a − s × s` has the sign of
    /// `sqrt(a) − s`.
    pub fn sqrt_f64(a: u64, rnd: Rnd) -> u64 => sqrt_f64_body
}

/// The sign of `u1 + u2 + c − r` (an f64 of that sign; 0 for zero), exactly: `[u2, u1]` is a
/// nonoverlapping expansion (u2 is u1's rounding error), and Shewchuk's Grow-Expansion
/// ("Adaptive Precision Floating-Point Arithmetic", 1997, Theorem 10) adds `c`, then `−r`, by
/// TwoSums, keeping a nonoverlapping expansion in increasing magnitude (zeros aside), whose
/// sign is that of its largest nonzero component. Requires no overflow in the TwoSums.
#[inline(always)]
fn expansion_sign(u1: f64, u2: f64, c: f64, r: f64) -> f64 {
    let (q, h0) = two_sum(c, u2);
    let (h2, h1) = two_sum(q, u1);
    let (q, g0) = two_sum(-r, h0);
    let (q, g1) = two_sum(q, h1);
    let (g3, g2) = two_sum(q, h2);
    if g3 != 0.0 {
        g3
    } else if g2 != 0.0 {
        g2
    } else if g1 != 0.0 {
        g1
    } else {
        g0
    }
}

#[inline(always)]
fn fma_f64_body(a: u64, b: u64, c: u64, rnd: Rnd) -> u64 {
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    let r = x.mul_add(y, z);
    match mode(rnd) {
        Mode::Nearest => r.to_bits(),
        // NaN, or ±Inf from an infinite operand: exact.
        Mode::Directed if r.is_nan() || x.is_infinite() || y.is_infinite() || z.is_infinite() => r.to_bits(),
        // ±0 + c = c for a nonzero c, exactly.
        Mode::Directed if (x == 0.0 || y == 0.0) && z != 0.0 => c,
        // a × b + ±0 with a nonzero product is the rounded product.
        Mode::Directed if z == 0.0 && x != 0.0 && y != 0.0 => mul_f64_body(a, b, rnd),
        Mode::Directed if x != 0.0 && y != 0.0 => {
            // sign(a × b + c − r) = sign(a 2^k × b + c 2^k − r 2^k), all three scalings exact
            // while they stay below the bounds checked next.
            let k = grid_shift(a, b);
            let (xs, zs, rs) = if k == 0 {
                (x, z, r)
            } else {
                (scale_up(x, k), scale_up(z, k), scale_up(r, k))
            };
            let u1 = xs * y;
            if bexp(u1.to_bits()) >= FMA_BIG || bexp(zs.to_bits()) >= FMA_BIG {
                return soft64(ieee::fma(&F64, a as u128, b as u128, c as u128, rnd));
            }
            let u2 = xs.mul_add(y, -u1);
            let sigma = expansion_sign(u1, u2, zs, rs);
            if r == 0.0 && sigma == 0.0 {
                // An exact cancellation of two nonzero addends.
                return zero_sum(r.to_bits(), 1 << 63, false, rnd);
            }
            // (A zero `r` of an inexact sum carries the exact value's sign.)
            let neg = r.is_sign_negative();
            step(r.to_bits(), neg, toward_r(sigma, neg), rnd)
        }
        _ => soft64(ieee::fma(&F64, a as u128, b as u128, c as u128, rnd)),
    }
}

with_fma! {
    /// f64 `a × b + c` with one rounding, as [`ieee::fma`] on [`F64`].
    pub fn fma_f64(a: u64, b: u64, c: u64, rnd: Rnd) -> u64 => fma_f64_body
}
