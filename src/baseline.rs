//! Baselines: the expected result of every form on one backend, and what changed since.
//!
//! An implementation that fails thousands of forms (GPGPU-Sim, ZLUDA) cannot use a run's
//! pass/fail in CI. `ptxconf conform --write-baseline FILE` records each form's expectation;
//! `ptxconf conform --baseline FILE` compares a run with it, form by form, and exits 1 only on a
//! regression.
//!
//! # The file
//!
//! Text, one line per form, sorted by form key, tab-separated; `#` lines are the header:
//!
//! ```text
//! # ptxconf baseline 1
//! # backend: cmd:./planted.sh
//! # ptxconf: 0.1.0
//! # vector set: 5f0c6e1d2a3b4c7d (2 forms)
//! # columns: form, expect, class, failed/vectors, failing digest, vectors digest
//! add.rm.f32  passed  -  0/384  -  af97addd1caec4c8
//! add.rn.f32  failed  wrong  65/384  cf8d689c03dcab1d  1fb4a076ae511e1e
//! wgmma.mma_async.sp.sync.aligned.m64n104k16.f32.tf32.tf32~o1  skipped  caps  -  -  -
//! ```
//!
//! (the columns are separated by one tab; `add.rn.f32`'s line is a backend that rounds it
//! toward zero).
//!
//! - `expect`: `passed`, `failed` or `skipped`.
//! - `class`: for a failed form, the worst failure among its launches ([`FailureClass`]): `wrong` (a
//!   result outside its acceptance set), `accepted` (a form the manual forbids was not refused at
//!   load), `rejected:KIND` (the implementation's error of that kind: `parse`, `type`, `jit`,
//!   `launch`, `runtime`, a driver's error name), `error` (the suite could not build the kernel
//!   or read the vectors), `timeout`, `malformed` (a reply outside the protocol), `crashed`. For
//!   a skipped form, why ([`Skip`]): `caps` (beyond the backend's declared target, PTX version,
//!   families or known rejections), `ptxas` (refused as ptxas 12.9 refuses it), `unavailable`.
//! - `failed/vectors`: the form's failed and total vectors (an operational form: its checks).
//! - `failing digest`: 64-bit FNV-1a, in hex, of the failing vectors' lines (each as the vector
//!   file writes it, `\n`-terminated, in vector order); an operational form's failing checks by
//!   index. With `class`, the failure's signature: no time, message or path goes into it, so it
//!   is the same on every run over the same vectors.
//! - `vectors digest`: the same digest of all of the form's vectors (an operational form: of its
//!   scenarios' kernels and expectations; a skipped form: `-`); the header's `vector set`
//!   digests the forms' lines `form<TAB>digest\n` in order.
//!
//! The digests are taken only by a run that asks for them (`Settings::digests`), as they cost
//! a formatting of every vector.
//!
//! # The comparison
//!
//! Per form ([`Change`]): a **regression** is a form that passed and now fails, that ran and is
//! now skipped, that was skipped and now fails, or whose failure got worse — a more severe class
//! (wrong/accepted < rejected/error < timeout/malformed < crashed), more failing vectors, or as
//! many but others (the failing digest differs over the same vectors). A **fix** now passes;
//! **improved** fails less (a milder class, fewer vectors); **changed** is neither (a skip for
//! another reason, another class of the same severity, another failure of the same severity over
//! vectors that changed: their counts and digests are not comparable);
//! **new** and **missing** forms are not in the baseline or not in the run. Only a regression
//! fails the run.
//!
//! [`findings`] does the same for `ptxconf fuzz`: known findings, by signature.

pub mod crash;
pub mod findings;

use crate::backend::Failure;
use crate::conform::{FormReport, Report, Status};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fmt::Write as _;
use std::path::Path;

/// The file's first line.
pub const MAGIC: &str = "# ptxconf baseline 1";

/// How a form failed: its worst launch's failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailureClass {
    /// A result outside its acceptance set.
    Wrong,
    /// A form the manual forbids was taken as valid (the kernel ran, or failed after loading).
    Accepted,
    /// The implementation's error of a kind (`parse`, `type`, `jit`, `launch`, `runtime`, ...).
    Rejected(String),
    /// The suite could not build the kernel, the scenarios, or read the vector file.
    Error,
    /// No reply within the per-launch timeout.
    Timeout,
    /// A reply outside the protocol.
    Malformed,
    /// The implementation died (signal, exit without a reply).
    Crashed,
}

