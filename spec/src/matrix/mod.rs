//! Matrix data movement of the warp-level tensor-core instructions (§9.7.14): where each element
//! of an `mma`/`wmma` fragment sits in the threads' registers ([`layout`]), and the exact
//! semantics of `ldmatrix`, `stmatrix`, `movmatrix`, `wmma.load` and `wmma.store`
//! ([`movement`]).
//!
//! These are pure functions over bit patterns and data derived from a catalog [`Form`]: the
//! oracle's interpreter gathers a warp's fragment registers into matrices with a [`Layout`],
//! hands them to the numerics, and scatters D back; the golden-vector emitter and the program
//! generator read the same layouts. Lines `L<n>` refer to the PTX ISA 8.7 manual
//! (`ptx-isa-8.7.zh.txt`), `E<n>` to the 6.4 English one.
//!
//! What the manual fixes and what it leaves open:
//! - `mma` fragments (§9.7.14.5.1-13, L21037-22802): the manual gives row/column formulas in
//!   terms of `groupID = %laneid >> 2` and `threadID_in_group = %laneid % 4`; [`layout()`]
//!   follows them for every dense shape and type of the catalog.
//! - `mma.sp` fragments (§9.7.14.6.2, L23860-24395): A as the compressed M×K/2 matrix of its
//!   non-zero elements, B, C and D; some sparse B layouts are figures only and taken by the
//!   rule of all the others (an interpretation, see [`layout()`]).
//! - `wmma` fragments: "the distribution and identity of fragment elements are unspecified and
//!   architecture-dependent" (L20114-20116). [`layout()`] gives the oracle's own choice (see
//!   [`layout::wmma`]); a check that depends on it is wrong. Only `wmma.load` → `wmma.mma` →
//!   `wmma.store` round trips are portable. The memory side of `wmma.load`/`wmma.store`
//!   (strides, default strides, alignment, §9.7.14.4.2) is the manual's ([`wmma_load`],
//!   [`wmma_store`]).
//! - `ldmatrix`/`stmatrix` `.m8n8.b16` and `movmatrix` (L23337-23771): the text fixes which lanes
//!   give the row addresses and which lane receives which row fragment.
//! - `mma.sp` sparsity (§9.7.14.6.1): block granularity, one block's metadata index field,
//!   the selector's threads, and which bits of which thread's metadata register describe which
//!   block of A (figures only, Fig. 118-146: an interpretation, [`sparse`]); the same for
//!   `wgmma.mma_async.sp` (§9.7.15.6), each warp describing its 16 rows of A.
//! - block-scaled `mma` (§9.7.14.3): which thread and byte of `scale-a-data`/`scale-b-data`
//!   hold which scale factor ([`scale`]; the figures' reading is an interpretation).
//! - `wgmma.mma_async` (§9.7.15.5): the warpgroup's D and A fragments and the shared-memory
//!   matrix descriptor with its canonical layouts and swizzle modes ([`wgmma`]).
//! - the sm_100a `ldmatrix .m16n16`/`.m8n16` shapes with their unpack formats and
//!   `stmatrix .m16n8.b8` ([`wide`]): fragment layouts in figures only (Fig. 104, 105, 107),
//!   read as CUTLASS's copy traits have them (an interpretation).
//!
//! # Example
//!
//! How the interpreter runs an `mma`: gather each operand's matrix from the warp's registers,
//! compute, scatter D back. Here `mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32`, whose
//! integer arithmetic is exact, with B the identity, so D = A + C in the upper 8×8 corner.
//!
//! ```
//! use spec::catalog::catalog;
//! use spec::matrix::{layout, Which};
//!
//! let cat = catalog();
//! let f = &cat.forms[cat.by_name("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32")[0]];
//! let [a, b, c, d] = Which::ALL.map(|w| layout(f, w).unwrap());
//! // The warp's registers, as the interpreter holds them: regs[lane][i].
//! let mut ra = vec![Vec::new(); 32];
//! let mut rb = vec![Vec::new(); 32];
//! let mut rc = vec![Vec::new(); 32];
//! let am: Vec<u64> = (0..8 * 16).map(|i| (i % 7) as u64).collect(); // 8×16 s8
//! let bm: Vec<u64> = (0..16 * 8).map(|i| u64::from(i / 8 == i % 8)).collect(); // 16×8, I
//! let cm: Vec<u64> = (0..64).map(|i| 100 + i as u64).collect(); // 8×8 s32
//! a.scatter(0, &am, &mut ra).unwrap();
//! b.scatter(0, &bm, &mut rb).unwrap();
//! c.scatter(0, &cm, &mut rc).unwrap();
//! assert_eq!((ra[0].len(), rb[0].len(), rc[0].len()), (1, 1, 2)); // fragment lengths
//!
//! // The interpreter's side: matrices in, matrix out.
//! let (am, bm, cm) = (a.gather(0, &ra).unwrap(), b.gather(0, &rb).unwrap(), c.gather(0, &rc).unwrap());
//! let dm: Vec<u64> = (0..64)
//!     .map(|i| {
//!         let (r, n) = (i / 8, i % 8);
//!         let dot: u64 = (0..16).map(|k| am[r * 16 + k] * bm[k * 8 + n]).sum();
//!         (cm[i] + dot) & 0xffff_ffff
//!     })
//!     .collect();
//! let mut rd = vec![Vec::new(); 32];
//! d.scatter(0, &dm, &mut rd).unwrap();
//! // Lane 5 (groupID 1, threadID_in_group 1) holds D[1][2] and D[1][3] (L21379-21381).
//! assert_eq!(rd[5], vec![100 + 10 + am[16 + 2], 100 + 11 + am[16 + 3]]);
//! ```
//!
//! [`Form`]: crate::catalog::Form
//! [`Layout`]: layout::Layout

