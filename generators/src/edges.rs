//! Float edge tuples: every ordered pair (or triple) of ±0, ±∞ and a quiet NaN over the float
//! sources of a form, the part of a golden-vector set that the cross product of hard-case
//! prefixes does not guarantee.
//!
//! The cross product ([`crate::vectors`]) takes a prefix of each source's hard list, and the
//! hard lists put the positive special values first ([`crate::float::special_values`]): at
//! level golden `max.f32` got `(+0, +0)` and `(-0, +0)` but never `(+0, -0)`, and GPGPU-Sim's
//! `max.f32(+0, -0) = -0` (the manual: +0 > -0, L8390) passed `conform` while a fuzz campaign
//! found it (`corpus/findings/fuzz/gpgpu-sim/max-f32-signed-zeros/`). The sign of a zero result,
//! the order of NaN and zero operands and the infinities' cancellations are where
//! implementations of two- and three-operand float instructions differ, so every such form gets
//! them all, in every operand position:
//! - the edge values of a lane format are [`EDGES`] in that order, in the format's IEEE layout
//!   ([`crate::float::Layout`]: the narrow formats' patterns of those fields, finite for e4m3);
//! - a form with two or three float sources gets every ordered tuple of them (25 or 125 operand
//!   sets); one with more gets every ordered pair for every two positions, the others left to
//!   the caller; a packed register (`f16x2`) holds tuple `t` rotated by `l` positions in lane `l`,
//!   so that every lane sees every ordered tuple too;
//! - a source whose lane format has no IEEE layout (e2m1, ue8m0) takes no part (its hard list is
//!   the whole format anyway).

use crate::float::Layout;
use spec::float::Fmt;
use spec::types::Type;

/// The edge values, in order: +0, -0, +∞, -∞, a quiet NaN (positive, payload 0).
pub const EDGES: [&str; 5] = ["+0", "-0", "+inf", "-inf", "qnan"];

/// The [`EDGES`] of a lane format in its IEEE layout `fm`.
pub fn lane_edges(fm: &Fmt) -> [u128; 5] {
    let top = fm.exp_all_ones();
    [
        fm.encode(false, 0, 0),
        fm.encode(true, 0, 0),
        fm.infinity(false),
        fm.infinity(true),
        fm.encode(false, top, fm.quiet_bit()),
    ]
    .map(u128::from)
}

/// One float source: its type and the IEEE layout of its lane format (`None`: it takes no part).
#[derive(Clone, Copy, Debug)]
pub struct Source {
    /// The operand's type (lane width and count).
    pub ty: Type,
    /// The lane format's layout.
    pub layout: Option<&'static Fmt>,
}

