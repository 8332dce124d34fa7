//! The tensor map's fields and the CUDA driver's rules on them ([`TensorMap::validate`]).
//!
//! The fields are those of `cuTensorMapEncodeTiled` and `cuTensorMapEncodeIm2col` (CUDA driver
//! API §6.30 "Tensor Map Object Management",
//! <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TENSOR__MEMORY.html>); the enum
//! codes are those of the PTX manual's Table 32 (`tensormap.replace`, L15416-15622), which for
//! the element type differ from the driver's `CUtensorMapDataType` order (the driver puts
//! `FLOAT64` before `BFLOAT16` and `FLOAT32_FTZ` after it; PTX puts `.f32.ftz` at 8, `.f64`
//! at 9). A tensor map holds PTX codes, so a zeroed map reads as `.u8`, no interleave, no
//! swizzle, 16-byte atomicity, zero fill.

use std::fmt;

/// The element type (Table 32, L15416-15622; §5.5.1 L2075-2082).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    /// 0: `.u8`.
    U8,
    /// 1: `.u16`.
    U16,
    /// 2: `.u32` (the translation's Table 32 prints `.add` for this row; the driver's
    /// `UINT32` sits here).
    U32,
    /// 3: `.s32`.
    S32,
    /// 4: `.u64`.
    U64,
    /// 5: `.s64`.
    S64,
    /// 6: `.f16`.
    F16,
    /// 7: `.f32`.
    F32,
    /// 8: `.f32.ftz`.
    F32Ftz,
    /// 9: `.f64`.
    F64,
    /// 10: `.bf16`.
    Bf16,
    /// 11: `.tf32`.
    Tf32,
    /// 12: `.tf32.ftz`.
    Tf32Ftz,
    /// 13: `.b4x16`, sixteen 4-bit values packed in 8 bytes (§5.5.1.1.1, L2094).
    B4x16,
    /// 14: `.b4x16_p64`, sixteen 4-bit values plus 64 bits of padding in shared memory (L2096).
    B4x16P64,
    /// 15: `.b6x16_p32` (loads) / `.b6p2x16` (stores), one code for both (L2120).
    B6x16P32,
}

impl DataType {
    /// All types in code order.
    pub const ALL: [DataType; 16] = [
        DataType::U8,
        DataType::U16,
        DataType::U32,
        DataType::S32,
        DataType::U64,
        DataType::S64,
        DataType::F16,
        DataType::F32,
        DataType::F32Ftz,
        DataType::F64,
        DataType::Bf16,
        DataType::Tf32,
        DataType::Tf32Ftz,
        DataType::B4x16,
        DataType::B4x16P64,
        DataType::B6x16P32,
    ];

    /// The `new_val` of `tensormap.replace.elemtype` (Table 32).
    pub fn code(self) -> u32 {
        DataType::ALL.iter().position(|&t| t == self).unwrap() as u32
    }

    /// The type of a Table 32 code.
    pub fn from_code(code: u32) -> Option<DataType> {
        DataType::ALL.get(code as usize).copied()
    }

