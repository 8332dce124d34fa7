//! Golden vectors of the matrix multiply-accumulate forms (`mma.sync`, `wmma.mma`): each vector
//! is one whole `D = A × B + C` ([`spec::vector::matrix`]), its matrices built in one of four
//! styles so that every vector is hard in its own way:
//!
//! 1. **hard**: each element, independently, one of its type's hard values (zeros of both
//!    signs, the smallest and largest subnormals, the smallest normal, ±1, the largest finite
//!    values, infinities, NaN; for integers 0, ±1, the extremes) one time in four, otherwise a
//!    moderate random value;
//! 2. **cancellation**: the second half of each row of A is the negated first half and the
//!    second half of B repeats the first, so every product has its opposite and the exact sum
//!    is C alone — what is left is the tensor core's alignment and truncation; C small;
//! 3. **alignment**: products spread over a range of exponents wider than any accumulator keeps
//!    (terms below the alignment boundary), with all-ones significands so that carries cross
//!    it; for integers, the largest products, so that s32 accumulation wraps or saturates;
//! 4. **random**: every element uniformly random bits (any class).
//!
//! Levels scale the count: golden makes one vector of each style, `one` eight of each.

use crate::vectors::{form_seed, GenerateError, Generated, Level, Whole};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use spec::catalog::Form;
use spec::float::Fmt;
use spec::tensor::Elem;
use spec::tensor::MmaOp;
use spec::types::FloatFormat;
use spec::vector::form_key;
use spec::vector::matrix::{columns, Columns};

/// The styles, in the order vectors cycle through them.
const STYLES: usize = 4;

/// Vectors per style at `level`.
fn per_style(level: Level) -> usize {
    match level {
        Level::Golden => 1,
        _ => 8,
    }
}

pub(crate) struct Gen {
    pub(crate) rng: ChaCha8Rng,
}

impl Gen {
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.rng.next_u64()) * u128::from(n)) >> 64) as u64
    }

    pub(crate) fn bits(&mut self, bits: u32) -> u128 {
        u128::from(self.rng.next_u64()) & ((1u128 << bits) - 1)
    }

    /// A finite value of `f` with an unbiased exponent in `lo..=hi` (clamped to the format's
    /// normal range) and a random significand.
    pub(crate) fn float_in(&mut self, f: &Fmt, lo: i32, hi: i32) -> u128 {
        let (lo, hi) = (lo.max(f.emin()), hi.min(f.emax()).max(lo.max(f.emin())));
        let e = lo + self.below((hi - lo + 1) as u64) as i32;
        let man = self.bits(f.man_bits);
        let neg = f.signed && self.rng.next_u64() & 1 == 1;
        let v = f.pack(neg, (e + f.bias()) as u32, man);
        // The top binade's all-ones significand is NaN in the formats without Inf.
        if f.is_nan(v) {
            f.max_finite(neg)
        } else {
            v
        }
    }

    pub(crate) fn float_hard(&mut self, f: &Fmt) -> u128 {
        let mut list = vec![
            f.zero(false),
            f.zero(true),
            f.pack(false, 0, 1),
            f.pack(true, 0, (1 << f.man_bits) - 1),
            f.min_normal(false),
            f.pack(false, f.bias() as u32, 0),
            f.pack(true, f.bias() as u32, 0),
            f.max_finite(false),
            f.max_finite(true),
        ];
        list.extend(f.inf(false));
        list.extend(f.inf(true));
        if f.is_nan(f.canonical_nan) {
            list.push(f.canonical_nan);
        }
        list[self.below(list.len() as u64) as usize]
    }

    fn int_hard(&mut self, e: Elem) -> u128 {
        let (bits, signed) = int_shape(e);
        let m = (1u128 << bits) - 1;
        let list: Vec<u128> = if signed {
            vec![0, 1, m, m >> 1, (m >> 1) + 1, 2, m - 1]
        } else {
            vec![0, 1, m, m >> 1, 2, m - 1]
        };
        list[self.below(list.len() as u64) as usize] & m
    }
}

