//! The fuzz targets' bodies (`fuzz/`, see `fuzz/README.md`) over their seed corpora
//! (`corpus/fuzz/<target>/`) and over deterministic pseudo-random inputs, so `cargo test` checks
//! the same properties the fuzzers do: no panic, and each body's property on every input.
//!
//! The meaningful seeds must reach the property (real PTX parses, type-checks and round-trips), so
//! a body that silently stopped checking fails here.

#[path = "../fuzz/bodies/programs.rs"]
mod programs;
#[path = "../fuzz/bodies/spec_vs_softfloat.rs"]
mod spec_vs_softfloat;

use ptxconf::fuzz_targets::{self, Finding, Reach};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

type Body = fn(&[u8]) -> Result<Reach, Finding>;

fn seed_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/fuzz").join(target)
}

/// The seed files of a target, sorted by name.
fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = seed_dir(target);
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    assert!(v.len() >= 3, "{}: only {} seeds", dir.display(), v.len());
    v
}

/// xorshift64*: deterministic bytes without a dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// `n` random byte strings of up to `max` bytes.
fn random_inputs(salt: u64, n: usize, max: usize) -> Vec<(String, Vec<u8>)> {
    let mut r = Rng::new(salt);
    (0..n)
        .map(|i| {
            let len = r.below(max + 1);
            (format!("random #{i}"), r.bytes(len))
        })
        .collect()
}

/// PTX-like punctuation and words, so mutants stay close to the grammar.
const JUNK: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    ";",
    ",",
    ".",
    "[",
    "]",
    "%r1",
    "%p1",
    ".f32",
    ".u64",
    ".reg",
    ".param",
    "@",
    "!",
    "0f7f800000",
    "1 % 16",
    "-",
    "+",
    "<2>",
    "\n",
    "//",
    "/*",
    "*/",
    "\"",
    "bra",
    "ret;",
    "0x",
    "_",
    "|",
    "::",
];

/// `n` mutants of the PTX seeds: a byte range deleted, duplicated, or replaced by PTX junk.
fn mutants(seeds: &[(String, Vec<u8>)], salt: u64, n: usize) -> Vec<(String, Vec<u8>)> {
    let texts: Vec<&(String, Vec<u8>)> = seeds
        .iter()
        .filter(|(n, _)| n.ends_with(".ptx") || n.ends_with(".txt"))
        .collect();
    assert!(!texts.is_empty());
    let mut r = Rng::new(salt);
    (0..n)
        .map(|i| {
            let (name, src) = texts[r.below(texts.len())];
            let mut s = src.clone();
            let at = r.below(s.len());
            let end = (at + r.below(24)).min(s.len());
            let how = match r.below(3) {
                0 => {
                    s.drain(at..end);
                    "deleted"
                }
                1 => {
                    let dup = s[at..end].to_vec();
                    s.splice(end..end, dup);
                    "duplicated"
                }
                _ => {
                    let j = JUNK[r.below(JUNK.len())].as_bytes().to_vec();
                    s.splice(at..end, j);
                    "replaced"
                }
            };
            (format!("mutant #{i} of {name} ({how} {at}..{end})"), s)
        })
        .collect()
}

