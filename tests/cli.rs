//! The `ptxconf` binary as a user runs it: exit codes, output lines, batch mode, coverage JSON.

use std::io::Write;
use std::process::{Command, Stdio};

fn ptxconf(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxconf"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ptxconf");
    if let Some(s) = stdin {
        child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
    } else {
        drop(child.stdin.take());
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn eval_prints_the_destination() {
    assert_eq!(
        ptxconf(&["eval", "add.sat.s32", "0x7fffffff", "0x1"], None),
        (0, "0x7fffffff\n".into(), String::new())
    );
    // Negative decimal operands are not mistaken for flags.
    let (code, out, _) = ptxconf(&["eval", "fns.b32", "0xaaaaaaaa", "2", "-1"], None);
    assert_eq!((code, out.as_str()), (0, "0x00000001\n"));
}

#[test]
fn invalid_forms_exit_2_with_a_reason() {
    let (code, out, err) = ptxconf(&["eval", "add.sat.u32", "0x1", "0x2"], None);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("`.u32` cannot follow `add.sat`"), "{err}");
    let (code, _, err) = ptxconf(&["eval", "bfe.b16", "0x1", "0", "1"], None);
    assert_eq!(code, 2);
    assert!(err.contains("`.b16` cannot follow `bfe`"), "{err}");
    let (code, _, err) = ptxconf(&["eval", "add.s32", "0x1"], None);
    assert_eq!(code, 2);
    assert!(err.contains("takes 2 source operands"), "{err}");
}

#[test]
fn batch_answers_every_line_in_order() {
    let input = "add.s32 1 2\nbfe.b16 1 2 3\n\naddc.cc.u32 0xffffffff 0 cf=1\n";
    let (code, out, _) = ptxconf(&["eval", "--batch"], Some(input));
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0], "0x00000003");
    assert!(lines[1].starts_with("error: `bfe.b16`"), "{}", lines[1]);
    assert!(lines[2].starts_with("error: empty line"), "{}", lines[2]);
    assert_eq!(lines[3], "0x00000000 cf=1");
}

#[test]
fn coverage_json_has_families_totals_and_forms() {
    let (code, out, _) = ptxconf(&["coverage", "--json"], None);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let fam = v["families"].as_array().unwrap();
    let int = fam.iter().find(|f| f["id"] == "9.7.1").expect("9.7.1 reported");
    assert_eq!(int["forms"], int["semantics"]);
    assert!(int["forms"].as_u64().unwrap() > 100);
    let secs = v["sections"].as_array().unwrap();
    assert_eq!(secs.len(), 196);
    let prmt = secs
        .iter()
        .find(|s| s["id"] == "9.7.9.7")
        .expect("prmt section reported");
    assert_eq!(prmt["forms"], prmt["semantics"]);
    assert_eq!(prmt["line"], 12087);
    let forms = v["forms"].as_array().unwrap();
    assert_eq!(forms.len() as u64, v["total"]["forms"].as_u64().unwrap());
    let add = forms.iter().find(|f| f["name"] == "add.sat.s32").unwrap();
    assert_eq!(add["section"], "9.7.1.1");
    assert_eq!(add["class"], "bit-exact");
    assert_eq!(add["semantics"], true);
    assert_eq!(add["kernels"], false, "a value form is judged by its vectors");
    // The operational forms with conformance scenarios: every mbarrier form (§9.7.13.15) and
    // the cp.async ones (§9.7.9.25.3).
    let init = forms.iter().find(|f| f["name"] == "mbarrier.init.shared.b64").unwrap();
    assert_eq!((&init["kernels"], &init["vectors"]), (&true.into(), &false.into()));
    let sync = fam.iter().find(|f| f["id"] == "9.7.13").unwrap();
    assert!(sync["kernels"].as_u64().unwrap() >= 360, "{sync}");
    let (code, table, _) = ptxconf(&["coverage"], None);
    assert_eq!(code, 0);
    assert!(table.lines().any(|l| l.starts_with("total")), "{table}");
}

