//! Golden-vector lines of the block-scaled `mma.sync` forms (§9.7.14.3, `.block_scale`):
//! `D = (A · scale_A) × (B · scale_B) + C`, the matrix lines of [`super::matrix`] with the
//! selectors before the matrices and the two scale-factor matrices after C.
//!
//! ```text
//! # columns: byte_id_a:u16 thread_id_a:u16 byte_id_b:u16 thread_id_b:u16 | A:e4m3[16x32] B:e4m3[32x8] C:f32[16x8] SFA:ue8m0[16x1] SFB:ue8m0[1x8] -> D:f32[16x8] tag
//! ```
//!
//! - The selectors `{byte-id-a, thread-id-a}`, `{byte-id-b, thread-id-b}` (Table 36 values):
//!   which bytes of which threads' `scale-a-data`/`scale-b-data` hold the factors — the
//!   kernel's to arrange, and what running the line tests.
//! - `SFA` is scale_A, M × `.scale_vec_size` (row r, block v scales A's row r at K positions
//!   `v·K/vec ..`); `SFB` is scale_B, `vec` × N.
//! - A and B hold the elements themselves (an e2m1 as 4 bits), not their 8-bit containers.
//!
//! The sparse forms (`mma.sp::ordered_metadata ... .block_scale`, §9.7.14.6.3, L24431-24449)
//! put the sparsity selector `f` before the selectors, as PTX writes it before `scale-a-data`
//! (`d, a, b, c, e, f, scale-a-data, {byte-id-a, thread-id-a}, ...`, L24431), and write A as
//! the sparse matrix lines of [`super::matrix`] do: dense, at the dense K, the stored elements
//! exactly those that are not +0; the metadata `e` is the kernel's to derive.
//!
//! ```text
//! # columns: f:u32 byte_id_a:u16 thread_id_a:u16 byte_id_b:u16 thread_id_b:u16 | A:e4m3[16x64] B:e4m3[64x8] C:f32[16x8] SFA:ue8m0[16x1] SFB:ue8m0[1x8] -> D:f32[16x8] tag
//! ```

use super::matrix::{format_mats, parse_mats, Mat, MatrixLineError, Scalar};
use super::{LineError, Vector};
use crate::catalog::Form;
use crate::matrix::Sparsity;
use crate::tensor::scaled::{mma, ScaledOp};
use crate::types::{FloatFormat, Kind, Type};
use crate::value::Outcome;

/// The columns of a block-scaled form's lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    /// The numerics.
    pub op: ScaledOp,
    /// `mma.sp::ordered_metadata`: A's structured sparsity (A written dense, as
    /// [`super::matrix::Columns::sparsity`] describes).
    pub sparsity: Option<Sparsity>,
    /// `f` for a sparse form, then `byte_id_a`, `thread_id_a`, `byte_id_b`, `thread_id_b`.
    pub scalars: Vec<Scalar>,
    /// A, B, C, SFA, SFB.
    pub ins: [Mat; 5],
    /// D.
    pub out: Mat,
}

fn float(f: FloatFormat) -> Type {
    Type {
        kind: Kind::Float(f),
        lane_bits: f.bits(),
        lanes: 1,
    }
}

/// The columns of `form` when it is a block-scaled `mma` or `mma.sp::ordered_metadata`
/// ([`ScaledOp::of_form`]).
pub fn columns(form: &Form) -> Option<Columns> {
    // Every line of every scalar form asks: answer those without building anything.
    if !form.has("block_scale") {
        return None;
    }
    let op = ScaledOp::of_form(form)?;
    let (m, n, k) = op.shape;
    let sparsity = match form.var("sp") {
        Some(_) => Some(crate::matrix::sparsity(form).ok()?),
        None => None,
    };
    let u16t = Type::int(Kind::Unsigned, 16);
    // The sparsity selector as the catalog types it (`f:u32`), in PTX order before the rest.
    let f = form
        .inputs
        .iter()
        .find(|o| o.name == "f")
        .filter(|_| sparsity.is_some());
    let scalars = f
        .map(|o| Scalar { name: o.name, ty: o.ty })
        .into_iter()
        .chain(
            ["byte_id_a", "thread_id_a", "byte_id_b", "thread_id_b"]
                .into_iter()
                .map(|name| Scalar { name, ty: u16t }),
        )
        .collect();
    let mat = |name, ty, rows, cols| Mat { name, ty, rows, cols };
    Some(Columns {
        op,
        sparsity,
        scalars,
        ins: [
            mat('A', float(op.a), m, k),
            mat('B', float(op.b), k, n),
            mat('C', float(FloatFormat::F32), m, n),
            mat('S', float(op.scale), m, op.vec),
            mat('T', float(op.scale), op.vec, n),
        ],
        out: mat('D', float(FloatFormat::F32), m, n),
    })
}