    /// The PTX name without the dot (`f16`, `b6x16_p32`); `f32.ftz` for code 8.
    pub fn name(self) -> &'static str {
        [
            "u8",
            "u16",
            "u32",
            "s32",
            "u64",
            "s64",
            "f16",
            "f32",
            "f32.ftz",
            "f64",
            "bf16",
            "tf32",
            "tf32.ftz",
            "b4x16",
            "b4x16_p64",
            "b6x16_p32",
        ][self.code() as usize]
    }

    /// Parses [`DataType::name`] (also `b6p2x16` for code 15).
    pub fn parse(s: &str) -> Option<DataType> {
        if s == "b6p2x16" {
            return Some(DataType::B6x16P32);
        }
        DataType::ALL.into_iter().find(|t| t.name() == s)
    }

    /// Bytes of one element in global memory; `None` for the packed sub-byte types, whose
    /// dimensions count individual 4- or 6-bit values (driver: "Dimension for the packed data
    /// types must reflect the number of individual U# values").
    pub fn bytes(self) -> Option<u64> {
        Some(match self {
            DataType::U8 => 1,
            DataType::U16 | DataType::F16 | DataType::Bf16 => 2,
            DataType::U32 | DataType::S32 | DataType::F32 | DataType::F32Ftz | DataType::Tf32 | DataType::Tf32Ftz => 4,
            DataType::U64 | DataType::S64 | DataType::F64 => 8,
            DataType::B4x16 | DataType::B4x16P64 | DataType::B6x16P32 => return None,
        })
    }

    /// Whether the type is a floating-point one (the only ones OOB-NaN fill may be used with,
    /// driver `oobFill`; L14807 excludes the packed types).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            DataType::F16
                | DataType::F32
                | DataType::F32Ftz
                | DataType::F64
                | DataType::Bf16
                | DataType::Tf32
                | DataType::Tf32Ftz
        )
    }

    /// The driver's `16U4_ALIGN16B` and `16U6_ALIGN16B` (PTX `.b4x16_p64`, `.b6x16_p32`): the
    /// padded packed types with the 32-byte alignment rules.
    pub fn is_padded_packed(self) -> bool {
        matches!(self, DataType::B4x16P64 | DataType::B6x16P32)
    }
}

/// The interleaved layout (§5.5.6, L2556-2572; Table 32 `.interleave_layout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interleave {
    /// 0: no interleave (NDHWC).
    None,
    /// 1: 16-byte interleave (NC/8DHWC8).
    B16,
    /// 2: 32-byte interleave (NC/16HWC16).
    B32,
}

/// The swizzle mode (§5.5.7, L2576-3046; Table 32 `.swizzle_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SwizzleMode {
    /// 0: no swizzle.
    None,
    /// 1: 32-byte swizzle.
    B32,
    /// 2: 64-byte swizzle.
    B64,
    /// 3: 128-byte swizzle.
    B128,
}

impl SwizzleMode {
    /// The swizzle span in bytes (0 for none): the driver's bound on the box's inner dimension.
    pub fn span(self) -> u64 {
        match self {
            SwizzleMode::None => 0,
            SwizzleMode::B32 => 32,
            SwizzleMode::B64 => 64,
            SwizzleMode::B128 => 128,
        }
    }
}

/// The swizzle atomicity (§5.5.7 L2902-2982, Table 14 L2984-3010; Table 32 `.swizzle_atomicity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Atomicity {
    /// 0: 16-byte units stay whole (every mode).
    B16,
    /// 1: 32-byte units (128-byte swizzle only).
    B32,
    /// 2: 32-byte units, the two 8-byte halves of each 16 bytes swapped in alternate rows.
    B32Flip8,
    /// 3: 64-byte units (128-byte swizzle only).
    B64,
}

/// The out-of-bounds fill (§5.5.3.3, L2178-2190; Table 32 `.fill_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OobFill {
    /// 0: zeros (driver `CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE`).
    Zero,
    /// 1: the special NaN "OOB-NaN" (driver `..._NAN_REQUEST_ZERO_FMA`).
    Nan,
}

/// The L2 promotion (driver `l2Promotion`; a performance hint without effect on values, not
/// one of `tensormap.replace`'s fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum L2Promotion {
    /// 0: none.
    None,
    /// 1: 64 bytes.
    B64,
    /// 2: 128 bytes.
    B128,
    /// 3: 256 bytes.
    B256,
}

