//! §9.7.9.21 cvt and §9.7.9.22 cvt.pack: the manual's examples, every code of the 8-, 6- and
//! 4-bit formats against a table written here from the format definitions (L1383-1411), rounding
//! around every representable value, all 65,536 f16 inputs, int ↔ float against wide-integer
//! rounding, float → int against the host's saturating casts, f32 → bf16/tf32 against bit-level
//! formulations, and a walk over every cvt form of the catalog.

mod common;
use common::{ev, run1 as out};
use spec::catalog::{catalog, Form};
use spec::eval::{eval, semantics};
use spec::value::{Accept, Args, Input, Outcome};
use std::cmp::Ordering;

/// The result of `name` on `ins`, which must be a single value.
fn exact(name: &str, ins: &[u128]) -> u128 {
    let o = out(name, ins);
    assert_eq!(o.accept, Accept::Exact, "{name} {ins:x?}");
    o.model
}

fn lane(x: u128, i: u32, w: u32) -> u32 {
    ((x >> (i * w)) & ((1 << w) - 1)) as u32
}

/// Whether `o` accepts its own model with lane `i` (`w` bits) replaced by `bits`.
fn lane_accepts(o: &Outcome, i: u32, w: u32, bits: u32) -> bool {
    let m = ((1u128 << w) - 1) << (i * w);
    o.accepts(o.model & !m | (bits as u128) << (i * w))
}

/// A deterministic xorshift generator for bulk checks.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

// ---------------------------------------------------------------------------------------------
// The formats, written from their definitions (L1383-1411; f16 and bf16 are IEEE 754 binary16
// and the top half of binary32), independent of spec::float.

#[derive(Clone, Copy, Debug, PartialEq)]
enum Sp {
    /// Exponent all ones: Inf (mantissa 0) or NaN.
    Ieee,
    /// No Inf; only the all-ones exponent-and-mantissa code is NaN ("NaN values limited to 0x7f
    /// and 0xff" for e4m3, "limited to 0xff" for ue8m0).
    AllOnesNan,
    /// "does not support infinity and NaN" (e2m1, e2m3, e3m2).
    Finite,
}

#[derive(Clone, Copy, Debug)]
struct Def {
    e: u32,
    m: u32,
    signed: bool,
    special: Sp,
}

const F16: Def = Def {
    e: 5,
    m: 10,
    signed: true,
    special: Sp::Ieee,
};
const E4M3: Def = Def {
    e: 4,
    m: 3,
    signed: true,
    special: Sp::AllOnesNan,
};
const E5M2: Def = Def {
    e: 5,
    m: 2,
    signed: true,
    special: Sp::Ieee,
};
const E2M1: Def = Def {
    e: 2,
    m: 1,
    signed: true,
    special: Sp::Finite,
};
const E2M3: Def = Def {
    e: 2,
    m: 3,
    signed: true,
    special: Sp::Finite,
};
const E3M2: Def = Def {
    e: 3,
    m: 2,
    signed: true,
    special: Sp::Finite,
};
/// ue8m0: a bare exponent, value 2^(code-127) (no zero, no subnormals), NaN 0xff.
const UE8M0: Def = Def {
    e: 8,
    m: 0,
    signed: false,
    special: Sp::AllOnesNan,
};

impl Def {
    fn bits(&self) -> u32 {
        self.signed as u32 + self.e + self.m
    }
    fn bias(&self) -> i32 {
        (1 << (self.e - 1)) - 1
    }
    fn sign_bit(&self) -> u32 {
        if self.signed {
            1 << (self.e + self.m)
        } else {
            0
        }
    }
    /// The value of `code`, `None` for NaN.
    fn value(&self, code: u32) -> Option<f64> {
        let sign = if code & self.sign_bit() != 0 { -1.0 } else { 1.0 };
        let exp = (code >> self.m) & ((1 << self.e) - 1);
        let man = code & ((1 << self.m) - 1);
        let top = exp == (1 << self.e) - 1;
        match self.special {
            Sp::Ieee if top => return (man == 0).then_some(sign * f64::INFINITY),
            Sp::AllOnesNan if top && man == (1 << self.m) - 1 => return None,
            _ => {}
        }
        let v = if self.m == 0 {
            2f64.powi(exp as i32 - self.bias())
        } else if exp == 0 {
            man as f64 * 2f64.powi(1 - self.bias() - self.m as i32)
        } else {
            (1.0 + man as f64 / (1u32 << self.m) as f64) * 2f64.powi(exp as i32 - self.bias())
        };
        Some(sign * v)
    }
}

/// The nonnegative finite values of a format with their codes, ascending.
struct Table {
    def: Def,
    vals: Vec<(f64, u32)>,
}

impl Table {
    fn new(def: Def) -> Table {
        let n = 1u32 << (def.bits() - def.signed as u32);
        let mut vals: Vec<(f64, u32)> = (0..n)
            .filter_map(|c| def.value(c).filter(|v| v.is_finite()).map(|v| (v, c)))
            .collect();
        vals.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
        Table { def, vals }
    }
    fn max(&self) -> (f64, u32) {
        *self.vals.last().unwrap()
    }
    /// Round to nearest, ties to the even code, of a non-NaN `x`, with `.satfinite`: a magnitude
    /// above MAX_NORM gives ±MAX_NORM (L13876).
    fn rne_satfinite(&self, x: f64) -> u32 {
        let sign = if x.is_sign_negative() { self.def.sign_bit() } else { 0 };
        let ax = x.abs();
        let (max, maxc) = self.max();
        if ax >= max {
            return sign | maxc;
        }
        let i = self.vals.partition_point(|&(v, _)| v <= ax) - 1;
        let ((lo, lc), (hi, hc)) = (self.vals[i], self.vals[i + 1]);
        // 2|x| and lo + hi are exact in f64: the comparison with the midpoint is exact.
        let c = if ax == lo {
            lc
        } else {
            match (2.0 * ax).partial_cmp(&(lo + hi)).unwrap() {
                Ordering::Less => lc,
                Ordering::Greater => hc,
                Ordering::Equal if lc & 1 == 0 => lc,
                Ordering::Equal => hc,
            }
        };
        sign | c
    }
}

fn f16_value(h: u32) -> Option<f64> {
    F16.value(h)
}

fn bf16_value(b: u32) -> f64 {
    f32::from_bits(b << 16) as f64
}

/// f32 inputs at and around every representable value of `t` and every midpoint between
/// neighbours (±1 f32 ulp), past MAX_NORM, the f32 extremes, both signs.
fn around_every_value(t: &Table) -> Vec<f32> {
    let mut pts: Vec<f64> = Vec::new();
    for w in t.vals.windows(2) {
        pts.push(w[0].0);
        pts.push((w[0].0 + w[1].0) / 2.0);
    }
    let max = t.max().0;
    pts.extend([max, max * 1.0625, max * 1.125, max * 1.25, max * 2.0, 2f64.powi(100)]);
    let mut xs = Vec::new();
    for p in pts {
        let b = (p as f32).to_bits();
        assert_eq!((p as f32) as f64, p, "not exact in f32");
        xs.push(f32::from_bits(b + 1));
        xs.push(f32::from_bits(b));
        if b > 0 {
            xs.push(f32::from_bits(b - 1));
        }
    }
    xs.extend([f32::MIN_POSITIVE, f32::MAX, f32::INFINITY, 1e-45]);
    let neg: Vec<f32> = xs.iter().map(|x| -x).collect();
    xs.extend(neg);
    xs
}

// ---------------------------------------------------------------------------------------------
// Widening from the narrow formats: every code decodes to its defined value.

/// Checks lane `i` (16 bits) of a `cvt.rn{.relu}.f16x2.<narrow>` result against `code` of `src`.
fn check_f16_lane(what: &str, src: &Def, code: u32, o: &Outcome, i: u32, relu: bool) {
    let got = lane(o.model, i, 16);
    match src.value(code) {
        None => {
            assert!(f16_value(got).is_none(), "{what}: {code:#x} gave {got:#06x}, not a NaN");
            if relu {
                // "NaN results are converted to canonical NaN" (L13872).
                assert!(got == 0x7fff && !lane_accepts(o, i, 16, 0xfe00), "{what}: {code:#x}");
            } else {
                assert!(lane_accepts(o, i, 16, 0xfe00), "{what}: {code:#x}: any NaN");
            }
        }
        Some(v) => {
            let want = if relu && v.is_sign_negative() { 0.0 } else { v };
            let g = f16_value(got).unwrap();
            assert!(
                g == want && g.is_sign_negative() == want.is_sign_negative(),
                "{what}: {code:#x} = {v} gave {got:#06x} = {g}"
            );
            assert!(!lane_accepts(o, i, 16, got ^ 1), "{what}: {code:#x}: too wide");
        }
    }
}

