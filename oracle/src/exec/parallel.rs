//! Multi-CTA execution (issue 18): a launch's clusters (each CTA its own cluster without cluster
//! dimensions) run on [`Machine::workers`] host threads, with buffers, [`Stats`] and errors
//! identical to running them one after another in order x, then y, then z.
//!
//! Optimistic execution, committed in order. Clusters go in batches; at a batch's start every
//! worker's copy of global memory equals the real one (the committed state). Each worker takes
//! the batch's clusters in turn and runs them on its copy with [`Global::track`] on: what they
//! read and wrote is logged, the bytes written are kept, and the writes are undone, so the next
//! cluster sees the committed state again. Then the batch is committed in cluster order: a
//! cluster whose run ended normally, read no byte that an earlier cluster of the batch wrote, and
//! keeps the launch's running step count within its limit ran exactly as it would have in order
//! (its inputs are the committed state's, and nothing else it depends on lives outside global
//! memory and the cluster), so its writes, counts and audit marks are applied. Any other cluster
//! (it read a byte an earlier one wrote, ended in an error, or passes the step limit) is run again
//! on the real memory with the launch's running count: the sequential run itself, error and all.
//! Atomics read and write through the same path, so CTAs that meet at a counter are re-run in
//! order; a batch where most clusters had to be re-run ends the speculation, and the rest of the
//! launch runs in order.
//!
//! A speculative run may read stale memory and loop where the ordered run would not (a CTA
//! spinning on a flag an earlier CTA sets): unless it is the batch's first cluster (which cannot
//! be stale), its run is stopped past [`SPIN_FACTOR`] times the largest cluster completed so far,
//! and re-run in order.
//!
//! Programs with state outside global memory and the cluster run in order: a `discard` (the
//! bytes it made undefined are the machine's, `exec/control.rs`).
//!
//! Cost: every worker but the main thread holds a copy of global memory (the launch's memory
//! check counts one; workers are limited to as many copies as the memory limit holds), and a
//! batch keeps its clusters' written bytes until it is committed.

use super::{Launch, Machine, Op, Stats};
use crate::cluster::Geometry;
use crate::error::Result;
use crate::mem::Span;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// Clusters per worker in a batch: enough that the wait for a batch's slowest cluster is small,
/// few enough that a conflict costs little.
const PER_WORKER: usize = 16;

/// A speculative run stops past this many times the thread-instructions of the largest cluster
/// completed so far (at least [`SPIN_FLOOR`] times it).
const SPIN_FACTOR: u64 = 16;
const SPIN_FLOOR: u64 = 1 << 16;

/// What stops a speculative run early ([`Machine::watch`]); checked once per round of the
/// cluster's warps.
pub(super) struct Watch {
    /// Thread-instructions of the largest cluster of the launch completed so far (0: none yet).
    seen: Arc<AtomicU64>,
    /// Thread-instructions left to the launch when the batch began: a run past them fails in
    /// order too.
    cap: u64,
    /// The batch's first cluster: its inputs are the committed state, it cannot spin on stale
    /// memory.
    exact: bool,
}

impl Watch {
    /// Whether a run that has executed `steps` thread-instructions should stop.
    pub(super) fn over(&self, steps: u64) -> bool {
        if steps > self.cap {
            return true;
        }
        let seen = self.seen.load(Ordering::Relaxed);
        !self.exact && seen > 0 && steps > SPIN_FACTOR * seen.max(SPIN_FLOOR)
    }
}

/// A cluster's speculative run.
struct Spec {
    /// It ran to its end (an error, or a stop by its watch, is run again in order).
    ok: bool,
    stats: Stats,
    /// The bytes it read, sorted and disjoint.
    reads: Vec<Span>,
    /// The bytes it wrote and their final values.
    writes: Vec<(Span, Vec<u8>)>,
    /// Its audit marks ([`Machine::audit`]): instruction and level, the nonzero ones.
    marks: Vec<(usize, u8)>,
}

