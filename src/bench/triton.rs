//! The suite's real-world kernels: Triton 3.9's softmax and layer norm from corpus/ptx/triton
//! (the sm_80 builds, unedited), launched over many more rows than the corpus's launches (one
//! row per CTA, as Triton's grid is; the kernels take the row count from the grid and the row
//! length from a parameter, at most their BLOCK of 64 columns).
//!
//! Their twins compute in f64. Triton lowers `exp`, `/` and `sqrt` to approximate instructions
//! (`ex2.approx.f32`, `div.full.f32`, `sqrt.approx.ftz.f32`), so the outputs are compared under
//! the corpus's rules for the same kernels (`softmax.sm80.compare.json`,
//! `layer_norm.sm80.compare.json`), whose error bounds hold for these inputs because they are
//! drawn the same way: softmax inputs k/2^22 in [-2, 2) over 50 columns, layer-norm inputs
//! multiples of 1/8 in [-2, 2] over 48 columns (the premises the bounds need — every row's
//! variance at least 0.4 and the evaluated bound on `y` below 1e-4 — are checked by a test).

use super::suite::{Arg, Rule, Size, Twin, Workload};

const SOFTMAX_PTX: &str = include_str!("../../corpus/ptx/triton/softmax.sm80.ptx");
const LAYER_NORM_PTX: &str = include_str!("../../corpus/ptx/triton/layer_norm.sm80.ptx");

/// Row stride and Triton's BLOCK (columns per program) of both kernels.
const STRIDE: usize = 64;
/// Columns of the softmax rows (as in the corpus launch).
const SOFTMAX_COLS: usize = 50;
/// Columns of the layer-norm rows (as in the corpus launch).
const LN_COLS: usize = 48;
/// Layer norm's eps, 2^-10 (as in the corpus launch).
const LN_EPS: f32 = 1.0 / 1024.0;
/// Triton's two scratch buffers (never touched by these kernels; 256 bytes as in the corpus).
const SCRATCH: usize = 256;

fn rows(size: Size) -> usize {
    match size {
        Size::Full => 4096,
        Size::Quick => 8,
    }
}

/// splitmix64 of `salt · 2^32 + i`.
fn mix(salt: u64, i: u64) -> u64 {
    let mut z = (salt << 32).wrapping_add(i).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect()
}

fn f32_at(b: &[u8], i: usize) -> f32 {
    f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
}

/// Softmax inputs: k/2^22 for k uniform in [-2^23, 2^23), every column of every row.
fn softmax_input(rows: usize) -> Vec<f32> {
    (0..rows * STRIDE)
        .map(|i| ((mix(3, i as u64) >> 40) as i64 - (1 << 23)) as f32 / (1u32 << 22) as f32)
        .collect()
}

/// The `softmax` benchmark.
pub(super) fn softmax(size: Size) -> Workload {
    let rows = rows(size);
    let x = softmax_input(rows);
    Workload {
        shape: format!("softmax of {rows} rows x {SOFTMAX_COLS} f32 (Triton, 64 threads per row)"),
        ptx: SOFTMAX_PTX.into(),
        entry: "softmax",
        grid: [rows as u32, 1, 1],
        block: [64, 1, 1],
        dyn_shared: 8,
        buffers: vec![
            vec![0u8; rows * STRIDE * 4],
            f32s(&x),
            vec![0u8; SCRATCH],
            vec![0u8; SCRATCH],
        ],
        args: vec![
            Arg::Buffer(0),
            Arg::Buffer(1),
            Arg::B32(STRIDE as u32),
            Arg::B32(STRIDE as u32),
            Arg::B32(SOFTMAX_COLS as u32),
            Arg::Buffer(2),
            Arg::Buffer(3),
        ],
        checks: vec![(0, "out", Rule::Rel(1e-5))],
        native: Box::new(move |bufs| {
            let x = &bufs[1];
            let mut out = vec![0f32; rows * STRIDE];
            for r in 0..rows {
                let row: Vec<f64> = (0..SOFTMAX_COLS).map(|c| f32_at(x, r * STRIDE + c) as f64).collect();
                let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = row.iter().map(|v| (v - max).exp()).collect();
                let sum: f64 = e.iter().sum();
                for (c, v) in e.iter().enumerate() {
                    out[r * STRIDE + c] = (v / sum) as f32;
                }
            }
            Twin {
                outputs: vec![f32s(&out)],
                instructions: None,
            }
        }),
    }
}

/// Layer-norm inputs: x (rows × STRIDE), w and b (STRIDE), multiples of 1/8 in [-2, 2].
fn layer_norm_inputs(rows: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let eighths = |salt, n: usize| -> Vec<f32> {
        (0..n)
            .map(|i| ((mix(salt, i as u64) % 33) as i32 - 16) as f32 / 8.0)
            .collect()
    };
    (eighths(4, rows * STRIDE), eighths(5, STRIDE), eighths(6, STRIDE))
}

