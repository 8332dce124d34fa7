//! The rounding engine: one exact value in, the bits of any PTX format out, in every rounding
//! mode of the operand chapter's Table 17 (`.rn .rna .rz .rm .rp .rs`).
//!
//! A value reaches the engine as `(-1)^neg × (sig + δ) × 2^exp` with an integer significand and
//! a sticky flag δ ∈ {0, "some nonzero amount below sig's last bit"}; callers compute exact
//! results (or results exact to well below the last place, sticky-compressed) and round once.

use super::format::{Fmt, Special};

/// A floating-point rounding mode (Table 17, O318-325) or an integer one (Table 18, O332-337:
/// `.rni .rzi .rmi .rpi` round the same way, to an integral value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    /// To nearest, ties to even.
    Rn,
    /// To nearest, ties away from zero.
    Rna,
    /// Toward zero.
    Rz,
    /// Toward −∞.
    Rm,
    /// Toward +∞.
    Rp,
    /// Stochastic (L13846): the top `width` discarded bits are added to `rbits`; a carry out
    /// rounds away from zero, otherwise the value is truncated. Interpretation (the alignment
    /// figures 37-40 are missing, L13750-13770): `rbits` lines up with the most significant
    /// discarded bits, and discarded bits below them do not take part.
    Rs {
        /// This element's random bits, taken from `cvt.rs`'s `rbits` operand (see
        /// [`crate::cvt::narrow::rs`]).
        rbits: u32,
        /// How many random bits there are: they line up with the `width` most significant
        /// discarded bits.
        width: u32,
    },
}

impl Rnd {
    /// Parses a rounding modifier without its dot (`rn`, `rzi`, ...).
    pub fn parse(s: &str) -> Option<Rnd> {
        Some(match s {
            "rn" | "rni" => Rnd::Rn,
            "rna" => Rnd::Rna,
            "rz" | "rzi" => Rnd::Rz,
            "rm" | "rmi" => Rnd::Rm,
            "rp" | "rpi" => Rnd::Rp,
            _ => return None,
        })
    }

    /// Whether a value that is not representable rounds away from zero, given the sign, whether
    /// the kept part is odd, and the discarded part described by `half` (compared with one half
    /// of the last place: Less / Equal / Greater) and `top` (the discarded bits for `.rs`).
    fn away(self, neg: bool, odd: bool, half: std::cmp::Ordering, top: u128) -> bool {
        use std::cmp::Ordering::*;
        match self {
            Rnd::Rn => half == Greater || (half == Equal && odd),
            Rnd::Rna => half != Less,
            Rnd::Rz => false,
            Rnd::Rm => neg,
            Rnd::Rp => !neg,
            Rnd::Rs { rbits, width } => (top + (rbits as u128 & ((1u128 << width) - 1))) >> width != 0,
        }
    }
}

/// Shifts `sig` right by `shift` bits, rounding the magnitude by `rnd` (for a value of sign
/// `neg`; `sticky` says nonzero bits lie below `sig`). Returns the rounded magnitude and whether
/// it is inexact. A shift of 0 with `sticky` set still rounds (the discarded part is below half).
pub fn shift_round(sig: u128, shift: u32, sticky: bool, neg: bool, rnd: Rnd) -> (u128, bool) {
    let (kept, inexact, _) = shift_round_up(sig, shift, sticky, neg, rnd);
    (kept, inexact)
}

/// [`shift_round`], also saying whether the magnitude was rounded up.
fn shift_round_up(sig: u128, shift: u32, sticky: bool, neg: bool, rnd: Rnd) -> (u128, bool, bool) {
    use std::cmp::Ordering::*;
    let (kept, rem, half) = if shift == 0 {
        (sig, 0, Less)
    } else if shift >= 129 {
        (0, sig, Less)
    } else if shift == 128 {
        let h = 1u128 << 127;
        (0, sig, sig.cmp(&h).then(if sticky { Greater } else { Equal }))
    } else {
        let h = 1u128 << (shift - 1);
        let rem = sig & ((h << 1) - 1);
        (
            sig >> shift,
            rem,
            rem.cmp(&h).then(if sticky { Greater } else { Equal }),
        )
    };
    let inexact = rem != 0 || sticky;
    if !inexact {
        return (kept, false, false);
    }
    // `.rs`: the `width` most significant discarded bits, aligned (zero-filled below a short
    // discarded part).
    let top = match rnd {
        Rnd::Rs { width, .. } if shift >= width => {
            if shift - width >= 128 {
                0
            } else {
                rem >> (shift - width)
            }
        }
        Rnd::Rs { width, .. } => rem << (width - shift),
        _ => 0,
    };
    let up = rnd.away(neg, kept & 1 == 1, if rem == 0 { Less } else { half }, top);
    (kept + up as u128, true, up)
}

