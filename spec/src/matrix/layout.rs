//! Fragment layouts: which element of matrix A, B, C or D each thread holds in which register.
//!
//! A [`Layout`] is data derived from a form (shape and types from [`Form::var`]): the matrix's
//! size, how elements are packed into registers, and a [`Map`] from (lane, register, element
//! within the register) to (row, column). Elements sit in a register from low bits to high
//! ("元素(从低到高)", the fragment tables of §9.7.14.5): element `idx` of a register occupies
//! bits `idx·bits .. (idx+1)·bits`.
//!
//! The dense `mma` layouts of the manual (§9.7.14.5.2-13, L21203-22802) are all of two kinds,
//! with `groupID = %laneid >> 2`, `threadID_in_group = %laneid % 4` and `w` the number of
//! consecutive elements a thread holds along K (its elements per 32-bit register for A and B,
//! two for C and D):
//! - [`Map::Rows`] (A, C, D): `row = groupID + 8·h`, `col = threadID_in_group·w + s + 4w·b`,
//!   element `i = s + w·(h + (rows/8)·b)`: first the `w` neighbours, then the lower/upper
//!   half of the rows, then the next block of `4w` columns. For example `m16n8k16` f16 A,
//!   L22048-22052: rows `groupID` for `a0,a1,a4,a5`, `+8` otherwise; columns
//!   `2·threadID_in_group + (i & 1)`, `+8` for `i >= 4`.
//! - [`Map::Cols`] (B): `row = threadID_in_group·w + s + 4w·b`, `col = groupID`, `i = s + w·b`
//!   (L22112-22115 for `m16n8k16` f16 B).
//!
//! The `m8n8k4` f16 forms are different: four independent 8×8×4 products, each computed by a
//! quad-pair of 8 threads (lanes 0-3 with 16-19, 4-7 with 20-23, …, L21047-21059), with their
//! own formulas ([`QuadPair`], L21089-21201); A and B depend on `.row`/`.col` there.
//!
//! Defects of the text met here, and the reading taken:
//! - `m16n8k256` `.b1` A (L22737): `col = (threadID_in_group * 32) + i for ai where i < 64`
//!   runs past K for `32 <= i < 64` (row `groupID + 8`, L22734-22735). Read as `i & 0x1F`, as
//!   the line after (L22738) and the `m16n8k128` formula (L22643) have it; only this reading is
//!   a bijection.
//! - `m16n8k16` `.f64` A (L22083): `(i * 2) - 2 + (threadID_in_group` lacks its closing
//!   parenthesis; read as `(i * 2) - 2 + threadID_in_group`.
//! - `m16n8k16` `.f16` C of the integer/fp8 section lists `c0, c1, c1, c2` (L22285) for
//!   `c0, c1, c2, c3`.

use super::MatrixError;
use crate::catalog::fragment::{self, element_bits, mnk};
use crate::catalog::{Form, Operand};

/// Which matrix of `D = A·B + C`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Which {
    /// The multiplicand A (M×K).
    A,
    /// The multiplier B (K×N).
    B,
    /// The accumulator input C (M×N).
    C,
    /// The result D (M×N).
    D,
}

impl Which {
    /// All four, in the order A, B, C, D.
    pub const ALL: [Which; 4] = [Which::A, Which::B, Which::C, Which::D];

    /// The operand name the catalog gives the fragment (`a`, `b`, `c`, `d`).
    pub fn name(self) -> &'static str {
        match self {
            Which::A => "a",
            Which::B => "b",
            Which::C => "c",
            Which::D => "d",
        }
    }

    /// The matrix named `a`, `b`, `c` or `d`.
    pub fn parse(name: &str) -> Option<Which> {
        Some(match name {
            "a" => Which::A,
            "b" => Which::B,
            "c" => Which::C,
            "d" => Which::D,
            _ => return None,
        })
    }
}

/// The per-formula part of a [`Layout`]: how (lane, element index) becomes (row, column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Map {
    /// `groupID` selects the row (A, C, D of every dense `mma` but `m8n8k4` f16):
    /// `row = groupID + 8·h`, `col = threadID_in_group·w + s + 4w·b` for element
    /// `i = s + w·(h + (rows/8)·b)`, `s < w`.
    Rows {
        /// Consecutive elements of one thread along the row.
        w: usize,
    },
    /// `groupID` is the column (B of every dense `mma` but `m8n8k4` f16):
    /// `row = threadID_in_group·w + s + 4w·b`, `col = groupID` for element `i = s + w·b`.
    Cols {
        /// Consecutive elements of one thread along the column.
        w: usize,
    },
    /// `mma.m8n8k4` with f16 A and B: one of the quad-pair formulas of §9.7.14.5.1.
    QuadPair(QuadPair),
    /// `wmma`: the oracle's own layout, see [`wmma`].
    Wmma,
}

