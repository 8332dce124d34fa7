//! Asynchronous copies (§9.7.9.25.3, `cp.async`) and mbarrier phases (§9.7.13.15) inside
//! programs, emitted at the entry's top level where every thread of the CTA runs them (issue 16).
//!
//! # Why the programs stay race-free and deterministic
//! - Every construct takes a fresh shared region (16 bytes per thread): no earlier reader of the
//!   region can race with the new writes, and no later construct writes it again.
//! - A `cp.async` reads the thread's own input record (read-only, fully initialized) and writes
//!   its own 16-byte slot. A slot is read only after the copy is complete for its writer
//!   (`cp.async.wait_group N` completes every group but the N most recent, L14383, so only
//!   data of an older group is read) and a `bar.sync 0` orders that completion before the
//!   neighbour's read. Each construct ends with `cp.async.wait_all`, so no copy outlives it and
//!   a later construct's `wait_group N` counts only its own groups.
//! - An mbarrier is initialized by thread 0 before a `bar.sync 0` (the init must be visible
//!   before any arrive, L18574), each thread stores its slot, arrives and waits for the phase to
//!   complete — which happens only once every thread has arrived, so the neighbour's store is
//!   ordered before the read. A second phase writes the slot's other half (the first phase's
//!   readers may still be reading the first). A final `bar.sync 0` lets every wait finish
//!   before thread 0's `mbarrier.inval` (an operation on an invalidated object is an error).

use super::{Builder, Det};
use arbitrary::Result;
use spec::catalog::PtxVersion;

/// Shared regions for asynchronous copies and mbarrier phases per program, at most.
pub(super) const REGIONS: u32 = 8;

/// The shared array the regions live in.
pub(super) const REGION_ARRAY: &str = "sha";

/// mbarrier objects per program, at most (each used by one construct, then invalidated).
pub(super) const MBARS: u32 = 4;

/// The shared array of mbarrier objects (`.b64`, 8-byte aligned, L18356).
pub(super) const MBAR_ARRAY: &str = "mbar";

/// The tx-count forms (sm_90).
const EXPECT_TX: &str = "mbarrier.expect_tx.relaxed.cta.shared::cta.b64";
const COMPLETE_TX: &str = "mbarrier.complete_tx.relaxed.cta.shared::cta.b64";

/// The arrive that cannot complete a phase, and the query of its state (§9.7.13.15.17).
const NO_COMPLETE: &str = "mbarrier.arrive.noComplete.shared.b64";
const PENDING_COUNT: &str = "mbarrier.pending_count.b64";

/// Bytes of the thread's input record that every configuration initializes: the record holds
/// at least the 8-, 16-, 32- and 64-bit inputs, 64 bytes with its padding (see `entry`).
const RECORD: u32 = 64;

impl Builder<'_, '_> {
    /// A fresh shared region: the thread's own 16-byte slot and a neighbour's,
    /// `16·((tid + δ) mod threads)` past the region, for a random δ ≠ 0.
    fn region(&mut self) -> Result<Option<(String, String)>> {
        if self.regions >= REGIONS {
            return Ok(None);
        }
        let threads = self.cfg.warps.clamp(1, 32) * 32;
        let at = self.regions * threads * 16;
        self.regions += 1;
        let delta = self.u.int_in_range(1..=threads - 1)?;
        let tid = self.tid.clone();
        let (base, own, nb, off) = (self.temp(64), self.temp(64), self.temp(64), self.temp(64));
        let t = self.temp(32);
        self.line(&format!("mov.u64 {base}, {REGION_ARRAY}"));
        self.line(&format!("add.u64 {base}, {base}, {at}"));
        self.line(&format!("mul.wide.u32 {off}, {tid}, 16"));
        self.line(&format!("add.u64 {own}, {base}, {off}"));
        self.line(&format!("add.u32 {t}, {tid}, {delta}"));
        self.line(&format!("rem.u32 {t}, {t}, {threads}"));
        self.line(&format!("mul.wide.u32 {off}, {t}, 16"));
        self.line(&format!("add.u64 {nb}, {base}, {off}"));
        Ok(Some((own, nb)))
    }

    /// Loads `bytes` (4, 8 or 16) of the shared slot at `addr` into fresh-or-reused exact
    /// registers (16 bytes as a `.v2.b64`).
    fn load_slot(&mut self, addr: &str, bytes: u32, det: Det) -> Result<()> {
        if bytes == 16 {
            let a = self.pick_dst(64, det, false, &[])?;
            let b = self.pick_dst(64, det, false, std::slice::from_ref(&a))?;
            self.line(&format!("ld.shared.v2.b64 {{{a}, {b}}}, [{addr}]"));
        } else {
            let w = bytes * 8;
            let d = self.pick_dst(w, det, false, &[])?;
            self.line(&format!("ld.shared.b{w} {d}, [{addr}]"));
        }
        Ok(())
    }

