//! Tensor loads that write or signal other CTAs of the cluster:
//!
//! - `.multicast::cluster` (L15008-15012): in a cluster of [`CTAS`], each box is loaded by
//!   thread 0 of a random CTA with a random ctaMask (the first box to every CTA); the box lands
//!   at the same offset in every CTA the mask names, and the complete-tx of its bytes at
//!   `mbar`'s offset in each destination CTA (`.cta_group::1`, the default, L15010), or, with
//!   `.cta_group::2`, in the destination's pair member whose rank has the parity of the CTA
//!   holding `mbar` (L15012; the pair: ranks differing in bit 0, L28150-28162). Every CTA arms
//!   its own mbarrier with the bytes signalled to it, waits for its phase, meets the others at
//!   a cluster barrier (a `.cta_group::2` signal may stand for data in the peer) and stores its
//!   regions, which must hold the boxes whose mask names it and the sentinel elsewhere.
//! - `.cta_group::2` without multicast (L14968): in a cluster of two, each CTA loads boxes into
//!   its own shared memory (CTA 0 one, CTA 1 two) and signals its *peer's* mbarrier (a
//!   `.shared::cluster` address made by `mapa`), as CUTLASS's 2-SM kernels have one CTA's
//!   barrier track both halves; each CTA's phase completes on the peer's bytes, and after the
//!   cluster barrier each CTA's regions hold its own boxes.
//!
//! The expected images are [`super::model`]'s; the signalled CTA is computed here from the
//! manual's rule, never asked of the oracle.

use super::super::ranks::{self, Varying};
use super::model::Map;
use super::{
    copy_out, describe, fill_shared, finish, map_for, place, random_box, region_addr, tensor_instr, wait_phase, Ops,
    REGION, SENTINEL,
};
use crate::kernel::operational::bulk::Region;
use crate::kernel::operational::{header, BuildError, Kernel, Rng, Scenario, THREADS};
use spec::catalog::{Form, PtxVersion};

/// CTAs of a multicast scenario's cluster: two pairs.
pub(super) const CTAS: u32 = 4;

/// Whether `form` is a load with `.multicast::cluster` (a ctaMask operand).
pub(super) fn is_multicast(form: &Form) -> bool {
    form.inputs.iter().any(|o| o.name == "cta_mask")
}

/// Whether `form` is a `.cta_group::2` load into `.shared::cluster` without multicast: its mbar
/// may be the peer's (L14968).
pub(super) fn is_peer_signalled(form: &Form) -> bool {
    form.has("cta_group::2") && !is_multicast(form) && form.var("dst") == Some("shared::cluster")
}

/// The rank whose mbarrier a multicast load's complete-tx for destination `dst` reaches, `mbar`
/// being in CTA `issuer` (L15010-15012).
fn signalled(pair: bool, dst: u32, issuer: u32) -> u32 {
    if pair {
        dst & !1 | issuer & 1
    } else {
        dst
    }
}

/// The kernel's lines by which thread 0 arms `mbar` with `totals[rank]` bytes (after the
/// initialization and its cluster-scope fence, L17341).
fn arm(totals: &[usize]) -> Vec<String> {
    let mut l = vec![
        "mbarrier.init.shared.b64 [mbar], 1;".to_string(),
        "fence.mbarrier_init.release.cluster;".into(),
    ];
    for (r, t) in totals.iter().enumerate() {
        l.push(format!("setp.eq.u32 %p4, %r1, {r};"));
        l.push(format!("@%p4 mov.u32 %r26, {t};"));
    }
    l.push("mbarrier.arrive.expect_tx.shared.b64 %rd10, [mbar], %r26;".into());
    l
}

/// The boxes' regions, stored to `out` by every CTA; their expected bytes for each of `ctas`
/// ranks: box i's image where `holds(i, rank)`, the sentinel elsewhere.
fn dump(
    k: &mut Kernel,
    images: &[Vec<u8>],
    holds: impl Fn(usize, u32) -> bool,
    why: impl Fn(usize) -> String,
    ctas: u32,
) -> Result<Vec<Varying>, BuildError> {
    let mut v = Vec::new();
    for (i, img) in images.iter().enumerate() {
        if img.len() % 16 != 0 {
            return Err(BuildError(format!(
                "a box of {} bytes: not whole 16-byte checks",
                img.len()
            )));
        }
        let base = k.out;
        k.out += img.len().div_ceil(64) * 64;
        copy_out(k, i * REGION, base, img.len(), false);
        let per_rank = (0..ctas)
            .map(|r| {
                if holds(i, r) {
                    Region::new(img.clone(), &why(i))
                } else {
                    Region::new(
                        SENTINEL.to_le_bytes().repeat(img.len() / 4),
                        "the sentinel: no box was delivered to this CTA here",
                    )
                }
            })
            .collect();
        v.push(Varying {
            base,
            per_rank,
            what: format!("region {i} of the CTA after the phase and the cluster barrier"),
        });
    }
    Ok(v)
}

