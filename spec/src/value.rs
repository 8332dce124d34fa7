//! Operands and results of the semantics: bit patterns in, acceptance sets out.

use crate::float::format::Fmt;
use crate::types::FloatFormat;
use std::fmt;

/// A byte or half-word selector written on a video operand (`a.b2`, `b.h1`, `a.b3210`, `d.h10`).
/// `idx` lists the selected lanes in the order written (`.b3210` is `[3, 2, 1, 0]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sel {
    /// `b'b'` for bytes, `b'h'` for half-words.
    pub kind: u8,
    /// Lane indices in the order written; only the first `n` are meaningful.
    pub idx: [u8; 4],
    /// How many lanes are selected (1 to 4).
    pub n: u8,
}

impl Sel {
    /// Parses `b0`, `h1`, `h10`, `b3210`, `b7654` (without the dot).
    pub fn parse(s: &str) -> Option<Sel> {
        let (kind, digits) = s.split_at_checked(1)?;
        let kind = match kind {
            "b" => b'b',
            "h" => b'h',
            _ => return None,
        };
        if digits.is_empty() || digits.len() > 4 {
            return None;
        }
        let mut idx = [0u8; 4];
        for (i, c) in digits.bytes().enumerate() {
            if !c.is_ascii_digit() {
                return None;
            }
            idx[i] = c - b'0';
        }
        Some(Sel {
            kind,
            idx,
            n: digits.len() as u8,
        })
    }

    /// The selected lane indices, in the order written.
    pub fn lanes(&self) -> &[u8] {
        &self.idx[..self.n as usize]
    }
}

impl fmt::Display for Sel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind as char)?;
        for d in self.lanes() {
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

/// A source operand: its bits plus what PTX lets one write around a register name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Input {
    /// The operand's bit pattern in the low bits (a predicate in bit 0, the carry `CC.CF` too).
    pub bits: u128,
    /// `!p` on a predicate, `-a` on a video `vmad` operand.
    pub negated: bool,
    /// The selector written after a video operand (`a.b1`, `b.h0`).
    pub sel: Option<Sel>,
}

impl Input {
    /// A plain operand: `bits`, not negated, no selector.
    pub const fn bits(bits: u128) -> Input {
        Input {
            bits,
            negated: false,
            sel: None,
        }
    }
}

/// The source operands of one evaluation, plus the destination selector or mask (`d.b1`, `d.h10`).
#[derive(Clone, Copy, Debug)]
pub struct Args<'a> {
    /// The source operands in PTX order, as the form's `inputs` list them.
    pub ins: &'a [Input],
    /// The destination's selector (`d.b2`) or SIMD mask (`d.h10`), video forms only.
    pub dsel: Option<Sel>,
}

impl Args<'_> {
    /// Operand `i`'s bits (the front end has checked the count against the form).
    pub fn get(&self, i: usize) -> u128 {
        self.ins[i].bits
    }
    /// Operand `i`'s bits truncated to u64.
    pub fn u(&self, i: usize) -> u64 {
        self.ins[i].bits as u64
    }
    /// Predicate operand `i` with any `!` applied.
    pub fn pred(&self, i: usize) -> bool {
        (self.ins[i].bits & 1 != 0) ^ self.ins[i].negated
    }
}

/// The set of results an implementation may return, around the model value.
#[derive(Clone, Debug, PartialEq)]
pub enum Accept {
    /// Only the model value.
    Exact,
    /// Any value of the destination's width: the manual leaves the result unspecified.
    Any,
    /// The model value or any of these (`rem` of negative operands: truncating or flooring).
    OneOf(Vec<u128>),
    /// Any NaN encoding of the format: "single-precision instructions return an unspecified
    /// NaN" (L7141), "half-precision instructions return an unspecified NaN" (L9307). The model is
    /// the canonical NaN hardware returns.
    Nan(FloatFormat),
    /// An approximate instruction's stated error bound around a reference value.
    Bound(Bound),
    /// A packed result whose lanes have their own sets (`add.f16x2` with a NaN in one lane).
    /// Lane 0 holds the least significant `lane_bits`.
    Lanes {
        /// Width of one lane.
        lane_bits: u32,
        /// Each lane's outcome, lane 0 first.
        lanes: Vec<Outcome>,
    },
}

