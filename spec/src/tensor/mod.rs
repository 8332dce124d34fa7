//! Tensor-core multiply-accumulate numerics (`mma`, `wmma.mma`, `wgmma.mma_async`; §9.7.14-15),
//! at the level of matrices: `D = A × B + C` element by element, independent of how fragments
//! are spread over threads (that is `crate::matrix`'s business).
//!
//! - [`block`]: the block-FMA step, the exact arithmetic core of floating-point forms;
//! - [`arch`]: which configuration each GPU generation uses ([`Arch`], [`Kind`], [`config`]);
//! - [`accept`]: the acceptance set the manual's precision sentences allow (L22918-22935);
//! - [`exact`]: the integer and single-bit forms (exact, L22898, L22949-22953) and f64 (an FMA
//!   chain, L22937-22947);
//! - [`scaled`]: the block-scaled forms (`.block_scale`, §9.7.14.3), with their own entry point.
//!
//! The entry point is [`mma`] (or [`dot`] for one element).
//!
//! ```
//! use spec::tensor::{mma, Arch, Kind, MmaOp};
//! use spec::types::FloatFormat::{F16, F32};
//!
//! // mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 on sm_80, shrunk to 1×1×16 (M and N
//! // are only the matrices' shapes): d = c + Σ a_k b_k for one row and one column.
//! let op = MmaOp::float(Arch::Sm80, Kind::Mma, (1, 1, 16), F16, F32);
//! let one = 0x3c00u128; // f16 1.0
//! let tiny = 0x0c00u128; // f16 2^-12; 2^-12 × 2^-12 = 2^-24
//! let mut a = vec![0u128; 16];
//! let mut b = vec![0u128; 16];
//! (a[0], b[0]) = (one, one); // 1 × 1
//! (a[9], b[9]) = (tiny, tiny); // 2^-24, in the second block of 8
//! let d = mma(&op, &a, &b, &[0]);
//! // Block 1 gives 1.0; block 2 adds 2^-24 at F = 24, then RZ to f32 drops it: 1.0.
//! assert_eq!(d[0].model, 0x3f80_0000);
//! // The manual leaves the rounding unspecified: 1 + 2^-23 (the exact 1 + 2^-24 rounded up) is
//! // accepted; 1 + 2^-15 is not.
//! assert!(d[0].accepts(0x3f80_0001) && !d[0].accepts(0x3f80_0100));
//! ```

pub mod accept;
pub mod arch;
pub mod block;
pub mod exact;
pub mod model;
pub mod scaled;
pub mod text;

pub use arch::{config, Arch, Kind};
pub use exact::BitOp;

use crate::float::format::Fmt;
use crate::float::round::{round, Rnd};
use crate::types::FloatFormat;
use crate::value::Outcome;

/// The type of a matrix's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// A floating-point format (`.f16 .bf16 .tf32 .f32 .f64 .e4m3 .e5m2 .e3m2 .e2m3 .e2m1`).
    Float(FloatFormat),
    /// `.s32` (C and D of integer forms).
    S32,
    /// `.s8`.
    S8,
    /// `.u8`.
    U8,
    /// `.s4`.
    S4,
    /// `.u4`.
    U4,
    /// `.b1`.
    B1,
}

impl Elem {
    /// The element as an integer (sign- or zero-extended by type); `None` for floats.
    fn int(self, bits: u128) -> Option<i64> {
        Some(match self {
            Elem::S32 => bits as u32 as i32 as i64,
            Elem::S8 => bits as u8 as i8 as i64,
            Elem::U8 => bits as u8 as i64,
            Elem::S4 => ((bits as u8 & 0xf) << 4) as i8 as i64 >> 4,
            Elem::U4 => (bits & 0xf) as i64,
            Elem::B1 => (bits & 1) as i64,
            Elem::Float(_) => return None,
        })
    }
}

/// One tensor-core multiply-accumulate, as the numerics see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaOp {
    /// The GPU generation ([`Arch::from_target`]).
    pub arch: Arch,
    /// `mma`, `wmma` or `wgmma`.
    pub kind: Kind,
    /// M × N × K.
    pub shape: (usize, usize, usize),
    /// `.atype`.
    pub a: Elem,
    /// `.btype`.
    pub b: Elem,
    /// `.ctype`.
    pub c: Elem,
    /// `.dtype`.
    pub d: Elem,
    /// The f64 rounding modifier (`.rn` default, `.rz .rm .rp`, L22941-22947); ignored otherwise.
    pub rnd: Rnd,
    /// `.satfinite` on an integer form (L22949-22953).
    pub satfinite: bool,
    /// `.xor.popc` / `.and.popc` of a `.b1` form (L22898); `None` on a `.b1` form is `.xor`
    /// (the only one before PTX 7.1).
    pub bit_op: Option<BitOp>,
}

