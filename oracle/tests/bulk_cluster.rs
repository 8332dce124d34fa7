//! The bulk asynchronous operations across the CTAs of a cluster (§9.7.9.25.4, §9.7.9.12,
//! §9.7.13.7): `cp.async.bulk` from one CTA's shared memory and from global memory into another
//! CTA's, `.multicast::cluster` to masks of 2 and 4 CTAs (and a tensor copy's), `cp.reduce.async.bulk` into another CTA, `st.async` and `red.async`
//! to another CTA, each against bytes this file computes itself; and the race detector on the
//! cross-CTA cases, each a located runtime error naming the thread, the instruction and the
//! manual's rule.

use oracle::error::{Error, ErrorKind};
use oracle::launch::{self, LaunchFile};

const HEADER: &str = ".version 8.7\n.target sm_90a\n.address_size 64\n";

/// A barrier and two 256-byte shared buffers in every CTA (`sh` aligned for a tensor copy).
const DATA: &str = ".shared .align 8 .b64 bar;\n.shared .align 128 .b8 sh[256];\n.shared .align 16 .b8 sh2[256];\n";

/// The kernel: every CTA's thread 0 initializes `bar` (count 1), the initialization is fenced
/// for the cluster, a cluster barrier, and then only thread 0 of each CTA runs `body`, with
/// `out` in %rd1, `src` in %rd2, the generic address of the `tmap` parameter (the tensor map
/// [`TMAP`]) in %rd9, %cluster_ctarank in %r2, `sh`/`sh2`/`bar` in %r10/%r11/%r12,
/// and the `.shared::cluster` addresses of `sh`, `bar` and `sh2` of the next CTA (rank + 1
/// modulo the cluster's size) in %r15, %r16 and %r17.
fn kernel(body: &str) -> String {
    format!(
        "{HEADER}{DATA}.visible .entry k(.param .u64 out, .param .u64 src, .param .align 64 .b8 tmap[128])\n{{\n\
         .reg .pred %p<8>;\n.reg .b16 %rs<8>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<16>;\n\
         ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [src];\nmov.u64 %rd9, tmap;\ncvta.param.u64 %rd9, %rd9;\n\
         mov.u32 %r1, %tid.x;\nmov.u32 %r2, %cluster_ctarank;\nmov.u32 %r3, %cluster_nctarank;\n\
         mov.u32 %r10, sh;\nmov.u32 %r11, sh2;\nmov.u32 %r12, bar;\nsetp.eq.u32 %p7, %r1, 0;\n\
         mov.u32 %r5, 1;\n@%p7 mbarrier.init.shared.b64 [%r12], %r5;\n\
         fence.mbarrier_init.release.cluster;\nbarrier.cluster.arrive;\nbarrier.cluster.wait;\n@!%p7 ret;\n\
         add.u32 %r13, %r2, 1;\nrem.u32 %r13, %r13, %r3;\n\
         mapa.shared::cluster.u32 %r15, %r10, %r13;\nmapa.shared::cluster.u32 %r16, %r12, %r13;\n\
         mapa.shared::cluster.u32 %r17, %r11, %r13;\n\
         {body}\n}}\n"
    )
}

/// The tensor map of every launch: `src` as a 2-D tensor of f32, 6 × 5 elements in rows of 32
/// bytes, boxes of 4 × 4.
const TMAP: &str = r#"{"encode": "tiled", "data_type": "f32", "buffer": "src",
    "global_dim": [6, 5], "global_strides": [32], "box_dim": [4, 4]}"#;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// `n` bytes of a fixed pattern: byte k is (37k + 11) mod 256.
fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|k| (37 * k + 11) as u8).collect()
}

