//! Body of the `spec_vs_softfloat` fuzz target: the spec's IEEE operations against Berkeley
//! SoftFloat 3 (`softfloat-wrapper`), bit for bit.
//!
//! Included with `#[path]` by `fuzz/fuzz_targets/spec_vs_softfloat.rs` and by
//! `tests/fuzz_seeds.rs`: SoftFloat is a C library and stays a dev-dependency of `ptxconf`, so this
//! body cannot live in the library with the others (`src/fuzz_targets.rs`).
//!
//! Input bytes: two bytes pick a form from [`table`] (add, sub, mul, fma, mad, div, sqrt, rcp in
//! f16/f32/f64 and f16x2/f32x2 with `.rn .rz .rm .rp`, `.ftz`, `.sat`; mixed-precision
//! `add/sub/fma.f32.{f16,bf16}`; cvt float↔float, float↔int and round-to-integral), then each
//! operand lane takes a tag byte and its bits: raw bits, a special value (zeros, subnormal and
//! normal limits, ties, infinities, NaNs), a value with a chosen exponent (so sums cancel and
//! results land near the subnormal and overflow boundaries), or a neighbour of the previous
//! operand. Missing bytes read as zero, so every input checks one operation.
//!
//! The form is evaluated through the catalog (`spec::eval::eval`, e.g. on `add.rn.f32`) and its
//! outcome compared with SoftFloat's result, computed without the spec by the reference model of
//! `generators/tests/softfloat.rs` ([`softfloat_ref`], shared: `.ftz` and `.sat` as layers around
//! SoftFloat, float→int saturating, mixed precision widened exactly to f32) and judged by its
//! verdict rules, packed results lane by lane. Results in bf16 other than round-to-integral are
//! not checked here.

#[path = "../../generators/tests/softfloat_ref/mod.rs"]
mod softfloat_ref;

use generators::float::{IntType, Layout};
use ptxconf::fuzz_targets::{Finding, Reach};
use softfloat_ref::*;
use spec::value::{Args, Input, Outcome};
use std::sync::OnceLock;

/// A form of the table and its catalog form, resolved once (`None`: the name is not one catalog
/// form, a finding).
struct Entry {
    c: Check,
    form: Option<spec::catalog::FormId>,
}

/// Every form the target checks.
fn table() -> &'static [Entry] {
    static TABLE: OnceLock<Vec<Entry>> = OnceLock::new();
    TABLE.get_or_init(build_table)
}

/// The order is the input encoding (the seeds pick forms by index): append, do not reorder.
fn build_table() -> Vec<Entry> {
    let all = [Fp::F16, Fp::Bf16, Fp::F32, Fp::F64];
    let mut v = arith_checks(&[Fp::F32, Fp::F64], &OPS);
    // f16 and f16x2: .rn only (§9.7.4), .ftz, .sat; f32x2 (sm_100): every mode, .ftz.
    for &(opcode, op) in &OPS[..4] {
        for ftz in [false, true] {
            for sat in [false, true] {
                for lanes in [1, 2] {
                    v.push(Check::arith(opcode, op, Fp::F16, Rnd::N, ftz, sat, lanes));
                }
            }
            for r in RNDS {
                v.push(Check::arith(opcode, op, Fp::F32, r, ftz, false, 2));
            }
        }
    }
    // Mixed precision (sm_100): add, sub, fma with f16/bf16 sources and an f32 addend.
    for src in [Fp::F16, Fp::Bf16] {
        for (opcode, op) in [OPS[0], OPS[1], OPS[3]] {
            for r in RNDS {
                for sat in [false, true] {
                    v.push(Check::mixed(opcode, op, src, r, sat));
                }
            }
        }
    }
    v.extend(int_to_float_checks(&[Fp::F16, Fp::F32, Fp::F64]));
    v.extend(float_to_int_checks(&all));
    v.extend(convert_checks(|_, dst| dst != Fp::Bf16));
    v.extend(integral_checks(&all));
    let cat = spec::catalog::catalog();
    v.into_iter()
        .map(|c| {
            let found = cat.lookup(&c.name).ok();
            let form = found.filter(|f| f.forms.len() == 1).map(|f| f.forms[0]);
            Entry { c, form }
        })
        .collect()
}

/// The names of the forms the target checks, and for each whether the catalog has it as exactly
/// one form with semantics in the spec (the seed test requires all).
#[allow(dead_code)]
pub fn forms() -> Vec<(String, bool)> {
    let cat = spec::catalog::catalog();
    table()
        .iter()
        .map(|e| {
            let ok = e.form.is_some_and(|i| {
                let f = &cat.forms[i];
                spec::eval::semantics(f).is_some() && f.inputs.len() == e.c.srcs.len() && f.outputs.len() == 1
            });
            (e.c.name.clone(), ok)
        })
        .collect()
}

