//! The TMA value model (`spec::tma`): tensor maps, their encoding and `tensormap.replace`, and
//! the element transfers of tensor copies, against hand-computed cases and the manual's tables.

use spec::matrix::wgmma::{Descriptor, Major, Swizzle};
use spec::tma::*;

/// A row-major `rows × cols` f32 matrix with a row pitch of `pitch` bytes, box `bc × br`.
fn matrix_f32(cols: u64, rows: u64, pitch: u64, bc: u32, br: u32) -> TensorMap {
    TensorMap::plain(
        DataType::F32,
        2,
        0x2000,
        [cols, rows, 1, 1, 1],
        [pitch, 0, 0, 0],
        Mode::Tiled {
            box_dim: [bc, br, 1, 1, 1],
        },
    )
}

/// The manual's im2col example 1 (L2324-2342) as an f16 NHWC tensor: C 64, W 9, H 14, N 64.
fn im2col_example() -> TensorMap {
    TensorMap::plain(
        DataType::F16,
        4,
        0x10000,
        [64, 9, 14, 64, 1],
        [128, 9 * 128, 14 * 9 * 128, 0],
        Mode::Im2col {
            lower: [-1, -1, 0],
            upper: [-1, -1, 0],
            channels_per_pixel: 8,
            pixels_per_column: 64,
        },
    )
}

#[test]
fn box_straddling_the_edge_zero_and_nan_fill() {
    // 8 × 8 f32 tensor, rows padded to 48 bytes; an 8 × 8 box at (-2, 3) covers columns
    // -2..=5 and rows 3..=10: columns 0..=5 of rows 3..=7 are inside (6 · 5 = 30 elements).
    let mut m = matrix_f32(8, 8, 48, 8, 8);
    let p = plan(&m, Direction::Load, &Request::Tile { coords: &[-2, 3] }, 0x400).unwrap();
    assert_eq!(p.elements.len(), 64);
    assert_eq!(p.tx_bytes, 256);
    assert_eq!(p.elements.iter().filter(|e| e.global.is_some()).count(), 30);
    let at = |k0: usize, k1: usize| p.elements[k1 * 8 + k0];
    assert_eq!(at(0, 0).global, None); // column -2
    assert_eq!(at(1, 0).global, None); // column -1
                                       // column 0, row 3: 0x2000 + 3·48; box element (2, 0) at byte 8 of the box.
    assert_eq!((at(2, 0).global, at(2, 0).smem), (Some(0x2090), 0x408));
    // column 5, row 7: 0x2000 + 7·48 + 5·4; box element (7, 4) at byte (4·8 + 7)·4 = 156.
    assert_eq!((at(7, 4).global, at(7, 4).smem), (Some(0x2164), 0x400 + 156));
    assert_eq!(at(7, 5).global, None); // row 8
    assert_eq!(at(2, 0).coords, [0, 3, 0, 0, 0]);
    assert_eq!(p.fill, OobFill::Zero);
    assert_eq!(fill_bits(DataType::F32, p.fill), 0);

    m.oob_fill = OobFill::Nan;
    let q = plan(&m, Direction::Load, &Request::Tile { coords: &[-2, 3] }, 0x400).unwrap();
    assert_eq!(q.fill, OobFill::Nan);
    assert!(f32::from_bits(fill_bits(DataType::F32, q.fill) as u32).is_nan());
    assert!(f64::from_bits(fill_bits(DataType::F64, OobFill::Nan)).is_nan());
    assert_eq!(fill_bits(DataType::F16, OobFill::Nan) & 0x7c00, 0x7c00);
    assert_ne!(fill_bits(DataType::F16, OobFill::Nan) & 0x3ff, 0);
    // The same addresses as the zero-fill plan: only the fill differs.
    assert_eq!(p.elements, q.elements);

    // A store of the same box: the same addresses; out-of-bounds elements are not written.
    let s = plan(&m, Direction::Store, &Request::Tile { coords: &[-2, 3] }, 0x400).unwrap();
    assert_eq!(s.elements, p.elements);
}

