//! The oracle's race detector for asynchronous operations: the one table of the misuse classes
//! it reports, with one canonical test each, asserting the whole located message (the
//! instruction and its line and column, the thread and block, the address where there is one,
//! and the manual's rule with its line). Other suites hold further scenarios of a class (named
//! in parentheses), never a second canonical test.
//!
//! | class | rule | test |
//! |---|---|---|
//! | `cp.async` destination read before the issuing thread's wait | L14398-14402 | `cp_async_destination_read_before_its_wait` |
//! | `cp.async` destination written before the wait | L14398-14402 | `cp_async_destination_written_before_its_wait` |
//! | `cp.async` global source written before the copy completed | L14291, L14398 | `cp_async_source_written_before_the_copy_completed` |
//! | two pending `cp.async` to the same bytes | L14353, L14404 | `cp_async_two_pending_copies_to_the_same_bytes` (`cp_async.rs`) |
//! | `wgmma` accumulator accessed before `wgmma.wait_group` | L26478 | `wgmma_accumulator_read_before_its_wait_group` |
//! | no `wgmma.fence` before the first `wgmma` | L26392, L26396 | `wgmma_without_a_fence_before_the_first` |
//! | `wgmma` register accessed since the last fence | L26394 | `wgmma_accumulator_written_since_the_fence` |
//! | `wgmma` reads a generic write with no `fence.proxy.async` | L26398 | `wgmma_reads_a_generic_write_without_a_proxy_fence` (`wgmma.rs`) |
//! | mbarrier operation on no object | L18374, L18616 | `mbarrier_operation_on_no_object` |
//! | plain access to an mbarrier object's bytes | L18374, L18444 | `mbarrier_object_bytes_accessed_as_memory` |
//! | `mbarrier.init` of a live object | L18574 | `mbarrier_init_of_a_live_object` |
//! | arrive beyond the pending count | L18424-18428 | `mbarrier_arrive_beyond_the_pending_count` |
//! | `.noComplete` arrive that completes the phase | L18767, L18873 | `mbarrier_no_complete_arrive_that_completes_the_phase` |
//! | arrive before the previous phase was observed | L18456 | `mbarrier_arrive_before_the_previous_phase_was_observed` |
//! | wait on another object's state | L19049 | `mbarrier_wait_on_another_objects_state` |
//! | wait on a stale phase | L19057-19061 | `mbarrier_wait_on_a_stale_phase` |
//! | parity neither 0 nor 1 | L19053 | `mbarrier_parity_neither_0_nor_1` |
//! | `pending_count` of a state no `.noComplete` arrive returned | L19222 | `mbarrier_pending_count_of_a_state_no_no_complete_arrive_returned` (`mbarrier.rs`) |
//! | bulk copy destination read before its phase completes | L14223-14225, L14243 | `bulk_destination_read_before_its_phase_completes` (`bulk.rs`: `a_wait_on_the_wrong_parity_observes_nothing`) |
//! | bulk copy destination written before its phase completes | L14223-14225, L14243 | `bulk_destination_written_before_its_phase_completes` |
//! | bulk copy shared source overwritten before it was read | L15362, L14223 | `bulk_shared_source_overwritten_before_it_was_read` (`tma.rs`: `the_store_source_is_not_reused_before_wait_group_read`) |
//! | bulk copy global source overwritten before it was read | L15362, L14223 | `bulk_global_source_overwritten_before_it_was_read` |
//! | generic write to a bulk copy's shared source without `fence.proxy.async` | L14239-14241, L17278 | `bulk_shared_source_written_through_the_generic_proxy_without_a_fence` |
//! | tx-count that counts too few bytes | L18462 | `bulk_tx_count_that_counts_too_few_bytes` (`bulk.rs`: `a_tx_count_left_below_zero`) |
//! | tx-count that counts too many bytes (a deadlock naming the object) | L18462, L18486-18490 | `bulk_tx_count_that_counts_too_many_bytes` |
//! | bulk copy over a live mbarrier object | L18374, L18444 | `bulk_copy_over_a_live_mbarrier_object` |
//! | `mbarrier.inval` of an object a pending bulk copy has still to signal | L18616 | `mbarrier_invalidated_with_a_bulk_copy_in_flight` |
//! | tensor copy destination read before its phase completes | L14223-14225, L14243 | `tensor_copy_destination_read_before_its_phase_completes` |
//! | tensor map written through the generic proxy, used without the tensormap-proxy fences | L14904, L17280, L17266 | `tensor_map_written_through_the_generic_proxy_used_without_the_fences` (`tma.rs`: release without acquire) |
//! | `barrier.cluster.arrive` twice before the wait | L17175 | `cluster_barrier_arrived_twice` |
//! | `barrier.cluster.wait` without an arrive | L17171 | `cluster_barrier_waited_without_an_arrive` (`clusters.rs`: waiting twice) |
//! | divergent `.aligned` `barrier.cluster` | L17185 | `cluster_barrier_aligned_but_divergent` |
//! | distributed shared memory of an exited CTA accessed | L89 | `distributed_shared_memory_of_an_exited_cta_accessed` |
//! | a CTA exiting while a peer's access to its shared memory is unordered before the exit | L89 | `cta_exited_while_a_peer_accesses_its_shared_memory` |
//! | `setmaxnreg.inc` from above the warp's count | L31755 | `setmaxnreg_inc_from_above_the_count` (`control.rs`: `.dec` from below, L31753) |
//! | `setmaxnreg` by part of a warpgroup | L31759 | `setmaxnreg_by_part_of_a_warpgroup` (`control.rs`: another instruction in one warp, L31745) |
//! | two `setmaxnreg` with no barrier between | L31745 | `setmaxnreg_twice_without_a_barrier_between` |
//! | bytes read after `discard` before they are written | L13374 | `discarded_bytes_read_before_they_are_written` (`control.rs`: by an atomic, by a `cp.async`) |
//!
//! The messages' addresses and lines are worked out from the kernel text: `bar` is at shared 0,
//! `sh` at 0x10 (its 16-byte alignment after 8 bytes), `tile` at 0x400 (1024-aligned); a line is
//! the instruction's line in [`kernel`]. An mbarrier object's `[%r1]` is shared 0x0.
//!
//! Not a class: `mbarrier.inval` of an object with arrivals or transactions pending is not
//! undefined in the manual (L18606-18616 make only a missing object undefined), and the oracle
//! completes `cp.async.mbarrier.arrive`'s copies at the instruction, so nothing is pending then.
//! A bulk operation still in flight towards the object is another matter: its complete-tx,
//! unobserved, may come after the invalidation, an mbarrier operation where no object is
//! (L18616), so the invalidation is reported.

