//! The sm_100a shapes of `ldmatrix` and `stmatrix` (PTX 8.6): `ldmatrix .m16n16` (`.trans`,
//! `.b8` or unpacked from `.b6x16_p32`/`.b4x16_p64`), `ldmatrix .m8n16` (unpacked), and
//! `stmatrix .m16n8 .trans .b8` (§9.7.14.5.15-16, L23337-23721).
//!
//! # The manual's text
//!
//! - Shapes (L23367-23395): `.m16n16` 16×16 elements of 8 bits (or 6/4 bits unpacked), `.m8n16`
//!   8×16 of 6 or 4 bits unpacked; `stmatrix .m16n8` 16×8 of 8 bits, only with `.b8` (L23595).
//! - `.b6x16_p32`: a source row is 16 unsigned 6-bit elements and 32 bits of padding;
//!   `.b4x16_p64`: 16 4-bit elements and 64 bits of padding (L23423) — 16 bytes either way;
//!   each lands in an 8-bit element with 2 or 4 bits of padding (L23483, L23491).
//! - `.m16n16`: two registers per matrix, four 8-bit elements each (L23483); "each thread loads 4
//!   consecutive columns spanning 2 rows" (L23485, Fig. 104); only `.x1` and `.x2` (L23425);
//!   `.trans` is mandatory (L23499). `.m8n16`: one register of four elements, "each thread loads
//!   4 consecutive columns" (L23491-23493, Fig. 105). `stmatrix .m16n8`: every thread provides
//!   four elements per matrix, e0 in the register's low byte (L23651-23653, Fig. 107); `.trans`
//!   is mandatory (L23659).
//! - Rows are 16 bytes, "naturally aligned" (L23473, L23641): a misaligned row address is a
//!   [`MatrixError::Misaligned`]. The forms the text calls invalid (a `.m16n16` without `.trans`
//!   or with `.x4`, a `.m16n8` without `.trans`) are [`forbidden`]: the type checker refuses
//!   them (as ptxas 12.9 does) and their golden vector is `refused`; executed anyway (a program
//!   built past the checker), they are a [`MatrixError::Invalid`].
//!
//! # What the figures say, as read here (`spec/INTERPRETATIONS.md`)
//!
//! With `g = lane / 4`, `t = lane % 4`; a matrix's memory row `r` is read from (written to) the
//! address of lane `R·j + r` for matrix `j`, `R` its rows in memory (16 for `.m16n16`, 8
//! otherwise; the address table L23437-23467 extended to 16 rows);
//! - `.m8n16`: lane `l` holds in register `j` row `g`, columns `4t .. 4t+3` of matrix `j`, byte
//!   `b` = column `4t + b` (the `.m8n8` rule of a group of four threads per row, Fig. 103, with
//!   four 8-bit elements per thread);
//! - `.m16n16.trans`: register `2j + q` (q = 0, 1) byte `b` holds memory row `4t + 2q + (b & 1)`,
//!   column `g + 8·(b >> 1)` of matrix `j`: four consecutive rows ("columns" of the loaded,
//!   transposed matrix) and two columns `g`, `g + 8`;
//! - `stmatrix .m16n8.trans`: register `j` byte `b` (e0..e3) is element (`g + 8·(b >> 1)`,
//!   `2t + (b & 1)`) of the 16×8 matrix — the `mma` m16n8 C/D layout (L22485-22488) — stored
//!   column-major: memory row `2t + (b & 1)`, byte `g + 8·(b >> 1)`.
//!
//! CUTLASS's `SM100_U8x8_LDSM_T`/`SM100_U8x16_LDSM_T`, `SM100_U8x4/8/16_STSM_T` and
//! `SM100_SU4/SU6_DU8x16_x1/x2/x4_LDSM_N` copy traits (`cute/atom/copy_traits_sm100.hpp`) encode
//! the same three maps (read, not copied; the `.m16n16` byte order within a register is theirs —
//! the text fixes only which rows and columns a thread holds).
//!
//! Unpacking (the text points to §9.7.16.8.1, whose Figures 188-192 are images): source element
//! `i` is bits `[w·i, w·(i+1))` of the little-endian 16-byte row (w = 6 or 4, low bits first); a
//! 4-bit element lands in bits 2..6 of its byte and a 6-bit one in bits 0..6, the padding zero —
//! the containers `mma .kind::f8f6f4`, the consumer of these loads, reads (L22916).

use super::movement::{MoveError, ReadRow, WriteRow, ROW_BYTES};
use super::MatrixError;
use crate::catalog::Form;
use std::ops::Range;

/// The sm_100a shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `ldmatrix .m16n16`: 16 rows of 16 bytes per matrix, two registers.
    M16n16,
    /// `ldmatrix .m8n16`: 8 rows of 16 bytes per matrix, one register.
    M8n16,
    /// `stmatrix .m16n8`: 16×8 bytes per matrix (8 memory rows of 16 bytes transposed), one
    /// register.
    M16n8,
}

