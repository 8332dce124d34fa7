//! Golden-vector lines of the warp-level data-movement forms (§9.7.14.5.15-17): `ldmatrix`,
//! `stmatrix`, `movmatrix`. The grammar is the matrix forms' ([`super::matrix`]): matrices
//! row-major, separated by `|`, `V*N` runs, the output element by element as `VALUE TAG`.
//!
//! ```text
//! # form: ldmatrix.sync.aligned.m8n8.x1.b16
//! # columns: M:b16[8x8] -> R:b32[32x1] tag
//! 0000 0001 ... 003f | 00010000 exact 00030002 exact ...
//! ```
//!
//! - `M` is the memory side: the matrices' rows as they lie in memory, row `i` the one whose
//!   address lane `i` gives (matrix `j`'s rows are `R·j .. R·j + R`, `R` its memory rows: the
//!   address table L23437-23467). `.b16` shapes write a row as eight 16-bit elements, the
//!   sm_100a shapes as its sixteen bytes — for the unpacking forms the *packed* bytes, padding
//!   included, so that the line says what memory holds and the unpacking is what is tested.
//! - `R` is the register side, lane-major: row `l` is lane `l`'s registers in PTX order
//!   (matrix 0's first). `movmatrix`: `A` is every lane's source register, `D` its destination.
//! - Every output element is `exact`: these forms move bits.
//!
//! Forms the manual forbids ([`crate::matrix::wide::forbidden`]: `.m16n16` without `.trans`
//! or with `.x4`, `stmatrix .m16n8` without `.trans`) and forms ptxas refuses have no columns
//! here: the forbidden ones' vector is `refused` ([`super::refused`]).

use super::matrix::{format_mats, parse_mats, Mat};
use super::{LineError, Vector};
use crate::catalog::{catalog, Exec, Form};
use crate::matrix::wide::WideAccess;
use crate::matrix::{ldmatrix, movmatrix, stmatrix, Access};
use crate::types::{Kind, Type};
use crate::value::Outcome;

/// Which way the data moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// `ldmatrix`: memory rows to registers.
    Load,
    /// `stmatrix`: registers to memory rows.
    Store,
    /// `movmatrix`: registers to registers (a transpose across the warp).
    Transpose,
}

/// The columns of a data-movement form's lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    /// Which way.
    pub dir: Move,
    /// Memory rows addressed (`M`'s rows), 0 for `movmatrix`.
    pub rows: usize,
    /// 32-bit registers per lane.
    pub regs: usize,
    /// The input matrix (`M` for `ldmatrix`, `R` for `stmatrix`, `A` for `movmatrix`).
    pub input: Mat,
    /// The output matrix (`R`, `M`, `D`).
    pub out: Mat,
}

const fn bits(n: u32) -> Type {
    Type::int(Kind::Bits, n)
}

/// The columns of `form` when it is a data-movement form with vectors; `None` otherwise
/// (including the forbidden and ptxas-refused forms, see the module documentation).
pub fn columns(form: &Form) -> Option<Columns> {
    let dir = match form.exec()? {
        Exec::Ldmatrix => Move::Load,
        Exec::Stmatrix => Move::Store,
        Exec::Movmatrix => Move::Transpose,
        _ => return None,
    };
    if catalog().ptxas_rejects(form).is_some() {
        return None;
    }
    // (memory rows, memory element type, elements per row, registers per lane)
    let (rows, elem, per_row, regs) = match dir {
        Move::Transpose => (0, bits(32), 1, 1),
        _ => match (Access::of(form), WideAccess::of(form)) {
            (Ok(a), _) => (8 * a.num, bits(16), 8, a.num),
            (_, Ok(w)) if w.invalid().is_none() => (w.rows() * w.num, bits(8), 16, w.num * w.regs()),
            _ => return None,
        },
    };
    let mem = Mat {
        name: 'M',
        ty: elem,
        rows,
        cols: per_row,
    };
    let reg = |name| Mat {
        name,
        ty: bits(32),
        rows: 32,
        cols: regs,
    };
    let (input, out) = match dir {
        Move::Load => (mem, reg('R')),
        Move::Store => (reg('R'), mem),
        Move::Transpose => (reg('A'), reg('D')),
    };
    Some(Columns {
        dir,
        rows,
        regs,
        input,
        out,
    })
}

/// Where row `i` lies in the memory image [`Columns::eval`] builds: 16-byte rows, contiguous.
fn row_addr(i: usize) -> u64 {
    16 * i as u64
}

