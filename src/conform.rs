//! The conformance runner: every selected form's golden vectors, as kernels, on a backend; each
//! result judged by its acceptance set; a report per family and per form, with the first
//! mismatches and a standalone repro for every failed form.

use crate::backend::{Backend, Caps, Failure};
use crate::baseline::{Comparison, FailureClass, Skip, Trace};
use crate::kernel;
use crate::profile::Profile;
use serde::Serialize;
use spec::catalog::{catalog, Class, Form, FormId};
use spec::types::FloatFormat;
use spec::value::{Accept, Outcome};
use spec::vector::{form_by_key, form_key, Vector};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

mod operational;
mod refused;
pub use refused::refused_at_load;

/// How a run is carried out and reported.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Vectors per launch.
    pub max_threads: usize,
    /// Mismatches kept per failed form.
    pub show: usize,
    /// Where repros of failed forms are written (`None`: not written).
    pub repro_dir: Option<PathBuf>,
    /// A hardware profile; with `strict`, results must also match its observations.
    pub profile: Option<Profile>,
    /// Require the profile's observations too: its canonical NaN wherever any NaN is allowed,
    /// and its observed results of approximate forms (read by [`load`]).
    pub strict: bool,
    /// Keep what the backend returned for recording a profile (approximate forms' results, the
    /// NaNs it returned).
    pub record: bool,
    /// The seed of the operational forms' scenarios ([`kernel::operational`]: the bytes copied,
    /// the counts).
    pub seed: u64,
    /// Take the digests a baseline records ([`crate::baseline`]): every judged form's vectors
    /// are formatted once more.
    pub digests: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            max_threads: 1 << 16,
            show: 5,
            repro_dir: None,
            profile: None,
            strict: false,
            record: false,
            seed: crate::vectors::DEFAULT_SEED,
            digests: false,
        }
    }
}

/// One form's vectors, from a file or generated in memory; for an operational form
/// ([`kernel::operational::covers`], [`FormVectors::operational`]) none: its scenarios are built
/// when it runs.
pub struct FormVectors {
    /// The form.
    pub form: FormId,
    /// The vectors, in file order.
    pub vectors: Vec<Vector>,
    /// Where they came from (a path, or `generated`).
    pub source: String,
}

impl FormVectors {
    /// An operational form's entry: no vectors, its scenarios are generated when it is checked.
    pub fn operational(form: FormId) -> FormVectors {
        FormVectors {
            form,
            vectors: Vec::new(),
            source: "operational scenarios (generated)".into(),
        }
    }
}

/// The operational forms ([`kernel::operational::covers`]) the filters select (as
/// [`crate::vectors::matches`] selects forms), in catalog order.
pub fn operational_forms(filters: &[String]) -> Vec<FormId> {
    let cat = catalog();
    kernel::operational::forms()
        .into_iter()
        .filter(|&i| crate::vectors::matches(&cat.forms[i], filters))
        .collect()
}

/// A result that is not in the acceptance set.
#[derive(Clone, Debug, Serialize)]
pub struct Mismatch {
    /// Index of the vector in its file.
    pub index: usize,
    /// The vector's line: operands, expected values and tags.
    pub vector: String,
    /// What the backend returned, per destination (hex).
    pub actual: Vec<String>,
    /// The destinations that were wrong.
    pub wrong: Vec<String>,
}

/// A form's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every vector's results in its acceptance set.
    Passed,
    /// A result outside its acceptance set, a launch that failed or could not be built, or an
    /// unreadable vector file.
    Failed,
    /// Not run: beyond the backend's capabilities, the backend unavailable, or refused as
    /// ptxas 12.9 refuses it.
    Skipped,
}

