//! The spec's f32 and f64 `add mul fma div sqrt` in `.rn` and `.rz` against Berkeley SoftFloat 3
//! (through softfloat-wrapper), on the same pre-generated operands, in one run:
//!
//! ```text
//! cargo bench -p ptxconf-spec --bench softfloat
//! ```
//!
//! Two operand mixes, from a fixed seed: `normal` — normal numbers whose exponents keep results
//! in the normal range (unbiased exponents within ±bias/2), random signs (positive for sqrt) —
//! and `10%spec` — the same with each operand replaced, with probability 1/10, by a special or
//! subnormal value (±0, a random subnormal, ±Inf, a NaN, ±MAX_NORM, ±MIN_NORM). The spec side
//! is the whole instruction semantics (`fp::add_f32(a, b, Rnd::Rz, Mods::default())`, result
//! rules included), not only the arithmetic. Each figure is the best of several timed passes.

#[path = "../tests/common/mod.rs"]
mod common;
use softfloat_wrapper::{Float, RoundingMode, F32, F64};
use spec::float::{Mods, Rnd};
use spec::fp;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Operand tuples per array: small enough to stay in cache, large enough to defeat branch
/// prediction of the operand pattern.
const LEN: usize = 1 << 14;
const PASSES: usize = 5;
const PASS_TIME: Duration = Duration::from_millis(25);

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        common::splitmix64(&mut self.0)
    }
}

/// (mantissa bits, exponent bits) of f32 and f64.
#[derive(Clone, Copy)]
struct Layout(u32, u32);

const L32: Layout = Layout(23, 8);
const L64: Layout = Layout(52, 11);

impl Layout {
    fn bias(self) -> u64 {
        (1 << (self.1 - 1)) - 1
    }
    fn normal(self, r: &mut Rng, positive: bool) -> u64 {
        let b = self.bias();
        let e = b / 2 + r.next() % (b + 1); // biased, unbiased within ±bias/2
        let m = r.next() & ((1 << self.0) - 1);
        let s = if positive { 0 } else { r.next() & 1 };
        s << (self.0 + self.1) | e << self.0 | m
    }
    fn special(self, r: &mut Rng) -> u64 {
        let man = (1u64 << self.0) - 1;
        let inf = ((1u64 << self.1) - 1) << self.0;
        let v = match r.next() % 6 {
            0 => 0,
            1 => (r.next() & man).max(1),
            2 => inf,
            3 => inf | 1 << (self.0 - 1) | (r.next() & man),
            4 => inf - 1,
            _ => 1 << self.0,
        };
        (r.next() & 1) << (self.0 + self.1) | v
    }
    fn operand(self, r: &mut Rng, positive: bool, special_pct: u64) -> u64 {
        if r.next() % 100 < special_pct {
            self.special(r)
        } else {
            self.normal(r, positive)
        }
    }
}

fn operands(l: Layout, seed: u64, positive: bool, special_pct: u64) -> Vec<[u64; 3]> {
    let mut r = Rng(seed);
    (0..LEN)
        .map(|_| [0; 3].map(|_| l.operand(&mut r, positive, special_pct)))
        .collect()
}

/// Million operations per second of `spec` and of `soft` over `ops`: each the best of
/// [`PASSES`] passes of about [`PASS_TIME`], the two alternating so that both see the same
/// machine load.
fn mops(ops: &[[u64; 3]], spec: impl Fn(&[u64; 3]) -> u64, soft: impl Fn(&[u64; 3]) -> u64) -> (f64, f64) {
    let (r1, r2) = (calibrate(ops, &spec), calibrate(ops, &soft));
    let (mut b1, mut b2) = (Duration::MAX, Duration::MAX);
    for _ in 0..PASSES {
        let t = Instant::now();
        run(ops, &spec, r1);
        b1 = b1.min(t.elapsed());
        let t = Instant::now();
        run(ops, &soft, r2);
        b2 = b2.min(t.elapsed());
    }
    let rate = |reps: usize, d: Duration| (ops.len() * reps) as f64 / d.as_secs_f64() / 1e6;
    (rate(r1, b1), rate(r2, b2))
}

/// Repetitions of `ops` that take about [`PASS_TIME`].
fn calibrate(ops: &[[u64; 3]], f: &impl Fn(&[u64; 3]) -> u64) -> usize {
    let mut reps = 1;
    loop {
        let t = Instant::now();
        run(ops, f, reps);
        if t.elapsed() >= PASS_TIME / 4 {
            return reps * 4;
        }
        reps *= 2;
    }
}

