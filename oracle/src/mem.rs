//! The oracle's memory: where each state space lives in the 64-bit generic address space, and the
//! checked accesses that turn a bad address into a message instead of a crash.
//!
//! Generic addresses (§6.4.1.2 "generic addressing") are windows, one per space; inside a window
//! the offset is the address in that space ([`Windows`]: 4 GiB each in a 64-bit module, smaller
//! and all below 4 GiB in a 32-bit one). Global memory is a set of allocations (module
//! `.global` data, then launch buffers) with unmapped gaps between them, so running off the end of
//! a buffer is caught, not silently read from the next one.

use crate::program::Space;

// The windows of a 64-bit module ([`Windows::A64`]).

/// One window's size in a 64-bit module: state-space addresses are offsets below it.
pub const WINDOW: u64 = 1 << 32;
/// Generic window of shared memory: the `.shared::cluster` window ([`crate::cluster`]), whose
/// first 16 MiB are the executing CTA's own shared memory.
pub const SHARED_WIN: u64 = 0x0000_1000_0000_0000;
/// Generic window of the executing thread's local memory (its stack).
pub const LOCAL_WIN: u64 = 0x0000_2000_0000_0000;
/// Generic window of the constant bank.
pub const CONST_WIN: u64 = 0x0000_3000_0000_0000;
/// Generic window of the kernel parameters (`cvta.param`, PTX 7.7).
pub const PARAM_WIN: u64 = 0x0000_4000_0000_0000;
/// Function addresses (`mov.u64 %rd, f`; `.global` tables of them): `FUNC_BASE + 16 * index`.
pub const FUNC_BASE: u64 = 0x0000_5000_0000_0000;
/// Module `.global` variables; launch buffers follow at [`HEAP`].
pub const GLOBAL_DATA: u64 = 0x0000_7f00_0000_0000;
/// Launch buffers ([`crate::exec::Machine::alloc`]), from here up.
pub const HEAP: u64 = 0x0000_7f10_0000_0000;
/// Gap left unmapped after every global allocation.
pub const GUARD: u64 = 4096;
/// `.param` space: a function's parameters live on the thread's stack (addresses below this);
/// the kernel's parameters at `KPARAM + offset`.
pub const KPARAM: u64 = 1 << 31;

/// One global allocation.
#[derive(Clone, Debug)]
pub struct Region {
    /// The buffer's name (`"module .global variables"` for the module's).
    pub name: String,
    /// Its first address.
    pub base: u64,
    /// Its bytes.
    pub data: Vec<u8>,
}

/// Global memory: allocations sorted by address.
#[derive(Clone, Debug, Default)]
pub struct Global {
    /// The allocations, by ascending base address.
    pub regions: Vec<Region>,
    /// What executing code read and wrote since [`Global::track`], while tracked (multi-CTA
    /// execution, `crate::exec`): a `RefCell` because reads take `&self`. `None` (the usual case)
    /// costs [`Global::read`] and [`Global::write`] one test.
    log: Option<Box<std::cell::RefCell<Log>>>,
}

/// Bytes `[lo, hi)` of global allocation `k` ([`Global::regions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Span {
    /// The allocation's index.
    pub k: usize,
    /// The first byte's offset in it.
    pub lo: usize,
    /// The offset past the last byte.
    pub hi: usize,
}

/// The global accesses of executing code while [`Global::track`]ed: the bytes read, and every
/// write with the bytes it overwrote, so that [`Log::undo`] can put memory back as it was.
#[derive(Clone, Debug, Default)]
pub struct Log {
    /// Spans read, in order (a read next to or over the previous one extends it: a warp's lanes
    /// reading consecutive elements make one span).
    reads: Vec<Span>,
    /// Spans written, in order (a write just past the previous one extends it).
    writes: Vec<Span>,
    /// The bytes each write overwrote, the writes' in order.
    old: Vec<u8>,
}

impl Log {
    fn read(&mut self, s: Span) {
        if let Some(l) = self.reads.last_mut() {
            if l.k == s.k && s.lo <= l.hi && s.hi >= l.lo {
                l.lo = l.lo.min(s.lo);
                l.hi = l.hi.max(s.hi);
                return;
            }
        }
        self.reads.push(s);
    }

