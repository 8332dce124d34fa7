//! §9.7.3 floating-point instructions: the host-FPU fast path against the soft path on random
//! and hard operands, the semantics against the host FPU in `.rn` (IEEE 754 guarantees the
//! host's bits) and against hand-derived bit patterns for `.ftz`, `.sat`, NaN, min/max and
//! testp, and a walk over every form of the section.

mod common;
use common::{ev, run1 as run};
use spec::catalog::{catalog, Class, Form};
use spec::eval::{eval, semantics};
use spec::float::format::{F32, F64};
use spec::float::{fast, ieee, Mods, Rnd};
use spec::fp::{self, MinMax, TestOp};
use spec::value::{Accept, Args, Input, Outcome};

// ---------------------------------------------------------------------------------------------
// Operand generation

/// SplitMix64: a deterministic generator for reproducible operand sets.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        common::splitmix64(&mut self.0)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

/// An IEEE binary format for generating operands: f32 or f64.
#[derive(Clone, Copy)]
struct Ff {
    man: u32,
    /// Largest finite biased exponent (254 or 2046).
    emax: i64,
}

const FF32: Ff = Ff { man: 23, emax: 254 };
const FF64: Ff = Ff { man: 52, emax: 2046 };

impl Ff {
    fn bias(self) -> i64 {
        (self.emax + 1) / 2 - 1
    }
    fn sign(self) -> u64 {
        1 << (self.man + self.exp_bits())
    }
    fn exp_bits(self) -> u32 {
        if self.man == 23 {
            8
        } else {
            11
        }
    }
    fn man_mask(self) -> u64 {
        (1 << self.man) - 1
    }
    fn pack(self, neg: bool, be: i64, m: u64) -> u64 {
        let be = be.clamp(0, self.emax) as u64;
        (if neg { self.sign() } else { 0 }) | be << self.man | (m & self.man_mask())
    }
    fn biased(self, x: u64) -> i64 {
        ((x >> self.man) & ((1 << self.exp_bits()) - 1)) as i64
    }
    /// A random mantissa with a random number of low zero bits (short mantissas make exact
    /// results and ties).
    fn mant(self, r: &mut Rng) -> u64 {
        let m = r.next() & self.man_mask();
        let k = r.below(self.man as u64 + 1);
        if r.coin() {
            m >> k << k
        } else {
            m
        }
    }
    fn num(self, r: &mut Rng, be: i64) -> u64 {
        self.pack(r.coin(), be, self.mant(r))
    }
    /// A number with a biased exponent drawn from `lo..=hi`.
    fn rnum(self, r: &mut Rng, lo: i64, hi: i64) -> u64 {
        let be = r.range(lo, hi);
        self.num(r, be)
    }
    /// Zeros, subnormals, the normal limits, infinities, NaNs, 1.0.
    fn special(self, r: &mut Rng) -> u64 {
        let s = if r.coin() { self.sign() } else { 0 };
        let inf = (self.emax as u64 + 1) << self.man;
        let v = [
            0,
            1,
            self.man_mask(),
            1 << self.man,
            (self.emax as u64) << self.man | self.man_mask(),
            inf,
            inf | 1,
            inf | 1 << (self.man - 1),
            inf | self.man_mask(),
            (self.bias() as u64) << self.man,
            r.next() & self.man_mask(),
        ];
        s | v[r.below(v.len() as u64) as usize]
    }
    /// The value plus `k` units in the last place (bits arithmetic, staying in the binade or
    /// crossing it as the encoding does).
    fn nudge(self, x: u64, k: i64) -> u64 {
        let mag = x & !self.sign();
        let m = (mag as i64 + k).clamp(0, (self.emax << self.man) | self.man_mask() as i64) as u64;
        (x & self.sign()) | m
    }
}

/// Binary operations whose hard cases differ.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Fma,
    Sqrt,
}

/// Operands for `op`, drawn from scenarios that make results land on the hard spots: exact
/// results, ties, cancellation, the subnormal boundary and overflow.
fn operands(f: Ff, op: Op, r: &mut Rng) -> [u64; 3] {
    let all = f.sign() | (f.sign() - 1);
    let b0 = f.bias();
    // Biased exponents of results that matter: vanishing, subnormal, min normal, 1, overflow.
    let targets = [-(f.man as i64) - 1, 0, 1, 2, b0, f.emax - 1, f.emax, f.emax + 1];
    let t = |r: &mut Rng| targets[r.below(targets.len() as u64) as usize] + r.range(-2, 2);
    match r.below(6) {
        0 => [r.next() & all, r.next() & all, r.next() & all],
        1 => [f.rnum(r, 0, f.emax), f.rnum(r, 0, f.emax), f.rnum(r, 0, f.emax)],
        2 => {
            // One or more specials.
            let mut v = [f.rnum(r, 0, f.emax), f.rnum(r, 0, f.emax), f.rnum(r, 0, f.emax)];
            for x in v.iter_mut() {
                if r.below(3) == 0 {
                    *x = f.special(r);
                }
            }
            v
        }
        _ => match op {
            Op::Add | Op::Sub => {
                let a = f.rnum(r, 0, f.emax);
                let ea = f.biased(a);
                let b = match r.below(4) {
                    // Cancellation: b near ∓a.
                    0 => f.nudge(a, r.range(-3, 3)) ^ if op == Op::Add { f.sign() } else { 0 },
                    // Alignment shifts around the precision: ties and sticky bits.
                    1 => f.rnum(r, ea - f.man as i64 - 3, ea),
                    // Near the smallest normal or near overflow.
                    2 => {
                        let e = [0, 1, 2, f.emax - 1, f.emax][r.below(5) as usize];
                        return [f.num(r, e), f.rnum(r, e - 1, e), 0];
                    }
                    _ => f.rnum(r, 0, f.emax),
                };
                [a, b, 0]
            }
            Op::Mul | Op::Div => {
                let ea = r.range(b0 / 2, 3 * b0 / 2);
                let a = f.num(r, ea);
                let target = t(r);
                let eb = if op == Op::Mul {
                    target - ea + b0
                } else {
                    ea - target + b0
                };
                let mut b = f.num(r, eb);
                if op == Op::Div && r.coin() {
                    // An exact quotient: a = q × b with a short q.
                    let q = f.num(r, target) & !(f.man_mask() >> (f.man / 2));
                    let bb = f.num(r, eb) & !(f.man_mask() >> (f.man / 2));
                    let prod = if f.man == 23 {
                        (f32::from_bits(q as u32) * f32::from_bits(bb as u32)).to_bits() as u64
                    } else {
                        (f64::from_bits(q) * f64::from_bits(bb)).to_bits()
                    };
                    return [prod, bb, 0];
                }
                if r.below(4) == 0 {
                    b = f.special(r);
                }
                [a, b, 0]
            }
            Op::Fma => {
                let ea = r.range(b0 / 2, 3 * b0 / 2);
                let a = f.num(r, ea);
                let target = t(r);
                let b = f.num(r, target - ea + b0);
                let p = if f.man == 23 {
                    (f32::from_bits(a as u32) * f32::from_bits(b as u32)).to_bits() as u64
                } else {
                    (f64::from_bits(a) * f64::from_bits(b)).to_bits()
                };
                let c = match r.below(4) {
                    // Cancellation against the rounded product.
                    0 => f.nudge(p, r.range(-2, 2)) ^ f.sign(),
                    // c around the product's last places.
                    1 => {
                        let e = f.biased(p) - r.range(-2, f.man as i64 + 3);
                        f.num(r, e)
                    }
                    2 => {
                        let e = t(r);
                        f.num(r, e)
                    }
                    _ => f.special(r),
                };
                [a, b, c]
            }
            Op::Sqrt => {
                let s = f.rnum(r, b0 / 2, 3 * b0 / 2) & !f.sign() & !(f.man_mask() >> (f.man / 2));
                let sq = if f.man == 23 {
                    (f32::from_bits(s as u32) * f32::from_bits(s as u32)).to_bits() as u64
                } else {
                    (f64::from_bits(s) * f64::from_bits(s)).to_bits()
                };
                match r.below(3) {
                    0 => [f.nudge(sq, r.range(-2, 2)), 0, 0],
                    1 => [f.rnum(r, 0, 3) & !f.sign(), 0, 0],
                    _ => [f.rnum(r, 0, f.emax) & !f.sign(), 0, 0],
                }
            }
        },
    }
}

const MODES: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];
const N: usize = 100_000;

// ---------------------------------------------------------------------------------------------
// The fast path is the soft path: the same bits for every number, a NaN where it gives a NaN