#[test]
fn element_strides() {
    // 16 × 8 f32, box 4 × 4 with traversal stride 2 along dimension 1: ceil(4/2) = 2 rows,
    // rows 1 and 3 from coordinate 1. The stride of dimension 0 is ignored without interleave.
    let mut m = matrix_f32(16, 8, 64, 4, 4);
    m.element_strides = [2, 2, 1, 1, 1];
    let p = plan(&m, Direction::Load, &Request::Tile { coords: &[4, 1] }, 0).unwrap();
    let g: Vec<u64> = p.elements.iter().map(|e| e.global.unwrap()).collect();
    let row = |r: u64| (0..4).map(move |c| 0x2000 + r * 64 + (4 + c) * 4);
    assert_eq!(g, row(1).chain(row(3)).collect::<Vec<_>>());
    assert_eq!(p.tx_bytes, 32);
    let smem: Vec<u64> = p.elements.iter().map(|e| e.smem).collect();
    assert_eq!(smem, (0..8).map(|k| 4 * k).collect::<Vec<_>>());
    // Stride 3 over a box of 4: ceil(4/3) = 2 rows, 1 and 4.
    m.element_strides = [1, 3, 1, 1, 1];
    let p = plan(&m, Direction::Load, &Request::Tile { coords: &[4, 1] }, 0).unwrap();
    assert_eq!(p.elements[4].coords, [4, 4, 0, 0, 0]);
    assert_eq!(p.elements.len(), 8);
}

/// The 128-byte swizzle table with 16-byte atomicity as the manual prints it (L2766-2880):
/// at position `p` of row `r` sits 16-byte cell `T[r][p]` (rows 0-6 in the text, then "the
/// pattern repeats").
const SWIZZLE_128B: [[u64; 8]; 7] = [
    [0, 1, 2, 3, 4, 5, 6, 7],
    [1, 0, 3, 2, 5, 4, 7, 6],
    [2, 3, 0, 1, 6, 7, 4, 5],
    [3, 2, 1, 0, 7, 6, 5, 4],
    [4, 5, 6, 7, 0, 1, 2, 3],
    [5, 4, 7, 6, 1, 0, 3, 2],
    [6, 7, 4, 5, 2, 3, 0, 1],
];

#[test]
fn swizzled_128b_bf16_tile_against_the_manuals_table_and_wgmma() {
    // A 64 × 8 bf16 box (128 bytes × 8 rows) of a 256 × 64 bf16 tensor at (64, 8), into shared
    // memory at 0x2400 (1024-byte aligned).
    let m = TensorMap {
        swizzle: SwizzleMode::B128,
        ..TensorMap::plain(
            DataType::Bf16,
            2,
            0x40000,
            [256, 64, 1, 1, 1],
            [512, 0, 0, 0],
            Mode::Tiled {
                box_dim: [64, 8, 1, 1, 1],
            },
        )
    };
    let p = plan(&m, Direction::Load, &Request::Tile { coords: &[64, 8] }, 0x2400).unwrap();
    assert_eq!(p.tx_bytes, 1024);
    let desc = Descriptor {
        start: 0x2400,
        lbo: 16,
        sbo: 1024,
        base_offset: 0,
        swizzle: Swizzle::B128,
    };
    for r in 0..8u64 {
        for c in 0..64u64 {
            let e = p.elements[(r * 64 + c) as usize];
            assert_eq!(e.global, Some(0x40000 + (8 + r) * 512 + (64 + c) * 2));
            // The table: logical cell c/8 of row r sits at the position p with T[r][p] = c/8.
            if (r as usize) < SWIZZLE_128B.len() {
                let pos = SWIZZLE_128B[r as usize].iter().position(|&x| x == c / 8).unwrap() as u64;
                assert_eq!(e.smem, 0x2400 + r * 128 + pos * 16 + (c % 8) * 2, "row {r} col {c}");
            }
            // The same byte as wgmma's K-major 128-byte-swizzled canonical layout (row = M/N,
            // column = K) with SBO 1024: a TMA-loaded tile is a valid wgmma operand.
            assert_eq!(e.smem, desc.address(Major::K, r as usize, c as usize, 2));
        }
    }
    // Row 1, columns 0..8 (cell 0) sit at position 1 (bytes 16..32 of the row).
    assert_eq!(p.elements[64].smem, 0x2400 + 128 + 16);
}

