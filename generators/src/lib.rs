//! Operand generators (TestFloat-style hard cases, exhaustive, random) and random well-typed PTX
//! programs, valid by construction, driven by the `spec` catalog.
//!
//! - [`float`]: deterministic operand generators for binary float formats and integers (hard
//!   cases, uniformly random and structured random operands, nearby pairs, fma triples). They
//!   drive the SoftFloat cross-check of the spec's floating-point semantics (`tests/softfloat.rs`).
//! - [`edges`]: every ordered pair (triple) of ±0, ±∞ and a quiet NaN over a form's float
//!   sources, part of every golden-vector set of a two- or three-operand float form.
//! - [`vectors`]: golden vectors, the operand sets of one catalog form and the spec's outcomes on
//!   them (issue 5).
//! - [`matrix`]: golden vectors of the matrix multiply-accumulate forms, whole matrices each.
//! - [`wmma`]: golden vectors of `wmma.load`/`wmma.store`, a round trip through `wmma.mma`.
//! - [`program`]: random well-typed PTX programs whose results the manual determines, with their
//!   launch and signature layout: the input of differential fuzzing (issue 6).

#![deny(missing_docs)]

pub mod edges;
pub mod float;
pub mod matrix;
pub mod movement;
pub mod program;
pub mod refused;
pub mod scaled;
pub mod vectors;
pub mod wgctl;
pub mod wmma;