#[test]
fn fp8_codes_widen_to_their_values() {
    for (name, def) in [("e4m3x2", E4M3), ("e5m2x2", E5M2)] {
        for relu in [false, true] {
            let f = format!("cvt.rn{}.f16x2.{name}", if relu { ".relu" } else { "" });
            for c in 0..256u32 {
                let d = 255 - c;
                let o = out(&f, &[(c << 8 | d) as u128]);
                // The high byte goes to d[31:16] (L13663).
                check_f16_lane(&f, &def, c, &o, 1, relu);
                check_f16_lane(&f, &def, d, &o, 0, relu);
            }
        }
    }
    // Spot values: e4m3 0x7e = 448, 0x01 = 2^-9; e5m2 0x7b = 57344, 0x7c = +Inf.
    assert_eq!(exact("cvt.rn.f16x2.e4m3x2", &[0x7e01]), 0x5f00_1800);
    assert_eq!(exact("cvt.rn.f16x2.e5m2x2", &[0x7b7c]), 0x7b00_7c00);
}

#[test]
fn fp4_and_fp6_codes_widen_to_their_values() {
    for relu in [false, true] {
        let r = if relu { ".relu" } else { "" };
        let f = format!("cvt.rn{r}.f16x2.e2m1x2");
        for a in 0..256u32 {
            let o = out(&f, &[a as u128]);
            // d[31:16] from a[7:4] (L13667).
            check_f16_lane(&f, &E2M1, a >> 4, &o, 1, relu);
            check_f16_lane(&f, &E2M1, a & 0xf, &o, 0, relu);
        }
        for (name, def) in [("e2m3x2", E2M3), ("e3m2x2", E3M2)] {
            let f = format!("cvt.rn{r}.f16x2.{name}");
            for c in 0..64u32 {
                for d in 0..64u32 {
                    let o = out(&f, &[(c << 8 | d) as u128]);
                    check_f16_lane(&f, &def, c, &o, 1, relu);
                    check_f16_lane(&f, &def, d, &o, 0, relu);
                }
            }
            // A byte whose two MSBs are not 0 is outside the contract (L13673): that lane is
            // unconstrained, the other is not.
            let o = out(&f, &[0xc1_01]);
            assert!(lane_accepts(&o, 1, 16, 0x1234) && !lane_accepts(&o, 0, 16, 0x1234));
        }
    }
    // e2m1: 0x7 = 6.0, 0x1 = 0.5; e2m3 0x1f = 7.5; e3m2 0x1f = 28.
    assert_eq!(exact("cvt.rn.f16x2.e2m1x2", &[0x71]), 0x4600_3800);
    assert_eq!(exact("cvt.rn.f16x2.e2m3x2", &[0x1f_00]), 0x4780_0000);
    assert_eq!(exact("cvt.rn.f16x2.e3m2x2", &[0x1f_3f]), 0x4f00_cf00);
}

#[test]
fn ue8m0_codes_widen_to_bf16() {
    for c in 0..256u32 {
        let d = 255 - c;
        let o = out("cvt.rn.bf16x2.ue8m0x2", &[(c << 8 | d) as u128]);
        for (i, code) in [(1, c), (0, d)] {
            let got = lane(o.model, i, 16);
            match UE8M0.value(code) {
                None => {
                    assert!(f32::from_bits(got << 16).is_nan(), "{code:#x}");
                    assert!(lane_accepts(&o, i, 16, 0xffc0), "{code:#x}: any NaN");
                }
                Some(v) => assert_eq!(bf16_value(got), v, "{code:#x} gave {got:#06x}"),
            }
        }
    }
    // 2^-127 is a bf16 subnormal (0x0040); 2^0 = 0x3f80; 2^127 = 0x7f00.
    assert_eq!(exact("cvt.rn.bf16x2.ue8m0x2", &[0x00_7f]), 0x0040_3f80);
    assert_eq!(exact("cvt.rn.bf16x2.ue8m0x2", &[0xfe_80]), 0x7f00_4000);
}

// ---------------------------------------------------------------------------------------------
// Narrowing into the 8-, 6- and 4-bit formats, round to nearest even with .satfinite.

/// What `cvt.rn.satfinite{.relu}` gives for a non-NaN `x`.
fn narrow_ref(t: &Table, x: f64, relu: bool) -> u32 {
    let c = t.rne_satfinite(x);
    if relu && c & t.def.sign_bit() != 0 {
        0
    } else {
        c
    }
}

/// Checks lane `i` of a narrowing result for input `x` (any value, NaN included).
fn check_narrow_lane(what: &str, t: &Table, x: f64, o: &Outcome, i: u32, slot: u32, relu: bool) {
    let got = lane(o.model, i, slot);
    if x.is_nan() {
        if t.def.special == Sp::Finite {
            // "NaN results are converted to positive MAX_NORM" (L13876).
            assert_eq!(got, t.max().1, "{what}: NaN");
        } else if relu {
            assert_eq!(got, 0x7f, "{what}: NaN .relu is the canonical NaN");
        } else {
            assert!(t.def.value(got).is_none(), "{what}: NaN gave {got:#x}");
            assert!(lane_accepts(o, i, slot, 0xff), "{what}: any NaN");
        }
        return;
    }
    let want = narrow_ref(t, x, relu);
    assert_eq!(got, want, "{what}: {x:e} ({:#010x})", (x as f32).to_bits());
    assert!(!lane_accepts(o, i, slot, want ^ 1), "{what}: {x:e}: too wide");
}

#[test]
fn f32_to_narrow_rounds_around_every_value() {
    for (name, def, slot) in [
        ("e4m3x2", E4M3, 8),
        ("e5m2x2", E5M2, 8),
        ("e2m3x2", E2M3, 8),
        ("e3m2x2", E3M2, 8),
        ("e2m1x2", E2M1, 4),
    ] {
        let t = Table::new(def);
        for relu in [false, true] {
            let f = format!("cvt.rn.satfinite{}.{name}.f32", if relu { ".relu" } else { "" });
            let mut xs = around_every_value(&t);
            xs.extend([f32::NAN, -f32::NAN, f32::from_bits(0x7f80_0001)]);
            for &x in &xs {
                let y = -x / 3.0;
                let o = out(&f, &[x.to_bits() as u128, y.to_bits() as u128]);
                check_narrow_lane(&f, &t, x as f64, &o, 1, slot, relu);
                check_narrow_lane(&f, &t, y as f64, &o, 0, slot, relu);
                if slot == 8 && def.bits() == 6 {
                    assert_eq!(o.model & 0xc0c0, 0, "{f}: the two MSBs of each byte are 0");
                }
            }
        }
    }
    // Ties: e4m3 between 1.0 and 1.125 the tie 1.0625 goes to even 1.0 (0x38), 1.1875 to 1.25
    // (0x3a); 464 (between 448 and the non-existent 480) saturates to 448.
    assert_eq!(
        exact("cvt.rn.satfinite.e4m3x2.f32", &[0x3f88_0000, 0x3f98_0000]),
        0x383a
    );
    assert_eq!(
        exact("cvt.rn.satfinite.e4m3x2.f32", &[0x43e8_0000, 0xff80_0000]),
        0x7efe
    );
    // e2m1: 5.0 ties to 4 (even, 0x6), 2.5 to 2 (0x4), +Inf saturates to 6 (0x7).
    assert_eq!(exact("cvt.rn.satfinite.e2m1x2.f32", &[0x40a0_0000, 0x4020_0000]), 0x64);
    assert_eq!(exact("cvt.rn.satfinite.e2m1x2.f32", &[0x7f80_0000, 0xff80_0000]), 0x7f);
}