#[test]
fn swizzled_64b_tile_is_wgmmas_64b_layout() {
    // Triton's A operand in matmul_tma.sm90a: a 32 × 64 f16 box (64-byte rows), 64-byte swizzle;
    // its wgmma descriptor uses SBO 512 (8 rows of 64 bytes): the dense rows of the plan.
    let mut m = matrix_f32(64, 64, 128, 32, 64);
    m.data_type = DataType::F16;
    m.swizzle = SwizzleMode::B64;
    let p = plan(&m, Direction::Load, &Request::Tile { coords: &[32, 0] }, 0).unwrap();
    let desc = Descriptor {
        start: 0,
        lbo: 16,
        sbo: 512,
        base_offset: 0,
        swizzle: Swizzle::B64,
    };
    for (k, e) in p.elements.iter().enumerate() {
        assert_eq!(e.smem, desc.address(Major::K, k / 32, k % 32, 2));
    }
}

#[test]
fn swizzle_follows_the_address_off_the_pattern_boundary() {
    // A 32-byte-swizzled box at 0x80, off the 256-byte pattern boundary (L3016-3046): the
    // pattern is a function of the address (bit 7 into bit 4, as wgmma's base offset
    // `(addr >> 7) & 7`, L25664), so the box's bytes 0x80..0x100 (row 1 of the period) have
    // their 16-byte halves swapped. (The TMA section's `(dstMem / 32) % 2`, L3046, would put
    // this box at base offset 0: read as a defect of the text, see spec::tma::swizzle.)
    let mut m = matrix_f32(8, 4, 32, 8, 2);
    m.swizzle = SwizzleMode::B32;
    let p = plan(&m, Direction::Load, &Request::Tile { coords: &[0, 0] }, 0x80).unwrap();
    assert_eq!(p.elements[0].smem, 0x90);
    assert_eq!(p.elements[4].smem, 0x80);
    assert_eq!(p.elements[8].smem, 0xb0); // box row 1 at 0xa0: bit 7 still set
    let p0 = plan(&m, Direction::Load, &Request::Tile { coords: &[0, 0] }, 0x100).unwrap();
    assert_eq!(p0.elements[0].smem, 0x100);
}

#[test]
fn im2col_example_1() {
    // L2324-2342: pixels-per-column 64, channels-per-pixel 8, corners W/H -1/-1, coordinates
    // (7, 7, 4, 0) = C 7, W 7, H 4, N 0, offsets (0, 0). The box along W is -1..=7 (9
    // positions), along H -1..=12. Pixel 0 is (W 7, H 4); the next W is past the box, so pixel
    // 1 is (W -1, H 5), then 9 pixels per row: pixels 1..=63 are rows H 5..=11.
    let m = im2col_example();
    let req = Request::Im2col {
        coords: &[7, 7, 4, 0],
        offsets: &[0, 0],
    };
    let p = plan(&m, Direction::Load, &req, 0).unwrap();
    assert_eq!(p.elements.len(), 64 * 8);
    assert_eq!(p.tx_bytes, 1024);
    let px = |k: usize, j: usize| p.elements[k * 8 + j];
    let addr = |c: u64, w: u64, h: u64| 0x10000 + c * 2 + w * 128 + h * 9 * 128;
    assert_eq!(px(0, 0).global, Some(addr(7, 7, 4)));
    assert_eq!(px(0, 7).global, Some(addr(14, 7, 4)));
    assert_eq!(px(1, 0).coords, [7, -1, 5, 0, 0]);
    assert_eq!(px(1, 3).global, None); // W = -1: the padding, filled
    assert_eq!(px(2, 0).global, Some(addr(7, 0, 5)));
    assert_eq!(px(63, 0).coords, [7, 7, 11, 0, 0]);
    assert_eq!(px(63, 5).smem, (63 * 8 + 5) * 2);
    // Seven pixels (W = -1 in rows 5..=11) are out of bounds.
    assert_eq!(p.elements.iter().filter(|e| e.global.is_none()).count(), 7 * 8);

    // Offsets are added to the pixel's position (L2304): (1, 2) moves pixel 0 to W 8, H 6 and
    // pixel 1 to W 0, H 7.
    let req = Request::Im2col {
        coords: &[7, 7, 4, 0],
        offsets: &[1, 2],
    };
    let p = plan(&m, Direction::Load, &req, 0).unwrap();
    assert_eq!(p.elements[0].global, Some(addr(7, 8, 6)));
    assert_eq!(p.elements[8].global, Some(addr(7, 0, 7)));
}