impl Columns {
    /// The `# columns:` header value.
    pub fn header(&self) -> String {
        let m = |x: &Mat| {
            let name = match x.name {
                'S' => "SFA".to_string(),
                'T' => "SFB".to_string(),
                c => c.to_string(),
            };
            format!("{name}:{}[{}x{}]", x.ty, x.rows, x.cols)
        };
        let scalars: Vec<String> = self.scalars.iter().map(|x| format!("{}:{}", x.name, x.ty)).collect();
        let ins: Vec<String> = self.ins.iter().map(m).collect();
        format!("{} | {} -> {} tag", scalars.join(" "), ins.join(" "), m(&self.out))
    }

    /// The selectors `[byte-id-a, thread-id-a, byte-id-b, thread-id-b]` of a line's inputs
    /// (after `f` on a sparse form's line).
    pub fn selectors(&self, ins: &[u128]) -> [u128; 4] {
        let s = self.scalars.len() - 4;
        [ins[s], ins[s + 1], ins[s + 2], ins[s + 3]]
    }

    /// D of a line's inputs (scalars, then A, B, C, SFA, SFB): [`crate::tensor::scaled::mma`]
    /// on the elements (the kernel puts them in their containers); a sparse form's A is the
    /// dense one the line holds. `None` when `ins` has the wrong length.
    pub fn eval(&self, ins: &[u128]) -> Option<Vec<Outcome>> {
        let mut at = self.scalars.len();
        let mut mats: Vec<Vec<u128>> = Vec::with_capacity(5);
        for m in &self.ins {
            mats.push(ins.get(at..at + m.len())?.to_vec());
            at += m.len();
        }
        if at != ins.len() {
            return None;
        }
        Some(mma(&self.op, &mats[0], &mats[1], &mats[2], &mats[3], &mats[4]))
    }
}

/// Formats one line.
pub fn format_line(cols: &Columns, v: &Vector) -> String {
    format_mats(&cols.scalars, &cols.ins, cols.out, v)
}

