//! §9.7.13.5 atom and §9.7.13.6 red: the value written to memory, against a reference written
//! here.
//!
//! The reference keys on the catalog's own spelling of each form (`op` and `t` as strings), not
//! on the spec's decoding, and computes every result another way: bitwise operations bit by bit,
//! integer addition modulo 2^n with `rem_euclid`, two's complement by subtracting 2^n, `inc`/`dec`
//! as counters modulo b+1 (and a brute-force run of the counter), float additions with Berkeley
//! SoftFloat 3 (`.bf16` through an f32 add and a rounding written here), flushing by exponent
//! tests, and half min/max through exactly widened host `f64` values.

mod common;
use common::splitmix64;
use softfloat_wrapper::{Float, RoundingMode, F16 as SF16, F32 as SF32, F64 as SF64};
use spec::atom::{apply, AtomOp, AtomSpace, Op};
use spec::catalog::{catalog, Form};
use spec::types::Type;
use spec::value::{Accept, Outcome};
use std::collections::BTreeMap;

const RNE: RoundingMode = RoundingMode::TiesToEven;
const SPACES: [AtomSpace; 2] = [AtomSpace::Global, AtomSpace::Shared];

// ---------------------------------------------------------------------------------------------
// The reference
// ---------------------------------------------------------------------------------------------

/// What the reference expects of one element.
#[derive(Clone, Debug, PartialEq)]
enum Want {
    /// Exactly these bits.
    Bits(u128),
    /// Any NaN of the lane format.
    AnyNan,
    /// One of these NaNs, the first being the model (f64 payloads).
    Payload(Vec<u128>),
    /// Per-lane expectations of a packed element, lane 0 least significant.
    Lanes(u32, Vec<Want>),
}

/// IEEE layout by field widths, for the reference's own bit tests.
#[derive(Clone, Copy)]
struct Layout {
    bits: u32,
    man: u32,
}

const L16: Layout = Layout { bits: 16, man: 10 };
const LB16: Layout = Layout { bits: 16, man: 7 };
const L32: Layout = Layout { bits: 32, man: 23 };
const L64: Layout = Layout { bits: 64, man: 52 };

impl Layout {
    fn exp_field(self, x: u128) -> u128 {
        let e_bits = self.bits - 1 - self.man;
        (x >> self.man) & ((1 << e_bits) - 1)
    }
    fn exp_all_ones(self, x: u128) -> bool {
        let e_bits = self.bits - 1 - self.man;
        self.exp_field(x) == (1 << e_bits) - 1
    }
    fn nan(self, x: u128) -> bool {
        self.exp_all_ones(x) && x & ((1 << self.man) - 1) != 0
    }
    fn sign(self, x: u128) -> u128 {
        x & (1 << (self.bits - 1))
    }
    /// A subnormal becomes the zero of its sign.
    fn daz(self, x: u128) -> u128 {
        if self.exp_field(x) == 0 {
            self.sign(x)
        } else {
            x
        }
    }
    fn inf(self) -> u128 {
        let e_bits = self.bits - 1 - self.man;
        ((1 << e_bits) - 1) << self.man
    }
}

fn nan_or(l: Layout, r: u128) -> Want {
    if l.nan(r) {
        Want::AnyNan
    } else {
        Want::Bits(r)
    }
}

fn ref_add_f32(global: bool, a: u128, b: u128) -> Want {
    let (a, b) = if global { (L32.daz(a), L32.daz(b)) } else { (a, b) };
    let r = SF32::from_bits(a as u32).add(SF32::from_bits(b as u32), RNE).to_bits() as u128;
    if L32.nan(r) {
        return Want::AnyNan;
    }
    Want::Bits(if global { L32.daz(r) } else { r })
}

fn ref_add_f64(a: u128, b: u128) -> Want {
    let r = SF64::from_bits(a as u64).add(SF64::from_bits(b as u64), RNE).to_bits() as u128;
    if !L64.nan(r) {
        return Want::Bits(r);
    }
    let quiet = |x: u128| x | 1 << 51;
    let nans: Vec<u128> = [a, b].into_iter().filter(|&x| L64.nan(x)).map(quiet).collect();
    if nans.is_empty() {
        Want::AnyNan
    } else {
        Want::Payload(nans)
    }
}

fn ref_add_f16(a: u128, b: u128) -> Want {
    nan_or(
        L16,
        SF16::from_bits(a as u16).add(SF16::from_bits(b as u16), RNE).to_bits() as u128,
    )
}

