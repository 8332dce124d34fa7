//! The model values alone: what an interpreter writes into D, without the acceptance sets
//! [`super::mma`] also computes (a judge needs those; an executor does not, and computing them
//! costs more than the model itself).

use super::{config, convert, exact, BitOp, Elem, MmaOp};
use crate::types::FloatFormat;

/// [`super::mma`]'s model values (D, M×N, row-major), or `None` when the matrices do not have
/// the op's sizes or its float types have no configuration.
pub fn mma_model(op: &MmaOp, a: &[u128], b: &[u128], c: &[u128]) -> Option<Vec<u128>> {
    mma_model_kept(op, a, b, c, None)
}

/// [`super::mma_sparse`]'s model values: `kept` (M×K) marks the positions of A the sparsity
/// metadata names; a pruned position's product is +0 whatever B holds. `None` as
/// [`mma_model`], or when `kept` is not M×K.
pub fn mma_model_sparse(op: &MmaOp, a: &[u128], b: &[u128], c: &[u128], kept: &[bool]) -> Option<Vec<u128>> {
    if kept.len() != a.len() {
        return None;
    }
    mma_model_kept(op, a, b, c, Some(kept))
}

fn mma_model_kept(op: &MmaOp, a: &[u128], b: &[u128], c: &[u128], kept: Option<&[bool]>) -> Option<Vec<u128>> {
    let (m, n, k) = op.shape;
    if a.len() != m * k || b.len() != k * n || c.len() != m * n {
        return None;
    }
    if let (Elem::Float(fa), Elem::Float(fb), Elem::Float(fc), Elem::Float(fd)) = (op.a, op.b, op.c, op.d) {
        if fa != FloatFormat::F64 {
            return float_decoded(op, (fa, fb, fc, fd), a, b, c, kept);
        }
    }
    let mut col = vec![0u128; k];
    let mut d = Vec::with_capacity(m * n);
    for j in 0..n {
        for (kk, x) in col.iter_mut().enumerate() {
            *x = b[kk * n + j];
        }
        for i in 0..m {
            let row = &a[i * k..(i + 1) * k];
            let v = match kept {
                None => dot_model(op, row, &col, c[i * n + j])?,
                Some(kept) => {
                    let masked: Vec<u128> = (0..k).map(|kk| if kept[i * k + kk] { col[kk] } else { 0 }).collect();
                    dot_model(op, row, &masked, c[i * n + j])?
                }
            };
            d.push((i * n + j, v));
        }
    }
    d.sort_unstable_by_key(|&(at, _)| at);
    Some(d.into_iter().map(|(_, v)| v).collect())
}

/// The float (not f64) model values as [`super::float_model`] computes them, with A and B
/// decoded once (the per-element path decodes each row and column N and M times; in `wgmma`
/// that decoding was a third of the interpreter's time): an f32 C with an f16 D accumulates in
/// f32 and rounds D once; otherwise C is converted to D's format first. A pruned position of a
/// sparse A multiplies a +0 of B.
fn float_decoded(
    op: &MmaOp,
    (fa, fb, fc, fd): (FloatFormat, FloatFormat, FloatFormat, FloatFormat),
    a: &[u128],
    b: &[u128],
    c: &[u128],
    kept: Option<&[bool]>,
) -> Option<Vec<u128>> {
    let (m, n, k) = op.shape;
    let wide_c = fc == FloatFormat::F32 && fd == FloatFormat::F16;
    let cfg = config(op.arch, op.kind, fa, if wide_c { FloatFormat::F32 } else { fd })?;
    let (da, db) = (cfg.decode_all(fa, a), cfg.decode_all(fb, b));
    let zero = cfg.decode_all(fb, &[0])[0];
    let mut col = Vec::with_capacity(k);
    let mut masked = Vec::with_capacity(k);
    let mut d = vec![0u128; m * n];
    for j in 0..n {
        col.clear();
        col.extend((0..k).map(|kk| db[kk * n + j]));
        for i in 0..m {
            let row = &da[i * k..(i + 1) * k];
            let column = match kept {
                None => &col,
                Some(kept) => {
                    masked.clear();
                    masked.extend((0..k).map(|kk| if kept[i * k + kk] { col[kk] } else { zero }));
                    &masked
                }
            };
            let ci = c[i * n + j];
            d[i * n + j] = if wide_c {
                convert(FloatFormat::F32, FloatFormat::F16, cfg.dot_decoded(row, column, ci))
            } else {
                cfg.dot_decoded(row, column, convert(fc, fd, ci))
            };
        }
    }
    Some(d)
}