/// Runs `body` in one cluster of `n` CTAs of 32 threads over `out` (1024 zero bytes) and `src`
/// ([`pattern`]); the bytes of `out` after the run.
fn run(body: &str, n: u32) -> Result<Vec<u8>, Error> {
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [n, 1, 1], "block": [32, 1, 1], "cluster": [n, 1, 1],
        "buffers": [{"name": "out", "hex": hex(&[0; 1024])}, {"name": "src", "hex": hex(&pattern(1024))}],
        "params": [{"buffer": "out"}, {"buffer": "src"}, {"tensor_map": serde_json::from_str::<serde_json::Value>(TMAP).unwrap()}],
        "limits": {"steps": 50_000_000, "stack": 1024},
    }))
    .unwrap();
    let (b, _) = launch::run(&l, &kernel(body))?;
    Ok(b.iter().find(|(n, _)| n == "out").unwrap().1.clone())
}

/// The line of `needle` in the kernel text.
fn line_of(body: &str, needle: &str) -> u32 {
    kernel(body).lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
}

/// Asserts a runtime error at the line of `at` whose message names every one of `parts`.
fn assert_fault(body: &str, n: u32, at: &str, parts: &[&str]) {
    let e = run(body, n).expect_err("the error must be reported");
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    assert_eq!(e.loc.map(|l| l.0), Some(line_of(body, at)), "{e}");
    for p in parts {
        assert!(e.message.contains(p), "`{p}` missing from: {e}");
    }
}

/// 64 bytes of `src` at byte offset 64·rank + `at` into the shared buffer at register `buf`
/// (generic stores), then `fence.proxy.async` (the bulk operations read it through the async
/// proxy, L14239-14241).
fn fill(buf: &str, at: u32) -> String {
    let mut s = format!("mul.wide.u32 %rd5, %r2, 64;\nadd.u64 %rd5, %rd5, %rd2;\nadd.u64 %rd5, %rd5, {at};\n");
    for k in 0..4 {
        s.push_str(&format!(
            "ld.global.v4.u32 {{%r20, %r21, %r22, %r23}}, [%rd5+{}];\nst.shared.v4.u32 [{buf}+{}], {{%r20, %r21, %r22, %r23}};\n",
            16 * k,
            16 * k
        ));
    }
    s.push_str("fence.proxy.async.shared::cta;\n");
    s
}

/// The CTA's own `bar`: an arrive with expect-tx `bytes`, then a wait for phase 0.
fn await_bytes(bytes: u32) -> String {
    format!(
        "mbarrier.arrive.expect_tx.shared.b64 %rd6, [%r12], {bytes};\nmov.u32 %r9, 0;\n\
         WAIT:\nmbarrier.try_wait.parity.shared.b64 %p1, [%r12], %r9;\n@!%p1 bra WAIT;\n"
    )
}

/// Stores the CTA's `sh[0..64]` to out[64·rank..], then returns.
const DUMP: &str = "mul.wide.u32 %rd7, %r2, 64;\nadd.u64 %rd7, %rd7, %rd1;\n\
    ld.shared.v4.u32 {%r20, %r21, %r22, %r23}, [%r10];\nst.global.v4.u32 [%rd7], {%r20, %r21, %r22, %r23};\n\
    ld.shared.v4.u32 {%r20, %r21, %r22, %r23}, [%r10+16];\nst.global.v4.u32 [%rd7+16], {%r20, %r21, %r22, %r23};\n\
    ld.shared.v4.u32 {%r20, %r21, %r22, %r23}, [%r10+32];\nst.global.v4.u32 [%rd7+32], {%r20, %r21, %r22, %r23};\n\
    ld.shared.v4.u32 {%r20, %r21, %r22, %r23}, [%r10+48];\nst.global.v4.u32 [%rd7+48], {%r20, %r21, %r22, %r23};\n\
    DONE:\nret;";

fn word(b: &[u8], k: usize) -> u32 {
    u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap())
}

// ---- the operations ----

