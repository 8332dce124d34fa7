//! The 32-bit forms' scenarios (`.address_size 32` modules: the `.u32` `cvta`s, generic
//! `mapa.u32`/`getctarank.u32`) find deliberately wrong implementations, and an implementation
//! that refuses 32-bit modules as ptxas 12.9 does has them skipped, not failed
//! (corpus/findings/ptxas-12.9-32-bit-addresses.txt).

use std::path::Path;

mod common;
use common::{conform_json, forms_with_status, planted_backend_of, scratch, Rewrite};

/// `conform --json` of `forms` on `backend`: the exit status and the report.
fn conform(name: &str, backend: impl FnOnce(&Path) -> String, forms: &[&str]) -> (Option<i32>, serde_json::Value) {
    let dir = scratch(name);
    let backend = backend(&dir);
    let r = conform_json(&dir, &backend, forms);
    let _ = std::fs::remove_dir_all(dir);
    r
}

/// Without a bug, the manual-grammar backend passes every 32-bit form: the scenarios are
/// valid 32-bit modules and the protocol passes their buffers' addresses zero-extended.
#[test]
fn the_32_bit_scenarios_pass_through_the_protocol() {
    let (code, r) = conform(
        "addr32-plain",
        |d| planted_backend_of(d, "s/^$//", Rewrite::KernelManualGrammar),
        &["cvta.to.global.u32", "mapa.u32"],
    );
    assert_eq!(code, Some(0), "{r}");
    assert_eq!(
        forms_with_status(&r, "passed"),
        ["cvta.to.global.u32", "mapa.u32"],
        "{r}"
    );
}

/// A generic 32-bit address cut to its low 16 bits after `cvta.to.global.u32` (an
/// implementation that keeps too few address bits) points outside every buffer: that form
/// fails; `cvta.global.u32` and the 64-bit form pass.
#[test]
fn a_global_address_cut_to_16_bits_is_found() {
    let (code, r) = conform(
        "addr32-cut",
        |d| {
            planted_backend_of(
                d,
                r"s/^\t\(cvta\.to\.global\.u32 %r22, %r20;\)$/\t\1\n\tand.b32 %r22, %r22, 0xffff;/",
                Rewrite::KernelManualGrammar,
            )
        },
        &["cvta.to.global.", "cvta.global."],
    );
    assert_eq!(code, Some(1), "{r}");
    assert_eq!(forms_with_status(&r, "failed"), ["cvta.to.global.u32"], "{r}");
    assert_eq!(forms_with_status(&r, "passed").len(), 3, "{r}");
}

/// A generic `mapa.u32` into the thread's own rank instead of the rank asked for: the words
/// loaded are the own CTA's (L14114-14116); the other `mapa` forms pass.
#[test]
fn a_generic_32_bit_mapa_into_the_wrong_rank_is_found() {
    let (code, r) = conform(
        "addr32-mapa",
        |d| {
            planted_backend_of(
                d,
                r"s/^\tmapa\.u32 %r14, %r13, %r11;$/\tmapa.u32 %r14, %r13, %r1;/",
                Rewrite::KernelManualGrammar,
            )
        },
        &["mapa"],
    );
    assert_eq!(code, Some(1), "{r}");
    assert_eq!(forms_with_status(&r, "failed"), ["mapa.u32"], "{r}");
    let bad = r["forms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["form"] == "mapa.u32")
        .unwrap();
    // 4 CTAs of 32 threads: the first round's loads are wrong where the peer is another CTA,
    // (rank + 1 + t) mod 4 ≠ rank: 24 threads of each CTA; the second round maps into the own
    // rank anyway.
    assert_eq!(bad["failed"], 96, "{bad}");
}

/// `ptxconf run` under its default grammar (ptxas 12.9's) refuses 32-bit modules, as NVIDIA's
/// compiler does: the 32-bit forms are skipped as refused, the 64-bit ones judged.
#[test]
fn a_backend_refusing_32_bit_modules_has_them_skipped() {
    let bin = env!("CARGO_BIN_EXE_ptxconf");
    let (code, r) = conform(
        "addr32-refused",
        |_| format!("cmd:{bin} run"),
        &["getctarank.u", "cvta.local."],
    );
    assert_eq!(code, Some(0), "{r}");
    let mut skipped = forms_with_status(&r, "skipped");
    skipped.sort();
    assert_eq!(skipped, ["cvta.local.u32", "getctarank.u32"], "{r}");
    for f in r["forms"].as_array().unwrap() {
        if f["status"] == "skipped" {
            assert!(
                f["reason"]
                    .as_str()
                    .unwrap()
                    .contains("rejected as ptxas 12.9 rejects it"),
                "{f}"
            );
        }
    }
    assert_eq!(
        forms_with_status(&r, "passed"),
        ["cvta.local.u64", "getctarank.u64"],
        "{r}"
    );
}
