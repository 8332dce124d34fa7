//! The model values alone: what an interpreter writes into D, without the acceptance sets
//! [`super::mma`] also computes (a judge needs those; an executor does not, and computing them
//! costs more than the model itself).

use super::{exact, BitOp, Elem, MmaOp};
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
}
