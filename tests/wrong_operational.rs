//! The operational forms' scenarios find deliberately wrong implementations: `cmd:` backends that
//! run the oracle on kernels rewritten with `sed` (`common::planted_backend`), each bug planted
//! in one form's instruction, so that exactly that form must fail.

use std::path::Path;

mod common;
use common::{conform_planted_of, forms_with_status, planted_backend, ptxconf, scratch, Rewrite};

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

/// A bulk copy to global memory that drops its last 16 bytes (the copy whose size is in a
/// register, `%r21`) leaves one chunk of the destination holding the sentinel, in each of the
/// form's two scenarios (with and without `.L2::cache_hint`): exactly those two checks fail.
/// The `.cp_mask` form, whose instruction the bug does not match, passes.
#[test]
fn a_bulk_copy_short_by_16_bytes_is_found() {
    let r = conform_planted(
        "wrong-bulk-size",
        r"s/^\tcp\.async\.bulk\.global\.shared::cta\.bulk_group\(\.L2::cache_hint\)\? .*%r21[,;]/\tsub.u32 %r21, %r21, 16;\n&/",
        &["cp.async.bulk.global.shared::cta.bulk_group"],
    );
    let bad = form(&r, "cp.async.bulk.global.shared::cta.bulk_group");
    assert_eq!(bad["status"], "failed", "{bad}");
    assert_eq!(bad["failed"], 2, "{bad}");
    let m = &bad["mismatches"][0];
    assert!(m["vector"].as_str().unwrap().contains("copy 1 of"), "{m}");
    // The sentinel where the copy's last 16 bytes belong.
    assert_eq!(m["actual"][0], "a5".repeat(16), "{m}");
    assert_eq!(
        form(&r, "cp.async.bulk.global.shared::cta.bulk_group.cp_mask")["status"],
        "passed"
    );
    assert_eq!(r["totals"]["forms_failed"], 1);
}

/// A `cp.reduce.async.bulk` into shared memory that computes `.max` where `.min.u32` is
/// written fails that form on the elements where the two differ; the `.max.u32` form and the
/// `.global` `.min.u32` form pass.
#[test]
fn a_bulk_reduction_with_the_wrong_operation_is_found() {
    let r = conform_planted(
        "wrong-bulk-reduce",
        r"s/^\tcp\.reduce\.async\.bulk\.shared::cluster\.shared::cta\.mbarrier::complete_tx::bytes\.min\.u32 /\tcp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.max.u32 /",
        &[
            "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.m",
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.u32",
        ],
    );
    let bad = form(
        &r,
        "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.min.u32",
    );
    assert_eq!(bad["status"], "failed", "{bad}");
    assert!(
        bad["mismatches"][0]["vector"]
            .as_str()
            .unwrap()
            .contains(".min source element"),
        "{bad}"
    );
    for good in [
        "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.max.u32",
        "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.min.s32",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.u32",
    ] {
        assert_eq!(form(&r, good)["status"], "passed", "{good}");
    }
    assert_eq!(r["totals"]["forms_failed"], 1);
}

/// A half-precision bulk reduction that takes the minimum where `.add.noftz.f16` is written
/// fails that form; the `.bf16` one passes.
#[test]
fn a_half_precision_bulk_add_that_is_not_an_add_is_found() {
    let r = conform_planted(
        "wrong-bulk-f16",
        r"s/^\(\tcp\.reduce\.async\.bulk\.global\.shared::cta\.bulk_group\)\.add\.noftz\.f16 /\1.min.f16 /",
        &["cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz"],
    );
    let bad = form(&r, "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16");
    assert_eq!(bad["status"], "failed", "{bad}");
    assert_eq!(
        form(&r, "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16")["status"],
        "passed"
    );
    assert_eq!(r["totals"]["forms_failed"], 1);
}

