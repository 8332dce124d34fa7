//! §9.7.4 Half precision, §9.7.5 mixed precision and §9.7.7 half-precision comparison.
//! (Being written.)

use crate::catalog::Form;
use crate::eval::SemFn;

pub fn semantics(_form: &Form) -> Option<SemFn> {
    None
}
