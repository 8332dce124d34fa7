//! Plain functions for the value-level forms kernels execute most, chosen once at decode time so
//! the interpreter's inner loop makes one indirect call per thread instead of building the
//! spec's generic operand and outcome vectors.
//!
//! They are not a second semantics: integer ones are the obvious wrapping arithmetic, float ones
//! call the spec's own functions, and `tests/fast.rs` checks every one against
//! `spec::eval::eval` on edge and random operands (the model value, bit for bit).

use crate::program::FastFn;
use spec::catalog::Form;
use spec::compare::{compare_f32, compare_f64, CmpOp};
use spec::float::format::{F32, F64};
use spec::float::ops::Mods;
use spec::float::round::Rnd;

/// `mov`: the first operand (also the decoder's for `mov` of an address).
pub fn mov(a: u64, _: u64, _: u64) -> u64 {
    a
}
/// `add.u64`/`add.s64`: wrapping 64-bit addition (also the decoder's for a frame variable's address
/// plus an offset).
pub fn add64(a: u64, b: u64, _: u64) -> u64 {
    a.wrapping_add(b)
}
fn add32(a: u64, b: u64, _: u64) -> u64 {
    (a as u32).wrapping_add(b as u32) as u64
}
fn add16(a: u64, b: u64, _: u64) -> u64 {
    (a as u16).wrapping_add(b as u16) as u64
}
fn sub64(a: u64, b: u64, _: u64) -> u64 {
    a.wrapping_sub(b)
}
fn sub32(a: u64, b: u64, _: u64) -> u64 {
    (a as u32).wrapping_sub(b as u32) as u64
}
fn mul_lo64(a: u64, b: u64, _: u64) -> u64 {
    a.wrapping_mul(b)
}
fn mul_lo32(a: u64, b: u64, _: u64) -> u64 {
    (a as u32).wrapping_mul(b as u32) as u64
}
fn mul_wide_u32(a: u64, b: u64, _: u64) -> u64 {
    (a as u32 as u64) * (b as u32 as u64)
}
fn mul_wide_s32(a: u64, b: u64, _: u64) -> u64 {
    ((a as u32 as i32 as i64) * (b as u32 as i32 as i64)) as u64
}
fn mad_lo32(a: u64, b: u64, c: u64) -> u64 {
    (a as u32).wrapping_mul(b as u32).wrapping_add(c as u32) as u64
}
fn mad_lo64(a: u64, b: u64, c: u64) -> u64 {
    a.wrapping_mul(b).wrapping_add(c)
}
fn mad_wide_u32(a: u64, b: u64, c: u64) -> u64 {
    ((a as u32 as u64) * (b as u32 as u64)).wrapping_add(c)
}
fn mad_wide_s32(a: u64, b: u64, c: u64) -> u64 {
    ((a as u32 as i32 as i64) * (b as u32 as i32 as i64)).wrapping_add(c as i64) as u64
}
// Shifts: "shift amounts greater than the register width N are clamped to N" (§9.7.8.7-8).
fn shl32(a: u64, b: u64, _: u64) -> u64 {
    let s = (b as u32).min(32);
    if s == 32 {
        0
    } else {
        ((a as u32) << s) as u64
    }
}
fn shl64(a: u64, b: u64, _: u64) -> u64 {
    let s = (b as u32).min(64);
    if s == 64 {
        0
    } else {
        a << s
    }
}
fn shr_u32(a: u64, b: u64, _: u64) -> u64 {
    let s = (b as u32).min(32);
    if s == 32 {
        0
    } else {
        ((a as u32) >> s) as u64
    }
}
fn shr_s32(a: u64, b: u64, _: u64) -> u64 {
    ((a as u32 as i32) >> (b as u32).min(31)) as u32 as u64
}
fn shr_u64(a: u64, b: u64, _: u64) -> u64 {
    let s = (b as u32).min(64);
    if s == 64 {
        0
    } else {
        a >> s
    }
}
fn shr_s64(a: u64, b: u64, _: u64) -> u64 {
    ((a as i64) >> (b as u32).min(63)) as u64
}
fn and(a: u64, b: u64, _: u64) -> u64 {
    a & b
}
fn or(a: u64, b: u64, _: u64) -> u64 {
    a | b
}
fn xor(a: u64, b: u64, _: u64) -> u64 {
    a ^ b
}
fn not(a: u64, _: u64, _: u64) -> u64 {
    !a
}
fn selp(a: u64, b: u64, c: u64) -> u64 {
    if c & 1 != 0 {
        a
    } else {
        b
    }
}
fn mul_hi_u32(a: u64, b: u64, _: u64) -> u64 {
    ((a as u32 as u64) * (b as u32 as u64)) >> 32
}
fn mul_hi_s32(a: u64, b: u64, _: u64) -> u64 {
    (((a as u32 as i32 as i64) * (b as u32 as i32 as i64)) >> 32) as u32 as u64
}
fn popc32(a: u64, _: u64, _: u64) -> u64 {
    (a as u32).count_ones() as u64
}
fn clz32(a: u64, _: u64, _: u64) -> u64 {
    (a as u32).leading_zeros() as u64
}
fn brev32(a: u64, _: u64, _: u64) -> u64 {
    (a as u32).reverse_bits() as u64
}
/// `bfe.u32` (L6501-6513): `pos = b & 0xff`, `len = c & 0xff`; bits past the msb read as 0.
fn bfe_u32(a: u64, b: u64, c: u64) -> u64 {
    let (pos, len) = ((b & 0xff) as u32, (c & 0xff) as u32);
    if pos >= 32 || len == 0 {
        return 0;
    }
    let field = (a as u32) >> pos;
    if len >= 32 {
        field as u64
    } else {
        (field & ((1u32 << len) - 1)) as u64
    }
}
/// `shf.l.wrap.b32` (L11415-11425): the 32 msbs of `{b, a} << (c & 31)`.
fn shf_l_wrap(a: u64, b: u64, c: u64) -> u64 {
    let x = (b << 32) | (a as u32 as u64);
    (((x << (c & 31)) >> 32) as u32) as u64
}
/// `shf.r.wrap.b32`: the 32 lsbs of `{b, a} >> (c & 31)`.
fn shf_r_wrap(a: u64, b: u64, c: u64) -> u64 {
    let x = (b << 32) | (a as u32 as u64);
    ((x >> (c & 31)) as u32) as u64
}
/// `prmt.b32` in the default mode: the spec's own byte selection.
fn prmt_b32(a: u64, b: u64, c: u64) -> u64 {
    spec::data::prmt(a as u32, b as u32, c as u32, spec::data::PrmtMode::Default) as u64
}
fn cvt_u64_u32(a: u64, _: u64, _: u64) -> u64 {
    a as u32 as u64
}
fn cvt_s64_s32(a: u64, _: u64, _: u64) -> u64 {
    a as u32 as i32 as i64 as u64
}
fn add_f32(a: u64, b: u64, _: u64) -> u64 {
    spec::fp::add_f32(a as u32, b as u32, Rnd::Rn, Mods::default()).model as u64
}
fn sub_f32(a: u64, b: u64, _: u64) -> u64 {
    spec::fp::sub_f32(a as u32, b as u32, Rnd::Rn, Mods::default()).model as u64
}
fn mul_f32(a: u64, b: u64, _: u64) -> u64 {
    spec::fp::mul_f32(a as u32, b as u32, Rnd::Rn, Mods::default()).model as u64
}
fn fma_f32(a: u64, b: u64, c: u64) -> u64 {
    spec::fp::fma_f32(a as u32, b as u32, c as u32, Rnd::Rn, Mods::default()).model as u64
}
fn max_f32(a: u64, b: u64, _: u64) -> u64 {
    spec::fp::max_f32(a as u32, b as u32, spec::fp::MinMax::default(), Mods::default()).model as u64
}
fn div_f32(a: u64, b: u64, _: u64) -> u64 {
    spec::fp::div_f32(a as u32, b as u32, Rnd::Rn, Mods::default()).model as u64
}
fn sqrt_f32(a: u64, _: u64, _: u64) -> u64 {
    spec::fp::sqrt_f32(a as u32, Rnd::Rn, Mods::default()).model as u64
}
fn div_f64(a: u64, b: u64, _: u64) -> u64 {
    spec::fp::div_f64(a, b, Rnd::Rn).model as u64
}
fn sqrt_f64(a: u64, _: u64, _: u64) -> u64 {
    spec::fp::sqrt_f64(a, Rnd::Rn).model as u64
}
/// `cvt.f64.f32`: exact widening; a NaN keeps its payload, quieted (the spec's f2f rule).
fn cvt_f64_f32(a: u64, _: u64, _: u64) -> u64 {
    let m = spec::cvt::float::Mode {
        rnd: Rnd::Rn,
        ftz: false,
        sat: false,
        relu: false,
        satfinite: false,
        nan: spec::float::ops::NanRule::Payload,
    };
    spec::cvt::float::convert(&F32, &F64, a as u32 as u128, m).model as u64
}
fn add_f64(a: u64, b: u64, _: u64) -> u64 {
    spec::fp::add_f64(a, b, Rnd::Rn).model as u64
}
fn mul_f64(a: u64, b: u64, _: u64) -> u64 {
    spec::fp::mul_f64(a, b, Rnd::Rn).model as u64
}
fn fma_f64(a: u64, b: u64, c: u64) -> u64 {
    spec::fp::fma_f64(a, b, c, Rnd::Rn).model as u64
}

