//! The special registers of §10 (L31844-32970): their names, components and types, and which of
//! them the oracle does not execute yet, and the predefined constant `WARP_SZ` (§4.5.1). The
//! type checker, the interpreter and the reducer all read special registers through this table.

use crate::types::Type;
use std::fmt;

/// A special register the oracle executes, with its component resolved (`%tid.y` is
/// `Tid(1)`; `.w`, component 3, of the v4 registers reads 0, L31857).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sreg {
    /// `%tid` (§10.1): the thread's index in its CTA.
    Tid(u8),
    /// `%ntid` (§10.2): the CTA's dimensions.
    Ntid(u8),
    /// `%ctaid` (§10.6): the CTA's index in the grid.
    Ctaid(u8),
    /// `%nctaid` (§10.7): the grid's dimensions.
    Nctaid(u8),
    /// `%laneid` (§10.3).
    Laneid,
    /// `%warpid` (§10.4).
    Warpid,
    /// `%nwarpid` (§10.5).
    Nwarpid,
    /// `%smid` (§10.8).
    Smid,
    /// `%nsmid` (§10.9).
    Nsmid,
    /// `%gridid` (§10.10), 64 bits.
    Gridid,
    /// `%lanemask_eq` (§10.18).
    LanemaskEq,
    /// `%lanemask_le` (§10.19).
    LanemaskLe,
    /// `%lanemask_lt` (§10.20).
    LanemaskLt,
    /// `%lanemask_ge` (§10.21).
    LanemaskGe,
    /// `%lanemask_gt` (§10.22).
    LanemaskGt,
    /// `%clock` (§10.23).
    Clock,
    /// `%clock64` (§10.24).
    Clock64,
    /// `%globaltimer` (§10.28), 64 bits.
    Globaltimer,
    /// `%globaltimer_lo` (§10.28).
    GlobaltimerLo,
    /// `%globaltimer_hi` (§10.28).
    GlobaltimerHi,
    /// `%dynamic_smem_size` (§10.32).
    DynamicSmemSize,
    /// `%total_smem_size` (§10.30).
    TotalSmemSize,
    /// `%envreg0` ... `%envreg31` (§10.27).
    Envreg(u8),
    /// `%is_explicit_cluster` (§10.11), a `.pred`: whether the launch gave cluster dimensions.
    IsExplicitCluster,
    /// `%clusterid` (§10.12): the cluster's index in the grid.
    Clusterid(u8),
    /// `%nclusterid` (§10.13): the grid's dimensions in clusters.
    Nclusterid(u8),
    /// `%cluster_ctaid` (§10.14): the CTA's index in its cluster.
    ClusterCtaid(u8),
    /// `%cluster_nctaid` (§10.15): the cluster's dimensions in CTAs.
    ClusterNctaid(u8),
    /// `%cluster_ctarank` (§10.16): the CTA's rank in its cluster, across all dimensions.
    ClusterCtarank,
    /// `%cluster_nctarank` (§10.17): the number of CTAs in the cluster.
    ClusterNctarank,
}

impl Sreg {
    /// The special register `name` names, if the oracle executes it (`%tid.x`, `%laneid`,
    /// `%envreg7`).
    pub fn parse(name: &str) -> Option<Sreg> {
        let comp = |c: &str| match c {
            "x" => Some(0),
            "y" => Some(1),
            "z" => Some(2),
            "w" => Some(3),
            _ => None,
        };
        if let Some((base, c)) = name.split_once('.') {
            let c = comp(c)?;
            return Some(match base {
                "%tid" => Sreg::Tid(c),
                "%ntid" => Sreg::Ntid(c),
                "%ctaid" => Sreg::Ctaid(c),
                "%nctaid" => Sreg::Nctaid(c),
                "%clusterid" => Sreg::Clusterid(c),
                "%nclusterid" => Sreg::Nclusterid(c),
                "%cluster_ctaid" => Sreg::ClusterCtaid(c),
                "%cluster_nctaid" => Sreg::ClusterNctaid(c),
                _ => return None,
            });
        }
        Some(match name {
            "%laneid" => Sreg::Laneid,
            "%warpid" => Sreg::Warpid,
            "%nwarpid" => Sreg::Nwarpid,
            "%smid" => Sreg::Smid,
            "%nsmid" => Sreg::Nsmid,
            "%gridid" => Sreg::Gridid,
            "%lanemask_eq" => Sreg::LanemaskEq,
            "%lanemask_le" => Sreg::LanemaskLe,
            "%lanemask_lt" => Sreg::LanemaskLt,
            "%lanemask_ge" => Sreg::LanemaskGe,
            "%lanemask_gt" => Sreg::LanemaskGt,
            "%clock" => Sreg::Clock,
            "%clock64" => Sreg::Clock64,
            "%globaltimer" => Sreg::Globaltimer,
            "%globaltimer_lo" => Sreg::GlobaltimerLo,
            "%globaltimer_hi" => Sreg::GlobaltimerHi,
            "%dynamic_smem_size" => Sreg::DynamicSmemSize,
            "%total_smem_size" => Sreg::TotalSmemSize,
            "%is_explicit_cluster" => Sreg::IsExplicitCluster,
            "%cluster_ctarank" => Sreg::ClusterCtarank,
            "%cluster_nctarank" => Sreg::ClusterNctarank,
            _ => {
                let k: u8 = name.strip_prefix("%envreg")?.parse().ok()?;
                if k > 31 {
                    return None;
                }
                Sreg::Envreg(k)
            }
        })
    }

    /// Its type (the manual's "special register declared as ..." of each section).
    pub fn ty(self) -> Type {
        Type::parse(match self {
            Sreg::Clock64 | Sreg::Globaltimer | Sreg::Gridid => "u64",
            Sreg::Envreg(_) => "b32",
            Sreg::IsExplicitCluster => "pred",
            _ => "u32",
        })
        .expect("a special register's type is a type")
    }

