//! `.im2col::w` and `.im2col::w::128` (§5.5.5, L2395-2546; sm_100): im2col along W only, with
//! the tensor map of the driver's `cuTensorMapEncodeIm2colWide` ([`Mode::Im2colWide`]).
//!
//! As read here (the figures 16-24 are not in the text):
//! - the bounding box is one position in H and D, those of the instruction's coordinates
//!   (L2405-2407), and along W runs from `lower_w` to `globalDim[1] - 1 + upper_w`, as im2col's
//!   (L2409; [`super::plan()`]); `wOffset` shifts the box and the start (L2482-2486);
//! - the main pixels start at the instruction's W (L2411) and step by the traversal stride
//!   `elementStrides[1]` along W (L2429); past the box's end the next pixel is the box's first
//!   W in the next image (N + 1): with H and D fixed (L2397) N is the only dimension left to
//!   wrap into, as im2col wraps into H. There are `pixelsPerColumn` of them (`.im2col::w`) or
//!   128 (`.im2col::w::128`, L2401, L2413);
//! - the first pixel may lie left of the box (L2421); right of it is refused;
//! - the halo (L2431-2435): `.im2col::w` loads `wHalo` pixels after the main ones,
//!   `.im2col::w::128` loads `wHalo` after every 32 main pixels; each halo pixel continues
//!   the traversal of the main pixel before it (W + stride, W + 2·stride, ...) in the same image
//!   without wrapping: the filter's overhang "at the end of the image" (L2433), which may lie
//!   past the box or the tensor (then filled). The manual's wOffset example 1 (L2490-2511:
//!   stride 2, a 3-tap filter, buffer 1 with wHalo 1 serving taps 0 and 2) needs exactly this:
//!   the halo pixel is the next strided position. In shared memory the halo follows its main
//!   pixels directly (L2457), each pixel `channelsPerPixel` elements from the instruction's C
//!   coordinate, as in im2col;
//! - `wHalo` is in [0, 512) for `.im2col::w`, [0, 32) for `.im2col::w::128` (L15004); `wOffset`
//!   in [0, 32) (L15006); other values are refused. The instruction's mode must be the map's
//!   (`mode` of the driver call: W or W128).

use super::map::{Mode, TensorMap};
use std::fmt;

/// A rule of the im2col::w modes a tensor copy breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WideError {
    /// `tensorCoords` must have `.dim` = rank entries and im2colInfo two (L14990-14994).
    Operands {
        /// Coordinates given.
        coords: usize,
        /// im2colInfo entries given.
        info: usize,
        /// The map's rank.
        rank: usize,
    },
    /// The instruction's `.im2col::w` / `.im2col::w::128` is not the map's mode.
    Mode {
        /// Whether the instruction is `.im2col::w::128`.
        w128: bool,
    },
    /// `wHalo` outside [0, 512) (`.im2col::w`) or [0, 32) (`.im2col::w::128`), L15004.
    Halo {
        /// The value.
        halo: u16,
        /// The bound.
        bound: u16,
    },
    /// `wOffset` outside [0, 32) (L15006).
    Offset {
        /// The value.
        offset: u16,
    },
    /// The first pixel lies right of the bounding box (L2421: only the left side).
    Start {
        /// The start W (after wOffset).
        w: i64,
        /// The box's last W (after wOffset).
        hi: i64,
    },
}

impl fmt::Display for WideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            WideError::Operands { coords, info, rank } => write!(
                f,
                "{coords} tensor coordinates and {info} im2colInfo values for a rank-{rank} tensor map: `.im2col::w` takes .dim coordinates (L14908) and {{wHalo, wOffset}} (L14990-14994)"
            ),
            WideError::Mode { w128 } => write!(
                f,
                "`.im2col::w{}` on a tensor map encoded for the {} mode (cuTensorMapEncodeIm2colWide's `mode`)",
                if w128 { "::128" } else { "" },
                if w128 { "W" } else { "W128" }
            ),
            WideError::Halo { halo, bound } => {
                write!(f, "wHalo is {halo}; its valid range in this mode is [0, {bound}) (L15004)")
            }
            WideError::Offset { offset } => {
                write!(f, "wOffset is {offset}; its valid range is [0, 32) (L15006)")
            }
            WideError::Start { w, hi } => write!(
                f,
                "the first element's W ({w}) lies right of the bounding box, which ends at W = {hi}: it may lie outside only on the left side (L2421)"
            ),
        }
    }
}

impl std::error::Error for WideError {}

/// The tensor coordinates of the copy's elements in shared-memory order (before the swizzle):
/// pixel by pixel (main pixels, halos interleaved as the module documentation says),
/// `channelsPerPixel` channels each.
pub fn coordinates(map: &TensorMap, coords: &[i32], info: &[u16], w128: bool) -> Result<Vec<[i64; 5]>, WideError> {
    let Mode::Im2colWide {
        lower_w,
        upper_w,
        channels_per_pixel,
        pixels_per_column,
        w128: map_w128,
    } = map.mode
    else {
        return Err(WideError::Mode { w128 });
    };
    let r = map.rank();
    let (&[halo, offset], true) = (info, coords.len() == r) else {
        return Err(WideError::Operands {
            coords: coords.len(),
            info: info.len(),
            rank: r,
        });
    };
    if w128 != map_w128 {
        return Err(WideError::Mode { w128 });
    }
    let bound = if w128 { 32 } else { 512 };
    if halo >= bound {
        return Err(WideError::Halo { halo, bound });
    }
    if offset >= 32 {
        return Err(WideError::Offset { offset });
    }
    let off = offset as i64;
    let lo = lower_w as i64 + off;
    let hi = map.global_dim[1] as i64 - 1 + upper_w as i64 + off;
    let start = coords[1] as i64 + off;
    if start > hi {
        return Err(WideError::Start { w: start, hi });
    }
    let stride = map.element_strides[1] as i64;
    let (main, group) = if w128 {
        (128, 32)
    } else {
        (pixels_per_column as usize, usize::MAX)
    };
    // Pixels as (W, N); H and D stay the instruction's.
    let mut pixels: Vec<(i64, i64)> = Vec::new();
    let (mut w, mut n) = (start, coords[r - 1] as i64);
    for k in 0..main {
        pixels.push((w, n));
        let last = k + 1 == main;
        if last || (k + 1) % group == 0 {
            pixels.extend((1..=halo as i64).map(|h| (w + h * stride, n)));
        }
        w += stride;
        if w > hi {
            w = lo;
            n += 1;
        }
    }
    let mut out = Vec::with_capacity(pixels.len() * channels_per_pixel as usize);
    for (w, n) in pixels {
        for j in 0..channels_per_pixel as i64 {
            let mut x = [0i64; 5];
            x[0] = coords[0] as i64 + j;
            x[1] = w;
            for (d, &c) in coords.iter().enumerate().take(r - 1).skip(2) {
                x[d] = c as i64;
            }
            x[r - 1] = n;
            out.push(x);
        }
    }
    Ok(out)
}