/// Each CTA of a cluster of 4 pushes its `sh2` (64 bytes of `src` at 64·rank) into the next
/// CTA's `sh` with `cp.async.bulk.shared::cluster.shared::cta` (L14487), completing on the next
/// CTA's `bar`; each CTA waits on its own and dumps `sh`: CTA r holds CTA r-1's bytes.
#[test]
fn shared_cta_to_another_ctas_shared_memory() {
    let body = format!(
        "{}cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r15], [%r11], 64, [%r16];\n{}{DUMP}",
        fill("%r11", 0),
        await_bytes(64)
    );
    let out = run(&body, 4).unwrap();
    let src = pattern(1024);
    for r in 0..4 {
        let from = (r + 3) % 4;
        assert_eq!(&out[64 * r..64 * r + 64], &src[64 * from..64 * from + 64], "CTA {r}");
    }
}

/// `cp.async.bulk.shared::cluster.global` into another CTA without multicast: each CTA of a
/// cluster of 2 copies 64 bytes of `src` at 64·rank into the peer's `sh`, completing on the
/// peer's `bar`; CTA r holds the peer's slice.
#[test]
fn global_to_another_ctas_shared_memory() {
    let body = format!(
        "mul.wide.u32 %rd8, %r2, 64;\nadd.u64 %rd8, %rd8, %rd2;\n\
         cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r15], [%rd8], 64, [%r16];\n{}{DUMP}",
        await_bytes(64)
    );
    let out = run(&body, 2).unwrap();
    let src = pattern(1024);
    assert_eq!(&out[..64], &src[64..128]);
    assert_eq!(&out[64..128], &src[..64]);
}

/// Rank 0 multicasts 64 bytes of `src` to the CTAs of `mask` (a cluster of 4): each of them
/// waits on its `bar` (the complete-tx goes to the same offset in each, L14533) and holds the
/// bytes; the others' `sh` stays zero.
fn multicast(mask: u32) {
    let body = format!(
        "setp.ne.u32 %p2, %r2, 0;\n@%p2 bra TARGET;\nmov.u16 %rs1, {mask};\n\
         cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r10], [%rd2], 64, [%r12], %rs1;\n\
         TARGET:\nshr.u32 %r24, {mask}, %r2;\nand.b32 %r24, %r24, 1;\nsetp.eq.u32 %p3, %r24, 0;\n@%p3 bra DONE;\n{}{DUMP}",
        await_bytes(64)
    );
    let out = run(&body, 4).unwrap();
    let src = pattern(64);
    for r in 0..4 {
        let want = if mask >> r & 1 != 0 { src.clone() } else { vec![0; 64] };
        assert_eq!(&out[64 * r..64 * r + 64], &want[..], "CTA {r} of mask {mask:#b}");
    }
}

#[test]
fn multicast_to_two_ctas_not_the_issuer() {
    multicast(0b1010);
}

#[test]
fn multicast_to_all_four_ctas() {
    multicast(0b1111);
}

/// Each CTA of a cluster of 2 multicasts its half of a 64-byte tile into both CTAs at the
/// same offset (as corpus/ptx/nvrtc/ws_multicast does): each CTA's `bar` counts the two
/// halves, one from the peer.
#[test]
fn two_ctas_multicast_one_half_each() {
    let body = format!(
        "mul.lo.u32 %r24, %r2, 32;\nadd.u32 %r25, %r10, %r24;\ncvt.u64.u32 %rd8, %r24;\nadd.u64 %rd8, %rd8, %rd2;\n\
         mov.u16 %rs1, 3;\n\
         cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r25], [%rd8], 32, [%r12], %rs1;\n\
         {}{DUMP}",
        await_bytes(64)
    );
    let out = run(&body, 2).unwrap();
    let src = pattern(64);
    assert_eq!(&out[..64], &src[..]);
    assert_eq!(&out[64..128], &src[..]);
}

