//! Whether a case's results depend on something the manual leaves undefined: a register,
//! `.local`/`.param` frame, `alloca` or `.shared` byte read before it is written (L3757: such a
//! byte holds "an unknown but constant value"), or two threads' conflicting stores with no
//! barrier between (a data race, L3905). The oracle reads zeros where hardware reads whatever
//! was there, and keeps the last lane's store where hardware may keep another's, so a reduced
//! program that depends on either shows no defect of the backend (on the H200, `st [sig], %r20`
//! with `%r20` never written: the oracle stores 0, the GPU 0x00fffdc0).
//!
//! The test is differential: the case runs again with every undefined byte holding 0x5a, then
//! 0xa5 (complementary bits: a result that masks the undefined value still sees one of them
//! change) and with racing stores an error ([`oracle::launch::run_filled`]); any checked result
//! that differs from the zero-filled run, or a run that fails where it did not, is a
//! dependence.

use crate::judge;
use oracle::launch::{Buffers, LaunchFile};

/// The fills tried, each against the ordinary (zero) run.
const FILLS: [u8; 2] = [0x5a, 0xa5];

/// What a case's results depend on, beyond its inputs.
#[derive(Clone, Debug, PartialEq)]
pub enum Undefined {
    /// With undefined bytes holding `fill`, checked values change.
    Values {
        /// The byte unwritten registers and memory held.
        fill: u8,
        /// The first value that changed, in words.
        first: String,
    },
    /// With undefined bytes holding `fill` the run fails (a data race, or an address or loop
    /// bound computed from an undefined value).
    Fails {
        /// The byte unwritten registers and memory held.
        fill: u8,
        /// The oracle's error.
        error: String,
    },
}

impl std::fmt::Display for Undefined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Undefined::Values { fill, first } => write!(
                f,
                "its results change when unwritten registers and memory hold {fill:#04x} instead of 0: {first}"
            ),
            Undefined::Fails { fill, error } => write!(
                f,
                "it fails when unwritten registers and memory hold {fill:#04x} (or a store races): {error}"
            ),
        }
    }
}

/// The first dependence of the case's results (`zero`: its ordinary run's buffers) on undefined
/// values; `None` when every fill gives the same checked results and no store races.
pub fn undefined_dependence(l: &LaunchFile, ptx: &str, zero: &Buffers) -> Option<Undefined> {
    for fill in FILLS {
        match oracle::launch::run_filled(l, ptx, fill) {
            Err(e) => {
                return Some(Undefined::Fails {
                    fill,
                    error: e.to_string(),
                })
            }
            Ok((filled, _)) => match judge::compare(l.check.as_ref(), zero, &filled) {
                Ok(v) if v.is_empty() => {}
                Ok(v) => {
                    return Some(Undefined::Values {
                        fill,
                        first: v[0].to_string(),
                    })
                }
                Err(e) => {
                    return Some(Undefined::Fails {
                        fill,
                        error: e.to_string(),
                    })
                }
            },
        }
    }
    None
}

/// Whether the case runs on the oracle and its results depend on nothing undefined.
pub(super) fn runs_defined(l: &LaunchFile, ptx: &str) -> bool {
    oracle::launch::run(l, ptx).is_ok_and(|(zero, _)| undefined_dependence(l, ptx, &zero).is_none())
}
