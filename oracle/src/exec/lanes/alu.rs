//! The [`crate::fast`] functions over a warp's 32 lanes at once: one call per warp step, a
//! loop the compiler vectorises. Each computes exactly what its scalar [`FastFn`] computes for
//! every lane (`oracle/tests/engines_alu.rs` checks it lane by lane on edge and random
//! operands); which scalar function a lane function stands for is found by the function
//! itself ([`of`]), not by a name.
//!
//! The float ones use the host's IEEE arithmetic (round to nearest even, subnormals kept, as
//! PTX's `.rn` forms without `.ftz` specify) and replace a NaN result by the spec's canonical
//! NaN, the one value the spec's model gives for every NaN result of these forms.

use crate::fast::FAST;
use crate::program::FastFn;
use spec::float::round::Rnd;

/// A lane function: `d[l] = f(a[l], b[l], c[l])` for the 32 lanes.
pub type LaneFn = fn(&mut [u64; 32], &[u64; 32], &[u64; 32], &[u64; 32]);

/// The spec's NaN for a NaN result of an `.rn` f32 form (`spec::float`'s canonical NaN).
const NAN32: u64 = 0x7fff_ffff;

macro_rules! lanes {
    ($name:ident, |$a:ident, $b:ident, $c:ident| $e:expr) => {
        #[allow(unused_variables)]
        fn $name(d: &mut [u64; 32], a: &[u64; 32], b: &[u64; 32], c: &[u64; 32]) {
            #[inline(always)]
            fn body(d: &mut [u64; 32], a: &[u64; 32], b: &[u64; 32], c: &[u64; 32]) {
                for l in 0..32 {
                    let ($a, $b, $c) = (a[l], b[l], c[l]);
                    d[l] = $e;
                }
            }
            // The same loop compiled for AVX2 and FMA where the host has them (a fused
            // multiply-add is one instruction there, a library call otherwise; the results are
            // the same IEEE operations either way).
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,fma")]
                unsafe fn wide(d: &mut [u64; 32], a: &[u64; 32], b: &[u64; 32], c: &[u64; 32]) {
                    body(d, a, b, c)
                }
                if wide_host() {
                    // SAFETY: the host has AVX2 and FMA (checked just above).
                    return unsafe { wide(d, a, b, c) };
                }
            }
            body(d, a, b, c)
        }
    };
}

/// Whether the host has AVX2 and FMA (cached by the standard library's detection).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn wide_host() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

