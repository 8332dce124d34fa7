//! Tensor-map parameters on the driver: the launch file's `tensor_map` ([`TensorMapSpec`]) as
//! the arguments of `cuTensorMapEncodeTiled` / `cuTensorMapEncodeIm2col` /
//! `cuTensorMapEncodeIm2colWide` (CUDA 12.8, compute capability 10.0) (CUDA driver API
//! §6.30, <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TENSOR__MEMORY.html>),
//! whose 128-byte `CUtensorMap` the kernel's `.param .align 64 .b8 name[128]` receives.
//!
//! The enum values are those of `cuda.h` (CUDA 12.8), through cudarc's bindings of it
//! (`cudarc::driver::sys`, feature `cuda-12080`). They are not the PTX manual's Table 32 codes
//! that [`spec::tma`] keeps: the driver orders the element types `..., FLOAT32 = 7, FLOAT64 = 8,
//! BFLOAT16 = 9, FLOAT32_FTZ = 10, ...` where PTX has `.f32.ftz` = 8, `.f64` = 9, `.bf16` = 10,
//! and it folds the swizzle mode and its atomicity into one `CUtensorMapSwizzle`.
//!
//! The driver judges the map itself: the fields are passed as given (no [`TensorMap::validate`]
//! first), so a map the driver refuses is its `CUDA_ERROR_INVALID_VALUE`, and one the oracle's
//! model of its rules refuses but the driver accepts shows up as a difference.

use cudarc::driver::sys::{
    CUtensorMapDataType as Dt, CUtensorMapFloatOOBfill as Oob, CUtensorMapIm2ColWideMode as Wide,
    CUtensorMapInterleave as Il, CUtensorMapL2promotion as L2, CUtensorMapSwizzle as Sw,
};
use oracle::launch::tensor_map::TensorMapSpec;
use spec::tma::{Atomicity, DataType, Interleave, L2Promotion, Mode, OobFill, SwizzleMode, TensorMap};

/// `CUtensorMapDataType` of a Table 32 element type.
pub fn data_type(t: DataType) -> u32 {
    (match t {
        DataType::U8 => Dt::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        DataType::U16 => Dt::CU_TENSOR_MAP_DATA_TYPE_UINT16,
        DataType::U32 => Dt::CU_TENSOR_MAP_DATA_TYPE_UINT32,
        DataType::S32 => Dt::CU_TENSOR_MAP_DATA_TYPE_INT32,
        DataType::U64 => Dt::CU_TENSOR_MAP_DATA_TYPE_UINT64,
        DataType::S64 => Dt::CU_TENSOR_MAP_DATA_TYPE_INT64,
        DataType::F16 => Dt::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        DataType::F32 => Dt::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        DataType::F32Ftz => Dt::CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ,
        DataType::F64 => Dt::CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        DataType::Bf16 => Dt::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        DataType::Tf32 => Dt::CU_TENSOR_MAP_DATA_TYPE_TFLOAT32,
        DataType::Tf32Ftz => Dt::CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ,
        // Sixteen 4-bit values in 8 bytes (§5.5.1.1.1, L2094).
        DataType::B4x16 => Dt::CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B,
        // ... padded to 16 bytes in shared memory (L2096).
        DataType::B4x16P64 => Dt::CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B,
        // Sixteen 6-bit values padded to 16 bytes (L2120).
        DataType::B6x16P32 => Dt::CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B,
    }) as u32
}

/// `CUtensorMapInterleave`.
pub fn interleave(i: Interleave) -> u32 {
    (match i {
        Interleave::None => Il::CU_TENSOR_MAP_INTERLEAVE_NONE,
        Interleave::B16 => Il::CU_TENSOR_MAP_INTERLEAVE_16B,
        Interleave::B32 => Il::CU_TENSOR_MAP_INTERLEAVE_32B,
    }) as u32
}

/// `CUtensorMapSwizzle` of a swizzle mode and its atomicity; `None` for a larger atomicity
/// with a swizzle other than 128 bytes, which the driver has no value for (Table 32 allows
/// 32- and 64-byte atomicity only with the 128-byte swizzle, L15416-15622).
pub fn swizzle(mode: SwizzleMode, atomicity: Atomicity) -> Option<u32> {
    Some(
        (match (mode, atomicity) {
            (SwizzleMode::None, Atomicity::B16) => Sw::CU_TENSOR_MAP_SWIZZLE_NONE,
            (SwizzleMode::B32, Atomicity::B16) => Sw::CU_TENSOR_MAP_SWIZZLE_32B,
            (SwizzleMode::B64, Atomicity::B16) => Sw::CU_TENSOR_MAP_SWIZZLE_64B,
            (SwizzleMode::B128, Atomicity::B16) => Sw::CU_TENSOR_MAP_SWIZZLE_128B,
            (SwizzleMode::B128, Atomicity::B32) => Sw::CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B,
            (SwizzleMode::B128, Atomicity::B32Flip8) => Sw::CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B,
            (SwizzleMode::B128, Atomicity::B64) => Sw::CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B,
            _ => return None,
        }) as u32,
    )
}

