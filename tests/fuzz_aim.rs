//! `ptxconf gen`/`fuzz` aimed at a partial implementation (issue 17): `--forms-from REPORT`
//! keeps programs to the forms a conformance report passed (plus the skeleton and the
//! constructs' plumbing), refuses a report where the skeleton failed, stays deterministic, and
//! `--ptx`/`--target` pairs that cannot be written are refused.

use generators::program::aim::{SKELETON, STRUCTURE};
use std::path::Path;

#[allow(dead_code)] // `planted_backend` is the planted-bug suites'.
mod common;
use common::{ptxconf, scratch};

/// A report in `conform --json`'s shape: `backend`, and `form`/`status` of each form.
fn report(dir: &Path, forms: &[(&str, &str)]) -> std::path::PathBuf {
    let forms: Vec<serde_json::Value> = forms
        .iter()
        .map(|(f, s)| serde_json::json!({"form": f, "family": "9.7.1", "status": s, "vectors": 1}))
        .collect();
    let p = dir.join("report.json");
    std::fs::write(
        &p,
        serde_json::json!({"backend": "cmd:partial", "forms": forms}).to_string(),
    )
    .unwrap();
    p
}

/// Every instruction written in a program (opcode and modifiers).
fn instructions(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter(|l| l.starts_with('\t') && !l.starts_with("\t."))
        .map(|l| {
            let l = l.trim_start();
            let l = if l.starts_with('@') {
                l.split_once(' ').unwrap().1
            } else {
                l
            };
            l.split([' ', ';']).next().unwrap().to_string()
        })
        .collect()
}

fn gen(args: &[&str], out: &Path) -> std::process::Output {
    ptxconf().arg("gen").args(args).arg("--out").arg(out).output().unwrap()
}

/// Programs of `gen --forms-from` contain the passed forms, the skeleton and the plumbing
/// the report did not judge — never a form it judged and failed (`sub.s32`), never a value form
/// it did not judge — and the same seed writes the same files.
#[test]
fn forms_from_keeps_programs_to_what_passed() {
    let d = scratch("forms-from");
    let passed = ["add.s32", "xor.b32", "min.u32", "mul.lo.s64"];
    let mut forms: Vec<(&str, &str)> = passed.iter().map(|f| (*f, "passed")).collect();
    forms.push(("sub.s32", "failed"));
    forms.push(("rem.u32", "failed"));
    forms.push(("ld.global.b32", "passed"));
    let r = report(&d, &forms);
    let args = ["--seed", "5", "--count", "12", "--forms-from", r.to_str().unwrap()];
    let out = gen(&args, &d.join("a"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("5 of 7 forms passed"), "{err}");
    // `rem.u32` is plumbing the report failed: loops are left out, and the note says so.
    assert!(err.contains("did not pass") && err.contains("rem.u32"), "{err}");
    let mut seen = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(d.join("a")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "ptx") {
            let text = std::fs::read_to_string(&p).unwrap();
            for n in instructions(&text) {
                let ok = passed.contains(&n.as_str())
                    || SKELETON.contains(&n.as_str())
                    || (STRUCTURE.contains(&n.as_str()) && n != "rem.u32");
                assert!(ok, "{}: `{n}`", p.display());
                seen.insert(n);
            }
        }
    }
    for f in passed {
        assert!(seen.contains(f), "no program uses {f}: {seen:?}");
    }
    assert!(!seen.contains("sub.s32") && !seen.contains("rem.u32"), "{seen:?}");
    let again = gen(&args, &d.join("b"));
    assert!(again.status.success());
    for e in std::fs::read_dir(d.join("a")).unwrap() {
        let name = e.unwrap().file_name();
        assert_eq!(
            std::fs::read(d.join("a").join(&name)).unwrap(),
            std::fs::read(d.join("b").join(&name)).unwrap(),
            "{name:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A report where the backend failed a skeleton instruction is refused (every program would
/// differ on it) unless `--allow-failed-skeleton`; a `.target` newer than the `.version` is
/// refused with the manual's rule.
#[test]
fn refusals() {
    let d = scratch("forms-from-refused");
    let r = report(&d, &[("add.s32", "passed"), ("selp.u32", "failed")]);
    let out = ptxconf()
        .args(["fuzz", "--backend", "oracle", "--count", "1", "--quiet", "--forms-from"])
        .arg(&r)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`selp.u32` (selp.u32: failed)"), "{err}");
    let out = ptxconf()
        .args([
            "fuzz",
            "--backend",
            "oracle",
            "--count",
            "3",
            "--quiet",
            "--allow-failed-skeleton",
        ])
        .args(["--findings"])
        .arg(d.join("findings"))
        .arg("--forms-from")
        .arg(&r)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: the report shows"));
    let out = gen(&["--ptx", "7.0", "--target", "sm_86", "--count", "1"], &d.join("g"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`.target sm_86` needs PTX ISA 7.1"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}