/// What a rounded result was, for callers that need more than the bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rounded {
    /// The result's bits in the target format.
    pub bits: u128,
    /// The result differs from the exact value.
    pub inexact: bool,
    /// The rounded magnitude exceeded the largest finite number (before any saturation).
    pub overflow: bool,
}

/// Rounds `(-1)^neg × (sig + sticky) × 2^exp` into `fmt` with `rnd`.
///
/// Overflow follows IEEE 754 §7.4 per mode: to ±Inf when the mode rounds the magnitude up,
/// otherwise to ±MAX_NORM; formats without Inf overflow to their NaN (e4m3, ue8m0) or, having
/// none, to MAX_NORM (fp6/fp4) — their conversions all carry `.satfinite`, which the caller
/// applies. Underflow rounds on the subnormal grid; ue8m0, which has neither subnormals nor zero,
/// returns its smallest value 2^-127 for anything that rounds below it.
pub fn round(fmt: &Fmt, neg: bool, sig: u128, exp: i32, sticky: bool, rnd: Rnd) -> Rounded {
    let neg = neg && fmt.signed;
    if sig == 0 && !sticky {
        return Rounded {
            bits: fmt.zero(neg),
            inexact: false,
            overflow: false,
        };
    }
    let man = fmt.man_bits as i32;
    let qmin = if fmt.has_subnormals() {
        fmt.emin() - man
    } else {
        -fmt.bias()
    };
    // Exponent of the most significant bit; a bare sticky sits just below bit 0.
    let top = if sig == 0 {
        exp - 1
    } else {
        exp + 127 - sig.leading_zeros() as i32
    };
    let q = (top - man).max(qmin);
    let (mut kept, inexact, rounded_up) = if q >= exp {
        shift_round_up(sig, (q - exp).min(200) as u32, sticky, neg, rnd)
    } else {
        // The value has fewer significant bits than the format: exact (sticky is impossible here,
        // a caller with sticky bits always supplies them below a full-width significand).
        (sig << (exp - q), false, false)
    };
    let mut q = q;
    if kept >> (man + 1) != 0 {
        kept >>= 1;
        q += 1;
    }
    if kept == 0 {
        let bits = if fmt.has_subnormals() { fmt.zero(neg) } else { 0 };
        return Rounded {
            bits,
            inexact,
            overflow: false,
        };
    }
    let man_mask = (1u128 << man) - 1;
    let biased = if kept >> man == 0 { 0 } else { q + man + fmt.bias() };
    let emax_biased = fmt.emax() + fmt.bias();
    let max_man = match fmt.special {
        Special::NanAllOnes if man > 0 => man_mask - 1,
        _ => man_mask,
    };
    if biased > emax_biased || (biased == emax_biased && kept & man_mask > max_man) {
        let up = match rnd {
            Rnd::Rn | Rnd::Rna => true,
            Rnd::Rz => false,
            Rnd::Rm => neg,
            Rnd::Rp => !neg,
            // Stochastic: the decision taken for the last place says which way.
            Rnd::Rs { .. } => rounded_up,
        };
        let bits = match (up, fmt.inf(neg)) {
            (true, Some(inf)) => inf,
            (true, None) if fmt.special == Special::NanAllOnes => fmt.canonical_nan,
            _ => fmt.max_finite(neg),
        };
        return Rounded {
            bits,
            inexact: true,
            overflow: true,
        };
    }
    Rounded {
        bits: fmt.pack(neg, biased as u32, kept & man_mask),
        inexact,
        overflow: false,
    }
}

/// Rounds an `f64` value into `fmt` (NaN to the format's canonical NaN, ±Inf to ±Inf or the
/// overflow value of the format).
pub fn from_f64(fmt: &Fmt, x: f64, rnd: Rnd) -> u128 {
    let bits = x.to_bits();
    let neg = bits >> 63 != 0;
    if x.is_nan() {
        return fmt.canonical_nan;
    }
    if x.is_infinite() {
        return fmt.inf(neg).unwrap_or(if fmt.special == Special::NanAllOnes {
            fmt.canonical_nan
        } else {
            fmt.max_finite(neg)
        });
    }
    let e = ((bits >> 52) & 0x7ff) as i32;
    let m = bits & ((1 << 52) - 1);
    let (sig, exp) = if e == 0 { (m, -1074) } else { (m | 1 << 52, e - 1075) };
    round(fmt, neg, sig as u128, exp, false, rnd).bits
}

/// Rounds `(-1)^neg × sig × 2^exp` to an integral magnitude with `rnd` (the integer rounding
/// modifiers); magnitudes beyond `u128` saturate. Returns (magnitude, inexact).
pub fn to_integral(neg: bool, sig: u128, exp: i32, rnd: Rnd) -> (u128, bool) {
    if exp >= 0 {
        if sig != 0 && (exp >= 128 || sig.leading_zeros() < exp as u32) {
            return (u128::MAX, false);
        }
        return (sig << exp, false);
    }
    shift_round(sig, (-exp).min(200) as u32, false, neg, rnd)
}

