//! Hardware profiles: what a real GPU was observed to return where the manual allows a choice,
//! recorded per target with provenance, and checked in strict mode.
//!
//! A profile is a directory: `profile.json` and `observed/<form key>.vec` files.
//! - `profile.json`: name, target, provenance (GPU, driver, CUDA version, date, the command that
//!   recorded it), and the canonical NaN of each float format (every NaN result the device returned
//!   for that format had these bits).
//! - `observed/`: for approximate forms, the device's exact results on the golden vectors, as
//!   vector files with `exact` tags.
//!
//! `ptxconf conform --profile DIR --strict` then requires, beyond the manual's acceptance sets, the
//! profile's canonical NaN wherever any NaN is allowed, and the observed bits of approximate forms.
//! `ptxconf conform --backend cuda --record-profile DIR` writes one from a real device.

use crate::backend::Backend;
use crate::conform::Report;
use serde::{Deserialize, Serialize};
use spec::catalog::catalog;
use spec::types::FloatFormat;
use spec::vector::{form_by_key, form_key};
use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Where a profile's observations came from.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// The device, driver and CUDA version as the backend described them.
    pub device: String,
    /// The backend that ran (`cuda`, `cuda:/path/libcuda.so`).
    pub backend: String,
    /// The date of the recording (UTC, YYYY-MM-DD).
    pub date: String,
    /// The command that recorded it.
    pub command: String,
}

/// A hardware profile: `profile.json`, and where its `observed/` files are.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Its name (when recorded: the directory's name).
    pub name: String,
    /// The target the device reports (`sm_90`).
    pub target: String,
    /// How it was recorded.
    pub provenance: Provenance,
    /// Format name → the NaN bits the device returns (`"f32": "0x7fffffff"`).
    #[serde(default)]
    pub canonical_nan: BTreeMap<String, String>,
    /// Forms whose observed results are in `observed/`.
    #[serde(default)]
    pub observed: Vec<String>,
    /// The profile's directory (not stored in `profile.json`).
    #[serde(skip)]
    pub dir: PathBuf,
}

/// Why a profile could not be read, written or recorded.
#[derive(Debug)]
pub enum ProfileError {
    /// `profile.json` could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// `profile.json` is not a profile.
    Json {
        /// The file.
        path: PathBuf,
        /// The JSON error.
        source: serde_json::Error,
    },
    /// `canonical_nan` names a format that is not a float format.
    UnknownFormat {
        /// The file.
        path: PathBuf,
        /// The name written.
        format: String,
    },
    /// A `canonical_nan` value that is not `0x` and hex digits.
    NotHex {
        /// The file.
        path: PathBuf,
        /// The value written.
        bits: String,
    },
    /// The profile's directory could not be created.
    CreateDir {
        /// The directory.
        dir: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// `profile.json` could not be written.
    Write {
        /// The profile's directory.
        dir: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The `observed/` directory could not be created.
    CreateObserved {
        /// The directory.
        dir: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// An observed vector file could not be written.
    WriteObserved {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileError::Read { path, source } => write!(f, "{}: {source}", path.display()),
            ProfileError::Json { path, source } => write!(f, "{}: {source}", path.display()),
            ProfileError::UnknownFormat { path, format } => {
                write!(f, "{}: unknown format `{format}`", path.display())
            }
            ProfileError::NotHex { path, bits } => write!(f, "{}: `{bits}` is not 0x-hex", path.display()),
            ProfileError::CreateDir { dir, source } | ProfileError::Write { dir, source } => {
                write!(f, "{}: {source}", dir.display())
            }
            ProfileError::CreateObserved { source, .. } | ProfileError::WriteObserved { source, .. } => {
                write!(f, "{source}")
            }
        }
    }
}

impl std::error::Error for ProfileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProfileError::Read { source, .. }
            | ProfileError::CreateDir { source, .. }
            | ProfileError::Write { source, .. }
            | ProfileError::CreateObserved { source, .. }
            | ProfileError::WriteObserved { source, .. } => Some(source),
            ProfileError::Json { source, .. } => Some(source),
            ProfileError::UnknownFormat { .. } | ProfileError::NotHex { .. } => None,
        }
    }
}