#[test]
fn im2col_traversal_stride_and_batch_end() {
    // 3-D NWC: C 16, W 4, N 2; box W -1..=2 with stride 2: positions -1, 1; 6 pixels from
    // (W -1, N 0): (-1,0) (1,0) (-1,1) (1,1) (-1,2) (1,2); N 2 is past the batch (L2391).
    let m = TensorMap {
        element_strides: [1, 2, 1, 1, 1],
        ..TensorMap::plain(
            DataType::F32,
            3,
            0,
            [16, 4, 2, 1, 1],
            [64, 256, 0, 0],
            Mode::Im2col {
                lower: [-1, 0, 0],
                upper: [-1, 0, 0],
                channels_per_pixel: 4,
                pixels_per_column: 6,
            },
        )
    };
    let p = plan(
        &m,
        Direction::Load,
        &Request::Im2col {
            coords: &[0, -1, 0],
            offsets: &[0],
        },
        0,
    )
    .unwrap();
    let pos: Vec<(i64, i64)> = (0..6)
        .map(|k| (p.elements[4 * k].coords[1], p.elements[4 * k].coords[2]))
        .collect();
    assert_eq!(pos, [(-1, 0), (1, 0), (-1, 1), (1, 1), (-1, 2), (1, 2)]);
    let inb: Vec<bool> = (0..6).map(|k| p.elements[4 * k].global.is_some()).collect();
    assert_eq!(inb, [false, true, false, true, false, false]);
    assert_eq!(p.elements[4].global, Some(64));
    // im2col_no_offs stores need the box inside the tensor (L14833-14837).
    let st = plan(
        &m,
        Direction::Store,
        &Request::Im2col {
            coords: &[0, 0, 0],
            offsets: &[],
        },
        0,
    );
    assert_eq!(st, Err(PlanError::StoreCorners));
}

#[test]
fn plan_errors() {
    let m = matrix_f32(8, 8, 32, 8, 2);
    assert_eq!(
        plan(&m, Direction::Load, &Request::Tile { coords: &[0] }, 0),
        Err(PlanError::Rank { coords: 1, rank: 2 })
    );
    assert_eq!(
        plan(&m, Direction::Load, &Request::Tile { coords: &[0, 0] }, 8),
        Err(PlanError::SmemAlignment { align: 16 })
    );
    assert_eq!(
        plan(
            &m,
            Direction::Load,
            &Request::Im2col {
                coords: &[0, 0],
                offsets: &[]
            },
            0
        ),
        Err(PlanError::Mode)
    );
    let mut bad = m;
    bad.global_address = 8;
    assert!(matches!(
        plan(&bad, Direction::Load, &Request::Tile { coords: &[0, 0] }, 0),
        Err(PlanError::Map(MapError::GlobalAddressAlignment { align: 16 }))
    ));
    let mut atom = m;
    atom.swizzle = SwizzleMode::B128;
    atom.atomicity = Atomicity::B64;
    assert_eq!(
        plan(&atom, Direction::Load, &Request::Tile { coords: &[0, 0] }, 32),
        Err(PlanError::SmemAlignment { align: 64 })
    );
    // An im2col box of 3 pixels × 2 f16 channels is 12 bytes, not a multiple of 16 (L2152).
    let mut small = im2col_example();
    small.mode = Mode::Im2col {
        lower: [-1, -1, 0],
        upper: [-1, -1, 0],
        channels_per_pixel: 2,
        pixels_per_column: 3,
    };
    assert_eq!(
        plan(
            &small,
            Direction::Load,
            &Request::Im2col {
                coords: &[0, 0, 0, 0],
                offsets: &[0, 0]
            },
            0
        ),
        Err(PlanError::BoxBytes { bytes: 12 })
    );
}

fn check(m: TensorMap, e: MapError) {
    assert_eq!(m.validate(), Err(e), "{m:?}");
}

