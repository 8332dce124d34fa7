//! Berkeley SoftFloat 3 as the reference of PTX's IEEE operations: the forms checked, SoftFloat's
//! answer for a form and its operands (computed independently of the spec), and the verdict on the
//! spec's outcome. Shared by `generators/tests/softfloat.rs` (`mod softfloat_ref;`) and the
//! `spec_vs_softfloat` fuzz target's body `fuzz/bodies/spec_vs_softfloat.rs` (`#[path]`).
//!
//! The reference:
//! - IEEE results come from SoftFloat (`softfloat-wrapper`), with the rounding mode as argument;
//! - `.ftz` is a layer around SoftFloat: subnormal inputs of the flushed format become signed
//!   zeros, and a result whose encoding is subnormal becomes a signed zero, as does one whose
//!   exact value is below the smallest normal number (tininess before rounding, the spec's
//!   model; the after-rounding value is also in its set); on cvt it applies to the `.f32` side
//!   only (L13856), after rounding;
//! - `.sat` clamps the final result to [+0.0, 1.0], NaN and −0.0 to +0.0 (L7141, L7590);
//! - float→int is SoftFloat's round-to-integral followed by clamping the exact integer to the
//!   destination range (PTX saturates, L13818; SoftFloat's own out-of-range results are not
//!   PTX's), NaN → PTX ISA 9.0's value (0, or the destination's top bit from an f64 source or
//!   into 64 bits; [`float_to_int`]);
//! - bf16 sources are widened exactly to f32 (a bf16 is the top half of an f32); bf16 results do
//!   not go through SoftFloat (its BF16 type rounds through f32 twice): they are computed exactly
//!   in f64 (a product of two bf16 values is exact, a sum is exact as TwoSum's pair) and rounded by
//!   [`round_to`], a small rounding function written here and checked against SoftFloat on
//!   f16/f32 by the SoftFloat test's self-checks;
//! - mixed precision (`add.f32.bf16`) widens the f16/bf16 operands exactly to f32 and rounds once
//!   in f32.
//!
//! Verdict ([`verdict`]): a non-NaN reference must equal the spec's model and be accepted. A NaN
//! reference of an f16/bf16/f32 result (an unspecified NaN, L7141) needs a NaN model and
//! acceptance of SoftFloat's NaN. An f64 NaN result with NaN inputs must be one of the quieted
//! input NaNs (NaN payloads propagate, L7141; for `cvt.ftz.f64.f32` also the widened canonical
//! f32 NaN, the H200's) and SoftFloat's result must be accepted when it is
//! one of them (it is not for fma(0, ∞, NaN), where SoftFloat's x86 flavour returns its default
//! NaN); an f64 NaN made from non-NaN operands (∞−∞, 0×∞) only needs to be a NaN. Packed results
//! are judged lane by lane, then as a whole by `Outcome::accepts`.

use generators::float::{IntType, Layout};
use softfloat_wrapper::{Float, RoundingMode, F16, F32, F64};
use spec::float::Fmt;
use spec::types::FloatFormat;
use spec::value::{Outcome, Outcomes};
use std::cmp::Ordering;

// ---------------------------------------------------------------------------------------------
// Types, rounding modes, operations.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fp {
    F16,
    Bf16,
    F32,
    F64,
}

impl Fp {
    /// The spec's description of the format (read through [`Layout`] here).
    pub fn format(self) -> &'static Fmt {
        Fmt::of([FloatFormat::F16, FloatFormat::Bf16, FloatFormat::F32, FloatFormat::F64][self as usize])
    }
    pub fn name(self) -> &'static str {
        ["f16", "bf16", "f32", "f64"][self as usize]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    F(Fp),
    I(IntType),
}

impl Ty {
    pub fn name(self) -> String {
        match self {
            Ty::F(f) => f.name().to_string(),
            Ty::I(t) => format!("{}{}", if t.signed { 's' } else { 'u' }, t.bits),
        }
    }
    pub fn width(self) -> u32 {
        match self {
            Ty::F(f) => f.format().width(),
            Ty::I(t) => t.bits,
        }
    }
}

pub const INTS: [IntType; 8] = [
    IntType::new(8, false),
    IntType::new(16, false),
    IntType::new(32, false),
    IntType::new(64, false),
    IntType::new(8, true),
    IntType::new(16, true),
    IntType::new(32, true),
    IntType::new(64, true),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    N,
    Z,
    M,
    P,
}

