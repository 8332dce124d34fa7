//! Clusters of CTAs (§2.2.2-2.2.3, §10.11-10.17, §11.7) on small kernels: the cluster special
//! registers, `mapa`/`getctarank`, distributed shared memory (`ld`/`st`/`atom`/`red` on
//! `.shared::cluster`), an mbarrier signalled from another CTA, `barrier.cluster`, and the
//! launch errors and runtime errors of what the manual leaves undefined. Expected values are
//! computed by hand from the manual's definitions (the rank is x-fastest, INTERPRETATIONS.md).

use oracle::error::{Error, ErrorKind};
use oracle::launch::{self, LaunchFile};

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// Module variables: a barrier, a counter and 64 words of shared memory.
const DATA: &str = ".shared .align 8 .b64 bar;\n.shared .align 4 .b32 cnt;\n.shared .align 16 .b32 sh[64];\n";

/// The kernel `k` with cluster directives `dirs`: `body` after a prologue that puts `out` in
/// %rd1, %tid.x in %r1, %cluster_ctarank in %r2 and %ctaid.x in %r3.
fn kernel(dirs: &str, body: &str) -> String {
    format!(
        "{HEADER}{DATA}.visible .entry k(.param .u64 out)\n{dirs}\n{{\n\
         .reg .pred %p<8>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<40>;\n\
         ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, %cluster_ctarank;\nmov.u32 %r3, %ctaid.x;\n\
         {body}\n}}\n"
    )
}