/// A batch of clusters `[next, end)` the workers take in turn.
struct Batch {
    next: AtomicUsize,
    start: usize,
    end: usize,
    /// The bytes the previous batch committed: a worker's copy takes them before it runs.
    sync: Vec<(Span, Vec<u8>)>,
    seen: Arc<AtomicU64>,
    cap: u64,
}

impl Batch {
    fn claim(&self) -> Option<usize> {
        let j = self.next.fetch_add(1, Ordering::Relaxed);
        (j < self.end).then_some(j)
    }

    fn watch(&self, j: usize) -> Watch {
        Watch {
            seen: self.seen.clone(),
            cap: self.cap,
            exact: j == self.start,
        }
    }
}

/// Disjoint, non-adjacent spans of global memory: `(allocation, lo) → hi`.
#[derive(Default)]
struct SpanSet(BTreeMap<(usize, usize), usize>);

impl SpanSet {
    /// Whether `s` shares a byte with the set.
    fn meets(&self, s: Span) -> bool {
        // The one span that can: the last starting before `s` ends.
        self.0
            .range(..(s.k, s.hi))
            .next_back()
            .is_some_and(|(&(k, _), &hi)| k == s.k && hi > s.lo)
    }

    fn insert(&mut self, s: Span) {
        let (mut lo, mut hi) = (s.lo, s.hi);
        let touching: Vec<(usize, usize)> = self
            .0
            .range((s.k, 0)..=(s.k, s.hi))
            .rev()
            .take_while(|(_, &h)| h >= s.lo)
            .map(|(&key, _)| key)
            .collect();
        for key in touching {
            let h = self.0.remove(&key).unwrap_or(key.1);
            lo = lo.min(key.1);
            hi = hi.max(h);
        }
        self.0.insert((s.k, lo), hi);
    }

    fn spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.0.iter().map(|(&(k, lo), &hi)| Span { k, lo, hi })
    }
}

/// Cluster number `j` of a launch of `n` clusters per dimension: x first, then y, then z.
fn cluster_id(j: usize, n: [u32; 3]) -> [u32; 3] {
    let (nx, ny) = (n[0] as usize, n[1] as usize);
    [(j % nx) as u32, (j / nx % ny) as u32, (j / (nx * ny)) as u32]
}

impl<'p> Machine<'p> {
    /// Runs every cluster of a launch, in order or on [`Machine::workers`] threads with the same
    /// results (the module doc).
    pub(super) fn run_clusters(&mut self, l: &Launch, entry: usize, geo: Geometry, stats: &mut Stats) -> Result<()> {
        let n = geo.nclusterid();
        let total = n.iter().map(|&d| d as usize).product::<usize>();
        // The copies of global memory the workers past the first hold stay within the launch's
        // memory limit, as the run in order does.
        let global: u64 = self.global.regions.iter().map(|r| r.data.len() as u64).sum();
        let copies = (l.limits.memory / global.max(1)).saturating_add(1);
        let workers = self.workers.min(total).min(copies.min(usize::MAX as u64) as usize);
        let mut next = 0;
        if workers > 1 && self.may_speculate() {
            next = self.run_parallel(l, entry, geo, workers, stats)?;
        }
        for j in next..total {
            self.run_cluster(l, entry, geo, cluster_id(j, n), stats)?;
        }
        Ok(())
    }

    /// Whether a speculative run of a cluster that has executed `steps` thread-instructions
    /// should stop ([`Watch`]): every executor asks between rounds of its warps.
    pub(super) fn speculation_over(&self, steps: u64) -> bool {
        self.watch.as_ref().is_some_and(|w| w.over(steps))
    }

    /// Whether every effect of a cluster on what later clusters see is in global memory: not
    /// with a `discard` (the bytes it makes undefined are the machine's).
    fn may_speculate(&self) -> bool {
        self.discarded.is_empty()
            && !self
                .prog
                .code
                .iter()
                .any(|i| matches!(i.op, Op::L2Line { discard: true, .. }))
    }

