//! Which sources of a form may be written as constants or negated beyond the grammar lines, and
//! the spellings of a constant (§4.5, L624-661): what the conformance kernels' immediate-operand
//! variants write, so that an implementation is judged on the literals PTX programs contain and
//! not only on operands loaded from memory.
//!
//! The rules are ptxas 12.9's (`corpus/findings/ptxas-12.9-accepts-beyond-grammar.txt` records the
//! probes), which the oracle's type checker follows:
//! - a source of a scalar integer, bit-size, `.f32`, `.f64` or `.pred` type takes a constant
//!   (§4.5.3, L660: an integer constant as a predicate is C's truth), unless the catalog marks it
//!   a register (`+reg`: the bf16 `set`/`setp` forms' `c`, `cvt`'s packed sources and `.rs`'s
//!   rbits), it is the carry flag, or a `{...}` vector element, and within the operand's range
//!   (`in=`: `bfe`'s positions 0..255); the packed types
//!   (`add.f16x2 d, a, 0x3c003c00`), the narrow float formats (`add.f16 d, a, 0x3c00`:
//!   "Arguments mismatch") and 128-bit types take none;
//! - every predicate source may be written `!p`, whether or not its syntax line shows `{!}`:
//!   `selp.b32 d, a, b, !p`, `and.pred d, !a, b`, `not.pred d, !a`, `mov.pred d, !a`,
//!   `lop3.and.b32 d|p, a, b, c, lut, !q` (also `cp.async`'s `ignore-src` and `wgmma`'s
//!   `scale-d`, which have no golden vectors).

use super::{Form, Operand};
use crate::types::{FloatFormat, Kind, Type};

/// Whether source `k` of `form` may be written as a constant where the grammar shows a register
/// (an `+imm` operand is a constant in every instance and is not counted).
pub fn takes_literal(form: &Form, k: usize) -> bool {
    // (A constant must also lie in the operand's range, `in=`: [`fits`].)
    let Some(o) = form.inputs.get(k) else { return false };
    !o.flags.imm && !o.flags.reg && !o.flags.cc && o.group.is_none() && literal_type(o.ty)
}

/// Whether operand `o` takes f64 constants (`0d...`, `1.5e0`) when it is a float: not where the
/// catalog says `+f32lit` (`cvt.rna.tf32.f32`'s source: ptxas 12.9 refuses every f64 constant
/// there, "Arguments mismatch for instruction 'mov'", and takes `0f` bits; the type checker
/// refuses them too).
pub fn f64_constants(o: &Operand) -> bool {
    !o.flags.f32lit
}

/// Whether `bits` may be written as a constant for operand `o`: inside its range (`in=`, bfe's
/// positions 0..255, L6485), as the value the constant means (sign-extended for a signed type).
pub fn fits(o: &Operand, bits: u128) -> bool {
    let Some((lo, hi)) = o.flags.range else { return true };
    let w = o.ty.bits();
    let v = (bits & o.ty.mask()) as u64;
    let v = if o.ty.kind == Kind::Signed && w < 64 && w > 0 && v >> (w - 1) & 1 == 1 {
        (v | !((1u64 << w) - 1)) as i64
    } else {
        v as i64
    };
    (lo..=hi).contains(&v)
}

/// Whether a value of type `ty` can be written as a constant operand (ptxas 12.9).
fn literal_type(ty: Type) -> bool {
    ty.lanes == 1
        && match ty.kind {
            Kind::Pred => true,
            Kind::Bits | Kind::Unsigned | Kind::Signed => ty.bits() <= 64,
            Kind::Float(f) => matches!(f, FloatFormat::F32 | FloatFormat::F64),
        }
}

/// Whether source `k` of `form` is a predicate that ptxas 12.9 takes as `!p` although its syntax
/// line writes it plain (`selp`'s `c`, `and.pred`'s `a`): the ptxas-accepted extras.
pub fn negatable_beyond_grammar(form: &Form, k: usize) -> bool {
    form.inputs
        .get(k)
        .is_some_and(|o: &Operand| o.ty.kind == Kind::Pred && !o.flags.not && !o.flags.cc)
}

/// How a constant is spelled (§4.5.1-4.5.2, L632-653).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Spelling {
    /// `0x1f`.
    Hex,
    /// `0X1F`.
    HexUpper,
    /// `31`.
    Decimal,
    /// `31U`.
    DecimalU,
    /// `-1` for a value whose sign bit (of the operand's width) is set: the 64-bit constant
    /// truncated to the operand's size (L628).
    Negative,
    /// `037`.
    Octal,
    /// `0b11111`.
    Binary,
    /// The 32-bit hexadecimal float `0f3F800000` (an f32's exact bits), upper-case prefix `0F`
    /// on odd values.
    FloatBits,
    /// The 64-bit hexadecimal float `0d3FF0000000000000` (an f64's bits; for an f32 operand the
    /// f64 of the same value, converted exactly), upper-case prefix `0D` on odd values.
    DoubleBits,
    /// A decimal float literal `1.5e0`, `-2.5e-3` (an f64 converted to the operand's size,
    /// L645): finite values whose f64 is normal or zero (ptxas 12.9 refuses an f64-subnormal
    /// decimal: "Constant overflow").
    FloatDecimal,
    /// `-0d3FF0000000000000`: a negated 64-bit hexadecimal float (ptxas refuses `-0f...`, L645:
    /// the 32-bit form cannot be used in constant expressions), for a negative non-NaN value.
    NegatedDoubleBits,
}