#[inline(always)]
fn f(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

#[inline(always)]
fn g(x: u64) -> f64 {
    f64::from_bits(x)
}

#[inline(always)]
fn canon(r: f32) -> u64 {
    if r.is_nan() {
        NAN32
    } else {
        r.to_bits() as u64
    }
}

#[inline(always)]
fn field_u32(a: u64, b: u64, c: u64) -> u64 {
    let (pos, len) = ((b & 0xff) as u32, (c & 0xff) as u32);
    if pos >= 32 || len == 0 {
        0
    } else if len >= 32 {
        ((a as u32) >> pos) as u64
    } else {
        (((a as u32) >> pos) & ((1u32 << len) - 1)) as u64
    }
}

/// `prmt.b32`'s default mode: byte i of the result is byte `c[4i+2:4i]` of `{b, a}`, or that
/// byte's sign replicated when `c[4i+3]` is set (L12105).
#[inline(always)]
fn prmt(a: u64, b: u64, c: u64) -> u64 {
    let x = (b << 32) | (a as u32 as u64);
    let mut d = 0u64;
    for i in 0..4 {
        let s = (c >> (4 * i)) & 0xf;
        let byte = (x >> (8 * (s & 7))) & 0xff;
        let byte = if s & 8 == 0 {
            byte
        } else if byte & 0x80 != 0 {
            0xff
        } else {
            0
        };
        d |= byte << (8 * i);
    }
    d
}

/// `max.f32` (L8302-8306): a NaN operand gives the other one, two give the canonical NaN, and
/// +0.0 is above -0.0.
#[inline(always)]
fn fmax(a: u64, b: u64) -> u64 {
    let (x, y) = (f(a), f(b));
    let (a, b) = (a as u32 as u64, b as u32 as u64);
    match (x.is_nan(), y.is_nan()) {
        (true, true) => NAN32,
        (true, false) => b,
        (false, true) => a,
        _ if x > y => a,
        _ if y > x => b,
        _ if a >> 31 == 0 => a,
        _ => b,
    }
}

/// `cvt.f64.f32`: exact; a NaN keeps its sign and payload (left-aligned) and is quieted, as the
/// spec's f2f conversion gives for an `.f64` destination.
#[inline(always)]
fn widen(a: u64) -> u64 {
    let x = f(a);
    if x.is_nan() {
        let a = a as u32 as u64;
        ((a >> 31) << 63) | (0x7ffu64 << 52) | ((a & 0x7f_ffff) << 29) | (1 << 51)
    } else {
        (x as f64).to_bits()
    }
}

lanes!(mov, |a, b, c| a);
lanes!(add64, |a, b, c| a.wrapping_add(b));
lanes!(add32, |a, b, c| (a as u32).wrapping_add(b as u32) as u64);
lanes!(add16, |a, b, c| (a as u16).wrapping_add(b as u16) as u64);
lanes!(sub64, |a, b, c| a.wrapping_sub(b));
lanes!(sub32, |a, b, c| (a as u32).wrapping_sub(b as u32) as u64);
lanes!(mul_lo64, |a, b, c| a.wrapping_mul(b));
lanes!(mul_lo32, |a, b, c| (a as u32).wrapping_mul(b as u32) as u64);
lanes!(mul_wide_u32, |a, b, c| (a as u32 as u64) * (b as u32 as u64));
lanes!(
    mul_wide_s32,
    |a, b, c| ((a as u32 as i32 as i64) * (b as u32 as i32 as i64)) as u64
);
lanes!(
    mad_lo32,
    |a, b, c| (a as u32).wrapping_mul(b as u32).wrapping_add(c as u32) as u64
);
lanes!(mad_lo64, |a, b, c| a.wrapping_mul(b).wrapping_add(c));
lanes!(mad_wide_u32, |a, b, c| ((a as u32 as u64) * (b as u32 as u64))
    .wrapping_add(c));
lanes!(
    mad_wide_s32,
    |a, b, c| ((a as u32 as i32 as i64) * (b as u32 as i32 as i64)).wrapping_add(c as i64) as u64
);
// Shift amounts past the width clamp to it (§9.7.8.7-8), as the scalar functions do.
lanes!(shl32, |a, b, c| if (b as u32) >= 32 {
    0
} else {
    ((a as u32) << (b as u32)) as u64
});
lanes!(shl64, |a, b, c| if (b as u32) >= 64 { 0 } else { a << (b as u32) });
lanes!(shr_u32, |a, b, c| if (b as u32) >= 32 {
    0
} else {
    ((a as u32) >> (b as u32)) as u64
});
lanes!(shr_s32, |a, b, c| ((a as u32 as i32) >> (b as u32).min(31)) as u32
    as u64);
lanes!(shr_u64, |a, b, c| if (b as u32) >= 64 { 0 } else { a >> (b as u32) });
lanes!(shr_s64, |a, b, c| ((a as i64) >> (b as u32).min(63)) as u64);
lanes!(and, |a, b, c| a & b);
lanes!(or, |a, b, c| a | b);
lanes!(xor, |a, b, c| a ^ b);
lanes!(not, |a, b, c| !a);
lanes!(selp, |a, b, c| if c & 1 != 0 { a } else { b });
lanes!(mul_hi_u32, |a, b, c| ((a as u32 as u64) * (b as u32 as u64)) >> 32);
lanes!(
    mul_hi_s32,
    |a, b, c| (((a as u32 as i32 as i64) * (b as u32 as i32 as i64)) >> 32) as u32 as u64
);
lanes!(popc32, |a, b, c| (a as u32).count_ones() as u64);
lanes!(clz32, |a, b, c| (a as u32).leading_zeros() as u64);
lanes!(brev32, |a, b, c| (a as u32).reverse_bits() as u64);
// `bfe.u32`: pos = b & 0xff, len = c & 0xff; bits past the msb read as 0 (L6501-6513).
lanes!(bfe_u32, |a, b, c| field_u32(a, b, c));
lanes!(
    shf_l_wrap,
    |a, b, c| ((((b << 32) | (a as u32 as u64)) << (c & 31)) >> 32) as u32 as u64
);
lanes!(
    shf_r_wrap,
    |a, b, c| (((b << 32) | (a as u32 as u64)) >> (c & 31)) as u32 as u64
);
lanes!(prmt_b32, |a, b, c| prmt(a, b, c));
lanes!(cvt_u64_u32, |a, b, c| a as u32 as u64);
lanes!(cvt_s64_s32, |a, b, c| a as u32 as i32 as i64 as u64);
lanes!(cvt_rn_f32_u32, |a, b, c| (a as u32 as f32).to_bits() as u64);
lanes!(cvt_rn_f32_s32, |a, b, c| (a as u32 as i32 as f32).to_bits() as u64);
lanes!(add_f32, |a, b, c| canon(f(a) + f(b)));
lanes!(sub_f32, |a, b, c| canon(f(a) - f(b)));
lanes!(mul_f32, |a, b, c| canon(f(a) * f(b)));
lanes!(fma_f32, |a, b, c| canon(f(a).mul_add(f(b), f(c))));
lanes!(max_f32, |a, b, c| fmax(a, b));
lanes!(div_f32, |a, b, c| canon(f(a) / f(b)));
lanes!(sqrt_f32, |a, b, c| canon(f(a).sqrt()));
lanes!(cvt_f64_f32, |a, b, c| widen(a));
lanes!(add_f64_host, |a, b, c| (g(a) + g(b)).to_bits());
lanes!(mul_f64_host, |a, b, c| (g(a) * g(b)).to_bits());
lanes!(fma_f64_host, |a, b, c| g(a).mul_add(g(b), g(c)).to_bits());
lanes!(div_f64_host, |a, b, c| (g(a) / g(b)).to_bits());
lanes!(sqrt_f64_host, |a, b, c| g(a).sqrt().to_bits());

/// The `.rn` f64 forms: the host's IEEE result, except that a NaN result (whose payload PTX
/// propagates from the operands, L7141) is the spec's own, computed for that lane alone.
macro_rules! lanes_f64 {
    ($name:ident, $host:ident, |$a:ident, $b:ident, $c:ident| $spec:expr) => {
        fn $name(d: &mut [u64; 32], a: &[u64; 32], b: &[u64; 32], c: &[u64; 32]) {
            $host(d, a, b, c);
            for l in 0..32 {
                if g(d[l]).is_nan() {
                    #[allow(unused_variables)]
                    let ($a, $b, $c) = (a[l], b[l], c[l]);
                    d[l] = $spec.model as u64;
                }
            }
        }
    };
}
lanes_f64!(add_f64, add_f64_host, |a, b, c| spec::fp::add_f64(a, b, Rnd::Rn));
lanes_f64!(mul_f64, mul_f64_host, |a, b, c| spec::fp::mul_f64(a, b, Rnd::Rn));
lanes_f64!(fma_f64, fma_f64_host, |a, b, c| spec::fp::fma_f64(a, b, c, Rnd::Rn));
lanes_f64!(div_f64, div_f64_host, |a, b, c| spec::fp::div_f64(a, b, Rnd::Rn));
lanes_f64!(sqrt_f64, sqrt_f64_host, |a, b, c| spec::fp::sqrt_f64(a, Rnd::Rn));
lanes!(eq32, |a, b, c| (a as u32 == b as u32) as u64);
lanes!(ne32, |a, b, c| (a as u32 != b as u32) as u64);
lanes!(lt_u32, |a, b, c| ((a as u32) < (b as u32)) as u64);
lanes!(le_u32, |a, b, c| (a as u32 <= b as u32) as u64);
lanes!(gt_u32, |a, b, c| (a as u32 > b as u32) as u64);
lanes!(ge_u32, |a, b, c| (a as u32 >= b as u32) as u64);
lanes!(lt_s32, |a, b, c| ((a as u32 as i32) < (b as u32 as i32)) as u64);
lanes!(le_s32, |a, b, c| (a as u32 as i32 <= b as u32 as i32) as u64);
lanes!(gt_s32, |a, b, c| (a as u32 as i32 > b as u32 as i32) as u64);
lanes!(ge_s32, |a, b, c| (a as u32 as i32 >= b as u32 as i32) as u64);
lanes!(eq64, |a, b, c| (a == b) as u64);
lanes!(ne64, |a, b, c| (a != b) as u64);
lanes!(lt_u64, |a, b, c| (a < b) as u64);
lanes!(le_u64, |a, b, c| (a <= b) as u64);
lanes!(gt_u64, |a, b, c| (a > b) as u64);
lanes!(ge_u64, |a, b, c| (a >= b) as u64);
lanes!(lt_s64, |a, b, c| ((a as i64) < (b as i64)) as u64);
lanes!(le_s64, |a, b, c| (a as i64 <= b as i64) as u64);
lanes!(gt_s64, |a, b, c| (a as i64 > b as i64) as u64);
lanes!(ge_s64, |a, b, c| (a as i64 >= b as i64) as u64);
// An unordered comparison (a NaN operand) is false for `lt` and `ge` (§9.7.3.1's table).
lanes!(lt_f32, |a, b, c| (f(a) < f(b)) as u64);
lanes!(ge_f32, |a, b, c| (f(a) >= f(b)) as u64);

/// The lane function of each [`FAST`] entry that has one, by the entry's form name (the same
/// spelling as in [`FAST`], so that a lane function stands for exactly one scalar function).
static LANES: &[(&str, LaneFn)] = &[
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
    ("mul.rn.f64", mul_f64),
    ("fma.rn.f64", fma_f64),
    ("div.rn.f64", div_f64),
    ("sqrt.rn.f64", sqrt_f64),
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
];

/// The lane function standing for scalar function `f` (an entry of [`FAST`], as the decoder
/// copied it from there), if there is one.
pub fn of(f: FastFn) -> Option<LaneFn> {
    let name = FAST.iter().find(|(_, g)| *g as usize == f as usize)?.0;
    LANES.iter().find(|(n, _)| *n == name).map(|(_, l)| *l)
}

/// Every (scalar function, lane function) pair, for the test that compares them.
pub fn pairs() -> impl Iterator<Item = (&'static str, FastFn, LaneFn)> {
    LANES
        .iter()
        .filter_map(|(n, l)| FAST.iter().find(|(m, _)| m == n).map(|(_, f)| (*n, *f, *l)))
}
