//! Block-scaled `mma` (§9.7.14.3, L19942-20104): `.kind::mxf8f6f4`, `.kind::mxf4` and
//! `.kind::mxf4nvf4` with `.block_scale`, at the level of matrices — dense `mma.sync` and the
//! sparse `mma.sp::ordered_metadata` (§9.7.14.6.3, L24431-24449), whose A is decompressed
//! first ([`crate::matrix::Sparsity::decompress`]) and then multiplied exactly as a dense one.
//!
//! # The manual
//!
//! `D = (A * scale_A) * (B * scale_B) + C` (L19956). `scale_A` is M × SFA_N: each row of A is
//! cut into SFA_N blocks along K and block `v` of row `i` is multiplied by `scale_A[i][v]`;
//! `scale_B` is SFB_M × N, block `v` of column `j` of B multiplied by `scale_B[v][j]`
//! (L19958-19960). SFA_N = SFB_M is the `.scale_vec_size`: 1, 2 or 4 (Table 34, L19966-19990),
//! so a block is K / SFA_N consecutive k. The scale factors are `.ue8m0` (2^(e−127), NaN 0xff,
//! L1407) or `.ue4m3` (7 bits, unsigned, NaN 0x7f, L1411). Without `.scale_vec_size`,
//! `.kind::mxf4` is 2X and `.kind::mxf8f6f4` 1X (L22894). Precision: "element-wise
//! multiplication of A and B is performed with the specified precision", accumulation "in at
//! least single precision"; order, rounding and subnormal inputs unspecified (L22925-22929).
//!
//! # What this module chooses (`spec/INTERPRETATIONS.md`)
//!
//! - Each scaled product `a·SF_A·b·SF_B` is exact (at most 16 significant bits) — the
//!   "specified precision" of the products read as no rounding at all.
//! - The **model** is the exact `c + Σ` of those products rounded once to f32, to nearest even
//!   (an infinitely precise accumulator). No GPU with these instructions (sm_120a) has been
//!   measured for this project, so the model is the one value every reading of the manual is
//!   centred on, not a generation's block-FMA ([`super::block`]).
//! - The **acceptance set** is [`super::accept`]'s bound with these products as its terms:
//!   the same derivation as every other fp8/fp6/fp4 form (accumulation in 14 bits), a
//!   subnormal element or scale factor read as anything between 0 and its format's smallest
//!   normal.
//! - Specials: a NaN element or scale factor (e4m3 0x7f/0xff, e5m2 NaNs, ue8m0 0xff, ue4m3
//!   0x7f) makes D NaN; an e5m2 Inf times a zero (element or ue4m3 scale) is NaN; Infs of both
//!   signs are NaN; otherwise an infinite product or C is D. The canonical f32 NaN 0x7fffffff
//!   is the model, any NaN accepted.
//! - A `.ue4m3` scale byte is read through its low 7 bits ("the MSB padded with zero", L1411;
//!   a set bit 7 is ignored); the fp6/fp4 elements of `.kind::mxf8f6f4` are read from their
//!   8-bit containers (e2m1 in bits 2..6, e3m2/e2m3 in bits 0..6, L22916), the padding ignored.

use super::accept::{accept_terms, lsb, lsb_product, mag, Term};
use crate::catalog::Form;
use crate::float::format::{Fmt, Val, F32};
use crate::float::round::{round, Rnd};
use crate::types::FloatFormat;
use crate::value::Outcome;

/// One block-scaled `mma` as the numerics see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScaledOp {
    /// M × N × K.
    pub shape: (usize, usize, usize),
    /// `.atype` (`.e4m3 .e5m2 .e3m2 .e2m3 .e2m1`).
    pub a: FloatFormat,
    /// `.btype`.
    pub b: FloatFormat,
    /// `.stype`: [`FloatFormat::Ue8m0`] or [`FloatFormat::Ue4m3`].
    pub scale: FloatFormat,
    /// `.scale_vec_size`: scale factors per row of A and per column of B (1, 2 or 4).
    pub vec: usize,
    /// `.kind::mxf8f6f4`: fp6/fp4 elements sit in 8-bit containers (L22916).
    pub containers: bool,
}

