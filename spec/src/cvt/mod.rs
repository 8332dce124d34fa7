//! §9.7.9.21 cvt (L13599) and §9.7.9.22 cvt.pack (L14010): every conversion between integer and
//! floating-point types, the packed narrow formats (fp8, fp6, fp4, ue8m0, tf32) and the
//! saturating integer pack.
//!
//! The conversion kinds are the operand chapter's Tables 15/16 (sext, zext, chop, s2f, u2f, f2s,
//! f2u, f2f); each is one function here, over bit patterns:
//! - integer → integer (chop / sign- or zero-extension, `.sat`) in [`int`];
//! - float ↔ integer and the element conversion between any two float formats, with PTX's
//!   layers around the rounding engine (`.ftz`, `.sat`, `.relu`, `.satfinite`, NaN), in
//!   [`float`];
//! - the float → float forms, scalar and packed (`.f16x2`, `.bf16x2`, `.e4m3x2`, …, the `.x4`
//!   forms with `.rs` and its random bits), converted element by element and packed by the
//!   semantics block L13709-13744, in [`narrow`];
//! - `cvt.pack.sat` in [`pack`].
//!
//! The spec models sm_20 and later: subnormals are supported unless `.ftz` is written (L13856);
//! the sm_1x and PTX ≤ 1.4 flushing rules (L13808, L13862) are outside the model. Destinations
//! are as wide as the destination type: the wider-register rules (L13880-13882) belong to the
//! register file, not to the conversion.

pub mod float;
pub mod int;
pub mod narrow;
pub mod pack;

use crate::catalog::Form;
use crate::eval::SemFn;
use crate::types::Kind;

/// The semantics of a `cvt` or `cvt.pack` form, chosen by the kinds of its two types.
pub fn semantics(form: &Form) -> Option<SemFn> {
    match form.section {
        "9.7.9.22" => Some(pack::cvt_pack_form),
        "9.7.9.21" => {
            let (dt, at) = (form.ty("dt")?, form.ty("at")?);
            let int = |k: Kind| matches!(k, Kind::Signed | Kind::Unsigned);
            Some(match (dt.kind, at.kind) {
                (d, a) if int(d) && int(a) => int::cvt_int,
                (d, Kind::Float(_)) if int(d) => float::cvt_f2i,
                (Kind::Float(_), a) if int(a) => float::cvt_i2f,
                (Kind::Float(d), Kind::Float(a)) if d == a && dt.lanes == 1 && at.lanes == 1 => float::cvt_same,
                (Kind::Float(_), Kind::Float(_)) => narrow::cvt_f2f,
                _ => return None,
            })
        }
        _ => None,
    }
}
