//! Tensor-core results recorded on an NVIDIA H200 (sm_90, driver 580.159.04, CUDA 13.0,
//! 2026-11-26) where the spec of the time disagreed: `corpus/tensor-cores/h200/mismatches.txt.gz`
//! holds, per record, the form, the golden vector line the kernel ran (inputs, the old expected
//! values) and the 32-bit or 16-bit words the H200 wrote to D. Every recorded `wmma.mma`,
//! `mma.sync` and `mma.sp` mismatch is there, and the `wgmma.mma_async.sp` ones of N ≤ 16
//! (`corpus/findings/h200/tensor-cores.md`).
//!
//! The fixed spec must reproduce every word the H200 wrote, bit for bit:
//!
//! - dense and 16/32-bit sparse forms: [`spec::vector::matrix::Columns::eval`]'s model values
//!   of the line's inputs are the H200's words (the pruned positions of a sparse A are not
//!   multiplied; an f32 C of a `wmma` with an f16 D accumulates in f32);
//! - 8- and 4-bit sparse forms: the kernel that ran built its metadata with the old reading
//!   ([`MetaLayout::BothRows`]); the H200's words are what the new reading
//!   ([`MetaLayout::RowPerThread`]) makes of that metadata: the dense A the H200 multiplied is
//!   rebuilt from the old compression with the new layout, then evaluated.

use flate2::read::GzDecoder;
use spec::catalog::{catalog, Form};
use spec::matrix::sparse::MetaLayout;
use spec::vector::matrix::{columns, Columns};
use std::collections::HashMap;
use std::io::Read;

struct Record {
    form: String,
    vector: String,
    h200: Vec<u128>,
}

fn records() -> Vec<Record> {
    let path =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/tensor-cores/h200/mismatches.txt.gz");
    let mut s = String::new();
    GzDecoder::new(std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .read_to_string(&mut s)
        .unwrap();
    let mut out = Vec::new();
    let mut lines = s.lines();
    while let Some(form) = lines.next() {
        let vector = lines.next().expect("a vector line");
        let h200 = lines.next().expect("an h200 line");
        out.push(Record {
            form: form.strip_prefix("form ").expect("form").to_owned(),
            vector: vector.strip_prefix("vector ").expect("vector").to_owned(),
            h200: h200
                .strip_prefix("h200 ")
                .expect("h200")
                .split_whitespace()
                .map(|w| u128::from_str_radix(w, 16).unwrap())
                .collect(),
        });
    }
    out
}

fn forms() -> HashMap<String, &'static Form> {
    catalog().forms.iter().map(|f| (spec::vector::form_key(f), f)).collect()
}

/// The inputs the H200 multiplied: for an 8/4-bit sparse form, A as the old metadata reading
/// compressed it and the new one reads it back; otherwise the line's own.
fn hardware_inputs(cols: &Columns, ins: &[u128]) -> Vec<u128> {
    let Some(sp) = cols.sparsity else {
        return ins.to_vec();
    };
    if sp.layout == MetaLayout::BothRows {
        return ins.to_vec();
    }
    let s = cols.scalars.len();
    let k = cols.op.shape.2;
    let a_len = cols.ins[0].len();
    // The selector: `f` of `mma.sp`, `sp_sel` of `wgmma` (0 where absent, as the kernel).
    let f = cols
        .scalars
        .iter()
        .position(|x| x.name == "f" || x.name == "sp_sel")
        .map_or(0, |p| ins[p] as u32);
    let old = spec::matrix::Sparsity {
        layout: MetaLayout::BothRows,
        ..sp
    };
    let mut out = ins.to_vec();
    let dense: Vec<u64> = ins[s..s + a_len].iter().map(|&x| x as u64).collect();
    for (w, slab) in dense.chunks(16 * k).enumerate() {
        let (c, e) = old.compress(k, slab, f).expect("the kernel's compression");
        let (hw, _) = sp.decompress_kept(k, &c, &e, f).expect("valid fields");
        for (i, v) in hw.into_iter().enumerate() {
            out[s + 16 * k * w + i] = u128::from(v);
        }
    }
    out
}