/// Runs `body` on every input; fails with every finding and panic, else returns each input's
/// reach.
fn run(target: &str, body: Body, inputs: &[(String, Vec<u8>)]) -> Vec<Reach> {
    let mut failures = Vec::new();
    let mut reach = Vec::new();
    for (name, data) in inputs {
        match catch_unwind(AssertUnwindSafe(|| body(data))) {
            Ok(Ok(r)) => reach.push(r),
            Ok(Err(finding)) => failures.push(format!("{name}: {finding}")),
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{name}: panic: {msg}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{target}: {} of {} inputs fail:\n{}",
        failures.len(),
        inputs.len(),
        failures.join("\n\n")
    );
    reach
}

fn checked(reach: &[Reach]) -> usize {
    reach.iter().filter(|&&r| r == Reach::Checked).count()
}

// ---------------------------------------------------------------------------------------------
// parse, roundtrip

/// Real PTX seeds (`.ptx`) parse and type-check; the others (`.txt`: parse-only constructs,
/// `.bin`: bytes), random bytes and mutants never panic.
#[test]
fn parse_over_seeds_and_random_inputs() {
    let s = seeds("parse");
    let reach = run("parse", fuzz_targets::parse, &s);
    for ((name, _), r) in s.iter().zip(&reach) {
        if name.ends_with(".ptx") {
            assert_eq!(*r, Reach::Checked, "parse: seed {name} does not parse and type-check");
        }
    }
    run("parse", fuzz_targets::parse, &random_inputs(1, 200, 512));
    let m = mutants(&s, 2, 200);
    let reach = run("parse", fuzz_targets::parse, &m);
    assert!(
        checked(&reach) >= 10,
        "parse: only {} of 200 mutants type-check",
        checked(&reach)
    );
}

/// Text seeds (real PTX, `.ptx`, and constructs for the printer, `.txt`) round-trip; so do the
/// mutants that still parse (many must). `.bin` seeds are bytes that need not parse.
#[test]
fn roundtrip_over_seeds_and_mutants() {
    let s = seeds("roundtrip");
    let reach = run("roundtrip", fuzz_targets::roundtrip, &s);
    for ((name, _), r) in s.iter().zip(&reach) {
        if !name.ends_with(".bin") {
            assert_eq!(*r, Reach::Checked, "roundtrip: seed {name} does not parse");
        }
    }
    run("roundtrip", fuzz_targets::roundtrip, &random_inputs(3, 200, 512));
    let m = mutants(&s, 4, 200);
    let reach = run("roundtrip", fuzz_targets::roundtrip, &m);
    assert!(
        checked(&reach) >= 40,
        "roundtrip: only {} of 200 mutants parse",
        checked(&reach)
    );
}

/// The round-trip body fails where it must: a finding is not swallowed (the printer and parser
/// are right here, so this checks the comparison itself on a module whose items differ).
#[test]
fn roundtrip_reports_are_readable() {
    let a = oracle::parse::parse(".version 8.7\n.target sm_80\n.address_size 64\n").unwrap();
    let b = oracle::parse::parse(".version 8.7\n.target sm_90\n.address_size 64\n").unwrap();
    assert_ne!(a, b, "modules differing in one item compare unequal");
    assert_eq!(
        fuzz_targets::roundtrip(b".version 8.7\n.target sm_80\n.address_size 64\n"),
        Ok(Reach::Checked)
    );
    assert_eq!(fuzz_targets::roundtrip(b"\xff\xfe not ptx"), Ok(Reach::Rejected));
}

// ---------------------------------------------------------------------------------------------
// spec_vs_softfloat

/// The seeds: form, what the case is about, operand lanes (raw bits, PTX order). The file name is
/// `FORM--WHAT`; `regenerate_spec_vs_softfloat_seeds` writes them.
const SOFTFLOAT_SEEDS: &[(&str, &str, &[u64])] = &[
    ("add.rn.f32", "tie-to-even", &[0x3f80_0000, 0x3380_0000]),
    ("sub.rm.f32", "exact-zero-is-negative", &[0x4049_0fdb, 0x4049_0fdb]),
    ("fma.rn.f32", "cancellation", &[0x3f80_0001, 0x3f7f_fffe, 0xbf80_0000]),
    (
        "mul.rz.ftz.f32",
        "subnormal-result-flushed",
        &[0x0080_0000, 0x3f00_0000],
    ),
    (
        "div.rp.f64",
        "one-third",
        &[0x3ff0_0000_0000_0000, 0x4008_0000_0000_0000],
    ),
    ("sqrt.rn.f64", "nan-payload", &[0x7ff0_0000_0000_0123]),
    (
        "add.rn.f64",
        "two-nans",
        &[0xfff0_0000_0000_0001, 0x7ff8_0000_0000_0002],
    ),
    (
        "fma.rn.f64",
        "zero-times-inf-plus-nan",
        &[0, 0x7ff0_0000_0000_0000, 0x7ff4_0000_0000_0000],
    ),
    ("add.rn.sat.f16x2", "nan-lane", &[0x7e00, 0x3c00, 0x3c00, 0x3c00]),
    ("fma.rn.f32.bf16", "mixed", &[0x3f81, 0x3f7f, 0xbf80_0000]),
    ("cvt.rni.s32.f32", "half-way", &[0x4020_0000]),
    ("cvt.rzi.u8.f64", "saturates", &[0x4072_c000_0000_0000]),
    ("cvt.rmi.s64.bf16", "nan-is-minint", &[0x7fc1]),
    ("cvt.rn.f16.f32", "overflow-to-inf", &[0x477f_f000]),
    ("cvt.rp.f32.s64", "inexact", &[0x0100_0000_0000_0001]),
    ("cvt.rn.ftz.f32.f64", "tiny-to-zero", &[0x3800_0000_0000_0001]),
    ("cvt.f64.f16", "subnormal-widened", &[0x8001]),
    ("cvt.rpi.f16.f16", "just-above-integer", &[0x3c01]),
    ("rcp.rm.ftz.f32", "largest-subnormal", &[0x007f_ffff]),
];

fn softfloat_seed_name(form: &str, what: &str) -> String {
    format!("{form}--{what}")
}

/// Writes `corpus/fuzz/spec_vs_softfloat/` from [`SOFTFLOAT_SEEDS`] (after the form table of the
/// body changed): `cargo test --test fuzz_seeds -- --ignored regenerate`.
#[test]
#[ignore]
fn regenerate_spec_vs_softfloat_seeds() {
    let dir = seed_dir("spec_vs_softfloat");
    std::fs::create_dir_all(&dir).unwrap();
    for (form, what, lanes) in SOFTFLOAT_SEEDS {
        let data = spec_vs_softfloat::encode(form, lanes).unwrap_or_else(|| panic!("{form} is not in the table"));
        std::fs::write(dir.join(softfloat_seed_name(form, what)), data).unwrap();
    }
}

/// Every form of the body's table is one catalog form with semantics, so no input is wasted and
/// the table's names are PTX's.
#[test]
fn spec_vs_softfloat_table_is_catalog_forms() {
    let forms = spec_vs_softfloat::forms();
    let bad: Vec<&str> = forms.iter().filter(|(_, ok)| !ok).map(|(n, _)| n.as_str()).collect();
    assert!(bad.is_empty(), "not single catalog forms with semantics: {bad:?}");
    assert!(forms.len() > 900, "{} forms", forms.len());
}

/// The harness's own SoftFloat answers on cases worked by hand: the reference is checked before
/// the spec is checked against it.
#[test]
fn spec_vs_softfloat_known_answers() {
    let cases: &[(&str, &[u64], u64)] = &[
        // 1 + 2^-24: a tie, to even (1.0); up to 1 + 2^-23.
        ("add.rn.f32", &[0x3f80_0000, 0x3380_0000], 0x3f80_0000),
        ("add.rp.f32", &[0x3f80_0000, 0x3380_0000], 0x3f80_0001),
        ("add.rm.f32", &[0xbf80_0000, 0xb380_0000], 0xbf80_0001),
        // x − x is +0, −0 rounding down.
        ("sub.rn.f32", &[0x4049_0fdb, 0x4049_0fdb], 0),
        ("sub.rm.f32", &[0x4049_0fdb, 0x4049_0fdb], 0x8000_0000),
        // 2^-126 × 0.5 = 2^-127: a subnormal, flushed with .ftz.
        ("mul.rn.f32", &[0x0080_0000, 0x3f00_0000], 0x0040_0000),
        ("mul.rn.ftz.f32", &[0x0080_0000, 0x3f00_0000], 0),
        // .sat: NaN → +0, 2.0 → 1.0, −1.0 → +0.
        ("add.rn.sat.f32", &[0x7fc0_0000, 0x3f80_0000], 0),
        ("add.rn.sat.f32", &[0x3f80_0000, 0x3f80_0000], 0x3f80_0000),
        ("add.rn.sat.f32", &[0xbf80_0000, 0x8000_0000], 0),
        ("div.rn.f32", &[0x3f80_0000, 0x4040_0000], 0x3eaa_aaab),
        ("sqrt.rn.f64", &[0x4010_0000_0000_0000], 0x4000_0000_0000_0000),
        ("rcp.rn.f64", &[0], 0x7ff0_0000_0000_0000),
        ("rcp.rz.f32", &[0x4040_0000], 0x3eaa_aaaa),
        ("fma.rn.f32", &[0x4000_0000, 0x4040_0000, 0x3f80_0000], 0x40e0_0000),
        ("add.rn.f16", &[0x3c00, 0x3c00], 0x4000),
        // Mixed precision: bf16 1.0 + f32 1.0; f16 2.0 × 3.0 − 1.0.
        ("add.rn.f32.bf16", &[0x3f80, 0x3f80_0000], 0x4000_0000),
        ("fma.rn.f32.f16", &[0x4000, 0x4200, 0xbf80_0000], 0x40a0_0000),
        // float→int: ties to even, floor, saturation, NaN → 0 (into 32 bits from f32).
        ("cvt.rni.s32.f32", &[0x4020_0000], 2),
        ("cvt.rni.s32.f32", &[0x4060_0000], 4),
        ("cvt.rmi.s8.f32", &[0xbfc0_0000], 0xfe),
        ("cvt.rzi.u8.f32", &[0x4396_0000], 0xff),
        ("cvt.rzi.u32.f32", &[0xbf80_0000], 0),
        ("cvt.rni.s32.f32", &[0x7fc0_0000], 0),
        ("cvt.rni.s64.f64", &[0x7e37_e43c_8800_759c], 0x7fff_ffff_ffff_ffff),
        ("cvt.rni.s16.bf16", &[0xc2f7], 0xff84), // −123.5 → −124
        // float→float: 65520 overflows f16 to ∞ in round-to-nearest, not toward zero.
        ("cvt.rn.f16.f32", &[0x477f_f000], 0x7c00),
        ("cvt.rz.f16.f32", &[0x477f_f000], 0x7bff),
        ("cvt.f32.bf16", &[0x3f80], 0x3f80_0000),
        ("cvt.ftz.f32.bf16", &[0x0001], 0),
        ("cvt.f64.f16", &[0x0001], 0x3e70_0000_0000_0000), // 2^-24
        // int→float: 2^24 + 1 ties to even; up with .rp.
        ("cvt.rn.f32.s32", &[0x0100_0001], 0x4b80_0000),
        ("cvt.rp.f32.s32", &[0x0100_0001], 0x4b80_0001),
        ("cvt.rn.f16.u32", &[65520], 0x7c00),
        ("cvt.rn.f64.s8", &[0x80], 0xc060_0000_0000_0000), // −128
        // Same type: round to integral, a copy quiets a NaN.
        ("cvt.rni.f32.f32", &[0x4020_0000], 0x4000_0000),
        ("cvt.f32.f32", &[0x7f80_0001], 0x7fc0_0001),
        ("cvt.rpi.bf16.bf16", &[0x3fc0], 0x4000), // 1.5 → 2.0
    ];
    for &(form, ops, want) in cases {
        let got = spec_vs_softfloat::reference_of(form, ops).unwrap_or_else(|| panic!("{form} is not in the table"));
        assert_eq!(
            got, want,
            "{form} {ops:x?}: harness reference {got:#x}, worked by hand {want:#x}"
        );
    }
}

/// The seeds are current (each file is its form's encoding), then the body agrees with SoftFloat
/// on them and on 200 random inputs.
#[test]
fn spec_vs_softfloat_over_seeds_and_random_inputs() {
    let s = seeds("spec_vs_softfloat");
    for (form, what, lanes) in SOFTFLOAT_SEEDS {
        let name = softfloat_seed_name(form, what);
        let file = s.iter().find(|(n, _)| *n == name);
        let want = spec_vs_softfloat::encode(form, lanes).unwrap();
        assert_eq!(
            file.map(|(_, d)| d),
            Some(&want),
            "seed {name} missing or stale: cargo test --test fuzz_seeds -- --ignored regenerate"
        );
        assert_eq!(spec_vs_softfloat::form_of(&want), *form);
    }
    let reach = run("spec_vs_softfloat", spec_vs_softfloat::spec_vs_softfloat, &s);
    assert_eq!(checked(&reach), s.len());
    let r = random_inputs(5, 200, 48);
    let reach = run("spec_vs_softfloat", spec_vs_softfloat::spec_vs_softfloat, &r);
    assert_eq!(checked(&reach), r.len());
}

/// The verdict rejects wrong outcomes: another value, a NaN not accepted, an f64 NaN that is
/// not the operand's, a wrong lane; and accepts the rules' latitude.
#[test]
fn spec_vs_softfloat_verdict_rejects_wrong_outcomes() {
    use spec::types::FloatFormat;
    use spec::value::{Accept, Outcome};
    let v = spec_vs_softfloat::verdict_of;
    let tie = [vec![0x3f80_0000], vec![0x3380_0000]];
    assert_eq!(v("add.rn.f32", &tie, &Outcome::exact(0x3f80_0000)), None);
    assert!(v("add.rn.f32", &tie, &Outcome::exact(0x3f80_0001)).is_some());
    // The model right, the acceptance set not containing SoftFloat's result: impossible for a
    // non-NaN (the model is SoftFloat's), so check a NaN: 0 × ∞ in f32.
    let inv = [vec![0], vec![0x7f80_0000]];
    assert_eq!(v("mul.rn.f32", &inv, &Outcome::any_nan(FloatFormat::F32)), None);
    assert!(
        v("mul.rn.f32", &inv, &Outcome::exact(0x7fff_ffff)).is_some(),
        "SoftFloat's NaN must be accepted"
    );
    assert!(v("mul.rn.f32", &inv, &Outcome::exact(0)).is_some(), "a NaN was due");
    // f64: an operand NaN propagates, quieted.
    let nan = [vec![0x7ff0_0000_0000_0123], vec![0x3ff0_0000_0000_0000]];
    assert_eq!(v("add.rn.f64", &nan, &Outcome::exact(0x7ff8_0000_0000_0123)), None);
    assert!(v("add.rn.f64", &nan, &Outcome::exact(0x7ff8_0000_0000_0000)).is_some());
    // Packed: a wrong second lane.
    let two = [vec![0x3c00, 0x3c00], vec![0x3c00, 0x4000]];
    assert_eq!(v("add.rn.f16x2", &two, &Outcome::exact(0x4200_4000)), None);
    assert!(v("add.rn.f16x2", &two, &Outcome::exact(0x4000_4000)).is_some());
    // An integer result: exact only.
    assert!(v("cvt.rni.s32.f32", &[vec![0x4020_0000]], &Outcome::exact(3)).is_some());
    let loose = Outcome {
        model: 2,
        accept: Accept::Any,
    };
    assert_eq!(v("cvt.rni.s32.f32", &[vec![0x4020_0000]], &loose), None);
}

// ---------------------------------------------------------------------------------------------
// oracle_run, differential

/// Rewrites the byte seeds of `oracle_run` and `differential` (after the generator changed how
/// it reads bytes): for each construct, the first of a fixed stream of random byte strings whose
/// program contains it. `cargo test --test fuzz_seeds -- --ignored regenerate`.
#[test]
#[ignore]
fn regenerate_program_seeds() {
    let want = [
        "bar.sync",
        "call",
        "shfl.sync",
        "atom.",
        "@%p",
        "ld.shared",
        "ld.local",
        "vote.sync",
        "redux.sync",
        "bra",
    ];
    let mut r = Rng::new(77);
    for w in want {
        let name = w.trim_matches(|c: char| !c.is_ascii_alphanumeric()).replace('.', "_");
        let found = (0..1000).find_map(|_| {
            let len = 64 + r.below(1024);
            let data = r.bytes(len);
            programs::program(&data).filter(|p| p.ptx.contains(w)).map(|_| data)
        });
        let data = found.unwrap_or_else(|| panic!("no program with `{w}` in 1000"));
        for target in ["oracle_run", "differential"] {
            let dir = seed_dir(target);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("uses_{name}")), &data).unwrap();
        }
    }
}