impl MmaOp {
    /// A floating-point op with A and B in `input`, C and D in `acc`, `.rn`.
    pub fn float(arch: Arch, kind: Kind, shape: (usize, usize, usize), input: FloatFormat, acc: FloatFormat) -> MmaOp {
        MmaOp {
            arch,
            kind,
            shape,
            a: Elem::Float(input),
            b: Elem::Float(input),
            c: Elem::Float(acc),
            d: Elem::Float(acc),
            rnd: Rnd::Rn,
            satfinite: false,
            bit_op: None,
        }
    }
}

impl Elem {
    /// The element type a catalog type name denotes (`f16`, `tf32`, `s8`, `b1`, ...).
    pub fn parse(name: &str) -> Option<Elem> {
        Some(match name {
            "s32" => Elem::S32,
            "s8" => Elem::S8,
            "u8" => Elem::U8,
            "s4" => Elem::S4,
            "u4" => Elem::U4,
            "b1" => Elem::B1,
            f => Elem::Float(crate::types::FloatFormat::NAMES.iter().find(|(n, _)| *n == f)?.1),
        })
    }
}

impl MmaOp {
    /// The operation of an `mma` (dense or sparse: a sparse form's M×N×K is the instruction's,
    /// K the dense one, which the oracle's rebuilt dense A has, `crate::matrix::Sparsity::decompress`),
    /// a `wmma.mma` or a dense `wgmma.mma_async` form of the catalog (§9.7.14.5.14, §9.7.14.4.5, §9.7.15.5.2: `shape`, `at` `bt` `ct` `dt` — the f16
    /// `wmma.mma` rows write no `at`/`bt`: f16, L20831-20832; `wgmma`'s accumulator is both C
    /// and D, `dt` —, `.satfinite`, the `.b1` `op`, an f64 form's rounding `rnd`) on `arch`;
    /// `None` for the forms these numerics do not cover: block-scaled (`block_scale`) ones, which
    /// have their own ([`scaled::ScaledOp`]), and a D that is neither f16 nor f32 for float
    /// inputs. A sparse form's K is the dense one.
    pub fn of_form(form: &crate::catalog::Form, arch: Arch) -> Option<MmaOp> {
        if form.has("block_scale") {
            return None;
        }
        let shape = form.var("shape")?;
        let (m, rest) = shape.strip_prefix('m')?.split_once('n')?;
        let (n, k) = rest.split_once('k')?;
        let shape = (m.parse().ok()?, n.parse().ok()?, k.parse().ok()?);
        let wmma = form.opcode == "wmma";
        let wgmma = form.opcode == "wgmma";
        let ty = |v: &str| {
            let f16_default = (wmma && matches!(v, "at" | "bt")).then_some("f16");
            // wgmma's accumulator is both C and D (L25770-25781): no `.ctype`.
            let v = if wgmma && v == "ct" { "dt" } else { v };
            form.var(v).or(f16_default).and_then(Elem::parse)
        };
        let (a, b, c, d) = (ty("at")?, ty("bt")?, ty("ct")?, ty("dt")?);
        let f64_form = a == Elem::Float(FloatFormat::F64);
        if let (Elem::Float(_), false) = (a, f64_form) {
            if !matches!(d, Elem::Float(FloatFormat::F16 | FloatFormat::F32)) {
                return None;
            }
        }
        let rnd = match form.var("rnd") {
            Some("rz") => Rnd::Rz,
            Some("rm") => Rnd::Rm,
            Some("rp") => Rnd::Rp,
            _ => Rnd::Rn,
        };
        Some(MmaOp {
            arch,
            kind: if wgmma {
                Kind::Wgmma
            } else if wmma {
                Kind::Wmma
            } else {
                Kind::Mma
            },
            shape,
            a,
            b,
            c,
            d,
            rnd,
            satfinite: form.has("satfinite"),
            bit_op: match form.var("op") {
                Some("and") => Some(BitOp::And),
                Some("xor") => Some(BitOp::Xor),
                _ => None,
            },
        })
    }
}

