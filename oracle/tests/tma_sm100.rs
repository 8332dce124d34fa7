//! The sm_100 tensor-copy forms on small kernels whose tensor map is a launch `tensor_map`
//! parameter: `.tile::gather4`, `.tile::scatter4`, `.im2col::w`, `.im2col::w::128` (with an
//! `im2col_wide` map, the driver's `cuTensorMapEncodeIm2colWide`), their prefetches, and
//! `.cta_group`. Each test computes the bytes it expects with plain loops over the rows or
//! pixels (the tensor's layout, the 64-byte swizzle written out), never with `spec::tma`.

use oracle::error::{Error, ErrorKind};
use serde_json::{json, Value};

#[path = "common/tma.rs"]
mod tma_common;
use tma_common::{load_kernel, pattern, word, Launch};

const TARGET: &str = "sm_100a";

/// The line of `needle` in the kernel text.
fn line_of(body: &str, needle: &str) -> u32 {
    tma_common::line_of(TARGET, body, needle)
}

/// Runs `body` with `threads` threads of one CTA (or a cluster of `ctas` CTAs) over buffers
/// `out` and `src` and the tensor map `tmap`; the bytes of `out` after the run.
fn run_in(body: &str, ctas: u32, threads: u32, out: &[u8], src: &[u8], tmap: Value) -> Result<Vec<u8>, Error> {
    Launch {
        target: TARGET,
        ctas,
        threads,
        grammar: "ptxas",
    }
    .run(body, out, src, tmap)
}

fn run(body: &str, threads: u32, out: &[u8], src: &[u8], tmap: Value) -> Result<Vec<u8>, Error> {
    run_in(body, 1, threads, out, src, tmap)
}

/// An 8 × 12 f32 matrix in `src` (rows of 32 bytes), rows 4 elements wide.
fn rows_map(buffer: &str) -> Value {
    json!({"encode": "tiled", "data_type": "f32", "buffer": buffer,
        "global_dim": [8, 12], "global_strides": [32], "box_dim": [4, 1]})
}

/// `.tile::gather4`: rows 2, 11, 12 (outside: zeros) and 0 from column 5 (columns 8 and 9
/// outside); the box of 4 × 4 f32 is 64 bytes of complete-tx. Both destination forms.
#[test]
fn gather4_loads_four_rows() {
    let src = pattern(8 * 12 * 4);
    let rows = [2usize, 11, 12, 0];
    for form in [
        "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes",
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes.cta_group::1",
    ] {
        let copy = format!(
            "mov.u32 %r20, 5;\nmov.u32 %r21, 2;\nmov.u32 %r22, 11;\nmov.u32 %r23, 12;\nmov.u32 %r24, 0;\n\
             {form} [%r3], [%rd5, {{%r20, %r21, %r22, %r23, %r24}}], [%r1];"
        );
        let out = run(&load_kernel(&copy, 64, 64), 1, &[0; 64], &src, rows_map("src")).unwrap();
        for (k, &y) in rows.iter().enumerate() {
            for c in 0..4 {
                let x = 5 + c;
                let want = if x < 8 && y < 12 { word(&src, y * 32 + x * 4) } else { 0 };
                assert_eq!(word(&out, (k * 4 + c) * 4), want, "{form}: row {k} element {c}");
            }
        }
    }
}

/// `.tile::scatter4`: the 4 × 4 u32 box in shared memory (word k holds 1000k + 7) goes to rows
/// 1, 9, 14 (outside: not written) and 3 from column 2; every other byte of `out` keeps its
/// value.
#[test]
fn scatter4_stores_four_rows() {
    let body = "setp.lt.u32 %p1, %r4, 16;\n@!%p1 bra SYNC;\nshl.b32 %r10, %r4, 2;\nadd.u32 %r11, %r3, %r10;\n\
        mad.lo.u32 %r12, %r4, 1000, 7;\nst.shared.u32 [%r11], %r12;\nSYNC:\nbar.sync 0;\nfence.proxy.async.shared::cta;\n\
        @!%p7 bra END;\nmov.u32 %r20, 2;\nmov.u32 %r21, 1;\nmov.u32 %r22, 9;\nmov.u32 %r23, 14;\nmov.u32 %r24, 3;\n\
        cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd5, {%r20, %r21, %r22, %r23, %r24}], [%r3];\n\
        cp.async.bulk.commit_group;\ncp.async.bulk.wait_group 0;\nEND:\nret;";
    let init = pattern(8 * 12 * 4);
    let out = run(body, 32, &init, &[0; 16], rows_map("out")).unwrap();
    let mut want = init.clone();
    for (k, y) in [1usize, 9, 14, 3].into_iter().enumerate() {
        for c in 0..4 {
            let x = 2 + c;
            if y < 12 {
                want[y * 32 + x * 4..][..4].copy_from_slice(&((((k * 4 + c) * 1000) + 7) as u32).to_le_bytes());
            }
        }
    }
    assert_eq!(out, want);
}

