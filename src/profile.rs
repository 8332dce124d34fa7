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

use serde::{Deserialize, Serialize};
use spec::types::FloatFormat;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub name: String,
    /// The target the device reports (`sm_90`).
    pub target: String,
    pub provenance: Provenance,
    /// Format name → the NaN bits the device returns (`"f32": "0x7fffffff"`).
    #[serde(default)]
    pub canonical_nan: BTreeMap<String, String>,
    /// Forms whose observed results are in `observed/`.
    #[serde(default)]
    pub observed: Vec<String>,
    #[serde(skip)]
    pub dir: PathBuf,
}

impl Profile {
    /// Reads `DIR/profile.json`.
    pub fn load(dir: &Path) -> Result<Profile, String> {
        let path = dir.join("profile.json");
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut p: Profile = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        for (f, bits) in &p.canonical_nan {
            if format_named(f).is_none() {
                return Err(format!("{}: unknown format `{f}`", path.display()));
            }
            parse_hex(bits).ok_or_else(|| format!("{}: `{bits}` is not 0x-hex", path.display()))?;
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
    pub fn save(&self, dir: &Path) -> Result<(), String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let text = serde_json::to_string_pretty(self).expect("profile serializes") + "\n";
        std::fs::write(dir.join("profile.json"), text).map_err(|e| format!("{}: {e}", dir.display()))
    }
}

fn format_named(n: &str) -> Option<FloatFormat> {
    FloatFormat::NAMES.iter().find(|(name, _)| *name == n).map(|(_, f)| *f)
}

fn parse_hex(s: &str) -> Option<u128> {
    u128::from_str_radix(s.strip_prefix("0x")?, 16).ok()
}
