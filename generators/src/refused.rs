//! The golden vector of a form the manual forbids ([`spec::vector::refused`]): one `refused`
//! line at every level — there is nothing to vary, the kernel either loads or not.

use crate::vectors::{form_seed, Counts, GenerateError, Generated, Level};
use spec::catalog::Form;
use spec::vector::form_key;
use spec::vector::refused::columns;

/// The one vector of a forbidden form.
pub fn generate(form: &Form, seed: u64, _level: Level) -> Result<Generated, GenerateError> {
    let cols = columns(form).ok_or_else(|| GenerateError::NoSemantics {
        form: form.name.clone(),
    })?;
    let counts = Counts {
        hard: 1,
        ..Counts::default()
    };
    Ok(Generated::whole(
        vec![cols.vector()],
        counts,
        form_seed(seed, &form_key(form)),
    ))
}
