//! The bulk asynchronous operations (§9.7.9.25.4, §9.7.9.25.6, §9.7.9.12-13, §9.7.13.7) on small
//! kernels: each direction of `cp.async.bulk` with the bytes the test computes itself, the
//! reductions of `cp.reduce.async.bulk` against arithmetic written out here, `wait_group` against
//! `wait_group.read`, `st.bulk`, the `.release` forms of `st.async`/`red.async`, and the operand
//! errors. The race detector's classes for bulk copies each have their canonical test in
//! race_detector.rs; here, two more scenarios of them (a wait on the wrong parity, a tx-count
//! left below zero).

use oracle::error::{Error, ErrorKind};
use oracle::launch::{self, LaunchFile};

const HEADER: &str = ".version 8.7\n.target sm_100\n.address_size 64\n";

/// A barrier and two 512-byte shared buffers.
const DATA: &str = ".shared .align 8 .b64 bar;\n.shared .align 16 .b8 sh[512];\n.shared .align 16 .b8 sh2[512];\n";

/// The kernel: `body` after a prologue that puts `out` in %rd1, `src` in %rd2, `bar`'s shared
/// address in %r1, `sh`'s in %r3, `sh2`'s in %r10 and %tid.x in %r4; %p7 is `%tid.x == 0`.
fn kernel(body: &str) -> String {
    format!(
        "{HEADER}{DATA}.visible .entry k(.param .u64 out, .param .u64 src)\n{{\n\
         .reg .pred %p<8>;\n.reg .b16 %rs<8>;\n.reg .b32 %r<32>;\n.reg .b64 %rd<16>;\n\
         ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [src];\nmov.u32 %r1, bar;\n\
         mov.u32 %r3, sh;\nmov.u32 %r10, sh2;\nmov.u32 %r4, %tid.x;\nsetp.eq.u32 %p7, %r4, 0;\n{body}\n}}\n"
    )
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Runs `body` with `threads` threads in one CTA over buffers `out` and `src` (initial bytes);
/// the bytes of `out` after the run.
fn run(body: &str, threads: u32, out: &[u8], src: &[u8]) -> Result<Vec<u8>, Error> {
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [threads, 1, 1],
        "buffers": [{"name": "out", "hex": hex(out)}, {"name": "src", "hex": hex(src)}],
        "params": [{"buffer": "out"}, {"buffer": "src"}],
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
fn assert_fault(body: &str, threads: u32, at: &str, parts: &[&str]) -> Error {
    let e = run(body, threads, &[0; 1024], &pattern(1024)).expect_err("the error must be reported");
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    assert_eq!(e.loc.map(|l| l.0), Some(line_of(body, at)), "{e}");
    for p in parts {
        assert!(e.message.contains(p), "`{p}` missing from: {e}");
    }
    e
}

/// `n` bytes of a fixed pattern: byte k is (37k + 11) mod 256.
fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|k| (37 * k + 11) as u8).collect()
}

/// Thread 0 initializes the barrier with `count`, then a CTA barrier.
fn init(count: u32) -> String {
    format!("mov.u32 %r5, {count};\n@%p7 mbarrier.init.shared.b64 [%r1], %r5;\nbar.sync 0;\n")
}

/// Every thread arrives on the barrier, then waits for phase 0 by parity.
const ARRIVE_WAIT: &str = "mbarrier.arrive.shared.b64 %rd3, [%r1];\nmov.u32 %r6, 0;\n\
     WAIT:\nmbarrier.try_wait.parity.shared.b64 %p1, [%r1], %r6;\n@!%p1 bra WAIT;\n";

/// Each thread below `words` copies word %tid.x of the shared buffer at register `buf` to
/// `out`, then returns.
fn copy_out(buf: &str, words: u32) -> String {
    format!(
        "setp.lt.u32 %p6, %r4, {words};\n@!%p6 bra DONE;\nshl.b32 %r20, %r4, 2;\nadd.u32 %r21, {buf}, %r20;\n\
         ld.shared.u32 %r22, [%r21];\nmul.wide.u32 %rd10, %r4, 4;\nadd.u64 %rd11, %rd1, %rd10;\n\
         st.global.u32 [%rd11], %r22;\nDONE:\nret;"
    )
}

