//! Structured sparsity of `mma.sp{::ordered_metadata}` (§9.7.14.6.1, L23776-23858): how many
//! non-zero elements each block of a row of A has, what one block's 4-bit index field means,
//! which threads of each group of four the sparsity selector `f` names, and which bits of which
//! thread's metadata register `e` describe which block of A ([`Sparsity::field`],
//! [`Sparsity::decompress`]).
//!
//! The last is given by the manual in figures only (Fig. 118-146: L23915, L23985, L24055,
//! L24104, L24151, L24243, L24294, L24386); the text states only the notation ("`Tk: [m..n]` in
//! cell `[x][y..z]`: bits m..n of lane k's metadata hold the indices of the non-zero elements of
//! blocks `[x][y]..[x][z]`", L23870) and that each register is "16 2-bit vectors" or "8 4-bit
//! vectors", next to each figure (L23915 ... L24386). The reading taken
//! here, with its evidence, is `spec/INTERPRETATIONS.md`, "sparse mma metadata".

use super::MatrixError;
use crate::catalog::Form;

/// Blocks of one row of A whose index fields one metadata thread holds for 16- and 32-bit
/// elements: four 4-bit fields, 16 bits, per row; the register's low half for row `groupID`,
/// its high half for `groupID + 8` (interpretation of Fig. 118-126, `spec/INTERPRETATIONS.md`
/// "sparse mma metadata"; confirmed on an H200, "H200 sparse metadata").
pub const BLOCKS_PER_THREAD: usize = 4;

/// How a metadata thread's register covers the blocks of its two rows of A.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetaLayout {
    /// 16- and 32-bit elements (f16, bf16, tf32): the `j`-th selected thread holds the `j`-th
    /// run of [`BLOCKS_PER_THREAD`] blocks of both rows, `groupID` in bits 0..15, `groupID + 8`
    /// in bits 16..31.
    BothRows,
    /// 8- and 4-bit elements (s8/u8, fp8/fp6/fp4, s4/u4): the selected thread of rank
    /// `j = 2q + r` holds one row, `groupID + 8r`, blocks `8q..8q+7` of it, block `8q + b` in
    /// bits `4b+3..4b`. Measured on an H200 (`corpus/findings/h200/tensor-cores.md`): the
    /// [`MetaLayout::BothRows`] reading of these forms disagrees in every element.
    RowPerThread,
}

/// The sparsity of one `mma.sp` form: each `block`-wide piece of a row of A has `nonzeros`
/// stored elements, and `threads` of each group of four consecutive threads give metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sparsity {
    /// Width of a block of a row of A, in elements: 4 (2:4), 2 (tf32 1:2) or 8 (pairwise 4:8).
    pub block: usize,
    /// Non-zero elements kept per block.
    pub nonzeros: usize,
    /// Threads of each group of four whose metadata is used: 1, 2 or 4 (L23796-23858).
    pub threads: usize,
    /// Only ascending index pairs are meaningful: `.sp::ordered_metadata` ("the indices in the
    /// sparsity metadata must be sorted in increasing order starting from the LSB", L24481) and
    /// every fp8/fp6/fp4 form, `.sp` ones included (the six values of L23838, L23850).
    pub ordered: bool,
    /// The manual line that lists this type's meaningful index values (L23790, L23804, L23818,
    /// L23824, L23838 or L23850; `wgmma`: L25945, L25955, L25965, L25975), quoted by the errors.
    pub rule: &'static str,
    /// The line that makes `0b0000 0b0101 0b1010 0b1111` invalid: L23778 (`mma.sp`), L25937
    /// (`wgmma.mma_async.sp`).
    pub invalid_rule: &'static str,
    /// The lines that give the meaningful selectors: L23798-23858 (`mma.sp`), L25951-25981
    /// (`wgmma.mma_async.sp`).
    pub selector_rule: &'static str,
    /// Which blocks of which row each metadata thread's register describes.
    pub layout: MetaLayout,
}

/// The metadata layout of A elements of type `at`: [`MetaLayout::RowPerThread`] for the 8- and
/// 4-bit types, [`MetaLayout::BothRows`] for f16, bf16, tf32.
fn meta_layout(at: &str) -> MetaLayout {
    match at {
        "f16" | "bf16" | "tf32" => MetaLayout::BothRows,
        _ => MetaLayout::RowPerThread,
    }
}