/// (bits, signed) of an integer element.
fn int_shape(e: Elem) -> (u32, bool) {
    match e {
        Elem::S32 => (32, true),
        Elem::S8 => (8, true),
        Elem::U8 => (8, false),
        Elem::S4 => (4, true),
        Elem::U4 => (4, false),
        Elem::B1 => (1, false),
        Elem::Float(f) => (Fmt::of(f).bits, true),
    }
}

/// One element of type `e` in `style` (0 hard, 3 random; the structured styles call these for
/// their free elements).
fn element(g: &mut Gen, e: Elem, style: usize, acc: bool) -> u128 {
    match e {
        Elem::Float(f) => {
            let f = Fmt::of(f);
            match style {
                0 if g.below(4) == 0 => g.float_hard(f),
                // Accumulators a little larger than the products' typical size.
                0..=2 => {
                    if acc {
                        g.float_in(f, -2, 4)
                    } else {
                        g.float_in(f, -3, 2)
                    }
                }
                _ => f.pack(false, 0, 0) | g.bits(f.bits) & !((1u128 << f.pad) - 1),
            }
        }
        _ => match style {
            0 if g.below(4) == 0 => g.int_hard(e),
            _ => g.bits(int_shape(e).0),
        },
    }
}

/// The matrices of one vector (A, B, C concatenated, row-major).
fn matrices(op: MmaOp, g: &mut Gen, style: usize) -> Vec<u128> {
    let (m, n, k) = op.shape;
    let mut a: Vec<u128> = (0..m * k).map(|_| element(g, op.a, style, false)).collect();
    let mut b: Vec<u128> = (0..k * n).map(|_| element(g, op.b, style, false)).collect();
    let mut c: Vec<u128> = (0..m * n).map(|_| element(g, op.c, style, true)).collect();
    let float = |e: Elem| match e {
        Elem::Float(f) => Some(Fmt::of(f)),
        _ => None,
    };
    match style {
        // Every product has its opposite: A's second half negated, B's second half repeated.
        1 if k >= 2 => {
            let h = k / 2;
            for r in 0..m {
                for j in 0..h {
                    let x = a[r * k + j];
                    a[r * k + h + j] = match float(op.a) {
                        Some(f) if f.signed => x ^ (1u128 << (f.bits - 1)),
                        Some(_) => x,
                        None => {
                            // The most negative value has no opposite: use its successor.
                            let (bits, signed) = int_shape(op.a);
                            let mask = (1u128 << bits) - 1;
                            let x = if signed && x == 1u128 << (bits - 1) { x + 1 } else { x };
                            a[r * k + j] = x;
                            x.wrapping_neg() & mask
                        }
                    };
                }
            }
            for j in 0..h {
                for col in 0..n {
                    b[(h + j) * n + col] = b[j * n + col];
                }
            }
            if let Some(f) = float(op.c) {
                for x in &mut c {
                    *x = g.float_in(f, -12, -8);
                }
            }
        }
        // Terms on both sides of the alignment boundary, significands all ones.
        2 => {
            if let (Some(fa), Some(fb)) = (float(op.a), float(op.b)) {
                for r in 0..m {
                    for j in 0..k {
                        // Exponents 10 down to -20 (B's down to -9): products 40 binades apart.
                        let e = 10 - ((j * 29 + r * 7) % 31) as i32;
                        let ones = (1u128 << fa.man_bits) - 1;
                        let neg = fa.signed && (j + r) % 5 == 0;
                        let e = e.clamp(fa.emin(), fa.emax());
                        a[r * k + j] = fa.pack(neg, (e + fa.bias()) as u32, ones);
                    }
                }
                for (i, x) in b.iter_mut().enumerate() {
                    let ones = (1u128 << fb.man_bits) - 1;
                    let e = (-((i % 10) as i32)).clamp(fb.emin(), fb.emax());
                    *x = fb.pack(false, (e + fb.bias()) as u32, ones);
                }
            } else {
                // The largest products of the type, so s32 accumulation wraps or saturates.
                let (bits, signed) = int_shape(op.a);
                let top = if signed {
                    (1u128 << (bits - 1)) - 1
                } else {
                    (1u128 << bits) - 1
                };
                let lowest = if signed { 1u128 << (bits - 1) } else { 0 };
                for (i, x) in a.iter_mut().enumerate() {
                    *x = if i % 3 == 2 { lowest } else { top };
                }
                let (bits, signed) = int_shape(op.b);
                let top = if signed {
                    (1u128 << (bits - 1)) - 1
                } else {
                    (1u128 << bits) - 1
                };
                b.fill(top);
                for (i, x) in c.iter_mut().enumerate() {
                    *x = [0x7fff_ff00, 0x8000_0000, 0x7fff_ffff, 0][i % 4];
                }
            }
        }
        _ => {}
    }
    a.extend(b);
    a.extend(c);
    a
}