fn cvt_rn_f32_u32(a: u64, _: u64, _: u64) -> u64 {
    spec::cvt::float::from_int(a as u32 as i128, &F32, Rnd::Rn) as u64
}
fn cvt_rn_f32_s32(a: u64, _: u64, _: u64) -> u64 {
    spec::cvt::float::from_int(a as u32 as i32 as i128, &F32, Rnd::Rn) as u64
}
fn cvt_rn_f64_u32(a: u64, _: u64, _: u64) -> u64 {
    spec::cvt::float::from_int(a as u32 as i128, &F64, Rnd::Rn) as u64
}
fn cvt_rn_f64_s32(a: u64, _: u64, _: u64) -> u64 {
    spec::cvt::float::from_int(a as u32 as i32 as i128, &F64, Rnd::Rn) as u64
}

macro_rules! setp_int {
    ($name:ident, $t:ty, $op:tt) => {
        fn $name(a: u64, b: u64, _: u64) -> u64 {
            ((a as $t) $op (b as $t)) as u64
        }
    };
}
setp_int!(eq32, u32, ==);
setp_int!(ne32, u32, !=);
setp_int!(lt_u32, u32, <);
setp_int!(le_u32, u32, <=);
setp_int!(gt_u32, u32, >);
setp_int!(ge_u32, u32, >=);
setp_int!(eq64, u64, ==);
setp_int!(ne64, u64, !=);
setp_int!(lt_u64, u64, <);
setp_int!(ge_u64, u64, >=);
setp_int!(gt_u64, u64, >);
setp_int!(le_u64, u64, <=);
macro_rules! setp_signed {
    ($name:ident, $t:ty, $u:ty, $op:tt) => {
        fn $name(a: u64, b: u64, _: u64) -> u64 {
            ((a as $u as $t) $op (b as $u as $t)) as u64
        }
    };
}
setp_signed!(lt_s32, i32, u32, <);
setp_signed!(le_s32, i32, u32, <=);
setp_signed!(gt_s32, i32, u32, >);
setp_signed!(ge_s32, i32, u32, >=);
setp_signed!(lt_s64, i64, u64, <);
setp_signed!(le_s64, i64, u64, <=);
setp_signed!(gt_s64, i64, u64, >);
setp_signed!(ge_s64, i64, u64, >=);
fn lt_f32(a: u64, b: u64, _: u64) -> u64 {
    compare_f32(CmpOp::Lt, a as u32, b as u32, false).unwrap_or(false) as u64
}
fn ge_f32(a: u64, b: u64, _: u64) -> u64 {
    compare_f32(CmpOp::Ge, a as u32, b as u32, false).unwrap_or(false) as u64
}
fn lt_f64(a: u64, b: u64, _: u64) -> u64 {
    compare_f64(CmpOp::Lt, a, b).unwrap_or(false) as u64
}