/// Rank 0 loads the 4 × 4 box at (1, 0) of [`TMAP`] with `cp.async.bulk.tensor`'s
/// `.multicast::cluster` into both CTAs of a cluster of 2 (L15008): each holds element (r, c)
/// of the box at word 4r + c, the f32 at byte 32r + 4(1 + c) of `src`.
#[test]
fn tensor_multicast_to_another_cta() {
    let body = format!(
        "setp.ne.u32 %p2, %r2, 0;\n@%p2 bra TARGET;\nmov.u32 %r20, 1;\nmov.u32 %r21, 0;\nmov.u16 %rs1, 3;\n\
         cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r10], [%rd9, {{%r20, %r21}}], [%r12], %rs1;\n\
         TARGET:\n{}{DUMP}",
        await_bytes(64)
    );
    let out = run(&body, 2).unwrap();
    let src = pattern(1024);
    for cta in 0..2 {
        for r in 0..4 {
            for c in 0..4 {
                let at = 32 * r + 4 * (1 + c);
                assert_eq!(
                    word(&out[64 * cta..], 4 * r + c),
                    word(&src[at..], 0),
                    "CTA {cta} ({r}, {c})"
                );
            }
        }
    }
}

/// `cp.reduce.async.bulk.shared::cluster.shared::cta...add.u32` into the next CTA of a
/// cluster of 2: each CTA first sets its `sh` word k to 1000·rank + k, then adds its `sh2`
/// (`src` at 64·rank) into the peer's `sh`; after its wait, word k of CTA r is
/// 1000·r + k + word k of the peer's `src` slice (wrapping).
#[test]
fn reduce_into_another_ctas_shared_memory() {
    let mut set = String::from("mul.lo.u32 %r26, %r2, 1000;\n");
    for k in 0..16 {
        set.push_str(&format!(
            "add.u32 %r27, %r26, {k};\nst.shared.u32 [%r10+{}], %r27;\n",
            4 * k
        ));
    }
    // The stores (and the proxy fence of `fill`) come before a second cluster barrier, so the
    // peer's reduction is issued after them (threads 1-31 have returned: they left the barrier,
    // L16915).
    let body = format!(
        "{set}{}barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
         cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%r15], [%r11], 64, [%r16];\n{}{DUMP}",
        fill("%r11", 0),
        await_bytes(64)
    );
    let out = run(&body, 2).unwrap();
    let src = pattern(1024);
    for r in 0..2usize {
        let peer = 1 - r;
        for k in 0..16 {
            let want = (1000 * r as u32 + k as u32).wrapping_add(word(&src[64 * peer..], k));
            assert_eq!(word(&out[64 * r..], k), want, "CTA {r} word {k}");
        }
    }
}

/// `st.async` of a `.v4.u32` (16 bytes) into the next CTA's `sh` and `red.async.add.u32` into
/// its `sh+16` (L13006, L17936: [a] and [mbar] in the same other CTA), both completing on the
/// next CTA's `bar` (16 + 4 + 4 bytes); each CTA waits on its own and dumps.
#[test]
fn st_async_and_red_async_to_another_cta() {
    let body = format!(
        "mad.lo.u32 %r20, %r2, 16, 1;\nadd.u32 %r21, %r20, 1;\nadd.u32 %r22, %r20, 2;\nadd.u32 %r23, %r20, 3;\n\
         st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.u32 [%r15], {{%r20, %r21, %r22, %r23}}, [%r16];\n\
         mad.lo.u32 %r24, %r2, 100, 5;\n\
         red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r15+16], %r24, [%r16];\n\
         red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r15+16], %r24, [%r16];\n\
         {}{DUMP}",
        await_bytes(24)
    );
    let out = run(&body, 2).unwrap();
    for r in 0..2u32 {
        let from = 1 - r;
        let o = &out[64 * r as usize..];
        for k in 0..4 {
            assert_eq!(word(o, k), from * 16 + 1 + k as u32, "CTA {r} word {k}");
        }
        // Two adds of 100·from + 5 to a zero word.
        assert_eq!(word(o, 4), 2 * (100 * from + 5), "CTA {r}");
        assert!(o[20..64].iter().all(|&b| b == 0));
    }
}

