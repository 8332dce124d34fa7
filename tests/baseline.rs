//! Baselines (`conform --write-baseline`, `conform --baseline`) on planted-bug backends: the
//! file records each form's result with a stable failure signature; a run as recorded exits 0
//! with "no change"; a changed entry or a newly failing form is reported, line for line, as a
//! fix (exit 0) or a regression (exit 1).

use std::io::Read as _;
use std::path::{Path, PathBuf};

mod common;
use common::{planted_backend, ptxconf, scratch};

/// The filters of every run here (substrings: 12 forms, `add.rn.f32x2` and the mixed-precision
/// `add.rn.f32.f16` among them); `add.rn.f32` is the one the rounding bug breaks.
const FORMS: [&str; 3] = ["add.rn.f32", "add.rz.f32", "add.rm.f32"];

/// The forms [`FORMS`] selects, sorted.
const KEYS: [&str; 12] = [
    "add.rm.f32",
    "add.rm.f32.bf16",
    "add.rm.f32.f16",
    "add.rm.f32x2",
    "add.rn.f32",
    "add.rn.f32.bf16",
    "add.rn.f32.f16",
    "add.rn.f32x2",
    "add.rz.f32",
    "add.rz.f32.bf16",
    "add.rz.f32.f16",
    "add.rz.f32x2",
];

/// `add.rn.f32` runs as `add.rz.f32` (the wrong_impl suite's rounding bug).
const RN_AS_RZ: &str = "s/\\tadd\\.rn\\.f32 /\\tadd.rz.f32 /";

/// `conform` of [`FORMS`] on `backend` with extra arguments (repros into the system's temporary
/// directory): exit code and stdout.
fn conform(backend: &str, extra: &[&std::ffi::OsStr]) -> (i32, String) {
    let repro = std::env::temp_dir().join(format!("ptxconf-baseline-repro-{}", std::process::id()));
    let out = ptxconf()
        .args(["conform", "--quiet", "--backend", backend])
        .args(FORMS)
        .args(extra)
        .arg("--repro")
        .arg(repro)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let code = out.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 1,
        "exit {code}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (code, stdout)
}

/// The lines `--baseline` printed: from the first `regression`/`fix`/... or `baseline` line on.
fn comparison(stdout: &str) -> Vec<&str> {
    let kinds = [
        "regression ",
        "fix ",
        "improved ",
        "changed ",
        "new ",
        "missing ",
        "baseline",
        "no regression",
    ];
    let lines: Vec<&str> = stdout.lines().collect();
    let start = lines
        .iter()
        .rposition(|l| l.is_empty())
        .unwrap_or_else(|| panic!("no comparison in\n{stdout}"));
    let tail = &lines[start + 1..];
    assert!(tail.iter().all(|l| kinds.iter().any(|k| l.starts_with(k))), "{stdout}");
    tail.to_vec()
}