impl FailureClass {
    /// The class of a launch's failure.
    pub fn of(f: &Failure) -> FailureClass {
        match f {
            Failure::Rejected { kind, .. } => {
                // A kind is one word in the file.
                let kind: String = kind.chars().map(|c| if c.is_whitespace() { '_' } else { c }).collect();
                FailureClass::Rejected(if kind.is_empty() { "?".into() } else { kind })
            }
            Failure::Timeout { .. } => FailureClass::Timeout,
            Failure::Crashed(_) => FailureClass::Crashed,
            Failure::Malformed(_) => FailureClass::Malformed,
            // Never a failed launch (the form is skipped); listed for completeness.
            Failure::Unavailable(_) => FailureClass::Error,
        }
    }

    /// Severity: a higher rank is a worse failure.
    fn rank(&self) -> u8 {
        match self {
            FailureClass::Wrong | FailureClass::Accepted => 1,
            FailureClass::Rejected(_) | FailureClass::Error => 2,
            FailureClass::Timeout | FailureClass::Malformed => 3,
            FailureClass::Crashed => 4,
        }
    }

    fn parse(s: &str) -> Option<FailureClass> {
        Some(match s {
            "wrong" => FailureClass::Wrong,
            "accepted" => FailureClass::Accepted,
            "error" => FailureClass::Error,
            "timeout" => FailureClass::Timeout,
            "malformed" => FailureClass::Malformed,
            "crashed" => FailureClass::Crashed,
            _ => FailureClass::Rejected(s.strip_prefix("rejected:").filter(|k| !k.is_empty())?.to_string()),
        })
    }
}

impl fmt::Display for FailureClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureClass::Wrong => f.write_str("wrong"),
            FailureClass::Accepted => f.write_str("accepted"),
            FailureClass::Rejected(k) => write!(f, "rejected:{k}"),
            FailureClass::Error => f.write_str("error"),
            FailureClass::Timeout => f.write_str("timeout"),
            FailureClass::Malformed => f.write_str("malformed"),
            FailureClass::Crashed => f.write_str("crashed"),
        }
    }
}

/// Why a form was skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// Beyond the backend's declared capabilities.
    Caps,
    /// Refused as ptxas 12.9 refuses it.
    Ptxas,
    /// The backend cannot run here.
    Unavailable,
}

impl Skip {
    fn name(self) -> &'static str {
        match self {
            Skip::Caps => "caps",
            Skip::Ptxas => "ptxas",
            Skip::Unavailable => "unavailable",
        }
    }

    fn parse(s: &str) -> Option<Skip> {
        [Skip::Caps, Skip::Ptxas, Skip::Unavailable]
            .into_iter()
            .find(|k| k.name() == s)
    }
}

/// 64-bit FNV-1a over lines, each followed by `\n`.
#[derive(Clone, Copy)]
struct Digest(u64);

impl Digest {
    fn new() -> Digest {
        Digest(0xcbf2_9ce4_8422_2325)
    }