#[test]
fn every_validate_rule() {
    let ok = matrix_f32(8, 8, 32, 8, 2);
    assert_eq!(ok.validate(), Ok(()));
    assert_eq!(im2col_example().validate(), Ok(()));
    let with = |f: &dyn Fn(&mut TensorMap)| {
        let mut m = ok;
        f(&mut m);
        m
    };
    let im = |f: &dyn Fn(&mut TensorMap)| {
        let mut m = im2col_example();
        f(&mut m);
        m
    };
    check(with(&|m| m.rank = 0), MapError::Rank { rank: 0 });
    check(with(&|m| m.rank = 6), MapError::Rank { rank: 6 });
    check(im(&|m| m.rank = 2), MapError::Rank { rank: 2 });
    check(with(&|m| m.interleave = Interleave::B16), MapError::InterleaveRank);
    check(
        with(&|m| m.global_address = 0x2008),
        MapError::GlobalAddressAlignment { align: 16 },
    );
    check(
        im(&|m| {
            m.interleave = Interleave::B32;
            m.swizzle = SwizzleMode::B32;
            m.global_address = 0x10010;
        }),
        MapError::GlobalAddressAlignment { align: 32 },
    );
    check(with(&|m| m.global_dim[1] = 0), MapError::GlobalDim { dim: 1 });
    check(
        with(&|m| m.global_dim[0] = (1 << 32) + 1),
        MapError::GlobalDim { dim: 0 },
    );
    check(
        with(&|m| {
            m.data_type = DataType::B4x16;
            m.global_dim[0] = 7;
        }),
        MapError::PackedGlobalDim { multiple: 2 },
    );
    check(
        with(&|m| {
            m.data_type = DataType::B6x16P32;
            m.global_dim[0] = 64;
        }),
        MapError::PackedGlobalDim { multiple: 128 },
    );
    check(
        with(&|m| m.global_strides[0] = 40),
        MapError::GlobalStride {
            stride: 0,
            multiple: 16,
        },
    );
    check(
        with(&|m| m.global_strides[0] = 1 << 40),
        MapError::GlobalStride {
            stride: 0,
            multiple: 16,
        },
    );
    check(
        im(&|m| {
            m.interleave = Interleave::B32;
            m.swizzle = SwizzleMode::B32;
            m.global_strides[0] = 144;
        }),
        MapError::GlobalStride {
            stride: 0,
            multiple: 32,
        },
    );
    check(
        with(&|m| m.global_strides[0] = 16),
        MapError::StrideNesting { stride: 0 },
    );
    check(
        im(&|m| m.global_strides[2] = 1152 * 13),
        MapError::StrideNesting { stride: 2 },
    );
    check(
        with(&|m| {
            m.mode = Mode::Tiled {
                box_dim: [8, 0, 1, 1, 1],
            }
        }),
        MapError::BoxDim { dim: 1 },
    );
    check(
        with(&|m| {
            m.mode = Mode::Tiled {
                box_dim: [8, 257, 1, 1, 1],
            }
        }),
        MapError::BoxDim { dim: 1 },
    );
    check(
        with(&|m| {
            m.mode = Mode::Tiled {
                box_dim: [6, 2, 1, 1, 1],
            }
        }),
        MapError::BoxInnerBytes,
    );
    check(
        with(&|m| {
            m.data_type = DataType::B4x16P64;
            m.global_dim[0] = 128;
            m.global_strides[0] = 64;
            m.mode = Mode::Tiled {
                box_dim: [64, 2, 1, 1, 1],
            };
        }),
        MapError::PackedBoxDim,
    );
    check(with(&|m| m.element_strides[1] = 9), MapError::ElementStride { dim: 1 });
    check(with(&|m| m.element_strides[0] = 0), MapError::ElementStride { dim: 0 });
    // An inner dimension of 8 · 4 = 32 bytes fits the 32-byte swizzle; 16 · 4 does not.
    assert_eq!(with(&|m| m.swizzle = SwizzleMode::B32).validate(), Ok(()));
    check(
        with(&|m| {
            m.global_dim[0] = 16;
            m.global_strides[0] = 64;
            m.mode = Mode::Tiled {
                box_dim: [16, 2, 1, 1, 1],
            };
            m.swizzle = SwizzleMode::B32;
        }),
        MapError::SwizzleSpan { inner: 64, span: 32 },
    );
    check(im(&|m| m.interleave = Interleave::B32), MapError::Interleave32Swizzle);
    check(
        im(&|m| {
            m.data_type = DataType::B6x16P32;
            m.global_dim[0] = 128;
            m.interleave = Interleave::B16;
            m.mode = Mode::Im2col {
                lower: [-1, -1, 0],
                upper: [-1, -1, 0],
                channels_per_pixel: 128,
                pixels_per_column: 64,
            };
        }),
        MapError::PackedInterleave,
    );
    check(
        with(&|m| {
            m.data_type = DataType::B4x16P64;
            m.global_dim[0] = 128;
            m.global_strides[0] = 64;
            m.mode = Mode::Tiled {
                box_dim: [128, 2, 1, 1, 1],
            };
            m.swizzle = SwizzleMode::B64;
        }),
        MapError::PackedSwizzle,
    );
    check(with(&|m| m.atomicity = Atomicity::B32), MapError::Atomicity);
    check(
        with(&|m| {
            m.data_type = DataType::S32;
            m.oob_fill = OobFill::Nan;
        }),
        MapError::NanFill,
    );
    let corners = |lower: [i32; 3], upper: [i32; 3], c: u32, p: u32| {
        im(&move |m| {
            m.mode = Mode::Im2col {
                lower,
                upper,
                channels_per_pixel: c,
                pixels_per_column: p,
            }
        })
    };
    check(corners([-129, 0, 0], [0, 0, 0], 8, 64), MapError::Corner { dim: 0 });
    check(corners([0, 0, 0], [0, 128, 0], 8, 64), MapError::Corner { dim: 1 });
    check(corners([5, 0, 0], [-5, 0, 0], 8, 64), MapError::EmptyBox { dim: 0 });
    check(corners([0, 0, 0], [0, 0, 0], 0, 64), MapError::ChannelsPerPixel);
    check(corners([0, 0, 0], [0, 0, 0], 257, 64), MapError::ChannelsPerPixel);
    check(corners([0, 0, 0], [0, 0, 0], 8, 1025), MapError::PixelsPerColumn);
}

