//! Floating point in every PTX format: encodings ([`mod@format`]), the rounding engine ([`round`]),
//! correctly rounded IEEE operations ([`ieee`]) and PTX's rules around them ([`ops`]: `.ftz`,
//! `.sat`, `.relu`, NaN). The instruction semantics built on them live beside:
//! §9.7.3 in [`crate::fp`], §9.7.4/9.7.5 in [`crate::half`], approximate instructions in
//! [`crate::approx`], conversions in [`crate::cvt`].

pub mod fast;
pub mod format;
pub mod ieee;
pub mod ops;
pub mod round;

pub use format::Fmt;
pub use ops::{Mods, NanRule};
pub use round::Rnd;

use crate::catalog::Form;

/// The rounding modifier a form writes under variable `var` (`rnd`, `frnd`, `irnd`), or `.rn`
/// where none is written (the default for add/sub/mul, L7572).
pub fn rnd_of(form: &Form, var: &str) -> Rnd {
    form.var(var).and_then(Rnd::parse).unwrap_or(Rnd::Rn)
}
