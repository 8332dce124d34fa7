//! Conversions with a floating-point side: float → integer (f2s, f2u), integer → float (s2f,
//! u2f), rounding to an integral value in the same format, and [`convert`], the one element
//! conversion between any two float formats (f2f) that every packed form is built from.

use super::int;
use crate::catalog::Form;
use crate::float::format::{Fmt, Special, Val, F32, F64};
use crate::float::ops::{finish, Mods, NanRule};
use crate::float::round::{round, to_integral, Rnd};
use crate::types::{mask, Kind, Type};
use crate::value::{Accept, Args, EvalError, Outcome, Outcomes};

/// How one element is converted: the rounding modifier and the layers PTX puts around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    /// `.frnd` (`.rn .rna .rz .rm .rp`, `.rs` with its random bits) or `.irnd` (as the same
    /// directions, to an integral value); `.rn` where none is written (widening conversions,
    /// which are exact).
    pub rnd: Rnd,
    /// `.ftz`: "applies only to single-precision (.f32) inputs and results" (L13802, L13856):
    /// an `.f32` source is flushed before the conversion, an `.f32` result after it.
    pub ftz: bool,
    /// `.sat` on a float destination: clamp to [0.0, 1.0], NaN to +0.0 (L13868).
    pub sat: bool,
    /// `.relu`: negative results to 0, NaN results to the canonical NaN (L13872).
    pub relu: bool,
    /// `.satfinite`: no Inf out of range, no NaN where the format has none (L13876).
    pub satfinite: bool,
    /// Which NaN a NaN result is ([`NanRule::of`] the form).
    pub nan: NanRule,
}

impl Mode {
    /// The modifiers written on `form`; a `.rs` form's random bits are the caller's to add.
    pub fn of(form: &Form) -> Mode {
        Mode {
            rnd: form
                .var("frnd")
                .or(form.var("irnd"))
                .and_then(Rnd::parse)
                .unwrap_or(Rnd::Rn),
            ftz: form.has("ftz"),
            sat: form.has("sat"),
            relu: form.has("relu"),
            satfinite: form.has("satfinite"),
            nan: NanRule::of(form),
        }
    }
}

/// f2f: converts `a` (bits of `from`) into `to`, rounding once with `m.rnd`, then `.ftz`,
/// `.satfinite`, `.sat`/`.relu` and the NaN rule.
///
/// - Out-of-range results follow IEEE 754 per rounding mode (Inf or ±MAX_NORM; e4m3 and ue8m0,
///   which have no Inf, give their NaN where IEEE would give Inf). The operand chapter's
///   "~131,000 for f16" (L3188) is read as this overflow rule (catalog §9 #11).
/// - `.satfinite` (L13876): "if the absolute value of the input is greater than MAX_NORM, the
///   result is the sign-preserved MAX_NORM" — an Inf input or a rounded overflow gives ±MAX_NORM
///   (a finite input at most MAX_NORM never rounds past it), +MAX_NORM for unsigned ue8m0.
/// - ue8m0 has no sign and no zero (L1407): the magnitude is converted (the sign is dropped, as
///   `.satfinite`'s "positive MAX_NORM for .ue8m0x2, where the destination sign is not
///   supported" implies), and zero or anything below 2^-127 gives code 0 (2^-127, the smallest
///   value) under `.rz` and `.rp` alike; an overflow or Inf without `.satfinite` gives the NaN
///   0xff, the format having no Inf (interpretation).
/// - NaN inputs: see [`nan`].
pub fn convert(from: &Fmt, to: &Fmt, a: u128, m: Mode) -> Outcome {
    let a = if m.ftz && *from == F32 { F32.ftz(a) } else { a };
    let bits = match from.decode(a) {
        Val::Nan => return nan(from, to, a, m),
        Val::Inf { neg } => {
            if m.satfinite {
                to.max_finite(neg)
            } else if let Some(inf) = to.inf(neg) {
                inf
            } else if to.special == Special::NanAllOnes {
                to.canonical_nan
            } else {
                to.max_finite(neg)
            }
        }
        Val::Finite { neg, sig, exp } => {
            let r = round(to, neg, sig as u128, exp, false, m.rnd);
            if r.overflow && m.satfinite {
                to.max_finite(neg)
            } else {
                r.bits
            }
        }
    };
    let mods = Mods {
        ftz: m.ftz && *to == F32,
        sat: m.sat,
        relu: m.relu,
    };
    single_nan(to, finish(to, bits, mods, m.nan, &[]))
}

/// "Any NaN" of a format with one NaN encoding is that encoding: ue8m0's 0xff (L1407).
fn single_nan(to: &Fmt, o: Outcome) -> Outcome {
    if !to.signed && to.special == Special::NanAllOnes && o.accept == Accept::Nan(to.format) {
        Outcome::exact(o.model)
    } else {
        o
    }
}

