//! The async-proxy rule of `wgmma.mma_async`'s shared-memory matrices: "an async proxy fence
//! must be used to establish ordering between prior writes to shared memory matrices and
//! subsequent reads of the same matrices in a `wgmma.mma_async` instruction" (L26398).
//! `wgmma.mma_async` reads through the async proxy (L24880); `st`, atomics and `cp.async` write
//! through the generic proxy (§8.6, L3885: the manual puts only the bulk copies, L14239,
//! `wgmma` and `tcgen05` in the async proxy). Without the fence the read is not ordered after
//! the write (§8.7, morally strong operations share a proxy, L3891-3899), so the values `wgmma`
//! sees are not determined: the oracle reports the read, naming the write, instead of choosing.
//!
//! A generic write of byte `b` by thread `W` is ordered before an async-proxy read when, after
//! the write, either `W` itself executed a `fence.proxy.async` covering shared memory, or some
//! thread of the CTA executed one after a CTA barrier that completed after the write (the write
//! then reaches the fence through the barrier's synchronization; the fence's proxy ordering is
//! cumulative over it, as Triton and CUTLASS place it: `cp.async.wait_group; bar.sync;
//! fence.proxy.async; wgmma`). The second condition does not ask whether the fencing thread
//! took part in that barrier (a named barrier over part of the CTA): the oracle errs on the side
//! of accepting there, never of reporting a program that follows the rule.

/// A generic-proxy write to shared memory that no proxy fence is known to order yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Write {
    /// The writing thread (linear index in the CTA).
    pub thread: u32,
    /// The writing instruction (`st`, an atomic, the `cp.async` whose copy it is).
    pub pc: u32,
    /// CTA barriers completed before the write.
    epoch: u32,
    /// Proxy fences the writer had executed before the write.
    fences: u32,
}

/// The CTA's books for the rule: per shared byte its last unordered generic write, per thread
/// its proxy fences, and the CTA's barrier count.
pub(super) struct Book {
    writes: Vec<Option<Write>>,
    fences: Vec<u32>,
    epoch: u32,
    /// The latest barrier count at which some thread executed a shared-memory proxy fence.
    fenced_at: Option<u32>,
}

impl Book {
    pub fn new(shared_bytes: usize, threads: usize) -> Book {
        Book {
            writes: vec![None; shared_bytes],
            fences: vec![0; threads],
            epoch: 0,
            fenced_at: None,
        }
    }

    /// Thread `thread`'s generic write of `n` shared bytes at `off` by the instruction at `pc`.
    pub fn write(&mut self, thread: usize, pc: u32, off: usize, n: usize) {
        let w = Write {
            thread: thread as u32,
            pc,
            epoch: self.epoch,
            fences: self.fences[thread],
        };
        self.writes[off..off + n].fill(Some(w));
    }

    /// The `n` shared bytes at `off` were written through the async proxy (a bulk copy): no
    /// generic write to them is left to order.
    pub fn clear(&mut self, off: usize, n: usize) {
        self.writes[off..off + n].fill(None);
    }

    /// Thread `thread` executed a `fence.proxy.async` that covers shared memory.
    pub fn fence(&mut self, thread: usize) {
        self.fences[thread] += 1;
        self.fenced_at = Some(self.epoch);
    }

    /// A CTA barrier completed.
    pub fn barrier(&mut self) {
        self.epoch += 1;
    }

    /// The first write among the `n` bytes at `off` that no proxy fence orders before a read
    /// through the async proxy now.
    pub fn unordered(&self, off: usize, n: usize) -> Option<(usize, Write)> {
        self.writes[off..off + n].iter().enumerate().find_map(|(k, w)| {
            let w = (*w)?;
            let by_writer = self.fences[w.thread as usize] > w.fences;
            let after_barrier = self.fenced_at.is_some_and(|e| e > w.epoch);
            (!by_writer && !after_barrier).then_some((off + k, w))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_needs_a_fence_by_its_writer_or_after_a_barrier() {
        let mut b = Book::new(16, 4);
        b.write(1, 7, 4, 4);
        assert_eq!(b.unordered(0, 16).map(|(at, w)| (at, w.thread, w.pc)), Some((4, 1, 7)));
        assert_eq!(b.unordered(8, 8), None, "bytes never written need no fence");
        // Another thread's fence before any barrier does not order thread 1's write.
        b.fence(2);
        assert!(b.unordered(4, 4).is_some());
        // The writer's own fence does.
        b.fence(1);
        assert_eq!(b.unordered(0, 16), None);
        // A new write after that fence needs a new one: a barrier, then any thread's fence.
        b.write(3, 9, 0, 2);
        assert!(b.unordered(0, 2).is_some());
        b.fence(0);
        assert!(b.unordered(0, 2).is_some(), "a fence in the same barrier interval");
        b.barrier();
        assert!(b.unordered(0, 2).is_some(), "a barrier alone is not a proxy fence");
        b.fence(0);
        assert_eq!(b.unordered(0, 2), None);
    }
}