/// Parses one line (the inverse of [`format_line`]).
pub fn parse_line(cols: &Columns, line: &str) -> Result<Vector, LineError> {
    parse_mats(&cols.scalars, &cols.ins, cols.out, line).map_err(|e: MatrixLineError| LineError::Matrix(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::catalog::test_form as form;

    /// 1·1 summed over K = 32 with scale factors 2^1 and 2^2, C = 1: 1 + 32·8 = 257; the line
    /// round-trips.
    #[test]
    fn scaled_line_round_trips_and_evaluates() {
        let f =
            form("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0");
        let c = columns(f).unwrap();
        assert!(
            c.header()
                .starts_with("byte_id_a:u16 thread_id_a:u16 byte_id_b:u16 thread_id_b:u16 | A:e4m3[16x32]"),
            "{}",
            c.header()
        );
        let mut ins: Vec<u128> = vec![0, 1, 3, 2];
        ins.extend(vec![0x38; 16 * 32]);
        ins.extend(vec![0x38; 32 * 8]);
        ins.extend(vec![0x3f80_0000; 128]);
        ins.extend(vec![128; 16]);
        ins.extend(vec![129; 8]);
        let outs = c.eval(&ins).unwrap();
        assert!(
            outs.iter().all(|o| o.model == u128::from(257f32.to_bits())),
            "{:x}",
            outs[0].model
        );
        let v = Vector::whole(&ins, outs);
        let line = format_line(&c, &v);
        assert!(
            line.starts_with("0000 0001 0003 0002 | 38*512 | 38*256 | 3f800000*128 | 80*16 | 81*8 | "),
            "{line}"
        );
        assert_eq!(parse_line(&c, &line).unwrap(), v);
        assert!(columns(form("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")).is_none());
    }

    fn line_of(c: &Columns, ins: &[u128]) -> Vector {
        Vector::whole(ins, c.eval(ins).unwrap())
    }

    /// A sparse fp8 line by hand: the compressed A all e4m3 1.0 and the metadata written from
    /// the figures' reading (every block 0b1100: positions 0 and 3; lane 0's bits 3..0, row 0's
    /// K 0..3, 0b1001: positions 1 and 2), B 1.0 at K ≡ 0, 2.0 at K ≡ 3 and 0.5 at K ≡ 1, 2
    /// (mod 4), C = 1, scale_A 1 but row 5 (2^3), scale_B 1 but column 2 (2^-1). Per row the
    /// 16 blocks give 1·1 + 1·2 = 3 each, row 0's first 0.5 + 0.5: Σ = 48 (row 0: 46), and D
    /// is 1 + Σ·SF_A·SF_B, computed here in f64 on its own.
    #[test]
    fn sparse_fp8_line_by_hand() {
        let f = form(
            "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0",
        );
        let c = columns(f).unwrap();
        let sp = c.sparsity.unwrap();
        assert!(
            c.header()
                .starts_with("f:u32 byte_id_a:u16 thread_id_a:u16 byte_id_b:u16 thread_id_b:u16 | A:e4m3[16x64]"),
            "{}",
            c.header()
        );
        let compressed = vec![0x38u64; 16 * 32];
        let mut e = vec![0xcccc_ccccu64; 32];
        e[0] = 0xcccc_ccc9;
        let dense = sp.decompress(64, &compressed, &e, 0).unwrap();
        assert_eq!(dense[..8], [0, 0x38, 0x38, 0, 0x38, 0, 0, 0x38]);
        assert_eq!(dense[64..68], [0x38, 0, 0, 0x38]);
        // The kernel's side: compressing the dense A gives back this metadata.
        assert_eq!(sp.compress(64, &dense, 0).unwrap(), (compressed, e));
        let b: Vec<u128> = (0..64 * 8)
            .map(|i| match (i / 8) % 4 {
                0 => 0x38,
                3 => 0x40,
                _ => 0x30,
            })
            .collect();
        let sfa: Vec<u128> = (0..16).map(|r| if r == 5 { 130 } else { 127 }).collect();
        let sfb: Vec<u128> = (0..8).map(|j| if j == 2 { 126 } else { 127 }).collect();
        let mut ins: Vec<u128> = vec![0, 0, 0, 0, 0];
        ins.extend(dense.iter().map(|&x| u128::from(x)));
        ins.extend(&b);
        ins.extend(vec![u128::from(1f32.to_bits()); 128]);
        ins.extend(&sfa);
        ins.extend(&sfb);
        let v = line_of(&c, &ins);
        for i in 0..16 {
            for j in 0..8 {
                let sum = if i == 0 { 46.0 } else { 48.0 };
                let sa = if i == 5 { 8.0 } else { 1.0 };
                let sb = if j == 2 { 0.5 } else { 1.0 };
                let want = (1.0f64 + sum * sa * sb) as f32;
                let d = &v.outs[i * 8 + j];
                assert_eq!(d.model, u128::from(want.to_bits()), "D[{i}][{j}]");
                assert!(d.accepts(d.model));
            }
        }
        let line = format_line(&c, &v);
        assert!(line.starts_with("00000000 0000 0000 0000 0000 | "), "{line}");
        assert_eq!(parse_line(&c, &line).unwrap(), v);
    }

    /// A sparse e2m1 line of `.kind::mxf4nvf4` with `.scale_vec::4X` by hand: pairwise 4:8
    /// (L23850), every index field 0b1100 (pairs 0 and 3: K positions 0, 1, 6, 7 of each
    /// eight), the stored elements all 1.0 (0x2); B 1.5 (0x3) where A is stored and 6.0 (0x7)
    /// where it is pruned; one non-zero scale_A factor, row 3's block 2 (K 64..95, ue4m3 1.0),
    /// scale_B 2.0 everywhere (0x40). Only row 3 sees a product: 4 · 4 · 1.5 · 1 · 2 = 48, so
    /// D is 49 in row 3 and C = 1 elsewhere, exactly.
    #[test]
    fn sparse_fp4_line_with_one_nonzero_scale() {
        let f = form(
            "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
        );
        let c = columns(f).unwrap();
        let sp = c.sparsity.unwrap();
        assert_eq!((sp.block, sp.nonzeros, sp.threads), (8, 4, 4));
        let dense = sp.decompress(128, &vec![0x2; 16 * 64], &[0xcccc_cccc; 32], 0).unwrap();
        assert_eq!(dense[..8], [2, 2, 0, 0, 0, 0, 2, 2]);
        let b: Vec<u128> = (0..128 * 8)
            .map(|i| if matches!((i / 8) % 8, 0 | 1 | 6 | 7) { 0x3 } else { 0x7 })
            .collect();
        let mut sfa = vec![0u128; 16 * 4];
        sfa[3 * 4 + 2] = 0x38;
        let mut ins: Vec<u128> = vec![0, 0, 0, 0, 0];
        ins.extend(dense.iter().map(|&x| u128::from(x)));
        ins.extend(&b);
        ins.extend(vec![u128::from(1f32.to_bits()); 128]);
        ins.extend(&sfa);
        ins.extend(vec![0x40u128; 4 * 8]);
        let v = line_of(&c, &ins);
        for (i, d) in v.outs.iter().enumerate() {
            let want: f32 = if i / 8 == 3 { 49.0 } else { 1.0 };
            assert_eq!(d.model, u128::from(want.to_bits()), "D[{}][{}]", i / 8, i % 8);
        }
        assert_eq!(c.selectors(&ins), [0; 4]);
        assert_eq!(parse_line(&c, &format_line(&c, &v)).unwrap(), v);
    }
}