impl Profile {
    /// Reads `DIR/profile.json`.
    pub fn load(dir: &Path) -> Result<Profile, ProfileError> {
        let path = dir.join("profile.json");
        let text = std::fs::read_to_string(&path).map_err(|source| ProfileError::Read {
            path: path.clone(),
            source,
        })?;
        let mut p: Profile = serde_json::from_str(&text).map_err(|source| ProfileError::Json {
            path: path.clone(),
            source,
        })?;
        for (f, bits) in &p.canonical_nan {
            if format_named(f).is_none() {
                return Err(ProfileError::UnknownFormat {
                    path,
                    format: f.clone(),
                });
            }
            parse_hex(bits).ok_or_else(|| ProfileError::NotHex {
                path: path.clone(),
                bits: bits.clone(),
            })?;
        }
        p.dir = dir.to_path_buf();
        Ok(p)
    }

    /// The NaN the device returns for format `f`, if observed.
    pub fn canonical_nan(&self, f: FloatFormat) -> Option<u128> {
        self.canonical_nan.get(f.name()).and_then(|b| parse_hex(b))
    }

    /// The observed vector file of a form, if the profile has one.
    pub fn observed_path(&self, key: &str) -> Option<PathBuf> {
        self.observed
            .iter()
            .any(|k| k == key)
            .then(|| self.dir.join("observed").join(format!("{key}.vec")))
    }

    /// Writes `profile.json` into `dir`.
    pub fn save(&self, dir: &Path) -> Result<(), ProfileError> {
        std::fs::create_dir_all(dir).map_err(|source| ProfileError::CreateDir {
            dir: dir.to_path_buf(),
            source,
        })?;
        let text = serde_json::to_string_pretty(self).expect("profile serializes") + "\n";
        std::fs::write(dir.join("profile.json"), text).map_err(|source| ProfileError::Write {
            dir: dir.to_path_buf(),
            source,
        })
    }
}

fn format_named(n: &str) -> Option<FloatFormat> {
    FloatFormat::NAMES.iter().find(|(name, _)| *name == n).map(|(_, f)| *f)
}

fn parse_hex(s: &str) -> Option<u128> {
    u128::from_str_radix(s.strip_prefix("0x")?, 16).ok()
}

/// Writes what the backend returned in a run with [`crate::conform::Settings::record`] as a
/// profile in `dir`: the canonical NaN of every format where all NaNs it returned agreed, and the
/// results of approximate forms as exact vectors.
pub fn record(
    dir: &Path,
    backend: &str,
    command: &str,
    report: &Report,
    b: &dyn Backend,
) -> Result<Profile, ProfileError> {
    let cat = catalog();
    let mut nans: std::collections::BTreeMap<&str, Vec<u128>> = Default::default();
    for f in &report.forms {
        for (fmt, bits) in &f.nans {
            let v = nans.entry(fmt.name()).or_default();
            if !v.contains(bits) {
                v.push(*bits);
            }
        }
    }
    let mut profile = Profile {
        name: dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("profile")
            .to_string(),
        target: b.caps().target.map_or_else(|| "any".to_string(), |t| t.to_string()),
        provenance: Provenance {
            device: b.describe(),
            backend: backend.to_string(),
            date: today(),
            command: command.to_string(),
        },
        canonical_nan: Default::default(),
        observed: Vec::new(),
        dir: dir.to_path_buf(),
    };
    for (fmt, seen) in &nans {
        if let [one] = seen[..] {
            let digits = spec::types::FloatFormat::NAMES
                .iter()
                .find(|(n, _)| n == fmt)
                .map_or(8, |(_, f)| f.bits().div_ceil(4) as usize);
            profile
                .canonical_nan
                .insert(fmt.to_string(), format!("0x{one:0digits$x}"));
        } else {
            eprintln!(
                "note: {fmt}: the backend returned {} different NaNs; no canonical NaN recorded",
                seen.len()
            );
        }
    }
    let observed_dir = dir.join("observed");
    for f in &report.forms {
        let (Some(obs), Some(i)) = (&f.observed, form_by_key(&f.form)) else {
            continue;
        };
        let form = &cat.forms[i];
        let vs = obs;
        std::fs::create_dir_all(&observed_dir).map_err(|source| ProfileError::CreateObserved {
            dir: observed_dir.clone(),
            source,
        })?;
        let header = vec![("observed".to_string(), profile.provenance.device.clone())];
        let path = observed_dir.join(format!("{}.vec", form_key(form)));
        std::fs::write(&path, spec::vector::format_file(form, &header, vs))
            .map_err(|source| ProfileError::WriteObserved { path, source })?;
        profile.observed.push(form_key(form));
    }
    profile.save(dir)?;
    Ok(profile)
}

/// Today's date (UTC) from the system clock, as YYYY-MM-DD.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}
