//! Every kernel of corpus/ptx runs on the oracle and matches its expected output, computed
//! independently of the oracle (a native build, a C twin, plain Python):
//! - llvm/ and nvcc/: bit for bit, except that where `corpus/ptx/nan.json` says a buffer holds
//!   floats, a NaN matches any NaN of the same format (the native build's x86 payloads are not
//!   what PTX specifies);
//! - nvrtc/ and triton/ (real compilers' output, issue 13): per buffer as `NAME.compare.json`
//!   states it (`exact` when unlisted, `nan`, `ulp:N`, `abs:X`, `rel:X`, `any`), each rule with
//!   its justification in the file.
//!
//! A kernel that uses an instruction the oracle does not execute yet is listed in
//! `corpus/ptx/blocked.tsv` with that first instruction and where it is: the work list of the
//! tensor-core and async issues. The test fails when a listed kernel runs (drop its line: the
//! table only shrinks) or when an unlisted one stops (an instruction the oracle executed before
//! and no longer does, or a new kernel to list).

use oracle::launch::{decode_hex, run_file};
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/ptx")
}

const DIRS: [&str; 4] = ["llvm", "nvcc", "nvrtc", "triton"];

fn launches() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in DIRS {
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

/// `dir/NAME` of a launch file.
fn key(f: &Path) -> String {
    let dir = f.parent().and_then(|d| d.file_name()).unwrap().to_string_lossy();
    let name = f.file_name().unwrap().to_string_lossy().replace(".launch.json", "");
    format!("{dir}/{name}")
}

/// `corpus/ptx/blocked.tsv`: `dir/NAME` → (instruction, `file:line:col`).
fn blocked() -> std::collections::BTreeMap<String, (String, String)> {
    let text = std::fs::read_to_string(corpus().join("blocked.tsv")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert!(c.len() >= 3, "blocked.tsv: `{l}` needs kernel, instruction, location");
            (c[0].to_string(), (c[1].to_string(), c[2].to_string()))
        })
        .collect()
}

/// An element format of a comparison rule: its width in bytes and, for floats, its layout.
#[derive(Clone, Copy, Debug)]
struct Elem {
    bytes: usize,
    /// (exponent bits, mantissa bits) of a float format.
    float: Option<(u32, u32)>,
}

fn elem(name: &str) -> Elem {
    let (bytes, float) = match name {
        "u8" | "s8" => (1, None),
        "u16" | "s16" => (2, None),
        "u32" | "s32" => (4, None),
        "u64" | "s64" => (8, None),
        "f16" => (2, Some((5, 10))),
        "bf16" => (2, Some((8, 7))),
        "f32" => (4, Some((8, 23))),
        "f64" => (8, Some((11, 52))),
        _ => panic!("unknown element format `{name}` in a comparison rule"),
    };
    Elem { bytes, float }
}

fn is_nan(e: Elem, bits: u64) -> bool {
    let Some((eb, mb)) = e.float else { return false };
    (bits >> mb) & ((1 << eb) - 1) == (1 << eb) - 1 && bits & ((1 << mb) - 1) != 0
}

fn is_inf(e: Elem, bits: u64) -> bool {
    let Some((eb, mb)) = e.float else { return false };
    (bits >> mb) & ((1 << eb) - 1) == (1 << eb) - 1 && bits & ((1 << mb) - 1) == 0
}

/// The value of float bits, exactly (every format here widens to f64 without rounding).
fn value(e: Elem, bits: u64) -> f64 {
    let (eb, mb) = e.float.unwrap();
    let sign = if bits >> (eb + mb) & 1 == 1 { -1.0 } else { 1.0 };
    let ex = ((bits >> mb) & ((1 << eb) - 1)) as i32;
    let man = (bits & ((1 << mb) - 1)) as f64;
    let bias = (1 << (eb - 1)) - 1;
    if ex == 0 {
        sign * man * 2f64.powi(1 - bias - mb as i32)
    } else {
        sign * (1.0 + man / 2f64.powi(mb as i32)) * 2f64.powi(ex - bias)
    }
}

/// Bits mapped to integers in the order of their values (adjacent floats differ by 1).
fn ordered(e: Elem, bits: u64) -> i64 {
    let (eb, mb) = e.float.unwrap();
    let sign = 1u64 << (eb + mb);
    if bits & sign != 0 {
        -((bits & !sign) as i64)
    } else {
        bits as i64
    }
}

