//! §9.7.9.22 `cvt.pack.sat` (L14010-14080): two `.s32` values saturated to a narrow integer
//! type and packed, the rest of the word from `c`.

use crate::catalog::Form;
use crate::types::{mask, sext};
use crate::value::{Args, EvalError, Outcome, Outcomes};

/// `.convertType` (`.u16 .s16 .u8 .s8 .u4 .s4 .u2 .s2`): signedness and width in bits. The 2-
/// and 4-bit types are not register types, so they are read from the modifier here.
pub fn convert_type(name: &str) -> Option<(bool, u32)> {
    let signed = match name.as_bytes().first()? {
        b's' => true,
        b'u' => false,
        _ => return None,
    };
    let size: u32 = name[1..].parse().ok()?;
    matches!(size, 2 | 4 | 8 | 16).then_some((signed, size))
}

/// `cvt.pack.sat.convertType.s32{.b32}` (L14039-14059): `a` and `b` clamped to
/// `MIN(convertType)..MAX(convertType)` (L14061), `b` in bits `[size-1:0]`, `a` in
/// `[2*size-1:size]`, and with `c` (8-, 4- and 2-bit types) bits `[31:2*size]` from the low bits
/// of `c`.
///
/// ⚠ The printed clamp (L14039-14042) assigns `ta` twice, the second time from `a` again, which
/// would undo the lower clamp; the intended chain clamps both bounds (catalog §9 #2), as the
/// sentence at L14061 says.
pub fn cvt_pack(signed: bool, size: u32, a: u32, b: u32, c: Option<u32>) -> u32 {
    let (lo, hi) = if signed {
        (-(1i128 << (size - 1)), (1i128 << (size - 1)) - 1)
    } else {
        (0, (1i128 << size) - 1)
    };
    let sat = |x: u32| sext(x as u128, 32).clamp(lo, hi) as u128 & mask(size);
    let td = sat(a) << size | sat(b);
    let d = match c {
        Some(c) => td | (c as u128) << (2 * size),
        None => td,
    };
    d as u32
}

/// Adapter for both `cvt.pack.sat` forms (with and without `c`).
pub fn cvt_pack_form(form: &Form, args: &Args) -> Outcomes {
    let Some((signed, size)) = form.var("ct").and_then(convert_type) else {
        return Err(EvalError::unhandled(format!("`{}`: unknown convertType", form.name)));
    };
    let c = (form.inputs.len() == 3).then(|| args.get(2) as u32);
    Ok(vec![Outcome::exact(
        cvt_pack(signed, size, args.get(0) as u32, args.get(1) as u32, c) as u128,
    )])
}
