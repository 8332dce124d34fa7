//! The sm_100 tensor-copy modes of `spec::tma`: `.tile::gather4`/`.tile::scatter4`
//! (§5.5.3.4) and `.im2col::w`/`.im2col::w::128` (§5.5.5) with the im2col-wide tensor map,
//! against hand-computed element indices and addresses.

use spec::tma::*;

/// A row-major f32 matrix of `rows × cols` with a row pitch of `pitch` bytes at 0x2000, box
/// `bc × br`.
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

/// An f16 NHWC tensor at 0x10000: C 16, W `w`, H 7, N 3 (pixel 32 bytes, row `32·w`, image
/// `7·32·w`), im2col-wide box W `lower_w ..= w - 1 + upper_w`, 16 channels per pixel.
fn wide_f16(w: u64, lower_w: i32, upper_w: i32, ppc: u32, w128: bool) -> TensorMap {
    TensorMap {
        swizzle: SwizzleMode::B64,
        ..TensorMap::plain(
            DataType::F16,
            4,
            0x10000,
            [16, w, 7, 3, 1],
            [32, 32 * w, 7 * 32 * w, 0],
            Mode::Im2colWide {
                lower_w,
                upper_w,
                channels_per_pixel: 16,
                pixels_per_column: ppc,
                w128,
            },
        )
    }
}

/// The (W, N) of each pixel of a plan with `cpp` channels per pixel (its first channel's
/// coordinates), checking that H is `h` throughout and the channels run from `c`.
fn pixels(p: &Plan, cpp: usize, c: i64, h: i64) -> Vec<(i64, i64)> {
    assert_eq!(p.elements.len() % cpp, 0);
    p.elements
        .chunks(cpp)
        .map(|px| {
            for (j, e) in px.iter().enumerate() {
                assert_eq!(e.coords[0], c + j as i64);
                assert_eq!(e.coords[2], h);
                assert_eq!((e.coords[1], e.coords[3]), (px[0].coords[1], px[0].coords[3]));
            }
            (px[0].coords[1], px[0].coords[3])
        })
        .collect()
}

#[test]
fn gather4_the_manuals_four_rows() {
    // The bounding-box example of L2214: starting coordinates (1, 2), (1, 5), (1, 0), (1, 9):
    // col_idx 1, rows 2, 5, 0, 9 of a 16 × 12 f32 matrix with 64-byte rows, rows 4 wide.
    let m = matrix_f32(16, 12, 64, 4, 1);
    let p = plan(
        &m,
        Direction::Load,
        &Request::Gather4 {
            coords: &[1, 2, 5, 0, 9],
        },
        0x400,
    )
    .unwrap();
    assert_eq!(p.elements.len(), 16);
    assert_eq!(p.tx_bytes, 64);
    // Row k, element j: global 0x2000 + row·64 + (1 + j)·4; shared 0x400 + (4k + j)·4.
    let global: Vec<u64> = p.elements.iter().map(|e| e.global.unwrap()).collect();
    assert_eq!(
        global,
        [
            0x2084, 0x2088, 0x208c, 0x2090, // row 2: 0x2000 + 128 + 4
            0x2144, 0x2148, 0x214c, 0x2150, // row 5: 0x2000 + 320 + 4
            0x2004, 0x2008, 0x200c, 0x2010, // row 0
            0x2244, 0x2248, 0x224c, 0x2250, // row 9: 0x2000 + 576 + 4
        ]
    );
    let smem: Vec<u64> = p.elements.iter().map(|e| e.smem).collect();
    assert_eq!(smem, (0..16).map(|k| 0x400 + 4 * k).collect::<Vec<u64>>());
    // scatter4 stores the same elements.
    let s = plan(
        &m,
        Direction::Store,
        &Request::Gather4 {
            coords: &[1, 2, 5, 0, 9],
        },
        0x400,
    )
    .unwrap();
    assert_eq!(s.elements, p.elements);
}

