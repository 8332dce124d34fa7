//! Generated multi-CTA programs (per-thread records, shared-memory exchanges, atomics on a
//! thread's own word and `red` reductions to shared counters, asynchronous and bulk copies,
//! clusters) give the same buffers, statistics, audit and errors on several workers as in order
//! (`oracle::exec::Machine::workers`, issue 18).

use generators::program::{from_seed, program_seed, Config};
use oracle::launch::run_audited_on;

#[test]
fn generated_multi_cta_programs_run_the_same_on_several_workers() {
    let mut ok = 0;
    let n = 300;
    for i in 0..n {
        let cfg = Config {
            ctas: 2 + (i % 7) as u32,
            warps: 1 + (i % 3) as u32,
            ..Config::default()
        };
        let p = from_seed(program_seed(18, i), &cfg);
        let seq = run_audited_on(&p.launch, &p.ptx, 1);
        let workers = 2 + (i % 3) as usize;
        let par = run_audited_on(&p.launch, &p.ptx, workers);
        assert_eq!(
            par, seq,
            "program {i} on {workers} workers differs from the run in order:\n{}",
            p.ptx
        );
        ok += seq.is_ok() as usize;
    }
    // Generated programs are valid by construction: nearly all run to their end.
    assert!(ok * 10 >= n as usize * 9, "only {ok} of {n} programs ran to their end");
}
