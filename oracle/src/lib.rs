//! The PTX oracle: PTX text → AST → type-checked program → execution, built on the `spec` crate.
//!
//! Built by the oracle issue (#4), stage by stage along the data flow:
//! - [`lex`]: tokens with line and column;
//! - [`parse`]: tokens to the [`ast`] of a module, errors located;
//! - [`print`]: the AST back to PTX text that parses to the same AST;
//! - the type checker and the interpreter follow.

pub mod ast;
pub mod lex;
pub mod parse;
pub mod print;