/// Generated programs run on the oracle without error, twice alike: the seeds and 200 random
/// byte strings.
#[test]
fn oracle_run_over_seeds_and_random_inputs() {
    let s = seeds("oracle_run");
    let reach = run("oracle_run", programs::oracle_run, &s);
    assert_eq!(checked(&reach), s.len(), "every byte string makes a program");
    let r = random_inputs(6, 200, 1024);
    let reach = run("oracle_run", programs::oracle_run, &r);
    assert_eq!(checked(&reach), r.len());
}

fn oracle_backend() -> Box<dyn ptxconf::backend::Backend> {
    let opts = ptxconf::backend::Options {
        jobs: 1,
        ..Default::default()
    };
    ptxconf::backend::open("oracle", &opts).unwrap()
}

/// The oracle against itself: no mismatch on the seeds and 200 random byte strings.
#[test]
fn differential_over_seeds_on_the_oracle() {
    let b = oracle_backend();
    let body = |d: &[u8]| programs::differential_on(b.as_ref(), d);
    let s = seeds("differential");
    let mut reach = Vec::new();
    for (name, data) in s.iter().chain(&random_inputs(7, 200, 1024)) {
        reach.push(body(data).unwrap_or_else(|f| panic!("{name}: {f}")));
    }
    assert_eq!(checked(&reach), reach.len());
    // The environment's backend (the oracle unless PTXCONF_FUZZ_BACKEND says otherwise).
    if std::env::var_os(programs::BACKEND_VAR).is_none() {
        assert_eq!(programs::env_backend().name(), "oracle");
        assert_eq!(programs::differential(&s[0].1), Ok(Reach::Checked));
    }
}

