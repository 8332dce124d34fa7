//! `wgmma.mma_async` (§9.7.15.5): the warpgroup's register fragments (D, and A when it comes
//! from registers) and the shared-memory side — the matrix descriptor (§9.7.15.5.1.2.2,
//! L25592-25664) and the canonical K-major / MN-major layouts with their swizzle modes
//! (§9.7.15.5.1.2, L25150-25591).
//!
//! # Register fragments
//!
//! The manual gives the fragments as figures only (Fig. 147-154, L24900-25149). The oracle
//! reads them as the `mma` fragments of the same element width, one 16-row slice per warp of
//! the warpgroup (warp `w = thread / 32` holds rows `16w .. 16w + 16`), which is what CUTLASS's
//! `mma_traits_sm90_gmma.hpp` encodes (the research note's cross-check, A1.2):
//! - D (and the accumulator read as C), [`accumulator`]: the `mma.m16n8` C/D layout repeated
//!   over the N/8 column blocks: element `i` of the fragment (`d0, d1, …`, two per `.f16x2`
//!   register, low half first) is row `16w + groupID + 8·((i >> 1) & 1)`, column
//!   `8·(i >> 2) + 2·threadID_in_group + (i & 1)` (L24934-24952 give the count, N/2 elements).
//! - A from registers, [`a_fragment`]: the `mma.m16n8kK` A layout of the same element type
//!   (`m16n8k16` f16/bf16, L22048-22052; `m16n8k8` tf32, L21818-21825; `m16n8k32` 8-bit,
//!   L22372-22376; `m16n8k256` `.b1`, L22734-22738, for Fig. 153), rows offset by `16w`.
//!
//! `.b1` matrices in shared memory ([`Descriptor::bit_address`]): the canonical layouts with
//! `T = 128` one-bit elements to a 16-byte row, element `e` of a row at bit `e % 8` of byte
//! `e / 8` (low bits first); `.b1` forms are K-major (no transpose immediates, L25754-25758).
//!
//! # Shared memory
//!
//! A matrix in shared memory is described by a 64-bit [`Descriptor`] (L25606-25664): start
//! address, leading-dimension byte offset (LBO), stride-dimension byte offset (SBO), base
//! offset and swizzle mode. With `T = 128 / element bits` elements to 16 bytes, the canonical
//! layouts of the table at L25308-25360 are, as functions of (row `mn` along M or N, column
//! `k` along K) → byte offset before the swizzle ([`Descriptor::address`]):
//!
//! | major-ness | swizzle | CuTe layout (L25308-25360) | byte offset |
//! |---|---|---|---|
//! | K | none | `((8,m),(T,2k)):((1T,SBO),(1,LBO))` | `(mn/8)·SBO + (k/T)·LBO + (mn%8)·16 + (k%T)·e` |
//! | K | W = 32, 64, 128 B | `((8,m),(T,2k)):((W/16·T,SBO),(1,T))` | `(mn/8)·SBO + (mn%8)·W + (k/T)·16 + (k%T)·e` |
//! | MN | none | `((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))` | `(mn/T)·SBO + (k/8)·LBO + (k%8)·16 + (mn%T)·e` |
//! | MN | W = 32, 64, 128 B | `((T,W/16,m),(8,k)):((1,T,LBO),(W/16·T,SBO))` | `(mn/(W/16·T))·LBO + (mn%(W/16·T))·e + (k%8)·W + (k/8)·SBO` |
//!
//! (`e` the element's bytes.) The swizzle is `Swizzle<B,4,3>` (B = 1, 2, 3 for 32, 64, 128 B,
//! L25308-25360) applied to the byte address: bits `[7, 7+B)` are XORed into bits `[4, 4+B)`,
//! so the 16-byte chunks of each row are permuted with a period of 256, 512 or 1024 bytes, the
//! boundaries of the base-offset table (L25650-25660).
//!
//! Readings taken (also in `spec/INTERPRETATIONS.md` terms):
//! - The swizzle uses the bits of the shared-memory address itself. The base offset field
//!   (L25656-25664: `(pattern start addr >> 7) & 7` when the pattern does not start on the
//!   boundary) then restates bits the address already carries; it is decoded but does not
//!   change the addresses ([`Descriptor::base_offset`]).
//! - The K-major tf32 example without swizzle (L25376-25404) lists `LBO = 32·sizeof(tf32)`,
//!   `SBO = 64·sizeof(tf32)` but encodes them as 16 and 8, and its exact layout
//!   `((8,2),(4,4)):((4,32),(1,64))` has LBO = 64 and SBO = 32 elements: the encodings and the
//!   layout agree with each other and with the canonical formula; the parameter rows are read
//!   as swapped (a defect of the text).
//! - "LBO unused, assumed 1" for swizzled K-major layouts (L25285-25288): the field is ignored.

