//! Multi-CTA execution (`exec/parallel.rs`, issue 18): a launch run with several workers gives
//! the buffers, statistics and errors of the run in order, for every corpus kernel and for CTAs
//! that meet in global memory — tickets from an atomic counter, a CTA reading what an earlier one
//! wrote, or what a later one will write, two writing the same bytes, the step limit running out
//! and runtime errors in a CTA that is not the last. The expected values are worked out from the
//! order x, then y, then z, not taken from a run; a parallel run that did not detect a conflict
//! would give other values (the tickets would all be 0, the chain all 1).

use oracle::error::{Error, ErrorKind};
use oracle::exec::Stats;
use oracle::launch::{self, Buffers, LaunchFile};
use std::path::{Path, PathBuf};

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// A kernel `k(.param .u64 out, .param .u64 aux)` on `grid` CTAs of `block` threads; `out` and
/// `aux` hold `out` and `aux`'s bytes (little-endian words) at the start.
fn launch(body: &str, grid: u32, block: u32, out: &[u32], aux: &[u32], steps: u64) -> (LaunchFile, String) {
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 out, .param .u64 aux)\n{{\n    .reg .pred %p<4>;\n    .reg .b32 %r<16>;\n    .reg .b64 %rd<8>;\n    ld.param.u64 %rd1, [out];\n    ld.param.u64 %rd2, [aux];\n    mov.u32 %r1, %ctaid.x;\n    mov.u32 %r2, %tid.x;\n{body}\n}}\n"
    );
    let hex = |w: &[u32]| {
        w.iter()
            .map(|v| launch::encode_hex(&v.to_le_bytes()))
            .collect::<String>()
    };
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [grid, 1, 1], "block": [block, 1, 1],
        "buffers": [{"name": "out", "hex": hex(out)}, {"name": "aux", "hex": hex(aux)}],
        "params": [{"buffer": "out"}, {"buffer": "aux"}],
        "limits": {"steps": steps, "stack": 4096},
    }))
    .unwrap();
    (l, ptx)
}

/// The 1-based line of the PTX text holding `needle` (the `n`th such line, from 1).
fn line_of(ptx: &str, needle: &str, n: usize) -> u32 {
    ptx.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .nth(n - 1)
        .unwrap()
        .0 as u32
        + 1
}

/// Runs the launch in order and on 2, 3 and 4 workers, requires the same outcome from each, and
/// returns it.
fn same_on_all(l: &LaunchFile, ptx: &str) -> Result<(Buffers, Stats), Error> {
    let seq = launch::run_on(l, ptx, 1);
    for workers in 2..=4 {
        let par = launch::run_on(l, ptx, workers);
        assert_eq!(par, seq, "{workers} workers differ from the run in order");
    }
    seq
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn tickets_from_an_atomic_counter_follow_the_cta_order() {
    // Thread 0 of each CTA takes a ticket from aux[0] and writes it to out[ctaid]: in order,
    // CTA c gets ticket c. 40 CTAs: more than one batch of 2 workers' speculation.
    let body = "
    setp.ne.u32 %p1, %r2, 0;
    @%p1 ret;
    atom.global.add.u32 %r3, [%rd2], 1;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r3;
    ret;";
    let (l, ptx) = launch(body, 40, 64, &[0; 40], &[0], 1_000_000);
    let (b, _) = same_on_all(&l, &ptx).unwrap();
    assert_eq!(words(&b[0].1), (0..40).collect::<Vec<u32>>());
    assert_eq!(words(&b[1].1), vec![40]);
}

#[test]
fn a_cta_reads_what_an_earlier_cta_wrote() {
    // CTA c writes out[c] = out[c-1] + 1 (CTA 0 reads nothing): a chain 1, 2, ..., 24.
    let body = "
    setp.ne.u32 %p1, %r2, 0;
    @%p1 ret;
    mov.u32 %r4, 0;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    setp.eq.u32 %p2, %r1, 0;
    @%p2 bra W;
    ld.global.u32 %r4, [%rd4+-4];
W:
    add.u32 %r4, %r4, 1;
    st.global.u32 [%rd4], %r4;
    ret;";
    let (l, ptx) = launch(body, 24, 32, &[0; 24], &[0], 1_000_000);
    let (b, _) = same_on_all(&l, &ptx).unwrap();
    assert_eq!(words(&b[0].1), (1..=24).collect::<Vec<u32>>());
}

#[test]
fn a_cta_reads_the_old_value_of_what_a_later_cta_writes() {
    // CTA c copies out[c+1] (7 at the start; CTA c+1 has not run) to aux[c], then writes
    // out[c] = 100 + c.
    let body = "
    setp.ne.u32 %p1, %r2, 0;
    @%p1 ret;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r4, [%rd4+4];
    st.global.u32 [%rd5], %r4;
    add.u32 %r5, %r1, 100;
    st.global.u32 [%rd4], %r5;
    ret;";
    let (l, ptx) = launch(body, 16, 32, &[7; 17], &[0; 16], 1_000_000);
    let (b, _) = same_on_all(&l, &ptx).unwrap();
    let mut out: Vec<u32> = (100..116).collect();
    out.push(7);
    assert_eq!(words(&b[0].1), out);
    assert_eq!(words(&b[1].1), vec![7; 16]);
}

#[test]
fn the_last_cta_to_write_the_same_bytes_wins() {
    // Every thread of every CTA writes its CTA's number to out[0] and out[1 + tid]: CTA 11, the
    // last, wins everywhere.
    let body = "
    st.global.u32 [%rd1], %r1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4+4], %r1;
    ret;";
    let (l, ptx) = launch(body, 12, 64, &[0; 65], &[0], 1_000_000);
    let (b, _) = same_on_all(&l, &ptx).unwrap();
    assert_eq!(words(&b[0].1), vec![11; 65]);
}