    fn line(&mut self, s: &str) {
        for &b in s.as_bytes().iter().chain(b"\n") {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// Digests `lines` as the file's digests are taken.
pub fn digest_lines<S: AsRef<str>>(lines: impl IntoIterator<Item = S>) -> u64 {
    let mut d = Digest::new();
    for l in lines {
        d.line(l.as_ref());
    }
    d.0
}

/// What a baseline needs of a form, gathered while it is judged: the failure's class, the
/// failing vectors, the skip's reason, and (once [`Trace::seal`]ed) the digests.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    class: Option<FailureClass>,
    skip: Option<Skip>,
    failing: Vec<usize>,
    digest: Option<u64>,
    vectors: Option<u64>,
}

impl Trace {
    /// Vectors `failing` (indices) failed with `class`; the worst class is kept.
    pub fn fail(&mut self, class: FailureClass, failing: impl IntoIterator<Item = usize>) {
        if self.class.as_ref().is_none_or(|c| class.rank() > c.rank()) {
            self.class = Some(class);
        }
        self.failing.extend(failing);
    }

    /// The form was skipped for `why`.
    pub fn skip(&mut self, why: Skip) {
        self.skip = Some(why);
    }

    /// The digest of the form's vectors, where they are not the `lines` [`Trace::seal`] reads
    /// (an operational form's scenarios).
    pub fn set_vectors(&mut self, digest: u64) {
        self.vectors = Some(digest);
    }

    /// Drops what was gathered for [`Trace::seal`] (a run that records no baseline).
    pub fn forget(&mut self) {
        self.failing = Vec::new();
    }

    /// Takes the digests: of the failing vectors' lines and (unless set) of all `count`
    /// vectors' lines; `line(i)` is vector `i`'s. Only the digests are kept.
    pub fn seal(&mut self, count: usize, line: impl Fn(usize) -> String) {
        let mut failing = std::mem::take(&mut self.failing);
        failing.sort_unstable();
        failing.dedup();
        self.digest = Some(digest_lines(failing.into_iter().map(&line)));
        if self.vectors.is_none() {
            self.vectors = Some(digest_lines((0..count).map(&line)));
        }
    }
}

/// A form's expected result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Every vector accepted.
    Passed {
        /// Its vectors.
        vectors: usize,
    },
    /// Failed with this signature.
    Failed {
        /// The worst failure.
        class: FailureClass,
        /// Failing vectors.
        failed: usize,
        /// Its vectors.
        vectors: usize,
        /// The failing vectors' digest.
        digest: u64,
    },
    /// Not run.
    Skipped(Skip),
}

impl Expect {
    /// A form report's result.
    pub fn of(r: &FormReport) -> Expect {
        match r.status {
            Status::Passed => Expect::Passed { vectors: r.vectors },
            Status::Skipped => {
                Expect::Skipped(r.trace.skip.unwrap_or(if r.refused { Skip::Ptxas } else { Skip::Caps }))
            }
            Status::Failed => Expect::Failed {
                class: r.trace.class.clone().unwrap_or(FailureClass::Error),
                failed: r.failed,
                vectors: r.vectors,
                digest: r.trace.digest.unwrap_or_else(|| digest_lines([""; 0])),
            },
        }
    }

    /// The file's `expect`, `class`, `failed/vectors` and `failing digest` columns.
    fn columns(&self) -> String {
        match self {
            Expect::Passed { vectors } => format!("passed\t-\t0/{vectors}\t-"),
            Expect::Failed {
                class,
                failed,
                vectors,
                digest,
            } => format!("failed\t{class}\t{failed}/{vectors}\t{digest:016x}"),
            Expect::Skipped(s) => format!("skipped\t{}\t-\t-", s.name()),
        }
    }
}

impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expect::Passed { .. } => f.write_str("passed"),
            Expect::Failed {
                class,
                failed,
                vectors,
                digest,
            } => write!(f, "failed {class} {failed}/{vectors} {digest:016x}"),
            Expect::Skipped(s) => write!(f, "skipped {}", s.name()),
        }
    }
}

/// One form's line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its result.
    pub expect: Expect,
    /// The digest of its vectors, when they were read.
    pub vectors: Option<u64>,
}

/// A recorded run: every form's expected result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Baseline {
    /// The backend it was recorded on.
    pub backend: String,
    /// The ptxconf that recorded it.
    pub version: String,
    /// The forms, by key.
    pub forms: BTreeMap<String, Entry>,
}

/// Why a baseline file cannot be read.
#[derive(Debug)]
pub enum BaselineError {
    /// The file cannot be read.
    Io(std::io::Error),
    /// The first line is not the one given ([`MAGIC`], [`findings::MAGIC`]).
    NotABaseline(&'static str),
    /// A line that does not follow the format.
    Line {
        /// Its number (from 1).
        line: usize,
        /// What is wrong with it.
        message: String,
    },
}

impl fmt::Display for BaselineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaselineError::Io(e) => write!(f, "{e}"),
            BaselineError::NotABaseline(magic) => {
                write!(f, "not a ptxconf baseline (the first line is not `{magic}`)")
            }
            BaselineError::Line { line, message } => write!(f, "line {line}: {message}"),
        }
    }
}