/// The multicast scenario (module doc).
pub(super) fn multicast(form: &Form, rng: &mut Rng) -> Result<Scenario, BuildError> {
    let r = super::rank(form)?;
    let mode = form.var("mode").unwrap_or("");
    let pair = form.has("cta_group::2");
    let m = map_for(rng, form, 1, r, mode, None);
    let im2col = mode.starts_with("im2col");
    let boxes: Vec<(Vec<i32>, Vec<u16>)> = (0..2).map(|b| random_box(rng, &m, b == 0, im2col)).collect();
    let all = (1u32 << CTAS) - 1;
    let plan: Vec<(u32, u32)> = (0..boxes.len())
        .map(|i| {
            let issuer = rng.range(0, CTAS - 1);
            let mask = if i == 0 {
                all
            } else {
                let mk = rng.range(1, all - 1);
                if mk == 1 << issuer {
                    all ^ mk
                } else {
                    mk
                }
            };
            (issuer, mask)
        })
        .collect();
    let input = super::data(rng, m.span(), m.ty);
    let bb = m.box_bytes();
    let totals: Vec<usize> = (0..CTAS)
        .map(|c| {
            plan.iter()
                .map(|&(issuer, mask)| {
                    (0..CTAS)
                        .filter(|&d| mask >> d & 1 == 1 && signalled(pair, d, issuer) == c)
                        .count()
                        * bb
                })
                .sum()
        })
        .collect();
    let mut k = Kernel::new();
    ranks::prologue(&mut k);
    fill_shared(&mut k, boxes.len() * REGION, true);
    k.by(0, 1, &arm(&totals));
    k.by(0, THREADS, &ranks::cluster_sync());
    let mut l = Vec::new();
    for (i, ((c, o), &(issuer, mask))) in boxes.iter().zip(&plan).enumerate() {
        let (coords, im2col_ops) = place(&mut l, c, o);
        region_addr(&mut l, i);
        l.push(format!("mov.b16 %rs5, {mask:#x};"));
        l.push(format!("setp.eq.u32 %p4, %r1, {issuer};"));
        let line = tensor_instr(
            form,
            &Ops {
                smem: "%rd12".into(),
                map: "%rd30".into(),
                coords,
                im2col: im2col_ops,
                ..Ops::default()
            },
        )?;
        l.push(format!("@%p4 {line}"));
    }
    k.by(0, 1, &l);
    wait_phase(&mut k, "the complete-tx signals multicast to this CTA's mbar");
    k.by(0, THREADS, &ranks::cluster_sync());
    let images: Vec<Vec<u8>> = boxes.iter().map(|(c, o)| m.load(&input, c, o)).collect();
    let varying = dump(
        &mut k,
        &images,
        |i, rk| plan[i].1 >> rk & 1 == 1,
        |i| {
            format!(
                "box {i} at {:?}, multicast by CTA {} with ctaMask {:#06b} (L15008): the model's image (L2146-2190, L2574-3046)",
                boxes[i].0, plan[i].0, plan[i].1
            )
        },
        CTAS,
    )?;
    k.by(0, THREADS, &ranks::cluster_sync());
    let part = k.out;
    let described: Vec<String> = plan.iter().map(|(i, mk)| format!("CTA {i} to {mk:#06b}")).collect();
    let how = format!(
        "multicast loads in a cluster of {CTAS} ({}; complete-tx to {}): {}",
        described.join(", "),
        if pair {
            "each destination's pair member of the issuer's parity, L15012"
        } else {
            "each destination, L15010"
        },
        describe(&m, &boxes)
    );
    let head = header(form, 90, PtxVersion(8, 0));
    let s = finish(k, form, &how, head, &[(&m, "in")], &input, Vec::new());
    Ok(ranks::spread(s, CTAS, part, &varying))
}

