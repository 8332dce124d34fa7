//! PTX's rules around an IEEE result: `.ftz` on inputs and results, `.sat`, `.relu`, and which
//! NaN comes out — the layer every floating-point instruction shares.

use super::format::Fmt;
use crate::catalog::Form;
use crate::value::{Accept, Outcome};

/// The result modifiers written on a form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mods {
    /// Flush subnormal inputs and results to sign-preserving zero (L7139).
    pub ftz: bool,
    /// Clamp to [0.0, 1.0], NaN to +0.0 (L7141, L7590).
    pub sat: bool,
    /// Clamp negative results to 0, NaN results to the canonical NaN (L9664, L13872).
    pub relu: bool,
}

impl Mods {
    /// The `.ftz`, `.sat` and `.relu` written on `form`.
    pub fn of(form: &Form) -> Mods {
        Mods {
            ftz: form.has("ftz"),
            sat: form.has("sat"),
            relu: form.has("relu"),
        }
    }
}

/// Which NaN an instruction returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NanRule {
    /// Any NaN; the model is the canonical NaN ("single-precision instructions return an
    /// unspecified NaN", L7141; half precision L9307). Forms flagged `nan-unspec`.
    Unspecified,
    /// "NaN payloads are supported for double-precision instructions" (L7141): a NaN input's
    /// payload comes out, quieted — the first NaN operand's is the model, any NaN operand's is
    /// accepted. A NaN created from numbers (∞ − ∞) is any NaN, modelled by the canonical one.
    Payload,
}

impl NanRule {
    /// [`NanRule::Unspecified`] for forms whose catalog row carries `nan-unspec`, else
    /// [`NanRule::Payload`].
    pub fn of(form: &Form) -> NanRule {
        if form.flag("nan-unspec") {
            NanRule::Unspecified
        } else {
            NanRule::Payload
        }
    }
}

/// The outcome for a NaN result, given the (already flushed) inputs.
///
/// [`NanRule::Payload`]: the payload — the trailing significand, IEEE 754-2008 §6.2.1 — of a
/// NaN operand comes out, quieted; the first NaN operand's is the model, with the sign it had.
/// The sign of such a result is not specified: the manual promises payloads (L7141) of
/// instructions that are "IEEE-754 compliant" (L7139), and IEEE 754-2008 §6.3 "does not
/// interpret the sign of a NaN" except in copy, negate, abs and copySign. So each NaN
/// operand's quieted payload is accepted with either sign. On an H200 (CUDA 13.0 JIT)
/// `sub.f64 d, a, NaN-literal` returns the literal's NaN with its sign flipped (the JIT
/// computes `a + (-b)`), while register operands keep the sign: the model
/// (`corpus/findings/h200/float.md`).
pub fn nan_outcome(fmt: &Fmt, rule: NanRule, inputs: &[u128]) -> Outcome {
    if rule == NanRule::Payload {
        let sign = fmt.zero(true);
        let mut nans = inputs
            .iter()
            .filter(|&&x| fmt.is_nan(x))
            .map(|&x| fmt.quiet(x) & fmt.mask());
        if let Some(model) = nans.next() {
            let mut rest: Vec<u128> = Vec::new();
            for q in std::iter::once(model).chain(nans) {
                for x in [q, q ^ sign] {
                    if x != model && !rest.contains(&x) {
                        rest.push(x);
                    }
                }
            }
            return Outcome {
                model,
                accept: Accept::OneOf(rest),
            };
        }
    }
    Outcome::any_nan(fmt.format)
}

/// Finishes a result `r` of format `fmt`: the NaN rule, then `.ftz` on the result's encoding
/// (a subnormal encoding is flushed, L7139), then `.sat` or `.relu`. Results rounded from an
/// exact value that may lie below the smallest normal number go through [`finish_rounded`],
/// which also accepts the reading that flushes before rounding.
///
/// `.sat` and `.relu` of −0.0: the manual clamps "to [0.0, 1.0]" (L7590) and "to 0 if negative"
/// (L13872); −0.0 is neither clearly in nor out, so both zeros are accepted, +0.0 (what a
/// max(x, +0.0) with +0.0 > −0.0, L8302, gives) being the model.
pub fn finish(fmt: &Fmt, r: u128, mods: Mods, rule: NanRule, inputs: &[u128]) -> Outcome {
    if fmt.is_nan(r) {
        if mods.sat {
            return Outcome::exact(fmt.zero(false));
        }
        if mods.relu {
            return Outcome::exact(fmt.canonical_nan);
        }
        return nan_outcome(fmt, rule, inputs);
    }
    let r = if mods.ftz { fmt.ftz(r) } else { r };
    let neg_zero = fmt.zero(true);
    if mods.sat || mods.relu {
        if r == neg_zero {
            return Outcome {
                model: fmt.zero(false),
                accept: Accept::OneOf(vec![neg_zero]),
            };
        }
        if fmt.is_neg(r) {
            return Outcome::exact(fmt.zero(false));
        }
        if mods.sat && fmt.to_f64(r) > 1.0 {
            return Outcome::exact(one(fmt));
        }
    }
    Outcome::exact(r)
}

