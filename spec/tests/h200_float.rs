//! The floating-point results an NVIDIA H200 (sm_90, driver 580.159.04, CUDA 13.0) returned
//! where the spec disagreed with it (`corpus/findings/h200/float.md`), judged against the
//! spec: the recorded bits are accepted where the manual allows them (and become the model where
//! the manual leaves a choice), and refused where the manual is clear and the hardware deviates.
//! Each case also checks that values outside the manual's set stay refused.

mod common;
use common::run1 as run;

/// `.ftz` flushes "subnormal ... results" (L7139) without saying whether a result is subnormal
/// before or after rounding. Recorded: an exact value just below 2^-126 (or 2^-14) that rounds
/// up to the smallest normal number comes out as the zero of its sign on the H200 (tininess
/// before rounding). The H200's zero is the model; the after-rounding value stays accepted;
/// the other zero, the unflushed subnormal and the next normal number are refused.
#[test]
fn ftz_tiny_before_rounding_is_the_model() {
    // (form, sources, H200 bits, the value rounded after the manual's other reading).
    let cases: &[(&str, &[u128], u128, u128)] = &[
        ("mul.ftz.f32", &[0x0080_0000, 0x3f7f_ffff], 0, 0x0080_0000),
        ("mul.rn.ftz.sat.f32", &[0x3f7f_ffff, 0x0080_0000], 0, 0x0080_0000),
        ("mul.rp.ftz.f32", &[0x0080_0000, 0x3f7f_ffff], 0, 0x0080_0000),
        (
            "fma.rn.ftz.f32",
            &[0x3f7f_ffff, 0x0080_0000, 0x0000_0001],
            0,
            0x0080_0000,
        ),
        (
            "fma.rp.ftz.sat.f32",
            &[0x3f7f_ffff, 0x0080_0000, 0x007f_ffff],
            0,
            0x0080_0000,
        ),
        ("mad.rn.ftz.f32", &[0x3f7f_ffff, 0x0080_0000, 0], 0, 0x0080_0000),
        // sm_1x `mad.f32` is `fma.rn.ftz.f32` on sm_20 and later (L7976).
        ("mad.f32", &[0x3f7f_ffff, 0x0080_0000, 0x007f_ffff], 0, 0x0080_0000),
        ("div.rp.ftz.f32", &[0x0080_0000, 0x3f80_0001], 0, 0x0080_0000),
        ("rcp.rm.ftz.f32", &[0xfe80_0001], 0x8000_0000, 0x8080_0000),
        ("rcp.rp.ftz.f32", &[0x7e80_0001], 0, 0x0080_0000),
        ("mul.ftz.f16", &[0x0400, 0x3bff], 0, 0x0400),
        ("mul.rn.ftz.sat.f16", &[0x3bff, 0x0400], 0, 0x0400),
        ("fma.rn.ftz.relu.f16", &[0x3bff, 0x0400, 0x03ff], 0, 0x0400),
        ("fma.rn.ftz.sat.f16", &[0x3bff, 0x0400, 0x0001], 0, 0x0400),
    ];
    for &(name, ins, h200, after) in cases {
        let o = run(name, ins);
        assert_eq!(o.model, h200, "{name} {ins:x?}");
        assert!(o.accepts(after), "{name}: the after-rounding value {after:#x}");
        let (sign, min_normal) = if after > 0xffff {
            (0x8000_0000, 0x0080_0000)
        } else {
            (0x8000, 0x0400)
        };
        for refused in [h200 ^ sign, ((after & !sign) - 1) | (after & sign), after + 1] {
            assert!(!o.accepts(refused), "{name} {ins:x?} accepts {refused:#x}");
        }
        assert_eq!(after & !sign, min_normal);
    }
    // Packed lanes: the H200's `mul.ftz.f16x2` (lane 1 NaN, lane 0 flushed).
    let o = run("mul.ftz.f16x2", &[0x3800_0400, 0x7e00_3bff]);
    assert!(o.model == 0x7fff_0000 && o.accepts(0x7fff_0000) && o.accepts(0x7e00_0400));
    assert!(!o.accepts(0x7fff_8000) && !o.accepts(0x7fff_0401));
    let o = run("mul.ftz.sat.f16x2", &[0xbbff_8001, 0x8400_7c01]);
    assert!(o.model == 0 && o.accepts(0x0400_0000) && !o.accepts(0x8000_0000));
}

/// Where both readings agree the result stays exact: an exact product at 2^-126 is normal,
/// a product above it that rounds down to it is normal, and one that rounds into the subnormal
/// range is flushed under both.
#[test]
fn ftz_results_both_readings_agree_on_stay_exact() {
    let exact = |name: &str, ins: &[u128], want: u128| {
        let o = run(name, ins);
        assert_eq!(o, spec::value::Outcome::exact(want), "{name} {ins:x?}");
    };
    exact("mul.ftz.f32", &[0x0080_0000, 0x3f80_0000], 0x0080_0000);
    exact("mul.rn.ftz.f32", &[0x0080_0001, 0x3f7f_ffff], 0x0080_0000);
    exact("mul.rm.ftz.f32", &[0x0080_0000, 0x3f7f_ffff], 0);
    exact("mul.rz.ftz.f32", &[0x3f7f_ffff, 0x8080_0000], 0x8000_0000);
    // Without `.ftz` the subnormal grid's rounding stands (L7139: subnormals supported).
    exact("mul.rn.f32", &[0x0080_0000, 0x3f7f_ffff], 0x0080_0000);
    exact("mul.rm.f32", &[0x0080_0000, 0x3f7f_ffff], 0x007f_ffff);
}