impl std::error::Error for BaselineError {}

impl Baseline {
    /// The expectations of a run.
    pub fn of(report: &Report) -> Baseline {
        Baseline {
            backend: report.backend.clone(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            forms: report
                .forms
                .iter()
                .map(|f| {
                    let entry = Entry {
                        expect: Expect::of(f),
                        vectors: f.trace.vectors,
                    };
                    (f.form.clone(), entry)
                })
                .collect(),
        }
    }

    /// The digest of the forms' vectors (the header's `vector set`).
    pub fn vector_set(&self) -> u64 {
        digest_lines(
            self.forms
                .iter()
                .filter_map(|(k, e)| e.vectors.map(|d| format!("{k}\t{d:016x}"))),
        )
    }

    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut s = format!("{MAGIC}\n");
        let _ = writeln!(s, "# backend: {}", self.backend);
        let _ = writeln!(s, "# ptxconf: {}", self.version);
        let read = self.forms.values().filter(|e| e.vectors.is_some()).count();
        let _ = writeln!(s, "# vector set: {:016x} ({read} forms)", self.vector_set());
        s.push_str("# columns: form, expect, class, failed/vectors, failing digest, vectors digest\n");
        for (k, e) in &self.forms {
            let v = e.vectors.map_or_else(|| "-".to_string(), |d| format!("{d:016x}"));
            let _ = writeln!(s, "{k}\t{}\t{v}", e.expect.columns());
        }
        s
    }

    /// Reads a file's text.
    pub fn parse(text: &str) -> Result<Baseline, BaselineError> {
        let mut lines = text.lines().enumerate();
        if lines.next().map(|(_, l)| l.trim_end()) != Some(MAGIC) {
            return Err(BaselineError::NotABaseline(MAGIC));
        }
        let mut b = Baseline {
            backend: String::new(),
            version: String::new(),
            forms: BTreeMap::new(),
        };
        for (n, line) in lines {
            let bad = |message: String| BaselineError::Line { line: n + 1, message };
            if let Some(h) = line.strip_prefix('#') {
                let h = h.trim();
                if let Some(v) = h.strip_prefix("backend:") {
                    b.backend = v.trim().to_string();
                } else if let Some(v) = h.strip_prefix("ptxconf:") {
                    b.version = v.trim().to_string();
                }
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            let cols: Vec<&str> = line.split('\t').collect();
            let [form, expect, class, counts, digest, vectors] = cols[..] else {
                return Err(bad(format!("expected 6 tab-separated columns, found {}", cols.len())));
            };
            let hex = |s: &str, what: &str| {
                u64::from_str_radix(s, 16).map_err(|_| bad(format!("{what} `{s}` is not a hex digest")))
            };
            let vectors = match vectors {
                "-" => None,
                d => Some(hex(d, "vectors digest")?),
            };
            let count = |s: &str| -> Result<(usize, usize), BaselineError> {
                s.split_once('/')
                    .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                    .ok_or_else(|| bad(format!("`{s}` is not failed/vectors")))
            };
            let expect = match expect {
                "passed" => Expect::Passed {
                    vectors: count(counts)?.1,
                },
                "failed" => {
                    let (failed, vectors) = count(counts)?;
                    Expect::Failed {
                        class: FailureClass::parse(class)
                            .ok_or_else(|| bad(format!("unknown failure class `{class}`")))?,
                        failed,
                        vectors,
                        digest: hex(digest, "failing digest")?,
                    }
                }
                "skipped" => {
                    Expect::Skipped(Skip::parse(class).ok_or_else(|| bad(format!("unknown skip reason `{class}`")))?)
                }
                other => return Err(bad(format!("expected passed, failed or skipped, found `{other}`"))),
            };
            b.forms.insert(form.to_string(), Entry { expect, vectors });
        }
        Ok(b)
    }

    /// Reads a file.
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        Baseline::parse(&std::fs::read_to_string(path).map_err(BaselineError::Io)?)
    }