/// Each thread below `words` copies word %tid.x of `src` into the shared buffer at register
/// `buf` (generic-proxy stores), then a `fence.proxy.async` (when `fence`) and a CTA barrier.
fn fill_shared(buf: &str, words: u32, fence: bool) -> String {
    format!(
        "setp.lt.u32 %p5, %r4, {words};\nshl.b32 %r23, %r4, 2;\nadd.u32 %r24, {buf}, %r23;\n\
         mul.wide.u32 %rd12, %r4, 4;\nadd.u64 %rd13, %rd2, %rd12;\n\
         @%p5 ld.global.u32 %r25, [%rd13];\n@%p5 st.shared.u32 [%r24], %r25;\n{}bar.sync 0;\n",
        if fence { "fence.proxy.async.shared::cta;\n" } else { "" }
    )
}

// ---- cp.async.bulk, each direction ----

/// global → shared::cta with an mbarrier: 256 bytes, tracked by expect-tx 256; 64 threads then
/// read the tile.
#[test]
fn global_to_shared_cta_through_an_mbarrier() {
    let body = format!(
        "{}@%p7 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 256;\n\
         @%p7 cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r3], [%rd2], 256, [%r1];\n\
         {ARRIVE_WAIT}{}",
        init(64),
        copy_out("%r3", 64)
    );
    let src = pattern(1024);
    let out = run(&body, 64, &[0; 1024], &src).unwrap();
    assert_eq!(&out[..256], &src[..256]);
    assert!(out[256..].iter().all(|&b| b == 0));
}

/// global → shared::cluster (the executing CTA's own in a cluster of one) with `.L2::cache_hint`,
/// the copy issued before the expect-tx (as NVRTC's code does), from an offset of the source.
#[test]
fn global_to_shared_cluster_with_a_cache_hint() {
    let body = format!(
        "{}mov.u64 %rd9, 0;\nadd.u64 %rd8, %rd2, 64;\n\
         @%p7 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%r3], [%rd8], 128, [%r1], %rd9;\n\
         @%p7 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 128;\n\
         {ARRIVE_WAIT}{}",
        init(32),
        copy_out("%r3", 32)
    );
    let src = pattern(1024);
    let out = run(&body, 32, &[0; 1024], &src).unwrap();
    assert_eq!(&out[..128], &src[64..192]);
}

/// `.multicast::cluster` with a ctaMask naming only the CTA itself (rank 0) writes its own
/// shared memory; in a cluster of one, a mask naming rank 1 names no CTA (L14533; the
/// multicasts to other CTAs are in bulk_cluster.rs).
#[test]
fn multicast_to_the_own_cta() {
    let body = |mask: u32| {
        format!(
            "{}mov.u16 %rs1, {mask};\n@%p7 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 64;\n\
             @%p7 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r3], [%rd2], 64, [%r1], %rs1;\n\
             {ARRIVE_WAIT}{}",
            init(32),
            copy_out("%r3", 16)
        )
    };
    let src = pattern(1024);
    let out = run(&body(1), 32, &[0; 1024], &src).unwrap();
    assert_eq!(&out[..64], &src[..64]);
    assert_fault(
        &body(3),
        32,
        "multicast::cluster [%r3]",
        &[
            "thread (0,0,0)",
            "bit 1 of ctaMask is set, but the cluster has 1 CTA",
            "L14533",
        ],
    );
}

/// shared::cta → global with a bulk async-group: generic stores, `fence.proxy.async`, the copy,
/// `commit_group`, `wait_group 0`.
#[test]
fn shared_to_global_through_a_bulk_group() {
    let body = format!(
        "{}@%p7 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r3], 256;\n\
         @%p7 cp.async.bulk.commit_group;\n@%p7 cp.async.bulk.wait_group 0;\nret;",
        fill_shared("%r3", 64, true)
    );
    let src = pattern(1024);
    let out = run(&body, 64, &[0; 1024], &src).unwrap();
    assert_eq!(&out[..256], &src[..256]);
    assert!(out[256..].iter().all(|&b| b == 0));
}

