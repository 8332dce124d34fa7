//! `ptxconf`: the reference-conformance suite and differential fuzzer for NVIDIA PTX.

use clap::{Parser, Subcommand};
use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;

use ptxconf::{bench, coverage};

mod conform_cmd;
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod fuzz_cmd;
mod reduce_cmd;

#[derive(Parser)]
#[command(
    name = "ptxconf",
    version,
    about = "Bit-exact PTX ISA 8.7 reference and conformance suite"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Evaluate one instruction form on operand bit patterns.
    ///
    /// `ptxconf eval add.sat.s32 0x7fffffff 0x1` prints `0x7fffffff`. Operands are the source
    /// operands in PTX order: hex `0x..` or decimal bit patterns, predicates 0/1 (`!1` where `!p`
    /// is allowed), the incoming carry as `cf=0`/`cf=1`, video selectors as suffixes (`0x12.b1`),
    /// a leading `d.SEL` for a video destination selector or mask, `{0x1,0x2}` for a vector
    /// source and `{_,_}` for a vector destination. Output: every destination in order (hex
    /// padded to its width, predicates 0/1, `cf=N`), each followed by its acceptance tag when the
    /// manual allows more than one result (`any`, `oneof:0x..,0x..`).
    Eval {
        /// Read one `INSTRUCTION OPERAND...` line per evaluation from stdin; an invalid line prints
        /// `error: <reason>` and the batch continues.
        #[arg(long)]
        batch: bool,
        /// The instruction as written in PTX (`add.sat.s32`), then its source operands.
        #[arg(allow_hyphen_values = true, trailing_var_arg = true)]
        words: Vec<String>,
    },
    /// Run a kernel on the oracle: `ptxconf run LAUNCH.json`.
    ///
    /// The launch file names the PTX (relative to itself), the entry, grid and block, the buffers
    /// (`{"name", "hex"}` with initial bytes, or `{"name", "size"}` zeroed) and the parameters
    /// (`{"buffer": NAME}` passes its address, `{"type": "u32", "value": "17"}` a scalar);
    /// optional `shared_bytes` (dynamic shared memory) and `limits` (`steps`, `memory`, `stack`).
    /// Prints `{"status": "ok", "buffers": [...]}` with every buffer after the run, or exits 1
    /// with `{"status": "error", "kind": "parse|type|launch|runtime|limit|internal", "message",
    /// "location"}`.
    ///
    /// `ptxconf run --capabilities` answers the `cmd:` protocol's question instead: the oracle's
    /// capabilities as one JSON object (every target, PTX ISA up to 8.7, every family, nothing
    /// lacking).
    ///
    /// `--backend B` runs the launch on B instead and prints its reply the same way (a failure as
    /// `{"status": "error", "kind": "parse|...|crashed|timeout|malformed", "message"}`, exit 1):
    /// `diff` it against the oracle's to replay a repro on an implementation.
    Run {
        /// The launch file.
        #[arg(required_unless_present = "capabilities")]
        launch: Option<std::path::PathBuf>,
        /// Also print thread-instruction counts to stderr.
        #[arg(long)]
        stats: bool,
        /// Run on this backend (`cuda`, `cuda:LIB`, `cmd:PROGRAM [ARGS]`) instead of the oracle.
        #[arg(long, conflicts_with = "stats")]
        backend: Option<String>,
        /// Per-launch timeout of a `cmd:` backend, in seconds.
        #[arg(long, default_value_t = 60.0, requires = "backend")]
        timeout: f64,

        /// Host threads that run the launch's CTAs (clusters) at once; default: the machine's
        /// cores. The results are the same for every value (CTAs that meet in global memory are
        /// run again in order); each thread past the first holds a copy of global memory. Give 1
        /// when many runs go at once (a `cmd:` backend under `conform --jobs`).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..), conflicts_with = "backend")]
        workers: Option<u32>,
        /// Also run the launch with unwritten registers, `.local`/`.param`/`.shared` memory
        /// holding 0x5a, then 0xa5, instead of zero, and racing stores refused (what the reducer
        /// checks of every candidate): exit 3, with `undefined: WHY` on stderr, when the checked
        /// results depend on them.
        #[arg(long, conflicts_with = "backend")]
        defined: bool,
        /// Print the oracle's capabilities (the `cmd:` backend's `--capabilities` question)
        /// instead of running a launch.
        #[arg(long, conflicts_with_all = ["launch", "stats", "backend", "workers", "defined"])]
        capabilities: bool,
    },
    /// Benchmarks of the oracle against native twins, in the same run.
    ///
    /// `ptxconf bench` (or `bench suite`) runs every benchmark: alu, int-heavy, float-heavy,
    /// divergent, memory, softmax and layer-norm (Triton's, from the corpus) and gemm; `ptxconf
    /// bench NAME` one of them. Each runs on every engine with one worker, then on the last engine
    /// with --workers host threads; every row's output is checked against the twin's (exit 1 if
    /// wrong) and prints thread-instructions/s, the ratio to native and the speedup over the first
    /// row. `--json` prints the rows with the host (CPU, cores, load). `ptxconf bench oracle`
    /// (the ALU kernel at --threads × --iters) and `ptxconf bench mma` (the GEMM at --size) keep
    /// their one-line reports.
    Bench {
        /// `suite` (default), a benchmark's name, `oracle` or `mma`.
        target: Option<String>,
        /// `oracle`: threads in the launch (a multiple of 32; blocks of up to 1024).
        #[arg(long, default_value_t = 1024)]
        threads: u32,
        /// `oracle`: loop iterations per thread.
        #[arg(long, default_value_t = 10_000)]
        iters: u32,
        /// `mma`: M = N = K of the GEMM (a multiple of 32, at most 4096).
        #[arg(long, default_value_t = 256)]
        size: u32,
        /// Suite: measure only this engine (default: every engine).
        #[arg(long)]
        engine: Option<String>,
        /// Suite: host threads for the last row of each benchmark (default: the available cores).
        #[arg(long)]
        workers: Option<usize>,
        /// Suite: small sizes (milliseconds; for tests and CI).
        #[arg(long)]
        quick: bool,
        /// Suite: print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Golden vectors (corpus/vectors/): `generate` writes them from the spec, `verify`
    /// regenerates and compares byte for byte, `cat FORM` prints one form's file.
    Vectors {
        #[command(subcommand)]
        cmd: VectorsCmd,
    },
    /// Judge an implementation: every selected form's golden vectors as kernels on a backend.
    ///
    /// `ptxconf conform --backend oracle` runs the whole suite on the built-in oracle. Filters
    /// select forms by a substring of their key (`add.rn`), or a family or section id (`9.7.3`,
    /// `9.7.3.1`). Prints a table per family and every failed form's first mismatches; exits 1 if
    /// any form failed, 2 on usage errors.
    Conform(Box<ConformArgs>),
    /// Reduce a launch whose results differ between the oracle and a backend.
    ///
    /// `ptxconf reduce LAUNCH.json --backend B` deletes instructions and blocks, replaces operands
    /// with constants and shrinks the launch while the difference persists (of the same kind: a
    /// value mismatch, or the same failure), then writes `reduced.ptx`, `launch.json` and
    /// `report.txt` to `<stem>.reduced/` (or --out) and prints the report. Exits 0 when reduced,
    /// 1 when the oracle and the backend agree (nothing to reduce), 2 when it cannot run.
    Reduce(reduce_cmd::ReduceArgs),
    /// Write random well-typed programs: `ptxconf gen --seed S --count N --out DIR`.
    ///
    /// Each program is a `.ptx` file and a launch file (`ptxconf run DIR/p000000.json` runs it)
    /// with its inputs and its signature layout (`check`). The same seed gives the same files.
    Gen(fuzz_cmd::GenArgs),
    /// A differential fuzzing campaign: generated programs on the oracle and on a backend.
    ///
    /// `ptxconf fuzz --backend B --seconds N` prints a live line (programs/s, thread-instructions,
    /// mismatches, forms covered); each mismatch is reduced and written to
    /// corpus/findings/fuzz/<backend>/ before it is printed. With `--backend oracle` it runs the
    /// generator and the oracle alone and reports the rate. Exits 1 if anything was found.
    Fuzz(Box<fuzz_cmd::FuzzArgs>),
    /// Report, per §9.7 family and in total, the catalog's forms and how many have semantics,
    /// golden vectors and generator support.
    Coverage {
        /// Machine-readable output with per-form detail.
        #[arg(long)]
        json: bool,
    },
    /// A `cuda` backend worker: serves jobs on stdin (the protocol of
    /// `ptxconf::backend::cuda::worker`); started by the backend itself.
    #[command(name = "cuda-worker", hide = true)]
    CudaWorker {
        /// The driver library (`cuda:LIB`); default: the system's libcuda.
        #[arg(long)]
        lib: Option<String>,
    },
}