/// The formulas of `mma.m8n8k4` f16 (§9.7.14.5.1), `hi` being `%laneid >= 16` (the upper half
/// of the quad-pair) and `i` the element index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuadPair {
    /// Row-major A (L21089-21092): `row = %laneid % 4 + 4·hi`, `col = i`.
    ARow,
    /// Column-major A (L21104-21107): `row = i + 4·hi`, `col = %laneid % 4`.
    ACol,
    /// Row-major B (L21133-21136): `row = %laneid % 4`, `col = i + 4·hi`.
    BRow,
    /// Column-major B (L21146-21149): `row = i`, `col = %laneid % 4 + 4·hi`.
    BCol,
    /// C/D with `.f16` (L21179-21182): `row = %laneid % 4 + 4·hi`, `col = i`.
    CF16,
    /// C/D with `.f32` (L21196-21201): `row = (%laneid & 1) + (i & 2) + 4·hi`,
    /// `col = (i & 4) + (%laneid & 2) + (i & 1)`.
    CF32,
}

/// Where the elements of one matrix operand sit in a warp's registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Rows of the matrix (M for A, C, D; K for B).
    pub rows: usize,
    /// Columns of the matrix (K for A; N for B, C, D).
    pub cols: usize,
    /// Bits of one element in its register (its container: fp6/fp4 of `.kind::f8f6f4` take 8,
    /// L22355-22357).
    pub bits: usize,
    /// Elements per register.
    pub per_reg: usize,
    /// Bits of one register: 64 for `.f64` fragments, 32 otherwise.
    pub reg_bits: usize,
    /// Registers per lane (= [`fragment::length`] of the operand).
    pub regs: usize,
    /// Independent matrices per warp: 4 for the quad-pairs of `m8n8k4` f16, 1 otherwise.
    pub groups: usize,
    /// How many times each matrix element appears in one group's registers: 1 for `mma`; more
    /// for the `wmma` f16 A/B fragments, eight registers whatever the shape (L20186-20192).
    pub copies: usize,
    /// A of `mma.sp`: the matrix is the compressed M×K/2 one of the non-zero elements
    /// (L23774); compressed column `c` stands for the K column that the metadata operand picks
    /// in its block (§9.7.14.6.1), which this layout does not cover.
    pub compressed: bool,
    /// The formula.
    pub map: Map,
}

impl Layout {
    /// Elements one lane holds: `regs · per_reg`.
    pub fn elements(&self) -> usize {
        self.regs * self.per_reg
    }

    /// The lanes that hold group `group`'s matrix, lowest first: all 32 for one group; for the
    /// quad-pairs `4g..4g+4` and `16+4g..16+4g+4` (L21047-21059).
    pub fn lanes(&self, group: usize) -> Vec<usize> {
        if self.groups == 1 {
            if group == 0 {
                (0..32).collect()
            } else {
                Vec::new()
            }
        } else if group < 4 {
            (4 * group..4 * group + 4)
                .chain(16 + 4 * group..16 + 4 * group + 4)
                .collect()
        } else {
            Vec::new()
        }
    }

    /// The group whose matrix lane `lane` holds part of; `None` for a lane outside 0..32.
    pub fn group(&self, lane: usize) -> Option<usize> {
        (lane < 32).then_some(if self.groups == 1 { 0 } else { lane % 16 / 4 })
    }

    /// The (row, column) of the element that lane `lane` holds as element `idx` of its
    /// register `reg`; `None` when an index is out of range.
    pub fn element(&self, lane: usize, reg: usize, idx: usize) -> Option<(usize, usize)> {
        if lane >= 32 || reg >= self.regs || idx >= self.per_reg {
            return None;
        }
        let i = reg * self.per_reg + idx;
        let (g, t) = (lane >> 2, lane % 4);
        let hi = usize::from(lane >= 16);
        let (row, col) = match self.map {
            Map::Rows { w } => {
                let (s, q) = (i % w, i / w);
                let halves = self.rows / 8;
                let (h, b) = (q % halves, q / halves);
                (g + 8 * h, t * w + s + 4 * w * b)
            }
            Map::Cols { w } => {
                let (s, b) = (i % w, i / w);
                (t * w + s + 4 * w * b, g)
            }
            Map::QuadPair(q) => match q {
                QuadPair::ARow | QuadPair::CF16 => (t + 4 * hi, i),
                QuadPair::ACol => (i + 4 * hi, t),
                QuadPair::BRow => (t, i + 4 * hi),
                QuadPair::BCol => (i, t + 4 * hi),
                QuadPair::CF32 => ((lane & 1) + (i & 2) + 4 * hi, (i & 4) + (lane & 2) + (i & 1)),
            },
            Map::Wmma => {
                let cell = (lane * self.elements() + i) % (self.rows * self.cols);
                (cell / self.cols, cell % self.cols)
            }
        };
        (row < self.rows && col < self.cols).then_some((row, col))
    }