/// How far an approximate result may lie from the true value, as the manual states it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ErrBound {
    /// At most `n` units in the last place of the destination format at the true value
    /// (`div.approx.f32`: 2, L8075).
    Ulp(u32),
    /// |result − true| ≤ 2^log2 (`sin.approx.f32`: 2^-20.5 on [-2π, 2π], L8929).
    Abs {
        /// The bound's base-2 logarithm.
        log2: f64,
    },
    /// |result − true| ≤ 2^log2 × |true| (`sqrt.approx.f32`: 2^-23, L8633).
    Rel {
        /// The relative bound's base-2 logarithm.
        log2: f64,
    },
}

/// An error bound around a reference value computed in higher precision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    /// The destination's format.
    pub format: FloatFormat,
    /// The true result, to double precision (finite).
    pub reference: f64,
    /// How far from `reference` a result may lie.
    pub err: ErrBound,
    /// Results in the subnormal range may be flushed: a signed zero is also accepted where the
    /// bound reaches below the smallest normal number.
    pub ftz: bool,
    /// Bits that are zero in every accepted result: the low word of `rcp.approx.ftz.f64` and
    /// `rsqrt.approx.ftz.f64` (`d[31:0] = 0`, L8555, L8829); 0 for every other instruction.
    pub zero_bits: u128,
}

impl Bound {
    /// The largest distance from the reference the bound allows.
    pub fn allowance(&self) -> f64 {
        let fmt = Fmt::of(self.format);
        match self.err {
            ErrBound::Ulp(n) => n as f64 * ulp(fmt, self.reference),
            ErrBound::Abs { log2 } => log2.exp2(),
            ErrBound::Rel { log2 } => log2.exp2() * self.reference.abs(),
        }
    }

    /// Whether `bits` (of the bound's format) lies within the bound.
    pub fn accepts(&self, bits: u128) -> bool {
        let fmt = Fmt::of(self.format);
        if fmt.is_nan(bits) || bits & self.zero_bits != 0 {
            return false;
        }
        let mut v = fmt.to_f64(bits);
        if v.is_infinite() {
            // Inf stands for the first power of two past the largest finite number (IEEE 754's
            // overflow threshold), so a bound that reaches past MAX_NORM admits it.
            v = v.signum() * (fmt.emax() as f64 + 1.0).exp2();
        }
        let allow = self.allowance();
        if (v - self.reference).abs() <= allow {
            return true;
        }
        let min_normal = fmt.to_f64(fmt.min_normal(false));
        self.ftz
            && v == 0.0
            && v.is_sign_negative() == self.reference.is_sign_negative()
            && self.reference.abs() - allow < min_normal
    }
}

/// One destination's result: the model value (what the spec prints and what NVIDIA hardware is
/// believed to return) and the set of acceptable bit patterns.
///
/// A result observed on hardware is judged with [`Outcome::accepts`]; the model itself is always
/// accepted.
///
/// ```
/// use spec::int::IntTy;
/// use spec::types::FloatFormat;
/// use spec::value::{Accept, Outcome};
///
/// // A bit-exact result: only the model.
/// let d = Outcome::exact(0x2a);
/// assert!(d.accepts(0x2a) && !d.accepts(0x2b));
///
/// // An unspecified f32 NaN (L7141): every NaN encoding, and nothing else.
/// let nan = Outcome::any_nan(FloatFormat::F32);
/// assert!(nan.accepts(0x7fc0_0000) && nan.accepts(0xffc0_0001));
/// assert!(!nan.accepts(0x7f80_0000)); // +Inf is not a NaN
///
/// // `rem.s32 -7, 2` (L6037): the truncating remainder -1 is the model, the flooring one 1 is
/// // also accepted.
/// let rem = spec::int::rem(IntTy::S32, (-7i32) as u32 as u64, 2);
/// assert_eq!(rem.model, (-1i32) as u32 as u128);
/// assert_eq!(rem.accept, Accept::OneOf(vec![1]));
/// assert!(rem.accepts(1) && !rem.accepts(0));
///
/// // Packed f16x2: lane 0 (low half) is exact 1.0, lane 1 any NaN.
/// let x2 = Outcome::pack(16, vec![Outcome::exact(0x3c00), Outcome::any_nan(FloatFormat::F16)]);
/// assert!(x2.accepts(0x7e00_3c00) && !x2.accepts(0x7e00_3c01));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The value the spec models (the canonical NaN where any NaN is accepted).
    pub model: u128,
    /// Which other values are acceptable.
    pub accept: Accept,
}