pub const RNDS: [Rnd; 4] = [Rnd::N, Rnd::Z, Rnd::M, Rnd::P];

impl Rnd {
    pub fn sf(self) -> RoundingMode {
        match self {
            Rnd::N => RoundingMode::TiesToEven,
            Rnd::Z => RoundingMode::TowardZero,
            Rnd::M => RoundingMode::TowardNegative,
            Rnd::P => RoundingMode::TowardPositive,
        }
    }
    /// The float rounding modifier (`rn`).
    pub fn frnd(self) -> &'static str {
        ["rn", "rz", "rm", "rp"][self as usize]
    }
    /// The integer rounding modifier (`rni`).
    pub fn irnd(self) -> &'static str {
        ["rni", "rzi", "rmi", "rpi"][self as usize]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Sqrt,
    Rcp,
}

impl Op {
    pub fn arity(self) -> usize {
        match self {
            Op::Sqrt | Op::Rcp => 1,
            Op::Fma => 3,
            _ => 2,
        }
    }
}

/// The rounded arithmetic opcodes and their operations (`mad` is `fma`): the four of f16 and bf16
/// first, `.sat`'s five, then div, sqrt, rcp.
pub const OPS: [(&str, Op); 8] = [
    ("add", Op::Add),
    ("sub", Op::Sub),
    ("mul", Op::Mul),
    ("fma", Op::Fma),
    ("mad", Op::Fma),
    ("div", Op::Div),
    ("sqrt", Op::Sqrt),
    ("rcp", Op::Rcp),
];

/// 1.0.
pub fn one(f: &Fmt) -> u64 {
    f.encode(false, f.bias() as u64, 0)
}

/// Subnormals to signed zeros (`.ftz`).
pub fn flush(f: &Fmt, x: u64) -> u64 {
    if f.is_subnormal(x.into()) {
        x & f.sign_mask()
    } else {
        x
    }
}

/// `.sat`: [+0.0, 1.0], NaN and −0.0 to +0.0 (L7141, L7590; the spec may accept −0.0 too, but its
/// model must be +0.0).
pub fn saturate(f: &Fmt, x: u64) -> u64 {
    if f.is_nan(x.into()) || f.sign(x) {
        0
    } else {
        x.min(one(f)) // positive encodings order like their values
    }
}

/// A NaN quieted, keeping its payload, as every operation returns it; other values as they are.
fn quiet(f: &Fmt, x: u64) -> u64 {
    if f.is_nan(x.into()) {
        x | f.quiet_bit()
    } else {
        x
    }
}

/// A quiet NaN of the format (any NaN does for the expectation of an unspecified NaN).
fn qnan(f: &Fmt) -> u64 {
    f.encode(false, f.exp_all_ones(), f.quiet_bit())
}

/// A bf16 as the f32 it is the top half of (exact); NaNs stay NaNs.
fn bf16_to_f32(x: u64) -> u64 {
    (x & 0xffff) << 16
}

// ---------------------------------------------------------------------------------------------
// SoftFloat references.

/// `$body` with `$T` the SoftFloat type of `$fp` and `$P` its bits' integer type.
macro_rules! with_fp {
    ($fp:expr, $T:ident, $P:ident, $body:expr) => {
        match $fp {
            Fp::F16 => {
                type $T = F16;
                #[allow(dead_code)]
                type $P = u16;
                $body
            }
            Fp::F32 => {
                type $T = F32;
                #[allow(dead_code)]
                type $P = u32;
                $body
            }
            Fp::F64 => {
                type $T = F64;
                #[allow(dead_code)]
                type $P = u64;
                #[allow(clippy::unnecessary_cast)]
                let out = $body;
                out
            }
            Fp::Bf16 => unreachable!("bf16 does not go through SoftFloat's own bf16"),
        }
    };
}

pub fn sf_arith(op: Op, fp: Fp, r: Rnd, x: &[u64]) -> u64 {
    let rm = r.sf();
    with_fp!(fp, T, P, {
        let v = |i: usize| T::from_bits(x[i] as P);
        let out = match op {
            Op::Add => v(0).add(v(1), rm),
            Op::Sub => v(0).sub(v(1), rm),
            Op::Mul => v(0).mul(v(1), rm),
            Op::Fma => v(0).fused_mul_add(v(1), v(2), rm),
            Op::Div => v(0).div(v(1), rm),
            Op::Sqrt => v(0).sqrt(rm),
            Op::Rcp => T::from_u8(1, rm).div(v(0), rm),
        };
        out.to_bits() as u64
    })
}