/// The layout vector's one-hot A with its structured sparsity: in each block, the stored
/// positions are the one (if any) and the lowest others, stored as −0 (floats; see [`prune`]).
fn prune_one_hot(op: MmaOp, sp: &spec::matrix::Sparsity, a: &mut [u128]) {
    let (m, _, k) = op.shape;
    let unit = if sp.block == 8 { 2 } else { 1 };
    let keep = sp.nonzeros / unit;
    for row in 0..m {
        for b in 0..k / sp.block {
            let cells = &mut a[row * k + b * sp.block..][..sp.block];
            let mut kept = (0..sp.block / unit)
                .filter(|&u| cells[u * unit..(u + 1) * unit].iter().any(|&x| x != 0))
                .count();
            for u in 0..sp.block / unit {
                for x in 0..unit {
                    let cell = &mut cells[u * unit + x];
                    if *cell == 0 && kept < keep {
                        if let Elem::Float(f) = op.a {
                            *cell = Fmt::of(f).zero(true);
                        }
                        if x + 1 == unit {
                            kept += 1;
                        }
                    }
                }
            }
        }
    }
}

/// An `mma.sp` vector: the selector (cycling through the meaningful ones), then the matrices
/// of `style` with A pruned to the sparsity's pattern: in each block, `nonzeros` positions
/// (pairs, for pairwise 4:8) chosen at random keep their values, the others become +0.
fn sparse(cols: &Columns, sp: &spec::matrix::Sparsity, g: &mut Gen, i: usize, style: usize) -> Vec<u128> {
    let mut ins = vec![(i % (4 / sp.threads)) as u128];
    let mut mats = matrices(cols.op, g, style);
    prune(cols.op, sp, g, &mut mats);
    ins.extend(mats);
    ins
}

/// A (the first M×K elements of `a`) pruned to the sparsity's pattern: in each block,
/// `nonzeros` positions (pairs, for pairwise 4:8) chosen at random are stored, the others +0;
/// a stored float +0 becomes −0, so that the stored elements are exactly those that are not
/// +0 (which is how a line says which they are, and why a negated A leaves the pruned ones
/// +0). An integer A is never negated: its stored zeros stay 0.
fn prune(op: MmaOp, sp: &spec::matrix::Sparsity, g: &mut Gen, a: &mut [u128]) {
    let float = match op.a {
        Elem::Float(f) => Some(f),
        _ => None,
    };
    prune_rows(op.shape, float, sp, g, a);
}