/// The outcome of one form.
#[derive(Clone, Debug, Serialize)]
pub struct FormReport {
    /// The form key (`add.rn.f32`).
    pub form: String,
    /// Its §9.7 family (`9.7.3`).
    pub family: &'static str,
    /// Its section (`9.7.3.1`).
    pub section: &'static str,
    /// The verdict.
    pub status: Status,
    /// Why it was skipped, or what the backend said when a launch failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Vectors in the form's file, plus the sample of them run again with sources written into
    /// the instruction (immediate-operand runs, `src/kernel/immediate.rs`): the runs judged.
    pub vectors: usize,
    /// Runs whose results were all accepted.
    pub passed: usize,
    /// Runs with a rejected result, or in a launch that failed.
    pub failed: usize,
    /// The first [`Settings::show`] mismatches.
    pub mismatches: Vec<Mismatch>,
    /// The repro's directory (with [`Settings::repro_dir`]), or why it could not be written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repro: Option<String>,
    /// Wall time spent on the form.
    pub seconds: f64,
    /// With [`Settings::record`]: an approximate form's vectors with what the backend returned
    /// as their exact results.
    #[serde(skip)]
    pub observed: Option<Vec<Vector>>,
    /// With [`Settings::record`]: the distinct NaNs returned where any NaN was allowed.
    #[serde(skip)]
    pub nans: Vec<(FloatFormat, u128)>,
    /// Skipped because the backend refused a form that ptxas 12.9 refuses too (not a failure).
    #[serde(skip)]
    pub refused: bool,
    /// What a baseline records of the form ([`crate::baseline`]).
    #[serde(skip)]
    pub trace: Trace,
}

impl FormReport {
    /// A report of catalog form `i` with nothing judged yet.
    fn new(i: FormId, status: Status, reason: Option<String>) -> FormReport {
        let cat = catalog();
        let form = &cat.forms[i];
        FormReport {
            form: form_key(form),
            family: cat.family_of(form).id,
            section: form.section,
            status,
            reason,
            vectors: 0,
            passed: 0,
            failed: 0,
            mismatches: Vec::new(),
            repro: None,
            seconds: 0.0,
            observed: None,
            nans: Vec::new(),
            refused: false,
            trace: Trace::default(),
        }
    }
}

/// Per-family totals.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Totals {
    /// Forms passed.
    pub forms_passed: usize,
    /// Forms failed.
    pub forms_failed: usize,
    /// Forms skipped.
    pub forms_skipped: usize,
    /// Vectors passed.
    pub vectors_passed: usize,
    /// Vectors failed.
    pub vectors_failed: usize,
}

impl Totals {
    fn add(&mut self, f: &FormReport) {
        match f.status {
            Status::Passed => self.forms_passed += 1,
            Status::Failed => self.forms_failed += 1,
            Status::Skipped => self.forms_skipped += 1,
        }
        self.vectors_passed += f.passed;
        self.vectors_failed += f.failed;
    }
}

/// One §9.7 family's totals.
#[derive(Clone, Debug, Serialize)]
pub struct FamilyReport {
    /// The family's section number (`9.7.3`).
    pub id: &'static str,
    /// Its heading in the manual.
    pub title: &'static str,
    /// Its forms' and vectors' totals.
    #[serde(flatten)]
    pub totals: Totals,
}

/// A whole run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The backend's name ([`Backend::name`]).
    pub backend: String,
    /// What ran the kernels ([`Backend::describe`]; empty when unavailable).
    pub device: String,
    /// Set when the backend could not run at all (every form skipped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
    /// [`Settings::strict`].
    pub strict: bool,
    /// The hardware profile's name, if one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Wall time of the run.
    pub seconds: f64,
    /// Totals over every form.
    pub totals: Totals,
    /// Per-family totals, in section order.
    pub families: Vec<FamilyReport>,
    /// Every form, in the order given.
    pub forms: Vec<FormReport>,
    /// The run compared with a baseline (`conform --baseline`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Comparison>,
}

impl Report {
    /// No form failed (skipped forms do not count against a run).
    pub fn passed(&self) -> bool {
        self.totals.forms_failed == 0
    }
}

/// Judges one destination: in the acceptance set, and under `strict` equal to the profile's
/// observation where it has one (the canonical NaN of the format).
fn accepts(out: &Outcome, bits: u128, profile: Option<&Profile>) -> bool {
    if !out.accepts(bits) {
        return false;
    }
    let Some(p) = profile else { return true };
    match &out.accept {
        Accept::Nan(f) => p.canonical_nan(*f).is_none_or(|n| n == bits),
        Accept::Lanes { lane_bits, lanes } => {
            let mask = (1u128 << lane_bits) - 1;
            lanes
                .iter()
                .enumerate()
                .all(|(i, l)| accepts(l, (bits >> (i as u32 * lane_bits)) & mask, Some(p)))
        }
        _ => true,
    }
}

