//! The encodings of every PTX floating-point format (§5.2.3 "Alternate Floating-Point Data
//! Formats", L1373-1411; the operand chapter's Tables 15/16): field widths, which encodings are
//! special, and the canonical NaN NVIDIA hardware returns.
//!
//! A value is decoded to `(-1)^neg × sig × 2^exp` with an integer significand, which is how the
//! rounding engine ([`super::round`]) and the exact-arithmetic helpers take it.

use crate::types::FloatFormat;

/// Which encodings of a format are Inf and NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// IEEE 754: exponent all ones is Inf (mantissa 0) or NaN (f64, f32, tf32, f16, bf16, e5m2).
    Ieee,
    /// No Inf; only `S.1111.111` is NaN, the rest of the top binade is finite (e4m3, ue4m3:
    /// "does not support infinity; NaN values limited to 0x7f and 0xff", L1383).
    NanAllOnes,
    /// No Inf, no NaN: every encoding is finite (e2m1, e2m3, e3m2, L1395-1403).
    None,
}

/// A floating-point format's encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fmt {
    /// The PTX format this is the encoding of.
    pub format: FloatFormat,
    /// Storage width of one element (a tf32 lives in a 32-bit register).
    pub bits: u32,
    /// Width of the exponent field.
    pub exp_bits: u32,
    /// Width of the stored mantissa (fraction) field, the hidden bit not counted.
    pub man_bits: u32,
    /// Low zero bits below the mantissa in storage: tf32 keeps the f32 layout with the low 13
    /// mantissa bits zero (the layout is "implementation-defined", L1391; this is the one
    /// `cvt.*.tf32.f32` produces on hardware and the one mma consumes).
    pub pad: u32,
    /// Whether the top bit is a sign (false for the unsigned ue8m0 and ue4m3).
    pub signed: bool,
    /// Which encodings are Inf and NaN.
    pub special: Special,
    /// The NaN hardware produces when an operation creates one (§2.4 of the catalog): 0x7fffffff
    /// for f32 (observed on NVIDIA GPUs), all-ones-but-sign for the other IEEE formats by the same
    /// rule, 0x7fffffff00000000 only for the two `.approx.ftz.f64` instructions (their own rule).
    pub canonical_nan: u128,
}

const fn fmt(format: FloatFormat, exp_bits: u32, man_bits: u32, special: Special, nan: u128) -> Fmt {
    Fmt {
        format,
        bits: 1 + exp_bits + man_bits,
        exp_bits,
        man_bits,
        pad: 0,
        signed: true,
        special,
        canonical_nan: nan,
    }
}