#[test]
fn encode_decode_round_trips() {
    let mut maps = vec![matrix_f32(8, 8, 48, 8, 8), im2col_example()];
    let mut m = matrix_f32(1 << 20, 300, 1 << 22, 4, 256);
    m.rank = 5;
    m.global_dim = [1 << 20, 300, 7, 9, 0xffff_ffff];
    m.global_strides = [1 << 22, 300 << 22, (7 * 300) << 22, 1 << 39];
    m.element_strides = [1, 2, 3, 4, 8];
    m.interleave = Interleave::B32;
    m.swizzle = SwizzleMode::B128;
    m.atomicity = Atomicity::B32Flip8;
    m.l2_promotion = L2Promotion::B256;
    m.oob_fill = OobFill::Nan;
    m.data_type = DataType::Tf32Ftz;
    maps.push(m);
    let mut im = im2col_example();
    im.rank = 5;
    im.mode = Mode::Im2col {
        lower: [-16, 15, -3],
        upper: [7, -16, 0],
        channels_per_pixel: 256,
        pixels_per_column: 1024,
    };
    maps.push(im);
    for t in DataType::ALL {
        let mut m = matrix_f32(8, 8, 48, 8, 8);
        m.data_type = t;
        maps.push(m);
    }
    for m in maps {
        let b = encode(&m).unwrap();
        assert_eq!(decode(&b), Ok(m));
    }
    // The driver's largest dimension, 2^32, has no encoding (`global_dim` is `.b32`).
    let mut big = matrix_f32(8, 8, 48, 8, 8);
    big.global_dim[1] = 1 << 32;
    assert_eq!(big.validate(), Ok(()));
    assert_eq!(encode(&big), Err(EncodingError::DoesNotFit { field: "global_dim" }));
    // Bad codes are refused by decode.
    let mut b = encode(&matrix_f32(8, 8, 48, 8, 8)).unwrap();
    b[102] = 3;
    assert_eq!(
        decode(&b),
        Err(EncodingError::BadCode {
            field: "interleave_layout",
            code: 3
        })
    );
    // The all-zero template: tile mode, rank 1, .u8, none of the options.
    let z = decode(&[0; 128]).unwrap();
    assert_eq!(
        (z.rank, z.data_type, z.interleave, z.swizzle),
        (1, DataType::U8, Interleave::None, SwizzleMode::None)
    );
    assert_eq!(
        (z.atomicity, z.oob_fill, z.mode),
        (Atomicity::B16, OobFill::Zero, Mode::Tiled { box_dim: [0; 5] })
    );
}

