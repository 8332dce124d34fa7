//! The scenarios' own model of a tensor copy (§5.5, L2050-3050): which global element lands at
//! which shared-memory byte, written anew from the manual's text and tables (not `spec::tma`,
//! which the oracle executes).
//!
//! - Tile mode (§5.5.3, L2146-2190): the box starts at the instruction's coordinates and holds
//!   `ceil(boxDim[i] / elementStrides[i])` elements along dimension `i`, element `k` at
//!   coordinate `start + k·elementStrides[i]` (the traversal stride, L2164-2168; the scenarios
//!   keep it 1 in dimension 0, as a non-interleaved layout requires, L2168). An element with a
//!   coordinate below 0 or at least `globalDim` is out of bounds (L2176-2190): a load writes 0
//!   or, with OOB-NaN fill, a NaN.
//! - Im2col mode (§5.5.4, L2222-2393): `Pixels-per-Column` pixels, each `Channels-per-Pixel`
//!   channels from the instruction's C coordinate; the first pixel at the instruction's W, H, D,
//!   N coordinates, the next one W (then H, D, N) one traversal stride further, wrapping inside
//!   the bounding box `lower[s] ..= globalDim - 1 + upper[s]` (the convolution's filter
//!   positions: the manual's example 1, L2324-2342, W = 9 with corners -1/-1 gives the 9
//!   positions -1..=7); each pixel is read at its position plus the im2col offsets (L2304).
//! - Shared memory: the box dense, dimension 0 fastest (L2070: shared memory is linear), every
//!   byte offset through the swizzle pattern of §5.5.7 (L2574-3046) from a region aligned to
//!   the pattern's repeat (so the base offset is 0, L3012-3040).
//! - Global memory: dimension 0 contiguous, dimension `d ≥ 1` `globalStrides[d-1]` bytes apart.

/// An element type of a tensor map (Table 32, L15416-15560): its PTX name, size in bytes, and
/// the `.elemtype` value `tensormap.replace` writes for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ty {
    pub name: &'static str,
    pub bytes: usize,
    pub code: u32,
}

/// The element types the scenarios use (the sub-byte and `tf32` types aside).
pub(super) const TYPES: &[Ty] = &[
    Ty {
        name: "u8",
        bytes: 1,
        code: 0,
    },
    Ty {
        name: "u16",
        bytes: 2,
        code: 1,
    },
    Ty {
        name: "u32",
        bytes: 4,
        code: 2,
    },
    Ty {
        name: "s32",
        bytes: 4,
        code: 3,
    },
    Ty {
        name: "u64",
        bytes: 8,
        code: 4,
    },
    Ty {
        name: "s64",
        bytes: 8,
        code: 5,
    },
    Ty {
        name: "f16",
        bytes: 2,
        code: 6,
    },
    Ty {
        name: "f32",
        bytes: 4,
        code: 7,
    },
    Ty {
        name: "f64",
        bytes: 8,
        code: 9,
    },
    Ty {
        name: "bf16",
        bytes: 2,
        code: 10,
    },
];

/// The type named `name`.
pub(super) fn ty(name: &str) -> Ty {
    *TYPES.iter().find(|t| t.name == name).expect("a scenario type")
}

/// How the box is selected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// `boxDim`, one per dimension.
    Tile(Vec<u32>),
    /// `.tile::gather4`/`.tile::scatter4` on a 2-D map of `boxDim` {width, 1}: four rows of
    /// `width` elements from column `col_idx`, row `k` from `row_idx{k}` (L2200-2216,
    /// L14916-14926), stored densely one row after the other.
    Gather4(u32),
    /// The im2col-wide map (`.im2col::w`, `.im2col::w::128`, L2395-2546): the W bounding box
    /// `lower ..= globalDim[1] - 1 + upper`, the pixel's channels, `pixelsPerColumn` (`::w`;
    /// 128 for `::128`), and the instruction's `wHalo`, which sizes the box.
    Im2colW {
        lower: i32,
        upper: i32,
        channels: u32,
        pixels: u32,
        w128: bool,
        halo: u16,
    },
    /// The im2col bounding box (W first) and the column's size.
    Im2col {
        lower: Vec<i32>,
        upper: Vec<i32>,
        channels: u32,
        pixels: u32,
    },
}