    /// The inverse of [`Layout::element`] within group `group`: the (lane, register, element
    /// index) holding cell (`row`, `col`), the first of its copies for `wmma`.
    pub fn locate(&self, group: usize, row: usize, col: usize) -> Option<(usize, usize, usize)> {
        if row >= self.rows || col >= self.cols || group >= self.groups {
            return None;
        }
        let split = |i: usize| (i / self.per_reg, i % self.per_reg);
        match self.map {
            Map::Rows { w } => {
                let (g, h) = (row % 8, row / 8);
                let (b, r) = (col / (4 * w), col % (4 * w));
                let i = r % w + w * (h + self.rows / 8 * b);
                let (reg, idx) = split(i);
                Some((4 * g + r / w, reg, idx))
            }
            Map::Cols { w } => {
                let (b, r) = (row / (4 * w), row % (4 * w));
                let (reg, idx) = split(r % w + w * b);
                Some((4 * col + r / w, reg, idx))
            }
            Map::QuadPair(_) | Map::Wmma => self.lanes(group).into_iter().find_map(|lane| {
                (0..self.elements()).find_map(|i| {
                    let (reg, idx) = split(i);
                    (self.element(lane, reg, idx) == Some((row, col))).then_some((lane, reg, idx))
                })
            }),
        }
    }

    /// Element `idx` of register value `reg` (its bits, zero-extended).
    pub fn get(&self, reg: u64, idx: usize) -> u64 {
        let shift = idx * self.bits;
        if shift >= 64 {
            return 0;
        }
        (reg >> shift) & mask(self.bits)
    }

    /// Register value `reg` with element `idx` replaced by the low `bits` of `v`.
    pub fn set(&self, reg: u64, idx: usize, v: u64) -> u64 {
        let shift = idx * self.bits;
        if shift >= 64 {
            return reg;
        }
        let m = mask(self.bits) << shift;
        (reg & !m) | ((v << shift) & m)
    }

    /// Group `group`'s matrix, row-major (`rows·cols` element bit patterns), from the warp's
    /// registers `regs[lane][reg]`; lanes outside the group are not read. For `wmma` the first
    /// copy of each element is read.
    pub fn gather(&self, group: usize, regs: &[Vec<u64>]) -> Result<Vec<u64>, MatrixError> {
        let lanes = self.lanes(group);
        if lanes.is_empty() {
            return Err(MatrixError::Input(format!(
                "group {group} out of range 0..{}",
                self.groups
            )));
        }
        let mut m = vec![None; self.rows * self.cols];
        for &lane in &lanes {
            let r = regs
                .get(lane)
                .filter(|r| r.len() == self.regs)
                .ok_or_else(|| MatrixError::Input(format!("lane {lane}: expected {} fragment registers", self.regs)))?;
            for (reg, &v) in r.iter().enumerate() {
                for idx in 0..self.per_reg {
                    if let Some((row, col)) = self.element(lane, reg, idx) {
                        m[row * self.cols + col].get_or_insert(self.get(v, idx));
                    }
                }
            }
        }
        m.into_iter()
            .collect::<Option<Vec<u64>>>()
            .ok_or_else(|| MatrixError::Input("layout does not cover the matrix".into()))
    }

    /// Writes group `group`'s matrix (row-major, `rows·cols` elements) into the registers of the
    /// group's lanes: `regs` has 32 entries; each lane of the group gets `self.regs` registers
    /// (every element bit of them written), the other lanes are left as they are.
    pub fn scatter(&self, group: usize, matrix: &[u64], regs: &mut [Vec<u64>]) -> Result<(), MatrixError> {
        if matrix.len() != self.rows * self.cols {
            return Err(MatrixError::Input(format!(
                "matrix of {} elements for a {}x{} layout",
                matrix.len(),
                self.rows,
                self.cols
            )));
        }
        if regs.len() != 32 {
            return Err(MatrixError::Input(format!(
                "{} lanes of registers, expected 32",
                regs.len()
            )));
        }
        let lanes = self.lanes(group);
        if lanes.is_empty() {
            return Err(MatrixError::Input(format!(
                "group {group} out of range 0..{}",
                self.groups
            )));
        }
        for lane in lanes {
            let mut out = vec![0u64; self.regs];
            for (reg, v) in out.iter_mut().enumerate() {
                for idx in 0..self.per_reg {
                    let (row, col) = self
                        .element(lane, reg, idx)
                        .ok_or_else(|| MatrixError::Input("layout does not cover the registers".into()))?;
                    *v = self.set(*v, idx, matrix[row * self.cols + col]);
                }
            }
            regs[lane] = out;
        }
        Ok(())
    }
}