    /// One `cp.async` of `bytes` from a random aligned offset of the thread's input record to
    /// `dst`: `.ca` or (16 bytes only, L14257) `.cg`, sometimes with a src-size or an ignore-src
    /// operand. The caller checked
    /// that `cp.async.ca.shared.global` is usable.
    fn copy(&mut self, dst: &str, bytes: u32) -> Result<()> {
        let cg = bytes == 16 && self.u.arbitrary()? && self.usable("cp.async.cg.shared.global");
        let cache = if cg { "cg" } else { "ca" };
        let cta = self.u.arbitrary()? && self.usable(&format!("cp.async.{cache}.shared::cta.global"));
        let space = if cta { "shared::cta" } else { "shared" };
        let o = bytes * self.u.int_in_range(0..=RECORD / bytes - 1)?;
        // src-size copies fewer bytes and zero-fills the rest (L14273); ignore-src, an exact
        // predicate, copies zeros where it is true (L14275, PTX 7.5): exact either way.
        let src_size = match self.u.int_in_range(0..=7u8)? {
            0 | 1 => format!(", {}", self.u.int_in_range(0..=bytes - 1)?),
            2 if self.cfg.ptx >= PtxVersion(7, 5) => match self.pick_src(1, Det::Exact)? {
                Some(p) => format!(", {p}"),
                None => String::new(),
            },
            _ => String::new(),
        };
        let inp = self.inp.clone();
        self.line(&format!(
            "cp.async.{cache}.{space}.global [{dst}], [{inp}+{o}], {bytes}{src_size}"
        ));
        Ok(())
    }

    /// `cp.async` staging: 1-3 commit groups, each copying 4, 8 or 16 bytes of the thread's
    /// input into its own slot of a fresh region; `cp.async.wait_group N` (or `wait_all`),
    /// `bar.sync 0`, and reads of the neighbour's slots of the groups the wait completed.
    pub(super) fn async_copy(&mut self) -> Result<bool> {
        for n in [
            "cp.async.ca.shared.global",
            "cp.async.commit_group",
            "cp.async.wait_group",
            "cp.async.wait_all",
        ] {
            if !self.usable(n) {
                return Ok(false);
            }
        }
        let groups = self.u.int_in_range(1..=3u32)?;
        if self.regions + groups > REGIONS {
            return Ok(false);
        }
        let mut staged = Vec::new();
        for _ in 0..groups {
            let bytes = [4u32, 8, 16][self.u.choose_index(3)?];
            let Some((own, nb)) = self.region()? else {
                return Ok(false);
            };
            self.copy(&own, bytes)?;
            self.line("cp.async.commit_group");
            staged.push((nb, bytes));
        }
        // Only the groups older than the N most recent are complete after `wait_group N`.
        let pending = self.u.int_in_range(0..=groups - 1)?;
        if pending == 0 && self.u.arbitrary()? {
            self.line("cp.async.wait_all");
        } else {
            self.line(&format!("cp.async.wait_group {pending}"));
        }
        self.line("bar.sync 0");
        for (nb, bytes) in &staged[..(groups - pending) as usize] {
            self.load_slot(nb, *bytes, Det::Exact)?;
        }
        if pending > 0 {
            self.line("cp.async.wait_all");
        }
        Ok(true)
    }

