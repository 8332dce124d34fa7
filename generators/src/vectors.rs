//! Golden vectors: the operand sets of one catalog form and the spec's outcomes on them, the
//! content of `corpus/vectors/<family>/<form key>.vec.gz` (issue 5; the file format is
//! [`spec::vector`]'s, the files are written by `ptxconf::vectors`).
//!
//! # Operands
//!
//! Every source operand of the form becomes one or more *axes*: its bits; its negation (`!p` on a
//! predicate with `flags.not`, `-a` on a `vmad` operand with `flags.neg`); its video selector
//! (`flags.sel`); and, for forms whose destination takes a selector or mask, the destination
//! selector. Each axis has a full domain (for exhaustive enumeration), an ordered list of hard
//! cases (most important first) and a random generator:
//! - floats (`f16 bf16 f32 f64` and their packed forms): [`float::hard_cases`] of the lane format;
//!   packed lanes combine the lane hard cases (a special value beside 1.0 in either lane, then
//!   two different hard cases per register). Random operands come from [`FloatGen`]; two or three
//!   float operands of one format are drawn together ([`FloatGen::operands`]: nearby pairs, fma
//!   triples whose addend lies near the product), per lane for packed types. The narrow formats
//!   (e4m3, e2m1, ue8m0, ...) are enumerated: their hard list is the whole format.
//! - integers and bit strings: [`float::int_hard_cases`] and [`IntGen`]; shift amounts, bit
//!   positions and field lengths (`shl shr bfe bfi shf bmsk szext fns vshl vshr`) first take the
//!   values around 0, the data width, twice the width and 255 ([`amount_edges`]); `prmt.b32`'s
//!   selector sweeps all 65,536 selectors (four 4-bit selects, the "16b permute code" of L12107);
//!   `lop3`'s immediate sweeps all 256 LUTs with `a = 0xF0F0F0F0`, `b = 0xCCCCCCCC`,
//!   `c = 0xAAAAAAAA`, whose result is the LUT itself in every byte (L11196-11214); operands of forms with video
//!   selectors start with registers whose bytes are all different (so that every selector shows).
//! - predicates `0`/`1`, the carry flag `0`/`1`, negation both ways.
//! - selectors: every selector the form accepts. Which those are is found by evaluation: every
//!   candidate (`.b0`-`.b3`, `.h0`, `.h1`, and every `.hxy`/`.bxyzw`-style string of 2-4 digits)
//!   is tried with otherwise default operands and kept if the spec evaluates it without an
//!   [`spec::value::EvalError`]; so the accepted sets are the spec's, not a second copy here.
//!
//! Every source operand is written, except trailing optional ones the spec rejects: the scalar
//! video forms without a secondary operation take `c` only with a destination selector
//! (`vadd d.b0, a, b, c`, L30855-30859), so their `d, a, b` variant (no selector) leaves `c` out
//! (written `_` in the vector line).
//!
//! Operand combinations the spec still rejects (for example `vmad` negating both the product and
//! `c`, L31056) are skipped and counted ([`Generated::rejected`]); none appear in the vectors.
//!
//! # Counts
//!
//! A form is enumerated exhaustively when its whole operand space (including the predicate,
//! negation and selector choices) has at most [`Level::exhaustive_cap`] points: 2^16 at level 1 as
//! the issue asks. Otherwise the vectors are [`budget`] in number: first hard cases (sweeps of
//! the axes that must be covered in full, then the cross product of prefixes of every axis's hard
//! list, grown evenly while it fits half the budget), then seeded random operands; and, on top of
//! the budget, the float edge tuples of a form with two or more float sources (every ordered pair
//! or triple of ±0, ±∞ and a quiet NaN, per lane: [`crate::edges`]) that the hard cases did not
//! already hold.
//!
//! # Levels and budgets
//!
//! "Arity" is the number of source operands that are not predicates or immediates.
//!
//! | | arity 0-1 | arity 2 | arity ≥ 3 | exhaustive up to | hard share |
//! |---|---|---|---|---|---|
//! | [`Level::One`] | 600 | 46,464 | 46,464 | 2^16 operand sets | 1/2 |
//! | [`Level::Golden`] | 1,024 | 384 | 384 | 2^12 operand sets | 1/2, 3/4 from arity 2 |
//!
//! Level 1 is TestFloat's level-1 minimum (600 one-operand, 46,464 two-operand vectors); three
//! operands get 46,464 too: TestFloat's own three-operand level-1 run (`f32_mulAdd`) is larger
//! (its hard-case cube), but our three-operand forms are dominated by video instructions whose
//! selector sweeps and edge cubes come first anyway, and 46,464 keeps a full level-1 run of all
//! 7,801 forms around 330M vectors (≈ 2.5 GB of gzip, measured on a 1-in-25 sample); it is
//! generated on demand, not committed.
//!
//! Level golden is what `corpus/vectors/` holds; it must stay small enough for git (≈ 25 MB of
//! gzip, at most 40) and be judged on the oracle in under two minutes on two cores, so it has
//! about 470 vectors per form on average (3.6M, 22.4 MB). Most forms are comparisons (5,108
//! `set`/`setp` forms with one-bit results) and video instructions (1,024); a cross product of the
//! 17 most important values of each of two operands (289 of 384, then random) covers a
//! comparison's cases. The cheap cases stay exhaustive (operand spaces up to 4,096 points: the
//! 8-bit conversions, predicate logic). One-operand forms get more (1,024: the first 512 hard
//! cases of their format, i.e. every special value and a spread-out prefix of the rest, and 512
//! random): an error in a one-operand function hides in a single input. Sweeps that the issue
//! requires in full (`prmt.b32`'s 65,536 selectors, `lop3`'s 256 LUTs, every scalar and 2-way
//! video selector, every SIMD mask) come first and may exceed the budget.
//!
//! # Determinism
//!
//! Everything follows from the global seed and the form key: [`form_seed`] hashes the key with
//! FNV-1a (written out; std's hasher is not stable across releases) and mixes it with the seed;
//! every random axis draws from its own [`Stream`]. Same seed, same vectors, byte for byte.