/// Runs `k` over `grid` CTAs of `block` threads, in clusters of `cluster` when given; `out` is
/// 1024 zeroed u32 words.
fn run(dirs: &str, body: &str, grid: [u32; 3], block: u32, cluster: Option<[u32; 3]>) -> Result<Vec<u32>, Error> {
    let mut j = serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": grid, "block": [block, 1, 1],
        "buffers": [{"name": "out", "size": 4096}],
        "params": [{"buffer": "out"}],
        "limits": {"steps": 50_000_000, "stack": 1024},
    });
    if let Some(c) = cluster {
        j["cluster"] = serde_json::json!(c);
    }
    let l: LaunchFile = serde_json::from_value(j).unwrap();
    let (b, _) = launch::run(&l, &kernel(dirs, body))?;
    let out = &b.iter().find(|(n, _)| n == "out").unwrap().1;
    Ok(out
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

/// The line of `needle` in the kernel text.
fn line_of(dirs: &str, body: &str, needle: &str) -> u32 {
    kernel(dirs, body).lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
}

/// Asserts a runtime error at the line of `at` whose message names `rule`.
fn assert_fault(dirs: &str, body: &str, grid: [u32; 3], block: u32, cluster: Option<[u32; 3]>, at: &str, rule: &str) {
    let e = run(dirs, body, grid, block, cluster).expect_err("undefined behaviour must be reported");
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    assert_eq!(e.loc.map(|l| l.0), Some(line_of(dirs, body, at)), "{e}");
    assert!(e.message.contains(rule), "`{rule}` missing from: {e}");
}

/// Stores `regs` (in order) to out[16 * linear CTA index + k] from thread 0 of each CTA.
fn store_words(regs: &[&str]) -> String {
    let mut s = String::from(
        "setp.ne.u32 %p1, %r1, 0;\n@%p1 bra END;\n\
         mov.u32 %r30, %ctaid.y;\nmov.u32 %r31, %nctaid.x;\nmad.lo.u32 %r32, %r30, %r31, %r3;\n\
         mul.lo.u32 %r32, %r32, 64;\ncvt.u64.u32 %rd30, %r32;\nadd.u64 %rd31, %rd1, %rd30;\n",
    );
    for (k, r) in regs.iter().enumerate() {
        s.push_str(&format!("st.global.u32 [%rd31+{}], {r};\n", 4 * k));
    }
    s.push_str("END:\nret;");
    s
}

/// Every cluster register, read by thread 0 of each CTA.
fn sreg_body() -> String {
    let reads = "mov.u32 %r4, %cluster_nctarank;\n\
                 mov.u32 %r5, %cluster_ctaid.x;\nmov.u32 %r6, %cluster_ctaid.y;\nmov.u32 %r7, %cluster_ctaid.z;\n\
                 mov.u32 %r8, %cluster_nctaid.x;\nmov.u32 %r9, %cluster_nctaid.y;\nmov.u32 %r10, %cluster_nctaid.z;\n\
                 mov.u32 %r11, %clusterid.x;\nmov.u32 %r12, %clusterid.y;\nmov.u32 %r13, %clusterid.z;\n\
                 mov.u32 %r14, %nclusterid.x;\nmov.u32 %r15, %nclusterid.y;\nmov.u32 %r16, %nclusterid.z;\n\
                 mov.pred %p2, %is_explicit_cluster;\nselp.u32 %r17, 1, 0, %p2;\n";
    let regs: Vec<String> = (2..=2).chain(4..=17).map(|k| format!("%r{k}")).collect();
    let regs: Vec<&str> = regs.iter().map(String::as_str).collect();
    format!("{reads}{}", store_words(&regs))
}

/// The 15 words of CTA (x, y) in clusters of `dims` of a grid of `grid` (L32265-32414): rank,
/// nctarank, cluster_ctaid, cluster_nctaid, clusterid, nclusterid, is_explicit_cluster.
fn expected_sregs(x: u32, y: u32, dims: [u32; 3], grid: [u32; 3], explicit: bool) -> Vec<u32> {
    let (cx, cy) = (x % dims[0], y % dims[1]);
    vec![
        cx + dims[0] * cy,
        dims[0] * dims[1] * dims[2],
        cx,
        cy,
        0,
        dims[0],
        dims[1],
        dims[2],
        x / dims[0],
        y / dims[1],
        0,
        grid[0] / dims[0],
        grid[1] / dims[1],
        grid[2] / dims[2],
        explicit as u32,
    ]
}

fn check_sregs(out: &[u32], dims: [u32; 3], explicit: bool) {
    for y in 0..2 {
        for x in 0..4 {
            let at = (y * 4 + x) as usize * 16;
            assert_eq!(
                out[at..at + 15],
                expected_sregs(x, y, dims, [4, 2, 1], explicit)[..],
                "CTA ({x}, {y})"
            );
        }
    }
}

/// A 2×2×1 cluster of a 4×2 grid: CTA (3, 1) is rank 1 + 2·1 = 3 of cluster (1, 0).
#[test]
fn cluster_registers_in_a_2x2_cluster_of_a_4x2_grid() {
    let out = run("", &sreg_body(), [4, 2, 1], 32, Some([2, 2, 1])).unwrap();
    check_sregs(&out, [2, 2, 1], true);
    assert_eq!(out[(4 + 3) * 16..(4 + 3) * 16 + 5], [3, 4, 1, 1, 0]);
    // The same from the kernel's `.reqnctapercluster` (the launch need not repeat it).
    let out = run(".reqnctapercluster 2, 2", &sreg_body(), [4, 2, 1], 32, None).unwrap();
    check_sregs(&out, [2, 2, 1], true);
}

/// Without cluster dimensions each CTA is its own 1×1×1 cluster (L93).
#[test]
fn cluster_registers_of_the_implicit_cluster() {
    let out = run("", &sreg_body(), [4, 2, 1], 32, None).unwrap();
    check_sregs(&out, [1, 1, 1], false);
    // `.maxclusterrank` alone leaves the launch implicit.
    let out = run(".maxclusterrank 8", &sreg_body(), [4, 2, 1], 32, None).unwrap();
    check_sregs(&out, [1, 1, 1], false);
}

/// Thread t of each CTA of a 4-CTA cluster maps `sh` (+8) into CTA t and reads the rank back,
/// through `.shared::cluster` and generic addresses; `isspacep.shared::cta` holds only for the
/// executing CTA's own rank (L13500).
#[test]
fn mapa_and_getctarank_round_trip() {
    let body = "mov.u32 %r4, sh;\n\
                mapa.shared::cluster.u32 %r5, %r4, %r1;\n\
                getctarank.shared::cluster.u32 %r6, %r5;\n\
                getctarank.shared::cluster.u32 %r7, sh;\n\
                mapa.shared::cluster.u32 %r8, sh+8, %r1;\n\
                sub.u32 %r9, %r8, %r5;\n\
                cvta.shared::cluster.u64 %rd4, sh;\n\
                mapa.u64 %rd5, %rd4, %r1;\n\
                getctarank.u64 %r10, %rd5;\n\
                isspacep.shared::cta %p2, %rd5;\nselp.u32 %r11, 1, 0, %p2;\n\
                isspacep.shared::cluster %p3, %rd5;\nselp.u32 %r12, 1, 0, %p3;\n\
                cvta.to.shared::cluster.u64 %rd6, %rd5;\ncvt.u32.u64 %r13, %rd6;\nsub.u32 %r14, %r13, %r5;\n\
                getctarank.shared::cluster.u64 %r15, %rd6;\n\
                mad.lo.u32 %r20, %r2, 4, %r1;\nmul.lo.u32 %r20, %r20, 32;\ncvt.u64.u32 %rd7, %r20;\nadd.u64 %rd8, %rd1, %rd7;\n\
                st.global.u32 [%rd8], %r6;\nst.global.u32 [%rd8+4], %r7;\nst.global.u32 [%rd8+8], %r9;\n\
                st.global.u32 [%rd8+12], %r10;\nst.global.u32 [%rd8+16], %r11;\nst.global.u32 [%rd8+20], %r12;\n\
                st.global.u32 [%rd8+24], %r14;\nst.global.u32 [%rd8+28], %r15;\nret;";
    let out = run("", body, [4, 1, 1], 4, Some([4, 1, 1])).unwrap();
    for rank in 0..4u32 {
        for t in 0..4u32 {
            let at = ((rank * 4 + t) * 8) as usize;
            assert_eq!(
                out[at..at + 8],
                [t, rank, 8, t, (t == rank) as u32, 1, 0, t],
                "rank {rank}, thread {t}"
            );
        }
    }
}

/// Each thread writes ctaid·1000 + tid into sh[tid] of the next CTA of its 4-CTA cluster
/// (`st.shared::cluster`), `barrier.cluster`, and reads its own sh[tid]: the previous CTA's.
#[test]
fn distributed_shared_memory_exchange() {
    let body = "add.u32 %r4, %r2, 1;\nrem.u32 %r4, %r4, 4;\n\
                mov.u32 %r5, sh;\nmad.lo.u32 %r5, %r1, 4, %r5;\n\
                mapa.shared::cluster.u32 %r7, %r5, %r4;\n\
                mad.lo.u32 %r8, %r3, 1000, %r1;\n\
                barrier.cluster.arrive.aligned;\nbarrier.cluster.wait.aligned;\n\
                st.shared::cluster.u32 [%r7], %r8;\n\
                barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n\
                ld.shared.u32 %r9, [%r5];\n\
                mad.lo.u32 %r10, %r3, 64, %r1;\nmul.wide.u32 %rd2, %r10, 4;\nadd.u64 %rd3, %rd1, %rd2;\n\
                st.global.u32 [%rd3], %r9;\nret;";
    let out = run("", body, [8, 1, 1], 64, Some([4, 1, 1])).unwrap();
    for c in 0..8u32 {
        let writer = c / 4 * 4 + (c % 4 + 3) % 4;
        for t in 0..64u32 {
            assert_eq!(out[(c * 64 + t) as usize], writer * 1000 + t, "CTA {c}, thread {t}");
        }
    }
}

/// Every thread of a 4-CTA cluster adds its rank + 1 to rank 0's counter (`atom` in warp 0,
/// `red` in warp 1): 64·(1 + 2 + 3 + 4) = 640.
#[test]
fn remote_atomics_on_rank_0s_counter() {
    let body = "setp.eq.u32 %p1, %r1, 0;\nsetp.eq.u32 %p2, %r2, 0;\nand.pred %p3, %p1, %p2;\n\
                mov.u32 %r9, 0;\n@%p3 st.shared.u32 [cnt], %r9;\n\
                barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
                mov.u32 %r4, cnt;\nmapa.shared::cluster.u32 %r5, %r4, 0;\nadd.u32 %r6, %r2, 1;\n\
                setp.lt.u32 %p4, %r1, 32;\n\
                @%p4 atom.shared::cluster.add.u32 %r7, [%r5], %r6;\n\
                @!%p4 red.shared::cluster.add.u32 [%r5], %r6;\n\
                barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
                @%p3 ld.shared.u32 %r8, [cnt];\n@%p3 st.global.u32 [%rd1], %r8;\nret;";
    let out = run("", body, [4, 1, 1], 64, Some([4, 1, 1])).unwrap();
    assert_eq!(out[0], 640);
}

/// Thread 0 of ranks 1-3 writes rank·7 into rank 0's sh[rank] and arrives on rank 0's mbarrier
/// (`mbarrier.arrive.release.cluster.shared::cluster`); rank 0 waits on it and reads sh[1..4].
/// The arrives order the writes before rank 0's exit: no cluster barrier is needed after them.
#[test]
fn remote_mbarrier_arrive() {
    let body = "setp.ne.u32 %p1, %r1, 0;\n@%p1 bra END;\n\
                setp.eq.u32 %p2, %r2, 0;\nmov.u32 %r9, 3;\n@%p2 mbarrier.init.shared.b64 [bar], %r9;\n\
                barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
                @%p2 bra CONSUMER;\n\
                mov.u32 %r4, sh;\nmad.lo.u32 %r4, %r2, 4, %r4;\nmapa.shared::cluster.u32 %r5, %r4, 0;\n\
                mul.lo.u32 %r6, %r2, 7;\nst.shared::cluster.u32 [%r5], %r6;\n\
                mov.u32 %r7, bar;\nmapa.shared::cluster.u32 %r8, %r7, 0;\n\
                mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r8];\nbra END;\n\
                CONSUMER:\n\
                WAIT:\nmbarrier.try_wait.parity.shared.b64 %p3, [bar], 0;\n@!%p3 bra WAIT;\n\
                ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [sh];\n\
                st.global.v4.u32 [%rd1], {%r10, %r11, %r12, %r13};\n\
                END:\nret;";
    let out = run("", body, [4, 1, 1], 32, Some([4, 1, 1])).unwrap();
    assert_eq!(out[..4], [0, 7, 14, 21]);
}