macro_rules! coded {
    ($t:ty, [$($v:expr),*]) => {
        impl $t {
            /// The field's code (Table 32 for the `tensormap.replace` fields).
            pub fn code(self) -> u32 {
                [$($v),*].iter().position(|&x| x == self).unwrap() as u32
            }
            /// The value of a code.
            pub fn from_code(code: u32) -> Option<$t> {
                [$($v),*].get(code as usize).copied()
            }
        }
    };
}
coded!(Interleave, [Interleave::None, Interleave::B16, Interleave::B32]);
coded!(
    SwizzleMode,
    [SwizzleMode::None, SwizzleMode::B32, SwizzleMode::B64, SwizzleMode::B128]
);
coded!(
    Atomicity,
    [Atomicity::B16, Atomicity::B32, Atomicity::B32Flip8, Atomicity::B64]
);
coded!(OobFill, [OobFill::Zero, OobFill::Nan]);
coded!(
    L2Promotion,
    [
        L2Promotion::None,
        L2Promotion::B64,
        L2Promotion::B128,
        L2Promotion::B256
    ]
);

/// How the box is described: the two encode calls of the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `cuTensorMapEncodeTiled`: a box of `box_dim[i]` elements along each dimension (§5.5.3).
    Tiled {
        /// Elements traversed along each dimension (`boxDim`), 1..=256.
        box_dim: [u32; 5],
    },
    /// `cuTensorMapEncodeIm2col` (§5.5.4): the bounding box in the spatial (W, H, D) dimensions,
    /// channels per pixel and pixels per column.
    Im2col {
        /// `pixelBoxLowerCorner`, indexed by tensor dimension minus one: `[W, H, D]` (only the
        /// first `rank - 2` used). The driver lists its array as `{D, H, W}`; ours is in the
        /// order of the tensor dimensions and of the instruction's im2col offsets
        /// (`{i2cOffW, i2cOffH, i2cOffD}`, L14984).
        lower: [i32; 3],
        /// `pixelBoxUpperCorner`, `[W, H, D]` likewise.
        upper: [i32; 3],
        /// `channelsPerPixel`: elements along C (dimension 0) per pixel, 1..=256.
        channels_per_pixel: u32,
        /// `pixelsPerColumn`: pixels along N, D, H, W per request, 1..=1024.
        pixels_per_column: u32,
    },
    /// `cuTensorMapEncodeIm2colWide` (§5.5.5, L2395-2546; compute capability 10.0): im2col
    /// along W only, H and D fixed by the instruction's coordinates, for `.im2col::w` and
    /// `.im2col::w::128`.
    Im2colWide {
        /// `pixelBoxLowerCornerWidth`: the bounding box's lower corner along W.
        lower_w: i32,
        /// `pixelBoxUpperCornerWidth`: its upper corner along W (relative to `globalDim - 1`).
        upper_w: i32,
        /// `channelsPerPixel`, 1..=256.
        channels_per_pixel: u32,
        /// `pixelsPerColumn`, 1..=1024 (ignored, and not checked, in the `W128` mode).
        pixels_per_column: u32,
        /// `mode`: `CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128` (true) or `_W` (false).
        w128: bool,
    },
}

/// A tensor map (§5.5.8, L3048-3052): what the driver's encode calls take. Dimension 0 is the
/// innermost (contiguous) one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorMap {
    /// `tensorDataType`.
    pub data_type: DataType,
    /// `tensorRank`, 1..=5 (3..=5 for im2col).
    pub rank: u8,
    /// `globalAddress`: the tensor's first byte.
    pub global_address: u64,
    /// `globalDim`: elements along each dimension (the first `rank` used).
    pub global_dim: [u64; 5],
    /// `globalStrides`: bytes between consecutive indices of dimensions 1..rank
    /// (`global_strides[i]` is dimension `i + 1`'s; dimension 0 is the element size).
    pub global_strides: [u64; 4],
    /// `elementStrides`: the traversal stride along each dimension (§5.5.3.2), 1..=8.
    pub element_strides: [u32; 5],
    /// `interleave`.
    pub interleave: Interleave,
    /// `swizzle` (mode part).
    pub swizzle: SwizzleMode,
    /// `swizzle` (atomicity part: the driver's `SWIZZLE_128B_ATOM_*` values).
    pub atomicity: Atomicity,
    /// `l2Promotion`.
    pub l2_promotion: L2Promotion,
    /// `oobFill`.
    pub oob_fill: OobFill,
    /// Tiled or im2col, with that call's own fields.
    pub mode: Mode,
}

