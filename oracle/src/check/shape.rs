//! The operands of forms the oracle does not execute, as far as the catalog knows their shape
//! (how many, vectors and fragments where the form has them, constants where it wants
//! immediates, addresses of the form's space, registers of agreeing types), and whether an
//! instruction fits a form at all (which of several forms' errors to report).

use super::body::FuncCx;
use super::consts::{const_int, contains_float};
use super::errors::{terr, Result};
use super::layout::{space_named, space_of};
use super::operands::{immediate_address_ok, Site};
use super::symbols::Sym;
use crate::ast::{Expr, Instr, Operand};
use crate::program::{Addr, Space};
use spec::catalog::{catalog, fragment, rules, Form};
use spec::types::Type;

impl FuncCx<'_> {
    /// Whether `i` has the shape of `form`: as many operands (optional ones may be left out),
    /// and a `{...}` (or a vector register) exactly where the form has a vector.
    pub(super) fn fits(&self, i: &Instr, form: &Form) -> bool {
        let slots = slots(form);
        let written = written_slots(i);
        let required = slots.iter().filter(|s| !s[0].optional).count();
        (required..=slots.len()).contains(&written.len())
            && written.iter().zip(&slots).all(|(o, slot)| {
                let vector = match o {
                    Operand::Vector(_) => true,
                    Operand::Expr(Expr::Name(n)) => matches!(self.lookup(n), Some(Sym::VecReg(_))),
                    _ => false,
                };
                vector == slot[0].group.is_some()
            })
    }

    /// The form among `avail` whose operand shape the instruction has (the first, for its
    /// error, when none has).
    pub(super) fn shaped_form(&self, i: &Instr, avail: &[&'static Form]) -> Result<&'static Form> {
        match avail.iter().copied().find(|f| self.shape(i, f).is_ok()) {
            Some(f) => Ok(f),
            None => {
                self.shape(i, avail[0])?;
                Ok(avail[0])
            }
        }
    }

    /// The written operands by the catalog's names ([`filled_slots`]); none when their count
    /// does not fit the form (which [`FuncCx::shape`] reports).
    pub(super) fn named_operands<'i>(&self, i: &'i Instr, form: &Form) -> Vec<(&'static str, &'i Operand)> {
        let written = written_slots(i);
        let slots = filled_slots(form, &i.mods, written.len()).unwrap_or_default();
        slots.iter().map(|s| s[0].name).zip(written).collect()
    }

    /// The operands of a form the oracle does not execute, as far as the catalog knows their
    /// shape: how many, a `{...}` only where the form has a vector (of the catalog's length, or
    /// where the catalog names one element, of the fragment's length [`fragment::length`], any
    /// length for the rest), constants where the form wants an immediate, `_` where the form
    /// writes nothing, and every name declared. The
    /// operands' types are left to the issues that give these forms semantics.
    pub(super) fn shape(&self, i: &Instr, form: &Form) -> Result<()> {
        let loc = i.loc;
        let at = Site::of(i);
        let written = written_slots(i);
        let slots = match filled_slots(form, &i.mods, written.len()) {
            Ok(slots) => slots,
            Err((required, total)) => {
                return terr(
                    loc,
                    format!(
                        "`{}` takes {required}{} operands, not {}",
                        form.name,
                        if total > required {
                            format!(" to {total}")
                        } else {
                            String::new()
                        },
                        written.len()
                    ),
                );
            }
        };
        let outputs = slots
            .iter()
            .filter(|s| form.outputs.iter().any(|o| std::ptr::eq(o, s[0])))
            .count();
        for (k, (o, slot)) in written.iter().zip(&slots).enumerate() {
            let grouped = slot[0].group.is_some();
            // A destination is a register, a vector of them, `p|q`, or `_` where the catalog
            // allows it (`mbarrier.try_wait _, ...`, `mapa _, ...`: ptxas 12.9 "Result discard
            // mode is not allowed").
            if k < outputs && matches!(o, Operand::Sink) && !slot[0].flags.sink && !slot[0].flags.discard {
                return terr(loc, format!("`{}` cannot discard its result with `_`", form.name));
            }
            // A destination the instruction does not write (L18749-18750: an arrive on a
            // `.shared::cluster` mbarrier returns no state).
            if k < outputs && slot[0].flags.sink && !matches!(o, Operand::Sink) {
                return terr(
                    loc,
                    format!(
                        "`{}` returns nothing in `{}`: write the sink `_` there",
                        form.name, slot[0].name
                    ),
                );
            }
            if k < outputs {
                if let Operand::Expr(e) = o {
                    if !matches!(e, Expr::Name(n) if matches!(self.lookup(n), Some(Sym::Reg { .. } | Sym::VecReg(_)))) {
                        return terr(loc, format!("the destination of `{}` must be a register", form.name));
                    }
                }
            }
            match o {
                // (A `.vN` form's data operand is a vector though the catalog writes one
                // operand: `multimem.st.v2.f32 [a], {x, y}`.)
                // The data a store writes may be `{x}` (ptxas 12.9: `st.async [a], {b}, [m]`,
                // `multimem.st.f64 [a], {b}`, `st.bulk [a], n, {0}`).
                // (Not the st.async forms without an mbarrier: "Vector operand is not allowed".)
                Operand::Vector(v) if v.len() == 1 && rules::one_element_data(form, slot[0]) => {}
                Operand::Vector(_) if !grouped && form.var("vec").is_none() => {
                    return terr(loc, format!("`{}` takes no vector operand `{{...}}` there", form.name));
                }
                Operand::Vector(v) if slot.len() > 1 && v.len() != slot.len() => {
                    return terr(
                        loc,
                        format!(
                            "`{}` takes a vector of {} elements there, not {}",
                            form.name,
                            slot.len(),
                            v.len()
                        ),
                    );
                }
                // A fragment: as many registers as the shape and types give it.
                Operand::Vector(v)
                    if slot.len() == 1 && fragment::length(form, slot[0]).is_some_and(|n| n != v.len()) =>
                {
                    return terr(
                        loc,
                        format!(
                            "`{}` takes a fragment `{}` of {} registers, not {} ({})",
                            form.name,
                            slot[0].name,
                            fragment::length(form, slot[0]).unwrap_or(0),
                            v.len(),
                            fragment::rule(slot[0])
                        ),
                    );
                }
                Operand::Expr(Expr::Name(n))
                    if slot.len() == 1
                        && grouped
                        && matches!(self.lookup(n), Some(Sym::VecReg(k)) if fragment::length(form, slot[0]).is_some_and(|f| f != *k as usize)) =>
                {
                    return terr(
                        loc,
                        format!(
                            "`{}` takes a fragment `{}` of {} registers, not the vector register `{n}`",
                            form.name,
                            slot[0].name,
                            fragment::length(form, slot[0]).unwrap_or(0),
                        ),
                    );
                }
                Operand::Expr(e) if slot[0].flags.imm && const_int(e).is_none() && !contains_float(e) => {
                    return terr(
                        loc,
                        format!("operand `{}` of `{}` must be a constant", slot[0].name, form.name),
                    );
                }
                _ => {}
            }
            // An address names a variable of the form's space, or is an immediate of `.local`
            // (as for the executed loads and stores).
            if let Operand::Address(_) = o {
                if let Ok((addr, sym)) = self.addr(o, loc) {
                    // `+reg` on an address: a register (plus an offset), never a variable
                    // (st.bulk; ptxas 12.9: "Argument 1 of instruction 'add': must be register").
                    if slot[0].flags.reg && !matches!(addr, Addr::Reg(..)) {
                        return terr(loc, format!("the address of `{}` must be a register", form.name));
                    }
                    // A copy's `dst`/`src` has its own space (`cp.async.shared.global`).
                    let own = form.var(slot[0].name).filter(|_| matches!(slot[0].name, "dst" | "src"));
                    let space = match own {
                        Some(s) => space_named(s),
                        None => space_of(form),
                    };
                    if own.is_some()
                        || form.var("ss").is_some()
                        || sym.is_some_and(|v| !matches!(v, Space::Global | Space::Shared))
                    {
                        self.check_space(space, sym, loc)?;
                    }
                    immediate_address_ok(addr, sym, space, loc)?;
                    if let Addr::Reg(r, _) = addr {
                        if slot[0].flags.wide
                            && space == Space::Generic
                            && self.reg_bits(r) == 32
                            && self.ck.windows.bits == 64
                        {
                            return terr(
                                loc,
                                format!("a generic address of `{}` must be a 64-bit register (ptxas 12.9: 32-bit addressing is not supported)", form.name),
                            );
                        }
                    }
                }
            }
            let mut names = Vec::new();
            o.names(&mut names);
            for n in names {
                if self.lookup(n).is_none()
                    && !spec::sreg::is_special(n)
                    && spec::sreg::predefined_constant(n).is_none()
                {
                    return terr(loc, format!("`{n}` is not declared"));
                }
            }
            self.shape_types(o, slot, k < outputs, form, at)?;
        }
        Ok(())
    }

    /// The registers and constants of an operand of a form the oracle does not execute, against
    /// the catalog's operand type, by the rules the executed forms follow (§9.4 `agree`, the
    /// literal rules of `src`): ptxas refuses a `.pred` for a `.u32`, a `.b16` for a `.b32`, a
    /// float literal for an integer.
    fn shape_types(
        &self,
        o: &Operand,
        slot: &[&spec::catalog::Operand],
        out: bool,
        form: &Form,
        at: Site,
    ) -> Result<()> {
        let loc = at.loc;
        // Tables 24/25: the register may be wider than the type for these.
        let relaxed = catalog().rules(form.opcode).wider_registers;
        let one = |e: &Expr, ty: Type| -> Result<()> {
            let reg = matches!(e, Expr::Name(n) if matches!(self.lookup(n), Some(Sym::Reg { .. }))
                || spec::sreg::is_special(n));
            let other_name = matches!(e, Expr::Name(_)) && !reg;
            // `mov.u32 d, avar` (fname, kernel) takes a name, not a register.
            if reg && matches!(slot[0].name, "avar" | "fname" | "kernel") {
                return terr(
                    loc,
                    format!("`{}` takes the name of a variable or function there", form.name),
                );
            }
            // `+reg`: a register, never a constant or a variable (`stackrestore`: "Result
            // register required"; a wgmma descriptor: "must be register").
            if slot[0].flags.reg && !reg {
                return terr(
                    loc,
                    format!("operand `{}` of `{}` must be a register", slot[0].name, form.name),
                );
            }
            // The manual's ranges for constants (`in=`, `mul=`): ptxas refuses others.
            if let Some(v) = const_int(e) {
                let f = slot[0].flags;
                let out_of_range = f.range.is_some_and(|(lo, hi)| v < lo || v > hi);
                let not_multiple = f.multiple.is_some_and(|m| v.rem_euclid(m as i64) != 0);
                if out_of_range || not_multiple {
                    return terr(
                        loc,
                        format!(
                            "operand `{}` of `{}` must be {}, not {v}",
                            slot[0].name,
                            form.name,
                            match (f.range, f.multiple) {
                                (Some((lo, hi)), Some(m)) => format!("a multiple of {m} in {lo}..={hi}"),
                                (Some((lo, hi)), None) => format!("in {lo}..={hi}"),
                                (None, Some(m)) => format!("a multiple of {m}"),
                                (None, None) => unreachable!(),
                            }
                        ),
                    );
                }
            }
            if other_name || slot[0].flags.imm || slot[0].flags.sel {
                return Ok(());
            }
            if out {
                self.dst(&Operand::Expr(e.clone()), ty, relaxed, loc).map(|_| ())
            } else {
                self.src(&Operand::Expr(e.clone()), ty, relaxed, at).map(|_| ())
            }
        };
        match o {
            Operand::Expr(e) if slot.len() == 1 => one(e, slot[0].ty),
            Operand::Vector(v) => {
                let fragment = slot.len() == 1 && fragment::length(form, slot[0]).is_some();
                for (j, e) in v.iter().enumerate() {
                    if let Operand::Expr(e) = e {
                        // A matrix fragment is registers (ptxas 12.9: "Arguments mismatch").
                        if fragment && !matches!(e, Expr::Name(_)) {
                            return terr(
                                loc,
                                format!("the fragment `{}` of `{}` takes registers", slot[0].name, form.name),
                            );
                        }
                        one(e, slot.get(j).unwrap_or(&slot[0]).ty)?;
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// A form's operand slots in order, as PTX writes them: one operand, or one `{...}` group (the
/// carry flag is never written).
pub(super) fn slots(form: &Form) -> Vec<Vec<&spec::catalog::Operand>> {
    let mut slots: Vec<Vec<&spec::catalog::Operand>> = Vec::new();
    for o in form.outputs.iter().chain(&form.inputs).filter(|o| !o.flags.cc) {
        match slots.last_mut() {
            Some(last) if o.group.is_some() && last[0].group == o.group => last.push(o),
            _ => slots.push(vec![o]),
        }
    }
    slots
}

/// The slots of `form` an instruction with modifiers `mods` and `written` operands fills, in
/// order, or (required, total) when that many do not fit. A cache policy is written only with
/// `.L2::cache_hint` (a later optional operand, such as cp.async.bulk's byte mask, then takes its
/// place), and with the hint it is always written, so the other optional operands bind around
/// it: the manual's own `cp.async.ca.shared.global.L2::cache_hint [d], [s], 4, policy` (L14326)
/// has no src-size, and its fourth operand is the policy. The optional operands written are the
/// first ones of the form.
pub(super) fn filled_slots<'f>(
    form: &'f Form,
    mods: &[String],
    written: usize,
) -> std::result::Result<Vec<Vec<&'f spec::catalog::Operand>>, (usize, usize)> {
    let hinted = rules::cache_hint(mods);
    let policy = |s: &[&spec::catalog::Operand]| s[0].optional && s[0].name == "cache_policy";
    let needed = |s: &[&spec::catalog::Operand]| !s[0].optional || (hinted && policy(s));
    let all: Vec<_> = slots(form).into_iter().filter(|s| hinted || !policy(s)).collect();
    let required = all.iter().filter(|s| needed(s)).count();
    if written < required || written > all.len() {
        return Err((required, all.len()));
    }
    let mut optional = written - required;
    Ok(all
        .into_iter()
        .filter(|s| {
            needed(s) || {
                let take = optional > 0;
                optional = optional.saturating_sub(1);
                take
            }
        })
        .collect())
}

/// The operands as written, slot by slot: `p|q` fills two, `[tmap, {x, y}]` one per part.
pub(super) fn written_slots(i: &Instr) -> Vec<&Operand> {
    let mut written = Vec::new();
    for o in &i.operands {
        match o {
            Operand::Pair(..) => {
                written.push(o);
                written.push(o);
            }
            Operand::AddressTuple(v) => written.extend(v.iter()),
            o => written.push(o),
        }
    }
    written
}