/// How a 16-byte memory row becomes sixteen 8-bit elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unpack {
    /// `.b8`: the bytes themselves.
    B8,
    /// `.b8x16.b6x16_p32`: sixteen 6-bit elements, then 32 bits of padding.
    B6x16P32,
    /// `.b8x16.b4x16_p64`: sixteen 4-bit elements, then 64 bits of padding.
    B4x16P64,
}

impl Unpack {
    /// The sixteen 8-bit elements of a memory row (see the module documentation).
    pub fn row(self, bytes: &[u8; 16]) -> [u8; 16] {
        let bits = u128::from_le_bytes(*bytes);
        match self {
            Unpack::B8 => *bytes,
            Unpack::B6x16P32 => std::array::from_fn(|i| ((bits >> (6 * i)) & 0x3f) as u8),
            Unpack::B4x16P64 => std::array::from_fn(|i| (((bits >> (4 * i)) & 0xf) as u8) << 2),
        }
    }
}

/// A rule of the manual that a form breaks: the form is not valid PTX, so a conforming
/// implementation refuses the module that holds it (the type checker does,
/// `oracle/src/check/instr.rs`; ptxas 12.9 too) and its golden vector is `refused`
/// ([`crate::vector::refused`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Forbidden {
    /// The rule, ending with its line in the manual: `.trans is mandatory for 16x16 matrices
    /// (L23499)`.
    pub message: &'static str,
    /// That line of `ptx-isa-8.7.zh.txt`.
    pub line: u32,
}

/// The rule `form` breaks, if it is an sm_100a `ldmatrix`/`stmatrix` form the manual forbids
/// (`.m16n16` without `.trans` or with `.x4`, `stmatrix .m16n8` without `.trans`). The one
/// place that knows these rules: the type checker, the vectors and the executor ask here.
pub fn forbidden(form: &Form) -> Option<Forbidden> {
    WideAccess::of(form).ok()?.forbidden()
}

/// What one of these forms moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WideAccess {
    /// The shape.
    pub shape: Shape,
    /// Matrices: 1, 2 or 4 (`.x1/.x2/.x4`).
    pub num: usize,
    /// `.trans`.
    pub trans: bool,
    /// The source format.
    pub unpack: Unpack,
}

impl WideAccess {
    /// The access of an sm_100a `ldmatrix`/`stmatrix` form; [`MatrixError::Uncovered`] for every
    /// other form (`.m8n8.b16` is [`super::Access`]'s).
    pub fn of(form: &Form) -> Result<WideAccess, MatrixError> {
        let uncovered = |why| MatrixError::Uncovered {
            form: form.name.clone(),
            why,
        };
        let shape = match (form.opcode, form.var("shape")) {
            ("ldmatrix", Some("m16n16")) => Shape::M16n16,
            ("ldmatrix", Some("m8n16")) => Shape::M8n16,
            ("stmatrix", Some("m16n8")) => Shape::M16n8,
            _ => return Err(uncovered("not an sm_100a ldmatrix/stmatrix shape")),
        };
        let num = match form.var("num") {
            Some("x1") => 1,
            Some("x2") => 2,
            Some("x4") => 4,
            _ => return Err(uncovered("no .num")),
        };
        let unpack = match form.var("src") {
            Some("b6x16_p32") => Unpack::B6x16P32,
            Some("b4x16_p64") => Unpack::B4x16P64,
            _ => Unpack::B8,
        };
        Ok(WideAccess {
            shape,
            num,
            trans: form.has("trans"),
            unpack,
        })
    }

    /// The rule of the manual the form breaks, if any: `.m16n16` takes only `.x1`/`.x2`
    /// (L23425) and needs `.trans` (L23499); `stmatrix .m16n8` needs `.trans` (L23659).
    pub fn forbidden(&self) -> Option<Forbidden> {
        let (message, line) = match (self.shape, self.trans, self.num) {
            (Shape::M16n16, _, 4) => ("with .m16n16 only .x1 and .x2 are valid for .num (L23425)", 23425),
            (Shape::M16n16, false, _) => (".trans is mandatory for 16x16 matrices (L23499)", 23499),
            (Shape::M16n8, false, _) => (".trans is mandatory for 16x8 matrices (L23659)", 23659),
            _ => return None,
        };
        Some(Forbidden { message, line })
    }

