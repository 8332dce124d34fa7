//! §9.7.13.5 atom (L17371) and §9.7.13.6 red (L17617): the value each atomic operation writes.
//!
//! Both instructions read the element at `[a]`, combine it with `b` (and `c` for `.cas`) and
//! write the result back; `atom` also returns the old value in `d` (L17493-17502):
//! ```text
//! atomic {
//!     d = *a;
//!     *a = (operation == cas) ? operation(*a, b, c) : operation(*a, b);
//! }
//! where
//!     inc(r, s)  = (r >= s) ? 0 : r+1;
//!     dec(r, s)  = (r==0 || r > s)  ? s : r-1;
//!     exch(r, s) =  s;
//!     cas(r,s,t) = (r == s) ? t : r;
//! ```
//! `red` is the same without `d` (`*a = operation(*a, b)`, L17736-17740). The memory access,
//! the state space a generic address resolves to and the order of threads are the
//! interpreter's; this module is the pure arithmetic of one element: [`AtomOp::of`] decodes a
//! form once, [`apply`] gives the new memory value of one element.
//!
//! Packed (`.f16x2`, `.bf16x2`) and vector (`.v2 .v4 .v8`) forms update adjacent scalar elements,
//! each atomically on its own (L17471, L17714): an `.f16x2` is one 32-bit element with two
//! lanes, a `.v4.f16x2` four such elements, `b`'s element `i` going to memory element `i`.
//!
//! Floating point: `.add` rounds to nearest even (L17481). `atom.add.f32` flushes subnormal
//! inputs and results to sign-preserving zero on global memory and keeps them on shared memory
//! (L17481, L17724; 6.4: E9400, E9534, release note E13814); the half types require `.noftz`
//! and keep subnormals (L17483, L17726). NaN results follow the instruction families the
//! operations come from (see [`apply`]).

use crate::catalog::Form;
use crate::float::ops::{lanewise, Mods};
use crate::float::{Fmt, Rnd};
use crate::fp;
use crate::half::arith::{self as half, MinMaxMods};
use crate::types::{sext, FloatFormat, Kind, Type};
use crate::value::Outcome;

/// The state space the access resolved to (generic addresses are resolved by the interpreter
/// before calling): the manual's floating-point rules differ by space (L17481).
/// `.shared::cta` and `.shared::cluster` are both `Shared`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomSpace {
    /// `.global`: `atom.add.f32` flushes subnormal inputs and results (L17481).
    Global,
    /// `.shared`, `.shared::cta`, `.shared::cluster`: `atom.add.f32` keeps subnormals (L17481).
    Shared,
}

impl AtomSpace {
    /// The space a form's `.space` qualifier names (`global`, `shared`, `shared::cta`,
    /// `shared::cluster`); `None` for generic addressing (no qualifier) and anything else.
    pub fn parse(s: &str) -> Option<AtomSpace> {
        match s {
            "global" => Some(AtomSpace::Global),
            "shared" | "shared::cta" | "shared::cluster" => Some(AtomSpace::Shared),
            _ => None,
        }
    }
}

/// The `.op` of atom/red (L17399-17402): bit-size operations `.and .or .xor .cas .exch`,
/// integer operations `.add .inc .dec .min .max` (L17477-17479), and `.add .min .max` on the
/// floating-point types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `.and`: bitwise AND.
    And,
    /// `.or`: bitwise OR.
    Or,
    /// `.xor`: bitwise exclusive OR.
    Xor,
    /// `.cas`: compare and swap, `cas(r,s,t) = (r == s) ? t : r`.
    Cas,
    /// `.exch`: exchange, `exch(r, s) = s`.
    Exch,
    /// `.add`: integer or floating-point addition.
    Add,
    /// `.inc`: `inc(r, s) = (r >= s) ? 0 : r+1`.
    Inc,
    /// `.dec`: `dec(r, s) = (r==0 || r > s) ? s : r-1`.
    Dec,
    /// `.min`: integer or floating-point minimum.
    Min,
    /// `.max`: integer or floating-point maximum.
    Max,
}