/// A tensor map as the driver call describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Map {
    pub ty: Ty,
    /// Bytes from the buffer's start to element 0.
    pub offset: u64,
    /// `globalDim`, dimension 0 first.
    pub dims: Vec<u64>,
    /// `globalStrides` in bytes, dimensions 1.. .
    pub strides: Vec<u64>,
    /// `elementStrides`.
    pub estrides: Vec<u32>,
    pub shape: Shape,
    /// The swizzle span in bytes (0: none) and its atomicity in bytes (16, 32, 64).
    pub swizzle: (u32, u32),
    /// 16-byte interleave (`NC/8DHWC8`, L2562).
    pub interleave16: bool,
    /// OOB-NaN fill instead of zeros.
    pub nan: bool,
}

impl Map {
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Bytes of global memory the tensor spans from the buffer's start.
    pub fn span(&self) -> usize {
        let r = self.rank();
        let last = if r == 1 {
            self.dims[0] * self.ty.bytes as u64
        } else {
            self.strides[r - 2] * self.dims[r - 1]
        };
        (self.offset + last) as usize
    }

    /// The byte offset in the buffer of the element at `x`, or `None` out of bounds (L2178).
    fn global(&self, x: &[i64]) -> Option<usize> {
        let mut at = self.offset as i64;
        for (d, &c) in x.iter().enumerate() {
            if c < 0 || c >= self.dims[d] as i64 {
                return None;
            }
            at += c * if d == 0 {
                self.ty.bytes as i64
            } else {
                self.strides[d - 1] as i64
            };
        }
        Some(at as usize)
    }

    /// The box's elements in shared-memory order (before the swizzle): each one's place in the
    /// buffer, `None` out of bounds.
    pub fn elements(&self, coords: &[i32], offsets: &[u16]) -> Vec<Option<usize>> {
        let r = self.rank();
        let mut out = Vec::new();
        match &self.shape {
            Shape::Tile(boxd) => {
                let count: Vec<u64> = (0..r)
                    .map(|d| u64::from(boxd[d]).div_ceil(u64::from(self.estrides[d])))
                    .collect();
                let total: u64 = count.iter().product();
                for k in 0..total {
                    let mut rest = k;
                    let x: Vec<i64> = (0..r)
                        .map(|d| {
                            let i = rest % count[d];
                            rest /= count[d];
                            i64::from(coords[d]) + (i * u64::from(self.estrides[d])) as i64
                        })
                        .collect();
                    out.push(self.global(&x));
                }
            }
            Shape::Gather4(width) => {
                for &row in &coords[1..5] {
                    for i in 0..*width {
                        let x = [i64::from(coords[0]) + i64::from(i), i64::from(row)];
                        out.push(self.global(&x));
                    }
                }
            }
            Shape::Im2colW {
                lower,
                upper,
                channels,
                pixels,
                w128,
                halo,
            } => {
                // wOffset shifts the box and the start along W (L2482-2486); the main pixels
                // step W by the traversal stride and wrap past the box's end to its first W in
                // the next image; each halo pixel continues the traversal of the main pixel
                // before it in the same image, unwrapped (spec/INTERPRETATIONS.md, `.im2col::w`).
                let off = i64::from(offsets.get(1).copied().unwrap_or(0));
                let (lo, hi) = (
                    i64::from(*lower) + off,
                    self.dims[1] as i64 - 1 + i64::from(*upper) + off,
                );
                let stride = i64::from(self.estrides[1]);
                let (mut w, mut n) = (i64::from(coords[1]) + off, i64::from(coords[r - 1]));
                let count = if *w128 { 128 } else { *pixels };
                let pixel = |out: &mut Vec<Option<usize>>, w: i64, n: i64| {
                    for c in 0..*channels {
                        let mut x = vec![i64::from(coords[0]) + i64::from(c), w];
                        x.extend(coords[2..r - 1].iter().map(|&v| i64::from(v)));
                        x.push(n);
                        out.push(self.global(&x));
                    }
                };
                for k in 1..=count {
                    pixel(&mut out, w, n);
                    if (*w128 && k % 32 == 0) || (!*w128 && k == count) {
                        for h in 1..=i64::from(*halo) {
                            pixel(&mut out, w + h * stride, n);
                        }
                    }
                    w += stride;
                    if w > hi {
                        w = lo;
                        n += 1;
                    }
                }
            }
            Shape::Im2col {
                lower,
                upper,
                channels,
                pixels,
            } => {
                let s = r - 2;
                // The pixel's filter position W, H, D (tensor dimensions 1..=s) and its N.
                let mut pos: Vec<i64> = (1..=s).map(|d| i64::from(coords[d])).collect();
                let mut n = i64::from(coords[r - 1]);
                for _ in 0..*pixels {
                    for c in 0..*channels {
                        let mut x = vec![i64::from(coords[0]) + i64::from(c)];
                        for (j, p) in pos.iter().enumerate() {
                            x.push(p + i64::from(offsets.get(j).copied().unwrap_or(0)));
                        }
                        x.push(n);
                        out.push(self.global(&x));
                    }
                    // The next pixel: W first, wrapping at the box's far corner to its near one.
                    let mut j = 0;
                    loop {
                        if j == s {
                            n += 1;
                            break;
                        }
                        pos[j] += i64::from(self.estrides[j + 1]);
                        if pos[j] <= self.dims[j + 1] as i64 - 1 + i64::from(upper[j]) {
                            break;
                        }
                        pos[j] = i64::from(lower[j]);
                        j += 1;
                    }
                }
            }
        }
        out
    }

