//! The launch file's tensor-map parameter (`{"tensor_map": {...}}`): a `CUtensorMap` described
//! by the arguments of the CUDA driver call that would build it (`cuTensorMapEncodeTiled`,
//! `cuTensorMapEncodeIm2col` or `cuTensorMapEncodeIm2colWide`,
//! <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TENSOR__MEMORY.html>). The oracle
//! checks the driver's rules ([`spec::tma::TensorMap::validate`]; a broken rule is a `launch`
//! error, as the driver's `CUDA_ERROR_INVALID_VALUE`) and places the 128 bytes of
//! [`spec::tma::encode`] in the parameter, which must be 128 bytes at a 64-byte-aligned offset
//! (`.param .align 64 .b8 tmap[128]`, the driver's "`tensorMap` address must be aligned to 64
//! bytes").
//!
//! ```text
//! {"tensor_map": {
//!   "encode": "tiled",                 "tiled" | "im2col" | "im2col_wide"
//!   "data_type": "f32",                PTX name of Table 32: u8 u16 u32 s32 u64 s64 f16 f32
//!                                      f32.ftz f64 bf16 tf32 tf32.ftz b4x16 b4x16_p64 b6x16_p32
//!   "buffer": "A", "offset": 0,        globalAddress = the buffer's address + offset (default 0)
//!   "global_dim": [64, 32],            globalDim, dimension 0 (contiguous) first; rank = length
//!   "global_strides": [256],           globalStrides in bytes, rank - 1 entries (dimension 1 on)
//!   "box_dim": [32, 8],                tiled only: boxDim, rank entries
//!   "element_strides": [1, 1],         optional, default all 1
//!   "interleave": "none",              "none" | "16B" | "32B" (default "none")
//!   "swizzle": "128B",                 "none" | "32B" | "64B" | "128B" | "128B_atom_32B" |
//!                                      "128B_atom_32B_flip_8B" | "128B_atom_64B" (default "none")
//!   "l2_promotion": "none",            "none" | "64B" | "128B" | "256B" (default "none")
//!   "oob_fill": "none",                "none" (zeros) | "nan_request_zero_fma" (default "none")
//!   "pixel_box_lower_corner": [-1, -1],  im2col only: rank - 2 entries, W first (then H, D)
//!   "pixel_box_upper_corner": [-1, -1],  im2col only, W first
//!   "channels_per_pixel": 8,           im2col only
//!   "pixels_per_column": 64            im2col and im2col_wide (optional with "w128")
//!   "pixel_box_lower_corner_width": -1,  im2col_wide only: pixelBoxLowerCornerWidth
//!   "pixel_box_upper_corner_width": 0,   im2col_wide only: pixelBoxUpperCornerWidth
//!   "mode": "w"                        im2col_wide only: "w" | "w128" (the driver's
//!                                      CU_TENSOR_MAP_IM2COL_WIDE_MODE_W / _W128)
//! }}
//! ```
//!
//! `channels_per_pixel` is taken by both im2col encodings.
//!
//! The corners are listed in the order of the tensor's dimensions (W = dimension 1 first), the
//! order of the instruction's im2col offsets; the driver's documentation names its arrays
//! `{D, H, W}` without saying which index is which.

use serde::{Deserialize, Serialize};
use spec::tma::{Atomicity, DataType, Interleave, L2Promotion, Mode, OobFill, SwizzleMode, TensorMap};

/// The `tensor_map` object of a launch parameter (fields in the module documentation).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TensorMapSpec {
    /// `"tiled"` or `"im2col"`.
    pub encode: String,
    /// `tensorDataType`, by its PTX name.
    pub data_type: String,
    /// The buffer holding the tensor.
    pub buffer: String,
    /// Bytes from the buffer's start to the tensor's first element.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub offset: u64,
    /// `globalDim`.
    pub global_dim: Vec<u64>,
    /// `globalStrides`.
    pub global_strides: Vec<u64>,
    /// `boxDim` (tiled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub box_dim: Option<Vec<u32>>,
    /// `elementStrides` (default all 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_strides: Option<Vec<u32>>,
    /// `interleave`.
    #[serde(default = "none", skip_serializing_if = "is_none")]
    pub interleave: String,
    /// `swizzle`.
    #[serde(default = "none", skip_serializing_if = "is_none")]
    pub swizzle: String,
    /// `l2Promotion`.
    #[serde(default = "none", skip_serializing_if = "is_none")]
    pub l2_promotion: String,
    /// `oobFill`.
    #[serde(default = "none", skip_serializing_if = "is_none")]
    pub oob_fill: String,
    /// `pixelBoxLowerCorner` (im2col), W first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixel_box_lower_corner: Option<Vec<i32>>,
    /// `pixelBoxUpperCorner` (im2col), W first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixel_box_upper_corner: Option<Vec<i32>>,
    /// `channelsPerPixel` (im2col).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels_per_pixel: Option<u32>,
    /// `pixelsPerColumn` (im2col, im2col_wide).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixels_per_column: Option<u32>,
    /// `pixelBoxLowerCornerWidth` (im2col_wide).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixel_box_lower_corner_width: Option<i32>,
    /// `pixelBoxUpperCornerWidth` (im2col_wide).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixel_box_upper_corner_width: Option<i32>,
    /// `mode` (im2col_wide): `"w"` or `"w128"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

