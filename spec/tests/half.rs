//! §9.7.4 half precision, §9.7.5 mixed precision, §9.7.7 half-precision comparison.
//!
//! The expected values come from an independent reference written here: exact values as
//! `sig × 2^exp` with `u128`/`i128` arithmetic and one rounding written for this file (checked
//! against the host FPU on f32, where IEEE 754 fixes the answer), host `f64` comparisons for
//! `set`/`setp`, and sign-bit arithmetic for `neg`/`abs`/`min`/`max`. None of it goes through the
//! spec's rounding engine or rustc_apfloat.

mod common;
use common::{ev, form};
use spec::catalog::{catalog, Form};
use spec::compare::CmpOp;
use spec::eval::eval;
use spec::float::format::{Fmt, BF16, F16};
use spec::float::ops::Mods;
use spec::float::Rnd;
use spec::half::arith::{self, MinMaxMods};
use spec::half::mixed;
use spec::types::Kind;
use spec::value::{Accept, Args, Input, Outcome};
use std::cmp::Ordering;

// ---------------------------------------------------------------------------------------------
// The independent reference
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Rn,
    Rz,
    Rm,
    Rp,
}

const MODES: [(Mode, Rnd); 4] = [
    (Mode::Rn, Rnd::Rn),
    (Mode::Rz, Rnd::Rz),
    (Mode::Rm, Rnd::Rm),
    (Mode::Rp, Rnd::Rp),
];

/// An IEEE binary format by its field widths.
#[derive(Clone, Copy, Debug)]
struct Format {
    exp_bits: u32,
    man_bits: u32,
}

const H: Format = Format {
    exp_bits: 5,
    man_bits: 10,
};
const B: Format = Format {
    exp_bits: 8,
    man_bits: 7,
};
const S: Format = Format {
    exp_bits: 8,
    man_bits: 23,
};

/// `(-1)^neg × sig × 2^exp`; `sig == 0` is the zero of sign `neg`.
#[derive(Clone, Copy, Debug)]
struct Exact {
    neg: bool,
    sig: u128,
    exp: i32,
}

impl Format {
    fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }
    fn sign(self) -> u128 {
        1 << (self.exp_bits + self.man_bits)
    }
    fn top(self) -> u128 {
        (1 << self.exp_bits) - 1
    }
    fn exp_field(self, x: u128) -> u128 {
        (x >> self.man_bits) & self.top()
    }
    fn man(self, x: u128) -> u128 {
        x & ((1 << self.man_bits) - 1)
    }
    fn is_nan(self, x: u128) -> bool {
        self.exp_field(x) == self.top() && self.man(x) != 0
    }
    fn is_inf(self, x: u128) -> bool {
        self.exp_field(x) == self.top() && self.man(x) == 0
    }
    fn is_sub(self, x: u128) -> bool {
        self.exp_field(x) == 0 && self.man(x) != 0
    }
    fn neg(self, x: u128) -> bool {
        x & self.sign() != 0
    }
    fn flush(self, x: u128) -> u128 {
        if self.is_sub(x) {
            x & self.sign()
        } else {
            x
        }
    }
    fn inf(self, neg: bool) -> u128 {
        (if neg { self.sign() } else { 0 }) | self.top() << self.man_bits
    }
    fn max(self, neg: bool) -> u128 {
        self.inf(neg) - 1
    }
    /// The exact value of a finite encoding.
    fn value(self, x: u128) -> Exact {
        let (e, m) = (self.exp_field(x), self.man(x));
        let emin = 1 - self.bias();
        let (sig, exp) = if e == 0 {
            (m, emin - self.man_bits as i32)
        } else {
            (m | 1 << self.man_bits, e as i32 - self.bias() - self.man_bits as i32)
        };
        Exact {
            neg: self.neg(x),
            sig,
            exp,
        }
    }
    fn to_f64(self, x: u128) -> f64 {
        if self.is_nan(x) {
            return f64::NAN;
        }
        if self.is_inf(x) {
            return if self.neg(x) { f64::NEG_INFINITY } else { f64::INFINITY };
        }
        let v = self.value(x);
        let m = v.sig as f64 * 2f64.powi(v.exp);
        if v.neg {
            -m
        } else {
            m
        }
    }
    /// Rounds an exact value into the format: the grid step near the value is
    /// 2^(max(⌊log2 v⌋, emin) − man_bits); the discarded remainder decides by `mode`.
    fn round(self, v: Exact, mode: Mode) -> u128 {
        let s = if v.neg { self.sign() } else { 0 };
        if v.sig == 0 {
            return s;
        }
        let man = self.man_bits as i32;
        let emin = 1 - self.bias();
        let top_bit = 127 - v.sig.leading_zeros() as i32 + v.exp;
        let mut q = top_bit.max(emin) - man;
        let (mut k, rem_vs_half, inexact) = if q <= v.exp {
            (v.sig << (v.exp - q), Ordering::Less, false)
        } else {
            let sh = (q - v.exp) as u32;
            if sh >= 128 {
                // Everything is discarded, and it is below half a step (sig < 2^127).
                assert!(v.sig >> 127 == 0);
                (0, Ordering::Less, true)
            } else {
                let rem = v.sig & ((1u128 << sh) - 1);
                (v.sig >> sh, rem.cmp(&(1u128 << (sh - 1))), rem != 0)
            }
        };
        let up = match mode {
            Mode::Rn => rem_vs_half == Ordering::Greater || (rem_vs_half == Ordering::Equal && k & 1 == 1),
            Mode::Rz => false,
            Mode::Rm => v.neg && inexact,
            Mode::Rp => !v.neg && inexact,
        };
        k += up as u128;
        if k == 1 << (man + 1) {
            k >>= 1;
            q += 1;
        }
        let biased = if k >= 1 << man {
            (q + man + self.bias()) as u128
        } else {
            0
        };
        if biased >= self.top() {
            let to_inf = match mode {
                Mode::Rn => true,
                Mode::Rz => false,
                Mode::Rm => v.neg,
                Mode::Rp => !v.neg,
            };
            return if to_inf { self.inf(v.neg) } else { self.max(v.neg) };
        }
        s | biased << self.man_bits | self.man(k)
    }
}

fn bit_len(x: u128) -> u32 {
    128 - x.leading_zeros()
}

/// `x + y` exactly (operand significands of at most 24 bits). An exact zero sum is +0 except
/// under `.rm` (IEEE 754 §6.3), and −0 when both are −0. An operand more than 100 binades below
/// the other is replaced by a unit 101 binades down, with its sign: both lie far inside the gap
/// between the larger operand and its nearest rounding boundary, so they round alike.
fn add_exact(x: Exact, y: Exact, mode: Mode) -> Exact {
    assert!(bit_len(x.sig) <= 24 && bit_len(y.sig) <= 24);
    if x.sig == 0 && y.sig == 0 {
        let neg = if x.neg == y.neg { x.neg } else { mode == Mode::Rm };
        return Exact { neg, sig: 0, exp: 0 };
    }
    if x.sig == 0 {
        return y;
    }
    if y.sig == 0 {
        return x;
    }
    let (x, mut y) = if x.exp >= y.exp { (x, y) } else { (y, x) };
    if x.exp - y.exp > 100 {
        y = Exact {
            neg: y.neg,
            sig: 1,
            exp: x.exp - 101,
        };
    }
    let signed = |v: Exact, sh: i32| {
        let m = (v.sig << sh) as i128;
        if v.neg {
            -m
        } else {
            m
        }
    };
    let sum = signed(x, x.exp - y.exp) + signed(y, 0);
    if sum == 0 {
        return Exact {
            neg: mode == Mode::Rm,
            sig: 0,
            exp: 0,
        };
    }
    Exact {
        neg: sum < 0,
        sig: sum.unsigned_abs(),
        exp: y.exp,
    }
}

fn mul_exact(x: Exact, y: Exact) -> Exact {
    Exact {
        neg: x.neg ^ y.neg,
        sig: x.sig * y.sig,
        exp: x.exp + y.exp,
    }
}

fn negate(x: Exact) -> Exact {
    Exact { neg: !x.neg, ..x }
}

