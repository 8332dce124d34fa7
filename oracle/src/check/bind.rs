//! Value-level forms: the written operands (`p|q` pairs, `{...}` vectors, `_` sinks, `!p` and
//! `-a`, video selectors) bound to a form's outputs and inputs, trying every form of the name
//! and reporting the error that says most; the bound form then goes to [`super::select`].

use super::body::FuncCx;
use super::consts::{const_int, contains_float};
use super::errors::{terr, CheckError, NotExecuted, Result, What};
use super::operands::Site;
use super::select::select;
use super::symbols::Sym;
use crate::ast::{Expr, Instr, Operand};
use crate::program::*;
use spec::catalog::{catalog, Exec, Form};
use spec::types::Kind;

impl FuncCx<'_> {
    /// A value-level form: bind the written operands to a form's outputs and inputs.
    pub(super) fn value(&self, i: &Instr, forms: &[&'static Form]) -> Result<Op> {
        // Several forms may share a name (`mov.u32 d, a` and `mov.u32 d, avar`): an error of a
        // form that fits says more than one of a form that does not.
        let mut errs = Vec::new();
        for &form in forms {
            match self.bind(i, form) {
                Ok(op) => return Ok(op),
                Err(e) => {
                    // A form whose operand count the instruction does not have says least;
                    // among those that fit, "not executed" says less than a real error.
                    // A form that takes it but is not executed makes the instruction valid.
                    let rank = match (self.fits(i, form), e.not_executed()) {
                        (_, true) => 0,
                        (true, false) => 1,
                        (false, false) => 2,
                    };
                    errs.push((rank, e));
                }
            }
        }
        let pick = (0..errs.len()).min_by_key(|&k| errs[k].0).unwrap_or(0);
        let mut errs: Vec<CheckError> = errs.into_iter().map(|(_, e)| e).collect();
        Err(errs.swap_remove(pick))
    }

    /// Binds the written operands of `i` to `form`'s outputs and inputs: the decoded value form,
    /// or why `i` does not take it.
    fn bind(&self, i: &Instr, form: &'static Form) -> Result<Op> {
        let loc = i.loc;
        let at = Site::of(i);
        let sem = spec::eval::semantics(form);
        // A warp collective by its catalog row (`@exec shfl`, `vote`, ...).
        let warp = form.exec().and_then(|e| warp_kind(e, form));
        if sem.is_none() && warp.is_none() {
            self.shape(i, form)?;
            return Err(CheckError {
                loc,
                what: What::NotExecuted(NotExecuted::Form(form.name.clone())),
            });
        }
        // A second destination that is a predicate is written after `|` (`p|q`, `d|p`, L11178),
        // and `|` joins nothing else.
        let second_pred = form.pair_destination();
        for (n, o) in i.operands.iter().enumerate() {
            if let Operand::Pair(a, b) = o {
                if n != 0 || !second_pred {
                    return terr(loc, format!("`{}` has no `{a}|{b}` destination pair", form.name));
                }
            }
        }
        // `_` for a destination (L4266: "for some instructions"), as ptxas 12.9 takes it: a
        // whole result where the catalog says `+discard` (checked in `instr` for every form);
        // in `p|q` the first anywhere, the second where the pair is of predicates or it is
        // optional (`elect.sync d|_`: "Predicate output expected").
        let pred_pair = form.outputs.len() == 2 && form.outputs.iter().all(|o| o.ty.kind == Kind::Pred);
        if let Some(Operand::Pair(_, b)) = i.operands.first() {
            if b == "_" && !pred_pair && !form.outputs.get(1).is_some_and(|o| o.optional) {
                return terr(loc, format!("`{}` needs its second destination, not `_`", form.name));
            }
        }
        let paired = matches!(i.operands.first(), Some(Operand::Pair(..)));
        if second_pred && !paired && !form.outputs[1].optional {
            return terr(
                loc,
                format!(
                    "`{}` writes its destinations as `{}|{}`",
                    form.name, form.outputs[0].name, form.outputs[1].name
                ),
            );
        }
        // `{...}` only where the form has a vector operand (ptxas: "Vector operand is not
        // allowed for instruction 'add'").
        let grouped = form.outputs.iter().chain(&form.inputs).any(|o| o.group.is_some());
        if !grouped && i.operands.iter().any(|o| matches!(o, Operand::Vector(_))) {
            return terr(loc, format!("`{}` takes no vector operand `{{...}}`", form.name));
        }
        // Flatten the written operands: `p|q` and `{a, b}` are several.
        let mut atoms: Vec<Operand> = Vec::new();
        for o in &i.operands {
            match o {
                Operand::Vector(v) => atoms.extend(v.iter().cloned()),
                Operand::Pair(a, b) => {
                    let one = |n: &String| {
                        if n == "_" {
                            Operand::Sink
                        } else {
                            Operand::Expr(Expr::Name(n.clone()))
                        }
                    };
                    atoms.push(one(a));
                    atoms.push(one(b));
                }
                o => atoms.push(o.clone()),
            }
        }
        let all: Vec<&spec::catalog::Operand> = form.outputs.iter().chain(&form.inputs).collect();
        // The carry flag (`.cc`) is an implicit operand, never written.
        let required = all.iter().filter(|o| !o.optional && !o.flags.cc).count();
        let optional = all.len() - required;
        let writable = all.iter().filter(|o| !o.flags.cc).count();
        // Without `|` the optional second predicate is absent (`setp.eq.s32 p, q, a, b` is not `p|q`).
        let writable = writable - usize::from(second_pred && !paired);
        if atoms.len() < required || atoms.len() > writable {
            return terr(
                loc,
                format!(
                    "`{}` takes {} operands{}, not {}",
                    form.name,
                    required,
                    if optional > 0 {
                        format!(" (or up to {})", all.len())
                    } else {
                        String::new()
                    },
                    atoms.len()
                ),
            );
        }
        // §9.4.1: `cvt` (like `ld` and `st`, which have decoders of their own) takes registers
        // wider than its types.
        let relaxed = catalog().rules(form.opcode).wider_registers;
        let mut take_optional = atoms.len() - required;
        let mut dsts = Vec::new();
        let mut srcs = Vec::new();
        let mut dsel = None;
        let mut k = 0;
        let nout = form.outputs.len();
        for (j, fo) in all.iter().enumerate() {
            if fo.optional {
                if take_optional == 0 {
                    // An absent optional source is not given to the spec at all: whether it is
                    // written changes the meaning (`vadd d, a, b` vs `vadd d.b0, a, b, c`).
                    if j < nout {
                        dsts.push(Dst::SINK);
                    }
                    continue;
                }
                take_optional -= 1;
            }
            if fo.flags.cc {
                if j < nout {
                    dsts.push(Dst {
                        slot: CC_SLOT,
                        bits: 1,
                        sext: 0,
                    });
                } else {
                    srcs.push(PureIn {
                        src: Src::Reg(CC_SLOT),
                        negated: false,
                        sel: None,
                        bits: 1,
                        invert: false,
                    });
                }
                continue;
            }
            let Some(o) = atoms.get(k) else {
                return terr(loc, format!("`{}` is missing operand `{}`", form.name, fo.name));
            };
            k += 1;
            // In a SIMD video source (`+reg`) `%v.x` reads as register `%v` with a selector
            // (ptxas 12.9: "Incorrect video selector"), not as an element of a vector register;
            // the scalar video instructions take the element.
            if let Operand::Expr(Expr::Name(n)) = o {
                let element = n
                    .rsplit_once('.')
                    .is_some_and(|(b, _)| matches!(self.lookup(b), Some(Sym::VecReg(_))));
                if fo.flags.reg && element {
                    return terr(
                        loc,
                        format!("`{n}` in a video instruction reads as a selector, not a vector element; copy the element first"),
                    );
                }
            }
            if j < nout {
                // A video destination's selector or mask (`d.b2`, `d.h10`) is part of the
                // instruction's meaning (the spec merges into `c`, L30910), not of the register.
                let o = match o {
                    Operand::Expr(Expr::Name(n)) if fo.flags.sel && self.lookup(n).is_none() => {
                        match n
                            .rsplit_once('.')
                            .and_then(|(b, s)| Some((b, spec::value::Sel::parse(s)?)))
                        {
                            Some((base, sel)) => {
                                dsel = Some(sel);
                                &Operand::Expr(Expr::Name(base.to_string()))
                            }
                            None => o,
                        }
                    }
                    _ => o,
                };
                dsts.push(self.dst(o, fo.ty, relaxed, loc)?);
            } else {
                let mut invert = false;
                let (o, negated) = match o {
                    Operand::Not(p) if fo.flags.not => (Operand::Expr(Expr::Name(p.clone())), true),
                    Operand::Not(p) if fo.ty.kind == Kind::Pred => {
                        invert = true;
                        (Operand::Expr(Expr::Name(p.clone())), false)
                    }
                    Operand::Not(_) => {
                        return terr(
                            loc,
                            format!("operand `{}` of `{}` cannot be negated with `!`", fo.name, form.name),
                        )
                    }
                    Operand::Expr(Expr::Unary('-', a)) if fo.flags.neg && matches!(**a, Expr::Name(_)) => {
                        (Operand::Expr((**a).clone()), true)
                    }
                    o => (o.clone(), false),
                };
                let (o, sel) = match &o {
                    Operand::Expr(Expr::Name(n)) if fo.flags.sel && self.lookup(n).is_none() => {
                        match n.rsplit_once('.') {
                            Some((base, s)) => match spec::value::Sel::parse(s) {
                                Some(sel) => (Operand::Expr(Expr::Name(base.to_string())), Some(sel)),
                                None => (o.clone(), None),
                            },
                            None => (o.clone(), None),
                        }
                    }
                    _ => (o.clone(), None),
                };
                if fo.flags.imm && !matches!(o, Operand::Expr(ref e) if const_int(e).is_some()) {
                    return terr(
                        loc,
                        format!("operand `{}` of `{}` must be an immediate", fo.name, form.name),
                    );
                }
                // A constant outside the operand's range (`in=`: bfe's positions, L6485) is
                // refused, as ptxas 12.9 refuses it; a register's value is the instruction's to mask.
                if let (Some((lo, hi)), Operand::Expr(e)) = (fo.flags.range, &o) {
                    if let Some(v) = const_int(e).filter(|v| *v < lo || *v > hi) {
                        return terr(
                            loc,
                            format!(
                                "operand `{}` of `{}` must be in {lo}..={hi}, not {v}",
                                fo.name, form.name
                            ),
                        );
                    }
                }
                // `+f32lit`: a float constant only as `0f` bits (ptxas 12.9 refuses f64 ones in
                // `cvt.rna.tf32.f32`, although L645 converts them; INTERPRETATIONS.md).
                if let (true, Operand::Expr(e)) = (fo.flags.f32lit, &o) {
                    if contains_float(e) && !matches!(e, Expr::Float { f32: true, .. }) {
                        return terr(
                            loc,
                            format!(
                                "operand `{}` of `{}` takes a float constant only as `0f` bits (ptxas 12.9 refuses f64 constants here)",
                                fo.name, form.name
                            ),
                        );
                    }
                }
                let src = self.src(&o, fo.ty, relaxed, at)?;
                if fo.flags.reg && matches!(src, Src::Imm(_)) {
                    return terr(
                        loc,
                        format!(
                            "operand `{}` of `{}` must be a register, not a constant",
                            fo.name, form.name
                        ),
                    );
                }
                srcs.push(PureIn {
                    src,
                    negated,
                    sel,
                    bits: if fo.ty.kind == Kind::Pred { 1 } else { fo.ty.bits() },
                    invert,
                });
            }
        }
        if k != atoms.len() {
            return terr(
                loc,
                format!("`{}` has {} operands too many", form.name, atoms.len() - k),
            );
        }
        if let Some(kind) = warp {
            return Ok(Op::Warp { kind, form, dsts, srcs });
        }
        let sem = sem.expect("checked above");
        Ok(select(form, sem, dsts, srcs, dsel, self.ck.generic))
    }
}