fn check_fast32(op: Op) {
    let mut r = Rng(0x5eed_0032 ^ op as u64);
    for rnd in MODES {
        for i in 0..N {
            let [a, b, c] = operands(FF32, op, &mut r).map(|x| x as u32);
            let (fa, sa) = match op {
                Op::Add => (fast::add_f32(a, b, rnd), ieee::add(&F32, a as u128, b as u128, rnd)),
                Op::Sub => (fast::sub_f32(a, b, rnd), ieee::sub(&F32, a as u128, b as u128, rnd)),
                Op::Mul => (fast::mul_f32(a, b, rnd), ieee::mul(&F32, a as u128, b as u128, rnd)),
                Op::Div => (fast::div_f32(a, b, rnd), ieee::div(&F32, a as u128, b as u128, rnd)),
                Op::Fma => (
                    fast::fma_f32(a, b, c, rnd),
                    ieee::fma(&F32, a as u128, b as u128, c as u128, rnd),
                ),
                Op::Sqrt => (fast::sqrt_f32(a, rnd), ieee::sqrt(&F32, a as u128, rnd)),
            };
            let nan = F32.is_nan(fa as u128) && F32.is_nan(sa);
            assert!(
                fa as u128 == sa || nan,
                "#{i} {op:?} {rnd:?} f32 {a:#010x} {b:#010x} {c:#010x}: fast {fa:#010x} soft {sa:#010x}"
            );
        }
    }
}

fn check_fast64(op: Op) {
    let mut r = Rng(0x5eed_0064 ^ op as u64);
    for rnd in MODES {
        for i in 0..N {
            let [a, b, c] = operands(FF64, op, &mut r);
            let (fa, sa) = match op {
                Op::Add => (fast::add_f64(a, b, rnd), ieee::add(&F64, a as u128, b as u128, rnd)),
                Op::Sub => (fast::sub_f64(a, b, rnd), ieee::sub(&F64, a as u128, b as u128, rnd)),
                Op::Mul => (fast::mul_f64(a, b, rnd), ieee::mul(&F64, a as u128, b as u128, rnd)),
                Op::Div => (fast::div_f64(a, b, rnd), ieee::div(&F64, a as u128, b as u128, rnd)),
                Op::Fma => (
                    fast::fma_f64(a, b, c, rnd),
                    ieee::fma(&F64, a as u128, b as u128, c as u128, rnd),
                ),
                Op::Sqrt => (fast::sqrt_f64(a, rnd), ieee::sqrt(&F64, a as u128, rnd)),
            };
            let nan = F64.is_nan(fa as u128) && F64.is_nan(sa);
            assert!(
                fa as u128 == sa || nan,
                "#{i} {op:?} {rnd:?} f64 {a:#018x} {b:#018x} {c:#018x}: fast {fa:#018x} soft {sa:#018x}"
            );
        }
    }
}

#[test]
fn fast_add_f32_is_soft() {
    check_fast32(Op::Add);
    check_fast32(Op::Sub);
}
#[test]
fn fast_mul_f32_is_soft() {
    check_fast32(Op::Mul);
}
#[test]
fn fast_fma_f32_is_soft() {
    check_fast32(Op::Fma);
}
#[test]
fn fast_div_f32_is_soft() {
    check_fast32(Op::Div);
}
#[test]
fn fast_sqrt_f32_is_soft() {
    check_fast32(Op::Sqrt);
}
#[test]
fn fast_add_f64_is_soft() {
    check_fast64(Op::Add);
    check_fast64(Op::Sub);
}
#[test]
fn fast_mul_f64_is_soft() {
    check_fast64(Op::Mul);
}
#[test]
fn fast_fma_f64_is_soft() {
    check_fast64(Op::Fma);
}
#[test]
fn fast_div_f64_is_soft() {
    check_fast64(Op::Div);
}
#[test]
fn fast_sqrt_f64_is_soft() {
    check_fast64(Op::Sqrt);
}