/// The reference result of `op` on encodings of `f`, `None` for NaN. Non-finite operands go
/// through the host's f64 arithmetic (IEEE special cases: ∞ − ∞, 0 × ∞ are NaN; the rest ∞).
fn reference(f: Format, op: &str, ins: &[u128], mode: Mode) -> Option<u128> {
    if ins.iter().any(|&x| f.is_nan(x)) {
        return None;
    }
    if ins.iter().any(|&x| f.is_inf(x)) {
        let v: Vec<f64> = ins.iter().map(|&x| f.to_f64(x)).collect();
        let r = match op {
            "add" => v[0] + v[1],
            "sub" => v[0] - v[1],
            "mul" => v[0] * v[1],
            _ => v[0].mul_add(v[1], v[2]),
        };
        return if r.is_nan() {
            None
        } else if r.is_infinite() {
            Some(f.inf(r < 0.0))
        } else {
            unreachable!("{op} {ins:x?} with an infinity is finite")
        };
    }
    let v: Vec<Exact> = ins.iter().map(|&x| f.value(x)).collect();
    let exact = match op {
        "add" => add_exact(v[0], v[1], mode),
        "sub" => add_exact(v[0], negate(v[1]), mode),
        "mul" => mul_exact(v[0], v[1]),
        _ => add_exact(mul_exact(v[0], v[1]), v[2], mode),
    };
    Some(f.round(exact, mode))
}

/// `.sat` on a reference result (L9363): NaN → +0.0, below zero → +0.0, above 1.0 → 1.0.
fn saturate(f: Format, r: Option<u128>) -> u128 {
    let one = (f.bias() as u128) << f.man_bits;
    match r {
        None => 0,
        Some(x) if f.neg(x) => 0,
        Some(x) if f.to_f64(x) > 1.0 => one,
        Some(x) => x,
    }
}

/// A deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        common::splitmix64(&mut self.0)
    }
    /// A 16-bit pattern, finite, biased toward small exponent distances half the time.
    fn half(&mut self, f: Format) -> u128 {
        loop {
            let x = self.next() as u128 & 0xffff;
            if !f.is_nan(x) && !f.is_inf(x) {
                return x;
            }
        }
    }
    fn f32(&mut self) -> u128 {
        loop {
            let x = self.next() as u128 & 0xffff_ffff;
            if !S.is_nan(x) && !S.is_inf(x) {
                return x;
            }
        }
    }
}

/// The reference is right where the host FPU is right by IEEE 754: f32 add, sub, mul in RN.
#[test]
fn the_reference_agrees_with_the_host_fpu_on_f32() {
    let mut rng = Rng(1);
    for i in 0..200_000 {
        let (a, b) = (rng.f32(), rng.f32());
        // Every fourth pair shares an exponent neighbourhood, to exercise cancellation.
        let b = if i % 4 == 0 {
            (a & 0xff80_0000) | (b & 0x807f_ffff)
        } else {
            b
        };
        let (fa, fb) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        for (op, host) in [("add", fa + fb), ("sub", fa - fb), ("mul", fa * fb)] {
            assert_eq!(
                reference(S, op, &[a, b], Mode::Rn),
                Some(host.to_bits() as u128),
                "{op} {a:#x} {b:#x}"
            );
        }
    }
    // Overflow and the zero signs.
    assert_eq!(
        reference(S, "add", &[0x7f7f_ffff, 0x7f7f_ffff], Mode::Rn),
        Some(0x7f80_0000)
    );
    assert_eq!(
        reference(S, "add", &[0x7f7f_ffff, 0x7f7f_ffff], Mode::Rz),
        Some(0x7f7f_ffff)
    );
    assert_eq!(
        reference(S, "sub", &[0x3f80_0000, 0x3f80_0000], Mode::Rm),
        Some(0x8000_0000)
    );
    assert_eq!(
        reference(S, "add", &[0x8000_0000, 0x8000_0000], Mode::Rn),
        Some(0x8000_0000)
    );
}

// ---------------------------------------------------------------------------------------------
// Helpers around the spec
// ---------------------------------------------------------------------------------------------

fn run_inputs(name: &str, ins: &[Input]) -> Vec<Outcome> {
    let f = form(name);
    let out = eval(f, &Args { ins, dsel: None }).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(out.len(), f.outputs.len(), "{name}");
    out
}

fn run(name: &str, ins: &[u128]) -> Vec<Outcome> {
    let ins: Vec<Input> = ins.iter().map(|&b| Input::bits(b)).collect();
    run_inputs(name, &ins)
}

/// The one result of `name`, which must be exact.
fn exact(name: &str, ins: &[u128]) -> u128 {
    let o = run(name, ins).remove(0);
    assert_eq!(o.accept, Accept::Exact, "{name} {ins:x?}");
    o.model
}

fn pred(b: bool, negated: bool) -> Input {
    Input {
        bits: b as u128,
        negated,
        sel: None,
    }
}

fn fmt(f: Format) -> &'static Fmt {
    if f.exp_bits == 5 {
        &F16
    } else {
        &BF16
    }
}

/// The `.ftz` outcome of a finite result: `after` is the result rounded then flushed, `rz` the
/// exact value rounded toward zero. Where the exact value lies below the smallest normal number
/// and rounds up to it, the manual does not say whether the result is subnormal (before
/// rounding: flushed, the H200's value and the model) or not (after rounding: kept, also
/// accepted); elsewhere the two readings agree and the result is exact.
fn ftz_outcome(f: Format, after: u128, rz: u128) -> Outcome {
    let min_normal = 1 << f.man_bits;
    if after & !f.sign() == min_normal && rz & !f.sign() < min_normal {
        Outcome {
            model: after & f.sign(),
            accept: Accept::OneOf(vec![after]),
        }
    } else {
        Outcome::exact(after)
    }
}

/// Checks a spec outcome against a reference result (`None`: any NaN).
fn check(o: &Outcome, want: Option<u128>, f: Format, what: &dyn Fn() -> String) {
    match want {
        Some(w) => assert_eq!(*o, Outcome::exact(w), "{}", what()),
        None => {
            assert!(f.is_nan(o.model), "{}: model {:#x} is not a NaN", what(), o.model);
            let quiet = f.inf(false) | 1 << (f.man_bits - 1);
            assert!(o.accepts(quiet) && o.accepts(quiet | f.sign()) && o.accepts(f.inf(false) | 1));
            assert!(!o.accepts(f.inf(false)) && !o.accepts(0), "{}: accepts numbers", what());
        }
    }
}

/// Operand values worth pairing with everything: zeros, subnormals, the normal boundary, ones,
/// values one ulp around 1, the largest finite, infinities.
fn hard(f: Format) -> Vec<u128> {
    let one = (f.bias() as u128) << f.man_bits;
    let min_normal = 1u128 << f.man_bits;
    let mut v = vec![
        0,
        1,
        2,
        3,
        min_normal - 1,
        min_normal,
        min_normal + 1,
        one - 1,
        one,
        one + 1,
        one + (1 << f.man_bits) / 2, // 1.5
        one + (1 << f.man_bits),     // 2.0
        f.max(false),
        f.max(false) - 1,
        f.inf(false),
        (f.bias() as u128 - 1) << f.man_bits,        // 0.5
        (f.bias() as u128 + 3) << f.man_bits | 0x15, // 8.something
    ];
    let negs: Vec<u128> = v.iter().map(|x| x | f.sign()).collect();
    v.extend(negs);
    v
}

// ---------------------------------------------------------------------------------------------
// §9.7.4 add, sub, mul, fma
// ---------------------------------------------------------------------------------------------

fn spec_binop(op: &str, fm: &Fmt, a: u128, b: u128, mods: Mods) -> Outcome {
    match op {
        "add" => arith::add(fm, a, b, mods),
        "sub" => arith::sub(fm, a, b, mods),
        _ => arith::mul(fm, a, b, mods),
    }
}