/// `CUtensorMapL2promotion`.
pub fn l2_promotion(p: L2Promotion) -> u32 {
    (match p {
        L2Promotion::None => L2::CU_TENSOR_MAP_L2_PROMOTION_NONE,
        L2Promotion::B64 => L2::CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
        L2Promotion::B128 => L2::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        L2Promotion::B256 => L2::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
    }) as u32
}

/// `CUtensorMapFloatOOBfill`.
pub fn oob_fill(f: OobFill) -> u32 {
    (match f {
        OobFill::Zero => Oob::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        OobFill::Nan => Oob::CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA,
    }) as u32
}

/// `CUtensorMapIm2ColWideMode`: `W128` for `.im2col::w::128` maps, `W` for `.im2col::w`.
pub fn im2col_wide_mode(w128: bool) -> u32 {
    (if w128 {
        Wide::CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128
    } else {
        Wide::CU_TENSOR_MAP_IM2COL_WIDE_MODE_W
    }) as u32
}

/// The box of each encode call: `boxDim` (tiled), or the im2col bounding box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bounds {
    /// `cuTensorMapEncodeTiled`'s `boxDim`.
    Tiled([u32; 5]),
    /// `cuTensorMapEncodeIm2col`'s `pixelBoxLowerCorner`, `pixelBoxUpperCorner` (rank − 2
    /// entries, W first: CUTLASS builds them `[W, H, D]`, `compute_lower_corner_whd` in
    /// `cutlass/conv/collective/detail.hpp`, and passes them as they are in
    /// `make_im2col_tma_copy_desc`, `cute/atom/copy_traits_sm90_im2col.hpp`), `channelsPerPixel`
    /// and `pixelsPerColumn`.
    Im2col {
        /// Lower corner.
        lower: [i32; 3],
        /// Upper corner.
        upper: [i32; 3],
        /// Channels per pixel.
        channels_per_pixel: u32,
        /// Pixels per column.
        pixels_per_column: u32,
    },
    /// `cuTensorMapEncodeIm2colWide`'s `pixelBoxLowerCornerWidth`, `pixelBoxUpperCornerWidth`
    /// (scalars: W only), `channelsPerPixel`, `pixelsPerColumn` and `mode`
    /// ([`im2col_wide_mode`]); its signature (driver API §6.30, cuda.h 12.8, as cudarc's
    /// `cuTensorMapEncodeIm2colWide` binds it): `(tensorMap, tensorDataType, tensorRank,
    /// globalAddress, globalDim, globalStrides, int pixelBoxLowerCornerWidth, int
    /// pixelBoxUpperCornerWidth, channelsPerPixel, pixelsPerColumn, elementStrides, interleave,
    /// mode, swizzle, l2Promotion, oobFill)`.
    Im2colWide {
        /// Lower corner along W.
        lower_w: i32,
        /// Upper corner along W.
        upper_w: i32,
        /// Channels per pixel.
        channels_per_pixel: u32,
        /// Pixels per column.
        pixels_per_column: u32,
        /// `CUtensorMapIm2ColWideMode`.
        mode: u32,
    },
}

/// The arguments of one encode call but the output pointer. The arrays hold 5 (strides: 4)
/// entries; the driver reads `rank` (`rank - 1`) of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encode {
    /// `tensorDataType`.
    pub data_type: u32,
    /// `tensorRank`.
    pub rank: u32,
    /// `globalAddress`: the buffer's device address plus the map's `offset`.
    pub global_address: u64,
    /// `globalDim`.
    pub global_dim: [u64; 5],
    /// `globalStrides`, in bytes, from dimension 1.
    pub global_strides: [u64; 4],
    /// The box.
    pub bounds: Bounds,
    /// `elementStrides`.
    pub element_strides: [u32; 5],
    /// `interleave`.
    pub interleave: u32,
    /// `swizzle`.
    pub swizzle: u32,
    /// `l2Promotion`.
    pub l2_promotion: u32,
    /// `oobFill`.
    pub oob_fill: u32,
}

impl Encode {
    /// The encode call's name, for messages.
    pub fn function(&self) -> &'static str {
        match self.bounds {
            Bounds::Tiled(_) => "cuTensorMapEncodeTiled",
            Bounds::Im2col { .. } => "cuTensorMapEncodeIm2col",
            Bounds::Im2colWide { .. } => "cuTensorMapEncodeIm2colWide",
        }
    }
}