/// The result of converting a NaN `a` of `from` into `to`, in this order:
/// - `.sat`: +0.0 ("NaN results are flushed to positive zero", L13868);
/// - fp6/fp4 destinations, which have no NaN: +MAX_NORM (`.satfinite`, mandatory for them,
///   L13876; this wins over `.relu`'s canonical NaN, which the format cannot hold);
/// - `.relu`: the canonical NaN (L13872);
/// - an `.f64` destination: the payload is kept ("NaN payloads are supported for
///   double-precision instructions", L7141): interpretation — the source's sign and mantissa,
///   the mantissa left-aligned in the wider field (IEEE 754 §6.2.3's recommendation), quieted;
///   except `cvt.ftz.f64.f32`, whose model is the H200's widened canonical f32 NaN (the kept
///   payload also accepted);
/// - otherwise any NaN of the destination (rows flagged `nan-unspec`; also the "NaN in the
///   specified destination format" of `.satfinite`, L13876), the canonical one as the model.
pub fn nan(from: &Fmt, to: &Fmt, a: u128, m: Mode) -> Outcome {
    if m.sat {
        return Outcome::exact(to.zero(false));
    }
    if to.special == Special::None {
        return Outcome::exact(to.max_finite(false));
    }
    if m.relu {
        return Outcome::exact(to.canonical_nan);
    }
    if m.nan == NanRule::Payload && *to == F64 {
        let (neg, _, man) = from.fields(a);
        let kept = F64.quiet(F64.pack(neg, 0x7ff, man << (52 - from.man_bits)));
        if m.ftz && *from == F32 {
            // `.ftz` puts the source through the single-precision path, whose NaN is
            // unspecified (L7141, L13856): the H200 gives the canonical f32 NaN widened,
            // 0x7fffffffe0000000, for every NaN, sign and payload dropped (2026-11-26,
            // corpus/findings/h200/cvt-bitfield.md); the payload-keeping reading stays accepted.
            let (_, _, canon) = F32.fields(F32.canonical_nan);
            let widened = F64.pack(false, 0x7ff, canon << (52 - F32.man_bits));
            return Outcome {
                model: widened,
                accept: Accept::OneOf(vec![kept]),
            };
        }
        return Outcome::exact(kept);
    }
    single_nan(to, Outcome::any_nan(to.format))
}

/// Rounds a float to an integral value in its own format with an integer rounding modifier
/// (`cvt.rni.f32.f32`, L13850): IEEE roundToIntegral, the sign kept (−0.3 → −0.0); NaN, Inf and
/// values already integral pass unchanged.
pub fn round_to_integral(fmt: &Fmt, a: u128, rnd: Rnd) -> u128 {
    match fmt.decode(a) {
        Val::Finite { neg, sig, exp } if exp < 0 => {
            let (mag, _) = to_integral(neg, sig as u128, exp, rnd);
            // At most one binade above the input: exact in the format.
            round(fmt, neg, mag, 0, false, Rnd::Rn).bits
        }
        _ => a,
    }
}

/// `cvt{.irnd}{.ftz}{.sat}.ftype.ftype`: with `.irnd`, rounds to an integral value (L13850);
/// without, the value is unchanged apart from `.ftz` and `.sat`.
///
/// NaN: `.f32`/`.f16`/`.bf16` give any NaN (`nan-unspec`); `.f64` keeps the payload, quieted.
/// Interpretation: without `.irnd`, `cvt.f64.f64` is a copy (ptxas may emit a move), so the
/// unquieted input is accepted as well.
pub fn same(fmt: &Fmt, a: u128, irnd: Option<Rnd>, m: Mode) -> Outcome {
    let a = if m.ftz { fmt.ftz(a) } else { a };
    if fmt.is_nan(a) {
        if m.sat {
            return Outcome::exact(fmt.zero(false));
        }
        if m.nan == NanRule::Payload {
            let q = fmt.quiet(a) & fmt.mask();
            return if irnd.is_none() && q != a {
                Outcome {
                    model: q,
                    accept: Accept::OneOf(vec![a]),
                }
            } else {
                Outcome::exact(q)
            };
        }
        return Outcome::any_nan(fmt.format);
    }
    let r = irnd.map_or(a, |rnd| round_to_integral(fmt, a, rnd));
    let mods = Mods {
        ftz: m.ftz,
        sat: m.sat,
        relu: false,
    };
    finish(fmt, r, mods, m.nan, &[a])
}

/// The integer a NaN converts to.
///
/// PTX ISA 8.7 says "NaN inputs are converted to 0" (L13794). PTX ISA 9.0 corrected this to:
/// zero if the source is not `.f64` and the destination is not `.s64`/`.u64`, otherwise
/// `1 << (BitWidth(dst) - 1)` (MININT for signed types, `(MAXINT >> 1) + 1` for unsigned ones;
/// the 9.0 text as quoted in llvm/llvm-project#159530). The H200 gives exactly the 9.0 values on
/// all 120 affected forms (2026-11-26, corpus/findings/h200/cvt-bitfield.md): the manual's own
/// correction and the hardware agree, so the spec follows them, exactly (a set with 8.7's 0 would
/// also make these forms' results unusable downstream in generated programs).
pub fn nan_to_int(from: &Fmt, dt: Type) -> u128 {
    if dt.bits() == 64 || *from == F64 {
        1 << (dt.bits() - 1)
    } else {
        0
    }
}

