//! `wgmma.mma_async` on the interpreter (§9.7.15.5): a warpgroup of 128 threads copies a
//! shared-memory image of A and B (laid out here, from the manual's canonical layouts in CuTe
//! notation, L25308-25360, and its `Swizzle<B,4,3>`), builds the matrix descriptors
//! (L25606-25648), runs `wgmma.fence` / `wgmma.mma_async` / `commit_group` / `wait_group 0`, and
//! stores its accumulator registers. Expected values are plain integer products placed by the
//! accumulator layout stated in the comments, computed here and not by the oracle's code.

use oracle::error::ErrorKind;
use oracle::launch::{self, LaunchFile};

#[path = "common/wgmma.rs"]
mod wgmma_common;
use wgmma_common::{acc, desc, f16, load_regs, regs, store_regs, swizzle};

/// Runs `body` on `threads` threads (one CTA, sm_90a) with `in` = `input` (`%rd1`) and a zeroed
/// `out` of `out_bytes` (`%rd2`). First every thread copies the first `image_words` words of
/// `in` to `tile` in shared memory (thread t copies words t, t + 128, …), then [`SYNC`].
/// `%rd4`/`%rd5` are `in`/`out` plus the thread's block of `words` words (at word offset
/// `image_words` in `in`).
fn run(
    threads: u32,
    image_words: u32,
    words: u32,
    body: &str,
    input: &[u8],
    out_bytes: usize,
) -> Result<Vec<u8>, oracle::error::Error> {
    run_synced(SYNC, threads, image_words, words, body, input, out_bytes)
}

/// What orders the copy into `tile` before the `wgmma` reads of it: a barrier, then a proxy
/// fence (the generic-proxy stores before the async-proxy reads, L26398).
const SYNC: &str = "bar.sync 0;\nfence.proxy.async.shared::cta;";

/// [`run`] with `sync` after the copy instead of [`SYNC`].
fn run_synced(
    sync: &str,
    threads: u32,
    image_words: u32,
    words: u32,
    body: &str,
    input: &[u8],
    out_bytes: usize,
) -> Result<Vec<u8>, oracle::error::Error> {
    let ptx = format!(
        ".version 8.7\n.target sm_90a\n.address_size 64\n.shared .align 1024 .b8 tile[16384];\n\
         .visible .entry k(.param .u64 pin, .param .u64 pout)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<200>;\n.reg .b64 %rd<16>;\n\
         ld.param.u64 %rd1, [pin];\nld.param.u64 %rd2, [pout];\nmov.u32 %r0, %tid.x;\n\
         mov.u32 %r1, %r0;\n\
         $copy:\n\
         setp.ge.u32 %p1, %r1, {image_words};\n\
         @%p1 bra $copied;\n\
         mul.wide.u32 %rd6, %r1, 4;\nadd.s64 %rd7, %rd1, %rd6;\nld.global.b32 %r2, [%rd7];\n\
         mov.u32 %r3, tile;\nshl.b32 %r4, %r1, 2;\nadd.u32 %r3, %r3, %r4;\nst.shared.b32 [%r3], %r2;\n\
         add.u32 %r1, %r1, 128;\nbra $copy;\n\
         $copied:\n\
         {sync}\n\
         mul.wide.u32 %rd6, %r0, {};\nadd.s64 %rd4, %rd1, %rd6;\nadd.s64 %rd4, %rd4, {};\nadd.s64 %rd5, %rd2, %rd6;\n\
         {body}\nret;\n}}\n",
        4 * words,
        4 * image_words
    );
    let hex: String = input.iter().map(|b| format!("{b:02x}")).collect();
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [threads, 1, 1],
        "buffers": [{"name": "in", "hex": hex}, {"name": "out", "size": out_bytes}],
        "params": [{"buffer": "in"}, {"buffer": "out"}],
        "limits": {"steps": 10_000_000, "stack": 1024},
    }))
    .unwrap();
    launch::run(&l, &ptx).map(|(b, _)| b[1].1.clone())
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// The s8 operands of the tests below: A(r, c), B(k, n), C(r, n).
fn s8_a(r: usize, c: usize) -> i64 {
    ((r * 7 + c * 3) % 23) as i64 - 11
}
fn s8_b(k: usize, n: usize) -> i64 {
    ((k * 5 + n * 11) % 19) as i64 - 9
}
fn s8_c(r: usize, n: usize) -> i64 {
    (r as i64 * 1000) - (n as i64 * 77)
}

