//! The spec's floating-point semantics against Berkeley SoftFloat 3, an independent reference.
//!
//! Every rounded PTX float form this file knows (add, sub, mul, fma, mad, div, sqrt, rcp in
//! f16/f32/f64 with `.rn .rz .rm .rp`, `.ftz` and `.sat`; bf16 add/sub/mul/fma; and the
//! conversions int↔float, float↔float and round-to-integral, `.sat` included) is evaluated through the catalog
//! (`spec::eval::semantics`) on TestFloat-style operands from `generators::float` and compared
//! with an expectation computed here, independently of the spec:
//! - IEEE results come from SoftFloat (`softfloat-wrapper`), with the rounding mode as argument;
//! - `.ftz` is a layer around SoftFloat: subnormal inputs of the flushed format become signed
//!   zeros, and a result whose encoding is subnormal becomes a signed zero (tininess after
//!   rounding, the spec's definition); on cvt it applies to the f32 side only (L13856);
//! - `.sat` clamps the final result to [+0.0, 1.0], NaN and −0.0 to +0.0;
//! - float→int is SoftFloat's round-to-integral followed by clamping the exact integer to the
//!   destination range, NaN → 0 (PTX saturates; SoftFloat's own out-of-range results are not
//!   PTX's);
//! - bf16 does not go through SoftFloat (its BF16 type truncates through f32): values are
//!   computed exactly in f64 (a product of two bf16 values is exact, a sum is exact as TwoSum's
//!   pair) and rounded by [`round_to`], a small rounding function written here and checked
//!   against SoftFloat on f16/f32 first.
//!
//! Verdicts: a non-NaN expectation must equal the spec's model and be accepted. A NaN expectation
//! of an f16/bf16/f32 result (an unspecified NaN, L7141) needs a NaN model and acceptance of
//! SoftFloat's NaN. An f64 NaN result with NaN inputs must be one of the quieted input NaNs (NaN
//! payloads propagate, L7141) and SoftFloat's result must be accepted when it is one of them (it
//! is not for fma(0, ∞, NaN), where SoftFloat's x86 flavour returns its default NaN); an f64 NaN
//! made from non-NaN operands (∞−∞, 0×∞) only needs to be a NaN.
//!
//! Runs: the default tests check every form on 100,000 operand sets (hard-case cross product
//! first, then random; every input where the source has 16 bits or fewer). The long run,
//! `cargo test --release -p ptxconf-generators --test softfloat -- --ignored --nocapture`, checks
//! `PTXCONF_SOFTFLOAT_N` sets per form (default 100,000,000) on all cores, optionally only forms
//! whose name contains `PTXCONF_SOFTFLOAT_FILTER`, with seeds varied by `PTXCONF_SOFTFLOAT_SEED`.
//! Forms the spec has no semantics for are skipped with a message, or fail the run when
//! `PTXCONF_SOFTFLOAT_REQUIRE=1`.

use generators::float::{float_cases, int_cases, Format, IntType};
use softfloat_wrapper::{Float, RoundingMode, F16, F32, F64};
use spec::catalog::{catalog, Form};
use spec::eval::SemFn;
use spec::value::{Accept, Args, Input, Outcome, Outcomes};
use std::cmp::Ordering;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering as AtOrd};
use std::sync::Mutex;
use std::time::Instant;

/// Operand sets per form in the default test run.
const QUICK_N: u64 = 100_000;
/// Mismatches printed per form.
const SHOW: usize = 5;

// ---------------------------------------------------------------------------------------------
// Types, rounding modes, operations.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fp {
    F16,
    Bf16,
    F32,
    F64,
}