use crate::float::{self, FloatGen, IntGen, IntType, Layout, Stream};
use spec::catalog::{Form, Operand};
use spec::float::Fmt;
use spec::types::{FloatFormat, Kind};
use spec::value::{Args, Input, Sel};
use spec::vector::{form_key, has_dsel, Vector};
use std::collections::HashSet;

/// How many vectors a form gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// The TestFloat level-1 minimums (generated on demand).
    One,
    /// The committed corpus.
    Golden,
}

impl Level {
    /// The level's name (`one`, `golden`).
    pub fn name(self) -> &'static str {
        match self {
            Level::One => "one",
            Level::Golden => "golden",
        }
    }

    /// `one` (or `1`) and `golden`.
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "one" | "1" => Some(Level::One),
            "golden" => Some(Level::Golden),
            _ => None,
        }
    }

    /// Operand spaces up to this many points are enumerated exhaustively.
    pub fn exhaustive_cap(self) -> u128 {
        match self {
            Level::One => 1 << 16,
            Level::Golden => 1 << 12,
        }
    }
}

/// The number of vectors of a non-exhaustive form of `arity` value operands (see the module doc).
pub fn budget(level: Level, arity: usize) -> u64 {
    match (level, arity) {
        (Level::One, 0 | 1) => 600,
        (Level::One, _) => 46_464,
        (Level::Golden, 0 | 1) => 1_024,
        (Level::Golden, _) => 384,
    }
}

/// How much of [`budget`] the hard cases may take (the rest is random): half, except at level
/// golden for two or more operands, where three quarters (a 17 × 17 cross product for two
/// operands) keep the most important combinations in a small budget.
pub fn hard_share(level: Level, arity: usize) -> u64 {
    let n = budget(level, arity);
    match (level, arity) {
        (Level::Golden, 2..) => n / 4 * 3,
        _ => n / 2,
    }
}

/// Source operands that are neither predicates (incl. the carry flag) nor immediates.
pub fn arity(form: &Form) -> usize {
    form.inputs
        .iter()
        .filter(|o| o.ty.kind != Kind::Pred && !o.flags.imm)
        .count()
}

/// How the vectors of one form were made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Vectors of an operand space enumerated whole.
    pub exhaustive: u64,
    /// Vectors of hard operands (sweeps, then cross products of the hard lists).
    pub hard: u64,
    /// Random vectors.
    pub random: u64,
}

impl Counts {
    /// All the vectors.
    pub fn total(&self) -> u64 {
        self.exhaustive + self.hard + self.random
    }
}

/// One form's vectors.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The vectors, in generation order.
    pub vectors: Vec<Vector>,
    /// How they were made.
    pub counts: Counts,
    /// Operand combinations the spec rejected (skipped; none is in `vectors`).
    pub rejected: u64,
    /// The seed of this form ([`form_seed`]).
    pub form_seed: u64,
    /// The budget that applied ([`budget`]; 0 when exhaustive).
    pub budget: u64,
    /// Points of the whole operand space, saturating at `u128::MAX`.
    pub space: u128,
}

/// A tensor-core form's vectors as they are made, one whole operation at a time.
#[derive(Default)]
pub(crate) struct Whole {
    vectors: Vec<Vector>,
    counts: Counts,
}

impl Whole {
    /// A vector from its input bits (scalars, then matrices) and outcomes, counted as a hard
    /// case or a random one.
    pub(crate) fn push(&mut self, ins: Vec<u128>, outs: Vec<spec::value::Outcome>, hard: bool) {
        self.vectors.push(Vector::whole(&ins, outs));
        if hard {
            self.counts.hard += 1;
        } else {
            self.counts.random += 1;
        }
    }

    /// The form's vectors ([`Generated::whole`]).
    pub(crate) fn done(self, form_seed: u64) -> Generated {
        Generated::whole(self.vectors, self.counts, form_seed)
    }
}