use oracle::error::{Error, ErrorKind};
use oracle::launch::{self, LaunchFile};

/// Module data: shared `bar` (8 bytes at shared 0), `sh` (256 bytes at shared 0x10), `tile`
/// (2048 bytes at shared 0x400, 1024-aligned) and a 32-byte global `src` holding 1..=32.
const DATA: &str = ".shared .align 8 .b64 bar;\n.shared .align 16 .b8 sh[256];\n.shared .align 1024 .b8 tile[2048];\n\
                    .global .align 16 .b8 src[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, \
                    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};\n";

/// What a test adds to the one-CTA launch of [`kernel`]: entry parameters after `out` and
/// performance directives (both on the entry's line, so no line moves), the launch's
/// parameters after `out`, its grid and cluster.
struct Frame {
    params: &'static str,
    directives: &'static str,
    launch_params: Vec<serde_json::Value>,
    grid: [u32; 3],
    cluster: Option<[u32; 3]>,
}

impl Frame {
    /// One CTA, `out` only.
    fn cta() -> Frame {
        Frame {
            params: "",
            directives: "",
            launch_params: Vec::new(),
            grid: [1, 1, 1],
            cluster: None,
        }
    }

    /// A grid of two CTAs, one cluster of both.
    fn cluster_of_two() -> Frame {
        Frame {
            grid: [2, 1, 1],
            cluster: Some([2, 1, 1]),
            ..Frame::cta()
        }
    }
}

/// The kernel: `body` after a prologue (lines 13-18) that puts `out` in %rd1, `src` in %rd2,
/// `bar` in %r1, `sh` in %r2, `tile` in %r3 and %tid.x in %r0. `body` starts at line 19 (the
/// line the messages give for a `cp.async` issued first).
fn kernel(body: &str) -> String {
    kernel_in(&Frame::cta(), body)
}

/// [`kernel`] with `frame`'s parameters and directives.
fn kernel_in(frame: &Frame, body: &str) -> String {
    format!(
        ".version 8.7\n.target sm_90a\n.address_size 64\n{DATA}.visible .entry k(.param .u64 out{}){}\n{{\n\
         .reg .pred %p<8>;\n.reg .b32 %r<128>;\n.reg .b64 %rd<16>;\n\
         ld.param.u64 %rd1, [out];\nmov.u64 %rd2, src;\nmov.u32 %r1, bar;\nmov.u32 %r2, sh;\n\
         mov.u32 %r3, tile;\nmov.u32 %r0, %tid.x;\n{body}\nret;\n}}\n",
        frame.params, frame.directives
    )
}

/// Runs `body` in `threads` threads of one CTA and returns its error.
fn fault(body: &str, threads: u32) -> Error {
    fault_in(&Frame::cta(), body, threads)
}

/// Runs `body` in `frame` with `threads` threads per CTA and returns its error.
fn fault_in(frame: &Frame, body: &str, threads: u32) -> Error {
    let mut params = vec![serde_json::json!({"buffer": "out"})];
    params.extend(frame.launch_params.iter().cloned());
    let mut j = serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": frame.grid, "block": [threads, 1, 1],
        "buffers": [{"name": "out", "size": 1024}],
        "params": params,
        "limits": {"steps": 10_000_000, "stack": 1024},
    });
    if let Some(c) = frame.cluster {
        j["cluster"] = serde_json::json!(c);
    }
    let l: LaunchFile = serde_json::from_value(j).unwrap();
    let e = launch::run(&l, &kernel_in(frame, body)).expect_err("the misuse must be reported");
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    e
}

/// The line of the first line of `body` containing `needle`, in the kernel.
fn line_of(body: &str, needle: &str) -> u32 {
    kernel(body)
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle}")) as u32
        + 1
}