/// `.cp_mask` (sm_100): byte j of each 16-byte chunk is written when bit j of byteMask is set
/// (L14539); the others keep what the destination held.
#[test]
fn shared_to_global_with_a_byte_mask() {
    let body = format!(
        "{}mov.u16 %rs1, 0x8421;\nmov.u64 %rd9, 0;\n\
         @%p7 cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.cp_mask [%rd1], [%r3], 64, %rd9, %rs1;\n\
         @%p7 cp.async.bulk.commit_group;\n@%p7 cp.async.bulk.wait_group 0;\nret;",
        fill_shared("%r3", 16, true)
    );
    let src = pattern(1024);
    let init = vec![0xeeu8; 1024];
    let out = run(&body, 32, &init, &src).unwrap();
    for j in 0..64 {
        let want = if [0, 5, 10, 15].contains(&(j % 16)) {
            src[j]
        } else {
            0xee
        };
        assert_eq!(out[j], want, "byte {j}");
    }
    assert!(out[64..].iter().all(|&b| b == 0xee));
}

/// shared::cta → shared::cluster must write another CTA (L14487): in a cluster of one, the
/// destination is the CTA's own.
#[test]
fn shared_to_shared_cluster_needs_another_cta() {
    let body = format!(
        "{}{}@%p7 cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r10], [%r3], 64, [%r1];\nret;",
        fill_shared("%r3", 16, true),
        init(1)
    );
    assert_fault(
        &body,
        32,
        "cp.async.bulk.shared::cluster.shared::cta",
        &["thread (0,0,0)", "own shared memory", "L14487"],
    );
}

// ---- wait_group against wait_group.read ----

/// After `wait_group.read 0` the source may be overwritten and the copy still carries what it
/// read; `wait_group 0` then makes the destination visible.
#[test]
fn wait_group_read_frees_the_source_only() {
    let body = format!(
        "{}@%p7 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r3], 64;\n\
         @%p7 cp.async.bulk.commit_group;\n@%p7 cp.async.bulk.wait_group.read 0;\n\
         mov.u32 %r26, 0x5a5a5a5a;\nsetp.lt.u32 %p4, %r4, 16;\n@%p4 st.shared.u32 [%r24], %r26;\n\
         @%p7 cp.async.bulk.wait_group 0;\nret;",
        fill_shared("%r3", 16, true)
    );
    let src = pattern(1024);
    let out = run(&body, 32, &[0; 1024], &src).unwrap();
    assert_eq!(
        &out[..64],
        &src[..64],
        "the copy read the source before it was overwritten"
    );
}

/// After `wait_group.read` the destination is not yet written: reading it is an error.
#[test]
fn wait_group_read_does_not_complete_the_write() {
    let body = format!(
        "{}@%p7 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r3], 64;\n\
         @%p7 cp.async.bulk.commit_group;\n@%p7 cp.async.bulk.wait_group.read 0;\n\
         @%p7 ld.global.u32 %r27, [%rd1+16];\nret;",
        fill_shared("%r3", 16, true)
    );
    let e = assert_fault(
        &body,
        32,
        "ld.global.u32 %r27",
        &["thread (0,0,0)", "wait_group.read", "L15362", "by thread (0, 0, 0)"],
    );
    let copy_line = line_of(&body, "bulk_group [%rd1]");
    assert!(e.message.contains(&format!("at line {copy_line}")), "{e}");
}