    /// Bytes of the box in shared memory.
    pub fn box_bytes(&self) -> usize {
        match &self.shape {
            Shape::Tile(b) => {
                (0..self.rank())
                    .map(|d| b[d].div_ceil(self.estrides[d]) as usize)
                    .product::<usize>()
                    * self.ty.bytes
            }
            Shape::Gather4(width) => 4 * *width as usize * self.ty.bytes,
            Shape::Im2colW {
                channels,
                pixels,
                w128,
                halo,
                ..
            } => {
                let n = if *w128 {
                    128 + 4 * u32::from(*halo)
                } else {
                    pixels + u32::from(*halo)
                };
                (n * channels) as usize * self.ty.bytes
            }
            Shape::Im2col { channels, pixels, .. } => (channels * pixels) as usize * self.ty.bytes,
        }
    }

    /// The shared-memory byte offset of linear box offset `off`: the swizzle pattern of §5.5.7.
    /// A row of the tables is 128 bytes; 16-byte chunk `j` of row `r` holds chunk
    /// `j ^ (r mod 2)` (32-byte swizzle, L2616-2652), `j ^ (r mod 4)` (64-byte, L2672-2740),
    /// `j ^ (r mod 8)` (128-byte, L2762-2870); with 32-byte atomicity 32-byte unit `u` of row
    /// `r` holds `u ^ (r mod 4)` (L2902-2948), with 64-byte atomicity 64-byte unit
    /// `u ^ (r mod 2)` (L2960-2986).
    pub fn swizzled(&self, off: usize) -> usize {
        let row = off >> 7;
        match self.swizzle {
            (0, _) => off,
            (span, 16) => off ^ ((row & (span as usize / 16 - 1)) << 4),
            (128, 32) => off ^ ((row & 3) << 5),
            (128, 64) => off ^ ((row & 1) << 6),
            s => unreachable!("swizzle {s:?} is not one of Table 14's"),
        }
    }

    /// The bits an out-of-bounds element of a load holds before the scenario's NaN
    /// canonicalization: 0, or (OOB-NaN, only on `f32` maps here) a quiet NaN; the kernel turns
    /// every NaN it reads into 0x7fffffff, since the manual does not give OOB-NaN's bits
    /// (L2186).
    fn fill(&self) -> Vec<u8> {
        if self.nan {
            0x7fff_ffffu32.to_le_bytes()[..self.ty.bytes].to_vec()
        } else {
            vec![0; self.ty.bytes]
        }
    }