/// The `.cta_group::2` peer scenario (module doc): a cluster of two; CTA 0 loads box 0 into
/// its region 0, CTA 1 boxes 0 and 1 into its regions 0 and 1, each signalling the other's
/// mbar, so the two phases track different byte counts (2 boxes for CTA 0's, 1 for CTA 1's)
/// and a load signalling its own CTA's mbarrier breaks both.
pub(super) fn peer(form: &Form, rng: &mut Rng) -> Result<Scenario, BuildError> {
    let r = super::rank(form)?;
    let mode = form.var("mode").unwrap_or("");
    let m: Map = map_for(rng, form, 1, r, mode, None);
    let im2col = mode.starts_with("im2col");
    let boxes: Vec<(Vec<i32>, Vec<u16>)> = (0..2).map(|b| random_box(rng, &m, b == 0, im2col)).collect();
    let input = super::data(rng, m.span(), m.ty);
    let bb = m.box_bytes();
    let mut k = Kernel::new();
    ranks::prologue(&mut k);
    fill_shared(&mut k, 2 * REGION, true);
    // CTA 0's mbar receives CTA 1's two boxes, CTA 1's CTA 0's one.
    k.by(0, 1, &arm(&[2 * bb, bb]));
    k.by(0, THREADS, &ranks::cluster_sync());
    let mut l = vec![
        "xor.b32 %r27, %r1, 1;".to_string(),
        "mov.u64 %rd11, mbar;".into(),
        "mapa.shared::cluster.u64 %rd11, %rd11, %r27;".into(),
    ];
    let skip = k.label();
    for (i, (c, o)) in boxes.iter().enumerate() {
        if i == 1 {
            // Only CTA 1 loads the second box.
            l.push("setp.eq.u32 %p4, %r1, 0;".into());
            l.push(format!("@%p4 bra {skip};"));
        }
        let (coords, im2col_ops) = place(&mut l, c, o);
        region_addr(&mut l, i);
        l.push(tensor_instr(
            form,
            &Ops {
                smem: "%rd12".into(),
                map: "%rd30".into(),
                coords,
                im2col: im2col_ops,
                mbar: Some("[%rd11]".into()),
                ..Ops::default()
            },
        )?);
    }
    l.push(format!("{skip}:"));
    k.by(0, 1, &l);
    wait_phase(
        &mut k,
        "the complete-tx of the peer's boxes, signalled to this CTA's mbar (L14968)",
    );
    // This CTA's boxes were signalled to the peer: the peer's wait and the cluster barrier
    // order them before this CTA reads them.
    k.by(0, THREADS, &ranks::cluster_sync());
    let images: Vec<Vec<u8>> = boxes.iter().map(|(c, o)| m.load(&input, c, o)).collect();
    let varying = dump(
        &mut k,
        &images,
        |i, rk| rk == 1 || i == 0,
        |i| {
            format!(
                "box {i} at {:?}, loaded by this CTA with .cta_group::2, its complete-tx on the peer's mbar (L14968): the model's image",
                boxes[i].0
            )
        },
        2,
    )?;
    k.by(0, THREADS, &ranks::cluster_sync());
    let part = k.out;
    let how = format!(
        "a cluster of 2, CTA 0 loading one box and CTA 1 two, each signalling the peer's mbar (.cta_group::2): {}",
        describe(&m, &boxes)
    );
    let head = header(form, 90, PtxVersion(8, 0));
    let s = finish(k, form, &how, head, &[(&m, "in")], &input, Vec::new());
    Ok(ranks::spread(s, 2, part, &varying))
}

#[cfg(test)]
mod tests {
    use super::signalled;
    use crate::backend::{oracle::Oracle, Backend, Options};
    use crate::kernel::operational::{forms, scenarios};
    use spec::catalog::catalog;

    /// L15012 by hand: with `.cta_group::2`, destination 2 of a load whose mbar is in CTA 1
    /// (odd) signals CTA 3; destination 1 from CTA 2 (even) signals CTA 0.
    #[test]
    fn the_pair_member_by_hand() {
        assert_eq!(signalled(true, 2, 1), 3);
        assert_eq!(signalled(true, 1, 2), 0);
        assert_eq!(signalled(true, 3, 3), 3);
        assert_eq!(signalled(false, 2, 1), 2);
    }

    /// The cluster scenarios of a few forms pass on the oracle.
    #[test]
    fn cluster_scenarios_pass_on_the_oracle() {
        let cat = catalog();
        let oracle = Oracle::new(&Options::default());
        let mut seen = 0;
        for i in forms() {
            let f = &cat.forms[i];
            let k = f.name.clone();
            let want = [
                "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster",
                "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster",
                "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2",
                "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2",
                "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes.cta_group::2",
            ];
            if !want.contains(&k.as_str()) {
                continue;
            }
            seen += 1;
            let all = scenarios(f, 1).unwrap();
            let s = all.last().unwrap();
            assert!(s.job.cluster.is_some(), "{k}");
            let bufs = oracle.run(&s.job).unwrap_or_else(|e| panic!("{k}: {e}\n{}", s.job.ptx));
            let broken = s.judge(&bufs).unwrap();
            assert!(
                broken.is_empty(),
                "{k}: {:?}\n{}",
                broken.first().map(|b| &s.checks[b.check].what),
                s.job.ptx
            );
        }
        assert_eq!(seen, 5);
    }
}