    /// A worker's machine: a copy of global memory, the same program and settings.
    fn fork(&self) -> Machine<'p> {
        Machine {
            prog: self.prog,
            global: self.global.clone(),
            constant: self.constant.clone(),
            perturb: self.perturb,
            audit: self.audit.as_ref().map(|a| vec![0; a.len()]),
            undefined_fill: self.undefined_fill,
            writes: Default::default(),
            discarded: Default::default(),
            engine: self.engine,
            workers: 1,
            watch: None,
            // The workers count their own clusters: the launch's count is the clusters this
            // machine ran itself (`Machine::lanes_count`).
            lanes_count: Default::default(),
            lanes_plan: self.lanes_plan.clone(),
        }
    }

    /// Runs the launch's clusters in batches on `workers` threads (this one included), committing
    /// them in order; the number of clusters done, from which the rest run in order.
    fn run_parallel(
        &mut self,
        l: &Launch,
        entry: usize,
        geo: Geometry,
        workers: usize,
        stats: &mut Stats,
    ) -> Result<usize> {
        let n = geo.nclusterid();
        let total = n.iter().map(|&d| d as usize).product::<usize>();
        let seen = Arc::new(AtomicU64::new(0));
        let forks: Vec<Machine<'p>> = (1..workers).map(|_| self.fork()).collect();
        std::thread::scope(|s| {
            let (res_tx, res_rx) = mpsc::channel::<(usize, Spec)>();
            let mut jobs = Vec::new();
            let mut handles = Vec::new();
            for mut w in forks {
                let (tx, rx) = mpsc::channel::<Arc<Batch>>();
                let res_tx = res_tx.clone();
                handles.push(s.spawn(move || {
                    for b in rx {
                        for (span, data) in &b.sync {
                            w.global.put(*span, data);
                        }
                        while let Some(j) = b.claim() {
                            let spec = speculate(&mut w, l, entry, geo, cluster_id(j, n), b.watch(j));
                            if res_tx.send((j, spec)).is_err() {
                                return;
                            }
                        }
                    }
                }));
                jobs.push(tx);
            }
            drop(res_tx);
            let mut sync = Vec::new();
            let mut start = 0;
            while start < total {
                let end = (start + workers * PER_WORKER).min(total);
                let batch = Arc::new(Batch {
                    next: AtomicUsize::new(start),
                    start,
                    end,
                    sync: std::mem::take(&mut sync),
                    seen: seen.clone(),
                    cap: l.limits.steps.saturating_sub(stats.thread_instructions),
                });
                for tx in &jobs {
                    // A worker that has gone is noticed below, when its results do not come.
                    let _ = tx.send(batch.clone());
                }
                let mut specs: Vec<Option<Spec>> = (start..end).map(|_| None).collect();
                let mut got = 0;
                // This thread works on the real memory, its audit set aside.
                let audit = self.audit.take();
                self.audit = audit.as_ref().map(|a| vec![0; a.len()]);
                while let Some(j) = batch.claim() {
                    specs[j - start] = Some(speculate(self, l, entry, geo, cluster_id(j, n), batch.watch(j)));
                    got += 1;
                }
                self.audit = audit;
                while got < end - start {
                    match res_rx.recv_timeout(Duration::from_millis(100)) {
                        Ok((j, spec)) => {
                            specs[j - start] = Some(spec);
                            got += 1;
                        }
                        Err(mpsc::RecvTimeoutError::Timeout) => {
                            // Only a panic ends a worker before its channel closes.
                            assert!(
                                !handles.iter().any(|h| h.is_finished()),
                                "a worker of the multi-CTA execution panicked"
                            );
                        }
                        Err(mpsc::RecvTimeoutError::Disconnected) => {
                            panic!("the workers of the multi-CTA execution are gone")
                        }
                    }
                }
                // Commit in order.
                let mut dirty = SpanSet::default();
                let mut reruns = 0;
                for (j, spec) in (start..end).zip(specs) {
                    let spec = spec.expect("every cluster of the batch ran");
                    let before = stats.thread_instructions;
                    let valid = spec.ok
                        && before + spec.stats.thread_instructions <= l.limits.steps
                        && !spec.reads.iter().any(|&r| dirty.meets(r));
                    if valid {
                        for (span, data) in &spec.writes {
                            self.global.put(*span, data);
                            dirty.insert(*span);
                        }
                        stats.thread_instructions += spec.stats.thread_instructions;
                        stats.warp_instructions += spec.stats.warp_instructions;
                        if let Some(a) = &mut self.audit {
                            for &(pc, level) in &spec.marks {
                                a[pc] = a[pc].max(level);
                            }
                        }
                    } else {
                        reruns += 1;
                        self.global.track();
                        let r = self.run_cluster(l, entry, geo, cluster_id(j, n), stats);
                        let log = self.global.untrack();
                        r?;
                        for span in log.write_set() {
                            dirty.insert(span);
                        }
                    }
                    seen.fetch_max(stats.thread_instructions - before, Ordering::Relaxed);
                }
                sync = dirty
                    .spans()
                    .map(|span| (span, self.global.bytes(span).to_vec()))
                    .collect();
                let ran = end - start;
                start = end;
                if reruns * 2 > ran {
                    // Mostly in conflict: the clusters meet in memory, in order is faster.
                    break;
                }
            }
            Ok(start)
        })
    }
}

