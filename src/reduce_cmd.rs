//! `ptxconf reduce LAUNCH.json --backend B`: the launch and its PTX → [`ptxconf::reduce`] against
//! the backend → the reduced case written beside it ([`ptxconf::findings`]), the report printed.
//!
//! Exit status: 0 when the case was reduced and written; 1 when the oracle and the backend agree
//! on the launch (nothing to reduce: scripts reducing a list of launches can tell these apart);
//! 2 when it cannot run (bad arguments, unreadable files, a backend that cannot start, a launch
//! the oracle itself fails on).

use ptxconf::backend::{self, Options};
use ptxconf::compare;
use ptxconf::findings;
use ptxconf::reduce::{self, Case, ReduceError};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args)]
pub struct ReduceArgs {
    /// The launch file whose results differ between the oracle and the backend.
    launch: PathBuf,
    /// `oracle`, `cuda`, `cuda:LIB` or `cmd:PROGRAM [ARGS]`.
    #[arg(long)]
    backend: String,
    /// Where to write `reduced.ptx`, `launch.json` and `report.txt` (default: `<stem>.reduced/`
    /// beside the launch file). An existing directory is replaced.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Per-launch timeout of `cmd:` backends, in seconds (during the reduction: at most 10× the
    /// time the original launch took, at least 2 s; see `ptxconf::compare::tight_timeout`).
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Predicate calls (backend runs) at most.
    #[arg(long, default_value_t = 20_000)]
    max_calls: usize,
    /// Wall-clock budget in seconds; the smallest case found so far is written when it runs out.
    #[arg(long, default_value_t = 600.0)]
    seconds: f64,
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

fn progress(s: &reduce::Stats) {
    eprint!(
        "\rreduce: {} -> {} instructions, {} calls, {} steps accepted, {:.1} s   ",
        s.instructions_before, s.instructions_after, s.calls, s.accepted, s.seconds
    );
}

pub fn run(a: ReduceArgs) -> ExitCode {
    if !(a.seconds > 0.0 && a.seconds.is_finite()) {
        return fail(format!("--seconds must be a positive number, not {}", a.seconds));
    }
    let case = match Case::load(&a.launch) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let opts = Options {
        timeout: a.timeout,
        // The reducer runs one candidate at a time.
        jobs: 1,
        worker_exe: std::env::current_exe().ok(),
        ..Options::default()
    };
    let mut b = match backend::open(&a.backend, &opts) {
        Ok(b) => b,
        Err(e) => return fail(format!("backend `{}`: {e}", a.backend)),
    };
    // Candidates the backend runs much longer than the original (a loop whose exit the
    // reduction removed, or one the bug keeps running) are cut short.
    if a.backend.starts_with("cmd:") {
        let tight = compare::tight_timeout(&case, b.as_ref(), opts.timeout);
        if tight < opts.timeout {
            let o = Options {
                timeout: tight,
                ..opts.clone()
            };
            if let Ok(t) = backend::open(&a.backend, &o) {
                b = t;
            }
        }
    }
    let interactive = std::io::stderr().is_terminal();
    let ropts = reduce::Options {
        max_calls: a.max_calls.max(1),
        time_limit: Some(Duration::from_secs_f64(a.seconds)),
        probe: true,
        progress: interactive.then_some(progress as fn(&reduce::Stats)),
    };
    let res = reduce::reduce_against(case, b.as_ref(), &ropts);
    if interactive {
        eprintln!();
    }
    let r = match res {
        Ok(r) => r,
        Err(ReduceError::NoDifference) => {
            eprintln!(
                "{}: the oracle and `{}` agree on this launch: nothing to reduce",
                a.launch.display(),
                a.backend
            );
            return ExitCode::from(1);
        }
        Err(e) => return fail(format!("{}: {e}", a.launch.display())),
    };
    let dir = a.out.unwrap_or_else(|| findings::default_out_dir(&a.launch));
    if let Err(e) = r.write(&dir) {
        return fail(e);
    }
    print!("{}", r.report());
    println!("written to {}", dir.display());
    ExitCode::SUCCESS
}