impl Outcome {
    /// A fully determined result: `model` and nothing else.
    pub const fn exact(model: u128) -> Outcome {
        Outcome {
            model,
            accept: Accept::Exact,
        }
    }

    /// A NaN result where the manual leaves the payload unspecified: the canonical NaN as the
    /// model, any NaN accepted.
    pub fn any_nan(format: FloatFormat) -> Outcome {
        Outcome {
            model: Fmt::of(format).canonical_nan,
            accept: Accept::Nan(format),
        }
    }

    /// Packs per-lane outcomes (lane 0 least significant) into one register's outcome; the set
    /// stays `Exact` when every lane's is, and a single lane is a scalar result with its own set.
    pub fn pack(lane_bits: u32, mut lanes: Vec<Outcome>) -> Outcome {
        let mask = if lane_bits >= 128 {
            u128::MAX
        } else {
            (1u128 << lane_bits) - 1
        };
        if lanes.len() == 1 {
            let mut o = lanes.remove(0);
            o.model &= mask;
            return o;
        }
        let model = lanes
            .iter()
            .enumerate()
            .fold(0u128, |m, (i, o)| m | (o.model & mask) << (i as u32 * lane_bits));
        if lanes.iter().all(|o| o.accept == Accept::Exact) {
            return Outcome::exact(model);
        }
        Outcome {
            model,
            accept: Accept::Lanes { lane_bits, lanes },
        }
    }

    /// An accepted value other than the model where the set has one, chosen by `salt`: what
    /// another correct implementation might return (another NaN, the other `rem` convention, a
    /// neighbour within an error bound, anything for an unspecified result). Tests use it to
    /// show that a comparison does not depend on the model's choices.
    pub fn alternative(&self, salt: u64) -> u128 {
        match &self.accept {
            Accept::Exact => self.model,
            Accept::Any => self.model ^ (salt as u128 | 1),
            Accept::OneOf(v) if !v.is_empty() => v[(salt as usize) % v.len()],
            Accept::OneOf(_) => self.model,
            Accept::Nan(f) => {
                let fmt = Fmt::of(*f);
                let sign = 1u128 << (fmt.bits - 1);
                // The sign and the lowest payload bit: still a NaN of the format.
                let mut alt = if fmt.signed { self.model ^ sign } else { self.model };
                if fmt.man_bits > 1 && salt & 1 == 1 && fmt.is_nan(alt ^ (1 << fmt.pad)) {
                    alt ^= 1 << fmt.pad;
                }
                if fmt.is_nan(alt) {
                    alt
                } else {
                    self.model
                }
            }
            Accept::Bound(b) => {
                let step = if salt & 1 == 1 { 1u128 } else { u128::MAX };
                let alt = self.model.wrapping_add(step);
                if b.accepts(alt) {
                    alt
                } else {
                    self.model
                }
            }
            Accept::Lanes { lane_bits, lanes } => {
                let mask = if *lane_bits >= 128 {
                    u128::MAX
                } else {
                    (1u128 << lane_bits) - 1
                };
                lanes.iter().enumerate().fold(0u128, |m, (i, o)| {
                    m | (o.alternative(salt.rotate_left(i as u32 * 7)) & mask) << (i as u32 * lane_bits)
                })
            }
        }
    }

    /// Whether `bits` is acceptable (`bits` masked to the destination width by the caller).
    pub fn accepts(&self, bits: u128) -> bool {
        bits == self.model
            || match &self.accept {
                Accept::Exact => false,
                Accept::Any => true,
                Accept::OneOf(v) => v.contains(&bits),
                Accept::Nan(f) => Fmt::of(*f).is_nan(bits),
                Accept::Bound(b) => b.accepts(bits),
                Accept::Lanes { lane_bits, lanes } => {
                    let mask = (1u128 << lane_bits) - 1;
                    lanes
                        .iter()
                        .enumerate()
                        .all(|(i, o)| o.accepts((bits >> (i as u32 * lane_bits)) & mask))
                }
            }
    }
}

