//! `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster`
//! delivering to the other CTAs of a cluster, as CUTLASS's multicast TMA does (L14533): "the
//! source data is multicast to the same CTA-relative offset as dstMem in the shared memory of
//! each destination CTA", and the mbarrier signal "to the same CTA-relative offset as mbar".
//!
//! A cluster of [`CTAS`]: every CTA fills its `sm` with the sentinel, initializes its `mbar`
//! and sets its tx-count with `arrive.expect_tx` to the bytes it receives (each CTA's total
//! differs: the masks differ); a cluster barrier orders every initialization before any copy;
//! then thread 0 of each copy's issuing CTA (a random one, not always the receiver) issues it
//! with its ctaMask, every CTA waits for its own phase and stores its `sm`, which must hold
//! exactly the copies whose mask names it.

use super::super::ranks::{self, Varying};
use super::{
    decls, init_mbar, layout, prologue, wait_phase, words, BuildError, Kernel, Region, Rng, Scenario, REGION, SENTINEL,
    THREADS,
};
use crate::kernel::operational::instr;
use spec::catalog::{Form, PtxVersion, Target};

/// CTAs of the cluster.
pub(super) const CTAS: u32 = 4;

/// The scenario (see the module doc): three copies of `in` bytes, the first to every CTA,
/// the other two to random sets of CTAs that are not only the issuer.
pub(super) fn to_cluster(form: &Form, rng: &mut Rng, head: (PtxVersion, Target)) -> Result<Scenario, BuildError> {
    let input = rng.bytes(REGION as usize);
    let ops = layout(rng);
    let plan: Vec<(u32, u32)> = (0..ops.len())
        .map(|j| {
            let issuer = rng.range(0, CTAS - 1);
            let all = (1 << CTAS) - 1;
            let mask = if j == 0 {
                all
            } else {
                // Any set of CTAs but the issuer alone (which the own-CTA scenario covers).
                let m = rng.range(1, all - 1);
                if m == 1 << issuer {
                    all ^ m
                } else {
                    m
                }
            };
            (issuer, mask)
        })
        .collect();
    let mut k = Kernel::new();
    ranks::prologue(&mut k);
    prologue(&mut k);
    // The destination and mbar as `.shared::cluster` addresses of the issuing CTA: the offsets
    // every destination CTA receives at.
    k.line("mapa.shared::cluster.u64 %rd12, %rd5, %r1;");
    k.line("mapa.shared::cluster.u64 %rd13, %rd7, %r1;");
    let mut fill = words(|_| None, |o| format!("st.shared.b32 [%rd14+{o}], %r14;"));
    fill.push("fence.proxy.async.shared::cta;".into());
    k.by(0, THREADS, &fill);
    init_mbar(&mut k);
    let totals: Vec<u32> = (0..CTAS)
        .map(|r| {
            ops.iter()
                .zip(&plan)
                .filter(|(_, (_, m))| m >> r & 1 == 1)
                .map(|(o, _)| o.2)
                .sum()
        })
        .collect();
    let mut arm = Vec::new();
    for (r, t) in totals.iter().enumerate() {
        arm.push(format!("setp.eq.u32 %p4, %r1, {r};"));
        arm.push(format!("@%p4 mov.u32 %r22, {t};"));
    }
    arm.push("mbarrier.arrive.expect_tx.shared::cta.b64 %rd10, [mbar], %r22;".into());
    k.by(0, 1, &arm);
    // Every CTA's mbar initialized and armed before any copy signals it.
    k.by(0, THREADS, &ranks::cluster_sync());
    let mut issue = Vec::new();
    for (j, (&(d, s, size), &(issuer, mask))) in ops.iter().zip(&plan).enumerate() {
        issue.push(format!("setp.eq.u32 %p4, %r1, {issuer};"));
        issue.push(format!("mov.b16 %rs1, {mask:#x};"));
        let size_op = if j == 1 {
            issue.push(format!("mov.u32 %r21, {size};"));
            "%r21".to_string()
        } else {
            size.to_string()
        };
        let line = instr(
            form,
            &[
                ("dst", format!("[%rd12+{d}]")),
                ("src", format!("[%rd1+{s}]")),
                ("size", size_op),
                ("mbar", "[%rd13]".into()),
                ("cta_mask", "%rs1".into()),
            ],
        )?;
        issue.push(format!("@%p4 {line}"));
    }
    k.by(0, 1, &issue);
    wait_phase(
        &mut k,
        0,
        "the CTA's phase, tracking the bytes multicast to it (L14533, L14529)",
    );
    let base = k.out;
    k.out += REGION as usize;
    let dump = words(
        |o| Some(format!("ld.shared.b32 %r15, [%rd14+{o}];")),
        |o| format!("st.global.b32 [%rd4+{}], %r15;", base as u32 + o),
    );
    k.by(0, THREADS, &dump);
    // No CTA exits while a copy may still write another's shared memory (L89).
    k.by(0, THREADS, &ranks::cluster_sync());
    let per_rank = (0..CTAS)
        .map(|r| {
            let mut region = Region::filled(SENTINEL);
            for (j, (&(d, s, size), &(issuer, mask))) in ops.iter().zip(&plan).enumerate() {
                if mask >> r & 1 == 1 {
                    region.write(
                        d as usize,
                        &input[s as usize..(s + size) as usize],
                        None,
                        &format!(
                            "copy {j} of {size} bytes from in+{s:#x}, issued by CTA {issuer} with ctaMask {mask:#06b} (L14533)"
                        ),
                    );
                }
            }
            region
        })
        .collect();
    let part = k.out;
    let described: Vec<String> = ops
        .iter()
        .zip(&plan)
        .map(|(o, (i, m))| format!("{} bytes by CTA {i} to {m:#06b}", o.2))
        .collect();
    let how = format!(
        "multicast copies in a cluster of {CTAS}: {}; each CTA's mbar armed with the bytes it receives",
        described.join(", ")
    );
    let s = k.finish(form, &how, head, &decls(), &input);
    Ok(ranks::spread(
        s,
        CTAS,
        part,
        &[Varying {
            base,
            per_rank,
            what: "sm of the CTA after its phase completed: the copies whose ctaMask names it, the sentinel elsewhere"
                .into(),
        }],
    ))
}