/// The 64-byte swizzle of a shared byte offset from a 1024-byte-aligned base: the 16-byte
/// chunk bits [4:5] XOR bits [7:8] (§5.5.7).
fn swizzle64(o: usize) -> usize {
    o ^ (((o >> 7) & 3) << 4)
}

/// An f32 tensor of C 4, W 5, N 2 (pixels of 16 bytes, images of 80) with an im2col-wide map:
/// box W 0..=4, 4 channels per pixel, 64-byte swizzle.
fn wide_map(mode: &str, ppc: Option<u32>) -> Value {
    let mut m = json!({"encode": "im2col_wide", "data_type": "f32", "buffer": "src",
        "global_dim": [4, 5, 2], "global_strides": [16, 80], "swizzle": "64B",
        "pixel_box_lower_corner_width": 0, "pixel_box_upper_corner_width": 0,
        "channels_per_pixel": 4, "mode": mode});
    if let Some(p) = ppc {
        m["pixels_per_column"] = json!(p);
    }
    m
}

/// `.im2col::w`: from W 3 of image 0, six pixels wrap into image 1 (W 3, 4, then 0..=3 of
/// N 1); wHalo 1 adds W 4 of image 1 after them. Seven pixels of 16 bytes: 112 bytes.
#[test]
fn im2col_w_loads_the_row_and_its_halo() {
    let src = pattern(160);
    let copy = "mov.u32 %r20, 0;\nmov.u32 %r21, 3;\nmov.u32 %r22, 0;\nmov.u16 %rs1, 1;\nmov.u16 %rs2, 0;\n\
        cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [%r3], [%rd5, {%r20, %r21, %r22}], [%r1], {%rs1, %rs2};";
    let out = run(&load_kernel(copy, 112, 128), 1, &[0; 128], &src, wide_map("w", Some(6))).unwrap();
    let pixels = [(3, 0), (4, 0), (0, 1), (1, 1), (2, 1), (3, 1), (4, 1)];
    for (k, &(w, n)) in pixels.iter().enumerate() {
        for ch in 0..4 {
            let at = swizzle64(k * 16 + ch * 4);
            assert_eq!(
                word(&out, at),
                word(&src, n * 80 + w * 16 + ch * 4),
                "pixel {k} channel {ch}"
            );
        }
    }
    // Byte 112 on is not the copy's.
    assert_eq!(word(&out, swizzle64(112)), 0xeeee_eeee);
}

/// `.im2col::w::128`: 128 pixels from W 0 of image 0 through a 2 × 40 × ... tensor, wHalo 2
/// after every 32; wOffset 1 shifts the box and the start by one (L2482-2486). The expected
/// pixel list is built by stepping the main pixels and appending the two W positions after
/// each 32nd; positions past W 39 of an image are zeros.
#[test]
fn im2col_w128_halo_every_32_pixels_and_w_offset() {
    // C 4 f32, W 40, N 4: pixels 16 bytes, images 640.
    let src = pattern(4 * 640);
    let tmap = json!({"encode": "im2col_wide", "data_type": "f32", "buffer": "src",
        "global_dim": [4, 40, 4], "global_strides": [16, 640], "swizzle": "128B",
        "pixel_box_lower_corner_width": 0, "pixel_box_upper_corner_width": -1,
        "channels_per_pixel": 4, "mode": "w128"});
    let copy = "mov.u32 %r20, 0;\nmov.u32 %r21, 0;\nmov.u32 %r22, 0;\nmov.u16 %rs1, 2;\nmov.u16 %rs2, 1;\n\
        cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes.cta_group::2 [%r3], [%rd5, {%r20, %r21, %r22}], [%r1], {%rs1, %rs2};";
    let bytes = (128 + 4 * 2) * 16;
    let out = run(
        &load_kernel(copy, bytes, bytes),
        1,
        &vec![0; bytes as usize],
        &src,
        tmap,
    )
    .unwrap();
    // The box along W with the offset: 0 + 1 ..= 39 - 1 + 1, i.e. 1..=39; start W 0 + 1.
    let mut want: Vec<(usize, usize)> = Vec::new();
    let (mut w, mut n) = (1, 0);
    for k in 1..=128 {
        want.push((w, n));
        if k % 32 == 0 {
            want.push((w + 1, n));
            want.push((w + 2, n));
        }
        w += 1;
        if w > 39 {
            w = 1;
            n += 1;
        }
    }
    assert_eq!(want.len(), 136);
    for (k, &(w, n)) in want.iter().enumerate() {
        for ch in 0..4 {
            // The 128-byte swizzle: chunk bits [4:6] XOR bits [7:9].
            let o = k * 16 + ch * 4;
            let at = o ^ (((o >> 7) & 7) << 4);
            let expect = if w < 40 {
                word(&src, n * 640 + w * 16 + ch * 4)
            } else {
                0
            };
            assert_eq!(word(&out, at), expect, "pixel {k} (W {w}, N {n}) channel {ch}");
        }
    }
}

