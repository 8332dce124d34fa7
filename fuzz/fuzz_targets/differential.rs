//! A generated program on the oracle and on the backend named by `PTXCONF_FUZZ_BACKEND`
//! (default `oracle`), judged by `ptxconf::judge::compare`; a mismatch panics with the program,
//! its launch and the mismatches. Body: `bodies/programs.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../bodies/programs.rs"]
mod body;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = body::differential(data) {
        panic!("{finding}");
    }
});
