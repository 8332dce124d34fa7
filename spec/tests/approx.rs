//! §9.7.3/§9.7.4 approximate instructions: every row of the manual's special-value tables, the
//! error bounds checked just inside and just outside their edges (candidates built by the test
//! from its own allowance and the format's grid), model values against the host (`as f32`
//! casts, std's f64 functions, a test-side round-to-nearest for the 16-bit and 1.11.20 grids),
//! exhaustive runs of the half-precision tanh/ex2, and a walk over every form of the family.

mod common;
use spec::approx::{self, F64_HI};
use spec::catalog::{catalog, Class, Form};
use spec::eval::eval;
use spec::float::format::{Fmt, BF16, F16, F32, F64};
use spec::value::{Accept, Args, Bound, ErrBound, Input, Outcome};

// ---------------------------------------------------------------------------------------------
// Helpers

/// The scalar form named `name`.
fn form(name: &str) -> &'static Form {
    let cat = catalog();
    let ids = cat.by_name(name);
    assert_eq!(ids.len(), 1, "`{name}` names {} forms", ids.len());
    &cat.forms[ids[0]]
}

/// Evaluates `name` through the catalog dispatch, and checks it agrees with this module's own
/// adapter (the family's dispatch tries `fp` and `half` first).
fn run(name: &str, ins: &[u128]) -> Outcome {
    let f = form(name);
    let ins: Vec<Input> = ins.iter().map(|&b| Input::bits(b)).collect();
    let args = Args { ins: &ins, dsel: None };
    let own = approx::semantics(f).unwrap_or_else(|| panic!("{name}: no approx semantics"))(f, &args).unwrap();
    let out = eval(f, &args).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(out, own, "{name}: the dispatch reaches other semantics");
    assert_eq!(out.len(), 1, "{name}");
    out.into_iter().next().unwrap()
}

fn bound(o: &Outcome) -> Bound {
    match &o.accept {
        Accept::Bound(b) => *b,
        a => panic!("expected a bound, got {a:?}"),
    }
}

const NAN: Option<u128> = None;

/// Checks table rows `(input, Some(result))` exactly and `(input, None)` as "NaN" (any NaN of
/// `fmt`, the canonical one as model).
fn table(name: &str, fmt: &Fmt, rows: &[(u128, Option<u128>)]) {
    for &(a, want) in rows {
        let o = run(name, &[a]);
        match want {
            Some(d) => assert_eq!(o, Outcome::exact(d), "{name} {a:#x}"),
            None => {
                assert_eq!(o, Outcome::any_nan(fmt.format), "{name} {a:#x}");
                assert!(o.accepts(fmt.quiet(fmt.inf(true).unwrap()) | 1), "{name}: any NaN");
            }
        }
    }
}

fn f32b(x: f32) -> u128 {
    x.to_bits() as u128
}
fn f64b(x: f64) -> u128 {
    x.to_bits() as u128
}
fn f32v(b: u128) -> f64 {
    f32::from_bits(b as u32) as f64
}

const P0: u128 = 0;
const N0: u128 = 0x8000_0000;
const PINF: u128 = 0x7f80_0000;
const NINF: u128 = 0xff80_0000;
const ONE: u128 = 0x3f80_0000;
const PSUB: u128 = 0x0000_0001;
const NSUB: u128 = 0x807f_ffff;
/// NaNs of f32: quiet, signalling, negative with payload.
const F32_NANS: [u128; 3] = [0x7fc0_0000, 0x7f80_0001, 0xffff_ffff];

/// The next f32 encoding toward +∞ / −∞ (by value, across zero).
fn up(b: u128) -> u128 {
    f32b(f32::from_bits(b as u32).next_up())
}
fn down(b: u128) -> u128 {
    f32b(f32::from_bits(b as u32).next_down())
}

/// ⌊log2 |x|⌋ from the f64 encoding (normal x).
fn ilog2(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// `n` f32 ulps at `x`, computed here: 2^(max(⌊log2|x|⌋, -126) - 23).
fn f32_ulps(n: f64, x: f64) -> f64 {
    n * 2f64.powi(ilog2(x).max(-126) - 23)
}

/// The f32 values nearest to `reference ± allow` from inside are accepted by `o`, the next ones
/// outward rejected (away from zero-crossings and overflow).
fn edges_f32(o: &Outcome, reference: f64, allow: f64) {
    let hi_t = reference + allow;
    let mut hi = f32b(hi_t as f32);
    if f32v(hi) > hi_t {
        hi = down(hi);
    }
    let lo_t = reference - allow;
    let mut lo = f32b(lo_t as f32);
    if f32v(lo) < lo_t {
        lo = up(lo);
    }
    assert!(o.accepts(hi), "{reference:e} ± {allow:e}: {hi:#x} is inside");
    assert!(
        !o.accepts(up(hi)),
        "{reference:e} ± {allow:e}: {:#x} is outside",
        up(hi)
    );
    assert!(o.accepts(lo), "{reference:e} ± {allow:e}: {lo:#x} is inside");
    assert!(
        !o.accepts(down(lo)),
        "{reference:e} ± {allow:e}: {:#x} is outside",
        down(lo)
    );
}

/// The test's own round-to-nearest-even of `x` to `man` mantissa bits with exponents in
/// [emin, emax] (subnormals below emin, ±Inf at overflow).
fn rn(x: f64, man: i32, emin: i32, emax: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    // Scaled in two steps so that neither factor leaves f64's normal range.
    let e = ilog2(x).max(emin);
    if e > emax {
        return f64::INFINITY.copysign(x);
    }
    let r = (x * pow2(-e) * pow2(man)).round_ties_even() * pow2(-man) * pow2(e);
    if r.abs() >= 2f64.powi(emax + 1) {
        return f64::INFINITY.copysign(x);
    }
    r
}

/// 2^e for a normal exponent, from its encoding.
fn pow2(e: i32) -> f64 {
    assert!((-1022..=1023).contains(&e));
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// A deterministic generator (splitmix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        common::splitmix64(&mut self.0)
    }
    /// An f32 with magnitude in [lo, hi) (log-uniform), random sign if `signed`.
    fn f32_in(&mut self, lo: f32, hi: f32, signed: bool) -> u128 {
        let (a, b) = (lo.to_bits(), hi.to_bits());
        let m = a + (self.next() % (b - a) as u64) as u32;
        let s = if signed && self.next() & 1 == 1 { 0x8000_0000 } else { 0 };
        (m | s) as u128
    }
}

/// Asserts `|got - want| ≤ 2^-50 |want|`: a reference computed by `libm` against the host's.
fn close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 2f64.powi(-50) * want.abs(),
        "{what}: reference {got:e}, host {want:e}"
    );
}

// ---------------------------------------------------------------------------------------------
// Special-value tables

