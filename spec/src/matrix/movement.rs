//! Warp-level matrix data movement: §9.7.14.5.15 `ldmatrix` (L23337-23573), §9.7.14.5.16
//! `stmatrix` (L23574-23721), §9.7.14.5.17 `movmatrix` (L23722-23771), and the memory side of
//! §9.7.14.4.3 `wmma.load` / §9.7.14.4.4 `wmma.store` ([`WmmaAccess`], L20392-20636).
//!
//! Covered: the `.m8n8` shape with `.b16` elements, `.x1/.x2/.x4`, with and without `.trans`,
//! for both `ldmatrix` and `stmatrix`, and `movmatrix.sync.aligned.m8n8.trans.b16`. The sm_100a
//! shapes (`ldmatrix` `.m16n16`/`.m8n16` with `.b8` and the `.b8x16.b6x16_p32` /
//! `.b8x16.b4x16_p64` unpacking, `stmatrix.m16n8.b8`), whose fragment layouts are figures only
//! (Fig. 104, 105, 107), are [`super::wide`]'s; [`ldmatrix`] and [`stmatrix`] hand them over.
//!
//! The manual's rules, all for `.m8n8.b16`:
//! - Matrix `j` (of `.num` = 1, 2 or 4) takes its eight row addresses from lanes `8j..8j+8`,
//!   lane `8j + r` giving the start of row `r` (L23437-23467, L23609-23639); the other lanes'
//!   addresses are not used. A row is eight 16-bit elements, 16 bytes, "naturally aligned"
//!   (L23473, L23641): an address that is not a multiple of 16 is a [`MatrixError::Misaligned`]
//!   here (the manual states the requirement but not the consequence).
//! - Lane `l` holds, in register `j`, row `l / 4`, columns `2·(l % 4)` (low half) and
//!   `2·(l % 4) + 1` (high half) of matrix `j`: "thread 0 receives the first fragment … a group
//!   of four threads loads a whole row" (L23475, Fig. 103; L23481 for the next registers;
//!   L23643-23649 for `stmatrix`). With `.trans` the matrix the registers hold is the transpose
//!   of the one in memory ("loaded in column-major format", L23499, L23659).
//!
//! Undefined by the manual and not modelled here (the interpreter's business): an address
//! outside `.shared` (L23359, L23591); threads that do not all execute the same instruction
//! with the same qualifiers, or an exited thread (L23429-23431, L23601-23603); on sm_75 and
//! older, a thread of the warp without a valid address, even one whose address `.x1`/`.x2`
//! does not use (L23471). Both instructions are weak memory operations (L23501, L23661).
//! Two `stmatrix` rows at overlapping addresses: the manual says nothing; here rows are
//! written in lane order, so the higher lane's bytes remain.

use super::layout::{Layout, Which};
use super::MatrixError;
use crate::catalog::Form;
use std::fmt;
use std::ops::Range;

/// Bytes of one matrix row: eight 16-bit elements (L23473, L23641).
pub const ROW_BYTES: u64 = 16;

/// What an `ldmatrix`/`stmatrix` form moves: `.num` matrices of 8×8 16-bit elements, maybe
/// transposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Matrices moved: 1, 2 or 4 (`.x1/.x2/.x4`, L23425, L23597).
    pub num: usize,
    /// `.trans`: the registers hold the transpose of the matrix in memory (L23499, L23659).
    pub trans: bool,
}

impl Access {
    /// The access of an `ldmatrix` or `stmatrix` form; [`MatrixError::Uncovered`] for the
    /// shapes this module does not cover and for other forms.
    pub fn of(form: &Form) -> Result<Access, MatrixError> {
        let uncovered = |why| MatrixError::Uncovered {
            form: form.name.clone(),
            why,
        };
        if !matches!(form.opcode, "ldmatrix" | "stmatrix") {
            return Err(uncovered("not an ldmatrix or stmatrix form"));
        }
        if form.var("shape") != Some("m8n8") || form.var("t") != Some("b16") {
            return Err(uncovered(
                "only .m8n8.b16 is covered here: the sm_100a .m16n16/.m8n16/.m16n8 shapes are matrix::wide's",
            ));
        }
        let num = match form.var("num") {
            Some("x1") => 1,
            Some("x2") => 2,
            Some("x4") => 4,
            _ => return Err(uncovered("no .num")),
        };
        Ok(Access {
            num,
            trans: form.has("trans"),
        })
    }

    /// The lanes whose addresses are used: `0..8·num`, lane `8j + r` giving row `r` of matrix
    /// `j` (L23437-23467).
    pub fn address_lanes(&self) -> Range<usize> {
        0..8 * self.num
    }

    /// The (row, column) of the memory matrix that lane `lane` holds as 16-bit half `half` (0 low,
    /// 1 high) of each of its registers (L23475-23481, Fig. 103; with `.trans` the transpose,
    /// L23499). `None` for a lane or half out of range.
    pub fn cell(&self, lane: usize, half: usize) -> Option<(usize, usize)> {
        if lane >= 32 || half >= 2 {
            return None;
        }
        let (row, col) = (lane / 4, 2 * (lane % 4) + half);
        Some(if self.trans { (col, row) } else { (row, col) })
    }

