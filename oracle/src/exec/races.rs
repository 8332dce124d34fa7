//! Conflicting plain stores, found only when a launch looks for what it leaves undefined
//! ([`super::Machine::undefined_fill`]): two threads that write different values to one byte
//! with no barrier between them are in a data race (L3901-L3905: conflicting operations not
//! related in causality order), and which value stays is not the manual's to say (L4061: such
//! writes are not related in coherence order). The reference runs a warp's lanes in index
//! order, so the last lane's value stays; hardware may keep another's. A reduced program that
//! depends on that order shows no defect.
//!
//! Barriers are counted per thread (`Thread::syncs`): a byte written by a thread before its
//! k-th barrier and by another after its k-th is ordered by that barrier. Threads of different
//! CTAs are never ordered here (the generator's programs give every thread its own outputs).

use std::collections::HashMap;

/// Which memory a byte is in: global (one for the launch) or a CTA's shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Mem {
    Global,
    Shared([u32; 3]),
}

/// Who wrote a byte last.
#[derive(Clone, Copy, Debug)]
struct Writer {
    cta: [u32; 3],
    thread: u32,
    syncs: u32,
    value: u8,
}

/// The last writer of every byte written so far.
#[derive(Default)]
pub(super) struct Writes {
    last: HashMap<(Mem, u64), Writer>,
}

/// A write that races with an earlier one: where, and the two threads (CTA, linear index).
#[derive(Clone, Debug)]
pub(super) struct Race {
    pub(super) addr: u64,
    pub(super) earlier: ([u32; 3], u32),
}

impl Writes {
    /// Records thread `thread` of CTA `cta` (past `syncs` barriers) writing `data` at `addr`
    /// of `mem`; the first byte whose earlier writer races with this write, if any.
    pub(super) fn record(
        &mut self,
        mem: Mem,
        addr: u64,
        cta: [u32; 3],
        thread: u32,
        syncs: u32,
        data: &[u8],
    ) -> Option<Race> {
        let mut race = None;
        for (k, &value) in data.iter().enumerate() {
            let at = addr + k as u64;
            let now = Writer {
                cta,
                thread,
                syncs,
                value,
            };
            if let Some(p) = self.last.insert((mem, at), now) {
                let other = (p.cta, p.thread) != (cta, thread);
                let unordered = p.cta != cta || p.syncs == syncs;
                if race.is_none() && other && unordered && p.value != value {
                    race = Some(Race {
                        addr: at,
                        earlier: (p.cta, p.thread),
                    });
                }
            }
        }
        race
    }
}