#[test]
fn div_special_values_l8075_l8079() {
    for m in ["approx", "full"] {
        for ftz in ["", ".ftz"] {
            let name = format!("div.{m}{ftz}.f32");
            let d = |a: u128, b: u128| run(&name, &[a, b]);
            // Division by zero: infinity "with same sign as a" (L8079); for b = −0 the formula's
            // sign (a × (1/b)) is the model and a's sign is accepted too.
            assert_eq!(d(ONE, P0), Outcome::exact(PINF), "{name}");
            assert_eq!(d(f32b(-3.0), P0), Outcome::exact(NINF), "{name}");
            let o = d(ONE, N0);
            assert_eq!((o.model, &o.accept), (NINF, &Accept::OneOf(vec![PINF])), "{name}");
            assert!(!o.accepts(0x7fc0_0000));
            assert_eq!(d(PINF, P0), Outcome::exact(PINF), "{name}");
            // Subnormals are flushed with or without .ftz (L8079): b = subnormal divides by zero,
            // a = subnormal is a zero.
            assert_eq!(d(ONE, PSUB), Outcome::exact(PINF), "{name}");
            assert_eq!(d(f32b(-1.0), 0x0000_0100), Outcome::exact(NINF), "{name}");
            assert_eq!(d(PSUB, ONE), Outcome::exact(P0), "{name}");
            assert_eq!(d(NSUB, ONE), Outcome::exact(N0), "{name}");
            assert_eq!(d(PSUB, f32b(-2.0)), Outcome::exact(N0), "{name}");
            // 0/0, Inf/Inf, NaN: NaN.
            for (a, b) in [(P0, P0), (N0, PSUB), (PINF, NINF), (NINF, NINF)] {
                assert_eq!(
                    d(a, b),
                    Outcome::any_nan(spec::types::FloatFormat::F32),
                    "{name} {a:#x}/{b:#x}"
                );
            }
            for n in F32_NANS {
                assert!(F32.is_nan(d(n, ONE).model) && F32.is_nan(d(ONE, n).model), "{name}");
                assert_eq!(d(n, P0).accept, Accept::Nan(spec::types::FloatFormat::F32));
            }
            // Inf/b, a/Inf, 0/b.
            assert_eq!(d(NINF, f32b(2.0)), Outcome::exact(NINF), "{name}");
            assert_eq!(d(f32b(5.0), NINF), Outcome::exact(N0), "{name}");
            assert_eq!(d(N0, f32b(-7.0)), Outcome::exact(P0), "{name}");
            // Subnormal results are flushed: 2^-126 / 2 = 2^-127 → model +0, accepted via ftz.
            let o = d(0x0080_0000, f32b(2.0));
            assert_eq!(o.model, P0, "{name}");
            assert!(bound(&o).ftz && o.accepts(0x0040_0000) && !o.accepts(N0));
        }
    }
    // Only div.approx has the large-|b| rule (L8075): 2^126 < |b| < 2^128 gives NaN for an
    // infinite a and 0 otherwise (the zero of a × (1/b)); |b| = 2^126 is still in range.
    for ftz in ["", ".ftz"] {
        let name = format!("div.approx{ftz}.f32");
        let d = |a: u128, b: u128| run(&name, &[a, b]);
        let big = 0x7e80_0001; // 2^126 (1 + 2^-23)
        for b in [big, 0x7f00_0000, 0x7f7f_ffff] {
            assert_eq!(d(PINF, b), Outcome::any_nan(spec::types::FloatFormat::F32), "{b:#x}");
            assert_eq!(
                d(NINF, b | N0),
                Outcome::any_nan(spec::types::FloatFormat::F32),
                "{b:#x}"
            );
            assert_eq!(d(ONE, b), Outcome::exact(P0));
            assert_eq!(d(f32b(3e38), b | N0), Outcome::exact(N0), "not a/b ≈ 1 but 0");
            assert_eq!(d(P0, b), Outcome::exact(P0));
        }
        assert_eq!(d(PINF, 0x7e80_0000), Outcome::exact(PINF));
        let o = d(f32b(3.0), 0x7e80_0000);
        assert_eq!(o.model, f32b(3.0 * 2f32.powi(-126)));
        assert_eq!(bound(&o).err, ErrBound::Ulp(2));
    }
    // div.full covers the full range (L8077): the same operands are ordinary quotients.
    assert_eq!(run("div.full.f32", &[PINF, 0x7f00_0000]), Outcome::exact(PINF));
    let o = run("div.full.f32", &[f32b(3e38), 0x7f00_0000]);
    assert_eq!(
        (o.model, bound(&o).err),
        (f32b(3e38 / 2f32.powi(127)), ErrBound::Ulp(2))
    );
}

#[test]
fn rcp_table_l8447() {
    for name in ["rcp.approx.f32", "rcp.approx.ftz.f32"] {
        let mut rows = vec![(NINF, Some(N0)), (N0, Some(NINF)), (P0, Some(PINF)), (PINF, Some(P0))];
        rows.extend(F32_NANS.map(|n| (n, NAN)));
        table(name, &F32, &rows);
    }
    // .ftz flushes subnormal inputs (L8497): ±subnormal is ±0 → ±Inf.
    table("rcp.approx.ftz.f32", &F32, &[(PSUB, Some(PINF)), (NSUB, Some(NINF))]);
    // Without .ftz a subnormal is a number (L8495): 1/2^-127 = 2^127 exactly; 1/2^-149
    // overflows (model +Inf, the only member: 2^149 is far from the overflow threshold).
    let o = run("rcp.approx.f32", &[0x0040_0000]);
    assert_eq!((o.model, bound(&o).reference), (0x7f00_0000, 2f64.powi(127)));
    let o = run("rcp.approx.f32", &[PSUB]);
    assert_eq!(o.model, PINF);
    assert!(o.accepts(PINF) && !o.accepts(0x7f7f_ffff));
    // Results below 2^-126: kept without .ftz, flushed with it.
    let o = run("rcp.approx.f32", &[f32b(2f32.powi(127))]);
    assert_eq!(o.model, 0x0040_0000);
    assert!(!o.accepts(P0));
    let o = run("rcp.approx.ftz.f32", &[f32b(-2f32.powi(127))]);
    assert_eq!(o.model, N0);
    assert!(o.accepts(N0) && o.accepts(0x8040_0000) && !o.accepts(P0));
}

#[test]
fn rcp_approx_ftz_f64_table_l8561() {
    const CANON: u128 = 0x7fff_ffff_0000_0000;
    let rows = [
        (0xfff0_0000_0000_0000, Some(0x8000_0000_0000_0000)),
        (0x800f_ffff_0000_0000, Some(0xfff0_0000_0000_0000)),
        (0x8000_0001_0000_0000, Some(0xfff0_0000_0000_0000)),
        (0x8000_0000_0000_0000, Some(0xfff0_0000_0000_0000)),
        (0, Some(0x7ff0_0000_0000_0000)),
        (0x0000_0001_0000_0000, Some(0x7ff0_0000_0000_0000)),
        (0x7ff0_0000_0000_0000, Some(0)),
        // NaN → the canonical NaN (L8593), whatever the payload and sign.
        (0x7ff8_0000_0000_0000, Some(CANON)),
        (0x7ff0_0001_0000_0000, Some(CANON)),
        (0xffff_ffff_ffff_ffff, Some(CANON)),
        // Only a[63:32] counts: a low-word-only payload is +Inf in 1.11.20, an f64 subnormal
        // with a zero upper word is +0.0.
        (0x7ff0_0000_0000_0001, Some(0)),
        (0x0000_0000_ffff_ffff, Some(0x7ff0_0000_0000_0000)),
    ];
    table("rcp.approx.ftz.f64", &F64, &rows);
}