/// A thread that exits leaves the cluster barrier (L16915): rank 0's wait returns once rank 1,
/// which never arrives, has exited.
#[test]
fn exited_threads_leave_the_cluster_barrier() {
    let body = "setp.ne.u32 %p1, %r2, 0;\n@%p1 exit;\n\
                barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
                mov.u32 %r4, 5;\nst.global.u32 [%rd1], %r4;\nret;";
    let out = run("", body, [2, 1, 1], 32, Some([2, 1, 1])).unwrap();
    assert_eq!(out[0], 5);
}

/// Back-to-back `barrier.cluster.arrive; wait` pairs (CUDA's `cluster.sync()` twice): a
/// thread whose wait returned arrives for the next phase before the others have waited; it is
/// held until they have (L17175), and no phase mixes two of its arrivals.
#[test]
fn back_to_back_cluster_syncs() {
    let body = "mov.u32 %r4, 0;\nmov.u32 %r5, sh;\n\
                LOOP:\n\
                barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
                setp.eq.u32 %p1, %r1, 0;\n@%p1 atom.shared.add.u32 %r6, [%r5], 1;\n\
                add.u32 %r4, %r4, 1;\nsetp.lt.u32 %p2, %r4, 5;\n@%p2 bra LOOP;\n\
                barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
                setp.eq.u32 %p3, %r1, 0;\n@%p3 ld.shared.u32 %r7, [%r5];\n\
                mul.wide.u32 %rd2, %r3, 4;\nadd.u64 %rd3, %rd1, %rd2;\n@%p3 st.global.u32 [%rd3], %r7;\nret;";
    let out = run("", body, [4, 1, 1], 64, Some([2, 1, 1])).unwrap();
    assert_eq!(out[..4], [5, 5, 5, 5]);
}

