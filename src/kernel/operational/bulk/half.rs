//! The scenarios' own half-precision arithmetic for the `.f16`/`.bf16` reductions
//! (`cp.reduce.async.bulk .add.noftz`, `.min`, `.max`, L14647; the tensor reductions of
//! L15131-15140): a value exactly as an `f64`, and an `f64` rounded to the nearest half
//! (ties to even) with subnormal results kept, as `.noftz` requires ("preserves subnormal
//! inputs and results and does not flush them to zero", L14647).
//!
//! Sums are formed in `f64` and rounded once here. For `f16` every sum of two values is exact
//! in `f64` (the values span 2^-24..2^16: 40 bits). For `bf16` a sum is exact when the two
//! exponents differ by less than 45; when they differ by more, the `f64` sum is the larger
//! operand itself (the smaller is below half its `f64` ulp), a `bf16` value and no midpoint, so
//! rounding it again gives the correctly rounded sum: the scenarios' data (moderate values
//! beside subnormal and tiny ones) stays within these two cases. No infinity or NaN is made.

/// A half format: fraction bits and exponent bias (`f16`: 10, 15; `bf16`: 7, 127).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::kernel::operational) struct Half {
    man: u32,
    bias: i32,
}

/// IEEE binary16.
pub(in crate::kernel::operational) const F16: Half = Half { man: 10, bias: 15 };
/// bfloat16: binary32's exponent, 7 fraction bits.
pub(in crate::kernel::operational) const BF16: Half = Half { man: 7, bias: 127 };

impl Half {
    /// The value of finite `bits` (normal, subnormal or zero), exactly.
    pub(in crate::kernel::operational) fn value(self, bits: u16) -> f64 {
        let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
        let e = i32::from(bits >> self.man & ((1 << (15 - self.man)) - 1) as u16);
        let m = f64::from(bits & ((1 << self.man) - 1) as u16);
        let one = f64::from(1u32 << self.man);
        let mag = if e == 0 {
            // Subnormal: 0.m × 2^(1 - bias).
            m / one * 2f64.powi(1 - self.bias)
        } else {
            (1.0 + m / one) * 2f64.powi(e - self.bias)
        };
        sign * mag
    }

    /// `x` (below the format's largest finite value) rounded to the nearest value of the
    /// format, ties to even, subnormals kept; the sign of a zero kept.
    pub(in crate::kernel::operational) fn round(self, x: f64) -> u16 {
        let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
        let a = x.abs();
        if a == 0.0 {
            return sign;
        }
        let emin = 1 - self.bias;
        // The exponent of a (a normal f64), never below the format's smallest normal one.
        let e = (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(emin);
        // a in units of the format's ulp at e: rounding to an integer is rounding to the format.
        let q = a * 2f64.powi(self.man as i32 - e);
        let r = q.round_ties_even() as u32;
        if e == emin && r < 1 << self.man {
            // Subnormal (r = 2^man is the smallest normal: the encoding below gives it).
            return sign | r as u16;
        }
        // r in [2^man, 2^(man+1)]: a carry to 2^(man+1) moves into the exponent.
        let (r, e) = if r == 1 << (self.man + 1) {
            (r >> 1, e + 1)
        } else {
            (r, e)
        };
        sign | (((e + self.bias) as u32) << self.man | (r - (1 << self.man))) as u16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values and roundings worked by hand, subnormals and the subnormal/normal boundary
    /// included.
    #[test]
    fn by_hand() {
        // f16: 0x0001 is 2^-24, 0x03ff is 1023·2^-24, 0x0400 the smallest normal 2^-14.
        assert_eq!(F16.value(0x0001), 2f64.powi(-24));
        assert_eq!(F16.value(0x83ff), -1023.0 * 2f64.powi(-24));
        assert_eq!(F16.value(0x3555), 0.333_251_953_125);
        assert_eq!(F16.round(2f64.powi(-24)), 0x0001);
        // 0x03ff + 0x0001 = 2^-14: the carry out of the subnormals gives the smallest normal.
        assert_eq!(F16.round(F16.value(0x03ff) + F16.value(0x0001)), 0x0400);
        // Half of the smallest subnormal ties to even (0); 3/2 of it to 2.
        assert_eq!(F16.round(2f64.powi(-25)), 0x0000);
        assert_eq!(F16.round(-2f64.powi(-25)), 0x8000);
        assert_eq!(F16.round(3.0 * 2f64.powi(-25)), 0x0002);
        // 1 + 2^-11 ties to 1.0 (0x3c00); 1 + 3·2^-11 to 1 + 2^-9 (0x3c02).
        assert_eq!(F16.round(1.0 + 2f64.powi(-11)), 0x3c00);
        assert_eq!(F16.round(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        assert_eq!(F16.round(-2.0), 0xc000);
        // The largest value below 2: 2 - 2^-11 ties to 2.0 (even) with a carry into the exponent.
        assert_eq!(F16.round(2.0 - 2f64.powi(-11)), 0x4000);
        // bf16: 0x0001 is 2^-133; 1 + 2^-8 ties to 1.0 (0x3f80); 1 + 3·2^-8 to 0x3f82.
        assert_eq!(BF16.value(0x0001), 2f64.powi(-133));
        assert_eq!(BF16.round(2f64.powi(-133) * 5.0), 0x0005);
        assert_eq!(BF16.round(1.0 + 2f64.powi(-8)), 0x3f80);
        assert_eq!(BF16.round(1.0 + 3.0 * 2f64.powi(-8)), 0x3f82);
        // A moderate value beside a subnormal: the subnormal is far below its half ulp.
        assert_eq!(BF16.round(BF16.value(0x3f80) + BF16.value(0x0007)), 0x3f80);
        // Against binary32's own rounding (bf16 is its top half): every bf16 value below 2^8.
        for b in (0u16..0x4380).step_by(7) {
            let v = BF16.value(b);
            assert_eq!(f32::from_bits(u32::from(b) << 16) as f64, v, "{b:#x}");
            assert_eq!(BF16.round(v), b);
        }
    }
}
