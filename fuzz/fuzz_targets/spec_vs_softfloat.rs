//! The spec's IEEE operations (add … sqrt, cvt) against Berkeley SoftFloat, bit for bit.
//! Body: `bodies/spec_vs_softfloat.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../bodies/spec_vs_softfloat.rs"]
mod body;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = body::spec_vs_softfloat(data) {
        panic!("{finding}");
    }
});