    /// [`WideAccess::forbidden`]'s rule as text, with its line.
    pub fn invalid(&self) -> Option<&'static str> {
        self.forbidden().map(|f| f.message)
    }

    /// Memory rows of one matrix: 16 for `.m16n16`, 8 otherwise.
    pub fn rows(&self) -> usize {
        match self.shape {
            Shape::M16n16 => 16,
            _ => 8,
        }
    }

    /// Registers per matrix per thread: 2 for `.m16n16` (L23483), 1 otherwise.
    pub fn regs(&self) -> usize {
        match self.shape {
            Shape::M16n16 => 2,
            _ => 1,
        }
    }

    /// The lanes whose addresses are used: lane `rows·j + r` gives row `r` of matrix `j`.
    pub fn address_lanes(&self) -> Range<usize> {
        0..self.rows() * self.num
    }

    /// The (memory row, byte column) of a matrix that `lane` holds as byte `byte` of its
    /// register `q` of that matrix (see the module documentation); `None` out of range.
    pub fn cell(&self, lane: usize, q: usize, byte: usize) -> Option<(usize, usize)> {
        if lane >= 32 || q >= self.regs() || byte >= 4 {
            return None;
        }
        let (g, t) = (lane / 4, lane % 4);
        Some(match self.shape {
            Shape::M8n16 => (g, 4 * t + byte),
            Shape::M16n16 => (4 * t + 2 * q + (byte & 1), g + 8 * (byte >> 1)),
            Shape::M16n8 => (2 * t + (byte & 1), g + 8 * (byte >> 1)),
        })
    }

    /// The manual's rules before any access: the form's validity, then 16-byte row alignment.
    fn check(&self, addrs: &[u64; 32]) -> Result<(), MatrixError> {
        if let Some(rule) = self.invalid() {
            return Err(MatrixError::Invalid { rule });
        }
        for lane in self.address_lanes() {
            if !addrs[lane].is_multiple_of(ROW_BYTES) {
                return Err(MatrixError::Misaligned {
                    lane: Some(lane),
                    addr: addrs[lane],
                    align: ROW_BYTES,
                });
            }
        }
        Ok(())
    }
}

/// `ldmatrix` of an sm_100a shape: the warp's destination registers (`[lane]`, `num·regs`
/// each, matrix 0's first) from the lanes' row addresses and `read(addr, 16)`. Rows are read in
/// lane order after every rule is checked.
pub fn ldmatrix<E>(
    acc: WideAccess,
    addrs: &[u64; 32],
    read: &mut ReadRow<'_, E>,
) -> Result<Vec<Vec<u32>>, MoveError<E>> {
    if acc.shape == Shape::M16n8 {
        return Err(MatrixError::Input("stmatrix .m16n8 is a store".into()).into());
    }
    acc.check(addrs)?;
    let rows = acc.rows();
    // unpacked[j][r] = the sixteen 8-bit elements of row r of matrix j.
    let mut unpacked = vec![vec![[0u8; 16]; rows]; acc.num];
    for lane in acc.address_lanes() {
        let addr = addrs[lane];
        let bytes = read(addr, ROW_BYTES as usize).map_err(|error| MoveError::Memory {
            lane: Some(lane),
            addr,
            error,
        })?;
        let bytes: [u8; 16] = bytes.as_slice().try_into().map_err(|_| {
            MatrixError::Input(format!(
                "lane {lane}: a row read returned {} bytes, expected {ROW_BYTES}",
                bytes.len()
            ))
        })?;
        unpacked[lane / rows][lane % rows] = acc.unpack.row(&bytes);
    }
    Ok((0..32)
        .map(|lane| {
            unpacked
                .iter()
                .flat_map(|m| {
                    (0..acc.regs()).map(move |q| {
                        (0..4).fold(0u32, |v, b| {
                            let (r, c) = acc.cell(lane, q, b).expect("in range");
                            v | u32::from(m[r][c]) << (8 * b)
                        })
                    })
                })
                .collect()
        })
        .collect())
}