#[test]
fn gather4_out_of_bounds_rows_and_columns() {
    // col_idx 14 of 16 columns: columns 14, 15 in, 16, 17 out; row 12 of 12 and row -1 out.
    let m = matrix_f32(16, 12, 64, 4, 1);
    let p = plan(
        &m,
        Direction::Load,
        &Request::Gather4 {
            coords: &[14, 3, 12, -1, 11],
        },
        0,
    )
    .unwrap();
    let g: Vec<Option<u64>> = p.elements.iter().map(|e| e.global).collect();
    let row3 = 0x2000 + 3 * 64;
    let row11 = 0x2000 + 11 * 64;
    assert_eq!(
        g,
        [
            Some(row3 + 56),
            Some(row3 + 60),
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            Some(row11 + 56),
            Some(row11 + 60),
            None,
            None,
        ]
    );
    assert_eq!(p.tx_bytes, 64); // the whole box counts, as in tile mode
}

#[test]
fn gather4_rows_are_swizzled_as_a_tile_box_of_four_rows() {
    // bf16 rows of 64 elements (128 bytes), 128-byte swizzle, the box at 0x800 (1024-aligned):
    // row k's 16-byte chunk c lands in chunk c ^ k (Swizzle<3,4,3>, the manual's table L2616).
    let mut m = matrix_f32(64, 8, 256, 64, 1);
    m.data_type = DataType::Bf16;
    m.global_dim = [128, 8, 1, 1, 1];
    m.swizzle = SwizzleMode::B128;
    let p = plan(
        &m,
        Direction::Load,
        &Request::Gather4 {
            coords: &[0, 7, 6, 5, 4],
        },
        0x800,
    )
    .unwrap();
    let at = |k: usize, j: usize| p.elements[k * 64 + j].smem;
    assert_eq!(at(0, 0), 0x800);
    assert_eq!(at(1, 0), 0x800 + 128 + 16); // chunk 0 → 1
    assert_eq!(at(1, 8), 0x800 + 128); // chunk 1 → 0
    assert_eq!(at(3, 9), 0x800 + 3 * 128 + 2 * 16 + 2); // chunk 1 → 2, element 1 of it
    assert_eq!(p.elements[64].global, Some(0x2000 + 6 * 256));
}

#[test]
fn gather4_rules() {
    let m = matrix_f32(16, 12, 64, 4, 1);
    let req = Request::Gather4 { coords: &[0, 1, 2, 3] };
    assert_eq!(
        plan(&m, Direction::Load, &req, 0),
        Err(PlanError::Gather4(gather::Gather4Error::Coords { count: 4 }))
    );
    let five = Request::Gather4 {
        coords: &[0, 1, 2, 3, 4],
    };
    let tall = matrix_f32(16, 12, 64, 4, 2);
    assert_eq!(
        plan(&tall, Direction::Load, &five, 0),
        Err(PlanError::Gather4(gather::Gather4Error::BoxRows { box_dim: 2 }))
    );
    let mut three = matrix_f32(16, 12, 64, 4, 1);
    three.rank = 3;
    three.global_strides = [64, 768, 0, 0];
    assert_eq!(
        plan(&three, Direction::Load, &five, 0),
        Err(PlanError::Gather4(gather::Gather4Error::Rank { rank: 3 }))
    );
    let mut inter = three;
    inter.interleave = Interleave::B16;
    inter.mode = Mode::Tiled {
        box_dim: [4, 1, 1, 1, 1],
    };
    assert!(matches!(
        plan(&inter, Direction::Load, &five, 0),
        Err(PlanError::Gather4(_))
    ));
    // A gather4 request on an im2col map is the mode mismatch.
    let w = wide_f16(9, 0, 0, 8, false);
    assert_eq!(plan(&w, Direction::Load, &five, 0), Err(PlanError::Mode));
}

