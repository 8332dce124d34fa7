//! Body of the `spec_vs_softfloat` fuzz target: the spec's IEEE operations against Berkeley
//! SoftFloat 3 (`softfloat-wrapper`), bit for bit.
//!
//! Included with `#[path]` by `fuzz/fuzz_targets/spec_vs_softfloat.rs` and by
//! `tests/fuzz_seeds.rs`: SoftFloat is a C library and stays a dev-dependency of `ptxconf`, so this
//! body cannot live in the library with the others (`src/fuzz_targets.rs`).
//!
//! Input bytes: two bytes pick a form from [`table`] (add, sub, mul, fma, mad, div, sqrt, rcp in
//! f16/f32/f64 and f16x2/f32x2 with `.rn .rz .rm .rp`, `.ftz`, `.sat`; mixed-precision
//! `add/sub/fma.f32.{f16,bf16}`; cvt float↔float, float↔int and round-to-integral), then each
//! operand lane takes a tag byte and its bits: raw bits, a special value (zeros, subnormal and
//! normal limits, ties, infinities, NaNs), a value with a chosen exponent (so sums cancel and
//! results land near the subnormal and overflow boundaries), or a neighbour of the previous
//! operand. Missing bytes read as zero, so every input checks one operation.
//!
//! The form is evaluated through the catalog (`spec::eval::eval`, e.g. on `add.rn.f32`) and its
//! outcome compared with SoftFloat's result, computed here without the spec:
//! - `.ftz` is a layer around SoftFloat: subnormal inputs of the flushed format become signed
//!   zeros and a result whose encoding is subnormal becomes a signed zero (tininess after
//!   rounding); on cvt it applies to the `.f32` side only (L13856);
//! - `.sat` clamps to [+0.0, 1.0], NaN and −0.0 to +0.0 (L7141, L7590);
//! - float→int is SoftFloat's round-to-integral, then the exact integer clamped to the
//!   destination (PTX saturates, L13818), NaN → 0; bf16 sources are widened exactly to f32 (the
//!   top half of an f32); results in bf16 other than round-to-integral are not checked here
//!   (softfloat-wrapper's BF16 rounds through f32 twice);
//! - mixed precision widens the f16/bf16 operands exactly to f32 and rounds once in f32.
//!
//! Verdict (the rules of `generators/tests/softfloat.rs`): a non-NaN reference must equal the
//! spec's model and be in its acceptance set. A NaN reference of an f16/bf16/f32 result (an
//! unspecified NaN, L7141) needs a NaN model and SoftFloat's NaN accepted (`Outcome::accepts`).
//! An f64 NaN with NaN operands must be a quieted operand NaN (payloads propagate, L7141), and
//! SoftFloat's NaN must be accepted when it is one of them (not for fma(0, ∞, NaN), where
//! SoftFloat's x86 flavour returns its default NaN); an f64 NaN made from numbers only needs to be
//! a NaN. Packed results are judged lane by lane, then as a whole by `accepts`.

use ptxconf::fuzz_targets::{Finding, Reach};
use softfloat_wrapper::{Float, RoundingMode, F16, F32, F64};
use spec::value::{Args, Input, Outcome};
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fp {
    F16,
    Bf16,
    F32,
    F64,
}

