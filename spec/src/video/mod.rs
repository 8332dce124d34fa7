//! §9.7.18 video instructions (L30790-31578): [`scalar`] (§9.7.18.1: `vadd vsub vabsdiff vmin
//! vmax vshl vshr vmad vset`) and [`simd`] (§9.7.18.2: `vadd2 … vmax2 vset2`, `vadd4 … vmax4
//! vset4`).
//!
//! All operands are 32-bit registers (L30792). Selectors are written on the operands, not on
//! the instruction: `a.b1`, `b.h0`, SIMD `a.h21` / `b.b7654`, the merge destination `d.b2`, the
//! SIMD mask `d.h10`. The adapters here decode a form's modifiers and the operands' selectors
//! ([`Args`]), reject what the manual does not allow with an [`EvalError`] of kind
//! [`Rule`](crate::value::EvalErrorKind::Rule) (a catalog row they cannot decode is
//! [`Unhandled`](crate::value::EvalErrorKind::Unhandled)), and call the pure functions of the
//! two submodules.

pub mod scalar;
pub mod simd;

use crate::catalog::Form;
use crate::eval::SemFn;
use crate::value::{Accept, Args, EvalError, Outcome, Outcomes, Sel};
use scalar::{Finish, Negate, PartSel, ScalarOp, Scale, SecOp, ShiftMode, ShiftOp, Src, Tail};
use simd::{Post, Simd, SimdOp, Ways};

/// An operand type of a video instruction: `.u32` or `.s32` (L30862).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VType {
    /// `.u32`: fields zero-extended.
    U32,
    /// `.s32`: fields sign-extended.
    S32,
}

impl VType {
    /// Whether the type is `.s32`.
    pub const fn is_signed(self) -> bool {
        matches!(self, VType::S32)
    }

    /// The low `bits` bits of `v`, sign-extended for `.s32` and zero-extended for `.u32`.
    pub fn extend(self, v: u32, bits: u32) -> i64 {
        let sh = 64 - bits;
        let v = i64::from(v) << sh;
        match self {
            VType::S32 => v >> sh,
            VType::U32 => ((v as u64) >> sh) as i64,
        }
    }

    fn parse(s: Option<&str>) -> Option<VType> {
        match s? {
            "u32" => Some(VType::U32),
            "s32" => Some(VType::S32),
            _ => None,
        }
    }
}

/// The comparison of `vset`, `vset2`, `vset4` (`.cmp`, L31137, L31344, L31518): the integer
/// operators `eq ne lt le gt ge` of §9.7.6, applied to the extended values.
pub use crate::compare::CmpOp as Cmp;

/// Whether `a cmp b` holds on the extended values (the catalog admits only the six operators).
pub(crate) fn holds(cmp: Cmp, a: i64, b: i64) -> bool {
    crate::compare::compare_int(cmp, a.into(), b.into()).unwrap_or(false)
}

/// An outcome whose model is `model` and which also accepts `alts` (readings of an ambiguous
/// passage; duplicates of the model are dropped).
fn outcome(model: u32, alts: Vec<u32>) -> Outcome {
    let mut more: Vec<u128> = Vec::new();
    for a in alts {
        if a != model && !more.contains(&u128::from(a)) {
            more.push(u128::from(a));
        }
    }
    let accept = if more.is_empty() {
        Accept::Exact
    } else {
        Accept::OneOf(more)
    };
    Outcome {
        model: u128::from(model),
        accept,
    }
}

/// The semantics of a §9.7.18 form.
pub(crate) fn semantics(form: &Form) -> Option<SemFn> {
    Some(match form.opcode {
        "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" => eval_scalar,
        "vshl" | "vshr" => eval_shift,
        "vmad" => eval_vmad,
        "vset" => eval_vset,
        "vadd2" | "vsub2" | "vavrg2" | "vabsdiff2" | "vmin2" | "vmax2" | "vadd4" | "vsub4" | "vavrg4" | "vabsdiff4"
        | "vmin4" | "vmax4" => eval_simd,
        "vset2" | "vset4" => eval_vset_simd,
        _ => return None,
    })
}

/// A form variable the catalog row always binds, or an error naming it.
fn var(form: &Form, name: &str) -> Result<&'static str, EvalError> {
    form.var(name)
        .ok_or_else(|| EvalError::unhandled(format!("`{}`: the catalog row binds no `{name}`", form.name)))
}