/// An `st.async.v4` that stores the first element where the second belongs: every thread's
/// slot is wrong in both CTAs of the cluster (64 checks); the `.v2` form passes.
#[test]
fn an_async_vector_store_with_a_wrong_element_is_found() {
    let r = conform_planted(
        "wrong-st-async",
        r"s/^\(\tst\.async\.shared::cluster\.mbarrier::complete_tx::bytes\.v4\.b32 .*\)%r21,/\1%r20,/",
        &["st.async.shared::cluster.mbarrier::complete_tx::bytes.v"],
    );
    let bad = form(&r, "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32");
    assert_eq!(bad["status"], "failed", "{bad}");
    assert_eq!(bad["failed"], 64, "{bad}");
    assert_eq!(
        form(&r, "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32")["status"],
        "passed"
    );
    assert_eq!(r["totals"]["forms_failed"], 1);
}

/// An `st.bulk` that zeroes 8 bytes too few leaves the sentinel in the last 8 bytes of its
/// second range: one 16-byte check fails. The generic-address form passes.
#[test]
fn an_st_bulk_short_by_8_bytes_is_found() {
    let r = conform_planted(
        "wrong-st-bulk",
        r"s/^\tst\.bulk\.weak\.shared::cta \[%rd23\]/\tsub.s64 %rd24, %rd24, 8;\n&/",
        &["st.bulk"],
    );
    let bad = form(&r, "st.bulk.weak.shared::cta");
    assert_eq!(bad["status"], "failed", "{bad}");
    assert_eq!(bad["failed"], 1, "{bad}");
    assert!(bad["mismatches"][0]["actual"][0]
        .as_str()
        .unwrap()
        .ends_with("a5a5a5a5a5a5a5a5"));
    assert_eq!(form(&r, "st.bulk.weak")["status"], "passed");
    assert_eq!(r["totals"]["forms_failed"], 1);
}

/// A `cp.async.bulk.wait_group.read 1` that waits only as `.read 2` lets the kernel overwrite
/// the source of a copy that has not read it: the oracle behind the protocol reports the race
/// (L15362), a failed launch. `wait_group` without `.read` passes.
#[test]
fn a_bulk_wait_group_read_that_waits_too_little_is_found() {
    let r = conform_planted(
        "wrong-bulk-read",
        r"s/^\tcp\.async\.bulk\.wait_group\.read 1;$/\tcp.async.bulk.wait_group.read 2;/",
        &["cp.async.bulk.wait_group"],
    );
    let bad = form(&r, "cp.async.bulk.wait_group.read");
    assert_eq!(bad["status"], "failed", "{bad}");
    assert_eq!(bad["failed"], bad["vectors"], "{bad}");
    assert!(bad["reason"].as_str().unwrap().contains("L15362"), "{bad}");
    assert_eq!(form(&r, "cp.async.bulk.wait_group")["status"], "passed");
    assert_eq!(r["totals"]["forms_failed"], 1);
}

/// The forms of `report` that failed, by key.
fn failed(report: &serde_json::Value) -> Vec<String> {
    forms_with_status(report, "failed")
}

/// A `.shared::cluster` store that lands in the storing CTA's own shared memory (the address
/// before `mapa`) leaves CTA 1's slot as it was and changes CTA 0's (L14114-14116): that form
/// fails, on both observations; the load of the same scenario passes.
#[test]
fn a_distributed_store_landing_in_the_own_cta_is_found() {
    let r = conform_planted(
        "wrong-dsmem-store",
        r"s/^\tst\.shared::cluster\.u32 \[%rd11\], /\tst.shared::cluster.u32 [%rd10], /",
        &["st.shared::cluster.u32", "ld.shared::cluster.u32"],
    );
    assert_eq!(failed(&r), ["st.shared::cluster.u32"]);
    let bad = form(&r, "st.shared::cluster.u32");
    // 32 threads, each with its own slot untouched and CTA 1's slot written: 64 broken checks.
    assert_eq!(bad["failed"], 64, "{bad}");
    assert_eq!(form(&r, "ld.shared::cluster.u32")["status"], "passed");
}