/// The f64 layer norm of one row: (y, mean, rstd, variance).
fn layer_norm_row(x: &[f64], w: &[f32], b: &[f32]) -> (Vec<f64>, f64, f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    let rstd = 1.0 / (var + LN_EPS as f64).sqrt();
    let y = x
        .iter()
        .zip(w.iter().zip(b))
        .map(|(v, (&w, &b))| (v - mean) * rstd * w as f64 + b as f64)
        .collect();
    (y, mean, rstd, var)
}

/// The `layer-norm` benchmark.
pub(super) fn layer_norm(size: Size) -> Workload {
    let rows = rows(size);
    let (x, w, b) = layer_norm_inputs(rows);
    Workload {
        shape: format!("layer norm of {rows} rows x {LN_COLS} f32 (Triton, 64 threads per row)"),
        ptx: LAYER_NORM_PTX.into(),
        entry: "layer_norm",
        grid: [rows as u32, 1, 1],
        block: [64, 1, 1],
        dyn_shared: 8,
        buffers: vec![
            f32s(&x),
            vec![0u8; rows * STRIDE * 4],
            f32s(&w),
            f32s(&b),
            vec![0u8; rows * 4],
            vec![0u8; rows * 4],
            vec![0u8; SCRATCH],
            vec![0u8; SCRATCH],
        ],
        args: vec![
            Arg::Buffer(0),
            Arg::Buffer(1),
            Arg::Buffer(2),
            Arg::Buffer(3),
            Arg::Buffer(4),
            Arg::Buffer(5),
            Arg::B32(STRIDE as u32),
            Arg::B32(LN_COLS as u32),
            Arg::B32(LN_EPS.to_bits()),
            Arg::Buffer(6),
            Arg::Buffer(7),
        ],
        checks: vec![
            (1, "y", Rule::Abs(1e-4)),
            (4, "mean", Rule::Rel(3e-7)),
            (5, "rstd", Rule::Rel(1e-5)),
        ],
        native: Box::new(move |bufs| {
            let (xb, wb, bb) = (&bufs[0], &bufs[2], &bufs[3]);
            let w: Vec<f32> = (0..LN_COLS).map(|i| f32_at(wb, i)).collect();
            let b: Vec<f32> = (0..LN_COLS).map(|i| f32_at(bb, i)).collect();
            let mut y = vec![0f32; rows * STRIDE];
            let (mut mean, mut rstd) = (vec![0f32; rows], vec![0f32; rows]);
            for r in 0..rows {
                let row: Vec<f64> = (0..LN_COLS).map(|c| f32_at(xb, r * STRIDE + c) as f64).collect();
                let (yr, m, s, _) = layer_norm_row(&row, &w, &b);
                for (c, v) in yr.iter().enumerate() {
                    y[r * STRIDE + c] = *v as f32;
                }
                mean[r] = m as f32;
                rstd[r] = s as f32;
            }
            Twin {
                outputs: vec![f32s(&y), f32s(&mean), f32s(&rstd)],
                instructions: None,
            }
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The corpus's layer-norm rules (layer_norm.py) assume every row's variance is at least 0.4
    /// and bound |Δy| per element by |rstd·w|·Δxc + |xc·rstd·w|·(1e-5 + 2u) + u·(|y| + |b|), with
    /// Δxc = 3e-7·|mean| + u·|xc|; the bound must stay below the rule's 1e-4 on these inputs too.
    #[test]
    fn layer_norm_inputs_meet_the_rules_premises() {
        let u = 2f64.powi(-24);
        let rows = rows(Size::Full);
        let (x, w, b) = layer_norm_inputs(rows);
        let mut bound = 0f64;
        for r in 0..rows {
            let row: Vec<f64> = x[r * STRIDE..r * STRIDE + LN_COLS].iter().map(|&v| v as f64).collect();
            let (y, mean, rstd, var) = layer_norm_row(&row, &w, &b);
            assert!(var >= 0.4, "row {r}: variance {var}");
            for c in 0..LN_COLS {
                let xc = row[c] - mean;
                let dxc = 3e-7 * mean.abs() + u * xc.abs();
                let rw = (rstd * w[c] as f64).abs();
                bound =
                    bound.max(rw * dxc + (xc * rw).abs() * (1e-5 + 2.0 * u) + u * (y[c].abs() + (b[c] as f64).abs()));
            }
        }
        assert!(bound < 1e-4, "{bound}");
    }

    /// The softmax rule's premise: inputs on the 2^-22 grid in [-2, 2).
    #[test]
    fn softmax_inputs_lie_on_the_grid() {
        for v in softmax_input(rows(Size::Full)) {
            assert!(
                (-2.0..2.0).contains(&v) && (v * (1u32 << 22) as f32).fract() == 0.0,
                "{v}"
            );
        }
    }
}
