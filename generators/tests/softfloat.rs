//! The spec's floating-point semantics against Berkeley SoftFloat 3, an independent reference.
//!
//! Every rounded PTX float form this file knows (add, sub, mul, fma, mad, div, sqrt, rcp in
//! f16/f32/f64 with `.rn .rz .rm .rp`, `.ftz` and `.sat`; bf16 add/sub/mul/fma; and the
//! conversions int↔float, float↔float and round-to-integral, `.sat` included) is evaluated through
//! the catalog (`spec::eval::semantics`) on TestFloat-style operands from `generators::float` and
//! compared with an expectation computed independently of the spec by [`softfloat_ref`] (shared
//! with the `spec_vs_softfloat` fuzz target): SoftFloat with `.ftz` and `.sat` as layers around it,
//! bf16 computed exactly and rounded by its own rounding function, which the self-checks below
//! compare with SoftFloat on f16/f32 first. The verdict rules are that module's.
//!
//! Runs: the default tests check every form on 100,000 operand sets (hard-case cross product
//! first, then random; every input where the source has 16 bits or fewer). The long run,
//! `cargo test --release -p ptxconf-generators --test softfloat -- --ignored --nocapture`, checks
//! `PTXCONF_SOFTFLOAT_N` sets per form (default 100,000,000) on all cores, optionally only forms
//! whose name contains `PTXCONF_SOFTFLOAT_FILTER`, with seeds varied by `PTXCONF_SOFTFLOAT_SEED`.
//! Forms the spec has no semantics for are skipped with a message, or fail the run when
//! `PTXCONF_SOFTFLOAT_REQUIRE=1`.

mod softfloat_ref;

use generators::float::{float_cases, int_cases, IntType, Layout};
use softfloat_ref::*;
use softfloat_wrapper::{Float, RoundingMode, F32};
use spec::catalog::{catalog, Form};
use spec::eval::SemFn;
use spec::float::Fmt;
use spec::value::{Accept, Args, Input, Outcome, Outcomes};
use std::sync::atomic::{AtomicUsize, Ordering as AtOrd};
use std::sync::Mutex;
use std::time::Instant;

/// Operand sets per form in the default test run.
const QUICK_N: u64 = 100_000;
/// Mismatches printed per form.
const SHOW: usize = 5;

// ---------------------------------------------------------------------------------------------
// Running checks.

fn seed_of(name: &str) -> u64 {
    // FNV-1a: a stable per-form seed, so every form sees its own sequence.
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in name.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    h ^ env_u64("PTXCONF_SOFTFLOAT_SEED").unwrap_or(0)
}

fn env_u64(var: &str) -> Option<u64> {
    let s = std::env::var(var).ok()?;
    let s = s.replace('_', "");
    Some(s.parse().unwrap_or_else(|_| panic!("{var}={s}: not a number")))
}

/// The operand sets of a check: every input for a source of at most 16 bits, else `n` sets.
fn operand_sets(c: &Check, n: u64) -> Box<dyn Iterator<Item = [u64; 3]>> {
    let seed = seed_of(&c.name);
    match (c.srcs.len(), c.srcs[0]) {
        (1, t) if t.width() <= 16 => Box::new((0..1u64 << t.width()).map(|x| [x, 0, 0])),
        (1, Ty::I(t)) => Box::new(int_cases(t, seed, n).map(|x| [x, 0, 0])),
        (k, Ty::F(fp)) => Box::new(float_cases(fp.format(), k, seed, n)),
        _ => unreachable!(),
    }
}

#[derive(Default)]
struct Stats {
    count: u64,
    mismatches: u64,
    shown: Vec<String>,
    secs: f64,
    /// The form has no semantics in the spec (nothing was checked).
    missing: bool,
}

fn run_check(c: &Check, n: u64) -> Stats {
    let cat = catalog();
    let found = cat
        .lookup(&c.name)
        .unwrap_or_else(|e| panic!("harness bug: `{}` is not a catalog form: {e}", c.name));
    assert_eq!(found.forms.len(), 1, "`{}`: several forms", c.name);
    let form = &cat.forms[found.forms[0]];
    assert_eq!(form.inputs.len(), c.srcs.len(), "`{}`: operand count", c.name);
    match spec::eval::semantics(form) {
        Some(sem) => run_with(c, form, sem, n),
        None => Stats {
            missing: true,
            ..Stats::default()
        },
    }
}