fn run(ops: &[[u64; 3]], f: &impl Fn(&[u64; 3]) -> u64, reps: usize) {
    for _ in 0..reps {
        let mut acc = 0u64;
        for x in black_box(ops) {
            acc ^= black_box(f(x));
        }
        black_box(acc);
    }
}

fn sf_mode(rnd: Rnd) -> RoundingMode {
    match rnd {
        Rnd::Rz => RoundingMode::TowardZero,
        _ => RoundingMode::TiesToEven,
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is not supported, the run is short.
    let mix = [("normal", 0u64), ("10%spec", 10)];
    let m = Mods::default();
    println!(
        "{:<5} {:<4} {:<4} {:<8} {:>12} {:>16} {:>8}",
        "op", "mode", "fmt", "operands", "spec Mops/s", "SoftFloat Mops/s", "ratio"
    );
    let mut ratios = Vec::new();
    for op in ["add", "mul", "fma", "div", "sqrt"] {
        for rnd in [Rnd::Rn, Rnd::Rz] {
            let sm = sf_mode(rnd);
            for (mname, pct) in mix {
                for fmt in ["f32", "f64"] {
                    let layout = if fmt == "f32" { L32 } else { L64 };
                    let ops = operands(layout, 0x0b5e_55ed ^ op.len() as u64, op == "sqrt", pct);
                    let (spec, soft) = if fmt == "f32" {
                        let s = |x: u64| x as u32;
                        let f32s = |x: u64| F32::from_bits(x as u32);
                        match op {
                            "add" => mops(
                                &ops,
                                |o| fp::add_f32(s(o[0]), s(o[1]), rnd, m).model as u64,
                                |o| f32s(o[0]).add(f32s(o[1]), sm).to_bits() as u64,
                            ),
                            "mul" => mops(
                                &ops,
                                |o| fp::mul_f32(s(o[0]), s(o[1]), rnd, m).model as u64,
                                |o| f32s(o[0]).mul(f32s(o[1]), sm).to_bits() as u64,
                            ),
                            "fma" => mops(
                                &ops,
                                |o| fp::fma_f32(s(o[0]), s(o[1]), s(o[2]), rnd, m).model as u64,
                                |o| f32s(o[0]).fused_mul_add(f32s(o[1]), f32s(o[2]), sm).to_bits() as u64,
                            ),
                            "div" => mops(
                                &ops,
                                |o| fp::div_f32(s(o[0]), s(o[1]), rnd, m).model as u64,
                                |o| f32s(o[0]).div(f32s(o[1]), sm).to_bits() as u64,
                            ),
                            _ => mops(
                                &ops,
                                |o| fp::sqrt_f32(s(o[0]), rnd, m).model as u64,
                                |o| f32s(o[0]).sqrt(sm).to_bits() as u64,
                            ),
                        }
                    } else {
                        let f64s = F64::from_bits;
                        match op {
                            "add" => mops(
                                &ops,
                                |o| fp::add_f64(o[0], o[1], rnd).model as u64,
                                |o| f64s(o[0]).add(f64s(o[1]), sm).to_bits(),
                            ),
                            "mul" => mops(
                                &ops,
                                |o| fp::mul_f64(o[0], o[1], rnd).model as u64,
                                |o| f64s(o[0]).mul(f64s(o[1]), sm).to_bits(),
                            ),
                            "fma" => mops(
                                &ops,
                                |o| fp::fma_f64(o[0], o[1], o[2], rnd).model as u64,
                                |o| f64s(o[0]).fused_mul_add(f64s(o[1]), f64s(o[2]), sm).to_bits(),
                            ),
                            "div" => mops(
                                &ops,
                                |o| fp::div_f64(o[0], o[1], rnd).model as u64,
                                |o| f64s(o[0]).div(f64s(o[1]), sm).to_bits(),
                            ),
                            _ => mops(
                                &ops,
                                |o| fp::sqrt_f64(o[0], rnd).model as u64,
                                |o| f64s(o[0]).sqrt(sm).to_bits(),
                            ),
                        }
                    };
                    let mode = if rnd == Rnd::Rz { "rz" } else { "rn" };
                    println!(
                        "{op:<5} {mode:<4} {fmt:<4} {mname:<8} {spec:>12.1} {soft:>16.1} {:>8.2}",
                        spec / soft
                    );
                    ratios.push(spec / soft);
                }
            }
        }
    }
    let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
    let min = ratios.iter().cloned().fold(f64::INFINITY, f64::min);
    println!("ratio spec/SoftFloat: geometric mean {geo:.2}, minimum {min:.2}");
}