#[test]
fn independent_ctas_give_the_same_bytes_and_counts() {
    // Each thread sums a data-dependent number of its CTA's inputs: no CTA reads what another
    // writes. out[i] = sum over j < aux[i % 64] % 50 of (i + j).
    let n = 64 * 30;
    let aux: Vec<u32> = (0..64u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    let body = "
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r4, %r1, %r3, %r2;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r5, [%rd4];
    rem.u32 %r5, %r5, 50;
    mov.u32 %r6, 0;
    mov.u32 %r7, 0;
L:
    setp.ge.u32 %p1, %r7, %r5;
    @%p1 bra D;
    add.u32 %r8, %r4, %r7;
    add.u32 %r6, %r6, %r8;
    add.u32 %r7, %r7, 1;
    bra L;
D:
    mul.wide.u32 %rd5, %r4, 4;
    add.s64 %rd6, %rd1, %rd5;
    st.global.u32 [%rd6], %r6;
    ret;";
    let (l, ptx) = launch(body, 30, 64, &vec![0; n], &aux, 10_000_000);
    let (b, _) = same_on_all(&l, &ptx).unwrap();
    let expect: Vec<u32> = (0..n as u32)
        .map(|i| (0..aux[(i % 64) as usize] % 50).map(|j| i + j).sum())
        .collect();
    assert_eq!(words(&b[0].1), expect);
}

#[test]
fn the_step_limit_runs_out_where_the_run_in_order_does() {
    // 8 CTAs of 32 threads; CTA 2 runs 60 adds, the others 20. Before CTA 2: 2 CTAs of
    // 7 + 20 instructions (the 4 of the prologue, `setp`, `@bra`, `ret`, 20 adds) = 1728
    // thread-instructions. With a limit of 1728 + 32 × 52, CTA 2's 53rd instruction passes it:
    // the 6 before its adds (prologue, `setp`, `@bra`), then its 47th add. Each CTA alone stays
    // within the limit (CTA 2: 67 instructions, 2144).
    let small = "    add.u32 %r3, %r3, 1;\n".repeat(20);
    let big = "    add.u32 %r3, %r3, 2;\n".repeat(60);
    let body = format!("    setp.eq.u32 %p1, %r1, 2;\n    @%p1 bra BIG;\n{small}    ret;\nBIG:\n{big}    ret;");
    let (l, ptx) = launch(&body, 8, 32, &[0], &[0], 1728 + 32 * 52);
    let e = same_on_all(&l, &ptx).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Limit, "{e}");
    assert_eq!(
        e.loc.map(|(line, _)| line),
        Some(line_of(&ptx, "add.u32 %r3, %r3, 2;", 47)),
        "{e}"
    );
}

