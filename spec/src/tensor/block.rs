//! The block-FMA step: the exact arithmetic core of tensor-core floating-point `mma`.
//!
//! The manual leaves accumulation order, rounding and subnormal handling unspecified (L22918-22935);
//! this is the model that reproduces every result recorded on V100, A100, Ada, H100, H200 and B200
//! (`corpus/tensor-cores/hw-data/`, checked by `spec/tests/tensor_hw.rs`). One step:
//!
//! 1. every product `a_k × b_k` is exact; its alignment exponent is `e(a) + e(b)` with
//!    `e(x) = max(⌊log2 |x|⌋, emin)`, emin of `x`'s input format (so a subnormal input aligns as
//!    if it were in the lowest normal binade);
//! 2. zero products and a zero `c` are left out; `c`'s alignment exponent uses its own format's
//!    emin (the output format's: f32, or f16 for an f16 accumulator);
//! 3. `E` is the largest alignment exponent;
//! 4. each term's magnitude is truncated to a multiple of `2^(E − F)` (no sticky bit), the
//!    signed terms are added exactly (no carry limit: an interpretation, the data do not reach
//!    carry-out extremes);
//! 5. the sum is rounded once to the block's output ([`BlockRound`]).
//!
//! A K-long instruction is a chain of such steps over blocks of [`BlockFma::block`] k positions;
//! each block's result, already in the output format, is the next block's `c`. The arithmetic is
//! in integers (`i128`): no host floating point takes part in a result.

use crate::float::format::{Fmt, Val, F16, F32};
use crate::float::ieee;
use crate::float::round::{round, Rnd};
use crate::types::FloatFormat;

/// How a block's exact sum is rounded: the format of the block's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockRound {
    /// f32, toward zero (every f32-output configuration of the table).
    RzF32,
    /// f32 toward zero, then to 13 fraction bits (the low 10 mantissa bits cleared): the e8m13
    /// accumulator of native fp8 on sm_89 and of fp8 `wgmma` on sm_90. Its subnormals lie on the
    /// grid 2^-139 (f32's subnormal range with the same 10 bits cleared).
    RzE8m13,
    /// f16, to nearest even (every f16-output configuration).
    RneF16,
    /// f32, to nearest even (the final `C` add of the emulated fp8 `mma.sync`; also available as a
    /// block rounding).
    RneF32,
}

impl BlockRound {
    /// The storage format of the result (e8m13 lives in f32 bits).
    pub fn fmt(self) -> &'static Fmt {
        match self {
            BlockRound::RneF16 => &F16,
            _ => &F32,
        }
    }

    /// Rounds `(-1)^neg × mag × 2^exp` to this block output.
    pub fn round(self, neg: bool, mag: u128, exp: i32) -> u128 {
        let (fmt, rnd) = match self {
            BlockRound::RzF32 | BlockRound::RzE8m13 => (&F32, Rnd::Rz),
            BlockRound::RneF16 => (&F16, Rnd::Rn),
            BlockRound::RneF32 => (&F32, Rnd::Rn),
        };
        let bits = round(fmt, neg, mag, exp, false, rnd).bits;
        if self == BlockRound::RzE8m13 {
            // RZ twice is RZ once: the f32 truncation, then 10 more bits off the magnitude.
            bits & !0x3ff
        } else {
            bits
        }
    }
}

/// The order in which the k positions are cut into blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KOrder {
    /// k = 0, 1, 2, ... (every native configuration).
    Ascending,
    /// First every k with k mod 4 ∈ {0, 1}, then every k with k mod 4 ∈ {2, 3}, each group
    /// ascending: the grouping the fp8 → f16x2 conversion of the emulated fp8 `mma.sync` gives
    /// on sm_90/sm_100 (lane t's fp8x4 register holds k = 4t..4t+3 and converts to two f16x2
    /// registers, {4t, 4t+1} and {4t+2, 4t+3}).
    PairsMod4,
}

