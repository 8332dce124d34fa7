//! `ptxconf bench` (the suite): every benchmark of [`SUITE`] on every engine of the oracle, one
//! thread each, and on the newest engine with `workers` host threads, all in the same run as the
//! benchmark's native twin — so one run prints before and after side by side.
//!
//! A benchmark is a `Workload`: a PTX kernel, its launch and buffers, and a native twin that
//! computes the buffers the kernel must leave (and, for the hand-written kernels, how many
//! thread-instructions it must execute). Every row checks the oracle's buffers against the twin's
//! — bit for bit, or under the rule the real-world corpus justifies for the Triton kernels'
//! approximate instructions — so a benchmark whose output is wrong fails instead of printing a
//! rate. Timing covers `Machine::run` only (not parsing or allocation); the twin is timed by
//! repeating it for at least 50 ms.

use super::BenchError;
use oracle::exec::{Engine, Launch, Limits, Machine};
use serde::Serialize;
use std::fmt::Write as _;
use std::time::Instant;

/// A kernel argument.
pub(super) enum Arg {
    /// The address of buffer `i` of [`Workload::buffers`].
    Buffer(usize),
    /// 32 bits (an integer or an f32's bits).
    B32(u32),
}

/// How a buffer's final bytes are compared with the twin's.
#[derive(Clone, Copy, Debug)]
pub(super) enum Rule {
    /// Bit for bit.
    Exact,
    /// f32 elements: |got − want| ≤ x·|want| (NaN and infinities only as exact bits).
    Rel(f64),
    /// f32 elements: |got − want| ≤ x.
    Abs(f64),
}

/// What the native twin computes.
pub(super) struct Twin {
    /// The final bytes of each buffer of [`Workload::checks`], in that order.
    pub outputs: Vec<Vec<u8>>,
    /// The thread-instructions the kernel must execute, where the twin knows.
    pub instructions: Option<u64>,
}

/// A native twin: from the initial buffers, what the kernel must leave.
pub(super) type Native = Box<dyn Fn(&[Vec<u8>]) -> Twin>;

/// One benchmark at one size.
pub(super) struct Workload {
    /// What is computed, for the report (`4096 threads x 2500 iterations`).
    pub shape: String,
    /// The PTX module.
    pub ptx: String,
    /// The `.entry` to launch.
    pub entry: &'static str,
    /// CTAs.
    pub grid: [u32; 3],
    /// Threads per CTA.
    pub block: [u32; 3],
    /// Dynamic shared memory per CTA.
    pub dyn_shared: u32,
    /// Global buffers' initial bytes, allocated in this order.
    pub buffers: Vec<Vec<u8>>,
    /// The kernel's arguments, one per parameter.
    pub args: Vec<Arg>,
    /// The buffers compared: (index in `buffers`, name, rule).
    pub checks: Vec<(usize, &'static str, Rule)>,
    /// The native computation, from the initial buffers.
    pub native: Native,
}

/// The size a benchmark runs at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// Seconds per row on the reference engine: the recorded figures.
    Full,
    /// A few CTAs, milliseconds: for tests and CI (`--quick`).
    Quick,
}

/// A benchmark of the suite.
pub struct Bench {
    /// Its name on the command line.
    pub name: &'static str,
    /// One line on what it exercises.
    pub about: &'static str,
    pub(super) build: fn(Size) -> Workload,
}

/// Every benchmark, in the order the suite runs them.
pub const SUITE: &[Bench] = &[
    Bench {
        name: "alu",
        about: "int + f32 arithmetic loop (LCG, xorshift, fma recurrence); `bench oracle`'s kernel",
        build: super::alu_workload,
    },
    Bench {
        name: "int-heavy",
        about: "hashing loop: mul.hi, mul.lo, shf.l.wrap, prmt, popc, bfe, brev, clz",
        build: super::kernels::int_heavy,
    },
    Bench {
        name: "float-heavy",
        about: "f32 and f64 loop: sub/mul/add, div.rn, sqrt.rn, fma.rn, cvt (all exactly rounded)",
        build: super::kernels::float_heavy,
    },
    Bench {
        name: "divergent",
        about: "Collatz walks: per-lane if/else and loops of data-dependent trip counts",
        build: super::kernels::divergent,
    },
    Bench {
        name: "memory",
        about: "u32 matrix transpose through a 32x33 shared tile with bar.sync (loads/stores)",
        build: super::kernels::memory,
    },
    Bench {
        name: "softmax",
        about: "Triton 3.9 softmax (corpus/ptx/triton/softmax.sm80.ptx), one row per CTA",
        build: super::triton::softmax,
    },
    Bench {
        name: "layer-norm",
        about: "Triton 3.9 layer norm (corpus/ptx/triton/layer_norm.sm80.ptx), one row per CTA",
        build: super::triton::layer_norm,
    },
    Bench {
        name: "gemm",
        about: "f16 GEMM with mma.sync m16n8k16 (`bench mma`'s kernel), one warp per 32x32 tile",
        build: super::gemm::workload,
    },
];

