//! The runner finds a deliberately wrong implementation: a `cmd:` backend that runs the oracle
//! on a kernel whose `add.rn.f32` was rewritten as `add.rz.f32` (a rounding-mode bug). The run
//! must fail exactly that form, show mismatching vectors, and leave a repro that reproduces it.

use std::path::Path;

mod common;
use common::{planted_backend, ptxconf, scratch};

/// `add.rn.f32` becomes `add.rz.f32` (in the conformance kernel's one instruction line).
fn wrong_backend(dir: &Path) -> String {
    planted_backend(dir, "s/\\tadd\\.rn\\.f32 /\\tadd.rz.f32 /")
}

/// A `conform --json` report of a planted backend.
struct Planted(serde_json::Value);

impl Planted {
    /// The report's entry of the form whose name starts with `prefix`.
    fn form(&self, prefix: &str) -> &serde_json::Value {
        self.0["forms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["form"].as_str().unwrap().starts_with(prefix))
            .unwrap_or_else(|| panic!("{prefix} not in the report"))
    }

    fn forms_failed(&self) -> &serde_json::Value {
        &self.0["totals"]["forms_failed"]
    }
}

/// Runs `conform` on `forms` against a `cmd:` backend that rewrites each kernel with `sed`
/// (scratch directory `name`, with `--json` and `--repro`); the run must fail (exit 1).
fn conform_planted(name: &str, sed: &str, forms: &[&str]) -> Planted {
    Planted(common::conform_planted(name, sed, forms).0)
}

#[test]
fn a_rounding_bug_is_found_with_a_repro() {
    let dir = scratch("wrong");
    let backend = wrong_backend(&dir);
    let (json, repro) = (dir.join("report.json"), dir.join("repro"));
    let out = ptxconf()
        .args([
            "conform",
            "--quiet",
            "--backend",
            &backend,
            "add.rn.f32",
            "add.rz.f32",
            "add.rm.f32",
        ])
        .arg("--json")
        .arg(&json)
        .arg("--repro")
        .arg(&repro)
        .output()
        .unwrap();
    let stdout = common::stdout_of(&out, 1);
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let forms = report["forms"].as_array().unwrap();
    let status = |key: &str| {
        forms
            .iter()
            .find(|f| f["form"] == key)
            .unwrap_or_else(|| panic!("{key} not in the report"))["status"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(status("add.rn.f32"), "failed");
    assert_eq!(status("add.rz.f32"), "passed");
    assert_eq!(status("add.rm.f32"), "passed");
    assert_eq!(report["totals"]["forms_failed"], 1);
    let failed = forms.iter().find(|f| f["form"] == "add.rn.f32").unwrap();
    // rz and rn differ exactly on inexact sums that round up in magnitude: many, not all.
    let (bad, all) = (failed["failed"].as_u64().unwrap(), failed["vectors"].as_u64().unwrap());
    assert!(bad > 0 && bad < all, "{bad} of {all}");
    let m = &failed["mismatches"][0];
    let line = m["vector"].as_str().unwrap();
    let words: Vec<&str> = line.split_whitespace().collect();
    // Operands a, b, the expected d, its tag; the actual value differs from the expected one.
    assert_eq!(words.len(), 4, "{line}");
    assert_ne!(m["actual"][0].as_str().unwrap(), words[2]);
    // The mismatch is real: the expected value is add.rn of the operands (host f32 addition
    // rounds to nearest even), and the actual one is one ulp toward zero from it.
    let a = f32::from_bits(u32::from_str_radix(words[0], 16).unwrap());
    let b = f32::from_bits(u32::from_str_radix(words[1], 16).unwrap());
    assert_eq!(format!("{:08x}", (a + b).to_bits()), words[2], "{line}");
    let got = u32::from_str_radix(m["actual"][0].as_str().unwrap(), 16).unwrap();
    assert_eq!(got & 0x7fff_ffff, ((a + b).to_bits() & 0x7fff_ffff) - 1, "{line}");
    assert!(stdout.contains("FAILED add.rn.f32"), "{stdout}");

    // The repro: a vector file, its kernel and launch.
    let r = repro.join("add.rn.f32");
    for f in ["vectors.vec", "kernel.ptx", "launch.json", "README.txt"] {
        assert!(r.join(f).is_file(), "{f} missing from {}", r.display());
    }
    // It passes on the oracle and fails again on the wrong implementation.
    let ok = ptxconf()
        .args(["conform", "--quiet", "--backend", "oracle", "--file"])
        .arg(r.join("vectors.vec"))
        .arg("--repro")
        .arg(dir.join("repro2"))
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stdout));
    let again = ptxconf()
        .args(["conform", "--quiet", "--backend", &backend, "--file"])
        .arg(r.join("vectors.vec"))
        .arg("--repro")
        .arg(dir.join("repro3"))
        .output()
        .unwrap();
    assert_eq!(
        again.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
    // `ptxconf run` replays the launch by hand.
    let run = ptxconf().arg("run").arg(r.join("launch.json")).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stdout));
    assert!(String::from_utf8_lossy(&run.stdout).contains("\"status\": \"ok\""));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Layout bugs in the data-movement forms are found: an `ldmatrix` that ignores `.trans` and a
/// `movmatrix` that does not transpose (a plain `mov`) fail on every vector, while their
/// neighbours pass.
#[test]
fn data_movement_layout_bugs_are_found() {
    let r = conform_planted(
        "wrong-movement",
        concat!(
            "s/\\tldmatrix\\.sync\\.aligned\\.m8n8\\.x4\\.trans\\.shared\\.b16 /\\tldmatrix.sync.aligned.m8n8.x4.shared.b16 /;",
            "s/\\tmovmatrix\\.sync\\.aligned\\.m8n8\\.trans\\.b16 /\\tmov.b32 /"
        ),
        &[
            "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
            "movmatrix.sync.aligned.m8n8.trans.b16",
            "stmatrix.sync.aligned.m8n8.x2.trans.b16",
        ],
    );
    for bad in [
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
        "movmatrix.sync.aligned.m8n8.trans.b16",
    ] {
        let f = r.form(bad);
        assert_eq!(f["status"], "failed", "{bad}");
        assert_eq!(f["failed"], f["vectors"], "{bad}: every vector shows a transpose bug");
    }
    for good in [
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
        "stmatrix.sync.aligned.m8n8.x2.trans.b16",
    ] {
        assert_eq!(r.form(good)["status"], "passed", "{good}");
    }
    assert_eq!(r.forms_failed(), 2);
}

/// Memory-layout bugs in `wmma.load`/`wmma.store` are found through the round trip: a
/// `wmma.load.c .col` that reads `.row` (C transposed) fails on every vector, a
/// `wmma.store.d` that drops its stride operand fails on the two vectors whose stride is not
/// the default, and an untouched neighbour passes.
#[test]
fn wmma_access_bugs_are_found() {
    let r = conform_planted(
        "wrong-wmma",
        concat!(
            "s/\\twmma\\.load\\.c\\.sync\\.aligned\\.col\\.m16n16k16\\.global\\.f32 /",
            "\\twmma.load.c.sync.aligned.row.m16n16k16.global.f32 /;",
            "/\\twmma\\.store\\.d\\.sync\\.aligned\\.col\\.m8n8k4\\.global\\.f64 /s/, %s;$/;/"
        ),
        &[
            "wmma.load.c.sync.aligned.col.m16n16k16.global.f32",
            "wmma.store.d.sync.aligned.col.m8n8k4.global.f64",
            "wmma.load.b.sync.aligned.row.m8n32k16.shared.bf16",
        ],
    );
    let c = r.form("wmma.load.c.sync.aligned.col.m16n16k16.global.f32");
    assert_eq!(c["status"], "failed");
    assert_eq!(c["failed"], c["vectors"], "every vector shows a transposed C");
    let d = r.form("wmma.store.d.sync.aligned.col.m8n8k4.global.f64");
    assert_eq!(d["status"], "failed");
    assert_eq!(d["failed"], 2, "the default-stride vector passes without the operand");
    assert_eq!(
        r.form("wmma.load.b.sync.aligned.row.m8n32k16.shared.bf16")["status"],
        "passed"
    );
    assert_eq!(r.forms_failed(), 2);
}

/// An implementation that runs a form the manual forbids instead of refusing it fails that
/// form's `refused` vector: the planted backend reads `ldmatrix .m16n16.x2` without `.trans`
/// (L23499) as if `.trans` were written, and its kernel runs. The untouched forbidden
/// neighbour, refused at load by the oracle behind the protocol (a `type` error), passes.
#[test]
fn running_a_forbidden_form_is_found() {
    let r = conform_planted(
        "wrong-refused",
        "s/\\tldmatrix\\.sync\\.aligned\\.m16n16\\.x2\\.shared\\.b8 /\\tldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 /",
        &[
            "ldmatrix.sync.aligned.m16n16.x2.shared.b8",
            "stmatrix.sync.aligned.m16n8.x1.b8",
        ],
    );
    let ran = r.form("ldmatrix.sync.aligned.m16n16.x2.shared.b8");
    assert_eq!(ran["status"], "failed");
    assert!(ran["reason"].as_str().unwrap().contains("the kernel ran"), "{ran}");
    assert!(ran["reason"].as_str().unwrap().contains("L23499"), "{ran}");
    let refused = r.form("stmatrix.sync.aligned.m16n8.x1.b8");
    assert_eq!(refused["status"], "passed", "{refused}");
    assert!(refused["reason"]
        .as_str()
        .unwrap()
        .starts_with("refused at load (type error"));
    assert_eq!(r.forms_failed(), 1);
}

/// Bugs in the `wgmma` control forms are found by their programs' results
/// (`spec::vector::wgctl`): a `commit_group` that drops the second multiply of its group
/// (commit_group's D is then A·B + C, not A·B + A·B + C), a first `commit_group` that does not
/// close a group (`wait_group 1` then leaves the only group pending and reading its
/// accumulator is the oracle's runtime error), and a `wgmma.fence` after which the multiply
/// reads a stale accumulator register (0 in `%d0`, written before the fence in the planted
/// kernel). The untouched forms pass.
#[test]
fn wgmma_control_bugs_are_found() {
    let all = [
        "wgmma.fence.sync.aligned",
        "wgmma.commit_group.sync.aligned",
        "wgmma.wait_group.sync.aligned",
    ];
    let r = conform_planted(
        "wrong-wgctl",
        // After a multiply with `scale-d` %p: a second such multiply (commit_group's second)
        // or a commit (wait_group's first) is dropped.
        "/\\twgmma\\.mma_async.*%p, /{n;/\\twgmma\\.mma_async.*%p, /d;/commit_group/d}",
        &all,
    );
    let commit = r.form("wgmma.commit_group.sync.aligned");
    assert_eq!(commit["status"], "failed", "{commit}");
    assert_eq!(commit["failed"], commit["vectors"], "{commit}");
    let wait = r.form("wgmma.wait_group.sync.aligned");
    assert_eq!(wait["status"], "failed", "{wait}");
    assert!(wait["reason"].as_str().unwrap().contains("runtime error"), "{wait}");
    assert_eq!(r.form("wgmma.fence.sync.aligned")["status"], "passed");
    let r = conform_planted(
        "wrong-wgfence",
        "s/^\\twgmma\\.fence\\.sync\\.aligned;$/\\tmov.b32 %d0, 0;\\n&/",
        &all[..1],
    );
    let fence = r.form("wgmma.fence.sync.aligned");
    assert_eq!(fence["status"], "failed", "{fence}");
    assert_eq!(fence["failed"], fence["vectors"], "{fence}");
}

/// The mismatches of a failed form, each of which must be an immediate-operand run (the
/// vector's own run, operands loaded from memory, passes): their vector lines.
fn immediate_mismatches(f: &serde_json::Value) -> Vec<String> {
    let lines: Vec<String> = f["mismatches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["vector"].as_str().unwrap().to_string())
        .collect();
    assert!(!lines.is_empty(), "{f}");
    for l in &lines {
        assert!(l.contains("written into the instruction:"), "not an immediate run: {l}");
    }
    lines
}

/// An implementation that truncates 64-bit immediate operands to 32 bits (GPGPU-Sim's
/// `add.u64 %rd, %rd, 0x8000000000000001` adds 1) passes every vector loaded from memory and
/// fails the immediate-operand runs (`src/kernel/immediate.rs`): the planted backend keeps the
/// low 8 hex digits of every hex constant in the `add.u64` under test. `add.u32`, whose
/// constants fit, passes.
#[test]
fn a_truncated_64_bit_immediate_is_found() {
    let sed = "/^\\tadd\\.u64 %d0/s/0[xX][0-9a-fA-F]*\\([0-9a-fA-F]\\{8\\}\\)/0x\\1/g";
    let (report, dir) = common::conform_planted("wrong-imm64", sed, &["add.u64", "add.u32"]);
    let r = Planted(report);
    let f = r.form("add.u64");
    assert_eq!(f["status"], "failed", "{f}");
    let lines = immediate_mismatches(f);
    assert!(
        lines.iter().any(|l| l.contains("= 0x") || l.contains("= 0X")),
        "{lines:?}"
    );
    assert_eq!(r.form("add.u32")["status"], "passed");
    assert_eq!(r.forms_failed(), 1);
    // The repro's vectors, judged again, are written with the same constants: the planted
    // backend fails them, the oracle passes them.
    let vec = dir.join("repro/add.u64/vectors.vec");
    let backend = planted_backend(&dir, sed);
    for (b, code) in [(backend.as_str(), 1), ("oracle", 0)] {
        let out = ptxconf()
            .args(["conform", "--quiet", "--backend", b, "--file"])
            .arg(&vec)
            .arg("--repro")
            .arg(dir.join("repro-again"))
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{b}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// An implementation that ignores the `!` of `selp`'s selector (a form ptxas 12.9 accepts
/// beyond the syntax line, `corpus/findings/ptxas-12.9-accepts-beyond-grammar.txt`; GPGPU-Sim
/// does this) fails `selp`'s `!p` runs, and only those.
#[test]
fn an_ignored_selp_negation_is_found() {
    let r = conform_planted(
        "wrong-selp-not",
        "/^\\tselp\\.b32 %d0/s/!%a2/%a2/",
        &["selp.b32", "selp.f32"],
    );
    let f = r.form("selp.b32");
    assert_eq!(f["status"], "failed", "{f}");
    let lines = immediate_mismatches(f);
    assert!(lines.iter().all(|l| l.contains("c = !p")), "{lines:?}");
    assert_eq!(r.form("selp.f32")["status"], "passed");
    assert_eq!(r.forms_failed(), 1);
}

/// An implementation whose `max.f32` returns its second operand when the two compare equal
/// (GPGPU-Sim's: `max.f32(+0, -0)` gives -0, where the manual says +0.0 > -0.0, L8390;
/// `corpus/findings/fuzz/gpgpu-sim/max-f32-signed-zeros/`) fails `max.f32` on the golden vectors,
/// which hold every ordered pair of signed zeros (`generators::edges`), and only on `(+0, -0)`:
/// `(-0, +0)` gives +0 either way. `min.f32`, left alone, passes.
#[test]
fn a_max_returning_the_second_zero_is_found() {
    let r = conform_planted(
        "wrong-max-zero",
        "s/^\\tmax\\.f32 %d0, %a0, %a1;$/&\\n\\tsetp.eq.f32 %done, %a0, %a1;\\n\\t@%done mov.f32 %d0, %a1;/",
        &["max.f32", "min.f32"],
    );
    let f = r.form("max.f32");
    assert_eq!(f["status"], "failed", "{f}");
    let mismatches = f["mismatches"].as_array().unwrap();
    assert!(!mismatches.is_empty(), "{f}");
    for m in mismatches {
        let line = m["vector"].as_str().unwrap();
        assert!(line.starts_with("00000000 80000000 00000000 "), "not (+0, -0): {line}");
        assert_eq!(m["actual"][0].as_str().unwrap(), "80000000", "{line}");
    }
    assert_eq!(r.form("min.f32")["status"], "passed");
    assert_eq!(r.forms_failed(), 1);
}