#[test]
fn im2col_w_wraps_into_the_next_image_and_loads_the_halo_after() {
    // W 9, box W 0..=8; start (C 0, W 5, H 2, N 0), 8 pixels, wHalo 2, wOffset 0:
    // main W 5, 6, 7, 8 (N 0), 0, 1, 2, 3 (N 1); halo W 4, 5 of N 1.
    let m = wide_f16(9, 0, 0, 8, false);
    let req = Request::Im2colWide {
        coords: &[0, 5, 2, 0],
        info: &[2, 0],
        w128: false,
    };
    let p = plan(&m, Direction::Load, &req, 0x400).unwrap();
    assert_eq!(
        pixels(&p, 16, 0, 2),
        [
            (5, 0),
            (6, 0),
            (7, 0),
            (8, 0),
            (0, 1),
            (1, 1),
            (2, 1),
            (3, 1),
            (4, 1),
            (5, 1)
        ]
    );
    assert_eq!(p.tx_bytes, 10 * 32);
    // Pixel (W 7, N 0), channel 3: 0x10000 + 3·2 + 7·32 + 2·288 = 0x10326.
    assert_eq!(p.elements[2 * 16 + 3].global, Some(0x10000 + 6 + 224 + 576));
    // Pixel (W 0, N 1), channel 0: + 1·2016 + 2·288.
    assert_eq!(p.elements[4 * 16].global, Some(0x10000 + 2016 + 576));
}

#[test]
fn im2col_w_halo_runs_past_the_image_without_wrapping() {
    // Start W 1: the 8 main pixels are W 1..=8 of N 0; the halo W 9, 10 lies past the
    // tensor (W 9): out of bounds, filled.
    let m = wide_f16(9, 0, 0, 8, false);
    let req = Request::Im2colWide {
        coords: &[0, 1, 2, 0],
        info: &[2, 0],
        w128: false,
    };
    let p = plan(&m, Direction::Load, &req, 0x400).unwrap();
    let px = pixels(&p, 16, 0, 2);
    assert_eq!(px[..8], (1..=8).map(|w| (w, 0)).collect::<Vec<_>>()[..]);
    assert_eq!(px[8..], [(9, 0), (10, 0)]);
    assert!(p.elements[..8 * 16].iter().all(|e| e.global.is_some()));
    assert!(p.elements[8 * 16..].iter().all(|e| e.global.is_none()));
}

#[test]
fn im2col_w_stride_and_offset_the_manuals_example_1() {
    // L2490-2511: W 9, corners -1 / 0, traversal stride 2, start W -1 (left of the box, L2421).
    // Buffer 1 (wHalo 1, wOffset 0): box -1..=8, pixels -1, 1, 3, 5 and the halo 7 — taps 0
    // and 2 of a 3-tap filter. Buffer 2 (wHalo 0, wOffset 1): box 0..=9, pixels 0, 2, 4, 6.
    let mut m = wide_f16(9, -1, 0, 4, false);
    m.element_strides = [1, 2, 1, 1, 1];
    let b1 = plan(
        &m,
        Direction::Load,
        &Request::Im2colWide {
            coords: &[0, -1, 2, 0],
            info: &[1, 0],
            w128: false,
        },
        0,
    )
    .unwrap();
    assert_eq!(pixels(&b1, 16, 0, 2), [(-1, 0), (1, 0), (3, 0), (5, 0), (7, 0)]);
    assert!(b1.elements[..16].iter().all(|e| e.global.is_none())); // W -1: padding
    let b2 = plan(
        &m,
        Direction::Load,
        &Request::Im2colWide {
            coords: &[0, -1, 2, 0],
            info: &[0, 1],
            w128: false,
        },
        0,
    )
    .unwrap();
    assert_eq!(pixels(&b2, 16, 0, 2), [(0, 0), (2, 0), (4, 0), (6, 0)]);
    // Five pixels past the box (start W 8 + stride 2 = 10 > 9 with the offset): wrap to W 0, N 1.
    let mut m5 = m;
    m5.mode = Mode::Im2colWide {
        lower_w: -1,
        upper_w: 0,
        channels_per_pixel: 16,
        pixels_per_column: 3,
        w128: false,
    };
    let b3 = plan(
        &m5,
        Direction::Load,
        &Request::Im2colWide {
            coords: &[0, 7, 2, 0],
            info: &[0, 1],
            w128: false,
        },
        0,
    )
    .unwrap();
    assert_eq!(pixels(&b3, 16, 0, 2), [(8, 0), (0, 1), (2, 1)]);
}

