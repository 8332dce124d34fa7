//! Finding — or installing — and running NVIDIA's `ptxas` (a CPU-only assembler, in the
//! `nvidia-cuda-nvcc-cu12` wheel on PyPI), the independent judge of whether PTX text is valid: the
//! type checker's differential test, the conformance kernels' test and the generator's test use
//! it.
//!
//! Looked up in `$PTXAS`, then `PATH`, then the site-packages of `python3` (where `pip install
//! nvidia-cuda-nvcc-cu12` puts it), then the suite's own cache. When none has it, [`required`]
//! installs the pinned wheel ([`WHEEL`] [`WHEEL_VERSION`]: the suite's expectations are recorded
//! against ptxas 12.9) into the cache with `python3 -m pip install --target`, so `cargo test` passes
//! on a machine that has never seen ptxas. The cache is `$PTXCONF_CACHE`, else
//! `$XDG_CACHE_HOME/ptxconf`, else `~/.cache/ptxconf`; several test binaries may want it at once, so
//! the install holds a lock directory and lands by renaming a finished temporary directory.
//!
//! `PTXCONF_NO_PTXAS=1` skips the tests that need ptxas when none is found (nothing is installed);
//! `PTXCONF_PTXAS_NO_SITE=1` ignores python's site-packages (to exercise the install on a machine
//! that has the wheel).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

/// The PyPI package that carries `ptxas`.
pub const WHEEL: &str = "nvidia-cuda-nvcc-cu12";
/// The version installed into the cache: the suite's expectations (`corpus/findings/`, the type
/// checker's table) are recorded against this ptxas.
pub const WHEEL_VERSION: &str = "12.9.86";
/// The ptxas release (`ptxas --version`: "release 12.9") the expectations are for.
pub const RELEASE: &str = "12.9";

