//! `.tile::gather4` and `.tile::scatter4` (§5.5.3.4, L2194-2220; sm_100): four rows of a 2-D
//! tensor, each as wide as the box, as one 2-D box in shared memory.
//!
//! The instruction's `tensorCoords` is `{col_idx, row_idx0, row_idx1, row_idx2, row_idx3}`
//! (L14916-14926, the example at L15298): one coordinate along dimension 0 (the column the four
//! rows start at) and four along dimension 1. §5.5.3.4's list says "four tensor coordinates on
//! dimension 0, one on dimension 1" (L2200-2204), which the operand table, its example and the
//! bounding-box example (starting coordinates (1, 2), (1, 5), (1, 0), (1, 9), L2214: one
//! column, four rows) all contradict; they are followed.
//!
//! Row `k` of the box is tensor row `row_idx{k}`, elements `col_idx .. col_idx + boxDim[0] - 1`
//! (L2216: "the size of the bounding box in dimension 0 is the length of the row; in dimension
//! 1 it must be 1"); in shared memory the four rows follow each other densely, row `k` at
//! `k · boxDim[0] · elementSize`, as a tile box of `boxDim[0]` × 4 would lie (L2198: the rows
//! "form a single 2-D tensor"), then swizzled. The tile mode's other rules apply (L2208): out
//! of bounds elements are filled on loads and left alone on stores.

use super::map::{Interleave, TensorMap};
use std::fmt;

/// A rule of the gather4/scatter4 modes a tensor copy breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gather4Error {
    /// "These modes are only applicable to 2-D tensor data" (L2196).
    Rank {
        /// The map's rank.
        rank: u8,
    },
    /// "Interleaved layouts are not supported for .tile::scatter4 and .tile::gather4" (L2206).
    Interleave,
    /// "The size of the bounding box in dimension 1 must be 1" (L2216).
    BoxRows {
        /// The map's `boxDim[1]`.
        box_dim: u32,
    },
    /// `tensorCoords` is a vector of exactly five coordinates (L14916-14926).
    Coords {
        /// The number given.
        count: usize,
    },
}

impl fmt::Display for Gather4Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Gather4Error::Rank { rank } => write!(
                f,
                "`.tile::gather4`/`.tile::scatter4` apply to 2-D tensors only (L2196); the tensor map has rank {rank}"
            ),
            Gather4Error::Interleave => write!(
                f,
                "`.tile::gather4`/`.tile::scatter4` do not support an interleaved layout (L2206)"
            ),
            Gather4Error::BoxRows { box_dim } => write!(
                f,
                "the bounding box of `.tile::gather4`/`.tile::scatter4` must be 1 in dimension 1 (L2216); the tensor map's boxDim[1] is {box_dim}"
            ),
            Gather4Error::Coords { count } => write!(
                f,
                "`.tile::gather4`/`.tile::scatter4` take the five coordinates {{col_idx, row_idx0, .., row_idx3}} (L14916-14926), not {count}"
            ),
        }
    }
}

impl std::error::Error for Gather4Error {}

/// The tensor coordinates of the box's elements in shared-memory order (before the swizzle):
/// row `k` (0..4) is `(col_idx + j, row_idx{k})` for `j` in `0..boxDim[0]`.
pub fn coordinates(map: &TensorMap, box_dim: [u32; 5], coords: &[i32]) -> Result<Vec<[i64; 5]>, Gather4Error> {
    if map.rank != 2 {
        return Err(Gather4Error::Rank { rank: map.rank });
    }
    if map.interleave != Interleave::None {
        return Err(Gather4Error::Interleave);
    }
    if box_dim[1] != 1 {
        return Err(Gather4Error::BoxRows { box_dim: box_dim[1] });
    }
    let [col, rows @ ..] = coords else {
        return Err(Gather4Error::Coords { count: coords.len() });
    };
    if rows.len() != 4 {
        return Err(Gather4Error::Coords { count: coords.len() });
    }
    Ok(rows
        .iter()
        .flat_map(|&row| (0..box_dim[0] as i64).map(move |j| [*col as i64 + j, row as i64, 0, 0, 0]))
        .collect())
}