/// The sparsity of `form`, an `mma.sp` or `mma.sp::ordered_metadata` form.
///
/// Granularity by element type (§9.7.14.6.1): f16/bf16 2:4 (L23790), tf32 1:2 (L23804), s8/u8
/// 2:4 (L23818), s4/u4 pairwise 4:8 (L23824), e4m3/e5m2/e3m2/e2m3/e2m1 of `.kind::f8f6f4` /
/// `.kind::mxf8f6f4` 2:4 (L23838), e2m1 of `.kind::mxf4`/`.kind::mxf4nvf4` pairwise 4:8
/// (L23850). Metadata threads per group of four: one for f16 `m16n8k16` and tf32 `m16n8k8`
/// (L23798, L23812), two for f16 `m16n8k32`, tf32 `m16n8k16`, s8 `m16n8k32`, s4 `m16n8k64`
/// (L23800, L23814, L23832), all four for s8 `m16n8k64`, s4 `m16n8k128`, fp8 `m16n8k64`, e2m1
/// `m16n8k128` (L23834, L23846, L23858). In every case `threads · 4 · block` is K: each thread
/// describes [`BLOCKS_PER_THREAD`] blocks of each of its two rows.
pub fn sparsity(form: &Form) -> Result<Sparsity, MatrixError> {
    let uncovered = |why| MatrixError::Uncovered {
        form: form.name.clone(),
        why,
    };
    let at = form.var("at").ok_or_else(|| uncovered("no .atype"))?;
    let shape = form.var("shape").unwrap_or("");
    if form.opcode == "wgmma" && form.mods.contains(&"sp") {
        return wgmma_sparsity(form, at, shape);
    }
    let sp = form.var("sp").ok_or_else(|| uncovered("not an mma.sp form"))?;
    let four_bit = matches!(form.var("kind"), Some("kind::mxf4" | "kind::mxf4nvf4"));
    let (block, nonzeros, threads, rule) = match (at, shape) {
        ("f16" | "bf16", "m16n8k16") => (4, 2, 1, "L23790"),
        ("f16" | "bf16", "m16n8k32") => (4, 2, 2, "L23790"),
        ("tf32", "m16n8k8") => (2, 1, 1, "L23804"),
        ("tf32", "m16n8k16") => (2, 1, 2, "L23804"),
        ("s8" | "u8", "m16n8k32") => (4, 2, 2, "L23818"),
        ("s8" | "u8", "m16n8k64") => (4, 2, 4, "L23818"),
        ("s4" | "u4", "m16n8k64") => (8, 4, 2, "L23824"),
        ("s4" | "u4", "m16n8k128") => (8, 4, 4, "L23824"),
        ("e2m1", "m16n8k128") if four_bit => (8, 4, 4, "L23850"),
        ("e4m3" | "e5m2" | "e3m2" | "e2m3" | "e2m1", "m16n8k64") => (4, 2, 4, "L23838"),
        _ => return Err(uncovered("no sparsity rule for this type and shape")),
    };
    Ok(Sparsity {
        block,
        nonzeros,
        threads,
        ordered: sp == "sp::ordered_metadata" || matches!(rule, "L23838" | "L23850"),
        rule,
        invalid_rule: "L23778",
        selector_rule: "L23798-23858",
        layout: meta_layout(at),
    })
}

