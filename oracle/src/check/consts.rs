//! Constant expressions (§4.6): integer values, floating-point literals for an operand's
//! format, and the `var+k` shape of an address constant.

use crate::ast::Expr;
use spec::types::{Kind, Type};

/// A constant expression's value (§4.6): 64-bit integer arithmetic, signed unless an operand is
/// unsigned; `None` when it names something or divides by zero.
pub fn const_int(e: &Expr) -> Option<i64> {
    Some(match e {
        Expr::Int { value, .. } => *value as i64,
        Expr::Float { .. } | Expr::Name(_) => return None,
        Expr::Unary(op, a) => {
            let a = const_int(a)?;
            match op {
                '-' => a.wrapping_neg(),
                '+' => a,
                '!' => (a == 0) as i64,
                '~' => !a,
                _ => return None,
            }
        }
        Expr::Binary(op, a, b) => {
            let unsigned = is_unsigned(a) || is_unsigned(b);
            let (a, b) = (const_int(a)?, const_int(b)?);
            let (ua, ub) = (a as u64, b as u64);
            match op.as_str() {
                "+" => a.wrapping_add(b),
                "-" => a.wrapping_sub(b),
                "*" => a.wrapping_mul(b),
                "/" if unsigned => ua.checked_div(ub)? as i64,
                "/" => a.checked_div(b)?,
                "%" if unsigned => ua.checked_rem(ub)? as i64,
                "%" => a.checked_rem(b)?,
                "<<" => a.wrapping_shl(b as u32),
                ">>" if unsigned => ua.wrapping_shr(b as u32) as i64,
                ">>" => a.wrapping_shr(b as u32),
                "&" => a & b,
                "|" => a | b,
                "^" => a ^ b,
                "&&" => (a != 0 && b != 0) as i64,
                "||" => (a != 0 || b != 0) as i64,
                "==" => (a == b) as i64,
                "!=" => (a != b) as i64,
                "<" if unsigned => (ua < ub) as i64,
                "<" => (a < b) as i64,
                ">" if unsigned => (ua > ub) as i64,
                ">" => (a > b) as i64,
                "<=" if unsigned => (ua <= ub) as i64,
                "<=" => (a <= b) as i64,
                ">=" if unsigned => (ua >= ub) as i64,
                ">=" => (a >= b) as i64,
                _ => return None,
            }
        }
        Expr::Cond(c, a, b) => {
            if const_int(c)? != 0 {
                const_int(a)?
            } else {
                const_int(b)?
            }
        }
    })
}

/// Whether a constant expression is unsigned (an operand of it is a `U` literal).
fn is_unsigned(e: &Expr) -> bool {
    match e {
        Expr::Int { unsigned, .. } => *unsigned,
        Expr::Unary(_, a) => is_unsigned(a),
        Expr::Binary(_, a, b) => is_unsigned(a) || is_unsigned(b),
        Expr::Cond(_, a, b) => is_unsigned(a) || is_unsigned(b),
        _ => false,
    }
}

/// A literal for an operand of float format `fmt` (§4.5.1: `0f` literals are f32 bits, every
/// other float constant is an f64 converted to the operand's size).
pub(super) fn float_literal(e: &Expr, ty: Type) -> Option<u64> {
    let neg = matches!(e, Expr::Unary('-', _));
    let inner = match e {
        Expr::Unary('-', a) | Expr::Unary('+', a) => a,
        other => other,
    };
    let Expr::Float { bits, f32 } = inner else { return None };
    let Kind::Float(fmt) = ty.kind else { return None };
    let v = match (f32, fmt) {
        (true, spec::types::FloatFormat::F32) => *bits,
        (false, spec::types::FloatFormat::F64) => *bits,
        (true, spec::types::FloatFormat::F64) => (f32::from_bits(*bits as u32) as f64).to_bits(),
        (false, spec::types::FloatFormat::F32) => spec::float::round::from_f64(
            spec::float::Fmt::of(fmt),
            f64::from_bits(*bits),
            spec::float::round::Rnd::Rn,
        ) as u64,
        _ => return None,
    };
    let sign = if ty.bits() == 64 { 1u64 << 63 } else { 1u64 << 31 };
    Some(if neg { v ^ sign } else { v })
}

/// The low `bits` bits set.
pub(super) fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Whether a constant expression has a floating-point literal in it.
pub(super) fn contains_float(e: &Expr) -> bool {
    match e {
        Expr::Float { .. } => true,
        Expr::Unary(_, a) => contains_float(a),
        Expr::Binary(_, a, b) => contains_float(a) || contains_float(b),
        Expr::Cond(c, a, b) => contains_float(c) || contains_float(a) || contains_float(b),
        _ => false,
    }
}

/// The variable or function a `var`, `var+8` or `var-4` names.
pub(super) fn addr_name(e: &Expr) -> Option<&str> {
    addr_name_off(e).map(|(n, _)| n)
}

/// `var`, `var+8`, `var-4`: the name and the offset.
pub(super) fn addr_name_off(e: &Expr) -> Option<(&str, i64)> {
    match e {
        Expr::Name(n) => Some((n.as_str(), 0)),
        Expr::Binary(op, a, b) if op == "+" || op == "-" => match (&**a, const_int(b)) {
            (Expr::Name(n), Some(k)) => Some((n.as_str(), if op == "+" { k } else { k.wrapping_neg() })),
            _ => None,
        },
        _ => None,
    }
}
