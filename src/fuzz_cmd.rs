//! `ptxconf gen` and `ptxconf fuzz`: the command-line side of [`ptxconf::fuzz`].

use generators::program::{checked, program_seed, Config, Features};
use ptxconf::backend::{self, Backend, Failure, Options};
use ptxconf::baseline::findings::Known;
use ptxconf::fuzz::{self, Campaign};
use spec::catalog::{PtxVersion, Target};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// What generated programs may contain.
#[derive(clap::Args, Clone, Debug)]
pub struct ProgramArgs {
    /// The `.target` of the programs (default sm_90, or the backend's).
    #[arg(long)]
    target: Option<String>,
    /// The `.version` of the programs (default 8.7).
    #[arg(long)]
    ptx: Option<String>,
    /// §9.7 families whose value forms may appear (`9.7.3`); repeatable. Default: all.
    #[arg(long = "family")]
    families: Vec<String>,
    /// Instructions per program, roughly.
    #[arg(long, default_value_t = 100)]
    size: usize,
    /// Warps per CTA.
    #[arg(long, default_value_t = 1)]
    warps: u32,
    /// CTAs.
    #[arg(long, default_value_t = 1)]
    ctas: u32,
    /// Only these constructs (comma-separated: predication, branches, loops, calls, local,
    /// global, shared, barriers, collectives, atomics, judged). Default: all.
    #[arg(long, value_delimiter = ',')]
    features: Vec<String>,
    /// Every program uses every allowed feature and family (no swarm testing).
    #[arg(long)]
    no_swarm: bool,
    /// Also use the forms ptxas 12.9 rejects (corpus/findings/ptxas-12.9-rejects.txt).
    #[arg(long)]
    ptxas_rejected: bool,
    /// Never use this form (a form key, `add.rn.f32`); repeatable. A finding's replay line
    /// lists what the campaign's backend rejects or lacks this way.
    #[arg(long = "exclude", value_name = "FORM")]
    exclude: Vec<String>,
    /// Only the forms a backend passed in this conformance report (`ptxconf conform --json
    /// FILE`) as value instructions and subjects of constructs; besides them the skeleton every
    /// program uses (parameter loads, thread index, input loads, signature stores, `ret`) and
    /// the constructs' plumbing (`bra`, `call`, plain loads and stores, `bar.sync`, loop
    /// counters), the latter unless the report judged it and it did not pass. Refused when the
    /// report shows the backend failing a skeleton instruction.
    #[arg(long, value_name = "REPORT")]
    forms_from: Option<PathBuf>,
    /// With --forms-from, run although the report shows the backend failing a skeleton
    /// instruction (every program will then likely differ on it).
    #[arg(long)]
    allow_failed_skeleton: bool,
}

