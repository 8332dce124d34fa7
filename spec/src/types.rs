//! PTX fundamental types (§5.2.1) as the catalog and the semantics see them: a kind and a width.
//!
//! A type is parsed from its modifier token (`u32`, `s16x2`, `e4m3x2`, `pred`, ...). Packed types
//! (`f16x2`, `u16x2`, `e2m1x4`) know their lane count, so the register width is `lane_bits * lanes`.

use std::fmt;

/// What a type's bits mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `.pred`: one bit.
    Pred,
    /// `.bN`: untyped bits.
    Bits,
    /// `.uN`: unsigned integer.
    Unsigned,
    /// `.sN`: two's-complement signed integer.
    Signed,
    /// A floating-point format (`f16 bf16 tf32 f32 f64 e4m3 e5m2 e2m3 e3m2 e2m1 ue8m0 ue4m3`).
    Float(FloatFormat),
}

/// Floating-point formats PTX names (§5.2.1, the operand chapter's conversion tables).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatFormat {
    /// `.f16`: IEEE binary16.
    F16,
    /// `.bf16`: 8 exponent, 7 mantissa bits.
    Bf16,
    /// `.tf32`: f32's range with 10 mantissa bits, stored in 32 bits.
    Tf32,
    /// `.f32`: IEEE binary32.
    F32,
    /// `.f64`: IEEE binary64.
    F64,
    /// `.e4m3`: 8-bit, no Inf.
    E4m3,
    /// `.e5m2`: 8-bit, IEEE specials.
    E5m2,
    /// `.e2m3`: 6-bit, no Inf or NaN.
    E2m3,
    /// `.e3m2`: 6-bit, no Inf or NaN.
    E3m2,
    /// `.e2m1`: 4-bit, no Inf or NaN.
    E2m1,
    /// `.ue8m0`: 8-bit unsigned power of two, no Inf or zero.
    Ue8m0,
    /// `.ue4m3`: 7-bit unsigned, no Inf.
    Ue4m3,
}

impl FloatFormat {
    /// Storage width of one element in bits (tf32 lives in a 32-bit register).
    pub const fn bits(self) -> u32 {
        match self {
            FloatFormat::F16 | FloatFormat::Bf16 => 16,
            FloatFormat::Tf32 | FloatFormat::F32 => 32,
            FloatFormat::F64 => 64,
            FloatFormat::E4m3 | FloatFormat::E5m2 | FloatFormat::Ue8m0 | FloatFormat::Ue4m3 => 8,
            FloatFormat::E2m3 | FloatFormat::E3m2 => 6,
            FloatFormat::E2m1 => 4,
        }
    }
    /// Every format with its type name as PTX writes it, without the dot.
    pub const NAMES: [(&'static str, FloatFormat); 12] = [
        ("f16", FloatFormat::F16),
        ("bf16", FloatFormat::Bf16),
        ("tf32", FloatFormat::Tf32),
        ("f32", FloatFormat::F32),
        ("f64", FloatFormat::F64),
        ("e4m3", FloatFormat::E4m3),
        ("e5m2", FloatFormat::E5m2),
        ("e2m3", FloatFormat::E2m3),
        ("e3m2", FloatFormat::E3m2),
        ("e2m1", FloatFormat::E2m1),
        ("ue8m0", FloatFormat::Ue8m0),
        ("ue4m3", FloatFormat::Ue4m3),
    ];
    /// The type name without the dot (`bf16`).
    pub fn name(self) -> &'static str {
        FloatFormat::NAMES
            .iter()
            .find(|(_, f)| *f == self)
            .map(|(n, _)| *n)
            .unwrap_or("?")
    }
}

/// A PTX scalar or packed type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Type {
    /// What the bits of each lane mean.
    pub kind: Kind,
    /// Width of one lane in bits (1 for `.pred`).
    pub lane_bits: u32,
    /// Number of packed lanes (1 for scalar types; 2 for `x2`, 4 for `x4`).
    pub lanes: u32,
}

impl Type {
    /// `.pred`.
    pub const PRED: Type = Type {
        kind: Kind::Pred,
        lane_bits: 1,
        lanes: 1,
    };
    /// `.u32`.
    pub const U32: Type = Type::int(Kind::Unsigned, 32);
    /// `.s32`.
    pub const S32: Type = Type::int(Kind::Signed, 32);
    /// `.b32`.
    pub const B32: Type = Type::int(Kind::Bits, 32);