/// A driver rule a [`TensorMap`] breaks. The rule's text is the driver API documentation's
/// (§6.30, URL in the module documentation) unless a manual line is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapError {
    /// `tensorRank` must be 1..=5 (tiled) or 3..=5 (im2col).
    Rank {
        /// The rank given.
        rank: u8,
    },
    /// "If `interleave` is not NONE, then `tensorRank` must additionally be greater than or
    /// equal to 3" (also §5.5.6, L2570).
    InterleaveRank,
    /// `globalAddress` must be 16-byte aligned; 32-byte with 32-byte interleave or the padded
    /// packed types.
    GlobalAddressAlignment {
        /// The alignment required.
        align: u64,
    },
    /// `globalDim[i]` must be non-zero and ≤ 2^32.
    GlobalDim {
        /// The dimension.
        dim: usize,
    },
    /// Packed types: `globalDim[0]` a multiple of 128 (`.b4x16_p64`, `.b6x16_p32`) or of 2
    /// (`.b4x16`).
    PackedGlobalDim {
        /// The multiple required.
        multiple: u64,
    },
    /// `globalStrides[i]` must be a multiple of 16 (32 with 32-byte interleave or the padded
    /// packed types) and less than 2^40.
    GlobalStride {
        /// The index into `globalStrides` (dimension `stride + 1`).
        stride: usize,
        /// The multiple required.
        multiple: u64,
    },
    /// "Each following dimension specified includes previous dimension stride":
    /// `globalStrides[0] ≥ globalDim[0]·elementSize`, `globalStrides[i] ≥
    /// globalStrides[i-1]·globalDim[i]` (the padding of the driver's formula is ≥ 0).
    StrideNesting {
        /// The index into `globalStrides`.
        stride: usize,
    },
    /// `boxDim[i]` must be non-zero and ≤ 256.
    BoxDim {
        /// The dimension.
        dim: usize,
    },
    /// Without interleave, `boxDim[0]·elementSize` must be a multiple of 16 bytes.
    BoxInnerBytes,
    /// Padded packed types: `boxDim[0]` must be 128 (also L14809-14815: 96 or 64 bytes).
    PackedBoxDim,
    /// `elementStrides[i]` must be non-zero and ≤ 8.
    ElementStride {
        /// The dimension.
        dim: usize,
    },
    /// Without interleave and with a swizzle, the box's inner dimension (`boxDim[0]` or
    /// `channelsPerPixel` times the element size) must be ≤ the swizzle span (32, 64, 128).
    SwizzleSpan {
        /// The inner dimension in bytes.
        inner: u64,
        /// The span.
        span: u64,
    },
    /// "When `interleave` is CU_TENSOR_MAP_INTERLEAVE_32B, `swizzle` must be
    /// CU_TENSOR_MAP_SWIZZLE_32B."
    Interleave32Swizzle,
    /// "`tensorDataType` of CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B requires `interleave` to be
    /// CU_TENSOR_MAP_INTERLEAVE_NONE."
    PackedInterleave,
    /// The padded packed types take only swizzle none or 128 bytes (16-, 32- or, for
    /// `.b6x16_p32` stores, 64-byte atomicity); L14825-14831.
    PackedSwizzle,
    /// Table 14 (L2984-3010): atomicity other than 16 bytes needs the 128-byte swizzle.
    Atomicity,
    /// OOB-NaN fill only for floating-point types, never the packed ones (driver `oobFill`;
    /// L14807).
    NanFill,
    /// Im2col corners out of range: ±2^15 (3-D), [-128, 127] (4-D), [-16, 15] (5-D)
    /// (driver; the manual's table at L2268-2282).
    Corner {
        /// The spatial dimension (0 W, 1 H, 2 D).
        dim: usize,
    },
    /// "The bounding box specified by `pixelBoxLowerCorner` and `pixelBoxUpperCorner` must have
    /// non-zero area": along each spatial dimension `lower ≤ globalDim - 1 + upper`.
    EmptyBox {
        /// The spatial dimension (0 W, 1 H, 2 D).
        dim: usize,
    },
    /// `channelsPerPixel` must be ≤ 256 (and, for us, ≥ 1; 128 for the padded packed types).
    ChannelsPerPixel,
    /// `pixelsPerColumn` must be ≤ 1024 (and, for us, ≥ 1).
    PixelsPerColumn,
    /// `cuTensorMapEncodeIm2colWide`: `swizzle` must be 64B, 128B or 128B_ATOM_32B ("other
    /// swizzle modes are not supported").
    WideSwizzle,
    /// The im2col::w modes do not support an interleaved layout (§5.5.6, L2572).
    WideInterleave,
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use MapError::*;
        match *self {
            Rank { rank } => write!(f, "tensorRank {rank} is outside 1..=5 (3..=5 for im2col)"),
            InterleaveRank => write!(f, "an interleaved tensor map needs tensorRank >= 3"),
            GlobalAddressAlignment { align } => {
                write!(f, "globalAddress must be {align}-byte aligned")
            }
            GlobalDim { dim } => write!(f, "globalDim[{dim}] must be non-zero and <= 2^32"),
            PackedGlobalDim { multiple } => {
                write!(f, "globalDim[0] of a packed type must be a multiple of {multiple}")
            }
            GlobalStride { stride, multiple } => write!(
                f,
                "globalStrides[{stride}] must be a multiple of {multiple} and less than 2^40"
            ),
            StrideNesting { stride } => write!(
                f,
                "globalStrides[{stride}] must include the previous dimension's extent (the driver's globalStrides formula)"
            ),
            BoxDim { dim } => write!(f, "boxDim[{dim}] must be non-zero and <= 256"),
            BoxInnerBytes => write!(
                f,
                "without interleave, boxDim[0] * elementSize must be a multiple of 16 bytes"
            ),
            PackedBoxDim => write!(f, "boxDim[0] of a padded packed type must be 128"),
            ElementStride { dim } => {
                write!(f, "elementStrides[{dim}] must be non-zero and <= 8")
            }
            SwizzleSpan { inner, span } => write!(
                f,
                "the box's inner dimension ({inner} bytes) exceeds the swizzle span ({span} bytes)"
            ),
            Interleave32Swizzle => write!(f, "32-byte interleave requires the 32-byte swizzle"),
            PackedInterleave => write!(f, "the 6-bit packed type requires interleave NONE"),
            PackedSwizzle => write!(
                f,
                "a padded packed type takes only swizzle NONE or 128B (atomicity 16B, 32B, or 64B for .b6x16_p32)"
            ),
            Atomicity => write!(
                f,
                "a swizzle atomicity other than 16 bytes needs the 128-byte swizzle (Table 14, L2996-3016)"
            ),
            NanFill => write!(f, "OOB-NaN fill needs a (non-packed) floating-point type"),
            Corner { dim } => write!(
                f,
                "im2col bounding-box corner {dim} is outside the range for this rank (L2268-2282)"
            ),
            EmptyBox { dim } => write!(f, "the im2col bounding box is empty along dimension {dim}"),
            ChannelsPerPixel => write!(f, "channelsPerPixel must be 1..=256 (128 for padded packed types)"),
            PixelsPerColumn => write!(f, "pixelsPerColumn must be 1..=1024"),
            WideSwizzle => write!(
                f,
                "an im2col-wide tensor map takes only swizzle 64B, 128B or 128B_ATOM_32B (cuTensorMapEncodeIm2colWide)"
            ),
            WideInterleave => write!(
                f,
                "the im2col::w modes do not support an interleaved layout (L2572)"
            ),
        }
    }
}