/// One configuration of the block-FMA model, as data.
///
/// ```
/// use spec::tensor::block::{BlockFma, BlockRound, KOrder};
/// use spec::types::FloatFormat;
///
/// // A100 fp16 → f32 (blocks of 8, F = 24, RZ): 1 + 2^-30 × 1 loses the small product (it is
/// // below 2^(0-24)), where an exact sum would keep it.
/// let a100 = BlockFma {
///     block: 8,
///     f: 24,
///     rounding: BlockRound::RzF32,
///     c_in_first_block: true,
///     order: KOrder::Ascending,
///     align_as: None,
/// };
/// let one = 0x3c00u128; // f16 1.0
/// let tiny = 0x0400u128; // f16 2^-14
/// let d = a100.dot(FloatFormat::F16, FloatFormat::F16, &[one, tiny], &[one, tiny], 0);
/// assert_eq!(d, 0x3f80_0000); // exactly 1.0f32
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockFma {
    /// k positions per block (zero products count as positions: the block boundaries do not
    /// move when some products are zero).
    pub block: usize,
    /// Fraction bits kept below the largest alignment exponent: terms are truncated to multiples
    /// of 2^(E − F).
    pub f: u32,
    /// The rounding of every block's result (and the format of the chain's accumulator).
    pub rounding: BlockRound,
    /// `c` enters the first block (true: every native configuration). False: the blocks start
    /// from zero and `c` is added last with one IEEE round-to-nearest-even addition in the output
    /// format (the emulated fp8 `mma.sync` of sm_90/sm_100).
    pub c_in_first_block: bool,
    /// How the k positions are cut into blocks.
    pub order: KOrder,
    /// The inputs are first converted (exactly) to this format, whose emin then bounds the
    /// alignment exponents: `Some(F16)` for the emulated fp8 `mma.sync`, whose tensor steps take
    /// f16 operands. `None`: the inputs' own formats.
    pub align_as: Option<FloatFormat>,
}

/// One nonzero term: `(-1)^neg × sig × 2^exp`, aligned as if its exponent were `e`.
#[derive(Clone, Copy, Debug)]
struct Term {
    neg: bool,
    sig: u128,
    exp: i32,
    e: i32,
}

/// An input element of a dot product, decoded once ([`BlockFma::decode_all`]).
#[derive(Clone, Copy, Debug)]
pub struct Decoded(Elem);

/// An input element, decoded.
#[derive(Clone, Copy, Debug)]
enum Elem {
    Nan,
    Inf(bool),
    /// Finite: sign, significand, exponent of its lowest bit, alignment exponent.
    Fin(bool, u128, i32, i32),
}

fn decode(fmt: &Fmt, emin: i32, bits: u128) -> Elem {
    match fmt.decode(bits) {
        Val::Nan => Elem::Nan,
        Val::Inf { neg } => Elem::Inf(neg),
        Val::Finite { neg, sig, exp } => {
            let e = if sig == 0 {
                emin
            } else {
                (exp + 63 - sig.leading_zeros() as i32).max(emin)
            };
            Elem::Fin(neg, sig as u128, exp, e)
        }
    }
}

/// What the products and `c` of one dot product reduce to before any rounding.
enum Special {
    /// Some input is NaN, or Inf × 0, or +Inf and −Inf meet.
    Nan,
    /// Every infinite term has this sign.
    Inf(bool),
    /// No special value anywhere.
    Finite,
}

fn special(products: &[(Elem, Elem)], c: Elem) -> Special {
    let mut inf: Option<bool> = None;
    let mut nan = false;
    let mut see = |neg: bool| match inf {
        Some(s) if s != neg => nan = true,
        _ => inf = Some(neg),
    };
    for (x, y) in products {
        match (*x, *y) {
            (Elem::Nan, _) | (_, Elem::Nan) => return Special::Nan,
            (Elem::Inf(_), Elem::Fin(_, 0, _, _)) | (Elem::Fin(_, 0, _, _), Elem::Inf(_)) => return Special::Nan,
            (Elem::Inf(p), Elem::Inf(q)) => see(p ^ q),
            (Elem::Inf(p), Elem::Fin(q, ..)) | (Elem::Fin(q, ..), Elem::Inf(p)) => see(p ^ q),
            _ => {}
        }
    }
    match c {
        Elem::Nan => return Special::Nan,
        Elem::Inf(s) => see(s),
        _ => {}
    }
    match (nan, inf) {
        (true, _) => Special::Nan,
        (false, Some(s)) => Special::Inf(s),
        (false, None) => Special::Finite,
    }
}

impl BlockFma {
    /// A native tensor-core step: C enters the first block, k ascends, each input aligned at
    /// its own format's emin.
    pub const fn native(block: usize, f: u32, rounding: BlockRound) -> BlockFma {
        BlockFma {
            block,
            f,
            rounding,
            c_in_first_block: true,
            order: KOrder::Ascending,
            align_as: None,
        }
    }