/// Every spelling, in the order the kernels cycle through them.
pub const SPELLINGS: [Spelling; 11] = [
    Spelling::Hex,
    Spelling::Decimal,
    Spelling::Negative,
    Spelling::FloatBits,
    Spelling::HexUpper,
    Spelling::Octal,
    Spelling::DoubleBits,
    Spelling::DecimalU,
    Spelling::Binary,
    Spelling::FloatDecimal,
    Spelling::NegatedDoubleBits,
];

/// `bits`, a value of type `ty`, spelled `how`; `None` where that spelling cannot write this
/// value exactly for this type (a negative spelling of a value without its sign bit, a decimal
/// float for a NaN, a float literal for an integer type).
pub fn spell(ty: Type, bits: u128, how: Spelling) -> Option<String> {
    if !literal_type(ty) {
        return None;
    }
    let w = ty.bits();
    let v = (bits & ty.mask()) as u64;
    let odd = v & 1 == 1;
    match ty.kind {
        Kind::Pred => match how {
            Spelling::Hex => Some(format!("0x{:x}", v & 1)),
            Spelling::Decimal => Some(format!("{}", v & 1)),
            _ => None,
        },
        Kind::Float(FloatFormat::F32) => {
            let x = f32::from_bits(v as u32) as f64;
            // f32 → f64 is exact for every non-NaN value; a NaN's payload is not carried by
            // every assembler's conversion, so NaNs keep their `0f` bits, and so do zeros (found
            // first as a refusal of `cvt.rna.tf32.f32 d, 0e0`, which refuses every f64 constant:
            // [`f64_constants`]).
            if x == 0.0 && how != Spelling::FloatBits {
                return None;
            }
            match how {
                Spelling::FloatBits => Some(format!("{}{:08X}", if odd { "0F" } else { "0f" }, v)),
                Spelling::DoubleBits if !x.is_nan() => Some(double_bits(x.to_bits())),
                Spelling::FloatDecimal => float_decimal(x),
                Spelling::NegatedDoubleBits => negated_double(x),
                _ => None,
            }
        }
        Kind::Float(_) => {
            let x = f64::from_bits(v);
            match how {
                Spelling::DoubleBits => Some(double_bits(v)),
                Spelling::FloatDecimal => float_decimal(x),
                Spelling::NegatedDoubleBits => negated_double(x),
                _ => None,
            }
        }
        _ => {
            let top = v >> (w - 1) & 1 == 1;
            match how {
                Spelling::Hex => Some(format!("0x{v:x}")),
                Spelling::HexUpper => Some(format!("0X{v:X}")),
                Spelling::Decimal => Some(format!("{v}")),
                Spelling::DecimalU => Some(format!("{v}U")),
                Spelling::Negative if top => {
                    // The magnitude of the negative w-bit value; 2^63 for i64::MIN, which the
                    // lexer reads as an unsigned literal whose negation wraps to itself.
                    let mag = if w == 64 { v.wrapping_neg() } else { (1u64 << w) - v };
                    Some(format!("-{mag}"))
                }
                Spelling::Octal if v != 0 => Some(format!("0{v:o}")),
                Spelling::Binary => Some(format!("0b{v:b}")),
                // Float bit literals for bit-size operands are taken by some instructions only
                // (`and.b32 d, a, 0f3F800000`, not `vmad`'s `c` nor `vote`'s mask): not written.
                _ => None,
            }
        }
    }
}

fn double_bits(v: u64) -> String {
    format!("{}{v:016X}", if v & 1 == 1 { "0D" } else { "0d" })
}

/// The shortest decimal that reads back as `x` (Rust's `{:e}` is round-trip exact), where ptxas
/// takes a decimal: finite, normal or zero as an f64.
fn float_decimal(x: f64) -> Option<String> {
    (x.is_finite() && (x == 0.0 || x.is_normal())).then(|| format!("{x:e}"))
}

