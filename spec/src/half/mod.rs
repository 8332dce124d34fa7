//! §9.7.4 Half-precision floating-point instructions (L9283), §9.7.5 mixed-precision
//! instructions (L10258) and §9.7.7 half-precision comparison instructions (L10729).
//!
//! - [`arith`]: `add sub mul fma neg abs min max` on `.f16 .f16x2 .bf16 .bf16x2`.
//! - [`mixed`]: `add sub fma .f32.{f16,bf16}`, a half operand widened exactly to `.f32`.
//! - [`comparison`]: `set` and `setp` with half-precision sources or destinations.
//!
//! `tanh` and `ex2` of §9.7.4 are approximate and live in [`crate::approx`].
//!
//! Packed `x2` types hold two lanes in one 32-bit register, lane 0 in bits `[15:0]` (`fA[0] =
//! a[0:15]`, L9337); each lane is computed on its own.

pub mod arith;
pub mod comparison;
pub mod mixed;

use crate::catalog::{catalog, Form};
use crate::eval::SemFn;
use crate::float::Fmt;
use crate::types::{Kind, Type};

/// The semantics adapter for a form of §9.7.4 (bit-exact ones), §9.7.5 or §9.7.7; `None` for
/// every other form, `tanh` and `ex2` included.
pub fn semantics(form: &Form) -> Option<SemFn> {
    let family = catalog().family_of(form).id;
    Some(match (family, form.opcode) {
        ("9.7.4", "add" | "sub" | "mul") => arith::sem_binary,
        ("9.7.4", "fma") => arith::sem_fma,
        ("9.7.4", "neg" | "abs") => arith::sem_unary,
        ("9.7.4", "min" | "max") => arith::sem_min_max,
        ("9.7.5", "add" | "sub") => mixed::sem_add_sub,
        ("9.7.5", "fma") => mixed::sem_fma,
        ("9.7.7", "set") => comparison::sem_set,
        ("9.7.7", "setp") => comparison::sem_setp,
        _ => return None,
    })
}

/// The float format of a (possibly packed) floating-point type.
fn fmt_of(ty: Type) -> &'static Fmt {
    match ty.kind {
        Kind::Float(f) => Fmt::of(f),
        k => unreachable!("{k:?} is not a floating-point type"),
    }
}