/// What a record's group is held to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Held {
    /// Every model value is the H200's word: `wmma` with an f32 C and an f16 D; integer
    /// `mma.sp` and `wgmma.mma_async.sp` (exact arithmetic: the metadata layout is all).
    Model,
    /// Every H200 word lies in the acceptance set: floating-point sparse forms (how the H200
    /// groups the K/2 stored products is not modelled, so the model value may differ).
    Accepted,
    /// Open: `wmma` tf32 and fp8 `mma.sync` with an f16 D. Every word outside the set is a NaN
    /// where the spec expects an exact ±Inf (an infinite input meeting finite products that
    /// overflow; `corpus/findings/h200/tensor-cores.md`, not modelled yet).
    InfBecomesNan,
}

fn held(form: &Form, cols: &Columns) -> Held {
    use spec::tensor::Elem;
    let float = matches!(cols.op.a, Elem::Float(_));
    match (form.opcode, cols.sparsity.is_some(), float) {
        (_, true, false) => Held::Model,
        (_, true, true) => Held::Accepted,
        ("wmma", false, _) if cols.op.c != cols.op.d => Held::Model,
        _ => Held::InfBecomesNan,
    }
}

#[test]
fn the_fixed_spec_gives_every_recorded_h200_word() {
    let forms = forms();
    let recs = records();
    assert!(recs.len() > 300, "{} records", recs.len());
    let mut words: HashMap<Held, usize> = HashMap::new();
    let mut open = 0;
    for r in &recs {
        let form = forms.get(&r.form).unwrap_or_else(|| panic!("no form {}", r.form));
        let cols = columns(form).unwrap_or_else(|| panic!("{} has no matrix columns", r.form));
        let v = spec::vector::parse_line(form, &r.vector).unwrap_or_else(|e| panic!("{}: {e}", r.form));
        let ins: Vec<u128> = v.ins.iter().map(|i| i.bits).collect();
        let d = cols
            .eval(&hardware_inputs(&cols, &ins))
            .expect("inputs of the right size");
        assert_eq!(d.len(), r.h200.len(), "{}", r.form);
        let how = held(form, &cols);
        let dfmt = match cols.op.d {
            spec::tensor::Elem::Float(f) => Some(spec::float::format::Fmt::of(f)),
            _ => None,
        };
        let bad: Vec<String> = d
            .iter()
            .zip(&r.h200)
            .enumerate()
            .filter(|(_, (o, &h))| match how {
                Held::Model => o.model != h,
                Held::Accepted => !o.accepts(h),
                Held::InfBecomesNan => {
                    let f = dfmt.expect("a float D");
                    let inf_to_nan = o.accept == spec::value::Accept::Exact
                        && f.inf(false)
                            .is_some_and(|i| i == o.model || f.inf(true) == Some(o.model))
                        && f.is_nan(h);
                    open += usize::from(!o.accepts(h) && inf_to_nan);
                    !o.accepts(h) && !inf_to_nan
                }
            })
            .map(|(i, (o, h))| format!("D[{i}] spec {:x} h200 {h:x}", o.model))
            .take(4)
            .collect();
        assert!(bad.is_empty(), "{} ({how:?}): {bad:?}", r.form);
        *words.entry(how).or_default() += d.len();
    }
    // 3,584 + 57,344 words held to the model, 48,128 to the sets, 1,920 open.
    assert_eq!(words.get(&Held::Model), Some(&(3_584 + 24_576 + 32_768)), "{words:?}");
    assert_eq!(words.get(&Held::Accepted), Some(&(7_168 + 40_960)), "{words:?}");
    assert_eq!(words.get(&Held::InfBecomesNan), Some(&(896 + 1_024)), "{words:?}");
    assert!(
        open > 0,
        "the open Inf → NaN disagreements are gone: update the finding"
    );
}