/// [`super::dot`]'s model value.
fn dot_model(op: &MmaOp, a_row: &[u128], b_col: &[u128], c: u128) -> Option<u128> {
    Some(match (op.a, op.b, op.c, op.d) {
        (Elem::Float(FloatFormat::F64), ..) => exact::f64_chain(a_row, b_col, c, op.rnd).model,
        (Elem::B1, ..) => exact::b1_dot(op.bit_op.unwrap_or(BitOp::Xor), a_row, b_col, c as u32 as i32).model,
        (Elem::Float(fa), Elem::Float(fb), Elem::Float(fc), Elem::Float(fd)) => {
            super::float_model(op, fa, fb, fc, fd, a_row, b_col, c)?
        }
        (ta, tb, ..) => {
            let ints = |t: Elem, v: &[u128]| -> Option<Vec<i64>> { v.iter().map(|&x| t.int(x)).collect() };
            exact::int_dot(&ints(ta, a_row)?, &ints(tb, b_col)?, c as u32 as i32, op.satfinite).model
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::{mma, Arch, Kind};
    use crate::types::FloatFormat::{F16, F32};

    /// The model values are `mma`'s, element for element.
    #[test]
    fn the_same_values_as_mma() {
        let op = MmaOp::float(Arch::Sm80, Kind::Mma, (16, 8, 16), F16, F32);
        let bits = |i: usize| ((i * 0x2f1 + 0x3a00) & 0x7bff) as u128 | (((i % 3) as u128) << 15 & 0x8000);
        let a: Vec<u128> = (0..256).map(bits).collect();
        let b: Vec<u128> = (0..128).map(|i| bits(i + 7)).collect();
        let c: Vec<u128> = (0..128).map(|i| (0x3f00_0000 + i * 0x1234) as u128).collect();
        let want: Vec<u128> = mma(&op, &a, &b, &c).iter().map(|o| o.model).collect();
        assert_eq!(mma_model(&op, &a, &b, &c), Some(want));
        assert_eq!(mma_model(&op, &a[1..], &b, &c), None);
    }

    /// The decode-once path agrees with `mma` for every input format and accumulator the
    /// configurations distinguish (fp8 with its 13-bit accumulation, the emulated fp8 mma.sync
    /// aligned as f16, bf16, tf32, f16 accumulators), specials and subnormals included.
    #[test]
    fn the_same_values_as_mma_in_every_format() {
        use crate::types::FloatFormat::{Bf16, E4m3, E5m2, Tf32};
        let cases = [
            (Arch::Sm90, Kind::Wgmma, (64, 8, 32), E4m3, F32),
            (Arch::Sm90, Kind::Mma, (16, 8, 32), E5m2, F16),
            (Arch::Sm90, Kind::Mma, (16, 8, 32), E4m3, F32),
            (Arch::Sm89, Kind::Mma, (16, 8, 32), E4m3, F32),
            (Arch::Sm90, Kind::Wgmma, (64, 16, 16), Bf16, F32),
            (Arch::Sm80, Kind::Mma, (16, 8, 8), Tf32, F32),
            (Arch::Sm70, Kind::Wmma, (16, 16, 16), F16, F16),
            (Arch::Sm100, Kind::Mma, (16, 8, 16), F16, F32),
        ];
        for (arch, kind, (m, n, k), input, acc) in cases {
            let op = MmaOp::float(arch, kind, (m, n, k), input, acc);
            // Every bit pattern of the input's width in turn: NaNs, Infs, subnormals, zeros.
            let width = input.bits();
            let bits = |i: usize| ((i as u128).wrapping_mul(0x9e37_79b9) >> 7) & ((1u128 << width) - 1);
            let a: Vec<u128> = (0..m * k).map(bits).collect();
            let b: Vec<u128> = (0..k * n).map(|i| bits(i + 1000)).collect();
            let cw = if acc == F32 { 32 } else { 16 };
            let c: Vec<u128> = (0..m * n).map(|i| bits(i + 77) & ((1u128 << cw) - 1)).collect();
            let want: Vec<u128> = mma(&op, &a, &b, &c).iter().map(|o| o.model).collect();
            assert_eq!(
                mma_model(&op, &a, &b, &c),
                Some(want),
                "{arch:?} {kind:?} {input:?} {acc:?}"
            );
            // Sparse: every third position of A pruned.
            let kept: Vec<bool> = (0..m * k).map(|i| i % 3 != 0).collect();
            let want: Vec<u128> = crate::tensor::mma_sparse(&op, &a, &b, &c, &kept)
                .iter()
                .map(|o| o.model)
                .collect();
            assert_eq!(
                mma_model_sparse(&op, &a, &b, &c, &kept),
                Some(want),
                "sparse {arch:?} {input:?}"
            );
        }
        // An f32 C with an f16 D (wmma): accumulated in f32, D rounded once.
        let mut op = MmaOp::float(Arch::Sm90, Kind::Wmma, (16, 16, 16), F16, F16);
        op.c = Elem::Float(F32);
        let a: Vec<u128> = (0..256).map(|i| (i as u128 * 0x1b3) & 0xffff).collect();
        let b: Vec<u128> = (0..256).map(|i| (i as u128 * 0x2c5 + 9) & 0xffff).collect();
        let c: Vec<u128> = (0..256).map(|i| (i as u128 * 0x9e37_79b9) & 0xffff_ffff).collect();
        let want: Vec<u128> = mma(&op, &a, &b, &c).iter().map(|o| o.model).collect();
        assert_eq!(mma_model(&op, &a, &b, &c), Some(want), "f32 C, f16 D");
    }
}
