//! Approximate floating-point instructions (§9.7.3, §9.7.4) with the manual's error bounds.
//! (Being written.)

use crate::catalog::Form;
use crate::eval::SemFn;

pub fn semantics(_form: &Form) -> Option<SemFn> {
    None
}
