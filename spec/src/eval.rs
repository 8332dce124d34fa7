//! Evaluating one instruction form: the dispatch from a catalog form to its semantics, and the
//! textual front end of `ptxconf eval` (instruction and operands in, destinations out).
//!
//! Text format (one instruction per line):
//! ```text
//! add.sat.s32 0x7fffffff 0x1            -> 0x7fffffff
//! setp.lt.and.s32 0x1 0x2 !0            -> 1 0            (p and q of p|q)
//! addc.cc.u32 0xffffffff 0x0 cf=1       -> 0x00000000 cf=1
//! vadd.u32.u32.u32.sat.add 0x10.b1 0x20.h0 0x5
//! vadd.u32.u32.u32 d.b2 0x10 0x20 0x33  (merge into byte 2: a leading `d.SEL` gives the dsel)
//! mov.b32 {0x1,0x2}                      (pack)   mov.b32 {_,_} 0x00020001 (unpack)
//! ```
//! Operands are the source operands in PTX order: hex (`0x..`) or decimal bit patterns, negative
//! decimals as two's complement of the operand's width, predicates as `0`/`1` (`!0`, `!1` where
//! the form allows `!p`), the incoming carry as `cf=0`/`cf=1`; float operands also as values
//! (`1.5`, `-0.0`, `inf`, `nan`) or PTX's `0f3f800000`/`0d3ff0000000000000` bit literals. Output: every destination in
//! order, hex padded to its width, predicates as `0`/`1`, the carry-out as `cf=N`; a result whose
//! acceptance set is wider than one value is followed by its tag (see [`crate::vector::tag`]: `any`,
//! `oneof:0x..,0x..`, `nan`, `ulp:2@REF`, `lanes:nan/-`: the tags of [`crate::vector`]).

use crate::catalog::{catalog, Exec, Form, Operand, Sem};
use crate::float::round::{from_f64, Rnd};
use crate::float::Fmt;
use crate::types::{FloatFormat, Kind};
use crate::value::{Args, EvalError, Input, IntegerError, Outcome, Outcomes, Sel};
use std::fmt::Write as _;

/// Whether the spec states `form`'s results as values that golden vectors can hold: a scalar
/// value function ([`semantics`]) or a matrix multiply-accumulate, whole matrices in and out
/// ([`crate::vector::matrix::columns`]); or, for a form the manual forbids
/// ([`crate::vector::refused`]), that it is refused: its meaning is that no valid module holds
/// it, which its `refused` vector states and conformance checks; or, for a `wgmma` control form
/// ([`crate::vector::wgctl`]), the defined result of a program that depends on it.
pub fn has_semantics(form: &Form) -> bool {
    semantics(form).is_some()
        || crate::vector::matrix::columns(form).is_some()
        || crate::vector::movement::columns(form).is_some()
        || crate::vector::scaled::columns(form).is_some()
        || crate::vector::wmma::columns(form).is_some()
        || crate::vector::refused::columns(form).is_some()
        || crate::vector::wgctl::columns(form).is_some()
}

/// A semantics adapter: decodes the form's modifiers and calls the pure function for it.
pub type SemFn = fn(&Form, &Args) -> Outcomes;

/// The semantics of a form: the function of the spec module its catalog row names (`@sem`,
/// [`Sem`]); `None` for the operational classes (memory, multi-thread, opaque and control forms,
/// `mov.u32 d, avar` among them), which are the oracle's to execute, and where the module does
/// not have the form yet (the catalog test `every_value_form_has_semantics` keeps that empty).
pub fn semantics(form: &Form) -> Option<SemFn> {
    match catalog().rows[form.row].sem? {
        Sem::Int => crate::int::semantics(form),
        Sem::Extended => crate::extended::semantics(form),
        Sem::Fp => crate::fp::semantics(form),
        Sem::Approx => crate::approx::semantics(form),
        Sem::Half => crate::half::semantics(form),
        Sem::Compare => crate::compare::semantics(form),
        Sem::Logic => crate::logic::semantics(form),
        Sem::Data => crate::data::semantics(form),
        Sem::Cvt => crate::cvt::semantics(form),
        Sem::Video => crate::video::semantics(form),
    }
}