    /// The scalar type of `kind` and width `bits` (`Type::int(Kind::Signed, 16)` is `.s16`).
    pub const fn int(kind: Kind, bits: u32) -> Type {
        Type {
            kind,
            lane_bits: bits,
            lanes: 1,
        }
    }

    /// Parses a type modifier without its leading dot: `u32`, `s16x2`, `f16x2`, `e2m1x4`, `pred`.
    pub fn parse(tok: &str) -> Option<Type> {
        if tok == "pred" {
            return Some(Type::PRED);
        }
        let (base, lanes) = match tok.rfind('x') {
            Some(i) if tok[i + 1..].parse::<u32>().is_ok() && i > 0 => (&tok[..i], tok[i + 1..].parse().ok()?),
            _ => (tok, 1),
        };
        if lanes != 1 && lanes != 2 && lanes != 4 {
            return None;
        }
        if let Some((_, f)) = FloatFormat::NAMES.iter().find(|(n, _)| *n == base) {
            return Some(Type {
                kind: Kind::Float(*f),
                lane_bits: f.bits(),
                lanes,
            });
        }
        let kind = match base.as_bytes().first()? {
            b'b' => Kind::Bits,
            b'u' => Kind::Unsigned,
            b's' => Kind::Signed,
            _ => return None,
        };
        let bits: u32 = base[1..].parse().ok()?;
        let ok = match kind {
            Kind::Bits => matches!(bits, 8 | 16 | 32 | 64 | 128),
            _ => matches!(bits, 8 | 16 | 32 | 64),
        };
        (ok && !base[1..].starts_with('0')).then_some(Type {
            kind,
            lane_bits: bits,
            lanes,
        })
    }

    /// Width of the whole register value in bits.
    pub const fn bits(self) -> u32 {
        self.lane_bits * self.lanes
    }

    /// Whether the type is `.sN` (`.sNx2` included).
    pub const fn is_signed(self) -> bool {
        matches!(self.kind, Kind::Signed)
    }

    /// Whether the type is a floating-point format (packed ones included).
    pub const fn is_float(self) -> bool {
        matches!(self.kind, Kind::Float(_))
    }

    /// The same kind at twice the lane width (`.wide` results: u16 → u32, s32 → s64).
    pub const fn doubled(self) -> Type {
        Type {
            kind: self.kind,
            lane_bits: self.lane_bits * 2,
            lanes: self.lanes,
        }
    }

    /// All-ones mask of the register width.
    pub const fn mask(self) -> u128 {
        mask(self.bits())
    }
}

/// The all-ones value of `bits` bits (1..=128).
pub const fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Sign-extends the low `bits` bits of `v` to i128.
pub const fn sext(v: u128, bits: u32) -> i128 {
    let sh = 128 - bits;
    ((v << sh) as i128) >> sh
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Kind::Pred => return f.write_str("pred"),
            Kind::Bits => write!(f, "b{}", self.lane_bits)?,
            Kind::Unsigned => write!(f, "u{}", self.lane_bits)?,
            Kind::Signed => write!(f, "s{}", self.lane_bits)?,
            Kind::Float(ff) => f.write_str(ff.name())?,
        }
        if self.lanes > 1 {
            write!(f, "x{}", self.lanes)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print_round_trip() {
        for t in [
            "pred", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16",
            "f16x2", "bf16", "bf16x2", "tf32", "f32", "f32x2", "f64", "u16x2", "s16x2", "e4m3x2", "e2m1x4", "ue8m0x2",
        ] {
            let ty = Type::parse(t).unwrap_or_else(|| panic!("{t}"));
            assert_eq!(ty.to_string(), t);
        }
        assert_eq!(Type::parse("f16x2").unwrap().bits(), 32);
        assert_eq!(Type::parse("e2m1x2").unwrap().bits(), 8);
        for bad in ["u128", "s12", "x2", "q32", "u032", "b", "f16x3", ""] {
            assert!(Type::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn sext_and_mask() {
        assert_eq!(sext(0x80, 8), -128);
        assert_eq!(sext(0x7f, 8), 127);
        assert_eq!(mask(32), 0xffff_ffff);
        assert_eq!(mask(128), u128::MAX);
    }
}