#[derive(Subcommand)]
enum VectorsCmd {
    /// Write the vector file of every form with semantics that the filters select (all without
    /// filters; then files of forms no longer generated are deleted).
    Generate {
        /// Output directory (default: the corpus's, found as `conform` finds it, else
        /// ./corpus/vectors).
        #[arg(long)]
        dir: Option<std::path::PathBuf>,
        /// The generator seed (each form's own seed is derived from it and the form's key).
        #[arg(long, default_value_t = ptxconf::vectors::DEFAULT_SEED)]
        seed: u64,
        /// `golden` (the committed corpus) or `one` (TestFloat level-1 counts: large, not
        /// committed).
        #[arg(long, default_value = "golden")]
        level: String,
        /// Forms generated at once.
        #[arg(long)]
        jobs: Option<usize>,
        /// Substrings of form keys, or family/section ids.
        filters: Vec<String>,
    },
    /// Regenerate every file from the seed and level in its header and compare the text byte
    /// for byte; exits 1 on any difference or missing form.
    Verify {
        /// The directory (default: the corpus's, found as `conform` finds it).
        #[arg(long)]
        dir: Option<std::path::PathBuf>,
        #[arg(long)]
        jobs: Option<usize>,
        filters: Vec<String>,
    },
    /// Print one form's vector file (decompressed): `ptxconf vectors cat add.rn.f32`.
    Cat {
        /// The form's key (`mov.b32~i2` for a form with a vector operand).
        form: String,
        /// The directory (default: the corpus's, found as `conform` finds it; without one the
        /// form's golden file is generated in memory).
        #[arg(long)]
        dir: Option<std::path::PathBuf>,
    },
}

