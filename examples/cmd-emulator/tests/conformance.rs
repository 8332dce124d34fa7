//! ptxconf's conformance suite against a command-line PTX emulator: `cargo test` runs a sample of
//! every family, `cargo test -- --include-ignored` all ~7,800 forms, `cargo test -- cvt.rn` some.

use ptxconf::backend::{cmd::Cmd, Options};
use ptxconf::trials::Suite;

fn main() {
    // The emulator: any program that takes a launch file and prints the buffers after the run (the
    // protocol of `ptxconf run`). `$EMULATOR` names one; by default ptxconf's own `ptxconf run`,
    // built beside this test in the workspace's target directory, stands in for it. Asked
    // `--capabilities` first, it may answer with its target, PTX version, families and what it
    // lacks (`{"ptx": "7.1", "lacks": ["brx.idx"]}`: module `ptxconf::backend::cmd::capabilities`);
    // `ptxconf run --capabilities` answers for the oracle (every target, nothing lacking).
    let ptxconf = std::env::current_exe().unwrap().with_file_name("../ptxconf");
    let program = std::env::var("EMULATOR").unwrap_or(format!("{} run", ptxconf.display()));
    let emulator = Cmd::new(&program, &Options::default()).expect("the emulator (`cargo build` first)");
    Suite::golden().expect("golden vectors").every(20).run(emulator)
}