/// SoftFloat's conversion of an integer value to f16/f32/f64.
pub fn sf_from_int(fp: Fp, v: i128, r: Rnd) -> u64 {
    let rm = r.sf();
    with_fp!(fp, T, P, {
        if v < 0 {
            T::from_i64(v as i64, rm).to_bits() as u64
        } else {
            T::from_u64(v as u64, rm).to_bits() as u64
        }
    })
}

/// SoftFloat's round-to-integral in the source's own format; bf16 is widened to f32 exactly
/// first and narrowed back (an integral value of a bf16 input is representable in bf16, and a
/// quieted bf16 NaN is one).
pub fn sf_round_integral(fp: Fp, x: u64, r: Rnd) -> u64 {
    if fp == Fp::Bf16 {
        let w = sf_round_integral(Fp::F32, bf16_to_f32(x), r);
        assert_eq!(w & 0xffff, 0, "integral value of bf16 {x:#x} not a bf16");
        return w >> 16;
    }
    with_fp!(
        fp,
        T,
        P,
        T::from_bits(x as P).round_to_integral(r.sf()).to_bits() as u64
    )
}

/// SoftFloat's float→float conversion (bf16 sources widened exactly to f32; bf16 results are
/// [`round_to`]'s, not SoftFloat's).
pub fn sf_convert(src: Fp, dst: Fp, x: u64, r: Rnd) -> u64 {
    if dst == Fp::Bf16 {
        let (sf, df) = (src.format(), dst.format());
        let v = exact_f64(src, x);
        return if sf.is_nan(x.into()) {
            qnan(df)
        } else if v.is_infinite() {
            df.infinity(v < 0.0)
        } else {
            round_f64(df, v, 0.0, r)
        };
    }
    if src == Fp::Bf16 {
        let w = bf16_to_f32(x);
        return if dst == Fp::F32 {
            // The widening itself; a NaN comes back quieted like any operation's.
            quiet(Fp::F32.format(), w)
        } else {
            sf_convert(Fp::F32, dst, w, r)
        };
    }
    let rm = r.sf();
    with_fp!(src, T, P, {
        let a = T::from_bits(x as P);
        match dst {
            Fp::F16 => a.to_f16(rm).to_bits() as u64,
            Fp::F32 => a.to_f32(rm).to_bits() as u64,
            Fp::F64 => a.to_f64(rm).to_bits(),
            Fp::Bf16 => unreachable!(),
        }
    })
}

// ---------------------------------------------------------------------------------------------
// The independent rounding function and the exact bf16 arithmetic.

/// Rounds the exact value `(-1)^sign × mag × 2^exp` to format `f` in mode `r`: subnormals,
/// overflow to infinity or the largest finite value by mode, signed zeros. `mag < 2^100`.
pub fn round_to(f: &Fmt, sign: bool, mag: u128, exp: i32, r: Rnd) -> u64 {
    let s = if sign { f.sign_mask() } else { 0 };
    if mag == 0 {
        return s;
    }
    assert!(mag < 1 << 100);
    let mb = f.man_bits as i32;
    let emin = f.emin(); // unbiased exponent of the smallest normal
    let e = exp + (127 - mag.leading_zeros() as i32); // unbiased exponent of the value
    let q = e.max(emin) - mb; // weight of the last significand bit kept
    let shift = q - exp; // bits of `mag` below it
    let (mut m, half, inexact) = if shift <= 0 {
        (mag << -shift, Ordering::Less, false)
    } else if shift > 101 {
        (0, Ordering::Less, true)
    } else {
        let rem = mag & ((1u128 << shift) - 1);
        (mag >> shift, rem.cmp(&(1u128 << (shift - 1))), rem != 0)
    };
    let up = match r {
        Rnd::N => half == Ordering::Greater || (half == Ordering::Equal && m & 1 == 1),
        Rnd::Z => false,
        Rnd::M => sign && inexact,
        Rnd::P => !sign && inexact,
    };
    m += up as u128;
    // Normal: (e - emin) << mb plus m with its leading bit adds up to the biased exponent
    // e + bias; subnormal: exponent field 0. A carry out of the significand bumps the exponent.
    let enc = (((e.max(emin) - emin) as u128) << mb) + m;
    if enc >= (f.exp_all_ones() as u128) << mb {
        let inf = match r {
            Rnd::N => true,
            Rnd::Z => false,
            Rnd::M => sign,
            Rnd::P => !sign,
        };
        return s | if inf {
            f.infinity(false)
        } else {
            f.max_finite(false) as u64
        };
    }
    s | enc as u64
}

