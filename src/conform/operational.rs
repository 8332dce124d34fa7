//! Judging an operational form ([`kernel::operational`]): its scenarios run on the backend and
//! every determined observation is compared. In the report a form's "vectors" are its checks:
//! each mismatch names the scenario, the place in `out`, the expected and the returned bytes
//! and the manual's line.

use super::{FormReport, Mismatch, Settings, Status};
use crate::backend::{Backend, Failure};
use crate::baseline::{digest_lines, FailureClass, Skip};
use crate::kernel::operational::{self, Scenario};
use spec::catalog::{catalog, FormId};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Runs form `i`'s scenarios on the backend and judges them.
pub(super) fn check(backend: &dyn Backend, i: FormId, settings: &Settings, mut r: FormReport) -> FormReport {
    let started = Instant::now();
    let form = &catalog().forms[i];
    r.form = operational::key(form);
    let scenarios = match operational::scenarios(form, settings.seed) {
        Ok(s) => s,
        Err(e) => {
            r.status = Status::Failed;
            r.reason = Some(format!("cannot build the scenarios: {e}"));
            r.trace.fail(FailureClass::Error, []);
            return r;
        }
    };
    r.vectors = scenarios.iter().map(|s| s.checks.len()).sum();
    if settings.digests {
        let parts = scenarios.iter().flat_map(|s| [s.job.ptx.clone(), s.expected_text()]);
        r.trace.set_vectors(digest_lines(parts));
    }
    let mut failing: Vec<usize> = Vec::new();
    let mut index = 0;
    for (k, s) in scenarios.iter().enumerate() {
        let first = index;
        index += s.checks.len();
        let judged = backend
            .run(&s.job)
            .and_then(|bufs| s.judge(&bufs).map_err(|e| Failure::Malformed(e.to_string())));
        let broken = match judged {
            Ok(b) => b,
            Err(Failure::Unavailable(why)) => {
                r.status = Status::Skipped;
                r.reason = Some(why);
                r.trace.skip(Skip::Unavailable);
                return r;
            }
            Err(Failure::Rejected { kind, message })
                if matches!(kind.as_str(), "parse" | "type")
                    && k == 0
                    && crate::backend::ptxas_rejects().contains(&spec::vector::form_key(form)) =>
            {
                // As for a value form (`check_form`): NVIDIA's compiler refuses this form of the
                // manual's grammar, so an implementation that refuses it is not wrong.
                r.status = Status::Skipped;
                r.refused = true;
                r.reason = Some(format!(
                    "rejected as ptxas 12.9 rejects it (corpus/findings/ptxas-12.9-rejects.txt): {kind} error: {message}"
                ));
                r.seconds = started.elapsed().as_secs_f64();
                return r;
            }
            Err(f) => {
                // No results: every check of the scenario fails, and the repro is its launch.
                r.status = Status::Failed;
                r.failed += s.checks.len();
                r.trace.fail(FailureClass::of(&f), first..index);
                if r.reason.is_none() {
                    r.reason = Some(format!("scenario {k} ({}): {f}", s.name));
                }
                failing.push(k);
                continue;
            }
        };
        r.failed += broken.len();
        r.passed += s.checks.len() - broken.len();
        if broken.is_empty() {
            continue;
        }
        r.status = Status::Failed;
        r.trace
            .fail(FailureClass::Wrong, broken.iter().map(|b| first + b.check));
        failing.push(k);
        for b in broken.iter().take(settings.show.saturating_sub(r.mismatches.len())) {
            r.mismatches.push(Mismatch {
                index: first + b.check,
                vector: format!("scenario {k} ({}): {}", s.name, s.checks[b.check].what),
                actual: vec![b.got.clone()],
                wrong: vec![b.detail.clone()],
            });
        }
    }
    if r.status == Status::Failed {
        if let Some(dir) = &settings.repro_dir {
            r.repro = Some(match write_repro(dir, &r.form, &scenarios, &failing) {
                Ok(p) => p.display().to_string(),
                Err(e) => format!("(could not write the repro: {e})"),
            });
        }
    }
    r.seconds = started.elapsed().as_secs_f64();
    r
}

/// A failed form's repro: per failing scenario its kernel, launch file and expected
/// observations.
fn write_repro(dir: &Path, key: &str, scenarios: &[Scenario], failing: &[usize]) -> Result<PathBuf, String> {
    let d = dir.join(key);
    std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
    let mut readme = format!("Repro for the operational form `{key}`: its failing scenarios.\n");
    for &k in failing {
        let s = &scenarios[k];
        let ptx = format!("scenario{k}.ptx");
        let files = [
            (ptx.clone(), s.job.ptx.clone()),
            (format!("scenario{k}.launch.json"), s.job.launch_json(&ptx)),
            (format!("scenario{k}.expected.txt"), s.expected_text()),
        ];
        for (name, text) in files {
            std::fs::write(d.join(&name), text).map_err(|e| format!("{}: {e}", d.join(&name).display()))?;
        }
        let _ = writeln!(
            readme,
            "  ptxconf run scenario{k}.launch.json    # {}; compare `out` with scenario{k}.expected.txt",
            s.name
        );
    }
    std::fs::write(d.join("README.txt"), readme).map_err(|e| e.to_string())?;
    Ok(d)
}