/// `.f64`, IEEE 754 binary64: 11 exponent and 52 mantissa bits.
pub const F64: Fmt = fmt(FloatFormat::F64, 11, 52, Special::Ieee, 0x7fff_ffff_ffff_ffff);
/// `.f32`, IEEE 754 binary32: 8 exponent and 23 mantissa bits; canonical NaN 0x7fffffff.
pub const F32: Fmt = fmt(FloatFormat::F32, 8, 23, Special::Ieee, 0x7fff_ffff);
/// `.f16`, IEEE 754 binary16: 5 exponent and 10 mantissa bits.
pub const F16: Fmt = fmt(FloatFormat::F16, 5, 10, Special::Ieee, 0x7fff);
/// `.bf16` (L1379): 8 exponent and 7 mantissa bits, IEEE specials.
pub const BF16: Fmt = fmt(FloatFormat::Bf16, 8, 7, Special::Ieee, 0x7fff);
/// tf32's NaN keeps the layout too: all-ones-but-sign in the 19 significant bits, low 13 zero.
pub const TF32: Fmt = Fmt {
    bits: 32,
    pad: 13,
    ..fmt(FloatFormat::Tf32, 8, 10, Special::Ieee, 0x7fff_e000)
};
/// e5m2 (L1387): 8 bits, 5 exponent and 2 mantissa bits, IEEE specials.
pub const E5M2: Fmt = fmt(FloatFormat::E5m2, 5, 2, Special::Ieee, 0x7f);
/// e4m3 (L1383): 8 bits, 4 exponent and 3 mantissa bits, no Inf, NaN only 0x7f and 0xff.
pub const E4M3: Fmt = fmt(FloatFormat::E4m3, 4, 3, Special::NanAllOnes, 0x7f);
/// e3m2 (L1403): 6 bits, 3 exponent and 2 mantissa bits, no Inf or NaN.
pub const E3M2: Fmt = fmt(FloatFormat::E3m2, 3, 2, Special::None, 0);
/// e2m3 (L1399): 6 bits, 2 exponent and 3 mantissa bits, no Inf or NaN.
pub const E2M3: Fmt = fmt(FloatFormat::E2m3, 2, 3, Special::None, 0);
/// e2m1 (L1395): 4 bits, 2 exponent and 1 mantissa bit, no Inf or NaN.
pub const E2M1: Fmt = fmt(FloatFormat::E2m1, 2, 1, Special::None, 0);
/// ue8m0 is a bare biased exponent: 2^(e-127), no zero, no Inf, NaN 0xff (L1407). The generic
/// decoder handles it (`man_bits` 0, no subnormals: exponent 0 is 2^-127, see [`Fmt::decode`]).
pub const UE8M0: Fmt = Fmt {
    bits: 8,
    signed: false,
    ..fmt(FloatFormat::Ue8m0, 8, 0, Special::NanAllOnes, 0xff)
};
/// ue4m3 (L1411): 7 bits, unsigned, 4 exponent and 3 mantissa bits, no Inf, NaN only 0x7f.
pub const UE4M3: Fmt = Fmt {
    bits: 7,
    signed: false,
    ..fmt(FloatFormat::Ue4m3, 4, 3, Special::NanAllOnes, 0x7f)
};

/// A decoded value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    /// Any NaN (the payload is not decoded).
    Nan,
    /// ±Inf.
    Inf {
        /// −Inf.
        neg: bool,
    },
    /// `(-1)^neg × sig × 2^exp`; `sig == 0` is a (signed) zero.
    Finite {
        /// The sign bit.
        neg: bool,
        /// Integer significand, hidden bit included for normal numbers.
        sig: u64,
        /// Exponent of the significand's lowest bit.
        exp: i32,
    },
}

/// The IEEE classes, as `testp` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// ±0.0 (which `testp.normal` counts as normal, L7472).
    Zero,
    /// Nonzero with exponent field 0.
    Subnormal,
    /// Every other finite encoding.
    Normal,
    /// ±Inf.
    Inf,
    /// Any NaN.
    Nan,
}