/// The sparsity of a `wgmma.mma_async.sp` form (§9.7.15.6.1, L25935-25981): f16/bf16 `m64nNk32`
/// 2:4 with a pair of metadata threads (L25945, L25951), tf32 `m64nNk16` 1:2 with a pair
/// (L25955, L25961), e4m3/e5m2 and s8/u8 `m64nNk64` 2:4 with all four threads (L25965, L25971,
/// L25975, L25981). There is no ordered variant: the summary table allows each 2-bit index
/// 0b00..0b11 (L26284-26314), so descending pairs are taken as written, as plain `mma.sp`'s.
/// Each warp describes its 16 rows of A as `mma.sp` does (§9.7.15.6.2, L25983-26000; the
/// metadata figures are `mma.sp`'s own: Fig. 175 is `sparse-mma-metadata-16832-f16bf16.png`,
/// Fig. 177 `...-16816-tf32.png`, Fig. 179-180 `...-16864-u8s8-*.png`); OpenXLA's Hopper
/// sparse-dot lowering feeds `m64nNk32` f16/bf16 metadata the same way (`spec/INTERPRETATIONS.md`).
fn wgmma_sparsity(form: &Form, at: &str, shape: &str) -> Result<Sparsity, MatrixError> {
    let k = crate::catalog::fragment::mnk(shape).map(|(_, _, k)| k);
    let (block, nonzeros, threads, rule) = match (at, k) {
        ("f16" | "bf16", Some(32)) => (4, 2, 2, "L25945"),
        ("tf32", Some(16)) => (2, 1, 2, "L25955"),
        ("e4m3" | "e5m2", Some(64)) => (4, 2, 4, "L25965"),
        ("s8" | "u8", Some(64)) => (4, 2, 4, "L25975"),
        _ => {
            return Err(MatrixError::Uncovered {
                form: form.name.clone(),
                why: "no sparsity rule for this type and shape",
            })
        }
    };
    Ok(Sparsity {
        block,
        nonzeros,
        threads,
        ordered: false,
        rule,
        invalid_rule: "L25937",
        selector_rule: "L25951-25981",
        layout: meta_layout(at),
    })
}

impl Sparsity {
    /// Whether sparsity selector `f` is meaningful: 0..4 with one metadata thread, 0 or 1 with
    /// two, 0 with four (L23798-23858); any other value is undefined behaviour.
    pub fn selector_ok(&self, f: u32) -> bool {
        (f as usize) < 4 / self.threads
    }

    /// The positions in its group of four (`%laneid % 4`) of the threads whose metadata
    /// selector `f` names: `{f}` with one thread, `{2f, 2f+1}` with two ("0 (threads T0, T1) or
    /// 1 (T2, T3)", L23800), all four with four; `None` for a selector that is not meaningful.
    pub fn metadata_threads(&self, f: u32) -> Option<Vec<usize>> {
        self.selector_ok(f)
            .then(|| (0..self.threads).map(|i| f as usize * self.threads + i).collect())
    }

    /// The positions in its block (0 = the lowest K column) of a block's stored elements, in
    /// the order they are stored, from the block's 4-bit index field `nibble` (two 2-bit
    /// indices, the first stored element's in the low bits).
    ///
    /// - 2:4 (L23790, L23818, L23838): the two indices are the positions. `0b0000 0b0101 0b1010
    ///   0b1111` (both indices equal) are invalid, undefined behaviour (L23778); `.sp::ordered_metadata`
    ///   and the fp8/fp6/fp4 forms keep only `0b0100 0b1000 0b1001 0b1100 0b1101 0b1110`
    ///   (ascending pairs, L24481, L23838). Plain `.sp` of the other types takes a descending
    ///   pair as written: the first stored element at the low index's position.
    /// - tf32 1:2 (L23804): one 4-bit index, `0b0100` or `0b1110` only; read as the two 16-bit
    ///   halves of a 32-bit element, they name element 0 and element 1 of the block.
    /// - pairwise 4:8 (L23824, L23850): the indices name two of the four two-element sub-blocks,
    ///   so the positions are `2i, 2i + 1` for each; the same values are meaningful as for 2:4.
    ///
    /// A value the manual makes undefined is an error ([`MatrixError::Undefined`]) naming the rule.
    pub fn positions(&self, nibble: u32) -> Result<Vec<usize>, MatrixError> {
        let bad = |why: String| {
            Err(MatrixError::Undefined(format!(
                "sparsity metadata index field {nibble:#06b} is undefined: {why}"
            )))
        };
        if nibble > 0xf {
            return bad("an index field has 4 bits".into());
        }
        let (lo, hi) = ((nibble & 3) as usize, (nibble >> 2 & 3) as usize);
        if self.block == 2 {
            return match nibble {
                0b0100 => Ok(vec![0]),
                0b1110 => Ok(vec![1]),
                _ => bad(format!("tf32 takes only 0b0100 and 0b1110 ({})", self.rule)),
            };
        }
        if lo == hi {
            return bad(format!(
                "0b0000, 0b0101, 0b1010 and 0b1111 are invalid metadata ({})",
                self.invalid_rule
            ));
        }
        if self.ordered && lo > hi {
            return bad(format!(
                "only the ascending index pairs 0b0100 0b1000 0b1001 0b1100 0b1101 0b1110 are \
                 meaningful here ({}; `.sp::ordered_metadata` needs the indices in increasing \
                 order from the LSB, L24481)",
                self.rule
            ));
        }
        Ok(if self.block == 8 {
            vec![2 * lo, 2 * lo + 1, 2 * hi, 2 * hi + 1]
        } else {
            vec![lo, hi]
        })
    }

