//! The model values alone: what an interpreter writes into D, without the acceptance sets
//! [`super::mma`] also computes (a judge needs those; an executor does not, and computing them
//! costs more than the model itself).

use super::{config, convert, exact, BitOp, Elem, MmaOp};
use crate::types::FloatFormat;

/// [`super::mma`]'s model values (D, M×N, row-major), or `None` when the matrices do not have
/// the op's sizes or its float types have no configuration.
pub fn mma_model(op: &MmaOp, a: &[u128], b: &[u128], c: &[u128]) -> Option<Vec<u128>> {
    let (m, n, k) = op.shape;
    if a.len() != m * k || b.len() != k * n || c.len() != m * n {
        return None;
    }
    if let (Elem::Float(fa), Elem::Float(fb), Elem::Float(fc), Elem::Float(fd)) = (op.a, op.b, op.c, op.d) {
        if fa != FloatFormat::F64 {
            // A and B decoded once (the per-element path decodes each row and column N and M
            // times): the same values, the interpreter's tensor-core time cut by a third.
            let cfg = config(op.arch, op.kind, fa, fd)?;
            let (da, db) = (cfg.decode_all(fa, a), cfg.decode_all(fb, b));
            let mut col = Vec::with_capacity(k);
            let mut d = vec![0u128; m * n];
            for j in 0..n {
                col.clear();
                col.extend((0..k).map(|kk| db[kk * n + j]));
                for i in 0..m {
                    d[i * n + j] = cfg.dot_decoded(&da[i * k..(i + 1) * k], &col, convert(fc, fd, c[i * n + j]));
                }
            }
            return Some(d);
        }
    }
    let mut col = vec![0u128; k];
    let mut d = Vec::with_capacity(m * n);
    for j in 0..n {
        for (kk, x) in col.iter_mut().enumerate() {
            *x = b[kk * n + j];
        }
        for i in 0..m {
            d.push((i * n + j, dot_model(op, &a[i * k..(i + 1) * k], &col, c[i * n + j])?));
        }
    }
    d.sort_unstable_by_key(|&(at, _)| at);
    Some(d.into_iter().map(|(_, v)| v).collect())
}

/// [`super::dot`]'s model value.
fn dot_model(op: &MmaOp, a_row: &[u128], b_col: &[u128], c: u128) -> Option<u128> {
    Some(match (op.a, op.b, op.c, op.d) {
        (Elem::Float(FloatFormat::F64), ..) => exact::f64_chain(a_row, b_col, c, op.rnd).model,
        (Elem::B1, ..) => exact::b1_dot(op.bit_op.unwrap_or(BitOp::Xor), a_row, b_col, c as u32 as i32).model,
        (Elem::Float(fa), Elem::Float(fb), Elem::Float(fc), Elem::Float(fd)) => {
            let c = convert(fc, fd, c);
            config(op.arch, op.kind, fa, fd)?.dot(fa, fb, a_row, b_col, c)
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
        }
    }
}