/// The README's floating-point examples, with values derived by hand: each tag is one token.
#[test]
fn eval_prints_float_results_and_their_acceptance_tags() {
    let cases = [
        // 1 + 2^-24 truncated toward zero is 1.0.
        (&["add.rz.f32", "1.0", "0x33800000"][..], "0x3f800000"),
        // ∞ − ∞: an unspecified f32 NaN, modelled by the canonical 0x7fffffff.
        (&["add.f32", "inf", "-inf"][..], "0x7fffffff nan"),
        // e4m3 1.0 = 0x38 in d[15:8] (from a), 2.0 = 0x40 in d[7:0] (from b), L13709-13744.
        (
            &["cvt.rn.satfinite.e4m3x2.f32", "0x3f800000", "0x40000000"][..],
            "0x3840",
        ),
        // f16x2 lanes: NaN + 0 in the high lane, 1 + 1 = 2.0 (0x4000) in the low one.
        (
            &["add.rn.f16x2", "0x7e003c00", "0x00003c00"][..],
            "0x7fff4000 lanes:nan/-",
        ),
        // 1/3: RN(1/3) in f32 is 0x3eaaaaab; the reference is 1/3 in f64, 1 ulp allowed (L8445).
        (&["rcp.approx.f32", "3.0"][..], "0x3eaaaaab ulp:1@3fd5555555555555"),
        // PTX's bit literal for f32, and testp's "zero is normal" (L7472).
        (&["testp.normal.f32", "0f80000000"][..], "1"),
    ];
    for (args, want) in cases {
        let mut v = vec!["eval"];
        v.extend_from_slice(args);
        let (code, out, err) = ptxconf(&v, None);
        assert_eq!((code, out.trim_end()), (0, want), "{args:?}: {err}");
    }
    // A literal of the wrong width is refused, not reinterpreted.
    let (code, _, err) = ptxconf(&["eval", "add.rn.f32", "0d3ff0000000000000", "1.0"], None);
    assert_eq!(code, 2);
    assert!(err.contains("not a float literal of this type"), "{err}");
}