// ---- the race detector across CTAs ----

/// Rank 0 copies into rank 1's `sh`; after a second cluster barrier rank 1 reads `sh` without
/// waiting on its `bar`: the read is of a destination whose completion nobody observed
/// (L14223-14225), and the message names the copy's issuer in the other block.
#[test]
fn reading_a_remote_copys_destination_before_its_phase_completes() {
    let body = format!(
        "setp.ne.u32 %p2, %r2, 0;\n@%p2 bra TARGET;\n{}\
         cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r15], [%r11], 64, [%r16];\n\
         TARGET:\nmbarrier.arrive.expect_tx.shared.b64 %rd6, [%r12], 64;\n\
         barrier.cluster.arrive;\nbarrier.cluster.wait;\n@!%p2 bra DONE;\n\
         ld.shared.u32 %r30, [%r10+8];\nst.global.u32 [%rd1], %r30;\nDONE:\nret;",
        fill("%r11", 0)
    );
    // Threads 1-31 left at the first barrier: the second one is thread 0's alone.
    assert_fault(
        &body,
        2,
        "ld.shared.u32 %r30",
        &[
            "thread (0,0,0) of block (1,0,0)",
            "read of shared memory of CTA rank 1 [0x",
            "the destination of the `cp.async.bulk`",
            "by thread (0, 0, 0) of block (0,0,0)",
            "L14223-14225",
        ],
    );
}

/// The issuer reads the remote destination through `ld.shared::cluster` before the copy has
/// completed: the same rule, at the issuer, naming the other CTA's memory.
#[test]
fn reading_a_remote_destination_through_shared_cluster() {
    let body = format!(
        "setp.ne.u32 %p2, %r2, 0;\n@%p2 bra TARGET;\n{}\
         cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r15], [%r11], 64, [%r16];\n\
         ld.shared::cluster.u32 %r30, [%r15+4];\nst.global.u32 [%rd1], %r30;\n\
         TARGET:\n{}DONE:\nret;",
        fill("%r11", 0),
        await_bytes(64)
    );
    assert_fault(
        &body,
        2,
        "ld.shared::cluster.u32 %r30",
        &[
            "thread (0,0,0) of block (0,0,0)",
            "read of shared memory of CTA rank 1",
            "the destination of the `cp.async.bulk`",
            "L14223-14225",
        ],
    );
}

/// The issuer overwrites the source of its copy into the peer before the copy has read it
/// (its completion is observed only by the peer's wait): L15362/L14223.
#[test]
fn overwriting_the_source_of_a_copy_into_another_cta() {
    let body = format!(
        "setp.ne.u32 %p2, %r2, 0;\n@%p2 bra TARGET;\n{}\
         cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r15], [%r11], 64, [%r16];\n\
         mov.u32 %r30, 9;\nst.shared.u32 [%r11+32], %r30;\n\
         TARGET:\n{}DONE:\nret;",
        fill("%r11", 0),
        await_bytes(64)
    );
    assert_fault(
        &body,
        2,
        "st.shared.u32 [%r11+32]",
        &[
            "thread (0,0,0) of block (0,0,0)",
            "write to shared memory of CTA rank 0 [0x",
            "the source of the `cp.async.bulk`",
            "has not read it yet",
            "L15362",
        ],
    );
}