#[test]
fn sqrt_table_l8637() {
    for name in ["sqrt.approx.f32", "sqrt.approx.ftz.f32"] {
        let mut rows = vec![
            (NINF, NAN),
            (f32b(-1.0), NAN),
            (0xff7f_ffff, NAN),
            (0x8080_0000, NAN),
            (N0, Some(N0)),
            (P0, Some(P0)),
            (PINF, Some(PINF)),
        ];
        rows.extend(F32_NANS.map(|n| (n, NAN)));
        table(name, &F32, &rows);
    }
    table("sqrt.approx.ftz.f32", &F32, &[(NSUB, Some(N0)), (PSUB, Some(P0))]);
    // Without .ftz a negative subnormal is a negative number (NaN), a positive one has a root.
    table("sqrt.approx.f32", &F32, &[(NSUB, NAN), (0x8000_0001, NAN)]);
    let o = run("sqrt.approx.f32", &[0x0000_0004]); // sqrt(2^-147) = 2^-73.5
    assert_eq!(o.model, f32b((2f64.powf(-73.5)) as f32));
}

#[test]
fn rsqrt_tables_l8746_l8835() {
    for name in ["rsqrt.approx.f32", "rsqrt.approx.ftz.f32"] {
        let mut rows = vec![
            (NINF, NAN),
            (f32b(-4.0), NAN),
            (0x8080_0000, NAN),
            (N0, Some(NINF)),
            (P0, Some(PINF)),
            (PINF, Some(P0)),
        ];
        rows.extend(F32_NANS.map(|n| (n, NAN)));
        table(name, &F32, &rows);
    }
    table("rsqrt.approx.ftz.f32", &F32, &[(NSUB, Some(NINF)), (PSUB, Some(PINF))]);
    table("rsqrt.approx.f32", &F32, &[(NSUB, NAN)]);
    let o = run("rsqrt.approx.f32", &[0x0000_0001]); // 1/sqrt(2^-149) = 2^74.5
    assert_eq!(o.model, f32b(2f64.powf(74.5) as f32));

    // rsqrt.approx.f64: the same table, subnormals supported (L8786), payloads kept (L7141).
    let rows = [
        (f64b(f64::NEG_INFINITY), NAN),
        (f64b(-2.0), NAN),
        (0x8000_0000_0000_0001, NAN),
        (f64b(-0.0), Some(f64b(f64::NEG_INFINITY))),
        (0, Some(f64b(f64::INFINITY))),
        (f64b(f64::INFINITY), Some(0)),
    ];
    table("rsqrt.approx.f64", &F64, &rows);
    // The payload, quieted, is the model; its sign is not specified (IEEE 754-2008 §6.3).
    for (a, q) in [
        (0x7ff0_0000_0000_0001u128, 0x7ff8_0000_0000_0001u128),
        (0xfff8_0000_dead_beef, 0xfff8_0000_dead_beef),
    ] {
        let o = run("rsqrt.approx.f64", &[a]);
        assert_eq!(o.model, q);
        assert_eq!(o.accept, Accept::OneOf(vec![q ^ (1 << 63)]));
    }
    let o = run("rsqrt.approx.f64", &[1]); // 1/sqrt(2^-1074) = 2^537
    assert_eq!(o.model, f64b(2f64.powi(537)));

    // rsqrt.approx.ftz.f64 (L8835-8867); −normal and −Inf give the canonical NaN (our reading).
    const CANON: u128 = 0x7fff_ffff_0000_0000;
    let rows = [
        (0xfff0_0000_0000_0000, Some(CANON)),
        (0xbff0_0000_0000_0000, Some(CANON)),
        (0x800f_ffff_ffff_ffff, Some(0xfff0_0000_0000_0000)),
        (0x8000_0000_0000_0000, Some(0xfff0_0000_0000_0000)),
        (0, Some(0x7ff0_0000_0000_0000)),
        (0x0000_0001_0000_0000, Some(0x7ff0_0000_0000_0000)),
        (0x7ff0_0000_0000_0000, Some(0)),
        (0x7ff8_0000_0000_0000, Some(CANON)),
        (0xfff0_0000_8000_0000 | 1 << 32, Some(CANON)),
        (0x7ff0_0000_0000_0001, Some(0)),
    ];
    table("rsqrt.approx.ftz.f64", &F64, &rows);
}

#[test]
fn sin_cos_tables_l8905_l8995() {
    for ftz in ["", ".ftz"] {
        let name = format!("sin.approx{ftz}.f32");
        let mut rows = vec![(NINF, NAN), (N0, Some(N0)), (P0, Some(P0)), (PINF, NAN)];
        rows.extend(F32_NANS.map(|n| (n, NAN)));
        table(&name, &F32, &rows);
        let name = format!("cos.approx{ftz}.f32");
        let mut rows = vec![(NINF, NAN), (N0, Some(ONE)), (P0, Some(ONE)), (PINF, NAN)];
        rows.extend(F32_NANS.map(|n| (n, NAN)));
        table(&name, &F32, &rows);
    }
    table("sin.approx.ftz.f32", &F32, &[(NSUB, Some(N0)), (PSUB, Some(P0))]);
    table("cos.approx.ftz.f32", &F32, &[(NSUB, Some(ONE)), (PSUB, Some(ONE))]);
    // Without .ftz a subnormal is a number: sin x = x, cos x = 1 within the bound.
    let o = run("sin.approx.f32", &[NSUB]);
    assert_eq!((o.model, bound(&o).err), (NSUB, ErrBound::Abs { log2: -20.5 }));
    assert_eq!(run("cos.approx.f32", &[PSUB]).model, ONE);
}

#[test]
fn lg2_ex2_tables_l9085_l9165() {
    for ftz in ["", ".ftz"] {
        let name = format!("lg2.approx{ftz}.f32");
        let mut rows = vec![
            (NINF, NAN),
            (f32b(-1.0), NAN),
            (0x8080_0000, NAN),
            (N0, Some(NINF)),
            (P0, Some(NINF)),
            (PINF, Some(PINF)),
        ];
        rows.extend(F32_NANS.map(|n| (n, NAN)));
        table(&name, &F32, &rows);
        let name = format!("ex2.approx{ftz}.f32");
        let mut rows = vec![(NINF, Some(P0)), (N0, Some(ONE)), (P0, Some(ONE)), (PINF, Some(PINF))];
        rows.extend(F32_NANS.map(|n| (n, NAN)));
        table(&name, &F32, &rows);
    }
    table("lg2.approx.ftz.f32", &F32, &[(NSUB, Some(NINF)), (PSUB, Some(NINF))]);
    table("lg2.approx.f32", &F32, &[(NSUB, NAN)]);
    assert_eq!(run("lg2.approx.f32", &[PSUB]).model, f32b(-149.0));
    table("ex2.approx.ftz.f32", &F32, &[(NSUB, Some(ONE)), (PSUB, Some(ONE))]);
    assert_eq!(run("ex2.approx.f32", &[NSUB]).model, ONE);
    // Powers of two are exact references: 2^-149 is the smallest subnormal (kept without .ftz,
    // flushed with it), 2^127 the largest power, 2^128 overflows.
    let o = run("ex2.approx.f32", &[f32b(-149.0)]);
    assert_eq!((o.model, bound(&o).reference), (1, 2f64.powi(-149)));
    let o = run("ex2.approx.ftz.f32", &[f32b(-149.0)]);
    assert_eq!(o.model, P0);
    // (−0.0 is within 2 ulp of 2^-149 by value; three subnormal steps are not.)
    assert!(o.accepts(P0) && o.accepts(1) && o.accepts(N0) && !o.accepts(0x8000_0002) && !o.accepts(4));
    assert_eq!(run("ex2.approx.f32", &[f32b(127.0)]).model, 0x7f00_0000);
    let o = run("ex2.approx.f32", &[f32b(128.0)]);
    assert_eq!(o.model, PINF);
    // 2^128 against MAX_NORM = 2^128 − 2^104: within 2 ulp (2^105) of the real value.
    assert!(o.accepts(0x7f7f_ffff) && !o.accepts(0x7f7f_fffd));
    assert_eq!(run("ex2.approx.f32", &[f32b(1e30)]), Outcome::exact(PINF));
    assert_eq!(run("ex2.approx.f32", &[f32b(-1e30)]).model, P0);
}