impl Generated {
    /// The vectors of a tensor-core form (built per vector, not from an operand space): no
    /// budget, no rejections, the space unbounded.
    pub(crate) fn whole(vectors: Vec<Vector>, counts: Counts, form_seed: u64) -> Generated {
        Generated {
            vectors,
            counts,
            rejected: 0,
            form_seed,
            budget: 0,
            space: u128::MAX,
        }
    }
}

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64's finalizer: spreads a seed over all bits (every seed derivation of the generators
/// goes through it).
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of one form: the global seed mixed with the FNV-1a hash of the form key.
pub fn form_seed(seed: u64, key: &str) -> u64 {
    mix(seed ^ fnv1a(key.as_bytes()))
}

/// What one axis contributes to the operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Bits(usize),
    /// A mask of negated operands (bit i: operand i).
    Neg,
    Sel(usize),
    Dsel,
}

/// How an axis's hard list is swept on its own before the cross product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sweep {
    No,
    /// Every hard value, the other axes at their first hard value.
    Fixed,
    /// Every hard value, the other negation and selector axes cycling through their hard lists
    /// (operand bits at their first hard value: registers of distinct bytes).
    Cycle,
}

/// How an axis draws random values.
#[derive(Clone, Debug)]
enum Gen {
    /// Drawn together with the other members of its float group.
    Float,
    Int(IntGen),
    /// Two 64-bit halves (b128).
    Wide(IntGen),
    /// A shift amount / position / length: small values, edges, or any value.
    Amount {
        rng: Box<Stream>,
        int: Box<IntGen>,
        w: u64,
    },
    /// Uniform over the domain list.
    Pick(Stream),
}

#[derive(Clone, Debug)]
struct Axis {
    role: Role,
    /// The whole domain: `0..size` when `list` is empty, else the list.
    size: u128,
    list: Vec<u128>,
    hard: Vec<u128>,
    gen: Gen,
    sweep: Sweep,
    /// Selectors of a `Sel`/`Dsel` axis (the axis values are indices into it).
    sels: Vec<Option<Sel>>,
}

impl Axis {
    fn at(&self, i: u128) -> u128 {
        if self.list.is_empty() {
            i
        } else {
            self.list[i as usize]
        }
    }
}

/// Float operands drawn together: same lane format and lane count.
struct FloatGroup {
    gen: Option<FloatGen>,
    rng: Stream,
    format: FloatFormat,
    lane_bits: u32,
    lanes: u32,
    members: Vec<usize>,
}

/// The spec format whose [`Layout`] view gives a lane format's hard cases and random operands:
/// the format itself, f32 for tf32 (it lives in an f32 register, spec `TF32` with pad 13; f32
/// operands cover its inputs), e4m3's layout for ue4m3; `None` for the formats without one
/// (e2m1's single significand bit, ue8m0: [`float::is_interchange`]).
fn ieee_view(f: FloatFormat) -> Option<&'static Fmt> {
    let view = match f {
        FloatFormat::Tf32 => FloatFormat::F32,
        FloatFormat::Ue4m3 => FloatFormat::E4m3,
        other => other,
    };
    Some(Fmt::of(view)).filter(|fm| float::is_interchange(fm))
}

fn dedup(v: &mut Vec<u128>) {
    let mut seen = HashSet::new();
    v.retain(|x| seen.insert(*x));
}

/// Hard cases of one lane of a float format: the TestFloat hard cases, and for formats of at most
/// 8 bits every encoding (hard cases first).
fn float_lane_hard(f: FloatFormat, lane_bits: u32) -> Vec<u128> {
    let mut v: Vec<u128> = match ieee_view(f) {
        Some(fm) if fm.width() == lane_bits || f == FloatFormat::Tf32 => {
            float::hard_cases(fm).into_iter().map(u128::from).collect()
        }
        _ => vec![0],
    };
    if lane_bits <= 8 {
        let m = (1u128 << lane_bits) - 1;
        v.retain(|&x| x <= m);
        v.extend([m, m - 1, 1, m >> 1, (m >> 1) + 1]);
        v.extend(0..=m);
        dedup(&mut v);
    }
    v
}

/// Hard cases of a register of `lanes` lanes, from the hard cases of one lane.
fn packed_hard(lane: &[u128], lane_bits: u32, lanes: u32, one: u128) -> Vec<u128> {
    if lanes == 1 {
        return lane.to_vec();
    }
    let n = lane.len();
    let pack = |vals: &dyn Fn(u32) -> u128| (0..lanes).fold(0u128, |r, l| r | vals(l) << (l * lane_bits));
    // Registers of different hard cases per lane first (lane l of register i is hard case
    // i + 5l: a prefix puts NaNs, infinities and zeros beside other values), then each of the
    // first 32 hard cases beside 1.0 in every lane position.
    let mut v: Vec<u128> = (0..n).map(|i| pack(&|l| lane[(i + 5 * l as usize) % n])).collect();
    for &s in lane.iter().take(32) {
        for pos in 0..lanes {
            v.push(pack(&|l| if l == pos { s } else { one }));
        }
    }
    dedup(&mut v);
    v
}

