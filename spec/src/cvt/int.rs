//! Integer → integer `cvt` (Table 15: sext, zext, chop) with the optional `.sat`.

use crate::catalog::Form;
use crate::types::{mask, sext, Kind, Type};
use crate::value::{Args, EvalError, Outcome, Outcomes};

/// The value of integer bits `a` of type `t` (sign-extended for `.sN`, zero-extended otherwise).
pub fn value(a: u128, t: Type) -> i128 {
    match t.kind {
        Kind::Signed => sext(a, t.bits()),
        _ => (a & mask(t.bits())) as i128,
    }
}

/// The range `MININT..=MAXINT` of an integer type (L13814).
pub fn range(t: Type) -> (i128, i128) {
    let n = t.bits();
    match t.kind {
        Kind::Signed => (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1),
        _ => (0, (1i128 << n) - 1),
    }
}

/// `cvt{.sat}.dtype.atype` between integer types: the source value (Table 15 sign-extends
/// signed and zero-extends unsigned sources), then either clamped to the destination range
/// (`.sat`, "MININT..MAXINT for the size of the operation", L13814, for signed and unsigned
/// destinations alike) or chopped to the destination width (Table 15's chop: "keep only low bits
/// that fit"). The result is the destination type's bits; note 1 of Table 15 (re-extending a
/// chopped value to a wider register per the destination's signedness) concerns registers wider
/// than the type, which this model does not have.
pub fn cvt(a: u128, at: Type, dt: Type, sat: bool) -> u128 {
    let v = value(a, at);
    let v = if sat {
        let (lo, hi) = range(dt);
        v.clamp(lo, hi)
    } else {
        v
    };
    v as u128 & mask(dt.bits())
}

/// Adapter for `cvt{.sat}.<int>.<int>`.
pub fn cvt_int(form: &Form, args: &Args) -> Outcomes {
    let (Some(dt), Some(at)) = (form.ty("dt"), form.ty("at")) else {
        return Err(EvalError::unhandled(format!(
            "`{}`: not an integer conversion",
            form.name
        )));
    };
    Ok(vec![Outcome::exact(cvt(args.get(0), at, dt, form.has("sat")))])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Type {
        Type::parse(s).unwrap()
    }

    #[test]
    fn chop_extend_and_saturate() {
        // cvt.s16.u32 chops to 16 bits (Table 15 note 1's example).
        assert_eq!(cvt(0x0001_8000, t("u32"), t("s16"), false), 0x8000);
        assert_eq!(cvt(0x80, t("s8"), t("s32"), false), 0xffff_ff80);
        assert_eq!(cvt(0x80, t("u8"), t("s32"), false), 0x80);
        assert_eq!(cvt(0xffff_ffff, t("s32"), t("u64"), false), u64::MAX as u128);
        assert_eq!(cvt(0xffff_ffff, t("s32"), t("u32"), true), 0);
        assert_eq!(cvt(0x8000_0000, t("u32"), t("s32"), true), 0x7fff_ffff);
        assert_eq!(cvt(0xff80, t("s16"), t("s8"), true), 0x80);
    }
}