    /// Checks the row addresses the access uses: 16-byte aligned (L23473, L23641).
    fn check(&self, addrs: &[u64; 32]) -> Result<(), MatrixError> {
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

/// The memory read of [`ldmatrix`]: `read(addr, n)` returns the `n` bytes at `addr`.
pub type ReadRow<'a, E> = dyn FnMut(u64, usize) -> Result<Vec<u8>, E> + 'a;

/// The memory write of [`stmatrix`]: `write(addr, bytes)` stores `bytes` at `addr`.
pub type WriteRow<'a, E> = dyn FnMut(u64, &[u8]) -> Result<(), E> + 'a;

/// Why a matrix load or store failed: a rule of the manual ([`MatrixError`]) or the memory
/// callback's own error at the given row address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError<E> {
    /// The form is not covered, an address is misaligned, or an input has the wrong size.
    Matrix(MatrixError),
    /// The memory callback failed.
    Memory {
        /// The lane whose row address it was (`None` for `wmma`).
        lane: Option<usize>,
        /// The address.
        addr: u64,
        /// The callback's error.
        error: E,
    },
}

impl<E> From<MatrixError> for MoveError<E> {
    fn from(e: MatrixError) -> Self {
        MoveError::Matrix(e)
    }
}

impl<E: fmt::Display> fmt::Display for MoveError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Matrix(e) => e.fmt(f),
            MoveError::Memory {
                lane: Some(lane),
                addr,
                error,
            } => write!(f, "lane {lane}: row at {addr:#x}: {error}"),
            MoveError::Memory {
                lane: None,
                addr,
                error,
            } => write!(f, "row at {addr:#x}: {error}"),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for MoveError<E> {}

/// §9.7.14.5.15 `ldmatrix.sync.aligned.m8n8.num{.trans}{.ss}.b16` (L23337-23499): the warp's
/// destination registers (`[lane][j]`, `num` each) from the 32 lanes' addresses `addrs` and a
/// memory read `read(addr, 16)` that returns the 16 bytes of a row (little-endian elements).
/// Rows are read in lane order, matrix 0 first; all used addresses are checked for alignment
/// before any read.
///
/// ```
/// use spec::catalog::catalog;
/// use spec::matrix::ldmatrix;
///
/// let cat = catalog();
/// let f = &cat.forms[cat.by_name("ldmatrix.sync.aligned.m8n8.x1.b16")[0]];
/// // Row r at 0x100 + 16r holds elements 8r .. 8r + 8.
/// let mut addrs = [0u64; 32];
/// for r in 0..8 {
///     addrs[r] = 0x100 + 16 * r as u64;
/// }
/// let mut read = |a: u64, n: usize| -> Result<Vec<u8>, ()> {
///     let first = (a - 0x100) / 2;
///     Ok((0..n as u64 / 2).flat_map(|i| ((first + i) as u16).to_le_bytes()).collect())
/// };
/// let r = ldmatrix(f, &addrs, &mut read).unwrap();
/// // Lane 5: row 1, columns 2 and 3 → elements 10 (low half) and 11.
/// assert_eq!(r[5], vec![11 << 16 | 10]);
/// ```
pub fn ldmatrix<E>(form: &Form, addrs: &[u64; 32], read: &mut ReadRow<'_, E>) -> Result<Vec<Vec<u32>>, MoveError<E>> {
    if let Ok(wide) = super::wide::WideAccess::of(form) {
        return super::wide::ldmatrix(wide, addrs, read);
    }
    let acc = Access::of(form)?;
    if form.opcode != "ldmatrix" {
        return Err(MatrixError::Uncovered {
            form: form.name.clone(),
            why: "not an ldmatrix form",
        }
        .into());
    }
    acc.check(addrs)?;
    // rows[j][r] = the eight elements of row r of matrix j, as in memory.
    let mut rows = vec![[[0u16; 8]; 8]; acc.num];
    for lane in acc.address_lanes() {
        let addr = addrs[lane];
        let bytes = read(addr, ROW_BYTES as usize).map_err(|error| MoveError::Memory {
            lane: Some(lane),
            addr,
            error,
        })?;
        if bytes.len() != ROW_BYTES as usize {
            return Err(MatrixError::Input(format!(
                "lane {lane}: a row read returned {} bytes, expected {ROW_BYTES}",
                bytes.len()
            ))
            .into());
        }
        for (c, e) in rows[lane / 8][lane % 8].iter_mut().enumerate() {
            *e = u16::from_le_bytes([bytes[2 * c], bytes[2 * c + 1]]);
        }
    }
    Ok((0..32)
        .map(|lane| {
            rows.iter()
                .map(|m| {
                    let half = |h| acc.cell(lane, h).map_or(0, |(r, c)| u32::from(m[r][c]));
                    half(0) | half(1) << 16
                })
                .collect()
        })
        .collect())
}

/// §9.7.14.5.16 `stmatrix.sync.aligned.m8n8.num{.trans}{.ss}.b16` (L23574-23659): the inverse
/// of [`ldmatrix`]. `regs[lane]` holds the lane's `num` source registers; each used row address
/// gets one `write(addr, 16 bytes)`, in lane order. All addresses are checked before any write.
pub fn stmatrix<E>(
    form: &Form,
    addrs: &[u64; 32],
    regs: &[Vec<u32>],
    write: &mut WriteRow<'_, E>,
) -> Result<(), MoveError<E>> {
    if let Ok(wide) = super::wide::WideAccess::of(form) {
        return super::wide::stmatrix(wide, addrs, regs, write);
    }
    let acc = Access::of(form)?;
    if form.opcode != "stmatrix" {
        return Err(MatrixError::Uncovered {
            form: form.name.clone(),
            why: "not a stmatrix form",
        }
        .into());
    }
    if regs.len() != 32 || regs.iter().any(|r| r.len() != acc.num) {
        return Err(MatrixError::Input(format!("stmatrix needs 32 lanes of {} registers", acc.num)).into());
    }
    acc.check(addrs)?;
    let mut rows = vec![[[0u16; 8]; 8]; acc.num];
    for (lane, r) in regs.iter().enumerate() {
        for (j, &v) in r.iter().enumerate() {
            for h in 0..2 {
                if let Some((row, col)) = acc.cell(lane, h) {
                    rows[j][row][col] = (v >> (16 * h)) as u16;
                }
            }
        }
    }
    for lane in acc.address_lanes() {
        let bytes: Vec<u8> = rows[lane / 8][lane % 8].iter().flat_map(|e| e.to_le_bytes()).collect();
        let addr = addrs[lane];
        write(addr, &bytes).map_err(|error| MoveError::Memory {
            lane: Some(lane),
            addr,
            error,
        })?;
    }
    Ok(())
}

/// §9.7.14.5.17 `movmatrix.sync.aligned.m8n8.trans.b16 d, a` (L23722-23757): a warp-wide
/// transpose of one 8×8 matrix of 16-bit elements. Source lane `l` holds row `l / 4`, columns
/// `2·(l % 4)` and `+1` (low half first) of A (L23747, Fig. 108); every lane's `d` holds the
/// same positions of the transpose, so `d[l]` half `h` is `A[2·(l % 4) + h][l / 4]`.
///
/// The text of the result side (L23753: "a group of four threads holds a whole column of the
/// result matrix") describes Fig. 109, which is not in the text; read with L23745 (`d` is the
/// transpose of `a`) it says that the four threads holding row `r` of `d` hold column `r` of A.
pub fn movmatrix(a: &[u32; 32]) -> [u32; 32] {
    let elem = |row: usize, col: usize| (a[4 * row + col / 2] >> (16 * (col % 2))) & 0xffff;
    std::array::from_fn(|l| {
        let (row, col) = (l / 4, 2 * (l % 4));
        elem(col, row) | elem(col + 1, row) << 16
    })
}

/// Where the rows (or columns) of a `wmma.load`/`wmma.store` matrix lie in memory
/// (§9.7.14.4.2, L20392-20529).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WmmaAccess {
    /// The fragment layout of the matrix moved (the oracle's own, [`layout::wmma`]).
    ///
    /// [`layout::wmma`]: super::layout::wmma
    pub layout: Layout,
    /// `.row`: each row is contiguous (the leading dimension); `.col`: each column (L20394).
    pub row_major: bool,
}