impl ProgramArgs {
    /// The configuration, for a backend with capabilities `caps` (if any).
    fn config(&self, caps: Option<&backend::Caps>) -> Result<Config, String> {
        let mut c = Config::default();
        if let Some(t) = caps.and_then(|c| c.target) {
            c.target = t;
        }
        if let Some(t) = &self.target {
            c.target = Target::parse(t).ok_or_else(|| format!("--target `{t}` is not sm_XY"))?;
        }
        if let Some(v) = &self.ptx {
            c.ptx = PtxVersion::parse(v).ok_or_else(|| format!("--ptx `{v}` is not a version like 8.5"))?;
        } else if let Some(caps) = caps {
            c.ptx = c.ptx.min(caps.ptx);
        }
        if !self.families.is_empty() {
            c.families = Some(self.families.clone());
        } else if let Some(f) = caps.and_then(|c| c.families.clone()) {
            c.families = Some(f);
        }
        if self.ptxas_rejected {
            c.exclude.clear();
        }
        if !self.exclude.is_empty() {
            let known: std::collections::BTreeSet<String> = spec::catalog::catalog()
                .forms
                .iter()
                .map(spec::vector::form_key)
                .collect();
            if let Some(k) = self.exclude.iter().find(|k| !known.contains(*k)) {
                return Err(format!("--exclude: `{k}` is not a form key of the catalog"));
            }
            c.exclude.extend(self.exclude.iter().cloned());
        }
        if let Some((keys, _)) = caps.and_then(|c| c.rejects) {
            c.exclude.extend(keys.iter().cloned());
        }
        // What the backend lacks is excluded like a rejected form, which constructs honour too
        // (`aim::permits`). Programs contain no `brx.idx` today (generators/tests/aim.rs checks
        // it); this keeps a construct that branches through a table off such backends.
        if caps.is_some_and(|c| c.lacks(backend::Feature::BrxIdx)) {
            c.exclude.extend(
                spec::catalog::catalog()
                    .forms
                    .iter()
                    .filter(|f| f.exec() == Some(spec::catalog::Exec::Brx))
                    .map(spec::vector::form_key),
            );
        }
        c.size = self.size.max(1);
        c.warps = self.warps.clamp(1, 32);
        c.ctas = self.ctas.clamp(1, 65535);
        c.swarm = !self.no_swarm;
        if !self.features.is_empty() {
            let mut f = Features::NONE;
            for name in &self.features {
                *f.named(name)
                    .ok_or_else(|| format!("--features: unknown feature `{name}`"))? = true;
            }
            c.features = f;
        }
        c.validate()?;
        if let Some(path) = &self.forms_from {
            self.aim(&mut c, path)?;
        }
        if generators::program::eligible_forms(&c) == 0 {
            return Err(format!(
                "no value form fits target {} and PTX {} with these families",
                c.target, c.ptx
            ));
        }
        Ok(c)
    }
}

