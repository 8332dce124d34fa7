//! sm_90's control and cache-hint instructions on small kernels: `griddepcontrol` (§9.7.13.13),
//! `setmaxnreg` (§9.7.19.5), `brkpt` (§9.7.19.1), `stacksave`/`stackrestore`/`alloca` (§9.7.17),
//! `discard`/`applypriority` (§9.7.9.16-17), `createpolicy` (§9.7.9.18). Expected values are hand
//! computed from the manual's text and the oracle's documented choices (the upward stack, the
//! policy encoding: spec/INTERPRETATIONS.md); errors are asserted with their rule's line.

use oracle::error::{Error, ErrorKind};
use oracle::launch::{self, Buffers, LaunchFile};

/// The first buffer's address (`oracle::mem::HEAP`).
const OUT: u64 = 0x7f10_0000_0000;

/// A kernel `k(out)` for `target` with `directives` after its header: `body` after a prologue
/// that puts `out` in %rd1 and %tid.x in %r0.
fn kernel(target: &str, directives: &str, body: &str) -> String {
    format!(
        ".version 8.7\n.target {target}\n.address_size 64\n.shared .align 16 .b8 sh[64];\n\
         .visible .entry k(.param .u64 out) {directives}\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n.reg .f32 %f<4>;\n\
         ld.param.u64 %rd1, [out];\nmov.u32 %r0, %tid.x;\n{body}\n}}\n"
    )
}

fn launch(ptx: &str, threads: u32) -> Result<Buffers, Error> {
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [threads, 1, 1],
        "buffers": [{"name": "out", "size": 256}],
        "params": [{"buffer": "out"}],
        "limits": {"steps": 1_000_000, "stack": 4096},
    }))
    .unwrap();
    launch::run(&l, ptx).map(|(b, _)| b)
}

/// `body` in one sm_90 thread.
fn run(body: &str) -> Result<Buffers, Error> {
    launch(&kernel("sm_90", "", body), 1)
}

fn line_of(ptx: &str, needle: &str) -> u32 {
    ptx.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle}")) as u32
        + 1
}

fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap())
}

// ---- griddepcontrol ----------------------------------------------------------------------------

#[test]
fn griddepcontrol_returns_at_once_in_a_launch_of_one_grid() {
    // No prerequisite grid: `.wait` has nothing to wait for (L18289); `.launch_dependents` has
    // no dependent to schedule (L18287), repeated or not.
    let out = run("griddepcontrol.launch_dependents;\ngriddepcontrol.launch_dependents;\n\
                   griddepcontrol.wait;\nmov.u32 %r1, 7;\nst.global.u32 [%rd1], %r1;\nret;")
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&out[0].1[..4], &[7, 0, 0, 0]);
}

// ---- setmaxnreg --------------------------------------------------------------------------------

/// Two warpgroups (256 threads): warpgroup 0 runs `wg0`, warpgroup 1 `wg1`, then every thread
/// stores its %tid.x + 1 to out[tid] (a byte).
fn two_warpgroups(directives: &str, wg0: &str, wg1: &str) -> String {
    kernel(
        "sm_90a",
        directives,
        &format!(
            "setp.lt.u32 %p1, %r0, 128;\n@!%p1 bra WG1;\n{wg0}\nbra DONE;\nWG1:\n{wg1}\nDONE:\n\
             add.u32 %r2, %r0, 1;\ncvt.u64.u32 %rd2, %r0;\nadd.u64 %rd2, %rd1, %rd2;\n\
             st.global.u8 [%rd2], %r2;\nret;"
        ),
    )
}

