//! Scenarios of several CTAs in one cluster whose observations differ from CTA to CTA: each
//! CTA stores to its own part of `out` (the kernel moves `out` by `%cluster_ctarank` × the
//! part's size, [`prologue`]), the checks every CTA shares are written once for rank 0 and
//! repeated, and the regions whose bytes depend on the rank (what a multicast or a peer's copy
//! left in that CTA's shared memory) get their own expected bytes per rank ([`spread`]).

use super::bulk::{push_checks, Region};
use super::{Check, Scenario};

/// Placeholder of the part's size in the kernel text, known only at the end.
const PART: &str = "@PART@";

/// The first lines of a kernel of several CTAs: `%r1` the CTA's `%cluster_ctarank`, `%rd0`
/// (`out`) and `%rd4` (`out + 4·tid`) moved to the CTA's part.
pub(super) fn prologue(k: &mut super::Kernel) {
    k.line("mov.u32 %r1, %cluster_ctarank;");
    k.line(format!("mul.wide.u32 %rd3, %r1, {PART};"));
    k.line("add.s64 %rd0, %rd0, %rd3;");
    k.line("add.s64 %rd4, %rd4, %rd3;");
}

/// A region of `out` whose expected bytes depend on the CTA: at `base` in each CTA's part,
/// `per_rank[r]` for rank r.
pub(super) struct Varying {
    pub(super) base: usize,
    pub(super) per_rank: Vec<Region>,
    pub(super) what: String,
}

/// The scenario `s` (one CTA's kernel, built with [`prologue`], whose checks hold for every
/// rank at offsets within one part of `part` bytes) launched as one cluster of `n` CTAs along
/// x: its checks repeated per rank, the [`Varying`] regions' checks added per rank, `out`
/// grown to `n` parts (zeros, or the part's initial bytes in every part).
pub(super) fn spread(mut s: Scenario, n: u32, part: usize, varying: &[Varying]) -> Scenario {
    let common = std::mem::take(&mut s.checks);
    for r in 0..n as usize {
        let mut k = super::Kernel::new();
        for v in varying {
            push_checks(&mut k, r * part + v.base, &v.per_rank[r], &v.what);
        }
        s.checks.extend(common.iter().map(|c| Check {
            offset: c.offset + r * part,
            rule: c.rule.clone(),
            what: format!("CTA {r}: {}", c.what),
        }));
        s.checks.extend(k.checks.into_iter().map(|c| Check {
            what: format!("CTA {r}: {}", c.what),
            ..c
        }));
    }
    s.job.ptx = s.job.ptx.replace(PART, &part.to_string());
    s.job.grid = [n, 1, 1];
    s.job.cluster = Some([n, 1, 1]);
    if let Some(b) = s.job.buffers.iter_mut().find(|b| b.name == "out") {
        let first = b
            .hex
            .as_deref()
            .and_then(oracle::launch::decode_hex)
            .unwrap_or_default();
        let mut one = first;
        one.resize(part, 0);
        b.hex = Some(oracle::launch::encode_hex(&one.repeat(n as usize)));
        b.size = None;
    }
    s
}

/// Every thread of every CTA meets at a cluster barrier (`.release`/`.acquire`, the defaults,
/// L17181): the memory accesses of every thread before it (asynchronous operations excepted,
/// L17177) are complete and visible to every thread after it, and no CTA exits while another
/// may still access its shared memory (L89).
pub(super) fn cluster_sync() -> Vec<String> {
    vec![
        "barrier.cluster.arrive.release.aligned;".into(),
        "barrier.cluster.wait.acquire.aligned;".into(),
    ]
}
