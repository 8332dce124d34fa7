//! The operational forms' scenarios find deliberately wrong implementations: `cmd:` backends that
//! run the oracle on kernels rewritten with `sed` (`common::planted_backend`), each bug planted
//! in one form's instruction, so that exactly that form must fail.

use std::path::Path;

mod common;
use common::{planted_backend, ptxconf, scratch};

/// `conform --json` of `forms` against a backend with the bug `sed`: the run fails (exit 1);
/// the report's forms by key. The scratch directory goes afterwards.
fn conform_planted(name: &str, sed: &str, forms: &[&str]) -> serde_json::Value {
    let (report, dir) = common::conform_planted(name, sed, forms);
    let _ = std::fs::remove_dir_all(dir);
    report
}

fn form<'r>(report: &'r serde_json::Value, key: &str) -> &'r serde_json::Value {
    report["forms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["form"] == key)
        .unwrap_or_else(|| panic!("{key} not in {report}"))
}

/// A `cp.async.ca` that ignores its src-size (copies all cp-size bytes, no zero fill, L14273)
/// fails that form on the threads whose src-size is below cp-size; the ignore-src form, the
/// `.cg` form (its copies untouched) pass. A mismatch names its place and the bytes.
#[test]
fn a_copy_without_zero_fill_is_found() {
    let r = conform_planted(
        "wrong-zero-fill",
        r"/^\tcp\.async\.ca\.shared\.global \[/s/, %r13;$/;/",
        &["cp.async.ca.shared.global", "cp.async.cg.shared.global"],
    );
    let bad = form(&r, "cp.async.ca.shared.global~src_size");
    assert_eq!(bad["status"], "failed", "{bad}");
    // Per cp-size c of 16, 8, 4, the 32 threads take src-size (t + case) mod (c + 1): all but
    // those with src-size c (2 of 17 for c = 16: t + case ∈ {16, 33}; 3 of 9 for 8; 6 or 7 of 5
    // for 4) see the missing zero fill. Every such thread's slice is one broken check.
    let failed = bad["failed"].as_u64().unwrap();
    assert!(failed > 0 && failed <= 32, "{bad}");
    let m = &bad["mismatches"][0];
    let wrong = m["wrong"][0].as_str().unwrap();
    assert!(wrong.starts_with("out+0x") && wrong.contains("expected "), "{m}");
    assert!(
        m["vector"].as_str().unwrap().contains("zero filled past src-size"),
        "{m}"
    );
    assert_ne!(m["actual"][0].as_str().unwrap(), wrong.rsplit(' ').next().unwrap());
    for good in [
        "cp.async.ca.shared.global~ignore_src",
        "cp.async.cg.shared.global~src_size",
        "cp.async.cg.shared.global~ignore_src",
    ] {
        assert_eq!(form(&r, good)["status"], "passed", "{good}");
    }
    assert_eq!(r["totals"]["forms_failed"], 1);
}

/// An `mbarrier.init.shared::cta` that sets an expected count one lower completes each phase
/// one arrival early (L18564): the `False` observations before the last arrival become `True`.
/// The `.shared` form passes.
#[test]
fn a_phase_completed_one_arrival_early_is_found() {
    let r = conform_planted(
        "wrong-init",
        r"s/^\tmbarrier\.init\.shared::cta\.b64 \[mbar\], %r10;$/\tsub.u32 %r10, %r10, 1;\n&/",
        &["mbarrier.init.shared::cta.b64", "mbarrier.init.shared.b64"],
    );
    let bad = form(&r, "mbarrier.init.shared::cta.b64");
    assert_eq!(bad["status"], "failed", "{bad}");
    // The phase completes early, so the scenario's next arrival lands in a phase no wait saw
    // begin: undefined (L18456), which the oracle behind the protocol refuses; the launch fails
    // and with it every check.
    assert_eq!(bad["failed"], bad["vectors"], "{bad}");
    assert!(bad["reason"].as_str().unwrap().contains("L18456"), "{bad}");
    assert_eq!(form(&r, "mbarrier.init.shared.b64")["status"], "passed");
    assert_eq!(r["totals"]["forms_failed"], 1);
}