/// f32 bits to bf16 bits, nearest even, by adding half an ulp of bf16 with the tie bit.
fn f32_to_bf16_rne(x: u32) -> u128 {
    let lsb = (x >> 16) & 1;
    (x.wrapping_add(0x7fff + lsb) >> 16) as u128
}

/// bf16 + bf16: the f32 sum of two bf16 values rounded once more to bf16 equals the sum rounded
/// once, as f32 carries more than 2×8+2 significand bits and both share the exponent range.
fn ref_add_bf16(a: u128, b: u128) -> Want {
    let s = SF32::from_bits((a as u32) << 16)
        .add(SF32::from_bits((b as u32) << 16), RNE)
        .to_bits();
    if L32.nan(s as u128) {
        return Want::AnyNan;
    }
    Want::Bits(f32_to_bf16_rne(s))
}

/// The exact value of a half-format lane as a host f64 (every f16 and bf16 value is one).
fn half_value(bf: bool, x: u128) -> f64 {
    if bf {
        f32::from_bits((x as u32) << 16) as f64
    } else {
        f64::from_bits(SF16::from_bits(x as u16).to_f64(RNE).to_bits())
    }
}

fn ref_minmax_half(bf: bool, max: bool, a: u128, b: u128) -> Want {
    let l = if bf { LB16 } else { L16 };
    match (l.nan(a), l.nan(b)) {
        (true, true) => return Want::AnyNan,
        (true, false) => return Want::Bits(b),
        (false, true) => return Want::Bits(a),
        _ => {}
    }
    let (va, vb) = (half_value(bf, a), half_value(bf, b));
    if va == vb && va == 0.0 {
        // ±0: max prefers +0.0, min −0.0.
        let pos = if l.sign(a) == 0 { a } else { b };
        let neg = if l.sign(a) != 0 { a } else { b };
        return Want::Bits(if max { pos } else { neg });
    }
    let pick_a = if max { va >= vb } else { va <= vb };
    Want::Bits(if pick_a { a } else { b })
}

/// Signed value of an n-bit pattern, by subtracting 2^n when the top bit is set.
fn signed(x: u128, n: u32) -> i128 {
    if n == 128 {
        return x as i128;
    }
    if x >> (n - 1) & 1 == 1 {
        x as i128 - (1i128 << n)
    } else {
        x as i128
    }
}

fn bitwise(n: u32, a: u128, b: u128, f: impl Fn(bool, bool) -> bool) -> u128 {
    (0..n).fold(0, |acc, i| acc | ((f(a >> i & 1 == 1, b >> i & 1 == 1) as u128) << i))
}

/// The reference for one element of the form spelled `op`, `t`.
fn reference(op: &str, t: &str, global: bool, old: u128, b: u128, c: u128) -> Want {
    let lanes_of = |lane: &dyn Fn(u128, u128) -> Want| {
        let w: Vec<Want> = (0..2)
            .map(|i| lane(old >> (16 * i) & 0xffff, b >> (16 * i) & 0xffff))
            .collect();
        Want::Lanes(16, w)
    };
    match (op, t) {
        ("add", "f32") => ref_add_f32(global, old, b),
        ("add", "f64") => ref_add_f64(old, b),
        ("add", "f16") => ref_add_f16(old, b),
        ("add", "bf16") => ref_add_bf16(old, b),
        ("add", "f16x2") => lanes_of(&ref_add_f16),
        ("add", "bf16x2") => lanes_of(&ref_add_bf16),
        ("min" | "max", "f16" | "bf16") => ref_minmax_half(t == "bf16", op == "max", old, b),
        ("min" | "max", "f16x2" | "bf16x2") => lanes_of(&|x, y| ref_minmax_half(t == "bf16x2", op == "max", x, y)),
        _ => {
            let n: u32 = t[1..].parse().unwrap();
            let modulus = if n == 128 { None } else { Some(1i128 << n) };
            Want::Bits(match op {
                "and" => bitwise(n, old, b, |x, y| x && y),
                "or" => bitwise(n, old, b, |x, y| x || y),
                "xor" => bitwise(n, old, b, |x, y| x != y),
                "exch" => b,
                "cas" => {
                    if old == b {
                        c
                    } else {
                        old
                    }
                }
                "add" => (old as i128 + b as i128).rem_euclid(modulus.unwrap()) as u128,
                // A counter over 0..=b: one step up (or down) modulo b+1; from outside the
                // range it restarts at 0 (inc) or b (dec).
                "inc" if old > b => 0,
                "inc" => (old + 1) % (b + 1),
                "dec" if old > b => b,
                "dec" => (old + b) % (b + 1),
                "min" | "max" => {
                    let key = |x: u128| if t.starts_with('s') { signed(x, n) } else { x as i128 };
                    let lo = if key(old) < key(b) { old } else { b };
                    let hi = if key(old) < key(b) { b } else { old };
                    if op == "min" {
                        lo
                    } else {
                        hi
                    }
                }
                _ => panic!("no reference for {op}.{t}"),
            })
        }
    }
}