impl std::error::Error for MapError {}

impl TensorMap {
    /// A map of `data_type` elements with the driver's plain choices for everything else:
    /// element strides 1, no interleave, no swizzle (atomicity 16 bytes), no L2 promotion,
    /// out-of-bounds elements filled with zeros. Other choices by struct update:
    /// `TensorMap { swizzle: SwizzleMode::B128, ..TensorMap::plain(...) }`.
    pub fn plain(
        data_type: DataType,
        rank: u8,
        global_address: u64,
        global_dim: [u64; 5],
        global_strides: [u64; 4],
        mode: Mode,
    ) -> TensorMap {
        TensorMap {
            data_type,
            rank,
            global_address,
            global_dim,
            global_strides,
            element_strides: [1; 5],
            interleave: Interleave::None,
            swizzle: SwizzleMode::None,
            atomicity: Atomicity::B16,
            l2_promotion: L2Promotion::None,
            oob_fill: OobFill::Zero,
            mode,
        }
    }

    /// The number of dimensions in use.
    pub fn rank(&self) -> usize {
        self.rank as usize
    }

    /// Checks every rule of the driver's encode calls (see [`MapError`]). Direction-dependent
    /// rules (`.b4x16_p64` loads only, the 64-byte atomicity of `.b6x16_p32` stores only) are
    /// the transfer plan's ([`super::plan()`]).
    pub fn validate(&self) -> Result<(), MapError> {
        let r = self.rank();
        let im2col = matches!(self.mode, Mode::Im2col { .. } | Mode::Im2colWide { .. });
        if !(1..=5).contains(&r) || (im2col && r < 3) {
            return Err(MapError::Rank { rank: self.rank });
        }
        if self.interleave != Interleave::None && r < 3 {
            return Err(MapError::InterleaveRank);
        }
        let t = self.data_type;
        let align32 = self.interleave == Interleave::B32 || t.is_padded_packed();
        let align = if align32 { 32 } else { 16 };
        if !self.global_address.is_multiple_of(align) {
            return Err(MapError::GlobalAddressAlignment { align });
        }
        for d in 0..r {
            if self.global_dim[d] == 0 || self.global_dim[d] > 1 << 32 {
                return Err(MapError::GlobalDim { dim: d });
            }
        }
        if t.is_padded_packed() && !self.global_dim[0].is_multiple_of(128) {
            return Err(MapError::PackedGlobalDim { multiple: 128 });
        }
        if t == DataType::B4x16 && !self.global_dim[0].is_multiple_of(2) {
            return Err(MapError::PackedGlobalDim { multiple: 2 });
        }
        for s in 0..r - 1 {
            let v = self.global_strides[s];
            let multiple = if align32 { 32 } else { 16 };
            if !v.is_multiple_of(multiple) || v >= 1 << 40 {
                return Err(MapError::GlobalStride { stride: s, multiple });
            }
            let below = if s == 0 {
                // Packed types: bytes of `globalDim[0]` values at their global density.
                match t.bytes() {
                    Some(e) => self.global_dim[0] * e,
                    None => self.global_dim[0] * if t == DataType::B6x16P32 { 6 } else { 4 } / 8,
                }
            } else {
                self.global_strides[s - 1].saturating_mul(self.global_dim[s])
            };
            if v < below {
                return Err(MapError::StrideNesting { stride: s });
            }
        }
        for d in 0..r {
            if !(1..=8).contains(&self.element_strides[d]) {
                return Err(MapError::ElementStride { dim: d });
            }
        }
        // The inner dimension in elements: boxDim[0] or channelsPerPixel.
        let inner_elems = match self.mode {
            Mode::Tiled { box_dim } => {
                for (d, &b) in box_dim.iter().enumerate().take(r) {
                    if !(1..=256).contains(&b) {
                        return Err(MapError::BoxDim { dim: d });
                    }
                }
                if t.is_padded_packed() && box_dim[0] != 128 {
                    return Err(MapError::PackedBoxDim);
                }
                box_dim[0] as u64
            }
            Mode::Im2col {
                lower,
                upper,
                channels_per_pixel,
                pixels_per_column,
            } => {
                let (lo, hi) = match r {
                    3 => (-32768, 32767),
                    4 => (-128, 127),
                    _ => (-16, 15),
                };
                for d in 0..r - 2 {
                    for c in [lower[d], upper[d]] {
                        if c < lo || c > hi {
                            return Err(MapError::Corner { dim: d });
                        }
                    }
                    if lower[d] as i64 > self.global_dim[d + 1] as i64 - 1 + upper[d] as i64 {
                        return Err(MapError::EmptyBox { dim: d });
                    }
                }
                if !(1..=256).contains(&channels_per_pixel) || (t.is_padded_packed() && channels_per_pixel != 128) {
                    return Err(MapError::ChannelsPerPixel);
                }
                if !(1..=1024).contains(&pixels_per_column) {
                    return Err(MapError::PixelsPerColumn);
                }
                channels_per_pixel as u64
            }
            Mode::Im2colWide {
                lower_w,
                upper_w,
                channels_per_pixel,
                pixels_per_column,
                w128,
            } => {
                // The driver's range for both corners, whatever the rank.
                for c in [lower_w, upper_w] {
                    if !(-32768..=32767).contains(&c) {
                        return Err(MapError::Corner { dim: 0 });
                    }
                }
                if lower_w as i64 > self.global_dim[1] as i64 - 1 + upper_w as i64 {
                    return Err(MapError::EmptyBox { dim: 0 });
                }
                if !(1..=256).contains(&channels_per_pixel) || (t.is_padded_packed() && channels_per_pixel != 128) {
                    return Err(MapError::ChannelsPerPixel);
                }
                if !w128 && !(1..=1024).contains(&pixels_per_column) {
                    return Err(MapError::PixelsPerColumn);
                }
                if self.interleave != Interleave::None {
                    return Err(MapError::WideInterleave);
                }
                let ok = matches!(
                    (self.swizzle, self.atomicity),
                    (SwizzleMode::B64, Atomicity::B16) | (SwizzleMode::B128, Atomicity::B16 | Atomicity::B32)
                );
                if !ok {
                    return Err(MapError::WideSwizzle);
                }
                channels_per_pixel as u64
            }
        };
        if let Some(e) = t.bytes() {
            if self.interleave == Interleave::None
                && (inner_elems * e) % 16 != 0
                && matches!(self.mode, Mode::Tiled { .. })
            {
                return Err(MapError::BoxInnerBytes);
            }
            let span = self.swizzle.span();
            if self.interleave == Interleave::None && span != 0 && inner_elems * e > span {
                return Err(MapError::SwizzleSpan {
                    inner: inner_elems * e,
                    span,
                });
            }
        }
        if self.interleave == Interleave::B32 && self.swizzle != SwizzleMode::B32 {
            return Err(MapError::Interleave32Swizzle);
        }
        if t == DataType::B6x16P32 && self.interleave != Interleave::None {
            return Err(MapError::PackedInterleave);
        }
        if self.atomicity != Atomicity::B16 && self.swizzle != SwizzleMode::B128 {
            return Err(MapError::Atomicity);
        }
        if t.is_padded_packed() {
            let ok_mode = matches!(self.swizzle, SwizzleMode::None | SwizzleMode::B128);
            let ok_atom = match self.atomicity {
                Atomicity::B16 | Atomicity::B32 => true,
                Atomicity::B64 => t == DataType::B6x16P32,
                Atomicity::B32Flip8 => false,
            };
            if !ok_mode || !ok_atom {
                return Err(MapError::PackedSwizzle);
            }
        }
        if self.oob_fill == OobFill::Nan && !t.is_float() {
            return Err(MapError::NanFill);
        }
        Ok(())
    }
}