#[test]
fn setmaxnreg_moves_registers_between_warpgroups_through_the_pool() {
    // `.maxnreg 128`, 8 warps: a pool of 1024 per-thread registers, all in use. Warpgroup 0's
    // `.inc` to 216 needs 4 × 88 = 352 of them and waits for them (L31743); warpgroup 1's `.dec`
    // to 40 frees 4 × 88 = 352.
    let ptx = two_warpgroups(
        ".maxnreg 128",
        "setmaxnreg.inc.sync.aligned.u32 216;",
        "setmaxnreg.dec.sync.aligned.u32 40;",
    );
    let out = launch(&ptx, 256).unwrap_or_else(|e| panic!("{e}"));
    let want: Vec<u8> = (1..=256u32).map(|v| v as u8).collect();
    assert_eq!(out[0].1, want);
    // To 224, 4 × 96 = 384 > 352: the `.inc` never gets its registers.
    let ptx = two_warpgroups(
        ".maxnreg 128",
        "setmaxnreg.inc.sync.aligned.u32 224;",
        "setmaxnreg.dec.sync.aligned.u32 40;",
    );
    let e = launch(&ptx, 256).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    assert!(
        e.message.contains("deadlock") && e.message.contains("`setmaxnreg.inc.sync.aligned.u32 224;`"),
        "{e}"
    );
}

#[test]
fn setmaxnreg_counts_are_checked_as_ptxas_checks_them() {
    // imm-reg-count in 24..256, a multiple of 8 (L31747; ptxas 12.9 "expected to be multiple of
    // 8", "expected to be in range [24..256]").
    for (n, why) in [
        (100, "a multiple of 8 in 24..=256, not 100"),
        (16, "not 16"),
        (264, "not 264"),
    ] {
        let ptx = kernel("sm_90a", "", &format!("setmaxnreg.inc.sync.aligned.u32 {n};\nret;"));
        let e = launch(&ptx, 128).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Type, "{e}");
        assert!(e.message.contains(why), "{e}");
    }
    // A `.dec` above the kernel's `.maxnreg` (ptxas 12.9: C7406; L31753).
    let ptx = kernel("sm_90a", ".maxnreg 128", "setmaxnreg.dec.sync.aligned.u32 232;\nret;");
    let e = launch(&ptx, 128).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
    assert!(
        e.message.contains("`.maxnreg 128`") && e.message.contains("C7406"),
        "{e}"
    );
    // Not on sm_90 (sm_90a and the other `a` targets only, L31767).
    let ptx = kernel("sm_90", "", "setmaxnreg.dec.sync.aligned.u32 40;\nret;");
    assert_eq!(launch(&ptx, 128).unwrap_err().kind, ErrorKind::Type);
}

