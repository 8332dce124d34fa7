//! §9.7.1 Integer arithmetic instructions (PTX ISA 8.7, L5585).
//!
//! Every function takes and returns bit patterns in the low bits of a `u64`, with the operand
//! type given as an [`IntTy`] (width and signedness). Arithmetic is done in `i128`/`u128`, wide
//! enough for every intermediate (a 64×64-bit product, a 34-bit sum), so no step can overflow
//! silently. Results the manual leaves unspecified come back as acceptance sets
//! ([`Accept::Any`], [`Accept::OneOf`]) with a documented model value.
//!
//! 16-bit instructions are modelled as exact 16-bit operations. The manual warns that on 32-bit
//! data paths the extra high bits "may become visible" (L5575-5579); that concerns registers fed
//! to wider consumers, not the value of the 16-bit result, which is what is specified here.

use crate::catalog::Form;
use crate::eval::SemFn;
use crate::types::{mask, sext, Type};
use crate::value::{Accept, Args, EvalError, Outcome, Outcomes};

/// An integer operand type: width in bits (16, 32 or 64) and signedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntTy {
    /// Width in bits.
    pub bits: u32,
    /// `.sN` rather than `.uN`.
    pub signed: bool,
}

impl IntTy {
    /// `.u16`.
    pub const U16: IntTy = IntTy {
        bits: 16,
        signed: false,
    };
    /// `.s16`.
    pub const S16: IntTy = IntTy { bits: 16, signed: true };
    /// `.u32`.
    pub const U32: IntTy = IntTy {
        bits: 32,
        signed: false,
    };
    /// `.s32`.
    pub const S32: IntTy = IntTy { bits: 32, signed: true };
    /// `.u64`.
    pub const U64: IntTy = IntTy {
        bits: 64,
        signed: false,
    };
    /// `.s64`.
    pub const S64: IntTy = IntTy { bits: 64, signed: true };

    /// The lane type of a (possibly packed) PTX type: `s16x2` → `S16`.
    pub fn of(t: Type) -> IntTy {
        IntTy {
            bits: t.lane_bits,
            signed: t.is_signed(),
        }
    }

    /// The mathematical value of the bit pattern `x`.
    pub fn value(self, x: u64) -> i128 {
        if self.signed {
            sext(x as u128, self.bits)
        } else {
            (x as u128 & mask(self.bits)) as i128
        }
    }

    /// `v` reduced modulo 2^bits (two's-complement wrap).
    pub fn wrap(self, v: i128) -> u64 {
        (v as u128 & mask(self.bits)) as u64
    }

    /// MININT of the type: −2^(bits−1), or 0 unsigned.
    pub fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    /// MAXINT of the type: 2^(bits−1) − 1, or 2^bits − 1 unsigned.
    pub fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }

    /// `v` clamped to MININT..MAXINT of the type, as bits (`.sat`).
    pub fn saturate(self, v: i128) -> u64 {
        self.wrap(v.clamp(self.min(), self.max()))
    }
}

/// Applies `f` to each 16-bit lane of two packed `.u16x2`/`.s16x2` operands (L5662-5669).
fn lanes2(t: IntTy, a: u64, b: u64, f: impl Fn(i128, i128) -> i128) -> u64 {
    (0..2).fold(0u64, |d, i| {
        let (x, y) = (t.value(a >> (16 * i)), t.value(b >> (16 * i)));
        d | (t.wrap(f(x, y)) << (16 * i))
    })
}

/// §9.7.1.1 add (L5637): `d = a + b`, wrapping modulo 2^n; `.sat` (only `.s32`) "limits result to
/// MININT..MAXINT (no overflow)" (L5680). `.u16x2`/`.s16x2` add each half-word independently.
pub fn add(t: IntTy, sat: bool, a: u64, b: u64) -> u64 {
    let s = t.value(a) + t.value(b);
    if sat {
        t.saturate(s)
    } else {
        t.wrap(s)
    }
}

/// §9.7.1.1 add, packed `.u16x2`/`.s16x2` (L5662): per half-word, wrapping.
pub fn add_x2(lane: IntTy, a: u32, b: u32) -> u32 {
    lanes2(lane, a as u64, b as u64, |x, y| x + y) as u32
}