/// `stmatrix .m16n8.trans .b8`: the inverse of the load — `regs[lane]` holds `num` registers;
/// each used row address gets one `write(addr, 16 bytes)`, in lane order, after every rule is
/// checked.
pub fn stmatrix<E>(
    acc: WideAccess,
    addrs: &[u64; 32],
    regs: &[Vec<u32>],
    write: &mut WriteRow<'_, E>,
) -> Result<(), MoveError<E>> {
    if acc.shape != Shape::M16n8 {
        return Err(MatrixError::Input("only stmatrix .m16n8 stores".into()).into());
    }
    if regs.len() != 32 || regs.iter().any(|r| r.len() != acc.num) {
        return Err(MatrixError::Input(format!("stmatrix needs 32 lanes of {} registers", acc.num)).into());
    }
    acc.check(addrs)?;
    let rows = acc.rows();
    let mut mem = vec![vec![[0u8; 16]; rows]; acc.num];
    for (lane, r) in regs.iter().enumerate() {
        for (j, &v) in r.iter().enumerate() {
            for b in 0..4 {
                let (row, col) = acc.cell(lane, 0, b).expect("in range");
                mem[j][row][col] = (v >> (8 * b)) as u8;
            }
        }
    }
    for lane in acc.address_lanes() {
        let addr = addrs[lane];
        write(addr, &mem[lane / rows][lane % rows]).map_err(|error| MoveError::Memory {
            lane: Some(lane),
            addr,
            error,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;
    use std::collections::HashSet;

    fn access(name: &str) -> WideAccess {
        let cat = catalog();
        WideAccess::of(&cat.forms[cat.by_name(name)[0]]).unwrap()
    }

    #[test]
    fn forms_and_rules() {
        let a = access("ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b4x16_p64");
        assert_eq!(
            (a.shape, a.num, a.trans, a.unpack),
            (Shape::M16n16, 2, true, Unpack::B4x16P64)
        );
        assert_eq!((a.rows(), a.regs(), a.address_lanes()), (16, 2, 0..32));
        assert!(a.invalid().is_none());
        assert!(access("ldmatrix.sync.aligned.m16n16.x1.shared.b8")
            .invalid()
            .unwrap()
            .contains("L23499"));
        assert!(access("ldmatrix.sync.aligned.m16n16.x4.trans.b8")
            .invalid()
            .unwrap()
            .contains("L23425"));
        assert!(access("stmatrix.sync.aligned.m16n8.x2.b8")
            .invalid()
            .unwrap()
            .contains("L23659"));
        assert!(access("ldmatrix.sync.aligned.m8n16.x4.b8x16.b6x16_p32")
            .invalid()
            .is_none());
        let cat = catalog();
        let m8n8 = &cat.forms[cat.by_name("ldmatrix.sync.aligned.m8n8.x1.b16")[0]];
        assert!(WideAccess::of(m8n8).is_err());
    }

    #[test]
    fn unpacking() {
        // 4-bit elements 0..15 packed low first: byte i holds elements 2i (low nibble), 2i+1.
        let row: [u8; 16] = std::array::from_fn(|i| {
            if i < 8 {
                (2 * i as u8) | ((2 * i as u8 + 1) << 4)
            } else {
                0
            }
        });
        let u = Unpack::B4x16P64.row(&row);
        assert_eq!(u[5], 5 << 2);
        assert_eq!(u[15], 15 << 2);
        // 6-bit elements: element i = 63 - i, packed at bits 6i.
        let bits: u128 = (0..16).fold(0, |v, i| v | (63 - i as u128) << (6 * i));
        let u = Unpack::B6x16P32.row(&bits.to_le_bytes());
        assert_eq!(u[0], 63);
        assert_eq!(u[15], 48);
    }

    #[test]
    fn every_element_once() {
        // Each map covers its matrix exactly once over the 32 lanes.
        for (name, rows) in [
            ("ldmatrix.sync.aligned.m16n16.x1.trans.b8", 16),
            ("ldmatrix.sync.aligned.m8n16.x1.b8x16.b6x16_p32", 8),
            ("stmatrix.sync.aligned.m16n8.x1.trans.b8", 8),
        ] {
            let a = access(name);
            let cells: HashSet<(usize, usize)> = (0..32)
                .flat_map(|l| (0..a.regs()).flat_map(move |q| (0..4).map(move |b| (l, q, b))))
                .map(|(l, q, b)| a.cell(l, q, b).unwrap())
                .collect();
            assert_eq!(cells.len(), rows * 16, "{name}");
        }
    }

    #[test]
    fn m16n16_trans_holds_four_rows_and_two_columns() {
        // Lane 6 (g = 1, t = 2): register 0 bytes are rows 8, 9, 8, 9 at columns 1, 1, 9, 9;
        // register 1 rows 10, 11.
        let a = access("ldmatrix.sync.aligned.m16n16.x1.trans.b8");
        let r0: Vec<_> = (0..4).map(|b| a.cell(6, 0, b).unwrap()).collect();
        assert_eq!(r0, vec![(8, 1), (9, 1), (8, 9), (9, 9)]);
        assert_eq!(a.cell(6, 1, 3), Some((11, 9)));
    }

    #[test]
    fn stmatrix_m16n8_inverts_the_c_layout() {
        // Lane 5 (g = 1, t = 1): e0..e3 = C/D elements (1, 2), (1, 3), (9, 2), (9, 3), stored
        // column-major: memory rows 2, 3, 2, 3 at bytes 1, 1, 9, 9.
        let a = access("stmatrix.sync.aligned.m16n8.x1.trans.b8");
        let cells: Vec<_> = (0..4).map(|b| a.cell(5, 0, b).unwrap()).collect();
        assert_eq!(cells, vec![(2, 1), (3, 1), (2, 9), (3, 9)]);
    }
}