use std::fmt;

pub mod layout;
pub mod movement;
pub mod scale;
pub mod sparse;
pub mod wgmma;
pub mod wide;

pub use layout::{layout, Layout, Which};
pub use movement::{ldmatrix, movmatrix, stmatrix, wmma_load, wmma_store, Access, MoveError, WmmaAccess};
pub use sparse::{sparsity, Sparsity};

/// Why a matrix function cannot give a result: the form is not one this module covers, or the
/// inputs break a rule the manual states (the interpreter reports these as runtime errors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatrixError {
    /// The form (or its operand) has no layout or movement semantics here: not a matrix form,
    /// or one not covered yet (named in the module documentation).
    Uncovered {
        /// The form's name.
        form: String,
        /// Why, in words.
        why: &'static str,
    },
    /// A row address is not aligned as the manual requires (16 bytes for `ldmatrix`/`stmatrix`
    /// rows, L23473, L23641; the fragment size for each row or column of `wmma.load/store`,
    /// L20400), or a `wmma` stride is below its default (undefined, L20626).
    Misaligned {
        /// The lane that gave the address (`ldmatrix`/`stmatrix`); `None` for `wmma`, whose
        /// addresses come from `p` and the stride.
        lane: Option<usize>,
        /// The address.
        addr: u64,
        /// The alignment required, in bytes.
        align: u64,
    },
    /// Inputs of the wrong shape: a register vector of the wrong length, a lane or register
    /// index out of range, a memory read of the wrong size.
    Input(String),
    /// Inputs whose result the manual makes undefined (a sparsity metadata index or selector
    /// value it calls invalid or not meaningful, §9.7.14.6.1); the text names the rule and line.
    Undefined(String),
    /// The form breaks a rule the manual states (an `ldmatrix .m16n16` without `.trans`, ...):
    /// the rule, with its line.
    Invalid {
        /// The rule and its line in the manual.
        rule: &'static str,
    },
}

impl fmt::Display for MatrixError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatrixError::Uncovered { form, why } => write!(f, "{form}: {why}"),
            MatrixError::Misaligned { lane, addr, align } => {
                if let Some(lane) = lane {
                    write!(f, "lane {lane}: ")?;
                }
                write!(f, "row address {addr:#x} is not {align}-byte aligned")
            }
            MatrixError::Input(s) | MatrixError::Undefined(s) => f.write_str(s),
            MatrixError::Invalid { rule } => write!(f, "invalid: {rule}"),
        }
    }
}

impl std::error::Error for MatrixError {}