/// Runs a `ptxconf` executable in `dir` with extra environment variables.
fn run_in(exe: &std::path::Path, dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(exe)
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .output()
        .expect("run ptxconf");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The summary line of a `conform` report.
fn summary(out: &str) -> &str {
    out.lines().find(|l| l.contains("forms passed")).unwrap_or("")
}

/// `conform` outside the repository: the built binary finds the corpus next to itself; a copy
/// elsewhere finds the tree it was built from; with no corpus reachable it generates the golden
/// set in memory and judges the same vectors.
#[test]
fn conform_works_from_any_directory_and_without_a_corpus() {
    let tmp = std::env::temp_dir().join(format!("ptxconf-cli-anywhere-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let (bin, empty) = (tmp.join("bin"), tmp.join("empty"));
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&empty).unwrap();
    let args = ["conform", "--quiet", "add.sat.s32", "--repro", "repro"];
    let built = std::path::Path::new(env!("CARGO_BIN_EXE_ptxconf"));
    let (code, out, err) = run_in(built, &tmp, &args, &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    let judged = summary(&out).to_string();
    assert!(judged.starts_with("1 forms passed, 0 failed"), "{out}");
    assert!(err.contains("golden vectors: "), "{err}");

    // A copy outside the repository: the build tree's corpus.
    let copy = bin.join("ptxconf");
    std::fs::copy(built, &copy).unwrap();
    let (code, out, err) = run_in(&copy, &tmp, &args, &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/vectors");
    assert!(err.contains(&repo.display().to_string()), "{err}");

    // No corpus reachable: generated in memory, the same vectors judged.
    let none = [("PTXCONF_CORPUS", empty.to_str().unwrap())];
    let (code, out, err) = run_in(&copy, &tmp, &args, &none);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        err.contains("no golden-vector corpus found") && err.contains("generating the golden set in memory"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(summary(&out).split(" in ").next(), judged.split(" in ").next(), "{out}");
    // `vectors cat` prints the committed file's text either way.
    let (_, from_file, _) = run_in(built, &tmp, &["vectors", "cat", "add.sat.s32"], &[]);
    let (code, generated, err) = run_in(&copy, &tmp, &["vectors", "cat", "add.sat.s32"], &none);
    assert_eq!(code, 0, "{err}");
    assert!(from_file.starts_with("# ptxconf golden vectors"), "{from_file}");
    assert_eq!(generated, from_file);
    // Nothing to verify without a corpus: a usage error naming where it looked.
    let (code, _, err) = run_in(&copy, &tmp, &["vectors", "verify", "add.sat.s32"], &none);
    assert_eq!(code, 2);
    assert!(err.contains(empty.to_str().unwrap()), "{err}");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The coverage columns are measured, not assumed: the oracle executes memory, atomics,
/// collectives and control flow beyond the pure forms; the generator emits some of each but not
/// everything; refused forms carry the oracle's reason.
#[test]
fn coverage_counts_executed_and_generated_forms() {
    let (code, out, _) = ptxconf(&["coverage", "--json"], None);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let n = |x: &serde_json::Value, k: &str| x[k].as_u64().unwrap_or_else(|| panic!("{k}: {x}"));
    let t = &v["total"];
    assert!(
        n(t, "semantics") < n(t, "executed") && n(t, "executed") < n(t, "forms"),
        "{t}"
    );
    assert!(
        n(t, "generated") > 1000 && n(t, "generated") < n(t, "semantics") + 200,
        "{t}"
    );
    assert_eq!(n(t, "vectors"), n(t, "semantics"), "{t}");
    let fams = v["families"].as_array().unwrap();
    for k in ["forms", "semantics", "executed", "generated", "vectors"] {
        assert_eq!(fams.iter().map(|f| n(f, k)).sum::<u64>(), n(t, k), "{k}");
    }
    let fam = |id: &str| fams.iter().find(|f| f["id"] == id).unwrap_or_else(|| panic!("{id}"));
    // Synchronization: atomics, barriers, collectives run; a few are generated.
    let sync = fam("9.7.13");
    assert_eq!(n(sync, "semantics"), 0);
    assert!(
        n(sync, "executed") > 1000 && n(sync, "executed") < n(sync, "forms"),
        "{sync}"
    );
    assert!((20..200).contains(&n(sync, "generated")), "{sync}");
    // Control flow runs in full; the warp-level and warpgroup tensor-core instructions too
    // (the sparse block-scaled `mma` included); tcgen05 not at all.
    let ctl = fam("9.7.12");
    assert_eq!(n(ctl, "executed"), n(ctl, "forms"));
    assert!(n(ctl, "generated") >= 4, "{ctl}");
    let (warp, group) = (fam("9.7.14"), fam("9.7.15"));
    // Every tensor-core form has semantics and vectors; all execute but the 27 sm_100a
    // `ldmatrix`/`stmatrix` forms the manual forbids, which the checker refuses (their vectors
    // say `refused`).
    assert_eq!(n(warp, "executed"), n(warp, "forms") - 27, "{warp}");
    assert_eq!(n(group, "executed"), n(group, "forms"), "{group}");
    for f in [warp, group] {
        assert!(
            n(f, "semantics") == n(f, "forms") && n(f, "vectors") == n(f, "semantics"),
            "{f}"
        );
    }
    assert_eq!(n(fam("9.7.16"), "executed"), 0);
    // The stack instructions and the miscellaneous ones (`brkpt`, `setmaxnreg`, ...) run in full.
    for id in ["9.7.17", "9.7.19"] {
        assert_eq!(n(fam(id), "executed"), n(fam(id), "forms"), "{}", fam(id));
    }
    // The generator writes the exact warp-level ones (integer mma, movmatrix).
    assert!(n(fam("9.7.14"), "generated") >= 1);
    let forms = v["forms"].as_array().unwrap();
    let form = |name: &str| {
        forms
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    let atom = form("atom.global.add.u32");
    assert_eq!(
        (&atom["executed"], &atom["semantics"], &atom["generated"]),
        (&true.into(), &false.into(), &true.into()),
        "{atom}"
    );
    assert!(atom.get("refused").is_none(), "{atom}");
    // Every §9.7.15 form has semantics and vectors (the control forms by their programs); a
    // form the manual forbids has its `refused` vector and is refused by the checker, which
    // names the rule.
    assert_eq!(n(group, "semantics"), n(group, "forms"), "{group}");
    let bad = form("ldmatrix.sync.aligned.m16n16.x1.b8");
    assert_eq!(
        (&bad["semantics"], &bad["vectors"], &bad["executed"]),
        (&true.into(), &true.into(), &false.into()),
        "{bad}"
    );
    assert!(bad["refused"].as_str().unwrap().contains("(L23499)"), "{bad}");
    for name in [
        "ld.global.v4.f32",
        "bar.sync",
        "shfl.sync.bfly.b32",
        "vote.sync.ballot.b32",
        "bra",
    ] {
        assert_eq!(form(name)["executed"], true, "{name}");
    }
    for name in [
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16",
        "wgmma.fence.sync.aligned",
    ] {
        assert_eq!(form(name)["executed"], true, "{name}");
    }
    for name in [
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32",
        "wgmma.mma_async.sp.sync.aligned.m64n64k32.f32.f16.f16",
    ] {
        assert_eq!(form(name)["executed"], true, "{name}");
    }
    // `cvta` on 32-bit addresses runs in a 32-bit module, which the probe writes for it
    // (a 64-bit module refuses it, as ptxas 12.9 does: corpus/findings/ptxas-12.9-32-bit-addresses.txt),
    // and has scenarios; `mov.u32 d, avar` runs (a `.shared` variable's address, which ptxas
    // takes); `cp.async` with its optional operands runs.
    for name in [
        "cvta.to.global.u32",
        "cvta.shared::cluster.u32",
        "mapa.u32",
        "getctarank.u32",
    ] {
        let f = form(name);
        assert_eq!(f["executed"], true, "{f}");
        assert_eq!(f["kernels"], true, "{f}");
    }
    for f in forms.iter().filter(|f| {
        f["signature"] == "mov.u32 d:u32 = avar:u32" || f["name"].as_str().unwrap().starts_with("cp.async.c")
    }) {
        assert_eq!(f["executed"], true, "{f}");
    }
    let not = form("tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64");
    assert_eq!(not["executed"], false);
    assert!(not["refused"].as_str().unwrap().contains("does not execute"), "{not}");
    // A pure form the generator leaves out (ptxas 12.9 rejects it) is still executed.
    let set = forms
        .iter()
        .find(|f| f["semantics"] == true && f["generated"] == false)
        .expect("a pure form the generator does not emit");
    assert_eq!(set["executed"], true, "{set}");
    let (_, table, _) = ptxconf(&["coverage"], None);
    let head = table.lines().next().unwrap();
    assert!(head.contains("executed") && head.contains("generated"), "{table}");
}

/// `bench mma` on one 32×32 tile: the oracle's GEMM must match the native one bit for bit, and
/// the report names the rate and the ratio (no timing is asserted).
#[test]
fn bench_mma_checks_the_oracles_gemm_and_prints_the_ratio() {
    let (code, out, err) = ptxconf(&["bench", "mma", "--size", "32"], None);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("32x32x32 GEMM"), "{out}");
    assert!(out.contains("M multiply-adds/s"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("ratio:  oracle is ") && l.ends_with("x slower than native")),
        "{out}"
    );
    let (code, _, err) = ptxconf(&["bench", "mma", "--size", "40"], None);
    assert_eq!(code, 1);
    assert!(err.contains("--size must be a positive multiple of 32"), "{err}");
}
