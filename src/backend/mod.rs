//! Backends: what runs a conformance kernel. A [`Job`] is one kernel launch (PTX text, entry,
//! geometry, buffers); a backend runs it and returns every buffer's bytes afterwards.
//!
//! - `oracle`: the built-in interpreter, in process ([`oracle`]);
//! - `cuda[:LIB]`: any library exposing the CUDA driver API, loaded at run time (`cuda`, with
//!   feature `cuda`), in worker processes of the `ptxconf` binary ([`cuda::pool`]) or in this
//!   process ([`cuda::Cuda`]);
//! - `cmd:PROGRAM`: an external process speaking the launch protocol of `ptxconf run`
//!   (launch JSON in, result JSON out), with a per-launch timeout, that may declare its
//!   capabilities when asked with `--capabilities` ([`cmd`]).
//!
//! A backend's [`Caps`] say which forms it can run and which [`Feature`]s of PTX it lacks; the
//! suite's kernels do without what a backend lacks (`brx.idx`: [`crate::kernel::Dispatch`]).

pub mod cmd;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod oracle;

use spec::catalog::{Form, PtxVersion, Target};
use std::collections::BTreeSet;
use std::fmt;

/// One buffer of a launch (`hex`: initial bytes, or `size`: zeroed) and one kernel parameter (a
/// buffer's device address, or a scalar): the launch file's own types.
pub use ::oracle::launch::{BufferSpec as JobBuffer, LaunchFile, ParamSpec as JobParam};

/// One launch, in the shape of `ptxconf run`'s launch file (with the PTX text instead of a path).
#[derive(Clone, Debug)]
pub struct Job {
    /// The kernel's PTX module text.
    pub ptx: String,
    /// The `.entry` to launch.
    pub entry: String,
    /// Grid dimensions, in CTAs (x, y, z).
    pub grid: [u32; 3],
    /// CTA dimensions, in threads (x, y, z).
    pub block: [u32; 3],
    /// The buffers, allocated before the launch and read back after it.
    pub buffers: Vec<JobBuffer>,
    /// The kernel's parameters, in declaration order.
    pub params: Vec<JobParam>,
    /// Dynamic shared memory per CTA, in bytes.
    pub shared_bytes: u32,
    /// CTAs per cluster given at launch (`LaunchFile::cluster`), if any.
    pub cluster: Option<[u32; 3]>,
}

impl Job {
    /// The job of a launch file whose PTX text is `ptx`.
    pub fn from_launch(l: &LaunchFile, ptx: String) -> Job {
        Job {
            ptx,
            entry: l.entry.clone(),
            grid: l.grid,
            block: l.block,
            buffers: l.buffers.clone(),
            params: l.params.clone(),
            shared_bytes: l.shared_bytes,
            cluster: l.cluster,
        }
    }

    /// The launch file `ptxconf run` reads, naming the PTX as `ptx_file` (relative to the launch
    /// file).
    pub fn launch(&self, ptx_file: &str) -> LaunchFile {
        LaunchFile {
            ptx: ptx_file.to_string(),
            entry: self.entry.clone(),
            grid: self.grid,
            block: self.block,
            buffers: self.buffers.clone(),
            params: self.params.clone(),
            shared_bytes: self.shared_bytes,
            cluster: self.cluster,
            limits: None,
            check: None,
            grammar: Default::default(),
        }
    }

    /// [`Job::launch`] as JSON.
    pub fn launch_json(&self, ptx_file: &str) -> String {
        self.launch(ptx_file).to_json()
    }
}

/// Every buffer after the run, in launch order.
pub type Buffers = Vec<(String, Vec<u8>)>;

