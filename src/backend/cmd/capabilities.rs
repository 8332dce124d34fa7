//! The `--capabilities` question of the `cmd:` protocol: what an external implementation declares
//! it runs (its target, newest PTX ISA version, §9.7 families) and which constructs it lacks.
//!
//! The answer is one JSON object on stdout, exit status 0, every field optional:
//!
//! ```json
//! {"name": "GPGPU-Sim 4.2 (cuda-sim)", "target": "sm_86", "ptx": "7.1",
//!  "families": null, "lacks": ["brx.idx"]}
//! ```
//!
//! `families`: `null` or absent for every family, else a list of §9.7 family ids (`"9.7.1"`);
//! `lacks`: [`Feature`] names. Fields that cannot be read, unknown `lacks` names and unknown
//! family ids are warned about and left out; unknown keys are ignored (later versions of the
//! protocol may add some). A program that exits non-zero, prints no JSON object, or answers as it
//! would a launch (an object with `"status"`) declares nothing.

use crate::backend::Feature;
use spec::catalog::{PtxVersion, Target};
use std::collections::BTreeSet;
use std::fmt;

/// The argument that asks a `cmd:` program for its capabilities, in place of a launch file.
pub const FLAG: &str = "--capabilities";

/// What a program declared in its `--capabilities` answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Declared {
    /// The implementation's name and version, for reports.
    pub name: Option<String>,
    /// The device architecture it implements.
    pub target: Option<Target>,
    /// The newest PTX ISA version it accepts.
    pub ptx: Option<PtxVersion>,
    /// The §9.7 families it implements (`None`: every family).
    pub families: Option<Vec<String>>,
    /// The constructs it lacks.
    pub lacks: BTreeSet<Feature>,
}

/// Why an answer declares nothing.
#[derive(Clone, Debug, PartialEq)]
pub enum NotDeclared {
    /// The program exited with a non-zero status (it does not know the question).
    Exit(String),
    /// No answer within the timeout.
    Timeout(f64),
    /// It printed something other than one JSON object.
    NotAnObject(String),
    /// It answered as it would a launch (a `"status"` key).
    LaunchReply,
    /// It could not be started or waited for.
    Failed(String),
}

impl fmt::Display for NotDeclared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotDeclared::Exit(how) => write!(f, "{how}"),
            NotDeclared::Timeout(s) => write!(f, "no answer within {s} s"),
            NotDeclared::NotAnObject(why) => write!(f, "the answer is not one JSON object ({why})"),
            NotDeclared::LaunchReply => f.write_str("it answered as to a launch (a \"status\" key)"),
            NotDeclared::Failed(why) => write!(f, "{why}"),
        }
    }
}

/// Reads an answer printed with exit status 0: what it declares and the warnings about what was
/// left out (each naming the field and the value).
pub fn parse(stdout: &str) -> Result<(Declared, Vec<String>), NotDeclared> {
    let value: serde_json::Value = serde_json::from_str(stdout).map_err(|e| NotDeclared::NotAnObject(e.to_string()))?;
    let serde_json::Value::Object(obj) = value else {
        return Err(NotDeclared::NotAnObject("not an object".into()));
    };
    if obj.contains_key("status") {
        return Err(NotDeclared::LaunchReply);
    }
    let mut d = Declared::default();
    let mut warnings = Vec::new();
    let bad = |field: &str, v: &serde_json::Value, want: &str| format!("\"{field}\": {v} is not {want}; ignored");
    for (key, v) in &obj {
        if v.is_null() {
            continue;
        }
        match key.as_str() {
            "name" => match v.as_str() {
                Some(s) => d.name = Some(s.to_string()),
                None => warnings.push(bad("name", v, "a string")),
            },
            "target" => match v.as_str().and_then(Target::parse) {
                Some(t) => d.target = Some(t),
                None => warnings.push(bad("target", v, "a target like \"sm_86\"")),
            },
            "ptx" => match v.as_str().and_then(PtxVersion::parse) {
                Some(p) => d.ptx = Some(p),
                None => warnings.push(bad("ptx", v, "a PTX ISA version like \"7.1\"")),
            },
            "families" => match strings(v) {
                Some(ids) => {
                    let known = &spec::catalog::catalog().families;
                    let (ok, unknown): (Vec<String>, Vec<String>) = ids
                        .into_iter()
                        .partition(|id| known.iter().any(|f| f.id == id.as_str()));
                    if !unknown.is_empty() {
                        warnings.push(format!(
                            "\"families\" names {} that the manual's §9.7 does not have; ignored",
                            quoted(&unknown)
                        ));
                    }
                    d.families = Some(ok);
                }
                None => warnings.push(bad("families", v, "null or a list of family ids like \"9.7.1\"")),
            },
            "lacks" => match strings(v) {
                Some(names) => {
                    let mut unknown = Vec::new();
                    for n in names {
                        match Feature::parse(&n) {
                            Some(f) => {
                                d.lacks.insert(f);
                            }
                            None => unknown.push(n),
                        }
                    }
                    if !unknown.is_empty() {
                        warnings.push(format!(
                            "\"lacks\" names {} that ptxconf does not know (it knows {}); ignored",
                            quoted(&unknown),
                            quoted(&Feature::ALL.map(|f| f.name().to_string()))
                        ));
                    }
                }
                None => warnings.push(bad("lacks", v, "a list of construct names like \"brx.idx\"")),
            },
            // A later version of the protocol's field.
            _ => {}
        }
    }
    Ok((d, warnings))
}

