//! Operand generators (TestFloat-style hard cases, exhaustive, random) and random well-typed PTX
//! programs, valid by construction, driven by the `spec` catalog.
//!
//! - [`float`]: deterministic operand generators for binary float formats and integers (hard
//!   cases, uniformly random and structured random operands, nearby pairs, fma triples). They
//!   drive the SoftFloat cross-check of the spec's floating-point semantics (`tests/softfloat.rs`).
//!
//! Program generators are built by the golden-vector (#5) and program-generator (#6) issues.

pub mod float;
pub mod program;
pub mod vectors;