    /// Compares a run with the baseline (read from `file`, as the report names it).
    pub fn compare(&self, report: &Report, file: &str) -> Comparison {
        let now = Baseline::of(report);
        let mut c = Comparison {
            file: file.to_string(),
            recorded_backend: self.backend.clone(),
            vectors_changed: 0,
            unchanged: 0,
            regressions: 0,
            fixes: 0,
            improved: 0,
            changed: 0,
            new: 0,
            missing: 0,
            forms: Vec::new(),
            known: BTreeMap::new(),
        };
        let keys: BTreeSet<&String> = self.forms.keys().chain(now.forms.keys()).collect();
        for k in keys {
            let (was, is) = (self.forms.get(k), now.forms.get(k));
            if let (Some(a), Some(b)) = (was.and_then(|e| e.vectors), is.and_then(|e| e.vectors)) {
                c.vectors_changed += usize::from(a != b);
            }
            let verdict = match (was, is) {
                (Some(w), Some(n)) => judge(w, n),
                (None, Some(_)) => Some((Change::New, "not in the baseline")),
                (Some(_), None) => Some((Change::Missing, "not in this run")),
                (None, None) => None,
            };
            if let Some(Expect::Failed { .. }) = is.map(|e| &e.expect) {
                if !matches!(verdict, Some((Change::Regression, _))) {
                    let why = match was {
                        Some(w) => format!("expected failure (baseline {file}: {})", w.expect),
                        None => format!("not in the baseline {file}"),
                    };
                    c.known.insert(k.clone(), why);
                }
            }
            let Some((change, why)) = verdict else {
                c.unchanged += 1;
                continue;
            };
            *match change {
                Change::Regression => &mut c.regressions,
                Change::Fix => &mut c.fixes,
                Change::Improved => &mut c.improved,
                Change::Changed => &mut c.changed,
                Change::New => &mut c.new,
                Change::Missing => &mut c.missing,
            } += 1;
            c.forms.push(FormChange {
                form: k.clone(),
                change,
                was: was.map(|e| e.expect.to_string()),
                now: is.map(|e| e.expect.to_string()),
                why,
            });
        }
        c
    }
}

/// How a form that is in both compares; `None`: unchanged.
fn judge(was: &Entry, now: &Entry) -> Option<(Change, &'static str)> {
    use Change::*;
    use Expect::*;
    let same_vectors = was.vectors.is_none() || now.vectors.is_none() || was.vectors == now.vectors;
    Some(match (&was.expect, &now.expect) {
        (Passed { .. }, Passed { .. }) => return None,
        (Skipped(a), Skipped(b)) if a == b => return None,
        (Skipped(_), Skipped(_)) => (Changed, "skipped for another reason"),
        (Passed { .. }, Failed { .. }) => (Regression, "now fails"),
        (Passed { .. } | Failed { .. }, Skipped(_)) => (Regression, "no longer run"),
        (Skipped(_), Failed { .. }) => (Regression, "now runs and fails"),
        (Failed { .. }, Passed { .. }) => (Fix, "now passes"),
        (Skipped(_), Passed { .. }) => (Fix, "now runs and passes"),
        (
            Failed {
                class: c0,
                failed: f0,
                digest: d0,
                ..
            },
            Failed {
                class: c1,
                failed: f1,
                digest: d1,
                ..
            },
        ) => {
            if c1.rank() > c0.rank() {
                (Regression, "a worse failure")
            } else if c1.rank() < c0.rank() {
                (Improved, "a milder failure")
            } else if !same_vectors {
                // Counts and digests over other vectors say nothing of the implementation.
                if (c1, f1, d1) == (c0, f0, d0) {
                    return None;
                }
                (Changed, "its vectors changed")
            } else if f1 > f0 {
                (Regression, "more vectors fail")
            } else if f1 < f0 {
                (Improved, "fewer vectors fail")
            } else if d1 != d0 {
                (Regression, "other vectors fail")
            } else if c1 != c0 {
                (Changed, "fails differently, as severely")
            } else {
                return None;
            }
        }
    })
}

/// How a form's result compares with its baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// Worse than recorded (the run fails).
    Regression,
    /// Failed or skipped, now passes.
    Fix,
    /// Still fails, less so.
    Improved,
    /// Different, neither worse nor better.
    Changed,
    /// Not in the baseline.
    New,
    /// In the baseline, not in the run.
    Missing,
}