/// Runs `middle` (which may use `%rd8`/`%rd9`, A's and B's descriptors, `%p2` true, and the
/// accumulator `%r100..%r103` holding C) between loading C and storing `%r100..%r103`.
///
/// A (64×32 s8) is K-major with the 128-byte swizzle: canonical layout
/// `((8,m),(T,2k)):((8T,SBO),(1,T))` with T = 16 one-byte elements, SBO = 1024 (eight 128-byte
/// rows): byte (r, c) at `(r % 8)·128 + (r / 8)·1024 + c`, then `Swizzle<3,4,3>`.
/// B (32×8, K-major, no swizzle): `((8,m),(T,2k)):((1T,SBO),(1,LBO))`, LBO = 128: byte
/// (k, n) at `(n % 8)·16 + (k % 16) + (k / 16)·128`.
fn run_s8(middle: &str) -> Result<Vec<u32>, oracle::error::Error> {
    run_s8_synced(SYNC, middle)
}

/// [`run_s8`] with `sync` after the copy into shared memory (see [`run_synced`]).
fn run_s8_synced(sync: &str, middle: &str) -> Result<Vec<u32>, oracle::error::Error> {
    let (a_off, b_off) = (0usize, 8192usize);
    let image = 8192 + 256;
    let mut input = vec![0u8; image + 128 * 16];
    for r in 0..64 {
        for k in 0..32 {
            input[a_off + swizzle(3, (r % 8) * 128 + (r / 8) * 1024 + k)] = s8_a(r, k) as i8 as u8;
        }
    }
    for k in 0..32 {
        for n in 0..8 {
            input[b_off + (n % 8) * 16 + (k % 16) + (k / 16) * 128] = s8_b(k, n) as i8 as u8;
        }
    }
    for t in 0..128 {
        for i in 0..4 {
            let (r, n) = acc(t, i);
            let at = image + t * 16 + 4 * i;
            input[at..at + 4].copy_from_slice(&(s8_c(r, n) as i32).to_le_bytes());
        }
    }
    // A: 128-byte swizzle (mode 1), SBO 1024 (encoded 64), LBO unused (1). B: no swizzle,
    // LBO 128 (8), SBO 256 (16).
    let a_high = (1u64 << 62) | (64 << 32) | (1 << 16);
    let b_high = (16u64 << 32) | (8 << 16);
    let body = format!(
        "{}{}{}setp.eq.u32 %p2, %r0, %r0;
{middle}{}",
        load_regs(100, 4),
        desc(8, a_off as u32, a_high),
        desc(9, b_off as u32, b_high),
        store_regs(100, 4)
    );
    run_synced(sync, 128, (image / 4) as u32, 4, &body, &input, 128 * 16).map(|o| words(&o))
}

const S8_MMA: &str = "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r100, %r101, %r102, %r103}, %rd8, %rd9, %p2;\n";

/// Checks D = `times`·A·B + C in the accumulator layout.
fn check_s8(got: &[u32], times: i64) {
    for t in 0..128 {
        for i in 0..4 {
            let (r, n) = acc(t, i);
            let want = s8_c(r, n) + times * (0..32).map(|k| s8_a(r, k) * s8_b(k, n)).sum::<i64>();
            assert_eq!(got[t * 4 + i] as i32 as i64, want, "thread {t} d{i} = D[{r}][{n}]");
        }
    }
}

/// `wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8`: D = A·B + C over the integers, A and B
/// from descriptors (swizzled and not).
#[test]
fn s8_from_swizzled_descriptors_is_the_integer_product() {
    let middle = format!(
        "wgmma.fence.sync.aligned;\n{S8_MMA}wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n"
    );
    check_s8(&run_s8(&middle).unwrap(), 1);
}

/// Two groups on the same accumulator, the second issued while the first is pending
/// (`wait_group 1`): the same-shape accumulator chain is ordered (L26388-26396).
#[test]
fn same_shape_accumulator_chains_across_pending_groups() {
    let middle = format!(
        "wgmma.fence.sync.aligned;\n{S8_MMA}wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 1;\n\
         wgmma.fence.sync.aligned;\n{S8_MMA}wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n"
    );
    check_s8(&run_s8(&middle).unwrap(), 2);
}

