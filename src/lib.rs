//! `ptxconf`: the reference-conformance suite and differential fuzzer for NVIDIA PTX — the
//! library behind the `ptxconf` binary (and the `conformance` test).
//!
//! - [`vectors`]: golden-vector files (corpus/vectors/): generate, verify, read; [`corpus`]: finding
//!   them from any working directory.
//! - [`kernel`]: a form's vectors as PTX kernels, one thread per vector.
//! - [`backend`]: what runs the kernels (the oracle, a CUDA driver, an external program).
//! - [`conform`]: the conformance runner, judging and reports; [`baseline`]: a backend's expected
//!   result per form and what changed since; [`profile`]: hardware profiles.
//! - [`judge`]: comparing a launch's results between the oracle and a backend (programs, reduction).
//! - [`compare`]: one case on the oracle and on a backend, and how the results differ.
//! - [`reduce`]: shrinking a case while its difference persists; [`findings`]: writing reduced
//!   and unreduced findings to disk; [`replay`]: one launch file on a backend (`run --backend`).
//! - `trials` (feature `trials`): a backend's conformance suite as a libtest-mimic trial list, for
//!   an implementation's own `cargo test`.
//!
//! Features: `cli` (the `ptxconf` binary: clap, indicatif, mimalloc), `cuda` (the `cuda[:LIB]`
//! backend), `trials` (libtest-mimic); all on by default. A project that only wants to judge its
//! implementation depends on `ptxconf` with `default-features = false, features = ["trials"]`.

#![deny(missing_docs)]

pub mod backend;
pub mod baseline;
pub mod bench;
pub mod compare;
pub mod conform;
pub mod corpus;
pub mod coverage;
pub mod findings;
pub mod fuzz;
pub mod fuzz_targets;
pub mod judge;
pub mod kernel;
pub mod profile;
pub mod reduce;
pub mod replay;
#[cfg(feature = "trials")]
pub mod trials;
pub mod vectors;