/// §9.7.1.2 sub (L5700): `d = a - b`, wrapping; `.sat` (only `.s32`) clamps (L5728).
pub fn sub(t: IntTy, sat: bool, a: u64, b: u64) -> u64 {
    let s = t.value(a) - t.value(b);
    if sat {
        t.saturate(s)
    } else {
        t.wrap(s)
    }
}

/// Which part of a double-width product `mul`/`mad` keep (`.hi`, `.lo`, `.wide`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MulMode {
    /// `.hi`: the upper half, `t<2n-1..n>`.
    Hi,
    /// `.lo`: the lower half, `t<n-1..0>`.
    Lo,
    /// `.wide`: all 2n bits.
    Wide,
}

impl MulMode {
    fn parse(s: Option<&str>) -> Result<MulMode, EvalError> {
        match s {
            Some("hi") => Ok(MulMode::Hi),
            Some("lo") => Ok(MulMode::Lo),
            Some("wide") => Ok(MulMode::Wide),
            _ => Err(EvalError::unhandled("mul/mad form without .hi/.lo/.wide")),
        }
    }
}

/// The exact 2n-bit product of two n-bit operands, as a 2n-bit pattern in a u128.
fn product(t: IntTy, a: u64, b: u64) -> u128 {
    // |MIN*MIN| = 2^126 for s64 fits i128; u64*u64 < 2^128 fits u128.
    let p = if t.signed {
        (t.value(a) * t.value(b)) as u128
    } else {
        (a as u128 & mask(t.bits)) * (b as u128 & mask(t.bits))
    };
    p & mask(2 * t.bits)
}

/// Selects `.hi` (t<2n-1..n>), `.lo` (t<n-1..0>) or `.wide` (all 2n bits) of a product.
fn part(t: IntTy, mode: MulMode, p: u128) -> u128 {
    match mode {
        MulMode::Hi => (p >> t.bits) & mask(t.bits),
        MulMode::Lo => p & mask(t.bits),
        MulMode::Wide => p,
    }
}

/// §9.7.1.3 mul (L5742): `t = a * b; d = t<2n-1..n>` (.hi), `t<n-1..0>` (.lo) or `t` (.wide, only
/// 16- and 32-bit types; d is 2n bits) (L5762-5766). The result is a bit pattern of d's width.
pub fn mul(t: IntTy, mode: MulMode, a: u64, b: u64) -> u64 {
    part(t, mode, product(t, a, b)) as u64
}

/// §9.7.1.4 mad (L5788): `d = t<..> + c` with `t = a * b` (L5809-5813); for `.wide`, c and d are
/// 2n bits. `.sat` (only `.hi.s32`, L5825) clamps the addition to MININT..MAXINT.
pub fn mad(t: IntTy, mode: MulMode, sat: bool, a: u64, b: u64, c: u64) -> u64 {
    let p = part(t, mode, product(t, a, b));
    let dt = if mode == MulMode::Wide {
        IntTy { bits: 2 * t.bits, ..t }
    } else {
        t
    };
    let s = dt.value(p as u64) + dt.value(c);
    if sat {
        dt.saturate(s)
    } else {
        dt.wrap(s)
    }
}

/// The 24-bit value a 32-bit register holds for mul24/mad24, and whether the register really
/// holds one: the manual speaks of "24-bit integer values held in 32-bit source registers" (L5857)
/// and says nothing of bits 31..24, so a register whose high byte is not the extension of bit 23
/// is outside the contract.
fn int24(t: IntTy, x: u32) -> (i128, bool) {
    let v = if t.signed {
        sext(x as u128, 24)
    } else {
        (x & 0xff_ffff) as i128
    };
    let fits = t.wrap(v) as u32 == x;
    (v, fits)
}