impl Fp {
    fn format(self) -> Format {
        match self {
            Fp::F16 => Format::F16,
            Fp::Bf16 => Format::BF16,
            Fp::F32 => Format::F32,
            Fp::F64 => Format::F64,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Fp::F16 => "f16",
            Fp::Bf16 => "bf16",
            Fp::F32 => "f32",
            Fp::F64 => "f64",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    F(Fp),
    I(IntType),
}

impl Ty {
    fn name(self) -> String {
        match self {
            Ty::F(f) => f.name().to_string(),
            Ty::I(t) => format!("{}{}", if t.signed { 's' } else { 'u' }, t.bits),
        }
    }
    fn width(self) -> u32 {
        match self {
            Ty::F(f) => f.format().width(),
            Ty::I(t) => t.bits,
        }
    }
}

const INTS: [IntType; 8] = [
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
enum Rnd {
    N,
    Z,
    M,
    P,
}

const RNDS: [Rnd; 4] = [Rnd::N, Rnd::Z, Rnd::M, Rnd::P];

impl Rnd {
    fn sf(self) -> RoundingMode {
        match self {
            Rnd::N => RoundingMode::TiesToEven,
            Rnd::Z => RoundingMode::TowardZero,
            Rnd::M => RoundingMode::TowardNegative,
            Rnd::P => RoundingMode::TowardPositive,
        }
    }
    /// The float rounding modifier (`rn`).
    fn frnd(self) -> &'static str {
        ["rn", "rz", "rm", "rp"][self as usize]
    }
    /// The integer rounding modifier (`rni`).
    fn irnd(self) -> &'static str {
        ["rni", "rzi", "rmi", "rpi"][self as usize]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Sqrt,
    Rcp,
}

impl Op {
    fn arity(self) -> usize {
        match self {
            Op::Sqrt | Op::Rcp => 1,
            Op::Fma => 3,
            _ => 2,
        }
    }
}

fn flush(f: Format, x: u64) -> u64 {
    if f.is_subnormal(x) {
        x & f.sign_bit()
    } else {
        x
    }
}

/// A quiet NaN of the format (any NaN does for the expectation of an unspecified NaN).
fn qnan(f: Format) -> u64 {
    f.pack(false, f.exp_all_ones(), f.quiet_bit())
}

// ---------------------------------------------------------------------------------------------
// SoftFloat references.

fn sf_arith(op: Op, fp: Fp, r: Rnd, x: &[u64]) -> u64 {
    let rm = r.sf();
    macro_rules! go {
        ($T:ident, $P:ty) => {{
            let v = |i: usize| $T::from_bits(x[i] as $P);
            let out = match op {
                Op::Add => v(0).add(v(1), rm),
                Op::Sub => v(0).sub(v(1), rm),
                Op::Mul => v(0).mul(v(1), rm),
                Op::Fma => v(0).fused_mul_add(v(1), v(2), rm),
                Op::Div => v(0).div(v(1), rm),
                Op::Sqrt => v(0).sqrt(rm),
                Op::Rcp => $T::from_u8(1, rm).div(v(0), rm),
            };
            out.to_bits() as u64
        }};
    }
    match fp {
        Fp::F16 => go!(F16, u16),
        Fp::F32 => go!(F32, u32),
        Fp::F64 => go!(F64, u64),
        Fp::Bf16 => unreachable!("bf16 is computed exactly, not by SoftFloat"),
    }
}

/// SoftFloat's conversion of an integer value to f16/f32/f64.
fn sf_from_int(fp: Fp, v: i128, r: Rnd) -> u64 {
    let rm = r.sf();
    macro_rules! go {
        ($T:ident) => {
            if v < 0 {
                $T::from_i64(v as i64, rm).to_bits() as u64
            } else {
                $T::from_u64(v as u64, rm).to_bits() as u64
            }
        };
    }
    match fp {
        Fp::F16 => go!(F16),
        Fp::F32 => go!(F32),
        Fp::F64 => go!(F64),
        Fp::Bf16 => unreachable!(),
    }
}

/// SoftFloat's round-to-integral in the source's own format; bf16 is widened to f32 exactly
/// first and narrowed back (an integral value of a bf16 input is representable in bf16).
fn sf_round_integral(fp: Fp, x: u64, r: Rnd) -> u64 {
    let rm = r.sf();
    match fp {
        Fp::F16 => F16::from_bits(x as u16).round_to_integral(rm).to_bits() as u64,
        Fp::F32 => F32::from_bits(x as u32).round_to_integral(rm).to_bits() as u64,
        Fp::F64 => F64::from_bits(x).round_to_integral(rm).to_bits(),
        Fp::Bf16 => {
            if Format::BF16.is_nan(x) {
                return qnan(Format::BF16);
            }
            let w = F32::from_bits((x as u32) << 16).round_to_integral(rm).to_bits();
            assert_eq!(w & 0xffff, 0, "integral value of bf16 {x:#x} not a bf16");
            (w >> 16) as u64
        }
    }
}

/// SoftFloat's float→float conversion (bf16 sources widened exactly to f32; bf16 results are
/// [`round_to`]'s, not SoftFloat's).
fn sf_convert(src: Fp, dst: Fp, x: u64, r: Rnd) -> u64 {
    let rm = r.sf();
    let (sf, df) = (src.format(), dst.format());
    if dst == Fp::Bf16 {
        let v = exact_f64(src, x);
        return if sf.is_nan(x) {
            qnan(df)
        } else if v.is_infinite() {
            df.infinity(v < 0.0)
        } else {
            round_f64(df, v, 0.0, r)
        };
    }
    match src {
        // bf16 is the top half of an f32.
        Fp::Bf16 if dst == Fp::F32 => x << 16,
        Fp::Bf16 => sf_convert(Fp::F32, dst, x << 16, r),
        Fp::F16 => {
            let a = F16::from_bits(x as u16);
            match dst {
                Fp::F32 => a.to_f32(rm).to_bits() as u64,
                Fp::F64 => a.to_f64(rm).to_bits(),
                _ => unreachable!(),
            }
        }
        Fp::F32 => {
            let a = F32::from_bits(x as u32);
            match dst {
                Fp::F16 => a.to_f16(rm).to_bits() as u64,
                Fp::F64 => a.to_f64(rm).to_bits(),
                _ => unreachable!(),
            }
        }
        Fp::F64 => {
            let a = F64::from_bits(x);
            match dst {
                Fp::F16 => a.to_f16(rm).to_bits() as u64,
                Fp::F32 => a.to_f32(rm).to_bits() as u64,
                _ => unreachable!(),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The independent rounding function and the exact bf16 arithmetic.

/// Rounds the exact value `(-1)^sign × mag × 2^exp` to format `f` in mode `r`: subnormals,
/// overflow to infinity or the largest finite value by mode, signed zeros. `mag < 2^100`.
fn round_to(f: Format, sign: bool, mag: u128, exp: i32, r: Rnd) -> u64 {
    let s = if sign { f.sign_bit() } else { 0 };
    if mag == 0 {
        return s;
    }
    assert!(mag < 1 << 100);
    let mb = f.man_bits as i32;
    let emin = 1 - f.bias() as i32; // unbiased exponent of the smallest normal
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
        return s | if inf { f.infinity(false) } else { f.max_finite() };
    }
    s | enc as u64
}

/// Rounds `v + e` (an f64 value and a correction below half its ulp, TwoSum's pair) to `f`.
/// The correction only matters for its sign: `v`'s significand is taken in quarter-ulp units,
/// nudged by one unit toward `e`, which keeps its order against every rounding boundary of a
/// format narrower than f64.
fn round_f64(f: Format, v: f64, e: f64, r: Rnd) -> u64 {
    assert!(v.is_finite() && e.is_finite());
    if v == 0.0 {
        assert_eq!(e, 0.0);
        return if v.is_sign_negative() { f.sign_bit() } else { 0 };
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
fn exact_f64(fp: Fp, x: u64) -> f64 {
    match fp {
        Fp::F16 => F16::from_bits(x as u16).to_f64(RoundingMode::TiesToEven).to_bits(),
        Fp::Bf16 => (f32::from_bits((x as u32) << 16) as f64).to_bits(),
        Fp::F32 => (f32::from_bits(x as u32) as f64).to_bits(),
        Fp::F64 => x,
    }
    .pipe(f64::from_bits)
}

trait Pipe: Sized {
    fn pipe<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}
impl<T> Pipe for T {}

/// Knuth's TwoSum: `a + b == s + e` exactly (round-to-nearest f64, no overflow).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// `op` on values of a format whose products are exact in f64 (significands ≤ 26 bits, the range
/// well inside f64's: f16 and bf16), rounded once to the format by [`round_to`].
fn exact_arith(fp: Fp, op: Op, x: &[u64], r: Rnd) -> u64 {
    let f = fp.format();
    if x[..op.arity()].iter().any(|&v| f.is_nan(v)) {
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
        return if neg { f.sign_bit() } else { 0 };
    }
    round_f64(f, s, e, r)
}

/// The exact integer of an integral (or infinite) value of `fp`, clamped to ±2^110.
fn integral_value(fp: Fp, x: u64) -> i128 {
    let f = fp.format();
    let big = 1i128 << 110;
    let neg = f.sign(x);
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
    if neg {
        -mag
    } else {
        mag
    }
}

/// PTX float→int: NaN → 0, else round to an integral value, then clamp to the destination.
fn float_to_int(fp: Fp, x: u64, t: IntType, r: Rnd) -> u64 {
    if fp.format().is_nan(x) {
        return 0;
    }
    let v = integral_value(fp, sf_round_integral(fp, x, r));
    t.encode(v.clamp(t.min(), t.max()))
}

/// int→float: SoftFloat for f16/f32/f64, [`round_to`] for bf16.
fn int_to_float(t: IntType, x: u64, fp: Fp, r: Rnd) -> u64 {
    let v = t.value(x);
    if fp == Fp::Bf16 {
        return round_to(Format::BF16, v < 0, v.unsigned_abs(), 0, r);
    }
    sf_from_int(fp, v, r)
}

// ---------------------------------------------------------------------------------------------
// Checks: a form, its operand types, and the reference.

type RefFn = Box<dyn Fn(&[u64]) -> u64 + Send + Sync>;

struct Check {
    /// The PTX form, as written.
    name: String,
    srcs: Vec<Ty>,
    dst: Ty,
    reference: RefFn,
}

fn check(name: String, srcs: Vec<Ty>, dst: Ty, reference: impl Fn(&[u64]) -> u64 + Send + Sync + 'static) -> Check {
    Check {
        name,
        srcs,
        dst,
        reference: Box::new(reference),
    }
}

fn ftz_mod(ftz: bool) -> &'static str {
    if ftz {
        ".ftz"
    } else {
        ""
    }
}

/// `op.rnd{.ftz}.type` (and `mad` as `fma`) with SoftFloat, `.ftz` around it.
/// `.sat`: clamps to [0.0, 1.0] with NaN → +0.0 (L7141, L7590); −0.0 clamps to +0.0 here (the
/// spec may accept −0.0 too, but its model must be +0.0).
fn saturate(f: Format, x: u64) -> u64 {
    let one = f.pack(false, f.bias(), 0);
    if f.is_nan(x) || f.sign(x) {
        0
    } else {
        x.min(one) // positive encodings order like their values
    }
}

/// `op.rnd{.ftz}{.sat}.type` (and `mad` as `fma`) with SoftFloat, `.ftz` and `.sat` around it.
fn arith(opcode: &str, op: Op, fp: Fp, r: Rnd, ftz: bool, sat: bool) -> Check {
    let name = format!(
        "{opcode}.{}{}{}.{}",
        r.frnd(),
        ftz_mod(ftz),
        if sat { ".sat" } else { "" },
        fp.name()
    );
    let f = fp.format();
    check(name, vec![Ty::F(fp); op.arity()], Ty::F(fp), move |x| {
        if fp == Fp::Bf16 {
            return exact_arith(fp, op, x, r);
        }
        let mut ins = [0u64; 3];
        for (i, &v) in x.iter().enumerate() {
            ins[i] = if ftz { flush(f, v) } else { v };
        }
        let mut out = sf_arith(op, fp, r, &ins);
        if ftz {
            out = flush(f, out);
        }
        if sat {
            out = saturate(f, out);
        }
        out
    })
}

/// Every rounding mode, `.ftz` (not on f64), and `.sat` where `sat` says so (f32 add, sub, mul,
/// fma, mad).
fn arith_group(fps: &[Fp], ops: &[(&str, Op)], sat: bool) -> Vec<Check> {
    let mut v = Vec::new();
    for &fp in fps {
        for &(opcode, op) in ops {
            for r in RNDS {
                for ftz in [false, true] {
                    for s in [false, true] {
                        if (ftz || s) && fp == Fp::F64 || s && !sat {
                            continue;
                        }
                        v.push(arith(opcode, op, fp, r, ftz, s));
                    }
                }
            }
        }
    }
    v
}

/// f16 arithmetic: `.rn` only (§9.7.4), with and without `.ftz` and `.sat`.
fn half_group() -> Vec<Check> {
    let mut v = Vec::new();
    for (opcode, op) in [("add", Op::Add), ("sub", Op::Sub), ("mul", Op::Mul), ("fma", Op::Fma)] {
        for ftz in [false, true] {
            for sat in [false, true] {
                v.push(arith(opcode, op, Fp::F16, Rnd::N, ftz, sat));
            }
        }
    }
    v
}

fn bf16_group() -> Vec<Check> {
    [("add", Op::Add), ("sub", Op::Sub), ("mul", Op::Mul), ("fma", Op::Fma)]
        .into_iter()
        .map(|(opcode, op)| arith(opcode, op, Fp::Bf16, Rnd::N, false, false))
        .collect()
}

/// Whether `.ftz` applies to a conversion's source and result: only to `.f32` ones (L13856).
fn cvt_ftz(ftz: bool, src: Ty, dst: Ty) -> (bool, bool) {
    (ftz && src == Ty::F(Fp::F32), ftz && dst == Ty::F(Fp::F32))
}

fn sat_mod(sat: bool) -> &'static str {
    if sat {
        ".sat"
    } else {
        ""
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

/// cvt.frnd{.ftz}{.sat}.float.int.
fn int_to_float_group() -> Vec<Check> {
    let mut v = Vec::new();
    for t in INTS {
        for (fp, ftzs) in [
            (Fp::F16, &[false][..]),
            (Fp::F32, &[false, true]),
            (Fp::F64, &[false]),
            (Fp::Bf16, &[false]),
        ] {
            for r in RNDS {
                for &ftz in ftzs {
                    for &sat in cvt_sats(fp) {
                        let name = format!(
                            "cvt.{}{}{}.{}.{}",
                            r.frnd(),
                            ftz_mod(ftz),
                            sat_mod(sat),
                            fp.name(),
                            Ty::I(t).name()
                        );
                        // An integer never converts to a subnormal f32: .ftz changes nothing.
                        v.push(check(name, vec![Ty::I(t)], Ty::F(fp), move |x| {
                            let out = int_to_float(t, x[0], fp, r);
                            if sat {
                                saturate(fp.format(), out)
                            } else {
                                out
                            }
                        }));
                    }
                }
            }
        }
    }
    v
}

/// cvt.irnd{.ftz}{.sat}.int.float for the given sources.
fn float_to_int_group(srcs: &[Fp]) -> Vec<Check> {
    let mut v = Vec::new();
    for &fp in srcs {
        for t in INTS {
            for r in RNDS {
                for ftz in [false, true] {
                    if ftz && fp != Fp::F32 {
                        continue;
                    }
                    for sat in [false, true] {
                        let name = format!(
                            "cvt.{}{}{}.{}.{}",
                            r.irnd(),
                            ftz_mod(ftz),
                            if sat { ".sat" } else { "" },
                            Ty::I(t).name(),
                            fp.name()
                        );
                        let f = fp.format();
                        // .sat is redundant (L13818): the expectation is the same.
                        v.push(check(name, vec![Ty::F(fp)], Ty::I(t), move |x| {
                            let a = if ftz { flush(f, x[0]) } else { x[0] };
                            float_to_int(fp, a, t, r)
                        }));
                    }
                }
            }
        }
    }
    v
}

/// Same-type cvt: round to integral (`cvt.rni.f32.f32`) and the plain copy (`cvt.f32.f32`),
/// with `.ftz` (f32) and `.sat` (not bf16).
fn round_integral_group(fps: &[Fp]) -> Vec<Check> {
    let mut v = Vec::new();
    for &fp in fps {
        let f = fp.format();
        let ftzs: &[bool] = if fp == Fp::F32 { &[false, true] } else { &[false] };
        for &ftz in ftzs {
            for &sat in cvt_sats(fp) {
                for r in [None, Some(Rnd::N), Some(Rnd::Z), Some(Rnd::M), Some(Rnd::P)] {
                    let name = format!(
                        "cvt{}{}{}.{}.{}",
                        r.map(|r| format!(".{}", r.irnd())).unwrap_or_default(),
                        ftz_mod(ftz),
                        sat_mod(sat),
                        fp.name(),
                        fp.name()
                    );
                    v.push(check(name, vec![Ty::F(fp)], Ty::F(fp), move |x| {
                        let a = if ftz { flush(f, x[0]) } else { x[0] };
                        let out = match r {
                            Some(r) => sf_round_integral(fp, a, r),
                            // A copy; a NaN comes back quieted like any other operation's.
                            None if f.is_nan(a) => a | f.quiet_bit(),
                            None => a,
                        };
                        if sat {
                            saturate(f, out)
                        } else {
                            out
                        }
                    }));
                }
            }
        }
    }
    v
}

/// A float→float conversion (`cvt{.frnd}{.ftz}{.sat}.dst.src`): SoftFloat, bf16 by
/// [`round_to`]; `.ftz` on the f32 side, then `.sat`.
fn convert(src: Fp, dst: Fp, r: Option<Rnd>, ftz: bool, sat: bool) -> Check {
    let name = format!(
        "cvt{}{}{}.{}.{}",
        r.map(|r| format!(".{}", r.frnd())).unwrap_or_default(),
        ftz_mod(ftz),
        sat_mod(sat),
        dst.name(),
        src.name()
    );
    let (fin, fout) = cvt_ftz(ftz, Ty::F(src), Ty::F(dst));
    let (sf, df) = (src.format(), dst.format());
    check(name, vec![Ty::F(src)], Ty::F(dst), move |x| {
        let a = if fin { flush(sf, x[0]) } else { x[0] };
        let mut out = sf_convert(src, dst, a, r.unwrap_or(Rnd::N));
        if fout {
            out = flush(df, out);
        }
        if sat {
            out = saturate(df, out);
        }
        out
    })
}

/// Narrowing conversions from `srcs` (with a rounding modifier) and widening ones to `srcs`'
/// wider types (without), per the catalog's cvt rows.
fn float_convert_group(srcs: &[Fp]) -> Vec<Check> {
    let mut v = Vec::new();
    let narrow = [
        (Fp::F32, Fp::F16),
        (Fp::F64, Fp::F16),
        (Fp::F64, Fp::F32),
        (Fp::F32, Fp::Bf16),
        (Fp::F16, Fp::Bf16),
        (Fp::F64, Fp::Bf16),
        (Fp::Bf16, Fp::F16),
    ];
    let widen = [
        (Fp::F16, Fp::F32),
        (Fp::F16, Fp::F64),
        (Fp::F32, Fp::F64),
        (Fp::Bf16, Fp::F32),
        (Fp::Bf16, Fp::F64),
    ];
    let ftzs = |s: Fp, d: Fp| -> &'static [bool] {
        if s == Fp::F32 || d == Fp::F32 {
            &[false, true]
        } else {
            &[false]
        }
    };
    for (s, d) in narrow {
        if srcs.contains(&s) {
            for r in RNDS {
                for &ftz in ftzs(s, d) {
                    for &sat in cvt_sats(d) {
                        v.push(convert(s, d, Some(r), ftz, sat));
                    }
                }
            }
        }
    }
    for (s, d) in widen {
        if srcs.contains(&s) {
            for &ftz in ftzs(s, d) {
                for &sat in cvt_sats(d) {
                    v.push(convert(s, d, None, ftz, sat));
                }
            }
        }
    }
    v
}

// ---------------------------------------------------------------------------------------------
// Running checks.

fn seed_of(name: &str) -> u64 {
    // FNV-1a: a stable per-form seed, so every form sees its own sequence.
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in name.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    h ^ env_u64("PTXCONF_SOFTFLOAT_SEED").unwrap_or(0)
}

fn env_u64(var: &str) -> Option<u64> {
    let s = std::env::var(var).ok()?;
    let s = s.replace('_', "");
    Some(s.parse().unwrap_or_else(|_| panic!("{var}={s}: not a number")))
}

/// The operand sets of a check: every input for a source of at most 16 bits, else `n` sets.
fn operand_sets(c: &Check, n: u64) -> Box<dyn Iterator<Item = [u64; 3]>> {
    let seed = seed_of(&c.name);
    match (c.srcs.len(), c.srcs[0]) {
        (1, t) if t.width() <= 16 => Box::new((0..1u64 << t.width()).map(|x| [x, 0, 0])),
        (1, Ty::I(t)) => Box::new(int_cases(t, seed, n).map(|x| [x, 0, 0])),
        (k, Ty::F(fp)) => Box::new(float_cases(fp.format(), k, seed, n)),
        _ => unreachable!(),
    }
}

/// Why `out` is not an acceptable result for the expectation `want`, or `None`.
fn verdict(c: &Check, ops: &[u64], out: &Outcome, want: u64) -> Option<String> {
    let Ty::F(fp) = c.dst else {
        return (out.model != want as u128 || !out.accepts(want as u128)).then(|| "integer result differs".into());
    };
    let f = fp.format();
    if out.model > f.mask() as u128 {
        return Some("model wider than the destination".into());
    }
    let model = out.model as u64;
    if !f.is_nan(want) {
        return if model != want {
            Some("model differs".into())
        } else if !out.accepts(want as u128) {
            Some("model not in its own acceptance set".into())
        } else {
            None
        };
    }
    if !f.is_nan(model) {
        return Some("expected a NaN".into());
    }
    if fp != Fp::F64 {
        return (!out.accepts(want as u128)).then(|| "SoftFloat's NaN not accepted (any NaN expected)".into());
    }
    // f64: the quieted input NaNs, widened to f64 where the source is narrower.
    let quieted: Vec<u64> = c
        .srcs
        .iter()
        .zip(ops)
        .filter_map(|(t, &x)| match t {
            Ty::F(s) if s.format().is_nan(x) => {
                let sf = s.format();
                let payload = (sf.man_field(x) | sf.quiet_bit()) << (52 - sf.man_bits);
                Some(f.pack(sf.sign(x), f.exp_all_ones(), payload))
            }
            _ => None,
        })
        .collect();
    if quieted.is_empty() {
        return None; // a NaN made from numbers: any NaN
    }
    if !quieted.contains(&model) {
        return Some(format!("model is not a quieted input NaN {quieted:x?}"));
    }
    if quieted.contains(&want) && !out.accepts(want as u128) {
        return Some("SoftFloat's propagated input NaN not accepted".into());
    }
    None
}

#[derive(Default)]
struct Stats {
    count: u64,
    mismatches: u64,
    shown: Vec<String>,
    secs: f64,
    /// The form has no semantics in the spec (nothing was checked).
    missing: bool,
}

fn hex(t: Ty, x: u64) -> String {
    format!("{:#0w$x}", x, w = 2 + t.width().div_ceil(4) as usize)
}

fn run_check(c: &Check, n: u64) -> Stats {
    let cat = catalog();
    let found = cat
        .lookup(&c.name)
        .unwrap_or_else(|e| panic!("harness bug: `{}` is not a catalog form: {e}", c.name));
    assert_eq!(found.forms.len(), 1, "`{}`: several forms", c.name);
    let form = &cat.forms[found.forms[0]];
    assert_eq!(form.inputs.len(), c.srcs.len(), "`{}`: operand count", c.name);
    match spec::eval::semantics(form) {
        Some(sem) => run_with(c, form, sem, n),
        None => Stats {
            missing: true,
            ..Stats::default()
        },
    }
}

/// Checks `sem` as the semantics of `form` against `c`'s reference on `n` operand sets.
fn run_with(c: &Check, form: &Form, sem: SemFn, n: u64) -> Stats {
    let mut st = Stats::default();
    let t0 = Instant::now();
    let mut ins = vec![Input::bits(0); c.srcs.len()];
    for ops in operand_sets(c, n) {
        let ops = &ops[..c.srcs.len()];
        for (i, &x) in ops.iter().enumerate() {
            ins[i] = Input::bits(x as u128);
        }
        let want = (c.reference)(ops);
        st.count += 1;
        let res = sem(form, &Args { ins: &ins, dsel: None });
        let why = match &res {
            Err(e) => Some(format!("evaluation error: {e}")),
            Ok(out) if out.len() != 1 => Some(format!("{} outcomes", out.len())),
            Ok(out) => verdict(c, ops, &out[0], want),
        };
        if let Some(why) = why {
            st.mismatches += 1;
            if st.shown.len() < SHOW {
                let operands: Vec<String> = c.srcs.iter().zip(ops).map(|(&t, &x)| hex(t, x)).collect();
                let mut s = format!("{} {}: {why}; ", c.name, operands.join(" "));
                match &res {
                    Ok(out) if !out.is_empty() => {
                        let acc = format!("{:?}", out[0].accept);
                        let acc: String = acc.chars().take(160).collect();
                        let _ = write!(s, "spec {} accept {acc}; ", hex(c.dst, out[0].model as u64));
                    }
                    _ => {}
                }
                let _ = write!(s, "reference {}", hex(c.dst, want));
                st.shown.push(s);
            }
        }
    }
    st.secs = t0.elapsed().as_secs_f64();
    st
}

/// Runs a group of checks; fails with the first mismatches of every failing form.
fn run_group(group: &str, checks: Vec<Check>, n: u64) {
    let t0 = Instant::now();
    let (mut failed, mut missing, mut total) = (Vec::new(), Vec::new(), 0u64);
    let mut checked = 0;
    for c in &checks {
        let st = run_check(c, n);
        if st.missing {
            missing.push(c.name.clone());
            continue;
        }
        checked += 1;
        total += st.count;
        if st.mismatches > 0 {
            failed.push(format!(
                "{}: {} of {} operand sets disagree with the reference:\n    {}",
                c.name,
                st.mismatches,
                st.count,
                st.shown.join("\n    ")
            ));
        }
    }
    eprintln!(
        "{group}: {checked} of {} forms checked on {total} operand sets in {:.1}s",
        checks.len(),
        t0.elapsed().as_secs_f64()
    );
    if !missing.is_empty() {
        eprintln!(
            "{group}: SKIPPED {} forms without semantics in the spec: {}",
            missing.len(),
            missing.join(" ")
        );
        if std::env::var_os("PTXCONF_SOFTFLOAT_REQUIRE").is_some_and(|v| v == "1") {
            failed.push(format!(
                "{} forms have no semantics (PTXCONF_SOFTFLOAT_REQUIRE=1)",
                missing.len()
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{group}: {} forms fail:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// The groups.

const ADD_SUB_MUL_FMA: [(&str, Op); 5] = [
    ("add", Op::Add),
    ("sub", Op::Sub),
    ("mul", Op::Mul),
    ("fma", Op::Fma),
    ("mad", Op::Fma),
];
const DIV_SQRT_RCP: [(&str, Op); 3] = [("div", Op::Div), ("sqrt", Op::Sqrt), ("rcp", Op::Rcp)];

fn all_groups() -> Vec<(&'static str, Vec<Check>)> {
    vec![
        ("arith_f32", arith_group(&[Fp::F32], &ADD_SUB_MUL_FMA, true)),
        ("arith_f64", arith_group(&[Fp::F64], &ADD_SUB_MUL_FMA, false)),
        ("div_sqrt_rcp_f32", arith_group(&[Fp::F32], &DIV_SQRT_RCP, false)),
        ("div_sqrt_rcp_f64", arith_group(&[Fp::F64], &DIV_SQRT_RCP, false)),
        ("arith_f16", half_group()),
        ("arith_bf16", bf16_group()),
        ("cvt_int_to_float", int_to_float_group()),
        ("cvt_float_to_int", float_to_int_group(&[Fp::F32, Fp::F64])),
        ("cvt_float_to_float", {
            let mut v = float_convert_group(&[Fp::F32, Fp::F64]);
            v.extend(round_integral_group(&[Fp::F32, Fp::F64]));
            v
        }),
        ("exhaustive_f16", {
            let mut v = float_to_int_group(&[Fp::F16]);
            v.extend(round_integral_group(&[Fp::F16]));
            v.extend(float_convert_group(&[Fp::F16]));
            v
        }),
        ("exhaustive_bf16", {
            let mut v = float_to_int_group(&[Fp::Bf16]);
            v.extend(round_integral_group(&[Fp::Bf16]));
            v.extend(float_convert_group(&[Fp::Bf16]));
            v
        }),
    ]
}

fn group(name: &str) -> Vec<Check> {
    all_groups()
        .into_iter()
        .find(|(g, _)| *g == name)
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("no group {name}"))
}

macro_rules! group_tests {
    ($($name:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            run_group(stringify!($name), group(stringify!($name)), QUICK_N);
        }
    )*};
}

group_tests!(
    arith_f32,
    arith_f64,
    div_sqrt_rcp_f32,
    div_sqrt_rcp_f64,
    arith_f16,
    arith_bf16,
    cvt_int_to_float,
    cvt_float_to_int,
    cvt_float_to_float,
    exhaustive_f16,
    exhaustive_bf16,
);

/// Every form name is a catalog form with the operand count the harness assumes.
#[test]
fn forms_are_in_the_catalog() {
    let cat = catalog();
    let mut n = 0;
    for (_, checks) in all_groups() {
        for c in checks {
            let found = cat.lookup(&c.name).unwrap_or_else(|e| panic!("`{}`: {e}", c.name));
            let form = &cat.forms[found.forms[0]];
            assert_eq!(form.inputs.len(), c.srcs.len(), "{}", c.name);
            for (o, t) in form.inputs.iter().zip(&c.srcs).chain(form.outputs.iter().zip([&c.dst])) {
                assert_eq!(o.ty.bits(), t.width(), "{}: operand {}", c.name, o.name);
            }
            n += 1;
        }
    }
    eprintln!("{n} forms cross-checked against SoftFloat");
}

/// The long run: `PTXCONF_SOFTFLOAT_N` operand sets per form on all cores.
#[test]
#[ignore = "long: cargo test --release -p ptxconf-generators --test softfloat -- --ignored --nocapture"]
fn long_run() {
    let n = env_u64("PTXCONF_SOFTFLOAT_N").unwrap_or(100_000_000);
    let filter = std::env::var("PTXCONF_SOFTFLOAT_FILTER").unwrap_or_default();
    let checks: Vec<Check> = all_groups()
        .into_iter()
        .flat_map(|(_, v)| v)
        .filter(|c| c.name.contains(&filter))
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(checks.len().max(1));
    println!(
        "{} forms, {n} operand sets each (fewer for exhaustive forms), {threads} threads",
        checks.len()
    );
    println!(
        "{:<36} {:>12} {:>10} {:>9} {:>12}",
        "form", "count", "mismatch", "seconds", "ops/s"
    );
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, AtOrd::Relaxed);
                let Some(c) = checks.get(i) else { break };
                let st = run_check(c, n);
                if st.missing {
                    println!("{:<36} no semantics in the spec: skipped", c.name);
                    continue;
                }
                println!(
                    "{:<36} {:>12} {:>10} {:>9.1} {:>12.0}",
                    c.name,
                    st.count,
                    st.mismatches,
                    st.secs,
                    st.count as f64 / st.secs.max(1e-9)
                );
                for m in &st.shown {
                    println!("    {m}");
                }
                if st.mismatches > 0 {
                    failures.lock().unwrap().push(c.name.clone());
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "forms with mismatches: {}", failures.join(" "));
}

// ---------------------------------------------------------------------------------------------
// Self-checks of the harness: SoftFloat against the host FPU, the rounding function against
// SoftFloat, the exact bf16 path (run on f16) against SoftFloat, float→int against Rust's `as`.

fn same_or_both_nan(f: Format, a: u64, b: u64) -> bool {
    a == b || (f.is_nan(a) && f.is_nan(b))
}

#[test]
fn selfcheck_softfloat_matches_host_fpu() {
    // Rust's f32/f64 arithmetic is IEEE round-to-nearest-even; mul_add is a correctly rounded fma.
    for op in [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Sqrt, Op::Fma] {
        for fp in [Fp::F32, Fp::F64] {
            let f = fp.format();
            for x in float_cases(f, op.arity(), seed_of(&format!("{op:?}{fp:?}")), 200_000) {
                let sf = sf_arith(op, fp, Rnd::N, &x);
                let host = if fp == Fp::F32 {
                    let v = |i: usize| f32::from_bits(x[i] as u32);
                    match op {
                        Op::Add => v(0) + v(1),
                        Op::Sub => v(0) - v(1),
                        Op::Mul => v(0) * v(1),
                        Op::Div => v(0) / v(1),
                        Op::Sqrt => v(0).sqrt(),
                        _ => v(0).mul_add(v(1), v(2)),
                    }
                    .to_bits() as u64
                } else {
                    let v = |i: usize| f64::from_bits(x[i]);
                    match op {
                        Op::Add => v(0) + v(1),
                        Op::Sub => v(0) - v(1),
                        Op::Mul => v(0) * v(1),
                        Op::Div => v(0) / v(1),
                        Op::Sqrt => v(0).sqrt(),
                        _ => v(0).mul_add(v(1), v(2)),
                    }
                    .to_bits()
                };
                assert!(
                    same_or_both_nan(f, sf, host),
                    "{op:?} {fp:?} {x:x?}: SoftFloat {sf:#x} host {host:#x}"
                );
            }
        }
    }
}

#[test]
fn selfcheck_round_to_matches_softfloat() {
    // f64 → f32 / f16 and f32 → f16 through the f64 value, every mode.
    for r in RNDS {
        for (src, dst) in [(Fp::F64, Fp::F32), (Fp::F64, Fp::F16), (Fp::F32, Fp::F16)] {
            let (sf, df) = (src.format(), dst.format());
            for [x, _, _] in float_cases(sf, 1, 11 + r as u64, 200_000) {
                if sf.is_nan(x) {
                    continue;
                }
                let v = exact_f64(src, x);
                let mine = if v.is_infinite() {
                    df.infinity(v < 0.0)
                } else {
                    round_f64(df, v, 0.0, r)
                };
                let theirs = sf_convert(src, dst, x, r);
                assert_eq!(mine, theirs, "{src:?}→{dst:?} {r:?} {x:#x}");
            }
        }
        // Integers, every width, to f16 / f32 / f64.
        for t in INTS {
            for x in int_cases(t, 5, 100_000) {
                let v = t.value(x);
                for fp in [Fp::F16, Fp::F32, Fp::F64] {
                    let mine = round_to(fp.format(), v < 0, v.unsigned_abs(), 0, r);
                    assert_eq!(mine, sf_from_int(fp, v, r), "{t:?} {v} → {fp:?} {r:?}");
                }
            }
        }
    }
}

#[test]
fn selfcheck_exact_arith_matches_softfloat_on_f16() {
    // The bf16 reference is format-generic: run on f16, every mode, it must be SoftFloat.
    let f = Format::F16;
    for op in [Op::Add, Op::Sub, Op::Mul, Op::Fma] {
        for r in RNDS {
            for x in float_cases(f, op.arity(), 21 + r as u64, 100_000) {
                let mine = exact_arith(Fp::F16, op, &x, r);
                let theirs = sf_arith(op, Fp::F16, r, &x);
                assert!(
                    same_or_both_nan(f, mine, theirs),
                    "{op:?} {r:?} {x:x?}: mine {mine:#x} SoftFloat {theirs:#x}"
                );
            }
        }
    }
}

#[test]
fn selfcheck_float_to_int_matches_rust_casts() {
    // Rust's float→int `as` truncates, saturates and maps NaN to 0: PTX's `.rzi`.
    macro_rules! go {
        ($fp:expr, $F:ty, $to_f:expr, $($I:ty),*) => {
            for [x, _, _] in float_cases($fp.format(), 1, 3, 200_000) {
                let v: $F = $to_f(x);
                $(
                    let t = IntType::new(<$I>::BITS, <$I>::MIN != 0);
                    let want = t.encode((v as $I) as i128);
                    assert_eq!(float_to_int($fp, x, t, Rnd::Z), want, "{:?} {x:#x} → {t:?}", $fp);
                )*
            }
        };
    }
    go!(
        Fp::F32,
        f32,
        |x: u64| f32::from_bits(x as u32),
        u8,
        u16,
        u32,
        u64,
        i8,
        i16,
        i32,
        i64
    );
    go!(Fp::F64, f64, f64::from_bits, u8, u16, u32, u64, i8, i16, i32, i64);
}

#[test]
fn selfcheck_reference_spot_values() {
    // A few hand-computed expectations, so the references are anchored outside SoftFloat too.
    let bf = Fp::Bf16;
    // 1 + 2^-8 is halfway between 1 and 1 + 2^-7 in bf16: ties to even, 1.
    assert_eq!(exact_arith(bf, Op::Add, &[0x3f80, 0x3b80, 0], Rnd::N), 0x3f80);
    // 1 + 3·2^-8 ties up to 1 + 2^-6.
    assert_eq!(exact_arith(bf, Op::Add, &[0x3f81, 0x3b80, 0], Rnd::N), 0x3f82);
    // fma(2^-8, 1, 1) is the same tie.
    assert_eq!(exact_arith(bf, Op::Fma, &[0x3b80, 0x3f80, 0x3f80], Rnd::N), 0x3f80);
    assert_eq!(
        exact_arith(bf, Op::Mul, &[0x7f7f, 0x4000, 0], Rnd::N),
        0x7f80,
        "overflow to inf"
    );
    assert_eq!(
        exact_arith(bf, Op::Mul, &[0x0001, 0x3f00, 0], Rnd::N),
        0x0000,
        "half the min subnormal: tie to 0"
    );
    assert_eq!(
        exact_arith(bf, Op::Mul, &[0x0001, 0x3f40, 0], Rnd::N),
        0x0001,
        "0.75 min subnormal: up"
    );
    assert_eq!(
        exact_arith(bf, Op::Sub, &[0x3f80, 0x3f80, 0], Rnd::M),
        0x8000,
        "x - x = -0 rounding down"
    );
    assert!(Format::BF16.is_nan(exact_arith(bf, Op::Fma, &[0x7f80, 0, 0x3f80], Rnd::N)));
    // TwoSum keeps a far-away addend's sign: 1 + 2^-100 rounds up under .rp.
    assert_eq!(round_f64(Format::BF16, 1.0, 2f64.powi(-100), Rnd::P), 0x3f81);
    assert_eq!(round_f64(Format::BF16, 1.0, -(2f64.powi(-100)), Rnd::Z), 0x3f7f);
    // Integers to bf16: 257 is a tie (even: 256), 259 rounds up to 260.
    assert_eq!(int_to_float(IntType::new(32, true), 257, bf, Rnd::N), 0x4380);
    assert_eq!(int_to_float(IntType::new(32, true), 259, bf, Rnd::N), 0x4382);
    assert_eq!(int_to_float(IntType::new(64, false), u64::MAX, bf, Rnd::Z), 0x5f7f);
    // Float→int saturation and NaN.
    let t = IntType::new(32, true);
    assert_eq!(float_to_int(Fp::F32, 0x7fc0_0000, t, Rnd::N), 0);
    assert_eq!(float_to_int(Fp::F32, 0xff80_0000, t, Rnd::N), 0x8000_0000);
    assert_eq!(float_to_int(Fp::F64, 2.5f64.to_bits(), t, Rnd::N), 2);
    assert_eq!(
        float_to_int(Fp::F64, (-2.5f64).to_bits(), t, Rnd::M),
        (-3i32) as u32 as u64
    );
    assert_eq!(
        float_to_int(Fp::F32, 1, t, Rnd::P),
        1,
        "a positive subnormal rounds up to 1"
    );
    assert_eq!(
        float_to_int(Fp::Bf16, 0x3fc0, IntType::new(8, false), Rnd::N),
        2,
        "1.5 ties to 2"
    );
}

/// The harness itself, on stand-in semantics: a correct one passes, wrong ones are caught with a
/// readable report.
#[test]
fn selfcheck_harness_catches_wrong_semantics() {
    fn f32_bits(a: &Args, i: usize) -> f32 {
        f32::from_bits(a.get(i) as u32)
    }
    /// add.rz.f32 done right (SoftFloat), NaN results as "any".
    fn add_rz(_: &Form, a: &Args) -> Outcomes {
        let r = F32::from_bits(a.get(0) as u32).add(F32::from_bits(a.get(1) as u32), RoundingMode::TowardZero);
        let bits = r.to_bits() as u128;
        let accept = if r.is_nan() { Accept::Any } else { Accept::Exact };
        Ok(vec![Outcome { model: bits, accept }])
    }
    /// add.rz.f32 rounded to nearest instead.
    fn add_rn(_: &Form, a: &Args) -> Outcomes {
        let r = f32_bits(a, 0) + f32_bits(a, 1);
        Ok(vec![Outcome {
            model: r.to_bits() as u128,
            accept: if r.is_nan() { Accept::Any } else { Accept::Exact },
        }])
    }
    /// add.rn.f64 that returns the host's default NaN instead of propagating payloads.
    fn add_f64_default_nan(_: &Form, a: &Args) -> Outcomes {
        let r = f64::from_bits(a.get(0) as u64) + f64::from_bits(a.get(1) as u64);
        let r = if r.is_nan() { f64::NAN } else { r };
        Ok(vec![Outcome::exact(r.to_bits() as u128)])
    }
    let cat = catalog();
    let form = |name: &str| &cat.forms[cat.lookup(name).unwrap().forms[0]];
    let rz = arith("add", Op::Add, Fp::F32, Rnd::Z, false, false);
    let st = run_with(&rz, form("add.rz.f32"), add_rz, 20_000);
    assert_eq!((st.count, st.mismatches), (20_000, 0), "{:?}", st.shown);
    let st = run_with(&rz, form("add.rz.f32"), add_rn, 20_000);
    assert!(st.mismatches > 1000 && st.shown.len() == SHOW, "{}", st.mismatches);
    assert!(
        st.shown[0].starts_with("add.rz.f32 0x") && st.shown[0].contains("model differs"),
        "{}",
        st.shown[0]
    );
    let rn64 = arith("add", Op::Add, Fp::F64, Rnd::N, false, false);
    let st = run_with(&rn64, form("add.rn.f64"), add_f64_default_nan, 20_000);
    assert!(st.mismatches > 0, "default NaN for NaN inputs must be caught");
    assert!(
        st.shown.iter().all(|m| m.contains("quieted input NaN")),
        "{:?}",
        st.shown
    );
}