impl Fp {
    fn name(self) -> &'static str {
        ["f16", "bf16", "f32", "f64"][self as usize]
    }
    fn width(self) -> u32 {
        [16, 16, 32, 64][self as usize]
    }
    fn man_bits(self) -> u32 {
        [10, 7, 23, 52][self as usize]
    }
    fn exp_bits(self) -> u32 {
        self.width() - 1 - self.man_bits()
    }
    fn exp_max(self) -> u64 {
        (1 << self.exp_bits()) - 1
    }
    fn bias(self) -> u64 {
        self.exp_max() >> 1
    }
    fn mask(self) -> u64 {
        u64::MAX >> (64 - self.width())
    }
    fn sign_bit(self) -> u64 {
        1 << (self.width() - 1)
    }
    fn quiet_bit(self) -> u64 {
        1 << (self.man_bits() - 1)
    }
    fn exp_field(self, x: u64) -> u64 {
        (x >> self.man_bits()) & self.exp_max()
    }
    fn man_field(self, x: u64) -> u64 {
        x & ((1 << self.man_bits()) - 1)
    }
    fn pack(self, neg: bool, exp: u64, man: u64) -> u64 {
        (if neg { self.sign_bit() } else { 0 }) | exp << self.man_bits() | man
    }
    fn is_nan(self, x: u64) -> bool {
        self.exp_field(x) == self.exp_max() && self.man_field(x) != 0
    }
    fn is_subnormal(self, x: u64) -> bool {
        self.exp_field(x) == 0 && self.man_field(x) != 0
    }
    fn one(self) -> u64 {
        self.pack(false, self.bias(), 0)
    }
    /// Subnormals to signed zeros (`.ftz`).
    fn flush(self, x: u64) -> u64 {
        if self.is_subnormal(x) {
            x & self.sign_bit()
        } else {
            x
        }
    }
    /// `.sat`: [+0.0, 1.0], NaN and −0.0 to +0.0.
    fn saturate(self, x: u64) -> u64 {
        if self.is_nan(x) || x & self.sign_bit() != 0 {
            0
        } else {
            x.min(self.one()) // positive encodings order like their values
        }
    }
    /// The exact integer of an integral or infinite value, clamped to ±2^100.
    fn integral_value(self, x: u64) -> i128 {
        let big = 1i128 << 100;
        let e = self.exp_field(x);
        let mag = if e == self.exp_max() {
            big
        } else if e == 0 {
            0 // zero (a subnormal is not integral; round-to-integral never returns one)
        } else {
            let unb = e as i64 - self.bias() as i64;
            let sig = (self.man_field(x) | 1 << self.man_bits()) as i128;
            let shift = unb - self.man_bits() as i64;
            if unb >= 100 {
                big
            } else if shift >= 0 {
                sig << shift
            } else {
                sig >> -shift
            }
        };
        if x & self.sign_bit() != 0 {
            -mag
        } else {
            mag
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct IntTy {
    bits: u32,
    signed: bool,
}

impl IntTy {
    fn name(self) -> String {
        format!("{}{}", if self.signed { 's' } else { 'u' }, self.bits)
    }
    fn mask(self) -> u64 {
        u64::MAX >> (64 - self.bits)
    }
    fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }
    fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }
    fn value(self, x: u64) -> i128 {
        let x = x & self.mask();
        if self.signed && x >> (self.bits - 1) & 1 == 1 {
            x as i128 - (1i128 << self.bits)
        } else {
            x as i128
        }
    }
}

const INTS: [IntTy; 8] = [
    IntTy { bits: 8, signed: false },
    IntTy {
        bits: 16,
        signed: false,
    },
    IntTy {
        bits: 32,
        signed: false,
    },
    IntTy {
        bits: 64,
        signed: false,
    },
    IntTy { bits: 8, signed: true },
    IntTy { bits: 16, signed: true },
    IntTy { bits: 32, signed: true },
    IntTy { bits: 64, signed: true },
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    F(Fp),
    I(IntTy),
}