impl Columns {
    /// The `# columns:` header value: `M:b16[32x8] -> R:b32[32x4] tag`.
    pub fn header(&self) -> String {
        let m = |x: &Mat| format!("{}:{}[{}x{}]", x.name, x.ty, x.rows, x.cols);
        format!("{} -> {} tag", m(&self.input), m(&self.out))
    }

    /// The output of the line's input (row-major) by the spec's semantics
    /// ([`crate::matrix::ldmatrix`], [`stmatrix`], [`movmatrix`]); the rows lie contiguously
    /// (the layout of memory does not change what moves: the kernels vary it). `None` when
    /// `ins` has the wrong length or the semantics refuse.
    pub fn eval(&self, form: &Form, ins: &[u128]) -> Option<Vec<Outcome>> {
        if ins.len() != self.input.len() {
            return None;
        }
        let addrs: [u64; 32] = std::array::from_fn(row_addr);
        let exact = |v: &[u32]| v.iter().map(|&x| Outcome::exact(u128::from(x))).collect();
        match self.dir {
            Move::Transpose => {
                let a: [u32; 32] = std::array::from_fn(|l| ins[l] as u32);
                Some(exact(&movmatrix(&a)))
            }
            Move::Load => {
                let w = self.elem_bytes_mem();
                let image: Vec<u8> = ins
                    .iter()
                    .flat_map(|&e| (e as u16).to_le_bytes()[..w].to_vec())
                    .collect();
                let mut read = |a: u64, n: usize| -> Result<Vec<u8>, ()> {
                    image.get(a as usize..a as usize + n).map(<[u8]>::to_vec).ok_or(())
                };
                let regs = ldmatrix(form, &addrs, &mut read).ok()?;
                let flat: Vec<u32> = regs.concat();
                (flat.len() == self.out.len()).then(|| exact(&flat))
            }
            Move::Store => {
                let regs: Vec<Vec<u32>> = ins
                    .chunks(self.regs)
                    .map(|r| r.iter().map(|&x| x as u32).collect())
                    .collect();
                let mut image = vec![0u8; 16 * self.rows];
                let mut write = |a: u64, b: &[u8]| -> Result<(), ()> {
                    image
                        .get_mut(a as usize..a as usize + b.len())
                        .ok_or(())?
                        .copy_from_slice(b);
                    Ok(())
                };
                stmatrix(form, &addrs, &regs, &mut write).ok()?;
                let w = self.elem_bytes_mem();
                Some(
                    image
                        .chunks(w)
                        .map(|c| Outcome::exact(c.iter().rev().fold(0u128, |x, &b| x << 8 | u128::from(b))))
                        .collect(),
                )
            }
        }
    }

    /// Bytes of one memory element (2 for `.b16`, 1 for the sm_100a shapes' bytes).
    fn elem_bytes_mem(&self) -> usize {
        let m = if self.dir == Move::Load { self.input } else { self.out };
        (m.ty.bits() / 8) as usize
    }
}

/// Formats one line (without the newline).
pub fn format_line(cols: &Columns, v: &Vector) -> String {
    format_mats(&[], &[cols.input], cols.out, v)
}