/// Every f16 `a` against a set of hard `b`s (and random ones), for add/sub/mul .rn, .ftz, .sat;
/// bf16 the same. `.ftz` flushes inputs and results (L9359): a result is flushed when its
/// rounded value is subnormal.
#[test]
fn add_sub_mul_rn_against_exact_arithmetic() {
    let mut rng = Rng(7);
    for f in [H, B] {
        let fm = fmt(f);
        let mut bs = hard(f);
        bs.extend((0..12).map(|_| rng.half(f)));
        bs.extend(if f.exp_bits == 5 {
            [0x7e00u128, 0xffff, 0x7c01]
        } else {
            [0x7fc0, 0xffff, 0x7f81]
        });
        for a in 0..=0xffffu128 {
            for &b in &bs {
                for op in ["add", "sub", "mul"] {
                    let want = reference(f, op, &[a, b], Mode::Rn);
                    let got = spec_binop(op, fm, a, b, Mods::default());
                    check(&got, want, f, &|| format!("{op} {a:#x} {b:#x}"));
                    // .ftz and .sat are f16-only (L9317-9321); a quarter of the pairs suffice.
                    if f.exp_bits != 5 || (a ^ b) % 4 != 0 {
                        continue;
                    }
                    let want = reference(f, op, &[f.flush(a), f.flush(b)], Mode::Rn).map(|r| f.flush(r));
                    let ftz = Mods {
                        ftz: true,
                        ..Mods::default()
                    };
                    check(&spec_binop(op, fm, a, b, ftz), want, f, &|| {
                        format!("{op}.ftz {a:#x} {b:#x}")
                    });
                    let sat = Mods {
                        sat: true,
                        ..Mods::default()
                    };
                    let got = spec_binop(op, fm, a, b, sat);
                    let want = saturate(f, reference(f, op, &[a, b], Mode::Rn));
                    assert_eq!(got.model, want, "{op}.sat {a:#x} {b:#x}");
                    // −0.0 is accepted besides +0.0 (the core's reading of "clamps to [0.0, 1.0]").
                    assert!(got.accept == Accept::Exact || got.model == 0, "{op}.sat {a:#x} {b:#x}");
                }
            }
        }
    }
}

/// fma .rn on random triples (exact in i128: a product of two halves has at most 22 bits), f16
/// and bf16; `.relu` clamps negatives to +0.0 and NaN to the canonical NaN (L9664); `.sat`.
#[test]
fn fma_rn_against_exact_arithmetic() {
    let mut rng = Rng(11);
    for f in [H, B] {
        let fm = fmt(f);
        let hard = hard(f);
        for i in 0..400_000 {
            let pick = |rng: &mut Rng, j: u64| {
                if (i + j).is_multiple_of(3) {
                    hard[rng.next() as usize % hard.len()]
                } else {
                    rng.half(f)
                }
            };
            let (a, b) = (pick(&mut rng, 0), pick(&mut rng, 1));
            // c near −a·b half the time: cancellation and ties.
            // c near −a·b half the time (cancellation, ties): −a·b truncated to the format and
            // perturbed in its last two bits.
            let c = match near(f, -f.to_f64(a) * f.to_f64(b)) {
                Some(h) if i % 2 == 0 => h ^ (rng.next() as u128 & 3),
                _ => pick(&mut rng, 2),
            };
            let c = if f.is_nan(c) || f.is_inf(c) { rng.half(f) } else { c };
            let want = reference(f, "fma", &[a, b, c], Mode::Rn);
            check(&arith::fma(fm, a, b, c, Mods::default()), want, f, &|| {
                format!("fma {a:#x} {b:#x} {c:#x}")
            });
            let relu = Mods {
                relu: true,
                ..Mods::default()
            };
            let got = arith::fma(fm, a, b, c, relu);
            match want {
                None => assert_eq!(got, Outcome::exact(0x7fff)),
                Some(w) if f.neg(w) => assert_eq!(got.model, 0, "fma.relu {a:#x} {b:#x} {c:#x}"),
                Some(w) => assert_eq!(got, Outcome::exact(w)),
            }
            if f.exp_bits == 5 {
                let sat = Mods {
                    sat: true,
                    ..Mods::default()
                };
                assert_eq!(arith::fma(fm, a, b, c, sat).model, saturate(f, want));
                let ftz = Mods {
                    ftz: true,
                    ..Mods::default()
                };
                let ins = [f.flush(a), f.flush(b), f.flush(c)];
                let want = reference(f, "fma", &ins, Mode::Rn).map(|r| f.flush(r));
                let got = arith::fma(fm, a, b, c, ftz);
                match (want, reference(f, "fma", &ins, Mode::Rz)) {
                    (Some(w), Some(rz)) => {
                        assert_eq!(got, ftz_outcome(f, w, rz), "fma.ftz {a:#x} {b:#x} {c:#x}")
                    }
                    _ => check(&got, want, f, &|| format!("fma.ftz {a:#x} {b:#x} {c:#x}")),
                }
            }
        }
    }
}

/// A finite normal encoding of `f` near `v` (its f32 bits truncated), for test-input
/// generation only; `None` outside the format's normal range.
fn near(f: Format, v: f64) -> Option<u128> {
    let x = (v as f32).to_bits() as u128;
    if f.exp_bits == 8 {
        let h = x >> 16;
        return (!f.is_inf(h) && !f.is_nan(h) && f.exp_field(h) != 0).then_some(h);
    }
    let e = ((x >> 23) & 0xff) as i32 - 127 + 15;
    if (1..31).contains(&e) {
        Some((x >> 16) & 0x8000 | (e as u128) << 10 | (x >> 13) & 0x3ff)
    } else {
        None
    }
}

/// Hand-derived cases: ties to even, overflow, the smallest subnormal, exact cancellation.
#[test]
fn half_arithmetic_hand_cases() {
    // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even is 1.0. 1 + 3×2^-11 goes up to 1+2^-9.
    // (2^-11 = 0x1000 in f16: exponent 4, mantissa 0.)
    assert_eq!(exact("add.rn.f16", &[0x3c00, 0x1000]), 0x3c00);
    assert_eq!(exact("add.rn.f16", &[0x3c01, 0x1000]), 0x3c02);
    // 65504 + 16 = 65520 is the overflow threshold: a tie that rounds to even, which is 2^16 → ∞.
    assert_eq!(exact("add.rn.f16", &[0x7bff, 0x4c00]), 0x7c00);
    assert_eq!(exact("add.rn.f16", &[0x7bff, 0x4bff]), 0x7bff);
    // 2^-24 × 0.5 is a tie between 0 and 2^-24: even is 0; ×0.75 rounds up.
    assert_eq!(exact("mul.rn.f16", &[0x0001, 0x3800]), 0x0000);
    assert_eq!(exact("mul.rn.f16", &[0x0001, 0x3a00]), 0x0001);
    assert_eq!(exact("mul.rn.f16", &[0x8001, 0x3800]), 0x8000);
    // x − x = +0.0 in round-to-nearest; −0 + −0 = −0.
    assert_eq!(exact("sub.rn.f16", &[0x4500, 0x4500]), 0x0000);
    assert_eq!(exact("add.rn.f16", &[0x8000, 0x8000]), 0x8000);
    // .ftz: a subnormal result is flushed; one that rounds to the smallest normal is not.
    assert_eq!(exact("sub.rn.ftz.f16", &[0x0800, 0x0600]), 0x0000); // 2^-13 − 1.5×2^-14
    assert_eq!(exact("sub.rn.f16", &[0x0800, 0x0600]), 0x0200);
    assert_eq!(exact("mul.rn.ftz.f16", &[0x0400, 0x3800]), 0x0000); // 2^-15
                                                                    // 2^-14 × (1 − 2^-11) = 1023.5 × 2^-24 rounds (to even) up to 2^-14, the smallest normal.
    assert_eq!(exact("mul.rn.f16", &[0x0400, 0x3bff]), 0x0400);
    // Under .ftz the exact value is below 2^-14 before rounding: flushed (the H200's value, the
    // model), 2^-14 read after rounding (also accepted).
    let o = run("mul.rn.ftz.f16", &[0x0400, 0x3bff]).remove(0);
    assert_eq!((o.model, o.accept), (0, Accept::OneOf(vec![0x0400])));
    // .ftz flushes the subnormal input: 2^-24 + 0 = +0, not 2^-24.
    assert_eq!(exact("add.ftz.f16", &[0x0001, 0x8000]), 0x0000);
    // .sat: NaN → +0.0 (L9363), ∞ → 1.0, −2 → +0.0.
    assert_eq!(exact("add.sat.f16", &[0x7c00, 0xfc00]), 0x0000);
    assert_eq!(exact("mul.rn.sat.f16", &[0x7c00, 0x3c00]), 0x3c00);
    assert_eq!(exact("sub.sat.f16", &[0x0000, 0x4000]), 0x0000);
    // bf16: 1 + 2^-8 is a tie (bf16 has 7 mantissa bits): to even 1.0; 1 + 2^-7 exact.
    assert_eq!(exact("add.rn.bf16", &[0x3f80, 0x3b80]), 0x3f80);
    assert_eq!(exact("add.rn.bf16", &[0x3f81, 0x3b80]), 0x3f82);
    assert_eq!(exact("add.rn.bf16", &[0x3f80, 0x3c00]), 0x3f81);
    // bf16 keeps subnormals (no .ftz): 2^-133 × 2 = 2^-132.
    assert_eq!(exact("mul.rn.bf16", &[0x0001, 0x4000]), 0x0002);
    // bf16 max × 2 overflows to +∞.
    assert_eq!(exact("mul.bf16", &[0x7f7f, 0x4000]), 0x7f80);
    // fma: one rounding. (1 + 2^-10)(1 − 2^-10) − 1 = −2^-20, exact in fma; a rounded product
    // would give 0 first.
    assert_eq!(exact("fma.rn.f16", &[0x3c01, 0x3bfe, 0xbc00]), 0x8010); // −2^-20 = −16 × 2^-24
    assert_eq!(exact("fma.rn.relu.f16", &[0x3c01, 0x3bfe, 0xbc00]), 0x0000);
    assert_eq!(exact("fma.rn.relu.bf16", &[0x7fc0, 0x3f80, 0x3f80]), 0x7fff);
    assert_eq!(exact("fma.rn.sat.f16", &[0x7e00, 0x3c00, 0x3c00]), 0x0000);
}