/// `D = A × B + C`: `a` is M×K, `b` K×N, `c` M×N, all row-major, one element's bits per entry
/// (in the low bits: an f16 as 16 bits, a tf32 in its 32-bit layout, an fp8 as 8 bits, a `.b1`
/// as bit 0); returns D (M×N, row-major), one [`Outcome`] per element: the model value of the
/// generation and the set of results the manual allows. See [`dot`].
pub fn mma(op: &MmaOp, a: &[u128], b: &[u128], c: &[u128]) -> Vec<Outcome> {
    mma_kept(op, a, b, c, None)
}

/// [`mma`] of a sparse A (`mma.sp`, `wgmma.mma_async.sp`): `a` is the dense M×K matrix with
/// +0 at the pruned positions and `kept` (M×K, row-major) says which positions the metadata
/// names. A pruned position is not multiplied: its product is +0 whatever B holds there (an
/// Inf or NaN of B at a pruned position of a row does not reach that row of D). The manual
/// calls the pruned elements zeros (L23774, L25933) and leaves special values to the
/// unspecified arithmetic (L22918-22935); the H200 skips them
/// (`corpus/findings/h200/tensor-cores.md`).
pub fn mma_sparse(op: &MmaOp, a: &[u128], b: &[u128], c: &[u128], kept: &[bool]) -> Vec<Outcome> {
    assert_eq!(kept.len(), a.len(), "a mask of A's size");
    mma_kept(op, a, b, c, Some(kept))
}

fn mma_kept(op: &MmaOp, a: &[u128], b: &[u128], c: &[u128], kept: Option<&[bool]>) -> Vec<Outcome> {
    let (m, n, k) = op.shape;
    assert!(
        a.len() == m * k && b.len() == k * n && c.len() == m * n,
        "matrix sizes do not match {m}x{n}x{k}"
    );
    let mut col = vec![0u128; k];
    let mut d = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            for (kk, x) in col.iter_mut().enumerate() {
                let pruned = kept.is_some_and(|kept| !kept[i * k + kk]);
                *x = if pruned { 0 } else { b[kk * n + j] };
            }
            d.push(dot(op, &a[i * k..(i + 1) * k], &col, c[i * n + j]));
        }
    }
    d
}

/// One element of D: `c + Σ_k a_row[k] × b_col[k]` (K = `a_row.len()`, the instruction's K:
/// unused k positions are zeros, and the block structure sees them).
///
/// - Floating point (not f64): `c` is converted to D's format first (to nearest even where it
///   narrows; `m8n8k4` allows an f16 C with an f32 D, L22906), then the generation's block-FMA
///   chain ([`config`], [`block::BlockFma::dot`]); acceptance per [`accept`].
/// - f64: [`exact::f64_chain`]. Integer: [`exact::int_dot`]. `.b1`: [`exact::b1_dot`].
pub fn dot(op: &MmaOp, a_row: &[u128], b_col: &[u128], c: u128) -> Outcome {
    match (op.a, op.b, op.c, op.d) {
        (Elem::Float(FloatFormat::F64), ..) => exact::f64_chain(a_row, b_col, c, op.rnd),
        (Elem::B1, ..) => exact::b1_dot(op.bit_op.unwrap_or(BitOp::Xor), a_row, b_col, c as u32 as i32),
        (Elem::Float(fa), Elem::Float(fb), Elem::Float(fc), Elem::Float(fd)) => {
            let model = float_model(op, fa, fb, fc, fd, a_row, b_col, c).expect("an f16 or f32 D");
            let accept = if fc == FloatFormat::F32 && fd == FloatFormat::F16 {
                accept::accept_c(fa, fb, fc, fd, a_row, b_col, c, model)
            } else {
                accept::accept(fa, fb, fd, a_row, b_col, convert(fc, fd, c), model)
            };
            Outcome { model, accept }
        }
        (ta, tb, ..) => {
            let ints =
                |t: Elem, v: &[u128]| -> Vec<i64> { v.iter().map(|&x| t.int(x).expect("an integer type")).collect() };
            exact::int_dot(&ints(ta, a_row), &ints(tb, b_col), c as u32 as i32, op.satfinite)
        }
    }
}

/// The element of format `fmt` held in a fragment register's `container_bits`-bit container:
/// the fp6/fp4 elements of `.kind::f8f6f4` and `.kind::mxf8f6f4` sit in 8-bit containers, an
/// e2m1 in the middle four bits, an e3m2/e2m3 in the low six (L22916; the padding bits are
/// ignored). Every other element is its container (`.kind::mxf4`'s packed e2m1 included).
///
/// ```
/// use spec::tensor::element_of_container;
/// use spec::types::FloatFormat::{E2m1, E3m2};
/// assert_eq!(element_of_container(E2m1, 8, 0b11_0010_11), 0b0010);
/// assert_eq!(element_of_container(E3m2, 8, 0xff), 0x3f);
/// assert_eq!(element_of_container(E2m1, 4, 0x7), 0x7);
/// ```
pub fn element_of_container(fmt: FloatFormat, container_bits: usize, container: u128) -> u128 {
    match (container_bits, fmt) {
        (8, FloatFormat::E2m1) => (container >> 2) & 0xf,
        (8, FloatFormat::E3m2 | FloatFormat::E2m3) => container & 0x3f,
        _ => container,
    }
}