/// [`finish`] for a result `r` rounded from an exact value by an IEEE operation, given
/// `toward_zero`, the same operation rounded toward zero (asked for only when it matters).
///
/// `.ftz` flushes "subnormal ... results" (L7139; each instruction's "Subnormal numbers"
/// paragraph, e.g. L7804, L9558), and the manual does not say whether a result is subnormal
/// before or after rounding — IEEE 754-2008 §7.5 leaves the same choice, tininess "before" or
/// "after rounding", to the implementation. The two readings differ only where the exact value
/// lies below the smallest normal number and rounds up to it: after rounding the result is that
/// normal number; before rounding it is tiny and flushed to the zero of its sign. Both are
/// accepted there; the model is the flushed zero, what an NVIDIA H200 returns for `mul`, `fma`,
/// `mad`, `div`, `rcp` `.ftz` `.f32` and `.f16`/`.f16x2` (`corpus/findings/h200/float.md`).
/// `toward_zero` tells which case it is: the exact value is below the smallest normal number
/// exactly when its truncation is.
pub fn finish_rounded(
    fmt: &Fmt,
    r: u128,
    mods: Mods,
    rule: NanRule,
    inputs: &[u128],
    toward_zero: impl FnOnce() -> u128,
) -> Outcome {
    let after = finish(fmt, r, mods, rule, inputs);
    let sign = fmt.zero(true);
    let min_normal = fmt.min_normal(false);
    if !mods.ftz || r & !sign != min_normal || toward_zero() & !sign >= min_normal {
        return after;
    }
    let before = finish(fmt, fmt.zero(r & sign != 0), mods, rule, inputs);
    also_accept(before, &after)
}

/// `m` with the values `alt` accepts added to its set, when both are numeric outcomes (`Exact`
/// or `OneOf`): two readings of the manual, `m`'s model first.
pub fn also_accept(mut m: Outcome, alt: &Outcome) -> Outcome {
    let mut extra = vec![alt.model];
    if let Accept::OneOf(v) = &alt.accept {
        extra.extend(v);
    }
    for x in extra {
        if m.accepts(x) {
            continue;
        }
        match &mut m.accept {
            Accept::Exact => m.accept = Accept::OneOf(vec![x]),
            Accept::OneOf(v) => v.push(x),
            // Wider sets already hold every numeric value they are given for.
            _ => {}
        }
    }
    m
}

/// 1.0 in `fmt`.
pub fn one(fmt: &Fmt) -> u128 {
    fmt.pack(false, fmt.bias() as u32, 0)
}

/// Flushes inputs when `.ftz` is written.
pub fn flush_inputs<const N: usize>(fmt: &Fmt, mods: Mods, ins: [u128; N]) -> [u128; N] {
    if mods.ftz {
        ins.map(|x| fmt.ftz(x))
    } else {
        ins
    }
}

/// Applies `f` lane by lane to packed operands (`.f16x2`, `.bf16x2`, `.f32x2`): lane `i` of
/// every input (lane 0 least significant) goes to `f`, and the lanes' outcomes are packed.
pub fn lanewise<const N: usize>(
    lane_bits: u32,
    lanes: u32,
    ins: [u128; N],
    f: impl Fn([u128; N]) -> Outcome,
) -> Outcome {
    let mask = (1u128 << lane_bits) - 1;
    let outs = (0..lanes)
        .map(|i| f(ins.map(|x| (x >> (i * lane_bits)) & mask)))
        .collect();
    Outcome::pack(lane_bits, outs)
}

#[cfg(test)]
mod tests {
    use super::super::format::*;
    use super::*;

    #[test]
    fn nan_rules() {
        // f64 keeps the payload of the first NaN, quieted; the second is also accepted.
        let o = nan_outcome(&F64, NanRule::Payload, &[0x7ff0_0000_0000_0001, 0xfff8_0000_0000_0002]);
        assert_eq!(o.model, 0x7ff8_0000_0000_0001);
        assert!(o.accepts(0xfff8_0000_0000_0002) && !o.accepts(0x7fff_ffff_ffff_ffff));
        let o = nan_outcome(&F32, NanRule::Unspecified, &[0x7f80_0001]);
        assert!(o.model == 0x7fff_ffff && o.accepts(0x7fc0_0000));
    }

    #[test]
    fn sat_relu_ftz() {
        let sat = Mods {
            sat: true,
            ..Mods::default()
        };
        assert_eq!(finish(&F32, 0x7fc0_0000, sat, NanRule::Unspecified, &[]).model, 0);
        assert_eq!(
            finish(&F32, 0x4000_0000, sat, NanRule::Unspecified, &[]).model,
            0x3f80_0000
        );
        assert_eq!(finish(&F32, 0xbf80_0000, sat, NanRule::Unspecified, &[]).model, 0);
        assert_eq!(
            finish(&F32, 0x7f80_0000, sat, NanRule::Unspecified, &[]).model,
            0x3f80_0000
        );
        let relu = Mods {
            relu: true,
            ..Mods::default()
        };
        assert_eq!(
            finish(&F16, 0xfe00, relu, NanRule::Unspecified, &[]),
            Outcome::exact(0x7fff)
        );
        assert_eq!(finish(&F16, 0xbc00, relu, NanRule::Unspecified, &[]), Outcome::exact(0));
        let ftz = Mods {
            ftz: true,
            ..Mods::default()
        };
        assert_eq!(
            finish(&F32, 0x807f_ffff, ftz, NanRule::Unspecified, &[]).model,
            0x8000_0000
        );
        assert_eq!(
            finish(&F32, 0x0080_0000, ftz, NanRule::Unspecified, &[]).model,
            0x0080_0000
        );
    }
}