/// The swizzling mode of a matrix descriptor (bits 63-62, L25640-25648).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swizzle {
    /// 0: no swizzle ("interleaved" layouts).
    None,
    /// 1: 128-byte swizzle (`Swizzle<3,4,3>`, period 1024 bytes).
    B128,
    /// 2: 64-byte swizzle (`Swizzle<2,4,3>`, period 512 bytes).
    B64,
    /// 3: 32-byte swizzle (`Swizzle<1,4,3>`, period 256 bytes).
    B32,
}

impl Swizzle {
    /// The mode encoded in bits 63-62 of a descriptor.
    pub fn of_bits(bits: u64) -> Swizzle {
        match bits & 3 {
            0 => Swizzle::None,
            1 => Swizzle::B128,
            2 => Swizzle::B64,
            _ => Swizzle::B32,
        }
    }

    /// The width of one swizzled row in bytes: 16 (no swizzle: one core-matrix row), 32, 64 or
    /// 128.
    pub fn width(self) -> u64 {
        match self {
            Swizzle::None => 16,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }

    /// `Swizzle<B,4,3>` on byte address `addr`: bits `[7, 7+B)` XORed into bits `[4, 4+B)`
    /// (B = 0, 1, 2, 3 for none, 32, 64, 128 bytes; the table at L25308-25360).
    pub fn apply(self, addr: u64) -> u64 {
        let b = match self {
            Swizzle::None => return addr,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        };
        let mask = (1u64 << b) - 1;
        addr ^ (((addr >> 7) & mask) << 4)
    }
}

/// Which dimension of a shared-memory matrix is contiguous (L25150-25165): `imm-trans-a/b` 0 is
/// K-major, 1 is M- (A) or N-major (B).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Major {
    /// K-major: the elements of one row of A (one column of B) along K are contiguous.
    K,
    /// M-major (A) or N-major (B).
    Mn,
}

/// A decoded matrix descriptor (L25606-25648). Addresses and offsets are in bytes,
/// `matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4` undone (`field << 4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor {
    /// Bits 13-0: the matrix's start address in shared memory.
    pub start: u64,
    /// Bits 29-16: the leading-dimension byte offset (L25270-25290).
    pub lbo: u64,
    /// Bits 45-32: the stride-dimension byte offset (L25292-25307).
    pub sbo: u64,
    /// Bits 51-49: the base offset (L25656-25664); see the module documentation.
    pub base_offset: u8,
    /// Bits 63-62: the swizzle mode.
    pub swizzle: Swizzle,
}

impl Descriptor {
    /// Decodes a 64-bit descriptor.
    ///
    /// ```
    /// use spec::matrix::wgmma::{Descriptor, Swizzle};
    /// // Triton's A descriptor of a 64×32 f16 tile: 64-byte swizzle, LBO 1024, SBO 512.
    /// let d = Descriptor::decode(0x8000_0020_0040_0000 | (0x1000 >> 4));
    /// assert_eq!((d.start, d.lbo, d.sbo, d.swizzle), (0x1000, 1024, 512, Swizzle::B64));
    /// ```
    pub fn decode(bits: u64) -> Descriptor {
        let field = |lo: u32| ((bits >> lo) & 0x3FFF) << 4;
        Descriptor {
            start: field(0),
            lbo: field(16),
            sbo: field(32),
            base_offset: ((bits >> 49) & 7) as u8,
            swizzle: Swizzle::of_bits(bits >> 62),
        }
    }