/// A `barrier.cluster.wait` that does not wait (removed): the thread's next arrive comes before
/// its wait (L17175), which the oracle behind the protocol refuses; only that form fails among
/// the ten `barrier.cluster` forms, whose scenarios pair with the `.aligned` halves.
#[test]
fn a_cluster_wait_that_does_not_wait_is_found() {
    let r = conform_planted(
        "wrong-cluster-wait",
        r"/^\tbarrier\.cluster\.wait;$/d",
        &["barrier.cluster"],
    );
    assert_eq!(failed(&r), ["barrier.cluster.wait"]);
    assert_eq!(r["totals"]["forms_passed"], 9, "{}", r["totals"]);
}

/// An `atom.add` that returns the new value instead of the old one (L17493) fails that form
/// on every thread's returned value; the other `.add` types pass.
#[test]
fn an_atomic_returning_the_new_value_is_found() {
    let r = conform_planted(
        "wrong-atom-old",
        r"s/^\t\(atom\.shared::cluster\.add\.u32 %r20, \[%rd11\], %r30;\)$/\t\1\n\tadd.u32 %r20, %r20, %r30;/",
        &["atom.shared::cluster.add."],
    );
    assert_eq!(failed(&r), ["atom.shared::cluster.add.u32"]);
    let bad = form(&r, "atom.shared::cluster.add.u32");
    assert_eq!(bad["failed"], 32, "{bad}");
    assert!(
        bad["mismatches"][0]["vector"].as_str().unwrap().contains("old value"),
        "{bad}"
    );
}

/// A signed `red.min.s32` carried out unsigned: the model's signed arithmetic finds it (random
/// operands differ in sign for about half the threads); the unsigned and 64-bit forms pass.
#[test]
fn a_signed_minimum_taken_unsigned_is_found() {
    let r = conform_planted(
        "wrong-red-min",
        r"s/^\tred\.shared::cluster\.min\.s32 /\tred.shared::cluster.min.u32 /",
        &["red.shared::cluster.min."],
    );
    assert_eq!(failed(&r), ["red.shared::cluster.min.s32"]);
}

/// `mapa` into the thread's own rank instead of the rank asked for: the loaded words are the
/// own CTA's (L14114-14116); the other `mapa` forms pass.
#[test]
fn a_mapa_into_the_wrong_rank_is_found() {
    let r = conform_planted(
        "wrong-mapa",
        r"s/^\tmapa\.shared::cluster\.u32 %r14, %r13, %r11;$/\tmapa.shared::cluster.u32 %r14, %r13, %r1;/",
        &["mapa"],
    );
    assert_eq!(failed(&r), ["mapa.shared::cluster.u32"]);
}

/// A missing `fence.proxy.async`: the bulk copy reads shared memory the generic proxy wrote
/// with nothing ordering the writes before it (L14239-14241, L17278), which the oracle behind
/// the protocol reports; the other proxy fences' scenarios keep theirs and pass.
#[test]
fn a_missing_proxy_fence_is_found() {
    let r = conform_planted(
        "wrong-proxy-fence",
        r"/^\tfence\.proxy\.async;$/d",
        &["fence.proxy.async"],
    );
    assert_eq!(failed(&r), ["fence.proxy.async"]);
    assert!(
        form(&r, "fence.proxy.async")["reason"]
            .as_str()
            .unwrap()
            .contains("L17278"),
        "{r}"
    );
}

/// A `setmaxnreg.inc` asking for more registers than the CTA's pool can ever give (256 × 4
/// warps beside the other warpgroup's 56 × 4, against `.maxnreg 128` × 8) waits forever
/// (L31743): a deadlock; the `.dec` form's scenario has no `.inc` and passes.
#[test]
fn a_register_increase_beyond_the_pool_is_found() {
    let r = conform_planted(
        "wrong-setmaxnreg",
        r"s/^\tsetmaxnreg\.inc\.sync\.aligned\.u32 192;$/\tsetmaxnreg.inc.sync.aligned.u32 256;/",
        &["setmaxnreg"],
    );
    assert_eq!(failed(&r), ["setmaxnreg.inc.sync.aligned.u32"]);
}

