use crate::catalog::Form;
use crate::eval::SemFn;

pub(crate) fn semantics(_form: &Form) -> Option<SemFn> {
    None
}