/// Shift amounts, bit positions and field lengths worth testing for data `w` bits wide, as
/// values of an operand of `bits` bits: around 0, the width, twice the width, 127-128, 255-256,
/// and the extremes of the operand type (also as negative offsets).
pub fn amount_edges(w: u64, bits: u32) -> Vec<u128> {
    let m = spec::types::mask(bits);
    let mut v: Vec<u128> = Vec::new();
    let w = w as i128;
    // Most important first: cross products take prefixes.
    let signed = [
        0i128,
        1,
        w - 1,
        w,
        w + 1,
        255,
        256,
        2 * w,
        -1,
        2,
        w / 2,
        2 * w - 1,
        2 * w + 1,
        w - 2,
        w + 2,
        -w,
        3,
        4,
        7,
        8,
        w / 2 - 1,
        w / 2 + 1,
        127,
        128,
        254,
        257,
        -2,
        -w - 1,
        i32::MAX as i128,
        i32::MIN as i128,
    ];
    for x in signed {
        v.push(x as u128 & m);
    }
    v.push(m);
    dedup(&mut v);
    v
}

/// Registers whose bytes are all different and alternate their sign bits: selecting any byte,
/// half-word or permutation of them gives a distinct value (`prmt`, video selectors).
const DISTINCT: [u128; 4] = [0x8302_8100, 0x8706_8504, 0x8b0a_8908, 0x8f0e_8d0c];

/// The canonical `lop3` operands (L11196-11198): `a op b op c` on them is the LUT in every byte.
const LOP3: [u128; 3] = [0xF0F0_F0F0, 0xCCCC_CCCC, 0xAAAA_AAAA];

/// Candidate selector spellings: none, `.b0`-`.b3`, `.h0`, `.h1`, and every `.hD..` with digits
/// 0-3 and `.bD..` with digits 0-7, 1-4 digits long. Which of them a form accepts is decided by
/// evaluating it (the spec is the judge), see [`selector_axis`].
fn selector_candidates() -> Vec<Option<Sel>> {
    let mut v = vec![None];
    for (kind, max) in [('b', 8u32), ('h', 4)] {
        for len in 1..=4u32 {
            for n in 0..max.pow(len) {
                let mut s = String::from(kind);
                let mut x = n;
                let mut digits = Vec::new();
                for _ in 0..len {
                    digits.push(x % max);
                    x /= max;
                }
                for d in digits.iter().rev() {
                    s.push(char::from_digit(*d, 10).unwrap_or('0'));
                }
                v.push(Sel::parse(&s));
            }
        }
    }
    v
}

/// Orders accepted selectors: none first, then the identity/default-like ones and those with all
/// lanes equal (each source element in every lane), then the rest in candidate order.
fn order_selectors(mut v: Vec<Option<Sel>>) -> Vec<Option<Sel>> {
    let rank = |s: &Option<Sel>| -> u32 {
        match s {
            None => 0,
            Some(s) if s.n == 1 => 1,
            Some(s) => {
                let l = s.lanes();
                let step = |d: i32| l.windows(2).all(|w| w[0] as i32 - w[1] as i32 == d);
                if l.iter().all(|&x| x == l[0]) || step(1) || step(-1) {
                    2
                } else {
                    3
                }
            }
        }
    };
    v.sort_by_key(rank);
    v
}

/// The default operands for trials: each operand's first hard value, no negation, no selector.
fn trial(form: &Form, ins: &[Input], dsel: Option<Sel>) -> bool {
    let mut ins = ins.to_vec();
    eval_written(form, &mut ins, dsel).is_ok()
}

/// Evaluates with every operand written, else with the trailing optional operands left out
/// (`vadd d, a, b` takes `c` only with a destination selector or a secondary operation,
/// L30855-30859): `ins` keeps the operands of the evaluation that succeeded.
fn eval_written(form: &Form, ins: &mut Vec<Input>, dsel: Option<Sel>) -> spec::value::Outcomes {
    let first = spec::eval::eval(form, &Args { ins, dsel });
    if first.is_ok() {
        return first;
    }
    let mut n = ins.len();
    while n > 0 && form.inputs[n - 1].optional {
        n -= 1;
        if let Ok(outs) = spec::eval::eval(form, &Args { ins: &ins[..n], dsel }) {
            ins.truncate(n);
            return Ok(outs);
        }
    }
    first
}

