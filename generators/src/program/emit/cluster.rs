//! Distributed shared memory inside programs (issue 16): a program that uses it is launched in
//! clusters ([`size`] CTAs each, §2.2.2), and its threads reach another CTA's shared memory
//! through `mapa` (§9.7.9.23) and `ld`/`st` on `.shared::cluster` (or generic addresses), with
//! `getctarank` (§9.7.9.24) and `barrier.cluster` (§9.7.13.3) around the accesses.
//!
//! # Why the programs stay race-free and deterministic
//! - Each exchange takes a fresh shared region (see `asynccopy`). The peer of a CTA is the CTA
//!   `s` ranks further in its cluster (mod the cluster's size), so the peers form a
//!   permutation: in a remote store, each slot of each CTA has exactly one writer.
//! - Remote read: every thread stores its own slot, then `barrier.cluster.arrive` (release by
//!   default, L17183) and `barrier.cluster.wait` (acquire) order every store of the cluster
//!   before the reads of the peer's slots; a second arrive/wait pair orders the reads before
//!   any CTA goes on (and, at the latest, exits: a CTA's shared memory must not be accessed
//!   after it exits, L89).
//! - Remote store: every thread stores into its slot of the peer's region; the arrive/wait
//!   pair orders the stores before the local reads, and before the peer's exit.
//! - The ranks (`%cluster_ctarank`, `getctarank` of a mapped address) are fixed by the launch:
//!   exact values.

use super::{aim, Builder, Det};
use crate::program::Config;
use arbitrary::Result;

/// CTAs per cluster of a program that uses distributed shared memory: 2 when the grid's CTAs
/// pair up, else 1 (a cluster of one: `mapa` then maps to the CTA itself).
pub(in crate::program) fn size(cfg: &Config) -> u32 {
    let ctas = cfg.ctas.clamp(1, 65535);
    if ctas.is_multiple_of(2) {
        2
    } else {
        1
    }
}

/// The `barrier.cluster` arrive/wait pairs the generator uses: the default semantics (release
/// arrive, acquire wait, L17183) spelt out or not, with or without `.aligned`.
pub(super) const BARRIERS: [(&str, &str); 3] = [
    ("barrier.cluster.arrive", "barrier.cluster.wait"),
    ("barrier.cluster.arrive.aligned", "barrier.cluster.wait.aligned"),
    (
        "barrier.cluster.arrive.release.aligned",
        "barrier.cluster.wait.acquire.aligned",
    ),
];

/// The other forms of the exchange.
pub(super) const MAPA: &str = "mapa.shared::cluster.u64";
pub(super) const MAPA_GENERIC: &str = "mapa.u64";
pub(super) const GETCTARANK: &str = "getctarank.shared::cluster.u64";
pub(super) const LD: &str = "ld.shared::cluster.b64";
pub(super) const ST: &str = "st.shared::cluster.b64";

impl Builder<'_, '_> {
    /// One `barrier.cluster` phase: every thread of the cluster arrives, then waits.
    fn cluster_sync(&mut self) -> Result<()> {
        let (arrive, wait) = BARRIERS[self.u.choose_index(BARRIERS.len())?];
        self.line(arrive);
        self.line(wait);
        Ok(())
    }

    /// A remote read or store of 8 bytes per thread between the CTAs of a cluster (see the
    /// module doc), with the peer's rank read back through `getctarank`.
    pub(super) fn cluster_exchange(&mut self) -> Result<bool> {
        for n in [MAPA, GETCTARANK, LD, ST, BARRIERS[0].0, BARRIERS[0].1] {
            if !self.usable(n) {
                return Ok(false);
            }
        }
        if !["%cluster_ctarank", "%cluster_nctarank"]
            .iter()
            .all(|r| aim::scaffold_ok(self.cfg, r))
        {
            return Ok(false);
        }
        let Some(v) = self.pick(64, None)? else {
            return Ok(false);
        };
        let threads = self.threads();
        let Some(base) = self.fresh_region() else {
            return Ok(false);
        };
        self.clustered = true;
        let (rank, n, peer) = (self.pick_dst(32, Det::Exact, false, &[])?, self.temp(32), self.temp(32));
        let s = self.u.int_in_range(0..=3u32)?;
        self.line(&format!("mov.u32 {rank}, %cluster_ctarank"));
        self.line(&format!("mov.u32 {n}, %cluster_nctarank"));
        self.line(&format!("add.u32 {peer}, {rank}, {s}"));
        self.line(&format!("rem.u32 {peer}, {peer}, {n}"));
        let own = self.slot_of(&base, 0, threads);
        let delta = self.u.int_in_range(0..=threads - 1)?;
        let nb = self.slot_of(&base, delta, threads);
        let remote = self.temp(64);
        let generic = self.u.ratio(1, 4)? && self.usable(MAPA_GENERIC);
        let space = if generic {
            // A generic address of the shared slot maps to the peer's as a generic address.
            let g = self.temp(64);
            self.line(&format!("cvta.shared.u64 {g}, {nb}"));
            self.line(&format!("{MAPA_GENERIC} {remote}, {g}, {peer}"));
            ""
        } else {
            self.line(&format!("{MAPA} {remote}, {nb}, {peer}"));
            ".shared::cluster"
        };
        if self.u.arbitrary()? {
            // Remote read: own stores, a cluster barrier, the peer's slot, a barrier so the
            // reads are done before the peer goes on.
            self.line(&format!("st.shared.b64 [{own}], {}", v.name));
            self.cluster_sync()?;
            let d = self.pick_dst(64, v.det, false, &[])?;
            self.line(&format!("ld{space}.b64 {d}, [{remote}]"));
            self.cluster_sync()?;
        } else {
            // Remote store into the peer's slot, a cluster barrier, a local read of what the
            // CTA `s` ranks back stored.
            self.line(&format!("st{space}.b64 [{remote}], {}", v.name));
            self.cluster_sync()?;
            let d = self.pick_dst(64, v.det, false, &[])?;
            self.line(&format!("ld.shared.b64 {d}, [{nb}]"));
        }
        if !generic {
            let r = self.pick_dst(32, Det::Exact, false, &[])?;
            self.line(&format!("{GETCTARANK} {r}, {remote}"));
        }
        Ok(true)
    }
}
