//! What the sm_100 forms of the tensor copies add to `super::tensor`: the load modes
//! `.tile::gather4`/`.tile::scatter4` and `.im2col::w`/`.im2col::w::128` (the request
//! `spec::tma::plan` takes, [`request`]), and `.cta_group` (which CTA's mbarrier a load
//! signals, [`mbar_rank`]).
//!
//! **`.cta_group`** (L14968, L15010-15012). The CTA pair is two CTAs of the cluster whose
//! `%cluster_ctarank` differ only in bit 0; each is the other's peer (L28150-28162).
//! - Without `.multicast::cluster`: with `.cta_group::1` (the default) mbar must be in the CTA
//!   of dstMem; with `.cta_group::2` it may be there or in that CTA's peer (L14968). Another CTA
//!   is a runtime error naming the rule.
//! - With `.multicast::cluster`: with `.cta_group::1` each destination CTA's mbarrier at mbar's
//!   offset is signalled (L15010); with `.cta_group::2` the destination CTA's or its peer's,
//!   the one whose rank has the parity of the CTA holding mbar (L15012).
//!
//! The signal goes through the cluster's pending list like any bulk completion, so the peer's
//! mbarrier is signalled as the own one is.

use super::Cta;
use crate::error::Result;
use crate::program::TensorMode;
use spec::tma::Request;

/// The `spec::tma` request of a tensor copy in `mode` with the operands' values.
pub(super) fn request<'a>(mode: TensorMode, coords: &'a [i32], info: &'a [u16]) -> Request<'a> {
    match mode {
        TensorMode::Tile => Request::Tile { coords },
        TensorMode::Gather4 => Request::Gather4 { coords },
        TensorMode::Im2col => Request::Im2col { coords, offsets: info },
        TensorMode::Im2colW { w128 } => Request::Im2colWide { coords, info, w128 },
    }
}

/// The rank of the CTA whose mbarrier (at mbar's offset) a load signals for the destination
/// CTA `dst`, mbar being in CTA `mbar` (L14968, L15010-15012); `multicast` for a
/// `.multicast::cluster` load. `Err`: the rule the operands break.
pub(super) fn mbar_rank(pair: bool, multicast: bool, dst: u32, mbar: u32) -> std::result::Result<u32, String> {
    match (multicast, pair) {
        (true, false) => Ok(dst),
        (true, true) => Ok(dst & !1 | mbar & 1),
        (false, false) if mbar == dst => Ok(mbar),
        (false, false) => Err(format!(
            "dstMem lies in the CTA of rank {dst} and mbar in the CTA of rank {mbar}: with `.cta_group::1` (the default) they must be in the same CTA (L14968)"
        )),
        (false, true) if mbar == dst || mbar == dst ^ 1 => Ok(mbar),
        (false, true) => Err(format!(
            "dstMem lies in the CTA of rank {dst} and mbar in the CTA of rank {mbar}: with `.cta_group::2` mbar must be in dstMem's CTA or its peer, rank {} (L14968, L28150-28162)",
            dst ^ 1
        )),
    }
}

impl Cta<'_, '_> {
    /// [`mbar_rank`] for thread `i`'s load at `pc`, its refusal a runtime error there.
    pub(super) fn tensor_mbar_rank(
        &self,
        i: usize,
        pc: u32,
        pair: bool,
        multicast: bool,
        dst: u32,
        mbar: u32,
    ) -> Result<u32> {
        mbar_rank(pair, multicast, dst, mbar).map_err(|m| self.rt_err(i, pc, m))
    }
}

#[cfg(test)]
mod tests {
    use super::mbar_rank;

    #[test]
    fn the_signalled_cta() {
        // No multicast: cta_group::1 needs mbar in dstMem's CTA; ::2 also takes the peer.
        assert_eq!(mbar_rank(false, false, 2, 2), Ok(2));
        assert!(mbar_rank(false, false, 2, 3).unwrap_err().contains("L14968"));
        assert_eq!(mbar_rank(true, false, 2, 3), Ok(3));
        assert_eq!(mbar_rank(true, false, 3, 2), Ok(2));
        assert!(mbar_rank(true, false, 2, 1).unwrap_err().contains("rank 3"));
        // Multicast: ::1 each destination; ::2 the destination's pair member of mbar's parity.
        assert_eq!(mbar_rank(false, true, 5, 0), Ok(5));
        assert_eq!(mbar_rank(true, true, 5, 0), Ok(4));
        assert_eq!(mbar_rank(true, true, 4, 1), Ok(5));
        assert_eq!(mbar_rank(true, true, 6, 2), Ok(6));
    }
}