impl WmmaAccess {
    /// The access of a `wmma.load` or `wmma.store` form.
    pub fn of(form: &Form) -> Result<WmmaAccess, MatrixError> {
        let which = match (form.opcode, form.mods.first().copied()) {
            ("wmma", Some("load")) => form.var("m").and_then(Which::parse),
            ("wmma", Some("store")) => Some(Which::D),
            _ => None,
        };
        let which = which.ok_or_else(|| MatrixError::Uncovered {
            form: form.name.clone(),
            why: "not a wmma.load or wmma.store form",
        })?;
        Ok(WmmaAccess {
            layout: super::layout::wmma(form, which)?,
            row_major: form.var("layout") == Some("row"),
        })
    }

    /// (instances of the leading dimension, elements in each): (rows, columns) for `.row`,
    /// (columns, rows) for `.col`.
    pub fn instances(&self) -> (usize, usize) {
        let l = &self.layout;
        if self.row_major {
            (l.rows, l.cols)
        } else {
            (l.cols, l.rows)
        }
    }

    /// The default stride, in elements: the size of the leading dimension (L20417 and the table
    /// L20419-20529).
    pub fn default_stride(&self) -> u64 {
        self.instances().1 as u64
    }

    /// The fragment size in bytes, to which the start of every row or column must be aligned
    /// (L20400; the example L20404-20413: eight `.f16x2`, 32 bytes).
    pub fn fragment_bytes(&self) -> u64 {
        (self.layout.regs * self.layout.reg_bits / 8) as u64
    }