/// Reading an accumulator register before `wgmma.wait_group` has waited for its group is
/// undefined (L26478): a runtime error. After the wait it is fine (the other tests).
#[test]
fn accumulator_read_before_the_wait_is_an_error() {
    for wait in ["", "wgmma.wait_group.sync.aligned 1;\n"] {
        let middle = format!(
            "wgmma.fence.sync.aligned;\n{S8_MMA}wgmma.commit_group.sync.aligned;\n{wait}mov.b32 %r120, %r101;\n"
        );
        let e = run_s8(&middle).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
        assert!(e.to_string().contains("L26478"), "{e}");
    }
}

/// `wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16` with A from registers, B N-major
/// (`imm-trans-b` 1) with the 32-byte swizzle, `imm-scale-a` -1 and `scale-d` 0: D = -(A·B),
/// whatever D held. Small integers: every product and sum is exact in f32.
/// A fragment (Fig. 147; mma m16n8k16's A per warp, L22048-22052): element i of thread t is row
/// 16w + g + 8·((i >> 1) & 1), column 2q + (i & 1) + 8·(i >> 2), two per register, low half
/// first. B (16×16 f16, N-major, 32-byte swizzle): `((T,2,m),(8,k)):((1,T,LBO),(2T,SBO))`, T = 8,
/// SBO = 128 elements (eight 32-byte K rows): element (k, n) at
/// `(n % 8) + (n / 8)·8 + (k % 8)·16 + (k / 8)·128`, in bytes ×2, then `Swizzle<1,4,3>`.
#[test]
fn f16_a_from_registers_b_n_major_negated_without_accumulator() {
    let a = |r: usize, c: usize| ((r * 5 + c * 3) % 7) as i64 - 3;
    let b = |k: usize, n: usize| ((k * 3 + n * 5) % 7) as i64 - 3;
    let image = 512;
    let mut input = vec![0u8; image + 128 * 12 * 4];
    for k in 0..16 {
        for n in 0..16 {
            let el = (n % 8) + (n / 8) * 8 + (k % 8) * 16 + (k / 8) * 128;
            let at = swizzle(1, el * 2);
            input[at..at + 2].copy_from_slice(&f16(b(k, n)).to_le_bytes());
        }
    }
    for t in 0..128 {
        let (w, g, q) = (t / 32, t % 32 / 4, t % 4);
        for i in 0..8 {
            let (r, c) = (16 * w + g + 8 * ((i >> 1) & 1), 2 * q + (i & 1) + 8 * (i >> 2));
            let at = image + t * 48 + 2 * i;
            input[at..at + 2].copy_from_slice(&f16(a(r, c)).to_le_bytes());
        }
        // D's registers hold garbage (scale-d is 0).
        for i in 0..8 {
            let at = image + t * 48 + 16 + 4 * i;
            input[at..at + 4].copy_from_slice(&12345.0f32.to_bits().to_le_bytes());
        }
    }
    // 32-byte swizzle (mode 3), SBO 256 bytes (16), LBO unused.
    let b_high = (3u64 << 62) | (16 << 32) | (32 << 16);
    let body = format!(
        "{}{}wgmma.fence.sync.aligned;\n\
         wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {{{}}}, {{{}}}, %rd9, 0, -1, 1, 1;\n\
         wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n{}",
        load_regs(100, 12),
        desc(9, 0, b_high),
        regs(104, 8),
        regs(100, 4),
        store_regs(104, 8)
    );
    let out = run(128, (image / 4) as u32, 12, &body, &input, 128 * 48).unwrap();
    let got = words(&out);
    for t in 0..128 {
        for i in 0..8 {
            let (r, n) = acc(t, i);
            let want = -(0..16).map(|k| a(r, k) * b(k, n)).sum::<i64>();
            assert_eq!(
                f32::from_bits(got[t * 12 + i]),
                want as f32,
                "thread {t} d{i} = D[{r}][{n}]"
            );
        }
    }
}

/// `.aligned`: all 128 threads of the warpgroup execute it (L25813); a CTA of 96 threads has
/// no whole warpgroup.
#[test]
fn a_warpgroup_that_is_not_whole_is_an_error() {
    let body = format!(
        "{}setp.eq.u32 %p2, %r0, %r0;\nwgmma.fence.sync.aligned;\n\
         wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {{{}}}, %rd8, %rd8, %p2;\n",
        desc(8, 0, 0),
        regs(100, 4)
    );
    let e = run(96, 0, 4, &body, &[0u8; 4096], 16).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    assert!(e.to_string().contains("128 threads of the warpgroup"), "{e}");
}

