//! Clusters of CTAs (§2.2.2-2.2.3, L89-99; §11.7, L34403-34511): a kernel's cluster directives,
//! the geometry of a launch in clusters, and the oracle's layout of the `.shared::cluster`
//! window (the interpreter's side is `exec/cluster.rs`).
//!
//! The window (spec/INTERPRETATIONS.md, "Clusters"). A `.shared::cta` address is an offset in
//! the executing CTA's shared memory, and every `.shared::cta` address is also a
//! `.shared::cluster` one (L1290), naming the same bytes; the manual leaves the other
//! addresses of the window to the implementation. The oracle's window, 32 bits wide like
//! the `.shared` state space:
//!
//! - `[0, 2^24)`: the executing CTA's own shared memory, the offset itself (the `.shared::cta`
//!   window);
//! - `(r + 1) · 2^24 + offset`: the shared memory of the CTA of `%cluster_ctarank` `r`, for
//!   `r` < 16: what `mapa` returns, the same address whichever CTA of the cluster computes it.
//!
//! A generic address in the shared window (`mem::SHARED_WIN` + a 32-bit offset) is the
//! `.shared::cluster` address of that offset (`cvta.shared::cluster`, L13534).

use crate::ast::{Directive, Loc};
use crate::program::ClusterDirectives;

/// The most CTAs a cluster may have: 16, the ranks a 16-bit `ctaMask` can name (L30593: each
/// bit position of the 16-bit `ctaMask` operand is a destination CTA's `%cluster_ctarank`).
/// The manual names no other bound (hardware's portable size is 8, CUDA's non-portable one 16).
pub const MAX_CTAS: u32 = 16;

/// Bits of a shared-memory offset in the window: shared memory is at most 228 KiB a CTA.
pub const RANK_SHIFT: u32 = 24;

/// The end of the executing CTA's own part of the window (its `.shared::cta` window).
pub const OWN_WINDOW: u64 = 1 << RANK_SHIFT;

/// Where a `.shared::cluster` address points ([`decode`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The executing CTA's shared memory, at this offset.
    Own(u64),
    /// The shared memory of the CTA of this rank, at this offset.
    Rank(u32, u64),
}

/// The `.shared::cluster` address of `offset` in the shared memory of the CTA of rank `rank`.
pub fn rank_address(rank: u32, offset: u64) -> u64 {
    ((rank as u64 + 1) << RANK_SHIFT) | (offset & (OWN_WINDOW - 1))
}

/// Where `.shared::cluster` address `a` points, if in the window (a rank here may still be past
/// the cluster's size).
pub fn decode(a: u64) -> Option<Target> {
    if a < OWN_WINDOW {
        return Some(Target::Own(a));
    }
    let r = (a >> RANK_SHIFT) - 1;
    (r < MAX_CTAS as u64).then_some(Target::Rank(r as u32, a & (OWN_WINDOW - 1)))
}

