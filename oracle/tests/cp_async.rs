//! `cp.async` (§9.7.9.25.3, L14246-14430) on small kernels: the copy is made when its group
//! completes, src-size and ignore-src fill with zeros, `wait_group N` leaves the newest N groups
//! pending, and touching a copy's destination or source before its wait is a located runtime
//! error naming the rule (the manual calls the result undefined).

use oracle::error::ErrorKind;
use oracle::launch::{self, Buffers, LaunchFile};

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// Module-scope data: a 32-byte global source holding 1..=32, 64 bytes of shared memory.
const DATA: &str = ".global .align 16 .b8 src[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, \
                    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};\n\
                    .shared .align 16 .b8 sh[64];\n";

/// The kernel text: `body` after a prologue that puts `out` in %rd1, `src` in %rd2 and `sh` in
/// %r1.
fn kernel(body: &str) -> String {
    format!(
        "{HEADER}{DATA}.visible .entry k(.param .u64 out)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [out];\nmov.u64 %rd2, src;\nmov.u32 %r1, sh;\n{body}\n}}\n"
    )
}

/// Runs `body` in one thread with a zeroed 64-byte `out`.
fn run(body: &str) -> Result<Buffers, oracle::error::Error> {
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [1, 1, 1],
        "buffers": [{"name": "out", "size": 64}],
        "params": [{"buffer": "out"}],
        "limits": {"steps": 100_000, "stack": 1024},
    }))
    .unwrap();
    launch::run(&l, &kernel(body)).map(|(b, _)| b)
}

fn line_of(body: &str, needle: &str) -> u32 {
    kernel(body).lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
}

/// Copies `sh[off..off+16]` to `out[off..off+16]` (as two 64-bit words).
fn copy_out(off: u32) -> String {
    format!(
        "ld.shared.b64 %rd4, [%r1+{off}];\nst.global.b64 [%rd1+{off}], %rd4;\n\
         ld.shared.b64 %rd4, [%r1+{}];\nst.global.b64 [%rd1+{}], %rd4;\n",
        off + 8,
        off + 8
    )
}