#[cfg(test)]
mod tests {
    use super::super::format::*;
    use super::*;

    #[test]
    fn f32_from_f64_matches_the_host_in_rn() {
        for x in [
            1.0f64,
            1.0 + 2f64.powi(-24),
            1.0 + 3.0 * 2f64.powi(-24),
            3.4028235677973366e38,
            1e39,
            1e-45,
            7e-46,
            2f64.powi(-150),
            1.5 * 2f64.powi(-149),
            -0.0,
            0.1,
        ] {
            assert_eq!(from_f64(&F32, x, Rnd::Rn), (x as f32).to_bits() as u128, "{x:e}");
        }
    }

    #[test]
    fn directed_modes_and_overflow() {
        let one_plus = 1.0 + 2f64.powi(-30);
        assert_eq!(from_f64(&F32, one_plus, Rnd::Rz), 0x3f80_0000);
        assert_eq!(from_f64(&F32, one_plus, Rnd::Rp), 0x3f80_0001);
        assert_eq!(from_f64(&F32, -one_plus, Rnd::Rp), 0xbf80_0000);
        assert_eq!(from_f64(&F32, -one_plus, Rnd::Rm), 0xbf80_0001);
        assert_eq!(from_f64(&F32, 1e39, Rnd::Rz), 0x7f7f_ffff);
        assert_eq!(from_f64(&F32, -1e39, Rnd::Rp), 0xff7f_ffff);
        assert_eq!(from_f64(&F32, -1e39, Rnd::Rm), 0xff80_0000);
        // Ties: 1 + 2^-24 is halfway; rn goes to even (1.0), rna away.
        let tie = 1.0 + 2f64.powi(-24);
        assert_eq!(from_f64(&F32, tie, Rnd::Rn), 0x3f80_0000);
        assert_eq!(from_f64(&F32, tie, Rnd::Rna), 0x3f80_0001);
        // f16: 65520 is the rn overflow threshold; 65519 stays at 65504.
        assert_eq!(from_f64(&F16, 65519.0, Rnd::Rn), 0x7bff);
        assert_eq!(from_f64(&F16, 65520.0, Rnd::Rn), 0x7c00);
        // e4m3 overflows to NaN without Inf; 464 rounds to 448 (tie to even), 480 is out.
        assert_eq!(from_f64(&E4M3, 464.0, Rnd::Rn), 0x7e);
        assert_eq!(from_f64(&E4M3, 480.0, Rnd::Rn), 0x7f);
        // e2m1 values: 0, 0.5, 1, 1.5, 2, 3, 4, 6.
        assert_eq!(from_f64(&E2M1, 2.5, Rnd::Rn), 0x4);
        assert_eq!(from_f64(&E2M1, 0.25, Rnd::Rn), 0x0);
        assert_eq!(from_f64(&E2M1, 0.26, Rnd::Rn), 0x1);
        assert_eq!(from_f64(&E2M1, -5.0, Rnd::Rn), 0xe);
        // tf32 keeps the f32 layout with the low 13 bits zero.
        assert_eq!(from_f64(&TF32, 1.0 + 2f64.powi(-11), Rnd::Rna), 0x3f80_2000);
        // ue8m0: powers of two only, nothing below 2^-127.
        assert_eq!(from_f64(&UE8M0, 3.0, Rnd::Rz), 128);
        assert_eq!(from_f64(&UE8M0, 3.0, Rnd::Rp), 129);
        assert_eq!(from_f64(&UE8M0, 1e-300, Rnd::Rz), 0);
    }

    #[test]
    fn stochastic_rounding_adds_the_random_bits() {
        // 1 + 2^-11 + 2^-12 into f16 (10 mantissa bits): the discarded bits are 0b1 1000.. (value
        // 0.75 ulp at the top of 13 discarded bits of an f32 source); rbits 0x7ff of 13 bits: no
        // carry unless discarded + rbits ≥ 2^13.
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-12);
        let disc = 0b1_1000_0000_0000u32; // 0.75 of the last place in 13 bits
        assert_eq!(
            from_f64(
                &F16,
                x,
                Rnd::Rs {
                    rbits: (1 << 13) - disc - 1,
                    width: 13
                }
            ),
            0x3c00
        );
        assert_eq!(
            from_f64(
                &F16,
                x,
                Rnd::Rs {
                    rbits: (1 << 13) - disc,
                    width: 13
                }
            ),
            0x3c01
        );
    }

    #[test]
    fn integral_rounding() {
        assert_eq!(to_integral(false, 5, -1, Rnd::Rn), (2, true)); // 2.5 → 2
        assert_eq!(to_integral(false, 7, -1, Rnd::Rn), (4, true)); // 3.5 → 4
        assert_eq!(to_integral(true, 5, -1, Rnd::Rm), (3, true)); // -2.5 → -3
        assert_eq!(to_integral(false, 1, 200, Rnd::Rn).0, u128::MAX);
    }
}
