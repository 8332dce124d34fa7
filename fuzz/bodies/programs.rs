//! Bodies of the `oracle_run` and `differential` fuzz targets: generated programs
//! (`generators::program::generate` over the fuzzer's bytes, `Config::default()`) on the oracle,
//! and on a backend under test.
//!
//! Included with `#[path]` by `fuzz/fuzz_targets/{oracle_run,differential}.rs` and by
//! `tests/fuzz_seeds.rs`: the bytes become an `arbitrary::Unstructured`, and `arbitrary` is a
//! dependency of the fuzz crate and a dev-dependency of `ptxconf`, not a dependency of its library.

use arbitrary::Unstructured;
use generators::program::{generate, Config, Program};
use ptxconf::backend::{self, Backend, Failure, Options};
use ptxconf::compare::Difference;
use ptxconf::fuzz_targets::{Finding, Reach};
use std::sync::OnceLock;

/// The environment variable naming the backend `differential` compares with the oracle, as
/// `ptxconf conform --backend` takes it (`oracle`, `cuda`, `cuda:LIB`, `cmd:PROGRAM ARGS`).
#[allow(dead_code)]
pub const BACKEND_VAR: &str = "PTXCONF_FUZZ_BACKEND";

fn config() -> &'static Config {
    static CFG: OnceLock<Config> = OnceLock::new();
    CFG.get_or_init(Config::default)
}

/// The program of `data`; `None` where the generator declines the bytes (it reads an exhausted
/// stream as zeros, so in practice never).
#[allow(dead_code)]
pub fn program(data: &[u8]) -> Option<Program> {
    generate(&mut Unstructured::new(data), config()).ok()
}

/// What reproduces a finding: the program, its launch and what went wrong.
fn report(target: &str, what: &str, p: &Program) -> Finding {
    format!(
        "{target}: {what}\n--- program.ptx ---\n{}\n--- launch.json ---\n{}",
        p.ptx,
        p.launch.to_json()
    )
}

/// `oracle_run`: the generated program runs on the oracle without an error (programs are valid
/// by construction and within the default limits), and twice gives byte-identical buffers and
/// the same instruction count (the interpreter is deterministic).
#[allow(dead_code)]
pub fn oracle_run(data: &[u8]) -> Result<Reach, Finding> {
    let Some(p) = program(data) else {
        return Ok(Reach::Rejected);
    };
    let run = || {
        oracle::launch::run(&p.launch, &p.ptx).map_err(|e| {
            report(
                "oracle_run",
                &format!("the oracle fails on a generated program: {e}"),
                &p,
            )
        })
    };
    let (b1, s1) = run()?;
    let (b2, s2) = run()?;
    if b1 != b2 {
        let which: Vec<String> = b1
            .iter()
            .zip(&b2)
            .filter(|(x, y)| x != y)
            .map(|((name, x), (_, y))| {
                let at = x
                    .iter()
                    .zip(y)
                    .position(|(a, b)| a != b)
                    .unwrap_or(x.len().min(y.len()));
                format!(
                    "buffer `{name}` first differs at byte {at:#x} ({} and {} bytes)",
                    x.len(),
                    y.len()
                )
            })
            .collect();
        return Err(report(
            "oracle_run",
            &format!("two runs give different buffers: {}", which.join("; ")),
            &p,
        ));
    }
    if s1.thread_instructions != s2.thread_instructions {
        return Err(report(
            "oracle_run",
            &format!(
                "two runs execute {} and {} thread-instructions",
                s1.thread_instructions, s2.thread_instructions
            ),
            &p,
        ));
    }
    Ok(Reach::Checked)
}

/// The backend named by [`BACKEND_VAR`] (default `oracle`), opened once.
#[allow(dead_code)]
pub fn env_backend() -> &'static dyn Backend {
    static B: OnceLock<Box<dyn Backend>> = OnceLock::new();
    B.get_or_init(|| {
        let name = std::env::var(BACKEND_VAR).unwrap_or_else(|_| "oracle".to_string());
        let opts = Options {
            jobs: 1,
            ..Options::default()
        };
        backend::open(&name, &opts).unwrap_or_else(|f| panic!("{BACKEND_VAR}={name}: {f}"))
    })
    .as_ref()
}

/// `differential` on the backend of [`BACKEND_VAR`].
#[allow(dead_code)]
pub fn differential(data: &[u8]) -> Result<Reach, Finding> {
    differential_on(env_backend(), data)
}

/// `differential`: the generated program on the oracle (expected) and on `b` (observed), judged
/// by `ptxconf::judge::compare` with the program's check; any mismatch, an incomparable result or
/// a backend failure on a valid program is a finding. Programs using forms `b` declares it
/// cannot run (its caps) are skipped.
#[allow(dead_code)]
pub fn differential_on(b: &dyn Backend, data: &[u8]) -> Result<Reach, Finding> {
    let Some(p) = program(data) else {
        return Ok(Reach::Rejected);
    };
    let cat = spec::catalog::catalog();
    if p.forms.iter().any(|&f| b.caps().unsupported(&cat.forms[f]).is_some()) {
        return Ok(Reach::Rejected);
    }
    let target = format!("differential ({})", b.name());
    let (expected, _, audit) = oracle::launch::run_audited(&p.launch, &p.ptx)
        .map_err(|e| report(&target, &format!("the oracle fails on a generated program: {e}"), &p))?;
    // A program whose results the manual fixes less tightly than the generator assumed (a corner
    // its probe missed) could tell two correct implementations apart: campaigns replace it
    // (`generators::program::checked`); here the input is simply not used.
    if generators::program::looser_than_assumed(&p, &audit).is_some() {
        return Ok(Reach::Rejected);
    }
    let case = ptxconf::reduce::Case {
        ptx: p.ptx.clone(),
        launch: p.launch.clone(),
    };
    match ptxconf::compare::difference_from(&expected, &case, b) {
        Difference::Same => Ok(Reach::Checked),
        Difference::Failure(Failure::Unavailable(m)) => panic!("{target}: the backend is unavailable: {m}"),
        Difference::Failure(f) => Err(report(
            &target,
            &format!("the backend fails on a valid program: {f}"),
            &p,
        )),
        Difference::Mismatch(v) => {
            let lines: Vec<String> = v.iter().take(20).map(|m| format!("  {m}")).collect();
            let more = if v.len() > 20 {
                format!("\n  ... and {} more", v.len() - 20)
            } else {
                String::new()
            };
            Err(report(
                &target,
                &format!("{} mismatch(es):\n{}{more}", v.len(), lines.join("\n")),
                &p,
            ))
        }
        Difference::Incomparable(e) => Err(report(&target, &format!("results cannot be compared: {e}"), &p)),
    }
}