/// An `mbarrier.arrive_drop` that does not drop (an arrive) leaves the next phase waiting for
/// the old count (L18859): both forms of the name fail, with and without a count; the
/// plain arrive passes.
#[test]
fn an_arrive_drop_that_keeps_the_count_is_found() {
    let r = conform_planted(
        "wrong-drop",
        r"s/^\tmbarrier\.arrive_drop\.shared\.b64 /\tmbarrier.arrive.shared.b64 /",
        &["mbarrier.arrive_drop.shared.b64", "mbarrier.arrive.shared.b64"],
    );
    for bad in [
        "mbarrier.arrive_drop.shared.b64",
        "mbarrier.arrive_drop.shared.b64~count",
    ] {
        let f = form(&r, bad);
        assert_eq!(f["status"], "failed", "{f}");
        assert!(
            f["mismatches"][0]["vector"]
                .as_str()
                .unwrap()
                .contains("after the drop"),
            "{f}"
        );
    }
    assert_eq!(form(&r, "mbarrier.arrive.shared.b64")["status"], "passed");
    assert_eq!(r["totals"]["forms_failed"], 2);
}

/// A `cp.async.wait_group 1` that waits only as `wait_group 2` leaves the second group pending
/// when the kernel reads it: the oracle behind the protocol reports the race (L14392), a
/// failed launch. `wait_all` passes. The repro replays the failure.
#[test]
fn a_wait_group_that_waits_too_little_is_found() {
    let dir = scratch("wrong-wait-repro");
    let r = {
        let backend = planted_backend(&dir, r"s/^\tcp\.async\.wait_group 1;$/\tcp.async.wait_group 2;/");
        let json = dir.join("report.json");
        let out = ptxconf()
            .args(["conform", "--quiet", "--backend", &backend, "cp.async.wait_"])
            .arg("--json")
            .arg(&json)
            .arg("--repro")
            .arg(dir.join("repro"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
        serde_json::from_slice::<serde_json::Value>(&std::fs::read(&json).unwrap()).unwrap()
    };
    let bad = form(&r, "cp.async.wait_group");
    assert_eq!(bad["status"], "failed");
    assert!(bad["reason"].as_str().unwrap().contains("runtime error"), "{bad}");
    assert_eq!(form(&r, "cp.async.wait_all")["status"], "passed");
    let repro = Path::new(bad["repro"].as_str().unwrap());
    for f in [
        "scenario0.ptx",
        "scenario0.launch.json",
        "scenario0.expected.txt",
        "README.txt",
    ] {
        assert!(repro.join(f).is_file(), "{f} missing from {}", repro.display());
    }
    // The unplanted kernel runs on the oracle.
    let run = ptxconf()
        .arg("run")
        .arg(repro.join("scenario0.launch.json"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `cmd:` backend whose bug is in how it reads the tensor maps: `sed` rewrites the launch file
/// (the map's driver-call description) before the oracle runs it.
fn planted_map_backend(dir: &Path, sed: &str) -> String {
    let script = dir.join("planted-map.sh");
    let text = format!(
        "#!/bin/sh\nsed -i '{sed}' \"$1\"\nexec '{}' run \"$1\"\n",
        env!("CARGO_BIN_EXE_ptxconf")
    );
    std::fs::write(&script, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    format!("cmd:{}", script.display())
}

/// `conform --json` of `forms` against [`planted_map_backend`]; the report's forms by key,
/// failed and passed.
fn conform_map_planted(name: &str, sed: &str, forms: &[&str]) -> (Vec<String>, Vec<String>) {
    let dir = scratch(name);
    let backend = planted_map_backend(&dir, sed);
    let json = dir.join("report.json");
    let out = ptxconf()
        .args(["conform", "--quiet", "--backend", &backend])
        .args(forms)
        .arg("--json")
        .arg(&json)
        .arg("--repro")
        .arg(dir.join("repro"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(dir);
    let by = |s: &str| -> Vec<String> {
        r["forms"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["status"] == s)
            .map(|f| f["form"].as_str().unwrap().to_string())
            .collect()
    };
    (by("failed"), by("passed"))
}

/// The covered forms whose keys contain one of `filters` and one of whose scenarios (seed 1,
/// `conform`'s default) passes a tensor map `pick` accepts.
fn forms_with_map(filters: &[&str], pick: impl Fn(&oracle::launch::tensor_map::TensorMapSpec) -> bool) -> Vec<String> {
    use ptxconf::backend::JobParam;
    use ptxconf::kernel::operational;
    let cat = spec::catalog::catalog();
    let mut keys: Vec<String> = operational::forms()
        .into_iter()
        .map(|i| &cat.forms[i])
        .filter(|f| filters.iter().any(|s| operational::key(f).contains(s)))
        .filter(|f| {
            operational::scenarios(f, 1).unwrap().iter().any(|s| {
                s.job.params.iter().any(|p| match p {
                    JobParam::TensorMap { tensor_map } => pick(tensor_map),
                    _ => false,
                })
            })
        })
        .map(operational::key)
        .collect();
    keys.sort();
    keys
}

/// An implementation that leaves the 32-byte swizzle out (reads `"32B"` as `"none"`): exactly
/// the forms with a 32-byte-swizzled map in their scenarios fail (every swizzled box holds at
/// least two 128-byte rows of the pattern, so some chunk moves, L2600-2660); the rest of the
/// 2-D tensor copies pass.
#[test]
fn a_tensor_copy_without_the_32_byte_swizzle_is_found() {
    let filters = [
        "cp.async.bulk.tensor.2d.",
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.and",
    ];
    let want = forms_with_map(&filters, |m| m.swizzle == "32B");
    assert!(want.len() >= 3, "{want:?}");
    let (mut failed, passed) =
        conform_map_planted("wrong-swizzle-32", r#"s/"swizzle": "32B"/"swizzle": "none"/"#, &filters);
    failed.sort();
    assert_eq!(failed, want);
    assert!(passed.len() >= 5, "{passed:?}");
}

/// An implementation that fills out-of-bounds elements with zeros under OOB-NaN fill (L2186):
/// every load form (whose third scenario is an `f32` map with OOB-NaN fill and boxes crossing
/// the tensor's edge) fails, tile and im2col, prefetch included; the stores pass.
#[test]
fn a_load_that_fills_zeros_for_oob_nan_is_found() {
    let filters = [
        "cp.async.bulk.tensor.3d.shared::cta.global",
        "cp.async.bulk.tensor.3d.global.shared::cta",
        "cp.async.bulk.prefetch.tensor.3d",
    ];
    let want = forms_with_map(&filters, |m| m.oob_fill == "nan_request_zero_fma");
    let (mut failed, passed) = conform_map_planted(
        "wrong-oob-nan",
        r#"s/"oob_fill": "nan_request_zero_fma"/"oob_fill": "none"/"#,
        &filters,
    );
    failed.sort();
    assert_eq!(failed, want);
    assert!(failed.iter().any(|k| k.contains("im2col")), "{failed:?}");
    assert!(failed.iter().any(|k| k.contains("prefetch")), "{failed:?}");
    assert!(
        !passed.is_empty() && passed.iter().all(|k| k.contains(".global.shared::cta")),
        "{passed:?}"
    );
}

/// A `cp.reduce.async.bulk.tensor .min` that takes the maximum: the `.min` forms fail (tile and
/// im2col_no_offs), `.max` passes.
#[test]
fn a_tensor_reduction_min_that_takes_the_max_is_found() {
    let r = conform_planted(
        "wrong-reduce-min",
        r"s/^\t\(cp\.reduce\.async\.bulk\.tensor\.3d\.global\.shared::cta\)\.min\./\t\1.max./",
        &["cp.reduce.async.bulk.tensor.3d.global.shared::cta.m"],
    );
    let forms = r["forms"].as_array().unwrap();
    assert_eq!(forms.len(), 6, "{r}");
    for f in forms {
        let min = f["form"].as_str().unwrap().contains(".min.");
        assert_eq!(f["status"], if min { "failed" } else { "passed" }, "{f}");
    }
    assert_eq!(r["totals"]["forms_failed"], 3);
}

/// A `tensormap.replace .swizzle_mode` that does nothing: the map keeps no swizzle and the
/// load's bytes come unswizzled; the three `.swizzle_mode` forms fail, the other fields pass.
#[test]
fn a_tensormap_replace_that_drops_the_swizzle_is_found() {
    let r = conform_planted(
        "wrong-replace-swizzle",
        r"/^\ttensormap\.replace\.tile\.swizzle_mode/d",
        &[
            "tensormap.replace.tile.swizzle_mode",
            "tensormap.replace.tile.fill_mode",
        ],
    );
    for f in r["forms"].as_array().unwrap() {
        let swz = f["form"].as_str().unwrap().contains("swizzle_mode");
        assert_eq!(f["status"], if swz { "failed" } else { "passed" }, "{f}");
        if swz {
            assert!(
                f["mismatches"][0]["vector"]
                    .as_str()
                    .unwrap()
                    .contains("`.swizzle_mode` replaced"),
                "{f}"
            );
        }
    }
    assert_eq!(r["totals"]["forms_failed"], 3);
}
