//! §9.7.8 Logic and shift instructions (L10953): `and`, `or`, `xor`, `not`, `cnot`, `lop3`,
//! `shf`, `shl`, `shr`.
//!
//! The operations are untyped bitwise operations on operands of matching size (L10955); on
//! `.pred` operands `and`/`or`/`xor`/`not` are the boolean operations (a one-bit register).
//! Values travel as `u64` bit patterns of the instruction's width; the adapters mask inputs and
//! results to that width.

use crate::catalog::Form;
use crate::compare::BoolOp;
use crate::eval::SemFn;
use crate::types::{mask, sext};
use crate::value::{Args, EvalError, Outcome, Outcomes};

/// §9.7.8.1 and (L10995): `d = a & b`.
pub const fn and(a: u64, b: u64) -> u64 {
    a & b
}

/// §9.7.8.2 or (L11034): `d = a | b`.
pub const fn or(a: u64, b: u64) -> u64 {
    a | b
}

/// §9.7.8.3 xor (L11073): `d = a ^ b`.
pub const fn xor(a: u64, b: u64) -> u64 {
    a ^ b
}

/// §9.7.8.4 not (L11112): `d = ~a`, on `bits` bits (1 for `.pred`: boolean negation).
pub const fn not(a: u64, bits: u32) -> u64 {
    !a & (mask(bits) as u64)
}

/// §9.7.8.5 cnot (L11151): `d = (a==0) ? 1 : 0` (C logical not; the result is 1, not all ones).
pub const fn cnot(a: u64) -> u64 {
    (a == 0) as u64
}

/// §9.7.8.6 lop3 (L11169, L11192-11214): `d = F(a, b, c)` bitwise, where `immLut = F(0xF0, 0xCC,
/// 0xAA)`. So bit `i` of `d` is bit `(a_i << 2) | (b_i << 1) | c_i` of `immLut`: the LUT is the
/// function's truth table indexed by the inputs' bits, `a` the most significant. Computed as the
/// OR of the minterms the LUT selects.
pub const fn lop3(a: u32, b: u32, c: u32, imm_lut: u8) -> u32 {
    let mut d = 0u32;
    let mut k = 0;
    while k < 8 {
        if (imm_lut >> k) & 1 != 0 {
            let ta = if k & 4 != 0 { a } else { !a };
            let tb = if k & 2 != 0 { b } else { !b };
            let tc = if k & 1 != 0 { c } else { !c };
            d |= ta & tb & tc;
        }
        k += 1;
    }
    d
}

/// §9.7.8.6 lop3.BoolOp (L11186-11188, L11379): the predicate `p = (d != 0) BoolOp q`, where `d`
/// is the lop3 result (computed even when the destination is the sink `_`, L11190).
pub const fn lop3_pred(d: u32, bop: BoolOp, q: bool) -> bool {
    bop.apply(d != 0, q)
}

/// `shf` direction (`.l`, `.r`, L11408-11409).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShfDir {
    /// `.l`: shift left, keep the 32 msbs.
    L,
    /// `.r`: shift right, keep the 32 lsbs.
    R,
}

/// `shf` shift-amount mode (`.clamp`, `.wrap`, L11411).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShfMode {
    /// `.clamp`: shift by `min(c, 32)`.
    Clamp,
    /// `.wrap`: shift by `c & 0x1f`.
    Wrap,
}

/// §9.7.8.7 shf (L11415-11425): funnel shift of the 64-bit `{b, a}` (b holds bits 63:32, a holds
/// 31:0) by `n = (.clamp) ? min(c, 32) : c & 0x1f`; `.l` returns the 32 msbs, `.r` the 32 lsbs.
///
/// Interpretation (catalog §3.15): the printed C, `(b << n) | (a >> (32-n))` and
/// `(b << (32-n)) | (a >> n)` (L11422, L11424), shifts a 32-bit value by 32 when n = 0 or n = 32,
/// which C leaves undefined. The description (L11415) defines the result as a shift of the
/// 64-bit concatenation, so we shift that: `shf.l` n = 0 gives b, n = 32 gives a; `shf.r` n = 0
/// gives a, n = 32 gives b.
pub const fn shf(a: u32, b: u32, c: u32, dir: ShfDir, mode: ShfMode) -> u32 {
    let n = match mode {
        ShfMode::Clamp => {
            if c < 32 {
                c
            } else {
                32
            }
        }
        ShfMode::Wrap => c & 0x1f,
    };
    let x = ((b as u64) << 32) | a as u64;
    match dir {
        ShfDir::L => ((x << n) >> 32) as u32,
        ShfDir::R => (x >> n) as u32,
    }
}