/// Parses one line (the inverse of [`format_line`]).
pub fn parse_line(cols: &Columns, line: &str) -> Result<Vector, LineError> {
    parse_mats(&[], &[cols.input], cols.out, line).map_err(LineError::Matrix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector::matrix::MatrixLineError;

    use crate::catalog::test_form as form;

    #[test]
    fn headers() {
        let h = |n: &str| columns(form(n)).map(|c| c.header());
        assert_eq!(
            h("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16").as_deref(),
            Some("M:b16[32x8] -> R:b32[32x4] tag")
        );
        assert_eq!(
            h("ldmatrix.sync.aligned.m16n16.x2.trans.b8").as_deref(),
            Some("M:b8[32x16] -> R:b32[32x4] tag")
        );
        assert_eq!(
            h("ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b4x16_p64").as_deref(),
            Some("M:b8[8x16] -> R:b32[32x1] tag")
        );
        assert_eq!(
            h("stmatrix.sync.aligned.m16n8.x4.trans.shared.b8").as_deref(),
            Some("R:b32[32x4] -> M:b8[32x16] tag")
        );
        assert_eq!(
            h("movmatrix.sync.aligned.m8n8.trans.b16").as_deref(),
            Some("A:b32[32x1] -> D:b32[32x1] tag")
        );
        // Forbidden by the manual: no vectors.
        assert_eq!(h("ldmatrix.sync.aligned.m16n16.x1.shared.b8"), None);
        assert_eq!(h("ldmatrix.sync.aligned.m16n16.x4.trans.shared.b8"), None);
        assert_eq!(h("stmatrix.sync.aligned.m16n8.x1.shared.b8"), None);
        assert_eq!(h("add.s32"), None);
    }

    /// The forms without vectors are exactly those the manual forbids, and those are exactly
    /// the data-movement forms ptxas 12.9 refuses.
    #[test]
    fn forbidden_forms_are_the_refused_ones() {
        let cat = catalog();
        let (mut with, mut without) = (0, 0);
        for f in cat
            .forms
            .iter()
            .filter(|f| matches!(f.exec(), Some(Exec::Ldmatrix | Exec::Stmatrix | Exec::Movmatrix)))
        {
            let forbidden = WideAccess::of(f).is_ok_and(|w| w.invalid().is_some());
            assert_eq!(forbidden, cat.ptxas_rejects(f).is_some(), "{}", f.name);
            assert_eq!(columns(f).is_none(), forbidden, "{}", f.name);
            if forbidden {
                without += 1;
            } else {
                with += 1;
            }
        }
        assert_eq!((with, without), (82, 27));
    }

    /// A line written, read back and evaluated: ldmatrix.x1 of row i = elements 8i..8i+8.
    #[test]
    fn line_round_trips() {
        let f = form("ldmatrix.sync.aligned.m8n8.x1.b16");
        let c = columns(f).unwrap();
        let ins: Vec<u128> = (0..64).collect();
        let outs = c.eval(f, &ins).unwrap();
        // Lane 5: row 1, columns 2 and 3 (L23475).
        assert_eq!(outs[5], Outcome::exact(11 << 16 | 10));
        let v = crate::vector::Vector::whole(&ins, outs);
        let line = format_line(&c, &v);
        assert!(line.starts_with("0000 0001 "), "{line}");
        assert!(line.contains(" | 00010000 exact 00030002 exact"), "{line}");
        assert_eq!(parse_line(&c, &line).unwrap(), v);
        // A short output, an extra word, a bad element: typed errors naming the matrix.
        let short = line.rsplitn(3, ' ').nth(2).unwrap();
        assert!(matches!(
            parse_line(&c, short),
            Err(LineError::Matrix(MatrixLineError::Missing { matrix: 'R', .. }))
        ));
        assert!(matches!(
            parse_line(&c, &format!("{line} 0")),
            Err(LineError::Matrix(MatrixLineError::Boundary { matrix: 'R', .. }))
        ));
        assert!(matches!(
            parse_line(&c, &line.replacen("0000", "00000", 1)),
            Err(LineError::Matrix(MatrixLineError::Element {
                matrix: 'M',
                index: 0,
                ..
            }))
        ));
    }

    /// stmatrix of what ldmatrix loaded gives the memory back; movmatrix twice is the identity.
    #[test]
    fn store_inverts_load() {
        for (ld, st) in [
            (
                "ldmatrix.sync.aligned.m8n8.x4.trans.b16",
                "stmatrix.sync.aligned.m8n8.x4.trans.b16",
            ),
            (
                "ldmatrix.sync.aligned.m8n8.x2.shared.b16",
                "stmatrix.sync.aligned.m8n8.x2.shared.b16",
            ),
        ] {
            let (l, s) = (form(ld), form(st));
            let (cl, cs) = (columns(l).unwrap(), columns(s).unwrap());
            let mem: Vec<u128> = (0..cl.input.len() as u128).map(|i| (i * 0x0101) ^ 0x5a5a).collect();
            let regs: Vec<u128> = cl.eval(l, &mem).unwrap().iter().map(|o| o.model).collect();
            let back: Vec<u128> = cs.eval(s, &regs).unwrap().iter().map(|o| o.model).collect();
            assert_eq!(back, mem, "{ld}");
        }
        let f = form("movmatrix.sync.aligned.m8n8.trans.b16");
        let c = columns(f).unwrap();
        let a: Vec<u128> = (0..32).map(|i| i * 0x00030001 + 7).collect();
        let t: Vec<u128> = c.eval(f, &a).unwrap().iter().map(|o| o.model).collect();
        let back: Vec<u128> = c.eval(f, &t).unwrap().iter().map(|o| o.model).collect();
        assert_eq!(back, a);
    }
}
