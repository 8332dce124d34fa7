//! Any text given to the `ptxconf eval` front end yields a result or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        for line in s.lines() {
            let _ = spec::eval::eval_line(line);
        }
    }
});