/// Records the NaN a backend returned where the set allowed any NaN.
fn note_nans(out: &Outcome, bits: u128, seen: &mut Vec<(FloatFormat, u128)>) {
    match &out.accept {
        Accept::Nan(f) if spec::float::Fmt::of(*f).is_nan(bits) && !seen.contains(&(*f, bits)) => {
            seen.push((*f, bits));
        }
        Accept::Lanes { lane_bits, lanes } => {
            let mask = (1u128 << lane_bits) - 1;
            for (i, l) in lanes.iter().enumerate() {
                note_nans(l, (bits >> (i as u32 * lane_bits)) & mask, seen);
            }
        }
        _ => {}
    }
}

/// The name and width of every result a vector of `form` holds: its destinations, or for a
/// matrix form each element of D (`D[row,col]`).
fn outputs_of(form: &Form) -> (Vec<(String, u32)>, Option<spec::types::Type>) {
    // wmma.load/store: D of the round trip, as for a matrix form.
    // wgmma control forms: D of their program (`spec::vector::wgctl`).
    let matrix = spec::vector::matrix::columns(form)
        .or_else(|| spec::vector::wmma::columns(form).map(|c| c.lines))
        .or_else(|| spec::vector::wgctl::columns(form).map(|c| c.lines()));
    match matrix {
        Some(c) => (
            (0..c.out.len())
                .map(|i| (format!("D[{},{}]", i / c.out.cols, i % c.out.cols), c.out.ty.bits()))
                .collect(),
            Some(c.out.ty),
        ),
        // The data-movement and block-scaled forms: each element of the output matrix
        // (`R[lane,reg]`, `M[row,col]`, `D[row,col]`).
        None => match spec::vector::movement::columns(form)
            .map(|c| c.out)
            .or_else(|| spec::vector::scaled::columns(form).map(|c| c.out))
        {
            Some(out) => (
                (0..out.len())
                    .map(|i| {
                        (
                            format!("{}[{},{}]", out.name, i / out.cols, i % out.cols),
                            out.ty.bits(),
                        )
                    })
                    .collect(),
                Some(out.ty),
            ),
            None => (
                form.outputs.iter().map(|o| (o.name.to_string(), o.ty.bits())).collect(),
                None,
            ),
        },
    }
}

/// Results a mismatch lists whole; beyond this (a matrix's D), only the wrong ones.
const MAX_SHOWN: usize = 16;

fn hex(bits: u128, width: u32) -> String {
    format!("{:0w$x}", bits, w = width.div_ceil(4) as usize)
}

/// Runs one form's vectors on the backend and judges them.
pub fn check_form(backend: &dyn Backend, fv: &FormVectors, settings: &Settings) -> FormReport {
    let mut r = judge(backend, fv, settings);
    let form = &catalog().forms[fv.form];
    if settings.digests && r.status != Status::Skipped {
        // Failing operational checks are digested by index (their scenarios' digest is set).
        r.trace.seal(fv.vectors.len(), |i| {
            fv.vectors
                .get(i)
                .map_or_else(|| i.to_string(), |v| spec::vector::format_line(form, v))
        });
    } else {
        r.trace.forget();
    }
    r
}

