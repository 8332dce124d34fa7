//! Our 128-byte encoding of a tensor map ([`encode`], [`decode`]) and `tensormap.replace`
//! ([`replace`], §9.7.9.26, L15381-15640).
//!
//! The manual calls the tensor map "a 128-byte opaque object" (§5.5.8, L3050) and the driver
//! calls its value opaque, so the bit layout below is this project's choice, not the hardware's;
//! a program that reads a tensor map's bytes with `ld` depends on it, and so does any result
//! that compares such bytes (the corpus marks them `any`). What is fixed by the manual is what
//! `tensormap.replace` can express: every field it names has room for any value its `new_val`
//! operand can carry (`.b32`, `.b64` for `.global_address` and `.global_stride`, L15408), and the
//! Table 32 codes are stored as they are (L15416-15622), so an all-zero map is a valid template
//! (tile mode, rank 1, `.u8`, no interleave, no swizzle, 16-byte atomicity, zero fill) that
//! `tensormap.replace` can fill in, as Triton's device-side descriptors do.
//!
//! Layout (little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | `global_address` (u64) |
//! | 8..28 | `global_dim[0..5]` (u32 each: `tensormap.replace.global_dim` is `.b32`; the driver's 2^32 is not encodable) |
//! | 28..60 | `global_strides[0..4]` (u64 each; `global_strides[i]` is dimension `i + 1`'s) |
//! | 60..80 | `box_dim[0..5]` (u32 each; zero in im2col maps) |
//! | 80..100 | `element_strides[0..5]` (u32 each) |
//! | 100 | bits 0-2: `rank - 1` (the `.rank` field's zero-based value, L15412); bit 7: 1 = im2col; bit 6 (with bit 7): im2col-wide (`cuTensorMapEncodeIm2colWide`); bit 5 (with bit 6): its `W128` mode |
//! | 101 | `elemtype` code (Table 32) |
//! | 102 | `interleave_layout` code |
//! | 103 | `swizzle_mode` code |
//! | 104 | `swizzle_atomicity` code |
//! | 105 | `fill_mode` code |
//! | 106 | L2 promotion code (driver order: none, 64, 128, 256 B) |
//! | 107 | reserved, 0 |
//! | 108..110 | im2col `channels_per_pixel` (u16) |
//! | 110..112 | im2col `pixels_per_column` (u16) |
//! | 112..118 | im2col lower corner `[W, H, D]` (i16 each; im2col-wide: `pixelBoxLowerCornerWidth` at 112) |
//! | 118..124 | im2col upper corner `[W, H, D]` (i16 each; im2col-wide: `pixelBoxUpperCornerWidth` at 118) |
//! | 124..128 | reserved, 0 |
//!
//! Dimensions, strides and box entries beyond the rank are stored (so a later `.rank`
//! replacement can bring them into use) and ignored by [`decode`]'s users.

use super::map::{Atomicity, DataType, Interleave, L2Promotion, Mode, OobFill, SwizzleMode, TensorMap};
use std::fmt;

/// The size of a tensor map in bytes (`.b1024`, L15406).
pub const SIZE: usize = 128;

/// The alignment of a tensor map (driver: "`tensorMap` address must be aligned to 64 bytes").
pub const ALIGN: u64 = 64;

const DIM: usize = 8;
const STRIDE: usize = 28;
const BOX: usize = 60;
const ESTRIDE: usize = 80;
const RANK: usize = 100;
const ELEMTYPE: usize = 101;
const INTERLEAVE: usize = 102;
const SWIZZLE: usize = 103;
const ATOMICITY: usize = 104;
const FILL: usize = 105;
const L2: usize = 106;
const CHANNELS: usize = 108;
const PIXELS: usize = 110;
const LOWER: usize = 112;
const UPPER: usize = 118;

/// Why a [`TensorMap`] has no encoding or 128 bytes are no tensor map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodingError {
    /// A value does not fit its field (a `global_dim` of 2^32, a corner outside i16, a rank
    /// outside 1..=8, channels or pixels above 65535).
    DoesNotFit {
        /// The field.
        field: &'static str,
    },
    /// A coded field holds a code no value has (e.g. interleave 3; Table 32's `x` entries).
    BadCode {
        /// The field.
        field: &'static str,
        /// The code found.
        code: u32,
    },
}

impl fmt::Display for EncodingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodingError::DoesNotFit { field } => {
                write!(f, "the value of `{field}` does not fit the tensor map's encoding")
            }
            EncodingError::BadCode { field, code } => {
                write!(
                    f,
                    "`{field}` holds {code}, which Table 32 (L15416-15622) gives no meaning"
                )
            }
        }
    }
}