/// Builds the axes of a form (see the module doc).
fn axes(form: &Form, fseed: u64) -> Result<(Vec<Axis>, Vec<FloatGroup>), GenerateError> {
    let mut axes: Vec<Axis> = Vec::new();
    let mut groups: Vec<FloatGroup> = Vec::new();
    let sub = |k: u64| mix(fseed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let w_data = form.outputs.first().map_or(32, |o| u64::from(o.ty.bits()));
    let mut sel_ops = 0usize;
    for (i, o) in form.inputs.iter().enumerate() {
        let seed = sub(i as u64 + 1);
        axes.push(bits_axis(
            form,
            o,
            i,
            seed,
            w_data,
            &mut groups,
            &mut sel_ops,
            axes.len(),
        ));
    }
    // Every axis's first hard value: the operands of the trials below.
    let base: Vec<Input> = axes.iter().map(|a| Input::bits(a.hard[0])).collect();
    let candidates = selector_candidates();
    let mut dsels = vec![None];
    if has_dsel(form) {
        dsels = order_selectors(candidates.iter().copied().filter(|&d| trial(form, &base, d)).collect());
        if dsels.is_empty() {
            return Err(GenerateError::NoDestinationSelector);
        }
    }
    // Negations form one axis of patterns (bit i: operand i negated), each kept if the spec
    // accepts it: `vmad` negates the product or c but not both (L31056) and nothing in `.po`
    // mode (L31058), so the vectors are valid by construction.
    let negatable: Vec<usize> = (0..form.inputs.len())
        .filter(|&i| form.inputs[i].flags.not || form.inputs[i].flags.neg)
        .collect();
    if !negatable.is_empty() {
        let patterns: Vec<u128> = (0..1u128 << negatable.len())
            .map(|p| {
                negatable
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| p >> k & 1 != 0)
                    .fold(0u128, |m, (_, &i)| m | 1 << i)
            })
            .filter(|&m| {
                let mut ins = base.clone();
                for (i, inp) in ins.iter_mut().enumerate() {
                    inp.negated = m >> i & 1 != 0;
                }
                trial(form, &ins, dsels[0])
            })
            .collect();
        if patterns.len() > 1 {
            axes.push(Axis {
                role: Role::Neg,
                size: patterns.len() as u128,
                hard: patterns.clone(),
                list: patterns,
                gen: Gen::Pick(Stream::new(sub(100), 4)),
                sweep: Sweep::No,
                sels: Vec::new(),
            });
        }
    }
    for (i, o) in form.inputs.iter().enumerate() {
        if o.flags.sel {
            let sels: Vec<Option<Sel>> = order_selectors(
                candidates
                    .iter()
                    .copied()
                    .filter(|&s| {
                        let mut ins = base.clone();
                        ins[i].sel = s;
                        trial(form, &ins, dsels[0])
                    })
                    .collect(),
            );
            if sels.len() > 1 {
                axes.push(selector_axis(Role::Sel(i), sels, sub(200 + i as u64)));
            }
        }
    }
    if has_dsel(form) && dsels != [None] {
        axes.push(selector_axis(Role::Dsel, dsels, sub(300)));
    }
    Ok((axes, groups))
}

/// A selector axis: every accepted selector; swept in full when there are at most 64 (scalar
/// and 2-way SIMD selectors, SIMD masks), else (4-way `.bxyzw`, 4,096) its first 64 in
/// [`order_selectors`] order are swept and random vectors draw from all of them.
fn selector_axis(role: Role, sels: Vec<Option<Sel>>, seed: u64) -> Axis {
    let n = sels.len() as u128;
    Axis {
        role,
        size: n,
        list: Vec::new(),
        hard: (0..n.min(64)).collect(),
        gen: Gen::Pick(Stream::new(seed, 5)),
        sweep: Sweep::Cycle,
        sels,
    }
}