/// Asserts the error's location (`needle`'s line, column 1) and its whole message.
fn assert_located(e: &Error, body: &str, needle: &str, message: &str) {
    assert_eq!(e.loc, Some((line_of(body, needle), 1)), "{e}");
    assert_eq!(e.message, message);
}

// ---- cp.async ----------------------------------------------------------------------------------

#[test]
fn cp_async_destination_read_before_its_wait() {
    let body = "cp.async.ca.shared.global [%r2], [%rd2], 16;\ncp.async.commit_group;\nld.shared.u32 %r4, [%r2+8];";
    let e = fault(body, 1);
    assert_located(&e, body, "ld.shared",
        "`ld.shared.u32 %r4, [%r2+8];`: thread (0,0,0) of block (0,0,0): read shared memory [0x18, 0x1c) while a `cp.async` to it has not completed (issued at line 19 by thread (0, 0, 0)): a `cp.async` destination holds its data only after the issuing thread's `cp.async.wait_group`/`wait_all` (L14398-14402)",
    );
}

#[test]
fn cp_async_destination_written_before_its_wait() {
    let body = "cp.async.ca.shared.global [%r2], [%rd2], 8;\nst.shared.u16 [%r2+6], %r0;";
    let e = fault(body, 1);
    assert_located(&e, body, "st.shared",
        "`st.shared.u16 [%r2+6], %r0;`: thread (0,0,0) of block (0,0,0): write shared memory [0x16, 0x18) while a `cp.async` to it has not completed (issued at line 19 by thread (0, 0, 0)): a `cp.async` destination holds its data only after the issuing thread's `cp.async.wait_group`/`wait_all` (L14398-14402)",
    );
}

#[test]
fn cp_async_source_written_before_the_copy_completed() {
    let body = "cp.async.cg.shared.global [%r2], [%rd2+16], 16;\ncp.async.commit_group;\nst.global.u32 [%rd2+20], %r0;";
    let e = fault(body, 1);
    assert_located(&e, body, "st.global",
        "`st.global.u32 [%rd2+20], %r0;`: thread (0,0,0) of block (0,0,0): write to the source of a `cp.async` that has not completed (issued at line 19 by thread (0, 0, 0)): the copy may read it at any time until the issuing thread waits for it (L14291, L14398)",
    );
}

#[test]
fn cp_async_two_pending_copies_to_the_same_bytes() {
    let body = "cp.async.ca.shared.global [%r2], [%rd2], 8;\ncp.async.ca.shared.global [%r2+4], [%rd2+8], 4;";
    let e = fault(body, 1);
    assert_located(&e, body, "[%r2+4]",
        "`cp.async.ca.shared.global [%r2+4], [%rd2+8], 4;`: thread (0,0,0) of block (0,0,0): copy to shared memory [0x14, 0x18) while a `cp.async` to it has not completed (issued at line 19 by thread (0, 0, 0)): two `cp.async` copies to the same bytes are unordered unless a wait separates them (L14353, L14404)",
    );
}

// ---- wgmma.mma_async ---------------------------------------------------------------------------

/// Lines 19-26 of a `wgmma` kernel: the descriptors of A and B, both `tile` with leading and
/// stride offsets 0 and no swizzle (the values do not matter here), the accumulators zeroed, %p2
/// true. The thread a warpgroup-wide error names is the first lane of the warp that completes
/// the warpgroup's meeting (warp 3 at the first `wgmma`), or the first lane that touches a
/// pending register in the oracle's deterministic order of warps (here warp 1's).
const WG_SETUP: &str = "bfe.u32 %r6, %r3, 4, 14;\ncvt.u64.u32 %rd8, %r6;\nmov.b64 %rd9, %rd8;\n\
                        mov.b32 %r100, 0;\nmov.b32 %r101, 0;\nmov.b32 %r102, 0;\nmov.b32 %r103, 0;\n\
                        setp.eq.u32 %p2, %r0, %r0;\n";
const WG_MMA: &str = "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r100, %r101, %r102, %r103}, %rd8, %rd9, %p2;\n";

#[test]
fn wgmma_accumulator_read_before_its_wait_group() {
    let body = format!(
        "{WG_SETUP}wgmma.fence.sync.aligned;\n{WG_MMA}wgmma.commit_group.sync.aligned;\nmov.b32 %r120, %r102;\n"
    );
    let e = fault(&body, 128);
    assert_located(&e, &body, "%r120",
        "`mov.b32 %r120, %r102;`: thread (32,0,0) of block (0,0,0): this instruction accesses an accumulator register of the `wgmma.mma_async` at line 28 whose wgmma-group has not been waited for: wait for it with `wgmma.wait_group` first (undefined otherwise, L26478)",
    );
}

#[test]
fn wgmma_without_a_fence_before_the_first() {
    let body = format!("{WG_SETUP}{WG_MMA}");
    let e = fault(&body, 128);
    assert_located(&e, &body, "wgmma.mma_async",
        "`wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r100, %r101, %r102, %r103}, %rd8, %rd9, %p2;`: thread (0,0,0) of block (0,0,0): no `wgmma.fence` before the thread's first `wgmma.mma_async` (required, L26392; undefined otherwise, L26396)",
    );
}