fn none() -> String {
    "none".into()
}
fn is_none(s: &String) -> bool {
    s == "none"
}
fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn pick<T: Copy>(what: &str, s: &str, table: &[(&str, T)]) -> Result<T, String> {
    table.iter().find(|(n, _)| *n == s).map(|&(_, v)| v).ok_or_else(|| {
        let names: Vec<_> = table.iter().map(|(n, _)| format!("\"{n}\"")).collect();
        format!("`{what}` is \"{s}\"; it must be one of {}", names.join(", "))
    })
}

fn padded<T: Copy>(what: &str, v: &[T], n: usize, fill: T) -> Result<[T; 5], String> {
    if v.len() != n {
        return Err(format!("`{what}` has {} entries; the tensor map needs {n}", v.len()));
    }
    let mut a = [fill; 5];
    a[..n].copy_from_slice(v);
    Ok(a)
}

impl TensorMapSpec {
    /// The tensor map, its global address being `base` (the buffer's address) plus `offset`.
    /// Errors name the field or the driver rule.
    pub fn build(&self, base: u64) -> Result<TensorMap, String> {
        let map = self.fields(base)?;
        map.validate()
            .map_err(|e| format!("the driver would refuse this tensor map: {e}"))?;
        Ok(map)
    }

    /// The fields of the map as the launch file gives them, before the driver's rules: what a
    /// backend passes to the real encode call, which judges them itself. Errors name the field.
    pub fn fields(&self, base: u64) -> Result<TensorMap, String> {
        let data_type = DataType::parse(&self.data_type).ok_or_else(|| {
            format!(
                "`data_type` \"{}\" is not a tensor-map element type (Table 32)",
                self.data_type
            )
        })?;
        let r = self.global_dim.len();
        if !(1..=5).contains(&r) {
            return Err(format!("`global_dim` has {r} entries; the rank must be 1..=5"));
        }
        let global_dim = padded("global_dim", &self.global_dim, r, 1)?;
        let mut global_strides = [0u64; 4];
        if self.global_strides.len() != r - 1 {
            return Err(format!(
                "`global_strides` has {} entries; a rank-{r} tensor map needs {}",
                self.global_strides.len(),
                r - 1
            ));
        }
        global_strides[..r - 1].copy_from_slice(&self.global_strides);
        let element_strides = match &self.element_strides {
            Some(v) => padded("element_strides", v, r, 1)?,
            None => [1; 5],
        };
        let interleave = pick(
            "interleave",
            &self.interleave,
            &[
                ("none", Interleave::None),
                ("16B", Interleave::B16),
                ("32B", Interleave::B32),
            ],
        )?;
        let (swizzle, atomicity) = pick(
            "swizzle",
            &self.swizzle,
            &[
                ("none", (SwizzleMode::None, Atomicity::B16)),
                ("32B", (SwizzleMode::B32, Atomicity::B16)),
                ("64B", (SwizzleMode::B64, Atomicity::B16)),
                ("128B", (SwizzleMode::B128, Atomicity::B16)),
                ("128B_atom_32B", (SwizzleMode::B128, Atomicity::B32)),
                ("128B_atom_32B_flip_8B", (SwizzleMode::B128, Atomicity::B32Flip8)),
                ("128B_atom_64B", (SwizzleMode::B128, Atomicity::B64)),
            ],
        )?;
        let l2_promotion = pick(
            "l2_promotion",
            &self.l2_promotion,
            &[
                ("none", L2Promotion::None),
                ("64B", L2Promotion::B64),
                ("128B", L2Promotion::B128),
                ("256B", L2Promotion::B256),
            ],
        )?;
        let oob_fill = pick(
            "oob_fill",
            &self.oob_fill,
            &[("none", OobFill::Zero), ("nan_request_zero_fma", OobFill::Nan)],
        )?;
        let tiled_only = self.box_dim.is_some();
        let wide_only = self.pixel_box_lower_corner_width.is_some()
            || self.pixel_box_upper_corner_width.is_some()
            || self.mode.is_some();
        let corners = self.pixel_box_lower_corner.is_some() || self.pixel_box_upper_corner.is_some();
        let im2col_only = corners || wide_only || self.channels_per_pixel.is_some() || self.pixels_per_column.is_some();
        let mode = match self.encode.as_str() {
            "tiled" => {
                if im2col_only {
                    return Err("a tiled tensor map takes no im2col fields".into());
                }
                let b = self.box_dim.as_ref().ok_or("a tiled tensor map needs `box_dim`")?;
                Mode::Tiled {
                    box_dim: padded("box_dim", b, r, 1)?,
                }
            }
            "im2col_wide" => {
                if tiled_only || corners {
                    return Err(
                        "an im2col_wide tensor map takes no `box_dim` and no `pixel_box_*_corner` (it takes the `_width` ones)".into(),
                    );
                }
                let w128 = match self.mode.as_deref() {
                    Some("w") => false,
                    Some("w128") => true,
                    Some(m) => return Err(format!("`mode` is \"{m}\"; it must be \"w\" or \"w128\"")),
                    None => return Err("an im2col_wide tensor map needs `mode`".into()),
                };
                let need = |v: Option<i32>, what: &str| v.ok_or(format!("an im2col_wide tensor map needs `{what}`"));
                Mode::Im2colWide {
                    lower_w: need(self.pixel_box_lower_corner_width, "pixel_box_lower_corner_width")?,
                    upper_w: need(self.pixel_box_upper_corner_width, "pixel_box_upper_corner_width")?,
                    channels_per_pixel: self
                        .channels_per_pixel
                        .ok_or("an im2col_wide tensor map needs `channels_per_pixel`")?,
                    // Ignored in the W128 mode (the driver), so optional there.
                    pixels_per_column: match (self.pixels_per_column, w128) {
                        (Some(p), _) => p,
                        (None, true) => 0,
                        (None, false) => {
                            return Err("an im2col_wide tensor map in mode \"w\" needs `pixels_per_column`".into())
                        }
                    },
                    w128,
                }
            }
            "im2col" => {
                if tiled_only || wide_only {
                    return Err("an im2col tensor map takes no `box_dim` and no im2col_wide fields".into());
                }
                let n = r.saturating_sub(2);
                let corner = |what: &str, v: &Option<Vec<i32>>| -> Result<[i32; 3], String> {
                    let v = v.as_ref().ok_or(format!("an im2col tensor map needs `{what}`"))?;
                    if v.len() != n {
                        return Err(format!("`{what}` has {} entries; a rank-{r} tensor needs {n}", v.len()));
                    }
                    let mut a = [0; 3];
                    a[..n].copy_from_slice(v);
                    Ok(a)
                };
                Mode::Im2col {
                    lower: corner("pixel_box_lower_corner", &self.pixel_box_lower_corner)?,
                    upper: corner("pixel_box_upper_corner", &self.pixel_box_upper_corner)?,
                    channels_per_pixel: self
                        .channels_per_pixel
                        .ok_or("an im2col tensor map needs `channels_per_pixel`")?,
                    pixels_per_column: self
                        .pixels_per_column
                        .ok_or("an im2col tensor map needs `pixels_per_column`")?,
                }
            }
            e => {
                return Err(format!(
                    "`encode` is \"{e}\"; it must be \"tiled\", \"im2col\" or \"im2col_wide\""
                ))
            }
        };
        Ok(TensorMap {
            data_type,
            rank: r as u8,
            global_address: base.wrapping_add(self.offset),
            global_dim,
            global_strides,
            element_strides,
            interleave,
            swizzle,
            atomicity,
            l2_promotion,
            oob_fill,
            mode,
        })
    }

    /// The 128 bytes the parameter receives.
    pub fn bytes(&self, base: u64) -> Result<[u8; spec::tma::encoding::SIZE], String> {
        let map = self.build(base)?;
        spec::tma::encode(&map).map_err(|e| e.to_string())
    }
}