/// The inverse of [`element_of_container`]: the `container_bits`-bit register container of
/// element `x` of format `fmt` (the other bits zero).
pub fn container_of_element(fmt: FloatFormat, container_bits: usize, x: u128) -> u128 {
    match (container_bits, fmt) {
        (8, FloatFormat::E2m1) => (x & 0xf) << 2,
        (8, FloatFormat::E3m2 | FloatFormat::E2m3) => x & 0x3f,
        _ => x,
    }
}

/// The model value of a floating-point (not f64) dot product `c + Σ_k a_row[k] × b_col[k]`,
/// `c` in `fc`, the result in `fd`; `None` when the generation has no configuration.
///
/// - An f32 C with an f16 D (`wmma` only, §9.7.14.4.5): the accumulation, C included, is in
///   single precision ("when .ctype or .dtype is .f32", L20914): the f32 chain of the
///   generation, then D rounded to f16 to nearest even. The H200 agrees bit for bit on 3,584
///   elements (`corpus/findings/h200/tensor-cores.md`); converting C to f16 first, as this
///   model did before, turns an f32 C beyond f16's range into an f16 Inf.
/// - Otherwise C is converted to D's format first (exact where it widens: `m8n8k4` and
///   `wmma` allow an f16 C with an f32 D, L22906), then the generation's chain in D's format.
#[allow(clippy::too_many_arguments)]
pub(crate) fn float_model(
    op: &MmaOp,
    fa: FloatFormat,
    fb: FloatFormat,
    fc: FloatFormat,
    fd: FloatFormat,
    a_row: &[u128],
    b_col: &[u128],
    c: u128,
) -> Option<u128> {
    if fc == FloatFormat::F32 && fd == FloatFormat::F16 {
        let acc = config(op.arch, op.kind, fa, FloatFormat::F32)?.dot(fa, fb, a_row, b_col, c);
        return Some(convert(FloatFormat::F32, FloatFormat::F16, acc));
    }
    let c = convert(fc, fd, c);
    Some(config(op.arch, op.kind, fa, fd)?.dot(fa, fb, a_row, b_col, c))
}

