//! The element transfers of one tensor copy ([`plan`]): for each element of the box, its
//! shared-memory address after the swizzle and its global address, or "out of bounds".
//!
//! This is what `cp.async.bulk.tensor` (§9.7.9.25.5.2, L14847-15096), `cp.reduce.async.bulk
//! .tensor` (§9.7.9.25.5.3, L15098) and `prefetch.tensor` (§9.7.9.25.5.4, L15181) do to memory;
//! the oracle's executor carries the transfers out (reading or writing, reducing, completing the
//! mbarrier with [`Plan::tx_bytes`]).
//!
//! Tile mode (§5.5.3, L2146-2190): the box starts at the instruction's coordinates (`.s32`,
//! dimension 0 first, L14908) and holds `ceil(boxDim[i] / elementStrides[i])` elements along
//! dimension `i`, element `k` at coordinate `coords[i] + k·elementStrides[i]` (the driver:
//! "TMA loads ceil(`boxDim`\[i\] / `elementStrides`\[i\]) number of elements along i-th dimension";
//! without interleave the stride of dimension 0 is ignored). An element is out of bounds when
//! any coordinate is negative or ≥ `globalDim` (L2178).
//!
//! Im2col mode (§5.5.4, L2222-2393), as read here (the figures are not in the text):
//! - the bounding box along each spatial dimension `s` (W, H, D = tensor dimensions 1, 2, 3)
//!   runs from `lower[s]` to `globalDim[s+1] - 1 + upper[s]` — the range of filter base
//!   positions of a convolution: the manual's example 1 (L2324-2342: W = 9, corners -1/-1, a
//!   3×3 filter with padding 1) gives the 9 positions -1..=7, example 2 (L2344-2362: corners
//!   0/-2, no padding) the 7 positions 0..=6;
//! - the request's `Pixels-per-Column` pixels are the box's positions in N, D, H, W order (W
//!   fastest), stepping by `elementStrides` along D, H, W (L2366-2370), starting at the
//!   instruction's W, H, D, N coordinates; past the box's end along W the next pixel is the
//!   box's first W at the next H, and so on up to N (L2391: pixels beyond the batch are out of
//!   bounds). The manual requires the starting corner to lie in the box (L2302); its examples 2
//!   and 3 (L2344-2387) start at W = 7 outside the box read this way, so a start outside the
//!   box is not refused: it yields its pixel and then wraps;
//! - each pixel's elements are `Channels-per-Pixel` consecutive channels from the instruction's
//!   C coordinate, read at the pixel's position plus the im2col offsets (L2304), dimension by
//!   dimension `{W, H, D}` as the instruction's `im2colInfo` lists them (L14984);
//! - in shared memory pixel `k`'s channels are row `k`, `Channels-per-Pixel · elementSize`
//!   bytes.
//!
//! Shared memory (both modes): the box is stored densely, dimension 0 fastest, from the
//! destination address; each byte's address then goes through the swizzle ([`super::swizzle`]).
//! A row narrower than the swizzle span is not padded to it (the manual's patterns are
//! functions of the address alone; an interpretation, unverified on hardware). With an
//! interleaved layout the box is read the same way, dimension 0 being the channels of one
//! 16- or 32-byte slice.
//!
//! Out of bounds: a load writes the fill ([`fill_bits`]); a store or reduction leaves the
//! global element alone (the fill modes are described for what lands in the destination
//! box, L2178-2190). The complete-tx count of a load is the whole box, filled elements
//! included: "the amount of data copied in bytes" (L14966).

use super::map::{Atomicity, DataType, Interleave, MapError, Mode, OobFill, TensorMap};
use super::swizzle;
use std::fmt;

/// Which way the data moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Global → shared (`cp.async.bulk.tensor` `.shared::cta/.shared::cluster.global`, and what
    /// `prefetch.tensor` touches).
    Load,
    /// Shared → global (`cp.async.bulk.tensor.global.shared::cta`, `cp.reduce.async.bulk
    /// .tensor`).
    Store,
}

/// The instruction's operands that select the box.
#[derive(Clone, Copy, Debug)]
pub enum Request<'a> {
    /// `.tile`: `tensorCoords`, one `.s32` per dimension, dimension 0 first.
    Tile {
        /// The coordinates.
        coords: &'a [i32],
    },
    /// `.tile::gather4` (loads) or `.tile::scatter4` (stores): `{col_idx, row_idx0, ..,
    /// row_idx3}` (L14916-14926), planned by [`super::gather`].
    Gather4 {
        /// The five coordinates as written.
        coords: &'a [i32],
    },
    /// `.im2col::w` or `.im2col::w::128` (loads), planned by [`super::wide`].
    Im2colWide {
        /// `tensorCoords`: C, W, (H, (D,)) N.
        coords: &'a [i32],
        /// im2colInfo as written: `{wHalo, wOffset}` (L14990-14994).
        info: &'a [u16],
        /// `.im2col::w::128` (else `.im2col::w`).
        w128: bool,
    },
    /// `.im2col` (loads) or `.im2col_no_offs` (stores, `offsets` empty).
    Im2col {
        /// `tensorCoords`: C, W, (H, (D,)) N.
        coords: &'a [i32],
        /// The im2col offsets `{W, H, D}` (`rank - 2` of them, 16-bit unsigned, L14984), or none.
        offsets: &'a [u16],
    },
}