/// Checks `sem` as the semantics of `form` against `c`'s reference on `n` operand sets.
fn run_with(c: &Check, form: &Form, sem: SemFn, n: u64) -> Stats {
    let mut st = Stats::default();
    let t0 = Instant::now();
    let mut ins = vec![Input::bits(0); c.srcs.len()];
    for ops in operand_sets(c, n) {
        let ops = &ops[..c.srcs.len()];
        for (i, &x) in ops.iter().enumerate() {
            ins[i] = Input::bits(x as u128);
        }
        let want = c.reference.answer(ops);
        st.count += 1;
        let res = sem(form, &Args { ins: &ins, dsel: None });
        if let Some(why) = judge(c, &res, |i, _| ops[i], &[want]) {
            st.mismatches += 1;
            if st.shown.len() < SHOW {
                let operands: Vec<String> = c
                    .srcs
                    .iter()
                    .zip(ops)
                    .map(|(t, &x)| hex(t.width(), x as u128))
                    .collect();
                st.shown.push(format!(
                    "{} {}: {why}; {}; reference {}",
                    c.name,
                    operands.join(" "),
                    describe(c, &res),
                    hex(c.dst.width(), want as u128)
                ));
            }
        }
    }
    st.secs = t0.elapsed().as_secs_f64();
    st
}