/// One unit in the last place of `fmt` at `x`: 2^(max(⌊log2|x|⌋, emin) − mantissa bits).
pub fn ulp(fmt: &Fmt, x: f64) -> f64 {
    let e = if x == 0.0 || !x.is_finite() {
        fmt.emin()
    } else {
        (x.abs().log2().floor() as i32).clamp(fmt.emin(), fmt.emax())
    };
    ((e - fmt.man_bits as i32) as f64).exp2()
}

/// Who is at fault when an instruction cannot be evaluated: the program, the text given to
/// [`eval_line`](crate::eval::eval_line), or the spec (and its catalog) itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EvalErrorKind {
    /// The operands or modifiers break a rule the manual states, which the instruction's syntax
    /// does not rule out by itself: negating both `a*b` and `c` of `vmad` or any source in
    /// `.po` mode (L31056-31077), a video selector or destination merge the manual does not
    /// list (L30854-30863, L31257-31258, L31428-31433), `.sat` with a SIMD `.add` (L31270). The
    /// program is at fault.
    Rule,
    /// The text given to [`eval_line`](crate::eval::eval_line) cannot be read: no such
    /// instruction or form, an operand that is not a number of its type, an unclosed vector, a
    /// wrong operand count. The user's text is at fault.
    Input,
    /// The form reached a function that does not handle it: no semantics in the spec yet, a
    /// type or modifier the catalog row lacks or the function does not know (`not a float
    /// type`, `unknown convertType`, `no CmpOp`, `bad mode`), or operands that do not fit the
    /// form. A defect of the spec, its catalog or the caller, never of the program.
    Unhandled,
}

/// An evaluation error: why an instruction could not be evaluated ([`EvalErrorKind`]) and a
/// message for people. `Display` prints the message alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError {
    /// Who is at fault.
    pub kind: EvalErrorKind,
    /// What went wrong, with the form's name and the manual's line where there is one.
    pub message: String,
}

impl EvalError {
    /// An error of kind `kind`.
    pub fn new(kind: EvalErrorKind, message: impl Into<String>) -> EvalError {
        EvalError {
            kind,
            message: message.into(),
        }
    }

    /// The operands break a rule the manual states ([`EvalErrorKind::Rule`]).
    pub fn rule(message: impl Into<String>) -> EvalError {
        EvalError::new(EvalErrorKind::Rule, message)
    }

    /// The text given to `eval_line` cannot be read ([`EvalErrorKind::Input`]).
    pub fn input(message: impl Into<String>) -> EvalError {
        EvalError::new(EvalErrorKind::Input, message)
    }