/// Rounds `v + e` (an f64 value and a correction below half its ulp, TwoSum's pair) to `f`.
/// The correction only matters for its sign: `v`'s significand is taken in quarter-ulp units,
/// nudged by one unit toward `e`, which keeps its order against every rounding boundary of a
/// format narrower than f64.
pub fn round_f64(f: &Fmt, v: f64, e: f64, r: Rnd) -> u64 {
    assert!(v.is_finite() && e.is_finite());
    if v == 0.0 {
        assert_eq!(e, 0.0);
        return if v.is_sign_negative() { f.sign_mask() } else { 0 };
    }
    let b = v.to_bits();
    let (field, frac) = ((b >> 52) & 0x7ff, b & ((1 << 52) - 1));
    let (m, x) = if field == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, field as i32 - 1075)
    };
    let mut mag = (m as u128) << 2;
    if e != 0.0 {
        if (e < 0.0) == (v < 0.0) {
            mag += 1;
        } else {
            mag -= 1;
        }
    }
    round_to(f, v < 0.0, mag, x - 2, r)
}

/// The exact value of a finite f16/bf16/f32/f64 as an f64.
pub fn exact_f64(fp: Fp, x: u64) -> f64 {
    match fp {
        Fp::F16 => f64::from_bits(F16::from_bits(x as u16).to_f64(RoundingMode::TiesToEven).to_bits()),
        Fp::Bf16 => f32::from_bits(bf16_to_f32(x) as u32) as f64,
        Fp::F32 => f32::from_bits(x as u32) as f64,
        Fp::F64 => f64::from_bits(x),
    }
}

/// Knuth's TwoSum: `a + b == s + e` exactly (round-to-nearest f64, no overflow).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// `op` on values of a format whose products are exact in f64 (significands ≤ 26 bits, the range
/// well inside f64's: f16 and bf16), rounded once to the format by [`round_to`].
pub fn exact_arith(fp: Fp, op: Op, x: &[u64], r: Rnd) -> u64 {
    let f = fp.format();
    if x[..op.arity()].iter().any(|&v| f.is_nan(v.into())) {
        return qnan(f);
    }
    let v = |i: usize| exact_f64(fp, x[i]);
    let (p, c) = match op {
        Op::Add => (v(0), v(1)),
        Op::Sub => (v(0), -v(1)),
        Op::Mul => (v(0) * v(1), 0.0),
        Op::Fma => (v(0) * v(1), v(2)),
        _ => unreachable!("{op:?} is not exact in f64"),
    };
    if op == Op::Mul {
        // The product is exact; only its special cases need care.
        return if p.is_nan() {
            qnan(f)
        } else if p.is_infinite() {
            f.infinity(p < 0.0)
        } else {
            round_f64(f, p, 0.0, r)
        };
    }
    let (s, e) = two_sum(p, c);
    if s.is_nan() {
        return qnan(f);
    }
    if s.is_infinite() {
        return f.infinity(s < 0.0);
    }
    if s == 0.0 && e == 0.0 {
        // An exact zero sum: the common sign of two zeros, else +0 (−0 rounding down), IEEE 6.3.
        let neg = if p == 0.0 && c == 0.0 && p.is_sign_negative() == c.is_sign_negative() {
            p.is_sign_negative()
        } else {
            r == Rnd::M
        };
        return if neg { f.sign_mask() } else { 0 };
    }
    round_f64(f, s, e, r)
}

/// The exact integer of an integral (or infinite) value of `fp`, clamped to ±2^110.
fn integral_value(fp: Fp, x: u64) -> i128 {
    let f = fp.format();
    let big = 1i128 << 110;
    let e = f.exp_field(x);
    let mag = if e == f.exp_all_ones() {
        big
    } else if e == 0 {
        assert_eq!(f.man_field(x), 0, "{x:#x} is not integral");
        0
    } else {
        let unb = e as i64 - f.bias() as i64;
        let sig = (f.man_field(x) | 1 << f.man_bits) as i128;
        let shift = unb - f.man_bits as i64;
        if unb > 100 {
            big
        } else if shift >= 0 {
            sig << shift
        } else {
            assert_eq!(sig & ((1 << -shift) - 1), 0, "{x:#x} is not integral");
            sig >> -shift
        }
    };
    if f.sign(x) {
        -mag
    } else {
        mag
    }
}

