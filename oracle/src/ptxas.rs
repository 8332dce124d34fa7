//! Finding and running NVIDIA's `ptxas` (a CPU-only assembler, in the `nvidia-cuda-nvcc-cu12`
//! wheel on PyPI), the independent judge of whether PTX text is valid: the type checker's
//! differential test and the conformance kernels' test use it. Looked up in `$PTXAS`, then
//! `PATH`, then the wheel's site-packages.

use std::path::{Path, PathBuf};
use std::process::Command;

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

/// The ptxas to use, if there is one.
pub fn find() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS").filter(|p| !p.is_empty()) {
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
    wheel_candidates().into_iter().find(|p| p.is_file())
}

/// The ptxas a test needs: `None` (after a notice naming `test`) only when it is missing and
/// `PTXCONF_NO_PTXAS=1` says to skip; missing otherwise is an error, so CI cannot pass by
/// silently not checking.
pub fn required(test: &str) -> Option<PathBuf> {
    if let Some(p) = find() {
        return Some(p);
    }
    if std::env::var("PTXCONF_NO_PTXAS").as_deref() == Ok("1") {
        eprintln!("NOTICE: ptxas not found; PTXCONF_NO_PTXAS=1, so {test} is skipped");
        return None;
    }
    panic!(
        "ptxas not found ($PTXAS, PATH, or the pip wheel). Install it with \
         `pip install nvidia-cuda-nvcc-cu12`, point $PTXAS at a ptxas binary, or set PTXCONF_NO_PTXAS=1 to skip"
    );
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
/// `corpus/findings/ptxas-12.9-rejects.txt`): the `cuda` backend skips them and the program
/// generator leaves them out by default.
pub fn rejected_forms() -> &'static std::collections::BTreeSet<String> {
    static SET: std::sync::OnceLock<std::collections::BTreeSet<String>> = std::sync::OnceLock::new();
    SET.get_or_init(|| {
        include_str!("../../corpus/findings/ptxas-12.9-rejects.txt")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_whitespace().next())
            .map(str::to_string)
            .collect()
    })
}