fn judge(backend: &dyn Backend, fv: &FormVectors, settings: &Settings) -> FormReport {
    let started = Instant::now();
    let cat = catalog();
    let form = &cat.forms[fv.form];
    let mut r = FormReport::new(fv.form, Status::Passed, None);
    r.vectors = fv.vectors.len();
    let approximate = matches!(form.class, Class::ApproxBounded | Class::ApproxUnbounded);
    let mut observed: Vec<Vec<u128>> = vec![
        Vec::new();
        if settings.record && approximate {
            fv.vectors.len()
        } else {
            0
        }
    ];
    if let Some(why) = backend.caps().unsupported(form) {
        r.status = Status::Skipped;
        r.reason = Some(why);
        return r;
    }
    // An operational form: its scenarios, judged by their determined observations.
    if kernel::operational::covers(form) {
        return operational::check(backend, fv.form, settings, r);
    }
    // A form the manual forbids: its kernel must not load (not judged by results).
    if spec::vector::refused::columns(form).is_some() {
        return refused::check(backend, fv, settings, r);
    }
    let strict = if settings.strict {
        settings.profile.as_ref()
    } else {
        None
    };
    // A matrix form's D has hundreds of elements: its wrong ones are named with their values.
    let (outputs, matrix_d) = outputs_of(form);
    let all: Vec<usize> = (0..fv.vectors.len()).collect();
    let mut failing: Vec<usize> = Vec::new();
    // Kernels without what the backend lacks (`brx.idx`, the selector `.b1024`), so it is judged
    // on the instruction.
    let caps = backend.caps();
    let batches = match kernel::build_for(form, &fv.vectors, &all, settings.max_threads, caps) {
        Ok(b) => b,
        Err(e) => {
            r.status = Status::Failed;
            r.reason = Some(format!("cannot build the kernel: {e}"));
            r.trace.fail(FailureClass::Error, all);
            return r;
        }
    };
    r.vectors = batches.iter().map(|b| b.vectors.len()).sum();
    for b in &batches {
        let got = backend
            .run(&b.job)
            .and_then(|bufs| b.decode(form, &bufs).map_err(|e| Failure::Malformed(e.to_string())));
        let results = match got {
            Ok(res) => res,
            Err(Failure::Unavailable(why)) => {
                r.status = Status::Skipped;
                r.reason = Some(why);
                r.trace.skip(Skip::Unavailable);
                return r;
            }
            Err(Failure::Rejected { kind, message })
                if matches!(kind.as_str(), "parse" | "type")
                    && r.passed + r.failed == 0
                    && crate::backend::ptxas_rejects().contains(&form_key(form)) =>
            {
                // NVIDIA's own compiler refuses this form of the manual's grammar: an
                // implementation that refuses it too is not wrong (one that accepts it is judged).
                r.status = Status::Skipped;
                r.refused = true;
                r.reason = Some(format!(
                    "rejected as ptxas 12.9 rejects it (corpus/findings/ptxas-12.9-rejects.txt): {kind} error: {message}"
                ));
                return r;
            }
            Err(f) => {
                // The launch gave no results: every vector of it counts as failed, and the
                // repro is that launch.
                r.status = Status::Failed;
                r.failed += b.vectors.len();
                r.trace.fail(FailureClass::of(&f), b.vectors.iter().copied());
                if r.reason.is_none() {
                    r.reason = Some(f.to_string());
                    failing.extend(b.vectors.iter().take(settings.show.max(1)));
                }
                continue;
            }
        };
        for (t, (&i, actual)) in b.vectors.iter().zip(results).enumerate() {
            let v = &fv.vectors[i];
            if settings.record {
                for (o, &bits) in v.outs.iter().zip(&actual) {
                    note_nans(o, bits, &mut r.nans);
                }
                // A profile records the vector's own run.
                if let Some(slot) = observed.get_mut(i).filter(|_| b.note(t).is_none()) {
                    *slot = actual.clone();
                }
            }
            let wrong: Vec<String> = outputs
                .iter()
                .zip(&v.outs)
                .zip(&actual)
                .filter(|((_, o), &bits)| !accepts(o, bits, strict))
                .map(|((out, o), &bits)| match matrix_d {
                    Some(ty) => format!(
                        "{} = {} (expected {} {})",
                        out.0,
                        hex(bits, out.1),
                        hex(o.model, out.1),
                        spec::vector::tag(o, ty)
                    ),
                    None => out.0.clone(),
                })
                .collect();
            if wrong.is_empty() {
                r.passed += 1;
                continue;
            }
            r.failed += 1;
            r.status = Status::Failed;
            r.trace.fail(FailureClass::Wrong, [i]);
            if r.mismatches.len() < settings.show {
                failing.push(i);
                let line = spec::vector::format_line(form, v);
                r.mismatches.push(Mismatch {
                    index: i,
                    vector: match b.note(t) {
                        Some(note) => format!("{line}  ({note})"),
                        None => line,
                    },
                    actual: outputs.iter().zip(&actual).map(|(o, &b)| hex(b, o.1)).collect(),
                    wrong,
                });
            }
        }
    }
    if !observed.is_empty() && r.status != Status::Skipped && observed.iter().all(|o| !o.is_empty()) {
        r.observed = Some(
            fv.vectors
                .iter()
                .zip(observed)
                .map(|(v, got)| Vector {
                    dsel: v.dsel,
                    ins: v.ins.clone(),
                    outs: got.into_iter().map(Outcome::exact).collect(),
                })
                .collect(),
        );
    }
    if r.status == Status::Failed {
        if let Some(dir) = &settings.repro_dir {
            r.repro = Some(match write_repro(dir, form, fv, &failing, caps) {
                Ok(p) => p.display().to_string(),
                Err(e) => format!("(could not write the repro: {e})"),
            });
        }
    }
    r.seconds = started.elapsed().as_secs_f64();
    r
}