impl Op {
    /// Every `.op`, in the order of the manual's list (L17399-17402).
    pub const ALL: [Op; 10] = [
        Op::And,
        Op::Or,
        Op::Xor,
        Op::Cas,
        Op::Exch,
        Op::Add,
        Op::Inc,
        Op::Dec,
        Op::Min,
        Op::Max,
    ];

    /// Parses the modifier without its dot (`cas`).
    pub fn parse(s: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|o| o.name() == s)
    }

    /// The modifier as PTX writes it, without the dot.
    pub fn name(self) -> &'static str {
        match self {
            Op::And => "and",
            Op::Or => "or",
            Op::Xor => "xor",
            Op::Cas => "cas",
            Op::Exch => "exch",
            Op::Add => "add",
            Op::Inc => "inc",
            Op::Dec => "dec",
            Op::Min => "min",
            Op::Max => "max",
        }
    }
}

/// An atom/red form decoded once: operation, element type, vector lanes (`.v2/.v4/.v8` forms
/// of sm_90), and `.noftz`.
///
/// Only the combinations the manual allows can be built ([`AtomOp::new`]), so [`apply`] is
/// total over every value of this type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AtomOp {
    op: Op,
    ty: Type,
    vec: u32,
    noftz: bool,
    red: bool,
    space: Option<AtomSpace>,
}

impl AtomOp {
    /// `None` when `form` is not an atom/red form (opcode `atom` or `red`), or is a
    /// `red.async` form (§9.7.13.7, L17836): its update of memory is the same arithmetic, but it
    /// also signals an mbarrier, which this value-level decoding cannot express, so the
    /// interpreter must not take it for a plain `red`.
    pub fn of(form: &Form) -> Option<AtomOp> {
        let red = match form.opcode {
            "atom" => false,
            "red" => true,
            _ => return None,
        };
        if form.has("async") {
            return None;
        }
        let op = Op::parse(form.var("op")?)?;
        let ty = form.ty("t")?;
        let vec = match form.var("vec") {
            None => 1,
            Some(v) => v.strip_prefix('v')?.parse().ok()?,
        };
        let mut a = AtomOp::new(op, ty, vec, form.has("noftz"))?;
        // `red` has no `.cas`/`.exch` (L17643-17645).
        if red && matches!(op, Op::Cas | Op::Exch) {
            return None;
        }
        a.red = red;
        a.space = form.var("ss").and_then(AtomSpace::parse);
        Some(a)
    }

    /// An `atom` operation on elements of type `ty`, `vec` of them (1 for scalar forms), if the
    /// manual allows the combination (the syntax at L17381-17410 and the vector table at
    /// L17435-17467):
    ///
    /// | op | types |
    /// |---|---|
    /// | `.and .or .xor` | `.b32 .b64` |
    /// | `.exch` | `.b32 .b64 .b128` |
    /// | `.cas` | `.b16 .b32 .b64 .b128` |
    /// | `.add` | `.u32 .s32 .u64 .f32 .f64`; `.noftz` `.f16 .f16x2 .bf16 .bf16x2`; `.v2/.v4 .f32` |
    /// | `.inc .dec` | `.u32` |
    /// | `.min .max` | `.u32 .s32 .u64 .s64` |
    /// | `.add .min .max` vectors | `.noftz` `.v2/.v4/.v8 .f16/.bf16`, `.v2/.v4 .f16x2/.bf16x2` |
    ///
    /// `.noftz` is required exactly on the half types (L17483).
    pub fn new(op: Op, ty: Type, vec: u32, noftz: bool) -> Option<AtomOp> {
        let bits = ty.bits();
        let half = match ty.kind {
            Kind::Float(FloatFormat::F16 | FloatFormat::Bf16) => Some(ty.lanes),
            _ => None,
        };
        let is = |k: Kind, b: u32| ty.kind == k && ty.lanes == 1 && bits == b;
        let f = |ff: FloatFormat| is(Kind::Float(ff), ff.bits());
        let scalar = vec == 1;
        let ok = match op {
            Op::And | Op::Or | Op::Xor => scalar && (is(Kind::Bits, 32) || is(Kind::Bits, 64)),
            Op::Exch => scalar && [32, 64, 128].iter().any(|&b| is(Kind::Bits, b)),
            Op::Cas => scalar && [16, 32, 64, 128].iter().any(|&b| is(Kind::Bits, b)),
            Op::Inc | Op::Dec => scalar && is(Kind::Unsigned, 32),
            Op::Add | Op::Min | Op::Max => match half {
                // The half types: .f16/.bf16 scalars only add; vectors of 2/4/8 (2/4 packed).
                Some(lanes) => match vec {
                    1 => op == Op::Add,
                    2 | 4 => true,
                    8 => lanes == 1,
                    _ => false,
                },
                None if op == Op::Add && f(FloatFormat::F32) => matches!(vec, 1 | 2 | 4),
                None => {
                    scalar
                        && if op == Op::Add {
                            is(Kind::Unsigned, 32)
                                || is(Kind::Signed, 32)
                                || is(Kind::Unsigned, 64)
                                || f(FloatFormat::F64)
                        } else {
                            [Kind::Unsigned, Kind::Signed].iter().any(|&k| is(k, 32) || is(k, 64))
                        }
                }
            },
        };
        (ok && noftz == half.is_some()).then_some(AtomOp {
            op,
            ty,
            vec,
            noftz,
            red: false,
            space: None,
        })
    }