/// Where the pip wheel puts `ptxas`, for every site-packages directory python3 knows.
fn wheel_candidates() -> Vec<PathBuf> {
    let mut v = Vec::new();
    let py = |code: &str| {
        Command::new("python3")
            .args(["-c", code])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    // `nvidia.cuda_nvcc` is a namespace package in recent wheels: `__file__` is None there.
    if let Some(dir) = py(
        "import nvidia.cuda_nvcc as m, os; print(os.path.dirname(m.__file__) if m.__file__ else list(m.__path__)[0])",
    ) {
        v.push(Path::new(&dir).join("bin/ptxas"));
    }
    if let Some(list) = py("import site; print('\\n'.join(site.getsitepackages() + [site.getusersitepackages()]))") {
        for d in list.lines() {
            v.push(Path::new(d.trim()).join("nvidia/cuda_nvcc/bin/ptxas"));
        }
    }
    v
}

fn env_set(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// The suite's cache directory: `$PTXCONF_CACHE`, else `$XDG_CACHE_HOME/ptxconf`, else
/// `~/.cache/ptxconf` (`None` without any of `PTXCONF_CACHE`, `XDG_CACHE_HOME`, `HOME`).
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = env_set("PTXCONF_CACHE") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = env_set("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("ptxconf"));
    }
    env_set("HOME").map(|h| PathBuf::from(h).join(".cache").join("ptxconf"))
}

/// The directory the pinned wheel is installed into under `cache`.
fn install_dir(cache: &Path) -> PathBuf {
    cache.join(format!("{WHEEL}-{WHEEL_VERSION}"))
}

/// The ptxas of the wheel installed under `dir` (`pip install --target dir`).
fn ptxas_in(dir: &Path) -> PathBuf {
    dir.join("nvidia/cuda_nvcc/bin/ptxas")
}

/// The ptxas in the suite's cache, if installed.
pub fn cached() -> Option<PathBuf> {
    let p = ptxas_in(&install_dir(&cache_dir()?));
    p.is_file().then_some(p)
}

/// The ptxas to use, if there is one: `$PTXAS`, `PATH`, python's site-packages (unless
/// `PTXCONF_PTXAS_NO_SITE=1`), the suite's cache. Installs nothing.
pub fn find() -> Option<PathBuf> {
    if let Some(p) = env_set("PTXAS") {
        return Some(PathBuf::from(p));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for d in std::env::split_paths(&path) {
            let p = d.join("ptxas");
            if p.is_file() {
                return Some(p);
            }
        }
    }
    if std::env::var("PTXCONF_PTXAS_NO_SITE").as_deref() != Ok("1") {
        if let Some(p) = wheel_candidates().into_iter().find(|p| p.is_file()) {
            return Some(p);
        }
    }
    cached()
}

/// What to do when ptxas cannot be had, for error messages.
fn remedy(cache: Option<&Path>) -> String {
    let target = cache.map_or_else(|| "<cache>".to_string(), |c| install_dir(c).display().to_string());
    format!(
        "the automatic install needs python3 with pip and access to PyPI (or a pip index or \
         find-links holding the wheel); otherwise install it by hand with `python3 -m pip install \
         --target {target} {WHEEL}=={WHEEL_VERSION}` (or `pip install {WHEEL}=={WHEEL_VERSION}`), \
         point $PTXAS at a ptxas {RELEASE} binary, or set PTXCONF_NO_PTXAS=1 to skip the tests that \
         need it"
    )
}

/// Why [`install`] could not install the pinned wheel's ptxas.
#[derive(Debug)]
pub enum InstallError {
    /// None of `PTXCONF_CACHE`, `XDG_CACHE_HOME`, `HOME` is set.
    NoCacheDir,
    /// The cache directory could not be created.
    CreateCache {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Another process held the install lock for longer than any install takes.
    LockTimeout {
        /// The lock directory.
        path: PathBuf,
    },
    /// The install lock could not be created.
    CreateLock {
        /// The lock directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// `python3 -m pip` could not be started.
    RunPip {
        /// The I/O error.
        source: std::io::Error,
    },
    /// `pip install` failed.
    PipFailed {
        /// The temporary directory it installed into.
        target: PathBuf,
        /// Its exit status.
        status: ExitStatus,
        /// The last lines it printed (stderr, then stdout), in order.
        tail: Vec<String>,
    },
    /// The wheel installed, but holds no ptxas where expected.
    NoPtxas {
        /// Where ptxas was expected.
        path: PathBuf,
    },
    /// The finished install could not be moved into place.
    Rename {
        /// The temporary directory.
        from: PathBuf,
        /// The install directory.
        to: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl fmt::Display for InstallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstallError::NoCacheDir => f.write_str("no cache directory: set PTXCONF_CACHE, XDG_CACHE_HOME or HOME"),
            InstallError::CreateCache { path, source } => write!(f, "cannot create {}: {source}", path.display()),
            InstallError::LockTimeout { path } => {
                write!(f, "gave up waiting for the install lock {}", path.display())
            }
            InstallError::CreateLock { path, source } => {
                write!(f, "cannot create the lock {}: {source}", path.display())
            }
            InstallError::RunPip { source } => write!(f, "cannot run `python3 -m pip`: {source}"),
            InstallError::PipFailed { target, status, tail } => write!(
                f,
                "`python3 -m pip install --target {} {WHEEL}=={WHEEL_VERSION}` failed ({status}):\n  {}",
                target.display(),
                tail.join("\n  ")
            ),
            InstallError::NoPtxas { path } => {
                write!(f, "{WHEEL}=={WHEEL_VERSION} installed, but has no {}", path.display())
            }
            InstallError::Rename { from, to, source } => {
                write!(f, "cannot move {} to {}: {source}", from.display(), to.display())
            }
        }
    }
}

impl std::error::Error for InstallError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InstallError::CreateCache { source, .. }
            | InstallError::CreateLock { source, .. }
            | InstallError::RunPip { source }
            | InstallError::Rename { source, .. } => Some(source),
            InstallError::NoCacheDir
            | InstallError::LockTimeout { .. }
            | InstallError::PipFailed { .. }
            | InstallError::NoPtxas { .. } => None,
        }
    }
}

/// A lock held as a directory (`mkdir` is atomic): released on drop.
struct LockDir(PathBuf);

impl Drop for LockDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether a lock directory was left behind: its owner (pid in `owner`) is gone, or it is older
/// than any install takes.
fn stale(lock: &Path) -> bool {
    let pid = std::fs::read_to_string(lock.join("owner"))
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok());
    if let Some(pid) = pid {
        if Path::new("/proc").is_dir() && !Path::new(&format!("/proc/{pid}")).exists() {
            return true;
        }
    }
    let age = std::fs::metadata(lock)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok());
    // No owner file yet: the owner is between `mkdir` and writing it, unless that was long ago.
    age.is_some_and(|a| a > Duration::from_secs(if pid.is_some() { 20 * 60 } else { 60 }))
}