/// A thread may not wait twice for one arrive (L17171; a wait with no arrive at all is
/// race_detector.rs's `cluster_barrier_waited_without_an_arrive`).
#[test]
fn waiting_twice_for_one_arrive_is_an_error() {
    let body = "barrier.cluster.arrive;\nbarrier.cluster.wait;\nbarrier.cluster.wait.acquire;\nret;";
    assert_fault("", body, [2, 1, 1], 32, Some([2, 1, 1]), "wait.acquire", "L17171");
}

/// Without `.aligned` the lanes of a warp may arrive at different instructions (divergent
/// `.aligned` ones are race_detector.rs's `cluster_barrier_aligned_but_divergent`, L17185).
#[test]
fn unaligned_cluster_barriers_may_diverge() {
    let body = "setp.lt.u32 %p1, %r1, 16;\n@%p1 bra A;\nbarrier.cluster.arrive;\nbra W;\n\
                A:\nbarrier.cluster.arrive.relaxed;\nW:\nbarrier.cluster.wait;\n\
                mov.u32 %r4, 9;\nst.global.u32 [%rd1], %r4;\nret;";
    assert_eq!(run("", body, [2, 1, 1], 32, Some([2, 1, 1])).unwrap()[0], 9);
}

/// Rank 1 reads rank 0's shared memory between two cluster barriers, and rank 0 exits after
/// the second: the exit is ordered after the read (L89; without the second barrier it is not,
/// race_detector.rs's `cta_exited_while_a_peer_accesses_its_shared_memory`).
#[test]
fn a_second_cluster_barrier_orders_a_peers_reads_before_the_exit() {
    let body = "barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
                mov.u32 %r4, sh;\nmapa.shared::cluster.u32 %r5, %r4, 0;\n\
                setp.ne.u32 %p1, %r2, 0;\n@%p1 ld.shared::cluster.u32 %r6, [%r5];\n\
                barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
                @%p1 st.global.u32 [%rd1], %r6;\nret;";
    assert!(run("", body, [2, 1, 1], 32, Some([2, 1, 1])).is_ok());
}