    /// Encodes a descriptor (the inverse of [`Descriptor::decode`] for 16-byte multiples below
    /// 2^18).
    pub fn encode(&self) -> u64 {
        let enc = |x: u64| (x & 0x3FFFF) >> 4;
        let mode = match self.swizzle {
            Swizzle::None => 0u64,
            Swizzle::B128 => 1,
            Swizzle::B64 => 2,
            Swizzle::B32 => 3,
        };
        enc(self.start) | enc(self.lbo) << 16 | enc(self.sbo) << 32 | u64::from(self.base_offset & 7) << 49 | mode << 62
    }

    /// The shared-memory byte address of element (`mn`, `k`) of the matrix the descriptor
    /// describes: `mn` along M (A) or N (B), `k` along K, elements of `bytes` bytes (1, 2 or 4)
    /// in layout `major` (the table of the module documentation, then the swizzle).
    ///
    /// ```
    /// use spec::matrix::wgmma::{Descriptor, Major, Swizzle};
    /// // The manual's K-major tf32 example without swizzle (L25376-25404): exact layout
    /// // ((8,2),(4,4)):((4,32),(1,64)) in elements, LBO encoded 16, SBO 8.
    /// let d = Descriptor { start: 0, lbo: 16 << 4, sbo: 8 << 4, base_offset: 0, swizzle: Swizzle::None };
    /// // Row 9 (8 + 1), column 6 (4 + 2): 1·4 + 1·32 + 2·1 + 1·64 = 102 elements.
    /// assert_eq!(d.address(Major::K, 9, 6, 4), 102 * 4);
    /// ```
    pub fn address(&self, major: Major, mn: usize, k: usize, bytes: usize) -> u64 {
        self.bit_address(major, mn, k, 8 * bytes).0
    }

    /// [`Descriptor::address`] for elements of any width `bits` (1 for `.b1`, or 8, 16, 32):
    /// the byte holding element (`mn`, `k`) and the position of its lowest bit in that byte.
    /// A core-matrix row is 16 bytes whatever the element (L25150-25360: `T = 128 / bits`
    /// elements per row, 128 for `.b1`); inside a byte, sub-byte elements go from the low bits
    /// up, as in the fragment registers ("元素(从低到高)") read little-endian, and as CUTLASS packs
    /// `uint1b_t` (an interpretation: the manual gives the layouts only for byte-sized types).
    ///
    /// ```
    /// use spec::matrix::wgmma::{Descriptor, Major, Swizzle};
    /// // K-major .b1 without swizzle, LBO 128: row 9, k 200 is core matrix (1, 1): SBO + LBO,
    /// // row 1 of it (+16), bit 72 of the row: byte 9, bit 0.
    /// let d = Descriptor { start: 0, lbo: 128, sbo: 256, base_offset: 0, swizzle: Swizzle::None };
    /// assert_eq!(d.bit_address(Major::K, 9, 200, 1), (256 + 128 + 16 + 9, 0));
    /// assert_eq!(d.bit_address(Major::K, 0, 13, 1), (1, 5));
    /// ```
    pub fn bit_address(&self, major: Major, mn: usize, k: usize, bits: usize) -> (u64, u32) {
        let (mn, k, e) = (mn as u64, k as u64, bits as u64);
        let t = 128 / e;
        let w = self.swizzle.width();
        // The element's bit offset inside its 16-byte row (or W-byte swizzled row).
        let (off, inner) = match (major, self.swizzle) {
            (Major::K, Swizzle::None) => ((mn / 8) * self.sbo + (k / t) * self.lbo + (mn % 8) * 16, (k % t) * e),
            (Major::K, _) => ((mn / 8) * self.sbo + (mn % 8) * w + (k / t) * 16, (k % t) * e),
            (Major::Mn, Swizzle::None) => ((mn / t) * self.sbo + (k / 8) * self.lbo + (k % 8) * 16, (mn % t) * e),
            (Major::Mn, _) => {
                let row = w / 16 * t;
                ((mn / row) * self.lbo + (k % 8) * w + (k / 8) * self.sbo, (mn % row) * e)
            }
        };
        (self.swizzle.apply(self.start + off + inner / 8), (inner % 8) as u32)
    }
}