/// §9.7.8.8 shl (L11487-11493): `d = a << b` on `bits` bits, zero-filled from the right. The
/// whole unsigned 32-bit `b` is the amount; amounts above the width N clamp to N (L11491), so any
/// `b >= N` gives 0 (the amount is not masked).
pub const fn shl(a: u64, b: u32, bits: u32) -> u64 {
    let m = mask(bits) as u64;
    if b >= bits {
        0
    } else {
        (a << b) & m
    }
}

/// §9.7.8.9 shr (L11523-11531): `d = a >> b` on `bits` bits; signed types fill with the sign
/// bit, unsigned and untyped ones with 0 (L11523). Amounts above N clamp to N (L11531): a signed
/// shift by N or more leaves only copies of the sign bit, an unsigned one leaves 0.
pub const fn shr(a: u64, b: u32, bits: u32, signed: bool) -> u64 {
    let m = mask(bits) as u64;
    let n = if b > bits { bits } else { b };
    if signed {
        // Shifting the sign-extended value by up to 64 keeps the fill; i128 avoids overflow at N=64.
        ((sext((a & m) as u128, bits) >> n) as u64) & m
    } else if n >= bits {
        0
    } else {
        (a & m) >> n
    }
}

/// The semantics adapter for a form of §9.7.8.
pub(crate) fn semantics(form: &Form) -> Option<SemFn> {
    Some(match form.opcode {
        "and" | "or" | "xor" => sem_bitwise,
        "not" => sem_not,
        "cnot" => sem_cnot,
        "lop3" => sem_lop3,
        "shf" => sem_shf,
        "shl" => sem_shl,
        "shr" => sem_shr,
        _ => return None,
    })
}

/// Width of the form's first output (1 for `.pred`).
fn width(form: &Form) -> u32 {
    form.outputs[0].ty.bits()
}

fn sem_bitwise(form: &Form, args: &Args) -> Outcomes {
    let m = mask(width(form)) as u64;
    let (a, b) = (args.u(0) & m, args.u(1) & m);
    let d = match form.opcode {
        "and" => and(a, b),
        "or" => or(a, b),
        _ => xor(a, b),
    };
    Ok(vec![Outcome::exact(d as u128)])
}

fn sem_not(form: &Form, args: &Args) -> Outcomes {
    let w = width(form);
    Ok(vec![Outcome::exact(not(args.u(0), w) as u128)])
}

fn sem_cnot(form: &Form, args: &Args) -> Outcomes {
    let a = args.u(0) & mask(width(form)) as u64;
    Ok(vec![Outcome::exact(cnot(a) as u128)])
}

fn sem_lop3(form: &Form, args: &Args) -> Outcomes {
    let (a, b, c) = (args.u(0) as u32, args.u(1) as u32, args.u(2) as u32);
    let d = lop3(a, b, c, args.u(3) as u8);
    let mut out = vec![Outcome::exact(d as u128)];
    if let Some(bop) = form.var("bop") {
        let Some(bop) = BoolOp::parse(bop) else {
            return Err(EvalError::unhandled(format!("`{}`: bad BoolOp", form.name)));
        };
        out.push(Outcome::exact(lop3_pred(d, bop, args.pred(4)) as u128));
    }
    Ok(out)
}

fn sem_shf(form: &Form, args: &Args) -> Outcomes {
    let dir = if form.var("dir") == Some("l") {
        ShfDir::L
    } else {
        ShfDir::R
    };
    let mode = if form.var("mode") == Some("clamp") {
        ShfMode::Clamp
    } else {
        ShfMode::Wrap
    };
    let d = shf(args.u(0) as u32, args.u(1) as u32, args.u(2) as u32, dir, mode);
    Ok(vec![Outcome::exact(d as u128)])
}

fn sem_shl(form: &Form, args: &Args) -> Outcomes {
    let d = shl(args.u(0), args.u(1) as u32, width(form));
    Ok(vec![Outcome::exact(d as u128)])
}

fn sem_shr(form: &Form, args: &Args) -> Outcomes {
    let signed = form.outputs[0].ty.is_signed();
    let d = shr(args.u(0), args.u(1) as u32, width(form), signed);
    Ok(vec![Outcome::exact(d as u128)])
}