#[test]
fn wgmma_accumulator_written_since_the_fence() {
    let body = format!("{WG_SETUP}wgmma.fence.sync.aligned;\nmov.b32 %r101, 7;\n{WG_MMA}");
    let e = fault(&body, 128);
    assert_located(&e, &body, "wgmma.mma_async",
        "`wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r100, %r101, %r102, %r103}, %rd8, %rd9, %p2;`: thread (96,0,0) of block (0,0,0): an accumulator register of this `wgmma.mma_async` was accessed since the thread's last `wgmma.fence`: a `wgmma.fence` must order the access before it (L26394; undefined otherwise, L26396)",
    );
}

#[test]
fn wgmma_reads_a_generic_write_without_a_proxy_fence() {
    // Thread 5 stores into A's matrix; the barrier orders it, but no `fence.proxy.async` does.
    let body = format!(
        "{WG_SETUP}setp.eq.u32 %p3, %r0, 5;\n@%p3 st.shared.u32 [%r3+36], %r0;\nbar.sync 0;\nwgmma.fence.sync.aligned;\n{WG_MMA}"
    );
    let e = fault(&body, 128);
    assert_located(&e, &body, "wgmma.mma_async",
        "`wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r100, %r101, %r102, %r103}, %rd8, %rd9, %p2;`: thread (32,0,0) of block (0,0,0): this `wgmma.mma_async` reads shared memory byte 0x424, which the store at line 28 of thread (5, 0, 0) wrote through the generic proxy with no `fence.proxy.async` after it: the read (async proxy) is not ordered after the write, so the matrix it sees is undefined (an async proxy fence is required, L26398; L24880-24882)",
    );
}

// ---- mbarrier ----------------------------------------------------------------------------------

#[test]
fn mbarrier_operation_on_no_object() {
    let body = "mbarrier.arrive.shared.b64 %rd3, [%r1];";
    let e = fault(body, 1);
    assert_located(&e, body, "mbarrier.arrive",
        "`mbarrier.arrive.shared.b64 %rd3, [%r1];`: thread (0,0,0) of block (0,0,0): mbarrier object at shared 0x0: no mbarrier object is initialized there: any mbarrier operation but `mbarrier.init` on it is undefined (L18374, L18616)",
    );
}

#[test]
fn mbarrier_object_bytes_accessed_as_memory() {
    let body = "mbarrier.init.shared.b64 [%r1], 1;\nst.shared.u32 [%r1+4], %r0;";
    let e = fault(body, 1);
    assert_located(&e, body, "st.shared",
        "`st.shared.u32 [%r1+4], %r0;`: thread (0,0,0) of block (0,0,0): write shared memory [0x4, 0x8), which holds the initialized mbarrier object at 0x0: any operation on it but the mbarrier instructions is undefined (L18374); `mbarrier.inval` it before reusing its memory (L18444)",
    );
}

#[test]
fn mbarrier_init_of_a_live_object() {
    let body = "mbarrier.init.shared.b64 [%r1], 1;\nmbarrier.init.shared.b64 [%r1], 2;";
    let e = fault(body, 1);
    assert_located(&e, body, "[%r1], 2",
        "`mbarrier.init.shared.b64 [%r1], 2;`: thread (0,0,0) of block (0,0,0): mbarrier object at shared 0x0: an mbarrier object is already initialized there: `mbarrier.init` on a valid object is undefined; invalidate it with `mbarrier.inval` first (L18574, L18444)",
    );
}

#[test]
fn mbarrier_arrive_beyond_the_pending_count() {
    let body = "mbarrier.init.shared.b64 [%r1], 2;\nmbarrier.arrive.shared.b64 %rd3, [%r1], 3;";
    let e = fault(body, 1);
    assert_located(&e, body, "mbarrier.arrive",
        "`mbarrier.arrive.shared.b64 %rd3, [%r1], 3;`: thread (0,0,0) of block (0,0,0): mbarrier object at shared 0x0: the pending arrival count would be -1, outside its range [0, 1048575]: undefined (L18424-18428)",
    );
}

#[test]
fn mbarrier_no_complete_arrive_that_completes_the_phase() {
    let body = "mbarrier.init.shared.b64 [%r1], 1;\nmbarrier.arrive.noComplete.shared.b64 %rd3, [%r1], 1;";
    let e = fault(body, 1);
    assert_located(&e, body, "noComplete",
        "`mbarrier.arrive.noComplete.shared.b64 %rd3, [%r1], 1;`: thread (0,0,0) of block (0,0,0): mbarrier object at shared 0x0: this `.noComplete` arrive would complete the current phase: undefined (L18767, L18873)",
    );
}

#[test]
fn mbarrier_arrive_before_the_previous_phase_was_observed() {
    let body = "mbarrier.init.shared.b64 [%r1], 1;\nmbarrier.arrive.shared.b64 %rd3, [%r1];\nmbarrier.arrive.shared.b64 %rd4, [%r1];";
    let e = fault(body, 1);
    assert_located(&e, body, "%rd4",
        "`mbarrier.arrive.shared.b64 %rd4, [%r1];`: thread (0,0,0) of block (0,0,0): mbarrier object at shared 0x0: arrive-on in phase 1 before any `mbarrier.test_wait`/`try_wait` returned True for phase 0: for each phase one must precede the next phase's arrive-on (L18456)",
    );
}