impl ProgramArgs {
    /// Restricts `c` to the forms the report at `path` passed (`--forms-from`), saying on
    /// stderr which skeleton instructions the report did not judge.
    fn aim(&self, c: &mut Config, path: &std::path::Path) -> Result<(), String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("--forms-from {}: {e}", path.display()))?;
        let report = fuzz::FormsFrom::parse(&text).map_err(|e| format!("--forms-from {}: {e}", path.display()))?;
        let passed = report.allowed().passed;
        eprintln!(
            "--forms-from {}: {} of {} forms passed on backend `{}`{}",
            path.display(),
            passed.len(),
            report.status.len(),
            report.backend,
            if report.unknown.is_empty() {
                String::new()
            } else {
                format!(" ({} keys the catalog does not know, ignored)", report.unknown.len())
            }
        );
        let skeleton = report.skeleton(c);
        let failed: Vec<String> = skeleton
            .iter()
            .filter(|s| s.failed())
            .map(|s| {
                format!(
                    "`{}` ({})",
                    s.name,
                    s.forms
                        .iter()
                        .map(|(k, st)| format!("{k}: {st}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect();
        if !failed.is_empty() {
            let m = format!(
                "the report shows the backend failing instructions every generated program uses: {}",
                failed.join("; ")
            );
            if !self.allow_failed_skeleton {
                return Err(format!("{m}; fix them first, or pass --allow-failed-skeleton"));
            }
            eprintln!("warning: {m}");
        }
        let unjudged: Vec<&str> = skeleton
            .iter()
            .filter(|s| !s.passed() && !s.failed())
            .map(|s| s.name)
            .collect();
        if !unjudged.is_empty() {
            eprintln!(
                "note: the report did not judge these skeleton instructions, which every program uses: {}",
                unjudged.join(", ")
            );
        }
        let aimed = with(c, report.allowed());
        let refused: Vec<&str> = generators::program::aim::STRUCTURE
            .iter()
            .copied()
            .filter(|n| generators::program::aim::permits(c, n) && !generators::program::aim::permits(&aimed, n))
            .collect();
        if !refused.is_empty() {
            eprintln!(
                "note: the report judged and did not pass these instructions of the constructs' plumbing, so the constructs needing them are left out: {}",
                refused.join(", ")
            );
        }
        c.allowed = Some(std::sync::Arc::new(report.allowed()));
        Ok(())
    }
}

/// `c` with allowed set `a`.
fn with(c: &Config, a: generators::program::aim::Allowed) -> Config {
    Config {
        allowed: Some(std::sync::Arc::new(a)),
        ..c.clone()
    }
}

#[derive(clap::Args)]
pub struct GenArgs {
    /// The run's seed: program `i` is built from `program_seed(seed, i)`.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of programs.
    #[arg(long, default_value_t = 10)]
    count: u64,
    /// The first program's number.
    #[arg(long, default_value_t = 0)]
    first: u64,
    /// Output directory: `pNNNNNN.ptx` and `pNNNNNN.json` (a launch file for `ptxconf run`).
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    program: ProgramArgs,
}

pub fn gen(a: GenArgs) -> ExitCode {
    let cfg = match a.program.config(None) {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    let mut instructions = 0;
    for i in a.first..a.first.saturating_add(a.count) {
        let p = match checked(program_seed(a.seed, i), &cfg) {
            Ok(c) => c.program,
            Err(e) => {
                eprintln!("error: program {i}: {e}");
                return ExitCode::from(1);
            }
        };
        instructions += p.instructions;
        if let Err(e) = fuzz::write_program(&a.out, &format!("p{i:06}"), &p) {
            eprintln!("error: cannot write to {}: {e}", a.out.display());
            return ExitCode::from(2);
        }
    }
    println!(
        "{} programs ({} instructions) written to {} (seed {}, target {}, PTX {})",
        a.count,
        instructions,
        a.out.display(),
        a.seed,
        cfg.target,
        cfg.ptx
    );
    ExitCode::SUCCESS
}

#[derive(clap::Args)]
pub struct FuzzArgs {
    /// The implementation under test: `oracle` (the generator and oracle alone, no
    /// differential: measures the rate), `cuda`, `cuda:LIB`, `cmd:PROGRAM`.
    #[arg(long, default_value = "oracle")]
    backend: String,
    /// Stop after this many seconds (default 60 unless --count is given).
    #[arg(long)]
    seconds: Option<f64>,
    /// Stop after this many programs (a deterministic campaign).
    #[arg(long)]
    count: Option<u64>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The first program's number.
    #[arg(long, default_value_t = 0)]
    first: u64,
    /// Worker threads (default: the cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Where findings are written (a directory per finding, under the backend's name).
    #[arg(long, default_value = "corpus/findings/fuzz")]
    findings: PathBuf,
    /// Write findings as generated, without reducing them.
    #[arg(long)]
    no_reduce: bool,
    /// Stop at the first finding.
    #[arg(long)]
    stop_at_first: bool,
    /// Per-launch timeout of `cmd:` and `cuda` backends, in seconds.
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
    /// No progress line.
    #[arg(long)]
    quiet: bool,
    /// Known findings (a file --write-baseline wrote): a finding whose signature it lists is
    /// reported as known, and only new ones fail the campaign (exit 1).
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Record the signatures of the findings (with those of --baseline, if given) in this file.
    #[arg(long)]
    write_baseline: Option<PathBuf>,
    #[command(flatten)]
    program: ProgramArgs,
}

pub fn fuzz(a: FuzzArgs) -> ExitCode {
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let opts = Options {
        timeout: a.timeout,
        jobs,
        worker_exe: std::env::current_exe().ok(),
        ..Options::default()
    };
    let known = match &a.baseline {
        Some(p) => match Known::load(p) {
            Ok(k) => Some(k),
            Err(e) => return usage(&format!("--baseline {}: {e}", p.display())),
        },
        None => None,
    };
    let b: Box<dyn Backend> = match backend::open(&a.backend, &opts) {
        Ok(b) => b,
        Err(Failure::Unavailable(m)) => {
            println!("backend {} is unavailable here: {m}\nno programs run", a.backend);
            return ExitCode::SUCCESS;
        }
        Err(e) => return usage(&e.to_string()),
    };
    let cfg = match a.program.config(Some(b.caps())) {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    let duration = match (a.seconds, a.count) {
        (Some(s), _) => Some(Duration::from_secs_f64(s.max(0.0))),
        (None, Some(_)) => None,
        (None, None) => Some(Duration::from_secs(60)),
    };
    let c = Campaign {
        cfg,
        seed: a.seed,
        first: a.first,
        count: a.count,
        duration,
        jobs: jobs.min(b.parallel().max(1)),
        findings: a.findings.clone(),
        reduce: !a.no_reduce,
        reduce_opts: ptxconf::reduce::Options::default(),
        stop_at_first: a.stop_at_first,
        aim: a.program.forms_from.clone().map(|report| fuzz::Aim {
            report,
            allow_failed_skeleton: a.program.allow_failed_skeleton,
        }),
        reopen: Some((a.backend.clone(), opts.clone())),
    };
    let bar = if a.quiet {
        indicatif::ProgressBar::hidden()
    } else {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    };
    let last = std::sync::Mutex::new(std::time::Instant::now());
    let shown = std::sync::Mutex::new(0usize);
    let summary = fuzz::run(&c, &*b, &|s| {
        // Findings are printed as they are written (they are on disk already).
        let mut n = shown.lock().expect("lock");
        for f in &s.findings[*n..] {
            let line = format!(
                "finding: program {} → {} ({} → {} instructions): {}{}",
                f.program,
                f.dir.display(),
                f.instructions.0,
                f.instructions.1,
                f.summary,
                if known.as_ref().is_some_and(|k| k.contains(&f.signature)) {
                    " (known)"
                } else {
                    ""
                }
            );
            if a.quiet {
                println!("{line}");
            } else {
                bar.println(line);
            }
        }
        *n = s.findings.len();
        let mut t = last.lock().expect("lock");
        if t.elapsed() >= Duration::from_millis(200) {
            *t = std::time::Instant::now();
            bar.set_message(s.line());
        }
    });
    bar.finish_and_clear();
    println!(
        "ptxconf fuzz: backend {} ({}), seed {}, {} job(s)",
        b.name(),
        b.describe(),
        a.seed,
        c.jobs
    );
    println!("{}", summary.line());
    println!(
        "{:.1} s, {:.0} programs/s ({:.0} per job){}",
        summary.seconds,
        summary.rate(),
        summary.rate() / c.jobs as f64,
        if a.backend == "oracle" {
            " — generator and oracle alone, no differential"
        } else {
            ""
        }
    );
    if let Some(m) = &summary.aborted {
        println!("stopped: {m}");
    }
    if !summary.findings.is_empty() {
        println!("{} finding(s) in {}", summary.findings.len(), a.findings.display());
    }
    if let Some(p) = &a.write_baseline {
        let mut k = known.clone().unwrap_or_default();
        k.signatures
            .extend(summary.findings.iter().map(|f| f.signature.clone()));
        if let Err(e) = std::fs::write(p, k.to_text(&b.name())) {
            return usage(&format!("--write-baseline {}: {e}", p.display()));
        }
    }
    let new: Vec<&fuzz::Finding> = match &known {
        Some(k) => summary.findings.iter().filter(|f| !k.contains(&f.signature)).collect(),
        None => summary.findings.iter().collect(),
    };
    if let (Some(p), Some(_)) = (&a.baseline, &known) {
        for f in &new {
            println!("new finding: program {}: {}", f.program, f.signature);
        }
        println!(
            "baseline {}: {} known finding(s), {} new",
            p.display(),
            summary.findings.len() - new.len(),
            new.len()
        );
    }
    if new.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn usage(m: &str) -> ExitCode {
    eprintln!("error: {m}");
    ExitCode::from(2)
}