    /// The operation.
    pub fn op(&self) -> Op {
        self.op
    }

    /// The element type (`.f16x2` for `atom.add.noftz.v4.f16x2`).
    pub fn ty(&self) -> Type {
        self.ty
    }

    /// Whether `.noftz` is written (always on the half types, never elsewhere).
    pub fn noftz(&self) -> bool {
        self.noftz
    }

    /// Whether the form is `red` (no destination) rather than `atom`.
    pub fn is_red(&self) -> bool {
        self.red
    }

    /// The state space the form writes; `None` for generic addressing (the interpreter resolves
    /// the address and passes the space to [`apply`]).
    pub fn space(&self) -> Option<AtomSpace> {
        self.space
    }

    /// Bytes of one memory element (2 for `.f16`/`.b16`, 4 for `.f16x2` (one 32-bit element),
    /// 16 for `.b128`).
    pub fn elem_bytes(&self) -> u32 {
        self.ty.bits() / 8
    }

    /// Number of elements updated (1, or the vector length).
    pub fn lanes(&self) -> u32 {
        self.vec
    }
}

/// The new memory value for element `old` (bits, `elem_bytes` wide) with operands `b` (and `c`
/// for `.cas`), as an acceptance set; the model is what the interpreter stores. Bits of `old`,
/// `b` and `c` above the element width are ignored.
///
/// - `.and .or .xor .exch .cas`: on the bits (L17493-17502).
/// - `.add`: modulo 2^n on the integer types (signed and unsigned alike).
/// - `.inc .dec`: the manual's wrapping counters, unsigned compares (L17499-17500); the result
///   lies in [0..b] whenever `old` does (L17479).
/// - `.min .max`: signed compare for `.s32/.s64`, unsigned for `.u32/.u64`.
/// - `.add.f32`: IEEE add rounded to nearest even (L17481). On [`AtomSpace::Global`] both inputs
///   (the old value too) and the result are flushed to sign-preserving zero, a result counting
///   as subnormal after rounding as for `add.ftz.f32` ([`fp::add_f32`]); on
///   [`AtomSpace::Shared`] subnormals are kept (L17481). Interpretation: the flushing holds for
///   the `.v2/.v4.f32` forms too (they exist only on global memory, L17408), and although the
///   manual words it as the "current implementation", the PTX 6.4 release notes call it the
///   semantics of `atom.add.f32` (E13814), so it is exact, not merely allowed. A NaN result is
///   an unspecified NaN, the rule of every single-precision instruction (L7141).
/// - `.add.f64`: rounded to nearest even, subnormals kept (no flushing is stated for `.f64`);
///   NaN results follow `add.f64` (L7141): a NaN operand's payload, quieted, the old value's
///   first (it is the first operand of `operation(*a, b)`).
/// - `.add.noftz` on `.f16 .bf16 .f16x2 .bf16x2`: rounded to nearest even per lane, subnormals
///   kept (L17483); a NaN lane is an unspecified NaN, the half-precision rule (L9307).
/// - `.min .max` on the half types (vector forms only): the manual gives no semantics of its
///   own. Interpretation: those of half `min`/`max` without `.NaN` and `.ftz` (§9.7.4.7-8,
///   L9875-9995): a NaN and a number give the number, two NaNs an unspecified NaN, and
///   −0.0 < +0.0 (L9921, L10026); `.noftz` keeps subnormal inputs.
pub fn apply(op: &AtomOp, space: AtomSpace, old: u128, b: u128, c: u128) -> Outcome {
    let m = op.ty.mask();
    let (old, b, c) = (old & m, b & m, c & m);
    let n = op.ty.bits();
    let exact = |v: u128| Outcome::exact(v & m);
    match op.ty.kind {
        Kind::Float(ff) => float(op.op, ff, op.ty.lanes, space, old, b),
        _ => match op.op {
            Op::And => exact(old & b),
            Op::Or => exact(old | b),
            Op::Xor => exact(old ^ b),
            Op::Exch => exact(b),
            Op::Cas => exact(if old == b { c } else { old }),
            Op::Add => exact(old.wrapping_add(b)),
            Op::Inc => exact(if old >= b { 0 } else { old + 1 }),
            Op::Dec => exact(if old == 0 || old > b { b } else { old - 1 }),
            Op::Min | Op::Max => {
                let key = |x: u128| {
                    if op.ty.kind == Kind::Signed {
                        sext(x, n)
                    } else {
                        // Unsigned elements are at most 64 bits wide, so the value fits i128.
                        x as i128
                    }
                };
                let take_old = if op.op == Op::Min {
                    key(old) <= key(b)
                } else {
                    key(old) >= key(b)
                };
                exact(if take_old { old } else { b })
            }
        },
    }
}