#[test]
fn setmaxnreg_against_the_warps_count_is_undefined() {
    // (`.inc` from above the count, L31755: race_detector.rs's
    // `setmaxnreg_inc_from_above_the_count`.) `.dec` to 96, then (after a barrier) `.dec` to 120: at least 120 before (L31753).
    let ptx = kernel(
        "sm_90a",
        ".maxnreg 128",
        "setmaxnreg.dec.sync.aligned.u32 96;\nbar.sync 0;\nsetmaxnreg.dec.sync.aligned.u32 120;\nret;",
    );
    let e = launch(&ptx, 128).unwrap_err();
    assert!(
        e.message.contains("while warp 0 has 96") && e.message.contains("L31753"),
        "{e}"
    );
    // `.dec` to 96 then `.inc` back to 128 is what the manual describes: it runs.
    let ptx = kernel(
        "sm_90a",
        ".maxnreg 128",
        "setmaxnreg.dec.sync.aligned.u32 96;\nbar.sync 0;\nsetmaxnreg.inc.sync.aligned.u32 128;\nret;",
    );
    launch(&ptx, 128).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn setmaxnreg_needs_one_instruction_for_the_warpgroup_and_runs_twice_with_a_barrier() {
    // (Half a warpgroup, L31759, and two without a barrier between, L31745: race_detector.rs's
    // `setmaxnreg_by_part_of_a_warpgroup`, `setmaxnreg_twice_without_a_barrier_between`.)
    // Warp 1 goes to another `setmaxnreg` (L31745: the same instruction in all warps).
    let ptx = kernel(
        "sm_90a",
        "",
        "setp.ge.u32 %p1, %r0, 32;\nsetp.lt.u32 %p2, %r0, 64;\nand.pred %p1, %p1, %p2;\n\
         @%p1 bra OTHER;\nsetmaxnreg.dec.sync.aligned.u32 40;\nret;\nOTHER:\nsetmaxnreg.dec.sync.aligned.u32 48;\nret;",
    );
    let e = launch(&ptx, 128).unwrap_err();
    assert!(
        e.message.contains("all threads of the warpgroup must execute the same"),
        "{e}"
    );
    // With a barrier between, two in a row run; without `.maxnreg` the counts are not known
    // (ptxas 12.9 ignores the instruction, C7508).
    let ptx = kernel(
        "sm_90a",
        "",
        "setmaxnreg.dec.sync.aligned.u32 40;\nbar.sync 0;\nsetmaxnreg.inc.sync.aligned.u32 64;\nret;",
    );
    launch(&ptx, 128).unwrap_or_else(|e| panic!("{e}"));
}

// ---- brkpt -------------------------------------------------------------------------------------

#[test]
fn brkpt_stops_the_launch_where_it_executes() {
    let body = "setp.eq.u32 %p1, %r0, 1;\n@%p1 brkpt;\nmov.u32 %r1, 3;\nst.global.u32 [%rd1], %r1;\nbrkpt;\nret;";
    let ptx = kernel("sm_90", "", body);
    let e = launch(&ptx, 1).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    // The guarded one is skipped (thread 0's %p1 is false); the plain one stops it.
    assert_eq!(
        e.loc,
        Some((
            ptx.lines()
                .collect::<Vec<_>>()
                .iter()
                .rposition(|l| *l == "brkpt;")
                .unwrap() as u32
                + 1,
            1
        )),
        "{e}"
    );
    assert!(
        e.message
            .starts_with("`brkpt;`: thread (0,0,0) of block (0,0,0): `brkpt` executed")
            && e.message.contains("L31605"),
        "{e}"
    );
}

// ---- stack -------------------------------------------------------------------------------------

#[test]
fn alloca_allocates_above_the_frame_and_stackrestore_frees() {
    // The stack pointer starts past the kernel's frame (which holds `lv`), at s0, a multiple of
    // 16 in the oracle. Its stack grows upward: alloca(12, 16) → s0, alloca(4) (alignment 8)
    // → s0 + 16, then the pointer is s0 + 20; stackrestore to the saved s0 frees both.
    let body = ".local .align 8 .b8 lv[8];\n\
                mov.u64 %rd9, 0x1122334455667788;\nst.local.u64 [lv], %rd9;\n\
                stacksave.u64 %rd3;\n\
                alloca.u64 %rd4, 12, 16;\n\
                alloca.u64 %rd5, 4;\n\
                stacksave.u64 %rd6;\n\
                mov.u32 %r1, 0xabcdef01;\nst.local.u32 [%rd5], %r1;\nst.local.u32 [%rd4+8], %r1;\n\
                ld.local.u32 %r2, [%rd5];\nld.local.u64 %rd10, [lv];\n\
                stackrestore.u64 %rd3;\nstacksave.u64 %rd7;\n\
                st.global.u64 [%rd1], %rd3;\nst.global.u64 [%rd1+8], %rd4;\nst.global.u64 [%rd1+16], %rd5;\n\
                st.global.u64 [%rd1+24], %rd6;\nst.global.u64 [%rd1+32], %rd7;\nst.global.u32 [%rd1+40], %r2;\n\
                st.global.u64 [%rd1+48], %rd10;\nret;";
    let out = run(body).unwrap_or_else(|e| panic!("{e}"));
    let b = &out[0].1;
    let s0 = u64_at(b, 0);
    assert!(s0 >= 8 && s0.is_multiple_of(16), "{s0}");
    assert_eq!(
        [u64_at(b, 8), u64_at(b, 16), u64_at(b, 24), u64_at(b, 32)],
        [s0, s0 + 16, s0 + 20, s0]
    );
    assert_eq!(&b[40..44], &0xabcdef01u32.to_le_bytes());
    // The frame's variable is untouched by the allocations.
    assert_eq!(u64_at(b, 48), 0x1122334455667788);
}

#[test]
fn stack_misuse_is_located() {
    // Memory freed by stackrestore (L30747).
    let body = "stacksave.u64 %rd3;\nalloca.u64 %rd4, 16;\nstackrestore.u64 %rd3;\nld.local.u32 %r1, [%rd4];\nret;";
    let e = run(body).unwrap_err();
    assert_eq!(
        e.loc.map(|l| l.0),
        Some(line_of(&kernel("sm_90", "", body), "ld.local")),
        "{e}"
    );
    assert!(
        e.message.contains("(+4 bytes) is outside the thread's local memory"),
        "{e}"
    );
    // A value stacksave did not give (L30697).
    let e = run("alloca.u64 %rd4, 16;\nmov.u64 %rd3, 1000;\nstackrestore.u64 %rd3;\nret;").unwrap_err();
    assert!(
        e.message
            .contains("`stackrestore` to 0x3e8, which is not a stack pointer of the current frame")
            && e.message.contains("L30697"),
        "{e}"
    );
    // immAlign a power of two (L30753; ptxas 12.9 "Alignment must be a power of two").
    let e = run("alloca.u64 %rd4, 16, 12;\nret;").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
    assert!(e.message.contains("power of two"), "{e}");
    // Past the launch's stack limit (4096 bytes here): an overflow (L30741).
    let e = run("mov.u64 %rd3, 5000;\nalloca.u64 %rd4, %rd3;\nret;").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Limit, "{e}");
    assert!(
        e.message.contains("`alloca` of 5000 bytes") && e.message.contains("past the limit of 4096"),
        "{e}"
    );
}

