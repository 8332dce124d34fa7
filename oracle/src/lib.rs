//! The PTX oracle: PTX text → AST → type-checked program → execution, built on the `spec` crate.
//!
//! Empty for now: the front end and the interpreter are built by the oracle issue (#4). The crate
//! exists so the workspace has its final shape and later work lands in place.