/// The edge operand sets of sources `srcs` (see the module doc): per set, each source's register
/// value, `None` for the sources that take no part in it. Empty when fewer than two sources take
/// part. Deterministic, in a fixed order (the first source slowest).
pub fn tuples(srcs: &[Source]) -> Vec<Vec<Option<u128>>> {
    let part: Vec<usize> = (0..srcs.len()).filter(|&i| srcs[i].layout.is_some()).collect();
    let m = part.len();
    if m < 2 {
        return Vec::new();
    }
    let n = EDGES.len();
    // Index tuples over the positions of `part`: the full product up to three sources, else
    // every ordered pair for every two positions.
    let mut idx: Vec<Vec<Option<usize>>> = Vec::new();
    if m <= 3 {
        for t in 0..n.pow(m as u32) {
            idx.push((0..m).map(|p| Some(t / n.pow((m - 1 - p) as u32) % n)).collect());
        }
    } else {
        for p in 0..m {
            for q in p + 1..m {
                for (a, b) in (0..n).flat_map(|a| (0..n).map(move |b| (a, b))) {
                    let mut t = vec![None; m];
                    t[p] = Some(a);
                    t[q] = Some(b);
                    idx.push(t);
                }
            }
        }
    }
    let edges: Vec<[u128; 5]> = part
        .iter()
        .map(|&i| lane_edges(srcs[i].layout.expect("part")))
        .collect();
    idx.into_iter()
        .map(|t| {
            let mut regs = vec![None; srcs.len()];
            for (p, &i) in part.iter().enumerate() {
                let ty = srcs[i].ty;
                let mut reg = 0u128;
                for l in 0..ty.lanes {
                    // Lane l holds the tuple rotated by l: a bijection of the tuples, so every
                    // lane sees every one of them.
                    let Some(e) = t[(p + l as usize) % m] else {
                        continue;
                    };
                    reg |= edges[p][e] << (l * ty.lane_bits);
                }
                if t[p].is_some() || ty.lanes > 1 {
                    regs[i] = Some(reg);
                }
            }
            regs
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::types::FloatFormat;
    use std::collections::HashSet;

    fn src(ty: &str) -> Source {
        let ty = Type::parse(ty).unwrap();
        let spec::types::Kind::Float(f) = ty.kind else { panic!() };
        Source {
            ty,
            layout: Some(Fmt::of(f)),
        }
    }

    #[test]
    fn edge_values_are_the_formats_own() {
        assert_eq!(
            lane_edges(Fmt::of(FloatFormat::F32)),
            [0, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000]
        );
        assert_eq!(
            lane_edges(Fmt::of(FloatFormat::F16)),
            [0, 0x8000, 0x7c00, 0xfc00, 0x7e00]
        );
        assert_eq!(
            lane_edges(Fmt::of(FloatFormat::Bf16)),
            [0, 0x8000, 0x7f80, 0xff80, 0x7fc0]
        );
        assert_eq!(lane_edges(Fmt::of(FloatFormat::F64))[..2], [0, 0x8000_0000_0000_0000]);
    }

    #[test]
    fn pairs_and_triples_are_every_ordered_tuple() {
        let t = tuples(&[src("f32"), src("f32")]);
        assert_eq!(t.len(), 25);
        let set: HashSet<(u128, u128)> = t.iter().map(|r| (r[0].unwrap(), r[1].unwrap())).collect();
        assert_eq!(set.len(), 25);
        assert!(set.contains(&(0, 0x8000_0000)) && set.contains(&(0x8000_0000, 0)));
        assert!(set.contains(&(0x7fc0_0000, 0x8000_0000)) && set.contains(&(0xff80_0000, 0x7f80_0000)));
        let t = tuples(&[src("f64"), src("f64"), src("f64")]);
        assert_eq!(t.len(), 125);
        assert_eq!(t.iter().collect::<HashSet<_>>().len(), 125);
        assert!(tuples(&[src("f32")]).is_empty());
    }

    /// Every lane of a packed register sees every ordered pair of its operands' edge values.
    #[test]
    fn packed_lanes_see_every_ordered_pair() {
        let t = tuples(&[src("f16x2"), src("f16x2")]);
        assert_eq!(t.len(), 25);
        for lane in 0..2 {
            let pairs: HashSet<(u128, u128)> = t
                .iter()
                .map(|r| {
                    (
                        r[0].unwrap() >> (16 * lane) & 0xffff,
                        r[1].unwrap() >> (16 * lane) & 0xffff,
                    )
                })
                .collect();
            assert_eq!(pairs.len(), 25, "lane {lane}");
            assert!(pairs.contains(&(0, 0x8000)) && pairs.contains(&(0x8000, 0)));
        }
    }

    /// Sources of different formats take their own encodings; a source without a layout no part.
    #[test]
    fn mixed_sources() {
        let none = Source {
            ty: Type::parse("b8").unwrap(),
            layout: None,
        };
        let t = tuples(&[src("f16"), none, src("f32")]);
        assert_eq!(t.len(), 25);
        assert!(t.iter().all(|r| r[1].is_none()));
        assert!(t.iter().any(|r| r[0] == Some(0x8000) && r[2] == Some(0)));
        // More than three: every ordered pair for every two positions.
        let four = tuples(&[src("f32"), src("f32"), src("f32"), src("f32")]);
        assert_eq!(four.len(), 6 * 25);
    }
}