/// f64 NaN results: the payload is promised (L7141), the sign is not (IEEE 754-2008 §6.3).
/// Recorded: `sub.f64` with a NaN written as an immediate `b` gives `-b`'s payload; `mul.rz.f64`
/// with both sources immediates gives the payload with the other sign. Accepted; the model
/// stays the first NaN operand's, quieted, with its sign — the H200's value for register
/// operands (`mul.rn.f64 -0.0, NaN` passed exact). Other payloads stay refused.
#[test]
fn f64_nan_sign_is_not_specified() {
    let cases: &[(&str, &[u128], u128, u128)] = &[
        // (form, sources, H200 bits, model)
        (
            "sub.rn.f64",
            &[0xffe0_6b32_311b_8662, 0xfff0_6b32_311b_8663],
            0x7ff8_6b32_311b_8663,
            0xfff8_6b32_311b_8663,
        ),
        (
            "sub.rz.f64",
            &[0x3fef_ffff_ffff_ffff, 0x7ff8_0000_0000_0001],
            0xfff8_0000_0000_0001,
            0x7ff8_0000_0000_0001,
        ),
        (
            "sub.f64",
            &[0x7ff7_ffff_ffff_ffff, 0x7ff8_0000_0000_0001],
            0xfff8_0000_0000_0001,
            0x7fff_ffff_ffff_ffff,
        ),
        (
            "sub.rp.f64",
            &[0x7ff8_0000_0000_0000, 0x7fff_ffff_ffff_ffff],
            0xffff_ffff_ffff_ffff,
            0x7ff8_0000_0000_0000,
        ),
        (
            "mul.rz.f64",
            &[0xc170_0003_ffff_8000, 0xfff1_5eae_3127_5097],
            0x7ff9_5eae_3127_5097,
            0xfff9_5eae_3127_5097,
        ),
    ];
    for &(name, ins, h200, model) in cases {
        let o = run(name, ins);
        assert_eq!(o.model, model, "{name}");
        assert!(o.accepts(h200), "{name} {ins:x?}: {h200:#x}");
        // Another payload, the canonical NaN where no operand had it, the unquieted operand.
        for refused in [model ^ 2, 0x7ff8_0000_0000_0002, 0x7ff0_0000_0000_0001] {
            assert!(!o.accepts(refused), "{name} accepts {refused:#x}");
        }
    }
    let o = run("mul.rn.f64", &[0x8000_0000_0000_0000, 0x7ff8_0000_0000_0000]);
    assert!(o.model == 0x7ff8_0000_0000_0000 && o.accepts(0xfff8_0000_0000_0000));
}

/// Where the manual is clear the spec keeps it and the H200's bits are refused.
#[test]
fn h200_deviations_stay_refused() {
    // div.approx/div.full: "subnormal inputs and results are flushed to sign-preserving zero"
    // (L8077): 0 / 2^-149 is 0 / 0, a NaN; the H200 returns 0 (it kept the subnormal).
    for name in ["div.approx.f32", "div.full.f32"] {
        let o = run(name, &[0, 1]);
        assert!(o.accepts(0x7fc0_0000) && !o.accepts(0), "{name}");
        let o = run(name, &[1, 1]);
        assert!(!o.accepts(0x3f80_0000), "{name}");
    }
    // abs.f64: "NaN input passes through unchanged" (L8176); the H200 quiets a signalling NaN.
    let o = run("abs.f64", &[0x7ff0_0000_0000_0001]);
    assert!(o.accepts(0x7ff0_0000_0000_0001) && !o.accepts(0x7ff8_0000_0000_0001));
    let o = run("abs.f64", &[0xfff7_ffff_ffff_ffff]);
    assert!(o.accepts(0x7ff7_ffff_ffff_ffff) && !o.accepts(0xffff_ffff_ffff_ffff));
    // tanh.approx.bf16: absolute error at most 2^-8 (L10118). tanh(0.74609375) =
    // 0.6328127547...; the H200's 0x3f21 = 0.62890625 is 2^-8 + 2.5e-7 away.
    let o = run("tanh.approx.bf16", &[0x3f3f]);
    assert!(o.accepts(0x3f22) && o.accepts(0x3f23) && !o.accepts(0x3f21));
    let o = run("tanh.approx.bf16", &[0xbf3f]);
    assert!(o.accepts(0xbf22) && !o.accepts(0xbf21));
    // set.<cmp>.bf16.f32: an f64 constant is "converted to the appropriate floating-point
    // size" (L645), so 0d47EFFFFFE0000000 is FLT_MAX and FLT_MAX < 0.99999994 is false; the
    // H200 read the constant's low 32 bits (0xe0000000, negative) and wrote 1.0.
    let o = run("set.lt.bf16.f32", &[0x7f7f_ffff, 0x3f7f_ffff]);
    assert!(o.accepts(0) && !o.accepts(0x3f80));
    // 0d36A0000000000000 = 2^-149 is 0x00000001, not 0 (its low word).
    let o = run("set.eq.bf16.f32", &[0, 1]);
    assert!(o.accepts(0) && !o.accepts(0x3f80));
}
