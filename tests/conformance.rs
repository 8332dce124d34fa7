//! The conformance suite on the built-in oracle under libtest-mimic, through the same call a
//! third-party implementation uses ([`ptxconf::trials`]): one test per form with golden vectors,
//! named by its form key, its kind the §9.7 family. The usual test-harness arguments work:
//! `cargo test --test conformance -- add.rn`, `-- --list`, `-- --format json`, `--exact`,
//! `--skip`, `--test-threads`.

use ptxconf::backend::{oracle::Oracle, Options};
use ptxconf::trials::Suite;
use ptxconf::vectors;
use std::path::Path;

fn main() {
    let oracle = Oracle::new(&Options {
        jobs: 1,
        ..Options::default()
    });
    Suite::at(&Path::new(env!("CARGO_MANIFEST_DIR")).join(vectors::DEFAULT_DIR)).run(oracle)
}