#[allow(clippy::too_many_arguments)]
fn bits_axis(
    form: &Form,
    o: &Operand,
    i: usize,
    seed: u64,
    w_data: u64,
    groups: &mut Vec<FloatGroup>,
    sel_ops: &mut usize,
    index: usize,
) -> Axis {
    let ty = o.ty;
    let bits = ty.bits();
    let size = if bits >= 128 { u128::MAX } else { 1u128 << bits };
    let mut ax = Axis {
        role: Role::Bits(i),
        size,
        list: Vec::new(),
        hard: Vec::new(),
        gen: Gen::Pick(Stream::new(seed, 3)),
        sweep: Sweep::No,
        sels: Vec::new(),
    };
    match ty.kind {
        Kind::Pred => {
            ax.hard = vec![0, 1];
        }
        Kind::Float(f) => {
            let lane = float_lane_hard(f, ty.lane_bits);
            let one = ieee_view(f)
                .map(|fm| u128::from(fm.encode(false, fm.bias() as u64, 0)))
                .unwrap_or(1);
            ax.hard = packed_hard(&lane, ty.lane_bits, ty.lanes, one);
            let g = match groups.iter().position(|g| g.format == f && g.lanes == ty.lanes) {
                Some(g) => g,
                None => {
                    groups.push(FloatGroup {
                        gen: ieee_view(f)
                            .filter(|fm| fm.width() == ty.lane_bits || f == FloatFormat::Tf32)
                            .map(|fm| FloatGen::new(fm, seed)),
                        rng: Stream::new(seed, 6),
                        format: f,
                        lane_bits: ty.lane_bits,
                        lanes: ty.lanes,
                        members: Vec::new(),
                    });
                    groups.len() - 1
                }
            };
            groups[g].members.push(index);
            ax.gen = Gen::Float;
        }
        Kind::Bits | Kind::Unsigned | Kind::Signed => {
            // Bit strings take the signed view: it has -1 (all ones), MIN and MAX.
            let signed = ty.kind != Kind::Unsigned;
            let lane_int = |b: u32| IntType::new(b.clamp(2, 64), signed);
            if bits <= 64 && ty.lanes == 1 {
                let t = lane_int(bits);
                ax.hard = float::int_hard_cases(t).into_iter().map(u128::from).collect();
                ax.gen = Gen::Int(IntGen::new(t, seed));
            } else if bits <= 64 {
                // Packed integers (u16x2, s16x2): lanes of lane hard cases, random as whole bits.
                let lane: Vec<u128> = float::int_hard_cases(lane_int(ty.lane_bits))
                    .into_iter()
                    .map(u128::from)
                    .collect();
                ax.hard = packed_hard(&lane, ty.lane_bits, ty.lanes, 1);
                ax.gen = Gen::Int(IntGen::new(IntType::new(bits, false), seed));
            } else {
                let h: Vec<u128> = float::int_hard_cases(IntType::new(64, true))
                    .into_iter()
                    .map(u128::from)
                    .collect();
                ax.hard = packed_hard(&h, 64, bits / 64, 0);
                ax.gen = Gen::Wide(IntGen::new(IntType::new(64, false), seed));
            }
            let m = ty.mask();
            // The sources before a truth table or a byte-permute selector (`lop3`, `prmt`).
            let lut = form.inputs.iter().position(|o| o.flags.lut);
            let perm = form.inputs.iter().position(|o| o.flags.perm);
            if o.flags.lut {
                ax.hard = (0..=m).collect();
                ax.sweep = Sweep::Fixed;
                ax.gen = Gen::Pick(Stream::new(seed, 3));
            } else if lut.is_some_and(|k| i < k) {
                ax.hard.insert(0, LOP3[i]);
            } else if o.flags.perm {
                if form.mods.len() == 1 {
                    // Default mode: every selector, the 16-bit permute code c[15:0] (L12103-12107).
                    ax.hard = (0..=0xffff).collect();
                    ax.sweep = Sweep::Fixed;
                } else {
                    // The modes read c[1:0] (L12137).
                    let mut h: Vec<u128> = (0..8).collect();
                    h.extend([0xffff_fffc, 0xffff_fffd, 0xffff_fffe, 0xffff_ffff, 0x8000_0003]);
                    h.extend(ax.hard.iter().copied());
                    ax.hard = h;
                    ax.sweep = Sweep::Fixed;
                }
            } else if perm.is_some_and(|k| i < k) {
                ax.hard.insert(0, DISTINCT[i]);
            } else if o.flags.amount {
                let mut h = amount_edges(w_data, bits);
                h.extend(ax.hard.iter().copied());
                ax.hard = h;
                let t = IntType::new(bits.clamp(2, 64), false);
                ax.gen = Gen::Amount {
                    rng: Box::new(Stream::new(seed, 7)),
                    int: Box::new(IntGen::new(t, seed)),
                    w: w_data,
                };
            }
            if form.inputs.iter().any(|o| o.flags.sel) {
                ax.hard.insert(0, DISTINCT[*sel_ops % DISTINCT.len()]);
                *sel_ops += 1;
            }
            for h in &mut ax.hard {
                *h &= m;
            }
        }
    }
    dedup(&mut ax.hard);
    ax
}

/// The operands and destination selector of one point of the axes.
fn assemble(form: &Form, axes: &[Axis], vals: &[u128]) -> (Vec<Input>, Option<Sel>) {
    let mut ins = vec![Input::default(); form.inputs.len()];
    let mut dsel = None;
    for (a, &v) in axes.iter().zip(vals) {
        match a.role {
            Role::Bits(i) => ins[i].bits = v,
            Role::Neg => {
                for (i, inp) in ins.iter_mut().enumerate() {
                    inp.negated = v >> i & 1 != 0;
                }
            }
            Role::Sel(i) => ins[i].sel = a.sels[v as usize],
            Role::Dsel => dsel = a.sels[v as usize],
        }
    }
    (ins, dsel)
}

