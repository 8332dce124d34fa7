//! Any bytes through the PTX front end (parse, then type-check): a module or a located error,
//! never a panic. Body: `ptxconf::fuzz_targets::parse`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = ptxconf::fuzz_targets::parse(data) {
        panic!("{finding}");
    }
});
