//! Float → float `cvt` forms, scalar and packed: the layouts of the semantics block
//! (L13709-13744) around the element conversion [`super::float::convert`], and the random bits
//! of `.rs` (L13681-13689, L13846).

use super::float::{convert, Mode};
use crate::catalog::Form;
use crate::float::format::Fmt;
use crate::float::round::Rnd;
use crate::types::{mask, FloatFormat, Kind};
use crate::value::{Accept, Args, EvalError, Outcome, Outcomes};

/// Bits one element of `f` takes in a packed register: its width, except fp6, which sits in a
/// byte with two zero MSBs (L13671-13675, L13720-13740).
pub const fn slot(f: FloatFormat) -> u32 {
    match f {
        FloatFormat::E2m3 | FloatFormat::E3m2 => 8,
        _ => f.bits(),
    }
}

/// The rounding of element `i` (0 = `a`, then `b`, `e`, `f`) of a `.rs` conversion to `to`,
/// with the random bits it takes from `rbits` (L13681-13689).
///
/// The alignment figures 37-40 are missing (L13750-13770); interpretations:
/// - The random bits line up with the most significant discarded bits of the source mantissa
///   (the engine's `Rnd::Rs`). f32 → f16 discards exactly 13 bits and f32 → bf16 exactly 16 for
///   a normal result, so the widths given (13, 16) force the alignment there. For a subnormal
///   result more bits are discarded: the random bits are added to the top `width` of them and the
///   bits below take no part (they are truncated).
/// - `.f16x2`: `a` takes the 13 LSBs of `rbits[31:16]`, `b` those of `rbits[15:0]`; the 3 MSBs of
///   each half, which the manual says are 0, are ignored.
/// - `.bf16x2`: `a` takes `rbits[31:16]`, `b` `rbits[15:0]`.
/// - `.e4m3x4 .e5m2x4 .e2m3x4 .e3m2x4`: "the upper 16 bits for a and b, the lower 16 bits for e
///   and f" is read literally: `a` and `b` both take the 16 bits `rbits[31:16]`, `e` and `f`
///   both `rbits[15:0]` (16 random bits per element, against 20-21 discarded bits).
/// - `.e2m1x4`: "the high 8 bits of both 16-bit halves for a and b, the low 8 bits for e and
///   f": `a` takes `rbits[31:24]`, `b` `rbits[15:8]`, `e` `rbits[23:16]`, `f` `rbits[7:0]` (8
///   random bits per element), the first of each pair from the upper half.
pub fn rs(to: FloatFormat, i: usize, rbits: u32) -> Rnd {
    let half = |upper: bool| if upper { rbits >> 16 } else { rbits & 0xffff };
    let (rbits, width) = match to {
        FloatFormat::F16 => (half(i == 0) & 0x1fff, 13),
        FloatFormat::Bf16 => (half(i == 0), 16),
        FloatFormat::E2m1 => (
            [rbits >> 24, (rbits >> 8) & 0xff, (rbits >> 16) & 0xff, rbits & 0xff][i],
            8,
        ),
        _ => (half(i < 2), 16),
    };
    Rnd::Rs { rbits, width }
}

/// `cvt` between two float types, each a scalar or packed one:
/// - packed destinations take one source operand per element, `a` in the most significant slot
///   (`d[31:16] = convert(a); d[15:0] = convert(b)`, and so on for `.e4m3x2`, `.e2m1x2`,
///   `.e2m3x2` in `d[13:8]`/`d[5:0]` with zero MSBs, the x4 forms, L13709-13740);
/// - packed sources (`.f16x2`, `.bf16x2`, `.e4m3x2`, `.e2m1x2`, `.e2m3x2`, `.ue8m0x2`) give
///   their elements the same way round: the high element goes to the high slot (L13661-13679).
///
/// An fp6 source byte whose two MSBs are not 0 is outside the manual's contract ("each 8-bit
/// input value with its 2 MSBs 0", L13673): the model ignores those bits and any result is
/// accepted for that element.
pub fn cvt_f2f(form: &Form, args: &Args) -> Outcomes {
    let (Some(dt), Some(at)) = (form.ty("dt"), form.ty("at")) else {
        return Err(EvalError::unhandled(format!("`{}`: not a float conversion", form.name)));
    };
    let (Kind::Float(df), Kind::Float(af)) = (dt.kind, at.kind) else {
        return Err(EvalError::unhandled(format!("`{}`: not a float conversion", form.name)));
    };
    let (to, from) = (Fmt::of(df), Fmt::of(af));
    let stochastic = form.var("frnd") == Some("rs");
    let values = form.inputs.len() - stochastic as usize;
    // Source elements, `a` (the most significant destination slot) first.
    let elems: Vec<u128> = if at.lanes > 1 {
        let w = slot(af);
        (0..at.lanes)
            .rev()
            .map(|i| (args.get(0) >> (i * w)) & mask(w))
            .collect()
    } else {
        (0..values).map(|i| args.get(i)).collect()
    };
    if elems.len() != dt.lanes as usize {
        return Err(EvalError::unhandled(format!(
            "`{}`: {} sources for {} results",
            form.name,
            elems.len(),
            dt.lanes
        )));
    }
    let mode = Mode::of(form);
    let outs: Vec<Outcome> = elems
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let mut m = mode;
            if stochastic {
                m.rnd = rs(df, i, args.get(values) as u32);
            }
            let o = convert(from, to, x & from.mask(), m);
            if slot(af) != af.bits() && x >> from.bits != 0 {
                Outcome {
                    model: o.model,
                    accept: Accept::Any,
                }
            } else {
                o
            }
        })
        .collect();
    if outs.len() == 1 {
        return Ok(outs);
    }
    Ok(vec![Outcome::pack(slot(df), outs.into_iter().rev().collect())])
}