/// Why a launch gave no result.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// The backend cannot run anything here (no driver, no device); its forms are skipped.
    Unavailable(String),
    /// The implementation rejected or failed the kernel (`kind`: parse, type, launch, runtime,
    /// limit, or the driver's error name) — a failed form, with the message it gave.
    Rejected {
        /// The error's class: `parse`, `type`, `launch`, `runtime`, `limit`, or a driver's
        /// error name.
        kind: String,
        /// The implementation's message.
        message: String,
    },
    /// No reply within the per-launch timeout.
    Timeout {
        /// The timeout that ran out, in seconds.
        seconds: f64,
    },
    /// The process died or the library misbehaved (signal, exit without a reply).
    Crashed(String),
    /// A reply that does not follow the protocol.
    Malformed(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Unavailable(m) => write!(f, "unavailable: {m}"),
            Failure::Rejected { kind, message } => write!(f, "{kind} error: {message}"),
            Failure::Timeout { seconds } => write!(f, "no reply within {seconds} s"),
            Failure::Crashed(m) => write!(f, "crashed: {m}"),
            Failure::Malformed(m) => write!(f, "malformed reply: {m}"),
        }
    }
}

/// A construct of PTX that the suite's own scaffolding uses and an implementation may lack; a
/// backend that declares it lacks one gets kernels without it, so its forms are judged on their
/// instruction rather than on the scaffolding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Feature {
    /// `brx.idx` with a `.branchtargets` list (§9.7.12.4, L16732-16751; §11.3.1, L33629-33641):
    /// the conformance kernels dispatch their operand variants through it. Without it they use
    /// predicated `bra` (L16694) in a binary search ([`crate::kernel::Dispatch::Branches`]).
    /// Protocol name `brx.idx`.
    BrxIdx,
    /// The SIMD video byte selector `.b1024` (`.bxyzw`, x-w in 0-7, §9.7.18.2.3, L31433), which
    /// NVIDIA's assembler reads as the type `.b1024` of `tensormap.replace` and refuses
    /// (corpus/findings/ptxas-12.9-rejects.txt). Without it the kernels permute the source
    /// register's bytes with `prmt` and write a selector naming the same bytes
    /// (`src/kernel/selector.rs`). Protocol name `sel.b1024`.
    SelB1024,
}

impl Feature {
    /// Every feature, in protocol-name order.
    pub const ALL: [Feature; 2] = [Feature::BrxIdx, Feature::SelB1024];

