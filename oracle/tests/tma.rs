//! The tensor copies (§9.7.9.25.5.2-4) on small kernels whose tensor map is a launch
//! `tensor_map` parameter: each test computes the bytes it expects with plain loops over the
//! box (the tensor's layout, the out-of-bounds rule of L2178, the 128-byte swizzle pattern
//! written out), never with `spec::tma`'s plans. Also the tensormap-proxy rule (L14904,
//! L17280) and the mbarrier's tx accounting (the whole box counts, L14966).

use oracle::error::{Error, ErrorKind};
use serde_json::{json, Value};

#[path = "common/tma.rs"]
mod tma_common;
use tma_common::{load_kernel, pattern, word, Launch};

const TARGET: &str = "sm_90a";

/// The line of `needle` in the kernel text.
fn line_of(body: &str, needle: &str) -> u32 {
    tma_common::line_of(TARGET, body, needle)
}

/// Runs `body` with `threads` threads over buffers `out` and `src` (initial bytes) and the
/// tensor map `tmap`; the bytes of `out` after the run.
fn run(body: &str, threads: u32, out: &[u8], src: &[u8], tmap: Value) -> Result<Vec<u8>, Error> {
    run_with(body, threads, out, src, tmap, "ptxas")
}

/// [`run`] with the launch's `grammar` (`ptxas` or `manual`).
fn run_with(body: &str, threads: u32, out: &[u8], src: &[u8], tmap: Value, grammar: &str) -> Result<Vec<u8>, Error> {
    Launch {
        target: TARGET,
        ctas: 1,
        threads,
        grammar,
    }
    .run(body, out, src, tmap)
}

/// A 2-D f32 box of 4 × 4 at (4, 3) of a 6 × 5 tensor (rows of 32 bytes): columns 6 and 7 and
/// rows 5 and 6 are outside and read as zeros; the whole box (64 bytes) is the complete-tx.
#[test]
fn a_2d_tile_straddling_the_edge_is_zero_filled() {
    let src = pattern(160);
    let tmap = json!({"encode": "tiled", "data_type": "f32", "buffer": "src",
        "global_dim": [6, 5], "global_strides": [32], "box_dim": [4, 4]});
    let copy = "mov.u32 %r20, 4;\nmov.u32 %r21, 3;\n\
        cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd5, {%r20, %r21}], [%r1];";
    let out = run(&load_kernel(copy, 64, 64), 32, &[0; 64], &src, tmap.clone()).unwrap();
    for r in 0..4 {
        for c in 0..4 {
            let (x, y) = (4 + c, 3 + r);
            let want = if x < 6 && y < 5 { word(&src, y * 32 + x * 4) } else { 0 };
            assert_eq!(word(&out, (r * 4 + c) * 4), want, "box ({c}, {r})");
        }
    }
    // OOB-NaN fill (L2186): a NaN (any NaN) where the zeros were.
    let mut nan = tmap;
    nan["oob_fill"] = json!("nan_request_zero_fma");
    let out = run(&load_kernel(copy, 64, 64), 1, &[0; 64], &src, nan).unwrap();
    for r in 0..4 {
        for c in 0..4 {
            let (x, y) = (4 + c, 3 + r);
            let got = word(&out, (r * 4 + c) * 4);
            if x < 6 && y < 5 {
                assert_eq!(got, word(&src, y * 32 + x * 4));
            } else {
                assert!(f32::from_bits(got).is_nan(), "box ({c}, {r}): {got:#x}");
            }
        }
    }
}

/// The same box from the parameter named directly (`[tmap, {...}]`), and the `.shared::cta`
/// destination form.
#[test]
fn the_map_parameter_named_directly_and_a_shared_cta_destination() {
    let src = pattern(160);
    let tmap = json!({"encode": "tiled", "data_type": "f32", "buffer": "src",
        "global_dim": [6, 5], "global_strides": [32], "box_dim": [4, 4]});
    let copy = "mov.u32 %r20, 0;\nmov.u32 %r21, 1;\n\
        cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%r3], [tmap, {%r20, %r21}], [%r1];";
    // ptxas 12.9 refuses the parameter named there (corpus/findings/ptxas-12.9-tensormap-operand.txt).
    let e = run(&load_kernel(copy, 64, 64), 1, &[0; 64], &src, tmap.clone()).expect_err("ptxas grammar");
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
    assert_eq!(
        e.loc.map(|l| l.0),
        Some(line_of(&load_kernel(copy, 64, 64), "cp.async.bulk.tensor")),
        "{e}"
    );
    assert!(
        e.message.contains("L14904") && e.message.contains("State space mismatch"),
        "{e}"
    );
    // The manual's grammar takes it, and the copy runs.
    let out = run_with(&load_kernel(copy, 64, 64), 1, &[0; 64], &src, tmap, "manual").unwrap();
    for r in 0..4 {
        for c in 0..4 {
            assert_eq!(word(&out, (r * 4 + c) * 4), word(&src, (1 + r) * 32 + c * 4));
        }
    }
}

