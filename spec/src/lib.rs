//! The executable PTX ISA 8.7 specification.
//!
//! - [`catalog`]: every instruction form of §9.7 in one table, expanded from compact descriptions.
//! - One pure function per instruction over bit patterns, grouped by the manual's families:
//!   [`int`] (§9.7.1), [`extended`] (§9.7.2), [`compare`] (§9.7.6), [`logic`] (§9.7.8),
//!   [`fp`] (§9.7.3), [`half`] (§9.7.4, §9.7.5, §9.7.7), [`approx`] (the approximate ones of
//!   §9.7.3-9.7.4), [`data`] and [`cvt`] (§9.7.9), [`video`] (§9.7.18); all floating point on
//!   [`float`] (formats, the rounding engine, IEEE operations, `.ftz`/`.sat`/`.relu`/NaN rules).
//! - [`eval`]: the dispatch from a form to its function, and the `ptxconf eval` text front end.
//! - Results are [`value::Outcome`]s: a model value and the set of results the manual allows;
//!   [`vector`] is their text form in golden-vector files.

pub mod approx;
pub mod atom;
pub mod catalog;
pub mod compare;
pub mod cvt;
pub mod data;
pub mod eval;
pub mod extended;
pub mod float;
pub mod fp;
pub mod half;
pub mod int;
pub mod logic;
pub mod types;
pub mod value;
pub mod vector;
pub mod video;
pub mod warp;