#[test]
fn mbarrier_wait_on_another_objects_state() {
    let body = "mbarrier.init.shared.b64 [%r1], 1;\nmbarrier.init.shared.b64 [%r2], 1;\n\
                mbarrier.arrive.shared.b64 %rd3, [%r2];\nmbarrier.test_wait.shared.b64 %p1, [%r1], %rd3;";
    let e = fault(body, 1);
    assert_located(&e, body, "test_wait",
        "`mbarrier.test_wait.shared.b64 %p1, [%r1], %rd3;`: thread (0,0,0) of block (0,0,0): mbarrier object at shared 0x0: the state operand was returned by an arrive on the mbarrier object at shared 0x10, not this one: the phase it names is not this object's (L19049)",
    );
}

#[test]
fn mbarrier_wait_on_a_stale_phase() {
    let body = "mbarrier.init.shared.b64 [%r1], 1;\nmbarrier.arrive.shared.b64 %rd3, [%r1];\n\
                mbarrier.test_wait.shared.b64 %p1, [%r1], %rd3;\nmbarrier.arrive.shared.b64 %rd4, [%r1];\n\
                mbarrier.test_wait.shared.b64 %p2, [%r1], %rd3;";
    let e = fault(body, 1);
    assert_located(&e, body, "%p2",
        "`mbarrier.test_wait.shared.b64 %p2, [%r1], %rd3;`: thread (0,0,0) of block (0,0,0): mbarrier object at shared 0x0: the state names phase 0 (mod 2^28) while the object is in phase 2: test_wait/try_wait are valid only for the current phase and the one immediately before it (L19057-19061)",
    );
}

#[test]
fn mbarrier_parity_neither_0_nor_1() {
    let body =
        "mbarrier.init.shared.b64 [%r1], 1;\nmov.u32 %r4, 2;\nmbarrier.test_wait.parity.shared.b64 %p1, [%r1], %r4;";
    let e = fault(body, 1);
    assert_located(&e, body, "parity",
        "`mbarrier.test_wait.parity.shared.b64 %p1, [%r1], %r4;`: thread (0,0,0) of block (0,0,0): phaseParity 2 is neither 0 nor 1, the parities of a phase (L19053)",
    );
}

#[test]
fn mbarrier_pending_count_of_a_state_no_no_complete_arrive_returned() {
    let body = "mbarrier.init.shared.b64 [%r1], 2;\nmbarrier.arrive.shared.b64 %rd3, [%r1];\nmbarrier.pending_count.b64 %r4, %rd3;";
    let e = fault(body, 1);
    assert_located(&e, body, "pending_count",
        "`mbarrier.pending_count.b64 %r4, %rd3;`: thread (0,0,0) of block (0,0,0): the state operand is not the result of an `mbarrier.arrive.noComplete`/`arrive_drop.noComplete`: undefined (L19222)",
    );
}

// ---- bulk copies -------------------------------------------------------------------------------

/// Lines 19-20: `bar` initialized for one arrival, expecting 16 bytes.
const BULK_INIT: &str =
    "mbarrier.init.shared.b64 [%r1], 1;\nmbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 16;\n";
/// 16 bytes of `src` to `sh` on `bar` (line 21 after [`BULK_INIT`]).
const BULK_LOAD: &str = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd2], 16, [%r1];\n";
/// The thread arrives on `bar` and waits for phase 0 to complete.
const ARRIVE_WAIT: &str = "mbarrier.arrive.shared.b64 %rd3, [%r1];\nmov.u32 %r6, 0;\n\
                           WAIT:\nmbarrier.try_wait.parity.shared.b64 %p1, [%r1], %r6;\n@!%p1 bra WAIT;";

#[test]
fn bulk_destination_read_before_its_phase_completes() {
    let body = format!("{BULK_INIT}{BULK_LOAD}ld.shared.u32 %r4, [%r2+8];");
    let e = fault(&body, 1);
    assert_located(&e, &body, "ld.shared",
        "`ld.shared.u32 %r4, [%r2+8];`: thread (0,0,0) of block (0,0,0): read of shared memory [0x18, 0x1c), the destination of the `cp.async.bulk` at line 21 by thread (0, 0, 0), which has not completed: its results may be accessed only after the phase it signals completes, as `mbarrier.test_wait`/`try_wait` on the object at shared 0x0 returning True for phase 0 observes (L14223-14225, L14243)",
    );
}

#[test]
fn mbarrier_invalidated_with_a_bulk_copy_in_flight() {
    let body = format!("{BULK_INIT}{BULK_LOAD}mbarrier.inval.shared.b64 [%r1];");
    let e = fault(&body, 1);
    assert_located(&e, &body, "mbarrier.inval",
        "`mbarrier.inval.shared.b64 [%r1];`: thread (0,0,0) of block (0,0,0): `mbarrier.inval` of the mbarrier object at shared 0x0 while the `cp.async.bulk` of 16 bytes issued at line 21 by thread (0, 0, 0) has not performed its complete-tx on it: that complete-tx may come after the invalidation, an mbarrier operation where no valid object is, undefined (L18616); wait for the phase it completes before invalidating (L14529)",
    );
    // After the wait that observes the phase, the invalidation is what the manual asks for.
    let ok = format!("{BULK_INIT}{BULK_LOAD}{ARRIVE_WAIT}\nmbarrier.inval.shared.b64 [%r1];");
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [1, 1, 1],
        "buffers": [{"name": "out", "size": 1024}], "params": [{"buffer": "out"}],
    }))
    .unwrap();
    launch::run(&l, &kernel(&ok)).expect("inval after the phase completed");
}

