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
