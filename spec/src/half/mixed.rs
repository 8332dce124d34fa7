//! §9.7.5 Mixed-precision instructions (L10258): `add`, `sub` and `fma` with `.f32` results and
//! `.f16`/`.bf16` operands. The half operands are converted to `.f32` first (L10287, L10417);
//! that conversion is exact (every f16 and bf16 value is an f32 value), so the instructions are
//! the f32 operations on the widened values, rounded once by `.rnd`.
//!
//! Subnormals are supported (L10317, L10382, L10447); `.sat` clamps to [0.0, 1.0] with NaN to
//! +0.0 (L10270, L10321, L10386, L10451); NaN results are unspecified NaNs, as for every
//! single-precision instruction (L7141).

use crate::catalog::Form;
use crate::float::format::{Fmt, F32};
use crate::float::ops::{finish, finish_rounded, flush_inputs, Mods, NanRule};
use crate::float::{ieee, rnd_of, Rnd};
use crate::value::{Args, Outcome, Outcomes};

const NAN: NanRule = NanRule::Unspecified;

/// `convert(a)` (L10291): the half value `a` of format `at` as an f32, exactly.
pub fn convert(at: &Fmt, a: u128) -> u128 {
    ieee::convert(at, &F32, a & at.mask(), Rnd::Rn)
}

/// §9.7.5.1 add (L10291): `d = convert(a) + c`, rounded by `rnd` (default `.rn`, L10313).
pub fn add(at: &Fmt, a: u128, c: u128, rnd: Rnd, sat: bool) -> Outcome {
    let (a, c) = (convert(at, a), c & F32.mask());
    let mods = Mods { sat, ..Mods::default() };
    finish(&F32, ieee::add(&F32, a, c, rnd), mods, NAN, &[a, c])
}

/// §9.7.5.2 sub (L10356): `d = convert(a) - c` — the f32 operand `c` is the subtrahend.
pub fn sub(at: &Fmt, a: u128, c: u128, rnd: Rnd, sat: bool) -> Outcome {
    let (a, c) = (convert(at, a), c & F32.mask());
    let mods = Mods { sat, ..Mods::default() };
    finish(&F32, ieee::sub(&F32, a, c, rnd), mods, NAN, &[a, c])
}

/// §9.7.5.3 fma (L10421-10425): `d = convert(a) * convert(b) + c`, the product and the sum in
/// infinite precision, then one rounding by `rnd` (required, L10427).
///
/// Interpretation of `.ftz`, which the syntax allows (L10410) but the text never describes
/// ("by default, subnormal numbers are supported", L10447, and nothing more): it does what
/// `.ftz` does on `fma.f32` — subnormal f32 inputs and results are flushed to sign-preserving
/// zero (L7139) — applied to the converted operands. An f16 value is never an f32 subnormal
/// (the smallest f16 subnormal is 2^-24), so for `.f16` operands only `c` and the result are
/// affected; bf16 has f32's exponent range, so a subnormal bf16 `a` or `b` is an f32 subnormal
/// and is flushed too.
pub fn fma(at: &Fmt, a: u128, b: u128, c: u128, rnd: Rnd, mods: Mods) -> Outcome {
    let [a, b, c] = flush_inputs(&F32, mods, [convert(at, a), convert(at, b), c & F32.mask()]);
    finish_rounded(&F32, ieee::fma(&F32, a, b, c, rnd), mods, NAN, &[a, b, c], || {
        ieee::fma(&F32, a, b, c, Rnd::Rz)
    })
}

/// The half format of operand `a` (`.atype`/`.abtype`, the row's `at`).
fn half_fmt(form: &Form) -> &'static Fmt {
    super::fmt_of(form.ty("at").expect("mixed-precision rows name the half type `at`"))
}

/// Adapter for `add` and `sub` (`d, a, c`).
pub(super) fn sem_add_sub(form: &Form, args: &Args) -> Outcomes {
    let op = if form.opcode == "add" { add } else { sub };
    let d = op(
        half_fmt(form),
        args.get(0),
        args.get(1),
        rnd_of(form, "rnd"),
        form.has("sat"),
    );
    Ok(vec![d])
}

/// Adapter for `fma` (`d, a, b, c`).
pub(super) fn sem_fma(form: &Form, args: &Args) -> Outcomes {
    let d = fma(
        half_fmt(form),
        args.get(0),
        args.get(1),
        args.get(2),
        rnd_of(form, "rnd"),
        Mods::of(form),
    );
    Ok(vec![d])
}