    /// One or two mbarrier phases over the CTA on a fresh barrier and region: thread 0's
    /// `mbarrier.init` with the CTA's thread count, a `bar.sync 0`; per phase every thread
    /// stores into its slot (or copies into it with `cp.async` and arrives for the copy with
    /// `cp.async.mbarrier.arrive`), arrives, spins on `test_wait`/`try_wait`(`.parity`), and
    /// reads the neighbour's slot; then `bar.sync 0` and thread 0's `mbarrier.inval`.
    pub(super) fn mbarrier_phases(&mut self) -> Result<bool> {
        if self.mbars >= MBARS || self.regions >= REGIONS {
            return Ok(false);
        }
        let waits = [
            "mbarrier.test_wait.shared.b64",
            "mbarrier.try_wait.shared.b64",
            "mbarrier.test_wait.parity.shared.b64",
            "mbarrier.try_wait.parity.shared.b64",
        ];
        let wait = waits[self.u.choose_index(waits.len())?];
        for n in [
            "mbarrier.init.shared.b64",
            "mbarrier.arrive.shared.b64",
            "mbarrier.inval.shared.b64",
            wait,
        ] {
            if !self.usable(n) {
                return Ok(false);
            }
        }
        let parity = wait.contains(".parity");
        // The copy's arrival: without `.noinc` it adds one to the pending count itself; with
        // it the init count must include each thread's asynchronous arrival (L18960-19010).
        let copies = self.u.ratio(1, 3)? && self.usable("cp.async.ca.shared.global");
        let noinc = copies && self.u.arbitrary()?;
        let cp_arrive = if noinc {
            "cp.async.mbarrier.arrive.noinc.shared.b64"
        } else {
            "cp.async.mbarrier.arrive.shared.b64"
        };
        let copies = copies && self.usable(cp_arrive) && self.usable("cp.async.wait_all");
        let noinc = copies && noinc;
        let phases = self.u.int_in_range(1..=2u32)?;
        // The last phase may drop every thread's arrival instead (L18616): no phase follows.
        let drop = self.u.ratio(1, 3)? && self.usable("mbarrier.arrive_drop.shared.b64");
        let tx = self.u.ratio(1, 4)? && self.usable(EXPECT_TX) && self.usable(COMPLETE_TX);
        let threads = self.cfg.warps.clamp(1, 32) * 32;
        let count = if noinc { 2 * threads } else { threads };
        // With one phase, thread 0 may first arrive once more with `.noComplete` (the count
        // then includes that arrival; it must not complete the phase, L18767) and read the
        // pending count before it from the state (L19222): the init count, exactly.
        let pending = phases == 1 && self.u.ratio(1, 3)? && self.usable(NO_COMPLETE) && self.usable(PENDING_COUNT);
        let count = count + pending as u32;
        // sm_90 lets an arrive without `.noComplete` give its count (L18805): one, like the plain form.
        let counted = self.cfg.target.sm >= 90 && self.u.ratio(1, 3)?;
        let Some((own, nb)) = self.region()? else {
            return Ok(false);
        };
        let k = self.mbars;
        self.mbars += 1;
        let bar = format!("{MBAR_ARRAY}+{}", 8 * k);
        let (first, c) = (self.temp(1), self.temp(32));
        let tid = self.tid.clone();
        self.line(&format!("setp.eq.u32 {first}, {tid}, 0"));
        self.line(&format!("mov.u32 {c}, {count}"));
        self.line(&format!("@{first} mbarrier.init.shared.b64 [{bar}], {c}"));
        if pending {
            let (state, r) = (self.temp(64), self.pick_dst(32, Det::Exact, false, &[])?);
            self.line(&format!("mov.u32 {r}, 0"));
            self.line(&format!("@{first} {NO_COMPLETE} {state}, [{bar}], 1"));
            self.line(&format!("@{first} {PENDING_COUNT} {r}, {state}"));
        }
        self.line("bar.sync 0");
        for ph in 0..phases {
            // Each phase has its own 8 bytes of the slot, so no store of phase 1 meets a
            // neighbour still reading phase 0's.
            let (own, nb) = (format!("{own}+{}", 8 * ph), format!("{nb}+{}", 8 * ph));
            let (bytes, det) = if copies {
                let bytes = [4u32, 8][self.u.choose_index(2)?];
                self.copy(&own, bytes)?;
                self.line(&format!("{cp_arrive} [{bar}]"));
                (bytes, Det::Exact)
            } else {
                let w = [32u32, 64][self.u.choose_index(2)?];
                match self.pick(w, None)? {
                    Some(src) => {
                        self.line(&format!("st.shared.b{w} [{own}], {}", src.name));
                        (w / 8, src.det)
                    }
                    None => {
                        self.line(&format!("st.shared.b32 [{own}], {tid}"));
                        (4, Det::Exact)
                    }
                }
            };
            if tx {
                // The phase also waits for the tx-count to return to zero (L18410): each
                // thread expects and completes the same bytes before it arrives.
                let n = 4 * self.u.int_in_range(1..=4u32)?;
                self.line(&format!("{EXPECT_TX} [{bar}], {n}"));
                self.line(&format!("{COMPLETE_TX} [{bar}], {n}"));
            }
            let arrive = if drop && ph + 1 == phases {
                "mbarrier.arrive_drop.shared.b64"
            } else {
                "mbarrier.arrive.shared.b64"
            };
            let (state, p) = (self.temp(64), self.temp(1));
            let one = if counted && !arrive.contains("drop") { ", 1" } else { "" };
            self.line(&format!("{arrive} {state}, [{bar}]{one}"));
            // The phase is complete only once every thread (and copy) has arrived; a wait
            // that says so orders their stores before the read below.
            let again = self.new_label("MBAR_WAIT");
            self.label(&again);
            let phase = if parity { (ph % 2).to_string() } else { state };
            self.line(&format!("{wait} {p}, [{bar}], {phase}"));
            self.line(&format!("@!{p} bra {again}"));
            self.load_slot(&nb, bytes, det)?;
        }
        // Every thread's waits are done before the object is invalidated.
        self.line("bar.sync 0");
        self.line(&format!("@{first} mbarrier.inval.shared.b64 [{bar}]"));
        if copies {
            // The copies are complete (the phases were), but let no group stay uncommitted.
            self.line("cp.async.wait_all");
        }
        Ok(true)
    }
}