/// Every form with a fast function, by name (the test iterates this list). A `static`, not a
/// `const`: a const is instantiated where it is used, and there a tiny function such as [`mov`]
/// may be a local copy of its own, so the test's pointers need not equal [`lookup`]'s.
pub static FAST: &[(&str, FastFn)] = &[
    ("mov.b16", mov),
    ("mov.u16", mov),
    ("mov.s16", mov),
    ("mov.b32", mov),
    ("mov.u32", mov),
    ("mov.s32", mov),
    ("mov.f32", mov),
    ("mov.b64", mov),
    ("mov.u64", mov),
    ("mov.s64", mov),
    ("mov.f64", mov),
    ("mov.pred", mov),
    ("add.u16", add16),
    ("add.s16", add16),
    ("add.u32", add32),
    ("add.s32", add32),
    ("add.u64", add64),
    ("add.s64", add64),
    ("sub.u32", sub32),
    ("sub.s32", sub32),
    ("sub.u64", sub64),
    ("sub.s64", sub64),
    ("mul.lo.u32", mul_lo32),
    ("mul.lo.s32", mul_lo32),
    ("mul.lo.u64", mul_lo64),
    ("mul.lo.s64", mul_lo64),
    ("mul.wide.u32", mul_wide_u32),
    ("mul.wide.s32", mul_wide_s32),
    ("mad.lo.u32", mad_lo32),
    ("mad.lo.s32", mad_lo32),
    ("mad.lo.u64", mad_lo64),
    ("mad.lo.s64", mad_lo64),
    ("mad.wide.u32", mad_wide_u32),
    ("mad.wide.s32", mad_wide_s32),
    ("shl.b32", shl32),
    ("shl.b64", shl64),
    ("shr.u32", shr_u32),
    ("shr.b32", shr_u32),
    ("shr.s32", shr_s32),
    ("shr.u64", shr_u64),
    ("shr.b64", shr_u64),
    ("shr.s64", shr_s64),
    ("and.b32", and),
    ("and.b64", and),
    ("and.pred", and),
    ("or.b32", or),
    ("or.b64", or),
    ("or.pred", or),
    ("xor.b32", xor),
    ("xor.b64", xor),
    ("xor.pred", xor),
    ("not.b32", not),
    ("not.b64", not),
    ("selp.b32", selp),
    ("selp.u32", selp),
    ("selp.s32", selp),
    ("selp.f32", selp),
    ("selp.b64", selp),
    ("selp.u64", selp),
    ("selp.s64", selp),
    ("selp.f64", selp),
    ("mul.hi.u32", mul_hi_u32),
    ("mul.hi.s32", mul_hi_s32),
    ("popc.b32", popc32),
    ("clz.b32", clz32),
    ("brev.b32", brev32),
    ("bfe.u32", bfe_u32),
    ("shf.l.wrap.b32", shf_l_wrap),
    ("shf.r.wrap.b32", shf_r_wrap),
    ("prmt.b32", prmt_b32),
    ("cvt.u64.u32", cvt_u64_u32),
    ("cvt.s64.s32", cvt_s64_s32),
    ("cvt.rn.f32.u32", cvt_rn_f32_u32),
    ("cvt.rn.f32.s32", cvt_rn_f32_s32),
    ("cvt.rn.f64.u32", cvt_rn_f64_u32),
    ("cvt.rn.f64.s32", cvt_rn_f64_s32),
    ("add.rn.f32", add_f32),
    ("sub.rn.f32", sub_f32),
    ("mul.rn.f32", mul_f32),
    ("fma.rn.f32", fma_f32),
    ("add.f32", add_f32),
    ("sub.f32", sub_f32),
    ("mul.f32", mul_f32),
    ("max.f32", max_f32),
    ("div.rn.f32", div_f32),
    ("sqrt.rn.f32", sqrt_f32),
    ("cvt.f64.f32", cvt_f64_f32),
    ("add.rn.f64", add_f64),
    ("div.rn.f64", div_f64),
    ("sqrt.rn.f64", sqrt_f64),
    ("mul.rn.f64", mul_f64),
    ("fma.rn.f64", fma_f64),
    ("setp.eq.s32", eq32),
    ("setp.eq.u32", eq32),
    ("setp.eq.b32", eq32),
    ("setp.ne.s32", ne32),
    ("setp.ne.u32", ne32),
    ("setp.ne.b32", ne32),
    ("setp.lt.u32", lt_u32),
    ("setp.le.u32", le_u32),
    ("setp.gt.u32", gt_u32),
    ("setp.ge.u32", ge_u32),
    ("setp.lt.s32", lt_s32),
    ("setp.le.s32", le_s32),
    ("setp.gt.s32", gt_s32),
    ("setp.ge.s32", ge_s32),
    ("setp.eq.s64", eq64),
    ("setp.eq.u64", eq64),
    ("setp.eq.b64", eq64),
    ("setp.ne.s64", ne64),
    ("setp.ne.u64", ne64),
    ("setp.lt.u64", lt_u64),
    ("setp.le.u64", le_u64),
    ("setp.gt.u64", gt_u64),
    ("setp.ge.u64", ge_u64),
    ("setp.lt.s64", lt_s64),
    ("setp.le.s64", le_s64),
    ("setp.gt.s64", gt_s64),
    ("setp.ge.s64", ge_s64),
    ("setp.lt.f32", lt_f32),
    ("setp.ge.f32", ge_f32),
    ("setp.lt.f64", lt_f64),
];

/// The fast function of a form, if it has one. Only plain shapes qualify: one destination (or a
/// `p|q` destination pair, as `setp` writes, L11178), no boolean combine (`setp.lt.and.s32` has an extra source and falls through).
pub fn lookup(form: &Form) -> Option<FastFn> {
    if form.outputs.len() != 1 && !(form.pair_destination() && form.outputs.len() == 2) {
        return None;
    }
    // `mov.b64 d, {x, y}` shares its name with the plain move: packs and unpacks are the spec's.
    if form.outputs.iter().chain(&form.inputs).any(|o| o.group.is_some()) {
        return None;
    }
    FAST.iter().find(|(n, _)| *n == form.name).map(|(_, f)| *f)
}