#[test]
fn replace_every_field() {
    // Triton's device-side descriptor (corpus/ptx/triton/matmul_tma.sm90a.ptx L71-124): a zeroed
    // 128 bytes, then global_address, rank 1 (2-D), box 32 × 64, dims 64 × 128, row pitch 128,
    // element strides 1, elemtype 6 (.f16), swizzle_mode 2 (64 B).
    let mut b = [0u8; 128];
    replace(&mut b, Field::GlobalAddress, 0, 0x7000_0000).unwrap();
    replace(&mut b, Field::Rank, 0, 1).unwrap();
    replace(&mut b, Field::BoxDim, 0, 32).unwrap();
    replace(&mut b, Field::BoxDim, 1, 64).unwrap();
    replace(&mut b, Field::GlobalDim, 0, 64).unwrap();
    replace(&mut b, Field::GlobalDim, 1, 128).unwrap();
    replace(&mut b, Field::GlobalStride, 0, 128).unwrap();
    replace(&mut b, Field::ElementStride, 0, 1).unwrap();
    replace(&mut b, Field::ElementStride, 1, 1).unwrap();
    replace(&mut b, Field::Elemtype, 0, 6).unwrap();
    replace(&mut b, Field::SwizzleMode, 0, 2).unwrap();
    let m = decode(&b).unwrap();
    let want = TensorMap {
        element_strides: [1, 1, 0, 0, 0],
        swizzle: SwizzleMode::B64,
        ..TensorMap::plain(
            DataType::F16,
            2,
            0x7000_0000,
            [64, 128, 0, 0, 0],
            [128, 0, 0, 0],
            Mode::Tiled {
                box_dim: [32, 64, 0, 0, 0],
            },
        )
    };
    assert_eq!(m, want);
    assert_eq!(m.validate(), Ok(()));
    // The remaining fields, each on its own.
    replace(&mut b, Field::InterleaveLayout, 0, 1).unwrap();
    replace(&mut b, Field::SwizzleAtomicity, 0, 2).unwrap();
    replace(&mut b, Field::FillMode, 0, 1).unwrap();
    replace(&mut b, Field::GlobalStride, 3, 1 << 39).unwrap();
    replace(&mut b, Field::BoxDim, 4, 256).unwrap();
    replace(&mut b, Field::Rank, 0, 4).unwrap();
    let m = decode(&b).unwrap();
    assert_eq!(
        (m.interleave, m.atomicity, m.oob_fill),
        (Interleave::B16, Atomicity::B32Flip8, OobFill::Nan)
    );
    assert_eq!((m.global_strides[3], m.rank), (1 << 39, 5));
    assert_eq!(
        m.mode,
        Mode::Tiled {
            box_dim: [32, 64, 0, 0, 256]
        }
    );
    // Every Table 32 element type code, and the values marked `x`.
    for t in DataType::ALL {
        replace(&mut b, Field::Elemtype, 0, t.code() as u64).unwrap();
        assert_eq!(decode(&b).unwrap().data_type, t);
    }
    let before = b;
    assert_eq!(
        replace(&mut b, Field::Elemtype, 0, 16),
        Err(ReplaceError::Code { value: 16 })
    );
    assert_eq!(
        replace(&mut b, Field::InterleaveLayout, 0, 3),
        Err(ReplaceError::Code { value: 3 })
    );
    assert_eq!(
        replace(&mut b, Field::SwizzleMode, 0, 4),
        Err(ReplaceError::Code { value: 4 })
    );
    assert_eq!(
        replace(&mut b, Field::SwizzleAtomicity, 0, 4),
        Err(ReplaceError::Code { value: 4 })
    );
    assert_eq!(
        replace(&mut b, Field::FillMode, 0, 2),
        Err(ReplaceError::Code { value: 2 })
    );
    assert_eq!(replace(&mut b, Field::Rank, 0, 5), Err(ReplaceError::Rank { value: 5 }));
    assert_eq!(replace(&mut b, Field::BoxDim, 5, 1), Err(ReplaceError::Ord { ord: 5 }));
    assert_eq!(
        replace(&mut b, Field::GlobalStride, 4, 16),
        Err(ReplaceError::Ord { ord: 4 })
    );
    assert_eq!(replace(&mut b, Field::GlobalDim, 0, 1 << 32), Err(ReplaceError::Width));
    assert_eq!(b, before, "a refused replace changes nothing");
    // `.tile` on an im2col map.
    let mut i = encode(&im2col_example()).unwrap();
    assert_eq!(replace(&mut i, Field::GlobalAddress, 0, 0), Err(ReplaceError::Mode));
    // Field names round-trip and carry the operand rules.
    for f in Field::ALL {
        assert_eq!(Field::parse(f.name()), Some(f));
    }
    let b64: Vec<_> = Field::ALL.into_iter().filter(|f| f.is_b64()).collect();
    assert_eq!(b64, [Field::GlobalAddress, Field::GlobalStride]);
}

