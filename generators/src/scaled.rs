//! Golden vectors of the block-scaled `mma.sync` forms ([`spec::vector::scaled`]): four per
//! form, the selectors `{byte-id, thread-id}` cycling through the values Table 36 allows
//! (L20070-20104), A and B hard (one element in four a hard value of its format) or random
//! bits, C moderate, the scale factors around 2^0 with their extremes mixed in (ue8m0 2^-127
//! and 2^127 and its NaN 0xff; ue4m3 subnormals, its largest value and its NaN 0x7f).
//!
//! The sparse forms (`mma.sp::ordered_metadata`, §9.7.14.6.3) put the sparsity selector first,
//! cycling through the meaningful ones (only 0: four metadata threads, L23846, L23858), and
//! prune A to the form's structured sparsity as the `mma.sp` vectors do
//! (`matrix::prune_rows`).

use crate::matrix::Gen;
use crate::vectors::{form_seed, GenerateError, Generated, Level, Whole};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use spec::catalog::Form;
use spec::float::Fmt;
use spec::types::FloatFormat;
use spec::vector::form_key;
use spec::vector::scaled::columns;

/// A scale factor: one in eight an extreme of the format, else near 2^0.
fn scale(g: &mut Gen, f: FloatFormat) -> u128 {
    let hard = g.below(8) == 0;
    match f {
        FloatFormat::Ue8m0 if hard => [0u128, 254, 255][g.below(3) as usize],
        // Biased exponents 120..=134: 2^-7 .. 2^7.
        FloatFormat::Ue8m0 => 120 + u128::from(g.below(15)),
        _ if hard => [0x01u128, 0x07, 0x7e, 0x7f][g.below(4) as usize],
        // ue4m3 exponent fields 4..=11 (bias 7): 2^-3 .. 2^4, any mantissa.
        _ => (4 + u128::from(g.below(8))) << 3 | u128::from(g.below(8)),
    }
}

/// An element of A or B: `hard` styles mix in the format's hard values.
fn element(g: &mut Gen, f: FloatFormat, hard: bool) -> u128 {
    let fmt = Fmt::of(f);
    if hard {
        if g.below(4) == 0 {
            g.float_hard(fmt)
        } else {
            g.float_in(fmt, -2, 2)
        }
    } else {
        g.bits(fmt.bits)
    }
}

/// The vectors of a block-scaled form.
pub fn generate(form: &Form, seed: u64, level: Level) -> Result<Generated, GenerateError> {
    let cols = columns(form).ok_or_else(|| GenerateError::NoSemantics {
        form: form.name.clone(),
    })?;
    let op = cols.op;
    let (m, n, k) = op.shape;
    let fseed = form_seed(seed, &form_key(form));
    let mut g = Gen {
        rng: ChaCha8Rng::seed_from_u64(fseed),
    };
    let per = if level == Level::Golden { 4 } else { 32 };
    let mut out = Whole::default();
    // Table 36: byte-id 0..4 (1X), 0 or 2 (2X), 0 (4X); thread-id-a 0..2, thread-id-b 0..4.
    let bytes: &[u128] = match op.vec {
        1 => &[0, 1, 2, 3],
        2 => &[0, 2],
        _ => &[0],
    };
    for i in 0..per {
        let hard = i % 2 == 0;
        let mut ins: Vec<u128> = cols
            .sparsity
            .map(|sp| (i % (4 / sp.threads)) as u128)
            .into_iter()
            .collect();
        ins.extend([
            bytes[i % bytes.len()],
            (i % 2) as u128,
            bytes[(i + 1) % bytes.len()],
            (i % 4) as u128,
        ]);
        let mut a: Vec<u128> = (0..m * k).map(|_| element(&mut g, op.a, hard)).collect();
        if let Some(sp) = &cols.sparsity {
            crate::matrix::prune_rows(op.shape, Some(op.a), sp, &mut g, &mut a);
        }
        ins.extend(a);
        ins.extend((0..k * n).map(|_| element(&mut g, op.b, hard)));
        ins.extend((0..m * n).map(|_| g.float_in(Fmt::of(FloatFormat::F32), -2, 4)));
        ins.extend((0..m * op.vec + op.vec * n).map(|_| scale(&mut g, op.scale)));
        let outs = cols.eval(&ins).expect("the matrices have the form's sizes");
        out.push(ins, outs, hard);
    }
    Ok(out.done(fseed))
}