/// Writes a standalone repro of a failed form: the failing vectors as a vector file, their
/// kernel and its launch file. `ptxconf run launch.json` replays the launch on the oracle or
/// by hand on any implementation; `ptxconf conform --file vectors.vec --backend B` judges it.
/// The kernel is written as the backend's was (`caps`: how variants are dispatched, `.b1024`).
fn write_repro(dir: &Path, form: &Form, fv: &FormVectors, failing: &[usize], caps: &Caps) -> Result<PathBuf, String> {
    let d = dir.join(form_key(form));
    std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
    let vectors: Vec<Vector> = failing.iter().map(|&i| fv.vectors[i].clone()).collect();
    let all: Vec<usize> = (0..vectors.len()).collect();
    let batch = kernel::build_for(form, &vectors, &all, vectors.len().max(1), caps)
        .map_err(|e| e.to_string())?
        .into_iter()
        .next()
        .ok_or("no vectors")?;
    let header = vec![
        ("source".to_string(), fv.source.clone()),
        ("vectors".to_string(), format!("{:?} (indices in the source)", failing)),
    ];
    let files = [
        ("vectors.vec", spec::vector::format_file(form, &header, &vectors)),
        ("kernel.ptx", batch.job.ptx.clone()),
        ("launch.json", batch.job.launch_json("kernel.ptx")),
    ];
    for (name, text) in files {
        std::fs::write(d.join(name), text).map_err(|e| format!("{}: {e}", d.join(name).display()))?;
    }
    let mut readme = String::new();
    let _ = writeln!(readme, "Repro for `{}` ({}).", form_key(form), form.signature());
    let _ = writeln!(
        readme,
        "Thread t evaluates line t of vectors.vec; the `out` buffer holds its destinations."
    );
    let _ = writeln!(
        readme,
        "Threads past the last line run lines again with sources written into the instruction\n\
         (constants, `!p` with p holding the complement): the kernel's later blocks."
    );
    let _ = writeln!(
        readme,
        "  ptxconf run launch.json                           # the oracle's bytes"
    );
    let _ = writeln!(
        readme,
        "  ptxconf conform --file vectors.vec --backend B    # judge a backend"
    );
    std::fs::write(d.join("README.txt"), readme).map_err(|e| e.to_string())?;
    Ok(d)
}

/// Reads one form's vectors from its file (`.vec.gz` or `.vec`); under a strict profile with
/// observations for the form, those instead.
pub fn load(path: &Path, settings: &Settings) -> Result<FormVectors, (Option<FormId>, String)> {
    let form = key_of(path).and_then(|k| form_by_key(&k));
    let observed = settings
        .profile
        .as_ref()
        .filter(|_| settings.strict)
        .and_then(|p| key_of(path).and_then(|k| p.observed_path(&k)));
    let source = observed.unwrap_or_else(|| path.to_path_buf());
    let file = crate::vectors::load(&source).map_err(|e| (form, format!("{}: {e}", source.display())))?;
    Ok(FormVectors {
        form: file.form,
        vectors: file.vectors,
        source: source.display().to_string(),
    })
}

/// The form a vector file is for, from its name (`add.rn.f32.vec.gz` → `add.rn.f32`).
pub fn key_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let key = name.strip_suffix(".vec.gz").or_else(|| name.strip_suffix(".vec"))?;
    Some(key.to_string())
}