fn negated_double(x: f64) -> Option<String> {
    (x.is_sign_negative() && !x.is_nan()).then(|| format!("-{}", double_bits((-x).to_bits())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;

    fn t(s: &str) -> Type {
        Type::parse(s).unwrap()
    }

    #[test]
    fn integer_spellings() {
        let u64t = t("u64");
        let v = 0x8000_0000_0000_0001u128;
        assert_eq!(spell(u64t, v, Spelling::Hex).unwrap(), "0x8000000000000001");
        assert_eq!(spell(u64t, v, Spelling::Decimal).unwrap(), "9223372036854775809");
        assert_eq!(spell(u64t, v, Spelling::Negative).unwrap(), "-9223372036854775807");
        assert_eq!(
            spell(u64t, 1 << 63, Spelling::Negative).unwrap(),
            "-9223372036854775808"
        );
        assert_eq!(spell(t("u32"), 0xffff_fffe, Spelling::Negative).unwrap(), "-2");
        assert_eq!(spell(t("s16"), 0x8000, Spelling::Negative).unwrap(), "-32768");
        assert_eq!(spell(t("u32"), 5, Spelling::Negative), None);
        assert_eq!(spell(t("u32"), 8, Spelling::Octal).unwrap(), "010");
        assert_eq!(spell(t("u32"), 0, Spelling::Octal), None);
        assert_eq!(spell(t("b16"), 5, Spelling::Binary).unwrap(), "0b101");
        assert_eq!(spell(t("u32"), 255, Spelling::HexUpper).unwrap(), "0XFF");
        assert_eq!(spell(t("u32"), 7, Spelling::DecimalU).unwrap(), "7U");
        assert_eq!(spell(t("b32"), 0x3f80_0000, Spelling::FloatBits), None);
        assert_eq!(spell(t("u32"), 0x3f80_0000, Spelling::FloatBits), None);
        // Bits above the operand's width are not part of its value.
        assert_eq!(spell(t("u16"), 0x1_0005, Spelling::Hex).unwrap(), "0x5");
    }

    #[test]
    fn float_spellings() {
        let f32t = t("f32");
        assert_eq!(spell(f32t, 0x3fc0_0000, Spelling::FloatBits).unwrap(), "0f3FC00000");
        assert_eq!(spell(f32t, 0x3fc0_0001, Spelling::FloatBits).unwrap(), "0F3FC00001");
        assert_eq!(
            spell(f32t, 0x3fc0_0000, Spelling::DoubleBits).unwrap(),
            "0d3FF8000000000000"
        );
        assert_eq!(spell(f32t, 0x3fc0_0000, Spelling::FloatDecimal).unwrap(), "1.5e0");
        assert_eq!(
            spell(f32t, 0xbfc0_0000, Spelling::NegatedDoubleBits).unwrap(),
            "-0d3FF8000000000000"
        );
        assert_eq!(spell(f32t, 0x3fc0_0000, Spelling::NegatedDoubleBits), None);
        // An f32 subnormal is a normal f64: its decimal reads back exactly.
        let sub = spell(f32t, 1, Spelling::FloatDecimal).unwrap();
        assert_eq!((sub.parse::<f64>().unwrap() as f32).to_bits(), 1);
        // NaNs keep their bit literals.
        assert_eq!(spell(f32t, 0x7fc0_0001, Spelling::DoubleBits), None);
        assert_eq!(spell(f32t, 0x7fc0_0001, Spelling::FloatDecimal), None);
        let f64t = t("f64");
        assert_eq!(spell(f64t, 1, Spelling::FloatDecimal), None, "an f64 subnormal");
        assert_eq!(
            spell(f64t, 0x8000_0000_0000_0000, Spelling::FloatDecimal).unwrap(),
            "-0e0"
        );
        // An f32 zero keeps its `0f` bits.
        assert_eq!(spell(f32t, 0x8000_0000, Spelling::FloatDecimal), None);
        assert_eq!(spell(f32t, 0x8000_0000, Spelling::FloatBits).unwrap(), "0f80000000");
        assert_eq!(spell(f64t, 0x3ff0_0000_0000_0000, Spelling::FloatBits), None);
        assert_eq!(spell(t("f16"), 0x3c00, Spelling::Hex), None);
        assert_eq!(spell(t("pred"), 1, Spelling::Decimal).unwrap(), "1");
    }

    #[test]
    fn literal_sources_follow_the_catalog() {
        let form = |n: &str| &catalog().forms[catalog().lookup(n).expect(n).forms[0]];
        let add = form("add.u64");
        assert!(takes_literal(add, 0) && takes_literal(add, 1));
        let h = form("add.f16");
        assert!(!takes_literal(h, 0), "f16 sources take no constants");
        let selp = form("selp.b32");
        assert!(takes_literal(selp, 2), "a predicate constant");
        assert!(negatable_beyond_grammar(selp, 2));
        let setp = form("setp.eq.and.s32");
        assert!(!negatable_beyond_grammar(setp, 2), "`{{!}}c` is the grammar's own");
        let lop3 = form("lop3.b32");
        assert!(!takes_literal(lop3, 3), "the LUT is a constant in every instance");
        let bfe = form("bfe.u32");
        assert!(takes_literal(bfe, 1) && fits(&bfe.inputs[1], 255) && !fits(&bfe.inputs[1], 256));
        assert!(fits(&bfe.inputs[0], 1 << 31), "no range");
        let addc = form("addc.u32");
        assert!(
            !takes_literal(addc, 2) && !negatable_beyond_grammar(addc, 2),
            "the carry flag"
        );
    }
}