fn vtype(form: &Form, name: &str) -> Result<VType, EvalError> {
    VType::parse(form.var(name))
        .ok_or_else(|| EvalError::unhandled(format!("`{}`: `{name}` is not .u32 or .s32", form.name)))
}

/// Checks the operands against the form: their count, `-` only where the form allows it,
/// selectors only on `+sel` operands, a destination selector only where `d` takes one.
fn check_operands(form: &Form, args: &Args) -> Result<(), EvalError> {
    let want = &form.inputs;
    let required = want.iter().filter(|o| !o.optional).count();
    // The oracle's checker and `eval_line` count the operands against the form first: a wrong
    // count here is its caller's defect, not the program's.
    if args.ins.len() < required || args.ins.len() > want.len() {
        let n = if required == want.len() {
            format!("{required}")
        } else {
            format!("{required} or {}", want.len())
        };
        return Err(EvalError::unhandled(format!(
            "`{}` takes {n} source operands, got {}",
            form.name,
            args.ins.len()
        )));
    }
    for (inp, o) in args.ins.iter().zip(want) {
        if inp.negated && !o.flags.neg {
            let why = if form.has("po") {
                " (source operands may not be negated in .po mode, L31058)"
            } else {
                ""
            };
            return Err(EvalError::rule(format!(
                "`{}`: operand {} cannot be negated{why}",
                form.name, o.name
            )));
        }
        if let Some(s) = inp.sel {
            if !o.flags.sel {
                return Err(EvalError::rule(format!(
                    "`{}`: operand {} takes no selector (`.{s}`)",
                    form.name, o.name
                )));
            }
        }
    }
    if let Some(s) = args.dsel {
        if !form.outputs.iter().any(|o| o.flags.sel) {
            return Err(EvalError::rule(format!(
                "`{}` takes no destination selector (`d.{s}`)",
                form.name
            )));
        }
    }
    Ok(())
}

/// A scalar selector: `.b0`-`.b3`, `.h0`, `.h1` (L30863, L30935, L30993, L31049, L31138), or none.
fn part_sel(form: &Form, what: &str, s: Option<Sel>) -> Result<PartSel, EvalError> {
    let Some(s) = s else { return Ok(PartSel::Word) };
    match (s.kind, s.lanes()) {
        (b'b', &[i]) if i < 4 => Ok(PartSel::Byte(i)),
        (b'h', &[i]) if i < 2 => Ok(PartSel::Half(i)),
        _ => Err(EvalError::rule(format!(
            "`{}`: `{what}.{s}` is not a scalar video selector; {what} takes .b0, .b1, .b2, .b3, .h0 or .h1 (L30863)",
            form.name
        ))),
    }
}

fn src(form: &Form, args: &Args, i: usize, what: &str, ty: VType) -> Result<Src, EvalError> {
    Ok(Src {
        bits: args.ins[i].bits as u32,
        ty,
        sel: part_sel(form, what, args.ins[i].sel)?,
    })
}

/// The secondary operation or merge of a scalar form (L30854-30859): `.op2` with `c`, or
/// `d.dsel` with `c`, or neither and no `c`.
fn scalar_tail(form: &Form, args: &Args) -> Result<Tail, EvalError> {
    let c = args.ins.get(2).map(|i| i.bits as u32);
    let name = &form.name;
    match (form.var("op2"), args.dsel, c) {
        (Some(op), None, Some(c)) => {
            let op = match op {
                "add" => SecOp::Add,
                "min" => SecOp::Min,
                _ => SecOp::Max,
            };
            Ok(Tail::Sec(op, c))
        }
        (None, Some(d), Some(c)) => Ok(Tail::Merge(part_sel(form, "d", Some(d))?, c)),
        (None, None, None) => Ok(Tail::None),
        (None, Some(d), None) => Err(EvalError::rule(format!(
            "`{name}`: the destination selector `d.{d}` merges into c; write `d.{d}, a, b, c` (L30859)"
        ))),
        (None, None, Some(_)) => Err(EvalError::rule(format!(
            "`{name}`: c is taken only with a destination selector (`d.b0, a, b, c`) or a secondary \
             operation .add/.min/.max (L30855-30859)"
        ))),
        (Some(op), Some(d), _) => Err(EvalError::rule(format!(
            "`{name}`: a secondary operation .{op} cannot be combined with a merge into `d.{d}` (L30854-30859)"
        ))),
        (Some(op), None, None) => Err(EvalError::rule(format!(
            "`{name}`: the secondary operation .{op} needs c (L30856)"
        ))),
    }
}

