//! §9.7.18.2 SIMD video instructions (L31170-31578): `vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2`
//! (9.7.18.2.1), `vset2` (9.7.18.2.2), `vadd4 vsub4 vavrg4 vabsdiff4 vmin4 vmax4` (9.7.18.2.3)
//! and `vset4` (9.7.18.2.4).
//!
//! The stages (L31192-31202): pick two half-words (or four bytes) for each of `Va` and `Vb` out
//! of the four half-words (eight bytes) of `{b, a}` and sign- or zero-extend them by `atype` and
//! `btype`; operate lane by lane; optionally clamp each lane to the 16-bit (8-bit) range of
//! `dtype`; then either merge the lanes into `c` under the mask or add the masked lanes to `c`.
//!
//! Lanes are numbered from the least significant: a selector is written most significant lane
//! first, so `.h10` feeds half-word 1 to lane 1 and half-word 0 to lane 0, and the default
//! `.bsel` `.h32` takes both half-words of `b` (half-words 0-1 are `a`, 2-3 are `b`).

use super::{Cmp, VType};
use crate::value::Outcome;

/// 2-way (half-word lanes, `vop2`) or 4-way (byte lanes, `vop4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ways {
    /// `vadd2` … `vset2`: two half-word lanes.
    Two,
    /// `vadd4` … `vset4`: four byte lanes.
    Four,
}

impl Ways {
    /// Lanes per operation: 2 or 4.
    pub const fn lanes(self) -> usize {
        match self {
            Ways::Two => 2,
            Ways::Four => 4,
        }
    }
    /// Bits per lane: 16 or 8.
    pub const fn lane_bits(self) -> u32 {
        match self {
            Ways::Two => 16,
            Ways::Four => 8,
        }
    }
    /// Selectable elements of `{b, a}`: 4 half-words or 8 bytes (L31258, L31433).
    pub const fn elems(self) -> u8 {
        match self {
            Ways::Two => 4,
            Ways::Four => 8,
        }
    }
    /// The default `.asel`: `.h10` or `.b3210` (L31259, L31434), as lane → element.
    pub const fn default_asel(self) -> [u8; 4] {
        match self {
            Ways::Two => [0, 1, 0, 0],
            Ways::Four => [0, 1, 2, 3],
        }
    }
    /// The default `.bsel`: `.h32` or `.b7654` (L31260, L31435), as lane → element.
    pub const fn default_bsel(self) -> [u8; 4] {
        match self {
            Ways::Two => [2, 3, 0, 0],
            Ways::Four => [4, 5, 6, 7],
        }
    }
    /// The default mask: every lane (`.h10`, `.b3210`; L31257, L31432).
    pub const fn all_lanes(self) -> u8 {
        match self {
            Ways::Two => 0b11,
            Ways::Four => 0b1111,
        }
    }
}

/// The operand shape of one SIMD evaluation: types, selectors (lane `i` takes element
/// `asel[i]` of `{b, a}`; entries past the lane count are ignored) and the mask (bit `i` set:
/// lane `i` is written or accumulated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Simd {
    /// 2-way or 4-way.
    pub ways: Ways,
    /// `.atype`.
    pub atype: VType,
    /// `.asel`, lane → element of `{b, a}`.
    pub asel: [u8; 4],
    /// `.btype`.
    pub btype: VType,
    /// `.bsel`, lane → element of `{b, a}`.
    pub bsel: [u8; 4],
    /// The destination mask, bit `i` for lane `i`.
    pub mask: u8,
}

impl Simd {
    /// The shape with default selectors and mask.
    pub const fn new(ways: Ways, atype: VType, btype: VType) -> Simd {
        Simd {
            ways,
            atype,
            asel: ways.default_asel(),
            btype,
            bsel: ways.default_bsel(),
            mask: ways.all_lanes(),
        }
    }
}