/// 64-bit FNV-1a of lines, each followed by `\n` (the file's digest, computed here on its own).
fn fnv(lines: &[String]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for l in lines {
        for &b in l.as_bytes().iter().chain(b"\n") {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// A golden-vector file's vector lines, as stored (not through the suite's reader).
fn vector_lines(key: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/vectors");
    let path = std::fs::read_dir(&root)
        .unwrap()
        .map(|d| d.unwrap().path().join(format!("{key}.vec.gz")))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("no vector file of {key}"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The runs the report counts for form `key`: each vector's own, and its immediate-operand runs
/// (the kernel builder's sample, `ptxconf::kernel`), read from the committed vector file.
fn runs(key: &str) -> usize {
    let form = &spec::catalog::catalog().forms[spec::vector::form_by_key(key).unwrap()];
    let path = ptxconf::vectors::path_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/vectors"), form);
    let fv = ptxconf::conform::load(&path, &ptxconf::conform::Settings::default())
        .unwrap_or_else(|(_, e)| panic!("{key}: {e}"));
    let all: Vec<usize> = (0..fv.vectors.len()).collect();
    let batches = ptxconf::kernel::build(form, &fv.vectors, &all, all.len()).unwrap();
    batches.iter().map(|b| b.vectors.len()).sum()
}

/// The baseline's line of form `key`, split into its columns.
fn entry(baseline: &str, key: &str) -> Vec<String> {
    baseline
        .lines()
        .find(|l| l.split('\t').next() == Some(key))
        .unwrap_or_else(|| panic!("{key} not in\n{baseline}"))
        .split('\t')
        .map(str::to_string)
        .collect()
}

/// `file` with the line of form `key` replaced by `line` (removed when empty).
fn edit(file: &Path, key: &str, line: &str) -> PathBuf {
    let text = std::fs::read_to_string(file).unwrap();
    let mut out = String::new();
    for l in text.lines() {
        if l.split('\t').next() == Some(key) {
            if !line.is_empty() {
                out.push_str(line);
                out.push('\n');
            }
        } else {
            out.push_str(l);
            out.push('\n');
        }
    }
    assert_ne!(out, text, "{key} not in the baseline");
    let edited = file.with_extension(format!("{}.tsv", key.replace('.', "_")));
    std::fs::write(&edited, out).unwrap();
    edited
}

fn os(s: &Path) -> &std::ffi::OsStr {
    s.as_os_str()
}

#[test]
fn a_baseline_records_each_form_and_reports_what_changed() {
    let dir = scratch("baseline");
    let backend = planted_backend(&dir, RN_AS_RZ);
    let file = dir.join("baseline.tsv");
    let (code, _) = conform(&backend, &["--write-baseline".as_ref(), os(&file)]);
    assert_eq!(code, 1, "the planted bug fails a form");
    let text = std::fs::read_to_string(&file).unwrap();

    // The header, then one line per form, sorted by key.
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "# ptxconf baseline 1");
    assert_eq!(lines[1], format!("# backend: {backend}"));
    assert_eq!(lines[2], format!("# ptxconf: {}", env!("CARGO_PKG_VERSION")));
    assert!(
        lines[3].starts_with("# vector set: ") && lines[3].ends_with(" (12 forms)"),
        "{text}"
    );
    assert_eq!(
        lines[4],
        "# columns: form, expect, class, failed/vectors, failing digest, vectors digest"
    );
    let keys: Vec<&str> = lines[5..].iter().map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(keys, KEYS);

    // Passed forms: their vectors' digest is the digest of the file's lines.
    for key in KEYS.into_iter().filter(|&k| k != "add.rn.f32") {
        let v = vector_lines(key);
        assert_eq!(
            entry(&text, key),
            ["passed", "-", &format!("0/{}", runs(key)), "-", &fnv(&v)].iter().fold(
                vec![key.to_string()],
                |mut a, c| {
                    a.push(c.to_string());
                    a
                }
            )
        );
    }
    // The failed form: wrong values, as many as the JSON report counts.
    let rn = entry(&text, "add.rn.f32");
    let all = vector_lines("add.rn.f32");
    let n_rn = runs("add.rn.f32");
    assert_eq!(rn[1..3], ["failed", "wrong"]);
    assert_eq!(rn[5], fnv(&all));
    let json = dir.join("report.json");
    conform(&backend, &["--json".as_ref(), os(&json)]);
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let failed = report["forms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["form"] == "add.rn.f32")
        .unwrap()["failed"]
        .as_u64()
        .unwrap();
    assert!(failed > 0 && (failed as usize) < n_rn);
    assert_eq!(rn[3], format!("{failed}/{}", n_rn));
    let rn_was = format!("failed wrong {failed}/{} {}", n_rn, rn[4]);

    // Deterministic: another run, one job at a time, writes the same file.
    let again = dir.join("again.tsv");
    conform(
        &backend,
        &["--jobs".as_ref(), "1".as_ref(), "--write-baseline".as_ref(), os(&again)],
    );
    assert_eq!(std::fs::read_to_string(&again).unwrap(), text);

    // As recorded: exit 0 although a form fails.
    let (code, out) = conform(&backend, &["--baseline".as_ref(), os(&file)]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        comparison(&out),
        [format!("baseline {}: no change (12 forms as recorded)", file.display())]
    );

    // Recorded as failing, now passing: a fix (exit 0, with the hint).
    let zero = "0".repeat(16);
    let rz = fnv(&vector_lines("add.rz.f32"));
    let fixed = edit(
        &file,
        "add.rz.f32",
        &format!("add.rz.f32\tfailed\twrong\t3/384\t{zero}\t{rz}"),
    );
    let (code, out) = conform(&backend, &["--baseline".as_ref(), os(&fixed)]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        comparison(&out),
        [
            format!("fix add.rz.f32: failed wrong 3/384 {zero} -> passed (now passes)"),
            format!(
                "baseline {}: 0 regressions, 1 fixes, 0 improved, 0 changed, 0 new, 0 missing, 11 unchanged",
                fixed.display()
            ),
            format!(
                "no regression; to record the new results, run again with --write-baseline {}",
                fixed.display()
            ),
        ]
    );

    // Recorded as passing, now failing: a regression (exit 1).
    let passed = edit(
        &file,
        "add.rn.f32",
        &format!("add.rn.f32\tpassed\t-\t0/{}\t-\t{}", n_rn, rn[5]),
    );
    let (code, out) = conform(&backend, &["--baseline".as_ref(), os(&passed)]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        comparison(&out),
        [
            format!("regression add.rn.f32: passed -> {rn_was} (now fails)"),
            format!(
                "baseline {}: 1 regressions, 0 fixes, 0 improved, 0 changed, 0 new, 0 missing, 11 unchanged",
                passed.display()
            ),
        ]
    );

    // The same failure over other vectors (its signature changed): a regression.
    let other = edit(
        &file,
        "add.rn.f32",
        &format!("add.rn.f32\t{}\t{}\t{}\t{zero}\t{}", rn[1], rn[2], rn[3], rn[5]),
    );
    let (code, out) = conform(&backend, &["--baseline".as_ref(), os(&other)]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        comparison(&out)[0],
        format!(
            "regression add.rn.f32: failed wrong {} {zero} -> {rn_was} (other vectors fail)",
            rn[3]
        )
    );

    // Recorded as refused by the implementation (a worse class), now wrong values: improved.
    let milder = edit(
        &file,
        "add.rn.f32",
        &format!("add.rn.f32\tfailed\trejected:parse\t{0}/{0}\t{1}\t{1}", n_rn, rn[5]),
    );
    let (code, out) = conform(&backend, &["--baseline".as_ref(), os(&milder)]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        comparison(&out)[0],
        format!(
            "improved add.rn.f32: failed rejected:parse {0}/{0} {1} -> {rn_was} (a milder failure)",
            n_rn, rn[5]
        )
    );

    // Recorded over other vectors (its vectors digest differs): counts are not compared, a change.
    let moved = edit(
        &file,
        "add.rn.f32",
        &format!("add.rn.f32\tfailed\twrong\t1/{}\t{zero}\t{zero}", n_rn),
    );
    let (code, out) = conform(&backend, &["--baseline".as_ref(), os(&moved)]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        comparison(&out)[..2],
        [
            "baseline: the vectors of 1 forms differ from the recorded ones; their failures are compared by class only"
                .to_string(),
            format!(
                "changed add.rn.f32: failed wrong 1/{} {zero} -> {rn_was} (its vectors changed)",
                n_rn
            ),
        ]
    );

    // A form not in the baseline, and one the run does not select.
    let new = edit(&file, "add.rm.f32", "add.rp.f32\tpassed\t-\t0/384\t-\t-");
    let (code, out) = conform(&backend, &["--baseline".as_ref(), os(&new)]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        comparison(&out)[..2],
        [
            "new add.rm.f32: - -> passed (not in the baseline)",
            "missing add.rp.f32: passed -> - (not in this run)",
        ]
    );
}

#[test]
fn a_form_that_newly_fails_or_crashes_is_a_regression_in_every_report() {
    let dir = scratch("baseline-new");
    let file = dir.join("baseline.tsv");
    let backend = planted_backend(&dir, RN_AS_RZ);
    conform(&backend, &["--write-baseline".as_ref(), os(&file)]);
    let rn = entry(&std::fs::read_to_string(&file).unwrap(), "add.rn.f32");

    // A second bug: `add.rm.f32` runs as `add.rp.f32` too.
    let worse_dir = scratch("baseline-new-worse");
    let worse = planted_backend(&worse_dir, &format!("{RN_AS_RZ};s/\\tadd\\.rm\\.f32 /\\tadd.rp.f32 /"));
    let (json, junit) = (dir.join("report.json"), dir.join("report.xml"));
    let (code, out) = conform(
        &worse,
        &[
            "--baseline".as_ref(),
            os(&file),
            "--json".as_ref(),
            os(&json),
            "--junit".as_ref(),
            os(&junit),
        ],
    );
    assert_eq!(code, 1, "{out}");
    let lines = comparison(&out);
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].starts_with("regression add.rm.f32: passed -> failed wrong ") && lines[0].ends_with(" (now fails)"),
        "{out}"
    );
    assert_eq!(
        lines[1],
        format!(
            "baseline {}: 1 regressions, 0 fixes, 0 improved, 0 changed, 0 new, 0 missing, 11 unchanged",
            file.display()
        )
    );
    // The JSON report carries the comparison.
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let b = &report["baseline"];
    assert_eq!(b["regressions"], 1);
    assert_eq!(b["unchanged"], 11);
    assert_eq!(b["vectors_changed"], 0);
    assert_eq!(b["forms"][0]["form"], "add.rm.f32");
    assert_eq!(b["forms"][0]["change"], "regression");
    assert_eq!(b["forms"][0]["was"], "passed");
    // JUnit: the regression is the one failure; the expected failure is skipped, saying so.
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("tests=\"12\" failures=\"1\" skipped=\"1\""), "{xml}");
    assert!(
        xml.contains(&format!(
            "<skipped message=\"expected failure (baseline {}: failed wrong {} {})\"/>",
            file.display(),
            rn[3],
            rn[4]
        )),
        "{xml}"
    );

    // A backend that dies on every launch: every failing form got worse, every passing one fails.
    let crash_dir = scratch("baseline-new-crash");
    let script = crash_dir.join("crash.sh");
    std::fs::write(&script, "#!/bin/sh\nkill -SEGV $$\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let crash = format!("cmd:{}", script.display());
    let (code, out) = conform(&crash, &["--baseline".as_ref(), os(&file)]);
    assert_eq!(code, 1, "{out}");
    let all = fnv(&vector_lines("add.rn.f32"));
    let n = runs("add.rn.f32");
    let lines = comparison(&out);
    assert_eq!(lines.len(), 13, "{out}");
    for (line, key) in lines.iter().zip(KEYS) {
        if key == "add.rn.f32" {
            assert_eq!(
                *line,
                format!(
                    "regression add.rn.f32: failed wrong {} {} -> failed crashed {n}/{n} {all} (a worse failure)",
                    rn[3], rn[4]
                ),
                "{out}"
            );
        } else {
            // Each failing digest is its form's whole vector file's: every vector failed.
            let v = vector_lines(key);
            assert_eq!(
                *line,
                format!(
                    "regression {key}: passed -> failed crashed {0}/{0} {1} (now fails)",
                    runs(key),
                    fnv(&v)
                )
            );
        }
    }
}

#[test]
fn an_unreadable_baseline_is_a_usage_error_naming_the_line() {
    let dir = scratch("baseline-bad");
    let file = dir.join("bad.tsv");
    std::fs::write(
        &file,
        "# ptxconf baseline 1\nadd.rn.f32\tfailed\twrongish\t1/2\t00\t-\n",
    )
    .unwrap();
    let out = ptxconf()
        .args(["conform", "--quiet", "add.rn.f32", "--baseline"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: --baseline {}: line 2: unknown failure class `wrongish`\n",
            file.display()
        )
    );
    std::fs::write(&file, "add.rn.f32\tpassed\t-\t0/2\t-\t-\n").unwrap();
    let out = ptxconf()
        .args(["conform", "--quiet", "add.rn.f32", "--baseline"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a ptxconf baseline"));
}

/// `fuzz --baseline`: a campaign whose one finding reduces to a recorded signature passes; the
/// same program unreduced has another signature, a new finding, and fails.
#[test]
fn a_fuzz_finding_with_a_recorded_signature_is_known() {
    let dir = scratch("baseline-fuzz");
    let backend = planted_backend(&dir, "s/add\\.rn\\.f32 /add.rz.f32 /g");
    let known = dir.join("known.txt");
    // Program 4 of seed 1 (floating-point family) uses add.rn.f32 where the rounding shows.
    let fuzz = |extra: &[&std::ffi::OsStr]| {
        let out = ptxconf()
            .args([
                "fuzz", "--quiet", "--first", "4", "--count", "1", "--jobs", "1", "--family", "9.7.3",
            ])
            .args(["--backend", &backend, "--findings"])
            .arg(dir.join("findings"))
            .args(extra)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        (out.status.code(), stdout)
    };
    let (code, out) = fuzz(&["--write-baseline".as_ref(), os(&known)]);
    assert_eq!(code, Some(1), "{out}");
    let text = std::fs::read_to_string(&known).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "# ptxconf fuzz baseline 1",
            &format!("# backend: {backend}"),
            &format!("# ptxconf: {}", env!("CARGO_PKG_VERSION"))
        ]
    );
    assert_eq!(lines.len(), 4, "{text}");
    // The reduced program: the planted form, how its result is stored, nothing else.
    let sig = lines[3];
    assert!(
        sig.starts_with("wrong: ") && sig.split(' ').any(|i| i == "add.rn.f32"),
        "{sig}"
    );
    assert!(sig.split(' ').count() <= 11, "not reduced: {sig}");

    let (code, out) = fuzz(&["--baseline".as_ref(), os(&known)]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.lines().next().unwrap().ends_with("1 mismatching value(s) (known)"),
        "{out}"
    );
    assert_eq!(
        out.lines().last().unwrap(),
        format!("baseline {}: 1 known finding(s), 0 new", known.display())
    );

    let (code, out) = fuzz(&["--no-reduce".as_ref(), "--baseline".as_ref(), os(&known)]);
    assert_eq!(code, Some(1), "{out}");
    let tail: Vec<&str> = out.lines().rev().take(2).collect();
    assert_eq!(
        tail[0],
        format!("baseline {}: 0 known finding(s), 1 new", known.display())
    );
    assert!(
        tail[1].starts_with("new finding: program 4: wrong: ") && tail[1] != format!("new finding: program 4: {sig}"),
        "{out}"
    );
}