/// PTX float→int: round to an integral value, then clamp to the destination. A NaN gives PTX
/// ISA 9.0's value, which the H200 returns (corpus/findings/h200/cvt-bitfield.md): 0 unless the
/// source is f64 or the destination 64 bits wide, then `1 << (bits - 1)` (8.7's "NaN → 0",
/// L13794, is superseded).
pub fn float_to_int(fp: Fp, x: u64, t: IntType, r: Rnd) -> u64 {
    if fp.format().is_nan(x.into()) {
        return if fp == Fp::F64 || t.bits == 64 {
            1 << (t.bits - 1)
        } else {
            0
        };
    }
    let v = integral_value(fp, sf_round_integral(fp, x, r));
    t.encode(v.clamp(t.min(), t.max()))
}

/// int→float: SoftFloat for f16/f32/f64, [`round_to`] for bf16.
pub fn int_to_float(t: IntType, x: u64, fp: Fp, r: Rnd) -> u64 {
    let v = t.value(x);
    if fp == Fp::Bf16 {
        return round_to(Fp::Bf16.format(), v < 0, v.unsigned_abs(), 0, r);
    }
    sf_from_int(fp, v, r)
}

// ---------------------------------------------------------------------------------------------
// Forms and their references.

/// How the reference result of a form is computed.
#[derive(Clone, Copy, Debug)]
pub enum Ref {
    /// `op.rnd{.ftz}{.sat}.type` (and `mad` as `fma`), lane by lane for packed types.
    Arith {
        op: Op,
        fp: Fp,
        r: Rnd,
        ftz: bool,
        sat: bool,
    },
    /// `add/sub.rnd{.sat}.f32.at d, a, c` and `fma.rnd{.sat}.f32.at d, a, b, c` (the fuzz
    /// target's only).
    #[allow(dead_code)]
    Mixed { op: Op, src: Fp, r: Rnd, sat: bool },
    /// `cvt.frnd{.ftz}{.sat}.float.int`: an integer never converts to a subnormal f32, so `.ftz`
    /// changes nothing.
    IntToFloat { t: IntType, fp: Fp, r: Rnd, sat: bool },
    /// `cvt.irnd{.ftz}{.sat}.int.float`: `.sat` is redundant (L13818), the reference the same.
    FloatToInt { fp: Fp, t: IntType, r: Rnd, ftz: bool },
    /// Float→float between different formats (`r: None` for the exact widenings).
    Convert {
        src: Fp,
        dst: Fp,
        r: Option<Rnd>,
        ftz: bool,
        sat: bool,
    },
    /// `cvt{.irnd}{.ftz}{.sat}.t.t`: round to integral, or a copy.
    Integral {
        fp: Fp,
        r: Option<Rnd>,
        ftz: bool,
        sat: bool,
    },
}

/// `.ftz` on a result (`ftz`), then `.sat`.
fn finish(f: &Fmt, out: u64, ftz: bool, sat: bool) -> u64 {
    let out = if ftz { flush(f, out) } else { out };
    if sat {
        saturate(f, out)
    } else {
        out
    }
}