/// Whether `got` is accepted for `want` under `rule` (see the module docs).
fn accepts(rule: &str, e: Elem, got: u64, want: u64) -> bool {
    if rule == "any" || got == want {
        return true;
    }
    if rule == "exact" || e.float.is_none() {
        return false;
    }
    if is_nan(e, got) || is_nan(e, want) {
        return is_nan(e, got) && is_nan(e, want);
    }
    if rule == "nan" || is_inf(e, got) || is_inf(e, want) {
        return false;
    }
    let (g, w) = (value(e, got), value(e, want));
    let num = |s: &str| {
        s.parse::<f64>()
            .unwrap_or_else(|_| panic!("bad bound in rule `{rule}`"))
    };
    match rule.split_once(':') {
        Some(("ulp", n)) => (ordered(e, got) - ordered(e, want)).unsigned_abs() <= num(n) as u64,
        Some(("abs", x)) => (g - w).abs() <= num(x),
        Some(("rel", x)) => (g - w).abs() <= num(x) * w.abs(),
        _ => panic!("unknown comparison rule `{rule}`"),
    }
}

/// The rule of buffer `buf` of kernel `name` (in `dir`): `NAME.compare.json`, else `nan.json`.
fn rule_of(launch: &Path, buf: &str, nan: &serde_json::Value) -> (String, Elem) {
    let name = launch
        .file_name()
        .unwrap()
        .to_string_lossy()
        .replace(".launch.json", "");
    let cmp = launch.with_file_name(format!("{name}.compare.json"));
    if let Ok(text) = std::fs::read_to_string(&cmp) {
        let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", cmp.display()));
        if let Some(r) = v.get(buf) {
            let rule = r["rule"]
                .as_str()
                .unwrap_or_else(|| panic!("{}: `{buf}` has no rule", cmp.display()));
            assert!(
                rule == "exact" || r["why"].as_str().is_some_and(|w| !w.is_empty()),
                "{}: rule `{rule}` of `{buf}` has no `why`",
                cmp.display()
            );
            return (rule.to_string(), elem(r["elem"].as_str().unwrap_or("u8")));
        }
        return ("exact".into(), elem("u8"));
    }
    match nan[&name][buf].as_str() {
        Some(f) => ("nan".into(), elem(f)),
        None => ("exact".into(), elem("u8")),
    }
}

/// The elements `got` and `want` differ in under `rule`: (index, got, want).
fn diff_rule(got: &[u8], want: &[u8], rule: &str, e: Elem) -> Vec<(usize, u64, u64)> {
    let mut d = Vec::new();
    if got.len() != want.len() {
        d.push((usize::MAX, got.len() as u64, want.len() as u64));
        return d;
    }
    let val = |c: &[u8]| c.iter().rev().fold(0u64, |a, &b| a << 8 | b as u64);
    for (i, (g, w)) in got.chunks(e.bytes).zip(want.chunks(e.bytes)).enumerate() {
        let (g, w) = (val(g), val(w));
        if !accepts(rule, e, g, w) {
            d.push((i, g, w));
        }
    }
    d
}

/// The bit-for-bit comparison of llvm/ and nvcc/ (a NaN rule for `fmt`).
fn diff(got: &[u8], want: &[u8], fmt: Option<&str>) -> Vec<(usize, u64, u64)> {
    match fmt {
        Some(f) => diff_rule(got, want, "nan", elem(f)),
        None => diff_rule(got, want, "exact", elem("u8")),
    }
}

/// Whether an oracle error says it stops at an instruction it does not execute yet.
fn not_executed(message: &str) -> bool {
    message.contains("does not execute") || message.contains("not executed")
}

