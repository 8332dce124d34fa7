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
}