/// [`prune`] for an M×K A (`shape` is M×N×K) of floats of format `float` (`None`: integers);
/// also the block-scaled sparse forms' ([`crate::scaled`]).
pub(crate) fn prune_rows(
    shape: (usize, usize, usize),
    float: Option<FloatFormat>,
    sp: &spec::matrix::Sparsity,
    g: &mut Gen,
    a: &mut [u128],
) {
    let (m, _, k) = shape;
    let unit = if sp.block == 8 { 2 } else { 1 };
    let (units, keep) = (sp.block / unit, sp.nonzeros / unit);
    for row in 0..m {
        for b in 0..k / sp.block {
            let mut kept: Vec<usize> = Vec::new();
            while kept.len() < keep {
                let u = g.below(units as u64) as usize;
                if !kept.contains(&u) {
                    kept.push(u);
                }
            }
            for u in 0..units {
                for x in 0..unit {
                    let cell = &mut a[row * k + b * sp.block + u * unit + x];
                    if !kept.contains(&u) {
                        *cell = 0;
                    } else if *cell == 0 {
                        if let Some(f) = float {
                            *cell = Fmt::of(f).zero(true);
                        }
                    }
                }
            }
        }
    }
}

/// `v` (0..) as an element of type `e`: a small integer, exact in every format.
fn small(e: Elem, v: u64) -> u128 {
    match e {
        Elem::Float(f) => spec::tensor::convert(FloatFormat::F64, f, u128::from((v as f64).to_bits())),
        _ => u128::from(v),
    }
}

/// A `wgmma` vector (64×N×K, N up to 256; 2,112 forms): whole matrices of every style would
/// make files of megabytes, so each form has two vectors. The *layout* vector (even `i`) is
/// small integers everywhere (see below), exact, every element of D telling whether the
/// descriptors, swizzles, transposes (A or B MN-major, in turn with N) and fragments put each
/// element where it belongs. The *block* vector (odd `i`) holds one 16×8 block of D in style
/// hard, cancellation or alignment (in turn with N: its rows of A, columns of B and block of
/// C), zeros elsewhere, the block moving with N; it runs without the accumulator
/// (`scale-d` 0) and with B negated, or with A negated, in turn.
fn warpgroup(cols: &Columns, g: &mut Gen, i: usize) -> Vec<u128> {
    let op = cols.op;
    let (m, n, k) = op.shape;
    let v = i % 2;
    // What varies from form to form (N) and, at larger levels, from pair to pair.
    let turn = n / 8 + i / 2;
    let scalar = |name: &str| -> u128 {
        let on = match name {
            // The block vector: without the accumulator, or with A or B negated.
            "scale_d" => v == 0 || turn % 2 == 1,
            "imm_scale_a" => v == 0 || turn % 2 == 1,
            "imm_scale_b" => v == 0 || turn.is_multiple_of(2),
            // The layout vector: A or B transposed (MN-major), over the whole matrix.
            "imm_trans_a" => v == 0 && turn % 2 == 1,
            "imm_trans_b" => v == 0 && turn.is_multiple_of(2),
            // The sparsity selector: every meaningful one in turn.
            "sp_sel" => return cols.sparsity.map_or(0, |sp| (i % (4 / sp.threads)) as u128),
            _ => false,
        };
        match (name.starts_with("imm_scale"), on) {
            (true, true) => 1,
            (true, false) => 0xffff_ffff,
            (false, on) => u128::from(on),
        }
    };
    let mut ins: Vec<u128> = cols.scalars.iter().map(|x| scalar(x.name)).collect();
    if v == 0 {
        // Row m of A picks column (5m mod K) of B: every row and column of A and B is used,
        // D = 1 + B[5m mod K][n] is 1 or 2 (A one-hot, B in {0, 1}, C = 1), so a misplaced
        // element shows while the files stay small (rows of D repeat every K rows). C is not
        // varied: in wgmma it is D's own registers, so it cannot have another layout.
        let mut a = vec![small(op.a, 0); m * k];
        for r in 0..m {
            a[r * k + (5 * r) % k] = small(op.a, 1);
        }
        if let Some(sp) = &cols.sparsity {
            prune_one_hot(op, sp, &mut a);
        }
        ins.extend(a);
        ins.extend((0..k * n).map(|_| small(op.b, g.below(2))));
        ins.extend((0..m * n).map(|_| small(op.c, 1)));
        return ins;
    }
    let (bm, bn) = (16.min(m), 8.min(n));
    let (r0, c0) = (bm * (turn % (m / bm)), bn * ((turn * 5) % (n / bn)));
    let sub = MmaOp {
        shape: (bm, bn, k),
        ..op
    };
    // The block: hard, cancelling or aligned, in turn with N.
    let style = turn % 3;
    let block = matrices(sub, g, style);
    let (sa, sb) = (bm * k, k * bn);
    let mut a = vec![small(op.a, 0); m * k];
    let mut b = vec![small(op.b, 0); k * n];
    let mut c = vec![small(op.c, 0); m * n];
    for r in 0..bm {
        a[(r0 + r) * k..(r0 + r + 1) * k].copy_from_slice(&block[r * k..(r + 1) * k]);
        for col in 0..bn {
            c[(r0 + r) * n + c0 + col] = block[sa + sb + r * bn + col];
        }
    }
    for kk in 0..k {
        for col in 0..bn {
            b[kk * n + c0 + col] = block[sa + kk * bn + col];
        }
    }
    if let Some(sp) = &cols.sparsity {
        prune(op, sp, g, &mut a);
    }
    ins.extend(a);
    ins.extend(b);
    ins.extend(c);
    ins
}