impl Ty {
    fn width(self) -> u32 {
        match self {
            Ty::F(f) => f.width(),
            Ty::I(t) => t.bits,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rnd {
    N,
    Z,
    M,
    P,
}

const RNDS: [Rnd; 4] = [Rnd::N, Rnd::Z, Rnd::M, Rnd::P];

impl Rnd {
    fn sf(self) -> RoundingMode {
        match self {
            Rnd::N => RoundingMode::TiesToEven,
            Rnd::Z => RoundingMode::TowardZero,
            Rnd::M => RoundingMode::TowardNegative,
            Rnd::P => RoundingMode::TowardPositive,
        }
    }
    fn frnd(self) -> &'static str {
        ["rn", "rz", "rm", "rp"][self as usize]
    }
    fn irnd(self) -> &'static str {
        ["rni", "rzi", "rmi", "rpi"][self as usize]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Sqrt,
    Rcp,
}

impl Op {
    fn arity(self) -> usize {
        match self {
            Op::Sqrt | Op::Rcp => 1,
            Op::Fma => 3,
            _ => 2,
        }
    }
}

/// How the reference result of a form is computed.
#[derive(Clone, Copy, Debug)]
enum Ref {
    /// `op.rnd{.ftz}{.sat}.type`, lane by lane for packed types.
    Arith {
        op: Op,
        fp: Fp,
        r: Rnd,
        ftz: bool,
        sat: bool,
    },
    /// `add/sub.rnd{.sat}.f32.at d, a, c` and `fma.rnd{.sat}.f32.at d, a, b, c`.
    Mixed {
        op: Op,
        src: Fp,
        r: Rnd,
        sat: bool,
    },
    IntToFloat {
        t: IntTy,
        fp: Fp,
        r: Rnd,
        sat: bool,
    },
    FloatToInt {
        fp: Fp,
        t: IntTy,
        r: Rnd,
        ftz: bool,
    },
    /// Float→float between different formats (`r: None` for the exact widenings).
    Convert {
        src: Fp,
        dst: Fp,
        r: Option<Rnd>,
        ftz: bool,
        sat: bool,
    },
    /// `cvt{.irnd}{.ftz}{.sat}.t.t`: round to integral, or a copy.
    Integral {
        fp: Fp,
        r: Option<Rnd>,
        ftz: bool,
        sat: bool,
    },
}

/// One form of the table: its PTX name, operand types (`lanes` per operand and result) and
/// reference.
struct Check {
    name: String,
    srcs: Vec<Ty>,
    dst: Ty,
    lanes: u32,
    reference: Ref,
    /// The catalog form, resolved once (`None`: the name is not a catalog form, a finding).
    form: Option<usize>,
}

fn m(on: bool, s: &'static str) -> &'static str {
    if on {
        s
    } else {
        ""
    }
}

/// Every form the target checks.
fn table() -> &'static [Check] {
    static TABLE: OnceLock<Vec<Check>> = OnceLock::new();
    TABLE.get_or_init(build_table)
}

fn build_table() -> Vec<Check> {
    let mut v: Vec<Check> = Vec::new();
    let mut push = |name: String, srcs: Vec<Ty>, dst: Ty, lanes: u32, reference: Ref| {
        let found = spec::catalog::catalog().lookup(&name).ok();
        let form = found.filter(|f| f.forms.len() == 1).map(|f| f.forms[0]);
        v.push(Check {
            name,
            srcs,
            dst,
            lanes,
            reference,
            form,
        });
    };
    let ops = [
        ("add", Op::Add),
        ("sub", Op::Sub),
        ("mul", Op::Mul),
        ("fma", Op::Fma),
        ("mad", Op::Fma),
        ("div", Op::Div),
        ("sqrt", Op::Sqrt),
        ("rcp", Op::Rcp),
    ];
    // f32 and f64: every rounding mode; .ftz on f32; .sat on f32 add, sub, mul, fma, mad.
    for fp in [Fp::F32, Fp::F64] {
        for (opcode, op) in ops {
            for r in RNDS {
                for ftz in [false, true] {
                    for sat in [false, true] {
                        let sat_ok = matches!(op, Op::Add | Op::Sub | Op::Mul | Op::Fma);
                        if fp == Fp::F64 && (ftz || sat) || sat && !sat_ok {
                            continue;
                        }
                        let name = format!(
                            "{opcode}.{}{}{}.{}",
                            r.frnd(),
                            m(ftz, ".ftz"),
                            m(sat, ".sat"),
                            fp.name()
                        );
                        let reference = Ref::Arith { op, fp, r, ftz, sat };
                        push(name, vec![Ty::F(fp); op.arity()], Ty::F(fp), 1, reference);
                    }
                }
            }
        }
    }
    // f16 and f16x2: .rn only (§9.7.4), .ftz, .sat; f32x2 (sm_100): every mode, .ftz.
    for (opcode, op) in &ops[..4] {
        for ftz in [false, true] {
            for sat in [false, true] {
                for (ty, lanes) in [("f16", 1), ("f16x2", 2)] {
                    let name = format!("{opcode}.rn{}{}.{ty}", m(ftz, ".ftz"), m(sat, ".sat"));
                    let reference = Ref::Arith {
                        op: *op,
                        fp: Fp::F16,
                        r: Rnd::N,
                        ftz,
                        sat,
                    };
                    push(name, vec![Ty::F(Fp::F16); op.arity()], Ty::F(Fp::F16), lanes, reference);
                }
            }
            for r in RNDS {
                let name = format!("{opcode}.{}{}.f32x2", r.frnd(), m(ftz, ".ftz"));
                let reference = Ref::Arith {
                    op: *op,
                    fp: Fp::F32,
                    r,
                    ftz,
                    sat: false,
                };
                push(name, vec![Ty::F(Fp::F32); op.arity()], Ty::F(Fp::F32), 2, reference);
            }
        }
    }
    // Mixed precision (sm_100): d:f32 = a:at c:f32, and fma's d:f32 = a:at b:at c:f32.
    for src in [Fp::F16, Fp::Bf16] {
        for (opcode, op) in [("add", Op::Add), ("sub", Op::Sub), ("fma", Op::Fma)] {
            for r in RNDS {
                for sat in [false, true] {
                    let name = format!("{opcode}.{}{}.f32.{}", r.frnd(), m(sat, ".sat"), src.name());
                    let srcs = if op == Op::Fma {
                        vec![Ty::F(src), Ty::F(src), Ty::F(Fp::F32)]
                    } else {
                        vec![Ty::F(src), Ty::F(Fp::F32)]
                    };
                    push(name, srcs, Ty::F(Fp::F32), 1, Ref::Mixed { op, src, r, sat });
                }
            }
        }
    }
    // int→float (.ftz allowed on f32 results, without effect: an integer is never subnormal).
    for t in INTS {
        for fp in [Fp::F16, Fp::F32, Fp::F64] {
            for r in RNDS {
                for ftz in [false, true] {
                    for sat in [false, true] {
                        if ftz && fp != Fp::F32 {
                            continue;
                        }
                        let name = format!(
                            "cvt.{}{}{}.{}.{}",
                            r.frnd(),
                            m(ftz, ".ftz"),
                            m(sat, ".sat"),
                            fp.name(),
                            t.name()
                        );
                        push(name, vec![Ty::I(t)], Ty::F(fp), 1, Ref::IntToFloat { t, fp, r, sat });
                    }
                }
            }
        }
    }
    // float→int (.sat is redundant, L13818: the same reference).
    for fp in [Fp::F16, Fp::Bf16, Fp::F32, Fp::F64] {
        for t in INTS {
            for r in RNDS {
                for ftz in [false, true] {
                    for sat in [false, true] {
                        if ftz && fp != Fp::F32 {
                            continue;
                        }
                        let name = format!(
                            "cvt.{}{}{}.{}.{}",
                            r.irnd(),
                            m(ftz, ".ftz"),
                            m(sat, ".sat"),
                            t.name(),
                            fp.name()
                        );
                        push(name, vec![Ty::F(fp)], Ty::I(t), 1, Ref::FloatToInt { fp, t, r, ftz });
                    }
                }
            }
        }
    }
    // float→float: narrowing with a rounding mode, widening without; .ftz where a side is f32;
    // .sat except on bf16 results.
    let narrow = [
        (Fp::F32, Fp::F16),
        (Fp::F64, Fp::F16),
        (Fp::F64, Fp::F32),
        (Fp::Bf16, Fp::F16),
    ];
    let widen = [
        (Fp::F16, Fp::F32),
        (Fp::F16, Fp::F64),
        (Fp::F32, Fp::F64),
        (Fp::Bf16, Fp::F32),
        (Fp::Bf16, Fp::F64),
    ];
    let conversions = narrow
        .iter()
        .flat_map(|&(s, d)| RNDS.map(|r| (s, d, Some(r))))
        .chain(widen.iter().map(|&(s, d)| (s, d, None)));
    for (src, dst, r) in conversions {
        for ftz in [false, true] {
            for sat in [false, true] {
                if ftz && src != Fp::F32 && dst != Fp::F32 {
                    continue;
                }
                let name = format!(
                    "cvt{}{}{}.{}.{}",
                    r.map(|r| format!(".{}", r.frnd())).unwrap_or_default(),
                    m(ftz, ".ftz"),
                    m(sat, ".sat"),
                    dst.name(),
                    src.name()
                );
                let reference = Ref::Convert { src, dst, r, ftz, sat };
                push(name, vec![Ty::F(src)], Ty::F(dst), 1, reference);
            }
        }
    }
    // Same type: round to integral, or a copy.
    for fp in [Fp::F16, Fp::Bf16, Fp::F32, Fp::F64] {
        for r in [None, Some(Rnd::N), Some(Rnd::Z), Some(Rnd::M), Some(Rnd::P)] {
            for ftz in [false, true] {
                for sat in [false, true] {
                    if ftz && fp != Fp::F32 || sat && fp == Fp::Bf16 {
                        continue;
                    }
                    let name = format!(
                        "cvt{}{}{}.{}.{}",
                        r.map(|r| format!(".{}", r.irnd())).unwrap_or_default(),
                        m(ftz, ".ftz"),
                        m(sat, ".sat"),
                        fp.name(),
                        fp.name()
                    );
                    push(name, vec![Ty::F(fp)], Ty::F(fp), 1, Ref::Integral { fp, r, ftz, sat });
                }
            }
        }
    }
    v
}

/// The names of the forms the target checks, and for each whether the catalog has it as exactly
/// one form with semantics in the spec (the seed test requires all).
#[allow(dead_code)]
pub fn forms() -> Vec<(String, bool)> {
    let cat = spec::catalog::catalog();
    table()
        .iter()
        .map(|c| {
            let ok = c.form.is_some_and(|i| {
                let f = &cat.forms[i];
                spec::eval::semantics(f).is_some() && f.inputs.len() == c.srcs.len() && f.outputs.len() == 1
            });
            (c.name.clone(), ok)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// SoftFloat references.

macro_rules! with_fp {
    ($fp:expr, $T:ident, $P:ident, $body:expr) => {
        match $fp {
            Fp::F16 => {
                type $T = F16;
                #[allow(dead_code)]
                type $P = u16;
                $body
            }
            Fp::F32 => {
                type $T = F32;
                #[allow(dead_code)]
                type $P = u32;
                $body
            }
            Fp::F64 => {
                type $T = F64;
                #[allow(dead_code)]
                type $P = u64;
                #[allow(clippy::unnecessary_cast)]
                let out = $body;
                out
            }
            Fp::Bf16 => unreachable!("bf16 arithmetic goes through f32"),
        }
    };
}

fn sf_arith(op: Op, fp: Fp, r: Rnd, x: &[u64]) -> u64 {
    let rm = r.sf();
    with_fp!(fp, T, P, {
        let v = |i: usize| T::from_bits(x[i] as P);
        let out = match op {
            Op::Add => v(0).add(v(1), rm),
            Op::Sub => v(0).sub(v(1), rm),
            Op::Mul => v(0).mul(v(1), rm),
            Op::Fma => v(0).fused_mul_add(v(1), v(2), rm),
            Op::Div => v(0).div(v(1), rm),
            Op::Sqrt => v(0).sqrt(rm),
            Op::Rcp => T::from_u8(1, rm).div(v(0), rm),
        };
        out.to_bits() as u64
    })
}

/// A bf16 as the f32 it is the top half of (exact); NaNs stay NaNs.
fn bf16_to_f32(x: u64) -> u64 {
    (x & 0xffff) << 16
}

/// Float→float with SoftFloat; bf16 sources are widened exactly to f32 first.
fn sf_convert(src: Fp, dst: Fp, x: u64, r: Rnd) -> u64 {
    let rm = r.sf();
    if src == Fp::Bf16 {
        let w = bf16_to_f32(x);
        return if dst == Fp::F32 {
            // The widening itself; a NaN comes back quieted like any operation's.
            if Fp::F32.is_nan(w) {
                w | Fp::F32.quiet_bit()
            } else {
                w
            }
        } else {
            sf_convert(Fp::F32, dst, w, r)
        };
    }
    with_fp!(src, T, P, {
        let a = T::from_bits(x as P);
        match dst {
            Fp::F16 => a.to_f16(rm).to_bits() as u64,
            Fp::F32 => a.to_f32(rm).to_bits() as u64,
            Fp::F64 => a.to_f64(rm).to_bits(),
            Fp::Bf16 => unreachable!("bf16 results are not checked against SoftFloat"),
        }
    })
}

fn sf_round_integral(fp: Fp, x: u64, r: Rnd) -> u64 {
    if fp == Fp::Bf16 {
        // An integral value of a bf16 is a bf16: the low half of the f32 result is zero.
        return sf_round_integral(Fp::F32, bf16_to_f32(x), r) >> 16;
    }
    with_fp!(
        fp,
        T,
        P,
        T::from_bits(x as P).round_to_integral(r.sf()).to_bits() as u64
    )
}

/// The identity through SoftFloat (`x + −0` is `x` for every number in round-to-nearest, and
/// quiets a NaN keeping its payload): the reference of a plain same-type cvt.
fn sf_copy(fp: Fp, x: u64) -> u64 {
    if fp == Fp::Bf16 {
        return if fp.is_nan(x) { x | fp.quiet_bit() } else { x };
    }
    with_fp!(fp, T, P, {
        T::from_bits(x as P)
            .add(T::negative_zero(), RoundingMode::TiesToEven)
            .to_bits() as u64
    })
}

fn sf_from_int(fp: Fp, v: i128, r: Rnd) -> u64 {
    let rm = r.sf();
    with_fp!(fp, T, P, {
        if v < 0 {
            T::from_i64(v as i64, rm).to_bits() as u64
        } else {
            T::from_u64(v as u64, rm).to_bits() as u64
        }
    })
}

/// The reference result of one lane.
fn reference(rf: Ref, x: &[u64]) -> u64 {
    match rf {
        Ref::Arith { op, fp, r, ftz, sat } => {
            let mut ins = [0u64; 3];
            for (i, &v) in x.iter().enumerate() {
                ins[i] = if ftz { fp.flush(v) } else { v };
            }
            let mut out = sf_arith(op, fp, r, &ins);
            if ftz {
                out = fp.flush(out);
            }
            if sat {
                out = fp.saturate(out);
            }
            out
        }
        Ref::Mixed { op, src, r, sat } => {
            let widen = |v: u64| sf_convert(src, Fp::F32, v, Rnd::N);
            let ins = match op {
                Op::Fma => [widen(x[0]), widen(x[1]), x[2]],
                _ => [widen(x[0]), x[1], 0],
            };
            let out = sf_arith(op, Fp::F32, r, &ins);
            if sat {
                Fp::F32.saturate(out)
            } else {
                out
            }
        }
        Ref::IntToFloat { t, fp, r, sat } => {
            let out = sf_from_int(fp, t.value(x[0]), r);
            if sat {
                fp.saturate(out)
            } else {
                out
            }
        }
        Ref::FloatToInt { fp, t, r, ftz } => {
            let a = if ftz { fp.flush(x[0]) } else { x[0] };
            if fp.is_nan(a) {
                return 0;
            }
            let v = fp.integral_value(sf_round_integral(fp, a, r));
            (v.clamp(t.min(), t.max()) as u64) & t.mask()
        }
        Ref::Convert { src, dst, r, ftz, sat } => {
            let a = if ftz && src == Fp::F32 { src.flush(x[0]) } else { x[0] };
            let mut out = sf_convert(src, dst, a, r.unwrap_or(Rnd::N));
            if ftz && dst == Fp::F32 {
                out = dst.flush(out);
            }
            if sat {
                out = dst.saturate(out);
            }
            out
        }
        Ref::Integral { fp, r, ftz, sat } => {
            let a = if ftz { fp.flush(x[0]) } else { x[0] };
            let out = match r {
                Some(r) => sf_round_integral(fp, a, r),
                None => sf_copy(fp, a),
            };
            if sat {
                fp.saturate(out)
            } else {
                out
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Operands from bytes.

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    /// `n` bytes, little-endian.
    fn bits(&mut self, n: u32) -> u64 {
        (0..n.div_ceil(8)).fold(0u64, |acc, i| acc | (self.byte() as u64) << (8 * i))
    }
}

/// Values where rounding, flushing and conversion change behaviour.
fn special(fp: Fp, k: u8) -> u64 {
    let (mb, emax, bias) = (fp.man_bits() as u64, fp.exp_max(), fp.bias());
    let man_all = (1u64 << mb) - 1;
    let p = |e: u64, man: u64| fp.pack(false, e, man);
    let vals = [
        0,
        1,                                     // smallest subnormal
        man_all,                               // largest subnormal
        1 << (mb - 1),                         // a subnormal half way
        p(1, 0),                               // smallest normal
        p(1, 1),                               //
        p(emax - 1, man_all),                  // largest finite
        p(emax - 1, man_all - 1),              //
        p(emax, 0),                            // infinity
        p(emax, fp.quiet_bit()),               // quiet NaN
        p(emax, 1),                            // signalling NaN
        p(emax, man_all),                      // NaN, every payload bit
        fp.one(),                              // 1.0
        p(bias - 1, man_all),                  // just below 1.0
        p(bias, 1),                            // just above 1.0
        p(bias - 1, 0),                        // 0.5
        p(bias, 1 << (mb - 1)),                // 1.5
        p(bias + 1, 1 << (mb - 2)),            // 2.5
        p(bias + mb, 0),                       // 2^mb: the last exponent with a fraction bit
        p(bias + mb - 1, man_all),             // largest value with a fraction
        p((bias + 31).min(emax - 1), 0),       // 2^31
        p((bias + 32).min(emax - 1), 0),       // 2^32
        p((bias + 63).min(emax - 1), 0),       // 2^63
        p((bias + 64).min(emax - 1), 0),       // 2^64
        p((bias + 15).min(emax - 1), 0),       // 2^15
        p((bias + 7).min(emax - 1), 0),        // 2^7
        p((bias + 31).min(emax - 1), man_all), // just below 2^32
        p(bias + 1, 0),                        // 2.0
        p(bias - 1, 1),                        // just above 0.5
    ];
    let v = vals[(k & 0x7f) as usize % vals.len()];
    if k & 0x80 != 0 {
        v | fp.sign_bit()
    } else {
        v
    }
}

fn int_special(t: IntTy, k: u8) -> u64 {
    let vals: [i128; 16] = [
        0,
        1,
        -1,
        t.min(),
        t.max(),
        t.min() + 1,
        t.max() - 1,
        (1 << 24) + 1, // the first integer f32 cannot hold
        (1 << 53) + 1, // f64's
        (1 << 11) + 1, // f16's
        65504,         // largest f16
        65520,         // f16 rounding to infinity in round-to-nearest
        (1 << 24) + 3,
        -(1 << 24) - 1,
        (1 << 62) + 1,
        (1 << 63) - 512,
    ];
    (vals[k as usize % vals.len()] as u64) & t.mask()
}

/// One lane's bits for type `ty`; `prev` is the previous lane's or operand's (same type).
fn operand(b: &mut Bytes, ty: Ty, prev: Option<u64>) -> u64 {
    let tag = b.byte();
    match ty {
        Ty::I(t) => match tag % 2 {
            0 => b.bits(t.bits) & t.mask(),
            _ => int_special(t, b.byte()),
        },
        Ty::F(fp) => match tag % 4 {
            0 => b.bits(fp.width()) & fp.mask(),
            1 => special(fp, b.byte()),
            2 => {
                // A chosen exponent, spread over the whole range, and a random fraction.
                let e = b.bits(16) % (fp.exp_max() + 1);
                let man = b.bits(fp.man_bits()) & ((1 << fp.man_bits()) - 1);
                fp.pack(tag & 4 != 0, e, man)
            }
            _ => {
                // A neighbour of the previous operand, possibly negated: sums that cancel.
                let p = prev.unwrap_or_else(|| fp.one());
                let delta = b.byte() as i8 as i64;
                let n = (p as i64).wrapping_add(delta) as u64 & fp.mask();
                if tag & 4 != 0 {
                    n ^ fp.sign_bit()
                } else {
                    n
                }
            }
        },
    }
}

// ---------------------------------------------------------------------------------------------
// The body.

/// Runs one input: picks a form and its operands, evaluates it on the spec and on SoftFloat, and
/// returns the difference as a report.
pub fn spec_vs_softfloat(data: &[u8]) -> Result<Reach, Finding> {
    let table = table();
    let mut b = Bytes(data);
    let pick = (b.byte() as usize | (b.byte() as usize) << 8) % table.len();
    let c = &table[pick];
    let cat = spec::catalog::catalog();
    let Some(fi) = c.form else {
        return Err(format!("spec_vs_softfloat: `{}` is not one catalog form", c.name));
    };
    let form = &cat.forms[fi];
    let Some(sem) = spec::eval::semantics(form) else {
        return Err(format!("spec_vs_softfloat: `{}` has no semantics in the spec", c.name));
    };
    // Operands lane by lane; each lane's neighbour is the previous operand's same lane, or the
    // previous lane.
    let mut lanes: Vec<Vec<u64>> = Vec::new();
    let mut prev: Option<u64> = None;
    for (i, &ty) in c.srcs.iter().enumerate() {
        let above = lanes.last().filter(|_| i > 0 && c.srcs[i - 1] == ty);
        let mut ls = Vec::new();
        for l in 0..c.lanes as usize {
            let p = above.map_or(prev, |v| Some(v[l]));
            let x = operand(&mut b, ty, p);
            prev = Some(x);
            ls.push(x);
        }
        lanes.push(ls);
    }
    let ins: Vec<Input> = c
        .srcs
        .iter()
        .zip(&lanes)
        .map(|(ty, ls)| Input::bits(pack(ty.width(), ls)))
        .collect();
    let want: Vec<u64> = (0..c.lanes as usize)
        .map(|l| {
            let x: Vec<u64> = lanes.iter().map(|ls| ls[l]).collect();
            reference(c.reference, &x)
        })
        .collect();
    let res = sem(form, &Args { ins: &ins, dsel: None });
    let why = match &res {
        Err(e) => Some(format!("evaluation error: {e}")),
        Ok(out) if out.len() != 1 => Some(format!("{} outcomes", out.len())),
        Ok(out) => verdict(c, &lanes, &out[0], &want),
    };
    match why {
        None => Ok(Reach::Checked),
        Some(why) => {
            let ops: Vec<String> = c
                .srcs
                .iter()
                .zip(&ins)
                .map(|(t, x)| hex(t.width() * c.lanes, x.bits))
                .collect();
            let spec = match &res {
                Ok(out) if !out.is_empty() => {
                    format!(
                        "spec model {} accept {:?}",
                        hex(c.dst.width() * c.lanes, out[0].model),
                        out[0].accept
                    )
                }
                _ => "spec: no outcome".to_string(),
            };
            Err(format!(
                "spec_vs_softfloat: {} {}: {why}\n  {spec}\n  SoftFloat {}\n  (`ptxconf eval {} {}`)",
                c.name,
                ops.join(" "),
                hex(c.dst.width() * c.lanes, pack(c.dst.width(), &want)),
                c.name,
                ops.join(" ")
            ))
        }
    }
}

fn pack(width: u32, lanes: &[u64]) -> u128 {
    lanes
        .iter()
        .enumerate()
        .fold(0u128, |acc, (i, &x)| acc | (x as u128) << (i as u32 * width))
}

fn hex(width: u32, x: u128) -> String {
    format!("{:#0w$x}", x, w = 2 + width.div_ceil(4) as usize)
}

/// Why `out` is not acceptable for SoftFloat's lanes `want`, or `None`.
fn verdict(c: &Check, ops: &[Vec<u64>], out: &Outcome, want: &[u64]) -> Option<String> {
    let fp = match c.dst {
        Ty::I(_) => {
            let w = want[0] as u128;
            return (out.model != w || !out.accepts(w)).then(|| "integer result differs".into());
        }
        Ty::F(fp) => fp,
    };
    let width = fp.width();
    if out.model >> (width * c.lanes) != 0 {
        return Some("model wider than the destination".into());
    }
    let packed = pack(width, want);
    for (l, &w) in want.iter().enumerate() {
        let model = (out.model >> (l as u32 * width)) as u64 & fp.mask();
        let at = if c.lanes > 1 {
            format!("lane {l}: ")
        } else {
            String::new()
        };
        if !fp.is_nan(w) {
            if model != w {
                return Some(format!("{at}model differs"));
            }
            continue;
        }
        if !fp.is_nan(model) {
            return Some(format!("{at}expected a NaN"));
        }
        if fp == Fp::F64 {
            // The quieted operand NaNs, widened to f64 where the operand is narrower.
            let quieted: Vec<u64> = c
                .srcs
                .iter()
                .zip(ops)
                .filter_map(|(t, x)| match *t {
                    Ty::F(s) if s.is_nan(x[l]) => {
                        let payload = (s.man_field(x[l]) | s.quiet_bit()) << (52 - s.man_bits());
                        Some(fp.pack(x[l] & s.sign_bit() != 0, fp.exp_max(), payload))
                    }
                    _ => None,
                })
                .collect();
            if quieted.is_empty() {
                return None; // a NaN made from numbers: any NaN
            }
            if !quieted.contains(&model) {
                return Some(format!("model is not a quieted operand NaN {quieted:x?}"));
            }
            if !quieted.contains(&w) {
                return None; // SoftFloat's default NaN (fma(0, ∞, NaN)): not PTX's rule
            }
        }
    }
    (!out.accepts(packed)).then(|| "SoftFloat's result is not in the spec's acceptance set".into())
}

// ---------------------------------------------------------------------------------------------
// Seeds and known answers (used by tests/fuzz_seeds.rs).

/// The name of the form an input checks.
#[allow(dead_code)]
pub fn form_of(data: &[u8]) -> &'static str {
    let table = table();
    let mut b = Bytes(data);
    let pick = (b.byte() as usize | (b.byte() as usize) << 8) % table.len();
    &table[pick].name
}

/// The input that checks form `name` on these operand lanes (raw bits, lane 0 first, operands in
/// PTX order), or `None` when the target does not check `name`.
#[allow(dead_code)]
pub fn encode(name: &str, lanes: &[u64]) -> Option<Vec<u8>> {
    let i = table().iter().position(|c| c.name == name)?;
    let c = &table()[i];
    let mut v = vec![i as u8, (i >> 8) as u8];
    let widths = c
        .srcs
        .iter()
        .flat_map(|t| std::iter::repeat_n(t.width(), c.lanes as usize));
    for (w, &x) in widths.zip(lanes) {
        v.push(0); // tag: raw bits
        v.extend_from_slice(&x.to_le_bytes()[..w.div_ceil(8) as usize]);
    }
    Some(v)
}

/// SoftFloat's reference for one lane of form `name` (the harness's own answer, for known-answer
/// tests of the harness).
#[allow(dead_code)]
pub fn reference_of(name: &str, operands: &[u64]) -> Option<u64> {
    let c = table().iter().find(|c| c.name == name)?;
    Some(reference(c.reference, operands))
}

/// The verdict on an outcome of form `name` for operand lanes `operands` (one `Vec` per operand):
/// `None` when acceptable, else why not (for tests of the verdict itself).
#[allow(dead_code)]
pub fn verdict_of(name: &str, operands: &[Vec<u64>], out: &Outcome) -> Option<String> {
    let c = table().iter().find(|c| c.name == name)?;
    let want: Vec<u64> = (0..c.lanes as usize)
        .map(|l| {
            let x: Vec<u64> = operands.iter().map(|ls| ls[l]).collect();
            reference(c.reference, &x)
        })
        .collect();
    verdict(c, operands, out, &want)
}