/// The lane layout of a float element type spelled `t` (integer types: unused, f32's).
fn layout(t: &str) -> Layout {
    match t {
        "f16" | "f16x2" => L16,
        "bf16" | "bf16x2" => LB16,
        "f64" => L64,
        _ => L32,
    }
}

/// Asserts that `out` is what `want` describes, the model and the acceptance set; `l` is the
/// (lane) format of a float element.
fn check(out: &Outcome, want: &Want, l: Layout, ctx: &str) {
    // Another NaN of the format (sign set, lowest payload bit) and a number next to it.
    let other_nan = l.inf() | 1 | l.sign(u128::MAX);
    match want {
        Want::Bits(v) => assert_eq!(*out, Outcome::exact(*v), "{ctx}"),
        Want::AnyNan => {
            assert!(l.nan(out.model), "{ctx}: model {:#x} is not a NaN", out.model);
            assert!(out.accepts(other_nan) && !out.accepts(l.inf()), "{ctx}: {out:?}");
        }
        Want::Payload(ps) => {
            assert_eq!(out.model, ps[0], "{ctx}");
            for &p in ps {
                assert!(out.accepts(p), "{ctx}: {p:#x}");
            }
            assert!(!out.accepts(other_nan) || ps.contains(&other_nan), "{ctx}");
        }
        Want::Lanes(lb, ws) => {
            let mask = (1u128 << lb) - 1;
            let mut any_nan = false;
            for (i, w) in ws.iter().enumerate() {
                let sh = i as u32 * lb;
                let lane = out.model >> sh & mask;
                let cleared = out.model & !(mask << sh);
                match w {
                    Want::Bits(v) => {
                        assert_eq!(lane, *v, "{ctx}: lane {i}");
                        assert!(!out.accepts(out.model ^ 1 << sh), "{ctx}: lane {i} not exact");
                    }
                    Want::AnyNan => {
                        any_nan = true;
                        assert!(l.nan(lane), "{ctx}: lane {i} {lane:#x}");
                        assert!(out.accepts(cleared | other_nan << sh), "{ctx}: lane {i}");
                        assert!(!out.accepts(cleared | l.inf() << sh), "{ctx}: lane {i}");
                    }
                    _ => unreachable!(),
                }
            }
            assert_eq!(out.model >> (lb * ws.len() as u32), 0, "{ctx}");
            if !any_nan {
                assert_eq!(out.accept, Accept::Exact, "{ctx}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Operands
// ---------------------------------------------------------------------------------------------

/// Edge values of an element type: the integer and float boundaries that matter.
fn edges(t: &str) -> Vec<u128> {
    let n: u32 = match t {
        "f16" | "bf16" => 16,
        "f16x2" | "bf16x2" | "f32" => 32,
        "f64" => 64,
        _ => t[1..].parse().unwrap(),
    };
    let m = if n == 128 { u128::MAX } else { (1u128 << n) - 1 };
    let top = 1u128 << (n - 1);
    let mut v = vec![
        0,
        1,
        2,
        3,
        m,
        m - 1,
        top,
        top - 1,
        top + 1,
        0x7f,
        0x80,
        0xffff,
        0x1_0000,
    ];
    let fl = |l: Layout| {
        let s = 1u128 << (l.bits - 1);
        let one = ((1u128 << (l.bits - 2 - l.man)) - 1) << l.man;
        let min_norm = 1u128 << l.man;
        vec![
            one,
            one | s,
            min_norm,
            min_norm | s,
            min_norm - 1,
            (min_norm - 1) | s,
            min_norm + 1,
            1 | s,
            l.inf() - 1,
            (l.inf() - 1) | s,
            l.inf(),
            l.inf() | s,
            l.inf() | 1,
            l.inf() | (1 << (l.man - 1)),
            l.inf() | s | 5,
            s,
        ]
    };
    match t {
        "f16" => v.extend(fl(L16)),
        "bf16" => v.extend(fl(LB16)),
        "f32" => v.extend(fl(L32)),
        "f64" => v.extend(fl(L64)),
        "f16x2" | "bf16x2" => {
            let h = fl(if t == "f16x2" { L16 } else { LB16 });
            for (i, &x) in h.iter().enumerate() {
                v.push(x | h[(i * 7 + 3) % h.len()] << 16);
            }
        }
        _ => {}
    }
    v.into_iter().map(|x| x & m).collect()
}

/// `count` operand pairs (plus a `c`) of `t`: every pair of edge values, then random ones, then
/// random neighbours (b near −old for float cancellation, b near old for the integer compares).
fn operands(t: &str, count: usize, seed: u64) -> Vec<(u128, u128, u128)> {
    let e = edges(t);
    let mut v = Vec::new();
    for &a in &e {
        for &b in &e {
            v.push((a, b, a ^ 0x5a5a));
        }
    }
    let bits = e.iter().copied().max().unwrap().ilog2() + 1;
    let m = if bits >= 128 { u128::MAX } else { (1u128 << bits) - 1 };
    let mut st = seed;
    let mut r = || (splitmix64(&mut st) as u128) | (splitmix64(&mut st) as u128) << 64;
    for i in 0..count {
        let a = r() & m;
        let b = match i % 4 {
            0 => r() & m,
            1 => a ^ (1 << (bits - 1)) ^ (r() & 0xff), // opposite sign, nearby magnitude
            2 => a.wrapping_add(r() & 3) & m,
            _ => r() & m & (0xff | 1 << (bits - 1)), // small values, possibly negative
        };
        let c = if i % 3 == 0 { a } else { r() & m };
        v.push((a, b, c));
        v.push((b, a, c));
    }
    v
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

fn atom_forms() -> impl Iterator<Item = &'static Form> {
    catalog()
        .forms
        .iter()
        .filter(|f| f.opcode == "atom" || f.opcode == "red")
}

/// One representative form per (op, type, vector length) of the catalog.
fn distinct() -> BTreeMap<(String, String, u32), &'static Form> {
    let mut m = BTreeMap::new();
    for f in atom_forms().filter(|f| !f.has("async")) {
        let vec = f.var("vec").map_or(1, |v| v[1..].parse().unwrap());
        m.entry((f.var("op").unwrap().to_string(), f.var("t").unwrap().to_string(), vec))
            .or_insert(f);
    }
    m
}

#[test]
fn every_catalog_form_decodes() {
    let (mut some, mut none) = (0, 0);
    for f in atom_forms() {
        let got = AtomOp::of(f);
        if f.section == "9.7.13.7" {
            // red.async: out of scope (its mbarrier signal is no value-level effect).
            assert!(f.has("async") && got.is_none(), "{}", f.name);
            none += 1;
            continue;
        }
        assert!(matches!(f.section, "9.7.13.5" | "9.7.13.6"), "{}", f.name);
        let a = got.unwrap_or_else(|| panic!("{} not decoded", f.name));
        some += 1;
        let b = f.inputs.iter().find(|o| o.name == "b").unwrap();
        assert_eq!(a.elem_bytes() * 8, b.ty.bits(), "{}", f.name);
        assert_eq!(a.elem_bytes() * 8, f.ty("t").unwrap().bits(), "{}", f.name);
        let vec = f.var("vec").map_or(1, |v| v[1..].parse().unwrap());
        assert_eq!(a.lanes(), vec, "{}", f.name);
        assert_eq!(a.op().name(), f.var("op").unwrap(), "{}", f.name);
        assert_eq!(a.is_red(), f.opcode == "red", "{}", f.name);
        assert_eq!(a.noftz(), f.has("noftz"), "{}", f.name);
        let want_space = match f.var("ss") {
            Some("global") => Some(AtomSpace::Global),
            Some("shared" | "shared::cta" | "shared::cluster") => Some(AtomSpace::Shared),
            _ => None,
        };
        assert_eq!(a.space(), want_space, "{}", f.name);
        // `red` has no destination, `atom` one of the element type.
        assert_eq!(f.outputs.len(), if a.is_red() { 0 } else { 1 }, "{}", f.name);
    }
    assert!(some > 1000 && none > 0, "{some} decoded, {none} red.async");
    // Forms of other instructions are not atom/red forms.
    for name in ["add.s32", "ld.global.u32", "redux.sync.add.u32", "bar.red.popc.u32"] {
        if let Some(&i) = catalog().by_name(name).first() {
            assert!(AtomOp::of(&catalog().forms[i]).is_none(), "{name}");
        }
    }
}

#[test]
fn the_catalog_covers_every_op_and_type() {
    let keys: Vec<String> = distinct().keys().map(|(o, t, v)| format!("{o}.v{v}.{t}")).collect();
    for want in [
        "and.v1.b32",
        "and.v1.b64",
        "or.v1.b32",
        "or.v1.b64",
        "xor.v1.b32",
        "xor.v1.b64",
        "exch.v1.b32",
        "exch.v1.b64",
        "exch.v1.b128",
        "cas.v1.b16",
        "cas.v1.b32",
        "cas.v1.b64",
        "cas.v1.b128",
        "add.v1.u32",
        "add.v1.s32",
        "add.v1.u64",
        "add.v1.f32",
        "add.v1.f64",
        "add.v1.f16",
        "add.v1.f16x2",
        "add.v1.bf16",
        "add.v1.bf16x2",
        "inc.v1.u32",
        "dec.v1.u32",
        "min.v1.u32",
        "min.v1.s32",
        "min.v1.u64",
        "min.v1.s64",
        "max.v1.u32",
        "max.v1.s32",
        "max.v1.u64",
        "max.v1.s64",
        "add.v2.f32",
        "add.v4.f32",
        "add.v8.f16",
        "min.v8.bf16",
        "max.v4.f16x2",
        "min.v2.bf16x2",
    ] {
        assert!(keys.contains(&want.to_string()), "{want} missing from {keys:?}");
    }
}

#[test]
fn every_op_and_type_against_the_reference() {
    let mut checked = 0usize;
    for ((op, t, vec), f) in distinct() {
        let a = AtomOp::of(f).unwrap();
        let seed = 0x5eed ^ (op.len() as u64 * 977) ^ (t.len() as u64) << 20 ^ (vec as u64) << 30;
        for (i, (old, b, c)) in operands(&t, 3000, seed).into_iter().enumerate() {
            for space in SPACES {
                let out = apply(&a, space, old, b, c);
                let want = reference(&op, &t, space == AtomSpace::Global, old, b, c);
                let ctx = format!("{} ({space:?}, #{i}) old={old:#x} b={b:#x} c={c:#x}", f.name);
                check(&out, &want, layout(&t), &ctx);
                checked += 1;
            }
        }
    }
    assert!(checked > 500_000, "{checked}");
}

#[test]
fn inc_dec_run_as_counters() {
    let inc = AtomOp::new(Op::Inc, Type::U32, 1, false).unwrap();
    let dec = AtomOp::new(Op::Dec, Type::U32, 1, false).unwrap();
    for bound in [0u128, 1, 2, 5, 17] {
        // From 0, inc visits 0, 1, ..., b, 0, ...; from b, dec visits b, b-1, ..., 0, b, ...
        let (mut up, mut down) = (0u128, bound);
        for step in 0..3 * (bound as usize + 1) {
            let k = step as u128 % (bound + 1);
            assert_eq!(up, k, "inc b={bound} step {step}");
            assert_eq!(down, bound - k, "dec b={bound} step {step}");
            up = apply(&inc, AtomSpace::Global, up, bound, 0).model;
            down = apply(&dec, AtomSpace::Shared, down, bound, 0).model;
        }
    }
    let run = |a: &AtomOp, old: u128, b: u128| apply(a, AtomSpace::Global, old, b, 0).model;
    // Wrap at b and at 0, and starting outside [0..b] (L17479: results lie in [0..b]).
    assert_eq!(run(&inc, 9, 9), 0);
    assert_eq!(run(&inc, 10, 9), 0);
    assert_eq!(run(&inc, 0xffff_ffff, 0xffff_ffff), 0);
    assert_eq!(run(&inc, 0xffff_fffe, 0xffff_ffff), 0xffff_ffff);
    assert_eq!(run(&inc, 5, 0), 0);
    assert_eq!(run(&dec, 0, 9), 9);
    assert_eq!(run(&dec, 10, 9), 9);
    assert_eq!(run(&dec, 1, 9), 0);
    assert_eq!(run(&dec, 0, 0), 0);
    assert_eq!(run(&dec, 0, 0xffff_ffff), 0xffff_ffff);
    assert_eq!(run(&dec, 0xffff_ffff, 0xffff_ffff), 0xffff_fffe);
}

#[test]
fn signed_and_unsigned_min_max_at_the_extremes() {
    let ty = |s: &str| Type::parse(s).unwrap();
    let mm = |op: Op, t: &str, old: u128, b: u128| {
        apply(&AtomOp::new(op, ty(t), 1, false).unwrap(), AtomSpace::Global, old, b, 0).model
    };
    let (imin32, imin64) = (0x8000_0000u128, 0x8000_0000_0000_0000u128);
    assert_eq!(mm(Op::Min, "s32", imin32, 0), imin32);
    assert_eq!(mm(Op::Min, "s32", 0x7fff_ffff, imin32), imin32);
    assert_eq!(mm(Op::Max, "s32", imin32, 0xffff_ffff), 0xffff_ffff); // max(INT_MIN, -1) = -1
    assert_eq!(mm(Op::Max, "s32", imin32, imin32), imin32);
    assert_eq!(mm(Op::Min, "u32", imin32, 1), 1);
    assert_eq!(mm(Op::Max, "u32", imin32, 0x7fff_ffff), imin32);
    assert_eq!(mm(Op::Min, "s64", imin64, 0x7fff_ffff_ffff_ffff), imin64);
    assert_eq!(mm(Op::Max, "s64", imin64, u64::MAX as u128), u64::MAX as u128);
    assert_eq!(mm(Op::Max, "u64", imin64, 1), imin64);
    assert_eq!(mm(Op::Min, "u64", u64::MAX as u128, 0), 0);
}

#[test]
fn integer_add_wraps_and_ignores_bits_above_the_element() {
    let add = |t: &str, old: u128, b: u128| {
        apply(
            &AtomOp::new(Op::Add, Type::parse(t).unwrap(), 1, false).unwrap(),
            AtomSpace::Global,
            old,
            b,
            0,
        )
        .model
    };
    assert_eq!(add("u32", 0xffff_ffff, 1), 0);
    assert_eq!(add("s32", 0x7fff_ffff, 1), 0x8000_0000);
    assert_eq!(add("u64", u64::MAX as u128, 2), 1);
    // The manual's first example, `atom.global.add.s32 d,[a],1` (L17586), from -1.
    assert_eq!(add("s32", 0xffff_ffff, 1), 0);
    // Garbage above bit 31 of the operands does not reach the result.
    assert_eq!(add("u32", 0xdead_0000_0000_0005, 0xbeef_0000_0000_0003), 8);
}

#[test]
fn cas_hit_and_miss_at_every_width() {
    for (t, n) in [("b16", 16u32), ("b32", 32), ("b64", 64), ("b128", 128)] {
        let a = AtomOp::new(Op::Cas, Type::parse(t).unwrap(), 1, false).unwrap();
        let m = if n == 128 { u128::MAX } else { (1u128 << n) - 1 };
        let old = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128 & m;
        let new = !old & m;
        assert_eq!(
            apply(&a, AtomSpace::Shared, old, old, new),
            Outcome::exact(new),
            "{t} hit"
        );
        assert_eq!(
            apply(&a, AtomSpace::Shared, old, old ^ 1, new),
            Outcome::exact(old),
            "{t} miss low bit"
        );
        let top = 1u128 << (n - 1);
        assert_eq!(
            apply(&a, AtomSpace::Global, old, old ^ top, new),
            Outcome::exact(old),
            "{t} miss top bit"
        );
    }
    let exch = AtomOp::new(Op::Exch, Type::parse("b128").unwrap(), 1, false).unwrap();
    assert_eq!(apply(&exch, AtomSpace::Global, 7, u128::MAX, 0).model, u128::MAX);
}

#[test]
fn f32_add_flushes_on_global_only() {
    let add = AtomOp::new(Op::Add, Type::parse("f32").unwrap(), 1, false).unwrap();
    let v4 = AtomOp::new(Op::Add, Type::parse("f32").unwrap(), 4, false).unwrap();
    let run = |sp, old, b| apply(&add, sp, old, b, 0).model;
    use AtomSpace::{Global as G, Shared as S};
    // A subnormal input: 2^-149 + 0.
    assert_eq!(run(S, 0x0000_0001, 0), 0x0000_0001);
    assert_eq!(run(G, 0x0000_0001, 0), 0);
    // The old value is an input too: min_normal + (-2^-149).
    assert_eq!(run(S, 0x0080_0000, 0x8000_0001), 0x007f_ffff);
    assert_eq!(run(G, 0x0080_0000, 0x8000_0001), 0x0080_0000);
    // A subnormal result from normal inputs, flushed with its sign.
    assert_eq!(run(S, 0x0080_0001, 0x8080_0000), 0x0000_0001);
    assert_eq!(run(G, 0x0080_0001, 0x8080_0000), 0x0000_0000);
    assert_eq!(run(S, 0x8080_0001, 0x0080_0000), 0x8000_0001);
    assert_eq!(run(G, 0x8080_0001, 0x0080_0000), 0x8000_0000);
    // −subnormal flushes to −0.0; −0.0 + +0.0 = +0.0 under round to nearest.
    assert_eq!(run(G, 0x8000_0005, 0), 0);
    assert_eq!(run(G, 0x8000_0005, 0x8000_0000), 0x8000_0000);
    // Subnormals summing to a normal: kept on shared, both flushed on global.
    assert_eq!(run(S, 0x0040_0000, 0x0040_0000), 0x0080_0000);
    assert_eq!(run(G, 0x0040_0000, 0x0040_0000), 0);
    // A result exactly the smallest normal is not flushed: 2^-125 − 2^-126.
    assert_eq!(run(G, 0x0100_0000, 0x8080_0000), 0x0080_0000);
    // The vector form is global only and flushes per element.
    assert_eq!(apply(&v4, G, 0x0000_0003, 0x3f80_0000, 0).model, 0x3f80_0000);
    assert_eq!(apply(&v4, G, 0x0000_0003, 0, 0).model, 0);
    // f64 is never flushed.
    let f64add = AtomOp::new(Op::Add, Type::parse("f64").unwrap(), 1, false).unwrap();
    assert_eq!(apply(&f64add, G, 1, 0, 0).model, 1);
    assert_eq!(apply(&f64add, G, 1, 1, 0).model, 2);
}

#[test]
fn half_adds_keep_subnormals_everywhere() {
    let ty = |s: &str| Type::parse(s).unwrap();
    for (t, lanes) in [("f16", 1u32), ("bf16", 1), ("f16x2", 2), ("bf16x2", 2)] {
        let a = AtomOp::new(Op::Add, ty(t), 1, true).unwrap();
        assert!(
            AtomOp::new(Op::Add, ty(t), 1, false).is_none(),
            "{t} needs .noftz (L17483)"
        );
        let one = if lanes == 2 { 0x0001_0001 } else { 1 };
        for sp in SPACES {
            assert_eq!(apply(&a, sp, one, one, 0), Outcome::exact(2 * one), "{t} {sp:?}");
        }
    }
    // f16 ulp at 1.0 is 2^-10: + 2^-11 (half an ulp) ties to even, 1.0; + 3×2^-12 (0.75 ulp)
    // rounds up one ulp; + 3×2^-11 (1.5 ulp) ties to even, two ulps.
    let f16 = AtomOp::new(Op::Add, ty("f16"), 1, true).unwrap();
    assert_eq!(apply(&f16, AtomSpace::Global, 0x3c00, 0x1000, 0).model, 0x3c00);
    assert_eq!(apply(&f16, AtomSpace::Global, 0x3c00, 0x1200, 0).model, 0x3c01);
    assert_eq!(apply(&f16, AtomSpace::Global, 0x3c00, 0x1600, 0).model, 0x3c02);
    // bf16: 1.0 + 2^-8 ties to even (1.0), 1.0 + 3×2^-9 rounds to 1 + 2^-7.
    let bf16 = AtomOp::new(Op::Add, ty("bf16"), 1, true).unwrap();
    assert_eq!(apply(&bf16, AtomSpace::Global, 0x3f80, 0x3b80, 0).model, 0x3f80);
    assert_eq!(apply(&bf16, AtomSpace::Global, 0x3f80, 0x3bc0, 0).model, 0x3f81);
}

#[test]
fn nan_results() {
    let ty = |s: &str| Type::parse(s).unwrap();
    let f32add = AtomOp::new(Op::Add, ty("f32"), 1, false).unwrap();
    for sp in SPACES {
        // Inf − Inf and a NaN operand: any NaN (L7141).
        for (old, b) in [
            (0x7f80_0000u128, 0xff80_0000u128),
            (0x7fc0_1234, 0x3f80_0000),
            (1, 0xff80_0001),
        ] {
            let o = apply(&f32add, sp, old, b, 0);
            assert_eq!(o.accept, Accept::Nan(spec::types::FloatFormat::F32));
            assert!(o.accepts(0xffc0_0000) && o.accepts(0x7f80_0001) && !o.accepts(0x7f80_0000));
        }
    }
    // f64 keeps the payload, the old value's first.
    let f64add = AtomOp::new(Op::Add, ty("f64"), 1, false).unwrap();
    let o = apply(
        &f64add,
        AtomSpace::Global,
        0x7ff0_0000_0000_0001,
        0xfff8_0000_0000_0002,
        0,
    );
    assert_eq!(o.model, 0x7ff8_0000_0000_0001);
    assert!(o.accepts(0xfff8_0000_0000_0002) && !o.accepts(0x7fff_ffff_ffff_ffff));
    // f16x2: the NaN lane accepts any NaN, the other lane is exact.
    let x2 = AtomOp::new(Op::Add, ty("f16x2"), 2, true).unwrap();
    let o = apply(&x2, AtomSpace::Global, 0x3c00_7c00, 0x3c00_fc00, 0);
    assert_eq!(o.model >> 16, 0x4000);
    assert!(o.accepts(0x4000_7e00) && o.accepts(0x4000_fc01) && !o.accepts(0x4001_7e00) && !o.accepts(0x4000_7c00));
    // Half min/max: a NaN and a number give the number, two NaNs any NaN, −0 < +0.
    let vmin = AtomOp::new(Op::Min, ty("bf16"), 8, true).unwrap();
    let vmax = AtomOp::new(Op::Max, ty("f16"), 4, true).unwrap();
    assert_eq!(
        apply(&vmin, AtomSpace::Global, 0x7fc1, 0xbf80, 0),
        Outcome::exact(0xbf80)
    );
    assert_eq!(
        apply(&vmax, AtomSpace::Global, 0x3c00, 0xfe00, 0),
        Outcome::exact(0x3c00)
    );
    assert!(apply(&vmax, AtomSpace::Global, 0x7e00, 0xfe00, 0).accepts(0x7c01));
    assert_eq!(apply(&vmin, AtomSpace::Global, 0x0000, 0x8000, 0).model, 0x8000);
    assert_eq!(apply(&vmax, AtomSpace::Global, 0x8000, 0x0000, 0).model, 0x0000);
    // .noftz: subnormals take part in the comparison.
    assert_eq!(apply(&vmin, AtomSpace::Global, 0x0001, 0x0000, 0).model, 0x0000);
    assert_eq!(apply(&vmax, AtomSpace::Global, 0x0001, 0x8001, 0).model, 0x0001);
}

#[test]
fn manual_examples() {
    // `atom.shared::cta.max.u32 d,[x+4],0` (L17587), `atom.global.cas.b32 d,[p],my_val,my_new_val`
    // (L17588), `atom.global.sys.add.u32 d, [a], 1` (L17589), `red.global.and.b32 [p],my_val`
    // (L17814).
    let f = |name: &str| {
        let ids = catalog().by_name(name);
        assert!(!ids.is_empty(), "{name}");
        AtomOp::of(&catalog().forms[ids[0]]).unwrap()
    };
    let max = f("atom.shared::cta.max.u32");
    assert_eq!(max.space(), Some(AtomSpace::Shared));
    assert_eq!(apply(&max, AtomSpace::Shared, 0xffff_ffff, 0, 0).model, 0xffff_ffff);
    let cas = f("atom.global.cas.b32");
    assert_eq!(apply(&cas, AtomSpace::Global, 5, 5, 9).model, 9);
    assert_eq!(apply(&cas, AtomSpace::Global, 6, 5, 9).model, 6);
    let add = f("atom.sys.global.add.u32");
    assert_eq!(apply(&add, AtomSpace::Global, 41, 1, 0).model, 42);
    let and = f("red.global.and.b32");
    assert!(and.is_red());
    assert_eq!(apply(&and, AtomSpace::Global, 0xf0f0, 0xff00, 0).model, 0xf000);
    let v8 = f("atom.global.max.noftz.v8.f16");
    assert_eq!((v8.lanes(), v8.elem_bytes()), (8, 2));
    let v4 = f("red.global.add.noftz.v4.f16x2");
    assert_eq!((v4.lanes(), v4.elem_bytes()), (4, 4));
    let b128 = f("atom.global.cas.b128");
    assert_eq!((b128.lanes(), b128.elem_bytes()), (1, 16));
}