    /// The name a `cmd:` program's `--capabilities` answer uses (`brx.idx`).
    pub fn name(self) -> &'static str {
        match self {
            Feature::BrxIdx => "brx.idx",
            Feature::SelB1024 => "sel.b1024",
        }
    }

    /// The feature of a protocol name, or `None` for a name ptxconf does not know.
    pub fn parse(name: &str) -> Option<Feature> {
        Feature::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a backend can run: kernels whose `.target` and `.version` it accepts, in the families it
/// lists (`None`: all), without the [`Feature`]s it lacks.
#[derive(Clone, Debug)]
pub struct Caps {
    /// The device's architecture; `a`/`f` suffixed forms need the same suffix and number.
    /// `None`: every target (the oracle).
    pub target: Option<Target>,
    /// The newest PTX ISA version the implementation accepts.
    pub ptx: PtxVersion,
    /// §9.7 family ids (`9.7.3`) it implements, or `None` for every family.
    pub families: Option<Vec<String>>,
    /// Forms it is known to reject although the manual's grammar has them (form keys), and why.
    pub rejects: Option<(&'static BTreeSet<String>, &'static str)>,
    /// The constructs it lacks, which the suite's kernels then do without (empty: none, as for
    /// the oracle and a CUDA driver).
    pub lacks: BTreeSet<Feature>,
}

impl Caps {
    /// Whether the implementation lacks `feature`.
    pub fn lacks(&self, feature: Feature) -> bool {
        self.lacks.contains(&feature)
    }

    /// Why `form` cannot run here, or `None` when it can.
    pub fn unsupported(&self, form: &Form) -> Option<String> {
        // A device runs its own architecture's specific code (a plain sm_90 GPU takes
        // `.target sm_90a`), so a backend's target is read with the `a` suffix; without one
        // (the oracle) every target is taken, and only the PTX version can rule a form out.
        let any = PtxVersion(u8::MAX, u8::MAX);
        match self.target {
            Some(t) => {
                let device = Target {
                    sm: t.sm,
                    suffix: Some(t.suffix.unwrap_or('a')),
                };
                if !form.available(any, device) {
                    return Some(format!("needs {}, backend is {t}", form.requirement()));
                }
                if !form.available(self.ptx, device) {
                    return Some(format!(
                        "needs {}, backend accepts PTX up to {}",
                        form.requirement(),
                        self.ptx
                    ));
                }
            }
            None if form.ptx > self.ptx => {
                return Some(format!("needs PTX {}, backend accepts up to {}", form.ptx, self.ptx));
            }
            None => {}
        }
        // (A form the manual forbids is run all the same: its vector is that it is refused.)
        if let Some((keys, why)) = self.rejects.filter(|_| spec::vector::refused::columns(form).is_none()) {
            if keys.contains(&spec::vector::form_key(form)) {
                return Some(why.to_string());
            }
        }
        if let Some(fams) = &self.families {
            let fam = spec::catalog::catalog().family_of(form).id;
            if !fams.iter().any(|f| f == fam) {
                return Some(format!("family {fam} not implemented by the backend"));
            }
        }
        None
    }
}

/// A backend: something that runs [`Job`]s. Implementations are used from several threads at
/// once when they say so ([`Backend::parallel`]).
///
/// # Examples
///
/// An implementation judged on one form's golden vectors (`add.s32`). Its `run` hands the launch
/// to the built-in interpreter, where a real implementation compiles `job.ptx`, fills
/// `job.buffers`, launches `job.entry` and reads every buffer back:
///
/// ```
/// use ptxconf::backend::{oracle::Oracle, Backend, Buffers, Caps, Failure, Job, Options};
/// use ptxconf::conform::{self, Settings, Status};
/// use std::path::Path;
///
/// struct MyImpl {
///     oracle: Oracle,
///     caps: Caps,
/// }
///
/// impl Backend for MyImpl {
///     fn name(&self) -> String {
///         "my-impl".into()
///     }
///     fn describe(&self) -> String {
///         "my PTX implementation 0.1".into()
///     }
///     fn caps(&self) -> &Caps {
///         &self.caps
///     }
///     fn run(&self, job: &Job) -> Result<Buffers, Failure> {
///         self.oracle.run(job)
///     }
/// }
///
/// let oracle = Oracle::new(&Options::default());
/// // Every target, PTX ISA up to 8.7, every family: the oracle's own capabilities.
/// let caps = oracle.caps().clone();
/// let backend = MyImpl { oracle, caps };
///
/// let settings = Settings::default();
/// // The repository's golden vectors (from another crate, `ptxconf::corpus::vectors()` finds
/// // them).
/// let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/vectors/9.7.1/add.s32.vec.gz");
/// let vectors = conform::load(&path, &settings).expect("golden vectors of add.s32");
/// let report = conform::check_form(&backend, &vectors, &settings);
/// assert_eq!(report.form, "add.s32");
/// assert_eq!(report.status, Status::Passed);
/// assert!(report.vectors > 0);
/// assert_eq!((report.passed, report.failed), (report.vectors, 0));
/// ```
///
/// A backend that cannot run anything here (no device) says so with [`Failure::Unavailable`]:
/// its forms are skipped, not failed.
///
/// ```
/// use ptxconf::backend::{oracle::Oracle, Backend, Buffers, Caps, Failure, Job, Options};
/// use ptxconf::conform::{self, Settings, Status};
/// use std::path::Path;
///
/// struct NoDevice(Caps);
///
/// impl Backend for NoDevice {
///     fn name(&self) -> String {
///         "no-device".into()
///     }
///     fn describe(&self) -> String {
///         "a GPU driver without a GPU".into()
///     }
///     fn caps(&self) -> &Caps {
///         &self.0
///     }
///     fn run(&self, _: &Job) -> Result<Buffers, Failure> {
///         Err(Failure::Unavailable("no device".into()))
///     }
/// }
///
/// let backend = NoDevice(Oracle::new(&Options::default()).caps().clone());
/// let settings = Settings::default();
/// let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/vectors/9.7.1/add.s32.vec.gz");
/// let vectors = conform::load(&path, &settings).expect("golden vectors of add.s32");
/// let report = conform::check_form(&backend, &vectors, &settings);
/// assert_eq!(report.status, Status::Skipped);
/// assert_eq!(report.reason.as_deref(), Some("no device"));
/// ```
pub trait Backend: Send + Sync {
    /// The name given on the command line (`oracle`, `cuda`, `cmd:./impl`).
    fn name(&self) -> String;
    /// A description of what runs the kernels, for reports and provenance (GPU, driver, CUDA
    /// version; the program's path).
    fn describe(&self) -> String;
    /// What it can run; the forms it cannot are skipped, not failed.
    fn caps(&self) -> &Caps;
    /// How many launches may run at once.
    fn parallel(&self) -> usize {
        1
    }
    /// Runs one launch.
    fn run(&self, job: &Job) -> Result<Buffers, Failure>;
}

/// The forms ptxas 12.9 rejects although the PTX ISA 8.7 grammar has them: NVIDIA's JIT compiler
/// rejects their kernels, so the `cuda` backend skips them instead of failing them.
pub use ::oracle::ptxas::rejected_forms as ptxas_rejects;

/// A backend with capabilities declared on the command line instead of its own.
pub struct WithCaps {
    /// The backend that runs the launches.
    pub inner: Box<dyn Backend>,
    /// The capabilities reported in place of `inner`'s.
    pub caps: Caps,
}

impl Backend for WithCaps {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn caps(&self) -> &Caps {
        &self.caps
    }
    fn parallel(&self) -> usize {
        self.inner.parallel()
    }
    fn run(&self, job: &Job) -> Result<Buffers, Failure> {
        self.inner.run(job)
    }
}

/// Options shared by the backends that need them.
#[derive(Clone, Debug)]
pub struct Options {
    /// Per-launch timeout for `cmd:` backends, in seconds.
    pub timeout: f64,
    /// Override of the declared target (`--target`); the overrides replace what a backend
    /// declares ([`WithCaps`]), or what a `cmd:` program is taken to support.
    pub target: Option<Target>,
    /// Override of the newest PTX ISA version accepted (`--ptx`).
    pub ptx: Option<PtxVersion>,
    /// Override of the §9.7 families implemented (`--family`).
    pub families: Option<Vec<String>>,
    /// Worker threads for in-process backends; the `cuda` backend's worker processes (at most
    /// [`cuda::pool::DEFAULT_MAX_WORKERS`] unless `PTXCONF_CUDA_WORKERS` says otherwise).
    pub jobs: usize,
    /// A `ptxconf` executable to run the `cuda` backend's worker processes
    /// ([`cuda::pool::Pool`]); `None`: the driver runs in this process ([`cuda::Cuda`]), one
    /// launch at a time, and a sticky error ends the run.
    pub worker_exe: Option<std::path::PathBuf>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            timeout: 60.0,
            target: None,
            ptx: None,
            families: None,
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            worker_exe: None,
        }
    }
}