/// `.oob` (L9668): lanes without a NaN operand are plain fma; a lane with a NaN operand may have
/// met the OOB-NaN, whose encoding the manual does not give, so +0.0 (the model) and plain fma's
/// NaN are both accepted — and nothing else.
#[test]
fn fma_oob() {
    for t in ["f16", "bf16"] {
        let (one, two, nan) = if t == "f16" {
            (0x3c00u128, 0x4000u128, 0x7e00u128)
        } else {
            (0x3f80, 0x4000, 0x7fc0)
        };
        let three = if t == "f16" { 0x4200 } else { 0x4040 };
        // No NaN: exactly fma.
        assert_eq!(exact(&format!("fma.rn.oob.{t}"), &[one, two, one]), three);
        for pos in 0..3 {
            let mut ins = [one, two, one];
            ins[pos] = nan;
            let o = run(&format!("fma.rn.oob.{t}"), &ins).remove(0);
            assert_eq!(o.model, 0, "{t} {pos}");
            assert!(o.accepts(nan) && o.accepts(0x7fff) && o.accepts(0xffff));
            assert!(!o.accepts(three) && !o.accepts(0x8000) && !o.accepts(one));
            let o = run(&format!("fma.rn.oob.relu.{t}"), &ins).remove(0);
            assert_eq!(o.model, 0);
            assert!(o.accepts(0x7fff) && !o.accepts(nan) && !o.accepts(three));
        }
        // .relu still clamps a negative lane without NaN: 1 × 2 − 3 = −1 → +0.
        let neg_three = three | 0x8000;
        assert_eq!(exact(&format!("fma.rn.oob.relu.{t}"), &[one, two, neg_three]), 0);
        // Per lane (L9668): the NaN lane is free, the other exact.
        let o = run(
            &format!("fma.rn.oob.{t}x2"),
            &[nan << 16 | one, two << 16 | two, one << 16 | one],
        )
        .remove(0);
        assert_eq!(o.model, three);
        assert!(o.accepts(nan << 16 | three) && !o.accepts(nan << 16 | two));
    }
}

