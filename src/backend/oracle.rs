//! The built-in oracle as a backend: the interpreter of `ptxconf run`, in process.

use super::{Backend, Buffers, Caps, Failure, Job, Options};
use spec::catalog::PtxVersion;

/// The `oracle` backend: every target, PTX ISA up to 8.7, every form of the manual's grammar
/// (those ptxas rejects included); the interpreter's type checker enforces each kernel's own
/// `.target` and `.version`.
pub struct Oracle {
    caps: Caps,
    jobs: usize,
}

impl Oracle {
    /// The oracle, running up to `opts.jobs` launches at once.
    pub fn new(opts: &Options) -> Oracle {
        Oracle {
            // The oracle runs every target and version the catalog knows; its type checker
            // enforces each kernel's own `.target` and `.version`.
            caps: Caps {
                target: None,
                ptx: PtxVersion(8, 7),
                families: None,
                rejects: None,
                // Every construct of the manual's grammar.
                lacks: Default::default(),
            },
            jobs: opts.jobs.max(1),
        }
    }
}

/// The oracle's answer to the `cmd:` protocol's `--capabilities` question
/// ([`super::cmd::capabilities`]), which `ptxconf run --capabilities` prints: every target (no
/// `target`), PTX ISA up to 8.7, every family, nothing lacking.
pub fn capabilities_json() -> String {
    let caps = Oracle::new(&Options::default()).caps;
    serde_json::json!({
        "name": format!("ptxconf {} oracle", env!("CARGO_PKG_VERSION")),
        "target": caps.target.map(|t| t.to_string()),
        "ptx": caps.ptx.to_string(),
        "families": caps.families,
        "lacks": caps.lacks.iter().map(|f| f.name()).collect::<Vec<_>>(),
    })
    .to_string()
}

impl Backend for Oracle {
    fn name(&self) -> String {
        "oracle".into()
    }
    fn describe(&self) -> String {
        format!(
            "ptxconf {} built-in oracle (PTX ISA 8.7 interpreter)",
            env!("CARGO_PKG_VERSION")
        )
    }
    fn caps(&self) -> &Caps {
        &self.caps
    }
    fn parallel(&self) -> usize {
        self.jobs
    }
    fn run(&self, job: &Job) -> Result<Buffers, Failure> {
        // The suite's kernels test the semantics of every form of the manual's grammar, those
        // ptxas 12.9 refuses included.
        let mut l = job.launch("kernel.ptx");
        l.grammar = oracle::check::Grammar::Manual;
        oracle::launch::run(&l, &job.ptx)
            .map(|(bufs, _)| bufs)
            .map_err(|e| match e.kind {
                // A defect of the oracle itself, not a verdict on the kernel.
                oracle::error::ErrorKind::Internal => Failure::Crashed(e.to_string()),
                _ => Failure::Rejected {
                    kind: e.kind.name().to_string(),
                    message: e.to_string(),
                },
            })
    }
}