    /// The cluster registers (§10.11-10.17), which exist from sm_90 on (L32234 and the
    /// "Target ISA notes" of each; ptxas 12.9 refuses them below).
    pub fn is_cluster(self) -> bool {
        matches!(
            self,
            Sreg::IsExplicitCluster
                | Sreg::Clusterid(_)
                | Sreg::Nclusterid(_)
                | Sreg::ClusterCtaid(_)
                | Sreg::ClusterNctaid(_)
                | Sreg::ClusterCtarank
                | Sreg::ClusterNctarank
        )
    }
}

/// What a special register the oracle does not execute yet belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unmodeled {
    /// `%aggr_smem_size`, `%reserved_smem_offset_*` (§10.29, §10.31).
    SmemReservations,
    /// `%current_graph_exec` (§10.33).
    Graphs,
    /// `%pm0` ... `%pm7`, `%pm0_64` ... `%pm7_64` (§10.25-10.26).
    PerfCounters,
}

impl fmt::Display for Unmodeled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unmodeled::SmemReservations => "shared-memory reservations (§10.29, §10.31)",
            Unmodeled::Graphs => "CUDA graphs (§10.33)",
            Unmodeled::PerfCounters => "performance-monitoring counters (§10.25-10.26)",
        })
    }
}

impl Unmodeled {
    /// The group of a special register of §10 the oracle does not execute yet: valid PTX (ptxas
    /// takes it), so a read is "not executed yet" rather than a type error.
    pub fn of(name: &str) -> Option<Unmodeled> {
        let base = name
            .split_once('.')
            .map_or(name, |(b, c)| if matches!(c, "x" | "y" | "z" | "w") { b } else { name });
        Some(match base {
            "%aggr_smem_size"
            | "%reserved_smem_offset_begin"
            | "%reserved_smem_offset_end"
            | "%reserved_smem_offset_cap"
            | "%reserved_smem_offset_0"
            | "%reserved_smem_offset_1" => Unmodeled::SmemReservations,
            "%current_graph_exec" => Unmodeled::Graphs,
            _ if name.strip_prefix("%pm").is_some_and(|k| {
                let k = k.strip_suffix("_64").unwrap_or(k);
                k.len() == 1 && k.as_bytes()[0].is_ascii_digit() && k < "8"
            }) =>
            {
                Unmodeled::PerfCounters
            }
            _ => return None,
        })
    }
}

/// Where a thread stands in a launch: what its geometry registers read (§10.1-10.7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// `%tid`: the thread's index in its CTA.
    pub tid: [u32; 3],
    /// `%ntid`: the CTA's dimensions.
    pub ntid: [u32; 3],
    /// `%ctaid`: the CTA's index in the grid.
    pub ctaid: [u32; 3],
    /// `%nctaid`: the grid's dimensions.
    pub nctaid: [u32; 3],
}

impl Place {
    /// The thread's linear index in its CTA, `x` fastest: warps are made of consecutive
    /// linear indices (§10.3-10.4: `%laneid` and `%warpid` follow from it).
    pub fn linear(&self) -> u64 {
        let [x, y, z] = self.tid.map(u64::from);
        let [nx, ny, _] = self.ntid.map(u64::from);
        x + nx * (y + ny * z)
    }
}

impl Sreg {
    /// What a geometry register reads at `place`: `%tid`, `%ntid`, `%ctaid`, `%nctaid` (whose
    /// `.w` reads 0, L31857), `%laneid` and `%warpid`; `None` for the others, whose values are
    /// not the launch's to give.
    pub fn at(self, place: &Place) -> Option<u64> {
        let comp = |v: &[u32; 3], c: u8| v.get(c as usize).map_or(0, |&v| v as u64);
        Some(match self {
            Sreg::Tid(c) => comp(&place.tid, c),
            Sreg::Ntid(c) => comp(&place.ntid, c),
            Sreg::Ctaid(c) => comp(&place.ctaid, c),
            Sreg::Nctaid(c) => comp(&place.nctaid, c),
            Sreg::Laneid => place.linear() % 32,
            Sreg::Warpid => place.linear() / 32,
            _ => return None,
        })
    }
}

/// The value of a predefined constant: `WARP_SZ`, the number of threads in a warp, 32 on every
/// target so far (§4.5.1, L641).
pub fn predefined_constant(name: &str) -> Option<u64> {
    (name == "WARP_SZ").then_some(32)
}

/// Whether `name` is a special register of §10 (executed by the oracle or not).
pub fn is_special(name: &str) -> bool {
    Sreg::parse(name).is_some() || Unmodeled::of(name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Thread (5, 1, 0) of a 40×2×1 CTA is the 45th (5 + 40·1): lane 13 of warp 1.
    #[test]
    fn geometry_registers_at_a_place() {
        let p = Place {
            tid: [5, 1, 0],
            ntid: [40, 2, 1],
            ctaid: [3, 0, 7],
            nctaid: [4, 1, 8],
        };
        let at = |n: &str| Sreg::parse(n).unwrap().at(&p);
        assert_eq!(p.linear(), 45);
        assert_eq!(at("%laneid"), Some(13));
        assert_eq!(at("%warpid"), Some(1));
        assert_eq!(at("%tid.y"), Some(1));
        assert_eq!(at("%ntid.x"), Some(40));
        assert_eq!(at("%ctaid.z"), Some(7));
        assert_eq!(at("%nctaid.z"), Some(8));
        assert_eq!(at("%tid.w"), Some(0));
        assert_eq!(at("%smid"), None);
    }
}