/// §9.7.1.5 mul24 (L5842): `t = a * b` (48 bits); `.hi`: `d = t<47..16>`, `.lo`: `d = t<31..0>`
/// (L5861-5863). Returns the result and whether both sources were 24-bit values (see `int24`).
pub fn mul24(t: IntTy, hi: bool, a: u32, b: u32) -> (u32, bool) {
    let ((x, fa), (y, fb)) = (int24(t, a), int24(t, b));
    let p = (x * y) as u128 & mask(48);
    let d = if hi { (p >> 16) as u32 } else { p as u32 };
    (d, fa && fb)
}

/// §9.7.1.6 mad24 (L5889): `d = t<47..16> + c` (.hi) or `t<31..0> + c` (.lo) (L5909-5911); `.sat`
/// (only `.hi.s32`) "limits result of 32-bit signed addition to MININT..MAXINT" (L5927).
pub fn mad24(t: IntTy, hi: bool, sat: bool, a: u32, b: u32, c: u32) -> (u32, bool) {
    let (p, fits) = mul24(t, hi, a, b);
    let s = t.value(p as u64) + t.value(c as u64);
    let d = if sat { t.saturate(s) } else { t.wrap(s) };
    (d as u32, fits)
}

/// §9.7.1.7 sad (L5943): `d = c + ((a < b) ? b - a : a - b)` (L5962), wrapping.
pub fn sad(t: IntTy, a: u64, b: u64, c: u64) -> u64 {
    let (x, y) = (t.value(a), t.value(b));
    t.wrap(t.value(c) + (x - y).abs())
}

/// Quotient and remainder of `x / y` rounded towards zero and towards −∞.
fn divisions(x: i128, y: i128) -> ((i128, i128), (i128, i128)) {
    let (q, r) = (x / y, x % y);
    let floor = if r != 0 && ((r < 0) != (y < 0)) {
        (q - 1, r + y)
    } else {
        (q, r)
    };
    ((q, r), floor)
}

/// The model value of `div` by zero: all ones. The manual says "division by zero yields an
/// unspecified, machine-specific value" (L6000); all ones is what the unsigned division
/// sequence yields (quotient bits all set when nothing is subtracted). Not yet observed on
/// hardware for signed types.
pub const DIV_BY_ZERO_MODEL: u64 = u64::MAX;

/// §9.7.1.8 div (L5977): `d = a / b` (L5996).
/// - b = 0: "an unspecified, machine-specific value" (L6000) → [`Accept::Any`], model all ones.
/// - Signed operands of different signs with a non-zero remainder: the rem section says division
///   is machine-dependent, rounding "towards zero or negative infinity" (L6037), so both
///   quotients are accepted; the model is the truncated one (C semantics, which NVIDIA uses).
/// - MIN / −1: the true quotient 2^(n-1) wraps to MIN (the manual states no exception).
pub fn div(t: IntTy, a: u64, b: u64) -> Outcome {
    let (x, y) = (t.value(a), t.value(b));
    if y == 0 {
        return Outcome {
            model: (DIV_BY_ZERO_MODEL & mask(t.bits) as u64) as u128,
            accept: Accept::Any,
        };
    }
    let ((q, _), (qf, _)) = divisions(x, y);
    one_of(t, q, qf)
}

/// §9.7.1.9 rem (L6014): `d = a % b` (L6033).
/// - "The behavior for negative numbers is machine-dependent and depends on whether divide rounds
///   towards zero or negative infinity" (L6037): both remainders are accepted; the model is the
///   truncating one (sign of the dividend), as C and NVIDIA hardware compute it.
/// - b = 0 is not mentioned; like division by zero it is taken as unspecified ([`Accept::Any`]),
///   with the model value a (what `a - q*b` gives for any quotient q).
pub fn rem(t: IntTy, a: u64, b: u64) -> Outcome {
    let (x, y) = (t.value(a), t.value(b));
    if y == 0 {
        return Outcome {
            model: t.wrap(x) as u128,
            accept: Accept::Any,
        };
    }
    let ((_, r), (_, rf)) = divisions(x, y);
    one_of(t, r, rf)
}

fn one_of(t: IntTy, model: i128, alt: i128) -> Outcome {
    let (m, a) = (t.wrap(model) as u128, t.wrap(alt) as u128);
    if m == a {
        Outcome::exact(m)
    } else {
        Outcome {
            model: m,
            accept: Accept::OneOf(vec![a]),
        }
    }
}