/// Lane independence: an x2 instruction is its scalar instruction on each half (L9337-9345).
#[test]
fn x2_lanes_are_independent() {
    let mut rng = Rng(3);
    let specials = [0x7e00u128, 0x0001, 0x8000, 0x7c00, 0x3c00];
    for (x2, scalar, arity) in [
        ("add.rn.f16x2", "add.rn.f16", 2),
        ("sub.ftz.sat.f16x2", "sub.ftz.sat.f16", 2),
        ("mul.rn.bf16x2", "mul.rn.bf16", 2),
        ("fma.rn.relu.bf16x2", "fma.rn.relu.bf16", 3),
        ("fma.rn.ftz.sat.f16x2", "fma.rn.ftz.sat.f16", 3),
        ("min.NaN.xorsign.abs.f16x2", "min.NaN.xorsign.abs.f16", 2),
        ("max.bf16x2", "max.bf16", 2),
        ("neg.ftz.f16x2", "neg.ftz.f16", 1),
        ("abs.bf16x2", "abs.bf16", 1),
    ] {
        for i in 0..3000 {
            let lane = |rng: &mut Rng| {
                if i % 5 == 0 {
                    specials[rng.next() as usize % specials.len()]
                } else {
                    rng.next() as u128 & 0xffff
                }
            };
            let ins: Vec<(u128, u128)> = (0..arity).map(|_| (lane(&mut rng), lane(&mut rng))).collect();
            let packed: Vec<u128> = ins.iter().map(|&(lo, hi)| hi << 16 | lo).collect();
            let lo = run(scalar, &ins.iter().map(|p| p.0).collect::<Vec<_>>()).remove(0);
            let hi = run(scalar, &ins.iter().map(|p| p.1).collect::<Vec<_>>()).remove(0);
            let o = run(x2, &packed).remove(0);
            assert_eq!(o, Outcome::pack(16, vec![lo, hi]), "{x2} {packed:x?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// §9.7.4 neg, abs
// ---------------------------------------------------------------------------------------------

/// Every f16 and bf16 encoding, scalar and in both lanes of x2, with and without `.ftz`.
#[test]
fn neg_abs_exhaustive() {
    for (t, f) in [("f16", H), ("bf16", B)] {
        let ftzs: &[bool] = if t == "f16" { &[false, true] } else { &[false] };
        for &ftz in ftzs {
            let z = if ftz { ".ftz" } else { "" };
            let (fneg, fabs) = (form(&format!("neg{z}.{t}")), form(&format!("abs{z}.{t}")));
            let (fneg2, fabs2) = (form(&format!("neg{z}.{t}x2")), form(&format!("abs{z}.{t}x2")));
            let input = |x: u128| if ftz { f.flush(x) } else { x };
            let want_neg = |x: u128| (!f.is_nan(x)).then(|| input(x) ^ 0x8000);
            let want_abs = |x: u128| (!f.is_nan(x)).then(|| input(x) & 0x7fff);
            for x in 0..=0xffffu128 {
                let one = |fm: &Form, ins: u128| {
                    eval(
                        fm,
                        &Args {
                            ins: &[Input::bits(ins)],
                            dsel: None,
                        },
                    )
                    .unwrap()
                    .remove(0)
                };
                check(&one(fneg, x), want_neg(x), f, &|| format!("neg{z}.{t} {x:#x}"));
                check(&one(fabs, x), want_abs(x), f, &|| format!("abs{z}.{t} {x:#x}"));
                // x in lane 0, a rotation of it in lane 1: every encoding visits both lanes.
                let y = ((x << 7) | (x >> 9)) & 0xffff;
                for (fm, want) in [(fneg2, &want_neg as &dyn Fn(u128) -> Option<u128>), (fabs2, &want_abs)] {
                    let o = one(fm, y << 16 | x);
                    let (lo, hi) = match &o.accept {
                        Accept::Exact => (Outcome::exact(o.model & 0xffff), Outcome::exact(o.model >> 16)),
                        Accept::Lanes { lanes, .. } => (lanes[0].clone(), lanes[1].clone()),
                        a => panic!("{a:?}"),
                    };
                    check(&lo, want(x), f, &|| format!("{} lane 0 {x:#x}", fm.name));
                    check(&hi, want(y), f, &|| format!("{} lane 1 {y:#x}", fm.name));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// §9.7.4 min, max
// ---------------------------------------------------------------------------------------------

/// min/max written from the prose (L9863-9871, L9921): NaN loses unless both are NaN; `.NaN`
/// makes any NaN win as the canonical NaN; +0 > −0; `.xorsign.abs` takes the min/max of the
/// magnitudes and the XOR of the original signs, unless the result is NaN.
fn want_min_max(f: Format, a: u128, b: u128, max: bool, m: MinMaxMods) -> Option<u128> {
    let (a, b) = if m.ftz { (f.flush(a), f.flush(b)) } else { (a, b) };
    let sign = (f.neg(a) ^ f.neg(b)) as u128 * f.sign();
    let (a, b) = if m.xorsign_abs {
        (a & !f.sign(), b & !f.sign())
    } else {
        (a, b)
    };
    let (na, nb) = (f.is_nan(a), f.is_nan(b));
    if m.nan && (na || nb) {
        return Some(0x7fff);
    }
    let d = match (na, nb) {
        (true, true) => return None,
        (true, false) => b,
        (false, true) => a,
        _ => {
            let (x, y) = (f.to_f64(a), f.to_f64(b));
            let a_first = if x == y { f.neg(a) != max } else { (x < y) != max };
            if a_first {
                a
            } else {
                b
            }
        }
    };
    Some(if m.xorsign_abs { (d & !f.sign()) | sign } else { d })
}

#[test]
fn min_max_against_the_prose() {
    let mut rng = Rng(5);
    for f in [H, B] {
        let fm = fmt(f);
        let mut vals = hard(f);
        vals.extend([0x7e00u128, 0xfe00, 0x7c01, 0x7fc0, 0xffc1]);
        for i in 0..300_000 {
            let pick = |rng: &mut Rng| {
                if i % 2 == 0 {
                    vals[rng.next() as usize % vals.len()]
                } else {
                    rng.next() as u128 & 0xffff
                }
            };
            let (a, b) = (pick(&mut rng), pick(&mut rng));
            for bits in 0..8u32 {
                let m = MinMaxMods {
                    ftz: bits & 1 != 0 && f.exp_bits == 5,
                    nan: bits & 2 != 0,
                    xorsign_abs: bits & 4 != 0,
                };
                for max in [false, true] {
                    let got = if max {
                        arith::max(fm, a, b, m)
                    } else {
                        arith::min(fm, a, b, m)
                    };
                    let want = want_min_max(f, a, b, max, m);
                    check(&got, want, f, &|| format!("max={max} {m:?} {a:#x} {b:#x}"));
                }
            }
        }
    }
}

/// bf16 min/max by hand, with the manual's examples' spellings (L9935-9941, L10040-10048).
#[test]
fn min_max_bf16_by_hand() {
    let (one, two, m_one, m_two, nan) = (0x3f80u128, 0x4000u128, 0xbf80u128, 0xc000u128, 0x7fc0u128);
    assert_eq!(exact("min.bf16", &[one, two]), one);
    assert_eq!(exact("max.bf16", &[one, two]), two);
    assert_eq!(exact("min.bf16", &[m_one, m_two]), m_two);
    // +0.0 > −0.0 (L9921, L10026), in either order.
    for (a, b) in [(0x8000u128, 0x0000u128), (0x0000, 0x8000)] {
        assert_eq!(exact("min.bf16", &[a, b]), 0x8000);
        assert_eq!(exact("max.bf16", &[a, b]), 0x0000);
    }
    // A NaN loses to a number; two NaNs give a NaN; .NaN gives the canonical NaN (L9863).
    assert_eq!(exact("min.bf16", &[nan, two]), two);
    assert_eq!(exact("max.bf16", &[m_two, 0xff81]), m_two);
    assert!(run("min.bf16", &[nan, 0xffc0]).remove(0).accepts(0x7fc1));
    assert_eq!(exact("min.NaN.bf16", &[nan, two]), 0x7fff);
    assert_eq!(exact("max.NaN.bf16", &[two, 0xff81]), 0x7fff);
    // bf16 subnormals are kept (no .ftz for bf16): −2^-133 < 2^-133.
    assert_eq!(exact("min.bf16", &[0x0001, 0x8001]), 0x8001);
    // .xorsign.abs: the magnitude's min/max with sign = XOR of the signs (L9865-9869).
    assert_eq!(exact("min.xorsign.abs.bf16", &[m_one, two]), m_one);
    assert_eq!(exact("max.xorsign.abs.bf16", &[m_one, two]), m_two);
    assert_eq!(exact("max.xorsign.abs.bf16", &[0xc040, m_two]), 0x4040);
    // With a NaN: the number's magnitude, the sign bits of both (the NaN's included) XORed.
    assert_eq!(exact("min.xorsign.abs.bf16", &[0xffc0, two]), m_two);
    // ...and the same in lane 1 of max.bf16x2, where L10014 tests !isNaN(fA[i]) and would leave
    // +2.0: the prose (L9976, xorsign ignored only for a NaN *result*) is followed.
    assert_eq!(
        exact("max.xorsign.abs.bf16x2", &[nan << 16 | one, m_two << 16 | two]),
        m_two << 16 | two
    );
    // A NaN result ignores .xorsign.abs (L9871).
    assert_eq!(exact("min.NaN.xorsign.abs.bf16", &[0xffc0, one]), 0x7fff);
    // .ftz on f16: subnormals compare as zeros of their sign (L9919).
    assert_eq!(exact("min.ftz.f16", &[0x0001, 0x0000]), 0x0000);
    assert_eq!(exact("max.ftz.f16", &[0x8001, 0x0000]), 0x0000);
    assert_eq!(exact("min.ftz.f16", &[0x8001, 0x0000]), 0x8000);
    assert_eq!(exact("min.f16", &[0x0001, 0x0000]), 0x0000);
    assert_eq!(exact("max.f16", &[0x0001, 0x0000]), 0x0001);
}

// ---------------------------------------------------------------------------------------------
// §9.7.5 mixed precision
// ---------------------------------------------------------------------------------------------

/// add/sub/fma `.f32.{f16,bf16}` in every rounding mode, against exact arithmetic: a half is
/// exactly an f32 value (L10287), so `d = a ± c` and `a·b + c` are rounded once.
#[test]
fn mixed_precision_against_exact_arithmetic() {
    let mut rng = Rng(13);
    for (f, at) in [(H, &F16), (B, &BF16)] {
        let hard_f32 = [
            0u128,
            0x8000_0000,
            1,
            0x8000_0001,
            0x0080_0000,
            0x3f80_0000,
            0xbf80_0000,
            0x7f7f_ffff,
        ];
        let hard_half = hard(f);
        for i in 0..200_000 {
            let a = if i % 4 == 0 {
                hard_half[rng.next() as usize % hard_half.len()]
            } else {
                rng.half(f)
            };
            let b = rng.half(f);
            let c = match i % 4 {
                0 => hard_f32[rng.next() as usize % hard_f32.len()],
                // An f32 near the half's value: cancellation.
                1 if !f.is_inf(a) => {
                    let v = f.to_f64(a) as f32;
                    (v.to_bits() as u128 ^ (rng.next() as u128 & 0xfff)) | (rng.next() as u128 & 1) << 31
                }
                _ => rng.f32(),
            };
            let (va, vb, vc) = (f.value(a), f.value(b), S.value(c));
            if f.is_inf(a) || f.is_inf(b) {
                continue; // infinities: by hand in mixed_precision_hand_cases
            }
            for (mode, rnd) in MODES {
                let want_add = S.round(add_exact(va, vc, mode), mode);
                let want_sub = S.round(add_exact(va, negate(vc), mode), mode);
                let want_fma = S.round(add_exact(mul_exact(va, vb), vc, mode), mode);
                let what = || format!("{mode:?} a={a:#x} b={b:#x} c={c:#x}");
                assert_eq!(
                    mixed::add(at, a, c, rnd, false),
                    Outcome::exact(want_add),
                    "add {}",
                    what()
                );
                assert_eq!(
                    mixed::sub(at, a, c, rnd, false),
                    Outcome::exact(want_sub),
                    "sub {}",
                    what()
                );
                let got = mixed::fma(at, a, b, c, rnd, Mods::default());
                assert_eq!(got, Outcome::exact(want_fma), "fma {}", what());
                let sat = Mods {
                    sat: true,
                    ..Mods::default()
                };
                let (add_sat, fma_sat) = (saturate(S, Some(want_add)), saturate(S, Some(want_fma)));
                assert_eq!(mixed::add(at, a, c, rnd, true).model, add_sat, "add.sat {}", what());
                assert_eq!(mixed::fma(at, a, b, c, rnd, sat).model, fma_sat, "fma.sat {}", what());
                // .ftz (interpretation): f32 subnormal inputs — c, and a bf16 a or b — and results.
                let ftz = Mods {
                    ftz: true,
                    ..Mods::default()
                };
                let flush_half = |x: u128| if f.exp_bits == 8 { f.flush(x) } else { x };
                let (fa, fb, fc) = (f.value(flush_half(a)), f.value(flush_half(b)), S.value(S.flush(c)));
                let x = add_exact(mul_exact(fa, fb), fc, mode);
                let want = ftz_outcome(S, S.flush(S.round(x, mode)), S.round(x, Mode::Rz));
                assert_eq!(mixed::fma(at, a, b, c, rnd, ftz), want, "fma.ftz {}", what());
            }
        }
    }
}

#[test]
fn mixed_precision_hand_cases() {
    // d = convert(a) − c (L10356): 1.0 − 0.25 = 0.75, not 0.25 − 1.0.
    assert_eq!(ev("sub.f32.f16 1.0 0.25"), "0x3f400000");
    assert_eq!(ev("sub.rn.f32.bf16 0x3f80 0.25"), "0x3f400000");
    // 1.0 (f16) + 2^-24 (f32): RN ties to even 1.0; RP up; RM and RZ stay.
    assert_eq!(ev("add.rn.f32.f16 0x3c00 0f33800000"), "0x3f800000");
    assert_eq!(ev("add.rp.f32.f16 0x3c00 0f33800000"), "0x3f800001");
    assert_eq!(ev("add.rz.f32.f16 0x3c00 0f33000000"), "0x3f800000");
    // −1 − (−1) = +0 except in .rm (IEEE 754 §6.3).
    assert_eq!(ev("sub.rn.f32.f16 0xbc00 -1.0"), "0x00000000");
    assert_eq!(ev("sub.rm.f32.f16 0xbc00 -1.0"), "0x80000000");
    // ∞ handling and NaN: any NaN, .sat flushes NaN to +0 (L10321).
    assert_eq!(ev("add.f32.f16 0x7c00 1.0"), "0x7f800000");
    assert_eq!(ev("add.f32.f16 0x7c00 -inf"), "0x7fffffff nan");
    assert_eq!(ev("add.sat.f32.f16 0x7c00 -inf"), "0x00000000");
    assert_eq!(ev("add.sat.f32.bf16 0x4000 0.5"), "0x3f800000");
    // fma single rounding (L10425): (1 + 2^-10)(1 − 2^-10) − 1 = −2^-20 exactly.
    assert_eq!(ev("fma.rn.f32.f16 0x3c01 0x3bfe -1.0"), "0xb5800000");
    // max f32 + 65504²: far below half an ulp of max (2^103), so .rn and .rz stay at max;
    // .rp must round up, past max, to +∞ (IEEE 754 §7.4).
    assert_eq!(ev("fma.rn.f32.f16 0x7bff 0x7bff 0f7f7fffff"), "0x7f7fffff");
    assert_eq!(ev("fma.rz.f32.f16 0x7bff 0x7bff 0f7f7fffff"), "0x7f7fffff");
    assert_eq!(ev("fma.rp.f32.f16 0x7bff 0x7bff 0f7f7fffff"), "0x7f800000");
    // .ftz (interpretation, L10410): a bf16 subnormal is an f32 subnormal and is flushed; an
    // f16 subnormal is a normal f32 and is not.
    assert_eq!(ev("fma.rn.ftz.f32.bf16 0x0001 0x3f80 0.0"), "0x00000000");
    assert_eq!(ev("fma.rn.f32.bf16 0x0001 0x3f80 0.0"), "0x00010000");
    assert_eq!(ev("fma.rn.ftz.f32.f16 0x0001 0x3c00 0.0"), "0x33800000");
    assert_eq!(ev("fma.rn.ftz.f32.f16 0x0000 0x3c00 0f00000001"), "0x00000000");
    // 2^-24 × 2^-24 = 2^-48 is normal in f32; 2^-126 × 0.5 is a subnormal result, flushed.
    assert_eq!(ev("fma.rn.ftz.f32.f16 0x0001 0x0001 0.0"), "0x27800000");
    assert_eq!(ev("fma.rn.ftz.f32.bf16 0x0080 0x3f00 0.0"), "0x00000000");
    assert_eq!(ev("fma.rn.f32.bf16 0x0080 0x3f00 0.0"), "0x00400000");
}

// ---------------------------------------------------------------------------------------------
// §9.7.7 set, setp
// ---------------------------------------------------------------------------------------------

const OPS: [&str; 14] = [
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

/// Tables 22-24 (L10828-10832) on host f64 values: ordered operators false on NaN, unordered
/// true, `num`/`nan`. (The host's `!=` is true on NaN; PTX's ordered `ne` is not.)
fn truth(op: &str, x: f64, y: f64) -> bool {
    let nan = x.is_nan() || y.is_nan();
    let base = |o: &str| match o {
        "eq" => x == y,
        "ne" => x != y,
        "lt" => x < y,
        "le" => x <= y,
        "gt" => x > y,
        _ => x >= y,
    };
    match op {
        "num" => !nan,
        "nan" => nan,
        o if o.ends_with('u') => nan || base(&o[..2]),
        o => !nan && base(o),
    }
}

fn special_halves(f: Format) -> Vec<u128> {
    let one = (f.bias() as u128) << f.man_bits;
    let nan = f.inf(false) | 1 << (f.man_bits - 1);
    vec![
        nan,
        nan | f.sign(),
        f.inf(false) | 1, // signalling
        0,
        f.sign(),
        f.inf(false),
        f.inf(true),
        1,
        1 | f.sign(),
        (1 << f.man_bits) - 1,
        1 << f.man_bits,
        one,
        one | f.sign(),
        one + 1,
        f.max(false),
        f.max(true),
    ]
}

/// Every operator on every pair of special values: setp and set into each destination type,
/// with and without `.ftz` (f16, L10838, L10931), and with each BoolOp and `!c`.
#[test]
fn set_setp_truth_tables() {
    for (t, f) in [("f16", H), ("bf16", B)] {
        let vals = special_halves(f);
        let one = (f.bias() as u128) << f.man_bits;
        let ftzs: &[bool] = if t == "f16" { &[false, true] } else { &[false] };
        for op in OPS {
            for &ftz in ftzs {
                let z = if ftz { ".ftz" } else { "" };
                // A float destination takes f16 sources but no bf16 ones (`.stype` lists .f16,
                // not .bf16, L10769-10772): set.f16.f16 and set.bf16.f16.
                let (fsetp, fset_f, fset_u16, fset_s32) = (
                    form(&format!("setp.{op}{z}.{t}")),
                    (t == "f16").then(|| form(&format!("set.{op}{z}.f16.f16"))),
                    form(&format!("set.{op}{z}.u16.{t}")),
                    form(&format!("set.{op}{z}.s32.{t}")),
                );
                let fand = form(&format!("setp.{op}.and{z}.{t}"));
                let fxor = form(&format!("set.{op}.xor{z}.u32.{t}"));
                for &a in &vals {
                    for &b in &vals {
                        let (x, y) = if ftz { (f.flush(a), f.flush(b)) } else { (a, b) };
                        let want = truth(op, f.to_f64(x), f.to_f64(y));
                        let ins = [Input::bits(a), Input::bits(b)];
                        let go = |fm: &Form, ins: &[Input]| {
                            let o = eval(fm, &Args { ins, dsel: None }).unwrap();
                            assert!(o.iter().all(|o| o.accept == Accept::Exact));
                            o.iter().map(|o| o.model).collect::<Vec<_>>()
                        };
                        let what = format!("{op}{z}.{t} {a:#x} {b:#x}");
                        assert_eq!(go(fsetp, &ins), [want as u128], "setp {what}");
                        if let Some(fm) = fset_f {
                            assert_eq!(go(fm, &ins), [if want { one } else { 0 }], "set.{t} {what}");
                            let fb = form(&format!("set.{op}{z}.bf16.f16").replace(".ftz", ""));
                            if !ftz {
                                assert_eq!(go(fb, &ins), [if want { 0x3f80 } else { 0 }], "set.bf16 {what}");
                            }
                        }
                        assert_eq!(go(fset_u16, &ins), [if want { 0xffff } else { 0 }], "set.u16 {what}");
                        assert_eq!(
                            go(fset_s32, &ins),
                            [if want { 0xffff_ffff } else { 0 }],
                            "set.s32 {what}"
                        );
                        for c in [false, true] {
                            for neg in [false, true] {
                                let ins = [Input::bits(a), Input::bits(b), pred(c, neg)];
                                let cv = c ^ neg;
                                assert_eq!(go(fand, &ins), [(want & cv) as u128], "and {what} {c} {neg}");
                                let d = if want ^ cv { 0xffff_ffff } else { 0 };
                                assert_eq!(go(fxor, &ins), [d], "xor {what} {c} {neg}");
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The x2 forms: lane 0 → p, lane 1 → q (L10915-10916); set writes each half (L10795).
#[test]
fn set_setp_x2_lanes() {
    let mut rng = Rng(17);
    for (t, f) in [("f16", H), ("bf16", B)] {
        let vals = special_halves(f);
        let one = (f.bias() as u128) << f.man_bits;
        for op in OPS {
            for _ in 0..200 {
                let v = |rng: &mut Rng| vals[rng.next() as usize % vals.len()];
                let (a0, a1, b0, b1) = (v(&mut rng), v(&mut rng), v(&mut rng), v(&mut rng));
                let t0 = truth(op, f.to_f64(a0), f.to_f64(b0));
                let t1 = truth(op, f.to_f64(a1), f.to_f64(b1));
                let (a, b) = (a1 << 16 | a0, b1 << 16 | b0);
                let models = |name: &str, ins: &[Input]| -> Vec<u128> {
                    run_inputs(name, ins).iter().map(|o| o.model).collect()
                };
                let ins = [Input::bits(a), Input::bits(b)];
                assert_eq!(models(&format!("setp.{op}.{t}x2"), &ins), [t0 as u128, t1 as u128]);
                let lane = |t: bool, v: u128| if t { v } else { 0 };
                assert_eq!(
                    models(&format!("set.{op}.{t}x2.{t}x2"), &ins),
                    [lane(t1, one) << 16 | lane(t0, one)]
                );
                assert_eq!(
                    models(&format!("set.{op}.u32.{t}x2"), &ins),
                    [lane(t1, 0xffff) << 16 | lane(t0, 0xffff)]
                );
                let c = rng.next() & 1 != 0;
                let ins = [Input::bits(a), Input::bits(b), pred(c, true)];
                assert_eq!(
                    models(&format!("setp.{op}.or.{t}x2"), &ins),
                    [(t0 | !c) as u128, (t1 | !c) as u128]
                );
                assert_eq!(
                    models(&format!("set.{op}.and.s32.{t}x2"), &ins),
                    [lane(t1 & !c, 0xffff) << 16 | lane(t0 & !c, 0xffff)]
                );
            }
        }
    }
    // The manual's example `setp.lt.and.f16x2 p|q, a, b, r` (L10944) with values.
    assert_eq!(ev("setp.lt.and.f16x2 0x3c00bc00 0x40000000 1"), "1 1");
    assert_eq!(ev("setp.lt.and.f16x2 0x3c00bc00 0x40000000 !1"), "0 0");
    assert_eq!(ev("setp.lt.f16x2 0x40000000 0x3c00bc00"), "0 0");
    assert_eq!(ev("setp.lt.f16x2 0x3c007e00 0x40000000"), "0 1");
}

/// Other source types with an `.f16`/`.bf16` destination: f32 and f64 compare as §9.7.6 does
/// (`.ftz` flushes f32 subnormals, not f64 ones — interpretation); integers are never NaN, so
/// the unordered operators are their ordered counterparts, `num` true, `nan` false; `.bN` are
/// compared unsigned (interpretation, L10760-10771).
#[test]
fn set_with_other_source_types() {
    let f32s = [
        0u32,
        0x8000_0000,
        1,
        0x8000_0001,
        0x3f80_0000,
        0xbf80_0000,
        0x7f80_0000,
        0x7fc0_0000,
        0xff80_0001,
    ];
    for op in OPS {
        for &a in &f32s {
            for &b in &f32s {
                let (x, y) = (f32::from_bits(a) as f64, f32::from_bits(b) as f64);
                let want = truth(op, x, y);
                assert_eq!(
                    exact(&format!("set.{op}.f16.f32"), &[a as u128, b as u128]),
                    want as u128 * 0x3c00
                );
                assert_eq!(
                    exact(&format!("set.{op}.bf16.f32"), &[a as u128, b as u128]),
                    want as u128 * 0x3f80
                );
                let flush = |v: u32| if v & 0x7f80_0000 == 0 { v & 0x8000_0000 } else { v };
                let (fx, fy) = (f32::from_bits(flush(a)) as f64, f32::from_bits(flush(b)) as f64);
                let want = truth(op, fx, fy);
                assert_eq!(
                    exact(&format!("set.{op}.ftz.f16.f32"), &[a as u128, b as u128]),
                    want as u128 * 0x3c00
                );
                // f64: the same values widened; .ftz leaves f64 subnormals alone.
                let (a64, b64) = (x.to_bits() as u128, y.to_bits() as u128);
                let want = truth(op, x, y);
                assert_eq!(exact(&format!("set.{op}.f16.f64"), &[a64, b64]), want as u128 * 0x3c00);
            }
        }
    }
    assert_eq!(exact("set.eq.ftz.f16.f64", &[1, 0]), 0);
    assert_eq!(exact("set.eq.ftz.f16.f32", &[1, 0]), 0x3c00);
    // f16 source into a bf16 destination, as in the example `set.ltu.or.bf16.f16` (L10855).
    assert_eq!(exact("set.lt.bf16.f16", &[0x3c00, 0x4000]), 0x3f80);
    assert_eq!(ev("set.ltu.or.bf16.f16 nan 1.0 0"), "0x3f80");
    assert_eq!(ev("set.ltu.or.bf16.f16 2.0 1.0 0"), "0x0000");
    assert_eq!(ev("set.num.xor.s32.bf16 1.0 nan 1"), "0xffffffff");
    // Integers: compared as integers, never NaN.
    let int_truth = |op: &str, ord: Ordering| match op.trim_end_matches('u') {
        "eq" => ord.is_eq(),
        "ne" => ord.is_ne(),
        "lt" => ord.is_lt(),
        "le" => ord.is_le(),
        "gt" => ord.is_gt(),
        "ge" => ord.is_ge(),
        "num" => true,
        _ => false, // nan
    };
    let ints: [(i64, i64); 7] = [
        (0, 0),
        (-1, 1),
        (1, -1),
        (5, 5),
        (i64::MIN, i64::MAX),
        (7, 3),
        (0x1_8000, 0x2_7fff),
    ];
    for op in OPS {
        for (x, y) in ints {
            let (ux, uy) = (x as u64, y as u64);
            let ins = [ux as u128, uy as u128];
            let what = format!("{op} {x} {y}");
            let signed = int_truth(op, x.cmp(&y)) as u128;
            let unsigned = int_truth(op, ux.cmp(&uy)) as u128;
            assert_eq!(exact(&format!("set.{op}.f16.s64"), &ins), signed * 0x3c00, "{what}");
            assert_eq!(exact(&format!("set.{op}.f16.u64"), &ins), unsigned * 0x3c00, "{what}");
            assert_eq!(exact(&format!("set.{op}.bf16.b64"), &ins), unsigned * 0x3f80, "{what}");
            // 16-bit sources see only their low 16 bits, signed for .s16.
            let s16 = int_truth(op, (x as i16).cmp(&(y as i16))) as u128;
            let u16s = int_truth(op, (x as u16).cmp(&(y as u16))) as u128;
            let ins16 = [ux as u128 & 0xffff, uy as u128 & 0xffff];
            assert_eq!(exact(&format!("set.{op}.f16.s16"), &ins16), s16 * 0x3c00, "{what}");
            assert_eq!(exact(&format!("set.{op}.f16.b16"), &ins16), u16s * 0x3c00, "{what}");
        }
    }
}

/// The manual's examples of §9.7.7 parse to forms with semantics (L10851-10858, L10944-10950).
#[test]
fn manual_examples_of_comparisons() {
    assert_eq!(ev("set.lt.and.f16.f16 1.0 2.0 1"), "0x3c00");
    assert_eq!(ev("set.eq.f16x2.f16x2 0x3c000000 0x3c008000"), "0x3c003c00");
    assert_eq!(ev("set.eq.u32.f16x2 0x3c000000 0x3c008000"), "0xffffffff");
    assert_eq!(ev("set.lt.and.u16.f16 1.0 2.0 !0"), "0xffff");
    assert_eq!(ev("set.equ.bf16x2.bf16x2 0x7fc03f80 0x00003f80"), "0x3f803f80");
    assert_eq!(ev("set.geu.s32.bf16x2 0x7fc00000 0x3f803f80"), "0xffff0000");
    assert_eq!(ev("setp.gt.or.bf16x2 0x40000000 0x3f803f80 0"), "0 1");
    assert_eq!(ev("setp.eq.bf16 1.0 1.0"), "1");
    assert_eq!(ev("setp.eq.f16 0x8000 0x0000"), "1");
}

/// The manual's examples of §9.7.4 (spellings from L9390-9400, L9692-9720, L9776-9780,
/// L9935-9941) evaluate, with values.
#[test]
fn manual_examples_of_half_arithmetic() {
    assert_eq!(ev("add.f16 1.0 2.0"), "0x4200");
    assert_eq!(ev("add.rn.bf16 1.0 2.0"), "0x4040");
    assert_eq!(ev("add.f16x2 0x3c004000 0x3c00c000"), "0x40000000"); // {2,1}+{-2,1} lane-wise
    assert_eq!(
        ev("fma.rn.oob.relu.bf16x2 0x3f803f80 0x40004000 0xc0403f80"),
        "0x00004040"
    );
    assert_eq!(ev("neg.ftz.f16 0x0001"), "0x8000");
    assert_eq!(ev("neg.bf16 0x3f80"), "0xbf80");
    assert_eq!(ev("neg.bf16x2 0x3f808000"), "0xbf800000");
    assert_eq!(ev("abs.ftz.f16 0x8001"), "0x0000");
    assert_eq!(ev("abs.bf16x2 0xbf808001"), "0x3f800001");
    assert_eq!(ev("min.NaN.f16x2 0x7e003c00 0x3c004000"), "0x7fff3c00");
    assert_eq!(ev("max.xorsign.abs.f16 -1.0 2.0"), "0xc000");
    assert_eq!(ev("neg.f16 nan"), "0x7fff nan");
    assert_eq!(ev("add.f16x2 0x3c003c00 0x7c01c000"), "0x7fffbc00 lanes:nan/-");
}

// ---------------------------------------------------------------------------------------------
// Coverage walk
// ---------------------------------------------------------------------------------------------

fn mine(f: &Form) -> bool {
    let s = f.section;
    (s.starts_with("9.7.4.") && s != "9.7.4.9" && s != "9.7.4.10") || s.starts_with("9.7.5.") || s.starts_with("9.7.7.")
}

/// Operand values for a type: hard float values per lane, integer edges, predicates.
fn values_for(ty: spec::types::Type, i: usize) -> u128 {
    match ty.kind {
        Kind::Pred => (i & 1) as u128,
        Kind::Float(ff) => {
            let f = match ff {
                spec::types::FloatFormat::F16 => H,
                spec::types::FloatFormat::Bf16 => B,
                _ => S,
            };
            let w = ty.lane_bits;
            let base: Vec<u128> = if w == 16 {
                let mut v = hard(f);
                v.extend([0x7e00, 0xfe01, 0x7fc0, 0x7c01, 0x3c01, 0x1000]);
                v
            } else if w == 32 {
                vec![
                    0,
                    0x8000_0000,
                    1,
                    0x807f_ffff,
                    0x0080_0000,
                    0x3f80_0000,
                    0xbf80_0000,
                    0x7f7f_ffff,
                    0x7f80_0000,
                    0xff80_0000,
                    0x7fc0_0000,
                    0x3380_0000,
                ]
            } else {
                vec![
                    0,
                    1 << 63,
                    1,
                    0x3ff0_0000_0000_0000,
                    0x7ff0_0000_0000_0000,
                    0x7ff8_0000_0000_0000,
                    0x000f_ffff_ffff_ffff,
                ]
            };
            (0..ty.lanes).fold(0u128, |acc, l| {
                acc | base[(i * 7 + l as usize * 3) % base.len()] << (l * w)
            })
        }
        _ => {
            let m = ty.mask();
            [0u128, 1, m, m >> 1, (m >> 1) + 1, 0x1234_5678_9abc_def0 & m, 5][i % 7]
        }
    }
}

#[test]
fn every_form_has_semantics_and_evaluates() {
    let cat = catalog();
    let forms: Vec<&Form> = cat.forms.iter().filter(|f| mine(f)).collect();
    assert!(forms.len() > 3000, "{} forms", forms.len());
    for f in &forms {
        assert!(spec::half::semantics(f).is_some(), "{}", f.name);
        for i in 0..36 {
            let ins: Vec<Input> = f
                .inputs
                .iter()
                .enumerate()
                .map(|(k, o)| Input {
                    bits: values_for(o.ty, i + 5 * k),
                    negated: o.flags.not && i % 3 == 0,
                    sel: None,
                })
                .collect();
            let out = spec::half::semantics(f).unwrap()(f, &Args { ins: &ins, dsel: None })
                .unwrap_or_else(|e| panic!("{}: {e}", f.name));
            assert_eq!(out.len(), f.outputs.len(), "{}", f.name);
            for (o, d) in out.iter().zip(&f.outputs) {
                assert_eq!(
                    o.model & !d.ty.mask(),
                    0,
                    "{}: {:#x} wider than {}",
                    f.name,
                    o.model,
                    d.ty
                );
                assert!(o.accepts(o.model), "{}", f.name);
                if let Accept::Lanes { lane_bits, lanes } = &o.accept {
                    for (k, l) in lanes.iter().enumerate() {
                        assert!(l.accepts((o.model >> (k as u32 * lane_bits)) & ((1 << lane_bits) - 1)));
                    }
                }
                if let Accept::Nan(ff) = o.accept {
                    // The model is a NaN of the format, except for .oob's +0.0 alternative.
                    assert!(
                        Fmt::of(ff).is_nan(o.model) || (f.has("oob") && o.model == 0),
                        "{}",
                        f.name
                    );
                }
            }
        }
    }
    // Nothing else claims to be ours: tanh and ex2 are approximate (spec::approx).
    for f in cat.forms.iter().filter(|f| !mine(f)) {
        assert!(spec::half::semantics(f).is_none(), "{}", f.name);
    }
}

#[test]
fn cmp_ops_have_no_unsigned_spellings() {
    // `lo ls hi hs` are not in §9.7.7's CmpOp (L10767).
    for op in [CmpOp::Lo, CmpOp::Ls, CmpOp::Hi, CmpOp::Hs] {
        assert!(catalog().by_name(&format!("setp.{}.f16", op.name())).is_empty());
    }
}