#[test]
fn tanh_tables_l9245_l10091() {
    let mut rows = vec![
        (NINF, Some(0xbf80_0000)),
        (N0, Some(N0)),
        (P0, Some(P0)),
        (PINF, Some(ONE)),
    ];
    rows.extend(F32_NANS.map(|n| (n, NAN)));
    table("tanh.approx.f32", &F32, &rows);
    // Subnormals are supported (L9269): tanh x = x.
    let o = run("tanh.approx.f32", &[NSUB]);
    assert_eq!((o.model, bound(&o).ftz), (NSUB, false));
    assert!(!o.accepts(N0));

    let f16 = [
        (0xfc00, Some(0xbc00)),
        (0x8000, Some(0x8000)),
        (0, Some(0)),
        (0x7c00, Some(0x3c00)),
    ];
    let bf16 = [
        (0xff80, Some(0xbf80)),
        (0x8000, Some(0x8000)),
        (0, Some(0)),
        (0x7f80, Some(0x3f80)),
    ];
    table("tanh.approx.f16", &F16, &f16);
    table("tanh.approx.f16", &F16, &[(0x7e00, NAN), (0x7c01, NAN), (0xfe00, NAN)]);
    table("tanh.approx.bf16", &BF16, &bf16);
    table(
        "tanh.approx.bf16",
        &BF16,
        &[(0x7fc0, NAN), (0x7f81, NAN), (0xffff, NAN)],
    );
    // Packed: lane 0 is a[0:15] (L10079).
    assert_eq!(run("tanh.approx.f16x2", &[0xfc00_7c00]), Outcome::exact(0xbc00_3c00));
    assert_eq!(run("tanh.approx.bf16x2", &[0x7f80_8000]), Outcome::exact(0x3f80_8000));
    let o = run("tanh.approx.f16x2", &[0x7e00_0000]);
    assert_eq!(o.model, 0x7fff_0000);
    assert!(o.accepts(0xfc01_0000) && !o.accepts(0x7c00_0000) && !o.accepts(0x7e00_8000));
    // Subnormal half inputs: tanh x = x.
    assert_eq!(run("tanh.approx.f16", &[0x8001]).model, 0x8001);
    assert_eq!(run("tanh.approx.bf16", &[0x0001]).model, 0x0001);
}

#[test]
fn half_ex2_tables_l10177_l10211() {
    let bf16 = [
        (0xff80, Some(0)),
        (0x8001, Some(0x3f80)),
        (0x807f, Some(0x3f80)),
        (0x8000, Some(0x3f80)),
        (0, Some(0x3f80)),
        (0x0001, Some(0x3f80)),
        (0x7f80, Some(0x7f80)),
        (0x7fc0, NAN),
        (0xff81, NAN),
    ];
    table("ex2.approx.ftz.bf16", &BF16, &bf16);
    let f16 = [
        (0xfc00, Some(0)),
        (0x8000, Some(0x3c00)),
        (0, Some(0x3c00)),
        (0x7c00, Some(0x7c00)),
        (0x7e00, NAN),
        (0xfc01, NAN),
    ];
    table("ex2.approx.f16", &F16, &f16);
    // f16 takes subnormal inputs (L10175): 2^x rounds to 1.0, inside a bound.
    let o = run("ex2.approx.f16", &[0x0001]);
    assert_eq!(o.model, 0x3c00);
    assert!(matches!(o.accept, Accept::Bound(_)));
    assert_eq!(
        run("ex2.approx.ftz.bf16x2", &[0x0001_ff80]),
        Outcome::exact(0x3f80_0000)
    );
    assert_eq!(run("ex2.approx.f16x2", &[0x7c00_0000]), Outcome::exact(0x7c00_3c00));
    // f16 results below 2^-14 stay subnormal (no .ftz): 2^-24 is the smallest.
    assert_eq!(run("ex2.approx.f16", &[0xce00]).model, 0x0001); // -24.0
                                                                // bf16 results below 2^-126 are flushed: 2^-127 → +0.0.
    let o = run("ex2.approx.ftz.bf16", &[0xc2fe]); // -127.0
    assert_eq!(o.model, 0);
    assert!(o.accepts(0) && o.accepts(0x0040) && !o.accepts(0x8000));
}

// ---------------------------------------------------------------------------------------------
// Bounds: just inside and just outside

#[test]
fn div_bounds_two_ulp() {
    // a/b = 1/(1 − 2^-24) = 1 + 2^-24 + 2^-48 + …: the ulp is 2^-23 above 1.0 and 2^-24 below;
    // 2 ulp of the reference's binade (2^-22) reaches 1 + 2^-22 (0x3f800002) above and
    // 1 − 3·2^-24 + 2^-48 below, which 0x3f7ffffe passes and 0x3f7ffffd misses.
    for name in [
        "div.approx.f32",
        "div.full.f32",
        "div.approx.ftz.f32",
        "div.full.ftz.f32",
    ] {
        let o = run(name, &[ONE, 0x3f7f_ffff]);
        assert_eq!(o.model, 0x3f80_0001, "{name}");
        assert!(o.accepts(0x3f80_0002) && !o.accepts(0x3f80_0003), "{name}");
        assert!(o.accepts(0x3f7f_fffe) && !o.accepts(0x3f7f_fffd), "{name}");
        assert!(!o.accepts(0x7fc0_0000), "{name}");
    }
    // Random quotients: model = host quotient rounded by `as f32`; edges at 2 ulp.
    let mut rng = Rng(1);
    for _ in 0..2000 {
        let a = rng.f32_in(1e-30, 1e30, true);
        let b = rng.f32_in(2f32.powi(-126), 2f32.powi(126), true);
        let q = f32v(a) / f32v(b);
        for name in ["div.approx.f32", "div.full.ftz.f32"] {
            let o = run(name, &[a, b]);
            let bd = bound(&o);
            assert_eq!(bd.reference, q, "{name}");
            assert_eq!(o.model, F32.ftz(f32b(q as f32)), "{name} {a:#x} {b:#x}");
            if q.abs() > 1e-37 && q.abs() < 1e38 {
                edges_f32(&o, q, f32_ulps(2.0, q));
            }
        }
    }
}