/// §9.7.1.10 abs (L6051): `d = |a|` for signed types (L6073). abs(MIN) is not mentioned; the
/// two's-complement result wraps to MIN, which is the natural reading (catalog §3.3).
pub fn abs(t: IntTy, a: u64) -> u64 {
    t.wrap(t.value(a).abs())
}

/// §9.7.1.11 neg (L6087): `d = -a` (L6109), wrapping (neg(MIN) = MIN).
pub fn neg(t: IntTy, a: u64) -> u64 {
    t.wrap(-t.value(a))
}

/// §9.7.1.12 min (L6123) and §9.7.1.13 max (L6186): `d = (a < b) ? a : b` (max: `>`), per
/// half-word for the x2 types (L6148-6158); `.relu` "clamps the result to 0 if negative"
/// (L6166, L6229). `lanes` is 2 for `.u16x2`/`.s16x2`, else 1; `t` is the lane type.
pub fn minmax(t: IntTy, lanes: u32, max: bool, relu: bool, a: u64, b: u64) -> u64 {
    let f = |x: i128, y: i128| {
        let m = if max { x.max(y) } else { x.min(y) };
        if relu {
            m.max(0)
        } else {
            m
        }
    };
    if lanes == 2 {
        lanes2(t, a, b, f)
    } else {
        t.wrap(f(t.value(a), t.value(b)))
    }
}

/// §9.7.1.14 popc (L6249): the number of one bits of a `.b32`/`.b64` (L6267-6271).
pub fn popc(bits: u32, a: u64) -> u32 {
    (a as u128 & mask(bits)).count_ones()
}

/// §9.7.1.15 clz (L6286): leading zeros of a `.b32`/`.b64`; 32 or 64 for zero (L6300-6311).
pub fn clz(bits: u32, a: u64) -> u32 {
    let a = a as u128 & mask(bits);
    a.leading_zeros() - (128 - bits)
}

/// §9.7.1.16 bfind (L6326): the bit position of the most significant non-sign bit
/// (L6350-6359): for negative signed inputs the most significant 0, otherwise the most
/// significant 1; 0xffffffff if there is none. `.shiftamt` returns `msb - d` instead, which is the
/// left shift that brings that bit to the msb; 0xffffffff stays 0xffffffff.
pub fn bfind(t: IntTy, shiftamt: bool, a: u64) -> u32 {
    let msb = t.bits - 1;
    let mut a = a as u128 & mask(t.bits);
    if t.signed && (a >> msb) & 1 == 1 {
        a = !a & mask(t.bits);
    }
    if a == 0 {
        return u32::MAX;
    }
    let d = 127 - a.leading_zeros();
    if shiftamt {
        msb - d
    } else {
        d
    }
}

/// §9.7.1.17 fns (L6374): the bit position of the n-th set bit of `mask`, counting from `base`
/// upwards (offset > 0) or downwards (offset < 0); offset 0 tests bit `base` itself; 0xffffffff
/// when not found (L6394-6415). "base must be <= 31, otherwise behavior is undefined" (L6390):
/// then the result is [`Accept::Any`] (base is compared as unsigned, so a negative `.s32` base is
/// out of range too), with model value 0xffffffff (nothing found).
pub fn fns(mask_: u32, base: u32, offset: i32) -> Outcome {
    if base > 31 {
        return Outcome {
            model: u32::MAX as u128,
            accept: Accept::Any,
        };
    }
    let bit = |p: i64| (mask_ >> p) & 1 == 1;
    let base = base as i64;
    let d = if offset == 0 {
        if bit(base) {
            base
        } else {
            -1
        }
    } else {
        let inc = if offset > 0 { 1 } else { -1 };
        let mut count = (offset as i64).abs() - 1;
        let mut pos = base;
        let mut found = -1;
        while (0..32).contains(&pos) {
            if bit(pos) {
                if count == 0 {
                    found = pos;
                    break;
                }
                count -= 1;
            }
            pos += inc;
        }
        found
    };
    Outcome::exact(d as u32 as u128)
}