/// Opens the backend named `spec`: `oracle`, `cuda`, `cuda:LIB`, `cmd:PROGRAM [ARGS...]`.
/// `Err(Failure::Unavailable)` when it cannot run here (no driver), other errors for a bad name.
pub fn open(spec: &str, opts: &Options) -> Result<Box<dyn Backend>, Failure> {
    Ok(if spec == "oracle" {
        Box::new(oracle::Oracle::new(opts))
    } else if spec == "cuda" || spec.starts_with("cuda:") {
        return open_cuda(spec.strip_prefix("cuda:"), opts);
    } else if let Some(prog) = spec.strip_prefix("cmd:") {
        Box::new(cmd::Cmd::new(prog, opts)?)
    } else {
        return Err(Failure::Rejected {
            kind: "usage".into(),
            message: format!("unknown backend `{spec}` (expected oracle, cuda, cuda:LIB or cmd:PROGRAM)"),
        });
    })
}

/// `cuda[:LIB]`: worker processes of `opts.worker_exe` ([`cuda::pool`]), as many as
/// [`cuda::pool::workers`] says; in this process without one, or with `PTXCONF_CUDA_WORKERS=0`.
#[cfg(feature = "cuda")]
fn open_cuda(lib: Option<&str>, opts: &Options) -> Result<Box<dyn Backend>, Failure> {
    let n = cuda::pool::workers(opts.jobs).map_err(|m| Failure::Rejected {
        kind: "usage".into(),
        message: m,
    })?;
    match &opts.worker_exe {
        Some(exe) if n > 0 => Ok(Box::new(cuda::pool::Pool::open(lib, exe, n, opts.timeout)?)),
        _ => Ok(Box::new(cuda::Cuda::open(lib)?)),
    }
}

