//! Conformance kernels of the warp-level data-movement forms (`ldmatrix`, `stmatrix`,
//! `movmatrix`; [`spec::vector::movement`]): one warp per vector, whole warps only, as
//! `.sync.aligned` requires; blocks of four warps, each warp with its own 512 bytes of shared
//! memory (32 slots of 16 bytes).
//!
//! Lane `l` of a vector's warp gives the address of slot `σ(l)`, σ a permutation that changes
//! from vector to vector (`σ(l) = (m·l + c) mod 32`, `m` odd), so that memory row `l` never
//! lies where its lane number would put it by accident and the address-lane mapping
//! (L23437-23467) is what the kernel tests. Every lane gives an aligned shared address, used or
//! not (on sm_75 and older every lane must, L23471).
//!
//! - `ldmatrix`: lane `l` stores memory row `l` (zeros past the form's rows) at slot `σ(l)`,
//!   `bar.warp.sync`, then the form reads through the lanes' addresses — a shared-window address
//!   for `.shared`/`.shared::cta`, its generic address (`cvta.shared`) for the forms without a
//!   state space — and each lane stores its registers.
//! - `stmatrix`: each lane loads its registers, the form writes through the lanes' addresses,
//!   `bar.warp.sync`, and lane `l` copies slot `σ(l)` (memory row `l`) out.
//! - `movmatrix`: each lane loads `a`, transposes, stores `d`.
//!
//! Records: lane `t` of the launch reads `[σ(l): u32, 12 bytes padding, 16 bytes of data]` at
//! `in + 32·t` (data: its memory row, its registers, or `a`) and writes 16 bytes at `out + 16·t`
//! (its registers, its memory row, or `d`).

use super::BuildError;
use spec::catalog::Form;
use spec::vector::movement::{columns, Columns, Move};
use spec::vector::Vector;
use std::fmt::Write as _;

/// Threads per block: four warps.
const BLOCK: usize = 128;
/// Bytes of a lane's input record.
const IN_STRIDE: usize = 32;
/// Bytes of a lane's output record.
const OUT_STRIDE: usize = 16;
/// Bytes of shared memory per warp: 32 rows of 16 bytes.
const WARP_SHARED: usize = 512;

/// How one launch's records are laid out.
#[derive(Clone, Debug)]
pub struct Plan {
    cols: Columns,
}

/// Whether `form`'s vectors are data movement (and its kernels built here).
pub fn is_movement(form: &Form) -> bool {
    columns(form).is_some()
}

/// The slot of lane `l` in the `k`-th warp of a launch (see the module documentation).
fn slot(k: usize, l: usize) -> usize {
    ((2 * (k % 16) + 1) * l + 7 * k) % 32
}

/// Elements per 16-byte row and their bytes.
fn row_elems(cols: &Columns) -> (usize, usize) {
    let m = if cols.dir == Move::Load { cols.input } else { cols.out };
    (m.cols, (m.ty.bits() / 8) as usize)
}

/// The input records of the warps of `vectors`, padded to whole blocks (padding warps give
/// their lanes' own slots and zero data).
fn records(cols: &Columns, vectors: &[&Vector]) -> (Vec<u8>, usize) {
    let threads = (vectors.len() * 32).div_ceil(BLOCK) * BLOCK;
    let mut input = vec![0u8; threads * IN_STRIDE];
    for (t, rec) in input.chunks_mut(IN_STRIDE).enumerate() {
        let (k, l) = (t / 32, t % 32);
        rec[..4].copy_from_slice(&(slot(k, l) as u32).to_le_bytes());
        let Some(v) = vectors.get(k) else { continue };
        let data = &mut rec[16..];
        match cols.dir {
            Move::Load => {
                if l < cols.rows {
                    let (n, w) = row_elems(cols);
                    for (c, x) in v.ins[l * n..(l + 1) * n].iter().enumerate() {
                        data[c * w..(c + 1) * w].copy_from_slice(&x.bits.to_le_bytes()[..w]);
                    }
                }
            }
            Move::Store | Move::Transpose => {
                for (r, x) in v.ins[l * cols.regs..(l + 1) * cols.regs].iter().enumerate() {
                    data[4 * r..4 * r + 4].copy_from_slice(&(x.bits as u32).to_le_bytes());
                }
            }
        }
    }
    (input, threads)
}

