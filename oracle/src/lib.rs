//! The PTX oracle: PTX text → AST → type-checked program → execution, built on the `spec` crate.
//!
//! Built by the oracle issue (#4), stage by stage along the data flow:
//! - [`lex`]: tokens with line and column (done);
//! - the parser, printer, type checker and interpreter follow.

pub mod lex;