#[derive(clap::Args)]
struct ConformArgs {
    /// `oracle`, `cuda`, `cuda:LIB` (a library exposing the CUDA driver API, e.g. ZLUDA's), or
    /// `cmd:PROGRAM [ARGS]` (an external program speaking `ptxconf run`'s launch protocol).
    #[arg(long, default_value = "oracle")]
    backend: String,
    /// Forms to run: substrings of form keys, or family/section ids. None: every form.
    filters: Vec<String>,
    /// The golden-vector directory. Default: `$PTXCONF_CORPUS/vectors` when that variable is set,
    /// else ./corpus/vectors, else the repository around the executable or the one it was built
    /// from; with none, the golden set is generated in memory (the same vectors).
    #[arg(long)]
    vectors: Option<std::path::PathBuf>,
    /// Generate the vectors in memory at this level instead of reading the directory: `one`
    /// is TestFloat's level-1 counts (600 one-operand, 46,464 for more; about 333M vectors in
    /// all, a long run), `golden` what the directory holds.
    #[arg(long)]
    level: Option<String>,
    /// The seed of --level, and of the operational forms' scenarios (the bytes they copy, the
    /// counts they arrive with).
    #[arg(long, default_value_t = ptxconf::vectors::DEFAULT_SEED)]
    seed: u64,
    /// Run these vector files (a repro's `vectors.vec`) instead of the directory.
    #[arg(long = "file")]
    files: Vec<std::path::PathBuf>,
    /// Write the report as JSON.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
    /// Write the report as JUnit XML.
    #[arg(long)]
    junit: Option<std::path::PathBuf>,
    /// Where to write a standalone repro of each failed form.
    #[arg(long, default_value = "conform-repro")]
    repro: std::path::PathBuf,
    /// Mismatches shown per failed form.
    #[arg(long, default_value_t = 5)]
    show: usize,
    /// Per-launch timeout of `cmd:` and `cuda` backends, in seconds.
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
    /// Launches in flight at once (in-process oracle threads, `cmd:` processes, `cuda` worker
    /// processes: at most 16 unless PTXCONF_CUDA_WORKERS gives their number).
    #[arg(long)]
    jobs: Option<usize>,
    /// The target the backend implements (`sm_90`), overriding what it declares.
    #[arg(long)]
    target: Option<String>,
    /// The newest PTX ISA version the backend accepts (`8.5`), overriding what it declares.
    #[arg(long)]
    ptx: Option<String>,
    /// The §9.7 families the backend implements (`9.7.1`), overriding what it declares.
    #[arg(long = "family")]
    families: Vec<String>,
    /// A hardware profile directory (corpus/profiles/...).
    #[arg(long)]
    profile: Option<std::path::PathBuf>,
    /// With --profile: also require the profile's observed bits (canonical NaNs, approximate
    /// instructions' results).
    #[arg(long, requires = "profile")]
    strict: bool,
    /// Record what the backend returns as a hardware profile into this directory.
    #[arg(long)]
    record_profile: Option<std::path::PathBuf>,
    /// Compare each form's result with this baseline (written by --write-baseline): exit 1 only
    /// on a regression, and list regressions, fixes and other changes.
    #[arg(long)]
    baseline: Option<std::path::PathBuf>,
    /// Record each form's result (passed; failed, with its failure's signature; skipped, with
    /// why) as a baseline file.
    #[arg(long)]
    write_baseline: Option<std::path::PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

fn main() -> ExitCode {
    // A reader that closes the pipe early (`| head`) ends the process, as for any Unix tool,
    // instead of the next `println!` panicking on EPIPE.
    #[cfg(unix)]
    // SAFETY: called first thing on the main thread, before any other thread exists; restoring
    // a signal's default disposition has no other effect on the process.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Eval { batch: true, words } if words.is_empty() => batch_eval(),
        Cmd::Eval { batch: true, .. } => {
            eprintln!("error: --batch reads instructions from stdin and takes no arguments");
            ExitCode::from(2)
        }
        Cmd::Eval { batch: false, words } if words.is_empty() => {
            eprintln!("error: expected an instruction, e.g. `ptxconf eval add.sat.s32 0x7fffffff 0x1`");
            ExitCode::from(2)
        }
        Cmd::Eval { batch: false, words } => match spec::eval::eval_line(&words.join(" ")) {
            Ok(out) => {
                println!("{out}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
        Cmd::Run {
            launch,
            stats,
            workers,
            capabilities,
            backend,
            timeout,
            defined,
        } => match launch {
            Some(launch) if !capabilities => match backend {
                Some(b) => replay_launch(&launch, &b, timeout),
                None => run_launch(&launch, stats, default_jobs(workers.map(|w| w as usize)), defined),
            },
            _ => {
                println!("{}", ptxconf::backend::oracle::capabilities_json());
                ExitCode::SUCCESS
            }
        },
        Cmd::Bench {
            target,
            threads,
            iters,
            size,
            engine,
            workers,
            quick,
            json,
        } => match target.as_deref().unwrap_or("suite") {
            "oracle" => match bench::oracle(threads, iters) {
                Ok(report) => {
                    print!("{report}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: bench oracle: {e}");
                    ExitCode::from(1)
                }
            },
            "mma" => match bench::mma(size) {
                Ok(report) => {
                    print!("{report}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: bench mma: {e}");
                    ExitCode::from(1)
                }
            },
            name => bench_suite(name, engine.as_deref(), workers, quick, json),
        },
        Cmd::Conform(args) => conform_cmd::run(*args),
        Cmd::Reduce(args) => reduce_cmd::run(args),
        Cmd::Gen(args) => fuzz_cmd::gen(args),
        Cmd::Fuzz(args) => fuzz_cmd::fuzz(*args),
        Cmd::Vectors { cmd } => vectors_cmd(cmd),
        Cmd::CudaWorker { lib } => {
            ExitCode::from(ptxconf::backend::serve_cuda_worker(lib.as_deref()).clamp(0, 255) as u8)
        }
        Cmd::Coverage { json } => {
            let report = coverage::Report::compute();
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report).expect("coverage report serializes")
                );
            } else {
                print!("{}", report.table());
            }
            ExitCode::SUCCESS
        }
    }
}