/// The vectors of a matrix form ([`spec::vector::matrix::columns`]).
pub fn generate(form: &Form, seed: u64, level: Level) -> Result<Generated, GenerateError> {
    let cols = columns(form).ok_or_else(|| GenerateError::NoSemantics {
        form: form.name.clone(),
    })?;
    let fseed = form_seed(seed, &form_key(form));
    let mut g = Gen {
        rng: ChaCha8Rng::seed_from_u64(fseed),
    };
    let mut out = Whole::default();
    // wgmma: the layout vector and a block (see `warpgroup`).
    let wgmma = cols.op.kind == spec::tensor::Kind::Wgmma;
    let styles = if wgmma { 2 } else { STYLES };
    for i in 0..per_style(level) * styles {
        let style = i % styles;
        let ins = match &cols.sparsity {
            _ if wgmma => warpgroup(&cols, &mut g, i),
            Some(sp) => sparse(&cols, sp, &mut g, i, style),
            None => matrices(cols.op, &mut g, style),
        };
        let outs = cols.eval(&ins).expect("the matrices have the form's sizes");
        out.push(ins, outs, style != 3);
    }
    Ok(out.done(fseed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::catalog::catalog;

    fn form(name: &str) -> &'static Form {
        let cat = catalog();
        &cat.forms[cat.by_name(name)[0]]
    }

    #[test]
    fn deterministic_and_round_trips() {
        let f = form("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
        let a = generate(f, 1, Level::Golden).unwrap();
        let b = generate(f, 1, Level::Golden).unwrap();
        assert_eq!(a.vectors, b.vectors);
        assert_eq!(a.vectors.len(), STYLES);
        for v in &a.vectors {
            let line = spec::vector::format_line(f, v);
            assert_eq!(&spec::vector::parse_line(f, &line).unwrap(), v);
        }
        assert_ne!(generate(f, 2, Level::Golden).unwrap().vectors, a.vectors);
    }

    /// The cancellation style's exact sum is C: on an integer form D = C exactly.
    #[test]
    fn cancellation_cancels() {
        let f = form("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32");
        let g = generate(f, 1, Level::Golden).unwrap();
        let v = &g.vectors[1];
        let c = &v.ins[512 + 256..];
        assert!(v.outs.iter().zip(c).all(|(d, c)| d.model == c.bits));
    }
}