#[test]
fn rcp_bounds_one_ulp() {
    // 1/3: the two neighbours of 1/3 are within 2^-25, the next ones not.
    for name in ["rcp.approx.f32", "rcp.approx.ftz.f32"] {
        let o = run(name, &[f32b(3.0)]);
        assert_eq!(o.model, 0x3eaa_aaab);
        assert!(o.accepts(0x3eaa_aaaa) && !o.accepts(0x3eaa_aaac) && !o.accepts(0x3eaa_aaa9));
    }
    // 1/(1 + 2^-23) = 1 − 2^-23 + 2^-46 − … lies in [0.5, 1), where the ulp is 2^-24: one ulp
    // reaches 1 − 2^-24 + 2^-46 above (0x3f7fffff in, 1.0 out) and 1 − 3·2^-24 + 2^-46 below
    // (0x3f7ffffd, exactly 1 − 3·2^-24, out).
    let o = run("rcp.approx.f32", &[0x3f80_0001]);
    assert_eq!(o.model, 0x3f7f_fffe);
    assert!(o.accepts(0x3f7f_ffff) && !o.accepts(ONE) && !o.accepts(0x3f7f_fffd));
    let mut rng = Rng(2);
    for _ in 0..3000 {
        let a = rng.f32_in(1e-37, 1e37, true);
        let r = 1.0 / f32v(a);
        let o = run("rcp.approx.f32", &[a]);
        assert_eq!((bound(&o).reference, o.model), (r, f32b(r as f32)));
        edges_f32(&o, r, f32_ulps(1.0, r));
    }
}

#[test]
fn sqrt_rsqrt_relative_bounds() {
    // sqrt 2 = 1.41421356…: 2^-23 relative is 1.414 ulp: 0x3fb504f2..f4 in, f1 and f5 out.
    let o = run("sqrt.approx.f32", &[f32b(2.0)]);
    assert_eq!(o.model, 0x3fb5_04f3);
    assert!(o.accepts(0x3fb5_04f2) && o.accepts(0x3fb5_04f4));
    assert!(!o.accepts(0x3fb5_04f1) && !o.accepts(0x3fb5_04f5));
    // 1/sqrt 2 = 0.7071…: 2^-22.9 relative is 1.516 ulp of 2^-24: f2..f4 in, f1 and f5 out.
    let o = run("rsqrt.approx.ftz.f32", &[f32b(2.0)]);
    assert_eq!(o.model, 0x3f35_04f3);
    assert!(o.accepts(0x3f35_04f2) && o.accepts(0x3f35_04f4));
    assert!(!o.accepts(0x3f35_04f1) && !o.accepts(0x3f35_04f5));
    let mut rng = Rng(3);
    for _ in 0..3000 {
        let a = rng.f32_in(1e-45, 3e38, false);
        let x = f32v(a);
        let s = run("sqrt.approx.f32", &[a]);
        close(bound(&s).reference, x.sqrt(), "sqrt");
        assert_eq!(s.model, f32b(bound(&s).reference as f32));
        edges_f32(&s, bound(&s).reference, 2f64.powi(-23) * x.sqrt());
        let r = run("rsqrt.approx.f32", &[a]);
        let want = 1.0 / x.sqrt();
        close(bound(&r).reference, want, "rsqrt");
        assert_eq!(r.model, f32b(bound(&r).reference as f32));
        edges_f32(&r, bound(&r).reference, 2f64.powf(-22.9) * want);
    }
}

#[test]
fn sin_cos_bounds_by_range() {
    // 2π lies between the f32 values 0x40c90fda (inside) and 0x40c90fdb (outside).
    let inside = run("sin.approx.f32", &[0x40c9_0fda]);
    let outside = run("sin.approx.f32", &[0x40c9_0fdb]);
    assert_eq!(bound(&inside).err, ErrBound::Abs { log2: -20.5 });
    assert_eq!(bound(&outside).err, ErrBound::Abs { log2: -14.7 });
    // 2^-16 off: too far for 2^-20.5, near enough for 2^-14.7.
    let off = |o: &Outcome| f32b((bound(o).reference + 2f64.powi(-16)) as f32);
    assert!(!inside.accepts(off(&inside)) && outside.accepts(off(&outside)));
    assert_eq!(
        bound(&run("cos.approx.f32", &[0xc0c9_0fda])).err,
        ErrBound::Abs { log2: -20.5 }
    );
    assert_eq!(
        bound(&run("cos.approx.ftz.f32", &[0xc0c9_0fdb])).err,
        ErrBound::Abs { log2: -14.7 }
    );
    // 100π lies between 0x439d1462 (inside) and 0x439d1463 (outside: any value in [-1, 1]).
    let inside = run("sin.approx.f32", &[0x439d_1462]);
    assert_eq!(bound(&inside).err, ErrBound::Abs { log2: -14.7 });
    assert!(inside.accepts(f32b((bound(&inside).reference + 2f64.powi(-15)) as f32)));
    assert!(!inside.accepts(f32b(0.5)));
    for name in ["sin.approx.f32", "cos.approx.ftz.f32"] {
        for a in [0x439d_1463, 0xc39d_1463, f32b(1e30), f32b(-3e38), 0x7f7f_ffff] {
            let o = run(name, &[a]);
            let x = f32v(a);
            let host = if name.starts_with("sin") { x.sin() } else { x.cos() };
            assert_eq!(
                o.model,
                f32b(host as f32),
                "{name} {a:#x}: the model is still the value"
            );
            for ok in [ONE, 0xbf80_0000, P0, N0, f32b(0.5), f32b(-0.9)] {
                assert!(o.accepts(ok), "{name} {a:#x} {ok:#x}");
            }
            for bad in [up(ONE), down(0xbf80_0000), PINF, 0x7fc0_0000, f32b(2.0)] {
                assert!(!o.accepts(bad), "{name} {a:#x} {bad:#x}");
            }
        }
    }
    // Random arguments in each range: model = host sin/cos `as f32`, edges at the range's bound.
    let mut rng = Rng(4);
    // [1e-30, 2π) and (2π, 100π): the f32 bounds 0x40c90fdb and 0x439d1463 (exclusive above).
    let (two_pi, hundred_pi) = (f32::from_bits(0x40c9_0fdb), f32::from_bits(0x439d_1463));
    for (lo, hi, log2) in [(1e-30f32, two_pi, -20.5), (two_pi, hundred_pi, -14.7)] {
        for _ in 0..1500 {
            let a = rng.f32_in(lo, hi, true);
            let x = f32v(a);
            for (name, host) in [("sin.approx.f32", x.sin()), ("cos.approx.f32", x.cos())] {
                let o = run(name, &[a]);
                let b = bound(&o);
                assert_eq!(b.err, ErrBound::Abs { log2 }, "{name} {x}");
                assert!((b.reference - host).abs() <= 2f64.powi(-52), "{name} {x}");
                assert_eq!(o.model, f32b(b.reference as f32), "{name} {x}");
                if b.reference.abs() > 1e-3 && b.reference.abs() < 0.999 {
                    edges_f32(&o, b.reference, 2f64.powf(log2));
                }
            }
        }
    }
}