/// The encode call for `spec`, the named buffer being at device address `base`. Errors name the
/// launch-file field at fault (as the oracle's, [`TensorMapSpec::fields`]).
pub fn encode_args(spec: &TensorMapSpec, base: u64) -> Result<Encode, String> {
    let map: TensorMap = spec.fields(base)?;
    let swizzle = swizzle(map.swizzle, map.atomicity).ok_or_else(|| {
        format!(
            "swizzle \"{}\": the driver has no CUtensorMapSwizzle for this atomicity with a swizzle other than 128 bytes",
            spec.swizzle
        )
    })?;
    Ok(Encode {
        data_type: data_type(map.data_type),
        rank: u32::from(map.rank),
        global_address: map.global_address,
        global_dim: map.global_dim,
        global_strides: map.global_strides,
        bounds: match map.mode {
            Mode::Tiled { box_dim } => Bounds::Tiled(box_dim),
            Mode::Im2col {
                lower,
                upper,
                channels_per_pixel,
                pixels_per_column,
            } => Bounds::Im2col {
                lower,
                upper,
                channels_per_pixel,
                pixels_per_column,
            },
            Mode::Im2colWide {
                lower_w,
                upper_w,
                channels_per_pixel,
                pixels_per_column,
                w128,
            } => Bounds::Im2colWide {
                lower_w,
                upper_w,
                channels_per_pixel,
                pixels_per_column,
                mode: im2col_wide_mode(w128),
            },
        },
        element_strides: map.element_strides,
        interleave: interleave(map.interleave),
        swizzle,
        l2_promotion: l2_promotion(map.l2_promotion),
        oob_fill: oob_fill(map.oob_fill),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `CUtensorMapDataType` of cuda.h (CUDA 12.8), written out: `UINT8 = 0, UINT16, UINT32,
    /// INT32, UINT64, INT64, FLOAT16, FLOAT32, FLOAT64 = 8, BFLOAT16 = 9, FLOAT32_FTZ = 10,
    /// TFLOAT32, TFLOAT32_FTZ = 12, 16U4_ALIGN8B = 13, 16U4_ALIGN16B = 14, 16U6_ALIGN16B = 15`.
    #[test]
    fn element_types_take_the_drivers_numbers_not_table_32s() {
        let header = [
            ("u8", 0),
            ("u16", 1),
            ("u32", 2),
            ("s32", 3),
            ("u64", 4),
            ("s64", 5),
            ("f16", 6),
            ("f32", 7),
            ("f64", 8),
            ("bf16", 9),
            ("f32.ftz", 10),
            ("tf32", 11),
            ("tf32.ftz", 12),
            ("b4x16", 13),
            ("b4x16_p64", 14),
            ("b6x16_p32", 15),
        ];
        for (name, want) in header {
            let t = DataType::parse(name).unwrap();
            assert_eq!(data_type(t), want, "{name}");
        }
        // Every type is listed once, and three of them sit elsewhere in PTX's Table 32.
        assert_eq!(header.len(), DataType::ALL.len());
        let moved: Vec<_> = DataType::ALL
            .iter()
            .filter(|t| data_type(**t) != t.code())
            .map(|t| t.name())
            .collect();
        assert_eq!(moved, ["f32.ftz", "f64", "bf16"]);
    }

    /// `CUtensorMapSwizzle`: `NONE = 0, 32B, 64B, 128B = 3, 128B_ATOM_32B = 4,
    /// 128B_ATOM_32B_FLIP_8B = 5, 128B_ATOM_64B = 6`; `CUtensorMapInterleave`: `NONE, 16B, 32B`;
    /// `CUtensorMapL2promotion`: `NONE, L2_64B, L2_128B, L2_256B`; `CUtensorMapFloatOOBfill`:
    /// `NONE, NAN_REQUEST_ZERO_FMA`.
    #[test]
    fn the_other_fields_take_the_drivers_numbers() {
        use Atomicity as A;
        use SwizzleMode as S;
        let modes = [S::None, S::B32, S::B64, S::B128];
        let atoms = [A::B16, A::B32, A::B32Flip8, A::B64];
        let mut got = Vec::new();
        for m in modes {
            for a in atoms {
                got.push(swizzle(m, a));
            }
        }
        #[rustfmt::skip]
        let want = [
            Some(0), None, None, None,
            Some(1), None, None, None,
            Some(2), None, None, None,
            Some(3), Some(4), Some(5), Some(6),
        ];
        assert_eq!(got, want);
        assert_eq!(
            [Interleave::None, Interleave::B16, Interleave::B32].map(interleave),
            [0, 1, 2]
        );
        assert_eq!(
            [
                L2Promotion::None,
                L2Promotion::B64,
                L2Promotion::B128,
                L2Promotion::B256
            ]
            .map(l2_promotion),
            [0, 1, 2, 3]
        );
        assert_eq!([OobFill::Zero, OobFill::Nan].map(oob_fill), [0, 1]);
    }

    fn spec(json: serde_json::Value) -> TensorMapSpec {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn a_tiled_map_becomes_the_encode_calls_arguments() {
        let s = spec(serde_json::json!({
            "encode": "tiled", "data_type": "bf16", "buffer": "A", "offset": 64,
            "global_dim": [64, 32, 3], "global_strides": [128, 4096], "box_dim": [64, 8, 1],
            "element_strides": [1, 2, 1], "swizzle": "128B_atom_32B", "l2_promotion": "256B",
            "oob_fill": "nan_request_zero_fma"
        }));
        let e = encode_args(&s, 0x7f00_0000_1000).unwrap();
        assert_eq!(e.function(), "cuTensorMapEncodeTiled");
        assert_eq!(
            e,
            Encode {
                data_type: 9,
                rank: 3,
                global_address: 0x7f00_0000_1040,
                global_dim: [64, 32, 3, 1, 1],
                global_strides: [128, 4096, 0, 0],
                bounds: Bounds::Tiled([64, 8, 1, 1, 1]),
                element_strides: [1, 2, 1, 1, 1],
                interleave: 0,
                swizzle: 4,
                l2_promotion: 3,
                oob_fill: 1,
            }
        );
    }

    #[test]
    fn an_im2col_map_keeps_its_corners_w_first() {
        let s = spec(serde_json::json!({
            "encode": "im2col", "data_type": "f16", "buffer": "A",
            "global_dim": [8, 10, 10, 2], "global_strides": [16, 160, 1600],
            "pixel_box_lower_corner": [-1, -2], "pixel_box_upper_corner": [1, 0],
            "channels_per_pixel": 8, "pixels_per_column": 32, "interleave": "none"
        }));
        let e = encode_args(&s, 0x2000).unwrap();
        assert_eq!(e.function(), "cuTensorMapEncodeIm2col");
        assert_eq!(e.rank, 4);
        assert_eq!(e.data_type, 6);
        assert_eq!(
            e.bounds,
            Bounds::Im2col {
                lower: [-1, -2, 0],
                upper: [1, 0, 0],
                channels_per_pixel: 8,
                pixels_per_column: 32
            }
        );
    }

    /// The driver judges the map: a box the oracle's model of the driver's rules refuses
    /// (`boxDim` above 256) is still passed on, while malformed fields are refused here.
    /// An im2col-wide map: `cuTensorMapEncodeIm2colWide` with the W corners as scalars and
    /// cuda.h's `CU_TENSOR_MAP_IM2COL_WIDE_MODE_W = 0`, `_W128 = 1`.
    #[test]
    fn an_im2col_wide_map_passes_its_w_corners_and_mode() {
        let m = spec(serde_json::json!({
            "encode": "im2col_wide", "data_type": "f16", "buffer": "A",
            "global_dim": [8, 10, 2], "global_strides": [16, 160],
            "pixel_box_lower_corner_width": -1, "pixel_box_upper_corner_width": -2,
            "channels_per_pixel": 8, "pixels_per_column": 16, "mode": "w128", "swizzle": "64B",
        }));
        let e = encode_args(&m, 0x1000).unwrap();
        assert_eq!(e.function(), "cuTensorMapEncodeIm2colWide");
        assert_eq!(
            e.bounds,
            Bounds::Im2colWide {
                lower_w: -1,
                upper_w: -2,
                channels_per_pixel: 8,
                pixels_per_column: 16,
                mode: 1,
            }
        );
        assert_eq!(im2col_wide_mode(false), 0);
    }

    #[test]
    fn only_malformed_fields_are_refused_before_the_driver() {
        let mut j = serde_json::json!({
            "encode": "tiled", "data_type": "u8", "buffer": "A",
            "global_dim": [1024], "global_strides": [], "box_dim": [512]
        });
        let s = spec(j.clone());
        assert!(s.build(0x1000).is_err(), "the oracle refuses a 512-element box");
        assert_eq!(
            encode_args(&s, 0x1000).unwrap().bounds,
            Bounds::Tiled([512, 1, 1, 1, 1])
        );
        j["data_type"] = "f8".into();
        let e = encode_args(&spec(j.clone()), 0).unwrap_err();
        assert!(e.contains("`data_type` \"f8\""), "{e}");
        j["data_type"] = "u8".into();
        j["swizzle"] = "48B".into();
        let e = encode_args(&spec(j), 0).unwrap_err();
        assert!(e.contains("`swizzle` is \"48B\""), "{e}");
    }
}