/// `conform --json` of `forms` against a backend whose bug is in how it reads the tensor maps:
/// `sed` rewrites the launch file (the map's driver-call description) before the oracle runs
/// it. The report's forms by key, failed and passed.
fn conform_map_planted(name: &str, sed: &str, forms: &[&str]) -> (Vec<String>, Vec<String>) {
    let (r, dir) = conform_planted_of(name, sed, Rewrite::Launch, forms);
    let _ = std::fs::remove_dir_all(dir);
    (forms_with_status(&r, "failed"), forms_with_status(&r, "passed"))
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

/// A `.tile::gather4` load into `.shared::cta` that swaps its first two row indices puts row 1
/// where row 0 belongs: the three `.shared::cta` gather forms fail, the `.shared::cluster` ones
/// and the prefetch (whose loads are `.shared::cluster`) pass.
#[test]
fn a_gather4_with_two_rows_swapped_is_found() {
    let r = conform_planted(
        "wrong-gather4-rows",
        r"s/^\t\(cp\.async\.bulk\.tensor\.2d\.shared::cta\.global\.tile::gather4.*{%r20, \)%r21, %r22,/\t\1%r22, %r21,/",
        &["tile::gather4"],
    );
    let forms = r["forms"].as_array().unwrap();
    assert_eq!(forms.len(), 10, "{r}");
    for f in forms {
        let cta = f["form"].as_str().unwrap().contains(".shared::cta.");
        assert_eq!(f["status"], if cta { "failed" } else { "passed" }, "{f}");
    }
    assert_eq!(r["totals"]["forms_failed"], 3);
}

/// A bulk multicast that delivers to every CTA of the cluster whatever its ctaMask (L14533):
/// in the cluster scenario the CTAs a mask leaves out receive bytes and complete-tx signals
/// they were not armed for; only the multicast form fails (its own-CTA scenarios, whose mask
/// is made by `shl`, are not rewritten).
#[test]
fn a_multicast_ignoring_its_cta_mask_is_found() {
    let r = conform_planted(
        "wrong-multicast-mask",
        r"s/^\tmov\.b16 %rs1, 0x[0-9a-f]*;$/\tmov.b16 %rs1, 0xf;/",
        &["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"],
    );
    assert_eq!(
        failed(&r),
        ["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"]
    );
    let bad = &r["forms"][0];
    assert!(
        bad["reason"].as_str().unwrap_or_default().contains("runtime error")
            || bad["mismatches"][0]["vector"]
                .as_str()
                .unwrap_or_default()
                .contains("cluster of 4"),
        "{bad}"
    );
}

/// A `.multicast::cluster.cta_group::2` tensor load signalled as `.cta_group::1` (each
/// destination's own mbarrier instead of its pair member of the issuer's parity, L15012): the
/// CTAs' byte counts no longer match what they armed; the `.cta_group::1` and plain multicast
/// forms pass.
#[test]
fn a_pair_multicast_signalling_each_destination_is_found() {
    let r = conform_planted(
        "wrong-multicast-pair",
        r"s/^\t\(@%p4 cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes\.multicast::cluster\)\.cta_group::2 /\t\1.cta_group::1 /",
        &["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"],
    );
    let f = failed(&r);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].contains(".multicast::cluster.cta_group::2"), "{f:?}");
    assert_eq!(r["totals"]["forms_passed"], 2, "{}", r["totals"]);
}

/// A `.cta_group::2` tensor load that signals its own CTA's mbarrier instead of the peer's it
/// was given (L14968): CTA 0's phase, armed for CTA 1's two boxes, gets its own one; the
/// `.cta_group::1` form (whose scenarios signal their own mbarrier, as they must) passes.
#[test]
fn a_pair_load_signalling_its_own_mbarrier_is_found() {
    let r = conform_planted(
        "wrong-peer-mbar",
        r"s/^\t\(cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes\.cta_group::2 .*\)\[%rd11\];$/\t\1[mbar];/",
        &["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group"],
    );
    let f = failed(&r);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].contains("bytes.cta_group::2"), "{f:?}");
    assert_eq!(r["totals"]["forms_passed"], 1, "{}", r["totals"]);
}