#[test]
fn a_write_of_a_run_on_stale_memory_is_never_seen() {
    // CTA 0 sets aux[0] = 1. An odd CTA that finds aux[0] still 0 (which in order none does)
    // writes 99 to out[64]; an even CTA copies out[64] to out[ctaid]. In order out[64] stays 0,
    // and so does everything else; a run that kept the odd CTAs' writes on stale memory would
    // hand 99 to the even CTAs after them, which read nothing any CTA writes in order. (Each CTA
    // first counts to 3000, so that every worker gets CTAs of both kinds.)
    let body = "
    setp.ne.u32 %p1, %r2, 0;
    @%p1 ret;
    mov.u32 %r8, 0;
SPIN:
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p1, %r8, 3000;
    @%p1 bra SPIN;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra ODD;
    mov.u32 %r3, 1;
    st.global.u32 [%rd2], %r3;
    ret;
ODD:
    and.b32 %r4, %r1, 1;
    setp.eq.u32 %p2, %r4, 0;
    @%p2 bra EVEN;
    ld.global.u32 %r5, [%rd2];
    setp.ne.u32 %p3, %r5, 0;
    @%p3 ret;
    mov.u32 %r6, 99;
    st.global.u32 [%rd1+256], %r6;
    ret;
EVEN:
    ld.global.u32 %r7, [%rd1+256];
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r7;
    ret;";
    let (l, ptx) = launch(body, 64, 32, &[0; 65], &[0], 1_000_000);
    let (b, _) = same_on_all(&l, &ptx).unwrap();
    assert_eq!(words(&b[0].1), vec![0; 65]);
    assert_eq!(words(&b[1].1), vec![1]);
}

#[test]
fn the_first_cta_in_order_to_fail_gives_the_error() {
    // CTAs 5 and 6 store far past `out`'s end (each at its own address); CTAs 0-4 write out.
    let body = "
    mul.wide.u32 %rd3, %r1, 4;
    setp.lt.u32 %p1, %r1, 5;
    @%p1 bra OK;
    mul.wide.u32 %rd3, %r1, 65536;
OK:
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r1;
    ret;";
    let (l, ptx) = launch(body, 12, 32, &[0; 5], &[0], 1_000_000);
    let e = same_on_all(&l, &ptx).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Runtime, "{e}");
    // CTA 5's address: out + 5 × 65536.
    let out = oracle::mem::HEAP;
    assert!(e.message.contains(&format!("{:#x}", out + 5 * 65536)), "{e}");
}

#[test]
fn a_cta_waiting_for_an_earlier_ctas_flag_does_not_spin_forever() {
    // Decoupled look-back: thread 0 of CTA c > 0 waits until flag[c-1] is set, then sets
    // flag[c] = flag[c-1] + 1. In order each wait ends at once; a CTA run on memory from before
    // the earlier CTAs would wait forever (the step limit is 2^40): its run must be stopped and
    // run again in order.
    let body = "
    setp.ne.u32 %p1, %r2, 0;
    @%p1 ret;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    mov.u32 %r4, 0;
    setp.eq.u32 %p2, %r1, 0;
    @%p2 bra SET;
WAIT:
    ld.volatile.global.u32 %r4, [%rd4+-4];
    setp.eq.u32 %p3, %r4, 0;
    @%p3 bra WAIT;
SET:
    add.u32 %r4, %r4, 1;
    st.volatile.global.u32 [%rd4], %r4;
    ret;";
    let (l, ptx) = launch(body, 6, 32, &[0; 6], &[0], 1 << 40);
    let (b, _) = same_on_all(&l, &ptx).unwrap();
    assert_eq!(words(&b[0].1), (1..=6).collect::<Vec<u32>>());
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/ptx")
}

/// Every corpus kernel (most launch several CTAs) gives the same buffers, counts and errors on
/// 2 and 3 workers as in order.
#[test]
fn every_corpus_kernel_runs_the_same_on_several_workers() {
    let mut files = Vec::new();
    for dir in ["llvm", "nvcc", "nvrtc", "triton"] {
        for e in std::fs::read_dir(corpus().join(dir)).unwrap().flatten() {
            let p = e.path();
            if p.to_string_lossy().ends_with(".launch.json") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() > 100, "{} corpus launches", files.len());
    let mut multi = 0;
    for f in &files {
        let seq = launch::run_file_on(f, 1);
        let l = launch::parse_launch(&std::fs::read_to_string(f).unwrap()).unwrap();
        multi += (l.grid.iter().product::<u32>() > 1) as usize;
        for workers in [2, 3] {
            assert_eq!(
                launch::run_file_on(f, workers),
                seq,
                "{}: {workers} workers",
                f.display()
            );
        }
    }
    assert!(multi > 80, "{multi} corpus launches with several CTAs");
}

/// The process's CPU time (user and system, all threads) in seconds, from /proc/self/stat.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest.split_whitespace().map(|x| x.parse().unwrap_or(0.0)).collect();
    (f.get(11).unwrap_or(&0.0) + f.get(12).unwrap_or(&0.0)) / 100.0
}