/// §9.7.1.18 brev (L6432): `d[i] = a[msb-i]` (L6450-6454).
pub fn brev(bits: u32, a: u64) -> u64 {
    (a.reverse_bits() >> (64 - bits)) & mask(bits) as u64
}

/// §9.7.1.19 bfe (L6468), the pseudocode of L6501-6513: `pos = b & 0xff`, `len = c & 0xff`; the
/// field a[pos .. pos+len-1] (bits beyond the msb read as the sign bit) is zero-extended (unsigned
/// types, or len = 0) or sign-extended from a[min(pos+len-1, msb)] (signed types).
pub fn bfe(t: IntTy, a: u64, b: u32, c: u32) -> u64 {
    let msb = t.bits - 1;
    let (pos, len) = (b & 0xff, c & 0xff);
    let a = a as u128 & mask(t.bits);
    let sbit = if !t.signed || len == 0 {
        0
    } else {
        (a >> (pos + len - 1).min(msb)) & 1
    };
    let mut d = 0u128;
    for i in 0..=msb {
        let bit = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1
        } else {
            sbit
        };
        d |= bit << i;
    }
    d as u64
}

/// §9.7.1.20 bfi (L6527), the pseudocode of L6551-6558: `pos = c & 0xff`, `len = d & 0xff`; the
/// low `len` bits of a replace b[pos ..], bits beyond the msb are dropped.
pub fn bfi(bits: u32, a: u64, b: u64, c: u32, d: u32) -> u64 {
    let msb = bits - 1;
    let (pos, len) = (c & 0xff, d & 0xff);
    let mut f = b as u128 & mask(bits);
    for i in (0..len).take_while(|i| pos + i <= msb) {
        let bit = (a as u128 >> i) & 1;
        f = (f & !(1u128 << (pos + i))) | (bit << (pos + i));
    }
    f as u64
}

/// §9.7.1.21 szext (L6572): sign- or zero-extends the low N = b bits of a (L6599-6609).
/// ⚠ The last line of the pseudocode reads `(sign_bit ? mask | 0)` (L6609); it is taken as
/// `(sign_bit ? mask : 0)`, which agrees with the prose (L6591-6595) on every edge: N = 0 gives 0,
/// `.clamp` with N ≥ 32 gives a, `.wrap` uses N mod 32 (catalog §3.10, defect 1).
pub fn szext(signed: bool, clamp: bool, a: u32, b: u32) -> u32 {
    let b1 = b & 0x1f;
    let too_large = b >= 32 && clamp;
    let mask_ = if too_large { 0 } else { u32::MAX << b1 };
    let sign_pos = b1.wrapping_sub(1) & 0x1f;
    let sign_bit = !(b1 == 0 || too_large || !signed) && (a >> sign_pos) & 1 == 1;
    (a & !mask_) | if sign_bit { mask_ } else { 0 }
}

/// §9.7.1.22 bmsk (L6624): a mask of b one-bits starting at bit a, the pseudocode of
/// L6648-6673 (width limited to 0..32 in `.clamp` and 0..31 in `.wrap` mode, L6677).
pub fn bmsk(clamp: bool, a: u32, b: u32) -> u32 {
    let a1 = a & 0x1f;
    let mut mask0 = u32::MAX << a1;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut mask1 = if sum >= 32 { 0 } else { u32::MAX << sum };
    let sum_overflow = sum >= 32;
    let (mut pos_overflow, mut width_overflow) = (false, false);
    if clamp {
        if a >= 32 {
            pos_overflow = true;
            mask0 = 0;
        }
        if b >= 32 {
            width_overflow = true;
        }
    }
    if sum_overflow || pos_overflow || width_overflow {
        mask1 = 0;
    } else if b1 == 0 {
        mask1 = u32::MAX;
    }
    mask0 & !mask1
}

/// §9.7.1.23 dp4a (L6692): `d = c + Σ Va[i]*Vb[i]` over the four bytes, each sign- or
/// zero-extended by its type (L6714-6723); 32-bit modular accumulation.
pub fn dp4a(a_signed: bool, b_signed: bool, a: u32, b: u32, c: u32) -> u32 {
    let byte = |x: u32, i: u32, s: bool| IntTy { bits: 8, signed: s }.value((x >> (8 * i)) as u64);
    let sum: i128 = (0..4).map(|i| byte(a, i, a_signed) * byte(b, i, b_signed)).sum();
    (c as i128 + sum) as u32
}