/// Runs cluster `id` on `m` from its current memory, logging what it reads and writes, then
/// undoes its writes.
fn speculate(m: &mut Machine, l: &Launch, entry: usize, geo: Geometry, id: [u32; 3], watch: Watch) -> Spec {
    let mut stats = Stats::default();
    let seen = watch.seen.clone();
    m.watch = Some(watch);
    m.global.track();
    let ok = m.run_cluster(l, entry, geo, id, &mut stats).is_ok();
    let log = m.global.untrack();
    m.watch = None;
    if ok {
        // What a cluster takes bounds the runs that may spin on stale memory, from now on.
        seen.fetch_max(stats.thread_instructions, Ordering::Relaxed);
    }
    let writes = if ok {
        log.write_set()
            .into_iter()
            .map(|s| (s, m.global.bytes(s).to_vec()))
            .collect()
    } else {
        Vec::new()
    };
    log.undo(&mut m.global);
    let mut marks = Vec::new();
    if let Some(a) = &mut m.audit {
        for (pc, level) in a.iter_mut().enumerate() {
            if *level > 0 {
                marks.push((pc, std::mem::take(level)));
            }
        }
    }
    Spec {
        ok,
        stats,
        reads: if ok { log.read_set() } else { Vec::new() },
        writes,
        marks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(k: usize, lo: usize, hi: usize) -> Span {
        Span { k, lo, hi }
    }

    #[test]
    fn a_span_set_meets_exactly_the_spans_sharing_a_byte() {
        let mut d = SpanSet::default();
        d.insert(span(1, 10, 20));
        d.insert(span(1, 30, 40));
        d.insert(span(0, 100, 200));
        assert!(!d.meets(span(1, 0, 10)) && !d.meets(span(1, 20, 30)) && !d.meets(span(1, 40, 50)));
        assert!(d.meets(span(1, 19, 21)) && d.meets(span(1, 0, 100)) && d.meets(span(1, 39, 40)));
        assert!(!d.meets(span(2, 10, 20)) && !d.meets(span(0, 10, 20)) && d.meets(span(0, 150, 151)));
        // Joining: adjacent and overlapping spans become one.
        d.insert(span(1, 20, 30));
        d.insert(span(1, 35, 45));
        assert_eq!(d.spans().collect::<Vec<_>>(), vec![span(0, 100, 200), span(1, 10, 45)]);
    }

    #[test]
    fn clusters_are_numbered_x_then_y_then_z() {
        let ids: Vec<[u32; 3]> = (0..12).map(|j| cluster_id(j, [3, 2, 2])).collect();
        assert_eq!(ids[..4], [[0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 1, 0]]);
        assert_eq!(ids[6], [0, 0, 1]);
        assert_eq!(ids[11], [2, 1, 1]);
    }
}