/// `wait_group 1` leaves the newest group pending: its destination may not be read yet, the
/// older one's may.
#[test]
fn wait_group_n_keeps_the_newest_groups() {
    let body = format!(
        "{}@%p7 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r3], 32;\n@%p7 cp.async.bulk.commit_group;\n\
         add.u64 %rd8, %rd1, 32;\nadd.u32 %r28, %r3, 32;\n\
         @%p7 cp.async.bulk.global.shared::cta.bulk_group [%rd8], [%r28], 32;\n@%p7 cp.async.bulk.commit_group;\n\
         @%p7 cp.async.bulk.wait_group 1;\n@%p7 ld.global.u32 %r27, [%rd1+28];\n@%p7 ld.global.u32 %r27, [%rd1+32];\nret;",
        fill_shared("%r3", 16, true)
    );
    assert_fault(
        &body,
        32,
        "ld.global.u32 %r27, [%rd1+32]",
        &["read of global memory", "has not completed", "L15350-15360"],
    );
}

// ---- cp.reduce.async.bulk ----

fn words32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn words64(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn halves(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// `cp.reduce.async.bulk.global.shared::cta.bulk_group.<op>` of 64 bytes: `src` into shared
/// memory, reduced into `out` (which starts as `init`); the first 64 bytes of `out`.
fn reduce_global(op: &str, init: &[u8], src: &[u8]) -> Vec<u8> {
    let body = format!(
        "{}@%p7 cp.reduce.async.bulk.global.shared::cta.bulk_group.{op} [%rd1], [%r3], 64;\n\
         @%p7 cp.async.bulk.commit_group;\n@%p7 cp.async.bulk.wait_group 0;\nret;",
        fill_shared("%r3", 16, true)
    );
    let mut o = init.to_vec();
    o.resize(1024, 0);
    let mut s = src.to_vec();
    s.resize(1024, 0);
    run(&body, 32, &o, &s).unwrap()[..64].to_vec()
}

#[test]
fn reductions_on_32_bit_integers() {
    let a: Vec<u32> = (0..16u32).map(|k| k.wrapping_mul(0x9e37_79b9)).collect();
    let b: Vec<u32> = (0..16u32).map(|k| (k * 3) ^ 0xffff_fff0).collect();
    let (ai, bi) = (words32(&a), words32(&b));
    let check = |op: &str, f: &dyn Fn(u32, u32) -> u32| {
        let want: Vec<u32> = a.iter().zip(&b).map(|(&x, &y)| f(x, y)).collect();
        assert_eq!(reduce_global(op, &ai, &bi), words32(&want), "{op}");
    };
    check("add.u32", &|x, y| x.wrapping_add(y));
    check("add.s32", &|x, y| x.wrapping_add(y));
    check("min.u32", &|x, y| x.min(y));
    check("max.s32", &|x, y| (x as i32).max(y as i32) as u32);
    check("min.s32", &|x, y| (x as i32).min(y as i32) as u32);
    // inc(r, s) = r >= s ? 0 : r + 1; dec(r, s) = r == 0 || r > s ? s : r - 1 (L17499-17500).
    check("inc.u32", &|r, s| if r >= s { 0 } else { r + 1 });
    check("dec.u32", &|r, s| if r == 0 || r > s { s } else { r - 1 });
    check("and.b32", &|x, y| x & y);
    check("or.b32", &|x, y| x | y);
    check("xor.b32", &|x, y| x ^ y);
}

#[test]
fn reductions_on_64_bit_integers() {
    let a: Vec<u64> = (0..8u64).map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
    let b: Vec<u64> = (0..8u64).map(|k| (k << 60) | 7).collect();
    let (ai, bi) = (words64(&a), words64(&b));
    let check = |op: &str, f: &dyn Fn(u64, u64) -> u64| {
        let want: Vec<u64> = a.iter().zip(&b).map(|(&x, &y)| f(x, y)).collect();
        assert_eq!(reduce_global(op, &ai, &bi), words64(&want), "{op}");
    };
    check("add.u64", &|x, y| x.wrapping_add(y));
    check("min.u64", &|x, y| x.min(y));
    check("max.s64", &|x, y| (x as i64).max(y as i64) as u64);
    check("and.b64", &|x, y| x & y);
    check("xor.b64", &|x, y| x ^ y);
}

/// Floating-point adds whose sums are exact in the format, and one that rounds: 1 + 2^-24
/// rounds to nearest even, giving 1 (f32); 2^-126 / 2 is subnormal and `.add.f32` flushes it
/// (L14657).
#[test]
fn reductions_on_floats() {
    let a = [1.5f32, -2.25, 1.0, 0.0];
    let b = [0.25f32, 8.0, 5.960_464_5e-8, f32::from_bits(0x0040_0000)];
    let ai: Vec<u8> = a.iter().flat_map(|x| x.to_le_bytes()).collect();
    let bi: Vec<u8> = b.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut want = ai.clone();
    // 1.75, 5.75, 1.0 (the tie 1 + 2^-24 goes to the even 1.0), +0 (the subnormal flushed)
    for (k, v) in [1.75f32, 5.75, 1.0, 0.0].iter().enumerate() {
        want[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
    }
    let mut a16 = ai.clone();
    a16.resize(64, 0);
    let mut w16 = want.clone();
    w16.resize(64, 0);
    assert_eq!(reduce_global("add.f32", &a16, &bi), w16);
    // f64: 0.1 + 0.2 rounds to 0.30000000000000004 (the host's IEEE double agrees: exact RNE).
    let a = [0.1f64, 1e300, -3.0, 0.5];
    let b = [0.2f64, 1e300, 3.0, 0.25];
    let ai: Vec<u8> = a.iter().flat_map(|x| x.to_le_bytes()).collect();
    let bi: Vec<u8> = b.iter().flat_map(|x| x.to_le_bytes()).collect();
    let want: Vec<u8> = [0.300_000_000_000_000_04f64, 2e300, 0.0, 0.75]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let mut w = want.clone();
    w.resize(64, 0);
    let mut a2 = ai.clone();
    a2.resize(64, 0);
    assert_eq!(reduce_global("add.f64", &a2, &bi), w);
    // f16 (.noftz): 1 + 2 = 3, 0.5 + 0.25 = 0.75, 65504 + 65504 = +inf, -1 + 1 = +0.
    let a = [0x3c00u16, 0x3800, 0x7bff, 0xbc00];
    let b = [0x4000u16, 0x3400, 0x7bff, 0x3c00];
    let want = [0x4200u16, 0x3a00, 0x7c00, 0x0000];
    let mut w = halves(&want);
    w.resize(64, 0);
    let mut a2 = halves(&a);
    a2.resize(64, 0);
    assert_eq!(reduce_global("add.noftz.f16", &a2, &halves(&b)), w);
    // bf16 min/max: min(1, 2) = 1, min(-2, 0.5) = -2; max(1, 2) = 2, max(-2, 0.5) = 0.5.
    let a = [0x3f80u16, 0xc000];
    let b = [0x4000u16, 0x3f00];
    let mut w = halves(&[0x3f80, 0xc000]);
    w.resize(64, 0);
    let mut a2 = halves(&a);
    a2.resize(64, 0);
    assert_eq!(reduce_global("min.bf16", &a2, &halves(&b)), w);
    let mut w = halves(&[0x4000, 0x3f00]);
    w.resize(64, 0);
    assert_eq!(reduce_global("max.bf16", &a2, &halves(&b)), w);
}

/// `cp.reduce.async.bulk.shared::cluster.shared::cta...add.u32` into the CTA's own shared
/// memory, tracked by an mbarrier.
#[test]
fn reduction_into_shared_memory_through_an_mbarrier() {
    // sh2 := src words 16..32 and sh := src words 0..16 (each through the generic proxy).
    let body = format!(
        "{}add.u64 %rd2, %rd2, 64;\n{}{}\
         @%p7 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 64;\n\
         @%p7 cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%r10], [%r3], 64, [%r1];\n\
         {ARRIVE_WAIT}{}",
        fill_shared("%r3", 16, true),
        fill_shared("%r10", 16, true),
        init(32),
        copy_out("%r10", 16)
    );
    let src: Vec<u32> = (0..32u32)
        .map(|k| k.wrapping_mul(0x0101_0101).wrapping_add(0xfff0_0000))
        .collect();
    let out = run(&body, 32, &[0; 1024], &words32(&src)).unwrap();
    let want: Vec<u32> = (0..16).map(|k| src[k].wrapping_add(src[16 + k])).collect();
    assert_eq!(&out[..64], &words32(&want)[..]);
}

// ---- prefetch, st.bulk, st.async, red.async ----

/// `cp.async.bulk.prefetch.L2` changes nothing; its address and size are checked (L14777).
#[test]
fn prefetch_checks_its_operands_only() {
    let body = "@%p7 cp.async.bulk.prefetch.L2.global [%rd2], 256;\nret;";
    assert!(run(body, 32, &[0; 1024], &pattern(1024))
        .unwrap()
        .iter()
        .all(|&b| b == 0));
    let body = "add.u64 %rd8, %rd2, 8;\n@%p7 cp.async.bulk.prefetch.L2.global [%rd8], 256;\nret;";
    assert_fault(
        body,
        32,
        "prefetch.L2.global",
        &["thread (0,0,0)", "not aligned to 16 bytes", "L14777"],
    );
}

/// `st.bulk` zero-fills shared memory (sm_100, L13062-13082); a size not a multiple of 8 is
/// undefined (L13076).
#[test]
fn st_bulk_zero_fills_shared_memory() {
    let body = format!(
        "{}add.u32 %r28, %r3, 16;\n@%p7 st.bulk.weak.shared::cta [%r28], 32, 0;\nbar.sync 0;\n{}",
        fill_shared("%r3", 32, false),
        copy_out("%r3", 32)
    );
    let src = pattern(1024);
    let out = run(&body, 32, &[0; 1024], &src).unwrap();
    let mut want = src[..128].to_vec();
    want[16..48].fill(0);
    assert_eq!(&out[..128], &want[..]);
    let body = "mov.u64 %rd8, 12;\n@%p7 st.bulk.weak.shared::cta [%r3], %rd8, 0;\nret;";
    assert_fault(
        body,
        32,
        "st.bulk",
        &["thread (0,0,0)", "size 12 is not a multiple of 8", "L13076"],
    );
}

/// `st.async` on `.shared::cluster` needs a cluster of more than one CTA (L13008).
#[test]
fn st_async_needs_a_cluster() {
    let body = format!(
        "{}mov.u32 %r9, 7;\n@%p7 st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r3], %r9, [%r1];\nret;",
        init(1)
    );
    assert_fault(
        &body,
        32,
        "st.async",
        &["thread (0,0,0)", "more than one CTA", "L13008"],
    );
}

/// `red.async` on `.shared::cluster` must reach another CTA (L17938).
#[test]
fn red_async_needs_another_cta() {
    let body = format!(
        "{}mov.u32 %r9, 7;\n@%p7 red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r3], %r9, [%r1];\nret;",
        init(1)
    );
    assert_fault(
        &body,
        32,
        "red.async",
        &["thread (0,0,0)", "own shared memory", "L17936-17938"],
    );
}

/// The `.release` `.global` forms complete with the end of the CTA (L12990, L17918): the values
/// are there after the launch, and reading them before is an error.
#[test]
fn release_forms_complete_at_the_end_of_the_cta() {
    let body = "mov.u32 %r9, 5;\n@%p7 red.async.release.gpu.global.add.u32 [%rd1], %r9;\n\
                mov.u64 %rd9, 0x1122334455667788;\n@%p7 st.async.release.gpu.global.u64 [%rd1+8], %rd9;\nret;";
    let mut init = vec![0u8; 1024];
    init[..4].copy_from_slice(&40u32.to_le_bytes());
    let out = run(body, 32, &init, &pattern(1024)).unwrap();
    assert_eq!(u32::from_le_bytes(out[..4].try_into().unwrap()), 45);
    assert_eq!(
        u64::from_le_bytes(out[8..16].try_into().unwrap()),
        0x1122_3344_5566_7788
    );
    let body = "mov.u32 %r9, 5;\n@%p7 red.async.release.gpu.global.add.u32 [%rd1], %r9;\n\
                @%p7 ld.global.u32 %r27, [%rd1];\nret;";
    assert_fault(
        body,
        32,
        "ld.global.u32 %r27",
        &["thread (0,0,0)", "red.async", "end of the CTA", "L17918"],
    );
}

// ---- sizes, alignment ----

#[test]
fn sizes_and_alignment_are_checked() {
    let body = format!(
        "{}mov.u32 %r9, 24;\n@%p7 cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r3], [%rd2], %r9, [%r1];\nret;",
        init(1)
    );
    assert_fault(
        &body,
        32,
        "cp.async.bulk.shared::cta",
        &["thread (0,0,0)", "size 24 is not a multiple of 16", "L14483"],
    );
    let body = format!(
        "{}add.u32 %r28, %r3, 8;\n@%p7 cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r28], [%rd2], 32, [%r1];\nret;",
        init(1)
    );
    assert_fault(
        &body,
        32,
        "cp.async.bulk.shared::cta",
        &["dstMem", "not aligned to 16 bytes", "L14483"],
    );
    // 512 bytes from sh2 + 16 run past the end of shared memory.
    let body = "add.u32 %r28, %r10, 16;\n@%p7 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r28], 512;\nret;";
    assert_fault(
        body,
        32,
        "bulk_group [%rd1]",
        &["not within one shared allocation", "L14483"],
    );
}

// ---- the race detector (the canonical test of each class is in race_detector.rs) ----

/// A wait on the wrong phase (the parity of the phase "before" the first, complete at once)
/// does not observe the copy: the read after it is reported.
#[test]
fn a_wait_on_the_wrong_parity_observes_nothing() {
    let body = format!(
        "{}@%p7 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 64;\n\
         @%p7 cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r3], [%rd2], 64, [%r1];\n\
         mbarrier.arrive.shared.b64 %rd3, [%r1];\nmov.u32 %r6, 1;\n\
         WAIT:\nmbarrier.try_wait.parity.shared.b64 %p1, [%r1], %r6;\n@!%p1 bra WAIT;\n{}",
        init(32),
        copy_out("%r3", 16)
    );
    assert_fault(
        &body,
        32,
        "ld.shared.u32 %r22",
        &["destination of the `cp.async.bulk`", "has not completed"],
    );
}

/// Two copies on a phase whose expect-tx counts one, completed by warp 0's first wait while
/// warp 1 has not arrived yet (it waits for a flag warp 0 sets after that wait): the tx-count
/// goes below zero, the arrivals then complete, and the phase never does; the deadlock says why.
#[test]
fn a_tx_count_left_below_zero() {
    let body = format!(
        "{}@%p7 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 64;\n\
         @%p7 cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r3], [%rd2], 64, [%r1];\n\
         @%p7 cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r10], [%rd2], 64, [%r1];\n\
         mov.u32 %r6, 0;\nsetp.ge.u32 %p3, %r4, 32;\n@%p3 bra SECOND;\n\
         mbarrier.arrive.shared.b64 %rd3, [%r1];\nmbarrier.try_wait.parity.shared.b64 %p1, [%r1], %r6;\n\
         mov.u32 %r26, 1;\n@%p7 st.shared.u32 [%r10+256], %r26;\nbra.uni WAIT;\n\
         SECOND:\nld.shared.u32 %r29, [%r10+256];\nsetp.eq.u32 %p2, %r29, 0;\n@%p2 bra SECOND;\n\
         mbarrier.arrive.shared.b64 %rd3, [%r1];\n\
         WAIT:\nmbarrier.try_wait.parity.shared.b64 %p1, [%r1], %r6;\n@!%p1 bra WAIT;\nret;",
        init(64)
    );
    let e = run(&body, 64, &[0; 1024], &pattern(1024)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    assert!(e.message.contains("deadlock"), "{e}");
    assert!(e.message.contains("tx-count -64"), "{e}");
    assert!(e.message.contains("delivered more bytes than were expected"), "{e}");
}