#[test]
fn bulk_destination_written_before_its_phase_completes() {
    let body = format!("{BULK_INIT}{BULK_LOAD}st.shared.u32 [%r2+4], %r0;");
    let e = fault(&body, 1);
    assert_located(&e, &body, "st.shared",
        "`st.shared.u32 [%r2+4], %r0;`: thread (0,0,0) of block (0,0,0): write of shared memory [0x14, 0x18), the destination of the `cp.async.bulk` at line 21 by thread (0, 0, 0), which has not completed: its results may be accessed only after the phase it signals completes, as `mbarrier.test_wait`/`try_wait` on the object at shared 0x0 returning True for phase 0 observes (L14223-14225, L14243)",
    );
}

#[test]
fn bulk_shared_source_overwritten_before_it_was_read() {
    let body = "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], 16;\ncp.async.bulk.commit_group;\n\
                st.shared.u32 [%r2+12], %r0;";
    let e = fault(body, 1);
    assert_located(&e, body, "st.shared",
        "`st.shared.u32 [%r2+12], %r0;`: thread (0,0,0) of block (0,0,0): write to shared memory [0x1c, 0x20), the source of the `cp.async.bulk` at line 19 by thread (0, 0, 0), which has not read it yet: the source may be reused only after `cp.async.bulk.wait_group.read` (L15362) or the operation's completion (L14223)",
    );
}

#[test]
fn bulk_global_source_overwritten_before_it_was_read() {
    let body = format!("{BULK_INIT}{BULK_LOAD}st.global.u32 [%rd2+4], %r0;");
    let e = fault(&body, 1);
    assert_located(&e, &body, "st.global",
        "`st.global.u32 [%rd2+4], %r0;`: thread (0,0,0) of block (0,0,0): write to global memory [0x7f0000000004, 0x7f0000000008), the source of the `cp.async.bulk` at line 21 by thread (0, 0, 0), which has not read it yet: the source may be reused only after `cp.async.bulk.wait_group.read` (L15362) or the operation's completion (L14223)",
    );
}

#[test]
fn bulk_shared_source_written_through_the_generic_proxy_without_a_fence() {
    let body = "st.shared.u32 [%r2], %r0;\ncp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], 16;";
    let e = fault(body, 1);
    assert_located(&e, body, "cp.async.bulk",
        "`cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], 16;`: thread (0,0,0) of block (0,0,0): this bulk copy reads shared memory byte 0x10 through the async proxy, and the write at line 19 by thread (0, 0, 0) (through the generic proxy) has no `fence.proxy.async` after it: the copy may not see it; a proxy fence must order generic writes before async-proxy reads (L14239-14241, L17278)",
    );
}

#[test]
fn bulk_tx_count_that_counts_too_few_bytes() {
    let body = format!(
        "{BULK_INIT}{BULK_LOAD}cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2+16], [%rd2+16], 16, [%r1];\n{ARRIVE_WAIT}"
    );
    let e = fault(&body, 1);
    assert_located(&e, &body, "[%r2+16]",
        "`cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2+16], [%rd2+16], 16, [%r1];`: thread (0,0,0) of block (0,0,0): this `cp.async.bulk` of 16 bytes was issued in phase 0 of the mbarrier object at shared 0x0, which completed without it (observed at line 26 by thread (0, 0, 0)): its complete-tx would count toward phase 1. The tx-count of a phase must be set to the total of the asynchronous operations it tracks (L18462): an expect-tx counted fewer bytes than the operations",
    );
}

#[test]
fn bulk_tx_count_that_counts_too_many_bytes() {
    let body = format!(
        "mbarrier.init.shared.b64 [%r1], 1;\nmbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 32;\n{BULK_LOAD}{ARRIVE_WAIT}"
    );
    let e = fault(&body, 1);
    // A deadlock: the thread spins at the wait's branch (line 26).
    assert_located(&e, &body, "@!%p1 bra",
        "deadlock in block (0,0,0): 1 thread waits (thread (0,0,0) at `@!%p1 bra WAIT;`) and none can proceed; 0 threads have exited (the mbarrier object at shared 0x0 is in phase 0 with tx-count 16, and no pending asynchronous operation signals it: more bytes were expected (expect-tx) than its asynchronous operations deliver; a phase completes only when its tx-count reaches zero, L18462, L18486-18490) (the running threads only spin on mbarrier waits that return False: 10000 rounds with no store, atomic, copy, mbarrier change, exit or barrier release)",
    );
}