    /// The start address of each row (`.row`) or column (`.col`) from `p` and the `stride`
    /// operand (in elements, default [`WmmaAccess::default_stride`]). A stride below the
    /// default is undefined (L20626) and an error here, as is a start that is not a multiple of
    /// the fragment size (L20400) or a stride that is not a whole number of bytes.
    ///
    /// ⚠ The manual contradicts itself for the f16 A of `m8n32k16` in `.col` and the f16 B of
    /// `m32n8k16` in `.row`: their fragment is eight `.f16x2`, 32 bytes (L20186-20192), but the
    /// default stride (L20447-20473) is 8 elements, 16 bytes, so with the default stride the
    /// second column (row) could never be aligned as L20400 demands. Interpretation: `p` must
    /// be aligned to the fragment size (L20411), each later row or column only to the smaller
    /// of the fragment size and the default stride's bytes, so that the default stride is
    /// always allowed.
    pub fn instance_addrs(&self, p: u64, stride: Option<u32>) -> Result<Vec<u64>, MatrixError> {
        let s = stride.map_or(self.default_stride(), u64::from);
        if s < self.default_stride() {
            return Err(MatrixError::Input(format!(
                "stride {s} is below the default {} (undefined, L20626)",
                self.default_stride()
            )));
        }
        let bits = s * self.layout.bits as u64;
        if !bits.is_multiple_of(8) {
            return Err(MatrixError::Input(format!("stride {s} is not a whole number of bytes")));
        }
        let frag = self.fragment_bytes();
        if !p.is_multiple_of(frag) {
            return Err(MatrixError::Misaligned {
                lane: None,
                addr: p,
                align: frag,
            });
        }
        // Interpretation: the later rows or columns need only the alignment the default stride
        // gives, where that is less than the fragment size (see the doc above).
        let align = frag.min(self.default_stride() * self.layout.bits as u64 / 8).max(1);
        (0..self.instances().0 as u64)
            .map(|i| {
                let addr = p.wrapping_add(i * bits / 8);
                if addr.is_multiple_of(align) {
                    Ok(addr)
                } else {
                    Err(MatrixError::Misaligned {
                        lane: None,
                        addr,
                        align,
                    })
                }
            })
            .collect()
    }

    /// Bytes of one row (`.row`) or column (`.col`) in memory.
    fn instance_bytes(&self) -> usize {
        (self.instances().1 * self.layout.bits).div_ceil(8)
    }

    /// The (row, column) of element `i` of instance `n`.
    fn cell(&self, n: usize, i: usize) -> (usize, usize) {
        if self.row_major {
            (n, i)
        } else {
            (i, n)
        }
    }
}

/// Element `i` of `bits` bits from little-endian `bytes`, elements packed from the low bits of
/// the first byte (for sub-byte `.s4/.u4/.b1` elements an interpretation: the manual gives
/// their offsets in elements, L20396, not their order within a byte).
fn unpack(bytes: &[u8], i: usize, bits: usize) -> u64 {
    let first = i * bits;
    (0..bits).fold(0u64, |v, b| {
        let bit = first + b;
        v | u64::from(bytes[bit / 8] >> (bit % 8) & 1) << b
    })
}

fn pack(bytes: &mut [u8], i: usize, bits: usize, v: u64) {
    for b in 0..bits {
        let bit = i * bits + b;
        let m = 1u8 << (bit % 8);
        if v >> b & 1 != 0 {
            bytes[bit / 8] |= m;
        } else {
            bytes[bit / 8] &= !m;
        }
    }
}

impl WmmaAccess {
    /// Bytes of the matrix in memory at the default stride: every row (`.row`) or column
    /// (`.col`) right after the previous one.
    pub fn image_bytes(&self) -> usize {
        self.instances().0 * self.instance_bytes()
    }

    /// The matrix (row-major element bit patterns) as memory holds it at the default stride
    /// (what [`wmma_load`] reads from `p` with no stride operand).
    pub fn image(&self, matrix: &[u64]) -> Result<Vec<u8>, MatrixError> {
        let l = &self.layout;
        if matrix.len() != l.rows * l.cols {
            return Err(MatrixError::Input(format!(
                "matrix of {} elements for a {}x{} access",
                matrix.len(),
                l.rows,
                l.cols
            )));
        }
        let n = self.instance_bytes();
        let mut bytes = vec![0u8; self.image_bytes()];
        for k in 0..self.instances().0 {
            for i in 0..self.instances().1 {
                let (r, c) = self.cell(k, i);
                pack(&mut bytes[k * n..(k + 1) * n], i, l.bits, matrix[r * l.cols + c]);
            }
        }
        Ok(bytes)
    }

    /// The inverse of [`WmmaAccess::image`]: the row-major matrix from its memory image.
    pub fn matrix(&self, bytes: &[u8]) -> Result<Vec<u64>, MatrixError> {
        let l = &self.layout;
        if bytes.len() < self.image_bytes() {
            return Err(MatrixError::Input(format!(
                "{} bytes for a matrix of {}",
                bytes.len(),
                self.image_bytes()
            )));
        }
        let n = self.instance_bytes();
        let mut m = vec![0u64; l.rows * l.cols];
        for k in 0..self.instances().0 {
            for i in 0..self.instances().1 {
                let (r, c) = self.cell(k, i);
                m[r * l.cols + c] = unpack(&bytes[k * n..(k + 1) * n], i, l.bits);
            }
        }
        Ok(m)
    }
}

