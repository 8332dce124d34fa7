//! A generated program runs on the oracle without an error, and twice gives the same bytes.
//! Body: `bodies/programs.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../bodies/programs.rs"]
mod body;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = body::oracle_run(data) {
        panic!("{finding}");
    }
});
