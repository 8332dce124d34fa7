//! Known fuzz findings: `ptxconf fuzz --baseline FILE` counts a finding whose signature the file
//! lists as known, and only new ones fail the campaign; `--write-baseline FILE` records the
//! signatures (those of the file read, if any, and the campaign's).
//!
//! A finding's signature is its difference's class and the distinct instructions (opcode with
//! modifiers, no operands) of its program, sorted: after reduction a handful, such as
//! `wrong: add.rn.f32 ld.param.u64 st.global.b32` for a backend that rounds `add.rn.f32` toward
//! zero. Registers, constants and the program's number are not in it, so the same defect found
//! from another program usually reduces to the same signature. The classes are those of a conform
//! baseline ([`super::FailureClass`]: `wrong`, `rejected:KIND`, `timeout`, `malformed`), a
//! crash with its identity (`crashed[SIGABRT: free(): double free detected in tcache N]`,
//! [`super::crash`]), `incomparable` (results that cannot be compared) and `oracle` (a
//! generated program the oracle itself cannot run: a defect of ours).
//!
//! The file: [`MAGIC`], `#` header lines (`backend`, `ptxconf`), then one signature per line,
//! sorted.

use super::FailureClass;
use crate::compare::Difference;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// The file's first line.
pub const MAGIC: &str = "# ptxconf fuzz baseline 1";

/// The class of a difference, as a signature starts; a crash's class carries its identity
/// ([`super::crash::CrashSignature`]: `crashed[SIGABRT at instructions.cc:5303: ...]`), so that
/// two crashes are one finding only when they are the same crash. The reducer keeps a finding's
/// class ([`Difference::same_kind`]).
pub fn class_of(d: &Difference) -> String {
    match d {
        Difference::Mismatch(_) => "wrong".into(),
        Difference::Failure(crate::backend::Failure::Crashed(report)) => {
            format!("crashed[{}]", super::crash::CrashSignature::of(report))
        }
        Difference::Failure(f) => FailureClass::of(f).to_string(),
        Difference::Incomparable(_) => "incomparable".into(),
        Difference::Same => "same".into(),
    }
}

/// A finding's signature: `class: instr instr ...` (the program's distinct instructions without
/// operands, sorted; `unparsed` when the PTX does not parse).
pub fn signature(class: &str, ptx: &str) -> String {
    let Ok(m) = oracle::parse::parse(ptx) else {
        return format!("{class}: unparsed");
    };
    let mut instrs = BTreeSet::new();
    for item in &m.items {
        let oracle::ast::Item::Function(f) = item else { continue };
        for i in f.body.as_deref().map(crate::reduce::all_instrs).unwrap_or_default() {
            let mut s = i.opcode.clone();
            for m in &i.mods {
                s.push('.');
                s.push_str(m);
            }
            instrs.insert(s);
        }
    }
    let list: Vec<String> = instrs.into_iter().collect();
    format!("{class}: {}", list.join(" "))
}

/// The signatures of known findings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Known {
    /// The signatures.
    pub signatures: BTreeSet<String>,
}

impl Known {
    /// Reads a file's text.
    pub fn parse(text: &str) -> Result<Known, super::BaselineError> {
        let mut lines = text.lines();
        if lines.next().map(str::trim_end) != Some(MAGIC) {
            return Err(super::BaselineError::NotABaseline(MAGIC));
        }
        let signatures = lines
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
        Ok(Known { signatures })
    }

    /// Reads a file.
    pub fn load(path: &Path) -> Result<Known, super::BaselineError> {
        Known::parse(&std::fs::read_to_string(path).map_err(super::BaselineError::Io)?)
    }

    /// Whether a signature is known.
    pub fn contains(&self, signature: &str) -> bool {
        self.signatures.contains(signature)
    }

    /// The file's text, recorded on `backend`.
    pub fn to_text(&self, backend: &str) -> String {
        let mut s = format!("{MAGIC}\n");
        let _ = writeln!(s, "# backend: {backend}");
        let _ = writeln!(s, "# ptxconf: {}", env!("CARGO_PKG_VERSION"));
        for sig in &self.signatures {
            let _ = writeln!(s, "{sig}");
        }
        s
    }
}