#[test]
fn bulk_copy_over_a_live_mbarrier_object() {
    let body = "mbarrier.init.shared.b64 [%r1], 1;\n\
                cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd2], 16, [%r1];";
    let e = fault(body, 1);
    assert_located(&e, body, "cp.async.bulk",
        "`cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd2], 16, [%r1];`: thread (0,0,0) of block (0,0,0): bulk copy to shared memory [0x0, 0x10), which holds the initialized mbarrier object at 0x0: any operation on it but the mbarrier instructions is undefined (L18374); `mbarrier.inval` it before reusing its memory (L18444)",
    );
}

// ---- tensor copies -----------------------------------------------------------------------------

/// A kernel with a tensor map parameter `tmap`: 16 `u32` of `out` in one 16-element box.
fn tensor_frame() -> Frame {
    Frame {
        params: ", .param .align 64 .b8 tmap[128]",
        launch_params: vec![serde_json::json!({"tensor_map": {"encode": "tiled", "data_type": "u32",
            "buffer": "out", "global_dim": [16], "global_strides": [], "box_dim": [16]}})],
        ..Frame::cta()
    }
}

#[test]
fn tensor_copy_destination_read_before_its_phase_completes() {
    let body = "mbarrier.init.shared.b64 [%r1], 1;\nmbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 64;\n\
                mov.u32 %r20, 0;\nmov.u64 %rd5, tmap;\ncvta.param.u64 %rd5, %rd5;\n\
                cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd5, {%r20}], [%r1];\n\
                ld.shared.u32 %r4, [%r3+60];";
    let e = fault_in(&tensor_frame(), body, 1);
    assert_located(&e, body, "ld.shared",
        "`ld.shared.u32 %r4, [%r3+60];`: thread (0,0,0) of block (0,0,0): read of shared memory [0x43c, 0x440), the destination of the `cp.async.bulk.tensor` at line 24 by thread (0, 0, 0), which has not completed: its results may be accessed only after the phase it signals completes, as `mbarrier.test_wait`/`try_wait` on the object at shared 0x0 returning True for phase 0 observes (L14223-14225, L14243)",
    );
}

/// The map copied from the parameter into `out` + 512 with generic stores, then used by a
/// tensor copy with neither `fence.proxy.tensormap::generic.release` nor `.acquire`.
#[test]
fn tensor_map_written_through_the_generic_proxy_used_without_the_fences() {
    let body = "mov.u64 %rd5, tmap;\ncvta.param.u64 %rd5, %rd5;\nadd.u64 %rd9, %rd1, 512;\nmov.u32 %r25, 0;\n\
                MAP:\ncvt.u64.u32 %rd10, %r25;\nadd.u64 %rd11, %rd5, %rd10;\nld.u64 %rd12, [%rd11];\n\
                add.u64 %rd13, %rd9, %rd10;\nst.global.u64 [%rd13], %rd12;\nadd.u32 %r25, %r25, 8;\n\
                setp.lt.u32 %p3, %r25, 128;\n@%p3 bra MAP;\n\
                mbarrier.init.shared.b64 [%r1], 1;\nmbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 64;\n\
                mov.u32 %r20, 0;\n\
                cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd9, {%r20}], [%r1];";
    let e = fault_in(&tensor_frame(), body, 1);
    assert_located(&e, body, "cp.async.bulk.tensor",
        "`cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd9, {%r20}], [%r1];`: thread (0,0,0) of block (0,0,0): this `cp.async.bulk.tensor` reads the tensor map at 0x7f1000000200 through the tensormap proxy (L14904), and its byte 0x7f1000000200 was written through the generic proxy at line 28 by thread (0, 0, 0) without the proxy fences that order the two: a release (`fence.proxy.tensormap::generic.release`, or `tensormap.cp_fenceproxy`'s, L19264) after the write and a `fence.proxy.tensormap::generic.acquire [tmap], 128` by the reading thread after that (L17280, L17266; the manual's examples L17346-17350, L19296-19302)",
    );
}

// ---- clusters ----------------------------------------------------------------------------------

#[test]
fn cluster_barrier_arrived_twice() {
    let body = "barrier.cluster.arrive;\nbarrier.cluster.arrive.relaxed;\nbarrier.cluster.wait;";
    let e = fault_in(&Frame::cluster_of_two(), body, 32);
    assert_located(&e, body, "arrive.relaxed",
        "`barrier.cluster.arrive.relaxed;`: thread (0,0,0) of block (0,0,0): the thread arrives at the cluster barrier a second time before waiting on it: each thread must arrive only once before the barrier completes (L17175)",
    );
}

#[test]
fn cluster_barrier_waited_without_an_arrive() {
    let body = "barrier.cluster.wait;";
    let e = fault_in(&Frame::cluster_of_two(), body, 32);
    assert_located(&e, body, "barrier.cluster.wait",
        "`barrier.cluster.wait;`: thread (0,0,0) of block (0,0,0): `barrier.cluster.wait` with no `barrier.cluster.arrive` of the thread before it in this phase: the wait is for every non-exited thread of the cluster to arrive (L17171), this one included, so it would never return",
    );
}

#[test]
fn cluster_barrier_aligned_but_divergent() {
    let body = "setp.lt.u32 %p1, %r0, 16;\n@%p1 barrier.cluster.arrive.aligned;\nbarrier.cluster.wait;";
    let e = fault_in(&Frame::cluster_of_two(), body, 32);
    assert_located(&e, body, "@%p1 barrier",
        "`@%p1 barrier.cluster.arrive.aligned;`: thread (16,0,0) of block (0,0,0): its guard is false here but true in other threads of the warp: every thread of the warp must execute the same `.aligned` `barrier.cluster` (undefined otherwise, L17185)",
    );
}

