//! Finding the corpus (`corpus/` of the repository: golden vectors, profiles) from wherever
//! `ptxconf` runs: the working directory need not be the repository, and the binary may be an
//! installed copy.
//!
//! A path under the repository (`corpus/vectors`) is looked for, in order, under the working
//! directory, under every ancestor of the executable's directory (`target/release/ptxconf` sits
//! two levels below the repository) and under the repository the binary was built from
//! (`CARGO_MANIFEST_DIR`, while it exists). `$PTXCONF_CORPUS` names the corpus directory itself and,
//! when set, is the only place looked for the golden vectors.

use std::path::{Path, PathBuf};

/// The golden vectors' directory under the repository.
pub const VECTORS: &str = crate::vectors::DEFAULT_DIR;

/// A directory found for a repository path, and where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The directory.
    pub dir: PathBuf,
    /// Whether it is the working directory's own (`./corpus/vectors`): nothing to mention.
    pub local: bool,
}

/// The repository roots to try, in order: the working directory, the executable's ancestors,
/// the build tree (deduplicated).
fn roots() -> Vec<PathBuf> {
    let mut v = vec![PathBuf::from(".")];
    if let Some(exe) = std::env::current_exe().ok().and_then(|e| e.canonicalize().ok()) {
        v.extend(exe.ancestors().skip(1).map(Path::to_path_buf));
    }
    v.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let mut seen = std::collections::HashSet::new();
    v.retain(|p| seen.insert(p.canonicalize().unwrap_or_else(|_| p.clone())));
    v
}

/// The places [`locate`] looks for `rel`, in order.
pub fn candidates(rel: &Path) -> Vec<PathBuf> {
    roots().into_iter().map(|r| r.join(rel)).collect()
}

/// The first directory `rel` (a path relative to the repository, e.g. `corpus/vectors`) names
/// under the working directory, the executable's ancestors or the build tree.
pub fn locate(rel: &Path) -> Option<Found> {
    candidates(rel).into_iter().enumerate().find_map(|(k, p)| {
        p.is_dir().then(|| Found {
            dir: if k == 0 { rel.to_path_buf() } else { p },
            local: k == 0,
        })
    })
}

/// The golden-vector directory, or the places looked (for the message saying none was found).
/// `$PTXCONF_CORPUS`, when set, is the only place looked (its `vectors/`).
pub fn vectors() -> Result<Found, Vec<PathBuf>> {
    if let Some(c) = std::env::var_os("PTXCONF_CORPUS").filter(|c| !c.is_empty()) {
        let dir = PathBuf::from(c).join("vectors");
        return if dir.is_dir() {
            Ok(Found { dir, local: false })
        } else {
            Err(vec![dir])
        };
    }
    locate(Path::new(VECTORS)).ok_or_else(|| candidates(Path::new(VECTORS)))
}

/// "a, b and 2 more": the places looked, for one-line messages.
pub fn looked_in(places: &[PathBuf]) -> String {
    const SHOWN: usize = 3;
    let mut s: Vec<String> = places.iter().take(SHOWN).map(|p| p.display().to_string()).collect();
    if places.len() > SHOWN {
        s.push(format!("{} more", places.len() - SHOWN));
    }
    s.join(", ")
}

/// A path given on the command line (`--profile corpus/profiles/h100`): as given when it
/// exists, else, when relative, the first match under the repository roots.
pub fn resolve(path: &Path) -> PathBuf {
    if path.exists() || path.is_absolute() {
        return path.to_path_buf();
    }
    candidates(path)
        .into_iter()
        .skip(1)
        .find(|p| p.exists())
        .unwrap_or_else(|| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unit test runs from the package directory, where `./corpus/vectors` is; a path that
    /// exists nowhere stays as given; the build tree is always a root.
    #[test]
    fn finds_the_repository_corpus() {
        let f = locate(Path::new(VECTORS)).expect("the corpus of this repository");
        assert!(f.local && f.dir == Path::new(VECTORS), "{f:?}");
        let c = candidates(Path::new("x"));
        assert_eq!(c[0], Path::new("./x"));
        let tree = Path::new(env!("CARGO_MANIFEST_DIR")).canonicalize().ok();
        assert!(roots().iter().any(|r| r.canonicalize().ok() == tree));
        // The working directory (the package here) and the build tree are looked in once.
        assert_eq!(c.len(), roots().len());
        assert_eq!(resolve(Path::new("no/such/dir")), Path::new("no/such/dir"));
        assert!(looked_in(&c).contains("more") || c.len() <= 3);
    }
}