impl Ref {
    /// SoftFloat's result for one lane of operands `x` (PTX order).
    pub fn answer(self, x: &[u64]) -> u64 {
        match self {
            Ref::Arith { op, fp, r, ftz, sat } => {
                let f = fp.format();
                let mut ins = [0u64; 3];
                for (i, &v) in x.iter().enumerate() {
                    ins[i] = if ftz { flush(f, v) } else { v };
                }
                let rounded = |r: Rnd| {
                    if fp == Fp::Bf16 {
                        exact_arith(fp, op, &ins, r)
                    } else {
                        sf_arith(op, fp, r, &ins)
                    }
                };
                let mut out = rounded(r);
                // Tininess before rounding (the model's reading, the H200's): an exact value
                // below the smallest normal number that rounds up to it is flushed too; it is
                // below exactly when its truncation is.
                let min_normal = f.encode(false, 1, 0);
                if ftz && out & !f.sign_mask() == min_normal && rounded(Rnd::Z) & !f.sign_mask() < min_normal {
                    out &= f.sign_mask();
                }
                finish(f, out, ftz, sat)
            }
            Ref::Mixed { op, src, r, sat } => {
                let widen = |v: u64| sf_convert(src, Fp::F32, v, Rnd::N);
                let ins = match op {
                    Op::Fma => [widen(x[0]), widen(x[1]), x[2]],
                    _ => [widen(x[0]), x[1], 0],
                };
                finish(Fp::F32.format(), sf_arith(op, Fp::F32, r, &ins), false, sat)
            }
            Ref::IntToFloat { t, fp, r, sat } => finish(fp.format(), int_to_float(t, x[0], fp, r), false, sat),
            Ref::FloatToInt { fp, t, r, ftz } => {
                let a = if ftz { flush(fp.format(), x[0]) } else { x[0] };
                float_to_int(fp, a, t, r)
            }
            Ref::Convert { src, dst, r, ftz, sat } => {
                let a = if ftz && src == Fp::F32 {
                    flush(src.format(), x[0])
                } else {
                    x[0]
                };
                let out = sf_convert(src, dst, a, r.unwrap_or(Rnd::N));
                finish(dst.format(), out, ftz && dst == Fp::F32, sat)
            }
            Ref::Integral { fp, r, ftz, sat } => {
                let f = fp.format();
                let a = if ftz { flush(f, x[0]) } else { x[0] };
                let out = match r {
                    Some(r) => sf_round_integral(fp, a, r),
                    // A copy; a NaN comes back quieted like any other operation's.
                    None => quiet(f, a),
                };
                finish(f, out, false, sat)
            }
        }
    }
}

/// One checked form: its PTX name, operand types (`lanes` per operand and result) and reference.
pub struct Check {
    pub name: String,
    pub srcs: Vec<Ty>,
    pub dst: Ty,
    pub lanes: u32,
    pub reference: Ref,
}

fn m(on: bool, s: &'static str) -> &'static str {
    if on {
        s
    } else {
        ""
    }
}

/// A one-source cvt form: `cvt{.rnd}{.ftz}{.sat}.dst.src`.
fn cvt(rnd: Option<&str>, ftz: bool, sat: bool, src: Ty, dst: Ty, reference: Ref) -> Check {
    let name = format!(
        "cvt{}{}{}.{}.{}",
        rnd.map(|r| format!(".{r}")).unwrap_or_default(),
        m(ftz, ".ftz"),
        m(sat, ".sat"),
        dst.name(),
        src.name()
    );
    Check {
        name,
        srcs: vec![src],
        dst,
        lanes: 1,
        reference,
    }
}

impl Check {
    /// `opcode.rnd{.ftz}{.sat}.type`, the type packed (`f16x2`) when `lanes` is 2.
    pub fn arith(opcode: &str, op: Op, fp: Fp, r: Rnd, ftz: bool, sat: bool, lanes: u32) -> Check {
        let name = format!(
            "{opcode}.{}{}{}.{}{}",
            r.frnd(),
            m(ftz, ".ftz"),
            m(sat, ".sat"),
            fp.name(),
            m(lanes == 2, "x2")
        );
        Check {
            name,
            srcs: vec![Ty::F(fp); op.arity()],
            dst: Ty::F(fp),
            lanes,
            reference: Ref::Arith { op, fp, r, ftz, sat },
        }
    }
    /// Mixed precision (sm_100): `d:f32 = a:src c:f32`, and fma's `d:f32 = a:src b:src c:f32`.
    #[allow(dead_code)] // the fuzz target's only
    pub fn mixed(opcode: &str, op: Op, src: Fp, r: Rnd, sat: bool) -> Check {
        let srcs = if op == Op::Fma {
            vec![Ty::F(src), Ty::F(src), Ty::F(Fp::F32)]
        } else {
            vec![Ty::F(src), Ty::F(Fp::F32)]
        };
        Check {
            name: format!("{opcode}.{}{}.f32.{}", r.frnd(), m(sat, ".sat"), src.name()),
            srcs,
            dst: Ty::F(Fp::F32),
            lanes: 1,
            reference: Ref::Mixed { op, src, r, sat },
        }
    }
}

/// `.ftz` where it is allowed: the choices for it.
fn ftzs(allowed: bool) -> &'static [bool] {
    if allowed {
        &[false, true]
    } else {
        &[false]
    }
}

/// `.sat` is allowed on f16/f32/f64 results of cvt, never on bf16 ones (L13868).
fn cvt_sats(dst: Fp) -> &'static [bool] {
    if dst == Fp::Bf16 {
        &[false]
    } else {
        &[false, true]
    }
}

