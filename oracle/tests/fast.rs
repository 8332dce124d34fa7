//! Every entry of `oracle::fast::FAST` against the spec: the fast function and
//! `spec::eval::eval` on the same operands give the same destination bits.
//!
//! The interpreter masks a register read to the operand's width before the spec sees it, and
//! hands the fast function the register's raw bits; for every form but `cvt` the register has
//! exactly the operand's width, so both see the same masked values here. `cvt` alone takes a
//! wider source register (§9.4.1, Tables 24/25), so its fast functions are also fed unmasked
//! 64-bit values, and their results must not spill above the destination width (a wider
//! destination register is zero-extended: `Op::Fast` is only chosen when `sext == 0`).

use oracle::fast::{lookup, FAST};
use spec::catalog::{catalog, Class, Form};
use spec::eval::{eval, semantics};
use spec::types::{FloatFormat, Kind, Type};
use spec::value::{Args, Input};
use std::collections::HashSet;

/// SplitMix64: a seed gives the same operands on every machine.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn width(t: Type) -> u32 {
    if t.kind == Kind::Pred {
        1
    } else {
        t.bits()
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Integer edges of an `n`-bit operand: small values, all ones, the signed extremes and their
/// neighbours, alternating patterns, single high bits.
fn int_edges(n: u32) -> Vec<u64> {
    let m = mask(n);
    let min = 1u64 << (n - 1);
    let mut v = vec![
        0,
        1,
        2,
        3,
        7,
        m,
        m - 1,
        min,
        min + 1,
        min - 1,
        min - 2,
        0x5555_5555_5555_5555 & m,
        0xaaaa_aaaa_aaaa_aaaa & m,
        0x8000_0001_8000_0001 & m,
        0x0123_4567_89ab_cdef & m,
        (min >> 1) | min,
    ];
    // Bits just around 32 and 16 matter to widening and truncating functions.
    for b in [15u32, 16, 31, 32, 33, 63] {
        if b < n {
            v.push(1u64 << b);
            v.push((1u64 << b) - 1);
        }
    }
    dedup(v)
}

/// Float edges: signed zeros, smallest and largest subnormals, smallest normal, one, a half-ulp
/// tie, the largest finite, infinities, quiet and signalling NaNs of both signs.
fn float_edges(f: FloatFormat) -> Vec<u64> {
    let v: Vec<u64> = match f {
        FloatFormat::F32 => {
            let pos = [
                0x0000_0000u64,
                0x0000_0001,
                0x0000_0002,
                0x007f_ffff,
                0x0080_0000,
                0x0080_0001,
                0x3f80_0000, // 1.0
                0x3f80_0001,
                0x3fc0_0000, // 1.5
                0x4000_0000, // 2.0
                0x3f00_0000, // 0.5
                0x3400_0000, // 2^-23
                0x3380_0000, // 2^-24
                0x4b80_0000, // 2^24
                0x7f7f_ffff, // max
                0x7f00_0000,
                0x7f80_0000, // inf
                0x7fc0_0000, // canonical qNaN
                0x7f80_0001, // sNaN
                0x7fff_ffff,
                0x7fa0_0000,
            ];
            pos.iter().flat_map(|&p| [p, p | 0x8000_0000]).collect()
        }
        FloatFormat::F64 => {
            let pos = [
                0u64,
                1,
                2,
                0x000f_ffff_ffff_ffff,
                0x0010_0000_0000_0000,
                0x0010_0000_0000_0001,
                0x3ff0_0000_0000_0000, // 1.0
                0x3ff0_0000_0000_0001,
                0x3ff8_0000_0000_0000, // 1.5
                0x4000_0000_0000_0000, // 2.0
                0x3fe0_0000_0000_0000, // 0.5
                0x3cb0_0000_0000_0000, // 2^-52
                0x3ca0_0000_0000_0000, // 2^-53
                0x4340_0000_0000_0000, // 2^53
                0x7fef_ffff_ffff_ffff, // max
                0x7fe0_0000_0000_0000,
                0x7ff0_0000_0000_0000, // inf
                0x7ff8_0000_0000_0000, // canonical qNaN
                0x7ff0_0000_0000_0001, // sNaN
                0x7fff_ffff_ffff_ffff,
                0x3800_0000_0000_0000, // f32's smallest normal, as f64
                0x36a0_0000_0000_0000, // f32's smallest subnormal, as f64
            ];
            pos.iter().flat_map(|&p| [p, p | 1 << 63]).collect()
        }
        other => panic!("no float edges for {other:?}"),
    };
    dedup(v)
}

fn dedup(v: Vec<u64>) -> Vec<u64> {
    let mut seen = HashSet::new();
    v.into_iter().filter(|x| seen.insert(*x)).collect()
}

/// Edge operands of one input of `form`.
fn edges(form: &Form, i: usize) -> Vec<u64> {
    let op = &form.inputs[i];
    let v = match op.ty.kind {
        Kind::Pred => vec![0, 1],
        Kind::Float(f) => float_edges(f),
        _ => {
            let mut v = int_edges(op.ty.bits());
            // Shift amounts: every count through past the widest register, and far beyond it.
            // Shift amounts, field positions and lengths: every small value and the clamps.
            let amount = match form.opcode {
                "shl" | "shr" => i == 1,
                "shf" => i == 2,
                "bfe" => i >= 1,
                _ => false,
            };
            if amount {
                v.extend(0..=70u64);
                v.extend([127, 128, 255, 256, 0xffff, 0x1_0000, 0x8000_0000, 0xffff_ffe0]);
            }
            v
        }
    };
    let m = mask(width(op.ty));
    dedup(v.into_iter().map(|x| x & m).collect())
}

/// A random operand of type `t`: uniform bits, or an edge value, or a small integer, or an edge
/// nudged by a few units (so that equality and near-ties come up often enough).
fn random(rng: &mut u64, form: &Form, i: usize, edge: &[u64]) -> u64 {
    let t = form.inputs[i].ty;
    let m = mask(width(t));
    let r = splitmix64(rng);
    let v = match r % 8 {
        0..=3 => splitmix64(rng),
        4 => edge[(splitmix64(rng) % edge.len() as u64) as usize],
        5 => splitmix64(rng) % 80,
        _ => {
            let e = edge[(splitmix64(rng) % edge.len() as u64) as usize];
            let d = splitmix64(rng) % 5;
            if r & 0x100 != 0 {
                e.wrapping_add(d)
            } else {
                e.wrapping_sub(d)
            }
        }
    };
    v & m
}

/// The spec's destination 0 on `ins` (already masked), masked to the destination's width.
fn spec_out(form: &Form, ins: &[u64]) -> u64 {
    let inputs: Vec<Input> = ins.iter().map(|&b| Input::bits(b as u128)).collect();
    let out = eval(
        form,
        &Args {
            ins: &inputs,
            dsel: None,
        },
    )
    .unwrap_or_else(|e| panic!("{} on {ins:#x?}: spec error {e}", form.name));
    (out[0].model as u64) & mask(width(form.outputs[0].ty))
}

/// The fast function's operands: the inputs in order, absent ones 0 (as the decoder passes
/// `Src::Imm(0)`).
fn fast_out(f: fn(u64, u64, u64) -> u64, ins: &[u64]) -> u64 {
    let g = |k: usize| ins.get(k).copied().unwrap_or(0);
    f(g(0), g(1), g(2))
}

struct Mismatch {
    ins: Vec<u64>,
    fast: u64,
    spec: u64,
}

/// Checks one form on edge tuples and `random_n` random tuples; returns the mismatches (at most
/// a few) and the number of tuples checked.
fn check_form(form: &Form, f: fn(u64, u64, u64) -> u64, random_n: usize, seed: u64) -> (Vec<Mismatch>, usize) {
    let n = form.inputs.len();
    assert!((1..=3).contains(&n), "{}: {} inputs", form.name, n);
    let dmask = mask(width(form.outputs[0].ty));
    let edge: Vec<Vec<u64>> = (0..n).map(|i| edges(form, i)).collect();
    let mut bad = Vec::new();
    let mut count = 0usize;
    let mut one = |ins: &[u64], bad: &mut Vec<Mismatch>| {
        count += 1;
        let want = spec_out(form, ins);
        let got = fast_out(f, ins) & dmask;
        if got != want && bad.len() < 8 {
            bad.push(Mismatch {
                ins: ins.to_vec(),
                fast: got,
                spec: want,
            });
        }
    };
    // Every pair (or triple) of edges: the cross product of each operand's edge list.
    let mut idx = vec![0usize; n];
    'tuples: loop {
        let ins: Vec<u64> = (0..n).map(|k| edge[k][idx[k]]).collect();
        one(&ins, &mut bad);
        let mut k = 0;
        loop {
            if k == n {
                break 'tuples;
            }
            idx[k] += 1;
            if idx[k] < edge[k].len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
    let mut rng = seed;
    for _ in 0..random_n {
        let ins: Vec<u64> = (0..n).map(|k| random(&mut rng, form, k, &edge[k])).collect();
        one(&ins, &mut bad);
    }
    (bad, count)
}

/// The catalog form a FAST entry stands for: the one form of that name that `lookup` accepts
/// and the spec evaluates (`mov.u32 d, avar` shares the name but is a memory form).
fn form_of(name: &str) -> &'static Form {
    let cat = catalog();
    let ids = cat.by_name(name);
    assert!(!ids.is_empty(), "FAST lists `{name}`, which is no catalog form");
    let cands: Vec<&'static Form> = ids
        .iter()
        .map(|&i| &cat.forms[i])
        .filter(|f| lookup(f).is_some() && semantics(f).is_some())
        .collect();
    assert_eq!(
        cands.len(),
        1,
        "`{name}`: expected exactly one form with a fast function and spec semantics, found {}",
        cands.len()
    );
    cands[0]
}

const RANDOM_PER_FORM: usize = 20_000;

#[test]
fn every_fast_function_matches_the_spec() {
    let mut names = HashSet::new();
    for (name, _) in FAST {
        assert!(names.insert(*name), "FAST lists `{name}` twice");
    }
    let mut covered = 0usize;
    let mut total = 0usize;
    let mut random_total = 0usize;
    let mut failures = Vec::new();
    for (k, (name, f)) in FAST.iter().enumerate() {
        let form = form_of(name);
        assert_eq!(form.class, Class::BitExact, "{name}");
        // The function the decoder would pick is the listed one.
        assert_eq!(
            lookup(form).map(|g| g as usize),
            Some(*f as usize),
            "{name}: lookup returns another function"
        );
        let (bad, n) = check_form(form, *f, RANDOM_PER_FORM, 0x5eed_0000 + k as u64);
        total += n;
        random_total += RANDOM_PER_FORM;
        covered += 1;
        for m in bad {
            failures.push(format!(
                "{name} ins={:#x?}: fast {:#x}, spec {:#x}",
                m.ins, m.fast, m.spec
            ));
        }
    }
    assert_eq!(covered, FAST.len(), "every FAST entry is checked");
    assert!(
        covered >= 122,
        "FAST shrank to {covered} entries; the test expects the list of ~122"
    );
    assert!(random_total >= 20_000);
    assert!(total > 400_000, "only {total} operand tuples checked");
    eprintln!("{covered} FAST entries, {total} operand tuples ({random_total} random)");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `cvt` takes source registers wider than its type (Tables 24/25): the fast function receives
/// the register's raw 64 bits and must ignore the bits above the source width; its result must
/// not have bits above the destination width (a wider destination register is zero-extended).
#[test]
fn cvt_fast_functions_ignore_high_source_bits() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, f) in FAST.iter().filter(|(n, _)| n.starts_with("cvt.")) {
        let form = form_of(name);
        let sw = width(form.inputs[0].ty);
        let dw = width(form.outputs[0].ty);
        let mut rng = 0xc0ff_ee00u64;
        let mut vals: Vec<u64> = edges(form, 0);
        vals.extend((0..2_000).map(|_| splitmix64(&mut rng)));
        for lo in vals {
            for hi in [0u64, u64::MAX, 0x8000_0000_0000_0000, splitmix64(&mut rng)] {
                let raw = (lo & mask(sw)) | (hi & !mask(sw));
                let want = spec_out(form, &[lo & mask(sw)]);
                let got = f(raw, 0, 0);
                checked += 1;
                if got != want && failures.len() < 8 {
                    failures.push(format!(
                        "{name} raw={raw:#x}: fast {got:#x}, spec {want:#x} (dst {dw} bits)"
                    ));
                }
            }
        }
    }
    assert!(checked >= 6 * 2_000 * 4, "only {checked} cvt operands checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The test's own model is not vacuous: a deliberately wrong function is caught on edges.
#[test]
fn a_wrong_fast_function_is_caught() {
    fn shl32_unclamped(a: u64, b: u64, _: u64) -> u64 {
        ((a as u32).wrapping_shl(b as u32)) as u64
    }
    fn mul_wide_s32_as_unsigned(a: u64, b: u64, _: u64) -> u64 {
        (a as u32 as u64) * (b as u32 as u64)
    }
    fn lt_f32_nan_true(a: u64, b: u64, _: u64) -> u64 {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        (x.is_nan() || y.is_nan() || x < y) as u64
    }
    for (name, f) in [
        ("shl.b32", shl32_unclamped as fn(u64, u64, u64) -> u64),
        ("mul.wide.s32", mul_wide_s32_as_unsigned),
        ("setp.lt.f32", lt_f32_nan_true),
    ] {
        let (bad, _) = check_form(form_of(name), f, 0, 1);
        assert!(!bad.is_empty(), "{name}: the wrong function went unnoticed");
    }
}
