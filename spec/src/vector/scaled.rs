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

use super::matrix::{format_mats, parse_mats, Mat, MatrixLineError, Scalar};
use super::{LineError, Vector};
use crate::catalog::Form;
use crate::tensor::scaled::{mma, ScaledOp};
use crate::types::{FloatFormat, Kind, Type};
use crate::value::Outcome;

/// The columns of a block-scaled form's lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    /// The numerics.
    pub op: ScaledOp,
    /// `byte_id_a`, `thread_id_a`, `byte_id_b`, `thread_id_b`.
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

/// The columns of `form` when it is a dense block-scaled `mma` ([`ScaledOp::of_form`]).
pub fn columns(form: &Form) -> Option<Columns> {
    // Every line of every scalar form asks: answer those without building anything.
    if !form.has("block_scale") {
        return None;
    }
    let op = ScaledOp::of_form(form)?;
    let (m, n, k) = op.shape;
    let u16t = Type::int(Kind::Unsigned, 16);
    let scalars = ["byte_id_a", "thread_id_a", "byte_id_b", "thread_id_b"]
        .into_iter()
        .map(|name| Scalar { name, ty: u16t })
        .collect();
    let mat = |name, ty, rows, cols| Mat { name, ty, rows, cols };
    Some(Columns {
        op,
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

    /// D of a line's inputs (selectors, then A, B, C, SFA, SFB): [`crate::tensor::scaled::mma`]
    /// on the elements (the kernel puts them in their containers). `None` when `ins` has the
    /// wrong length.
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
    use crate::catalog::catalog;
    use crate::value::Input;

    fn form(name: &str) -> &'static Form {
        let cat = catalog();
        &cat.forms[cat.by_name(name)[0]]
    }

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
        let v = Vector {
            dsel: None,
            ins: ins
                .iter()
                .map(|&bits| Input {
                    bits,
                    ..Input::default()
                })
                .collect(),
            outs,
        };
        let line = format_line(&c, &v);
        assert!(
            line.starts_with("0000 0001 0003 0002 | 38*512 | 38*256 | 3f800000*128 | 80*16 | 81*8 | "),
            "{line}"
        );
        assert_eq!(parse_line(&c, &line).unwrap(), v);
        assert!(columns(form("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")).is_none());
    }
}