impl std::error::Error for EncodingError {}

fn put_u32(b: &mut [u8; SIZE], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
fn put_u64(b: &mut [u8; SIZE], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}
fn get_u16(b: &[u8; SIZE], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn get_u32(b: &[u8; SIZE], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn get_u64(b: &[u8; SIZE], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// The im2col maps' `channels_per_pixel` and `pixels_per_column`.
fn put_pixels(b: &mut [u8; SIZE], channels_per_pixel: u32, pixels_per_column: u32) -> Result<(), EncodingError> {
    let c = u16::try_from(channels_per_pixel).map_err(|_| EncodingError::DoesNotFit {
        field: "channels_per_pixel",
    })?;
    let p = u16::try_from(pixels_per_column).map_err(|_| EncodingError::DoesNotFit {
        field: "pixels_per_column",
    })?;
    b[CHANNELS..CHANNELS + 2].copy_from_slice(&c.to_le_bytes());
    b[PIXELS..PIXELS + 2].copy_from_slice(&p.to_le_bytes());
    Ok(())
}

/// The 128 bytes of a tensor map (layout in the module documentation). Does not validate: a
/// map that breaks a driver rule encodes as well (check [`TensorMap::validate`] first).
pub fn encode(m: &TensorMap) -> Result<[u8; SIZE], EncodingError> {
    let mut b = [0u8; SIZE];
    put_u64(&mut b, 0, m.global_address);
    for (i, &d) in m.global_dim.iter().enumerate() {
        let d = u32::try_from(d).map_err(|_| EncodingError::DoesNotFit { field: "global_dim" })?;
        put_u32(&mut b, DIM + 4 * i, d);
    }
    for (i, &s) in m.global_strides.iter().enumerate() {
        put_u64(&mut b, STRIDE + 8 * i, s);
    }
    for (i, &s) in m.element_strides.iter().enumerate() {
        put_u32(&mut b, ESTRIDE + 4 * i, s);
    }
    if !(1..=8).contains(&m.rank) {
        return Err(EncodingError::DoesNotFit { field: "rank" });
    }
    b[RANK] = m.rank - 1;
    match m.mode {
        Mode::Tiled { box_dim } => {
            for (i, &d) in box_dim.iter().enumerate() {
                put_u32(&mut b, BOX + 4 * i, d);
            }
        }
        Mode::Im2colWide {
            lower_w,
            upper_w,
            channels_per_pixel,
            pixels_per_column,
            w128,
        } => {
            b[RANK] |= if w128 { 0xe0 } else { 0xc0 };
            put_pixels(&mut b, channels_per_pixel, pixels_per_column)?;
            for (at, v) in [(LOWER, lower_w), (UPPER, upper_w)] {
                let v = i16::try_from(v).map_err(|_| EncodingError::DoesNotFit { field: "corner" })?;
                b[at..at + 2].copy_from_slice(&v.to_le_bytes());
            }
        }
        Mode::Im2col {
            lower,
            upper,
            channels_per_pixel,
            pixels_per_column,
        } => {
            b[RANK] |= 0x80;
            put_pixels(&mut b, channels_per_pixel, pixels_per_column)?;
            for (at, corner) in [(LOWER, lower), (UPPER, upper)] {
                for (i, &v) in corner.iter().enumerate() {
                    let v = i16::try_from(v).map_err(|_| EncodingError::DoesNotFit { field: "corner" })?;
                    b[at + 2 * i..at + 2 * i + 2].copy_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
    b[ELEMTYPE] = m.data_type.code() as u8;
    b[INTERLEAVE] = m.interleave.code() as u8;
    b[SWIZZLE] = m.swizzle.code() as u8;
    b[ATOMICITY] = m.atomicity.code() as u8;
    b[FILL] = m.oob_fill.code() as u8;
    b[L2] = m.l2_promotion.code() as u8;
    Ok(b)
}

fn code<T>(b: &[u8; SIZE], at: usize, field: &'static str, f: fn(u32) -> Option<T>) -> Result<T, EncodingError> {
    let c = b[at] as u32;
    f(c).ok_or(EncodingError::BadCode { field, code: c })
}

/// The tensor map 128 bytes encode ([`encode`]'s inverse on every map it accepts).
pub fn decode(b: &[u8; SIZE]) -> Result<TensorMap, EncodingError> {
    let mut global_dim = [0u64; 5];
    let mut global_strides = [0u64; 4];
    let mut element_strides = [0u32; 5];
    let mut box_dim = [0u32; 5];
    for i in 0..5 {
        global_dim[i] = get_u32(b, DIM + 4 * i) as u64;
        element_strides[i] = get_u32(b, ESTRIDE + 4 * i);
        box_dim[i] = get_u32(b, BOX + 4 * i);
    }
    for (i, s) in global_strides.iter_mut().enumerate() {
        *s = get_u64(b, STRIDE + 8 * i);
    }
    let mode = if b[RANK] & 0x80 == 0 {
        Mode::Tiled { box_dim }
    } else if b[RANK] & 0x40 != 0 {
        Mode::Im2colWide {
            lower_w: get_u16(b, LOWER) as i16 as i32,
            upper_w: get_u16(b, UPPER) as i16 as i32,
            channels_per_pixel: get_u16(b, CHANNELS) as u32,
            pixels_per_column: get_u16(b, PIXELS) as u32,
            w128: b[RANK] & 0x20 != 0,
        }
    } else {
        let corner = |at: usize| -> [i32; 3] { [0, 1, 2].map(|i| get_u16(b, at + 2 * i) as i16 as i32) };
        Mode::Im2col {
            lower: corner(LOWER),
            upper: corner(UPPER),
            channels_per_pixel: get_u16(b, CHANNELS) as u32,
            pixels_per_column: get_u16(b, PIXELS) as u32,
        }
    };
    Ok(TensorMap {
        data_type: code(b, ELEMTYPE, "elemtype", DataType::from_code)?,
        rank: (b[RANK] & 7) + 1,
        global_address: get_u64(b, 0),
        global_dim,
        global_strides,
        element_strides,
        interleave: code(b, INTERLEAVE, "interleave_layout", Interleave::from_code)?,
        swizzle: code(b, SWIZZLE, "swizzle_mode", SwizzleMode::from_code)?,
        atomicity: code(b, ATOMICITY, "swizzle_atomicity", Atomicity::from_code)?,
        l2_promotion: code(b, L2, "l2_promotion", L2Promotion::from_code)?,
        oob_fill: code(b, FILL, "fill_mode", OobFill::from_code)?,
        mode,
    })
}

/// A field `tensormap.replace` can write (`.field1`, `.field2`, `.field3`, L15390-15396).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// `.global_address` (`.b64`).
    GlobalAddress,
    /// `.rank` (`new_val` = rank - 1, L15412).
    Rank,
    /// `.box_dim` with `ord`.
    BoxDim,
    /// `.global_dim` with `ord`.
    GlobalDim,
    /// `.global_stride` with `ord` (`.b64`): `ord` indexes the driver's `globalStrides`, the
    /// stride of dimension `ord + 1` (how Triton's device-side descriptors use it: ord 0 is the
    /// row pitch of a 2-D tensor).
    GlobalStride,
    /// `.element_stride` with `ord`.
    ElementStride,
    /// `.elemtype` (an immediate of Table 32).
    Elemtype,
    /// `.interleave_layout`.
    InterleaveLayout,
    /// `.swizzle_mode`.
    SwizzleMode,
    /// `.swizzle_atomicity`.
    SwizzleAtomicity,
    /// `.fill_mode`.
    FillMode,
}

impl Field {
    /// Every field, in the syntax's order.
    pub const ALL: [Field; 11] = [
        Field::GlobalAddress,
        Field::Rank,
        Field::BoxDim,
        Field::GlobalDim,
        Field::GlobalStride,
        Field::ElementStride,
        Field::Elemtype,
        Field::InterleaveLayout,
        Field::SwizzleMode,
        Field::SwizzleAtomicity,
        Field::FillMode,
    ];

    /// The modifier's name without the dot.
    pub fn name(self) -> &'static str {
        match self {
            Field::GlobalAddress => "global_address",
            Field::Rank => "rank",
            Field::BoxDim => "box_dim",
            Field::GlobalDim => "global_dim",
            Field::GlobalStride => "global_stride",
            Field::ElementStride => "element_stride",
            Field::Elemtype => "elemtype",
            Field::InterleaveLayout => "interleave_layout",
            Field::SwizzleMode => "swizzle_mode",
            Field::SwizzleAtomicity => "swizzle_atomicity",
            Field::FillMode => "fill_mode",
        }
    }

    /// The field of a modifier name.
    pub fn parse(s: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|f| f.name() == s)
    }

    /// Whether the form takes the `ord` operand (`.field2`).
    pub fn has_ord(self) -> bool {
        matches!(
            self,
            Field::BoxDim | Field::GlobalDim | Field::GlobalStride | Field::ElementStride
        )
    }

    /// Whether `new_val` is `.b64` (L15408); `.b32` otherwise.
    pub fn is_b64(self) -> bool {
        matches!(self, Field::GlobalAddress | Field::GlobalStride)
    }

    /// Whether `new_val` must be an immediate from Table 32 (`.field3`, L15414).
    pub fn is_coded(self) -> bool {
        matches!(
            self,
            Field::Elemtype | Field::InterleaveLayout | Field::SwizzleMode | Field::SwizzleAtomicity | Field::FillMode
        )
    }
}

/// Why a `tensormap.replace` cannot be carried out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplaceError {
    /// The map at `addr` is an im2col map, the instruction's `.mode` is `.tile` (L15404: `.mode`
    /// "specifies the mode of the tensor map object at `addr`").
    Mode,
    /// `ord` is not an ordinal of the field: 0..5 (0..4 for `.global_stride`, the driver's
    /// `tensorRank - 1` strides).
    Ord {
        /// The ordinal given.
        ord: u32,
    },
    /// `.rank`'s `new_val` is not 0..=4 (rank 1..=5, zero-based, L15412).
    Rank {
        /// The value given.
        value: u64,
    },
    /// A `.b32` field's `new_val` wider than 32 bits (the oracle passes `.b32` values zero-
    /// extended, so this is an internal misuse).
    Width,
    /// A `.field3` value Table 32 marks `x` (L15416-15622).
    Code {
        /// The value given.
        value: u64,
    },
}

impl fmt::Display for ReplaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplaceError::Mode => write!(
                f,
                "the tensor map is an im2col map; `.tile` names the mode of the map at addr (L15404)"
            ),
            ReplaceError::Ord { ord } => {
                write!(
                    f,
                    "ord {ord} is not an ordinal of the field within the tensor rank (L15410)"
                )
            }
            ReplaceError::Rank { value } => {
                write!(f, "`.rank` takes the rank minus one (L15412): {value} is not 0..=4")
            }
            ReplaceError::Width => write!(f, "a `.b32` field's new value has more than 32 bits"),
            ReplaceError::Code { value } => write!(
                f,
                "{value} is not a valid new_val for this field (Table 32, L15416-15622)"
            ),
        }
    }
}

impl std::error::Error for ReplaceError {}

/// `tensormap.replace.tile.FIELD [addr], {ord,} new_val` on a map's 128 bytes (§9.7.9.26,
/// L15381-15640): writes `value` into `field` (entry `ord` for the `.field2` fields). Only the
/// field changes; no driver rule is checked here (a map is checked when a tensor copy uses
/// it). `.b32` values come zero-extended.
pub fn replace(b: &mut [u8; SIZE], field: Field, ord: u32, value: u64) -> Result<(), ReplaceError> {
    if b[RANK] & 0x80 != 0 {
        return Err(ReplaceError::Mode);
    }
    if !field.is_b64() && value > u32::MAX as u64 {
        return Err(ReplaceError::Width);
    }
    if field.has_ord() {
        let n = if field == Field::GlobalStride { 4 } else { 5 };
        if ord >= n {
            return Err(ReplaceError::Ord { ord });
        }
    }
    let o = ord as usize;
    let coded = |ok: bool| {
        if ok {
            Ok(value as u8)
        } else {
            Err(ReplaceError::Code { value })
        }
    };
    match field {
        Field::GlobalAddress => put_u64(b, 0, value),
        Field::Rank => {
            if value > 4 {
                return Err(ReplaceError::Rank { value });
            }
            b[RANK] = value as u8;
        }
        Field::BoxDim => put_u32(b, BOX + 4 * o, value as u32),
        Field::GlobalDim => put_u32(b, DIM + 4 * o, value as u32),
        Field::GlobalStride => put_u64(b, STRIDE + 8 * o, value),
        Field::ElementStride => put_u32(b, ESTRIDE + 4 * o, value as u32),
        Field::Elemtype => b[ELEMTYPE] = coded(value < 16)?,
        Field::InterleaveLayout => b[INTERLEAVE] = coded(value < 3)?,
        Field::SwizzleMode => b[SWIZZLE] = coded(value < 4)?,
        Field::SwizzleAtomicity => b[ATOMICITY] = coded(value < 4)?,
        Field::FillMode => b[FILL] = coded(value < 2)?,
    }
    Ok(())
}