fn module(form: &Form, cols: &Columns) -> String {
    let mut s = super::in_out_entry(form, super::header_for(form), "one warp per vector");
    s.push_str("\t.reg .b32 %i, %c, %t, %w, %slot, %s, %x<4>;\n\t.reg .b64 %ia, %oa, %off, %sa;\n");
    let _ = writeln!(s, "\t.shared .align 16 .b8 smem[{}];", BLOCK / 32 * WARP_SHARED);
    s.push_str(concat!(
        "\tld.param.u64 %ia, [in];\n",
        "\tld.param.u64 %oa, [out];\n",
        "\tmov.u32 %c, %ctaid.x;\n",
        "\tmov.u32 %t, %ntid.x;\n",
        "\tmov.u32 %i, %tid.x;\n",
        "\tshr.u32 %w, %i, 5;\n",
        "\tmad.lo.u32 %i, %c, %t, %i;\n",
    ));
    let _ = writeln!(s, "\tmul.wide.u32 %off, %i, {IN_STRIDE};\n\tadd.u64 %ia, %ia, %off;");
    let _ = writeln!(s, "\tmul.wide.u32 %off, %i, {OUT_STRIDE};\n\tadd.u64 %oa, %oa, %off;");
    s.push_str("\tld.global.u32 %slot, [%ia];\n\tld.global.v4.b32 {%x0, %x1, %x2, %x3}, [%ia+16];\n");
    // The lane's slot: smem + 512·(warp in block) + 16·σ(l).
    let _ = writeln!(
        s,
        "\tmov.u32 %s, smem;\n\tmad.lo.u32 %s, %w, {WARP_SHARED}, %s;\n\tmad.lo.u32 %s, %slot, 16, %s;"
    );
    s.push_str("\tcvt.u64.u32 %sa, %s;\n");
    // A form without a state space takes a generic address (L23359, L23591).
    if form.var("ss").is_none_or(str::is_empty) {
        s.push_str("\tcvta.shared.u64 %sa, %sa;\n");
    }
    let regs: Vec<String> = (0..cols.regs).map(|r| format!("%x{r}")).collect();
    let regs = format!("{{{}}}", regs.join(", "));
    match cols.dir {
        Move::Load => {
            s.push_str("\tst.shared.v4.b32 [%s], {%x0, %x1, %x2, %x3};\n\tbar.warp.sync -1;\n");
            let _ = writeln!(s, "\t{} {regs}, [%sa];", form.name);
            s.push_str("\tst.global.v4.b32 [%oa], {%x0, %x1, %x2, %x3};\n");
        }
        Move::Store => {
            let _ = writeln!(s, "\t{} [%sa], {regs};", form.name);
            s.push_str("\tbar.warp.sync -1;\n\tld.shared.v4.b32 {%x0, %x1, %x2, %x3}, [%s];\n");
            s.push_str("\tst.global.v4.b32 [%oa], {%x0, %x1, %x2, %x3};\n");
        }
        Move::Transpose => {
            let _ = writeln!(s, "\t{} %x1, %x0;", form.name);
            s.push_str("\tst.global.b32 [%oa], %x1;\n");
        }
    }
    s.push_str("\tret;\n}\n");
    s
}

/// The launches that evaluate `pick` of `vectors`, at most `max_threads` threads' worth each.
pub fn build(
    form: &Form,
    vectors: &[Vector],
    pick: &[usize],
    max_threads: usize,
) -> Result<Vec<super::Batch>, BuildError> {
    let cols = columns(form).ok_or_else(|| BuildError::Matrix("not a data-movement form".into()))?;
    let chosen = super::picked(form, vectors, pick, |v| {
        v.ins.len() == cols.input.len() && v.outs.len() == cols.out.len()
    })?;
    let ptx = module(form, &cols);
    let per_launch = (max_threads / 32).max(1);
    let mut batches = Vec::new();
    for chunk in chosen.chunks(per_launch) {
        let vs: Vec<&Vector> = chunk.iter().map(|(_, v)| *v).collect();
        let (input, threads) = records(&cols, &vs);
        batches.push(super::Batch {
            job: super::in_out_job(&ptx, threads / BLOCK, BLOCK, &input, threads * OUT_STRIDE),
            vectors: chunk.iter().map(|(i, _)| *i).collect(),
            records: super::Records::Movement(Box::new(Plan { cols: cols.clone() })),
        });
    }
    Ok(batches)
}

impl Plan {
    /// The output matrix of every vector of the launch (row-major elements), from `out`.
    pub fn decode(&self, vectors: usize, out: &[u8]) -> Result<Vec<Vec<u128>>, super::DecodeError> {
        let threads = (vectors * 32).div_ceil(BLOCK) * BLOCK;
        if out.len() != threads * OUT_STRIDE {
            return Err(super::DecodeError::OutSize {
                found: out.len(),
                expected: threads * OUT_STRIDE,
            });
        }
        let word = |rec: &[u8], at: usize, w: usize| {
            let mut b = [0u8; 16];
            b[..w].copy_from_slice(&rec[at..at + w]);
            u128::from_le_bytes(b)
        };
        let cols = &self.cols;
        Ok((0..vectors)
            .map(|k| {
                let lanes = &out[k * 32 * OUT_STRIDE..][..32 * OUT_STRIDE];
                match cols.dir {
                    // Lanes 0..rows hold memory rows 0..rows.
                    Move::Store => {
                        let (n, w) = row_elems(cols);
                        lanes
                            .chunks(OUT_STRIDE)
                            .take(cols.rows)
                            .flat_map(|rec| (0..n).map(move |c| word(rec, c * w, w)))
                            .collect()
                    }
                    Move::Load | Move::Transpose => lanes
                        .chunks(OUT_STRIDE)
                        .flat_map(|rec| (0..cols.regs).map(move |r| word(rec, 4 * r, 4)))
                        .collect(),
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_permutations() {
        for k in 0..40 {
            let mut seen = [false; 32];
            for l in 0..32 {
                seen[slot(k, l)] = true;
            }
            assert!(seen.iter().all(|&x| x), "warp {k}");
        }
        // Not the identity for most warps: the mapping is tested, not assumed.
        assert_ne!(slot(1, 0), 0);
    }
}