// ---- discard, applypriority --------------------------------------------------------------------

#[test]
fn discarded_bytes_are_undefined_until_written() {
    // (A load of them: race_detector.rs's `discarded_bytes_read_before_they_are_written`.)
    // An atomic reads them too; bytes 128.. were not discarded.
    let e = run("discard.L2 [%rd1], 128;\natom.global.add.u32 %r1, [%rd1+124], 1;\nret;").unwrap_err();
    assert!(e.message.contains(&format!("{:#x}", OUT + 124)), "{e}");
    run("discard.L2 [%rd1], 128;\nld.global.u32 %r1, [%rd1+128];\nret;").unwrap_or_else(|e| panic!("{e}"));
    // So does a `cp.async` of them (its source is read when it completes; a write before then
    // is an error of its own): reported where it is issued.
    let body = "discard.L2 [%rd1], 128;\nmov.u32 %r4, sh;\ncp.async.ca.shared.global [%r4], [%rd1+16], 8;\nret;";
    let ptx = kernel("sm_90", "", body);
    let e = launch(&ptx, 1).unwrap_err();
    assert_eq!(e.loc.map(|l| l.0), Some(line_of(&ptx, "cp.async")), "{e}");
    assert!(
        e.message.contains(&format!("reads global address {:#x}", OUT + 16)) && e.message.contains("L13374"),
        "{e}"
    );
}

#[test]
fn discard_and_applypriority_take_an_aligned_global_line_of_128_bytes() {
    // applypriority changes no value (L13338).
    let out = run(
        "mov.u32 %r1, 9;\nst.global.u32 [%rd1+8], %r1;\napplypriority.global.L2::evict_normal [%rd1], 128;\n\
                   ld.global.u32 %r2, [%rd1+8];\nst.global.u32 [%rd1+12], %r2;\nret;",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&out[0].1[8..16], &[9, 0, 0, 0, 9, 0, 0, 0]);
    // 128-byte aligned (L13380, L13344).
    let e = run("discard.global.L2 [%rd1+64], 128;\nret;").unwrap_err();
    assert!(
        e.message.contains(&format!(
            "`discard`'s address {:#x} is not aligned to 128 bytes (L13380)",
            OUT + 64
        )),
        "{e}"
    );
    let e = run("applypriority.L2::evict_normal [%rd1+4], 128;\nret;").unwrap_err();
    assert!(e.message.contains("(L13344)"), "{e}");
    // A generic address outside the .global window (L13378): shared memory's.
    let e = run("mov.u64 %rd2, sh;\ncvta.shared.u64 %rd2, %rd2;\ndiscard.L2 [%rd2], 128;\nret;").unwrap_err();
    assert!(
        e.message.contains("is not in the `.global` window (undefined: L13378)"),
        "{e}"
    );
    // size is 128 only (L13376; ptxas 12.9 "expected to be 128").
    let e = run("discard.global.L2 [%rd1], 64;\nret;").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
}

