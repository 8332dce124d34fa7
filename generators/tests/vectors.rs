//! The golden-vector generator (`generators::vectors`): determinism, exhaustive enumeration,
//! hard cases first, coverage of the sweeps the issue asks for (every lop3 LUT, every prmt
//! selector, every video selector), valid operands only, and lines that parse back equal.

use generators::float::hard_cases;
use generators::vectors::{budget, form_seed, generate, Generated, Level};
use spec::catalog::{catalog, Form};
use spec::float::Fmt;
use spec::types::FloatFormat;
use spec::value::Sel;
use spec::vector::{form_by_key, format_file, parse_file};
use std::collections::HashSet;

fn form(key: &str) -> &'static Form {
    let i = form_by_key(key).unwrap_or_else(|| panic!("no form {key}"));
    &catalog().forms[i]
}

fn gen(key: &str, level: Level) -> Generated {
    generate(form(key), 1, level).unwrap_or_else(|e| panic!("{key}: {e}"))
}

fn text(key: &str, seed: u64) -> String {
    let f = form(key);
    let g = generate(f, seed, Level::Golden).unwrap();
    format_file(f, &[], &g.vectors)
}

#[test]
fn same_seed_same_text_other_seed_other_text() {
    for key in [
        "add.rn.f32",
        "setp.lt.and.f16",
        "vadd4.u32.u32.u32",
        "fma.rn.f64",
        "shl.b32",
        "rcp.approx.f32",
    ] {
        let a = text(key, 7);
        assert_eq!(a, text(key, 7), "{key}");
        assert_ne!(a, text(key, 8), "{key}");
    }
    // The per-form seed is a fixed function of the seed and key (FNV-1a + SplitMix64), not of
    // std's hasher: these values must never change, or every committed file would.
    assert_eq!(generators::vectors::fnv1a(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(generators::vectors::fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_ne!(form_seed(1, "add.rn.f32"), form_seed(1, "add.rn.f64"));
    assert_eq!(form_seed(1, "add.rn.f32"), form_seed(1, "add.rn.f32"));
}

#[test]
fn exhaustive_forms_enumerate_every_operand() {
    // cvt.rn.f32.s8: one 8-bit operand, 256 points, at both levels.
    for level in [Level::Golden, Level::One] {
        let g = gen("cvt.rn.f32.s8", level);
        assert_eq!(g.counts.exhaustive, 256);
        assert_eq!((g.counts.hard, g.counts.random), (0, 0));
        let seen: HashSet<u128> = g.vectors.iter().map(|v| v.ins[0].bits).collect();
        assert_eq!(seen, (0..256).collect());
        // -128 converts to -128.0 exactly.
        let v = g.vectors.iter().find(|v| v.ins[0].bits == 0x80).unwrap();
        assert_eq!(v.outs[0].model, 0xc300_0000);
    }
    // A 16-bit operand is exhaustive at level 1 only (the corpus cannot hold 65,536 vectors for
    // each of the ~270 sixteen-bit conversions).
    let g = gen("cvt.f32.f16", Level::One);
    assert_eq!(g.counts.exhaustive, 1 << 16);
    let seen: HashSet<u128> = g.vectors.iter().map(|v| v.ins[0].bits).collect();
    assert_eq!(seen.len(), 1 << 16);
    let g = gen("cvt.f32.f16", Level::Golden);
    assert_eq!(g.counts.exhaustive, 0);
    assert_eq!(g.vectors.len() as u64, budget(Level::Golden, 1));
    // Predicate logic: both operands and both negations of each, 16 points.
    let g = gen("and.pred", Level::Golden);
    assert_eq!(g.counts.exhaustive, 4, "and.pred takes no !p sources");
    let pts: HashSet<(u128, u128)> = g.vectors.iter().map(|v| (v.ins[0].bits, v.ins[1].bits)).collect();
    assert_eq!(pts.len(), 4);
    for v in &g.vectors {
        assert_eq!(v.outs[0].model, v.ins[0].bits & v.ins[1].bits);
    }
}

#[test]
fn hard_cases_come_first() {
    let g = gen("add.rn.f32", Level::Golden);
    let hard: HashSet<u128> = hard_cases(Fmt::of(FloatFormat::F32))
        .into_iter()
        .map(u128::from)
        .collect();
    assert!(g.counts.hard > 100 && g.counts.random > 50, "{:?}", g.counts);
    let (h, r) = g.vectors.split_at(g.counts.hard as usize);
    assert!(h.iter().all(|v| v.ins.iter().all(|i| hard.contains(&i.bits))));
    // +0 + +0 first: the cross product starts with the first hard case of each operand.
    assert_eq!((h[0].ins[0].bits, h[0].ins[1].bits), (0, 0));
    // Random operands are mostly not hard cases.
    let outside = r
        .iter()
        .filter(|v| v.ins.iter().any(|i| !hard.contains(&i.bits)))
        .count();
    assert!(outside * 2 > r.len(), "{outside} of {}", r.len());
    // Shift amounts start with the edges: 0, 1, ..., the width, 255.
    let g = gen("shl.b32", Level::Golden);
    let amounts: HashSet<u128> = g.vectors[..g.counts.hard as usize]
        .iter()
        .map(|v| v.ins[1].bits)
        .collect();
    for a in [0, 1, 31, 32, 33, 63, 64, 255, 256, 0xffff_ffff] {
        assert!(amounts.contains(&a), "shl.b32 amount {a}");
    }
    for v in &g.vectors {
        let (a, b) = (v.ins[0].bits as u32, v.ins[1].bits as u32);
        let want = if b >= 32 { 0 } else { a << b };
        assert_eq!(v.outs[0].model, u128::from(want), "shl {a:#x} {b}");
    }
}

/// Forms generate at golden level and every line parses back equal. All forms with `--ignored`;
/// by default every 11th (about 700 forms, a few seconds).
fn every_form(step: usize) {
    let cat = catalog();
    let mut n = 0;
    for (i, f) in cat.enumerate().step_by(step) {
        if spec::eval::semantics(f).is_none() {
            continue;
        }
        let g = generate(f, 1, Level::Golden).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        assert!(!g.vectors.is_empty(), "{}", f.name);
        assert_eq!(g.rejected, 0, "{}: operands are valid by construction", f.name);
        assert_eq!(g.counts.total(), g.vectors.len() as u64, "{}", f.name);
        let text = format_file(f, &[], &g.vectors);
        let back = parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        assert_eq!(back.form, i, "{}", f.name);
        assert_eq!(back.vectors.len(), g.vectors.len());
        for (a, b) in g.vectors.iter().zip(&back.vectors) {
            assert_eq!(a, b, "{}", f.name);
        }
        n += 1;
    }
    assert!(n > 7801 / step / 2, "{n} forms");
}

#[test]
fn sampled_forms_generate_and_round_trip() {
    every_form(11);
}

#[test]
#[ignore = "all 7,801 forms, ~15 s"]
fn all_forms_generate_and_round_trip() {
    every_form(1);
}

#[test]
fn lop3_covers_every_lut() {
    for key in ["lop3.b32", "lop3.or.b32"] {
        let g = gen(key, Level::Golden);
        let luts: HashSet<u128> = g.vectors.iter().map(|v| v.ins[3].bits).collect();
        assert_eq!(luts.len(), 256, "{key}");
        // On the canonical operands the result is the LUT in every byte (L11196-11214).
        let canon: Vec<_> = g
            .vectors
            .iter()
            .filter(|v| v.ins[0].bits == 0xF0F0_F0F0 && v.ins[1].bits == 0xCCCC_CCCC && v.ins[2].bits == 0xAAAA_AAAA)
            .collect();
        assert!(canon.len() >= 256, "{key}");
        for v in canon {
            assert_eq!(v.outs[0].model, v.ins[3].bits * 0x0101_0101, "{key}");
        }
    }
}

/// prmt's default mode, written from the manual's description (L12101-12107) independently
/// of the spec: nibble i of c picks byte c[4i+2:4i] of {b, a}; c[4i+3] replicates its sign.
fn prmt_model(a: u32, b: u32, c: u32) -> u32 {
    let ba = (u64::from(b) << 32) | u64::from(a);
    (0..4).fold(0, |d, i| {
        let sel = (c >> (4 * i)) & 0xf;
        let byte = (ba >> (8 * (sel & 7))) as u32 & 0xff;
        let byte = if sel & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        d | byte << (8 * i)
    })
}

#[test]
fn prmt_covers_every_selector_and_mode() {
    let g = gen("prmt.b32", Level::Golden);
    let sels: HashSet<u128> = g.vectors.iter().map(|v| v.ins[2].bits & 0xffff).collect();
    assert_eq!(sels.len(), 1 << 16);
    for v in &g.vectors {
        let (a, b, c) = (v.ins[0].bits as u32, v.ins[1].bits as u32, v.ins[2].bits as u32);
        assert_eq!(
            v.outs[0].model,
            u128::from(prmt_model(a, b, c)),
            "prmt {a:#x} {b:#x} {c:#x}"
        );
    }
    for mode in ["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"] {
        let g = gen(&format!("prmt.b32.{mode}"), Level::Golden);
        let modes: HashSet<u128> = g.vectors.iter().map(|v| v.ins[2].bits & 3).collect();
        assert_eq!(modes.len(), 4, "{mode}");
    }
}

fn sels_of(g: &Generated, op: usize) -> HashSet<Option<Sel>> {
    g.vectors.iter().map(|v| v.ins[op].sel).collect()
}

#[test]
fn video_selectors_are_the_accepted_ones() {
    let sel = |s: &str| Sel::parse(s);
    // Scalar video (no .op2): a and b take .b0-.b3, .h0, .h1 or nothing (L30935); the
    // destination a selector (merging into c) or none, and then c is left out (L30855-30859).
    let g = gen("vadd.u32.u32.u32", Level::Golden);
    let scalar: HashSet<Option<Sel>> = [None, sel("b0"), sel("b1"), sel("b2"), sel("b3"), sel("h0"), sel("h1")]
        .into_iter()
        .collect();
    assert_eq!(sels_of(&g, 0), scalar);
    assert_eq!(sels_of(&g, 1), scalar);
    let dsels: HashSet<Option<Sel>> = g.vectors.iter().map(|v| v.dsel).collect();
    assert_eq!(dsels, scalar);
    for v in &g.vectors {
        assert_eq!(v.ins.len(), if v.dsel.is_some() { 3 } else { 2 }, "{v:?}");
    }
    // With .op2, no destination selector.
    let g = gen("vadd.u32.u32.u32.add", Level::Golden);
    assert!(g.vectors.iter().all(|v| v.dsel.is_none()));
    // 4-way SIMD: every mask (15 and none); 2-way: all 16 .hxy source selectors and 3 masks.
    let g = gen("vadd4.u32.u32.u32", Level::Golden);
    let masks: HashSet<Option<Sel>> = g.vectors.iter().map(|v| v.dsel).collect();
    assert_eq!(masks.len(), 16);
    assert!(sels_of(&g, 0).len() >= 64);
    let g = gen("vadd2.u32.u32.u32", Level::Golden);
    assert_eq!(sels_of(&g, 0).len(), 17);
    assert_eq!(sels_of(&g, 1).len(), 17);
    assert_eq!(g.vectors.iter().map(|v| v.dsel).collect::<HashSet<_>>().len(), 4);
}

#[test]
fn negations_are_valid_by_construction() {
    // vmad negates the product or c, never both (L31056): 3 of the 8 patterns; none in .po mode.
    let g = gen("vmad.u32.u32.u32", Level::Golden);
    assert_eq!(g.rejected, 0);
    let pats: HashSet<(bool, bool, bool)> = g
        .vectors
        .iter()
        .map(|v| (v.ins[0].negated, v.ins[1].negated, v.ins[2].negated))
        .collect();
    for (a, b, c) in &pats {
        assert!(!((a ^ b) && *c), "product and c both negated");
    }
    assert!(pats.len() >= 3, "{pats:?}");
    let g = gen("vmad.u32.u32.u32.po", Level::Golden);
    assert!(g.vectors.iter().all(|v| v.ins.iter().all(|i| !i.negated)));
    // !c on setp's predicate source: both values, both negations.
    let g = gen("setp.lt.and.f32", Level::Golden);
    let c: HashSet<(u128, bool)> = g.vectors.iter().map(|v| (v.ins[2].bits, v.ins[2].negated)).collect();
    assert_eq!(c.len(), 4);
    for v in &g.vectors {
        let c = (v.ins[2].bits == 1) ^ v.ins[2].negated;
        let (a, b) = (
            f32::from_bits(v.ins[0].bits as u32),
            f32::from_bits(v.ins[1].bits as u32),
        );
        assert_eq!(v.outs[0].model == 1, (a < b) && c, "{a} < {b} and {c}");
    }
}

#[test]
fn packed_hard_cases_mix_lanes() {
    let g = gen("add.rn.f16x2", Level::Golden);
    let hard = &g.vectors[..g.counts.hard as usize];
    let is_nan = |h: u128| (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
    // A NaN in one lane beside an ordinary number in the other, both ways.
    assert!(hard
        .iter()
        .any(|v| is_nan(v.ins[0].bits & 0xffff) && !is_nan(v.ins[0].bits >> 16)));
    assert!(hard
        .iter()
        .any(|v| is_nan(v.ins[0].bits >> 16) && !is_nan(v.ins[0].bits & 0xffff)));
}