/// One random point.
fn random_point(axes: &mut [Axis], groups: &mut [FloatGroup]) -> Vec<u128> {
    let mut vals = vec![0u128; axes.len()];
    for g in groups.iter_mut() {
        let n = g.members.len();
        let mut regs = vec![0u128; n];
        for lane in 0..g.lanes {
            let draw: Vec<u128> = match &mut g.gen {
                Some(fg) if n == 2 || n == 3 => fg.operands(n)[..n].iter().map(|&x| u128::from(x)).collect(),
                Some(fg) => (0..n).map(|_| u128::from(fg.operand())).collect(),
                None => (0..n).map(|_| u128::from(g.rng.below(1 << g.lane_bits))).collect(),
            };
            for (r, x) in regs.iter_mut().zip(draw) {
                *r |= x << (lane * g.lane_bits);
            }
        }
        for (k, &ax) in g.members.iter().enumerate() {
            vals[ax] = regs[k];
        }
    }
    for (a, v) in axes.iter_mut().zip(vals.iter_mut()) {
        let n = if a.list.is_empty() {
            a.size
        } else {
            a.list.len() as u128
        };
        *v = match &mut a.gen {
            Gen::Float => *v,
            Gen::Int(g) => u128::from(g.value()),
            Gen::Wide(g) => u128::from(g.value()) << 64 | u128::from(g.value()),
            Gen::Amount { rng, int, w } => match rng.below(4) {
                0 | 1 => u128::from(rng.below(2 * *w + 3)),
                2 => a.hard[rng.below(a.hard.len().min(32) as u64) as usize],
                _ => u128::from(int.value()),
            },
            Gen::Pick(rng) => {
                let i = if n > u128::from(u64::MAX) {
                    u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64())
                } else {
                    u128::from(rng.below(n as u64))
                };
                a.at(i)
            }
        };
        if let Role::Bits(_) = a.role {
            if a.size != u128::MAX {
                *v &= a.size - 1;
            }
        }
    }
    vals
}

/// Each source operand's hard values, most important first (the operands of the hard vectors,
/// before selectors and negation): what other generators draw a form's operands from.
pub fn hard_operands(form: &Form) -> Vec<Vec<u128>> {
    let fseed = form_seed(0, &form_key(form));
    let mut groups = Vec::new();
    let mut sel_ops = 0;
    let w_data = form.outputs.first().map_or(32, |o| u64::from(o.ty.bits()));
    (0..form.inputs.len())
        .map(|i| {
            let ax = bits_axis(form, &form.inputs[i], i, fseed, w_data, &mut groups, &mut sel_ops, i);
            ax.hard
        })
        .collect()
}

/// Why a form's vectors could not be generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenerateError {
    /// The form has no semantics in the spec (an operational form).
    NoSemantics {
        /// The form's name.
        form: String,
    },
    /// No destination selector (nor none) is accepted with default operands.
    NoDestinationSelector,
    /// Every operand set tried was rejected by the spec.
    AllRejected {
        /// The form's name.
        form: String,
        /// How many operand sets were tried.
        tried: u64,
    },
}

impl std::fmt::Display for GenerateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GenerateError::NoSemantics { form } => write!(f, "`{form}` has no semantics in the spec"),
            GenerateError::NoDestinationSelector => {
                f.write_str("the spec accepts no destination selector (nor none) with default operands")
            }
            GenerateError::AllRejected { form, tried } => {
                write!(f, "`{form}`: the spec rejected all {tried} operand sets tried")
            }
        }
    }
}

impl std::error::Error for GenerateError {}

