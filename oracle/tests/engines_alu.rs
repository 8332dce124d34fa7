//! The lanes engine's lane functions (`exec/lanes/alu.rs`) against the scalar fast functions
//! they stand for (themselves checked against the spec by tests/fast.rs): every lane, bit for
//! bit, on edge operands (zeros, extremes, subnormals, infinities, NaNs of every kind, shift
//! amounts past the width, values with high bits set) and on random ones.

use oracle::exec::lanes::alu;

const EDGES: &[u64] = &[
    0,
    1,
    2,
    31,
    32,
    33,
    63,
    64,
    0xff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1_0000_0000,
    0x8000_0000_0000_0000,
    u64::MAX,
    0x3f80_0000, // 1.0
    0xbf80_0000, // -1.0
    0x8000_0000, // -0.0
    0x0000_0001, // smallest subnormal
    0x007f_ffff, // largest subnormal
    0x8000_0001,
    0x0080_0000, // smallest normal
    0x7f7f_ffff, // largest finite
    0xff7f_ffff,
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x7fc0_0000, // quiet NaN
    0x7f80_0001, // signalling NaN
    0xffc0_1234,
    0x7fff_ffff,
    0x3400_0000, // 2^-23
    0x4b00_0000, // 2^23
    0xcb00_0001,
    // f64 operands of the f64 forms.
    0x3ff0_0000_0000_0000, // 1.0
    0xbff0_0000_0000_0000, // -1.0
    0x0000_0000_0000_0001, // smallest subnormal (also the integer 1)
    0x000f_ffff_ffff_ffff, // largest subnormal
    0x0010_0000_0000_0000, // smallest normal
    0x7fef_ffff_ffff_ffff, // largest finite
    0x7ff0_0000_0000_0000, // +inf
    0xfff0_0000_0000_0000, // -inf
    0x7ff8_0000_0000_0000, // quiet NaN
    0x7ff0_0000_0000_0001, // signalling NaN with a payload
    0xfff8_0000_dead_beef, // negative quiet NaN with a payload
    0x3ca0_0000_0000_0000, // 2^-53
    0x4340_0000_0000_0001,
];

/// SplitMix64: deterministic operands.
fn next(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[test]
fn every_lane_function_computes_its_scalar_function() {
    let pairs: Vec<_> = alu::pairs().collect();
    assert!(pairs.len() >= 119, "{} lane functions", pairs.len());
    // The forms of the int-heavy and float-heavy kernels' loops must keep their lane functions.
    for name in [
        "mul.hi.u32",
        "shf.l.wrap.b32",
        "prmt.b32",
        "popc.b32",
        "bfe.u32",
        "brev.b32",
        "clz.b32",
        "div.rn.f32",
        "add.f32",
        "max.f32",
        "sqrt.rn.f32",
        "cvt.f64.f32",
        "fma.rn.f64",
        "sqrt.rn.f64",
        "add.rn.f64",
        "div.rn.f64",
    ] {
        assert!(pairs.iter().any(|p| p.0 == name), "no lane function for {name}");
    }
    let mut seed = 7;
    // Operand triples: every edge pair with an edge third operand, then random ones (some
    // with only 32 significant bits, as registers of 32-bit types hold).
    let mut triples = Vec::new();
    for (i, &a) in EDGES.iter().enumerate() {
        for (j, &b) in EDGES.iter().enumerate() {
            triples.push((a, b, EDGES[(i * 7 + j) % EDGES.len()]));
        }
    }
    for k in 0..20_000 {
        let (a, b, c) = (next(&mut seed), next(&mut seed), next(&mut seed));
        triples.push(if k % 2 == 0 {
            (a & 0xffff_ffff, b & 0xffff_ffff, c & 0xffff_ffff)
        } else {
            (a, b, c)
        });
    }
    for (name, scalar, lanes) in pairs {
        for chunk in triples.chunks(32) {
            let mut a = [0u64; 32];
            let mut b = [0u64; 32];
            let mut c = [0u64; 32];
            for (l, &(x, y, z)) in chunk.iter().enumerate() {
                (a[l], b[l], c[l]) = (x, y, z);
            }
            let mut d = [0u64; 32];
            lanes(&mut d, &a, &b, &c);
            for l in 0..32 {
                let want = scalar(a[l], b[l], c[l]);
                assert_eq!(
                    d[l], want,
                    "{name}({:#x}, {:#x}, {:#x}): lanes {:#x}, scalar {want:#x}",
                    a[l], b[l], c[l], d[l]
                );
            }
        }
    }
}

/// The lookup goes by the scalar function itself: each fast form's function finds the lane
/// function computing it, and one that has none finds nothing.
#[test]
fn lane_functions_are_found_by_their_scalar_function() {
    for (name, f) in oracle::fast::FAST {
        let found = alu::of(*f);
        let listed = alu::pairs().any(|(n, _, _)| n == *name);
        assert_eq!(found.is_some(), listed, "{name}");
    }
}
