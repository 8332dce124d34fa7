//! Stands for the implementation under test (an emulator, a compiler driver): ptxconf judges it
//! through the program its tests name (tests/conformance.rs), so this crate needs no code of its
//! own.