/// The benchmark named `name` (`oracle` is `alu`'s older name).
pub fn find(name: &str) -> Option<&'static Bench> {
    let name = if name == "oracle" { "alu" } else { name };
    SUITE.iter().find(|b| b.name == name)
}

/// How the suite runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The engines measured with one worker each (default: [`Engine::ALL`]).
    pub engines: Vec<Engine>,
    /// Host threads for the last row of each benchmark: the last of `engines` with this many
    /// workers (no such row when 1).
    pub workers: usize,
    /// The benchmark size.
    pub size: Size,
    /// Corrupt the twin's result (one bit of the first checked buffer), so that a correct oracle
    /// must be reported wrong: the test that a wrong result cannot pass unnoticed.
    #[doc(hidden)]
    pub plant_wrong_twin: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            engines: Engine::ALL.to_vec(),
            workers: available_cores(),
            size: Size::Full,
            plant_wrong_twin: false,
        }
    }
}

/// The host's cores as the standard library sees them (1 if unknown).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// One measurement: a benchmark on one engine with some workers.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The benchmark's name.
    pub benchmark: String,
    /// What it computed.
    pub shape: String,
    /// The engine ([`Engine::name`]).
    pub engine: String,
    /// Host threads ([`Machine::workers`]).
    pub workers: usize,
    /// Thread-instructions the launch executed.
    pub thread_instructions: u64,
    /// Warp-instructions (decoded instructions issued).
    pub warp_instructions: u64,
    /// Seconds in `Machine::run`.
    pub seconds: f64,
    /// Thread-instructions per second.
    pub rate: f64,
    /// Seconds the native twin takes for the same computation (one host thread).
    pub native_seconds: f64,
    /// The oracle's thread-instructions divided by the native seconds.
    pub native_rate: f64,
    /// `seconds / native_seconds`: how many times slower than native.
    pub ratio: f64,
    /// The benchmark's first row's seconds divided by this row's: the speedup over the
    /// reference engine on one worker.
    pub speedup: f64,
}

/// The machine the figures were measured on.
#[derive(Clone, Debug, Serialize)]
pub struct Host {
    /// `model name` of /proc/cpuinfo.
    pub cpu: String,
    /// Cores available to this process.
    pub cores: usize,
    /// /proc/loadavg's 1, 5 and 15 minute load averages when the run started.
    pub load_average: [f64; 3],
}

impl Host {
    /// Reads the host's description (empty or zero where /proc does not say).
    pub fn probe() -> Host {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_default();
        let mut load_average = [0.0; 3];
        if let Ok(t) = std::fs::read_to_string("/proc/loadavg") {
            for (slot, v) in load_average.iter_mut().zip(t.split_whitespace()) {
                *slot = v.parse().unwrap_or(0.0);
            }
        }
        Host {
            cpu,
            cores: available_cores(),
            load_average,
        }
    }
}

/// A run of the suite.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Where it ran.
    pub host: Host,
    /// `full` or `quick`.
    pub size: String,
    /// Every row, benchmark by benchmark.
    pub rows: Vec<Row>,
}

impl Report {
    /// The report as one JSON object (pretty, one trailing newline).
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report serializes") + "\n"
    }

    /// The report as a table, one line per row, each benchmark headed by what it computed.
    pub fn text(&self) -> String {
        let h = &self.host;
        let mut s = format!(
            "host: {}, {} cores, load average {:.2} {:.2} {:.2}; size {}\n",
            if h.cpu.is_empty() { "unknown CPU" } else { &h.cpu },
            h.cores,
            h.load_average[0],
            h.load_average[1],
            h.load_average[2],
            self.size
        );
        writeln!(
            s,
            "{:<12} {:<10} {:>7} {:>14} {:>9} {:>11} {:>11} {:>9} {:>8}",
            "benchmark",
            "engine",
            "workers",
            "thread-instr",
            "seconds",
            "M instr/s",
            "native M/s",
            "x native",
            "speedup"
        )
        .unwrap();
        let mut last = "";
        for r in &self.rows {
            if r.benchmark != last {
                writeln!(s, "# {}: {}", r.benchmark, r.shape).unwrap();
                last = &r.benchmark;
            }
            writeln!(
                s,
                "{:<12} {:<10} {:>7} {:>14} {:>9.3} {:>11.1} {:>11.1} {:>9.1} {:>7.2}x",
                r.benchmark,
                r.engine,
                r.workers,
                r.thread_instructions,
                r.seconds,
                r.rate / 1e6,
                r.native_rate / 1e6,
                r.ratio,
                r.speedup
            )
            .unwrap();
        }
        s.push_str(
            "(x native: the oracle's time over the native twin's, one host thread for the twin; \
             speedup: over the benchmark's first row; every row's output checked against the twin)\n",
        );
        s
    }
}

