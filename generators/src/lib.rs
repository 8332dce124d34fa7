//! Operand generators (TestFloat-style hard cases, exhaustive, random) and random well-typed PTX
//! programs, valid by construction, driven by the `spec` catalog.
//!
//! Empty for now: built by the golden-vector (#5) and program-generator (#6) issues.