#[test]
fn im2col_w128_halo_after_every_32_pixels() {
    // W 100, box 0..=99, 8 channels (16 bytes), start W 0 N 0, wHalo 2: groups of 32 main
    // pixels each followed by the next two W positions; the fourth group wraps into N 1 after
    // W 99 and its halo follows its last pixel (W 27 of N 1).
    let mut m = wide_f16(100, 0, 0, 1, true);
    m.global_dim = [8, 100, 7, 3, 1];
    m.global_strides = [16, 1600, 11200, 0];
    m.mode = Mode::Im2colWide {
        lower_w: 0,
        upper_w: 0,
        channels_per_pixel: 8,
        pixels_per_column: 1, // ignored in W128
        w128: true,
    };
    let req = Request::Im2colWide {
        coords: &[0, 0, 4, 0],
        info: &[2, 0],
        w128: true,
    };
    let p = plan(&m, Direction::Load, &req, 0x400).unwrap();
    let px = pixels(&p, 8, 0, 4);
    assert_eq!(px.len(), 136);
    let mut want: Vec<(i64, i64)> = Vec::new();
    want.extend((0..32).map(|w| (w, 0)));
    want.extend([(32, 0), (33, 0)]);
    want.extend((32..64).map(|w| (w, 0)));
    want.extend([(64, 0), (65, 0)]);
    want.extend((64..96).map(|w| (w, 0)));
    want.extend([(96, 0), (97, 0)]);
    want.extend((96..100).map(|w| (w, 0)));
    want.extend((0..28).map(|w| (w, 1)));
    want.extend([(28, 1), (29, 1)]);
    assert_eq!(px, want);
    assert_eq!(p.tx_bytes, 136 * 16);
}

#[test]
fn im2col_w_rules() {
    let m = wide_f16(9, 0, 0, 8, false);
    let req = |coords: &'static [i32], info: &'static [u16], w128| Request::Im2colWide { coords, info, w128 };
    let err = |r: Request| plan(&m, Direction::Load, &r, 0).unwrap_err();
    use wide::WideError as W;
    assert_eq!(
        err(req(&[0, 0, 0, 0], &[512, 0], false)),
        PlanError::Wide(W::Halo { halo: 512, bound: 512 })
    );
    assert_eq!(
        err(req(&[0, 0, 0, 0], &[0, 32], false)),
        PlanError::Wide(W::Offset { offset: 32 })
    );
    assert_eq!(
        err(req(&[0, 9, 0, 0], &[0, 0], false)),
        PlanError::Wide(W::Start { w: 9, hi: 8 })
    );
    assert_eq!(
        err(req(&[0, 0, 0, 0], &[0, 0], true)),
        PlanError::Wide(W::Mode { w128: true })
    );
    assert_eq!(
        err(req(&[0, 0, 0, 0], &[0], false)),
        PlanError::Wide(W::Operands {
            coords: 4,
            info: 1,
            rank: 4
        })
    );
    // 511 is the largest wHalo of `.im2col::w`; 31 of `.im2col::w::128`.
    assert!(plan(&m, Direction::Load, &req(&[0, 0, 0, 0], &[511, 31], false), 0).is_ok());
    let mut m128 = m;
    m128.mode = Mode::Im2colWide {
        lower_w: 0,
        upper_w: 0,
        channels_per_pixel: 16,
        pixels_per_column: 0,
        w128: true,
    };
    assert_eq!(
        plan(&m128, Direction::Load, &req(&[0, 0, 0, 0], &[32, 0], true), 0),
        Err(PlanError::Wide(W::Halo { halo: 32, bound: 32 }))
    );
    assert_eq!(
        plan(&m, Direction::Store, &req(&[0, 0, 0, 0], &[0, 0], false), 0),
        Err(PlanError::Mode)
    );
    // An im2col::w request on a plain im2col or tiled map.
    let tiled = matrix_f32(16, 12, 64, 4, 1);
    assert!(plan(&tiled, Direction::Load, &req(&[0, 0], &[0, 0], false), 0).is_err());
}