/// `wgmma.fence`, `commit_group` and `wait_group` are `.sync.aligned` too: all threads of the
/// warpgroup execute the same instruction (L26402, L26451, L26482). A warpgroup where warp 1
/// skips `wgmma.commit_group` is an error naming the rule; the same program with every warp
/// taking the instruction runs; and a whole warpgroup of one warp (32 threads) cannot
/// `wgmma.fence`.
#[test]
fn warpgroup_control_instructions_are_warpgroup_wide() {
    let body = |skip: &str| {
        format!(
            "shr.u32 %r5, %r0, 5;
setp.eq.u32 %p2, %r5, {skip};
wgmma.fence.sync.aligned;
             @%p2 bra $skip;
wgmma.commit_group.sync.aligned;
$skip:
             wgmma.wait_group.sync.aligned 0;
"
        )
    };
    let e = run(128, 0, 4, &body("1"), &[0u8; 4096], 16).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    let m = e.to_string();
    // Warp 1 reaches `wait_group` while warp 0 waits at `commit_group`.
    assert!(m.contains("all threads of the warpgroup must execute the same"), "{m}");
    assert!(
        m.contains("warp 0 of the warpgroup (warps 0..4) is at `wgmma.commit_group"),
        "{m}"
    );
    assert!(m.contains("L26482"), "{m}");
    // No warp skips (warp 9 does not exist): the same program runs.
    run(128, 0, 4, &body("9"), &[0u8; 4096], 16).unwrap();
    // One warp alone is not a warpgroup.
    let e = run(
        32,
        0,
        4,
        "wgmma.fence.sync.aligned;
",
        &[0u8; 4096],
        16,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    assert!(
        e.to_string()
            .contains("`wgmma.fence.sync.aligned` needs all 128 threads"),
        "{e}"
    );
    assert!(e.to_string().contains("L26402"), "{e}");
}

/// The value of f16 bits (normal numbers and zeros, enough for small integers).
fn f16_value(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (e, m) = (((h >> 10) & 0x1f) as i32, (h & 0x3ff) as f32);
    if e == 0 {
        return sign * m * 2f32.powi(-24);
    }
    sign * (1.0 + m / 1024.0) * 2f32.powi(e - 15)
}

/// `wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16` from descriptors: A M-major
/// (`imm-trans-a` 1), B K-major, both with the 64-byte swizzle, `imm-scale-b` -1: D = C - A·B
/// in `.f16x2` accumulators (element i in register i/2, low half first).
/// A (64×16): `((T,4,m),(8,k)):((1,T,LBO),(4T,SBO))`, T = 8, LBO = 512 elements (the next 32
/// rows of M), SBO = 256 (the next 8 of K): element (r, c) at
/// `(r % 8) + (r / 8 % 4)·8 + (r / 32)·512 + (c % 8)·32 + (c / 8)·256`.
/// B (16×8, K-major): `((8,m),(T,2k)):((4T,SBO),(1,T))`: element (k, n) at `(n % 8)·32 + k`.
/// Both in bytes ×2, then `Swizzle<2,4,3>`.
#[test]
fn f16_accumulators_with_m_major_a_and_64b_swizzle() {
    let a = |r: usize, c: usize| ((r * 3 + c * 5) % 7) as i64 - 3;
    let b = |k: usize, n: usize| ((k * 5 + n * 3) % 7) as i64 - 3;
    let c = |r: usize, n: usize| ((r + 2 * n) % 9) as i64 - 4;
    let (a_off, b_off) = (0usize, 2048usize);
    let image = 2048 + 512;
    let mut input = vec![0u8; image + 128 * 8];
    for r in 0..64 {
        for k in 0..16 {
            let el = (r % 8) + (r / 8 % 4) * 8 + (r / 32) * 512 + (k % 8) * 32 + (k / 8) * 256;
            let at = a_off + swizzle(2, el * 2);
            input[at..at + 2].copy_from_slice(&f16(a(r, k)).to_le_bytes());
        }
    }
    for k in 0..16 {
        for n in 0..8 {
            let at = b_off + swizzle(2, ((n % 8) * 32 + k) * 2);
            input[at..at + 2].copy_from_slice(&f16(b(k, n)).to_le_bytes());
        }
    }
    for t in 0..128 {
        for i in 0..4 {
            let (r, n) = acc(t, i);
            let at = image + t * 8 + 2 * i;
            input[at..at + 2].copy_from_slice(&f16(c(r, n)).to_le_bytes());
        }
    }
    // 64-byte swizzle (mode 2). A: LBO 1024 bytes (64), SBO 512 (32). B: SBO 512, LBO unused.
    let a_high = (2u64 << 62) | (32 << 32) | (64 << 16);
    let b_high = (2u64 << 62) | (32 << 32) | (1 << 16);
    let body = format!(
        "{}{}{}setp.eq.u32 %p2, %r0, %r0;\nwgmma.fence.sync.aligned;\n\
         wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {{%r100, %r101}}, %rd8, %rd9, %p2, 1, -1, 1, 0;\n\
         wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n{}",
        load_regs(100, 2),
        desc(8, a_off as u32, a_high),
        desc(9, b_off as u32, b_high),
        store_regs(100, 2)
    );
    let out = run(128, (image / 4) as u32, 2, &body, &input, 128 * 8).unwrap();
    for t in 0..128 {
        for i in 0..4 {
            let (r, n) = acc(t, i);
            let h = u16::from_le_bytes([out[t * 8 + 2 * i], out[t * 8 + 2 * i + 1]]);
            let want = c(r, n) - (0..16).map(|k| a(r, k) * b(k, n)).sum::<i64>();
            assert_eq!(f16_value(h), want as f32, "thread {t} d{i} = D[{r}][{n}]");
        }
    }
}

/// `wgmma.fence` is required before the first `wgmma.mma_async` (L26392) and between a
/// register access and a `wgmma.mma_async` using the register as accumulator or A fragment
/// (L26394); undefined otherwise (L26396): runtime errors.
#[test]
fn a_missing_wgmma_fence_is_an_error() {
    let cases = [
        (S8_MMA.to_string(), "L26392"),
        (
            format!("wgmma.fence.sync.aligned;\nmov.b32 %r101, 7;\n{S8_MMA}"),
            "L26394",
        ),
    ];
    for (middle, rule) in cases {
        let middle = format!("{middle}wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n");
        let e = run_s8(&middle).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
        assert!(e.to_string().contains(rule), "{e}");
    }
    // The same write before the fence is ordered by it.
    let middle = format!(
        "mov.b32 %r101, 7;\nwgmma.fence.sync.aligned;\n{S8_MMA}wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n"
    );
    assert!(run_s8(&middle).is_ok());
}

/// Shared memory written through the generic proxy (`st.shared`) and read by `wgmma.mma_async`
/// (the async proxy) needs a `fence.proxy.async` covering shared memory between the two
/// (L26398): by the writer after its write, or by the reader after a barrier that follows the
/// write. Without one, or with `.async.global` only, the read is a runtime error naming the
/// store's line.
#[test]
fn shared_memory_written_without_a_proxy_fence_is_an_error() {
    let middle = format!(
        "wgmma.fence.sync.aligned;\n{S8_MMA}wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n"
    );
    for sync in [
        "bar.sync 0;",
        "fence.proxy.async.global;\nbar.sync 0;",
        "bar.sync 0;\nfence.proxy.async.global;",
    ] {
        let e = run_s8_synced(sync, &middle).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Runtime, "{sync}: {e}");
        let text = e.to_string();
        // The copy loop's `st.shared.b32` is line 23 of the kernel text.
        assert!(
            text.contains("L26398") && text.contains("store at line 23"),
            "{sync}: {text}"
        );
    }
    for sync in [
        "fence.proxy.async.shared::cta;\nbar.sync 0;",
        "fence.proxy.async;\nbar.sync 0;",
        "bar.sync 0;\nfence.proxy.async.shared::cluster;",
    ] {
        check_s8(&run_s8_synced(sync, &middle).unwrap(), 1);
    }
}

