//! The PTX oracle: PTX text → AST → type-checked program → execution, built on the `spec` crate.
//!
//! Stage by stage along the data flow:
//! - [`lex`]: tokens with line and column;
//! - [`parse`]: tokens to the [`ast`] of a module, errors located;
//! - [`print`](mod@print): the AST back to PTX text that parses to the same AST;
//! - [`check`]: the type checker, decoding the module into a [`program::Program`] once;
//! - [`exec`]: the interpreter (grid, clusters of CTAs ([`cluster`]), warps, threads) over
//!   [`mem`]'s address spaces, with
//!   [`fast`] functions for the hottest value-level forms;
//! - [`launch`]: the launch contract (`ptxconf run LAUNCH.json`).

#![deny(missing_docs)]

pub mod ast;
pub mod check;
pub mod cluster;
pub mod error;
pub mod exec;
pub mod fast;
pub mod launch;
pub mod lex;
pub mod mem;
pub mod parse;
pub mod print;
pub mod program;
pub mod ptxas;