/// A half-precision bulk `.add.noftz` that flushes subnormal source elements to zero (planted
/// as `add.ftz.f16x2` of -0 on each source word before it reaches shared memory): the `.f16`
/// form fails where a subnormal source changes the sum (L14647: `.noftz` keeps subnormal
/// inputs and results); so does the `.bf16` one, whose subnormal and smallest normal values
/// read as f16 subnormals; `.min.f16`, whose data has no subnormal, passes.
#[test]
fn a_noftz_add_that_flushes_subnormals_is_found() {
    let r = conform_planted(
        "wrong-noftz-flush",
        r"s/^\tld\.global\.b32 %r15, \[%rd16+1[0-9]\{3\}\];$/&\n\tmov.b32 %r16, 0x80008000;\n\tadd.ftz.f16x2 %r15, %r15, %r16;/",
        &[
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz",
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.f16",
        ],
    );
    assert_eq!(
        failed(&r),
        [
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16",
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16",
        ]
    );
    let bad = form(&r, "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16");
    assert!(
        bad["mismatches"][0]["vector"]
            .as_str()
            .unwrap()
            .contains(".add source element"),
        "{bad}"
    );
    assert_eq!(
        form(&r, "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.f16")["status"],
        "passed"
    );
}

/// An implementation that reads `f16` tensor maps as `bf16`: exactly the 2-D tensor reduction
/// forms with an `f16` map in their scenarios (`.add`, `.min`, `.max`, each with an `f16`
/// scenario of its own) fail; `.and` passes.
#[test]
fn a_tensor_reduction_reading_f16_as_bf16_is_found() {
    let filters = [
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add",
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.and",
    ];
    let want = forms_with_map(&filters, |m| m.data_type == "f16");
    assert!(!want.is_empty() && want.iter().all(|k| k.contains(".add")), "{want:?}");
    let (mut failed, passed) = conform_map_planted(
        "wrong-f16-map",
        r#"s/"data_type": "f16"/"data_type": "bf16"/"#,
        &filters,
    );
    failed.sort();
    assert_eq!(failed, want);
    assert!(
        !passed.is_empty() && passed.iter().all(|k| k.contains(".and")),
        "{passed:?}"
    );
}

/// A remote store that lands in the storing CTA's own shared memory, in the message pushed into
/// the reader CTA's shared memory (`fence/across.rs`): the reader, after the flag and the
/// fence, finds no message there; `fence.release.gpu` fails, on that scenario only (its
/// message in the writer's shared memory and in global memory pass), and the tensormap-proxy
/// release fence the filter also selects passes. (On the oracle's sequentially consistent
/// memory a *missing* fence never shows; what the scenarios catch is a message not delivered.)
#[test]
fn a_pushed_message_landing_in_the_writer_is_found() {
    let r = conform_planted(
        "wrong-pushed-message",
        r"s/^\tst\.shared::cluster\.u32 \[%rd10+\([0-9]*\)\], %r10;$/\tst.shared::cluster.u32 [%rd11+\1], %r10;/",
        &["fence.release.gpu"],
    );
    assert_eq!(failed(&r), ["fence.release.gpu"]);
    let bad = form(&r, "fence.release.gpu");
    assert!(
        bad["mismatches"][0]["vector"]
            .as_str()
            .unwrap()
            .contains("stored by CTA 0 into CTA 1's shared memory"),
        "{bad}"
    );
}

/// A flag stored over the message's last word instead of its own place, in the manual's
/// message-passing test through global memory (L4181-4198): the reader's bounded spin never
/// sees it; `fence.sc.gpu` fails, the other scenarios of the form (whose flags are in shared
/// memory) are untouched.
#[test]
fn a_flag_that_never_arrives_is_found() {
    let r = conform_planted(
        "wrong-global-flag",
        r"s/^\t\(st\.relaxed\.gpu\.global\.u32\) \[%rd10\], %r10;$/\t\1 [%rd10+32], %r10;/",
        &["fence.sc.gpu"],
    );
    assert_eq!(failed(&r), ["fence.sc.gpu"]);
}