fn mask(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn uncovered(form: &Form, why: &'static str) -> MatrixError {
    MatrixError::Uncovered {
        form: form.name.clone(),
        why,
    }
}

/// The layout of matrix `which` of an `mma` or `wmma` form.
///
/// ```
/// use spec::catalog::catalog;
/// use spec::matrix::{layout, Which};
///
/// let cat = catalog();
/// let f = &cat.forms[cat.by_name("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")[0]];
/// let a = layout(f, Which::A).unwrap();
/// assert_eq!((a.rows, a.cols, a.regs, a.per_reg), (16, 16, 4, 2));
/// // Lane 5 (groupID 1, threadID_in_group 1), a3: row groupID + 8, column 2·1 + 1 (L22048-22052).
/// assert_eq!(a.element(5, 1, 1), Some((9, 3)));
/// assert_eq!(a.locate(0, 9, 3), Some((5, 1, 1)));
/// ```
pub fn layout(form: &Form, which: Which) -> Result<Layout, MatrixError> {
    match form.opcode {
        "mma" => mma(form, which),
        "wmma" => wmma(form, which),
        _ => Err(uncovered(form, "not an mma or wmma form")),
    }
}

/// The layout of fragment operand `o` of form `form`: `a`/`b`/`c`/`d` of `mma` and `wmma.mma`,
/// the `r` of `wmma.load` (the matrix its `.a/.b/.c` names) and `wmma.store` (D).
pub fn of_operand(form: &Form, o: &Operand) -> Result<Layout, MatrixError> {
    let which = match (form.opcode, form.mods.first().copied(), o.name) {
        ("wmma", Some("load"), "r") => form.var("m").and_then(Which::parse),
        ("wmma", Some("store"), "r") => Some(Which::D),
        (_, _, name) => Which::parse(name),
    };
    layout(
        form,
        which.ok_or_else(|| uncovered(form, "the operand is not a matrix fragment"))?,
    )
}

/// Packing of elements of type `t`: (element bits, elements per register, register bits).
fn packing(form: &Form, t: &str, kind: Option<&str>) -> Result<(usize, usize, usize), MatrixError> {
    let bits = element_bits(t, kind).ok_or_else(|| uncovered(form, "element type without a fragment packing"))?;
    Ok(if bits == 64 { (64, 1, 64) } else { (bits, 32 / bits, 32) })
}

/// `mma` (§9.7.14.5.1-13) and `mma.sp` (§9.7.14.6.2): the manual's formulas.
///
/// The sparse A fragments (L23872-24346) give for each register the row and the block of K
/// columns its non-zero elements come from; in the compressed M×K/2 matrix that is exactly the
/// dense A layout of half the K (`mma.sp.m16n8k32` f16 A is `m16n8k16` f16 A, L23952-23961
/// against L22048-22052, and so on for every shape). B and C/D of `m16n8k16` f16/bf16,
/// `m16n8k8` tf32, `m16n8k32` s8 and `m16n8k64` s4 are the dense ones (L23913, L24102,
/// L24149, L24292). The other sparse B fragments (`m16n8k32` f16/bf16, `m16n8k16` tf32,
/// `m16n8k64` s8/fp8, `m16n8k128` s4/e2m1) are figures only (Fig. 120, 123, 131-134,
/// 141-144): **interpretation**, the rule every B formula in the text follows ([`Map::Cols`]),
/// extended to the longer K.
fn mma(form: &Form, which: Which) -> Result<Layout, MatrixError> {
    let sparse = form.var("sp").is_some();
    let (m, n, k) = form
        .var("shape")
        .and_then(mnk)
        .ok_or_else(|| uncovered(form, "no mMnNkK shape"))?;
    let var = |v: &str| {
        form.var(v)
            .ok_or_else(|| uncovered(form, "a type of the form is missing"))
    };
    let t = var(match which {
        Which::A => "at",
        Which::B => "bt",
        Which::C => "ct",
        Which::D => "dt",
    })?;
    let (bits, per_reg, reg_bits) = packing(form, t, form.var("kind"))?;
    let (rows, cols) = match which {
        // The sparse A holds the M×K/2 non-zero elements (L23774).
        Which::A if sparse => (m, k / 2),
        Which::A => (m, k),
        Which::B => (k, n),
        Which::C | Which::D => (m, n),
    };
    let base = |regs, groups, map| Layout {
        rows,
        cols,
        bits,
        per_reg,
        reg_bits,
        regs,
        groups,
        copies: 1,
        compressed: sparse && which == Which::A,
        map,
    };
    // §9.7.14.5.1: four quad-pair products (L21047-21059).
    if (m, n, k) == (8, 8, 4) && var("at")? == "f16" {
        let q = match which {
            Which::A if var("al")? == "row" => QuadPair::ARow,
            Which::A => QuadPair::ACol,
            Which::B if var("bl")? == "row" => QuadPair::BRow,
            Which::B => QuadPair::BCol,
            _ if t == "f16" => QuadPair::CF16,
            _ => QuadPair::CF32,
        };
        return Ok(base(rows * cols / 8 / per_reg, 4, Map::QuadPair(q)));
    }
    let (map, w) = match which {
        Which::A => (Map::Rows { w: per_reg }, per_reg),
        Which::B => (Map::Cols { w: per_reg }, per_reg),
        Which::C | Which::D => (Map::Rows { w: 2 }, 2),
    };
    let fits = match map {
        Map::Rows { .. } => (rows == 8 || rows == 16) && cols % (4 * w) == 0,
        _ => cols == 8 && rows % (4 * w) == 0,
    };
    let per_lane = rows * cols / 32;
    if !fits || per_lane % per_reg != 0 {
        return Err(uncovered(form, "shape and type fit no fragment formula of §9.7.14.5"));
    }
    Ok(base(per_lane / per_reg, 1, map))
}

/// `wmma` (§9.7.14.4): the manual leaves the fragment layout unspecified and
/// architecture-dependent (L20114-20116), and fixes only the register counts
/// ([`fragment::length`]). **The oracle's own choice**: lane `l` holds, in register order and
/// low bits first, the elements `l·E .. (l+1)·E` of the matrix in row-major order (`E` the
/// elements per lane), counted modulo `rows·cols`: where the fixed eight `.f16x2` registers
/// of f16 A and B hold more than the matrix (`m16n16k16`: 2 copies, `m8n32k16` A and
/// `m32n8k16` B: 4), the matrix is repeated ([`Layout::copies`]). The layout is in matrix
/// coordinates; `.row`/`.col` of `wmma.load`/`wmma.store` only say how memory holds the matrix.
///
/// A test or vector must not depend on this choice: real hardware distributes differently,
/// so only round trips (`wmma.load` → `wmma.mma` → `wmma.store`) are checks.
pub fn wmma(form: &Form, which: Which) -> Result<Layout, MatrixError> {
    if form.opcode != "wmma" {
        return Err(uncovered(form, "not a wmma form"));
    }
    let (matrix, t, operand) = match form.mods.first().copied() {
        Some("load") => (form.var("m").and_then(Which::parse), form.var("t"), "r"),
        Some("store") => (Some(Which::D), form.var("t"), "r"),
        _ => {
            let v = ["at", "bt", "ct", "dt"][which as usize];
            // The f16 wmma.mma rows write no .atype/.btype: f16 (L20831-20832).
            let t = form.var(v).or(matches!(which, Which::A | Which::B).then_some("f16"));
            (Some(which), t, which.name())
        }
    };
    if matrix != Some(which) {
        return Err(uncovered(form, "the form moves another matrix"));
    }
    let t = t.ok_or_else(|| uncovered(form, "no element type"))?;
    let (m, n, k) = form
        .var("shape")
        .and_then(mnk)
        .ok_or_else(|| uncovered(form, "no mMnNkK shape"))?;
    let (bits, per_reg, reg_bits) = packing(form, t, None)?;
    let (rows, cols) = match which {
        Which::A => (m, k),
        Which::B => (k, n),
        Which::C | Which::D => (m, n),
    };
    let o = form
        .outputs
        .iter()
        .chain(&form.inputs)
        .find(|o| o.name == operand)
        .ok_or_else(|| uncovered(form, "no fragment operand"))?;
    let regs = fragment::length(form, o).ok_or_else(|| uncovered(form, "no fragment length"))?;
    let slots = 32 * regs * per_reg;
    if slots % (rows * cols) != 0 || slots < rows * cols {
        return Err(uncovered(
            form,
            "fragment registers do not hold the matrix a whole number of times",
        ));
    }
    Ok(Layout {
        rows,
        cols,
        bits,
        per_reg,
        reg_bits,
        regs,
        groups: 1,
        copies: slots / (rows * cols),
        compressed: false,
        map: Map::Wmma,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;
    use std::collections::HashMap;

    fn form(name: &str) -> &'static Form {
        let cat = catalog();
        let ids = cat.by_name(name);
        assert!(!ids.is_empty(), "{name}");
        &cat.forms[ids[0]]
    }

    fn lay(name: &str, w: Which) -> Layout {
        layout(form(name), w).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// Every (lane, reg, idx) of each group maps to a cell, each cell `copies` times, and
    /// `locate` inverts `element` (on the first copy).
    fn check_bijection(l: &Layout, what: &str) {
        for group in 0..l.groups {
            let mut seen: HashMap<(usize, usize), usize> = HashMap::new();
            for lane in l.lanes(group) {
                assert_eq!(l.group(lane), Some(group));
                for reg in 0..l.regs {
                    for idx in 0..l.per_reg {
                        let cell = l
                            .element(lane, reg, idx)
                            .unwrap_or_else(|| panic!("{what}: {lane} {reg} {idx}"));
                        *seen.entry(cell).or_default() += 1;
                        if l.copies == 1 {
                            assert_eq!(l.locate(group, cell.0, cell.1), Some((lane, reg, idx)), "{what}");
                        }
                    }
                }
            }
            assert_eq!(seen.len(), l.rows * l.cols, "{what}: cells covered");
            assert!(seen.values().all(|&c| c == l.copies), "{what}: copies");
        }
        assert_eq!(l.element(32, 0, 0), None);
        assert_eq!(l.element(0, l.regs, 0), None);
        assert_eq!(l.locate(0, l.rows, 0), None);
    }

    /// Every `mma` and `mma.sp` form of the catalog: its four layouts exist, hold as many
    /// registers per lane as the type checker's fragment length, and are bijections.
    #[test]
    fn every_mma_form() {
        let cat = catalog();
        let mut n = 0;
        let mut shapes = std::collections::BTreeSet::new();
        for f in cat.forms.iter().filter(|f| f.opcode == "mma") {
            for w in Which::ALL {
                let l = layout(f, w).unwrap_or_else(|e| panic!("{e}"));
                let o = f.outputs.iter().chain(&f.inputs).find(|o| o.name == w.name()).unwrap();
                assert_eq!(Some(l.regs), fragment::length(f, o), "{} {}", f.name, w.name());
                assert_eq!(
                    l.reg_bits,
                    if o.ty.to_string() == "f64" { 64 } else { 32 },
                    "{}",
                    f.name
                );
                check_bijection(&l, &f.name);
                n += 1;
            }
            shapes.insert(f.var("shape").unwrap());
        }
        assert!(n >= 4 * 150, "{n} layouts");
        assert_eq!(shapes.len(), 11, "{shapes:?}");
    }

    /// Sparse A in compressed coordinates (§9.7.14.6.2), checked by hand against the text's
    /// row and first-column formulas; forms without fragments are refused with a typed error.
    #[test]
    fn sparse() {
        // m16n8k32 f16 (L23952-23961): lane 6, a5 → row groupID 1, block 4·2 + 16 = 24..27,
        // whose two non-zeros are compressed columns 12, 13: a5 is the second.
        let f16 = "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32";
        let a = lay(f16, Which::A);
        assert!(a.compressed && !lay(f16, Which::B).compressed);
        assert_eq!((a.rows, a.cols), (16, 16));
        assert_eq!(a.element(6, 2, 1), Some((1, 13)));
        // tf32 m16n8k16 (L24022-24031): lane 6, a3 → row 9, block 2·2 + 8 = 12..13 → column 6.
        assert_eq!(
            lay("mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32", Which::A).element(6, 3, 0),
            Some((9, 6))
        );
        // s4 m16n8k128 (L24337-24346): lane 5, a20 → row 1, block 16 + 64 = 80..95 → 40 + 4.
        assert_eq!(
            lay("mma.sp.sync.aligned.m16n8k128.row.col.s32.s4.s4.s32", Which::A).element(5, 2, 4),
            Some((1, 44))
        );
        // B, C and D of sparse m16n8k16 f16 are the dense ones (L23913).
        for w in [Which::B, Which::C, Which::D] {
            assert_eq!(
                lay("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", w),
                lay("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", w)
            );
        }
        let add = form("add.s32");
        assert!(matches!(layout(add, Which::A), Err(MatrixError::Uncovered { .. })));
        let ld = form("ldmatrix.sync.aligned.m8n8.x4.b16");
        assert!(of_operand(ld, &ld.outputs[0]).is_err());
    }

    /// Every `wmma` form: our own layout covers the matrix `copies` times with the checker's
    /// fragment lengths.
    #[test]
    fn every_wmma_form() {
        let cat = catalog();
        let mut n = 0;
        for f in cat.forms.iter().filter(|f| f.opcode == "wmma") {
            for o in f.outputs.iter().chain(&f.inputs).filter(|o| o.group.is_some()) {
                let l = of_operand(f, o).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(Some(l.regs), fragment::length(f, o), "{}", f.name);
                check_bijection(&l, &f.name);
                n += 1;
            }
        }
        assert!(n > 300, "{n}");
        let l = lay("wmma.load.a.sync.aligned.row.m16n16k16.f16", Which::A);
        assert_eq!((l.regs, l.copies), (8, 2));
        let l = lay("wmma.load.a.sync.aligned.row.m8n32k16.f16", Which::A);
        assert_eq!(l.copies, 4);
        assert!(layout(form("wmma.load.a.sync.aligned.row.m8n32k16.f16"), Which::B).is_err());
    }

    /// Cells checked against the manual's formulas, by hand.
    #[test]
    fn spot_checks() {
        // m8n8k4 f64 (L21231-21233): A row = lane >> 2, col = lane % 4.
        let f64 = "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64";
        assert_eq!(lay(f64, Which::A).element(13, 0, 0), Some((3, 1)));
        // B (L21257-21259): row = lane % 4, col = lane >> 2.
        assert_eq!(lay(f64, Which::B).element(13, 0, 0), Some((1, 3)));
        // C (L21286-21288): row = groupID, col = 2·threadID_in_group + (i & 1).
        assert_eq!(lay(f64, Which::C).element(13, 1, 0), Some((3, 3)));

        // m16n8k8 tf32 A (L21821-21825): a1 of lane 6 → row 1 + 8, col 2; a2 → row 1, col 6.
        let tf32 = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32";
        assert_eq!(lay(tf32, Which::A).element(6, 1, 0), Some((9, 2)));
        assert_eq!(lay(tf32, Which::A).element(6, 2, 0), Some((1, 6)));
        // B (L21914-21917): b1 of lane 6 → row 2 + 4, col 1.
        assert_eq!(lay(tf32, Which::B).element(6, 1, 0), Some((6, 1)));

        // m16n8k16 f16 (L22048-22052): a4 (reg 2, low half) of lane 31 → row 7, col 6 + 8.
        let f16 = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
        assert_eq!(lay(f16, Which::A).element(31, 2, 0), Some((7, 14)));
        // a7 → row 7 + 8, col 7 + 8.
        assert_eq!(lay(f16, Which::A).element(31, 3, 1), Some((15, 15)));
        // B (L22112-22115): b3 (reg 1, high half) of lane 9 → row 2 + 1 + 8, col 2.
        assert_eq!(lay(f16, Which::B).element(9, 1, 1), Some((11, 2)));
        // C f32 (L22179-22182): c2 of lane 9 → row 2 + 8, col 2.
        assert_eq!(lay(f16, Which::C).element(9, 2, 0), Some((10, 2)));
        // The f16 accumulator packs c0,c1 in reg 0 and c2,c3 in reg 1 (L22164-22166).
        let h = "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16";
        assert_eq!(lay(h, Which::D).element(9, 1, 1), Some((10, 3)));

        // m16n8k16 f64 A (L22079-22083): a3 of lane 5 → row 1 + 8, col 4 + 1.
        let d = "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64";
        assert_eq!(lay(d, Which::A).element(5, 3, 0), Some((9, 5)));
        // B (L22142-22144): b3 of lane 5 → row 1 + 12, col 1.
        assert_eq!(lay(d, Which::B).element(5, 3, 0), Some((13, 1)));

        // m16n8k32 s8 A (L22372-22376): a9 (reg 2, byte 1) of lane 7 → row 1, col 12 + 1 + 16.
        let s8 = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32";
        assert_eq!(lay(s8, Which::A).element(7, 2, 1), Some((1, 29)));
        // a6 (reg 1, byte 2) → row 1 + 8, col 12 + 2.
        assert_eq!(lay(s8, Which::A).element(7, 1, 2), Some((9, 14)));
        // B (L22443-22446): b5 (reg 1, byte 1) of lane 7 → row 12 + 1 + 16, col 1.
        assert_eq!(lay(s8, Which::B).element(7, 1, 1), Some((29, 1)));

        // m8n8k32 s4 A (L21414-21416): a5 of lane 2 → row 0, col 16 + 5; bits 20..24.
        let s4 = "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32";
        let a = lay(s4, Which::A);
        assert_eq!((a.bits, a.per_reg), (4, 8));
        assert_eq!(a.element(2, 0, 5), Some((0, 21)));
        assert_eq!(a.get(0x00f0_0000, 5), 0xf);

        // m16n8k64 s4 A (L22527-22531): a17 (reg 2, nibble 1) of lane 1 → row 0, col 8 + 1 + 32.
        let s4 = "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32";
        assert_eq!(lay(s4, Which::A).element(1, 2, 1), Some((0, 41)));

        // m16n8k128 b1 A (L22640-22643): a40 (reg 1, bit 8) of lane 3 → row 8, col 96 + 8.
        let b1 = "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc";
        assert_eq!(lay(b1, Which::A).element(3, 1, 8), Some((8, 104)));
        // m16n8k256 A: a100 (reg 3, bit 4) of lane 3 → row 8, col 96 + 4 + 128 (L22734-22738).
        let b1 = "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc";
        assert_eq!(lay(b1, Which::A).element(3, 3, 4), Some((8, 228)));
        // a40 (reg 1, bit 8): row 8, col 96 + 8 — the manual's `(threadID_in_group * 32) + i`
        // for i < 64 (L22737) would give column 136; see the module's defects note.
        assert_eq!(lay(b1, Which::A).element(3, 1, 8), Some((8, 104)));
        // B (L22769-22772): b33 (reg 1, bit 1) of lane 3 → row 96 + 1 + 128, col 0.
        assert_eq!(lay(b1, Which::B).element(3, 1, 1), Some((225, 0)));

        // fp6 of kind::f8f6f4 sits in 8-bit containers, four per register (L22355-22357).
        let f6 = "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32";
        assert_eq!((lay(f6, Which::A).bits, lay(f6, Which::B).per_reg), (8, 4));
        // e2m1 of kind::mxf4 is packed eight per register (L22510-22512).
        let f4 = "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0";
        assert_eq!(lay(f4, Which::A).per_reg, 8);
    }

    /// The quad-pairs of m8n8k4 f16 (§9.7.14.5.1).
    #[test]
    fn quad_pairs() {
        let name = "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32";
        let a = lay(name, Which::A);
        assert_eq!((a.groups, a.lanes(1)), (4, vec![4, 5, 6, 7, 20, 21, 22, 23]));
        // Row-major A (L21089-21092): lane 22 (upper half) a3 → row 2 + 4, col 3.
        assert_eq!(a.element(22, 1, 1), Some((6, 3)));
        // Column-major B (L21146-21149): lane 22 b1 → row 1, col 2 + 4.
        assert_eq!(lay(name, Which::B).element(22, 0, 1), Some((1, 6)));
        // f32 C (L21196-21201): lane 19, c6 → row 1 + 2 + 4, col 4 + 2 + 0.
        assert_eq!(lay(name, Which::C).element(19, 6, 0), Some((7, 6)));
        // Column-major A (L21104-21107) and row-major B (L21133-21136).
        let cr = "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16";
        assert_eq!(lay(cr, Which::A).element(18, 1, 0), Some((6, 2)));
        assert_eq!(lay(cr, Which::B).element(18, 1, 0), Some((2, 6)));
        // f16 C (L21179-21182): lane 18, c5 (reg 2, high half) → row 2 + 4, col 5.
        assert_eq!(lay(cr, Which::D).element(18, 2, 1), Some((6, 5)));
    }

    /// gather and scatter are inverse, per group.
    #[test]
    fn gather_scatter() {
        for name in [
            "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
            "mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f32",
            "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc",
            "wmma.load.a.sync.aligned.row.m16n16k16.f16",
        ] {
            let f = form(name);
            for o in f.outputs.iter().chain(&f.inputs).filter(|o| o.group.is_some()) {
                let l = of_operand(f, o).unwrap();
                let mut regs = vec![Vec::new(); 32];
                let mats: Vec<Vec<u64>> = (0..l.groups)
                    .map(|g| {
                        (0..l.rows * l.cols)
                            .map(|c| (c as u64 * 7 + g as u64 * 3) & mask(l.bits))
                            .collect()
                    })
                    .collect();
                for (g, m) in mats.iter().enumerate() {
                    l.scatter(g, m, &mut regs).unwrap();
                }
                for (g, m) in mats.iter().enumerate() {
                    assert_eq!(&l.gather(g, &regs).unwrap(), m, "{name}");
                }
                assert!(l.gather(l.groups, &regs).is_err());
                assert!(l.scatter(0, &[1], &mut regs).is_err());
            }
        }
    }
}