    fn wrote(&mut self, s: Span, old: &[u8]) {
        self.old.extend_from_slice(old);
        // Extending the previous entry keeps undo exact: the two writes are disjoint, so
        // restoring them together is restoring them in reverse order.
        match self.writes.last_mut() {
            Some(l) if l.k == s.k && l.hi == s.lo => l.hi = s.hi,
            _ => self.writes.push(s),
        }
    }

    /// The bytes read, as sorted disjoint spans.
    pub fn read_set(&self) -> Vec<Span> {
        merged(self.reads.clone())
    }

    /// The bytes written, as sorted disjoint spans.
    pub fn write_set(&self) -> Vec<Span> {
        merged(self.writes.clone())
    }

    /// Puts back every byte the logged writes overwrote, latest write first: memory is as it
    /// was when tracking began.
    pub fn undo(&self, g: &mut Global) {
        let mut end = self.old.len();
        for s in self.writes.iter().rev() {
            let start = end - (s.hi - s.lo);
            g.regions[s.k].data[s.lo..s.hi].copy_from_slice(&self.old[start..end]);
            end = start;
        }
    }
}

/// `spans` sorted, with overlapping and adjacent ones joined.
pub fn merged(mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_unstable();
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        match out.last_mut() {
            Some(l) if l.k == s.k && s.lo <= l.hi => l.hi = l.hi.max(s.hi),
            _ => out.push(s),
        }
    }
    out
}

impl Global {
    /// Maps `data` at `base` (callers keep allocations ordered and apart).
    pub fn map(&mut self, name: &str, base: u64, data: Vec<u8>) {
        self.regions.push(Region {
            name: name.to_string(),
            base,
            data,
        });
        self.regions.sort_by_key(|r| r.base);
    }

    /// The next free address for an allocation of `len` bytes at or above `floor`, aligned to 256
    /// bytes (cudaMalloc's guarantee) and a guard gap past the previous allocation.
    pub fn next_base(&self, floor: u64) -> u64 {
        let end = self
            .regions
            .iter()
            .map(|r| r.base + r.data.len() as u64 + GUARD)
            .max()
            .unwrap_or(floor)
            .max(floor);
        end.div_ceil(256) * 256
    }
}

/// Where the state spaces lie in the generic address space of a module of one `.address_size`
/// (§11.1.3, L33312-33347): one window per space, inside which the offset is the address in that
/// space, and global memory (module `.global` data, then the launch's buffers) apart from them.
/// A 64-bit module has [`Windows::A64`] (the constants above); a 32-bit one [`Windows::A32`],
/// every address below 4 GiB (spec/INTERPRETATIONS.md, "32-bit modules").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Windows {
    /// The module's address size in bits: 32 or 64.
    pub bits: u32,
    /// The bits of an address: a wider register value is truncated to them (L3114).
    pub mask: u64,
    /// The shared window: the `.shared::cluster` window ([`crate::cluster`]).
    pub shared: u64,
    /// The shared window's size (a power of two).
    pub shared_size: u64,
    /// The executing thread's local memory (its stack).
    pub local: u64,
    /// The constant bank.
    pub konst: u64,
    /// The kernel parameters (`cvta.param`, PTX 7.7).
    pub param: u64,
    /// The size of the local, constant and parameter windows (a power of two).
    pub size: u64,
    /// Function addresses: `func + 16 * index`.
    pub func: u64,
    /// Module `.global` variables.
    pub global_data: u64,
    /// Launch buffers, from here up ([`crate::exec::Machine::alloc`]).
    pub heap: u64,
    /// The last address of global memory.
    pub global_last: u64,
}

impl Windows {
    /// A 64-bit module's windows: 4 GiB each, far apart.
    pub const A64: Windows = Windows {
        bits: 64,
        mask: u64::MAX,
        shared: SHARED_WIN,
        shared_size: WINDOW,
        local: LOCAL_WIN,
        konst: CONST_WIN,
        param: PARAM_WIN,
        size: WINDOW,
        func: FUNC_BASE,
        global_data: GLOBAL_DATA,
        heap: HEAP,
        global_last: u64::MAX,
    };