/// 128-byte swizzle: a 32 × 8 u32 box (rows of 128 bytes) lands with the 16-byte chunk `j` of
/// row `r` at chunk `j ^ (r mod 8)` (§5.5.7, L2576-2900: address bits [4:6] XOR bits [7:9]).
#[test]
fn the_128_byte_swizzle() {
    let src = pattern(1024);
    let tmap = json!({"encode": "tiled", "data_type": "u32", "buffer": "src",
        "global_dim": [32, 8], "global_strides": [128], "box_dim": [32, 8], "swizzle": "128B"});
    let copy = "mov.u32 %r20, 0;\n\
        cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd5, {%r20, %r20}], [%r1];";
    let out = run(&load_kernel(copy, 1024, 1024), 1, &[0; 1024], &src, tmap).unwrap();
    for r in 0..8 {
        for c in 0..32 {
            let linear = r * 128 + c * 4;
            let swizzled = linear ^ (((linear >> 7) & 7) << 4);
            assert_eq!(word(&out, swizzled), word(&src, linear), "element ({c}, {r})");
        }
    }
    assert_ne!(out[..128], out[128..256], "rows differ");
}

/// Element strides: box 8 × 4 with elementStrides [1, 2] takes rows y0 and y0 + 2 only
/// (ceil(4 / 2) = 2 of them, §5.5.3.2), 64 bytes.
#[test]
fn element_strides_skip_rows() {
    let src = pattern(256);
    let tmap = json!({"encode": "tiled", "data_type": "f32", "buffer": "src",
        "global_dim": [8, 8], "global_strides": [32], "box_dim": [8, 4], "element_strides": [1, 2]});
    let copy = "mov.u32 %r20, 0;\nmov.u32 %r21, 3;\n\
        cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd5, {%r20, %r21}], [%r1];";
    let out = run(&load_kernel(copy, 64, 64), 1, &[0; 64], &src, tmap).unwrap();
    for r in 0..2 {
        for c in 0..8 {
            assert_eq!(
                word(&out, (r * 8 + c) * 4),
                word(&src, (3 + 2 * r) * 32 + c * 4),
                "({c}, {r})"
            );
        }
    }
}

/// A 3-D store: threads fill the 4 × 2 × 2 f32 box in shared memory, a proxy fence, thread 0
/// stores it at (0, 2, 1) of a 4 × 3 × 2 tensor in `out`: only the row y = 2, z = 1 is inside;
/// everything else of `out` keeps its bytes.
#[test]
fn a_3d_store_clips_out_of_bounds_elements() {
    let body = "setp.lt.u32 %p1, %r4, 16;\n@!%p1 bra SYNC;\nshl.b32 %r10, %r4, 2;\nadd.u32 %r11, %r3, %r10;\n\
        mad.lo.u32 %r12, %r4, 1000, 7;\nst.shared.u32 [%r11], %r12;\nSYNC:\nbar.sync 0;\nfence.proxy.async.shared::cta;\n\
        @!%p7 bra END;\nmov.u32 %r20, 0;\nmov.u32 %r21, 2;\nmov.u32 %r22, 1;\n\
        cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%rd5, {%r20, %r21, %r22}], [%r3];\n\
        cp.async.bulk.commit_group;\ncp.async.bulk.wait_group 0;\nEND:\nret;";
    let init = pattern(96);
    let tmap = json!({"encode": "tiled", "data_type": "f32", "buffer": "out",
        "global_dim": [4, 3, 2], "global_strides": [16, 48], "box_dim": [4, 2, 2]});
    let out = run(body, 32, &init, &[0; 16], tmap).unwrap();
    let mut want = init.clone();
    for s in 0..2 {
        for r in 0..2 {
            for c in 0..4 {
                let (x, y, z) = (c, 2 + r, 1 + s);
                if y < 3 && z < 2 {
                    let k = (s * 2 + r) * 4 + c;
                    want[z * 48 + y * 16 + x * 4..][..4].copy_from_slice(&((k * 1000 + 7) as u32).to_le_bytes());
                }
            }
        }
    }
    assert_eq!(out, want);
    assert_ne!(out, init, "the in-bounds row was written");
}