/// `op.rnd{.ftz}{.sat}.type` for every type of `fps` and operation of `ops` (`mad` as `fma`):
/// every rounding mode, `.ftz` (not on f64), and `.sat` on add, sub, mul, fma, mad (not on f64).
pub fn arith_checks(fps: &[Fp], ops: &[(&str, Op)]) -> Vec<Check> {
    let mut v = Vec::new();
    for &fp in fps {
        for &(opcode, op) in ops {
            let sat_ok = matches!(op, Op::Add | Op::Sub | Op::Mul | Op::Fma);
            for r in RNDS {
                for ftz in [false, true] {
                    for sat in [false, true] {
                        if fp == Fp::F64 && (ftz || sat) || sat && !sat_ok {
                            continue;
                        }
                        v.push(Check::arith(opcode, op, fp, r, ftz, sat, 1));
                    }
                }
            }
        }
    }
    v
}

/// `cvt.frnd{.ftz}{.sat}.float.int`, every integer type to each of `fps` (`.ftz` on f32 only).
pub fn int_to_float_checks(fps: &[Fp]) -> Vec<Check> {
    let mut v = Vec::new();
    for t in INTS {
        for &fp in fps {
            for r in RNDS {
                for &ftz in ftzs(fp == Fp::F32) {
                    for &sat in cvt_sats(fp) {
                        let reference = Ref::IntToFloat { t, fp, r, sat };
                        v.push(cvt(Some(r.frnd()), ftz, sat, Ty::I(t), Ty::F(fp), reference));
                    }
                }
            }
        }
    }
    v
}

/// `cvt.irnd{.ftz}{.sat}.int.float`, each of `fps` to every integer type (`.ftz` on f32 only).
pub fn float_to_int_checks(fps: &[Fp]) -> Vec<Check> {
    let mut v = Vec::new();
    for &fp in fps {
        for t in INTS {
            for r in RNDS {
                for &ftz in ftzs(fp == Fp::F32) {
                    for sat in [false, true] {
                        let reference = Ref::FloatToInt { fp, t, r, ftz };
                        v.push(cvt(Some(r.irnd()), ftz, sat, Ty::F(fp), Ty::I(t), reference));
                    }
                }
            }
        }
    }
    v
}

/// Float→float between different formats, per the catalog's cvt rows, where `keep(src, dst)`:
/// the narrowings with a rounding modifier, then the widenings without; `.ftz` where a side is
/// f32, `.sat` except on bf16 results.
pub fn convert_checks(keep: impl Fn(Fp, Fp) -> bool) -> Vec<Check> {
    use Fp::*;
    let narrow = [
        (F32, F16),
        (F64, F16),
        (F64, F32),
        (F32, Bf16),
        (F16, Bf16),
        (F64, Bf16),
        (Bf16, F16),
    ];
    let widen = [(F16, F32), (F16, F64), (F32, F64), (Bf16, F32), (Bf16, F64)];
    let conversions = narrow
        .iter()
        .flat_map(|&(s, d)| RNDS.map(|r| (s, d, Some(r))))
        .chain(widen.iter().map(|&(s, d)| (s, d, None)));
    let mut v = Vec::new();
    for (src, dst, r) in conversions.filter(|&(s, d, _)| keep(s, d)) {
        for &ftz in ftzs(src == Fp::F32 || dst == Fp::F32) {
            for &sat in cvt_sats(dst) {
                let reference = Ref::Convert { src, dst, r, ftz, sat };
                v.push(cvt(r.map(Rnd::frnd), ftz, sat, Ty::F(src), Ty::F(dst), reference));
            }
        }
    }
    v
}

/// Same-type cvt of each of `fps`: round to integral (`cvt.rni.f32.f32`) and the plain copy
/// (`cvt.f32.f32`), with `.ftz` (f32) and `.sat` (not bf16).
pub fn integral_checks(fps: &[Fp]) -> Vec<Check> {
    let mut v = Vec::new();
    for &fp in fps {
        for r in [None, Some(Rnd::N), Some(Rnd::Z), Some(Rnd::M), Some(Rnd::P)] {
            for &ftz in ftzs(fp == Fp::F32) {
                for &sat in cvt_sats(fp) {
                    let reference = Ref::Integral { fp, r, ftz, sat };
                    v.push(cvt(r.map(Rnd::irnd), ftz, sat, Ty::F(fp), Ty::F(fp), reference));
                }
            }
        }
    }
    v
}