    /// One block of a row of A (`block` elements, zeros where nothing is stored) from its
    /// stored elements `stored` and its index field `nibble`.
    pub fn expand(&self, stored: &[u64], nibble: u32) -> Result<Vec<u64>, MatrixError> {
        let pos = self.positions(nibble)?;
        if stored.len() != pos.len() {
            return Err(MatrixError::Input(format!(
                "{} stored elements for a block that keeps {}",
                stored.len(),
                pos.len()
            )));
        }
        let mut out = vec![0; self.block];
        for (&p, &v) in pos.iter().zip(stored) {
            out[p] = v;
        }
        Ok(out)
    }

    /// Where the index field of block `block` (counted along K from 0) of row `row` (0..16) of
    /// A is, under selector `f`: the lane whose `e` holds it and the field's lowest bit.
    ///
    /// The metadata threads of row `row` are those of the group of four of row `row % 8`
    /// (lanes `4·(row % 8) + i`, `groupID = %laneid >> 2`, L23900) that selector `f` names
    /// ([`Sparsity::metadata_threads`]); which of them and which bits, per [`MetaLayout`]
    /// (figures only, Fig. 118-146; `spec/INTERPRETATIONS.md`, "sparse mma metadata" and
    /// "H200 sparse metadata"):
    /// - [`MetaLayout::BothRows`]: the `j`-th selected thread holds the `j`-th run of
    ///   [`BLOCKS_PER_THREAD`] blocks, bits `4b+3..4b` the run's block `b` of row `groupID`,
    ///   bits `16+4b+3..16+4b` that of row `groupID + 8`;
    /// - [`MetaLayout::RowPerThread`]: the selected thread `j = 2q + r` holds blocks
    ///   `8q..8q+7` of row `groupID + 8r`, block `8q + b` in bits `4b+3..4b`.
    ///
    /// `None` when `f` is not a meaningful selector or `row` is out of range.
    pub fn field(&self, f: u32, row: usize, block: usize) -> Option<(usize, u32)> {
        let threads = self.metadata_threads(f)?;
        if row >= 16 {
            return None;
        }
        let (rank, shift) = match self.layout {
            MetaLayout::BothRows => (
                block / BLOCKS_PER_THREAD,
                16 * (row / 8) + 4 * (block % BLOCKS_PER_THREAD),
            ),
            MetaLayout::RowPerThread => (2 * (block / 8) + row / 8, 4 * (block % 8)),
        };
        let tig = *threads.get(rank)?;
        Some((4 * (row % 8) + tig, shift as u32))
    }

    /// The dense 16×K matrix A (row-major, zeros at the pruned positions) from the compressed
    /// 16×K/2 matrix `compressed` (as [`crate::matrix::Layout::gather`] gives it: compressed
    /// column `c` is the `c % nonzeros`-th stored element of block `c / nonzeros`), the 32
    /// lanes' metadata registers `e` and the sparsity selector `f`.
    ///
    /// Errors ([`MatrixError::Undefined`]): a selector outside the shape's range (L23798-23858),
    /// and an index field the manual makes undefined ([`Sparsity::positions`]), naming the lane,
    /// its bits and the row and K columns they describe. Only the selected threads' fields are
    /// read: the other bits of every `e` are ignored.
    pub fn decompress(&self, k: usize, compressed: &[u64], e: &[u64], f: u32) -> Result<Vec<u64>, MatrixError> {
        self.decompress_kept(k, compressed, e, f).map(|(dense, _)| dense)
    }