/// `bits` of format `from` in format `to`, rounded to nearest even (exact when widening).
pub fn convert(from: FloatFormat, to: FloatFormat, bits: u128) -> u128 {
    if from == to {
        return bits;
    }
    let (f, t) = (Fmt::of(from), Fmt::of(to));
    match f.decode(bits) {
        crate::float::format::Val::Nan => t.canonical_nan,
        crate::float::format::Val::Inf { neg } => t.inf(neg).unwrap_or(t.canonical_nan),
        crate::float::format::Val::Finite { neg, sig, exp } => round(t, neg, sig as u128, exp, false, Rnd::Rn).bits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int_op(a: Elem, shape: (usize, usize, usize), satfinite: bool) -> MmaOp {
        MmaOp {
            arch: Arch::Sm80,
            kind: Kind::Mma,
            shape,
            a,
            b: a,
            c: Elem::S32,
            d: Elem::S32,
            rnd: Rnd::Rn,
            satfinite,
            bit_op: None,
        }
    }

    #[test]
    fn matrices_are_row_major() {
        // A = [[1, 2], [3, 4]] (s8), B = [[5, 6], [7, 8]], C = [[0, 1], [2, 3]]:
        // A×B = [[19, 22], [43, 50]].
        let op = int_op(Elem::S8, (2, 2, 2), false);
        let d = mma(&op, &[1, 2, 3, 4], &[5, 6, 7, 8], &[0, 1, 2, 3]);
        let got: Vec<u128> = d.iter().map(|o| o.model).collect();
        assert_eq!(got, vec![19, 23, 45, 53]);
        assert!(d.iter().all(|o| o.accept == crate::value::Accept::Exact));
    }

    #[test]
    fn narrow_integers_extend_by_type() {
        // s4 0xf is −1, u4 0xf is 15; s8 0x80 is −128, u8 0x80 is 128.
        let s4 = mma(&int_op(Elem::S4, (1, 1, 1), false), &[0xf], &[0x3], &[0]);
        assert_eq!(s4[0].model, (-3i32) as u32 as u128);
        let u4 = mma(&int_op(Elem::U4, (1, 1, 1), false), &[0xf], &[0x3], &[0]);
        assert_eq!(u4[0].model, 45);
        let s8 = mma(
            &int_op(Elem::S8, (1, 1, 1), true),
            &[0x80],
            &[0x7f],
            &[i32::MIN as u32 as u128],
        );
        assert_eq!(s8[0].model, i32::MIN as u32 as u128);
        let u8_ = mma(&int_op(Elem::U8, (1, 1, 1), false), &[0x80], &[0x2], &[0]);
        assert_eq!(u8_[0].model, 256);
    }

    #[test]
    fn b1_and_f64_through_the_entry_point() {
        let op = MmaOp {
            bit_op: Some(BitOp::And),
            ..int_op(Elem::B1, (1, 1, 4), false)
        };
        assert_eq!(mma(&op, &[1, 1, 0, 1], &[1, 0, 1, 1], &[5])[0].model, 7);
        let f = |x: f64| x.to_bits() as u128;
        let op = MmaOp {
            rnd: Rnd::Rz,
            ..MmaOp::float(Arch::Sm90, Kind::Mma, (1, 1, 4), FloatFormat::F64, FloatFormat::F64)
        };
        let d = mma(&op, &[f(1.0), f(2.0), f(3.0), f(4.0)], &[f(1.0); 4], &[f(0.5)]);
        assert_eq!(d[0].model, f(10.5));
    }

    /// A pruned position's product is +0 even against an Inf of B (the H200 skips it);
    /// a stored position multiplies as usual.
    #[test]
    fn sparse_pruned_positions_are_not_multiplied() {
        let op = MmaOp::float(Arch::Sm90, Kind::Mma, (1, 1, 4), FloatFormat::F16, FloatFormat::F32);
        let (one, inf) = (0x3c00u128, 0x7c00u128);
        let (a, b) = ([one, 0, one, 0], [one, inf, one, one]);
        // Position 1 pruned: 1 + 1 = 2. Dense (position 1 a stored +0): 0 × Inf = NaN.
        let kept = [true, false, true, false];
        assert_eq!(mma_sparse(&op, &a, &b, &[0], &kept)[0].model, 0x4000_0000);
        let kept = [true, true, true, false];
        assert_eq!(mma_sparse(&op, &a, &b, &[0], &kept)[0].model, 0x7fff_ffff);
        assert_eq!(mma(&op, &a, &b, &[0])[0].model, 0x7fff_ffff);
        assert_eq!(
            model::mma_model_sparse(&op, &a, &b, &[0], &[true, false, true, false]),
            Some(vec![0x4000_0000])
        );
    }

    /// `wmma` f16 D with an f32 C accumulates C in f32 (L20914): −FLT_MAX + Inf is +Inf (the
    /// H200's `7c00`), and 2^17 − 2^17 + 1 is 1, where C converted to f16 first would be
    /// −Inf + Inf = NaN and Inf.
    #[test]
    fn f32_c_with_f16_d_accumulates_in_f32() {
        let op = MmaOp {
            c: Elem::Float(FloatFormat::F32),
            ..MmaOp::float(Arch::Sm90, Kind::Wmma, (1, 1, 2), FloatFormat::F16, FloatFormat::F16)
        };
        let (one, inf) = (0x3c00u128, 0x7c00u128);
        assert_eq!(mma(&op, &[one, 0], &[inf, 0], &[0xff7f_ffff])[0].model, 0x7c00);
        // C = 2^17 (f16 Inf), products −2^15 × 4 and 1 × 1: 2^17 − 2^17 + 1 = 1.
        let d = mma(&op, &[0xf800, one], &[0x4400, one], &[0x4800_0000]);
        assert_eq!(d[0].model, one);
        assert!(d[0].accepts(one));
    }

    #[test]
    fn f16_c_with_f32_d_is_widened() {
        // m8n8k4 allows .f32 D with .f16 C (L22906): C = f16 1.5, no products.
        let op = MmaOp {
            c: Elem::Float(FloatFormat::F16),
            ..MmaOp::float(Arch::Sm70, Kind::Mma, (1, 1, 4), FloatFormat::F16, FloatFormat::F32)
        };
        assert_eq!(mma(&op, &[0; 4], &[0; 4], &[0x3e00])[0].model, 0x3fc0_0000);
    }
}