#[test]
fn distributed_shared_memory_of_an_exited_cta_accessed() {
    let body = "mov.u32 %r5, %cluster_ctarank;\nsetp.eq.u32 %p1, %r5, 0;\n@%p1 exit;\n\
                mapa.shared::cluster.u32 %r6, %r2, 0;\nst.shared::cluster.u32 [%r6], %r0;";
    let e = fault_in(&Frame::cluster_of_two(), body, 32);
    assert_located(&e, body, "st.shared::cluster",
        "`st.shared::cluster.u32 [%r6], %r0;`: thread (0,0,0) of block (1,0,0): accesses the shared memory of CTA rank 0 of the cluster (block (0,0,0)), whose threads have all exited: a CTA must not exit before its peers' shared-memory operations on it complete (L89)",
    );
}

/// Rank 1 reads rank 0's `sh` after a cluster barrier, and rank 0 exits with no second
/// barrier: the exit is not ordered after the read (L89).
#[test]
fn cta_exited_while_a_peer_accesses_its_shared_memory() {
    let body = "barrier.cluster.arrive;\nbarrier.cluster.wait;\nmov.u32 %r5, %cluster_ctarank;\n\
                setp.eq.u32 %p1, %r5, 0;\n@%p1 exit;\n\
                mapa.shared::cluster.u32 %r6, %r2, 0;\nld.shared::cluster.u32 %r7, [%r6];";
    let e = fault_in(&Frame::cluster_of_two(), body, 32);
    assert_located(&e, body, "ld.shared::cluster",
        "`ld.shared::cluster.u32 %r7, [%r6];`: thread (0,0,0) of block (1,0,0): accesses the shared memory of CTA rank 0 of the cluster (block (0,0,0)), which exits (its last thread at line 23) with nothing ordering the access before the exit (a `barrier.cluster` phase: the accessing thread's next arrive, then a wait of that phase in the exiting CTA; or an arrive-on of the accessing thread on an mbarrier of the exiting CTA whose phase a thread there observed complete): a CTA must not exit while its peers may still access its shared memory (L89)",
    );
}

// ---- control -----------------------------------------------------------------------------------

/// A warpgroup's kernel with `.maxnreg 128`.
fn maxnreg_128() -> Frame {
    Frame {
        directives: " .maxnreg 128",
        ..Frame::cta()
    }
}

#[test]
fn setmaxnreg_inc_from_above_the_count() {
    let body = "setmaxnreg.inc.sync.aligned.u32 64;";
    let e = fault_in(&maxnreg_128(), body, 128);
    assert_located(&e, body, "setmaxnreg",
        "`setmaxnreg.inc.sync.aligned.u32 64;`: thread (0,0,0) of block (0,0,0): `setmaxnreg.inc` to 64 registers per thread, while warp 0 has 128: the count before `.inc` must be at most imm-reg-count (undefined otherwise, L31755)",
    );
}

#[test]
fn setmaxnreg_by_part_of_a_warpgroup() {
    let body = "setmaxnreg.dec.sync.aligned.u32 40;";
    let e = fault_in(&maxnreg_128(), body, 64);
    assert_located(&e, body, "setmaxnreg",
        "`setmaxnreg.dec.sync.aligned.u32 40;`: thread (32,0,0) of block (0,0,0): `setmaxnreg.dec.sync.aligned.u32` needs all 128 threads of the warpgroup (warps 0..4) to execute it together (`.sync.aligned`); 64 do (undefined otherwise: `.aligned`, L31759)",
    );
}

#[test]
fn setmaxnreg_twice_without_a_barrier_between() {
    let body = "setmaxnreg.dec.sync.aligned.u32 96;\nsetmaxnreg.inc.sync.aligned.u32 128;";
    let e = fault_in(&maxnreg_128(), body, 128);
    assert_located(&e, body, "setmaxnreg.inc",
        "`setmaxnreg.inc.sync.aligned.u32 128;`: thread (0,0,0) of block (0,0,0): `setmaxnreg.inc`: this thread has not synchronized with the warpgroup (a CTA barrier such as `bar.sync`) since its `setmaxnreg` at 19:1: the warps of the warpgroup must synchronize explicitly before the next `setmaxnreg` (undefined otherwise, L31745)",
    );
}

#[test]
fn discarded_bytes_read_before_they_are_written() {
    let body = "discard.global.L2 [%rd1], 128;\nst.global.u32 [%rd1], %r0;\nld.global.u32 %r4, [%rd1];\n\
                ld.global.u32 %r5, [%rd1+4];";
    let e = fault(body, 1);
    assert_located(&e, body, "%r5",
        "`ld.global.u32 %r5, [%rd1+4];`: thread (0,0,0) of block (0,0,0): reads global address 0x7f1000000004, whose contents are undefined: `discard.global.L2 [%rd1], 128;` at 19:1 by thread (0,0,0) of block (0,0,0) discarded them and nothing has written them since (\"the data at the address range has undefined values\" after a discard, L13374)",
    );
}