#[cfg(test)]
mod tests {
    use crate::backend::{oracle::Oracle, Backend, Options};
    use crate::kernel::operational::{forms, key, scenarios, Rule};
    use spec::catalog::catalog;

    /// The multicast form's cluster scenario passes on the oracle, and its CTAs expect
    /// different bytes: some CTA's region holds the sentinel where another's holds a copy.
    #[test]
    fn multicast_reaches_the_cluster_on_the_oracle() {
        let cat = catalog();
        let f = forms()
            .into_iter()
            .map(|i| &cat.forms[i])
            .find(|f| key(f) == "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster")
            .expect("the multicast form");
        let all = scenarios(f, 1).unwrap();
        let s = all
            .iter()
            .find(|s| s.job.cluster == Some([4, 1, 1]))
            .expect("a cluster scenario");
        let bufs = Oracle::new(&Options::default()).run(&s.job).expect("runs");
        assert_eq!(s.judge(&bufs).unwrap(), Vec::new());
        let sentinel = |c: &&crate::kernel::operational::Check| c.rule == Rule::Bytes(vec![0xa5; 16]);
        let per_cta: Vec<usize> = (0..4)
            .map(|r| {
                s.checks
                    .iter()
                    .filter(|c| c.what.starts_with(&format!("CTA {r}: sm")))
                    .filter(sentinel)
                    .count()
            })
            .collect();
        assert!(per_cta.iter().any(|&n| n != per_cta[0]), "{per_cta:?}");
    }
}