/// A kernel's cluster directives (§11.7): `.reqnctapercluster nx{, ny{, nz}}`,
/// `.explicitcluster`, `.maxclusterrank n`. They are for kernels only (L34415), from sm_90
/// (each directive's target notes), and `.maxclusterrank` does not go with
/// `.reqnctapercluster` (L34499). The error: where, and why.
pub fn directives(ds: &[Directive], entry: bool, sm: u32) -> Result<ClusterDirectives, (Loc, String)> {
    let mut c = ClusterDirectives::default();
    for d in ds {
        let name = d.name.as_str();
        if !matches!(name, "reqnctapercluster" | "explicitcluster" | "maxclusterrank") {
            continue;
        }
        if !entry {
            return Err((d.loc, format!("`.{name}` applies to kernels (`.entry`) only (L34415)")));
        }
        if sm < 90 {
            return Err((d.loc, format!("`.{name}` requires sm_90 (§11.7)")));
        }
        let nums: Option<Vec<u32>> = d
            .text
            .split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .map(|w| w.parse::<u32>().ok().filter(|&n| n > 0))
            .collect();
        let bad = |what: &str| Err((d.loc, format!("`.{name} {}`: {what}", d.text)));
        match (name, nums) {
            ("explicitcluster", Some(v)) if v.is_empty() => c.explicitcluster = true,
            ("explicitcluster", _) => return bad("takes no operands (L34459)"),
            ("reqnctapercluster", Some(v)) if (1..=3).contains(&v.len()) => {
                let mut dims = [1u32; 3];
                dims[..v.len()].copy_from_slice(&v);
                c.reqnctapercluster = Some(dims);
            }
            ("reqnctapercluster", _) => return bad("takes one to three positive extents (L34425-34427)"),
            (_, Some(v)) if v.len() == 1 => c.maxclusterrank = Some(v[0]),
            _ => return bad("takes one positive count (L34489)"),
        }
    }
    if c.reqnctapercluster.is_some() && c.maxclusterrank.is_some() {
        let at = ds.iter().find(|d| d.name == "maxclusterrank").map(|d| d.loc);
        let at = at.unwrap_or(ds[0].loc);
        return Err((
            at,
            "`.maxclusterrank` cannot be combined with `.reqnctapercluster` (L34499)".into(),
        ));
    }
    Ok(c)
}

/// How a launch's grid is cut into clusters: each CTA's cluster, its place in it, and what the
/// cluster registers read (§10.11-10.17).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// The cluster's dimensions in CTAs (`%cluster_nctaid`).
    pub dims: [u32; 3],
    /// The launch gave cluster dimensions (`%is_explicit_cluster`).
    pub explicit: bool,
    /// The grid's dimensions in CTAs (`%nctaid`).
    pub grid: [u32; 3],
}

impl Geometry {
    /// The clusters of a launch of `grid` CTAs of a kernel with directives `d`, the launch
    /// giving cluster dimensions `launch` or none: the kernel's `.reqnctapercluster` (which the
    /// launch must repeat if it gives any, L34436-34439), else the launch's (an explicit
    /// cluster launch, L93), else — unless the kernel is `.explicitcluster` (L34467) — the
    /// implicit 1×1×1 cluster of each CTA (L93). A grid that the cluster does not tile, or a
    /// cluster larger than `.maxclusterrank` (L34495) or [`MAX_CTAS`], cannot launch. The error:
    /// why.
    pub fn of(d: &ClusterDirectives, launch: Option<[u32; 3]>, grid: [u32; 3]) -> Result<Geometry, String> {
        let fmt = |v: [u32; 3]| format!("{}×{}×{}", v[0], v[1], v[2]);
        if let Some(l) = launch {
            if l.contains(&0) {
                return Err(format!("cluster dimensions {} must be at least 1", fmt(l)));
            }
        }
        let (dims, explicit) = match (d.reqnctapercluster, launch) {
            (Some(r), Some(l)) if r != l => {
                return Err(format!(
                    "the launch asks for clusters of {} CTAs; the kernel's `.reqnctapercluster` says {}: they must be equal (L34436-34439)",
                    fmt(l),
                    fmt(r)
                ))
            }
            (Some(r), _) => (r, true),
            (None, Some(l)) => (l, true),
            (None, None) if d.explicitcluster => {
                return Err(
                    "the kernel is `.explicitcluster`: its launch must give cluster dimensions (`\"cluster\": [x, y, z]`), as it has no `.reqnctapercluster` (L34467)"
                        .into(),
                )
            }
            (None, None) => ([1, 1, 1], false),
        };
        let size = dims.iter().map(|&x| x as u64).product::<u64>();
        if let Some(max) = d.maxclusterrank {
            if size > max as u64 {
                return Err(format!(
                    "clusters of {} = {size} CTAs exceed the kernel's `.maxclusterrank {max}` (L34495)",
                    fmt(dims)
                ));
            }
        }
        if size > MAX_CTAS as u64 {
            return Err(format!(
                "clusters of {} = {size} CTAs exceed the oracle's {MAX_CTAS} (the ranks a 16-bit ctaMask names, L30593)",
                fmt(dims)
            ));
        }
        if (0..3).any(|k| !grid[k].is_multiple_of(dims[k])) {
            return Err(format!(
                "the grid of {} CTAs is not a whole number of clusters of {}",
                fmt(grid),
                fmt(dims)
            ));
        }
        Ok(Geometry { dims, explicit, grid })
    }