/// `cp.reduce.async.bulk.tensor .add` on u32: the box's row 3 of a 4 × 4 tensor is inside, row
/// 4 not; each in-bounds element becomes old + new (mod 2^32).
#[test]
fn a_reduce_add_adds_the_in_bounds_elements() {
    let body = "setp.lt.u32 %p1, %r4, 8;\n@!%p1 bra SYNC;\nshl.b32 %r10, %r4, 2;\nadd.u32 %r11, %r3, %r10;\n\
        mad.lo.u32 %r12, %r4, 0x10000001, 0xfffffff0;\nst.shared.u32 [%r11], %r12;\nSYNC:\nbar.sync 0;\n\
        fence.proxy.async.shared::cta;\n@!%p7 bra END;\nmov.u32 %r20, 0;\nmov.u32 %r21, 3;\n\
        cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd5, {%r20, %r21}], [%r3];\n\
        cp.async.bulk.commit_group;\ncp.async.bulk.wait_group 0;\nEND:\nret;";
    let init = pattern(64);
    let tmap = json!({"encode": "tiled", "data_type": "u32", "buffer": "out",
        "global_dim": [4, 4], "global_strides": [16], "box_dim": [4, 2]});
    let out = run(body, 32, &init, &[0; 16], tmap).unwrap();
    for y in 0..4 {
        for x in 0..4 {
            let old = word(&init, y * 16 + x * 4);
            let want = if y == 3 {
                old.wrapping_add((x as u32).wrapping_mul(0x1000_0001).wrapping_add(0xffff_fff0))
            } else {
                old
            };
            assert_eq!(word(&out, y * 16 + x * 4), want, "({x}, {y})");
        }
    }
}

/// Im2col (§5.5.4): a 3-D f32 tensor C × W × N = 4 × 5 × 2, the bounding box along W from -1
/// (lower corner) to W - 1 (upper corner 0), 4 channels per pixel, 8 pixels; coordinates
/// (C 0, W -1, N 0) and the W offset 1. The pixels are the box's positions W = -1..=4 of N = 0
/// then -1, 0 of N = 1, each read at W + 1: the one read at W = 5 is outside and zero.
#[test]
fn an_im2col_load() {
    let src = pattern(160);
    let tmap = json!({"encode": "im2col", "data_type": "f32", "buffer": "src",
        "global_dim": [4, 5, 2], "global_strides": [16, 80],
        "pixel_box_lower_corner": [-1], "pixel_box_upper_corner": [0],
        "channels_per_pixel": 4, "pixels_per_column": 8});
    let copy = "mov.u32 %r20, 0;\nmov.u32 %r21, -1;\nmov.u32 %r22, 0;\nmov.u16 %rs1, 1;\n\
        cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r3], [%rd5, {%r20, %r21, %r22}], [%r1], {%rs1};";
    let out = run(&load_kernel(copy, 128, 128), 1, &[0xee; 128], &src, tmap).unwrap();
    let pixels: Vec<(i64, i64)> = (-1..=4).map(|w| (w, 0)).chain([(-1, 1), (0, 1)]).collect();
    for (k, &(w, n)) in pixels.iter().enumerate() {
        for ch in 0..4 {
            let x = w + 1;
            let want = if (0..5).contains(&x) {
                word(&src, (n * 80 + x * 16 + ch * 4) as usize)
            } else {
                0
            };
            assert_eq!(word(&out, (k * 4 + ch as usize) * 4), want, "pixel {k} channel {ch}");
        }
    }
}