/// The seconds `Machine::run` takes on the launch with `workers` workers (the module parsed,
/// checked and its buffers allocated beforehand), and the CPU seconds of the process meanwhile.
fn time_run(l: &LaunchFile, ptx: &str, workers: usize) -> (f64, f64) {
    let prog = oracle::check::check(&oracle::parse::parse(ptx).unwrap()).unwrap();
    let mut m = oracle::exec::Machine::new(&prog).unwrap();
    m.workers = workers;
    let mut params = Vec::new();
    for b in &l.buffers {
        let data = launch::decode_hex(b.hex.as_deref().unwrap()).unwrap();
        params.extend_from_slice(&m.alloc(&b.name, data).unwrap().to_le_bytes());
    }
    let run = oracle::exec::Launch {
        entry: l.entry.clone(),
        grid: l.grid,
        block: l.block,
        params,
        dyn_shared: 0,
        cluster: None,
        limits: oracle::exec::Limits::default(),
    };
    let (t, c) = (std::time::Instant::now(), cpu_seconds());
    std::hint::black_box(m.run(&run).unwrap());
    (t.elapsed().as_secs_f64(), cpu_seconds() - c)
}

/// Times a launch in order and on 2 workers, alternately (best of 5 wall times, and the CPU
/// time of all 5), and prints the ratios (no assertion on time: the machine is shared). The CPU
/// ratio is what parallel execution costs in total; on idle cores the speedup is about
/// 2 / (CPU ratio). `cargo test --release -p ptxconf-oracle --test multicta -- --ignored
/// --nocapture`.
fn time_ratio(what: &str, l: &LaunchFile, ptx: &str) {
    let mut best = [f64::MAX; 2];
    let mut cpu = [0.0; 2];
    for _ in 0..5 {
        for (k, workers) in [1, 2].into_iter().enumerate() {
            let (t, c) = time_run(l, ptx, workers);
            best[k] = best[k].min(t);
            cpu[k] += c;
        }
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "{what}: in order {:.3} s, 2 workers {:.3} s: {:.2}x; CPU time {:.2} s vs {:.2} s: {:.2}x (load {})",
        best[0],
        best[1],
        best[0] / best[1],
        cpu[0],
        cpu[1],
        cpu[1] / cpu[0],
        load.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
}

#[test]
#[ignore]
fn speedup_on_two_workers() {
    // ALU: 8 CTAs of 128 threads (1024 threads), 2000 iterations of integer and f32 arithmetic.
    let alu = "
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r4, %r1, %r3, %r2;
    mov.u32 %r5, 0;
    mov.u32 %r6, %r4;
    .reg .f32 %f<4>;
    cvt.rn.f32.u32 %f1, %r4;
L:
    mad.lo.u32 %r6, %r6, 1664525, 1013904223;
    xor.b32 %r6, %r6, %r5;
    fma.rn.f32 %f1, %f1, 0f3F7FFFFF, 0f3F800000;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r5, 20000;
    @%p1 bra L;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r6;
    add.s64 %rd5, %rd2, %rd3;
    st.global.f32 [%rd5], %f1;
    ret;";
    let (l, ptx) = launch(alu, 8, 128, &[0; 1024], &[0; 1024], 1 << 40);
    time_ratio("ALU, 8 CTAs x 128 threads x 20000 iterations", &l, &ptx);
    // Memory-bound: out[i] = 3 * aux[i] + out[i] over 1M words, 4096 CTAs of 256 threads.
    let mem = "
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r4, %r1, %r3, %r2;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r5, [%rd5];
    ld.global.u32 %r6, [%rd4];
    mad.lo.u32 %r6, %r5, 3, %r6;
    st.global.u32 [%rd4], %r6;
    ret;";
    let n = 1 << 20;
    let aux: Vec<u32> = (0..n as u32).collect();
    let (l, ptx) = launch(mem, (n / 256) as u32, 256, &vec![1; n], &aux, 1 << 40);
    time_ratio("memory-bound, 4096 CTAs x 256 threads, 1M words", &l, &ptx);
}