/// §9.7.1.24 dp2a (L6738): `d = c + Σ Va[i]*Vb[b_select+i]` over the two half-words of a and two
/// bytes of b — the low pair (`.lo`) or the high pair (`.hi`) (L6763-6776).
pub fn dp2a(hi: bool, a_signed: bool, b_signed: bool, a: u32, b: u32, c: u32) -> u32 {
    let half = |i: u32| {
        IntTy {
            bits: 16,
            signed: a_signed,
        }
        .value((a >> (16 * i)) as u64)
    };
    let byte = |i: u32| {
        IntTy {
            bits: 8,
            signed: b_signed,
        }
        .value((b >> (8 * i)) as u64)
    };
    let sel = if hi { 2 } else { 0 };
    let sum: i128 = (0..2).map(|i| half(i) * byte(sel + i)).sum();
    (c as i128 + sum) as u32
}

// ---- adapters: decode the form, call the function above ----

fn ty(f: &Form, name: &str) -> Result<Type, EvalError> {
    f.ty(name)
        .ok_or_else(|| EvalError::unhandled(format!("form `{}` has no type `{name}`", f.name)))
}

fn ok(v: impl Into<u128>) -> Outcomes {
    Ok(vec![Outcome::exact(v.into())])
}

/// mul24/mad24 result: exact when the sources are 24-bit values, else any value.
fn int24_outcome((d, fits): (u32, bool)) -> Outcomes {
    Ok(vec![Outcome {
        model: d as u128,
        accept: if fits { Accept::Exact } else { Accept::Any },
    }])
}

fn sem_add(f: &Form, x: &Args) -> Outcomes {
    let t = ty(f, "t")?;
    if t.lanes == 2 {
        return ok(add_x2(IntTy::of(t), x.u(0) as u32, x.u(1) as u32));
    }
    ok(add(IntTy::of(t), f.has("sat"), x.u(0), x.u(1)))
}

fn sem_sub(f: &Form, x: &Args) -> Outcomes {
    ok(sub(IntTy::of(ty(f, "t")?), f.has("sat"), x.u(0), x.u(1)))
}

fn sem_mul(f: &Form, x: &Args) -> Outcomes {
    ok(mul(IntTy::of(ty(f, "t")?), MulMode::parse(f.var("m"))?, x.u(0), x.u(1)))
}

fn sem_mad(f: &Form, x: &Args) -> Outcomes {
    ok(mad(
        IntTy::of(ty(f, "t")?),
        MulMode::parse(f.var("m"))?,
        f.has("sat"),
        x.u(0),
        x.u(1),
        x.u(2),
    ))
}

fn sem_mul24(f: &Form, x: &Args) -> Outcomes {
    int24_outcome(mul24(
        IntTy::of(ty(f, "t")?),
        f.var("m") == Some("hi"),
        x.u(0) as u32,
        x.u(1) as u32,
    ))
}

fn sem_mad24(f: &Form, x: &Args) -> Outcomes {
    let t = IntTy::of(ty(f, "t")?);
    int24_outcome(mad24(
        t,
        f.var("m") == Some("hi"),
        f.has("sat"),
        x.u(0) as u32,
        x.u(1) as u32,
        x.u(2) as u32,
    ))
}

fn sem_sad(f: &Form, x: &Args) -> Outcomes {
    ok(sad(IntTy::of(ty(f, "t")?), x.u(0), x.u(1), x.u(2)))
}

fn sem_div(f: &Form, x: &Args) -> Outcomes {
    Ok(vec![div(IntTy::of(ty(f, "t")?), x.u(0), x.u(1))])
}

fn sem_rem(f: &Form, x: &Args) -> Outcomes {
    Ok(vec![rem(IntTy::of(ty(f, "t")?), x.u(0), x.u(1))])
}

fn sem_abs(f: &Form, x: &Args) -> Outcomes {
    ok(abs(IntTy::of(ty(f, "t")?), x.u(0)))
}