// ---- createpolicy ------------------------------------------------------------------------------

#[test]
fn createpolicy_values_follow_the_documented_encoding() {
    // Bits 63..60 kind (1 range, 2 fractional), 59..58 primary, 57..56 secondary priority
    // (evict_last 0, evict_normal 1, evict_first 2, evict_unchanged 3, the default secondary).
    let body = "createpolicy.fractional.L2::evict_last.b64 %rd2, 0.5;\n\
                createpolicy.fractional.L2::evict_normal.L2::evict_first.b64 %rd3;\n\
                createpolicy.range.L2::evict_last.L2::evict_first.b64 %rd4, [%rd1], 0x100000, 0x200000;\n\
                mov.u64 %rd9, 0x1234;\ncreatepolicy.cvt.L2.b64 %rd5, %rd9;\n\
                ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd4;\n\
                st.global.u64 [%rd1], %rd2;\nst.global.u64 [%rd1+8], %rd3;\n\
                st.global.u64 [%rd1+16], %rd4;\nst.global.u64 [%rd1+24], %rd5;\nret;";
    let out = run(body).unwrap_or_else(|e| panic!("{e}"));
    let b = &out[0].1;
    // 0.5f = 0x3f000000; 1.0f (the default fraction, L13451) = 0x3f800000.
    assert_eq!(u64_at(b, 0), 0x2300_0000_3f00_0000);
    assert_eq!(u64_at(b, 8), 0x2600_0000_3f80_0000);
    // primary-size 0x100000 in bits 31..0, total-size 0x200000 / 256 = 0x2000 in bits 55..32.
    assert_eq!(u64_at(b, 16), 0x1200_2000_0010_0000);
    assert_eq!(u64_at(b, 24), 0x1234);
}

#[test]
fn createpolicy_operands_outside_their_rules() {
    // Constants: type errors, as ptxas 12.9 (L13451, L13441).
    let e = run("createpolicy.fractional.L2::evict_last.b64 %rd2, 1.5;\nret;").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
    assert!(e.message.contains("outside (0.0, 1.0] (L13451)"), "{e}");
    let e = run("createpolicy.range.L2::evict_last.b64 %rd2, [%rd1], 0x200000, 0x100000;\nret;").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
    assert!(
        e.message
            .contains("primary-size 2097152 exceeds its total-size 1048576"),
        "{e}"
    );
    // Registers: runtime errors.
    let e = run("mov.f32 %f1, 0f00000000;\ncreatepolicy.fractional.L2::evict_last.b64 %rd2, %f1;\nret;").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    assert!(
        e.message
            .contains("fraction 0 is outside its valid range (0.0, 1.0] (L13451)"),
        "{e}"
    );
    let e = run("mov.u32 %r1, 64;\nmov.u32 %r2, 32;\ncreatepolicy.range.global.L2::evict_first.b64 %rd2, [%rd1], %r1, %r2;\nret;")
        .unwrap_err();
    assert!(
        e.message
            .contains("primary-size 64 exceeds its total-size 32 (it must be at most total-size, L13441)"),
        "{e}"
    );
}

// ---- executed no-ops ---------------------------------------------------------------------------

#[test]
fn nanosleep_fences_and_prefetches_run() {
    let out = run("nanosleep.u32 100;\nfence.mbarrier_init.release.cluster;\n\
                   prefetch.global.L2 [%rd1];\nprefetch.global.L2::evict_last [%rd1];\nprefetchu.L1 [%rd1];\n\
                   prefetch.L1 [%rd1];\nmov.u32 %r1, 1;\nst.global.u32 [%rd1], %r1;\nret;")
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&out[0].1[..4], &[1, 0, 0, 0]);
}