/// f2s / f2u: a float to an integer type. NaN gives [`nan_to_int`]; otherwise the value is
/// rounded to an integral value by `.irnd` (L13774) and clamped to the destination range, which
/// is the default (".sat is redundant", L13818): ±Inf give MAXINT/MININT, negative values 0 for
/// unsigned types. `.ftz` flushes a subnormal `.f32` source first (L13802).
pub fn to_int(from: &Fmt, a: u128, rnd: Rnd, ftz: bool, dt: Type) -> u128 {
    let a = if ftz && *from == F32 { F32.ftz(a) } else { a };
    let (lo, hi) = int::range(dt);
    let v = match from.decode(a) {
        Val::Nan => return nan_to_int(from, dt),
        Val::Inf { neg } => {
            if neg {
                lo
            } else {
                hi
            }
        }
        Val::Finite { neg, sig, exp } => {
            let (mag, _) = to_integral(neg, sig as u128, exp, rnd);
            // Anything past 2^100 saturates anyway; keep the sign arithmetic in range.
            let mag = mag.min(1 << 100) as i128;
            if neg {
                -mag
            } else {
                mag
            }
        }
    };
    v.clamp(lo, hi) as u128 & mask(dt.bits())
}

/// s2f / u2f: an integer value rounded into `to` by `.frnd` (mandatory, L13699), overflowing per
/// IEEE 754 (see [`convert`]).
pub fn from_int(v: i128, to: &Fmt, rnd: Rnd) -> u128 {
    round(to, v < 0, v.unsigned_abs(), 0, false, rnd).bits
}

fn float_of(t: Type) -> Option<&'static Fmt> {
    match t.kind {
        Kind::Float(f) => Some(Fmt::of(f)),
        _ => None,
    }
}

/// Adapter for `cvt.irnd{.ftz}{.sat}.<int>.<float>`.
pub fn cvt_f2i(form: &Form, args: &Args) -> Outcomes {
    let (Some(dt), Some(from)) = (form.ty("dt"), form.ty("at").and_then(float_of)) else {
        return Err(EvalError::unhandled(format!(
            "`{}`: not a float-to-integer conversion",
            form.name
        )));
    };
    let m = Mode::of(form);
    Ok(vec![Outcome::exact(to_int(from, args.get(0), m.rnd, m.ftz, dt))])
}

/// Adapter for `cvt.frnd{.ftz}{.sat}.<float>.<int>`: `.sat` clamps to [0.0, 1.0]; `.ftz` cannot
/// act (an integer never rounds to a subnormal).
pub fn cvt_i2f(form: &Form, args: &Args) -> Outcomes {
    let (Some(to), Some(at)) = (form.ty("dt").and_then(float_of), form.ty("at")) else {
        return Err(EvalError::unhandled(format!(
            "`{}`: not an integer-to-float conversion",
            form.name
        )));
    };
    let m = Mode::of(form);
    let r = from_int(int::value(args.get(0), at), to, m.rnd);
    let mods = Mods {
        ftz: m.ftz && *to == F32,
        sat: m.sat,
        relu: false,
    };
    Ok(vec![finish(to, r, mods, m.nan, &[])])
}

/// Adapter for `cvt{.irnd}{.ftz}{.sat}.ftype.ftype`.
pub fn cvt_same(form: &Form, args: &Args) -> Outcomes {
    let Some(fmt) = form.ty("dt").and_then(float_of) else {
        return Err(EvalError::unhandled(format!("`{}`: not a float conversion", form.name)));
    };
    let irnd = form.var("irnd").and_then(Rnd::parse);
    Ok(vec![same(fmt, args.get(0), irnd, Mode::of(form))])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::float::format::{BF16, F16};

    fn mode() -> Mode {
        Mode {
            rnd: Rnd::Rn,
            ftz: false,
            sat: false,
            relu: false,
            satfinite: false,
            nan: NanRule::Payload,
        }
    }

    #[test]
    fn nan_payload_widens_into_f64() {
        // f32 sNaN 0x7f800001: mantissa 1 moves to bit 29, and the quiet bit is set.
        let o = convert(&F32, &F64, 0x7f80_0001, mode());
        assert_eq!(o, Outcome::exact(0x7ff8_0000_2000_0000));
        let o = convert(&F16, &F64, 0xfe01, mode());
        assert_eq!(o, Outcome::exact(0xfff8_0400_0000_0000));
    }

    #[test]
    fn integral_keeps_the_sign() {
        assert_eq!(round_to_integral(&F32, 0xbe99_999a, Rnd::Rn), 0x8000_0000); // -0.3 → -0
        assert_eq!(round_to_integral(&F32, 0x3fc0_0000, Rnd::Rn), 0x4000_0000); // 1.5 → 2
        assert_eq!(round_to_integral(&BF16, 0x3f40, Rnd::Rp), 0x3f80); // 0.75 → 1
    }
}