impl Fmt {
    /// The encoding of `f`.
    pub const fn of(f: FloatFormat) -> &'static Fmt {
        match f {
            FloatFormat::F64 => &F64,
            FloatFormat::F32 => &F32,
            FloatFormat::F16 => &F16,
            FloatFormat::Bf16 => &BF16,
            FloatFormat::Tf32 => &TF32,
            FloatFormat::E5m2 => &E5M2,
            FloatFormat::E4m3 => &E4M3,
            FloatFormat::E3m2 => &E3M2,
            FloatFormat::E2m3 => &E2M3,
            FloatFormat::E2m1 => &E2M1,
            FloatFormat::Ue8m0 => &UE8M0,
            FloatFormat::Ue4m3 => &UE4M3,
        }
    }

    /// Exponent bias, 2^(exp_bits − 1) − 1.
    pub const fn bias(&self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }
    /// Unbiased exponent of the smallest normal number.
    pub const fn emin(&self) -> i32 {
        1 - self.bias()
    }
    /// Unbiased exponent of the largest finite number.
    pub const fn emax(&self) -> i32 {
        let top = (1 << self.exp_bits) - 1;
        match self.special {
            Special::Ieee => top - 1 - self.bias(),
            // ue8m0: the all-ones exponent is the NaN, there is no mantissa to shave.
            Special::NanAllOnes if self.man_bits == 0 => top - 1 - self.bias(),
            _ => top - self.bias(),
        }
    }
    /// Whether exponent field 0 means subnormal (every format but ue8m0, whose 0 is 2^-127).
    pub const fn has_subnormals(&self) -> bool {
        self.man_bits > 0
    }
    /// All-ones mask of the storage width.
    pub const fn mask(&self) -> u128 {
        (1u128 << self.bits) - 1
    }
    const fn sign_bit(&self) -> u128 {
        if self.signed {
            1u128 << (self.bits - 1)
        } else {
            0
        }
    }
    const fn man_mask(&self) -> u128 {
        (1u128 << self.man_bits) - 1
    }
    /// Largest mantissa field in the top binade (one less than all ones where that is NaN).
    const fn max_man_at_emax(&self) -> u128 {
        match self.special {
            Special::NanAllOnes if self.man_bits > 0 => self.man_mask() - 1,
            _ => self.man_mask(),
        }
    }

    /// Splits storage bits into (sign, biased exponent, mantissa), ignoring pad bits.
    pub const fn fields(&self, bits: u128) -> (bool, u32, u128) {
        let bits = bits & self.mask();
        let neg = self.signed && bits & self.sign_bit() != 0;
        let m = (bits >> self.pad) & self.man_mask();
        let e = ((bits >> (self.pad + self.man_bits)) & ((1 << self.exp_bits) - 1)) as u32;
        (neg, e, m)
    }

    /// Assembles storage bits from fields.
    pub const fn pack(&self, neg: bool, biased_exp: u32, man: u128) -> u128 {
        let s = if neg { self.sign_bit() } else { 0 };
        s | ((biased_exp as u128) << (self.man_bits + self.pad)) | (man << self.pad)
    }

    /// Whether `bits` is a NaN of this format (never, for formats without one).
    pub const fn is_nan(&self, bits: u128) -> bool {
        let (_, e, m) = self.fields(bits);
        let top = (1u32 << self.exp_bits) - 1;
        match self.special {
            Special::Ieee => e == top && m != 0,
            Special::NanAllOnes => e == top && m == self.man_mask(),
            Special::None => false,
        }
    }

    /// Whether the sign bit is set (never, for unsigned formats).
    pub const fn is_neg(&self, bits: u128) -> bool {
        self.signed && bits & self.sign_bit() != 0
    }

    /// The class of `bits`, as `testp` distinguishes them (in ue8m0, which has no subnormals,
    /// exponent field 0 is `Normal`).
    pub fn classify(&self, bits: u128) -> Class {
        let (_, e, m) = self.fields(bits);
        let top = (1u32 << self.exp_bits) - 1;
        if self.is_nan(bits) {
            Class::Nan
        } else if self.special == Special::Ieee && e == top {
            Class::Inf
        } else if e == 0 && self.has_subnormals() {
            if m == 0 {
                Class::Zero
            } else {
                Class::Subnormal
            }
        } else {
            Class::Normal
        }
    }

    /// Decodes `bits` into a sign, an integer significand and an exponent.
    pub fn decode(&self, bits: u128) -> Val {
        let (neg, e, m) = self.fields(bits);
        match self.classify(bits) {
            Class::Nan => Val::Nan,
            Class::Inf => Val::Inf { neg },
            Class::Zero | Class::Subnormal => Val::Finite {
                neg,
                sig: m as u64,
                exp: self.emin() - self.man_bits as i32,
            },
            Class::Normal => {
                // ue8m0 has no hidden bit to speak of: 2^(e - bias) with man_bits 0 works out.
                let hidden = if self.has_subnormals() || self.man_bits == 0 {
                    1u128 << self.man_bits
                } else {
                    0
                };
                Val::Finite {
                    neg,
                    sig: (hidden | m) as u64,
                    exp: e as i32 - self.bias() - self.man_bits as i32,
                }
            }
        }
    }

    /// The value as an `f64` (exact for every format but f64 itself, where it is the identity);
    /// NaN maps to `f64::NAN`.
    pub fn to_f64(&self, bits: u128) -> f64 {
        match self.decode(bits) {
            Val::Nan => f64::NAN,
            Val::Inf { neg } => {
                if neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
            Val::Finite { neg, sig, exp } => {
                if self.format == FloatFormat::F64 {
                    return f64::from_bits(bits as u64);
                }
                let v = sig as f64 * 2f64.powi(exp);
                if neg {
                    -v
                } else {
                    v
                }
            }
        }
    }

    /// The bits of the zero of sign `neg` (all-zero exponent and mantissa; in ue8m0, which has
    /// no zero, that encoding is 2^-127).
    pub const fn zero(&self, neg: bool) -> u128 {
        self.pack(neg, 0, 0)
    }
    /// ±Inf where the format has it.
    pub const fn inf(&self, neg: bool) -> Option<u128> {
        match self.special {
            Special::Ieee => Some(self.pack(neg, (1 << self.exp_bits) - 1, 0)),
            _ => None,
        }
    }
    /// ±MAX_NORM, the largest finite magnitude.
    pub const fn max_finite(&self, neg: bool) -> u128 {
        self.pack(neg, (self.emax() + self.bias()) as u32, self.max_man_at_emax())
    }
    /// The smallest positive normal number's bits (with the given sign).
    pub const fn min_normal(&self, neg: bool) -> u128 {
        self.pack(neg, 1, 0)
    }
    /// The quiet version of a NaN (IEEE formats: the top mantissa bit set); others unchanged.
    pub const fn quiet(&self, bits: u128) -> u128 {
        match self.special {
            Special::Ieee if self.man_bits >= 1 => bits | (1u128 << (self.man_bits - 1 + self.pad)),
            _ => bits,
        }
    }
    /// Whether the encoding is a subnormal (nonzero, exponent field 0).
    pub fn is_subnormal(&self, bits: u128) -> bool {
        self.classify(bits) == Class::Subnormal
    }
    /// Flush-to-zero: a subnormal becomes the zero of its sign; anything else passes (`.ftz`,
    /// "flushes subnormal inputs and results to sign-preserving zero", L7139).
    pub fn ftz(&self, bits: u128) -> u128 {
        if self.is_subnormal(bits) {
            self.zero(self.is_neg(bits))
        } else {
            bits
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_match_the_manual() {
        // f16 max 65504, e4m3 max 448 (L1395), e5m2 max 57344, e2m1 max 6, e2m3 7.5, e3m2 28.
        assert_eq!(F16.to_f64(F16.max_finite(false)), 65504.0);
        assert_eq!(E4M3.to_f64(E4M3.max_finite(false)), 448.0);
        assert_eq!(E5M2.to_f64(E5M2.max_finite(false)), 57344.0);
        assert_eq!(E2M1.to_f64(E2M1.max_finite(true)), -6.0);
        assert_eq!(E2M3.to_f64(E2M3.max_finite(false)), 7.5);
        assert_eq!(E3M2.to_f64(E3M2.max_finite(false)), 28.0);
        assert_eq!(UE8M0.to_f64(0), 2f64.powi(-127));
        assert_eq!(UE8M0.to_f64(0xfe), 2f64.powi(127));
        assert!(UE8M0.is_nan(0xff) && E4M3.is_nan(0xff) && !E4M3.is_nan(0x7e));
        assert_eq!(TF32.max_finite(false), 0x7f7f_e000);
        assert_eq!(F32.to_f64(1), 2f64.powi(-149));
        assert_eq!(BF16.to_f64(0x3f80), 1.0);
        assert_eq!(E2M1.to_f64(0x1), 0.5);
    }

    #[test]
    fn decode_agrees_with_the_host_for_f32() {
        for bits in [0u32, 1, 0x007f_ffff, 0x0080_0000, 0x3f80_0000, 0xc049_0fdb, 0x7f7f_ffff] {
            assert_eq!(F32.to_f64(bits as u128), f32::from_bits(bits) as f64, "{bits:#x}");
        }
        assert_eq!(F32.classify(0x7f80_0000), Class::Inf);
        assert_eq!(F32.classify(0x8000_0001), Class::Subnormal);
        assert_eq!(F32.ftz(0x8000_0001), 0x8000_0000);
    }
}