/// The im2colInfo rules (L15004, L15006) and the first pixel right of the box (L2421) are
/// located runtime errors; the wrong number of coordinates is a type error (L14916-14926).
#[test]
fn the_sm100_modes_rules() {
    let src = pattern(160);
    let wide = |halo: u32, off: u32, w: i32| {
        format!(
            "mov.u32 %r20, 0;\nmov.u32 %r21, {w};\nmov.u32 %r22, 0;\nmov.u16 %rs1, {halo};\nmov.u16 %rs2, {off};\n\
             cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [%r3], [%rd5, {{%r20, %r21, %r22}}], [%r1], {{%rs1, %rs2}};"
        )
    };
    for (halo, off, w, rule) in [(512, 0, 0, "L15004"), (0, 32, 0, "L15006"), (0, 0, 5, "L2421")] {
        let body = load_kernel(&wide(halo, off, w), 16, 16);
        let e = run(&body, 1, &[0; 16], &src, wide_map("w", Some(1))).expect_err(rule);
        assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
        assert_eq!(e.loc.map(|l| l.0), Some(line_of(&body, "im2col::w")), "{e}");
        assert!(e.message.contains(rule), "{e}");
    }
    // `.im2col::w::128` on a map encoded for W.
    let body = load_kernel(&wide(0, 0, 0).replace("im2col::w.", "im2col::w::128."), 16, 16);
    let e = run(&body, 1, &[0; 16], &src, wide_map("w", Some(1))).expect_err("mode");
    assert!(e.message.contains("W128") || e.message.contains("mode"), "{e}");
    // gather4 on a map whose box is two rows tall (L2216).
    let mut tall = rows_map("src");
    tall["box_dim"] = json!([4, 2]);
    let copy = "mov.u32 %r20, 0;\n\
        cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [%r3], [%rd5, {%r20, %r20, %r20, %r20, %r20}], [%r1];";
    let e = run(&load_kernel(copy, 64, 64), 1, &[0; 64], &pattern(384), tall).expect_err("box");
    assert!(e.message.contains("L2216"), "{e}");
    // Four coordinates for gather4: a type error.
    let copy = "mov.u32 %r20, 0;\n\
        cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [%r3], [%rd5, {%r20, %r20, %r20, %r20}], [%r1];";
    let e = run(&load_kernel(copy, 64, 64), 1, &[0; 64], &pattern(384), rows_map("src")).expect_err("count");
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
    assert!(
        e.message.contains("5 registers, not 4") && e.message.contains("L14916-14926"),
        "{e}"
    );
}

/// The prefetches of the new modes check the map and operands and change nothing.
#[test]
fn prefetches_of_the_sm100_modes() {
    let init = pattern(64);
    let body = "mov.u32 %r20, 0;\n\
        cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [%rd5, {%r20, %r20, %r20, %r20, %r20}];\nret;";
    assert_eq!(run(body, 1, &init, &pattern(384), rows_map("src")).unwrap(), init);
    let body = "mov.u32 %r20, 0;\nmov.u16 %rs1, 3;\n\
        cp.async.bulk.prefetch.tensor.3d.L2.global.im2col::w [%rd5, {%r20, %r20, %r20}], {%rs1, %rs1};\nret;";
    assert_eq!(
        run(body, 1, &init, &pattern(160), wide_map("w", Some(4))).unwrap(),
        init
    );
    let body = "mov.u32 %r20, 0;\nmov.u16 %rs1, 40;\n\
        cp.async.bulk.prefetch.tensor.3d.L2.global.im2col::w::128 [%rd5, {%r20, %r20, %r20}], {%rs1, %rs1};\nret;";
    let e = run(body, 1, &init, &pattern(160), wide_map("w128", None)).expect_err("wHalo 40");
    assert!(e.message.contains("L15004"), "{e}");
}