fn sem_neg(f: &Form, x: &Args) -> Outcomes {
    ok(neg(IntTy::of(ty(f, "t")?), x.u(0)))
}

fn sem_minmax(f: &Form, x: &Args) -> Outcomes {
    let t = ty(f, "t")?;
    ok(minmax(
        IntTy::of(t),
        t.lanes,
        f.opcode == "max",
        f.has("relu"),
        x.u(0),
        x.u(1),
    ))
}

fn sem_popc(f: &Form, x: &Args) -> Outcomes {
    ok(popc(ty(f, "t")?.bits(), x.u(0)))
}

fn sem_clz(f: &Form, x: &Args) -> Outcomes {
    ok(clz(ty(f, "t")?.bits(), x.u(0)))
}

fn sem_bfind(f: &Form, x: &Args) -> Outcomes {
    ok(bfind(IntTy::of(ty(f, "t")?), f.has("shiftamt"), x.u(0)))
}

fn sem_fns(_: &Form, x: &Args) -> Outcomes {
    Ok(vec![fns(x.u(0) as u32, x.u(1) as u32, x.u(2) as u32 as i32)])
}

fn sem_brev(f: &Form, x: &Args) -> Outcomes {
    ok(brev(ty(f, "t")?.bits(), x.u(0)))
}

fn sem_bfe(f: &Form, x: &Args) -> Outcomes {
    ok(bfe(IntTy::of(ty(f, "t")?), x.u(0), x.u(1) as u32, x.u(2) as u32))
}

fn sem_bfi(f: &Form, x: &Args) -> Outcomes {
    ok(bfi(ty(f, "t")?.bits(), x.u(0), x.u(1), x.u(2) as u32, x.u(3) as u32))
}

fn sem_szext(f: &Form, x: &Args) -> Outcomes {
    ok(szext(
        ty(f, "t")?.is_signed(),
        f.var("m") == Some("clamp"),
        x.u(0) as u32,
        x.u(1) as u32,
    ))
}

fn sem_bmsk(f: &Form, x: &Args) -> Outcomes {
    ok(bmsk(f.var("m") == Some("clamp"), x.u(0) as u32, x.u(1) as u32))
}

fn sem_dp4a(f: &Form, x: &Args) -> Outcomes {
    let (a, b) = (ty(f, "at")?.is_signed(), ty(f, "bt")?.is_signed());
    ok(dp4a(a, b, x.u(0) as u32, x.u(1) as u32, x.u(2) as u32))
}

fn sem_dp2a(f: &Form, x: &Args) -> Outcomes {
    let (a, b) = (ty(f, "at")?.is_signed(), ty(f, "bt")?.is_signed());
    ok(dp2a(
        f.var("m") == Some("hi"),
        a,
        b,
        x.u(0) as u32,
        x.u(1) as u32,
        x.u(2) as u32,
    ))
}

pub(crate) fn semantics(form: &Form) -> Option<SemFn> {
    Some(match form.section {
        "9.7.1.1" => sem_add,
        "9.7.1.2" => sem_sub,
        "9.7.1.3" => sem_mul,
        "9.7.1.4" => sem_mad,
        "9.7.1.5" => sem_mul24,
        "9.7.1.6" => sem_mad24,
        "9.7.1.7" => sem_sad,
        "9.7.1.8" => sem_div,
        "9.7.1.9" => sem_rem,
        "9.7.1.10" => sem_abs,
        "9.7.1.11" => sem_neg,
        "9.7.1.12" | "9.7.1.13" => sem_minmax,
        "9.7.1.14" => sem_popc,
        "9.7.1.15" => sem_clz,
        "9.7.1.16" => sem_bfind,
        "9.7.1.17" => sem_fns,
        "9.7.1.18" => sem_brev,
        "9.7.1.19" => sem_bfe,
        "9.7.1.20" => sem_bfi,
        "9.7.1.21" => sem_szext,
        "9.7.1.22" => sem_bmsk,
        "9.7.1.23" => sem_dp4a,
        "9.7.1.24" => sem_dp2a,
        _ => return None,
    })
}