fn strings(v: &serde_json::Value) -> Option<Vec<String>> {
    v.as_array()?.iter().map(|s| s.as_str().map(str::to_string)).collect()
}

fn quoted(names: &[String]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

impl Declared {
    /// The declaration on one line (`target sm_86, PTX 7.1, lacks brx.idx`), or `None` when it
    /// declares nothing.
    pub fn summary(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(n) = &self.name {
            parts.push(format!("name \"{n}\""));
        }
        if let Some(t) = self.target {
            parts.push(format!("target {t}"));
        }
        if let Some(p) = self.ptx {
            parts.push(format!("PTX {p}"));
        }
        if let Some(f) = &self.families {
            parts.push(format!("families {}", f.join(" ")));
        }
        if !self.lacks.is_empty() {
            let names: Vec<&str> = self.lacks.iter().map(|f| f.name()).collect();
            parts.push(format!("lacks {}", names.join(" ")));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_answer_is_read() {
        let (d, w) = parse(
            r#"{"name": "sim 1.0", "target": "sm_86", "ptx": "7.1", "families": ["9.7.1", "9.7.3"],
                "lacks": ["brx.idx"], "later": 1}"#,
        )
        .unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(d.name.as_deref(), Some("sim 1.0"));
        assert_eq!(d.target, Target::parse("sm_86"));
        assert_eq!(d.ptx, Some(PtxVersion(7, 1)));
        assert_eq!(d.families, Some(vec!["9.7.1".to_string(), "9.7.3".to_string()]));
        assert_eq!(d.lacks.into_iter().collect::<Vec<_>>(), vec![Feature::BrxIdx]);
    }

    #[test]
    fn empty_and_null_fields_declare_nothing() {
        for text in ["{}", r#"{"families": null, "target": null, "lacks": []}"#] {
            let (d, w) = parse(text).unwrap();
            assert_eq!(d, Declared::default(), "{text}");
            assert!(w.is_empty() && d.summary().is_none());
        }
    }

    #[test]
    fn unknown_lacks_and_bad_fields_are_warned_about_not_fatal() {
        let (d, w) = parse(r#"{"lacks": ["brx.idx", "warp.vote", "tex"], "ptx": 71, "families": ["9.7.99"]}"#).unwrap();
        assert_eq!(d.lacks.len(), 1);
        assert_eq!(d.ptx, None);
        assert_eq!(d.families, Some(vec![]));
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(
            w.iter()
                .any(|m| m.contains("`warp.vote`, `tex`") && m.contains("`brx.idx`")),
            "{w:?}"
        );
        assert!(w.iter().any(|m| m.contains("\"ptx\": 71")), "{w:?}");
        assert!(w.iter().any(|m| m.contains("`9.7.99`")), "{w:?}");
    }

    #[test]
    fn launch_replies_and_non_objects_declare_nothing() {
        assert_eq!(
            parse(r#"{"status": "error", "kind": "launch", "message": "no file --capabilities"}"#),
            Err(NotDeclared::LaunchReply)
        );
        assert!(matches!(parse("[1]"), Err(NotDeclared::NotAnObject(_))));
        assert!(matches!(parse("usage: sim FILE"), Err(NotDeclared::NotAnObject(_))));
    }

    #[test]
    fn the_summary_names_every_declared_field() {
        let (d, _) = parse(r#"{"target": "sm_86", "ptx": "7.1", "lacks": ["brx.idx"]}"#).unwrap();
        assert_eq!(d.summary().as_deref(), Some("target sm_86, PTX 7.1, lacks brx.idx"));
    }
}
