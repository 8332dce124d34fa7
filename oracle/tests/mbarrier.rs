//! mbarrier (§9.7.13.15, L18340-19240) on small kernels: phases over several warps by state and
//! by parity, tx-count, `pending_count`, `arrive_drop`, `cp.async.mbarrier.arrive{.noinc}`, and
//! one test per class of undefined behaviour the oracle reports (a located runtime error naming
//! the rule's manual line) instead of choosing an outcome.

use oracle::error::{Error, ErrorKind};
use oracle::launch::{self, LaunchFile};

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// 16 global source words 1..=16; a barrier, a counter and 256 bytes of shared memory.
const DATA: &str = ".global .align 16 .b32 src[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};\n\
                    .shared .align 8 .b64 bar;\n.shared .align 4 .b32 cnt;\n.shared .align 16 .b8 sh[256];\n";

/// The kernel: `body` after a prologue that puts `out` in %rd1, `src` in %rd2, `bar`'s shared
/// address in %r1, `cnt`'s in %r2, `sh`'s in %r3 and %tid.x in %r4.
fn kernel(body: &str) -> String {
    format!(
        "{HEADER}{DATA}.visible .entry k(.param .u64 out)\n{{\n\
         .reg .pred %p<8>;\n.reg .b32 %r<32>;\n.reg .b64 %rd<16>;\n\
         ld.param.u64 %rd1, [out];\nmov.u64 %rd2, src;\nmov.u32 %r1, bar;\nmov.u32 %r2, cnt;\n\
         mov.u32 %r3, sh;\nmov.u32 %r4, %tid.x;\n{body}\n}}\n"
    )
}