/// Runs a group of checks; fails with the first mismatches of every failing form.
fn run_group(group: &str, checks: Vec<Check>, n: u64) {
    let t0 = Instant::now();
    let (mut failed, mut missing, mut total) = (Vec::new(), Vec::new(), 0u64);
    let mut checked = 0;
    for c in &checks {
        let st = run_check(c, n);
        if st.missing {
            missing.push(c.name.clone());
            continue;
        }
        checked += 1;
        total += st.count;
        if st.mismatches > 0 {
            failed.push(format!(
                "{}: {} of {} operand sets disagree with the reference:\n    {}",
                c.name,
                st.mismatches,
                st.count,
                st.shown.join("\n    ")
            ));
        }
    }
    eprintln!(
        "{group}: {checked} of {} forms checked on {total} operand sets in {:.1}s",
        checks.len(),
        t0.elapsed().as_secs_f64()
    );
    if !missing.is_empty() {
        eprintln!(
            "{group}: SKIPPED {} forms without semantics in the spec: {}",
            missing.len(),
            missing.join(" ")
        );
        if std::env::var_os("PTXCONF_SOFTFLOAT_REQUIRE").is_some_and(|v| v == "1") {
            failed.push(format!(
                "{} forms have no semantics (PTXCONF_SOFTFLOAT_REQUIRE=1)",
                missing.len()
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{group}: {} forms fail:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// The groups.

/// f16 (`.rn` only, §9.7.4, with and without `.ftz` and `.sat`) or bf16 (`.rn` only) add, sub,
/// mul, fma.
fn half_group(fp: Fp) -> Vec<Check> {
    let mods: &[bool] = if fp == Fp::F16 { &[false, true] } else { &[false] };
    let mut v = Vec::new();
    for &(opcode, op) in &OPS[..4] {
        for &ftz in mods {
            for &sat in mods {
                v.push(Check::arith(opcode, op, fp, Rnd::N, ftz, sat, 1));
            }
        }
    }
    v
}

/// Float→float conversions from `srcs`: the narrowings from them, the widenings of them.
fn convert_from(srcs: &[Fp]) -> Vec<Check> {
    convert_checks(|s, _| srcs.contains(&s))
}

fn all_groups() -> Vec<(&'static str, Vec<Check>)> {
    vec![
        ("arith_f32", arith_checks(&[Fp::F32], &OPS[..5])),
        ("arith_f64", arith_checks(&[Fp::F64], &OPS[..5])),
        ("div_sqrt_rcp_f32", arith_checks(&[Fp::F32], &OPS[5..])),
        ("div_sqrt_rcp_f64", arith_checks(&[Fp::F64], &OPS[5..])),
        ("arith_f16", half_group(Fp::F16)),
        ("arith_bf16", half_group(Fp::Bf16)),
        (
            "cvt_int_to_float",
            int_to_float_checks(&[Fp::F16, Fp::F32, Fp::F64, Fp::Bf16]),
        ),
        ("cvt_float_to_int", float_to_int_checks(&[Fp::F32, Fp::F64])),
        ("cvt_float_to_float", {
            let mut v = convert_from(&[Fp::F32, Fp::F64]);
            v.extend(integral_checks(&[Fp::F32, Fp::F64]));
            v
        }),
        ("exhaustive_f16", {
            let mut v = float_to_int_checks(&[Fp::F16]);
            v.extend(integral_checks(&[Fp::F16]));
            v.extend(convert_from(&[Fp::F16]));
            v
        }),
        ("exhaustive_bf16", {
            let mut v = float_to_int_checks(&[Fp::Bf16]);
            v.extend(integral_checks(&[Fp::Bf16]));
            v.extend(convert_from(&[Fp::Bf16]));
            v
        }),
    ]
}

fn group(name: &str) -> Vec<Check> {
    all_groups()
        .into_iter()
        .find(|(g, _)| *g == name)
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("no group {name}"))
}

macro_rules! group_tests {
    ($($name:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            run_group(stringify!($name), group(stringify!($name)), QUICK_N);
        }
    )*};
}

group_tests!(
    arith_f32,
    arith_f64,
    div_sqrt_rcp_f32,
    div_sqrt_rcp_f64,
    arith_f16,
    arith_bf16,
    cvt_int_to_float,
    cvt_float_to_int,
    cvt_float_to_float,
    exhaustive_f16,
    exhaustive_bf16,
);

/// Every form name is a catalog form with the operand count the harness assumes.
#[test]
fn forms_are_in_the_catalog() {
    let cat = catalog();
    let mut n = 0;
    for (_, checks) in all_groups() {
        for c in checks {
            let found = cat.lookup(&c.name).unwrap_or_else(|e| panic!("`{}`: {e}", c.name));
            let form = &cat.forms[found.forms[0]];
            assert_eq!(form.inputs.len(), c.srcs.len(), "{}", c.name);
            for (o, t) in form.inputs.iter().zip(&c.srcs).chain(form.outputs.iter().zip([&c.dst])) {
                assert_eq!(o.ty.bits(), t.width(), "{}: operand {}", c.name, o.name);
            }
            n += 1;
        }
    }
    eprintln!("{n} forms cross-checked against SoftFloat");
}

/// The long run: `PTXCONF_SOFTFLOAT_N` operand sets per form on all cores.
#[test]
#[ignore = "long: cargo test --release -p ptxconf-generators --test softfloat -- --ignored --nocapture"]
fn long_run() {
    let n = env_u64("PTXCONF_SOFTFLOAT_N").unwrap_or(100_000_000);
    let filter = std::env::var("PTXCONF_SOFTFLOAT_FILTER").unwrap_or_default();
    let checks: Vec<Check> = all_groups()
        .into_iter()
        .flat_map(|(_, v)| v)
        .filter(|c| c.name.contains(&filter))
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(checks.len().max(1));
    println!(
        "{} forms, {n} operand sets each (fewer for exhaustive forms), {threads} threads",
        checks.len()
    );
    println!(
        "{:<36} {:>12} {:>10} {:>9} {:>12}",
        "form", "count", "mismatch", "seconds", "ops/s"
    );
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, AtOrd::Relaxed);
                let Some(c) = checks.get(i) else { break };
                let st = run_check(c, n);
                if st.missing {
                    println!("{:<36} no semantics in the spec: skipped", c.name);
                    continue;
                }
                println!(
                    "{:<36} {:>12} {:>10} {:>9.1} {:>12.0}",
                    c.name,
                    st.count,
                    st.mismatches,
                    st.secs,
                    st.count as f64 / st.secs.max(1e-9)
                );
                for m in &st.shown {
                    println!("    {m}");
                }
                if st.mismatches > 0 {
                    failures.lock().unwrap().push(c.name.clone());
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "forms with mismatches: {}", failures.join(" "));
}

// ---------------------------------------------------------------------------------------------
// Self-checks of the harness: SoftFloat against the host FPU, the rounding function against
// SoftFloat, the exact bf16 path (run on f16) against SoftFloat, float→int against Rust's `as`.

fn same_or_both_nan(f: &Fmt, a: u64, b: u64) -> bool {
    a == b || (f.is_nan(a.into()) && f.is_nan(b.into()))
}

#[test]
fn selfcheck_softfloat_matches_host_fpu() {
    // Rust's f32/f64 arithmetic is IEEE round-to-nearest-even; mul_add is a correctly rounded fma.
    for op in [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Sqrt, Op::Fma] {
        for fp in [Fp::F32, Fp::F64] {
            let f = fp.format();
            for x in float_cases(f, op.arity(), seed_of(&format!("{op:?}{fp:?}")), 200_000) {
                let sf = sf_arith(op, fp, Rnd::N, &x);
                let host = if fp == Fp::F32 {
                    let v = |i: usize| f32::from_bits(x[i] as u32);
                    match op {
                        Op::Add => v(0) + v(1),
                        Op::Sub => v(0) - v(1),
                        Op::Mul => v(0) * v(1),
                        Op::Div => v(0) / v(1),
                        Op::Sqrt => v(0).sqrt(),
                        _ => v(0).mul_add(v(1), v(2)),
                    }
                    .to_bits() as u64
                } else {
                    let v = |i: usize| f64::from_bits(x[i]);
                    match op {
                        Op::Add => v(0) + v(1),
                        Op::Sub => v(0) - v(1),
                        Op::Mul => v(0) * v(1),
                        Op::Div => v(0) / v(1),
                        Op::Sqrt => v(0).sqrt(),
                        _ => v(0).mul_add(v(1), v(2)),
                    }
                    .to_bits()
                };
                assert!(
                    same_or_both_nan(f, sf, host),
                    "{op:?} {fp:?} {x:x?}: SoftFloat {sf:#x} host {host:#x}"
                );
            }
        }
    }
}

#[test]
fn selfcheck_round_to_matches_softfloat() {
    // f64 → f32 / f16 and f32 → f16 through the f64 value, every mode.
    for r in RNDS {
        for (src, dst) in [(Fp::F64, Fp::F32), (Fp::F64, Fp::F16), (Fp::F32, Fp::F16)] {
            let (sf, df) = (src.format(), dst.format());
            for [x, _, _] in float_cases(sf, 1, 11 + r as u64, 200_000) {
                if sf.is_nan(x.into()) {
                    continue;
                }
                let v = exact_f64(src, x);
                let mine = if v.is_infinite() {
                    df.infinity(v < 0.0)
                } else {
                    round_f64(df, v, 0.0, r)
                };
                let theirs = sf_convert(src, dst, x, r);
                assert_eq!(mine, theirs, "{src:?}→{dst:?} {r:?} {x:#x}");
            }
        }
        // Integers, every width, to f16 / f32 / f64.
        for t in INTS {
            for x in int_cases(t, 5, 100_000) {
                let v = t.value(x);
                for fp in [Fp::F16, Fp::F32, Fp::F64] {
                    let mine = round_to(fp.format(), v < 0, v.unsigned_abs(), 0, r);
                    assert_eq!(mine, sf_from_int(fp, v, r), "{t:?} {v} → {fp:?} {r:?}");
                }
            }
        }
    }
}

#[test]
fn selfcheck_exact_arith_matches_softfloat_on_f16() {
    // The bf16 reference is format-generic: run on f16, every mode, it must be SoftFloat.
    let f = Fp::F16.format();
    for op in [Op::Add, Op::Sub, Op::Mul, Op::Fma] {
        for r in RNDS {
            for x in float_cases(f, op.arity(), 21 + r as u64, 100_000) {
                let mine = exact_arith(Fp::F16, op, &x, r);
                let theirs = sf_arith(op, Fp::F16, r, &x);
                assert!(
                    same_or_both_nan(f, mine, theirs),
                    "{op:?} {r:?} {x:x?}: mine {mine:#x} SoftFloat {theirs:#x}"
                );
            }
        }
    }
}

#[test]
fn selfcheck_float_to_int_matches_rust_casts() {
    // Rust's float→int `as` truncates and saturates: PTX's `.rzi` on numbers (Rust maps NaN to
    // 0, PTX ISA 9.0 not always: NaN is checked below).
    macro_rules! go {
        ($fp:expr, $F:ty, $to_f:expr, $($I:ty),*) => {
            for [x, _, _] in float_cases($fp.format(), 1, 3, 200_000) {
                let v: $F = $to_f(x);
                if v.is_nan() {
                    continue;
                }
                $(
                    let t = IntType::new(<$I>::BITS, <$I>::MIN != 0);
                    let want = t.encode((v as $I) as i128);
                    assert_eq!(float_to_int($fp, x, t, Rnd::Z), want, "{:?} {x:#x} → {t:?}", $fp);
                )*
            }
        };
    }
    go!(
        Fp::F32,
        f32,
        |x: u64| f32::from_bits(x as u32),
        u8,
        u16,
        u32,
        u64,
        i8,
        i16,
        i32,
        i64
    );
    go!(Fp::F64, f64, f64::from_bits, u8, u16, u32, u64, i8, i16, i32, i64);
}

#[test]
fn selfcheck_reference_spot_values() {
    // A few hand-computed expectations, so the references are anchored outside SoftFloat too.
    let bf = Fp::Bf16;
    // 1 + 2^-8 is halfway between 1 and 1 + 2^-7 in bf16: ties to even, 1.
    assert_eq!(exact_arith(bf, Op::Add, &[0x3f80, 0x3b80, 0], Rnd::N), 0x3f80);
    // 1 + 3·2^-8 ties up to 1 + 2^-6.
    assert_eq!(exact_arith(bf, Op::Add, &[0x3f81, 0x3b80, 0], Rnd::N), 0x3f82);
    // fma(2^-8, 1, 1) is the same tie.
    assert_eq!(exact_arith(bf, Op::Fma, &[0x3b80, 0x3f80, 0x3f80], Rnd::N), 0x3f80);
    assert_eq!(
        exact_arith(bf, Op::Mul, &[0x7f7f, 0x4000, 0], Rnd::N),
        0x7f80,
        "overflow to inf"
    );
    assert_eq!(
        exact_arith(bf, Op::Mul, &[0x0001, 0x3f00, 0], Rnd::N),
        0x0000,
        "half the min subnormal: tie to 0"
    );
    assert_eq!(
        exact_arith(bf, Op::Mul, &[0x0001, 0x3f40, 0], Rnd::N),
        0x0001,
        "0.75 min subnormal: up"
    );
    assert_eq!(
        exact_arith(bf, Op::Sub, &[0x3f80, 0x3f80, 0], Rnd::M),
        0x8000,
        "x - x = -0 rounding down"
    );
    assert!(bf
        .format()
        .is_nan(exact_arith(bf, Op::Fma, &[0x7f80, 0, 0x3f80], Rnd::N).into()));
    // TwoSum keeps a far-away addend's sign: 1 + 2^-100 rounds up under .rp.
    assert_eq!(round_f64(bf.format(), 1.0, 2f64.powi(-100), Rnd::P), 0x3f81);
    assert_eq!(round_f64(bf.format(), 1.0, -(2f64.powi(-100)), Rnd::Z), 0x3f7f);
    // Integers to bf16: 257 is a tie (even: 256), 259 rounds up to 260.
    assert_eq!(int_to_float(IntType::new(32, true), 257, bf, Rnd::N), 0x4380);
    assert_eq!(int_to_float(IntType::new(32, true), 259, bf, Rnd::N), 0x4382);
    assert_eq!(int_to_float(IntType::new(64, false), u64::MAX, bf, Rnd::Z), 0x5f7f);
    // Float→int saturation and NaN.
    let t = IntType::new(32, true);
    assert_eq!(float_to_int(Fp::F32, 0x7fc0_0000, t, Rnd::N), 0);
    // NaN into 64 bits, or from f64: the top bit (PTX ISA 9.0; the H200's 0x8000000000000000
    // for `cvt.rni.ftz.sat.u64.f32` of 0x7fc00000, 0x80 for `cvt.rni.sat.u8.f64`).
    assert_eq!(
        float_to_int(Fp::F32, 0x7fc0_0000, IntType::new(64, false), Rnd::N),
        1 << 63
    );
    assert_eq!(
        float_to_int(Fp::F64, 0x7ff8 << 48, IntType::new(8, false), Rnd::N),
        0x80
    );
    assert_eq!(float_to_int(Fp::F32, 0xff80_0000, t, Rnd::N), 0x8000_0000);
    assert_eq!(float_to_int(Fp::F64, 2.5f64.to_bits(), t, Rnd::N), 2);
    assert_eq!(
        float_to_int(Fp::F64, (-2.5f64).to_bits(), t, Rnd::M),
        (-3i32) as u32 as u64
    );
    assert_eq!(
        float_to_int(Fp::F32, 1, t, Rnd::P),
        1,
        "a positive subnormal rounds up to 1"
    );
    assert_eq!(
        float_to_int(Fp::Bf16, 0x3fc0, IntType::new(8, false), Rnd::N),
        2,
        "1.5 ties to 2"
    );
}

/// The harness itself, on stand-in semantics: a correct one passes, wrong ones are caught with a
/// readable report.
#[test]
fn selfcheck_harness_catches_wrong_semantics() {
    fn f32_bits(a: &Args, i: usize) -> f32 {
        f32::from_bits(a.get(i) as u32)
    }
    /// add.rz.f32 done right (SoftFloat), NaN results as "any".
    fn add_rz(_: &Form, a: &Args) -> Outcomes {
        let r = F32::from_bits(a.get(0) as u32).add(F32::from_bits(a.get(1) as u32), RoundingMode::TowardZero);
        let bits = r.to_bits() as u128;
        let accept = if r.is_nan() { Accept::Any } else { Accept::Exact };
        Ok(vec![Outcome { model: bits, accept }])
    }
    /// add.rz.f32 rounded to nearest instead.
    fn add_rn(_: &Form, a: &Args) -> Outcomes {
        let r = f32_bits(a, 0) + f32_bits(a, 1);
        Ok(vec![Outcome {
            model: r.to_bits() as u128,
            accept: if r.is_nan() { Accept::Any } else { Accept::Exact },
        }])
    }
    /// add.rn.f64 that returns the host's default NaN instead of propagating payloads.
    fn add_f64_default_nan(_: &Form, a: &Args) -> Outcomes {
        let r = f64::from_bits(a.get(0) as u64) + f64::from_bits(a.get(1) as u64);
        let r = if r.is_nan() { f64::NAN } else { r };
        Ok(vec![Outcome::exact(r.to_bits() as u128)])
    }
    let cat = catalog();
    let form = |name: &str| &cat.forms[cat.lookup(name).unwrap().forms[0]];
    let rz = Check::arith("add", Op::Add, Fp::F32, Rnd::Z, false, false, 1);
    let st = run_with(&rz, form("add.rz.f32"), add_rz, 20_000);
    assert_eq!((st.count, st.mismatches), (20_000, 0), "{:?}", st.shown);
    let st = run_with(&rz, form("add.rz.f32"), add_rn, 20_000);
    assert!(st.mismatches > 1000 && st.shown.len() == SHOW, "{}", st.mismatches);
    assert!(
        st.shown[0].starts_with("add.rz.f32 0x") && st.shown[0].contains("model differs"),
        "{}",
        st.shown[0]
    );
    let rn64 = Check::arith("add", Op::Add, Fp::F64, Rnd::N, false, false, 1);
    let st = run_with(&rn64, form("add.rn.f64"), add_f64_default_nan, 20_000);
    assert!(st.mismatches > 0, "default NaN for NaN inputs must be caught");
    assert!(
        st.shown.iter().all(|m| m.contains("quieted input NaN")),
        "{:?}",
        st.shown
    );
}