/// A rank past the cluster, a misaligned address, a peer's address in a `.shared::cta` access or
/// `cvta`, a generic arrive on a peer's mbarrier: located runtime errors.
#[test]
fn bad_cluster_addresses() {
    let sync = "barrier.cluster.arrive;\nbarrier.cluster.wait;\n";
    let c = Some([4, 1, 1]);
    let body = format!("{sync}mov.u32 %r4, sh;\nmov.u32 %r6, 4;\nmapa.shared::cluster.u32 %r5, %r4, %r6;\nret;");
    assert_fault("", &body, [4, 1, 1], 32, c, "mapa", "L14116");
    // The window of rank 5 in a cluster of 4: (5 + 1) << 24.
    let body = format!("{sync}mov.u32 %r5, 0x6000000;\nld.shared::cluster.u32 %r6, [%r5];\nret;");
    assert_fault(
        "",
        &body,
        [4, 1, 1],
        32,
        c,
        "ld.shared::cluster",
        "the cluster has 4 CTAs",
    );
    let body = format!(
        "{sync}mov.u32 %r4, sh;\nmapa.shared::cluster.u32 %r5, %r4, 1;\nld.shared::cluster.u32 %r6, [%r5+2];\nret;"
    );
    assert_fault("", &body, [4, 1, 1], 32, c, "ld.shared::cluster", "not aligned");
    let body = format!("{sync}mov.u32 %r4, sh;\nmapa.shared::cluster.u32 %r5, %r4, 3;\nsetp.ne.u32 %p1, %r2, 3;\n@%p1 ld.shared.u32 %r6, [%r5];\nret;");
    assert_fault("", &body, [4, 1, 1], 32, c, "ld.shared.u32", "L1290");
    let body = format!("{sync}mov.u32 %r4, sh;\nmapa.shared::cluster.u32 %r5, %r4, 3;\ncvt.u64.u32 %rd4, %r5;\nsetp.ne.u32 %p1, %r2, 3;\n@%p1 cvta.shared.u64 %rd5, %rd4;\nret;");
    assert_fault("", &body, [4, 1, 1], 32, c, "cvta.shared", "L13561");
    let body = format!("{sync}cvta.shared::cluster.u64 %rd4, bar;\nmapa.u64 %rd5, %rd4, 3;\nsetp.ne.u32 %p1, %r2, 3;\n@%p1 mbarrier.arrive.b64 _, [%rd5];\nret;");
    assert_fault("", &body, [4, 1, 1], 32, c, "mbarrier.arrive", "L18759");
}

