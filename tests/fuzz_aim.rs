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

/// A finding's `replay:` line writes its program again, byte for byte, although the campaign
/// was aimed (`--forms-from`, `--ptx 7.1 --target sm_86`) and its backend declared a
/// construct it lacks (`brx.idx`, which the generator then leaves out): the line carries every
/// option that shapes programs, as the campaign resolved them. `gen` with the seed and number
/// alone writes another program.
#[test]
fn a_findings_replay_line_writes_its_program_again() {
    let d = scratch("replay-line");
    let r = report(
        &d,
        &[
            ("add.s32", "passed"),
            ("xor.b32", "passed"),
            ("min.u32", "passed"),
            ("mul.lo.s64", "passed"),
        ],
    );
    // A planted bug: `add.s32` computes a difference. The backend declares sm_86, PTX 7.1 and
    // no `brx.idx`.
    let script = d.join("planted.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --capabilities ]; then echo '{{\"target\": \"sm_86\", \"ptx\": \"7.1\", \"lacks\": [\"brx.idx\"]}}'; exit 0; fi\nsed -i 's/add\\.s32 /sub.s32 /' \"$(dirname \"$1\")/kernel.ptx\"\nexec '{}' run \"$1\"\n",
            env!("CARGO_BIN_EXE_ptxconf")
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let findings = d.join("findings");
    let out = ptxconf()
        .args(["fuzz", "--backend", &format!("cmd:{}", script.display())])
        .args(["--ptx", "7.1", "--target", "sm_86", "--size", "30", "--seed", "3"])
        .args([
            "--count",
            "40",
            "--jobs",
            "1",
            "--no-reduce",
            "--stop-at-first",
            "--quiet",
        ])
        .arg("--forms-from")
        .arg(&r)
        .arg("--findings")
        .arg(&findings)
        .output()
        .unwrap();
    common::stdout_of(&out, 1);
    let dir = std::fs::read_dir(&findings)
        .unwrap()
        .flat_map(|b| std::fs::read_dir(b.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .expect("a finding");
    let report = std::fs::read_to_string(dir.join("report.txt")).unwrap();
    let line = report
        .lines()
        .find_map(|l| l.strip_prefix("replay: "))
        .unwrap_or_else(|| panic!("no replay line:\n{report}"));
    for want in [
        "--ptx 7.1",
        "--target sm_86",
        "--exclude brx.idx",
        "--size 30",
        "--seed 3",
        "--count 1",
        "--out replay",
    ] {
        assert!(line.contains(want), "`{want}` missing: {line}");
    }
    assert!(line.contains(&format!("--forms-from {}", r.display())), "{line}");
    // Run it as written (the paths here need no quoting), from a directory of its own.
    let words: Vec<&str> = line.split(' ').collect();
    assert_eq!(words[..2], ["ptxconf", "gen"], "{line}");
    let again = std::process::Command::new(env!("CARGO_BIN_EXE_ptxconf"))
        .args(&words[1..])
        .current_dir(&d)
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let first: u64 = words
        .windows(2)
        .find(|w| w[0] == "--first")
        .and_then(|w| w[1].parse().ok())
        .expect("--first N");
    let written = d.join("replay").join(format!("p{first:06}.ptx"));
    let program = std::fs::read(dir.join("program.ptx")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&std::fs::read(&written).unwrap()),
        String::from_utf8_lossy(&program),
        "the replay wrote another program"
    );
    // The launch too, but for the PTX file's name.
    let launch = |p: &Path| {
        let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("ptx");
        v
    };
    assert_eq!(
        launch(&d.join("replay").join(format!("p{first:06}.json"))),
        launch(&dir.join("launch.json"))
    );
    // Without the campaign's options, the seed and number name another program.
    let bare = gen(
        &["--seed", "3", "--first", &first.to_string(), "--count", "1"],
        &d.join("bare"),
    );
    assert!(bare.status.success());
    assert_ne!(
        std::fs::read(d.join("bare").join(format!("p{first:06}.ptx"))).unwrap(),
        program
    );
    let _ = std::fs::remove_dir_all(&d);
}