/// Evaluates `form` on decoded operands.
pub fn eval(form: &Form, args: &Args) -> Outcomes {
    let f = semantics(form)
        .ok_or_else(|| EvalError::unhandled(format!("`{}` has no semantics in the spec yet", form.name)))?;
    let out = f(form, args)?;
    debug_assert_eq!(out.len(), form.outputs.len(), "{}", form.name);
    Ok(out)
}

/// Evaluates one line of `ptxconf eval` text and formats its destinations.
pub fn eval_line(line: &str) -> Result<String, EvalError> {
    let mut words = line.split_whitespace();
    let Some(instr) = words.next() else {
        return Err(EvalError::input("empty line: expected an instruction"));
    };
    let ops: Vec<&str> = words.collect();
    let cat = catalog();
    let found = cat.lookup(instr).map_err(|e| EvalError::input(e.0))?;
    // A matrix multiply-accumulate takes whole matrices (`A=... B=... C=...`, `tensor::text`).
    if let Some(&id) = found.forms.first() {
        let f = &cat.forms[id];
        let matrix = match f.exec() {
            Some(Exec::Mma) => true,
            Some(Exec::Wmma) => f.mods.first() == Some(&"mma"),
            _ => false,
        };
        if matrix {
            return crate::tensor::text::eval_words(f, &ops)?.ok_or_else(|| {
                EvalError::unhandled(format!(
                    "`{}`: the spec's tensor-core numerics do not cover it yet",
                    f.name
                ))
            });
        }
    }
    // Destination templates come first: `d.b2` (a video destination selector) or `{_,_}` (an
    // unpacking destination vector); everything else is a source operand.
    let mut dsel = None;
    let mut dvec: Option<usize> = None;
    let mut rest = &ops[..];
    while let Some(w) = rest.first() {
        if let Some(s) = w.strip_prefix("d.") {
            dsel = Some(Sel::parse(s).ok_or_else(|| EvalError::input(format!("bad destination selector `{w}`")))?);
        } else if w.starts_with('{') && w[1..].starts_with(|c: char| c == '_' || c.is_ascii_alphabetic()) {
            *dvec.get_or_insert(0) += w.split(',').count();
        } else {
            break;
        }
        rest = &rest[1..];
    }
    // Vector operands pick among forms sharing a name by their total element count
    // (`mov.b32 {a,b}` packs two .b16, `mov.b32 {a,b,c,d}` four .b8).
    let vwords = rest.iter().filter(|w| w.starts_with('{'));
    let svec = Some(vwords.map(|w| w.split(',').count()).sum::<usize>()).filter(|&n| n > 0);
    let vlen = |ops: &[Operand]| Some(ops.iter().filter(|o| o.group.is_some()).count()).filter(|&n| n > 0);
    let pick = found
        .forms
        .iter()
        .map(|&i| &cat.forms[i])
        .filter(|f| vlen(&f.outputs) == dvec && vlen(&f.inputs) == svec)
        // `mov.u32 d, a` and `mov.u32 d, avar` share a shape: take the one the spec evaluates.
        .min_by_key(|f| semantics(f).is_none());
    let Some(form) = pick else {
        let what = match (dvec, svec) {
            (Some(n), _) => format!("{n} vector destination elements"),
            (None, Some(n)) => format!("{n} vector source elements"),
            (None, None) => "scalar operands".to_string(),
        };
        return Err(EvalError::input(format!("`{instr}` has no form with {what}")));
    };
    if dsel.is_some() && !form.outputs.iter().any(|o| o.flags.sel) {
        return Err(EvalError::input(format!("`{instr}` takes no destination selector")));
    }
    let ins = parse_inputs(form, rest)?;
    let out = eval(form, &Args { ins: &ins, dsel })?;
    Ok(format_outputs(form, &out))
}

/// Splits `{a,b}` vector operands into their elements.
fn flatten<'a>(ops: &[&'a str]) -> Result<Vec<&'a str>, EvalError> {
    let mut v = Vec::new();
    for w in ops {
        if let Some(inner) = w.strip_prefix('{') {
            let inner = inner
                .strip_suffix('}')
                .ok_or_else(|| EvalError::input(format!("unclosed vector operand `{w}`")))?;
            v.extend(inner.split(',').map(str::trim));
        } else {
            v.push(*w);
        }
    }
    Ok(v)
}

