//! Golden-vector lines of the matrix multiply-accumulate forms (`mma.sync`, `wmma.mma`;
//! §9.7.14): one line is one multiply-accumulate, its operands the whole matrices rather than
//! the fragments a thread holds, so that the line means the same on every implementation and
//! the fragment layout is what a kernel built from it tests.
//!
//! ```text
//! # form: mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32
//! # columns: A:s8[8x16] B:s8[16x8] C:s32[8x8] -> D:s32[8x8] tag
//! 01 00*127 | 02*128 | 00000000*64 | 00000002*8 exact 00000000*56 exact
//! ```
//!
//! - The matrices in the order the header names them (A is M×K, B K×N, C and D M×N), each
//!   row-major, separated by `|`; elements are hex bit patterns zero-padded to the element
//!   type's width (an f16 four digits, an fp8 two, an `.s4` one, a `.b1` one digit `0`/`1`).
//! - `V*N` stands for N equal consecutive elements (row-major runs cross rows).
//! - D is written element by element as `VALUE TAG` (the tags of [`super::tag`]), a run of
//!   equal values with equal tags as `VALUE*N TAG`.
//! - The model values are those of the tensor core of the form's least target
//!   ([`crate::tensor::Arch::from_target`]); the tags are the sets the manual allows on every
//!   generation (`spec::tensor::accept`).
//!
//! `.row`/`.col` in a form name are how its fragments are laid out in registers or memory, not
//! how these lines are written: the matrices here are always row-major.

use super::{parse_hex, parse_tag, tag, HexError, LineError, TagError, Vector};
use crate::catalog::Form;
use crate::tensor::{mma, Arch, Elem, Kind as MmaKind, MmaOp};
use crate::types::Type;
use crate::value::{Input, Outcome};
use std::fmt::{self, Write as _};

/// One matrix of a line: its name (`A`, `B`, `C`, `D`), element type and shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mat {
    /// `A`, `B`, `C` or `D`.
    pub name: char,
    /// The element type (its width gives the hex digits).
    pub ty: Type,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
}

impl Mat {
    /// Elements, `rows · cols`.
    pub fn len(&self) -> usize {
        self.rows * self.cols
    }

    /// Whether the matrix has no elements (never, for a catalog form).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A scalar operand of a matrix line: `wgmma`'s `scale-d`, `imm-scale-a/b`, `imm-trans-a/b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scalar {
    /// The catalog's operand name (`scale_d`, `imm_scale_a`, ...).
    pub name: &'static str,
    /// Its type (a predicate is one digit, `0`/`1`).
    pub ty: Type,
}

/// The columns of a matrix form's lines: scalars and A, B, C in, D out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    /// The numerics of the form (on the generation of its least target).
    pub op: MmaOp,
    /// `wgmma`'s scalar operands, and `mma.sp`'s sparsity selector `f`, in PTX order, before
    /// the matrices (none for dense `mma`, `wmma`).
    pub scalars: Vec<Scalar>,
    /// `mma.sp`: A's structured sparsity. A is written dense (zeros where the sparsity prunes:
    /// each block keeps at most [`crate::matrix::Sparsity::nonzeros`] elements that are not +0, pairs of them
    /// for pairwise 4:8); the metadata operand `e` is the kernel's to derive, so a line says
    /// nothing of its layout.
    pub sparsity: Option<crate::matrix::Sparsity>,
    /// A, B and C.
    pub ins: [Mat; 3],
    /// D.
    pub out: Mat,
}

/// The element type of a matrix of element kind `e`.
fn elem_type(e: Elem) -> Option<Type> {
    use crate::types::Kind::{Bits, Signed, Unsigned};
    Some(match e {
        Elem::Float(f) => Type::parse(f.name())?,
        Elem::S32 => Type::int(Signed, 32),
        Elem::S8 => Type::int(Signed, 8),
        Elem::U8 => Type::int(Unsigned, 8),
        Elem::S4 => Type::int(Signed, 4),
        Elem::U4 => Type::int(Unsigned, 4),
        Elem::B1 => Type::int(Bits, 1),
    })
}