/// The `.b1` operands of the tests below.
fn b1_a(r: usize, k: usize) -> bool {
    (r * 13 + k * 7 + (r * k) % 5).is_multiple_of(3)
}
fn b1_b(k: usize, n: usize) -> bool {
    (k * 5 + n * 11 + k / 7) % 4 < 2
}

/// Sets bit `el % 8` of byte `el / 8` (sub-byte elements from the low bits of a byte up).
fn set_bit(image: &mut [u8], byte: usize, bit: usize) {
    image[byte] |= 1 << bit;
}

/// `wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc` from descriptors: D = C +
/// popc(A row AND B column) (L25754-25765, the `mma` single-bit semantics L22898). Both K-major
/// (the `.b1` forms have no transpose immediates), T = 128 one-bit elements to a 16-byte
/// core-matrix row (L25150-25360).
/// A (64×256) with the 128-byte swizzle: `((8,m),(T,2k)):((8T,SBO),(1,T))`, SBO = 8192
/// elements (1024 bytes): element (r, k) at `(r % 8)·1024 + (r / 8)·8192 + k`.
/// B (256×8) without swizzle: `((8,m),(T,2k)):((1T,SBO),(1,LBO))`, LBO = 1024 elements (128
/// bytes): element (k, n) at `(n % 8)·128 + (k % 128) + (k / 128)·1024`.
/// Element e is bit e % 8 of byte e / 8; A's bytes then go through `Swizzle<3,4,3>`.
#[test]
fn b1_and_popc_from_descriptors_counts_the_common_bits() {
    let c = |r: usize, n: usize| (r as i64 * 300) - (n as i64 * 41) - 5000;
    let (a_off, b_off) = (0usize, 8192usize);
    let image = 8192 + 256;
    let mut input = vec![0u8; image + 128 * 16];
    for r in 0..64 {
        for k in 0..256 {
            if b1_a(r, k) {
                let el = (r % 8) * 1024 + (r / 8) * 8192 + k;
                set_bit(&mut input, a_off + swizzle(3, el / 8), el % 8);
            }
        }
    }
    for k in 0..256 {
        for n in 0..8 {
            if b1_b(k, n) {
                let el = (n % 8) * 128 + (k % 128) + (k / 128) * 1024;
                set_bit(&mut input, b_off + el / 8, el % 8);
            }
        }
    }
    for t in 0..128 {
        for i in 0..4 {
            let (r, n) = acc(t, i);
            let at = image + t * 16 + 4 * i;
            input[at..at + 4].copy_from_slice(&(c(r, n) as i32).to_le_bytes());
        }
    }
    // A: 128-byte swizzle (mode 1), SBO 1024 (encoded 64). B: LBO 128 (8), SBO 256 (16).
    let a_high = (1u64 << 62) | (64 << 32) | (1 << 16);
    let b_high = (16u64 << 32) | (8 << 16);
    let body = format!(
        "{}{}{}setp.eq.u32 %p2, %r0, %r0;\nwgmma.fence.sync.aligned;\n\
         wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {{%r100, %r101, %r102, %r103}}, %rd8, %rd9, %p2;\n\
         wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n{}",
        load_regs(100, 4),
        desc(8, a_off as u32, a_high),
        desc(9, b_off as u32, b_high),
        store_regs(100, 4)
    );
    let got = words(&run(128, (image / 4) as u32, 4, &body, &input, 128 * 16).unwrap());
    for t in 0..128 {
        for i in 0..4 {
            let (r, n) = acc(t, i);
            let popc = (0..256).filter(|&k| b1_a(r, k) && b1_b(k, n)).count() as i64;
            assert_eq!(
                got[t * 4 + i] as i32 as i64,
                c(r, n) + popc,
                "thread {t} d{i} = D[{r}][{n}]"
            );
        }
    }
}

