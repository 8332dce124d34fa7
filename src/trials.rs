//! A backend's conformance suite as a libtest-mimic trial list (feature `trials`): what a PTX
//! implementation (a compiler, an emulator, a driver) calls from its own `cargo test` to be judged
//! on every form's golden vectors.
//!
//! One trial per form with golden vectors, named by its form key (`add.rn.f32`), its kind the §9.7
//! family id; a trial fails with the form's first mismatches (vector, expected acceptance set,
//! what the backend returned). A form the backend declares it cannot run ([`Caps`]) is an ignored
//! trial, and so is every form a [`Suite::every`] sample leaves out; a form the backend refuses as
//! ptxas 12.9 refuses it passes (it is not judged). The usual harness arguments work: `-- add.rn`,
//! `--list`, `--exact`, `--skip`, `--include-ignored`, `--test-threads`, `--format json`.
//!
//! A test target with `harness = false` in the implementation's `Cargo.toml`:
//!
//! ```no_run
//! use ptxconf::backend::{cmd::Cmd, Options};
//!
//! fn main() {
//!     // Any program speaking `ptxconf run`'s launch protocol: launch JSON in, buffers out.
//!     let emulator = Cmd::new("my-emulator --quiet", &Options::default()).expect("the emulator runs");
//!     ptxconf::trials::Suite::golden().expect("golden vectors").run(emulator)
//! }
//! ```
//!
//! [`Caps`]: crate::backend::Caps

use crate::backend::Backend;
use crate::conform::{check_form, FormVectors, Settings, Status};
use crate::vectors::{self, VectorsError};
use libtest_mimic::{Arguments, Failed, Trial};
use spec::catalog::catalog;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a [`Suite`] could not be made or turned into trials.
#[derive(Debug)]
pub enum SuiteError {
    /// No golden-vector directory was found.
    NotFound {
        /// The places looked in.
        looked: Vec<PathBuf>,
    },
    /// The golden-vector directory could not be listed.
    List(VectorsError),
    /// The directory has no golden-vector files.
    Empty {
        /// The directory.
        dir: PathBuf,
    },
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SuiteError::NotFound { looked } => write!(
                f,
                "no golden vectors ({}) found; looked in {}",
                vectors::DEFAULT_DIR,
                crate::corpus::looked_in(looked)
            ),
            SuiteError::List(e) => write!(f, "{e}"),
            SuiteError::Empty { dir } => write!(f, "no golden vectors in {}", dir.display()),
        }
    }
}

impl std::error::Error for SuiteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SuiteError::List(e) => Some(e),
            SuiteError::NotFound { .. } | SuiteError::Empty { .. } => None,
        }
    }
}

impl From<VectorsError> for SuiteError {
    fn from(e: VectorsError) -> SuiteError {
        SuiteError::List(e)
    }
}

/// The golden vectors to run and how to judge them.
#[derive(Clone, Debug)]
pub struct Suite {
    /// The golden-vector directory (`corpus/vectors`: family folders of `FORM.vec.gz`).
    pub dir: PathBuf,
    /// How each form is run and judged (vectors per launch, mismatches shown).
    pub settings: Settings,
    /// Run every `every`-th form (in file order); the others are ignored trials, run by
    /// `--include-ignored`. 1: every form.
    pub every: usize,
}

impl Suite {
    /// The repository's golden vectors, found as `ptxconf conform` finds them (the working
    /// directory, the executable's ancestors, the ptxconf source tree, or `$PTXCONF_CORPUS`).
    pub fn golden() -> Result<Suite, SuiteError> {
        let found = crate::corpus::vectors().map_err(|looked| SuiteError::NotFound { looked })?;
        Ok(Suite::at(&found.dir))
    }

    /// The golden vectors under `dir`.
    pub fn at(dir: &Path) -> Suite {
        Suite {
            dir: dir.to_path_buf(),
            settings: Settings::default(),
            every: 1,
        }
    }

    /// Runs only every `n`-th form by default (a sample across all families for a quick CI
    /// run); the rest stay in the list as ignored trials.
    pub fn every(mut self, n: usize) -> Suite {
        self.every = n.max(1);
        self
    }

    /// One trial per form with golden vectors, in file order (family, then form key).
    pub fn trials(&self, backend: Arc<dyn Backend>) -> Result<Vec<Trial>, SuiteError> {
        let cat = catalog();
        let paths = vectors::list(&self.dir)?;
        if paths.is_empty() {
            return Err(SuiteError::Empty { dir: self.dir.clone() });
        }
        Ok(paths
            .into_iter()
            .enumerate()
            .map(|(k, path)| {
                let key = vectors::key_of(&path).unwrap_or("?").to_string();
                let form = spec::vector::form_by_key(&key).map(|i| &cat.forms[i]);
                let family = form.map_or("?", |f| cat.family_of(f).id).to_string();
                let unsupported = form.and_then(|f| backend.caps().unsupported(f)).is_some();
                let backend = Arc::clone(&backend);
                let settings = self.settings.clone();
                Trial::test(key, move || judge(&*backend, &path, &settings))
                    .with_kind(family)
                    .with_ignored_flag(unsupported || k % self.every != 0)
            })
            .collect())
    }

    /// Runs the trials under the command line's harness arguments and exits with the result
    /// (the body of a `harness = false` test's `main`).
    pub fn run(&self, backend: impl Backend + 'static) -> ! {
        let args = Arguments::from_args();
        let trials = self.trials(Arc::new(backend)).unwrap_or_else(|e| {
            eprintln!("ptxconf: {e}");
            std::process::exit(101)
        });
        libtest_mimic::run(&args, trials).exit()
    }
}

/// One form's trial: its vectors run on the backend and judged by their acceptance sets.
fn judge(backend: &dyn Backend, path: &Path, settings: &Settings) -> Result<(), Failed> {
    let file = vectors::load(path).map_err(|e| Failed::from(format!("{}: {e}", path.display())))?;
    let fv = FormVectors {
        form: file.form,
        vectors: file.vectors,
        source: path.display().to_string(),
    };
    let r = check_form(backend, &fv, settings);
    match r.status {
        Status::Passed => Ok(()),
        Status::Skipped if r.refused => Ok(()),
        Status::Skipped => Err(format!("skipped: {}", r.reason.unwrap_or_default()).into()),
        Status::Failed => {
            let mut msg = format!("{} of {} vectors wrong", r.failed, r.vectors);
            if let Some(why) = r.reason {
                msg.push_str(&format!("\n{why}"));
            }
            for m in r.mismatches {
                msg.push_str(&format!(
                    "\nvector {}: {}\n  got {}",
                    m.index,
                    m.vector,
                    m.actual.join(" ")
                ));
            }
            Err(msg.into())
        }
    }
}