/// Runs every form `load` yields on the backend, `backend.parallel()` forms at a time, and
/// reports in form order (deterministic whatever the scheduling). `load(i)` reads the i-th of
/// `count` forms' vectors; `tick` is called after each form.
pub fn run<L, T>(backend: &dyn Backend, count: usize, load: L, settings: &Settings, tick: T) -> Report
where
    L: Fn(usize) -> Result<FormVectors, (Option<FormId>, String)> + Sync,
    T: Fn(&FormReport) + Sync,
{
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<FormReport>>> = Mutex::new(vec![None; count]);
    let workers = backend.parallel().clamp(1, count.max(1));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    break;
                }
                let rep = match load(i) {
                    Ok(fv) => check_form(backend, &fv, settings),
                    Err((form, why)) => unreadable(form, why),
                };
                tick(&rep);
                slots.lock().expect("no worker panics")[i] = Some(rep);
            });
        }
    });
    let forms: Vec<FormReport> = slots
        .into_inner()
        .expect("no worker panics")
        .into_iter()
        .flatten()
        .collect();
    summarize(backend.name(), backend.describe(), None, forms, settings, started)
}

/// A vector file that cannot be read is a failed form (the corpus is part of the suite).
fn unreadable(form: Option<FormId>, why: String) -> FormReport {
    let mut r = match form {
        Some(i) => FormReport::new(i, Status::Failed, Some(why)),
        None => FormReport {
            form: "?".to_string(),
            family: "?",
            section: "?",
            ..FormReport::new(
                catalog().ids().next().expect("a catalog form"),
                Status::Failed,
                Some(why),
            )
        },
    };
    r.trace.fail(FailureClass::Error, []);
    r.trace.seal(0, |_| String::new());
    r
}

/// The report of a backend that cannot run here: every selected form skipped, with the reason.
pub fn unavailable(backend: &str, why: &str, forms: &[FormId], settings: &Settings) -> Report {
    let reports = forms
        .iter()
        .map(|&i| {
            let mut r = FormReport::new(i, Status::Skipped, Some(why.to_string()));
            r.trace.skip(Skip::Unavailable);
            r
        })
        .collect();
    summarize(
        backend.to_string(),
        String::new(),
        Some(why.to_string()),
        reports,
        settings,
        Instant::now(),
    )
}

fn summarize(
    backend: String,
    device: String,
    unavailable: Option<String>,
    forms: Vec<FormReport>,
    settings: &Settings,
    started: Instant,
) -> Report {
    let cat = catalog();
    let mut totals = Totals::default();
    let mut families: Vec<FamilyReport> = Vec::new();
    for f in &forms {
        totals.add(f);
        match families.iter_mut().find(|x| x.id == f.family) {
            Some(x) => x.totals.add(f),
            None => {
                let title = cat.families.iter().find(|x| x.id == f.family).map_or("", |x| x.title);
                let mut t = Totals::default();
                t.add(f);
                families.push(FamilyReport {
                    id: f.family,
                    title,
                    totals: t,
                });
            }
        }
    }
    families.sort_by_key(|f| family_order(f.id));
    Report {
        backend,
        device,
        unavailable,
        strict: settings.strict,
        profile: settings.profile.as_ref().map(|p| p.name.clone()),
        seconds: started.elapsed().as_secs_f64(),
        totals,
        families,
        forms,
        baseline: None,
    }
}

/// `9.7.10` after `9.7.9`.
fn family_order(id: &str) -> Vec<u32> {
    id.split('.').map(|p| p.parse().unwrap_or(u32::MAX)).collect()
}