#[test]
fn im2col_wide_map_rules_and_encoding() {
    let ok = wide_f16(9, -1, 0, 8, false);
    assert_eq!(ok.validate(), Ok(()));
    let with = |f: &dyn Fn(&mut TensorMap)| {
        let mut m = ok;
        f(&mut m);
        m.validate()
    };
    assert_eq!(with(&|m| m.swizzle = SwizzleMode::None), Err(MapError::WideSwizzle));
    assert_eq!(with(&|m| m.swizzle = SwizzleMode::B32), Err(MapError::WideSwizzle));
    assert_eq!(
        with(&|m| {
            m.swizzle = SwizzleMode::B128;
            m.atomicity = Atomicity::B32Flip8
        }),
        Err(MapError::WideSwizzle)
    );
    assert_eq!(
        with(&|m| {
            m.swizzle = SwizzleMode::B128;
            m.atomicity = Atomicity::B32
        }),
        Ok(())
    );
    assert_eq!(with(&|m| m.interleave = Interleave::B16), Err(MapError::WideInterleave));
    assert_eq!(
        with(&|m| {
            m.rank = 2;
            m.global_strides = [32, 0, 0, 0]
        }),
        Err(MapError::Rank { rank: 2 })
    );
    // W 9 with corners 9 / 0: box 9..=8, empty.
    assert_eq!(
        with(&|m| m.mode = Mode::Im2colWide {
            lower_w: 9,
            upper_w: 0,
            channels_per_pixel: 16,
            pixels_per_column: 8,
            w128: false
        }),
        Err(MapError::EmptyBox { dim: 0 })
    );
    assert_eq!(
        with(&|m| m.mode = Mode::Im2colWide {
            lower_w: -32769,
            upper_w: 0,
            channels_per_pixel: 16,
            pixels_per_column: 8,
            w128: false
        }),
        Err(MapError::Corner { dim: 0 })
    );
    assert_eq!(
        with(&|m| m.mode = Mode::Im2colWide {
            lower_w: 0,
            upper_w: 0,
            channels_per_pixel: 16,
            pixels_per_column: 1025,
            w128: false
        }),
        Err(MapError::PixelsPerColumn)
    );
    // pixelsPerColumn is ignored in W128.
    assert_eq!(
        with(&|m| m.mode = Mode::Im2colWide {
            lower_w: 0,
            upper_w: 0,
            channels_per_pixel: 16,
            pixels_per_column: 0,
            w128: true
        }),
        Ok(())
    );
    // The box's inner dimension (16 f16 = 32 bytes) fits the 64-byte swizzle; 48 do not.
    assert_eq!(
        with(&|m| m.mode = Mode::Im2colWide {
            lower_w: 0,
            upper_w: 0,
            channels_per_pixel: 48,
            pixels_per_column: 8,
            w128: false
        }),
        Err(MapError::SwizzleSpan { inner: 96, span: 64 })
    );
    for w128 in [false, true] {
        let mut m = ok;
        m.mode = Mode::Im2colWide {
            lower_w: -300,
            upper_w: 7,
            channels_per_pixel: 16,
            pixels_per_column: 1000,
            w128,
        };
        let b = encode(&m).unwrap();
        assert_eq!(b[100] >> 5, if w128 { 7 } else { 6 });
        assert_eq!(decode(&b), Ok(m));
    }
}