/// `extractAndSignExt_2/_4(a, b, sel, type)` (L31284-31285, L31459-31460): lane `i` is element
/// `sel[i]` of the 64-bit `{b, a}`, sign-extended when `ty` is `.s32`, zero-extended otherwise.
/// An element index past the end selects zero bits.
pub fn extract_and_sign_ext(ways: Ways, a: u32, b: u32, sel: [u8; 4], ty: VType) -> [i64; 4] {
    let ba = (u64::from(b) << 32) | u64::from(a);
    let w = ways.lane_bits();
    let mut v = [0i64; 4];
    for (i, lane) in v.iter_mut().enumerate().take(ways.lanes()) {
        let e = ba.checked_shr(w * u32::from(sel[i])).unwrap_or(0) & ((1u64 << w) - 1);
        *lane = ty.extend(e as u32, w);
    }
    v
}

/// The lanes of `c` as unsigned values (`Vc = extractAndSignExt_2(c)`, L31286, L31461).
fn lanes_of(ways: Ways, c: u32) -> [i64; 4] {
    let sel = [0, 1, 2, 3];
    extract_and_sign_ext(ways, c, 0, sel, VType::U32)
}

/// The per-lane operation of 9.7.18.2.1 / 9.7.18.2.3 (L31289-31300, L31463-31474).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimdOp {
    /// `vadd2`/`vadd4`: `Va[i] + Vb[i]`.
    Vadd,
    /// `vsub2`/`vsub4`: `Va[i] - Vb[i]`.
    Vsub,
    /// `vavrg2`/`vavrg4`: `(Va[i] + Vb[i] + 1) >> 1` when the sum is non-negative, else
    /// `(Va[i] + Vb[i]) >> 1` (arithmetic): the average rounded half away from zero.
    /// (6.4 spells the opcode `vavg2` (E10991, E11018); the target notes spell it `varvg2`
    /// (L31322, L31496); the syntax lines name it `vavrg2`/`vavrg4`.)
    Vavrg,
    /// `vabsdiff2`/`vabsdiff4`: `|Va[i] - Vb[i]|`.
    Vabsdiff,
    /// `vmin2`/`vmin4`: `MIN(Va[i], Vb[i])`.
    Vmin,
    /// `vmax2`/`vmax4`: `MAX(Va[i], Vb[i])`.
    Vmax,
}

impl SimdOp {
    /// One lane of the operation.
    pub fn apply(self, va: i64, vb: i64) -> i64 {
        match self {
            SimdOp::Vadd => va + vb,
            SimdOp::Vsub => va - vb,
            SimdOp::Vavrg => {
                let s = va + vb;
                if s >= 0 {
                    (s + 1) >> 1
                } else {
                    s >> 1
                }
            }
            SimdOp::Vabsdiff => (va - vb).abs(),
            SimdOp::Vmin => va.min(vb),
            SimdOp::Vmax => va.max(vb),
        }
    }
}

/// The secondary operation of a SIMD instruction (L31249-31253): a SIMD merge with `c`,
/// optionally saturated, or the accumulate `.add`, which cannot be saturated (L31270, L31445).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Post {
    /// Merge the masked lanes into `c`.
    Merge {
        /// `.sat`: clamp each lane to the range of `dtype` first.
        sat: bool,
    },
    /// `.add`: add the masked lanes to `c`.
    Add,
}

/// The secondary step (L31306-31314, L31480-31488):
/// - `.add`: `d = c + Σ mask[i] ? t[i] : 0` on the lanes' exact values, modulo 2^32;
/// - merge: lane `i` of `d` is the low 16 (8) bits of `t[i]` where the mask has lane `i`, and
///   lane `i` of `c` elsewhere.
///
/// ⚠ The merge pseudocode ORs `t[i]` into `d` without shifting it to lane `i` (L31313, L31487,
/// and L31385, L31563 for vset2/vset4), and a negative `t[i]` would set every bit. The prose
/// (L31274: "the selected half-word results are copied into destination d") gives the
/// intended meaning: each lane lands, truncated, in its own half-word or byte.
pub fn combine(ways: Ways, mask: u8, add: bool, t: &[i64; 4], c: u32) -> u32 {
    let n = ways.lanes();
    let w = ways.lane_bits();
    if add {
        let sum: i64 = (0..n).filter(|&i| mask >> i & 1 != 0).map(|i| t[i]).sum();
        return (i64::from(c) + sum) as u32;
    }
    let vc = lanes_of(ways, c);
    let lane_mask = (1u32 << w) - 1;
    (0..n).fold(0u32, |d, i| {
        let v = if mask >> i & 1 != 0 { t[i] } else { vc[i] };
        d | ((v as u32 & lane_mask) << (w * i as u32))
    })
}