/// Takes the install lock, or returns `Ok(None)` when another process finished the install while
/// this one waited.
fn lock(cache: &Path, done: &Path) -> Result<Option<LockDir>, InstallError> {
    let path = cache.join(format!("{WHEEL}-{WHEEL_VERSION}.lock"));
    let t0 = Instant::now();
    let mut said = false;
    loop {
        if done.is_file() {
            return Ok(None);
        }
        match std::fs::create_dir(&path) {
            Ok(()) => {
                let _ = std::fs::write(path.join("owner"), std::process::id().to_string());
                return Ok(Some(LockDir(path)));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if stale(&path) {
                    eprintln!("ptxas: removing the stale install lock {}", path.display());
                    let _ = std::fs::remove_dir_all(&path);
                    continue;
                }
                if !said {
                    eprintln!(
                        "ptxas: waiting for another process installing {WHEEL} ({})",
                        path.display()
                    );
                    said = true;
                }
                if t0.elapsed() > Duration::from_secs(30 * 60) {
                    return Err(InstallError::LockTimeout { path });
                }
                std::thread::sleep(Duration::from_millis(250));
            }
            Err(source) => return Err(InstallError::CreateLock { path, source }),
        }
    }
}

/// Installs the pinned wheel into the suite's cache (unless there already) and returns its ptxas.
pub fn install() -> Result<PathBuf, InstallError> {
    let cache = cache_dir().ok_or(InstallError::NoCacheDir)?;
    let dir = install_dir(&cache);
    let exe = ptxas_in(&dir);
    std::fs::create_dir_all(&cache).map_err(|source| InstallError::CreateCache {
        path: cache.clone(),
        source,
    })?;
    let Some(_lock) = lock(&cache, &exe)? else {
        return Ok(exe);
    };
    if exe.is_file() {
        return Ok(exe);
    }
    // Holding the lock, any temporary directory left is an interrupted install's.
    let prefix = format!(".{WHEEL}-{WHEEL_VERSION}.tmp-");
    for e in std::fs::read_dir(&cache).into_iter().flatten().flatten() {
        if e.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
    let tmp = cache.join(format!("{prefix}{}", std::process::id()));
    eprintln!(
        "ptxas: not found ($PTXAS, PATH, python's site-packages); installing {WHEEL}=={WHEEL_VERSION} into {}",
        dir.display()
    );
    let t0 = Instant::now();
    let out = Command::new("python3")
        .args(["-s", "-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
        .args(["--no-input", "--no-deps", "--only-binary", ":all:", "--target"])
        .arg(&tmp)
        .arg(format!("{WHEEL}=={WHEEL_VERSION}"))
        // No user site: `--target` alone decides where the files go.
        .env("PYTHONNOUSERSITE", "1")
        .env("PIP_USER", "0")
        .output()
        .map_err(|source| InstallError::RunPip { source })?;
    let fail = |why: InstallError| {
        let _ = std::fs::remove_dir_all(&tmp);
        Err(why)
    };
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
        let said = said.trim();
        let mut tail: Vec<String> = said.lines().rev().take(6).map(str::to_string).collect();
        tail.reverse();
        return fail(InstallError::PipFailed {
            target: tmp.clone(),
            status: out.status,
            tail,
        });
    }
    if !ptxas_in(&tmp).is_file() {
        return fail(InstallError::NoPtxas { path: ptxas_in(&tmp) });
    }
    if let Err(e) = std::fs::rename(&tmp, &dir) {
        // Someone installed it without the lock (by hand): keep theirs.
        if exe.is_file() {
            let _ = std::fs::remove_dir_all(&tmp);
            return Ok(exe);
        }
        return fail(InstallError::Rename {
            from: tmp.clone(),
            to: dir.clone(),
            source: e,
        });
    }
    eprintln!(
        "ptxas: installed {} in {:.1} s",
        exe.display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(exe)
}

/// `ptxas --version`'s release (`12.9`), if it says one.
pub fn release(ptxas: &Path) -> Option<String> {
    let out = Command::new(ptxas).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let rest = text.split("release ").nth(1)?;
    Some(rest.split([',', ' ', '\n']).next()?.trim().to_string())
}

/// The ptxas a test needs, found ([`find`]) or else installed into the cache ([`install`]); its
/// release is printed once, with a notice when it is not [`RELEASE`]. `None` (after a notice
/// naming `test`) only when none is found and `PTXCONF_NO_PTXAS=1` says to skip; failing to
/// install otherwise is an error, so CI cannot pass by silently not checking.
pub fn required(test: &str) -> Option<PathBuf> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let p = match find() {
            Some(p) => p,
            None if std::env::var("PTXCONF_NO_PTXAS").as_deref() == Ok("1") => return None,
            None => install().unwrap_or_else(|e| {
                panic!(
                    "ptxas not found ($PTXAS, PATH, python's site-packages, {}) and installing it failed: {e}\n\
                     To fix: {}",
                    cache_dir().map_or_else(|| "the cache".to_string(), |c| install_dir(&c).display().to_string()),
                    remedy(cache_dir().as_deref())
                )
            }),
        };
        match release(&p) {
            Some(r) if r == RELEASE => eprintln!("ptxas: {} (release {r})", p.display()),
            Some(r) => eprintln!(
                "NOTICE: ptxas at {} is release {r}; the suite's expectations are recorded against {RELEASE} \
                 ({WHEEL}=={WHEEL_VERSION}), so disagreements may be version differences. Point $PTXAS at a \
                 {RELEASE} ptxas, or take {r} off PATH and the tests install {WHEEL_VERSION} into the cache",
                p.display()
            ),
            None => eprintln!("NOTICE: {} --version does not name a release", p.display()),
        }
        Some(p)
    });
    if found.is_none() {
        eprintln!("NOTICE: ptxas not found; PTXCONF_NO_PTXAS=1, so {test} is skipped");
    }
    found.clone()
}

