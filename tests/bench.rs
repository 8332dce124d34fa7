//! The benchmark suite (`ptxconf bench`, issue 18) at its quick size: every benchmark runs on
//! every engine and on several workers with its output equal to its native twin's (the suite
//! refuses anything else), a planted wrong twin is reported as an error for every benchmark, and
//! `--json` parses. No timing is asserted: the benchmarks print their rates and ratios.

mod common;

use oracle::exec::Engine;
use ptxconf::bench::suite::{self, Options, Size, SUITE};
use ptxconf::bench::BenchError;

fn quick(workers: usize) -> Options {
    Options {
        engines: Engine::ALL.to_vec(),
        workers,
        size: Size::Quick,
        plant_wrong_twin: false,
    }
}

/// Every benchmark matches its twin on every engine (one worker) and on 3 workers of the last
/// engine; the rows are one per (engine, workers), in that order.
#[test]
fn every_benchmark_matches_its_twin_on_every_engine_and_on_workers() {
    let all: Vec<&suite::Bench> = SUITE.iter().collect();
    let report = suite::run(&all, &quick(3)).unwrap_or_else(|e| panic!("{e}"));
    let per = Engine::ALL.len() + 1;
    assert_eq!(report.rows.len(), SUITE.len() * per);
    for (b, rows) in SUITE.iter().zip(report.rows.chunks(per)) {
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(r.benchmark, b.name);
            let (engine, workers) = if i < Engine::ALL.len() {
                (Engine::ALL[i], 1)
            } else {
                (*Engine::ALL.last().unwrap(), 3)
            };
            assert_eq!((r.engine.as_str(), r.workers), (engine.name(), workers));
            // Every engine executes the same instructions (the hand-written kernels' counts are
            // also checked against their twins inside the suite).
            assert_eq!(r.thread_instructions, rows[0].thread_instructions, "{}", b.name);
            assert!(r.thread_instructions > 0 && r.seconds > 0.0 && r.native_seconds > 0.0);
        }
    }
}

/// The ALU kernel at the quick size: 2 CTAs of 128 threads × 16 iterations of the 14-instruction
/// loop body, plus 19 instructions outside the loop per thread.
#[test]
fn the_alu_benchmark_counts_what_the_kernel_executes() {
    let alu = suite::find("alu").expect("alu");
    let report = suite::run(&[alu], &quick(1)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.rows[0].thread_instructions, 256 * (14 * 16 + 19));
    assert_eq!(suite::find("oracle").map(|b| b.name), Some("alu"));
}

/// A twin that differs from the oracle's (correct) output by one bit makes every benchmark fail
/// with the differing buffer named: a wrong result cannot print a rate.
#[test]
fn a_planted_wrong_twin_fails_every_benchmark() {
    let mut opts = quick(1);
    opts.plant_wrong_twin = true;
    for b in SUITE {
        match suite::run(&[b], &opts) {
            Err(BenchError::In { bench, source, .. }) => {
                assert_eq!(bench, b.name);
                assert!(matches!(*source, BenchError::Differs { .. }), "{}: {source}", b.name);
            }
            other => panic!("{}: expected a difference, got {other:?}", b.name),
        }
    }
}

/// `ptxconf bench --quick --json`: one object with the host and a row per benchmark and engine,
/// each with the fields the tracking needs.
#[test]
fn bench_json_parses_and_names_every_benchmark() {
    let out = common::ptxconf()
        .args(["bench", "--quick", "--json", "--workers", "2"])
        .output()
        .expect("run ptxconf");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("bench --json is JSON");
    assert!(
        v["host"]["cpu"].is_string() && v["host"]["cores"].as_u64() >= Some(1),
        "{v}"
    );
    assert_eq!(v["host"]["load_average"].as_array().map(Vec::len), Some(3));
    assert_eq!(v["size"], "quick");
    let rows = v["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), SUITE.len() * (Engine::ALL.len() + 1));
    for b in SUITE {
        assert!(rows.iter().any(|r| r["benchmark"] == b.name), "{}", b.name);
    }
    for r in rows {
        for k in [
            "engine",
            "workers",
            "thread_instructions",
            "seconds",
            "rate",
            "native_seconds",
            "native_rate",
            "ratio",
            "speedup",
        ] {
            assert!(!r[k].is_null(), "{k} missing in {r}");
        }
    }
}

/// `ptxconf bench NAME` runs one benchmark; an unknown benchmark or engine is a usage error.
#[test]
fn bench_names_and_engines_on_the_command_line() {
    let out = common::ptxconf()
        .args(["bench", "divergent", "--quick", "--workers", "1"])
        .output()
        .expect("run ptxconf");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("# divergent: ") && !text.contains("# alu: "), "{text}");
    let out = common::ptxconf()
        .args(["bench", "nope", "--quick"])
        .output()
        .expect("run ptxconf");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown benchmark `nope`"));
    let out = common::ptxconf()
        .args(["bench", "alu", "--quick", "--engine", "nope"])
        .output()
        .expect("run ptxconf");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown engine `nope`"));
}