/// Which warp collective the executor `exec` of `form`'s row is (`None`: not a collective), its
/// mode the form's `mode` modifier and `.sync` whether it has that modifier.
fn warp_kind(exec: Exec, form: &Form) -> Option<WarpKind> {
    use spec::warp::{ShflMode, VoteMode};
    let sync = form.has("sync");
    Some(match exec {
        Exec::Shfl => WarpKind::Shfl(ShflMode::parse(form.var("mode")?)?, sync),
        // `vote.ballot.b32` and `vote.sync.ballot.b32` write the mode as a fixed modifier.
        Exec::Vote => WarpKind::Vote(
            match form.var("mode") {
                Some(m) => VoteMode::parse(m)?,
                None => VoteMode::Ballot,
            },
            sync,
        ),
        Exec::Match if form.has("any") => WarpKind::MatchAny,
        Exec::Match => WarpKind::MatchAll,
        Exec::Redux => WarpKind::Redux,
        Exec::Elect => WarpKind::Elect,
        Exec::Activemask => WarpKind::Activemask,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::catalog::catalog;

    /// Every form of a warp-collective row (`Exec::is_warp`) is bound as its collective, and no
    /// other form.
    #[test]
    fn warp_kind_covers_the_warp_collectives_of_the_catalog() {
        for f in &catalog().forms {
            let kind = f.exec().and_then(|e| warp_kind(e, f));
            assert_eq!(kind.is_some(), f.exec().is_some_and(Exec::is_warp), "{}", f.name);
        }
    }
}