#[test]
fn interleaved_box_honours_the_dimension_0_stride() {
    // NC/8HWC8-like: 3-D f16, dimension 0 the 8 channels of a 16-byte slice; 16-byte interleave
    // keeps elementStrides[0] (the driver ignores it only without interleave): box 8 × 2 with
    // stride 2 along dimension 0 → channels 0, 2, 4, 6 of rows 1 and 2.
    let m = TensorMap {
        element_strides: [2, 1, 1, 1, 1],
        interleave: Interleave::B16,
        ..TensorMap::plain(
            DataType::F16,
            3,
            0x800,
            [8, 4, 2, 1, 1],
            [16, 64, 0, 0],
            Mode::Tiled {
                box_dim: [8, 2, 1, 1, 1],
            },
        )
    };
    let p = plan(&m, Direction::Load, &Request::Tile { coords: &[0, 1, 1] }, 0).unwrap();
    let g: Vec<u64> = p.elements.iter().map(|e| e.global.unwrap()).collect();
    let want: Vec<u64> = [1u64, 2]
        .iter()
        .flat_map(|&r| (0..4u64).map(move |c| 0x800 + 64 + r * 16 + 2 * c * 2))
        .collect();
    assert_eq!(g, want);
    assert_eq!(p.tx_bytes, 16);
}

#[test]
fn five_dimensional_box() {
    // u32 tensor 4 × 2 × 2 × 2 × 2, packed (strides 16, 32, 64, 128); box 4 × 1 × 1 × 1 × 2 at
    // (0, 1, 1, 1, 0): elements x0 = 0..4 of (1, 1, 1, 0) and (1, 1, 1, 1).
    let m = TensorMap::plain(
        DataType::U32,
        5,
        0,
        [4, 2, 2, 2, 2],
        [16, 32, 64, 128],
        Mode::Tiled {
            box_dim: [4, 1, 1, 1, 2],
        },
    );
    let p = plan(
        &m,
        Direction::Store,
        &Request::Tile {
            coords: &[0, 1, 1, 1, 0],
        },
        0,
    )
    .unwrap();
    let g: Vec<u64> = p.elements.iter().map(|e| e.global.unwrap()).collect();
    let base = 16 + 32 + 64;
    assert_eq!(
        g,
        [
            base,
            base + 4,
            base + 8,
            base + 12,
            base + 128,
            base + 132,
            base + 136,
            base + 140
        ]
    );
    assert_eq!(p.elements[7].coords, [3, 1, 1, 1, 1]);
}

#[test]
fn im2col_store_inside_the_tensor() {
    // `.im2col_no_offs` store (L14891): corners 0/0 keep the box inside (L14833-14837); 4 pixels
    // of 4 f32 channels from (W 1, H 0) of a 3×2 image: (1,0) (2,0) (0,1) (1,1).
    let mut m = im2col_example();
    m.data_type = DataType::F32;
    m.global_dim = [4, 3, 2, 1, 1];
    m.global_strides = [16, 48, 96, 0];
    m.mode = Mode::Im2col {
        lower: [0, 0, 0],
        upper: [0, 0, 0],
        channels_per_pixel: 4,
        pixels_per_column: 4,
    };
    let p = plan(
        &m,
        Direction::Store,
        &Request::Im2col {
            coords: &[0, 1, 0, 0],
            offsets: &[],
        },
        0,
    )
    .unwrap();
    let px: Vec<u64> = (0..4).map(|k| p.elements[4 * k].global.unwrap() - 0x10000).collect();
    assert_eq!(px, [16, 32, 48, 64]);
}