    /// The shared-memory image a load of the box leaves (every byte of the box written). A
    /// swizzled box that ends inside a 128-byte row of the pattern (an im2col-wide box) moves
    /// bytes past its end: the image then runs to the row's end, its unwritten bytes 0xa5 (the
    /// scenarios' sentinel).
    pub fn load(&self, buf: &[u8], coords: &[i32], offsets: &[u16]) -> Vec<u8> {
        let e = self.ty.bytes;
        let bb = self.box_bytes();
        let mut img = if self.swizzle.0 == 0 {
            vec![0u8; bb]
        } else {
            vec![0xa5u8; bb.div_ceil(128) * 128]
        };
        for (k, g) in self.elements(coords, offsets).into_iter().enumerate() {
            let at = self.swizzled(k * e);
            match g {
                Some(g) => img[at..at + e].copy_from_slice(&buf[g..g + e]),
                None => img[at..at + e].copy_from_slice(&self.fill()),
            }
        }
        img
    }

    /// A store (`op` None) or reduction of the shared-memory image `smem` into `buf`: the
    /// in-bounds elements only.
    pub fn store(&self, smem: &[u8], buf: &mut [u8], coords: &[i32], op: Option<Op>) {
        let e = self.ty.bytes;
        for (k, g) in self.elements(coords, &[]).into_iter().enumerate() {
            let Some(g) = g else { continue };
            let at = self.swizzled(k * e);
            let new = &smem[at..at + e];
            let v = match op {
                None => new.to_vec(),
                Some(op) => op.apply(self.ty, &buf[g..g + e], new),
            };
            buf[g..g + e].copy_from_slice(&v);
        }
    }
}

/// A reduction of `cp.reduce.async.bulk.tensor` (`.redOp`, L15131-15145).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
}

impl Op {
    /// The `.redOp` modifier as the catalog spells it (`spec::atom::Op`'s names).
    pub fn parse(s: &str) -> Option<Op> {
        use spec::atom::Op as A;
        Some(match A::parse(s)? {
            A::Add => Op::Add,
            A::Min => Op::Min,
            A::Max => Op::Max,
            A::Inc => Op::Inc,
            A::Dec => Op::Dec,
            A::And => Op::And,
            A::Or => Op::Or,
            A::Xor => Op::Xor,
            _ => return None,
        })
    }