#[test]
fn every_f16_to_fp8() {
    for (name, def) in [("e4m3x2", E4M3), ("e5m2x2", E5M2)] {
        let t = Table::new(def);
        for relu in [false, true] {
            let f = format!("cvt.rn.satfinite{}.{name}.f16x2", if relu { ".relu" } else { "" });
            for h in 0..0x8000u32 {
                let (hi, lo) = (h, h | 0x8000);
                let o = out(&f, &[(hi << 16 | lo) as u128]);
                // a[31:16] → d[15:8] (L13661).
                for (i, x) in [(1, hi), (0, lo)] {
                    let v = f16_value(x).unwrap_or(f64::NAN);
                    check_narrow_lane(&f, &t, v, &o, i, 8, relu);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Integer ↔ float.

const INTS: [&str; 8] = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"];

fn int_range(t: &str) -> (i128, i128) {
    match t {
        "u8" => (0, u8::MAX as i128),
        "u16" => (0, u16::MAX as i128),
        "u32" => (0, u32::MAX as i128),
        "u64" => (0, u64::MAX as i128),
        "s8" => (i8::MIN as i128, i8::MAX as i128),
        "s16" => (i16::MIN as i128, i16::MAX as i128),
        "s32" => (i32::MIN as i128, i32::MAX as i128),
        "s64" => (i64::MIN as i128, i64::MAX as i128),
        _ => unreachable!("{t}"),
    }
}

fn int_mask(t: &str) -> u128 {
    (1u128 << t[1..].parse::<u32>().unwrap()) - 1
}

/// Integers at the edges that matter for 8-, 11-, 24- and 53-bit significands: powers of two,
/// their neighbours, the ties just above them (with even and odd kept parts), the top of each
/// binade, the type limits, f16's overflow threshold 65520.
fn boundary_ints() -> Vec<i128> {
    let mut v = vec![0i128, 1, 2, 3, 65504, 65519, 65520, 65535, 2049, 2051, 16_777_217];
    for k in 1..64u32 {
        let p2 = 1i128 << k;
        v.extend([p2 - 1, p2, p2 + 1]);
        for prec in [8u32, 11, 24, 53] {
            if k >= prec {
                let h = 1i128 << (k - prec);
                v.extend([
                    p2 + h - 1,
                    p2 + h,
                    p2 + h + 1,
                    p2 + 3 * h,
                    p2 + 3 * h + 1,
                    2 * p2 - h,
                    2 * p2 - h - 1,
                ]);
            }
        }
    }
    v.extend([u64::MAX as i128, u64::MAX as i128 - 1, i64::MIN as i128]);
    let neg: Vec<i128> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

/// `n` rounded to a format with `p` significant bits and largest finite value `max`, by integer
/// arithmetic; IEEE 754 overflow (±Inf, or ±max where the mode rounds toward zero).
fn round_int(n: i128, p: u32, max: f64, mode: &str) -> f64 {
    let neg = n < 0;
    let mag = n.unsigned_abs();
    let len = 128 - mag.leading_zeros();
    let r = if len <= p {
        mag as f64
    } else {
        let sh = len - p;
        let (q, rem, half) = (mag >> sh, mag & ((1 << sh) - 1), 1u128 << (sh - 1));
        let up = match mode {
            "rn" => rem > half || (rem == half && q & 1 == 1),
            "rz" => false,
            "rm" => neg && rem != 0,
            "rp" => !neg && rem != 0,
            _ => unreachable!(),
        };
        (q + up as u128) as f64 * 2f64.powi(sh as i32)
    };
    let r = if r > max {
        let inf = match mode {
            "rn" => true,
            "rz" => false,
            "rm" => neg,
            _ => !neg,
        };
        if inf {
            f64::INFINITY
        } else {
            max
        }
    } else {
        r
    };
    if neg {
        -r
    } else {
        r
    }
}

/// The value of a float result, decoded without spec::float.
fn float_value(t: &str, bits: u128) -> f64 {
    match t {
        "f16" => f16_value(bits as u32).unwrap_or(f64::NAN),
        "bf16" => bf16_value(bits as u32),
        "f32" => f32::from_bits(bits as u32) as f64,
        "f64" => f64::from_bits(bits as u64),
        _ => unreachable!("{t}"),
    }
}

/// (significant bits, largest finite value) of an IEEE-style type.
fn precision(t: &str) -> (u32, f64) {
    match t {
        "f16" => (11, 65504.0),
        "bf16" => (8, bf16_value(0x7f7f)),
        "f32" => (24, f32::MAX as f64),
        "f64" => (53, f64::MAX),
        _ => unreachable!("{t}"),
    }
}

fn cvt_forms() -> impl Iterator<Item = &'static Form> {
    catalog().forms.iter().filter(|f| f.section == "9.7.9.21")
}

fn is_int(t: &str) -> bool {
    INTS.contains(&t)
}

#[test]
fn int_to_float_against_wide_integer_rounding() {
    let ints = boundary_ints();
    let mut n_forms = 0;
    for f in cvt_forms() {
        let (dt, at) = (f.var("dt").unwrap(), f.var("at").unwrap());
        if !is_int(at) || is_int(dt) {
            continue;
        }
        n_forms += 1;
        let mode = f.var("frnd").unwrap();
        let (p, max) = precision(dt);
        let (lo, hi) = int_range(at);
        let sem = semantics(f).unwrap();
        for &n in ints.iter().filter(|&&n| (lo..=hi).contains(&n)) {
            let ins = [Input::bits(n as u128 & int_mask(at))];
            let o = &sem(f, &Args { ins: &ins, dsel: None }).unwrap()[0];
            assert_eq!(o.accept, Accept::Exact, "{}", f.name);
            let mut want = round_int(n, p, max, mode);
            if f.has("sat") {
                want = want.clamp(0.0, 1.0);
            }
            let got = float_value(dt, o.model);
            assert!(
                got == want && got.is_sign_negative() == want.is_sign_negative(),
                "{} {n}: got {got:e} ({:#x}), want {want:e}",
                f.name,
                o.model
            );
        }
    }
    // rn|rz|rm|rp x {ftz,-} x {sat,-} x 8 into f32, x {sat,-} x 8 into f16 and f64, x 8 into bf16.
    assert_eq!(n_forms, 4 * 4 * 8 + 4 * 2 * 8 * 2 + 4 * 8);
    // 2^24 + 1 ties to even 2^24 under .rn, and 2^24 + 3 to 2^24 + 4; .rp goes up.
    assert_eq!(exact("cvt.rn.f32.s32", &[16_777_217]), 0x4b80_0000);
    assert_eq!(exact("cvt.rn.f32.s32", &[16_777_219]), 0x4b80_0002);
    assert_eq!(exact("cvt.rp.f32.u32", &[16_777_217]), 0x4b80_0001);
    assert_eq!(exact("cvt.rn.f64.u64", &[(1 << 53) + 1]), 0x4340_0000_0000_0000);
    assert_eq!(
        exact("cvt.rm.f64.s64", &[(-(1i64 << 53) - 1) as u64 as u128]),
        0xc340_0000_0000_0001
    );
    // f16: 65520 rounds to Inf under .rn (the "~131,000" of L3188 read as IEEE overflow), to
    // 65504 under .rz.
    assert_eq!(exact("cvt.rn.f16.u32", &[65520]), 0x7c00);
    assert_eq!(exact("cvt.rz.f16.u32", &[65520]), 0x7bff);
    assert_eq!(exact("cvt.rn.sat.f16.s32", &[(-5i32) as u32 as u128]), 0);
}

fn host_round(x: f64, irnd: &str) -> f64 {
    match irnd {
        "rni" => x.round_ties_even(),
        "rzi" => x.trunc(),
        "rmi" => x.floor(),
        "rpi" => x.ceil(),
        _ => unreachable!("{irnd}"),
    }
}

/// Rust's float-to-integer `as` on numbers: saturating, the rule of L13818 (NaN is `nan_int`'s).
fn host_cast(x: f64, dt: &str) -> u128 {
    match dt {
        "u8" => x as u8 as u128,
        "u16" => x as u16 as u128,
        "u32" => x as u32 as u128,
        "u64" => x as u64 as u128,
        "s8" => x as i8 as u8 as u128,
        "s16" => x as i16 as u16 as u128,
        "s32" => x as i32 as u32 as u128,
        "s64" => x as i64 as u64 as u128,
        _ => unreachable!("{dt}"),
    }
}

/// A NaN converted to integer type `dt` from `at`, written from the H200's results of
/// 2026-11-26 (corpus/findings/h200/cvt-bitfield.md), which are PTX ISA 9.0's rule: 0 unless the
/// source is `.f64` or the destination 64 bits wide, then only the top bit of the destination
/// set (PTX ISA 8.7's "converted to 0", L13794, is superseded).
fn nan_int(at: &str, dt: &str) -> Outcome {
    let bits: u32 = dt[1..].parse().unwrap();
    Outcome::exact(if at == "f64" || bits == 64 { 1 << (bits - 1) } else { 0 })
}

#[test]
fn float_to_int_nan_is_the_h200s() {
    // Recorded on the H200 (failed.jsonl): the four NaN vectors each form failed on.
    let cases: [(&str, u128, u128); 8] = [
        ("cvt.rni.ftz.sat.u64.f32", 0x7fc0_0000, 0x8000_0000_0000_0000),
        ("cvt.rzi.s64.f16", 0x7c01, 0x8000_0000_0000_0000),
        ("cvt.rmi.u64.bf16", 0x7fc1, 0x8000_0000_0000_0000),
        ("cvt.rpi.sat.u8.f64", 0x7ff8_0000_0000_0000, 0x80),
        ("cvt.rzi.u16.f64", 0x7fff_ffff_ffff_ffff, 0x8000),
        ("cvt.rni.s32.f64", 0x7ff0_0000_0000_0001, 0x8000_0000),
        ("cvt.rmi.sat.u32.f64", 0x7ff8_0000_0000_0001, 0x8000_0000),
        ("cvt.rni.sat.s64.f64", 0x7ff8_0000_0000_0000, 0x8000_0000_0000_0000),
    ];
    for (name, a, h200) in cases {
        assert_eq!(out(name, &[a]), Outcome::exact(h200), "{name}");
    }
    // Forms the H200 passed: a NaN into 8-32 bits from f32, f16, bf16 is 0, exactly.
    for name in [
        "cvt.rni.s32.f32",
        "cvt.rzi.u8.f16",
        "cvt.rmi.s16.bf16",
        "cvt.rpi.ftz.u32.f32",
    ] {
        let a = if name.ends_with("f32") { 0x7fc0_0000 } else { 0x7fc1 };
        assert_eq!(out(name, &[a]), Outcome::exact(0), "{name}");
    }
}

/// Values where float → int conversions turn: halves, powers of two and the type limits, their
/// float neighbours.
fn f64_edges() -> Vec<f64> {
    let mut v = vec![0.0, 0.25, 0.5, 0.75, 1.5, 2.5, 3.5, -0.0, f64::INFINITY, f64::NAN];
    for k in 0..70 {
        let p = 2f64.powi(k);
        v.extend([p, p + 0.5, p - 0.5, p + 1.0, p - 1.0]);
    }
    for x in [127.5, 128.5, 255.5, 256.5, 32767.5, 65535.5, 2147483647.5, 4294967295.5] {
        v.push(x);
    }
    let neg: Vec<f64> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

#[test]
fn float_to_int_saturates_and_maps_nan_to_zero() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut f32s: Vec<u32> = (0..3000).map(|_| rng.next() as u32).collect();
    let mut f64s: Vec<u64> = (0..3000).map(|_| rng.next()).collect();
    for x in f64_edges() {
        let s = x as f32;
        f32s.extend([s.to_bits(), s.to_bits().wrapping_add(1), s.to_bits().wrapping_sub(1)]);
        f64s.extend([x.to_bits(), x.to_bits().wrapping_add(1), x.to_bits().wrapping_sub(1)]);
    }
    f32s.extend([1, 0x807f_ffff, 0x7fc0_0000, 0xff80_0001]);
    let all16: Vec<u64> = (0..0x10000).collect();
    let f32s: Vec<u64> = f32s.into_iter().map(u64::from).collect();
    let mut n_forms = 0;
    for f in cvt_forms() {
        let (dt, at) = (f.var("dt").unwrap(), f.var("at").unwrap());
        if !is_int(dt) || is_int(at) {
            continue;
        }
        n_forms += 1;
        let irnd = f.var("irnd").unwrap();
        let ftz = f.has("ftz");
        let sem = semantics(f).unwrap();
        let inputs = match at {
            "f32" => &f32s,
            "f64" => &f64s,
            _ => &all16,
        };
        for &b in inputs {
            let mut x = float_value(at, b as u128);
            if ftz && x != 0.0 && x.abs() < f32::MIN_POSITIVE as f64 {
                x = 0.0;
            }
            let ins = [Input::bits(b as u128)];
            let o = &sem(f, &Args { ins: &ins, dsel: None }).unwrap()[0];
            if x.is_nan() {
                assert_eq!(o, &nan_int(at, dt), "{} {b:#x}", f.name);
                continue;
            }
            let want = host_cast(host_round(x, irnd), dt);
            assert_eq!(o, &Outcome::exact(want), "{} {b:#x} ({x:e})", f.name);
        }
    }
    assert_eq!(n_forms, 4 * 8 * (4 + 2 + 2 + 2));
    // NaN: the H200's (and PTX ISA 9.0's) MININT pattern from an f64 source, not 8.7's 0
    // (L13794); out of range saturates by default (L13818, "cvt.s32.f64 ... saturates").
    assert_eq!(exact("cvt.rzi.s32.f64", &[f64::NAN.to_bits() as u128]), 0x8000_0000);
    assert_eq!(exact("cvt.rzi.s32.f32", &[0x7fc0_0000]), 0);
    assert_eq!(exact("cvt.rzi.s32.f64", &[1e10f64.to_bits() as u128]), 0x7fff_ffff);
    assert_eq!(exact("cvt.rzi.u32.f32", &[(-1.5f32).to_bits() as u128]), 0);
    assert_eq!(exact("cvt.rni.s8.f32", &[(-128.5f32).to_bits() as u128]), 0x80);
    assert_eq!(exact("cvt.rpi.ftz.s32.f32", &[1]), 0);
    assert_eq!(exact("cvt.rpi.s32.f32", &[1]), 1);
}

// ---------------------------------------------------------------------------------------------
// Float → float between f16, bf16, f32 and f64.

/// Random f32 bit patterns plus the edges of every binade's ends and the specials.
fn f32_inputs(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = Rng(seed);
    let mut v: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    for e in 0..256u32 {
        for m in [
            0u32, 1, 0x1fff, 0x2000, 0x3000, 0x7fff, 0x8000, 0x1_8000, 0x40_0000, 0x7f_ffff,
        ] {
            v.push(e << 23 | m);
            v.push(0x8000_0000 | e << 23 | m);
        }
    }
    v
}

fn is_sub32(b: u32) -> bool {
    b & 0x7f80_0000 == 0 && b & 0x7f_ffff != 0
}

#[test]
fn widening_is_exact_and_keeps_f64_payloads() {
    for h in 0..0x10000u32 {
        let v = f16_value(h);
        for name in ["cvt.f32.f16", "cvt.ftz.f32.f16"] {
            let o = out(name, &[h as u128]);
            match v {
                None => assert!(f32::from_bits(o.model as u32).is_nan() && o.accepts(0xffc0_0001)),
                Some(v) => {
                    let g = f32::from_bits(o.model as u32) as f64;
                    assert!(g == v && g.is_sign_negative() == v.is_sign_negative() && o.accept == Accept::Exact);
                }
            }
        }
        // Interpretation: the f64 result of a NaN keeps sign and payload, quieted.
        let want = match v {
            None => (h as u64 >> 15) << 63 | 0x7ff8 << 48 | ((h & 0x3ff) as u64) << 42,
            Some(v) => v.to_bits(),
        };
        assert_eq!(exact("cvt.f64.f16", &[h as u128]), want as u128, "{h:#x}");
    }
    for b in 0..0x10000u32 {
        let x = f32::from_bits(b << 16);
        let o = out("cvt.f32.bf16", &[b as u128]);
        if x.is_nan() {
            assert!(f32::from_bits(o.model as u32).is_nan() && o.accepts(0x7f80_0001));
        } else {
            assert_eq!(o, Outcome::exact((b << 16) as u128));
            // .ftz: a bf16 subnormal is an f32 subnormal result, flushed (L13856).
            let flushed = if is_sub32(b << 16) {
                b << 16 & 0x8000_0000
            } else {
                b << 16
            };
            assert_eq!(exact("cvt.ftz.f32.bf16", &[b as u128]), flushed as u128);
        }
        let want = if x.is_nan() {
            (b as u64 >> 15) << 63 | 0x7ff8 << 48 | ((b & 0x7f) as u64) << 45
        } else {
            (x as f64).to_bits()
        };
        assert_eq!(exact("cvt.f64.bf16", &[b as u128]), want as u128, "{b:#x}");
    }
    for b in f32_inputs(20_000, 1) {
        let x = f32::from_bits(b);
        let want = if x.is_nan() {
            (b as u64 >> 31) << 63 | 0x7ff8 << 48 | ((b & 0x7f_ffff) as u64) << 29
        } else {
            (x as f64).to_bits()
        };
        assert_eq!(exact("cvt.f64.f32", &[b as u128]), want as u128, "{b:#x}");
        if x.is_nan() {
            // The H200 widens the canonical f32 NaN whatever the input (2026-11-26); the kept
            // payload stays accepted.
            let o = out("cvt.ftz.f64.f32", &[b as u128]);
            assert_eq!(o.model, 0x7fff_ffff_e000_0000, "{b:#x}");
            assert!(
                o.accepts(want as u128) && !o.accepts(0x7ff8_0000_0000_0000 ^ 1),
                "{b:#x}"
            );
            continue;
        }
        let flushed = if is_sub32(b) { ((b >> 31) as u64) << 63 } else { want };
        assert_eq!(exact("cvt.ftz.f64.f32", &[b as u128]), flushed as u128, "{b:#x}");
    }
}

/// f32 → bf16 by bit arithmetic on the encoding: truncation, the carry of a rounding increment.
fn bf16_ref(b: u32, mode: &str) -> u32 {
    let (trunc, low, neg) = (b >> 16, b & 0xffff, b >> 31 == 1);
    match mode {
        "rn" => (b + 0x7fff + ((b >> 16) & 1)) >> 16,
        "rz" => trunc,
        "rm" => trunc + (low != 0 && neg) as u32,
        "rp" => trunc + (low != 0 && !neg) as u32,
        _ => unreachable!(),
    }
}

#[test]
fn f32_to_bf16_against_bit_arithmetic() {
    let inputs = f32_inputs(20_000, 2);
    let mut n_forms = 0;
    for f in cvt_forms().filter(|f| f.var("dt") == Some("bf16") && f.var("at") == Some("f32")) {
        n_forms += 1;
        let mode = f.var("frnd").unwrap();
        let sem = semantics(f).unwrap();
        for &b0 in &inputs {
            let b = if f.has("ftz") && is_sub32(b0) {
                b0 & 0x8000_0000
            } else {
                b0
            };
            let ins = [Input::bits(b0 as u128)];
            let o = &sem(f, &Args { ins: &ins, dsel: None }).unwrap()[0];
            if f32::from_bits(b).is_nan() {
                let relu = f.has("relu");
                assert!(
                    o.model == 0x7fff && (o.accept == Accept::Exact) == relu,
                    "{} {b0:#x}",
                    f.name
                );
                assert!(relu || o.accepts(0xffc1));
                continue;
            }
            let mut r = bf16_ref(b, mode);
            if f.has("satfinite") && r & 0x7fff == 0x7f80 {
                r = r & 0x8000 | 0x7f7f;
            }
            if f.has("relu") && r & 0x8000 != 0 {
                r = 0;
            }
            assert_eq!(o.model, r as u128, "{} {b0:#x}", f.name);
        }
    }
    assert_eq!(n_forms, 2 * 2 + 2 + 2 * 2 + 2 * 2);
}

#[test]
fn f32_to_f16_rounds_around_every_f16() {
    let t = Table::new(F16);
    let xs = around_every_value(&t);
    for &x in &xs {
        let b = x.to_bits() as u128;
        let x = x as f64;
        let sat = t.rne_satfinite(x);
        assert_eq!(exact("cvt.rn.satfinite.f16.f32", &[b]), sat as u128, "{x:e}");
        // Without .satfinite, 65520 and above overflow to Inf (IEEE).
        let inf = if x.is_sign_negative() { 0xfc00 } else { 0x7c00 };
        let rn = if x.abs() >= 65520.0 { inf } else { sat };
        assert_eq!(exact("cvt.rn.f16.f32", &[b]), rn as u128, "{x:e}");
        let relu = if sat & 0x8000 != 0 { 0 } else { sat };
        assert_eq!(out("cvt.rn.relu.satfinite.f16.f32", &[b]).model, relu as u128, "{x:e}");
    }
    // .ftz flushes the .f32 source only (L13856): an f32 subnormal becomes ±0, but 2^-20, an f16
    // subnormal result, stays.
    assert_eq!(exact("cvt.rn.ftz.f16.f32", &[0x8000_0001]), 0x8000);
    assert_eq!(exact("cvt.rn.ftz.f16.f32", &[0x3580_0000]), 0x0010);
    assert_eq!(exact("cvt.rn.f16.f32", &[0x3580_0000]), 0x0010);
    // .sat clamps to [0, 1], NaN to +0 (L13868), on f16 and f64 destinations too.
    assert_eq!(exact("cvt.rn.sat.f16.f32", &[0x4000_0000]), 0x3c00);
    assert_eq!(exact("cvt.rn.sat.f16.f32", &[0x7fc0_0000]), 0);
    assert_eq!(exact("cvt.rn.sat.f16.f32", &[0xbf00_0000]), 0);
    assert_eq!(exact("cvt.sat.f64.f32", &[0x3fc0_0000]), 0x3ff0_0000_0000_0000);
    assert_eq!(exact("cvt.sat.f64.f16", &[0x3800]), 0x3fe0_0000_0000_0000);
    // Packed: d[31:16] = cvt(a), d[15:0] = cvt(b) (L13710-13711).
    for w in xs.chunks_exact(2) {
        let (a, b) = (w[0].to_bits() as u128, w[1].to_bits() as u128);
        for m in ["rn", "rz", "rn.relu", "rz.satfinite", "rn.relu.satfinite"] {
            for (x2, x1) in [("f16x2", "f16"), ("bf16x2", "bf16")] {
                let d = out(&format!("cvt.{m}.{x2}.f32"), &[a, b]).model;
                let hi = out(&format!("cvt.{m}.{x1}.f32"), &[a]).model;
                let lo = out(&format!("cvt.{m}.{x1}.f32"), &[b]).model;
                assert_eq!(d, hi << 16 | lo, "cvt.{m}.{x2}.f32");
            }
        }
    }
}

/// f64 → f32 with the host's round-to-nearest-even cast, stepped one f32 ulp in the direction
/// the mode asks for when that cast went the other way.
fn f32_from_f64(x: f64, mode: &str) -> u32 {
    let rn = x as f32;
    let b = rn.to_bits();
    let (up, down) = if rn.is_sign_negative() {
        (b.wrapping_sub(1), b + 1)
    } else {
        (b + 1, b.wrapping_sub(1))
    };
    let r = rn as f64;
    match mode {
        "rn" => b,
        "rz" if r.abs() > x.abs() => {
            if rn.is_sign_negative() {
                up
            } else {
                down
            }
        }
        "rm" if r > x => {
            if b == 0 {
                0x8000_0001
            } else {
                down
            }
        }
        "rp" if r < x => {
            if b == 0x8000_0000 {
                1
            } else {
                up
            }
        }
        _ => b,
    }
}

#[test]
fn f64_to_f32_against_the_host() {
    let mut xs: Vec<f64> = Vec::new();
    for b in f32_inputs(5_000, 3) {
        let x = f32::from_bits(b);
        if !x.is_finite() {
            continue;
        }
        let next = f32::from_bits(b + 1) as f64;
        let (x, mid) = (x as f64, (x as f64 + next) / 2.0);
        for y in [x, mid] {
            let y = y.to_bits();
            xs.extend([y, y.wrapping_add(1), y.wrapping_sub(1)].map(f64::from_bits));
        }
    }
    xs.extend([1e39, -1e39, 1e-50, -1e-50, f64::MAX, f64::INFINITY, f64::NEG_INFINITY]);
    xs.retain(|x| !x.is_nan());
    for f in cvt_forms().filter(|f| f.var("dt") == Some("f32") && f.var("at") == Some("f64")) {
        let mode = f.var("frnd").unwrap();
        let sem = semantics(f).unwrap();
        for &x in &xs {
            let ins = [Input::bits(x.to_bits() as u128)];
            let o = &sem(f, &Args { ins: &ins, dsel: None }).unwrap()[0];
            let mut r = f32_from_f64(x, mode);
            if f.has("ftz") && is_sub32(r) {
                r &= 0x8000_0000;
            }
            if f.has("sat") {
                let v = f32::from_bits(r);
                r = if v.is_sign_negative() { 0 } else { v.min(1.0).to_bits() };
            }
            assert_eq!(o.model, r as u128, "{} {x:e}", f.name);
        }
        // NaN: any NaN (nan-unspec), +0 with .sat.
        let ins = [Input::bits(f64::NAN.to_bits() as u128)];
        let o = &sem(f, &Args { ins: &ins, dsel: None }).unwrap()[0];
        if f.has("sat") {
            assert_eq!(o, &Outcome::exact(0));
        } else {
            assert!(o.accepts(0x7fc0_0000) && o.accepts(0xffff_ffff), "{}", f.name);
        }
    }
}

#[test]
fn f16_bf16_both_ways() {
    let t = Table::new(F16);
    for b in 0..0x10000u32 {
        let x = bf16_value(b);
        let o = out("cvt.rn.f16.bf16", &[b as u128]);
        if x.is_nan() {
            assert!(o.accepts(0x7e00) && o.accepts(0xfc01));
            continue;
        }
        let sat = t.rne_satfinite(x);
        let want = if x.abs() >= 65520.0 { sat & 0x8000 | 0x7c00 } else { sat };
        assert_eq!(o, Outcome::exact(want as u128), "{b:#x}");
    }
    for h in 0..0x10000u32 {
        let o = out("cvt.rn.bf16.f16", &[h as u128]);
        match f16_value(h) {
            None => assert!(o.accepts(0x7fc0) && o.accepts(0xff81)),
            Some(v) => {
                let want = bf16_ref((v as f32).to_bits(), "rn");
                assert_eq!(o, Outcome::exact(want as u128), "{h:#x}");
            }
        }
    }
}

#[test]
fn same_type_rounds_to_integral() {
    // f32 and f64 against the host's rounding functions, which keep the sign of zero.
    for f in cvt_forms().filter(|f| f.var("dt") == f.var("at") && matches!(f.var("dt"), Some("f32" | "f64"))) {
        let irnd = f.var("irnd").filter(|s| !s.is_empty());
        let sem = semantics(f).unwrap();
        let f64s = f.var("dt") == Some("f64");
        let mut inputs: Vec<u64> = f32_inputs(3000, 4).into_iter().map(u64::from).collect();
        if f64s {
            inputs = inputs
                .into_iter()
                .map(|b| (f32::from_bits(b as u32) as f64).to_bits())
                .collect();
            inputs.extend(f64_edges().into_iter().map(f64::to_bits));
        }
        for b in inputs {
            let mut x = if f64s {
                f64::from_bits(b)
            } else {
                f32::from_bits(b as u32) as f64
            };
            if x.is_nan() {
                continue;
            }
            if f.has("ftz") && x != 0.0 && x.abs() < f32::MIN_POSITIVE as f64 {
                x = 0.0f64.copysign(x);
            }
            let mut r = irnd.map_or(x, |m| host_round(x, m));
            if f.has("sat") {
                r = if r.is_sign_negative() { 0.0 } else { r.min(1.0) };
            }
            let want = if f64s {
                r.to_bits() as u128
            } else {
                (r as f32).to_bits() as u128
            };
            let ins = [Input::bits(b as u128)];
            let o = &sem(f, &Args { ins: &ins, dsel: None }).unwrap()[0];
            assert_eq!(o.model, want, "{} {b:#x}", f.name);
        }
    }
    // f16 and bf16, every input.
    for irnd in ["rni", "rzi", "rmi", "rpi"] {
        for h in 0..0x10000u32 {
            if let Some(x) = f16_value(h).filter(|x| x.is_finite()) {
                let g = f16_value(exact(&format!("cvt.{irnd}.f16.f16"), &[h as u128]) as u32).unwrap();
                let r = host_round(x, irnd);
                assert!(g == r && g.is_sign_negative() == r.is_sign_negative(), "{irnd} {h:#x}");
            }
            let x = bf16_value(h);
            if x.is_finite() {
                let r = host_round(x, irnd) as f32;
                assert_eq!(
                    exact(&format!("cvt.{irnd}.bf16.bf16"), &[h as u128]),
                    (r.to_bits() >> 16) as u128
                );
            }
        }
    }
    // NaN: f32/f16/bf16 any NaN; f64 the quieted payload, and cvt.f64.f64 (a copy) may leave a
    // signalling NaN as it is.
    let o = out("cvt.f64.f64", &[0x7ff0_0000_0000_0001]);
    assert_eq!(o.model, 0x7ff8_0000_0000_0001);
    assert!(o.accepts(0x7ff0_0000_0000_0001) && !o.accepts(0x7fff_ffff_ffff_ffff));
    assert_eq!(
        out("cvt.rni.f64.f64", &[0x7ff0_0000_0000_0001]),
        Outcome::exact(0x7ff8_0000_0000_0001)
    );
    assert!(out("cvt.rni.f32.f32", &[0x7f80_0001]).accepts(0xffc0_0000));
    assert_eq!(exact("cvt.sat.f32.f32", &[0x7fc0_0000]), 0);
}

// ---------------------------------------------------------------------------------------------
// tf32, ue8m0, stochastic rounding.

#[test]
fn tf32_is_f32_with_the_low_13_bits_zero() {
    let mut n_forms = 0;
    for f in cvt_forms().filter(|f| f.var("dt") == Some("tf32")) {
        n_forms += 1;
        let mode = f.var("frnd").unwrap();
        let sem = semantics(f).unwrap();
        for b in f32_inputs(20_000, 5) {
            let ins = [Input::bits(b as u128)];
            let o = &sem(f, &Args { ins: &ins, dsel: None }).unwrap()[0];
            if f32::from_bits(b).is_nan() {
                assert_eq!(o.model, 0x7fff_e000, "{}", f.name);
                assert_eq!(o.accepts(0xffc0_0000), !f.has("relu"), "{}", f.name);
                continue;
            }
            // Rounding on the encoding: an increment at bit 12 (ties away) or bit 13's carry.
            let mut r = match mode {
                "rna" => (b + 0x1000) & 0xffff_e000,
                "rn" => (b + 0xfff + ((b >> 13) & 1)) & 0xffff_e000,
                "rz" => b & 0xffff_e000,
                _ => unreachable!(),
            };
            if f.has("satfinite") && r & 0x7fff_ffff == 0x7f80_0000 {
                r = r & 0x8000_0000 | 0x7f7f_e000;
            }
            if f.has("relu") && r >> 31 == 1 {
                r = 0;
            }
            assert_eq!(o.model, r as u128, "{} {b:#x}", f.name);
        }
    }
    // .rna, .rna.satfinite, .rn/.rz {relu}, .rn/.rz .satfinite {relu}.
    assert_eq!(n_forms, 2 + 4 + 4);
}

/// ue8m0 from a value: the sign is ignored (the format has none, L13876), zero and magnitudes
/// below 2^-127 give the smallest code (the format has no zero), NaN gives 0xff, and magnitudes
/// past 2^127 (Inf included) give the NaN 0xff, or 2^127 with .satfinite.
fn ue8m0_ref(x: f64, mode: &str, satfinite: bool) -> u32 {
    if x.is_nan() {
        return 0xff;
    }
    let ax = x.abs();
    if ax.is_infinite() {
        return if satfinite { 0xfe } else { 0xff };
    }
    if ax == 0.0 {
        return 0;
    }
    let b = ax.to_bits();
    let (e, pow2) = ((b >> 52) as i32 - 1023, b & ((1 << 52) - 1) == 0);
    let e = if mode == "rp" && !pow2 { e + 1 } else { e };
    match e + 127 {
        c if c < 0 => 0,
        c if c > 254 => {
            if satfinite {
                0xfe
            } else {
                0xff
            }
        }
        c => c as u32,
    }
}

#[test]
fn ue8m0_from_f32_and_bf16() {
    let mut xs = f32_inputs(4000, 6);
    for k in -150..=129 {
        let b = (2f64.powi(k) as f32).to_bits();
        xs.extend([b, b + 1, b.wrapping_sub(1), b | 0x8000_0000]);
    }
    let mut n_forms = 0;
    for f in cvt_forms().filter(|f| f.var("dt") == Some("ue8m0x2")) {
        n_forms += 1;
        let (mode, sf) = (f.var("frnd").unwrap(), f.has("satfinite"));
        let sem = semantics(f).unwrap();
        let bf16 = f.var("at") == Some("bf16x2");
        for w in xs.chunks_exact(2) {
            let (a, b) = (w[0], w[1]);
            let (ins, va, vb) = if bf16 {
                let a2 = a >> 16 << 16 | b >> 16;
                (vec![Input::bits(a2 as u128)], bf16_value(a >> 16), bf16_value(b >> 16))
            } else {
                let ins = vec![Input::bits(a as u128), Input::bits(b as u128)];
                (ins, f32::from_bits(a) as f64, f32::from_bits(b) as f64)
            };
            let o = &sem(f, &Args { ins: &ins, dsel: None }).unwrap()[0];
            let want = ue8m0_ref(va, mode, sf) << 8 | ue8m0_ref(vb, mode, sf);
            assert_eq!(o.model, want as u128, "{} {a:#x} {b:#x}", f.name);
        }
    }
    assert_eq!(n_forms, 8);
    let one_three = [0x3f80_0000, 0x4040_0000];
    assert_eq!(exact("cvt.rz.ue8m0x2.f32", &one_three), 0x7f80);
    assert_eq!(exact("cvt.rp.ue8m0x2.f32", &one_three), 0x7f81);
    assert_eq!(exact("cvt.rp.ue8m0x2.f32", &[0x7f7f_ffff, 0x7f80_0000]), 0xffff);
    assert_eq!(
        exact("cvt.rp.satfinite.ue8m0x2.f32", &[0x7f7f_ffff, 0x7f80_0000]),
        0xfefe
    );
    assert_eq!(exact("cvt.rz.ue8m0x2.f32", &[0, 0xc040_0000]), 0x0080);
    // 1.5 × 2^-127 (an f32 subnormal): .rz 2^-127, .rp 2^-126.
    assert_eq!(exact("cvt.rp.ue8m0x2.f32", &[0x0060_0000, 0x0060_0000]), 0x0101);
    assert_eq!(exact("cvt.rz.ue8m0x2.bf16x2", &[0x4040_7fc0]), 0x80ff);
}

#[test]
fn stochastic_rounding_adds_rbits_to_the_discarded_bits() {
    // f16x2: 1 + 2^-11 + 2^-12 discards 13 bits 0b1_1000_0000_0000 (0.75 ulp); rbits carry
    // from 0x800 up. a takes rbits[28:16], b rbits[12:0] (L13683); rbits[31:29] are ignored.
    let x = 0x3f80_1800u128;
    assert_eq!(exact("cvt.rs.f16x2.f32", &[x, x, 0x07ff_0800]), 0x3c00_3c01);
    assert_eq!(exact("cvt.rs.f16x2.f32", &[x, x, 0xe800_e7ff]), 0x3c01_3c00);
    assert_eq!(exact("cvt.rs.f16x2.f32", &[x | 1 << 31, x, 0x0800_0000]), 0xbc01_3c00);
    // Exact values never move, whatever the random bits.
    assert_eq!(
        exact("cvt.rs.f16x2.f32", &[0x3f80_0000, 0x3f80_0000, 0xffff_ffff]),
        0x3c00_3c00
    );
    // A subnormal result (1.5 × 2^-25 = 0.75 of f16's 2^-24) discards 24 bits: interpretation,
    // rbits line up with the top 13 of them.
    assert_eq!(
        exact("cvt.rs.f16x2.f32", &[0x3340_0000, 0x3340_0000, 0x0800_07ff]),
        0x0001_0000
    );
    // 65520 is 65504 + half an ulp: a carry overflows to Inf, or to MAX_NORM with .satfinite.
    let big = 0x477f_f000u128;
    assert_eq!(exact("cvt.rs.f16x2.f32", &[big, big, 0x1000_0fff]), 0x7c00_7bff);
    assert_eq!(
        exact("cvt.rs.satfinite.f16x2.f32", &[big, big, 0x1000_0fff]),
        0x7bff_7bff
    );
    assert_eq!(
        out("cvt.rs.relu.f16x2.f32", &[x | 1 << 31, 0x7fc0_0000, 0]).model,
        0x0000_7fff
    );
    // bf16x2: 1 + 2^-8 + 2^-9 discards 16 bits 0xc000; a takes rbits[31:16], b rbits[15:0].
    let y = 0x3f80_c000u128;
    assert_eq!(exact("cvt.rs.bf16x2.f32", &[y, y, 0x3fff_4000]), 0x3f80_3f81);
    // x4, fp8 and fp6 (interpretation): a and b both take rbits[31:16], e and f rbits[15:0], each
    // as 16 bits under the 20-21 discarded ones. 1 + 0.75 ulp carries from 0x4000.
    let (m3, m2) = (0x3f8c_0000u128, 0x3f98_0000u128);
    assert_eq!(
        exact("cvt.rs.satfinite.e4m3x4.f32", &[m3, m3, m3, m3, 0x4000_3fff]),
        0x3939_3838
    );
    assert_eq!(
        exact("cvt.rs.satfinite.e5m2x4.f32", &[m2, m2, m2, m2, 0x3fff_4000]),
        0x3c3c_3d3d
    );
    assert_eq!(
        exact("cvt.rs.satfinite.e2m3x4.f32", &[m3, m3, m3, m3, 0x4000_3fff]),
        0x0909_0808
    );
    assert_eq!(
        exact("cvt.rs.satfinite.e3m2x4.f32", &[m2, m2, m2, m2, 0x4000_3fff]),
        0x0d0d_0c0c
    );
    // x4, fp4 (interpretation): a rbits[31:24], b rbits[15:8], e rbits[23:16], f rbits[7:0]; 1.25
    // is 1 + half an ulp, carrying from 0x80.
    let q = 0x3fa0_0000u128;
    assert_eq!(exact("cvt.rs.satfinite.e2m1x4.f32", &[q, q, q, q, 0x807f_7f80]), 0x3223);
    // .satfinite caps the x4 forms under any random bits.
    let inf = 0x7f80_0000u128;
    assert_eq!(
        exact("cvt.rs.satfinite.e4m3x4.f32", &[inf, inf | 1 << 31, q, q, 0xffff_ffff]),
        0x7efe_3a3a
    );
}

// ---------------------------------------------------------------------------------------------
// Integer → integer and cvt.pack.

/// The source value through the host's own integer types.
fn native_value(t: &str, a: u128) -> i128 {
    match t {
        "u8" => a as u8 as i128,
        "u16" => a as u16 as i128,
        "u32" => a as u32 as i128,
        "u64" => a as u64 as i128,
        "s8" => a as u8 as i8 as i128,
        "s16" => a as u16 as i16 as i128,
        "s32" => a as u32 as i32 as i128,
        "s64" => a as u64 as i64 as i128,
        _ => unreachable!("{t}"),
    }
}

/// The destination bits through the host's `as` (chop) or `try_from` (saturate).
fn native_to(t: &str, v: i128, sat: bool) -> u128 {
    macro_rules! conv {
        ($T:ty, $U:ty) => {
            if sat {
                <$T>::try_from(v).unwrap_or(if v < 0 { <$T>::MIN } else { <$T>::MAX }) as $U as u128
            } else {
                v as $T as $U as u128
            }
        };
    }
    match t {
        "u8" => conv!(u8, u8),
        "u16" => conv!(u16, u16),
        "u32" => conv!(u32, u32),
        "u64" => conv!(u64, u64),
        "s8" => conv!(i8, u8),
        "s16" => conv!(i16, u16),
        "s32" => conv!(i32, u32),
        "s64" => conv!(i64, u64),
        _ => unreachable!("{t}"),
    }
}

#[test]
fn int_to_int_chops_extends_and_saturates() {
    let mut vals: Vec<u128> = boundary_ints().into_iter().map(|n| n as u128).collect();
    let mut rng = Rng(7);
    vals.extend((0..500).map(|_| rng.next() as u128));
    let mut n_forms = 0;
    for f in cvt_forms() {
        let (dt, at) = (f.var("dt").unwrap(), f.var("at").unwrap());
        if !is_int(dt) || !is_int(at) {
            continue;
        }
        n_forms += 1;
        let sem = semantics(f).unwrap();
        for &v in &vals {
            let a = v & int_mask(at);
            let want = native_to(dt, native_value(at, a), f.has("sat"));
            let ins = [Input::bits(a)];
            assert_eq!(
                sem(f, &Args { ins: &ins, dsel: None }).unwrap()[0],
                Outcome::exact(want),
                "{} {a:#x}",
                f.name
            );
        }
    }
    // 64 plain pairs; .sat only where the destination range does not cover the source's (L13816).
    assert_eq!(n_forms, 64 + (7 + 6 + 5 + 4) + (7 + 5 + 3 + 1));
    assert_eq!(exact("cvt.s16.u32", &[0x0001_8000]), 0x8000);
    assert_eq!(exact("cvt.sat.u32.s32", &[0xffff_fff0]), 0);
    assert_eq!(exact("cvt.sat.s32.u32", &[0x8000_0000]), 0x7fff_ffff);
}

/// `.convertType`'s range, written per type.
fn pack_range(ct: &str) -> (i32, i32) {
    match ct {
        "u16" => (0, u16::MAX as i32),
        "s16" => (i16::MIN as i32, i16::MAX as i32),
        "u8" => (0, u8::MAX as i32),
        "s8" => (i8::MIN as i32, i8::MAX as i32),
        "u4" => (0, 15),
        "s4" => (-8, 7),
        "u2" => (0, 3),
        "s2" => (-2, 1),
        _ => unreachable!("{ct}"),
    }
}

#[test]
fn cvt_pack_truth_tables() {
    let mut vals = vec![i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX, i32::MAX - 1];
    for k in 1..=16 {
        let p = 1i32 << k;
        vals.extend([p - 1, p, p + 1, -p - 1, -p, -p + 1]);
    }
    let mut n_forms = 0;
    for f in catalog().forms.iter().filter(|f| f.section == "9.7.9.22") {
        n_forms += 1;
        let ct = f.var("ct").unwrap();
        let size: u32 = ct[1..].parse().unwrap();
        let field = (1u32 << size) - 1;
        let (lo, hi) = pack_range(ct);
        let with_c = f.inputs.len() == 3;
        let sem = semantics(f).unwrap();
        for (i, &a) in vals.iter().enumerate() {
            for &b in &vals {
                let c = 0x9e37_79b9u32.rotate_left(i as u32);
                let mut ins = vec![Input::bits(a as u32 as u128), Input::bits(b as u32 as u128)];
                if with_c {
                    ins.push(Input::bits(c as u128));
                }
                let d = sem(f, &Args { ins: &ins, dsel: None }).unwrap()[0].model as u32;
                // b in the low field, a above it, c's low bits above both (L14044-14059).
                let (ta, tb) = (a.clamp(lo, hi) as u32 & field, b.clamp(lo, hi) as u32 & field);
                assert_eq!(d & field, tb, "{} a={a} b={b}", f.name);
                assert_eq!((d >> size) & field, ta, "{} a={a} b={b}", f.name);
                if with_c {
                    assert_eq!(d >> (2 * size), c & ((1 << (32 - 2 * size)) - 1), "{}", f.name);
                }
            }
        }
    }
    assert_eq!(n_forms, 2 + 2 + 4);
    // s2: -2..1 as 2-bit two's complement: -3 → 0b10, -1 → 0b11, 5 → 0b01.
    let d = exact("cvt.pack.sat.s2.s32.b32", &[(-3i32) as u32 as u128, 5, 0xffff_ffff]);
    assert_eq!(d, 0xffff_fff9);
    let d = exact(
        "cvt.pack.sat.s2.s32.b32",
        &[(-1i32) as u32 as u128, (-7i32) as u32 as u128, 0],
    );
    assert_eq!(d, 0b1110);
}

#[test]
fn cvt_pack_manual_examples_l14075() {
    // cvt.pack.sat.s16.s32 %r1, %r2, %r3 (32 → 16 bits).
    assert_eq!(ev("cvt.pack.sat.s16.s32 0x12345 -70000"), "0x7fff8000");
    // cvt.pack.sat.u8.s32.b32 %r4, %r5, %r6, 0, then %r7, %r8, %r9, %r4: %r7 = {%r5, %r6, %r8,
    // %r9} from the most significant byte.
    let r4 = ev("cvt.pack.sat.u8.s32.b32 300 -7 0");
    assert_eq!(r4, "0x0000ff00");
    assert_eq!(ev(&format!("cvt.pack.sat.u8.s32.b32 17 256 {r4}")), "0xff0011ff");
    assert_eq!(ev("cvt.pack.sat.u4.s32.b32 9 -9 0x12345678"), "0x34567890");
    assert_eq!(ev("cvt.pack.sat.s2.s32.b32 1 -2 0x1"), "0x00000016");
}

// ---------------------------------------------------------------------------------------------
// The manual's examples (L13978-14009), with values.

#[test]
fn manual_examples_l13978() {
    // ⚠ `cvt.f32.s32 f,i` and `cvt.s32.f64 j,r` (L13980-13981) omit the rounding modifier that
    // L13691-13699 makes mandatory for int ↔ float; the catalog has the rounded forms.
    assert_eq!(ev("cvt.rn.f32.s32 -7"), "0xc0e00000");
    // "float-to-int saturates by default".
    assert_eq!(ev("cvt.rzi.s32.f64 1e10"), "0x7fffffff");
    assert_eq!(ev("cvt.rzi.s32.f64 -1e10"), "0x80000000");
    assert_eq!(ev("cvt.rni.f32.f32 2.5"), "0x40000000");
    // ".ftz behavior for sm_1x": from sm_20 a subnormal passes unless .ftz is written.
    assert_eq!(ev("cvt.f32.f32 0f00000001"), "0x00000001");
    assert_eq!(ev("cvt.ftz.f32.f32 0f80000001"), "0x80000000");
    assert_eq!(ev("cvt.rn.relu.f16.f32 -1.5"), "0x0000");
    assert_eq!(ev("cvt.rn.relu.f16.f32 1.5"), "0x3e00");
    // 1 + 2^-11 truncates to 1.0; 65520 to 65504.
    assert_eq!(ev("cvt.rz.f16x2.f32 1.00048828125 65520.0"), "0x3c007bff");
    assert_eq!(ev("cvt.rn.relu.satfinite.f16x2.f32 -1.0 1e6"), "0x00007bff");
    // bf16 ties: 1 + 2^-8 → 1.0, 1 + 3 × 2^-8 → 1 + 2^-6.
    assert_eq!(ev("cvt.rn.bf16.f32 1.00390625"), "0x3f80");
    assert_eq!(ev("cvt.rn.bf16.f32 1.01171875"), "0x3f82");
    // ⚠ written `cvt.rz.relu.satfinite.bf16.f3 2` (L13988).
    assert_eq!(ev("cvt.rz.relu.satfinite.bf16.f32 inf"), "0x7f7f");
    assert_eq!(ev("cvt.rz.relu.satfinite.bf16.f32 -2.0"), "0x0000");
    assert_eq!(ev("cvt.rz.satfinite.bf16x2.f32 inf -inf"), "0x7f7fff7f");
    assert_eq!(ev("cvt.rn.relu.bf16x2.f32 nan -1.0"), "0x7fff0000");
    // tf32: 1 + 2^-11 is half of tf32's last place: .rna goes away from zero.
    assert_eq!(ev("cvt.rna.satfinite.tf32.f32 1.00048828125"), "0x3f802000");
    assert_eq!(ev("cvt.rn.satfinite.tf32.f32 1.00048828125"), "0x3f800000");
    assert_eq!(ev("cvt.rn.relu.tf32.f32 -3.0"), "0x00000000");
    // ⚠ `cvt.f64.bf16.rp`, `cvt.bf16.f16.rz`, `cvt.bf16.u64.rz`, `cvt.s8.bf16.rpi`,
    // `cvt.bf16.bf16.rpi` (L13993-13997) put the rounding modifier after the types, and the
    // widening cvt.f64.bf16 takes none (rounding "is illegal in all other instances", L13822).
    assert_eq!(ev("cvt.f64.bf16 0x3f80"), "0x3ff0000000000000");
    assert_eq!(ev("cvt.rz.bf16.f16 0x3c01"), "0x3f80");
    assert_eq!(ev("cvt.rz.bf16.u64 0xffffffffffffffff"), "0x5f7f");
    assert_eq!(ev("cvt.rpi.s8.bf16 0x4300"), "0x7f");
    assert_eq!(ev("cvt.rpi.s8.bf16 0xbfc0"), "0xff");
    assert_eq!(ev("cvt.rpi.bf16.bf16 0x3fc0"), "0x4000");
    assert_eq!(ev("cvt.rn.satfinite.e4m3x2.f32 1.0 -500.0"), "0x38fe");
    // a[31:16] = -1.0 → 0 under .relu, a[15:0] = 1.0 → e5m2 0x3c. ⚠ Written
    // `cvt.rn.relu.satfinite.e5m2x2.f16x2` (L14002) against the syntax's `.satfinite{.relu}`
    // order (L13622), which the catalog follows.
    assert_eq!(ev("cvt.rn.satfinite.relu.e5m2x2.f16x2 0xbc003c00"), "0x003c");
    assert_eq!(ev("cvt.rn.f16x2.e4m3x2 0x38b8"), "0x3c00bc00");
    assert_eq!(ev("cvt.rn.relu.f16x2.e2m1x2 0x2f"), "0x3c000000");
    assert_eq!(ev("cvt.rn.satfinite.e2m3x2.f32 7.5 -100.0"), "0x1f3f");
    assert_eq!(ev("cvt.rn.relu.f16x2.e3m2x2 0x1f3f"), "0x4f000000");
    assert_eq!(
        ev("cvt.rs.f16x2.f32 1.000732421875 1.000732421875 0x07ff0800"),
        "0x3c003c01"
    );
    assert_eq!(
        ev("cvt.rs.satfinite.e2m1x4.f32 {1.25,1.25,1.25,1.25} 0x807f7f80"),
        "0x3223"
    );
}

// ---------------------------------------------------------------------------------------------
// Every cvt and cvt.pack form: semantics, one result per destination, models that fit and are
// accepted by their own sets.

/// Hard operand values for a source operand of type `ty`, one per `k`.
fn operand(ty: spec::types::Type, name: &str, k: usize) -> u128 {
    use spec::types::{FloatFormat as F, Kind};
    const F32: [u32; 20] = [
        0,
        0x8000_0000,
        1,
        0x807f_ffff,
        0x0080_0000,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        0x3f80_0000,
        0x3f80_1000,
        0x3fc0_0000,
        0x4b80_0001,
        0xc2ff_0000,
        0x43e8_0000,
        0x477f_f000,
        0x3340_0000,
        0xbf7f_ffff,
    ];
    const F64: [u64; 12] = [
        0,
        1 << 63,
        1,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0x3ff0_0000_0000_0000,
        0x3ff8_0000_0000_0000,
        0x41e0_0000_0000_0000,
        0x47ef_ffff_f000_0000,
        0xbfe0_0000_0000_0001,
    ];
    const H16: [u16; 14] = [
        0, 0x8000, 1, 0x3ff, 0x400, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x7d00, 0x3c00, 0x3e00, 0xbc01, 0x5bf0,
    ];
    const B16: [u16; 12] = [
        0, 0x8000, 1, 0x7f, 0x80, 0x7f7f, 0x7f80, 0xff80, 0x7fc0, 0x3f80, 0x3fc0, 0xc2fe,
    ];
    const BYTES: [u8; 18] = [
        0x00, 0x01, 0x7f, 0x80, 0xff, 0x7e, 0xfe, 0x3f, 0x3e, 0x20, 0x1f, 0x0f, 0x08, 0x07, 0x38, 0x3c, 0xc0, 0x7c,
    ];
    const INTS: [i64; 12] = [
        0,
        1,
        -1,
        127,
        -128,
        255,
        65535,
        -32769,
        i32::MAX as i64,
        i32::MIN as i64,
        i64::MAX,
        i64::MIN,
    ];
    let pick = |n: usize, i: usize| (k * (2 * i + 1) + 3 * i) % n;
    let lanes = |w: u32, f: &dyn Fn(usize) -> u128| (0..ty.lanes).fold(0u128, |acc, i| acc | f(i as usize) << (w * i));
    match ty.kind {
        Kind::Float(F::F32) => F32[pick(F32.len(), 0)] as u128,
        Kind::Float(F::F64) => F64[pick(F64.len(), 0)] as u128,
        Kind::Float(F::F16) => lanes(16, &|i| H16[pick(H16.len(), i)] as u128),
        Kind::Float(F::Bf16) => lanes(16, &|i| B16[pick(B16.len(), i)] as u128),
        Kind::Signed | Kind::Unsigned => INTS[pick(INTS.len(), 0)] as u128 & ty.mask(),
        _ if name == "rbits" || name == "c" => (0x9e37_79b9_u32.rotate_left(k as u32) ^ k as u32) as u128,
        _ => (0..ty.bits() / 8).fold(0u128, |acc, i| {
            acc | (BYTES[pick(BYTES.len(), i as usize)] as u128) << (8 * i)
        }),
    }
}

#[test]
fn every_cvt_form_evaluates_to_well_formed_results() {
    let cat = catalog();
    let mut n = 0;
    for f in cat
        .forms
        .iter()
        .filter(|f| matches!(f.section, "9.7.9.21" | "9.7.9.22"))
    {
        n += 1;
        assert!(semantics(f).is_some(), "{} has no semantics", f.name);
        assert!(spec::cvt::semantics(f).is_some(), "{}", f.name);
        for k in 0..40 {
            let ins: Vec<Input> = f.inputs.iter().map(|o| Input::bits(operand(o.ty, o.name, k))).collect();
            let outs = eval(f, &Args { ins: &ins, dsel: None }).unwrap_or_else(|e| panic!("{}: {e}", f.name));
            assert_eq!(outs.len(), f.outputs.len(), "{}", f.name);
            for (o, d) in outs.iter().zip(&f.outputs) {
                let what = format!("{} {:x?}", f.name, ins.iter().map(|i| i.bits).collect::<Vec<_>>());
                assert_eq!(
                    o.model & !d.ty.mask(),
                    0,
                    "{what}: {:#x} does not fit {}",
                    o.model,
                    d.ty
                );
                assert!(o.accepts(o.model), "{what}");
                match &o.accept {
                    Accept::Nan(fmt) => {
                        let fm = spec::float::Fmt::of(*fmt);
                        assert!(fm.is_nan(o.model) && fm.bits <= d.ty.bits(), "{what}");
                    }
                    Accept::Lanes { lane_bits, lanes } => {
                        assert_eq!(lane_bits * lanes.len() as u32, d.ty.bits(), "{what}");
                        assert!(lanes.iter().all(|l| l.model >> lane_bits == 0), "{what}");
                    }
                    Accept::Bound(_) => panic!("{what}: cvt is exact"),
                    _ => {}
                }
            }
        }
    }
    assert!(n > 900, "{n} cvt forms");
}