impl ScaledOp {
    /// The operation of a block-scaled `mma` or `mma.sp::ordered_metadata` form of the catalog
    /// (`block_scale`, `shape`, `at` `bt` `st`, `sv`, `kind`); `None` for any other form.
    ///
    /// A sparse form's M×N×K is the instruction's, K the dense one (`m16n8k64` for
    /// `.kind::mxf8f6f4`, `m16n8k128` for `.kind::mxf4*`, L24431-24449): its numerics are the
    /// dense ones on the decompressed A (`crate::matrix::Sparsity::decompress`), and the scale
    /// matrices keep the shapes of Table 34 (M × SFA_N, SFB_M × N, L19966-19990, which the
    /// sparse forms' text refers to, L24475), so a block is K / `.scale_vec_size` positions of
    /// the *dense* K: 64 for `.scale_vec::1X` of `m16n8k64`, 64 for 2X and 32 for 4X of
    /// `m16n8k128`.
    pub fn of_form(form: &Form) -> Option<ScaledOp> {
        if !form.has("block_scale") {
            return None;
        }
        let shape = crate::catalog::fragment::mnk(form.var("shape")?)?;
        let float = |v: &str| match super::Elem::parse(form.var(v)?)? {
            super::Elem::Float(f) => Some(f),
            _ => None,
        };
        let kind = form.var("kind")?;
        // Table 34/35 (L19966-20032) and the defaults of L22894.
        let vec = match (form.var("sv").filter(|s| !s.is_empty()), kind) {
            (Some("scale_vec::1X"), _) | (None, "kind::mxf8f6f4") => 1,
            (Some("scale_vec::2X"), _) | (None, "kind::mxf4") => 2,
            (Some("scale_vec::4X"), _) => 4,
            _ => return None,
        };
        let (dt, ct) = (float("dt")?, float("ct")?);
        if dt != FloatFormat::F32 || ct != FloatFormat::F32 || shape.2 % vec != 0 {
            return None;
        }
        Some(ScaledOp {
            shape,
            a: float("at")?,
            b: float("bt")?,
            scale: float("st")?,
            vec,
            containers: kind == "kind::mxf8f6f4",
        })
    }

    /// k positions per scale factor: K / `.scale_vec_size`.
    pub fn block(&self) -> usize {
        self.shape.2 / self.vec
    }

    /// The element of format `fmt` held in `container` as the fragment registers give it: under
    /// `.kind::mxf8f6f4` an e2m1 sits in the middle four bits of its byte and an e3m2/e2m3 in
    /// the low six (L22916); elsewhere the container is the element.
    pub fn unpack(&self, fmt: FloatFormat, container: u128) -> u128 {
        let bits = if self.containers {
            8
        } else {
            FloatFormat::bits(fmt) as usize
        };
        super::element_of_container(fmt, bits, container)
    }
}

/// A factor of a scaled product, decoded.
#[derive(Clone, Copy, Debug)]
enum Factor {
    Nan,
    Inf(bool),
    /// `(-1)^neg × sig × 2^exp`.
    Fin(bool, u128, i32),
}

fn factor(fmt: &Fmt, bits: u128) -> Factor {
    match fmt.decode(bits) {
        Val::Nan => Factor::Nan,
        Val::Inf { neg } => Factor::Inf(neg),
        Val::Finite { neg, sig, exp } => Factor::Fin(neg, sig as u128, exp),
    }
}

/// An exact finite term `(-1)^neg × sig × 2^exp` (`sig` may be 0).
#[derive(Clone, Copy, Debug)]
struct Exact {
    neg: bool,
    sig: u128,
    exp: i32,
}

/// What one dot product's products and `c` reduce to before any rounding.
enum Terms {
    Nan,
    Inf(bool),
    Finite(Vec<Exact>),
}