    /// The form reached a function that does not handle it ([`EvalErrorKind::Unhandled`]).
    pub fn unhandled(message: impl Into<String>) -> EvalError {
        EvalError::new(EvalErrorKind::Unhandled, message)
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EvalError {}

/// The result of a semantics function: one outcome per destination, in PTX order.
pub type Outcomes = Result<Vec<Outcome>, EvalError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_parse() {
        assert_eq!(Sel::parse("b3210").unwrap().lanes(), [3, 2, 1, 0]);
        assert_eq!(Sel::parse("h1").unwrap().to_string(), "h1");
        assert!(Sel::parse("x1").is_none() && Sel::parse("b").is_none() && Sel::parse("b12345").is_none());
    }

    #[test]
    fn acceptance() {
        assert!(Outcome::exact(5).accepts(5) && !Outcome::exact(5).accepts(6));
        assert!(Outcome {
            model: 1,
            accept: Accept::Any
        }
        .accepts(77));
        let o = Outcome {
            model: 1,
            accept: Accept::OneOf(vec![3]),
        };
        assert!(o.accepts(3) && o.accepts(1) && !o.accepts(2));
        let n = Outcome::any_nan(FloatFormat::F32);
        assert!(n.model == 0x7fff_ffff && n.accepts(0xffc0_0000) && n.accepts(0x7f80_0001) && !n.accepts(0x7f80_0000));
    }

    #[test]
    fn lanes_check_each_half() {
        let o = Outcome::pack(16, vec![Outcome::exact(0x3c00), Outcome::any_nan(FloatFormat::F16)]);
        assert_eq!(o.model, 0x7fff_3c00);
        assert!(o.accepts(0x7e00_3c00) && !o.accepts(0x7e00_3c01) && !o.accepts(0x7c00_3c00));
        assert_eq!(
            Outcome::pack(16, vec![Outcome::exact(1), Outcome::exact(2)]),
            Outcome::exact(0x0002_0001)
        );
    }

    #[test]
    fn bounds_just_inside_and_just_outside() {
        // ulp: 2 ulp of f32 around 1.0 + 2^-23 (ulp 2^-23): 1.0 + 3×2^-23 is in, + 4×2^-23 out.
        let b = Bound {
            format: FloatFormat::F32,
            reference: 1.0 + 2f64.powi(-23),
            err: ErrBound::Ulp(2),
            ftz: false,
            zero_bits: 0,
        };
        assert!(b.accepts(0x3f80_0003) && b.accepts(0x3f7f_ffff) && !b.accepts(0x3f80_0004));
        // Just below 1.0 the ulp halves: reference 1 - 2^-24 with 1 ulp = 2^-24.
        let b = Bound {
            reference: 1.0 - 2f64.powi(-24),
            err: ErrBound::Ulp(1),
            ..b
        };
        assert!(b.accepts(0x3f80_0000) && b.accepts(0x3f7f_fffe) && !b.accepts(0x3f7f_fffd));
        // abs 2^-20.5 around 0.5: a 2^-21 step is inside, 2^-20 outside.
        let b = Bound {
            reference: 0.5,
            err: ErrBound::Abs { log2: -20.5 },
            ..b
        };
        assert!(b.accepts(0x3f00_0008) && !b.accepts(0x3f00_0010) && !b.accepts(F32_NAN));
        // rel 2^-23 around 2.0: one f32 ulp at 2.0 is 2^-22 = 2^-23 × 2: inside; two ulps out.
        let b = Bound {
            reference: 2.0,
            err: ErrBound::Rel { log2: -23.0 },
            ..b
        };
        assert!(b.accepts(0x4000_0001) && !b.accepts(0x4000_0002));
        // ftz: a tiny reference admits the signed zero, a normal one does not.
        let b = Bound {
            reference: 1e-39,
            err: ErrBound::Ulp(2),
            ftz: true,
            ..b
        };
        assert!(b.accepts(0) && !b.accepts(0x8000_0000));
        assert!(!Bound { reference: 1e-30, ..b }.accepts(0));
    }

    const F32_NAN: u128 = 0x7fc0_0000;
}

/// Why [`parse_integer`] refused a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntegerError {
    /// Neither decimal nor `0x` hex.
    NotANumber,
    /// The value does not fit the width (signed or unsigned).
    TooWide,
}

/// An integer operand or parameter value written on a command line or in a launch file:
/// decimal or `0x`/`0X` hex, optionally negative (two's complement), fitting `bits` bits as an
/// unsigned or a signed value; its bits. (PTX's own constants, with octal, binary and the `U`
/// suffix, are the lexer's.)
///
/// ```
/// use spec::value::{parse_integer, IntegerError};
/// assert_eq!(parse_integer("-1", 16), Ok(0xffff));
/// assert_eq!(parse_integer("0x8000", 16), Ok(0x8000));
/// assert_eq!(parse_integer("-32768", 16), Ok(0x8000));
/// assert_eq!(parse_integer("-32769", 16), Err(IntegerError::TooWide));
/// assert_eq!(parse_integer("65536", 16), Err(IntegerError::TooWide));
/// assert_eq!(parse_integer("1e3", 16), Err(IntegerError::NotANumber));
/// ```
pub fn parse_integer(text: &str, bits: u32) -> Result<u128, IntegerError> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let mag = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(h) => u128::from_str_radix(h, 16),
        None => digits.parse::<u128>(),
    }
    .map_err(|_| IntegerError::NotANumber)?;
    let mask = crate::types::mask(bits);
    if neg {
        if mag > 1u128 << (bits - 1).min(127) {
            return Err(IntegerError::TooWide);
        }
        Ok(mag.wrapping_neg() & mask)
    } else if mag > mask {
        Err(IntegerError::TooWide)
    } else {
        Ok(mag)
    }
}