/// Runs `benches` as `opts` says; the first wrong result or failure is the error.
pub fn run(benches: &[&Bench], opts: &Options) -> Result<Report, BenchError> {
    let host = Host::probe();
    let mut rows = Vec::new();
    for b in benches {
        rows.extend(run_one(b, opts)?);
    }
    Ok(Report {
        host,
        size: match opts.size {
            Size::Full => "full",
            Size::Quick => "quick",
        }
        .into(),
        rows,
    })
}

/// The (engine, workers) rows of one benchmark.
fn plan(opts: &Options) -> Vec<(Engine, usize)> {
    let mut v: Vec<(Engine, usize)> = opts.engines.iter().map(|&e| (e, 1)).collect();
    if let Some(&last) = opts.engines.last() {
        if opts.workers > 1 {
            v.push((last, opts.workers));
        }
    }
    v
}

fn in_row(bench: &Bench, engine: Engine, workers: usize, e: BenchError) -> BenchError {
    BenchError::In {
        bench: bench.name,
        engine: engine.name(),
        workers,
        source: Box::new(e),
    }
}

fn run_one(bench: &Bench, opts: &Options) -> Result<Vec<Row>, BenchError> {
    let w = (bench.build)(opts.size);
    let module = oracle::parse::parse(&w.ptx).map_err(BenchError::Parse)?;
    let prog = oracle::check::check(&module).map_err(BenchError::Check)?;

    // The twin: its result once, then its time as the mean of repeats over at least 50 ms.
    let mut twin = (w.native)(&w.buffers);
    let t1 = Instant::now();
    let mut runs = 0u32;
    while runs == 0 || t1.elapsed().as_secs_f64() < 0.05 {
        std::hint::black_box((w.native)(std::hint::black_box(&w.buffers)));
        runs += 1;
    }
    let native_seconds = t1.elapsed().as_secs_f64() / runs as f64;
    if opts.plant_wrong_twin {
        if let Some(byte) = twin.outputs.first_mut().and_then(|o| o.get_mut(3)) {
            *byte ^= 0x40;
        }
    }

    let mut rows: Vec<Row> = Vec::new();
    for (engine, workers) in plan(opts) {
        let wrap = |e| in_row(bench, engine, workers, e);
        let mut m = Machine::new(&prog).map_err(|e| wrap(BenchError::Load(e)))?;
        m.engine = engine;
        m.workers = workers;
        let mut bases = Vec::with_capacity(w.buffers.len());
        for (i, b) in w.buffers.iter().enumerate() {
            bases.push(
                m.alloc(&format!("b{i}"), b.clone())
                    .map_err(|e| wrap(BenchError::Load(e)))?,
            );
        }
        let launch = Launch {
            entry: w.entry.into(),
            grid: w.grid,
            block: w.block,
            params: params(&prog, w.entry, &w.args, &bases).map_err(wrap)?,
            dyn_shared: w.dyn_shared,
            cluster: None,
            limits: Limits::default(),
        };
        let t0 = Instant::now();
        let stats = m.run(&launch).map_err(|e| wrap(BenchError::Run(e)))?;
        let seconds = t0.elapsed().as_secs_f64().max(1e-9);
        for ((idx, name, rule), want) in w.checks.iter().zip(&twin.outputs) {
            let got = m.buffer(bases[*idx]).unwrap_or_default();
            compare(name, *rule, got, want).map_err(wrap)?;
        }
        if let Some(expected) = twin.instructions {
            if stats.thread_instructions != expected {
                return Err(wrap(BenchError::InstructionCount {
                    executed: stats.thread_instructions,
                    expected,
                }));
            }
        }
        let first = rows.first().map_or(seconds, |r| r.seconds);
        let rate = stats.thread_instructions as f64 / seconds;
        rows.push(Row {
            benchmark: bench.name.into(),
            shape: w.shape.clone(),
            engine: engine.name().into(),
            workers,
            thread_instructions: stats.thread_instructions,
            warp_instructions: stats.warp_instructions,
            seconds,
            rate,
            native_seconds,
            native_rate: stats.thread_instructions as f64 / native_seconds.max(1e-12),
            ratio: seconds / native_seconds.max(1e-12),
            speedup: first / seconds,
        });
    }
    twin.outputs.clear();
    Ok(rows)
}