/// The FMA building block where the CPU lacks the instruction: this test crate is built
/// without the FMA target feature, so `mul_add` here is a library call (compiler-builtins'
/// `fma`/`fmaf`, or the C library's), which must be correctly rounded for the fast path's
/// fallback to hold.
#[test]
fn library_fma_is_correctly_rounded() {
    let mut r = Rng(0xf3a);
    for _ in 0..N / 4 {
        let [a, b, c] = operands(FF64, Op::Fma, &mut r);
        let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        let want = ieee::fma(&F64, a as u128, b as u128, c as u128, Rnd::Rn);
        let got = x.mul_add(y, z).to_bits() as u128;
        assert!(
            got == want || (F64.is_nan(got) && F64.is_nan(want)),
            "{a:#x} {b:#x} {c:#x}"
        );
        let [a, b, c] = operands(FF32, Op::Fma, &mut r).map(|v| v as u32);
        let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
        let want = ieee::fma(&F32, a as u128, b as u128, c as u128, Rnd::Rn);
        let got = x.mul_add(y, z).to_bits() as u128;
        assert!(
            got == want || (F32.is_nan(got) && F32.is_nan(want)),
            "{a:#x} {b:#x} {c:#x}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers for the semantics

/// The form named `name`.
fn form(name: &str) -> &'static Form {
    let cat = catalog();
    let ids = cat.by_name(name);
    assert_eq!(ids.len(), 1, "`{name}`");
    &cat.forms[ids[0]]
}

/// The model of an f64 NaN outcome whose only other accepted value is the model with the other
/// sign.
fn nan_either_sign(o: Outcome) -> u128 {
    assert_eq!(o.accept, Accept::OneOf(vec![o.model ^ (1 << 63)]), "{o:?}");
    o.model
}

/// The model of an exact outcome.
fn exact(o: Outcome) -> u128 {
    assert_eq!(o.accept, Accept::Exact, "{o:?}");
    o.model
}

fn b32(x: f32) -> u128 {
    x.to_bits() as u128
}

fn b64(x: f64) -> u128 {
    x.to_bits() as u128
}

const FTZ: Mods = Mods {
    ftz: true,
    sat: false,
    relu: false,
};
const SAT: Mods = Mods {
    ftz: false,
    sat: true,
    relu: false,
};
const NONE: Mods = Mods {
    ftz: false,
    sat: false,
    relu: false,
};

// ---------------------------------------------------------------------------------------------
// .rn against the host FPU

/// f32 `.rn` results against f64 arithmetic rounded once to f32: f32 products are exact in f64,
/// and for `+ − × ÷ √` rounding twice through a format of 53 ≥ 2 × 24 + 2 bits gives the
/// correctly rounded f32 (Figueroa, "When is double rounding innocuous?", 1995), so this is an
/// independent computation from the host's f32 instructions the fast path uses.
#[test]
fn f32_rn_matches_f64_rounded_once() {
    let mut r = Rng(0x32);
    for op in [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Sqrt] {
        for _ in 0..N / 2 {
            let [a, b, _] = operands(FF32, op, &mut r).map(|v| v as u32);
            let (x, y) = (f32::from_bits(a) as f64, f32::from_bits(b) as f64);
            let (want, got) = match op {
                Op::Add => ((x + y) as f32, fp::add_f32(a, b, Rnd::Rn, NONE)),
                Op::Sub => ((x - y) as f32, fp::sub_f32(a, b, Rnd::Rn, NONE)),
                Op::Mul => ((x * y) as f32, fp::mul_f32(a, b, Rnd::Rn, NONE)),
                Op::Div => ((x / y) as f32, fp::div_f32(a, b, Rnd::Rn, NONE)),
                _ => (x.sqrt() as f32, fp::sqrt_f32(a, Rnd::Rn, NONE)),
            };
            if want.is_nan() {
                assert_eq!(
                    got,
                    Outcome::any_nan(spec::types::FloatFormat::F32),
                    "{op:?} {a:#x} {b:#x}"
                );
            } else {
                assert_eq!(exact(got), b32(want), "{op:?} {a:#x} {b:#x}");
            }
        }
    }
    // rcp.rn is 1/a.
    for _ in 0..N / 4 {
        let a = operands(FF32, Op::Div, &mut r)[1] as u32;
        let want = (1.0 / f32::from_bits(a) as f64) as f32;
        let got = fp::rcp_f32(a, Rnd::Rn, NONE);
        assert!(
            got.accepts(b32(want)) && (want.is_nan() || got.accept == Accept::Exact),
            "{a:#x}"
        );
    }
}

/// f64 `.rn` results against the host, with the payload rule for NaN inputs (L7141): the first
/// NaN operand's payload, quieted.
#[test]
fn f64_rn_matches_the_host() {
    let mut r = Rng(0x64);
    for op in [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Fma, Op::Sqrt] {
        for _ in 0..N / 2 {
            let [a, b, c] = operands(FF64, op, &mut r);
            let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
            let (want, got, ins) = match op {
                Op::Add => (x + y, fp::add_f64(a, b, Rnd::Rn), vec![a, b]),
                Op::Sub => (x - y, fp::sub_f64(a, b, Rnd::Rn), vec![a, b]),
                Op::Mul => (x * y, fp::mul_f64(a, b, Rnd::Rn), vec![a, b]),
                Op::Div => (x / y, fp::div_f64(a, b, Rnd::Rn), vec![a, b]),
                Op::Fma => (x.mul_add(y, z), fp::fma_f64(a, b, c, Rnd::Rn), vec![a, b, c]),
                Op::Sqrt => (x.sqrt(), fp::sqrt_f64(a, Rnd::Rn), vec![a]),
            };
            if !want.is_nan() {
                assert_eq!(exact(got), b64(want), "{op:?} {a:#x} {b:#x} {c:#x}");
                continue;
            }
            match ins.iter().find(|&&v| f64::from_bits(v).is_nan()) {
                Some(&first) => assert_eq!(got.model, (first | 1 << 51) as u128, "{op:?} {a:#x} {b:#x} {c:#x}"),
                None => assert!(got.accepts(0x7ff8_0000_0000_0000) && got.accepts(0xfff0_0000_0000_0001)),
            }
            for v in ins.iter().filter(|&&v| f64::from_bits(v).is_nan()) {
                assert!(got.accepts((v | 1 << 51) as u128), "{op:?} {v:#x}");
            }
        }
    }
}

/// Directed modes through the semantics and the catalog dispatch, against the soft path.
#[test]
fn directed_modes_through_the_dispatch() {
    let mut r = Rng(0xd1);
    for (op, name) in [
        (Op::Add, "add"),
        (Op::Sub, "sub"),
        (Op::Mul, "mul"),
        (Op::Div, "div"),
        (Op::Fma, "fma"),
        (Op::Sqrt, "sqrt"),
    ] {
        for (rnd, m) in [(Rnd::Rz, "rz"), (Rnd::Rm, "rm"), (Rnd::Rp, "rp")] {
            for _ in 0..2000 {
                let [a, b, c] = operands(FF32, op, &mut r).map(|v| v as u128 & 0xffff_ffff);
                let soft = match op {
                    Op::Add => ieee::add(&F32, a, b, rnd),
                    Op::Sub => ieee::sub(&F32, a, b, rnd),
                    Op::Mul => ieee::mul(&F32, a, b, rnd),
                    Op::Div => ieee::div(&F32, a, b, rnd),
                    Op::Fma => ieee::fma(&F32, a, b, c, rnd),
                    Op::Sqrt => ieee::sqrt(&F32, a, rnd),
                };
                let ins: &[u128] = match op {
                    Op::Fma => &[a, b, c],
                    Op::Sqrt => &[a],
                    _ => &[a, b],
                };
                let got = run(&format!("{name}.{m}.f32"), ins);
                assert!(
                    got.accepts(soft) && (F32.is_nan(soft) || got.accept == Accept::Exact),
                    "{name}.{m} {a:#x} {b:#x} {c:#x}"
                );
                let [a, b, c] = operands(FF64, op, &mut r).map(|v| v as u128);
                let soft = match op {
                    Op::Add => ieee::add(&F64, a, b, rnd),
                    Op::Sub => ieee::sub(&F64, a, b, rnd),
                    Op::Mul => ieee::mul(&F64, a, b, rnd),
                    Op::Div => ieee::div(&F64, a, b, rnd),
                    Op::Fma => ieee::fma(&F64, a, b, c, rnd),
                    Op::Sqrt => ieee::sqrt(&F64, a, rnd),
                };
                let ins: &[u128] = match op {
                    Op::Fma => &[a, b, c],
                    Op::Sqrt => &[a],
                    _ => &[a, b],
                };
                let got = run(&format!("{name}.{m}.f64"), ins);
                assert!(
                    F64.is_nan(soft) == F64.is_nan(got.model),
                    "{name}.{m}.f64 {a:#x} {b:#x} {c:#x}"
                );
                if !F64.is_nan(soft) {
                    assert_eq!(exact(got), soft, "{name}.{m}.f64 {a:#x} {b:#x} {c:#x}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// .ftz and .sat, hand-derived bit patterns

/// `.ftz` flushes subnormal inputs and results to sign-preserving zero (L7139, L7580); a result
/// whose exact value is below 2^-126 but rounds up to it is flushed (tininess before rounding,
/// the H200's reading and the model) or kept (after rounding, also accepted).
#[test]
fn ftz_boundaries() {
    // (1 − 2^-24) × 2^-126 = 2^-126 − 2^-150: in units of 2^-149 that is 2^23 − 0.5, a tie that
    // .rn resolves to the even 2^23 — the smallest normal 0x00800000, kept — while .rz keeps
    // 2^23 − 1 = 0x007fffff, subnormal, flushed to +0.
    // Under .ftz the exact value is below 2^-126 before rounding: flushed (the H200's value,
    // the model) or, read after rounding, 2^-126 (also accepted).
    let (a, b) = (0x3f7f_ffff, 0x0080_0000);
    let o = fp::mul_f32(a, b, Rnd::Rn, FTZ);
    assert_eq!((o.model, o.accept), (0, Accept::OneOf(vec![0x0080_0000])));
    assert_eq!(exact(fp::mul_f32(a, b, Rnd::Rn, NONE)), 0x0080_0000);
    assert_eq!(exact(fp::mul_f32(a, b, Rnd::Rz, FTZ)), 0);
    assert_eq!(exact(fp::mul_f32(a, b, Rnd::Rz, NONE)), 0x007f_ffff);
    // The same tie, negative: −0 after the flush, −2^-126 when it rounds up.
    assert_eq!(exact(fp::mul_f32(a | 0x8000_0000, b, Rnd::Rz, FTZ)), 0x8000_0000);
    let o = fp::mul_f32(a | 0x8000_0000, b, Rnd::Rm, FTZ);
    assert_eq!((o.model, o.accept), (0x8000_0000, Accept::OneOf(vec![0x8080_0000])));
    assert_eq!(exact(fp::mul_f32(a | 0x8000_0000, b, Rnd::Rp, FTZ)), 0x8000_0000);
    // 1.5 × 2^-126 − 2^-126 = 2^-127 = 0x00400000 exactly: subnormal, flushed.
    assert_eq!(exact(fp::add_f32(0x00c0_0000, 0x8080_0000, Rnd::Rn, NONE)), 0x0040_0000);
    assert_eq!(exact(fp::add_f32(0x00c0_0000, 0x8080_0000, Rnd::Rn, FTZ)), 0);
    assert_eq!(exact(fp::sub_f32(0x8080_0000, 0x80c0_0000, Rnd::Rn, FTZ)), 0);
    assert_eq!(exact(fp::sub_f32(0x80c0_0000, 0x8080_0000, Rnd::Rn, FTZ)), 0x8000_0000);
    // Inputs: the smallest subnormal plus 0 is itself, or 0 under .ftz; the flushed input keeps
    // its sign (−0 + −0 = −0).
    assert_eq!(exact(fp::add_f32(1, 0, Rnd::Rn, NONE)), 1);
    assert_eq!(exact(fp::add_f32(1, 0, Rnd::Rn, FTZ)), 0);
    assert_eq!(exact(fp::add_f32(0x8000_0001, 0x8000_0000, Rnd::Rn, FTZ)), 0x8000_0000);
    // A subnormal input to mul would make a normal product: 2^-149 × 2^30 = 2^-119.
    assert_eq!(exact(fp::mul_f32(1, 0x4e80_0000, Rnd::Rn, NONE)), 0x0400_0000);
    assert_eq!(exact(fp::mul_f32(1, 0x4e80_0000, Rnd::Rn, FTZ)), 0);
    // −2^-100 × 2^-30 = −2^-130: subnormal, sign-preserving zero.
    assert_eq!(exact(fp::mul_f32(0x8d80_0000, 0x3080_0000, Rnd::Rn, FTZ)), 0x8000_0000);
    // div, rcp, sqrt, fma: subnormal inputs are zeros, subnormal results flushed.
    assert_eq!(exact(fp::div_f32(0x3f80_0000, 1, Rnd::Rn, FTZ)), 0x7f80_0000); // 1/+0 = +Inf
    assert_eq!(exact(fp::div_f32(0x3f80_0000, 1, Rnd::Rn, NONE)), 0x7f80_0000); // 2^149: overflow
    assert_eq!(exact(fp::div_f32(0x3f80_0000, 0x7f00_0000, Rnd::Rn, NONE)), 0x0040_0000); // 2^-127
    assert_eq!(exact(fp::div_f32(0x3f80_0000, 0x7f00_0000, Rnd::Rn, FTZ)), 0);
    assert_eq!(exact(fp::rcp_f32(0x8000_0001, Rnd::Rn, FTZ)), 0xff80_0000); // 1/−0 = −Inf
    assert_eq!(exact(fp::sqrt_f32(0x8000_0001, Rnd::Rn, FTZ)), 0x8000_0000); // sqrt(−0) = −0
    assert!(F32.is_nan(fp::sqrt_f32(0x8000_0001, Rnd::Rn, NONE).model)); // sqrt(−2^-149)
    assert_eq!(exact(fp::sqrt_f32(0x0000_0004, Rnd::Rn, NONE)), 0x1ab5_04f3); // √(2^-147) = √2 × 2^-74
    assert_eq!(exact(fp::fma_f32(0x0080_0000, 0x3f00_0000, 0, Rnd::Rn, FTZ)), 0); // 2^-127
    assert_eq!(
        exact(fp::fma_f32(0x0080_0000, 0x3f00_0000, 0, Rnd::Rn, NONE)),
        0x0040_0000
    );
    // .f32x2 flushes per lane.
    assert_eq!(
        exact(fp::add_f32x2(0x0000_0001_3f80_0000, 0, Rnd::Rn, FTZ)),
        0x0000_0000_3f80_0000
    );
}

/// `.sat` clamps to [0.0, 1.0] and flushes NaN to +0.0 (L7590, L7918, L8016).
#[test]
fn sat_boundaries() {
    // 0.75 + 0.5 = 1.25 → 1.0; −1 + 0.5 → +0; 0.5 + 0.25 = 0.75 stays; +Inf → 1.0; −Inf → 0.
    assert_eq!(
        exact(fp::add_f32(b32(0.75) as u32, b32(0.5) as u32, Rnd::Rn, SAT)),
        b32(1.0)
    );
    assert_eq!(exact(fp::add_f32(b32(-1.0) as u32, b32(0.5) as u32, Rnd::Rn, SAT)), 0);
    assert_eq!(
        exact(fp::add_f32(b32(0.5) as u32, b32(0.25) as u32, Rnd::Rn, SAT)),
        b32(0.75)
    );
    assert_eq!(exact(fp::mul_f32(0x7f80_0000, b32(2.0) as u32, Rnd::Rn, SAT)), b32(1.0));
    assert_eq!(exact(fp::mul_f32(0xff80_0000, b32(2.0) as u32, Rnd::Rn, SAT)), 0);
    // NaN results, from NaN inputs or ∞ − ∞, are +0.
    assert_eq!(exact(fp::add_f32(0x7fc0_0000, b32(0.5) as u32, Rnd::Rn, SAT)), 0);
    assert_eq!(exact(fp::sub_f32(0x7f80_0000, 0x7f80_0000, Rnd::Rn, SAT)), 0);
    assert_eq!(exact(fp::fma_f32(0, 0x7f80_0000, 0, Rnd::Rn, SAT)), 0);
    // The clamp applies to the rounded result: 1 + 2^-30 rounds up to 1 + 2^-23 under .rp,
    // then clamps to 1.0; under .rz it is 1.0 already.
    let tiny = 0x3080_0000; // 2^-30
    assert_eq!(exact(fp::add_f32(b32(1.0) as u32, tiny, Rnd::Rp, NONE)), 0x3f80_0001);
    assert_eq!(exact(fp::add_f32(b32(1.0) as u32, tiny, Rnd::Rp, SAT)), b32(1.0));
    // 1 − 2^-30 rounds to 1.0 (.rn) or 1 − 2^-24 (.rz), both within [0, 1].
    assert_eq!(exact(fp::sub_f32(b32(1.0) as u32, tiny, Rnd::Rn, SAT)), b32(1.0));
    assert_eq!(exact(fp::sub_f32(b32(1.0) as u32, tiny, Rnd::Rz, SAT)), 0x3f7f_ffff);
    // −0.0: in the range or not, the core accepts both zeros with +0 as the model.
    let o = fp::add_f32(0x8000_0000, 0x8000_0000, Rnd::Rn, SAT);
    assert!(o.model == 0 && o.accepts(0x8000_0000) && !o.accepts(1));
    // .sat with .ftz: a subnormal negative result is flushed to −0, then clamped.
    let m = Mods {
        ftz: true,
        sat: true,
        relu: false,
    };
    let o = fp::mul_f32(0x8d80_0000, 0x3080_0000, Rnd::Rn, m);
    assert!(o.model == 0 && o.accepts(0x8000_0000));
    // fma.sat and mad.rn.sat (L7918, L8016).
    assert_eq!(exact(run("fma.rn.sat.f32", &[b32(0.5), b32(4.0), b32(-0.5)])), b32(1.0));
    assert_eq!(exact(run("mad.rn.sat.f32", &[b32(0.5), b32(0.5), b32(-0.5)])), 0);
    assert_eq!(exact(run("mad.rn.sat.f32", &[b32(0.5), b32(0.5), b32(0.5)])), b32(0.75));
}

// ---------------------------------------------------------------------------------------------
// NaN rules

#[test]
fn nan_rules_per_type() {
    // f32: an unspecified NaN (L7141): any NaN accepted, the canonical one as model.
    let o = fp::add_f32(0x7f80_0001, b32(1.0) as u32, Rnd::Rn, NONE);
    assert!(o.model == 0x7fff_ffff && o.accepts(0xffc0_0000) && o.accepts(0x7f80_0001) && !o.accepts(0x7f80_0000));
    // f64: the payload of the NaN operand, quieted; two NaNs: either (L7141); the sign of the
    // result is not specified (IEEE 754-2008 §6.3), the operand's is the model.
    let o = fp::add_f64(0x7ff0_0000_0000_0001, b64(1.0) as u64, Rnd::Rn);
    assert_eq!(nan_either_sign(o), 0x7ff8_0000_0000_0001);
    let o = fp::mul_f64(b64(2.0) as u64, 0xfff8_0000_dead_beef, Rnd::Rz);
    assert_eq!(nan_either_sign(o), 0xfff8_0000_dead_beef);
    let o = fp::fma_f64(0x7ff8_0000_0000_0002, 0x7ff0_0000_0000_0003, 0, Rnd::Rn);
    assert!(o.model == 0x7ff8_0000_0000_0002 && o.accepts(0x7ff8_0000_0000_0003) && !o.accepts(0x7fff_ffff_ffff_ffff));
    // A NaN made from numbers has no payload to keep: any NaN.
    let o = fp::sub_f64(0x7ff0_0000_0000_0000, 0x7ff0_0000_0000_0000, Rnd::Rn);
    assert!(o.accepts(0x7fff_ffff_ffff_ffff) && o.accepts(0xfff8_0000_0000_0000));
    let o = fp::sqrt_f64(b64(-1.0) as u64, Rnd::Rp);
    assert!(o.accepts(0x7ff8_0000_0000_0000) && !o.accepts(0));
    let o = fp::rcp_f64(0x7ff0_0000_0000_00aa, Rnd::Rn);
    assert_eq!(nan_either_sign(o), 0x7ff8_0000_0000_00aa);
    // 0 × ∞ in fma, f32: any NaN.
    assert!(F32.is_nan(fp::fma_f32(0, 0x7f80_0000, b32(1.0) as u32, Rnd::Rz, NONE).model));
}

// ---------------------------------------------------------------------------------------------
// The manual's special-value tables

/// sqrt's table (L8637-8663) holds for `sqrt.rnd` too: −Inf → NaN, −normal → NaN, −0 → −0,
/// +0 → +0, +Inf → +Inf, NaN → NaN.
#[test]
fn sqrt_special_values_l8637() {
    for rnd in MODES {
        for (a, want) in [
            (0xff80_0000u32, None),
            (0xbf80_0000, None),
            (0x8000_0000, Some(0x8000_0000u32)),
            (0, Some(0)),
            (0x7f80_0000, Some(0x7f80_0000)),
            (0x7fc0_0000, None),
        ] {
            let o = fp::sqrt_f32(a, rnd, NONE);
            match want {
                Some(w) => assert_eq!(exact(o), w as u128, "{a:#x} {rnd:?}"),
                None => assert!(F32.is_nan(o.model) && o.accepts(0x7fc0_0000), "{a:#x}"),
            }
        }
        for (a, want) in [
            (0xfff0_0000_0000_0000u64, None),
            (0xbff0_0000_0000_0000, None),
            (0x8000_0000_0000_0000, Some(0x8000_0000_0000_0000u64)),
            (0, Some(0)),
            (0x7ff0_0000_0000_0000, Some(0x7ff0_0000_0000_0000)),
            (0x7ff8_0000_0000_0000, None),
        ] {
            let o = fp::sqrt_f64(a, rnd);
            match want {
                Some(w) => assert_eq!(exact(o), w as u128, "{a:#x} {rnd:?}"),
                None => assert!(F64.is_nan(o.model), "{a:#x}"),
            }
        }
    }
    // Exact roots in every mode.
    for rnd in MODES {
        assert_eq!(exact(fp::sqrt_f32(b32(6.25) as u32, rnd, NONE)), b32(2.5));
        assert_eq!(exact(fp::sqrt_f64(b64(6.25) as u64, rnd)), b64(2.5));
    }
    // √2 = 1.41421356..: 0x3fb504f3 = 1.41421353.. lies below it, 0x3fb504f4 = 1.41421365..
    // above, farther.
    let s2 = 0x3fb5_04f3u128;
    assert_eq!(exact(fp::sqrt_f32(b32(2.0) as u32, Rnd::Rn, NONE)), s2);
    assert_eq!(exact(fp::sqrt_f32(b32(2.0) as u32, Rnd::Rz, NONE)), s2);
    assert_eq!(exact(fp::sqrt_f32(b32(2.0) as u32, Rnd::Rm, NONE)), s2);
    assert_eq!(exact(fp::sqrt_f32(b32(2.0) as u32, Rnd::Rp, NONE)), s2 + 1);
}

/// rcp's table (L8447-8469, given for rcp.approx) also holds for `rcp.rnd`: 1/±Inf = ±0,
/// 1/±0 = ±Inf, NaN → NaN.
#[test]
fn rcp_special_values_l8447() {
    for rnd in MODES {
        for (a, want) in [
            (0xff80_0000u32, 0x8000_0000u32),
            (0x8000_0000, 0xff80_0000),
            (0, 0x7f80_0000),
            (0x7f80_0000, 0),
        ] {
            assert_eq!(exact(fp::rcp_f32(a, rnd, NONE)), want as u128, "{a:#x}");
            // The same in f64: the sign bit moves to bit 63, Inf's exponent widens.
            let wide = |x: u32| {
                ((x as u64 & 0x8000_0000) << 32) | if x & 0x7fff_ffff != 0 { 0x7ff0_0000_0000_0000 } else { 0 }
            };
            assert_eq!(exact(fp::rcp_f64(wide(a), rnd)), wide(want) as u128);
        }
        assert!(F32.is_nan(fp::rcp_f32(0x7fc0_0000, rnd, NONE).model));
    }
    // 1/3 in every mode: 0x3eaaaaab (.rn, .rp) and 0x3eaaaaaa (.rz, .rm); −1/3 mirrored.
    assert_eq!(exact(fp::rcp_f32(b32(3.0) as u32, Rnd::Rn, NONE)), 0x3eaa_aaab);
    assert_eq!(exact(fp::rcp_f32(b32(3.0) as u32, Rnd::Rz, NONE)), 0x3eaa_aaaa);
    assert_eq!(exact(fp::rcp_f32(b32(3.0) as u32, Rnd::Rm, NONE)), 0x3eaa_aaaa);
    assert_eq!(exact(fp::rcp_f32(b32(3.0) as u32, Rnd::Rp, NONE)), 0x3eaa_aaab);
    assert_eq!(exact(fp::rcp_f32(b32(-3.0) as u32, Rnd::Rm, NONE)), 0xbeaa_aaab);
    assert_eq!(exact(fp::rcp_f64(b64(3.0) as u64, Rnd::Rz)), 0x3fd5_5555_5555_5555);
    assert_eq!(exact(fp::rcp_f64(b64(3.0) as u64, Rnd::Rp)), 0x3fd5_5555_5555_5556);
}

// ---------------------------------------------------------------------------------------------
// min, max

const MM: MinMax = MinMax {
    nan: false,
    xorsign_abs: false,
};
const MM_NAN: MinMax = MinMax {
    nan: true,
    xorsign_abs: false,
};
const MM_XS: MinMax = MinMax {
    nan: false,
    xorsign_abs: true,
};

/// The cases of min/max (L8243-8418, pseudocode L8270-8284 and L8358-8372), written out.
#[test]
fn min_max_by_hand() {
    let (one, two, three) = (0x3f80_0000u32, 0x4000_0000u32, 0x4040_0000u32);
    let (m2, m3) = (0xc000_0000u32, 0xc040_0000u32);
    let (qnan, nqnan) = (0x7fc0_0000u32, 0xffc0_0000u32);
    // "+0.0 > -0.0" (L8302, L8390), in both operand orders.
    for (a, b) in [(0, 0x8000_0000), (0x8000_0000, 0)] {
        assert_eq!(exact(fp::min_f32(a, b, MM, NONE)), 0x8000_0000);
        assert_eq!(exact(fp::max_f32(a, b, MM, NONE)), 0);
        assert_eq!(
            exact(fp::min_f64((a as u64) << 32, (b as u64) << 32)),
            0x8000_0000_0000_0000
        );
        assert_eq!(exact(fp::max_f64((a as u64) << 32, (b as u64) << 32)), 0);
    }
    // One NaN: the number (L8279-8280); both NaN: a NaN (L8277), any for f32.
    assert_eq!(exact(fp::min_f32(qnan, two, MM, NONE)), two as u128);
    assert_eq!(exact(fp::max_f32(m2, nqnan, MM, NONE)), m2 as u128);
    assert_eq!(exact(fp::max_f32(0x7f80_0001, 0xff80_0000, MM, NONE)), 0xff80_0000);
    let o = fp::min_f32(qnan, 0x7f80_0001, MM, NONE);
    assert!(o.model == 0x7fff_ffff && o.accepts(0x7fc0_0000) && !o.accepts(two as u128));
    // f64 keeps a payload: either NaN's, quieted (L7141).
    let o = fp::max_f64(0x7ff0_0000_0000_0005, 0xfff8_0000_0000_0007);
    assert!(o.model == 0x7ff8_0000_0000_0005 && o.accepts(0xfff8_0000_0000_0007) && !o.accepts(0x7fff_ffff_ffff_ffff));
    assert_eq!(
        exact(fp::min_f64(0x7ff8_0000_0000_0000, 0xbff0_0000_0000_0000)),
        0xbff0_0000_0000_0000
    );
    // .NaN: the canonical NaN when either input is NaN (L8258), both NaN included.
    assert_eq!(exact(fp::min_f32(qnan, one, MM_NAN, NONE)), 0x7fff_ffff);
    assert_eq!(exact(fp::max_f32(one, 0xff80_0001, MM_NAN, NONE)), 0x7fff_ffff);
    assert_eq!(exact(fp::max_f32(qnan, nqnan, MM_NAN, NONE)), 0x7fff_ffff);
    assert_eq!(exact(fp::min_f32(one, m2, MM_NAN, NONE)), m2 as u128);
    // .xorsign.abs: |d| is the min/max of |a|, |b| (L8260), its sign the XOR of the inputs'
    // signs taken before .abs (L8262, L8264).
    assert_eq!(exact(fp::min_f32(m2, three, MM_XS, NONE)), m2 as u128); // −|2|
    assert_eq!(exact(fp::max_f32(m2, three, MM_XS, NONE)), m3 as u128); // −|3|
    assert_eq!(exact(fp::min_f32(m2, m3, MM_XS, NONE)), two as u128); // + (signs cancel)
    assert_eq!(exact(fp::max_f32(m3, one, MM_XS, NONE)), m3 as u128);
    assert_eq!(exact(fp::min_f32(0x8000_0000, one, MM_XS, NONE)), 0x8000_0000); // −|0|
                                                                                // A NaN input with a number: d = the number, whose sign is still the XOR, the NaN's sign
                                                                                // bit included (the pseudocode reads getSignBit(a) before the NaN tests).
    assert_eq!(exact(fp::min_f32(qnan, m3, MM_XS, NONE)), m3 as u128);
    assert_eq!(exact(fp::min_f32(nqnan, m3, MM_XS, NONE)), three as u128);
    // A NaN result ignores .xorsign.abs (L8266).
    let both = MinMax {
        nan: true,
        xorsign_abs: true,
    };
    assert_eq!(exact(fp::max_f32(nqnan, m3, both, NONE)), 0x7fff_ffff);
    assert!(F32.is_nan(fp::min_f32(nqnan, 0xff80_0001, MM_XS, NONE).model));
    // .ftz flushes the inputs (L8294): max(2^-149, −0) is 2^-149, or +0 after the flush.
    assert_eq!(exact(fp::max_f32(1, 0x8000_0000, MM, NONE)), 1);
    assert_eq!(exact(fp::max_f32(1, 0x8000_0000, MM, FTZ)), 0);
    assert_eq!(exact(fp::min_f32(0x8000_0001, 0, MM, FTZ)), 0x8000_0000);
    // Infinities are numbers.
    assert_eq!(exact(fp::min_f32(0xff80_0000, m3, MM, NONE)), 0xff80_0000);
    assert_eq!(
        exact(fp::max_f64(0x7ff0_0000_0000_0000, 0x7fef_ffff_ffff_ffff)),
        0x7ff0_0000_0000_0000
    );
    // Through the dispatch: the forms' modifiers decode to the same.
    assert_eq!(exact(run("min.ftz.NaN.xorsign.abs.f32", &[m2 as u128, 0x8000_0001])), 0);
    assert_eq!(exact(run("max.NaN.xorsign.abs.f32", &[nqnan as u128, 1])), 0x7fff_ffff);
    assert_eq!(exact(run("max.xorsign.abs.f32", &[m2 as u128, 1])), m2 as u128);
}

/// Non-NaN min/max against `total_cmp`, an independent total order in which −0 < +0.
#[test]
fn min_max_follow_the_total_order() {
    let mut r = Rng(0x313);
    for _ in 0..N {
        let [a, b, _] = operands(FF32, Op::Add, &mut r).map(|v| v as u32);
        let (x, y) = (f32::from_bits(a), f32::from_bits(b));
        if x.is_nan() || y.is_nan() {
            continue;
        }
        let (lo, hi) = if x.total_cmp(&y).is_le() { (x, y) } else { (y, x) };
        assert_eq!(exact(fp::min_f32(a, b, MM, NONE)), b32(lo), "{a:#x} {b:#x}");
        assert_eq!(exact(fp::max_f32(a, b, MM, NONE)), b32(hi), "{a:#x} {b:#x}");
        let (ax, ay) = (x.abs(), y.abs());
        let sign = (a ^ b) & 0x8000_0000;
        let (lo, hi) = if ax.total_cmp(&ay).is_le() { (ax, ay) } else { (ay, ax) };
        assert_eq!(exact(fp::min_f32(a, b, MM_XS, NONE)), (lo.to_bits() | sign) as u128);
        assert_eq!(exact(fp::max_f32(a, b, MM_XS, NONE)), (hi.to_bits() | sign) as u128);
        let [a, b, _] = operands(FF64, Op::Add, &mut r);
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        if x.is_nan() || y.is_nan() {
            continue;
        }
        let (lo, hi) = if x.total_cmp(&y).is_le() { (x, y) } else { (y, x) };
        assert_eq!(exact(fp::min_f64(a, b)), b64(lo), "{a:#x} {b:#x}");
        assert_eq!(exact(fp::max_f64(a, b)), b64(hi), "{a:#x} {b:#x}");
    }
}

// ---------------------------------------------------------------------------------------------
// testp, copysign, abs, neg

/// Every class against every `testp` operator (L7443-7472), f32 and f64; zeros are "normal".
#[test]
fn testp_every_class() {
    use TestOp::*;
    // (f32 bits, f64 bits, finite, infinite, number, notanumber, normal, subnormal)
    let cases: [(u32, u64, [bool; 6]); 12] = [
        (0, 0, [true, false, true, false, true, false]),
        (0x8000_0000, 1 << 63, [true, false, true, false, true, false]),
        (1, 1, [true, false, true, false, false, true]),
        (
            0x807f_ffff,
            0x800f_ffff_ffff_ffff,
            [true, false, true, false, false, true],
        ),
        (
            0x0080_0000,
            0x0010_0000_0000_0000,
            [true, false, true, false, true, false],
        ),
        (
            0xbf80_0000,
            0xbff0_0000_0000_0000,
            [true, false, true, false, true, false],
        ),
        (
            0x7f7f_ffff,
            0x7fef_ffff_ffff_ffff,
            [true, false, true, false, true, false],
        ),
        (
            0x7f80_0000,
            0x7ff0_0000_0000_0000,
            [false, true, true, false, false, false],
        ),
        (
            0xff80_0000,
            0xfff0_0000_0000_0000,
            [false, true, true, false, false, false],
        ),
        (
            0x7fc0_0000,
            0x7ff8_0000_0000_0000,
            [false, false, false, true, false, false],
        ),
        (
            0x7f80_0001,
            0x7ff0_0000_0000_0001,
            [false, false, false, true, false, false],
        ),
        (
            0xffff_ffff,
            0xffff_ffff_ffff_ffff,
            [false, false, false, true, false, false],
        ),
    ];
    let names = ["finite", "infinite", "number", "notanumber", "normal", "subnormal"];
    for (a32, a64, want) in cases {
        for (i, op) in [Finite, Infinite, Number, NotANumber, Normal, Subnormal]
            .into_iter()
            .enumerate()
        {
            assert_eq!(fp::testp_f32(op, a32), want[i], "{op:?} {a32:#x}");
            assert_eq!(fp::testp_f64(op, a64), want[i], "{op:?} {a64:#x}");
            assert_eq!(
                exact(run(&format!("testp.{}.f32", names[i]), &[a32 as u128])),
                want[i] as u128
            );
            assert_eq!(
                exact(run(&format!("testp.{}.f64", names[i]), &[a64 as u128])),
                want[i] as u128
            );
        }
    }
    // The manual's examples (L7484-7485): `testp.notanumber.f32 isnan, f0;`,
    // `testp.infinite.f64 p, X;`.
    assert_eq!(ev("testp.notanumber.f32 nan"), "1");
    assert_eq!(ev("testp.infinite.f64 -inf"), "1");
    assert_eq!(ev("testp.infinite.f64 1.0"), "0");
}

/// copysign: `b` with `a`'s sign bit (L7501).
#[test]
fn copysign_by_hand() {
    assert_eq!(exact(fp::copysign_f32(0xbf80_0000, 0x4000_0000)), 0xc000_0000);
    assert_eq!(exact(fp::copysign_f32(0, 0xff80_0000)), 0x7f80_0000);
    assert_eq!(exact(fp::copysign_f32(0x8000_0000, 1)), 0x8000_0001);
    // A NaN `a` lends only its sign bit.
    assert_eq!(exact(fp::copysign_f32(0xffc0_0000, 0x3f80_0000)), 0xbf80_0000);
    // A NaN `b`: unspecified for f32, payload kept for f64 (quieted also accepted).
    assert!(F32.is_nan(fp::copysign_f32(0x8000_0000, 0x7f80_0001).model));
    let o = fp::copysign_f64(0xbff0_0000_0000_0000, 0x7ff0_0000_0000_0001);
    assert!(o.model == 0xfff0_0000_0000_0001 && o.accepts(0xfff8_0000_0000_0001) && !o.accepts(0x7ff0_0000_0000_0001));
    assert_eq!(
        exact(fp::copysign_f64(0x8000_0000_0000_0000, 0x7ff8_0000_0000_0000)),
        0xfff8_0000_0000_0000
    );
    assert_eq!(
        exact(fp::copysign_f64(0x7ff8_0000_0000_0000, 0xc000_0000_0000_0000)),
        0x4000_0000_0000_0000
    );
    // The manual's examples (L7513-7514) through the text front end.
    assert_eq!(ev("copysign.f32 -1.0 2.0"), "0xc0000000");
    assert_eq!(ev("copysign.f64 1.0 -inf"), "0x7ff0000000000000");
}

/// abs and neg: the sign bit, after `.ftz` (L8158-8176, L8209-8227).
#[test]
fn abs_neg_by_hand() {
    assert_eq!(exact(fp::abs_f32(0xc000_0000, NONE)), 0x4000_0000);
    assert_eq!(exact(fp::abs_f32(0x8000_0000, NONE)), 0);
    assert_eq!(exact(fp::abs_f32(0x8000_0001, NONE)), 1);
    assert_eq!(exact(fp::abs_f32(0x8000_0001, FTZ)), 0);
    assert_eq!(exact(fp::abs_f32(0xff80_0000, FTZ)), 0x7f80_0000);
    assert_eq!(
        fp::abs_f32(0xffc0_0000, NONE),
        Outcome::any_nan(spec::types::FloatFormat::F32)
    );
    assert_eq!(exact(fp::neg_f32(0, NONE)), 0x8000_0000);
    assert_eq!(exact(fp::neg_f32(1, NONE)), 0x8000_0001);
    assert_eq!(exact(fp::neg_f32(1, FTZ)), 0x8000_0000);
    assert_eq!(exact(fp::neg_f32(0x807f_ffff, FTZ)), 0);
    assert!(F32.is_nan(fp::neg_f32(0x7fc0_0000, NONE).model));
    // abs.f64 passes a NaN through unchanged (L8176), the sign-cleared one accepted too.
    let o = fp::abs_f64(0xfff0_0000_0000_0001);
    assert!(o.model == 0xfff0_0000_0000_0001 && o.accepts(0x7ff0_0000_0000_0001) && !o.accepts(0x7ff8_0000_0000_0001));
    assert_eq!(exact(fp::abs_f64(0x7ff4_0000_0000_0000)), 0x7ff4_0000_0000_0000);
    assert_eq!(exact(fp::abs_f64(0x8000_0000_0000_0001)), 1);
    // neg.f64 of a NaN: unspecified (L8227).
    let o = fp::neg_f64(0x7ff8_0000_0000_0001);
    assert!(o.accepts(0x7ff8_0000_0000_0001) && o.accepts(0xfff8_0000_0000_0001) && !o.accepts(0));
    assert_eq!(exact(fp::neg_f64(0x3ff0_0000_0000_0000)), 0xbff0_0000_0000_0000);
    // The manual's examples (L8190, L8241): `abs.ftz.f32 x,f0;`, `neg.ftz.f32 x,f0;`.
    assert_eq!(ev("abs.ftz.f32 -1.5"), "0x3fc00000");
    assert_eq!(ev("neg.ftz.f32 0x00000001"), "0x80000000");
}

// ---------------------------------------------------------------------------------------------
// .f32x2

/// Lane 0 is bits [31:0], lane 1 bits [63:32] (L7543-7546), each computed on its own.
#[test]
fn f32x2_lanes_are_independent() {
    let pack = |lo: u32, hi: u32| (hi as u64) << 32 | lo as u64;
    // A NaN in one lane leaves the other exact.
    let o = fp::add_f32x2(
        pack(0x3f80_0000, 0x7fc0_0000),
        pack(0x4000_0000, 0x4040_0000),
        Rnd::Rn,
        NONE,
    );
    assert_eq!(o.model, 0x7fff_ffff_4040_0000);
    assert!(o.accepts(0x7fc0_0000_4040_0000) && o.accepts(0xffff_ffff_4040_0000));
    assert!(!o.accepts(0x7fc0_0000_4040_0001) && !o.accepts(0x4040_0000_4040_0000));
    // Different modes of rounding in one lane do not leak: 1 + 2^-30 in lane 1 only.
    let o = fp::add_f32x2(pack(0x3f80_0000, 0x3f80_0000), pack(0, 0x3080_0000), Rnd::Rp, NONE);
    assert_eq!(exact(o), pack(0x3f80_0000, 0x3f80_0001) as u128);
    let o = fp::fma_f32x2(
        pack(0x4000_0000, 0x3f80_0000),
        pack(0x4040_0000, 0xbf80_0000),
        pack(1, 0x3f80_0000),
        Rnd::Rn,
        FTZ,
    );
    assert_eq!(exact(o), pack(0x40c0_0000, 0) as u128);
    // Random lanes against the scalar semantics.
    let mut r = Rng(0x2);
    for _ in 0..N / 10 {
        let [a, b, c] = [0; 3].map(|_| {
            pack(
                operands(FF32, Op::Fma, &mut r)[0] as u32,
                operands(FF32, Op::Fma, &mut r)[1] as u32,
            )
        });
        for rnd in MODES {
            for mods in [NONE, FTZ] {
                let lanes = |f: &dyn Fn(u32, u32, u32) -> Outcome| {
                    let (lo, hi) = (
                        f(a as u32, b as u32, c as u32),
                        f((a >> 32) as u32, (b >> 32) as u32, (c >> 32) as u32),
                    );
                    (lo, hi)
                };
                for (got, (lo, hi)) in [
                    (
                        fp::add_f32x2(a, b, rnd, mods),
                        lanes(&|x, y, _| fp::add_f32(x, y, rnd, mods)),
                    ),
                    (
                        fp::sub_f32x2(a, b, rnd, mods),
                        lanes(&|x, y, _| fp::sub_f32(x, y, rnd, mods)),
                    ),
                    (
                        fp::mul_f32x2(a, b, rnd, mods),
                        lanes(&|x, y, _| fp::mul_f32(x, y, rnd, mods)),
                    ),
                    (
                        fp::fma_f32x2(a, b, c, rnd, mods),
                        lanes(&|x, y, z| fp::fma_f32(x, y, z, rnd, mods)),
                    ),
                ] {
                    assert_eq!(got.model, hi.model << 32 | lo.model);
                    assert!(got.accepts(0x7fc0_0000 << 32 | lo.model) == F32.is_nan(hi.model));
                    assert!(got.accepts(hi.model << 32 | 0xffc0_0000) == F32.is_nan(lo.model));
                }
            }
        }
    }
    // The manual's examples (L7621, L7940): `add.rp.ftz.f32x2 d, a, b;`,
    // `fma.rp.ftz.f32x2 p,q,r,s;`.
    assert_eq!(
        ev("add.rp.ftz.f32x2 0x3f8000003f800000 0x3080000000000001"),
        "0x3f8000013f800000"
    );
    assert_eq!(
        ev("fma.rp.ftz.f32x2 0x4000000040000000 0x4000000040400000 0x3f80000000000000"),
        "0x40a0000040c00000"
    );
}

// ---------------------------------------------------------------------------------------------
// mad

/// The sm_1x `mad.f32` (L7950, L7976): modelled as `fma.rn.ftz.f32`, the truncated-product
/// result accepted too.
#[test]
fn mad_sm1x() {
    // (1 + 2^-12)² = 1 + 2^-11 + 2^-24. Truncated to 24 bits: 1 + 2^-11. Plus c = 2^-24:
    // sm_1x rounds 1 + 2^-11 + 2^-24, a tie, to the even 1 + 2^-11 (0x3f801000); the fma
    // rounds 1 + 2^-11 + 2^-23, exact: 0x3f801001.
    let (a, c) = (0x3f80_0800u32, 0x3380_0000u32);
    assert_eq!(fp::mad_f32_sm1x_truncated(a, a, c), 0x3f80_1000);
    let o = fp::mad_f32_sm1x(a, a, c, NONE);
    assert_eq!(o.model, 0x3f80_1001);
    assert!(o.accepts(0x3f80_1000) && !o.accepts(0x3f80_1002));
    assert_eq!(run("mad.f32", &[a as u128, a as u128, c as u128]), o);
    // For c = ±0 it is mul then add (L7976): both give RN(a × b).
    assert_eq!(exact(fp::mad_f32_sm1x(a, a, 0, NONE)), 0x3f80_1000);
    assert_eq!(fp::mad_f32_sm1x_truncated(a, a, 0x8000_0000), 0x3f80_1000);
    // The exponent is preserved: 2^100 × 2^100 − 2^127 overflows either way (+Inf under .rn),
    // and (2^-100 × 2^-100) + 2^-126 is 2^-126 + 2^-200, 2^-126 after rounding.
    assert_eq!(
        exact(fp::mad_f32_sm1x(0x7180_0000, 0x7180_0000, 0xff00_0000, NONE)),
        0x7f80_0000
    );
    assert_eq!(
        exact(fp::mad_f32_sm1x(0x0d80_0000, 0x0d80_0000, 0x0080_0000, NONE)),
        0x0080_0000
    );
    // Subnormals are flushed with or without .ftz, on sm_1x and in fma.rn.ftz alike.
    assert_eq!(exact(run("mad.f32", &[0x0080_0000, 0x3f00_0000, 0])), 0);
    assert_eq!(exact(run("mad.f32", &[1, 0x3f80_0000, 0x3f80_0000])), 0x3f80_0000);
    // .sat applies to both.
    assert_eq!(exact(run("mad.sat.f32", &[b32(2.0), b32(2.0), b32(-1.0)])), b32(1.0));
    // The products differ in the low bits: a random check that the model is the fma and the
    // truncated result is within one ulp of it.
    let mut r = Rng(0x3ad);
    for _ in 0..N / 10 {
        let [a, b, c] = operands(FF32, Op::Fma, &mut r).map(|v| v as u32);
        let o = fp::mad_f32_sm1x(a, b, c, NONE);
        assert_eq!(o.model, fp::fma_f32(a, b, c, Rnd::Rn, FTZ).model);
        let t = fp::mad_f32_sm1x_truncated(a, b, c) as u128;
        assert!(
            o.accepts(t) || (F32.is_nan(t) && F32.is_nan(o.model)),
            "{a:#x} {b:#x} {c:#x}"
        );
    }
    // mad.rnd is fma (L7972).
    assert_eq!(
        run("mad.rz.ftz.f32", &[b32(1.1), b32(3.3), 1]),
        run("fma.rz.ftz.f32", &[b32(1.1), b32(3.3), 1])
    );
    assert_eq!(
        run("mad.rp.f64", &[b64(0.1), b64(0.3), 5]),
        run("fma.rp.f64", &[b64(0.1), b64(0.3), 5])
    );
}

// ---------------------------------------------------------------------------------------------
// The manual's examples, through the text front end

#[test]
fn manual_examples() {
    // L7620 `@p add.rz.ftz.f32 f1,f2,f3;`: 1 + 2^-24 is a tie; .rz truncates it.
    assert_eq!(ev("add.rz.ftz.f32 1.0 0x33800000"), "0x3f800000");
    assert_eq!(ev("add.rz.f32 0x3f800000 1.5"), "0x40200000");
    // L7727-7728 `sub.f32 c,a,b;`, `sub.rn.ftz.f32 f1,f2,f3;`.
    assert_eq!(ev("sub.f32 1.0 0.25"), "0x3f400000");
    assert_eq!(ev("sub.rn.ftz.f32 0x00800001 0x00800000"), "0x00000000");
    // L7836 `mul.ftz.f32 circumf,radius,pi`: 2 × π (0x40490fdb) doubles exactly.
    assert_eq!(ev("mul.ftz.f32 2.0 0x40490fdb"), "0x40c90fdb");
    // L7938-7939 `fma.rn.ftz.f32 w,x,y,z;`, `@p fma.rn.f64 d,a,b,c;`.
    assert_eq!(ev("fma.rn.ftz.f32 2.0 3.0 1.0"), "0x40e00000");
    // RN(0.1) = 0.1 + 2^-54/10, so RN(0.1) × 10 − 1 = 2^-54 exactly, which the fma keeps.
    assert_eq!(ev("fma.rn.f64 0.1 10.0 -1.0"), "0x3c90000000000000");
    // L8046 `@p mad.f32 d,a,b,c;`.
    assert_eq!(ev("mad.f32 2.0 3.0 1.0"), "0x40e00000");
    // L8137-8139: `div.rn.f64 xd, yd, zd;` (div.approx/.full are not bit-exact).
    assert_eq!(ev("div.rn.f64 1.0 3.0"), "0x3fd5555555555555");
    assert_eq!(ev("div.rz.f32 2.0 3.0"), "0x3f2aaaaa");
    // L8324-8329, L8412-8417: min/max examples.
    assert_eq!(ev("min.ftz.f32 0x00000001 -0.0"), "0x80000000");
    assert_eq!(ev("min.f64 -0.0 0.0"), "0x8000000000000000");
    assert_eq!(ev("min.NaN.f32 nan 1.0"), "0x7fffffff");
    assert_eq!(ev("min.xorsign.abs.f32 -2.0 3.0"), "0xc0000000");
    assert_eq!(ev("max.ftz.f32 1.0 nan"), "0x3f800000");
    assert_eq!(ev("max.f64 1.0 2.0"), "0x4000000000000000");
    assert_eq!(ev("max.NaN.f32 1.0 nan"), "0x7fffffff");
    assert_eq!(ev("max.xorsign.abs.f32 -2.0 3.0"), "0xc0400000");
    // L8526-8527 `rcp.rn.ftz.f32 xi,x;`, `rcp.rn.f64 xi,x;`.
    assert_eq!(ev("rcp.rn.ftz.f32 4.0"), "0x3e800000");
    assert_eq!(ev("rcp.rn.f64 -0.0"), "0xfff0000000000000");
    // L8720-8721 `sqrt.rn.ftz.f32 r,x;`, `sqrt.rn.f64 r,x;`.
    assert_eq!(ev("sqrt.rn.ftz.f32 0x00000004"), "0x00000000");
    assert_eq!(ev("sqrt.rn.f64 2.0"), "0x3ff6a09e667f3bcd");
    // NaN tags.
    assert_eq!(ev("add.f32 nan 1.0"), "0x7fffffff nan");
    assert_eq!(
        ev("add.f64 0x7ff0000000000001 1.0"),
        "0x7ff8000000000001 oneof:0x7ff8000000000001,0xfff8000000000001"
    );
}

// ---------------------------------------------------------------------------------------------
// Every form of the section

fn is_mine(f: &Form) -> bool {
    f.section.starts_with("9.7.3.") && (f.class == Class::BitExact || (f.opcode == "mad" && f.flag("deprecated")))
}

/// Values that exercise every branch: zeros, subnormals, the normal limits, infinities, NaNs,
/// 1.0 and its neighbours, a tie with 1.0.
const HARD32: [u32; 18] = [
    0,
    0x8000_0000,
    1,
    0x807f_ffff,
    0x0080_0000,
    0x8080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x7f80_0001,
    0xffff_ffff,
    0x3f80_0000,
    0x3f80_0001,
    0x3380_0000,
    0x3f7f_ffff,
    0xbf80_0000,
];
const HARD64: [u64; 18] = [
    0,
    1 << 63,
    1,
    0x800f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x8010_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0xffef_ffff_ffff_ffff,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff0_0000_0000_0001,
    0xffff_ffff_ffff_ffff,
    0x3ff0_0000_0000_0000,
    0x3ff0_0000_0000_0001,
    0x3ca0_0000_0000_0000,
    0x3fef_ffff_ffff_ffff,
    0xbff0_0000_0000_0000,
];

#[test]
fn every_form_has_semantics() {
    let mut count = 0;
    for f in &catalog().forms {
        if !f.section.starts_with("9.7.3.") {
            continue;
        }
        assert_eq!(fp::semantics(f).is_some(), is_mine(f), "{}", f.name);
        if !is_mine(f) {
            continue;
        }
        count += 1;
        assert!(semantics(f).is_some(), "{}", f.name);
        let width = f.inputs[0].ty.bits();
        let value = |i: usize| -> u128 {
            match width {
                32 => HARD32[i % 18] as u128,
                64 if f.inputs[0].ty.lanes == 2 => (HARD32[i % 18] as u128) << 32 | HARD32[(i / 18 + 7) % 18] as u128,
                _ => HARD64[i % 18] as u128,
            }
        };
        let n = f.inputs.len();
        let sets: Vec<Vec<u128>> = match n {
            1 => (0..18).map(|i| vec![value(i)]).collect(),
            2 => (0..18 * 18)
                .map(|i| vec![value(i % 18), value(i / 18 + 18 * (i % 3))])
                .collect(),
            _ => (0..200)
                .map(|i| vec![value(i * 7), value(i * 13 + 5), value(i * 3 + 11)])
                .collect(),
        };
        for ins in sets {
            let out = common::eval_bits(f, &ins);
            assert_eq!(out.len(), f.outputs.len(), "{}", f.name);
            for (o, d) in out.iter().zip(&f.outputs) {
                assert!(o.accepts(o.model), "{} {ins:x?}", f.name);
                assert!(
                    o.model <= d.ty.mask(),
                    "{} {ins:x?}: {:#x} wider than .{}",
                    f.name,
                    o.model,
                    d.ty
                );
            }
        }
    }
    // testp 6 × 2, copysign 2; add, sub, mul 35 each (f32 4 + 8 + 8, f32x2 2 + 8, f64 1 + 4);
    // fma 16 + 8 + 4; mad 4 (sm_1x) + 16 + 4; div 8 + 4; abs 3; neg 3; min, max 9 each
    // (2 + 2 + 4 + 1); rcp 8 + 4; sqrt 8 + 4.
    assert_eq!(count, 12 + 2 + 3 * 35 + 28 + 24 + 12 + 3 + 3 + 2 * 9 + 12 + 12);
}

/// Unrounded add/sub/mul (`contract`, L7572) evaluate as their `.rn` spelling.
#[test]
fn unrounded_forms_are_rn() {
    let mut r = Rng(0xc0);
    for f in catalog()
        .forms
        .iter()
        .filter(|f| is_mine(f) && f.flag("contract") && f.opcode != "mad")
    {
        let rn = form(&f.name.replacen('.', ".rn.", 1));
        for _ in 0..200 {
            let ins: Vec<Input> = f
                .inputs
                .iter()
                .map(|o| {
                    let v = if o.ty.bits() == 32 {
                        operands(FF32, Op::Add, &mut r)[0] & 0xffff_ffff
                    } else {
                        operands(FF64, Op::Add, &mut r)[0]
                    };
                    Input::bits(v as u128)
                })
                .collect();
            let args = Args { ins: &ins, dsel: None };
            assert_eq!(eval(f, &args).unwrap(), eval(rn, &args).unwrap(), "{}", f.name);
        }
    }
}

/// The NaN rule the functions apply is the one the catalog rows state: `nan-unspec` on every
/// `.f32`/`.f32x2` row and on `neg.f64` (L8227), payloads kept on the other `.f64` rows.
#[test]
fn nan_rules_match_the_catalog() {
    for f in catalog().forms.iter().filter(|f| is_mine(f) && f.opcode != "testp") {
        let single = f.inputs[0].ty.lane_bits == 32;
        assert_eq!(f.flag("nan-unspec"), single || f.opcode == "neg", "{}", f.name);
        // And the functions do so: a NaN input to an f64 form other than neg keeps its payload.
        let nan = match (single, f.inputs[0].ty.lanes) {
            (true, 1) => 0x7f80_0001u128,
            (true, _) => 0x7f80_0001_7f80_0001,
            _ => 0x7ff0_0000_0000_0001,
        };
        let ins: Vec<Input> = f.inputs.iter().map(|_| Input::bits(nan)).collect();
        let o = eval(f, &Args { ins: &ins, dsel: None }).unwrap().remove(0);
        if f.has("sat") {
            assert_eq!(o.model, 0, "{}", f.name);
        } else if f.has("NaN") {
            assert_eq!(exact(o), 0x7fff_ffff, "{}", f.name); // the canonical NaN (L8258)
        } else if f.flag("nan-unspec") {
            assert!(
                o.accepts(0x7fc0_0000) || o.accepts(0x7ff8_0000_0000_0000) || o.accepts(0x7fc0_0000_7fc0_0000),
                "{}",
                f.name
            );
        } else if f.opcode == "copysign" || f.opcode == "abs" {
            assert_eq!(o.model, nan, "{}", f.name);
        } else {
            assert_eq!(nan_either_sign(o), nan | 1 << 51, "{}", f.name);
        }
    }
}