fn finish(form: &Form, args: &Args) -> Result<Finish, EvalError> {
    Ok(Finish {
        dtype: vtype(form, "dt")?,
        sat: form.has("sat"),
        tail: scalar_tail(form, args)?,
    })
}

/// `vadd vsub vabsdiff vmin vmax` (9.7.18.1.1): see [`scalar::scalar`].
fn eval_scalar(form: &Form, args: &Args) -> Outcomes {
    check_operands(form, args)?;
    let op = match form.opcode {
        "vadd" => ScalarOp::Vadd,
        "vsub" => ScalarOp::Vsub,
        "vabsdiff" => ScalarOp::Vabsdiff,
        "vmin" => ScalarOp::Vmin,
        _ => ScalarOp::Vmax,
    };
    let a = src(form, args, 0, "a", vtype(form, "at")?)?;
    let b = src(form, args, 1, "b", vtype(form, "bt")?)?;
    Ok(vec![scalar::scalar(op, a, b, &finish(form, args)?)])
}

/// `vshl vshr` (9.7.18.1.2): see [`scalar::vshift`].
fn eval_shift(form: &Form, args: &Args) -> Outcomes {
    check_operands(form, args)?;
    let op = if form.opcode == "vshl" {
        ShiftOp::Vshl
    } else {
        ShiftOp::Vshr
    };
    let mode = if var(form, "mode")? == "clamp" {
        ShiftMode::Clamp
    } else {
        ShiftMode::Wrap
    };
    let a = src(form, args, 0, "a", vtype(form, "at")?)?;
    let b = src(form, args, 1, "b", VType::U32)?;
    Ok(vec![scalar::vshift(op, mode, a, b.bits, b.sel, &finish(form, args)?)])
}

/// `vmad` (9.7.18.1.3): see [`scalar::vmad`].
fn eval_vmad(form: &Form, args: &Args) -> Outcomes {
    check_operands(form, args)?;
    if let Some(d) = args.dsel {
        return Err(EvalError::rule(format!(
            "`{}` takes no destination selector (`d.{d}`; L31044-31046)",
            form.name
        )));
    }
    let a = src(form, args, 0, "a", vtype(form, "at")?)?;
    let b = src(form, args, 1, "b", vtype(form, "bt")?)?;
    let neg = Negate {
        a: args.ins[0].negated,
        b: args.ins[1].negated,
        c: args.ins[2].negated,
    };
    let scale = match form.var("scale") {
        Some("shr7") => Scale::Shr7,
        Some("shr15") => Scale::Shr15,
        _ => Scale::None,
    };
    let c = args.ins[2].bits as u32;
    Ok(vec![scalar::vmad(
        a,
        b,
        c,
        neg,
        form.has("po"),
        form.has("sat"),
        scale,
    )?])
}

/// `vset` (9.7.18.1.4): see [`scalar::vset`].
fn eval_vset(form: &Form, args: &Args) -> Outcomes {
    check_operands(form, args)?;
    let cmp = Cmp::parse(var(form, "cmp")?)
        .ok_or_else(|| EvalError::unhandled(format!("`{}`: bad comparison", form.name)))?;
    let a = src(form, args, 0, "a", vtype(form, "at")?)?;
    let b = src(form, args, 1, "b", vtype(form, "bt")?)?;
    let d = scalar::vset(cmp, a, b, scalar_tail(form, args)?);
    Ok(vec![Outcome::exact(u128::from(d))])
}

fn ways(form: &Form) -> Ways {
    if form.opcode.ends_with('2') {
        Ways::Two
    } else {
        Ways::Four
    }
}

/// A SIMD source selector: `.hxy` with x, y in 0-3 (L31258) or `.bxyzw` with x-w in 0-7
/// (L31433), written most significant lane first; absent, the default.
fn simd_sel(form: &Form, what: &str, ways: Ways, s: Option<Sel>, default: [u8; 4]) -> Result<[u8; 4], EvalError> {
    let Some(s) = s else { return Ok(default) };
    let (kind, line) = match ways {
        Ways::Two => (b'h', "`.hxy`, x and y in 0-3 (L31258)"),
        Ways::Four => (b'b', "`.bxyzw`, x-w in 0-7 (L31433)"),
    };
    let lanes = s.lanes();
    if s.kind != kind || lanes.len() != ways.lanes() || lanes.iter().any(|&e| e >= ways.elems()) {
        return Err(EvalError::rule(format!(
            "`{}`: `{what}.{s}` is not a {}-way SIMD selector; write {line}",
            form.name,
            ways.lanes()
        )));
    }
    let mut sel = [0u8; 4];
    for (i, &e) in lanes.iter().rev().enumerate() {
        sel[i] = e;
    }
    Ok(sel)
}