/// §9.7.18.2.1 `vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2` (L31229-31328, semantics
/// L31282-31314) and §9.7.18.2.3 `vadd4 vsub4 vavrg4 vabsdiff4 vmin4 vmax4` (L31400-31502,
/// semantics L31457-31488): `t[i] = op(Va[i], Vb[i])`; with `.sat`, `t[i]` clamped to the
/// S16/U16 (S8/U8) range by `dtype` (L31301-31304, L31475-31478); then [`combine`].
///
/// ⚠ Without `.sat`, the `.add` accumulation adds the lanes' exact values (`t[i]` in the
/// pseudocode is never narrowed), so `vadd4.u32.u32.u32.add` of bytes 0xff and 0xff adds 510.
/// "The sign of the intermediate result depends on dtype" (L31225) admits adding each lane
/// narrowed to 16 (8) bits and extended by `dtype` instead; that sum is accepted too.
pub fn simd(op: SimdOp, dtype: VType, post: Post, s: &Simd, a: u32, b: u32, c: u32) -> Outcome {
    let va = extract_and_sign_ext(s.ways, a, b, s.asel, s.atype);
    let vb = extract_and_sign_ext(s.ways, a, b, s.bsel, s.btype);
    let w = s.ways.lane_bits();
    let mut t = [0i64; 4];
    for i in 0..s.ways.lanes() {
        t[i] = op.apply(va[i], vb[i]);
        if post == (Post::Merge { sat: true }) {
            t[i] = if dtype.is_signed() {
                t[i].clamp(-(1 << (w - 1)), (1 << (w - 1)) - 1)
            } else {
                t[i].clamp(0, (1 << w) - 1)
            };
        }
    }
    let add = post == Post::Add;
    let model = combine(s.ways, s.mask, add, &t, c);
    let mut alts = Vec::new();
    if add {
        let narrowed = t.map(|x| dtype.extend(x as u32 & ((1u32 << w) - 1), w));
        alts.push(combine(s.ways, s.mask, add, &narrowed, c));
    }
    super::outcome(model, alts)
}

/// §9.7.18.2.2 `vset2` (L31329-31399, semantics L31370-31386) and §9.7.18.2.4 `vset4`
/// (L31503-31577, semantics L31548-31564): `t[i] = compare(Va[i], Vb[i]) ? 1 : 0`, then
/// [`combine`] (`.add` counts the true masked lanes into `c`).
///
/// ⚠ The prose says lanes outside the mask are copied from "source operand b" (L31362, L31540;
/// 6.4 E11137, E11331); the pseudocode copies `Vc[i]` (L31385, L31563), as every other SIMD
/// instruction does (L31274). The pseudocode is followed: unmasked lanes come from `c`.
pub fn vset_simd(cmp: Cmp, add: bool, s: &Simd, a: u32, b: u32, c: u32) -> u32 {
    let va = extract_and_sign_ext(s.ways, a, b, s.asel, s.atype);
    let vb = extract_and_sign_ext(s.ways, a, b, s.bsel, s.btype);
    let mut t = [0i64; 4];
    for i in 0..s.ways.lanes() {
        t[i] = i64::from(super::holds(cmp, va[i], vb[i]));
    }
    combine(s.ways, s.mask, add, &t, c)
}