/// The floating-point operations of [`apply`], on one element of format `ff` with `lanes`
/// packed lanes. [`AtomOp::new`] admits only `.add` on `.f32`/`.f64`, and `.add .min .max` on
/// `.f16`/`.bf16` (packed or not).
fn float(op: Op, ff: FloatFormat, lanes: u32, space: AtomSpace, old: u128, b: u128) -> Outcome {
    match ff {
        FloatFormat::F32 => {
            let mods = Mods {
                ftz: space == AtomSpace::Global,
                ..Mods::default()
            };
            fp::add_f32(old as u32, b as u32, Rnd::Rn, mods)
        }
        FloatFormat::F64 => fp::add_f64(old as u64, b as u64, Rnd::Rn),
        _ => {
            let fmt = Fmt::of(ff);
            let mm = MinMaxMods::default();
            lanewise(fmt.bits, lanes, [old, b], |[x, y]| match op {
                Op::Min => half::min(fmt, x, y, mm),
                Op::Max => half::max(fmt, x, y, mm),
                _ => half::add(fmt, x, y, Mods::default()),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Type {
        Type::parse(s).unwrap()
    }

    #[test]
    fn legal_combinations() {
        assert!(AtomOp::new(Op::Cas, t("b16"), 1, false).is_some());
        assert!(AtomOp::new(Op::And, t("b16"), 1, false).is_none());
        assert!(AtomOp::new(Op::Add, t("f16"), 1, false).is_none());
        assert!(AtomOp::new(Op::Add, t("f16"), 8, true).is_some());
        assert!(AtomOp::new(Op::Add, t("f16x2"), 8, true).is_none());
        assert!(AtomOp::new(Op::Min, t("f16"), 1, true).is_none());
        assert!(AtomOp::new(Op::Max, t("bf16x2"), 4, true).is_some());
        assert!(AtomOp::new(Op::Add, t("f32"), 4, false).is_some());
        assert!(AtomOp::new(Op::Min, t("f32"), 2, false).is_none());
        assert!(AtomOp::new(Op::Inc, t("s32"), 1, false).is_none());
        assert!(AtomOp::new(Op::Add, t("s64"), 1, false).is_none());
        assert!(AtomOp::new(Op::Min, t("s64"), 1, false).is_some());
        assert!(AtomOp::new(Op::Exch, t("b128"), 1, false).is_some());
        assert!(AtomOp::new(Op::Xor, t("b128"), 1, false).is_none());
    }
}