/// The columns of `form` when its vector lines are matrices: the dense `mma.sync`, `wmma.mma`
/// and `wgmma.mma_async` forms whose numerics the spec has ([`MmaOp::of_form`]); `None` for
/// every other form (scalar forms, and — not yet — sparse, block-scaled and `.b1` `wgmma`
/// forms).
pub fn columns(form: &Form) -> Option<Columns> {
    // Every line of every scalar form asks: answer those without building anything.
    form.var("shape")?;
    let arch = Arch::from_target(&form.target.to_string())?;
    let op = MmaOp::of_form(form, arch)?;
    // Sparse A is the compressed matrix with metadata: not these columns (yet).
    let sparse = match op.kind {
        MmaKind::Mma => form.var("sp").is_some(),
        MmaKind::Wgmma => form.mods.contains(&"sp"),
        MmaKind::Wmma => false,
    };
    let sparsity = if sparse {
        Some(crate::matrix::sparsity(form).ok()?)
    } else {
        None
    };
    // wgmma's scalars: every source that is neither a fragment nor a matrix descriptor.
    let scalars = match op.kind {
        MmaKind::Wgmma => form
            .inputs
            .iter()
            // `sp-meta` is the kernel's to derive from A, like `mma.sp`'s `e`.
            .filter(|o| o.group.is_none() && !o.name.ends_with("_desc") && o.name != "sp_meta")
            .map(|o| Scalar { name: o.name, ty: o.ty })
            .collect(),
        // mma.sp: the selector (the metadata `e` is derived from A by the kernel).
        _ => form
            .inputs
            .iter()
            .filter(|o| sparsity.is_some() && o.name == "f")
            .map(|o| Scalar { name: o.name, ty: o.ty })
            .collect(),
    };
    let (m, n, k) = op.shape;
    let mat = |name, e, rows, cols| {
        Some(Mat {
            name,
            ty: elem_type(e)?,
            rows,
            cols,
        })
    };
    Some(Columns {
        op,
        scalars,
        sparsity,
        ins: [mat('A', op.a, m, k)?, mat('B', op.b, k, n)?, mat('C', op.c, m, n)?],
        out: mat('D', op.d, m, n)?,
    })
}

impl Columns {
    /// The `# columns:` header value: `A:f16[16x16] B:f16[16x8] C:f32[16x8] -> D:f32[16x8] tag`.
    pub fn header(&self) -> String {
        let m = |x: &Mat| format!("{}:{}[{}x{}]", x.name, x.ty, x.rows, x.cols);
        let ins: Vec<String> = self.ins.iter().map(m).collect();
        let scalars: Vec<String> = self.scalars.iter().map(|x| format!("{}:{} ", x.name, x.ty)).collect();
        let bar = if scalars.is_empty() { "" } else { "| " };
        format!("{}{bar}{} -> {} tag", scalars.concat(), ins.join(" "), m(&self.out))
    }

    /// The value of scalar `name` in `ins` (the line's inputs, scalars first).
    fn scalar(&self, ins: &[u128], name: &str) -> Option<u128> {
        self.scalars.iter().position(|x| x.name == name).map(|i| ins[i])
    }