fn launch_error(dirs: &str, grid: [u32; 3], cluster: Option<[u32; 3]>, rule: &str) {
    let e = run(dirs, "ret;", grid, 32, cluster).expect_err("the launch must fail");
    assert_eq!(e.kind, ErrorKind::Launch, "{e}");
    assert!(e.message.contains(rule), "`{rule}` missing from: {e}");
}

#[test]
fn launch_errors() {
    launch_error("", [4, 1, 1], Some([3, 1, 1]), "not a whole number of clusters");
    launch_error(".reqnctapercluster 2, 1, 1", [4, 1, 1], Some([4, 1, 1]), "L34436");
    launch_error(".explicitcluster", [4, 1, 1], None, "L34467");
    launch_error(".maxclusterrank 2", [4, 1, 1], Some([4, 1, 1]), "L34495");
    launch_error("", [32, 1, 1], Some([32, 1, 1]), "exceed the oracle's 16");
    launch_error("", [4, 1, 1], Some([0, 1, 1]), "at least 1");
    // `.explicitcluster` with `.reqnctapercluster` needs nothing from the launch.
    assert!(run(".explicitcluster\n.reqnctapercluster 2", "ret;", [4, 1, 1], 32, None).is_ok());
}

#[test]
fn directive_errors() {
    let e = run(".reqnctapercluster 2\n.maxclusterrank 4", "ret;", [4, 1, 1], 32, None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
    assert!(e.message.contains("L34499"), "{e}");
    let ptx = kernel(".reqnctapercluster 2", "ret;").replace("sm_90", "sm_80");
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [2, 1, 1], "block": [32, 1, 1],
        "buffers": [{"name": "out", "size": 16}], "params": [{"buffer": "out"}],
    }))
    .unwrap();
    let e = launch::run(&l, &ptx).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
}

/// Warps of all CTAs of a cluster wait on each other: a cluster that cannot finish is a
/// deadlock error naming the cluster. Warp 1 of rank 1 waits at `bar.sync 0` for warp 0, which
/// waits at the cluster barrier for warp 1.
#[test]
fn a_cluster_deadlock_is_reported() {
    let body = "setp.eq.u32 %p1, %r2, 1;\nsetp.ge.u32 %p2, %r1, 32;\nand.pred %p3, %p1, %p2;\n@%p3 bra B;\n\
                barrier.cluster.arrive;\nbarrier.cluster.wait;\nB:\nbar.sync 0;\nret;";
    let e = run("", body, [2, 1, 1], 64, Some([2, 1, 1])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    assert!(
        e.message.contains("deadlock") && e.message.contains("in cluster (0,0,0)"),
        "{e}"
    );
}