// ---------------------------------------------------------------------------------------------
// The verdict.

/// `lanes` of `width` bits each, lane 0 lowest.
pub fn pack(width: u32, lanes: &[u64]) -> u128 {
    lanes
        .iter()
        .enumerate()
        .fold(0u128, |acc, (i, &x)| acc | (x as u128) << (i as u32 * width))
}

/// `x` in hex, zero-padded to `width` bits.
pub fn hex(width: u32, x: u128) -> String {
    format!("{:#0w$x}", x, w = 2 + width.div_ceil(4) as usize)
}

/// Why the spec's outcomes `res` for `c` are not acceptable for SoftFloat's lanes `want`, or
/// `None`; `op(i, l)` is lane `l` of operand `i`.
pub fn judge(c: &Check, res: &Outcomes, op: impl Fn(usize, usize) -> u64, want: &[u64]) -> Option<String> {
    match res {
        Err(e) => Some(format!("evaluation error: {e}")),
        Ok(out) if out.len() != 1 => Some(format!("{} outcomes", out.len())),
        Ok(out) => verdict(c, op, &out[0], want),
    }
}

/// The spec's outcome in a report: its model and acceptance set (abridged).
pub fn describe(c: &Check, res: &Outcomes) -> String {
    match res {
        Ok(out) if !out.is_empty() => {
            let acc: String = format!("{:?}", out[0].accept).chars().take(160).collect();
            let width = c.dst.width() * c.lanes;
            format!("spec model {} accept {acc}", hex(width, out[0].model))
        }
        _ => "spec: no outcome".to_string(),
    }
}

/// Why `out` is not acceptable for SoftFloat's lanes `want`, or `None` (the rules in the module
/// documentation); `op(i, l)` is lane `l` of operand `i`.
pub fn verdict(c: &Check, op: impl Fn(usize, usize) -> u64, out: &Outcome, want: &[u64]) -> Option<String> {
    let fp = match c.dst {
        Ty::I(_) => {
            let w = want[0] as u128;
            return (out.model != w || !out.accepts(w)).then(|| "integer result differs".into());
        }
        Ty::F(fp) => fp,
    };
    let f = fp.format();
    let width = f.width();
    if out.model >> (width * c.lanes) != 0 {
        return Some("model wider than the destination".into());
    }
    for (l, &w) in want.iter().enumerate() {
        let model = (out.model >> (l as u32 * width)) as u64 & f.width_mask();
        let at = if c.lanes > 1 {
            format!("lane {l}: ")
        } else {
            String::new()
        };
        if !f.is_nan(w.into()) {
            if model != w {
                return Some(format!("{at}model differs"));
            }
            continue;
        }
        if !f.is_nan(model.into()) {
            return Some(format!("{at}expected a NaN"));
        }
        if fp == Fp::F64 {
            // The quieted input NaNs, widened to f64 where the source is narrower.
            let mut quieted: Vec<u64> = (c.srcs.iter().enumerate())
                .filter_map(|(i, t)| match *t {
                    Ty::F(s) if s.format().is_nan(op(i, l).into()) => {
                        let (sf, x) = (s.format(), op(i, l));
                        let payload = (sf.man_field(x) | sf.quiet_bit()) << (52 - sf.man_bits);
                        Some(f.encode(sf.sign(x), f.exp_all_ones(), payload))
                    }
                    _ => None,
                })
                .collect();
            if quieted.is_empty() {
                return None; // a NaN made from numbers: any NaN
            }
            if let Ref::Convert {
                src: Fp::F32,
                ftz: true,
                ..
            } = c.reference
            {
                // `cvt.ftz.f64.f32`: the single-precision path's NaN, the canonical f32 NaN
                // widened, is the H200's (corpus/findings/h200/cvt-bitfield.md).
                quieted.push(0x7fff_ffff_e000_0000);
            }
            if !quieted.contains(&model) {
                return Some(format!("{at}model is not a quieted input NaN {quieted:x?}"));
            }
            if !quieted.contains(&w) {
                return None; // SoftFloat's default NaN (fma(0, ∞, NaN)): not PTX's rule
            }
        }
    }
    if out.accepts(pack(width, want)) {
        None
    } else if want.iter().any(|&w| f.is_nan(w.into())) {
        Some("SoftFloat's NaN is not in the spec's acceptance set".into())
    } else {
        Some("model not in its own acceptance set".into())
    }
}