    /// D of the line's inputs (the scalars, then A, B, C, each row-major): the model values
    /// and acceptance sets of [`crate::tensor::mma`]. `wgmma` (L25770-25790): `imm-scale-a/b`
    /// −1 negates A/B (each element's sign bit flipped), `scale-d` 0 computes `A × B` without
    /// the accumulator (read as a +0 C, as the oracle executes it); `imm-trans-a/b` only say how
    /// A and B lie in shared memory. `None` when `ins` has the wrong length.
    pub fn eval(&self, ins: &[u128]) -> Option<Vec<Outcome>> {
        let [a, b, c] = self.ins.map(|x| x.len());
        let s = self.scalars.len();
        if ins.len() != s + a + b + c {
            return None;
        }
        let mut a_m = ins[s..s + a].to_vec();
        // The positions the kernel's metadata names (before any negation of A).
        let kept = match &self.sparsity {
            Some(sp) => {
                let dense: Vec<u64> = a_m.iter().map(|&x| x as u64).collect();
                Some(sp.kept_of_dense(self.op.shape.2, &dense).ok()?)
            }
            None => None,
        };
        let mut b_m = ins[s + a..s + a + b].to_vec();
        let mut c_m = ins[s + a + b..].to_vec();
        for (name, m, mat) in [
            ("imm_scale_a", &mut a_m, &self.ins[0]),
            ("imm_scale_b", &mut b_m, &self.ins[1]),
        ] {
            if self.scalar(ins, name).is_some_and(|v| v as u32 as i32 == -1) {
                let sign = 1u128 << (mat.ty.bits() - 1);
                // A sparse A's pruned elements are not negated: they stay +0 (the lines keep
                // every stored element non-zero, so the +0 elements are the pruned ones).
                let pruned = |x: u128| self.sparsity.is_some() && mat.name == 'A' && x == 0;
                m.iter_mut().filter(|x| !pruned(**x)).for_each(|x| *x ^= sign);
            }
        }
        if self.scalar(ins, "scale_d") == Some(0) {
            c_m.iter_mut().for_each(|x| *x = 0);
        }
        Some(match kept {
            Some(kept) => crate::tensor::mma_sparse(&self.op, &a_m, &b_m, &c_m, &kept),
            None => mma(&self.op, &a_m, &b_m, &c_m),
        })
    }
}

fn digits(ty: Type) -> usize {
    ty.bits().div_ceil(4) as usize
}

/// Writes `items` with runs of equal consecutive items as `X*N`.
fn runs<T: PartialEq>(s: &mut String, items: &[T], mut word: impl FnMut(&mut String, &T, usize)) {
    let mut i = 0;
    while i < items.len() {
        let n = items[i..].iter().take_while(|x| **x == items[i]).count();
        if !s.is_empty() && !s.ends_with(' ') {
            s.push(' ');
        }
        word(s, &items[i], n);
        i += n;
    }
}

/// Formats one line (without the newline).
pub fn format_line(cols: &Columns, v: &Vector) -> String {
    format_mats(&cols.scalars, &cols.ins, cols.out, v)
}

/// The line grammar on its own: `scalars` then the matrices `ins` in, `out` tagged
/// (shared with the data-movement forms, [`super::movement`]).
pub(crate) fn format_mats(scalars: &[Scalar], ins: &[Mat], out: Mat, v: &Vector) -> String {
    let mut s = String::with_capacity(1024);
    for (x, i) in scalars.iter().zip(&v.ins) {
        let _ = write!(s, "{:0w$x} ", i.bits, w = digits(x.ty));
    }
    if !scalars.is_empty() {
        s.push('|');
    }
    let mut at = scalars.len();
    for m in ins {
        let bits: Vec<u128> = v.ins[at.min(v.ins.len())..(at + m.len()).min(v.ins.len())]
            .iter()
            .map(|i| i.bits)
            .collect();
        at += m.len();
        runs(&mut s, &bits, |s, &b, n| {
            let _ = write!(s, "{:0w$x}", b, w = digits(m.ty));
            if n > 1 {
                let _ = write!(s, "*{n}");
            }
        });
        s.push_str(" |");
    }
    let d = out;
    let tagged: Vec<(u128, String)> = v.outs.iter().map(|o| (o.model, tag(o, d.ty))).collect();
    runs(&mut s, &tagged, |s, (b, t), n| {
        let _ = write!(s, "{:0w$x}", b, w = digits(d.ty));
        if n > 1 {
            let _ = write!(s, "*{n}");
        }
        let _ = write!(s, " {t}");
    });
    s
}