impl Change {
    fn name(self) -> &'static str {
        match self {
            Change::Regression => "regression",
            Change::Fix => "fix",
            Change::Improved => "improved",
            Change::Changed => "changed",
            Change::New => "new",
            Change::Missing => "missing",
        }
    }
}

/// One form that is not as recorded.
#[derive(Clone, Debug, Serialize)]
pub struct FormChange {
    /// The form key.
    pub form: String,
    /// How.
    pub change: Change,
    /// Its recorded result (`None`: new).
    pub was: Option<String>,
    /// Its result now (`None`: missing).
    pub now: Option<String>,
    /// Why it is this change.
    pub why: &'static str,
}

/// A run compared with a baseline.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// The baseline's file.
    pub file: String,
    /// The backend it was recorded on.
    pub recorded_backend: String,
    /// Forms whose vectors differ from the recorded ones (their digests).
    pub vectors_changed: usize,
    /// Forms as recorded.
    pub unchanged: usize,
    /// Forms worse than recorded.
    pub regressions: usize,
    /// Forms that now pass.
    pub fixes: usize,
    /// Forms that fail less.
    pub improved: usize,
    /// Forms that changed otherwise.
    pub changed: usize,
    /// Forms not in the baseline.
    pub new: usize,
    /// Forms of the baseline not in the run.
    pub missing: usize,
    /// Every form that is not as recorded, by key.
    pub forms: Vec<FormChange>,
    /// The failed forms that are not regressions, with why (JUnit reports them as skipped).
    #[serde(skip)]
    known: BTreeMap<String, String>,
}

/// New and missing forms listed by [`Comparison::lines`]; the JSON report has them all.
const LISTED: usize = 20;

impl Comparison {
    /// A form regressed.
    pub fn regressed(&self) -> bool {
        self.regressions > 0
    }

    /// Why a failed form is not a regression (an expected failure, or a form new to the
    /// baseline), or `None` when it is one or did not fail.
    pub fn known_failure(&self, form: &str) -> Option<&str> {
        self.known.get(form).map(String::as_str)
    }

    /// The report: a line per changed form (regressions, then fixes, improved, changed; at most
    /// 20 new and 20 missing), then the totals.
    pub fn lines(&self) -> String {
        let mut s = String::new();
        if self.vectors_changed > 0 {
            let _ = writeln!(
                s,
                "baseline: the vectors of {} forms differ from the recorded ones; their failures are compared by class only",
                self.vectors_changed
            );
        }
        for kind in [
            Change::Regression,
            Change::Fix,
            Change::Improved,
            Change::Changed,
            Change::New,
            Change::Missing,
        ] {
            let of_kind: Vec<&FormChange> = self.forms.iter().filter(|f| f.change == kind).collect();
            let shown = match kind {
                Change::New | Change::Missing => LISTED,
                _ => usize::MAX,
            };
            for f in of_kind.iter().take(shown) {
                let was = f.was.as_deref().unwrap_or("-");
                let now = f.now.as_deref().unwrap_or("-");
                let _ = writeln!(s, "{} {}: {was} -> {now} ({})", kind.name(), f.form, f.why);
            }
            if of_kind.len() > shown {
                let _ = writeln!(
                    s,
                    "{} ... and {} more (the --json report lists them)",
                    kind.name(),
                    of_kind.len() - shown
                );
            }
        }
        if self.forms.is_empty() {
            let _ = writeln!(
                s,
                "baseline {}: no change ({} forms as recorded)",
                self.file, self.unchanged
            );
            return s;
        }
        let _ = writeln!(
            s,
            "baseline {}: {} regressions, {} fixes, {} improved, {} changed, {} new, {} missing, {} unchanged",
            self.file,
            self.regressions,
            self.fixes,
            self.improved,
            self.changed,
            self.new,
            self.missing,
            self.unchanged
        );
        if !self.regressed() {
            let _ = writeln!(
                s,
                "no regression; to record the new results, run again with --write-baseline {}",
                self.file
            );
        }
        s
    }
}