/// The launch's parameter bytes, laid out as the checked program declares them.
fn params(prog: &oracle::program::Program, entry: &str, args: &[Arg], bases: &[u64]) -> Result<Vec<u8>, BenchError> {
    let func = prog
        .entry(entry)
        .map(|i| &prog.funcs[i])
        .ok_or_else(|| BenchError::Kernel(format!("the module has no `.entry {entry}`")))?;
    if func.params.len() != args.len() {
        return Err(BenchError::Kernel(format!(
            "`{entry}` takes {} parameters, the benchmark gives {}",
            func.params.len(),
            args.len()
        )));
    }
    let size = func.params.last().map_or(0, |p| (p.0 + p.1) as usize);
    let mut out = vec![0u8; size];
    for (a, &(off, psize)) in args.iter().zip(&func.params) {
        let bytes = match a {
            Arg::Buffer(i) => bases[*i].to_le_bytes().to_vec(),
            Arg::B32(v) => v.to_le_bytes().to_vec(),
        };
        if bytes.len() != psize as usize {
            return Err(BenchError::Kernel(format!(
                "a {psize}-byte parameter of `{entry}` given {} bytes",
                bytes.len()
            )));
        }
        out[off as usize..off as usize + bytes.len()].copy_from_slice(&bytes);
    }
    Ok(out)
}

/// Checks `got` against the twin's `want` under `rule`.
fn compare(name: &str, rule: Rule, got: &[u8], want: &[u8]) -> Result<(), BenchError> {
    if got.len() != want.len() {
        return Err(BenchError::Differs {
            buffer: name.into(),
            index: got.len().min(want.len()),
            got: None,
            want: None,
        });
    }
    let (width, ok): (usize, &dyn Fn(u32, u32) -> bool) = match rule {
        Rule::Exact => (1, &|g, w| g == w),
        Rule::Rel(x) => (4, &move |g, w| near(g, w, |w| x * w.abs())),
        Rule::Abs(x) => (4, &move |g, w| near(g, w, |_| x)),
    };
    for (i, (g, w)) in got.chunks_exact(width).zip(want.chunks_exact(width)).enumerate() {
        let word = |c: &[u8]| c.iter().rev().fold(0u32, |acc, &b| (acc << 8) | b as u32);
        let (g, w) = (word(g), word(w));
        if !ok(g, w) {
            return Err(BenchError::Differs {
                buffer: name.into(),
                index: i,
                got: Some((g, width)),
                want: Some((w, width)),
            });
        }
    }
    Ok(())
}

/// Whether f32 bits `g` are within `bound(want)` of `w`; non-finite values only as equal bits.
fn near(g: u32, w: u32, bound: impl Fn(f64) -> f64) -> bool {
    if g == w {
        return true;
    }
    let (g, w) = (f32::from_bits(g) as f64, f32::from_bits(w) as f64);
    g.is_finite() && w.is_finite() && (g - w).abs() <= bound(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_accept_and_refuse_as_stated() {
        let f = |x: f32| x.to_bits().to_le_bytes().to_vec();
        assert!(compare("b", Rule::Exact, &[1, 2], &[1, 2]).is_ok());
        assert!(compare("b", Rule::Exact, &[1, 2], &[1, 3]).is_err());
        assert!(compare("b", Rule::Rel(1e-5), &f(1.000_009), &f(1.0)).is_ok());
        assert!(compare("b", Rule::Rel(1e-5), &f(1.000_02), &f(1.0)).is_err());
        assert!(compare("b", Rule::Abs(1e-4), &f(0.000_09), &f(0.0)).is_ok());
        assert!(compare("b", Rule::Abs(1e-4), &f(f32::NAN), &f(0.0)).is_err());
        assert!(compare("b", Rule::Exact, &[1], &[1, 2]).is_err());
    }

    #[test]
    fn names_are_unique_and_oracle_is_alu() {
        let mut names: Vec<_> = SUITE.iter().map(|b| b.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), SUITE.len());
        assert_eq!(find("oracle").map(|b| b.name), Some("alu"));
        assert!(find("nope").is_none());
    }
}