/// One element's transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element {
    /// The element's first byte in shared memory, after the swizzle (the element's bytes are
    /// `elem_bytes` consecutive ones: every swizzle unit is at least 8 bytes and elements are
    /// naturally aligned in the box).
    pub smem: u64,
    /// Its first byte in global memory; `None` when out of bounds.
    pub global: Option<u64>,
    /// Its tensor coordinates, dimension 0 first (unused dimensions 0).
    pub coords: [i64; 5],
}

/// The transfers of one tensor copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Bytes per element.
    pub elem_bytes: u64,
    /// Every element of the box, in shared-memory order before the swizzle.
    pub elements: Vec<Element>,
    /// What an out-of-bounds element of a load becomes.
    pub fill: OobFill,
    /// The complete-tx byte count of a load (the whole box).
    pub tx_bytes: u64,
}

/// Why a tensor copy cannot be planned. Each names the rule it breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// The tensor map breaks a driver rule.
    Map(MapError),
    /// The instruction's `.dim` is not the map's rank (or the coordinate/offset counts are
    /// wrong for it).
    Rank {
        /// Coordinates given.
        coords: usize,
        /// The map's rank.
        rank: usize,
    },
    /// `.tile` on an im2col map or `.im2col` on a tiled one.
    Mode,
    /// The packed sub-byte types are not modelled yet.
    PackedType,
    /// A packed type in a direction it does not support (L14801: no `.b4x16_p64` store;
    /// driver: `.b6x16_p32`'s 64-byte atomicity for stores only, `.b4x16_p64` loads only).
    PackedDirection,
    /// The shared-memory box is not aligned: 16 bytes (L2152), 32/64 for the 32/64-byte
    /// atomicity sub-modes (L2942, L2976).
    SmemAlignment {
        /// The alignment required.
        align: u64,
    },
    /// The box is not a multiple of 16 bytes (L2152).
    BoxBytes {
        /// Its size.
        bytes: u64,
    },
    /// An `im2col_no_offs` store whose bounding box leaves the tensor (L14833-14837: lower
    /// corner non-negative, upper corner non-positive).
    StoreCorners,
    /// A `.tile::gather4`/`.tile::scatter4` rule ([`super::gather::Gather4Error`]).
    Gather4(super::gather::Gather4Error),
    /// An `.im2col::w`/`.im2col::w::128` rule ([`super::wide::WideError`]).
    Wide(super::wide::WideError),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Map(e) => write!(f, "the tensor map is invalid: {e}"),
            PlanError::Rank { coords, rank } => write!(
                f,
                "{coords} tensor coordinates for a tensor map of rank {rank} (L14908)"
            ),
            PlanError::Mode => write!(f, "the load mode does not match the tensor map's mode"),
            PlanError::PackedType => {
                write!(f, "tensor copies of the packed sub-byte types are not modelled")
            }
            PlanError::PackedDirection => {
                write!(f, "the packed type does not support this copy direction (L14797-14831)")
            }
            PlanError::SmemAlignment { align } => {
                write!(
                    f,
                    "the shared-memory box must be {align}-byte aligned (L2152, L2942, L2976)"
                )
            }
            PlanError::BoxBytes { bytes } => {
                write!(f, "the box is {bytes} bytes, not a multiple of 16 (L2152)")
            }
            PlanError::Gather4(e) => write!(f, "{e}"),
            PlanError::Wide(e) => write!(f, "{e}"),
            PlanError::StoreCorners => write!(
                f,
                "a shared::cta to global im2col copy needs the bounding box inside the tensor (L14833-14837)"
            ),
        }
    }
}

impl std::error::Error for PlanError {}

/// The bits an out-of-bounds element of a load receives: 0, or for OOB-NaN the type's
/// canonical NaN (the manual names the value "OOB-NaN", L2186, without giving its bits; a
/// checker should accept any NaN there).
pub fn fill_bits(t: DataType, fill: OobFill) -> u64 {
    match (fill, t) {
        (OobFill::Zero, _) => 0,
        (OobFill::Nan, DataType::F16 | DataType::Bf16) => 0x7fff,
        (OobFill::Nan, DataType::F64) => 0x7fff_ffff_ffff_ffff,
        (OobFill::Nan, _) => 0x7fff_ffff,
    }
}