    /// [`Sparsity::decompress`], with the 16×K mask of the positions the metadata names (the
    /// stored ones; `false` at the pruned ones, whose products the numerics skip,
    /// [`crate::tensor::mma_sparse`]).
    pub fn decompress_kept(
        &self,
        k: usize,
        compressed: &[u64],
        e: &[u64],
        f: u32,
    ) -> Result<(Vec<u64>, Vec<bool>), MatrixError> {
        let half = k * self.nonzeros / self.block;
        if compressed.len() != 16 * half || e.len() != 32 || k != self.threads * BLOCKS_PER_THREAD * self.block {
            return Err(MatrixError::Input(format!(
                "a compressed 16x{half} A and 32 metadata registers for K = {k}, got {} elements and {} registers",
                compressed.len(),
                e.len()
            )));
        }
        if !self.selector_ok(f) {
            return Err(MatrixError::Undefined(format!(
                "sparsity selector {f} is undefined with {} metadata thread(s) per group of four: it must be below {} ({})",
                self.threads,
                4 / self.threads,
                self.selector_rule
            )));
        }
        let mut dense = vec![0; 16 * k];
        let mut kept = vec![false; 16 * k];
        for row in 0..16 {
            for block in 0..k / self.block {
                let (lane, shift) = self.field(f, row, block).expect("checked selector and row");
                let nibble = (e[lane] >> shift & 0xf) as u32;
                if let Ok(pos) = self.positions(nibble) {
                    for p in pos {
                        kept[row * k + block * self.block + p] = true;
                    }
                }
                let at = row * half + block * self.nonzeros;
                let stored = &compressed[at..at + self.nonzeros];
                let vals = self.expand(stored, nibble).map_err(|err| match err {
                    MatrixError::Undefined(why) => MatrixError::Undefined(format!(
                        "lane {lane}, metadata bits {}..{shift} (row {row} of A, columns {}..{}): {why}",
                        shift + 3,
                        block * self.block,
                        block * self.block + self.block - 1
                    )),
                    other => other,
                })?;
                dense[row * k + block * self.block..][..self.block].copy_from_slice(&vals);
            }
        }
        Ok((dense, kept))
    }
}

impl Sparsity {
    /// The positions a kernel's metadata names for the dense M×K matrix `dense` (M a multiple
    /// of 16: `wgmma`'s 64 rows are four warps' 16): [`Sparsity::compress`]'s choice — a
    /// block's elements that are not +0, padded with the lowest free positions — as a
    /// row-major mask.
    pub fn kept_of_dense(&self, k: usize, dense: &[u64]) -> Result<Vec<bool>, MatrixError> {
        let mut kept = Vec::with_capacity(dense.len());
        for slab in dense.chunks(16 * k) {
            let (c, e) = self.compress(k, slab, 0)?;
            kept.extend(self.decompress_kept(k, &c, &e, 0)?.1);
        }
        Ok(kept)
    }
}

