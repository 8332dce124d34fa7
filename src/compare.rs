//! Comparing one case between the oracle and a backend under test: run it on both and say how
//! the results differ ([`difference`], [`difference_from`]: a value mismatch as [`crate::judge`]
//! finds it, a backend failure, or results that cannot be compared). Used by `ptxconf fuzz`
//! campaigns, the `differential` fuzz target and the reducer's predicate
//! ([`crate::reduce::reduce_against`]), which also fits the backend's timeout to the case
//! ([`tight_timeout`]).

use crate::backend::{Backend, Failure, Job};
use crate::judge::{self, JudgeError, Mismatch};
use crate::reduce::Case;
use std::fmt;
use std::time::Instant;

/// How the oracle's and a backend's results for one case differ.
#[derive(Clone, Debug, PartialEq)]
pub enum Difference {
    /// Both ran; these values differ.
    Mismatch(Vec<Mismatch>),
    /// The backend gave no result.
    Failure(Failure),
    /// The results cannot be compared (a buffer missing, a malformed check).
    Incomparable(JudgeError),
    /// No difference.
    Same,
}

impl Difference {
    /// Whether `other` is a difference of the same kind: values against values, else the same
    /// class as a finding's signature starts ([`crate::baseline::findings::class_of`]): the same
    /// failure variant, for a rejection the same error kind, for a crash the same crash
    /// ([`crate::baseline::crash::CrashSignature`]: signal, assertion or message, location).
    pub fn same_kind(&self, other: &Difference) -> bool {
        use crate::baseline::findings::class_of;
        match (self, other) {
            (Difference::Mismatch(a), Difference::Mismatch(b)) => !a.is_empty() && !b.is_empty(),
            (Difference::Same, _) | (_, Difference::Same) => false,
            _ => class_of(self) == class_of(other),
        }
    }

    /// Whether there is no difference.
    pub fn is_same(&self) -> bool {
        matches!(self, Difference::Same)
    }
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::Mismatch(v) => write!(f, "{} mismatching value(s)", v.len()),
            Difference::Failure(x) => write!(f, "the backend failed: {x}"),
            Difference::Incomparable(m) => write!(f, "the results cannot be compared: {m}"),
            Difference::Same => write!(f, "no difference"),
        }
    }
}

/// Why [`difference`] could not compare.
#[derive(Clone, Debug, PartialEq)]
pub enum CompareError {
    /// The oracle itself fails on the case (so there is no expected result).
    Oracle(oracle::error::Error),
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompareError::Oracle(e) => write!(f, "the oracle fails: {e}"),
        }
    }
}

impl std::error::Error for CompareError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CompareError::Oracle(e) => Some(e),
        }
    }
}

/// Runs `case` on the oracle and on `backend` and compares; `Err` when the oracle itself fails.
pub fn difference(case: &Case, backend: &dyn Backend) -> Result<Difference, CompareError> {
    let (expected, _) = oracle::launch::run(&case.launch, &case.ptx).map_err(CompareError::Oracle)?;
    Ok(difference_from(&expected, case, backend))
}

/// Runs `case` on `backend` and compares with `expected`, the oracle's results for it (for
/// callers that have them already: a campaign's audited run).
pub fn difference_from(expected: &oracle::launch::Buffers, case: &Case, backend: &dyn Backend) -> Difference {
    let job = Job::from_launch(&case.launch, case.ptx.clone());
    match backend.run(&job) {
        Err(f) => Difference::Failure(f),
        Ok(observed) => match judge::compare(case.launch.check.as_ref(), expected, &observed) {
            Ok(v) if v.is_empty() => Difference::Same,
            Ok(v) => Difference::Mismatch(v),
            Err(e) => Difference::Incomparable(e),
        },
    }
}

/// A per-launch timeout for the backend during a reduction, at most `max` seconds: 10× what the
/// original took on it (at least 2 s), so that a candidate the backend runs much longer than the
/// original (a loop whose exit the reduction removed) is cut short; when the original's
/// difference is itself a timeout, 10× what it takes the oracle (at least 2 s). Runs the case
/// once on each.
pub fn tight_timeout(case: &Case, backend: &dyn Backend, max: f64) -> f64 {
    let t = Instant::now();
    let _ = oracle::launch::run(&case.launch, &case.ptx);
    let oracle_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let timed_out = matches!(
        backend.run(&Job::from_launch(&case.launch, case.ptx.clone())),
        Err(Failure::Timeout { .. })
    );
    let backend_s = t.elapsed().as_secs_f64();
    let base = if timed_out { oracle_s } else { backend_s };
    (10.0 * base).max(2.0).min(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_keep_their_kind() {
        let m = |n| {
            Difference::Mismatch(vec![Mismatch {
                buffer: "out".into(),
                offset: n,
                thread: None,
                slot: None,
                expected: "0x1".into(),
                observed: "0x2".into(),
            }])
        };
        let rej = |k: &str| {
            Difference::Failure(Failure::Rejected {
                kind: k.into(),
                message: "m".into(),
            })
        };
        assert!(m(0).same_kind(&m(4)));
        assert!(!m(0).same_kind(&rej("parse")));
        assert!(!rej("parse").same_kind(&m(0)));
        assert!(rej("parse").same_kind(&rej("parse")));
        assert!(!rej("parse").same_kind(&rej("runtime")));
        let crash = |m: &str| Difference::Failure(Failure::Crashed(m.into()));
        // The same crash, at other addresses and program lines.
        assert!(
            crash("killed by signal 6 (SIGABRT); stderr ends: x.ptx:3 | bad free at 0x1f00").same_kind(&crash(
                "killed by signal 6 (SIGABRT); stderr ends: x.ptx:9 | bad free at 0x2e00"
            ))
        );
        // Another message, another signal, another assertion: another crash.
        assert!(!crash("killed by signal 6 (SIGABRT); stderr ends: A")
            .same_kind(&crash("killed by signal 6 (SIGABRT); stderr ends: B")));
        assert!(!crash("killed by signal 6 (SIGABRT); stderr ends: A")
            .same_kind(&crash("killed by signal 11 (SIGSEGV); stderr ends: A")));
        assert!(!crash("internal error: x: a.cc:10: f: Assertion `p' failed.")
            .same_kind(&crash("internal error: x: a.cc:12: f: Assertion `p' failed.")));
        assert!(!Difference::Failure(Failure::Crashed("a".into()))
            .same_kind(&Difference::Failure(Failure::Timeout { seconds: 1.0 })));
        assert!(!Difference::Same.same_kind(&Difference::Same));
        assert!(!m(0).same_kind(&Difference::Mismatch(vec![])));
    }
}