/// The forms of the portable round trip through a `wmma.mma` form (L20114-20116: fragments are
/// unspecified, so only load → mma → store is): `wmma.load.a`, `.b`, `.c` and `wmma.store.d`
/// of its shape and types from the `.global` state space, A and B in the `wmma.mma`'s own
/// layouts, C and D row-major. Their names; [`MatrixError::Uncovered`] for a form that is not
/// a `wmma.mma`.
pub fn wmma_round_trip(form: &Form) -> Result<[String; 4], MatrixError> {
    let uncovered = |why| MatrixError::Uncovered {
        form: form.name.clone(),
        why,
    };
    if form.opcode != "wmma" || form.mods.first() != Some(&"mma") {
        return Err(uncovered("not a wmma.mma form"));
    }
    let v = |name: &str| {
        form.var(name)
            .ok_or_else(|| uncovered("a wmma.mma form without its shape or types"))
    };
    let shape = v("shape")?;
    // The f16 rows write no .atype/.btype (L20831-20832).
    let at = form.var("at").unwrap_or("f16");
    let bt = form.var("bt").unwrap_or("f16");
    let load = |m: &str, layout: &str, t: &str| format!("wmma.load.{m}.sync.aligned.{layout}.{shape}.global.{t}");
    Ok([
        load("a", v("al")?, at),
        load("b", v("bl")?, bt),
        load("c", "row", v("ct")?),
        format!("wmma.store.d.sync.aligned.row.{shape}.global.{}", v("dt")?),
    ])
}

/// §9.7.14.4.3 `wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p] {, stride}`
/// (L20531-20636): the warp's fragment registers (`[lane][reg]`, in the oracle's own layout,
/// [`layout::wmma`]) from the matrix at `p`. Each row (`.row`) or column (`.col`) is one
/// `read(addr, bytes)`, in order; all addresses are checked first. The state space and the
/// "same `p` and stride in every thread" rule (L20634) are the interpreter's.
///
/// [`layout::wmma`]: super::layout::wmma
pub fn wmma_load<E>(
    form: &Form,
    p: u64,
    stride: Option<u32>,
    read: &mut ReadRow<'_, E>,
) -> Result<Vec<Vec<u64>>, MoveError<E>> {
    let acc = WmmaAccess::of(form)?;
    if form.mods.first() != Some(&"load") {
        return Err(MatrixError::Uncovered {
            form: form.name.clone(),
            why: "not a wmma.load form",
        }
        .into());
    }
    let addrs = acc.instance_addrs(p, stride)?;
    let l = &acc.layout;
    let mut matrix = vec![0u64; l.rows * l.cols];
    let n = acc.instance_bytes();
    for (k, &addr) in addrs.iter().enumerate() {
        let bytes = read(addr, n).map_err(|error| MoveError::Memory {
            lane: None,
            addr,
            error,
        })?;
        if bytes.len() != n {
            return Err(MatrixError::Input(format!("a read returned {} bytes, expected {n}", bytes.len())).into());
        }
        for i in 0..acc.instances().1 {
            let (r, c) = acc.cell(k, i);
            matrix[r * l.cols + c] = unpack(&bytes, i, l.bits);
        }
    }
    let mut regs = vec![Vec::new(); 32];
    l.scatter(0, &matrix, &mut regs)?;
    Ok(regs)
}