#[test]
fn lg2_bounds_switch_at_half_and_two() {
    let err = |a: u128| bound(&run("lg2.approx.f32", &[a])).err;
    let abs = ErrBound::Abs { log2: -22.0 };
    let rel = ErrBound::Rel { log2: -22.0 };
    // (0.5, 2) is open.
    assert_eq!(err(0x3f00_0000), rel);
    assert_eq!(err(0x3f00_0001), abs);
    assert_eq!(err(0x3fff_ffff), abs);
    assert_eq!(err(0x4000_0000), rel);
    // lg2 2 = 1, rel 2^-22: two ulps above (2^-23 each), four below (2^-24 each).
    let o = run("lg2.approx.f32", &[f32b(2.0)]);
    assert!(o.accepts(0x3f80_0002) && !o.accepts(0x3f80_0003));
    assert!(o.accepts(0x3f7f_fffc) && !o.accepts(0x3f7f_fffb));
    let o = run("lg2.approx.ftz.f32", &[f32b(0.5)]);
    assert!(o.accepts(0xbf80_0002) && !o.accepts(0xbf80_0003));
    assert!(o.accepts(0xbf7f_fffc) && !o.accepts(0xbf7f_fffb));
    // Inside, the absolute bound admits 0.0 for lg2(1 + 2^-23) ≈ 1.7e-7 (a relative one would
    // not); outside, lg2(2^-100) = -100 admits ±3 ulps (2^-17 each) of 100·2^-22 = 3.125 ulps.
    let o = run("lg2.approx.f32", &[0x3f80_0001]);
    // ref ± 2^-22 = [-6.64e-8, 4.104e-7].
    assert!(o.accepts(P0) && o.accepts(N0) && o.accepts(f32b(-6e-8)) && o.accepts(f32b(4.1e-7)));
    assert!(!o.accepts(f32b(-7e-8)) && !o.accepts(f32b(4.2e-7)));
    let o = run("lg2.approx.f32", &[f32b(2f32.powi(-100))]);
    assert_eq!(o.model, f32b(-100.0));
    assert!(o.accepts(f32b(-100.0) + 3) && !o.accepts(f32b(-100.0) + 4));
    assert!(o.accepts(f32b(-100.0) - 3) && !o.accepts(f32b(-100.0) - 4));
    let mut rng = Rng(5);
    for _ in 0..3000 {
        let a = rng.f32_in(1e-45, 3e38, false);
        let x = f32v(a);
        let o = run("lg2.approx.f32", &[a]);
        let b = bound(&o);
        close(b.reference, x.log2(), "lg2");
        assert_eq!(o.model, f32b(b.reference as f32));
        let allow = if 0.5 < x && x < 2.0 {
            2f64.powi(-22)
        } else {
            2f64.powi(-22) * x.log2().abs()
        };
        if b.reference.abs() > 1e-3 {
            edges_f32(&o, b.reference, allow);
        }
    }
}

#[test]
fn ex2_bound_two_ulp_of_the_correctly_rounded_result() {
    // 2^1 = 2: 2 ulps of 2^-22 above; the reference's ulp below too (four 2^-23 steps).
    let o = run("ex2.approx.f32", &[f32b(1.0)]);
    assert_eq!(o.model, 0x4000_0000);
    assert!(o.accepts(0x4000_0002) && !o.accepts(0x4000_0003));
    assert!(o.accepts(0x3fff_fffc) && !o.accepts(0x3fff_fffb));
    // The reference is the correctly rounded result (L9189), so exactly ±2 grid steps around it
    // are in even where the real value lies off-centre: 2^0.3 = 1.23114441334…
    let o = run("ex2.approx.f32", &[f32b(0.3)]);
    let r = f32b(0.3f64.exp2() as f32);
    assert_eq!(bound(&o).reference, f32v(r));
    assert!(o.accepts(r + 2) && o.accepts(r - 2) && !o.accepts(r + 3) && !o.accepts(r - 3));
    let mut rng = Rng(6);
    for _ in 0..3000 {
        let a = rng.f32_in(1e-10, 125.0, true);
        let x = f32v(a);
        let o = run("ex2.approx.ftz.f32", &[a]);
        let cr = x.exp2() as f32;
        assert_eq!(bound(&o).reference, cr as f64, "{x}");
        assert_eq!(o.model, f32b(cr));
        edges_f32(&o, cr as f64, f32_ulps(2.0, cr as f64));
    }
}

