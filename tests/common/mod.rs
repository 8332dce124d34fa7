//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `ptxconf` binary, run from the repository root.
pub fn ptxconf() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptxconf"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// A finished run's stdout, after checking it exited with `code` (its stdout and stderr are the
/// message when not).
#[allow(dead_code)] // The suites that run `ptxconf` commands use it.
pub fn stdout_of(out: &std::process::Output, code: i32) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxconf-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// What a planted bug rewrites before the oracle answers.
#[allow(dead_code)] // Not every test binary sharing the module plants both kinds.
#[derive(Clone, Copy)]
pub enum Rewrite {
    /// The launch's PTX file (`kernel.ptx`, what the `cmd:` backend writes): a wrong instruction.
    Kernel,
    /// The launch file itself: e.g. a tensor map's driver-call description read wrongly.
    Launch,
    /// The PTX file, the launch then asking for the manual's grammar (which runs 32-bit
    /// modules; `ptxconf run`'s default, ptxas's, refuses them).
    KernelManualGrammar,
}

/// A `cmd:` backend with a planted bug: a shell script that rewrites the launch's PTX file
/// with the sed expression `sed`, then answers with `ptxconf run` — the oracle, wrong in exactly
/// that way.
#[allow(dead_code)] // Not every test binary sharing the module plants a kernel bug.
pub fn planted_backend(dir: &Path, sed: &str) -> String {
    planted_backend_of(dir, sed, Rewrite::Kernel)
}

/// [`planted_backend`] rewriting what `what` names.
pub fn planted_backend_of(dir: &Path, sed: &str, what: Rewrite) -> String {
    let script = dir.join("planted.sh");
    let (file, grammar) = match what {
        Rewrite::Kernel => (r#""$(dirname "$1")/kernel.ptx""#, ""),
        Rewrite::Launch => (r#""$1""#, ""),
        Rewrite::KernelManualGrammar => (
            r#""$(dirname "$1")/kernel.ptx""#,
            "sed -i '1s/^{/{\"grammar\": \"manual\", /' \"$1\"\n",
        ),
    };
    let text = format!(
        "#!/bin/sh\nsed -i '{sed}' {file}\n{grammar}exec '{}' run \"$1\"\n",
        env!("CARGO_BIN_EXE_ptxconf")
    );
    std::fs::write(&script, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    format!("cmd:{}", script.display())
}

/// `conform --json` of `forms` against a `cmd:` backend that rewrites each kernel with `sed`
/// (scratch directory `name`, with `--json` and `--repro` under it); the run must fail (exit 1).
/// The report, and the scratch directory.
#[allow(dead_code)] // The planted-bug suites use it; `programs.rs` shares the module.
pub fn conform_planted(name: &str, sed: &str, forms: &[&str]) -> (serde_json::Value, PathBuf) {
    conform_planted_of(name, sed, Rewrite::Kernel, forms)
}

/// [`conform_planted`] with the bug planted in what `what` names.
#[allow(dead_code)]
pub fn conform_planted_of(name: &str, sed: &str, what: Rewrite, forms: &[&str]) -> (serde_json::Value, PathBuf) {
    let dir = scratch(name);
    let backend = planted_backend_of(&dir, sed, what);
    let (code, report) = conform_json(&dir, &backend, forms);
    assert_eq!(code, Some(1), "{report}");
    (report, dir)
}

/// `conform --json` of `forms` on `backend`, the report and repros under `dir`: the exit status
/// and the report (an unreadable report panics with the run's output).
#[allow(dead_code)]
pub fn conform_json(dir: &Path, backend: &str, forms: &[&str]) -> (Option<i32>, serde_json::Value) {
    let json = dir.join("report.json");
    let out = ptxconf()
        .args(["conform", "--quiet", "--backend", backend])
        .args(forms)
        .arg("--json")
        .arg(&json)
        .arg("--repro")
        .arg(dir.join("repro"))
        .output()
        .unwrap();
    let report = std::fs::read(&json)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_else(|| {
            panic!(
                "no report: {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
    (out.status.code(), report)
}

/// The forms of a `conform --json` report with `status` (`passed`, `failed`, ...), by key.
#[allow(dead_code)]
pub fn forms_with_status(report: &serde_json::Value, status: &str) -> Vec<String> {
    report["forms"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] == status)
        .map(|f| f["form"].as_str().unwrap().to_string())
        .collect()
}

/// A directory for one test's scripts, removed when dropped.
#[allow(dead_code)] // The `cmd:` suites write scripts; the planted-bug suites share the module.
pub struct Scratch(pub PathBuf);

#[allow(dead_code)]
impl Scratch {
    pub fn new(test: &str) -> Scratch {
        Scratch(scratch(&format!("scratch-{test}")))
    }

    /// Writes an executable `sh` script and returns its path.
    pub fn script(&self, name: &str, body: &str) -> String {
        use std::os::unix::fs::PermissionsExt;
        let p = self.0.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p.display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