    /// One block step: `c + Σ products`, aligned, truncated and rounded per the module's steps 1-5.
    /// `products` holds the block's finite products (zeros included: they only decide the sign
    /// of an all-zero result); `c` is in the block output's format.
    fn step(&self, products: &[(Elem, Elem)], c: u128) -> u128 {
        let out = self.rounding.fmt();
        let c_elem = decode(out, out.emin(), c);
        let mut terms: Vec<Term> = Vec::with_capacity(products.len() + 1);
        // Zero-sign bookkeeping: the sum of zeros is -0 only when every zero is -0 (IEEE 754
        // §6.3 for RN and RZ; an interpretation, the data's only exact zero is +0).
        let mut all_neg_zero = true;
        for (x, y) in products {
            if let (Elem::Fin(nx, sx, ex, ax), Elem::Fin(ny, sy, ey, ay)) = (*x, *y) {
                if sx == 0 || sy == 0 {
                    all_neg_zero &= nx ^ ny;
                    continue;
                }
                all_neg_zero = false;
                terms.push(Term {
                    neg: nx ^ ny,
                    sig: sx * sy,
                    exp: ex + ey,
                    e: ax + ay,
                });
            }
        }
        match c_elem {
            // An Inf accumulator (a block that overflowed f16) stays; NaN too.
            Elem::Nan | Elem::Inf(_) => return c,
            Elem::Fin(neg, 0, ..) => all_neg_zero &= neg,
            Elem::Fin(neg, sig, exp, e) => {
                all_neg_zero = false;
                terms.push(Term { neg, sig, exp, e });
            }
        }
        let Some(big_e) = terms.iter().map(|t| t.e).max() else {
            return out.zero(all_neg_zero);
        };
        let q = big_e - self.f as i32;
        let sum: i128 = terms
            .iter()
            .map(|t| {
                let shift = q - t.exp;
                let mag = if shift <= 0 {
                    t.sig << (-shift) as u32
                } else if shift >= 128 {
                    0
                } else {
                    t.sig >> shift as u32
                };
                if t.neg {
                    -(mag as i128)
                } else {
                    mag as i128
                }
            })
            .sum();
        // An exact zero from nonzero terms is +0 (what Ada's E5M2 data show).
        self.rounding.round(sum < 0, sum.unsigned_abs(), q)
    }

    /// The dot product `c + Σ_k a[k] × b[k]` in this configuration: `a` elements in format `fa`,
    /// `b` in `fb`, `c` in the block output's format ([`BlockRound::fmt`]); the result is in that
    /// format too. `a.len() == b.len()` is the instruction's K: pass zeros for unused positions.
    ///
    /// Specials (not recorded by any data): a NaN input, Inf × 0 or +Inf meeting −Inf give the
    /// output format's canonical NaN (0x7fffffff, 0x7fff); otherwise an infinite product or `c`
    /// gives that Inf; a block that overflows (f16) passes its Inf on.
    pub fn dot(&self, fa: FloatFormat, fb: FloatFormat, a: &[u128], b: &[u128], c: u128) -> u128 {
        assert_eq!(a.len(), b.len(), "A row and B column of different K");
        self.dot_decoded(&self.decode_all(fa, a), &self.decode_all(fb, b), c)
    }

    /// The elements of `v` (format `f`) decoded as [`BlockFma::dot_decoded`] takes them: a
    /// matrix product decodes A and B once, not once per element of D.
    pub fn decode_all(&self, f: FloatFormat, v: &[u128]) -> Vec<Decoded> {
        let fmt = Fmt::of(f);
        let emin = self.align_as.map_or(fmt.emin(), |g| Fmt::of(g).emin());
        v.iter().map(|&x| Decoded(decode(fmt, emin, x))).collect()
    }