/// A backend with a planted bug: the oracle, with one bit flipped at byte `at` of the signature
/// buffer `sig`.
struct FlipOneBit {
    inner: Box<dyn ptxconf::backend::Backend>,
    at: usize,
}

impl ptxconf::backend::Backend for FlipOneBit {
    fn name(&self) -> String {
        "flip-one-bit".into()
    }
    fn describe(&self) -> String {
        "the oracle with a planted bug".into()
    }
    fn caps(&self) -> &ptxconf::backend::Caps {
        self.inner.caps()
    }
    fn run(&self, job: &ptxconf::backend::Job) -> Result<ptxconf::backend::Buffers, ptxconf::backend::Failure> {
        let mut bufs = self.inner.run(job)?;
        if let Some(b) = bufs
            .iter_mut()
            .find(|(n, _)| n == "sig")
            .and_then(|(_, d)| d.get_mut(self.at))
        {
            *b ^= 0x10;
        }
        Ok(bufs)
    }
}

/// `differential` reports the planted bug, flipped in each exact slot of the last thread, and
/// for the first slot no judged slot reads, with the program, its launch and the one mismatch.
#[test]
fn differential_reports_a_planted_bug() {
    use oracle::launch::Slot;
    let s = seeds("differential");
    for (name, data) in &s {
        let p = programs::program(data).unwrap();
        let check = p.launch.check.as_ref().expect("generated programs carry a check");
        assert_eq!(check.buffer, "sig", "{name}");
        let exact: Vec<usize> = (check.slots.iter())
            .filter_map(|s| match s {
                Slot::Exact { offset, .. } => Some(*offset as usize),
                _ => None,
            })
            .collect();
        assert!(!exact.is_empty(), "{name}: no exact slot in the signature");
        let threads: u32 = p.launch.grid.iter().chain(&p.launch.block).product();
        // Every flip is reported; a flipped slot that a judged slot's set is computed from moves
        // that set too (two mismatches), so the first slot whose flip stands alone is checked.
        let reports: Vec<String> = (exact.iter())
            .map(|&offset| {
                let b = FlipOneBit {
                    inner: oracle_backend(),
                    at: check.stride as usize * (threads as usize - 1) + offset,
                };
                programs::differential_on(&b, data).expect_err(name)
            })
            .collect();
        let f = (reports.iter())
            .find(|f| f.contains("1 mismatch(es)"))
            .unwrap_or_else(|| panic!("{name}: no exact slot's flip is reported alone: {}", reports[0]));
        assert!(f.contains(&format!("thread {}", threads - 1)), "{name}: {f}");
        assert!(f.contains(&p.ptx), "{name}: the report has the program");
        assert!(f.contains(&p.launch.to_json()), "{name}: the report has the launch");
    }
}