/// `ptxas -arch=sm_ARCH file -o /dev/null` (ARCH: `80`, `90a`): accepted when it exits 0 and says no "error"; the
/// second value is what it said.
pub fn accepts(ptxas: &Path, file: &Path, arch: &str) -> (bool, String) {
    let out = Command::new(ptxas)
        .arg(format!("-arch=sm_{arch}"))
        .arg(file)
        .args(["-o", "/dev/null"])
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", ptxas.display()));
    let err = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    (out.status.success() && !err.to_lowercase().contains("error"), err)
}

/// The forms ptxas 12.9 rejects although the PTX ISA 8.7 grammar has them (form keys, from
/// `corpus/findings/ptxas-12.9-rejects.txt`, [`spec::catalog::Catalog::ptxas_rejects`]): the type
/// checker refuses them unless asked for the manual's grammar, the `cuda` backend skips them and
/// the program generator leaves them out by default. With them, the forms meaningful only in a
/// 32-bit module (the `.u32` `cvta`s, generic `mapa.u32`/`getctarank.u32`), whose conformance
/// kernels are `.address_size 32` modules, which ptxas 12.9 refuses
/// (`corpus/findings/ptxas-12.9-32-bit-addresses.txt`, [`address32_forms`]).
pub fn rejected_forms() -> &'static std::collections::BTreeSet<String> {
    static SET: std::sync::OnceLock<std::collections::BTreeSet<String>> = std::sync::OnceLock::new();
    SET.get_or_init(|| {
        spec::catalog::ptxas_rejects_list()
            .keys()
            .copied()
            .chain(address32_forms())
            .map(str::to_string)
            .collect()
    })
}

/// The form keys of `corpus/findings/ptxas-12.9-32-bit-addresses.txt`: forms whose conformance
/// kernels are 32-bit modules (its `KEY MESSAGE` lines).
pub fn address32_forms() -> impl Iterator<Item = &'static str> {
    include_str!("../../corpus/findings/ptxas-12.9-32-bit-addresses.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lock whose owner is gone is stale; one held by a live process is not.
    #[test]
    fn stale_locks() {
        let d = std::env::temp_dir().join(format!("ptxconf-lock-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("owner"), std::process::id().to_string()).unwrap();
        assert!(!stale(&d));
        // pid_max is at most 2^22 on Linux.
        std::fs::write(d.join("owner"), "4194999").unwrap();
        assert_eq!(stale(&d), Path::new("/proc").is_dir());
        let _ = std::fs::remove_dir_all(&d);
    }
}
