//! Findings on disk: a reduced case and what it shows ([`Reduced`]: its report and its
//! directory of `reduced.ptx`, `launch.json` and `report.txt`), the atomic directory writer every
//! finding goes through ([`write_dir`], also used by `ptxconf fuzz` for unreduced findings), and
//! where `ptxconf reduce` writes by default ([`default_out_dir`]).

use crate::compare::Difference;
use crate::reduce::{Case, Stats};
use std::fmt;
use std::path::{Path, PathBuf};

/// A reduced case and what it shows.
#[derive(Clone, Debug)]
pub struct Reduced {
    /// The case as it was given.
    pub original: Case,
    /// The reduced case.
    pub case: Case,
    /// What the reduction did.
    pub stats: Stats,
    /// The backend's name.
    pub backend: String,
    /// The backend's description.
    pub describe: String,
    /// The original case's difference.
    pub original_difference: Difference,
    /// The reduced case's difference (of the same kind as the original's).
    pub difference: Difference,
    /// Where the original came from, as the report's first lines (a fuzz campaign's program
    /// number and replay command), if known.
    pub origin: Option<String>,
}

/// Mismatches listed in a report.
const SHOWN: usize = 10;

impl Reduced {
    /// The human-readable report (`report.txt`).
    pub fn report(&self) -> String {
        use std::fmt::Write as _;
        let mut t = String::new();
        let s = &self.stats;
        if let Some(o) = &self.origin {
            t.push_str(o);
        }
        let _ = writeln!(t, "backend: {} ({})", self.backend, self.describe);
        let _ = writeln!(t, "difference: {}", self.difference);
        let _ = writeln!(t, "signature: {}", self.signature());
        let _ = writeln!(t, "instructions: {} -> {}", s.instructions_before, s.instructions_after);
        let (a, b) = (&self.original.launch, &self.case.launch);
        let _ = writeln!(
            t,
            "launch: grid {:?} block {:?} (was grid {:?} block {:?})",
            b.grid, b.block, a.grid, a.block
        );
        let _ = writeln!(
            t,
            "reduction: {} predicate calls, {} steps accepted, {} rounds, {:.1} s{}",
            s.calls,
            s.accepted,
            s.rounds,
            s.seconds,
            if s.exhausted {
                " (budget exhausted: not minimal)"
            } else {
                ""
            }
        );
        match &self.difference {
            Difference::Mismatch(v) => {
                let _ = writeln!(t, "first mismatches:");
                for m in v.iter().take(SHOWN) {
                    let _ = writeln!(t, "  {m}");
                }
                if v.len() > SHOWN {
                    let _ = writeln!(t, "  ... and {} more", v.len() - SHOWN);
                }
            }
            d => {
                let _ = writeln!(t, "{d}");
            }
        }
        let _ = writeln!(t, "remaining instructions:");
        if let Ok(m) = oracle::parse::parse(&self.case.ptx) {
            for item in &m.items {
                let oracle::ast::Item::Function(f) = item else { continue };
                let Some(body) = &f.body else { continue };
                let _ = writeln!(t, "  {} {}:", if f.entry { ".entry" } else { ".func" }, f.name);
                for i in crate::reduce::all_instrs(body) {
                    let _ = writeln!(t, "    {}", oracle::print::instr(i));
                }
            }
        }
        t
    }

    /// The finding's signature ([`crate::baseline::findings::signature`]): the reduced
    /// difference's class (a crash's identity included) and the reduced program's instructions.
    pub fn signature(&self) -> String {
        use crate::baseline::findings as known;
        known::signature(&known::class_of(&self.difference), &self.case.ptx)
    }

    /// Writes `reduced.ptx`, `launch.json` (naming it, with the original's check) and
    /// `report.txt` into `dir`, atomically: into a temporary directory beside it, then renamed.
    pub fn write(&self, dir: &Path) -> Result<(), WriteError> {
        let mut launch = self.case.launch.clone();
        launch.ptx = "reduced.ptx".into();
        write_dir(
            dir,
            &[
                ("reduced.ptx", self.case.ptx.as_str()),
                ("launch.json", &launch.to_json()),
                ("report.txt", &self.report()),
            ],
        )
    }
}

/// Why [`write_dir`] could not write a finding's directory (each with the path it failed on).
#[derive(Debug)]
pub enum WriteError {
    /// The directory's path has no final name (`..`, `/`).
    NotADirectoryName(PathBuf),
    /// A directory (the parent, or the temporary one) cannot be created.
    Create {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file cannot be written.
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The existing directory cannot be moved aside to be replaced.
    MoveAside {
        /// The existing directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The temporary directory cannot be renamed into place.
    Rename {
        /// The temporary directory.
        from: PathBuf,
        /// The finding's directory.
        to: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::NotADirectoryName(dir) => write!(f, "{}: not a directory name", dir.display()),
            WriteError::Create { path, source } => write!(f, "cannot create {}: {source}", path.display()),
            WriteError::Write { path, source } => write!(f, "cannot write {}: {source}", path.display()),
            WriteError::MoveAside { path, source } => write!(f, "cannot move {} aside: {source}", path.display()),
            WriteError::Rename { from, to, source } => {
                write!(f, "cannot rename {} to {}: {source}", from.display(), to.display())
            }
        }
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteError::NotADirectoryName(_) => None,
            WriteError::Create { source, .. }
            | WriteError::Write { source, .. }
            | WriteError::MoveAside { source, .. }
            | WriteError::Rename { source, .. } => Some(source),
        }
    }
}

/// Writes `files` into `dir` atomically: a temporary sibling directory renamed into place (an
/// existing `dir` is replaced).
pub fn write_dir(dir: &Path, files: &[(&str, &str)]) -> Result<(), WriteError> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let base = dir
        .file_name()
        .ok_or_else(|| WriteError::NotADirectoryName(dir.to_path_buf()))?
        .to_string_lossy()
        .to_string();
    std::fs::create_dir_all(&parent).map_err(|source| WriteError::Create {
        path: parent.clone(),
        source,
    })?;
    let tmp = parent.join(format!(".{base}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir(&tmp).map_err(|source| WriteError::Create {
        path: tmp.clone(),
        source,
    })?;
    for (name, text) in files {
        let p = tmp.join(name);
        std::fs::write(&p, text).map_err(|source| WriteError::Write {
            path: p.clone(),
            source,
        })?;
    }
    let old = parent.join(format!(".{base}.old-{}", std::process::id()));
    let had = dir.exists();
    if had {
        let _ = std::fs::remove_dir_all(&old);
        std::fs::rename(dir, &old).map_err(|source| WriteError::MoveAside {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    std::fs::rename(&tmp, dir).map_err(|source| WriteError::Rename {
        from: tmp.clone(),
        to: dir.to_path_buf(),
        source,
    })?;
    if had {
        let _ = std::fs::remove_dir_all(&old);
    }
    Ok(())
}

/// The default output directory of a launch file: `<stem>.reduced/` beside it.
pub fn default_out_dir(launch: &Path) -> PathBuf {
    let stem = launch
        .file_stem()
        .map_or_else(|| "launch".to_string(), |s| s.to_string_lossy().to_string());
    launch
        .parent()
        .unwrap_or(Path::new("."))
        .join(format!("{stem}.reduced"))
}
