//! Text that parses prints to text that parses to the same module, and printing is a fixed point.
//! Body: `ptxconf::fuzz_targets::roundtrip`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = ptxconf::fuzz_targets::roundtrip(data) {
        panic!("{finding}");
    }
});
