//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `ptxconf` binary, run from the repository root.
pub fn ptxconf() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptxconf"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxconf-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A `cmd:` backend with a planted bug: a shell script that rewrites the launch's PTX file
/// (`kernel.ptx`, what the `cmd:` backend writes) with the sed expression `sed`, then answers
/// with `ptxconf run` — the oracle, wrong in exactly that way.
pub fn planted_backend(dir: &Path, sed: &str) -> String {
    let script = dir.join("planted.sh");
    let text = format!(
        "#!/bin/sh\nsed -i '{sed}' \"$(dirname \"$1\")/kernel.ptx\"\nexec '{}' run \"$1\"\n",
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
    let dir = scratch(name);
    let backend = planted_backend(&dir, sed);
    let json = dir.join("report.json");
    let out = ptxconf()
        .args(["conform", "--quiet", "--backend", &backend])
        .args(forms)
        .arg("--json")
        .arg(&json)
        .arg("--repro")
        .arg(dir.join("repro"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap(), dir)
}