    /// A 32-bit module's windows, all below 4 GiB: module `.global` data from 1 MiB, launch
    /// buffers from 256 MiB up to 2.5 GiB, function addresses at `0xa000_0000`, then 256 MiB
    /// each for the parameter, constant and local windows, and the top 512 MiB for the shared
    /// window (the `.shared::cluster` window's 17 × 16 MiB, [`crate::cluster`]).
    pub const A32: Windows = Windows {
        bits: 32,
        mask: u32::MAX as u64,
        shared: 0xe000_0000,
        shared_size: 0x2000_0000,
        local: 0xd000_0000,
        konst: 0xc000_0000,
        param: 0xb000_0000,
        size: 0x1000_0000,
        func: 0xa000_0000,
        global_data: 0x0010_0000,
        heap: 0x1000_0000,
        global_last: 0x9fff_ffff,
    };

    /// The windows of a module of `.address_size bits`.
    pub fn of(bits: u32) -> Windows {
        if bits == 32 {
            Windows::A32
        } else {
            Windows::A64
        }
    }

    /// Which window a generic address falls in, and its address in that space.
    pub fn resolve_generic(&self, addr: u64) -> Option<(Space, u64)> {
        let addr = addr & self.mask;
        let win = |base: u64, size: u64| (base..base + size).contains(&addr).then(|| addr - base);
        if let Some(a) = win(self.shared, self.shared_size) {
            return Some((Space::Shared, a));
        }
        if let Some(a) = win(self.local, self.size) {
            return Some((Space::Local, a));
        }
        if let Some(a) = win(self.konst, self.size) {
            return Some((Space::Const, a));
        }
        if let Some(a) = win(self.param, self.size) {
            return Some((Space::Param, KPARAM + a));
        }
        (self.global_data..=self.global_last)
            .contains(&addr)
            .then_some((Space::Global, addr))
    }

    /// The generic address of `addr` in `space` (`cvta.space`).
    pub fn to_generic(&self, space: Space, addr: u64) -> u64 {
        match space {
            Space::Shared | Space::SharedCluster => self.shared + (addr & (self.shared_size - 1)),
            Space::Local => self.local + (addr & (self.size - 1)),
            Space::Const => self.konst + (addr & (self.size - 1)),
            Space::Param => self.param + (addr.wrapping_sub(KPARAM) & (self.size - 1)),
            Space::Global | Space::Generic => addr & self.mask,
        }
    }

    /// The `space` address of generic `addr` (`cvta.to.space`): the offset in its window. An
    /// address outside the window gives the wrapped offset, as a hardware subtraction would;
    /// using it fails at the access.
    pub fn from_generic(&self, space: Space, addr: u64) -> u64 {
        let a = addr & self.mask;
        let off = match space {
            Space::Shared | Space::SharedCluster => a.wrapping_sub(self.shared),
            Space::Local => a.wrapping_sub(self.local),
            Space::Const => a.wrapping_sub(self.konst),
            Space::Param => a.wrapping_sub(self.param).wrapping_add(KPARAM),
            Space::Global | Space::Generic => a,
        };
        off & self.mask
    }

    /// Whether generic `addr` points into `space` (`isspacep`): the `.shared::cluster` window
    /// is the whole shared window (the interpreter narrows `.shared::cta` to the executing
    /// CTA's part, [`crate::cluster`]).
    pub fn is_in(&self, space: Space, addr: u64) -> bool {
        match self.resolve_generic(addr) {
            Some((Space::Shared, _)) if space == Space::SharedCluster => true,
            Some((s, _)) => s == space,
            None => false,
        }
    }

    /// The address of function number `index` (`mov.u64 %rd, f`).
    pub fn func_addr(&self, index: u32) -> u64 {
        self.func + 16 * index as u64
    }
}

/// A global access that no allocation holds ([`Global::find`]); the interpreter reports it as a
/// runtime error at the instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccessError {
    /// The access starts in an allocation (or the guard gap after it) and runs past its end.
    PastEnd {
        /// The address accessed.
        addr: u64,
        /// The access size in bytes.
        len: usize,
        /// The allocation's name.
        region: String,
        /// The allocation's size in bytes.
        size: usize,
        /// The allocation's base address.
        base: u64,
    },
    /// The address is in no allocation.
    Unmapped {
        /// The address accessed.
        addr: u64,
    },
}

impl std::fmt::Display for AccessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AccessError::PastEnd {
                addr,
                len,
                region,
                size,
                base,
            } => write!(
                f,
                "global address {addr:#x} (+{len} bytes) runs past the end of `{region}` ({size} bytes at {base:#x})"
            ),
            AccessError::Unmapped { addr } => write!(f, "global address {addr:#x} is not in any allocation"),
        }
    }
}