impl Sparsity {
    /// The inverse of [`Sparsity::decompress`]: the compressed 16×K/2 matrix and the 32 lanes'
    /// metadata registers (the fields selector `f` names; every other bit 0) that stand for
    /// the dense 16×K matrix `dense`. A block's stored positions are its elements whose bits are
    /// not all zero (a −0 counts), padded with the lowest free positions, in ascending order
    /// (meaningful for plain and ordered metadata alike); [`MatrixError::Input`] when a block
    /// has more non-zero elements (pairs, for pairwise 4:8) than the sparsity keeps.
    pub fn compress(&self, k: usize, dense: &[u64], f: u32) -> Result<(Vec<u64>, Vec<u64>), MatrixError> {
        let half = k * self.nonzeros / self.block;
        if dense.len() != 16 * k || !self.selector_ok(f) {
            return Err(MatrixError::Input(format!(
                "a dense 16x{k} A and a meaningful selector, got {} elements and selector {f}",
                dense.len()
            )));
        }
        // The unit of choice: one element (2:4, 1:2) or a pair of elements (pairwise 4:8).
        let unit = if self.block == 8 { 2 } else { 1 };
        let (units, keep) = (self.block / unit, self.nonzeros / unit);
        let mut compressed = vec![0u64; 16 * half];
        let mut e = vec![0u64; 32];
        for row in 0..16 {
            for block in 0..k / self.block {
                let cells = &dense[row * k + block * self.block..][..self.block];
                let mut kept: Vec<usize> = (0..units)
                    .filter(|&u| cells[u * unit..(u + 1) * unit].iter().any(|&x| x != 0))
                    .collect();
                if kept.len() > keep {
                    return Err(MatrixError::Input(format!(
                        "row {row}, columns {}..{} of A: {} non-zero units where the sparsity keeps {keep}",
                        block * self.block,
                        block * self.block + self.block - 1,
                        kept.len()
                    )));
                }
                for u in 0..units {
                    if kept.len() < keep && !kept.contains(&u) {
                        kept.push(u);
                    }
                }
                kept.sort_unstable();
                let nibble = match (self.block, kept.as_slice()) {
                    // tf32 1:2: 0b0100 names element 0, 0b1110 element 1 (L23804).
                    (2, [0]) => 0b0100,
                    (2, _) => 0b1110,
                    (_, [lo, hi]) => (lo | hi << 2) as u64,
                    _ => return Err(MatrixError::Input("two stored units per block".into())),
                };
                let (lane, shift) = self.field(f, row, block).expect("checked selector and row");
                e[lane] |= nibble << shift;
                let at = row * half + block * self.nonzeros;
                for (j, &u) in kept.iter().enumerate() {
                    for x in 0..unit {
                        compressed[at + j * unit + x] = cells[u * unit + x];
                    }
                }
            }
        }
        Ok((compressed, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;

    fn sp(name: &str) -> Sparsity {
        let cat = catalog();
        let ids = cat.by_name(name);
        assert!(!ids.is_empty(), "{name}");
        sparsity(&cat.forms[ids[0]]).unwrap()
    }

    /// compress → decompress is the identity on matrices of the sparsity's pattern.
    #[test]
    fn compress_round_trips() {
        for (name, k) in [
            ("mma.sp.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16", 32),
            ("mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 8),
            ("mma.sp.sync.aligned.m16n8k128.row.col.s32.u4.u4.s32", 128),
        ] {
            let s = sp(name);
            let mut dense = vec![0u64; 16 * k];
            for row in 0..16 {
                for b in 0..k / s.block {
                    // Keep one unit per block, at a row- and block-dependent place.
                    let unit = if s.block == 8 { 2 } else { 1 };
                    let u = (row + 3 * b) % (s.block / unit);
                    for x in 0..unit {
                        dense[row * k + b * s.block + u * unit + x] = (row * 100 + b * 7 + x + 1) as u64 & 0xf;
                    }
                }
            }
            for f in 0..(4 / s.threads) as u32 {
                let (c, e) = s.compress(k, &dense, f).unwrap();
                assert_eq!(s.decompress(k, &c, &e, f).unwrap(), dense, "{name} f={f}");
            }
        }
    }

    /// Every sparse form of the catalog has a rule, consistent with the compressed A layout:
    /// the stored K is `K · nonzeros / block`, half of K.
    #[test]
    fn every_sparse_form() {
        let cat = catalog();
        let mut n = 0;
        for f in cat.forms.iter().filter(|f| f.opcode == "mma" && f.var("sp").is_some()) {
            let s = sparsity(f).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(s.nonzeros * 2, s.block, "{}", f.name);
            let a = crate::matrix::layout(f, crate::matrix::Which::A).unwrap();
            let k = crate::catalog::fragment::mnk(f.var("shape").unwrap()).unwrap().2;
            assert_eq!(a.cols * 2, k);
            // Each metadata thread describes four blocks of each of its two rows.
            assert_eq!(s.threads * BLOCKS_PER_THREAD * s.block, k, "{}", f.name);
            n += 1;
        }
        assert!(n > 200, "{n}");
        let dense = &cat.forms[cat.by_name("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")[0]];
        assert!(matches!(sparsity(dense), Err(MatrixError::Uncovered { .. })));
    }

    #[test]
    fn selectors() {
        // m16n8k16 f16: one thread, selector 0..3 (L23798).
        let s = sp("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
        assert_eq!(s.metadata_threads(3), Some(vec![3]));
        assert!(!s.selector_ok(4));
        // m16n8k32 f16: 0 → T0, T1; 1 → T2, T3 (L23800).
        let s = sp("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32");
        assert_eq!(s.metadata_threads(1), Some(vec![2, 3]));
        assert_eq!(s.metadata_threads(2), None);
        // s8 m16n8k64: all four, selector 0 only (L23834).
        let s = sp("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32");
        assert_eq!(s.metadata_threads(0), Some(vec![0, 1, 2, 3]));
        assert!(!s.selector_ok(1));
    }

    #[test]
    fn block_indices() {
        let plain = sp("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
        let ordered = sp("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
        // 0b1001: elements at positions 1 and 2.
        assert_eq!(ordered.expand(&[7, 9], 0b1001).unwrap(), vec![0, 7, 9, 0]);
        // Undefined for both (L23778), and descending pairs only for plain .sp (L23790).
        for v in [0b0000, 0b0101, 0b1010, 0b1111] {
            assert!(plain.positions(v).is_err() && ordered.positions(v).is_err());
        }
        assert_eq!(plain.positions(0b0001).unwrap(), vec![1, 0]);
        assert!(ordered.positions(0b0001).is_err());
        let ok: Vec<u32> = (0..16).filter(|&v| ordered.positions(v).is_ok()).collect();
        assert_eq!(ok, vec![0b0100, 0b1000, 0b1001, 0b1100, 0b1101, 0b1110]);
        // tf32 (L23804): 0b0100 and 0b1110 only.
        let tf32 = sp("mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
        assert_eq!(tf32.expand(&[5], 0b1110).unwrap(), vec![0, 5]);
        assert!(tf32.positions(0b1000).is_err());
        // s4 pairwise (L23824): 0b1100 keeps sub-blocks 0 and 3.
        let s4 = sp("mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32");
        assert_eq!(s4.expand(&[1, 2, 3, 4], 0b1100).unwrap(), vec![1, 2, 0, 0, 0, 0, 3, 4]);
        assert!(s4.expand(&[1], 0b1100).is_err());
    }

    /// fp8/fp6/fp4 forms keep only the ascending pairs even as plain `.sp` (L23838).
    #[test]
    fn fp8_plain_sp_is_ascending_only() {
        let s = sp("mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32");
        assert!(s.ordered);
        assert!(s.positions(0b0001).is_err());
        assert_eq!(s.positions(0b1101).unwrap(), vec![1, 3]);
        let e = s.positions(0b0110).unwrap_err().to_string();
        assert!(e.contains("L23838") && e.contains("L24481"), "{e}");
    }

    /// The metadata field of each block, against the reading of Fig. 118 that a hardware test
    /// checks (kmsmith137/gputils `src_bin/test-sparse-mma.cu`: row `i`, block `j` of
    /// `m16n8k16` f16 is in lane `4·(i % 8) + f`, bits `4·(4·(i / 8) + j)` up), and of Fig. 121
    /// that XLA's sparse dot lowering relies on (lane `% 2` picks the 16-column half of K, the
    /// row `groupID + 8` in the upper 16 bits).
    #[test]
    fn metadata_fields() {
        let s = sp("mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16");
        for f in 0..4 {
            for i in 0..16 {
                for j in 0..4 {
                    assert_eq!(
                        s.field(f, i, j),
                        Some((4 * (i % 8) + f as usize, (4 * (4 * (i / 8) + j)) as u32))
                    );
                }
            }
        }
        assert_eq!(s.field(4, 0, 0), None);
        assert_eq!(s.field(0, 16, 0), None);
        assert_eq!(s.field(0, 0, 4), None);
        let s = sp("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32");
        // Row 3, K columns 20..23 (block 5): the second thread of selector 1 (T3), bits 7..4.
        assert_eq!(s.field(1, 3, 5), Some((4 * 3 + 3, 4)));
        // Row 11 (groupID 3 + 8), K columns 0..3: T2 (selector 1), bits 19..16.
        assert_eq!(s.field(1, 11, 0), Some((4 * 3 + 2, 16)));
        // s8 m16n8k64, four threads, one row each (the H200's layout): K columns 48..51
        // (block 12) of row 0 are T2's bits 19..16 (T2: row g, blocks 8..15); of row 8, T3's.
        let s = sp("mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32");
        assert_eq!(s.layout, MetaLayout::RowPerThread);
        assert_eq!(s.field(0, 0, 12), Some((2, 16)));
        assert_eq!(s.field(0, 8, 12), Some((3, 16)));
        assert_eq!(s.field(0, 9, 3), Some((4 + 1, 12)));
        // s4 m16n8k64, 8-wide blocks: K columns 32..39 (block 4) of row 8 are T1's (row g + 8,
        // blocks 0..7) bits 19..16.
        let s = sp("mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32");
        assert_eq!(s.field(0, 8, 4), Some((1, 16)));
        // s8 m16n8k32, selector 1: T2 row g, T3 row g + 8, all eight blocks.
        let s = sp("mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32");
        assert_eq!(s.field(1, 2, 7), Some((8 + 2, 28)));
        assert_eq!(s.field(1, 10, 0), Some((8 + 3, 0)));
        // tf32 m16n8k8: 2-wide blocks, K columns 6..7 (block 3) of row 2, selector 2: T2 of
        // group 2, bits 15..12.
        let s = sp("mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
        assert_eq!(s.field(2, 2, 3), Some((10, 12)));
    }

    /// A dense 2:4 matrix through its compressed form and metadata, written here from the
    /// figure's reading, back to itself; only the selected lanes' metadata is read.
    #[test]
    fn decompress_round_trip() {
        let s = sp("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32");
        let k = 32;
        let pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
        let mut dense = vec![0u64; 16 * k];
        let mut compressed = Vec::new();
        let mut e = vec![0xffff_ffffu64; 32]; // garbage in the lanes selector 1 does not name
        for i in 0..16 {
            for b in 0..k / 4 {
                let (lo, hi) = pairs[(i * 7 + b * 3) % 6];
                let (x, y) = ((i * 16 + b + 1) as u64, (i * 16 + b + 101) as u64);
                dense[i * k + 4 * b + lo] = x;
                dense[i * k + 4 * b + hi] = y;
                compressed.extend([x, y]);
                // Selector 1: T2 holds row g, T3 row g + 8, block b in bits 4b+3..4b.
                let lane = 4 * (i % 8) + 2 + i / 8;
                let shift = 4 * b;
                if e[lane] == 0xffff_ffff {
                    e[lane] = 0;
                }
                e[lane] |= ((hi << 2 | lo) as u64) << shift;
            }
        }
        assert_eq!(s.decompress(k, &compressed, &e, 1).unwrap(), dense);
        // Selector 0 reads the all-ones lanes: 0b1111 is invalid (L23778).
        let err = s.decompress(k, &compressed, &e, 0).unwrap_err();
        assert!(matches!(err, MatrixError::Undefined(_)));
        let msg = err.to_string();
        assert!(
            msg.contains("lane 0, metadata bits 3..0 (row 0 of A, columns 0..3)") && msg.contains("L23778"),
            "{msg}"
        );
        // Selector 2 is undefined with two metadata threads.
        let msg = s.decompress(k, &compressed, &e, 2).unwrap_err().to_string();
        assert!(
            msg.contains("sparsity selector 2 is undefined") && msg.contains("L23798-23858"),
            "{msg}"
        );
        // A descending pair under ordered metadata names L24481.
        let mut bad = e.clone();
        bad[2] = (bad[2] & !0xf) | 0b0001;
        let msg = s.decompress(k, &compressed, &bad, 1).unwrap_err().to_string();
        assert!(msg.contains("lane 2") && msg.contains("L24481"), "{msg}");
        // Wrong sizes are input errors.
        assert!(matches!(
            s.decompress(k, &compressed[1..], &e, 1),
            Err(MatrixError::Input(_))
        ));
    }

    /// `wgmma.mma_async.sp` (§9.7.15.6.1): every form has a rule, each warp's 16 rows fill its
    /// metadata exactly as `mma.sp`'s do, and descending pairs are taken as written.
    #[test]
    fn wgmma_forms() {
        let cat = catalog();
        let mut n = 0;
        for f in cat
            .forms
            .iter()
            .filter(|f| f.opcode == "wgmma" && f.mods.contains(&"sp"))
        {
            let s = sparsity(f).unwrap_or_else(|e| panic!("{e}"));
            let k = crate::catalog::fragment::mnk(f.var("shape").unwrap()).unwrap().2;
            assert_eq!(s.threads * BLOCKS_PER_THREAD * s.block, k, "{}", f.name);
            assert!(!s.ordered);
            n += 1;
        }
        assert!(n > 1000, "{n}");
        let s = sp("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16");
        assert_eq!((s.block, s.threads), (4, 2));
        assert_eq!(s.positions(0b0001).unwrap(), vec![1, 0]);
        assert!(s.positions(0b1010).unwrap_err().to_string().contains("L25937"));
        let s = sp("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.u8.s8");
        assert_eq!((s.block, s.threads, s.selector_ok(1)), (4, 4, false));
    }
}