impl Swizzle {
    /// Every mode: none, 128, 64 and 32 bytes.
    pub const ALL: [Swizzle; 4] = [Swizzle::None, Swizzle::B128, Swizzle::B64, Swizzle::B32];
}

/// A dense canonical layout (the table of the module documentation) of an `mn × k` matrix of
/// `bits`-bit elements (1 for `.b1`) at shared-memory offset `start` (a multiple of 1024, the
/// longest swizzle period): the descriptor, and the bytes the matrix spans. A K-major swizzled
/// layout holds a row of K in one swizzle atom: K·`bits`/8 must not exceed the swizzle width (a
/// row is 32 bytes in every dense `wgmma` form, k16 × 2, k8 × 4, k32 × 1, k256 × 1/8, and 64
/// for a sparse form's B).
///
/// - K-major, no swizzle: core matrices of 8 rows × 16 bytes, LBO 128 (the next 16 bytes of
///   K), SBO = the bytes of 8 whole rows;
/// - K-major, swizzle W: one row per W bytes, SBO = 8·W;
/// - MN-major, no swizzle: core matrices of 16 bytes along MN × 8 along K, LBO 128 (the next 8
///   of K), SBO = the bytes of 16 bytes' worth of MN over all of K;
/// - MN-major, swizzle W: W bytes along MN per K row, SBO 8·W (the next 8 of K), LBO = the
///   bytes of all of K (the next W bytes of MN).
///
/// ```
/// use spec::matrix::wgmma::{canonical, Major, Swizzle};
/// // A 64×16 f16 A, K-major, 128-byte swizzle: 64 rows of 128 bytes.
/// let (d, size) = canonical(Major::K, Swizzle::B128, 64, 16, 16, 0);
/// assert_eq!((d.sbo, size), (1024, 64 * 128));
/// assert_eq!(d.address(Major::K, 1, 0, 2), 128 ^ (1 << 4)); // row 1: chunk 0 swapped with 1
/// ```
pub fn canonical(major: Major, swizzle: Swizzle, mn: usize, k: usize, bits: usize, start: u64) -> (Descriptor, usize) {
    let t = 128 / bits; // elements per 16 bytes
    let w = swizzle.width() as usize;
    let (lbo, sbo, size) = match (major, swizzle) {
        (Major::K, Swizzle::None) => {
            let sbo = (k * bits).div_ceil(128) * 128;
            (128, sbo, mn.div_ceil(8) * sbo)
        }
        (Major::K, _) => (16, 8 * w, mn.div_ceil(8) * 8 * w),
        (Major::Mn, Swizzle::None) => {
            let sbo = k.div_ceil(8) * 128;
            (128, sbo, mn.div_ceil(t) * sbo)
        }
        (Major::Mn, _) => {
            let lbo = k.div_ceil(8) * 8 * w;
            (lbo, 8 * w, mn.div_ceil(w / 16 * t) * lbo)
        }
    };
    let d = Descriptor {
        start,
        lbo: lbo as u64,
        sbo: sbo as u64,
        base_offset: 0,
        swizzle,
    };
    (d, size)
}

/// Threads of a warpgroup (four consecutive warps, §9.7.15.5.1.1).
pub const THREADS: usize = 128;

/// The (row, column) of element `i` of thread `t`'s (0..128) accumulator fragment D (or C):
/// `d0, d1, …` in order, two per `.f16x2` register (see the module documentation).
///
/// ```
/// use spec::matrix::wgmma::accumulator;
/// // Thread 37: warp 1, groupID 1, threadID_in_group 1; d6 is row 16 + 1 + 8, column 8 + 2.
/// assert_eq!(accumulator(37, 6), (25, 10));
/// ```
pub fn accumulator(t: usize, i: usize) -> (usize, usize) {
    let (w, g, q) = (t / 32, t % 32 / 4, t % 4);
    (16 * w + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * q + (i & 1))
}