/// Generates the vectors of `form` (see the module doc). Errors when the form has no semantics
/// or no operand set the spec accepts.
pub fn generate(form: &Form, seed: u64, level: Level) -> Result<Generated, GenerateError> {
    if spec::vector::matrix::columns(form).is_some() {
        return crate::matrix::generate(form, seed, level);
    }
    if spec::vector::movement::columns(form).is_some() {
        return crate::movement::generate(form, seed, level);
    }
    if spec::vector::scaled::columns(form).is_some() {
        return crate::scaled::generate(form, seed, level);
    }
    if spec::vector::wmma::columns(form).is_some() {
        return crate::wmma::generate(form, seed, level);
    }
    if spec::vector::refused::columns(form).is_some() {
        return crate::refused::generate(form, seed, level);
    }
    if spec::vector::wgctl::columns(form).is_some() {
        return crate::wgctl::generate(form, seed, level);
    }
    if spec::eval::semantics(form).is_none() {
        return Err(GenerateError::NoSemantics {
            form: form.name.clone(),
        });
    }
    let key = form_key(form);
    let fseed = form_seed(seed, &key);
    let (mut axes, mut groups) = axes(form, fseed)?;
    let space = axes.iter().fold(1u128, |p, a| {
        let n = if a.list.is_empty() {
            a.size
        } else {
            a.list.len() as u128
        };
        p.saturating_mul(n)
    });
    let mut out = Generated {
        vectors: Vec::new(),
        counts: Counts::default(),
        rejected: 0,
        form_seed: fseed,
        budget: 0,
        space,
    };
    if space <= level.exhaustive_cap() {
        let mut idx = vec![0u128; axes.len()];
        loop {
            let vals: Vec<u128> = axes.iter().zip(&idx).map(|(a, &i)| a.at(i)).collect();
            if push(form, &axes, &mut out, &vals) {
                out.counts.exhaustive += 1;
            }
            // Mixed-radix increment, the last axis fastest.
            let mut k = axes.len();
            loop {
                if k == 0 {
                    return finish(out, form);
                }
                k -= 1;
                idx[k] += 1;
                let n = if axes[k].list.is_empty() {
                    axes[k].size
                } else {
                    axes[k].list.len() as u128
                };
                if idx[k] < n {
                    break;
                }
                idx[k] = 0;
            }
        }
    }
    let n = budget(level, arity(form));
    out.budget = n;
    let hard_budget = u128::from(hard_share(level, arity(form)));
    let mut seen: HashSet<Vec<u128>> = HashSet::new();
    // Sweeps.
    for s in 0..axes.len() {
        if axes[s].sweep == Sweep::No {
            continue;
        }
        for j in 0..axes[s].hard.len() {
            let vals: Vec<u128> = axes
                .iter()
                .enumerate()
                .map(|(k, a)| match (k == s, axes[s].sweep, a.role) {
                    (true, ..) => a.hard[j],
                    (false, Sweep::Cycle, Role::Neg | Role::Sel(_) | Role::Dsel) => a.hard[j % a.hard.len()],
                    _ => a.hard[0],
                })
                .collect();
            if seen.insert(vals.clone()) && push(form, &axes, &mut out, &vals) {
                out.counts.hard += 1;
            }
        }
    }
    // The cross product of hard-list prefixes, grown evenly within what is left of half the budget.
    let room = hard_budget.saturating_sub(seen.len() as u128).max(1);
    let mut k = vec![1u128; axes.len()];
    let mut prod = 1u128;
    loop {
        let mut grew = false;
        for (i, a) in axes.iter().enumerate() {
            if k[i] < a.hard.len() as u128 {
                let p = prod / k[i] * (k[i] + 1);
                if p <= room {
                    prod = p;
                    k[i] += 1;
                    grew = true;
                }
            }
        }
        if !grew {
            break;
        }
    }
    let mut idx = vec![0u128; axes.len()];
    'cross: loop {
        let vals: Vec<u128> = axes.iter().zip(&idx).map(|(a, &i)| a.hard[i as usize]).collect();
        if seen.insert(vals.clone()) && push(form, &axes, &mut out, &vals) {
            out.counts.hard += 1;
        }
        let mut j = axes.len();
        loop {
            if j == 0 {
                break 'cross;
            }
            j -= 1;
            idx[j] += 1;
            if idx[j] < k[j] {
                break;
            }
            idx[j] = 0;
        }
    }
    // Random operands until the budget (the edge tuples below come on top of it, so the random
    // vectors are the ones the budget gave before they existed); rejected draws are retried a
    // bounded number of times.
    let target = n.saturating_sub(out.vectors.len() as u64);
    // Every ordered pair (triple) of ±0, ±∞ and a quiet NaN over the float sources, the other
    // axes at their first hard value: prefixes of the hard lists miss some (`max.f32(+0, -0)`).
    for vals in edge_points(form, &axes) {
        if seen.insert(vals.clone()) && push(form, &axes, &mut out, &vals) {
            out.counts.hard += 1;
        }
    }
    let mut tries = 0u64;
    while out.counts.random < target && tries < 4 * target + 64 {
        tries += 1;
        let vals = random_point(&mut axes, &mut groups);
        if push(form, &axes, &mut out, &vals) {
            out.counts.random += 1;
        }
    }
    finish(out, form)
}

/// The points of the float edge tuples ([`crate::edges::tuples`]) over the float sources of
/// `form`, every other axis at its first hard value.
fn edge_points(form: &Form, axes: &[Axis]) -> Vec<Vec<u128>> {
    let srcs: Vec<(usize, crate::edges::Source)> = axes
        .iter()
        .enumerate()
        .filter_map(|(k, a)| match a.role {
            Role::Bits(i) => match form.inputs[i].ty {
                ty @ spec::types::Type {
                    kind: Kind::Float(f), ..
                } => Some((
                    k,
                    crate::edges::Source {
                        ty,
                        layout: ieee_view(f).filter(|fm| fm.width() == ty.lane_bits || f == FloatFormat::Tf32),
                    },
                )),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let only: Vec<crate::edges::Source> = srcs.iter().map(|&(_, s)| s).collect();
    crate::edges::tuples(&only)
        .into_iter()
        .map(|regs| {
            let mut vals: Vec<u128> = axes.iter().map(|a| a.hard[0]).collect();
            for (&(k, _), r) in srcs.iter().zip(regs) {
                if let Some(r) = r {
                    vals[k] = r;
                }
            }
            vals
        })
        .collect()
}

/// Evaluates one point and keeps it if the spec accepts the operands.
fn push(form: &Form, axes: &[Axis], out: &mut Generated, vals: &[u128]) -> bool {
    let (mut ins, dsel) = assemble(form, axes, vals);
    match eval_written(form, &mut ins, dsel) {
        Ok(outs) => {
            out.vectors.push(Vector { dsel, ins, outs });
            true
        }
        Err(_) => {
            out.rejected += 1;
            false
        }
    }
}

fn finish(out: Generated, form: &Form) -> Result<Generated, GenerateError> {
    if out.vectors.is_empty() {
        return Err(GenerateError::AllRejected {
            form: form.name.clone(),
            tried: out.rejected,
        });
    }
    Ok(out)
}