/// What is wrong with a matrix line (the matrix and the element index name the place).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatrixLineError {
    /// A scalar operand (or the `|` after the scalars) that is missing or not a value of its
    /// type.
    Scalar {
        /// The operand's name (`|` for the separator).
        name: &'static str,
        /// What was found.
        found: String,
    },
    /// The line ends before the matrix is complete.
    Missing {
        /// The matrix.
        matrix: char,
        /// Elements read so far.
        have: usize,
        /// Elements it has.
        want: usize,
    },
    /// A run or the `|` after a matrix does not end where the matrix does.
    Boundary {
        /// The matrix.
        matrix: char,
        /// What was found where the matrix should end.
        found: String,
    },
    /// A repeat count that is not a number from 1 up.
    Count {
        /// The word.
        word: String,
    },
    /// An element that is not a value of the matrix's type.
    Element {
        /// The matrix.
        matrix: char,
        /// The element's row-major index.
        index: usize,
        /// What is wrong.
        source: HexError,
    },
    /// A D element's tag does not parse.
    Tag {
        /// The element's row-major index.
        index: usize,
        /// What is wrong.
        source: TagError,
    },
}

impl fmt::Display for MatrixLineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatrixLineError::Missing { matrix, have, want } => {
                write!(f, "matrix {matrix} ends after {have} of its {want} elements")
            }
            MatrixLineError::Boundary { matrix, found } => {
                write!(f, "expected `|` after matrix {matrix}, found `{found}`")
            }
            MatrixLineError::Scalar { name, found } => write!(f, "operand {name}: `{found}`"),
            MatrixLineError::Count { word } => write!(f, "`{word}`: bad repeat count"),
            MatrixLineError::Element { matrix, index, source } => write!(f, "{matrix}[{index}]: {source}"),
            MatrixLineError::Tag { index, source } => write!(f, "D[{index}]: {source}"),
        }
    }
}

impl std::error::Error for MatrixLineError {}

/// `V` or `V*N`.
fn split_run(w: &str) -> Result<(&str, usize), MatrixLineError> {
    match w.split_once('*') {
        None => Ok((w, 1)),
        Some((v, n)) => match n.parse::<usize>() {
            Ok(n) if n >= 1 => Ok((v, n)),
            _ => Err(MatrixLineError::Count { word: w.to_string() }),
        },
    }
}

/// Parses one line (the inverse of [`format_line`]).
pub fn parse_line(cols: &Columns, line: &str) -> Result<Vector, LineError> {
    parse_mats(&cols.scalars, &cols.ins, cols.out, line).map_err(LineError::Matrix)
}