/// Runs `body` with `threads` threads in one CTA; `out` is 1024 zeroed u32 words.
fn run(body: &str, threads: u32) -> Result<Vec<u32>, Error> {
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [threads, 1, 1],
        "buffers": [{"name": "out", "size": 4096}],
        "params": [{"buffer": "out"}],
        "limits": {"steps": 50_000_000, "stack": 1024},
    }))
    .unwrap();
    let (b, _) = launch::run(&l, &kernel(body))?;
    let out = &b.iter().find(|(n, _)| n == "out").unwrap().1;
    Ok(out
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

/// The line of `needle` in the kernel text.
fn line_of(body: &str, needle: &str) -> u32 {
    kernel(body).lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
}

/// Asserts a runtime error at the line of `at` whose message names `rule`.
fn assert_fault(body: &str, threads: u32, at: &str, rule: &str) {
    let e = run(body, threads).expect_err("undefined behaviour must be reported");
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    assert_eq!(e.loc.map(|l| l.0), Some(line_of(body, at)), "{e}");
    assert!(e.message.contains(rule), "`{rule}` missing from: {e}");
}

/// Thread 0 initializes the barrier with `count` (a register), then a CTA barrier.
fn init(count: &str) -> String {
    format!("setp.eq.u32 %p7, %r4, 0;\nmov.u32 %r5, {count};\n@%p7 mbarrier.init.shared.b64 [%r1], %r5;\nbar.sync 0;\n")
}

/// Each of 128 threads (4 warps), in three phases: adds 1 to `cnt`, arrives, waits (`wait`:
/// by the state in %rd3 or by the phase parity in %r6), then stores what `cnt` holds to
/// out[3 * tid + phase]. A wait that returned before the last warp arrived would see less than
/// 128 per phase.
fn phases(wait: &str) -> String {
    format!(
        "{}mov.u32 %r6, 0;\n\
         LOOP:\n\
         atom.shared.add.u32 %r7, [%r2], 1;\n\
         mbarrier.arrive.shared.b64 %rd3, [%r1];\n\
         WAIT:\n{wait}\n@!%p1 bra WAIT;\n\
         ld.shared.u32 %r8, [%r2];\n\
         mad.lo.u32 %r9, %r4, 3, %r6;\n\
         mul.wide.u32 %rd4, %r9, 4;\nadd.u64 %rd5, %rd1, %rd4;\nst.global.u32 [%rd5], %r8;\n\
         bar.sync 0;\n\
         add.u32 %r6, %r6, 1;\n\
         setp.lt.u32 %p2, %r6, 3;\n@%p2 bra LOOP;\nret;",
        init("128")
    )
}

fn expected_phases() -> Vec<u32> {
    let mut v = vec![0u32; 1024];
    for t in 0..128 {
        for k in 0..3 {
            v[3 * t + k] = 128 * (k as u32 + 1);
        }
    }
    v
}

#[test]
fn phases_over_four_warps_by_state() {
    let out = run(&phases("mbarrier.test_wait.shared.b64 %p1, [%r1], %rd3;"), 128).unwrap();
    assert_eq!(out, expected_phases());
    let out = run(
        &phases("mbarrier.try_wait.shared::cta.b64 %p1, [%r1], %rd3, 1000;"),
        128,
    )
    .unwrap();
    assert_eq!(out, expected_phases());
}

#[test]
fn phases_over_four_warps_by_parity() {
    let wait = "and.b32 %r10, %r6, 1;\nmbarrier.try_wait.parity.shared.b64 %p1, [%r1], %r10;";
    assert_eq!(run(&phases(wait), 128).unwrap(), expected_phases());
    // The parity of the phase before: complete at once (phase 0: parity 1).
    let body = format!(
        "{}mbarrier.test_wait.parity.shared.b64 %p1, [%r1], 1;\nselp.u32 %r8, 1, 0, %p1;\n\
         mbarrier.test_wait.parity.shared.b64 %p1, [%r1], 0;\nselp.u32 %r9, 1, 0, %p1;\n\
         st.global.v2.u32 [%rd1], {{%r8, %r9}};",
        init("1")
    );
    assert_eq!(run(&body, 1).unwrap()[..2], [1, 0]);
}

/// A phase waits for its tx-count as well as its arrivals (L18486-18490).
#[test]
fn tx_count_holds_the_phase_until_complete_tx() {
    let test = |k: u32| {
        format!(
            "mbarrier.test_wait.shared.b64 %p1, [%r1], %rd3;\nselp.u32 %r8, 1, 0, %p1;\nst.global.u32 [%rd1+{}], %r8;\n",
            4 * k
        )
    };
    let body = format!(
        "{}mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 16;\n\
         mbarrier.arrive.shared.b64 %rd3, [%r1];\n{}\
         mbarrier.complete_tx.shared.b64 [%r1], 10;\n{}\
         mbarrier.complete_tx.shared.b64 [%r1], 6;\n{}\
         mbarrier.arrive.expect_tx.shared.b64 %rd3, [%r1], 4;\n{}\
         mbarrier.complete_tx.shared::cluster.b64 [%r1], 4;\n{}",
        init("1"),
        test(0),
        test(1),
        test(2),
        test(3),
        test(4)
    );
    assert_eq!(run(&body, 1).unwrap()[..5], [0, 0, 1, 0, 1]);
}

/// `pending_count` gives the pending count before the `.noComplete` arrive (L19224), and
/// `arrive_drop` lowers the expected count of the later phases (L18859).
#[test]
fn pending_count_and_arrive_drop() {
    let body = format!(
        "{}mbarrier.arrive.noComplete.shared.b64 %rd3, [%r1], 1;\n\
         mbarrier.pending_count.b64 %r8, %rd3;\n\
         mbarrier.arrive_drop.noComplete.shared.b64 %rd3, [%r1], 2;\n\
         mbarrier.pending_count.b64 %r9, %rd3;\n\
         mbarrier.arrive.shared.b64 %rd4, [%r1];\n\
         mbarrier.test_wait.shared.b64 %p1, [%r1], %rd4;\n\
         selp.u32 %r10, 1, 0, %p1;\n\
         mbarrier.arrive.noComplete.shared.b64 %rd3, [%r1], 1;\n\
         mbarrier.pending_count.b64 %r11, %rd3;\n\
         st.global.v4.u32 [%rd1], {{%r8, %r9, %r10, %r11}};",
        init("4")
    );
    // Phase 0: 4 pending, then 3; the drop of 2 completes nothing (1 left), the arrive does.
    // Phase 1 expects 4 - 2 = 2.
    assert_eq!(run(&body, 1).unwrap()[..4], [4, 3, 1, 2]);
}

/// `cp.async.mbarrier.arrive`: without `.noinc` the init count counts the threads only; with
/// it, each thread's asynchronous arrivals too (the manual's examples, L18964-19010). The
/// copies are in place once the phase completes.
#[test]
fn cp_async_mbarrier_arrive_with_and_without_noinc() {
    let body = |arrive: &str, count: &str| {
        format!(
            "{}mul.wide.u32 %rd4, %r4, 4;\nadd.u64 %rd5, %rd2, %rd4;\nadd.u32 %r9, %r3, %r4;\nadd.u32 %r9, %r9, %r4;\n\
             add.u32 %r9, %r9, %r4;\nadd.u32 %r9, %r9, %r4;\n\
             cp.async.ca.shared.global [%r9], [%rd5], 4;\n\
             {arrive} [%r1];\n\
             mbarrier.arrive.shared.b64 %rd3, [%r1];\n\
             WAIT:\nmbarrier.test_wait.shared.b64 %p1, [%r1], %rd3;\n@!%p1 bra WAIT;\n\
             sub.u32 %r10, 15, %r4;\nmul.lo.u32 %r10, %r10, 4;\nadd.u32 %r10, %r3, %r10;\n\
             ld.shared.u32 %r11, [%r10];\nadd.u64 %rd6, %rd1, %rd4;\nst.global.u32 [%rd6], %r11;\nret;",
            init(count)
        )
    };
    let want: Vec<u32> = (1..=16).rev().collect();
    let out = run(&body("cp.async.mbarrier.arrive.shared.b64", "16"), 16).unwrap();
    assert_eq!(out[..16], want[..]);
    let out = run(&body("cp.async.mbarrier.arrive.noinc.shared::cta.b64", "32"), 16).unwrap();
    assert_eq!(out[..16], want[..]);
    // `.noinc` with an init count for the threads only: the async arrivals complete phase 0
    // early, and the threads' own arrives are on phase 1, with no wait that saw phase 0 done.
    let b = body("cp.async.mbarrier.arrive.noinc.shared.b64", "16");
    assert_fault(&b, 16, "mbarrier.arrive.shared.b64 %rd3", "L18456");
}

#[test]
fn an_operation_on_an_uninitialized_object_is_reported() {
    let body = "mbarrier.arrive.shared.b64 %rd3, [%r1];";
    assert_fault(body, 1, "mbarrier.arrive", "L18374");
    // After `inval` too.
    let body = format!(
        "{}mbarrier.inval.shared.b64 [%r1];\nmbarrier.arrive.shared.b64 %rd3, [%r1];",
        init("1")
    );
    assert_fault(&body, 1, "mbarrier.arrive", "L18616");
}

#[test]
fn a_plain_access_to_an_initialized_object_is_reported() {
    let body = format!("{}st.shared.u32 [%r1+4], %r4;", init("1"));
    assert_fault(&body, 1, "st.shared.u32 [%r1+4]", "L18374");
    let body = format!("{}ld.shared.u64 %rd3, [%r1];", init("1"));
    assert_fault(&body, 1, "ld.shared.u64 %rd3, [%r1]", "L18374");
    // Invalidated, the memory is free again.
    let body = format!(
        "{}mbarrier.inval.shared.b64 [%r1];\nst.shared.u32 [%r1+4], %r4;",
        init("1")
    );
    run(&body, 1).unwrap();
}

#[test]
fn init_of_a_live_object_is_reported() {
    let body = format!("{}mbarrier.init.shared.b64 [%r1], 2;", init("1"));
    assert_fault(&body, 1, "mbarrier.init.shared.b64 [%r1], 2", "L18574");
}

#[test]
fn counts_out_of_range_are_reported() {
    assert_fault(&init("0"), 1, "mbarrier.init", "L18418-18422");
    assert_fault(&init("1048576"), 1, "mbarrier.init", "L18418-18422");
    // More arrivals than pending: the pending count would go below 0.
    let body = format!(
        "{}mov.u32 %r8, 2;\nmbarrier.arrive.shared.b64 %rd3, [%r1], %r8;",
        init("1")
    );
    assert_fault(&body, 1, "mbarrier.arrive", "L18424-18428");
    // tx-count past 2^20 - 1.
    let body = format!(
        "{}mbarrier.expect_tx.shared.b64 [%r1], 1048575;\nmbarrier.expect_tx.shared.b64 [%r1], 1;",
        init("1")
    );
    assert_fault(&body, 1, "mbarrier.expect_tx.shared.b64 [%r1], 1;", "L18430-18434");
}

#[test]
fn an_arrive_before_the_previous_phase_was_observed_is_reported() {
    let body = format!(
        "{}mbarrier.arrive.shared.b64 %rd3, [%r1];\nmbarrier.arrive.shared.b64 %rd4, [%r1];",
        init("1")
    );
    assert_fault(&body, 1, "%rd4", "L18456");
    // A wait that returned True in between makes it valid.
    let body = format!(
        "{}mbarrier.arrive.shared.b64 %rd3, [%r1];\nmbarrier.test_wait.shared.b64 %p1, [%r1], %rd3;\n\
         mbarrier.arrive.shared.b64 %rd4, [%r1];",
        init("1")
    );
    run(&body, 1).unwrap();
}

#[test]
fn a_no_complete_arrive_that_completes_is_reported() {
    let body = format!("{}mbarrier.arrive.noComplete.shared.b64 %rd3, [%r1], 2;", init("2"));
    assert_fault(&body, 1, "noComplete", "L18767");
}

#[test]
fn waits_on_a_stale_or_foreign_state_are_reported() {
    // Phase 2 asked about a state of phase 0.
    let body = format!(
        "{}mbarrier.arrive.shared.b64 %rd3, [%r1];\nmbarrier.test_wait.shared.b64 %p1, [%r1], %rd3;\n\
         mbarrier.arrive.shared.b64 %rd4, [%r1];\nmbarrier.test_wait.shared.b64 %p2, [%r1], %rd3;",
        init("1")
    );
    assert_fault(&body, 1, "%p2", "L19057-19061");
    // A state of another object.
    let body = format!(
        "{}mbarrier.init.shared.b64 [%r3], 1;\nmbarrier.arrive.shared.b64 %rd3, [%r3];\n\
         mbarrier.test_wait.shared.b64 %p1, [%r1], %rd3;",
        init("1")
    );
    assert_fault(&body, 1, "test_wait", "L19049");
}

#[test]
fn pending_count_of_a_completing_arrive_state_is_reported() {
    let body = format!(
        "{}mbarrier.arrive.shared.b64 %rd3, [%r1];\nmbarrier.pending_count.b64 %r8, %rd3;",
        init("2")
    );
    assert_fault(&body, 1, "pending_count", "L19222");
}

#[test]
fn a_misaligned_object_is_reported() {
    let body = "add.u32 %r9, %r3, 4;\nmbarrier.init.shared.b64 [%r9], 1;";
    let e = run(body, 1).unwrap_err();
    assert!(e.message.contains("not aligned"), "{e}");
}

/// A wait whose phase cannot complete: the spinning warps are a deadlock, not a hang.
#[test]
fn spinning_on_a_phase_that_never_completes_is_a_deadlock() {
    let body = format!(
        "{}mbarrier.arrive.shared.b64 %rd3, [%r1];\nWAIT:\n\
         mbarrier.try_wait.shared.b64 %p1, [%r1], %rd3;\n@!%p1 bra WAIT;",
        init("65")
    );
    let e = run(&body, 64).unwrap_err();
    assert!(
        e.message.contains("deadlock") && e.message.contains("spin on mbarrier waits"),
        "{e}"
    );
}