/// The map copied to global memory with plain stores and used there: without the tensormap
/// proxy fences a runtime error at the copy naming the store, with them the copy runs.
#[test]
fn a_map_written_through_the_generic_proxy_needs_the_proxy_fences() {
    let src = pattern(160);
    let tmap = json!({"encode": "tiled", "data_type": "f32", "buffer": "src",
        "global_dim": [6, 5], "global_strides": [32], "box_dim": [4, 4]});
    // `out` holds 64 bytes of results, then the map at 128.
    let with = |fences: &str| {
        let copy = format!(
            "add.u64 %rd9, %rd1, 128;\nmov.u32 %r25, 0;\nMAP:\ncvt.u64.u32 %rd10, %r25;\nadd.u64 %rd11, %rd5, %rd10;\n\
             ld.u64 %rd12, [%rd11];\nadd.u64 %rd13, %rd9, %rd10;\nst.global.u64 [%rd13], %rd12;\n\
             add.u32 %r25, %r25, 8;\nsetp.lt.u32 %p3, %r25, 128;\n@%p3 bra MAP;\n{fences}\
             mov.u32 %r20, 0;\nmov.u32 %r21, 0;\n\
             cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd9, {{%r20, %r21}}], [%r1];"
        );
        load_kernel(&copy, 64, 64)
    };
    // (With neither fence: race_detector.rs's
    // `tensor_map_written_through_the_generic_proxy_used_without_the_fences`.)
    // A release alone is not enough: the reading thread's acquire is missing.
    let e = run(
        &with("fence.proxy.tensormap::generic.release.gpu;\n"),
        1,
        &[0; 256],
        &src,
        tmap.clone(),
    )
    .expect_err("no acquire");
    assert!(e.message.contains("L17280"), "{e}");
    let out = run(
        &with("fence.proxy.tensormap::generic.release.gpu;\nfence.proxy.tensormap::generic.acquire.gpu [%rd9], 128;\n"),
        1,
        &[0; 256],
        &src,
        tmap,
    )
    .unwrap();
    for r in 0..4 {
        for c in 0..4 {
            assert_eq!(word(&out, (r * 4 + c) * 4), word(&src, r * 32 + c * 4));
        }
    }
}

/// The mbarrier's tx-count: the box straddling the edge counts 64 bytes, filled elements
/// included; an expect-tx of only the 16 in-bounds bytes lets the phase complete before the
/// copy has delivered everything, a runtime error naming L18462.
#[test]
fn the_complete_tx_is_the_whole_box() {
    let src = pattern(160);
    let tmap = json!({"encode": "tiled", "data_type": "f32", "buffer": "src",
        "global_dim": [6, 5], "global_strides": [32], "box_dim": [4, 4]});
    let copy = "mov.u32 %r20, 4;\nmov.u32 %r21, 3;\n\
        cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd5, {%r20, %r21}], [%r1];";
    let e = run(&load_kernel(copy, 16, 64), 1, &[0; 64], &src, tmap.clone()).expect_err("tx under-count");
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    assert!(
        e.message.contains("L18462") && e.message.contains("cp.async.bulk.tensor"),
        "{e}"
    );
    // Reading the destination before the wait: the race detector's error.
    let early = "@!%p7 bra END;\nmbarrier.init.shared.b64 [%r1], 1;\nmbarrier.arrive.expect_tx.shared.b64 %rd3, [%r1], 64;\n\
        mov.u32 %r20, 4;\nmov.u32 %r21, 3;\n\
        cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd5, {%r20, %r21}], [%r1];\n\
        ld.shared.u32 %r12, [%r3+8];\nEND:\nret;";
    let e = run(early, 1, &[0; 64], &src, tmap).expect_err("read before completion");
    assert_eq!(e.loc.map(|l| l.0), Some(line_of(early, "ld.shared.u32")), "{e}");
    assert!(
        e.message.contains("the destination of the `cp.async.bulk.tensor`"),
        "{e}"
    );
}

/// `.multicast::cluster` with ctaMask naming the executing CTA only (rank 0) loads as without
/// it; in a cluster of one, a mask naming rank 1 names no CTA (L15008), located.
#[test]
fn multicast_to_the_own_cta_and_a_mask_beyond_the_cluster() {
    let src = pattern(160);
    let tmap = json!({"encode": "tiled", "data_type": "f32", "buffer": "src",
        "global_dim": [6, 5], "global_strides": [32], "box_dim": [4, 4]});
    let copy = |mask: u32| {
        format!(
            "mov.u32 %r20, 1;\nmov.u32 %r21, 0;\nmov.b16 %rs2, {mask};\n\
             cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r3], [%rd5, {{%r20, %r21}}], [%r1], %rs2;"
        )
    };
    let out = run(&load_kernel(&copy(1), 64, 64), 1, &[0; 64], &src, tmap.clone()).unwrap();
    for r in 0..4 {
        for c in 0..4 {
            assert_eq!(word(&out, (r * 4 + c) * 4), word(&src, r * 32 + (1 + c) * 4));
        }
    }
    let body = load_kernel(&copy(3), 64, 64);
    let e = run(&body, 1, &[0; 64], &src, tmap).expect_err("rank 1 is not in the cluster");
    assert_eq!(e.loc.map(|l| l.0), Some(line_of(&body, "cp.async.bulk.tensor")), "{e}");
    assert!(
        e.message.contains("bit 1 of ctaMask") && e.message.contains("L15008"),
        "{e}"
    );
}