#[test]
fn copies_complete_at_their_wait_with_src_size_and_ignore_src_zero_filled() {
    let body = format!(
        "mov.u32 %r2, 0xffffffff;\n\
         st.shared.b32 [%r1+32], %r2;\n\
         setp.eq.u32 %p1, %r2, 0xffffffff;\n\
         cp.async.ca.shared.global [%r1], [%rd2], 16, 5;\n\
         cp.async.commit_group;\n\
         cp.async.ca.shared.global [%r1+16], [%rd2+16], 8;\n\
         cp.async.commit_group;\n\
         cp.async.ca.shared.global [%r1+32], [%rd2], 4, %p1;\n\
         cp.async.commit_group;\n\
         cp.async.wait_group 2;\n{}\
         cp.async.wait_all;\n{}{}",
        copy_out(0),
        copy_out(16),
        copy_out(32)
    );
    let out = run(&body).unwrap_or_else(|e| panic!("{e}"));
    let b = &out[0].1;
    // src-size 5 of cp-size 16: bytes 1..=5, then zeros (L14279-14281).
    assert_eq!(&b[..16], &[1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    // A plain 8-byte copy.
    assert_eq!(&b[16..24], &[17, 18, 19, 20, 21, 22, 23, 24]);
    // ignore-src true: zeros over what the thread had stored there (L14283).
    assert_eq!(&b[32..36], &[0, 0, 0, 0]);
}

#[test]
fn wait_group_leaves_the_newest_groups_pending() {
    let body = format!(
        "cp.async.cg.shared.global [%r1], [%rd2], 16;\n\
         cp.async.commit_group;\n\
         cp.async.cg.shared.global [%r1+16], [%rd2+16], 16;\n\
         cp.async.commit_group;\n\
         cp.async.wait_group 1;\n{}\
         ld.shared.b32 %r3, [%r1+20];\n",
        copy_out(0)
    );
    let e = run(&body).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    assert_eq!(e.loc.map(|l| l.0), Some(line_of(&body, "[%r1+20]")), "{e}");
    let m = e.to_string();
    assert!(
        m.contains("read shared memory [0x14, 0x18)") && m.contains("has not completed") && m.contains("L14398"),
        "{m}"
    );
    // The line of the copy and the thread that issued it.
    let issued = line_of(&body, "[%r1+16], [%rd2+16]");
    assert!(
        m.contains(&format!("issued at line {issued} by thread (0, 0, 0)")),
        "{m}"
    );
}

#[test]
fn touching_a_copy_before_its_wait_is_an_error() {
    // Its destination, written.
    let e = run("cp.async.ca.shared.global [%r1], [%rd2], 4;\nst.shared.b32 [%r1], %r1;\n").unwrap_err();
    assert!(e.to_string().contains("write shared memory [0x0, 0x4)"), "{e}");
    // Its source, written before the copy has read it.
    let e =
        run("cp.async.ca.shared.global [%r1], [%rd2+8], 8;\ncp.async.commit_group;\nst.global.b32 [%rd2+12], %r1;\n")
            .unwrap_err();
    assert!(e.to_string().contains("write to the source of a `cp.async`"), "{e}");
    // Two copies to the same bytes, no wait between.
    let e = run("cp.async.ca.shared.global [%r1], [%rd2], 8;\ncp.async.ca.shared.global [%r1+4], [%rd2], 4;\n")
        .unwrap_err();
    assert!(e.to_string().contains("L14353"), "{e}");
    // A source-size register larger than cp-size (L14281).
    let e = run("mov.u32 %r2, 9;\ncp.async.ca.shared.global [%r1], [%rd2], 8, %r2;\n").unwrap_err();
    assert!(e.to_string().contains("src-size 9 exceeds its cp-size 8"), "{e}");
    // After the wait, all of it is allowed.
    run("cp.async.ca.shared.global [%r1], [%rd2+8], 8;\ncp.async.wait_all;\nst.global.b32 [%rd2+12], %r1;\nst.shared.b32 [%r1], %r1;\n")
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_masked_copy_reads_nothing_from_its_source() {
    // src-size 0 (Triton's masked loads) with an address in no buffer: zeros, no fault.
    let body = format!(
        "mov.u64 %rd5, 0x10;\n\
         cp.async.cg.shared.global [%r1], [%rd5], 16, 0;\n\
         cp.async.wait_all;\n{}",
        copy_out(0)
    );
    let out = run(&body).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&out[0].1[..16], &[0u8; 16]);
    // With bytes to read, the same address is an error.
    let e = run("mov.u64 %rd5, 0x10;\ncp.async.cg.shared.global [%r1], [%rd5], 16, 4;\n").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
}

#[test]
fn the_checker_holds_cp_size_and_src_size_to_the_manual() {
    // `.cg` copies 16 bytes only (L14257); a constant src-size past cp-size is undefined.
    let e = run("cp.async.cg.shared.global [%r1], [%rd2], 8;\n").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
    let e = run("cp.async.ca.shared.global [%r1], [%rd2], 8, 12;\n").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
}

#[test]
fn the_manuals_hinted_forms_bind_the_policy_after_cp_size() {
    // L14326 and L14329: with `.L2::cache_hint` the last operand is the cache policy, whether or
    // not a src-size or ignore-src precedes it (the policy is a hint, L14297: values as without).
    let body = format!(
        "createpolicy.fractional.L2::evict_last.b64 %rd5, 1.0;\n\
         setp.ne.u32 %p1, %r1, %r1;\n\
         cp.async.ca.shared.global.L2::cache_hint [%r1], [%rd2], 4, %rd5;\n\
         cp.async.cg.shared.global.L2::cache_hint [%r1+16], [%rd2+16], 16, %p1, %rd5;\n\
         cp.async.ca.shared.global.L2::cache_hint [%r1+32], [%rd2], 8, 3, %rd5;\n\
         cp.async.wait_all;\n{}{}{}",
        copy_out(0),
        copy_out(16),
        copy_out(32)
    );
    let out = run(&body).unwrap_or_else(|e| panic!("{e}"));
    let b = &out[0].1;
    assert_eq!(&b[..4], &[1, 2, 3, 4]);
    assert_eq!(&b[16..32], &(17..=32).collect::<Vec<u8>>()[..]);
    assert_eq!(&b[32..40], &[1, 2, 3, 0, 0, 0, 0, 0]);
}
