//! `ptxconf conform`: options → backend, vector sources → runner → reports and exit status.

use super::ConformArgs;
use indicatif::{ProgressBar, ProgressStyle};
use ptxconf::backend::{self, Failure, Options};
use ptxconf::conform::{self, FormVectors, Report, Settings};
use ptxconf::profile::{Profile, Provenance};
use ptxconf::vectors;
use spec::catalog::{catalog, PtxVersion, Target};
use spec::vector::{form_by_key, form_key};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The form a vector file is for, from its name (`add.rn.f32.vec.gz` → `add.rn.f32`).
fn key_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let key = name.strip_suffix(".vec.gz").or_else(|| name.strip_suffix(".vec"))?;
    Some(key.to_string())
}

fn usage(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

pub fn run(a: ConformArgs) -> ExitCode {
    let mut opts = Options {
        timeout: a.timeout,
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
        let parsed = v
            .split_once('.')
            .and_then(|(x, y)| Some(PtxVersion(x.parse().ok()?, y.parse().ok()?)));
        match parsed {
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

    // The vector sources, in a fixed order: the files given, or the directory's files whose form
    // the filters select.
    let paths: Vec<PathBuf> = if a.files.is_empty() {
        let all = match vectors::list(&a.vectors) {
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
    if paths.is_empty() {
        return usage(format!(
            "no golden vectors selected (directory {}, filters {:?})",
            a.vectors.display(),
            a.filters
        ));
    }

    let profile = match &a.profile {
        Some(dir) => match Profile::load(dir) {
            Ok(p) => Some(p),
            Err(e) => return usage(format!("--profile: {e}")),
        },
        None => None,
    };
    let settings = Settings {
        repro_dir: Some(a.repro.clone()),
        show: a.show,
        profile,
        strict: a.strict,
        record: a.record_profile.is_some(),
        ..Settings::default()
    };

    let report = match backend::open(&a.backend, &opts) {
        Ok(b) => {
            let b = apply_overrides(b, &opts);
            let bar = progress(paths.len() as u64, a.quiet);
            let load = |i: usize| load_form(&paths[i], &settings);
            let report = conform::run(&*b, paths.len(), load, &settings, |r| {
                bar.set_message(r.form.clone());
                bar.inc(1);
            });
            bar.finish_and_clear();
            if let Some(dir) = &a.record_profile {
                if let Err(e) = record_profile(dir, &a.backend, &report, &*b) {
                    eprintln!("error: --record-profile: {e}");
                    return ExitCode::from(2);
                }
            }
            report
        }
        Err(Failure::Unavailable(why)) => {
            // One clear line, then every selected form reported as skipped.
            eprintln!("{why}");
            let forms: Vec<usize> = paths
                .iter()
                .filter_map(|p| key_of(p).and_then(|k| form_by_key(&k)))
                .collect();
            conform::unavailable(&a.backend, &why, &forms, &settings)
        }
        Err(e) => return usage(e),
    };
    print!("{}", report.table());
    if let Err(e) = write_reports(&report, a.json.as_deref(), a.junit.as_deref()) {
        return usage(e);
    }
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Reads one form's vectors; under a strict profile with observations for the form, those.
fn load_form(path: &Path, settings: &Settings) -> Result<FormVectors, (Option<usize>, String)> {
    let form = key_of(path).and_then(|k| form_by_key(&k));
    let observed = settings
        .profile
        .as_ref()
        .filter(|_| settings.strict)
        .and_then(|p| key_of(path).and_then(|k| p.observed_path(&k)));
    let source = observed.unwrap_or_else(|| path.to_path_buf());
    let file = vectors::load(&source).map_err(|e| (form, format!("{}: {e}", source.display())))?;
    Ok(FormVectors {
        form: file.form,
        vectors: file.vectors,
        source: source.display().to_string(),
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

/// Writes what the backend returned as a profile: the canonical NaN of every format where all
/// NaNs it returned agreed, and the results of approximate forms as exact vectors.
fn record_profile(dir: &Path, backend: &str, report: &Report, b: &dyn backend::Backend) -> Result<(), String> {
    let cat = catalog();
    let mut nans: std::collections::BTreeMap<&str, Vec<u128>> = Default::default();
    for f in &report.forms {
        for (fmt, bits) in &f.nans {
            let v = nans.entry(fmt.name()).or_default();
            if !v.contains(bits) {
                v.push(*bits);
            }
        }
    }
    let mut profile = Profile {
        name: dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("profile")
            .to_string(),
        target: b.caps().target.map_or_else(|| "any".to_string(), |t| t.to_string()),
        provenance: Provenance {
            device: b.describe(),
            backend: backend.to_string(),
            date: today(),
            command: std::env::args().collect::<Vec<_>>().join(" "),
        },
        canonical_nan: Default::default(),
        observed: Vec::new(),
        dir: dir.to_path_buf(),
    };
    for (fmt, seen) in &nans {
        if let [one] = seen[..] {
            let digits = spec::types::FloatFormat::NAMES
                .iter()
                .find(|(n, _)| n == fmt)
                .map_or(8, |(_, f)| f.bits().div_ceil(4) as usize);
            profile
                .canonical_nan
                .insert(fmt.to_string(), format!("0x{one:0digits$x}"));
        } else {
            eprintln!(
                "note: {fmt}: the backend returned {} different NaNs; no canonical NaN recorded",
                seen.len()
            );
        }
    }
    let observed_dir = dir.join("observed");
    for f in &report.forms {
        let (Some(obs), Some(i)) = (&f.observed, form_by_key(&f.form)) else {
            continue;
        };
        let form = &cat.forms[i];
        let vs = obs;
        std::fs::create_dir_all(&observed_dir).map_err(|e| e.to_string())?;
        let header = vec![("observed".to_string(), profile.provenance.device.clone())];
        let path = observed_dir.join(format!("{}.vec", form_key(form)));
        std::fs::write(&path, spec::vector::format_file(form, &header, vs)).map_err(|e| e.to_string())?;
        profile.observed.push(form_key(form));
    }
    profile.save(dir)
}

/// Today's date (UTC) from the system clock, as YYYY-MM-DD.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}
