//! The executable PTX ISA 8.7 specification.
//!
//! - [`catalog`]: every instruction form of §9.7 in one table, expanded from compact descriptions.
//! - One pure function per instruction over bit patterns, grouped by the manual's families:
//!   [`int`] (§9.7.1), [`extended`] (§9.7.2), [`compare`] (§9.7.6), [`logic`] (§9.7.8),
//!   [`data`] (§9.7.9), [`video`] (§9.7.18).
//! - [`eval`]: the dispatch from a form to its function, and the `ptxconf eval` text front end.
//! - Results are [`value::Outcome`]s: a model value and the set of results the manual allows.

pub mod catalog;
pub mod compare;
pub mod data;
pub mod eval;
pub mod extended;
pub mod int;
pub mod logic;
pub mod types;
pub mod value;
pub mod video;
