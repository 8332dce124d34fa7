//! Generated programs end to end (issue 6): their signatures judge another correct
//! implementation as correct, `ptxconf gen` is deterministic, and a fuzzing campaign finds a
//! planted bug and reduces it to a small repro.

use generators::program::{checked, program_seed, Config};
use std::path::{Path, PathBuf};

mod common;
use common::{planted_backend, ptxconf, scratch};

/// The oracle with every unspecified choice made differently (another NaN, the other `rem`
/// convention, a neighbour within an approximate instruction's bound) is another correct
/// implementation: no generated program may tell it from the oracle. The perturbation must also
/// show in the raw bytes of many programs, or this test would prove nothing.
#[test]
fn another_correct_implementation_passes_every_program() {
    let cfg = Config::default();
    let (mut differ_bytes, mut refused, n) = (0, 0, 300u64);
    for i in 0..n {
        let ck = checked(program_seed(7, i), &cfg).unwrap_or_else(|e| panic!("program {i}: {e}"));
        refused += ck.attempts;
        let (p, expected) = (ck.program, ck.expected);
        let (observed, _) =
            oracle::launch::run_perturbed(&p.launch, &p.ptx, i).unwrap_or_else(|e| panic!("program {i}: {e}"));
        if expected != observed {
            differ_bytes += 1;
        }
        let m = ptxconf::judge::compare(p.launch.check.as_ref(), &expected, &observed).unwrap();
        assert!(
            m.is_empty(),
            "program {i}: the judge rejects a correct implementation: {}\n{}",
            m[0],
            p.ptx
        );
    }
    assert!(
        differ_bytes * 4 >= n,
        "only {differ_bytes} of {n} programs' bytes changed under perturbation"
    );
    // The audit replaces few programs (a probe's misses are corners).
    assert!(
        refused * 20 <= n as u32,
        "{refused} of {n} programs were refused by the audit"
    );
    eprintln!("{differ_bytes} of {n} programs' bytes differ under perturbation; {refused} refused by the audit");
}

/// A judge that compared bytes would reject the perturbed oracle: the check is what accepts it.
#[test]
fn the_check_is_what_accepts_other_nans() {
    let cfg = Config::default();
    let found = (0..200u64).any(|i| {
        let ck = checked(program_seed(7, i), &cfg).unwrap();
        let (p, e) = (ck.program, ck.expected);
        let (o, _) = oracle::launch::run_perturbed(&p.launch, &p.ptx, i).unwrap();
        !ptxconf::judge::compare(None, &e, &o).unwrap().is_empty()
    });
    assert!(found);
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn gen_writes_the_same_files_for_the_same_seed() {
    let d = scratch("gen");
    for sub in ["a", "b"] {
        let out = ptxconf()
            .args(["gen", "--seed", "11", "--count", "5", "--out"])
            .arg(d.join(sub))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let (a, b) = (files(&d.join("a")), files(&d.join("b")));
    assert_eq!(a.len(), 10);
    assert_eq!(a, b);
    // Each launch runs as written with `ptxconf run`.
    let out = ptxconf().arg("run").arg(d.join("a/p000003.json")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    // Another seed, other programs.
    let out = ptxconf()
        .args(["gen", "--seed", "12", "--count", "1", "--out"])
        .arg(d.join("c"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_ne!(files(&d.join("c"))[1].1, a[1].1);
    let _ = std::fs::remove_dir_all(&d);
}

/// The criterion: a campaign finds the planted bug within 60 s and reduces it to at most
/// 10 instructions; the finding is on disk, replays, and names the form.
#[test]
fn a_campaign_finds_and_reduces_a_planted_bug() {
    let d = scratch("planted");
    // Every `add.rn.f32` becomes `add.rz.f32`: a rounding-mode bug in one form.
    let backend = planted_backend(&d, "s/add\\.rn\\.f32 /add.rz.f32 /g");
    let findings = d.join("findings");
    let t = std::time::Instant::now();
    let out = ptxconf()
        .args([
            "fuzz",
            "--quiet",
            "--stop-at-first",
            "--seconds",
            "60",
            "--jobs",
            "2",
            "--family",
            "9.7.3",
        ])
        .args(["--backend", &backend, "--findings"])
        .arg(&findings)
        .output()
        .unwrap();
    let stdout = common::stdout_of(&out, 1);
    assert!(stdout.contains("finding: program"), "{stdout}");
    let dirs: Vec<PathBuf> = std::fs::read_dir(&findings)
        .unwrap()
        .flat_map(|b| std::fs::read_dir(b.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    assert!(!dirs.is_empty(), "no finding written");
    let f = &dirs[0];
    let ptx = std::fs::read_to_string(f.join("reduced.ptx")).expect("reduced.ptx");
    let n = ptxconf::reduce::count_instructions(&ptx);
    assert!(n <= 10, "reduced to {n} instructions:\n{ptx}");
    assert!(
        ptx.contains("add.rn.f32"),
        "the reduced program lost the planted form:\n{ptx}"
    );
    let report = std::fs::read_to_string(f.join("report.txt")).unwrap();
    assert!(report.contains(&backend[4..]) || report.contains("planted"), "{report}");
    // The reduced launch still passes on the oracle and still fails on the planted backend.
    let launch = f.join("launch.json");
    let out = ptxconf().arg("run").arg(&launch).output().unwrap();
    assert!(out.status.success());
    let out = ptxconf()
        .args(["reduce", "--backend", &backend])
        .arg(&launch)
        .arg("--out")
        .arg(d.join("again"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    eprintln!(
        "found and reduced in {:.1} s to {n} instructions",
        t.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&d);
}