    /// CTAs in a cluster (`%cluster_nctarank`).
    pub fn size(&self) -> u32 {
        self.dims.iter().product()
    }

    /// The grid's dimensions in clusters (`%nclusterid`).
    pub fn nclusterid(&self) -> [u32; 3] {
        std::array::from_fn(|k| self.grid[k] / self.dims[k])
    }

    /// `%cluster_ctarank` of the CTA at `cluster_ctaid` in its cluster: x fastest, then y, then
    /// z, as `%tid` linearizes threads (§10.16 does not say; CUDA's `block_rank()` reads it so).
    pub fn rank(&self, cluster_ctaid: [u32; 3]) -> u32 {
        let [x, y, z] = cluster_ctaid;
        x + self.dims[0] * (y + self.dims[1] * z)
    }

    /// `%cluster_ctaid` of the CTA of rank `rank`.
    pub fn cluster_ctaid(&self, rank: u32) -> [u32; 3] {
        let [dx, dy, _] = self.dims;
        [rank % dx, rank / dx % dy, rank / (dx * dy)]
    }

    /// `%ctaid` of the CTA of rank `rank` in the cluster `clusterid`.
    pub fn ctaid(&self, clusterid: [u32; 3], rank: u32) -> [u32; 3] {
        let c = self.cluster_ctaid(rank);
        std::array::from_fn(|k| clusterid[k] * self.dims[k] + c[k])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(req: Option<[u32; 3]>, explicit: bool, max: Option<u32>) -> ClusterDirectives {
        ClusterDirectives {
            reqnctapercluster: req,
            explicitcluster: explicit,
            maxclusterrank: max,
        }
    }

    /// A 2×2×1 cluster of a 4×2 grid: rank = x + 2y, and CTA (3, 1) is cluster (1, 0)'s rank 3.
    #[test]
    fn ranks_and_ids_in_a_2x2_cluster() {
        let g = Geometry::of(&dirs(Some([2, 2, 1]), true, None), None, [4, 2, 1]).unwrap();
        assert_eq!(g.size(), 4);
        assert_eq!(g.nclusterid(), [2, 1, 1]);
        assert_eq!(g.rank([1, 1, 0]), 3);
        assert_eq!(g.cluster_ctaid(2), [0, 1, 0]);
        assert_eq!(g.ctaid([1, 0, 0], 3), [3, 1, 0]);
    }

    #[test]
    fn launch_errors() {
        let d = dirs(Some([2, 1, 1]), false, None);
        assert!(Geometry::of(&d, Some([4, 1, 1]), [4, 1, 1])
            .unwrap_err()
            .contains("L34436"));
        assert!(Geometry::of(&d, Some([2, 1, 1]), [3, 1, 1])
            .unwrap_err()
            .contains("whole number"));
        let e = dirs(None, true, None);
        assert!(Geometry::of(&e, None, [4, 1, 1]).unwrap_err().contains("L34467"));
        let m = dirs(None, false, Some(2));
        assert!(Geometry::of(&m, Some([4, 1, 1]), [4, 1, 1])
            .unwrap_err()
            .contains("L34495"));
        assert!(Geometry::of(&dirs(None, false, None), Some([32, 1, 1]), [32, 1, 1]).is_err());
        let g = Geometry::of(&dirs(None, false, None), None, [5, 3, 1]).unwrap();
        assert_eq!((g.dims, g.explicit), ([1, 1, 1], false));
    }

    #[test]
    fn the_window() {
        assert_eq!(decode(0x40), Some(Target::Own(0x40)));
        assert_eq!(rank_address(2, 0x40), 0x0300_0040);
        assert_eq!(decode(0x0300_0040), Some(Target::Rank(2, 0x40)));
        assert_eq!(decode(0x1100_0000), None);
    }
}