/// `.cta_group` in a cluster of two CTAs (L14968): CTA 0's load with mbar in CTA 1 (`mapa`) is
/// refused under `.cta_group::1`; under `.cta_group::2` the peer's mbarrier is signalled: CTA 1
/// waits for the 16 bytes of its phase, a cluster barrier later CTA 0 reads the box. The own
/// mbarrier works with `::2` too.
#[test]
fn cta_group_and_the_peer_mbarrier() {
    let src = pattern(384);
    let copy = |cg: &str, bar: &str| {
        format!(
            "@!%p7 bra END;\nmov.u32 %r9, %cluster_ctarank;\nsetp.ne.u32 %p3, %r9, 0;\n@%p3 bra END;\n\
             mov.u32 %r20, 0;\nmov.u32 %r13, 1;\nmapa.shared::cluster.u32 %r14, %r1, %r13;\n\
             cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.{cg} [%r3], [%rd5, {{%r20, %r20}}], [{bar}];\n\
             END:\nbarrier.cluster.arrive;\nbarrier.cluster.wait;\nret;"
        )
    };
    let map = rows_map("src");
    let body = copy("cta_group::1", "%r14");
    let e = run_in(&body, 2, 32, &[0; 16], &src, map.clone()).expect_err("cta_group::1");
    assert_eq!(e.loc.map(|l| l.0), Some(line_of(&body, "cp.async.bulk.tensor")), "{e}");
    assert!(
        e.message.contains("`.cta_group::1`") && e.message.contains("L14968"),
        "{e}"
    );
    // Thread 0 of CTA 1 (%p4) arms its mbarrier for 16 bytes; thread 0 of CTA 0 (%p5) loads
    // row 1, columns 1-4, into its own `sh`, signalling CTA 1's mbarrier.
    let peer = "mov.u32 %r9, %cluster_ctarank;\nsetp.eq.u32 %p3, %r9, 1;\nand.pred %p4, %p3, %p7;\n\
        setp.eq.u32 %p3, %r9, 0;\nand.pred %p5, %p3, %p7;\n\
        @%p4 mbarrier.init.shared.b64 [%r1], 1;\n@%p4 mbarrier.arrive.expect_tx.shared.b64 %rd3, [%r1], 16;\n\
        barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
        mov.u32 %r20, 1;\nmov.u32 %r13, 1;\nmapa.shared::cluster.u32 %r14, %r1, %r13;\n\
        @%p5 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [%r3], [%rd5, {%r20, %r20}], [%r14];\n\
        @!%p4 bra SYNC;\nmov.u32 %r6, 0;\nWAIT:\nmbarrier.try_wait.parity.shared.b64 %p1, [%r1], %r6;\n@!%p1 bra WAIT;\n\
        SYNC:\nbarrier.cluster.arrive;\nbarrier.cluster.wait;\n@!%p5 bra END;\n\
        ld.shared.u32 %r12, [%r3];\nst.global.u32 [%rd1], %r12;\nld.shared.u32 %r12, [%r3+4];\nst.global.u32 [%rd1+4], %r12;\n\
        ld.shared.u32 %r12, [%r3+8];\nst.global.u32 [%rd1+8], %r12;\nld.shared.u32 %r12, [%r3+12];\nst.global.u32 [%rd1+12], %r12;\n\
        END:\nret;";
    let out = run_in(peer, 2, 32, &[0; 16], &src, map.clone()).unwrap();
    for c in 0..4 {
        assert_eq!(word(&out, c * 4), word(&src, 32 + (1 + c) * 4), "column {}", 1 + c);
    }
    // The own mbarrier under `.cta_group::2`: the load completes.
    let own = "mov.u32 %r20, 1;\n\
        cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [%r3], [%rd5, {%r20, %r20}], [%r1];";
    let out = run(&load_kernel(own, 16, 16), 1, &[0; 16], &src, map).unwrap();
    for c in 0..4 {
        assert_eq!(word(&out, c * 4), word(&src, 32 + (1 + c) * 4));
    }
}