/// Rank 0 sends two 32-byte copies into rank 1, whose expect-tx counts only 32 bytes: rank 1's
/// wait completes the first, the phase completes, and the second's complete-tx would count
/// toward the next phase (L18462). Reported at the second copy, in block (0,0,0), naming the
/// wait in block (1,0,0) that observed it.
#[test]
fn a_remote_phase_that_counts_too_few_bytes() {
    let body = format!(
        "setp.ne.u32 %p2, %r2, 0;\n@%p2 bra TARGET;\n{}\
         cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r15], [%r11], 32, [%r16];\n\
         add.u32 %r18, %r15, 32;\nadd.u32 %r19, %r11, 32;\n\
         cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r18], [%r19], 32, [%r16];\n\
         bra DONE;\nTARGET:\n{}DONE:\nret;",
        fill("%r11", 0),
        await_bytes(32)
    );
    assert_fault(
        &body,
        2,
        "[%r18], [%r19], 32",
        &[
            "thread (0,0,0) of block (0,0,0)",
            "issued in phase 0 of the mbarrier object at shared",
            "of CTA rank 1",
            "by thread (0, 0, 0) of block (1,0,0)",
            "L18462",
        ],
    );
}

/// A copy into the peer at the offset of the peer's live mbarrier object (the peer waits on
/// it): L18374, at the issue.
#[test]
fn a_remote_copy_over_a_live_mbarrier() {
    let body = format!(
        "setp.ne.u32 %p2, %r2, 0;\n@%p2 bra TARGET;\n{}\
         cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r16], [%r11], 16, [%r16];\n\
         bra DONE;\nTARGET:\n{}DONE:\nret;",
        fill("%r11", 0),
        await_bytes(16)
    );
    assert_fault(
        &body,
        2,
        "cp.async.bulk.shared::cluster.shared::cta",
        &[
            "thread (0,0,0) of block (0,0,0)",
            "of CTA rank 1, which holds the initialized mbarrier object",
            "L18374",
        ],
    );
}

/// Rank 1 exits without waiting for rank 0's copy into it: whether the copy is issued after the
/// exit or is still pending at it (a second cluster barrier orders the issue first), nothing
/// orders its writes before the exit (L89); reported at the copy in either case.
#[test]
fn a_cta_that_exits_before_a_peers_copy_into_it_completes() {
    for sync in ["", "barrier.cluster.arrive;\nbarrier.cluster.wait;\n"] {
        let body = format!(
            "setp.ne.u32 %p2, %r2, 0;\n@%p2 bra DONE;\n{}\
             cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r15], [%r11], 64, [%r16];\n\
             DONE:\n{sync}ret;",
            fill("%r11", 0)
        );
        assert_fault(
            &body,
            2,
            "cp.async.bulk.shared::cluster.shared::cta",
            &["thread (0,0,0) of block (0,0,0)", "have all exited", "L89"],
        );
    }
}

/// A ctaMask bit beyond the cluster's CTAs names no destination (L14533).
#[test]
fn a_multicast_mask_beyond_the_cluster() {
    let body = "mov.u16 %rs1, 5;\n\
         cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r10], [%rd2], 64, [%r12], %rs1;\nret;";
    assert_fault(
        body,
        2,
        "multicast::cluster [%r10]",
        &[
            "thread (0,0,0)",
            "bit 2 of ctaMask is set, but the cluster has 2 CTAs",
            "L14533",
        ],
    );
}

/// Rank 1's expect-tx counts 128 bytes, rank 0 sends 64: rank 1 waits forever, and the
/// deadlock names rank 1's mbarrier, whose tx-count no pending operation can bring to zero
/// (L18462, L18486-18490).
#[test]
fn a_remote_phase_that_counts_too_many_bytes() {
    let body = format!(
        "setp.ne.u32 %p2, %r2, 0;\n@%p2 bra TARGET;\n{}\
         cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r15], [%r11], 64, [%r16];\n\
         bra DONE;\nTARGET:\n{}DONE:\nret;",
        fill("%r11", 0),
        await_bytes(128)
    );
    let e = run(&body, 2).expect_err("a deadlock");
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    for p in [
        "deadlock in block (1,0,0)",
        "tx-count 64",
        "more bytes were expected",
        "L18462",
    ] {
        assert!(e.message.contains(p), "`{p}` missing from: {e}");
    }
}
