//! §9.7.9.21 cvt and §9.7.9.22 cvt.pack.
//! (Being written.)

use crate::catalog::Form;
use crate::eval::SemFn;

pub fn semantics(_form: &Form) -> Option<SemFn> {
    None
}
