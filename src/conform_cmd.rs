//! `ptxconf conform`: options → backend, vector sources → runner → reports and exit status.

use super::ConformArgs;
use generators::vectors::Level;
use indicatif::{ProgressBar, ProgressStyle};
use ptxconf::backend::{self, Failure, Options};
use ptxconf::baseline::Baseline;
use ptxconf::conform::{self, key_of, FormVectors, Report, Settings};
use ptxconf::profile::Profile;
use ptxconf::{corpus, vectors};
use spec::catalog::{catalog, FormId, PtxVersion, Target};
use spec::vector::form_by_key;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn usage(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

pub fn run(a: ConformArgs) -> ExitCode {
    let mut opts = Options {
        timeout: a.timeout,
        worker_exe: std::env::current_exe().ok(),
        ..Options::default()
    };
    if let Some(j) = a.jobs {
        opts.jobs = j.max(1);
    }
    if let Some(t) = &a.target {
        match Target::parse(t) {
            Some(t) => opts.target = Some(t),
            None => return usage(format!("--target `{t}` is not a target like sm_90")),
        }
    }
    if let Some(v) = &a.ptx {
        match PtxVersion::parse(v) {
            Some(p) => opts.ptx = Some(p),
            None => return usage(format!("--ptx `{v}` is not a version like 8.5")),
        }
    }
    if !a.families.is_empty() {
        opts.families = Some(a.families.clone());
    }
    if a.timeout.is_nan() || a.timeout <= 0.0 {
        return usage("--timeout must be positive");
    }

    let mut level = match a.level.as_deref().map(Level::parse) {
        None => None,
        Some(Some(l)) if a.files.is_empty() => Some(l),
        Some(Some(_)) => return usage("--level generates vectors; --file reads them: give one"),
        Some(None) => return usage("--level: expected `golden` or `one`"),
    };
    let mut seed = a.seed;
    // The golden-vector directory: the one given, else the corpus found; with none, the golden
    // set is generated in memory (the same seed and level as the committed files).
    let mut dir = a.vectors.clone();
    if level.is_none() && a.files.is_empty() && dir.is_none() {
        match corpus::vectors() {
            Ok(f) => {
                if !f.local {
                    eprintln!("golden vectors: {}", f.dir.display());
                }
                dir = Some(f.dir);
            }
            Err(looked) => {
                eprintln!(
                    "no golden-vector corpus found (looked in {}); generating the golden set in memory \
                     (bit-identical to corpus/vectors)",
                    corpus::looked_in(&looked)
                );
                level = Some(Level::Golden);
                seed = vectors::DEFAULT_SEED;
            }
        }
    }
    let dir = dir.unwrap_or_else(|| vectors::DEFAULT_DIR.into());
    // The vector sources, in a fixed order: generated forms, the files given, or the
    // directory's files whose form the filters select.
    let generated: Vec<FormId> = match level {
        Some(_) => vectors::selected(&a.filters),
        None => Vec::new(),
    };
    let paths: Vec<PathBuf> = if level.is_some() {
        Vec::new()
    } else if a.files.is_empty() {
        let all = match vectors::list(&dir) {
            Ok(p) => p,
            Err(e) => return usage(format!("cannot list the golden vectors: {e}")),
        };
        let cat = catalog();
        all.into_iter()
            .filter(|p| {
                key_of(p)
                    .and_then(|k| form_by_key(&k))
                    .is_none_or(|i| vectors::matches(&cat.forms[i], &a.filters))
            })
            .collect()
    } else {
        a.files.clone()
    };
    // The operational forms (no vectors: scenario kernels), after the others; not with --file.
    let operational: Vec<FormId> = if a.files.is_empty() {
        conform::operational_forms(&a.filters)
    } else {
        Vec::new()
    };
    let vector_count = if level.is_some() { generated.len() } else { paths.len() };
    let count = vector_count + operational.len();
    if count == 0 {
        let source = match level {
            Some(l) => format!("generated at level {}", l.name()),
            None if a.files.is_empty() => format!("directory {}", dir.display()),
            None => "the files given".to_string(),
        };
        return usage(format!(
            "no golden vectors selected ({source}, filters {:?})",
            a.filters
        ));
    }

    let profile = match &a.profile {
        Some(dir) => match Profile::load(&corpus::resolve(dir)) {
            Ok(p) => Some(p),
            Err(e) => return usage(format!("--profile: {e}")),
        },
        None => None,
    };
    // The baseline is read before the run: an unreadable one is a usage error, not a late one.
    let baseline = match &a.baseline {
        Some(p) => match Baseline::load(p) {
            Ok(b) => Some(b),
            Err(e) => return usage(format!("--baseline {}: {e}", p.display())),
        },
        None => None,
    };
    let settings = Settings {
        repro_dir: Some(a.repro.clone()),
        show: a.show,
        profile,
        strict: a.strict,
        record: a.record_profile.is_some(),
        seed,
        digests: a.baseline.is_some() || a.write_baseline.is_some(),
        ..Settings::default()
    };

    let report = match backend::open(&a.backend, &opts) {
        Ok(b) => {
            let b = apply_overrides(b, &opts);
            let bar = progress(count as u64, a.quiet);
            let load = |i: usize| match level {
                _ if i >= vector_count => Ok(FormVectors::operational(operational[i - vector_count])),
                Some(l) => generate_form(generated[i], seed, l),
                None => conform::load(&paths[i], &settings),
            };
            let report = conform::run(&*b, count, load, &settings, |r| {
                bar.set_message(r.form.clone());
                bar.inc(1);
            });
            bar.finish_and_clear();
            if let Some(dir) = &a.record_profile {
                let command = std::env::args().collect::<Vec<_>>().join(" ");
                if let Err(e) = ptxconf::profile::record(dir, &a.backend, &command, &report, &*b) {
                    eprintln!("error: --record-profile: {e}");
                    return ExitCode::from(2);
                }
            }
            report
        }
        Err(Failure::Unavailable(why)) => {
            // One clear line, then every selected form reported as skipped.
            eprintln!("{why}");
            let mut forms: Vec<FormId> = match level {
                Some(_) => generated,
                None => paths
                    .iter()
                    .filter_map(|p| key_of(p).and_then(|k| form_by_key(&k)))
                    .collect(),
            };
            forms.extend(&operational);
            conform::unavailable(&a.backend, &why, &forms, &settings)
        }
        Err(e) => return usage(e),
    };
    let mut report = report;
    print!("{}", report.table());
    if let (Some(b), Some(p)) = (&baseline, &a.baseline) {
        let c = b.compare(&report, &p.display().to_string());
        print!("\n{}", c.lines());
        report.baseline = Some(c);
    }
    if let Err(e) = write_reports(&report, a.json.as_deref(), a.junit.as_deref()) {
        return usage(e);
    }
    if let Some(p) = &a.write_baseline {
        if let Err(e) = std::fs::write(p, Baseline::of(&report).to_text()) {
            return usage(format!("--write-baseline {}: {e}", p.display()));
        }
    }
    let ok = match &report.baseline {
        Some(c) => !c.regressed(),
        None => report.passed(),
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Generates one form's vectors in memory.
fn generate_form(form: FormId, seed: u64, level: Level) -> Result<FormVectors, (Option<FormId>, String)> {
    let f = &catalog().forms[form];
    let g = generators::vectors::generate(f, seed, level).map_err(|e| (Some(form), e.to_string()))?;
    Ok(FormVectors {
        form,
        vectors: g.vectors,
        source: format!("generated: level {}, seed {seed}", level.name()),
    })
}

fn progress(len: u64, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} forms {msg}")
            .expect("static template")
            .progress_chars("=> "),
    );
    bar
}

/// The backend with the command line's capability overrides.
fn apply_overrides(b: Box<dyn backend::Backend>, opts: &Options) -> Box<dyn backend::Backend> {
    if opts.target.is_none() && opts.ptx.is_none() && opts.families.is_none() {
        return b;
    }
    let mut caps = b.caps().clone();
    if let Some(t) = opts.target {
        caps.target = Some(t);
    }
    if let Some(p) = opts.ptx {
        caps.ptx = p;
    }
    if let Some(f) = &opts.families {
        caps.families = Some(f.clone());
    }
    Box::new(backend::WithCaps { inner: b, caps })
}

fn write_reports(r: &Report, json: Option<&Path>, junit: Option<&Path>) -> Result<(), String> {
    if let Some(p) = json {
        let text = serde_json::to_string_pretty(r).expect("report serializes") + "\n";
        std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    if let Some(p) = junit {
        std::fs::write(p, r.junit()).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}