/// The inverse of [`format_mats`].
pub(crate) fn parse_mats(scalars: &[Scalar], mats: &[Mat], out: Mat, line: &str) -> Result<Vector, MatrixLineError> {
    let mut words = line.split_ascii_whitespace();
    let mut ins = Vec::with_capacity(scalars.len() + mats.iter().map(Mat::len).sum::<usize>());
    for x in scalars {
        let w = words.next().ok_or_else(|| MatrixLineError::Scalar {
            name: x.name,
            found: "the end of the line".into(),
        })?;
        let bits = parse_hex(x.ty, w).map_err(|_| MatrixLineError::Scalar {
            name: x.name,
            found: w.to_string(),
        })?;
        ins.push(Input {
            bits,
            ..Input::default()
        });
    }
    if !scalars.is_empty() {
        match words.next() {
            Some("|") => {}
            other => {
                return Err(MatrixLineError::Scalar {
                    name: "|",
                    found: other.unwrap_or("the end of the line").to_string(),
                })
            }
        }
    }
    for m in mats {
        let start = ins.len();
        while ins.len() - start < m.len() {
            let have = ins.len() - start;
            let w = words.next().ok_or(MatrixLineError::Missing {
                matrix: m.name,
                have,
                want: m.len(),
            })?;
            let (v, n) = split_run(w)?;
            if v == "|" || have + n > m.len() {
                return Err(MatrixLineError::Boundary {
                    matrix: m.name,
                    found: w.to_string(),
                });
            }
            let bits = parse_hex(m.ty, v).map_err(|source| MatrixLineError::Element {
                matrix: m.name,
                index: have,
                source,
            })?;
            ins.extend(std::iter::repeat_n(
                Input {
                    bits,
                    ..Input::default()
                },
                n,
            ));
        }
        match words.next() {
            Some("|") => {}
            other => {
                return Err(MatrixLineError::Boundary {
                    matrix: m.name,
                    found: other.unwrap_or("the end of the line").to_string(),
                })
            }
        }
    }
    let d = out;
    let mut outs = Vec::with_capacity(d.len());
    while outs.len() < d.len() {
        let missing = || MatrixLineError::Missing {
            matrix: d.name,
            have: outs.len(),
            want: d.len(),
        };
        let w = words.next().ok_or_else(missing)?;
        let (v, n) = split_run(w)?;
        if outs.len() + n > d.len() {
            return Err(MatrixLineError::Boundary {
                matrix: d.name,
                found: w.to_string(),
            });
        }
        let index = outs.len();
        let model = parse_hex(d.ty, v).map_err(|source| MatrixLineError::Element {
            matrix: d.name,
            index,
            source,
        })?;
        let t = words.next().ok_or_else(missing)?;
        let accept = parse_tag(t, d.ty).map_err(|source| MatrixLineError::Tag { index, source })?;
        outs.extend(std::iter::repeat_n(Outcome { model, accept }, n));
    }
    if let Some(w) = words.next() {
        return Err(MatrixLineError::Boundary {
            matrix: d.name,
            found: w.to_string(),
        });
    }
    Ok(Vector { dsel: None, ins, outs })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Accept;

    use crate::catalog::test_form as form;

    #[test]
    fn columns_of_mma_and_wmma() {
        let c = columns(form("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")).unwrap();
        assert_eq!(c.header(), "A:f16[16x16] B:f16[16x8] C:f32[16x8] -> D:f32[16x8] tag");
        let c = columns(form("wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32")).unwrap();
        assert_eq!(c.header(), "A:s4[8x32] B:s4[32x8] C:s32[8x8] -> D:s32[8x8] tag");
        assert!(columns(form("add.s32")).is_none());
    }

    /// A×B + C written, read back, and evaluated: an integer form is exact, so D is known.
    #[test]
    fn integer_line_round_trips() {
        let f = form("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32");
        let c = columns(f).unwrap();
        // A = all 1, B = all 2 (s8), C = 0..64: D[i] = 16·2 + i.
        let mut ins: Vec<u128> = vec![1; 128];
        ins.extend(vec![2; 128]);
        ins.extend(0..64u128);
        let outs = c.eval(&ins).unwrap();
        assert!(outs
            .iter()
            .enumerate()
            .all(|(i, o)| o.model == 32 + i as u128 && o.accept == Accept::Exact));
        let v = Vector::whole(&ins, outs);
        let line = format_line(&c, &v);
        assert!(line.starts_with("01*128 | 02*128 | 00000000 00000001 "), "{line}");
        assert!(line.ends_with("0000005f exact"), "{line}");
        assert_eq!(parse_line(&c, &line).unwrap(), v);
    }

    #[test]
    fn bad_lines_name_the_place() {
        let c = columns(form("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32")).unwrap();
        let ok = "01*128 | 02*128 | 00000000*64 | 00000020*64 exact";
        assert!(parse_line(&c, ok).is_ok(), "{ok}");
        for (line, want) in [
            (
                "01*127 | 02*128 | 00000000*64 | 00000020*64 exact",
                "expected `|` after matrix A",
            ),
            (
                "01*129 | 02*128 | 00000000*64 | 00000020*64 exact",
                "expected `|` after matrix A",
            ),
            (
                "01*128 | 02*128 | 00000000*64 | 00000020*63 exact",
                "matrix D ends after 63",
            ),
            (
                "01*128 | 2*128 | 00000000*64 | 00000020*64 exact",
                "B[0]: `2` is not 2 hex digits",
            ),
            ("01*128 | 02*128 | 00000000*64 | 00000020*64 exactly", "D[0]:"),
            ("01*0 | 02*128 | 00000000*64 | 00000020*64 exact", "bad repeat count"),
            ("01*128 | 02*128 | 00000000*64 | 00000020*64 exact x", "found `x`"),
        ] {
            let e = parse_line(&c, line).unwrap_err().to_string();
            assert!(e.contains(want), "{line}: {e}");
        }
    }
}