/// `wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc` with A from registers and
/// `scale-d` 0: D = popc(A row AND B column), whatever D held.
/// A fragment (Fig. 153; per warp w the A layout of `mma.m16n8k256` `.b1`, L22734-22738, read
/// with `i & 0x1F` as in `spec/src/matrix/layout.rs`): element i (0..128) of thread t, bit i % 32
/// of register i / 32, is row 16w + g + 8·((i / 32) % 2), column 32q + (i % 32) + 128·(i / 64).
/// B (256×16, K-major, 32-byte swizzle): `((8,m),(T,2k)):((2T,SBO),(1,T))`, T = 128, SBO = 2048
/// elements (256 bytes): element (k, n) at `(n % 8)·256 + (n / 8)·2048 + k`, its byte through
/// `Swizzle<1,4,3>`.
#[test]
fn b1_and_popc_with_a_from_registers() {
    let image = 512;
    let mut input = vec![0u8; image + 128 * 12 * 4];
    for k in 0..256 {
        for n in 0..16 {
            if b1_b(k, n) {
                let el = (n % 8) * 256 + (n / 8) * 2048 + k;
                set_bit(&mut input, swizzle(1, el / 8), el % 8);
            }
        }
    }
    for t in 0..128 {
        let (w, g, q) = (t / 32, t % 32 / 4, t % 4);
        for i in 0..128 {
            let (r, k) = (16 * w + g + 8 * ((i / 32) % 2), 32 * q + (i % 32) + 128 * (i / 64));
            if b1_a(r, k) {
                set_bit(&mut input, image + t * 48 + 4 * (i / 32) + (i % 32) / 8, i % 8);
            }
        }
        // D's registers hold garbage (scale-d is 0).
        for i in 0..8 {
            let at = image + t * 48 + 16 + 4 * i;
            input[at..at + 4].copy_from_slice(&0x5555_5555u32.to_le_bytes());
        }
    }
    // 32-byte swizzle (mode 3), SBO 256 bytes (16), LBO unused.
    let b_high = (3u64 << 62) | (16 << 32) | (1 << 16);
    let body = format!(
        "{}{}wgmma.fence.sync.aligned;\n\
         wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc {{{}}}, {{{}}}, %rd9, 0;\n\
         wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n{}",
        load_regs(100, 12),
        desc(9, 0, b_high),
        regs(104, 8),
        regs(100, 4),
        store_regs(104, 8)
    );
    let got = words(&run(128, (image / 4) as u32, 12, &body, &input, 128 * 48).unwrap());
    for t in 0..128 {
        for i in 0..8 {
            let (r, n) = acc(t, i);
            let popc = (0..256).filter(|&k| b1_a(r, k) && b1_b(k, n)).count() as u32;
            assert_eq!(got[t * 12 + i], popc, "thread {t} d{i} = D[{r}][{n}]");
        }
    }
}