/// The table entry an input picks (its first two bytes).
fn pick(b: &mut Bytes) -> &'static Entry {
    let table = table();
    &table[(b.byte() as usize | (b.byte() as usize) << 8) % table.len()]
}

/// SoftFloat's result lanes for operand lanes `ops` (one `Vec` per operand).
fn answers(c: &Check, ops: &[Vec<u64>]) -> Vec<u64> {
    (0..c.lanes as usize)
        .map(|l| {
            let x: Vec<u64> = ops.iter().map(|ls| ls[l]).collect();
            c.reference.answer(&x)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Operands from bytes.

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    /// `n` bytes, little-endian.
    fn bits(&mut self, n: u32) -> u64 {
        (0..n.div_ceil(8)).fold(0u64, |acc, i| acc | (self.byte() as u64) << (8 * i))
    }
}

/// Values where rounding, flushing and conversion change behaviour.
fn special(fp: Fp, k: u8) -> u64 {
    let f = fp.format();
    let (mb, emax, bias) = (f.man_bits as u64, f.exp_all_ones(), f.bias() as u64);
    let man_all = f.man_all_ones();
    let p = |e: u64, man: u64| f.encode(false, e, man);
    let vals = [
        0,
        1,                                     // smallest subnormal
        man_all,                               // largest subnormal
        1 << (mb - 1),                         // a subnormal half way
        p(1, 0),                               // smallest normal
        p(1, 1),                               //
        p(emax - 1, man_all),                  // largest finite
        p(emax - 1, man_all - 1),              //
        p(emax, 0),                            // infinity
        p(emax, f.quiet_bit()),                // quiet NaN
        p(emax, 1),                            // signalling NaN
        p(emax, man_all),                      // NaN, every payload bit
        one(f),                                // 1.0
        p(bias - 1, man_all),                  // just below 1.0
        p(bias, 1),                            // just above 1.0
        p(bias - 1, 0),                        // 0.5
        p(bias, 1 << (mb - 1)),                // 1.5
        p(bias + 1, 1 << (mb - 2)),            // 2.5
        p(bias + mb, 0),                       // 2^mb: the last exponent with a fraction bit
        p(bias + mb - 1, man_all),             // largest value with a fraction
        p((bias + 31).min(emax - 1), 0),       // 2^31
        p((bias + 32).min(emax - 1), 0),       // 2^32
        p((bias + 63).min(emax - 1), 0),       // 2^63
        p((bias + 64).min(emax - 1), 0),       // 2^64
        p((bias + 15).min(emax - 1), 0),       // 2^15
        p((bias + 7).min(emax - 1), 0),        // 2^7
        p((bias + 31).min(emax - 1), man_all), // just below 2^32
        p(bias + 1, 0),                        // 2.0
        p(bias - 1, 1),                        // just above 0.5
    ];
    let v = vals[(k & 0x7f) as usize % vals.len()];
    if k & 0x80 != 0 {
        v | f.sign_mask()
    } else {
        v
    }
}

fn int_special(t: IntType, k: u8) -> u64 {
    let vals: [i128; 16] = [
        0,
        1,
        -1,
        t.min(),
        t.max(),
        t.min() + 1,
        t.max() - 1,
        (1 << 24) + 1, // the first integer f32 cannot hold
        (1 << 53) + 1, // f64's
        (1 << 11) + 1, // f16's
        65504,         // largest f16
        65520,         // f16 rounding to infinity in round-to-nearest
        (1 << 24) + 3,
        -(1 << 24) - 1,
        (1 << 62) + 1,
        (1 << 63) - 512,
    ];
    (vals[k as usize % vals.len()] as u64) & t.mask()
}

/// One lane's bits for type `ty`; `prev` is the previous lane's or operand's (same type).
fn operand(b: &mut Bytes, ty: Ty, prev: Option<u64>) -> u64 {
    let tag = b.byte();
    match ty {
        Ty::I(t) => match tag % 2 {
            0 => b.bits(t.bits) & t.mask(),
            _ => int_special(t, b.byte()),
        },
        Ty::F(fp) => {
            let f = fp.format();
            match tag % 4 {
                0 => b.bits(f.width()) & f.width_mask(),
                1 => special(fp, b.byte()),
                2 => {
                    // A chosen exponent, spread over the whole range, and a random fraction.
                    let e = b.bits(16) % (f.exp_all_ones() + 1);
                    let man = b.bits(f.man_bits) & f.man_all_ones();
                    f.encode(tag & 4 != 0, e, man)
                }
                _ => {
                    // A neighbour of the previous operand, possibly negated: sums that cancel.
                    let p = prev.unwrap_or_else(|| one(f));
                    let delta = b.byte() as i8 as i64;
                    let n = (p as i64).wrapping_add(delta) as u64 & f.width_mask();
                    if tag & 4 != 0 {
                        n ^ f.sign_mask()
                    } else {
                        n
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The body.

/// Runs one input: picks a form and its operands, evaluates it on the spec and on SoftFloat, and
/// returns the difference as a report.
pub fn spec_vs_softfloat(data: &[u8]) -> Result<Reach, Finding> {
    let mut b = Bytes(data);
    let Entry { c, form } = pick(&mut b);
    let cat = spec::catalog::catalog();
    let Some(fi) = *form else {
        return Err(format!("spec_vs_softfloat: `{}` is not one catalog form", c.name));
    };
    let form = &cat.forms[fi];
    let Some(sem) = spec::eval::semantics(form) else {
        return Err(format!("spec_vs_softfloat: `{}` has no semantics in the spec", c.name));
    };
    // Operands lane by lane; each lane's neighbour is the previous operand's same lane, or the
    // previous lane.
    let mut lanes: Vec<Vec<u64>> = Vec::new();
    let mut prev: Option<u64> = None;
    for (i, &ty) in c.srcs.iter().enumerate() {
        let above = lanes.last().filter(|_| i > 0 && c.srcs[i - 1] == ty);
        let mut ls = Vec::new();
        for l in 0..c.lanes as usize {
            let p = above.map_or(prev, |v| Some(v[l]));
            let x = operand(&mut b, ty, p);
            prev = Some(x);
            ls.push(x);
        }
        lanes.push(ls);
    }
    let ins: Vec<Input> = c
        .srcs
        .iter()
        .zip(&lanes)
        .map(|(ty, ls)| Input::bits(pack(ty.width(), ls)))
        .collect();
    let want = answers(c, &lanes);
    let res = sem(form, &Args { ins: &ins, dsel: None });
    let Some(why) = judge(c, &res, |i, l| lanes[i][l], &want) else {
        return Ok(Reach::Checked);
    };
    let ops: Vec<String> = c
        .srcs
        .iter()
        .zip(&ins)
        .map(|(t, x)| hex(t.width() * c.lanes, x.bits))
        .collect();
    Err(format!(
        "spec_vs_softfloat: {} {}: {why}\n  {}\n  SoftFloat {}\n  (`ptxconf eval {} {}`)",
        c.name,
        ops.join(" "),
        describe(c, &res),
        hex(c.dst.width() * c.lanes, pack(c.dst.width(), &want)),
        c.name,
        ops.join(" ")
    ))
}

// ---------------------------------------------------------------------------------------------
// Seeds and known answers (used by tests/fuzz_seeds.rs).

fn find(name: &str) -> Option<&'static Check> {
    table().iter().map(|e| &e.c).find(|c| c.name == name)
}

/// The name of the form an input checks.
#[allow(dead_code)]
pub fn form_of(data: &[u8]) -> &'static str {
    &pick(&mut Bytes(data)).c.name
}

/// The input that checks form `name` on these operand lanes (raw bits, lane 0 first, operands in
/// PTX order), or `None` when the target does not check `name`.
#[allow(dead_code)]
pub fn encode(name: &str, lanes: &[u64]) -> Option<Vec<u8>> {
    let i = table().iter().position(|e| e.c.name == name)?;
    let c = &table()[i].c;
    let mut v = vec![i as u8, (i >> 8) as u8];
    let widths = c
        .srcs
        .iter()
        .flat_map(|t| std::iter::repeat_n(t.width(), c.lanes as usize));
    for (w, &x) in widths.zip(lanes) {
        v.push(0); // tag: raw bits
        v.extend_from_slice(&x.to_le_bytes()[..w.div_ceil(8) as usize]);
    }
    Some(v)
}

/// SoftFloat's reference for one lane of form `name` (the harness's own answer, for known-answer
/// tests of the harness).
#[allow(dead_code)]
pub fn reference_of(name: &str, operands: &[u64]) -> Option<u64> {
    Some(find(name)?.reference.answer(operands))
}

/// The verdict on an outcome of form `name` for operand lanes `operands` (one `Vec` per operand):
/// `None` when acceptable, else why not (for tests of the verdict itself).
#[allow(dead_code)]
pub fn verdict_of(name: &str, operands: &[Vec<u64>], out: &Outcome) -> Option<String> {
    let c = find(name)?;
    verdict(c, |i, l| operands[i][l], out, &answers(c, operands))
}
