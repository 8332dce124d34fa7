//! Constant expressions (§4.6): integer values, floating-point literals for an operand's
//! format, and the `var+k` shape of an address constant.

use crate::ast::Expr;
use spec::types::{FloatFormat, Kind, Type};

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
    // "The 32-bit hexadecimal form ... cannot be used in constant expressions" (L645): ptxas
    // 12.9 refuses `-0f3F800000` (a syntax error) and takes `-0d3FF0000000000000`.
    if neg && *f32 {
        return None;
    }
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

/// `v`, a value of an operand of type `ty`, written as the constants this checker accepts there
/// (the inverse of its literal rules in `src`): the type's own notation first (a signed integer
/// as `-1`, an unsigned one above `i64::MAX` with `U`, f32/f64 as `0f`/`0d` bit literals, a
/// `.b32`/`.b64` operand also as a float literal), none where no constant is allowed (the
/// narrow and packed float formats, 128-bit types).
pub fn literals(ty: Type, v: u64) -> Vec<Expr> {
    let bits = ty.bits();
    let int = |v: u64| -> Expr {
        if ty.kind == Kind::Signed && bits < 64 && v >> (bits - 1) & 1 == 1 {
            let mag = (1u64 << bits) - v;
            Expr::Unary(
                '-',
                Box::new(Expr::Int {
                    value: mag,
                    unsigned: false,
                }),
            )
        } else if ty.kind == Kind::Signed && bits == 64 && (v as i64) < 0 && v != 1 << 63 {
            Expr::Unary(
                '-',
                Box::new(Expr::Int {
                    value: (v as i64).unsigned_abs(),
                    unsigned: false,
                }),
            )
        } else {
            Expr::Int {
                value: v,
                unsigned: v > i64::MAX as u64,
            }
        }
    };
    match ty.kind {
        Kind::Pred => vec![int(v & 1)],
        Kind::Float(FloatFormat::F32) => vec![Expr::Float { bits: v, f32: true }],
        Kind::Float(FloatFormat::F64) => vec![Expr::Float { bits: v, f32: false }],
        // Narrow and packed float formats take no constants.
        Kind::Float(_) => vec![],
        Kind::Bits if bits == 32 => vec![int(v), Expr::Float { bits: v, f32: true }],
        Kind::Bits if bits == 64 => vec![int(v), Expr::Float { bits: v, f32: false }],
        _ if bits <= 64 => vec![int(v)],
        _ => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `-0d...` is the negated f64; `-0f...` is no constant (L645; ptxas 12.9: a syntax error).
    #[test]
    fn only_the_64_bit_hex_float_negates() {
        let lit = |f32: bool, bits: u64| Expr::Unary('-', Box::new(Expr::Float { bits, f32 }));
        let f32t = Type::parse("f32").unwrap();
        let f64t = Type::parse("f64").unwrap();
        assert_eq!(
            float_literal(&lit(false, 0x3FF0_0000_0000_0000), f64t),
            Some(0xBFF0_0000_0000_0000)
        );
        assert_eq!(
            float_literal(&lit(false, 0x3FF0_0000_0000_0000), f32t),
            Some(0xBF80_0000)
        );
        assert_eq!(float_literal(&lit(true, 0x3F80_0000), f32t), None);
        assert_eq!(float_literal(&lit(true, 0x3F80_0000), f64t), None);
    }

    #[test]
    fn literals_follow_the_register_type() {
        let t = |s: &str, v: u64| -> Vec<String> {
            literals(Type::parse(s).unwrap(), v)
                .iter()
                .map(crate::print::expr)
                .collect()
        };
        assert_eq!(t("f32", 0x3F80_0000), ["0f3F800000"]);
        assert_eq!(t("f64", 0), ["0d0000000000000000"]);
        assert_eq!(t("s32", 0xFFFF_FFFF), ["-1"]);
        assert_eq!(t("u32", 0xFFFF_FFFF), ["4294967295"]);
        assert_eq!(t("b32", 7), ["7", "0f00000007"]);
        assert_eq!(t("u64", u64::MAX), ["18446744073709551615U"]);
        assert_eq!(t("s64", u64::MAX), ["-1"]);
        assert!(t("f16", 0).is_empty());
    }

    /// Every literal `literals` writes is accepted by the checker as a source of its type and
    /// runs to the value it stands for (`mov` copies it into a buffer).
    #[test]
    fn literals_are_accepted_and_mean_their_value() {
        let cases: [(&str, &str, u64); 9] = [
            ("s32", "b32", 0xFFFF_FFF9),
            ("u32", "b32", 0xFFFF_FFFF),
            ("b32", "b32", 0x4049_0FDB),
            ("f32", "b32", 0xBF80_0000),
            ("s64", "b64", 0x8000_0000_0000_0001),
            ("u64", "b64", u64::MAX),
            ("b64", "b64", 0x4009_21FB_5444_2D18),
            ("f64", "b64", 0x7FF0_0000_0000_0000),
            ("s16", "b16", 0x8000),
        ];
        for (ty, reg, v) in cases {
            let bytes = Type::parse(ty).unwrap().bits() / 8;
            for lit in literals(Type::parse(ty).unwrap(), v) {
                let lit = crate::print::expr(&lit);
                let ptx = format!(
                    ".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out) {{\n\
                     .reg .{reg} %r;\n.reg .b64 %a;\nld.param.u64 %a, [out];\nmov.{ty} %r, {lit};\n\
                     st.global.{reg} [%a], %r;\nret;\n}}\n"
                );
                let launch = format!(
                    r#"{{"ptx": "k.ptx", "entry": "k", "grid": [1,1,1], "block": [1,1,1],
                        "buffers": [{{"name": "out", "size": {bytes}}}], "params": [{{"buffer": "out"}}]}}"#
                );
                let l = crate::launch::parse_launch(&launch).unwrap();
                let (bufs, _) = crate::launch::run(&l, &ptx).unwrap_or_else(|e| panic!("{ty} {lit}: {e}"));
                let got = bufs[0].1.iter().rev().fold(0u64, |a, &b| a << 8 | b as u64);
                assert_eq!(got, v, "{ty} {lit}");
            }
        }
    }

    /// An f64 constant on an `.f32` source is its value converted (L645), not the low word of
    /// its encoding, which the CUDA 13.0 JIT gives `set.*.bf16.f32` on an H200
    /// (`corpus/findings/h200/float.md`): FLT_MAX written `0d47EFFFFFE0000000` is not less than
    /// 0.99999994 (its low word 0xe0000000 is), and 2^-149 written `0d36A0000000000000` is not 0.
    #[test]
    fn f64_constants_on_f32_sources_mean_their_value() {
        let ptx = ".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out) {\n\
                   .reg .b16 %h<4>;\n.reg .b64 %a;\nld.param.u64 %a, [out];\n\
                   set.lt.bf16.f32 %h0, 0d47EFFFFFE0000000, 0F3F7FFFFF;\n\
                   set.eq.bf16.f32 %h1, 0f00000000, 0d36A0000000000000;\n\
                   set.gt.bf16.f32 %h2, 0d36A0000000000000, 0f00000000;\n\
                   set.ge.bf16.f32 %h3, 0F3F800000, 0d3FF8000000000000;\n\
                   st.global.v4.b16 [%a], {%h0, %h1, %h2, %h3};\nret;\n}\n";
        let launch = r#"{"ptx": "k.ptx", "entry": "k", "grid": [1,1,1], "block": [1,1,1],
                        "buffers": [{"name": "out", "size": 8}], "params": [{"buffer": "out"}]}"#;
        let l = crate::launch::parse_launch(launch).unwrap();
        let (bufs, _) = crate::launch::run(&l, ptx).unwrap_or_else(|e| panic!("{e}"));
        let h: Vec<u16> = bufs[0].1.chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
        // false, false, true (bf16 1.0 = 0x3f80), false.
        assert_eq!(h, [0x0000, 0x0000, 0x3f80, 0x0000]);
    }
}