/// The four factors of product `k`: a, SF_A, b, SF_B with their formats.
fn factors(op: &ScaledOp, a: u128, sa: u128, b: u128, sb: u128) -> [(&'static Fmt, u128); 4] {
    let s = Fmt::of(op.scale);
    [(Fmt::of(op.a), a), (s, sa), (Fmt::of(op.b), b), (s, sb)]
}

fn terms(op: &ScaledOp, a_row: &[u128], b_col: &[u128], c: u128, sfa_row: &[u128], sfb_col: &[u128]) -> Terms {
    let blk = op.block().max(1);
    let mut inf: Option<bool> = None;
    let mut nan = false;
    let mut see = |neg: bool| match inf {
        Some(s) if s != neg => nan = true,
        _ => inf = Some(neg),
    };
    let mut out = Vec::with_capacity(a_row.len() + 1);
    for (k, (&x, &y)) in a_row.iter().zip(b_col).enumerate() {
        let fs = factors(op, x, sfa_row[k / blk], y, sfb_col[k / blk]).map(|(f, v)| factor(f, v));
        let (mut neg, mut sig, mut exp, mut infinite) = (false, 1u128, 0i32, false);
        for f in fs {
            match f {
                Factor::Nan => return Terms::Nan,
                Factor::Inf(n) => {
                    neg ^= n;
                    infinite = true;
                }
                Factor::Fin(n, s, e) => {
                    neg ^= n;
                    sig *= s;
                    exp += e;
                }
            }
        }
        match (infinite, sig) {
            // Inf × 0.
            (true, 0) => return Terms::Nan,
            (true, _) => see(neg),
            (false, _) => out.push(Exact { neg, sig, exp }),
        }
    }
    match factor(&F32, c) {
        Factor::Nan => return Terms::Nan,
        Factor::Inf(n) => see(n),
        Factor::Fin(neg, sig, exp) => out.push(Exact { neg, sig, exp }),
    }
    match (nan, inf) {
        (true, _) => Terms::Nan,
        (false, Some(s)) => Terms::Inf(s),
        (false, None) => Terms::Finite(out),
    }
}

/// `Σ terms`, exactly, rounded once to f32 to nearest even. The sum is formed in a fixed-point
/// integer wide enough for every term (products span about 2^-290 .. 2^290): no host floating
/// point takes part.
fn exact_sum_rn(terms: &[Exact]) -> u128 {
    let live: Vec<&Exact> = terms.iter().filter(|t| t.sig != 0).collect();
    if live.is_empty() {
        // IEEE 754 §6.3: a sum of zeros is −0 only when every zero is −0.
        return F32.zero(terms.iter().all(|t| t.neg));
    }
    let lo = live.iter().map(|t| t.exp).min().expect("nonempty");
    let hi = live
        .iter()
        .map(|t| t.exp + 128 - t.sig.leading_zeros() as i32)
        .max()
        .expect("nonempty");
    // 8 spare bits for the carries of up to 256 terms.
    let limbs = ((hi - lo) as usize + 8) / 64 + 2;
    let mut pos = vec![0u64; limbs];
    let mut neg = vec![0u64; limbs];
    for t in &live {
        let acc = if t.neg { &mut neg } else { &mut pos };
        let shift = (t.exp - lo) as usize;
        let (word, bit) = (shift / 64, shift % 64);
        // sig < 2^64 here (at most 4 × 8 significant bits, or f32's 24): spread over 2 limbs.
        let wide = (t.sig as u64 as u128) << bit;
        add_at(acc, word, wide as u64);
        add_at(acc, word + 1, (wide >> 64) as u64);
    }
    let (negative, mag) = if ge(&pos, &neg) {
        (false, sub(&pos, &neg))
    } else {
        (true, sub(&neg, &pos))
    };
    let Some(top) = (0..limbs * 64).rev().find(|&i| mag[i / 64] >> (i % 64) & 1 == 1) else {
        // Exact cancellation of nonzero terms: +0 under round-to-nearest (IEEE 754 §6.3).
        return F32.zero(false);
    };
    let bit = |i: usize| u128::from(mag[i / 64] >> (i % 64) & 1);
    // The top 64 bits as the significand, everything below as the sticky bit.
    let low = top.saturating_sub(63);
    let sig = (low..=top).rev().fold(0u128, |s, i| (s << 1) | bit(i));
    let sticky = (0..low).any(|i| bit(i) == 1);
    round(&F32, negative, sig, lo + low as i32, sticky, Rnd::Rn).bits
}

fn add_at(acc: &mut [u64], mut word: usize, v: u64) {
    let mut carry = v;
    while carry != 0 && word < acc.len() {
        let (s, o) = acc[word].overflowing_add(carry);
        acc[word] = s;
        carry = u64::from(o);
        word += 1;
    }
}

fn ge(x: &[u64], y: &[u64]) -> bool {
    for (a, b) in x.iter().zip(y).rev() {
        if a != b {
            return a > b;
        }
    }
    true
}

fn sub(x: &[u64], y: &[u64]) -> Vec<u64> {
    let mut borrow = false;
    x.iter()
        .zip(y)
        .map(|(&a, &b)| {
            let (d, o1) = a.overflowing_sub(b);
            let (d, o2) = d.overflowing_sub(u64::from(borrow));
            borrow = o1 || o2;
            d
        })
        .collect()
}

/// One element of D: `c + Σ_k a_row[k]·SF_A[v]·b_col[k]·SF_B[v]` with `v = k / block`;
/// `sfa_row` is row i of scale_A (`vec` bytes), `sfb_col` column j of scale_B. Elements in
/// their formats' bits (see [`ScaledOp::unpack`]), `c` and D f32.
pub fn dot(op: &ScaledOp, a_row: &[u128], b_col: &[u128], c: u128, sfa_row: &[u128], sfb_col: &[u128]) -> Outcome {
    let model = dot_model(op, a_row, b_col, c, sfa_row, sfb_col);
    let blk = op.block().max(1);
    let products = a_row.iter().zip(b_col).enumerate().map(|(k, (&x, &y))| {
        let fs = factors(op, x, sfa_row[k / blk], y, sfb_col[k / blk]);
        let mut t = Term {
            mag: 1.0,
            subnormal: false,
            value: 1.0,
            lsb: Some(0),
        };
        for (f, v) in fs {
            let (m, s) = mag(f, v)?;
            t.mag *= m;
            t.subnormal |= s;
            t.value *= f.to_f64(v);
            t.lsb = t.lsb.zip(lsb(f, v)).map(|(p, q)| lsb_product(p, q));
        }
        Some(t)
    });
    Outcome {
        model,
        accept: accept_terms(FloatFormat::F32, FloatFormat::F32, true, products, c, model),
    }
}

fn dot_model(op: &ScaledOp, a_row: &[u128], b_col: &[u128], c: u128, sfa_row: &[u128], sfb_col: &[u128]) -> u128 {
    match terms(op, a_row, b_col, c, sfa_row, sfb_col) {
        Terms::Nan => F32.canonical_nan,
        Terms::Inf(neg) => F32.inf(neg).expect("f32 has Inf"),
        Terms::Finite(t) => exact_sum_rn(&t),
    }
}

/// Checks the sizes: A M×K, B K×N, C M×N, scale_A M×vec, scale_B vec×N.
fn sizes_ok(op: &ScaledOp, a: &[u128], b: &[u128], c: &[u128], sfa: &[u128], sfb: &[u128]) -> bool {
    let (m, n, k) = op.shape;
    a.len() == m * k && b.len() == k * n && c.len() == m * n && sfa.len() == m * op.vec && sfb.len() == op.vec * n
}

/// `D = (A · scale_A) · (B · scale_B) + C`, all row-major: `a` M×K, `b` K×N, `c` M×N (f32
/// bits), `sfa` M×vec, `sfb` vec×N (scale bytes); one [`Outcome`] per element of D (M×N,
/// row-major). Panics when the sizes do not match `op`.
pub fn mma(op: &ScaledOp, a: &[u128], b: &[u128], c: &[u128], sfa: &[u128], sfb: &[u128]) -> Vec<Outcome> {
    assert!(
        sizes_ok(op, a, b, c, sfa, sfb),
        "matrix sizes do not match {:?}",
        op.shape
    );
    each(op, a, b, c, sfa, sfb, dot)
}

/// [`mma`]'s model values alone (what an interpreter writes into D), or `None` when the sizes
/// do not match `op`.
pub fn mma_model(op: &ScaledOp, a: &[u128], b: &[u128], c: &[u128], sfa: &[u128], sfb: &[u128]) -> Option<Vec<u128>> {
    sizes_ok(op, a, b, c, sfa, sfb).then(|| each(op, a, b, c, sfa, sfb, dot_model))
}

type DotFn<T> = fn(&ScaledOp, &[u128], &[u128], u128, &[u128], &[u128]) -> T;

fn each<T>(op: &ScaledOp, a: &[u128], b: &[u128], c: &[u128], sfa: &[u128], sfb: &[u128], f: DotFn<T>) -> Vec<T> {
    let (m, n, k) = op.shape;
    let v = op.vec;
    let mut out = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let col: Vec<u128> = (0..k).map(|kk| b[kk * n + j]).collect();
            let sfb_col: Vec<u128> = (0..v).map(|s| sfb[s * n + j]).collect();
            out.push(f(
                op,
                &a[i * k..(i + 1) * k],
                &col,
                c[i * n + j],
                &sfa[i * v..(i + 1) * v],
                &sfb_col,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Accept;
    use FloatFormat::{E2m1, E4m3, E5m2, Ue4m3, Ue8m0};

    fn op(a: FloatFormat, scale: FloatFormat, k: usize, vec: usize) -> ScaledOp {
        ScaledOp {
            shape: (1, 1, k),
            a,
            b: a,
            scale,
            vec,
            containers: false,
        }
    }
    fn f32b(x: f32) -> u128 {
        x.to_bits() as u128
    }

    #[test]
    fn forms_of_the_catalog() {
        let cat = crate::catalog::catalog();
        let get = |n: &str| ScaledOp::of_form(&cat.forms[cat.by_name(n)[0]]);
        let f4 = get("mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0").unwrap();
        // Without .scale_vec_size, mxf4 is 2X (L22894): blocks of 32.
        assert_eq!(
            (f4.shape, f4.vec, f4.block(), f4.containers),
            ((16, 8, 64), 2, 32, false)
        );
        let nv =
            get("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3")
                .unwrap();
        assert_eq!((nv.vec, nv.block(), nv.scale), (4, 16, Ue4m3));
        let f8 = get("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e3m2.e5m2.f32.ue8m0").unwrap();
        assert_eq!(
            (f8.vec, f8.block(), f8.a, f8.b, f8.containers),
            (1, 32, FloatFormat::E3m2, E5m2, true)
        );
        assert_eq!(get("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), None);
        // Sparse forms: the dense K, Table 34's scale shapes, blocks of the dense K.
        let sp = "mma.sp::ordered_metadata.sync.aligned";
        let f8 = get(&format!(
            "{sp}.m16n8k64.row.col.kind::mxf8f6f4.block_scale.f32.e2m1.e4m3.f32.ue8m0"
        ))
        .unwrap();
        assert_eq!(
            (f8.shape, f8.vec, f8.block(), f8.containers),
            ((16, 8, 64), 1, 64, true)
        );
        let f4 = get(&format!(
            "{sp}.m16n8k128.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0"
        ))
        .unwrap();
        assert_eq!(
            (f4.shape, f4.vec, f4.block(), f4.containers),
            ((16, 8, 128), 2, 64, false)
        );
        let nv = get(&format!(
            "{sp}.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"
        ))
        .unwrap();
        assert_eq!((nv.vec, nv.block(), nv.scale), (4, 32, Ue4m3));
        assert_eq!(get("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), None);
    }

    #[test]
    fn containers_of_mxf8f6f4() {
        let f8 = ScaledOp {
            containers: true,
            ..op(E2m1, Ue8m0, 32, 1)
        };
        // e2m1 1.0 (0b0010) in the middle of its byte, padding bits set: 0b11_0010_11.
        assert_eq!(f8.unpack(E2m1, 0b1100_1011), 0b0010);
        assert_eq!(f8.unpack(FloatFormat::E3m2, 0xff), 0x3f);
        assert_eq!(f8.unpack(E4m3, 0xff), 0xff);
        assert_eq!(op(E2m1, Ue8m0, 64, 2).unpack(E2m1, 0x7), 0x7);
    }

    #[test]
    fn each_block_takes_its_own_scale_factors() {
        // K = 4 in 2 blocks of 2; e2m1 1.0 = 0x2, 1.5 = 0x3, 6.0 = 0x7, -1.0 = 0xa.
        // Block 0: SF_A = 2^1 (ue8m0 128), SF_B = 2^-2 (125); block 1: 2^3 (130), 2^0 (127).
        // d = 0.5 + (1·1 + 1.5·6)·2^-1 + (6·−1 + 1·1)·2^3 = 0.5 + 5 − 40 = −34.5.
        let o = op(E2m1, Ue8m0, 4, 2);
        let d = dot(
            &o,
            &[0x2, 0x3, 0x7, 0x2],
            &[0x2, 0x7, 0xa, 0x2],
            f32b(0.5),
            &[128, 130],
            &[125, 127],
        );
        assert_eq!(d.model, f32b(-34.5));
        assert!(d.accepts(f32b(-34.5)) && !d.accepts(f32b(-34.0)));
        // ue4m3 scales (bias 7): 0x38 = 1.0, 0x3c = 1.5, 0x01 = 2^-9 (subnormal).
        let o = op(E2m1, Ue4m3, 2, 2);
        let d = dot(&o, &[0x7, 0x7], &[0x7, 0x3], 0, &[0x3c, 0x38], &[0x3c, 0x01]);
        // 6·1.5·6·1.5 + 6·1·1.5·2^-9 = 81 + 9·2^-9.
        assert_eq!(d.model, f32b(81.0 + 9.0 / 512.0));
        // Bit 7 of a ue4m3 byte is ignored (0xb8 reads as 0x38 = 1.0).
        let d2 = dot(&o, &[0x7, 0x7], &[0x7, 0x3], 0, &[0xbc, 0xb8], &[0x3c, 0x81]);
        assert_eq!(d2.model, d.model);
    }

    #[test]
    fn the_model_is_the_exact_sum_rounded_once_to_nearest_even() {
        // 1 + 2^-24 + 2^-24 with products of wildly different scale: exact 1 + 2^-23.
        // Products: e4m3 1.0 (0x38) scaled 2^-12 twice (ue8m0 115) → 2^-24.
        let o = op(E4m3, Ue8m0, 2, 2);
        let d = dot(&o, &[0x38, 0x38], &[0x38, 0x38], f32b(1.0), &[115, 115], &[115, 115]);
        assert_eq!(d.model, f32b(1.0) + 1);
        // One such product alone is a tie: 1 + 2^-24 rounds to even, 1.0.
        let o1 = op(E4m3, Ue8m0, 1, 1);
        assert_eq!(dot(&o1, &[0x38], &[0x38], f32b(1.0), &[115], &[115]).model, f32b(1.0));
        // Far below f32: 2^-127 × 2^-127 × e4m3 2^-9 × 2^-9 = 2^-272 is 0 after rounding, and
        // a huge product 2^127·2^127·448·448 overflows to +Inf.
        assert_eq!(dot(&o1, &[0x01], &[0x01], 0, &[0], &[0]).model, 0);
        assert_eq!(dot(&o1, &[0x7e], &[0x7e], 0, &[254], &[254]).model, 0x7f80_0000);
        // Exact cancellation: +0.
        let d = dot(&o, &[0x38, 0xb8], &[0x38, 0x38], 0, &[127, 127], &[127, 127]);
        assert_eq!(d.model, 0);
    }

    #[test]
    fn specials() {
        let o = op(E5m2, Ue8m0, 2, 1);
        let inf = 0x7c; // e5m2 +Inf
        let one = 0x3c; // e5m2 1.0
                        // NaN scale factor (ue8m0 0xff): NaN whatever the elements.
        let d = dot(&o, &[one, one], &[one, one], 0, &[0xff], &[127]);
        assert_eq!((d.model, d.accept), (0x7fff_ffff, Accept::Nan(FloatFormat::F32)));
        // Inf × finite: Inf; +Inf and −Inf: NaN; Inf × a zero ue4m3 scale: NaN.
        assert_eq!(dot(&o, &[inf, one], &[one, one], 0, &[127], &[127]).model, 0x7f80_0000);
        assert_eq!(dot(&o, &[inf, inf], &[one, 0xbc], 0, &[127], &[127]).model, 0x7fff_ffff);
        let z = op(E5m2, Ue4m3, 1, 1);
        assert_eq!(dot(&z, &[inf], &[one], 0, &[0], &[0x38]).model, 0x7fff_ffff);
        // ue4m3 0x7f is NaN.
        assert_eq!(dot(&z, &[one], &[one], 0, &[0x7f], &[0x38]).model, 0x7fff_ffff);
    }

    #[test]
    fn the_acceptance_set_is_the_fp8_bound_with_scaled_products() {
        // 2 products of 1·2^10 each plus c = 0: 2048 on the grid 2^10, far below 2^(10+13):
        // no rounding or alignment can change it, exact (accept.rs).
        let o = op(E4m3, Ue8m0, 2, 1);
        let d = dot(&o, &[0x38, 0x38], &[0x38, 0x38], 0, &[132], &[132]);
        assert_eq!(d.model, f32b(2048.0));
        assert_eq!(d.accept, crate::value::Accept::Exact);
        // With c = 2^-20 the grid is 2^-20: K = 2, allowance 4·4·2^-13·2048 = 4 (plus tiny
        // terms) around 2048 + 2^-20: 2048 ± 3 in, 2048 + 8 out.
        let d = dot(&o, &[0x38, 0x38], &[0x38, 0x38], f32b(2f32.powi(-20)), &[132], &[132]);
        assert_eq!(d.model, f32b(2048.0));
        assert!(d.accepts(f32b(2051.0)) && d.accepts(f32b(2045.0)) && !d.accepts(f32b(2056.0)));
        // A subnormal scale factor may be read as anything down to 0: 1 · (ue4m3 2^-9) · 1 · 1.
        let s = op(E4m3, Ue4m3, 1, 1);
        let d = dot(&s, &[0x38], &[0x38], 0, &[0x01], &[0x38]);
        assert_eq!(d.model, f32b(2f32.powi(-9)));
        assert!(d.accepts(0));
    }

    #[test]
    fn matrices_are_row_major_and_scales_index_rows_and_columns() {
        // M = N = 2, K = 2, one block: D[i][j] = SF_A[i]·SF_B[j]·Σ a b.
        let o = ScaledOp {
            shape: (2, 2, 2),
            ..op(E2m1, Ue8m0, 2, 1)
        };
        let one = 0x2;
        let a = [one; 4];
        let b = [one; 4];
        let d = mma_model(&o, &a, &b, &[0; 4], &[127, 128], &[127, 129]).unwrap();
        assert_eq!(d, vec![f32b(2.0), f32b(8.0), f32b(4.0), f32b(16.0)]);
        let full: Vec<u128> = mma(&o, &a, &b, &[0; 4], &[127, 128], &[127, 129])
            .iter()
            .map(|x| x.model)
            .collect();
        assert_eq!(full, d);
        assert_eq!(mma_model(&o, &a, &b, &[0; 4], &[127], &[127, 129]), None);
    }
}