fn parse_inputs(form: &Form, ops: &[&str]) -> Result<Vec<Input>, EvalError> {
    let ops = flatten(ops)?;
    let want = &form.inputs;
    let required = want.iter().filter(|o| !o.optional).count();
    if ops.len() < required || ops.len() > want.len() {
        let names: Vec<String> = want.iter().map(|o| format!("{}:{}", o.name, o.ty)).collect();
        return Err(EvalError::input(format!(
            "`{}` takes {} source operand{} ({}), got {}",
            form.name,
            want.len(),
            if want.len() == 1 { "" } else { "s" },
            names.join(" "),
            ops.len()
        )));
    }
    ops.iter().zip(want).map(|(w, o)| parse_operand(w, o)).collect()
}

fn parse_operand(w: &str, o: &Operand) -> Result<Input, EvalError> {
    let bad = |why: &str| {
        EvalError::input(format!(
            "operand {} ({}{}): `{w}` {why}",
            o.name,
            o.ty,
            if o.flags.imm { " immediate" } else { "" }
        ))
    };
    let mut s = w;
    let mut inp = Input::default();
    if o.flags.cc {
        s = s
            .strip_prefix("cf=")
            .ok_or_else(|| bad("must be written cf=0 or cf=1"))?;
    }
    if let Some(r) = s.strip_prefix('!') {
        if !o.flags.not {
            return Err(bad("cannot be negated with `!`"));
        }
        inp.negated = true;
        s = r;
    }
    if o.flags.neg {
        if let Some(r) = s.strip_prefix('-') {
            inp.negated = true;
            s = r;
        }
    }
    if o.flags.sel {
        if let Some((v, sel)) = s.split_once('.') {
            inp.sel = Some(
                Sel::parse(sel)
                    .ok_or_else(|| bad("has a bad selector (expected .b0-.b3, .h0, .h1 or a SIMD selector)"))?,
            );
            s = v;
        }
    }
    let bits = o.ty.bits();
    if let Kind::Float(f) = o.ty.kind {
        if let Some(v) = parse_float_literal(s, f) {
            inp.bits = v.ok_or_else(|| bad("is not a float literal of this type"))?;
            return Ok(inp);
        }
    }
    inp.bits = crate::value::parse_integer(s, bits).map_err(|e| match e {
        IntegerError::NotANumber => bad("is not a number (write hex as 0x.., or decimal)"),
        IntegerError::TooWide => bad(&format!("does not fit in {bits} bits")),
    })?;
    Ok(inp)
}

/// A float operand written as a value: PTX's bit literals `0fXXXXXXXX` (f32) and
/// `0dXXXXXXXXXXXXXXXX` (f64, §4.5.1), or a decimal number with a point or exponent (`1.5`,
/// `-0.0`, `1e-3`), `inf`, `-inf`, `nan`, rounded to nearest even into the operand's format.
/// `None` when `s` is written as plain bits (hex or a decimal integer).
fn parse_float_literal(s: &str, f: FloatFormat) -> Option<Option<u128>> {
    let fmt = Fmt::of(f);
    for (prefix, width) in [("0f", 32), ("0F", 32), ("0d", 64), ("0D", 64)] {
        if let Some(h) = s.strip_prefix(prefix) {
            let v = u128::from_str_radix(h, 16).ok().filter(|_| h.len() == width / 4);
            return Some(v.filter(|_| fmt.bits == width as u32));
        }
    }
    let body = s.trim_start_matches('-');
    let is_value =
        matches!(body, "inf" | "nan") || (!body.starts_with("0x") && (body.contains('.') || body.contains('e')));
    if !is_value {
        return None;
    }
    Some(s.parse::<f64>().ok().map(|x| from_f64(fmt, x, Rnd::Rn)))
}

/// Formats destinations: hex padded to the operand width, predicates and the carry as digits,
/// followed by the acceptance tag where the set is wider than the model value.
pub fn format_outputs(form: &Form, out: &[Outcome]) -> String {
    let mut s = String::new();
    for (o, r) in form.outputs.iter().zip(out) {
        if !s.is_empty() {
            s.push(' ');
        }
        if o.flags.cc {
            let _ = write!(s, "cf={}", r.model & 1);
        } else if o.ty.kind == Kind::Pred {
            let _ = write!(s, "{}", r.model & 1);
        } else {
            let _ = write!(s, "0x{:0w$x}", r.model, w = o.ty.bits().div_ceil(4) as usize);
        }
        if let Some(t) = crate::vector::tag_of(&r.accept, r.model, o.ty) {
            s.push(' ');
            s.push_str(&t);
        }
    }
    s
}
