//! §9.7.2 Extended-precision integer arithmetic (L6791): add.cc, addc, sub.cc, subc, mad.cc,
//! madc.
//!
//! The condition code CC.CF is explicit state here: each function takes the incoming carry as a
//! `bool` where the instruction reads it and returns the outgoing carry beside the result. "No other
//! instructions access the condition code ... The condition code register is not preserved across
//! calls" (L6793), so nothing else needs it. "Behavior is the same for unsigned and signed
//! integers" (L6831): carries are unsigned carries of the n-bit patterns.

use crate::catalog::Form;
use crate::eval::SemFn;
use crate::int::{mul, IntTy, MulMode};
use crate::types::mask;
use crate::value::{Accept, Args, EvalError, Outcome, Outcomes};

/// `a + b + cin` on n-bit patterns: the n-bit sum and the carry out of bit n-1.
fn add_carry(bits: u32, a: u64, b: u64, cin: bool) -> (u64, bool) {
    let m = mask(bits);
    let s = (a as u128 & m) + (b as u128 & m) + cin as u128;
    ((s & m) as u64, s >> bits != 0)
}

/// `a - (b + bin)` on n-bit patterns: the n-bit difference and the borrow (CF = 1 means a borrow
/// occurred, since subc subtracts CF, L6968).
fn sub_borrow(bits: u32, a: u64, b: u64, bin: bool) -> (u64, bool) {
    let m = mask(bits);
    let (a, sub) = (a as u128 & m, (b as u128 & m) + bin as u128);
    ((a.wrapping_sub(sub) & m) as u64, a < sub)
}

/// §9.7.2.1 add.cc (L6803): `d = a + b`, carry-out written to CC.CF (L6821-6823).
pub fn add_cc(bits: u32, a: u64, b: u64) -> (u64, bool) {
    add_carry(bits, a, b, false)
}

/// §9.7.2.2 addc (L6852): `d = a + b + CC.CF`; with `.cc` the carry-out is written to CC.CF
/// (L6870-6872).
pub fn addc(bits: u32, a: u64, b: u64, cf: bool) -> (u64, bool) {
    add_carry(bits, a, b, cf)
}

/// §9.7.2.3 sub.cc (L6901): `d = a - b`, borrow-out written to CC.CF (L6919-6921).
pub fn sub_cc(bits: u32, a: u64, b: u64) -> (u64, bool) {
    sub_borrow(bits, a, b, false)
}

/// §9.7.2.4 subc (L6950): `d = a - (b + CC.CF)`; with `.cc` the borrow-out is written to CC.CF
/// (L6968-6970).
pub fn subc(bits: u32, a: u64, b: u64, cf: bool) -> (u64, bool) {
    sub_borrow(bits, a, b, cf)
}

/// sub.cc as NVIDIA GPUs compute it: `d = a + ~b + 1`, CC.CF = the carry out of that sum, which
/// is 1 when there is *no* borrow — the inverse of the manual's borrow (L6919-6921). The model
/// value of `sub.cc`'s flag; the manual's reading stays in its acceptance set (INTERPRETATIONS.md,
/// "The carry flag of sub.cc and subc").
pub fn sub_cc_hw(bits: u32, a: u64, b: u64) -> (u64, bool) {
    add_carry(bits, a, !b & mask(bits) as u64, true)
}

/// subc as NVIDIA GPUs compute it: `d = a + ~b + CC.CF` (= `a - (b + !CC.CF)`), with `.cc` the
/// carry out of that sum written to CC.CF. Consistent with [`sub_cc_hw`]: a `sub.cc`/`subc.cc`
/// chain subtracts multi-word integers under either reading; they differ where the flag meets
/// another reading (`addc` after `sub.cc` adds the hardware's flag).
pub fn subc_hw(bits: u32, a: u64, b: u64, cf: bool) -> (u64, bool) {
    add_carry(bits, a, !b & mask(bits) as u64, cf)
}