/// A SIMD mask on `d`: `.h0 .h1 .h10` (L31257) or `.b0` … `.b3210`, lane digits strictly
/// descending (L31428-31431); absent, every lane.
///
/// ⚠ The example `vmin4.s32.u32.u32.add r1.b00, …` (L31502) writes the mask `.b00`, which is not
/// in the list; it is rejected.
fn simd_mask(form: &Form, ways: Ways, s: Option<Sel>) -> Result<u8, EvalError> {
    let Some(s) = s else { return Ok(ways.all_lanes()) };
    let (kind, line) = match ways {
        Ways::Two => (b'h', ".h0, .h1 or .h10 (L31257)"),
        Ways::Four => (
            b'b',
            ".b0, .b1, .b10, .b2, .b20, .b21, .b210, .b3, … .b3210: lanes in descending order (L31428-31431)",
        ),
    };
    let lanes = s.lanes();
    let descending = lanes.windows(2).all(|w| w[0] > w[1]);
    if s.kind != kind || !descending || lanes.iter().any(|&l| usize::from(l) >= ways.lanes()) {
        return Err(EvalError::rule(format!(
            "`{}`: `d.{s}` is not a {}-way SIMD mask; write {line}",
            form.name,
            ways.lanes()
        )));
    }
    Ok(lanes.iter().fold(0u8, |m, &l| m | 1 << l))
}

fn simd_shape(form: &Form, args: &Args, atype: VType, btype: VType) -> Result<Simd, EvalError> {
    let w = ways(form);
    Ok(Simd {
        ways: w,
        atype,
        asel: simd_sel(form, "a", w, args.ins[0].sel, w.default_asel())?,
        btype,
        bsel: simd_sel(form, "b", w, args.ins[1].sel, w.default_bsel())?,
        mask: simd_mask(form, w, args.dsel)?,
    })
}

/// `vadd2 … vmax2`, `vadd4 … vmax4` (9.7.18.2.1, 9.7.18.2.3): see [`simd::simd`].
fn eval_simd(form: &Form, args: &Args) -> Outcomes {
    check_operands(form, args)?;
    let op = match form.opcode.trim_end_matches(['2', '4']) {
        "vadd" => SimdOp::Vadd,
        "vsub" => SimdOp::Vsub,
        "vavrg" => SimdOp::Vavrg,
        "vabsdiff" => SimdOp::Vabsdiff,
        "vmin" => SimdOp::Vmin,
        _ => SimdOp::Vmax,
    };
    let s = simd_shape(form, args, vtype(form, "at")?, vtype(form, "bt")?)?;
    let post = match (form.has("add"), form.has("sat")) {
        (true, true) => {
            return Err(EvalError::rule(format!(
                "`{}`: saturation cannot be used with the accumulate .add (L31270)",
                form.name
            )))
        }
        (true, false) => Post::Add,
        (false, sat) => Post::Merge { sat },
    };
    let (a, b, c) = (
        args.ins[0].bits as u32,
        args.ins[1].bits as u32,
        args.ins[2].bits as u32,
    );
    Ok(vec![simd::simd(op, vtype(form, "dt")?, post, &s, a, b, c)])
}

/// `vset2`, `vset4` (9.7.18.2.2, 9.7.18.2.4): see [`simd::vset_simd`].
fn eval_vset_simd(form: &Form, args: &Args) -> Outcomes {
    check_operands(form, args)?;
    let cmp = Cmp::parse(var(form, "cmp")?)
        .ok_or_else(|| EvalError::unhandled(format!("`{}`: bad comparison", form.name)))?;
    let s = simd_shape(form, args, vtype(form, "at")?, vtype(form, "bt")?)?;
    let (a, b, c) = (
        args.ins[0].bits as u32,
        args.ins[1].bits as u32,
        args.ins[2].bits as u32,
    );
    Ok(vec![Outcome::exact(u128::from(simd::vset_simd(
        cmp,
        form.has("add"),
        &s,
        a,
        b,
        c,
    )))])
}