    /// [`BlockFma::dot`] over elements [`BlockFma::decode_all`] decoded.
    pub fn dot_decoded(&self, a: &[Decoded], b: &[Decoded], c: u128) -> u128 {
        assert_eq!(a.len(), b.len(), "A row and B column of different K");
        let out = self.rounding.fmt();
        let products: Vec<(Elem, Elem)> = a.iter().zip(b).map(|(x, y)| (x.0, y.0)).collect();
        match special(&products, decode(out, out.emin(), c)) {
            Special::Nan => return out.canonical_nan,
            Special::Inf(neg) => return out.inf(neg).expect("f32 and f16 have Inf"),
            Special::Finite => {}
        }
        let order: Vec<usize> = match self.order {
            KOrder::Ascending => (0..a.len()).collect(),
            KOrder::PairsMod4 => (0..a.len())
                .filter(|k| k % 4 < 2)
                .chain((0..a.len()).filter(|k| k % 4 >= 2))
                .collect(),
        };
        let mut acc = if self.c_in_first_block { c } else { out.zero(false) };
        let mut block = Vec::with_capacity(self.block);
        for chunk in order.chunks(self.block.max(1)) {
            block.clear();
            block.extend(chunk.iter().map(|&k| products[k]));
            acc = self.step(&block, acc);
        }
        if self.c_in_first_block {
            acc
        } else {
            // D = RNE(X + C), one IEEE addition in the output format.
            ieee::add(out, acc, c, Rnd::Rn)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use FloatFormat::{E4m3, F16};

    const ONE: u128 = 0x3c00; // f16 1.0

    #[test]
    fn truncation_drops_bits_below_two_to_the_e_minus_f() {
        // c = 1.0f32, products 2^-23 and 2^-24 (f16 2^-12 × 2^-11, 2^-12 × 2^-12): E = 0.
        // F = 23: 2^-23 kept, 2^-24 dropped → 1 + 2^-23. F = 24: both kept, exact 1 + 3·2^-24,
        // then RZ to f32 → 1 + 2^-23 as well; F = 25 same. With two 2^-24 products and F = 23
        // both are dropped: 1.0, whereas RZ of the exact sum 1 + 2^-23 would keep one ulp.
        let p12 = 0x0c00; // 2^-12
        let p11 = 0x1000; // 2^-11
        let c = 0x3f80_0000;
        let v100 = BlockFma::native(4, 23, BlockRound::RzF32);
        assert_eq!(v100.dot(F16, F16, &[p12, p12], &[p11, p12], c), 0x3f80_0001);
        assert_eq!(v100.dot(F16, F16, &[p12, p12], &[p12, p12], c), 0x3f80_0000);
        let a100 = BlockFma::native(8, 24, BlockRound::RzF32);
        assert_eq!(a100.dot(F16, F16, &[p12, p12], &[p12, p12], c), 0x3f80_0001);
    }

    #[test]
    fn truncation_acts_on_magnitudes_so_negative_terms_round_toward_zero() {
        // c = 1.0, product −3·2^-27 (f16 −3·2^-14 × 2^-13): E = 0, F = 24: |−3·2^-27| truncates
        // to 0 → exactly 1.0. The exact sum 1 − 3·2^-27 under RZ would give 1 − 2^-24.
        let m3 = 0x8000 | 0x0a00; // −3·2^-14 = −1.5 × 2^-13
        let p13 = 0x0800; // 2^-13
        let a100 = BlockFma::native(8, 24, BlockRound::RzF32);
        assert_eq!(a100.dot(F16, F16, &[m3], &[p13], 0x3f80_0000), 0x3f80_0000);
    }

    #[test]
    fn cancellation_is_exact_and_gives_plus_zero() {
        // 3 × 5 − 15 + 0: exact cancellation → +0; then c = −0 with zero products → −0.
        let three = 0x4200;
        let five = 0x4500;
        let m15 = 0xcb80;
        let h = BlockFma::native(16, 25, BlockRound::RzF32);
        assert_eq!(h.dot(F16, F16, &[three, m15], &[five, ONE], 0), 0);
        assert_eq!(h.dot(F16, F16, &[three, m15], &[five, ONE], 0x8000_0000), 0);
        let negzero = 0x8000;
        assert_eq!(h.dot(F16, F16, &[negzero], &[ONE], 0x8000_0000), 0x8000_0000);
        // Small residue of a large cancellation: (1 + 2^-10)² − 1 − 2^-9 = 2^-20, exact.
        let x = 0x3c01; // 1 + 2^-10
        let m1 = 0xbc00;
        let mp9 = 0x9800; // −2^-9
        assert_eq!(
            h.dot(F16, F16, &[x, m1, mp9], &[x, ONE, ONE], 0),
            0x3580_0000 // 2^-20
        );
    }

    #[test]
    fn subnormal_inputs_align_at_emin() {
        // e4m3 subnormal 2^-9 (bits 0x01) aligns as 2^-6 (e4m3's emin). Products 2^-9 × 2^-9 =
        // 2^-18 (alignment exponent −12) and 2^-9 × 1 (alignment −6): E = −6. F = 13: grid
        // 2^-19, 2^-18 survives; F = 5 (a made-up width): grid 2^-11, 2^-18 is dropped.
        let sub = 0x01; // e4m3 2^-9
        let one = 0x38; // e4m3 1.0
        let ada = BlockFma::native(16, 13, BlockRound::RzF32);
        assert_eq!(ada.dot(E4m3, E4m3, &[sub, sub], &[sub, one], 0), {
            // 2^-9 + 2^-18 as f32
            0x3b00_0000 | (1 << (23 - 9))
        });
        let narrow = BlockFma::native(16, 5, BlockRound::RzF32);
        assert_eq!(narrow.dot(E4m3, E4m3, &[sub, sub], &[sub, one], 0), 0x3b00_0000);
        // Aligned as f16 (the emulated path) 2^-9 is normal: E = −9, and with F = 9 the grid is
        // 2^-18, so 2^-18 survives; aligned as e4m3 (E = −6) the grid is 2^-15 and it is dropped.
        let emu = BlockFma {
            align_as: Some(F16),
            ..BlockFma::native(16, 9, BlockRound::RzF32)
        };
        assert_eq!(
            emu.dot(E4m3, E4m3, &[sub, sub], &[sub, one], 0),
            0x3b00_0000 | (1 << (23 - 9))
        );
        let as_e4m3 = BlockFma::native(16, 9, BlockRound::RzF32);
        assert_eq!(as_e4m3.dot(E4m3, E4m3, &[sub, sub], &[sub, one], 0), 0x3b00_0000);
    }

    #[test]
    fn e8m13_and_f16_block_outputs() {
        // 1 + 2^-13 + 2^-14 (products 2^-12 × 0.5 and 2^-12 × 0.25, F = 25 keeps both): RZ to
        // e8m13 keeps 1 + 2^-13.
        let x = 0x0c00; // f16 2^-12
        let half = 0x3800;
        let quarter = 0x3400;
        let e = BlockFma::native(32, 25, BlockRound::RzE8m13);
        assert_eq!(e.dot(F16, F16, &[x, x], &[half, quarter], 0x3f80_0000), 0x3f80_0400);
        // f16 RNE: 1 + 2^-11 is a tie between 1 and 1 + 2^-10 → 1 (even); + 2^-12 more → up.
        let f = BlockFma::native(16, 25, BlockRound::RneF16);
        let p11 = 0x1000; // 2^-11
        assert_eq!(f.dot(F16, F16, &[p11], &[ONE], ONE), ONE);
        let p12 = 0x0c00;
        assert_eq!(f.dot(F16, F16, &[p11, p12], &[ONE, ONE], ONE), 0x3c01);
    }

    #[test]
    fn blocks_chain_through_the_output_format() {
        // Two blocks of 1: c = 1, then + 2^-24, then + 2^-24 (f16 2^-12 × 2^-12). RZ f32 after
        // each: 1 + 2^-24 → 1 (F = 24 keeps it, RZ drops it), twice: 1. One block of 2: exact
        // 1 + 2^-23 = 1 + 1 ulp.
        let p12 = 0x0c00;
        let c = 0x3f80_0000;
        assert_eq!(
            BlockFma::native(1, 24, BlockRound::RzF32).dot(F16, F16, &[p12, p12], &[p12, p12], c),
            c
        );
        assert_eq!(
            BlockFma::native(2, 24, BlockRound::RzF32).dot(F16, F16, &[p12, p12], &[p12, p12], c),
            c + 1
        );
    }

    #[test]
    fn specials() {
        let inf = 0x7c00;
        let nan = 0x7e00;
        let h = BlockFma::native(16, 25, BlockRound::RzF32);
        assert_eq!(h.dot(F16, F16, &[inf], &[ONE], 0), 0x7f80_0000);
        assert_eq!(h.dot(F16, F16, &[inf, inf], &[ONE, 0xbc00], 0), 0x7fff_ffff);
        assert_eq!(h.dot(F16, F16, &[inf], &[0], 0), 0x7fff_ffff);
        assert_eq!(h.dot(F16, F16, &[nan], &[ONE], 0), 0x7fff_ffff);
        assert_eq!(h.dot(F16, F16, &[ONE], &[ONE], 0xff80_0000), 0xff80_0000);
        // f16 output overflow in the first block: Inf carries on.
        let f = BlockFma::native(1, 25, BlockRound::RneF16);
        let max = 0x7bff;
        assert_eq!(f.dot(F16, F16, &[max, 0xbc00], &[0x4000, ONE], 0), inf);
    }
}