impl Report {
    /// The human summary: one row per family, then every failed form with its first mismatches.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "backend: {}", self.backend);
        if !self.device.is_empty() {
            let _ = writeln!(s, "device:  {}", self.device);
        }
        if let Some(p) = &self.profile {
            let _ = writeln!(s, "profile: {p}{}", if self.strict { " (strict)" } else { "" });
        }
        if let Some(u) = &self.unavailable {
            let _ = writeln!(s, "{u}\nevery form skipped");
        }
        let _ = writeln!(
            s,
            "\n{:<8} {:<44} {:>7} {:>7} {:>7} {:>11} {:>9}",
            "family", "", "passed", "failed", "skipped", "vectors ok", "bad"
        );
        let row = |s: &mut String, id: &str, title: &str, t: &Totals| {
            let _ = writeln!(
                s,
                "{:<8} {:<44} {:>7} {:>7} {:>7} {:>11} {:>9}",
                id,
                title.chars().take(44).collect::<String>(),
                t.forms_passed,
                t.forms_failed,
                t.forms_skipped,
                t.vectors_passed,
                t.vectors_failed
            );
        };
        for f in &self.families {
            row(&mut s, f.id, f.title, &f.totals);
        }
        row(&mut s, "total", "", &self.totals);
        for f in self.forms.iter().filter(|f| f.status == Status::Failed) {
            let _ = writeln!(s, "\nFAILED {} ({} of {} vectors)", f.form, f.failed, f.vectors);
            if let Some(r) = &f.reason {
                let _ = writeln!(s, "  {r}");
            }
            for m in &f.mismatches {
                let _ = writeln!(s, "  vector {}: {}", m.index, m.vector);
                if m.actual.len() > MAX_SHOWN {
                    // A matrix's D: only the wrong elements, with their values.
                    let _ = writeln!(s, "    wrong: {}", m.wrong.join(", "));
                } else {
                    let _ = writeln!(s, "    got {} (wrong: {})", m.actual.join(" "), m.wrong.join(", "));
                }
            }
            if let Some(p) = &f.repro {
                let _ = writeln!(s, "  repro: {p}");
            }
        }
        let _ = writeln!(
            s,
            "\n{} forms passed, {} failed, {} skipped; {} vectors judged in {:.1} s",
            self.totals.forms_passed,
            self.totals.forms_failed,
            self.totals.forms_skipped,
            self.totals.vectors_passed + self.totals.vectors_failed,
            self.seconds
        );
        s
    }

    /// JUnit XML: a test suite per family, a test case per form. With a baseline, a failed form
    /// that is not a regression (an expected failure, a form new to the baseline) is a skipped
    /// test case saying so: only regressions are failures.
    pub fn junit(&self) -> String {
        let known = |f: &FormReport| self.baseline.as_ref().and_then(|b| b.known_failure(&f.form));
        let failures = |forms: &mut dyn Iterator<Item = &FormReport>| {
            forms
                .filter(|f| f.status == Status::Failed && known(f).is_none())
                .count()
        };
        let esc = |t: &str| {
            t.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
        };
        let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            s,
            "<testsuites name=\"ptxconf conform {}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
            esc(&self.backend),
            self.forms.len(),
            failures(&mut self.forms.iter()),
            self.forms.len() - self.totals.forms_passed - failures(&mut self.forms.iter()),
            self.seconds
        );
        for fam in &self.families {
            let forms: Vec<&FormReport> = self.forms.iter().filter(|f| f.family == fam.id).collect();
            let time: f64 = forms.iter().map(|f| f.seconds).sum();
            let _ = writeln!(
                s,
                "  <testsuite name=\"{} {}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{time:.3}\">",
                fam.id,
                esc(fam.title),
                forms.len(),
                failures(&mut forms.iter().copied()),
                forms.len() - fam.totals.forms_passed - failures(&mut forms.iter().copied())
            );
            for f in forms {
                let _ = write!(
                    s,
                    "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                    f.section,
                    esc(&f.form),
                    f.seconds
                );
                match (f.status, known(f)) {
                    (Status::Passed, _) => s.push_str("/>\n"),
                    (Status::Skipped, _) | (Status::Failed, Some(_)) => {
                        let _ = writeln!(
                            s,
                            ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                            esc(known(f).or(f.reason.as_deref()).unwrap_or(""))
                        );
                    }
                    (Status::Failed, None) => {
                        let mut body = String::new();
                        for m in &f.mismatches {
                            let _ = writeln!(body, "vector {}: {}\n  got {}", m.index, m.vector, m.actual.join(" "));
                        }
                        if let Some(p) = &f.repro {
                            let _ = writeln!(body, "repro: {p}");
                        }
                        let msg = f
                            .reason
                            .clone()
                            .unwrap_or_else(|| format!("{} of {} vectors wrong", f.failed, f.vectors));
                        let _ = writeln!(
                            s,
                            ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                            esc(&msg),
                            esc(&body)
                        );
                    }
                }
            }
            s.push_str("  </testsuite>\n");
        }
        s.push_str("</testsuites>\n");
        s
    }
}