#[cfg(not(feature = "cuda"))]
fn open_cuda(_: Option<&str>, _: &Options) -> Result<Box<dyn Backend>, Failure> {
    Err(Failure::Unavailable(NO_CUDA.into()))
}

#[cfg(not(feature = "cuda"))]
const NO_CUDA: &str = "this build of ptxconf has no cuda backend (built without the `cuda` feature)";

/// The `cuda-worker` subcommand ([`cuda::worker`]): serves `cuda` jobs on stdin until it
/// closes; returns the exit status.
#[cfg(feature = "cuda")]
pub fn serve_cuda_worker(lib: Option<&str>) -> i32 {
    cuda::worker::serve(lib)
}

/// The `cuda-worker` subcommand of a build without the `cuda` feature: says it is unavailable.
#[cfg(not(feature = "cuda"))]
pub fn serve_cuda_worker(_: Option<&str>) -> i32 {
    println!("{}", serde_json::json!({"hello": "unavailable", "message": NO_CUDA}));
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::catalog::catalog;

    fn form(key: &str) -> &'static Form {
        &catalog().forms[spec::vector::form_by_key(key).unwrap()]
    }

    #[test]
    fn caps_skip_targets_versions_families_and_known_rejections() {
        let mut caps = Caps {
            target: Some(Target::parse("sm_80").unwrap()),
            ptx: PtxVersion(7, 8),
            families: None,
            rejects: Some((ptxas_rejects(), "known")),
            lacks: BTreeSet::new(),
        };
        assert_eq!(caps.unsupported(form("add.rn.f32")), None);
        // sm_90 (bf16 set), PTX 8.6 (sm_100 forms) and sm_90a forms are beyond sm_80 / PTX 7.8.
        assert!(caps
            .unsupported(form("set.eq.bf16.f32"))
            .unwrap()
            .contains("needs PTX ISA 7.8 and sm_90, backend is sm_80"));
        // Architecture-specific forms run on their own architecture only, which a plain sm_100
        // device is (it takes `.target sm_100a`); sm_120 is not.
        let mut sm = |t: &str| {
            caps.target = Target::parse(t);
            caps.ptx = PtxVersion(8, 7);
            caps.unsupported(form("cvt.rs.f16x2.f32"))
        };
        assert_eq!(sm("sm_100"), None);
        assert!(sm("sm_120").unwrap().contains("needs PTX ISA 8.7 and sm_100a"));
        caps.target = Target::parse("sm_80");
        caps.ptx = PtxVersion(7, 8);
        assert!(caps.unsupported(form("set.eq.ftz.f16.u32")).unwrap() == "known");
        caps.families = Some(vec!["9.7.1".into()]);
        assert!(caps.unsupported(form("add.rn.f32")).unwrap().contains("family 9.7.3"));
        assert!(ptxas_rejects().len() > 1000);
        assert!(!ptxas_rejects().contains("add.rn.f32"));
    }
}