/// §9.7.2.5 mad.cc (L6999) and §9.7.2.6 madc (L7042): `t = a * b; d = t<hi/lo> + c (+ CC.CF)`,
/// the carry-out of the addition written to CC.CF (L7017-7021, L7060-7064).
/// ⚠ The pseudocode names 32-bit ranges (t<63..32>, t<31..0>) even for the 64-bit types added in
/// PTX 4.3 (L7018, L7061); they are read as t<2n-1..n> and t<n-1..0> (catalog defect 6). The
/// product is signed or unsigned by the type — only the addition's carry is sign-agnostic.
pub fn madc(t: IntTy, hi: bool, a: u64, b: u64, c: u64, cf: bool) -> (u64, bool) {
    let part = mul(t, if hi { MulMode::Hi } else { MulMode::Lo }, a, b);
    add_carry(t.bits, part, c, cf)
}

/// §9.7.2.5 mad.cc (L6999): [`madc`] without an incoming carry.
pub fn mad_cc(t: IntTy, hi: bool, a: u64, b: u64, c: u64) -> (u64, bool) {
    madc(t, hi, a, b, c, false)
}

fn out(f: &Form, (d, cf): (u64, bool)) -> Outcomes {
    let mut v = vec![Outcome::exact(d as u128)];
    if f.outputs.len() == 2 {
        v.push(Outcome::exact(cf as u128));
    }
    Ok(v)
}

fn int_ty(f: &Form) -> Result<IntTy, EvalError> {
    f.ty("t")
        .map(IntTy::of)
        .ok_or_else(|| EvalError::unhandled(format!("form `{}` has no type", f.name)))
}

/// The incoming carry: the last source operand of addc/subc/madc.
fn cf_in(x: &Args) -> bool {
    x.pred(x.ins.len() - 1)
}

fn sem_add_cc(f: &Form, x: &Args) -> Outcomes {
    out(f, add_cc(int_ty(f)?.bits, x.u(0), x.u(1)))
}

fn sem_addc(f: &Form, x: &Args) -> Outcomes {
    out(f, addc(int_ty(f)?.bits, x.u(0), x.u(1), cf_in(x)))
}

/// The hardware's result as the model, the manual's also accepted, destination by destination.
fn out_either(f: &Form, hw: (u64, bool), manual: (u64, bool)) -> Outcomes {
    let either = |h: u128, m: u128| {
        if h == m {
            Outcome::exact(h)
        } else {
            Outcome {
                model: h,
                accept: Accept::OneOf(vec![m]),
            }
        }
    };
    let mut v = vec![either(hw.0 as u128, manual.0 as u128)];
    if f.outputs.len() == 2 {
        v.push(either(hw.1 as u128, manual.1 as u128));
    }
    Ok(v)
}

fn sem_sub_cc(f: &Form, x: &Args) -> Outcomes {
    let bits = int_ty(f)?.bits;
    out_either(f, sub_cc_hw(bits, x.u(0), x.u(1)), sub_cc(bits, x.u(0), x.u(1)))
}

fn sem_subc(f: &Form, x: &Args) -> Outcomes {
    let bits = int_ty(f)?.bits;
    let cf = cf_in(x);
    out_either(f, subc_hw(bits, x.u(0), x.u(1), cf), subc(bits, x.u(0), x.u(1), cf))
}

fn sem_mad_cc(f: &Form, x: &Args) -> Outcomes {
    out(f, mad_cc(int_ty(f)?, f.var("m") == Some("hi"), x.u(0), x.u(1), x.u(2)))
}

fn sem_madc(f: &Form, x: &Args) -> Outcomes {
    out(
        f,
        madc(int_ty(f)?, f.var("m") == Some("hi"), x.u(0), x.u(1), x.u(2), cf_in(x)),
    )
}

pub(crate) fn semantics(form: &Form) -> Option<SemFn> {
    Some(match form.section {
        "9.7.2.1" => sem_add_cc,
        "9.7.2.2" => sem_addc,
        "9.7.2.3" => sem_sub_cc,
        "9.7.2.4" => sem_subc,
        "9.7.2.5" => sem_mad_cc,
        "9.7.2.6" => sem_madc,
        _ => return None,
    })
}
