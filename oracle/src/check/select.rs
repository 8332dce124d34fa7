//! Fast-path selection: a bound value-level form runs as one of [`crate::fast`]'s plain
//! functions where one exists for it and its operands need nothing such a function does not do
//! (one destination, at most three plain sources: no negation, inversion, selector or sign
//! extension); otherwise, or with [`super::Options::generic`], as the spec's semantics
//! (`Op::Pure`).

use crate::program::*;
use spec::catalog::Form;
use spec::eval::SemFn;
use spec::value::Sel;

/// The op for a bound value form: `Op::Fast` where a fast function applies and `generic` is off,
/// else `Op::Pure` with the spec's semantics `sem`.
pub(super) fn select(
    form: &'static Form,
    sem: SemFn,
    dsts: Vec<Dst>,
    srcs: Vec<PureIn>,
    dsel: Option<Sel>,
    generic: bool,
) -> Op {
    if let Some(f) = crate::fast::lookup(form).filter(|_| !generic) {
        if dsts.iter().skip(1).all(|d| *d == Dst::SINK)
            && srcs.len() <= 3
            && srcs.iter().all(|s| !s.negated && !s.invert && s.sel.is_none())
            && dsel.is_none()
            && dsts[0].sext == 0
        {
            let get = |n: usize| srcs.get(n).map_or(Src::Imm(0), |s| s.src);
            return Op::Fast {
                f,
                d: dsts[0],
                a: get(0),
                b: get(1),
                c: get(2),
            };
        }
    }
    Op::Pure {
        form,
        sem,
        dsts,
        srcs,
        dsel,
    }
}