    /// The element types the scenarios reduce with `self` (the valid combinations of
    /// L15131-15145 that a tensor map's types can express; `.inc`/`.dec` on `u32`, the table's
    /// garbled cell read as the atomics' type; `f16`/`bf16` in scenarios of their own,
    /// [`Op::halves`]).
    pub fn types(self) -> &'static [&'static str] {
        match self {
            Op::Add => &["u32", "s32", "u64", "f32"],
            Op::Min | Op::Max => &["u32", "s32", "u64", "s64"],
            Op::Inc | Op::Dec => &["u32"],
            Op::And | Op::Or | Op::Xor => &["u32", "s32", "u64", "s64"],
        }
    }

    /// Whether `.f16`/`.bf16` maps take `self` (`.add`, `.min`, `.max`, L15131-15140).
    pub fn halves(self) -> bool {
        matches!(self, Op::Add | Op::Min | Op::Max)
    }

    /// `old op new` for one element, little-endian bytes. `.add` on `f32` is one native IEEE
    /// addition (round to nearest even, as `red.add.f32`); `.inc`/`.dec` are the atomics'
    /// (`atom.inc`: `old >= new ? 0 : old + 1`, `atom.dec`: `old == 0 || old > new ? new :
    /// old - 1`, L17499-17500).
    fn apply(self, t: Ty, old: &[u8], new: &[u8]) -> Vec<u8> {
        let e = t.bytes;
        let rd = |b: &[u8]| {
            let mut a = [0u8; 8];
            a[..e].copy_from_slice(b);
            u64::from_le_bytes(a)
        };
        let (a, b) = (rd(old), rd(new));
        let bits = 8 * e as u32;
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let signed = t.name.starts_with('s');
        let sx = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
        if let Some(h) = match t.name {
            "f16" => Some(crate::kernel::operational::bulk::Elem::F16),
            "bf16" => Some(crate::kernel::operational::bulk::Elem::Bf16),
            _ => None,
        } {
            // `cp.reduce.async.bulk`'s element operation on halves: `.add` rounded to nearest
            // even with subnormals kept, `.min`/`.max` by value (L14647, L15131-15140).
            let name = match self {
                Op::Add => "add",
                Op::Min => "min",
                _ => "max",
            };
            return crate::kernel::operational::bulk::reduce(name, h, old, new);
        }
        let v = match self {
            Op::Add if t.name == "f32" => u64::from((f32::from_bits(a as u32) + f32::from_bits(b as u32)).to_bits()),
            Op::Add => a.wrapping_add(b) & mask,
            Op::Min if signed => (sx(a).min(sx(b)) as u64) & mask,
            Op::Max if signed => (sx(a).max(sx(b)) as u64) & mask,
            Op::Min => a.min(b),
            Op::Max => a.max(b),
            Op::Inc => {
                if a >= b {
                    0
                } else {
                    a + 1
                }
            }
            Op::Dec => {
                if a == 0 || a > b {
                    b
                } else {
                    a - 1
                }
            }
            Op::And => a & b,
            Op::Or => a | b,
            Op::Xor => a ^ b,
        };
        v.to_le_bytes()[..e].to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile(t: &str, dims: &[u64], strides: &[u64], boxd: &[u32]) -> Map {
        Map {
            ty: ty(t),
            offset: 0,
            dims: dims.to_vec(),
            strides: strides.to_vec(),
            estrides: vec![1; dims.len()],
            shape: Shape::Tile(boxd.to_vec()),
            swizzle: (0, 16),
            interleave16: false,
            nan: false,
        }
    }

    /// A 4 × 4 u32 box at (4, 3) of a 6 × 5 tensor (rows 32 bytes): columns 6, 7 and rows 5, 6
    /// are outside (L2178).
    #[test]
    fn tile_box_by_hand() {
        let m = tile("u32", &[6, 5], &[32], &[4, 4]);
        let e = m.elements(&[4, 3], &[]);
        assert_eq!(e.len(), 16);
        assert_eq!(e[0], Some(3 * 32 + 16));
        assert_eq!(e[1], Some(3 * 32 + 20));
        assert_eq!(e[2], None);
        assert_eq!(e[4], Some(4 * 32 + 16));
        assert_eq!(e[8], None);
        // Negative coordinates are outside too.
        assert_eq!(m.elements(&[-1, 0], &[])[..2], [None, Some(0)]);
    }

    /// The tables of §5.5.7 written out: row 1 of the 32-byte pattern swaps neighbouring chunks,
    /// row 3 of the 64-byte pattern reads 3 2 1 0 7 6 5 4, row 7 of the 128-byte one
    /// 7 6 5 4 3 2 1 0; 64-byte atomicity swaps the halves of odd rows.
    #[test]
    fn swizzle_tables() {
        let mut m = tile("u8", &[128], &[], &[128]);
        let chunks = |m: &Map, row: usize| -> Vec<usize> {
            (0..8).map(|j| (m.swizzled(row * 128 + j * 16) % 128) / 16).collect()
        };
        m.swizzle = (32, 16);
        assert_eq!(chunks(&m, 1), [1, 0, 3, 2, 5, 4, 7, 6]);
        assert_eq!(chunks(&m, 2), [0, 1, 2, 3, 4, 5, 6, 7]);
        m.swizzle = (64, 16);
        assert_eq!(chunks(&m, 3), [3, 2, 1, 0, 7, 6, 5, 4]);
        m.swizzle = (128, 16);
        assert_eq!(chunks(&m, 7), [7, 6, 5, 4, 3, 2, 1, 0]);
        assert_eq!(chunks(&m, 5), [5, 4, 7, 6, 1, 0, 3, 2]);
        m.swizzle = (128, 32);
        assert_eq!(chunks(&m, 1), [2, 3, 0, 1, 6, 7, 4, 5]);
        m.swizzle = (128, 64);
        assert_eq!(chunks(&m, 1), [4, 5, 6, 7, 0, 1, 2, 3]);
    }

    /// The manual's im2col example 1 (L2324-2342): W = 9, H = 14, corners -1/-1, coordinates
    /// (c 7, w 7, h 4, n 0): the box's W positions are -1..=7, so the second pixel wraps to
    /// w = -1 (outside the tensor) at h = 5, the third is w = 0.
    #[test]
    fn im2col_wraps_inside_the_box() {
        let m = Map {
            ty: ty("u16"),
            offset: 0,
            dims: vec![64, 9, 14, 64],
            strides: vec![128, 128 * 9, 128 * 9 * 14],
            estrides: vec![1; 4],
            shape: Shape::Im2col {
                lower: vec![-1, -1],
                upper: vec![-1, -1],
                channels: 8,
                pixels: 3,
            },
            swizzle: (0, 16),
            interleave16: false,
            nan: false,
        };
        let e = m.elements(&[7, 7, 4, 0], &[0, 0]);
        assert_eq!(e.len(), 24);
        assert_eq!(e[0], Some(4 * 128 * 9 + 7 * 128 + 14));
        assert_eq!(e[8], None);
        assert_eq!(e[16], Some(5 * 128 * 9 + 14));
        // An offset of (1, 0) shifts every read one pixel along W.
        assert_eq!(m.elements(&[7, 7, 4, 0], &[1, 0])[8], Some(5 * 128 * 9 + 14));
    }

    /// Gather4 from column 5 of an 8 x 12 u32 tensor (rows 32 bytes), box width 4: rows 2, 11,
    /// 12 (outside) and 0, each 4 elements, columns 8 and 9 outside; rows one after another.
    #[test]
    fn gather4_by_hand() {
        let mut m = tile("u32", &[8, 12], &[32], &[4, 1]);
        m.shape = Shape::Gather4(4);
        let e = m.elements(&[5, 2, 11, 12, 0], &[]);
        assert_eq!(e.len(), 16);
        assert_eq!(m.box_bytes(), 64);
        assert_eq!(e[..4], [Some(2 * 32 + 20), Some(2 * 32 + 24), Some(2 * 32 + 28), None]);
        assert_eq!(e[4], Some(11 * 32 + 20));
        assert_eq!(e[8..12], [None, None, None, None]);
        assert_eq!(e[12], Some(20));
    }

    /// The oracle test's `.im2col::w` case by hand: C 4, W 5, N 2 f32, box W 0..=4, six
    /// pixels from W 3 of image 0 wrap to image 1; wHalo 1 adds W 4 of image 1.
    #[test]
    fn im2col_w_by_hand() {
        let mut m = tile("f32", &[4, 5, 2], &[16, 80], &[4, 1, 1]);
        m.shape = Shape::Im2colW {
            lower: 0,
            upper: 0,
            channels: 4,
            pixels: 6,
            w128: false,
            halo: 1,
        };
        let e = m.elements(&[0, 3, 0], &[1, 0]);
        assert_eq!(e.len(), 28);
        assert_eq!(m.box_bytes(), 112);
        let px: Vec<usize> = e.iter().step_by(4).map(|g| g.unwrap()).collect();
        assert_eq!(px, [48, 64, 80, 96, 112, 128, 144]);
        // wOffset 1: box 1..=5, start W 4: W 4, then 5 (outside), then image 1 from W 1.
        let e = m.elements(&[0, 3, 0], &[1, 1]);
        assert_eq!(e[0], Some(64));
        assert_eq!(e[4], None);
        assert_eq!(e[8], Some(96));
    }

    #[test]
    fn reductions_by_hand() {
        let u = ty("u32");
        let s = ty("s32");
        let b = |v: u32| v.to_le_bytes().to_vec();
        assert_eq!(Op::Add.apply(u, &b(u32::MAX), &b(2)), b(1));
        assert_eq!(Op::Min.apply(s, &b(-3i32 as u32), &b(2)), b(-3i32 as u32));
        assert_eq!(Op::Min.apply(u, &b(-3i32 as u32), &b(2)), b(2));
        assert_eq!(Op::Inc.apply(u, &b(5), &b(5)), b(0));
        assert_eq!(Op::Inc.apply(u, &b(4), &b(5)), b(5));
        assert_eq!(Op::Dec.apply(u, &b(0), &b(9)), b(9));
        assert_eq!(Op::Dec.apply(u, &b(10), &b(9)), b(9));
        assert_eq!(Op::Dec.apply(u, &b(3), &b(9)), b(2));
        let f = ty("f32");
        assert_eq!(
            Op::Add.apply(f, &b(1.5f32.to_bits()), &b(0.25f32.to_bits())),
            b(1.75f32.to_bits())
        );
    }
}