/// Every `.b1` `wgmma.mma_async` form of the catalog (36: the 18 shapes m64nNk256 of
/// L25760-25764, A from a descriptor or registers) executes. Descriptors with start, LBO and SBO 0: row (or column)
/// `x` of a matrix is the 16 bytes at `(x % 8)·16` for both halves of K (the no-swizzle K-major
/// layout, L25308-25360); the tile's first 32 bytes are 0x0f, the rest 0, so rows and columns
/// with `x % 8 < 2` have 2·64 bits set. A in registers is all ones. `scale-d` 1, C = 7.
#[test]
fn every_b1_form_executes() {
    use spec::catalog::{catalog, fragment};
    let cat = catalog();
    let mut ran = 0;
    for f in cat
        .forms
        .iter()
        .filter(|f| f.var("at") == Some("b1") && f.exec() == Some(spec::catalog::Exec::Wgmma))
    {
        let n = fragment::length(f, &f.outputs[0]).unwrap();
        // D in %r70.. (up to 128 registers: `run` declares %r<200>).
        let d = regs(70, n as u32);
        let a = if f.inputs.iter().any(|o| o.name == "a_desc") {
            "%rd8".to_string()
        } else {
            format!("{{{}}}", regs(60, 4))
        };
        // The tile's first 32 bytes: 0x0f each, 4 bits per byte: 128 of 256 bits set.
        let input = vec![0x0fu8; 32];
        let body = format!(
            "{}mov.b32 %r60, -1;\nmov.b32 %r61, -1;\nmov.b32 %r62, -1;\nmov.b32 %r63, -1;\n{}\
             setp.eq.u32 %p2, %r0, %r0;\nwgmma.fence.sync.aligned;\n{} {{{d}}}, {a}, %rd8, %p2;\n\
             wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\nst.global.b32 [%rd5], %r70;\n",
            (0..n)
                .map(|k| format!("mov.b32 %r{}, 7;\n", 70 + k))
                .collect::<String>(),
            desc(8, 0, 0),
            f.name
        );
        let got = words(&run(128, 8, 1, &body, &input, 128 * 4).unwrap_or_else(|e| panic!("{}: {e}", f.name)));
        let a_regs = !a.starts_with("%rd");
        for (t, &v) in got.iter().enumerate() {
            // d0 of thread t.
            let (r, col) = acc(t, 0);
            let set = (a_regs || r % 8 < 2) && col % 8 < 2;
            assert_eq!(v, 7 + if set { 128 } else { 0 }, "{}: thread {t}", f.name);
        }
        ran += 1;
    }
    assert_eq!(ran, 36);
}
