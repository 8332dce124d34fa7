//! §9.7.3 Floating-point instructions (f32, f64, f32x2), the bit-exact ones.
//! (Being written.)

use crate::catalog::Form;
use crate::eval::SemFn;

pub fn semantics(_form: &Form) -> Option<SemFn> {
    None
}
