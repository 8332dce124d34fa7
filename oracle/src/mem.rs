//! The oracle's memory: where each state space lives in the 64-bit generic address space, and the
//! checked accesses that turn a bad address into a message instead of a crash.
//!
//! Generic addresses (§6.4.1.2 "generic addressing") are windows of 4 GiB, one per space; inside
//! a window the offset is the address in that space. Global memory is a set of allocations (module
//! `.global` data, then launch buffers) with unmapped gaps between them, so running off the end of
//! a buffer is caught, not silently read from the next one.

use crate::program::Space;

/// One window's size: state-space addresses are offsets below it.
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

/// Which window a generic address falls in, and its address in that space.
pub fn resolve_generic(addr: u64) -> Option<(Space, u64)> {
    let win = |base: u64| (base..base + WINDOW).contains(&addr).then(|| addr - base);
    if let Some(a) = win(SHARED_WIN) {
        return Some((Space::Shared, a));
    }
    if let Some(a) = win(LOCAL_WIN) {
        return Some((Space::Local, a));
    }
    if let Some(a) = win(CONST_WIN) {
        return Some((Space::Const, a));
    }
    if let Some(a) = win(PARAM_WIN) {
        return Some((Space::Param, KPARAM + a));
    }
    (addr >= GLOBAL_DATA).then_some((Space::Global, addr))
}

/// The generic address of `addr` in `space` (`cvta.space`).
pub fn to_generic(space: Space, addr: u64) -> u64 {
    match space {
        Space::Shared | Space::SharedCluster => SHARED_WIN + (addr & (WINDOW - 1)),
        Space::Local => LOCAL_WIN + (addr & (WINDOW - 1)),
        Space::Const => CONST_WIN + (addr & (WINDOW - 1)),
        Space::Param => PARAM_WIN + (addr.wrapping_sub(KPARAM) & (WINDOW - 1)),
        Space::Global | Space::Generic => addr,
    }
}

/// The `space` address of generic `addr` (`cvta.to.space`): the offset in its window. An
/// address outside the window gives the wrapped offset, as a hardware subtraction would; using it
/// fails at the access.
pub fn from_generic(space: Space, addr: u64) -> u64 {
    match space {
        Space::Shared | Space::SharedCluster => addr.wrapping_sub(SHARED_WIN),
        Space::Local => addr.wrapping_sub(LOCAL_WIN),
        Space::Const => addr.wrapping_sub(CONST_WIN),
        Space::Param => addr.wrapping_sub(PARAM_WIN).wrapping_add(KPARAM),
        Space::Global | Space::Generic => addr,
    }
}

/// Whether generic `addr` points into `space` (`isspacep`): the `.shared::cluster` window is
/// the whole shared window (the interpreter narrows `.shared::cta` to the executing CTA's part,
/// [`crate::cluster`]).
pub fn is_in(space: Space, addr: u64) -> bool {
    match resolve_generic(addr) {
        Some((Space::Shared, _)) if space == Space::SharedCluster => true,
        Some((s, _)) => s == space,
        None => false,
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
