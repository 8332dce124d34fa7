//! Every kernel of corpus/ptx runs on the oracle bit-identically to its native build: the output
//! bytes of each buffer equal the expected file's, except that where `corpus/ptx/nan.json` says
//! a buffer holds floats, a NaN matches any NaN of the same format (the native build's x86
//! payloads are not what PTX specifies).

use oracle::launch::{decode_hex, run_file};
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/ptx")
}

fn launches() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["llvm", "nvcc"] {
        let Ok(rd) = std::fs::read_dir(corpus().join(dir)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.to_string_lossy().ends_with(".launch.json") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

fn is_nan(fmt: &str, bits: u64) -> bool {
    match fmt {
        "f32" => bits & 0x7f80_0000 == 0x7f80_0000 && bits & 0x007f_ffff != 0,
        "f64" => bits & 0x7ff0_0000_0000_0000 == 0x7ff0_0000_0000_0000 && bits & 0x000f_ffff_ffff_ffff != 0,
        _ => false,
    }
}

/// The differences between `got` and `want` as (element index, got, want), NaN-aware for `fmt`.
fn diff(got: &[u8], want: &[u8], fmt: Option<&str>) -> Vec<(usize, u64, u64)> {
    let w = match fmt {
        Some("f32") => 4,
        Some("f64") => 8,
        _ => 1,
    };
    let mut d = Vec::new();
    if got.len() != want.len() {
        d.push((usize::MAX, got.len() as u64, want.len() as u64));
        return d;
    }
    for (i, (g, e)) in got.chunks(w).zip(want.chunks(w)).enumerate() {
        let val = |c: &[u8]| c.iter().rev().fold(0u64, |a, &b| a << 8 | b as u64);
        let (g, e) = (val(g), val(e));
        if g != e && !(fmt.is_some_and(|f| is_nan(f, g) && is_nan(f, e))) {
            d.push((i, g, e));
        }
    }
    d
}

#[test]
fn every_corpus_kernel_matches_its_native_build() {
    let nan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(corpus().join("nan.json")).unwrap()).unwrap();
    let files = launches();
    assert!(files.len() >= 11, "corpus/ptx has {} launch files", files.len());
    let mut failures = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().replace(".launch.json", "");
        let expected_path = f.with_file_name(format!("{name}.expected.json"));
        let expected: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap()).unwrap();
        let (bufs, stats) = match run_file(f) {
            Ok(x) => x,
            Err((e, file)) => {
                failures.push(format!(
                    "{name}: {} error at {}: {}",
                    e.kind.name(),
                    e.location(&file),
                    e.message
                ));
                continue;
            }
        };
        assert!(stats.thread_instructions > 0);
        let want = expected["buffers"].as_array().unwrap();
        assert_eq!(bufs.len(), want.len(), "{name}: buffer count");
        for ((bn, got), w) in bufs.iter().zip(want) {
            assert_eq!(bn, w["name"].as_str().unwrap(), "{name}: buffer order");
            let want_bytes = decode_hex(w["hex"].as_str().unwrap()).unwrap();
            let fmt = nan[&name][bn].as_str();
            let d = diff(got, &want_bytes, fmt);
            if !d.is_empty() {
                failures.push(format!(
                    "{name}.{bn}: {} elements differ; first (index, got, want): {:x?}",
                    d.len(),
                    &d[..d.len().min(4)]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The printer keeps meaning, not just syntax: each corpus kernel printed and parsed back computes
/// the same bytes as the original.
#[test]
fn printed_kernels_compute_the_same_bytes() {
    for f in launches() {
        let l = oracle::launch::parse_launch(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let ptx = std::fs::read_to_string(f.with_file_name(&l.ptx)).unwrap();
        let printed = oracle::print::print(&oracle::parse::parse(&ptx).unwrap());
        let a = oracle::launch::run(&l, &ptx).unwrap().0;
        let b = oracle::launch::run(&l, &printed)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()))
            .0;
        assert!(a == b, "{}: the printed kernel computes different bytes", f.display());
    }
}

#[test]
fn the_nan_rule_is_not_a_wildcard() {
    // A NaN matches a NaN, never a number; every other buffer compares bit for bit.
    let nan32 = 0x7fc0_0000u32.to_le_bytes();
    let canon = 0x7fff_ffffu32.to_le_bytes();
    let one = 0x3f80_0000u32.to_le_bytes();
    assert!(diff(&canon, &nan32, Some("f32")).is_empty());
    assert_eq!(diff(&one, &nan32, Some("f32")).len(), 1);
    assert_eq!(diff(&canon, &nan32, None).len(), 3);
}