fn default_jobs(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// Prints a command's report and exits 0 when it found nothing wrong, 1 when it did, 2 when it
/// could not run.
fn finish(res: Result<(String, bool), impl std::fmt::Display>) -> ExitCode {
    match res {
        Ok((report, ok)) => {
            print!("{report}");
            ExitCode::from(if ok { 0 } else { 1 })
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `vectors generate|verify|cat`.
fn vectors_cmd(cmd: VectorsCmd) -> ExitCode {
    use ptxconf::{corpus, vectors};
    // The corpus's directory when none is given (`Err`: the places looked).
    let found = |dir: Option<std::path::PathBuf>| match dir {
        Some(d) => Ok(d),
        None => corpus::vectors().map(|f| {
            if !f.local {
                eprintln!("golden vectors: {}", f.dir.display());
            }
            f.dir
        }),
    };
    match cmd {
        VectorsCmd::Generate {
            dir,
            seed,
            level,
            jobs,
            filters,
        } => {
            let Some(level) = generators::vectors::Level::parse(&level) else {
                eprintln!("error: --level `{level}`: expected `golden` or `one`");
                return ExitCode::from(2);
            };
            let dir = found(dir).unwrap_or_else(|_| vectors::DEFAULT_DIR.into());
            finish(
                vectors::generate(&dir, seed, level, &filters, default_jobs(jobs))
                    .map(|s| (show_summary(&s), s.failed.is_empty())),
            )
        }
        VectorsCmd::Verify { dir, jobs, filters } => match found(dir) {
            Ok(dir) => finish(vectors::verify(&dir, &filters, default_jobs(jobs)).map(|r| (show_verify(&r), r.ok()))),
            Err(looked) => {
                eprintln!(
                    "error: no golden-vector corpus found (looked in {}); give --dir DIR or set PTXCONF_CORPUS",
                    corpus::looked_in(&looked)
                );
                ExitCode::from(2)
            }
        },
        VectorsCmd::Cat { form, dir } => {
            let text = match found(dir) {
                Ok(dir) => vectors::cat(&dir, &form),
                Err(looked) => {
                    eprintln!(
                        "no golden-vector corpus found (looked in {}); generating `{form}`'s golden file in memory",
                        corpus::looked_in(&looked)
                    );
                    vectors::golden_text(&form)
                }
            };
            match text {
                Ok(text) => {
                    // stdout closed (piped into `head`) is not an error.
                    let _ = std::io::stdout().lock().write_all(text.as_bytes());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}

fn show_summary(s: &ptxconf::vectors::Summary) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{} forms ({} files written), {} vectors ({} exhaustive, {} hard, {} random), {} bytes compressed, {:.1} s",
        s.forms, s.written, s.vectors, s.exhaustive, s.hard, s.random, s.bytes, s.seconds
    );
    for p in &s.deleted {
        let _ = writeln!(t, "deleted stale {}", p.display());
    }
    for (k, n) in &s.rejected {
        let _ = writeln!(t, "{k}: {n} operand sets the spec rejects were skipped");
    }
    for (k, why) in &s.failed {
        let _ = writeln!(t, "FAILED {k}: {why}");
    }
    t
}

fn show_verify(r: &ptxconf::vectors::VerifyReport) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    for m in &r.mismatched {
        let _ = writeln!(
            t,
            "MISMATCH {} ({}:{}):\n  file:        {}\n  regenerated: {}",
            m.key,
            m.path.display(),
            m.line,
            m.found,
            m.expected
        );
    }
    for k in &r.missing {
        let _ = writeln!(t, "MISSING {k}");
    }
    for (p, why) in &r.errors {
        let _ = writeln!(t, "ERROR {}: {why}", p.display());
    }
    let _ = writeln!(
        t,
        "{} files checked: {} differ, {} missing, {} unreadable",
        r.checked,
        r.mismatched.len(),
        r.missing.len(),
        r.errors.len()
    );
    t
}

/// `run --backend`: the backend's reply on stdout; exit 1 when it failed the launch, 2 when it
/// could not be asked.
fn replay_launch(path: &std::path::Path, backend: &str, timeout: f64) -> ExitCode {
    match ptxconf::replay::replay(path, backend, timeout) {
        Ok(r) => {
            print!("{}", r.json);
            ExitCode::from(if r.ok { 0 } else { 1 })
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `run`: the launch contract's replies on stdout, the exit status saying which it was.
/// `ptxconf bench [suite|NAME]`: the suite's report, or exit 2 on a usage error, 1 when a
/// benchmark fails or its output is wrong.
fn bench_suite(name: &str, engine: Option<&str>, workers: Option<usize>, quick: bool, json: bool) -> ExitCode {
    use bench::suite;
    let benches: Vec<&suite::Bench> = if name == "suite" {
        suite::SUITE.iter().collect()
    } else if let Some(b) = suite::find(name) {
        vec![b]
    } else {
        let names: Vec<&str> = suite::SUITE.iter().map(|b| b.name).collect();
        eprintln!(
            "error: unknown benchmark `{name}` (expected `suite`, {}, `oracle` or `mma`)",
            names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        );
        return ExitCode::from(2);
    };
    let mut opts = suite::Options::default();
    if let Some(e) = engine {
        match oracle::exec::Engine::parse(e) {
            Some(e) => opts.engines = vec![e],
            None => {
                let names: Vec<&str> = oracle::exec::Engine::ALL.iter().map(|e| e.name()).collect();
                eprintln!("error: unknown engine `{e}` (expected one of: {})", names.join(", "));
                return ExitCode::from(2);
            }
        }
    }
    if let Some(w) = workers {
        if w == 0 {
            eprintln!("error: --workers must be at least 1");
            return ExitCode::from(2);
        }
        opts.workers = w;
    }
    if quick {
        opts.size = suite::Size::Quick;
    }
    match suite::run(&benches, &opts) {
        Ok(report) => {
            print!("{}", if json { report.json() } else { report.text() });
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: bench: {e}");
            ExitCode::from(1)
        }
    }
}

fn run_launch(path: &std::path::Path, stats: bool, workers: usize, defined: bool) -> ExitCode {
    match oracle::launch::run_file_on(path, workers) {
        Ok((bufs, st)) => {
            print!("{}", oracle::launch::ok_json(&bufs));
            if stats {
                eprintln!(
                    "{} thread-instructions, {} warp-instructions",
                    st.thread_instructions, st.warp_instructions
                );
            }
            if defined {
                // The launch ran, so it and its PTX load.
                if let Ok(c) = ptxconf::reduce::Case::load(path) {
                    if let Some(u) = ptxconf::reduce::undefined_dependence(&c.launch, &c.ptx, &bufs) {
                        eprintln!("undefined: {u}");
                        return ExitCode::from(3);
                    }
                }
            }
            ExitCode::SUCCESS
        }
        Err((e, file)) => {
            print!("{}", oracle::launch::error_json(&e, &file));
            ExitCode::from(1)
        }
    }
}

/// `eval --batch`: one line in, one line out, in order; errors are reported in-line.
fn batch_eval() -> ExitCode {
    let stdin = std::io::stdin().lock();
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    for (n, line) in stdin.lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error: stdin line {}: {e}", n + 1);
                return ExitCode::from(2);
            }
        };
        let res = match spec::eval::eval_line(&line) {
            Ok(s) => writeln!(out, "{s}"),
            Err(e) => writeln!(out, "error: {e}"),
        };
        if res.is_err() {
            // stdout closed (e.g. piped into `head`): stop quietly.
            return ExitCode::SUCCESS;
        }
    }
    if out.flush().is_err() {
        return ExitCode::SUCCESS;
    }
    ExitCode::SUCCESS
}