#[test]
fn every_corpus_kernel_matches_its_expected_output() {
    let nan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(corpus().join("nan.json")).unwrap()).unwrap();
    let files = launches();
    assert!(files.len() >= 11, "corpus/ptx has {} launch files", files.len());
    let mut listed = blocked();
    let mut failures = Vec::new();
    let (mut ran, mut stopped) = (0, 0);
    for f in &files {
        let k = key(f);
        let name = f.file_name().unwrap().to_string_lossy().replace(".launch.json", "");
        let expected_path = f.with_file_name(format!("{name}.expected.json"));
        let expected: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap()).unwrap();
        let entry = listed.remove(&k);
        let (bufs, stats) = match run_file(f) {
            Ok(x) => x,
            Err((e, file)) => {
                let at = e.location(&file);
                let at = at.rsplit('/').next().unwrap_or(&at).to_string();
                match &entry {
                    Some((_, loc)) if not_executed(&e.message) && *loc == at => stopped += 1,
                    Some((instr, loc)) => failures.push(format!(
                        "{k}: blocked.tsv says it stops at `{instr}` ({loc}); now: {} error at {at}: {}",
                        e.kind.name(),
                        e.message
                    )),
                    None => failures.push(format!("{k}: {} error at {at}: {}", e.kind.name(), e.message)),
                }
                continue;
            }
        };
        if let Some((instr, _)) = entry {
            failures.push(format!(
                "{k} runs now: drop its line from corpus/ptx/blocked.tsv (it stopped at `{instr}`)"
            ));
        }
        ran += 1;
        assert!(stats.thread_instructions > 0);
        let want = expected["buffers"].as_array().unwrap();
        assert_eq!(bufs.len(), want.len(), "{k}: buffer count");
        for ((bn, got), w) in bufs.iter().zip(want) {
            assert_eq!(bn, w["name"].as_str().unwrap(), "{k}: buffer order");
            let want_bytes = decode_hex(w["hex"].as_str().unwrap()).unwrap();
            let (rule, e) = rule_of(f, bn, &nan);
            let d = diff_rule(got, &want_bytes, &rule, e);
            if !d.is_empty() {
                failures.push(format!(
                    "{k}.{bn} ({rule}): {} elements differ; first (index, got, want): {:x?}",
                    d.len(),
                    &d[..d.len().min(4)]
                ));
            }
        }
    }
    for (k, _) in listed {
        failures.push(format!("blocked.tsv lists `{k}`, which has no launch file"));
    }
    eprintln!("{ran} corpus kernels ran and matched their expected output; {stopped} stop where blocked.tsv says");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn comparison_rules_are_not_wildcards() {
    let f32 = elem("f32");
    let one = 0x3f80_0000;
    // ulp:1 takes the neighbours and nothing further, across zero too.
    assert!(accepts("ulp:1", f32, one + 1, one));
    assert!(!accepts("ulp:1", f32, one + 2, one));
    assert!(accepts("ulp:1", f32, 0x8000_0001, 0x0000_0000));
    // abs/rel bounds measure values; a NaN or an infinity only matches its own kind.
    assert!(accepts("abs:1e-3", f32, 0x3f80_0000, 0x3f80_1000));
    assert!(!accepts("abs:1e-6", f32, 0x3f80_0000, 0x3f80_1000));
    assert!(accepts("rel:1e-3", f32, 0x4480_0000, 0x4480_0100));
    assert!(!accepts("rel:1e-3", f32, 0x7fc0_0000, one));
    assert!(!accepts("rel:1e-3", f32, 0x7f80_0000, 0x7f7f_ffff));
    assert!(accepts("nan", f32, 0x7fff_ffff, 0x7fc0_0000));
    assert!(!accepts("nan", f32, one + 1, one));
    assert!(!accepts("exact", elem("u32"), 1, 2));
    assert!(accepts("any", elem("u32"), 1, 2));
    // bf16 and f16 values are read exactly.
    assert_eq!(value(elem("bf16"), 0x3f80), 1.0);
    assert_eq!(value(elem("f16"), 0x0001), 2f64.powi(-24));
}

/// The printer keeps meaning, not just syntax: each corpus kernel printed and parsed back computes
/// the same bytes as the original.
#[test]
fn printed_kernels_compute_the_same_bytes() {
    let stops = blocked();
    for f in launches().into_iter().filter(|f| !stops.contains_key(&key(f))) {
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

/// corpus/findings/triton-3.5.1-proxy-fence: Triton 3.5.1's sm_90a matmuls and attention read
/// `cp.async`-written shared memory with `wgmma` and no `fence.proxy.async` (L26398). The oracle
/// reports each at the `wgmma.mma_async` that `expected.tsv` names, naming the `cp.async` and
/// the rule; Triton 3.9's output of the same kernels (corpus/ptx/triton) runs and matches.
#[test]
fn triton_3_5_1_wgmma_reads_without_the_proxy_fence_are_reported() {
    let rows = finding_errors("triton-3.5.1-proxy-fence");
    assert_eq!(rows.len(), 4);
    for (name, write, message) in rows {
        let why = format!("the `cp.async` at line {write} ");
        assert!(
            message.contains(&why) && message.contains("L26398"),
            "{name}: {message}"
        );
    }
}

/// Runs every kernel of `corpus/findings/FINDING/expected.tsv` (rows: kernel, where the oracle
/// stops, a third field the finding's test reads), requires each to stop with an error at its
/// location, and returns (kernel, third field, message).
fn finding_errors(finding: &str) -> Vec<(String, String, String)> {
    let dir = corpus().join("../findings").join(finding);
    let table = std::fs::read_to_string(dir.join("expected.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').collect())
        .collect();
    rows.into_iter()
        .map(|row| {
            let [name, at, field] = row[..] else {
                panic!(
                    "{finding}/expected.tsv: `{}` needs kernel, location, field",
                    row.join("\t")
                );
            };
            let (e, file) = run_file(&dir.join(format!("{name}.launch.json"))).unwrap_err();
            let loc = e.location(&file);
            assert!(loc.ends_with(at), "{name}: error at {loc}, not {at}: {}", e.message);
            (name.to_string(), field.to_string(), e.message)
        })
        .collect()
}

#[test]
fn triton_3_9_0_parity_minus_one_is_reported() {
    // corpus/findings/triton-3.9.0-mbarrier-parity: phaseParity outside {0, 1} (L19053).
    let rows = finding_errors("triton-3.9.0-mbarrier-parity");
    assert_eq!(rows.len(), 1);
    for (name, value, message) in rows {
        let why = format!("phaseParity {value} is neither 0 nor 1");
        assert!(
            message.contains(&why) && message.contains("L19053"),
            "{name}: {message}"
        );
    }
}