/// The (row, column) of element `i` of thread `t`'s (0..128) A fragment when A comes from
/// registers, for elements of `bits` bits (16: f16/bf16 `k16`; 32: tf32 `k8`; 8: `k32`; 1: `.b1`
/// `k256`, Fig. 153, read as `mma.m16n8k256`'s `.b1` A, L22734-22738): `mma`'s
/// A layout (`w = 32 / bits` elements per register: row `groupID + 8h`, column
/// `threadID_in_group·w + s + 4w·b` for `i = s + w·(h + 2b)`), rows offset by `16·warp`.
///
/// ```
/// use spec::matrix::wgmma::a_fragment;
/// // f16: thread 5 holds a3 at row groupID + 8 = 9, column 2·1 + 1 (L22048-22052).
/// assert_eq!(a_fragment(5, 3, 16), (9, 3));
/// // tf32, thread 64 + 5: a2 is row 32 + 1, column 1 + 4 (L21818-21825).
/// assert_eq!(a_fragment(69, 2, 32), (33, 5));
/// // .b1, thread 3: a100 (register 3, bit 4) is row 8, column 96 + 4 + 128 (L22734-22738).
/// assert_eq!(a_fragment(3, 100, 1), (8, 228));
/// ```
pub fn a_fragment(t: usize, i: usize, bits: usize) -> (usize, usize) {
    let (warp, g, q) = (t / 32, t % 32 / 4, t % 4);
    let w = 32 / bits;
    let (s, r) = (i % w, i / w);
    let (h, b) = (r % 2, r / 2);
    (16 * warp + g + 8 * h, q * w + s + 4 * w * b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn d(lbo_enc: u64, sbo_enc: u64, swizzle: Swizzle) -> Descriptor {
        Descriptor {
            start: 0,
            lbo: lbo_enc << 4,
            sbo: sbo_enc << 4,
            base_offset: 0,
            swizzle,
        }
    }

    /// The manual's examples (L25364-25590): each "exact layout" in CuTe notation, evaluated
    /// element by element, against [`Descriptor::address`] with the descriptor fields encoded
    /// as the example gives them. `exact(mn, k)` returns the element offset before the swizzle.
    fn check(desc: Descriptor, major: Major, bytes: usize, mn: usize, k: usize, exact: impl Fn(usize, usize) -> usize) {
        for r in 0..mn {
            for c in 0..k {
                let want = desc.swizzle.apply((exact(r, c) * bytes) as u64);
                assert_eq!(desc.address(major, r, c, bytes), want, "{desc:?} {major:?} ({r}, {c})");
            }
        }
    }

    #[test]
    fn the_manuals_examples() {
        // K-major, no swizzle, tf32 (L25376): ((8,2),(4,4)):((4,32),(1,64)), LBO 16, SBO 8.
        check(d(16, 8, Swizzle::None), Major::K, 4, 16, 16, |r, c| {
            (r % 8) * 4 + (r / 8) * 32 + (c % 4) + (c / 4) * 64
        });
        // K-major, 32B swizzle, tf32 (L25408): ((8,2),(4,4)):((8,64),(1,4)), SBO 16. Within one
        // instruction's K (8 tf32 = 32 bytes, the swizzled row) the two agree.
        check(d(1, 16, Swizzle::B32), Major::K, 4, 16, 8, |r, c| {
            (r % 8) * 8 + (r / 8) * 64 + (c % 4) + (c / 4) * 4
        });
        // MN-major, no swizzle, bf16 (L25440): ((8,1,2),(8,2)):((1,8,64),(8,128)), LBO 16,
        // SBO 8.
        check(d(16, 8, Swizzle::None), Major::Mn, 2, 16, 16, |r, c| {
            (r % 8) + (r / 8) * 64 + (c % 8) * 8 + (c / 8) * 128
        });
        // MN-major, 32B swizzle, bf16 (L25472): ((8,2,2),(8,2)):((1,8,128),(16,256)), LBO 16,
        // SBO 32.
        check(d(16, 32, Swizzle::B32), Major::Mn, 2, 32, 16, |r, c| {
            (r % 8) + (r / 8 % 2) * 8 + (r / 16) * 128 + (c % 8) * 16 + (c / 8) * 256
        });
        // MN-major, 64B swizzle, bf16 (L25504): ((8,4,2),(8,2)):((1,8,256),(32,512)), LBO 32,
        // SBO 64.
        check(d(32, 64, Swizzle::B64), Major::Mn, 2, 64, 16, |r, c| {
            (r % 8) + (r / 8 % 4) * 8 + (r / 32) * 256 + (c % 8) * 32 + (c / 8) * 512
        });
    }

    #[test]
    fn descriptor_round_trip_and_fields() {
        // Bits 13-0, 29-16, 45-32, 51-49, 63-62 (L25606-25648).
        let bits = 0x4000_0040_0040_0000u64 | (3 << 49) | 0x123;
        let x = Descriptor::decode(bits);
        assert_eq!(x.start, 0x1230);
        assert_eq!((x.lbo, x.sbo, x.base_offset, x.swizzle), (1024, 1024, 3, Swizzle::B128));
        assert_eq!(x.encode(), bits);
        // matrix-descriptor-encode keeps 18 bits: an address of 2^18 + 16 encodes as 16.
        let y = Descriptor {
            start: (1 << 18) + 16,
            ..x
        };
        assert_eq!(Descriptor::decode(y.encode()).start, 16);
    }

    #[test]
    fn swizzle_permutes_16_byte_chunks_within_its_period() {
        for (s, period) in [(Swizzle::B32, 256u64), (Swizzle::B64, 512), (Swizzle::B128, 1024)] {
            // A bijection of each period onto itself that keeps the bytes of a chunk together.
            let img: HashSet<u64> = (0..period).map(|a| s.apply(a)).collect();
            assert_eq!(img.len(), period as usize);
            assert!(img.iter().all(|&a| a < period));
            assert!((0..period).all(|a| s.apply(a) % 16 == a % 16));
            // Row 0 of the pattern is not permuted; in the 128-byte mode row r's chunk c goes to
            // chunk c ^ r.
            assert!((0..128).all(|a| s.apply(a) == a));
        }
        assert_eq!(Swizzle::B128.apply(3 * 128 + 5 * 16), 3 * 128 + 6 * 16);
        assert_eq!(Swizzle::B64.apply(3 * 128 + 16), 3 * 128 + 2 * 16);
        assert_eq!(Swizzle::B32.apply(128 + 16), 128);
    }

    #[test]
    fn k_major_128b_rows_are_128_bytes() {
        // 64 rows × 64 f16 (128 bytes) K-major with the 128-byte swizzle: SBO 1024 (8 rows).
        let x = d(1, 64, Swizzle::B128);
        // Row 9, k 8 (chunk 1): 1024 + 128 + 16, then chunk 1 ^ row-in-pattern 1 = 0.
        assert_eq!(x.address(Major::K, 9, 8, 2), 1024 + 128);
        // Every element of a 64×64 tile has its own address, inside 8 KiB.
        let all: HashSet<u64> = (0..64)
            .flat_map(|r| (0..64).map(move |c| (r, c)))
            .map(|(r, c)| {
                let base = x.address(Major::K, r, c / 8 * 8, 2);
                assert_eq!(x.address(Major::K, r, c, 2), base + (c % 8) as u64 * 2);
                base + (c % 8) as u64 * 2
            })
            .collect();
        assert_eq!(all.len(), 64 * 64);
        assert!(all.iter().all(|&a| a < 8192));
    }

    #[test]
    fn fragments_cover_the_matrices_once() {
        // D of m64n64 f32: 32 elements per thread; A of k16 f16: 8; tf32 k8: 4; 8-bit k32: 16.
        let d: HashSet<(usize, usize)> = (0..128).flat_map(|t| (0..32).map(move |i| accumulator(t, i))).collect();
        assert_eq!(d.len(), 64 * 64);
        assert!(d.iter().all(|&(r, c)| r < 64 && c < 64));
        for (bits, k, per) in [(16, 16, 8), (32, 8, 4), (8, 32, 16), (1, 256, 128)] {
            let a: HashSet<(usize, usize)> = (0..128)
                .flat_map(|t| (0..per).map(move |i| a_fragment(t, i, bits)))
                .collect();
            assert_eq!(a.len(), 64 * k, "{bits}-bit A");
            assert!(a.iter().all(|&(r, c)| r < 64 && c < k));
        }
    }
}