/// The transfers of a tensor copy of `map` in direction `dir` selecting the box with `req`,
/// the box at shared-memory address `smem`.
pub fn plan(map: &TensorMap, dir: Direction, req: &Request, smem: u64) -> Result<Plan, PlanError> {
    map.validate().map_err(PlanError::Map)?;
    let t = map.data_type;
    if dir == Direction::Store && t == DataType::B4x16P64
        || dir == Direction::Load && t == DataType::B6x16P32 && map.atomicity == Atomicity::B64
    {
        return Err(PlanError::PackedDirection);
    }
    let Some(e) = t.bytes() else {
        return Err(PlanError::PackedType);
    };
    let align = swizzle::smem_alignment(map.atomicity);
    if !smem.is_multiple_of(align) {
        return Err(PlanError::SmemAlignment { align });
    }
    let r = map.rank();
    let global = |x: &[i64; 5]| -> Option<u64> {
        let inside = x[..r]
            .iter()
            .zip(&map.global_dim)
            .all(|(&c, &n)| c >= 0 && (c as u64) < n);
        if !inside {
            return None;
        }
        // Dimension 0 is contiguous; dimension d ≥ 1 steps by globalStrides[d - 1].
        let a = map.global_address.wrapping_add(x[0] as u64 * e);
        Some(
            x[1..r]
                .iter()
                .zip(&map.global_strides)
                .fold(a, |a, (&c, &s)| a.wrapping_add((c as u64).wrapping_mul(s))),
        )
    };
    let mut elements = Vec::new();
    let mut push = |k: u64, x: [i64; 5]| {
        elements.push(Element {
            smem: swizzle::address(map.swizzle, map.atomicity, smem + k * e),
            global: global(&x),
            coords: x,
        });
    };
    match (map.mode, req) {
        (Mode::Tiled { box_dim }, Request::Tile { coords }) => {
            if coords.len() != r {
                return Err(PlanError::Rank {
                    coords: coords.len(),
                    rank: r,
                });
            }
            let mut count = [1u64; 5];
            let mut stride = [1i64; 5];
            for d in 0..r {
                stride[d] = if d == 0 && map.interleave == Interleave::None {
                    1
                } else {
                    map.element_strides[d] as i64
                };
                count[d] = (box_dim[d] as u64).div_ceil(stride[d] as u64);
            }
            let total: u64 = count.iter().product();
            if !(total * e).is_multiple_of(16) {
                return Err(PlanError::BoxBytes { bytes: total * e });
            }
            for k in 0..total {
                let mut x = [0i64; 5];
                let mut rest = k;
                for d in 0..r {
                    x[d] = coords[d] as i64 + (rest % count[d]) as i64 * stride[d];
                    rest /= count[d];
                }
                push(k, x);
            }
        }
        (
            Mode::Im2col {
                lower,
                upper,
                channels_per_pixel,
                pixels_per_column,
            },
            Request::Im2col { coords, offsets },
        ) => {
            let spatial = r - 2;
            if coords.len() != r || !(offsets.is_empty() || offsets.len() == spatial) {
                return Err(PlanError::Rank {
                    coords: coords.len(),
                    rank: r,
                });
            }
            if dir == Direction::Store && (0..spatial).any(|s| lower[s] < 0 || upper[s] > 0) {
                return Err(PlanError::StoreCorners);
            }
            let cpp = channels_per_pixel as u64;
            let total = cpp * pixels_per_column as u64;
            if !(total * e).is_multiple_of(16) {
                return Err(PlanError::BoxBytes { bytes: total * e });
            }
            let hi = |s: usize| map.global_dim[s + 1] as i64 - 1 + upper[s] as i64;
            // The pixel's position: [W, H, D] and N.
            let mut p = [0i64; 3];
            p[..spatial].copy_from_slice(&coords[1..=spatial].iter().map(|&c| c as i64).collect::<Vec<_>>());
            let mut n = coords[r - 1] as i64;
            for k in 0..pixels_per_column as u64 {
                for j in 0..cpp {
                    let mut x = [0i64; 5];
                    x[0] = coords[0] as i64 + j as i64;
                    for s in 0..spatial {
                        x[s + 1] = p[s] + offsets.get(s).copied().unwrap_or(0) as i64;
                    }
                    x[r - 1] = n;
                    push(k * cpp + j, x);
                }
                // The next pixel: W fastest, wrapping inside the box, then N.
                let mut s = 0;
                loop {
                    if s == spatial {
                        n += 1;
                        break;
                    }
                    p[s] += map.element_strides[s + 1] as i64;
                    if p[s] <= hi(s) {
                        break;
                    }
                    p[s] = lower[s] as i64;
                    s += 1;
                }
            }
        }
        (Mode::Tiled { box_dim }, Request::Gather4 { coords }) => {
            for (k, x) in super::gather::coordinates(map, box_dim, coords)
                .map_err(PlanError::Gather4)?
                .into_iter()
                .enumerate()
            {
                push(k as u64, x);
            }
        }
        (Mode::Im2colWide { .. }, Request::Im2colWide { coords, info, w128 }) => {
            if dir == Direction::Store {
                return Err(PlanError::Mode);
            }
            let xs = super::wide::coordinates(map, coords, info, *w128).map_err(PlanError::Wide)?;
            if !(xs.len() as u64 * e).is_multiple_of(16) {
                return Err(PlanError::BoxBytes {
                    bytes: xs.len() as u64 * e,
                });
            }
            for (k, x) in xs.into_iter().enumerate() {
                push(k as u64, x);
            }
        }
        _ => return Err(PlanError::Mode),
    }
    let tx_bytes = elements.len() as u64 * e;
    Ok(Plan {
        elem_bytes: e,
        elements,
        fill: map.oob_fill,
        tx_bytes,
    })
}