/// `cp.async.bulk.prefetch.tensor` checks the map and the coordinates and changes nothing;
/// a `.3d` prefetch on a 2-D map is a runtime error naming L14908.
#[test]
fn a_prefetch_checks_and_changes_nothing() {
    let tmap = json!({"encode": "tiled", "data_type": "f32", "buffer": "src",
        "global_dim": [6, 5], "global_strides": [32], "box_dim": [4, 4]});
    let body = "mov.u32 %r20, 4;\nmov.u32 %r21, 3;\n\
        cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd5, {%r20, %r21}];\nret;";
    let init = pattern(64);
    assert_eq!(run(body, 1, &init, &pattern(160), tmap.clone()).unwrap(), init);
    let body = "mov.u32 %r20, 4;\n\
        cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%rd5, {%r20, %r20, %r20}];\nret;";
    let e = run(body, 1, &init, &pattern(160), tmap).expect_err("rank");
    assert_eq!(e.loc.map(|l| l.0), Some(line_of(body, "prefetch.tensor")), "{e}");
    assert!(e.message.contains("L14908"), "{e}");
}

/// The race detector on a tensor store's source: a write to the box in shared memory before
/// `cp.async.bulk.wait_group.read` (L15362) names the store; after it the write is fine.
#[test]
fn the_store_source_is_not_reused_before_wait_group_read() {
    let tmap = json!({"encode": "tiled", "data_type": "u32", "buffer": "out",
        "global_dim": [4, 4], "global_strides": [16], "box_dim": [4, 2]});
    let body = |wait: &str| {
        format!(
            "@!%p7 bra END;\nmov.u32 %r20, 0;\n\
             cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd5, {{%r20, %r20}}], [%r3];\n\
             cp.async.bulk.commit_group;\n{wait}st.shared.u32 [%r3+4], 5;\nEND:\nret;"
        )
    };
    let racy = body("");
    let e = run(&racy, 1, &[0; 64], &[0; 16], tmap.clone()).expect_err("source reuse");
    assert_eq!(e.loc.map(|l| l.0), Some(line_of(&racy, "st.shared.u32 [%r3+4]")), "{e}");
    assert!(
        e.message.contains("the source of the `cp.async.bulk.tensor`") && e.message.contains("L15362"),
        "{e}"
    );
    assert!(run(&body("cp.async.bulk.wait_group.read 0;\n"), 1, &[0; 64], &[0; 16], tmap).is_ok());
}

/// `cp.reduce.async.bulk.tensor .inc` on an f32 map: not among L15131-15140's combinations.
#[test]
fn a_reduction_the_table_does_not_list_is_refused() {
    let tmap = json!({"encode": "tiled", "data_type": "f32", "buffer": "out",
        "global_dim": [4, 4], "global_strides": [16], "box_dim": [4, 2]});
    let body = "mov.u32 %r20, 0;\n\
        cp.reduce.async.bulk.tensor.2d.global.shared::cta.inc.tile.bulk_group [%rd5, {%r20, %r20}], [%r3];\nret;";
    let e = run(body, 1, &[0; 64], &[0; 16], tmap).expect_err("inc on f32");
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    assert_eq!(e.loc.map(|l| l.0), Some(line_of(body, "cp.reduce")), "{e}");
    assert!(e.message.contains("L15131-15140") && e.message.contains(".f32"), "{e}");
}

