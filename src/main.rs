//! `ptxconf`: the reference-conformance suite and differential fuzzer for NVIDIA PTX.

mod bench;
mod coverage;

use clap::{Parser, Subcommand};
use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;

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
    /// with `{"status": "error", "kind": "parse|type|launch|runtime|limit", "message",
    /// "location"}`.
    Run {
        /// The launch file.
        launch: std::path::PathBuf,
        /// Also print thread-instruction counts to stderr.
        #[arg(long)]
        stats: bool,
    },
    /// Benchmarks: `ptxconf bench oracle` runs an ALU-heavy kernel on the interpreter and the same
    /// computation natively, checks that both give the same bytes, and prints the oracle's
    /// thread-instructions per second and the ratio of the two times.
    Bench {
        /// What to benchmark (`oracle`).
        target: String,
        /// Threads in the launch (a multiple of 32; blocks of up to 1024).
        #[arg(long, default_value_t = 1024)]
        threads: u32,
        /// Loop iterations per thread.
        #[arg(long, default_value_t = 10_000)]
        iters: u32,
    },
    /// Report, per §9.7 family and in total, the catalog's forms and how many have semantics,
    /// golden vectors and generator support.
    Coverage {
        /// Machine-readable output with per-form detail.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
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
        Cmd::Run { launch, stats } => run_launch(&launch, stats),
        Cmd::Bench { target, threads, iters } => match target.as_str() {
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
            other => {
                eprintln!("error: unknown benchmark `{other}` (expected `oracle`)");
                ExitCode::from(2)
            }
        },
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

/// `run`: the launch contract's replies on stdout, the exit status saying which it was.
fn run_launch(path: &std::path::Path, stats: bool) -> ExitCode {
    match oracle::launch::run_file(path) {
        Ok((bufs, st)) => {
            print!("{}", oracle::launch::ok_json(&bufs));
            if stats {
                eprintln!(
                    "{} thread-instructions, {} warp-instructions",
                    st.thread_instructions, st.warp_instructions
                );
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