impl std::error::Error for AccessError {}

impl Global {
    /// Bytes `[off, off+n)` of allocation `k`, read by the program. Every read of global memory
    /// by executing code goes through here, so that what a CTA reads can be known
    /// (multi-CTA execution, `crate::exec`).
    #[inline]
    pub fn read(&self, k: usize, off: usize, n: usize) -> &[u8] {
        if let Some(log) = &self.log {
            log.borrow_mut().read(Span {
                k,
                lo: off,
                hi: off + n,
            });
        }
        &self.regions[k].data[off..off + n]
    }

    /// Bytes `[off, off+n)` of allocation `k`, written by the program; like [`Global::read`], the
    /// one way executing code writes global memory.
    #[inline]
    pub fn write(&mut self, k: usize, off: usize, n: usize) -> &mut [u8] {
        let data = &mut self.regions[k].data[off..off + n];
        if let Some(log) = &mut self.log {
            log.get_mut().wrote(
                Span {
                    k,
                    lo: off,
                    hi: off + n,
                },
                data,
            );
        }
        data
    }

    /// Starts logging the reads and writes of executing code (a fresh [`Log`]).
    pub fn track(&mut self) {
        self.log = Some(Box::default());
    }

    /// Stops logging; what was logged since [`Global::track`] (empty if it was not on).
    pub fn untrack(&mut self) -> Log {
        self.log.take().map(|l| (*l).into_inner()).unwrap_or_default()
    }

    /// The bytes of `s`.
    pub fn bytes(&self, s: Span) -> &[u8] {
        &self.regions[s.k].data[s.lo..s.hi]
    }

    /// Overwrites the bytes of `s` with `data` (its length), unlogged: the committing of another
    /// copy's writes.
    pub fn put(&mut self, s: Span, data: &[u8]) {
        self.regions[s.k].data[s.lo..s.hi].copy_from_slice(data);
    }

    /// The allocation holding `[addr, addr+len)` and the offset in it.
    pub fn find(&self, addr: u64, len: usize) -> Result<(usize, usize), AccessError> {
        let i = self.regions.partition_point(|r| r.base <= addr);
        if i > 0 {
            let r = &self.regions[i - 1];
            let off = addr - r.base;
            if off.checked_add(len as u64).is_some_and(|e| e <= r.data.len() as u64) {
                return Ok((i - 1, off as usize));
            }
            if off < r.data.len() as u64 + GUARD {
                return Err(AccessError::PastEnd {
                    addr,
                    len,
                    region: r.name.clone(),
                    size: r.data.len(),
                    base: r.base,
                });
            }
        }
        Err(AccessError::Unmapped { addr })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_knows_what_was_read_and_undoes_what_was_written() {
        let mut g = Global::default();
        g.map("a", 0x1000, (0..64).collect());
        g.map("b", 0x2000, vec![7; 16]);
        let before = g.clone();
        g.track();
        let _ = g.read(0, 0, 4);
        let _ = g.read(0, 4, 4);
        let _ = g.read(1, 8, 2);
        let _ = g.read(0, 2, 4);
        g.write(0, 8, 4).copy_from_slice(&[1; 4]);
        g.write(0, 12, 4).copy_from_slice(&[2; 4]);
        g.write(0, 10, 4).copy_from_slice(&[3; 4]);
        g.write(1, 0, 16).copy_from_slice(&[9; 16]);
        let log = g.untrack();
        let _ = g.read(0, 60, 4); // untracked
        assert_eq!(
            log.read_set(),
            vec![Span { k: 0, lo: 0, hi: 8 }, Span { k: 1, lo: 8, hi: 10 }]
        );
        assert_eq!(
            log.write_set(),
            vec![Span { k: 0, lo: 8, hi: 16 }, Span { k: 1, lo: 0, hi: 16 }]
        );
        assert_eq!(g.bytes(Span { k: 0, lo: 8, hi: 16 }), [1, 1, 3, 3, 3, 3, 2, 2]);
        log.undo(&mut g);
        assert_eq!(g.regions[0].data, before.regions[0].data);
        assert_eq!(g.regions[1].data, before.regions[1].data);
    }
}