/// §9.7.14.4.4 `wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r {, stride}`
/// (L20712 ff.): the inverse of [`wmma_load`] for D: one `write(addr, bytes)` per row
/// (`.row`) or column (`.col`), in order, after every address is checked. Where our layout
/// holds an element more than once (never for D), the first copy is stored.
pub fn wmma_store<E>(
    form: &Form,
    p: u64,
    stride: Option<u32>,
    regs: &[Vec<u64>],
    write: &mut WriteRow<'_, E>,
) -> Result<(), MoveError<E>> {
    let acc = WmmaAccess::of(form)?;
    if form.mods.first() != Some(&"store") {
        return Err(MatrixError::Uncovered {
            form: form.name.clone(),
            why: "not a wmma.store form",
        }
        .into());
    }
    let addrs = acc.instance_addrs(p, stride)?;
    let l = &acc.layout;
    let matrix = l.gather(0, regs)?;
    for (k, &addr) in addrs.iter().enumerate() {
        let mut bytes = vec![0u8; acc.instance_bytes()];
        for i in 0..acc.instances().1 {
            let (r, c) = acc.cell(k, i);
            pack(&mut bytes, i, l.bits, matrix[r * l.cols + c]);
        }
        write(addr, &bytes).map_err(|error| MoveError::Memory {
            lane: None,
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
    use crate::matrix::{layout, Which};
    use std::collections::HashMap;

    fn form(name: &str) -> &'static Form {
        let cat = catalog();
        let ids = cat.by_name(name);
        assert!(!ids.is_empty(), "{name}");
        &cat.forms[ids[0]]
    }

    /// A byte-addressed memory of 16-bit cells.
    #[derive(Default)]
    struct Mem(HashMap<u64, u8>);

    impl Mem {
        fn put16(&mut self, addr: u64, v: u16) {
            let [lo, hi] = v.to_le_bytes();
            self.0.insert(addr, lo);
            self.0.insert(addr + 1, hi);
        }
        fn read(&self, addr: u64, n: usize) -> Result<Vec<u8>, String> {
            (addr..addr + n as u64)
                .map(|a| self.0.get(&a).copied().ok_or(format!("unmapped {a:#x}")))
                .collect()
        }
    }

    /// Matrix j's row r at 0x1000 + 32·(8j + r) (not contiguous); element (j, r, c) holds
    /// `j << 8 | r << 4 | c`. Lanes that give no address for `.num` hold misaligned garbage.
    fn indexed(num: usize) -> ([u64; 32], Mem) {
        let mut addrs = [0u64; 32];
        let mut mem = Mem::default();
        for (lane, a) in addrs.iter_mut().enumerate() {
            *a = if lane < 8 * num {
                0x1000 + 32 * lane as u64
            } else {
                3 + lane as u64
            };
        }
        for j in 0..num {
            for r in 0..8 {
                for c in 0..8 {
                    mem.put16(addrs[8 * j + r] + 2 * c as u64, (j << 8 | r << 4 | c) as u16);
                }
            }
        }
        (addrs, mem)
    }

    fn id(j: usize, r: usize, c: usize) -> u32 {
        (j << 8 | r << 4 | c) as u32
    }

    /// Each lane holds exactly the elements the text assigns (L23475-23481): lane i, register j:
    /// row i/4, columns 2·(i%4) and 2·(i%4)+1 of matrix j; with `.trans` those of the transpose.
    #[test]
    fn ldmatrix_fragments() {
        for num in [1, 2, 4] {
            for trans in [false, true] {
                let name = format!(
                    "ldmatrix.sync.aligned.m8n8.x{num}{}.shared.b16",
                    if trans { ".trans" } else { "" }
                );
                let (addrs, mem) = indexed(num);
                let r = ldmatrix(form(&name), &addrs, &mut |a, n| mem.read(a, n)).unwrap();
                assert_eq!(r.len(), 32);
                for (i, regs) in r.iter().enumerate() {
                    assert_eq!(regs.len(), num, "{name}");
                    for (j, &v) in regs.iter().enumerate() {
                        let (row, c0) = (i / 4, 2 * (i % 4));
                        let want = if trans {
                            id(j, c0, row) | id(j, c0 + 1, row) << 16
                        } else {
                            id(j, row, c0) | id(j, row, c0 + 1) << 16
                        };
                        assert_eq!(v, want, "{name} lane {i} reg {j}");
                    }
                }
            }
        }
    }

    #[test]
    fn errors_are_typed() {
        let f = form("ldmatrix.sync.aligned.m8n8.x2.b16");
        let (mut addrs, mem) = indexed(2);
        addrs[11] += 8;
        let e = ldmatrix(f, &addrs, &mut |a, n| mem.read(a, n)).unwrap_err();
        assert_eq!(
            e,
            MoveError::Matrix(MatrixError::Misaligned {
                lane: Some(11),
                addr: addrs[11],
                align: 16
            })
        );
        addrs[11] = 0x9000;
        let e = ldmatrix(f, &addrs, &mut |a, n| mem.read(a, n)).unwrap_err();
        assert!(
            matches!(
                e,
                MoveError::Memory {
                    lane: Some(11),
                    addr: 0x9000,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = ldmatrix(f, &addrs, &mut |_, _| Ok::<_, ()>(vec![0; 3])).unwrap_err();
        assert!(matches!(e, MoveError::Matrix(MatrixError::Input(_))));
        // The sm_100a shapes go to matrix::wide, which refuses a form the manual calls invalid
        // (.m16n16 without .trans, L23499); other forms are refused, not mis-executed.
        let wide = form("ldmatrix.sync.aligned.m16n16.x1.shared.b8");
        assert!(Access::of(wide).is_err());
        let e = ldmatrix(wide, &addrs, &mut |a, n| mem.read(a, n)).unwrap_err();
        assert!(matches!(e, MoveError::Matrix(MatrixError::Invalid { .. })));
        let st = form("stmatrix.sync.aligned.m8n8.x2.shared.b16");
        assert!(ldmatrix(st, &addrs, &mut |a, n| mem.read(a, n)).is_err());
        let e = stmatrix(st, &addrs, &vec![vec![0; 2]; 31], &mut |_, _| Ok::<_, ()>(())).unwrap_err();
        assert!(matches!(e, MoveError::Matrix(MatrixError::Input(_))));
    }

    /// stmatrix(ldmatrix(x)) writes back exactly the rows that were read.
    #[test]
    fn stmatrix_inverts_ldmatrix() {
        for num in [1, 2, 4] {
            for trans in ["", ".trans"] {
                let ld = form(&format!("ldmatrix.sync.aligned.m8n8.x{num}{trans}.shared.b16"));
                let st = form(&format!("stmatrix.sync.aligned.m8n8.x{num}{trans}.shared.b16"));
                let (addrs, mem) = indexed(num);
                let regs = ldmatrix(ld, &addrs, &mut |a, n| mem.read(a, n)).unwrap();
                let mut out = Mem::default();
                let mut writes = 0;
                stmatrix(st, &addrs, &regs, &mut |a, b: &[u8]| {
                    writes += 1;
                    for (i, &x) in b.iter().enumerate() {
                        out.0.insert(a + i as u64, x);
                    }
                    Ok::<_, ()>(())
                })
                .unwrap();
                assert_eq!(writes, 8 * num);
                assert_eq!(out.0, mem.0, "x{num}{trans}");
            }
        }
    }

    /// movmatrix is its own inverse and is the transpose of an 8×8 matrix held in the mma
    /// accumulator layout (rows 0-7 of the m16n8k16 f16 D fragment, register 0: L22179-22182).
    #[test]
    fn movmatrix_transposes() {
        let d = layout(form("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"), Which::D).unwrap();
        let x = |r: usize, c: usize| ((r * 8 + c) as u32 * 0x0101) ^ 0x5a00;
        let mut a = [0u32; 32];
        for r in 0..8 {
            for c in 0..8 {
                let (lane, reg, idx) = d.locate(0, r, c).unwrap();
                assert_eq!(reg, 0);
                a[lane] |= x(r, c) << (16 * idx);
            }
        }
        let t = movmatrix(&a);
        for (lane, &v) in t.iter().enumerate() {
            for idx in 0..2 {
                let (r, c) = d.element(lane, 0, idx).unwrap();
                assert_eq!(v >> (16 * idx) & 0xffff, x(c, r), "lane {lane}");
            }
        }
        assert_eq!(movmatrix(&t), a);
        assert_ne!(t, a);
    }

    /// The standard idioms agree with the mma fragment layouts: ldmatrix.x4 of a 16×16 f16 tile
    /// (lane l giving row l % 16, column 8·(l / 16)) is the m16n8k16 A fragment; ldmatrix.x2.trans
    /// of a 16×8 B stored K-row by K-row is its B fragment.
    #[test]
    fn ldmatrix_gives_mma_fragments() {
        let mma = form("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
        let tile = |r: usize, c: usize| (r * 16 + c) as u16 + 0x3c00;
        let mut mem = Mem::default();
        for r in 0..16 {
            for c in 0..16 {
                mem.put16(0x2000 + 32 * r as u64 + 2 * c as u64, tile(r, c));
            }
        }
        let addrs: [u64; 32] = std::array::from_fn(|l| 0x2000 + 32 * (l % 16) as u64 + 16 * (l / 16) as u64);
        let regs = ldmatrix(form("ldmatrix.sync.aligned.m8n8.x4.b16"), &addrs, &mut |a, n| {
            mem.read(a, n)
        })
        .unwrap();
        let a = layout(mma, Which::A).unwrap();
        let wide: Vec<Vec<u64>> = regs.iter().map(|r| r.iter().map(|&v| u64::from(v)).collect()).collect();
        let got = a.gather(0, &wide).unwrap();
        let want: Vec<u64> = (0..256).map(|i| u64::from(tile(i / 16, i % 16))).collect();
        assert_eq!(got, want);

        // B (16×8): row k at 0x2000 + 32k, its eight n elements contiguous; lanes 0-15 give k.
        let addrs: [u64; 32] = std::array::from_fn(|l| 0x2000 + 32 * (l % 16) as u64);
        let regs = ldmatrix(form("ldmatrix.sync.aligned.m8n8.x2.trans.b16"), &addrs, &mut |a, n| {
            mem.read(a, n)
        })
        .unwrap();
        let b = layout(mma, Which::B).unwrap();
        let wide: Vec<Vec<u64>> = regs.iter().map(|r| r.iter().map(|&v| u64::from(v)).collect()).collect();
        let got = b.gather(0, &wide).unwrap();
        let want: Vec<u64> = (0..128).map(|i| u64::from(tile(i / 8, i % 8))).collect();
        assert_eq!(got, want);
    }
    /// A little memory for wmma: element (r, c) of an `rows×cols` matrix, `bits` wide.
    fn wmma_cell(r: usize, c: usize, bits: usize) -> u64 {
        ((r * 131 + c * 7 + 1) as u64) & if bits >= 64 { u64::MAX } else { (1 << bits) - 1 }
    }

    fn store_matrix(acc: &WmmaAccess, p: u64, stride: u64, mem: &mut Mem) {
        let l = &acc.layout;
        let (count, len) = acc.instances();
        for k in 0..count {
            let mut bytes = vec![0u8; acc.instance_bytes()];
            for i in 0..len {
                let (r, c) = acc.cell(k, i);
                pack(&mut bytes, i, l.bits, wmma_cell(r, c, l.bits));
            }
            let base = p + k as u64 * stride * l.bits as u64 / 8;
            for (j, b) in bytes.into_iter().enumerate() {
                mem.0.insert(base + j as u64, b);
            }
        }
    }

    /// The portable checks: the registers a wmma.load fills depend on the matrix only, not on
    /// .row/.col or the stride; wmma.store of what was loaded writes the matrix back.
    #[test]
    fn wmma_round_trips() {
        let cat = catalog();
        let mut n = 0;
        for f in cat
            .forms
            .iter()
            .filter(|f| f.opcode == "wmma" && f.mods.first() == Some(&"load"))
        {
            let acc = WmmaAccess::of(f).unwrap();
            let l = acc.layout;
            let stride = acc.default_stride() + 64 / l.bits.min(64) as u64 * 8;
            let mut mem = Mem::default();
            store_matrix(&acc, 0x4000, stride, &mut mem);
            let regs = wmma_load(f, 0x4000, Some(stride as u32), &mut |a, k| mem.read(a, k)).unwrap();
            assert_eq!(regs.iter().filter(|r| r.len() == l.regs).count(), 32);
            let want: Vec<u64> = (0..l.rows * l.cols)
                .map(|i| wmma_cell(i / l.cols, i % l.cols, l.bits))
                .collect();
            assert_eq!(l.gather(0, &regs).unwrap(), want, "{}", f.name);
            // The same matrix in the other layout (where the form exists) gives the same registers.
            let other = f.name.replace(
                if acc.row_major { ".row." } else { ".col." },
                if acc.row_major { ".col." } else { ".row." },
            );
            if let Some(&id) = cat.by_name(&other).first() {
                let g = &cat.forms[id];
                let acc2 = WmmaAccess::of(g).unwrap();
                let mut mem2 = Mem::default();
                store_matrix(&acc2, 0x8000, acc2.default_stride(), &mut mem2);
                assert_eq!(
                    wmma_load(g, 0x8000, None, &mut |a, k| mem2.read(a, k)).unwrap(),
                    regs,
                    "{other}"
                );
            }
            n += 1;
        }
        assert!(n > 100, "{n}");
        // Store: D registers back to memory, through a different stride.
        let st = form("wmma.store.d.sync.aligned.col.m32n8k16.f32");
        let ld = form("wmma.load.c.sync.aligned.col.m32n8k16.f32");
        let mut mem = Mem::default();
        store_matrix(&WmmaAccess::of(ld).unwrap(), 0x4000, 32, &mut mem);
        let regs = wmma_load(ld, 0x4000, None, &mut |a, k| mem.read(a, k)).unwrap();
        let mut out = Mem::default();
        wmma_store(st, 0x10000, Some(40), &regs, &mut |a, b: &[u8]| {
            for (i, &x) in b.iter().enumerate() {
                out.0.insert(a + i as u64, x);
            }
            Ok::<_, ()>(())
        })
        .unwrap();
        let mut want = Mem::default();
        store_matrix(&WmmaAccess::of(st).unwrap(), 0x10000, 40, &mut want);
        assert_eq!(out.0, want.0);
    }

    /// The alignment and stride rules of §9.7.14.4.2 (L20400-20417, L20626).
    #[test]
    fn wmma_addresses() {
        let acc = WmmaAccess::of(form("wmma.load.a.sync.aligned.row.m16n16k16.f16")).unwrap();
        // The manual's example: fragment size 32 bytes, so p and 2·s multiples of 32 (L20404-20413).
        assert_eq!((acc.fragment_bytes(), acc.default_stride()), (32, 16));
        assert_eq!(acc.instance_addrs(64, Some(48)).unwrap()[1], 64 + 96);
        assert!(matches!(
            acc.instance_addrs(64, Some(24)),
            Err(MatrixError::Misaligned {
                lane: None,
                addr: 112,
                align: 32
            })
        ));
        assert!(matches!(
            acc.instance_addrs(48, None),
            Err(MatrixError::Misaligned { .. })
        ));
        assert!(matches!(acc.instance_addrs(64, Some(8)), Err(MatrixError::Input(_))));
        // Default strides from the table (L20447-20459): m8n32k16 A col 8, B row 32, C col 8.
        let d = |n: &str| WmmaAccess::of(form(n)).unwrap().default_stride();
        assert_eq!(d("wmma.load.a.sync.aligned.col.m8n32k16.f16"), 8);
        assert_eq!(d("wmma.load.b.sync.aligned.row.m8n32k16.f16"), 32);
        assert_eq!(d("wmma.load.c.sync.aligned.col.m8n32k16.f32"), 8);
        assert_eq!(d("wmma.load.a.sync.aligned.row.m8n8k128.b1"), 128);
        // The contradiction of L20400 and the default strides: m8n32k16 f16 A in .col, default
        // stride 8 (16 bytes), fragment 32 bytes: p must be 32-aligned, the columns 16-aligned.
        let a = WmmaAccess::of(form("wmma.load.a.sync.aligned.col.m8n32k16.f16")).unwrap();
        assert_eq!(a.instance_addrs(0x100, None).unwrap()[1], 0x110);
        assert!(a.instance_addrs(0x110, None).is_err());
        assert!(WmmaAccess::of(form("ldmatrix.sync.aligned.m8n8.x4.b16")).is_err());
        let mma = form("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32");
        assert!(wmma_load(mma, 0, None, &mut |_, _| Ok::<_, ()>(vec![])).is_err());
    }

    /// Register counts agree with the type checker's fragment lengths for every covered
    /// ldmatrix/stmatrix form.
    #[test]
    fn access_lengths() {
        let cat = catalog();
        let mut n = 0;
        for f in cat.forms.iter().filter(|f| matches!(f.opcode, "ldmatrix" | "stmatrix")) {
            let o = f.outputs.iter().chain(&f.inputs).find(|o| o.name == "r").unwrap();
            match Access::of(f) {
                Ok(a) => {
                    assert_eq!(Some(a.num), crate::catalog::fragment::length(f, o), "{}", f.name);
                    n += 1;
                }
                Err(e) => assert!(matches!(e, MatrixError::Uncovered { .. }), "{}", f.name),
            }
        }
        assert!(n >= 12, "{n}");
    }
}