/// A 128-byte-swizzled store: shared word at byte `b` holds `b`; stored as a 32 × 8 u32 box,
/// global element (c, r) gets the shared word at the swizzled address of its linear offset.
#[test]
fn a_swizzled_store_unswizzles() {
    let body = "mov.u32 %r10, 0;\nFILL:\nadd.u32 %r11, %r3, %r10;\nst.shared.u32 [%r11], %r10;\n\
        add.u32 %r10, %r10, 4;\nsetp.lt.u32 %p2, %r10, 1024;\n@%p2 bra FILL;\nfence.proxy.async.shared::cta;\n\
        mov.u32 %r20, 0;\n\
        cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd5, {%r20, %r20}], [%r3];\n\
        cp.async.bulk.commit_group;\ncp.async.bulk.wait_group 0;\nret;";
    let tmap = json!({"encode": "tiled", "data_type": "u32", "buffer": "out",
        "global_dim": [32, 8], "global_strides": [128], "box_dim": [32, 8], "swizzle": "128B"});
    let out = run(body, 1, &[0; 1024], &[0; 16], tmap).unwrap();
    for r in 0..8 {
        for c in 0..32 {
            let linear = r * 128 + c * 4;
            let swizzled = linear ^ (((linear >> 7) & 7) << 4);
            assert_eq!(word(&out, linear), swizzled as u32, "element ({c}, {r})");
        }
    }
}

/// A 5-D f32 box 4 × 1 × 2 × 1 × 2 at (0, 1, 1, 0, 1) of a 4 × 2 × 2 × 2 × 2 tensor: index 2
/// along dimensions 2 and 4 is outside (zero).
#[test]
fn a_5d_tile_load() {
    let src = pattern(256);
    let tmap = json!({"encode": "tiled", "data_type": "f32", "buffer": "src",
        "global_dim": [4, 2, 2, 2, 2], "global_strides": [16, 32, 64, 128], "box_dim": [4, 1, 2, 1, 2]});
    let copy = "mov.u32 %r20, 0;\nmov.u32 %r21, 1;\n\
        cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd5, {%r20, %r21, %r21, %r20, %r21}], [%r1];";
    let out = run(&load_kernel(copy, 64, 64), 1, &[0; 64], &src, tmap).unwrap();
    let mut k = 0;
    for d4 in 1..3 {
        for d2 in 1..3 {
            for d0 in 0..4 {
                let want = if d2 < 2 && d4 < 2 {
                    word(&src, d0 * 4 + 16 + d2 * 32 + d4 * 128)
                } else {
                    0
                };
                assert_eq!(word(&out, k * 4), want, "({d0}, 1, {d2}, 0, {d4})");
                k += 1;
            }
        }
    }
}

/// An `.im2col_no_offs` store: C × W × N = 4 × 5 × 2, corners 0/0 (the box is the tensor,
/// L14833-14837), 8 pixels of 4 channels from (C 0, W 1, N 0): W = 1..=4 of N = 0, then
/// W = 0..=3 of N = 1; pixel k's channels are shared row k.
#[test]
fn an_im2col_no_offs_store() {
    let body = "mov.u32 %r10, 0;\nFILL:\nadd.u32 %r11, %r3, %r10;\nmad.lo.u32 %r12, %r10, 1000, 7;\n\
        st.shared.u32 [%r11], %r12;\nadd.u32 %r10, %r10, 4;\nsetp.lt.u32 %p2, %r10, 128;\n@%p2 bra FILL;\n\
        fence.proxy.async.shared::cta;\nmov.u32 %r20, 0;\nmov.u32 %r21, 1;\n\
        cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%rd5, {%r20, %r21, %r20}], [%r3];\n\
        cp.async.bulk.commit_group;\ncp.async.bulk.wait_group 0;\nret;";
    let tmap = json!({"encode": "im2col", "data_type": "u32", "buffer": "out",
        "global_dim": [4, 5, 2], "global_strides": [16, 80],
        "pixel_box_lower_corner": [0], "pixel_box_upper_corner": [0],
        "channels_per_pixel": 4, "pixels_per_column": 8});
    let init = pattern(160);
    let out = run(body, 1, &init, &[0; 16], tmap).unwrap();
    let mut want = init.clone();
    let pixels: Vec<(usize, usize)> = (1..=4).map(|w| (w, 0)).chain((0..=3).map(|w| (w, 1))).collect();
    for (k, &(w, n)) in pixels.iter().enumerate() {
        for ch in 0..4 {
            let v = ((k * 4 + ch) * 4 * 1000 + 7) as u32;
            want[n * 80 + w * 16 + ch * 4..][..4].copy_from_slice(&v.to_le_bytes());
        }
    }
    assert_eq!(out, want);
}