#[test]
fn tanh_f32_bound_rel_2_pow_minus_11() {
    let mut rng = Rng(7);
    for _ in 0..3000 {
        let a = rng.f32_in(1e-40, 20.0, true);
        let x = f32v(a);
        let o = run("tanh.approx.f32", &[a]);
        let b = bound(&o);
        close(b.reference, x.tanh(), "tanh");
        assert_eq!(o.model, f32b(b.reference as f32));
        if x.abs() > 1e-37 {
            edges_f32(&o, b.reference, 2f64.powi(-11) * x.tanh().abs());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The 1.11.20 forms and rsqrt.approx.f64

/// The 1.11.20 value of an f64 with its low word zero.
fn hi(b: u64) -> u128 {
    (b as u128) & 0xffff_ffff_0000_0000
}

/// On the 1.11.20 grid: the values nearest `reference ± allow` (positive) from inside are
/// accepted, the next ones out rejected, and any nonzero low word is rejected.
fn edges_hi(o: &Outcome, reference: f64, allow: f64) {
    let step = |b: u128, k: i128| (b as i128 + (k << 32)) as u128;
    let hi_t = reference + allow;
    let mut h = hi(hi_t.to_bits());
    while f64::from_bits(step(h, 1) as u64) <= hi_t {
        h = step(h, 1);
    }
    let lo_t = reference - allow;
    let mut l = hi(lo_t.to_bits());
    while f64::from_bits(l as u64) < lo_t {
        l = step(l, 1);
    }
    assert!(o.accepts(h) && !o.accepts(step(h, 1)), "{reference:e}: {h:#x}");
    assert!(o.accepts(l) && !o.accepts(step(l, -1)), "{reference:e}: {l:#x}");
    assert!(!o.accepts(o.model | 1) && !o.accepts(o.model | 0x8000_0000));
}

#[test]
fn rcp_rsqrt_approx_ftz_f64_high_word() {
    // d[31:0] = 0 (L8555); 1/3 = 0x3fd5555555555555 rounds to 20 mantissa bits: 0x3fd55555.
    let o = run("rcp.approx.ftz.f64", &[f64b(3.0)]);
    assert_eq!(o.model, 0x3fd5_5555_0000_0000);
    assert!(
        !o.accepts(0x3fd5_5555_5555_5555),
        "the exact f64 1/3 has a nonzero low word"
    );
    // Only a[63:32] is read: the low word of 1.0 + 2^-53·… changes nothing.
    let o = run("rcp.approx.ftz.f64", &[0x3ff0_0000_ffff_ffff]);
    assert_eq!((o.model, bound(&o).reference), (0x3ff0_0000_0000_0000, 1.0));
    // Results below 2^-1022 are flushed: 1/2^1023 = 2^-1023.
    let o = run("rcp.approx.ftz.f64", &[f64b(2f64.powi(1023))]);
    assert_eq!(o.model, 0);
    assert!(o.accepts(0) && !o.accepts(0x8000_0000_0000_0000));
    let o = run("rsqrt.approx.ftz.f64", &[f64b(4.0)]);
    assert_eq!(o.model, f64b(0.5));
    let mut rng = Rng(8);
    for _ in 0..3000 {
        // A positive normal: biased exponent 1..=0x7fe, any mantissa.
        let bits = (1 + rng.next() % 0x7fe) << 52 | rng.next() & 0x000f_ffff_ffff_ffff;
        let tmp = f64::from_bits(bits & 0xffff_ffff_0000_0000);
        let o = run("rcp.approx.ftz.f64", &[bits as u128]);
        let neg = run("rcp.approx.ftz.f64", &[bits as u128 | 1 << 63]);
        assert_eq!(neg.model, o.model | 1 << 63, "{bits:#x}: the sign carries through");
        assert_eq!(bound(&neg).reference, -bound(&o).reference);
        let b = bound(&o);
        assert_eq!(b.reference, 1.0 / tmp);
        // The model is 1/tmp rounded to nearest on the 20-bit mantissa (flushed below 2^-1022).
        let want = rn(1.0 / tmp, 20, -1022, 1023);
        let want = if want.abs() < 2f64.powi(-1022) {
            0.0f64.copysign(want)
        } else {
            want
        };
        assert_eq!(o.model, f64b(want), "{bits:#x}");
        assert_eq!(b.err, ErrBound::Rel { log2: -19.0 });
        if (1.0 / tmp).abs() > 1e-300 {
            edges_hi(&o, b.reference, 2f64.powi(-19) * b.reference.abs());
        }
        let o = run("rsqrt.approx.ftz.f64", &[bits as u128]);
        let r = 1.0 / tmp.sqrt();
        close(bound(&o).reference, r, "rsqrt.approx.ftz.f64");
        assert_eq!(o.model, f64b(rn(bound(&o).reference, 20, -1022, 1023)));
        edges_hi(&o, bound(&o).reference, 2f64.powi(-19) * r);
    }
}

#[test]
fn rsqrt_approx_f64_envelope() {
    let mut rng = Rng(9);
    for _ in 0..2000 {
        let bits = rng.next() & 0x7fef_ffff_ffff_ffff;
        let x = f64::from_bits(bits);
        let o = run("rsqrt.approx.f64", &[bits as u128]);
        let b = bound(&o);
        close(b.reference, 1.0 / x.sqrt(), "rsqrt.approx.f64");
        assert_eq!((o.model, b.err), (f64b(b.reference), ErrBound::Rel { log2: -40.0 }));
        // One f64 ulp inside / outside the edges of rel 2^-40 (about 2^12 ulps wide).
        let allow = 2f64.powi(-40) * b.reference;
        let (hi_e, lo_e) = ((b.reference + allow).to_bits(), (b.reference - allow).to_bits());
        assert!(o.accepts(hi_e as u128 - 1) && !o.accepts(hi_e as u128 + 1));
        assert!(o.accepts(lo_e as u128 + 1) && !o.accepts(lo_e as u128 - 1));
        // A single-precision-grade estimate (rel 2^-24) is rejected.
        assert!(!o.accepts(f64b(b.reference * (1.0 + 2f64.powi(-24)))));
    }
}

// ---------------------------------------------------------------------------------------------
// Exhaustive half precision

/// The test's decoding of an f16 encoding.
fn f16_value(b: u16) -> f64 {
    let s = if b >> 15 == 1 { -1.0 } else { 1.0 };
    let e = ((b >> 10) & 0x1f) as i32;
    let m = (b & 0x3ff) as f64;
    match e {
        0 => s * m * 2f64.powi(-24),
        31 if m == 0.0 => s * f64::INFINITY,
        31 => f64::NAN,
        _ => s * (1024.0 + m) * 2f64.powi(e - 25),
    }
}

fn bf16_value(b: u16) -> f64 {
    f32::from_bits((b as u32) << 16) as f64
}

struct Half {
    fmt: &'static Fmt,
    value: fn(u16) -> f64,
    man: i32,
    emin: i32,
    emax: i32,
}

const H16: Half = Half {
    fmt: &F16,
    value: f16_value,
    man: 10,
    emin: -14,
    emax: 15,
};
const HB16: Half = Half {
    fmt: &BF16,
    value: bf16_value,
    man: 7,
    emin: -126,
    emax: 127,
};

/// Every 16-bit input: table values as the manual's tables; otherwise the model is the test's own
/// rounding of the host's value (flushed where `ftz`), inside the bound `allow(reference)` of it,
/// and inside its own set. For every 257th input the whole set is compared with the test's
/// allowance over all 65,536 results.
fn exhaustive(name: &str, h: &Half, host: fn(f64) -> f64, ftz: bool, allow: impl Fn(f64) -> f64) {
    let f = form(name);
    let sem = approx::semantics(f).unwrap();
    let min_normal = 2f64.powi(h.emin);
    for a in 0..=u16::MAX {
        let ins = [Input::bits(a as u128)];
        let o = sem(f, &Args { ins: &ins, dsel: None }).unwrap().remove(0);
        let x = (h.value)(a);
        let x = if ftz && x.abs() < min_normal { 0.0 } else { x };
        if x.is_nan() {
            assert_eq!(o, Outcome::any_nan(h.fmt.format), "{name} {a:#x}");
            continue;
        }
        let t = host(x);
        let Accept::Bound(b) = o.accept else {
            // Table rows (±0, ±Inf) and overflow of f64: exactly the rounded host value.
            let (want, m) = (rn(t, h.man, h.emin, h.emax), (h.value)(o.model as u16));
            assert!(
                m == want && m.is_sign_negative() == want.is_sign_negative(),
                "{name} {a:#x}"
            );
            assert_eq!(o.accept, Accept::Exact, "{name} {a:#x}");
            continue;
        };
        assert!(
            (b.reference - t).abs() <= 2f64.powi(-50) * t.abs(),
            "{name} {a:#x}: reference {} host {t}",
            b.reference
        );
        let mut want = rn(t, h.man, h.emin, h.emax);
        if ftz && want.abs() < min_normal {
            want = 0.0f64.copysign(want);
        }
        let m = (h.value)(o.model as u16);
        assert!(
            m == want && m.is_sign_negative() == want.is_sign_negative(),
            "{name} {a:#x}: {m} vs {want}"
        );
        let lim = allow(t);
        if m.is_infinite() {
            assert!(
                t.abs() >= 2f64.powi(h.emax + 1) * (1.0 - 2f64.powi(-h.man - 2)),
                "{name} {a:#x}"
            );
        } else {
            assert!(
                (m - t).abs() <= lim || (ftz && m == 0.0),
                "{name} {a:#x}: {m} vs {t} ± {lim}"
            );
            assert!(b.accepts(o.model), "{name} {a:#x}: the model is outside its own bound");
        }
        if a % 257 == 0 {
            for c in 0..=u16::MAX {
                let v = (h.value)(c);
                let v = if v.is_infinite() {
                    v.signum() * 2f64.powi(h.emax + 1)
                } else {
                    v
                };
                let near = (v - t).abs() <= lim;
                let flushed =
                    ftz && v == 0.0 && v.is_sign_negative() == t.is_sign_negative() && t.abs() - lim < min_normal;
                assert_eq!(
                    o.accepts(c as u128),
                    near || flushed || c as u128 == o.model,
                    "{name} {a:#x}: {c:#x}"
                );
            }
        }
    }
}

#[test]
fn tanh_half_exhaustive() {
    exhaustive("tanh.approx.f16", &H16, f64::tanh, false, |_| 2f64.powf(-10.987));
    exhaustive("tanh.approx.bf16", &HB16, f64::tanh, false, |_| 2f64.powi(-8));
}

#[test]
fn ex2_half_exhaustive() {
    // Relative 2^-9.9 (f16) and 2^-7 (bf16); below the smallest normal one subnormal ulp.
    exhaustive("ex2.approx.f16", &H16, f64::exp2, false, |t| {
        if t < 2f64.powi(-14) {
            2f64.powi(-24)
        } else {
            2f64.powf(-9.9) * t
        }
    });
    exhaustive("ex2.approx.ftz.bf16", &HB16, f64::exp2, true, |t| {
        if t < 2f64.powi(-126) {
            2f64.powi(-133)
        } else {
            2f64.powi(-7) * t
        }
    });
}

#[test]
fn half_x2_lanes_are_independent() {
    let mut rng = Rng(10);
    for _ in 0..500 {
        let (lo, hi) = (rng.next() as u16, rng.next() as u16);
        let packed = (hi as u128) << 16 | lo as u128;
        for (x2, fmt) in [
            ("tanh.approx.f16x2", &F16),
            ("tanh.approx.bf16x2", &BF16),
            ("ex2.approx.f16x2", &F16),
            ("ex2.approx.ftz.bf16x2", &BF16),
        ] {
            let one = x2.trim_end_matches("x2");
            let (o, l, h) = (run(x2, &[packed]), run(one, &[lo as u128]), run(one, &[hi as u128]));
            assert_eq!(o.model, h.model << 16 | l.model, "{x2} {packed:#x}");
            // A candidate built from accepted lanes is accepted; one bad lane rejects the whole.
            let bad = |x: &Outcome| if fmt.is_nan(x.model) { 0 } else { fmt.canonical_nan };
            assert!(o.accepts(h.model << 16 | l.model));
            assert!(!o.accepts(bad(&h) << 16 | l.model) && !o.accepts(h.model << 16 | bad(&l)));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Coverage walk

/// Hard operands of a format: zeros, subnormals, normal limits, infinities, NaNs, 1.0 and its
/// neighbours, 2, 0.5, values at a tie of the next narrower grid.
fn hard(fmt: &Fmt) -> Vec<u128> {
    let one = fmt.pack(false, fmt.bias() as u32, 0);
    let ulp = 1u128 << fmt.pad;
    let mut v = vec![
        fmt.zero(false),
        fmt.min_normal(false) - ulp,
        ulp,
        fmt.min_normal(false),
        fmt.max_finite(false),
        fmt.inf(false).unwrap(),
        fmt.canonical_nan,
        fmt.inf(false).unwrap() | ulp,
        one,
        one + ulp,
        one - ulp,
        fmt.pack(false, fmt.bias() as u32 + 1, 0),
        fmt.pack(false, fmt.bias() as u32 - 1, 0),
        fmt.pack(false, fmt.bias() as u32, 1 << (fmt.man_bits - 1)) | (1 << (fmt.man_bits / 2)),
        fmt.pack(false, (fmt.bias() + fmt.emax() - 1) as u32, 1),
        fmt.pack(false, 3, 0),
    ];
    let neg: Vec<u128> = v.iter().map(|&x| x | fmt.zero(true)).collect();
    v.extend(neg);
    v
}

fn is_mine(f: &Form) -> bool {
    (f.section.starts_with("9.7.3.") || f.section.starts_with("9.7.4."))
        && matches!(f.class, Class::ApproxBounded | Class::ApproxUnbounded)
        && f.opcode != "mad"
}

/// The model is in its own set by the set's own rule, not only by being the model.
fn self_consistent(o: &Outcome, bits: u32, what: &str) {
    assert!(
        bits == 128 || o.model >> bits == 0,
        "{what}: {:#x} is wider than {bits}",
        o.model
    );
    match &o.accept {
        Accept::Exact | Accept::OneOf(_) => {}
        Accept::Nan(f) => assert!(Fmt::of(*f).is_nan(o.model), "{what}"),
        Accept::Bound(b) => {
            let fmt = Fmt::of(b.format);
            let overflow = fmt.inf(false).is_some_and(|i| o.model & !fmt.zero(true) == i);
            assert!(b.accepts(o.model) || overflow, "{what}: {:#x} outside {b:?}", o.model);
            assert!(b.reference.is_finite(), "{what}");
        }
        Accept::Lanes { lane_bits, lanes } => {
            for (i, l) in lanes.iter().enumerate() {
                assert_eq!(
                    l.model,
                    o.model >> (i as u32 * lane_bits) & ((1 << lane_bits) - 1),
                    "{what}"
                );
                self_consistent(l, *lane_bits, what);
            }
        }
        Accept::Any => panic!("{what}: no approximate result is unconstrained"),
    }
}

#[test]
fn coverage_walk() {
    let cat = catalog();
    let mine: Vec<&Form> = cat.forms.iter().filter(|f| is_mine(f)).collect();
    // div.{approx,full}{.ftz} 4, rcp.approx 2 + .ftz.f64 1, sqrt 2, rsqrt 2 + f64 2,
    // sin/cos/lg2/ex2 8, tanh.f32 1, half tanh 4, half ex2 4.
    assert_eq!(mine.len(), 30, "{:?}", mine.iter().map(|f| &f.name).collect::<Vec<_>>());
    for f in &cat.forms {
        assert_eq!(approx::semantics(f).is_some(), is_mine(f), "{}", f.name);
    }
    for f in mine {
        let t = f.outputs[0].ty;
        let spec::types::Kind::Float(ff) = t.kind else {
            panic!("{}", f.name)
        };
        let fmt = Fmt::of(ff);
        let mut vals = hard(fmt);
        if t.lanes == 2 {
            let base = vals.clone();
            vals = base.iter().zip(base.iter().rev()).map(|(a, b)| a << 16 | b).collect();
        }
        let sets: Vec<Vec<u128>> = if f.inputs.len() == 2 {
            vals.iter()
                .flat_map(|&a| vals.iter().map(move |&b| vec![a, b]))
                .collect()
        } else {
            vals.iter().map(|&a| vec![a]).collect()
        };
        for ins in sets {
            let out = common::eval_bits(f, &ins);
            assert_eq!(out.len(), f.outputs.len(), "{}", f.name);
            self_consistent(&out[0], t.bits(), &format!("{} {ins:x?}", f.name));
            assert!(out[0].accepts(out[0].model));
        }
    }
}

#[test]
fn nan_rules_follow_the_catalog_flags() {
    // f32 and half rows carry `nan-unspec` (any NaN); rsqrt.approx.f64 keeps payloads; the two
    // .approx.ftz.f64 rows return the canonical 0x7fffffff00000000.
    for f in catalog().forms.iter().filter(|f| is_mine(f)) {
        let t = f.inputs[0].ty;
        let spec::types::Kind::Float(ff) = t.kind else { panic!() };
        let fmt = Fmt::of(ff);
        let nan = fmt.inf(false).unwrap() | 1 << (fmt.man_bits - 1) | 5;
        let nan = if t.lanes == 2 { nan << 16 | nan } else { nan };
        let ins = vec![Input::bits(nan); f.inputs.len()];
        let o = eval(f, &Args { ins: &ins, dsel: None }).unwrap().remove(0);
        let any = |o: &Outcome| o.accept == Accept::Nan(ff);
        match (
            f.flag("nan-unspec"),
            f.has("ftz") && ff == spec::types::FloatFormat::F64,
        ) {
            (true, _) if t.lanes == 2 => match &o.accept {
                Accept::Lanes { lanes, .. } => assert!(lanes.iter().all(any), "{}", f.name),
                a => panic!("{}: {a:?}", f.name),
            },
            (true, _) => assert!(any(&o), "{}", f.name),
            (false, true) => assert_eq!(o, Outcome::exact(F64_HI.canonical_nan), "{}", f.name),
            // The payload with either sign (IEEE 754-2008 §6.3), the operand's the model.
            (false, false) => assert_eq!(
                o,
                Outcome {
                    model: nan,
                    accept: Accept::OneOf(vec![nan ^ (1 << 63)])
                },
                "{}",
                f.name
            ),
        }
    }
}
