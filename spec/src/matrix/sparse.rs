//! Structured sparsity of `mma.sp{::ordered_metadata}` (§9.7.14.6.1, L23776-23858): how many
//! non-zero elements each block of a row of A has, what one block's 4-bit index field means,
//! and which threads of each group of four the sparsity selector `f` names.
//!
//! Not covered: which bits of which thread's metadata register `e` describe which block of A
//! (Fig. 118-146, figures only: L23915, L23985, L24055, L24104, L24151, L24243, L24294,
//! L24386).

use super::MatrixError;
use crate::catalog::Form;

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
    /// `.sp::ordered_metadata`: only the six ascending index pairs are meaningful.
    pub ordered: bool,
}

/// The sparsity of `form`, an `mma.sp` or `mma.sp::ordered_metadata` form.
///
/// Granularity by element type (§9.7.14.6.1): f16/bf16 2:4 (L23790), tf32 1:2 (L23804), s8/u8
/// 2:4 (L23818), s4/u4 pairwise 4:8 (L23824), e4m3/e5m2/e3m2/e2m3/e2m1 of `.kind::f8f6f4` /
/// `.kind::mxf8f6f4` 2:4 (L23838), e2m1 of `.kind::mxf4`/`.kind::mxf4nvf4` pairwise 4:8
/// (L23850). Metadata threads per group of four: one for f16 `m16n8k16` and tf32 `m16n8k8`
/// (L23798, L23812), two for f16 `m16n8k32`, tf32 `m16n8k16`, s8 `m16n8k32`, s4 `m16n8k64`
/// (L23800, L23814, L23832), all four for s8 `m16n8k64`, s4 `m16n8k128`, fp8 `m16n8k64`, e2m1
/// `m16n8k128` (L23834, L23846, L23858).
pub fn sparsity(form: &Form) -> Result<Sparsity, MatrixError> {
    let uncovered = |why| MatrixError::Uncovered {
        form: form.name.clone(),
        why,
    };
    let sp = form.var("sp").ok_or_else(|| uncovered("not an mma.sp form"))?;
    let at = form.var("at").ok_or_else(|| uncovered("no .atype"))?;
    let shape = form.var("shape").unwrap_or("");
    let four_bit = matches!(form.var("kind"), Some("kind::mxf4" | "kind::mxf4nvf4"));
    let (block, nonzeros, threads) = match (at, shape) {
        ("f16" | "bf16", "m16n8k16") => (4, 2, 1),
        ("f16" | "bf16", "m16n8k32") => (4, 2, 2),
        ("tf32", "m16n8k8") => (2, 1, 1),
        ("tf32", "m16n8k16") => (2, 1, 2),
        ("s8" | "u8", "m16n8k32") => (4, 2, 2),
        ("s8" | "u8", "m16n8k64") => (4, 2, 4),
        ("s4" | "u4", "m16n8k64") => (8, 4, 2),
        ("s4" | "u4", "m16n8k128") => (8, 4, 4),
        ("e2m1", "m16n8k128") if four_bit => (8, 4, 4),
        ("e4m3" | "e5m2" | "e3m2" | "e2m3" | "e2m1", "m16n8k64") => (4, 2, 4),
        _ => return Err(uncovered("no sparsity rule for this type and shape")),
    };
    Ok(Sparsity {
        block,
        nonzeros,
        threads,
        ordered: sp == "sp::ordered_metadata",
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
    /// - 2:4 (L23790, L23818, L23838): the two indices are the positions. `.sp` makes
    ///   `0b0000 0b0101 0b1010 0b1111` (both indices equal) undefined (L23778);
    ///   `.sp::ordered_metadata`, fp8/fp6/fp4 included, keeps only `0b0100 0b1000 0b1001 0b1100
    ///   0b1101 0b1110` (ascending pairs).
    /// - tf32 1:2 (L23804): one 4-bit index, `0b0100` or `0b1110` only; read as the two 16-bit
    ///   halves of a 32-bit element, they name element 0 and element 1 of the block.
    /// - pairwise 4:8 (L23824, L23850): the indices name two of the four two-element sub-blocks,
    ///   so the positions are `2i, 2i + 1` for each; the same values are meaningful as for 2:4.
    ///
    /// A value the manual makes undefined is an error.
    pub fn positions(&self, nibble: u32) -> Result<Vec<usize>, MatrixError> {
        let bad = || {
            MatrixError::Input(format!(
                "sparsity metadata index {nibble:#06b} is undefined (§9.7.14.6.1)"
            ))
        };
        let (lo, hi) = ((nibble & 3) as usize, (nibble >> 2 & 3) as usize);
        if nibble > 0xf {
            return Err(bad());
        }
        if self.block == 2 {
            return match nibble {
                0b0100 => Ok(vec![0]),
                0b1110 => Ok(vec![1]),
                _ => Err(bad()),
            };
        }
        let meaningful = if self.ordered { lo < hi } else { lo != hi };
        if !meaningful {
            return Err(bad());
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
            assert_eq!(
                a.cols * 2,
                crate::catalog::fragment::mnk(f.var("shape").unwrap()).unwrap().2
            );
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
}
